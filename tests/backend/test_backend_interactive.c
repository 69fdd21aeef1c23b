// SPDX-License-Identifier: MIT
/*
 * The refresh policy while the user works, on the memory device: changes
 * made while input comes go out fast (DU, A2 for pen and scrolling) and
 * flash nowhere; once panel and input are quiet, the areas drawn so get one
 * cleanup update each; a clock ticking without input flashes only when its
 * ghost debt says so. Runs under ASan and UBSan too.
 */
#include <epdfb.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <vellum/epd-pipeline.h>

#include "backend.h"
#include "scene_harness.h"

#define W 400
#define H 300

/* Long enough that every commit of a test counts as made while the user works. */
#define WINDOW_MS 60000

struct fixture {
	struct scene_harness h;
	struct vl_epd_device *device;
	size_t seen;
};

static void
start_with(struct fixture *f, const struct vl_epd_backend_options *options)
{
	char error[256];

	memset(f, 0, sizeof(*f));
	if (!scene_harness_start_with(&f->h, options, error, sizeof(error)))
		fail_msg("%s", error);
	struct vl_epd_backend *backend = wl_container_of(f->h.backend, backend, base);
	f->device = backend->device;
	/* a white page, flashed once as the first frame is */
	scene_harness_rect(&f->h, 0, 0, W, H, 255);
}

static void
start(struct fixture *f, unsigned int input_window_ms, unsigned int idle_cleanup_ms)
{
	struct vl_epd_backend_options options = {
		.device = "memory:400x300",
		.input_window_ms = input_window_ms,
		.idle_cleanup_ms = idle_cleanup_ms,
	};

	start_with(f, &options);
}

/*
 * Waits out the second after the first frame's flash, in which what is
 * drawn counts as the application's start (no page flash, no ghost debt
 * that would flash at rest).
 */
static void
past_start(struct fixture *f)
{
	scene_harness_idle(&f->h, 1100);
}

/* Shows the scene; returns the updates since the last look. */
static size_t
show(struct fixture *f, const struct vl_epd_update **fresh)
{
	struct vl_epd_feedback feedback;
	const struct vl_epd_update *all;

	assert_true(scene_harness_show(&f->h, &feedback));
	assert_true(feedback.settled);
	size_t n = vl_epd_memory_updates(f->device, &all);
	*fresh = all + f->seen;
	size_t count = n - f->seen;
	f->seen = n;
	return count;
}

/* Runs the loop until an update beyond the seen ones came (or ms passed); returns them. */
static size_t
wait_updates(struct fixture *f, int ms, const struct vl_epd_update **fresh)
{
	const struct vl_epd_update *all;
	size_t n = vl_epd_memory_updates(f->device, &all);

	for (int waited = 0; waited < ms && n == f->seen; waited += 20) {
		scene_harness_idle(&f->h, 20);
		n = vl_epd_memory_updates(f->device, &all);
	}
	/* the cleanup's updates are submitted together: take them all */
	scene_harness_idle(&f->h, 20);
	n = vl_epd_memory_updates(f->device, &all);
	*fresh = all + f->seen;
	size_t count = n - f->seen;
	f->seen = n;
	return count;
}

static bool
contains(const struct vl_epd_update *u, int x1, int y1, int x2, int y2)
{
	return u->rect.left <= (uint32_t)x1 && u->rect.top <= (uint32_t)y1 &&
	       u->rect.left + u->rect.width >= (uint32_t)x2 &&
	       u->rect.top + u->rect.height >= (uint32_t)y2;
}

/*
 * Antialiased text typed over and over in one place while keys come: every
 * update is a DU and none flashes, though its ghost debt passes the limit
 * at which an update flashes without input.
 */
static void
test_typing_is_fast_and_flashes_nowhere(void **state)
{
	struct fixture f;
	const struct vl_epd_update *u;
	(void)state;

	start(&f, WINDOW_MS, 0);
	show(&f, &u);
	struct wlr_scene_rect *glyph = scene_harness_rect(&f.h, 40, 40, 8, 12, 255);
	for (int i = 0; i < 30; i++) {
		vl_epd_backend_notify_input(f.h.backend, VL_EPD_INPUT_KEY);
		scene_harness_set_gray(glyph, i % 2 ? 255 : 90);
		assert_int_equal(show(&f, &u), 1);
		assert_int_equal(u[0].waveform, WAVEFORM_MODE_DU);
		assert_false(u[0].full);
	}
	/* on DU, gray is dithered to black and white */
	uint8_t v = f.device->pixels[45 * W + 44];
	assert_true(v == 0 || v == 255);
	scene_harness_finish(&f.h);
}

