// SPDX-License-Identifier: MIT
/*
 * epdfb's panel model in a process (panel-model/): the driver's queue and
 * simulation, run on the kernel shim's threads and clock. A DU update shows
 * two levels exactly in its rect and takes its waveform's time; a GC16 one
 * shows 16 levels; bad requests get the driver's errors and change
 * nothing; an update that changes pixels another is driving collides on
 * those pixels only, which wait, and the next one that touches it merges
 * into the queued one; a DU's or A2's pixels are retargeted by an A2 at
 * once, with a ghost for the cut-off push; DU toggles leave a ghost that a flash clears; frames
 * of updates in flight show a flash going black and white, DU switching
 * halfway and GL16 fading; a model cancelled with updates in flight ends
 * its waits with ENODEV. Its submitted fd wakes a reader for each accepted
 * update, and it is busy until they completed.
 * Runs under ASan and UBSan too.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cmocka.h>

#include "panel-model.h"

#define W 200
#define H 100
/* waveform durations at time_scale 100 (kernel/epdfb_sim.c) */
#define DU_MS   260
#define GC16_MS 450

static struct vl_panel_model *
create(unsigned int time_scale)
{
	char error[128];
	struct vl_panel_model *model =
		vl_panel_model_create(W, H, time_scale, error, sizeof(error));

	assert_non_null(model);
	return model;
}

static void
fill(struct vl_panel_model *model, uint32_t left, uint32_t top, uint32_t width, uint32_t height,
	uint8_t gray)
{
	uint8_t *pixels = vl_panel_model_pixels(model);

	for (uint32_t y = top; y < top + height; y++)
		memset(pixels + (size_t)y * W + left, gray, width);
}

static int
submit(struct vl_panel_model *model, uint32_t left, uint32_t top, uint32_t width, uint32_t height,
	uint32_t waveform, uint32_t mode, uint32_t marker)
{
	struct mxcfb_update_data update = {
		.update_region = {.top = top, .left = left, .width = width, .height = height},
		.waveform_mode = waveform,
		.update_mode = mode,
		.update_marker = marker,
		.temp = TEMP_USE_AMBIENT,
	};
	return vl_panel_model_submit(model, &update);
}

/* Pixels of the rect whose level is in [lo, hi]. */
static size_t
count_levels(const uint8_t *panel, uint32_t left, uint32_t top, uint32_t width, uint32_t height,
	uint8_t lo, uint8_t hi)
{
	size_t n = 0;

	for (uint32_t y = top; y < top + height; y++)
		for (uint32_t x = left; x < left + width; x++)
			n += panel[(size_t)y * W + x] >= lo && panel[(size_t)y * W + x] <= hi;
	return n;
}

static void
test_bad_sizes(void **state)
{
	char error[128] = "";
	(void)state;

	assert_null(vl_panel_model_create(0, 100, 100, error, sizeof(error)));
	assert_non_null(strstr(error, "out of range"));
	assert_null(vl_panel_model_create(100, 16385, 100, error, sizeof(error)));
	error[0] = '\0';
	assert_null(vl_panel_model_create(100, 100, 0, error, sizeof(error)));
	assert_non_null(strstr(error, "time scale 0"));
}

