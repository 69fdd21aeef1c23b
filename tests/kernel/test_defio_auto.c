// SPDX-License-Identifier: MIT
/*
 * Deferred IO in AUTOMATIC mode: writes through the mapping become full-width
 * row bands (the rows of the dirty pages, contiguous ones merged), submitted
 * as WAVEFORM_MODE_AUTO FULL updates with marker 0, which resolve to DU for
 * pure black/white bands and to GC16 (flashing) otherwise. Checked for fsync
 * and for the defio_delay_ms timer, in 8 and 32 bpp; REGION mode submits
 * nothing.
 */
#include "epd_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define W         400
#define H         300
#define JIFFY_MS  10
#define MAX_PAGES 1024
#define MAX_BANDS 16
/*
 * Long enough that the timer never runs deferred IO while a test still
 * writes the framebuffer before its fsync, which takes a while in 32 bpp on
 * an emulated machine: the fsync phases expect one deferred IO run.
 */
#define DELAY_MS 2000

struct rect {
	uint32_t left, top, width, height;
};

struct band {
	uint32_t top, bottom; /* inclusive */
	bool gray;            /* some pixel is neither 0 nor 255: GC16 */
};

static struct epd dev;
static long page_size;
static bool dirty[MAX_PAGES];

/* Loads the module in AUTOMATIC mode with defio_delay_ms DELAY_MS. */
static void
load(struct epd *d, unsigned int bpp)
{
	char params[128];

	snprintf(params, sizeof(params),
		"width=%u height=%u bpp=%u time_scale=10 defio_delay_ms=%u auto_update=1", W, H,
		bpp, DELAY_MS);
	epd_open(d, params);
}

static void
reset_dirty(void)
{
	memset(dirty, 0, sizeof(dirty));
}

/* Records the pages a rect of the framebuffer occupies. */
static void
mark_rect(const struct epd *d, struct rect r)
{
	uint32_t bpp = d->bpp / 8;

	for (uint32_t y = r.top; y < r.top + r.height; y++) {
		size_t first = (size_t)y * d->line_length + (size_t)r.left * bpp;
		size_t last = first + (size_t)r.width * bpp - 1;

		for (size_t p = first / page_size; p <= last / page_size; p++) {
			REQUIRE(p < MAX_PAGES);
			dirty[p] = true;
		}
	}
}

static unsigned int
count_dirty(void)
{
	unsigned int n = 0;

	for (size_t p = 0; p < MAX_PAGES; p++)
		n += dirty[p];
	return n;
}

/* The bands the dirty pages should become. */
static unsigned int
expected_bands(const struct epd *d, struct band *bands)
{
	unsigned int n = 0;

	for (size_t p = 0; p < MAX_PAGES; p++) {
		if (!dirty[p])
			continue;
		size_t q = p;

		while (q + 1 < MAX_PAGES && dirty[q + 1])
			q++;
		uint32_t top = (uint32_t)(p * page_size / d->line_length);
		uint32_t bottom = (uint32_t)(((q + 1) * page_size - 1) / d->line_length);

		if (bottom > d->height - 1)
			bottom = d->height - 1;
		if (top <= bottom) {
			if (n && bands[n - 1].bottom + 1 >= top) {
				bands[n - 1].bottom = bottom;
			} else {
				REQUIRE(n < MAX_BANDS);
				bands[n].top = top;
				bands[n].bottom = bottom;
				n++;
			}
		}
		p = q;
	}
	for (unsigned int i = 0; i < n; i++) {
		bands[i].gray = false;
		for (uint32_t y = bands[i].top; y <= bands[i].bottom; y++) {
			for (uint32_t x = 0; x < d->width; x++) {
				uint8_t v = epd_fb_gray(d, x, y);

				if (v != 0 && v != 255)
					bands[i].gray = true;
			}
		}
	}
	return n;
}

static int
cmp_top(const void *a, const void *b)
{
	const struct epd_trace *x = a, *y = b;

	return x->top < y->top ? -1 : x->top > y->top;
}

/*
 * After a defio run: checks the trace and the stats against the expected
 * bands and the panel against the framebuffer, then updates the model.
 */
