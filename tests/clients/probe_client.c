// SPDX-License-Identifier: MIT
/*
 * A Wayland client for vellum's tests and benchmark: a fullscreen shm window
 * that commits COUNT frames, each after the previous one's frame callback,
 * and prints the CLOCK_MONOTONIC time of every commit, one per line.
 *
 *   probe_client MODE COUNT
 *
 * full: every pixel changes (black and white alternate); char: one more
 * 10x20 black cell on a line of text, as a typed character; gray and photo:
 * a gray block, the window declaring no content type or "photo"; dialog: a
 * 200x100 black dialog (a toplevel with the window as parent) and a 50x50
 * black subsurface at 10,10 of the window; it prints "activated window=W
 * dialog=D" (1 or 0, as the last configures said) before the dialog and once
 * the dialog is shown.
 *
 *   probe_client maximize|popup 0
 *
 * maximize: asks for the window to be maximized, then not, and prints
 * "set_maximized: configure" (or "no configure") and the same for
 * unset_maximized, as the compositor answered before two round trips ended.
 * popup: a 60x40 black popup, then moved to 20 px from the window's right
 * edge, which the compositor may slide; prints "popup at X,Y WxH" for each
 * of its configures.
 *
 *   probe_client repopup
 *
 * A white window with a white popup at 300,200 and a black one at 20,20;
 * the black one is unmapped, its xdg_popup destroyed, and its xdg_surface
 * made a popup again at 20,20 of the white popup (320,220 of the window),
 * as xdg-shell allows. Prints "repopup shown" once that frame is done, then
 * stays until killed.
 *
 *   probe_client resize
 *
 * A white window that follows every configure, printing "configure WxH"
 * for each, and "keyboard enter" or "keyboard leave" when its keyboard
 * focus changes, until the compositor closes it or the probe is killed.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "content-type-v1-client-protocol.h"

/*
 * Two round trips: what the compositor schedules while handling a request
 * (a configure goes out once it is idle) has been received by the end of
 * the second.
 */
static void
settle(struct vt_client *c)
{
	if (wl_display_roundtrip(c->display) < 0 || wl_display_roundtrip(c->display) < 0)
		vt_die("roundtrip failed");
}

/* A dialog and a subsurface over the window, then a last frame to be sure they are shown. */
static void
show_dialog(struct vt_client *c, struct wl_subcompositor *subcompositor, struct vt_buffer *window)
{
	struct wl_surface *sub_surface = wl_compositor_create_surface(c->compositor);
	struct wl_subsurface *sub =
		wl_subcompositor_get_subsurface(subcompositor, sub_surface, c->surface);
	wl_subsurface_set_position(sub, 10, 10);
	struct vt_buffer *sub_buffer = vt_buffer_create_sized(c, 50, 50, VT_BLACK);
	wl_surface_attach(sub_surface, sub_buffer->buffer, 0, 0);
	wl_surface_commit(sub_surface);

	settle(c);
	vt_say("activated window=%d dialog=0", c->activated);
	/* a toplevel of its own with the window as its parent */
	struct vt_client dialog = *c;
	dialog.configured = false;
	dialog.activated = false;
	dialog.width = dialog.height = 0;
	vt_client_create_toplevel(&dialog, "probe_client-dialog");
	xdg_toplevel_set_parent(dialog.toplevel, c->toplevel);
	wl_surface_commit(dialog.surface);
	while (!dialog.configured && wl_display_dispatch(c->display) >= 0)
		;
	struct vt_buffer *dialog_buffer = vt_buffer_create_sized(c, 200, 100, VT_BLACK);
	wl_surface_attach(dialog.surface, dialog_buffer->buffer, 0, 0);
	wl_surface_damage_buffer(dialog.surface, 0, 0, 200, 100);
	vt_surface_commit_and_wait(c, dialog.surface);
	settle(c);
	vt_say("activated window=%d dialog=%d", c->activated, dialog.activated);
	vt_client_commit(c, window);
	vt_client_wait_frame(c);

	xdg_toplevel_destroy(dialog.toplevel);
	xdg_surface_destroy(dialog.xdg_surface);
	wl_surface_destroy(dialog.surface);
	vt_buffer_destroy(dialog_buffer);
	wl_subsurface_destroy(sub);
	wl_surface_destroy(sub_surface);
	vt_buffer_destroy(sub_buffer);
}

