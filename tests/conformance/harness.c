// SPDX-License-Identifier: MIT
/*
 * The harness of the conformance stand-ins (harness.h): vellum's server in
 * this process, input devices in its seat, clients through socket pairs.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/interfaces/wlr_keyboard.h>
#include <wlr/interfaces/wlr_pointer.h>
#include <wlr/interfaces/wlr_touch.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/util/log.h>

#include "harness.h"
#include "log.h"
#include "server.h"

struct ct_server {
	struct vl_server server;
	struct wlr_pointer pointer;
	struct wlr_touch touch;
	struct wlr_keyboard keyboard;
	bool touching;
};

struct ct_buffer {
	struct wl_buffer *buffer;
	struct ct_buffer *next;
};

static const struct wlr_pointer_impl pointer_impl = {.name = "conformance-pointer"};
static const struct wlr_touch_impl touch_impl = {.name = "conformance-touch"};
static const struct wlr_keyboard_impl keyboard_impl = {.name = "conformance-keyboard"};

static int checks, failures;

void
ct_check(bool ok, const char *fmt, ...)
{
	va_list args;

	checks++;
	if (!ok)
		failures++;
	printf("%sok %d - ", ok ? "" : "not ", checks);
	va_start(args, fmt);
	vprintf(fmt, args);
	va_end(args);
	printf("\n");
	fflush(stdout);
}

void
ct_check_todo(bool ok, const char *todo, const char *what)
{
	checks++;
	printf("%sok %d - %s # TODO %s\n", ok ? "" : "not ", checks, what, todo);
	fflush(stdout);
}

int
ct_finish(void)
{
	printf("1..%d\n", checks);
	return failures ? 1 : 0;
}

void
ct_run(const char *name, void (*test)(struct ct_server *server))
{
	printf("# %s\n", name);
	struct ct_server *server = ct_server_start();
	if (!server) {
		ct_check(false, "%s: vellum's server starts", name);
		return;
	}
	test(server);
	ct_server_stop(server);
}

bool
ct_check_at(const char *what, struct wl_surface *seen, wl_fixed_t x, wl_fixed_t y,
	struct wl_surface *want, int want_x, int want_y)
{
	bool ok = seen == want && x == wl_fixed_from_int(want_x) && y == wl_fixed_from_int(want_y);

	if (seen != want)
		ct_check(false, "%s: on surface %u, not %u", what,
			seen ? wl_proxy_get_id((struct wl_proxy *)seen) : 0,
			want ? wl_proxy_get_id((struct wl_proxy *)want) : 0);
	else
		ct_check(ok, "%s: at %.2f,%.2f of surface %u (want %d,%d)", what,
			wl_fixed_to_double(x), wl_fixed_to_double(y),
			want ? wl_proxy_get_id((struct wl_proxy *)want) : 0, want_x, want_y);
	return ok;
}

/* Server */

struct ct_server *
ct_server_start(void)
{
	struct ct_server *ct = calloc(1, sizeof(*ct));
	char error[VL_ERROR_SIZE];

	if (!ct)
		return NULL;
	vl_log_init(getenv("CT_DEBUG") ? WLR_DEBUG : WLR_ERROR);
	vl_config_init(&ct->server.config);
	free(ct->server.config.device);
	ct->server.config.device = strdup("memory:1920x1080");
	ct->server.embedded = true;
	ct->server.exit_status = 1;
	if (!vl_server_init(&ct->server, error, sizeof(error))) {
		fprintf(stderr, "# vellum: %s\n", error);
		vl_server_finish(&ct->server);
		vl_config_finish(&ct->server.config);
		free(ct);
		return NULL;
	}
	wlr_pointer_init(&ct->pointer, &pointer_impl, "conformance-pointer");
	vl_seat_add_input(ct->server.seat, &ct->pointer.base);
	wlr_touch_init(&ct->touch, &touch_impl, "conformance-touch");
	vl_seat_add_input(ct->server.seat, &ct->touch.base);
	wlr_keyboard_init(&ct->keyboard, &keyboard_impl, "conformance-keyboard");
	vl_seat_add_input(ct->server.seat, &ct->keyboard.base);
	ct_server_dispatch(ct);
	return ct;
}

