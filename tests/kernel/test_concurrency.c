// SPDX-License-Identifier: MIT
/*
 * The update queue: non-overlapping updates run at the same time (up to 16);
 * an overlapping one that changes pixels being driven collides on those
 * pixels only, which are driven after the update driving them (a
 * resubmission with the same marker), while the rest of it starts at once;
 * QUEUE_AND_MERGE merges queued updates of the same kind that overlap or
 * touch; SNAPSHOT takes the pixels at submission, QUEUE(_AND_MERGE) when the
 * update starts; 1x1 updates at the corners. time_scale=100, so the updates
 * last long enough for their overlap in time to be seen in the trace.
 */
#include "epd_test.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 400
#define H 300

static struct epd dev;

struct rect {
	uint32_t left, top, width, height;
};

static void
fill_gray(struct epd *d, struct rect r, uint8_t base)
{
	for (uint32_t y = r.top; y < r.top + r.height; y++)
		for (uint32_t x = r.left; x < r.left + r.width; x++)
			epd_put(d, x, y, (uint8_t)(base + x * 7 + y * 3));
}

static void
fill_checker(struct epd *d, struct rect r)
{
	for (uint32_t y = r.top; y < r.top + r.height; y++)
		for (uint32_t x = r.left; x < r.left + r.width; x++)
			epd_put(d, x, y, ((x / 8 + y / 8) & 1) ? 0 : 255);
}

static void
submit(struct epd *d, struct rect r, uint32_t waveform, uint32_t mode, uint32_t marker)
{
	REQUIRE_RC(epd_update(d, r.left, r.top, r.width, r.height, waveform, mode, marker,
			   TEMP_USE_AMBIENT, 0),
		0);
}

static void
wait_marker(struct epd *d, uint32_t marker, uint32_t collision)
{
	uint32_t got = 0xdead;

	if (CHECK_RC(epd_wait(d, marker, &got), 0))
		CHECK_MSG(got == collision, "marker %u: collision_test %u, expected %u", marker,
			got, collision);
}

static size_t
read_trace(struct epd *d, struct epd_trace **t)
{
	size_t n = epd_trace_read(d, t);

	for (size_t i = 0; i < n; i++)
		epd_trace_print(&(*t)[i]);
	return n;
}

/* The last trace entry of a marker (a resubmission's, if any), or NULL (reported). */
static struct epd_trace *
last_by_marker(struct epd_trace *t, size_t n, uint32_t marker)
{
	struct epd_trace *e = NULL;

	for (size_t i = 0; i < n; i++)
		if (t[i].marker == marker)
			e = &t[i];
	if (!e)
		epd_fail(__FILE__, __LINE__, "no trace entry with marker %u", marker);
	return e;
}

/* The trace entry of a marker, or NULL (reported). */
static struct epd_trace *
by_marker(struct epd_trace *t, size_t n, uint32_t marker)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].marker == marker)
			return &t[i];
	epd_fail(__FILE__, __LINE__, "no trace entry with marker %u", marker);
	return NULL;
}

static void
check_entry(const struct epd_trace *e, struct rect r, const char *waveform, uint32_t collided,
	uint32_t merged)
{
	if (!e)
		return;
	CHECK_EQ(e->left, r.left);
	CHECK_EQ(e->top, r.top);
	CHECK_EQ(e->width, r.width);
	CHECK_EQ(e->height, r.height);
	CHECK_MSG(!strcmp(e->waveform, waveform), "marker %u: waveform %s, expected %s", e->marker,
		e->waveform, waveform);
	CHECK_EQ(e->collided, collided);
	CHECK_EQ(e->merged, merged);
}

/*
 * Disjoint updates run at the same time: one submitted while an earlier one
 * ran starts before that one ends, it does not wait for it. Checked pair by
 * pair from the trace, on the driver's clock: a machine so slow that an
 * update was submitted after an earlier one had ended leaves that pair out.
 */
static void
check_concurrent(struct epd_trace **e, size_t n, const char *what)
{
	unsigned int pairs = 0;

	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			if (!e[i] || !e[j] || e[j]->submit_ns <= e[i]->submit_ns ||
				e[j]->submit_ns >= e[i]->end_ns)
				continue;
			pairs++;
			CHECK_MSG(e[j]->start_ns < e[i]->end_ns,
				"%s: marker %u, submitted while marker %u ran, started %.3f ms "
				"after it ended",
				what, e[j]->marker, e[i]->marker,
				((double)e[j]->start_ns - (double)e[i]->end_ns) / 1e6);
		}
	}
	printf("%s: %u pair(s) submitted while the other ran\n", what, pairs);
	if (!pairs)
		printf("note: %s: each update was submitted after the earlier ones ended\n", what);
}

