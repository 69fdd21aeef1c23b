// SPDX-License-Identifier: MIT
/*
 * What MXCFB_WAIT_FOR_UPDATE_COMPLETE reports per marker: collision_test of
 * a reused marker is that of its latest update, which collides only where
 * it changes pixels an update in flight is driving to another level: those
 * pixels wait, the rest of it starts at once, unless both are fast (DU, A2)
 * and the pixels are retargeted; each marker of a merged
 * update reports whether its update collided; an update whose pixels
 * could not be captured when it started reports EIO to its waiter and
 * leaves the panel as it was.
 */
#include "epd_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 320
#define H 240

static struct epd dev;

static uint32_t
wait_collision(struct epd *d, uint32_t marker)
{
	uint32_t collision = 0xdead;

	CHECK_RC(epd_wait(d, marker, &collision), 0);
	return collision;
}

static void
send(struct epd *d, uint32_t left, uint32_t top, uint32_t w, uint32_t h, uint32_t waveform,
	uint32_t marker)
{
	REQUIRE_RC(epd_update(d, left, top, w, h, waveform, UPDATE_MODE_PARTIAL, marker,
			   TEMP_USE_AMBIENT, 0),
		0);
}

static void
reused_marker(struct epd *d)
{
	epd_phase("a reused marker reports its latest update's collision");
	epd_fill(d, 0, 0, 100, 100, 0x00);
	send(d, 0, 0, 100, 100, WAVEFORM_MODE_GC16, 10);
	epd_fill(d, 0, 0, 50, 50, 0xff);
	send(d, 0, 0, 50, 50, WAVEFORM_MODE_DU, 7);
	CHECK_EQ(wait_collision(d, 7), 1);
	CHECK_EQ(wait_collision(d, 10), 0);
	send(d, 200, 0, 50, 50, WAVEFORM_MODE_DU, 7);
	CHECK_EQ(wait_collision(d, 7), 0);
	/* and the other way round */
	epd_fill(d, 200, 100, 50, 50, 0x00);
	send(d, 200, 100, 50, 50, WAVEFORM_MODE_GC16, 11);
	epd_fill(d, 200, 100, 20, 20, 0xff);
	send(d, 200, 100, 20, 20, WAVEFORM_MODE_DU, 7);
	CHECK_EQ(wait_collision(d, 7), 1);
	CHECK_EQ(wait_collision(d, 11), 0);
}

static void
merged_markers(struct epd *d)
{
	long long merged = epd_stat(d, "updates_merged");

	epd_phase("each marker of a merged update reports its own collision");
	/* 16 long updates take every LUT: the next one waits without colliding */
	for (uint32_t i = 0; i < 16; i++)
		send(d, i * 20, 200, 10, 10, WAVEFORM_MODE_INIT, 100 + i);
	send(d, 0, 0, 40, 40, WAVEFORM_MODE_GC16, 20);
	send(d, 20, 20, 40, 40, WAVEFORM_MODE_GC16, 21);
	REQUIRE_MSG(epd_stat(d, "updates_merged") == merged + 1,
		"the second update did not merge into the first: no conclusion");
	/* waiting for a LUT, or queued behind an update, is no collision */
	CHECK_EQ(wait_collision(d, 20), 0);
	CHECK_EQ(wait_collision(d, 21), 0);
	for (uint32_t i = 0; i < 16; i++)
		CHECK_EQ(wait_collision(d, 100 + i), 0);
}

static struct epd_trace *
entry(struct epd_trace *t, size_t n, uint32_t marker, size_t skip)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].marker == marker && !skip--)
			return &t[i];
	epd_fail(__FILE__, __LINE__, "too few trace entries of marker %u", marker);
	return NULL;
}

/*
 * Per pixel: overlapping updates whose overlap the second does not change
 * run together; where it changes pixels being driven, only those wait.
 */
