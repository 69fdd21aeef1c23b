// SPDX-License-Identifier: MIT
/*
 * Input: keyboards (xkb, with the config's layout), pointers, touchscreens
 * and pens (tablet-v2, or the pointer for clients without it). A
 * touchscreen or pen is laminated to the panel, so its coordinates are the
 * panel's native ones and follow the output's rotation into the rotated
 * layout. The cursor image is drawn only when the config asks for it.
 */
#include <linux/input-event-codes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vellum/epd-backend.h>
#include <wlr/backend/libinput.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_idle_notify_v1.h>
#include <wlr/types/wlr_input_device.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/types/wlr_primary_selection.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_tablet_tool.h>
#include <wlr/types/wlr_tablet_v2.h>
#include <wlr/types/wlr_touch.h>
#include <wlr/types/wlr_virtual_keyboard_v1.h>
#include <wlr/types/wlr_virtual_pointer_v1.h>
#include <wlr/types/wlr_xcursor_manager.h>
#include <wlr/util/log.h>
#include <xkbcommon/xkbcommon.h>

#include "preview.h"
#include "server.h"

#define VL_MAX_TOUCH_POINTS 16

/* Where the surface a touch went down on was, in layout coordinates. */
struct vl_touch_origin {
	bool used;
	int32_t id;
	double x, y;
};

struct vl_seat {
	struct vl_server *server;
	struct wlr_seat *seat;
	struct wlr_cursor *cursor;
	struct wlr_xcursor_manager *xcursor_manager; /* only while the cursor is shown */
	struct wl_list keyboards;                    /* struct vl_keyboard */
	struct wl_list devices;                      /* struct vl_device: pointers, touch, pens */
	struct vl_touch_origin touches[VL_MAX_TOUCH_POINTS];
	/* the keyboard goes to the layer surface when there is one, else to the view */
	struct wlr_surface *view_focus, *layer_focus;
	/* where the pen is, as fractions of the panel, and the surface it is down on */
	double pen_x, pen_y, pen_origin_x, pen_origin_y;
	/* where the surface a button went down on was, in layout coordinates */
	double press_origin_x, press_origin_y;
	/* the pointer is on the desk around the preview's panel, and the buttons pressed there */
	bool pointer_off_panel;
	uint32_t off_panel_buttons; /* bit N: BTN_MOUSE + N */
	/* a pointer update waiting for the scene to settle (vl_seat_update_pointer_later) */
	struct wl_event_source *pointer_update;

	struct wl_listener motion, motion_absolute, button, axis, frame;
	struct wl_listener touch_down, touch_up, touch_motion, touch_frame, touch_cancel;
	struct wl_listener tablet_proximity, tablet_axis, tablet_tip, tablet_button;
	struct wl_listener request_set_cursor, request_set_selection, request_set_primary_selection;
	struct wl_listener new_surface;
};

/* A surface's commits may change what is under the pointer. */
struct vl_watched_surface {
	struct vl_seat *seat;
	struct wlr_surface *surface;
	struct wl_listener commit, destroy;
};

struct vl_keyboard {
	struct wl_list link;
	struct vl_seat *seat;
	struct wlr_keyboard *keyboard;
	/* a device's, which takes the config's keymap; a virtual keyboard brings its own */
	bool uses_config_keymap;
	struct wl_listener modifiers, key, destroy;
};

struct vl_device {
	struct wl_list link;
	struct vl_seat *seat;
	struct wlr_input_device *device;
	struct wl_listener destroy;
};

struct wlr_seat *
vl_seat_wlr(struct vl_seat *seat)
{
	return seat->seat;
}

/* The panel's refresh policy goes fast while the user works, by the kind of input. */
static void
notify_activity(struct vl_seat *seat, enum vl_epd_input kind)
{
	wlr_idle_notifier_v1_notify_activity(seat->server->idle_notifier, seat->seat);
	vl_epd_backend_notify_input(seat->server->epd_backend, kind);
}

/* Keyboards */

static struct xkb_keymap *
compile_keymap(const struct xkb_rule_names *names, enum xkb_context_flags flags)
{
	struct xkb_context *context = xkb_context_new(flags);
	struct xkb_keymap *keymap =
		context ? xkb_keymap_new_from_names(context, names, XKB_KEYMAP_COMPILE_NO_FLAGS)
			: NULL;

	xkb_context_unref(context);
	return keymap;
}

/*
 * The config's keymap, checked when the file was read; should XKB still
 * fail (its files changed, or XKB_DEFAULT_* names a layout it lacks), the
 * keyboard gets XKB's own default rather than no keymap: a kiosk must not
 * lose its keyboard.
 */
