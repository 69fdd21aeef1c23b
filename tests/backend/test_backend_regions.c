// SPDX-License-Identifier: MIT
/*
 * Pipelined regions on the memory device, whose updates are held in flight
 * at will: an area that overlaps no update in flight goes to the panel at
 * once, however many run elsewhere; content for an area with an update on
 * the panel and one queued behind it waits, merging into one later update;
 * a commit is shown when every area of it is; a change split over two
 * commits costs one update, and goes as soon as the compositor ends its
 * hold. Runs under ASan and UBSan too.
 */
#include <epdfb.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <vellum/epd-pipeline.h>

#include "backend.h"
#include "scene_harness.h"

#define W 400
#define H 300

struct fixture {
	struct scene_harness h;
	struct vl_epd_device *device;
};

struct settle {
	bool done, settled;
	char waveform[16];
};

static void
note_feedback(const struct vl_epd_feedback *feedback, void *data)
{
	struct settle *settle = data;

	assert_false(settle->done); /* exactly once */
	settle->done = true;
	settle->settled = feedback->settled;
	/* a discarded commit names none */
	if (feedback->waveform)
		strncpy(settle->waveform, feedback->waveform, sizeof(settle->waveform) - 1);
}

static void
start_with(struct fixture *f, unsigned int merge_window_ms)
{
	struct vl_epd_backend_options options = {
		.device = "memory:400x300",
		.merge_window_ms = merge_window_ms,
	};
	char error[256];

	memset(f, 0, sizeof(*f));
	if (!scene_harness_start_with(&f->h, &options, error, sizeof(error)))
		fail_msg("%s", error);
	struct vl_epd_backend *backend = wl_container_of(f->h.backend, backend, base);
	f->device = backend->device;
	scene_harness_rect(&f->h, 0, 0, W, H, 255);
	struct vl_epd_feedback feedback;
	assert_true(scene_harness_show(&f->h, &feedback));
}

static void
start(struct fixture *f)
{
	start_with(f, 0);
}

static size_t
n_updates(struct fixture *f)
{
	const struct vl_epd_update *all;

	return vl_epd_memory_updates(f->device, &all);
}

static const struct vl_epd_update *
update_at(struct fixture *f, size_t i)
{
	const struct vl_epd_update *all;

	assert_true(i < vl_epd_memory_updates(f->device, &all));
	return &all[i];
}

/* Lets the I/O threads and the event loop catch up; nothing completes while held. */
static void
settle_loop(struct fixture *f)
{
	scene_harness_idle(&f->h, 50);
}

/* Runs the loop until the device has n updates in its record; fails after 10 s. */
static void
wait_updates(struct fixture *f, size_t n)
{
	for (int i = 0; i < 200 && n_updates(f) < n; i++)
		scene_harness_idle(&f->h, 50);
	assert_true(n_updates(f) >= n);
}

/*
 * Five areas apart from each other, committed one after the other while
 * the panel shows the first: each goes to the panel at once, and the
 * output asks for the next frame every time.
 */
static void
test_apart_areas_go_at_once(void **state)
{
	struct fixture f;
	struct settle first = {0};
	(void)state;

	start(&f);
	size_t before = n_updates(&f);
	vl_epd_memory_hold(f.device, true);
	vl_epd_output_add_feedback(f.h.output, note_feedback, &first);
	for (int i = 0; i < 5; i++) {
		scene_harness_rect(&f.h, 10 + 75 * i, 100, 20, 20, 0);
		assert_true(scene_harness_commit(&f.h));
		settle_loop(&f);
		assert_int_equal(n_updates(&f), before + i + 1);
	}
	assert_false(first.done);
	for (int i = 0; i < 5; i++)
		assert_int_equal(update_at(&f, before + i)->rect.left, 10 + 75 * i);
	vl_epd_memory_hold(f.device, false);
	assert_true(scene_harness_run_until(&f.h, &first.done));
	assert_true(first.settled);
	assert_true(scene_harness_wait_frame(&f.h));
	scene_harness_finish(&f.h);
}

/*
 * One area changed four times while the panel is busy with it: the first
 * change is on the panel, the second queued behind it; the third and the
 * fourth wait and go as one update of the newest content, the third
 * discarded, the fourth shown.
 */
