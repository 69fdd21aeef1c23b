// SPDX-License-Identifier: MIT
#include "epaper-client.h"

#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <linux/input-event-codes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <wayland-client.h>

#include "tablet-v2-client-protocol.h"
#include "xdg-shell-client-protocol.h"

/* Two buffers suffice while the compositor releases one per frame; more only when it holds on. */
#define MAX_BUFFERS 4
/* A window the compositor leaves the size of to the client. */
#define DEFAULT_WIDTH  800
#define DEFAULT_HEIGHT 600

struct ep_buffer {
	struct wl_buffer *wl_buffer;
	void *data;
	size_t size;
	int32_t width, height;
	cairo_surface_t *surface;
	bool busy;
	/* What frames drew in other buffers since this one was last drawn. */
	cairo_region_t *stale;
};

struct ep_timer {
	struct ep_client *client;
	int fd;
	ep_timer_func func;
	void *data;
	struct ep_timer *next;
};

struct ep_feedback_request {
	struct ep_client *client;
	struct xx_epaper_refresh_feedback_v1 *feedback;
	ep_feedback_func func;
	void *data;
	struct timespec committed; /* zero until its frame is committed */
	struct wl_list link;
};

struct ep_client {
	const char *program;
	const struct ep_handlers *handlers;
	void *data;
	bool verbose;

	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wl_seat *seat;
	struct xx_epaper_refresh_manager_v1 *refresh_manager;
	struct zwp_tablet_manager_v2 *tablet_manager;
	struct zwp_tablet_seat_v2 *tablet_seat;

	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	struct xx_epaper_surface_refresh_v1 *refresh;
	int32_t width, height;                 /* the size frames are drawn at */
	int32_t pending_width, pending_height; /* as the last configure asked */
	bool configured;

	struct ep_buffer buffers[MAX_BUFFERS];
	struct ep_buffer *front; /* the last buffer committed */
	struct ep_buffer *drawing;
	cairo_region_t *damage;
	bool full_refresh;
	bool redraw_wanted, redraw_all, frame_pending;
	struct wl_list feedback; /* ep_feedback_request.link */

	struct wl_keyboard *keyboard;
	struct xkb_context *xkb_context;
	struct xkb_keymap *keymap;
	struct xkb_state *xkb_state;
	struct wl_pointer *pointer;
	double pointer_x, pointer_y;
	bool button_down;
	struct wl_touch *touch;
	struct wl_list pens; /* ep_pen.link */
	int32_t touch_id;
	bool touching;
	double touch_x, touch_y;

	struct ep_timer *timers;
	bool quit;
	int status;
};

static void fail(struct ep_client *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void
fail(struct ep_client *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", c->program);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void
ep_client_set_verbose(struct ep_client *c, bool verbose)
{
	c->verbose = verbose;
}

void
ep_client_log(struct ep_client *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->verbose)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	/* a test or a benchmark reads these lines through a pipe as they come */
	fflush(stdout);
}

long
ep_parse_count(const char *program, const char *option, const char *value, long max)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(value, &end, 10);
	if (errno || end == value || *end || n < 1 || n > max) {
		fprintf(stderr, "%s: %s takes a whole number from 1 to %ld, not \"%s\"\n", program,
			option, max, value);
		exit(2);
	}
	return n;
}

/* ---- contacts: touch, pointer and pen turned into one ---- */

static void
contact(struct ep_client *c, enum ep_contact_phase phase, double x, double y)
{
	if (c->handlers->contact)
		c->handlers->contact(c, phase, x, y, c->data);
}

/* ---- keyboard ---- */

static void
handle_keymap(void *data, struct wl_keyboard *keyboard, uint32_t format, int32_t fd, uint32_t size)
{
	struct ep_client *c = data;

	if (format != WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1) {
		close(fd);
		return;
	}
	char *text = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (text == MAP_FAILED)
		return;
	struct xkb_keymap *keymap = xkb_keymap_new_from_string(
		c->xkb_context, text, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS);
	munmap(text, size);
	if (!keymap)
		return;
	xkb_state_unref(c->xkb_state);
	xkb_keymap_unref(c->keymap);
	c->keymap = keymap;
	c->xkb_state = xkb_state_new(keymap);
}

static void
handle_keyboard_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial,
	struct wl_surface *surface, struct wl_array *keys)
{
}

static void
handle_keyboard_leave(
	void *data, struct wl_keyboard *keyboard, uint32_t serial, struct wl_surface *surface)
{
}

static void
handle_key(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t time, uint32_t key,
	uint32_t state)
{
	struct ep_client *c = data;

	if (state != WL_KEYBOARD_KEY_STATE_PRESSED || !c->xkb_state || !c->handlers->key)
		return;
	/* xkb numbers keys from evdev's plus 8 */
	c->handlers->key(c, xkb_state_key_get_one_sym(c->xkb_state, key + 8), c->data);
}

