// SPDX-License-Identifier: MIT
/*
 * The example clients under vellum on epdfb, driven through uinput as a
 * user would drive them, end with the expected panel content and the
 * expected updates in the driver's trace:
 *
 * - epaper-clock (from a given time, seven ticks across a minute) shows the
 *   last time's digits, each cell read back and matched against the
 *   clock's own drawing of every character; its ticks are fast (A2/DU)
 *   updates within the digits' row, and the new minute one flashing GC16
 *   refresh of the window;
 * - epaper-reader turns pages with a key and with taps on either half: the
 *   panel matches the page the test lays out and draws itself with the
 *   reader's code, and not the others; each turn is a quality (GC16/GL16)
 *   update; a long press is one flashing refresh;
 * - epaper-paint draws a touch stroke and a pen stroke as black pixels
 *   along their paths, with A2/DU updates, then one flashing cleanup.
 *
 * vellum's own flashing promotions and idle cleanup are switched off, so
 * every flash in the trace is one a client asked for.
 */
#include <cairo.h>
#include <linux/input-event-codes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock-face.h"
#include "epd_test.h"
#include "reader-layout.h"
#include "vellum_run.h"
#include "vm_input.h"

#define PANEL_W 640
#define PANEL_H 480
/* Pixels whose black-or-white differs from the reference, at most, in a matching cell or page. */
#define MAX_CELL_MISMATCH 0.03
#define MAX_PAGE_MISMATCH 0.005
/* The marker of epd_clear()'s update, which may still be in the trace. */
#define EPD_CLEAR_MARKER 0xfffffff0u

extern const char reader_builtin_text[];

static const char config_text[] = "[refresh]\nfull-refresh-every = 0\nidle-cleanup = off\n";
static char config[64];

/* ---- references drawn with the clients' own code ---- */

struct reference {
	cairo_surface_t *surface;
	cairo_t *cr;
};

static void
reference_begin(struct reference *ref)
{
	ref->surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, PANEL_W, PANEL_H);
	ref->cr = cairo_create(ref->surface);
	cairo_set_source_rgb(ref->cr, 1, 1, 1);
	cairo_paint(ref->cr);
}

/* The reference's gray value at x,y (black and white content: any channel). */
static uint8_t
reference_gray(struct reference *ref, uint32_t x, uint32_t y)
{
	const uint8_t *row = cairo_image_surface_get_data(ref->surface) +
			     (size_t)y * cairo_image_surface_get_stride(ref->surface);

	return row[x * 4 + 1];
}

static void
reference_end(struct reference *ref)
{
	cairo_destroy(ref->cr);
	cairo_surface_destroy(ref->surface);
}

/* Pixels of a rect that are dark on one image and light on the other. */
static size_t
mismatches(const uint8_t *panel, struct reference *ref, const cairo_rectangle_int_t *r)
{
	size_t n = 0;

	cairo_surface_flush(ref->surface);
	for (int y = r->y; y < r->y + r->height; y++)
		for (int x = r->x; x < r->x + r->width; x++)
			n += (panel[(size_t)y * PANEL_W + x] < 128) !=
			     (reference_gray(ref, (uint32_t)x, (uint32_t)y) < 128);
	return n;
}

/* ---- the trace ---- */

static size_t
trace_count(struct epd *d)
{
	return vellum_trace_count(d);
}

static bool
is_fast(const struct epd_trace *t)
{
	return !strcmp(t->waveform, "A2") || !strcmp(t->waveform, "DU");
}

static bool
is_quality(const struct epd_trace *t)
{
	return !strcmp(t->waveform, "GC16") || !strcmp(t->waveform, "GL16");
}

/* A flashing GC16 update of the whole window (the panel). */
static bool
is_window_flash(const struct epd_trace *t)
{
	return t->flash && !strcmp(t->waveform, "GC16") && t->left == 0 && t->top == 0 &&
	       t->width == PANEL_W && t->height == PANEL_H;
}

/* ---- the clients ---- */

