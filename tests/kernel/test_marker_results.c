// SPDX-License-Identifier: MIT
/*
 * A marker's result reaches its waiters however many markers complete with
 * it, and a late wait gets the result, a documented error or, for a marker
 * never sent, 0 -- never a success the driver does not know of.
 *
 * Nine merged updates carrying 65 markers wait behind a long one and then
 * complete in one pass: a thread already waiting on the first of them gets
 * that marker's collision_test (1: its pixels waited for pixels in flight
 * driven to other levels) and its error (ENODATA: its
 * temperature could not be read), not 0. A marker that failed with EIO
 * reports EIO to a wait that comes after more than 64 later markers, up to
 * the EPDFB_MARKER_HISTORY (256) markers epdfb(4) promises; past those, a
 * wait for it fails with ENOENT. A marker never sent still returns 0.
 */
#include "epd_test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 320
#define H 240

#define GROUPS       9
#define PER_GROUP    8 /* markers one merged update carries */
#define N_MARKERS    65
#define FIRST        1000
#define M_BLOCK      1
#define M_COVER      2
#define M_FAILED     3000
#define M_NEVER      0x7777
#define HISTORY      256 /* epdfb(4): the results a late wait sees */
#define COLD_AMBIENT 5

static struct epd dev;

struct waiter {
	pthread_t thread;
	int tid;
	uint32_t marker;
	uint32_t collision;
	int rc;
};

static void *
waiter_main(void *arg)
{
	struct waiter *w = arg;

	__atomic_store_n(&w->tid, epd_gettid(), __ATOMIC_SEQ_CST);
	w->rc = epd_wait(&dev, w->marker, &w->collision);
	return NULL;
}

static void
start_waiter(struct waiter *w, uint32_t marker)
{
	memset(w, 0, sizeof(*w));
	w->marker = marker;
	w->collision = 0xdead;
	REQUIRE(pthread_create(&w->thread, NULL, waiter_main, w) == 0);
	while (!__atomic_load_n(&w->tid, __ATOMIC_SEQ_CST))
		epd_sleep_ms(1);
	REQUIRE_MSG(
		epd_thread_in_ioctl(w->tid, 5000), "the wait for marker %u did not block", marker);
}

/*
 * Marker i goes to group i / 8 (rows 20 apart), column i % 8; the columns of
 * a group touch and merge into one update queued behind the long one (behind
 * the resubmission of the update that changed the long one's pixels).
 */
static void
send_groups(struct epd *d, int temp)
{
	for (uint32_t i = 0; i < N_MARKERS; i++) {
		uint32_t g = i / PER_GROUP, k = i % PER_GROUP;

		REQUIRE_RC(epd_update(d, k * 10, g * 20, 10, 10, WAVEFORM_MODE_A2,
				   UPDATE_MODE_PARTIAL, FIRST + i, temp, 0),
			0);
	}
}