static void
handle_modifiers(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t depressed,
	uint32_t latched, uint32_t locked, uint32_t group)
{
	struct ep_client *c = data;

	if (c->xkb_state)
		xkb_state_update_mask(c->xkb_state, depressed, latched, locked, 0, 0, group);
}

static void
handle_repeat_info(void *data, struct wl_keyboard *keyboard, int32_t rate, int32_t delay)
{
}

static const struct wl_keyboard_listener keyboard_listener = {
	.keymap = handle_keymap,
	.enter = handle_keyboard_enter,
	.leave = handle_keyboard_leave,
	.key = handle_key,
	.modifiers = handle_modifiers,
	.repeat_info = handle_repeat_info,
};

/* ---- pointer: the left button is a contact ---- */

static void
handle_pointer_enter(void *data, struct wl_pointer *pointer, uint32_t serial,
	struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y)
{
	struct ep_client *c = data;

	c->pointer_x = wl_fixed_to_double(x);
	c->pointer_y = wl_fixed_to_double(y);
}

static void
handle_pointer_leave(
	void *data, struct wl_pointer *pointer, uint32_t serial, struct wl_surface *surface)
{
	struct ep_client *c = data;

	if (c->button_down) {
		c->button_down = false;
		contact(c, EP_CONTACT_UP, c->pointer_x, c->pointer_y);
	}
}

static void
handle_pointer_motion(
	void *data, struct wl_pointer *pointer, uint32_t time, wl_fixed_t x, wl_fixed_t y)
{
	struct ep_client *c = data;

	c->pointer_x = wl_fixed_to_double(x);
	c->pointer_y = wl_fixed_to_double(y);
	if (c->button_down)
		contact(c, EP_CONTACT_MOTION, c->pointer_x, c->pointer_y);
}

static void
handle_pointer_button(void *data, struct wl_pointer *pointer, uint32_t serial, uint32_t time,
	uint32_t button, uint32_t state)
{
	struct ep_client *c = data;
	bool down = state == WL_POINTER_BUTTON_STATE_PRESSED;

	if (button != BTN_LEFT || down == c->button_down)
		return;
	c->button_down = down;
	contact(c, down ? EP_CONTACT_DOWN : EP_CONTACT_UP, c->pointer_x, c->pointer_y);
}

static void
handle_pointer_axis(
	void *data, struct wl_pointer *pointer, uint32_t time, uint32_t axis, wl_fixed_t value)
{
}

static void
handle_pointer_frame(void *data, struct wl_pointer *pointer)
{
}

static void
handle_pointer_axis_source(void *data, struct wl_pointer *pointer, uint32_t source)
{
}

static void
handle_pointer_axis_stop(void *data, struct wl_pointer *pointer, uint32_t time, uint32_t axis)
{
}

static void
handle_pointer_axis_discrete(
	void *data, struct wl_pointer *pointer, uint32_t axis, int32_t discrete)
{
}

/* Every event of wl_seat version 5, which the client binds at most. */
static const struct wl_pointer_listener pointer_listener = {
	.enter = handle_pointer_enter,
	.leave = handle_pointer_leave,
	.motion = handle_pointer_motion,
	.button = handle_pointer_button,
	.axis = handle_pointer_axis,
	.frame = handle_pointer_frame,
	.axis_source = handle_pointer_axis_source,
	.axis_stop = handle_pointer_axis_stop,
	.axis_discrete = handle_pointer_axis_discrete,
};

/* ---- touch: the first finger is a contact ---- */

static void
handle_touch_down(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time,
	struct wl_surface *surface, int32_t id, wl_fixed_t x, wl_fixed_t y)
{
	struct ep_client *c = data;

	if (c->touching)
		return;
	c->touching = true;
	c->touch_id = id;
	c->touch_x = wl_fixed_to_double(x);
	c->touch_y = wl_fixed_to_double(y);
	contact(c, EP_CONTACT_DOWN, c->touch_x, c->touch_y);
}

static void
handle_touch_up(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time, int32_t id)
{
	struct ep_client *c = data;

	if (!c->touching || id != c->touch_id)
		return;
	c->touching = false;
	contact(c, EP_CONTACT_UP, c->touch_x, c->touch_y);
}

static void
handle_touch_motion(
	void *data, struct wl_touch *touch, uint32_t time, int32_t id, wl_fixed_t x, wl_fixed_t y)
{
	struct ep_client *c = data;

	if (!c->touching || id != c->touch_id)
		return;
	c->touch_x = wl_fixed_to_double(x);
	c->touch_y = wl_fixed_to_double(y);
	contact(c, EP_CONTACT_MOTION, c->touch_x, c->touch_y);
}

