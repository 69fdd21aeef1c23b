// SPDX-License-Identifier: MIT
/*
 * The device I/O queue (backend-epd/io.c) on the memory device: what one
 * kick hands over reaches a device that takes groups (submit_group, as a
 * DRM commit does) in as few calls as the updates' kinds allow, at most
 * group_max a call; an update never overtakes one it overlaps, nor joins
 * one it overlaps; updates of two kicks never share a call; a device
 * without groups gets one update a call; a refused group fails each of
 * its markers; nothing goes to the device before the kick.
 */
#include <epdfb.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "backend.h"

#define MAX_MARKS 32

struct fixture {
	struct wl_event_loop *loop;
	struct vl_epd_device *device;
	struct vl_epd_io io;
	/* the results, in the order the event loop got them */
	struct vl_epd_io_result results[MAX_MARKS];
	size_t n_results;
};

static void
on_result(const struct vl_epd_io_result *result, void *data)
{
	struct fixture *f = data;

	if (f->n_results < MAX_MARKS)
		f->results[f->n_results++] = *result;
}

static struct fixture *
start(uint32_t group_max)
{
	static struct fixture f;
	char error[256];

	memset(&f, 0, sizeof(f));
	f.loop = wl_event_loop_create();
	assert_non_null(f.loop);
	f.device = vl_epd_device_open("memory:400x300", NULL, 0, 0, error, sizeof(error));
	assert_non_null(f.device);
	vl_epd_memory_set_group_max(f.device, group_max);
	assert_true(vl_epd_io_init(&f.io, f.device, f.loop, on_result, &f));
	return &f;
}

static void
stop(struct fixture *f)
{
	vl_epd_io_finish(&f->io);
	vl_epd_device_unref(f->device);
	wl_event_loop_destroy(f->loop);
}

static void
queue(struct fixture *f, uint32_t marker, uint32_t waveform, uint32_t left, uint32_t top,
	uint32_t size)
{
	struct vl_epd_update update = {
		.rect = {left, top, size, size},
		.waveform = waveform,
		.marker = marker,
	};
	assert_true(vl_epd_io_submit(&f->io, &update));
}

/* Runs the event loop until n results came (a hang ends in meson's timeout). */
static void
wait_results(struct fixture *f, size_t n)
{
	while (f->n_results < n)
		assert_true(wl_event_loop_dispatch(f->loop, -1) >= 0);
	assert_int_equal(f->n_results, n);
}

/*
 * The device's record must be markers[], in that order, and the updates
 * of one call those that calls[] numbers alike (counted from the first).
 */
static void
assert_calls(struct fixture *f, const uint32_t *markers, const uint32_t *calls, size_t n)
{
	const struct vl_epd_update *updates;
	const uint32_t *call;

	size_t recorded = vl_epd_memory_updates(f->device, &updates);
	assert_int_equal(vl_epd_memory_calls(f->device, &call), recorded);
	assert_int_equal(recorded, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(updates[i].marker, markers[i]);
		assert_int_equal(call[i] - call[0], calls[i]);
	}
}

static void
assert_all_done(struct fixture *f, int error)
{
	for (size_t i = 0; i < f->n_results; i++)
		assert_int_equal(f->results[i].error, error);
}

/* Five DU updates and a GL16 one: four DU in one call, then GL16, then the fifth DU. */
static void
test_groups_by_kind(void **state)
{
	(void)state;
	struct fixture *f = start(4);

	queue(f, 1, WAVEFORM_MODE_DU, 0, 0, 10);
	queue(f, 2, WAVEFORM_MODE_GL16, 100, 0, 10);
	queue(f, 3, WAVEFORM_MODE_DU, 20, 0, 10);
	queue(f, 4, WAVEFORM_MODE_DU, 40, 0, 10);
	queue(f, 5, WAVEFORM_MODE_DU, 60, 0, 10);
	queue(f, 6, WAVEFORM_MODE_DU, 80, 0, 10);
	vl_epd_io_kick(&f->io);
	wait_results(f, 6);
	assert_all_done(f, 0);
	assert_calls(
		f, (const uint32_t[]){1, 3, 4, 5, 2, 6}, (const uint32_t[]){0, 0, 0, 0, 1, 2}, 6);
	stop(f);
}

/*
 * A GL16 update over the first DU one keeps a DU update it overlaps behind
 * it; a DU update clear of both joins the first; one that overlaps that
 * one goes in a later call, with the DU update the GL16 one held back.
 */
