// SPDX-License-Identifier: MIT
/*
 * vellum as a wlcs integration module: the conformance suite loads it and
 * starts vellum's own server (compositor/server.c, the code the vellum
 * binary runs) on an in-process memory panel, gives it clients through
 * socket pairs, places windows where a test wants them and feeds pointer
 * and touch devices into vellum's seat.
 *
 * The server runs on the suite's thread (start_on_this_thread): the suite's
 * calls arrive through its event loop, which vellum's loop dispatches, so
 * nothing here needs a lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client-core.h>
#include <wayland-server-core.h>
#include <wlcs/display_server.h>
#include <wlcs/pointer.h>
#include <wlcs/touch.h>
#include <wlr/interfaces/wlr_pointer.h>
#include <wlr/interfaces/wlr_touch.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>

#include "log.h"
#include "server.h"

/* A panel larger than the windows the suite's tests place on it. */
#define PANEL_DEVICE "memory:1920x1080"

struct vellum_wlcs {
	WlcsDisplayServer base;
	struct vl_server server;
	/*
	 * A mouse and a touchscreen that are always there, and never move: the
	 * suite's tests make a device and use it at once, and a client that
	 * learnt of the capability only then would miss its first events.
	 */
	struct wlr_pointer standing_pointer;
	struct wlr_touch standing_touch;
	struct wl_event_loop *suite_loop;
	struct wl_event_source *suite_events;
	struct wl_event_source *suite_calls; /* idle, while calls wait to run */
	struct wl_list clients;              /* struct suite_client */
	int32_t next_touch_id;
};

/* A client connection the suite holds the other end of. */
struct suite_client {
	struct wl_list link;
	int fd; /* the suite's end */
	struct wl_client *client;
	struct wl_listener destroy;
};

struct suite_pointer {
	WlcsPointer base;
	struct vellum_wlcs *wlcs;
	struct wlr_pointer pointer;
};

struct suite_touch {
	WlcsTouch base;
	struct vellum_wlcs *wlcs;
	struct wlr_touch touch;
	int32_t id;
	bool down;
};

static struct vellum_wlcs *
from_display_server(WlcsDisplayServer *base)
{
	struct vellum_wlcs *wlcs = wl_container_of(base, wlcs, base);

	return wlcs;
}

static uint32_t
now_msec(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint32_t)(now.tv_sec * 1000 + now.tv_nsec / 1000000);
}

/* Compositor coordinates to the fractions of the panel that absolute events carry. */
static bool
to_panel_fraction(struct vellum_wlcs *wlcs, double x, double y, double *fx, double *fy)
{
	struct vl_output *output = vl_output_first(&wlcs->server);

	if (!output) {
		wlr_log(WLR_ERROR, "wlcs: an absolute position, but there is no panel");
		return false;
	}
	*fx = x / output->wlr_output->width;
	*fy = y / output->wlr_output->height;
	return true;
}

/*
 * The suite's calls run after the requests already in its clients' sockets
 * (both are ready in the same round of the event loop): a pointer moved
 * before the commit that put a surface under it would enter the wrong one.
 */
static void
run_suite_calls(void *data)
{
	struct vellum_wlcs *wlcs = data;

	wlcs->suite_calls = NULL;
	wl_event_loop_dispatch(wlcs->suite_loop, 0);
}

static int
handle_suite_events(int fd, uint32_t mask, void *data)
{
	struct vellum_wlcs *wlcs = data;
	(void)fd;
	(void)mask;

	if (!wlcs->suite_calls)
		wlcs->suite_calls =
			wl_event_loop_add_idle(wlcs->server.loop, run_suite_calls, wlcs);
	return 0;
}

static const struct wlr_pointer_impl suite_pointer_impl = {.name = "wlcs-pointer"};
static const struct wlr_touch_impl suite_touch_impl = {.name = "wlcs-touch"};