static void
apply_keymap(struct vl_seat *seat, struct wlr_keyboard *keyboard)
{
	const struct vl_config *config = &seat->server->config;
	const struct xkb_rule_names names = {
		.layout = config->keyboard_layout,
		.variant = config->keyboard_variant,
		.options = config->keyboard_options,
	};
	struct xkb_keymap *keymap = compile_keymap(&names, XKB_CONTEXT_NO_FLAGS);

	if (!keymap) {
		keymap = compile_keymap(
			&(struct xkb_rule_names){0}, XKB_CONTEXT_NO_ENVIRONMENT_NAMES);
		wlr_log(WLR_ERROR,
			"%s: XKB cannot compile the keymap of keyboard-layout \"%s\", "
			"keyboard-variant \"%s\", keyboard-options \"%s\" (XKB_DEFAULT_LAYOUT, "
			"_VARIANT and _OPTIONS fill in those not set): %s",
			keyboard->base.name ? keyboard->base.name : "a keyboard",
			names.layout ? names.layout : "", names.variant ? names.variant : "",
			names.options ? names.options : "",
			keymap ? "it has XKB's default keymap" : "it has none, XKB has no files");
	}
	if (keymap && !wlr_keyboard_set_keymap(keyboard, keymap))
		wlr_log(WLR_ERROR, "cannot give %s its keymap",
			keyboard->base.name ? keyboard->base.name : "a keyboard");
	xkb_keymap_unref(keymap);
}

static void
handle_modifiers(struct wl_listener *listener, void *data)
{
	struct vl_keyboard *keyboard = wl_container_of(listener, keyboard, modifiers);
	(void)data;

	wlr_seat_set_keyboard(keyboard->seat->seat, keyboard->keyboard);
	wlr_seat_keyboard_notify_modifiers(keyboard->seat->seat, &keyboard->keyboard->modifiers);
}

static void
handle_key(struct wl_listener *listener, void *data)
{
	struct vl_keyboard *keyboard = wl_container_of(listener, keyboard, key);
	struct wlr_keyboard_key_event *event = data;

	if (vl_preview_handle_key(keyboard->seat->server, keyboard->keyboard, event->keycode,
		    event->state == WL_KEYBOARD_KEY_STATE_PRESSED))
		return;
	notify_activity(keyboard->seat, VL_EPD_INPUT_KEY);
	wlr_seat_set_keyboard(keyboard->seat->seat, keyboard->keyboard);
	wlr_seat_keyboard_notify_key(
		keyboard->seat->seat, event->time_msec, event->keycode, event->state);
}

static void
handle_keyboard_destroy(struct wl_listener *listener, void *data)
{
	struct vl_keyboard *keyboard = wl_container_of(listener, keyboard, destroy);
	(void)data;

	wl_list_remove(&keyboard->modifiers.link);
	wl_list_remove(&keyboard->key.link);
	wl_list_remove(&keyboard->destroy.link);
	wl_list_remove(&keyboard->link);
	free(keyboard);
}

static void
add_keyboard(struct vl_seat *seat, struct wlr_keyboard *wlr_keyboard, bool uses_config_keymap)
{
	struct vl_keyboard *keyboard = calloc(1, sizeof(*keyboard));

	if (!keyboard)
		return;
	if (uses_config_keymap)
		apply_keymap(seat, wlr_keyboard);
	wlr_keyboard_set_repeat_info(wlr_keyboard, 25, 600);
	keyboard->seat = seat;
	keyboard->keyboard = wlr_keyboard;
	keyboard->uses_config_keymap = uses_config_keymap;
	keyboard->modifiers.notify = handle_modifiers;
	wl_signal_add(&wlr_keyboard->events.modifiers, &keyboard->modifiers);
	keyboard->key.notify = handle_key;
	wl_signal_add(&wlr_keyboard->events.key, &keyboard->key);
	keyboard->destroy.notify = handle_keyboard_destroy;
	wl_signal_add(&wlr_keyboard->base.events.destroy, &keyboard->destroy);
	wl_list_insert(&seat->keyboards, &keyboard->link);
	wlr_seat_set_keyboard(seat->seat, wlr_keyboard);
}

static void
update_focus(struct vl_seat *seat)
{
	struct wlr_keyboard *keyboard = wlr_seat_get_keyboard(seat->seat);
	struct wlr_surface *surface = seat->layer_focus ? seat->layer_focus : seat->view_focus;

	if (!surface) {
		wlr_seat_keyboard_notify_clear_focus(seat->seat);
		return;
	}
	if (keyboard)
		wlr_seat_keyboard_notify_enter(seat->seat, surface, keyboard->keycodes,
			keyboard->num_keycodes, &keyboard->modifiers);
	else
		wlr_seat_keyboard_notify_enter(seat->seat, surface, NULL, 0, NULL);
}

void
vl_seat_focus(struct vl_seat *seat, struct wlr_surface *surface)
{
	/*
	 * Another window takes the keyboard: a popup's grab (a menu) ends, its
	 * popups dismissed, or the grab would keep the keyboard from it.
	 */
	if (surface != seat->view_focus)
		wlr_seat_keyboard_end_grab(seat->seat);
	seat->view_focus = surface;
	update_focus(seat);
}

void
vl_seat_focus_layer(struct vl_seat *seat, struct wlr_surface *surface)
{
	seat->layer_focus = surface;
	update_focus(seat);
}

struct wlr_surface *
vl_seat_layer_focus(struct vl_seat *seat)
{
	return seat->layer_focus;
}

/* Pointer-like devices: the surface under a point in layout coordinates */

