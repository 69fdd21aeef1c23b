// SPDX-License-Identifier: MIT
/*
 * The benchmark's hands on the simulated panel, on epdfb or epdrm, whichever
 * is loaded, or on an emulated IT8951 board (bench_panel.h):
 *
 *   epaper_panel clear auto|region    a white, ghost-free panel (a flashing
 *                                     GC16 of all of it), then the deferred IO
 *                                     mode, zeroed counters and an empty trace;
 *                                     on epdrm a white frame committed through
 *                                     KMS, region only (its mode); on an
 *                                     emulated IT8951 board (EPAPER_BOARD)
 *                                     the board's own white, region only
 *   epaper_panel reset                zeroed counters and an empty trace
 *   epaper_panel flash                a flashing GC16 of all of the panel with
 *                                     what the framebuffer holds (ghosts gone,
 *                                     the image kept: a display stack on it
 *                                     goes on unaware), then reset; on epdrm a
 *                                     commit of the plane as it is, through
 *                                     the display stack's own file (see
 *                                     flash_drm); on the board a GC16 of
 *                                     what its image buffer holds
 *   epaper_panel settle QUIET_MS TIMEOUT_S
 *                                     waits until nothing is in flight or
 *                                     queued and no update was submitted or
 *                                     completed for QUIET_MS
 *   epaper_panel wait-update TIMEOUT_S
 *                                     waits for an update in the trace
 *
 * settle and wait-update exit 1 when time runs out.
 */
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "bench_panel.h"
#include "epd_test.h"
#include "epdrm_test.h"
#include "vellum_panel.h"

#define POLL_MS 100
/* far from the markers a display stack counts up from 1 */
#define FLASH_MARKER 0xfffffff1u
/* a GC16 of the whole panel takes 450 ms; the emulated machine is slow */
#define FLASH_TIMEOUT_MS 60000

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
	if (bench_panel_is_drm(d)) {
		char path[EPD_DBG_PATH_SIZE];

		/* what epd_stats_reset waits for, without a framebuffer to flush */
		REQUIRE_RC(epd_wait_idle(d), 0);
		snprintf(path, sizeof(path), "%s/stats", d->dbgdir);
		REQUIRE_RC(epd_write_file(path, "0\n"), 0);
	} else {
		epd_stats_reset(d);
	}
	epd_trace_clear(d);
}

/*
 * One commit of the plane as it is, with GC16 and EPD_FULL and no damage
 * clips (the whole plane), through fd; its settle fence waited for.
 * 0, or -errno of the commit (EACCES: fd is not the master's).
 */
static int
commit_flash(int fd, struct epdrm *e)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int settle = -1;

	REQUIRE(req);
	drmModeAtomicAddProperty(
		req, e->plane, e->props.waveform, (uint64_t)epdrm_waveform_value(e, "GC16"));
	drmModeAtomicAddProperty(req, e->plane, e->props.full, 1);
	drmModeAtomicAddProperty(
		req, e->plane, e->props.settle_fence_ptr, (uint64_t)(uintptr_t)&settle);
	int ret = drmModeAtomicCommit(fd, req, 0, NULL);
	drmModeAtomicFree(req);
	if (ret)
		return ret;
	struct pollfd pfd = {.fd = settle, .events = POLLIN};
	REQUIRE_MSG(settle >= 0, "the flash's commit gave no settle fence");
	REQUIRE_MSG(poll(&pfd, 1, FLASH_TIMEOUT_MS) == 1, "the flash did not settle");
	close(settle);
	return 0;
}

/*
 * epdrm's flash. Only the card's master may commit, and the display stack
 * is: the commit goes through the stack's own file, taken with
 * pidfd_getfd() from whichever process holds the card (vellum). It commits
 * the plane's framebuffer as it is, so the stack sees nothing change, as
 * with epdfb's update ioctl on the framebuffer it draws into. Its next
 * commit sets EPD_WAVEFORM and EPD_FULL again.
 */
static void
flash_drm(struct epd *d)
{
	struct epdrm e;
	DIR *proc = opendir("/proc");
	struct dirent *ent;
	bool done = false;

	epdrm_open(&e);
	REQUIRE(proc);
	while (!done && (ent = readdir(proc))) {
		pid_t pid = (pid_t)atoi(ent->d_name);
		char fds_path[64];

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(fds_path, sizeof(fds_path), "/proc/%d/fd", pid);
		DIR *fds = opendir(fds_path);
		if (!fds)
			continue;
		int pidfd = pidfd_open(pid, 0);
		for (struct dirent *f; pidfd >= 0 && !done && (f = readdir(fds));) {
			char link[PATH_MAX + 64], target[PATH_MAX];

			snprintf(link, sizeof(link), "%s/%s", fds_path, f->d_name);
			ssize_t n = readlink(link, target, sizeof(target) - 1);
			if (n < 0)
				continue;
			target[n] = '\0';
			if (strcmp(target, e.devnode) != 0)
				continue;
			int fd = pidfd_getfd(pidfd, atoi(f->d_name), 0);
			if (fd < 0)
				continue;
			int ret = commit_flash(fd, &e);
			REQUIRE_MSG(ret == 0 || ret == -EACCES, "the flash's commit: %s",
				strerror(-ret));
			done = ret == 0;
			close(fd);
		}
		if (pidfd >= 0)
			close(pidfd);
		closedir(fds);
	}
	closedir(proc);
	epdrm_close(&e);
	REQUIRE_MSG(done, "no process is the master of %s: no display stack to flash under",
		d->devnode);
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
		bool automatic = !strcmp(argv[2], "auto");

		bench_panel_attach(d);
		if (bench_panel_is_board(d)) {
			REQUIRE_MSG(!automatic, "the IT8951 has no AUTOMATIC mode: it has no "
						"framebuffer a stack could write into");
			vellum_panel_clear(d);
		} else if (bench_panel_is_drm(d)) {
			REQUIRE_MSG(!automatic,
				"epdrm has no AUTOMATIC mode: its commits say what changed");
			vellum_panel_clear(d);
		} else {
			REQUIRE_RC(epd_set_auto_mode(d, AUTO_UPDATE_MODE_REGION_MODE), 0);
			epd_clear(d);
			if (automatic)
				REQUIRE_RC(
					epd_set_auto_mode(d, AUTO_UPDATE_MODE_AUTOMATIC_MODE), 0);
		}
		/*
		 * On epdrm closing the card gave the panel back to the fbdev
		 * emulation, whose frame is committed then: gone from the
		 * counters with the clear's.
		 */
		reset(d);
	} else if (!strcmp(command, "reset") && argc == 2) {
		bench_panel_attach(d);
		reset(d);
	} else if (!strcmp(command, "flash") && argc == 2) {
		bench_panel_attach(d);
		if (bench_panel_is_board(d))
			free(epd_board_query(d, "flash", NULL));
		else if (bench_panel_is_drm(d))
			flash_drm(d);
		else
			epd_show(d, 0, 0, d->width, d->height, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL,
				FLASH_MARKER);
		reset(d);
	} else if (!strcmp(command, "settle") && argc == 4) {
		bench_panel_attach(d);
		status = settle(d, (unsigned int)atoi(argv[2]), (unsigned int)atoi(argv[3]));
	} else if (!strcmp(command, "wait-update") && argc == 3) {
		bench_panel_attach(d);
		status = wait_update(d, (unsigned int)atoi(argv[2]));
	} else {
		return usage();
	}
	epd_close(d);
	return status;
}
