// SPDX-License-Identifier: MIT
/*
 * An in-process panel for tests without a kernel: 8-bit gray pixels, the
 * epdfb waveform table, a record of the updates submitted lately, what the panel
 * shows, and failures on demand. For tests of a whole compositor, which run
 * in another process, $VELLUM_MEMORY_TRACE names a file that gets a line per
 * update, and $VELLUM_MEMORY_PANEL one the panel is written to (PGM) when
 * the backend releases the device.
 */
#include <epdfb.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device.h"

struct memory_device {
	struct vl_epd_device base;
	/* The I/O threads and the tests share everything below. */
	pthread_mutex_t lock;
	pthread_cond_t wake; /* a cancel, or a hold released */
	struct vl_epd_update *updates;
	struct timespec *submitted;
	uint32_t *calls; /* the submission call that brought each update */
	size_t n_updates, capacity;
	uint32_t n_calls;
	uint8_t *panel;
	unsigned int latency_ms;
	/* latencies of particular waveforms, instead of latency_ms */
	struct {
		uint32_t waveform;
		unsigned int latency_ms;
	} waveform_latency[8];
	size_t n_waveform_latencies;
	bool hold; /* no update completes until it is released */
	bool gate; /* no update is submitted until it is opened */
	/*
	 * Copies each update's pixels out, as a controller loaded over USB or
	 * SPI does, and keeps them: copies[i] holds updates[i]'s rect, packed.
	 */
	bool copy_out;
	uint8_t **copies;
	struct vl_epd_snapshot *snapshots; /* taken, not yet submitted */
	FILE *trace;
	unsigned int failures[2]; /* by enum vl_epd_memory_call */
	int failure_error[2];
	uint32_t refused[8]; /* waveforms refused with EINVAL */
	size_t n_refused;
	struct vl_epd_rect failing_area; /* submissions over it fail with area_error */
	int area_error;
	unsigned int submissions;
	bool gone, cancel;
};

static struct memory_device *
memory_from_device(struct vl_epd_device *dev)
{
	return (struct memory_device *)dev;
}

/* With the lock held: whether this call fails, and with which errno. */
static int
injected_failure(struct memory_device *mem, enum vl_epd_memory_call call)
{
	if (mem->gone)
		return ENODEV;
	if (mem->failures[call] == 0)
		return 0;
	mem->failures[call]--;
	if (mem->failure_error[call] == ENODEV)
		mem->gone = true;
	return mem->failure_error[call];
}

static bool
record_update(struct memory_device *mem, const struct vl_epd_update *update)
{
	if (mem->n_updates == VL_EPD_MEMORY_RECORD_MAX) {
		size_t kept = VL_EPD_MEMORY_RECORD_MAX / 2;
		memmove(mem->updates, mem->updates + mem->n_updates - kept,
			kept * sizeof(*mem->updates));
		memmove(mem->submitted, mem->submitted + mem->n_updates - kept,
			kept * sizeof(*mem->submitted));
		memmove(mem->calls, mem->calls + mem->n_updates - kept, kept * sizeof(*mem->calls));
		for (size_t i = 0; i < mem->n_updates - kept; i++)
			free(mem->copies[i]);
		memmove(mem->copies, mem->copies + mem->n_updates - kept,
			kept * sizeof(*mem->copies));
		mem->n_updates = kept;
	}
	if (mem->n_updates == mem->capacity) {
		size_t capacity = mem->capacity ? mem->capacity * 2 : 64;
		struct vl_epd_update *updates = realloc(mem->updates, capacity * sizeof(*updates));
		if (updates)
			mem->updates = updates;
		struct timespec *submitted = realloc(mem->submitted, capacity * sizeof(*submitted));
		if (submitted)
			mem->submitted = submitted;
		uint32_t *calls = realloc(mem->calls, capacity * sizeof(*calls));
		if (calls)
			mem->calls = calls;
		uint8_t **copies = realloc(mem->copies, capacity * sizeof(*copies));
		if (copies)
			mem->copies = copies;
		if (!updates || !submitted || !calls || !copies)
			return false;
		mem->capacity = capacity;
	}
	mem->updates[mem->n_updates] = *update;
	clock_gettime(CLOCK_MONOTONIC, &mem->submitted[mem->n_updates]);
	mem->calls[mem->n_updates] = mem->n_calls;
	mem->copies[mem->n_updates] = NULL;
	mem->n_updates++;
	return true;
}

