// SPDX-License-Identifier: MIT
/*
 * Every waveform through MXCFB_SEND_UPDATE: the gray levels it shows, its
 * duration (time_scale=100), flashes, pixels driven, the trace entry; the
 * EPDFB_GET_WAVEFORM table; marker semantics (unknown and completed markers,
 * a wait behind other updates, signals); the flags (inversion, monochrome, dithering) and
 * WAVEFORM_MODE_AUTO with MXCFB_SET_WAVEFORM_MODES.
 */
#include "epd_test.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <unistd.h>

#define W       400
#define H       300
#define GLEFT   72 /* gradient: 256 columns, every gray value */
#define GWIDTH  256
#define GHEIGHT 16

static struct epd dev;

static const uint32_t wf_flags[6] = {
	EPDFB_WAVEFORM_FLASHING,
	0,
	EPDFB_WAVEFORM_FLASHING_FULL,
	EPDFB_WAVEFORM_FLASHING_FULL,
	0,
	0,
};
static const uint32_t wf_levels[6] = {2, 2, 16, 4, 2, 16};
static const char *const stat_names[6] = {
	"waveform_init",
	"waveform_du",
	"waveform_gc16",
	"waveform_gc4",
	"waveform_a2",
	"waveform_gl16",
};

static void
write_gradient(struct epd *d, uint32_t top, uint32_t height)
{
	for (uint32_t y = top; y < top + height; y++)
		for (uint32_t x = GLEFT; x < GLEFT + GWIDTH; x++)
			epd_put(d, x, y, (uint8_t)(x - GLEFT));
}

static void
check_table(struct epd *d, uint32_t time_scale)
{
	struct epdfb_waveform_info info;

	for (uint32_t i = 0; i < 6; i++) {
		if (!CHECK_RC(epd_get_waveform(d, i, &info), 0))
			continue;
		CHECK_EQ(info.index, i);
		CHECK_EQ(info.id, i);
		CHECK_EQ(info.gray_levels, wf_levels[i]);
		CHECK_EQ(info.flags, wf_flags[i]);
		CHECK_EQ(info.duration_ms, epd_base_ms[i] * time_scale / 100);
		CHECK_MSG(memchr(info.name, '\0', sizeof(info.name)) &&
				  !strcmp(info.name, epd_wf_names[i]),
			"waveform %u: name \"%.16s\", expected \"%s\"", i, info.name,
			epd_wf_names[i]);
	}
	CHECK_RC(epd_get_waveform(d, 6, &info), -EINVAL);
	CHECK_RC(epd_get_waveform(d, 7, &info), -EINVAL);
	CHECK_RC(epd_get_waveform(d, 0xffffffffu, &info), -EINVAL);
}

struct wf_case {
	uint32_t waveform;
	uint32_t mode;
	bool flash;
};

/*
 * One update of a fresh gradient on white panel rows never touched before:
 * its levels, duration, trace entry and stats.
 */
