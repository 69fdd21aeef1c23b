// SPDX-License-Identifier: MIT
/*
 * The backend natively on the in-process memory device at 1872x1404: time
 * from committing a frame (the scene rendered by pixman, then the backend's
 * gray conversion, diff, policy, dithering and submission) until the commit
 * returns with its updates submitted, for a full-frame page and for a
 * 200x60 clock change; and the process's peak RSS.
 */
#include "scene_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#define W    1872
#define H    1404
#define REPS 15

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static long
peak_rss_kib(void)
{
	struct rusage usage;

	getrusage(RUSAGE_SELF, &usage);
	return usage.ru_maxrss;
}

static int
compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median time of REPS commits, each after change() alters the scene. */
static double
time_commits(struct scene_harness *h, void (*change)(struct scene_harness *, int))
{
	double times[REPS];
	struct vl_epd_feedback feedback;

	for (int i = 0; i < REPS; i++) {
		change(h, i);
		if (!scene_harness_wait_frame(h))
			return -1;
		h->frame_ready = false;
		double t0 = now_ms();
		wlr_scene_output_commit(h->scene_output, NULL);
		times[i] = now_ms() - t0;
		/* The memory device completes at once; let the loop settle the commit. */
		h->feedback_received = false;
		scene_harness_idle(h, 1);
		(void)feedback;
	}
	qsort(times, REPS, sizeof(times[0]), compare);
	return times[REPS / 2];
}

static struct wlr_scene_rect *page, *digit;

static void
turn_page(struct scene_harness *h, int i)
{
	(void)h;
	scene_harness_set_gray(page, i % 2 ? 40 : 215);
}

static void
tick_clock(struct scene_harness *h, int i)
{
	(void)h;
	wlr_scene_rect_set_size(digit, 10 + (i % 2) * 12, 40);
}

int
main(void)
{
	struct scene_harness harness, *h = &harness;
	char error[256];
	long rss_before = peak_rss_kib();

	if (!scene_harness_start(h, "memory:1872x1404", error, sizeof(error))) {
		fprintf(stderr, "bench_backend_memory: %s\n", error);
		return 1;
	}
	scene_harness_rect(h, 0, 0, W, H, 255);
	page = scene_harness_rect(h, 64, 64, W - 128, H - 128, 215);
	scene_harness_rect(h, 1500, 100, 200, 60, 255);
	digit = scene_harness_rect(h, 1600, 110, 10, 40, 0);

	double full = time_commits(h, turn_page);
	double small = time_commits(h, tick_clock);
	long rss_after = peak_rss_kib();

	printf("backend on memory:%dx%d, median of %d commits\n", W, H, REPS);
	printf("  full-frame page: %.2f ms from commit to updates submitted (scene render "
	       "included)\n",
		full);
	printf("  200x60 clock:    %.3f ms\n", small);
	printf("  peak RSS: %.1f MB (%.1f MB before the backend started; goal <= 40 MB)\n",
		rss_after / 1024.0, rss_before / 1024.0);
	scene_harness_finish(h);
	return 0;
}
