// SPDX-License-Identifier: MIT
/*
 * The update queue is bounded whatever callers send. A flood of full-screen
 * SNAPSHOT updates without waiting is refused with ENOMEM once the snapshot
 * pool is full, a flood of QUEUE updates with EBUSY once the queue is full;
 * what was accepted shows, in order, with its own pixels. In AUTOMATIC mode
 * a program that keeps writing faster than the panel follows keeps the queue
 * bounded (its bands merge, or wait outside a queue full of other updates),
 * and the panel ends up with what was written last.
 */
#include "epd_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FLOOD 200

/* The documented bound: queued updates, and frames of queued SNAPSHOT pixels. */
#define QUEUED_LIMIT    64
#define SNAPSHOT_FRAMES 4

static struct epd dev;

struct bound {
	long long queued_limit;
	long long snapshot_limit;
	long long max_queued;
	long long max_snapshot;
	long long max_held;
	long long start_avail_kb;
	long long min_avail_kb;
};

static long long
mem_available_kb(void)
{
	char *info = epd_read_file("/proc/meminfo", NULL);
	char *p = info ? strstr(info, "MemAvailable:") : NULL;
	long long kb = p ? strtoll(p + strlen("MemAvailable:"), NULL, 10) : -1;

	free(info);
	REQUIRE_MSG(kb > 0, "no MemAvailable in /proc/meminfo");
	return kb;
}

static void
bound_init(struct epd *d, struct bound *b)
{
	char *snap = epd_stats_snapshot(d);

	memset(b, 0, sizeof(*b));
	b->queued_limit = QUEUED_LIMIT;
	b->snapshot_limit = (long long)SNAPSHOT_FRAMES * d->width * d->height;
	CHECK_EQ(epd_snapshot_stat_or(snap, "queued_limit", -1), b->queued_limit);
	CHECK_EQ(epd_snapshot_stat_or(snap, "snapshot_limit", -1), b->snapshot_limit);
	free(snap);
	b->start_avail_kb = b->min_avail_kb = mem_available_kb();
	printf("queued_limit %lld, snapshot_limit %lld bytes\n", b->queued_limit,
		b->snapshot_limit);
}

static void
bound_sample(struct epd *d, struct bound *b)
{
	char *snap = epd_stats_snapshot(d);
	long long q = epd_snapshot_stat(snap, "queued");
	long long s = epd_snapshot_stat_or(snap, "snapshot_bytes", 0);
	long long h = epd_snapshot_stat_or(snap, "held", 0);
	long long avail = mem_available_kb();

	free(snap);
	b->min_avail_kb = avail < b->min_avail_kb ? avail : b->min_avail_kb;
	b->max_queued = q > b->max_queued ? q : b->max_queued;
	b->max_snapshot = s > b->max_snapshot ? s : b->max_snapshot;
	b->max_held = h > b->max_held ? h : b->max_held;
}

static void
bound_check(const struct bound *b)
{
	printf("at most %lld queued, %lld snapshot bytes, %lld held\n", b->max_queued,
		b->max_snapshot, b->max_held);
	CHECK_LE(b->max_queued, b->queued_limit);
	CHECK_LE(b->max_snapshot, b->snapshot_limit);
	CHECK_LE(b->max_held, 1);
}

/*
 * Checks the trace holds exactly the accepted markers (each once, in the order
 * they were sent, one after the other on the panel) and none refused.
 */
static void
accepted_in_order(struct epd *d, const int *rc, uint32_t first_marker)
{
	struct epd_trace *t;
	size_t n = epd_trace_read(d, &t), k = 0;
	const struct epd_trace *prev = NULL;

	for (uint32_t i = 0; i < FLOOD; i++) {
		if (rc[i])
			continue;
		while (k < n && t[k].marker != first_marker + i)
			k++;
		if (!CHECK_MSG(k < n, "accepted marker %u missing from the trace (or out of order)",
			    first_marker + i))
			break;
		if (prev)
			CHECK_GE(t[k].start_ns, prev->end_ns);
		prev = &t[k];
	}
	for (size_t j = 0; j < n; j++)
		for (uint32_t i = 0; i < FLOOD; i++)
			if (rc[i] && t[j].marker == first_marker + i)
				epd_fail(__FILE__, __LINE__, "refused marker %u in the trace",
					first_marker + i);
	free(t);
}

/*
 * Sends FLOOD updates of the rect (0,0 w x h) without waiting; in the SNAPSHOT
 * scheme each one over a fresh gray. Returns the index of the last accepted.
 */
static int
flood(struct epd *d, uint32_t scheme, uint32_t w, uint32_t h, uint32_t first_marker, int refusal,
	struct bound *b)
{
	int rc[FLOOD], last = -1, refused = 0;
	uint64_t t0, slowest = 0;
	char *snap;