static struct wlr_surface *
surface_at(struct vl_seat *seat, double lx, double ly, double *sx, double *sy)
{
	struct wlr_scene_node *node =
		wlr_scene_node_at(&seat->server->scene->tree.node, lx, ly, sx, sy);

	if (!node || node->type != WLR_SCENE_NODE_BUFFER)
		return NULL;
	struct wlr_scene_surface *scene_surface =
		wlr_scene_surface_try_from_buffer(wlr_scene_buffer_from_node(node));
	return scene_surface ? scene_surface->surface : NULL;
}

/*
 * Tells the surface under the pointer where the pointer is: an enter when
 * the surface changed, a motion when the pointer moved or the surface moved
 * under it.
 */
static void
update_pointer_focus(struct vl_seat *seat, uint32_t time_msec, bool moved)
{
	struct wlr_seat_pointer_state *state = &seat->seat->pointer_state;
	double sx, sy;
	struct wlr_surface *surface = surface_at(seat, seat->cursor->x, seat->cursor->y, &sx, &sy);

	/* A drag stays with the surface its button went down on, wherever it goes. */
	if (state->button_count > 0 && state->focused_surface) {
		if (moved)
			wlr_seat_pointer_notify_motion(seat->seat, time_msec,
				seat->cursor->x - seat->press_origin_x,
				seat->cursor->y - seat->press_origin_y);
		return;
	}
	/* an enter or leave comes with its frame; a motion ends in the device's */
	if (!surface) {
		wlr_seat_pointer_clear_focus(seat->seat);
	} else if (surface != state->focused_surface) {
		wlr_seat_pointer_notify_enter(seat->seat, surface, sx, sy);
	} else if (moved || sx != state->sx || sy != state->sy) {
		wlr_seat_pointer_notify_motion(seat->seat, time_msec, sx, sy);
		if (!moved)
			wlr_seat_pointer_notify_frame(seat->seat);
	}
}

static void
pointer_moved(struct vl_seat *seat, uint32_t time_msec)
{
	notify_activity(seat, VL_EPD_INPUT_POINTER);
	update_pointer_focus(seat, time_msec, true);
}

static uint32_t
now_msec(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint32_t)(now.tv_sec * 1000 + now.tv_nsec / 1000000);
}

/* What is under a pointer that stands still may have changed. */
static void
update_standing_pointer(struct vl_seat *seat)
{
	/* without a pointer the cursor stands still at 0,0 and enters nothing */
	if (seat->seat->capabilities & WL_SEAT_CAPABILITY_POINTER)
		update_pointer_focus(seat, now_msec(), false);
}

static void
handle_pointer_update(void *data)
{
	struct vl_seat *seat = data;

	seat->pointer_update = NULL;
	update_standing_pointer(seat);
}

void
vl_seat_update_pointer_later(struct vl_seat *seat)
{
	if (!seat->pointer_update)
		seat->pointer_update =
			wl_event_loop_add_idle(seat->server->loop, handle_pointer_update, seat);
}

/*
 * A point given in the panel's native orientation, as fractions of its
 * size, to layout coordinates: the inverse of how the rotated output is
 * drawn into the panel.
 */
static bool
panel_to_layout(struct vl_seat *seat, double x, double y, double *lx, double *ly)
{
	struct vl_output *output = vl_output_first(seat->server);

	if (!output)
		return false;
	struct wlr_output *wlr_output = output->wlr_output;
	double w = wlr_output->width, h = wlr_output->height;
	double bx = x * w, by = y * h, ox, oy;
	struct wlr_box box;

	switch (wlr_output->transform) {
	case WL_OUTPUT_TRANSFORM_90:
		ox = h - by;
		oy = bx;
		break;
	case WL_OUTPUT_TRANSFORM_180:
		ox = w - bx;
		oy = h - by;
		break;
	case WL_OUTPUT_TRANSFORM_270:
		ox = by;
		oy = w - bx;
		break;
	default:
		ox = bx;
		oy = by;
		break;
	}
	wlr_output_layout_get_box(seat->server->output_layout, wlr_output, &box);
	/*
	 * Panel pixels to logical ones, rounded to wl_fixed_t's 1/256 steps:
	 * wl_fixed_from_double() cuts, so a point that came out as 106.99999
	 * would reach the client as 106.996.
	 */
	*lx = round((box.x + ox / wlr_output->scale) * 256.0) / 256.0;
	*ly = round((box.y + oy / wlr_output->scale) * 256.0) / 256.0;
	return true;
}

/*
 * An absolute position from device in layout coordinates: the preview
 * window's devices point into the window, which shows the layout around
 * the panel (*on_panel false there); others are laminated to the panel.
 */
static bool
device_to_layout(struct vl_seat *seat, struct wlr_input_device *device, double x, double y,
	double *lx, double *ly, bool *on_panel)
{
	*on_panel = true;
	return vl_preview_to_layout(seat->server, device, x, y, lx, ly, on_panel) ||
	       panel_to_layout(seat, x, y, lx, ly);
}

/* Whether the config maps this touchscreen or pen to the panel. */
static bool
maps_to_panel(struct vl_seat *seat, struct wlr_input_device *device)
{
	const char *wanted = seat->server->config.touch_device;

	return !wanted || (device->name && strcmp(device->name, wanted) == 0);
}

