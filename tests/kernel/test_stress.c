// SPDX-License-Identifier: MIT
/*
 * Stress: 4 processes, each with its own file descriptor and mapping, own a
 * quarter of the panel for 10 s: they write random content through the
 * mapping, send updates of random waveforms and modes with their own markers
 * and wait on some of them, while deferred IO (AUTOMATIC mode) sends
 * full-width bands over everyone's rows and the parent keeps reading debugfs.
 * At the end each marker is accounted for by the update trace (completed
 * with the update it was sent with, or merged into one covering it, and
 * never waited for past its end), the counters add up, and the framebuffer
 * and the panel hold each process's last write, which the process copied
 * aside.
 */
#include "epd_test.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define W      400
#define H      300
#define QW     (W / 2)
#define QH     (H / 2)
#define NPROC  4
#define RUN_MS 10000
/*
 * Updates per process, the last one included: with deferred IO's bands
 * they must fit in the driver's trace (4096 entries), which accounts for
 * every marker.
 */
#define MAX_MARKS  700
#define TRACE_SIZE 4096

static struct epd dev;

/* What a process sent with one marker, and when its wait for it returned. */
struct sent {
	uint32_t marker;
	uint32_t left, top, width, height;
	uint32_t waveform;
	uint32_t mode;
	uint32_t flags;
	uint64_t sent_ns;   /* after MXCFB_SEND_UPDATE returned */
	uint64_t waited_ns; /* after the wait returned; 0: not waited for */
};

struct shared {
	uint8_t last[NPROC][QH][QW]; /* each quarter's last write */
	struct sent sent[NPROC][MAX_MARKS];
	uint32_t updates[NPROC];
	uint32_t waits[NPROC];
};

static void
write_random(struct epd *d, uint32_t left, uint32_t top, uint32_t w, uint32_t h)
{
	uint32_t kind = epd_rand_below(4);
	uint8_t base = (uint8_t)epd_rand();

	for (uint32_t y = top; y < top + h; y++) {
		for (uint32_t x = left; x < left + w; x++) {
			uint8_t v;

			switch (kind) {
			case 0:
				v = base;
				break;
			case 1:
				v = (uint8_t)(base + x * 3 + y);
				break;
			case 2:
				v = (epd_rand() & 1) ? 255 : 0;
				break;
			default:
				v = (uint8_t)epd_rand();
				break;
			}
			epd_put(d, x, y, v);
		}
	}
}