static void
check_round(struct epd *d, const char *what)
{
	struct band bands[MAX_BANDS];
	unsigned int nb = expected_bands(d, bands), n_gray = 0;
	struct epd_trace *t;
	size_t nt = epd_trace_read(d, &t);
	uint8_t *panel = epd_alloc_image(d);
	uint8_t *before = epd_alloc_image(d);

	printf("%s: %u dirty pages, %u expected band(s):", what, count_dirty(), nb);
	for (unsigned int i = 0; i < nb; i++)
		printf(" rows %u-%u %s", bands[i].top, bands[i].bottom,
			bands[i].gray ? "GC16" : "DU");
	printf("\n");
	for (size_t i = 0; i < nt; i++)
		epd_trace_print(&t[i]);

	CHECK_EQ(epd_stat(d, "defio_runs"), 1);
	CHECK_EQ(epd_stat(d, "defio_pages"), count_dirty());
	if (CHECK_EQ(nt, nb)) {
		qsort(t, nt, sizeof(*t), cmp_top);
		for (unsigned int i = 0; i < nb; i++) {
			const char *wf = bands[i].gray ? "GC16" : "DU";

			n_gray += bands[i].gray;
			CHECK_EQ(t[i].left, 0);
			CHECK_EQ(t[i].width, d->width);
			CHECK_EQ(t[i].top, bands[i].top);
			CHECK_EQ(t[i].height, bands[i].bottom - bands[i].top + 1);
			CHECK_MSG(!strcmp(t[i].waveform, wf), "band %u: waveform %s, expected %s",
				i, t[i].waveform, wf);
			CHECK_MSG(!strcmp(t[i].mode, "full"), "band %u: mode %s, expected full", i,
				t[i].mode);
			CHECK_EQ(t[i].marker, 0);
			CHECK_EQ(t[i].flags, 0);
			CHECK_EQ(t[i].flash, bands[i].gray);
			CHECK_EQ(t[i].merged, 0);
			CHECK_EQ(t[i].collided, 0);
		}
	}
	CHECK_EQ(epd_stat(d, "updates_submitted"), nb);
	CHECK_EQ(epd_stat(d, "updates_completed"), nb);
	CHECK_EQ(epd_stat(d, "waveform_gc16"), n_gray);
	CHECK_EQ(epd_stat(d, "waveform_du"), nb - n_gray);
	CHECK_EQ(epd_stat(d, "flashes"), n_gray);
	long long area = 0;

	for (unsigned int i = 0; i < nb; i++)
		area += (long long)d->width * (bands[i].bottom - bands[i].top + 1);
	CHECK_EQ(epd_stat(d, "pixels_driven"), area);
	free(t);

	/* GC16 bands show the quantized image exactly, DU bands black/white */
	memcpy(before, d->model, (size_t)d->width * d->height);
	for (unsigned int i = 0; i < nb; i++)
		epd_model_apply(d, 0, bands[i].top, d->width, bands[i].bottom - bands[i].top + 1,
			bands[i].gray ? 16 : 2);
	epd_read_panel(d, panel);
	for (unsigned int i = 0; i < nb; i++) {
		uint32_t h = bands[i].bottom - bands[i].top + 1;

		if (bands[i].gray) {
			CHECK_IMAGE_RECT(
				d, panel, d->model, 0, bands[i].top, d->width, h, "GC16 band");
		} else {
			size_t ghosted;

			CHECK_GHOSTED_RECT(d, panel, before, d->model, 2, 0, bands[i].top, d->width,
				h, "DU band", &ghosted);
			printf("DU band rows %u-%u: %zu pixel(s) show a ghost\n", bands[i].top,
				bands[i].bottom, ghosted);
			/* from now on the model holds the ghosts too */
			memcpy(d->model + (size_t)bands[i].top * d->width,
				panel + (size_t)bands[i].top * d->width, (size_t)h * d->width);
		}
	}
	/* rows outside the bands are untouched */
	for (unsigned int i = 0; i <= nb; i++) {
		uint32_t top = i ? bands[i - 1].bottom + 1 : 0;
		uint32_t end = i < nb ? bands[i].top : d->height;

		if (top < end)
			CHECK_IMAGE_RECT(d, panel, d->model, 0, top, d->width, end - top,
				"rows outside the bands");
	}
	free(panel);
	free(before);
}