void
ct_server_stop(struct ct_server *ct)
{
	wlr_keyboard_finish(&ct->keyboard);
	wlr_touch_finish(&ct->touch);
	wlr_pointer_finish(&ct->pointer);
	vl_server_finish(&ct->server);
	vl_config_finish(&ct->server.config);
	free(ct);
}

void
ct_server_dispatch(struct ct_server *ct)
{
	wl_event_loop_dispatch(ct->server.loop, 0);
	wl_display_flush_clients(ct->server.display);
}

static uint32_t
now_msec(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint32_t)(now.tv_sec * 1000 + now.tv_nsec / 1000000);
}

void
ct_pointer_move(struct ct_server *ct, double x, double y)
{
	struct wlr_pointer_motion_absolute_event event = {
		.pointer = &ct->pointer,
		.time_msec = now_msec(),
		.x = x / CT_PANEL_WIDTH,
		.y = y / CT_PANEL_HEIGHT,
	};

	wl_signal_emit_mutable(&ct->pointer.events.motion_absolute, &event);
	wl_signal_emit_mutable(&ct->pointer.events.frame, &ct->pointer);
	ct_server_dispatch(ct);
}

void
ct_pointer_button(struct ct_server *ct, bool pressed)
{
	struct wlr_pointer_button_event event = {
		.pointer = &ct->pointer,
		.time_msec = now_msec(),
		.button = 0x110, /* BTN_LEFT */
		.state = pressed ? WL_POINTER_BUTTON_STATE_PRESSED
				 : WL_POINTER_BUTTON_STATE_RELEASED,
	};

	wl_signal_emit_mutable(&ct->pointer.events.button, &event);
	wl_signal_emit_mutable(&ct->pointer.events.frame, &ct->pointer);
	ct_server_dispatch(ct);
}

void
ct_touch_down(struct ct_server *ct, double x, double y)
{
	struct wlr_touch_down_event event = {
		.touch = &ct->touch,
		.time_msec = now_msec(),
		.touch_id = 0,
		.x = x / CT_PANEL_WIDTH,
		.y = y / CT_PANEL_HEIGHT,
	};

	ct->touching = true;
	wl_signal_emit_mutable(&ct->touch.events.down, &event);
	wl_signal_emit_mutable(&ct->touch.events.frame, NULL);
	ct_server_dispatch(ct);
}

void
ct_touch_move(struct ct_server *ct, double x, double y)
{
	struct wlr_touch_motion_event event = {
		.touch = &ct->touch,
		.time_msec = now_msec(),
		.touch_id = 0,
		.x = x / CT_PANEL_WIDTH,
		.y = y / CT_PANEL_HEIGHT,
	};

	wl_signal_emit_mutable(&ct->touch.events.motion, &event);
	wl_signal_emit_mutable(&ct->touch.events.frame, NULL);
	ct_server_dispatch(ct);
}

void
ct_touch_up(struct ct_server *ct)
{
	struct wlr_touch_up_event event = {
		.touch = &ct->touch,
		.time_msec = now_msec(),
		.touch_id = 0,
	};

	if (!ct->touching)
		return;
	ct->touching = false;
	wl_signal_emit_mutable(&ct->touch.events.up, &event);
	wl_signal_emit_mutable(&ct->touch.events.frame, NULL);
	ct_server_dispatch(ct);
}

/* Client: the seat's events */

static void
pointer_enter(void *data, struct wl_pointer *pointer, uint32_t serial, struct wl_surface *surface,
	wl_fixed_t x, wl_fixed_t y)
{
	struct ct_client *c = data;

	c->serial = serial;
	c->pointer_focus = surface;
	c->pointer_x = x;
	c->pointer_y = y;
}

