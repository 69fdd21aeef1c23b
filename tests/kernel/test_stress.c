// SPDX-License-Identifier: MIT
/*
 * Stress: 4 processes, each with its own file descriptor and mapping, own a
 * quarter of the panel for 10 s: they write random content through the
 * mapping, send updates of random waveforms and modes with their own markers
 * and wait on some of them, while deferred IO (AUTOMATIC mode) sends
 * full-width bands over everyone's rows and the parent keeps reading debugfs.
 * At the end every marker completes, the counters add up and the panel shows
 * each process's last write, exactly.
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

#define W         400
#define H         300
#define NPROC     4
#define RUN_MS    10000
#define MAX_MARKS 20000

static struct epd dev;

struct shared {
	uint64_t checksum[NPROC]; /* of each quarter's last write */
	uint32_t updates[NPROC];
	uint32_t waits[NPROC];
};

static uint64_t
quarter_checksum(const struct epd *d, uint32_t left, uint32_t top)
{
	uint64_t sum = 1469598103934665603ULL;

	for (uint32_t y = top; y < top + H / 2; y++)
		for (uint32_t x = left; x < left + W / 2; x++)
			sum = (sum ^ epd_get(d, x, y)) * 1099511628211ULL;
	return sum;
}

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

static uint32_t marks[MAX_MARKS];

/* One worker process: returns its exit status. */
static int
worker(const char *devnode, int q, uint64_t seed, struct shared *sh)
{
	static const uint32_t wfs[] = {WAVEFORM_MODE_DU, WAVEFORM_MODE_GC16, WAVEFORM_MODE_GC4,
		WAVEFORM_MODE_A2, WAVEFORM_MODE_GL16, WAVEFORM_MODE_AUTO};
	struct epd d = dev;
	uint32_t ql = (uint32_t)(q % 2) * (W / 2), qt = (uint32_t)(q / 2) * (H / 2);
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
		uint32_t w = 8 + epd_rand_below(W / 2 - 7), h = 8 + epd_rand_below(H / 2 - 7);
		uint32_t l = ql + epd_rand_below(W / 2 - w + 1),
			 t = qt + epd_rand_below(H / 2 - h + 1);
		uint32_t wf = wfs[epd_rand_below(6)];
		uint32_t mode = epd_rand_below(2);
		uint32_t flags = epd_rand_below(8) ? 0 : EPDC_FLAG_FORCE_MONOCHROME;
		uint32_t marker = ((uint32_t)(q + 1) << 24) | n;
		bool wait = n % 4 == 3 || epd_rand_below(4) == 0;

		write_random(&d, l, t, w, h);
		uint64_t ts = epd_now_ns();
		int rc = epd_update(&d, l, t, w, h, wf, mode, marker, TEMP_USE_AMBIENT, flags);

		if (!CHECK_MSG(rc == 0, "worker %d: update %u: %s", q, n, epd_errname(-rc)))
			break;
		marks[n++] = marker;
		if (!wait)
			continue;
		rc = epd_wait(&d, marker, NULL);
		double ms = epd_ms_since(ts);
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
	write_random(&d, ql, qt, W / 2, H / 2);
	for (uint32_t y = qt; y < qt + H / 2; y += 7)
		epd_put(&d, ql + y % (W / 2), y, 0x80); /* some gray for sure */
	sh->checksum[q] = quarter_checksum(&d, ql, qt);
	uint32_t final = ((uint32_t)(q + 1) << 24) | 0xffffff;

	CHECK_RC(epd_update(&d, ql, qt, W / 2, H / 2, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, final,
			 TEMP_USE_AMBIENT, 0),
		0);
	CHECK_RC(epd_wait(&d, final, NULL), 0);
	/* every marker completes: none times out */
	unsigned int bad = 0;

	for (uint32_t i = 0; i < n; i++) {
		int rc = epd_wait(&d, marks[i], NULL);

		if (rc && bad++ < 10)
			epd_fail(__FILE__, __LINE__, "worker %d: wait for marker 0x%x: %s", q,
				marks[i], epd_errname(-rc));
	}
	CHECK_EQ(bad, 0);
	sh->updates[q] = n + 1;
	sh->waits[q] = waits;
	printf("worker %d: %u updates, %u waited on, %.1f s\n", q, n + 1, waits,
		epd_ms_since(t0) / 1000);
	munmap(d.map, d.map_len);
	close(d.fd);
	return epd_failures ? 1 : 0;
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
		(void)epd_stat(d, "in_flight");
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
	for (int q = 0; q < NPROC; q++)
		CHECK_MSG(quarter_checksum(d, (uint32_t)(q % 2) * (W / 2),
				  (uint32_t)(q / 2) * (H / 2)) == sh->checksum[q],
			"quarter %d: the framebuffer does not hold the worker's last write", q);

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

	CHECK_EQ(nt, completed < 4096 ? completed : 4096);
	for (size_t i = 0; i < nt; i++) {
		if (t[i].end_ns < t[i].start_ns || t[i].start_ns < t[i].submit_ns ||
			t[i].left + t[i].width > W || t[i].top + t[i].height > H) {
			epd_fail(__FILE__, __LINE__, "inconsistent trace entry %zu", i);
			epd_trace_print(&t[i]);
			break;
		}
	}
	free(t);

	epd_model_apply(d, 0, 0, W, H, 16);
	CHECK_PANEL_MODEL(d, "each worker's last write");
	free(panel);

	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
