// SPDX-License-Identifier: MIT
/*
 * The e-paper backend on epdfb reports each update's completion when the
 * panel finishes it, in any order: a short DU update beside a long GL16 one
 * submitted just before it settles (its feedback fires) before the GL16
 * update ends, not behind it. The driver's trace and the feedback's time
 * both use CLOCK_MONOTONIC; a cold panel (time_scale=200) keeps the GL16
 * update running for 900 ms, well past the DU one's 520 ms.
 */
#include "epd_test.h"
#include "scene_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 400
#define H 300

static struct epd dev;

struct settled {
	bool called, settled;
	uint64_t when_ns;
};

static void
note_settled(const struct vl_epd_feedback *feedback, void *data)
{
	struct settled *s = data;

	s->called = true;
	s->settled = feedback->settled;
	s->when_ns = (uint64_t)feedback->when.tv_sec * 1000000000ull + feedback->when.tv_nsec;
}

int
main(void)
{
	struct scene_harness harness, *h = &harness;
	struct vl_epd_feedback feedback;
	char error[256];
	struct epd *d = &dev;

	epd_begin("backend_completion_order", 240);
	epd_phase("load");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=200");
	REQUIRE_MSG(scene_harness_start(h, d->devnode, error, sizeof(error)), "backend on %s: %s",
		d->devnode, error);
	scene_harness_rect(h, 0, 0, W, H, 255);
	struct wlr_scene_rect *gray_rect = scene_harness_rect(h, 150, 20, 100, 60, 128);
	REQUIRE(scene_harness_show(h, &feedback));
	REQUIRE_RC(epd_wait_idle(d), 0);

	epd_phase("a GL16 update, then a DU one apart: the DU one is reported first");
	epd_trace_clear(d);
	struct settled gray = {0}, square = {0};
	vl_epd_output_add_feedback(h->output, note_settled, &gray);
	scene_harness_set_gray(gray_rect, 200);
	REQUIRE(scene_harness_commit(h));
	REQUIRE(scene_harness_wait_frame(h));
	vl_epd_output_add_feedback(h->output, note_settled, &square);
	scene_harness_rect(h, 20, 200, 30, 30, 0);
	REQUIRE(scene_harness_commit(h));
	REQUIRE(scene_harness_run_until(h, &square.called));
	bool gray_first = gray.called;
	REQUIRE(scene_harness_run_until(h, &gray.called));
	CHECK(square.settled && gray.settled);
	REQUIRE_RC(epd_wait_idle(d), 0);

	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);
	const struct epd_trace *long_one = NULL, *short_one = NULL;
	for (size_t i = 0; i < n; i++) {
		epd_trace_print(&trace[i]);
		if (trace[i].left == 150 && trace[i].top == 20)
			long_one = &trace[i];
		if (trace[i].left == 20 && trace[i].top == 200)
			short_one = &trace[i];
	}
	REQUIRE(long_one && short_one);
	CHECK_MSG(
		!strcmp(long_one->waveform, "GL16"), "the gray update ran %s", long_one->waveform);
	CHECK_MSG(!strcmp(short_one->waveform, "DU"), "the square ran %s", short_one->waveform);
	REQUIRE_MSG(short_one->end_ns < long_one->end_ns,
		"the DU update ended %.1f ms after the GL16 one: nothing to test",
		((double)short_one->end_ns - (double)long_one->end_ns) / 1e6);
	CHECK_MSG(!gray_first, "the GL16 update's commit was reported before the DU one's");
	CHECK_MSG(square.when_ns < long_one->end_ns,
		"the DU update, ended %.1f ms before the GL16 one, was reported %.1f ms after it",
		((double)long_one->end_ns - (double)short_one->end_ns) / 1e6,
		((double)square.when_ns - (double)long_one->end_ns) / 1e6);
	free(trace);

	scene_harness_finish(h);
	epd_close(d);
	return epd_end();
}
