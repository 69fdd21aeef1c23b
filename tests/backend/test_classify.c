// SPDX-License-Identifier: MIT
/*
 * classify: MONO exactly; GRAY when 16 values cover 7/8 of the pixels; else IMAGE.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "helpers.h"

static void
test_mono(void **state)
{
	struct vl_epd_gray gray = gray_new(100, 50, 104, 0);
	pixman_box32_t box = {0, 0, 100, 50};
	(void)state;

	assert_int_equal(vl_epd_classify(&gray, &box), VL_EPD_CONTENT_MONO);
	gray_fill(&gray, 0, 0, 100, 50, 255);
	assert_int_equal(vl_epd_classify(&gray, &box), VL_EPD_CONTENT_MONO);
	for (int32_t y = 0; y < 50; y++) {
		for (int32_t x = 0; x < 100; x++)
			*gray_at(&gray, x, y) = ((x / 3 + y) & 1) ? 255 : 0;
	}
	assert_int_equal(vl_epd_classify(&gray, &box), VL_EPD_CONTENT_MONO);
	/* One pixel off black and white, in the scalar tail of the last row. */
	*gray_at(&gray, 99, 49) = 254;
	assert_int_equal(vl_epd_classify(&gray, &box), VL_EPD_CONTENT_GRAY);
	*gray_at(&gray, 99, 49) = 1;
	assert_int_equal(vl_epd_classify(&gray, &box), VL_EPD_CONTENT_GRAY);
	/* The stride's padding is not content. */
	*gray_at(&gray, 99, 49) = 0;
	*gray_at(&gray, 101, 10) = 128;
	assert_int_equal(vl_epd_classify(&gray, &box), VL_EPD_CONTENT_MONO);
	gray_free(&gray);
}

/* Black strokes on white with antialiased edges of many different grays. */
static void
test_text_like_is_gray(void **state)
{
	struct vl_epd_gray gray = gray_new(200, 60, 200, 255);
	pixman_box32_t box = {0, 0, 200, 60};
	uint32_t seed = 3;
	(void)state;

	for (int32_t glyph = 0; glyph < 20; glyph++) {
		int32_t x = 4 + glyph * 10;
		gray_fill(&gray, x, 15, x + 2, 45, 0);
		gray_fill(&gray, x, 15, x + 6, 17, 0);
		/* An edge pixel every 4 rows, of a random gray. */
		for (int32_t y = 15; y < 45; y += 4)
			*gray_at(&gray, x + 2, y) = (uint8_t)(1 + test_random(&seed) % 254);
	}
	assert_int_equal(vl_epd_classify(&gray, &box), VL_EPD_CONTENT_GRAY);
	gray_free(&gray);
}

static void
test_sixteen_level_steps_are_gray(void **state)
{
	struct vl_epd_gray gray = gray_new(256, 8, 256, 0);
	pixman_box32_t box = {0, 0, 256, 8};
	(void)state;

	for (int32_t y = 0; y < 8; y++) {
		for (int32_t x = 0; x < 256; x++)
			*gray_at(&gray, x, y) = (uint8_t)(x / 16 * 17);
	}
	assert_int_equal(vl_epd_classify(&gray, &box), VL_EPD_CONTENT_GRAY);
	gray_free(&gray);
}

static void
test_photo_like_ramp_is_image(void **state)
{
	struct vl_epd_gray gray = gray_new(300, 100, 300, 0);
	pixman_box32_t box = {0, 0, 300, 100};
	uint32_t seed = 11;
	(void)state;

	for (int32_t y = 0; y < 100; y++) {
		for (int32_t x = 0; x < 300; x++) {
			int v = x * 255 / 299 + (int)(test_random(&seed) % 9) - 4;
			*gray_at(&gray, x, y) = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
		}
	}
	assert_int_equal(vl_epd_classify(&gray, &box), VL_EPD_CONTENT_IMAGE);
	gray_free(&gray);
}

