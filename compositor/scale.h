/* SPDX-License-Identifier: MIT */
/*
 * Output scale: logical pixels of about 1/96 inch on a panel whose size is
 * known, and the way between the logical layout and the panel's pixels.
 */
#ifndef VL_SCALE_H
#define VL_SCALE_H

#include <pixman.h>
#include <stdbool.h>
#include <stdint.h>
#include <vellum/epd-pipeline.h>

struct vl_server;
struct wlr_output;

/*
 * The default scale of a panel of width x height pixels and width_mm x
 * height_mm millimetres: its pixels per 1/96 inch (the mean of both axes),
 * rounded to the nearest quarter, halves up, and at least 1. 1 when the
 * physical size is unknown (either is 0 or less).
 */
double vl_scale_for_panel(int32_t width, int32_t height, int32_t width_mm, int32_t height_mm);

/*
 * A box in output-local logical coordinates to the panel's native pixels:
 * scaled (outwards, to whole pixels), then the rotation undone, then clipped
 * to the panel of panel_width x panel_height. False when nothing is left.
 */
bool vl_scale_box_to_native(pixman_box32_t *native, const pixman_box32_t *logical, double scale,
	enum vl_epd_transform transform, int32_t panel_width, int32_t panel_height);

/* The scale the configuration gives output: its scale key, or the default for its panel. */
double vl_output_scale(const struct vl_server *server, const struct wlr_output *output);

struct vl_output;

/*
 * Has every buffer the output shows enlarged or reduced pixel by pixel
 * (nearest neighbour), not blended: black and white stay black and white,
 * which the panel draws with its fast waveforms, without gray fringes.
 */
void vl_output_scale_buffers(struct vl_output *output);

/* vl_scale_box_to_native() with output's scale, rotation and size. */
bool vl_output_box_to_native(
	const struct wlr_output *output, const pixman_box32_t *logical, pixman_box32_t *native);

#endif