static void
test_du_update(void **state)
{
	struct vl_panel_model *model = create(10);
	struct vl_panel_model_trace trace[4];
	static uint8_t panel[W * H];
	uint32_t collided = 7;
	(void)state;

	/* dark gray: DU, two levels, shows it black */
	fill(model, 20, 10, 30, 20, 0x30);
	assert_int_equal(
		submit(model, 20, 10, 30, 20, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, 5), 0);
	assert_int_equal(vl_panel_model_wait(model, 5, &collided), 0);
	assert_int_equal(collided, 0);
	vl_panel_model_read(model, panel);
	/* black, but for the ghost of the white it was (DU's gain: 16/256 of it) */
	assert_int_equal(count_levels(panel, 20, 10, 30, 20, 0, 255 * 16 / 256), 30 * 20);
	assert_int_equal(count_levels(panel, 0, 0, W, H, 0xff, 0xff), W * H - 30 * 20);

	assert_int_equal(vl_panel_model_trace(model, trace, 4), 1);
	assert_int_equal(trace[0].marker, 5);
	assert_int_equal(trace[0].waveform, WAVEFORM_MODE_DU);
	assert_int_equal(trace[0].rect.left, 20);
	assert_int_equal(trace[0].rect.width, 30);
	assert_false(trace[0].flashing);
	/* the waveform's time, scaled by 10 % */
	assert_int_equal(trace[0].end_ns - trace[0].start_ns, DU_MS * 1000000ULL / 10);
	assert_string_equal(vl_panel_model_waveform_name(trace[0].waveform), "DU");
	/* the debugfs file's line, by the driver's code */
	char *text = vl_panel_model_trace_text(model);
	assert_non_null(text);
	assert_int_equal(strncmp(text, "marker=5 submit_ns=", 19), 0);
	assert_non_null(strstr(text, " left=20 top=10 width=30 height=20 waveform=DU mode=partial "
				     "flags=0x0 merged=0 collided=0 flash=0\n"));
	assert_int_equal(strchr(text, '\n')[1], '\0');
	free(text);
	vl_panel_model_destroy(model);
}

static void
test_gc16_levels(void **state)
{
	struct vl_panel_model *model = create(10);
	static uint8_t panel[W * H];
	(void)state;

	/* a ramp: GC16 shows it in 16 levels */
	for (uint32_t x = 0; x < W; x++)
		for (uint32_t y = 0; y < H; y++)
			vl_panel_model_pixels(model)[(size_t)y * W + x] =
				(uint8_t)(x * 255 / (W - 1));
	assert_int_equal(submit(model, 0, 0, W, H, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 1), 0);
	assert_int_equal(vl_panel_model_wait(model, 1, NULL), 0);
	vl_panel_model_read(model, panel);
	bool seen[256] = {false};
	size_t levels = 0;
	for (size_t i = 0; i < (size_t)W * H; i++) {
		levels += !seen[panel[i]];
		seen[panel[i]] = true;
	}
	assert_int_equal(levels, 16);
	vl_panel_model_destroy(model);
}

static void
test_bad_requests(void **state)
{
	struct vl_panel_model *model = create(10);
	struct vl_panel_model_trace trace[1];
	static uint8_t panel[W * H];
	struct mxcfb_update_data alt = {
		.update_region = {.width = 10, .height = 10},
		.waveform_mode = WAVEFORM_MODE_DU,
		.flags = EPDC_FLAG_USE_ALT_BUFFER,
		.temp = TEMP_USE_AMBIENT,
	};
	(void)state;

	fill(model, 0, 0, W, H, 0);
	assert_int_equal(
		submit(model, 190, 0, 20, 10, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, 1), -EINVAL);
	assert_int_equal(
		submit(model, 0, 0, 0, 10, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, 2), -EINVAL);
	assert_int_equal(submit(model, 0, 0, 10, 10, 99, UPDATE_MODE_PARTIAL, 3), -EINVAL);
	assert_int_equal(submit(model, 0, 0, 10, 10, WAVEFORM_MODE_DU, 7, 4), -EINVAL);
	assert_int_equal(vl_panel_model_submit(model, &alt), -EPERM);
	assert_int_equal(vl_panel_model_wait_submitted(model), 0);
	assert_int_equal(vl_panel_model_trace(model, trace, 1), 0);
	vl_panel_model_read(model, panel);
	assert_int_equal(count_levels(panel, 0, 0, W, H, 0xff, 0xff), W * H);
	vl_panel_model_destroy(model);
}

static bool
readable(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN);
}

/*
 * A reader sleeps while the panel rests: the submitted fd wakes it for an
 * accepted update only, and the model is busy until that update completed.
 */