/* The 7/8 rule at its edge: 224 of 256 pixels in 16 values is GRAY, 223 is not. */
static void
test_share_threshold(void **state)
{
	struct vl_epd_gray gray = gray_new(256, 1, 256, 0);
	pixman_box32_t box = {0, 0, 256, 1};
	(void)state;

	for (int32_t x = 0; x < 224; x++)
		gray.data[x] = (uint8_t)(x % 16 * 3 + 10); /* 16 values, 14 each */
	for (int32_t x = 224; x < 256; x++)
		gray.data[x] = (uint8_t)(100 + (x - 224)); /* 32 values, once each */
	assert_int_equal(vl_epd_classify(&gray, &box), VL_EPD_CONTENT_GRAY);
	gray.data[0] = 200; /* one of the 16 has 13 now, and a 33rd value appears */
	assert_int_equal(vl_epd_classify(&gray, &box), VL_EPD_CONTENT_IMAGE);
	gray_free(&gray);
}

/* Full-panel boxes are sampled, and classify the same. */
static void
test_large_boxes(void **state)
{
	enum { W = 1872, H = 1404 };
	struct vl_epd_gray gray = gray_new(W, H, W, 255);
	pixman_box32_t box = {0, 0, W, H};
	(void)state;

	assert_int_equal(vl_epd_classify(&gray, &box), VL_EPD_CONTENT_MONO);
	gray_fill(&gray, 100, 100, 900, 700, 0);
	assert_int_equal(vl_epd_classify(&gray, &box), VL_EPD_CONTENT_MONO);
	gray_fill(&gray, 1000, 100, 1500, 700, 128);
	assert_int_equal(vl_epd_classify(&gray, &box), VL_EPD_CONTENT_GRAY);
	for (int32_t y = 0; y < H; y++) {
		for (int32_t x = 0; x < W; x++)
			*gray_at(&gray, x, y) = (uint8_t)((x + y) * 255 / (W + H));
	}
	assert_int_equal(vl_epd_classify(&gray, &box), VL_EPD_CONTENT_IMAGE);
	gray_free(&gray);
}

static void
test_only_the_box_counts(void **state)
{
	struct vl_epd_gray gray = gray_new(64, 64, 64, 0);
	uint32_t seed = 5;
	(void)state;

	for (int i = 0; i < 64 * 64; i++)
		gray.data[i] = (uint8_t)test_random(&seed);
	gray_fill(&gray, 10, 10, 30, 20, 255);
	pixman_box32_t box = {10, 10, 30, 20}, wider = {9, 10, 30, 20};
	assert_int_equal(vl_epd_classify(&gray, &box), VL_EPD_CONTENT_MONO);
	assert_int_not_equal(vl_epd_classify(&gray, &wider), VL_EPD_CONTENT_MONO);
	/* Partly outside: clipped. */
	pixman_box32_t partly = {20, 15, 100, 100};
	gray_fill(&gray, 20, 15, 64, 64, 0);
	assert_int_equal(vl_epd_classify(&gray, &partly), VL_EPD_CONTENT_MONO);
	gray_free(&gray);
}

static void
test_bad_inputs(void **state)
{
	struct vl_epd_gray gray = gray_new(8, 8, 8, 128);
	struct vl_epd_gray bad = {NULL, 8, 8, 8};
	pixman_box32_t box = {0, 0, 8, 8}, empty = {4, 4, 4, 8}, outside = {8, 8, 9, 9};
	(void)state;

	assert_int_equal(vl_epd_classify(&gray, &box), VL_EPD_CONTENT_GRAY);
	assert_int_equal(vl_epd_classify(&gray, &empty), VL_EPD_CONTENT_MONO);
	assert_int_equal(vl_epd_classify(&gray, &outside), VL_EPD_CONTENT_MONO);
	assert_int_equal(vl_epd_classify(&gray, NULL), VL_EPD_CONTENT_MONO);
	assert_int_equal(vl_epd_classify(NULL, &box), VL_EPD_CONTENT_MONO);
	assert_int_equal(vl_epd_classify(&bad, &box), VL_EPD_CONTENT_MONO);
	gray_free(&gray);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mono),
		cmocka_unit_test(test_text_like_is_gray),
		cmocka_unit_test(test_sixteen_level_steps_are_gray),
		cmocka_unit_test(test_photo_like_ramp_is_image),
		cmocka_unit_test(test_share_threshold),
		cmocka_unit_test(test_large_boxes),
		cmocka_unit_test(test_only_the_box_counts),
		cmocka_unit_test(test_bad_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
