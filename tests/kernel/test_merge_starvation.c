// SPDX-License-Identifier: MIT
/*
 * A queued update is not starved by merges, and completions of other
 * updates do not keep a wait waiting.
 *
 * Q waits behind a long update B (queued behind the resubmission of an update
 * that changed B's pixels, C: an update changing nothing in flight would
 * start at once). A writer then alternates a 1-px column
 * beside Q at another temperature (it starts at once) and the same column
 * with Q's parameters (it touches Q). Were that column merged into Q, Q would
 * overlap the column in flight and wait for it, again and again for as long
 * as the writer goes on, and a FBIO_WAITFORVSYNC issued before the writer
 * started would wait with it. Q must start once B ends, while the writer is
 * still at it, and the vsync return then too.
 *
 * Then the waits' time: with only a very long update pending and a stream
 * of short updates sent later completing elsewhere, FBIO_WAITFORVSYNC gives
 * up with ETIMEDOUT once none of its own updates completed for 5 s, before
 * the long update ends: the other updates' completions do not start its
 * time over. A marker wait gives its update the update's own duration, and
 * returns 0 when it ends.
 */
#include "epd_test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 320
#define H 240

enum { M_B = 1, M_Q, M_LONG, M_TICK, M_C };

#define Q_LEFT    50
#define Q_WIDTH   100
#define Q_HEIGHT  100
#define Q_TEMP    25
#define COL_TEMP  30
#define ATTACKS   100
#define ATTACK_MS 50

static struct epd dev;

struct waiter {
	pthread_t thread;
	int tid;
	bool vsync;
	uint32_t marker;
	int rc;
	uint64_t ret_ns;
};

static void *
waiter_main(void *arg)
{
	struct waiter *w = arg;

	w->tid = epd_gettid();
	w->rc = w->vsync ? epd_wait_idle(&dev) : epd_wait(&dev, w->marker, NULL);
	w->ret_ns = epd_now_ns();
	return NULL;
}

/* Starts a wait in a thread and returns once the thread is blocked in it. */
static void
start_waiter(struct waiter *w, bool vsync, uint32_t marker)
{
	memset(w, 0, sizeof(*w));
	w->vsync = vsync;
	w->marker = marker;
	REQUIRE(pthread_create(&w->thread, NULL, waiter_main, w) == 0);
	while (!__atomic_load_n(&w->tid, __ATOMIC_SEQ_CST))
		epd_sleep_ms(1);
	REQUIRE_MSG(epd_thread_in_ioctl(w->tid, 5000), "the %s wait did not block",
		vsync ? "vsync" : "marker");
}

static void
column(struct epd *d, uint32_t x, uint32_t waveform, int temp)
{
	int rc = epd_update(d, x, 0, 1, Q_HEIGHT, waveform, UPDATE_MODE_PARTIAL, 0, temp, 0);

	/* the queue may be full of the writer's own columns: that is its problem */
	CHECK_MSG(rc == 0 || rc == -EBUSY, "column at %u: %s", x, epd_errname(-rc));
}