static void
handle_touch_frame(void *data, struct wl_touch *touch)
{
}

static void
handle_touch_cancel(void *data, struct wl_touch *touch)
{
	handle_touch_up(data, touch, 0, 0, ((struct ep_client *)data)->touch_id);
}

static const struct wl_touch_listener touch_listener = {
	.down = handle_touch_down,
	.up = handle_touch_up,
	.motion = handle_touch_motion,
	.frame = handle_touch_frame,
	.cancel = handle_touch_cancel,
};

/*
 * ---- tablet pens: the tip is a contact ----
 *
 * Events are taken as they come, not per frame: a compositor that sends a
 * frame when its event loop goes idle puts a whole stroke in one frame.
 */

struct ep_pen {
	struct ep_client *client;
	struct zwp_tablet_tool_v2 *tool;
	double x, y;
	bool down;
	struct wl_list link; /* ep_client.pens */
};

static void
pen_destroy(struct ep_pen *pen)
{
	zwp_tablet_tool_v2_destroy(pen->tool);
	wl_list_remove(&pen->link);
	free(pen);
}

static void
handle_tool_type(void *data, struct zwp_tablet_tool_v2 *tool, uint32_t type)
{
}

static void
handle_tool_serial(void *data, struct zwp_tablet_tool_v2 *tool, uint32_t hi, uint32_t lo)
{
}

static void
handle_tool_capability(void *data, struct zwp_tablet_tool_v2 *tool, uint32_t capability)
{
}

static void
handle_tool_done(void *data, struct zwp_tablet_tool_v2 *tool)
{
}

static void
handle_tool_removed(void *data, struct zwp_tablet_tool_v2 *tool)
{
	pen_destroy(data);
}

static void
handle_tool_proximity_in(void *data, struct zwp_tablet_tool_v2 *tool, uint32_t serial,
	struct zwp_tablet_v2 *tablet, struct wl_surface *surface)
{
}

static void
handle_tool_proximity_out(void *data, struct zwp_tablet_tool_v2 *tool)
{
	struct ep_pen *pen = data;

	/* a pen that leaves while touching has lifted */
	if (pen->down) {
		pen->down = false;
		contact(pen->client, EP_CONTACT_UP, pen->x, pen->y);
	}
}

static void
handle_tool_down(void *data, struct zwp_tablet_tool_v2 *tool, uint32_t serial)
{
	struct ep_pen *pen = data;

	if (pen->down)
		return;
	pen->down = true;
	contact(pen->client, EP_CONTACT_DOWN, pen->x, pen->y);
}

static void
handle_tool_up(void *data, struct zwp_tablet_tool_v2 *tool)
{
	struct ep_pen *pen = data;

	if (!pen->down)
		return;
	pen->down = false;
	contact(pen->client, EP_CONTACT_UP, pen->x, pen->y);
}

static void
handle_tool_motion(void *data, struct zwp_tablet_tool_v2 *tool, wl_fixed_t x, wl_fixed_t y)
{
	struct ep_pen *pen = data;

	pen->x = wl_fixed_to_double(x);
	pen->y = wl_fixed_to_double(y);
	if (pen->down)
		contact(pen->client, EP_CONTACT_MOTION, pen->x, pen->y);
}

static void
handle_tool_pressure(void *data, struct zwp_tablet_tool_v2 *tool, uint32_t pressure)
{
}

static void
handle_tool_distance(void *data, struct zwp_tablet_tool_v2 *tool, uint32_t distance)
{
}

static void
handle_tool_tilt(void *data, struct zwp_tablet_tool_v2 *tool, wl_fixed_t x, wl_fixed_t y)
{
}

static void
handle_tool_rotation(void *data, struct zwp_tablet_tool_v2 *tool, wl_fixed_t degrees)
{
}

static void
handle_tool_slider(void *data, struct zwp_tablet_tool_v2 *tool, int32_t position)
{
}

static void
handle_tool_wheel(void *data, struct zwp_tablet_tool_v2 *tool, wl_fixed_t degrees, int32_t clicks)
{
}

static void
handle_tool_button(void *data, struct zwp_tablet_tool_v2 *tool, uint32_t serial, uint32_t button,
	uint32_t state)
{
}

static void
handle_tool_frame(void *data, struct zwp_tablet_tool_v2 *tool, uint32_t time)
{
}

