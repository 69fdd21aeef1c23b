// SPDX-License-Identifier: MIT
/*
 * The e-paper backend on epdfb when the driver refuses a waveform for good:
 * a waveform map numbers DU 42, which epdfb does not know (EINVAL). The
 * black square that wants DU is sent once more as GC16 and shows, its
 * commit settles, and one error says so; a second square goes out as GC16
 * at once, with no refusal and no error line. Nothing is retried in a loop.
 */
#include "epd_test.h"
#include "scene_harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vellum/epd-backend.h>
#include <wlr/util/log.h>

#define W 400
#define H 300

static struct epd dev;
static unsigned int errors_logged;

static void
count_errors(enum wlr_log_importance importance, const char *fmt, va_list args)
{
	if (importance > WLR_ERROR)
		return;
	errors_logged++;
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
}

/* The trace's updates of the rect at left,top; the last one in *last. */
static size_t
updates_at(struct epd *d, uint32_t left, uint32_t top, struct epd_trace *last)
{
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace), found = 0;

	for (size_t i = 0; i < n; i++) {
		epd_trace_print(&trace[i]);
		if (trace[i].left == left && trace[i].top == top) {
			*last = trace[i];
			found++;
		}
	}
	free(trace);
	return found;
}

int
main(void)
{
	struct scene_harness harness, *h = &harness;
	struct vl_epd_feedback feedback;
	char error[256];
	struct epd *d = &dev;
	struct epd_trace last;

	epd_begin("backend_refused", 240);
	epd_phase("load");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=10");
	struct vl_epd_backend_options options = {
		.device = d->devnode,
		.waveform_map = "init=0, du=42, gc16=2, gc4=3, a2=4, gl16=5",
	};
	REQUIRE_MSG(scene_harness_start_with(h, &options, error, sizeof(error)),
		"backend on %s: %s", d->devnode, error);
	wlr_log_init(WLR_ERROR, count_errors);
	scene_harness_rect(h, 0, 0, W, H, 255);
	REQUIRE(scene_harness_show(h, &feedback));
	REQUIRE_RC(epd_wait_idle(d), 0);
	long long refused = epd_stat(d, "updates_refused");

	epd_phase("a black square wants DU, which the driver refuses: it shows as GC16");
	epd_trace_clear(d);
	scene_harness_rect(h, 40, 40, 30, 30, 0);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	REQUIRE_RC(epd_wait_idle(d), 0);
	CHECK_EQ(updates_at(d, 40, 40, &last), 1);
	CHECK_MSG(!strcmp(last.waveform, "GC16"), "the square ran %s", last.waveform);
	CHECK_EQ(errors_logged, 1);
	printf("updates refused by the driver: %lld\n", epd_stat(d, "updates_refused") - refused);

	epd_phase("the next square goes out as GC16 at once");
	epd_trace_clear(d);
	scene_harness_rect(h, 200, 100, 30, 30, 0);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	REQUIRE_RC(epd_wait_idle(d), 0);
	CHECK_EQ(updates_at(d, 200, 100, &last), 1);
	CHECK_MSG(!strcmp(last.waveform, "GC16"), "the square ran %s", last.waveform);
	CHECK_EQ(errors_logged, 1);
	uint8_t *panel = epd_alloc_image(d);
	epd_read_panel(d, panel);
	CHECK_LT(panel[50 * W + 50], 0x20);
	CHECK_LT(panel[110 * W + 210], 0x20);
	free(panel);

	scene_harness_finish(h);
	epd_close(d);
	return epd_end();
}
