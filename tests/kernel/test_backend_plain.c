// SPDX-License-Identifier: MIT
/*
 * The e-paper backend on a plain deferred-IO framebuffer: "plain:/dev/fbN"
 * makes it use no update ioctl, only writes and fsync(), with epdfb in
 * AUTOMATIC mode turning the dirty pages into row bands. The panel must end
 * up showing the scene.
 */
#include "epd_test.h"
#include "scene_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 400
#define H 300

static struct epd dev;

int
main(void)
{
	struct scene_harness harness, *h = &harness;
	struct vl_epd_feedback feedback;
	char device[300], error[256];
	struct epd *d = &dev;
	static uint8_t image[W * H];

	epd_begin("backend_plain", 240);
	epd_phase("load in AUTOMATIC mode");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=10 auto_update=1");
	snprintf(device, sizeof(device), "plain:%.63s", d->devnode);
	epd_stats_reset(d);
	epd_trace_clear(d);
	REQUIRE_MSG(scene_harness_start(h, device, error, sizeof(error)), "backend on %s: %s",
		device, error);

	epd_phase("a full-screen image with a black block");
	REQUIRE(scene_harness_gradient_with_block(h, W, H, image));

	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	REQUIRE_RC(epd_wait_idle(d), 0);

	/* Every band holds gray pixels, so deferred IO refreshed it with a flashing GC16. */
	uint8_t *panel = epd_alloc_image(d), *expect = epd_alloc_image(d);
	epd_read_panel(d, panel);
	for (size_t i = 0; i < (size_t)W * H; i++)
		expect[i] = epd_quant(image[i], 16);
	if (!CHECK_IMAGE(d, panel, expect, "plain fbdev")) {
		struct epd_trace *trace;
		size_t n = epd_trace_read(d, &trace);
		printf("framebuffer at (100,100): %u, (99,100): %u\n", epd_get(d, 100, 100),
			epd_get(d, 99, 100));
		for (size_t i = 0; i < n; i++)
			epd_trace_print(&trace[i]);
		free(trace);
	}
	/*
	 * Since the backend started, deferred IO refreshed each row once: the
	 * frame, and nothing before it (wlroots' placeholder).
	 */
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);
	static unsigned int refreshed[H];
	for (size_t i = 0; i < n; i++)
		for (uint32_t y = trace[i].top; y < trace[i].top + trace[i].height && y < H; y++)
			refreshed[y]++;
	free(trace);
	size_t rows_once = 0;
	for (uint32_t y = 0; y < H; y++)
		rows_once += refreshed[y] == 1;
	CHECK_MSG(rows_once == H, "%zu of %u rows were refreshed exactly once, in %zu updates",
		rows_once, H, n);
	CHECK_GT(epd_stat(d, "defio_runs"), 0);
	CHECK_GT(epd_stat(d, "waveform_gc16"), 0);

	free(panel);
	free(expect);
	scene_harness_finish(h);
	epd_close(d);
	return epd_end();
}