static const struct zwp_tablet_tool_v2_listener tool_listener = {
	.type = handle_tool_type,
	.hardware_serial = handle_tool_serial,
	.hardware_id_wacom = handle_tool_serial,
	.capability = handle_tool_capability,
	.done = handle_tool_done,
	.removed = handle_tool_removed,
	.proximity_in = handle_tool_proximity_in,
	.proximity_out = handle_tool_proximity_out,
	.down = handle_tool_down,
	.up = handle_tool_up,
	.motion = handle_tool_motion,
	.pressure = handle_tool_pressure,
	.distance = handle_tool_distance,
	.tilt = handle_tool_tilt,
	.rotation = handle_tool_rotation,
	.slider = handle_tool_slider,
	.wheel = handle_tool_wheel,
	.button = handle_tool_button,
	.frame = handle_tool_frame,
};

static void
handle_tablet_name(void *data, struct zwp_tablet_v2 *tablet, const char *name)
{
}

static void
handle_tablet_id(void *data, struct zwp_tablet_v2 *tablet, uint32_t vid, uint32_t pid)
{
}

static void
handle_tablet_path(void *data, struct zwp_tablet_v2 *tablet, const char *path)
{
}

static void
handle_tablet_done(void *data, struct zwp_tablet_v2 *tablet)
{
}

static void
handle_tablet_removed(void *data, struct zwp_tablet_v2 *tablet)
{
	zwp_tablet_v2_destroy(tablet);
}

static const struct zwp_tablet_v2_listener tablet_listener = {
	.name = handle_tablet_name,
	.id = handle_tablet_id,
	.path = handle_tablet_path,
	.done = handle_tablet_done,
	.removed = handle_tablet_removed,
};

static void
handle_tablet_added(void *data, struct zwp_tablet_seat_v2 *seat, struct zwp_tablet_v2 *tablet)
{
	zwp_tablet_v2_add_listener(tablet, &tablet_listener, data);
}

static void
handle_tool_added(void *data, struct zwp_tablet_seat_v2 *seat, struct zwp_tablet_tool_v2 *tool)
{
	struct ep_pen *pen = calloc(1, sizeof(*pen));

	if (!pen) {
		zwp_tablet_tool_v2_destroy(tool);
		return;
	}
	pen->client = data;
	pen->tool = tool;
	wl_list_insert(&pen->client->pens, &pen->link);
	zwp_tablet_tool_v2_add_listener(tool, &tool_listener, pen);
}

static void
handle_pad_added(void *data, struct zwp_tablet_seat_v2 *seat, struct zwp_tablet_pad_v2 *pad)
{
	/* the examples have no use for a pad's buttons, rings and strips */
	zwp_tablet_pad_v2_destroy(pad);
}

static const struct zwp_tablet_seat_v2_listener tablet_seat_listener = {
	.tablet_added = handle_tablet_added,
	.tool_added = handle_tool_added,
	.pad_added = handle_pad_added,
};

/* ---- seat ---- */

static void
handle_capabilities(void *data, struct wl_seat *seat, uint32_t caps)
{
	struct ep_client *c = data;
	bool keyboard = caps & WL_SEAT_CAPABILITY_KEYBOARD,
	     pointer = caps & WL_SEAT_CAPABILITY_POINTER, touch = caps & WL_SEAT_CAPABILITY_TOUCH;

	if (keyboard && !c->keyboard) {
		c->keyboard = wl_seat_get_keyboard(seat);
		wl_keyboard_add_listener(c->keyboard, &keyboard_listener, c);
	} else if (!keyboard && c->keyboard) {
		wl_keyboard_release(c->keyboard);
		c->keyboard = NULL;
	}
	if (pointer && !c->pointer) {
		c->pointer = wl_seat_get_pointer(seat);
		wl_pointer_add_listener(c->pointer, &pointer_listener, c);
	} else if (!pointer && c->pointer) {
		wl_pointer_release(c->pointer);
		c->pointer = NULL;
		c->button_down = false;
	}
	if (touch && !c->touch) {
		c->touch = wl_seat_get_touch(seat);
		wl_touch_add_listener(c->touch, &touch_listener, c);
	} else if (!touch && c->touch) {
		wl_touch_release(c->touch);
		c->touch = NULL;
		c->touching = false;
	}
}

static void
handle_seat_name(void *data, struct wl_seat *seat, const char *name)
{
}

static const struct wl_seat_listener seat_listener = {
	.capabilities = handle_capabilities,
	.name = handle_seat_name,
};

/* ---- globals ---- */

static void
handle_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {.ping = handle_ping};

