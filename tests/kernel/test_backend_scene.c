// SPDX-License-Identifier: MIT
/*
 * The e-paper backend against the real epdfb: a wlroots scene of rect and
 * image nodes, rendered by the pixman renderer, shown by the backend. The
 * panel read back from debugfs must show the expected quantized image pixel
 * for pixel, and the trace the expected waveforms and rects.
 */
#include "epd_test.h"
#include "scene_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 400
#define H 300

static struct epd dev;

/* The scene's gray image, as the test expects the panel to show it. */
static uint8_t scene_gray[W * H];
static uint8_t previous_panel_buf[W * H];

/* The latest commit's present event came after wlroots' commit event for it, and says shown. */
static void
check_presented(struct scene_harness *h)
{
	char error[128];
	bool presented = false;

	CHECK_MSG(scene_harness_check_present(
			  h, h->last_commit_seq, &presented, error, sizeof(error)),
		"%s", error);
	CHECK_MSG(presented, "commit %u was presented as discarded", h->last_commit_seq);
}

static void
paint(uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint8_t v)
{
	for (uint32_t row = y; row < y + h; row++)
		memset(scene_gray + (size_t)row * W + x, v, w);
}

static void
expected_levels(uint8_t *out, const uint8_t *gray, unsigned int levels)
{
	for (size_t i = 0; i < (size_t)W * H; i++)
		out[i] = epd_quant(gray[i], levels);
}

/*
 * Shows the scene, waits for the panel, and checks that the trace holds an
 * update of exactly this rect with this waveform, not flashing. Returns the
 * number of updates in the trace.
 */
static size_t
show_expecting(struct scene_harness *h, struct epd *d, uint32_t left, uint32_t top, uint32_t w,
	uint32_t hgt, const char *waveform)
{
	struct vl_epd_feedback feedback;
	struct epd_trace *trace;
	bool found = false;

	epd_trace_clear(d);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	CHECK(!feedback.flashed);
	check_presented(h);
	REQUIRE_RC(epd_wait_idle(d), 0);
	size_t n = epd_trace_read(d, &trace);
	for (size_t i = 0; i < n; i++) {
		epd_trace_print(&trace[i]);
		if (trace[i].left != left || trace[i].top != top || trace[i].width != w ||
			trace[i].height != hgt)
			continue;
		found = true;
		CHECK_MSG(strcmp(trace[i].waveform, waveform) == 0 && !trace[i].flash,
			"update of %ux%u at %u,%u: %s%s, expected %s", w, hgt, left, top,
			trace[i].waveform, trace[i].flash ? " (flashing)" : "", waveform);
	}
	CHECK_MSG(found, "no update of %ux%u at %u,%u", w, hgt, left, top);
	free(trace);
	return n;
}