static void
start(struct vellum_run *run, struct epd *d, const char *app)
{
	char *command;

	epd_clear(d);
	epd_trace_clear(d);
	REQUIRE(asprintf(&command, VELLUM_SAY_DISPLAY "exec %s", app) >= 0);
	const char *args[] = {"-c", config, "-d", d->devnode, "--", "sh", "-c", command, NULL};
	vellum_start(run, args, NULL);
	free(command);
	REQUIRE(vellum_expect_display(run, 120));
}

/*
 * Waits for the client's line starting with prefix; checks its waveform and
 * whether it flashed (flashed -1: either).
 */
static bool
expect_shown(struct vellum_run *run, const char *prefix, const char *const *waveforms, int flashed)
{
	char line[256], want[64];
	bool known = false;

	if (!CHECK_MSG(vellum_expect(run, prefix, line, sizeof(line), 120),
		    "the client never printed \"%s\"", prefix))
		return false;
	snprintf(want, sizeof(want), " flashed=%d", flashed);
	for (; *waveforms; waveforms++) {
		char waveform[32];

		snprintf(waveform, sizeof(waveform), " waveform=%s ", *waveforms);
		known |= strstr(line, waveform) != NULL;
	}
	return CHECK_MSG(known && (flashed < 0 || strstr(line, want)),
		"the client's feedback \"%s\": not the waveform and flash expected", line);
}

static const char *const quality_waveforms[] = {"GC16", "GL16", NULL};
static const char *const flash_waveforms[] = {"GC16", NULL};

/* ---- epaper-clock ---- */

static void
test_clock(struct epd *d)
{
	static const char candidates[] = "0123456789:";
	static const char expected[] = "12:35:03";
	struct vellum_run run;
	struct clock_face face;

	epd_phase("epaper-clock: seven ticks from 12:34:56");
	start(&run, d, EPAPER_CLOCK_BIN " --verbose --time 12:34:56 --seconds 7");
	/*
	 * A tick that comes while the last frame is still on its way is drawn
	 * with the next one: which times get a frame of their own depends on
	 * the machine's speed, so the panel's reports are checked as they come.
	 */
	bool new_minute = false;
	int fast_before = 0, fast_after = 0;
	for (;;) {
		char line[256], time[16], waveform[16];
		int flashed;

		if (!CHECK_MSG(vellum_expect(&run, "shown ", line, sizeof(line), 120),
			    "the clock never showed %s", expected))
			break;
		if (!CHECK_MSG(sscanf(line, "shown %15s waveform=%15s flashed=%d", time, waveform,
				       &flashed) == 3,
			    "\"%s\"", line))
			break;
		if (!strcmp(time, "12:34:56"))
			continue; /* the window's first frame */
		if (!new_minute && !strncmp(time, "12:35", 5)) {
			new_minute = true;
			CHECK_MSG(!strcmp(waveform, "GC16") && flashed == 1,
				"the new minute's frame (%s) was shown with %s, flashed=%d: not "
				"one "
				"flashing GC16 refresh",
				time, waveform, flashed);
		} else {
			CHECK_MSG((!strcmp(waveform, "A2") || !strcmp(waveform, "DU")) && !flashed,
				"the tick %s was shown with %s, flashed=%d: not a fast update",
				time, waveform, flashed);
			new_minute ? fast_after++ : fast_before++;
		}
		if (!strcmp(time, expected))
			break;
	}
	printf("%d fast ticks before the new minute's frame, %d after it\n", fast_before,
		fast_after);
	CHECK_GE(fast_before, 1);
	CHECK_GE(fast_after, 1);
	CHECK_EQ(vellum_wait(&run, 60), 0);

	epd_phase("epaper-clock: the panel shows %s", expected);
	REQUIRE_RC(epd_wait_idle(d), 0);
	clock_face_init(&face, PANEL_W, PANEL_H);
	uint8_t *panel = epd_alloc_image(d);
	epd_read_panel(d, panel);
	for (int i = 0; i < CLOCK_FACE_CELLS; i++) {
		const cairo_rectangle_int_t *cell = &face.cells[i];
		size_t best = SIZE_MAX, area = (size_t)cell->width * cell->height;
		char best_char = '?';

		for (const char *c = candidates; *c; c++) {
			struct reference ref;

			reference_begin(&ref);
			clock_face_draw_cell(&face, ref.cr, i, *c);
			size_t n = mismatches(panel, &ref, cell);
			reference_end(&ref);
			if (n < best) {
				best = n;
				best_char = *c;
			}
		}
		printf("cell %d (%dx%d at %d,%d): '%c', %zu of %zu pixels differ from it\n", i,
			cell->width, cell->height, cell->x, cell->y, best_char, best, area);
		CHECK_MSG(best_char == expected[i] && best <= area * MAX_CELL_MISMATCH,
			"cell %d shows '%c' (%zu pixels off), not '%c'", i, best_char, best,
			expected[i]);
	}
	free(panel);

	epd_phase("epaper-clock: fast ticks in the digits' row, one flash at the new minute");
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);
	int top = face.cells[0].y, bottom = face.cells[0].y + face.cells[0].height;
	size_t flashes = 0, ticks_before = 0, ticks_after = 0;
	bool first_frame = true;
	for (size_t i = 0; i < n; i++) {
		const struct epd_trace *t = &trace[i];

		epd_trace_print(t);
		/*
		 * The panel's clearing may reach the trace late, and vellum's first
		 * writes as the driver's own updates (marker 0); then comes the
		 * window's first frame.
		 */
		if (t->marker == EPD_CLEAR_MARKER || t->marker == 0)
			continue;
		if (first_frame) {
			first_frame = false;
			continue;
		}
		if (t->flash) {
			flashes++;
			CHECK_MSG(is_window_flash(t),
				"update %zu flashed, but not GC16 of the window", i);
			continue;
		}
		flashes ? ticks_after++ : ticks_before++;
		CHECK_MSG(is_fast(t), "tick update %zu is %s, not A2 or DU", i, t->waveform);
		/* within the digits' row, give or take the backend's alignment */
		CHECK_MSG((int)t->top >= top - 8 && (int)(t->top + t->height) <= bottom + 8 &&
				  t->width <= (uint32_t)(3 * face.cells[0].width + 16),
			"tick update %zu (%ux%u at %u,%u) is more than the digits that changed", i,
			t->width, t->height, t->left, t->top);
	}
	free(trace);
	CHECK_EQ(flashes, 1);
	CHECK_GE(ticks_before, 1);
	CHECK_GE(ticks_after, 1);
}

