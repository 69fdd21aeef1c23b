// SPDX-License-Identifier: MIT
/*
 * epdrm's settle fences, how long they live: a fence fd keeps the module
 * loaded: rmmod is refused while one is open, and the fd can still be read
 * and closed.
 */
#include <errno.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <xf86drm.h>

#include "epdrm_test.h"

/* The status of a settle fence once signaled: 1, or -errno; 0 if it never did. */
static int
fence_status(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	struct sync_file_info info = {0};

	if (poll(&pfd, 1, 10000) != 1)
		return 0;
	REQUIRE_OK(ioctl(fd, SYNC_IOC_FILE_INFO, &info));
	return info.status;
}

/* A commit of these clips with DU and a settle fence; its fd. */
static int
commit_clips(
	struct epdrm *e, struct epdrm_fb *fb, const struct drm_mode_rect *clips, unsigned int n)
{
	int fd = -2;

	REQUIRE_RC(epdrm_commit(e, &(struct epdrm_commit){.fb = fb,
					   .clips = clips,
					   .n_clips = n,
					   .waveform = epdrm_waveform_value(e, "DU"),
					   .full = 0,
					   .settle_fd = &fd}),
		0);
	REQUIRE_MSG(fd >= 0, "no settle fence fd: %d", fd);
	return fd;
}

/* Removes the module, waiting for what lets go of it a moment after its last close. */
static int
unload_within(unsigned int ms)
{
	uint64_t start = epd_now_ns();
	int rc;

	while ((rc = epdrm_try_unload()) == -EWOULDBLOCK && epd_ms_since(start) < ms)
		epd_sleep_ms(10);
	return rc;
}

static void
check_fence_outlives_device(void)
{
	struct epdrm dev, *e = &dev;
	struct epdrm_fb fb;
	struct sync_file_info info = {0};
	int fd;

	epd_phase("a settle fence fd keeps the module: rmmod is refused until it is closed");
	epdrm_load("width=320 height=240 time_scale=10");
	epdrm_open(e);
	epdrm_fb_create(e, &fb, DRM_FORMAT_R8);
	fd = commit_clips(e, &fb, &(struct drm_mode_rect){0, 0, 8, 8}, 1);
	CHECK_RC(fence_status(fd), 1);
	REQUIRE(epdrm_wait_idle(e));
	epdrm_fb_destroy(e, &fb);
	epdrm_close(e);
	/* the card is closed: only the fence is left */
	CHECK_RC(unload_within(0), -EWOULDBLOCK);
	/* the fence's names and status come from the driver */
	CHECK_OK(ioctl(fd, SYNC_IOC_FILE_INFO, &info));
	CHECK_EQ(info.status, 1);
	CHECK_MSG(strstr(info.name, "epdrm") != NULL, "fence name %s", info.name);
	close(fd);
	CHECK_RC(unload_within(5000), 0);
}

int
main(void)
{
	epd_begin("epdrm_fences", 120);
	check_fence_outlives_device();
	return epd_end();
}