static void
handle_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	struct ep_client *c = data;

	if (!strcmp(interface, wl_compositor_interface.name) && version >= 4) {
		c->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (!strcmp(interface, wl_shm_interface.name)) {
		c->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (!strcmp(interface, xdg_wm_base_interface.name)) {
		c->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(c->wm_base, &wm_base_listener, c);
	} else if (!strcmp(interface, wl_seat_interface.name) && !c->seat) {
		c->seat = wl_registry_bind(
			registry, name, &wl_seat_interface, version < 5 ? version : 5);
		wl_seat_add_listener(c->seat, &seat_listener, c);
	} else if (!strcmp(interface, xx_epaper_refresh_manager_v1_interface.name)) {
		c->refresh_manager = wl_registry_bind(
			registry, name, &xx_epaper_refresh_manager_v1_interface, 1);
	} else if (!strcmp(interface, zwp_tablet_manager_v2_interface.name)) {
		c->tablet_manager =
			wl_registry_bind(registry, name, &zwp_tablet_manager_v2_interface, 1);
	}
}

static void
handle_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = handle_global,
	.global_remove = handle_global_remove,
};

/* ---- window ---- */

static void
handle_xdg_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct ep_client *c = data;
	int32_t width = c->pending_width > 0 ? c->pending_width : DEFAULT_WIDTH;
	int32_t height = c->pending_height > 0 ? c->pending_height : DEFAULT_HEIGHT;

	xdg_surface_ack_configure(xdg_surface, serial);
	if (!c->configured || width != c->width || height != c->height) {
		/* buffers of the old size are dropped as they come back */
		c->width = width;
		c->height = height;
		c->redraw_all = true;
		c->redraw_wanted = true;
	}
	c->configured = true;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = handle_xdg_configure,
};

static void
handle_toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width, int32_t height,
	struct wl_array *states)
{
	struct ep_client *c = data;

	c->pending_width = width;
	c->pending_height = height;
}

static void
handle_toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
	ep_client_quit(data, 0);
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = handle_toplevel_configure,
	.close = handle_toplevel_close,
};

struct ep_client *
ep_client_create(
	const char *program, const char *app_id, const struct ep_handlers *handlers, void *data)
{
	struct ep_client *c = calloc(1, sizeof(*c));

	if (!c) {
		fprintf(stderr, "%s: out of memory\n", program);
		exit(1);
	}
	c->program = program;
	c->handlers = handlers;
	c->data = data;
	wl_list_init(&c->feedback);
	wl_list_init(&c->pens);
	c->damage = cairo_region_create();
	c->xkb_context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	if (!c->xkb_context)
		fail(c, "cannot create an xkb context");
	c->display = wl_display_connect(NULL);
	if (!c->display)
		fail(c, "cannot connect to a Wayland compositor (WAYLAND_DISPLAY=%s): %s",
			getenv("WAYLAND_DISPLAY") ? getenv("WAYLAND_DISPLAY") : "unset",
			strerror(errno));
	c->registry = wl_display_get_registry(c->display);
	wl_registry_add_listener(c->registry, &registry_listener, c);
	if (wl_display_roundtrip(c->display) < 0)
		fail(c, "lost the connection to the compositor");
	if (!c->refresh_manager)
		fail(c,
			"the compositor does not support epaper-refresh-v1 (no "
			"xx_epaper_refresh_manager_v1): run %s under vellum, on an e-paper panel",
			program);
	if (!c->compositor || !c->shm || !c->wm_base)
		fail(c, "the compositor lacks %s",
			!c->compositor ? "wl_compositor version 4"
			: !c->shm      ? "wl_shm"
				       : "xdg_wm_base");
	if (c->tablet_manager && c->seat) {
		c->tablet_seat = zwp_tablet_manager_v2_get_tablet_seat(c->tablet_manager, c->seat);
		zwp_tablet_seat_v2_add_listener(c->tablet_seat, &tablet_seat_listener, c);
	}

	c->surface = wl_compositor_create_surface(c->compositor);
	c->refresh =
		xx_epaper_refresh_manager_v1_get_surface_refresh(c->refresh_manager, c->surface);
	c->xdg_surface = xdg_wm_base_get_xdg_surface(c->wm_base, c->surface);
	xdg_surface_add_listener(c->xdg_surface, &xdg_surface_listener, c);
	c->toplevel = xdg_surface_get_toplevel(c->xdg_surface);
	xdg_toplevel_add_listener(c->toplevel, &toplevel_listener, c);
	xdg_toplevel_set_app_id(c->toplevel, app_id);
	xdg_toplevel_set_title(c->toplevel, app_id);
	xdg_toplevel_set_fullscreen(c->toplevel, NULL);
	wl_surface_commit(c->surface);
	while (!c->configured && !c->quit)
		if (wl_display_dispatch(c->display) < 0)
			fail(c, "lost the connection to the compositor");
	return c;
}

int32_t
ep_client_width(const struct ep_client *c)
{
	return c->width;
}

int32_t
ep_client_height(const struct ep_client *c)
{
	return c->height;
}

void
ep_client_set_mode(struct ep_client *c, enum xx_epaper_surface_refresh_v1_mode mode)
{
	xx_epaper_surface_refresh_v1_set_mode(c->refresh, mode);
}