static void
pointer_leave(void *data, struct wl_pointer *pointer, uint32_t serial, struct wl_surface *surface)
{
	struct ct_client *c = data;

	if (c->pointer_focus == surface)
		c->pointer_focus = NULL;
}

static void
pointer_motion(void *data, struct wl_pointer *pointer, uint32_t time, wl_fixed_t x, wl_fixed_t y)
{
	struct ct_client *c = data;

	c->pointer_x = x;
	c->pointer_y = y;
}

static void
pointer_button(void *data, struct wl_pointer *pointer, uint32_t serial, uint32_t time,
	uint32_t button, uint32_t state)
{
	struct ct_client *c = data;

	c->serial = serial;
	c->buttons++;
	if (c->popups_done)
		c->button_after_popup_done = true;
}

static void
pointer_axis(void *data, struct wl_pointer *pointer, uint32_t time, uint32_t axis, wl_fixed_t value)
{
}

static void
pointer_frame(void *data, struct wl_pointer *pointer)
{
}

static void
pointer_axis_source(void *data, struct wl_pointer *pointer, uint32_t source)
{
}

static void
pointer_axis_stop(void *data, struct wl_pointer *pointer, uint32_t time, uint32_t axis)
{
}

static void
pointer_axis_discrete(void *data, struct wl_pointer *pointer, uint32_t axis, int32_t discrete)
{
}

static const struct wl_pointer_listener pointer_listener = {
	.enter = pointer_enter,
	.leave = pointer_leave,
	.motion = pointer_motion,
	.button = pointer_button,
	.axis = pointer_axis,
	.frame = pointer_frame,
	.axis_source = pointer_axis_source,
	.axis_stop = pointer_axis_stop,
	.axis_discrete = pointer_axis_discrete,
};

static void
touch_down(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time,
	struct wl_surface *surface, int32_t id, wl_fixed_t x, wl_fixed_t y)
{
	struct ct_client *c = data;

	c->serial = serial;
	c->touch_focus = surface;
	c->touch_x = x;
	c->touch_y = y;
}

static void
touch_up(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time, int32_t id)
{
	struct ct_client *c = data;

	c->touch_focus = NULL;
	c->touch_ups++;
}

static void
touch_motion(
	void *data, struct wl_touch *touch, uint32_t time, int32_t id, wl_fixed_t x, wl_fixed_t y)
{
	struct ct_client *c = data;

	c->touch_x = x;
	c->touch_y = y;
}

static void
touch_frame(void *data, struct wl_touch *touch)
{
}

static void
touch_cancel(void *data, struct wl_touch *touch)
{
	struct ct_client *c = data;

	c->touch_focus = NULL;
}

static void
touch_shape(void *data, struct wl_touch *touch, int32_t id, wl_fixed_t major, wl_fixed_t minor)
{
}

static void
touch_orientation(void *data, struct wl_touch *touch, int32_t id, wl_fixed_t orientation)
{
}

static const struct wl_touch_listener touch_listener = {
	.down = touch_down,
	.up = touch_up,
	.motion = touch_motion,
	.frame = touch_frame,
	.cancel = touch_cancel,
	.shape = touch_shape,
	.orientation = touch_orientation,
};

static void
keyboard_keymap(
	void *data, struct wl_keyboard *keyboard, uint32_t format, int32_t fd, uint32_t size)
{
	close(fd);
}

static void
keyboard_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial,
	struct wl_surface *surface, struct wl_array *keys)
{
	struct ct_client *c = data;

	c->keyboard_focus = surface;
}

static void
keyboard_leave(
	void *data, struct wl_keyboard *keyboard, uint32_t serial, struct wl_surface *surface)
{
	struct ct_client *c = data;

	if (c->keyboard_focus == surface)
		c->keyboard_focus = NULL;
}