static void
start_on_this_thread(WlcsDisplayServer *base, struct wl_event_loop *suite_loop)
{
	struct vellum_wlcs *wlcs = from_display_server(base);
	char error[VL_ERROR_SIZE];

	if (!vl_server_init(&wlcs->server, error, sizeof(error))) {
		fprintf(stderr, "vellum-wlcs: %s\n", error);
		abort();
	}
	wlr_pointer_init(&wlcs->standing_pointer, &suite_pointer_impl, "wlcs-standing-pointer");
	vl_seat_add_input(wlcs->server.seat, &wlcs->standing_pointer.base);
	wlr_touch_init(&wlcs->standing_touch, &suite_touch_impl, "wlcs-standing-touch");
	vl_seat_add_input(wlcs->server.seat, &wlcs->standing_touch.base);
	wlcs->suite_loop = suite_loop;
	wlcs->suite_events = wl_event_loop_add_fd(wlcs->server.loop,
		wl_event_loop_get_fd(suite_loop), WL_EVENT_READABLE, handle_suite_events, wlcs);
	if (!wlcs->suite_events) {
		fprintf(stderr, "vellum-wlcs: cannot watch the suite's event loop\n");
		abort();
	}
	wl_display_run(wlcs->server.display);
	wl_event_source_remove(wlcs->suite_events);
	if (wlcs->suite_calls)
		wl_event_source_remove(wlcs->suite_calls);
	wlr_pointer_finish(&wlcs->standing_pointer);
	wlr_touch_finish(&wlcs->standing_touch);
	vl_server_finish(&wlcs->server);
}

static void
stop(WlcsDisplayServer *base)
{
	wl_display_terminate(from_display_server(base)->server.display);
}

static void
handle_client_destroy(struct wl_listener *listener, void *data)
{
	struct suite_client *client = wl_container_of(listener, client, destroy);
	(void)data;

	wl_list_remove(&client->link);
	free(client);
}

static int
create_client_socket(WlcsDisplayServer *base)
{
	struct vellum_wlcs *wlcs = from_display_server(base);
	struct suite_client *client = calloc(1, sizeof(*client));
	int fds[2];

	if (!client)
		return -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0) {
		fprintf(stderr, "vellum-wlcs: socketpair: %s\n", strerror(errno));
		free(client);
		return -1;
	}
	client->client = wl_client_create(wlcs->server.display, fds[0]);
	if (!client->client) {
		close(fds[0]);
		close(fds[1]);
		free(client);
		return -1;
	}
	client->fd = fds[1];
	client->destroy.notify = handle_client_destroy;
	wl_client_add_destroy_listener(client->client, &client->destroy);
	wl_list_insert(&wlcs->clients, &client->link);
	return fds[1];
}

/* The server's end of a client the suite connected through create_client_socket(). */
static struct wl_client *
server_client(struct vellum_wlcs *wlcs, struct wl_display *suite_display)
{
	int fd = wl_display_get_fd(suite_display);
	struct suite_client *client;

	wl_list_for_each (client, &wlcs->clients, link)
		if (client->fd == fd)
			return client->client;
	return NULL;
}

static void
position_window_absolute(WlcsDisplayServer *base, struct wl_display *display,
	struct wl_surface *surface, int x, int y)
{
	struct vellum_wlcs *wlcs = from_display_server(base);
	struct wl_client *client = server_client(wlcs, display);
	struct wl_resource *resource =
		client ? wl_client_get_object(client, wl_proxy_get_id((struct wl_proxy *)surface))
		       : NULL;

	if (!resource ||
		!vl_view_place_at(&wlcs->server, wlr_surface_from_resource(resource), x, y))
		wlr_log(WLR_ERROR, "wlcs: surface %u to place at %d,%d is no mapped window",
			wl_proxy_get_id((struct wl_proxy *)surface), x, y);
}

/* Pointer */

static void
pointer_move_absolute(WlcsPointer *base, wl_fixed_t x, wl_fixed_t y)
{
	struct suite_pointer *pointer = wl_container_of(base, pointer, base);
	struct wlr_pointer_motion_absolute_event event = {
		.pointer = &pointer->pointer,
		.time_msec = now_msec(),
	};

	if (!to_panel_fraction(pointer->wlcs, wl_fixed_to_double(x), wl_fixed_to_double(y),
		    &event.x, &event.y))
		return;
	wl_signal_emit_mutable(&pointer->pointer.events.motion_absolute, &event);
	wl_signal_emit_mutable(&pointer->pointer.events.frame, &pointer->pointer);
}