	REQUIRE_RC(epd_set_scheme(d, scheme), 0);
	epd_stats_reset(d);
	epd_trace_clear(d);
	for (int i = 0; i < FLOOD; i++) {
		if (scheme == UPDATE_SCHEME_SNAPSHOT)
			epd_fill(d, 0, 0, w, h, (uint8_t)(17 * (i % 15)));
		t0 = epd_now_ns();
		rc[i] = epd_update(d, 0, 0, w, h, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL,
			first_marker + (uint32_t)i, TEMP_USE_AMBIENT, 0);
		slowest = epd_now_ns() - t0 > slowest ? epd_now_ns() - t0 : slowest;
		CHECK_MSG(rc[i] == 0 || rc[i] == -refusal, "send %d: %s", i, epd_errname(-rc[i]));
		if (rc[i])
			refused++;
		else
			last = i;
		bound_sample(d, b);
	}
	printf("%d of %d sends refused (%s); the slowest send took %.2f ms\n", refused, FLOOD,
		epd_errname(refusal), (double)slowest / 1e6);
	CHECK_GT(refused, 0);
	snap = epd_stats_snapshot(d);
	CHECK_EQ(epd_snapshot_stat_or(snap, "updates_refused", -1), refused);
	free(snap);
	for (int i = 0; i < FLOOD; i++)
		if (!rc[i])
			CHECK_RC(epd_wait(d, first_marker + (uint32_t)i, NULL), 0);
	accepted_in_order(d, rc, first_marker);
	CHECK_EQ(epd_stat(d, "updates_completed"), FLOOD - refused);
	return last;
}

static void
snapshot_flood(struct epd *d)
{
	struct bound b;
	int last;

	epd_phase("SNAPSHOT: %d full-screen sends without waiting", FLOOD);
	bound_init(d, &b);
	last = flood(d, UPDATE_SCHEME_SNAPSHOT, d->width, d->height, 1000, ENOMEM, &b);
	bound_check(&b);
	printf("MemAvailable fell by %lld kB at most during the flood\n",
		b.start_avail_kb - b.min_avail_kb);
	/* 200 frames would be 500 MiB; the pool and the update in flight are 5 */
	CHECK_LT(b.start_avail_kb - b.min_avail_kb, 128 * 1024);
	REQUIRE(last >= 0);
	/* the panel shows the last accepted snapshot, not what was drawn after it */
	memset(d->model, epd_quant((uint8_t)(17 * (last % 15)), 16), (size_t)d->width * d->height);
	CHECK_PANEL_MODEL(d, "the last accepted snapshot");
}

static void
queue_flood(struct epd *d)
{
	struct bound b;

	epd_phase("QUEUE: %d sends of one rect without waiting", FLOOD);
	bound_init(d, &b);
	epd_fill(d, 0, 0, 64, 64, 0x60);
	flood(d, UPDATE_SCHEME_QUEUE, 64, 64, 5000, EBUSY, &b);
	bound_check(&b);
	epd_model_apply(d, 0, 0, 64, 64, 16);
	CHECK_PANEL_MODEL(d, "the queue flood");
}

static void
automatic_writer(struct epd *d)
{
	struct bound b;
	uint64_t t0;

	epd_phase("AUTOMATIC: a writer faster than the panel, QUEUE scheme");
	REQUIRE_RC(epd_set_scheme(d, UPDATE_SCHEME_QUEUE), 0);
	bound_init(d, &b);
	t0 = epd_now_ns();
	for (unsigned int i = 0; epd_ms_since(t0) < 4000; i++) {
		memset(d->map + 100 * d->line_length, (uint8_t)(0x20 + 0x30 * (i % 4)),
			10 * d->line_length);
		epd_sleep_ms(5);
		bound_sample(d, &b);
	}
	bound_check(&b);
	REQUIRE_OK(fsync(d->fd));
	CHECK_RC(epd_wait_idle(d), 0);
	epd_model_apply(d, 0, 0, d->width, d->height, 16);
	CHECK_PANEL_MODEL(d, "after the writer");
}

