// SPDX-License-Identifier: MIT
/*
 * diff: damage shrinks to what changed, and nothing outside it is read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers.h"

enum { W = 200, H = 120 };

struct pair {
	struct vl_epd_gray cur, prev;
};

static int
setup(void **state)
{
	struct pair *p = malloc(sizeof(*p));
	if (!p)
		return -1;
	p->cur = gray_new(W, H, W + 8, 255);
	p->prev = gray_new(W, H, W + 8, 255);
	*state = p;
	return p->cur.data && p->prev.data ? 0 : -1;
}

static int
teardown(void **state)
{
	struct pair *p = *state;
	gray_free(&p->cur);
	gray_free(&p->prev);
	free(p);
	return 0;
}

static void
test_no_change(void **state)
{
	struct pair *p = *state;
	pixman_box32_t full = {0, 0, W, H}, changed = {1, 2, 3, 4}, out[4];
	pixman_region32_t damage;

	assert_false(vl_epd_diff_box(&p->cur, &p->prev, &full, &changed));
	assert_box_equal(&changed, 1, 2, 3, 4); /* untouched */
	pixman_region32_init_rect(&damage, 0, 0, W, H);
	assert_int_equal(vl_epd_diff(&p->cur, &p->prev, &damage, out, 4), 0);
	pixman_region32_fini(&damage);
}

static void
test_one_pixel(void **state)
{
	struct pair *p = *state;
	pixman_box32_t full = {0, 0, W, H}, changed;

	*gray_at(&p->cur, 123, 45) = 254;
	assert_true(vl_epd_diff_box(&p->cur, &p->prev, &full, &changed));
	assert_box_equal(&changed, 123, 45, 124, 46);
	/* Corners: the first and last byte of a row, the first and last row. */
	*gray_at(&p->cur, 123, 45) = 255;
	*gray_at(&p->cur, 0, 0) = 0;
	*gray_at(&p->cur, W - 1, H - 1) = 0;
	assert_true(vl_epd_diff_box(&p->cur, &p->prev, &full, &changed));
	assert_box_equal(&changed, 0, 0, W, H);
}

/* A changed 1-px column yields a 1-px rect, whether damage is the column or a band. */
static void
test_one_pixel_column(void **state)
{
	struct pair *p = *state;
	pixman_box32_t changed, out[4];
	pixman_region32_t damage;

	for (int32_t y = 10; y < 60; y++)
		*gray_at(&p->cur, 100, y) = 0;
	pixman_region32_init_rect(&damage, 100, 0, 1, H);
	assert_int_equal(vl_epd_diff(&p->cur, &p->prev, &damage, out, 4), 1);
	assert_box_equal(&out[0], 100, 10, 101, 60);
	pixman_region32_fini(&damage);

	pixman_box32_t band = {0, 0, W, H};
	assert_true(vl_epd_diff_box(&p->cur, &p->prev, &band, &changed));
	assert_box_equal(&changed, 100, 10, 101, 60);
}

static void
test_shape_bounding_box(void **state)
{
	struct pair *p = *state;
	pixman_box32_t full = {0, 0, W, H}, changed;

	/* An L: the widest row is not the first, the lowest column not the last. */
	*gray_at(&p->cur, 50, 20) = 10;
	for (int32_t x = 30; x < 170; x++)
		*gray_at(&p->cur, x, 40) = 10;
	for (int32_t y = 41; y < 90; y++)
		*gray_at(&p->cur, 31, y) = 10;
	assert_true(vl_epd_diff_box(&p->cur, &p->prev, &full, &changed));
	assert_box_equal(&changed, 30, 20, 170, 90);
}

/* A difference outside the damage does not count. */
static void
test_outside_damage_ignored(void **state)
{
	struct pair *p = *state;
	pixman_box32_t out[4];
	pixman_region32_t damage;

	*gray_at(&p->cur, 5, 5) = 0;   /* not damaged */
	*gray_at(&p->cur, 50, 50) = 0; /* damaged */
	*gray_at(&p->cur, 61, 50) = 0; /* just right of the damage */
	*gray_at(&p->cur, 50, 61) = 0; /* just below */
	pixman_region32_init_rect(&damage, 40, 40, 21, 21);
	assert_int_equal(vl_epd_diff(&p->cur, &p->prev, &damage, out, 4), 1);
	assert_box_equal(&out[0], 50, 50, 51, 51);
	pixman_region32_fini(&damage);
}

static void
test_region_drops_and_shrinks(void **state)
{
	struct pair *p = *state;
	pixman_box32_t out[8];
	pixman_region32_t damage;

	gray_fill(&p->cur, 12, 12, 15, 14, 0);   /* in the first rect */
	gray_fill(&p->cur, 150, 90, 160, 91, 0); /* in the third */
	pixman_region32_init_rect(&damage, 10, 10, 20, 20);
	pixman_region32_union_rect(&damage, &damage, 100, 10, 20, 20); /* unchanged */
	pixman_region32_union_rect(&damage, &damage, 140, 80, 40, 30);
	assert_int_equal(pixman_region32_n_rects(&damage), 3);
	assert_int_equal(vl_epd_diff(&p->cur, &p->prev, &damage, out, 8), 2);
	assert_box_equal(&out[0], 12, 12, 15, 14);
	assert_box_equal(&out[1], 150, 90, 160, 91);

	/* A full output folds the rest into its last rect. */
	assert_int_equal(vl_epd_diff(&p->cur, &p->prev, &damage, out, 1), 1);
	assert_box_equal(&out[0], 12, 12, 160, 91);
	pixman_region32_fini(&damage);
}

