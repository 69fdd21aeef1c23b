// SPDX-License-Identifier: MIT
/*
 * A layer surface that takes the keyboard on demand keeps it when its own
 * popup is touched, and gives it back to the window when the window is:
 * a uinput touchscreen taps layer_probe's bar, then the bar's popup, then
 * probe_client's window, and layer_probe reports where its keyboard focus
 * and the touches went, in the order they came.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "epd_test.h"
#include "vellum_run.h"
#include "vm_input.h"

#define PANEL_W 640
#define PANEL_H 480
#define BAR     80
/* layer_probe's popup: 60x40 above the bar's top edge, 20 px from the left */
#define POPUP_X (20 + 30)
#define POPUP_Y (PANEL_H - BAR - 20)

/* The next line of layer_probe's reports is want. */
static void
expect_layer(struct vellum_run *run, const char *step, const char *want)
{
	char line[256];

	if (CHECK_MSG(vellum_expect(run, "layer ", line, sizeof(line), 60),
		    "%s: no report, \"%s\" expected", step, want))
		CHECK_MSG(!strcmp(line, want), "%s: \"%s\", not \"%s\"", step, line, want);
}

int
main(void)
{
	struct epd dev, *d = &dev;
	struct vellum_run run;
	char bar[16], line[256];

	epd_begin("vellum_layer", 300);
	epd_open(d, "width=640 height=480 bpp=8 time_scale=10");
	vm_input_setup();
	int touch = vm_uinput_touchscreen(PANEL_W, PANEL_H);
	vm_udev_settle();
	epd_clear(d);
	epd_trace_clear(d);

	epd_phase("a window, and a bar that takes the keyboard on demand, with a popup");
	snprintf(bar, sizeof(bar), "%d", BAR);
	/* the programs' paths as arguments: a checkout's path has no length limit */
	const char *args[] = {"-d", d->devnode, "--", "sh", "-c",
		"\"$0\" resize & exec \"$1\" \"$2\" 120 ondemand", PROBE_CLIENT_BIN,
		LAYER_PROBE_BIN, bar, NULL};
	vellum_start(&run, args, NULL);
	REQUIRE(vellum_expect(&run, "seat touch ", line, sizeof(line), 120));
	REQUIRE_MSG(!strcmp(line, "seat touch yes"), "the seat has no touch: the taps cannot come");
	REQUIRE(vellum_expect(&run, "layer shown ", line, sizeof(line), 120));
	CHECK_MSG(vellum_wait_full_update(d, 120), "the window never reached the panel");

	epd_phase("the bar touched: it gets the keyboard");
	vm_tap(touch, PANEL_W / 2, PANEL_H - BAR / 2);
	expect_layer(&run, "the bar touched", "layer keyboard enter");
	expect_layer(&run, "the bar touched", "layer touch bar");

	epd_phase("its popup touched: the bar keeps the keyboard");
	vm_tap(touch, POPUP_X, POPUP_Y);
	expect_layer(&run, "the popup touched", "layer touch popup");

	epd_phase("the window touched: the keyboard goes back to it");
	vm_tap(touch, PANEL_W / 2, (PANEL_H - BAR) / 2);
	expect_layer(&run, "the window touched", "layer keyboard leave");

	vellum_stop(&run, SIGTERM, 30);
	vm_uinput_destroy(touch);
	epd_close(d);
	return epd_end();
}
