// SPDX-License-Identifier: MIT
/*
 * Pixels driven per pixel changed: the e-paper backend (a wlroots scene shown
 * through libvellum-epd) against deferred IO alone (the same pixels written
 * through mmap in AUTOMATIC mode), on the real epdfb at 1872x1404.
 *
 * Scenes: a 200x60 clock whose last digit changes, typing a line of 40
 * characters one at a time, and a 1-pixel line moving across the screen 24
 * times. Every scene is a list of flat rects per frame; both methods apply
 * the same list. "driven" is the driver's pixels_driven counter.
 */
#include "epd_test.h"
#include "scene_harness.h"
#include "seven_segment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_OPS 64

struct op {
	int x, y, w, h;
	uint8_t gray;
};

struct frame {
	struct op ops[MAX_OPS];
	size_t n;
};

struct scene {
	const char *name;
	struct frame *frames;
	size_t n_frames;
};

struct result {
	long long changed, driven, updates, flashes;
};

static void
add(struct frame *f, int x, int y, int w, int h, uint8_t gray)
{
	if (f->n < MAX_OPS)
		f->ops[f->n++] = (struct op){x, y, w, h, gray};
}

static void
add_op(void *data, int x, int y, int w, int h, uint8_t gray)
{
	add(data, x, y, w, h, gray);
}

static struct scene
clock_scene(void)
{
	struct frame *frames = calloc(2, sizeof(*frames));
	const int digits[2][4] = {{1, 2, 3, 4}, {1, 2, 3, 5}};

	for (int f = 0; f < 2; f++)
		for (int i = 0; i < 4; i++)
			seven_segment_draw(1508 + i * 46 + (i >= 2 ? 8 : 0), 105, digits[f][i],
				add_op, &frames[f]);
	return (struct scene){"clock 200x60, 1 change", frames, 2};
}

/* A glyph-like block: a stem and a bar in an 11x18 cell, varying by index. */
static struct scene
typing_scene(void)
{
	struct frame *frames = calloc(41, sizeof(*frames));

	for (int c = 0; c < 40; c++) {
		struct frame *f = &frames[c + 1];
		int x = 100 + c * 12, y = 400;
		add(f, x + (c % 3) * 3, y + 2, 2, 16, 0);
		add(f, x, y + 8 + (c % 4) * 2, 10, 2, 0);
	}
	return (struct scene){"typing 40 characters", frames, 41};
}

static struct scene
line_scene(void)
{
	struct frame *frames = calloc(25, sizeof(*frames));

	for (int s = 0; s < 25; s++) {
		if (s > 0)
			add(&frames[s], 100 + (s - 1) * 8, 0, 1, 1404, 255);
		add(&frames[s], 100 + s * 8, 0, 1, 1404, 0);
	}
	return (struct scene){"thin line, 24 moves", frames, 25};
}

static long long
apply_to_model(uint8_t *model, const struct frame *f)
{
	long long changed = 0;
	static uint8_t before[1872 * 1404];

	memcpy(before, model, sizeof(before));
	for (size_t i = 0; i < f->n; i++)
		for (int y = f->ops[i].y; y < f->ops[i].y + f->ops[i].h; y++)
			memset(model + (size_t)y * 1872 + f->ops[i].x, f->ops[i].gray, f->ops[i].w);
	for (size_t i = 0; i < sizeof(before); i++)
		changed += before[i] != model[i];
	return changed;
}

static void
collect(struct epd *d, struct result *r)
{
	r->driven = epd_stat(d, "pixels_driven");
	r->updates = epd_stat(d, "updates_completed");
	r->flashes = epd_stat(d, "flashes");
}

/* Frame 0 sets the scene up and is not counted. */
static void
run_defio(struct epd *d, const struct scene *s, struct result *r)
{
	static uint8_t model[1872 * 1404];

	memset(r, 0, sizeof(*r));
	REQUIRE_RC(epd_set_auto_mode(d, AUTO_UPDATE_MODE_AUTOMATIC_MODE), 0);
	epd_clear(d);
	memset(model, 255, sizeof(model));
	for (size_t i = 0; i < s->n_frames; i++) {
		const struct frame *f = &s->frames[i];
		long long changed = apply_to_model(model, f);
		for (size_t k = 0; k < f->n; k++)
			epd_fill(d, f->ops[k].x, f->ops[k].y, f->ops[k].w, f->ops[k].h,
				f->ops[k].gray);
		REQUIRE_OK(fsync(d->fd));
		REQUIRE_RC(epd_wait_idle(d), 0);
		if (i == 0) {
			epd_stats_reset(d);
			continue;
		}
		r->changed += changed;
	}
	collect(d, r);
}

static void
run_backend(struct epd *d, const struct scene *s, struct result *r)
{
	static uint8_t model[1872 * 1404];
	struct scene_harness harness, *h = &harness;
	struct vl_epd_feedback feedback;
	char error[256];

	memset(r, 0, sizeof(*r));
	REQUIRE_RC(epd_set_auto_mode(d, AUTO_UPDATE_MODE_AUTOMATIC_MODE), 0);
	epd_clear(d);
	REQUIRE_RC(epd_wait_idle(d), 0);
	REQUIRE_MSG(scene_harness_start(h, d->devnode, error, sizeof(error)), "backend: %s", error);
	memset(model, 255, sizeof(model));
	scene_harness_rect(h, 0, 0, d->width, d->height, 255);
	for (size_t i = 0; i < s->n_frames; i++) {
		const struct frame *f = &s->frames[i];
		long long changed = apply_to_model(model, f);
		for (size_t k = 0; k < f->n; k++)
			scene_harness_rect(h, f->ops[k].x, f->ops[k].y, f->ops[k].w, f->ops[k].h,
				f->ops[k].gray);
		REQUIRE(scene_harness_show(h, &feedback));
		REQUIRE_RC(epd_wait_idle(d), 0);
		if (i == 0) {
			epd_stats_reset(d);
			continue;
		}
		r->changed += changed;
	}
	collect(d, r);
	scene_harness_finish(h);
}

static void
print_row(const char *scene, const char *method, const struct result *r)
{
	printf("%-24s %-12s %9lld %10lld %7lld %7lld %14.2f\n", scene, method, r->changed,
		r->driven, r->updates, r->flashes, (double)r->driven / (double)r->changed);
}

int
main(void)
{
	struct scene scenes[] = {clock_scene(), typing_scene(), line_scene()};
	struct result defio[3], backend[3];
	struct epd d;

	epd_begin("bench_backend_vs_defio", 900);
	epd_open(&d, "width=1872 height=1404 bpp=8 time_scale=1");
	for (size_t i = 0; i < 3; i++) {
		run_defio(&d, &scenes[i], &defio[i]);
		run_backend(&d, &scenes[i], &backend[i]);
	}

	printf("\npixels driven per pixel changed, %ux%u panel\n", d.width, d.height);
	printf("%-24s %-12s %9s %10s %7s %7s %14s\n", "scene", "method", "changed", "driven",
		"updates", "flashes", "driven/changed");
	for (size_t i = 0; i < 3; i++) {
		print_row(scenes[i].name, "deferred IO", &defio[i]);
		print_row(scenes[i].name, "backend", &backend[i]);
		free(scenes[i].frames);
	}
	for (size_t i = 0; i < 3; i++)
		printf("%s: the backend drives %.1fx fewer pixels than deferred IO\n",
			scenes[i].name, (double)defio[i].driven / (double)backend[i].driven);
	epd_close(&d);
	return epd_end();
}
