// SPDX-License-Identifier: MIT
/*
 * The pen strokes scenario's workload: a uinput pen whose axes span the
 * panel, as a digitizer laminated to it.
 *
 *   epaper_pen DIR STROKES
 *
 * Creates the pen, then DIR/pen-ready; waits for DIR/go, then draws STROKES
 * strokes, left to right and slightly down (the tip goes down, moves MOVES
 * steps STEP_PX apart, MOVE_MS apart, and lifts). Every event that inks (the tip going down, a
 * move while down) is logged as "input I NS" in DIR/input and as "stim I
 * NS" in DIR/stim, CLOCK_MONOTONIC after the event's SYN_REPORT was
 * written. Then DIR/done; after DIR/settled, "changed N" (the pixels the
 * strokes changed on the panel: strokes only add ink, so the panel before
 * and after tells) and DIR/finished, and it removes the pen.
 */
#include <errno.h>
#include <linux/uinput.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_panel.h"
#include "epd_test.h"
#include "vm_input.h"

#define MOVES    15
#define STEP_PX  20
#define MOVE_MS  30
#define PAUSE_MS 500

struct pen {
	const char *dir;
	int fd;
	FILE *input, *stim;
	unsigned int events;
};

static void
emit(int fd, uint16_t type, uint16_t code, int32_t value)
{
	struct input_event event = {.type = type, .code = code, .value = value};

	REQUIRE_MSG(write(fd, &event, sizeof(event)) == sizeof(event), "uinput write: %s",
		strerror(errno));
}

/* The file name in the run's directory, allocated. */
static char *
path_in(const struct pen *p, const char *name)
{
	char *path;

	REQUIRE(asprintf(&path, "%s/%s", p->dir, name) >= 0);
	return path;
}

static FILE *
open_in(const struct pen *p, const char *name, const char *mode)
{
	char *path = path_in(p, name);
	FILE *f;

	f = fopen(path, mode);
	REQUIRE_MSG(f, "cannot open %s: %s", path, strerror(errno));
	free(path);
	return f;
}

static void
wait_for(const struct pen *p, const char *name)
{
	char *path = path_in(p, name);

	while (access(path, F_OK) != 0)
		epd_sleep_ms(20);
	free(path);
}

/* Ends a report; when it inks, logs its time. */
static void
report(struct pen *p, bool inks)
{
	emit(p->fd, EV_SYN, SYN_REPORT, 0);
	if (!inks)
		return;
	unsigned long long now = (unsigned long long)epd_now_ns();
	fprintf(p->input, "input %u %llu\n", p->events, now);
	fprintf(p->stim, "stim %u %llu\n", p->events, now);
	p->events++;
}

static void
stroke(struct pen *p, int32_t x, int32_t y)
{
	emit(p->fd, EV_KEY, BTN_TOOL_PEN, 1);
	emit(p->fd, EV_ABS, ABS_X, x);
	emit(p->fd, EV_ABS, ABS_Y, y);
	report(p, false);
	epd_sleep_ms(MOVE_MS);
	emit(p->fd, EV_KEY, BTN_TOUCH, 1);
	report(p, true);
	for (int i = 1; i <= MOVES; i++) {
		epd_sleep_ms(MOVE_MS);
		/*
		 * Both axes move, as a hand's do: every event then carries X
		 * and Y (the kernel drops an axis whose value did not change),
		 * whatever a compositor makes of an event that moves one.
		 */
		emit(p->fd, EV_ABS, ABS_X, x + i * STEP_PX);
		emit(p->fd, EV_ABS, ABS_Y, y + i);
		report(p, true);
	}
	epd_sleep_ms(MOVE_MS);
	emit(p->fd, EV_KEY, BTN_TOUCH, 0);
	report(p, false);
	emit(p->fd, EV_KEY, BTN_TOOL_PEN, 0);
	report(p, false);
}

int
main(int argc, char **argv)
{
	struct pen p = {0};
	struct epd dev;

	if (argc != 3 || atoi(argv[2]) <= 0) {
		fprintf(stderr, "usage: epaper_pen DIR STROKES\n");
		return 2;
	}
	p.dir = argv[1];
	int strokes = atoi(argv[2]);
	bench_panel_attach(&dev);
	uint8_t *before = epd_alloc_image(&dev), *after = epd_alloc_image(&dev);

	vm_input_setup();
	p.fd = vm_uinput_pen(dev.width, dev.height);
	vm_udev_settle();
	fclose(open_in(&p, "pen-ready", "w"));
	wait_for(&p, "go");
	epd_read_panel(&dev, before);
	p.input = open_in(&p, "input", "w");
	p.stim = open_in(&p, "stim", "w");
	for (int s = 0; s < strokes; s++) {
		if (s)
			epd_sleep_ms(PAUSE_MS);
		stroke(&p, 100, (int32_t)(100 + (s * 60) % (dev.height - 200)));
	}
	fclose(p.input);
	fflush(p.stim);
	fclose(open_in(&p, "done", "w"));
	wait_for(&p, "settled");
	epd_read_panel(&dev, after);
	long long changed = 0;
	for (size_t i = 0; i < (size_t)dev.width * dev.height; i++)
		changed += abs(after[i] - before[i]) > 16;
	fprintf(p.stim, "changed %lld\n", changed);
	fclose(p.stim);
	fclose(open_in(&p, "finished", "w"));
	vm_uinput_destroy(p.fd);
	epd_close(&dev);
	return 0;
}
