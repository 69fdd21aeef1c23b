// SPDX-License-Identifier: MIT
/*
 * Panel power and idleness: the panel powers down MXCFB_SET_PWRDOWN_DELAY ms
 * after its last update, never earlier (the stats' power_down_ns against the
 * trace's end_ns), and never with -1; a new delay applies to a power-down
 * already scheduled too. Once idle the driver runs no work item at all,
 * which the workqueue trace events show.
 */
#include "epd_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

/* A timer may fire up to a jiffy early against the nanosecond clock. */
#define JIFFY_NS 10000000ull

static struct epd dev;

static void
power_is(struct epd *d, const char *expected)
{
	char state[16];

	epd_stat_str(d, "power", state, sizeof(state));
	CHECK_MSG(strcmp(state, expected) == 0, "power: %s, expected %s", state, expected);
}

static void
set_delay(struct epd *d, int32_t ms)
{
	REQUIRE_OK(ioctl(d->fd, MXCFB_SET_PWRDOWN_DELAY, &ms));
}

static void
update(struct epd *d, uint32_t marker)
{
	epd_fill(d, 10, 10, 50, 20, (uint8_t)(marker * 40));
	epd_show(d, 10, 10, 50, 20, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, marker);
}

/* Polls for the power-down, for far longer than any delay used here. */
static void
wait_power_off(struct epd *d)
{
	char state[16] = "";

	for (int i = 0; i < 500; i++) {
		epd_stat_str(d, "power", state, sizeof(state));
		if (!strcmp(state, "off"))
			return;
		epd_sleep_ms(20);
	}
	epd_fail(__FILE__, __LINE__, "the panel is still powered 10 s later");
}

/* End of the last completed update, from the trace. */
static uint64_t
last_end_ns(struct epd *d)
{
	struct epd_trace *t;
	size_t n = epd_trace_read(d, &t);
	uint64_t end = 0;

	for (size_t i = 0; i < n; i++)
		end = t[i].end_ns > end ? t[i].end_ns : end;
	free(t);
	REQUIRE(end);
	return end;
}

/* The last power-down came delay_ms or more after since_ns. */
static void
powered_down_after(struct epd *d, uint64_t since_ns, uint32_t delay_ms, long long count)
{
	char *snap = epd_stats_snapshot(d);
	long long down_ns = epd_snapshot_stat_or(snap, "power_down_ns", -1);
	uint64_t down = (uint64_t)down_ns;

	CHECK_EQ(epd_snapshot_stat(snap, "power_downs"), count);
	free(snap);
	if (!CHECK_MSG(down_ns >= 0, "stats has no power_down_ns"))
		return;
	CHECK_MSG(down + JIFFY_NS >= since_ns + delay_ms * 1000000ull,
		"powered down %.1f ms after the last update, the delay is %u ms",
		((double)down - (double)since_ns) / 1e6, delay_ms);
}

int
main(void)
{
	struct epd *d = &dev;
	uint64_t set_ns;

	epd_begin("power", 120);
	epd_phase("load");
	epd_open(d, "width=320 height=240 bpp=8 time_scale=10 auto_update=0");

	epd_phase("power-down after the delay, not before");
	set_delay(d, 200);
	update(d, 1);
	wait_power_off(d);
	powered_down_after(d, last_end_ns(d), 200, 1);

	epd_phase("an update powers the panel up again");
	update(d, 2);
	wait_power_off(d);
	powered_down_after(d, last_end_ns(d), 200, 2);

	epd_phase("FB_POWERDOWN_DISABLE keeps it on");
	set_delay(d, FB_POWERDOWN_DISABLE);
	update(d, 3);
	epd_sleep_ms(1000);
	power_is(d, "on");
	CHECK_EQ(epd_stat(d, "power_downs"), 2);

	epd_phase("a delay set while the panel idles powered applies");
	set_ns = epd_now_ns();
	set_delay(d, 100);
	wait_power_off(d);
	powered_down_after(d, set_ns, 100, 3);

	epd_phase("-1 right after an update cancels the power-down scheduled");
	long long downs = epd_stat(d, "power_downs");

	/* a stalled emulator may let the 1 s pass before -1 is set: try again */
	for (int attempt = 0; attempt < 3; attempt++) {
		set_delay(d, 1000);
		update(d, 4);
		set_delay(d, FB_POWERDOWN_DISABLE);
		if (epd_stat(d, "power_downs") == downs)
			break;
		printf("the panel powered down before -1 was set; again\n");
		downs = epd_stat(d, "power_downs");
	}
	REQUIRE_MSG(epd_stat(d, "power_downs") == downs,
		"the panel always powered down before the delay was changed: no conclusion");
	epd_sleep_ms(2000);
	power_is(d, "on");
	CHECK_EQ(epd_stat(d, "power_downs"), downs);

	epd_phase("no work item runs while the panel is idle");
	REQUIRE_MSG(epd_wq_trace_start(), "workqueue trace events are not available");
	epd_wq_trace_stop();
	set_delay(d, 100);
	update(d, 5);
	wait_power_off(d);
	REQUIRE(epd_wq_trace_start());
	epd_sleep_ms(2000);
	int idle_runs = epd_wq_driver_runs();
	CHECK_MSG(idle_runs == 0, "%d driver work items ran on an idle panel", idle_runs);

	/* The same trace does see the driver's work when there is some. */
	update(d, 6);
	int busy_runs = epd_wq_driver_runs();
	CHECK_MSG(busy_runs > 0, "the trace shows no driver work for an update");
	epd_wq_trace_stop();

	epd_close(d);
	return epd_end();
}
