// SPDX-License-Identifier: MIT
/*
 * Pipelined regions and frame pacing of the e-paper backend on epdfb. Two
 * areas apart, committed one after the other, are both in flight at once
 * (the driver's trace: the second starts before the first ends) and frames
 * keep coming. Three changes of one area: the second's pixels are driven
 * after the first's (it collides, and its pixels wait), the third waits (no
 * frame until the first ends) and is not lost.
 * The driver's trace and the harness both use CLOCK_MONOTONIC; slow
 * waveforms on a cold panel (time_scale=200: GL16 lasts 2250 ms) keep the
 * updates in flight long enough on a slow or stalled emulated machine.
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

/* The submit thread sends updates a moment after the frame that queued them. */
static bool
wait_submitted(struct epd *d, long long count)
{
	uint64_t t0 = epd_now_ns();

	while (epd_stat(d, "updates_submitted") < count) {
		if (epd_ms_since(t0) > 5000)
			return false;
		epd_sleep_ms(2);
	}
	return true;
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

	epd_phase("two areas apart are in flight at once; frames keep coming");
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
	/* completions are reported as each wait returns: the first's may come a moment later */
	CHECK(scene_harness_run_until(h, &first_settled));
	REQUIRE_RC(epd_wait_idle(d), 0);
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);
	const struct epd_trace *first = NULL, *second = NULL;
	for (size_t i = 0; i < n; i++) {
		epd_trace_print(&trace[i]);
		if (trace[i].left == 150 && trace[i].top == 20)
			first = &trace[i];
		if (trace[i].left == 20 && trace[i].top == 100)
			second = &trace[i];
	}
	REQUIRE(first && second);
	REQUIRE_MSG(first->end_ns > second_commit_ns,
		"the first update ended %.1f ms before the second commit: nothing to test",
		((double)second_commit_ns - (double)first->end_ns) / 1e6);
	CHECK_MSG(second->start_ns < first->end_ns,
		"the second area started %.1f ms after the first ended",
		((double)second->start_ns - (double)first->end_ns) / 1e6);
	CHECK_GE(scene_harness_frames_between(h, second_commit_ns, first->end_ns), 1);
	free(trace);

	epd_phase("one area three times: queued, then waiting, never lost");
	epd_trace_clear(d);
	bool settled[3] = {false};
	static const uint8_t grays[3] = {60, 200, 100};
	uint64_t third_commit_ns = 0;
	long long submitted = epd_stat(d, "updates_submitted");
	for (int i = 0; i < 3; i++) {
		vl_epd_output_add_feedback(h->output, note_settled, &settled[i]);
		scene_harness_set_gray(gray_rect, grays[i]);
		if (i == 0) {
			REQUIRE(scene_harness_commit(h));
			/*
			 * The driver takes an update's pixels when it starts. Were
			 * the second change written before the submit thread sent
			 * the first, the first would show it and the second find
			 * nothing to drive: the panel converges all the same, but
			 * there would be no collision to test.
			 */
			REQUIRE_MSG(wait_submitted(d, submitted + 1),
				"the area's first update was not submitted in 5 s");
			continue;
		}
		if (i == 1) {
			REQUIRE(scene_harness_commit(h));
			continue;
		}
		/* frames are held now: the compositor commits anyway */
		REQUIRE(wlr_scene_output_commit(h->scene_output, NULL));
		third_commit_ns = epd_now_ns();
	}
	REQUIRE(scene_harness_run_until(h, &settled[2]));
	CHECK(settled[0] && settled[1]);
	REQUIRE_RC(epd_wait_idle(d), 0);
	n = epd_trace_read(d, &trace);
	/*
	 * Each update changes every pixel of the area again: it collides, and
	 * its pixels are driven by its resubmission (its marker's last line),
	 * once the update before it ended.
	 */
	size_t on_area = 0;
	uint32_t markers[8];
	const struct epd_trace *driving[8] = {NULL};
	for (size_t i = 0; i < n; i++) {
		epd_trace_print(&trace[i]);
		if (trace[i].left != 150 || trace[i].top != 20)
			continue;
		size_t m = 0;
		while (m < on_area && markers[m] != trace[i].marker)
			m++;
		if (m == on_area && on_area < 8)
			markers[on_area++] = trace[i].marker;
		if (m < 8 && (!driving[m] || trace[i].start_ns > driving[m]->start_ns))
			driving[m] = &trace[i];
	}
	CHECK_EQ(on_area, 3);
	uint64_t first_end_ns = on_area ? driving[0]->end_ns : 0;
	for (size_t m = 1; m < on_area; m++)
		CHECK_MSG(driving[m]->start_ns >= driving[m - 1]->end_ns,
			"update %zu of the area was driven while the one before ran", m + 1);
	free(trace);
	if (first_end_ns > third_commit_ns) {
		unsigned int frames =
			scene_harness_frames_between(h, third_commit_ns, first_end_ns);
		CHECK_MSG(frames == 0, "%u frames came while the area was saturated", frames);
	}
	scene_harness_finish(h);
	epd_close(d);
	return epd_end();
}