static void
test_submissions_wake(void **state)
{
	struct vl_panel_model *model = create(10);
	int fd = vl_panel_model_submitted_fd(model);
	eventfd_t count;
	(void)state;

	assert_false(readable(fd));
	assert_false(vl_panel_model_busy(model));
	assert_int_equal(
		submit(model, 0, 0, 0, 10, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, 1), -EINVAL);
	assert_false(readable(fd));
	assert_false(vl_panel_model_busy(model));

	fill(model, 0, 0, 10, 10, 0);
	assert_int_equal(submit(model, 0, 0, 10, 10, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, 2), 0);
	assert_int_equal(submit(model, 50, 0, 10, 10, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, 3), 0);
	assert_true(readable(fd));
	assert_true(vl_panel_model_busy(model));
	assert_int_equal(eventfd_read(fd, &count), 0);
	assert_int_equal(count, 2);
	assert_false(readable(fd));
	assert_int_equal(vl_panel_model_wait(model, 2, NULL), 0);
	assert_int_equal(vl_panel_model_wait(model, 3, NULL), 0);
	assert_false(vl_panel_model_busy(model));
	assert_false(readable(fd));
	vl_panel_model_destroy(model);
}

/*
 * At a slow time scale the first update is still in flight when the others
 * come. The one over it that changes its pixels again collides: it starts
 * at once, and its pixels are driven once the first ended, by its
 * resubmission queued in its place; its trace line is the resubmission's.
 * The next one over it waits behind that resubmission, and the one beside
 * that one merges into it, both markers completing with the merged update.
 */
static void
test_collide_and_merge(void **state)
{
	/* 2.25 s and 1.3 s: the waits end within their 5 s */
	struct vl_panel_model *model = create(500);
	struct vl_panel_model_trace trace[5];
	uint32_t collided = 0;
	(void)state;

	fill(model, 0, 0, 100, 100, 0);
	assert_int_equal(
		submit(model, 0, 0, 100, 100, WAVEFORM_MODE_GC16, UPDATE_MODE_PARTIAL, 1), 0);
	fill(model, 0, 0, 100, 50, 0xff);
	assert_int_equal(submit(model, 0, 0, 50, 50, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, 2), 0);
	assert_int_equal(submit(model, 0, 0, 50, 50, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, 3), 0);
	assert_int_equal(submit(model, 50, 0, 50, 50, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, 4), 0);
	assert_int_equal(vl_panel_model_wait(model, 4, &collided), 0);
	assert_int_equal(collided, 0);
	assert_int_equal(vl_panel_model_wait(model, 2, &collided), 0);
	assert_int_equal(collided, 1);
	assert_int_equal(vl_panel_model_wait(model, 3, &collided), 0);
	assert_int_equal(collided, 0);
	assert_int_equal(vl_panel_model_trace(model, trace, 5), 3);
	assert_int_equal(trace[0].marker, 1);
	assert_false(trace[0].collided);
	/* 2's pixels, driven by its resubmission once 1 ended */
	assert_int_equal(trace[1].marker, 2);
	assert_true(trace[1].collided);
	assert_int_equal(trace[1].rect.width, 50);
	assert_true(trace[1].start_ns >= trace[0].end_ns);
	assert_int_equal(trace[1].end_ns - trace[1].start_ns, DU_MS * 1000000ULL * 5);
	assert_int_equal(trace[2].marker, 3);
	assert_int_equal(trace[2].merged, 1);
	assert_false(trace[2].collided);
	assert_int_equal(trace[2].rect.left, 0);
	assert_int_equal(trace[2].rect.width, 100);
	assert_int_equal(trace[2].rect.height, 50);
	assert_true(trace[2].start_ns >= trace[0].end_ns);
	vl_panel_model_destroy(model);
}

/*
 * Collisions are per pixel. Two overlapping updates whose overlap the second
 * does not change run together, neither colliding. Where the second changes
 * pixels the first is driving, only those wait for the first to end; the
 * rest of it starts at once, and the panel ends with the second's content.
 */
