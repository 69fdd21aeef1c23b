// SPDX-License-Identifier: MIT
/*
 * Compositors written elsewhere, as Debian ships them, on epdrm: cage,
 * sway and weston (DRM backend, pixman renderer), each with foot black on
 * white and a uinput keyboard, one after the other on an 800x600 panel.
 * None of them knows the EPD_* plane properties; all they give the driver
 * is their commits and damage clips. For each:
 *
 * - typing KEYS letters, KEY_INTERVAL_MS apart once the screen settled,
 *   reaches the panel in at most two updates a key, each at most
 *   MAX_UPDATE_CELLS_X by MAX_UPDATE_CELLS_Y of foot's cells, none of them
 *   of the whole panel and none flashing;
 * - once the panel has been idle for longer than the driver's
 *   cleanup_delay_ms, its ghost is cleaned up (stats' ghost mean at most
 *   MAX_GHOST_MEAN);
 * - idle after that, with no input, the trace gains no update: a commit
 *   that changes no pixel costs the panel nothing;
 * - the panel shows what the compositor's own screenshot (grim, or
 *   weston-screenshooter) shows: each pixel at the level of the screenshot's
 *   gray among the panel's 16, a pixel off it only by what the ghost model
 *   can leave (at most PANEL_GHOST_MAX levels) and only on a few pixels.
 *
 * A compositor that does not come up fails the test with its log, and the
 * next one runs all the same; every wait has a bound.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input-event-codes.h>
#include <png.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "epdrm_test.h"
#include "vm_input.h"

#define W 800
#define H 600
/* the driver's idle cleanup, short so that the test need not wait long for it */
#define CLEANUP_DELAY_MS 1500
#define KEYS             10
#define KEY_INTERVAL_MS  400
/* what a typed key may cost the panel: foot redraws the new glyph and moves its cursor */
#define MAX_UPDATES_PER_KEY 2
#define MAX_UPDATE_CELLS_X  4
#define MAX_UPDATE_CELLS_Y  2
#define MAX_GHOST_MEAN      0.02
/* no input for this long after the cleanup: no update may come */
#define IDLE_MS 4000
/*
 * The panel model's largest ghost (kernel/epdfb_sim.c): a pixel reads back at
 * most this far from its level, toward the one it had before.
 */
#define PANEL_GHOST_MAX 64
/* the share of pixels a cleaned panel may still show off their level */
#define MAX_GHOSTED_SHARE 0.005
/* quiet: nothing submitted, completed, in flight or queued for this long */
#define SETTLE_QUIET_MS  (CLEANUP_DELAY_MS + 1000)
#define SETTLE_TIMEOUT_S 90
#define START_TIMEOUT_S  60
#define STOP_TIMEOUT_S   20

struct compositor {
	const char *name;
	/* a shell command run in the session's directory: %s is the card's name (cardN) */
	const char *command;
	/* foot as a client of the compositor's socket, or NULL when the command starts it */
	bool own_client;
	/* how the screenshot is taken: grim, or weston's screenshooter */
	bool weston_shot;
};

static const char foot_command[] = "exec foot sh -c 'exec cat >/dev/null'";

static const struct compositor compositors[] = {
	{
		.name = "cage",
		/* -d: no client-side decorations, foot's text alone on the output */
		.command = "exec cage -d -- foot sh -c 'exec cat >/dev/null'",
	},
	{
		.name = "sway",
		.command = "exec sway -c sway.conf",
		.own_client = true,
	},
	{
		.name = "weston",
		/* --debug lets weston-screenshooter take its picture */
		.command = "exec weston --backend=drm --renderer=pixman --shell=kiosk-shell.so "
			   "--drm-device=%s --idle-time=0 --debug --config=$PWD/weston.ini",
		.own_client = true,
		.weston_shot = true,
	},
};

/* One compositor's run: its directory (runtime dir, home, configs, log) and processes. */
struct session {
	const struct compositor *comp;
	char dir[96];
	char log[160];
	char display[64];
	pid_t server, client;
};

static struct epdrm card;
static struct epd *panel = &card.panel;
static char card_name[16];
static bool has_cleanup;
static struct session *current;

/* ---- processes ---- */

