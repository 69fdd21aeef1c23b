// SPDX-License-Identifier: MIT
/*
 * A fullscreen Wayland client that reports where it is touched or pressed:
 *
 *   touch_probe MARKER_X MARKER_Y EVENTS
 *
 * Draws a white window with a black 16x16 square centred on the surface
 * point (MARKER_X, MARKER_Y), so a test can find that point on the panel,
 * prints "ready WIDTH HEIGHT" once the frame is shown, then a line
 * "down X Y" per wl_touch.down and "button X Y" per pointer button press,
 * in surface coordinates, and exits 0 after EVENTS of them.
 */
#include <stdio.h>
#include <stdlib.h>

#include "client.h"

#define MARKER_SIZE 16

struct probe {
	struct vt_client client;
	struct wl_touch *touch;
	struct wl_pointer *pointer;
	double pointer_x, pointer_y;
	int events_left;
};

static void
event_seen(struct probe *probe)
{
	if (--probe->events_left == 0)
		exit(0);
}

static void
handle_touch_down(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time,
	struct wl_surface *surface, int32_t id, wl_fixed_t x, wl_fixed_t y)
{
	(void)touch;
	(void)serial;
	(void)time;
	(void)surface;
	(void)id;
	vt_say("down %.2f %.2f", wl_fixed_to_double(x), wl_fixed_to_double(y));
	event_seen(data);
}

static void
handle_touch_up(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time, int32_t id)
{
	(void)data;
	(void)touch;
	(void)serial;
	(void)time;
	(void)id;
}

static void
handle_touch_motion(
	void *data, struct wl_touch *touch, uint32_t time, int32_t id, wl_fixed_t x, wl_fixed_t y)
{
	(void)data;
	(void)touch;
	(void)time;
	(void)id;
	(void)x;
	(void)y;
}

static void
handle_touch_frame(void *data, struct wl_touch *touch)
{
	(void)data;
	(void)touch;
}

static void
handle_touch_cancel(void *data, struct wl_touch *touch)
{
	(void)data;
	(void)touch;
}

static const struct wl_touch_listener touch_listener = {
	.down = handle_touch_down,
	.up = handle_touch_up,
	.motion = handle_touch_motion,
	.frame = handle_touch_frame,
	.cancel = handle_touch_cancel,
};

static void
handle_pointer_enter(void *data, struct wl_pointer *pointer, uint32_t serial,
	struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y)
{
	struct probe *probe = data;
	(void)pointer;
	(void)serial;
	(void)surface;

	probe->pointer_x = wl_fixed_to_double(x);
	probe->pointer_y = wl_fixed_to_double(y);
}

static void
handle_pointer_leave(
	void *data, struct wl_pointer *pointer, uint32_t serial, struct wl_surface *surface)
{
	(void)data;
	(void)pointer;
	(void)serial;
	(void)surface;
}

static void
handle_pointer_motion(
	void *data, struct wl_pointer *pointer, uint32_t time, wl_fixed_t x, wl_fixed_t y)
{
	struct probe *probe = data;
	(void)pointer;
	(void)time;

	probe->pointer_x = wl_fixed_to_double(x);
	probe->pointer_y = wl_fixed_to_double(y);
}

static void
handle_pointer_button(void *data, struct wl_pointer *pointer, uint32_t serial, uint32_t time,
	uint32_t button, uint32_t state)
{
	struct probe *probe = data;
	(void)pointer;
	(void)serial;
	(void)time;
	(void)button;

	if (state != WL_POINTER_BUTTON_STATE_PRESSED)
		return;
	vt_say("button %.2f %.2f", probe->pointer_x, probe->pointer_y);
	event_seen(probe);
}

static void
handle_pointer_axis(
	void *data, struct wl_pointer *pointer, uint32_t time, uint32_t axis, wl_fixed_t value)
{
	(void)data;
	(void)pointer;
	(void)time;
	(void)axis;
	(void)value;
}

static const struct wl_pointer_listener pointer_listener = {
	.enter = handle_pointer_enter,
	.leave = handle_pointer_leave,
	.motion = handle_pointer_motion,
	.button = handle_pointer_button,
	.axis = handle_pointer_axis,
};

int
main(int argc, char **argv)
{
	struct probe probe = {0};
	struct vt_client *c = &probe.client;

	if (argc != 4) {
		fprintf(stderr, "usage: touch_probe MARKER_X MARKER_Y EVENTS\n");
		return 2;
	}
	int marker_x = atoi(argv[1]), marker_y = atoi(argv[2]);
	probe.events_left = atoi(argv[3]);

	vt_client_connect(c);
	if (!c->seat)
		vt_die("no wl_seat");
	if (c->seat_caps & WL_SEAT_CAPABILITY_TOUCH) {
		probe.touch = wl_seat_get_touch(c->seat);
		wl_touch_add_listener(probe.touch, &touch_listener, &probe);
	}
	if (c->seat_caps & WL_SEAT_CAPABILITY_POINTER) {
		probe.pointer = wl_seat_get_pointer(c->seat);
		wl_pointer_add_listener(probe.pointer, &pointer_listener, &probe);
	}
	vt_client_create_window(c, "touch_probe");
	struct vt_buffer *b = vt_buffer_create(c, VT_WHITE);
	vt_buffer_fill(b, marker_x - MARKER_SIZE / 2, marker_y - MARKER_SIZE / 2, MARKER_SIZE,
		MARKER_SIZE, VT_BLACK);
	vt_client_commit(c, b);
	vt_client_wait_frame(c);
	vt_say("ready %d %d%s%s", c->width, c->height, probe.touch ? " touch" : "",
		probe.pointer ? " pointer" : "");
	while (wl_display_dispatch(c->display) >= 0)
		;
	vt_die("the compositor went away");
}