static void
pixel_collisions(struct epd *d)
{
	struct epd_trace *t = NULL, *a, *b;
	uint8_t *panel = epd_alloc_image(d);
	size_t n;

	epd_phase("an overlap the second update does not change is no collision");
	epd_trace_clear(d);
	epd_fill(d, 0, 120, 60, 20, 0x00);
	send(d, 0, 120, 40, 20, WAVEFORM_MODE_DU, 40);
	send(d, 20, 120, 40, 20, WAVEFORM_MODE_DU, 41);
	CHECK_EQ(epd_stat(d, "in_flight"), 2);
	CHECK_EQ(epd_stat(d, "queued"), 0);
	CHECK_EQ(wait_collision(d, 41), 0);
	CHECK_EQ(wait_collision(d, 40), 0);
	n = epd_trace_read(d, &t);
	CHECK_EQ(n, 2);
	a = entry(t, n, 40, 0);
	b = entry(t, n, 41, 0);
	if (a && b) {
		CHECK_EQ(a->collided, 0);
		CHECK_EQ(b->collided, 0);
		CHECK_MSG(b->start_ns < a->end_ns, "41 waited for 40");
	}
	free(t);
	t = NULL;

	epd_phase("only the pixels changed again while driven collide");
	epd_trace_clear(d);
	epd_stats_reset(d);
	epd_fill(d, 0, 150, 40, 20, 0x00);
	/* GC16: not retargeted (below) */
	send(d, 0, 150, 40, 20, WAVEFORM_MODE_GC16, 42);
	epd_fill(d, 30, 150, 10, 20, 0xff);
	epd_fill(d, 40, 150, 20, 20, 0x00);
	send(d, 30, 150, 30, 20, WAVEFORM_MODE_DU, 43);
	/*
	 * 43 started beside 42 (GC16, longer): the panel gets its other pixels
	 * (DU, 20 x 20) before 42's, its collided ones wait, resubmitted
	 */
	uint64_t t0 = epd_now_ns();
	long long driven;
	while (!(driven = epd_stat(d, "pixels_driven")) && epd_now_ns() - t0 < 3000000000ull)
		epd_sleep_ms(2);
	CHECK_EQ(driven, 20 * 20);
	CHECK_EQ(wait_collision(d, 43), 1);
	CHECK_EQ(wait_collision(d, 42), 0);
	CHECK_EQ(epd_stat(d, "pixels_driven"), 40 * 20 + 20 * 20 + 10 * 20);
	n = epd_trace_read(d, &t);
	for (size_t i = 0; i < n; i++)
		epd_trace_print(&t[i]);
	/* a line per update: 43's is that of its resubmission, over its rect */
	CHECK_EQ(n, 2);
	a = entry(t, n, 42, 0);
	b = entry(t, n, 43, 0);
	if (a && b) {
		CHECK_EQ(a->collided, 0);
		CHECK_EQ(b->collided, 1);
		CHECK_EQ(b->left, 30);
		CHECK_EQ(b->width, 30);
		CHECK_MSG(b->start_ns >= a->end_ns, "43's collided pixels ran with 42");
	}
	free(t);
	/* the panel shows what was sent last */
	epd_read_panel(d, panel);
	for (uint32_t y = 150; y < 170; y++)
		for (uint32_t x = 0; x < 60; x++)
			CHECK_MSG((x >= 30 && x < 40) ? panel[y * W + x] >= 0xc0
						      : panel[y * W + x] <= 0x20,
				"panel at %u,%u: 0x%02x", x, y, panel[y * W + x]);

	epd_phase("a DU's pixels changed again by an A2 are retargeted, no collision");
	epd_trace_clear(d);
	epd_fill(d, 0, 172, 40, 20, 0x00);
	send(d, 0, 172, 40, 20, WAVEFORM_MODE_DU, 44);
	epd_sleep_ms(100);
	epd_fill(d, 20, 172, 20, 20, 0xff);
	send(d, 20, 172, 20, 20, WAVEFORM_MODE_A2, 45);
	CHECK_EQ(epd_stat(d, "in_flight"), 2);
	CHECK_EQ(epd_stat(d, "queued"), 0);
	CHECK_EQ(wait_collision(d, 45), 0);
	CHECK_EQ(wait_collision(d, 44), 0);
	n = epd_trace_read(d, &t);
	for (size_t i = 0; i < n; i++)
		epd_trace_print(&t[i]);
	CHECK_EQ(n, 2);
	a = entry(t, n, 44, 0);
	b = entry(t, n, 45, 0);
	if (a && b) {
		CHECK_EQ(b->collided, 0);
		CHECK_MSG(b->start_ns < a->end_ns, "the A2 waited for the DU");
	}
	free(t);
	epd_read_panel(d, panel);
	for (uint32_t y = 172; y < 192; y++)
		for (uint32_t x = 0; x < 40; x++)
			CHECK_MSG(x >= 20 ? panel[y * W + x] >= 0xc0 : panel[y * W + x] <= 0x20,
				"panel at %u,%u: 0x%02x", x, y, panel[y * W + x]);
	free(panel);
}

static void
capture_failure(struct epd *d)
{
	char path[EPD_DBG_PATH_SIZE];
	char *left;

	epd_phase("a failed pixel capture is reported to the waiter");
	REQUIRE_RC(epd_set_scheme(d, UPDATE_SCHEME_QUEUE), 0);
	epd_clear(d);
	epd_stats_reset(d);
	snprintf(path, sizeof(path), "%s/inject_capture_failures", d->dbgdir);
	REQUIRE_RC(epd_write_file(path, "1"), 0);
	epd_fill(d, 50, 50, 60, 40, 0x40);
	send(d, 50, 50, 60, 40, WAVEFORM_MODE_GC16, 30);
	CHECK_RC(epd_wait(d, 30, NULL), -EIO);
	CHECK_EQ(epd_stat(d, "updates_failed"), 1);
	CHECK_EQ(epd_stat(d, "updates_completed"), 0);
	CHECK_PANEL_MODEL(d, "panel after the failed update (unchanged)");
	left = epd_read_file(path, NULL);
	REQUIRE(left);
	CHECK_EQ(atoi(left), 0);
	free(left);

	epd_phase("the same update sent again shows");
	send(d, 50, 50, 60, 40, WAVEFORM_MODE_GC16, 31);
	CHECK_RC(epd_wait(d, 31, NULL), 0);
	/* the failure is remembered for its marker only */
	CHECK_RC(epd_wait(d, 30, NULL), -EIO);
	epd_model_apply(d, 50, 50, 60, 40, 16);
	uint8_t *panel = epd_alloc_image(d);

	epd_read_panel(d, panel);
	CHECK_GHOSTED_RECT(d, panel, d->model, d->model, 16, 0, 0, W, 50, "above", NULL);
	for (uint32_t y = 50; y < 90; y++)
		for (uint32_t x = 50; x < 110; x++)
			CHECK_EQ(epd_quant(panel[y * W + x], 16), d->model[y * W + x]);
	free(panel);
}

int
main(void)
{
	struct epd *d = &dev;

	epd_begin("markers", 120);
	epd_phase("load");
	epd_open(d, "width=320 height=240 bpp=8 time_scale=100 auto_update=0");
	reused_marker(d);
	merged_markers(d);
	pixel_collisions(d);
	capture_failure(d);
	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
