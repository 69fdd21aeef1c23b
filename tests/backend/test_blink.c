// SPDX-License-Identifier: MIT
/*
 * blink: a caret blinking at a steady period is held inked, and its hold
 * ends with a third picture, with input, and when the blinking stops.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "helpers.h"

#define W         200
#define H         100
#define PERIOD_MS 500

/* A caret of 2x20 pixels at (50, 40), on a white page, as the panel was sent it. */
struct page {
	struct vl_epd_gray cur, sent;
	struct vl_epd_blink *blink;
	uint64_t now_ms;
};

static const pixman_box32_t caret = {50, 40, 52, 60};

static void
page_init(struct page *p)
{
	p->cur = gray_new(W, H, W, 255);
	p->sent = gray_new(W, H, W, 255);
	p->blink = vl_epd_blink_create();
	assert_non_null(p->blink);
	p->now_ms = 1000;
}

static void
page_fini(struct page *p)
{
	gray_free(&p->cur);
	gray_free(&p->sent);
	vl_epd_blink_destroy(p->blink);
}

/*
 * Draws value over box at the page's time and runs the filter on the
 * changed box, as a flush does; what is left goes to the panel (sent).
 * Returns whether the change went out.
 */
static bool
draw(struct page *p, const pixman_box32_t *box, uint8_t value, const bool *exempt)
{
	pixman_box32_t boxes[1] = {*box};
	pixman_region32_t damage;

	gray_fill(&p->cur, box->x1, box->y1, box->x2, box->y2, value);
	pixman_region32_init_rect(&damage, box->x1, box->y1, box->x2 - box->x1, box->y2 - box->y1);
	/* only what differs from what was sent is a changed box */
	bool changed = *gray_at(&p->cur, box->x1, box->y1) != *gray_at(&p->sent, box->x1, box->y1);
	size_t n = vl_epd_blink_filter(
		p->blink, &p->cur, &p->sent, &damage, boxes, changed, exempt, p->now_ms);
	pixman_region32_fini(&damage);
	if (n == 1)
		gray_fill(&p->sent, box->x1, box->y1, box->x2, box->y2, value);
	return n == 1;
}

/* Blinks the caret count times from ink on (0) to off (255) and back; how many went out. */
static unsigned int
blink(struct page *p, unsigned int count, uint32_t period_ms)
{
	unsigned int sent = 0;

	for (unsigned int i = 0; i < count; i++) {
		uint8_t shown = *gray_at(&p->cur, caret.x1, caret.y1);
		p->now_ms += period_ms;
		sent += draw(p, &caret, shown == 0 ? 255 : 0, NULL);
	}
	return sent;
}

static void
test_steady_blinking_is_held_inked(void **state)
{
	struct page p;
	(void)state;

	page_init(&p);
	/* the caret appears: a change like any other */
	assert_true(draw(&p, &caret, 0, NULL));
	/* four blinks at a steady period go out, then the panel keeps the ink */
	assert_int_equal(blink(&p, 4, PERIOD_MS), 4);
	assert_true(vl_epd_blink_held(p.blink, &caret));
	assert_int_equal(blink(&p, 20, PERIOD_MS), 0);
	assert_int_equal(*gray_at(&p.sent, caret.x1, caret.y1), 0);
	page_fini(&p);
}

static void
test_held_when_steady_with_the_ink_off(void **state)
{
	struct page p;
	(void)state;

	page_init(&p);
	/* the caret is on the panel already: the first blink takes its ink off */
	gray_fill(&p.cur, caret.x1, caret.y1, caret.x2, caret.y2, 0);
	gray_fill(&p.sent, caret.x1, caret.y1, caret.x2, caret.y2, 0);
	assert_int_equal(blink(&p, 4, PERIOD_MS), 4);
	/* steady at the fifth, which takes the ink off: the panel keeps it */
	assert_int_equal(blink(&p, 1, PERIOD_MS), 0);
	assert_true(vl_epd_blink_held(p.blink, &caret));
	assert_int_equal(*gray_at(&p.sent, caret.x1, caret.y1), 0);
	assert_int_equal(blink(&p, 10, PERIOD_MS), 0);
	page_fini(&p);
}

