// SPDX-License-Identifier: MIT
/*
 * Merging keeps submission order: an update never merges into a queued one
 * past a queued update it overlaps. While a full-screen update is in flight,
 * A (GC16) and B (DU) are queued; then C (GC16) overlaps B and touches A.
 * Merging C into A would run C before B, and B's DU would then overwrite C's
 * gray with white where they overlap; C must run after B. (With collisions
 * per pixel A and B, which change nothing the full-screen update drives to
 * other levels, start beside it; C's gray collides, and is driven by its
 * resubmission, its last trace line.)
 */
#include "epd_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 320
#define H 240

#define GRAY 0x99 /* a GC16 level; DU rounds it to white */

enum { M_FULL = 1, M_A, M_B, M_C };

static struct epd dev;

static const struct epd_trace *
by_marker(const struct epd_trace *t, size_t n, uint32_t marker)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].marker == marker)
			return &t[i];
	return NULL;
}

static const struct epd_trace *
last_by_marker(const struct epd_trace *t, size_t n, uint32_t marker)
{
	const struct epd_trace *e = NULL;

	for (size_t i = 0; i < n; i++)
		if (t[i].marker == marker)
			e = &t[i];
	return e;
}

static void
send(struct epd *d, uint32_t left, uint32_t width, uint32_t waveform, uint32_t marker)
{
	REQUIRE_RC(epd_update(d, left, 0, width, 100, waveform, UPDATE_MODE_PARTIAL, marker,
			   TEMP_USE_AMBIENT, 0),
		0);
}

int
main(void)
{
	struct epd *d = &dev;
	const struct epd_trace *full, *b, *c;
	struct epd_trace *t;
	uint8_t *panel;
	size_t n, wrong = 0;

	epd_begin("merge_order", 120);
	epd_phase("load");
	epd_open(d, "width=320 height=240 bpp=8 time_scale=100 auto_update=0");
	REQUIRE_RC(epd_set_scheme(d, UPDATE_SCHEME_QUEUE_AND_MERGE), 0);

	epd_phase("full-screen update in flight, then A, B, gray, C");
	/* cold: 2.5 times as long, time to queue the others behind it */
	REQUIRE_RC(
		epd_update(d, 0, 0, W, H, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, M_FULL, 5, 0), 0);
	send(d, 0, 100, WAVEFORM_MODE_GC16, M_A);
	send(d, 150, 100, WAVEFORM_MODE_DU, M_B);
	epd_fill(d, 100, 0, 100, 100, GRAY);
	send(d, 100, 100, WAVEFORM_MODE_GC16, M_C);
	for (uint32_t m = M_FULL; m <= M_C; m++)
		CHECK_RC(epd_wait(d, m, NULL), 0);

	epd_phase("C ran after B");
	n = epd_trace_read(d, &t);
	for (size_t i = 0; i < n; i++)
		epd_trace_print(&t[i]);
	full = by_marker(t, n, M_FULL);
	b = by_marker(t, n, M_B);
	c = last_by_marker(t, n, M_C);
	REQUIRE(full && b);
	REQUIRE_MSG(by_marker(t, n, M_A) && by_marker(t, n, M_A)->submit_ns < full->end_ns,
		"A was not queued behind the full-screen update: no conclusion");
	CHECK_MSG(c, "C was merged into another update (no trace entry of its own)");
	if (c) {
		REQUIRE_MSG(c->submit_ns < full->end_ns,
			"C was not queued behind the full-screen update: no conclusion");
		CHECK_GE(c->start_ns, b->end_ns);
	}

	epd_phase("the panel shows C's gray over B's rect");
	panel = epd_alloc_image(d);
	epd_read_panel(d, panel);
	for (uint32_t y = 0; y < 100; y++) {
		for (uint32_t x = 100; x < 200; x++) {
			uint8_t p = panel[y * W + x];

			/* GC16 PARTIAL may leave a slight ghost toward white */
			if (epd_quant(p, 16) == epd_quant(GRAY, 16))
				continue;
			if (wrong++ < 4)
				printf("  pixel (%u,%u) shows %u, expected %u\n", x, y, p,
					epd_quant(GRAY, 16));
		}
	}
	CHECK_MSG(!wrong, "%zu pixels of C's rect do not show its gray", wrong);
	CHECK_EQ(panel[50 * W + 160] >= 0xf0, false);
	free(panel);
	free(t);

	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
