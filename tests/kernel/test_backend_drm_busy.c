// SPDX-License-Identifier: MIT
/*
 * The e-paper backend on epdrm when frames bring more updates than the
 * panel's queue holds: a slow panel (time_scale 100) and frame after frame
 * of small squares apart, each an update of its own (a square a row and a
 * column, too far apart for the merge stage to join them). The backend keeps
 * what it has in flight under the driver's depth and waits for room, so
 * the driver never refuses a commit with EBUSY, no update is reported
 * failed, and the panel ends showing every square.
 */
#include "epdrm_test.h"
#include "scene_harness.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/util/log.h>
#include <xf86drmMode.h>

#define W      1600
#define H      1200
#define SQUARE 8
#define FRAMES 12

/* Square i of frame: a diagonal of 16 per frame, each frame's beside the last. */
static void
square_at(int frame, int i, int *x, int *y)
{
	*x = i * 100 + (frame % 6) * 14;
	*y = i * 75 + (frame / 6) * 30;
}

static atomic_uint commits, busy_commits, errors_logged;

/*
 * The backend's atomic commits pass through here on their way to libdrm,
 * so that the test counts those the driver refused as busy.
 */
int
drmModeAtomicCommit(int fd, drmModeAtomicReqPtr req, uint32_t flags, void *user_data)
{
	static int (*real)(int, drmModeAtomicReqPtr, uint32_t, void *);

	if (!real)
		real = (int (*)(int, drmModeAtomicReqPtr, uint32_t, void *))dlsym(
			RTLD_NEXT, "drmModeAtomicCommit");
	int ret = real(fd, req, flags, user_data);
	atomic_fetch_add(&commits, 1);
	if (ret == -EBUSY)
		atomic_fetch_add(&busy_commits, 1);
	return ret;
}

/* Every error the backend logs is counted, and shown. */
static void
count_errors(enum wlr_log_importance importance, const char *fmt, va_list args)
{
	if (importance > WLR_ERROR)
		return;
	atomic_fetch_add(&errors_logged, 1);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
}

int
main(void)
{
	struct scene_harness harness, *h = &harness;
	struct vl_epd_feedback feedback;
	struct epdrm dev, *e = &dev;
	char device[sizeof(e->devnode) + 8], error[256];

	epd_begin("backend_drm_busy", 300);
	epdrm_load("width=1600 height=1200 time_scale=100");
	epdrm_open(e);
	epdrm_close(e);
	snprintf(device, sizeof(device), "drm:%.*s", (int)sizeof(e->devnode) - 1, e->devnode);
	REQUIRE_MSG(scene_harness_start(h, device, error, sizeof(error)), "backend on %s: %s",
		device, error);
	wlr_log_init(WLR_ERROR, count_errors);

	epd_phase("a white panel");
	scene_harness_rect(h, 0, 0, W, H, 0xff);
	REQUIRE(scene_harness_show(h, &feedback));
	REQUIRE(epdrm_wait_idle(e));
	atomic_store(&commits, 0);

	epd_phase(
		"%d frames of 16 squares apart: more updates than the panel's queue holds", FRAMES);
	for (int frame = 0; frame < FRAMES; frame++) {
		for (int i = 0; i < 16; i++) {
			int x, y;
			square_at(frame, i, &x, &y);
			scene_harness_rect(h, x, y, SQUARE, SQUARE, 0);
		}
		if (frame < FRAMES - 1)
			REQUIRE(scene_harness_commit(h));
	}
	/* the last frame shows every square */
	REQUIRE(scene_harness_show(h, &feedback));
	CHECK(feedback.settled);
	REQUIRE(epdrm_wait_idle(e));
	unsigned int n_commits = atomic_load(&commits), n_busy = atomic_load(&busy_commits);
	unsigned int n_errors = atomic_load(&errors_logged);
	printf("%u atomic commits, %u refused as busy, %u errors logged\n", n_commits, n_busy,
		n_errors);
	CHECK_EQ(n_busy, 0);
	CHECK_EQ(n_errors, 0);

	uint8_t *panel = epd_alloc_image(&e->panel);
	epd_read_panel(&e->panel, panel);
	for (int frame = 0; frame < FRAMES; frame++) {
		for (int i = 0; i < 16; i++) {
			int x, y;
			square_at(frame, i, &x, &y);
			uint8_t v = panel[(size_t)(y + SQUARE / 2) * W + x + SQUARE / 2];
			CHECK_MSG(v < 0x20, "square %d of frame %d at %d,%d shows %u", i, frame, x,
				y, v);
		}
	}
	free(panel);

	scene_harness_finish(h);
	int rc = -EAGAIN;
	for (int i = 0; i < 100 && rc == -EAGAIN; i++) {
		rc = epdrm_try_unload();
		if (rc == -EAGAIN)
			epd_sleep_ms(100);
	}
	CHECK_RC(rc, 0);
	return epd_end();
}