static void
handle_motion(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, motion);
	struct wlr_pointer_motion_event *event = data;

	seat->pointer_off_panel = false;
	wlr_cursor_move(seat->cursor, &event->pointer->base, event->delta_x, event->delta_y);
	pointer_moved(seat, event->time_msec);
}

static void
handle_motion_absolute(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, motion_absolute);
	struct wlr_pointer_motion_absolute_event *event = data;
	double lx, ly;
	bool on_panel;

	if (!device_to_layout(seat, &event->pointer->base, event->x, event->y, &lx, &ly, &on_panel))
		return;
	seat->pointer_off_panel = !on_panel;
	wlr_cursor_warp_closest(seat->cursor, &event->pointer->base, lx, ly);
	pointer_moved(seat, event->time_msec);
}

/*
 * Whether a button belongs to a press on the desk around the preview's
 * panel: there is no panel there, so neither the press nor its release
 * reaches an application.
 */
static bool
off_panel_button(struct vl_seat *seat, const struct wlr_pointer_button_event *event)
{
	uint32_t index = event->button - BTN_MOUSE;
	uint32_t bit = index < 32 ? 1u << index : 0;

	if (event->state == WL_POINTER_BUTTON_STATE_PRESSED) {
		if (!seat->pointer_off_panel || !bit)
			return false;
		seat->off_panel_buttons |= bit;
		return true;
	}
	if (!(seat->off_panel_buttons & bit))
		return false;
	seat->off_panel_buttons &= ~bit;
	return true;
}

/*
 * A pointer button goes down, the mouse's or the pen's tip: the first one
 * starts a drag, whose motions go to the surface under the pointer relative
 * to where that surface was at the press.
 */
static void
pointer_pressed(struct vl_seat *seat)
{
	struct wlr_seat_pointer_state *state = &seat->seat->pointer_state;

	vl_layers_handle_press(seat->server, state->focused_surface);
	if (state->button_count == 0) {
		seat->press_origin_x = seat->cursor->x - state->sx;
		seat->press_origin_y = seat->cursor->y - state->sy;
	}
}

static void
handle_button(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, button);
	struct wlr_pointer_button_event *event = data;
	struct wlr_seat_pointer_state *state = &seat->seat->pointer_state;

	if (off_panel_button(seat, event))
		return;
	notify_activity(seat, VL_EPD_INPUT_POINTER);
	if (event->state == WL_POINTER_BUTTON_STATE_PRESSED)
		pointer_pressed(seat);
	wlr_seat_pointer_notify_button(seat->seat, event->time_msec, event->button, event->state);
	/* the drag is over: the surface under the pointer now has it */
	if (event->state == WL_POINTER_BUTTON_STATE_RELEASED && state->button_count == 0)
		update_pointer_focus(seat, event->time_msec, false);
}

static void
handle_axis(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, axis);
	struct wlr_pointer_axis_event *event = data;

	notify_activity(seat, VL_EPD_INPUT_SCROLL);
	wlr_seat_pointer_notify_axis(seat->seat, event->time_msec, event->orientation, event->delta,
		event->delta_discrete, event->source, event->relative_direction);
}

static void
handle_frame(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, frame);
	(void)data;

	wlr_seat_pointer_notify_frame(seat->seat);
}

/* Touch */

static struct vl_touch_origin *
touch_origin(struct vl_seat *seat, int32_t touch_id, bool add)
{
	for (size_t i = 0; i < VL_MAX_TOUCH_POINTS; i++)
		if (seat->touches[i].used && seat->touches[i].id == touch_id)
			return &seat->touches[i];
	for (size_t i = 0; add && i < VL_MAX_TOUCH_POINTS; i++)
		if (!seat->touches[i].used)
			return &seat->touches[i];
	return NULL;
}

static void
handle_touch_down(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, touch_down);
	struct wlr_touch_down_event *event = data;
	double lx, ly, sx, sy;

	bool on_panel;
	bool mapped = maps_to_panel(seat, &event->touch->base) &&
		      device_to_layout(
			      seat, &event->touch->base, event->x, event->y, &lx, &ly, &on_panel);

	/* a touch on the desk around the preview's panel touches nothing */
	if (mapped && !on_panel)
		return;
	notify_activity(seat, VL_EPD_INPUT_TOUCH);
	if (!mapped)
		return;
	struct wlr_surface *surface = surface_at(seat, lx, ly, &sx, &sy);
	struct vl_touch_origin *origin = touch_origin(seat, event->touch_id, true);
	if (!surface || !origin)
		return;
	*origin = (struct vl_touch_origin){
		.used = true, .id = event->touch_id, .x = lx - sx, .y = ly - sy};
	vl_layers_handle_press(seat->server, surface);
	wlr_seat_touch_notify_down(seat->seat, surface, event->time_msec, event->touch_id, sx, sy);
}

static void
handle_touch_up(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, touch_up);
	struct wlr_touch_up_event *event = data;
	struct vl_touch_origin *origin = touch_origin(seat, event->touch_id, false);

	if (origin)
		origin->used = false;
	if (wlr_seat_touch_get_point(seat->seat, event->touch_id))
		wlr_seat_touch_notify_up(seat->seat, event->time_msec, event->touch_id);
}

