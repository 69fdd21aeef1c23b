/*
 * XRGB8888 to 8-bit luma, the first stage: only damaged pixels are
 * converted, into a panel-sized gray shadow.
 */
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

void
vl_epd_gray_convert_region(const struct vl_epd_gray *gray, const void *xrgb, int32_t xrgb_stride,
	const pixman_region32_t *damage)
{
	int n;

	if (!damage)
		return;
	const pixman_box32_t *rects = pixman_region32_rectangles(damage, &n);
	for (int i = 0; i < n; i++)
		vl_epd_gray_convert(gray, xrgb, xrgb_stride, &rects[i]);
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