/* A pen stroke or a scroll goes out in A2, also for a large area. */
static void
test_pen_and_scroll_use_a2(void **state)
{
	struct fixture f;
	const struct vl_epd_update *u;
	(void)state;

	start(&f, WINDOW_MS, 0);
	show(&f, &u);
	vl_epd_backend_notify_input(f.h.backend, VL_EPD_INPUT_PEN);
	scene_harness_rect(&f.h, 100, 100, 30, 4, 0);
	assert_int_equal(show(&f, &u), 1);
	assert_int_equal(u[0].waveform, WAVEFORM_MODE_A2);
	assert_false(u[0].full);

	/* content scrolled over most of the panel: no page flash either */
	vl_epd_backend_notify_input(f.h.backend, VL_EPD_INPUT_SCROLL);
	scene_harness_rect(&f.h, 0, 0, W, H - 10, 140);
	assert_int_equal(show(&f, &u), 1);
	assert_int_equal(u[0].waveform, WAVEFORM_MODE_A2);
	assert_false(u[0].full);
	scene_harness_finish(&f.h);
}

/* An explicit mode wins over the input policy. */
static void
test_explicit_mode_wins(void **state)
{
	struct fixture f;
	const struct vl_epd_update *u;
	struct vl_epd_hint quality = {.box = {200, 100, 40, 40}, .mode = VL_EPD_MODE_QUALITY};
	(void)state;

	start(&f, WINDOW_MS, 0);
	show(&f, &u);
	vl_epd_backend_notify_input(f.h.backend, VL_EPD_INPUT_PEN);
	scene_harness_rect(&f.h, 200, 100, 40, 40, 120);
	vl_epd_output_add_hint(f.h.output, &quality);
	assert_int_equal(show(&f, &u), 1);
	assert_int_equal(u[0].waveform, WAVEFORM_MODE_GC16);
	scene_harness_finish(&f.h);
}

/*
 * Once input and panel are quiet for the idle delay, each area drawn fast
 * gets one cleanup update: a flash where several fast updates left debt, a
 * 16-level redraw without a flash where one did; then nothing more.
 */
static void
test_idle_cleanup_per_area(void **state)
{
	struct fixture f;
	const struct vl_epd_update *u;
	(void)state;

	start(&f, WINDOW_MS, 200);
	show(&f, &u);
	/* a line typed in the top left cell, one key far from it */
	for (int i = 0; i < 4; i++) {
		vl_epd_backend_notify_input(f.h.backend, VL_EPD_INPUT_KEY);
		scene_harness_rect(&f.h, 8 + 10 * i, 8, 8, 12, 0);
		assert_int_equal(show(&f, &u), 1);
		assert_int_equal(u[0].waveform, WAVEFORM_MODE_DU);
	}
	vl_epd_backend_notify_input(f.h.backend, VL_EPD_INPUT_KEY);
	scene_harness_rect(&f.h, 300, 200, 8, 12, 100);
	assert_int_equal(show(&f, &u), 1);
	assert_int_equal(u[0].waveform, WAVEFORM_MODE_DU);
	uint8_t dithered = f.device->pixels[205 * W + 304];
	assert_true(dithered == 0 || dithered == 255);

	size_t n = wait_updates(&f, 5000, &u);
	assert_int_equal(n, 2);
	size_t flash = u[0].full ? 0 : 1, redraw = 1 - flash;
	assert_true(u[flash].full);
	assert_int_equal(u[flash].waveform, WAVEFORM_MODE_GC16);
	assert_true(contains(&u[flash], 8, 8, 48, 20));
	assert_false(contains(&u[flash], 300, 200, 308, 212));
	assert_false(u[redraw].full);
	assert_int_equal(u[redraw].waveform, WAVEFORM_MODE_GL16);
	assert_true(contains(&u[redraw], 300, 200, 308, 212));
	/* the redraw shows the gray, not its dither */
	assert_int_equal(f.device->pixels[205 * W + 304], vl_epd_quantize_value(100, 16));

	/* cleaned up: nothing more comes */
	assert_int_equal(wait_updates(&f, 600, &u), 0);
	scene_harness_finish(&f.h);
}

