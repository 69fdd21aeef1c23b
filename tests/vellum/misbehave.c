// SPDX-License-Identifier: MIT
/*
 * Clients that misbehave, and one that behaves, for the robustness test:
 *
 *   misbehave error          sends a request xdg-shell forbids (a second
 *                            role object for its xdg_surface); exits 0 once
 *                            the compositor ended it with a protocol error
 *   misbehave draw           draws frame after frame, waiting for each;
 *                            prints "drawing" after the first and never stops
 *   misbehave flood SECONDS  commits new content as fast as the socket takes
 *                            it, never waiting for a frame; prints
 *                            "flooded N commits" and exits 0
 *   misbehave roles N        destroys its xdg_toplevel and makes the
 *                            xdg_surface a toplevel again, with a popup
 *                            made and destroyed each time, N times, as
 *                            xdg-shell allows; prints "roles made again N"
 *                            then stays until killed
 *   misbehave windows N [tiny]  maps N windows of the panel's size, each
 *                            destroyed with its buffer as soon as it is
 *                            mapped (tiny: all show one 1x1 buffer); prints
 *                            "windows gone N" then stays until killed
 *   misbehave show           shows its left half black and right half white,
 *                            prints "shown" once that frame is done, then
 *                            stays until killed
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
protocol_error(struct vt_client *c)
{
	xdg_surface_get_toplevel(c->xdg_surface);
	if (wl_display_roundtrip(c->display) >= 0)
		vt_die("the compositor took a second toplevel for one xdg_surface");
	int error = wl_display_get_error(c->display);
	const struct wl_interface *interface;
	uint32_t id;
	uint32_t code = wl_display_get_protocol_error(c->display, &interface, &id);
	if (error != EPROTO)
		vt_die("the connection failed with %s, not a protocol error", strerror(error));
	vt_say("protocol error %u on %s@%u", code, interface ? interface->name : "?", id);
	return 0;
}

/* Stripes that move with each frame: every frame changes every row. */
static void
draw_stripes(struct vt_buffer *b, unsigned int frame)
{
	for (int32_t y = 0; y < b->height; y++)
		vt_buffer_fill(b, 0, y, b->width, 1, ((y / 8 + frame) % 2) ? VT_BLACK : VT_WHITE);
}

static struct vt_buffer *
free_buffer(struct vt_client *c, struct vt_buffer **buffers)
{
	for (;;) {
		for (int i = 0; i < 2; i++)
			if (!buffers[i]->busy)
				return buffers[i];
		if (wl_display_dispatch(c->display) < 0)
			vt_die("dispatch failed waiting for a buffer");
	}
}

static _Noreturn void
draw(struct vt_client *c)
{
	struct vt_buffer *buffers[2] = {
		vt_buffer_create(c, VT_WHITE), vt_buffer_create(c, VT_WHITE)};

	for (unsigned int frame = 0;; frame++) {
		struct vt_buffer *b = free_buffer(c, buffers);

		draw_stripes(b, frame);
		vt_client_commit(c, b);
		vt_client_wait_frame(c);
		if (frame == 0)
			vt_say("drawing");
	}
}

/*
 * Reads and dispatches what the compositor sent, without waiting. A client
 * that leaves its events unread long enough is disconnected: the
 * compositor's buffer for it has a bound.
 */
static void
read_events(struct vt_client *c)
{
	struct pollfd pfd = {.fd = wl_display_get_fd(c->display), .events = POLLIN};

	while (wl_display_prepare_read(c->display) != 0)
		if (wl_display_dispatch_pending(c->display) < 0)
			vt_die("dispatch failed: %s", strerror(wl_display_get_error(c->display)));
	if (poll(&pfd, 1, 0) > 0) {
		if (wl_display_read_events(c->display) < 0)
			vt_die("reading events failed: %s",
				strerror(wl_display_get_error(c->display)));
	} else {
		wl_display_cancel_read(c->display);
	}
	if (wl_display_dispatch_pending(c->display) < 0)
		vt_die("dispatch failed: %s", strerror(wl_display_get_error(c->display)));
}

/* Sends what is queued, reading events while it waits for room in the socket. */
static void
flush_all(struct vt_client *c)
{
	while (wl_display_flush(c->display) < 0) {
		if (errno != EAGAIN)
			vt_die("flush: %s", strerror(errno));
		struct pollfd pfd = {
			.fd = wl_display_get_fd(c->display), .events = POLLOUT | POLLIN};
		poll(&pfd, 1, 100);
		read_events(c);
	}
}

static int
flood(struct vt_client *c, double seconds)
{
	struct vt_buffer *buffers[2] = {
		vt_buffer_create(c, VT_WHITE), vt_buffer_create(c, VT_WHITE)};
	double end = now_s() + seconds;
	unsigned long commits = 0;

	while (now_s() < end) {
		struct vt_buffer *b = buffers[commits % 2];

		/* a rect that moves with each commit, drawn into a buffer the compositor may still
		 * hold */
		vt_buffer_fill(b, (int32_t)(commits * 7 % (unsigned long)b->width), 0, 8, b->height,
			commits % 3 ? VT_BLACK : VT_WHITE);
		vt_client_commit(c, b);
		commits++;
		flush_all(c);
		/* the frame callbacks and releases it asked for */
		read_events(c);
	}
	if (wl_display_roundtrip(c->display) < 0)
		vt_die("roundtrip failed after the flood: %s",
			strerror(wl_display_get_error(c->display)));
	vt_say("flooded %lu commits", commits);
	return 0;
}

