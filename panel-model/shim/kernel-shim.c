// SPDX-License-Identifier: MIT
/*
 * The kernel services of kernel-shim.h that need code: the clock,
 * scnprintf, completions and workqueues. A workqueue is one thread that runs its
 * delayed works in the order they fall due; it blocks every signal, as
 * the compositor's own threads do, so that signals reach its event loop.
 */
#include <signal.h>
#include <stdarg.h>
#include <time.h>

#include "kernel-shim.h"

struct workqueue_struct {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* work armed or cancelled, or the queue ends */
	pthread_cond_t idle; /* a run ended */
	pthread_t thread;
	struct delayed_work *works;
	bool stop;
};

u64
ktime_get_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (u64)now.tv_sec * 1000000000ULL + (u64)now.tv_nsec;
}

int
scnprintf(char *buf, size_t size, const char *format, ...)
{
	va_list args;

	if (size == 0)
		return 0;
	va_start(args, format);
	int n = vsnprintf(buf, size, format, args);
	va_end(args);
	if (n < 0) {
		buf[0] = '\0';
		return 0;
	}
	return (size_t)n < size ? n : (int)(size - 1);
}

static struct timespec
monotonic_at(u64 ns)
{
	return (struct timespec){
		.tv_sec = (time_t)(ns / 1000000000ULL), .tv_nsec = (long)(ns % 1000000000ULL)};
}

static void
init_monotonic_cond(pthread_cond_t *cond)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(cond, &attr);
	pthread_condattr_destroy(&attr);
}

void
init_completion(struct completion *c)
{
	pthread_mutex_init(&c->lock, NULL);
	init_monotonic_cond(&c->wake);
	c->done = false;
}

void
complete(struct completion *c)
{
	pthread_mutex_lock(&c->lock);
	c->done = true;
	pthread_cond_broadcast(&c->wake);
	pthread_mutex_unlock(&c->lock);
}

long
wait_for_completion_interruptible_timeout(struct completion *c, unsigned long timeout)
{
	u64 deadline = ktime_get_ns() + (u64)timeout * NSEC_PER_MSEC;
	struct timespec at = monotonic_at(deadline);
	long left = 0;

	pthread_mutex_lock(&c->lock);
	while (!c->done && pthread_cond_timedwait(&c->wake, &c->lock, &at) != ETIMEDOUT)
		;
	if (c->done) {
		u64 now = ktime_get_ns();
		left = now < deadline ? (long)((deadline - now) / NSEC_PER_MSEC) : 0;
		left = left > 0 ? left : 1;
	}
	pthread_mutex_unlock(&c->lock);
	/*
	 * Not destroyed: the waiter may wait again, then drops it with its
	 * stack, and Linux's mutexes and condition variables own nothing.
	 */
	return left;
}

/* With the lock held: the pending work due first, or NULL. */
static struct delayed_work *
first_due(struct workqueue_struct *wq)
{
	struct delayed_work *first = NULL;

	for (struct delayed_work *dw = wq->works; dw; dw = dw->next) {
		if (dw->pending && (!first || dw->due_ns < first->due_ns))
			first = dw;
	}
	return first;
}

static void *
worker(void *data)
{
	struct workqueue_struct *wq = data;

	pthread_mutex_lock(&wq->lock);
	while (!wq->stop) {
		struct delayed_work *dw = first_due(wq);
		if (!dw) {
			pthread_cond_wait(&wq->wake, &wq->lock);
			continue;
		}
		if (dw->due_ns > ktime_get_ns()) {
			struct timespec at = monotonic_at(dw->due_ns);
			pthread_cond_timedwait(&wq->wake, &wq->lock, &at);
			continue;
		}
		dw->pending = false;
		dw->running = true;
		pthread_mutex_unlock(&wq->lock);
		dw->work.func(&dw->work);
		pthread_mutex_lock(&wq->lock);
		dw->running = false;
		pthread_cond_broadcast(&wq->idle);
	}
	pthread_mutex_unlock(&wq->lock);
	return NULL;
}

struct workqueue_struct *
alloc_workqueue(const char *name, unsigned int flags, int max_active)
{
	struct workqueue_struct *wq = calloc(1, sizeof(*wq));
	sigset_t all, old;
	(void)flags;
	(void)max_active;

	if (!wq)
		return NULL;
	pthread_mutex_init(&wq->lock, NULL);
	init_monotonic_cond(&wq->wake);
	pthread_cond_init(&wq->idle, NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int error = pthread_create(&wq->thread, NULL, worker, wq);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (error) {
		pthread_cond_destroy(&wq->idle);
		pthread_cond_destroy(&wq->wake);
		pthread_mutex_destroy(&wq->lock);
		free(wq);
		return NULL;
	}
	pthread_setname_np(wq->thread, name);
	return wq;
}

void
destroy_workqueue(struct workqueue_struct *wq)
{
	pthread_mutex_lock(&wq->lock);
	wq->stop = true;
	pthread_cond_broadcast(&wq->wake);
	pthread_mutex_unlock(&wq->lock);
	pthread_join(wq->thread, NULL);
	pthread_cond_destroy(&wq->idle);
	pthread_cond_destroy(&wq->wake);
	pthread_mutex_destroy(&wq->lock);
	free(wq);
}

bool
mod_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw, unsigned long delay)
{
	pthread_mutex_lock(&wq->lock);
	if (!dw->wq) {
		dw->wq = wq;
		dw->next = wq->works;
		wq->works = dw;
	}
	bool was_pending = dw->pending;
	dw->due_ns = ktime_get_ns() + (u64)delay * NSEC_PER_MSEC;
	dw->pending = true;
	pthread_cond_broadcast(&wq->wake);
	pthread_mutex_unlock(&wq->lock);
	return was_pending;
}

static bool
cancel(struct delayed_work *dw, bool sync)
{
	struct workqueue_struct *wq = dw->wq;

	if (!wq)
		return false;
	pthread_mutex_lock(&wq->lock);
	bool was_pending = dw->pending;
	dw->pending = false;
	while (sync && dw->running)
		pthread_cond_wait(&wq->idle, &wq->lock);
	pthread_cond_broadcast(&wq->wake);
	pthread_mutex_unlock(&wq->lock);
	return was_pending;
}

bool
cancel_delayed_work(struct delayed_work *dw)
{
	return cancel(dw, false);
}

bool
cancel_delayed_work_sync(struct delayed_work *dw)
{
	return cancel(dw, true);
}
