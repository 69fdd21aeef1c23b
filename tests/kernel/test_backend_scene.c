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

/* Trace entries, checked against one expected update. */
static const struct epd_trace *
find_update(
	const struct epd_trace *t, size_t n, uint32_t left, uint32_t top, uint32_t w, uint32_t h)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].left == left && t[i].top == top && t[i].width == w && t[i].height == h)
			return &t[i];
	return NULL;
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
	REQUIRE(h != NULL);
	REQUIRE_MSG(scene_harness_start(h, d->devnode, error, sizeof(error)), "backend on %s: %s",
		d->devnode, error);

	epd_phase("first frame: a flashing GC16 refresh of the whole panel");
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

	epd_trace_clear(d);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	CHECK(feedback.flashed);
	REQUIRE_RC(epd_wait_idle(d), 0);
	uint8_t *panel = epd_alloc_image(d), *expect = epd_alloc_image(d),
		*before = epd_alloc_image(d);
	epd_read_panel(d, panel);
	expected_levels(expect, scene_gray, 16);
	CHECK_IMAGE(d, panel, expect, "first frame");
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);
	CHECK_GE(n, 1);
	for (size_t i = 0; i < n; i++) {
		epd_trace_print(&trace[i]);
		CHECK(strcmp(trace[i].waveform, "GC16") == 0 && trace[i].flash);
	}
	free(trace);

	epd_phase("a 1-pixel column becomes a 1-pixel DU update");
	memcpy(before, expect, W * H);
	scene_harness_rect(h, 350, 0, 1, H, 0);
	paint(350, 0, 1, H, 0);
	epd_trace_clear(d);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	CHECK(!feedback.flashed);
	REQUIRE_RC(epd_wait_idle(d), 0);
	n = epd_trace_read(d, &trace);
	CHECK_EQ(n, 1);
	for (size_t i = 0; i < n; i++)
		epd_trace_print(&trace[i]);
	const struct epd_trace *column = find_update(trace, n, 350, 0, 1, H);
	CHECK_MSG(column, "no 1x%u update at x=350", H);
	if (column)
		CHECK(strcmp(column->waveform, "DU") == 0 && !column->flash);
	free(trace);
	epd_read_panel(d, panel);
	expected_levels(expect, scene_gray, 16);
	CHECK_GHOSTED_RECT(d, panel, before, expect, 2, 0, 0, W, H, "column", NULL);

	epd_phase("gray UI content changes with GL16");
	memcpy(before, expect, W * H);
	uint8_t *previous_panel = epd_alloc_image(d);
	memcpy(previous_panel, panel, W * H);
	scene_harness_set_gray(gray_rect, 64);
	paint(150, 20, 100, 60, 64);
	epd_trace_clear(d);
	REQUIRE(scene_harness_show(h, &feedback));
	REQUIRE_RC(epd_wait_idle(d), 0);
	n = epd_trace_read(d, &trace);
	for (size_t i = 0; i < n; i++)
		epd_trace_print(&trace[i]);
	const struct epd_trace *gray_update = find_update(trace, n, 150, 20, 100, 60);
	CHECK_MSG(gray_update, "no update of the gray rect");
	if (gray_update)
		CHECK(strcmp(gray_update->waveform, "GL16") == 0 && !gray_update->flash);
	free(trace);
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
	free(previous_panel);

	epd_phase("nothing changed: no update at all");
	epd_trace_clear(d);
	scene_harness_set_gray(gray_rect, 64);
	long long submitted = epd_stat(d, "updates_submitted");
	wlr_output_schedule_frame(h->output);
	epd_sleep_ms(300);
	CHECK_EQ(epd_stat(d, "updates_submitted"), submitted);

	free(panel);
	free(expect);
	free(before);
	scene_harness_finish(h);
	epd_close(d);
	return epd_end();
}