/* With the lock held. */
static int
show_update(struct memory_device *mem, const struct vl_epd_update *update)
{
	const struct vl_epd_device *dev = &mem->base;
	const struct vl_epd_rect *r = &update->rect;

	if (!record_update(mem, update))
		return ENOMEM;
	if (mem->copy_out) {
		/* What was taken when the update was queued: the framebuffer may be newer. */
		struct vl_epd_snapshot *snapshot =
			vl_epd_snapshot_claim(&mem->snapshots, update->marker);
		if (!snapshot || memcmp(&snapshot->rect, r, sizeof(*r)) != 0) {
			vl_epd_snapshot_free(snapshot);
			mem->n_updates--;
			return EIO;
		}
		uint8_t *copy = snapshot->pixels;
		snapshot->pixels = NULL;
		vl_epd_snapshot_free(snapshot);
		mem->copies[mem->n_updates - 1] = copy;
		for (uint32_t y = 0; y < r->height; y++)
			memcpy(mem->panel + (size_t)(r->top + y) * dev->width + r->left,
				copy + (size_t)y * r->width, r->width);
	} else {
		/* Like SNAPSHOT: the panel takes the pixels when the update is submitted. */
		for (uint32_t y = r->top; y < r->top + r->height; y++)
			memcpy(mem->panel + (size_t)y * dev->width + r->left,
				dev->pixels + (size_t)y * dev->stride + r->left, r->width);
	}
	if (mem->trace) {
		const struct timespec *t = &mem->submitted[mem->n_updates - 1];
		fprintf(mem->trace,
			"update marker=%" PRIu32 " x=%" PRIu32 " y=%" PRIu32 " width=%" PRIu32
			" height=%" PRIu32 " waveform=%" PRIu32 " full=%d ns=%" PRId64 "\n",
			update->marker, r->left, r->top, r->width, r->height, update->waveform,
			update->full, (int64_t)t->tv_sec * 1000000000 + t->tv_nsec);
		fflush(mem->trace);
	}
	return 0;
}

/* With the lock held: the error a driver would refuse these updates with, or 0. */
static int
refusal(struct memory_device *mem, const struct vl_epd_update *updates, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < mem->n_refused; j++)
			if (updates[i].waveform == mem->refused[j])
				return EINVAL;
		if (mem->area_error && vl_epd_rects_overlap(&updates[i].rect, &mem->failing_area))
			return mem->area_error;
	}
	return 0;
}

static bool
memory_submit_group(struct vl_epd_device *dev, const struct vl_epd_update *updates, size_t n)
{
	struct memory_device *mem = memory_from_device(dev);

	pthread_mutex_lock(&mem->lock);
	while (mem->gate && !mem->cancel)
		pthread_cond_wait(&mem->wake, &mem->lock);
	mem->submissions++;
	int error = injected_failure(mem, VL_EPD_MEMORY_SUBMIT);
	if (!error)
		error = refusal(mem, updates, n);
	for (size_t i = 0; !error && i < n; i++)
		error = show_update(mem, &updates[i]);
	/* what a failed submission took goes with it */
	for (size_t i = 0; error && i < n; i++)
		vl_epd_snapshot_free(vl_epd_snapshot_claim(&mem->snapshots, updates[i].marker));
	mem->n_calls++;
	pthread_mutex_unlock(&mem->lock);
	errno = error;
	return error == 0;
}

static bool
memory_submit(struct vl_epd_device *dev, const struct vl_epd_update *update)
{
	return memory_submit_group(dev, update, 1);
}

static bool
memory_snapshot(struct vl_epd_device *dev, const struct vl_epd_update *update)
{
	struct memory_device *mem = memory_from_device(dev);
	struct vl_epd_snapshot *snapshot = vl_epd_snapshot_take(dev, update);

	if (!snapshot)
		return false;
	pthread_mutex_lock(&mem->lock);
	vl_epd_snapshot_add(&mem->snapshots, snapshot);
	pthread_mutex_unlock(&mem->lock);
	return true;
}

