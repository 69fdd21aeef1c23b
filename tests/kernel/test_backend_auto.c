// SPDX-License-Identifier: MIT
/*
 * The e-paper backend's "auto" device: with only a framebuffer that is not
 * an e-paper one (vfb), it refuses with a message naming the drivers it
 * looked for; with epdfb loaded after vfb, it skips vfb, drives epdfb, and
 * the panel shows the scene.
 */
#include "epd_test.h"
#include "scene_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-server-core.h>

#define W 400
#define H 300

static struct epd dev;

int
main(void)
{
	struct vl_epd_backend_options options = {.device = "auto"};
	struct scene_harness harness, *h = &harness;
	struct vl_epd_feedback feedback;
	char vfb[32], error[256] = "";
	struct epd *d = &dev;

	epd_begin("backend_auto", 240);

	epd_phase("only a framebuffer that is not e-paper");
	epd_try_unload();
	REQUIRE_MSG(epd_find_fb() < 0, "an epdfb framebuffer is left after rmmod");
	REQUIRE_MSG(scene_harness_vfb(vfb, sizeof(vfb), 8, 0, 0), "cannot set up vfb");
	printf("vfb: %s\n", vfb);
	struct wl_display *display = wl_display_create();
	struct wlr_backend *backend = vl_epd_backend_create(
		wl_display_get_event_loop(display), &options, error, sizeof(error));
	printf("auto: %s\n", error);
	CHECK_MSG(backend == NULL, "auto took %s, which is no e-paper framebuffer", vfb);
	CHECK_MSG(strstr(error, "no e-paper framebuffer") && strstr(error, "epdfb") &&
			  strstr(error, "mxc_epdc_fb") && strstr(error, "epdrm"),
		"error \"%s\" does not say which devices are missing", error);
	if (backend)
		wlr_backend_destroy(backend);
	wl_display_destroy(display);

	epd_phase("epdfb after vfb: auto finds epdfb");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=10");
	int vfb_index = atoi(vfb + strlen("/dev/fb"));
	/* With vfb first, auto has to pass over it, not just take fb0. */
	CHECK_GT(d->fbnum, vfb_index);
	REQUIRE_MSG(scene_harness_start_with(h, &options, error, sizeof(error)), "auto: %s", error);
	printf("auto: %s\n", h->output->description);
	char expected[300];
	snprintf(expected, sizeof(expected), "%.63s (epdfb,", d->devnode);
	CHECK_MSG(strncmp(h->output->description, expected, strlen(expected)) == 0,
		"auto opened \"%s\", expected %s", h->output->description, d->devnode);

	epd_phase("the scene reaches epdfb's panel");
	scene_harness_rect(h, 0, 0, W, H, 255);
	scene_harness_rect(h, 30, 40, 100, 50, 0);
	epd_trace_clear(d);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	REQUIRE_RC(epd_wait_idle(d), 0);
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);
	CHECK_GE(n, 1);
	free(trace);
	uint8_t *panel = epd_alloc_image(d), *expect = epd_alloc_image(d);
	memset(expect, 255, (size_t)W * H);
	for (uint32_t y = 40; y < 90; y++)
		memset(expect + (size_t)y * W + 30, 0, 100);
	epd_read_panel(d, panel);
	CHECK_IMAGE(d, panel, expect, "panel");
	free(panel);
	free(expect);
	scene_harness_finish(h);
	epd_close(d);
	CHECK_EQ(system("rmmod vfb"), 0);
	return epd_end();
}
