// SPDX-License-Identifier: MIT
/*
 * merge: the cost model, alignment, clipping, the cap, and kinds kept apart.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <epdfb.h>

#include "helpers.h"

static const struct vl_epd_waveform_choice gl16 = {WAVEFORM_MODE_GL16, 16, VL_EPD_DITHER_NONE};
static const struct vl_epd_waveform_choice du = {WAVEFORM_MODE_DU, 2, VL_EPD_DITHER_NONE};
static const struct vl_epd_waveform_choice gc16 = {WAVEFORM_MODE_GC16, 16, VL_EPD_DITHER_ORDERED};

static struct vl_epd_plan
gray_plan(int32_t x1, int32_t y1, int32_t x2, int32_t y2)
{
	return (struct vl_epd_plan){
		{x1, y1, x2, y2}, VL_EPD_CONTENT_GRAY, gl16, false, false, false, false, false};
}

static struct vl_epd_merge_options
options(uint64_t cost)
{
	return (struct vl_epd_merge_options){
		.panel_width = 1872,
		.panel_height = 1404,
		.update_cost = cost,
	};
}

static void
test_near_merge_far_do_not(void **state)
{
	struct vl_epd_merge_options o = options(4096);
	struct vl_epd_plan p[2];
	(void)state;

	p[0] = gray_plan(0, 0, 10, 10);
	p[1] = gray_plan(12, 0, 22, 10);
	assert_int_equal(vl_epd_merge(p, 2, &o), 1);
	assert_box_equal(&p[0].box, 0, 0, 22, 10);
	assert_int_equal(p[0].content, VL_EPD_CONTENT_GRAY);
	assert_int_equal(p[0].choice.waveform, WAVEFORM_MODE_GL16);

	p[0] = gray_plan(0, 0, 10, 10);
	p[1] = gray_plan(500, 500, 510, 510);
	assert_int_equal(vl_epd_merge(p, 2, &o), 2);
	assert_box_equal(&p[0].box, 0, 0, 10, 10);
	assert_box_equal(&p[1].box, 500, 500, 510, 510);
}

/* Merge iff area(union) <= cost + area(a) + area(b): 300 <= cost + 200. */
static void
test_cost_boundary(void **state)
{
	struct vl_epd_plan p[2];
	struct vl_epd_merge_options o;
	(void)state;

	o = options(100);
	p[0] = gray_plan(0, 0, 10, 10);
	p[1] = gray_plan(20, 0, 30, 10);
	assert_int_equal(vl_epd_merge(p, 2, &o), 1);
	assert_box_equal(&p[0].box, 0, 0, 30, 10);

	o = options(99);
	p[0] = gray_plan(0, 0, 10, 10);
	p[1] = gray_plan(20, 0, 30, 10);
	assert_int_equal(vl_epd_merge(p, 2, &o), 2);

	/* Overlapping or touching rects merge even at no fixed cost. */
	o = options(0);
	p[0] = gray_plan(0, 0, 10, 10);
	p[1] = gray_plan(5, 0, 15, 10);
	assert_int_equal(vl_epd_merge(p, 2, &o), 1);
	assert_box_equal(&p[0].box, 0, 0, 15, 10);
}

/* Merging chains: a merged pair may then reach a third rect. */
static void
test_chain_and_order(void **state)
{
	struct vl_epd_merge_options o = options(150);
	struct vl_epd_plan p[4];
	(void)state;

	p[0] = gray_plan(1000, 1000, 1010, 1010);
	p[1] = gray_plan(0, 0, 10, 10);
	p[2] = gray_plan(12, 0, 22, 10);
	p[3] = gray_plan(24, 0, 34, 10);
	assert_int_equal(vl_epd_merge(p, 4, &o), 2);
	assert_box_equal(&p[0].box, 1000, 1000, 1010, 1010);
	assert_box_equal(&p[1].box, 0, 0, 34, 10);
}

static void
test_alignment_and_clipping(void **state)
{
	struct vl_epd_merge_options o = options(0);
	struct vl_epd_plan p[4];
	(void)state;

	o.align_x = 8;
	p[0] = gray_plan(3, 5, 13, 9);
	assert_int_equal(vl_epd_merge(p, 1, &o), 1);
	assert_box_equal(&p[0].box, 0, 5, 16, 9);

	o.align_y = 4;
	p[0] = gray_plan(17, 5, 24, 9);
	assert_int_equal(vl_epd_merge(p, 1, &o), 1);
	assert_box_equal(&p[0].box, 16, 4, 24, 12);

	/* Alignment never leaves the panel, whose width need not be aligned. */
	o = options(0);
	o.align_x = 8;
	o.panel_width = 30;
	o.panel_height = 20;
	p[0] = gray_plan(25, 10, 28, 12);
	p[1] = gray_plan(-5, -5, 3, 3);   /* partly outside */
	p[2] = gray_plan(40, 0, 50, 10);  /* outside */
	p[3] = gray_plan(10, 10, 10, 15); /* empty */
	assert_int_equal(vl_epd_merge(p, 4, &o), 2);
	assert_box_equal(&p[0].box, 24, 10, 30, 12);
	assert_box_equal(&p[1].box, 0, 0, 8, 3);
}