/* ---- epaper-reader ---- */

/* Checks that the panel shows page (0-based) of the built-in text, and no other. */
static void
check_page(struct epd *d, struct reader_layout *layout, size_t page)
{
	const cairo_rectangle_int_t all = {0, 0, PANEL_W, PANEL_H};
	size_t pages = reader_layout_pages(layout), best = SIZE_MAX, best_page = 0;
	uint8_t *panel = epd_alloc_image(d);

	REQUIRE_RC(epd_wait_idle(d), 0);
	epd_read_panel(d, panel);
	for (size_t p = 0; p < pages; p++) {
		struct reference ref;

		reference_begin(&ref);
		reader_layout_draw_page(layout, ref.cr, p);
		size_t n = mismatches(panel, &ref, &all);
		reference_end(&ref);
		printf("page %zu: %zu pixels differ from the panel\n", p + 1, n);
		if (n < best) {
			best = n;
			best_page = p;
		}
	}
	CHECK_MSG(best_page == page && best <= PANEL_W * PANEL_H * MAX_PAGE_MISMATCH,
		"the panel shows page %zu (%zu pixels off), not page %zu", best_page + 1, best,
		page + 1);
	free(panel);
}

/* The updates from the from-th on: at least one, all quality ones. */
static void
check_quality_turn(struct epd *d, size_t from, const char *what)
{
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);

	CHECK_MSG(n > from, "%s: no update", what);
	for (size_t i = from; i < n; i++) {
		epd_trace_print(&trace[i]);
		CHECK_MSG(is_quality(&trace[i]), "%s: update %zu is %s, not GC16 or GL16", what, i,
			trace[i].waveform);
	}
	free(trace);
}

