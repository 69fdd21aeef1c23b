// SPDX-License-Identifier: MIT
/*
 * Faults of the simulated panel, injected through debugfs: an update the
 * controller fails, one that hangs, a temperature read that fails, a pixel
 * capture that fails. Each reaches MXCFB_WAIT_FOR_UPDATE_COMPLETE with its
 * errno (EIO, ETIMEDOUT, ENODATA, EIO), is counted in stats, and the driver
 * stays usable: the next update shows, a hung update holds only its own
 * area until it is abandoned, the panel still powers down, and the device
 * unbinds and the module unloads with a hung update waited for. A count
 * that is no u32 is refused and leaves the knob as it was.
 */
#include "epd_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#define W          320
#define H          240
#define TIME_SCALE 10
/* The driver abandons a hung update this long after its due end (time_scale 100). */
#define HANG_TIMEOUT_MS 2000

static struct epd dev;

static void
send(struct epd *d, uint32_t left, uint32_t top, uint32_t w, uint32_t h, uint32_t waveform,
	uint32_t marker)
{
	REQUIRE_RC(epd_update(d, left, top, w, h, waveform, UPDATE_MODE_PARTIAL, marker,
			   TEMP_USE_AMBIENT, 0),
		0);
}

/*
 * Checks the panel against the model, allowing the ghost a non-flashing
 * update leaves where the model changed since before.
 */
static void
check_panel(struct epd *d, const uint8_t *before, const char *what)
{
	uint8_t *panel = epd_alloc_image(d);

	epd_read_panel(d, panel);
	CHECK_GHOSTED_RECT(d, panel, before, d->model, 16, 0, 0, W, H, what, NULL);
	free(panel);
}

/* The same, for a panel that was white and free of ghosts before. */
static void
check_panel_over_white(struct epd *d, const char *what)
{
	uint8_t *white = epd_alloc_image(d);

	memset(white, 255, (size_t)W * H);
	check_panel(d, white, what);
	free(white);
}

static uint8_t *
model_copy(struct epd *d)
{
	uint8_t *copy = epd_alloc_image(d);

	memcpy(copy, d->model, (size_t)W * H);
	return copy;
}

static void
update_errors(struct epd *d)
{
	epd_phase("updates the controller fails: EIO, counted, nothing shown");
	epd_clear(d);
	epd_stats_reset(d);
	epd_inject(d, "inject_update_errors", 2);
	epd_fill(d, 10, 10, 60, 40, 0x00);
	epd_fill(d, 100, 10, 60, 40, 0x00);
	send(d, 10, 10, 60, 40, WAVEFORM_MODE_GC16, 1);
	send(d, 100, 10, 60, 40, WAVEFORM_MODE_GC16, 2);
	CHECK_RC(epd_wait(d, 1, NULL), -EIO);
	CHECK_RC(epd_wait(d, 2, NULL), -EIO);
	/* the error is remembered for its marker */
	CHECK_RC(epd_wait(d, 1, NULL), -EIO);
	CHECK_EQ(epd_injected_left(d, "inject_update_errors"), 0);
	char *stats = epd_stats_snapshot(d);
	CHECK_EQ(epd_snapshot_stat(stats, "update_errors"), 2);
	CHECK_EQ(epd_snapshot_stat(stats, "updates_failed"), 2);
	CHECK_EQ(epd_snapshot_stat(stats, "updates_completed"), 0);
	CHECK_EQ(epd_snapshot_stat(stats, "update_timeouts"), 0);
	CHECK_EQ(epd_snapshot_stat(stats, "in_flight"), 0);
	free(stats);
	CHECK_PANEL_MODEL(d, "panel after the failed updates (unchanged)");

	epd_phase("the same updates sent again show");
	send(d, 10, 10, 60, 40, WAVEFORM_MODE_GC16, 3);
	send(d, 100, 10, 60, 40, WAVEFORM_MODE_GC16, 4);
	CHECK_RC(epd_wait(d, 3, NULL), 0);
	CHECK_RC(epd_wait(d, 4, NULL), 0);
	uint8_t *before = model_copy(d);
	epd_model_apply(d, 10, 10, 60, 40, 16);
	epd_model_apply(d, 100, 10, 60, 40, 16);
	check_panel(d, before, "panel after the updates sent again");
	free(before);
	CHECK_EQ(epd_stat(d, "updates_completed"), 2);
	CHECK_EQ(epd_stat(d, "update_errors"), 2);
}