/*
 * Starts a shell command in the session's directory, in a process group of
 * its own (so that it can be stopped with its children), with the
 * session's environment, its output appended to the log. It dies with the
 * test.
 */
static pid_t
spawn(const struct session *s, const char *command, bool with_display)
{
	printf("+ (%s) %s &\n", s->comp->name, command);
	fflush(stdout);
	pid_t pid = fork();
	REQUIRE(pid >= 0);
	if (pid)
		return pid;
	setsid();
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	int fd = open(s->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || chdir(s->dir))
		_exit(126);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	char path[160], card_path[64];
	snprintf(path, sizeof(path), "%s/runtime", s->dir);
	setenv("XDG_RUNTIME_DIR", path, 1);
	snprintf(path, sizeof(path), "%s/config", s->dir);
	setenv("XDG_CONFIG_HOME", path, 1);
	setenv("HOME", s->dir, 1);
	setenv("XDG_PICTURES_DIR", s->dir, 1);
	setenv("LIBSEAT_BACKEND", "seatd", 1);
	/* no GPU in the VM: wlroots draws with pixman into the card's dumb buffers */
	setenv("WLR_RENDERER", "pixman", 1);
	snprintf(card_path, sizeof(card_path), "/dev/dri/%s", card_name);
	setenv("WLR_DRM_DEVICES", card_path, 1);
	unsetenv("DISPLAY");
	if (with_display)
		setenv("WAYLAND_DISPLAY", s->display, 1);
	else
		unsetenv("WAYLAND_DISPLAY");
	execl("/bin/sh", "sh", "-c", command, (char *)NULL);
	_exit(127);
}

static bool
alive(pid_t pid)
{
	int status;

	return pid > 0 && waitpid(pid, &status, WNOHANG) == 0;
}

/* Stops a process group with SIGTERM; false when it had to be killed. */
static bool
stop_group(pid_t pid, const char *what)
{
	if (pid <= 0)
		return true;
	kill(-pid, SIGTERM);
	for (int i = 0; i < STOP_TIMEOUT_S * 10; i++) {
		int status;
		pid_t done = waitpid(pid, &status, WNOHANG);
		if (done == pid || (done < 0 && errno == ECHILD)) {
			/* what it left in its group (Xwayland, a shell) goes too */
			kill(-pid, SIGKILL);
			return true;
		}
		epd_sleep_ms(100);
	}
	printf("%s did not exit within %d s of SIGTERM: killed\n", what, STOP_TIMEOUT_S);
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return false;
}

static void
print_log(const struct session *s)
{
	char command[256], out[16384];

	snprintf(command, sizeof(command), "tail -n 60 %s", s->log);
	epd_run_command(command, out, sizeof(out));
	printf("---- %s's log (last lines) ----\n%s---- end of %s's log ----\n", s->comp->name, out,
		s->comp->name);
}

/* A fatal failure does not leave a compositor holding the card for the next test. */
static void
stop_current(void)
{
	if (!current)
		return;
	if (current->client > 0)
		kill(-current->client, SIGKILL);
	if (current->server > 0)
		kill(-current->server, SIGKILL);
}

/* ---- the session's files ---- */

static void
write_text(const char *dir, const char *name, const char *text)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	REQUIRE_MSG(f, "%s: %s", path, strerror(errno));
	REQUIRE(fputs(text, f) >= 0 && fclose(f) == 0);
}

static void
make_dir(const char *dir, const char *name, mode_t mode)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	REQUIRE_MSG(
		mkdir(path, mode) == 0 || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
}

static void
session_init(struct session *s, const struct compositor *comp)
{
	memset(s, 0, sizeof(*s));
	s->comp = comp;
	snprintf(s->dir, sizeof(s->dir), "/tmp/epdrm-compositors-%s-XXXXXX", comp->name);
	REQUIRE_MSG(mkdtemp(s->dir), "mkdtemp: %s", strerror(errno));
	snprintf(s->log, sizeof(s->log), "%s/log", s->dir);
	make_dir(s->dir, "runtime", 0700);
	make_dir(s->dir, "config", 0755);
	make_dir(s->dir, "config/foot", 0755);
	/* foot as e-paper users run it: black on white, its default font */
	write_text(
		s->dir, "config/foot/foot.ini", "[colors]\nbackground=ffffff\nforeground=000000\n");
	/* foot alone on the output, no borders, scale 1 */
	write_text(s->dir, "sway.conf",
		"xwayland disable\n"
		"output * scale 1\n"
		"default_border none\n"
		"default_floating_border none\n");
	write_text(s->dir, "weston.ini", "[core]\nidle-time=0\n");
}

