// SPDX-License-Identifier: MIT
/*
 * Typing into foot as an e-paper terminal (black on white) under vellum on
 * epdfb with the default refresh policy, at real waveform durations: 200
 * keys at 10 a second on a uinput keyboard, ten lines of text. While the
 * user types no update flashes, and none waits for the one before it,
 * whose block cursor it overwrites (the driver's trace: no collision);
 * after the last key the idle cleanup redraws the typed area in
 * GL16 or GC16; and at the end the panel shows what foot shows: every typed
 * character's cell has ink on the panel, and each cell of the terminal has
 * ink on the panel exactly where it has ink in a screenshot of the output
 * (grim).
 */
#include <linux/input-event-codes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "epd_test.h"
#include "vellum_run.h"
#include "vm_input.h"

#define PANEL_W 640
#define PANEL_H 480
/* ten lines: nine of LINE_LETTERS letters and Enter, the last of one letter more */
#define LINES           10
#define LINE_LETTERS    19
#define KEYS            (LINES * (LINE_LETTERS + 1))
#define KEY_INTERVAL_MS 100

/* The terminal's character cells: the first one's box, and the background. */
struct grid {
	uint32_t x, y, width, height;
	uint8_t paper;
};

static const char text[] = "thequickbrownfoxjumpsoverthelazydog";

static uint16_t
letter_key(char c)
{
	static const uint16_t keys[26] = {KEY_A, KEY_B, KEY_C, KEY_D, KEY_E, KEY_F, KEY_G, KEY_H,
		KEY_I, KEY_J, KEY_K, KEY_L, KEY_M, KEY_N, KEY_O, KEY_P, KEY_Q, KEY_R, KEY_S, KEY_T,
		KEY_U, KEY_V, KEY_W, KEY_X, KEY_Y, KEY_Z};

	return keys[c - 'a'];
}

/* The cell of a line and column. */
static void
cell_box(const struct grid *grid, uint32_t line, uint32_t column, uint32_t *x, uint32_t *y)
{
	*x = grid->x + column * grid->width;
	*y = grid->y + line * grid->height;
}

/* Letters typed into a line. */
static uint32_t
line_letters(uint32_t line)
{
	return line + 1 < LINES ? LINE_LETTERS : LINE_LETTERS + 1;
}

static bool
cell_inked(const uint8_t *image, const struct grid *grid, uint32_t line, uint32_t column)
{
	uint32_t x, y;

	cell_box(grid, line, column, &x, &y);
	return vellum_ink_box(image, PANEL_W, x, y, grid->width, grid->height, grid->paper, NULL) >
	       0;
}

static bool
is_cleanup_waveform(const struct epd_trace *t)
{
	return !strcmp(t->waveform, "GL16") || !strcmp(t->waveform, "GC16");
}

/*
 * The number of typed cells not wholly covered by GL16 or GC16 updates
 * submitted after after_ns, in the trace's n entries (the cleanup may
 * redraw a cell in more than one update).
 */
static unsigned int
cells_not_cleaned(
	const struct epd_trace *trace, size_t n, const struct grid *grid, uint64_t after_ns)
{
	uint8_t *covered = calloc((size_t)PANEL_W * PANEL_H, 1);
	unsigned int missing = 0;

	REQUIRE(covered);
	for (size_t i = 0; i < n; i++) {
		if (trace[i].submit_ns <= after_ns || !is_cleanup_waveform(&trace[i]))
			continue;
		for (uint32_t y = trace[i].top; y < trace[i].top + trace[i].height && y < PANEL_H;
			y++) {
			for (uint32_t x = trace[i].left;
				x < trace[i].left + trace[i].width && x < PANEL_W; x++)
				covered[(size_t)y * PANEL_W + x] = 1;
		}
	}
	for (uint32_t line = 0; line < LINES; line++) {
		for (uint32_t column = 0; column < line_letters(line); column++) {
			uint32_t x0, y0;
			bool whole = true;

			cell_box(grid, line, column, &x0, &y0);
			for (uint32_t y = y0; y < y0 + grid->height && whole; y++) {
				for (uint32_t x = x0; x < x0 + grid->width && whole; x++)
					whole = covered[(size_t)y * PANEL_W + x];
			}
			missing += !whole;
		}
	}
	free(covered);
	return missing;
}

/*
 * A screenshot of the output by grim, as gray (8 bits a pixel, the panel's
 * layout); NULL when grim fails or its image is not the panel's size.
 */