static void
test_pixel_collisions(void **state)
{
	struct vl_panel_model *model = create(500);
	struct vl_panel_model_trace trace[4], running[4];
	static uint8_t panel[W * H];
	uint32_t collided = 7;
	(void)state;

	/* the overlap (x 20..39) is black in both */
	fill(model, 0, 0, 60, 20, 0);
	assert_int_equal(submit(model, 0, 0, 40, 20, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, 1), 0);
	assert_int_equal(submit(model, 20, 0, 40, 20, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, 2), 0);
	assert_int_equal(vl_panel_model_in_flight(model, running, 4), 2);
	assert_int_equal(vl_panel_model_wait(model, 2, &collided), 0);
	assert_int_equal(collided, 0);
	assert_int_equal(vl_panel_model_wait(model, 1, &collided), 0);
	assert_int_equal(collided, 0);
	assert_int_equal(vl_panel_model_trace(model, trace, 4), 2);
	assert_false(trace[0].collided);
	assert_false(trace[1].collided);
	assert_true(trace[1].start_ns < trace[0].end_ns);
	vl_panel_model_read(model, panel);
	assert_int_equal(count_levels(panel, 0, 0, 60, 20, 0, 0x20), 60 * 20);
	vl_panel_model_destroy(model);

	/* the second turns x 30..39 white again while the first (GC16) drives them black */
	model = create(500);
	fill(model, 0, 0, 40, 20, 0);
	assert_int_equal(
		submit(model, 0, 0, 40, 20, WAVEFORM_MODE_GC16, UPDATE_MODE_PARTIAL, 1), 0);
	fill(model, 30, 0, 10, 20, 0xff);
	fill(model, 40, 0, 20, 20, 0);
	assert_int_equal(submit(model, 30, 0, 30, 20, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, 2), 0);
	/* the second runs beside the first; its collided pixels wait */
	assert_int_equal(vl_panel_model_in_flight(model, running, 4), 2);
	assert_false(running[0].collided);
	assert_true(running[1].collided);
	assert_true(running[1].start_ns < running[0].end_ns);
	uint64_t first_end_ns = running[0].end_ns;
	/* both ended: the second's other pixels show, the collided ones wait */
	while (vl_panel_model_completions(model) < 2)
		usleep(1000);
	vl_panel_model_read(model, panel);
	assert_int_equal(count_levels(panel, 40, 0, 20, 20, 0, 0x20), 20 * 20);
	assert_int_equal(count_levels(panel, 30, 0, 10, 20, 0, 0x20), 10 * 20);
	assert_int_equal(vl_panel_model_in_flight(model, running, 4), 1);
	/* only the collided pixels, once the first ended */
	assert_int_equal(running[0].rect.left, 30);
	assert_int_equal(running[0].rect.width, 10);
	assert_int_equal(running[0].rect.height, 20);
	assert_true(running[0].start_ns >= first_end_ns);
	assert_int_equal(vl_panel_model_wait(model, 2, &collided), 0);
	assert_int_equal(collided, 1);
	assert_int_equal(vl_panel_model_wait(model, 1, &collided), 0);
	assert_int_equal(collided, 0);
	/* a line per update: the second's is its resubmission's, over its rect */
	assert_int_equal(vl_panel_model_trace(model, trace, 4), 2);
	assert_int_equal(trace[0].marker, 1);
	assert_false(trace[0].collided);
	assert_int_equal(trace[1].marker, 2);
	assert_true(trace[1].collided);
	assert_int_equal(trace[1].rect.left, 30);
	assert_int_equal(trace[1].rect.width, 30);
	assert_true(trace[1].start_ns >= trace[0].end_ns);
	/* the last content sent: black, white where the second changed it, black */
	vl_panel_model_read(model, panel);
	assert_int_equal(count_levels(panel, 0, 0, 30, 20, 0, 0x20), 30 * 20);
	assert_int_equal(count_levels(panel, 30, 0, 10, 20, 0xc0, 0xff), 10 * 20);
	assert_int_equal(count_levels(panel, 40, 0, 20, 20, 0, 0x20), 20 * 20);
	vl_panel_model_destroy(model);
}

/*
 * A pixel a fast waveform (DU, A2) is driving is retargeted by a fast
 * update: it takes the pixel over where the first left it, without waiting
 * or colliding, and the new content settles one waveform after it was sent.
 * The cut-off push leaves a ghost; one driven to its end leaves less.
 */
