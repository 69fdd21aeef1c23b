// SPDX-License-Identifier: MIT
/*
 * The wait_holds_lock module parameter: with 1, MXCFB_WAIT_FOR_UPDATE_COMPLETE
 * keeps the fbdev lock held as mxc_epdc_fb does, so a SEND_UPDATE from
 * another thread is submitted only once the wait returned; with the default
 * 0 the wait drops it and the send goes through while the wait is blocked.
 * Either way only the driver's own ioctls wait: the fbdev core's ones, such
 * as FBIOPUT_VSCREENINFO, which takes console_lock before the fbdev lock,
 * return while the wait is blocked, so the text consoles never stall on it.
 */
#include "epd_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#define LONG_MARKER 1
#define SEND_MARKER 2

static struct epd dev;

struct waiter {
	struct epd *d;
	atomic_int tid;
	atomic_bool returned;
	int rc;
};

static void *
waiter_main(void *arg)
{
	struct waiter *w = arg;

	atomic_store(&w->tid, epd_gettid());
	w->rc = epd_wait(w->d, LONG_MARKER, NULL);
	atomic_store(&w->returned, true);
	return NULL;
}

static const struct epd_trace *
find_marker(const struct epd_trace *t, size_t n, uint32_t marker)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].marker == marker)
			return &t[i];
	return NULL;
}

/*
 * A 2 s INIT update is waited for by a thread; once that thread sleeps in the
 * ioctl, the main thread sends a disjoint DU update. Returns whether the send
 * was submitted only after the waited-for update had completed (from the
 * trace: the waiting thread's own flag may be set a moment after the ioctl
 * released the lock).
 */
static bool
send_during_wait(struct epd *d, const char *params)
{
	struct waiter w = {.d = d};
	const struct epd_trace *waited, *sent;
	struct epd_trace *t;
	pthread_t thread;
	bool send_waited;
	size_t n;

	epd_open(d, params);
	REQUIRE_RC(epd_update(d, 0, 0, 100, 100, WAVEFORM_MODE_INIT, UPDATE_MODE_FULL, LONG_MARKER,
			   TEMP_USE_AMBIENT, 0),
		0);
	REQUIRE(pthread_create(&thread, NULL, waiter_main, &w) == 0);
	while (!atomic_load(&w.tid))
		epd_sleep_ms(1);
	REQUIRE_MSG(epd_thread_in_ioctl(atomic_load(&w.tid), 1500),
		"the waiting thread is not blocked in MXCFB_WAIT_FOR_UPDATE_COMPLETE");
	CHECK_RC(epd_update(d, 200, 0, 50, 50, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, SEND_MARKER,
			 TEMP_USE_AMBIENT, 0),
		0);
	pthread_join(thread, NULL);
	CHECK_RC(w.rc, 0);
	CHECK_RC(epd_wait(d, SEND_MARKER, NULL), 0);

	n = epd_trace_read(d, &t);
	waited = find_marker(t, n, LONG_MARKER);
	sent = find_marker(t, n, SEND_MARKER);
	REQUIRE(waited && sent);
	epd_trace_print(waited);
	epd_trace_print(sent);
	send_waited = sent->submit_ns >= waited->end_ns;
	free(t);
	epd_close(d);
	return send_waited;
}

/* CLOCK_MONOTONIC, the clock of the driver's trace (ktime_get_ns). */
static uint64_t
monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * While a thread waits for a long INIT update, the main thread reads and
 * sets the screen info (the same mode again). Both must return while the
 * update is still being driven: before its end in the driver's trace and
 * before the waiting thread came back, whatever wait_holds_lock says.
 */
