// SPDX-License-Identifier: MIT
/*
 * The whole backend on the in-process memory device, without a kernel: a
 * wlroots scene rendered by pixman, shown by libvellum-epd, and the updates
 * the device recorded checked rect by rect. Runs under ASan and UBSan too.
 */
#include <drm_fourcc.h>
#include <epdfb.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <vellum/epd-pipeline.h>
#include <wlr/render/swapchain.h>
#include <wlr/types/wlr_output.h>

#include "backend.h"
#include "scene_harness.h"

#define W 400
#define H 300

struct fixture {
	struct scene_harness harness;
	struct vl_epd_device *device;
	size_t seen; /* updates already looked at */
};

static int
setup(void **state)
{
	static struct fixture f;
	char error[256];

	memset(&f, 0, sizeof(f));
	if (!scene_harness_start(&f.harness, "memory:400x300", error, sizeof(error))) {
		print_error("%s\n", error);
		return -1;
	}
	struct vl_epd_backend *backend = wl_container_of(f.harness.backend, backend, base);
	f.device = backend->device;
	*state = &f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	scene_harness_finish(&f->harness);
	return 0;
}

/* Shows the scene; returns the updates this commit submitted. */
static size_t
show(struct fixture *f, const struct vl_epd_update **updates)
{
	struct vl_epd_feedback feedback;
	const struct vl_epd_update *all;

	assert_true(scene_harness_show(&f->harness, &feedback));
	assert_true(feedback.settled);
	size_t n = vl_epd_memory_updates(f->device, &all);
	*updates = all + f->seen;
	size_t fresh = n - f->seen;
	f->seen = n;
	return fresh;
}

static void
assert_rect(
	const struct vl_epd_update *u, uint32_t left, uint32_t top, uint32_t width, uint32_t height)
{
	assert_int_equal(u->rect.left, left);
	assert_int_equal(u->rect.top, top);
	assert_int_equal(u->rect.width, width);
	assert_int_equal(u->rect.height, height);
}

static void
test_page_then_column(void **state)
{
	struct fixture *f = *state;
	const struct vl_epd_update *u;

	scene_harness_rect(&f->harness, 0, 0, W, H, 255);
	scene_harness_rect(&f->harness, 20, 20, 100, 60, 0);
	size_t n = show(f, &u);
	/* The first frame flashes the whole panel once: its state is unknown. */
	assert_int_equal(n, 1);
	assert_rect(&u[0], 0, 0, W, H);
	assert_true(u[0].full);
	assert_int_equal(u[0].waveform, WAVEFORM_MODE_GC16);
	assert_int_equal(f->device->pixels[30 * W + 30], 0);
	assert_int_equal(f->device->pixels[10 * W + 10], 255);

	/* A 1-px column is a 1-px DU update, not a band. */
	scene_harness_rect(&f->harness, 350, 0, 1, H, 0);
	n = show(f, &u);
	assert_int_equal(n, 1);
	assert_rect(&u[0], 350, 0, 1, H);
	assert_int_equal(u[0].waveform, WAVEFORM_MODE_DU);
	assert_false(u[0].full);

	/* Gray UI content: GL16, quantized to 16 levels in the framebuffer. */
	scene_harness_rect(&f->harness, 200, 100, 50, 40, 130);
	n = show(f, &u);
	assert_int_equal(n, 1);
	assert_rect(&u[0], 200, 100, 50, 40);
	assert_int_equal(u[0].waveform, WAVEFORM_MODE_GL16);
	assert_int_equal(f->device->pixels[110 * W + 210], vl_epd_quantize_value(130, 16));

	/* The same pixels again: no update, the commit still settles. */
	scene_harness_damage_all(&f->harness);
	n = show(f, &u);
	assert_int_equal(n, 0);
}

/*
 * A compositor may have the output render in RGB565: the same picture gives
 * the panel what XRGB8888 gave it, so showing it again changes nothing.
 */