static void
keyboard_key(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t time, uint32_t key,
	uint32_t state)
{
}

static void
keyboard_modifiers(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t depressed,
	uint32_t latched, uint32_t locked, uint32_t group)
{
}

static void
keyboard_repeat_info(void *data, struct wl_keyboard *keyboard, int32_t rate, int32_t delay)
{
}

static const struct wl_keyboard_listener keyboard_listener = {
	.keymap = keyboard_keymap,
	.enter = keyboard_enter,
	.leave = keyboard_leave,
	.key = keyboard_key,
	.modifiers = keyboard_modifiers,
	.repeat_info = keyboard_repeat_info,
};

static void
seat_capabilities(void *data, struct wl_seat *seat, uint32_t caps)
{
	struct ct_client *c = data;

	if ((caps & WL_SEAT_CAPABILITY_POINTER) && !c->pointer) {
		c->pointer = wl_seat_get_pointer(seat);
		wl_pointer_add_listener(c->pointer, &pointer_listener, c);
	}
	if ((caps & WL_SEAT_CAPABILITY_TOUCH) && !c->touch) {
		c->touch = wl_seat_get_touch(seat);
		wl_touch_add_listener(c->touch, &touch_listener, c);
	}
	if ((caps & WL_SEAT_CAPABILITY_KEYBOARD) && !c->keyboard) {
		c->keyboard = wl_seat_get_keyboard(seat);
		wl_keyboard_add_listener(c->keyboard, &keyboard_listener, c);
	}
}

static void
seat_name(void *data, struct wl_seat *seat, const char *name)
{
}

static const struct wl_seat_listener seat_listener = {
	.capabilities = seat_capabilities,
	.name = seat_name,
};

static void
wm_base_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {.ping = wm_base_ping};

static void
registry_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	struct ct_client *c = data;

	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		c->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, wl_subcompositor_interface.name) == 0) {
		c->subcompositor = wl_registry_bind(registry, name, &wl_subcompositor_interface, 1);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		c->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		c->wm_base = wl_registry_bind(
			registry, name, &xdg_wm_base_interface, version < 3 ? version : 3);
		xdg_wm_base_add_listener(c->wm_base, &wm_base_listener, c);
	} else if (strcmp(interface, wl_seat_interface.name) == 0 && !c->seat) {
		c->seat = wl_registry_bind(registry, name, &wl_seat_interface, 5);
		wl_seat_add_listener(c->seat, &seat_listener, c);
#ifdef VL_HAVE_LAYER_SHELL
	} else if (strcmp(interface, zwlr_layer_shell_v1_interface.name) == 0) {
		c->layer_shell = wl_registry_bind(
			registry, name, &zwlr_layer_shell_v1_interface, version < 4 ? version : 4);
#endif
	}
}

static void
registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

struct ct_client *
ct_client_connect(struct ct_server *ct)
{
	struct ct_client *c = calloc(1, sizeof(*c));
	int fds[2];

	if (!c)
		abort();
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0) {
		perror("socketpair");
		abort();
	}
	c->server_client = wl_client_create(ct->server.display, fds[0]);
	if (!c->server_client) {
		fprintf(stderr, "wl_client_create failed\n");
		abort();
	}
	c->server = ct;
	c->display = wl_display_connect_to_fd(fds[1]);
	if (!c->display) {
		fprintf(stderr, "wl_display_connect_to_fd failed\n");
		abort();
	}
	c->registry = wl_display_get_registry(c->display);
	wl_registry_add_listener(c->registry, &registry_listener, c);
	ct_roundtrip(c); /* the globals */
	ct_roundtrip(c); /* the seat's capabilities */
	ct_roundtrip(c); /* its devices' first events */
	if (!c->compositor || !c->subcompositor || !c->shm || !c->wm_base || !c->seat)
		ct_check(false, "the client finds the globals it needs");
	return c;
}

