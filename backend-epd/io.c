// SPDX-License-Identifier: MIT
/*
 * Device I/O threads: one submits queued updates, a small pool waits for
 * submitted markers, each for one at a time, so that a completion is
 * reported when it happens, also before one submitted earlier (an A2
 * update beside a long GC16 one); all post results and wake the event loop
 * through an eventfd. A flush's updates are queued together (vl_epd_io_kick), so that
 * a device that takes several at once (submit_group: one atomic commit)
 * gets those that share a waveform in one call. A device whose completions
 * are descriptors (completion_fd) has no wait thread: the event loop polls
 * them, and their markers complete in the order the panel finishes them.
 * The threads sleep on condition variables while nothing is queued, so an
 * idle panel costs no wake-ups. The queues are fixed rings: the output
 * never has more updates in flight than they hold, and nothing is
 * allocated on the way. The threads hold references to the queues and the
 * device, so a backend destroyed while a driver call blocks (up to 5 s past
 * its update's due end) returns at once and the last thread out frees them.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <wlr/util/log.h>

#include "backend.h"

/*
 * Wait threads at most: the driver runs up to 16 updates at once, so each
 * of those can have a thread waiting for it. They are started as markers
 * find none idle, and sleep while nothing is in flight.
 */
#define MAX_WAITERS 16

/*
 * A driver whose queue is full (EBUSY) took nothing: the submission is
 * made again after a pause that grows from the first to the last while it
 * stays full.
 */
#define BUSY_FIRST_MS 10
#define BUSY_MAX_MS   160

/* How long a backend being destroyed waits for its last updates to be submitted. */
#define DRAIN_TIMEOUT_S 2

/* Every update of every flush record, with room to spare. */
#define RING_SIZE (VL_EPD_FLUSH_SLOTS * VL_EPD_MAX_UPDATES_PER_FLUSH * 2)

struct ring {
	size_t head, len;
};

/* What the threads tell the event loop about one update. */
struct io_report {
	struct vl_epd_io_result result;
	bool submitted; /* and its completion is for the event loop to poll */
};

/* A completion descriptor polled on the event loop. */
struct vl_epd_io_watch {
	struct vl_epd_io *io;
	uint32_t marker;
	struct wl_event_source *source; /* NULL: the slot is free */
};

struct vl_epd_io_queues {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_cond_t drained; /* the submit thread emptied its queue */
	bool submitting;        /* the submit thread runs */
	struct vl_epd_device *device;
	int eventfd;
	int refs;
	bool stop;
	unsigned int waiters, idle_waiters; /* wait threads started, and those without a marker */
	struct ring to_submit, to_wait, results;
	/* the first ready of to_submit are kicked: the thread may take them */
	size_t ready;
	uint64_t batch; /* what the updates queued until the next kick get */
	/* kinds of update the device refused and took with the safe waveform instead */
	struct vl_epd_update refused[8];
	size_t n_refused;
	struct vl_epd_update submissions[RING_SIZE];
	uint64_t batches[RING_SIZE];
	uint32_t waits[RING_SIZE];
	struct io_report done[RING_SIZE];
};

/* Index of the slot a push goes to; false when the ring is full. */
static bool
ring_push(struct ring *ring, size_t *slot)
{
	if (ring->len == RING_SIZE)
		return false;
	*slot = (ring->head + ring->len++) % RING_SIZE;
	return true;
}

static size_t
ring_pop(struct ring *ring)
{
	size_t slot = ring->head;

	ring->head = (ring->head + 1) % RING_SIZE;
	ring->len--;
	return slot;
}

/* With the lock held: what is queued may go to the device. */
static void
kick_locked(struct vl_epd_io_queues *q)
{
	if (q->ready == q->to_submit.len)
		return;
	q->ready = q->to_submit.len;
	q->batch++;
	pthread_cond_broadcast(&q->wake);
}

static void
unref_queues(struct vl_epd_io_queues *q)
{
	pthread_mutex_lock(&q->lock);
	bool last = --q->refs == 0;
	pthread_mutex_unlock(&q->lock);
	if (!last)
		return;
	close(q->eventfd);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->wake);
	pthread_cond_destroy(&q->drained);
	vl_epd_device_unref(q->device);
	free(q);
}