/*
 * A clock ticking without input is not the user working: its ticks keep
 * their waveform, get no cleanup while the panel rests between them, and
 * flash only once their ghost debt is due.
 */
static void
test_clock_flashes_by_debt(void **state)
{
	struct fixture f;
	const struct vl_epd_update *u;
	(void)state;

	start(&f, WINDOW_MS, 50);
	show(&f, &u);
	past_start(&f);
	struct wlr_scene_rect *hand = scene_harness_rect(&f.h, 200, 150, 10, 30, 255);
	size_t flashes = 0, first_flash = 0;
	for (size_t tick = 1; tick <= 45; tick++) {
		scene_harness_set_gray(hand, tick % 2 ? 100 : 160);
		assert_int_equal(show(&f, &u), 1);
		assert_int_equal(
			u[0].waveform, u[0].full ? WAVEFORM_MODE_GC16 : WAVEFORM_MODE_GL16);
		if (u[0].full && flashes++ == 0)
			first_flash = tick;
		/* the panel rests between a few ticks, longer than the idle delay */
		if (tick % 15 == 0)
			assert_int_equal(wait_updates(&f, 200, &u), 0);
	}
	/* GL16 adds 1 debt a tick; the 41st tick finds 40 and flashes */
	assert_int_equal(flashes, 1);
	assert_int_equal(first_flash, 41);
	scene_harness_finish(&f.h);
}

/*
 * A client that asks for the fast mode itself, with no input (a clock's
 * seconds in A2): its ticks stay A2 and flash nowhere, and once the panel
 * rests the ghost they left is cleaned up once, as typing's is.
 */
static void
test_fast_ticks_cleaned_once_quiet(void **state)
{
	struct fixture f;
	const struct vl_epd_update *u;
	struct vl_epd_hint fast = {.box = {200, 150, 10, 30}, .mode = VL_EPD_MODE_FAST};
	(void)state;

	start(&f, WINDOW_MS, 50);
	show(&f, &u);
	struct wlr_scene_rect *digit = scene_harness_rect(&f.h, 200, 150, 10, 30, 255);
	for (int tick = 1; tick <= 5; tick++) {
		scene_harness_set_gray(digit, tick % 2 ? 0 : 255);
		vl_epd_output_add_hint(f.h.output, &fast);
		assert_int_equal(show(&f, &u), 1);
		assert_int_equal(u[0].waveform, WAVEFORM_MODE_A2);
		assert_false(u[0].full);
	}
	assert_int_equal(wait_updates(&f, 2000, &u), 1);
	assert_true(u[0].full);
	assert_int_equal(u[0].waveform, WAVEFORM_MODE_GC16);
	assert_true(contains(&u[0], 200, 150, 210, 180));
	assert_int_equal(wait_updates(&f, 300, &u), 0);
	scene_harness_finish(&f.h);
}

/* One-pixel rows of text, each its own length, with a gap row after every 11. */
static void
write_lines(struct fixture *f, struct wlr_scene_rect **rows, int n_rows)
{
	for (int r = 0; r < n_rows; r++)
		rows[r] = r % 12 == 11
				  ? NULL
				  : scene_harness_rect(&f->h, 10, r, 20 + (r * 37) % 300, 1, 0);
}

static void
move_lines(struct wlr_scene_rect **rows, int n_rows, int up)
{
	for (int r = 0; r < n_rows; r++)
		if (rows[r])
			wlr_scene_node_set_position(&rows[r]->node, 10, r - up);
}

/*
 * Text that moves up by itself, a terminal printing, is a scroll and not a
 * new page: A2 without a flash, cleaned up once the panel rests; new text
 * in its place is a new page and flashes.
 */
