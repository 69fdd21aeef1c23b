// SPDX-License-Identifier: MIT
/*
 * waveform: the policy, its fallbacks, and content through classify to
 * waveform and dither.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <epdfb.h>

#include "helpers.h"

#define ASSERT_CHOICE(c, WF, LEVELS, DITHER)            \
	do {                                            \
		struct vl_epd_waveform_choice c_ = (c); \
		assert_int_equal(c_.waveform, (WF));    \
		assert_int_equal(c_.levels, (LEVELS));  \
		assert_int_equal(c_.dither, (DITHER));  \
	} while (0)

static struct vl_epd_waveform_table
table_without(uint32_t a, uint32_t b)
{
	struct vl_epd_waveform_table full, table = {0};

	vl_epd_waveform_table_default(&full);
	for (size_t i = 0; i < full.n; i++) {
		if (full.entries[i].id != a && full.entries[i].id != b)
			table.entries[table.n++] = full.entries[i];
	}
	return table;
}

static void
test_default_table(void **state)
{
	struct vl_epd_waveform_table table;
	(void)state;

	vl_epd_waveform_table_default(&table);
	assert_int_equal(table.n, 6);
	const struct vl_epd_waveform_entry *e = vl_epd_waveform_find(&table, WAVEFORM_MODE_GL16);
	assert_non_null(e);
	assert_string_equal(e->name, "GL16");
	assert_int_equal(e->levels, 16);
	assert_false(e->flashing);
	assert_false(e->flashing_full);
	e = vl_epd_waveform_find(&table, WAVEFORM_MODE_GC16);
	assert_true(e->flashing_full);
	e = vl_epd_waveform_find(&table, WAVEFORM_MODE_INIT);
	assert_true(e->flashing);
	assert_int_equal(vl_epd_waveform_find(&table, WAVEFORM_MODE_A2)->levels, 2);
	assert_int_equal(vl_epd_waveform_find(&table, WAVEFORM_MODE_GC4)->levels, 4);
	assert_null(vl_epd_waveform_find(&table, WAVEFORM_MODE_AUTO));
	assert_null(vl_epd_waveform_find(NULL, WAVEFORM_MODE_DU));
	vl_epd_waveform_table_default(NULL);
}

static void
test_policy(void **state)
{
	struct vl_epd_waveform_table t;
	(void)state;

	vl_epd_waveform_table_default(&t);
	/* auto */
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_MONO, VL_EPD_MODE_AUTO, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_DU, 2, VL_EPD_DITHER_NONE);
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_GRAY, VL_EPD_MODE_AUTO, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_GL16, 16, VL_EPD_DITHER_NONE);
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_IMAGE, VL_EPD_MODE_AUTO, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_GC16, 16, VL_EPD_DITHER_ORDERED);
	/* fast and animation: A2, gray content dithered to 1 bit */
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_GRAY, VL_EPD_MODE_ANIMATION, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_A2, 2, VL_EPD_DITHER_ORDERED);
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_IMAGE, VL_EPD_MODE_FAST, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_A2, 2, VL_EPD_DITHER_ORDERED);
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_MONO, VL_EPD_MODE_ANIMATION, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_A2, 2, VL_EPD_DITHER_NONE);
	/* quality */
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_MONO, VL_EPD_MODE_QUALITY, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_GC16, 16, VL_EPD_DITHER_NONE);
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_GRAY, VL_EPD_MODE_QUALITY, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_GC16, 16, VL_EPD_DITHER_NONE);
	/* text */
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_MONO, VL_EPD_MODE_TEXT, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_DU, 2, VL_EPD_DITHER_NONE);
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_IMAGE, VL_EPD_MODE_TEXT, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_GL16, 16, VL_EPD_DITHER_ORDERED);
	/* an explicit dither is kept */
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_GRAY, VL_EPD_MODE_FAST, VL_EPD_DITHER_DIFFUSION),
		WAVEFORM_MODE_A2, 2, VL_EPD_DITHER_DIFFUSION);
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_IMAGE, VL_EPD_MODE_AUTO, VL_EPD_DITHER_NONE),
		WAVEFORM_MODE_GC16, 16, VL_EPD_DITHER_NONE);
	/* out-of-range enums take the auto path */
	ASSERT_CHOICE(vl_epd_choose_waveform(&t, VL_EPD_CONTENT_GRAY, (enum vl_epd_mode)99,
			      (enum vl_epd_dither)99),
		WAVEFORM_MODE_GL16, 16, VL_EPD_DITHER_NONE);
}

