// SPDX-License-Identifier: MIT
/*
 * The e-paper backend on epdrm through KMS ("drm:/dev/dri/cardN"): updates
 * are atomic commits of the backend's buffer whose damage clips are the
 * trace's rects, with the waveform the backend chose through
 * EPD_WAVEFORM, and a frame's updates of one waveform are one commit with
 * a clip each; the panel ends up showing the scene; the backend's
 * feedback says settled only once the panel has finished (the settle
 * fence, polled on the event loop), never before the trace's end time.
 */
#include "epdrm_test.h"
#include "scene_harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 400
#define H 300

int
main(void)
{
	struct scene_harness harness, *h = &harness;
	struct vl_epd_feedback feedback;
	struct epdrm dev, *e = &dev;
	char device[sizeof(e->devnode) + 8], error[256];
	static uint8_t image[W * H];

	epd_begin("backend_drm", 240);
	epdrm_load("width=400 height=300 time_scale=10");
	/* the backend must be the card's only client, its master */
	epdrm_open(e);
	epdrm_close(e);
	snprintf(device, sizeof(device), "drm:%.*s", (int)sizeof(e->devnode) - 1, e->devnode);
	REQUIRE_MSG(scene_harness_start(h, device, error, sizeof(error)), "backend on %s: %s",
		device, error);

	epd_phase("a full-screen gradient with a black block");
	REQUIRE(scene_harness_gradient_with_block(h, W, H, image));
	REQUIRE_MSG(epdrm_wait_idle(e), "the panel did not go idle");
	epd_trace_clear(&e->panel);
	REQUIRE(scene_harness_show(h, &feedback));
	uint64_t settled_ns = epd_now_ns();
	CHECK(feedback.settled);
	/* the settle fences are polled on the event loop: no thread waits in them */
	CHECK_EQ(epd_threads_named("epd-submit"), 1);
	CHECK_EQ(epd_threads_named("epd-wait"), 0);
	REQUIRE(epdrm_wait_idle(e));
	uint8_t *panel = epd_alloc_image(&e->panel), *expect = epd_alloc_image(&e->panel);
	epd_read_panel(&e->panel, panel);
	for (size_t i = 0; i < (size_t)W * H; i++)
		expect[i] = epd_quant(image[i], 16);
	CHECK_IMAGE(&e->panel, panel, expect, "the scene on epdrm");
	struct epd_trace *trace;
	size_t n = epd_trace_read(&e->panel, &trace);
	CHECK_GT(n, 0);
	for (size_t i = 0; i < n; i++) {
		epd_trace_print(&trace[i]);
		CHECK_MSG(trace[i].end_ns <= settled_ns,
			"the feedback said settled %.1f ms before update %zu ended",
			(double)(trace[i].end_ns - settled_ns) / 1e6, i);
	}
	free(trace);

	epd_phase("a black square on white: one update of exactly its rect, in DU");
	scene_harness_rect(h, 0, 0, W, H, 0xff);
	REQUIRE(scene_harness_show(h, &feedback));
	REQUIRE(epdrm_wait_idle(e));
	epd_trace_clear(&e->panel);
	scene_harness_rect(h, 300, 40, 24, 16, 0);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	REQUIRE(epdrm_wait_idle(e));
	n = epd_trace_read(&e->panel, &trace);
	CHECK_EQ(n, 1);
	if (n == 1) {
		epd_trace_print(&trace[0]);
		CHECK_MSG(trace[0].left == 300 && trace[0].top == 40 && trace[0].width == 24 &&
				  trace[0].height == 16,
			"update at %u,%u %ux%u", trace[0].left, trace[0].top, trace[0].width,
			trace[0].height);
		CHECK_MSG(!strcmp(trace[0].waveform, "DU"), "waveform %s", trace[0].waveform);
	}
	free(trace);
	epd_read_panel(&e->panel, panel);
	CHECK_LT(panel[48 * W + 310], 0x20);

	epd_phase("two black squares apart in one frame: one commit, a DU update for each");
	epd_trace_clear(&e->panel);
	scene_harness_rect(h, 40, 200, 16, 16, 0);
	scene_harness_rect(h, 340, 250, 16, 16, 0);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	REQUIRE(epdrm_wait_idle(e));
	n = epd_trace_read(&e->panel, &trace);
	CHECK_EQ(n, 2);
	for (size_t i = 0; i < n; i++) {
		epd_trace_print(&trace[i]);
		CHECK_MSG(!strcmp(trace[i].waveform, "DU"), "waveform %s", trace[i].waveform);
		CHECK_EQ(trace[i].width, 16);
	}
	/* a commit's updates carry its settle fence's marker */
	if (n == 2) {
		CHECK_NE(trace[0].marker, 0);
		CHECK_MSG(trace[0].marker == trace[1].marker, "two commits: markers %u and %u",
			trace[0].marker, trace[1].marker);
	}
	free(trace);
	epd_read_panel(&e->panel, panel);
	CHECK_LT(panel[208 * W + 48], 0x20);
	CHECK_LT(panel[258 * W + 348], 0x20);

	free(panel);
	free(expect);
	scene_harness_finish(h);
	/* the backend's threads let go of the card soon after it is destroyed */
	int rc = -EAGAIN;
	for (int i = 0; i < 100 && rc == -EAGAIN; i++) {
		rc = epdrm_try_unload();
		if (rc == -EAGAIN)
			epd_sleep_ms(100);
	}
	CHECK_RC(rc, 0);
	return epd_end();
}