/* With the lock held. Each update yields one report, so the ring has room. */
static void
post_report(struct vl_epd_io_queues *q, uint32_t marker, int error, bool submitted)
{
	size_t slot;
	uint64_t one = 1;

	if (!ring_push(&q->results, &slot))
		return;
	q->done[slot] = (struct io_report){
		.result = {.marker = marker, .error = error},
		.submitted = submitted,
	};
	if (write(q->eventfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		wlr_log_errno(WLR_ERROR, "waking the event loop");
}

static bool
rects_overlap(const struct vl_epd_rect *a, const struct vl_epd_rect *b)
{
	return a->left < b->left + b->width && b->left < a->left + a->width &&
	       a->top < b->top + b->height && b->top < a->top + a->height;
}

/* Whether the device shows a and b the same way, so that one submission may take both. */
static bool
same_kind(const struct vl_epd_update *a, const struct vl_epd_update *b)
{
	return a->waveform == b->waveform && a->full == b->full && a->flags == b->flags;
}

/*
 * With the lock held, ready > 0: the next submission's updates, copied to
 * group, and moved to the head of the queue, where they stay until
 * submitted. They are the oldest update and the later ones of its flush
 * that share its kind, up to the device's group_max. An update joins only
 * if it overlaps none it would overtake, so that overlapping rects reach
 * the panel in the order they were queued, and none of the group, whose
 * rects a driver may show in any order.
 */
static size_t
take_group(struct vl_epd_io_queues *q, struct vl_epd_update *group)
{
	struct vl_epd_update others[RING_SIZE];
	const size_t head = q->to_submit.head;
	const uint32_t max = q->device->impl->submit_group ? q->device->group_max : 1;
	size_t n = 0, n_others = 0, scanned = 0;

	for (; scanned < q->ready; scanned++) {
		size_t slot = (head + scanned) % RING_SIZE;
		const struct vl_epd_update *u = &q->submissions[slot];
		if (q->batches[slot] != q->batches[head])
			break;
		bool joins = n < max && (n == 0 || same_kind(u, &group[0]));
		for (size_t i = 0; joins && i < n_others; i++)
			joins = !rects_overlap(&u->rect, &others[i].rect);
		for (size_t i = 0; joins && i < n; i++)
			joins = !rects_overlap(&u->rect, &group[i].rect);
		if (joins)
			group[n++] = *u;
		else
			others[n_others++] = *u;
	}
	for (size_t i = 0; i < scanned; i++) {
		size_t slot = (head + i) % RING_SIZE;
		q->submissions[slot] = i < n ? group[i] : others[i - n];
	}
	return n;
}

static bool
submit_group(struct vl_epd_device *device, const struct vl_epd_update *group, size_t n)
{
	if (n > 1)
		return device->impl->submit_group(device, group, n);
	return device->impl->submit(device, group);
}

/* With the lock held: whether the device refused updates of group's kind before. */
static bool
was_refused(const struct vl_epd_io_queues *q, const struct vl_epd_update *group)
{
	for (size_t i = 0; i < q->n_refused; i++)
		if (same_kind(&q->refused[i], group))
			return true;
	return false;
}

/* Makes group's updates the kind every device takes; false when they are already. */
static bool
make_safe(const struct vl_epd_device *device, struct vl_epd_update *group, size_t n)
{
	uint32_t safe = vl_epd_device_safe_waveform(device);

	if (group[0].waveform == safe && group[0].flags == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		group[i].waveform = safe;
		group[i].flags = 0;
	}
	return true;
}

/*
 * Submits group, n updates of one kind. A kind the device refuses for good
 * (say, a waveform id it does not know) is sent once more as the safe
 * waveform; when that shows, later updates of the kind go out so at once,
 * with one warning. 0, or the negative errno of the failure.
 */
static int
submit_with_fallback(struct vl_epd_io_queues *q, struct vl_epd_update *group, size_t n)
{
	struct vl_epd_device *device = q->device;
	struct vl_epd_update kind = group[0];

	pthread_mutex_lock(&q->lock);
	bool refused = was_refused(q, group);
	pthread_mutex_unlock(&q->lock);
	if (refused)
		make_safe(device, group, n);
	errno = 0;
	if (submit_group(device, group, n))
		return 0;
	int error = errno ? errno : EIO;
	if (refused || !vl_epd_error_is_permanent(error) || !make_safe(device, group, n))
		return -error;
	errno = 0;
	if (!submit_group(device, group, n))
		return -(errno ? errno : EIO);
	wlr_log(WLR_ERROR,
		"the panel refuses waveform %" PRIu32 " with flags 0x%" PRIx32
		" (%s): its updates go out as waveform %" PRIu32 " instead",
		kind.waveform, kind.flags, strerror(error), group[0].waveform);
	pthread_mutex_lock(&q->lock);
	if (q->n_refused < sizeof(q->refused) / sizeof(q->refused[0]))
		q->refused[q->n_refused++] = kind;
	pthread_mutex_unlock(&q->lock);
	return 0;
}

static void start_waiters(struct vl_epd_io_queues *q);

/* With the lock held: a pause of busy_ms, which a stop ends early. */
static void
pause_while_busy(struct vl_epd_io_queues *q, unsigned int busy_ms)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += busy_ms / 1000;
	until.tv_nsec += (long)(busy_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	while (!q->stop && pthread_cond_timedwait(&q->wake, &q->lock, &until) == 0)
		;
}

static void *
submit_thread(void *data)
{
	struct vl_epd_io_queues *q = data;
	unsigned int busy_ms = 0;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		if (q->to_submit.len == 0)
			pthread_cond_broadcast(&q->drained);
		while (!q->stop && q->ready == 0)
			pthread_cond_wait(&q->wake, &q->lock);
		if (q->stop)
			break;
		struct vl_epd_update group[RING_SIZE];
		size_t n = take_group(q, group);
		pthread_mutex_unlock(&q->lock);

		int error = submit_with_fallback(q, group, n);
		bool ok = error == 0;

		pthread_mutex_lock(&q->lock);
		if (error == -EBUSY) {
			/* not submitted yet, not failed: the group stays first in the queue */
			busy_ms = busy_ms ? (busy_ms < BUSY_MAX_MS ? busy_ms * 2 : BUSY_MAX_MS)
					  : BUSY_FIRST_MS;
			pause_while_busy(q, busy_ms);
			continue;
		}
		busy_ms = 0;
		for (size_t i = 0; i < n; i++) {
			ring_pop(&q->to_submit);
			q->ready--;
			size_t slot;
			if (ok && q->device->impl->completion_fd) {
				post_report(q, group[i].marker, 0, true);
			} else if (ok && ring_push(&q->to_wait, &slot)) {
				q->waits[slot] = group[i].marker;
				start_waiters(q);
				pthread_cond_broadcast(&q->wake);
			} else {
				post_report(q, group[i].marker, ok ? -ENOSPC : error, false);
			}
		}
	}
	q->submitting = false;
	pthread_cond_broadcast(&q->drained);
	pthread_mutex_unlock(&q->lock);
	unref_queues(q);
	return NULL;
}

/* Counted idle from its start (start_waiter), so that no more are started than needed. */
static void *
wait_thread(void *data)
{
	struct vl_epd_io_queues *q = data;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (!q->stop && q->to_wait.len == 0)
			pthread_cond_wait(&q->wake, &q->lock);
		if (q->stop)
			break;
		uint32_t marker = q->waits[ring_pop(&q->to_wait)];
		q->idle_waiters--;
		pthread_mutex_unlock(&q->lock);

		int error = q->device->impl->wait(q->device, marker);

		pthread_mutex_lock(&q->lock);
		q->idle_waiters++;
		post_report(q, marker, error, false);
	}
	pthread_mutex_unlock(&q->lock);
	unref_queues(q);
	return NULL;
}

