// SPDX-License-Identifier: MIT
/*
 * ghost: debt per cell, promotion to a flashing refresh, idle cleanup.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <epdfb.h>

#include "helpers.h"

static struct vl_epd_ghost *
ghost_new(int32_t w, int32_t h, uint32_t every, uint32_t threshold, uint32_t idle_ms)
{
	struct vl_epd_ghost_options o;

	vl_epd_ghost_options_default(&o, w, h);
	o.full_refresh_every = every;
	o.debt_threshold = threshold;
	o.idle_cleanup_ms = idle_ms;
	struct vl_epd_ghost *ghost = vl_epd_ghost_create(&o);
	assert_non_null(ghost);
	return ghost;
}

static void
test_defaults(void **state)
{
	struct vl_epd_ghost_options o;
	(void)state;

	vl_epd_ghost_options_default(&o, 1872, 1404);
	assert_int_equal(o.panel_width, 1872);
	assert_int_equal(o.panel_height, 1404);
	assert_int_equal(o.cell_size, 64);
	/* the debt decides, not a count of partials: a clock is not work */
	assert_int_equal(o.full_refresh_every, 0);
	assert_int_equal(o.debt_threshold, 40);
	assert_int_equal(o.cleanup_debt, 2 * o.debt_du);
	assert_int_equal(o.idle_cleanup_ms, 0);
	assert_true(o.debt_a2 > o.debt_du && o.debt_du > o.debt_gl16);
	assert_int_equal(o.debt_gl16, o.debt_gc16);
	vl_epd_ghost_options_default(NULL, 1, 1);
}

/* After N partials on an area, its next update flashes; the flash resets it. */
static void
test_every_n_partials(void **state)
{
	struct vl_epd_ghost *ghost = ghost_new(1872, 1404, 3, 0, 0);
	pixman_box32_t box = {10, 10, 50, 50}, promoted = {0};
	uint32_t partials, debt;
	(void)state;

	for (int i = 0; i < 3; i++) {
		assert_false(vl_epd_ghost_promote(ghost, &box, &promoted));
		vl_epd_ghost_record(ghost, &box, WAVEFORM_MODE_GL16, false, 1000 + i);
	}
	assert_true(vl_epd_ghost_cell(ghost, 20, 20, &partials, &debt));
	assert_int_equal(partials, 3);
	assert_int_equal(debt, 3);
	assert_true(vl_epd_ghost_promote(ghost, &box, &promoted));
	assert_box_equal(&promoted, 0, 0, 64, 64); /* the whole cell */
	/* Any update touching the cell, not only the same box. */
	pixman_box32_t corner = {60, 60, 70, 70};
	assert_true(vl_epd_ghost_promote(ghost, &corner, &promoted));
	assert_box_equal(&promoted, 0, 0, 70, 70);

	vl_epd_ghost_record(ghost, &(pixman_box32_t){0, 0, 64, 64}, WAVEFORM_MODE_GC16, true, 2000);
	assert_true(vl_epd_ghost_cell(ghost, 20, 20, &partials, &debt));
	assert_int_equal(partials, 0);
	assert_int_equal(debt, 0);
	assert_false(vl_epd_ghost_promote(ghost, &box, &promoted));
	vl_epd_ghost_destroy(ghost);
}

static void
test_partial_flash_keeps_debt(void **state)
{
	struct vl_epd_ghost *ghost = ghost_new(1872, 1404, 1, 0, 0);
	pixman_box32_t box = {10, 10, 50, 50}, promoted;
	uint32_t partials;
	(void)state;

	vl_epd_ghost_record(ghost, &box, WAVEFORM_MODE_DU, false, 0);
	/* A flash over part of the cell leaves the rest of it ghosted. */
	vl_epd_ghost_record(ghost, &box, WAVEFORM_MODE_GC16, true, 1);
	assert_true(vl_epd_ghost_cell(ghost, 10, 10, &partials, NULL));
	assert_int_equal(partials, 1);
	assert_true(vl_epd_ghost_promote(ghost, &box, &promoted));
	vl_epd_ghost_record(ghost, &promoted, WAVEFORM_MODE_GC16, true, 2);
	assert_false(vl_epd_ghost_promote(ghost, &box, &promoted));
	vl_epd_ghost_destroy(ghost);
}

/* Threshold 8: A2 (4) flashes after 2 updates, DU (2) after 4, GL16 (1) after 8. */
static void
test_debt_by_waveform(void **state)
{
	static const struct {
		uint32_t waveform;
		int updates;
	} cases[] = {
		{WAVEFORM_MODE_A2, 2},
		{WAVEFORM_MODE_DU, 4},
		{WAVEFORM_MODE_GC4, 4},
		{WAVEFORM_MODE_GL16, 8},
		{WAVEFORM_MODE_GC16, 8},
		{42, 4},
	};
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct vl_epd_ghost *ghost = ghost_new(640, 480, 0, 8, 0);
		pixman_box32_t box = {100, 100, 120, 110}, promoted;
		for (int i = 0; i < cases[c].updates; i++) {
			assert_false(vl_epd_ghost_promote(ghost, &box, &promoted));
			vl_epd_ghost_record(ghost, &box, cases[c].waveform, false, 0);
		}
		assert_true(vl_epd_ghost_promote(ghost, &box, &promoted));
		assert_box_equal(&promoted, 64, 64, 128, 128);
		vl_epd_ghost_destroy(ghost);
	}
}

