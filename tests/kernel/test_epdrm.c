// SPDX-License-Identifier: MIT
/*
 * epdrm, the panel as a DRM device: its one pipeline and mode, its formats
 * and EPD_* properties; each commit's damage clips become the updates of
 * the trace (no damage: the whole plane), with the waveform EPD_WAVEFORM
 * names and a flash for EPD_FULL; the flip event comes when the updates
 * are queued, not when the panel settles, so commits are not serialized
 * behind waveforms; invalid values are refused with EINVAL and change
 * nothing; the settle fence (EPD_SETTLE_FENCE_PTR) signals when the
 * panel has finished the commit's updates, in whatever order they finish;
 * more than 4 clips go as their bounding box; a flood of commits is
 * refused with EBUSY once the update queue is nearly full; the fbdev
 * emulation's writes reach the panel; unbind with the card open and a
 * buffer mapped, and rmmod refused while the card is open.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>

#include "epdrm_test.h"

#define W 320
#define H 240

static const char *const waveform_names[] = {"INIT", "DU", "GC16", "GC4", "A2", "GL16"};

/* The trace's entries after clearing it and committing c, once the panel is idle. */
static size_t
commit_and_trace(struct epdrm *e, const struct epdrm_commit *c, struct epd_trace **trace)
{
	epd_trace_clear(&e->panel);
	REQUIRE_RC(epdrm_commit(e, c), 0);
	REQUIRE_MSG(epdrm_wait_idle(e), "the panel did not go idle");
	return epd_trace_read(&e->panel, trace);
}

static void
check_rect(const struct epd_trace *t, uint32_t left, uint32_t top, uint32_t w, uint32_t h)
{
	CHECK_MSG(t->left == left && t->top == top && t->width == w && t->height == h,
		"update at %u,%u %ux%u, not %u,%u %ux%u", t->left, t->top, t->width, t->height,
		left, top, w, h);
}

static void
check_properties(struct epdrm *e)
{
	drmModePropertyPtr p = drmModeGetProperty(e->fd, e->props.waveform);
	REQUIRE(p);
	CHECK(p->flags & DRM_MODE_PROP_ENUM);
	CHECK_EQ(p->count_enums, 7);
	drmModeFreeProperty(p);
	CHECK_GE(epdrm_waveform_value(e, "auto"), 0);
	for (size_t i = 0; i < sizeof(waveform_names) / sizeof(waveform_names[0]); i++)
		CHECK_MSG(epdrm_waveform_value(e, waveform_names[i]) >= 0, "EPD_WAVEFORM has no %s",
			waveform_names[i]);

	p = drmModeGetProperty(e->fd, e->props.full);
	REQUIRE(p);
	CHECK(p->flags & DRM_MODE_PROP_RANGE);
	CHECK_EQ(p->count_values, 2);
	if (p->count_values == 2)
		CHECK(p->values[0] == 0 && p->values[1] == 1);
	drmModeFreeProperty(p);

	drmModePlanePtr plane = drmModeGetPlane(e->fd, e->plane);
	REQUIRE(plane);
	bool xrgb = false, r8 = false;
	for (uint32_t i = 0; i < plane->count_formats; i++) {
		xrgb |= plane->formats[i] == DRM_FORMAT_XRGB8888;
		r8 |= plane->formats[i] == DRM_FORMAT_R8;
	}
	CHECK_MSG(xrgb && r8, "the plane lacks XRGB8888 or R8");
	drmModeFreePlane(plane);
}

static void
flip_handler(int fd, unsigned int seq, unsigned int sec, unsigned int usec, void *data)
{
	(void)fd;
	(void)seq;
	(void)sec;
	(void)usec;
	*(uint64_t *)data = epd_now_ns();
}