static void
test_overlaps_keep_order(void **state)
{
	(void)state;
	struct fixture *f = start(4);

	queue(f, 1, WAVEFORM_MODE_DU, 0, 0, 50);
	queue(f, 2, WAVEFORM_MODE_GL16, 40, 40, 50);
	queue(f, 3, WAVEFORM_MODE_DU, 60, 60, 10);
	queue(f, 4, WAVEFORM_MODE_DU, 200, 0, 10);
	queue(f, 5, WAVEFORM_MODE_DU, 205, 5, 10);
	vl_epd_io_kick(&f->io);
	wait_results(f, 5);
	assert_all_done(f, 0);
	assert_calls(f, (const uint32_t[]){1, 4, 2, 3, 5}, (const uint32_t[]){0, 0, 1, 2, 2}, 5);
	stop(f);
}

/* Two kicks are two flushes: their updates never share a call, whatever their kind. */
static void
test_kicks_apart(void **state)
{
	(void)state;
	struct fixture *f = start(4);

	queue(f, 1, WAVEFORM_MODE_DU, 0, 0, 10);
	vl_epd_io_kick(&f->io);
	queue(f, 2, WAVEFORM_MODE_DU, 100, 0, 10);
	queue(f, 3, WAVEFORM_MODE_DU, 200, 0, 10);
	vl_epd_io_kick(&f->io);
	wait_results(f, 3);
	assert_all_done(f, 0);
	assert_calls(f, (const uint32_t[]){1, 2, 3}, (const uint32_t[]){0, 1, 1}, 3);
	stop(f);
}

/* Queued without a kick, nothing reaches the device; the kick sends it. */
static void
test_waits_for_kick(void **state)
{
	(void)state;
	struct fixture *f = start(4);
	const struct vl_epd_update *updates;

	queue(f, 1, WAVEFORM_MODE_DU, 0, 0, 10);
	/* the submit thread had the time to take it, and must not have */
	wl_event_loop_dispatch(f->loop, 200);
	assert_int_equal(vl_epd_memory_updates(f->device, &updates), 0);
	assert_int_equal(f->n_results, 0);
	vl_epd_io_kick(&f->io);
	wait_results(f, 1);
	assert_calls(f, (const uint32_t[]){1}, (const uint32_t[]){0}, 1);
	stop(f);
}

/* A device without submit_group gets every update on its own. */
static void
test_one_a_call(void **state)
{
	(void)state;
	struct fixture *f = start(1);

	queue(f, 1, WAVEFORM_MODE_DU, 0, 0, 10);
	queue(f, 2, WAVEFORM_MODE_DU, 100, 0, 10);
	vl_epd_io_kick(&f->io);
	wait_results(f, 2);
	assert_all_done(f, 0);
	assert_calls(f, (const uint32_t[]){1, 2}, (const uint32_t[]){0, 1}, 2);
	stop(f);
}

/* A refused group fails each of its markers, once; the next group goes on. */
static void
test_refused_group(void **state)
{
	(void)state;
	struct fixture *f = start(4);

	vl_epd_memory_fail(f->device, VL_EPD_MEMORY_SUBMIT, 1, EIO);
	queue(f, 1, WAVEFORM_MODE_DU, 0, 0, 10);
	queue(f, 2, WAVEFORM_MODE_DU, 100, 0, 10);
	queue(f, 3, WAVEFORM_MODE_GL16, 200, 0, 10);
	vl_epd_io_kick(&f->io);
	wait_results(f, 3);
	bool failed[4] = {false};
	for (size_t i = 0; i < 3; i++) {
		uint32_t m = f->results[i].marker;
		assert_in_range(m, 1, 3);
		assert_false(failed[m]);
		failed[m] = true;
		assert_int_equal(f->results[i].error, m == 3 ? 0 : -EIO);
	}
	assert_calls(f, (const uint32_t[]){3}, (const uint32_t[]){0}, 1);
	stop(f);
}

/*
 * Runs the event loop until n results came or 10 s passed; false then.
 * What comes later than that is not "when it happens".
 */
static bool
wait_results_in_time(struct fixture *f, size_t n)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (f->n_results < n) {
		assert_true(wl_event_loop_dispatch(f->loop, 100) >= 0);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec > 10)
			return false;
	}
	return true;
}

/*
 * Completions are reported as they happen, whatever the order of
 * submission: A2 updates that finish while a long GC16 one submitted
 * before them still runs are reported at once, each of them.
 */
