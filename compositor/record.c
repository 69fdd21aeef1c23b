// SPDX-License-Identifier: MIT
/*
 * The preview's recording (--record DIR), in the demo's formats, for bug
 * reports: DIR/frames/NS.pgm, the panel as the window showed it whenever
 * an update had completed (NS: CLOCK_MONOTONIC nanoseconds), and at the end
 * DIR/updates.txt, the updates in the lines of epdfb's debugfs trace,
 * DIR/panel.pgm and DIR/panel.png, the final panel, and
 * DIR/panel-frames.png, the demo's contact sheet: up to 16 of this
 * recording's frames with the updates drawn over them (panel-sheet/sheet.c).
 *
 * The recording is the user's alone, wherever DIR is (such as /tmp): DIR and
 * DIR/frames are made 0700, or taken when they exist only if they are the
 * user's own directories and no one else may write in them, and every file
 * is made new (0600) through the directories opened once, never through a
 * symbolic link, so that nothing another user planted is written over.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
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
	int dir_fd, frames_fd; /* DIR and DIR/frames, checked once */
	uint64_t *frames;      /* the ns of each frame written, in order */
	size_t n_frames, frames_capacity;
};

/*
 * Opens the directory name (in parent_fd), made 0700 if it is not there; a
 * link, or a directory another user owns or may write in, is refused.
 */
static int
open_private_dir(int parent_fd, const char *name, const char *path, char *error, size_t error_size)
{
	struct stat st;

	if (mkdirat(parent_fd, name, 0700) != 0 && errno != EEXIST) {
		snprintf(
			error, error_size, "--record: cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int open_errno = errno;
		bool link = fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode);
		snprintf(error, error_size, "--record: cannot open %s: %s", path,
			link ? "a symbolic link, not a directory" : strerror(open_errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		snprintf(error, error_size, "--record: %s: %s", path, strerror(errno));
	} else if (st.st_uid != geteuid()) {
		snprintf(error, error_size, "--record: %s belongs to another user", path);
	} else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(error, error_size, "--record: others may write in %s", path);
	} else {
		return fd;
	}
	close(fd);
	return -1;
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
	record->dir_fd = open_private_dir(AT_FDCWD, dir, dir, error, error_size);
	record->frames_fd = record->dir_fd >= 0 ? open_private_dir(record->dir_fd, "frames", frames,
							  error, error_size)
						: -1;
	if (record->frames_fd < 0) {
		if (record->dir_fd >= 0)
			close(record->dir_fd);
		free(record->dir);
		free(record);
		return NULL;
	}
	return record;
}

/*
 * A new file name in dir_fd, 0600, for writing: what was there under that
 * name (a previous recording's file, or a link) is removed, not written to.
 */
static FILE *
create_file(int dir_fd, const char *name)
{
	if (unlinkat(dir_fd, name, 0) != 0 && errno != ENOENT)
		return NULL;
	int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *file = fd >= 0 ? fdopen(fd, "wb") : NULL;

	if (!file && fd >= 0)
		close(fd);
	return file;
}

static bool
write_pgm(int dir_fd, const char *name, const uint8_t *pixels, uint32_t width, uint32_t height)
{
	FILE *f = create_file(dir_fd, name);

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
	char name[32];

	snprintf(name, sizeof(name), "%" PRIu64 ".pgm", ns);
	if (!write_pgm(record->frames_fd, name, frame, width, height)) {
		wlr_log_errno(WLR_ERROR, "--record: cannot write %s/frames/%s", record->dir, name);
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
	char *text = vl_panel_model_trace_text(model);
	FILE *f = text ? create_file(record->dir_fd, "updates.txt") : NULL;
	bool ok = f && fputs(text, f) >= 0;
	if (f && fclose(f) != 0)
		ok = false;
	if (!ok)
		wlr_log_errno(WLR_ERROR, "--record: cannot write %s/updates.txt", record->dir);
	free(text);
}

/* The contact sheet of up to SHEET_FRAMES of this recording's frames, evenly spread. */
static void
write_sheet(struct vl_record *record, uint32_t width)
{
	char *picked[SHEET_FRAMES];
	size_t n = record->n_frames, count = n < SHEET_FRAMES ? n : SHEET_FRAMES, named = 0;

	if (n == 0)
		return;
	for (; named < count; named++) {
		uint64_t ns = record->frames[count > 1 ? named * (n - 1) / (count - 1) : 0];
		if (asprintf(&picked[named], "frames/%" PRIu64 ".pgm", ns) < 0)
			break;
	}
	double scale = fmin(1.0, SHEET_THUMB_WIDTH / width);
	FILE *sheet = named == count ? create_file(record->dir_fd, "panel-frames.png") : NULL;
	bool ok = sheet && panel_sheet_write(sheet, "panel-frames.png", record->dir_fd,
				   "updates.txt", SHEET_COLUMNS, scale, 0, picked, (int)count) == 0;
	if (sheet && fclose(sheet) != 0)
		ok = false;
	if (!ok)
		wlr_log(WLR_ERROR, "--record: cannot write %s/panel-frames.png", record->dir);
	for (size_t i = 0; i < named; i++)
		free(picked[i]);
}

/* The final panel, as PGM and PNG. */
static void
write_panel(struct vl_record *record, struct vl_panel_model *model)
{
	struct gray_image image = {
		.width = (int)vl_panel_model_width(model),
		.height = (int)vl_panel_model_height(model),
	};

	image.pixels = malloc((size_t)image.width * image.height);
	if (!image.pixels)
		return;
	vl_panel_model_read(model, image.pixels);
	if (!write_pgm(record->dir_fd, "panel.pgm", image.pixels, image.width, image.height))
		wlr_log_errno(WLR_ERROR, "--record: cannot write %s/panel.pgm", record->dir);
	cairo_surface_t *surface = panel_image_surface(&image);
	FILE *png = cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS
			    ? create_file(record->dir_fd, "panel.png")
			    : NULL;
	bool ok = png && panel_image_write_png_file(surface, png, "panel.png");
	if (png && fclose(png) != 0)
		ok = false;
	if (!ok)
		wlr_log(WLR_ERROR, "--record: cannot write %s/panel.png", record->dir);
	cairo_surface_destroy(surface);
	free(image.pixels);
}

void
vl_record_finish(struct vl_record *record, struct vl_panel_model *model)
{
	if (!record)
		return;
	if (model) {
		write_panel(record, model);
		write_updates(record, model);
		write_sheet(record, vl_panel_model_width(model));
	}
	wlr_log(WLR_INFO, "recorded %zu frames in %s", record->n_frames, record->dir);
	close(record->frames_fd);
	close(record->dir_fd);
	free(record->frames);
	free(record->dir);
	free(record);
}
