// SPDX-License-Identifier: MIT
/*
 * The e-paper backend refuses what it cannot drive with a clear message and
 * no crash: a missing device, a device that is not a framebuffer, a
 * framebuffer of an unsupported depth (vfb switched to 16 bpp), a malformed
 * device specification, the mxc_epdc_fb interface or a waveform map asked of
 * a framebuffer without update ioctls (vfb), a malformed waveform map, an
 * IT8951 board that is not there or not a SCSI generic node.
 */
#include "epd_test.h"
#include "scene_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vellum/epd-backend.h>
#include <wayland-server-core.h>

static void
expect_refused_with_map(
	struct wl_event_loop *loop, const char *device, const char *map, const char *message)
{
	struct vl_epd_backend_options options = {.device = device, .waveform_map = map};
	char error[256] = "";
	struct wlr_backend *backend = vl_epd_backend_create(loop, &options, error, sizeof(error));

	CHECK_MSG(backend == NULL, "%s: the backend was created", device);
	CHECK_MSG(strstr(error, message), "%s: error \"%s\" does not say \"%s\"", device, error,
		message);
	printf("%s: %s\n", device, error);
	if (backend)
		wlr_backend_destroy(backend);
}

static void
expect_refused(struct wl_event_loop *loop, const char *device, const char *message)
{
	expect_refused_with_map(loop, device, NULL, message);
}

int
main(void)
{
	struct wl_display *display;
	char vfb[32], spec[64];

	epd_begin("backend_errors", 120);
	display = wl_display_create();
	struct wl_event_loop *loop = wl_display_get_event_loop(display);

	epd_phase("missing and wrong devices");
	expect_refused(loop, "/dev/fb29", "cannot open /dev/fb29");
	expect_refused(loop, "/dev/null", "not a framebuffer");
	expect_refused(loop, "/etc/hostname", "not a framebuffer");
	expect_refused(loop, "memory:0x10", "out of range");
	expect_refused(loop, "memory:wide", "expected memory:WIDTHxHEIGHT");
	expect_refused(loop, "it8951:/dev/sg99", "/dev/sg99: No such file");
	expect_refused(loop, "it8951:/dev/null", "not a SCSI generic node");

	epd_phase("no e-paper framebuffer for auto");
	epd_try_unload();
	expect_refused(loop, "auto", "no e-paper framebuffer");

	epd_phase("a malformed waveform map");
	expect_refused_with_map(loop, "memory:400x300", "du=1,reagl=6", "unknown waveform");
	expect_refused_with_map(loop, "memory:400x300", "gc16=two", "must be a number");

	epd_phase("a framebuffer without update ioctls");
	REQUIRE_MSG(scene_harness_vfb(vfb, sizeof(vfb), 8, 0, 0), "cannot set up vfb at 8 bpp");
	snprintf(spec, sizeof(spec), "mxc:%s", vfb);
	expect_refused(loop, spec, "does not take the mxc_epdc_fb update ioctls");
	expect_refused_with_map(loop, vfb, "du=1,gc16=2", "a waveform map cannot apply");

	epd_phase("unsupported depth");
	REQUIRE_MSG(scene_harness_vfb(vfb, sizeof(vfb), 16, 0, 0), "cannot set up vfb at 16 bpp");
	expect_refused(loop, vfb, "16 bits per pixel");
	CHECK_EQ(system("rmmod vfb"), 0);

	wl_display_destroy(display);
	return epd_end();
}