void
ct_client_disconnect(struct ct_client *c)
{
	while (c->surfaces)
		ct_surface_destroy(c->surfaces);
	while (c->buffers) {
		struct ct_buffer *b = c->buffers;
		c->buffers = b->next;
		wl_buffer_destroy(b->buffer);
		free(b);
	}
	if (c->pointer)
		wl_pointer_release(c->pointer);
	if (c->touch)
		wl_touch_release(c->touch);
	if (c->keyboard)
		wl_keyboard_release(c->keyboard);
#ifdef VL_HAVE_LAYER_SHELL
	if (c->layer_shell)
		zwlr_layer_shell_v1_destroy(c->layer_shell);
#endif
	if (c->seat)
		wl_seat_release(c->seat);
	if (c->wm_base)
		xdg_wm_base_destroy(c->wm_base);
	if (c->shm)
		wl_shm_destroy(c->shm);
	if (c->subcompositor)
		wl_subcompositor_destroy(c->subcompositor);
	if (c->compositor)
		wl_compositor_destroy(c->compositor);
	wl_registry_destroy(c->registry);
	ct_roundtrip(c);
	wl_display_disconnect(c->display);
	ct_server_dispatch(c->server);
	free(c);
}

static void
sync_done(void *data, struct wl_callback *callback, uint32_t time)
{
	*(bool *)data = true;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener sync_listener = {.done = sync_done};

bool
ct_roundtrip(struct ct_client *c)
{
	bool done = false;
	struct wl_callback *callback = wl_display_sync(c->display);

	wl_callback_add_listener(callback, &sync_listener, &done);
	for (int round = 0; !done && round < 2000; round++) {
		if (wl_display_flush(c->display) < 0 && errno != EAGAIN)
			break;
		ct_server_dispatch(c->server);
		while (wl_display_prepare_read(c->display) != 0)
			wl_display_dispatch_pending(c->display);
		struct pollfd pfd = {.fd = wl_display_get_fd(c->display), .events = POLLIN};
		if (poll(&pfd, 1, 1) > 0)
			wl_display_read_events(c->display);
		else
			wl_display_cancel_read(c->display);
		wl_display_dispatch_pending(c->display);
	}
	int error = wl_display_get_error(c->display);
	if (error && !c->failed) {
		const struct wl_interface *interface = NULL;
		uint32_t id = 0;
		uint32_t code = wl_display_get_protocol_error(c->display, &interface, &id);
		ct_check(false,
			"the client ends without a protocol error (%s#%u code %u, errno %d)",
			interface ? interface->name : "?", id, code, error);
		c->failed = true;
	} else if (!done && !c->failed) {
		ct_check(false, "the server answers the client's roundtrip");
		c->failed = true;
	}
	return done && !error;
}

/* Surfaces */

static struct wl_buffer *
new_buffer(struct ct_client *c, int w, int h)
{
	int fd = memfd_create("ct-buffer", MFD_CLOEXEC);
	struct ct_buffer *b = calloc(1, sizeof(*b));

	if (fd < 0 || !b || ftruncate(fd, (off_t)w * h * 4) < 0) {
		perror("buffer");
		abort();
	}
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, w * h * 4);
	b->buffer = wl_shm_pool_create_buffer(pool, 0, w, h, w * 4, WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	b->next = c->buffers;
	c->buffers = b;
	return b->buffer;
}

void
ct_attach(struct ct_surface *s, int w, int h)
{
	if (w > 0 && h > 0) {
		wl_surface_attach(s->surface, new_buffer(s->client, w, h), 0, 0);
		wl_surface_damage_buffer(s->surface, 0, 0, w, h);
	} else {
		wl_surface_attach(s->surface, NULL, 0, 0);
	}
	s->width = w;
	s->height = h;
	wl_surface_commit(s->surface);
}

static void
xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct ct_surface *s = data;

	xdg_surface_ack_configure(xdg_surface, serial);
	s->configures++;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_configure,
};