/* Five rects, cap 3: the two cheapest pairs merge. */
static void
test_cap(void **state)
{
	struct vl_epd_merge_options o = options(0);
	struct vl_epd_plan p[5];
	(void)state;

	o.max_rects = 3;
	p[0] = gray_plan(0, 0, 10, 10);
	p[1] = gray_plan(1000, 0, 1010, 10);
	p[2] = gray_plan(20, 0, 30, 10);
	p[3] = gray_plan(500, 0, 510, 10);
	p[4] = gray_plan(515, 0, 525, 10);
	assert_int_equal(vl_epd_merge(p, 5, &o), 3);
	assert_box_equal(&p[0].box, 0, 0, 30, 10);
	assert_box_equal(&p[1].box, 1000, 0, 1010, 10);
	assert_box_equal(&p[2].box, 500, 0, 525, 10);

	o.max_rects = 1;
	assert_int_equal(vl_epd_merge(p, 3, &o), 1);
	assert_box_equal(&p[0].box, 0, 0, 1010, 10);
}

/* Different kinds never merge unless asked; when asked, the richer one wins. */
static void
test_kinds(void **state)
{
	struct vl_epd_merge_options o = options(100000);
	struct vl_epd_plan p[4];
	(void)state;

	p[0] = gray_plan(0, 0, 10, 10);
	p[1] = (struct vl_epd_plan){
		{0, 20, 100, 30}, VL_EPD_CONTENT_MONO, du, false, false, false, false, false};
	p[2] = (struct vl_epd_plan){
		{20, 0, 30, 10}, VL_EPD_CONTENT_IMAGE, gc16, false, false, false, false, false};
	p[3] = gray_plan(40, 0, 50, 10);
	p[3].full = true;
	o.max_rects = 1;
	assert_int_equal(vl_epd_merge(p, 4, &o), 4);
	assert_int_equal(p[0].content, VL_EPD_CONTENT_GRAY);
	assert_int_equal(p[1].content, VL_EPD_CONTENT_MONO);
	assert_int_equal(p[2].content, VL_EPD_CONTENT_IMAGE);
	assert_true(p[3].full);

	/* Same content, different dither: apart too. */
	struct vl_epd_plan q[2] = {gray_plan(0, 0, 10, 10), gray_plan(10, 0, 20, 10)};
	q[1].choice.dither = VL_EPD_DITHER_ORDERED;
	assert_int_equal(vl_epd_merge(q, 2, &o), 2);
	/* A spinner's frame and a key typed beside it: apart. */
	q[1].choice.dither = q[0].choice.dither;
	q[1].animated = true;
	assert_int_equal(vl_epd_merge(q, 2, &o), 2);
	assert_false(q[0].animated);
	assert_true(q[1].animated);

	o.mixed = true;
	assert_int_equal(vl_epd_merge(p, 4, &o), 1);
	assert_box_equal(&p[0].box, 0, 0, 100, 30);
	assert_int_equal(p[0].content, VL_EPD_CONTENT_IMAGE);
	assert_int_equal(p[0].choice.waveform, WAVEFORM_MODE_GC16);
	assert_int_equal(p[0].choice.dither, VL_EPD_DITHER_ORDERED);
	assert_true(p[0].full);

	/* On a tie of content, the larger member's choice. */
	struct vl_epd_plan r[2] = {
		{{0, 0, 10, 10}, VL_EPD_CONTENT_GRAY, gl16, false, false, false, false, false},
		{{10, 0, 40, 10}, VL_EPD_CONTENT_GRAY, gc16, false, false, false, false, false},
	};
	assert_int_equal(vl_epd_merge(r, 2, &o), 1);
	assert_int_equal(r[0].choice.waveform, WAVEFORM_MODE_GC16);
}

static void
test_bad_inputs(void **state)
{
	struct vl_epd_merge_options o = options(100);
	struct vl_epd_plan p[1] = {gray_plan(0, 0, 10, 10)};
	(void)state;

	assert_int_equal(vl_epd_merge(NULL, 1, &o), 0);
	assert_int_equal(vl_epd_merge(p, 1, NULL), 0);
	assert_int_equal(vl_epd_merge(p, 0, &o), 0);
	o.panel_width = 0;
	assert_int_equal(vl_epd_merge(p, 1, &o), 0);
	/* A huge fixed cost does not overflow: everything merges. */
	struct vl_epd_plan q[2] = {gray_plan(0, 0, 1, 1), gray_plan(1800, 1400, 1872, 1404)};
	o = options(UINT64_MAX);
	assert_int_equal(vl_epd_merge(q, 2, &o), 1);
	assert_box_equal(&q[0].box, 0, 0, 1872, 1404);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_near_merge_far_do_not),
		cmocka_unit_test(test_cost_boundary),
		cmocka_unit_test(test_chain_and_order),
		cmocka_unit_test(test_alignment_and_clipping),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_bad_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