static void
check_after(const struct epd_trace *later, const struct epd_trace *earlier)
{
	if (!later || !earlier)
		return;
	CHECK_MSG(later->start_ns >= earlier->end_ns,
		"marker %u started %.3f ms before marker %u ended", later->marker,
		((double)earlier->end_ns - (double)later->start_ns) / 1e6, earlier->marker);
}

static void
reset(struct epd *d)
{
	epd_stats_reset(d);
	epd_trace_clear(d);
}

static void
phase_disjoint(struct epd *d)
{
	struct rect r[4] = {
		{0, 0, 100, 50}, {100, 0, 100, 50}, {200, 0, 100, 50}, {300, 0, 100, 50}};
	struct epd_trace *t, *e[4];

	epd_phase("four disjoint (two touching) updates run at the same time");
	reset(d);
	for (int i = 0; i < 4; i++)
		fill_gray(d, r[i], (uint8_t)(i * 40));
	for (uint32_t i = 0; i < 4; i++)
		submit(d, r[i], WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 1 + i);
	for (uint32_t i = 0; i < 4; i++)
		wait_marker(d, 1 + i, 0);
	size_t n = read_trace(d, &t);

	CHECK_EQ(n, 4);
	for (uint32_t i = 0; i < 4; i++) {
		e[i] = by_marker(t, n, 1 + i);
		check_entry(e[i], r[i], "GC16", 0, 0);
	}
	check_concurrent(e, 4, "4 disjoint updates");
	free(t);
	CHECK_EQ(epd_stat(d, "collisions"), 0);
	for (int i = 0; i < 4; i++)
		epd_model_apply(d, r[i].left, r[i].top, r[i].width, r[i].height, 16);
	CHECK_PANEL_MODEL(d, "disjoint updates");
}

static void
phase_limit(struct epd *d)
{
	struct rect r[17];
	struct epd_trace *t, *e[17];
	uint64_t min_end = UINT64_MAX;

	epd_phase("17 disjoint updates: 16 run at once, the 17th waits for a free slot");
	reset(d);
	for (uint32_t i = 0; i < 17; i++) {
		r[i] = (struct rect){i * 23, 60, 23, 40};
		fill_gray(d, r[i], (uint8_t)(i * 15));
	}
	for (uint32_t i = 0; i < 17; i++)
		submit(d, r[i], WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 10 + i);
	for (uint32_t i = 0; i < 17; i++)
		wait_marker(d, 10 + i, 0);
	size_t n = read_trace(d, &t);

	CHECK_EQ(n, 17);
	for (uint32_t i = 0; i < 17; i++) {
		e[i] = by_marker(t, n, 10 + i);
		check_entry(e[i], r[i], "GC16", 0, 0);
		if (i < 16 && e[i] && e[i]->end_ns < min_end)
			min_end = e[i]->end_ns;
	}
	check_concurrent(e, 16, "the first 16 updates");
	if (e[16])
		CHECK_MSG(e[16]->start_ns >= min_end,
			"the 17th update started %.3f ms before the first of 16 ended",
			((double)min_end - (double)e[16]->start_ns) / 1e6);
	free(t);
	CHECK_EQ(epd_stat(d, "collisions"), 0);
	for (int i = 0; i < 17; i++)
		epd_model_apply(d, r[i].left, r[i].top, r[i].width, r[i].height, 16);
	CHECK_PANEL_MODEL(d, "17 updates");
}