static void
test_completions_in_any_order(void **state)
{
	(void)state;
	struct fixture *f = start(1);

	/* far longer than the test may take: the wait for it is cancelled at stop */
	vl_epd_memory_set_waveform_latency(f->device, WAVEFORM_MODE_GC16, 60000);
	vl_epd_memory_set_waveform_latency(f->device, WAVEFORM_MODE_A2, 0);
	queue(f, 1, WAVEFORM_MODE_GC16, 0, 0, 100);
	queue(f, 2, WAVEFORM_MODE_GC16, 0, 150, 100);
	queue(f, 3, WAVEFORM_MODE_A2, 200, 0, 10);
	vl_epd_io_kick(&f->io);
	assert_true(wait_results_in_time(f, 1));
	assert_int_equal(f->results[0].marker, 3);
	assert_int_equal(f->results[0].error, 0);
	for (uint32_t marker = 4; marker < 8; marker++) {
		queue(f, marker, WAVEFORM_MODE_A2, 200, 20 * marker, 10);
		vl_epd_io_kick(&f->io);
		assert_true(wait_results_in_time(f, marker - 2));
		assert_int_equal(f->results[marker - 3].marker, marker);
		assert_int_equal(f->results[marker - 3].error, 0);
	}
	stop(f);
}

/*
 * A driver whose queue is full refuses with EBUSY: nothing was submitted,
 * nothing failed. The update goes to the device again once there is room,
 * and is reported done, never failed.
 */
static void
test_busy_is_not_yet_submitted(void **state)
{
	(void)state;
	struct fixture *f = start(4);

	vl_epd_memory_fail(f->device, VL_EPD_MEMORY_SUBMIT, 3, EBUSY);
	queue(f, 1, WAVEFORM_MODE_DU, 0, 0, 10);
	queue(f, 2, WAVEFORM_MODE_DU, 100, 0, 10);
	vl_epd_io_kick(&f->io);
	assert_true(wait_results_in_time(f, 2));
	assert_all_done(f, 0);
	assert_calls(f, (const uint32_t[]){1, 2}, (const uint32_t[]){0, 0}, 2);
	assert_int_equal(vl_epd_memory_submissions(f->device), 4);
	stop(f);
}

/*
 * A device that takes groups but says it takes none at once (group_max 0)
 * breaks the device contract: the I/O queue refuses it, with the reason,
 * instead of submitting empty groups in a loop.
 */
static void
test_broken_group_contract(void **state)
{
	(void)state;
	char error[256];
	struct wl_event_loop *loop = wl_event_loop_create();
	struct vl_epd_device *device =
		vl_epd_device_open("memory:400x300", NULL, 0, 0, error, sizeof(error));
	assert_non_null(device);
	vl_epd_memory_set_group_max(device, 4);
	struct vl_epd_device_impl broken = *device->impl;
	const struct vl_epd_device_impl *memory_impl = device->impl;
	device->impl = &broken;

	for (uint32_t group_max = 0; group_max < 2; group_max++) {
		device->group_max = group_max;
		error[0] = '\0';
		assert_false(vl_epd_device_check(device, error, sizeof(error)));
		assert_non_null(strstr(error, "group_max"));
		struct vl_epd_io io;
		assert_false(vl_epd_io_init(&io, device, loop, on_result, NULL));
	}
	/* nor may it leave out what every device needs */
	device->group_max = 4;
	broken.submit = NULL;
	assert_false(vl_epd_device_check(device, error, sizeof(error)));
	assert_non_null(strstr(error, "submit"));
	broken = *memory_impl;
	broken.wait = NULL;
	assert_false(vl_epd_device_check(device, error, sizeof(error)));
	assert_non_null(strstr(error, "wait"));
	broken = *memory_impl;
	assert_true(vl_epd_device_check(device, error, sizeof(error)));

	device->impl = memory_impl;
	vl_epd_device_unref(device);
	wl_event_loop_destroy(loop);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups_by_kind),
		cmocka_unit_test(test_overlaps_keep_order),
		cmocka_unit_test(test_kicks_apart),
		cmocka_unit_test(test_waits_for_kick),
		cmocka_unit_test(test_one_a_call),
		cmocka_unit_test(test_refused_group),
		cmocka_unit_test(test_broken_group_contract),
		cmocka_unit_test(test_completions_in_any_order),
		cmocka_unit_test(test_busy_is_not_yet_submitted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
