// SPDX-License-Identifier: MIT
/*
 * anim: areas that change frame after frame without input are animated;
 * typing is not; an animation ends when it rests; its pace.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "helpers.h"

#define W 160
#define H 96

/* A spinner in the cells of (32, 32)-(64, 64), a frame every 16 ms. */
static const pixman_box32_t spinner = {32, 32, 64, 64};

struct screen {
	struct vl_epd_gray gray;
	struct vl_epd_anim *anim;
	uint64_t now_ms;
	uint8_t shade;
};

static void
screen_init(struct screen *s)
{
	s->gray = gray_new(W, H, W, 255);
	s->anim = vl_epd_anim_create(W, H);
	assert_non_null(s->anim);
	s->now_ms = 1000;
	s->shade = 0;
}

static void
screen_fini(struct screen *s)
{
	gray_free(&s->gray);
	vl_epd_anim_destroy(s->anim);
}

/* A frame interval_ms after the last, drawing box anew (or the same when same). */
static void
frame(struct screen *s, const pixman_box32_t *box, uint32_t interval_ms, bool user_works, bool same)
{
	pixman_region32_t damage;

	s->now_ms += interval_ms;
	if (!same)
		gray_fill(&s->gray, box->x1, box->y1, box->x2, box->y2, s->shade += 37);
	pixman_region32_init_rect(&damage, box->x1, box->y1, box->x2 - box->x1, box->y2 - box->y1);
	vl_epd_anim_note(s->anim, &s->gray, &damage, s->now_ms, user_works);
	pixman_region32_fini(&damage);
}

static void
test_frames_without_input_animate(void **state)
{
	struct screen s;
	(void)state;

	screen_init(&s);
	for (int i = 0; i < 6; i++) {
		frame(&s, &spinner, 16, false, false);
		assert_false(vl_epd_anim_covers(s.anim, &spinner, s.now_ms));
	}
	frame(&s, &spinner, 16, false, false);
	assert_true(vl_epd_anim_covers(s.anim, &spinner, s.now_ms));
	/* a box beyond the animated cells, over cells at rest, still is */
	const pixman_box32_t wider = {32, 32, 80, 64};
	assert_true(vl_epd_anim_covers(s.anim, &wider, s.now_ms));
	/* resting ends it */
	assert_true(vl_epd_anim_covers(s.anim, &spinner, s.now_ms + 1500));
	assert_false(vl_epd_anim_covers(s.anim, &spinner, s.now_ms + 1501));
	screen_fini(&s);
}

/*
 * A spinner whose frames the panel paces: vellum gives the client its next
 * frame once the update of the last (GC16, 450 ms on the model) is done.
 */
static void
test_frames_paced_by_the_panel_animate(void **state)
{
	struct screen s;
	(void)state;

	screen_init(&s);
	for (int i = 0; i < 7; i++)
		frame(&s, &spinner, 450, false, false);
	assert_true(vl_epd_anim_covers(s.anim, &spinner, s.now_ms));
	assert_true(vl_epd_anim_covers(s.anim, &spinner, s.now_ms + 800));
	/* taken so, a spinner's cell may look the same at two frames: it goes on */
	for (int i = 0; i < 10; i++)
		frame(&s, &spinner, 450, false, i % 3 == 2);
	assert_true(vl_epd_anim_covers(s.anim, &spinner, s.now_ms));
	screen_fini(&s);
}

/*
 * Two spinners one above the other (a widget gallery's): the diff sends
 * them as one box, with resting cells between them; it is animated. A box
 * over a cell that changed once just now is not.
 */
static void
test_box_over_two_spinners(void **state)
{
	const pixman_box32_t lower = {32, 80, 48, 96}, both = {32, 32, 64, 96};
	const pixman_box32_t word = {80, 32, 96, 48}, with_word = {32, 32, 96, 64};
	struct screen s;
	(void)state;

	screen_init(&s);
	/* the first frame shows the whole panel: every cell's picture is known */
	frame(&s, &(pixman_box32_t){0, 0, W, H}, 0, false, true);
	for (int i = 0; i < 10; i++) {
		frame(&s, &spinner, 16, false, false);
		frame(&s, &lower, 0, false, false);
	}
	assert_true(vl_epd_anim_covers(s.anim, &both, s.now_ms));
	frame(&s, &word, 16, false, false);
	assert_false(vl_epd_anim_covers(s.anim, &with_word, s.now_ms));
	screen_fini(&s);
}

/*
 * A pulsing progress bar, paced by the panel: its block slides along the
 * trough and back, so a cell changes only as the block's edges pass. Each
 * frame's change is animated once the trough has run a while; a word that
 * changes once in the bar's row, with cells at rest between them, is not.
 */