static void
test_reader(struct epd *d, int keyboard, int touch)
{
	struct reader_layout *layout = reader_layout_create(reader_builtin_text, PANEL_W, PANEL_H);
	struct vellum_run run;
	char line[256];
	size_t from;

	REQUIRE(layout && reader_layout_pages(layout) >= 3);
	epd_phase("epaper-reader: page 1");
	start(&run, d, EPAPER_READER_BIN " --verbose");
	/* the window's first frame: however the compositor shows it */
	CHECK(vellum_expect(&run, "page 1 shown ", line, sizeof(line), 120));
	check_page(d, layout, 0);

	epd_phase("epaper-reader: Right turns to page 2");
	from = trace_count(d);
	vm_key(keyboard, KEY_RIGHT);
	expect_shown(&run, "turn 2 shown ", quality_waveforms, -1);
	check_page(d, layout, 1);
	check_quality_turn(d, from, "Right");

	epd_phase("epaper-reader: a tap on the right half turns to page 3");
	from = trace_count(d);
	vm_tap(touch, PANEL_W * 3 / 4, PANEL_H / 2);
	expect_shown(&run, "turn 3 shown ", quality_waveforms, -1);
	check_page(d, layout, 2);
	check_quality_turn(d, from, "a tap on the right");

	epd_phase("epaper-reader: a tap on the left half turns back to page 2");
	from = trace_count(d);
	vm_tap(touch, PANEL_W / 4, PANEL_H / 2);
	expect_shown(&run, "turn 2 shown ", quality_waveforms, -1);
	check_page(d, layout, 1);
	check_quality_turn(d, from, "a tap on the left");

	epd_phase("epaper-reader: a long press is one flashing refresh of page 2");
	from = trace_count(d);
	vm_touch_down(touch, PANEL_W / 2, PANEL_H / 2);
	/* held well past the reader's 600 ms, however slowly its events arrive */
	epd_sleep_ms(2000);
	vm_touch_up(touch);
	expect_shown(&run, "refresh 2 shown ", flash_waveforms, 1);
	check_page(d, layout, 1);
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace), flashes = 0;
	for (size_t i = from; i < n; i++) {
		epd_trace_print(&trace[i]);
		flashes += is_window_flash(&trace[i]);
	}
	free(trace);
	CHECK_MSG(n - from == 1 && flashes == 1,
		"the long press made %zu updates, %zu of them a flash of the window: not one",
		n - from, flashes);

	epd_phase("epaper-reader: q quits");
	vm_key(keyboard, KEY_Q);
	CHECK_EQ(vellum_wait(&run, 60), 0);
	reader_layout_destroy(layout);
}

/* ---- epaper-paint ---- */

/* Strokes go left to right, from x 100 to 540, rising or falling by rise pixels. */
#define STROKE_FROM  100
#define STROKE_TO    540
#define STROKE_STEPS 22

struct stroke {
	uint32_t y; /* where it starts */
	int rise;   /* how far it climbs (up: negative) to its end */
};

static uint32_t
stroke_y(const struct stroke *s, uint32_t x)
{
	return (uint32_t)((int)s->y + s->rise * (int)(x - STROKE_FROM) / (STROKE_TO - STROKE_FROM));
}

/* Ink along a stroke, and none 30 pixels above it. */
static void
check_stroke(const uint8_t *panel, const struct stroke *s, const char *what)
{
	size_t missing = 0, stray = 0;

	for (uint32_t x = STROKE_FROM + 5; x <= STROKE_TO - 5; x += 5) {
		uint32_t y = stroke_y(s, x);

		missing += vellum_ink_box(panel, PANEL_W, x, y - 3, 1, 7, 255, NULL) == 0;
		stray += vellum_ink_box(panel, PANEL_W, x, y - 35, 1, 10, 255, NULL);
	}
	printf("%s: %zu points of its path without ink, %zu dark pixels beside it\n", what, missing,
		stray);
	CHECK_MSG(missing == 0 && stray == 0, "%s is not on the panel along its path", what);
}

