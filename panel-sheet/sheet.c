// SPDX-License-Identifier: MIT
/*
 * The contact sheet: frames of the panel captured over time (each named
 * after the CLOCK_MONOTONIC ns it was read at) laid out as thumbnails,
 * with the updates that completed since the previous frame drawn over
 * each, from epdfb's `updates` trace: flashing ones filled red, the
 * others outlined blue, each labelled with its waveform.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "panel-image.h"
#include "sheet.h"

struct traced_update {
	uint64_t end_ns;
	int left, top, width, height;
	char waveform[16];
	bool flash;
};

struct trace {
	struct traced_update *updates;
	size_t count;
};

struct frame {
	const char *path;
	uint64_t ns;
};

/* Parses the lines of epdfb's debugfs `updates` file. */
static bool
read_trace(int dir_fd, const char *path, struct trace *trace)
{
	int fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC);
	FILE *file = fd >= 0 ? fdopen(fd, "r") : NULL;
	char line[512];
	size_t capacity = 0;

	if (!file) {
		fprintf(stderr, "panel-sheet: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (fgets(line, sizeof(line), file)) {
		struct traced_update update = {0};
		unsigned int flash;
		if (sscanf(line,
			    "marker=%*u submit_ns=%*u start_ns=%*u end_ns=%" SCNu64
			    " left=%d top=%d width=%d height=%d waveform=%15s mode=%*s "
			    "flags=%*x merged=%*u collided=%*u flash=%u",
			    &update.end_ns, &update.left, &update.top, &update.width,
			    &update.height, update.waveform, &flash) != 7) {
			fprintf(stderr, "panel-sheet: %s: not an epdfb update trace: %s", path,
				line);
			fclose(file);
			return false;
		}
		update.flash = flash != 0;
		if (trace->count == capacity) {
			capacity = capacity ? 2 * capacity : 256;
			struct traced_update *grown =
				realloc(trace->updates, capacity * sizeof(*grown));
			if (!grown) {
				fclose(file);
				return false;
			}
			trace->updates = grown;
		}
		trace->updates[trace->count++] = update;
	}
	fclose(file);
	return true;
}

static int
compare_frames(const void *a, const void *b)
{
	uint64_t ns_a = ((const struct frame *)a)->ns, ns_b = ((const struct frame *)b)->ns;
	return (ns_a > ns_b) - (ns_a < ns_b);
}

/* A frame's capture time is its file name: NS.pgm. */
static bool
frame_time(const char *path, uint64_t *ns)
{
	char *copy = strdup(path);
	char *end;
	bool valid = false;

	if (copy) {
		const char *name = basename(copy);
		errno = 0;
		unsigned long long value = strtoull(name, &end, 10);
		valid = errno == 0 && end != name && strcmp(end, ".pgm") == 0;
		*ns = value;
	}
	if (!valid)
		fprintf(stderr, "panel-sheet: %s: a frame is named NS.pgm\n", path);
	free(copy);
	return valid;
}

static void
draw_update(cairo_t *cr, const struct traced_update *update, double scale)
{
	double x = update->left * scale, y = update->top * scale;
	double w = update->width * scale, h = update->height * scale;

	cairo_rectangle(cr, x, y, w < 1 ? 1 : w, h < 1 ? 1 : h);
	if (update->flash) {
		cairo_set_source_rgba(cr, 0.85, 0.1, 0.1, 0.35);
		cairo_fill_preserve(cr);
		cairo_set_source_rgb(cr, 0.85, 0.1, 0.1);
	} else {
		cairo_set_source_rgb(cr, 0.1, 0.3, 0.9);
	}
	cairo_set_line_width(cr, 2);
	cairo_stroke(cr);
	if (w >= 24 && h >= 12) {
		cairo_move_to(cr, x + 3, y + 11);
		cairo_show_text(cr, update->waveform);
	}
}

struct sheet_layout {
	int columns, rows;
	double scale;
	int cell_width, cell_height;
};

enum { CAPTION = 22, GAP = 8, LEGEND = 28 };

static void
draw_cell(cairo_t *cr, const struct sheet_layout *layout, cairo_surface_t *thumb_source,
	const struct trace *trace, uint64_t since_ns, uint64_t until_ns, uint64_t start_ns)
{
	unsigned int flashes = 0, updates = 0;

	cairo_save(cr);
	cairo_rectangle(cr, 0, 0, layout->cell_width, layout->cell_height);
	cairo_clip(cr);
	cairo_save(cr);
	cairo_scale(cr, layout->scale, layout->scale);
	cairo_set_source_surface(cr, thumb_source, 0, 0);
	cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
	cairo_paint(cr);
	cairo_restore(cr);
	cairo_set_font_size(cr, 10);
	for (size_t i = 0; i < trace->count; i++) {
		const struct traced_update *update = &trace->updates[i];
		if (update->end_ns <= since_ns || update->end_ns > until_ns)
			continue;
		draw_update(cr, update, layout->scale);
		updates++;
		flashes += update->flash;
	}
	cairo_restore(cr);

	char caption[96];
	snprintf(caption, sizeof(caption), "t = %.2f s   %u update%s%s",
		(until_ns - start_ns) / 1e9, updates, updates == 1 ? "" : "s",
		flashes ? (flashes == 1 ? ", 1 flash" : ", flashes") : "");
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_font_size(cr, 13);
	cairo_move_to(cr, 2, layout->cell_height + 16);
	cairo_show_text(cr, caption);
	cairo_rectangle(cr, 0.5, 0.5, layout->cell_width - 1, layout->cell_height - 1);
	cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
	cairo_set_line_width(cr, 1);
	cairo_stroke(cr);
}

