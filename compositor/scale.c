// SPDX-License-Identifier: MIT
/*
 * Output scale. Clients draw in logical pixels; the scene draws them into
 * the panel's pixels at the output's scale, and clients that speak
 * wp-fractional-scale-v1 (with viewporter) draw at that scale themselves.
 */
#include <math.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>

#include "scale.h"
#include "server.h"

#define MM_PER_INCH     25.4
#define REFERENCE_DPI   96.0
#define STEPS_PER_SCALE 4.0 /* the default is a multiple of 1/4 */

double
vl_scale_for_panel(int32_t width, int32_t height, int32_t width_mm, int32_t height_mm)
{
	if (width <= 0 || height <= 0 || width_mm <= 0 || height_mm <= 0)
		return 1.0;
	double dots_per_mm = ((double)width / width_mm + (double)height / height_mm) / 2.0;
	double scale = dots_per_mm * MM_PER_INCH / REFERENCE_DPI;
	scale = floor(scale * STEPS_PER_SCALE + 0.5) / STEPS_PER_SCALE;
	/* a coarse panel keeps its pixels; no panel is 8 times finer than a desktop's */
	return scale < 1.0 ? 1.0 : scale > VL_SCALE_MAX ? VL_SCALE_MAX : scale;
}

/* A logical edge in panel pixels, rounded by round_edge, kept in int32_t. */
static int32_t
scaled_edge(int32_t x, double scale, double (*round_edge)(double))
{
	double edge = round_edge((double)x * scale);

	return edge < INT32_MIN ? INT32_MIN : edge > INT32_MAX ? INT32_MAX : (int32_t)edge;
}

bool
vl_scale_box_to_native(pixman_box32_t *native, const pixman_box32_t *logical, double scale,
	enum vl_epd_transform transform, int32_t panel_width, int32_t panel_height)
{
	/* Outwards: a hint or a visible area covers every pixel it touches. */
	pixman_box32_t scaled = {
		scaled_edge(logical->x1, scale, floor),
		scaled_edge(logical->y1, scale, floor),
		scaled_edge(logical->x2, scale, ceil),
		scaled_edge(logical->y2, scale, ceil),
	};

	return vl_epd_transform_box(native, &scaled, transform, panel_width, panel_height);
}

double
vl_output_scale(const struct vl_server *server, const struct wlr_output *output)
{
	if (server->config.scale > 0)
		return server->config.scale;
	double scale = vl_scale_for_panel(
		output->width, output->height, output->phys_width, output->phys_height);
	if (output->phys_width > 0 && output->phys_height > 0)
		wlr_log(WLR_INFO, "%s is %dx%d mm: scale %.2f", output->name, output->phys_width,
			output->phys_height, scale);
	else
		wlr_log(WLR_INFO, "%s does not say its size: scale 1", output->name);
	return scale;
}

bool
vl_output_box_to_native(
	const struct wlr_output *output, const pixman_box32_t *logical, pixman_box32_t *native)
{
	return vl_scale_box_to_native(native, logical, output->scale,
		(enum vl_epd_transform)output->transform, output->width, output->height);
}

static void
use_nearest(struct wlr_scene_buffer *buffer, int sx, int sy, void *data)
{
	(void)sx;
	(void)sy;
	(void)data;
	if (buffer->filter_mode != WLR_SCALE_FILTER_NEAREST)
		wlr_scene_buffer_set_filter_mode(buffer, WLR_SCALE_FILTER_NEAREST);
}

void
vl_output_scale_buffers(struct vl_output *output)
{
	wlr_scene_output_for_each_buffer(output->scene_output, use_nearest, NULL);
}