static void
test_overlapping_area_waits_and_merges(void **state)
{
	struct fixture f;
	struct settle s[4] = {0};
	(void)state;

	start(&f);
	struct wlr_scene_rect *rect = scene_harness_rect(&f.h, 100, 100, 40, 40, 255);
	struct vl_epd_feedback feedback;
	assert_true(scene_harness_show(&f.h, &feedback));
	size_t before = n_updates(&f);
	vl_epd_memory_hold(f.device, true);
	static const uint8_t grays[4] = {0, 255, 0, 128};
	for (int i = 0; i < 4; i++) {
		vl_epd_output_add_feedback(f.h.output, note_feedback, &s[i]);
		scene_harness_set_gray(rect, grays[i]);
		assert_true(wlr_scene_output_commit(f.h.scene_output, NULL));
		settle_loop(&f);
	}
	/* two in flight over the area; the rest waits, and so do frames */
	assert_int_equal(n_updates(&f), before + 2);
	assert_false(f.h.frame_ready);
	assert_true(s[2].done);
	assert_false(s[2].settled);
	assert_false(s[3].done);

	vl_epd_memory_hold(f.device, false);
	/* completions are reported as their waits return, in any order */
	for (int i = 0; i < 4; i++)
		assert_true(scene_harness_run_until(&f.h, &s[i].done));
	assert_true(s[0].settled && s[1].settled && s[3].settled);
	assert_int_equal(n_updates(&f), before + 3);
	assert_int_equal(f.device->pixels[110 * W + 110], vl_epd_quantize_value(128, 16));
	assert_true(scene_harness_wait_frame(&f.h));
	scene_harness_finish(&f.h);
}

/*
 * Keys typed into a terminal: each inks its cell and moves the block
 * cursor on into the next, so each change overlaps the cursor's old cell,
 * which the key before is still driving. Returns the device's count of
 * updates before the keys, with the panel holding every update since;
 * frames_after[k] tells whether the output asked for a frame after key k
 * (a key comes only once it did).
 */
#define CELL 12
#define KEYS 6

static size_t
type_over_cursor(struct fixture *f, bool frames_after[KEYS])
{
	struct wlr_scene_rect *cursor = scene_harness_rect(&f->h, 20, 100, CELL, CELL, 0);
	struct vl_epd_feedback feedback;

	assert_true(scene_harness_show(&f->h, &feedback));
	size_t before = n_updates(f);
	vl_epd_memory_hold(f->device, true);
	for (int k = 0; k < KEYS; k++)
		frames_after[k] = false;
	for (int k = 0; k < KEYS && (k == 0 || frames_after[k - 1]); k++) {
		/* the cursor into the next cell, a letter where it was */
		wlr_scene_node_set_position(&cursor->node, 20 + CELL * (k + 1), 100);
		scene_harness_rect(&f->h, 20 + CELL * k + 3, 102, CELL - 6, CELL - 4, 0);
		assert_true(wlr_scene_output_commit(f->h.scene_output, NULL));
		settle_loop(f);
		frames_after[k] = f->h.frame_ready;
	}
	return before;
}

/*
 * On a device that retargets fast waveforms (epdfb's panel model) a key's
 * DU takes the cursor's old cell over from the DU still driving it: every
 * key goes to the panel at once, and the output asks for the next frame
 * at once, so the key after is drawn meanwhile.
 */
static void
test_typing_goes_at_once_over_the_cursor(void **state)
{
	struct fixture f;
	bool frames_after[KEYS];
	(void)state;

	start(&f);
	vl_epd_memory_set_retargets_fast(f.device, true);
	size_t before = type_over_cursor(&f, frames_after);
	assert_int_equal(n_updates(&f), before + KEYS);
	for (int k = 0; k < KEYS; k++) {
		const struct vl_epd_update *update = update_at(&f, before + k);
		assert_int_equal(update->rect.left, 20 + CELL * k);
		assert_int_equal(update->waveform, WAVEFORM_MODE_DU);
		assert_true(frames_after[k]);
	}
	vl_epd_memory_hold(f.device, false);
	assert_true(scene_harness_wait_frame(&f.h));
	scene_harness_finish(&f.h);
}

/*
 * On a device that makes an update wait for the one driving its pixels (an
 * EPDC), the key after the cursor's move queues behind it: the output
 * holds the next frame until the panel showed the key before.
 */
static void
test_typing_waits_for_the_cursor_without_retargeting(void **state)
{
	struct fixture f;
	bool frames_after[KEYS];
	(void)state;

	start(&f);
	size_t before = type_over_cursor(&f, frames_after);
	assert_true(frames_after[0]);
	assert_false(frames_after[1]);
	vl_epd_memory_hold(f.device, false);
	assert_true(scene_harness_wait_frame(&f.h));
	assert_true(n_updates(&f) < before + KEYS);
	scene_harness_finish(&f.h);
}

