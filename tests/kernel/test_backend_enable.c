// SPDX-License-Identifier: MIT
/*
 * Disabling and enabling the e-paper backend's output on epdfb. A disabled
 * output drives nothing: no update for content changed meanwhile, no idle
 * cleanup of the ghosts it left. Enabling it again shows no placeholder
 * (wlroots enables an output with a black buffer): the next frame is diffed
 * against what the panel kept, so only what changed is updated.
 */
#include "epd_test.h"
#include "scene_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/types/wlr_output.h>

#define W          400
#define H          300
#define CLEANUP_MS 1500

static struct epd dev;

static bool
set_enabled(struct scene_harness *h, bool enabled)
{
	struct wlr_output_state state;

	wlr_output_state_init(&state);
	wlr_output_state_set_enabled(&state, enabled);
	bool ok = wlr_output_commit_state(h->output, &state);
	wlr_output_state_finish(&state);
	return ok;
}

static void
fill(uint8_t *image, uint32_t x, uint32_t y, uint32_t w, uint32_t hgt, uint8_t v)
{
	for (uint32_t row = y; row < y + hgt; row++)
		memset(image + (size_t)row * W + x, v, w);
}

int
main(void)
{
	/* over by the time the output is enabled again */
	struct vl_epd_backend_options options = {
		.idle_cleanup_ms = CLEANUP_MS,
		.input_window_ms = CLEANUP_MS,
	};
	struct scene_harness harness, *h = &harness;
	struct vl_epd_feedback feedback;
	char error[256];
	struct epd *d = &dev;

	epd_begin("backend_enable", 240);
	epd_phase("load; a page, then a black block drawn with the pen that leaves a ghost");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=10");
	options.device = d->devnode;
	REQUIRE_MSG(
		scene_harness_start_with(h, &options, error, sizeof(error)), "backend: %s", error);
	scene_harness_rect(h, 0, 0, W, H, 255);
	REQUIRE(scene_harness_show(h, &feedback));
	/* A2, remembered for a flashing cleanup */
	vl_epd_backend_notify_input(h->backend, VL_EPD_INPUT_PEN);
	scene_harness_rect(h, 40, 40, 60, 60, 0);
	REQUIRE(scene_harness_show(h, &feedback));
	REQUIRE_RC(epd_wait_idle(d), 0);

	epd_phase("disabled: nothing is driven, not even the idle cleanup");
	REQUIRE(set_enabled(h, false));
	/* Without a ghost left, there would be no cleanup to hold back. */
	REQUIRE_MSG(epd_stat_f(d, "ghost_mean") > 0,
		"the cleanup ran before the output was disabled: the machine is too slow");
	epd_stats_reset(d);
	epd_trace_clear(d);
	uint8_t *kept = epd_alloc_image(d);
	epd_read_panel(d, kept);
	scene_harness_rect(h, 200, 150, 80, 50, 0x80);
	/* A compositor that commits anyway: wlroots refuses to render (and logs so). */
	scene_harness_damage_all(h);
	wlr_scene_output_commit(h->scene_output, NULL);
	/* The cleanup was due CLEANUP_MS after the block: wait twice as long. */
	scene_harness_idle(h, 2 * CLEANUP_MS);
	REQUIRE_RC(epd_wait_idle(d), 0);
	CHECK_EQ(epd_stat(d, "updates_submitted"), 0);
	CHECK_MSG(epd_stat_f(d, "ghost_mean") > 0, "the ghost was cleaned while disabled");

	epd_phase("enabled again: no placeholder, only what changed is updated");
	REQUIRE(set_enabled(h, true));
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	REQUIRE_RC(epd_wait_idle(d), 0);
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);
	bool gray_updated = false;
	for (size_t i = 0; i < n; i++) {
		const struct epd_trace *t = &trace[i];
		epd_trace_print(t);
		bool gray = t->left == 200 && t->top == 150 && t->width == 80 && t->height == 50;
		/* the idle cleanup may flash the block's ghost away, and nothing else */
		bool cleanup = t->flash && t->left <= 40 && t->top <= 40 &&
			       t->left + t->width >= 100 && t->top + t->height >= 100 &&
			       t->width < W && t->height < H;
		gray_updated |= gray;
		CHECK_MSG(gray || cleanup,
			"update %zu (%ux%u at %u,%u) is neither the change nor a cleanup", i,
			t->width, t->height, t->left, t->top);
	}
	free(trace);
	CHECK_MSG(gray_updated, "the gray block was not updated on its own");

	/* What the panel kept, with the gray block on it; a ghost may remain in the blocks. */
	uint8_t *panel = epd_alloc_image(d), *expect = epd_alloc_image(d),
		*before = epd_alloc_image(d);
	epd_read_panel(d, panel);
	memset(before, 255, (size_t)W * H);
	memset(expect, 255, (size_t)W * H);
	fill(expect, 40, 40, 60, 60, 0);
	fill(expect, 200, 150, 80, 50, epd_quant(0x80, 16));
	CHECK_GHOSTED_RECT(d, panel, before, expect, 16, 0, 0, W, H, "panel after enabling", NULL);
	size_t unchanged = 0;
	for (size_t i = 0; i < (size_t)W * H; i++) {
		uint32_t x = i % W, y = i / W;
		bool block = x >= 40 && x < 100 && y >= 40 && y < 100;
		bool gray = x >= 200 && x < 280 && y >= 150 && y < 200;
		unchanged += !block && !gray && panel[i] == kept[i];
	}
	CHECK_EQ(unchanged, (size_t)W * H - 60 * 60 - 80 * 50);

	free(panel);
	free(expect);
	free(before);
	free(kept);
	scene_harness_finish(h);
	epd_close(d);
	return epd_end();
}