static void
screeninfo_during_wait(struct epd *d, const char *params)
{
	struct waiter w = {.d = d};
	struct fb_var_screeninfo var;
	const struct epd_trace *waited;
	uint64_t get_done_ns, put_done_ns;
	bool waiter_back_get, waiter_back_put;
	struct epd_trace *t;
	pthread_t thread;
	size_t n;

	epd_open(d, params);
	REQUIRE_OK(ioctl(d->fd, FBIOGET_VSCREENINFO, &var));
	REQUIRE_RC(epd_update(d, 0, 0, 100, 100, WAVEFORM_MODE_INIT, UPDATE_MODE_FULL, LONG_MARKER,
			   TEMP_USE_AMBIENT, 0),
		0);
	REQUIRE(pthread_create(&thread, NULL, waiter_main, &w) == 0);
	while (!atomic_load(&w.tid))
		epd_sleep_ms(1);
	REQUIRE_MSG(epd_thread_in_ioctl(atomic_load(&w.tid), 1500),
		"the waiting thread is not blocked in MXCFB_WAIT_FOR_UPDATE_COMPLETE");

	CHECK_OK(ioctl(d->fd, FBIOGET_VSCREENINFO, &var));
	get_done_ns = monotonic_ns();
	waiter_back_get = atomic_load(&w.returned);
	var.activate = FB_ACTIVATE_NOW;
	CHECK_OK(ioctl(d->fd, FBIOPUT_VSCREENINFO, &var));
	put_done_ns = monotonic_ns();
	waiter_back_put = atomic_load(&w.returned);

	pthread_join(thread, NULL);
	CHECK_RC(w.rc, 0);
	n = epd_trace_read(d, &t);
	waited = find_marker(t, n, LONG_MARKER);
	REQUIRE(waited);
	epd_trace_print(waited);
	printf("FBIOGET_VSCREENINFO returned at %llu, FBIOPUT_VSCREENINFO at %llu\n",
		(unsigned long long)get_done_ns, (unsigned long long)put_done_ns);
	CHECK_MSG(!waiter_back_get && get_done_ns < waited->end_ns,
		"FBIOGET_VSCREENINFO waited for another thread's MXCFB_WAIT_FOR_UPDATE_COMPLETE");
	CHECK_MSG(!waiter_back_put && put_done_ns < waited->end_ns,
		"FBIOPUT_VSCREENINFO waited for another thread's MXCFB_WAIT_FOR_UPDATE_COMPLETE");
	free(t);
	epd_close(d);
}

static void
parameter_is(const char *expected)
{
	char *value = epd_read_file("/sys/module/epdfb/parameters/wait_holds_lock", NULL);

	REQUIRE_MSG(value, "no wait_holds_lock parameter");
	CHECK_MSG(
		value[0] == expected[0], "wait_holds_lock reads %s, expected %s", value, expected);
	free(value);
}

int
main(void)
{
	struct epd *d = &dev;

	epd_begin("wait_lock", 120);

	epd_phase("default: the wait drops the fbdev lock");
	CHECK_MSG(!send_during_wait(d, "width=320 height=240 bpp=8 time_scale=100 auto_update=0"),
		"SEND_UPDATE waited for another thread's MXCFB_WAIT_FOR_UPDATE_COMPLETE");
	parameter_is("N");

	epd_phase("wait_holds_lock=1: the wait keeps it, as mxc_epdc_fb");
	CHECK_MSG(send_during_wait(d, "width=320 height=240 bpp=8 time_scale=100 auto_update=0 "
				      "wait_holds_lock=1"),
		"SEND_UPDATE went through during another thread's wait");
	parameter_is("Y");

	/* INIT takes 4 s at time_scale=200, within the wait's 5 s timeout. */
	epd_phase("wait_holds_lock=1: the fbdev core's ioctls do not wait");
	screeninfo_during_wait(d, "width=320 height=240 bpp=8 time_scale=200 auto_update=0 "
				  "wait_holds_lock=1");

	epd_phase("default: the fbdev core's ioctls do not wait");
	screeninfo_during_wait(d, "width=320 height=240 bpp=8 time_scale=200 auto_update=0");

	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
