// SPDX-License-Identifier: MIT
/*
 * epdrm for a KMS master that knows nothing of e-paper, as sway, weston and
 * cage are: the mode has a display's refresh rate and vblank ticks at it; a
 * commit whose pixels are already on the panel costs it nothing, however
 * much it says is damaged (weston re-commits its framebuffer without clips),
 * while EPD_FULL still flashes; the EPD_* properties a master leaves behind
 * are back at their defaults for the next; the ghosts such a master leaves
 * are flashed away once the panel has been idle for cleanup_delay_ms, deep
 * ones and, once there is enough of it, a faint one, never while updates
 * keep coming, and not for a master that sets EPD_FULL or
 * with the parameter at 0; and masters that come and go without committing
 * (modetest -c, then modetest -p) leave the panel alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xf86drm.h>

#include "epdrm_test.h"

#define W             320
#define H             240
#define CLEANUP_PARAM "/sys/module/epdrm/parameters/cleanup_delay_ms"
#define CLEANUP_MS    1000

static void
set_cleanup_delay(unsigned int ms)
{
	char text[16];

	snprintf(text, sizeof(text), "%u", ms);
	CHECK_MSG(epd_write_file(CLEANUP_PARAM, text) == 0, "cannot set %s", CLEANUP_PARAM);
}

static size_t
trace_since_clear(struct epdrm *e, struct epd_trace **trace)
{
	REQUIRE_MSG(epdrm_wait_idle(e), "the panel did not go idle");
	size_t n = epd_trace_read(&e->panel, trace);
	for (size_t i = 0; i < n; i++)
		epd_trace_print(&(*trace)[i]);
	return n;
}

static size_t
flashes_in(const struct epd_trace *trace, size_t n)
{
	size_t flashes = 0;

	for (size_t i = 0; i < n; i++)
		flashes += trace[i].flash != 0;
	return flashes;
}

static void
check_vblank(struct epdrm *e)
{
	epd_phase("the mode refreshes at 60 Hz, and vblank ticks at that rate");

	CHECK_EQ(e->mode.vrefresh, 60);
	drmVBlank vbl = {.request = {.type = DRM_VBLANK_RELATIVE, .sequence = 1}};
	CHECK_MSG(drmWaitVBlank(e->fd, &vbl) == 0, "drmWaitVBlank: %s", strerror(errno));
	unsigned int first = vbl.reply.sequence;
	uint64_t t0 = epd_now_ns();
	vbl = (drmVBlank){.request = {.type = DRM_VBLANK_RELATIVE, .sequence = 30}};
	CHECK_MSG(drmWaitVBlank(e->fd, &vbl) == 0, "drmWaitVBlank: %s", strerror(errno));
	double ms = epd_ms_since(t0);
	printf("30 vblanks in %.0f ms, sequence %u to %u\n", ms, first, vbl.reply.sequence);
	CHECK_GE(vbl.reply.sequence - first, 30);
	/* 30 frames of 16.7 ms: no earlier than 500 ms, on any machine */
	CHECK_GE(ms, 450);
}