/* Waits for the flip event of the commit whose user data is arrived. */
/* Whether a sync_file fd has signaled within timeout_ms; the time it was seen. */
static bool
fence_signaled(int fd, int timeout_ms, uint64_t *seen_ns)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	bool signaled = poll(&pfd, 1, timeout_ms) == 1;

	if (seen_ns)
		*seen_ns = epd_now_ns();
	return signaled;
}

static const struct epd_trace *
trace_with_waveform(const struct epd_trace *trace, size_t n, const char *waveform)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(trace[i].waveform, waveform))
			return &trace[i];
	return NULL;
}

static void
check_settle_fences(struct epdrm *e, struct epdrm_fb *gray)
{
	struct epd_trace *trace;
	size_t n;

	epd_phase("the settle fence signals when the panel has finished the commit's updates");
	int init_fd = -2, du_fd = -2;
	struct drm_mode_rect init_clip = {0, 100, 40, 140}, du_clip = {250, 10, 270, 30};
	epdrm_fb_fill(gray, 0, 100, 40, 40, 0x00);
	epdrm_fb_fill(gray, 250, 10, 20, 20, 0x00);
	epd_trace_clear(&e->panel);
	/* INIT: 2 s at time_scale 100; DU, beside it, 260 ms */
	REQUIRE_RC(epdrm_commit(e, &(struct epdrm_commit){.fb = gray,
					   .clips = &init_clip,
					   .n_clips = 1,
					   .waveform = epdrm_waveform_value(e, "INIT"),
					   .full = 0,
					   .settle_fd = &init_fd}),
		0);
	REQUIRE_MSG(init_fd >= 0, "no settle fence fd: %d", init_fd);
	REQUIRE_RC(epdrm_commit(e, &(struct epdrm_commit){.fb = gray,
					   .clips = &du_clip,
					   .n_clips = 1,
					   .waveform = epdrm_waveform_value(e, "DU"),
					   .settle_fd = &du_fd,
					   .full = -1}),
		0);
	REQUIRE_MSG(du_fd >= 0, "no settle fence fd: %d", du_fd);
	uint64_t du_seen, init_seen;
	CHECK_MSG(fence_signaled(du_fd, 5000, &du_seen), "DU's fence never signaled");
	CHECK_MSG(!fence_signaled(init_fd, 0, NULL), "INIT's fence signaled with DU's");
	CHECK_MSG(fence_signaled(init_fd, 5000, &init_seen), "INIT's fence never signaled");
	REQUIRE(epdrm_wait_idle(e));
	n = epd_trace_read(&e->panel, &trace);
	const struct epd_trace *init = trace_with_waveform(trace, n, "INIT");
	const struct epd_trace *du = trace_with_waveform(trace, n, "DU");
	CHECK_MSG(init && du, "the trace lacks INIT or DU");
	if (init && du) {
		CHECK_MSG(du_seen >= du->end_ns, "DU's fence signaled %.1f ms before its end",
			(double)(du->end_ns - du_seen) / 1e6);
		CHECK_MSG(init_seen >= init->end_ns, "INIT's fence signaled %.1f ms before its end",
			(double)(init->end_ns - init_seen) / 1e6);
	}
	free(trace);
	close(init_fd);
	close(du_fd);

	epd_phase("the fence pointer holds for one commit; a refused commit writes -1");
	int untouched = -2;
	struct drm_mode_rect small = {0, 0, 8, 8};
	CHECK_RC(epdrm_commit(e, &(struct epdrm_commit){.fb = gray,
					 .clips = &small,
					 .n_clips = 1,
					 .waveform = -1,
					 .full = -1}),
		0);
	CHECK_EQ(untouched, -2);
	int refused_fd = -2;
	CHECK_RC(epdrm_commit(e, &(struct epdrm_commit){.fb = gray,
					 .clips = &small,
					 .n_clips = 1,
					 .waveform = epdrm_waveform_value(e, "DU"),
					 .full = 1,
					 .settle_fd = &refused_fd}),
		-EINVAL);
	CHECK_LT(refused_fd, 0);
	REQUIRE(epdrm_wait_idle(e));

	epd_phase("more than 4 clips go as their bounding box");
	struct drm_mode_rect five[5] = {
		{0, 0, 4, 4}, {20, 0, 24, 4}, {40, 0, 44, 4}, {60, 0, 64, 4}, {0, 30, 4, 34}};
	/* pixels the panel has already would need no update */
	for (int i = 0; i < 5; i++)
		epdrm_fb_fill(gray, five[i].x1, five[i].y1, 4, 4, 0x30);
	n = commit_and_trace(e,
		&(struct epdrm_commit){
			.fb = gray, .clips = five, .n_clips = 5, .waveform = -1, .full = -1},
		&trace);
	CHECK_EQ(n, 1);
	if (n == 1)
		check_rect(&trace[0], 0, 0, 64, 34);
	free(trace);
}