static void
phase_overlap(struct epd *d)
{
	struct rect a = {0, 110, 200, 60}, b = {100, 130, 200, 60};
	struct epd_trace *t;
	uint8_t *mid = epd_alloc_image(d), *panel = epd_alloc_image(d);

	epd_phase("an overlapping update changing pixels being driven: only those wait");
	reset(d);
	fill_gray(d, (struct rect){0, 110, 300, 80}, 9);
	submit(d, a, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 30);
	epd_model_apply(d, a.left, a.top, a.width, a.height, 16);
	memcpy(mid, d->model, (size_t)W * H);
	/* other levels over all of b, the overlap with a included */
	fill_gray(d, b, 100);
	submit(d, b, WAVEFORM_MODE_GL16, UPDATE_MODE_PARTIAL, 31);
	wait_marker(d, 31, 1);
	wait_marker(d, 30, 0);
	size_t n = read_trace(d, &t);

	/* a line per update: b's is that of its resubmission, once a ended */
	CHECK_EQ(n, 2);
	struct epd_trace *ea = by_marker(t, n, 30), *eb = by_marker(t, n, 31);

	check_entry(ea, a, "GC16", 0, 0);
	check_entry(eb, b, "GL16", 1, 0);
	check_after(eb, ea);
	free(t);
	CHECK_EQ(epd_stat(d, "collisions"), 1);

	epd_model_apply(d, b.left, b.top, b.width, b.height, 16);
	epd_read_panel(d, panel);
	CHECK_IMAGE_RECT(d, panel, d->model, 0, 110, 100, 60, "first (GC16), left of b");
	CHECK_IMAGE_RECT(d, panel, d->model, 100, 110, 100, 20, "first (GC16), above b");
	CHECK_GHOSTED_RECT(d, panel, mid, d->model, 16, b.left, b.top, b.width, b.height,
		"second (GL16 partial)", NULL);
	for (uint32_t y = b.top; y < b.top + b.height; y++)
		memcpy(d->model + (size_t)y * W + b.left, panel + (size_t)y * W + b.left, b.width);
	CHECK_PANEL_MODEL(d, "overlapping updates");
	free(mid);
	free(panel);
}

/*
 * A long GC16 update on l; a DU update over the bounding box of u1 and u2
 * (marker m + 4) collides on its pixels, whose resubmission waits for l and
 * keeps u1, u2 (DU PARTIAL) and u3 (A2 PARTIAL, over u1) queued behind it.
 * With merge, u1 and u2 become one update. None of those collides: they
 * drive their pixels to the levels the resubmission drives them to (u3, which
 * would end first, leaves them to it only once it ended).
 */
static void
merge_case(
	struct epd *d, uint32_t scheme, struct rect l, struct rect u1, struct rect u2, uint32_t m)
{
	bool merge = scheme == UPDATE_SCHEME_QUEUE_AND_MERGE;
	struct epd_trace *t;
	uint8_t *mid = epd_alloc_image(d), *panel = epd_alloc_image(d);
	struct rect bbox;

	bbox.left = u1.left < u2.left ? u1.left : u2.left;
	bbox.top = u1.top < u2.top ? u1.top : u2.top;
	bbox.width = (u1.left + u1.width > u2.left + u2.width ? u1.left + u1.width
							      : u2.left + u2.width) -
		     bbox.left;
	bbox.height = (u1.top + u1.height > u2.top + u2.height ? u1.top + u1.height
							       : u2.top + u2.height) -
		      bbox.top;
	reset(d);
	REQUIRE_RC(epd_set_scheme(d, scheme), 0);
	/* grays: DU drives them to other levels than GC16 */
	fill_gray(d, l, 77);
	submit(d, l, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, m);
	submit(d, bbox, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, m + 4);
	submit(d, u1, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, m + 1);
	submit(d, u2, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, m + 2);
	submit(d, u1, WAVEFORM_MODE_A2, UPDATE_MODE_PARTIAL, m + 3);
	wait_marker(d, m + 1, 0);
	wait_marker(d, m + 2, 0);
	wait_marker(d, m + 3, 0);
	wait_marker(d, m + 4, 1);
	wait_marker(d, m, 0);
	size_t n = read_trace(d, &t);
	struct epd_trace *el = by_marker(t, n, m), *e3 = by_marker(t, n, m + 3);
	struct epd_trace *eb = by_marker(t, n, m + 4);

	check_entry(el, l, "GC16", 0, 0);
	check_entry(eb, bbox, "DU", 1, 0);
	check_after(eb, el);
	check_entry(e3, u1, "A2", 0, 0);
	check_after(e3, el);
	if (merge) {
		struct epd_trace *em = NULL;

		CHECK_EQ(n, 4);
		CHECK_EQ(epd_stat(d, "updates_merged"), 1);
		CHECK_EQ(epd_stat(d, "updates_submitted"), 5);
		CHECK_EQ(epd_stat(d, "updates_completed"), 4);
		for (size_t i = 0; i < n; i++)
			if (t[i].marker == m + 1 || t[i].marker == m + 2)
				em = &t[i];
		CHECK_MSG(em, "no trace entry with marker %u or %u", m + 1, m + 2);
		/* the merged update covers both rects, within their bounding box */
		check_entry(em, bbox, "DU", 0, 1);
		check_after(em, el);
	} else {
		struct epd_trace *e1 = by_marker(t, n, m + 1), *e2 = by_marker(t, n, m + 2);

		CHECK_EQ(n, 5);
		CHECK_EQ(epd_stat(d, "updates_merged"), 0);
		CHECK_EQ(epd_stat(d, "updates_completed"), 5);
		check_entry(e1, u1, "DU", 0, 0);
		check_entry(e2, u2, "DU", 0, 0);
		check_after(e1, el);
		check_after(e2, el);
	}
	free(t);
	CHECK_EQ(epd_stat(d, "collisions"), 1);