static uint8_t *
screenshot_gray(const struct vellum_run *run, const char *path)
{
	uint8_t *gray = NULL, *rgb;
	size_t len;
	unsigned int width, height, max;
	int header = 0, out_fd;
	pid_t grim = vellum_client_start(
		run, (const char *const[]){"grim", "-t", "ppm", path, NULL}, &out_fd);
	int status = vellum_child_wait(grim, 60);

	close(out_fd);
	CHECK_MSG(status == 0, "grim exited with status %d", status);
	char *ppm = epd_read_file(path, &len);

	if (!ppm)
		return NULL;
	if (sscanf(ppm, "P6 %u %u %u%n", &width, &height, &max, &header) != 3 || max != 255 ||
		width != PANEL_W || height != PANEL_H ||
		len < (size_t)header + 1 + (size_t)width * height * 3) {
		epd_fail(__FILE__, __LINE__, "grim's image is not a %ux%u PPM", PANEL_W, PANEL_H);
		free(ppm);
		return NULL;
	}
	rgb = (uint8_t *)ppm + header + 1;
	gray = malloc((size_t)width * height);
	REQUIRE(gray);
	for (size_t i = 0; i < (size_t)width * height; i++)
		gray[i] = (uint8_t)((299u * rgb[3 * i] + 587u * rgb[3 * i + 1] +
					    114u * rgb[3 * i + 2] + 500u) /
				    1000u);
	free(ppm);
	return gray;
}

/* Finds the cursor, all there is on the terminal's background: the first cell. */
static struct grid
find_first_cell(struct epd *d)
{
	struct vellum_box cursor = {0};
	uint8_t paper;

	REQUIRE(vellum_find_cursor(d, &cursor, &paper));
	REQUIRE_MSG(cursor.x + (LINE_LETTERS + 2) * cursor.width <= PANEL_W &&
			    cursor.y + LINES * cursor.height <= PANEL_H,
		"ten lines of %u letters do not fit the terminal", LINE_LETTERS + 1);
	return (struct grid){cursor.x, cursor.y, cursor.width, cursor.height, paper};
}

/* Types the text: the time of the last key. */
static uint64_t
type_text(struct vellum_run *run, int keyboard)
{
	uint64_t last_key_ns = 0;
	size_t next = 0;

	for (uint32_t line = 0; line < LINES; line++) {
		for (uint32_t column = 0; column < line_letters(line); column++) {
			vm_key(keyboard, letter_key(text[next++ % (sizeof(text) - 1)]));
			last_key_ns = epd_now_ns();
			epd_sleep_ms(KEY_INTERVAL_MS);
		}
		if (line + 1 < LINES) {
			vm_key(keyboard, KEY_ENTER);
			epd_sleep_ms(KEY_INTERVAL_MS);
		}
		vellum_print_output(run);
	}
	return last_key_ns;
}

/* The updates submitted while typing: none flashed, none collided. */
static void
check_typing_updates(const struct epd_trace *trace, size_t n, uint64_t last_key_ns)
{
	unsigned int during = 0, fast = 0, collided = 0;

	for (size_t i = 0; i < n; i++) {
		if (trace[i].submit_ns > last_key_ns)
			continue;
		during++;
		fast += !strcmp(trace[i].waveform, "DU") || !strcmp(trace[i].waveform, "A2");
		if (trace[i].flash) {
			epd_trace_print(&trace[i]);
			epd_fail(__FILE__, __LINE__, "update %zu flashed while the user typed", i);
		}
		if (trace[i].collided) {
			epd_trace_print(&trace[i]);
			collided++;
		}
	}
	printf("%u updates while typing, %u of them DU or A2, %u collided\n", during, fast,
		collided);
	CHECK_MSG(collided == 0, "%u updates waited for the one before them", collided);
	CHECK_MSG(during > 0, "no update reached the panel while the user typed");
}

/* The cleanup after the last key: GL16 or GC16 updates over every typed cell. */
static void
wait_cleanup(struct epd *d, const struct grid *grid, uint64_t last_key_ns)
{
	struct epd_trace *trace = NULL;
	unsigned int missing = 0, flashes = 0;
	size_t n = 0, stable_n = 0;
	int stable = 0;

	for (int i = 0; i < 600 && stable < 30; i++) {
		free(trace);
		n = epd_trace_read(d, &trace);
		missing = cells_not_cleaned(trace, n, grid, last_key_ns);
		/* the cleanup is there, and three seconds pass without a new update */
		stable = missing == 0 && n == stable_n ? stable + 1 : 0;
		stable_n = n;
		epd_sleep_ms(100);
	}
	for (size_t i = 0; i < n; i++) {
		if (trace[i].submit_ns > last_key_ns) {
			epd_trace_print(&trace[i]);
			flashes += trace[i].flash != 0;
		}
	}
	printf("%u flashing updates after the last key\n", flashes);
	CHECK_MSG(missing == 0,
		"%u typed cells got no GL16 or GC16 update after the last key (idle cleanup)",
		missing);
	free(trace);
}

