// SPDX-License-Identifier: MIT
/*
 * Ghosting: non-flashing updates that change pixels leave a ghost that grows
 * with each transition (A2 most, DU less, GC4/GL16 least) and shows on the
 * panel as pixels pushed toward their previous level; stats ghost_mean is its
 * mean over the panel. A flashing update (GC16 FULL) clears the ghost in its
 * rect, and only there.
 */
#include "epd_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 400
#define H 300

static struct epd dev;

struct rect {
	uint32_t left, top, width, height;
};

/* Mean absolute difference between the panel and the ideal image. */
static double
mean_dev(const struct epd *d, const uint8_t *panel)
{
	double sum = 0;

	for (size_t i = 0; i < (size_t)W * H; i++)
		sum += abs((int)panel[i] - (int)d->model[i]);
	return sum / ((double)W * H);
}

/*
 * The panel deviates from the ideal image no more than ghost_mean says (less
 * where a ghost is larger than its pixel's last transition), give or take
 * rounding to whole gray levels.
 */
static void
check_ghost_matches_panel(struct epd *d, const char *what)
{
	uint8_t *panel = epd_alloc_image(d);
	double g = epd_stat_f(d, "ghost_mean");
	double dev_mean;

	epd_read_panel(d, panel);
	dev_mean = mean_dev(d, panel);
	printf("%s: ghost_mean %.3f, mean |panel - ideal| %.3f\n", what, g, dev_mean);
	CHECK_MSG(dev_mean <= g + 1.0,
		"%s: ghost_mean %.3f but the panel deviates from the ideal image by %.3f on "
		"average",
		what, g, dev_mean);
	free(panel);
}

/* n non-flashing PARTIAL updates of r alternating black and white, ending white. */
static void
toggle(struct epd *d, struct rect r, uint32_t waveform, unsigned int n, uint32_t marker,
	double *ghost)
{
	double prev = epd_stat_f(d, "ghost_mean");
	long long driven = epd_stat(d, "pixels_driven");

	for (unsigned int i = 0; i < n; i++) {
		uint8_t v = (n - 1 - i) % 2 ? 0 : 255;

		epd_fill(d, r.left, r.top, r.width, r.height, v);
		epd_show(d, r.left, r.top, r.width, r.height, waveform, UPDATE_MODE_PARTIAL,
			marker + i);
		double g = epd_stat_f(d, "ghost_mean");

		if (ghost)
			ghost[i] = g;
		CHECK_MSG(g > prev || (i > 0 && g == prev),
			"%s transition %u: ghost_mean %.3f after %.3f", epd_wf_names[waveform],
			i + 1, g, prev);
		prev = g;
	}
	/* every pixel changes level each time */
	CHECK_EQ(epd_stat(d, "pixels_driven") - driven, (long long)n * r.width * r.height);
}

static void
phase_a2(struct epd *d, struct rect r)
{
	double ghost[20];
	uint8_t *panel = epd_alloc_image(d);
	size_t differ = 0;

	epd_phase("20 A2 PARTIAL updates alternating black and white");
	epd_stats_reset(d);
	CHECK_EQ(epd_stat_f(d, "ghost_mean"), 0.0);
	toggle(d, r, WAVEFORM_MODE_A2, 20, 100, ghost);
	printf("ghost_mean after each A2 update:");
	for (int i = 0; i < 20; i++)
		printf(" %.3f", ghost[i]);
	printf("\n");
	CHECK_MSG(ghost[19] > ghost[0], "ghost_mean did not grow: %.3f after 1, %.3f after 20",
		ghost[0], ghost[19]);
	CHECK_EQ(epd_stat(d, "flashes"), 0);
	CHECK_EQ(epd_stat(d, "waveform_a2"), 20);

	/* ideal: white; the panel is darker in r, exact elsewhere */
	epd_read_panel(d, panel);
	for (uint32_t y = r.top; y < r.top + r.height; y++)
		for (uint32_t x = r.left; x < r.left + r.width; x++)
			differ += panel[(size_t)y * W + x] != 255;
	printf("A2: %zu of %u pixels differ from white, e.g. %u\n", differ, r.width * r.height,
		panel[(size_t)r.top * W + r.left]);
	CHECK_EQ(differ, r.width * r.height);
	CHECK_IMAGE_RECT(d, panel, d->model, 0, 0, W, r.top, "above the A2 rect");
	CHECK_IMAGE_RECT(d, panel, d->model, 0, r.top + r.height, W, H - r.top - r.height,
		"below the A2 rect");
	CHECK_IMAGE_RECT(d, panel, d->model, 0, r.top, r.left, r.height, "left of the A2 rect");
	CHECK_IMAGE_RECT(d, panel, d->model, r.left + r.width, r.top, W - r.left - r.width,
		r.height, "right of the A2 rect");
	check_ghost_matches_panel(d, "after 20 A2 updates");
	free(panel);
}

