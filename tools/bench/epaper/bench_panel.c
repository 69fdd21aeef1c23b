// SPDX-License-Identifier: MIT
#include "bench_panel.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPDRM_DEBUGFS "/sys/kernel/debug/epdrm"

/* The first cardN of epdrm's debugfs directory into name; false when there is none. */
static bool
find_epdrm_card(char *name, size_t size)
{
	DIR *dir = opendir(EPDRM_DEBUGFS);
	struct dirent *ent;
	bool found = false;

	if (!dir)
		return false;
	while (!found && (ent = readdir(dir))) {
		if (strncmp(ent->d_name, "card", 4) == 0) {
			snprintf(name, size, "%.*s", (int)size - 1, ent->d_name);
			found = true;
		}
	}
	closedir(dir);
	return found;
}

/* d without a device file, sized as the panel's PGM says; where names it in errors */
static void
attach_sized(struct epd *d, const char *pgm, const char *where)
{
	unsigned int width, height;

	REQUIRE_MSG(sscanf(pgm, "P5\n%u %u\n", &width, &height) == 2 && width && height,
		"%s: not a PGM", where);
	d->fd = -1;
	d->fbnum = -1;
	d->width = width;
	d->height = height;
	d->bpp = 8;
	d->line_length = width;
	d->model = malloc((size_t)width * height);
	REQUIRE(d->model);
	memset(d->model, 255, (size_t)width * height);
}

/*
 * The card is not opened: a process holding it when the display stack
 * starts would keep the stack from becoming its master.
 */
static void
attach_epdrm(struct epd *d, const char *card)
{
	char path[EPD_DBG_PATH_SIZE];

	memset(d, 0, sizeof(*d));
	snprintf(d->devnode, sizeof(d->devnode), "/dev/dri/%s", card);
	snprintf(d->dbgdir, sizeof(d->dbgdir), "%s/%s", EPDRM_DEBUGFS, card);
	snprintf(path, sizeof(path), "%s/panel", d->dbgdir);
	char *pgm = epd_read_file(path, NULL);
	REQUIRE_MSG(pgm, "read %s: %s", path, strerror(errno));
	attach_sized(d, pgm, path);
	free(pgm);
}

/* The board's node is left to the display stack, which sends it commands. */
static void
attach_board(struct epd *d, const char *state_dir)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->board, sizeof(d->board), "%s", state_dir);
	snprintf(d->devnode, sizeof(d->devnode), "the emulated board in %.40s", state_dir);
	char *pgm = epd_board_query(d, "panel", NULL);
	attach_sized(d, pgm, "the emulated board's panel");
	free(pgm);
}

void
bench_panel_attach(struct epd *d)
{
	const char *board = getenv("EPAPER_BOARD");
	char card[16];

	if (board && *board) {
		attach_board(d, board);
		return;
	}
	bool drm = find_epdrm_card(card, sizeof(card));
	bool fb = epd_find_fb() >= 0;

	REQUIRE_MSG(!(drm && fb), "both epdfb and epdrm are loaded: which panel is measured?");
	REQUIRE_MSG(drm || fb, "neither epdfb nor epdrm is loaded");
	if (fb)
		epd_attach(d);
	else
		attach_epdrm(d, card);
}

bool
bench_panel_is_drm(const struct epd *d)
{
	return d->fd < 0 && !d->board[0];
}

bool
bench_panel_is_board(const struct epd *d)
{
	return d->board[0] != '\0';
}
