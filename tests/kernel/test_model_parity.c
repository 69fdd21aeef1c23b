// SPDX-License-Identifier: MIT
/*
 * One panel model: the same scripted sessions on epdfb and on its model in
 * userspace (panel-model/, the driver's sources behind a kernel shim) give
 * the same updates (rects, waveforms, modes, flags, merges, collisions,
 * flashes, in the same order) and the same panel, pixel for pixel, ghosts
 * included. One session waits for each update: every waveform, AUTO on
 * two-level and gray content, inversion, monochrome and dithering flags.
 * The other sends a burst while a slow flash runs, so that updates
 * collide, wait and merge as the queue decides.
 */
#include "epd_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panel-model.h"

#define W 320
#define H 240

static struct epd dev;

enum step_kind { STEP_FILL, STEP_RAMP, STEP_UPDATE, STEP_WAIT, STEP_WAIT_ALL };

struct step {
	enum step_kind kind;
	uint32_t left, top, width, height;
	uint8_t gray;            /* FILL */
	uint32_t waveform, mode; /* UPDATE */
	uint32_t marker, flags;  /* UPDATE, WAIT */
};

#define FILL(l, t, w, h, g) {STEP_FILL, l, t, w, h, g, 0, 0, 0, 0}
#define RAMP(l, t, w, h)    {STEP_RAMP, l, t, w, h, 0, 0, 0, 0, 0}
#define UPDATE(l, t, w, h, wf, m, mk, f) \
	{STEP_UPDATE, l, t, w, h, 0, WAVEFORM_MODE_##wf, UPDATE_MODE_##m, mk, f}
#define WAIT(mk) {STEP_WAIT, 0, 0, 0, 0, 0, 0, 0, mk, 0}
#define WAIT_ALL {STEP_WAIT_ALL, 0, 0, 0, 0, 0, 0, 0, 0, 0}

/* Each update waited for: the waveforms, AUTO's choices and the flags. */
static const struct step one_by_one[] = {
	FILL(0, 0, W, H, 0xff),
	UPDATE(0, 0, W, H, GC16, FULL, 1, 0),
	WAIT(1),
	FILL(10, 10, 60, 40, 0x00),
	UPDATE(10, 10, 60, 40, DU, PARTIAL, 2, 0),
	WAIT(2),
	RAMP(80, 10, 160, 40),
	UPDATE(80, 10, 160, 40, GL16, PARTIAL, 3, 0),
	WAIT(3),
	FILL(10, 60, 60, 40, 0x00),
	UPDATE(10, 60, 60, 40, AUTO, PARTIAL, 4, 0),
	WAIT(4),
	RAMP(80, 60, 160, 40),
	UPDATE(80, 60, 160, 40, AUTO, PARTIAL, 5, 0),
	WAIT(5),
	FILL(10, 10, 60, 40, 0xff),
	UPDATE(10, 10, 60, 40, A2, PARTIAL, 6, 0),
	WAIT(6),
	RAMP(10, 110, 300, 30),
	UPDATE(10, 110, 300, 30, GC4, FULL, 7, 0),
	WAIT(7),
	UPDATE(10, 150, 300, 30, GC16, PARTIAL, 8, EPDC_FLAG_ENABLE_INVERSION),
	WAIT(8),
	RAMP(10, 150, 300, 30),
	UPDATE(10, 150, 300, 30, GL16, PARTIAL, 9, EPDC_FLAG_FORCE_MONOCHROME),
	WAIT(9),
	RAMP(10, 190, 140, 40),
	UPDATE(10, 190, 140, 40, DU, PARTIAL, 10, EPDC_FLAG_USE_DITHERING_Y1),
	WAIT(10),
	RAMP(170, 190, 140, 40),
	UPDATE(170, 190, 140, 40, GC4, PARTIAL, 11, EPDC_FLAG_USE_DITHERING_Y4),
	WAIT(11),
	UPDATE(200, 0, 100, 50, INIT, FULL, 12, 0),
	WAIT(12),
};

/*
 * Pixels first, then a slow full flash and, while it runs, updates over it
 * (they collide and wait), beside each other (they merge), and clear of it
 * (they start at once).
 */
static const struct step burst[] = {
	FILL(0, 0, W, H, 0xff),
	FILL(20, 20, 40, 40, 0x00),
	RAMP(60, 20, 100, 40),
	FILL(200, 150, 100, 60, 0x00),
	UPDATE(0, 0, 180, 120, GC16, FULL, 21, 0),
	UPDATE(20, 20, 40, 20, DU, PARTIAL, 22, 0),
	UPDATE(20, 40, 40, 20, DU, PARTIAL, 23, 0),
	UPDATE(60, 20, 100, 40, GL16, PARTIAL, 24, 0),
	UPDATE(200, 150, 50, 60, DU, PARTIAL, 25, 0),
	UPDATE(250, 150, 50, 60, DU, PARTIAL, 26, 0),
	UPDATE(100, 100, 150, 60, GL16, PARTIAL, 27, 0),
	UPDATE(0, 200, W, 40, A2, PARTIAL, 28, 0),
	WAIT_ALL,
};

static void
model_fill(struct vl_panel_model *model, const struct step *s, bool ramp)
{
	uint8_t *pixels = vl_panel_model_pixels(model);

	for (uint32_t y = s->top; y < s->top + s->height; y++)
		for (uint32_t x = s->left; x < s->left + s->width; x++)
			pixels[(size_t)y * W + x] =
				ramp ? (uint8_t)((x - s->left) * 255 / s->width) : s->gray;
}

static void
device_fill(struct epd *d, const struct step *s, bool ramp)
{
	for (uint32_t y = s->top; y < s->top + s->height; y++)
		for (uint32_t x = s->left; x < s->left + s->width; x++)
			epd_put(d, x, y,
				ramp ? (uint8_t)((x - s->left) * 255 / s->width) : s->gray);
}

/* Runs the session on both; every call must give the same result on both. */
static void
run(struct epd *d, struct vl_panel_model *model, const struct step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct step *s = &steps[i];
		struct mxcfb_update_data update = {
			.update_region = {.top = s->top,
				.left = s->left,
				.width = s->width,
				.height = s->height},
			.waveform_mode = s->waveform,
			.update_mode = s->mode,
			.update_marker = s->marker,
			.temp = TEMP_USE_AMBIENT,
			.flags = s->flags,
		};
		uint32_t device_collided = 0, model_collided = 0;

		switch (s->kind) {
		case STEP_FILL:
		case STEP_RAMP:
			device_fill(d, s, s->kind == STEP_RAMP);
			model_fill(model, s, s->kind == STEP_RAMP);
			break;
		case STEP_UPDATE:
			CHECK_EQ(epd_update(d, s->left, s->top, s->width, s->height, s->waveform,
					 s->mode, s->marker, TEMP_USE_AMBIENT, s->flags),
				0);
			CHECK_EQ(vl_panel_model_submit(model, &update), 0);
			break;
		case STEP_WAIT:
			CHECK_EQ(epd_wait(d, s->marker, &device_collided), 0);
			CHECK_EQ(vl_panel_model_wait(model, s->marker, &model_collided), 0);
			CHECK_EQ(device_collided, model_collided);
			break;
		case STEP_WAIT_ALL:
			CHECK_EQ(epd_wait_idle(d), 0);
			CHECK_EQ(vl_panel_model_wait_submitted(model), 0);
			break;
		}
	}
}