static void
test_scrolling_text_is_not_a_page(void **state)
{
	struct fixture f;
	const struct vl_epd_update *u;
	struct wlr_scene_rect *rows[H - 20];
	(void)state;

	start(&f, WINDOW_MS, 50);
	show(&f, &u);
	past_start(&f);
	write_lines(&f, rows, H - 20);
	assert_int_equal(show(&f, &u), 1);
	assert_true(u[0].full);
	move_lines(rows, H - 20, 12);
	assert_int_equal(show(&f, &u), 1);
	assert_int_equal(u[0].waveform, WAVEFORM_MODE_A2);
	assert_false(u[0].full);
	assert_int_equal(wait_updates(&f, 2000, &u), 1);
	assert_true(u[0].full);
	assert_true(contains(&u[0], 10, 0, 320, H - 32));

	/* a second after the last page's flash: a new page flashes again */
	past_start(&f);
	for (int r = 0; r < H - 20; r++)
		if (rows[r])
			wlr_scene_rect_set_size(rows[r], 20 + (r * 53) % 290, 1);
	assert_int_equal(show(&f, &u), 1);
	assert_true(u[0].full);
	assert_int_equal(u[0].waveform, WAVEFORM_MODE_GC16);
	scene_harness_finish(&f.h);
}

/* Two typed areas close together: the cleanup flashes them in one update. */
static void
test_cleanup_flashes_once(void **state)
{
	struct fixture f;
	const struct vl_epd_update *u;
	(void)state;

	start(&f, WINDOW_MS, 50);
	show(&f, &u);
	for (int i = 0; i < 8; i++) {
		vl_epd_backend_notify_input(f.h.backend, VL_EPD_INPUT_KEY);
		scene_harness_rect(
			&f.h, 8 + 10 * (i % 4) + 64 * (i / 4), 8 + 64 * (i / 4), 8, 12, 0);
		assert_int_equal(show(&f, &u), 1);
		assert_int_equal(u[0].waveform, WAVEFORM_MODE_DU);
	}
	assert_int_equal(wait_updates(&f, 2000, &u), 1);
	assert_true(u[0].full);
	assert_true(contains(&u[0], 8, 8, 48, 20));
	assert_true(contains(&u[0], 72, 72, 112, 84));
	scene_harness_finish(&f.h);
}

/*
 * A typed glyph with many gray levels on its edges counts as an image by
 * its pixels alone; small as it is, it is text while keys come: DU.
 */
static void
test_small_gray_glyph_is_text(void **state)
{
	struct fixture f;
	const struct vl_epd_update *u;
	(void)state;

	start(&f, WINDOW_MS, 0);
	show(&f, &u);
	vl_epd_backend_notify_input(f.h.backend, VL_EPD_INPUT_KEY);
	for (int x = 0; x < 32; x++)
		scene_harness_rect(&f.h, 100 + x, 50, 1, 14, (uint8_t)(8 * x));
	assert_int_equal(show(&f, &u), 1);
	assert_int_equal(u[0].waveform, WAVEFORM_MODE_DU);
	scene_harness_finish(&f.h);
}

/*
 * A new page drawn as two halves in one frame (an X terminal the user
 * clears, then printing): each half is less than half the panel, together
 * more; it is one page turn, one flashing update.
 */
static void
test_page_in_two_rects_flashes_once(void **state)
{
	struct fixture f;
	const struct vl_epd_update *u;
	(void)state;

	start(&f, WINDOW_MS, 0);
	show(&f, &u);
	vl_epd_backend_notify_input(f.h.backend, VL_EPD_INPUT_KEY);
	scene_harness_rect(&f.h, 0, 0, W, 140, 0);
	scene_harness_rect(&f.h, 0, 150, W, 140, 60);
	assert_int_equal(show(&f, &u), 1);
	assert_true(u[0].full);
	assert_int_equal(u[0].waveform, WAVEFORM_MODE_GC16);
	assert_true(contains(&u[0], 0, 0, W, 290));
	scene_harness_finish(&f.h);
}

/*
 * An application starting: its main window, then a dialog over it that
 * dims the main window, each a new page, in its first second. The first
 * frame's flash cleaned the panel: neither flashes again, both are drawn
 * in GL16. A new page a second later flashes, and so does one the user
 * turns at once.
 */
