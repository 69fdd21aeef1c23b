// SPDX-License-Identifier: MIT
/*
 * gray: XRGB8888 to luma, exactly y = (77 R + 150 G + 29 B) >> 8; RGB565
 * to the same luma as the XRGB8888 picture it widens to.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "helpers.h"

/* The documented formula, written out independently of the library. */
static uint8_t
formula(uint32_t p)
{
	uint32_t r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;
	return (uint8_t)((77 * r + 150 * g + 29 * b) >> 8);
}

static void
test_known_values(void **state)
{
	static const struct {
		uint32_t xrgb;
		uint8_t y;
	} cases[] = {
		{0x00000000, 0},
		{0x00ffffff, 255},
		{0xffffffff, 255}, /* X is ignored */
		{0x00ff0000, 76},  /* 77 * 255 >> 8 */
		{0x0000ff00, 149}, /* 150 * 255 >> 8 */
		{0x000000ff, 28},  /* 29 * 255 >> 8 */
		{0x00808080, 128},
		{0x80808080, 128},
		{0x00010101, 1},
		{0x00fefefe, 254},
		{0x00123456, (77 * 0x12 + 150 * 0x34 + 29 * 0x56) >> 8},
	};
	uint32_t xrgb[16];
	struct vl_epd_gray gray = gray_new(16, 1, 16, 0xaa);
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		xrgb[i] = cases[i].xrgb;
		assert_int_equal(vl_epd_luma(cases[i].xrgb), cases[i].y);
	}
	pixman_box32_t box = {0, 0, (int32_t)(sizeof(cases) / sizeof(cases[0])), 1};
	assert_true(vl_epd_gray_convert(&gray, xrgb, sizeof(xrgb), &box));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(gray.data[i], cases[i].y);
	gray_free(&gray);
}

/* Every 18-bit sample of the RGB cube (the top 6 bits of each channel and the low ones varied). */
static void
test_formula_exhaustive(void **state)
{
	enum { W = 512, H = 512 };
	uint32_t *xrgb = malloc((size_t)W * H * 4);
	struct vl_epd_gray gray = gray_new(W, H, W, 0);
	uint32_t seed = 1;
	(void)state;

	assert_non_null(xrgb);
	for (uint32_t i = 0; i < W * H; i++) {
		uint32_t r = (i >> 12) & 63, g = (i >> 6) & 63, b = i & 63;
		uint32_t low = test_random(&seed);
		xrgb[i] = (low & 0xff000000) | ((r << 2 | (low & 3)) << 16) |
			  ((g << 2 | ((low >> 2) & 3)) << 8) | (b << 2 | ((low >> 4) & 3));
	}
	pixman_box32_t box = {0, 0, W, H};
	assert_true(vl_epd_gray_convert(&gray, xrgb, W * 4, &box));
	for (uint32_t i = 0; i < W * H; i++) {
		if (gray.data[i] != formula(xrgb[i]))
			fail_msg("pixel %u: 0x%08x gave %u, want %u", i, xrgb[i], gray.data[i],
				formula(xrgb[i]));
	}
	free(xrgb);
	gray_free(&gray);
}

/* Rects of every width 1..40 at every alignment: the vector body, its tail, nothing else. */
static void
test_rect_edges_and_strides(void **state)
{
	enum { W = 64, H = 4, XSTRIDE = 80, GSTRIDE = 70 };
	uint32_t xrgb[H * XSTRIDE];
	uint32_t seed = 7;
	(void)state;

	for (size_t i = 0; i < sizeof(xrgb) / sizeof(xrgb[0]); i++)
		xrgb[i] = test_random(&seed);
	for (int32_t x1 = 0; x1 < 8; x1++) {
		for (int32_t w = 1; w <= 40; w++) {
			struct vl_epd_gray gray = gray_new(W, H, GSTRIDE, 0x5a);
			pixman_box32_t box = {x1, 1, x1 + w, 3};
			assert_true(vl_epd_gray_convert(&gray, xrgb, XSTRIDE * 4, &box));
			for (int32_t y = 0; y < H; y++) {
				for (int32_t x = 0; x < GSTRIDE; x++) {
					bool inside = x >= x1 && x < x1 + w && y >= 1 && y < 3;
					uint8_t want =
						inside ? formula(xrgb[y * XSTRIDE + x]) : 0x5a;
					assert_int_equal(*gray_at(&gray, x, y), want);
				}
			}
			gray_free(&gray);
		}
	}
}