/*
 * A commit with an area free and one that must wait: the free one goes at
 * once, and the commit is shown only once the other reached the panel too.
 * Feedback on the free area names the waveform that drew it.
 */
static void
test_commit_shown_when_every_area_is(void **state)
{
	struct fixture f;
	struct settle busy[2] = {0}, both = {0}, free_area = {0};
	struct wlr_box free_box = {300, 200, 30, 30};
	(void)state;

	start(&f);
	struct wlr_scene_rect *rect = scene_harness_rect(&f.h, 20, 20, 40, 40, 255);
	struct vl_epd_feedback feedback;
	assert_true(scene_harness_show(&f.h, &feedback));
	vl_epd_memory_hold(f.device, true);
	for (int i = 0; i < 2; i++) {
		vl_epd_output_add_feedback(f.h.output, note_feedback, &busy[i]);
		scene_harness_set_gray(rect, i ? 255 : 0);
		assert_true(wlr_scene_output_commit(f.h.scene_output, NULL));
		settle_loop(&f);
	}
	size_t before = n_updates(&f);
	vl_epd_output_add_feedback(f.h.output, note_feedback, &both);
	assert_true(vl_epd_output_add_area_feedback(
		f.h.output, &free_box, 7, note_feedback, &free_area));
	scene_harness_set_gray(rect, 0);
	scene_harness_rect(&f.h, 300, 200, 30, 30, 0);
	assert_true(wlr_scene_output_commit(f.h.scene_output, NULL));
	settle_loop(&f);
	/* the free area went at once */
	assert_int_equal(n_updates(&f), before + 1);
	assert_int_equal(update_at(&f, before)->rect.left, 300);

	vl_epd_memory_hold(f.device, false);
	assert_true(scene_harness_run_until(&f.h, &both.done));
	assert_true(both.settled);
	/* completions are reported as each wait returns: an earlier one's may come a moment later
	 */
	assert_true(scene_harness_run_until(&f.h, &busy[0].done));
	assert_true(scene_harness_run_until(&f.h, &busy[1].done));
	assert_true(busy[0].settled && busy[1].settled);
	assert_true(free_area.done && free_area.settled);
	assert_string_equal(free_area.waveform, "DU");
	/* and the waiting area came after it */
	assert_int_equal(n_updates(&f), before + 2);
	assert_int_equal(update_at(&f, before + 1)->rect.left, 20);
	assert_int_equal(f.device->pixels[30 * W + 30], 0);
	scene_harness_finish(&f.h);
}

/*
 * One change a client commits in two halves, the second after the frame
 * that followed the first (as Xwayland does): without a merge window two
 * updates, with one a single update showing both halves, and the first
 * commit superseded by the second.
 */
static void
split_change(unsigned int merge_window_ms, size_t want_updates)
{
	struct fixture f;
	struct settle first = {0}, second = {0};

	start_with(&f, merge_window_ms);
	size_t before = n_updates(&f);
	vl_epd_output_add_feedback(f.h.output, note_feedback, &first);
	scene_harness_rect(&f.h, 100, 100, 60, 20, 0);
	assert_true(scene_harness_commit(&f.h));
	vl_epd_output_add_feedback(f.h.output, note_feedback, &second);
	scene_harness_rect(&f.h, 100, 120, 60, 20, 0);
	assert_true(scene_harness_commit(&f.h));
	assert_true(scene_harness_run_until(&f.h, &second.done));
	assert_true(second.settled);
	assert_true(first.done);
	assert_int_equal(n_updates(&f), before + want_updates);
	if (want_updates == 1) {
		assert_false(first.settled);
		const struct vl_epd_update *u = update_at(&f, before);
		assert_int_equal(u->rect.top, 100);
		assert_int_equal(u->rect.height, 40);
	}
	assert_int_equal(f.device->pixels[110 * W + 110], 0);
	assert_int_equal(f.device->pixels[130 * W + 110], 0);
	scene_harness_finish(&f.h);
}

static void
test_split_change_costs_one_update(void **state)
{
	(void)state;

	split_change(0, 2);
	/* long enough for the second half on any machine */
	split_change(2000, 1);
}

/*
 * The same split change in an area whose hint gives it a merge window (an
 * X11 window's): its halves wait for each other and go as one update,
 * while a change elsewhere on the panel goes at once meanwhile.
 */