static void
test_start_flashes_once(void **state)
{
	struct fixture f;
	const struct vl_epd_update *u;
	(void)state;

	start(&f, 0, 0);
	assert_int_equal(show(&f, &u), 1);
	assert_true(u[0].full);
	struct wlr_scene_rect *window = scene_harness_rect(&f.h, 0, 0, W, H - 20, 200);
	assert_int_equal(show(&f, &u), 1);
	assert_false(u[0].full);
	assert_int_equal(u[0].waveform, WAVEFORM_MODE_GL16);
	scene_harness_set_gray(window, 128);
	scene_harness_rect(&f.h, 100, 80, 200, 120, 255);
	assert_int_equal(show(&f, &u), 1);
	assert_false(u[0].full);
	assert_int_equal(u[0].waveform, WAVEFORM_MODE_GL16);

	scene_harness_idle(&f.h, 1100);
	scene_harness_set_gray(window, 60);
	assert_int_equal(show(&f, &u), 1);
	assert_true(u[0].full);
	assert_int_equal(u[0].waveform, WAVEFORM_MODE_GC16);

	vl_epd_backend_notify_input(f.h.backend, VL_EPD_INPUT_KEY);
	scene_harness_set_gray(window, 230);
	assert_int_equal(show(&f, &u), 1);
	assert_true(u[0].full);
	scene_harness_finish(&f.h);
}

/*
 * A dialog drawn in stages in the application's first second (its frame's
 * line in DU, its content in GL16 twice, gtk3-demo's): the panel was just
 * flashed clean, so once it rests the idle cleanup redraws, and does not
 * flash, what the start drew.
 */
static void
test_start_leaves_no_flash_at_rest(void **state)
{
	struct fixture f;
	const struct vl_epd_update *u;
	(void)state;

	start(&f, 0, 300);
	assert_int_equal(show(&f, &u), 1);
	struct wlr_scene_rect *dialog = scene_harness_rect(&f.h, 100, 80, 200, 100, 200);
	show(&f, &u);
	scene_harness_rect(&f.h, 100, 78, 200, 2, 0);
	show(&f, &u);
	scene_harness_set_gray(dialog, 180);
	show(&f, &u);
	scene_harness_set_gray(dialog, 160);
	show(&f, &u);
	for (size_t fresh = wait_updates(&f, 2000, &u); fresh > 0;
		fresh = wait_updates(&f, 1000, &u))
		for (size_t i = 0; i < fresh; i++)
			assert_false(u[i].full);
	scene_harness_finish(&f.h);
}

/*
 * A caret blinking in a focused field: count blinks toggle a 2x20 area
 * every CARET_PERIOD_MS; returns how many updates they cost.
 */
#define CARET_PERIOD_MS 250

static size_t
blink_caret(struct fixture *f, struct wlr_scene_rect *caret, int count, bool show_blinking)
{
	const struct vl_epd_update *u;
	size_t updates = 0;

	for (int i = 0; i < count; i++) {
		scene_harness_idle(&f->h, CARET_PERIOD_MS);
		if (show_blinking) {
			struct vl_epd_hint hint = {.box = {0, 0, W, H}, .show_blinking = true};
			vl_epd_output_add_hint(f->h.output, &hint);
		}
		scene_harness_set_gray(caret, caret->color[0] > 0.5f ? 0 : 255);
		updates += show(f, &u);
	}
	return updates;
}

/* A white page with a caret of 2x20 at 100,100 on the panel; idle cleanup after idle_cleanup_ms. */
static struct wlr_scene_rect *
start_with_caret_cleaned(struct fixture *f, unsigned int idle_cleanup_ms)
{
	const struct vl_epd_update *u;

	start(f, 0, idle_cleanup_ms);
	show(f, &u);
	struct wlr_scene_rect *caret = scene_harness_rect(&f->h, 100, 100, 2, 20, 0);
	assert_int_equal(show(f, &u), 1);
	return caret;
}

static struct wlr_scene_rect *
start_with_caret(struct fixture *f)
{
	return start_with_caret_cleaned(f, 0);
}

/*
 * Once a caret blinks steadily, the panel keeps it inked and is sent
 * nothing for it; a key (input) ends that: the caret shows as it is at
 * once, and its blinking is watched anew.
 */
