// SPDX-License-Identifier: MIT
/*
 * xclock -update 1 through Xwayland under vellum on epdfb: its window
 * reaches the panel, and then its hands tick: the driver's trace keeps
 * getting updates, seconds apart, and the panel's picture changes.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "epd_test.h"
#include "vellum_run.h"

#define TICKS 3
/* The first and the last of TICKS updates are two ticks apart at least. */
#define TICK_SPREAD_NS 2000000000ULL
/* Dark pixels of a clock face: the circle's ticks and the hands. */
#define MIN_INK 100

int
main(void)
{
	struct epd dev, *d = &dev;
	struct vellum_run run;

	epd_begin("vellum_xclock", 280);
	epd_open(d, "width=640 height=480 bpp=8 time_scale=10");
	epd_clear(d);
	epd_trace_clear(d);

	epd_phase("xclock's window reaches the panel");
	const char *args[] = {"-d", d->devnode, "--", "sh", "-c",
		VELLUM_SAY_DISPLAY "exec xclock -update 1", NULL};
	vellum_start(&run, args, NULL);
	REQUIRE(vellum_expect_display(&run, 60));
	uint8_t *before = epd_alloc_image(d), *after = epd_alloc_image(d);
	size_t ink = 0;
	for (int i = 0; i < 1800 && ink <= MIN_INK; i++) {
		if (i)
			epd_sleep_ms(100);
		epd_read_panel(d, before);
		ink = vellum_ink_box(before, d->width, 0, 0, d->width, d->height, 255, NULL);
	}
	REQUIRE_MSG(ink > MIN_INK, "xclock's face never reached the panel (%zu dark pixels)", ink);

	epd_phase("its hands tick");
	/*
	 * The updates of the window's first frames come in a burst; ticks are
	 * a second apart, by the driver's clock.
	 */
	size_t from = vellum_trace_count(d), n = from;
	uint64_t spread_ns = 0;
	struct epd_trace *trace = NULL;
	for (int i = 0; i < 1200 && (n < from + TICKS || spread_ns < TICK_SPREAD_NS); i++) {
		epd_sleep_ms(100);
		free(trace);
		n = epd_trace_read(d, &trace);
		if (n > from)
			spread_ns = trace[n - 1].submit_ns - trace[from].submit_ns;
	}
	for (size_t i = from; i < n; i++)
		epd_trace_print(&trace[i]);
	free(trace);
	printf("%zu updates after the clock showed, over %.3f s\n", n - from,
		(double)spread_ns / 1e9);
	CHECK_MSG(n >= from + TICKS && spread_ns >= TICK_SPREAD_NS,
		"the clock did not tick: %zu updates over %.3f s after it showed", n - from,
		(double)spread_ns / 1e9);
	REQUIRE_RC(epd_wait_idle(d), 0);
	epd_read_panel(d, after);
	size_t changed = 0;
	for (size_t i = 0; i < (size_t)d->width * d->height; i++)
		changed += before[i] != after[i];
	printf("%zu pixels changed\n", changed);
	CHECK_MSG(changed > 0, "the updates changed nothing on the panel: the hands did not move");
	free(before);
	free(after);

	vellum_stop(&run, SIGTERM, 60);
	epd_close(d);
	return epd_end();
}
