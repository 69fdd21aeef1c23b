// SPDX-License-Identifier: MIT
/*
 * The update pipeline's cost on this machine, natively, at the default
 * 1872x1404 panel size:
 *
 * - gray conversion of a full XRGB8888 frame against memcpy() of the same
 *   bytes in the same run (goal: at least half memcpy's throughput), and of
 *   the frame in RGB565;
 * - a full-frame update of a mixed frame (text, UI, a photo) after a page
 *   turn: gray, diff, classify, waveform, merge, ghost, dither (goal: at
 *   most 2.4 ms);
 * - a small update: a 200x60 clock whose digits changed.
 *
 * Every figure is the median of REPS runs after a warm-up.
 */
#include <epdfb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vellum/epd-pipeline.h>

#define W          1872
#define H          1404
#define REPS       31
#define MAX_PLANS  64
#define CLOCK_LEFT 1500
#define CLOCK_TOP  100
#define CLOCK_W    200
#define CLOCK_H    60

enum stage { GRAY, DIFF, CLASSIFY, WAVEFORM, MERGE, GHOST, DITHER, N_STAGES };

static const char *const stage_names[] = {
	"gray",
	"diff",
	"classify",
	"waveform",
	"merge",
	"ghost",
	"dither",
};

struct pipeline {
	struct vl_epd_gray gray, sent, fb;
	struct vl_epd_waveform_table table;
	struct vl_epd_merge_options merge;
	struct vl_epd_ghost *ghost;
	uint64_t now_ms;
	size_t n_plans;
	struct vl_epd_plan first; /* the first update of the last flush */
	uint64_t checksum;
};

static const char *const content_names[] = {"MONO", "GRAY", "IMAGE"};
static const char *const dither_names[] = {"auto", "none", "ordered", "diffusion"};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double
median(double *samples, size_t n)
{
	qsort(samples, n, sizeof(*samples), compare_double);
	return samples[n / 2];
}