static void
test_progress_bar_pulses(void **state)
{
	const int32_t top = 40, bottom = 44, trough = 112, block = 40, step = 25;
	const pixman_box32_t word = {128, 32, 144, 48};
	struct screen s;
	int32_t x = 0, direction = 1;
	pixman_box32_t changed = {0};
	(void)state;

	screen_init(&s);
	frame(&s, &(pixman_box32_t){0, 0, W, H}, 0, false, true);
	for (int i = 0; i < 16; i++) {
		int32_t next = x + direction * step;
		if (next < 0 || next + block > trough) {
			direction = -direction;
			next = x + direction * step;
		}
		changed = (pixman_box32_t){
			next < x ? next : x, top, (next < x ? x : next) + block, bottom};
		gray_fill(&s.gray, changed.x1, top, changed.x2, bottom, 255);
		gray_fill(&s.gray, next, top, next + block, bottom, 0);
		x = next;
		frame(&s, &changed, 450, false, true);
	}
	assert_true(vl_epd_anim_covers(s.anim, &changed, s.now_ms));
	frame(&s, &word, 16, false, false);
	assert_false(vl_epd_anim_covers(s.anim, &word, s.now_ms));
	screen_fini(&s);
}

/*
 * What changes each 900 ms beside a spinner, in its row (a caret's blinks
 * before blink.c holds it): the spinner makes no band with it.
 */
static void
test_spinner_makes_no_band(void **state)
{
	const pixman_box32_t slow = {80, 32, 96, 48};
	struct screen s;
	(void)state;

	screen_init(&s);
	frame(&s, &(pixman_box32_t){0, 0, W, H}, 0, false, true);
	for (int i = 0; i < 180; i++) {
		frame(&s, &spinner, 30, false, false);
		if (i % 30 == 29)
			frame(&s, &slow, 0, false, false);
	}
	assert_true(vl_epd_anim_covers(s.anim, &spinner, s.now_ms));
	assert_false(vl_epd_anim_covers(s.anim, &slow, s.now_ms));
	screen_fini(&s);
}

static void
test_typing_and_slow_changes_do_not(void **state)
{
	const pixman_box32_t cell = {96, 16, 112, 32};
	struct screen s;
	(void)state;

	screen_init(&s);
	/* keys at 10 a second: the user works */
	for (int i = 0; i < 40; i++)
		frame(&s, &cell, 100, true, false);
	assert_false(vl_epd_anim_covers(s.anim, &cell, s.now_ms));
	/* a clock's seconds, a little late or early */
	for (int i = 0; i < 40; i++)
		frame(&s, &cell, i % 2 ? 1000 : 950, false, false);
	assert_false(vl_epd_anim_covers(s.anim, &cell, s.now_ms));
	/* damage that changes nothing: a client that redraws the same frame */
	for (int i = 0; i < 40; i++)
		frame(&s, &spinner, 16, false, true);
	assert_false(vl_epd_anim_covers(s.anim, &spinner, s.now_ms));
	screen_fini(&s);
}

static void
test_animation_goes_on_while_the_user_types(void **state)
{
	struct screen s;
	(void)state;

	screen_init(&s);
	for (int i = 0; i < 10; i++)
		frame(&s, &spinner, 16, false, false);
	assert_true(vl_epd_anim_covers(s.anim, &spinner, s.now_ms));
	for (int i = 0; i < 100; i++)
		frame(&s, &spinner, 16, true, false);
	assert_true(vl_epd_anim_covers(s.anim, &spinner, s.now_ms));
	screen_fini(&s);
}

static void
test_pace(void **state)
{
	struct screen s;
	(void)state;

	screen_init(&s);
	for (int i = 0; i < 10; i++)
		frame(&s, &spinner, 16, false, false);
	/* never driven: due at once */
	assert_int_equal(vl_epd_anim_wait(s.anim, &spinner, s.now_ms, 1000), 0);
	vl_epd_anim_driven(s.anim, &spinner, s.now_ms);
	assert_int_equal(vl_epd_anim_wait(s.anim, &spinner, s.now_ms + 200, 1000), 800);
	assert_int_equal(vl_epd_anim_wait(s.anim, &spinner, s.now_ms + 1000, 1000), 0);
	/* a box over one driven cell waits for it */
	const pixman_box32_t part = {48, 48, 96, 64};
	assert_int_equal(vl_epd_anim_wait(s.anim, &part, s.now_ms + 600, 1000), 400);
	screen_fini(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_without_input_animate),
		cmocka_unit_test(test_frames_paced_by_the_panel_animate),
		cmocka_unit_test(test_box_over_two_spinners),
		cmocka_unit_test(test_progress_bar_pulses),
		cmocka_unit_test(test_spinner_makes_no_band),
		cmocka_unit_test(test_typing_and_slow_changes_do_not),
		cmocka_unit_test(test_animation_goes_on_while_the_user_types),
		cmocka_unit_test(test_pace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