/* An RGB565 pixel as XRGB8888, each channel's top bits repeated below it. */
static uint32_t
widen_rgb565(uint16_t p)
{
	uint32_t r = p >> 11, g = (p >> 5) & 0x3f, b = p & 0x1f;

	return (r << 3 | r >> 2) << 16 | (g << 2 | g >> 4) << 8 | (b << 3 | b >> 2);
}

/* Every RGB565 value gives the gray its widened XRGB8888 picture gives. */
static void
test_rgb565_matches_xrgb8888(void **state)
{
	enum { W = 256, H = 256 };
	uint16_t *rgb565 = malloc((size_t)W * H * 2);
	uint32_t *xrgb = malloc((size_t)W * H * 4);
	struct vl_epd_gray from_565 = gray_new(W, H, W, 0x11), from_8888 = gray_new(W, H, W, 0x22);
	pixman_box32_t box = {0, 0, W, H};
	(void)state;

	assert_non_null(rgb565);
	assert_non_null(xrgb);
	for (uint32_t i = 0; i < W * H; i++) {
		rgb565[i] = (uint16_t)i;
		xrgb[i] = widen_rgb565((uint16_t)i);
	}
	assert_true(vl_epd_gray_convert_rgb565(&from_565, rgb565, W * 2, &box));
	assert_true(vl_epd_gray_convert(&from_8888, xrgb, W * 4, &box));
	for (uint32_t i = 0; i < W * H; i++) {
		if (from_565.data[i] != from_8888.data[i])
			fail_msg("RGB565 0x%04x gave %u, its XRGB8888 0x%08x %u", i,
				from_565.data[i], xrgb[i], from_8888.data[i]);
	}
	/* black and white stay exact */
	assert_int_equal(from_565.data[0], 0);
	assert_int_equal(from_565.data[0xffff], 255);
	free(rgb565);
	free(xrgb);
	gray_free(&from_565);
	gray_free(&from_8888);
}

/* The same picture in both formats, rects of every width and alignment, padded strides. */
static void
test_rgb565_rect_edges_and_strides(void **state)
{
	enum { W = 64, H = 4, STRIDE_565 = 75, XSTRIDE = 80, GSTRIDE = 70 };
	uint16_t rgb565[H * STRIDE_565];
	uint32_t xrgb[H * XSTRIDE];
	uint32_t seed = 11;
	(void)state;

	for (int32_t y = 0; y < H; y++) {
		for (int32_t x = 0; x < STRIDE_565; x++) {
			rgb565[y * STRIDE_565 + x] = (uint16_t)test_random(&seed);
			if (x < XSTRIDE)
				xrgb[y * XSTRIDE + x] = widen_rgb565(rgb565[y * STRIDE_565 + x]);
		}
	}
	for (int32_t x1 = 0; x1 < 8; x1++) {
		for (int32_t w = 1; w <= 40; w++) {
			struct vl_epd_gray a = gray_new(W, H, GSTRIDE, 0x5a);
			struct vl_epd_gray b = gray_new(W, H, GSTRIDE, 0x5a);
			pixman_box32_t box = {x1, 1, x1 + w, 3};
			assert_true(vl_epd_gray_convert_rgb565(&a, rgb565, STRIDE_565 * 2, &box));
			assert_true(vl_epd_gray_convert(&b, xrgb, XSTRIDE * 4, &box));
			assert_memory_equal(a.data, b.data, (size_t)GSTRIDE * H);
			gray_free(&a);
			gray_free(&b);
		}
	}
}

static void
test_rgb565_bad_inputs(void **state)
{
	uint16_t rgb565[8 * 8 + 1];
	struct vl_epd_gray gray = gray_new(8, 8, 8, 0x11);
	struct vl_epd_gray bad = {NULL, 8, 8, 8};
	pixman_box32_t box = {0, 0, 8, 8}, empty = {3, 3, 3, 5}, outside = {8, 0, 20, 8};
	(void)state;

	for (int i = 0; i < 8 * 8 + 1; i++)
		rgb565[i] = 0xffff;
	assert_false(vl_epd_gray_convert_rgb565(NULL, rgb565, 16, &box));
	assert_false(vl_epd_gray_convert_rgb565(&bad, rgb565, 16, &box));
	assert_false(vl_epd_gray_convert_rgb565(&gray, NULL, 16, &box));
	assert_false(vl_epd_gray_convert_rgb565(&gray, rgb565, 16, NULL));
	assert_false(vl_epd_gray_convert_rgb565(&gray, rgb565, 15, &box)); /* not 2-byte aligned */
	assert_false(vl_epd_gray_convert_rgb565(&gray, rgb565, 14, &box)); /* shorter than a row */
	assert_false(vl_epd_gray_convert_rgb565(&gray, (const uint8_t *)rgb565 + 1, 16, &box));
	assert_false(vl_epd_gray_convert_rgb565(&gray, rgb565, 16, &empty));
	assert_false(vl_epd_gray_convert_rgb565(&gray, rgb565, 16, &outside));
	for (int i = 0; i < 64; i++)
		assert_int_equal(gray.data[i], 0x11);
	gray_free(&gray);
}

