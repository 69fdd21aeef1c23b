// SPDX-License-Identifier: MIT
/*
 * Quantization to the waveform's gray levels, the last stage before the
 * framebuffer. The panel would quantize to its nearest level anyway;
 * dithering first trades that banding for texture.
 */
#include <stdlib.h>
#include <string.h>
#include <vellum/epd-pipeline.h>

#include "clones.h"

/* Pixels per vectorized chunk: a multiple of the 4-px Bayer period. */
#define CHUNK 32

static const uint8_t bayer[4][4] = {
	{0, 8, 2, 10},
	{12, 4, 14, 6},
	{3, 11, 1, 9},
	{15, 7, 13, 5},
};

/*
 * A pixel v becomes level index (v (levels - 1) + t) / 255 with t in
 * [0, 255): t = 127 rounds to the nearest level, as the panel does; the
 * Bayer thresholds (2 b + 1) 255 / 32 average 127 too, so flat areas keep
 * their mean, and pixels on a level (v (levels - 1) a multiple of 255) stay.
 */
static uint16_t
threshold(enum vl_epd_dither method, int32_t x, int32_t y)
{
	if (method != VL_EPD_DITHER_ORDERED)
		return 127;
	return (uint16_t)((2 * bayer[y & 3][x & 3] + 1) * 255 / 32);
}

/*
 * For levels with an integer step 255 / (levels - 1) (2, 4, 16: every
 * waveform's), all in 16-bit lanes; t / 255 is (t + 1 + (t >> 8)) >> 8 for
 * t < 65535. src is copied to a local chunk first: in place, dst is src,
 * and GCC vectorizes at -O2 only what it can prove does not alias.
 */
VL_EPD_VECTOR_CLONES static void
row_step(uint8_t *dst, const uint8_t *src, int32_t n, int32_t x0, int32_t y, uint16_t mul,
	uint16_t step, enum vl_epd_dither method)
{
	uint8_t in[CHUNK];
	uint16_t thr[CHUNK];
	int32_t x = 0;

	for (int32_t i = 0; i < CHUNK; i++)
		thr[i] = threshold(method, x0 + i, y);
	for (; x + CHUNK <= n; x += CHUNK) {
		memcpy(in, src + x, CHUNK);
		for (int32_t i = 0; i < CHUNK; i++) {
			uint16_t t = (uint16_t)(in[i] * mul + thr[i]);
			uint16_t index = (uint16_t)((uint16_t)(t + 1 + (t >> 8)) >> 8);
			dst[x + i] = (uint8_t)(index * step);
		}
	}
	for (; x < n; x++) {
		uint32_t t = src[x] * mul + thr[x % CHUNK];
		dst[x] = (uint8_t)(t / 255 * step);
	}
}

/* Any other number of levels. */
static void
row_generic(uint8_t *dst, const uint8_t *src, int32_t n, int32_t x0, int32_t y, uint32_t levels,
	enum vl_epd_dither method)
{
	for (int32_t x = 0; x < n; x++) {
		uint32_t index = (src[x] * (levels - 1) + threshold(method, x0 + x, y)) / 255;
		dst[x] = (uint8_t)(index * 255 / (levels - 1));
	}
}

/*
 * Floyd-Steinberg: the error of each pixel goes 7/16 ahead, 3/16, 5/16 and
 * 1/16 to the row below (behind, under, ahead). Integer shares, the last
 * one taking the remainder, so no error is lost inside the rect.
 */
static bool
diffuse(const struct vl_epd_gray *dst, const struct vl_epd_gray *src, const pixman_box32_t *b,
	uint32_t levels)
{
	const int32_t w = b->x2 - b->x1;
	/* One guard cell each side: the error that leaves the rect is dropped there. */
	int32_t *err = calloc(2 * ((size_t)w + 2), sizeof(*err));

	if (!err)
		return false;
	int32_t *cur = err + 1, *next = err + w + 3;
	for (int32_t y = b->y1; y < b->y2; y++) {
		const uint8_t *s = src->data + (size_t)y * src->stride + b->x1;
		uint8_t *d = dst->data + (size_t)y * dst->stride + b->x1;
		const int32_t dir = (y & 1) ? -1 : 1;
		int32_t x = dir > 0 ? 0 : w - 1;

		memset(next - 1, 0, ((size_t)w + 2) * sizeof(*next));
		for (int32_t i = 0; i < w; i++, x += dir) {
			int32_t v = s[x] + cur[x];
			v = v < 0 ? 0 : v > 255 ? 255 : v;
			uint8_t q = vl_epd_quantize_value((uint8_t)v, levels);
			int32_t e = v - q;
			int32_t e7 = e * 7 / 16, e3 = e * 3 / 16, e5 = e * 5 / 16;
			d[x] = q;
			cur[x + dir] += e7;
			next[x - dir] += e3;
			next[x] += e5;
			next[x + dir] += e - e7 - e3 - e5;
		}
		int32_t *swap = cur;
		cur = next;
		next = swap;
	}
	free(err);
	return true;
}

bool
vl_epd_dither(const struct vl_epd_gray *dst, const struct vl_epd_gray *src,
	const pixman_box32_t *box, uint32_t levels, enum vl_epd_dither method)
{
	if (!vl_epd_gray_valid(dst) || !vl_epd_gray_valid(src) || !box || levels < 2)
		return false;
	if (dst->width != src->width || dst->height != src->height)
		return false;
	pixman_box32_t b = *box;
	if (!vl_epd_box_clip(&b, src->width, src->height))
		return false;
	if (levels > 256)
		levels = 256;

	const int32_t w = b.x2 - b.x1;
	if (levels == 256) {
		for (int32_t y = b.y1; y < b.y2 && dst->data != src->data; y++)
			memcpy(dst->data + (size_t)y * dst->stride + b.x1,
				src->data + (size_t)y * src->stride + b.x1, w);
		return true;
	}
	if (method == VL_EPD_DITHER_DIFFUSION)
		return diffuse(dst, src, &b, levels);

	for (int32_t y = b.y1; y < b.y2; y++) {
		const uint8_t *s = src->data + (size_t)y * src->stride + b.x1;
		uint8_t *d = dst->data + (size_t)y * dst->stride + b.x1;
		if (255 % (levels - 1) == 0)
			row_step(d, s, w, b.x1, y, (uint16_t)(levels - 1),
				(uint16_t)(255 / (levels - 1)), method);
		else
			row_generic(d, s, w, b.x1, y, levels, method);
	}
	return true;
}