static void
test_hinted_split_change_waits_alone(void **state)
{
	struct fixture f;
	struct settle second = {0};
	/* long enough for the second half on any machine */
	struct vl_epd_hint x11 = {.box = {80, 80, 120, 100}, .merge_window_ms = 2000};
	(void)state;

	start(&f);
	size_t before = n_updates(&f);
	scene_harness_rect(&f.h, 100, 100, 60, 20, 0);
	vl_epd_output_add_hint(f.h.output, &x11);
	assert_true(scene_harness_commit(&f.h));
	scene_harness_rect(&f.h, 300, 20, 30, 30, 0);
	assert_true(scene_harness_commit(&f.h));
	settle_loop(&f);
	assert_int_equal(n_updates(&f), before + 1);
	assert_int_equal(update_at(&f, before)->rect.left, 300);

	vl_epd_output_add_feedback(f.h.output, note_feedback, &second);
	scene_harness_rect(&f.h, 100, 120, 60, 20, 0);
	vl_epd_output_add_hint(f.h.output, &x11);
	assert_true(scene_harness_commit(&f.h));
	assert_true(scene_harness_run_until(&f.h, &second.done));
	assert_true(second.settled);
	assert_int_equal(n_updates(&f), before + 2);
	const struct vl_epd_update *u = update_at(&f, before + 1);
	assert_int_equal(u->rect.top, 100);
	assert_int_equal(u->rect.height, 40);
	assert_int_equal(f.device->pixels[110 * W + 110], 0);
	assert_int_equal(f.device->pixels[130 * W + 110], 0);
	scene_harness_finish(&f.h);
}

/*
 * A compositor that knows a change is complete ends its hold early: the
 * halves of an X11 window's change, held for a merge window longer than
 * the test, go to the panel as one update as soon as the hold over the
 * window ends, while a change held in another area waits on; the commit
 * is shown once that area's hold ends too. A hold ended where nothing is
 * held sends nothing.
 */
static void
test_ended_hold_goes_at_once(void **state)
{
	struct fixture f;
	struct settle first = {0}, second = {0};
	/* long enough to wait through the rest of the test on any machine */
	struct vl_epd_hint x11 = {.box = {80, 80, 120, 100}, .merge_window_ms = 60000};
	struct vl_epd_hint other = {.box = {300, 20, 60, 60}, .merge_window_ms = 60000};
	(void)state;

	start(&f);
	size_t before = n_updates(&f);
	vl_epd_output_add_feedback(f.h.output, note_feedback, &first);
	scene_harness_rect(&f.h, 100, 100, 60, 20, 0);
	scene_harness_rect(&f.h, 310, 30, 20, 20, 0);
	vl_epd_output_add_hint(f.h.output, &x11);
	vl_epd_output_add_hint(f.h.output, &other);
	assert_true(scene_harness_commit(&f.h));
	vl_epd_output_add_feedback(f.h.output, note_feedback, &second);
	scene_harness_rect(&f.h, 100, 120, 60, 20, 0);
	vl_epd_output_add_hint(f.h.output, &x11);
	assert_true(scene_harness_commit(&f.h));
	settle_loop(&f);
	assert_int_equal(n_updates(&f), before);

	/* nothing held there */
	vl_epd_output_end_hold(f.h.output, &(struct wlr_box){0, 250, W, 50});
	settle_loop(&f);
	assert_int_equal(n_updates(&f), before);

	vl_epd_output_end_hold(f.h.output, &x11.box);
	wait_updates(&f, before + 1);
	settle_loop(&f);
	assert_int_equal(n_updates(&f), before + 1);
	const struct vl_epd_update *u = update_at(&f, before);
	assert_int_equal(u->rect.left, 100);
	assert_int_equal(u->rect.top, 100);
	assert_int_equal(u->rect.height, 40);
	assert_int_equal(f.device->pixels[110 * W + 110], 0);
	assert_int_equal(f.device->pixels[130 * W + 110], 0);
	/* the other area is still held, and the commit waits for it */
	assert_int_equal(f.device->pixels[40 * W + 320], 255);
	assert_true(first.done);
	assert_false(first.settled);
	assert_false(second.done);

	/* a box beyond the panel ends the hold over the part on it */
	vl_epd_output_end_hold(f.h.output, &(struct wlr_box){-100, -100, W + 200, 200});
	assert_true(scene_harness_run_until(&f.h, &second.done));
	assert_true(second.settled);
	assert_int_equal(n_updates(&f), before + 2);
	assert_int_equal(update_at(&f, before + 1)->rect.left, 310);
	assert_int_equal(f.device->pixels[40 * W + 320], 0);
	scene_harness_finish(&f.h);
}

/*
 * A full-refresh hint flashes the content it came with, once: while an X11
 * window's change waits for its merge window, a later change in the
 * flashed area, which no hint came with, goes out without a flash.
 */
