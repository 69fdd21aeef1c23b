/*
 * An in-process panel for tests without a kernel: 8-bit gray pixels, the
 * epdfb waveform table, and a record of every submitted update.
 */
#include <epdfb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device.h"

struct memory_device {
	struct vl_epd_device base;
	/* The completion thread reads what the event loop appends. */
	pthread_mutex_t lock;
	struct vl_epd_update *updates;
	struct timespec *submitted;
	size_t n_updates, capacity;
	unsigned int latency_ms;
};

static struct memory_device *
memory_from_device(struct vl_epd_device *dev)
{
	return (struct memory_device *)dev;
}

static bool
memory_submit(struct vl_epd_device *dev, const struct vl_epd_update *update)
{
	struct memory_device *mem = memory_from_device(dev);
	bool ok = true;

	pthread_mutex_lock(&mem->lock);
	if (mem->n_updates == mem->capacity) {
		size_t capacity = mem->capacity ? mem->capacity * 2 : 64;
		struct vl_epd_update *updates = realloc(mem->updates, capacity * sizeof(*updates));
		if (updates)
			mem->updates = updates;
		struct timespec *submitted = realloc(mem->submitted, capacity * sizeof(*submitted));
		if (submitted)
			mem->submitted = submitted;
		ok = updates && submitted;
		if (ok)
			mem->capacity = capacity;
	}
	if (ok) {
		mem->updates[mem->n_updates] = *update;
		clock_gettime(CLOCK_MONOTONIC, &mem->submitted[mem->n_updates]);
		mem->n_updates++;
	}
	pthread_mutex_unlock(&mem->lock);
	return ok;
}

/* An update completes latency_ms after its submission. */
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
		deadline = mem->submitted[i];
		deadline.tv_sec += mem->latency_ms / 1000;
		deadline.tv_nsec += (long)(mem->latency_ms % 1000) * 1000000;
		if (deadline.tv_nsec >= 1000000000) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000;
		}
	}
	pthread_mutex_unlock(&mem->lock);
	if (found)
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) != 0)
			;
	return 0;
}

static void
memory_destroy(struct vl_epd_device *dev)
{
	struct memory_device *mem = memory_from_device(dev);

	pthread_mutex_destroy(&mem->lock);
	free(mem->updates);
	free(mem->submitted);
	free(mem->base.pixels);
	free(mem);
}

static const struct vl_epd_device_impl memory_impl = {
	.name = "memory",
	.submit = memory_submit,
	.wait = memory_wait,
	.destroy = memory_destroy,
};

struct vl_epd_device *
vl_epd_memory_open(uint32_t width, uint32_t height, char *error, size_t error_size)
{
	struct memory_device *mem;

	if (width == 0 || height == 0 || width > 16384 || height > 16384) {
		snprintf(error, error_size, "memory device size %ux%u is out of range", width,
			height);
		return NULL;
	}
	mem = calloc(1, sizeof(*mem));
	if (!mem || !(mem->base.pixels = malloc((size_t)width * height))) {
		free(mem);
		snprintf(error, error_size, "out of memory");
		return NULL;
	}
	memset(mem->base.pixels, 0xff, (size_t)width * height);
	pthread_mutex_init(&mem->lock, NULL);
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

	*updates = mem->updates;
	return mem->n_updates;
}

void
vl_epd_memory_set_latency(struct vl_epd_device *dev, unsigned int latency_ms)
{
	struct memory_device *mem = memory_from_device(dev);

	pthread_mutex_lock(&mem->lock);
	mem->latency_ms = latency_ms;
	pthread_mutex_unlock(&mem->lock);
}
