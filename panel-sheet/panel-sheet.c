// SPDX-License-Identifier: MIT
/*
 * panel-sheet: pictures of the simulated panel for people to look at.
 *
 *   panel-sheet --png PANEL.pgm OUT.png
 *   panel-sheet --preview PANEL.pgm [--columns N]
 *   panel-sheet --sheet OUT.png --trace UPDATES [--columns N] [--scale S]
 *               [--start NS] FRAME.pgm...
 *
 * The first form converts epdfb's debugfs `panel` image to PNG; the second
 * prints it on a terminal in half blocks, two cells a character. The third
 * lays frames captured over time (each named after the CLOCK_MONOTONIC ns it
 * was read at) out as a contact sheet. The driver's panel image holds only
 * finished updates, so a flash never shows in a captured frame; the sheet
 * draws the updates that completed since the previous frame over each
 * thumbnail instead, from the driver's `updates` trace: flashing ones filled
 * red, the others outlined blue, each labelled with its waveform.
 */
#include <cairo.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panel-image.h"
#include "sheet.h"

/* A cell is dark when its mean is below this: text strokes, not ghosts. */
enum { DARK_BELOW = 235 };

static bool
cell_dark(const struct gray_image *image, int x0, int y0, int cell)
{
	unsigned long total = 0;
	for (int y = y0; y < y0 + cell; y++)
		for (int x = x0; x < x0 + cell; x++)
			total += image->pixels[(size_t)y * image->width + x];
	return total < (unsigned long)DARK_BELOW * cell * cell;
}

static int
preview(const char *pgm_path, int columns)
{
	static const char *const glyphs[4] = {" ", "\u2580", "\u2584", "\u2588"};
	struct gray_image image;
	int blank_rows = 0;

	if (!panel_image_read_pgm(pgm_path, &image))
		return 1;
	int cell = image.width / columns;
	if (cell < 1)
		cell = 1;
	for (int y = 0; y + 2 * cell <= image.height; y += 2 * cell) {
		char line[4 * 512 + 1];
		size_t length = 0, visible = 0;
		for (int x = 0; x + cell <= image.width && x / cell < 512; x += cell) {
			int glyph = cell_dark(&image, x, y, cell) |
				    cell_dark(&image, x, y + cell, cell) << 1;
			length += (size_t)sprintf(line + length, "%s", glyphs[glyph]);
			if (glyph)
				visible = length;
		}
		line[visible] = '\0';
		if (!visible) {
			blank_rows++;
			continue;
		}
		/* Blank rows print only between rows with something on them. */
		for (; blank_rows; blank_rows--)
			putchar('\n');
		puts(line);
	}
	printf("(%dx%d, one character per %dx%d pixels)\n", image.width, image.height, cell,
		2 * cell);
	free(image.pixels);
	return 0;
}

static void
usage(FILE *stream)
{
	fputs("usage: panel-sheet --png PANEL.pgm OUT.png\n"
	      "       panel-sheet --preview PANEL.pgm [--columns N]\n"
	      "       panel-sheet --sheet OUT.png --trace UPDATES [--columns N] [--scale S]\n"
	      "                   [--start NS] FRAME.pgm...\n"
	      "Frames are epdfb panel images named after the CLOCK_MONOTONIC ns they were\n"
	      "read at; UPDATES is a copy of epdfb's debugfs `updates` trace.\n",
		stream);
}

int
main(int argc, char *argv[])
{
	static const struct option options[] = {
		{"png", no_argument, NULL, 'p'},
		{"preview", no_argument, NULL, 'P'},
		{"sheet", required_argument, NULL, 's'},
		{"trace", required_argument, NULL, 't'},
		{"columns", required_argument, NULL, 'c'},
		{"scale", required_argument, NULL, 'x'},
		{"start", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *sheet_path = NULL, *trace_path = NULL;
	bool png = false, show = false;
	int columns = 0, option;
	double scale = 0.25;
	uint64_t start_ns = 0;
	char *end;

	while ((option = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (option) {
		case 'p':
			png = true;
			break;
		case 'P':
			show = true;
			break;
		case 's':
			sheet_path = optarg;
			break;
		case 't':
			trace_path = optarg;
			break;
		case 'c':
			columns = (int)strtol(optarg, &end, 10);
			if (*end || columns < 1 || columns > 512) {
				fprintf(stderr, "panel-sheet: --columns takes 1 to 512\n");
				return 1;
			}
			break;
		case 'x':
			scale = strtod(optarg, &end);
			if (*end || !(scale > 0.01 && scale <= 1)) {
				fprintf(stderr,
					"panel-sheet: --scale takes a factor in (0.01, 1]\n");
				return 1;
			}
			break;
		case 'S':
			start_ns = strtoull(optarg, &end, 10);
			if (*end) {
				fprintf(stderr, "panel-sheet: --start takes nanoseconds\n");
				return 1;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (png && !show && !sheet_path && argc - optind == 2)
		return panel_image_convert(argv[optind], argv[optind + 1]);
	if (show && !png && !sheet_path && argc - optind == 1)
		return preview(argv[optind], columns ? columns : 104);
	if (!png && !show && sheet_path && trace_path && argc > optind)
		return panel_sheet_make(sheet_path, trace_path, columns ? columns : 4, scale,
			start_ns, argv + optind, argc - optind);
	usage(stderr);
	return 1;
}