/* Each request must be answered by a configure (xdg-shell). */
static void
maximize(struct vt_client *c)
{
	c->configured = false;
	xdg_toplevel_set_maximized(c->toplevel);
	settle(c);
	vt_say("set_maximized: %s", c->configured ? "configure" : "no configure");
	c->configured = false;
	xdg_toplevel_unset_maximized(c->toplevel);
	settle(c);
	vt_say("unset_maximized: %s", c->configured ? "configure" : "no configure");
}

struct popup {
	int32_t x, y, width, height;
	bool configured, repositioned;
};

static void
handle_popup_surface_configure(void *data, struct xdg_surface *surface, uint32_t serial)
{
	struct popup *popup = data;

	xdg_surface_ack_configure(surface, serial);
	popup->configured = true;
	vt_say("popup at %d,%d %dx%d", popup->x, popup->y, popup->width, popup->height);
}

static const struct xdg_surface_listener popup_surface_listener = {
	.configure = handle_popup_surface_configure,
};

static void
handle_popup_configure(void *data, struct xdg_popup *xdg_popup, int32_t x, int32_t y, int32_t width,
	int32_t height)
{
	struct popup *popup = data;

	popup->x = x;
	popup->y = y;
	popup->width = width;
	popup->height = height;
}

static void
handle_popup_done(void *data, struct xdg_popup *xdg_popup)
{
}

static void
handle_popup_repositioned(void *data, struct xdg_popup *xdg_popup, uint32_t token)
{
	struct popup *popup = data;

	popup->repositioned = true;
}

static const struct xdg_popup_listener popup_listener = {
	.configure = handle_popup_configure,
	.popup_done = handle_popup_done,
	.repositioned = handle_popup_repositioned,
};

/* A positioner for the 60x40 popup below and right of x,y of the window, slid to fit. */
static struct xdg_positioner *
popup_positioner(struct vt_client *c, int32_t x, int32_t y)
{
	struct xdg_positioner *positioner = xdg_wm_base_create_positioner(c->wm_base);

	xdg_positioner_set_size(positioner, 60, 40);
	xdg_positioner_set_anchor_rect(positioner, x, y, 1, 1);
	xdg_positioner_set_anchor(positioner, XDG_POSITIONER_ANCHOR_TOP_LEFT);
	xdg_positioner_set_gravity(positioner, XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT);
	xdg_positioner_set_constraint_adjustment(
		positioner, XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_X |
				    XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_Y);
	return positioner;
}

/* A popup shown at 20,20 of the window, then moved to its right edge. */
static void
show_popup(struct vt_client *c)
{
	struct popup popup = {0};
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	struct xdg_surface *xdg_surface = xdg_wm_base_get_xdg_surface(c->wm_base, surface);
	xdg_surface_add_listener(xdg_surface, &popup_surface_listener, &popup);
	struct xdg_positioner *positioner = popup_positioner(c, 20, 20);
	struct xdg_popup *xdg_popup =
		xdg_surface_get_popup(xdg_surface, c->xdg_surface, positioner);
	xdg_positioner_destroy(positioner);
	xdg_popup_add_listener(xdg_popup, &popup_listener, &popup);
	wl_surface_commit(surface);
	while (!popup.configured && wl_display_dispatch(c->display) >= 0)
		;
	struct vt_buffer *buffer = vt_buffer_create_sized(c, 60, 40, VT_BLACK);
	wl_surface_attach(surface, buffer->buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, 60, 40);
	vt_surface_commit_and_wait(c, surface);

	popup.configured = false;
	positioner = popup_positioner(c, c->width - 20, 20);
	xdg_popup_reposition(xdg_popup, positioner, 1);
	xdg_positioner_destroy(positioner);
	while ((!popup.configured || !popup.repositioned) && wl_display_dispatch(c->display) >= 0)
		;
	wl_surface_damage_buffer(surface, 0, 0, 60, 40);
	vt_surface_commit_and_wait(c, surface);

	xdg_popup_destroy(xdg_popup);
	xdg_surface_destroy(xdg_surface);
	wl_surface_destroy(surface);
	vt_buffer_destroy(buffer);
}

