// SPDX-License-Identifier: MIT
/*
 * The e-paper backend on a driver that keeps the fbdev lock while
 * MXCFB_WAIT_FOR_UPDATE_COMPLETE waits, as NXP's mxc_epdc_fb does (epdfb
 * with wait_holds_lock=1, driven as "mxc:/dev/fbN"): while a slow update
 * is in flight and the backend's thread waits for it, every ioctl on the
 * device blocks until the update ends. The event loop must not: a commit of
 * new content returns before that update ends, and the content still
 * reaches the panel; destroying the backend returns before it ends too, and
 * the driver is back in AUTOMATIC mode once the backend's threads are gone.
 * Both are checked by order (the slow update is not in the trace yet when
 * the call returns) and by time (CLOCK_MONOTONIC here against the trace's
 * ktime_get_ns()). time_scale=400 makes GC16 last 1.8 s, so that a stalled
 * emulator cannot eat the margin.
 */
#include "epd_test.h"
#include "scene_harness.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define W 400
#define H 300

static struct epd dev;

static bool
count_thread(const char *tid, void *data)
{
	(void)tid;
	++*(int *)data;
	return true;
}

/* Threads of this process: the caller's and the watchdog's, plus the backend's. */
static int
count_threads(void)
{
	int n = 0;

	REQUIRE_MSG(epd_for_each_thread(count_thread, &n), "cannot list /proc/self/task");
	return n;
}

/* Whether the thread sleeps in ioctl(MXCFB_WAIT_FOR_UPDATE_COMPLETE): false stops the walk. */
static bool
not_in_marker_wait(const char *tid, void *data)
{
	bool *found = data;
	long nr;
	unsigned long long fd, cmd;
	char *text = epd_read_thread_file(tid, "syscall");

	/* "NR arg1 arg2 ..." while blocked in a system call */
	*found = text && sscanf(text, "%ld 0x%llx 0x%llx", &nr, &fd, &cmd) == 3 &&
		 nr == SYS_ioctl && cmd == (unsigned long long)MXCFB_WAIT_FOR_UPDATE_COMPLETE;
	free(text);
	return !*found;
}

/* Whether a thread of this process sleeps in ioctl(MXCFB_WAIT_FOR_UPDATE_COMPLETE). */
static bool
thread_in_marker_wait(void)
{
	bool found = false;

	REQUIRE_MSG(epd_for_each_thread(not_in_marker_wait, &found), "cannot list /proc/self/task");
	return found;
}

/* Runs the event loop until the backend's thread waits for a marker in the driver. */
static void
run_until_marker_wait(struct scene_harness *h)
{
	uint64_t start = epd_now_ns();

	while (!thread_in_marker_wait()) {
		REQUIRE_MSG(epd_ms_since(start) < 10000, "no thread waits for a marker");
		scene_harness_idle(h, 5);
	}
}

/* Looks for the completed update of exactly this rect in the trace. */
static bool
completed(struct epd *d, uint32_t left, uint32_t top, uint32_t w, uint32_t hgt,
	struct epd_trace *found)
{
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);
	bool ok = false;

	for (size_t i = 0; i < n; i++) {
		if (trace[i].left == left && trace[i].top == top && trace[i].width == w &&
			trace[i].height == hgt) {
			*found = trace[i];
			ok = true;
		}
	}
	free(trace);
	return ok;
}

/* The trace entry of the update of exactly this rect; fails when there is none. */
static struct epd_trace
find_update(struct epd *d, uint32_t left, uint32_t top, uint32_t w, uint32_t hgt)
{
	struct epd_trace *trace, found = {0};
	size_t n = epd_trace_read(d, &trace);

	for (size_t i = 0; i < n; i++)
		epd_trace_print(&trace[i]);
	free(trace);
	CHECK_MSG(completed(d, left, top, w, hgt, &found), "no update of %ux%u at %u,%u", w, hgt,
		left, top);
	return found;
}

static void
note_settled(const struct vl_epd_feedback *feedback, void *data)
{
	*(bool *)data = feedback->settled;
}

