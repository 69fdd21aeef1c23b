// SPDX-License-Identifier: MIT
#include "vellum_panel.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "epdrm_test.h"

/* The emulated board's state: its control socket, log and FunctionFS mount. */
#define BOARD_STATE "/run/vellum-test-board"
/* The board's VCOM as a real one would hold it, so that vellum needs no config for it. */
#define BOARD_VCOM_MV "1500"

static bool
ends_with(const char *name, const char *suffix)
{
	size_t len = strlen(name), suffix_len = strlen(suffix);

	return len > suffix_len && strcmp(name + len - suffix_len, suffix) == 0;
}

enum vellum_panel_kind
vellum_panel_kind(void)
{
	const char *driver = getenv("VELLUM_TEST_DRIVER");
	const char *name = program_invocation_short_name;

	if (driver && *driver)
		return strcmp(driver, "epdrm") == 0    ? VELLUM_PANEL_EPDRM
		       : strcmp(driver, "it8951") == 0 ? VELLUM_PANEL_IT8951
						       : VELLUM_PANEL_EPDFB;
	if (ends_with(name, "_epdrm"))
		return VELLUM_PANEL_EPDRM;
	return ends_with(name, "_it8951") ? VELLUM_PANEL_IT8951 : VELLUM_PANEL_EPDFB;
}

bool
vellum_panel_is_drm(void)
{
	return vellum_panel_kind() == VELLUM_PANEL_EPDRM;
}

/* Runs usb-board with arguments (words without quotes); its first line of output in out. */
static int
usb_board(const char *arguments, char *out, size_t size)
{
	char *command;

	REQUIRE(asprintf(&command, "IT8951_GADGET='%s' '%s' %s", IT8951_GADGET_BIN, USB_BOARD,
			arguments) > 0);
	int status = epd_run_command(command, out, size);
	free(command);
	out[strcspn(out, "\n")] = '\0';
	return status;
}

/* Whether a process holds a SCSI generic node open: vellum, on the board. */
static bool
board_node_held(void)
{
	DIR *proc = opendir("/proc");
	bool held = false;

	for (struct dirent *p; proc && !held && (p = readdir(proc));) {
		char path[600], target[64];
		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		DIR *fds = opendir(path);
		for (struct dirent *f; fds && !held && (f = readdir(fds));) {
			snprintf(path, sizeof(path), "/proc/%s/fd/%s", p->d_name, f->d_name);
			ssize_t n = readlink(path, target, sizeof(target) - 1);
			held = n > 7 && strncmp(target, "/dev/sg", 7) == 0;
		}
		if (fds)
			closedir(fds);
	}
	if (proc)
		closedir(proc);
	return held;
}

static void
stop_board(void)
{
	char output[256];

	usb_board("stop " BOARD_STATE, output, sizeof(output));
}

/* The value of KEY=VALUE in epdfb's parameters, or fallback. */
static const char *
param(const char *params, const char *key, char *value, size_t size, const char *fallback)
{
	const char *at = strstr(params, key);

	if (!at || (at != params && at[-1] != ' ')) {
		snprintf(value, size, "%s", fallback);
		return value;
	}
	at += strlen(key);
	snprintf(value, size, "%.*s", (int)strcspn(at, " "), at);
	return value;
}

/* epdfb's parameters for size and timing, as the board's: its panel model is epdfb's. */
static void
open_board(struct epd *d, const char *params)
{
	char width[16], height[16], time_scale[16], arguments[160], node[64];

	snprintf(arguments, sizeof(arguments),
		"start --width %s --height %s --time-scale %s --vcom " BOARD_VCOM_MV
		" " BOARD_STATE,
		param(params, "width=", width, sizeof(width), "800"),
		param(params, "height=", height, sizeof(height), "600"),
		param(params, "time_scale=", time_scale, sizeof(time_scale), "100"));
	/* what a test before left, and the board again when this one ends */
	stop_board();
	atexit(stop_board);
	REQUIRE_MSG(
		usb_board(arguments, node, sizeof(node)) == 0 && strncmp(node, "/dev/sg", 7) == 0,
		"the emulated IT8951 board did not come up (%s); see %s/gadget.log", node,
		BOARD_STATE);
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->fbnum = -1;
	d->width = (uint32_t)atoi(width);
	d->height = (uint32_t)atoi(height);
	d->bpp = 8;
	d->line_length = d->width;
	snprintf(d->devnode, sizeof(d->devnode), "it8951:%.56s", node);
	snprintf(d->board, sizeof(d->board), "%s", BOARD_STATE);
	d->model = malloc((size_t)d->width * d->height);
	REQUIRE(d->model);
	printf("device: %s, the emulated board's state in %s\n", d->devnode, d->board);
}