static void
handle_touch_motion(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, touch_motion);
	struct wlr_touch_motion_event *event = data;
	struct vl_touch_origin *origin = touch_origin(seat, event->touch_id, false);
	double lx, ly;

	bool on_panel;

	if (!origin || !wlr_seat_touch_get_point(seat->seat, event->touch_id) ||
		!device_to_layout(
			seat, &event->touch->base, event->x, event->y, &lx, &ly, &on_panel))
		return;
	/* A touch stays with the surface it went down on, wherever it moves. */
	wlr_seat_touch_notify_motion(
		seat->seat, event->time_msec, event->touch_id, lx - origin->x, ly - origin->y);
}

static void
handle_touch_frame(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, touch_frame);
	(void)data;

	wlr_seat_touch_notify_frame(seat->seat);
}

static void
handle_touch_cancel(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, touch_cancel);
	struct wlr_touch_cancel_event *event = data;
	struct wlr_touch_point *point = wlr_seat_touch_get_point(seat->seat, event->touch_id);
	struct vl_touch_origin *origin = touch_origin(seat, event->touch_id, false);

	if (origin)
		origin->used = false;
	if (!point || !point->client)
		return;
	/*
	 * The client's touch session ends, each of its touches with it, though
	 * their fingers are still down: their origins are free again.
	 */
	struct wlr_touch_point *other;
	wl_list_for_each (other, &seat->seat->touch_state.touch_points, link) {
		origin = other->client == point->client ? touch_origin(seat, other->touch_id, false)
							: NULL;
		if (origin)
			origin->used = false;
	}
	wlr_seat_touch_notify_cancel(seat->seat, point->client);
}

/*
 * Pens: tablet tool events for clients that bound tablet-v2, the pointer for
 * the others (moved where the pen is, pressing while the tip touches). A pen
 * that went down on a surface stays with it until it is lifted, as a touch
 * does.
 */

static struct wlr_tablet_v2_tablet_tool *
tablet_tool(struct vl_seat *seat, struct wlr_tablet_tool *wlr_tool)
{
	/* freed by wlroots with the tool */
	if (!wlr_tool->data)
		wlr_tool->data =
			wlr_tablet_tool_create(seat->server->tablet_manager, seat->seat, wlr_tool);
	return wlr_tool->data;
}

/*
 * Moves the pen to where the seat last saw it: as a tablet tool onto the surface there when its
 * client takes tablet events, else as the pointer. Returns the tablet tool when the event went to a
 * surface as one.
 */
static struct wlr_tablet_v2_tablet_tool *
pen_moved(struct vl_seat *seat, struct wlr_tablet *tablet, struct wlr_tablet_tool *wlr_tool,
	uint32_t time_msec)
{
	struct wlr_tablet_v2_tablet_tool *tool = tablet_tool(seat, wlr_tool);
	struct wlr_tablet_v2_tablet *tablet_v2 = tablet->data;
	double lx, ly, sx, sy;

	if (!maps_to_panel(seat, &tablet->base) ||
		!panel_to_layout(seat, seat->pen_x, seat->pen_y, &lx, &ly))
		return NULL;
	notify_activity(seat, VL_EPD_INPUT_PEN);
	if (tool && tool->is_down && tool->focused_surface) {
		wlr_tablet_v2_tablet_tool_notify_motion(
			tool, lx - seat->pen_origin_x, ly - seat->pen_origin_y);
		return tool;
	}
	struct wlr_surface *surface = surface_at(seat, lx, ly, &sx, &sy);
	if (tool && tablet_v2 && surface && wlr_surface_accepts_tablet_v2(tablet_v2, surface)) {
		wlr_tablet_v2_tablet_tool_notify_proximity_in(tool, tablet_v2, surface);
		wlr_tablet_v2_tablet_tool_notify_motion(tool, sx, sy);
		seat->pen_origin_x = lx - sx;
		seat->pen_origin_y = ly - sy;
		return tool;
	}
	if (tool && tool->focused_surface)
		wlr_tablet_v2_tablet_tool_notify_proximity_out(tool);
	wlr_cursor_warp_closest(seat->cursor, NULL, lx, ly);
	pointer_moved(seat, time_msec);
	wlr_seat_pointer_notify_frame(seat->seat);
	return NULL;
}

static void
handle_tablet_proximity(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, tablet_proximity);
	struct wlr_tablet_tool_proximity_event *event = data;
	struct wlr_tablet_v2_tablet_tool *tool = tablet_tool(seat, event->tool);

	if (event->state == WLR_TABLET_TOOL_PROXIMITY_OUT) {
		if (tool && tool->focused_surface)
			wlr_tablet_v2_tablet_tool_notify_proximity_out(tool);
		return;
	}
	seat->pen_x = event->x;
	seat->pen_y = event->y;
	pen_moved(seat, event->tablet, event->tool, event->time_msec);
}