/*
 * A popup of parent at x,y of it, 60x40, mapped with buffer; state is the
 * data of xdg_surface's listener.
 */
static struct xdg_popup *
map_popup(struct vt_client *c, struct wl_surface *surface, struct xdg_surface *xdg_surface,
	struct popup *state, struct xdg_surface *parent, int32_t x, int32_t y,
	struct vt_buffer *buffer)
{
	struct xdg_positioner *positioner = popup_positioner(c, x, y);
	struct xdg_popup *xdg_popup = xdg_surface_get_popup(xdg_surface, parent, positioner);

	xdg_positioner_destroy(positioner);
	state->configured = false;
	xdg_popup_add_listener(xdg_popup, &popup_listener, state);
	wl_surface_commit(surface);
	while (!state->configured && wl_display_dispatch(c->display) >= 0)
		;
	wl_surface_attach(surface, buffer->buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, 60, 40);
	vt_surface_commit_and_wait(c, surface);
	return xdg_popup;
}

/*
 * A popup made again, under another parent, from the same xdg_surface: only
 * the new one is shown.
 */
static _Noreturn void
repopup(struct vt_client *c)
{
	struct popup parent_state = {0}, state = {0};
	struct vt_buffer *white = vt_buffer_create_sized(c, 60, 40, VT_WHITE);
	struct vt_buffer *black = vt_buffer_create_sized(c, 60, 40, VT_BLACK);
	struct wl_surface *parent_surface = wl_compositor_create_surface(c->compositor);
	struct xdg_surface *parent = xdg_wm_base_get_xdg_surface(c->wm_base, parent_surface);
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	struct xdg_surface *xdg_surface = xdg_wm_base_get_xdg_surface(c->wm_base, surface);

	xdg_surface_add_listener(parent, &popup_surface_listener, &parent_state);
	xdg_surface_add_listener(xdg_surface, &popup_surface_listener, &state);
	map_popup(c, parent_surface, parent, &parent_state, c->xdg_surface, 300, 200, white);
	struct xdg_popup *xdg_popup =
		map_popup(c, surface, xdg_surface, &state, c->xdg_surface, 20, 20, black);
	/* unmapped, then its role object gone */
	wl_surface_attach(surface, NULL, 0, 0);
	wl_surface_commit(surface);
	xdg_popup_destroy(xdg_popup);
	map_popup(c, surface, xdg_surface, &state, parent, 20, 20, black);
	vt_say("repopup shown");
	while (wl_display_dispatch(c->display) >= 0)
		;
	vt_die("the compositor went away");
}

/* Keyboard focus, reported; keys are not needed. */

static void
handle_keymap(void *data, struct wl_keyboard *keyboard, uint32_t format, int32_t fd, uint32_t size)
{
	close(fd);
}

static void
handle_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial, struct wl_surface *surface,
	struct wl_array *keys)
{
	vt_say("keyboard enter");
}

static void
handle_leave(void *data, struct wl_keyboard *keyboard, uint32_t serial, struct wl_surface *surface)
{
	vt_say("keyboard leave");
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
	.enter = handle_enter,
	.leave = handle_leave,
	.key = handle_key,
	.modifiers = handle_modifiers,
	.repeat_info = handle_repeat_info,
};

/* A white window redrawn at the size of every configure, until closed. */
static int
follow_configures(struct vt_client *c)
{
	int shown_width = 0, shown_height = 0;

	/* vellum's seat always has a keyboard */
	if (c->seat)
		wl_keyboard_add_listener(wl_seat_get_keyboard(c->seat), &keyboard_listener, c);
	while (!c->closed) {
		if (c->width != shown_width || c->height != shown_height) {
			shown_width = c->width;
			shown_height = c->height;
			vt_say("configure %dx%d", shown_width, shown_height);
			struct vt_buffer *buffer = vt_buffer_create(c, VT_WHITE);
			vt_client_commit(c, buffer);
			vt_buffer_destroy(buffer);
		}
		if (wl_display_dispatch(c->display) < 0)
			return 1;
	}
	return 0;
}

/*
 * Draws frame i of the timed modes into b; the rect that changed goes to
 * *damage.
 */
