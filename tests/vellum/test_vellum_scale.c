// SPDX-License-Identifier: MIT
/*
 * Output scale from the panel's size, end to end: epdfb told it is a
 * 85x64 mm panel of 640x480 pixels (191 dpi) gives vellum a default scale
 * of 2, so a client is configured to 320x240 logical pixels (240x320
 * rotated 90), its marker of 16 logical pixels takes 32 on the panel, and a
 * tap or pen press on the marker reaches the client at the marker's
 * surface point, through the rotation and the scale.
 */
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "epd_test.h"
#include "vellum_run.h"
#include "vm_input.h"

#define PANEL_W  640
#define PANEL_H  480
#define SCALE    2
#define MARKER_X 100
#define MARKER_Y 60
#define MARKER   16 /* logical pixels */

static void
check_point(const char *line, const char *what)
{
	double x, y;
	char kind[16];

	if (!CHECK_MSG(sscanf(line, "%15s %lf %lf", kind, &x, &y) == 3, "%s: \"%s\"", what, line))
		return;
	printf("%s: surface point %.2f,%.2f\n", what, x, y);
	CHECK_MSG(fabs(x - MARKER_X) <= 2 && fabs(y - MARKER_Y) <= 2,
		"%s reached the client at %.2f,%.2f, not at the marker's centre %d,%d", what, x, y,
		MARKER_X, MARKER_Y);
}

static void
run_rotation(struct epd *d, int rotation, int touch, int pen)
{
	char rot[8], line[256], x[16], y[16];
	struct vellum_run run;
	struct vellum_box box;
	int width, height;

	epd_phase("rotation %d: the probe's window at scale %d", rotation, SCALE);
	snprintf(rot, sizeof(rot), "%d", rotation);
	epd_clear(d);
	epd_trace_clear(d);
	snprintf(x, sizeof(x), "%d", MARKER_X);
	snprintf(y, sizeof(y), "%d", MARKER_Y);
	const char *args[] = {"-r", rot, "-d", d->devnode, "--", TOUCH_PROBE_BIN, x, y, "2", NULL};
	vellum_start(&run, args, NULL);
	REQUIRE(vellum_expect(&run, "ready ", line, sizeof(line), 120));
	REQUIRE(sscanf(line, "ready %d %d", &width, &height) == 2);
	CHECK_EQ(width, (rotation % 180 ? PANEL_H : PANEL_W) / SCALE);
	CHECK_EQ(height, (rotation % 180 ? PANEL_W : PANEL_H) / SCALE);
	CHECK_MSG(vellum_wait_full_update(d, 120), "the probe's window never reached the panel");
	if (!CHECK_MSG(vellum_find_marker(d, MARKER * SCALE, &box), "no %dx%d marker on the panel",
		    MARKER * SCALE, MARKER * SCALE)) {
		vellum_stop(&run, SIGTERM, 30);
		return;
	}
	uint32_t px = box.x + MARKER * SCALE / 2, py = box.y + MARKER * SCALE / 2;
	printf("the marker is at panel pixels %u,%u %ux%u: touching %u,%u\n", box.x, box.y,
		box.width, box.height, px, py);

	epd_phase("rotation %d: a tap and a pen press on the marker", rotation);
	vm_tap(touch, px, py);
	if (CHECK(vellum_expect(&run, "down ", line, sizeof(line), 60)))
		check_point(line, "the tap");
	vm_pen_click(pen, px, py);
	if (CHECK(vellum_expect(&run, "button ", line, sizeof(line), 60)))
		check_point(line, "the pen");
	CHECK_EQ(vellum_wait(&run, 60), 0);
}

int
main(void)
{
	struct epd dev, *d = &dev;

	epd_begin("vellum_scale", 400);
	epd_open(d, "width=640 height=480 width_mm=85 height_mm=64 bpp=8 time_scale=10");
	vm_input_setup();
	int touch = vm_uinput_touchscreen(PANEL_W, PANEL_H);
	int pen = vm_uinput_pen(PANEL_W, PANEL_H);
	vm_udev_settle();

	run_rotation(d, 0, touch, pen);
	run_rotation(d, 90, touch, pen);

	vm_uinput_destroy(touch);
	vm_uinput_destroy(pen);
	epd_close(d);
	return epd_end();
}