static _Noreturn void
roles(struct vt_client *c, unsigned long n)
{
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	struct xdg_surface *popup_surface = xdg_wm_base_get_xdg_surface(c->wm_base, surface);
	struct xdg_positioner *positioner = xdg_wm_base_create_positioner(c->wm_base);

	xdg_positioner_set_size(positioner, 10, 10);
	xdg_positioner_set_anchor_rect(positioner, 0, 0, 1, 1);
	for (unsigned long i = 0; i < n; i++) {
		xdg_toplevel_destroy(c->toplevel);
		c->toplevel = xdg_surface_get_toplevel(c->xdg_surface);
		xdg_popup_destroy(xdg_surface_get_popup(popup_surface, c->xdg_surface, positioner));
		flush_all(c);
		if (i % 256 == 255 && wl_display_roundtrip(c->display) < 0)
			vt_die("roundtrip failed making roles again");
	}
	if (wl_display_roundtrip(c->display) < 0)
		vt_die("roundtrip failed after making roles again");
	vt_say("roles made again %lu", n);
	while (wl_display_dispatch(c->display) >= 0)
		;
	vt_die("the compositor went away");
}

/*
 * N windows, 64 at a time, each mapped and destroyed in one go, so that no
 * frame comes while it is shown: with tiny, all show one 1x1 buffer, else
 * each a buffer of its own of the panel's size, destroyed with it.
 */
static _Noreturn void
windows(struct vt_client *c, unsigned long n, bool tiny)
{
	enum { BATCH = 64 };
	struct vt_client w[BATCH];
	struct vt_buffer *shared = tiny ? vt_buffer_create_sized(c, 1, 1, VT_BLACK) : NULL;

	for (unsigned long done = 0; done < n;) {
		unsigned long k = n - done < BATCH ? n - done : BATCH;
		for (unsigned long i = 0; i < k; i++) {
			/* the connection and globals, with a window of its own */
			w[i] = *c;
			w[i].configured = false;
			vt_client_create_toplevel(&w[i], "misbehave");
			wl_surface_commit(w[i].surface);
		}
		for (unsigned long i = 0; i < k; i++)
			while (!w[i].configured)
				if (wl_display_dispatch(c->display) < 0)
					vt_die("dispatch failed before a window's configure");
		for (unsigned long i = 0; i < k; i++) {
			struct vt_buffer *b = shared ? shared : vt_buffer_create(&w[i], VT_BLACK);
			wl_surface_attach(w[i].surface, b->buffer, 0, 0);
			wl_surface_damage_buffer(w[i].surface, 0, 0, b->width, b->height);
			wl_surface_commit(w[i].surface);
			xdg_toplevel_destroy(w[i].toplevel);
			xdg_surface_destroy(w[i].xdg_surface);
			wl_surface_destroy(w[i].surface);
			if (!shared)
				vt_buffer_destroy(b);
			flush_all(c);
		}
		done += k;
	}
	if (wl_display_roundtrip(c->display) < 0)
		vt_die("roundtrip failed after the windows");
	vt_say("windows gone %lu", n);
	while (wl_display_dispatch(c->display) >= 0)
		;
	vt_die("the compositor went away");
}

static int
show(struct vt_client *c)
{
	struct vt_buffer *b = vt_buffer_create(c, VT_WHITE);

	vt_buffer_fill(b, 0, 0, b->width / 2, b->height, VT_BLACK);
	vt_client_commit(c, b);
	vt_client_wait_frame(c);
	vt_say("shown %d %d", c->width, c->height);
	while (wl_display_dispatch(c->display) >= 0)
		;
	vt_die("the compositor went away");
}

int
main(int argc, char **argv)
{
	struct vt_client client;

	if (argc < 2) {
		fprintf(stderr, "usage: misbehave error|draw|flood SECONDS|roles N|windows N "
				"[tiny]|show\n");
		return 2;
	}
	vt_client_connect(&client);
	vt_client_create_window(&client, "misbehave");
	if (!strcmp(argv[1], "error"))
		return protocol_error(&client);
	if (!strcmp(argv[1], "draw"))
		draw(&client);
	if (!strcmp(argv[1], "flood") && argc == 3)
		return flood(&client, atof(argv[2]));
	if (!strcmp(argv[1], "roles") && argc == 3)
		roles(&client, strtoul(argv[2], NULL, 10));
	if (!strcmp(argv[1], "windows") && (argc == 3 || (argc == 4 && !strcmp(argv[3], "tiny"))))
		windows(&client, strtoul(argv[2], NULL, 10), argc == 4);
	if (!strcmp(argv[1], "show"))
		return show(&client);
	fprintf(stderr, "misbehave: unknown mode %s\n", argv[1]);
	return 2;
}