static void
check_unchanged_commits(struct epdrm *e, struct epdrm_fb *fb)
{
	struct epd_trace *trace;
	size_t n;

	int64_t wf_auto = epdrm_waveform_value(e, "auto");

	epd_phase("a commit of pixels the panel has costs it nothing; EPD_FULL still flashes");
	epdrm_fb_fill(fb, 0, 0, W, H, 0xff);
	epdrm_fb_fill(fb, 40, 30, 20, 20, 0x00);
	epd_trace_clear(&e->panel);
	struct drm_mode_rect box = {40, 30, 60, 50};
	/* the white screen's EPD_FULL undone */
	REQUIRE_RC(epdrm_commit(e, &(struct epdrm_commit){.fb = fb,
					   .clips = &box,
					   .n_clips = 1,
					   .waveform = wf_auto,
					   .full = 0}),
		0);
	n = trace_since_clear(e, &trace);
	CHECK_EQ(n, 1);
	free(trace);

	/* weston's re-commit: the same framebuffer, no clips, the whole plane damaged */
	epd_trace_clear(&e->panel);
	REQUIRE_RC(
		epdrm_commit(e, &(struct epdrm_commit){.fb = fb, .waveform = -1, .full = -1}), 0);
	REQUIRE_RC(
		epdrm_commit(e,
			&(struct epdrm_commit){
				.fb = fb, .clips = &box, .n_clips = 1, .waveform = -1, .full = -1}),
		0);
	n = trace_since_clear(e, &trace);
	CHECK_MSG(n == 0, "%zu updates for commits that changed no pixel", n);
	free(trace);

	/* one pixel changed under a clip of the whole plane: an update of that pixel */
	epdrm_fb_fill(fb, 200, 100, 1, 1, 0x00);
	struct drm_mode_rect all = {0, 0, W, H};
	epd_trace_clear(&e->panel);
	REQUIRE_RC(
		epdrm_commit(e,
			&(struct epdrm_commit){
				.fb = fb, .clips = &all, .n_clips = 1, .waveform = -1, .full = -1}),
		0);
	n = trace_since_clear(e, &trace);
	CHECK_EQ(n, 1);
	if (n == 1)
		CHECK_MSG(trace[0].left == 200 && trace[0].top == 100 && trace[0].width == 1 &&
				  trace[0].height == 1,
			"the update is %ux%u at %u,%u, not the one pixel changed", trace[0].width,
			trace[0].height, trace[0].left, trace[0].top);
	free(trace);

	/* a flash of the same pixels is asked for: it happens, over the whole clip */
	epd_trace_clear(&e->panel);
	REQUIRE_RC(
		epdrm_commit(e,
			&(struct epdrm_commit){
				.fb = fb, .clips = &box, .n_clips = 1, .waveform = -1, .full = 1}),
		0);
	n = trace_since_clear(e, &trace);
	CHECK_EQ(n, 1);
	if (n == 1) {
		CHECK(trace[0].flash);
		CHECK(trace[0].width == 20 && trace[0].height == 20);
	}
	free(trace);
}

/* Reopens the card: the test becomes a new DRM master. */
static void
new_master(struct epdrm *e, struct epdrm_fb *fb)
{
	epdrm_fb_destroy(e, fb);
	epdrm_close(e);
	epdrm_open(e);
	epdrm_fb_create(e, fb, DRM_FORMAT_XRGB8888);
}

static void
check_properties_reset(struct epdrm *e, struct epdrm_fb *fb)
{
	struct epd_trace *trace;

	epd_phase("the EPD_* properties a master leaves are the defaults for the next");
	int64_t init = epdrm_waveform_value(e, "INIT");
	epdrm_fb_fill(fb, 0, 0, W, H, 0xff);
	REQUIRE_RC(
		epdrm_commit(e, &(struct epdrm_commit){.fb = fb, .waveform = init, .full = 1}), 0);
	REQUIRE(epdrm_wait_idle(e));
	CHECK_EQ(epdrm_plane_property(e, e->props.waveform), (uint64_t)init);
	CHECK_EQ(epdrm_plane_property(e, e->props.full), 1);

	new_master(e, fb);
	CHECK_EQ(epdrm_plane_property(e, e->props.waveform),
		(uint64_t)epdrm_waveform_value(e, "auto"));
	CHECK_EQ(epdrm_plane_property(e, e->props.full), 0);
	/* gray: the driver's choice is GC16, and no flash, not INIT's */
	epdrm_fb_fill(fb, 0, 0, W, H, 0xff);
	epdrm_fb_fill(fb, 100, 100, 30, 30, 0x80);
	epd_trace_clear(&e->panel);
	REQUIRE_RC(
		epdrm_commit(e, &(struct epdrm_commit){.fb = fb, .waveform = -1, .full = -1}), 0);
	size_t n = trace_since_clear(e, &trace);
	CHECK_EQ(n, 1);
	if (n == 1) {
		CHECK_MSG(!strcmp(trace[0].waveform, "GC16"), "waveform %s, not GC16",
			trace[0].waveform);
		CHECK_EQ(trace[0].flash, 0);
	}
	free(trace);
}

