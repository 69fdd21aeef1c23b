// SPDX-License-Identifier: MIT
/*
 * dither: levels only, means kept, ordered stable across rects, in place.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "helpers.h"

static const enum vl_epd_dither methods[] = {
	VL_EPD_DITHER_NONE,
	VL_EPD_DITHER_ORDERED,
	VL_EPD_DITHER_DIFFUSION,
};

/* The panel's quantization, from the epdfb documentation. */
static uint8_t
panel_level(uint8_t v, uint32_t levels)
{
	uint32_t index = (v * (levels - 1) + 127) / 255;
	return (uint8_t)(index * 255 / (levels - 1));
}

static bool
is_level(uint8_t v, uint32_t levels)
{
	return panel_level(v, levels) == v;
}

static void
test_nearest(void **state)
{
	static const uint32_t levels[] = {2, 3, 4, 5, 8, 16, 17, 32, 255};
	struct vl_epd_gray src = gray_new(256, 2, 256, 0), dst = gray_new(256, 2, 256, 0);
	pixman_box32_t box = {0, 0, 256, 2};
	(void)state;

	for (int v = 0; v < 256; v++) {
		*gray_at(&src, v, 0) = (uint8_t)v;
		*gray_at(&src, 255 - v, 1) = (uint8_t)v;
	}
	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		for (int auto_too = 0; auto_too < 2; auto_too++) {
			assert_true(vl_epd_dither(&dst, &src, &box, levels[l],
				auto_too ? VL_EPD_DITHER_AUTO : VL_EPD_DITHER_NONE));
			for (int i = 0; i < 512; i++) {
				uint8_t want = panel_level(src.data[i], levels[l]);
				assert_int_equal(dst.data[i], want);
				assert_int_equal(
					vl_epd_quantize_value(src.data[i], levels[l]), want);
			}
		}
	}
	/* 256 levels (or more) leave pixels as they are. */
	assert_true(vl_epd_dither(&dst, &src, &box, 300, VL_EPD_DITHER_ORDERED));
	assert_memory_equal(dst.data, src.data, 512);
	gray_free(&src);
	gray_free(&dst);
}

/* Flat grays: only levels come out, and the mean stays within tolerance. */
static void
test_levels_and_mean(void **state)
{
	static const uint32_t levels[] = {2, 4, 16, 5};
	enum { N = 64 };
	struct vl_epd_gray src = gray_new(N, N, N, 0), dst = gray_new(N, N, N, 0);
	pixman_box32_t box = {0, 0, N, N};
	(void)state;

	for (size_t m = 1; m < 3; m++) {
		for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
			/* 1/32 of a step for Bayer's 16 thresholds; edges for diffusion. */
			double step = 255.0 / (levels[l] - 1), tolerance = step / 16 + 0.5;
			for (int v = 0; v < 256; v += 5) {
				memset(src.data, v, N * N);
				assert_true(vl_epd_dither(&dst, &src, &box, levels[l], methods[m]));
				double sum = 0;
				for (int i = 0; i < N * N; i++) {
					if (!is_level(dst.data[i], levels[l]))
						fail_msg(
							"method %zu levels %u v %d: %u is no level",
							m, levels[l], v, dst.data[i]);
					sum += dst.data[i];
				}
				double mean = sum / (N * N);
				if (mean < v - tolerance || mean > v + tolerance)
					fail_msg("method %zu levels %u v %d: mean %.2f", m,
						levels[l], v, mean);
			}
		}
	}
	gray_free(&src);
	gray_free(&dst);
}

/* 50% gray on 2 levels: white exactly where the Bayer index is 8 or more. */
static void
test_ordered_pattern(void **state)
{
	static const uint8_t bayer[4][4] = {
		{0, 8, 2, 10}, {12, 4, 14, 6}, {3, 11, 1, 9}, {15, 7, 13, 5}};
	struct vl_epd_gray gray = gray_new(8, 8, 8, 128);
	pixman_box32_t box = {0, 0, 8, 8};
	(void)state;

	assert_true(vl_epd_dither(&gray, &gray, &box, 2, VL_EPD_DITHER_ORDERED));
	for (int32_t y = 0; y < 8; y++) {
		for (int32_t x = 0; x < 8; x++)
			assert_int_equal(*gray_at(&gray, x, y), bayer[y % 4][x % 4] >= 8 ? 255 : 0);
	}
	gray_free(&gray);
}