void
ep_client_redraw(struct ep_client *c)
{
	c->redraw_wanted = true;
}

void
ep_client_quit(struct ep_client *c, int status)
{
	if (!c->quit)
		c->status = status;
	c->quit = true;
}

/* ---- buffers ---- */

static void
buffer_free(struct ep_buffer *b)
{
	if (!b->wl_buffer)
		return;
	cairo_surface_destroy(b->surface);
	cairo_region_destroy(b->stale);
	munmap(b->data, b->size);
	wl_buffer_destroy(b->wl_buffer);
	memset(b, 0, sizeof(*b));
}

static void
handle_buffer_release(void *data, struct wl_buffer *wl_buffer)
{
	struct ep_buffer *b = data;

	b->busy = false;
}

static const struct wl_buffer_listener buffer_listener = {.release = handle_buffer_release};

static void
buffer_alloc(struct ep_client *c, struct ep_buffer *b)
{
	int32_t stride = cairo_format_stride_for_width(CAIRO_FORMAT_RGB24, c->width);
	size_t size = (size_t)stride * c->height;
	int fd = memfd_create("epaper-client", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
		fail(c, "cannot allocate a %dx%d buffer: %s", c->width, c->height, strerror(errno));
	b->data = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (b->data == MAP_FAILED)
		fail(c, "cannot map a %dx%d buffer: %s", c->width, c->height, strerror(errno));
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, (int32_t)size);
	b->wl_buffer = wl_shm_pool_create_buffer(
		pool, 0, c->width, c->height, stride, WL_SHM_FORMAT_XRGB8888);
	wl_buffer_add_listener(b->wl_buffer, &buffer_listener, b);
	wl_shm_pool_destroy(pool);
	close(fd);
	b->size = size;
	b->width = c->width;
	b->height = c->height;
	b->surface = cairo_image_surface_create_for_data(
		b->data, CAIRO_FORMAT_RGB24, c->width, c->height, stride);
	/* everything is stale: the frame starts from a copy of the last one */
	cairo_rectangle_int_t all = {0, 0, c->width, c->height};
	b->stale = cairo_region_create_rectangle(&all);
}

/* A buffer of the window's size that the compositor does not hold. */
static struct ep_buffer *
buffer_get(struct ep_client *c)
{
	for (;;) {
		struct ep_buffer *free_slot = NULL;

		for (int i = 0; i < MAX_BUFFERS; i++) {
			struct ep_buffer *b = &c->buffers[i];

			if (b->wl_buffer && !b->busy &&
				(b->width != c->width || b->height != c->height)) {
				if (c->front == b)
					c->front = NULL;
				buffer_free(b);
			}
			if (b->wl_buffer && !b->busy)
				return b;
			if (!b->wl_buffer && !free_slot)
				free_slot = b;
		}
		if (free_slot) {
			buffer_alloc(c, free_slot);
			return free_slot;
		}
		if (wl_display_dispatch(c->display) < 0)
			fail(c, "lost the connection to the compositor");
	}
}

/* Brings b up to the last frame: copies what it missed from the front buffer. */
static void
buffer_catch_up(struct ep_client *c, struct ep_buffer *b)
{
	if (b == c->front || cairo_region_is_empty(b->stale))
		return;
	cairo_t *cr = cairo_create(b->surface);
	if (c->front && c->front->width == b->width && c->front->height == b->height)
		cairo_set_source_surface(cr, c->front->surface, 0, 0);
	else
		cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
	for (int i = 0; i < cairo_region_num_rectangles(b->stale); i++) {
		cairo_rectangle_int_t r;

		cairo_region_get_rectangle(b->stale, i, &r);
		cairo_rectangle(cr, r.x, r.y, r.width, r.height);
	}
	cairo_fill(cr);
	cairo_destroy(cr);
	cairo_region_subtract(b->stale, b->stale);
}

/* ---- frames ---- */

cairo_t *
ep_frame_begin(struct ep_client *c)
{
	struct ep_buffer *b = buffer_get(c);

	buffer_catch_up(c, b);
	c->drawing = b;
	cairo_region_subtract(c->damage, c->damage);
	c->full_refresh = false;
	return cairo_create(b->surface);
}

void
ep_frame_damage(struct ep_client *c, int32_t x, int32_t y, int32_t width, int32_t height)
{
	cairo_rectangle_int_t r = {x, y, width, height};

	cairo_region_union_rectangle(c->damage, &r);
}

void
ep_frame_full_refresh(struct ep_client *c)
{
	c->full_refresh = true;
}