static void
test_fallbacks(void **state)
{
	struct vl_epd_waveform_table t;
	(void)state;

	t = table_without(WAVEFORM_MODE_GL16, 0xffff);
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_GRAY, VL_EPD_MODE_AUTO, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_GC16, 16, VL_EPD_DITHER_NONE);
	t = table_without(WAVEFORM_MODE_A2, 0xffff);
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_GRAY, VL_EPD_MODE_ANIMATION, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_DU, 2, VL_EPD_DITHER_ORDERED);
	t = table_without(WAVEFORM_MODE_DU, 0xffff);
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_MONO, VL_EPD_MODE_AUTO, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_A2, 2, VL_EPD_DITHER_NONE);
	t = table_without(WAVEFORM_MODE_GC16, WAVEFORM_MODE_GL16);
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_IMAGE, VL_EPD_MODE_QUALITY, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_GC4, 4, VL_EPD_DITHER_ORDERED);
	t = table_without(WAVEFORM_MODE_DU, WAVEFORM_MODE_A2);
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_MONO, VL_EPD_MODE_FAST, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_GC4, 4, VL_EPD_DITHER_NONE);

	/* Unknown ids: the richest non-INIT entry. */
	t = (struct vl_epd_waveform_table){
		.entries = {{0, "INIT", 2, true, true}, {7, "X8", 8, false, false},
			{9, "X4", 4, false, false}},
		.n = 3,
	};
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_GRAY, VL_EPD_MODE_AUTO, VL_EPD_DITHER_AUTO),
		7, 8, VL_EPD_DITHER_NONE);
	/* Only INIT, or nothing: let the driver choose. */
	t.n = 1;
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_IMAGE, VL_EPD_MODE_AUTO, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_AUTO, 256, VL_EPD_DITHER_NONE);
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      NULL, VL_EPD_CONTENT_GRAY, VL_EPD_MODE_FAST, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_AUTO, 256, VL_EPD_DITHER_NONE);
	/* An entry claiming fewer than 2 levels is unusable. */
	t = (struct vl_epd_waveform_table){
		.entries = {{WAVEFORM_MODE_GL16, "GL16", 1, false, false},
			{WAVEFORM_MODE_GC16, "GC16", 16, false, true}},
		.n = 2,
	};
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_GRAY, VL_EPD_MODE_TEXT, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_GC16, 16, VL_EPD_DITHER_NONE);
}

static void
test_flashing(void **state)
{
	struct vl_epd_waveform_table t;
	(void)state;

	vl_epd_waveform_table_default(&t);
	ASSERT_CHOICE(vl_epd_choose_flashing(&t), WAVEFORM_MODE_GC16, 16, VL_EPD_DITHER_NONE);
	t = table_without(WAVEFORM_MODE_GC16, 0xffff);
	ASSERT_CHOICE(vl_epd_choose_flashing(&t), WAVEFORM_MODE_GC4, 4, VL_EPD_DITHER_NONE);
	t = table_without(WAVEFORM_MODE_GC16, WAVEFORM_MODE_GC4);
	ASSERT_CHOICE(vl_epd_choose_flashing(&t), WAVEFORM_MODE_GL16, 16, VL_EPD_DITHER_NONE);
	ASSERT_CHOICE(vl_epd_choose_flashing(NULL), WAVEFORM_MODE_AUTO, 256, VL_EPD_DITHER_NONE);
}

/*
 * A controller whose GC16 flashes in every update mode (the IT8951's): a
 * partial update that wants GC16 takes GL16, which shows as many levels
 * without a flash; flashing refreshes still take GC16.
 */