static void
test_region_rgb565(void **state)
{
	enum { W = 40, H = 30 };
	uint16_t rgb565[W * H];
	struct vl_epd_gray gray = gray_new(W, H, W, 0x33);
	pixman_region32_t damage;
	(void)state;

	for (int i = 0; i < W * H; i++)
		rgb565[i] = 0x8410; /* widened: 0x848284 */
	pixman_region32_init_rect(&damage, 2, 3, 5, 4);
	pixman_region32_union_rect(&damage, &damage, 30, 20, 20, 20); /* partly outside */
	vl_epd_gray_convert_region(&gray, rgb565, W * 2, VL_EPD_PIXEL_RGB565, &damage);
	for (int32_t y = 0; y < H; y++) {
		for (int32_t x = 0; x < W; x++) {
			bool inside = (x >= 2 && x < 7 && y >= 3 && y < 7) || (x >= 30 && y >= 20);
			assert_int_equal(*gray_at(&gray, x, y), inside ? formula(0x848284) : 0x33);
		}
	}
	pixman_region32_fini(&damage);
	gray_free(&gray);
}

static void
test_region(void **state)
{
	enum { W = 40, H = 30 };
	uint32_t xrgb[W * H];
	struct vl_epd_gray gray = gray_new(W, H, W, 0x33);
	pixman_region32_t damage;
	(void)state;

	for (int i = 0; i < W * H; i++)
		xrgb[i] = 0x00ffffff;
	pixman_region32_init_rect(&damage, 2, 3, 5, 4);
	pixman_region32_union_rect(&damage, &damage, 30, 20, 20, 20); /* partly outside */
	vl_epd_gray_convert_region(&gray, xrgb, W * 4, VL_EPD_PIXEL_XRGB8888, &damage);
	for (int32_t y = 0; y < H; y++) {
		for (int32_t x = 0; x < W; x++) {
			bool inside = (x >= 2 && x < 7 && y >= 3 && y < 7) || (x >= 30 && y >= 20);
			assert_int_equal(*gray_at(&gray, x, y), inside ? 255 : 0x33);
		}
	}
	pixman_region32_fini(&damage);
	gray_free(&gray);
}

static void
test_expand_round_trip(void **state)
{
	uint32_t xrgb[256];
	struct vl_epd_gray gray = gray_new(256, 1, 256, 0), back = gray_new(256, 1, 256, 0);
	pixman_box32_t box = {0, 0, 256, 1};
	(void)state;

	for (int v = 0; v < 256; v++)
		gray.data[v] = (uint8_t)v;
	assert_true(vl_epd_gray_expand(xrgb, sizeof(xrgb), &gray, &box));
	for (int v = 0; v < 256; v++)
		assert_int_equal(xrgb[v], (uint32_t)v * 0x010101u);
	assert_true(vl_epd_gray_convert(&back, xrgb, sizeof(xrgb), &box));
	assert_memory_equal(back.data, gray.data, 256);
	gray_free(&gray);
	gray_free(&back);
}