/* Only the due cells grow the box, and the panel clips it. */
static void
test_promotion_rect(void **state)
{
	struct vl_epd_ghost *ghost = ghost_new(100, 100, 2, 0, 0);
	pixman_box32_t promoted;
	(void)state;

	/* Cell (1, 1) is 64..100 x 64..100 on a 100x100 panel. */
	pixman_box32_t due = {70, 70, 80, 80};
	vl_epd_ghost_record(ghost, &due, WAVEFORM_MODE_DU, false, 0);
	vl_epd_ghost_record(ghost, &due, WAVEFORM_MODE_DU, false, 0);
	vl_epd_ghost_record(ghost, &(pixman_box32_t){0, 0, 10, 10}, WAVEFORM_MODE_DU, false, 0);
	pixman_box32_t update = {30, 60, 75, 75}; /* touches cells (0,0), (1,0), (0,1), (1,1) */
	assert_true(vl_epd_ghost_promote(ghost, &update, &promoted));
	assert_box_equal(&promoted, 30, 60, 100, 100);
	/* The promoted flash clears the due cell. */
	vl_epd_ghost_record(ghost, &promoted, WAVEFORM_MODE_GC16, true, 1);
	assert_false(vl_epd_ghost_promote(ghost, &update, &promoted));
	vl_epd_ghost_destroy(ghost);
}

static void
test_idle_cleanup(void **state)
{
	struct vl_epd_ghost *ghost = ghost_new(1872, 1404, 0, 0, 1000);
	pixman_region32_t flash, redraw;
	uint64_t deadline = 0;
	(void)state;

	pixman_region32_init(&flash);
	pixman_region32_init(&redraw);
	assert_int_equal(vl_epd_ghost_cleanup(ghost, 0, &deadline, &flash, &redraw), -1);

	/* Partial updates alone (a clock) wait for no cleanup: their debt decides. */
	vl_epd_ghost_record(
		ghost, &(pixman_box32_t){100, 100, 200, 120}, WAVEFORM_MODE_A2, false, 5000);
	vl_epd_ghost_record(
		ghost, &(pixman_box32_t){1800, 1390, 1872, 1404}, WAVEFORM_MODE_DU, false, 5100);
	assert_int_equal(vl_epd_ghost_cleanup(ghost, 5200, &deadline, NULL, NULL), -1);

	/* Drawn fast while the user worked: remembered. */
	vl_epd_ghost_remember(ghost, &(pixman_box32_t){100, 100, 200, 120});
	vl_epd_ghost_remember(ghost, &(pixman_box32_t){1800, 1390, 1872, 1404});
	assert_int_equal(vl_epd_ghost_cleanup(ghost, 5200, &deadline, &flash, &redraw), 900);
	assert_int_equal(deadline, 6100);
	/*
	 * A2's debt (4) asks for a flash over cells 64..256 x 64..128; one DU
	 * update (2) only for a redraw of the clipped corner cell.
	 */
	pixman_region32_t want;
	pixman_region32_init_rect(&want, 64, 64, 192, 64);
	assert_true(pixman_region32_equal(&flash, &want));
	pixman_region32_fini(&want);
	pixman_region32_init_rect(&want, 1792, 1344, 80, 60);
	assert_true(pixman_region32_equal(&redraw, &want));
	pixman_region32_fini(&want);
	assert_int_equal(vl_epd_ghost_cleanup(ghost, 6100, &deadline, NULL, NULL), 0);
	assert_int_equal(vl_epd_ghost_cleanup(ghost, 9999, &deadline, &flash, NULL), 0);

	/* The cleanup itself, a flash and a forgotten redraw, leaves nothing to clean. */
	int n;
	const pixman_box32_t *rects = pixman_region32_rectangles(&flash, &n);
	for (int i = 0; i < n; i++)
		vl_epd_ghost_record(ghost, &rects[i], WAVEFORM_MODE_GC16, true, 10000);
	assert_int_equal(vl_epd_ghost_cleanup(ghost, 10000, &deadline, &flash, &redraw), 1000);
	assert_false(pixman_region32_not_empty(&flash));
	rects = pixman_region32_rectangles(&redraw, &n);
	for (int i = 0; i < n; i++) {
		vl_epd_ghost_record(ghost, &rects[i], WAVEFORM_MODE_GL16, false, 10000);
		vl_epd_ghost_forget(ghost, &rects[i]);
	}
	assert_int_equal(vl_epd_ghost_cleanup(ghost, 10000, &deadline, &flash, &redraw), -1);

	/* A promotion put off is due at the cleanup too, as a flash. */
	vl_epd_ghost_destroy(ghost);
	ghost = ghost_new(1872, 1404, 0, 4, 1000);
	vl_epd_ghost_record(ghost, &(pixman_box32_t){0, 0, 10, 10}, WAVEFORM_MODE_DU, false, 1);
	vl_epd_ghost_record(ghost, &(pixman_box32_t){0, 0, 10, 10}, WAVEFORM_MODE_DU, false, 2);
	assert_int_equal(vl_epd_ghost_cleanup(ghost, 2, &deadline, &flash, &redraw), 1000);
	assert_box_equal(pixman_region32_extents(&flash), 0, 0, 64, 64);
	assert_false(pixman_region32_not_empty(&redraw));
	pixman_region32_fini(&flash);
	pixman_region32_fini(&redraw);
	vl_epd_ghost_destroy(ghost);

	/* Disabled. */
	ghost = ghost_new(100, 100, 0, 0, 0);
	vl_epd_ghost_record(ghost, &(pixman_box32_t){0, 0, 10, 10}, WAVEFORM_MODE_A2, false, 1);
	vl_epd_ghost_remember(ghost, &(pixman_box32_t){0, 0, 10, 10});
	assert_int_equal(vl_epd_ghost_cleanup(ghost, 1, &deadline, NULL, NULL), -1);
	vl_epd_ghost_destroy(ghost);
}