/* One worker process: returns its exit status. */
static int
worker(const char *devnode, int q, uint64_t seed, struct shared *sh)
{
	static const uint32_t wfs[] = {WAVEFORM_MODE_DU, WAVEFORM_MODE_GC16, WAVEFORM_MODE_GC4,
		WAVEFORM_MODE_A2, WAVEFORM_MODE_GL16, WAVEFORM_MODE_AUTO};
	struct epd d = dev;
	uint32_t ql = (uint32_t)(q % 2) * QW, qt = (uint32_t)(q / 2) * QH;
	uint32_t n = 0, waits = 0;
	uint64_t t0 = epd_now_ns();

	epd_phase("worker %d: quarter at %u,%u", q, ql, qt);
	epd_seed(seed + (uint64_t)q * 7919);
	d.fd = open(devnode, O_RDWR | O_CLOEXEC);
	REQUIRE_MSG(d.fd >= 0, "worker %d: open %s: %s", q, devnode, strerror(errno));
	void *map = mmap(NULL, d.map_len, PROT_READ | PROT_WRITE, MAP_SHARED, d.fd, 0);

	REQUIRE_MSG(map != MAP_FAILED, "worker %d: mmap: %s", q, strerror(errno));
	d.map = map;

	while (epd_ms_since(t0) < RUN_MS && n + 1 < MAX_MARKS) {
		uint32_t w = 8 + epd_rand_below(QW - 7), h = 8 + epd_rand_below(QH - 7);
		uint32_t l = ql + epd_rand_below(QW - w + 1), t = qt + epd_rand_below(QH - h + 1);
		uint32_t wf = wfs[epd_rand_below(6)];
		uint32_t mode = epd_rand_below(2);
		uint32_t flags = epd_rand_below(8) ? 0 : EPDC_FLAG_FORCE_MONOCHROME;
		uint32_t marker = ((uint32_t)(q + 1) << 24) | n;
		bool wait = n % 4 == 3 || epd_rand_below(4) == 0;

		struct sent *snt = &sh->sent[q][n];

		write_random(&d, l, t, w, h);
		uint64_t ts = epd_now_ns();
		int rc = epd_update(&d, l, t, w, h, wf, mode, marker, TEMP_USE_AMBIENT, flags);

		if (!CHECK_MSG(rc == 0, "worker %d: update %u: %s", q, n, epd_errname(-rc)))
			break;
		*snt = (struct sent){marker, l, t, w, h, wf, mode, flags, epd_now_ns(), 0};
		n++;
		if (!wait)
			continue;
		rc = epd_wait(&d, marker, NULL);
		snt->waited_ns = epd_now_ns();
		double ms = (double)(snt->waited_ns - ts) / 1e6;
		/* AUTO is DU or GC16: at least the shorter */
		uint32_t dur =
			epd_duration_ms(wf == WAVEFORM_MODE_AUTO ? WAVEFORM_MODE_DU : wf, 25, 10);

		waits++;
		CHECK_MSG(rc == 0, "worker %d: wait for marker 0x%x: %s after %.1f ms", q, marker,
			epd_errname(-rc), ms);
		CHECK_MSG(ms >= dur, "worker %d: marker 0x%x (%s) completed after %.1f ms < %u ms",
			q, marker, wf < 6 ? epd_wf_names[wf] : "AUTO", ms, dur);
	}

	/* the last write: the whole quarter, shown with GC16 FULL */
	epd_phase("worker %d: final update", q);
	write_random(&d, ql, qt, QW, QH);
	for (uint32_t y = qt; y < qt + QH; y += 7)
		epd_put(&d, ql + y % QW, y, 0x80); /* some gray for sure */
	for (uint32_t y = 0; y < QH; y++)
		for (uint32_t x = 0; x < QW; x++)
			sh->last[q][y][x] = epd_get(&d, ql + x, qt + y);
	uint32_t final = ((uint32_t)(q + 1) << 24) | 0xffffff;
	struct sent *snt = &sh->sent[q][n];

	CHECK_RC(epd_update(&d, ql, qt, QW, QH, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, final,
			 TEMP_USE_AMBIENT, 0),
		0);
	*snt = (struct sent){
		final, ql, qt, QW, QH, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 0, epd_now_ns(), 0};
	CHECK_RC(epd_wait(&d, final, NULL), 0);
	snt->waited_ns = epd_now_ns();
	sh->updates[q] = n + 1;
	sh->waits[q] = waits;
	printf("worker %d: %u updates, %u waited on, %.1f s\n", q, n + 1, waits,
		epd_ms_since(t0) / 1000);
	munmap(d.map, d.map_len);
	close(d.fd);
	return epd_failures ? 1 : 0;
}

/*
 * One stats snapshot, printed under the driver's lock, while updates run:
 * at most one update per LUT in flight, and every update submitted since the
 * reset is completed, failed, merged, cancelled, in flight, queued or held
 * back (a band of deferred IO waiting for room in the queue).
 */
static void
check_live_stats(struct epd *d)
{
	char *snap = epd_stats_snapshot(d);
	long long in_flight = epd_snapshot_stat(snap, "in_flight");
	long long queued = epd_snapshot_stat(snap, "queued");
	long long submitted = epd_snapshot_stat(snap, "updates_submitted");
	long long completed = epd_snapshot_stat(snap, "updates_completed");
	long long merged = epd_snapshot_stat(snap, "updates_merged");
	long long cancelled = epd_snapshot_stat(snap, "updates_cancelled");
	long long failed = epd_snapshot_stat_or(snap, "updates_failed", 0);
	long long held = epd_snapshot_stat_or(snap, "held", 0);

	CHECK_MSG(in_flight >= 0 && in_flight <= 16, "%lld updates in flight, for 16 LUTs",
		in_flight);
	CHECK_MSG(submitted == completed + failed + merged + cancelled + in_flight + queued + held,
		"while updates run, submitted %lld != completed %lld + failed %lld + merged "
		"%lld + cancelled %lld + in flight %lld + queued %lld + held %lld",
		submitted, completed, failed, merged, cancelled, in_flight, queued, held);
	free(snap);
}

/* A trace entry could show what was sent: same kind, rect within its rect. */
static bool
shows(const struct epd_trace *e, const struct sent *s)
{
	bool exact = e->marker == s->marker && !e->merged;

	if (strcmp(e->mode, s->mode == UPDATE_MODE_FULL ? "full" : "partial") ||
		e->flags != s->flags || e->submit_ns > s->sent_ns)
		return false;
	if (s->waveform == WAVEFORM_MODE_AUTO) {
		if (strcmp(e->waveform, "DU") && strcmp(e->waveform, "GC16"))
			return false;
	} else if (strcmp(e->waveform, epd_wf_names[s->waveform])) {
		return false;
	}
	if (exact)
		return e->left == s->left && e->top == s->top && e->width == s->width &&
		       e->height == s->height;
	return e->left <= s->left && e->top <= s->top && e->left + e->width >= s->left + s->width &&
	       e->top + e->height >= s->top + s->height;
}

