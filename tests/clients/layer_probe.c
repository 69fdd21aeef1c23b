// SPDX-License-Identifier: MIT
/*
 * A layer-shell client for vellum's tests: a black bar of HEIGHT rows in the
 * top layer, anchored to the bottom edge across the panel, with an exclusive
 * zone of its height, exclusive keyboard interactivity, and a 60x40 black
 * popup above its top edge, 20 px from the left. Prints "layer shown WxH"
 * once both are drawn, then stays SECONDS seconds and exits 0.
 *
 *   layer_probe HEIGHT SECONDS [top] [reposition] [ondemand] [remake]
 *
 * top: the bar is anchored to the top edge instead, its popup below it.
 * remake: once the popup is shown, a second black bar, 200xHEIGHT at the
 * right end of the same edge, without an exclusive zone (so beside the
 * first bar's zone), is shown, and the popup is made again from its
 * xdg_surface as the same popup of the second bar, as xdg-shell allows.
 * reposition: once shown, the popup asks to move to 20 px from the bar's
 * right end, which would put its right part past the panel's edge, and
 * allows the compositor to slide it; "popup at X,Y WxH" is printed for
 * every configure of the popup, in the bar's coordinates.
 * ondemand: the bar takes the keyboard on demand (when touched) instead;
 * the probe prints "seat touch yes" (or "no") as it starts, then "layer
 * keyboard enter" and "layer keyboard leave" as its keyboard focus changes,
 * and "layer touch bar" or "layer touch popup" for each touch down on one
 * of its surfaces.
 */
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "wlr-layer-shell-unstable-v1-client-protocol.h"

#define POPUP_W 60
#define POPUP_H 40

struct probe {
	struct vt_client client;
	uint32_t width, height;
	bool configured, popup_configured, repositioned;
	bool report_popup;
	int32_t popup_x, popup_y, popup_width, popup_height;
	struct wl_surface *bar_surface;
};

static void
handle_layer_configure(void *data, struct zwlr_layer_surface_v1 *layer, uint32_t serial,
	uint32_t width, uint32_t height)
{
	struct probe *p = data;

	zwlr_layer_surface_v1_ack_configure(layer, serial);
	p->width = width;
	p->height = height;
	p->configured = true;
}

static void
handle_layer_closed(void *data, struct zwlr_layer_surface_v1 *layer)
{
	struct probe *p = data;

	p->client.closed = true;
}

static const struct zwlr_layer_surface_v1_listener layer_listener = {
	.configure = handle_layer_configure,
	.closed = handle_layer_closed,
};

static void
handle_popup_surface_configure(void *data, struct xdg_surface *surface, uint32_t serial)
{
	struct probe *p = data;

	xdg_surface_ack_configure(surface, serial);
	p->popup_configured = true;
	if (p->report_popup)
		vt_say("popup at %d,%d %dx%d", p->popup_x, p->popup_y, p->popup_width,
			p->popup_height);
}

static const struct xdg_surface_listener popup_surface_listener = {
	.configure = handle_popup_surface_configure,
};

static void
handle_popup_configure(
	void *data, struct xdg_popup *popup, int32_t x, int32_t y, int32_t width, int32_t height)
{
	struct probe *p = data;

	p->popup_x = x;
	p->popup_y = y;
	p->popup_width = width;
	p->popup_height = height;
}

static void
handle_popup_done(void *data, struct xdg_popup *popup)
{
}

static void
handle_popup_repositioned(void *data, struct xdg_popup *popup, uint32_t token)
{
	struct probe *p = data;

	p->repositioned = true;
}

static const struct xdg_popup_listener popup_listener = {
	.configure = handle_popup_configure,
	.popup_done = handle_popup_done,
	.repositioned = handle_popup_repositioned,
};

/* On demand: where the keyboard and the touches go. */

static void
handle_keymap(void *data, struct wl_keyboard *keyboard, uint32_t format, int32_t fd, uint32_t size)
{
	close(fd);
}

static void
handle_keyboard_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial,
	struct wl_surface *surface, struct wl_array *keys)
{
	vt_say("layer keyboard enter");
}

static void
handle_keyboard_leave(
	void *data, struct wl_keyboard *keyboard, uint32_t serial, struct wl_surface *surface)
{
	vt_say("layer keyboard leave");
}

static void
handle_key(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t time, uint32_t key,
	uint32_t state)
{
}