static void
check_queue_bound(struct epdrm *e, struct epdrm_fb *gray)
{
	epd_phase("a flood of commits is refused with EBUSY, bounded, and then accepted again");
	int64_t init = epdrm_waveform_value(e, "INIT");
	unsigned int accepted = 0;
	int rc = 0;
	char *before = epd_stats_snapshot(&e->panel);
	for (unsigned int i = 0; i < 200 && !rc; i++) {
		/* 4x4 squares that overlap nothing: each its own update */
		struct drm_mode_rect square = {(int)(i % 40) * 8, (int)(i / 40) * 8 + 40,
			(int)(i % 40) * 8 + 4, (int)(i / 40) * 8 + 44};
		rc = epdrm_commit(e, &(struct epdrm_commit){.fb = gray,
					     .clips = &square,
					     .n_clips = 1,
					     .waveform = init,
					     .full = -1});
		if (!rc)
			accepted++;
	}
	char *after = epd_stats_snapshot(&e->panel);
	CHECK_RC(rc, -EBUSY);
	/*
	 * 16 in flight, 64 queued, less room for two commits of 4 updates;
	 * on a slow machine updates that completed meanwhile made room
	 */
	long long done = epd_snapshot_stat(after, "updates_completed") -
			 epd_snapshot_stat(before, "updates_completed");
	free(before);
	free(after);
	CHECK_MSG(accepted >= 60 && accepted <= 16 + 64 + done,
		"%u commits accepted before EBUSY, %lld updates completed meanwhile: not 16 + 64 "
		"- 8 and the completed ones",
		accepted, done);
	REQUIRE(epdrm_wait_idle(e));
	struct drm_mode_rect one = {0, 0, 4, 4};
	CHECK_RC(epdrm_commit(e, &(struct epdrm_commit){.fb = gray,
					 .clips = &one,
					 .n_clips = 1,
					 .waveform = -1,
					 .full = -1}),
		0);
	REQUIRE(epdrm_wait_idle(e));
}

/* The panel shows black at one point and white at another. */
static void
check_black_and_white(
	struct epdrm *e, uint32_t black_x, uint32_t black_y, uint32_t white_x, uint32_t white_y)
{
	uint8_t *panel = epd_alloc_image(&e->panel);

	epd_read_panel(&e->panel, panel);
	CHECK_LT(panel[black_y * W + black_x], 0x20);
	CHECK_GT(panel[white_y * W + white_x], 0xe0);
	free(panel);
}

/*
 * The last KMS master exits: DRM puts the fbdev emulation's framebuffer
 * back on the plane, but with no program using the emulation the panel
 * keeps the master's last picture, as e-paper does without power.
 */