static void
toplevel_configure(
	void *data, struct xdg_toplevel *toplevel, int32_t w, int32_t h, struct wl_array *states)
{
}

static void
toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
};

static struct ct_surface *
new_surface(struct ct_client *c)
{
	struct ct_surface *s = calloc(1, sizeof(*s));

	if (!s)
		abort();
	s->client = c;
	s->surface = wl_compositor_create_surface(c->compositor);
	s->next = c->surfaces;
	c->surfaces = s;
	return s;
}

static bool
wait_configure(struct ct_surface *s, uint32_t before)
{
	for (int i = 0; i < 50 && s->configures == before; i++)
		if (!ct_roundtrip(s->client))
			return false;
	return s->configures > before;
}

struct ct_surface *
ct_toplevel(
	struct ct_client *c, int x, int y, int w, int h, int left, int top, int right, int bottom)
{
	struct ct_surface *s = new_surface(c);

	s->xdg_surface = xdg_wm_base_get_xdg_surface(c->wm_base, s->surface);
	xdg_surface_add_listener(s->xdg_surface, &xdg_surface_listener, s);
	s->toplevel = xdg_surface_get_toplevel(s->xdg_surface);
	xdg_toplevel_add_listener(s->toplevel, &toplevel_listener, s);
	if (left || top || right || bottom)
		xdg_surface_set_window_geometry(
			s->xdg_surface, left, top, w - left - right, h - top - bottom);
	wl_surface_commit(s->surface);
	if (!wait_configure(s, 0))
		ct_check(false, "the toplevel is configured");
	ct_attach(s, w, h);
	ct_roundtrip(c);
	ct_move_toplevel(s, x, y, left, top);
	return s;
}

void
ct_move_toplevel(struct ct_surface *s, int x, int y, int left, int top)
{
	struct ct_client *c = s->client;
	struct wl_resource *resource = wl_client_get_object(
		c->server_client, wl_proxy_get_id((struct wl_proxy *)s->surface));

	if (!resource || !vl_view_place_at(&c->server->server, wlr_surface_from_resource(resource),
				 x + left, y + top))
		ct_check(false, "the toplevel is a mapped window vellum places");
	ct_roundtrip(c);
}

bool
ct_remap_toplevel(struct ct_surface *s, int w, int h)
{
	uint32_t before = s->configures;

	wl_surface_commit(s->surface);
	if (!wait_configure(s, before))
		return false;
	ct_attach(s, w, h);
	return ct_roundtrip(s->client);
}

struct ct_surface *
ct_subsurface(struct ct_surface *parent, int x, int y, int w, int h)
{
	struct ct_client *c = parent->client;
	struct ct_surface *s = new_surface(c);

	s->subsurface =
		wl_subcompositor_get_subsurface(c->subcompositor, s->surface, parent->surface);
	wl_subsurface_set_position(s->subsurface, x, y);
	wl_subsurface_set_desync(s->subsurface);
	ct_attach(s, w, h);
	wl_surface_commit(parent->surface);
	ct_roundtrip(c);
	return s;
}

static void
popup_configure(void *data, struct xdg_popup *popup, int32_t x, int32_t y, int32_t w, int32_t h)
{
	struct ct_surface *s = data;

	s->popup_configured = true;
	s->popup_x = x;
	s->popup_y = y;
	s->popup_width = w;
	s->popup_height = h;
}

static void
popup_done(void *data, struct xdg_popup *popup)
{
	struct ct_surface *s = data;

	/* the order of the first popup_done each popup got, among the client's */
	s->client->popups_done++;
	if (!s->popup_done)
		s->popup_done = s->client->popups_done;
}