static void
add_ms(struct timespec *t, unsigned int ms)
{
	t->tv_sec += ms / 1000;
	t->tv_nsec += (long)(ms % 1000) * 1000000;
	if (t->tv_nsec >= 1000000000) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000;
	}
}

/* With the lock held. */
static unsigned int
latency_of(const struct memory_device *mem, uint32_t waveform)
{
	for (size_t i = 0; i < mem->n_waveform_latencies; i++)
		if (mem->waveform_latency[i].waveform == waveform)
			return mem->waveform_latency[i].latency_ms;
	return mem->latency_ms;
}

static bool
later(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/*
 * With the lock held: when update i completes, its latency after it
 * starts. As on a panel, an update that overlaps an earlier one starts when
 * that one ends, so the two complete in the order they were submitted;
 * others complete in any order. Chains of overlaps are followed a few
 * steps back, which is all a test keeps in flight.
 */
static struct timespec
completion_of(const struct memory_device *mem, size_t i, unsigned int depth)
{
	struct timespec start = mem->submitted[i];
	const size_t horizon = i > 256 ? i - 256 : 0;

	for (size_t j = i; depth > 0 && j-- > horizon;) {
		if (!vl_epd_rects_overlap(&mem->updates[j].rect, &mem->updates[i].rect))
			continue;
		struct timespec end = completion_of(mem, j, depth - 1);
		if (later(&end, &start))
			start = end;
		break;
	}
	add_ms(&start, latency_of(mem, mem->updates[i].waveform));
	return start;
}

/* An update completes its latency after it starts (completion_of). */
static int
memory_wait(struct vl_epd_device *dev, uint32_t marker)
{
	struct memory_device *mem = memory_from_device(dev);
	struct timespec deadline = {0};
	bool found = false;

	pthread_mutex_lock(&mem->lock);
	for (size_t i = mem->n_updates; i-- > 0 && !found;) {
		if (mem->updates[i].marker != marker)
			continue;
		found = true;
		deadline = completion_of(mem, i, 8);
	}
	while (found && !mem->cancel) {
		if (mem->hold) {
			pthread_cond_wait(&mem->wake, &mem->lock);
			continue;
		}
		if (pthread_cond_timedwait(&mem->wake, &mem->lock, &deadline) == ETIMEDOUT)
			break;
	}
	int error = mem->cancel ? ECANCELED : injected_failure(mem, VL_EPD_MEMORY_WAIT);
	pthread_mutex_unlock(&mem->lock);
	return -error;
}

static void
memory_cancel(struct vl_epd_device *dev)
{
	struct memory_device *mem = memory_from_device(dev);

	pthread_mutex_lock(&mem->lock);
	mem->cancel = true;
	pthread_cond_broadcast(&mem->wake);
	pthread_mutex_unlock(&mem->lock);
}

static void
write_panel(struct memory_device *mem, const char *path)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return;
	fprintf(f, "P5\n%" PRIu32 " %" PRIu32 "\n255\n", mem->base.width, mem->base.height);
	fwrite(mem->panel, 1, (size_t)mem->base.width * mem->base.height, f);
	fclose(f);
}

/* The backend is done: what the panel shows is final (the I/O threads may still end later). */
static void
memory_release(struct vl_epd_device *dev)
{
	struct memory_device *mem = memory_from_device(dev);
	const char *panel_path = getenv("VELLUM_MEMORY_PANEL");

	pthread_mutex_lock(&mem->lock);
	if (panel_path && *panel_path)
		write_panel(mem, panel_path);
	pthread_mutex_unlock(&mem->lock);
}

static void
memory_destroy(struct vl_epd_device *dev)
{
	struct memory_device *mem = memory_from_device(dev);

	if (mem->trace)
		fclose(mem->trace);

	pthread_mutex_destroy(&mem->lock);
	pthread_cond_destroy(&mem->wake);
	free(mem->updates);
	free(mem->submitted);
	free(mem->calls);
	for (size_t i = 0; i < mem->n_updates; i++)
		free(mem->copies[i]);
	free(mem->copies);
	vl_epd_snapshot_free_all(&mem->snapshots);
	free(mem->panel);
	free(mem->base.pixels);
	free(mem);
}