	/* l exact; then DU (u1, u2 and u3 with A2 change no level) leaves ghosts at most */
	epd_model_apply(d, l.left, l.top, l.width, l.height, 16);
	memcpy(mid, d->model, (size_t)W * H);
	epd_model_apply(d, bbox.left, bbox.top, bbox.width, bbox.height, 2);
	epd_read_panel(d, panel);
	CHECK_GHOSTED_RECT(d, panel, mid, d->model, 2, 0, 0, W, H, "merge case", NULL);
	memcpy(d->model, panel, (size_t)W * H);
	free(mid);
	free(panel);
}

static void
phase_merge(struct epd *d)
{
	epd_phase("QUEUE_AND_MERGE: overlapping queued DU updates merge");
	merge_case(d, UPDATE_SCHEME_QUEUE_AND_MERGE, (struct rect){0, 180, 200, 60},
		(struct rect){48, 188, 64, 32}, (struct rect){96, 200, 64, 32}, 40);
	epd_phase("QUEUE_AND_MERGE: touching queued DU updates merge");
	merge_case(d, UPDATE_SCHEME_QUEUE_AND_MERGE, (struct rect){200, 180, 200, 60},
		(struct rect){208, 192, 40, 24}, (struct rect){248, 192, 40, 24}, 50);
	epd_phase("QUEUE: nothing merges");
	merge_case(d, UPDATE_SCHEME_QUEUE, (struct rect){0, 180, 200, 60},
		(struct rect){16, 184, 64, 32}, (struct rect){64, 196, 64, 32}, 60);
	REQUIRE_RC(epd_set_scheme(d, UPDATE_SCHEME_QUEUE_AND_MERGE), 0);
	epd_clear(d);
}

/* An update queued behind another shows the pixels of submission or of start. */
static void
scheme_case(struct epd *d, uint32_t scheme, const char *name, uint32_t m)
{
	struct rect l = {0, 240, 200, 60}, r = {40, 250, 100, 40};
	bool snapshot = scheme == UPDATE_SCHEME_SNAPSHOT;
	struct epd_trace *t;

	epd_phase("scheme %s: pixels taken at %s", name, snapshot ? "submission" : "start");
	reset(d);
	REQUIRE_RC(epd_set_scheme(d, scheme), 0);
	/*
	 * A long update that changes nothing and cannot merge with the next
	 * one: INIT at 15 C, 3 s for the second write to happen before the
	 * queued update starts, even on a slow machine.
	 */
	epd_fill(d, l.left, l.top, l.width, l.height, 255);
	REQUIRE_RC(epd_update(d, l.left, l.top, l.width, l.height, WAVEFORM_MODE_INIT,
			   UPDATE_MODE_FULL, m, 15, 0),
		0);
	/*
	 * Over the INIT, a flashing update collides on all its pixels: it
	 * starts (taking its pixels) at once, and its resubmission, queued
	 * until the INIT ends, keeps the next update over r queued too.
	 */
	epd_fill(d, r.left, r.top, r.width, r.height, 0x80);
	submit(d, r, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, m + 100);
	epd_fill(d, r.left, r.top, r.width, r.height, 0x30);
	submit(d, r, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, m + 1);
	epd_fill(d, r.left, r.top, r.width, r.height, 0xc0);
	uint64_t second_write = epd_now_ns();

	/* it changes the pixels the resubmission drives: they collide */
	wait_marker(d, m + 1, 1);
	wait_marker(d, m + 100, 1);
	wait_marker(d, m, 0);
	size_t n = read_trace(d, &t);
	struct epd_trace *el = by_marker(t, n, m), *er = by_marker(t, n, m + 1);

	CHECK_EQ(n, 3);
	check_after(er, el);
	check_after(last_by_marker(t, n, m + 1), last_by_marker(t, n, m + 100));
	if (er)
		CHECK_MSG(er->start_ns > second_write,
			"the queued update started before the second write: this machine was "
			"too slow to tell the schemes apart");
	free(t);
	epd_fill(d, l.left, l.top, l.width, l.height, 255);
	epd_fill(d, r.left, r.top, r.width, r.height, snapshot ? 0x30 : 0xc0);
	epd_model_apply(d, l.left, l.top, l.width, l.height, 16);
	CHECK_PANEL_MODEL(d, name);
}