int
main(void)
{
	struct vl_epd_backend_options options = {0};
	struct scene_harness harness, *h = &harness;
	struct vl_epd_feedback feedback;
	char device[300], error[256];
	struct epd *d = &dev;
	static uint8_t ramp[200 * 100];

	epd_begin("backend_lock", 240);
	epd_phase("load with wait_holds_lock=1");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=400 wait_holds_lock=1");
	int threads_before = count_threads();
	snprintf(device, sizeof(device), "mxc:%.63s", d->devnode);
	options.device = device;
	REQUIRE_MSG(scene_harness_start_with(h, &options, error, sizeof(error)),
		"backend on %s: %s", device, error);
	scene_harness_rect(h, 0, 0, W, H, 255);
	REQUIRE(scene_harness_show(h, &feedback));
	REQUIRE_RC(epd_wait_idle(d), 0);

	epd_phase("a commit while the backend waits for a slow GC16 update");
	for (uint32_t y = 0; y < 100; y++)
		for (uint32_t x = 0; x < 200; x++)
			ramp[y * 200 + x] = (uint8_t)(x * 200 / 199);
	epd_trace_clear(d);
	REQUIRE(scene_harness_image(h, 20, 20, 200, 100, ramp) != NULL);
	REQUIRE(scene_harness_commit(h));
	run_until_marker_wait(h);
	bool second_settled = false;
	vl_epd_output_add_feedback(h->output, note_settled, &second_settled);
	scene_harness_rect(h, 300, 200, 40, 40, 0);
	REQUIRE(scene_harness_wait_frame(h));
	uint64_t before_ns = epd_now_ns();
	REQUIRE(scene_harness_commit(h));
	uint64_t returned_ns = epd_now_ns();
	/*
	 * Blocked on the lock, the commit could only return after the wait,
	 * so after the driver completed the slow update.
	 */
	struct epd_trace slow;
	CHECK_MSG(!completed(d, 20, 20, 200, 100, &slow),
		"the slow update was complete when the commit returned");
	REQUIRE(scene_harness_run_until(h, &second_settled));
	REQUIRE_RC(epd_wait_idle(d), 0);
	slow = find_update(d, 20, 20, 200, 100);
	struct epd_trace next = find_update(d, 300, 200, 40, 40);
	CHECK(strcmp(slow.waveform, "GC16") == 0);
	/* Without this, the driver did not hold its lock and nothing was tested. */
	REQUIRE_MSG(next.submit_ns >= slow.end_ns,
		"the second update was submitted %.1f ms before the first ended: the driver did "
		"not hold its lock",
		((double)slow.end_ns - (double)next.submit_ns) / 1e6);
	CHECK_MSG(returned_ns < slow.end_ns,
		"the commit returned %.1f ms after the slow update ended (it took %.1f ms)",
		((double)returned_ns - (double)slow.end_ns) / 1e6,
		((double)returned_ns - (double)before_ns) / 1e6);
	printf("commit took %.1f ms; the slow update ended %.1f ms after it returned\n",
		((double)returned_ns - (double)before_ns) / 1e6,
		((double)slow.end_ns - (double)returned_ns) / 1e6);
	CHECK(second_settled);
	uint8_t *panel = epd_alloc_image(d);
	epd_read_panel(d, panel);
	size_t black = 0;
	for (uint32_t y = 200; y < 240; y++)
		for (uint32_t x = 300; x < 340; x++)
			black += epd_quant(panel[(size_t)y * W + x], 2) == 0;
	CHECK_MSG(black == 40 * 40, "the panel shows %zu of the new block's 1600 pixels black",
		black);
	free(panel);

	epd_phase("destroying the backend while it waits for a slow update");
	scene_harness_image(h, 20, 150, 200, 100, ramp);
	epd_trace_clear(d);
	REQUIRE(scene_harness_commit(h));
	run_until_marker_wait(h);
	before_ns = epd_now_ns();
	scene_harness_finish(h);
	returned_ns = epd_now_ns();
	CHECK_MSG(!completed(d, 20, 150, 200, 100, &slow),
		"the slow update was complete when destroying the backend returned");
	REQUIRE_RC(epd_wait_idle(d), 0);
	slow = find_update(d, 20, 150, 200, 100);
	CHECK_MSG(returned_ns < slow.end_ns,
		"destroying the backend returned %.1f ms after the slow update ended (it took "
		"%.1f ms)",
		((double)returned_ns - (double)slow.end_ns) / 1e6,
		((double)returned_ns - (double)before_ns) / 1e6);

	epd_phase("the driver is in AUTOMATIC mode again once the threads are gone");
	for (uint64_t start = epd_now_ns(); count_threads() > threads_before;) {
		REQUIRE_MSG(epd_ms_since(start) < 10000, "the backend's threads did not end");
		epd_sleep_ms(10);
	}
	epd_trace_clear(d);
	epd_fill(d, 0, 100, W, 10, 0);
	CHECK_OK(fsync(d->fd));
	REQUIRE_RC(epd_wait_idle(d), 0);
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);
	for (size_t i = 0; i < n; i++)
		epd_trace_print(&trace[i]);
	free(trace);
	CHECK_MSG(n >= 1, "a write after the backend made no update");

	epd_close(d);
	return epd_end();
}
