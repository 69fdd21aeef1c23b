// SPDX-License-Identifier: MIT
/*
 * Looks at screenshots (PNG) for the preview's tests:
 *
 *   shot_probe share SHOT.png LO HI     per mille of pixels with a gray in [LO, HI]
 *   shot_probe red SHOT.png             per mille of reddish pixels (R well above G and B)
 *   shot_probe compare SHOT.png PANEL.pgm
 *
 * compare prints "differ=N pixels=M": the screenshot's pixels (of the
 * same size as the panel) whose gray is not the panel's, give or take 1
 * for the conversion to RGB and back.
 */
#include <cairo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panel-image.h"

static cairo_surface_t *
load_png(const char *path)
{
	cairo_surface_t *shot = cairo_image_surface_create_from_png(path);

	if (cairo_surface_status(shot) != CAIRO_STATUS_SUCCESS) {
		fprintf(stderr, "shot_probe: %s: %s\n", path,
			cairo_status_to_string(cairo_surface_status(shot)));
		exit(2);
	}
	cairo_surface_flush(shot);
	return shot;
}

static uint8_t
gray_at(cairo_surface_t *shot, int x, int y)
{
	const uint8_t *row = cairo_image_surface_get_data(shot) +
			     (size_t)y * cairo_image_surface_get_stride(shot);
	uint32_t px = ((const uint32_t *)row)[x];

	/* the panel's grays come back with R = G = B: any channel tells it */
	return (uint8_t)((((px >> 16) & 0xff) + ((px >> 8) & 0xff) + (px & 0xff)) / 3);
}

static int
share(const char *path, int lo, int hi)
{
	cairo_surface_t *shot = load_png(path);
	int width = cairo_image_surface_get_width(shot),
	    height = cairo_image_surface_get_height(shot);
	size_t in = 0;

	for (int y = 0; y < height; y++)
		for (int x = 0; x < width; x++) {
			uint8_t gray = gray_at(shot, x, y);
			in += gray >= lo && gray <= hi;
		}
	printf("%zu\n", in * 1000 / ((size_t)width * height));
	cairo_surface_destroy(shot);
	return 0;
}

static int
red(const char *path)
{
	cairo_surface_t *shot = load_png(path);
	int width = cairo_image_surface_get_width(shot),
	    height = cairo_image_surface_get_height(shot);
	size_t reddish = 0;

	for (int y = 0; y < height; y++) {
		const uint32_t *row =
			(const uint32_t *)(cairo_image_surface_get_data(shot) +
					   (size_t)y * cairo_image_surface_get_stride(shot));
		for (int x = 0; x < width; x++) {
			int r = (row[x] >> 16) & 0xff, g = (row[x] >> 8) & 0xff, b = row[x] & 0xff;
			reddish += r > g + 40 && r > b + 40;
		}
	}
	printf("%zu\n", reddish * 1000 / ((size_t)width * height));
	cairo_surface_destroy(shot);
	return 0;
}

static int
compare(const char *shot_path, const char *panel_path)
{
	cairo_surface_t *shot = load_png(shot_path);
	struct gray_image image;
	size_t differ = 0;

	if (!panel_image_read_pgm(panel_path, &image))
		return 2;
	int width = image.width, height = image.height;
	const uint8_t *panel = image.pixels;

	if (cairo_image_surface_get_width(shot) != width ||
		cairo_image_surface_get_height(shot) != height) {
		fprintf(stderr, "shot_probe: %s is %dx%d, %s %dx%d\n", shot_path,
			cairo_image_surface_get_width(shot), cairo_image_surface_get_height(shot),
			panel_path, width, height);
		return 2;
	}
	for (int y = 0; y < height; y++)
		for (int x = 0; x < width; x++)
			differ += abs(gray_at(shot, x, y) - panel[(size_t)y * width + x]) > 1;
	printf("differ=%zu pixels=%zu\n", differ, (size_t)width * height);
	free(image.pixels);
	cairo_surface_destroy(shot);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "share") == 0)
		return share(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc == 4 && strcmp(argv[1], "compare") == 0)
		return compare(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "red") == 0)
		return red(argv[2]);
	fprintf(stderr, "usage: shot_probe share SHOT.png LO HI | compare SHOT.png PANEL.pgm | "
			"red SHOT.png\n");
	return 2;
}
