// SPDX-License-Identifier: MIT
/*
 * transform: output (rotated) coordinates to the panel's native ones, for
 * the four rotations; checked by hand, against the whole-image rotation
 * and, when wlroots is there, against wlroots itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "helpers.h"

#ifdef HAVE_WLROOTS
#include <wlr/util/box.h>
#include <wlr/util/region.h>
#include <wlr/util/transform.h>
#endif

static const enum vl_epd_transform rotations[] = {
	VL_EPD_TRANSFORM_NORMAL,
	VL_EPD_TRANSFORM_90,
	VL_EPD_TRANSFORM_180,
	VL_EPD_TRANSFORM_270,
};

/* A 1872x1404 panel; as 90 and 270 the output is 1404x1872. */
static void
test_by_hand(void **state)
{
	pixman_box32_t box = {10, 20, 110, 70}, native;
	(void)state;

	assert_true(vl_epd_transform_box(&native, &box, VL_EPD_TRANSFORM_NORMAL, 1872, 1404));
	assert_box_equal(&native, 10, 20, 110, 70);
	/* Counter-clockwise: the output's left edge is the panel's bottom. */
	assert_true(vl_epd_transform_box(&native, &box, VL_EPD_TRANSFORM_90, 1872, 1404));
	assert_box_equal(&native, 20, 1404 - 110, 70, 1404 - 10);
	assert_true(vl_epd_transform_box(&native, &box, VL_EPD_TRANSFORM_180, 1872, 1404));
	assert_box_equal(&native, 1872 - 110, 1404 - 70, 1872 - 10, 1404 - 20);
	assert_true(vl_epd_transform_box(&native, &box, VL_EPD_TRANSFORM_270, 1872, 1404));
	assert_box_equal(&native, 1872 - 70, 10, 1872 - 20, 110);

	/* The output's top-left pixel. */
	pixman_box32_t corner = {0, 0, 1, 1};
	assert_true(vl_epd_transform_box(&native, &corner, VL_EPD_TRANSFORM_90, 1872, 1404));
	assert_box_equal(&native, 0, 1403, 1, 1404);
	assert_true(vl_epd_transform_box(&native, &corner, VL_EPD_TRANSFORM_270, 1872, 1404));
	assert_box_equal(&native, 1871, 0, 1872, 1);
	/* The whole output is the whole panel. */
	pixman_box32_t whole = {0, 0, 1404, 1872};
	assert_true(vl_epd_transform_box(&native, &whole, VL_EPD_TRANSFORM_90, 1872, 1404));
	assert_box_equal(&native, 0, 0, 1872, 1404);
}

/* Each rect's pixels land, under the image rotation, exactly on its mapped rect. */
static void
test_consistent_with_image(void **state)
{
	enum { PW = 13, PH = 7 };
	(void)state;

	for (size_t t = 0; t < 4; t++) {
		bool swap =
			rotations[t] == VL_EPD_TRANSFORM_90 || rotations[t] == VL_EPD_TRANSFORM_270;
		int32_t ow = swap ? PH : PW, oh = swap ? PW : PH;
		struct vl_epd_gray image = gray_new(ow, oh, ow + 3, 0);
		struct vl_epd_gray native = gray_new(PW, PH, PW + 1, 0);
		for (int32_t x1 = 0; x1 < ow; x1++) {
			for (int32_t y1 = 0; y1 < oh; y1++) {
				pixman_box32_t box = {x1, y1, x1 + 1 + (x1 * 7 + y1) % (ow - x1),
					y1 + 1 + (y1 * 5 + x1) % (oh - y1)};
				pixman_box32_t mapped;
				gray_fill(&image, 0, 0, ow, oh, 0);
				gray_fill(&image, box.x1, box.y1, box.x2, box.y2, 255);
				assert_true(vl_epd_transform_gray(&native, &image, rotations[t]));
				assert_true(
					vl_epd_transform_box(&mapped, &box, rotations[t], PW, PH));
				for (int32_t y = 0; y < PH; y++) {
					for (int32_t x = 0; x < PW; x++) {
						bool inside = x >= mapped.x1 && x < mapped.x2 &&
							      y >= mapped.y1 && y < mapped.y2;
						assert_int_equal(
							*gray_at(&native, x, y), inside ? 255 : 0);
					}
				}
			}
		}
		gray_free(&image);
		gray_free(&native);
	}
}

static void
test_region(void **state)
{
	pixman_region32_t region, native, want;
	(void)state;

	pixman_region32_init_rect(&region, 0, 0, 10, 10);
	pixman_region32_union_rect(&region, &region, 50, 100, 20, 5);
	pixman_region32_union_rect(&region, &region, 1400, 1800, 100, 100); /* partly outside */
	pixman_region32_init(&native);
	assert_true(vl_epd_transform_region(&native, &region, VL_EPD_TRANSFORM_90, 1872, 1404));
	pixman_region32_init_rect(&want, 0, 1394, 10, 10);
	pixman_region32_union_rect(&want, &want, 100, 1404 - 70, 5, 20);
	pixman_region32_union_rect(&want, &want, 1800, 0, 72, 4);
	assert_true(pixman_region32_equal(&native, &want));

	/* In place. */
	assert_true(vl_epd_transform_region(&region, &region, VL_EPD_TRANSFORM_90, 1872, 1404));
	assert_true(pixman_region32_equal(&region, &want));
	pixman_region32_fini(&region);
	pixman_region32_fini(&native);
	pixman_region32_fini(&want);
}

