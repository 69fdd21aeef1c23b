// SPDX-License-Identifier: MIT
/*
 * The preview's recording (--record DIR), in the demo's formats, for bug
 * reports: DIR/frames/NS.pgm, the panel as the window showed it whenever
 * an update had completed (NS: CLOCK_MONOTONIC nanoseconds), and at the end
 * DIR/updates.txt, the updates in the lines of epdfb's debugfs trace,
 * DIR/panel.pgm and DIR/panel.png, the final panel, and
 * DIR/panel-frames.png, the demo's contact sheet: up to 16 of this
 * recording's frames with the updates drawn over them (tools/panel-sheet's).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <wlr/util/log.h>

#include "panel-image.h"
#include "panel-model.h"
#include "record.h"
#include "sheet.h"

/* The contact sheet: at most this many frames, evenly spread, about this wide. */
#define SHEET_FRAMES      16
#define SHEET_COLUMNS     4
#define SHEET_THUMB_WIDTH 320.0

struct vl_record {
	char *dir;
	uint64_t *frames; /* the ns of each frame written, in order */
	size_t n_frames, frames_capacity;
};

static bool
make_dir(const char *path, char *error, size_t error_size)
{
	if (mkdir(path, 0755) == 0 || errno == EEXIST)
		return true;
	snprintf(error, error_size, "--record: cannot create %s: %s", path, strerror(errno));
	return false;
}

struct vl_record *
vl_record_start(const char *dir, char *error, size_t error_size)
{
	struct vl_record *record = calloc(1, sizeof(*record));
	char frames[PATH_MAX];

	if (!record || !(record->dir = strdup(dir))) {
		free(record);
		snprintf(error, error_size, "out of memory");
		return NULL;
	}
	snprintf(frames, sizeof(frames), "%s/frames", dir);
	if (!make_dir(dir, error, error_size) || !make_dir(frames, error, error_size)) {
		free(record->dir);
		free(record);
		return NULL;
	}
	return record;
}

static bool
write_pgm(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return false;
	fprintf(f, "P5\n%" PRIu32 " %" PRIu32 "\n255\n", width, height);
	bool ok = fwrite(pixels, 1, (size_t)width * height, f) == (size_t)width * height;
	return fclose(f) == 0 && ok;
}

void
vl_record_frame(struct vl_record *record, const uint8_t *frame, uint32_t width, uint32_t height,
	uint64_t ns)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/frames/%" PRIu64 ".pgm", record->dir, ns);
	if (!write_pgm(path, frame, width, height)) {
		wlr_log_errno(WLR_ERROR, "--record: cannot write %s", path);
		return;
	}
	if (record->n_frames == record->frames_capacity) {
		size_t capacity = record->frames_capacity ? record->frames_capacity * 2 : 64;
		uint64_t *grown = realloc(record->frames, capacity * sizeof(*grown));
		if (!grown)
			return;
		record->frames = grown;
		record->frames_capacity = capacity;
	}
	record->frames[record->n_frames++] = ns;
}

static void
write_updates(struct vl_record *record, struct vl_panel_model *model)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/updates.txt", record->dir);
	char *text = vl_panel_model_trace_text(model);
	FILE *f = text ? fopen(path, "w") : NULL;
	bool ok = f && fputs(text, f) >= 0;
	if (f && fclose(f) != 0)
		ok = false;
	if (!ok)
		wlr_log_errno(WLR_ERROR, "--record: cannot write %s", path);
	free(text);
}

/* The contact sheet of up to SHEET_FRAMES of this recording's frames, evenly spread. */
static void
write_sheet(struct vl_record *record, uint32_t width)
{
	char sheet_path[PATH_MAX], trace_path[PATH_MAX], *picked[SHEET_FRAMES];
	size_t n = record->n_frames, count = n < SHEET_FRAMES ? n : SHEET_FRAMES, named = 0;

	if (n == 0)
		return;
	for (; named < count; named++) {
		uint64_t ns = record->frames[count > 1 ? named * (n - 1) / (count - 1) : 0];
		if (asprintf(&picked[named], "%s/frames/%" PRIu64 ".pgm", record->dir, ns) < 0)
			break;
	}
	snprintf(sheet_path, sizeof(sheet_path), "%s/panel-frames.png", record->dir);
	snprintf(trace_path, sizeof(trace_path), "%s/updates.txt", record->dir);
	double scale = fmin(1.0, SHEET_THUMB_WIDTH / width);
	if (named < count || panel_sheet_make(sheet_path, trace_path, SHEET_COLUMNS, scale, 0,
				     picked, (int)count) != 0)
		wlr_log(WLR_ERROR, "--record: cannot write %s", sheet_path);
	for (size_t i = 0; i < named; i++)
		free(picked[i]);
}

void
vl_record_finish(struct vl_record *record, struct vl_panel_model *model)
{
	char path[PATH_MAX];

	if (!record)
		return;
	if (model) {
		uint32_t width = vl_panel_model_width(model), height = vl_panel_model_height(model);
		uint8_t *panel = malloc((size_t)width * height);
		snprintf(path, sizeof(path), "%s/panel.pgm", record->dir);
		if (panel) {
			vl_panel_model_read(model, panel);
			if (!write_pgm(path, panel, width, height))
				wlr_log_errno(WLR_ERROR, "--record: cannot write %s", path);
		}
		free(panel);
		char png_path[PATH_MAX];
		snprintf(png_path, sizeof(png_path), "%s/panel.png", record->dir);
		if (panel_image_convert(path, png_path) != 0)
			wlr_log(WLR_ERROR, "--record: cannot write %s", png_path);
		write_updates(record, model);
		write_sheet(record, width);
	}
	wlr_log(WLR_INFO, "recorded %zu frames in %s", record->n_frames, record->dir);
	free(record->frames);
	free(record->dir);
	free(record);
}