static int
handle_completion_fd(int fd, uint32_t mask, void *data)
{
	struct vl_epd_io_watch *watch = data;
	struct vl_epd_io *io = watch->io;
	struct vl_epd_device *device = io->queues->device;
	(void)fd;
	(void)mask;

	wl_event_source_remove(watch->source);
	watch->source = NULL;
	struct vl_epd_io_result result = {
		.marker = watch->marker,
		.error = device->impl->collect_completion(device, watch->marker),
	};
	io->handler(&result, io->data);
	return 0;
}

/* A submitted update whose completion the event loop polls: false when it is known now. */
static bool
watch_completion(struct vl_epd_io *io, struct vl_epd_io_result *result)
{
	struct vl_epd_device *device = io->queues->device;
	int fd = device->impl->completion_fd(device, result->marker);

	if (fd < 0) {
		result->error = device->impl->collect_completion(device, result->marker);
		return false;
	}
	/* as many as the rings hold: an update in flight always finds a slot */
	for (size_t i = 0; i < RING_SIZE; i++) {
		struct vl_epd_io_watch *watch = &io->watches[i];
		if (watch->source)
			continue;
		watch->io = io;
		watch->marker = result->marker;
		watch->source = wl_event_loop_add_fd(
			io->loop, fd, WL_EVENT_READABLE, handle_completion_fd, watch);
		if (!watch->source)
			break;
		return true;
	}
	wlr_log(WLR_ERROR, "cannot poll the completion of panel update %" PRIu32, result->marker);
	device->impl->collect_completion(device, result->marker);
	result->error = -ENOMEM;
	return false;
}