static void
test_retarget(void **state)
{
	struct vl_panel_model *model = create(500);
	struct vl_panel_model_trace trace[4], running[4];
	static uint8_t panel[W * H];
	uint32_t collided = 7;
	(void)state;

	fill(model, 0, 0, 40, 20, 0);
	assert_int_equal(submit(model, 0, 0, 40, 20, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, 1), 0);
	/* three quarters of the DU's way, x 20..39 turn white again with A2 */
	usleep(DU_MS * 5 * 3 / 4 * 1000);
	fill(model, 20, 0, 20, 20, 0xff);
	assert_int_equal(submit(model, 20, 0, 20, 20, WAVEFORM_MODE_A2, UPDATE_MODE_PARTIAL, 2), 0);
	assert_int_equal(vl_panel_model_in_flight(model, running, 4), 2);
	assert_int_equal(vl_panel_model_wait(model, 2, &collided), 0);
	assert_int_equal(collided, 0);
	assert_int_equal(vl_panel_model_wait(model, 1, &collided), 0);
	assert_int_equal(collided, 0);
	/* a line each, the A2 started at once and took its own time */
	assert_int_equal(vl_panel_model_trace(model, trace, 4), 2);
	assert_int_equal(trace[0].marker, 1);
	assert_int_equal(trace[1].marker, 2);
	assert_false(trace[1].collided);
	assert_int_equal(trace[1].end_ns - trace[1].start_ns, 120 * 1000000ULL * 5);
	assert_true(trace[1].start_ns < trace[0].end_ns);
	vl_panel_model_read(model, panel);
	/* the first's black where it was not retargeted */
	assert_int_equal(count_levels(panel, 0, 0, 20, 20, 0, 0x20), 20 * 20);
	/* white, with the ghost of the push to black that was cut (A2's gain on it) */
	assert_int_equal(count_levels(panel, 20, 0, 20, 20, 0xc0, 0xfe), 20 * 20);
	vl_panel_model_destroy(model);

	/* GC16 is not retargeted: the A2 collides and waits */
	model = create(500);
	fill(model, 0, 0, 40, 20, 0);
	assert_int_equal(
		submit(model, 0, 0, 40, 20, WAVEFORM_MODE_GC16, UPDATE_MODE_PARTIAL, 1), 0);
	fill(model, 20, 0, 20, 20, 0xff);
	assert_int_equal(submit(model, 20, 0, 20, 20, WAVEFORM_MODE_A2, UPDATE_MODE_PARTIAL, 2), 0);
	assert_int_equal(vl_panel_model_wait(model, 2, &collided), 0);
	assert_int_equal(collided, 1);
	assert_int_equal(vl_panel_model_trace(model, trace, 4), 2);
	assert_int_equal(trace[1].marker, 2);
	assert_true(trace[1].start_ns >= trace[0].end_ns);
	vl_panel_model_destroy(model);
}

static void
test_ghost_and_flash(void **state)
{
	struct vl_panel_model *model = create(1);
	static uint8_t panel[W * H];
	uint32_t marker = 1;
	(void)state;

	for (int i = 0; i < 6; i++, marker++) {
		fill(model, 0, 0, 40, 40, i % 2 ? 0xff : 0);
		assert_int_equal(
			submit(model, 0, 0, 40, 40, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, marker),
			0);
		assert_int_equal(vl_panel_model_wait(model, marker, NULL), 0);
	}
	/* white again, but the black it left shows through */
	vl_panel_model_read(model, panel);
	assert_int_equal(count_levels(panel, 0, 0, 40, 40, 0xff, 0xff), 0);
	assert_int_equal(
		submit(model, 0, 0, 40, 40, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, marker), 0);
	assert_int_equal(vl_panel_model_wait(model, marker, NULL), 0);
	vl_panel_model_read(model, panel);
	assert_int_equal(count_levels(panel, 0, 0, 40, 40, 0xff, 0xff), 40 * 40);
	vl_panel_model_destroy(model);
}