/* epdfb's parameters that epdrm has too */
static void
epdrm_params(const char *params, char *out, size_t size)
{
	static const char *const shared[] = {
		"width=", "height=", "width_mm=", "height_mm=", "time_scale=", "ambient_temp="};
	char copy[512];
	size_t used = 0;

	snprintf(copy, sizeof(copy), "%s", params);
	out[0] = '\0';
	for (char *save = NULL, *word = strtok_r(copy, " ", &save); word;
		word = strtok_r(NULL, " ", &save)) {
		for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
			if (strncmp(word, shared[i], strlen(shared[i])) == 0 && used < size) {
				used += (size_t)snprintf(
					out + used, size - used, "%s%s", used ? " " : "", word);
				break;
			}
		}
	}
}

/* As KMS master for a moment: a white frame, GC16 with a flash, settled. */
static void
clear_through_kms(struct epd *d)
{
	struct epdrm e;

	epdrm_open(&e);
	epdrm_clear_white(&e);
	epdrm_close(&e);
	memset(d->model, 255, (size_t)d->width * d->height);
}

void
vellum_panel_open(struct epd *d, const char *params)
{
	char drm_params[512];
	struct epdrm e;

	if (vellum_panel_kind() == VELLUM_PANEL_IT8951) {
		open_board(d, params);
		return;
	}
	if (!vellum_panel_is_drm()) {
		epd_open(d, params);
		return;
	}
	epdrm_params(params, drm_params, sizeof(drm_params));
	epdrm_load(drm_params);
	epdrm_open(&e);
	epdrm_close(&e);
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->fbnum = -1;
	d->width = e.panel.width;
	d->height = e.panel.height;
	d->bpp = 8;
	d->line_length = d->width;
	snprintf(
		d->devnode, sizeof(d->devnode), "drm:%.*s", (int)sizeof(d->devnode) - 5, e.devnode);
	snprintf(d->dbgdir, sizeof(d->dbgdir), "%s", e.panel.dbgdir);
	d->model = malloc((size_t)d->width * d->height);
	REQUIRE(d->model);
	printf("device: %s, debugfs %s\n", d->devnode, d->dbgdir);
}

void
vellum_panel_clear(struct epd *d)
{
	if (d->board[0]) {
		free(epd_board_query(d, "white", NULL));
		memset(d->model, 255, (size_t)d->width * d->height);
	} else if (d->fd < 0)
		clear_through_kms(d);
	else
		epd_clear(d);
}

int
vellum_panel_unbind(void)
{
	char output[256];

	if (vellum_panel_kind() == VELLUM_PANEL_IT8951)
		return usb_board("unplug " BOARD_STATE, output, sizeof(output)) == 0 ? 0 : -EIO;
	if (vellum_panel_is_drm())
		return epd_write_file(EPDRM_UNBIND_PATH, EPDRM_DEV_NAME);
	return epd_unbind();
}

int
vellum_panel_try_unload(void)
{
	/*
	 * The board's driver is sg, which a removed node can keep loaded for a
	 * while after its last holder exits: what the tests mean is whether a
	 * process still holds the board's node.
	 */
	if (vellum_panel_kind() == VELLUM_PANEL_IT8951)
		return board_node_held() ? -EAGAIN : 0;
	return vellum_panel_is_drm() ? epdrm_try_unload() : epd_try_unload();
}
