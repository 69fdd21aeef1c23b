/*
 * Update completion: a thread blocks in the device's wait for each submitted
 * marker and wakes the event loop through an eventfd. It sleeps on a
 * condition variable while nothing is in flight, so an idle panel costs no
 * wake-ups.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <wlr/util/log.h>

#include "backend.h"

static bool
push_marker(uint32_t **array, size_t *len, size_t *capacity, uint32_t marker)
{
	if (*len == *capacity) {
		size_t grown_capacity = *capacity ? *capacity * 2 : 16;
		uint32_t *grown = realloc(*array, grown_capacity * sizeof(*grown));
		if (!grown)
			return false;
		*array = grown;
		*capacity = grown_capacity;
	}
	(*array)[(*len)++] = marker;
	return true;
}

static void *
completion_thread(void *data)
{
	struct vl_epd_completion *completion = data;

	pthread_mutex_lock(&completion->lock);
	for (;;) {
		while (!completion->stop && completion->n_waiting == 0)
			pthread_cond_wait(&completion->wake, &completion->lock);
		if (completion->stop)
			break;
		uint32_t marker = completion->waiting[0];
		pthread_mutex_unlock(&completion->lock);

		int ret = completion->device->impl->wait(completion->device, marker);
		if (ret < 0)
			wlr_log(WLR_ERROR, "waiting for update %u: %s", marker, strerror(-ret));

		pthread_mutex_lock(&completion->lock);
		completion->n_waiting--;
		memmove(completion->waiting, completion->waiting + 1,
			completion->n_waiting * sizeof(uint32_t));
		/* A marker that cannot be recorded still wakes the loop, which then finds less. */
		push_marker(
			&completion->done, &completion->n_done, &completion->done_capacity, marker);
		uint64_t one = 1;
		if (write(completion->eventfd, &one, sizeof(one)) < 0)
			wlr_log_errno(WLR_ERROR, "waking the event loop");
	}
	pthread_mutex_unlock(&completion->lock);
	return NULL;
}

static int
handle_eventfd(int fd, uint32_t mask, void *data)
{
	struct vl_epd_completion *completion = data;
	uint64_t count;

	if (read(fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		wlr_log_errno(WLR_ERROR, "reading the completion eventfd");

	pthread_mutex_lock(&completion->lock);
	size_t n = completion->n_done;
	uint32_t *done = completion->done;
	completion->done = NULL;
	completion->n_done = completion->done_capacity = 0;
	pthread_mutex_unlock(&completion->lock);

	for (size_t i = 0; i < n; i++)
		completion->handler(done[i], completion->data);
	free(done);
	return 0;
}

bool
vl_epd_completion_init(struct vl_epd_completion *completion, struct vl_epd_device *device,
	struct wl_event_loop *loop, void (*handler)(uint32_t marker, void *data), void *data)
{
	*completion = (struct vl_epd_completion){
		.device = device,
		.handler = handler,
		.data = data,
	};
	completion->eventfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (completion->eventfd < 0) {
		wlr_log_errno(WLR_ERROR, "eventfd");
		return false;
	}
	completion->source = wl_event_loop_add_fd(
		loop, completion->eventfd, WL_EVENT_READABLE, handle_eventfd, completion);
	pthread_mutex_init(&completion->lock, NULL);
	pthread_cond_init(&completion->wake, NULL);
	if (!completion->source ||
		pthread_create(&completion->thread, NULL, completion_thread, completion) != 0) {
		wlr_log(WLR_ERROR, "cannot start the completion thread");
		if (completion->source)
			wl_event_source_remove(completion->source);
		close(completion->eventfd);
		return false;
	}
	return true;
}

void
vl_epd_completion_finish(struct vl_epd_completion *completion)
{
	pthread_mutex_lock(&completion->lock);
	completion->stop = true;
	pthread_cond_signal(&completion->wake);
	pthread_mutex_unlock(&completion->lock);
	/* A wait in progress ends within the device's timeout. */
	pthread_join(completion->thread, NULL);
	wl_event_source_remove(completion->source);
	close(completion->eventfd);
	pthread_mutex_destroy(&completion->lock);
	pthread_cond_destroy(&completion->wake);
	free(completion->waiting);
	free(completion->done);
}

bool
vl_epd_completion_add(struct vl_epd_completion *completion, uint32_t marker)
{
	pthread_mutex_lock(&completion->lock);
	bool ok = push_marker(&completion->waiting, &completion->n_waiting,
		&completion->waiting_capacity, marker);
	pthread_cond_signal(&completion->wake);
	pthread_mutex_unlock(&completion->lock);
	return ok;
}