static void
test_blinking_caret_costs_nothing(void **state)
{
	struct fixture f;
	const struct vl_epd_update *u;
	(void)state;

	struct wlr_scene_rect *caret = start_with_caret(&f);
	/* a few blinks to learn its pace (four, on a machine that keeps time), then none */
	assert_true(blink_caret(&f, caret, 8, false) >= 4);
	assert_int_equal(blink_caret(&f, caret, 12, false), 0);
	assert_int_equal(f.device->pixels[110 * W + 100], 0);

	/* the caret off when a key comes: the panel shows it off */
	if (caret->color[0] < 0.5f)
		assert_int_equal(blink_caret(&f, caret, 1, false), 0);
	vl_epd_backend_notify_input(f.h.backend, VL_EPD_INPUT_KEY);
	assert_int_equal(wait_updates(&f, 2000, &u), 1);
	assert_true(contains(&u[0], 100, 100, 102, 120));
	scene_harness_idle(&f.h, 100);
	assert_int_equal(f.device->pixels[110 * W + 100], 255);
	assert_int_equal(blink_caret(&f, caret, 2, false), 2);
	scene_harness_finish(&f.h);
}

/* An application whose rule says so has its caret blink on the panel. */
/*
 * A caret's blinks drive its own pixels between the same two pictures:
 * once the caret is held, the idle cleanup redraws its cell in GL16, and
 * does not flash it as the ghost of as many DU updates elsewhere would.
 */
static void
test_held_caret_is_cleaned_without_a_flash(void **state)
{
	struct fixture f;
	const struct vl_epd_update *all;
	(void)state;

	struct wlr_scene_rect *caret = start_with_caret_cleaned(&f, 400);
	size_t first = f.seen;
	blink_caret(&f, caret, 16, false);
	size_t n = vl_epd_memory_updates(f.device, &all);
	for (size_t i = first; i < n; i++)
		assert_false(all[i].full);
	/* the cleanup came last, once the caret was held */
	assert_int_equal(all[n - 1].waveform, WAVEFORM_MODE_GL16);
	assert_true(contains(&all[n - 1], 100, 100, 102, 120));
	assert_int_equal(blink_caret(&f, caret, 8, false), 0);
	scene_harness_finish(&f.h);
}

static void
test_blinking_shown_where_the_hint_says(void **state)
{
	struct fixture f;
	(void)state;

	struct wlr_scene_rect *caret = start_with_caret(&f);
	assert_int_equal(blink_caret(&f, caret, 12, true), 12);
	scene_harness_finish(&f.h);
}

/*
 * A spinner nobody asked for, a frame every 20 ms for 3 s: once told
 * apart, it is driven once a second in A2 and never flashes, while its
 * frames go on; a key typed beside it goes out at once, in an update of
 * its own; once it stops, the idle cleanup redraws it once.
 */
static void
test_spinner_is_paced_and_apart(void **state)
{
	struct vl_epd_backend_options options = {
		.device = "memory:400x300",
		.idle_cleanup_ms = 300,
		.animation_interval_ms = 1000,
	};
	struct fixture f;
	const struct vl_epd_update *u;
	(void)state;

	start_with(&f, &options);
	show(&f, &u);
	struct wlr_scene_rect *spinner = scene_harness_rect(&f.h, 100, 100, 16, 16, 0);
	show(&f, &u);
	size_t before = f.seen, typed_at = 0;
	struct wlr_scene_rect *glyph = NULL;
	uint64_t start_ns = scene_harness_now_ns();
	for (int i = 0; scene_harness_now_ns() - start_ns < 3000000000u; i++) {
		scene_harness_idle(&f.h, 20);
		scene_harness_set_gray(spinner, (uint8_t)((i + 1) * 37));
		if (i == 100) {
			vl_epd_backend_notify_input(f.h.backend, VL_EPD_INPUT_KEY);
			glyph = scene_harness_rect(&f.h, 140, 100, 8, 12, 0);
			typed_at = vl_epd_memory_updates(f.device, &u);
		}
		/* frames go on: the spinner's pace holds none back */
		assert_true(scene_harness_commit(&f.h));
		if (glyph && typed_at != 0 && vl_epd_memory_updates(f.device, &u) > typed_at) {
			/* the key's update, the first after it: small, and alone */
			assert_true(contains(&u[typed_at], 140, 100, 148, 112));
			assert_false(contains(&u[typed_at], 100, 100, 116, 116));
			typed_at = 0;
		}
	}
	assert_non_null(glyph);
	assert_int_equal(typed_at, 0);
	size_t n = vl_epd_memory_updates(f.device, &u), paced = 0;
	for (size_t i = before; i < n; i++) {
		assert_false(u[i].full);
		if (u[i].waveform == WAVEFORM_MODE_A2 && contains(&u[i], 100, 100, 116, 116))
			paced++;
	}
	/* 150 frames: a few before it was told apart, then one a second */
	printf("%zu updates for 150 frames, %zu paced in A2\n", n - before, paced);
	assert_true(n - before <= 20);
	assert_true(paced >= 1 && paced <= 4);
	/* resting: its last frame goes out, then the cleanup redraws it once */
	f.seen = n;
	bool redrawn = false;
	for (int i = 0; i < 4 && !redrawn; i++) {
		size_t fresh = wait_updates(&f, 1500, &u);
		for (size_t j = 0; j < fresh; j++)
			redrawn |= (u[j].waveform == WAVEFORM_MODE_GL16 ||
					   u[j].waveform == WAVEFORM_MODE_GC16) &&
				   contains(&u[j], 100, 100, 116, 116);
	}
	assert_true(redrawn);
	scene_harness_finish(&f.h);
}