static void
one_pass(struct epd *d, bool temperature_error)
{
	long long merged;
	struct waiter first, last;
	const struct epd_trace *block, *ref = NULL;
	struct epd_trace *t;
	uint64_t waiting_ns;
	uint32_t collision;
	size_t n, groups_seen = 0;

	epd_phase("65 markers in 9 merged updates behind a long one%s",
		temperature_error ? ", the first update's temperature unreadable" : "");
	epd_clear(d);
	epd_trace_clear(d);
	merged = epd_stat(d, "updates_merged");
	REQUIRE_RC(epd_update(d, 0, 0, 100, GROUPS * 20, WAVEFORM_MODE_INIT, UPDATE_MODE_FULL,
			   M_BLOCK, 25, 0),
		0);
	/*
	 * Black over the INIT's white collides: its pixels wait, queued, for the
	 * INIT, and the groups (white again) wait behind them, and collide with
	 * them when they start together.
	 */
	epd_fill(d, 0, 0, 100, GROUPS * 20, 0x00);
	/* GL16: the groups' A2 cannot retarget its pixels */
	REQUIRE_RC(epd_update(d, 0, 0, 100, GROUPS * 20, WAVEFORM_MODE_GL16, UPDATE_MODE_PARTIAL,
			   M_COVER, 25, 0),
		0);
	epd_fill(d, 0, 0, 100, GROUPS * 20, 0xff);
	/* the groups start together, each timed for its temperature: same end */
	if (temperature_error) {
		REQUIRE_RC(epd_set_temp(d, COLD_AMBIENT), 0);
		epd_inject(d, "inject_temperature_errors", 1);
		send_groups(d, TEMP_USE_AMBIENT);
	} else {
		send_groups(d, 25);
	}
	REQUIRE_EQ(epd_stat(d, "updates_merged") - merged, N_MARKERS - GROUPS);
	/* behind the resubmission: the cover waits, queued, for the INIT */
	REQUIRE_EQ(epd_stat(d, "queued"), GROUPS + 1);
	start_waiter(&first, FIRST);
	start_waiter(&last, FIRST + N_MARKERS - 1);
	waiting_ns = epd_now_ns();
	REQUIRE(pthread_join(first.thread, NULL) == 0);
	REQUIRE(pthread_join(last.thread, NULL) == 0);
	CHECK_RC(epd_wait_idle(d), 0);

	n = epd_trace_read(d, &t);
	block = epd_trace_find(t, n, M_BLOCK);
	REQUIRE(block);
	REQUIRE_MSG(waiting_ns < block->end_ns,
		"the waiters were not waiting before the groups completed: no conclusion");
	for (size_t i = 0; i < n; i++) {
		if (t[i].marker < FIRST || t[i].marker >= FIRST + N_MARKERS)
			continue;
		/* a group's last line: its resubmission, which drove its pixels */
		bool later = false;
		for (size_t j = i + 1; j < n; j++)
			later |= t[j].marker == t[i].marker;
		if (later)
			continue;
		if (!ref)
			ref = &t[i];
		groups_seen++;
		CHECK_GE(t[i].start_ns, block->end_ns);
		/* one completion pass: every group ended at the same instant */
		REQUIRE_MSG(t[i].end_ns == ref->end_ns,
			"the groups did not complete together: no conclusion");
	}
	CHECK_EQ(groups_seen, GROUPS);
	free(t);

	printf("waiter on marker %u: %s, collision_test %u\n", FIRST, epd_errname(-first.rc),
		first.collision);
	if (temperature_error) {
		CHECK_RC(first.rc, -ENODATA);
		CHECK_RC(last.rc, 0);
		CHECK_EQ(epd_stat(d, "temperature_errors"), 1);
		REQUIRE_RC(epd_set_temp(d, 25), 0);
	} else {
		CHECK_RC(first.rc, 0);
		CHECK_EQ(first.collision, 1);
		CHECK_RC(last.rc, 0);
		CHECK_EQ(last.collision, 1);
		/* a late wait on a marker of the pass sees the same */
		CHECK_RC(epd_wait(d, FIRST, &collision), 0);
		CHECK_EQ(collision, 1);
	}
}

/* count markers, one per update, 16 disjoint updates at a time */
static void
complete_markers(struct epd *d, uint32_t first, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		REQUIRE_RC(epd_update(d, (i % 16) * 20, 200, 10, 10, WAVEFORM_MODE_A2,
				   UPDATE_MODE_PARTIAL, first + i, 25, 0),
			0);
		if (i % 16 == 15 || i == count - 1)
			REQUIRE_RC(epd_wait_idle(d), 0);
	}
}

static void
late_waits(struct epd *d)
{
	epd_phase("a failed update's EIO, after 100 more markers");
	epd_clear(d);
	epd_inject(d, "inject_update_errors", 1);
	REQUIRE_RC(epd_update(d, 0, 0, 40, 40, WAVEFORM_MODE_GC16, UPDATE_MODE_PARTIAL, M_FAILED,
			   25, 0),
		0);
	REQUIRE_RC(epd_wait_idle(d), 0);
	REQUIRE_EQ(epd_stat(d, "update_errors"), 1);
	complete_markers(d, 4000, 100);
	CHECK_RC(epd_wait(d, M_FAILED, NULL), -EIO);
	CHECK_RC(epd_wait(d, 4000, NULL), 0);

	epd_phase("after %u more markers: ENOENT, not success", HISTORY);
	complete_markers(d, 5000, HISTORY);
	CHECK_RC(epd_wait(d, M_FAILED, NULL), -ENOENT);
	CHECK_RC(epd_wait(d, 4000, NULL), -ENOENT);
	/* the most recent ones are still known, and a marker never sent is 0 */
	CHECK_RC(epd_wait(d, 5000 + HISTORY - 1, NULL), 0);
	CHECK_RC(epd_wait(d, M_NEVER, NULL), 0);

	epd_phase("a forgotten marker sent again has its new result");
	complete_markers(d, 4000, 1);
	CHECK_RC(epd_wait(d, 4000, NULL), 0);
}

int
main(void)
{
	struct epd *d = &dev;

	epd_begin("marker_results", 180);
	epd_phase("load");
	epd_open(d, "width=320 height=240 bpp=8 time_scale=50 auto_update=0");
	REQUIRE_RC(epd_set_scheme(d, UPDATE_SCHEME_QUEUE_AND_MERGE), 0);
	one_pass(d, false);
	one_pass(d, true);
	late_waits(d);
	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