static void
session_remove(struct session *s)
{
	char command[160], out[256];

	snprintf(command, sizeof(command), "rm -rf %s", s->dir);
	epd_run_command(command, out, sizeof(out));
}

/* The compositor's socket in its runtime dir into s->display. */
static bool
find_socket(struct session *s)
{
	char path[160];
	struct dirent *ent;
	bool found = false;

	snprintf(path, sizeof(path), "%s/runtime", s->dir);
	DIR *dir = opendir(path);
	if (!dir)
		return false;
	while (!found && (ent = readdir(dir))) {
		if (strncmp(ent->d_name, "wayland-", 8) || strstr(ent->d_name, ".lock"))
			continue;
		snprintf(s->display, sizeof(s->display), "%.63s", ent->d_name);
		found = true;
	}
	closedir(dir);
	return found;
}

/* ---- the panel ---- */

static void
reset_panel_counters(void)
{
	char path[EPD_DBG_PATH_SIZE];

	snprintf(path, sizeof(path), "%s/stats", panel->dbgdir);
	REQUIRE_RC(epd_write_file(path, "0\n"), 0);
	epd_trace_clear(panel);
}

/*
 * A white, ghost-free panel (GC16 with EPD_FULL: epdrm reads the EPD_*
 * properties as their defaults again for the next master), then the card
 * closed, for the compositor to take.
 */
static void
clear_panel(void)
{
	epdrm_open(&card);
	epdrm_clear_white(&card);
	epdrm_close(&card);
	REQUIRE(epdrm_wait_idle(&card));
	reset_panel_counters();
}

/* The counters that move while anything happens on the panel. */
static void
activity(long long out[4])
{
	char *snapshot = epd_stats_snapshot(panel);

	out[0] = epd_snapshot_stat(snapshot, "updates_submitted");
	out[1] = epd_snapshot_stat(snapshot, "updates_completed");
	out[2] = epd_snapshot_stat(snapshot, "in_flight");
	out[3] = epd_snapshot_stat(snapshot, "queued");
	free(snapshot);
}

/*
 * Waits until nothing was submitted or completed for SETTLE_QUIET_MS and
 * nothing is in flight or queued: longer than the driver's cleanup delay,
 * so that its cleanup, when it comes, is over too.
 */
static bool
settle(void)
{
	uint64_t start = epd_now_ns(), quiet_since = start;
	long long before[4], now[4];

	activity(before);
	while (epd_ms_since(start) < SETTLE_TIMEOUT_S * 1000.0) {
		epd_sleep_ms(100);
		activity(now);
		if (memcmp(before, now, sizeof(now)) || now[2] || now[3]) {
			memcpy(before, now, sizeof(now));
			quiet_since = epd_now_ns();
		} else if (epd_ms_since(quiet_since) >= SETTLE_QUIET_MS) {
			return true;
		}
	}
	epd_fail(__FILE__, __LINE__, "the panel did not settle within %d s", SETTLE_TIMEOUT_S);
	return false;
}

/* foot's character cell, as its block cursor covers it */
struct text_cell {
	uint32_t x, y, width, height;
};

/*
 * foot's cursor, all there is on its white page but the pointer's I-beam
 * (foot sets it on the pointer that cage and sway show even without a
 * pointing device): the box of the dark pixels in the panel's corner,
 * cursor-sized, with the rest of the panel light. False when the panel
 * does not show that.
 */
