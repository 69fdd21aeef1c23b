// SPDX-License-Identifier: MIT
/*
 * FBIO_WAITFORVSYNC and fsync(): both flush what is pending, through the
 * mapping (deferred IO) and through write() alike, and FBIO_WAITFORVSYNC
 * waits for exactly the updates pending at the call: a process that keeps
 * writing elsewhere does not keep it waiting.
 */
#include "epd_test.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define W 320
#define H 240

static struct epd dev;

/* Reads the panel and checks it shows the framebuffer (GC16 FULL levels). */
static void
panel_shows_fb(struct epd *d, const char *what)
{
	epd_model_apply(d, 0, 0, W, H, 16);
	CHECK_PANEL_MODEL(d, what);
}

static void
mmap_then_wait(struct epd *d)
{
	epd_phase("memset of the mapping, then FBIO_WAITFORVSYNC at once");
	epd_stats_reset(d);
	memset(d->map + 40 * W, 0x80, 40 * W);
	CHECK_RC(epd_wait_idle(d), 0);
	CHECK_GE(epd_stat(d, "updates_completed"), 1);
	panel_shows_fb(d, "after FBIO_WAITFORVSYNC");
}

static void
write_then_fsync(struct epd *d)
{
	uint8_t rows[20 * W];

	epd_phase("write(), then fsync() submits it at once");
	epd_stats_reset(d);
	memset(rows, 0x30, sizeof(rows));
	REQUIRE(pwrite(d->fd, rows, sizeof(rows), 100 * W) == (ssize_t)sizeof(rows));
	REQUIRE_OK(fsync(d->fd));
	CHECK_GE(epd_stat(d, "updates_submitted"), 1);
	CHECK_RC(epd_wait_idle(d), 0);
	panel_shows_fb(d, "after write() and fsync()");

	epd_phase("write(), then FBIO_WAITFORVSYNC at once");
	memset(rows, 0xd0, sizeof(rows));
	REQUIRE(pwrite(d->fd, rows, sizeof(rows), 150 * W) == (ssize_t)sizeof(rows));
	CHECK_RC(epd_wait_idle(d), 0);
	panel_shows_fb(d, "after write() and FBIO_WAITFORVSYNC");
}

/* A child writing one byte of the mapping every 100 ms, for at most max_ms. */
static pid_t
start_writer(struct epd *d, unsigned int max_ms)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid)
		return pid;
	for (unsigned int i = 0; i * 100 < max_ms; i++) {
		d->map[200 * W + 10] = (uint8_t)(0x20 + (i % 2) * 0x40);
		epd_sleep_ms(100);
	}
	_exit(0);
}

static void
steady_writer(struct epd *d)
{
	struct epd_trace *t;
	uint64_t call_ns, ret_ns;
	size_t n, covered = 0;
	int status, rc;
	pid_t writer;

	epd_phase("FBIO_WAITFORVSYNC while another process keeps writing");
	epd_stats_reset(d);
	epd_trace_clear(d);
	writer = start_writer(d, 15000);
	for (int i = 0; i < 100 && epd_stat(d, "in_flight") == 0; i++)
		epd_sleep_ms(20);
	REQUIRE_MSG(epd_stat(d, "in_flight") > 0, "the writer's updates do not show");
	call_ns = epd_now_ns();
	rc = epd_wait_idle(d);
	ret_ns = epd_now_ns();
	printf("FBIO_WAITFORVSYNC returned %s after %.1f ms\n", epd_errname(-rc),
		(double)(ret_ns - call_ns) / 1e6);
	CHECK_RC(rc, 0);
	if (CHECK_MSG(waitpid(writer, &status, WNOHANG) == 0,
		    "FBIO_WAITFORVSYNC returned only once the writer had stopped")) {
		kill(writer, SIGKILL);
		REQUIRE(waitpid(writer, &status, 0) == writer);
	}

	/* every update submitted before the call had ended when it returned */
	n = epd_trace_read(d, &t);
	for (size_t i = 0; i < n; i++) {
		if (t[i].submit_ns >= call_ns)
			continue;
		covered++;
		if (!CHECK_LE(t[i].end_ns, ret_ns))
			epd_trace_print(&t[i]);
	}
	CHECK_GT(covered, 0);
	free(t);
	CHECK_RC(epd_wait_idle(d), 0);
	panel_shows_fb(d, "after the writer");
}

int
main(void)
{
	struct epd *d = &dev;

	epd_begin("waits", 120);
	epd_phase("load with a long deferred IO delay");
	epd_open(d, "width=320 height=240 bpp=8 time_scale=100 auto_update=1 defio_delay_ms=1000");
	mmap_then_wait(d);
	write_then_fsync(d);
	epd_close(d);

	epd_phase("load with a short deferred IO delay");
	epd_open(d, "width=320 height=240 bpp=8 time_scale=100 auto_update=1 defio_delay_ms=50");
	steady_writer(d);
	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
