// SPDX-License-Identifier: MIT
/*
 * The e-paper backend on a panned framebuffer. epdfb cannot pan (its
 * virtual size is its visible size and it has no pan operation), so a vfb
 * with a larger virtual size, panned to an x and y offset, stands in for a
 * driver that can: the backend must draw into the visible part, and leave
 * the rest of the memory alone.
 */
#include "epd_test.h"
#include "scene_harness.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-server-core.h>

#define UNTOUCHED 0x55

static struct epd dev;

int
main(void)
{
	struct scene_harness harness, *h = &harness;
	struct fb_var_screeninfo var;
	struct fb_fix_screeninfo fix;
	struct vl_epd_feedback feedback;
	char vfb[32], error[256];
	struct epd *d = &dev;

	epd_begin("backend_pan", 240);

	epd_phase("epdfb does not pan");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=10");
	REQUIRE_OK(ioctl(d->fd, FBIOGET_VSCREENINFO, &var));
	CHECK_EQ(var.yres_virtual, var.yres);
	CHECK_EQ(var.xres_virtual, var.xres);
	var.yoffset = 1;
	CHECK_ERR(ioctl(d->fd, FBIOPAN_DISPLAY, &var), EINVAL);
	epd_close(d);
	epd_try_unload();

	epd_phase("a vfb panned to 32,480 of 704x960");
	REQUIRE_MSG(scene_harness_vfb(vfb, sizeof(vfb), 8, 704, 960), "cannot set up vfb");
	int fd = open(vfb, O_RDWR | O_CLOEXEC);
	REQUIRE_MSG(fd >= 0, "open %s", vfb);
	REQUIRE_OK(ioctl(fd, FBIOGET_VSCREENINFO, &var));
	REQUIRE_OK(ioctl(fd, FBIOGET_FSCREENINFO, &fix));
	const uint32_t xoff = 32, yoff = var.yres, w = var.xres, hgt = var.yres;
	printf("vfb %s: %ux%u of %ux%u, line_length %u, %u bytes\n", vfb, w, hgt, var.xres_virtual,
		var.yres_virtual, fix.line_length, fix.smem_len);
	REQUIRE_MSG(yoff + hgt <= var.yres_virtual && xoff + w <= var.xres_virtual,
		"vfb's virtual size is too small to pan");
	uint8_t *mem = mmap(NULL, fix.smem_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE_MSG(mem != MAP_FAILED, "mmap %s", vfb);
	memset(mem, UNTOUCHED, fix.smem_len);
	var.xoffset = xoff;
	var.yoffset = yoff;
	REQUIRE_OK(ioctl(fd, FBIOPAN_DISPLAY, &var));
	REQUIRE_OK(ioctl(fd, FBIOGET_VSCREENINFO, &var));
	REQUIRE_EQ(var.xoffset, xoff);
	REQUIRE_EQ(var.yoffset, yoff);

	epd_phase("the backend draws into the visible part");
	REQUIRE_MSG(
		scene_harness_start(h, vfb, error, sizeof(error)), "backend on %s: %s", vfb, error);
	REQUIRE_EQ(h->output->width, (int)w);
	REQUIRE_EQ(h->output->height, (int)hgt);
	scene_harness_rect(h, 0, 0, (int)w, (int)hgt, 255);
	scene_harness_rect(h, 10, 20, 50, 40, 0);
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	size_t wrong_visible = 0, touched_outside = 0;
	for (uint32_t y = 0; y < var.yres_virtual; y++) {
		for (uint32_t x = 0; x < var.xres_virtual; x++) {
			uint8_t v = mem[(size_t)y * fix.line_length + x];
			if (y < yoff || y >= yoff + hgt || x < xoff || x >= xoff + w) {
				touched_outside += v != UNTOUCHED;
				continue;
			}
			uint32_t sx = x - xoff, sy = y - yoff;
			bool block = sx >= 10 && sx < 60 && sy >= 20 && sy < 60;
			uint8_t want = block ? 0 : 255;
			if (v != want && wrong_visible++ < 8)
				printf("    visible (%u,%u): %u, expected %u\n", sx, sy, v, want);
		}
	}
	CHECK_MSG(wrong_visible == 0, "%zu of the %u visible pixels do not show the scene",
		wrong_visible, w * hgt);
	CHECK_MSG(touched_outside == 0, "%zu bytes outside the visible part were written",
		touched_outside);
	scene_harness_finish(h);

	/* Rows past the end of the memory would wrap to its start: not one image. */
	epd_phase("a vfb that wraps its display is refused");
	var.xoffset = 0;
	var.yoffset = 100;
	var.vmode |= FB_VMODE_YWRAP;
	REQUIRE_OK(ioctl(fd, FBIOPAN_DISPLAY, &var));
	REQUIRE_OK(ioctl(fd, FBIOGET_VSCREENINFO, &var));
	REQUIRE_MSG(var.vmode & FB_VMODE_YWRAP, "vfb did not keep FB_VMODE_YWRAP");
	struct vl_epd_backend_options options = {.device = vfb};
	struct wl_display *display = wl_display_create();
	struct wlr_backend *backend = vl_epd_backend_create(
		wl_display_get_event_loop(display), &options, error, sizeof(error));
	printf("%s: %s\n", vfb, error);
	CHECK_MSG(!backend && strstr(error, "wraps its display"), "a wrapping vfb: \"%s\"",
		backend ? "accepted" : error);
	if (backend)
		wlr_backend_destroy(backend);
	wl_display_destroy(display);

	munmap(mem, fix.smem_len);
	close(fd);
	CHECK_EQ(system("rmmod vfb"), 0);
	return epd_end();
}
