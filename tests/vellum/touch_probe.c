// SPDX-License-Identifier: MIT
/*
 * A fullscreen Wayland client that reports where it is touched or pressed:
 *
 *   touch_probe MARKER_X MARKER_Y EVENTS [tablet]
 *
 * Draws a white window with a black 16x16 square centred on the surface
 * point (MARKER_X, MARKER_Y), so a test can find that point on the panel,
 * prints "ready WIDTH HEIGHT" once the frame is shown, then a line
 * "down X Y" per wl_touch.down and "button X Y" per pointer button press,
 * in surface coordinates, and exits 0 after EVENTS of them.
 *
 * With "tablet" it binds zwp_tablet_manager_v2 too and prints "tool-down
 * X Y" per tablet tool down, at the tool's last motion; the tool's up
 * counts as the event, so that a pointer press sent with the pen's (which a
 * client of the tablet protocol must not get) is seen first and fails.
 *
 * With "dialog" the window is a dialog of DIALOG_WIDTH x DIALOG_HEIGHT
 * (its minimum and maximum size), which vellum centres on the panel rather
 * than at its corner, and a pointer button's release is an event too:
 * "release X Y", where the pointer was last, the end of a drag.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "tablet-v2-client-protocol.h"

#define MARKER_SIZE   16
#define DIALOG_WIDTH  240
#define DIALOG_HEIGHT 180

struct probe {
	struct vt_client client;
	struct wl_touch *touch;
	struct wl_pointer *pointer;
	double pointer_x, pointer_y;
	int events_left;
	bool tablet, dialog;
	struct zwp_tablet_manager_v2 *tablet_manager;
	double tool_x, tool_y;
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

	if (state != WL_POINTER_BUTTON_STATE_PRESSED) {
		if (probe->dialog) {
			vt_say("release %.2f %.2f", probe->pointer_x, probe->pointer_y);
			event_seen(probe);
		}
		return;
	}
	vt_say("button %.2f %.2f", probe->pointer_x, probe->pointer_y);
	if (probe->tablet)
		vt_die("a pointer button reached a client of the tablet protocol");
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

/* Tablet tools: motion and down matter, the rest is taken and ignored. */

static void
handle_tool_type(void *data, struct zwp_tablet_tool_v2 *tool, uint32_t type)
{
}

static void
handle_tool_serial(void *data, struct zwp_tablet_tool_v2 *tool, uint32_t hi, uint32_t lo)
{
}

static void
handle_tool_id_wacom(void *data, struct zwp_tablet_tool_v2 *tool, uint32_t hi, uint32_t lo)
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
}

static void
handle_tool_proximity_in(void *data, struct zwp_tablet_tool_v2 *tool, uint32_t serial,
	struct zwp_tablet_v2 *tablet, struct wl_surface *surface)
{
}

static void
handle_tool_proximity_out(void *data, struct zwp_tablet_tool_v2 *tool)
{
}

static void
handle_tool_down(void *data, struct zwp_tablet_tool_v2 *tool, uint32_t serial)
{
	struct probe *probe = data;

	vt_say("tool-down %.2f %.2f", probe->tool_x, probe->tool_y);
}

static void
handle_tool_up(void *data, struct zwp_tablet_tool_v2 *tool)
{
	event_seen(data);
}

static void
handle_tool_motion(void *data, struct zwp_tablet_tool_v2 *tool, wl_fixed_t x, wl_fixed_t y)
{
	struct probe *probe = data;

	probe->tool_x = wl_fixed_to_double(x);
	probe->tool_y = wl_fixed_to_double(y);
}

static void
handle_tool_value(void *data, struct zwp_tablet_tool_v2 *tool, uint32_t value)
{
}

static void
handle_tool_tilt(void *data, struct zwp_tablet_tool_v2 *tool, wl_fixed_t x, wl_fixed_t y)
{
}

static void
handle_tool_degrees(void *data, struct zwp_tablet_tool_v2 *tool, wl_fixed_t degrees)
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
	.hardware_id_wacom = handle_tool_id_wacom,
	.capability = handle_tool_capability,
	.done = handle_tool_done,
	.removed = handle_tool_removed,
	.proximity_in = handle_tool_proximity_in,
	.proximity_out = handle_tool_proximity_out,
	.down = handle_tool_down,
	.up = handle_tool_up,
	.motion = handle_tool_motion,
	.pressure = handle_tool_value,
	.distance = handle_tool_value,
	.tilt = handle_tool_tilt,
	.rotation = handle_tool_degrees,
	.slider = handle_tool_slider,
	.wheel = handle_tool_wheel,
	.button = handle_tool_button,
	.frame = handle_tool_frame,
};

/* Tablets and pads get no listener: their events are not needed. */
static void
handle_tablet_added(void *data, struct zwp_tablet_seat_v2 *seat, struct zwp_tablet_v2 *tablet)
{
}

static void
handle_tool_added(void *data, struct zwp_tablet_seat_v2 *seat, struct zwp_tablet_tool_v2 *tool)
{
	zwp_tablet_tool_v2_add_listener(tool, &tool_listener, data);
}

static void
handle_pad_added(void *data, struct zwp_tablet_seat_v2 *seat, struct zwp_tablet_pad_v2 *pad)
{
}

static const struct zwp_tablet_seat_v2_listener tablet_seat_listener = {
	.tablet_added = handle_tablet_added,
	.tool_added = handle_tool_added,
	.pad_added = handle_pad_added,
};

static void
bind_tablet(struct probe *probe)
{
	probe->tablet_manager = vt_client_bind(&probe->client, &zwp_tablet_manager_v2_interface, 1);
	if (!probe->tablet_manager)
		vt_die("no zwp_tablet_manager_v2");
	struct zwp_tablet_seat_v2 *seat =
		zwp_tablet_manager_v2_get_tablet_seat(probe->tablet_manager, probe->client.seat);
	zwp_tablet_seat_v2_add_listener(seat, &tablet_seat_listener, probe);
	wl_display_roundtrip(probe->client.display);
}

/* A window of a fixed size, a dialog: vellum leaves its size to it. */
static void
create_dialog(struct vt_client *c)
{
	vt_client_create_toplevel(c, "touch_probe");
	xdg_toplevel_set_min_size(c->toplevel, DIALOG_WIDTH, DIALOG_HEIGHT);
	xdg_toplevel_set_max_size(c->toplevel, DIALOG_WIDTH, DIALOG_HEIGHT);
	wl_surface_commit(c->surface);
	while (!c->configured)
		if (wl_display_dispatch(c->display) < 0)
			vt_die("dispatch failed before the first configure");
	c->width = DIALOG_WIDTH;
	c->height = DIALOG_HEIGHT;
}

int
main(int argc, char **argv)
{
	struct probe probe = {0};
	struct vt_client *c = &probe.client;

	if (argc != 4 && !(argc == 5 && (strcmp(argv[4], "tablet") == 0 ||
						strcmp(argv[4], "dialog") == 0))) {
		fprintf(stderr, "usage: touch_probe MARKER_X MARKER_Y EVENTS [tablet|dialog]\n");
		return 2;
	}
	probe.tablet = argc == 5 && strcmp(argv[4], "tablet") == 0;
	probe.dialog = argc == 5 && strcmp(argv[4], "dialog") == 0;
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
	if (probe.tablet)
		bind_tablet(&probe);
	if (probe.dialog)
		create_dialog(c);
	else
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
