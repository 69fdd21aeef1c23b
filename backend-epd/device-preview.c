// SPDX-License-Identifier: MIT
/*
 * The preview panel: epdfb's own model in this process (panel-model/), so
 * that vellum runs on a desktop as on a device: the same queue, waveform
 * timing, merging, collisions, gray levels and ghosts, behind the same
 * mxc_epdc_fb requests the backend sends epdfb. What the panel shows is for
 * the compositor's preview window (vl_epd_device_preview_model).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "panel-model.h"

struct preview_device {
	struct vl_epd_device base;
	struct vl_panel_model *model;
};

static struct preview_device *
preview_from_device(struct vl_epd_device *dev)
{
	return (struct preview_device *)dev;
}

static bool
preview_submit(struct vl_epd_device *dev, const struct vl_epd_update *update)
{
	struct mxcfb_update_data data = vl_epd_update_request(update);
	int ret = vl_panel_model_submit(preview_from_device(dev)->model, &data);

	errno = -ret;
	return ret == 0;
}

/*
 * The model's waits give up 5 s past the end foreseen when they were
 * called; an update that started later than foreseen (waiting for a free
 * LUT) is still running, not hung.
 */
static int
preview_wait(struct vl_epd_device *dev, uint32_t marker)
{
	struct vl_panel_model *model = preview_from_device(dev)->model;
	int ret;

	do
		ret = vl_panel_model_wait(model, marker, NULL);
	while (ret == -ETIMEDOUT && vl_panel_model_pending(model, marker));
	return ret;
}

static void
preview_cancel(struct vl_epd_device *dev)
{
	vl_panel_model_cancel(preview_from_device(dev)->model);
}

static void
preview_destroy(struct vl_epd_device *dev)
{
	struct preview_device *preview = preview_from_device(dev);

	vl_panel_model_destroy(preview->model);
	free(preview);
}

static const struct vl_epd_device_impl preview_impl = {
	.name = "preview",
	.submit = preview_submit,
	.wait = preview_wait,
	.cancel = preview_cancel,
	.destroy = preview_destroy,
};

/* The model's waveform table, as epdfb's EPDFB_GET_WAVEFORM gives it. */
static bool
get_waveform(struct epdfb_waveform_info *info, void *data)
{
	return vl_panel_model_waveform(data, info) == 0;
}

struct vl_epd_device *
vl_epd_preview_open(
	uint32_t width, uint32_t height, unsigned int time_scale, char *error, size_t error_size)
{
	struct preview_device *preview = calloc(1, sizeof(*preview));

	if (!preview) {
		snprintf(error, error_size, "no memory for the preview panel");
		return NULL;
	}
	preview->model = vl_panel_model_create(width, height, time_scale, error, error_size);
	if (!preview->model) {
		free(preview);
		return NULL;
	}
	preview->base.impl = &preview_impl;
	preview->base.width = width;
	preview->base.height = height;
	preview->base.stride = width;
	preview->base.bpp = 8;
	preview->base.pixels = vl_panel_model_pixels(preview->model);
	preview->base.has_update_ioctls = true;
	preview->base.retargets_fast = true;
	vl_epd_read_waveforms(&preview->base.waveforms, get_waveform, preview->model);
	snprintf(preview->base.description, sizeof(preview->base.description),
		"preview (epdfb's panel model, %ux%u, 8 bpp)", width, height);
	return &preview->base;
}

struct vl_panel_model *
vl_epd_device_preview_model(struct vl_epd_device *dev)
{
	return dev->impl == &preview_impl ? preview_from_device(dev)->model : NULL;
}
