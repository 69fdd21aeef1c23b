// SPDX-License-Identifier: MIT
/*
 * A marker wait gives its update the time the update is due to take, plus
 * 5 s: the wait follows time_scale, the temperature, and the updates queued
 * ahead of it, and gives up 5 s after the update's due end.
 *
 * At time_scale 300 an INIT lasts 6 s: its wait, and that of a DU queued
 * behind it (due 6.8 s after the call), return 0 when their updates end. A
 * DU that hangs is due to end after 780 ms: its wait gives up with ETIMEDOUT
 * 5 s after that, not 5 s after the call. At time_scale 120 an INIT whose
 * temperature cannot be read is timed for 0 degrees C, 6 s: its wait gets
 * the ENODATA the update ends with.
 */
#include "epd_test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 320
#define H 240
/* the slack a wait gives its update past its due end */
#define SLACK_MS 5000
/* jiffy-based deadlines may end up to one jiffy (<= 10 ms) early */
#define JIFFY_MS 10

enum { M_INIT = 1, M_BEHIND, M_HUNG, M_COLD };

static struct epd dev;

struct waiter {
	pthread_t thread;
	int tid;
	uint32_t marker;
	int rc;
	uint64_t ret_ns;
};

static void *
waiter_main(void *arg)
{
	struct waiter *w = arg;

	__atomic_store_n(&w->tid, epd_gettid(), __ATOMIC_SEQ_CST);
	w->rc = epd_wait(&dev, w->marker, NULL);
	w->ret_ns = epd_now_ns();
	return NULL;
}

/* Starts a marker wait in a thread and returns once the thread is blocked in it. */
static void
start_waiter(struct waiter *w, uint32_t marker)
{
	memset(w, 0, sizeof(*w));
	w->marker = marker;
	REQUIRE(pthread_create(&w->thread, NULL, waiter_main, w) == 0);
	while (!__atomic_load_n(&w->tid, __ATOMIC_SEQ_CST))
		epd_sleep_ms(1);
	REQUIRE_MSG(
		epd_thread_in_ioctl(w->tid, 5000), "the wait for marker %u did not block", marker);
}

static void
slow_init_and_one_behind(struct epd *d)
{
	struct waiter behind;
	struct epd_trace *t;
	uint64_t t0, t_init;
	size_t n;

	epd_phase("INIT at time_scale 300 (6 s), a DU queued behind it");
	epd_clear(d);
	epd_trace_clear(d);
	epd_fill(d, 0, 0, W, H, 0x00);
	t0 = epd_now_ns();
	REQUIRE_RC(epd_update(d, 0, 0, W, H, WAVEFORM_MODE_INIT, UPDATE_MODE_FULL, M_INIT,
			   TEMP_USE_AMBIENT, 0),
		0);
	REQUIRE_RC(epd_update(d, 10, 10, 40, 40, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, M_BEHIND,
			   TEMP_USE_AMBIENT, 0),
		0);
	start_waiter(&behind, M_BEHIND);
	CHECK_RC(epd_wait(d, M_INIT, NULL), 0);
	t_init = epd_now_ns();
	REQUIRE(pthread_join(behind.thread, NULL) == 0);
	printf("the INIT's wait returned after %.1f ms, the DU's after %.1f ms\n",
		(double)(t_init - t0) / 1e6, (double)(behind.ret_ns - t0) / 1e6);
	CHECK_RC(behind.rc, 0);

	/* waits that gave up early leave the updates to finish first */
	for (int i = 0; i < 4 && epd_wait_idle(d) == -ETIMEDOUT; i++)
		;
	n = epd_trace_read(d, &t);
	struct epd_trace *init = epd_trace_find(t, n, M_INIT);
	struct epd_trace *du = epd_trace_find(t, n, M_BEHIND);
	REQUIRE_MSG(init && du, "the INIT or the DU is missing from the trace");
	CHECK_TRACE_DURATION(init, epd_duration_ms(WAVEFORM_MODE_INIT, 25, 300), "INIT");
	CHECK_MSG(du->start_ns >= init->end_ns, "the DU did not wait for the INIT");
	CHECK_MSG(t_init >= init->end_ns, "the INIT's wait returned before it ended");
	CHECK_MSG(behind.ret_ns >= du->end_ns, "the DU's wait returned before it ended");
	free(t);
}