/*
 * Types into a text line: a black "glyph" box drawn and erased in DU in
 * turn, a commit every 250 ms for about 3 s. Returns the trace meanwhile.
 */
static size_t
type_for_a_while(struct epdrm *e, struct epdrm_fb *fb, struct epd_trace **trace, int full)
{
	int64_t du = epdrm_waveform_value(e, "DU");

	epd_trace_clear(&e->panel);
	for (unsigned int i = 0; i < 12; i++) {
		uint32_t x = 20 + (i % 6) * 12;
		epdrm_fb_fill(fb, x, 60, 10, 16, i < 6 ? 0x00 : 0xff);
		struct drm_mode_rect cell = {x, 60, x + 10, 76};
		REQUIRE_RC(epdrm_commit(e, &(struct epdrm_commit){.fb = fb,
						   .clips = &cell,
						   .n_clips = 1,
						   .waveform = du,
						   .full = full}),
			0);
		epd_sleep_ms(250);
	}
	return trace_since_clear(e, trace);
}

static void
check_cleanup(struct epdrm *e, struct epdrm_fb *fb)
{
	struct epd_trace *trace;
	size_t n;

	epd_phase(
		"a master that never sets EPD_FULL: its ghosts flash away once the panel is idle");
	set_cleanup_delay(CLEANUP_MS);
	new_master(e, fb);
	epdrm_fb_fill(fb, 0, 0, W, H, 0xff);
	n = type_for_a_while(e, fb, &trace, -1);
	CHECK_EQ(n, 12);
	CHECK_MSG(flashes_in(trace, n) == 0, "a flash while updates kept coming");
	free(trace);
	CHECK_GE(epd_stat_f(&e->panel, "ghost_mean"), 0.1);

	epd_trace_clear(&e->panel);
	epd_sleep_ms(CLEANUP_MS + 1500);
	n = trace_since_clear(e, &trace);
	CHECK_GE(n, 1);
	CHECK_EQ(flashes_in(trace, n), n);
	for (size_t i = 0; i < n; i++)
		CHECK_MSG(!strcmp(trace[i].waveform, "GC16") && trace[i].top <= 60 &&
				  trace[i].top + trace[i].height >= 76 && trace[i].left <= 20 &&
				  trace[i].left + trace[i].width >= 90 && trace[i].width < W,
			"cleanup update %ux%u at %u,%u %s does not cover the typed line alone",
			trace[i].width, trace[i].height, trace[i].left, trace[i].top,
			trace[i].waveform);
	free(trace);
	double ghost = epd_stat_f(&e->panel, "ghost_mean");
	printf("ghost after the cleanup: %.3f\n", ghost);
	CHECK_MSG(ghost <= 0.02, "ghost %.3f after the cleanup", ghost);

	epd_phase("once clean, an idle panel gets nothing more");
	epd_trace_clear(&e->panel);
	epd_sleep_ms(CLEANUP_MS + 1500);
	n = trace_since_clear(e, &trace);
	CHECK_EQ(n, 0);
	free(trace);

	epd_phase("a master that sets EPD_FULL cleans up itself: no cleanup");
	new_master(e, fb);
	epdrm_fb_fill(fb, 0, 0, W, H, 0xff);
	n = type_for_a_while(e, fb, &trace, 0);
	free(trace);
	epd_trace_clear(&e->panel);
	epd_sleep_ms(CLEANUP_MS + 1500);
	n = trace_since_clear(e, &trace);
	CHECK_EQ(n, 0);
	free(trace);
	CHECK_GE(epd_stat_f(&e->panel, "ghost_mean"), 0.1);

	epd_phase("cleanup_delay_ms=0: no cleanup");
	set_cleanup_delay(0);
	new_master(e, fb);
	epdrm_fb_fill(fb, 0, 0, W, H, 0xff);
	n = type_for_a_while(e, fb, &trace, -1);
	free(trace);
	epd_trace_clear(&e->panel);
	epd_sleep_ms(CLEANUP_MS + 1500);
	n = trace_since_clear(e, &trace);
	CHECK_EQ(n, 0);
	free(trace);
}

