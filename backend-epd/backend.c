// SPDX-License-Identifier: MIT
/*
 * The wlr_backend: one e-paper panel, one output.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/util/log.h>

#include "backend.h"

static const struct wlr_backend_impl backend_impl;

static struct vl_epd_backend *
epd_backend_from_backend(struct wlr_backend *wlr_backend)
{
	assert(vl_backend_is_epd(wlr_backend));
	struct vl_epd_backend *backend = wl_container_of(wlr_backend, backend, base);
	return backend;
}

static bool
backend_start(struct wlr_backend *wlr_backend)
{
	struct vl_epd_backend *backend = epd_backend_from_backend(wlr_backend);

	if (backend->started)
		return true;
	backend->output = vl_epd_output_create(backend);
	if (!backend->output)
		return false;
	backend->started = true;
	wl_signal_emit_mutable(&backend->base.events.new_output, &backend->output->base);
	return true;
}

static void
backend_destroy(struct wlr_backend *wlr_backend)
{
	struct vl_epd_backend *backend = epd_backend_from_backend(wlr_backend);

	if (backend->output)
		wlr_output_destroy(&backend->output->base);
	wlr_backend_finish(wlr_backend);
	wl_list_remove(&backend->loop_destroy.link);
	if (backend->device->impl->release)
		backend->device->impl->release(backend->device);
	/* The I/O threads may still hold it for a moment. */
	vl_epd_device_unref(backend->device);
	free((char *)backend->options.device);
	free(backend);
}

/* CPU-mapped buffers only: wlroots then picks the pixman renderer and shm allocator. */
static uint32_t
backend_get_buffer_caps(struct wlr_backend *wlr_backend)
{
	(void)wlr_backend;
	return WLR_BUFFER_CAP_DATA_PTR | WLR_BUFFER_CAP_SHM;
}

static const struct wlr_backend_impl backend_impl = {
	.start = backend_start,
	.destroy = backend_destroy,
	.get_buffer_caps = backend_get_buffer_caps,
};

/* Like wlroots' own backends, the backend goes with its event loop. */
static void
handle_loop_destroy(struct wl_listener *listener, void *data)
{
	struct vl_epd_backend *backend = wl_container_of(listener, backend, loop_destroy);
	(void)data;

	wlr_backend_destroy(&backend->base);
}

bool
vl_backend_is_epd(struct wlr_backend *backend)
{
	return backend->impl == &backend_impl;
}

struct vl_panel_model *
vl_epd_backend_preview_model(struct wlr_backend *backend)
{
	if (!vl_backend_is_epd(backend))
		return NULL;
	return vl_epd_device_preview_model(epd_backend_from_backend(backend)->device);
}

struct wlr_backend *
vl_epd_backend_create(struct wl_event_loop *loop, const struct vl_epd_backend_options *options,
	char *error, size_t error_size)
{
	struct vl_epd_backend *backend = calloc(1, sizeof(*backend));

	if (!backend) {
		snprintf(error, error_size, "out of memory");
		return NULL;
	}
	backend->loop = loop;
	backend->options = *options;
	backend->options.device = strdup(options->device ? options->device : "auto");
	/* read only while opening; the string stays the caller's */
	backend->options.waveform_map = NULL;
	backend->device = vl_epd_device_open(backend->options.device, options->waveform_map,
		options->time_scale, options->vcom_mv, error, error_size);
	if (!backend->device) {
		free((char *)backend->options.device);
		free(backend);
		return NULL;
	}
	wlr_log(WLR_INFO, "e-paper panel: %s", backend->device->description);
	wlr_backend_init(&backend->base, &backend_impl);
	backend->loop_destroy.notify = handle_loop_destroy;
	wl_event_loop_add_destroy_listener(loop, &backend->loop_destroy);
	return &backend->base;
}