static void
automatic_behind_full_queue(struct epd *d)
{
	struct epd_trace *t;
	struct bound b;
	uint64_t fsynced;
	char *snap;
	size_t n;

	epd_phase("AUTOMATIC: bands wait outside a queue full of other updates");
	REQUIRE_RC(epd_set_scheme(d, UPDATE_SCHEME_QUEUE), 0);
	epd_stats_reset(d);
	epd_trace_clear(d);
	bound_init(d, &b);
	/* cold: 2.5 times as long, time to fill the queue behind it */
	REQUIRE_RC(epd_update(d, 0, 0, d->width, 60, WAVEFORM_MODE_INIT, UPDATE_MODE_FULL, 1, 5, 0),
		0);
	for (uint32_t i = 0; i < b.queued_limit; i++)
		REQUIRE_RC(epd_update(d, (i % 32) * 10, (i / 32) * 10, 8, 8, WAVEFORM_MODE_GC16,
				   UPDATE_MODE_FULL, 2 + i, TEMP_USE_AMBIENT, 0),
			0);
	CHECK_RC(epd_update(d, 0, 0, 8, 8, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 999,
			 TEMP_USE_AMBIENT, 0),
		-EBUSY);
	memset(d->map + 200 * d->line_length, 0x50, 10 * d->line_length);
	REQUIRE_OK(fsync(d->fd));
	bound_sample(d, &b);
	memset(d->map + 250 * d->line_length, 0xa0, 10 * d->line_length);
	REQUIRE_OK(fsync(d->fd));
	fsynced = epd_now_ns();
	bound_sample(d, &b);
	snap = epd_stats_snapshot(d);
	CHECK_EQ(epd_snapshot_stat_or(snap, "held", -1), 1);
	CHECK_EQ(epd_snapshot_stat_or(snap, "updates_refused", -1), 1);
	free(snap);
	CHECK_RC(epd_wait_idle(d), 0);
	bound_check(&b);
	n = epd_trace_read(d, &t);
	REQUIRE(n > 0);
	REQUIRE_MSG(t[0].marker == 1 && t[0].end_ns > fsynced,
		"the first update ended before the bands were written: no conclusion");
	free(t);
	epd_model_apply(d, 0, 0, d->width, d->height, 16);
	/* the INIT update cleared its rows to white */
	memset(d->model, 255, (size_t)60 * d->width);
	CHECK_PANEL_MODEL(d, "after the held bands");
}

/*
 * The floods prove the bound only if sends outpace the panel. A kernel with
 * KASAN and lockdep under emulation copies a full-screen snapshot hundreds of
 * times slower than a plain one, so the panel is slowed by the measured
 * cost of a send: one full-screen update lasts as long as SENDS_PER_UPDATE
 * sends, twice what the snapshot pool and the update in flight hold. Never
 * longer than UPDATE_MAX_MS, though: a wait gives up after 5 s without a
 * completion.
 */
#define SENDS_PER_UPDATE 10
#define UPDATE_MAX_MS    2500

static unsigned int
time_scale_outpaced_by_sends(struct epd *d)
{
	uint64_t send_ns = 0, update_ns = UINT64_MAX, t0;
	unsigned int scale;
	struct epd_trace *t;
	size_t n;

	REQUIRE_RC(epd_set_scheme(d, UPDATE_SCHEME_SNAPSHOT), 0);
	for (uint32_t i = 0; i < 3; i++) {
		epd_trace_clear(d);
		epd_fill(d, 0, 0, d->width, d->height, (uint8_t)(0x40 + 0x40 * i));
		t0 = epd_now_ns();
		REQUIRE_RC(epd_update(d, 0, 0, d->width, d->height, WAVEFORM_MODE_GC16,
				   UPDATE_MODE_FULL, 100 + i, TEMP_USE_AMBIENT, 0),
			0);
		uint64_t sent_ns = epd_now_ns() - t0;
		send_ns = sent_ns > send_ns ? sent_ns : send_ns;
		REQUIRE_RC(epd_wait(d, 100 + i, NULL), 0);
		n = epd_trace_read(d, &t);
		REQUIRE(n == 1);
		uint64_t shown_ns = t[0].end_ns - t[0].start_ns;
		update_ns = shown_ns < update_ns ? shown_ns : update_ns;
		free(t);
	}
	scale = (unsigned int)(40.0 * SENDS_PER_UPDATE * (double)send_ns / (double)update_ns) + 1;
	unsigned int most = (unsigned int)(40.0 * UPDATE_MAX_MS * 1e6 / (double)update_ns);
	scale = scale > most ? most : scale;
	scale = scale < 40 ? 40 : scale;
	printf("a send costs up to %.2f ms, a full-screen update %.1f ms at time_scale 40: "
	       "time_scale %u for the floods\n",
		(double)send_ns / 1e6, (double)update_ns / 1e6, scale);
	return scale;
}

int
main(void)
{
	struct epd *d = &dev;
	char params[96];
	unsigned int scale;

	epd_begin("queue_bound", 600);
	epd_phase("load at the default size: the cost of a send");
	epd_open(d, "bpp=8 time_scale=40 auto_update=0");
	scale = time_scale_outpaced_by_sends(d);
	epd_close(d);

	epd_phase("load at the default size, the panel slower than the sends");
	snprintf(params, sizeof(params), "bpp=8 time_scale=%u auto_update=0", scale);
	epd_open(d, params);
	snapshot_flood(d);
	epd_close(d);

	epd_phase("load at the default size");
	epd_open(d, "bpp=8 time_scale=40 auto_update=0");
	queue_flood(d);
	epd_close(d);

	epd_phase("load in AUTOMATIC mode");
	epd_open(d, "width=320 height=300 bpp=8 time_scale=40 auto_update=1 defio_delay_ms=20");
	automatic_writer(d);
	automatic_behind_full_queue(d);
	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