/* Orders updates by start, then by marker: completions in one run may come in any order. */
static int
compare_device(const void *a, const void *b)
{
	const struct epd_trace *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return (x->marker > y->marker) - (x->marker < y->marker);
}

static int
compare_model(const void *a, const void *b)
{
	const struct vl_panel_model_trace *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return (x->marker > y->marker) - (x->marker < y->marker);
}

static void
compare(struct epd *d, struct vl_panel_model *model, const char *session)
{
	struct vl_panel_model_trace model_trace[64];
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);
	size_t n_model = vl_panel_model_trace(model, model_trace, 64);

	qsort(trace, n, sizeof(*trace), compare_device);
	qsort(model_trace, n_model, sizeof(*model_trace), compare_model);
	printf("%s: %zu updates on epdfb, %zu on the model\n", session, n, n_model);
	CHECK_EQ(n, n_model);
	for (size_t i = 0; i < n && i < n_model; i++) {
		const struct vl_panel_model_trace *m = &model_trace[i];
		const char *name = vl_panel_model_waveform_name(m->waveform);
		epd_trace_print(&trace[i]);
		printf("  model: marker=%u rect=%u,%u %ux%u %s %s flags=0x%x merged=%u "
		       "collided=%d flash=%d\n",
			m->marker, m->rect.left, m->rect.top, m->rect.width, m->rect.height,
			name ? name : "?", m->mode == UPDATE_MODE_FULL ? "full" : "partial",
			m->flags, m->merged, m->collided, m->flashing);
		CHECK_EQ(trace[i].marker, m->marker);
		CHECK_EQ(trace[i].left, m->rect.left);
		CHECK_EQ(trace[i].top, m->rect.top);
		CHECK_EQ(trace[i].width, m->rect.width);
		CHECK_EQ(trace[i].height, m->rect.height);
		CHECK_MSG(name && !strcmp(trace[i].waveform, name), "%s: update %zu: %s on epdfb",
			session, i, trace[i].waveform);
		CHECK_MSG(!strcmp(trace[i].mode, m->mode == UPDATE_MODE_FULL ? "full" : "partial"),
			"%s: update %zu: mode %s on epdfb", session, i, trace[i].mode);
		CHECK_EQ(trace[i].flags, m->flags);
		CHECK_EQ(trace[i].merged, m->merged);
		CHECK_EQ(trace[i].collided, m->collided);
		CHECK_EQ(trace[i].flash, m->flashing);
	}
	free(trace);

	uint8_t *panel = epd_alloc_image(d), *model_panel = epd_alloc_image(d);
	epd_read_panel(d, panel);
	vl_panel_model_read(model, model_panel);
	size_t differ = 0;
	for (size_t i = 0; i < (size_t)W * H; i++)
		differ += panel[i] != model_panel[i];
	CHECK_MSG(differ == 0, "%s: %zu pixels differ between epdfb's panel and the model's",
		session, differ);
	free(panel);
	free(model_panel);
}

static void
session(const char *name, unsigned int time_scale, const struct step *steps, size_t n)
{
	struct epd *d = &dev;
	char params[128], error[128];

	epd_phase("%s (time_scale %u)", name, time_scale);
	snprintf(params, sizeof(params), "width=%d height=%d bpp=8 time_scale=%u auto_update=0", W,
		H, time_scale);
	epd_open(d, params);
	struct vl_panel_model *model =
		vl_panel_model_create(W, H, time_scale, error, sizeof(error));
	REQUIRE_MSG(model, "the panel model: %s", error);
	run(d, model, steps, n);
	compare(d, model, name);
	vl_panel_model_destroy(model);
	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
}

int
main(void)
{
	epd_begin("model_parity", 300);
	session("one update at a time", 10, one_by_one, sizeof(one_by_one) / sizeof(one_by_one[0]));
	/* GC16 takes 1.8 s: the burst is queued long before it ends */
	session("a burst during a flash", 400, burst, sizeof(burst) / sizeof(burst[0]));
	return epd_end();
}