static void
handle_modifiers(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t depressed,
	uint32_t latched, uint32_t locked, uint32_t group)
{
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

static void
handle_touch_down(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time,
	struct wl_surface *surface, int32_t id, wl_fixed_t x, wl_fixed_t y)
{
	struct probe *p = data;

	vt_say("layer touch %s", surface == p->bar_surface ? "bar" : "popup");
}

static void
handle_touch_up(void *data, struct wl_touch *touch, uint32_t serial, uint32_t time, int32_t id)
{
}

static void
handle_touch_motion(
	void *data, struct wl_touch *touch, uint32_t time, int32_t id, wl_fixed_t x, wl_fixed_t y)
{
}

static void
handle_touch_frame(void *data, struct wl_touch *touch)
{
}

static void
handle_touch_cancel(void *data, struct wl_touch *touch)
{
}

static void
handle_touch_shape(
	void *data, struct wl_touch *touch, int32_t id, wl_fixed_t major, wl_fixed_t minor)
{
}

static void
handle_touch_orientation(void *data, struct wl_touch *touch, int32_t id, wl_fixed_t orientation)
{
}

static const struct wl_touch_listener touch_listener = {
	.down = handle_touch_down,
	.up = handle_touch_up,
	.motion = handle_touch_motion,
	.frame = handle_touch_frame,
	.cancel = handle_touch_cancel,
	.shape = handle_touch_shape,
	.orientation = handle_touch_orientation,
};

/* Draws a black buffer of its size on surface and waits until the compositor showed it. */
static struct vt_buffer *
show_black(struct probe *p, struct wl_surface *surface, int32_t width, int32_t height)
{
	struct vt_buffer *buffer = vt_buffer_create_sized(&p->client, width, height, VT_BLACK);

	wl_surface_attach(surface, buffer->buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, width, height);
	vt_surface_commit_and_wait(&p->client, surface);
	return buffer;
}

int
main(int argc, char **argv)
{
	struct probe p = {0};
	bool top = false, reposition = false, on_demand = false, remake = false, known = true;

	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "top"))
			top = true;
		else if (!strcmp(argv[i], "reposition"))
			reposition = true;
		else if (!strcmp(argv[i], "ondemand"))
			on_demand = true;
		else if (!strcmp(argv[i], "remake"))
			remake = true;
		else
			known = false;
	}
	if (argc < 3 || !known || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: layer_probe HEIGHT SECONDS [top] [reposition] [ondemand] "
				"[remake]\n");
		return 2;
	}
	int bar_height = atoi(argv[1]), seconds = atoi(argv[2]);
	p.report_popup = reposition;
	vt_client_connect(&p.client);
	struct wl_display *display = p.client.display;
	struct zwlr_layer_shell_v1 *layer_shell =
		vt_client_bind(&p.client, &zwlr_layer_shell_v1_interface, 4);
	if (!layer_shell)
		vt_die("zwlr_layer_shell_v1 is missing");

	struct wl_keyboard *keyboard = NULL;
	struct wl_touch *touch = NULL;
	if (on_demand && p.client.seat) {
		keyboard = wl_seat_get_keyboard(p.client.seat);
		wl_keyboard_add_listener(keyboard, &keyboard_listener, &p);
		if (p.client.seat_caps & WL_SEAT_CAPABILITY_TOUCH) {
			touch = wl_seat_get_touch(p.client.seat);
			wl_touch_add_listener(touch, &touch_listener, &p);
		}
		vt_say("seat touch %s", touch ? "yes" : "no");
	}

	struct wl_surface *surface = wl_compositor_create_surface(p.client.compositor);
	p.bar_surface = surface;
	struct zwlr_layer_surface_v1 *layer = zwlr_layer_shell_v1_get_layer_surface(
		layer_shell, surface, NULL, ZWLR_LAYER_SHELL_V1_LAYER_TOP, "probe");
	zwlr_layer_surface_v1_add_listener(layer, &layer_listener, &p);
	zwlr_layer_surface_v1_set_size(layer, 0, (uint32_t)bar_height);
	zwlr_layer_surface_v1_set_anchor(layer,
		(top ? ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP : ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM) |
			ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT | ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT);
	zwlr_layer_surface_v1_set_exclusive_zone(layer, bar_height);
	zwlr_layer_surface_v1_set_keyboard_interactivity(
		layer, on_demand ? ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_ON_DEMAND
				 : ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_EXCLUSIVE);
	wl_surface_commit(surface);
	while (!p.configured && !p.client.closed && wl_display_dispatch(display) >= 0)
		;
	if (p.client.closed || p.width == 0 || p.height != (uint32_t)bar_height) {
		fprintf(stderr, "configured %ux%u, not the panel's width x %d\n", p.width, p.height,
			bar_height);
		return 1;
	}
	struct vt_buffer *bar = show_black(&p, surface, (int32_t)p.width, bar_height);

	/* the popup, above the bar's top edge (below its bottom one for a bar on top) */
	struct wl_surface *popup_surface = wl_compositor_create_surface(p.client.compositor);
	struct xdg_surface *xdg_popup_surface =
		xdg_wm_base_get_xdg_surface(p.client.wm_base, popup_surface);
	xdg_surface_add_listener(xdg_popup_surface, &popup_surface_listener, &p);
	struct xdg_positioner *positioner = xdg_wm_base_create_positioner(p.client.wm_base);
	xdg_positioner_set_size(positioner, POPUP_W, POPUP_H);
	int32_t anchor_y = top ? bar_height - 1 : 0;
	enum xdg_positioner_gravity gravity =
		top ? XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT : XDG_POSITIONER_GRAVITY_TOP_RIGHT;
	xdg_positioner_set_anchor_rect(positioner, 20, anchor_y, 1, 1);
	xdg_positioner_set_anchor(positioner, XDG_POSITIONER_ANCHOR_TOP_LEFT);
	xdg_positioner_set_gravity(positioner, gravity);
	struct xdg_popup *popup = xdg_surface_get_popup(xdg_popup_surface, NULL, positioner);
	xdg_popup_add_listener(popup, &popup_listener, &p);
	zwlr_layer_surface_v1_get_popup(layer, popup);
	xdg_positioner_destroy(positioner);
	wl_surface_commit(popup_surface);
	while (!p.popup_configured && !p.client.closed && wl_display_dispatch(display) >= 0)
		;
	struct vt_buffer *popup_buffer = show_black(&p, popup_surface, POPUP_W, POPUP_H);
	if (reposition) {
		positioner = xdg_wm_base_create_positioner(p.client.wm_base);
		xdg_positioner_set_size(positioner, POPUP_W, POPUP_H);
		xdg_positioner_set_anchor_rect(positioner, (int32_t)p.width - 20, anchor_y, 1, 1);
		xdg_positioner_set_anchor(positioner, XDG_POSITIONER_ANCHOR_TOP_LEFT);
		xdg_positioner_set_gravity(positioner, gravity);
		xdg_positioner_set_constraint_adjustment(
			positioner, XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_X);
		p.popup_configured = false;
		xdg_popup_reposition(popup, positioner, 1);
		xdg_positioner_destroy(positioner);
		while ((!p.repositioned || !p.popup_configured) && !p.client.closed &&
			wl_display_dispatch(display) >= 0)
			;
		wl_surface_damage_buffer(popup_surface, 0, 0, POPUP_W, POPUP_H);
		vt_surface_commit_and_wait(&p.client, popup_surface);
	}
	struct zwlr_layer_surface_v1 *second = NULL;
	struct wl_surface *second_surface = NULL;
	struct vt_buffer *second_bar = NULL;
	if (remake) {
		second_surface = wl_compositor_create_surface(p.client.compositor);
		second = zwlr_layer_shell_v1_get_layer_surface(
			layer_shell, second_surface, NULL, ZWLR_LAYER_SHELL_V1_LAYER_TOP, "probe");
		p.configured = false;
		zwlr_layer_surface_v1_add_listener(second, &layer_listener, &p);
		zwlr_layer_surface_v1_set_size(second, 200, (uint32_t)bar_height);
		zwlr_layer_surface_v1_set_anchor(
			second, (top ? ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP
				     : ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM) |
					ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT);
		wl_surface_commit(second_surface);
		while (!p.configured && !p.client.closed && wl_display_dispatch(display) >= 0)
			;
		second_bar = show_black(&p, second_surface, 200, bar_height);
		/* unmapped, its role object gone, then a popup again, of the second bar */
		wl_surface_attach(popup_surface, NULL, 0, 0);
		wl_surface_commit(popup_surface);
		xdg_popup_destroy(popup);
		positioner = xdg_wm_base_create_positioner(p.client.wm_base);
		xdg_positioner_set_size(positioner, POPUP_W, POPUP_H);
		xdg_positioner_set_anchor_rect(positioner, 20, anchor_y, 1, 1);
		xdg_positioner_set_anchor(positioner, XDG_POSITIONER_ANCHOR_TOP_LEFT);
		xdg_positioner_set_gravity(positioner, gravity);
		popup = xdg_surface_get_popup(xdg_popup_surface, NULL, positioner);
		xdg_popup_add_listener(popup, &popup_listener, &p);
		zwlr_layer_surface_v1_get_popup(second, popup);
		xdg_positioner_destroy(positioner);
		p.popup_configured = false;
		wl_surface_commit(popup_surface);
		while (!p.popup_configured && !p.client.closed && wl_display_dispatch(display) >= 0)
			;
		wl_surface_attach(popup_surface, popup_buffer->buffer, 0, 0);
		wl_surface_damage_buffer(popup_surface, 0, 0, POPUP_W, POPUP_H);
		vt_surface_commit_and_wait(&p.client, popup_surface);
	}
	vt_say("layer shown %ux%u", p.width, p.height);

	/* stays, answering the compositor, for the time asked */
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		wl_display_flush(display);
		struct pollfd pfd = {.fd = wl_display_get_fd(display), .events = POLLIN};
		if (poll(&pfd, 1, 100) > 0 && wl_display_dispatch(display) < 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - start.tv_sec < seconds);

	xdg_popup_destroy(popup);
	xdg_surface_destroy(xdg_popup_surface);
	wl_surface_destroy(popup_surface);
	vt_buffer_destroy(popup_buffer);
	if (touch)
		wl_touch_release(touch);
	if (keyboard)
		wl_keyboard_release(keyboard);
	if (second) {
		zwlr_layer_surface_v1_destroy(second);
		wl_surface_destroy(second_surface);
		vt_buffer_destroy(second_bar);
	}
	zwlr_layer_surface_v1_destroy(layer);
	wl_surface_destroy(surface);
	vt_buffer_destroy(bar);
	zwlr_layer_shell_v1_destroy(layer_shell);
	vt_client_disconnect(&p.client);
	return 0;
}