/* The updates from the from-th on: fast ones, then one flashing cleanup of the window. */
static void
check_strokes_then_cleanup(struct epd *d, size_t from, const char *what)
{
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);

	CHECK_MSG(n >= from + 2, "%s: %zu updates, not strokes and a cleanup", what, n - from);
	for (size_t i = from; i < n; i++) {
		epd_trace_print(&trace[i]);
		if (i + 1 < n)
			CHECK_MSG(is_fast(&trace[i]) && !trace[i].flash,
				"%s: update %zu is %s%s, not A2 or DU", what, i, trace[i].waveform,
				trace[i].flash ? ", flashing" : "");
	}
	if (n > from)
		CHECK_MSG(is_window_flash(&trace[n - 1]),
			"%s: the last update is not a flashing GC16 of the window", what);
	free(trace);
}

static void
test_paint(struct epd *d, int keyboard, int touch, int pen)
{
	/* across the page, and climbing to the right */
	const struct stroke touched = {240, 0}, penned = {400, -66};
	struct vellum_run run;
	uint8_t *panel = epd_alloc_image(d);
	char line[256];
	size_t from;

	epd_phase("epaper-paint: a white page");
	start(&run, d, EPAPER_PAINT_BIN " --verbose");
	CHECK(vellum_expect(&run, "page shown ", line, sizeof(line), 120));
	REQUIRE_RC(epd_wait_idle(d), 0);

	epd_phase("epaper-paint: a touch stroke");
	from = trace_count(d);
	vm_touch_down(touch, STROKE_FROM, touched.y);
	for (int i = 1; i <= STROKE_STEPS; i++) {
		uint32_t x = STROKE_FROM + (uint32_t)i * (STROKE_TO - STROKE_FROM) / STROKE_STEPS;

		vm_touch_move(touch, x, stroke_y(&touched, x));
	}
	vm_touch_up(touch);
	expect_shown(&run, "cleanup shown ", flash_waveforms, 1);
	REQUIRE_RC(epd_wait_idle(d), 0);
	epd_read_panel(d, panel);
	check_stroke(panel, &touched, "the touch stroke");
	check_strokes_then_cleanup(d, from, "the touch stroke");

	epd_phase("epaper-paint: a pen stroke");
	from = trace_count(d);
	vm_pen_down(pen, STROKE_FROM, penned.y);
	for (int i = 1; i <= STROKE_STEPS; i++) {
		uint32_t x = STROKE_FROM + (uint32_t)i * (STROKE_TO - STROKE_FROM) / STROKE_STEPS;

		vm_pen_move(pen, x, stroke_y(&penned, x));
	}
	vm_pen_up(pen);
	expect_shown(&run, "cleanup shown ", flash_waveforms, 1);
	REQUIRE_RC(epd_wait_idle(d), 0);
	epd_read_panel(d, panel);
	check_stroke(panel, &penned, "the pen stroke");
	check_stroke(panel, &touched, "the touch stroke, still");
	check_strokes_then_cleanup(d, from, "the pen stroke");

	epd_phase("epaper-paint: q quits");
	vm_key(keyboard, KEY_Q);
	CHECK_EQ(vellum_wait(&run, 60), 0);
	free(panel);
}

int
main(void)
{
	struct epd dev, *d = &dev;

	epd_begin("vellum_examples", 500);
	epd_open(d, "width=640 height=480 bpp=8 time_scale=10");
	vm_input_setup();
	int keyboard = vm_uinput_keyboard();
	int touch = vm_uinput_touchscreen(PANEL_W, PANEL_H);
	int pen = vm_uinput_pen(PANEL_W, PANEL_H);
	vm_udev_settle();
	snprintf(config, sizeof(config), "/tmp/vellum-examples-%d.conf", (int)getpid());
	FILE *f = fopen(config, "w");
	REQUIRE(f && fputs(config_text, f) >= 0 && fclose(f) == 0);

	test_clock(d);
	test_reader(d, keyboard, touch);
	test_paint(d, keyboard, touch, pen);

	unlink(config);
	vm_uinput_destroy(keyboard);
	vm_uinput_destroy(touch);
	vm_uinput_destroy(pen);
	epd_close(d);
	cairo_debug_reset_static_data();
	return epd_end();
}