static const struct vl_epd_device_impl memory_impl = {
	.name = "memory",
	.submit = memory_submit,
	.wait = memory_wait,
	.release = memory_release,
	.cancel = memory_cancel,
	.destroy = memory_destroy,
};

/* The same panel, taking a group of updates in one call, as a DRM commit does. */
static const struct vl_epd_device_impl memory_group_impl = {
	.name = "memory",
	.submit = memory_submit,
	.submit_group = memory_submit_group,
	.wait = memory_wait,
	.release = memory_release,
	.cancel = memory_cancel,
	.destroy = memory_destroy,
};

/* Both, copying pixels out as a controller over USB or SPI does. */
static const struct vl_epd_device_impl memory_copy_out_impl = {
	.name = "memory",
	.submit = memory_submit,
	.snapshot = memory_snapshot,
	.wait = memory_wait,
	.release = memory_release,
	.cancel = memory_cancel,
	.destroy = memory_destroy,
};

static const struct vl_epd_device_impl memory_group_copy_out_impl = {
	.name = "memory",
	.submit = memory_submit,
	.submit_group = memory_submit_group,
	.snapshot = memory_snapshot,
	.wait = memory_wait,
	.release = memory_release,
	.cancel = memory_cancel,
	.destroy = memory_destroy,
};

static void
choose_impl(struct memory_device *mem)
{
	bool group = mem->base.group_max > 1;

	if (mem->copy_out)
		mem->base.impl = group ? &memory_group_copy_out_impl : &memory_copy_out_impl;
	else
		mem->base.impl = group ? &memory_group_impl : &memory_impl;
}

void
vl_epd_memory_set_group_max(struct vl_epd_device *dev, uint32_t group_max)
{
	dev->group_max = group_max;
	choose_impl(memory_from_device(dev));
}

struct vl_epd_device *
vl_epd_memory_open(uint32_t width, uint32_t height, char *error, size_t error_size)
{
	struct memory_device *mem;
	pthread_condattr_t attr;

	if (width == 0 || height == 0 || width > 16384 || height > 16384) {
		snprintf(error, error_size, "memory device size %ux%u is out of range", width,
			height);
		return NULL;
	}
	mem = calloc(1, sizeof(*mem));
	if (!mem || !(mem->base.pixels = malloc((size_t)width * height)) ||
		!(mem->panel = malloc((size_t)width * height))) {
		if (mem)
			free(mem->base.pixels);
		free(mem);
		snprintf(error, error_size, "out of memory");
		return NULL;
	}
	memset(mem->base.pixels, 0xff, (size_t)width * height);
	memset(mem->panel, 0xff, (size_t)width * height);
	pthread_mutex_init(&mem->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&mem->wake, &attr);
	pthread_condattr_destroy(&attr);
	const char *trace_path = getenv("VELLUM_MEMORY_TRACE");
	if (trace_path && *trace_path)
		mem->trace = fopen(trace_path, "a");
	mem->base.impl = &memory_impl;
	mem->base.width = width;
	mem->base.height = height;
	mem->base.stride = width;
	mem->base.bpp = 8;
	mem->base.has_update_ioctls = true;
	vl_epd_waveform_table_default(&mem->base.waveforms);
	snprintf(mem->base.description, sizeof(mem->base.description), "memory (%ux%u)", width,
		height);
	return &mem->base;
}

size_t
vl_epd_memory_updates(struct vl_epd_device *dev, const struct vl_epd_update **updates)
{
	struct memory_device *mem = memory_from_device(dev);

	pthread_mutex_lock(&mem->lock);
	*updates = mem->updates;
	size_t n = mem->n_updates;
	pthread_mutex_unlock(&mem->lock);
	return n;
}

size_t
vl_epd_memory_calls(struct vl_epd_device *dev, const uint32_t **calls)
{
	struct memory_device *mem = memory_from_device(dev);

	pthread_mutex_lock(&mem->lock);
	*calls = mem->calls;
	size_t n = mem->n_updates;
	pthread_mutex_unlock(&mem->lock);
	return n;
}

const uint8_t *
vl_epd_memory_panel(struct vl_epd_device *dev)
{
	return memory_from_device(dev)->panel;
}