static void
write_rect(struct epd *d, struct rect r, uint8_t (*gray)(uint32_t x, uint32_t y))
{
	for (uint32_t y = r.top; y < r.top + r.height; y++)
		for (uint32_t x = r.left; x < r.left + r.width; x++)
			epd_put(d, x, y, gray(x, y));
	mark_rect(d, r);
}

static uint8_t
gradient(uint32_t x, uint32_t y)
{
	(void)y;
	return (uint8_t)(x - 50);
}

static uint8_t
black(uint32_t x, uint32_t y)
{
	(void)x;
	(void)y;
	return 0;
}

static uint8_t
mid_gray(uint32_t x, uint32_t y)
{
	return (uint8_t)(0x70 + ((x + y) & 0x1f));
}

/* Fills the whole framebuffer white and lets deferred IO show it. */
static void
start_white(struct epd *d)
{
	epd_trace_clear(d);
	epd_stats_reset(d);
	reset_dirty();
	epd_fill(d, 0, 0, d->width, d->height, 255);
	mark_rect(d, (struct rect){0, 0, d->width, d->height});
	REQUIRE_OK(fsync(d->fd));
	REQUIRE_RC(epd_wait_idle(d), 0);
	check_round(d, "white fill");
	CHECK_PANEL_MODEL(d, "white panel");
	CHECK_EQ(epd_stat(d, "flashes"), 0);
	epd_trace_clear(d);
	epd_stats_reset(d);
	reset_dirty();
}

static void
phase_fsync_8bpp(struct epd *d)
{
	epd_phase("8 bpp: gradient and black rect, fsync");
	write_rect(d, (struct rect){50, 40, 256, 60}, gradient);
	write_rect(d, (struct rect){100, 200, 200, 50}, black);
	uint64_t t0 = epd_now_ns();

	REQUIRE_OK(fsync(d->fd));
	double fsync_ms = epd_ms_since(t0);

	printf("fsync took %.1f ms (defio_delay_ms %d)\n", fsync_ms, DELAY_MS);
	REQUIRE_RC(epd_wait_idle(d), 0);
	check_round(d, "gradient + black");
	CHECK_GT(epd_stat_f(d, "ghost_mean"), 0.0);
	CHECK_EQ(epd_stat(d, "in_flight"), 0);
	CHECK_EQ(epd_stat(d, "queued"), 0);
}

static void
phase_timer_8bpp(struct epd *d)
{
	struct epd_trace *t;
	int polls = 0;

	epd_phase("8 bpp: deferred IO after defio_delay_ms, no fsync");
	epd_trace_clear(d);
	epd_stats_reset(d);
	reset_dirty();
	uint64_t t0 = epd_now_ns();

	write_rect(d, (struct rect){0, 150, 400, 20}, mid_gray);
	/* only the timer can run deferred IO now; half a minute is for a stalled machine */
	while (epd_stat(d, "defio_runs") == 0 && polls++ < 6000)
		epd_sleep_ms(5);
	REQUIRE_MSG(epd_stat(d, "defio_runs") > 0, "deferred IO did not run without fsync");
	REQUIRE_RC(epd_wait_idle(d), 0);
	/* the band is submitted when deferred IO runs: the trace has the driver's time */
	size_t n = epd_trace_read(d, &t);

	if (CHECK_EQ(n, 1)) {
		double ran = ((double)t[0].submit_ns - (double)t0) / 1e6;

		printf("deferred IO submitted its band %.1f ms after the write began\n", ran);
		/* a jiffy-based timer may fire up to one jiffy (<= 10 ms) early */
		CHECK_MSG(t[0].submit_ns + JIFFY_MS * 1000000ULL >= t0 + DELAY_MS * 1000000ULL,
			"deferred IO ran %.1f ms after the write, before defio_delay_ms %d", ran,
			DELAY_MS);
	}
	free(t);
	check_round(d, "timer");
}

