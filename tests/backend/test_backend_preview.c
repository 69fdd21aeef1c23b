// SPDX-License-Identifier: MIT
/*
 * The whole backend on the preview panel ("preview:WxH"): epdfb's own model
 * in the process. The first frame is one flashing GC16 update and the
 * panel then shows the scene in 16 levels; the commit's feedback settles
 * only after the model has finished it; a black square on white is a DU
 * update of its rect, black but for DU's ghost; the time scale stretches
 * the waveforms, also past the driver's 5 s marker wait; bad sizes get a
 * clear error. Runs under ASan and UBSan too.
 */
#include <epdfb.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend.h"
#include "panel-model.h"
#include "scene_harness.h"

#define W 400
#define H 300

static struct vl_panel_model *
model_of(struct scene_harness *h)
{
	struct vl_epd_backend *backend = wl_container_of(h->backend, backend, base);
	struct vl_panel_model *model = vl_epd_device_preview_model(backend->device);

	assert_non_null(model);
	return model;
}

static void
test_scene_on_the_model(void **state)
{
	struct scene_harness harness, *h = &harness;
	struct vl_panel_model_trace trace[8];
	struct vl_epd_feedback feedback;
	static uint8_t image[W * H], panel[W * H];
	char error[256];
	(void)state;

	assert_true(scene_harness_start(h, "preview:400x300", error, sizeof(error)));
	struct vl_panel_model *model = model_of(h);
	assert_int_equal(vl_panel_model_width(model), W);

	assert_true(scene_harness_gradient_with_block(h, W, H, image));
	assert_true(scene_harness_show(h, &feedback));
	uint64_t settled = scene_harness_now_ns();
	assert_true(feedback.settled);
	assert_int_equal(vl_panel_model_trace(model, trace, 8), 1);
	assert_int_equal(trace[0].waveform, WAVEFORM_MODE_GC16);
	assert_int_equal(trace[0].mode, UPDATE_MODE_FULL);
	assert_true(trace[0].flashing);
	assert_true(trace[0].end_ns <= settled);
	vl_panel_model_read(model, panel);
	for (size_t i = 0; i < (size_t)W * H; i++)
		assert_int_equal(panel[i], vl_epd_quantize_value(image[i], 16));

	/* the user turns the page: it flashes, and the DU below starts from white */
	vl_epd_backend_notify_input(h->backend, VL_EPD_INPUT_KEY);
	scene_harness_rect(h, 0, 0, W, H, 0xff);
	assert_true(scene_harness_show(h, &feedback));
	size_t before = vl_panel_model_trace(model, trace, 8);
	scene_harness_rect(h, 300, 40, 24, 16, 0);
	assert_true(scene_harness_show(h, &feedback));
	assert_true(feedback.settled);
	assert_int_equal(vl_panel_model_trace(model, trace, 8), before + 1);
	const struct vl_panel_model_trace *du = &trace[before];
	assert_int_equal(du->waveform, WAVEFORM_MODE_DU);
	assert_int_equal(du->rect.left, 300);
	assert_int_equal(du->rect.top, 40);
	assert_int_equal(du->rect.width, 24);
	assert_int_equal(du->rect.height, 16);
	/* the model's DU takes its 260 ms */
	assert_int_equal(du->end_ns - du->start_ns, 260 * 1000000ULL);
	vl_panel_model_read(model, panel);
	assert_true(panel[48 * W + 310] <= 255 * 16 / 256);
	scene_harness_finish(h);
}

/* The first frame's GC16 on a 200x100 preview at time_scale takes expected_ms, and settles. */
static void
check_gc16_time(unsigned int time_scale, uint64_t expected_ms)
{
	struct vl_epd_backend_options options = {
		.device = "preview:200x100", .time_scale = time_scale};
	struct scene_harness harness, *h = &harness;
	struct vl_panel_model_trace trace[1];
	struct vl_epd_feedback feedback;
	char error[256];

	assert_true(scene_harness_start_with(h, &options, error, sizeof(error)));
	scene_harness_rect(h, 0, 0, 200, 100, 0xff);
	assert_true(scene_harness_show(h, &feedback));
	assert_true(feedback.settled);
	assert_int_equal(vl_panel_model_trace(model_of(h), trace, 1), 1);
	assert_int_equal(trace[0].end_ns - trace[0].start_ns, expected_ms * 1000000ULL);
	scene_harness_finish(h);
}

/* GC16's 450 ms at 10 % */
static void
test_time_scale(void **state)
{
	(void)state;
	check_gc16_time(10, 45);
}

/* A preview slowed down past the driver's 5 s marker wait: its updates run, they do not fail. */
static void
test_slower_than_waits(void **state)
{
	(void)state;
	check_gc16_time(1200, 5400);
}

static void
test_bad_sizes(void **state)
{
	static const char *const specs[] = {"preview:0x100", "preview:100", "preview:axb",
		"preview:100x100x", "preview:20000x100"};
	struct scene_harness harness;
	char error[256];
	(void)state;

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		error[0] = '\0';
		assert_false(scene_harness_start(&harness, specs[i], error, sizeof(error)));
		print_message("%s: %s\n", specs[i], error);
		static const char prefix[] = "device \"preview:";
		assert_memory_equal(error, prefix, sizeof(prefix) - 1);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scene_on_the_model),
		cmocka_unit_test(test_time_scale),
		cmocka_unit_test(test_slower_than_waits),
		cmocka_unit_test(test_bad_sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
