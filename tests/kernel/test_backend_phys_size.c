// SPDX-License-Identifier: MIT
/*
 * The panel's physical size: epdfb's width_mm and height_mm parameters
 * reach fb_var_screeninfo's width and height (-1 when 0, unknown; an
 * absurd size is refused at insmod), stay through FBIOPUT_VSCREENINFO, and
 * the e-paper backend puts them on its wlr_output for the compositor's
 * default scale.
 */
#include "epd_test.h"
#include "scene_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fb.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct epd dev;

/* Loads with params; checks the var's and the backend's physical size. */
static void
check_size(const char *params, uint32_t var_width, uint32_t var_height, int32_t phys_width,
	int32_t phys_height)
{
	struct scene_harness harness, *h = &harness;
	struct fb_var_screeninfo var;
	struct epd *d = &dev;
	char error[256];

	epd_phase("%s", params);
	epd_open(d, params);
	REQUIRE_RC(ioctl(d->fd, FBIOGET_VSCREENINFO, &var), 0);
	CHECK_EQ(var.width, var_width);
	CHECK_EQ(var.height, var_height);
	/* a mode set (the same mode) leaves the size alone */
	REQUIRE_RC(ioctl(d->fd, FBIOPUT_VSCREENINFO, &var), 0);
	REQUIRE_RC(ioctl(d->fd, FBIOGET_VSCREENINFO, &var), 0);
	CHECK_EQ(var.width, var_width);
	CHECK_EQ(var.height, var_height);

	REQUIRE_MSG(scene_harness_start(h, d->devnode, error, sizeof(error)), "backend: %s", error);
	CHECK_EQ(h->output->phys_width, phys_width);
	CHECK_EQ(h->output->phys_height, phys_height);
	scene_harness_finish(h);
	epd_close(d);
	/* the backend's last close may come a moment after it is gone */
	int rc = -EAGAIN;
	for (int i = 0; i < 50 && rc == -EAGAIN; i++) {
		rc = epd_try_unload();
		if (rc == -EAGAIN)
			epd_sleep_ms(100);
	}
	CHECK_EQ(rc, 0);
}

/* insmod with params fails with EINVAL and leaves no module. */
static void
check_refused(const char *params)
{
	const char *ko = getenv("EPDFB_KO");
	int fd;

	epd_phase("refused: %s", params);
	epd_try_unload();
	epd_load_panel_model();
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	errno = 0;
	CHECK_EQ(syscall(SYS_finit_module, fd, params, 0), -1);
	CHECK_EQ(errno, EINVAL);
	close(fd);
	CHECK(!epd_module_loaded());
}

int
main(void)
{
	epd_begin("backend_phys_size", 240);
	/* the default panel, 10.3" at 4:3 */
	check_size("time_scale=10", 209, 157, 209, 157);
	check_size(
		"width=640 height=480 width_mm=130 height_mm=97 time_scale=10", 130, 97, 130, 97);
	check_size("width=640 height=480 width_mm=0 height_mm=0 time_scale=10", UINT32_MAX,
		UINT32_MAX, 0, 0);
	check_refused("width_mm=10001");
	check_refused("height_mm=4294967295");
	return epd_end();
}