static uint32_t
rng(uint32_t *state)
{
	uint32_t x = *state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

static void
fill(uint32_t *frame, int x1, int y1, int x2, int y2, uint32_t color)
{
	for (int y = y1; y < y2; y++)
		for (int x = x1; x < x2; x++)
			frame[(size_t)y * W + x] = color;
}

/* Lines of glyph-like strokes, black on white, with antialiased edges. */
static void
draw_text(uint32_t *frame, int x1, int y1, int x2, int y2, uint32_t seed)
{
	for (int line = y1; line + 40 <= y2; line += 48) {
		for (int x = x1; x + 14 <= x2; x += 16) {
			if (rng(&seed) % 7 == 0)
				continue; /* a space */
			int height = 20 + (int)(rng(&seed) % 12);
			fill(frame, x, line + 32 - height, x + 3, line + 32, 0);
			fill(frame, x, line + 30, x + 10, line + 32, 0);
			for (int y = line + 32 - height; y < line + 32; y++) {
				uint32_t v = 64 + rng(&seed) % 160;
				frame[(size_t)y * W + x + 3] = v * 0x010101u;
			}
		}
	}
}

/* A page: a title bar, buttons, paragraphs and a photo. */
static void
draw_page(uint32_t *frame, uint32_t seed)
{
	fill(frame, 0, 0, W, H, 0xffffff);
	fill(frame, 0, 0, W, 90, 0x303030);
	fill(frame, 40, 20, 300, 70, 0xc0c0c0);
	fill(frame, 1500, 20, 1800, 70, 0x3a6ea5);
	draw_text(frame, 60, 140, 1812, 700, seed);
	/* The photo: smooth color gradients with sensor noise. */
	for (int y = 760; y < 1340; y++) {
		for (int x = 100; x < 1200; x++) {
			uint32_t n = rng(&seed) % 12;
			uint32_t r = (uint32_t)(x - 100) * 230 / 1100 + n;
			uint32_t g = (uint32_t)(y - 760) * 200 / 580 + n;
			uint32_t b = (uint32_t)(x + y) % 256 / 2 + 60 + n;
			frame[(size_t)y * W + x] = (r << 16) | (g << 8) | b;
		}
	}
	draw_text(frame, 1260, 760, 1812, 1340, seed + 1);
}

static void
draw_clock(uint32_t *frame, int minute)
{
	fill(frame, CLOCK_LEFT, CLOCK_TOP, CLOCK_LEFT + CLOCK_W, CLOCK_TOP + CLOCK_H, 0xffffff);
	for (int digit = 0; digit < 4; digit++) {
		int x = CLOCK_LEFT + 10 + digit * 48;
		int segments = (minute + digit * 3) % 7 + 1;
		for (int s = 0; s < segments; s++)
			fill(frame, x + (s % 2) * 24, CLOCK_TOP + 6 + s * 7, x + (s % 2) * 24 + 14,
				CLOCK_TOP + 10 + s * 7, 0x101010);
	}
}

static struct vl_epd_gray
gray_alloc(void)
{
	struct vl_epd_gray gray = {malloc((size_t)W * H), W, H, W};

	if (!gray.data) {
		perror("malloc");
		exit(1);
	}
	memset(gray.data, 255, (size_t)W * H);
	return gray;
}

/* One flush of damage; adds each stage's time to t[]. */
static void
run_pipeline(struct pipeline *p, const uint32_t *frame, const pixman_region32_t *damage,
	double t[N_STAGES])
{
	pixman_box32_t boxes[MAX_PLANS];
	struct vl_epd_plan plans[MAX_PLANS];
	double t0 = now_s(), t1;
	size_t n;

	vl_epd_gray_convert_region(&p->gray, frame, W * 4, VL_EPD_PIXEL_XRGB8888, damage);
	t1 = now_s();
	t[GRAY] += t1 - t0;
	n = vl_epd_diff(&p->gray, &p->sent, damage, boxes, MAX_PLANS);
	t0 = now_s();
	t[DIFF] += t0 - t1;
	for (size_t i = 0; i < n; i++) {
		plans[i].box = boxes[i];
		plans[i].content = vl_epd_classify(&p->gray, &boxes[i]);
		plans[i].full = false;
	}
	t1 = now_s();
	t[CLASSIFY] += t1 - t0;
	for (size_t i = 0; i < n; i++)
		plans[i].choice = vl_epd_choose_waveform(
			&p->table, plans[i].content, VL_EPD_MODE_AUTO, VL_EPD_DITHER_AUTO);
	t0 = now_s();
	t[WAVEFORM] += t0 - t1;
	n = vl_epd_merge(plans, n, &p->merge);
	t1 = now_s();
	t[MERGE] += t1 - t0;
	for (size_t i = 0; i < n; i++) {
		pixman_box32_t promoted;
		if (vl_epd_ghost_promote(p->ghost, &plans[i].box, &promoted)) {
			plans[i].box = promoted;
			plans[i].choice = vl_epd_choose_flashing(&p->table);
			plans[i].full = true;
		}
		vl_epd_ghost_record(p->ghost, &plans[i].box, plans[i].choice.waveform,
			plans[i].full, p->now_ms++);
	}
	t0 = now_s();
	t[GHOST] += t0 - t1;
	for (size_t i = 0; i < n; i++)
		vl_epd_dither(&p->fb, &p->gray, &plans[i].box, plans[i].choice.levels,
			plans[i].choice.dither);
	t1 = now_s();
	t[DITHER] += t1 - t0;

	p->n_plans = n;
	if (n > 0)
		p->first = plans[0];
	for (size_t i = 0; i < n; i++)
		p->checksum += (uint64_t)plans[i].choice.waveform * 31 + plans[i].box.x2 +
			       p->fb.data[(size_t)plans[i].box.y1 * W + plans[i].box.x1];
}

static void
pipeline_init(struct pipeline *p)
{
	struct vl_epd_ghost_options ghost;

	memset(p, 0, sizeof(*p));
	p->gray = gray_alloc();
	p->sent = gray_alloc();
	p->fb = gray_alloc();
	vl_epd_waveform_table_default(&p->table);
	p->merge = (struct vl_epd_merge_options){
		.panel_width = W,
		.panel_height = H,
		.align_x = 8,
		.update_cost = 4096,
		.max_rects = 16,
	};
	vl_epd_ghost_options_default(&ghost, W, H);
	ghost.full_refresh_every = 0; /* no flash promotion: measure the partial path */
	ghost.debt_threshold = 0;
	p->ghost = vl_epd_ghost_create(&ghost);
	if (!p->ghost) {
		fprintf(stderr, "vl_epd_ghost_create failed\n");
		exit(1);
	}
}

static void
pipeline_finish(struct pipeline *p)
{
	vl_epd_ghost_destroy(p->ghost);
	free(p->gray.data);
	free(p->sent.data);
	free(p->fb.data);
}

/*
 * Median time of one flush of damage over frame after `before` was sent;
 * prints each stage's median too.
 */
static double
time_update(const char *name, const uint32_t *before, const uint32_t *frame,
	const pixman_region32_t *damage)
{
	struct pipeline p;
	double total[REPS], stages[N_STAGES][REPS];
	pixman_box32_t all = {0, 0, W, H};

	pipeline_init(&p);
	vl_epd_gray_convert(&p.sent, before, W * 4, &all);
	for (int rep = -3; rep < REPS; rep++) {
		double t[N_STAGES] = {0};
		run_pipeline(&p, frame, damage, t);
		if (rep < 0)
			continue;
		total[rep] = 0;
		for (int s = 0; s < N_STAGES; s++) {
			stages[s][rep] = t[s];
			total[rep] += t[s];
		}
	}
	double ms = median(total, REPS) * 1e3;
	printf("%s: %.3f ms (%zu update%s)\n", name, ms, p.n_plans, p.n_plans == 1 ? "" : "s");
	if (p.n_plans > 0) {
		const struct vl_epd_waveform_entry *wf =
			vl_epd_waveform_find(&p.table, p.first.choice.waveform);
		printf("  first: %dx%d at %d,%d, %s, %s, %u levels, dither %s\n",
			p.first.box.x2 - p.first.box.x1, p.first.box.y2 - p.first.box.y1,
			p.first.box.x1, p.first.box.y1, content_names[p.first.content],
			wf ? wf->name : "?", p.first.choice.levels,
			dither_names[p.first.choice.dither]);
	}
	for (int s = 0; s < N_STAGES; s++)
		printf("  %-9s %8.3f ms\n", stage_names[s], median(stages[s], REPS) * 1e3);
	printf("  checksum %llu\n", (unsigned long long)p.checksum);
	pipeline_finish(&p);
	return ms;
}

int
main(void)
{
	const size_t bytes = (size_t)W * H * 4;
	uint32_t *frame = malloc(bytes), *before = malloc(bytes), *copy = malloc(bytes);
	struct vl_epd_gray gray = gray_alloc();
	pixman_box32_t all = {0, 0, W, H};
	double t_gray[REPS], t_copy[REPS];

	if (!frame || !before || !copy) {
		perror("malloc");
		return 1;
	}
	draw_page(before, 1);
	draw_page(frame, 2);
	memset(copy, 0, bytes);

	printf("bench_gray: %dx%d, median of %d runs\n", W, H, REPS);
	for (int rep = -3; rep < REPS; rep++) {
		double t0 = now_s();
		memcpy(copy, frame, bytes);
		double t1 = now_s();
		vl_epd_gray_convert(&gray, frame, W * 4, &all);
		double t2 = now_s();
		if (rep >= 0) {
			t_copy[rep] = t1 - t0;
			t_gray[rep] = t2 - t1;
		}
	}
	double copy_s = median(t_copy, REPS), gray_s = median(t_gray, REPS);
	printf("memcpy of the XRGB8888 frame: %8.3f ms %8.0f MB/s\n", copy_s * 1e3,
		bytes / copy_s / 1e6);
	printf("gray conversion:              %8.3f ms %8.0f MB/s (of XRGB8888 read)\n",
		gray_s * 1e3, bytes / gray_s / 1e6);
	printf("gray / memcpy throughput:     %8.2f (goal >= 0.5)\n", copy_s / gray_s);
	/* Keep the work observable. */
	printf("  checksum %u\n", gray.data[(size_t)W * H / 2] + ((uint8_t *)copy)[bytes / 2]);

	/* the same page rendered in RGB565, as vellum's output is */
	uint16_t *rgb565 = (uint16_t *)copy;
	for (size_t i = 0; i < (size_t)W * H; i++)
		rgb565[i] = (uint16_t)((frame[i] >> 8 & 0xf800) | (frame[i] >> 5 & 0x07e0) |
				       (frame[i] >> 3 & 0x001f));
	for (int rep = -3; rep < REPS; rep++) {
		double t0 = now_s();
		vl_epd_gray_convert_rgb565(&gray, rgb565, W * 2, &all);
		if (rep >= 0)
			t_gray[rep] = now_s() - t0;
	}
	double gray565_s = median(t_gray, REPS);
	printf("gray conversion of RGB565:    %8.3f ms %8.0f MB/s (of RGB565 read)\n",
		gray565_s * 1e3, bytes / 2 / gray565_s / 1e6);
	printf("  checksum %u\n", gray.data[(size_t)W * H / 2]);

	pixman_region32_t damage;
	pixman_region32_init_rect(&damage, 0, 0, W, H);
	double full_ms = time_update("full-frame update (page turn)", before, frame, &damage);
	printf("full-frame goal <= 2.4 ms: %s\n", full_ms <= 2.4 ? "met" : "NOT met");

	memcpy(before, frame, bytes);
	draw_clock(before, 41);
	draw_clock(frame, 42);
	pixman_region32_fini(&damage);
	pixman_region32_init_rect(&damage, CLOCK_LEFT, CLOCK_TOP, CLOCK_W, CLOCK_H);
	time_update("small update (200x60 clock)", before, frame, &damage);

	pixman_region32_fini(&damage);
	free(frame);
	free(before);
	free(copy);
	free(gray.data);
	return 0;
}