/* Ordered dithering anchors to the panel: a sub-rect comes out the same alone. */
static void
test_ordered_stable(void **state)
{
	enum { W = 100, H = 70 };
	struct vl_epd_gray src = gray_new(W, H, W, 0), whole = gray_new(W, H, W, 0),
			   part = gray_new(W, H, W, 0);
	pixman_box32_t all = {0, 0, W, H}, sub = {13, 7, 91, 30};
	uint32_t seed = 9;
	(void)state;

	for (int i = 0; i < W * H; i++)
		src.data[i] = (uint8_t)test_random(&seed);
	assert_true(vl_epd_dither(&whole, &src, &all, 4, VL_EPD_DITHER_ORDERED));
	assert_true(vl_epd_dither(&part, &src, &sub, 4, VL_EPD_DITHER_ORDERED));
	for (int32_t y = 0; y < H; y++) {
		for (int32_t x = 0; x < W; x++) {
			bool inside = x >= sub.x1 && x < sub.x2 && y >= sub.y1 && y < sub.y2;
			assert_int_equal(
				*gray_at(&part, x, y), inside ? *gray_at(&whole, x, y) : 0);
		}
	}
	gray_free(&src);
	gray_free(&whole);
	gray_free(&part);
}

/* Pixels on a level, black and white among them, are left alone by ordered dithering. */
static void
test_ordered_keeps_levels(void **state)
{
	struct vl_epd_gray gray = gray_new(16, 16, 16, 0), out = gray_new(16, 16, 16, 1);
	pixman_box32_t box = {0, 0, 16, 16};
	(void)state;

	for (int i = 0; i < 256; i++)
		gray.data[i] = (uint8_t)(i % 16 * 17);
	assert_true(vl_epd_dither(&out, &gray, &box, 16, VL_EPD_DITHER_ORDERED));
	assert_memory_equal(out.data, gray.data, 256);
	gray_fill(&gray, 0, 0, 16, 16, 0);
	gray_fill(&gray, 0, 8, 16, 16, 255);
	assert_true(vl_epd_dither(&out, &gray, &box, 2, VL_EPD_DITHER_ORDERED));
	assert_memory_equal(out.data, gray.data, 256);
	assert_true(vl_epd_dither(&out, &gray, &box, 2, VL_EPD_DITHER_DIFFUSION));
	assert_memory_equal(out.data, gray.data, 256);
	gray_free(&gray);
	gray_free(&out);
}

/* Floyd-Steinberg by hand: 128 on 2 levels, one row of 4. */
static void
test_diffusion_exact(void **state)
{
	struct vl_epd_gray gray = gray_new(4, 1, 4, 128);
	pixman_box32_t box = {0, 0, 4, 1};
	(void)state;

	/* 128 -> 255 (error -127, 7/16 = -55 ahead); 73 -> 0 (+31); 159 -> 255 (-42); 86 -> 0 */
	assert_true(vl_epd_dither(&gray, &gray, &box, 2, VL_EPD_DITHER_DIFFUSION));
	assert_int_equal(gray.data[0], 255);
	assert_int_equal(gray.data[1], 0);
	assert_int_equal(gray.data[2], 255);
	assert_int_equal(gray.data[3], 0);
	gray_free(&gray);
}

/* Serpentine: an odd row runs right to left, so it mirrors an even row. */
static void
test_diffusion_serpentine(void **state)
{
	enum { W = 37 };
	struct vl_epd_gray gray = gray_new(W, 2, W, 0);
	uint32_t seed = 21;
	(void)state;

	for (int32_t x = 0; x < W; x++) {
		uint8_t v = (uint8_t)test_random(&seed);
		*gray_at(&gray, x, 0) = v;
		*gray_at(&gray, W - 1 - x, 1) = v;
	}
	assert_true(vl_epd_dither(
		&gray, &gray, &(pixman_box32_t){0, 0, W, 1}, 4, VL_EPD_DITHER_DIFFUSION));
	assert_true(vl_epd_dither(
		&gray, &gray, &(pixman_box32_t){0, 1, W, 2}, 4, VL_EPD_DITHER_DIFFUSION));
	for (int32_t x = 0; x < W; x++)
		assert_int_equal(*gray_at(&gray, x, 0), *gray_at(&gray, W - 1 - x, 1));
	gray_free(&gray);
}