static void
handle_refreshed(void *data, struct xx_epaper_refresh_feedback_v1 *feedback, uint32_t tv_sec_hi,
	uint32_t tv_sec_lo, uint32_t tv_nsec, const char *waveform, uint32_t flags)
{
	struct ep_feedback_request *request = data;
	struct ep_feedback result = {
		.shown = true,
		.when = {(time_t)(((uint64_t)tv_sec_hi << 32) | tv_sec_lo), (long)tv_nsec},
		.committed = request->committed,
		.flashed = flags & XX_EPAPER_REFRESH_FEEDBACK_V1_FLAGS_FLASHED,
	};

	snprintf(result.waveform, sizeof(result.waveform), "%s", waveform ? waveform : "");
	wl_list_remove(&request->link);
	xx_epaper_refresh_feedback_v1_destroy(feedback);
	request->func(request->client, &result, request->data);
	free(request);
}

static void
handle_discarded(void *data, struct xx_epaper_refresh_feedback_v1 *feedback)
{
	struct ep_feedback_request *request = data;
	struct ep_feedback result = {.shown = false};

	wl_list_remove(&request->link);
	xx_epaper_refresh_feedback_v1_destroy(feedback);
	request->func(request->client, &result, request->data);
	free(request);
}

static const struct xx_epaper_refresh_feedback_v1_listener feedback_listener = {
	.refreshed = handle_refreshed,
	.discarded = handle_discarded,
};

void
ep_frame_feedback(struct ep_client *c, ep_feedback_func func, void *data)
{
	struct ep_feedback_request *request = calloc(1, sizeof(*request));

	if (!request)
		fail(c, "out of memory");
	request->client = c;
	request->func = func;
	request->data = data;
	request->feedback = xx_epaper_surface_refresh_v1_get_feedback(c->refresh);
	xx_epaper_refresh_feedback_v1_add_listener(request->feedback, &feedback_listener, request);
	wl_list_insert(c->feedback.prev, &request->link);
}

double
ep_feedback_ms(const struct ep_feedback *feedback)
{
	return (double)(feedback->when.tv_sec - feedback->committed.tv_sec) * 1e3 +
	       (double)(feedback->when.tv_nsec - feedback->committed.tv_nsec) / 1e6;
}

static void
handle_frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	struct ep_client *c = data;

	wl_callback_destroy(callback);
	c->frame_pending = false;
}

static const struct wl_callback_listener frame_listener = {.done = handle_frame_done};

void
ep_frame_commit(struct ep_client *c, cairo_t *cr)
{
	struct ep_buffer *b = c->drawing;

	cairo_destroy(cr);
	cairo_surface_flush(b->surface);
	wl_surface_attach(c->surface, b->wl_buffer, 0, 0);
	for (int i = 0; i < cairo_region_num_rectangles(c->damage); i++) {
		cairo_rectangle_int_t r;

		cairo_region_get_rectangle(c->damage, i, &r);
		wl_surface_damage_buffer(c->surface, r.x, r.y, r.width, r.height);
	}
	if (c->full_refresh)
		xx_epaper_surface_refresh_v1_request_full_refresh(c->refresh);
	struct wl_callback *frame = wl_surface_frame(c->surface);
	wl_callback_add_listener(frame, &frame_listener, c);
	c->frame_pending = true;
	wl_surface_commit(c->surface);
	struct timespec now;
	struct ep_feedback_request *request;
	clock_gettime(CLOCK_MONOTONIC, &now);
	wl_list_for_each (request, &c->feedback, link)
		if (!request->committed.tv_sec && !request->committed.tv_nsec)
			request->committed = now;
	b->busy = true;
	for (int i = 0; i < MAX_BUFFERS; i++)
		if (c->buffers[i].wl_buffer && &c->buffers[i] != b)
			cairo_region_union(c->buffers[i].stale, c->damage);
	c->front = b;
	c->drawing = NULL;
}

/* ---- timers ---- */

struct ep_timer *
ep_timer_create(struct ep_client *c, ep_timer_func func, void *data)
{
	struct ep_timer *timer = calloc(1, sizeof(*timer));

	if (!timer)
		fail(c, "out of memory");
	timer->fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (timer->fd < 0)
		fail(c, "timerfd_create: %s", strerror(errno));
	timer->client = c;
	timer->func = func;
	timer->data = data;
	timer->next = c->timers;
	c->timers = timer;
	return timer;
}

void
ep_timer_arm(struct ep_timer *timer, uint64_t delay_ns)
{
	/* a zero it_value would disarm the timer */
	if (delay_ns == 0)
		delay_ns = 1;
	struct itimerspec spec = {
		.it_value = {(time_t)(delay_ns / 1000000000), (long)(delay_ns % 1000000000)},
	};

	timerfd_settime(timer->fd, 0, &spec, NULL);
}