static void
test_full_refresh_hint_flashes_once(void **state)
{
	struct fixture f;
	/* long enough to wait through the rest of the test on any machine */
	struct vl_epd_hint x11 = {.box = {300, 20, 60, 60}, .merge_window_ms = 60000};
	struct vl_epd_hint refresh = {.box = {30, 40, 50, 60}, .full_refresh = true};
	(void)state;

	start(&f);
	size_t before = n_updates(&f);
	scene_harness_rect(&f.h, 310, 30, 20, 20, 0);
	vl_epd_output_add_hint(f.h.output, &x11);
	vl_epd_output_add_hint(f.h.output, &refresh);
	assert_true(scene_harness_commit(&f.h));
	/* the flash goes; the X11 window's change waits */
	wait_updates(&f, before + 1);
	settle_loop(&f);
	assert_int_equal(n_updates(&f), before + 1);
	const struct vl_epd_update *u = update_at(&f, before);
	assert_true(u->full);
	assert_int_equal(u->waveform, WAVEFORM_MODE_GC16);
	assert_int_equal(u->rect.left, 30);
	assert_int_equal(u->rect.top, 40);

	scene_harness_rect(&f.h, 40, 50, 10, 10, 0);
	assert_true(scene_harness_commit(&f.h));
	wait_updates(&f, before + 2);
	settle_loop(&f);
	assert_int_equal(n_updates(&f), before + 2);
	u = update_at(&f, before + 1);
	assert_false(u->full);
	assert_int_equal(u->waveform, WAVEFORM_MODE_DU);
	assert_int_equal(u->rect.left, 40);
	assert_int_equal(u->rect.width, 10);
	assert_int_equal(f.device->pixels[55 * W + 45], 0);
	scene_harness_finish(&f.h);
}

/*
 * A device that copies each update's pixels out when it submits it (a
 * controller over USB or SPI) gets the pixels of the frame the update was
 * made for, even when a later frame writes part of its box while it waits
 * to be submitted: no update shows a mix of two frames.
 */
static void
test_queued_update_keeps_its_pixels(void **state)
{
	struct fixture f;
	(void)state;

	start(&f);
	vl_epd_memory_set_copy_out(f.device, true);
	size_t before = n_updates(&f);
	/* the first update waits in its submission, and the second behind it */
	vl_epd_memory_gate(f.device, true);
	scene_harness_rect(&f.h, 100, 100, 100, 100, 0);
	assert_true(scene_harness_commit(&f.h));
	/* over the right half of the first box */
	scene_harness_rect(&f.h, 150, 120, 100, 60, 255);
	assert_true(scene_harness_commit(&f.h));
	settle_loop(&f);
	assert_int_equal(n_updates(&f), before);
	vl_epd_memory_gate(f.device, false);
	wait_updates(&f, before + 2);

	const struct vl_epd_update *first = update_at(&f, before);
	assert_int_equal(first->rect.left, 100);
	assert_int_equal(first->rect.top, 100);
	assert_int_equal(first->rect.width, 100);
	assert_int_equal(first->rect.height, 100);
	const uint8_t *pixels = vl_epd_memory_update_pixels(f.device, before);
	assert_non_null(pixels);
	for (uint32_t i = 0; i < first->rect.width * first->rect.height; i++) {
		if (pixels[i] != 0)
			fail_msg("the first frame's update has %u at %u,%u", pixels[i],
				first->rect.left + i % first->rect.width,
				first->rect.top + i / first->rect.width);
	}
	const struct vl_epd_update *second = update_at(&f, before + 1);
	assert_int_equal(second->rect.left, 150);
	pixels = vl_epd_memory_update_pixels(f.device, before + 1);
	assert_non_null(pixels);
	assert_int_equal(pixels[0], 255);
	/* and the panel ends with the second frame */
	assert_int_equal(vl_epd_memory_panel(f.device)[150 * W + 175], 255);
	assert_int_equal(vl_epd_memory_panel(f.device)[150 * W + 125], 0);
	scene_harness_finish(&f.h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_apart_areas_go_at_once),
		cmocka_unit_test(test_overlapping_area_waits_and_merges),
		cmocka_unit_test(test_typing_goes_at_once_over_the_cursor),
		cmocka_unit_test(test_typing_waits_for_the_cursor_without_retargeting),
		cmocka_unit_test(test_commit_shown_when_every_area_is),
		cmocka_unit_test(test_split_change_costs_one_update),
		cmocka_unit_test(test_hinted_split_change_waits_alone),
		cmocka_unit_test(test_ended_hold_goes_at_once),
		cmocka_unit_test(test_full_refresh_hint_flashes_once),
		cmocka_unit_test(test_queued_update_keeps_its_pixels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