/* In place and into another image give the same pixels, and nothing outside box changes. */
static void
test_in_place_and_bounds(void **state)
{
	enum { W = 90, H = 40, STRIDE = 96 };
	struct vl_epd_gray src = gray_new(W, H, STRIDE, 0), a = gray_new(W, H, STRIDE, 0),
			   b = gray_new(W, H, STRIDE, 7);
	pixman_box32_t box = {5, 3, 77, 31};
	uint32_t seed = 4;
	(void)state;

	for (size_t m = 0; m < 3; m++) {
		for (int i = 0; i < STRIDE * H; i++)
			src.data[i] = (uint8_t)test_random(&seed);
		memcpy(a.data, src.data, (size_t)STRIDE * H);
		memset(b.data, 7, (size_t)STRIDE * H);
		assert_true(vl_epd_dither(&a, &a, &box, 16, methods[m]));
		assert_true(vl_epd_dither(&b, &src, &box, 16, methods[m]));
		for (int32_t y = 0; y < H; y++) {
			for (int32_t x = 0; x < STRIDE; x++) {
				bool inside =
					x >= box.x1 && x < box.x2 && y >= box.y1 && y < box.y2;
				assert_int_equal(*gray_at(&a, x, y),
					inside ? *gray_at(&b, x, y) : *gray_at(&src, x, y));
				if (!inside)
					assert_int_equal(*gray_at(&b, x, y), 7);
			}
		}
	}
	gray_free(&src);
	gray_free(&a);
	gray_free(&b);
}

static void
test_bad_inputs(void **state)
{
	struct vl_epd_gray gray = gray_new(8, 8, 8, 100), other = gray_new(9, 8, 9, 100);
	struct vl_epd_gray bad = {NULL, 8, 8, 8};
	pixman_box32_t box = {0, 0, 8, 8};
	(void)state;

	assert_false(vl_epd_dither(&gray, &gray, &box, 1, VL_EPD_DITHER_NONE));
	assert_false(vl_epd_dither(&gray, &gray, &box, 0, VL_EPD_DITHER_ORDERED));
	assert_false(vl_epd_dither(NULL, &gray, &box, 2, VL_EPD_DITHER_NONE));
	assert_false(vl_epd_dither(&gray, NULL, &box, 2, VL_EPD_DITHER_NONE));
	assert_false(vl_epd_dither(&bad, &gray, &box, 2, VL_EPD_DITHER_NONE));
	assert_false(vl_epd_dither(&gray, &gray, NULL, 2, VL_EPD_DITHER_NONE));
	assert_false(vl_epd_dither(&other, &gray, &box, 2, VL_EPD_DITHER_NONE));
	assert_false(vl_epd_dither(
		&gray, &gray, &(pixman_box32_t){2, 2, 2, 2}, 2, VL_EPD_DITHER_DIFFUSION));
	assert_false(
		vl_epd_dither(&gray, &gray, &(pixman_box32_t){8, 0, 9, 8}, 2, VL_EPD_DITHER_NONE));
	for (int i = 0; i < 64; i++)
		assert_int_equal(gray.data[i], 100);
	/* Partly outside: clipped. */
	for (size_t m = 0; m < 3; m++) {
		gray_fill(&gray, 0, 0, 8, 8, 200);
		assert_true(vl_epd_dither(
			&gray, &gray, &(pixman_box32_t){-3, 6, 2, 30}, 2, methods[m]));
		for (int32_t y = 0; y < 8; y++) {
			for (int32_t x = 0; x < 8; x++) {
				uint8_t v = *gray_at(&gray, x, y);
				if (x < 2 && y >= 6)
					assert_true(v == 0 || v == 255);
				else
					assert_int_equal(v, 200);
			}
		}
	}
	gray_free(&gray);
	gray_free(&other);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nearest),
		cmocka_unit_test(test_levels_and_mean),
		cmocka_unit_test(test_ordered_pattern),
		cmocka_unit_test(test_ordered_stable),
		cmocka_unit_test(test_ordered_keeps_levels),
		cmocka_unit_test(test_diffusion_exact),
		cmocka_unit_test(test_diffusion_serpentine),
		cmocka_unit_test(test_in_place_and_bounds),
		cmocka_unit_test(test_bad_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
