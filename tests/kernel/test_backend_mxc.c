// SPDX-License-Identifier: MIT
/*
 * The e-paper backend through the generic mxc_epdc_fb interface
 * ("mxc:/dev/fbN": the update ioctls, no waveform discovery) against epdfb,
 * first with the NXP BSP's waveform numbering, then with a waveform map from
 * configuration that numbers the kinds differently: the driver must receive
 * the mapped numbers, and the panel show what those waveforms show.
 */
#include "epd_test.h"
#include "scene_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 400
#define H 300

static struct epd dev;

/* Shows the scene and returns the one update it made, or fails. */
static struct epd_trace
show_one(struct scene_harness *h, struct epd *d, struct vl_epd_feedback *feedback)
{
	struct epd_trace *trace, one = {0};

	epd_trace_clear(d);
	REQUIRE(scene_harness_show(h, feedback));
	CHECK(feedback->settled);
	REQUIRE_RC(epd_wait_idle(d), 0);
	size_t n = epd_trace_read(d, &trace);
	for (size_t i = 0; i < n; i++)
		epd_trace_print(&trace[i]);
	if (CHECK_EQ(n, 1))
		one = trace[0];
	free(trace);
	return one;
}

static void
check_rect(const struct epd_trace *t, uint32_t left, uint32_t top, uint32_t w, uint32_t hgt,
	const char *waveform)
{
	CHECK_MSG(t->left == left && t->top == top && t->width == w && t->height == hgt,
		"update of %ux%u at %u,%u, expected %ux%u at %u,%u", t->width, t->height, t->left,
		t->top, w, hgt, left, top);
	CHECK_MSG(strcmp(t->waveform, waveform) == 0, "update with %s, expected %s", t->waveform,
		waveform);
}

/*
 * The rect on the panel went from before to after through a waveform of
 * levels gray levels; a non-flashing one may leave a ghost toward before.
 */
static void
check_panel_rect(struct epd *d, uint32_t left, uint32_t top, uint32_t w, uint32_t hgt,
	uint8_t before, uint8_t after, unsigned int levels, const char *what)
{
	uint8_t *panel = epd_alloc_image(d), *from = epd_alloc_image(d), *to = epd_alloc_image(d);

	epd_read_panel(d, panel);
	memset(from, before, (size_t)W * H);
	memset(to, after, (size_t)W * H);
	CHECK_GHOSTED_RECT(d, panel, from, to, levels, left, top, w, hgt, what, NULL);
	free(panel);
	free(from);
	free(to);
}

static void
start(struct scene_harness *h, struct epd *d, const char *map)
{
	struct vl_epd_backend_options options = {.waveform_map = map};
	char device[96], error[256];
	struct vl_epd_feedback feedback;

	snprintf(device, sizeof(device), "mxc:%s", d->devnode);
	options.device = device;
	epd_stats_reset(d);
	REQUIRE_MSG(scene_harness_start_with(h, &options, error, sizeof(error)),
		"backend on %s with map \"%s\": %s", device, map ? map : "(none)", error);
	scene_harness_rect(h, 0, 0, W, H, 255);
	epd_trace_clear(d);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.flashed);
	REQUIRE_RC(epd_wait_idle(d), 0);
	/* the first frame, and nothing before it (wlroots' placeholder) */
	CHECK_EQ(epd_stat(d, "updates_submitted"), 1);
	CHECK_EQ(epd_stat(d, "flashes"), 1);
	check_panel_rect(d, 0, 0, W, H, 255, 255, 16, "first frame");
}

int
main(void)
{
	struct scene_harness harness, *h = &harness;
	struct vl_epd_feedback feedback;
	struct epd *d = &dev;
	struct epd_trace t;

	epd_begin("backend_mxc", 240);
	epd_phase("load");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=10");

	epd_phase("the BSP's numbering: mono -> DU, gray -> GL16");
	start(h, d, NULL);
	scene_harness_rect(h, 50, 0, 1, H, 0);
	t = show_one(h, d, &feedback);
	check_rect(&t, 50, 0, 1, H, "DU");
	CHECK(strcmp(feedback.waveform, "DU") == 0);
	check_panel_rect(d, 50, 0, 1, H, 255, 0, 2, "column");
	scene_harness_rect(h, 100, 100, 40, 40, 0x80);
	t = show_one(h, d, &feedback);
	check_rect(&t, 100, 100, 40, 40, "GL16");
	check_panel_rect(d, 100, 100, 40, 40, 255, epd_quant(0x80, 16), 16, "gray square");
	scene_harness_finish(h);

	/*
	 * A driver numbering DU as 4 and GL16 as 3: on epdfb those numbers are
	 * A2 and GC4, so the trace names them and the gray square shows 4 levels.
	 */
	epd_phase("a waveform map: du=4, gl16=3");
	start(h, d, "init=0, du=4, gc16=2, gl16=3");
	scene_harness_rect(h, 60, 0, 1, H, 0);
	t = show_one(h, d, &feedback);
	check_rect(&t, 60, 0, 1, H, "A2");
	CHECK_MSG(strcmp(feedback.waveform, "DU") == 0, "feedback names %s, expected the kind DU",
		feedback.waveform);
	check_panel_rect(d, 60, 0, 1, H, 255, 0, 2, "column");
	scene_harness_rect(h, 200, 100, 40, 40, 0x80);
	t = show_one(h, d, &feedback);
	check_rect(&t, 200, 100, 40, 40, "GC4");
	check_panel_rect(
		d, 200, 100, 40, 40, 255, epd_quant(epd_quant(0x80, 16), 4), 4, "gray square");
	scene_harness_finish(h);

	epd_close(d);
	return epd_end();
}
