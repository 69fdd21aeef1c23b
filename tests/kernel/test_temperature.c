// SPDX-License-Identifier: MIT
/*
 * Temperature: MXCFB_SET_TEMPERATURE sets the ambient temperature (0..50,
 * else EINVAL), which scales every waveform (>= 20: x1, 10..19: x1.5,
 * 0..9: x2.5) in EPDFB_GET_WAVEFORM and in real updates; an update's own temp
 * field overrides it unless it is TEMP_USE_AMBIENT; the ambient_temp module
 * parameter sets the initial value. time_scale=100.
 */
#include "epd_test.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 400
#define H 300

static struct epd dev;

static void
check_durations(struct epd *d, int temp)
{
	struct epdfb_waveform_info info;

	for (uint32_t i = 0; i < 6; i++) {
		if (!CHECK_RC(epd_get_waveform(d, i, &info), 0))
			continue;
		CHECK_MSG(info.duration_ms == epd_duration_ms(i, temp, 100),
			"%s at %d C: duration_ms %u, expected %u", epd_wf_names[i], temp,
			info.duration_ms, epd_duration_ms(i, temp, 100));
	}
}

/*
 * One update with the given temp field; checks that the wait took at least
 * the duration at expect_temp and that the panel drove it that long
 * according to the trace, which comes from the driver's clock: its tolerance
 * on the long side stays below the next slower temperature range.
 */
static void
timed_update(struct epd *d, uint32_t waveform, int temp, int expect_temp, uint32_t marker)
{
	uint32_t dur = epd_duration_ms(waveform, expect_temp, 100);
	struct epd_trace *t;
	size_t n;

	epd_trace_clear(d);
	for (uint32_t y = 100; y < 140; y++)
		for (uint32_t x = 100; x < 300; x++)
			epd_put(d, x, y, (uint8_t)(x + y + marker * 50));
	uint64_t t0 = epd_now_ns();

	REQUIRE_RC(
		epd_update(d, 100, 100, 200, 40, waveform, UPDATE_MODE_FULL, marker, temp, 0), 0);
	CHECK_RC(epd_wait(d, marker, NULL), 0);
	double ms = epd_ms_since(t0);

	printf("%s with temp %d (%d C): %.1f ms, expected %u ms\n", epd_wf_names[waveform], temp,
		expect_temp, ms, dur);
	CHECK_MSG(ms >= dur, "%s at %d C: the wait returned after %.1f ms, before %u ms",
		epd_wf_names[waveform], expect_temp, ms, dur);
	n = epd_trace_read(d, &t);
	if (CHECK_EQ(n, 1)) {
		epd_trace_print(&t[0]);
		CHECK_EQ(t[0].marker, marker);
		CHECK_TRACE_DURATION(&t[0], dur, epd_wf_names[waveform]);
	}
	free(t);
	/* GC16 FULL and INIT flash: the panel is exact */
	if (waveform == WAVEFORM_MODE_GC16) {
		epd_model_apply(d, 100, 100, 200, 40, 16);
		CHECK_PANEL_MODEL(d, "after the update");
	}
}

int
main(void)
{
	static const int valid[] = {50, 20, 19, 10, 9, 5, 0, 25};
	static const int invalid[] = {51, -1, 1000, -40, INT_MIN, INT_MAX, TEMP_USE_AMBIENT};
	struct epd *d = &dev;

	epd_begin("temperature", 120);
	epd_phase("load with time_scale=100");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=100 auto_update=0");
	REQUIRE_EQ(d->width, W);
	CHECK_EQ(epd_stat(d, "temperature"), 25);
	check_durations(d, 25);

	epd_phase("MXCFB_SET_TEMPERATURE over the valid range");
	for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		if (!CHECK_RC(epd_set_temp(d, valid[i]), 0))
			continue;
		CHECK_EQ(epd_stat(d, "temperature"), valid[i]);
		check_durations(d, valid[i]);
	}

	epd_phase("MXCFB_SET_TEMPERATURE outside 0..50");
	REQUIRE_RC(epd_set_temp(d, 12), 0);
	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		printf("temperature %d\n", invalid[i]);
		CHECK_RC(epd_set_temp(d, invalid[i]), -EINVAL);
		CHECK_EQ(epd_stat(d, "temperature"), 12);
	}
	check_durations(d, 12);

	epd_phase("updates at the ambient temperature");
	epd_clear(d);
	REQUIRE_RC(epd_set_temp(d, 5), 0);
	timed_update(d, WAVEFORM_MODE_GC16, TEMP_USE_AMBIENT, 5, 1);
	REQUIRE_RC(epd_set_temp(d, 15), 0);
	timed_update(d, WAVEFORM_MODE_DU, TEMP_USE_AMBIENT, 15, 2);

	epd_phase("the update's own temperature");
	REQUIRE_RC(epd_set_temp(d, 25), 0);
	timed_update(d, WAVEFORM_MODE_GC16, 5, 5, 3);
	REQUIRE_RC(epd_set_temp(d, 5), 0);
	timed_update(d, WAVEFORM_MODE_GC16, 25, 25, 4);
	timed_update(d, WAVEFORM_MODE_A2, 0, 0, 5);
	timed_update(d, WAVEFORM_MODE_GC16, 50, 50, 6);
	CHECK_EQ(epd_stat(d, "temperature"), 5);

	epd_phase("invalid update temperatures");
	epd_stats_reset(d);
	CHECK_RC(epd_update(d, 0, 0, 8, 8, WAVEFORM_MODE_DU, UPDATE_MODE_FULL, 7, 51, 0), -EINVAL);
	CHECK_RC(epd_update(d, 0, 0, 8, 8, WAVEFORM_MODE_DU, UPDATE_MODE_FULL, 7, -1, 0), -EINVAL);
	CHECK_RC(epd_update(d, 0, 0, 8, 8, WAVEFORM_MODE_DU, UPDATE_MODE_FULL, 7, 0x1001, 0),
		-EINVAL);
	CHECK_RC(epd_update(d, 0, 0, 8, 8, WAVEFORM_MODE_DU, UPDATE_MODE_FULL, 7, INT_MIN, 0),
		-EINVAL);
	CHECK_EQ(epd_stat(d, "updates_submitted"), 0);

	epd_phase("ambient_temp=15 module parameter");
	epd_close(d);
	epd_open(d, "width=400 height=300 bpp=8 time_scale=100 auto_update=0 ambient_temp=15");
	CHECK_EQ(epd_stat(d, "temperature"), 15);
	check_durations(d, 15);
	timed_update(d, WAVEFORM_MODE_GC16, TEMP_USE_AMBIENT, 15, 8);

	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
