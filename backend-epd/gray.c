// SPDX-License-Identifier: MIT
/*
 * XRGB8888 or RGB565 to 8-bit luma, the first stage: only damaged pixels
 * are converted, into a panel-sized gray shadow.
 */
#include <stddef.h>
#include <stdint.h>
#include <vellum/epd-pipeline.h>

#include "clones.h"

/*
 * GCC vectorizes at -O2 only loops whose vector code needs no scalar
 * epilogue (the "very cheap" cost model), so rows go in blocks of a fixed
 * number of pixels, and the rest one by one.
 */
#define BLOCK 32

static inline uint8_t
luma(uint32_t p)
{
	uint16_t r = (uint8_t)(p >> 16), g = (uint8_t)(p >> 8), b = (uint8_t)p;

	/* At most 255 * 256: exact in 16 bits, which doubles the vector lanes. */
	return (uint8_t)((uint16_t)(r * 77u + g * 150u + b * 29u) >> 8);
}

VL_EPD_VECTOR_CLONES static void
convert_row(uint8_t *restrict dst, const uint32_t *restrict src, int32_t n)
{
	int32_t x = 0;

	for (; x + BLOCK <= n; x += BLOCK) {
		for (int32_t i = 0; i < BLOCK; i++)
			dst[x + i] = luma(src[x + i]);
	}
	for (; x < n; x++)
		dst[x] = luma(src[x]);
}

/*
 * An RGB565 pixel's luma: each channel widened to 8 bits by repeating its
 * top bits, as pixman widens it, then the XRGB8888 formula, so a picture
 * gives the same gray in either format.
 */
static inline uint8_t
luma_rgb565(uint16_t p)
{
	uint16_t r5 = p >> 11, g6 = (p >> 5) & 0x3f, b5 = p & 0x1f;
	uint16_t r = (uint16_t)(r5 << 3 | r5 >> 2), g = (uint16_t)(g6 << 2 | g6 >> 4),
		 b = (uint16_t)(b5 << 3 | b5 >> 2);

	return (uint8_t)((uint16_t)(r * 77u + g * 150u + b * 29u) >> 8);
}

VL_EPD_VECTOR_CLONES static void
convert_row_rgb565(uint8_t *restrict dst, const uint16_t *restrict src, int32_t n)
{
	int32_t x = 0;

	for (; x + BLOCK <= n; x += BLOCK) {
		for (int32_t i = 0; i < BLOCK; i++)
			dst[x + i] = luma_rgb565(src[x + i]);
	}
	for (; x < n; x++)
		dst[x] = luma_rgb565(src[x]);
}

static void
expand_row(uint32_t *restrict dst, const uint8_t *restrict src, int32_t n)
{
	int32_t x = 0;

	for (; x + BLOCK <= n; x += BLOCK) {
		for (int32_t i = 0; i < BLOCK; i++)
			dst[x + i] = src[x + i] * 0x010101u;
	}
	for (; x < n; x++)
		dst[x] = src[x] * 0x010101u;
}

static bool
xrgb_usable(const void *xrgb, int32_t stride, int32_t width)
{
	return xrgb && ((uintptr_t)xrgb & 3) == 0 && (stride & 3) == 0 && stride / 4 >= width;
}

bool
vl_epd_gray_convert(const struct vl_epd_gray *gray, const void *xrgb, int32_t xrgb_stride,
	const pixman_box32_t *box)
{
	if (!vl_epd_gray_valid(gray) || !xrgb_usable(xrgb, xrgb_stride, gray->width) || !box)
		return false;
	pixman_box32_t b = *box;
	if (!vl_epd_box_clip(&b, gray->width, gray->height))
		return false;

	for (int32_t y = b.y1; y < b.y2; y++) {
		const uint32_t *src =
			(const uint32_t *)((const uint8_t *)xrgb + (size_t)y * xrgb_stride) + b.x1;
		convert_row(gray->data + (size_t)y * gray->stride + b.x1, src, b.x2 - b.x1);
	}
	return true;
}

bool
vl_epd_gray_convert_rgb565(const struct vl_epd_gray *gray, const void *rgb565, int32_t stride,
	const pixman_box32_t *box)
{
	if (!vl_epd_gray_valid(gray) || !rgb565 || ((uintptr_t)rgb565 & 1) || (stride & 1) ||
		stride / 2 < gray->width || !box)
		return false;
	pixman_box32_t b = *box;
	if (!vl_epd_box_clip(&b, gray->width, gray->height))
		return false;

	for (int32_t y = b.y1; y < b.y2; y++) {
		const uint16_t *src =
			(const uint16_t *)((const uint8_t *)rgb565 + (size_t)y * stride) + b.x1;
		convert_row_rgb565(gray->data + (size_t)y * gray->stride + b.x1, src, b.x2 - b.x1);
	}
	return true;
}

bool
vl_epd_gray_can_convert(
	const void *pixels, size_t stride, int32_t width, enum vl_epd_pixel_format format)
{
	if (stride > INT32_MAX || width <= 0)
		return false;
	if (format == VL_EPD_PIXEL_RGB565)
		return pixels && ((uintptr_t)pixels & 1) == 0 && (stride & 1) == 0 &&
		       stride / 2 >= (size_t)width;
	return xrgb_usable(pixels, (int32_t)stride, width);
}

bool
vl_epd_gray_convert_region(const struct vl_epd_gray *gray, const void *pixels, int32_t stride,
	enum vl_epd_pixel_format format, const pixman_region32_t *damage)
{
	bool converted = true;
	int n;

	if (!damage)
		return false;
	const pixman_box32_t *rects = pixman_region32_rectangles(damage, &n);
	for (int i = 0; i < n; i++) {
		if (format == VL_EPD_PIXEL_RGB565)
			converted &= vl_epd_gray_convert_rgb565(gray, pixels, stride, &rects[i]);
		else
			converted &= vl_epd_gray_convert(gray, pixels, stride, &rects[i]);
	}
	return converted;
}

bool
vl_epd_gray_expand(
	void *xrgb, int32_t xrgb_stride, const struct vl_epd_gray *gray, const pixman_box32_t *box)
{
	if (!vl_epd_gray_valid(gray) || !xrgb_usable(xrgb, xrgb_stride, gray->width) || !box)
		return false;
	pixman_box32_t b = *box;
	if (!vl_epd_box_clip(&b, gray->width, gray->height))
		return false;

	for (int32_t y = b.y1; y < b.y2; y++) {
		uint32_t *dst = (uint32_t *)((uint8_t *)xrgb + (size_t)y * xrgb_stride) + b.x1;
		expand_row(dst, gray->data + (size_t)y * gray->stride + b.x1, b.x2 - b.x1);
	}
	return true;
}