static void
hung_update(struct epd *d)
{
	uint32_t due_ms = epd_duration_ms(WAVEFORM_MODE_DU, 25, 300);
	uint64_t t0;
	double ms;

	epd_phase("a DU that hangs: its wait gives up 5 s after its due end");
	epd_stats_reset(d);
	epd_inject(d, "inject_update_hangs", 1);
	epd_fill(d, 100, 100, 40, 40, 0x00);
	t0 = epd_now_ns();
	REQUIRE_RC(epd_update(d, 100, 100, 40, 40, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, M_HUNG,
			   TEMP_USE_AMBIENT, 0),
		0);
	CHECK_RC(epd_wait(d, M_HUNG, NULL), -ETIMEDOUT);
	ms = epd_ms_since(t0);
	printf("the wait gave up after %.1f ms; the DU was due after %u ms\n", ms, due_ms);
	CHECK_MSG(ms >= due_ms + SLACK_MS - JIFFY_MS,
		"the wait gave up %.1f ms after the call, before 5 s past the update's due end "
		"(%u ms)",
		ms, due_ms + SLACK_MS);

	/* once abandoned, the hung update's ETIMEDOUT is its marker's result */
	for (int i = 0; i < 500 && epd_stat(d, "update_timeouts") < 1; i++)
		epd_sleep_ms(20);
	CHECK_EQ(epd_stat(d, "update_timeouts"), 1);
	CHECK_RC(epd_wait(d, M_HUNG, NULL), -ETIMEDOUT);
}

static void
cold_init(struct epd *d)
{
	struct epd_trace *t;
	uint64_t t0;
	size_t n;

	epd_phase("INIT without a temperature reading at time_scale 120 (6 s): ENODATA");
	epd_trace_clear(d);
	epd_stats_reset(d);
	epd_inject(d, "inject_temperature_errors", 1);
	t0 = epd_now_ns();
	REQUIRE_RC(epd_update(d, 0, 0, W, H, WAVEFORM_MODE_INIT, UPDATE_MODE_FULL, M_COLD,
			   TEMP_USE_AMBIENT, 0),
		0);
	CHECK_RC(epd_wait(d, M_COLD, NULL), -ENODATA);
	printf("the wait returned after %.1f ms\n", epd_ms_since(t0));
	for (int i = 0; i < 4 && epd_wait_idle(d) == -ETIMEDOUT; i++)
		;
	CHECK_EQ(epd_stat(d, "temperature_errors"), 1);
	n = epd_trace_read(d, &t);
	struct epd_trace *init = epd_trace_find(t, n, M_COLD);
	REQUIRE_MSG(init, "the INIT is missing from the trace");
	CHECK_TRACE_DURATION(init, epd_duration_ms(WAVEFORM_MODE_INIT, 0, 120), "INIT at 0 C");
	free(t);
	epd_fill(d, 0, 0, W, H, 0xff);
	epd_model_apply(d, 0, 0, W, H, 16);
	CHECK_PANEL_MODEL(d, "panel after the INIT");
}

int
main(void)
{
	struct epd *d = &dev;

	epd_begin("wait_timeout", 180);
	epd_phase("load with time_scale=300");
	epd_open(d, "width=320 height=240 bpp=8 time_scale=300 auto_update=0");
	slow_init_and_one_behind(d);
	hung_update(d);
	epd_close(d);

	epd_phase("load with time_scale=120");
	epd_open(d, "width=320 height=240 bpp=8 time_scale=120 auto_update=0");
	cold_init(d);
	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
