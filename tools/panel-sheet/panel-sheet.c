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

struct gray_image {
	int width, height;
	uint8_t *pixels;
};

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

static bool
read_pgm(const char *path, struct gray_image *image)
{
	FILE *file = fopen(path, "rb");
	int maxval;

	if (!file) {
		fprintf(stderr, "panel-sheet: %s: %s\n", path, strerror(errno));
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
static cairo_surface_t *
gray_surface(const struct gray_image *image)
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

static bool
write_png(cairo_surface_t *surface, const char *path)
{
	cairo_status_t status = cairo_surface_write_to_png(surface, path);
	if (status != CAIRO_STATUS_SUCCESS) {
		fprintf(stderr, "panel-sheet: %s: %s\n", path, cairo_status_to_string(status));
		return false;
	}
	return true;
}

static int
convert(const char *pgm_path, const char *png_path)
{
	struct gray_image image;
	if (!read_pgm(pgm_path, &image))
		return 1;
	cairo_surface_t *surface = gray_surface(&image);
	bool written = cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS &&
		       write_png(surface, png_path);
	cairo_surface_destroy(surface);
	free(image.pixels);
	return written ? 0 : 1;
}

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

	if (!read_pgm(pgm_path, &image))
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

/* Parses the lines of epdfb's debugfs `updates` file. */
static bool
read_trace(const char *path, struct trace *trace)
{
	FILE *file = fopen(path, "r");
	char line[512];
	size_t capacity = 0;

	if (!file) {
		fprintf(stderr, "panel-sheet: %s: %s\n", path, strerror(errno));
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

static int
make_sheet(const char *out_path, const char *trace_path, int columns, double scale,
	uint64_t start_ns, char **paths, int count)
{
	struct trace trace = {0};
	struct frame *frames = calloc(count, sizeof(*frames));
	cairo_surface_t *sheet = NULL;
	cairo_t *cr = NULL;
	int status = 1;

	if (!frames || !read_trace(trace_path, &trace))
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
	if (!read_pgm(frames[0].path, &image))
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
		if (!read_pgm(frames[i].path, &image))
			goto out;
		if (image.width != panel_width || image.height != panel_height) {
			fprintf(stderr, "panel-sheet: %s: %dx%d, not the first frame's %dx%d\n",
				frames[i].path, image.width, image.height, panel_width,
				panel_height);
			free(image.pixels);
			goto out;
		}
		cairo_surface_t *thumb = gray_surface(&image);
		cairo_save(cr);
		cairo_translate(cr, GAP + (i % columns) * (layout.cell_width + GAP),
			LEGEND + (i / columns) * (layout.cell_height + CAPTION + GAP));
		draw_cell(cr, &layout, thumb, &trace, since_ns, frames[i].ns, start_ns);
		cairo_restore(cr);
		cairo_surface_destroy(thumb);
		free(image.pixels);
		since_ns = frames[i].ns;
	}
	status = write_png(sheet, out_path) ? 0 : 1;
out:
	if (cr)
		cairo_destroy(cr);
	if (sheet)
		cairo_surface_destroy(sheet);
	free(trace.updates);
	free(frames);
	return status;
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
		return convert(argv[optind], argv[optind + 1]);
	if (show && !png && !sheet_path && argc - optind == 1)
		return preview(argv[optind], columns ? columns : 104);
	if (!png && !show && sheet_path && trace_path && argc > optind)
		return make_sheet(sheet_path, trace_path, columns ? columns : 4, scale, start_ns,
			argv + optind, argc - optind);
	usage(stderr);
	return 1;
}