static void
test_bad_inputs(void **state)
{
	struct vl_epd_ghost_options o;
	struct vl_epd_ghost *ghost;
	pixman_box32_t box = {0, 0, 10, 10}, promoted;
	uint64_t deadline;
	uint32_t partials;
	(void)state;

	assert_null(vl_epd_ghost_create(NULL));
	vl_epd_ghost_options_default(&o, 0, 100);
	assert_null(vl_epd_ghost_create(&o));
	vl_epd_ghost_options_default(&o, 100, 100);
	o.cell_size = 0;
	assert_null(vl_epd_ghost_create(&o));
	vl_epd_ghost_destroy(NULL);

	/* A cell larger than the panel is the whole panel. */
	o.cell_size = INT32_MAX;
	o.full_refresh_every = 1;
	ghost = vl_epd_ghost_create(&o);
	assert_non_null(ghost);
	vl_epd_ghost_record(ghost, &box, WAVEFORM_MODE_DU, false, 0);
	assert_true(vl_epd_ghost_promote(ghost, &box, &promoted));
	assert_box_equal(&promoted, 0, 0, 100, 100);
	vl_epd_ghost_destroy(ghost);

	ghost = ghost_new(100, 100, 1, 0, 10);
	vl_epd_ghost_record(NULL, &box, WAVEFORM_MODE_DU, false, 0);
	vl_epd_ghost_record(ghost, NULL, WAVEFORM_MODE_DU, false, 0);
	vl_epd_ghost_record(ghost, &(pixman_box32_t){5, 5, 5, 50}, WAVEFORM_MODE_DU, false, 0);
	vl_epd_ghost_record(ghost, &(pixman_box32_t){100, 0, 200, 50}, WAVEFORM_MODE_DU, false, 0);
	assert_int_equal(vl_epd_ghost_cleanup(ghost, 0, &deadline, NULL, NULL), -1);
	assert_false(vl_epd_ghost_promote(NULL, &box, &promoted));
	assert_false(vl_epd_ghost_promote(ghost, NULL, &promoted));
	assert_false(vl_epd_ghost_promote(ghost, &box, NULL));
	assert_int_equal(vl_epd_ghost_cleanup(NULL, 0, &deadline, NULL, NULL), -1);
	vl_epd_ghost_remember(NULL, &box);
	vl_epd_ghost_forget(NULL, &box);
	vl_epd_ghost_remember(ghost, NULL);
	assert_int_equal(vl_epd_ghost_cleanup(ghost, 0, NULL, NULL, NULL), -1);
	assert_false(vl_epd_ghost_cell(ghost, 100, 0, &partials, NULL));
	assert_false(vl_epd_ghost_cell(ghost, -1, 0, &partials, NULL));
	assert_false(vl_epd_ghost_cell(NULL, 0, 0, &partials, NULL));

	/* Partly outside: the inside part counts. */
	vl_epd_ghost_record(ghost, &(pixman_box32_t){-50, -50, 5, 5}, WAVEFORM_MODE_DU, false, 0);
	assert_true(vl_epd_ghost_cell(ghost, 0, 0, &partials, NULL));
	assert_int_equal(partials, 1);
	vl_epd_ghost_destroy(ghost);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_n_partials),
		cmocka_unit_test(test_partial_flash_keeps_debt),
		cmocka_unit_test(test_debt_by_waveform),
		cmocka_unit_test(test_promotion_rect),
		cmocka_unit_test(test_idle_cleanup),
		cmocka_unit_test(test_bad_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
