// SPDX-License-Identifier: MIT
/*
 * The e-paper backend on a 32 bpp epdfb: the backend writes gray as
 * R = G = B, which the driver's luma turns back into the same gray, so the
 * panel must show the scene quantized exactly as on an 8 bpp panel.
 */
#include "epd_test.h"
#include "scene_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 320
#define H 240

static struct epd dev;

int
main(void)
{
	struct scene_harness harness, *h = &harness;
	struct vl_epd_feedback feedback;
	static uint8_t image[W * H];
	char error[256];
	struct epd *d = &dev;

	epd_begin("backend_xrgb", 240);
	epd_phase("load at 32 bpp");
	epd_open(d, "width=320 height=240 bpp=32 time_scale=10");
	REQUIRE_EQ(d->bpp, 32);
	epd_stats_reset(d);
	REQUIRE_MSG(scene_harness_start(h, d->devnode, error, sizeof(error)), "backend: %s", error);

	epd_phase("a page of gray ramps and a black block");
	for (uint32_t y = 0; y < H; y++)
		for (uint32_t x = 0; x < W; x++)
			image[y * W + x] = (uint8_t)(x * 255 / (W - 1));
	REQUIRE(scene_harness_image(h, 0, 0, W, H, image) != NULL);
	scene_harness_rect(h, 100, 100, 40, 30, 0);
	for (uint32_t y = 100; y < 130; y++)
		memset(image + y * W + 100, 0, 40);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	CHECK(feedback.flashed);
	REQUIRE_RC(epd_wait_idle(d), 0);
	/* the first frame, and nothing before it (wlroots' placeholder) */
	CHECK_EQ(epd_stat(d, "updates_submitted"), 1);
	CHECK_EQ(epd_stat(d, "flashes"), 1);

	uint8_t *panel = epd_alloc_image(d), *expect = epd_alloc_image(d);
	epd_read_panel(d, panel);
	for (size_t i = 0; i < (size_t)W * H; i++)
		expect[i] = epd_quant(image[i], 16);
	CHECK_IMAGE(d, panel, expect, "32 bpp panel");
	CHECK_EQ(epd_fb_gray(d, 110, 110), 0);

	free(panel);
	free(expect);
	scene_harness_finish(h);
	epd_close(d);
	return epd_end();
}