static void
test_render_rgb565(void **state)
{
	struct fixture *f = *state;
	const struct vl_epd_update *u;
	struct wlr_output_state output_state;

	scene_harness_rect(&f->harness, 0, 0, W, H, 255);
	scene_harness_rect(&f->harness, 300, 200, 20, 20, 0);
	scene_harness_rect(&f->harness, 20, 200, 40, 30, 130);
	show(f, &u);
	uint8_t *before = malloc((size_t)W * H);
	assert_non_null(before);
	memcpy(before, f->device->pixels, (size_t)W * H);

	wlr_output_state_init(&output_state);
	wlr_output_state_set_render_format(&output_state, DRM_FORMAT_RGB565);
	assert_true(wlr_output_commit_state(f->harness.output, &output_state));
	wlr_output_state_finish(&output_state);
	scene_harness_damage_all(&f->harness);
	assert_int_equal(show(f, &u), 0);
	assert_int_equal(f->harness.output->render_format, DRM_FORMAT_RGB565);
	assert_int_equal(f->harness.output->swapchain->format.format, DRM_FORMAT_RGB565);
	assert_memory_equal(f->device->pixels, before, (size_t)W * H);

	/* and new content in RGB565 reaches the panel */
	scene_harness_rect(&f->harness, 100, 50, 30, 30, 0);
	assert_int_equal(show(f, &u), 1);
	assert_rect(&u[0], 100, 50, 30, 30);
	assert_int_equal(f->device->pixels[60 * W + 110], 0);
	free(before);

	/* the other cases draw in XRGB8888 */
	wlr_output_state_init(&output_state);
	wlr_output_state_set_render_format(&output_state, DRM_FORMAT_XRGB8888);
	assert_true(wlr_output_commit_state(f->harness.output, &output_state));
	wlr_output_state_finish(&output_state);
}

static void
test_animation_hint(void **state)
{
	struct fixture *f = *state;
	const struct vl_epd_update *u;
	struct vl_epd_hint hint = {
		.box = {.x = 40, .y = 150, .width = 80, .height = 80},
		.mode = VL_EPD_MODE_ANIMATION,
	};

	scene_harness_rect(&f->harness, 40, 150, 80, 80, 100);
	vl_epd_output_add_hint(f->harness.output, &hint);
	size_t n = show(f, &u);
	assert_int_equal(n, 1);
	assert_int_equal(u[0].waveform, WAVEFORM_MODE_A2);
	/* Gray on a 2-level waveform is dithered: both levels, nothing else. */
	size_t black = 0, white = 0;
	for (uint32_t y = 150; y < 230; y++) {
		for (uint32_t x = 40; x < 120; x++) {
			uint8_t v = f->device->pixels[y * W + x];
			assert_true(v == 0 || v == 255);
			black += v == 0;
			white += v == 255;
		}
	}
	assert_true(black > 0 && white > 0);
}

static void
test_rotation(void **state)
{
	struct fixture *f = *state;
	const struct vl_epd_update *u;
	pixman_box32_t logical = {10, 20, 40, 60}, native;

	assert_true(scene_harness_set_transform(&f->harness, WL_OUTPUT_TRANSFORM_90));
	/* The rotated output redraws everything once. */
	scene_harness_rect(&f->harness, 0, 0, H, W, 255);
	show(f, &u);

	scene_harness_rect(&f->harness, logical.x1, logical.y1, logical.x2 - logical.x1,
		logical.y2 - logical.y1, 0);
	size_t n = show(f, &u);
	assert_int_equal(n, 1);
	assert_true(vl_epd_transform_box(&native, &logical, VL_EPD_TRANSFORM_90, W, H));
	assert_rect(&u[0], native.x1, native.y1, native.x2 - native.x1, native.y2 - native.y1);
	assert_int_equal(u[0].rect.width, 40);
	assert_int_equal(u[0].rect.height, 30);
}

struct settle {
	bool done, settled;
};

static void
note_feedback(const struct vl_epd_feedback *feedback, void *data)
{
	struct settle *settle = data;

	settle->done = true;
	settle->settled = feedback->settled;
}

/*
 * With the panel slow (300 ms an update) and two flushes in flight, frames
 * are held; content committed meanwhile is not sent until a flush completes,
 * and newer content committed before that supersedes it.
 */
