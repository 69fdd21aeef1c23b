// SPDX-License-Identifier: MIT
/*
 * foot under vellum on epdfb shows what is typed, with wtype (the virtual
 * keyboard protocol) and with a uinput keyboard through libinput: the
 * glyphs appear in the first text line of the panel (read back), and each
 * keystroke reaches the panel as a small, non-flashing update (the driver's
 * trace). The refresh policy's flashing promotions are switched off, so any
 * flash is a fault.
 */
#include <linux/input-event-codes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "epd_test.h"
#include "vellum_panel.h"
#include "vellum_run.h"
#include "vm_input.h"

#define PANEL_W 640
#define PANEL_H 480

/* The first cell of the first line, and the terminal's background. */
struct cell {
	uint32_t x, y, width, height;
	uint8_t paper;
};

/* Waits until the trace has more than n entries; the new count. */
static size_t
wait_trace_beyond(struct epd *d, size_t n, unsigned int timeout_s)
{
	struct epd_trace *trace;
	size_t count = 0;

	for (unsigned int i = 0; i < timeout_s * 10; i++) {
		count = epd_trace_read(d, &trace);
		free(trace);
		if (count > n)
			return count;
		epd_sleep_ms(100);
	}
	return count;
}

/* Which of cells first..last of the first line have ink: a bit each. */
static unsigned int
inked_cells(struct epd *d, const struct cell *cell, unsigned int first, unsigned int last)
{
	uint8_t *panel = epd_alloc_image(d);
	unsigned int inked = 0;

	epd_read_panel(d, panel);
	for (unsigned int i = first; i <= last; i++) {
		uint32_t x = cell->x + i * cell->width;

		if (x + cell->width <= d->width &&
			vellum_ink_box(panel, d->width, x, cell->y, cell->width, cell->height,
				cell->paper, NULL) > 0)
			inked |= 1u << i;
	}
	free(panel);
	return inked;
}

/* Waits until cells first..last all have ink. */
static bool
wait_inked(struct epd *d, const struct cell *cell, unsigned int first, unsigned int last)
{
	unsigned int want = ((1u << (last + 1)) - 1) & ~((1u << first) - 1), inked = 0;

	for (int i = 0; i < 600; i++) {
		inked = inked_cells(d, cell, first, last);
		if (inked == want)
			return true;
		epd_sleep_ms(100);
	}
	epd_fail(__FILE__, __LINE__, "cells %u..%u of the first line: ink in 0x%x, expected 0x%x",
		first, last, inked, want);
	return false;
}

/*
 * The trace entries from the from-th on: each within the first line's
 * neighbourhood and not flashing.
 */
static void
check_small_updates(struct epd *d, const struct cell *cell, size_t from, const char *what)
{
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);
	/* a few glyphs, widened by the backend's alignment and merging */
	uint32_t max_w = 8 * cell->width + 32, max_h = 2 * cell->height + 32;

	CHECK_MSG(n > from, "%s: no update reached the panel", what);
	for (size_t i = from; i < n; i++) {
		epd_trace_print(&trace[i]);
		CHECK_MSG(!trace[i].flash, "%s: update %zu flashed", what, i);
		CHECK_MSG(trace[i].width <= max_w && trace[i].height <= max_h,
			"%s: update %zu is %ux%u, more than %ux%u", what, i, trace[i].width,
			trace[i].height, max_w, max_h);
	}
	free(trace);
}

int
main(void)
{
	static const char config_text[] = "[refresh]\nfull-refresh-every = 0\nidle-cleanup = off\n";
	static const uint16_t keys[] = {KEY_W, KEY_O, KEY_R};
	struct epd dev, *d = &dev;
	struct vellum_run run;
	struct vellum_box cursor;
	char config[64];
	int out_fd;

	epd_begin("vellum_foot", 280);
	vellum_panel_open(d, "width=640 height=480 bpp=8 time_scale=10");
	vm_input_setup();
	int keyboard = vm_uinput_keyboard();
	vm_udev_settle();
	snprintf(config, sizeof(config), "/tmp/vellum-foot-%d.conf", (int)getpid());
	REQUIRE_OK(access("/tmp", W_OK));
	FILE *f = fopen(config, "w");
	REQUIRE(f && fputs(config_text, f) >= 0 && fclose(f) == 0);

	epd_phase("foot shows its window");
	vellum_panel_clear(d);
	epd_trace_clear(d);
	const char *args[] = {"-c", config, "-d", d->devnode, "--", "sh", "-c",
		VELLUM_SAY_DISPLAY "exec foot --override=font=monospace:size=14 cat", NULL};
	vellum_start(&run, args, NULL);
	REQUIRE(vellum_expect_display(&run, 60));
	REQUIRE_MSG(vellum_wait_full_update(d, 120), "foot's window never reached the panel");
	/*
	 * The cursor is all there is on the terminal's background (the
	 * panel's far corner): its box is the first cell.
	 */
	uint8_t paper;
	REQUIRE(vellum_find_cursor(d, &cursor, &paper));
	struct cell cell = {cursor.x, cursor.y, cursor.width, cursor.height, paper};
	CHECK_EQ(inked_cells(d, &cell, 1, 8), 0);

	epd_phase("wtype types hello");
	epd_trace_clear(d);
	pid_t wtype =
		vellum_client_start(&run, (const char *const[]){"wtype", "hello", NULL}, &out_fd);
	CHECK_EQ(vellum_child_wait(wtype, 60), 0);
	close(out_fd);
	/* five glyphs, then the cursor */
	wait_inked(d, &cell, 0, 5);
	REQUIRE_RC(epd_wait_idle(d), 0);
	check_small_updates(d, &cell, 0, "wtype");

	epd_phase("a uinput keyboard types wor");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct epd_trace *trace;
		size_t before = epd_trace_read(d, &trace);

		free(trace);
		vm_key(keyboard, keys[i]);
		CHECK_MSG(wait_trace_beyond(d, before, 60) > before,
			"key %zu of the uinput keyboard reached no panel update", i);
		REQUIRE_RC(epd_wait_idle(d), 0);
		check_small_updates(d, &cell, before, "uinput keystroke");
	}
	wait_inked(d, &cell, 0, 8);

	vellum_stop(&run, SIGTERM, 60);
	unlink(config);
	vm_uinput_destroy(keyboard);
	epd_close(d);
	return epd_end();
}