static void
pointer_move_relative(WlcsPointer *base, wl_fixed_t dx, wl_fixed_t dy)
{
	struct suite_pointer *pointer = wl_container_of(base, pointer, base);
	struct wlr_pointer_motion_event event = {
		.pointer = &pointer->pointer,
		.time_msec = now_msec(),
		.delta_x = wl_fixed_to_double(dx),
		.delta_y = wl_fixed_to_double(dy),
		.unaccel_dx = wl_fixed_to_double(dx),
		.unaccel_dy = wl_fixed_to_double(dy),
	};

	wl_signal_emit_mutable(&pointer->pointer.events.motion, &event);
	wl_signal_emit_mutable(&pointer->pointer.events.frame, &pointer->pointer);
}

static void
pointer_button(struct suite_pointer *pointer, int button, enum wl_pointer_button_state state)
{
	struct wlr_pointer_button_event event = {
		.pointer = &pointer->pointer,
		.time_msec = now_msec(),
		.button = (uint32_t)button,
		.state = state,
	};

	wl_signal_emit_mutable(&pointer->pointer.events.button, &event);
	wl_signal_emit_mutable(&pointer->pointer.events.frame, &pointer->pointer);
}

static void
pointer_button_down(WlcsPointer *base, int button)
{
	struct suite_pointer *pointer = wl_container_of(base, pointer, base);

	pointer_button(pointer, button, WL_POINTER_BUTTON_STATE_PRESSED);
}

static void
pointer_button_up(WlcsPointer *base, int button)
{
	struct suite_pointer *pointer = wl_container_of(base, pointer, base);

	pointer_button(pointer, button, WL_POINTER_BUTTON_STATE_RELEASED);
}

static void
pointer_destroy(WlcsPointer *base)
{
	struct suite_pointer *pointer = wl_container_of(base, pointer, base);

	wlr_pointer_finish(&pointer->pointer);
	free(pointer);
}

static WlcsPointer *
create_pointer(WlcsDisplayServer *base)
{
	struct vellum_wlcs *wlcs = from_display_server(base);
	struct suite_pointer *pointer = calloc(1, sizeof(*pointer));

	if (!pointer)
		return NULL;
	pointer->base = (WlcsPointer){
		.version = WLCS_POINTER_VERSION,
		.move_absolute = pointer_move_absolute,
		.move_relative = pointer_move_relative,
		.button_up = pointer_button_up,
		.button_down = pointer_button_down,
		.destroy = pointer_destroy,
	};
	pointer->wlcs = wlcs;
	wlr_pointer_init(&pointer->pointer, &suite_pointer_impl, "wlcs-pointer");
	vl_seat_add_input(wlcs->server.seat, &pointer->pointer.base);
	return &pointer->base;
}

/*
 * Touch: each WlcsTouch is one finger. The suite hands its positions as
 * whole pixels in the wl_fixed_t arguments (wlcs::Touch::down_at passes its
 * ints through), unlike the pointer's.
 */

static void
touch_down(WlcsTouch *base, wl_fixed_t x, wl_fixed_t y)
{
	struct suite_touch *touch = wl_container_of(base, touch, base);
	struct wlr_touch_down_event event = {
		.touch = &touch->touch,
		.time_msec = now_msec(),
		.touch_id = touch->id,
	};

	if (!to_panel_fraction(touch->wlcs, x, y, &event.x, &event.y))
		return;
	touch->down = true;
	wl_signal_emit_mutable(&touch->touch.events.down, &event);
	wl_signal_emit_mutable(&touch->touch.events.frame, NULL);
}

static void
touch_move(WlcsTouch *base, wl_fixed_t x, wl_fixed_t y)
{
	struct suite_touch *touch = wl_container_of(base, touch, base);
	struct wlr_touch_motion_event event = {
		.touch = &touch->touch,
		.time_msec = now_msec(),
		.touch_id = touch->id,
	};

	if (!to_panel_fraction(touch->wlcs, x, y, &event.x, &event.y))
		return;
	wl_signal_emit_mutable(&touch->touch.events.motion, &event);
	wl_signal_emit_mutable(&touch->touch.events.frame, NULL);
}

static void
touch_up(WlcsTouch *base)
{
	struct suite_touch *touch = wl_container_of(base, touch, base);
	struct wlr_touch_up_event event = {
		.touch = &touch->touch,
		.time_msec = now_msec(),
		.touch_id = touch->id,
	};

	touch->down = false;
	wl_signal_emit_mutable(&touch->touch.events.up, &event);
	wl_signal_emit_mutable(&touch->touch.events.frame, NULL);
}

