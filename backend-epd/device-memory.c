/*
 * An in-process panel for tests without a kernel: 8-bit gray pixels, the
 * epdfb waveform table, and a record of every submitted update.
 */
#include <epdfb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"

struct memory_device {
	struct vl_epd_device base;
	struct vl_epd_update *updates;
	size_t n_updates, capacity;
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

	if (mem->n_updates == mem->capacity) {
		size_t capacity = mem->capacity ? mem->capacity * 2 : 64;
		struct vl_epd_update *grown = realloc(mem->updates, capacity * sizeof(*grown));
		if (!grown)
			return false;
		mem->updates = grown;
		mem->capacity = capacity;
	}
	mem->updates[mem->n_updates++] = *update;
	return true;
}

static int
memory_wait(struct vl_epd_device *dev, uint32_t marker)
{
	(void)dev;
	(void)marker;
	return 0;
}

static void
memory_destroy(struct vl_epd_device *dev)
{
	struct memory_device *mem = memory_from_device(dev);

	free(mem->updates);
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
	mem->base.impl = &memory_impl;
	mem->base.width = width;
	mem->base.height = height;
	mem->base.stride = width;
	mem->base.bpp = 8;
	mem->base.has_update_ioctls = true;
	vl_epd_device_use_default_waveforms(&mem->base);
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