/* A page drawn over another in GC16 leaves a faint ghost everywhere. */
static void
check_faint_ghost_cleanup(struct epdrm *e, struct epdrm_fb *fb)
{
	struct epd_trace *trace;
	int64_t gc16 = epdrm_waveform_value(e, "GC16");

	epd_phase("a faint ghost over the whole page flashes away too once the panel is idle");
	set_cleanup_delay(CLEANUP_MS);
	new_master(e, fb);
	epdrm_fb_fill(fb, 0, 0, W, H, 0x00);
	REQUIRE_RC(
		epdrm_commit(e, &(struct epdrm_commit){.fb = fb, .waveform = gc16, .full = -1}), 0);
	epdrm_fb_fill(fb, 0, 0, W, H, 0xff);
	REQUIRE_RC(
		epdrm_commit(e, &(struct epdrm_commit){.fb = fb, .waveform = gc16, .full = -1}), 0);
	REQUIRE(epdrm_wait_idle(e));
	double before = epd_stat_f(&e->panel, "ghost_mean");
	printf("ghost of the page: %.3f\n", before);
	CHECK_GE(before, 1.0);
	epd_trace_clear(&e->panel);
	epd_sleep_ms(CLEANUP_MS + 1500);
	size_t n = trace_since_clear(e, &trace);
	CHECK_GE(n, 1);
	CHECK_EQ(flashes_in(trace, n), n);
	free(trace);
	double after = epd_stat_f(&e->panel, "ghost_mean");
	CHECK_MSG(after <= 0.02, "ghost %.3f after the cleanup", after);
	set_cleanup_delay(0);
}

static void
check_query_only_masters(struct epdrm *e, struct epdrm_fb *fb)
{
	struct epd_trace *trace;
	uint8_t *before = malloc((size_t)W * H), *after = malloc((size_t)W * H);

	REQUIRE(before && after);
	epd_phase("masters that commit nothing, one after another, leave the panel alone");
	epdrm_fb_fill(fb, 0, 0, W, H, 0xff);
	epdrm_fb_fill(fb, 150, 150, 40, 40, 0x00);
	REQUIRE_RC(epdrm_commit(e, &(struct epdrm_commit){.fb = fb,
					   .waveform = epdrm_waveform_value(e, "auto"),
					   .full = 1}),
		0);
	REQUIRE(epdrm_wait_idle(e));
	epd_read_panel(&e->panel, before);
	epd_trace_clear(&e->panel);
	epdrm_fb_destroy(e, fb);
	epdrm_close(e);
	for (int i = 0; i < 2; i++) {
		/* DRM's restore follows each close */
		epd_sleep_ms(1000);
		epdrm_open(e);
		epdrm_close(e);
	}
	epd_sleep_ms(1000);
	size_t n = trace_since_clear(e, &trace);
	CHECK_MSG(n == 0, "%zu updates after masters that committed nothing", n);
	free(trace);
	epd_read_panel(&e->panel, after);
	CHECK_MSG(!memcmp(before, after, (size_t)W * H), "the panel changed");
	free(before);
	free(after);
}

int
main(void)
{
	struct epdrm dev, *e = &dev;
	struct epdrm_fb fb;

	epd_begin("epdrm_any_master", 240);
	epdrm_load("width=320 height=240 time_scale=100");
	set_cleanup_delay(0);
	epdrm_open(e);
	epdrm_fb_create(e, &fb, DRM_FORMAT_XRGB8888);
	epdrm_clear_white(e);

	check_unchanged_commits(e, &fb);
	/* the CRTC is on while the test's framebuffer is on the plane */
	check_vblank(e);
	check_properties_reset(e, &fb);
	check_cleanup(e, &fb);
	check_faint_ghost_cleanup(e, &fb);
	check_query_only_masters(e, &fb);

	REQUIRE_RC(epdrm_try_unload(), 0);
	return epd_end();
}