static void
capture_errors(struct epd *d)
{
	epd_phase("a failed pixel capture: EIO, counted as a capture error");
	epd_clear(d);
	epd_stats_reset(d);
	epd_inject(d, "inject_capture_failures", 1);
	epd_fill(d, 200, 10, 40, 40, 0x80);
	send(d, 200, 10, 40, 40, WAVEFORM_MODE_GC16, 5);
	CHECK_RC(epd_wait(d, 5, NULL), -EIO);
	CHECK_EQ(epd_stat(d, "capture_errors"), 1);
	CHECK_EQ(epd_stat(d, "update_errors"), 0);
	CHECK_EQ(epd_stat(d, "updates_failed"), 1);
	CHECK_PANEL_MODEL(d, "panel after the failed capture (unchanged)");
}

static void
update_hang(struct epd *d)
{
	uint32_t dur = epd_duration_ms(WAVEFORM_MODE_GC16, 25, TIME_SCALE);
	uint64_t abandon_ns = (uint64_t)(dur + HANG_TIMEOUT_MS * TIME_SCALE / 100) * 1000000ull;
	struct epd_trace *trace;
	uint32_t collision = 0;

	epd_phase("a hung update: ETIMEDOUT once abandoned, its area only held meanwhile");
	epd_clear(d);
	epd_stats_reset(d);
	epd_trace_clear(d);
	epd_inject(d, "inject_update_hangs", 1);
	epd_fill(d, 20, 100, 80, 60, 0x00);
	uint64_t t0 = epd_now_ns();
	send(d, 20, 100, 80, 60, WAVEFORM_MODE_GC16, 10);
	/* changes the pixels the hung update holds: they wait for it */
	epd_fill(d, 20, 100, 80, 60, 0x50);
	send(d, 20, 100, 80, 60, WAVEFORM_MODE_GC16, 11);
	/* elsewhere: runs meanwhile */
	epd_fill(d, 200, 100, 80, 60, 0x00);
	send(d, 200, 100, 80, 60, WAVEFORM_MODE_GC16, 12);
	CHECK_RC(epd_wait(d, 12, NULL), 0);

	CHECK_RC(epd_wait(d, 10, NULL), -ETIMEDOUT);
	/* the driver abandoned it (a wait of its own would not be counted) */
	CHECK_EQ(epd_stat(d, "update_timeouts"), 1);
	CHECK_RC(epd_wait(d, 10, NULL), -ETIMEDOUT);
	CHECK_RC(epd_wait(d, 11, &collision), 0);
	CHECK_EQ(collision, 1);
	CHECK_EQ(epd_injected_left(d, "inject_update_hangs"), 0);

	char *stats = epd_stats_snapshot(d);
	CHECK_EQ(epd_snapshot_stat(stats, "updates_failed"), 1);
	CHECK_EQ(epd_snapshot_stat(stats, "updates_completed"), 2);
	CHECK_EQ(epd_snapshot_stat(stats, "update_errors"), 0);
	CHECK_EQ(epd_snapshot_stat(stats, "in_flight"), 0);
	CHECK_EQ(epd_snapshot_stat(stats, "queued"), 0);
	free(stats);

	size_t n = epd_trace_read(d, &trace);
	struct epd_trace *hung = epd_trace_find(trace, n, 10);
	/* 11 starts at once, but all its pixels collide: its resubmission drives them */
	struct epd_trace *waiting = NULL;
	for (size_t i = 0; i < n; i++)
		if (trace[i].marker == 11)
			waiting = &trace[i];
	struct epd_trace *beside = epd_trace_find(trace, n, 12);
	CHECK_MSG(!hung, "the hung update is in the trace of completed updates");
	REQUIRE(waiting && beside);
	/* the update beside it ended before the hung one was abandoned ... */
	CHECK_LT(beside->end_ns, waiting->start_ns);
	/* ... which is the earliest the overlapping one could start */
	CHECK_GE(waiting->start_ns, t0 + abandon_ns);
	for (size_t i = 0; i < n; i++)
		epd_trace_print(&trace[i]);
	free(trace);

	epd_model_apply(d, 20, 100, 80, 60, 16);
	epd_model_apply(d, 200, 100, 80, 60, 16);
	check_panel_over_white(d, "panel after the hung update and the two others");

	epd_phase("the panel powers down after a hung update");
	int32_t delay = 50;
	long long downs = epd_stat(d, "power_downs");
	REQUIRE_OK(ioctl(d->fd, MXCFB_SET_PWRDOWN_DELAY, &delay));
	char state[16] = "";
	for (int i = 0; i < 500 && strcmp(state, "off"); i++) {
		epd_stat_str(d, "power", state, sizeof(state));
		if (strcmp(state, "off"))
			epd_sleep_ms(20);
	}
	CHECK_MSG(!strcmp(state, "off"), "power: %s 10 s after a hung update", state);
	CHECK_GT(epd_stat(d, "power_downs"), downs);
	delay = 1000;
	REQUIRE_OK(ioctl(d->fd, MXCFB_SET_PWRDOWN_DELAY, &delay));
}