static void
test_bad_inputs(void **state)
{
	struct pair *p = *state;
	struct vl_epd_gray small = gray_new(20, 20, 20, 255);
	pixman_box32_t box = {0, 0, W, H}, changed, out[2];
	pixman_region32_t damage;

	*gray_at(&p->cur, 30, 30) = 0;
	*gray_at(&p->cur, 10, 10) = 0;
	assert_false(vl_epd_diff_box(NULL, &p->prev, &box, &changed));
	assert_false(vl_epd_diff_box(&p->cur, NULL, &box, &changed));
	assert_false(vl_epd_diff_box(&p->cur, &p->prev, NULL, &changed));
	assert_false(vl_epd_diff_box(&p->cur, &p->prev, &box, NULL));
	pixman_box32_t empty = {10, 10, 10, 20}, inverted = {40, 40, 0, 0};
	assert_false(vl_epd_diff_box(&p->cur, &p->prev, &empty, &changed));
	assert_false(vl_epd_diff_box(&p->cur, &p->prev, &inverted, &changed));
	/* Partly outside: clipped. Images of different sizes: clipped to both. */
	pixman_box32_t partly = {-50, -50, 11, 11};
	assert_true(vl_epd_diff_box(&p->cur, &p->prev, &partly, &changed));
	assert_box_equal(&changed, 10, 10, 11, 11);
	assert_true(vl_epd_diff_box(&p->cur, &small, &box, &changed));
	assert_box_equal(&changed, 10, 10, 11, 11);

	pixman_region32_init(&damage);
	assert_int_equal(vl_epd_diff(&p->cur, &p->prev, &damage, out, 2), 0);
	pixman_region32_union_rect(&damage, &damage, 0, 0, W, H);
	assert_int_equal(vl_epd_diff(&p->cur, &p->prev, NULL, out, 2), 0);
	assert_int_equal(vl_epd_diff(&p->cur, &p->prev, &damage, NULL, 2), 0);
	assert_int_equal(vl_epd_diff(&p->cur, &p->prev, &damage, out, 0), 0);
	pixman_region32_fini(&damage);
	gray_free(&small);
}

/*
 * Images whose only readable bytes are the damaged ones: each row is two
 * pages, the damaged columns fill the second exactly, every other page is
 * PROT_NONE. Reading one byte outside the damage is a crash.
 */
struct guarded {
	uint8_t *map;
	size_t size;
	struct vl_epd_gray gray;
};

static void
guarded_new(struct guarded *g, int32_t x1, int32_t y1, int32_t y2, int32_t height, uint8_t value)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);

	g->size = (size_t)height * 2 * page + 2 * page;
	g->map = mmap(NULL, g->size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(g->map != MAP_FAILED);
	g->gray = (struct vl_epd_gray){
		.data = g->map + page - x1,
		.width = x1 + (int32_t)page + 100,
		.height = height,
		.stride = (int32_t)(2 * page),
	};
	for (int32_t y = y1; y < y2; y++) {
		uint8_t *row = g->map + page + (size_t)y * 2 * page;
		assert_int_equal(mprotect(row, page, PROT_READ | PROT_WRITE), 0);
		memset(row, value, page);
	}
}

static void
test_never_reads_outside_damage(void **state)
{
	const int32_t page = (int32_t)sysconf(_SC_PAGESIZE);
	const int32_t x1 = 100, y1 = 4, y2 = 12;
	struct guarded cur, prev;
	pixman_box32_t changed, out[2];
	pixman_region32_t damage;
	(void)state;

	guarded_new(&cur, x1, y1, y2, 16, 200);
	guarded_new(&prev, x1, y1, y2, 16, 200);
	pixman_box32_t box = {x1, y1, x1 + page, y2};

	/* The whole damage is scanned when nothing changed. */
	assert_false(vl_epd_diff_box(&cur.gray, &prev.gray, &box, &changed));
	/* And each row's edges are reached when changes hug them. */
	*gray_at(&cur.gray, x1, y1) = 1;
	*gray_at(&cur.gray, x1 + page - 1, y2 - 1) = 1;
	assert_true(vl_epd_diff_box(&cur.gray, &prev.gray, &box, &changed));
	assert_box_equal(&changed, x1, y1, x1 + page, y2);
	*gray_at(&cur.gray, x1, y1) = 200;
	*gray_at(&cur.gray, x1 + page - 1, y2 - 1) = 200;
	*gray_at(&cur.gray, x1 + 7, y1 + 3) = 0;
	pixman_region32_init_rect(&damage, box.x1, box.y1, box.x2 - box.x1, box.y2 - box.y1);
	assert_int_equal(vl_epd_diff(&cur.gray, &prev.gray, &damage, out, 2), 1);
	assert_box_equal(&out[0], x1 + 7, y1 + 3, x1 + 8, y1 + 4);
	pixman_region32_fini(&damage);

	munmap(cur.map, cur.size);
	munmap(prev.map, prev.size);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_pixel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_pixel_column, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shape_bounding_box, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outside_damage_ignored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_region_drops_and_shrinks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_inputs, setup, teardown),
		cmocka_unit_test(test_never_reads_outside_damage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
