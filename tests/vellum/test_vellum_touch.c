// SPDX-License-Identifier: MIT
/*
 * A touchscreen tap and a pen press at a point of the panel reach the client
 * at the surface point drawn there, with the output rotated by 0 and 90
 * degrees: the input devices are uinput ones with axes in panel pixels, the
 * client is touch_probe, which draws a marker at a known surface point and
 * reports where it was touched. The pen reaches a client that bound
 * tablet-v2 as a tablet tool (and not as the pointer), the others as the
 * pointer. Where the marker is, is read back from the
 * panel, so the test holds whichever way a rotation turns the picture.
 *
 * A pen stroke as the pointer on a dialog (which vellum centres, away from
 * the panel's corner) reaches it in the dialog's own coordinates all the
 * way: from the press at the marker to the release where the pen is lifted.
 */
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "epd_test.h"
#include "vellum_panel.h"
#include "vellum_run.h"
#include "vm_input.h"

#define PANEL_W  640
#define PANEL_H  480
#define MARKER_X 100
#define MARKER_Y 60
#define MARKER   16

static void
check_point(const char *line, const char *what, double want_x, double want_y)
{
	double x, y;
	char kind[16];

	if (!CHECK_MSG(sscanf(line, "%15s %lf %lf", kind, &x, &y) == 3, "%s: \"%s\"", what, line))
		return;
	printf("%s: surface point %.2f,%.2f (the marker's centre is %.0f,%.0f)\n", what, x, y,
		want_x, want_y);
	CHECK_MSG(fabs(x - want_x) <= 2 && fabs(y - want_y) <= 2,
		"%s reached the client at %.2f,%.2f, not at the marker's centre %.0f,%.0f", what, x,
		y, want_x, want_y);
}

static void
run_rotation(struct epd *d, int rotation, bool tablet, int touch, int pen)
{
	char rot[8], line[256], marker_x[16], marker_y[16];
	struct vellum_run run;
	struct vellum_box box;
	int width, height;

	epd_phase("rotation %d%s: the probe shows its window", rotation,
		tablet ? ", a client of tablet-v2" : "");
	snprintf(rot, sizeof(rot), "%d", rotation);
	/* a white panel and an empty trace: what follows is this run's */
	vellum_panel_clear(d);
	epd_trace_clear(d);
	snprintf(marker_x, sizeof(marker_x), "%d", MARKER_X);
	snprintf(marker_y, sizeof(marker_y), "%d", MARKER_Y);
	const char *args[] = {"-r", rot, "-d", d->devnode, "--", TOUCH_PROBE_BIN, marker_x,
		marker_y, "2", tablet ? "tablet" : NULL, NULL};
	vellum_start(&run, args, NULL);
	REQUIRE(vellum_expect(&run, "ready ", line, sizeof(line), 120));
	REQUIRE(sscanf(line, "ready %d %d", &width, &height) == 2);
	CHECK_EQ(width, rotation % 180 ? PANEL_H : PANEL_W);
	CHECK_EQ(height, rotation % 180 ? PANEL_W : PANEL_H);
	CHECK_MSG(strstr(line, " touch") && strstr(line, " pointer"),
		"the seat has no touch or no pointer: \"%s\"", line);
	CHECK_MSG(vellum_wait_full_update(d, 120), "the probe's window never reached the panel");
	if (!vellum_find_marker(d, MARKER, &box)) {
		vellum_stop(&run, SIGTERM, 30);
		return;
	}
	uint32_t px = box.x + MARKER / 2, py = box.y + MARKER / 2;
	printf("the marker is at panel pixels %u,%u %ux%u: touching %u,%u\n", box.x, box.y,
		box.width, box.height, px, py);

	epd_phase("rotation %d: a tap", rotation);
	vm_tap(touch, px, py);
	if (CHECK(vellum_expect(&run, "down ", line, sizeof(line), 60)))
		check_point(line, "the tap", MARKER_X, MARKER_Y);

	epd_phase("rotation %d: a pen press", rotation);
	vm_pen_click(pen, px, py);
	if (CHECK(vellum_expect(&run, tablet ? "tool-down " : "button ", line, sizeof(line), 60)))
		check_point(line, tablet ? "the pen as a tablet tool" : "the pen as the pointer",
			MARKER_X, MARKER_Y);

	/*
	 * the probe exits after its two events, and vellum with its status; a
	 * client of tablet-v2 that got the pen as the pointer too exits with 2
	 */
	CHECK_EQ(vellum_wait(&run, 60), 0);
}

#define DRAG_X 40
#define DRAG_Y 24

static void
run_pen_drag(struct epd *d, int pen)
{
	char line[256], marker_x[16], marker_y[16];
	struct vellum_run run;
	struct vellum_box box;

	epd_phase("a pen drag on a dialog, the pen as the pointer");
	vellum_panel_clear(d);
	epd_trace_clear(d);
	snprintf(marker_x, sizeof(marker_x), "%d", MARKER_X);
	snprintf(marker_y, sizeof(marker_y), "%d", MARKER_Y);
	/* the press and the release */
	const char *args[] = {
		"-d", d->devnode, "--", TOUCH_PROBE_BIN, marker_x, marker_y, "2", "dialog", NULL};
	vellum_start(&run, args, NULL);
	REQUIRE(vellum_expect(&run, "ready ", line, sizeof(line), 120));
	CHECK_MSG(vellum_wait_full_update(d, 120), "the probe's window never reached the panel");
	if (!vellum_find_marker(d, MARKER, &box)) {
		vellum_stop(&run, SIGTERM, 30);
		return;
	}
	uint32_t px = box.x + MARKER / 2, py = box.y + MARKER / 2;
	printf("the marker is at panel pixels %u,%u: the stroke goes from %u,%u by %d,%d\n", box.x,
		box.y, px, py, DRAG_X, DRAG_Y);
	CHECK_MSG(box.x > MARKER_X + MARKER && box.y > MARKER_Y + MARKER,
		"the dialog is not away from the panel's corner: its marker is at %u,%u", box.x,
		box.y);

	vm_pen_down(pen, px, py);
	if (CHECK(vellum_expect(&run, "button ", line, sizeof(line), 60)))
		check_point(line, "the pen's press", MARKER_X, MARKER_Y);
	for (int step = 1; step <= 4; step++)
		vm_pen_move(pen, px + DRAG_X * step / 4, py + DRAG_Y * step / 4);
	vm_pen_up(pen);
	if (CHECK(vellum_expect(&run, "release ", line, sizeof(line), 60)))
		check_point(line, "the pen's release at the stroke's end", MARKER_X + DRAG_X,
			MARKER_Y + DRAG_Y);
	CHECK_EQ(vellum_wait(&run, 60), 0);
}

int
main(void)
{
	struct epd dev, *d = &dev;

	epd_begin("vellum_touch", 560);
	vellum_panel_open(d, "width=640 height=480 bpp=8 time_scale=10");
	vm_input_setup();
	int touch = vm_uinput_touchscreen(PANEL_W, PANEL_H);
	int pen = vm_uinput_pen(PANEL_W, PANEL_H);
	vm_udev_settle();

	run_rotation(d, 0, false, touch, pen);
	run_rotation(d, 90, false, touch, pen);
	run_rotation(d, 0, true, touch, pen);
	run_rotation(d, 90, true, touch, pen);
	run_pen_drag(d, pen);

	vm_uinput_destroy(touch);
	vm_uinput_destroy(pen);
	epd_close(d);
	return epd_end();
}
