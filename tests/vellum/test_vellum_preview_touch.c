// SPDX-License-Identifier: MIT
/*
 * Touch in the preview's window reaches the application at the surface
 * point under the finger, with the preview turned by 0 and 90 degrees.
 *
 * The desktop is vellum on the memory panel, with a uinput touchscreen
 * spanning it; the preview's window fills it, showing the panel scaled to
 * fit and centred, and runs touch_probe. A tap on the window where it shows
 * a point of touch_probe's surface must reach touch_probe at that point; a
 * tap on the margin beside the panel must reach nothing.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "epd_test.h"
#include "vellum_run.h"
#include "vm_input.h"

#define PANEL_W 640
#define PANEL_H 480

/*
 * A tap on a desktop of desktop_w x desktop_h, where the window fills it:
 * at the point of the window that shows surface point x, y of the
 * application, the panel (turned by rotation) scaled to fit and centred.
 * Where the window has a margin beside the panel, a tap on the margin's
 * middle comes first, which must touch nothing.
 */
static void
tap_at(int rotation, uint32_t desktop_w, uint32_t desktop_h, double x, double y)
{
	double width = rotation % 180 ? PANEL_H : PANEL_W;
	double height = rotation % 180 ? PANEL_W : PANEL_H;
	double scale = fmin(desktop_w / width, desktop_h / height);
	uint32_t tap_x = (uint32_t)lround((desktop_w - width * scale) / 2 + x * scale);
	uint32_t tap_y = (uint32_t)lround((desktop_h - height * scale) / 2 + y * scale);
	char *preview, desktop_size[32], line[256];
	struct vellum_run run;
	double got_x, got_y;

	epd_phase("rotation %d, a %ux%u desktop: a tap at %u,%u on surface point %.0f,%.0f",
		rotation, desktop_w, desktop_h, tap_x, tap_y, x, y);
	int touch = vm_uinput_touchscreen(desktop_w, desktop_h);
	vm_udev_settle();
	REQUIRE(asprintf(&preview,
			"exec %s --no-xwayland -d preview:%ux%u -r %d --time-scale 10 -- %s 20 20 "
			"1",
			VELLUM_BIN, PANEL_W, PANEL_H, rotation, TOUCH_PROBE_BIN) >= 0);
	snprintf(desktop_size, sizeof(desktop_size), "memory:%ux%u", desktop_w, desktop_h);
	const char *args[] = {"--no-xwayland", "-d", desktop_size, "--", "sh", "-c", preview, NULL};
	vellum_start(&run, args, NULL);
	REQUIRE(vellum_expect(&run, "ready ", line, sizeof(line), 120));
	CHECK_MSG(strstr(line, " touch"), "the preview's seat has no touch: \"%s\"", line);

	uint32_t margin = (uint32_t)lround((desktop_w - width * scale) / 2);
	if (margin >= 2) {
		printf("a tap on the margin at %u,%u first\n", margin / 2, desktop_h / 2);
		vm_tap(touch, margin / 2, desktop_h / 2);
	}
	vm_tap(touch, tap_x, tap_y);
	if (CHECK(vellum_expect(&run, "down ", line, sizeof(line), 60)) &&
		CHECK_MSG(sscanf(line, "down %lf %lf", &got_x, &got_y) == 2, "\"%s\"", line))
		CHECK_MSG(fabs(got_x - x) <= 1 && fabs(got_y - y) <= 1,
			"the tap reached the client at %.2f,%.2f, not at %.0f,%.0f", got_x, got_y,
			x, y);
	/* touch_probe exits after its event, the preview with it, the desktop after */
	CHECK_EQ(vellum_wait(&run, 60), 0);
	vm_uinput_destroy(touch);
	free(preview);
}

int
main(void)
{
	epd_begin("vellum_preview_touch", 300);
	vm_input_setup();
	/* the window scaled by 1.25 beside margins, exactly the panel, and beside a margin */
	tap_at(0, 960, 600, 160, 360);
	tap_at(90, 480, 640, 120, 600);
	tap_at(90, 600, 640, 400, 50);
	return epd_end();
}
