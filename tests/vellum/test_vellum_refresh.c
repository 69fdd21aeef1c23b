// SPDX-License-Identifier: MIT
/*
 * epaper-refresh-v1 under vellum on epdfb, with refresh_client:
 *
 * - each mode a client sets reaches the driver as the expected waveform
 *   for that surface's rect (the trace), and the panel shows its pixels;
 *   quality is GC16 without a flash, or GL16 on an IT8951, whose GC16
 *   always flashes;
 *   each feedback names the waveform the trace shows, with a time no
 *   earlier than the end of that update (both CLOCK_MONOTONIC);
 * - request_full_refresh without damage: exactly one flashing GC16 update,
 *   of exactly the dialog's area;
 * - frames committed back to back while the panel is busy: the superseded
 *   ones are discarded, the last one shown, each feedback gets one event;
 * - a 5 s flood of full refreshes flashes no more than once a second;
 * - a protocol error ends that client, and vellum serves the next one.
 *
 * The policy's own flashes (full-refresh-every, idle cleanup) are off, so
 * that every flash of the dialog is one a client asked for.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "epd_test.h"
#include "vellum_panel.h"
#include "vellum_run.h"

#define PANEL_W 800
#define PANEL_H 600
/* refresh_client's dialog, centred on the panel */
#define DIALOG_X    250
#define DIALOG_Y    200
#define DIALOG_W    300
#define DIALOG_H    200
#define INTERVAL_NS 1000000000ull
#define FLOOD_S     5

static struct epd dev, *d = &dev;
static struct vellum_run run;

/* Runs refresh_client with args; its output in *out_fd. */
static pid_t
start_client(const char *command, const char *arg, int *out_fd)
{
	const char *argv[] = {REFRESH_CLIENT_BIN, command, arg, NULL};

	return vellum_client_start(&run, argv, out_fd);
}

/* The NAME= value of a line, or "" (into buf). */
static const char *
field(const char *line, const char *name, char *buf, size_t len)
{
	char key[32];
	const char *at;

	snprintf(key, sizeof(key), " %s=", name);
	buf[0] = '\0';
	at = strstr(line, key);
	if (at)
		sscanf(at + strlen(key), "%31s", buf);
	(void)len;
	return buf;
}

static unsigned long long
field_u(const char *line, const char *name)
{
	char buf[32];

	return strtoull(field(line, name, buf, sizeof(buf)), NULL, 10);
}

/* The trace's updates since from_ns of exactly the rect; the last in *found. */
static size_t
updates_of(const struct epd_trace *trace, size_t n, uint64_t from_ns, uint32_t x, uint32_t y,
	uint32_t w, uint32_t h, bool flashing_only, const struct epd_trace **found)
{
	size_t count = 0;

	for (size_t i = 0; i < n; i++) {
		const struct epd_trace *t = &trace[i];
		if (t->submit_ns < from_ns || t->left != x || t->top != y || t->width != w ||
			t->height != h || (flashing_only && !t->flash))
			continue;
		count++;
		if (found)
			*found = t;
	}
	return count;
}

/* Pixels of a rect: dark (< 64), light (> 191), and between. */
static void
classify_pixels(const uint8_t *panel, uint32_t x, uint32_t y, uint32_t w, uint32_t h, size_t *dark,
	size_t *light, size_t *mid, uint8_t *mid_min, uint8_t *mid_max)
{
	*dark = *light = *mid = 0;
	*mid_min = 255;
	*mid_max = 0;
	for (uint32_t row = y; row < y + h; row++) {
		for (uint32_t col = x; col < x + w; col++) {
			uint8_t v = panel[(size_t)row * PANEL_W + col];
			if (v < 64) {
				(*dark)++;
			} else if (v > 191) {
				(*light)++;
			} else {
				(*mid)++;
				*mid_min = v < *mid_min ? v : *mid_min;
				*mid_max = v > *mid_max ? v : *mid_max;
			}
		}
	}
}