static void
phase_region_mode(struct epd *d)
{
	epd_phase("REGION mode: deferred IO submits nothing");
	REQUIRE_RC(epd_set_auto_mode(d, AUTO_UPDATE_MODE_REGION_MODE), 0);
	epd_trace_clear(d);
	epd_stats_reset(d);
	epd_fill(d, 0, 10, d->width, 10, 0);
	REQUIRE_OK(fsync(d->fd));
	REQUIRE_RC(epd_wait_idle(d), 0);
	CHECK_EQ(epd_stat(d, "defio_runs"), 1);
	CHECK_EQ(epd_stat(d, "updates_submitted"), 0);
	CHECK_EQ(epd_stat(d, "updates_completed"), 0);
	CHECK_PANEL_MODEL(d, "panel after a REGION mode write");

	epd_phase("back to AUTOMATIC mode");
	REQUIRE_RC(epd_set_auto_mode(d, AUTO_UPDATE_MODE_AUTOMATIC_MODE), 0);
	epd_trace_clear(d);
	epd_stats_reset(d);
	reset_dirty();
	write_rect(d, (struct rect){0, 10, d->width, 10}, black);
	REQUIRE_OK(fsync(d->fd));
	REQUIRE_RC(epd_wait_idle(d), 0);
	check_round(d, "AUTOMATIC again");
}

static uint32_t colors[64];

static uint8_t
color_gray(uint32_t x, uint32_t y)
{
	return epd_luma(colors[(x / 7 + y * 3) % 64]);
}

static void
phase_32bpp(void)
{
	struct epd *d = &dev;
	struct fb_var_screeninfo var;

	epd_phase("32 bpp: load");
	epd_close(d);
	load(d, 32);
	REQUIRE_EQ(d->bpp, 32);
	REQUIRE_EQ(d->width, W);
	REQUIRE_EQ(d->height, H);
	CHECK_GE(d->line_length, W * 4);
	REQUIRE_OK(ioctl(d->fd, FBIOGET_VSCREENINFO, &var));
	CHECK_EQ(var.red.offset, 16);
	CHECK_EQ(var.red.length, 8);
	CHECK_EQ(var.green.offset, 8);
	CHECK_EQ(var.green.length, 8);
	CHECK_EQ(var.blue.offset, 0);
	CHECK_EQ(var.blue.length, 8);
	start_white(d);

	epd_phase("32 bpp: colors and black rect, fsync");
	/* the X byte is random: the driver must ignore it */
	colors[0] = 0xff0000;
	colors[1] = 0x00ff00;
	colors[2] = 0x0000ff;
	colors[3] = 0xffffff;
	colors[4] = 0x000000;
	colors[5] = 0x808080;
	for (int i = 6; i < 64; i++)
		colors[i] = (uint32_t)epd_rand() & 0xffffff;
	for (int i = 0; i < 64; i++)
		colors[i] |= (uint32_t)(epd_rand() & 0xff) << 24;
	struct rect cr = {20, 30, 360, 60};

	for (uint32_t y = cr.top; y < cr.top + cr.height; y++)
		for (uint32_t x = cr.left; x < cr.left + cr.width; x++)
			epd_put_xrgb(d, x, y, colors[(x / 7 + y * 3) % 64]);
	mark_rect(d, cr);
	for (uint32_t y = cr.top; y < cr.top + cr.height; y++)
		for (uint32_t x = cr.left; x < cr.left + cr.width; x++)
			REQUIRE_EQ(epd_fb_gray(d, x, y), color_gray(x, y));
	struct rect br = {50, 200, 100, 40};

	for (uint32_t y = br.top; y < br.top + br.height; y++)
		for (uint32_t x = br.left; x < br.left + br.width; x++)
			epd_put_xrgb(d, x, y, (y & 1) ? 0xff000000u : 0);
	mark_rect(d, br);
	REQUIRE_OK(fsync(d->fd));
	REQUIRE_RC(epd_wait_idle(d), 0);
	check_round(d, "32 bpp colors + black");
}

int
main(void)
{
	struct epd *d = &dev;

	epd_begin("defio_auto", 120);
	epd_seed_from_env();
	page_size = sysconf(_SC_PAGESIZE);

	epd_phase("8 bpp: load");
	load(d, 8);
	REQUIRE_EQ(d->width, W);
	REQUIRE_EQ(d->height, H);
	REQUIRE_EQ(d->bpp, 8);
	REQUIRE_EQ(epd_stat(d, "updates_submitted"), 0);
	CHECK_PANEL_MODEL(d, "initial panel (white)");
	start_white(d);
	phase_fsync_8bpp(d);
	phase_timer_8bpp(d);
	phase_region_mode(d);
	phase_32bpp();

	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
