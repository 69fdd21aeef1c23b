// SPDX-License-Identifier: MIT
/*
 * Output scale without a display: the default from a panel's size (pixels
 * per 1/96 inch, to the nearest quarter, 1 to 8, 1 when the
 * size is unknown) and logical boxes to the panel's pixels, scaled outwards
 * and turned with the rotation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "scale.h"

static void
test_default(void **state)
{
	static const struct {
		int32_t width, height, width_mm, height_mm;
		double scale;
	} cases[] = {
		/* 10.3", 227 dpi: 2.37 -> 2.25 */
		{1872, 1404, 209, 157, 2.25},
		/* the same turned: the mean of both axes does not care */
		{1404, 1872, 157, 209, 2.25},
		/* 6", 300 dpi: 3.13 -> 3.25 (nearer than 3) */
		{1448, 1072, 122, 90, 3.25},
		/* 96 dpi, and 230 dpi: 2.4 -> 2.5 */
		{960, 960, 254, 254, 1},
		{2304, 2304, 254, 254, 2.5},
		/* 2.12 -> 2 */
		{800, 600, 100, 75, 2},
		/* coarser than 96 dpi: not below 1 */
		{800, 600, 400, 300, 1},
		/* absurdly fine: not above 8 */
		{16384, 16384, 10, 10, 8},
		/* unknown */
		{1872, 1404, 0, 0, 1},
		{1872, 1404, 209, 0, 1},
		{1872, 1404, -1, -1, 1},
		{0, 0, 209, 157, 1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		double scale = vl_scale_for_panel(
			cases[i].width, cases[i].height, cases[i].width_mm, cases[i].height_mm);
		if (scale != cases[i].scale)
			fail_msg("%dx%d px, %dx%d mm: scale %g, not %g", cases[i].width,
				cases[i].height, cases[i].width_mm, cases[i].height_mm, scale,
				cases[i].scale);
	}
}

static void
assert_native(const pixman_box32_t *logical, double scale, enum vl_epd_transform transform,
	int32_t x1, int32_t y1, int32_t x2, int32_t y2)
{
	pixman_box32_t native;

	assert_true(vl_scale_box_to_native(&native, logical, scale, transform, 800, 600));
	assert_int_equal(native.x1, x1);
	assert_int_equal(native.y1, y1);
	assert_int_equal(native.x2, x2);
	assert_int_equal(native.y2, y2);
}

static void
test_box_to_native(void **state)
{
	pixman_box32_t box = {10, 20, 30, 40}, native;

	assert_native(&box, 1, VL_EPD_TRANSFORM_NORMAL, 10, 20, 30, 40);
	assert_native(&box, 2, VL_EPD_TRANSFORM_NORMAL, 20, 40, 60, 80);
	/* outwards: every panel pixel the box touches */
	assert_native(&box, 2.25, VL_EPD_TRANSFORM_NORMAL, 22, 45, 68, 90);
	/* rotated 90 on an 800x600 panel: the output is 600x800 */
	assert_native(&box, 2, VL_EPD_TRANSFORM_90, 40, 540, 80, 580);
	/* clipped to the panel, or nothing when outside it */
	box = (pixman_box32_t){300, 200, 500, 400};
	assert_native(&box, 2, VL_EPD_TRANSFORM_NORMAL, 600, 400, 800, 600);
	box = (pixman_box32_t){400, 300, 500, 400};
	assert_false(vl_scale_box_to_native(&native, &box, 2, VL_EPD_TRANSFORM_NORMAL, 800, 600));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_box_to_native),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
