// SPDX-License-Identifier: MIT
/*
 * Frame pacing of the e-paper backend on epdfb: with two flushes in flight
 * the output sends no frame until one of them completes. The driver's trace
 * and the harness both use CLOCK_MONOTONIC, so the frames the harness got
 * between the second commit and the end of the first update are counted:
 * there must be none, and one must come after. Slow waveforms on a cold
 * panel (time_scale=200: GL16 lasts 2250 ms) keep both flushes in flight
 * long enough on a slow or stalled emulated machine.
 */
#include "epd_test.h"
#include "scene_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 400
#define H 300

static struct epd dev;

static void
note_settled(const struct vl_epd_feedback *feedback, void *data)
{
	*(bool *)data = feedback->settled;
}

int
main(void)
{
	struct scene_harness harness, *h = &harness;
	struct vl_epd_feedback feedback;
	char error[256];
	struct epd *d = &dev;

	epd_begin("backend_pacing", 240);
	epd_phase("load");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=200");
	REQUIRE_MSG(scene_harness_start(h, d->devnode, error, sizeof(error)), "backend on %s: %s",
		d->devnode, error);
	scene_harness_rect(h, 0, 0, W, H, 255);
	struct wlr_scene_rect *gray_rect = scene_harness_rect(h, 150, 20, 100, 60, 128);
	REQUIRE(scene_harness_show(h, &feedback));
	REQUIRE_RC(epd_wait_idle(d), 0);

	epd_phase("no frame while two flushes are in flight");
	REQUIRE_RC(epd_set_temp(d, 0), 0);
	epd_trace_clear(d);
	bool first_settled = false, second_settled = false;
	vl_epd_output_add_feedback(h->output, note_settled, &first_settled);
	scene_harness_set_gray(gray_rect, 200);
	REQUIRE(scene_harness_commit(h));
	REQUIRE(scene_harness_wait_frame(h));
	vl_epd_output_add_feedback(h->output, note_settled, &second_settled);
	scene_harness_rect(h, 20, 100, 50, 30, 60);
	REQUIRE(scene_harness_commit(h));
	uint64_t second_commit_ns = epd_now_ns();
	REQUIRE(scene_harness_run_until(h, &second_settled));
	CHECK(first_settled);
	REQUIRE(scene_harness_wait_frame(h));
	REQUIRE_RC(epd_wait_idle(d), 0);
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);
	uint64_t first_end_ns = 0;
	for (size_t i = 0; i < n; i++) {
		epd_trace_print(&trace[i]);
		if (trace[i].left == 150 && trace[i].top == 20)
			first_end_ns = trace[i].end_ns;
	}
	free(trace);
	REQUIRE_MSG(first_end_ns > second_commit_ns,
		"the first update ended %.1f ms before the second commit: nothing to test",
		((double)second_commit_ns - (double)first_end_ns) / 1e6);
	unsigned int frames = scene_harness_frames_between(h, second_commit_ns, first_end_ns);
	CHECK_MSG(frames == 0, "%u frames came in the %.1f ms both flushes were in flight", frames,
		((double)first_end_ns - (double)second_commit_ns) / 1e6);
	CHECK_GE(scene_harness_frames_between(h, first_end_ns, UINT64_MAX), 1);

	scene_harness_finish(h);
	epd_close(d);
	return epd_end();
}