static void
test_always_flashing_gc16(void **state)
{
	struct vl_epd_waveform_table t;
	(void)state;

	vl_epd_waveform_table_default(&t);
	for (size_t i = 0; i < t.n; i++)
		if (t.entries[i].id == WAVEFORM_MODE_GC16)
			t.entries[i].flashing = true;
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_IMAGE, VL_EPD_MODE_QUALITY, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_GL16, 16, VL_EPD_DITHER_ORDERED);
	ASSERT_CHOICE(vl_epd_choose_waveform(
			      &t, VL_EPD_CONTENT_IMAGE, VL_EPD_MODE_AUTO, VL_EPD_DITHER_AUTO),
		WAVEFORM_MODE_GL16, 16, VL_EPD_DITHER_ORDERED);
	ASSERT_CHOICE(vl_epd_choose_flashing(&t), WAVEFORM_MODE_GC16, 16, VL_EPD_DITHER_NONE);
}

/* Content through classify, the policy and dither, as the backend runs them. */
static struct vl_epd_waveform_choice
run(const struct vl_epd_gray *gray, const struct vl_epd_gray *out, enum vl_epd_mode mode,
	enum vl_epd_content *content)
{
	struct vl_epd_waveform_table t;
	pixman_box32_t box = {0, 0, gray->width, gray->height};

	vl_epd_waveform_table_default(&t);
	*content = vl_epd_classify(gray, &box);
	struct vl_epd_waveform_choice c =
		vl_epd_choose_waveform(&t, *content, mode, VL_EPD_DITHER_AUTO);
	assert_true(vl_epd_dither(out, gray, &box, c.levels, c.dither));
	return c;
}

static void
test_content_to_waveform(void **state)
{
	enum { W = 96, H = 48 };
	struct vl_epd_gray gray = gray_new(W, H, W, 255), out = gray_new(W, H, W, 0);
	enum vl_epd_content content;
	(void)state;

	/* Black on white: MONO, DU, pixels as they are. */
	gray_fill(&gray, 10, 10, 50, 20, 0);
	ASSERT_CHOICE(run(&gray, &out, VL_EPD_MODE_AUTO, &content), WAVEFORM_MODE_DU, 2,
		VL_EPD_DITHER_NONE);
	assert_int_equal(content, VL_EPD_CONTENT_MONO);
	assert_memory_equal(out.data, gray.data, W * H);

	/* Text-like: a few grays on white. */
	gray_fill(&gray, 10, 30, 50, 32, 0x44);
	gray_fill(&gray, 60, 30, 90, 32, 0xaa);
	*gray_at(&gray, 51, 30) = 0x91;
	ASSERT_CHOICE(run(&gray, &out, VL_EPD_MODE_AUTO, &content), WAVEFORM_MODE_GL16, 16,
		VL_EPD_DITHER_NONE);
	assert_int_equal(content, VL_EPD_CONTENT_GRAY);

	/* The same animated: A2 and nothing but black and white. */
	ASSERT_CHOICE(run(&gray, &out, VL_EPD_MODE_ANIMATION, &content), WAVEFORM_MODE_A2, 2,
		VL_EPD_DITHER_ORDERED);
	for (int i = 0; i < W * H; i++)
		assert_true(out.data[i] == 0 || out.data[i] == 255);

	/* A photo-like ramp: GC16. */
	for (int32_t y = 0; y < H; y++) {
		for (int32_t x = 0; x < W; x++)
			*gray_at(&gray, x, y) = (uint8_t)((x * 255 / (W - 1) + y) % 256);
	}
	ASSERT_CHOICE(run(&gray, &out, VL_EPD_MODE_AUTO, &content), WAVEFORM_MODE_GC16, 16,
		VL_EPD_DITHER_ORDERED);
	assert_int_equal(content, VL_EPD_CONTENT_IMAGE);
	for (int i = 0; i < W * H; i++)
		assert_int_equal(out.data[i] % 17, 0);
	gray_free(&gray);
	gray_free(&out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_table),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_fallbacks),
		cmocka_unit_test(test_always_flashing_gc16),
		cmocka_unit_test(test_flashing),
		cmocka_unit_test(test_content_to_waveform),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