static void
check_master_exit(struct epdrm *e, struct epdrm_fb *fb)
{
	struct epd_trace *trace;

	epd_phase("the KMS master exits: the panel keeps its last picture");
	epdrm_fb_fill(fb, 0, 0, W, H, 0xff);
	epdrm_fb_fill(fb, 100, 100, 20, 20, 0x00);
	REQUIRE_RC(epdrm_commit(e,
			   &(struct epdrm_commit){
				   .fb = fb, .waveform = epdrm_waveform_value(e, "DU"), .full = 0}),
		0);
	REQUIRE(epdrm_wait_idle(e));
	epd_trace_clear(&e->panel);
	epdrm_fb_destroy(e, fb);
	epdrm_close(e);
	/* DRM's restore comes soon after the close; a late one would show below */
	epd_sleep_ms(1000);
	REQUIRE(epdrm_wait_idle(e));
	size_t n = epd_trace_read(&e->panel, &trace);
	for (size_t i = 0; i < n; i++)
		epd_trace_print(&trace[i]);
	CHECK_EQ(n, 0);
	free(trace);
	check_black_and_white(e, 110, 110, 10, 10);
}

/* With no KMS client left, the fbdev emulation's writes reach the panel. */
static void
check_fbdev_emulation(struct epdrm *e)
{
	epd_phase("the fbdev emulation: writes to /dev/fbN reach the panel");
	int num = epdrm_find_fbdev();
	REQUIRE_MSG(num >= 0, "no /dev/fb* of epdrm's fbdev emulation");
	char node[32];
	snprintf(node, sizeof(node), "/dev/fb%d", num);
	int fd = open(node, O_RDWR | O_CLOEXEC);
	REQUIRE_MSG(fd >= 0, "open %s: %s", node, strerror(errno));
	struct fb_fix_screeninfo fix;
	struct fb_var_screeninfo var;
	REQUIRE_OK(ioctl(fd, FBIOGET_FSCREENINFO, &fix));
	REQUIRE_OK(ioctl(fd, FBIOGET_VSCREENINFO, &var));
	CHECK_EQ(var.xres, W);
	CHECK_EQ(var.yres, H);
	CHECK_EQ(var.bits_per_pixel, 32);
	uint8_t *map = mmap(NULL, fix.smem_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(map != MAP_FAILED);
	/* the console left it black or white: white all over first, then a black box */
	for (uint32_t y = 0; y < H; y++)
		for (uint32_t x = 0; x < W; x++)
			((uint32_t *)(map + (size_t)y * fix.line_length))[x] =
				x >= 50 && x < 70 && y >= 60 && y < 70 ? 0 : 0xffffff;
	epd_trace_clear(&e->panel);
	REQUIRE_OK(fsync(fd));
	epd_sleep_ms(300);
	REQUIRE(epdrm_wait_idle(e));
	struct epd_trace *trace;
	size_t n = epd_trace_read(&e->panel, &trace);
	CHECK_GT(n, 0);
	free(trace);
	check_black_and_white(e, 60, 65, 100, 65);
	munmap(map, fix.smem_len);
	close(fd);
}

static bool
wait_flip(struct epdrm *e, uint64_t *arrived)
{
	drmEventContext ctx = {.version = 2, .page_flip_handler = flip_handler};
	struct pollfd pfd = {.fd = e->fd, .events = POLLIN};

	*arrived = 0;
	while (!*arrived) {
		if (poll(&pfd, 1, 5000) <= 0)
			return false;
		drmHandleEvent(e->fd, &ctx);
	}
	return true;
}

/* The flip event and the next commit's update do not wait for the panel. */
static void
check_flip_event(struct epdrm *e, struct epdrm_fb *gray)
{
	struct epd_trace *trace;
	size_t n;

	epd_phase("the flip event comes with the updates queued, before the panel settles");
	/* INIT takes 2 s at time_scale 100, DU 260 ms: a margin for a loaded machine */
	uint64_t arrived = 0;
	struct drm_mode_rect flip_clip = {0, 0, 64, 64};
	epd_trace_clear(&e->panel);
	REQUIRE_RC(epdrm_commit(
			   e, &(struct epdrm_commit){.fb = gray,
				      .clips = &flip_clip,
				      .n_clips = 1,
				      .waveform = epdrm_waveform_value(e, "INIT"),
				      .full = 0,
				      .flags = DRM_MODE_PAGE_FLIP_EVENT | DRM_MODE_ATOMIC_NONBLOCK,
				      .user_data = &arrived}),
		0);
	CHECK_MSG(wait_flip(e, &arrived), "no flip event");
	epdrm_fb_fill(gray, 200, 100, 16, 16, 0x00);
	struct drm_mode_rect beside = {200, 100, 216, 116};
	CHECK_RC(epdrm_commit(e, &(struct epdrm_commit){.fb = gray,
					 .clips = &beside,
					 .n_clips = 1,
					 .waveform = epdrm_waveform_value(e, "DU"),
					 .full = 0}),
		0);
	REQUIRE(epdrm_wait_idle(e));
	n = epd_trace_read(&e->panel, &trace);
	CHECK_EQ(n, 2);
	if (n == 2) {
		const struct epd_trace *init =
			!strcmp(trace[0].waveform, "INIT") ? &trace[0] : &trace[1];
		const struct epd_trace *du = init == &trace[0] ? &trace[1] : &trace[0];
		CHECK_MSG(arrived < init->end_ns, "the flip event came %.1f ms after INIT ended",
			(double)(arrived - init->end_ns) / 1e6);
		CHECK_MSG(du->start_ns < init->end_ns,
			"the next commit's update waited for INIT to end");
		CHECK_EQ(du->collided, 0);
	}
	free(trace);
}

int
main(void)
{
	struct epdrm dev, *e = &dev;
	struct epdrm_fb xrgb, gray;
	struct epd_trace *trace = NULL;
	size_t n;

	epd_begin("epdrm", 240);
	epdrm_load("width=320 height=240 time_scale=10");
	epdrm_open(e);

	epd_phase("one connector, its one mode the panel's size; formats and properties");
	CHECK_EQ(e->mode.hdisplay, W);
	CHECK_EQ(e->mode.vdisplay, H);
	drmModeConnectorPtr conn = drmModeGetConnector(e->fd, e->connector);
	REQUIRE(conn);
	/* the default panel's 209x157 mm */
	CHECK_EQ(conn->mmWidth, 209);
	CHECK_EQ(conn->mmHeight, 157);
	drmModeFreeConnector(conn);
	check_properties(e);
	int64_t wf_auto = epdrm_waveform_value(e, "auto");
	int64_t wf_du = epdrm_waveform_value(e, "DU");
	int64_t wf_gc16 = epdrm_waveform_value(e, "GC16");

	epd_phase("the modeset's commit updates the whole plane, whatever its clips");
	epdrm_fb_create(e, &xrgb, DRM_FORMAT_XRGB8888);
	epdrm_fb_create(e, &gray, DRM_FORMAT_R8);
	epdrm_fb_fill(&xrgb, 10, 20, 30, 40, 0x00);
	struct drm_mode_rect clip = {10, 20, 40, 60};
	n = commit_and_trace(e,
		&(struct epdrm_commit){
			.fb = &xrgb, .clips = &clip, .n_clips = 1, .waveform = wf_gc16, .full = 1},
		&trace);
	CHECK_EQ(n, 1);
	if (n == 1) {
		check_rect(&trace[0], 0, 0, W, H);
		CHECK_EQ(trace[0].flash, 1);
	}
	free(trace);
	uint8_t *panel = epd_alloc_image(&e->panel);
	epd_read_panel(&e->panel, panel);
	CHECK_EQ(panel[25 * W + 15], 0x00);
	CHECK_EQ(panel[5 * W + 5], 0xff);

	epd_phase("an XRGB8888 commit's damage clip is the update, with EPD_WAVEFORM's waveform");
	epdrm_fb_fill(&xrgb, 10, 20, 30, 40, 0xff);
	n = commit_and_trace(e,
		&(struct epdrm_commit){
			.fb = &xrgb, .clips = &clip, .n_clips = 1, .waveform = wf_du, .full = 0},
		&trace);
	CHECK_EQ(n, 1);
	if (n == 1) {
		check_rect(&trace[0], 10, 20, 30, 40);
		CHECK_MSG(!strcmp(trace[0].waveform, "DU"), "waveform %s", trace[0].waveform);
		CHECK_EQ(trace[0].flash, 0);
	}
	free(trace);
	epd_read_panel(&e->panel, panel);
	/* DU leaves a ghost of the black it took away */
	CHECK_GT(panel[25 * W + 15], 0xe0);
	/* black outside the clip never reaches the panel */
	epdrm_fb_fill(&xrgb, 100, 100, 10, 10, 0x00);
	epdrm_fb_fill(&xrgb, 200, 200, 10, 10, 0x00);
	struct drm_mode_rect elsewhere = {200, 200, 210, 210};
	n = commit_and_trace(e,
		&(struct epdrm_commit){
			.fb = &xrgb, .clips = &elsewhere, .n_clips = 1, .waveform = -1, .full = -1},
		&trace);
	CHECK_EQ(n, 1);
	if (n == 1)
		CHECK_MSG(!strcmp(trace[0].waveform, "DU"), "EPD_WAVEFORM did not stay DU: %s",
			trace[0].waveform);
	free(trace);
	epd_read_panel(&e->panel, panel);
	CHECK_EQ(panel[105 * W + 105], 0xff);

	epd_phase("an R8 commit without damage clips updates the whole plane");
	epdrm_fb_fill(&gray, 0, 0, W, H, 0x80);
	n = commit_and_trace(
		e, &(struct epdrm_commit){.fb = &gray, .waveform = wf_gc16, .full = 0}, &trace);
	CHECK_EQ(n, 1);
	if (n == 1) {
		check_rect(&trace[0], 0, 0, W, H);
		CHECK_MSG(!strcmp(trace[0].waveform, "GC16"), "waveform %s", trace[0].waveform);
	}
	free(trace);
	epd_read_panel(&e->panel, panel);
	/* 0x80 in GC16's 16 levels, give or take the ghost of the white before */
	CHECK_LE(abs(panel[120 * W + 160] - epd_quant(0x80, 16)), 4);

	epd_phase("EPD_FULL: each clip a flashing full refresh, GC16 when the waveform is auto");
	struct drm_mode_rect two[2] = {{0, 0, 50, 50}, {100, 100, 150, 150}};
	n = commit_and_trace(e,
		&(struct epdrm_commit){
			.fb = &gray, .clips = two, .n_clips = 2, .waveform = wf_auto, .full = 1},
		&trace);
	CHECK_EQ(n, 2);
	for (size_t i = 0; i < n; i++) {
		CHECK_MSG(!strcmp(trace[i].waveform, "GC16"), "waveform %s", trace[i].waveform);
		CHECK_EQ(trace[i].flash, 1);
		CHECK_MSG(!strcmp(trace[i].mode, "full"), "mode %s", trace[i].mode);
	}
	free(trace);

	epd_phase("each EPD_WAVEFORM value drives its waveform");
	for (size_t i = 0; i < sizeof(waveform_names) / sizeof(waveform_names[0]); i++) {
		int64_t value = epdrm_waveform_value(e, waveform_names[i]);
		struct drm_mode_rect small = {8, 8, 24, 24};

		epdrm_fb_fill(&gray, 8, 8, 16, 16, (uint8_t)(i * 40));
		n = commit_and_trace(e,
			&(struct epdrm_commit){.fb = &gray,
				.clips = &small,
				.n_clips = 1,
				.waveform = value,
				.full = 0},
			&trace);
		CHECK_EQ(n, 1);
		if (n == 1)
			CHECK_MSG(!strcmp(trace[0].waveform, waveform_names[i]),
				"EPD_WAVEFORM %s drove %s", waveform_names[i], trace[0].waveform);
		free(trace);
	}

	epd_phase("invalid values are refused with EINVAL and change nothing");
	epd_trace_clear(&e->panel);
	CHECK_RC(epdrm_commit(e, &(struct epdrm_commit){.fb = &gray, .waveform = wf_du, .full = 1}),
		-EINVAL);
	CHECK_RC(
		epdrm_commit(e, &(struct epdrm_commit){.fb = &gray, .waveform = 12345, .full = -1}),
		-EINVAL);
	CHECK_RC(epdrm_commit(e, &(struct epdrm_commit){.fb = &gray, .waveform = -1, .full = 2}),
		-EINVAL);
	CHECK_RC(epdrm_commit(e,
			 &(struct epdrm_commit){
				 .fb = &gray, .waveform = -1, .full = -1, .crtc_x = 8}),
		-EINVAL);
	uint32_t odd_blob;
	static const uint8_t five_bytes[5];
	REQUIRE_OK(drmModeCreatePropertyBlob(e->fd, five_bytes, sizeof(five_bytes), &odd_blob));
	CHECK_RC(epdrm_commit(e,
			 &(struct epdrm_commit){
				 .fb = &gray, .raw_clips = odd_blob, .waveform = -1, .full = -1}),
		-EINVAL);
	drmModeDestroyPropertyBlob(e->fd, odd_blob);
	CHECK_RC(epdrm_commit(e, &(struct epdrm_commit){.fb = &gray,
					 .waveform = wf_du,
					 .full = 1,
					 .flags = DRM_MODE_ATOMIC_TEST_ONLY}),
		-EINVAL);
	epd_sleep_ms(100);
	CHECK_EQ(epd_trace_read(&e->panel, &trace), 0);
	free(trace);
	struct drm_mode_rect one = {30, 30, 40, 40};
	epdrm_fb_fill(&gray, 30, 30, 10, 10, 0x40);
	n = commit_and_trace(e,
		&(struct epdrm_commit){
			.fb = &gray, .clips = &one, .n_clips = 1, .waveform = -1, .full = -1},
		&trace);
	CHECK_EQ(n, 1);
	if (n == 1)
		CHECK_MSG(!strcmp(trace[0].waveform, "GL16"),
			"the refused commits changed EPD_WAVEFORM: %s", trace[0].waveform);
	free(trace);

	epd_phase("rmmod is refused while the card is open; unbind with a buffer mapped");
	CHECK_RC(epdrm_try_unload(), -EWOULDBLOCK);
	uint8_t *keep = xrgb.map;
	CHECK_RC(epd_write_file(EPDRM_UNBIND_PATH, EPDRM_DEV_NAME), 0);
	keep[0] = 0x12; /* the mapping stays valid memory */
	CHECK_RC(drmModeAddFB(e->fd, W, H, 24, 32, xrgb.pitch, xrgb.handle, &(uint32_t){0}),
		-ENODEV);
	munmap(xrgb.map, xrgb.size);
	munmap(gray.map, gray.size);
	epdrm_close(e);
	free(panel);
	CHECK_RC(epdrm_try_unload(), 0);

	/*
	 * At time_scale 100 INIT takes 2 s: the flood outruns the panel, and
	 * what must happen before an update ends has seconds to do so.
	 */
	epdrm_load("width=320 height=240 time_scale=100");
	epdrm_open(e);
	epdrm_fb_create(e, &gray, DRM_FORMAT_R8);
	REQUIRE_RC(epdrm_commit(e, &(struct epdrm_commit){.fb = &gray, .waveform = -1, .full = -1}),
		0);
	REQUIRE(epdrm_wait_idle(e));
	check_flip_event(e, &gray);
	check_settle_fences(e, &gray);
	check_queue_bound(e, &gray);
	check_master_exit(e, &gray);
	check_fbdev_emulation(e);

	CHECK_RC(epdrm_try_unload(), 0);
	return epd_end();
}