static void
phase_corners(struct epd *d)
{
	struct rect r[4] = {{0, 0, 1, 1}, {W - 1, 0, 1, 1}, {0, H - 1, 1, 1}, {W - 1, H - 1, 1, 1}};
	struct epd_trace *t;

	epd_phase("1x1 updates at the four corners");
	epd_clear(d);
	reset(d);
	for (int i = 0; i < 4; i++)
		epd_fill(d, r[i].left, r[i].top, 1, 1, (uint8_t)(i * 50));
	for (uint32_t i = 0; i < 4; i++)
		submit(d, r[i], WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 90 + i);
	for (uint32_t i = 0; i < 4; i++)
		wait_marker(d, 90 + i, 0);
	size_t n = read_trace(d, &t);

	CHECK_EQ(n, 4);
	for (uint32_t i = 0; i < 4; i++)
		check_entry(by_marker(t, n, 90 + i), r[i], "GC16", 0, 0);
	free(t);
	CHECK_EQ(epd_stat(d, "pixels_driven"), 4);
	for (int i = 0; i < 4; i++)
		epd_model_apply(d, r[i].left, r[i].top, 1, 1, 16);
	CHECK_PANEL_MODEL(d, "corners");
}

struct waiter {
	struct epd *d;
	uint32_t marker;
	int tid;
	int rc;
};

static void *
waiter_main(void *arg)
{
	struct waiter *w = arg;

	__atomic_store_n(&w->tid, epd_gettid(), __ATOMIC_RELEASE);
	w->rc = epd_wait(w->d, w->marker, NULL);
	return NULL;
}

/*
 * A compositor waits for markers in one thread and sends updates from
 * another, on the same file: a send must not queue behind the wait.
 */
static void
phase_wait_does_not_block(struct epd *d)
{
	struct rect slow = {0, 0, 200, 150}, other = {200, 150, 200, 150};
	struct waiter w = {.d = d, .marker = 90};
	struct epd_trace *t;
	pthread_t thread;
	uint64_t send_start, send_end;

	epd_phase("a thread waiting on a marker does not hold up another thread's update");
	reset(d);
	fill_gray(d, slow, 20);
	fill_checker(d, other);
	/* GC16 at 5 C: over a second for the send to get through while it runs */
	REQUIRE_RC(epd_update(d, slow.left, slow.top, slow.width, slow.height, WAVEFORM_MODE_GC16,
			   UPDATE_MODE_FULL, w.marker, 5, 0),
		0);
	REQUIRE(pthread_create(&thread, NULL, waiter_main, &w) == 0);
	while (!__atomic_load_n(&w.tid, __ATOMIC_ACQUIRE))
		sched_yield();
	CHECK_MSG(epd_thread_in_ioctl(w.tid, 30000), "the waiter never entered its wait");
	send_start = epd_now_ns();
	submit(d, other, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 91);
	send_end = epd_now_ns();
	pthread_join(thread, NULL);
	CHECK_RC(w.rc, 0);
	wait_marker(d, 91, 0);

	size_t n = read_trace(d, &t);
	struct epd_trace *e = by_marker(t, n, w.marker);

	printf("the send took %.3f ms\n", (double)(send_end - send_start) / 1e6);
	if (e)
		CHECK_MSG(send_end < e->end_ns,
			"SEND_UPDATE returned %.3f ms after the awaited update ended: it waited "
			"for the other thread's wait",
			((double)send_end - (double)e->end_ns) / 1e6);
	free(t);
	epd_model_apply(d, slow.left, slow.top, slow.width, slow.height, 16);
	epd_model_apply(d, other.left, other.top, other.width, other.height, 16);
	CHECK_PANEL_MODEL(d, "both updates");
}

int
main(void)
{
	struct epd *d = &dev;

	epd_begin("concurrency", 120);
	epd_phase("load with time_scale=100");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=100 auto_update=0");
	REQUIRE_EQ(d->width, W);
	REQUIRE_EQ(d->height, H);
	epd_clear(d);

	phase_disjoint(d);
	phase_limit(d);
	phase_overlap(d);
	phase_merge(d);
	scheme_case(d, UPDATE_SCHEME_SNAPSHOT, "SNAPSHOT", 70);
	scheme_case(d, UPDATE_SCHEME_QUEUE, "QUEUE", 72);
	scheme_case(d, UPDATE_SCHEME_QUEUE_AND_MERGE, "QUEUE_AND_MERGE", 74);
	phase_corners(d);
	phase_wait_does_not_block(d);

	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