void
ep_timer_disarm(struct ep_timer *timer)
{
	struct itimerspec spec = {0};

	timerfd_settime(timer->fd, 0, &spec, NULL);
}

/* ---- event loop ---- */

#define MAX_TIMERS 8

static void
draw_if_wanted(struct ep_client *c)
{
	if (!c->redraw_wanted || c->frame_pending || !c->configured || c->quit ||
		!c->handlers->draw)
		return;
	bool all = c->redraw_all;

	c->redraw_wanted = false;
	c->redraw_all = false;
	c->handlers->draw(c, all, c->data);
}

int
ep_client_run(struct ep_client *c)
{
	while (!c->quit) {
		struct pollfd fds[1 + MAX_TIMERS] = {{.fd = wl_display_get_fd(c->display)}};
		struct ep_timer *timers[MAX_TIMERS];
		nfds_t n = 1;

		draw_if_wanted(c);
		if (c->quit)
			break;
		for (struct ep_timer *t = c->timers; t && n < 1 + MAX_TIMERS; t = t->next) {
			timers[n - 1] = t;
			fds[n++] = (struct pollfd){.fd = t->fd, .events = POLLIN};
		}
		while (wl_display_prepare_read(c->display) != 0)
			wl_display_dispatch_pending(c->display);
		fds[0].events = POLLIN;
		if (wl_display_flush(c->display) < 0 && errno == EAGAIN)
			fds[0].events |= POLLOUT;
		if (poll(fds, n, -1) < 0) {
			wl_display_cancel_read(c->display);
			if (errno == EINTR)
				continue;
			fprintf(stderr, "%s: poll: %s\n", c->program, strerror(errno));
			return 1;
		}
		if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) {
			if (wl_display_read_events(c->display) < 0 ||
				wl_display_dispatch_pending(c->display) < 0) {
				fprintf(stderr, "%s: lost the connection to the compositor\n",
					c->program);
				return 1;
			}
		} else {
			wl_display_cancel_read(c->display);
		}
		for (nfds_t i = 1; i < n && !c->quit; i++) {
			uint64_t expirations;

			if ((fds[i].revents & POLLIN) &&
				read(fds[i].fd, &expirations, sizeof(expirations)) > 0)
				timers[i - 1]->func(c, timers[i - 1]->data);
		}
	}
	/* what was sent before quitting (a last frame) reaches the compositor */
	wl_display_flush(c->display);
	return c->status;
}

void
ep_client_destroy(struct ep_client *c)
{
	struct ep_feedback_request *request, *tmp;

	wl_list_for_each_safe (request, tmp, &c->feedback, link) {
		struct ep_feedback never = {.shown = false};

		xx_epaper_refresh_feedback_v1_destroy(request->feedback);
		wl_list_remove(&request->link);
		request->func(NULL, &never, request->data);
		free(request);
	}
	while (c->timers) {
		struct ep_timer *t = c->timers;

		c->timers = t->next;
		close(t->fd);
		free(t);
	}
	for (int i = 0; i < MAX_BUFFERS; i++)
		buffer_free(&c->buffers[i]);
	if (c->keyboard)
		wl_keyboard_release(c->keyboard);
	if (c->pointer)
		wl_pointer_release(c->pointer);
	if (c->touch)
		wl_touch_release(c->touch);
	struct ep_pen *pen, *next_pen;
	wl_list_for_each_safe (pen, next_pen, &c->pens, link)
		pen_destroy(pen);
	if (c->tablet_seat)
		zwp_tablet_seat_v2_destroy(c->tablet_seat);
	if (c->tablet_manager)
		zwp_tablet_manager_v2_destroy(c->tablet_manager);
	xx_epaper_surface_refresh_v1_destroy(c->refresh);
	xdg_toplevel_destroy(c->toplevel);
	xdg_surface_destroy(c->xdg_surface);
	wl_surface_destroy(c->surface);
	xx_epaper_refresh_manager_v1_destroy(c->refresh_manager);
	if (c->seat && wl_seat_get_version(c->seat) >= WL_SEAT_RELEASE_SINCE_VERSION)
		wl_seat_release(c->seat);
	else if (c->seat)
		wl_seat_destroy(c->seat);
	xdg_wm_base_destroy(c->wm_base);
	wl_shm_destroy(c->shm);
	wl_compositor_destroy(c->compositor);
	wl_registry_destroy(c->registry);
	wl_display_flush(c->display);
	wl_display_disconnect(c->display);
	xkb_state_unref(c->xkb_state);
	xkb_keymap_unref(c->keymap);
	xkb_context_unref(c->xkb_context);
	cairo_region_destroy(c->damage);
	free(c);
	/* cairo's and fontconfig's caches: a leak checker then finds only real leaks */
	cairo_debug_reset_static_data();
	FcFini();
}
