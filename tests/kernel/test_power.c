// SPDX-License-Identifier: MIT
/*
 * Panel power and idleness: the panel powers down MXCFB_SET_PWRDOWN_DELAY ms
 * after its last update (never with -1), and once idle the driver runs no
 * work item at all, which the workqueue trace events show.
 */
#include "epd_test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>

#define TRACING "/sys/kernel/tracing"

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

static bool
tracing_available(void)
{
	if (access(TRACING "/trace", F_OK) != 0)
		mount("tracefs", TRACING, "tracefs", 0, NULL);
	return access(TRACING "/events/workqueue/workqueue_execute_start/enable", W_OK) == 0;
}

static void
clear_trace(void)
{
	int fd = open(TRACING "/trace", O_WRONLY | O_TRUNC | O_CLOEXEC);

	REQUIRE_MSG(fd >= 0, "cannot clear " TRACING "/trace");
	close(fd);
}

/* Work items of the driver that ran since the trace was cleared. */
static int
driver_work_runs(void)
{
	char *trace = epd_read_file(TRACING "/trace", NULL);
	int runs = 0;

	REQUIRE_MSG(trace, "cannot read " TRACING "/trace");
	for (char *p = trace; (p = strstr(p, "function epdfb_")); p++)
		runs++;
	free(trace);
	return runs;
}

int
main(void)
{
	struct epd *d = &dev;

	epd_begin("power", 120);
	epd_phase("load");
	epd_open(d, "width=320 height=240 bpp=8 time_scale=10 auto_update=0");

	epd_phase("power-down after the delay");
	set_delay(d, 200);
	update(d, 1);
	power_is(d, "on");
	epd_sleep_ms(1000);
	power_is(d, "off");
	CHECK_EQ(epd_stat(d, "power_downs"), 1);

	epd_phase("an update powers the panel up again");
	update(d, 2);
	power_is(d, "on");
	epd_sleep_ms(1000);
	power_is(d, "off");
	CHECK_EQ(epd_stat(d, "power_downs"), 2);

	epd_phase("FB_POWERDOWN_DISABLE keeps it on");
	set_delay(d, FB_POWERDOWN_DISABLE);
	update(d, 3);
	epd_sleep_ms(1000);
	power_is(d, "on");
	CHECK_EQ(epd_stat(d, "power_downs"), 2);

	epd_phase("no work item runs while the panel is idle");
	REQUIRE_MSG(tracing_available(), "workqueue trace events are not available");
	set_delay(d, 100);
	update(d, 4);
	epd_sleep_ms(600);
	power_is(d, "off");
	clear_trace();
	REQUIRE_RC(
		epd_write_file(TRACING "/events/workqueue/workqueue_execute_start/enable", "1"), 0);
	epd_sleep_ms(2000);
	int idle_runs = driver_work_runs();
	CHECK_MSG(idle_runs == 0, "%d driver work items ran on an idle panel", idle_runs);

	/* The same trace does see the driver's work when there is some. */
	update(d, 5);
	epd_sleep_ms(600);
	int busy_runs = driver_work_runs();
	CHECK_MSG(busy_runs > 0, "the trace shows no driver work for an update");
	REQUIRE_RC(
		epd_write_file(TRACING "/events/workqueue/workqueue_execute_start/enable", "0"), 0);

	epd_close(d);
	return epd_end();
}