static void
phase_compare(struct epd *d)
{
	static const uint32_t wfs[4] = {
		WAVEFORM_MODE_A2, WAVEFORM_MODE_DU, WAVEFORM_MODE_GL16, WAVEFORM_MODE_GC4};
	double delta[4];

	epd_phase("ghost per waveform: A2 > DU > GL16, GC4 (4 transitions each)");
	for (uint32_t i = 0; i < 4; i++) {
		struct rect r = {10 + i * 70, 10, 60, 40};
		double before = epd_stat_f(d, "ghost_mean");

		toggle(d, r, wfs[i], 4, 200 + i * 10, NULL);
		delta[i] = epd_stat_f(d, "ghost_mean") - before;
		printf("%s: ghost_mean grew by %.3f\n", epd_wf_names[wfs[i]], delta[i]);
	}
	CHECK_MSG(delta[0] > delta[1], "A2 ghost %.3f not above DU ghost %.3f", delta[0], delta[1]);
	CHECK_MSG(
		delta[1] > delta[2], "DU ghost %.3f not above GL16 ghost %.3f", delta[1], delta[2]);
	CHECK_MSG(
		delta[1] > delta[3], "DU ghost %.3f not above GC4 ghost %.3f", delta[1], delta[3]);
	CHECK_MSG(delta[2] > 0, "GL16 left no ghost (%.3f)", delta[2]);
	CHECK_MSG(delta[3] > 0, "GC4 PARTIAL left no ghost (%.3f)", delta[3]);
	check_ghost_matches_panel(d, "after the per-waveform toggles");
}

static void
phase_half_flash(struct epd *d, struct rect r)
{
	uint8_t *before = epd_alloc_image(d), *panel = epd_alloc_image(d);
	double g0 = epd_stat_f(d, "ghost_mean");
	uint32_t half = r.width / 2;

	epd_phase("GC16 FULL over the left half of the A2 rect clears its ghost only");
	epd_read_panel(d, before);
	epd_stats_reset(d);
	epd_show(d, r.left, r.top, half, r.height, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 300);
	CHECK_EQ(epd_stat(d, "flashes"), 1);
	double g1 = epd_stat_f(d, "ghost_mean");

	printf("ghost_mean %.3f -> %.3f\n", g0, g1);
	CHECK_MSG(g1 < g0 && g1 > 0,
		"ghost_mean %.3f after flashing half of a ghosted rect (was "
		"%.3f)",
		g1, g0);
	epd_read_panel(d, panel);
	CHECK_IMAGE_RECT(d, panel, d->model, r.left, r.top, half, r.height, "flashed half");
	/* the rest keeps its ghosts */
	CHECK_IMAGE_RECT(
		d, panel, before, r.left + half, r.top, r.width - half, r.height, "other half");
	CHECK_IMAGE_RECT(d, panel, before, 0, 0, W, r.top, "rows above");
	check_ghost_matches_panel(d, "after flashing half");
	free(before);
	free(panel);
}

static void
phase_clear(struct epd *d)
{
	struct rect all = {0, 0, W, 200};

	epd_phase("GC16 FULL over all ghosted rects: no ghost left, the panel is ideal");
	/* new content: a gray gradient over part of the area */
	for (uint32_t y = 20; y < 60; y++)
		for (uint32_t x = 0; x < W; x++)
			epd_put(d, x, y, (uint8_t)(x * 255 / (W - 1)));
	epd_stats_reset(d);
	epd_show(d, all.left, all.top, all.width, all.height, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL,
		400);
	epd_model_apply(d, all.left, all.top, all.width, all.height, 16);
	CHECK_EQ(epd_stat(d, "flashes"), 1);
	CHECK_EQ(epd_stat(d, "pixels_driven"), (long long)all.width * all.height);
	CHECK_EQ(epd_stat_f(d, "ghost_mean"), 0.0);
	CHECK_PANEL_MODEL(d, "after the flash");

	epd_phase("INIT clears too");
	toggle(d, (struct rect){50, 220, 100, 40}, WAVEFORM_MODE_A2, 4, 500, NULL);
	CHECK_GT(epd_stat_f(d, "ghost_mean"), 0.0);
	epd_show(d, 0, 200, W, 100, WAVEFORM_MODE_INIT, UPDATE_MODE_FULL, 510);
	memset(d->model + (size_t)200 * W, 255, (size_t)100 * W);
	CHECK_EQ(epd_stat_f(d, "ghost_mean"), 0.0);
	CHECK_PANEL_MODEL(d, "after INIT");
}

int
main(void)
{
	struct epd *d = &dev;
	struct rect r = {100, 100, 100, 80};

	epd_begin("ghosting", 120);
	epd_phase("load");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=10 auto_update=0");
	REQUIRE_EQ(d->width, W);
	REQUIRE_EQ(d->height, H);
	CHECK_EQ(epd_stat_f(d, "ghost_mean"), 0.0);
	epd_clear(d);
	CHECK_EQ(epd_stat_f(d, "ghost_mean"), 0.0);

	phase_a2(d, r);
	phase_compare(d);
	phase_half_flash(d, r);
	phase_clear(d);

	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