static void
test_pacing_and_superseded(void **state)
{
	struct fixture *f = *state;
	struct scene_harness *h = &f->harness;
	struct settle a = {0}, b = {0}, c = {0}, d = {0};
	struct wlr_scene_rect *rect = scene_harness_rect(h, 300, 200, 40, 40, 0);
	const struct vl_epd_update *u;

	show(f, &u);
	vl_epd_memory_set_latency(f->device, 300);
	unsigned int presented = h->presented, discarded = h->discarded;

	vl_epd_output_add_feedback(h->output, note_feedback, &a);
	scene_harness_set_gray(rect, 255);
	assert_true(scene_harness_commit(h));
	vl_epd_output_add_feedback(h->output, note_feedback, &b);
	scene_harness_set_gray(rect, 0);
	assert_true(scene_harness_commit(h));

	/* Two flushes in flight: no frame until one completes. */
	assert_int_equal(scene_harness_idle(h, 100), 0);
	assert_false(h->frame_ready);
	assert_false(a.done);

	/* Commits made anyway wait; the newest of them wins. */
	vl_epd_output_add_feedback(h->output, note_feedback, &c);
	scene_harness_set_gray(rect, 128);
	assert_true(wlr_scene_output_commit(h->scene_output, NULL));
	vl_epd_output_add_feedback(h->output, note_feedback, &d);
	scene_harness_set_gray(rect, 255);
	assert_true(wlr_scene_output_commit(h->scene_output, NULL));
	/* Callbacks and present events come from the event loop, after the commit. */
	assert_false(c.done);
	wl_event_loop_dispatch(h->loop, 0);
	assert_true(c.done);
	assert_false(c.settled);
	/* its present event says so too */
	assert_int_equal(h->discarded, discarded + 1);
	assert_int_equal(h->presented, presented);

	assert_true(scene_harness_run_until(h, &d.done));
	assert_true(b.done);
	assert_true(a.settled);
	assert_true(b.settled);
	assert_true(d.settled);
	assert_int_equal(h->presented, presented + 3);
	assert_int_equal(h->discarded, discarded + 1);
	assert_true(h->frame_ready);
	/* c never reached the panel: one update each for a, b and d. */
	size_t n = vl_epd_memory_updates(f->device, &u);
	assert_int_equal(n - f->seen, 3);
	assert_int_equal(f->device->pixels[210 * W + 310], 255);
	f->seen = n;
	vl_epd_memory_set_latency(f->device, 0);
}

struct area_result {
	bool done, settled, flashed;
	char waveform[16];
};

static void
note_area_feedback(const struct vl_epd_feedback *feedback, void *data)
{
	struct area_result *result = data;

	assert_false(result->done); /* exactly once */
	result->done = true;
	result->settled = feedback->settled;
	result->flashed = feedback->flashed;
	snprintf(result->waveform, sizeof(result->waveform), "%s", feedback->waveform);
}

static void
add_area_feedback(struct scene_harness *h, int x, int y, int width, int height, uint64_t owner,
	struct area_result *result)
{
	struct wlr_box area = {x, y, width, height};

	if (result)
		*result = (struct area_result){0};
	assert_true(vl_epd_output_add_area_feedback(
		h->output, &area, owner, result ? note_area_feedback : NULL, result));
}

/*
 * Feedback on an area names the waveform that drew that area, not the
 * commit's main one; an area the commit did not change names none.
 */