static void
temperature_errors(struct epd *d)
{
	struct epd_trace *trace;

	epd_phase("a failed temperature read: shown, timed for 0 C, ENODATA");
	epd_clear(d);
	epd_stats_reset(d);
	epd_trace_clear(d);
	REQUIRE_RC(epd_set_temp(d, 25), 0);
	epd_inject(d, "inject_temperature_errors", 1);
	/* a temperature of its own: the sensor is not read */
	epd_fill(d, 10, 10, 40, 40, 0x00);
	REQUIRE_RC(
		epd_update(d, 10, 10, 40, 40, WAVEFORM_MODE_GC16, UPDATE_MODE_PARTIAL, 20, 25, 0),
		0);
	CHECK_RC(epd_wait(d, 20, NULL), 0);
	CHECK_EQ(epd_injected_left(d, "inject_temperature_errors"), 1);
	CHECK_EQ(epd_stat(d, "temperature_errors"), 0);
	/* the ambient temperature: the sensor read fails */
	epd_fill(d, 100, 10, 40, 40, 0x00);
	send(d, 100, 10, 40, 40, WAVEFORM_MODE_GC16, 21);
	CHECK_RC(epd_wait(d, 21, NULL), -ENODATA);
	CHECK_EQ(epd_injected_left(d, "inject_temperature_errors"), 0);
	/* and the next read works */
	epd_fill(d, 200, 10, 40, 40, 0x00);
	send(d, 200, 10, 40, 40, WAVEFORM_MODE_GC16, 22);
	CHECK_RC(epd_wait(d, 22, NULL), 0);

	char *stats = epd_stats_snapshot(d);
	CHECK_EQ(epd_snapshot_stat(stats, "temperature_errors"), 1);
	CHECK_EQ(epd_snapshot_stat(stats, "updates_completed"), 3);
	CHECK_EQ(epd_snapshot_stat(stats, "updates_failed"), 0);
	CHECK_EQ(epd_snapshot_stat(stats, "temperature"), 25);
	free(stats);

	size_t n = epd_trace_read(d, &trace);
	struct epd_trace *own = epd_trace_find(trace, n, 20);
	struct epd_trace *fallback = epd_trace_find(trace, n, 21);
	struct epd_trace *next = epd_trace_find(trace, n, 22);
	REQUIRE(own && fallback && next);
	CHECK_TRACE_DURATION(own, epd_duration_ms(WAVEFORM_MODE_GC16, 25, TIME_SCALE), "own temp");
	CHECK_TRACE_DURATION(
		fallback, epd_duration_ms(WAVEFORM_MODE_GC16, 0, TIME_SCALE), "without a reading");
	CHECK_TRACE_DURATION(next, epd_duration_ms(WAVEFORM_MODE_GC16, 25, TIME_SCALE), "next");
	free(trace);

	epd_model_apply(d, 10, 10, 40, 40, 16);
	epd_model_apply(d, 100, 10, 40, 40, 16);
	epd_model_apply(d, 200, 10, 40, 40, 16);
	check_panel_over_white(d, "panel after the updates with and without a reading");
}