#define FIRST_CELL_AREA 64
static bool
find_cursor(const uint8_t *image, struct text_cell *cell)
{
	uint32_t x0 = W, y0 = H, x1 = 0, y1 = 0;
	size_t dark = 0, light = 0;

	for (uint32_t y = 0; y < H; y++) {
		for (uint32_t x = 0; x < W; x++) {
			uint8_t v = image[(size_t)y * W + x];

			/* a ghost leaves white at most PANEL_GHOST_MAX below */
			light += v >= 255 - PANEL_GHOST_MAX;
			/* the pointer's I-beam, where wlroots puts it, is elsewhere */
			if (v >= 0x60 || x >= FIRST_CELL_AREA || y >= FIRST_CELL_AREA)
				continue;
			dark++;
			x0 = x < x0 ? x : x0;
			y0 = y < y0 ? y : y0;
			x1 = x > x1 ? x : x1;
			y1 = y > y1 ? y : y1;
		}
	}
	if (!dark || light < (size_t)W * H * 95 / 100)
		return false;
	*cell = (struct text_cell){x0, y0, x1 - x0 + 1, y1 - y0 + 1};
	return cell->width >= 3 && cell->width <= 40 && cell->height >= 6 && cell->height <= 60 &&
	       dark >= (size_t)cell->width * cell->height / 2;
}

/*
 * What the panel shows, as a PGM in the results directory, and the trace's
 * length: what a failure to show foot leaves to look at.
 */
static void
save_panel(const char *name, const uint8_t *image)
{
	const char *results = getenv("VMTEST_RESULTS");
	struct epd_trace *trace;
	char path[4200];

	size_t n = epd_trace_read(panel, &trace);
	printf("%s: %zu updates in the trace\n", name, n);
	for (size_t i = n > 8 ? n - 8 : 0; i < n; i++)
		epd_trace_print(&trace[i]);
	free(trace);
	if (!results || !*results)
		return;
	snprintf(path, sizeof(path), "%s/epdrm-compositors-%s.pgm", results, name);
	FILE *f = fopen(path, "wb");
	if (!f)
		return;
	fprintf(f, "P5\n%d %d\n255\n", W, H);
	fwrite(image, 1, (size_t)W * H, f);
	fclose(f);
	printf("%s: the panel is in %s\n", name, path);
}

/* Waits for foot's white page with its cursor; false when the compositor died or time ran out. */
static bool
wait_foot_shown(struct session *s, struct text_cell *cell)
{
	uint8_t *image = epd_alloc_image(panel);
	uint64_t start = epd_now_ns();
	bool shown = false;

	while (!shown && epd_ms_since(start) < START_TIMEOUT_S * 1000.0) {
		if (!alive(s->server) || (s->comp->own_client && !alive(s->client)))
			break;
		epd_read_panel(panel, image);
		shown = find_cursor(image, cell);
		if (!shown)
			epd_sleep_ms(250);
	}
	if (!shown)
		save_panel(s->comp->name, image);
	free(image);
	return shown;
}

/* ---- screenshots ---- */

/* A PNG file as gray, the driver's way (BT.601 in 8-bit fixed point); NULL on errors. */
static uint8_t *
read_png_gray(const char *path)
{
	png_image image = {.version = PNG_IMAGE_VERSION};
	uint8_t *rgb, *gray;

	if (!png_image_begin_read_from_file(&image, path)) {
		printf("%s: %s\n", path, image.message);
		return NULL;
	}
	if (image.width != W || image.height != H) {
		printf("%s: %ux%u, not the panel's %ux%u\n", path, image.width, image.height, W, H);
		png_image_free(&image);
		return NULL;
	}
	image.format = PNG_FORMAT_RGB;
	rgb = malloc(PNG_IMAGE_SIZE(image));
	gray = malloc((size_t)W * H);
	REQUIRE(rgb && gray);
	if (!png_image_finish_read(&image, NULL, rgb, 0, NULL)) {
		printf("%s: %s\n", path, image.message);
		free(rgb);
		free(gray);
		return NULL;
	}
	for (size_t i = 0; i < (size_t)W * H; i++)
		gray[i] = epd_luma((uint32_t)rgb[3 * i] << 16 | (uint32_t)rgb[3 * i + 1] << 8 |
				   rgb[3 * i + 2]);
	free(rgb);
	return gray;
}

