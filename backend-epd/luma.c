/*
 * Gray conversion. BT.601 luma in 8-bit fixed point, the weights summing to
 * 256 so white stays 255; the same formula epdfb uses for 32 bpp. The inner
 * loop has no branches so that GCC vectorizes it at -O2.
 */
#include "pipeline.h"

static void
convert_row(uint8_t *restrict dst, const uint32_t *restrict src, int32_t width)
{
	for (int32_t x = 0; x < width; x++) {
		uint32_t px = src[x];
		dst[x] = (uint8_t)((77 * ((px >> 16) & 0xff) + 150 * ((px >> 8) & 0xff) +
					   29 * (px & 0xff)) >>
				   8);
	}
}

void
vl_epd_gray_convert(uint8_t *gray, uint32_t gray_stride, const void *xrgb, size_t xrgb_stride,
	const pixman_box32_t *box)
{
	const int32_t width = box->x2 - box->x1;

	for (int32_t y = box->y1; y < box->y2; y++) {
		const uint32_t *src =
			(const uint32_t *)((const uint8_t *)xrgb + (size_t)y * xrgb_stride) +
			box->x1;
		convert_row(gray + (size_t)y * gray_stride + box->x1, src, width);
	}
}