int
main(void)
{
	struct scene_harness harness, *h = &harness;
	struct vl_epd_feedback feedback;
	char error[256];
	struct epd *d = &dev;

	epd_begin("backend_scene", 240);
	epd_phase("load");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=10");
	epd_stats_reset(d);
	epd_trace_clear(d);
	REQUIRE_MSG(scene_harness_start(h, d->devnode, error, sizeof(error)), "backend on %s: %s",
		d->devnode, error);

	/* wlroots enables the output with a black placeholder buffer */
	epd_phase("enabling the output shows nothing");
	uint8_t *panel = epd_alloc_image(d), *expect = epd_alloc_image(d),
		*before = epd_alloc_image(d);
	REQUIRE_RC(epd_wait_idle(d), 0);
	CHECK_EQ(epd_stat(d, "updates_submitted"), 0);
	memset(expect, 255, (size_t)W * H);
	epd_read_panel(d, panel);
	CHECK_IMAGE(d, panel, expect, "panel after enabling");

	epd_phase("first frame: one flashing GC16 refresh of the whole panel");
	uint8_t ramp[160 * 80];
	for (uint32_t y = 0; y < 80; y++)
		for (uint32_t x = 0; x < 160; x++)
			ramp[y * 160 + x] = (uint8_t)(x * 255 / 159);
	scene_harness_rect(h, 0, 0, W, H, 255);
	paint(0, 0, W, H, 255);
	scene_harness_rect(h, 20, 20, 100, 60, 0);
	paint(20, 20, 100, 60, 0);
	struct wlr_scene_rect *gray_rect = scene_harness_rect(h, 150, 20, 100, 60, 128);
	paint(150, 20, 100, 60, 128);
	REQUIRE(scene_harness_image(h, 20, 150, 160, 80, ramp) != NULL);
	for (uint32_t y = 0; y < 80; y++)
		memcpy(scene_gray + (size_t)(150 + y) * W + 20, ramp + y * 160, 160);
	scene_harness_rect(h, 300, 0, 1, H, 0);
	paint(300, 0, 1, H, 0);

	unsigned int presented = h->presented;
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	CHECK(feedback.flashed);
	check_presented(h);
	REQUIRE_RC(epd_wait_idle(d), 0);
	epd_read_panel(d, panel);
	expected_levels(expect, scene_gray, 16);
	CHECK_IMAGE(d, panel, expect, "first frame");
	/*
	 * Since the module was loaded: the panel was white, so a single update
	 * whose result is the scene never showed anything else.
	 */
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);
	uint64_t settled_ns = 0;
	for (size_t i = 0; i < n; i++) {
		epd_trace_print(&trace[i]);
		if (trace[i].end_ns > settled_ns)
			settled_ns = trace[i].end_ns;
	}
	if (CHECK_MSG(n == 1, "%zu updates since the module was loaded, expected one", n)) {
		CHECK(trace[0].left == 0 && trace[0].top == 0 && trace[0].width == W &&
			trace[0].height == H);
		CHECK(strcmp(trace[0].waveform, "GC16") == 0 && trace[0].flash);
		CHECK_EQ(trace[0].merged, 0);
	}
	free(trace);
	CHECK_EQ(epd_stat(d, "updates_submitted"), 1);
	CHECK_EQ(epd_stat(d, "flashes"), 1);
	/* presentation time is when the panel settled, not when the frame was sent */
	CHECK_GT(h->presented, presented);
	uint64_t present_ns = (uint64_t)h->last_present.tv_sec * 1000000000ULL +
			      (uint64_t)h->last_present.tv_nsec;
	CHECK_MSG(present_ns >= settled_ns,
		"the present event's time is %.3f ms before the panel settled",
		((double)settled_ns - (double)present_ns) / 1e6);
	CHECK_EQ(h->discarded, 0);

	epd_phase("a 1-pixel column becomes a 1-pixel DU update");
	memcpy(before, expect, W * H);
	scene_harness_rect(h, 350, 0, 1, H, 0);
	paint(350, 0, 1, H, 0);
	CHECK_EQ(show_expecting(h, d, 350, 0, 1, H, "DU"), 1);
	epd_read_panel(d, panel);
	expected_levels(expect, scene_gray, 16);
	CHECK_GHOSTED_RECT(d, panel, before, expect, 2, 0, 0, W, H, "column", NULL);

	epd_phase("gray UI content changes with GL16");
	memcpy(before, expect, W * H);
	uint8_t *previous_panel = previous_panel_buf;
	memcpy(previous_panel, panel, W * H);
	scene_harness_set_gray(gray_rect, 64);
	paint(150, 20, 100, 60, 64);
	show_expecting(h, d, 150, 20, 100, 60, "GL16");
	epd_read_panel(d, panel);
	expected_levels(expect, scene_gray, 16);
	CHECK_GHOSTED_RECT(d, panel, before, expect, 16, 150, 20, 100, 60, "gray rect", NULL);
	size_t touched = 0;
	for (uint32_t y = 0; y < H; y++)
		for (uint32_t x = 0; x < W; x++)
			if ((x < 150 || x >= 250 || y < 20 || y >= 80) &&
				panel[y * W + x] != previous_panel[y * W + x])
				touched++;
	CHECK_MSG(touched == 0, "%zu pixels outside the gray rect changed", touched);

	epd_phase("damage without a change: no update, the commit still settles");
	epd_trace_clear(d);
	long long submitted = epd_stat(d, "updates_submitted");
	scene_harness_damage_all(h);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	check_presented(h);
	CHECK_EQ(epd_stat(d, "updates_submitted"), submitted);

	epd_phase("an animation hint on gray content: A2, dithered to black and white");
	memcpy(previous_panel_buf, panel, W * H);
	struct vl_epd_hint hint = {
		.box = {.x = 150, .y = 20, .width = 100, .height = 60},
		.mode = VL_EPD_MODE_ANIMATION,
		.dither = VL_EPD_DITHER_AUTO,
	};
	vl_epd_output_add_hint(h->output, &hint);
	scene_harness_set_gray(gray_rect, 100);
	paint(150, 20, 100, 60, 100);
	show_expecting(h, d, 150, 20, 100, 60, "A2");
	epd_read_panel(d, panel);
	size_t dark = 0, light = 0;
	for (uint32_t y = 20; y < 80; y++) {
		for (uint32_t x = 150; x < 250; x++) {
			uint8_t level = epd_quant(panel[y * W + x], 2);
			dark += level == 0;
			light += level == 255;
		}
	}
	/* Gray 100 dithers to about 100/255 white, 155/255 black. */
	CHECK_MSG(dark > 3000 && dark < 4200 && light == 6000 - dark,
		"dithered rect: %zu dark and %zu light pixels", dark, light);

	free(panel);
	free(expect);
	free(before);
	scene_harness_finish(h);
	epd_close(d);
	return epd_end();
}