static void
handle_tablet_axis(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, tablet_axis);
	struct wlr_tablet_tool_axis_event *event = data;
	struct wlr_tablet_v2_tablet_tool *tool = NULL;

	/* an axis that did not change is not in the event */
	if (event->updated_axes & WLR_TABLET_TOOL_AXIS_X)
		seat->pen_x = event->x;
	if (event->updated_axes & WLR_TABLET_TOOL_AXIS_Y)
		seat->pen_y = event->y;
	if (event->updated_axes & (WLR_TABLET_TOOL_AXIS_X | WLR_TABLET_TOOL_AXIS_Y))
		tool = pen_moved(seat, event->tablet, event->tool, event->time_msec);
	else if (event->tool->data &&
		 ((struct wlr_tablet_v2_tablet_tool *)event->tool->data)->focused_surface)
		tool = event->tool->data;
	if (!tool)
		return;
	if (event->updated_axes & WLR_TABLET_TOOL_AXIS_PRESSURE)
		wlr_tablet_v2_tablet_tool_notify_pressure(tool, event->pressure);
	if (event->updated_axes & WLR_TABLET_TOOL_AXIS_DISTANCE)
		wlr_tablet_v2_tablet_tool_notify_distance(tool, event->distance);
	if (event->updated_axes & (WLR_TABLET_TOOL_AXIS_TILT_X | WLR_TABLET_TOOL_AXIS_TILT_Y))
		wlr_tablet_v2_tablet_tool_notify_tilt(tool, event->tilt_x, event->tilt_y);
}

static void
handle_tablet_tip(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, tablet_tip);
	struct wlr_tablet_tool_tip_event *event = data;
	bool down = event->state == WLR_TABLET_TOOL_TIP_DOWN;

	seat->pen_x = event->x;
	seat->pen_y = event->y;
	struct wlr_tablet_v2_tablet_tool *tool =
		pen_moved(seat, event->tablet, event->tool, event->time_msec);
	if (tool) {
		if (down) {
			vl_layers_handle_press(seat->server, tool->focused_surface);
			wlr_tablet_v2_tablet_tool_notify_down(tool);
		} else {
			wlr_tablet_v2_tablet_tool_notify_up(tool);
		}
		return;
	}
	if (!maps_to_panel(seat, &event->tablet->base))
		return;
	if (down)
		pointer_pressed(seat);
	wlr_seat_pointer_notify_button(seat->seat, event->time_msec, BTN_LEFT,
		down ? WL_POINTER_BUTTON_STATE_PRESSED : WL_POINTER_BUTTON_STATE_RELEASED);
	wlr_seat_pointer_notify_frame(seat->seat);
}

static void
handle_tablet_button(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, tablet_button);
	struct wlr_tablet_tool_button_event *event = data;
	struct wlr_tablet_v2_tablet_tool *tool = tablet_tool(seat, event->tool);

	/* the pen's side buttons mean nothing to a pointer */
	if (tool && tool->focused_surface)
		wlr_tablet_v2_tablet_tool_notify_button(tool, event->button,
			event->state == WLR_BUTTON_PRESSED
				? ZWP_TABLET_PAD_V2_BUTTON_STATE_PRESSED
				: ZWP_TABLET_PAD_V2_BUTTON_STATE_RELEASED);
}

/* Requests from clients */

static void
handle_request_set_cursor(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, request_set_cursor);
	struct wlr_seat_pointer_request_set_cursor_event *event = data;

	if (seat->xcursor_manager && event->seat_client == seat->seat->pointer_state.focused_client)
		wlr_cursor_set_surface(
			seat->cursor, event->surface, event->hotspot_x, event->hotspot_y);
}

static void
handle_request_set_selection(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, request_set_selection);
	struct wlr_seat_request_set_selection_event *event = data;

	wlr_seat_set_selection(seat->seat, event->source, event->serial);
}

static void
handle_request_set_primary_selection(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, request_set_primary_selection);
	struct wlr_seat_request_set_primary_selection_event *event = data;

	wlr_seat_set_primary_selection(seat->seat, event->source, event->serial);
}

/* Surfaces: their commits may change what is under the pointer */

static void
handle_watched_commit(struct wl_listener *listener, void *data)
{
	struct vl_watched_surface *watched = wl_container_of(listener, watched, commit);
	(void)data;

	/*
	 * The scene places the surface from this same signal, through a
	 * listener added when its node was made, after this one. Listening
	 * last from now on, the next commits find the scene placed and are
	 * told at once, before the client's next request (a roundtrip's sync)
	 * is answered; this one is looked at again once the loop is idle.
	 */
	wl_list_remove(&watched->commit.link);
	wl_signal_add(&watched->surface->events.commit, &watched->commit);
	update_standing_pointer(watched->seat);
	vl_seat_update_pointer_later(watched->seat);
}

/*
 * A surface under a finger goes: its client hears the touch end, as it
 * would otherwise wait for an up that never comes. Runs before wlroots
 * forgets the touch point, whose listener came later.
 */
static void
end_touches_on(struct vl_seat *seat, struct wlr_surface *surface)
{
	struct wlr_touch_point *point, *tmp;
	bool ended = false;

	wl_list_for_each_safe (point, tmp, &seat->seat->touch_state.touch_points, link) {
		if (point->surface != surface)
			continue;
		struct vl_touch_origin *origin = touch_origin(seat, point->touch_id, false);
		if (origin)
			origin->used = false;
		wlr_seat_touch_notify_up(seat->seat, now_msec(), point->touch_id);
		ended = true;
	}
	if (ended)
		wlr_seat_touch_notify_frame(seat->seat);
}