static void
test_irregular_changes_are_not_held(void **state)
{
	static const uint32_t intervals[] = {500, 900, 300, 1200, 450, 1000, 200, 700, 1500, 350};
	struct page p;
	(void)state;

	page_init(&p);
	assert_true(draw(&p, &caret, 0, NULL));
	for (size_t i = 0; i < sizeof(intervals) / sizeof(intervals[0]); i++)
		assert_int_equal(blink(&p, 1, intervals[i]), 1);
	assert_false(vl_epd_blink_held(p.blink, &caret));
	page_fini(&p);
}

static void
test_big_or_fast_areas_are_not_held(void **state)
{
	const pixman_box32_t big = {10, 10, 120, 80};
	struct page p;
	(void)state;

	page_init(&p);
	/* an animation's frames: too big to be a caret */
	for (int i = 0; i < 12; i++) {
		p.now_ms += PERIOD_MS;
		assert_true(draw(&p, &big, i % 2 ? 255 : 0, NULL));
	}
	/* a small area flipping every frame of a 60 Hz client: faster than any caret */
	assert_true(draw(&p, &caret, 0, NULL));
	assert_int_equal(blink(&p, 12, 16), 12);
	page_fini(&p);
}

static void
test_a_third_picture_ends_the_hold(void **state)
{
	struct page p;
	(void)state;

	page_init(&p);
	assert_true(draw(&p, &caret, 0, NULL));
	assert_int_equal(blink(&p, 4, PERIOD_MS), 4);
	assert_int_equal(blink(&p, 1, PERIOD_MS), 0);
	/* a gray caret: neither of the two pictures */
	p.now_ms += PERIOD_MS;
	assert_true(draw(&p, &caret, 128, NULL));
	assert_false(vl_epd_blink_held(p.blink, &caret));
	assert_int_equal(blink(&p, 2, PERIOD_MS), 2);
	page_fini(&p);
}

/*
 * Two segments of a clock's digit, 10 pixels apart, going on and off
 * together at a steady pace: each change is part of a larger one, and
 * goes out every time.
 */
static void
test_changes_beside_others_are_not_held(void **state)
{
	const pixman_box32_t segments[2] = {{50, 40, 70, 44}, {50, 54, 70, 58}};
	struct page p;
	(void)state;

	page_init(&p);
	for (int i = 0; i < 12; i++) {
		uint8_t value = i % 2 ? 255 : 0;
		pixman_box32_t boxes[2] = {segments[0], segments[1]};
		pixman_region32_t damage;
		p.now_ms += PERIOD_MS;
		pixman_region32_init_rect(&damage, 50, 40, 20, 18);
		for (int k = 0; k < 2; k++)
			gray_fill(&p.cur, segments[k].x1, segments[k].y1, segments[k].x2,
				segments[k].y2, value);
		assert_int_equal(vl_epd_blink_filter(p.blink, &p.cur, &p.sent, &damage, boxes, 2,
					 NULL, p.now_ms),
			2);
		pixman_region32_fini(&damage);
		for (int k = 0; k < 2; k++)
			gray_fill(&p.sent, segments[k].x1, segments[k].y1, segments[k].x2,
				segments[k].y2, value);
	}
	assert_false(vl_epd_blink_held(p.blink, &segments[0]));
	page_fini(&p);
}

static void
test_exempt_areas_blink_on_the_panel(void **state)
{
	static const bool exempt = true;
	struct page p;
	(void)state;

	page_init(&p);
	assert_true(draw(&p, &caret, 0, NULL));
	for (int i = 0; i < 12; i++) {
		p.now_ms += PERIOD_MS;
		assert_true(draw(&p, &caret, i % 2 ? 0 : 255, &exempt));
	}
	assert_false(vl_epd_blink_held(p.blink, &caret));
	page_fini(&p);
}