static void
test_area_feedback_waveform(void **state)
{
	struct fixture *f = *state;
	struct scene_harness *h = &f->harness;
	struct vl_epd_hint text = {.box = {20, 20, 60, 60}, .mode = VL_EPD_MODE_TEXT};
	struct vl_epd_hint fast = {.box = {300, 200, 60, 60}, .mode = VL_EPD_MODE_FAST};
	struct area_result left, right, still;
	const struct vl_epd_update *u;

	scene_harness_rect(h, 0, 0, W, H, 255);
	show(f, &u);
	scene_harness_rect(h, 20, 20, 60, 60, 120);
	scene_harness_rect(h, 300, 200, 60, 60, 0);
	vl_epd_output_add_hint(h->output, &text);
	vl_epd_output_add_hint(h->output, &fast);
	add_area_feedback(h, 20, 20, 60, 60, 1, &left);
	add_area_feedback(h, 300, 200, 60, 60, 2, &right);
	add_area_feedback(h, 150, 100, 60, 60, 3, &still);
	size_t n = show(f, &u);
	assert_int_equal(n, 2);
	assert_true(left.done && left.settled && right.done && right.settled && still.done);
	assert_string_equal(left.waveform, "GL16");
	assert_string_equal(right.waveform, "A2");
	assert_string_equal(still.waveform, "");
	assert_false(left.flashed || right.flashed || still.flashed);

	/* A full refresh of one area: it flashed there, and only there. */
	text.full_refresh = true;
	vl_epd_output_add_hint(h->output, &text);
	add_area_feedback(h, 20, 20, 60, 60, 1, &left);
	add_area_feedback(h, 300, 200, 60, 60, 2, &right);
	scene_harness_damage_all(h);
	n = show(f, &u);
	assert_int_equal(n, 1);
	assert_rect(&u[0], 20, 20, 60, 60);
	assert_true(u[0].full);
	assert_string_equal(left.waveform, "GC16");
	assert_true(left.flashed);
	assert_string_equal(right.waveform, "");
	assert_false(right.flashed);
}

/*
 * While the panel is busy, a commit overtaken by a newer one supersedes the
 * areas of the owners whose content changed since, and only theirs: the
 * others are shown by the newer commit.
 */
static void
test_area_feedback_superseded(void **state)
{
	struct fixture *f = *state;
	struct scene_harness *h = &f->harness;
	struct wlr_scene_rect *a = scene_harness_rect(h, 20, 200, 40, 40, 0);
	struct wlr_scene_rect *b = scene_harness_rect(h, 300, 20, 40, 40, 0);
	struct area_result a1, b1, a2;
	const struct vl_epd_update *u;

	show(f, &u);
	vl_epd_memory_set_latency(f->device, 300);
	/* two flushes in flight: the panel is saturated */
	scene_harness_set_gray(a, 255);
	assert_true(scene_harness_commit(h));
	scene_harness_set_gray(a, 0);
	assert_true(scene_harness_commit(h));

	add_area_feedback(h, 20, 200, 40, 40, 1, &a1);
	add_area_feedback(h, 300, 20, 40, 40, 2, &b1);
	scene_harness_set_gray(a, 255);
	scene_harness_set_gray(b, 255);
	assert_true(wlr_scene_output_commit(h->scene_output, NULL));
	/* a's owner changed its content again; b's did not */
	add_area_feedback(h, 20, 200, 40, 40, 1, &a2);
	add_area_feedback(h, 20, 200, 40, 40, 1, NULL);
	scene_harness_set_gray(a, 128);
	assert_true(wlr_scene_output_commit(h->scene_output, NULL));
	wl_event_loop_dispatch(h->loop, 0);
	assert_true(a1.done);
	assert_false(a1.settled);
	assert_false(b1.done);

	assert_true(scene_harness_run_until(h, &b1.done));
	assert_true(scene_harness_run_until(h, &a2.done));
	assert_true(b1.settled);
	assert_string_equal(b1.waveform, "DU");
	assert_true(a2.settled);
	assert_string_equal(a2.waveform, "GL16");
	assert_int_equal(f->device->pixels[210 * W + 30], vl_epd_quantize_value(128, 16));
	assert_int_equal(f->device->pixels[30 * W + 310], 255);
	f->seen = vl_epd_memory_updates(f->device, &u);
	vl_epd_memory_set_latency(f->device, 0);
}

/*
 * A driver that numbers its waveforms its own way, and has no A2 and no GC4:
 * the policy still picks by kind, the device gets the configured numbers.
 */