/*
 * A focused field's caret blinking 14 pixels beside a spinner (a page
 * that loads): the spinner is told apart first, and is then no neighbour
 * that makes the caret part of something larger; the caret is held, and
 * the spinner goes at its pace.
 */
static void
test_caret_beside_a_spinner(void **state)
{
	struct vl_epd_backend_options options = {
		.device = "memory:400x300",
		.animation_interval_ms = 1000,
	};
	struct fixture f;
	const struct vl_epd_update *u;
	(void)state;

	start_with(&f, &options);
	show(&f, &u);
	struct wlr_scene_rect *spinner = scene_harness_rect(&f.h, 100, 100, 16, 16, 0);
	struct wlr_scene_rect *caret = scene_harness_rect(&f.h, 130, 100, 2, 20, 0);
	show(&f, &u);
	size_t later = 0, caret_later = 0;
	uint64_t start_ns = scene_harness_now_ns();
	for (int i = 0; scene_harness_now_ns() - start_ns < 5000000000u; i++) {
		scene_harness_idle(&f.h, 20);
		scene_harness_set_gray(spinner, (uint8_t)((i + 1) * 37));
		if (i % 15 == 14)
			scene_harness_set_gray(caret, caret->color[0] > 0.5f ? 0 : 255);
		assert_true(scene_harness_commit(&f.h));
		if (scene_harness_now_ns() - start_ns < 3000000000u)
			later = vl_epd_memory_updates(f.device, &u);
	}
	size_t n = vl_epd_memory_updates(f.device, &u);
	for (size_t i = later; i < n; i++)
		caret_later += u[i].rect.left + u[i].rect.width > 130;
	/* the last 2 s: the spinner twice, paced, and nothing of the caret */
	printf("%zu updates in the last 2 s, %zu over the caret\n", n - later, caret_later);
	assert_int_equal(caret_later, 0);
	assert_true(n - later >= 1 && n - later <= 3);
	scene_harness_finish(&f.h);
}

/*
 * A spinner drawn as a ring around cells at rest: its animated cells come
 * out of the diff in pieces, and are paced as one update, not one a piece;
 * the cells inside, drawn once when the ring appeared, do not hold it back.
 */
