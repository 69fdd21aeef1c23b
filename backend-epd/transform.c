// SPDX-License-Identifier: MIT
/*
 * Rotated outputs. A panel mounted in portrait shows a rotated output:
 * output coordinates (damage from a client's point of view, hint boxes)
 * map to the panel's native coordinates, which its updates use.
 */
#include <stdlib.h>
#include <vellum/epd-pipeline.h>

static bool
output_size(enum vl_epd_transform transform, int32_t panel_width, int32_t panel_height,
	int32_t *width, int32_t *height)
{
	switch (transform) {
	case VL_EPD_TRANSFORM_NORMAL:
	case VL_EPD_TRANSFORM_180:
		*width = panel_width;
		*height = panel_height;
		return true;
	case VL_EPD_TRANSFORM_90:
	case VL_EPD_TRANSFORM_270:
		*width = panel_height;
		*height = panel_width;
		return true;
	}
	return false;
}

bool
vl_epd_transform_box(pixman_box32_t *native, const pixman_box32_t *box,
	enum vl_epd_transform transform, int32_t panel_width, int32_t panel_height)
{
	int32_t width, height;

	if (!native || !box || !output_size(transform, panel_width, panel_height, &width, &height))
		return false;
	pixman_box32_t b = *box;
	if (!vl_epd_box_clip(&b, width, height))
		return false;

	/* Content rotated counter-clockwise by transform: the output's top-left
	 * corner lands bottom-left (90), bottom-right (180) or top-right (270). */
	switch (transform) {
	case VL_EPD_TRANSFORM_NORMAL:
		*native = b;
		break;
	case VL_EPD_TRANSFORM_90:
		*native = (pixman_box32_t){b.y1, width - b.x2, b.y2, width - b.x1};
		break;
	case VL_EPD_TRANSFORM_180:
		*native =
			(pixman_box32_t){width - b.x2, height - b.y2, width - b.x1, height - b.y1};
		break;
	case VL_EPD_TRANSFORM_270:
		*native = (pixman_box32_t){height - b.y2, b.x1, height - b.y1, b.x2};
		break;
	}
	return true;
}

bool
vl_epd_transform_region(pixman_region32_t *native, const pixman_region32_t *region,
	enum vl_epd_transform transform, int32_t panel_width, int32_t panel_height)
{
	int32_t width, height, n;

	if (!native || !region ||
		!output_size(transform, panel_width, panel_height, &width, &height))
		return false;
	const pixman_box32_t *rects = pixman_region32_rectangles(region, &n);
	pixman_box32_t *mapped = calloc(n > 0 ? (size_t)n : 1, sizeof(*mapped));
	if (!mapped)
		return false;
	int32_t kept = 0;
	for (int32_t i = 0; i < n; i++) {
		if (vl_epd_transform_box(
			    &mapped[kept], &rects[i], transform, panel_width, panel_height))
			kept++;
	}
	pixman_region32_fini(native);
	bool ok = pixman_region32_init_rects(native, mapped, kept);
	free(mapped);
	return ok;
}

bool
vl_epd_transform_gray(const struct vl_epd_gray *native, const struct vl_epd_gray *image,
	enum vl_epd_transform transform)
{
	int32_t width, height;

	if (!vl_epd_gray_valid(native) || !vl_epd_gray_valid(image) ||
		!output_size(transform, native->width, native->height, &width, &height) ||
		image->width != width || image->height != height || native->data == image->data)
		return false;

	/* Pixel (x, y) of the image goes where its 1x1 box goes. */
	for (int32_t y = 0; y < height; y++) {
		const uint8_t *row = image->data + (size_t)y * image->stride;
		for (int32_t x = 0; x < width; x++) {
			int32_t nx, ny;
			switch (transform) {
			case VL_EPD_TRANSFORM_90:
				nx = y;
				ny = width - 1 - x;
				break;
			case VL_EPD_TRANSFORM_180:
				nx = width - 1 - x;
				ny = height - 1 - y;
				break;
			case VL_EPD_TRANSFORM_270:
				nx = height - 1 - y;
				ny = x;
				break;
			default:
				nx = x;
				ny = y;
				break;
			}
			native->data[(size_t)ny * native->stride + nx] = row[x];
		}
	}
	return true;
}