static void
test_waveform_map(void **state)
{
	struct scene_harness h;
	struct vl_epd_backend_options options = {
		.device = "memory:400x300",
		.waveform_map = "init=10, du=11, gc16=12, gl16=13",
	};
	struct vl_epd_feedback feedback;
	const struct vl_epd_update *u;
	char error[256];
	(void)state;

	memset(&h, 0, sizeof(h));
	assert_true(scene_harness_start_with(&h, &options, error, sizeof(error)));
	struct vl_epd_backend *backend = wl_container_of(h.backend, backend, base);
	struct vl_epd_device *device = backend->device;

	scene_harness_rect(&h, 0, 0, W, H, 255);
	assert_true(scene_harness_show(&h, &feedback));
	/* the first frame flashes the whole panel, once */
	size_t first = vl_epd_memory_updates(device, &u);
	assert_int_equal(first, 1);
	for (size_t i = 0; i < first; i++) {
		assert_int_equal(u[i].waveform, 12);
		assert_true(u[i].full);
	}
	assert_string_equal(feedback.waveform, "GC16");

	scene_harness_rect(&h, 50, 0, 1, H, 0);
	assert_true(scene_harness_show(&h, &feedback));
	size_t n = vl_epd_memory_updates(device, &u);
	assert_int_equal(n, first + 1);
	assert_int_equal(u[first].waveform, 11);
	assert_string_equal(feedback.waveform, "DU");

	scene_harness_rect(&h, 100, 100, 40, 40, 130);
	assert_true(scene_harness_show(&h, &feedback));
	n = vl_epd_memory_updates(device, &u);
	assert_int_equal(n, first + 2);
	assert_int_equal(u[first + 1].waveform, 13);

	/* animation wants A2; the device lacks it, so DU, still dithered to 2 levels */
	struct vl_epd_hint hint = {
		.box = {.x = 200, .y = 100, .width = 40, .height = 40},
		.mode = VL_EPD_MODE_ANIMATION,
	};
	scene_harness_rect(&h, 200, 100, 40, 40, 100);
	vl_epd_output_add_hint(h.output, &hint);
	assert_true(scene_harness_show(&h, &feedback));
	n = vl_epd_memory_updates(device, &u);
	assert_int_equal(n, first + 3);
	assert_int_equal(u[first + 2].waveform, 11);
	for (uint32_t y = 100; y < 140; y++)
		for (uint32_t x = 200; x < 240; x++)
			assert_true(
				device->pixels[y * W + x] == 0 || device->pixels[y * W + x] == 255);
	scene_harness_finish(&h);
}

static void
test_waveform_map_errors(void **state)
{
	struct scene_harness h;
	struct vl_epd_backend_options options = {
		.device = "memory:400x300",
		.waveform_map = "du=1,reagl=6",
	};
	char error[256] = "";
	(void)state;

	memset(&h, 0, sizeof(h));
	assert_false(scene_harness_start_with(&h, &options, error, sizeof(error)));
	assert_non_null(strstr(error, "unknown waveform \"reagl\""));
	options.waveform_map = "du=1,du=2";
	assert_false(scene_harness_start_with(&h, &options, error, sizeof(error)));
	assert_non_null(strstr(error, "du is given twice"));
}

/* A compositor sends updates for as long as it runs: the record keeps the newest. */
static void
test_record_bounded(void **state)
{
	struct fixture *f = *state;
	const struct vl_epd_update *updates;
	const uint32_t sent = 3 * VL_EPD_MEMORY_RECORD_MAX + 5;

	for (uint32_t i = 0; i < sent; i++) {
		struct vl_epd_update update = {
			.rect = {.left = i % W, .top = 0, .width = 1, .height = 1},
			.waveform = WAVEFORM_MODE_DU,
			.marker = 100000 + i,
		};
		assert_true(f->device->impl->submit(f->device, &update));
	}
	size_t n = vl_epd_memory_updates(f->device, &updates);
	assert_true(n <= VL_EPD_MEMORY_RECORD_MAX);
	assert_true(n >= VL_EPD_MEMORY_RECORD_MAX / 2);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(updates[i].marker, 100000 + sent - n + i);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page_then_column),
		cmocka_unit_test(test_render_rgb565),
		cmocka_unit_test(test_animation_hint),
		cmocka_unit_test(test_pacing_and_superseded),
		cmocka_unit_test(test_area_feedback_waveform),
		cmocka_unit_test(test_area_feedback_superseded),
		cmocka_unit_test(test_rotation),
		cmocka_unit_test(test_waveform_map),
		cmocka_unit_test(test_waveform_map_errors),
		/* last: it floods the record the others count in */
		cmocka_unit_test(test_record_bounded),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
