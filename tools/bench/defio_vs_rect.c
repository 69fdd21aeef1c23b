// SPDX-License-Identifier: MIT
/*
 * Pixels driven per pixel changed: deferred IO alone (AUTOMATIC mode, each
 * dirty page becomes a full-width row band refreshed in full) against
 * explicit rectangle updates (REGION mode, PARTIAL updates of what changed),
 * on the real epdfb module at the default 1872x1404 panel size.
 *
 * Scenes: a 1-pixel vertical line moving across the screen, and a 200x60
 * clock region whose digits change once. "driven" is the driver's own
 * pixels_driven counter; "changed" is counted from the framebuffer.
 */
#include "epd_test.h"
#include "seven_segment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINE_STEPS  24
#define LINE_STRIDE 8
#define CLOCK_LEFT  1500
#define CLOCK_TOP   100
#define CLOCK_W     200
#define CLOCK_H     60

enum method { DEFERRED_IO, RECT_UPDATES };

struct result {
	long long changed;
	long long driven;
	long long updates;
	long long flashes;
	double panel_ms;
};

static const char *const method_names[] = {"deferred IO", "rect updates"};

/* Pixels whose value differs between the snapshot and the framebuffer. */
static long long
count_changed(const struct epd *d, const uint8_t *before)
{
	long long changed = 0;

	for (uint32_t y = 0; y < d->height; y++)
		for (uint32_t x = 0; x < d->width; x++)
			changed += before[(size_t)y * d->width + x] != epd_get(d, x, y);
	return changed;
}

static void
snapshot(const struct epd *d, uint8_t *before)
{
	for (uint32_t y = 0; y < d->height; y++)
		for (uint32_t x = 0; x < d->width; x++)
			before[(size_t)y * d->width + x] = epd_get(d, x, y);
}

static void
fill_framebuffer(void *data, int x, int y, int w, int h, uint8_t gray)
{
	epd_fill(data, x, y, w, h, gray);
}

static void
draw_digit(struct epd *d, uint32_t left, uint32_t top, int digit)
{
	seven_segment_draw(left, top, digit, fill_framebuffer, d);
}

static void
draw_clock(struct epd *d, int hours, int minutes)
{
	const int digits[4] = {hours / 10, hours % 10, minutes / 10, minutes % 10};

	for (int i = 0; i < 4; i++)
		draw_digit(d, CLOCK_LEFT + 8 + i * 46 + (i >= 2 ? 8 : 0), CLOCK_TOP + 5, digits[i]);
}

static void
prepare(struct epd *d, enum method method)
{
	REQUIRE_RC(epd_set_auto_mode(d, method == DEFERRED_IO ? AUTO_UPDATE_MODE_AUTOMATIC_MODE
							      : AUTO_UPDATE_MODE_REGION_MODE),
		0);
	epd_clear(d);
	REQUIRE_RC(epd_wait_idle(d), 0);
	epd_stats_reset(d);
	epd_trace_clear(d);
}

/* Makes the panel show what was written: fsync for deferred IO. */
static void
flush(struct epd *d, enum method method)
{
	if (method == DEFERRED_IO)
		REQUIRE_OK(fsync(d->fd));
	REQUIRE_RC(epd_wait_idle(d), 0);
}

static void
collect(struct epd *d, struct result *r)
{
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);

	r->driven = epd_stat(d, "pixels_driven");
	r->updates = epd_stat(d, "updates_completed");
	r->flashes = epd_stat(d, "flashes");
	r->panel_ms = 0;
	for (size_t i = 0; i < n; i++)
		r->panel_ms += (trace[i].end_ns - trace[i].start_ns) / 1e6;
	free(trace);
}