static void
draw_legend(cairo_t *cr)
{
	cairo_set_font_size(cr, 13);
	cairo_set_source_rgba(cr, 0.85, 0.1, 0.1, 0.35);
	cairo_rectangle(cr, GAP, 8, 14, 12);
	cairo_fill(cr);
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_move_to(cr, GAP + 20, 19);
	cairo_show_text(cr, "flashing update since the previous frame");
	cairo_set_source_rgb(cr, 0.1, 0.3, 0.9);
	cairo_set_line_width(cr, 2);
	cairo_rectangle(cr, GAP + 320, 9, 14, 10);
	cairo_stroke(cr);
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_move_to(cr, GAP + 340, 19);
	cairo_show_text(cr, "non-flashing update (labelled with its waveform)");
}

/* The sheet, or NULL with a message on standard error. */
static cairo_surface_t *
make_sheet(int dir_fd, const char *trace_path, int columns, double scale, uint64_t start_ns,
	char **paths, int count)
{
	struct trace trace = {0};
	struct frame *frames = calloc(count, sizeof(*frames));
	cairo_surface_t *sheet = NULL;
	cairo_t *cr = NULL;
	bool made = false;

	if (!frames || !read_trace(dir_fd, trace_path, &trace))
		goto out;
	for (int i = 0; i < count; i++) {
		frames[i].path = paths[i];
		if (!frame_time(paths[i], &frames[i].ns))
			goto out;
	}
	qsort(frames, count, sizeof(*frames), compare_frames);
	if (!start_ns)
		start_ns = frames[0].ns;

	struct gray_image image;
	if (!panel_image_read_pgm_at(dir_fd, frames[0].path, &image))
		goto out;
	struct sheet_layout layout = {
		.columns = count < columns ? count : columns,
		.rows = (count + columns - 1) / columns,
		.scale = scale,
		.cell_width = (int)(image.width * scale),
		.cell_height = (int)(image.height * scale),
	};
	int panel_width = image.width, panel_height = image.height;
	free(image.pixels);

	sheet = cairo_image_surface_create(CAIRO_FORMAT_RGB24,
		GAP + layout.columns * (layout.cell_width + GAP),
		LEGEND + layout.rows * (layout.cell_height + CAPTION + GAP));
	cr = cairo_create(sheet);
	if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
		fprintf(stderr, "panel-sheet: %s\n", cairo_status_to_string(cairo_status(cr)));
		goto out;
	}
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	draw_legend(cr);

	uint64_t since_ns = 0;
	for (int i = 0; i < count; i++) {
		if (!panel_image_read_pgm_at(dir_fd, frames[i].path, &image))
			goto out;
		if (image.width != panel_width || image.height != panel_height) {
			fprintf(stderr, "panel-sheet: %s: %dx%d, not the first frame's %dx%d\n",
				frames[i].path, image.width, image.height, panel_width,
				panel_height);
			free(image.pixels);
			goto out;
		}
		cairo_surface_t *thumb = panel_image_surface(&image);
		cairo_save(cr);
		cairo_translate(cr, GAP + (i % columns) * (layout.cell_width + GAP),
			LEGEND + (i / columns) * (layout.cell_height + CAPTION + GAP));
		draw_cell(cr, &layout, thumb, &trace, since_ns, frames[i].ns, start_ns);
		cairo_restore(cr);
		cairo_surface_destroy(thumb);
		free(image.pixels);
		since_ns = frames[i].ns;
	}
	made = true;
out:
	if (cr)
		cairo_destroy(cr);
	if (sheet && !made) {
		cairo_surface_destroy(sheet);
		sheet = NULL;
	}
	free(trace.updates);
	free(frames);
	return sheet;
}

int
panel_sheet_make(const char *out_path, const char *trace_path, int columns, double scale,
	uint64_t start_ns, char **paths, int count)
{
	cairo_surface_t *sheet =
		make_sheet(AT_FDCWD, trace_path, columns, scale, start_ns, paths, count);
	bool written = sheet && panel_image_write_png(sheet, out_path);

	if (sheet)
		cairo_surface_destroy(sheet);
	return written ? 0 : 1;
}

int
panel_sheet_write(FILE *out, const char *out_name, int dir_fd, const char *trace_path, int columns,
	double scale, uint64_t start_ns, char **paths, int count)
{
	cairo_surface_t *sheet =
		make_sheet(dir_fd, trace_path, columns, scale, start_ns, paths, count);
	bool written = sheet && panel_image_write_png_file(sheet, out, out_name);

	if (sheet)
		cairo_surface_destroy(sheet);
	return written ? 0 : 1;
}