/* A merged update that shows s and ended before its wait returned, or NULL. */
static const struct epd_trace *
merged_into(const struct epd_trace *t, size_t nt, const struct sent *s)
{
	for (size_t i = 0; i < nt; i++)
		if (t[i].merged && shows(&t[i], s) &&
			(!s->waited_ns || t[i].end_ns <= s->waited_ns))
			return &t[i];
	return NULL;
}

/*
 * Every marker sent is accounted for by the trace, since a wait for a
 * marker the driver lost returns 0 at once, as for a completed one: either
 * an entry carries it, with the update as sent (the whole trace is kept, see
 * MAX_MARKS), or it was merged into an entry that covers it. Either way a
 * wait for it returned only after that entry ended. No marker shows twice,
 * and no more markers are missing than updates were merged.
 */
static void
check_markers(const struct shared *sh, struct epd_trace *t, size_t nt)
{
	static uint8_t seen[NPROC][MAX_MARKS];
	size_t merged = 0, missing = 0;
	unsigned int bad = 0;

	for (size_t i = 0; i < nt; i++) {
		uint32_t q = (t[i].marker >> 24) - 1, idx = t[i].marker & 0xffffff;

		merged += t[i].merged;
		if (!t[i].marker)
			continue;
		if (q < NPROC && idx == 0xffffff)
			idx = sh->updates[q] - 1;
		if (q >= NPROC || idx >= sh->updates[q] || seen[q][idx]++) {
			if (bad++ < 10)
				printf("    trace entry %zu: marker 0x%x was not sent, or twice\n",
					i, t[i].marker);
			continue;
		}
	}
	for (int q = 0; q < NPROC; q++) {
		for (uint32_t i = 0; i < sh->updates[q]; i++) {
			const struct sent *s = &sh->sent[q][i];
			const struct epd_trace *e = epd_trace_find(t, nt, s->marker);
			const char *wrong = NULL;

			if (!e) {
				missing++;
				e = merged_into(t, nt, s);
				if (!e)
					wrong = "no entry carries it or could have merged it";
			} else if (!shows(e, s)) {
				wrong = "its entry shows something else";
			} else if (s->waited_ns && e->end_ns > s->waited_ns) {
				wrong = "its wait returned before its update ended";
			}
			if (!wrong)
				continue;
			if (bad++ < 10) {
				printf("    worker %d: marker 0x%x (%ux%u at %u,%u, waveform %u "
				       "mode %u flags 0x%x%s): %s\n",
					q, s->marker, s->width, s->height, s->left, s->top,
					s->waveform, s->mode, s->flags,
					s->waited_ns ? ", waited for" : "", wrong);
				if (e)
					epd_trace_print(e);
			}
		}
	}
	printf("markers: %zu of them merged into other updates, %zu merges in the trace\n", missing,
		merged);
	CHECK_MSG(!bad, "%u marker(s) or trace entries are not accounted for", bad);
	CHECK_LE(missing, merged);
}

