// SPDX-License-Identifier: MIT
/*
 * The e-paper backend gives the framebuffer back as it found it: it switches
 * epdfb to REGION mode while it drives the panel, and once it is destroyed
 * the driver is in the auto-update mode it started in again, so the console
 * and plain programs that only write to the framebuffer are shown again.
 * The update API cannot read the mode back: the mode to put back is the one
 * of epdfb's auto_update parameter.
 */
#include "epd_test.h"
#include "scene_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define W 400
#define H 300

static struct epd dev;

/*
 * Runs the backend on the device: shows a page with a black block, then
 * destroys the backend. The destruction itself must update nothing.
 */
static void
run_backend(struct epd *d)
{
	struct scene_harness harness, *h = &harness;
	struct vl_epd_feedback feedback;
	char error[256];

	REQUIRE_MSG(scene_harness_start(h, d->devnode, error, sizeof(error)), "backend on %s: %s",
		d->devnode, error);
	scene_harness_rect(h, 0, 0, W, H, 255);
	scene_harness_rect(h, 20, 20, 60, 60, 0);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	REQUIRE_RC(epd_wait_idle(d), 0);
	epd_trace_clear(d);
	scene_harness_finish(h);
	/* Deferred IO left over from the backend's writes runs now, if any. */
	CHECK_OK(fsync(d->fd));
	REQUIRE_RC(epd_wait_idle(d), 0);
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);
	for (size_t i = 0; i < n; i++)
		epd_trace_print(&trace[i]);
	CHECK_MSG(n == 0, "%zu updates after the backend was destroyed, before any write", n);
	free(trace);
}

/* Writes a black band into the mapping; returns how many updates deferred IO made of it. */
static size_t
write_band(struct epd *d, uint32_t top, uint32_t height, bool *covered)
{
	struct epd_trace *trace;

	epd_trace_clear(d);
	epd_fill(d, 0, top, W, height, 0);
	CHECK_OK(fsync(d->fd));
	REQUIRE_RC(epd_wait_idle(d), 0);
	size_t n = epd_trace_read(d, &trace);
	*covered = false;
	for (size_t i = 0; i < n; i++) {
		epd_trace_print(&trace[i]);
		if (trace[i].top <= top && trace[i].top + trace[i].height >= top + height &&
			trace[i].left == 0 && trace[i].width == W)
			*covered = true;
	}
	free(trace);
	return n;
}

int
main(void)
{
	struct epd *d = &dev;
	bool covered;

	epd_begin("backend_release", 240);

	epd_phase("AUTOMATIC mode: writes are shown again after the backend");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=10 auto_update=1");
	REQUIRE_RC(epd_set_auto_mode(d, AUTO_UPDATE_MODE_AUTOMATIC_MODE), 0);
	run_backend(d);
	size_t n = write_band(d, 200, 20, &covered);
	CHECK_MSG(n >= 1 && covered,
		"a write after the backend made %zu updates, none of the written rows: the "
		"driver was left in REGION mode",
		n);
	uint8_t *panel = epd_alloc_image(d);
	epd_read_panel(d, panel);
	size_t black = 0;
	for (uint32_t y = 200; y < 220; y++)
		for (uint32_t x = 0; x < W; x++)
			black += epd_quant(panel[(size_t)y * W + x], 2) == 0;
	CHECK_MSG(black == (size_t)W * 20, "the panel shows %zu of the band's %u pixels black",
		black, W * 20);
	free(panel);
	epd_close(d);

	epd_phase("REGION mode: it stays so after the backend");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=10 auto_update=0");
	run_backend(d);
	n = write_band(d, 200, 20, &covered);
	CHECK_MSG(n == 0, "a write in REGION mode made %zu updates", n);
	epd_close(d);

	return epd_end();
}