static void
faults_in_a_row(struct epd *d)
{
	epd_phase("every fault at once, then the panel works");
	epd_clear(d);
	epd_stats_reset(d);
	epd_inject(d, "inject_update_errors", 1);
	epd_inject(d, "inject_temperature_errors", 1);
	epd_inject(d, "inject_update_hangs", 1);
	/* the first update to start takes the error, the next the hang */
	epd_fill(d, 0, 0, W, H, 0x30);
	send(d, 0, 0, W, H, WAVEFORM_MODE_GC16, 30);
	CHECK_RC(epd_wait(d, 30, NULL), -EIO);
	send(d, 0, 0, W, H, WAVEFORM_MODE_GC16, 31);
	CHECK_RC(epd_wait(d, 31, NULL), -ETIMEDOUT);
	send(d, 0, 0, W, H, WAVEFORM_MODE_GC16, 32);
	CHECK_RC(epd_wait(d, 32, NULL), 0);
	char *stats = epd_stats_snapshot(d);
	CHECK_EQ(epd_snapshot_stat(stats, "update_errors"), 1);
	CHECK_EQ(epd_snapshot_stat(stats, "update_timeouts"), 1);
	/* the hung update read the temperature before it hung */
	CHECK_EQ(epd_snapshot_stat(stats, "temperature_errors"), 1);
	CHECK_EQ(epd_snapshot_stat(stats, "updates_failed"), 2);
	CHECK_EQ(epd_snapshot_stat(stats, "updates_completed"), 1);
	free(stats);
	epd_model_apply(d, 0, 0, W, H, 16);
	check_panel_over_white(d, "panel after the faults and a clean update");
}

struct waiter {
	struct epd *d;
	uint32_t marker;
	atomic_int tid;
	atomic_int done;
	int rc;
};

static void *
waiter_main(void *arg)
{
	struct waiter *w = arg;

	atomic_store(&w->tid, epd_gettid());
	w->rc = epd_wait(w->d, w->marker, NULL);
	atomic_store(&w->done, 1);
	return NULL;
}

/*
 * A hung update that would be abandoned only after 24.5 s (time_scale
 * 1000), long after the wait's own 5 s: the unbind ends the wait with
 * ENODEV, and the module unloads.
 */
static void
unload_with_hung_update(struct epd *d)
{
	struct waiter w = {.d = d, .marker = 40};
	pthread_t thread;

	epd_phase("unbind and unload with a hung update waited for");
	epd_open(d, "width=320 height=240 bpp=8 time_scale=1000 auto_update=0");
	epd_inject(d, "inject_update_hangs", 1);
	epd_fill(d, 0, 0, 50, 50, 0);
	send(d, 0, 0, 50, 50, WAVEFORM_MODE_GC16, 40);
	REQUIRE(pthread_create(&thread, NULL, waiter_main, &w) == 0);
	while (!atomic_load(&w.tid))
		epd_sleep_ms(1);
	REQUIRE_MSG(epd_thread_in_ioctl(atomic_load(&w.tid), 1500) && !atomic_load(&w.done),
		"the waiter is not blocked in MXCFB_WAIT_FOR_UPDATE_COMPLETE (%s)",
		epd_errname(-w.rc));
	CHECK_EQ(epd_stat(d, "in_flight"), 1);
	CHECK_RC(epd_unbind(), 0);
	pthread_join(thread, NULL);
	CHECK_RC(w.rc, -ENODEV);
	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	CHECK(!epd_module_loaded());
}

static void
knob_input(struct epd *d)
{
	static const char *const knobs[] = {"inject_capture_failures", "inject_update_errors",
		"inject_update_hangs", "inject_temperature_errors"};
	char path[200];

	epd_phase("a count out of range is refused, the knob keeps its value");
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", d->dbgdir, knobs[i]);
		epd_inject(d, knobs[i], 3);
		CHECK_RC(epd_write_file(path, "4294967296"), -EINVAL);
		CHECK_RC(epd_write_file(path, "18446744073709551615"), -EINVAL);
		CHECK_RC(epd_write_file(path, "many"), -EINVAL);
		CHECK_EQ(epd_injected_left(d, knobs[i]), 3);
		epd_inject(d, knobs[i], 4294967295u);
		CHECK_EQ(epd_injected_left(d, knobs[i]), 4294967295);
		epd_inject(d, knobs[i], 0);
		CHECK_EQ(epd_injected_left(d, knobs[i]), 0);
	}
}

int
main(void)
{
	struct epd *d = &dev;

	epd_begin("faults", 180);
	epd_phase("load");
	epd_open(d, "width=320 height=240 bpp=8 time_scale=10 auto_update=0");
	knob_input(d);
	update_errors(d);
	capture_errors(d);
	update_hang(d);
	temperature_errors(d);
	faults_in_a_row(d);
	epd_close(d);
	unload_with_hung_update(d);
	return epd_end();
}
