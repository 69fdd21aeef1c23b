// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * epdfb - pixel conversion: framebuffer to gray, inversion, dithering and
 * quantization to a waveform's gray levels
 */

#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "epdfb_drv.h"

/* 4x4 Bayer threshold map, values 0..15. */
static const u8 epdfb_bayer4[4][4] = {
	{ 0, 8, 2, 10 },
	{ 12, 4, 14, 6 },
	{ 3, 11, 1, 9 },
	{ 15, 7, 13, 5 },
};

/* ITU-R BT.601 luma in 8-bit fixed point: weights sum to 256. */
static inline u8 epdfb_xrgb_to_gray(u32 px)
{
	return (77 * ((px >> 16) & 0xff) + 150 * ((px >> 8) & 0xff) +
		29 * (px & 0xff)) >> 8;
}

static inline u8 epdfb_level_value(u32 index, u32 levels)
{
	return index * 255 / (levels - 1);
}

/*
 * Ordered dither: the threshold (2b + 1) / 32 of a level step is added
 * before truncating, so a flat gray becomes a stable pattern of the two
 * nearest levels.
 */
static void epdfb_dither_ordered(u8 *pixels, size_t stride,
				 const struct mxcfb_rect *rect, u32 levels)
{
	u32 x, y, index, b;
	u8 *p;

	for (y = rect->top; y < rect->top + rect->height; y++) {
		cond_resched();
		p = pixels + (y - rect->top) * stride;
		for (x = rect->left; x < rect->left + rect->width; x++, p++) {
			b = epdfb_bayer4[y & 3][x & 3];
			index = (*p * (levels - 1) * 32 + (2 * b + 1) * 255) /
				(255 * 32);
			*p = epdfb_level_value(index, levels);
		}
	}
}

/**
 * epdfb_pixels_capture_into() - copy a rect of the framebuffer as 8-bit gray
 * @par: device
 * @rect: area, inside the framebuffer
 * @flags: EPDC_FLAG_* inversion and dithering flags to apply
 * @pixels: where the rect's first pixel goes
 * @stride: bytes from one row of @pixels to the next
 *
 * Allocates nothing: an update that starts takes its pixels with it.
 */
void epdfb_pixels_capture_into(const struct epdfb_par *par,
			       const struct mxcfb_rect *rect, u32 flags,
			       u8 *pixels, size_t stride)
{
	const u8 *row;
	u8 *dst;
	u32 x, y;

	for (y = rect->top; y < rect->top + rect->height; y++) {
		cond_resched();
		row = par->screen + (size_t)y * par->line_length;
		dst = pixels + (y - rect->top) * stride;
		if (par->bpp == 8)
			memcpy(dst, row + rect->left, rect->width);
		else
			for (x = rect->left; x < rect->left + rect->width; x++)
				*dst++ = epdfb_xrgb_to_gray(((const u32 *)row)[x]);
		if (flags & EPDC_FLAG_ENABLE_INVERSION)
			for (dst = pixels + (y - rect->top) * stride, x = 0;
			     x < rect->width; x++, dst++)
				*dst = 255 - *dst;
	}

	if (flags & EPDC_FLAG_USE_DITHERING_Y1)
		epdfb_dither_ordered(pixels, stride, rect, 2);
	else if (flags & EPDC_FLAG_USE_DITHERING_Y4)
		epdfb_dither_ordered(pixels, stride, rect, 16);
}

/**
 * epdfb_pixels_capture() - copy a rect of the framebuffer as 8-bit gray
 * @par: device
 * @rect: area, inside the framebuffer
 * @flags: EPDC_FLAG_* inversion and dithering flags to apply
 *
 * Return: a kvmalloc'ed rect-sized buffer, or NULL without memory.
 */
u8 *epdfb_pixels_capture(const struct epdfb_par *par,
			 const struct mxcfb_rect *rect, u32 flags)
{
	u8 *pixels = kvmalloc((size_t)rect->width * rect->height, GFP_KERNEL);

	if (pixels)
		epdfb_pixels_capture_into(par, rect, flags, pixels,
					  rect->width);
	return pixels;
}

/**
 * epdfb_pixels_monochrome() - whether every pixel is black or white
 * @pixels: gray pixels
 * @width: pixels in a row
 * @height: rows
 * @stride: bytes from one row to the next
 *
 * Return: true if each pixel is 0 or 255.
 */
bool epdfb_pixels_monochrome(const u8 *pixels, u32 width, u32 height,
			     size_t stride)
{
	const u8 *row;
	u32 x, y;

	for (y = 0; y < height; y++) {
		cond_resched();
		row = pixels + y * stride;
		for (x = 0; x < width; x++)
			if (row[x] != 0 && row[x] != 255)
				return false;
	}
	return true;
}

/**
 * epdfb_pixels_quantize() - round gray pixels to a waveform's levels
 * @pixels: gray pixels, rewritten in place
 * @width: pixels in a row
 * @height: rows
 * @stride: bytes from one row to the next
 * @levels: gray levels, 2 to 256
 */
void epdfb_pixels_quantize(u8 *pixels, u32 width, u32 height, size_t stride,
			   u32 levels)
{
	u8 map[256];
	u32 v, x, y;
	u8 *row;

	for (v = 0; v < 256; v++)
		map[v] = epdfb_level_value((v * (levels - 1) + 127) / 255, levels);
	for (y = 0; y < height; y++) {
		cond_resched();
		row = pixels + y * stride;
		for (x = 0; x < width; x++)
			row[x] = map[row[x]];
	}
}