static void
touch_destroy(WlcsTouch *base)
{
	struct suite_touch *touch = wl_container_of(base, touch, base);

	if (touch->down)
		touch_up(base);
	wlr_touch_finish(&touch->touch);
	free(touch);
}

static WlcsTouch *
create_touch(WlcsDisplayServer *base)
{
	struct vellum_wlcs *wlcs = from_display_server(base);
	struct suite_touch *touch = calloc(1, sizeof(*touch));

	if (!touch)
		return NULL;
	touch->base = (WlcsTouch){
		.version = WLCS_TOUCH_VERSION,
		.touch_down = touch_down,
		.touch_move = touch_move,
		.touch_up = touch_up,
		.destroy = touch_destroy,
	};
	touch->wlcs = wlcs;
	touch->id = wlcs->next_touch_id++;
	wlr_touch_init(&touch->touch, &suite_touch_impl, "wlcs-touch");
	vl_seat_add_input(wlcs->server.seat, &touch->touch.base);
	return &touch->base;
}

/*
 * The globals vellum's server offers a client built with its defaults, at
 * the versions it offers them: the suite skips the tests of the others.
 */
static const WlcsExtensionDescriptor extensions[] = {
	{"wl_compositor", 6},
	{"wl_subcompositor", 1},
	{"wl_shm", 1},
	{"wl_seat", 9},
	{"wl_output", 4},
	{"wl_data_device_manager", 3},
	{"xdg_wm_base", 6},
	{"zxdg_output_manager_v1", 3},
	{"zxdg_decoration_manager_v1", 1},
	{"zwp_primary_selection_device_manager_v1", 1},
	{"zwp_virtual_keyboard_manager_v1", 1},
	{"zwlr_virtual_pointer_manager_v1", 2},
	{"zwp_tablet_manager_v2", 1},
	{"zwp_idle_inhibit_manager_v1", 1},
	{"ext_idle_notifier_v1", 1},
	{"wp_viewporter", 1},
	{"wp_fractional_scale_manager_v1", 1},
	{"wp_presentation", 1},
	{"wp_content_type_manager_v1", 1},
	{"wp_single_pixel_buffer_manager_v1", 1},
	{"zwlr_screencopy_manager_v1", 3},
#ifdef VL_HAVE_LAYER_SHELL
	{"zwlr_layer_shell_v1", 4},
#endif
};

static const WlcsIntegrationDescriptor descriptor = {
	.version = WLCS_INTEGRATION_DESCRIPTOR_VERSION,
	.num_extensions = sizeof(extensions) / sizeof(extensions[0]),
	.supported_extensions = extensions,
};

static const WlcsIntegrationDescriptor *
get_descriptor(const WlcsDisplayServer *base)
{
	(void)base;
	return &descriptor;
}

static WlcsDisplayServer *
create_server(int argc, const char **argv)
{
	struct vellum_wlcs *wlcs = calloc(1, sizeof(*wlcs));
	(void)argc;
	(void)argv;

	if (!wlcs)
		return NULL;
	wlcs->base = (WlcsDisplayServer){
		.version = WLCS_DISPLAY_SERVER_VERSION,
		.stop = stop,
		.create_client_socket = create_client_socket,
		.position_window_absolute = position_window_absolute,
		.create_pointer = create_pointer,
		.create_touch = create_touch,
		.get_descriptor = get_descriptor,
		.start_on_this_thread = start_on_this_thread,
	};
	wl_list_init(&wlcs->clients);
	vl_log_init(getenv("VELLUM_WLCS_DEBUG") ? WLR_DEBUG : WLR_ERROR);
	vl_config_init(&wlcs->server.config);
	free(wlcs->server.config.device);
	wlcs->server.config.device = strdup(PANEL_DEVICE);
	wlcs->server.embedded = true;
	wlcs->server.exit_status = 1;
	return &wlcs->base;
}

static void
destroy_server(WlcsDisplayServer *base)
{
	struct vellum_wlcs *wlcs = from_display_server(base);

	vl_config_finish(&wlcs->server.config);
	free(wlcs);
}

const WlcsServerIntegration wlcs_server_integration = {
	.version = WLCS_SERVER_INTEGRATION_VERSION,
	.create_server = create_server,
	.destroy_server = destroy_server,
};
