// SPDX-License-Identifier: MIT
/*
 * Ghost cleanup and idleness of the e-paper backend on the real epdfb: after
 * partial updates made while the user worked the backend cleans their ghosts
 * with one flashing refresh once input idles, and from then on nothing in the process wakes up: no
 * event source fires and no thread switches context (/proc task status).
 */
#include "epd_test.h"
#include "scene_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define W          400
#define H          300
#define CLEANUP_MS 1000

static struct epd dev;

struct switches {
	char self[32];
	long long total;
};

static bool
add_switches(const char *tid, void *data)
{
	struct switches *sum = data;

	if (strcmp(tid, sum->self) == 0)
		return true;
	char *status = epd_read_thread_file(tid, "status");
	if (!status)
		return true;
	for (char *line = strtok(status, "\n"); line; line = strtok(NULL, "\n")) {
		long long n;
		if (sscanf(line, "voluntary_ctxt_switches: %lld", &n) == 1 ||
			sscanf(line, "nonvoluntary_ctxt_switches: %lld", &n) == 1)
			sum->total += n;
	}
	free(status);
	return true;
}

/* Context switches of every thread of this process but the calling one. */
static long long
other_threads_switches(void)
{
	struct switches sum = {0};

	snprintf(sum.self, sizeof(sum.self), "%d", gettid());
	REQUIRE_MSG(epd_for_each_thread(add_switches, &sum), "cannot list /proc/self/task");
	return sum.total;
}

int
main(void)
{
	struct vl_epd_backend_options options = {
		.idle_cleanup_ms = CLEANUP_MS,
		.input_window_ms = 60000,
	};
	struct scene_harness harness, *h = &harness;
	struct vl_epd_feedback feedback;
	char error[256];
	struct epd *d = &dev;

	epd_begin("backend_idle", 240);
	epd_phase("load");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=10");
	options.device = d->devnode;
	REQUIRE_MSG(
		scene_harness_start_with(h, &options, error, sizeof(error)), "backend: %s", error);

	epd_phase("a page, then a small black block blinking with DU at each key");
	scene_harness_rect(h, 0, 0, W, H, 255);
	REQUIRE(scene_harness_show(h, &feedback));
	REQUIRE_RC(epd_wait_idle(d), 0);
	epd_stats_reset(d);
	struct wlr_scene_rect *block = scene_harness_rect(h, 40, 40, 30, 30, 0);
	uint64_t last_commit_ns = 0;
	epd_trace_clear(d);
	for (int i = 0; i < 4; i++) {
		vl_epd_backend_notify_input(h->backend, VL_EPD_INPUT_KEY);
		scene_harness_set_gray(block, i % 2 ? 0 : 255);
		last_commit_ns = epd_now_ns();
		REQUIRE(scene_harness_show(h, &feedback));
	}
	REQUIRE_RC(epd_wait_idle(d), 0);
	CHECK_MSG(epd_stat_f(d, "ghost_mean") > 0, "the blinking left no ghost");
	long long blinks = epd_stat(d, "updates_submitted");
	CHECK_GE(blinks, 2);

	/*
	 * Order and counts from the driver's trace, whatever the machine's
	 * speed: the blinks, then one cleanup, submitted no earlier than
	 * CLEANUP_MS after the last blink was committed (the backend counts
	 * whole milliseconds) and after that blink ended.
	 */
	epd_phase("the idle cleanup flashes the ghost away");
	for (uint64_t start = epd_now_ns(); epd_stat(d, "updates_submitted") <= blinks;) {
		REQUIRE_MSG(epd_ms_since(start) < 20000, "no cleanup after 20 s");
		scene_harness_idle(h, 50);
	}
	REQUIRE_RC(epd_wait_idle(d), 0);
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);
	for (size_t i = 0; i < n; i++)
		epd_trace_print(&trace[i]);
	if (CHECK_EQ(n, blinks + 1)) {
		const struct epd_trace *blink = &trace[n - 2], *cleanup = &trace[n - 1];
		CHECK(strcmp(cleanup->waveform, "GC16") == 0 && cleanup->flash);
		CHECK(cleanup->left <= 40 && cleanup->top <= 40 &&
			cleanup->left + cleanup->width >= 70 &&
			cleanup->top + cleanup->height >= 70);
		CHECK_GE(cleanup->submit_ns, blink->end_ns);
		CHECK_MSG(cleanup->submit_ns + 1000000 >= last_commit_ns + CLEANUP_MS * 1000000ull,
			"the cleanup came %.1f ms after the last commit, before the %d ms idle "
			"delay",
			((double)cleanup->submit_ns - (double)last_commit_ns) / 1e6, CLEANUP_MS);
		for (size_t i = 0; i + 1 < n; i++)
			CHECK_MSG(!trace[i].flash, "blink %zu flashed", i);
	}
	free(trace);
	CHECK_EQ(epd_stat_f(d, "ghost_mean"), 0.0);
	uint8_t *panel = epd_alloc_image(d), *expect = epd_alloc_image(d);
	memset(expect, 255, W * H);
	for (uint32_t y = 40; y < 70; y++)
		memset(expect + y * W + 40, 0, 30);
	epd_read_panel(d, panel);
	CHECK_IMAGE(d, panel, expect, "after the cleanup");
	free(panel);
	free(expect);

	/* The cleanup's completion may still be on its way to the event loop. */
	for (int i = 0; i < 50 && scene_harness_idle(h, 100) > 0; i++)
		;

	epd_phase("idle: no event source fires, no thread runs");
	long long switches = other_threads_switches();
	long long submitted = epd_stat(d, "updates_submitted");
	int early = scene_harness_idle(h, 2000);
	CHECK_MSG(early == 0, "the event loop woke %d times while idle", early);
	CHECK_EQ(other_threads_switches(), switches);
	CHECK_EQ(epd_stat(d, "updates_submitted"), submitted);

	scene_harness_finish(h);
	epd_close(d);
	return epd_end();
}