/* The newest wayland-screenshot-*.png weston-screenshooter left in dir into path. */
static bool
find_weston_shot(const char *dir, char *path, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	bool found = false;

	if (!d)
		return false;
	while ((ent = readdir(d))) {
		size_t n = strlen(ent->d_name);
		if (strncmp(ent->d_name, "wayland-screenshot-", 19) || n < 4 ||
			strcmp(ent->d_name + n - 4, ".png"))
			continue;
		snprintf(path, len, "%s/%s", dir, ent->d_name);
		found = true;
	}
	closedir(d);
	return found;
}

/* The compositor's own picture of its output, as gray; NULL when it could not take one. */
static uint8_t *
screenshot(struct session *s)
{
	char path[256], command[320];
	uint8_t *gray = NULL;

	if (s->comp->weston_shot)
		snprintf(command, sizeof(command), "exec weston-screenshooter");
	else
		/* -c: with the pointer, which wlroots draws into the frame on epdrm */
		snprintf(command, sizeof(command), "exec grim -c %s/shot.png", s->dir);
	pid_t pid = spawn(s, command, true);
	int status = -1;
	for (int i = 0; i < 300; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		status = -1;
		epd_sleep_ms(100);
	}
	if (status == -1) {
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		epd_fail(__FILE__, __LINE__, "%s's screenshot failed (status 0x%x)", s->comp->name,
			status);
		return NULL;
	}
	if (s->comp->weston_shot) {
		if (!find_weston_shot(s->dir, path, sizeof(path))) {
			epd_fail(__FILE__, __LINE__, "weston-screenshooter left no picture in %s",
				s->dir);
			return NULL;
		}
	} else {
		snprintf(path, sizeof(path), "%s/shot.png", s->dir);
	}
	gray = read_png_gray(path);
	CHECK_MSG(gray, "%s's screenshot %s is not a %ux%u PNG", s->comp->name, path, W, H);
	return gray;
}

/*
 * The panel against the screenshot: each pixel at the level of the
 * screenshot's gray among the panel's 16 (or 2, where the driver chose a
 * two-level waveform for a black-and-white area), or off it by what a ghost
 * can leave, on at most MAX_GHOSTED_SHARE of the pixels. How much ghost is
 * left is check_cleaned's to say.
 */
static bool
compare_with_screenshot(const char *name, const uint8_t *image, const uint8_t *shot)
{
	size_t exact = 0, ghosted = 0, wrong = 0;

	for (uint32_t y = 0; y < H; y++) {
		for (uint32_t x = 0; x < W; x++) {
			size_t i = (size_t)y * W + x;
			uint8_t p = image[i], e = epd_quant(shot[i], 16);
			int off = abs((int)p - (int)e);

			/* a faint ghost (less than half a level) leaves the level as it is */
			if (epd_quant(p, 16) == e || p == epd_quant(shot[i], 2)) {
				exact++;
				continue;
			}
			if (off <= PANEL_GHOST_MAX) {
				ghosted++;
				continue;
			}
			if (wrong++ < 8)
				printf("  %s: pixel (%u,%u): the screenshot has %u (level %u), the "
				       "panel %u\n",
					name, x, y, shot[i], e, p);
		}
	}
	printf("%s: panel against its screenshot: %zu pixels at their level, %zu off by a ghost, "
	       "%zu wrong\n",
		name, exact, ghosted, wrong);
	bool ok = CHECK_MSG(wrong == 0,
		"%s: %zu pixels of the panel are not what the screenshot shows", name, wrong);
	ok &= CHECK_MSG(ghosted <= (size_t)(W * H * MAX_GHOSTED_SHARE),
		"%s: %zu pixels of the panel are off their level after the cleanup (at most %zu)",
		name, ghosted, (size_t)(W * H * MAX_GHOSTED_SHARE));
	return ok;
}

/* The updates so far, and the ghost they left. */
static void
print_trace(const char *name, const char *what)
{
	struct epd_trace *trace;
	size_t n = epd_trace_read(panel, &trace);

	printf("%s: %zu updates in %s, ghost mean %.3f:\n", name, n, what,
		epd_stat_f(panel, "ghost_mean"));
	for (size_t i = 0; i < n; i++)
		epd_trace_print(&trace[i]);
	free(trace);
}

/* ---- the checks ---- */

