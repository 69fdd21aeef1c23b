// SPDX-License-Identifier: MIT
/*
 * The kernel's own commits on epdrm are never refused for a full update
 * queue: a KMS master floods the queue until its commits are refused with
 * EBUSY, then exits while a program has the fbdev emulation open. DRM puts
 * the emulation's framebuffer back on the plane, and the program draws more
 * at once, which the emulation's damage worker commits while the queue is
 * still full; once the queue drains, the panel shows what the program drew,
 * before and after. Then the damage worker fills the queue by itself, with
 * boxes drawn in bands of rows apart while the whole panel updates: past the
 * bound its commits wait outside the queue, and the last box reaches the
 * panel. No warning reaches the kernel log.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "epdrm_test.h"

#define W 320
#define H 240

/* the box the fbdev program draws, and the second one it draws later */
#define BOX_X  200
#define BOX_Y  150
#define BOX2_X 40
#define BOX2_Y 150
#define BOX_W  40

struct fbdev {
	int fd;
	uint8_t *map;
	size_t size;
	uint32_t line_length;
};

static void
fbdev_open(struct fbdev *f)
{
	struct fb_fix_screeninfo fix;
	struct fb_var_screeninfo var;
	char node[32];
	int num = epdrm_find_fbdev();

	REQUIRE_MSG(num >= 0, "no /dev/fb* of epdrm's fbdev emulation");
	snprintf(node, sizeof(node), "/dev/fb%d", num);
	f->fd = open(node, O_RDWR | O_CLOEXEC);
	REQUIRE_MSG(f->fd >= 0, "open %s: %s", node, strerror(errno));
	REQUIRE_OK(ioctl(f->fd, FBIOGET_FSCREENINFO, &fix));
	REQUIRE_OK(ioctl(f->fd, FBIOGET_VSCREENINFO, &var));
	REQUIRE_EQ(var.bits_per_pixel, 32);
	f->size = fix.smem_len;
	f->line_length = fix.line_length;
	f->map = mmap(NULL, f->size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
	REQUIRE(f->map != MAP_FAILED);
}

static void
fbdev_fill(struct fbdev *f, uint32_t left, uint32_t top, uint32_t w, uint32_t h, uint32_t xrgb)
{
	for (uint32_t y = top; y < top + h; y++)
		for (uint32_t x = left; x < left + w; x++)
			((uint32_t *)(f->map + (size_t)y * f->line_length))[x] = xrgb;
}

/* The panel's gray level at a pixel. */
static uint8_t
panel_pixel(struct epdrm *e, uint32_t x, uint32_t y)
{
	uint8_t *panel = epd_alloc_image(&e->panel);
	uint8_t v;

	epd_read_panel(&e->panel, panel);
	v = panel[(size_t)y * e->panel.width + x];
	free(panel);
	return v;
}

/* The panel's gray level at the middle of a box. */
static uint8_t
panel_at(struct epdrm *e, uint32_t x, uint32_t y)
{
	return panel_pixel(e, x + BOX_W / 2, y + BOX_W / 2);
}

/* Commits of 4x4 INIT squares that overlap nothing, until one is refused. */
static void
flood(struct epdrm *e, struct epdrm_fb *gray)
{
	int64_t init = epdrm_waveform_value(e, "INIT");
	unsigned int accepted = 0;
	int rc = 0;

	for (unsigned int i = 0; i < 200 && !rc; i++) {
		struct drm_mode_rect square = {(int)(i % 40) * 8, (int)(i / 40) * 8,
			(int)(i % 40) * 8 + 4, (int)(i / 40) * 8 + 4};
		rc = epdrm_commit(e, &(struct epdrm_commit){.fb = gray,
					     .clips = &square,
					     .n_clips = 1,
					     .waveform = init,
					     .full = 0});
		if (!rc)
			accepted++;
	}
	printf("%u commits accepted before %s\n", accepted, epd_errname(-rc));
	REQUIRE_RC(rc, -EBUSY);
}

/*
 * The emulation's damage worker fills the queue by itself: while a long
 * update of the whole panel is in flight, a program draws one box after the
 * other, each in rows of pages of its own, so that each is a commit of a
 * band of rows that touches no other and is queued behind that update. Past
 * the queue's bound the worker's commits are held back and merged, not
 * refused (the worker would warn, and try again).
 */
static void
damage_flood(void)
{
	/*
	 * Each band's box collides with the whole panel's update: 15 bands
	 * start (holding a LUT each, their box waiting, resubmitted) before
	 * 64 are queued
	 */
	const unsigned int height = 1400, boxes = 84;
	struct epdrm e;
	struct fbdev f;
	struct fb_var_screeninfo var;
	unsigned int committed = 0;
	uint64_t t0;

	epd_phase("the emulation's damage fills the queue while the whole panel updates");
	/* DU of the whole panel takes 3.9 s, its GC16 6.75 s, a DU band 3.9 s */
	epdrm_load("width=320 height=1400 time_scale=1500");
	fbdev_open(&f);
	REQUIRE_OK(ioctl(f.fd, FBIOGET_VSCREENINFO, &var));
	var.activate = FB_ACTIVATE_NOW | FB_ACTIVATE_FORCE;
	REQUIRE_OK(ioctl(f.fd, FBIOPUT_VSCREENINFO, &var));
	epdrm_open(&e);
	REQUIRE(epdrm_wait_idle(&e));
	/* gray below the boxes: the whole panel is GC16, each box's band DU */
	long long submitted = epd_stat(&e.panel, "updates_submitted");
	fbdev_fill(&f, 0, 0, W, height, 0xffffff);
	fbdev_fill(&f, 0, height - 20, W, 20, 0x808080);
	REQUIRE_OK(fsync(f.fd));
	for (int t = 0; t < 1000 && epd_stat(&e.panel, "updates_submitted") == submitted; t++)
		epd_sleep_ms(5);
	/*
	 * A slow machine (a debug kernel) may commit the two fills apart, the
	 * whole panel's update then not alone: the boxes still go through, but
	 * the queue's bound is not reached behind it, and not checked.
	 */
	bool alone = epd_stat(&e.panel, "in_flight") == 1 && epd_stat(&e.panel, "queued") == 0;
	if (!alone)
		printf("the fills were committed apart: the queue's bound is not checked\n");
	t0 = epd_now_ns();
	for (unsigned int i = 0; i < boxes; i++) {
		long long before = epd_stat(&e.panel, "updates_submitted");

		/* 16 rows apart: a 4 KiB page holds 3.2 rows */
		fbdev_fill(&f, 100, 16 * i + 8, 4, 1, 0);
		REQUIRE_OK(fsync(f.fd));
		/* each box its own commit: wait for the worker's */
		for (int t = 0; t < 100 && epd_stat(&e.panel, "updates_submitted") == before; t++)
			epd_sleep_ms(5);
		if (epd_stat(&e.panel, "updates_submitted") > before)
			committed++;
	}
	printf("%u of %u boxes committed one by one in %.1f ms; %lld updates queued\n", committed,
		boxes, epd_ms_since(t0), epd_stat(&e.panel, "queued"));
	CHECK_EQ(committed, boxes);
	if (alone) {
		/* the queue's bound reached, the last boxes held back together */
		CHECK_EQ(epd_stat(&e.panel, "queued"), 64);
		CHECK_EQ(epd_stat(&e.panel, "held"), 1);
	}
	REQUIRE(epdrm_wait_idle(&e));
	/* black, but for the ghost of the black and white whole panels before */
	CHECK_MSG(panel_pixel(&e, 101, 16 * (boxes - 1) + 8) < 0x60,
		"the last box drawn is not on the panel: %#x",
		panel_pixel(&e, 101, 16 * (boxes - 1) + 8));
	epdrm_close(&e);
	munmap(f.map, f.size);
	close(f.fd);
	CHECK_RC(epdrm_try_unload(), 0);
}

int
main(void)
{
	struct epdrm e;
	struct epdrm_fb gray;
	struct fbdev f;
	struct epd_trace *trace;
	size_t n;

	epd_begin("epdrm_restore", 300);
	/* INIT takes 2 s: the flood outruns the panel */
	epdrm_load("width=320 height=240 time_scale=100");

	epd_phase("a program draws a black box through the fbdev emulation, sets its mode");
	fbdev_open(&f);
	fbdev_fill(&f, 0, 0, W, H, 0xffffff);
	fbdev_fill(&f, BOX_X, BOX_Y, BOX_W, BOX_W, 0);
	/* as fbi(1) does: the emulation's framebuffer goes on the plane */
	struct fb_var_screeninfo var;
	REQUIRE_OK(ioctl(f.fd, FBIOGET_VSCREENINFO, &var));
	var.activate = FB_ACTIVATE_NOW | FB_ACTIVATE_FORCE;
	REQUIRE_OK(ioctl(f.fd, FBIOPUT_VSCREENINFO, &var));
	epdrm_open(&e);
	REQUIRE(epdrm_wait_idle(&e));
	CHECK_LT(panel_at(&e, BOX_X, BOX_Y), 0x20);

	epd_phase("a KMS master shows white, then floods the update queue");
	epdrm_fb_create(&e, &gray, DRM_FORMAT_R8);
	epdrm_fb_fill(&gray, 0, 0, W, H, 0xff);
	REQUIRE_RC(epdrm_commit(&e, &(struct epdrm_commit){.fb = &gray,
					    .waveform = epdrm_waveform_value(&e, "GC16"),
					    .full = 1}),
		0);
	REQUIRE(epdrm_wait_idle(&e));
	CHECK_GT(panel_at(&e, BOX_X, BOX_Y), 0xe0);
	flood(&e, &gray);

	epd_phase("the master exits with the queue full: the emulation's picture comes back");
	epd_trace_clear(&e.panel);
	epdrm_fb_destroy(&e, &gray);
	epdrm_close(&e);
	/*
	 * What the program draws while the queue is still full comes as the
	 * damage worker's commit: it merges into the restore's update.
	 */
	fbdev_fill(&f, BOX2_X, BOX2_Y, BOX_W, BOX_W, 0);
	REQUIRE_OK(fsync(f.fd));
	REQUIRE(epdrm_wait_idle(&e));
	for (int i = 0; i < 100 && panel_at(&e, BOX2_X, BOX2_Y) > 0x20; i++) {
		epd_sleep_ms(50);
		REQUIRE(epdrm_wait_idle(&e));
	}
	/*
	 * The box shows before the restore's update completes: the pixels the
	 * flood's updates still drove wait for them, resubmitted.
	 */
	REQUIRE(epdrm_wait_idle(&e));
	n = epd_trace_read(&e.panel, &trace);
	for (size_t i = 0; i < n; i++)
		if (trace[i].width == W || i + 1 == n)
			epd_trace_print(&trace[i]);
	free(trace);
	/* the restore drives what differs from the master's picture: the boxes */
	CHECK_MSG(n > 0, "no update after the master exited");
	CHECK_MSG(panel_at(&e, BOX_X, BOX_Y) < 0x20,
		"the panel shows %#x where the fbdev program drew black: the emulation's "
		"framebuffer never reached it",
		panel_at(&e, BOX_X, BOX_Y));
	CHECK_MSG(panel_at(&e, BOX2_X, BOX2_Y) < 0x20,
		"the panel shows %#x where the fbdev program drew after the master exited",
		panel_at(&e, BOX2_X, BOX2_Y));

	munmap(f.map, f.size);
	close(f.fd);
	CHECK_RC(epdrm_try_unload(), 0);

	damage_flood();
	return epd_end();
}
