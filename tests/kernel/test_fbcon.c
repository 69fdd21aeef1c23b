// SPDX-License-Identifier: MIT
/*
 * The framebuffer console on epdfb, as a distribution that boots with fbcon
 * gets it: a text console mapped to the device with FBIOPUT_CON2FBMAP shows
 * dark text on a light page (ink on paper), in 8 and 32 bpp, and its
 * blinking cursor keeps updating the panel without ever flashing it.
 *
 * The VM boots with fbcon=map:9, so the console takes the device only when
 * told to; the test gives it back (unbinding fbcon from the text consoles)
 * before it ends, also when it fails, so that the module can be unloaded.
 */
#include "epd_test.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define W          640
#define H          480
#define TEST_VT    2
#define FONT_ROWS  16
#define TEXT_LINES 3
/* Gray levels: at or above LIGHT is paper, below DARK is ink. */
#define LIGHT    0xc0
#define DARK     0x80
#define BLINK_MS 3000

static struct epd dev;

/* Writes 0 to the bind file of the text console driver that is fbcon. */
static void
unbind_fbcon(void)
{
	DIR *dir = opendir("/sys/class/vtconsole");
	struct dirent *e;
	char path[512];
	char *name;

	if (!dir)
		return;
	while ((e = readdir(dir))) {
		if (strncmp(e->d_name, "vtcon", 5))
			continue;
		snprintf(path, sizeof(path), "/sys/class/vtconsole/%s/name", e->d_name);
		name = epd_read_file(path, NULL);
		if (name && strstr(name, "frame buffer")) {
			snprintf(path, sizeof(path), "/sys/class/vtconsole/%s/bind", e->d_name);
			if (epd_write_file(path, "0\n"))
				printf("note: cannot unbind fbcon through %s\n", path);
		}
		free(name);
	}
	closedir(dir);
}

static void
activate_vt(int vt)
{
	int fd = open("/dev/tty0", O_RDWR | O_CLOEXEC | O_NOCTTY);

	REQUIRE_MSG(fd >= 0, "open /dev/tty0: %s", strerror(errno));
	REQUIRE_OK(ioctl(fd, VT_ACTIVATE, vt));
	REQUIRE_OK(ioctl(fd, VT_WAITACTIVE, vt));
	close(fd);
}

/*
 * A terminal in graphics mode gets no text from the console: a program
 * that ran before and died there (an image viewer, an X server) left it so.
 */
static void
require_text_mode(int vt)
{
	char path[32];
	int mode = -1;

	snprintf(path, sizeof(path), "/dev/tty%d", vt);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	REQUIRE_MSG(fd >= 0, "open %s: %s", path, strerror(errno));
	REQUIRE_OK(ioctl(fd, KDGETMODE, &mode));
	close(fd);
	REQUIRE_MSG(mode == KD_TEXT, "%s is in graphics mode: an earlier program left it so", path);
}

static void
write_tty(int vt, const char *text)
{
	char path[32];
	size_t len = strlen(text);
	int fd;

	snprintf(path, sizeof(path), "/dev/tty%d", vt);
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	REQUIRE_MSG(fd >= 0, "open %s: %s", path, strerror(errno));
	REQUIRE(write(fd, text, len) == (ssize_t)len);
	close(fd);
}

/* Pixels of rows [top, bottom) with a gray level in [lo, hi]. */
static size_t
count_levels(const uint8_t *panel, uint32_t top, uint32_t bottom, uint8_t lo, uint8_t hi)
{
	size_t n = 0;

	for (size_t i = (size_t)top * W; i < (size_t)bottom * W; i++)
		n += panel[i] >= lo && panel[i] <= hi;
	return n;
}

