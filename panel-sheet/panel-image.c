// SPDX-License-Identifier: MIT
/*
 * The simulated panel's pictures: its PGM images read, made cairo
 * surfaces, written as PNG.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "panel-image.h"

bool
panel_image_read_pgm(const char *path, struct gray_image *image)
{
	return panel_image_read_pgm_at(AT_FDCWD, path, image);
}

bool
panel_image_read_pgm_at(int dir_fd, const char *path, struct gray_image *image)
{
	int fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC);
	FILE *file = fd >= 0 ? fdopen(fd, "rb") : NULL;
	int maxval;

	if (!file) {
		fprintf(stderr, "panel-sheet: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	if (fscanf(file, "P5 %d %d %d", &image->width, &image->height, &maxval) != 3 ||
		maxval != 255 || image->width <= 0 || image->height <= 0 || image->width > 16384 ||
		image->height > 16384 || fgetc(file) == EOF) {
		fprintf(stderr, "panel-sheet: %s: not an 8-bit binary PGM\n", path);
		fclose(file);
		return false;
	}
	size_t size = (size_t)image->width * image->height;
	image->pixels = malloc(size);
	bool complete = image->pixels && fread(image->pixels, 1, size, file) == size;
	fclose(file);
	if (!complete) {
		fprintf(stderr, "panel-sheet: %s: truncated image\n", path);
		free(image->pixels);
		image->pixels = NULL;
	}
	return complete;
}

/* The gray image as a cairo surface, gray repeated in each channel. */
cairo_surface_t *
panel_image_surface(const struct gray_image *image)
{
	cairo_surface_t *surface =
		cairo_image_surface_create(CAIRO_FORMAT_RGB24, image->width, image->height);
	if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS)
		return surface;
	cairo_surface_flush(surface);
	uint8_t *data = cairo_image_surface_get_data(surface);
	int stride = cairo_image_surface_get_stride(surface);
	for (int y = 0; y < image->height; y++) {
		uint32_t *row = (uint32_t *)(data + (size_t)y * stride);
		const uint8_t *gray = image->pixels + (size_t)y * image->width;
		for (int x = 0; x < image->width; x++)
			row[x] = 0x010101u * gray[x];
	}
	cairo_surface_mark_dirty(surface);
	return surface;
}

bool
panel_image_write_png(cairo_surface_t *surface, const char *path)
{
	cairo_status_t status = cairo_surface_write_to_png(surface, path);
	if (status != CAIRO_STATUS_SUCCESS) {
		fprintf(stderr, "panel-sheet: %s: %s\n", path, cairo_status_to_string(status));
		return false;
	}
	return true;
}

static cairo_status_t
write_to_file(void *closure, const unsigned char *data, unsigned int length)
{
	return fwrite(data, 1, length, closure) == length ? CAIRO_STATUS_SUCCESS
							  : CAIRO_STATUS_WRITE_ERROR;
}

bool
panel_image_write_png_file(cairo_surface_t *surface, FILE *file, const char *name)
{
	cairo_status_t status = cairo_surface_write_to_png_stream(surface, write_to_file, file);
	if (status != CAIRO_STATUS_SUCCESS) {
		fprintf(stderr, "panel-sheet: %s: %s\n", name, cairo_status_to_string(status));
		return false;
	}
	return true;
}

int
panel_image_convert(const char *pgm_path, const char *png_path)
{
	struct gray_image image;
	if (!panel_image_read_pgm(pgm_path, &image))
		return 1;
	cairo_surface_t *surface = panel_image_surface(&image);
	bool written = cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS &&
		       panel_image_write_png(surface, png_path);
	cairo_surface_destroy(surface);
	free(image.pixels);
	return written ? 0 : 1;
}