static void
handle_watched_destroy(struct wl_listener *listener, void *data)
{
	struct vl_watched_surface *watched = wl_container_of(listener, watched, destroy);
	(void)data;

	end_touches_on(watched->seat, watched->surface);
	vl_seat_update_pointer_later(watched->seat);
	wl_list_remove(&watched->commit.link);
	wl_list_remove(&watched->destroy.link);
	free(watched);
}

static void
handle_new_surface(struct wl_listener *listener, void *data)
{
	struct vl_seat *seat = wl_container_of(listener, seat, new_surface);
	struct wlr_surface *surface = data;
	struct vl_watched_surface *watched = calloc(1, sizeof(*watched));

	if (!watched) {
		wl_resource_post_no_memory(surface->resource);
		return;
	}
	watched->seat = seat;
	watched->surface = surface;
	watched->commit.notify = handle_watched_commit;
	wl_signal_add(&surface->events.commit, &watched->commit);
	watched->destroy.notify = handle_watched_destroy;
	wl_signal_add(&surface->events.destroy, &watched->destroy);
}

/* Devices */

static void
update_capabilities(struct vl_seat *seat)
{
	/*
	 * Always a keyboard: a virtual keyboard (wtype, an on-screen keyboard)
	 * may come and go for each thing it types, and a client that got the
	 * capability only with it would ask for its wl_keyboard while the first
	 * keys are already on their way, and lose them.
	 */
	uint32_t caps = WL_SEAT_CAPABILITY_KEYBOARD;
	struct vl_device *device;

	wl_list_for_each (device, &seat->devices, link) {
		if (device->device->type == WLR_INPUT_DEVICE_TOUCH)
			caps |= WL_SEAT_CAPABILITY_TOUCH;
		else
			caps |= WL_SEAT_CAPABILITY_POINTER;
	}
	wlr_seat_set_capabilities(seat->seat, caps);
}

static void
handle_device_destroy(struct wl_listener *listener, void *data)
{
	struct vl_device *device = wl_container_of(listener, device, destroy);
	(void)data;

	wl_list_remove(&device->destroy.link);
	wl_list_remove(&device->link);
	update_capabilities(device->seat);
	free(device);
}

static void
add_device(struct vl_seat *seat, struct wlr_input_device *wlr_device)
{
	struct vl_device *device = calloc(1, sizeof(*device));

	if (!device)
		return;
	device->seat = seat;
	device->device = wlr_device;
	device->destroy.notify = handle_device_destroy;
	wl_signal_add(&wlr_device->events.destroy, &device->destroy);
	wl_list_insert(&seat->devices, &device->link);
	wlr_cursor_attach_input_device(seat->cursor, wlr_device);
	/* freed by wlroots with the device */
	if (wlr_device->type == WLR_INPUT_DEVICE_TABLET)
		wlr_tablet_from_input_device(wlr_device)->data =
			wlr_tablet_create(seat->server->tablet_manager, seat->seat, wlr_device);
	if (wlr_device->type != WLR_INPUT_DEVICE_POINTER)
		wlr_log(WLR_INFO, "%s is %smapped to the panel (input touch-device)",
			wlr_device->name, maps_to_panel(seat, wlr_device) ? "" : "not ");
}

void
vl_seat_report_touch_device(struct vl_seat *seat)
{
	const char *wanted = seat->server->config.touch_device;
	char present[512] = "";
	struct vl_device *device;
	size_t len = 0;

	if (!wanted)
		return;
	wl_list_for_each (device, &seat->devices, link) {
		const char *name = device->device->name ? device->device->name : "";
		if (device->device->type == WLR_INPUT_DEVICE_POINTER)
			continue;
		if (strcmp(name, wanted) == 0)
			return;
		if (len < sizeof(present)) {
			int n = snprintf(present + len, sizeof(present) - len, "%s\"%s\"",
				len ? ", " : "", name);
			len += n > 0 ? (size_t)n : 0;
		}
	}
	wlr_log(WLR_ERROR,
		"no touchscreen or tablet is named \"%s\" (input touch-device): touch and pen "
		"input reach no application until one comes; there are %s",
		wanted, len ? present : "none");
}

void
vl_seat_handle_new_input(struct wl_listener *listener, void *data)
{
	struct vl_server *server = wl_container_of(listener, server, new_input);

	vl_seat_add_input(server->seat, data);
}

void
vl_seat_add_input(struct vl_seat *seat, struct wlr_input_device *device)
{
	switch (device->type) {
	case WLR_INPUT_DEVICE_KEYBOARD:
		add_keyboard(seat, wlr_keyboard_from_input_device(device), true);
		break;
	case WLR_INPUT_DEVICE_POINTER:
	case WLR_INPUT_DEVICE_TOUCH:
	case WLR_INPUT_DEVICE_TABLET:
		add_device(seat, device);
		break;
	default:
		break;
	}
	update_capabilities(seat);
}

void
vl_seat_handle_new_virtual_keyboard(struct wl_listener *listener, void *data)
{
	struct vl_server *server = wl_container_of(listener, server, new_virtual_keyboard);
	struct wlr_virtual_keyboard_v1 *keyboard = data;

	add_keyboard(server->seat, &keyboard->keyboard, false);
	update_capabilities(server->seat);
}

