/*
 * Quantization of gray to a waveform's levels, written straight into the
 * framebuffer: nearest level, ordered dithering with a 4x4 Bayer matrix
 * anchored to panel coordinates (so a pattern does not crawl between
 * updates), or Floyd-Steinberg error diffusion confined to the box.
 */
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

static const uint8_t bayer4[4][4] = {
	{0, 8, 2, 10},
	{12, 4, 14, 6},
	{3, 11, 1, 9},
	{15, 7, 13, 5},
};

static inline uint8_t
level_value(uint32_t index, uint32_t levels)
{
	return (uint8_t)(index * 255 / (levels - 1));
}

static inline uint8_t
nearest(int v, uint32_t levels)
{
	if (v <= 0)
		return 0;
	if (v >= 255)
		return 255;
	return level_value(((uint32_t)v * (levels - 1) + 127) / 255, levels);
}

static inline void
store(uint8_t *dst, uint32_t dst_stride, uint32_t bpp, int32_t x, int32_t y, uint8_t v)
{
	if (bpp == 8)
		dst[(size_t)y * dst_stride + x] = v;
	else
		((uint32_t *)(dst + (size_t)y * dst_stride))[x] = v * 0x010101u;
}

static void
diffuse(uint8_t *dst, uint32_t dst_stride, uint32_t bpp, const uint8_t *gray, uint32_t gray_stride,
	const pixman_box32_t *box, uint32_t levels)
{
	const int32_t width = box->x2 - box->x1;
	/* Errors of this row and the next, with a guard pixel on each side. */
	int *errors = calloc(2 * (size_t)(width + 2), sizeof(int));
	if (!errors)
		return;
	int *cur = errors + 1, *next = errors + width + 3;

	for (int32_t y = box->y1; y < box->y2; y++) {
		memset(next - 1, 0, (size_t)(width + 2) * sizeof(int));
		for (int32_t i = 0; i < width; i++) {
			int32_t x = box->x1 + i;
			int want = gray[(size_t)y * gray_stride + x] + cur[i] / 16;
			uint8_t got = nearest(want, levels);
			int err = want - got;
			store(dst, dst_stride, bpp, x, y, got);
			cur[i + 1] += err * 7;
			next[i - 1] += err * 3;
			next[i] += err * 5;
			next[i + 1] += err * 1;
		}
		int *swap = cur;
		cur = next;
		next = swap;
	}
	free(errors);
}

void
vl_epd_quantize(uint8_t *dst, uint32_t dst_stride, uint32_t bpp, const uint8_t *gray,
	uint32_t gray_stride, const pixman_box32_t *box, uint32_t levels, enum vl_epd_dither dither)
{
	if (levels < 2)
		levels = 2;
	if (dither == VL_EPD_DITHER_DIFFUSION) {
		diffuse(dst, dst_stride, bpp, gray, gray_stride, box, levels);
		return;
	}
	for (int32_t y = box->y1; y < box->y2; y++) {
		const uint8_t *row = gray + (size_t)y * gray_stride;
		for (int32_t x = box->x1; x < box->x2; x++) {
			uint8_t v;
			if (dither == VL_EPD_DITHER_ORDERED) {
				uint32_t b = bayer4[y & 3][x & 3];
				uint32_t index = (row[x] * (levels - 1) * 32 + (2 * b + 1) * 255) /
						 (255 * 32);
				v = level_value(index, levels);
			} else {
				v = nearest(row[x], levels);
			}
			store(dst, dst_stride, bpp, x, y, v);
		}
	}
}
