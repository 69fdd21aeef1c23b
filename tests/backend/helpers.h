/* SPDX-License-Identifier: MIT */
/*
 * Gray images for the pipeline's unit tests.
 */
#ifndef VL_TEST_HELPERS_H
#define VL_TEST_HELPERS_H

#include <stdlib.h>
#include <string.h>
#include <vellum/epd-pipeline.h>

/* stride >= width; the padding holds pad_value, to catch writes into it. */
static inline struct vl_epd_gray
gray_new(int32_t width, int32_t height, int32_t stride, uint8_t value)
{
	struct vl_epd_gray gray = {
		.data = malloc((size_t)stride * height),
		.width = width,
		.height = height,
		.stride = stride,
	};
	if (gray.data)
		memset(gray.data, value, (size_t)stride * height);
	return gray;
}

static inline void
gray_free(struct vl_epd_gray *gray)
{
	free(gray->data);
	gray->data = NULL;
}

static inline uint8_t *
gray_at(const struct vl_epd_gray *gray, int32_t x, int32_t y)
{
	return gray->data + (size_t)y * gray->stride + x;
}

static inline void
gray_fill(const struct vl_epd_gray *gray, int32_t x1, int32_t y1, int32_t x2, int32_t y2,
	uint8_t value)
{
	for (int32_t y = y1; y < y2; y++)
		memset(gray_at(gray, x1, y), value, (size_t)(x2 - x1));
}

/* A deterministic pseudo-random sequence (xorshift32). */
static inline uint32_t
test_random(uint32_t *state)
{
	uint32_t x = *state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

#define assert_box_equal(box, X1, Y1, X2, Y2)     \
	do {                                      \
		const pixman_box32_t *b_ = (box); \
		assert_int_equal(b_->x1, (X1));   \
		assert_int_equal(b_->y1, (Y1));   \
		assert_int_equal(b_->x2, (X2));   \
		assert_int_equal(b_->y2, (Y2));   \
	} while (0)

#endif