static void
test_input_releases_what_differs(void **state)
{
	struct page p;
	pixman_region32_t release;
	(void)state;

	page_init(&p);
	assert_true(draw(&p, &caret, 0, NULL));
	assert_int_equal(blink(&p, 5, PERIOD_MS), 4);
	pixman_region32_init(&release);
	vl_epd_blink_release_all(p.blink, &release);
	assert_false(vl_epd_blink_held(p.blink, &caret));
	assert_int_equal(pixman_region32_contains_rectangle(&release, (pixman_box32_t *)&caret),
		PIXMAN_REGION_IN);
	pixman_region32_fini(&release);
	/* the released area goes out as it is, and the watch starts anew */
	assert_int_not_equal(
		*gray_at(&p.sent, caret.x1, caret.y1), *gray_at(&p.cur, caret.x1, caret.y1));
	gray_fill(&p.sent, caret.x1, caret.y1, caret.x2, caret.y2, 255);
	assert_int_equal(blink(&p, 3, PERIOD_MS), 3);
	page_fini(&p);
}

static void
test_stopped_blinking_shows_what_it_left(void **state)
{
	struct page p;
	pixman_region32_t release;
	(void)state;

	page_init(&p);
	assert_true(draw(&p, &caret, 0, NULL));
	/* held, the ink off last: the panel shows the ink */
	assert_int_equal(blink(&p, 5, PERIOD_MS), 4);
	assert_int_equal(*gray_at(&p.cur, caret.x1, caret.y1), 255);
	pixman_region32_init(&release);
	/* within two periods the blink may come back */
	int64_t next = vl_epd_blink_expire(p.blink, &p.cur, p.now_ms, &release);
	assert_true(next > 0 && next <= 2 * PERIOD_MS + 250);
	assert_false(pixman_region32_not_empty(&release));
	/* without release, it only tells when */
	assert_int_equal(vl_epd_blink_expire(p.blink, &p.cur, p.now_ms + 5000, NULL), 0);
	assert_true(vl_epd_blink_held(p.blink, &caret));
	/* then it stopped with the ink off: that goes out */
	p.now_ms += (uint64_t)next;
	assert_int_equal(vl_epd_blink_expire(p.blink, &p.cur, p.now_ms, &release), -1);
	assert_int_equal(pixman_region32_contains_rectangle(&release, (pixman_box32_t *)&caret),
		PIXMAN_REGION_IN);
	assert_false(vl_epd_blink_held(p.blink, &caret));
	pixman_region32_fini(&release);
	page_fini(&p);
}

static void
test_blinking_on_keeps_the_hold(void **state)
{
	struct page p;
	pixman_region32_t release;
	(void)state;

	page_init(&p);
	assert_true(draw(&p, &caret, 0, NULL));
	assert_int_equal(blink(&p, 5, PERIOD_MS), 4);
	pixman_region32_init(&release);
	/* the ink drawn again each second: held for a minute, nothing released */
	assert_int_equal(*gray_at(&p.cur, caret.x1, caret.y1), 255);
	for (int i = 0; i < 60; i++) {
		assert_int_equal(blink(&p, 2, PERIOD_MS), 0);
		assert_true(vl_epd_blink_expire(p.blink, &p.cur, p.now_ms, &release) > 0);
	}
	assert_false(pixman_region32_not_empty(&release));
	/* a caret that stops with the ink on leaves the panel right: nothing to send */
	assert_int_equal(blink(&p, 1, PERIOD_MS), 0);
	p.now_ms += 10 * PERIOD_MS;
	assert_int_equal(vl_epd_blink_expire(p.blink, &p.cur, p.now_ms, &release), -1);
	assert_false(pixman_region32_not_empty(&release));
	pixman_region32_fini(&release);
	page_fini(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady_blinking_is_held_inked),
		cmocka_unit_test(test_held_when_steady_with_the_ink_off),
		cmocka_unit_test(test_irregular_changes_are_not_held),
		cmocka_unit_test(test_big_or_fast_areas_are_not_held),
		cmocka_unit_test(test_a_third_picture_ends_the_hold),
		cmocka_unit_test(test_changes_beside_others_are_not_held),
		cmocka_unit_test(test_exempt_areas_blink_on_the_panel),
		cmocka_unit_test(test_input_releases_what_differs),
		cmocka_unit_test(test_stopped_blinking_shows_what_it_left),
		cmocka_unit_test(test_blinking_on_keeps_the_hold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