static void
test_bad_inputs(void **state)
{
	uint32_t xrgb[8 * 8];
	struct vl_epd_gray gray = gray_new(8, 8, 8, 0x11);
	struct vl_epd_gray bad = {NULL, 8, 8, 8};
	pixman_box32_t box = {0, 0, 8, 8};
	(void)state;

	for (int i = 0; i < 64; i++)
		xrgb[i] = 0x00ffffff;
	assert_false(vl_epd_gray_convert(NULL, xrgb, 32, &box));
	assert_false(vl_epd_gray_convert(&bad, xrgb, 32, &box));
	assert_false(vl_epd_gray_convert(&gray, NULL, 32, &box));
	assert_false(vl_epd_gray_convert(&gray, xrgb, 32, NULL));
	assert_false(vl_epd_gray_convert(&gray, xrgb, 30, &box)); /* not 4-byte aligned */
	assert_false(vl_epd_gray_convert(&gray, xrgb, 16, &box)); /* shorter than a row */
	assert_false(vl_epd_gray_convert(&gray, (const uint8_t *)xrgb + 1, 32, &box));
	pixman_box32_t empty = {3, 3, 3, 5}, inverted = {5, 5, 2, 2}, outside = {8, 0, 20, 8};
	assert_false(vl_epd_gray_convert(&gray, xrgb, 32, &empty));
	assert_false(vl_epd_gray_convert(&gray, xrgb, 32, &inverted));
	assert_false(vl_epd_gray_convert(&gray, xrgb, 32, &outside));
	for (int i = 0; i < 64; i++)
		assert_int_equal(gray.data[i], 0x11);

	pixman_box32_t partly = {-4, 6, 3, 100};
	assert_true(vl_epd_gray_convert(&gray, xrgb, 32, &partly));
	for (int32_t y = 0; y < 8; y++) {
		for (int32_t x = 0; x < 8; x++)
			assert_int_equal(*gray_at(&gray, x, y), x < 3 && y >= 6 ? 255 : 0x11);
	}
	assert_false(vl_epd_gray_convert_region(&gray, xrgb, 32, VL_EPD_PIXEL_XRGB8888, NULL));
	pixman_region32_t region;
	pixman_region32_init_rect(&region, 0, 0, 8, 8);
	assert_false(vl_epd_gray_convert_region(&gray, xrgb, 30, VL_EPD_PIXEL_XRGB8888, &region));
	assert_true(vl_epd_gray_convert_region(&gray, xrgb, 32, VL_EPD_PIXEL_XRGB8888, &region));
	pixman_region32_fini(&region);
	assert_false(vl_epd_gray_expand(NULL, 32, &gray, &box));
	assert_false(vl_epd_gray_expand(xrgb, 32, NULL, &box));
	gray_free(&gray);
}

/* What a buffer must be for the gray stage to read it: alignment and stride. */
static void
test_can_convert(void **state)
{
	static uint32_t pixels[16];
	(void)state;

	assert_true(vl_epd_gray_can_convert(pixels, 32, 8, VL_EPD_PIXEL_XRGB8888));
	assert_true(vl_epd_gray_can_convert(pixels, 64, 8, VL_EPD_PIXEL_XRGB8888));
	assert_false(vl_epd_gray_can_convert(pixels, 28, 8, VL_EPD_PIXEL_XRGB8888));
	assert_false(vl_epd_gray_can_convert(pixels, 34, 8, VL_EPD_PIXEL_XRGB8888));
	assert_false(vl_epd_gray_can_convert((uint8_t *)pixels + 2, 32, 8, VL_EPD_PIXEL_XRGB8888));
	assert_false(vl_epd_gray_can_convert(NULL, 32, 8, VL_EPD_PIXEL_XRGB8888));
	assert_false(
		vl_epd_gray_can_convert(pixels, (size_t)INT32_MAX + 1, 8, VL_EPD_PIXEL_XRGB8888));
	assert_true(vl_epd_gray_can_convert(pixels, 16, 8, VL_EPD_PIXEL_RGB565));
	assert_false(vl_epd_gray_can_convert(pixels, 14, 8, VL_EPD_PIXEL_RGB565));
	assert_false(vl_epd_gray_can_convert(pixels, 17, 8, VL_EPD_PIXEL_RGB565));
	assert_false(vl_epd_gray_can_convert((uint8_t *)pixels + 1, 16, 8, VL_EPD_PIXEL_RGB565));
	assert_false(vl_epd_gray_can_convert(pixels, 32, 0, VL_EPD_PIXEL_XRGB8888));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_values),
		cmocka_unit_test(test_formula_exhaustive),
		cmocka_unit_test(test_rect_edges_and_strides),
		cmocka_unit_test(test_region),
		cmocka_unit_test(test_rgb565_matches_xrgb8888),
		cmocka_unit_test(test_rgb565_rect_edges_and_strides),
		cmocka_unit_test(test_rgb565_bad_inputs),
		cmocka_unit_test(test_region_rgb565),
		cmocka_unit_test(test_expand_round_trip),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_can_convert),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