static void
check_modes(void)
{
	struct {
		const char *mode, *waveform;
		bool gray, dithered;
	} expected[] = {
		{"quality", vellum_panel_kind() == VELLUM_PANEL_IT8951 ? "GL16" : "GC16", false,
			false},
		{"text", "GL16", true, false},
		{"fast", "A2", false, true},
		{"animation", "A2", false, true},
		{"auto", "DU", false, false},
	};
	char lines[5][256], prefix[32], buf[32];
	int out_fd;
	uint64_t from_ns = epd_now_ns();

	epd_phase("each mode: its waveform for its rect, its pixels, its feedback");
	pid_t pid = start_client("modes", NULL, &out_fd);
	for (size_t i = 0; i < 5; i++) {
		snprintf(prefix, sizeof(prefix), "mode %s ", expected[i].mode);
		REQUIRE_MSG(
			vellum_read_line(out_fd, "modes", prefix, lines[i], sizeof(lines[i]), 120),
			"refresh_client printed no \"%s\" line", prefix);
	}
	CHECK_EQ(vellum_child_wait(pid, 30), 0);
	close(out_fd);
	REQUIRE_RC(epd_wait_idle(d), 0);

	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);
	uint8_t *panel = epd_alloc_image(d);
	epd_read_panel(d, panel);
	for (size_t i = 0; i < 5; i++) {
		const char *line = lines[i];
		uint32_t x = field_u(line, "x"), y = field_u(line, "y");
		uint32_t w = field_u(line, "width"), h = field_u(line, "height");
		const struct epd_trace *t = NULL;
		size_t count = updates_of(trace, n, from_ns, x, y, w, h, false, &t);

		CHECK_MSG(count == 1, "mode %s: %zu updates of its rect %ux%u+%u+%u, not one",
			expected[i].mode, count, w, h, x, y);
		if (!t)
			continue;
		CHECK_MSG(!strcmp(t->waveform, expected[i].waveform) && !t->flash,
			"mode %s: the trace shows %s%s, not %s", expected[i].mode, t->waveform,
			t->flash ? " (flashing)" : "", expected[i].waveform);
		CHECK_MSG(!strcmp(field(line, "waveform", buf, sizeof(buf)), t->waveform),
			"mode %s: the feedback names %s, the trace shows %s", expected[i].mode, buf,
			t->waveform);
		CHECK_MSG(field_u(line, "flags") == 0, "mode %s: the feedback says flashed",
			expected[i].mode);
		unsigned long long ns = field_u(line, "ns");
		CHECK_MSG(ns >= t->end_ns,
			"mode %s: refreshed at %llu ns, before the update ended at %llu ns",
			expected[i].mode, ns, (unsigned long long)t->end_ns);
		printf("mode %s: %s, ended %llu ns, refreshed %llu ns later\n", expected[i].mode,
			t->waveform, (unsigned long long)t->end_ns,
			ns - (unsigned long long)t->end_ns);

		size_t dark, light, mid;
		uint8_t lo, hi;
		classify_pixels(panel, x, y, w, h, &dark, &light, &mid, &lo, &hi);
		if (expected[i].gray)
			/* one gray level; a faint ghost of the white before may remain */
			CHECK_MSG(mid == (size_t)w * h && hi - lo <= 24,
				"mode %s: not one gray (%zu dark, %zu light, %zu gray in %u..%u)",
				expected[i].mode, dark, light, mid, lo, hi);
		else if (expected[i].dithered)
			CHECK_MSG(dark > 0 && light > 0 && mid == 0,
				"mode %s: not dithered to black and white (%zu dark, %zu light, "
				"%zu gray)",
				expected[i].mode, dark, light, mid);
		else
			CHECK_MSG(dark == (size_t)w * h, "mode %s: not black (%zu of %zu dark)",
				expected[i].mode, dark, (size_t)w * h);
	}
	free(panel);
	free(trace);
}

static void
check_full_refresh(void)
{
	char drawn[256], full[256], buf[32];
	int out_fd;

	epd_phase("a full refresh without damage: one flash of exactly the dialog");
	pid_t pid = start_client("full", NULL, &out_fd);
	REQUIRE(vellum_read_line(out_fd, "full", "drawn ", drawn, sizeof(drawn), 120));
	REQUIRE(vellum_read_line(out_fd, "full", "full ", full, sizeof(full), 120));
	CHECK_EQ(vellum_child_wait(pid, 30), 0);
	close(out_fd);
	REQUIRE_RC(epd_wait_idle(d), 0);

	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);
	/* the updates that came after the drawn frame had settled */
	uint64_t drawn_ns = field_u(drawn, "ns");
	size_t after = 0;
	const struct epd_trace *t = NULL;
	for (size_t i = 0; i < n; i++) {
		if (trace[i].submit_ns < drawn_ns)
			continue;
		after++;
		t = &trace[i];
		epd_trace_print(t);
	}
	CHECK_MSG(after == 1, "%zu updates for the full refresh, not one", after);
	if (t) {
		CHECK_MSG(t->left == DIALOG_X && t->top == DIALOG_Y && t->width == DIALOG_W &&
				  t->height == DIALOG_H,
			"the full refresh drove %ux%u+%u+%u, not the dialog's %ux%u+%u+%u",
			t->width, t->height, t->left, t->top, DIALOG_W, DIALOG_H, DIALOG_X,
			DIALOG_Y);
		CHECK_MSG(t->flash && !strcmp(t->waveform, "GC16"),
			"the full refresh was %s%s, not a flashing GC16", t->waveform,
			t->flash ? " (flashing)" : "");
		CHECK_MSG(!strcmp(field(full, "waveform", buf, sizeof(buf)), "GC16") &&
				  field_u(full, "flags") == 1,
			"its feedback: %s", full);
		CHECK_MSG(field_u(full, "ns") >= t->end_ns,
			"refreshed at %llu ns, before the flash ended at %llu ns",
			field_u(full, "ns"), (unsigned long long)t->end_ns);
	}
	free(trace);
}