/* A pointer a client drives (automation, on-screen pointers): a pointer device like any. */
void
vl_seat_handle_new_virtual_pointer(struct wl_listener *listener, void *data)
{
	struct vl_server *server = wl_container_of(listener, server, new_virtual_pointer);
	struct wlr_virtual_pointer_v1_new_pointer_event *event = data;

	add_device(server->seat, &event->new_pointer->pointer.base);
	update_capabilities(server->seat);
}

void
vl_seat_configure(struct vl_seat *seat)
{
	struct vl_keyboard *keyboard;

	if (seat->server->config.show_cursor && !seat->xcursor_manager) {
		seat->xcursor_manager = wlr_xcursor_manager_create(NULL, 24);
		if (seat->xcursor_manager)
			wlr_cursor_set_xcursor(seat->cursor, seat->xcursor_manager, "default");
	} else if (!seat->server->config.show_cursor && seat->xcursor_manager) {
		wlr_cursor_unset_image(seat->cursor);
		wlr_xcursor_manager_destroy(seat->xcursor_manager);
		seat->xcursor_manager = NULL;
	}
	wl_list_for_each (keyboard, &seat->keyboards, link)
		if (keyboard->uses_config_keymap)
			apply_keymap(seat, keyboard->keyboard);
}

#define LISTEN(signal, listener, handler)            \
	do {                                         \
		(listener)->notify = (handler);      \
		wl_signal_add((signal), (listener)); \
	} while (0)

struct vl_seat *
vl_seat_create(struct vl_server *server)
{
	struct vl_seat *seat = calloc(1, sizeof(*seat));

	if (!seat)
		return NULL;
	seat->server = server;
	wl_list_init(&seat->keyboards);
	wl_list_init(&seat->devices);
	seat->seat = wlr_seat_create(server->display, "seat0");
	seat->cursor = wlr_cursor_create();
	if (!seat->seat || !seat->cursor) {
		if (seat->cursor)
			wlr_cursor_destroy(seat->cursor);
		free(seat);
		return NULL;
	}
	wlr_cursor_attach_output_layout(seat->cursor, server->output_layout);

	struct wlr_cursor *cursor = seat->cursor;
	LISTEN(&cursor->events.motion, &seat->motion, handle_motion);
	LISTEN(&cursor->events.motion_absolute, &seat->motion_absolute, handle_motion_absolute);
	LISTEN(&cursor->events.button, &seat->button, handle_button);
	LISTEN(&cursor->events.axis, &seat->axis, handle_axis);
	LISTEN(&cursor->events.frame, &seat->frame, handle_frame);
	LISTEN(&cursor->events.touch_down, &seat->touch_down, handle_touch_down);
	LISTEN(&cursor->events.touch_up, &seat->touch_up, handle_touch_up);
	LISTEN(&cursor->events.touch_motion, &seat->touch_motion, handle_touch_motion);
	LISTEN(&cursor->events.touch_frame, &seat->touch_frame, handle_touch_frame);
	LISTEN(&cursor->events.touch_cancel, &seat->touch_cancel, handle_touch_cancel);
	LISTEN(&cursor->events.tablet_tool_proximity, &seat->tablet_proximity,
		handle_tablet_proximity);
	LISTEN(&cursor->events.tablet_tool_axis, &seat->tablet_axis, handle_tablet_axis);
	LISTEN(&cursor->events.tablet_tool_tip, &seat->tablet_tip, handle_tablet_tip);
	LISTEN(&cursor->events.tablet_tool_button, &seat->tablet_button, handle_tablet_button);
	LISTEN(&seat->seat->events.request_set_cursor, &seat->request_set_cursor,
		handle_request_set_cursor);
	LISTEN(&seat->seat->events.request_set_selection, &seat->request_set_selection,
		handle_request_set_selection);
	LISTEN(&seat->seat->events.request_set_primary_selection,
		&seat->request_set_primary_selection, handle_request_set_primary_selection);
	LISTEN(&server->compositor->events.new_surface, &seat->new_surface, handle_new_surface);
	update_capabilities(seat);
	vl_seat_configure(seat);
	return seat;
}

void
vl_seat_destroy(struct vl_seat *seat)
{
	struct wl_listener *listeners[] = {
		&seat->motion,
		&seat->motion_absolute,
		&seat->button,
		&seat->axis,
		&seat->frame,
		&seat->touch_down,
		&seat->touch_up,
		&seat->touch_motion,
		&seat->touch_frame,
		&seat->touch_cancel,
		&seat->tablet_proximity,
		&seat->tablet_axis,
		&seat->tablet_tip,
		&seat->tablet_button,
		&seat->request_set_cursor,
		&seat->request_set_selection,
		&seat->request_set_primary_selection,
		&seat->new_surface,
	};

	for (size_t i = 0; i < sizeof(listeners) / sizeof(listeners[0]); i++)
		wl_list_remove(&listeners[i]->link);
	if (seat->pointer_update)
		wl_event_source_remove(seat->pointer_update);
	if (seat->xcursor_manager)
		wlr_xcursor_manager_destroy(seat->xcursor_manager);
	wlr_cursor_destroy(seat->cursor);
	free(seat);
}