static void
starved_by_merges(struct epd *d)
{
	struct waiter vsync, q_wait;
	const struct epd_trace *b, *q;
	struct epd_trace *t;
	uint64_t attack_end_ns;
	size_t n, overtaking = 0;

	epd_phase("Q queued behind B, a vsync waiting for both");
	epd_clear(d);
	epd_trace_clear(d);
	REQUIRE_RC(epd_set_scheme(d, UPDATE_SCHEME_QUEUE_AND_MERGE), 0);
	REQUIRE_RC(epd_update(d, 0, 0, 100, Q_HEIGHT, WAVEFORM_MODE_INIT, UPDATE_MODE_FULL, M_B,
			   Q_TEMP, 0),
		0);
	epd_fill(d, Q_LEFT, 0, Q_WIDTH, Q_HEIGHT, 0x00);
	REQUIRE_RC(epd_update(d, Q_LEFT, 0, Q_WIDTH, Q_HEIGHT, WAVEFORM_MODE_A2,
			   UPDATE_MODE_PARTIAL, M_C, Q_TEMP, 0),
		0);
	REQUIRE_RC(epd_update(d, Q_LEFT, 0, Q_WIDTH, Q_HEIGHT, WAVEFORM_MODE_DU,
			   UPDATE_MODE_PARTIAL, M_Q, Q_TEMP, 0),
		0);
	/* Q behind C's resubmission: C waits, queued, for B */
	REQUIRE_EQ(epd_stat(d, "queued"), 2);
	start_waiter(&vsync, true, 0);
	start_waiter(&q_wait, false, M_Q);

	epd_phase("a column beside Q at another temperature, then with Q's parameters");
	for (uint32_t i = 0; i < ATTACKS; i++) {
		column(d, Q_LEFT + Q_WIDTH + i, WAVEFORM_MODE_GC16, COL_TEMP);
		column(d, Q_LEFT + Q_WIDTH + i, WAVEFORM_MODE_DU, Q_TEMP);
		epd_sleep_ms(ATTACK_MS);
	}
	attack_end_ns = epd_now_ns();
	REQUIRE(pthread_join(vsync.thread, NULL) == 0);
	REQUIRE(pthread_join(q_wait.thread, NULL) == 0);
	CHECK_RC(vsync.rc, 0);
	CHECK_RC(q_wait.rc, 0);
	printf("writer ran for %u pairs of columns; the vsync returned %.1f ms before it "
	       "stopped\n",
		ATTACKS, ((double)attack_end_ns - (double)vsync.ret_ns) / 1e6);
	CHECK_MSG(vsync.ret_ns < attack_end_ns,
		"FBIO_WAITFORVSYNC issued before the writer returned only after it stopped");
	CHECK_MSG(q_wait.ret_ns < attack_end_ns,
		"the wait for Q returned only after the writer stopped");
	CHECK_RC(epd_wait_idle(d), 0);

	n = epd_trace_read(d, &t);
	b = epd_trace_find(t, n, M_B);
	q = epd_trace_find(t, n, M_Q);
	REQUIRE_MSG(b && q, "B or Q missing from the trace");
	epd_trace_print(b);
	epd_trace_print(q);
	CHECK_GE(q->start_ns, b->end_ns);
	CHECK_GE(vsync.ret_ns, q->end_ns);
	CHECK_MSG(q->start_ns < attack_end_ns,
		"Q started %.1f ms after the writer stopped: starved by merges",
		((double)q->start_ns - (double)attack_end_ns) / 1e6);
	/*
	 * Q starts in the pass that completes B; the writer's columns that
	 * start meanwhile are those sent during the timer's latency, one or two.
	 */
	for (size_t i = 0; i < n; i++)
		if (t[i].start_ns > b->end_ns && t[i].start_ns < q->start_ns)
			overtaking++;
	printf("%zu of the writer's columns started between B's end and Q's start\n", overtaking);
	CHECK_LE(overtaking, 2);
	/*
	 * Each column with Q's parameters would make Q wait for its twin in
	 * flight; one merges only if the writer stalled until its twin ended.
	 */
	CHECK_MSG(q->merged <= 2, "%u columns merged into Q", q->merged);
	free(t);
}

static void
deadline_not_restarted(struct epd *d)
{
	struct waiter vsync, marker_wait;
	const struct epd_trace *lng;
	struct epd_trace *t;
	uint32_t ticks = 0;
	size_t n;
	int rc;

	epd_phase("a long update pending, short ones completing elsewhere");
	epd_clear(d);
	epd_trace_clear(d);
	/* INIT on a cold panel at time_scale 250: 12.5 s, far past the 5 s */
	REQUIRE_RC(
		epd_update(d, 0, 0, 100, 100, WAVEFORM_MODE_INIT, UPDATE_MODE_FULL, M_LONG, 5, 0),
		0);
	start_waiter(&vsync, true, 0);
	start_waiter(&marker_wait, false, M_LONG);
	while (!__atomic_load_n(&vsync.ret_ns, __ATOMIC_SEQ_CST) ||
		!__atomic_load_n(&marker_wait.ret_ns, __ATOMIC_SEQ_CST)) {
		REQUIRE_MSG(ticks < 100, "the waits still wait after %u completions", ticks);
		REQUIRE_RC(epd_update(d, 200, 0, 50, 50, WAVEFORM_MODE_A2, UPDATE_MODE_PARTIAL,
				   M_TICK, 25, 0),
			0);
		REQUIRE_RC(epd_wait(d, M_TICK, NULL), 0);
		ticks++;
	}
	REQUIRE(pthread_join(vsync.thread, NULL) == 0);
	REQUIRE(pthread_join(marker_wait.thread, NULL) == 0);
	printf("%u updates completed while the waits waited\n", ticks);
	CHECK_GE(ticks, 2);
	CHECK_RC(vsync.rc, -ETIMEDOUT);
	CHECK_RC(marker_wait.rc, 0);

	for (int i = 0; i < 4 && (rc = epd_wait_idle(d)) == -ETIMEDOUT; i++)
		;
	CHECK_RC(rc, 0);
	n = epd_trace_read(d, &t);
	lng = epd_trace_find(t, n, M_LONG);
	REQUIRE_MSG(lng, "the long update is missing from the trace");
	CHECK_MSG(vsync.ret_ns < lng->end_ns,
		"FBIO_WAITFORVSYNC returned when the long update ended, not at its deadline");
	CHECK_MSG(marker_wait.ret_ns >= lng->end_ns,
		"the marker wait returned before the long update ended");
	free(t);
}

int
main(void)
{
	struct epd *d = &dev;

	epd_begin("merge_starvation", 240);
	epd_phase("load");
	epd_open(d, "width=320 height=240 bpp=8 time_scale=100 auto_update=0");
	starved_by_merges(d);
	epd_close(d);

	epd_phase("load with time_scale=250");
	epd_open(d, "width=320 height=240 bpp=8 time_scale=250 auto_update=0");
	deadline_not_restarted(d);
	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