static void
check_superseded(void)
{
	char line[256];
	int out_fd;

	epd_phase("frames committed while the panel is busy: superseded ones discarded");
	pid_t pid = start_client("supersede", "8", &out_fd);
	REQUIRE(vellum_read_line(out_fd, "supersede", "supersede ", line, sizeof(line), 120));
	CHECK_EQ(vellum_child_wait(pid, 30), 0);
	close(out_fd);
	unsigned long long refreshed = field_u(line, "refreshed");
	unsigned long long discarded = field_u(line, "discarded");
	/* the client checked that each got one event and the last was shown */
	CHECK_EQ(refreshed + discarded, 8);
	CHECK_GE(discarded, 1);
	CHECK_GE(refreshed, 1);
}

static void
check_flood(void)
{
	char line[256];
	int out_fd;

	epd_phase("a %d s flood of full refreshes: at most one flash a second", FLOOD_S);
	char seconds[8];
	snprintf(seconds, sizeof(seconds), "%d", FLOOD_S);
	pid_t pid = start_client("flood", seconds, &out_fd);
	REQUIRE(vellum_read_line(out_fd, "flood", "flooding", line, sizeof(line), 120));
	uint64_t from_ns = epd_now_ns();
	REQUIRE(vellum_read_line(out_fd, "flood", "flooded ", line, sizeof(line), 120));
	uint64_t flood_end_ns = epd_now_ns();
	/* the flash the last requests merged into comes within the interval */
	struct epd_trace *trace = NULL;
	size_t n = 0, flashes = 0;
	const struct epd_trace *last = NULL;
	for (int i = 0; i < 300 && (!last || last->submit_ns < flood_end_ns); i++) {
		epd_sleep_ms(100);
		free(trace);
		n = epd_trace_read(d, &trace);
		last = NULL;
		flashes = updates_of(
			trace, n, from_ns, DIALOG_X, DIALOG_Y, DIALOG_W, DIALOG_H, true, &last);
	}
	kill(pid, SIGTERM);
	vellum_child_wait(pid, 10);
	close(out_fd);

	unsigned long long requests = 0;
	sscanf(line, "flooded %llu", &requests);
	uint64_t previous = 0, closest = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		const struct epd_trace *t = &trace[i];
		if (t->submit_ns < from_ns || !t->flash || t->left != DIALOG_X ||
			t->top != DIALOG_Y || t->width != DIALOG_W || t->height != DIALOG_H)
			continue;
		if (previous && t->submit_ns - previous < closest)
			closest = t->submit_ns - previous;
		previous = t->submit_ns;
	}
	printf("%llu requests in %d s: %zu flashes of the dialog, the closest %.3f s apart\n",
		requests, FLOOD_S, flashes, closest == UINT64_MAX ? 0.0 : (double)closest / 1e9);
	CHECK_GT(requests, 100);
	/* one at the start, one a second, and the last requests' merged one */
	CHECK_GE(flashes, 2);
	CHECK_LE(flashes, FLOOD_S + 2);
	/*
	 * The limit holds when vellum plans a flash; the driver queues it later
	 * by as long as the panel is busy. Without the limit, flashes follow
	 * each other as fast as the panel completes them.
	 */
	CHECK_MSG(closest >= INTERVAL_NS / 2, "two flashes %.3f s apart", (double)closest / 1e9);
	free(trace);
}

static void
check_error(void)
{
	char line[256];
	int out_fd;

	epd_phase("a protocol error ends the client; vellum serves the next one");
	pid_t pid = start_client("error", "twice", &out_fd);
	CHECK(vellum_read_line(out_fd, "error", "protocol error ", line, sizeof(line), 60));
	CHECK(strstr(line, "interface=xx_epaper_refresh_manager_v1 code=0") != NULL);
	CHECK_EQ(vellum_child_wait(pid, 30), 0);
	close(out_fd);
	pid = start_client("supersede", "2", &out_fd);
	CHECK(vellum_read_line(out_fd, "next", "supersede ", line, sizeof(line), 120));
	CHECK_EQ(vellum_child_wait(pid, 30), 0);
	close(out_fd);
}

int
main(void)
{
	static const char config_text[] = "[refresh]\nfull-refresh-every = 0\nidle-cleanup = off\n"
					  "full-refresh-interval = 1s\n";
	char config[64];

	epd_begin("vellum_refresh", 600);
	vellum_panel_open(d, "width=800 height=600 bpp=8 time_scale=50");
	vellum_panel_clear(d);
	epd_trace_clear(d);
	snprintf(config, sizeof(config), "/tmp/vellum-refresh-%d.conf", (int)getpid());
	FILE *f = fopen(config, "w");
	REQUIRE(f && fputs(config_text, f) >= 0 && fclose(f) == 0);

	const char *args[] = {"-c", config, "-d", d->devnode, "--", "sh", "-c",
		VELLUM_SAY_DISPLAY "exec sleep 3600", NULL};
	vellum_start(&run, args, NULL);
	REQUIRE(vellum_expect_display(&run, 60));

	check_modes();
	check_full_refresh();
	check_superseded();
	check_flood();
	check_error();

	CHECK_MSG(kill(run.pid, 0) == 0, "vellum ended");
	vellum_stop(&run, SIGTERM, 60);
	unlink(config);
	epd_close(d);
	return epd_end();
}
