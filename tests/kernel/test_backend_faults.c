// SPDX-License-Identifier: MIT
/*
 * The e-paper backend on epdfb under each fault the driver injects: an
 * update the controller fails, a pixel capture that fails, a temperature
 * read that fails, an update that hangs until the driver abandons it. The
 * backend sends the damaged area again, the commit is reported shown only
 * then, and the panel read back ends showing the newest frame, with frames
 * committed while an update hung. The driver's stats count each fault,
 * and its trace holds the update that showed the area after it.
 */
#include "epd_test.h"
#include "scene_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 400
#define H 300

static struct epd dev;

/* The scene as the test expects the panel to show it: black and white only. */
static uint8_t scene_gray[W * H];

static void
draw(struct scene_harness *h, uint32_t x, uint32_t y, uint32_t w, uint32_t hgt, uint8_t v)
{
	scene_harness_rect(h, (int)x, (int)y, (int)w, (int)hgt, v);
	for (uint32_t row = y; row < y + hgt; row++)
		memset(scene_gray + (size_t)row * W + x, v, w);
}

/*
 * The panel shows the scene: every pixel is nearest to the scene's, the
 * ghosts that non-flashing updates left allowed.
 */
static void
check_panel(struct epd *d, const char *what)
{
	uint8_t *panel = epd_alloc_image(d);
	size_t wrong = 0, first = 0;

	REQUIRE_RC(epd_wait_idle(d), 0);
	epd_read_panel(d, panel);
	for (size_t i = 0; i < (size_t)W * H; i++)
		if (epd_quant(panel[i], 2) != scene_gray[i] && !wrong++)
			first = i;
	CHECK_MSG(wrong == 0,
		"%s: %zu pixels are not the scene's, the first at %zu,%zu: %u, not %u", what, wrong,
		first % W, first / W, panel[first], scene_gray[first]);
	free(panel);
}

/* Completed updates in the trace that cover the rect. */
static size_t
updates_covering(struct epd *d, uint32_t x, uint32_t y, uint32_t w, uint32_t hgt)
{
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace), covering = 0;

	for (size_t i = 0; i < n; i++) {
		epd_trace_print(&trace[i]);
		if (trace[i].left <= x && trace[i].top <= y &&
			trace[i].left + trace[i].width >= x + w &&
			trace[i].top + trace[i].height >= y + hgt)
			covering++;
	}
	free(trace);
	return covering;
}

/*
 * One fault on the next update: a rect drawn, committed, reported shown
 * only once the panel shows it.
 */
static void
one_fault(struct scene_harness *h, struct epd *d, const char *knob, const char *stat,
	bool failed_shows, uint32_t x, uint8_t v)
{
	struct vl_epd_feedback feedback;

	epd_phase("%s: the area is sent again and shows", knob);
	epd_stats_reset(d);
	epd_trace_clear(d);
	epd_inject(d, knob, 1);
	draw(h, x, 40, 60, 50, v);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	check_panel(d, knob);
	CHECK_EQ(epd_injected_left(d, knob), 0);
	char *stats = epd_stats_snapshot(d);
	CHECK_EQ(epd_snapshot_stat(stats, stat), 1);
	/* the faulty update, then the one sent again */
	CHECK_GE(epd_snapshot_stat(stats, "updates_submitted"), 2);
	CHECK_EQ(epd_snapshot_stat(stats, "updates_failed"), failed_shows ? 0 : 1);
	free(stats);
	CHECK_GE(updates_covering(d, x, 40, 60, 50), failed_shows ? 2u : 1u);
}

/* Frames committed while an update hangs: the newest of each area ends on the panel. */
static void
frames_during_hang(struct scene_harness *h, struct epd *d)
{
	struct vl_epd_feedback feedback;

	epd_phase("inject_update_hangs: frames committed meanwhile all reach the panel");
	epd_stats_reset(d);
	epd_trace_clear(d);
	epd_inject(d, "inject_update_hangs", 1);
	draw(h, 20, 150, 80, 60, 0);
	REQUIRE(scene_harness_commit(h));
	/* over the hung area and beside it */
	draw(h, 40, 170, 40, 20, 255);
	draw(h, 200, 150, 80, 60, 0);
	REQUIRE(scene_harness_commit(h));
	draw(h, 300, 150, 60, 60, 0);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	/*
	 * The later frames went on beside the hung update (the DU over it
	 * took its pixels over): it is abandoned, and its area sent again
	 * with the newest content.
	 */
	for (int i = 0; i < 600 && (epd_stat(d, "update_timeouts") < 1 ||
					   updates_covering(d, 20, 150, 80, 60) < 1);
		i++)
		scene_harness_idle(h, 50);
	CHECK_EQ(epd_stat(d, "update_timeouts"), 1);
	check_panel(d, "after the hang");
	CHECK_EQ(epd_injected_left(d, "inject_update_hangs"), 0);
	CHECK_EQ(epd_stat(d, "updates_failed"), 1);
	CHECK_GE(updates_covering(d, 20, 150, 80, 60), 1u);
}

int
main(void)
{
	struct scene_harness harness, *h = &harness;
	struct vl_epd_feedback feedback;
	char error[256];
	struct epd *d = &dev;

	epd_begin("backend_faults", 240);
	epd_phase("load");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=10");
	REQUIRE_MSG(scene_harness_start(h, d->devnode, error, sizeof(error)), "backend on %s: %s",
		d->devnode, error);

	epd_phase("first frame");
	draw(h, 0, 0, W, H, 255);
	draw(h, 10, 250, 380, 20, 0);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	check_panel(d, "first frame");

	one_fault(h, d, "inject_update_errors", "update_errors", false, 20, 0);
	one_fault(h, d, "inject_capture_failures", "capture_errors", false, 100, 0);
	one_fault(h, d, "inject_temperature_errors", "temperature_errors", true, 180, 0);
	one_fault(h, d, "inject_update_hangs", "update_timeouts", false, 260, 0);
	/* and back to white where the faults were */
	one_fault(h, d, "inject_update_errors", "update_errors", false, 20, 255);
	frames_during_hang(h, d);

	scene_harness_finish(h);
	epd_close(d);
	epd_try_unload();
	return epd_end();
}