void
vl_epd_memory_set_latency(struct vl_epd_device *dev, unsigned int latency_ms)
{
	struct memory_device *mem = memory_from_device(dev);

	pthread_mutex_lock(&mem->lock);
	mem->latency_ms = latency_ms;
	pthread_mutex_unlock(&mem->lock);
}

void
vl_epd_memory_set_waveform_latency(
	struct vl_epd_device *dev, uint32_t waveform, unsigned int latency_ms)
{
	struct memory_device *mem = memory_from_device(dev);
	size_t i = 0;

	pthread_mutex_lock(&mem->lock);
	while (i < mem->n_waveform_latencies && mem->waveform_latency[i].waveform != waveform)
		i++;
	if (i < sizeof(mem->waveform_latency) / sizeof(mem->waveform_latency[0])) {
		mem->waveform_latency[i].waveform = waveform;
		mem->waveform_latency[i].latency_ms = latency_ms;
		if (i == mem->n_waveform_latencies)
			mem->n_waveform_latencies++;
	}
	pthread_mutex_unlock(&mem->lock);
}

void
vl_epd_memory_hold(struct vl_epd_device *dev, bool hold)
{
	struct memory_device *mem = memory_from_device(dev);

	pthread_mutex_lock(&mem->lock);
	mem->hold = hold;
	pthread_cond_broadcast(&mem->wake);
	pthread_mutex_unlock(&mem->lock);
}

void
vl_epd_memory_set_retargets_fast(struct vl_epd_device *dev, bool retargets)
{
	dev->retargets_fast = retargets;
}

void
vl_epd_memory_fail(
	struct vl_epd_device *dev, enum vl_epd_memory_call call, unsigned int count, int error)
{
	struct memory_device *mem = memory_from_device(dev);

	pthread_mutex_lock(&mem->lock);
	mem->failures[call] = count;
	mem->failure_error[call] = error;
	pthread_mutex_unlock(&mem->lock);
}

void
vl_epd_memory_gate(struct vl_epd_device *dev, bool closed)
{
	struct memory_device *mem = memory_from_device(dev);

	pthread_mutex_lock(&mem->lock);
	mem->gate = closed;
	pthread_cond_broadcast(&mem->wake);
	pthread_mutex_unlock(&mem->lock);
}

void
vl_epd_memory_set_copy_out(struct vl_epd_device *dev, bool copy_out)
{
	struct memory_device *mem = memory_from_device(dev);

	/* the I/O threads read impl only after the next update is queued */
	pthread_mutex_lock(&mem->lock);
	mem->copy_out = copy_out;
	choose_impl(mem);
	pthread_mutex_unlock(&mem->lock);
}

const uint8_t *
vl_epd_memory_update_pixels(struct vl_epd_device *dev, size_t index)
{
	struct memory_device *mem = memory_from_device(dev);

	pthread_mutex_lock(&mem->lock);
	const uint8_t *copy = index < mem->n_updates ? mem->copies[index] : NULL;
	pthread_mutex_unlock(&mem->lock);
	return copy;
}

void
vl_epd_memory_refuse_waveform(struct vl_epd_device *dev, uint32_t waveform)
{
	struct memory_device *mem = memory_from_device(dev);

	pthread_mutex_lock(&mem->lock);
	if (mem->n_refused < sizeof(mem->refused) / sizeof(mem->refused[0]))
		mem->refused[mem->n_refused++] = waveform;
	pthread_mutex_unlock(&mem->lock);
}

void
vl_epd_memory_fail_area(struct vl_epd_device *dev, const struct vl_epd_rect *rect, int error)
{
	struct memory_device *mem = memory_from_device(dev);

	pthread_mutex_lock(&mem->lock);
	mem->failing_area = *rect;
	mem->area_error = error;
	pthread_mutex_unlock(&mem->lock);
}

unsigned int
vl_epd_memory_submissions(struct vl_epd_device *dev)
{
	struct memory_device *mem = memory_from_device(dev);

	pthread_mutex_lock(&mem->lock);
	unsigned int n = mem->submissions;
	pthread_mutex_unlock(&mem->lock);
	return n;
}