static const uint16_t letters[] = {
	KEY_E, KEY_P, KEY_A, KEY_P, KEY_E, KEY_R, KEY_I, KEY_N, KEY_K, KEY_S, KEY_W, KEY_A, KEY_Y};

/*
 * The updates of the typing: those submitted from the first key until the
 * driver's cleanup could come, CLEANUP_DELAY_MS after the last key at the
 * soonest (it waits that long after the panel's last update).
 */
static void
check_typing(const char *name, const struct text_cell *cell, uint64_t first_ns, uint64_t last_ns)
{
	struct epd_trace *trace;
	size_t n = epd_trace_read(panel, &trace);
	unsigned int typing = 0, flashes = 0, full = 0, large = 0;
	uint32_t max_w = MAX_UPDATE_CELLS_X * cell->width,
		 max_h = MAX_UPDATE_CELLS_Y * cell->height;
	uint64_t end_ns = last_ns + CLEANUP_DELAY_MS * 1000000ULL;

	for (size_t i = 0; i < n; i++) {
		const struct epd_trace *t = &trace[i];

		epd_trace_print(t);
		if (t->submit_ns < first_ns || t->submit_ns >= end_ns)
			continue;
		typing++;
		flashes += t->flash != 0;
		full += t->width == W && t->height == H;
		large += t->width > max_w || t->height > max_h;
	}
	printf("%s: %u keys, %u updates while typing: %u of the whole panel, %u larger than "
	       "%ux%u, %u flashing\n",
		name, KEYS, typing, full, large, max_w, max_h, flashes);
	CHECK_MSG(typing > 0, "%s: no update reached the panel while typing", name);
	CHECK_MSG(typing <= KEYS * MAX_UPDATES_PER_KEY,
		"%s: %u updates for %u keys, more than %u a key", name, typing, KEYS,
		MAX_UPDATES_PER_KEY);
	CHECK_MSG(full == 0, "%s: %u updates of the whole panel while typing", name, full);
	CHECK_MSG(large == 0, "%s: %u updates larger than %ux%u cells while typing", name, large,
		MAX_UPDATE_CELLS_X, MAX_UPDATE_CELLS_Y);
	CHECK_MSG(flashes == 0, "%s: %u flashing updates while typing", name, flashes);
	free(trace);
}

static void
check_cleaned(const char *name)
{
	double ghost = epd_stat_f(panel, "ghost_mean");

	printf("%s: ghost mean %.3f after %d ms idle\n", name, ghost, SETTLE_QUIET_MS);
	CHECK_MSG(ghost <= MAX_GHOST_MEAN,
		"%s: the ghost mean is %.3f once idle for longer than cleanup_delay_ms (at most "
		"%.2f)%s",
		name, ghost, MAX_GHOST_MEAN,
		has_cleanup ? "" : ": this epdrm has no idle cleanup (no cleanup_delay_ms)");
}

static void
check_idle(const char *name)
{
	struct epd_trace *trace;
	size_t before = epd_trace_read(panel, &trace);

	free(trace);
	epd_sleep_ms(IDLE_MS);
	size_t after = epd_trace_read(panel, &trace);
	for (size_t i = before; i < after; i++)
		epd_trace_print(&trace[i]);
	free(trace);
	CHECK_MSG(after == before, "%s: %zu updates in %d ms without input", name, after - before,
		IDLE_MS);
}

/* ---- one compositor ---- */