static void
console_on(struct epd *d, unsigned int bpp)
{
	struct fb_con2fbmap map = {.console = TEST_VT};
	uint32_t text_bottom = TEXT_LINES * FONT_ROWS;
	size_t text_dark, text_light, page_light, page_pixels;
	long long updates, flashes;
	struct epd_trace *t;
	char params[128];
	uint8_t *panel;
	size_t n;

	snprintf(params, sizeof(params), "width=%d height=%d bpp=%u time_scale=100", W, H, bpp);
	require_text_mode(TEST_VT);
	epd_open(d, params);
	activate_vt(TEST_VT);
	map.framebuffer = (uint32_t)d->fbnum;
	REQUIRE_OK(ioctl(d->fd, FBIOPUT_CON2FBMAP, &map));
	memset(&map, 0, sizeof(map));
	map.console = TEST_VT;
	CHECK_OK(ioctl(d->fd, FBIOGET_CON2FBMAP, &map));
	CHECK_EQ(map.framebuffer, d->fbnum);

	/* Clear the screen, three lines of text, the cursor on the fourth. */
	write_tty(TEST_VT, "\033[H\033[2J"
			   "epdfb console: THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG\r\n"
			   "the quick brown fox jumps over the lazy dog 0123456789\r\n"
			   "############################################################\r\n");
	epd_settle(d);

	panel = epd_alloc_image(d);
	epd_read_panel(d, panel);
	text_dark = count_levels(panel, 0, text_bottom, 0, DARK - 1);
	text_light = count_levels(panel, 0, text_bottom, LIGHT, 255);
	/* Below the cursor's line nothing was written: all of it is paper. */
	page_pixels = (size_t)W * (H - (text_bottom + 2 * FONT_ROWS));
	page_light = count_levels(panel, text_bottom + 2 * FONT_ROWS, H, LIGHT, 255);
	printf("%u bpp: text lines %zu dark and %zu light pixels; %zu of %zu page pixels light\n",
		bpp, text_dark, text_light, page_light, page_pixels);
	CHECK_MSG(page_light == page_pixels,
		"%u bpp: the console's background is not light: %zu of %zu pixels", bpp, page_light,
		page_pixels);
	CHECK_MSG(text_dark >= 1000, "%u bpp: the console's text is not dark: %zu dark pixels", bpp,
		text_dark);
	CHECK_MSG(text_light > text_dark, "%u bpp: the text lines are not mostly paper", bpp);
	free(panel);

	/* Nothing is written now: the updates come from the blinking cursor. */
	epd_stats_reset(d);
	epd_trace_clear(d);
	epd_sleep_ms(BLINK_MS);
	epd_settle(d);
	updates = epd_stat(d, "updates_completed");
	flashes = epd_stat(d, "flashes");
	n = epd_trace_read(d, &t);
	printf("%u bpp: %lld updates, %lld flashes in %d ms of a blinking cursor\n", bpp, updates,
		flashes, BLINK_MS);
	for (size_t i = 0; i < n && i < 4; i++)
		epd_trace_print(&t[i]);
	CHECK_MSG(updates >= 2, "%u bpp: the cursor did not blink (%lld updates)", bpp, updates);
	CHECK_EQ(flashes, 0);
	for (size_t i = 0; i < n; i++) {
		CHECK_MSG(!t[i].flash, "%u bpp: update %zu flashed (rows %u-%u, %s %s)", bpp, i,
			t[i].top, t[i].top + t[i].height - 1, t[i].waveform, t[i].mode);
		/* The cursor's line only, whole rows of it. */
		CHECK_GE(t[i].top, text_bottom - FONT_ROWS);
		CHECK_LE(t[i].top + t[i].height, text_bottom + 2 * FONT_ROWS);
	}
	free(t);

	unbind_fbcon();
	activate_vt(1);
	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
}

int
main(void)
{
	struct epd *d = &dev;

	epd_begin("fbcon", 240);
	REQUIRE_MSG(access("/sys/class/graphics/fbcon", F_OK) == 0,
		"the kernel has no framebuffer console (CONFIG_FRAMEBUFFER_CONSOLE)");
	atexit(unbind_fbcon);

	epd_phase("8 bpp: fbcon on the device");
	console_on(d, 8);
	epd_phase("32 bpp: fbcon on the device");
	console_on(d, 32);
	return epd_end();
}