static int
handle_eventfd(int fd, uint32_t mask, void *data)
{
	struct vl_epd_io *io = data;
	struct vl_epd_io_queues *q = io->queues;
	struct io_report reports[RING_SIZE];
	uint64_t count;
	size_t n = 0;

	if (read(fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		wlr_log_errno(WLR_ERROR, "reading the I/O eventfd");

	pthread_mutex_lock(&q->lock);
	while (q->results.len > 0)
		reports[n++] = q->done[ring_pop(&q->results)];
	pthread_mutex_unlock(&q->lock);

	/* The handler never destroys the output: it defers that to an idle source. */
	for (size_t i = 0; i < n; i++) {
		if (reports[i].submitted && watch_completion(io, &reports[i].result))
			continue;
		io->handler(&reports[i].result, io->data);
	}
	return 0;
}

/* The device went away: the handler learns it as an update that failed for good. */
static int
handle_removal(int fd, uint32_t mask, void *data)
{
	struct vl_epd_io *io = data;
	struct vl_epd_device *device = io->queues->device;
	(void)fd;
	(void)mask;

	if (!device->impl->removed(device))
		return 0;
	wl_event_source_remove(io->removal);
	io->removal = NULL;
	io->handler(&(struct vl_epd_io_result){.marker = 0, .error = -ENODEV}, io->data);
	return 0;
}

/*
 * The threads block every signal: a compositor takes SIGCHLD, SIGTERM and
 * the like through signalfd in its event loop, which sees only signals that
 * no thread accepts.
 */
static bool
start_thread(struct vl_epd_io_queues *q, void *(*func)(void *), const char *name)
{
	sigset_t all, old;
	pthread_t thread;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	q->refs++;
	int error = pthread_create(&thread, NULL, func, q);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (error != 0) {
		q->refs--;
		return false;
	}
	/* so that top -H, gdb and the tests tell them apart */
	pthread_setname_np(thread, name);
	pthread_detach(thread);
	return true;
}

/*
 * With the lock held: a wait thread for each marker no idle one will take,
 * up to MAX_WAITERS. Those that exist go on if no more can start.
 */
static void
start_waiters(struct vl_epd_io_queues *q)
{
	while (q->idle_waiters < q->to_wait.len && q->waiters < MAX_WAITERS) {
		if (!start_thread(q, wait_thread, "epd-wait")) {
			wlr_log(WLR_ERROR, "cannot start another panel wait thread");
			return;
		}
		q->waiters++;
		q->idle_waiters++;
	}
}

bool
vl_epd_io_init(struct vl_epd_io *io, struct vl_epd_device *device, struct wl_event_loop *loop,
	void (*handler)(const struct vl_epd_io_result *result, void *data), void *data)
{
	struct vl_epd_io_queues *q;
	char error[PATH_MAX + 256];

	*io = (struct vl_epd_io){.loop = loop, .handler = handler, .data = data};
	/* a device may have been changed since it was opened */
	if (!vl_epd_device_check(device, error, sizeof(error))) {
		wlr_log(WLR_ERROR, "%s", error);
		return false;
	}
	q = calloc(1, sizeof(*q));
	if (!q)
		return false;
	if (device->impl->completion_fd) {
		io->watches = calloc(RING_SIZE, sizeof(*io->watches));
		if (!io->watches) {
			free(q);
			return false;
		}
	}
	q->eventfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (q->eventfd < 0) {
		wlr_log_errno(WLR_ERROR, "eventfd");
		free(io->watches);
		io->watches = NULL;
		free(q);
		return false;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->wake, NULL);
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&q->drained, &attr);
	pthread_condattr_destroy(&attr);
	q->device = vl_epd_device_ref(device);
	q->refs = 1;
	io->queues = q;
	io->source = wl_event_loop_add_fd(loop, q->eventfd, WL_EVENT_READABLE, handle_eventfd, io);
	pthread_mutex_lock(&q->lock);
	bool started = io->source && start_thread(q, submit_thread, "epd-submit");
	q->submitting = started;
	/* one waiter from the start, more when markers find it busy */
	if (!device->impl->completion_fd) {
		started = started && start_thread(q, wait_thread, "epd-wait");
		q->waiters = q->idle_waiters = started;
	}
	pthread_mutex_unlock(&q->lock);
	if (!started) {
		wlr_log(WLR_ERROR, "cannot start the device I/O threads");
		vl_epd_io_finish(io);
		return false;
	}
	int removal_fd = device->impl->removal_fd ? device->impl->removal_fd(device) : -1;
	if (removal_fd >= 0)
		io->removal = wl_event_loop_add_fd(
			loop, removal_fd, WL_EVENT_READABLE, handle_removal, io);
	return true;
}

void
vl_epd_io_finish(struct vl_epd_io *io)
{
	struct vl_epd_io_queues *q = io->queues;
	struct timespec deadline;

	if (!q)
		return;
	if (io->source)
		wl_event_source_remove(io->source);
	if (io->removal)
		wl_event_source_remove(io->removal);
	/* the device closes the descriptors, with the queues' last reference to it */
	for (size_t i = 0; io->watches && i < RING_SIZE; i++) {
		if (io->watches[i].source)
			wl_event_source_remove(io->watches[i].source);
	}
	free(io->watches);
	io->watches = NULL;
	/*
	 * What is queued still goes to the panel, so that it ends showing the
	 * last frame; a driver that blocks submissions gets a bounded time.
	 */
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += DRAIN_TIMEOUT_S;
	pthread_mutex_lock(&q->lock);
	kick_locked(q);
	while (q->to_submit.len > 0 && q->submitting &&
		pthread_cond_timedwait(&q->drained, &q->lock, &deadline) == 0)
		;
	q->stop = true;
	pthread_cond_broadcast(&q->wake);
	pthread_mutex_unlock(&q->lock);
	if (q->device->impl->cancel)
		q->device->impl->cancel(q->device);
	io->queues = NULL;
	io->source = NULL;
	io->removal = NULL;
	unref_queues(q);
}

bool
vl_epd_io_submit(struct vl_epd_io *io, const struct vl_epd_update *update)
{
	struct vl_epd_io_queues *q = io->queues;
	size_t slot;

	pthread_mutex_lock(&q->lock);
	bool ok = ring_push(&q->to_submit, &slot);
	if (ok) {
		q->submissions[slot] = *update;
		q->batches[slot] = q->batch;
	}
	pthread_mutex_unlock(&q->lock);
	return ok;
}

void
vl_epd_io_kick(struct vl_epd_io *io)
{
	struct vl_epd_io_queues *q = io->queues;

	pthread_mutex_lock(&q->lock);
	kick_locked(q);
	pthread_mutex_unlock(&q->lock);
}