int
main(void)
{
	struct epd *d = &dev;
	pid_t pids[NPROC];
	int alive = NPROC;
	unsigned int reads = 0;

	epd_begin("stress", 180);
	uint64_t seed = epd_seed_from_env();

	epd_phase("load (AUTOMATIC mode, time_scale=10)");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=10 auto_update=1");
	REQUIRE_EQ(d->width, W);
	REQUIRE_EQ(d->height, H);
	epd_clear(d);
	REQUIRE_RC(epd_wait_idle(d), 0);
	epd_stats_reset(d);
	epd_trace_clear(d);

	struct shared *sh =
		mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	REQUIRE(sh != MAP_FAILED);
	memset(sh, 0, sizeof(*sh));

	epd_phase("4 workers for %d ms", RUN_MS);
	fflush(NULL);
	for (int q = 0; q < NPROC; q++) {
		pids[q] = fork();
		REQUIRE(pids[q] >= 0);
		if (pids[q] == 0) {
			int rc = worker(d->devnode, q, seed, sh);

			fflush(NULL);
			_exit(rc);
		}
	}

	/* meanwhile, read debugfs over and over */
	uint8_t *panel = epd_alloc_image(d);

	while (alive > 0) {
		struct epd_trace *t;
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);

		if (pid > 0) {
			int q = -1;

			for (int i = 0; i < NPROC; i++)
				if (pids[i] == pid)
					q = i;
			CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "worker %d: %s %d",
				q, WIFEXITED(status) ? "exit status" : "killed by signal",
				WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
			alive--;
			continue;
		}
		epd_read_panel(d, panel);
		check_live_stats(d);
		CHECK_GE(epd_stat_f(d, "ghost_mean"), 0.0);
		if (reads % 8 == 0) {
			epd_trace_read(d, &t);
			free(t);
		}
		reads++;
		epd_sleep_ms(20);
	}
	printf("parent: %u debugfs read rounds during the run\n", reads);

	epd_phase("final state");
	/*
	 * The counters come from one snapshot taken once the driver is idle
	 * and a second snapshot shows nothing new happened in between, so a
	 * late deferred IO run cannot make them disagree.
	 */
	char *snap = NULL, *prev = NULL;
	int rounds = 0;

	do {
		free(prev);
		prev = snap;
		REQUIRE_OK(fsync(d->fd));
		REQUIRE_RC(epd_wait_idle(d), 0);
		epd_sleep_ms(100);
		snap = epd_stats_snapshot(d);
		rounds++;
	} while ((!prev || epd_snapshot_stat(snap, "updates_submitted") !=
				   epd_snapshot_stat(prev, "updates_submitted")) &&
		 rounds < 20);
	free(prev);
	if (rounds > 2)
		printf("the driver went quiet after %d rounds of fsync and wait\n", rounds);
	/* the workers' last writes, put together, against the framebuffer */
	uint8_t *last = epd_alloc_image(d), *fb = epd_alloc_image(d);

	for (uint32_t y = 0; y < H; y++) {
		for (uint32_t x = 0; x < W; x++) {
			int q = (int)(y / QH) * 2 + (int)(x / QW);

			last[(size_t)y * W + x] = sh->last[q][y % QH][x % QW];
			fb[(size_t)y * W + x] = epd_get(d, x, y);
		}
	}
	CHECK_IMAGE(d, fb, last, "framebuffer: each worker's last write");

	long long submitted = epd_snapshot_stat(snap, "updates_submitted");
	long long completed = epd_snapshot_stat(snap, "updates_completed");
	long long merged = epd_snapshot_stat(snap, "updates_merged");
	long long cancelled = epd_snapshot_stat(snap, "updates_cancelled");
	long long sent = 0;

	for (int q = 0; q < NPROC; q++)
		sent += sh->updates[q];
	printf("stats: submitted %lld (workers sent %lld), completed %lld, merged %lld, "
	       "collisions %lld, flashes %lld, defio_runs %lld\n",
		submitted, sent, completed, merged, epd_snapshot_stat(snap, "collisions"),
		epd_snapshot_stat(snap, "flashes"), epd_snapshot_stat(snap, "defio_runs"));
	CHECK_GE(submitted, sent);
	CHECK_EQ(cancelled, 0);
	CHECK_EQ(completed + merged, submitted);
	CHECK_EQ(epd_snapshot_stat(snap, "in_flight"), 0);
	CHECK_EQ(epd_snapshot_stat(snap, "queued"), 0);
	CHECK_GT(epd_snapshot_stat(snap, "defio_runs"), 0);
	CHECK_GT(epd_snapshot_stat(snap, "collisions"), 0);
	free(snap);

	struct epd_trace *t;
	size_t nt = epd_trace_read(d, &t);

	REQUIRE_MSG(completed <= TRACE_SIZE,
		"%lld updates completed: the trace keeps %d, too few to account for the "
		"markers",
		completed, TRACE_SIZE);
	CHECK_EQ(nt, completed);
	check_markers(sh, t, nt);
	for (size_t i = 0; i < nt; i++) {
		if (t[i].end_ns < t[i].start_ns || t[i].start_ns < t[i].submit_ns ||
			t[i].left + t[i].width > W || t[i].top + t[i].height > H) {
			epd_fail(__FILE__, __LINE__, "inconsistent trace entry %zu", i);
			epd_trace_print(&t[i]);
			break;
		}
		/* AUTO resolved to a waveform when it started: it lasts as long as that one */
		uint32_t wf = 0;

		while (wf < 6 && strcmp(t[i].waveform, epd_wf_names[wf]))
			wf++;
		if (!CHECK_MSG(wf < 6, "trace entry %zu: unknown waveform %s", i, t[i].waveform) ||
			!CHECK_TRACE_DURATION(&t[i], epd_duration_ms(wf, 25, 10), t[i].waveform))
			break;
	}
	free(t);

	/* GC16 FULL flashes: the panel shows the last writes exactly */
	for (size_t i = 0; i < (size_t)W * H; i++)
		d->model[i] = epd_quant(last[i], 16);
	CHECK_PANEL_MODEL(d, "each worker's last write");
	free(last);
	free(fb);
	free(panel);

	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
