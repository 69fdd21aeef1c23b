// SPDX-License-Identifier: MIT
/*
 * A stand-in for epaper-paint until it lands: a fullscreen white window that
 * inks where the pen (the pointer vellum makes of it) moves while pressed.
 *
 *   epaper_paint DIR
 *
 * Creates DIR/ready once its first frame was shown. Each pointer event
 * that adds ink is committed at once with the damage of the new segment
 * only, into the one buffer it draws on: ink is only ever added, so what
 * the compositor reads of it is the old or the new picture, never another.
 */
#include <stdio.h>
#include <stdlib.h>

#include "client.h"

#define PEN_WIDTH 3

struct paint {
	struct vt_client client;
	struct wl_pointer *pointer;
	struct vt_buffer *canvas;
	double x, y;
	bool down;
};

/* Inks the segment from the last point to (x, y) and commits its damage. */
static void
ink_to(struct paint *p, double x, double y)
{
	int x0 = (int)p->x, y0 = (int)p->y, x1 = (int)x, y1 = (int)y;
	int steps = abs(x1 - x0) > abs(y1 - y0) ? abs(x1 - x0) : abs(y1 - y0);

	for (int i = 0; i <= steps; i++) {
		int px = steps ? x0 + (x1 - x0) * i / steps : x0;
		int py = steps ? y0 + (y1 - y0) * i / steps : y0;

		vt_buffer_fill(p->canvas, px - PEN_WIDTH / 2, py - PEN_WIDTH / 2, PEN_WIDTH,
			PEN_WIDTH, VT_BLACK);
	}
	int left = (x0 < x1 ? x0 : x1) - PEN_WIDTH, top = (y0 < y1 ? y0 : y1) - PEN_WIDTH;
	wl_surface_attach(p->client.surface, p->canvas->buffer, 0, 0);
	wl_surface_damage_buffer(p->client.surface, left, top, abs(x1 - x0) + 2 * PEN_WIDTH,
		abs(y1 - y0) + 2 * PEN_WIDTH);
	wl_surface_commit(p->client.surface);
	wl_display_flush(p->client.display);
	p->x = x;
	p->y = y;
}

static void
handle_enter(void *data, struct wl_pointer *pointer, uint32_t serial, struct wl_surface *surface,
	wl_fixed_t x, wl_fixed_t y)
{
	struct paint *p = data;
	(void)pointer;
	(void)serial;
	(void)surface;

	p->x = wl_fixed_to_double(x);
	p->y = wl_fixed_to_double(y);
}

static void
handle_leave(void *data, struct wl_pointer *pointer, uint32_t serial, struct wl_surface *surface)
{
	struct paint *p = data;
	(void)pointer;
	(void)serial;
	(void)surface;

	p->down = false;
}

static void
handle_motion(void *data, struct wl_pointer *pointer, uint32_t time, wl_fixed_t x, wl_fixed_t y)
{
	struct paint *p = data;
	(void)pointer;
	(void)time;

	if (p->down) {
		ink_to(p, wl_fixed_to_double(x), wl_fixed_to_double(y));
	} else {
		p->x = wl_fixed_to_double(x);
		p->y = wl_fixed_to_double(y);
	}
}

static void
handle_button(void *data, struct wl_pointer *pointer, uint32_t serial, uint32_t time,
	uint32_t button, uint32_t state)
{
	struct paint *p = data;
	(void)pointer;
	(void)serial;
	(void)time;
	(void)button;

	p->down = state == WL_POINTER_BUTTON_STATE_PRESSED;
	if (p->down)
		ink_to(p, p->x, p->y);
}

static void
handle_axis(void *data, struct wl_pointer *pointer, uint32_t time, uint32_t axis, wl_fixed_t value)
{
	(void)data;
	(void)pointer;
	(void)time;
	(void)axis;
	(void)value;
}

static const struct wl_pointer_listener pointer_listener = {
	.enter = handle_enter,
	.leave = handle_leave,
	.motion = handle_motion,
	.button = handle_button,
	.axis = handle_axis,
};

int
main(int argc, char **argv)
{
	struct paint p = {0};
	char *path;

	if (argc != 2) {
		fprintf(stderr, "usage: epaper_paint DIR\n");
		return 2;
	}
	vt_client_connect(&p.client);
	if (!p.client.seat || !(p.client.seat_caps & WL_SEAT_CAPABILITY_POINTER))
		vt_die("no pointer: the pen did not reach vellum's seat");
	p.pointer = wl_seat_get_pointer(p.client.seat);
	wl_pointer_add_listener(p.pointer, &pointer_listener, &p);
	vt_client_create_window(&p.client, "epaper_paint");
	p.canvas = vt_buffer_create(&p.client, VT_WHITE);
	vt_client_commit(&p.client, p.canvas);
	vt_client_wait_frame(&p.client);
	if (asprintf(&path, "%s/ready", argv[1]) < 0)
		vt_die("out of memory");
	FILE *ready = fopen(path, "w");
	if (!ready)
		vt_die("cannot create %s", path);
	fclose(ready);
	free(path);
	while (wl_display_dispatch(p.client.display) >= 0)
		;
	vt_die("the compositor went away");
}