static void
draw_frame(struct vt_client *c, struct vt_buffer *b, const char *mode, int i, int32_t damage[4])
{
	int32_t x = 0, y = 0, w = b->width, h = b->height;

	if (i > 0 && (strcmp(mode, "gray") == 0 || strcmp(mode, "photo") == 0)) {
		/* a block of mid gray, in a new place each frame */
		x = 20 + (i * 50) % (c->width - 100);
		y = 20;
		w = h = 40;
		vt_buffer_fill(b, x, y, w, h, 0xff808080);
	} else if (strcmp(mode, "full") == 0 || i == 0) {
		vt_buffer_fill(b, x, y, w, h, i % 2 == 0 ? VT_WHITE : VT_BLACK);
	} else {
		/* the next character cell, line after line */
		int per_line = (c->width - 20) / 12;
		x = 10 + (i % per_line) * 12;
		y = 10 + (i / per_line) * 24;
		w = 10;
		h = 20;
		vt_buffer_fill(b, x, y, w, h, VT_BLACK);
	}
	damage[0] = x;
	damage[1] = y;
	damage[2] = w;
	damage[3] = h;
}

int
main(int argc, char **argv)
{
	struct vt_client c;

	const char *mode = argc == 3 ? argv[1] : argc == 2 ? argv[1] : "";
	bool resize = argc == 2 && strcmp(mode, "resize") == 0;
	bool repopup_mode = argc == 2 && strcmp(mode, "repopup") == 0;
	if (!resize && !repopup_mode &&
		(argc != 3 ||
			(strcmp(mode, "full") && strcmp(mode, "char") && strcmp(mode, "gray") &&
				strcmp(mode, "photo") && strcmp(mode, "dialog") &&
				strcmp(mode, "maximize") && strcmp(mode, "popup")))) {
		fprintf(stderr, "usage: probe_client full|char|gray|photo|dialog COUNT\n"
				"       probe_client maximize|popup 0\n"
				"       probe_client resize|repopup\n");
		return 2;
	}
	int count = argc == 3 ? atoi(argv[2]) : 0;
	vt_client_connect(&c);
	struct wl_subcompositor *subcompositor = vt_client_bind(&c, &wl_subcompositor_interface, 1);
	struct wp_content_type_manager_v1 *content_type_manager =
		vt_client_bind(&c, &wp_content_type_manager_v1_interface, 1);
	if (!subcompositor || !content_type_manager)
		vt_die("wl_subcompositor or wp_content_type_manager_v1 is missing");
	vt_client_create_toplevel(&c, "probe_client");
	struct wp_content_type_v1 *content_type = NULL;
	if (strcmp(mode, "photo") == 0) {
		content_type = wp_content_type_manager_v1_get_surface_content_type(
			content_type_manager, c.surface);
		wp_content_type_v1_set_content_type(content_type, WP_CONTENT_TYPE_V1_TYPE_PHOTO);
	}
	vt_client_wait_configure(&c);
	if (resize)
		return follow_configures(&c);

	/* one buffer drawn over and over: the compositor reads it before the frame is done */
	struct vt_buffer *buffer = vt_buffer_create(&c, VT_WHITE);
	for (int i = 0; i <= count && !c.closed; i++) {
		struct timespec now;
		int32_t damage[4];
		draw_frame(&c, buffer, mode, i, damage);
		clock_gettime(CLOCK_MONOTONIC, &now);
		vt_client_commit_rect(&c, buffer, damage[0], damage[1], damage[2], damage[3]);
		wl_display_flush(c.display);
		/* the first frame maps the window; it is not measured */
		if (i > 0)
			printf("commit ns=%lld\n",
				(long long)now.tv_sec * 1000000000 + now.tv_nsec);
		vt_client_wait_frame(&c);
	}
	if (strcmp(mode, "dialog") == 0)
		show_dialog(&c, subcompositor, buffer);
	else if (strcmp(mode, "maximize") == 0)
		maximize(&c);
	else if (strcmp(mode, "popup") == 0)
		show_popup(&c);
	else if (repopup_mode)
		repopup(&c);
	fflush(stdout);
	vt_buffer_destroy(buffer);
	if (content_type)
		wp_content_type_v1_destroy(content_type);
	wp_content_type_manager_v1_destroy(content_type_manager);
	wl_subcompositor_destroy(subcompositor);
	vt_client_disconnect(&c);
	return 0;
}