/*
 * The panel shows the text: ink in every typed cell, and in each cell of
 * the terminal ink exactly where the screenshot has it.
 */
static void
check_panel(struct epd *d, const struct vellum_run *run, const struct grid *grid)
{
	char path[64];
	uint8_t *panel = epd_alloc_image(d), *shot;
	unsigned int blank = 0, differ = 0;

	REQUIRE_RC(epd_wait_idle(d), 0);
	epd_read_panel(d, panel);
	for (uint32_t line = 0; line < LINES; line++) {
		for (uint32_t column = 0; column < line_letters(line); column++) {
			if (!cell_inked(panel, grid, line, column)) {
				printf("line %u column %u: no ink on the panel\n", line, column);
				blank++;
			}
		}
	}
	CHECK_MSG(blank == 0, "%u typed characters are not on the panel", blank);

	snprintf(path, sizeof(path), "/tmp/vellum-typing-%d.ppm", (int)getpid());
	shot = screenshot_gray(run, path);
	unlink(path);
	if (shot) {
		uint8_t shot_paper = shot[(size_t)PANEL_W * PANEL_H - 1];
		struct grid shot_grid = *grid;

		shot_grid.paper = shot_paper;
		for (uint32_t line = 0; grid->y + (line + 1) * grid->height <= PANEL_H; line++) {
			for (uint32_t column = 0; grid->x + (column + 1) * grid->width <= PANEL_W;
				column++) {
				bool on_panel = cell_inked(panel, grid, line, column);

				if (on_panel != cell_inked(shot, &shot_grid, line, column)) {
					printf("line %u column %u: %s\n", line, column,
						on_panel
							? "ink on the panel, none in foot's frame"
							: "ink in foot's frame, none on the panel");
					differ++;
				}
			}
		}
		CHECK_MSG(
			differ == 0, "%u cells differ between the panel and foot's frame", differ);
	}
	free(shot);
	free(panel);
}

int
main(void)
{
	struct epd dev, *d = &dev;
	struct vellum_run run;
	struct epd_trace *trace;
	char config[64];

	epd_begin("vellum_typing", 240);
	/* real waveform durations: DU 260 ms, GL16 450 ms */
	epd_open(d, "width=640 height=480 bpp=8 time_scale=100");
	vm_input_setup();
	int keyboard = vm_uinput_keyboard();
	vm_udev_settle();
	/* the default refresh policy */
	snprintf(config, sizeof(config), "/tmp/vellum-typing-%d.conf", (int)getpid());
	FILE *f = fopen(config, "w");
	REQUIRE(f && fputs("[refresh]\n", f) >= 0 && fclose(f) == 0);

	epd_phase("foot shows its window");
	epd_clear(d);
	epd_trace_clear(d);
	/* the terminal echoes the keys; cat reads them away so that each line shows once */
	const char *args[] = {"-c", config, "-d", d->devnode, "--", "sh", "-c",
		VELLUM_SAY_DISPLAY
		"exec foot --override=font=monospace:size=14 "
		"--override=colors.background=ffffff "
		"--override=colors.foreground=000000 sh -c 'exec cat >/dev/null'",
		NULL};
	vellum_start(&run, args, NULL);
	REQUIRE(vellum_expect_display(&run, 60));
	REQUIRE_MSG(vellum_wait_full_update(d, 120), "foot's window never reached the panel");
	struct grid grid = find_first_cell(d);
	/* foot's first frame and its cleanup are done before the typing starts */
	epd_sleep_ms(3000);
	REQUIRE_RC(epd_wait_idle(d), 0);

	epd_phase("typing 200 keys at 10 a second");
	epd_trace_clear(d);
	uint64_t last_key_ns = type_text(&run, keyboard);

	epd_phase("the idle cleanup after the last key");
	wait_cleanup(d, &grid, last_key_ns);
	epd_phase("no flash while typing");
	size_t n = epd_trace_read(d, &trace);
	check_typing_updates(trace, n, last_key_ns);
	free(trace);

	epd_phase("the panel shows foot's frame");
	check_panel(d, &run, &grid);

	vellum_stop(&run, SIGTERM, 60);
	unlink(config);
	vm_uinput_destroy(keyboard);
	epd_close(d);
	return epd_end();
}
