// SPDX-License-Identifier: MIT
/*
 * scroll: text moved up or down by whole rows is found, with its shift;
 * new text, a change in place and blank pages are not scrolls.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <vellum/epd-pipeline.h>

#define W    320
#define H    240
#define LINE 16

/* A well-mixed hash of v. */
static uint32_t
mix(uint32_t v)
{
	v ^= v >> 16;
	v *= 0x7feb352du;
	v ^= v >> 15;
	v *= 0x846ca68bu;
	return v ^ (v >> 16);
}

/* A line of "text": dark strokes whose pattern differs from line to line. */
static void
draw_line(uint8_t *pixels, int32_t top, uint32_t seed)
{
	for (int32_t y = top; y < top + LINE && y < H; y++) {
		if (y < 0 || y - top >= LINE - 4)
			continue; /* the gap between lines stays white */
		for (int32_t x = 8; x < W - 8; x++) {
			uint32_t v = mix(mix(mix(seed) ^ (uint32_t)(y - top)) ^ (uint32_t)x);
			pixels[y * W + x] = v % 5 == 0 ? 0 : v % 7 == 0 ? 128 : 255;
		}
	}
}

/* A page of lines, the first showing line number first_line. */
static void
draw_page(uint8_t *pixels, uint32_t first_line, int32_t offset)
{
	memset(pixels, 255, (size_t)W * H);
	for (int32_t i = -1; i <= H / LINE; i++)
		draw_line(pixels, offset + i * LINE, first_line + (uint32_t)(i + 1) * 7919u);
}

static struct vl_epd_gray
view(uint8_t *pixels)
{
	return (struct vl_epd_gray){pixels, W, H, W};
}

/* The content sent and the new content, a panel each. */
struct images {
	uint8_t before[W * H], after[W * H];
};

static int
setup(void **state)
{
	*state = malloc(sizeof(struct images));
	return *state ? 0 : -1;
}

static int
teardown(void **state)
{
	free(*state);
	return 0;
}

static void
test_text_moved_up_is_a_scroll(void **state)
{
	struct images *images = *state;
	uint8_t *before = images->before, *after = images->after;
	pixman_box32_t all = {0, 0, W, H};
	struct vl_epd_gray cur = view(after), prev = view(before);
	int32_t shift = 0;

	draw_page(before, 0, 0);
	/* the same page one line further: everything moved up by LINE rows */
	draw_page(after, 0, -LINE);
	assert_true(vl_epd_detect_scroll(&cur, &prev, &all, &shift));
	assert_int_equal(shift, -LINE);
	/* and back down, by three rows */
	draw_page(after, 0, 3);
	assert_true(vl_epd_detect_scroll(&cur, &prev, &all, &shift));
	assert_int_equal(shift, 3);
}

/* Rows repeated within each line (the stems of letters) still move with it. */
static void
test_repeated_rows_move_too(void **state)
{
	struct images *images = *state;
	uint8_t *before = images->before, *after = images->after;
	pixman_box32_t all = {0, 0, W, H};
	struct vl_epd_gray cur = view(after), prev = view(before);
	int32_t shift = 0;

	for (int page = 0; page < 2; page++) {
		uint8_t *pixels = page ? after : before;
		draw_page(pixels, 0, page ? -LINE : 0);
		/* rows 2 to 9 of every line the same as row 2: only 4 rows of 12 unique */
		for (int32_t y = 0; y < H; y++) {
			int32_t in_line = ((y - (page ? -LINE : 0)) % LINE + LINE) % LINE;
			if (in_line > 2 && in_line < 10)
				memcpy(pixels + y * W, pixels + (y - (in_line - 2)) * W, W);
		}
	}
	assert_true(vl_epd_detect_scroll(&cur, &prev, &all, &shift));
	assert_int_equal(shift, -LINE);
}

static void
test_new_text_is_not_a_scroll(void **state)
{
	struct images *images = *state;
	uint8_t *before = images->before, *after = images->after;
	pixman_box32_t all = {0, 0, W, H};
	struct vl_epd_gray cur = view(after), prev = view(before);
	int32_t shift = 0;

	draw_page(before, 0, 0);
	draw_page(after, 1000, 0);
	assert_false(vl_epd_detect_scroll(&cur, &prev, &all, &shift));
	/* a page with one line changed in place */
	draw_page(after, 0, 0);
	draw_line(after, 5 * LINE, 424242);
	assert_false(vl_epd_detect_scroll(&cur, &prev, &all, &shift));
	/* blank pages: nothing to tell a shift by */
	memset(before, 255, (size_t)W * H);
	memset(after, 255, (size_t)W * H);
	assert_false(vl_epd_detect_scroll(&cur, &prev, &all, &shift));
	/* an empty box */
	pixman_box32_t none = {10, 10, 10, 10};
	assert_false(vl_epd_detect_scroll(&cur, &prev, &none, &shift));
}

/* Only box is looked at: a scroll inside a window beside a still one. */
static void
test_scroll_within_box(void **state)
{
	struct images *images = *state;
	uint8_t *before = images->before, *after = images->after;
	pixman_box32_t left = {0, 0, W / 2, H};
	struct vl_epd_gray cur = view(after), prev = view(before);
	int32_t shift = 0;

	draw_page(before, 0, 0);
	draw_page(after, 0, -2 * LINE);
	/* the right half shows new text: outside the box, it does not count */
	for (int32_t y = 0; y < H; y++)
		memset(after + y * W + W / 2, (uint8_t)(y * 7), W / 2);
	assert_true(vl_epd_detect_scroll(&cur, &prev, &left, &shift));
	assert_int_equal(shift, -2 * LINE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_text_moved_up_is_a_scroll, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repeated_rows_move_too, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_text_is_not_a_scroll, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scroll_within_box, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
