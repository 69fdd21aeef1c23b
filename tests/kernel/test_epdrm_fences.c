// SPDX-License-Identifier: MIT
/*
 * epdrm's settle fences, what they carry and how long they live: a fence
 * signals with an error when any update of its commit failed, not only the
 * last to complete; so it does when its updates completed before it was
 * armed, and when its commit came after the device was unplugged and
 * showed nothing. A fence fd keeps the module loaded: rmmod is refused
 * while one is open, and the fd can still be read and closed.
 */
#include <errno.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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

static void
check_failed_updates(struct epdrm *e, struct epdrm_fb *fb)
{
	static const struct drm_mode_rect two[2] = {{0, 0, 16, 16}, {100, 100, 116, 116}};
	int fd, status;

	epd_phase("two clips, both shown: the fence signals success");
	epdrm_fb_fill(fb, 0, 0, 16, 16, 0x00);
	epdrm_fb_fill(fb, 100, 100, 16, 16, 0x00);
	fd = commit_clips(e, fb, two, 2);
	CHECK_RC(fence_status(fd), 1);
	close(fd);
	REQUIRE(epdrm_wait_idle(e));

	epd_phase("two clips, the first fails: the fence carries EIO");
	epdrm_fb_fill(fb, 0, 0, 16, 16, 0xff);
	epdrm_fb_fill(fb, 100, 100, 16, 16, 0xff);
	epd_inject(&e->panel, "inject_update_errors", 1);
	fd = commit_clips(e, fb, two, 2);
	CHECK_RC(fence_status(fd), -EIO);
	close(fd);
	REQUIRE(epdrm_wait_idle(e));
	CHECK_EQ(epd_injected_left(&e->panel, "inject_update_errors"), 0);

	/*
	 * A failed update ends when it starts: its completion may come
	 * before the commit arms its fence. Either way the fence fails.
	 */
	epd_phase("one clip that fails, again and again: each fence carries EIO");
	for (int i = 0; i < 16; i++) {
		struct drm_mode_rect clip = {i * 16, 200, i * 16 + 8, 208};

		/* pixels the panel lacks: a commit of what it has drives nothing */
		epdrm_fb_fill(fb, (uint32_t)i * 16, 200, 8, 8, i & 1 ? 0x40 : 0x00);
		epd_inject(&e->panel, "inject_update_errors", 1);
		fd = commit_clips(e, fb, &clip, 1);
		status = fence_status(fd);
		CHECK_MSG(status == -EIO, "commit %d: fence status %d, not -EIO", i, status);
		close(fd);
		REQUIRE(epdrm_wait_idle(e));
	}
}

/*
 * A nonblocking commit that waits for another commit's settle fence is
 * committed after the unbind has unplugged the device: it shows nothing,
 * and its fence must say so.
 */
static void
check_commit_after_unplug(struct epdrm *e, struct epdrm_fb *fb)
{
	static const struct drm_mode_rect init_clip = {0, 100, 40, 140};
	static const struct drm_mode_rect clip = {200, 10, 240, 50};
	int first = -2, second = -2;

	epd_phase("a commit made after the device was unplugged: its fence carries ENODEV");
	epdrm_fb_fill(fb, 0, 100, 40, 40, 0x00);
	/* INIT: 200 ms at time_scale 10, long enough to unbind meanwhile */
	REQUIRE_RC(epdrm_commit(e, &(struct epdrm_commit){.fb = fb,
					   .clips = &init_clip,
					   .n_clips = 1,
					   .waveform = epdrm_waveform_value(e, "INIT"),
					   .full = 0,
					   .settle_fd = &first}),
		0);
	REQUIRE(first >= 0);
	epdrm_fb_fill(fb, 200, 10, 40, 40, 0x00);
	REQUIRE_RC(epdrm_commit(e, &(struct epdrm_commit){.fb = fb,
					   .clips = &clip,
					   .n_clips = 1,
					   .waveform = epdrm_waveform_value(e, "DU"),
					   .full = 0,
					   .flags = DRM_MODE_ATOMIC_NONBLOCK,
					   .settle_fd = &second,
					   .in_fence = &first}),
		0);
	REQUIRE(second >= 0);
	/* the unbind waits for the second commit, which waits for the first's fence */
	CHECK_RC(epd_write_file(EPDRM_UNBIND_PATH, EPDRM_DEV_NAME), 0);
	CHECK_RC(fence_status(first), 1);
	CHECK_RC(fence_status(second), -ENODEV);
	close(first);
	close(second);
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
	struct epdrm dev, *e = &dev;
	struct epdrm_fb fb;

	epd_begin("epdrm_fences", 120);
	epdrm_load("width=320 height=240 time_scale=10");
	epdrm_open(e);
	epdrm_fb_create(e, &fb, DRM_FORMAT_R8);
	REQUIRE_RC(
		epdrm_commit(e, &(struct epdrm_commit){.fb = &fb, .waveform = -1, .full = -1}), 0);
	REQUIRE(epdrm_wait_idle(e));

	check_failed_updates(e, &fb);
	check_commit_after_unplug(e, &fb);
	munmap(fb.map, fb.size);
	epdrm_close(e);
	CHECK_RC(unload_within(5000), 0);

	check_fence_outlives_device();
	return epd_end();
}