static void
run_compositor(const struct compositor *comp, int keyboard)
{
	struct session s;
	struct text_cell cell;
	char command[512];
	const char *name = comp->name;

	epd_phase("%s: starts with foot on a white panel", name);
	session_init(&s, comp);
	current = &s;
	clear_panel();

	snprintf(command, sizeof(command), comp->command, card_name);
	s.server = spawn(&s, command, false);
	bool up = false;
	uint64_t start = epd_now_ns();
	while (!up && alive(s.server) && epd_ms_since(start) < START_TIMEOUT_S * 1000.0) {
		up = find_socket(&s);
		if (!up)
			epd_sleep_ms(100);
	}
	if (up && comp->own_client)
		s.client = spawn(&s, foot_command, true);
	bool shown = up && wait_foot_shown(&s, &cell);
	if (!shown) {
		print_log(&s);
		epd_fail(__FILE__, __LINE__, "%s: %s", name,
			!up ? "made no Wayland socket"
			    : "foot's page with its cursor never reached the panel");
		goto stop;
	}
	printf("%s on %s: foot's cursor at %u,%u, %ux%u\n", name, s.display, cell.x, cell.y,
		cell.width, cell.height);
	if (!settle())
		goto stop;
	print_trace(name, "its start");

	epd_phase("%s: %d keys typed into foot", name, KEYS);
	epd_trace_clear(panel);
	uint64_t first_ns = epd_now_ns(), last_ns = first_ns;
	for (int i = 0; i < KEYS; i++) {
		last_ns = epd_now_ns();
		vm_key(keyboard, letters[i]);
		epd_sleep_ms(KEY_INTERVAL_MS);
	}
	if (!settle())
		goto stop;
	check_typing(name, &cell, first_ns, last_ns);

	epd_phase("%s: the ghost cleaned up once idle", name);
	check_cleaned(name);

	epd_phase("%s: no update while nothing changes", name);
	check_idle(name);

	epd_phase("%s: the panel shows the compositor's screenshot", name);
	uint8_t *shot = screenshot(&s);
	if (shot) {
		uint8_t *image = epd_alloc_image(panel);

		settle();
		epd_read_panel(panel, image);
		if (!compare_with_screenshot(name, image, shot))
			save_panel(name, image);
		free(image);
		free(shot);
	} else {
		print_log(&s);
	}

stop:
	epd_phase("%s: stops", name);
	bool client_stopped = stop_group(s.client, "foot");
	CHECK_MSG(stop_group(s.server, name) && client_stopped, "%s did not stop on SIGTERM", name);
	current = NULL;
	session_remove(&s);
}

/* Whether the module file has a parameter of that name (modinfo). */
static bool
module_has_param(const char *ko, const char *param)
{
	char command[4200], out[4096];

	snprintf(command, sizeof(command), "modinfo -F parm %s | grep -q '^%s:'", ko, param);
	return epd_run_command(command, out, sizeof(out)) == 0;
}

int
main(void)
{
	char params[160], ko[4096];

	epd_begin("epdrm_compositors", 290);
	uint64_t start = epd_now_ns();
	atexit(stop_current);
	const char *epdfb_ko = getenv("EPDFB_KO");
	REQUIRE_MSG(epdfb_ko && strrchr(epdfb_ko, '/'), "EPDFB_KO is not set");
	snprintf(ko, sizeof(ko), "%.*s/epdrm.ko", (int)(strrchr(epdfb_ko, '/') - epdfb_ko),
		epdfb_ko);
	has_cleanup = module_has_param(ko, "cleanup_delay_ms");
	/* real waveform durations: the compositors' commits meet the panel's pace */
	snprintf(params, sizeof(params), "width=%d height=%d time_scale=100", W, H);
	if (has_cleanup)
		snprintf(params + strlen(params), sizeof(params) - strlen(params),
			" cleanup_delay_ms=%d", CLEANUP_DELAY_MS);
	else
		printf("note: this epdrm has no cleanup_delay_ms: no idle cleanup to wait for\n");
	epdrm_load(params);
	epdrm_open(&card);
	snprintf(card_name, sizeof(card_name), "%s", strrchr(card.devnode, '/') + 1);
	epdrm_close(&card);

	vm_input_setup();
	int keyboard = vm_uinput_keyboard();
	vm_udev_settle();
	pid_t seatd = vm_seatd_start("root");

	/* VELLUM_TEST_COMPOSITORS, when set, names the ones to run ("sway weston") */
	const char *only = getenv("VELLUM_TEST_COMPOSITORS");
	for (size_t i = 0; i < sizeof(compositors) / sizeof(compositors[0]); i++)
		if (!only || !*only || strstr(only, compositors[i].name))
			run_compositor(&compositors[i], keyboard);

	kill(seatd, SIGTERM);
	waitpid(seatd, NULL, 0);
	vm_uinput_destroy(keyboard);
	CHECK_RC(epdrm_try_unload(), 0);
	printf("the compositors ran in %.0f s\n", epd_ms_since(start) / 1000);
	return epd_end();
}
