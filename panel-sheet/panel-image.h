/* SPDX-License-Identifier: MIT */
/*
 * The simulated panel's pictures: 8-bit gray images, as epdfb's debugfs
 * `panel` file and vellum's --record write them (binary PGM).
 */
#ifndef PANEL_IMAGE_H
#define PANEL_IMAGE_H

#include <cairo.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct gray_image {
	int width, height;
	uint8_t *pixels;
};

/* Reads a binary 8-bit PGM; false, with a message on standard error, if it cannot. */
bool panel_image_read_pgm(const char *path, struct gray_image *image);
/* The same with a relative path taken from the directory dir_fd (or AT_FDCWD), as openat(2). */
bool panel_image_read_pgm_at(int dir_fd, const char *path, struct gray_image *image);
/* The gray image as a cairo surface, gray repeated in each channel. */
cairo_surface_t *panel_image_surface(const struct gray_image *image);
bool panel_image_write_png(cairo_surface_t *surface, const char *path);
/* The same into a file the caller opened (and closes); name is for the message. */
bool panel_image_write_png_file(cairo_surface_t *surface, FILE *file, const char *name);
/* PGM to PNG: 0, or 1 with a message on standard error. */
int panel_image_convert(const char *pgm_path, const char *png_path);

#endif