#ifdef HAVE_WLROOTS
/* As wlroots maps output damage to the buffer: the inverse transform. */
static void
test_matches_wlroots(void **state)
{
	enum { PW = 1872, PH = 1404 };
	uint32_t seed = 99;
	(void)state;

	for (size_t t = 0; t < 4; t++) {
		bool swap = rotations[t] % 2 == 1;
		int ow = swap ? PH : PW, oh = swap ? PW : PH;
		enum wl_output_transform inverse =
			wlr_output_transform_invert((enum wl_output_transform)rotations[t]);
		pixman_region32_t region, mine, theirs;
		pixman_region32_init(&region);
		for (int i = 0; i < 200; i++) {
			int x = (int)(test_random(&seed) % (uint32_t)ow);
			int y = (int)(test_random(&seed) % (uint32_t)oh);
			int w = 1 + (int)(test_random(&seed) % (uint32_t)(ow - x));
			int h = 1 + (int)(test_random(&seed) % (uint32_t)(oh - y));
			struct wlr_box box = {x, y, w, h}, expected;
			pixman_box32_t pbox = {x, y, x + w, y + h}, native;
			wlr_box_transform(&expected, &box, inverse, ow, oh);
			assert_true(vl_epd_transform_box(&native, &pbox, rotations[t], PW, PH));
			assert_box_equal(&native, expected.x, expected.y,
				expected.x + expected.width, expected.y + expected.height);
			if (i < 8)
				pixman_region32_union_rect(&region, &region, x, y, w, h);
		}
		pixman_region32_init(&mine);
		pixman_region32_init(&theirs);
		assert_true(vl_epd_transform_region(&mine, &region, rotations[t], PW, PH));
		wlr_region_transform(&theirs, &region, inverse, ow, oh);
		assert_true(pixman_region32_equal(&mine, &theirs));
		pixman_region32_fini(&region);
		pixman_region32_fini(&mine);
		pixman_region32_fini(&theirs);
	}
}
#endif

static void
test_bad_inputs(void **state)
{
	pixman_box32_t box = {0, 0, 10, 10}, native = {1, 2, 3, 4};
	struct vl_epd_gray image = gray_new(7, 13, 7, 0), native_gray = gray_new(13, 7, 13, 0);
	pixman_region32_t region;
	(void)state;

	/* Flipped transforms (4..7) are not rotations. */
	for (int t = 4; t < 8; t++)
		assert_false(
			vl_epd_transform_box(&native, &box, (enum vl_epd_transform)t, 100, 100));
	assert_false(vl_epd_transform_box(NULL, &box, VL_EPD_TRANSFORM_90, 100, 100));
	assert_false(vl_epd_transform_box(&native, NULL, VL_EPD_TRANSFORM_90, 100, 100));
	pixman_box32_t outside = {200, 0, 300, 10}, empty = {5, 5, 5, 9};
	assert_false(vl_epd_transform_box(&native, &outside, VL_EPD_TRANSFORM_90, 100, 150));
	assert_false(vl_epd_transform_box(&native, &empty, VL_EPD_TRANSFORM_NORMAL, 100, 150));
	/* Partly outside: clipped to the output, 150x100 as 90. */
	pixman_box32_t partly = {140, -10, 160, 10};
	assert_true(vl_epd_transform_box(&native, &partly, VL_EPD_TRANSFORM_90, 100, 150));
	assert_box_equal(&native, 0, 0, 10, 10);

	pixman_region32_init(&region);
	assert_false(vl_epd_transform_region(&region, NULL, VL_EPD_TRANSFORM_90, 10, 10));
	assert_false(vl_epd_transform_region(NULL, &region, VL_EPD_TRANSFORM_90, 10, 10));
	assert_false(vl_epd_transform_region(&region, &region, (enum vl_epd_transform)5, 10, 10));
	assert_true(vl_epd_transform_region(&region, &region, VL_EPD_TRANSFORM_90, 10, 10));
	assert_false(pixman_region32_not_empty(&region));
	pixman_region32_fini(&region);

	assert_true(vl_epd_transform_gray(&native_gray, &image, VL_EPD_TRANSFORM_90));
	assert_false(vl_epd_transform_gray(&native_gray, &image, VL_EPD_TRANSFORM_180));
	assert_false(vl_epd_transform_gray(&native_gray, &native_gray, VL_EPD_TRANSFORM_NORMAL));
	assert_false(vl_epd_transform_gray(NULL, &image, VL_EPD_TRANSFORM_90));
	assert_false(vl_epd_transform_gray(&native_gray, &image, (enum vl_epd_transform)6));
	gray_free(&image);
	gray_free(&native_gray);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_hand),
		cmocka_unit_test(test_consistent_with_image),
		cmocka_unit_test(test_region),
#ifdef HAVE_WLROOTS
		cmocka_unit_test(test_matches_wlroots),
#endif
		cmocka_unit_test(test_bad_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