static void
run_line(struct epd *d, enum method method, struct result *r)
{
	uint8_t *before = epd_alloc_image(d);
	uint32_t previous = 0;

	prepare(d, method);
	memset(r, 0, sizeof(*r));
	for (int step = 0; step < LINE_STEPS; step++) {
		uint32_t x = 100 + step * LINE_STRIDE;

		snapshot(d, before);
		if (step)
			epd_fill(d, previous, 0, 1, d->height, 255);
		epd_fill(d, x, 0, 1, d->height, 0);
		r->changed += count_changed(d, before);
		if (method == RECT_UPDATES) {
			if (step)
				REQUIRE_RC(
					epd_update(d, previous, 0, 1, d->height, WAVEFORM_MODE_DU,
						UPDATE_MODE_PARTIAL, 0, TEMP_USE_AMBIENT, 0),
					0);
			REQUIRE_RC(epd_update(d, x, 0, 1, d->height, WAVEFORM_MODE_DU,
					   UPDATE_MODE_PARTIAL, 0, TEMP_USE_AMBIENT, 0),
				0);
		}
		flush(d, method);
		previous = x;
	}
	collect(d, r);
	free(before);
}

static void
run_clock(struct epd *d, enum method method, struct result *r)
{
	uint8_t *before = epd_alloc_image(d);

	prepare(d, method);
	draw_clock(d, 12, 34);
	if (method == RECT_UPDATES)
		REQUIRE_RC(epd_update(d, CLOCK_LEFT, CLOCK_TOP, CLOCK_W, CLOCK_H, WAVEFORM_MODE_DU,
				   UPDATE_MODE_PARTIAL, 0, TEMP_USE_AMBIENT, 0),
			0);
	flush(d, method);
	epd_stats_reset(d);
	epd_trace_clear(d);

	memset(r, 0, sizeof(*r));
	snapshot(d, before);
	draw_clock(d, 12, 35);
	r->changed = count_changed(d, before);
	if (method == RECT_UPDATES)
		REQUIRE_RC(epd_update(d, CLOCK_LEFT, CLOCK_TOP, CLOCK_W, CLOCK_H, WAVEFORM_MODE_DU,
				   UPDATE_MODE_PARTIAL, 0, TEMP_USE_AMBIENT, 0),
			0);
	flush(d, method);
	collect(d, r);
	free(before);
}

static void
print_row(const char *scene, enum method method, const struct result *r)
{
	printf("%-22s %-13s %8lld %8lld %7lld %7lld %10.1f %14.2f\n", scene, method_names[method],
		r->changed, r->driven, r->updates, r->flashes, r->panel_ms,
		(double)r->driven / (double)r->changed);
}

int
main(void)
{
	struct result line[2], clock[2];
	struct epd d;

	epd_begin("bench_defio_vs_rect", 600);
	epd_open(&d, "width=1872 height=1404 bpp=8 time_scale=1");

	for (int m = DEFERRED_IO; m <= RECT_UPDATES; m++) {
		run_line(&d, m, &line[m]);
		run_clock(&d, m, &clock[m]);
	}

	printf("\npixels driven per pixel changed, %ux%u panel (time_scale=1: panel ms are 1/100 "
	       "of real)\n",
		d.width, d.height);
	printf("%-22s %-13s %8s %8s %7s %7s %10s %14s\n", "scene", "method", "changed", "driven",
		"updates", "flashes", "panel ms", "driven/changed");
	for (int m = DEFERRED_IO; m <= RECT_UPDATES; m++)
		print_row("thin line, 24 moves", m, &line[m]);
	for (int m = DEFERRED_IO; m <= RECT_UPDATES; m++)
		print_row("clock 200x60, 1 change", m, &clock[m]);
	printf("deferred IO drives %.0fx the pixels of rect updates on the thin line, %.0fx on the "
	       "clock\n",
		(double)line[DEFERRED_IO].driven / (double)line[RECT_UPDATES].driven,
		(double)clock[DEFERRED_IO].driven / (double)clock[RECT_UPDATES].driven);

	epd_close(&d);
	return epd_end();
}
