// SPDX-License-Identifier: MIT
/*
 * The benchmark's hands on the simulated panel (epdfb, already loaded):
 *
 *   epaper_panel clear auto|region    a white, ghost-free panel (a flashing
 *                                     GC16 of all of it), then the deferred IO
 *                                     mode, zeroed counters and an empty trace
 *   epaper_panel reset                zeroed counters and an empty trace
 *   epaper_panel flash                a flashing GC16 of all of the panel with
 *                                     what the framebuffer holds (ghosts gone,
 *                                     the image kept: a display stack on it
 *                                     goes on unaware), then reset
 *   epaper_panel settle QUIET_MS TIMEOUT_S
 *                                     waits until nothing is in flight or
 *                                     queued and no update was submitted or
 *                                     completed for QUIET_MS
 *   epaper_panel wait-update TIMEOUT_S
 *                                     waits for an update in the trace
 *
 * settle and wait-update exit 1 when time runs out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "epd_test.h"

#define POLL_MS 100
/* far from the markers a display stack counts up from 1 */
#define FLASH_MARKER 0xfffffff1u

static int
usage(void)
{
	fprintf(stderr,
		"usage: epaper_panel clear auto|region | reset | flash | settle QUIET_MS TIMEOUT_S "
		"| wait-update TIMEOUT_S\n");
	return 2;
}

static void
reset(struct epd *d)
{
	epd_stats_reset(d);
	epd_trace_clear(d);
}

/* The counters that move while anything happens on the panel. */
static void
activity(struct epd *d, long long out[4])
{
	char *snapshot = epd_stats_snapshot(d);

	out[0] = epd_snapshot_stat(snapshot, "updates_submitted");
	out[1] = epd_snapshot_stat(snapshot, "updates_completed");
	out[2] = epd_snapshot_stat(snapshot, "in_flight");
	out[3] = epd_snapshot_stat(snapshot, "queued");
	free(snapshot);
}

static int
settle(struct epd *d, unsigned int quiet_ms, unsigned int timeout_s)
{
	uint64_t start = epd_now_ns(), quiet_since = start;
	long long before[4], now[4];

	activity(d, before);
	while (epd_ms_since(start) < timeout_s * 1000.0) {
		epd_sleep_ms(POLL_MS);
		activity(d, now);
		if (memcmp(before, now, sizeof(now)) || now[2] || now[3]) {
			memcpy(before, now, sizeof(now));
			quiet_since = epd_now_ns();
		} else if (epd_ms_since(quiet_since) >= quiet_ms) {
			return 0;
		}
	}
	fprintf(stderr, "epaper_panel: the panel did not settle within %u s\n", timeout_s);
	return 1;
}

static int
wait_update(struct epd *d, unsigned int timeout_s)
{
	for (unsigned int i = 0; i * POLL_MS < timeout_s * 1000; i++) {
		struct epd_trace *trace;
		size_t n = epd_trace_read(d, &trace);

		free(trace);
		if (n)
			return 0;
		epd_sleep_ms(POLL_MS);
	}
	fprintf(stderr, "epaper_panel: no update within %u s\n", timeout_s);
	return 1;
}

int
main(int argc, char **argv)
{
	struct epd dev, *d = &dev;
	int status = 0;

	if (argc < 2)
		return usage();
	const char *command = argv[1];
	if (!strcmp(command, "clear") && argc == 3 &&
		(!strcmp(argv[2], "auto") || !strcmp(argv[2], "region"))) {
		epd_attach(d);
		REQUIRE_RC(epd_set_auto_mode(d, AUTO_UPDATE_MODE_REGION_MODE), 0);
		epd_clear(d);
		if (!strcmp(argv[2], "auto"))
			REQUIRE_RC(epd_set_auto_mode(d, AUTO_UPDATE_MODE_AUTOMATIC_MODE), 0);
		reset(d);
	} else if (!strcmp(command, "reset") && argc == 2) {
		epd_attach(d);
		reset(d);
	} else if (!strcmp(command, "flash") && argc == 2) {
		epd_attach(d);
		epd_show(d, 0, 0, d->width, d->height, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL,
			FLASH_MARKER);
		reset(d);
	} else if (!strcmp(command, "settle") && argc == 4) {
		epd_attach(d);
		status = settle(d, (unsigned int)atoi(argv[2]), (unsigned int)atoi(argv[3]));
	} else if (!strcmp(command, "wait-update") && argc == 3) {
		epd_attach(d);
		status = wait_update(d, (unsigned int)atoi(argv[2]));
	} else {
		return usage();
	}
	epd_close(d);
	return status;
}