static void
run_case(struct epd *d, const struct wf_case *c, uint32_t top, uint32_t marker)
{
	const char *name = epd_wf_names[c->waveform];
	unsigned int levels = wf_levels[c->waveform];
	uint32_t dur = epd_duration_ms(c->waveform, 25, 100);
	uint32_t collision = 0xdead;
	uint8_t *before = epd_alloc_image(d), *panel = epd_alloc_image(d);
	struct epd_trace *t;
	size_t nt, changed = 0;

	epd_phase("%s %s: gradient at rows %u-%u", name,
		c->mode == UPDATE_MODE_FULL ? "FULL" : "PARTIAL", top, top + GHEIGHT - 1);
	epd_stats_reset(d);
	epd_trace_clear(d);
	write_gradient(d, top, GHEIGHT);
	memcpy(before, d->model, (size_t)W * H);
	if (c->waveform == WAVEFORM_MODE_INIT)
		memset(d->model + (size_t)top * W, 255, (size_t)GHEIGHT * W);
	else
		epd_model_apply(d, GLEFT, top, GWIDTH, GHEIGHT, levels);
	for (size_t i = 0; i < (size_t)W * H; i++)
		changed += before[i] != d->model[i];

	uint64_t t0 = epd_now_ns();

	REQUIRE_RC(epd_update(d, GLEFT, top, GWIDTH, GHEIGHT, c->waveform, c->mode, marker,
			   TEMP_USE_AMBIENT, 0),
		0);
	uint64_t t1 = epd_now_ns();

	CHECK_RC(epd_wait(d, marker, &collision), 0);
	uint64_t t2 = epd_now_ns();
	double ms = (double)(t2 - t0) / 1e6;

	printf("%s: update + wait took %.1f ms, duration %u ms\n", name, ms, dur);
	CHECK_EQ(collision, 0);
	CHECK_MSG(ms >= dur, "%s: the wait returned after %.1f ms, before the %u ms duration", name,
		ms, dur);

	nt = epd_trace_read(d, &t);
	if (CHECK_EQ(nt, 1)) {
		epd_trace_print(&t[0]);
		CHECK_EQ(t[0].marker, marker);
		CHECK_EQ(t[0].left, GLEFT);
		CHECK_EQ(t[0].top, top);
		CHECK_EQ(t[0].width, GWIDTH);
		CHECK_EQ(t[0].height, GHEIGHT);
		CHECK_MSG(!strcmp(t[0].waveform, name), "trace waveform %s, expected %s",
			t[0].waveform, name);
		CHECK_MSG(!strcmp(t[0].mode, c->mode == UPDATE_MODE_FULL ? "full" : "partial"),
			"trace mode %s", t[0].mode);
		CHECK_EQ(t[0].flags, 0);
		CHECK_EQ(t[0].merged, 0);
		CHECK_EQ(t[0].collided, 0);
		CHECK_EQ(t[0].flash, c->flash);
		CHECK_GE(t[0].submit_ns, t0);
		CHECK_LE(t[0].submit_ns, t1);
		CHECK_GE(t[0].start_ns, t[0].submit_ns);
		CHECK_TRACE_DURATION(&t[0], dur, name);
		CHECK_LE(t[0].end_ns, t2);
	}
	free(t);

	CHECK_EQ(epd_stat(d, "updates_submitted"), 1);
	CHECK_EQ(epd_stat(d, "updates_completed"), 1);
	CHECK_EQ(epd_stat(d, "collisions"), 0);
	CHECK_EQ(epd_stat(d, "flashes"), c->flash);
	for (uint32_t i = 0; i < 6; i++)
		CHECK_MSG(epd_stat(d, stat_names[i]) == (i == c->waveform),
			"stats %s: %lld after one %s update", stat_names[i],
			epd_stat(d, stat_names[i]), name);
	if (c->mode == UPDATE_MODE_FULL)
		CHECK_EQ(epd_stat(d, "pixels_driven"), GWIDTH * GHEIGHT);
	else
		CHECK_EQ(epd_stat(d, "pixels_driven"), changed);

	epd_read_panel(d, panel);
	if (c->flash) {
		CHECK_IMAGE(d, panel, d->model, name);
	} else {
		size_t ghosted;

		CHECK_GHOSTED_RECT(d, panel, before, d->model, levels, GLEFT, top, GWIDTH, GHEIGHT,
			name, &ghosted);
		printf("%s: %zu pixel(s) show a ghost\n", name, ghosted);
		/* the rest of the panel is untouched */
		CHECK_IMAGE_RECT(d, panel, d->model, 0, 0, W, top, name);
		CHECK_IMAGE_RECT(d, panel, d->model, 0, top + GHEIGHT, W, H - top - GHEIGHT, name);
		CHECK_IMAGE_RECT(d, panel, d->model, 0, top, GLEFT, GHEIGHT, name);
		CHECK_IMAGE_RECT(
			d, panel, d->model, GLEFT + GWIDTH, top, W - GLEFT - GWIDTH, GHEIGHT, name);
		/* the panel shows the model where it is exact, so the ghost is in place */
		memcpy(d->model + (size_t)top * W, panel + (size_t)top * W, (size_t)GHEIGHT * W);
	}
	free(before);
	free(panel);
}

