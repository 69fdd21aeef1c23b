// SPDX-License-Identifier: MIT
/*
 * A completion wakes only the waiters of what completed.
 *
 * Many threads wait on the marker of a long update while another client
 * makes round trips (an A2 update, then a wait on its marker) elsewhere on
 * the panel. Each of its completions must leave the sleeping threads asleep:
 * their count of voluntary context switches, read from /proc, does not grow
 * during the round trips. Woken for every completion, each thread would
 * switch once per round trip, and thousands of them, each taking the
 * driver's lock to look, slow the other client down. When the long update
 * completes, every thread gets its result.
 */
#include "epd_test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define W 320
#define H 240

#define WAITERS     100
#define ROUND_TRIPS 12
#define M_LONG      1
#define M_TRIP      2

static struct epd dev;

struct waiter {
	pthread_t thread;
	int tid;
	uint32_t collision;
	int rc;
	bool returned;
};

static struct waiter waiters[WAITERS];
/* held until the main thread has read every waiter's counters */
static pthread_mutex_t release_lock = PTHREAD_MUTEX_INITIALIZER;

static void *
waiter_main(void *arg)
{
	struct waiter *w = arg;

	__atomic_store_n(&w->tid, epd_gettid(), __ATOMIC_SEQ_CST);
	/* a thread that starts late may wait its 5 s out first: it asks again */
	do
		w->rc = epd_wait(&dev, M_LONG, &w->collision);
	while (w->rc == -ETIMEDOUT);
	__atomic_store_n(&w->returned, true, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&release_lock);
	pthread_mutex_unlock(&release_lock);
	return NULL;
}

static long long
voluntary_switches(int tid)
{
	char path[64], *text, *line;
	long long n = -1;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	text = epd_read_file(path, NULL);
	REQUIRE_MSG(text, "cannot read %s", path);
	line = strstr(text, "\nvoluntary_ctxt_switches:");
	if (line)
		n = strtoll(line + strlen("\nvoluntary_ctxt_switches:"), NULL, 10);
	free(text);
	REQUIRE_MSG(n >= 0, "no voluntary_ctxt_switches in %s", path);
	return n;
}

static long long
all_switches(void)
{
	long long sum = 0;

	for (int i = 0; i < WAITERS; i++)
		sum += voluntary_switches(waiters[i].tid);
	return sum;
}

int
main(void)
{
	struct epd *d = &dev;
	long long before, after;
	const struct epd_trace *lng;
	struct epd_trace *t;
	uint64_t sampled_ns, sent_ns;
	pthread_attr_t attr;
	size_t n;
	int trips = 0, wrong = 0;

	epd_begin("waiter_wakeups", 180);
	epd_phase("load");
	epd_open(d, "width=320 height=240 bpp=8 time_scale=100 auto_update=0");

	epd_phase("%d threads wait on the marker of a long update", WAITERS);
	epd_trace_clear(d);
	/* INIT at 5 degrees C: 5 s */
	pthread_mutex_lock(&release_lock);
	REQUIRE_RC(
		epd_update(d, 0, 0, 100, 100, WAVEFORM_MODE_INIT, UPDATE_MODE_FULL, M_LONG, 5, 0),
		0);
	sent_ns = epd_now_ns();
	REQUIRE(pthread_attr_init(&attr) == 0);
	/* small stacks, but no smaller than the C library allows: 128 KiB on arm64 */
	long stack_min = sysconf(_SC_THREAD_STACK_MIN);
	size_t stack = stack_min > 64 * 1024 ? (size_t)stack_min : 64 * 1024;
	REQUIRE(pthread_attr_setstacksize(&attr, stack) == 0);
	for (int i = 0; i < WAITERS; i++)
		REQUIRE(pthread_create(&waiters[i].thread, &attr, waiter_main, &waiters[i]) == 0);
	for (int i = 0; i < WAITERS; i++) {
		struct waiter *w = &waiters[i];

		while (!__atomic_load_n(&w->tid, __ATOMIC_SEQ_CST))
			epd_sleep_ms(1);
		REQUIRE_MSG(epd_thread_in_ioctl(w->tid, 5000),
			"waiter %d is not in the wait %.1f ms after the long update was sent (%s)",
			i, epd_ms_since(sent_ns),
			__atomic_load_n(&w->returned, __ATOMIC_SEQ_CST) ? epd_errname(-w->rc)
									: "not returned");
	}
	/* let those still taking a lock on their way in go to sleep */
	epd_sleep_ms(100);
	printf("the threads waited %.1f ms after the long update was sent\n",
		epd_ms_since(sent_ns));

	epd_phase("another client's round trips while they wait");
	before = all_switches();
	for (; trips < ROUND_TRIPS && epd_ms_since(sent_ns) < 4000; trips++) {
		REQUIRE_RC(epd_update(d, 200, 0, 50, 50, WAVEFORM_MODE_A2, UPDATE_MODE_PARTIAL,
				   M_TRIP, 25, 0),
			0);
		REQUIRE_RC(epd_wait(d, M_TRIP, NULL), 0);
	}
	after = all_switches();
	sampled_ns = epd_now_ns();
	printf("%d round trips: the %d waiting threads switched %lld times\n", trips, WAITERS,
		after - before);

	epd_phase("the long update completes");
	pthread_mutex_unlock(&release_lock);
	for (int i = 0; i < WAITERS; i++) {
		REQUIRE(pthread_join(waiters[i].thread, NULL) == 0);
		if (waiters[i].rc || waiters[i].collision != 0)
			wrong++;
	}
	CHECK_MSG(wrong == 0, "%d of %d waiters got an error or a collision (first: %s)", wrong,
		WAITERS, epd_errname(-waiters[0].rc));
	n = epd_trace_read(d, &t);
	lng = epd_trace_find(t, n, M_LONG);
	REQUIRE_MSG(lng, "the long update is missing from the trace");
	REQUIRE_MSG(sampled_ns < lng->end_ns,
		"the round trips outlasted the long update: no conclusion");
	free(t);
	CHECK_GE(trips, 3);
	/*
	 * Asleep until their own marker completes. Woken by every completion,
	 * each thread would switch about once per round trip.
	 */
	CHECK_MSG(after - before < WAITERS * trips / 3,
		"%d completions woke the %d threads waiting for another marker %lld times", trips,
		WAITERS, after - before);

	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