/* The frame at a point of the update in flight: its times are the model's, not the clock's. */
static void
frame_at(struct vl_panel_model *model, double progress, uint8_t *frame)
{
	struct vl_panel_model_trace running[1];

	assert_int_equal(vl_panel_model_in_flight(model, running, 1), 1);
	uint64_t span = running[0].end_ns - running[0].start_ns;
	vl_panel_model_read_frame(model, frame, running[0].start_ns + (uint64_t)(span * progress));
}

/*
 * Frames while updates run: a flash goes black, white, then to its
 * pixels; DU switches halfway; GL16 fades. What is not updated stays.
 */
static void
test_frames_in_flight(void **state)
{
	struct vl_panel_model *model = create(100000);
	static uint8_t frame[W * H];
	(void)state;

	fill(model, 0, 0, 100, H, 0x00);
	assert_int_equal(submit(model, 0, 0, 100, H, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 1), 0);
	frame_at(model, 0.1, frame);
	assert_int_equal(count_levels(frame, 0, 0, 100, H, 0x00, 0x00), 100 * H);
	assert_int_equal(count_levels(frame, 100, 0, 100, H, 0xff, 0xff), 100 * H);
	frame_at(model, 0.5, frame);
	assert_int_equal(count_levels(frame, 0, 0, 100, H, 0xff, 0xff), 100 * H);
	frame_at(model, 0.9, frame);
	assert_int_equal(count_levels(frame, 0, 0, 100, H, 0x00, 0x00), 100 * H);
	vl_panel_model_cancel(model);
	vl_panel_model_destroy(model);

	model = create(100000);
	fill(model, 0, 0, 50, 50, 0x00);
	assert_int_equal(submit(model, 0, 0, 50, 50, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, 1), 0);
	frame_at(model, 0.4, frame);
	assert_int_equal(count_levels(frame, 0, 0, 50, 50, 0xff, 0xff), 50 * 50);
	frame_at(model, 0.6, frame);
	assert_int_equal(count_levels(frame, 0, 0, 50, 50, 0x00, 0x00), 50 * 50);
	vl_panel_model_cancel(model);
	vl_panel_model_destroy(model);

	model = create(100000);
	fill(model, 0, 0, 50, 50, 0x00);
	assert_int_equal(
		submit(model, 0, 0, 50, 50, WAVEFORM_MODE_GL16, UPDATE_MODE_PARTIAL, 1), 0);
	frame_at(model, 0.5, frame);
	/* halfway from white to black */
	assert_int_equal(count_levels(frame, 0, 0, 50, 50, 0x7f, 0x80), 50 * 50);
	vl_panel_model_destroy(model);
}

struct waiter {
	struct vl_panel_model *model;
	int result;
};

static void *
wait_marker(void *data)
{
	struct waiter *w = data;

	w->result = vl_panel_model_wait(w->model, 1, NULL);
	return NULL;
}

/* Cancelled under a wait, or before one: the waits end with ENODEV, and so do submissions. */
static void
test_cancel_in_flight(void **state)
{
	struct waiter w = {.model = create(100000)};
	pthread_t thread;
	(void)state;

	assert_int_equal(submit(w.model, 0, 0, W, H, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 1), 0);
	assert_int_equal(pthread_create(&thread, NULL, wait_marker, &w), 0);
	vl_panel_model_cancel(w.model);
	pthread_join(thread, NULL);
	assert_int_equal(w.result, -ENODEV);
	assert_int_equal(vl_panel_model_wait(w.model, 1, NULL), -ENODEV);
	assert_int_equal(
		submit(w.model, 0, 0, 10, 10, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL, 2), -ENODEV);
	vl_panel_model_destroy(w.model);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_sizes),
		cmocka_unit_test(test_du_update),
		cmocka_unit_test(test_gc16_levels),
		cmocka_unit_test(test_bad_requests),
		cmocka_unit_test(test_submissions_wake),
		cmocka_unit_test(test_collide_and_merge),
		cmocka_unit_test(test_pixel_collisions),
		cmocka_unit_test(test_retarget),
		cmocka_unit_test(test_ghost_and_flash),
		cmocka_unit_test(test_frames_in_flight),
		cmocka_unit_test(test_cancel_in_flight),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
