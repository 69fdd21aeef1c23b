// SPDX-License-Identifier: MIT
/*
 * The seat: keyboard focus, the input devices that come and go and what
 * they let clients bind, clients' requests (the cursor image, selections),
 * and where a pointer, touch or pen points. A touchscreen or pen is
 * laminated to the panel, so its coordinates are the panel's native ones
 * and follow the output's rotation into the rotated layout. The cursor
 * image is drawn only when the config asks for it. Each kind of input has
 * its own file: keyboard.c, pointer.c, touch.c and tablet.c.
 */
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
#include <wlr/types/wlr_virtual_keyboard_v1.h>
#include <wlr/types/wlr_virtual_pointer_v1.h>
#include <wlr/types/wlr_xcursor_manager.h>
#include <wlr/util/log.h>

#include "preview.h"
#include "seat.h"
#include "server.h"

/* A surface's commits may change what is under the pointer. */
struct vl_watched_surface {
	struct vl_seat *seat;
	struct wlr_surface *surface;
	struct wl_listener commit, destroy;
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
void
vl_seat_notify_activity(struct vl_seat *seat, enum vl_epd_input kind)
{
	wlr_idle_notifier_v1_notify_activity(seat->server->idle_notifier, seat->seat);
	vl_epd_backend_notify_input(seat->server->epd_backend, kind);
}

uint32_t
vl_seat_now_msec(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint32_t)(now.tv_sec * 1000 + now.tv_nsec / 1000000);
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

struct wlr_surface *
vl_seat_surface_at(struct vl_seat *seat, double lx, double ly, double *sx, double *sy)
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
 * A point given in the panel's native orientation, as fractions of its
 * size, to layout coordinates: the inverse of how the rotated output is
 * drawn into the panel.
 */
bool
vl_seat_panel_to_layout(struct vl_seat *seat, double x, double y, double *lx, double *ly)
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
bool
vl_seat_device_to_layout(struct vl_seat *seat, struct wlr_input_device *device, double x, double y,
	double *lx, double *ly, bool *on_panel)
{
	*on_panel = true;
	return vl_preview_to_layout(seat->server, device, x, y, lx, ly, on_panel) ||
	       vl_seat_panel_to_layout(seat, x, y, lx, ly);
}

/* Whether the config maps this touchscreen or pen to the panel. */
bool
vl_seat_maps_to_panel(struct vl_seat *seat, struct wlr_input_device *device)
{
	const char *wanted = seat->server->config.touch_device;

	return !wanted || (device->name && strcmp(device->name, wanted) == 0);
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
	vl_seat_update_standing_pointer(watched->seat);
	vl_seat_update_pointer_later(watched->seat);
}

static void
handle_watched_destroy(struct wl_listener *listener, void *data)
{
	struct vl_watched_surface *watched = wl_container_of(listener, watched, destroy);
	(void)data;

	vl_seat_end_touches_on(watched->seat, watched->surface);
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
			wlr_device->name, vl_seat_maps_to_panel(seat, wlr_device) ? "" : "not ");
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
		vl_seat_add_keyboard(seat, wlr_keyboard_from_input_device(device), true);
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

	vl_seat_add_keyboard(server->seat, &keyboard->keyboard, false);
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
	if (seat->server->config.show_cursor && !seat->xcursor_manager) {
		seat->xcursor_manager = wlr_xcursor_manager_create(NULL, 24);
		if (seat->xcursor_manager)
			wlr_cursor_set_xcursor(seat->cursor, seat->xcursor_manager, "default");
	} else if (!seat->server->config.show_cursor && seat->xcursor_manager) {
		wlr_cursor_unset_image(seat->cursor);
		wlr_xcursor_manager_destroy(seat->xcursor_manager);
		seat->xcursor_manager = NULL;
	}
	vl_seat_apply_keymaps(seat);
}

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

	vl_seat_listen_pointer(seat);
	vl_seat_listen_touch(seat);
	vl_seat_listen_tablet(seat);
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