static void
phase_waveforms(struct epd *d)
{
	static const struct wf_case cases[] = {
		{WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, false},
		{WAVEFORM_MODE_DU, UPDATE_MODE_FULL, false},
		{WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, true},
		{WAVEFORM_MODE_GC16, UPDATE_MODE_PARTIAL, false},
		{WAVEFORM_MODE_GC4, UPDATE_MODE_FULL, true},
		{WAVEFORM_MODE_GC4, UPDATE_MODE_PARTIAL, false},
		{WAVEFORM_MODE_A2, UPDATE_MODE_PARTIAL, false},
		{WAVEFORM_MODE_GL16, UPDATE_MODE_PARTIAL, false},
		{WAVEFORM_MODE_GL16, UPDATE_MODE_FULL, false},
		{WAVEFORM_MODE_INIT, UPDATE_MODE_FULL, true},
	};

	for (uint32_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(d, &cases[i], 8 + i * 24, 100 + i);
	/* the model now holds each case's result, ghosts included */
	CHECK_PANEL_MODEL(d, "panel after all waveforms");
}

static volatile sig_atomic_t alarms;

static void
on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/*
 * The waits that must return while an update runs wait on one at 5 C, where
 * GC16 takes 2.5 times as long: over a second in which a slow machine can
 * come back from the wait, checked against the update's end in the trace.
 */
#define COLD 5

/* The trace entry of a marker, fatal when there is none. */
static struct epd_trace *
entry_of(struct epd_trace *t, size_t n, uint32_t marker)
{
	struct epd_trace *e = epd_trace_find(t, n, marker);

	REQUIRE_MSG(e, "no trace entry with marker %u", marker);
	return e;
}

static void
phase_markers(struct epd *d)
{
	uint32_t collision;
	uint64_t t0, t_unknown, t_done, t_completed, t_intr, t_ahead;
	struct epd_trace *t, *e, *e2;
	double ms;
	size_t n;

	epd_phase("markers: unknown, 0 and completed markers return at once");
	epd_trace_clear(d);
	write_gradient(d, 250, 40);
	REQUIRE_RC(epd_update(d, GLEFT, 250, GWIDTH, 40, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 500,
			   COLD, 0),
		0);
	CHECK_RC(epd_wait(d, 0, NULL), 0);
	CHECK_RC(epd_wait(d, 0x7777, NULL), 0);
	t_unknown = epd_now_ns();
	CHECK_RC(epd_wait(d, 500, &collision), 0);
	t_done = epd_now_ns();
	CHECK_EQ(collision, 0);
	write_gradient(d, 8, 40);
	REQUIRE_RC(epd_update(d, GLEFT, 8, GWIDTH, 40, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 501,
			   COLD, 0),
		0);
	CHECK_RC(epd_wait(d, 500, &collision), 0);
	t_completed = epd_now_ns();
	CHECK_EQ(collision, 0);
	CHECK_RC(epd_wait(d, 501, NULL), 0);
	CHECK_RC(epd_wait_idle(d), 0);
	n = epd_trace_read(d, &t);
	CHECK_EQ(n, 2);
	e = entry_of(t, n, 500);
	e2 = entry_of(t, n, 501);
	CHECK_TRACE_DURATION(e, epd_duration_ms(WAVEFORM_MODE_GC16, COLD, 100), "marker 500");
	CHECK_MSG(t_unknown < e->end_ns,
		"the waits for markers 0 and 0x7777 (unknown) returned %.3f ms after update 500 "
		"ended, not at once",
		((double)t_unknown - (double)e->end_ns) / 1e6);
	CHECK_MSG(t_done >= e->end_ns, "the wait for marker 500 returned %.3f ms before it ended",
		((double)e->end_ns - (double)t_done) / 1e6);
	CHECK_MSG(t_completed < e2->end_ns,
		"the wait for completed marker 500 returned %.3f ms after update 501 ended, not "
		"at once",
		((double)t_completed - (double)e2->end_ns) / 1e6);
	free(t);
	epd_model_apply(d, GLEFT, 250, GWIDTH, 40, 16);
	epd_model_apply(d, GLEFT, 8, GWIDTH, 40, 16);
	CHECK_PANEL_MODEL(d, "after marker waits");

	epd_phase("markers: a signal interrupts the wait");
	struct sigaction sa;
	struct itimerval it = {.it_value = {.tv_sec = 0, .tv_usec = 100000}};

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART */
	REQUIRE_OK(sigaction(SIGALRM, &sa, NULL));
	epd_trace_clear(d);
	REQUIRE_RC(epd_update(d, GLEFT, 250, GWIDTH, 40, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 510,
			   COLD, 0),
		0);
	t0 = epd_now_ns();
	REQUIRE_OK(setitimer(ITIMER_REAL, &it, NULL));
	CHECK_RC(epd_wait(d, 510, NULL), -EINTR);
	t_intr = epd_now_ns();
	CHECK_EQ(alarms, 1);
	CHECK_MSG(t_intr - t0 >= 100000000ULL,
		"the interrupted wait returned after %.1f ms, before the alarm at 100 ms",
		(double)(t_intr - t0) / 1e6);
	CHECK_RC(epd_wait(d, 510, NULL), 0);
	t_done = epd_now_ns();
	n = epd_trace_read(d, &t);
	e = entry_of(t, n, 510);
	CHECK_MSG(t_intr < e->end_ns,
		"the interrupted wait returned %.3f ms after the update ended: the signal did "
		"not wake it",
		((double)t_intr - (double)e->end_ns) / 1e6);
	CHECK_MSG(t_done >= e->end_ns,
		"the wait after the signal returned %.3f ms before the update ended",
		((double)e->end_ns - (double)t_done) / 1e6);
	free(t);

	epd_phase("markers: a wait lasts as long as the updates ahead of it are due to");
	REQUIRE_RC(epd_set_scheme(d, UPDATE_SCHEME_QUEUE), 0);
	epd_stats_reset(d);
	epd_trace_clear(d);
	/*
	 * INIT at 15 C takes 3 s: the third of three colliding ones ends 9 s
	 * later, past the 5 s a wait gives its update beyond its own duration:
	 * the wait gives it the time of the two ahead too.
	 */
	for (uint32_t m = 601; m <= 603; m++)
		REQUIRE_RC(
			epd_update(d, 0, 0, 8, 8, WAVEFORM_MODE_INIT, UPDATE_MODE_FULL, m, 15, 0),
			0);
	t0 = epd_now_ns();
	collision = 0;
	CHECK_RC(epd_wait(d, 603, &collision), 0);
	t_ahead = epd_now_ns();
	ms = (double)(t_ahead - t0) / 1e6;
	printf("the wait returned after %.1f ms\n", ms);
	CHECK_EQ(collision, 1);
	n = epd_trace_read(d, &t);
	CHECK_EQ(n, 3);
	e = entry_of(t, n, 603);
	CHECK_MSG(t_ahead >= e->end_ns, "the wait returned %.3f ms before the update ended",
		((double)e->end_ns - (double)t_ahead) / 1e6);
	CHECK_MSG(entry_of(t, n, 602)->start_ns >= entry_of(t, n, 601)->end_ns &&
			  e->start_ns >= entry_of(t, n, 602)->end_ns,
		"colliding updates 601..603 ran at the same time");
	free(t);
	CHECK_EQ(epd_stat(d, "updates_completed"), 3);
	CHECK_EQ(epd_stat(d, "updates_merged"), 0);
	CHECK_EQ(epd_stat(d, "collisions"), 2);
	REQUIRE_RC(epd_set_scheme(d, UPDATE_SCHEME_QUEUE_AND_MERGE), 0);
	/* INIT over the white top left corner: the model stays white */
	CHECK_RC(epd_wait_idle(d), 0);
}

/* Checks a flag with a flashing GC16 FULL update, where the panel is exact. */
static void
flag_case(struct epd *d, uint32_t flags, uint32_t top, uint32_t marker,
	uint8_t (*expect)(uint8_t v), const char *what)
{
	uint8_t *panel = epd_alloc_image(d);

	epd_phase("flags: %s", what);
	write_gradient(d, top, GHEIGHT);
	REQUIRE_RC(epd_update(d, GLEFT, top, GWIDTH, GHEIGHT, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL,
			   marker, TEMP_USE_AMBIENT, flags),
		0);
	CHECK_RC(epd_wait(d, marker, NULL), 0);
	for (uint32_t y = top; y < top + GHEIGHT; y++)
		for (uint32_t x = GLEFT; x < GLEFT + GWIDTH; x++)
			d->model[(size_t)y * W + x] = expect(epd_get(d, x, y));
	epd_read_panel(d, panel);
	CHECK_IMAGE(d, panel, d->model, what);
	free(panel);
}

static uint8_t
exp_inverted(uint8_t v)
{
	return epd_quant(255 - v, 16);
}

static uint8_t
exp_mono(uint8_t v)
{
	return epd_quant(v, 2);
}

static uint8_t
exp_inverted_mono(uint8_t v)
{
	return epd_quant(255 - v, 2);
}

/* Dithering: a uniform field and a gradient, checked for plausible output. */
static void
dither_case(struct epd *d, uint32_t flags, unsigned int levels, uint8_t field, uint32_t top,
	uint32_t marker, const char *what)
{
	const uint32_t fw = 64, fh = 32, fleft = 8;
	uint8_t *panel = epd_alloc_image(d);
	uint8_t lo = epd_quant(field, levels), hi;
	size_t n_lo = 0, n_hi = 0, bad = 0;

	epd_phase("flags: %s", what);
	/* field of one gray at fleft, gradient beside it */
	epd_fill(d, fleft, top, fw, fh, field);
	write_gradient(d, top, fh);
	if (lo > field)
		lo = (uint8_t)(lo - 255 / (levels - 1));
	hi = (uint8_t)(lo + 255 / (levels - 1));
	REQUIRE_RC(epd_update(d, 0, top, W, fh, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, marker,
			   TEMP_USE_AMBIENT, flags),
		0);
	CHECK_RC(epd_wait(d, marker, NULL), 0);
	epd_read_panel(d, panel);
	for (uint32_t y = top; y < top + fh; y++) {
		for (uint32_t x = 0; x < W; x++) {
			uint8_t p = panel[(size_t)y * W + x], v = epd_get(d, x, y);
			uint8_t l = epd_quant(v, levels);
			uint8_t below = l > v ? (uint8_t)(l - 255 / (levels - 1)) : l;
			uint8_t above = l < v ? (uint8_t)(l + 255 / (levels - 1)) : l;

			/* a level of the scale, next to the input */
			if (epd_quant(p, levels) != p || p < below || p > above) {
				if (bad++ < 8)
					printf("    %s: pixel (%u,%u): input %u, panel %u\n", what,
						x, y, v, p);
			}
			if (x >= fleft && x < fleft + fw) {
				n_lo += p == lo;
				n_hi += p == hi;
			}
		}
	}
	CHECK_MSG(!bad, "%s: %zu pixel(s) are not one of the two levels around their input", what,
		bad);
	printf("%s: field %u: %zu pixels at %u, %zu at %u\n", what, field, n_lo, lo, n_hi, hi);
	CHECK_EQ(n_lo + n_hi, fw * fh);
	/* the field lies near the middle of its two levels: both in similar shares */
	CHECK_MSG(n_lo >= fw * fh * 3 / 10 && n_hi >= fw * fh * 3 / 10,
		"%s: a %u field dithered to %zu x %u and %zu x %u", what, field, n_lo, lo, n_hi,
		hi);
	/* the rest of the band shows white (255 quantizes to itself) */
	for (uint32_t x = 0; x < W; x++) {
		if ((x >= fleft && x < fleft + fw) || (x >= GLEFT && x < GLEFT + GWIDTH))
			continue;
		CHECK_IMAGE_RECT(d, panel, d->model, x, top, 1, fh, what);
	}
	memcpy(d->model + (size_t)top * W, panel + (size_t)top * W, (size_t)fh * W);
	free(panel);
}

static void
auto_case(struct epd *d, bool gray, uint32_t mode, const char *expect, uint32_t marker)
{
	struct epd_trace *t;
	size_t nt;

	epd_trace_clear(d);
	if (gray)
		write_gradient(d, 200, GHEIGHT);
	else
		for (uint32_t x = GLEFT; x < GLEFT + GWIDTH; x++)
			epd_fill(d, x, 200, 1, GHEIGHT, (x & 8) ? 255 : 0);
	REQUIRE_RC(epd_update(d, GLEFT, 200, GWIDTH, GHEIGHT, WAVEFORM_MODE_AUTO, mode, marker,
			   TEMP_USE_AMBIENT, 0),
		0);
	CHECK_RC(epd_wait(d, marker, NULL), 0);
	nt = epd_trace_read(d, &t);
	if (CHECK_EQ(nt, 1)) {
		epd_trace_print(&t[0]);
		CHECK_MSG(!strcmp(t[0].waveform, expect),
			"AUTO on a %s rect resolved to %s, expected %s",
			gray ? "gray" : "black/white", t[0].waveform, expect);
		CHECK_EQ(t[0].marker, marker);
	}
	free(t);
}

static void
phase_flags(struct epd *d)
{
	struct mxcfb_waveform_modes modes;

	flag_case(d, EPDC_FLAG_ENABLE_INVERSION, 8, 800, exp_inverted, "ENABLE_INVERSION");
	flag_case(d, EPDC_FLAG_FORCE_MONOCHROME, 32, 801, exp_mono, "FORCE_MONOCHROME");
	flag_case(d, EPDC_FLAG_ENABLE_INVERSION | EPDC_FLAG_FORCE_MONOCHROME, 56, 802,
		exp_inverted_mono, "ENABLE_INVERSION | FORCE_MONOCHROME");
	dither_case(d, EPDC_FLAG_USE_DITHERING_Y1, 2, 128, 80, 803, "USE_DITHERING_Y1");
	dither_case(d, EPDC_FLAG_USE_DITHERING_Y4, 16, 144, 120, 804, "USE_DITHERING_Y4");
	CHECK_PANEL_MODEL(d, "panel after the flag updates");

	epd_phase("flags: USE_ALT_BUFFER is refused");
	CHECK_RC(epd_update(d, 0, 0, 8, 8, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 805,
			 TEMP_USE_AMBIENT, EPDC_FLAG_USE_ALT_BUFFER),
		-EPERM);

	epd_phase("WAVEFORM_MODE_AUTO with the default and changed waveform modes");
	epd_stats_reset(d);
	auto_case(d, true, UPDATE_MODE_FULL, "GC16", 810);
	auto_case(d, false, UPDATE_MODE_FULL, "DU", 811);
	auto_case(d, true, UPDATE_MODE_PARTIAL, "GC16", 812);
	CHECK_EQ(epd_stat(d, "waveform_gc16"), 2);
	CHECK_EQ(epd_stat(d, "waveform_du"), 1);
	CHECK_EQ(epd_stat(d, "flashes"), 1);
	modes = (struct mxcfb_waveform_modes){
		.mode_init = WAVEFORM_MODE_INIT,
		.mode_du = WAVEFORM_MODE_A2,
		.mode_gc4 = WAVEFORM_MODE_GC4,
		.mode_gc8 = WAVEFORM_MODE_GC16,
		.mode_gc16 = WAVEFORM_MODE_GL16,
		.mode_gc32 = WAVEFORM_MODE_GC16,
	};
	REQUIRE_OK(ioctl(d->fd, MXCFB_SET_WAVEFORM_MODES, &modes));
	auto_case(d, false, UPDATE_MODE_FULL, "A2", 813);
	auto_case(d, true, UPDATE_MODE_FULL, "GL16", 814);
	modes.mode_du = WAVEFORM_MODE_DU;
	modes.mode_gc16 = WAVEFORM_MODE_GC16;
	REQUIRE_OK(ioctl(d->fd, MXCFB_SET_WAVEFORM_MODES, &modes));
	auto_case(d, false, UPDATE_MODE_FULL, "DU", 815);
	auto_case(d, true, UPDATE_MODE_FULL, "GC16", 816);
}

int
main(void)
{
	struct epd *d = &dev;

	epd_begin("waveforms", 150);

	epd_phase("load with time_scale=100, auto_update=0");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=100 auto_update=0");
	REQUIRE_EQ(d->width, W);
	REQUIRE_EQ(d->height, H);

	epd_phase("EPDFB_GET_WAVEFORM at time_scale 100");
	check_table(d, 100);

	epd_phase("auto_update=0: deferred IO submits nothing");
	write_gradient(d, 280, 16);
	REQUIRE_OK(fsync(d->fd));
	CHECK_RC(epd_wait_idle(d), 0);
	CHECK_EQ(epd_stat(d, "updates_submitted"), 0);
	CHECK_GE(epd_stat(d, "defio_runs"), 1);
	CHECK_PANEL_MODEL(d, "initial panel (white)");
	epd_fill(d, 0, 280, W, 16, 255);

	phase_waveforms(d);
	phase_markers(d);

	epd_phase("reload with time_scale=10");
	epd_close(d);
	epd_open(d, "width=400 height=300 bpp=8 time_scale=10 auto_update=0");
	check_table(d, 10);
	epd_clear(d);
	phase_flags(d);

	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