static void
popup_repositioned(void *data, struct xdg_popup *popup, uint32_t token)
{
	struct ct_surface *s = data;

	s->repositioned = true;
	s->repositioned_token = token;
}

static const struct xdg_popup_listener popup_listener = {
	.configure = popup_configure,
	.popup_done = popup_done,
	.repositioned = popup_repositioned,
};

struct ct_surface *
ct_popup_create(struct ct_client *c, struct ct_surface *parent, struct xdg_positioner *positioner)
{
	struct ct_surface *s = new_surface(c);

	s->xdg_surface = xdg_wm_base_get_xdg_surface(c->wm_base, s->surface);
	xdg_surface_add_listener(s->xdg_surface, &xdg_surface_listener, s);
	s->popup = xdg_surface_get_popup(
		s->xdg_surface, parent ? parent->xdg_surface : NULL, positioner);
	xdg_popup_add_listener(s->popup, &popup_listener, s);
	return s;
}

#ifdef VL_HAVE_LAYER_SHELL
static void
layer_configure(void *data, struct zwlr_layer_surface_v1 *layer_surface, uint32_t serial,
	uint32_t w, uint32_t h)
{
	struct ct_surface *s = data;

	zwlr_layer_surface_v1_ack_configure(layer_surface, serial);
	s->configures++;
}

static void
layer_closed(void *data, struct zwlr_layer_surface_v1 *layer_surface)
{
}

static const struct zwlr_layer_surface_v1_listener layer_listener = {
	.configure = layer_configure,
	.closed = layer_closed,
};

struct ct_surface *
ct_layer_surface(struct ct_client *c, uint32_t layer, uint32_t anchor, int margin, int w, int h)
{
	struct ct_surface *s = new_surface(c);

	s->layer_surface = zwlr_layer_shell_v1_get_layer_surface(
		c->layer_shell, s->surface, NULL, layer, "conformance");
	zwlr_layer_surface_v1_add_listener(s->layer_surface, &layer_listener, s);
	zwlr_layer_surface_v1_set_size(s->layer_surface, (uint32_t)w, (uint32_t)h);
	zwlr_layer_surface_v1_set_anchor(s->layer_surface, anchor);
	zwlr_layer_surface_v1_set_margin(s->layer_surface, margin, margin, margin, margin);
	if (zwlr_layer_surface_v1_get_version(s->layer_surface) >=
		ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_ON_DEMAND_SINCE_VERSION)
		zwlr_layer_surface_v1_set_keyboard_interactivity(
			s->layer_surface, ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_ON_DEMAND);
	wl_surface_commit(s->surface);
	if (!wait_configure(s, 0))
		ct_check(false, "the layer surface is configured");
	ct_attach(s, w, h);
	ct_roundtrip(c);
	return s;
}
#endif

bool
ct_popup_map(struct ct_surface *s, int w, int h)
{
	uint32_t before = s->configures;

	wl_surface_commit(s->surface);
	if (!wait_configure(s, before))
		return false;
	ct_attach(s, w, h);
	return ct_roundtrip(s->client);
}

void
ct_surface_destroy(struct ct_surface *s)
{
	struct ct_client *c = s->client;

	for (struct ct_surface **p = &c->surfaces; *p; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			break;
		}
	if (c->pointer_focus == s->surface)
		c->pointer_focus = NULL;
	if (c->keyboard_focus == s->surface)
		c->keyboard_focus = NULL;
	if (s->popup)
		xdg_popup_destroy(s->popup);
	if (s->toplevel)
		xdg_toplevel_destroy(s->toplevel);
	if (s->xdg_surface)
		xdg_surface_destroy(s->xdg_surface);
#ifdef VL_HAVE_LAYER_SHELL
	if (s->layer_surface)
		zwlr_layer_surface_v1_destroy(s->layer_surface);
#endif
	if (s->subsurface)
		wl_subsurface_destroy(s->subsurface);
	wl_surface_destroy(s->surface);
	free(s);
}