static void
test_ring_spinner_is_one_update(void **state)
{
	struct vl_epd_backend_options options = {
		.device = "memory:400x300",
		.animation_interval_ms = 1000,
	};
	const int ring[4][4] = {
		{96, 96, 96, 16}, {96, 176, 96, 16}, {96, 112, 16, 64}, {176, 112, 16, 64}};
	struct wlr_scene_rect *parts[4];
	struct fixture f;
	const struct vl_epd_update *u;
	(void)state;

	start_with(&f, &options);
	show(&f, &u);
	for (int p = 0; p < 4; p++)
		parts[p] =
			scene_harness_rect(&f.h, ring[p][0], ring[p][1], ring[p][2], ring[p][3], 0);
	show(&f, &u);
	size_t before = f.seen;
	uint64_t start_ns = scene_harness_now_ns();
	for (int i = 0; scene_harness_now_ns() - start_ns < 4000000000u; i++) {
		scene_harness_idle(&f.h, 20);
		for (int p = 0; p < 4; p++)
			scene_harness_set_gray(parts[p], (uint8_t)((i + 1) * 37 + p * 50));
		assert_true(scene_harness_commit(&f.h));
	}
	size_t n = vl_epd_memory_updates(f.device, &u), paced = 0;
	for (size_t i = before; i < n; i++) {
		if (u[i].waveform != WAVEFORM_MODE_A2)
			continue;
		/* each paced update is the whole ring */
		assert_true(contains(&u[i], 96, 96, 192, 192));
		paced++;
	}
	printf("%zu updates in 4 s, %zu paced in A2\n", n - before, paced);
	assert_true(paced >= 2 && paced <= 5);
	/* the cells inside the ring never changed: it is told apart at once */
	assert_true(n - before <= 12);
	scene_harness_finish(&f.h);
}

/*
 * A pulsing progress bar (a widget gallery's): its block slides along the
 * trough and back, so each cell changes only as the block's edges pass.
 * It is told apart as an animation, paced, and never flashes while it runs.
 */
static void
test_progress_bar_is_paced_without_a_flash(void **state)
{
	struct vl_epd_backend_options options = {
		.device = "memory:400x300",
		.animation_interval_ms = 1000,
	};
	const int32_t left = 60, right = 340, top = 40, width = 60, step = 10;
	struct fixture f;
	const struct vl_epd_update *u;
	(void)state;

	start_with(&f, &options);
	show(&f, &u);
	scene_harness_rect(&f.h, left, top, right - left, 6, 0xcc);
	struct wlr_scene_rect *block = scene_harness_rect(&f.h, left, top, width, 6, 0);
	show(&f, &u);
	size_t before = f.seen;
	int32_t x = left, direction = 1;
	uint64_t start_ns = scene_harness_now_ns();
	while (scene_harness_now_ns() - start_ns < 10000000000u) {
		scene_harness_idle(&f.h, 100);
		if (x + direction * step < left || x + direction * step + width > right)
			direction = -direction;
		x += direction * step;
		wlr_scene_node_set_position(&block->node, x, top);
		assert_true(scene_harness_commit(&f.h));
	}
	size_t n = vl_epd_memory_updates(f.device, &u), over_bar = 0, paced = 0;
	for (size_t i = before; i < n; i++) {
		assert_false(u[i].full);
		over_bar++;
		paced += u[i].waveform == WAVEFORM_MODE_A2;
	}
	printf("%zu updates in 10 s, %zu paced in A2\n", over_bar, paced);
	assert_true(paced >= 4);
	assert_true(over_bar <= 20);
	scene_harness_finish(&f.h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_typing_is_fast_and_flashes_nowhere),
		cmocka_unit_test(test_blinking_caret_costs_nothing),
		cmocka_unit_test(test_held_caret_is_cleaned_without_a_flash),
		cmocka_unit_test(test_blinking_shown_where_the_hint_says),
		cmocka_unit_test(test_pen_and_scroll_use_a2),
		cmocka_unit_test(test_explicit_mode_wins),
		cmocka_unit_test(test_idle_cleanup_per_area),
		cmocka_unit_test(test_clock_flashes_by_debt),
		cmocka_unit_test(test_fast_ticks_cleaned_once_quiet),
		cmocka_unit_test(test_scrolling_text_is_not_a_page),
		cmocka_unit_test(test_cleanup_flashes_once),
		cmocka_unit_test(test_small_gray_glyph_is_text),
		cmocka_unit_test(test_page_in_two_rects_flashes_once),
		cmocka_unit_test(test_start_flashes_once),
		cmocka_unit_test(test_start_leaves_no_flash_at_rest),
		cmocka_unit_test(test_spinner_is_paced_and_apart),
		cmocka_unit_test(test_caret_beside_a_spinner),
		cmocka_unit_test(test_ring_spinner_is_one_update),
		cmocka_unit_test(test_progress_bar_is_paced_without_a_flash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
