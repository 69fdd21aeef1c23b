// SPDX-License-Identifier: MIT
/*
 * The output's lifecycle on the memory device, as wlroots and the feedback
 * API expect it: frames after every commit, present events after the commit
 * event, no placeholder on the panel, nothing driven while disabled, failed
 * updates retried and never reported shown, callbacks that commit again,
 * destruction with updates in flight. Runs under ASan and UBSan too.
 */
#include <drm_fourcc.h>
#include <epdfb.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <vellum/epd-pipeline.h>
#include <wlr/interfaces/wlr_buffer.h>
#include <wlr/render/allocator.h>
#include <wlr/render/wlr_renderer.h>

#include "backend.h"
#include "scene_harness.h"

#define W 400
#define H 300

struct fixture {
	struct scene_harness h;
	struct vl_epd_device *device;
	struct wl_listener commit, output_destroy;
	/* commit and present events in the order they came, by commit_seq */
	uint32_t events[64];
	size_t n_events;
	bool output_destroyed;
};

struct settle {
	unsigned int calls, order;
	bool settled;
};

static void
note_feedback(const struct vl_epd_feedback *feedback, void *data)
{
	static unsigned int calls_so_far;
	struct settle *settle = data;

	settle->calls++;
	settle->order = ++calls_so_far;
	settle->settled = feedback->settled;
}

static void
record_event(struct fixture *f, uint32_t value)
{
	if (f->n_events < sizeof(f->events) / sizeof(f->events[0]))
		f->events[f->n_events++] = value;
}

/* Commit events are recorded as seq, present events as seq | 1 << 31. */
static void
handle_commit(struct wl_listener *listener, void *data)
{
	struct fixture *f = wl_container_of(listener, f, commit);
	const struct wlr_output_event_commit *event = data;

	record_event(f, event->output->commit_seq);
}

static void
handle_present_order(struct wl_listener *listener, void *data)
{
	struct fixture *f = wl_container_of(listener, f, h.present);
	const struct wlr_output_event_present *event = data;

	record_event(f, event->commit_seq | 1u << 31);
	if (event->presented)
		f->h.presented++;
	else
		f->h.discarded++;
}

/* The harness and this test listen to the output; an output that goes away drops them. */
static void
handle_output_destroy(struct wl_listener *listener, void *data)
{
	struct fixture *f = wl_container_of(listener, f, output_destroy);
	(void)data;

	wl_list_remove(&f->commit.link);
	wl_list_remove(&f->output_destroy.link);
	wl_list_remove(&f->h.frame.link);
	wl_list_remove(&f->h.present.link);
	f->h.output = NULL;
	f->output_destroyed = true;
}

static void
start(struct fixture *f, const struct vl_epd_backend_options *options)
{
	char error[256];

	memset(f, 0, sizeof(*f));
	assert_true(scene_harness_start_with(&f->h, options, error, sizeof(error)));
	struct vl_epd_backend *backend = wl_container_of(f->h.backend, backend, base);
	f->device = backend->device;
	f->commit.notify = handle_commit;
	wl_signal_add(&f->h.output->events.commit, &f->commit);
	f->output_destroy.notify = handle_output_destroy;
	wl_signal_add(&f->h.output->events.destroy, &f->output_destroy);
	/* present events are counted here, in order with commit events */
	wl_list_remove(&f->h.present.link);
	f->h.present.notify = handle_present_order;
	wl_signal_add(&f->h.output->events.present, &f->h.present);
}

static void
start_memory(struct fixture *f)
{
	struct vl_epd_backend_options options = {.device = "memory:400x300"};

	start(f, &options);
}

static void
finish(struct fixture *f)
{
	if (f->h.output) {
		wl_list_remove(&f->commit.link);
		wl_list_remove(&f->output_destroy.link);
	}
	scene_harness_finish(&f->h);
}

static size_t
n_updates(struct fixture *f)
{
	const struct vl_epd_update *u;

	return vl_epd_memory_updates(f->device, &u);
}

static const struct vl_epd_update *
update_at(struct fixture *f, size_t i)
{
	const struct vl_epd_update *u;

	assert_true(i < vl_epd_memory_updates(f->device, &u));
	return &u[i];
}

static uint8_t
panel_at(struct fixture *f, int x, int y)
{
	return vl_epd_memory_panel(f->device)[y * W + x];
}

/* Shows the scene and expects it settled. */
static void
show(struct fixture *f)
{
	struct vl_epd_feedback feedback;

	assert_true(scene_harness_show(&f->h, &feedback));
	assert_true(feedback.settled);
}

static void
commit_now(struct fixture *f, struct settle *settle)
{
	vl_epd_output_add_feedback(f->h.output, note_feedback, settle);
	assert_true(wlr_scene_output_commit(f->h.scene_output, NULL));
}

static void
run_until_called(struct fixture *f, struct settle *settle)
{
	bool called = false;

	while (!called) {
		called = settle->calls > 0;
		if (!called)
			assert_true(wl_event_loop_dispatch(f->h.loop, 5000) >= 0);
	}
}

/* Like run_until_called, false when no call came in the harness's settle timeout. */
static bool
run_until_called_in_time(struct fixture *f, struct settle *settle)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (settle->calls == 0) {
		assert_true(wl_event_loop_dispatch(f->h.loop, 100) >= 0);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 >
			10000)
			return false;
	}
	return true;
}

static struct vl_epd_output *
epd_output(struct fixture *f)
{
	struct vl_epd_backend *backend = wl_container_of(f->h.backend, backend, base);

	return backend->output;
}

/* The longest delay an area waits for its retry now. */
static unsigned int
longest_backoff(struct fixture *f)
{
	const struct vl_epd_output *output = epd_output(f);
	unsigned int longest = 0;

	for (size_t i = 0; i < VL_EPD_RETRY_AREAS; i++) {
		const struct vl_epd_retry_area *retry = &output->retries[i];
		if (pixman_region32_not_empty((pixman_region32_t *)&retry->area) &&
			retry->backoff_ms > longest)
			longest = retry->backoff_ms;
	}
	return longest;
}

/* Submissions the device refused, in a device that takes one update a call. */
static unsigned int
refused_submissions(struct fixture *f)
{
	const struct vl_epd_update *u;

	return vl_epd_memory_submissions(f->device) - vl_epd_memory_updates(f->device, &u);
}

/* wlroots waits for a frame after every commit, also one without a buffer. */
static void
test_frame_after_commit_without_buffer(void **state)
{
	struct fixture f;
	(void)state;

	start_memory(&f);
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	show(&f);
	assert_true(scene_harness_wait_frame(&f.h));

	f.h.frame_ready = false;
	assert_true(scene_harness_set_transform(&f.h, WL_OUTPUT_TRANSFORM_90));
	assert_true(scene_harness_wait_frame(&f.h));
	/* and the next frame after that, so the scene keeps drawing */
	f.h.frame_ready = false;
	assert_true(scene_harness_set_transform(&f.h, WL_OUTPUT_TRANSFORM_NORMAL));
	assert_true(scene_harness_wait_frame(&f.h));
	finish(&f);
}

/* Enabling the output shows nothing of wlroots' empty placeholder buffer. */
static void
test_enable_sends_no_placeholder(void **state)
{
	struct fixture f;
	(void)state;

	start_memory(&f);
	/* the harness enabled the output: wlroots committed its placeholder */
	wl_event_loop_dispatch(f.h.loop, 0);
	assert_int_equal(n_updates(&f), 0);

	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	scene_harness_rect(&f.h, 10, 10, 20, 20, 0);
	show(&f);
	/* one flashing refresh of the whole panel, with the real content */
	assert_int_equal(n_updates(&f), 1);
	assert_true(update_at(&f, 0)->full);
	assert_int_equal(update_at(&f, 0)->rect.width, W);
	assert_int_equal(update_at(&f, 0)->rect.height, H);
	assert_int_equal(panel_at(&f, 100, 100), 255);
	assert_int_equal(panel_at(&f, 15, 15), 0);
	finish(&f);
}

static bool
set_enabled(struct fixture *f, bool enabled)
{
	struct wlr_output_state output_state;

	wlr_output_state_init(&output_state);
	wlr_output_state_set_enabled(&output_state, enabled);
	bool ok = wlr_output_commit_state(f->h.output, &output_state);
	wlr_output_state_finish(&output_state);
	return ok;
}

/* A disabled output drives nothing, idle cleanup included; enabling it again sends only changes. */
static void
test_disabled_output_drives_nothing(void **state)
{
	struct vl_epd_backend_options options = {
		.device = "memory:400x300",
		.idle_cleanup_ms = 50,
	};
	struct fixture f;
	(void)state;

	start(&f, &options);
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	struct wlr_scene_rect *mark = scene_harness_rect(&f.h, 50, 50, 10, 10, 0);
	show(&f);
	size_t before = n_updates(&f);

	assert_true(set_enabled(&f, false));
	scene_harness_set_gray(mark, 255);
	scene_harness_rect(&f.h, 200, 200, 10, 10, 0);
	scene_harness_idle(&f.h, 300);
	assert_int_equal(n_updates(&f), before);

	assert_true(set_enabled(&f, true));
	f.h.frame_ready = true;
	show(&f);
	/* no flash: the panel kept its image; only what changed is sent */
	for (size_t i = before; i < n_updates(&f); i++) {
		const struct vl_epd_update *u = update_at(&f, i);
		if (u->full)
			continue; /* the idle cleanup of the new marks may follow */
		assert_true(u->rect.width <= 160 && u->rect.height <= 160);
	}
	assert_true(n_updates(&f) > before);
	assert_false(update_at(&f, before)->full);
	assert_int_equal(panel_at(&f, 55, 55), 255);
	assert_int_equal(panel_at(&f, 205, 205), 0);
	finish(&f);
}

/* Present events follow wlroots' commit event and name that commit. */
static void
test_present_after_commit_event(void **state)
{
	struct fixture f;
	(void)state;

	start_memory(&f);
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	show(&f);
	wl_event_loop_dispatch(f.h.loop, 0);

	/* a commit that changes nothing settles at once, but not inside the commit */
	f.n_events = 0;
	scene_harness_damage_all(&f.h);
	struct settle settle = {0};
	assert_true(scene_harness_wait_frame(&f.h));
	commit_now(&f, &settle);
	uint32_t seq = f.h.output->commit_seq;
	assert_int_equal(settle.calls, 0);
	run_until_called(&f, &settle);
	assert_true(settle.settled);
	assert_int_equal(f.n_events, 2);
	assert_int_equal(f.events[0], seq);
	assert_int_equal(f.events[1], seq | 1u << 31);
	finish(&f);
}

struct chain {
	struct fixture *f;
	struct wlr_scene_rect *rect;
	unsigned int pages, settled;
};

/* "Draw the next page when this one settled", from inside the callback. */
static void
next_page(const struct vl_epd_feedback *feedback, void *data)
{
	struct chain *chain = data;

	chain->settled += feedback->settled;
	if (chain->pages == 0)
		return;
	chain->pages--;
	scene_harness_set_gray(chain->rect, chain->pages % 2 ? 0 : 255);
	vl_epd_output_add_feedback(chain->f->h.output, next_page, chain);
	assert_true(wlr_scene_output_commit(chain->f->h.scene_output, NULL));
}

static void
test_callbacks_commit_again(void **state)
{
	struct fixture f;
	(void)state;

	start_memory(&f);
	vl_epd_memory_set_latency(f.device, 5);
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	struct chain chain = {.f = &f, .rect = scene_harness_rect(&f.h, 20, 20, 30, 30, 0)};
	show(&f);

	chain.pages = 6;
	scene_harness_set_gray(chain.rect, 128);
	vl_epd_output_add_feedback(f.h.output, next_page, &chain);
	assert_true(wlr_scene_output_commit(f.h.scene_output, NULL));
	for (int i = 0; i < 200 && chain.settled < 7; i++)
		wl_event_loop_dispatch(f.h.loop, 50);
	assert_int_equal(chain.pages, 0);
	assert_int_equal(chain.settled, 7);
	assert_int_equal(panel_at(&f, 25, 25), 255);
	finish(&f);
}

/* Areas drawn while the user worked get their cleanup even when the last commits changed nothing.
 */
static void
test_cleanup_after_unchanged_commit(void **state)
{
	struct vl_epd_backend_options options = {
		.device = "memory:400x300",
		/* long enough for the unchanged commit to come before the cleanup */
		.idle_cleanup_ms = 1500,
		.input_window_ms = 60000,
	};
	struct fixture f;
	(void)state;

	start(&f, &options);
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	show(&f);
	vl_epd_backend_notify_input(f.h.backend, VL_EPD_INPUT_KEY);
	scene_harness_rect(&f.h, 100, 100, 40, 10, 0);
	show(&f);
	size_t before = n_updates(&f);
	assert_false(update_at(&f, before - 1)->full);

	scene_harness_damage_all(&f.h);
	show(&f);
	assert_int_equal(n_updates(&f), before);
	for (int i = 0; i < 100 && n_updates(&f) == before; i++)
		wl_event_loop_dispatch(f.h.loop, 50);
	assert_int_equal(n_updates(&f), before + 1);
	/* one DU update left little debt: a redraw for quality, no flash */
	assert_false(update_at(&f, before)->full);
	assert_int_equal(update_at(&f, before)->waveform, WAVEFORM_MODE_GL16);
	finish(&f);
}

/*
 * Shows a black square on white, then makes the panel take latency_ms an
 * update and commits two changes of the square: two flushes in flight.
 */
static void
start_two_in_flight(struct fixture *f, unsigned int latency_ms, struct settle *a, struct settle *b)
{
	start_memory(f);
	scene_harness_rect(&f->h, 0, 0, W, H, 255);
	struct wlr_scene_rect *rect = scene_harness_rect(&f->h, 20, 20, 30, 30, 0);
	show(f);
	vl_epd_memory_set_latency(f->device, latency_ms);
	scene_harness_set_gray(rect, 255);
	commit_now(f, a);
	scene_harness_set_gray(rect, 0);
	commit_now(f, b);
}

/* A commit that changes nothing, made while frames are held, still settles. */
static void
test_unchanged_commit_while_held(void **state)
{
	struct fixture f;
	struct settle a = {0}, b = {0}, c = {0};
	(void)state;

	start_two_in_flight(&f, 200, &a, &b);
	/* the same pixels again: a commit that changes nothing on the panel */
	scene_harness_damage_all(&f.h);
	commit_now(&f, &c);
	run_until_called(&f, &c);
	run_until_called(&f, &b);
	assert_true(a.settled && b.settled && c.settled);
	/* what c shows is b's content: it settles when b did, not before */
	assert_true(c.order > b.order);
	assert_int_equal(f.h.discarded, 0);
	finish(&f);
}

/*
 * Shows a white panel, then commits a black square while the device fails
 * count calls; returns how many updates there were before the square.
 */
static size_t
commit_square_failing(struct fixture *f, enum vl_epd_memory_call call, unsigned int count,
	int error, struct settle *settle)
{
	start_memory(f);
	scene_harness_rect(&f->h, 0, 0, W, H, 255);
	show(f);
	size_t before = n_updates(f);

	vl_epd_memory_fail(f->device, call, count, error);
	scene_harness_rect(&f->h, 60, 60, 20, 20, 0);
	assert_true(scene_harness_wait_frame(&f->h));
	commit_now(f, settle);
	return before;
}

/* A failed submission is retried; its commit is reported shown only after the retry. */
static void
test_failed_submit_is_retried(void **state)
{
	struct fixture f;
	struct settle settle = {0};
	(void)state;

	size_t before = commit_square_failing(&f, VL_EPD_MEMORY_SUBMIT, 2, EIO, &settle);
	run_until_called(&f, &settle);
	assert_true(settle.settled);
	/* two failures, then the update that went through */
	assert_int_equal(n_updates(&f), before + 1);
	assert_int_equal(update_at(&f, before)->rect.left, 60);
	assert_int_equal(panel_at(&f, 65, 65), 0);
	finish(&f);
}

static void
test_failed_wait_is_retried(void **state)
{
	struct fixture f;
	struct settle settle = {0};
	(void)state;

	size_t before = commit_square_failing(&f, VL_EPD_MEMORY_WAIT, 1, ETIMEDOUT, &settle);
	run_until_called(&f, &settle);
	assert_true(settle.settled);
	/* the lost update is sent again */
	assert_int_equal(n_updates(&f), before + 2);
	assert_int_equal(update_at(&f, before + 1)->rect.left, 60);
	assert_int_equal(update_at(&f, before + 1)->rect.width, 20);
	finish(&f);
}

/*
 * The delay before a retry doubles while the update keeps failing, up to
 * its cap: 2000 ms, never past it.
 */
static void
test_retry_backoff_capped(void **state)
{
	struct fixture f;
	struct settle settle = {0};
	unsigned int longest = 0;
	(void)state;

	/* 50, 100, ... 1600 ms, then the cap, twice */
	commit_square_failing(&f, VL_EPD_MEMORY_SUBMIT, 7, EIO, &settle);
	while (settle.calls == 0) {
		assert_true(wl_event_loop_dispatch(f.h.loop, 5000) >= 0);
		unsigned int backoff = longest_backoff(&f);
		longest = backoff > longest ? backoff : longest;
	}
	assert_true(settle.settled);
	assert_int_equal(longest, 2000);
	finish(&f);
}

/*
 * A waveform the driver refuses (EINVAL, as for an unknown id) is not
 * retried as it is: the update goes out once more with a safe waveform
 * (GC16), and shows. Later updates of that waveform go out as GC16 at once.
 */
static void
test_refused_waveform_falls_back(void **state)
{
	struct fixture f;
	struct settle first = {0}, second = {0};
	(void)state;

	start_memory(&f);
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	show(&f);
	const uint32_t refused[] = {WAVEFORM_MODE_DU, WAVEFORM_MODE_A2, WAVEFORM_MODE_GL16,
		WAVEFORM_MODE_GC4, WAVEFORM_MODE_AUTO};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		vl_epd_memory_refuse_waveform(f.device, refused[i]);
	size_t before = n_updates(&f);
	unsigned int calls = vl_epd_memory_submissions(f.device);

	scene_harness_rect(&f.h, 60, 60, 20, 20, 0);
	assert_true(scene_harness_wait_frame(&f.h));
	commit_now(&f, &first);
	assert_true(run_until_called_in_time(&f, &first));
	assert_true(first.settled);
	assert_int_equal(panel_at(&f, 65, 65), 0);
	assert_int_equal(n_updates(&f), before + 1);
	assert_int_equal(update_at(&f, before)->waveform, WAVEFORM_MODE_GC16);
	/* refused once, then the safe waveform */
	assert_int_equal(vl_epd_memory_submissions(f.device) - calls, 2);

	scene_harness_rect(&f.h, 200, 60, 20, 20, 0);
	assert_true(scene_harness_wait_frame(&f.h));
	commit_now(&f, &second);
	assert_true(run_until_called_in_time(&f, &second));
	assert_true(second.settled);
	assert_int_equal(panel_at(&f, 205, 65), 0);
	assert_int_equal(update_at(&f, before + 1)->waveform, WAVEFORM_MODE_GC16);
	assert_int_equal(vl_epd_memory_submissions(f.device) - calls, 3);
	finish(&f);
}

/*
 * An update the driver refuses for good, with the safe waveform too, is
 * given up: its commit is not reported shown, and it is not retried on
 * its own; frames go on. Later content takes the refused area along, so
 * that once the device takes updates again the panel shows everything.
 */
static void
test_refused_for_good_is_given_up(void **state)
{
	struct fixture f;
	struct settle a = {0}, b = {0}, c = {0};
	(void)state;

	start_memory(&f);
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	show(&f);
	unsigned int calls = vl_epd_memory_submissions(f.device);
	vl_epd_memory_fail(f.device, VL_EPD_MEMORY_SUBMIT, 1000, EINVAL);

	scene_harness_rect(&f.h, 60, 60, 20, 20, 0);
	assert_true(scene_harness_wait_frame(&f.h));
	commit_now(&f, &a);
	assert_true(run_until_called_in_time(&f, &a));
	assert_false(a.settled);
	/* the update, then once with the safe waveform */
	assert_int_equal(vl_epd_memory_submissions(f.device) - calls, 2);
	assert_false(epd_output(&f)->retry_pending);
	/* a retry of its own would come at once or after 50 ms */
	wl_event_loop_dispatch(f.h.loop, 300);
	assert_int_equal(vl_epd_memory_submissions(f.device) - calls, 2);

	/* the next change takes the refused area along: two updates, each refused twice */
	scene_harness_rect(&f.h, 200, 200, 20, 20, 0);
	assert_true(scene_harness_wait_frame(&f.h));
	commit_now(&f, &b);
	assert_true(run_until_called_in_time(&f, &b));
	assert_false(b.settled);
	assert_int_equal(vl_epd_memory_submissions(f.device) - calls, 6);

	vl_epd_memory_fail(f.device, VL_EPD_MEMORY_SUBMIT, 0, 0);
	scene_harness_rect(&f.h, 300, 100, 20, 20, 0);
	assert_true(scene_harness_wait_frame(&f.h));
	commit_now(&f, &c);
	assert_true(run_until_called_in_time(&f, &c));
	assert_true(c.settled);
	assert_int_equal(panel_at(&f, 305, 105), 0);
	assert_int_equal(panel_at(&f, 205, 205), 0);
	assert_int_equal(panel_at(&f, 65, 65), 0);
	finish(&f);
}

/*
 * An update refused for good after a later frame went out: that frame is
 * not reported shown either, as the panel does not show the refused area;
 * the next change takes the area along.
 */
static void
test_refused_under_a_later_frame(void **state)
{
	struct fixture f;
	struct settle a = {0}, b = {0}, c = {0};
	(void)state;

	start_memory(&f);
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	show(&f);
	/*
	 * No update completes until b went out; then a's (DU, done at once)
	 * ends first, refused, while b's (gray levels) is on the panel.
	 */
	vl_epd_memory_set_latency(f.device, 1500);
	vl_epd_memory_set_waveform_latency(f.device, WAVEFORM_MODE_DU, 0);
	vl_epd_memory_fail(f.device, VL_EPD_MEMORY_WAIT, 1, EINVAL);
	vl_epd_memory_hold(f.device, true);

	scene_harness_rect(&f.h, 60, 60, 20, 20, 0);
	assert_true(scene_harness_wait_frame(&f.h));
	commit_now(&f, &a);
	scene_harness_rect(&f.h, 200, 200, 20, 20, 0x88);
	assert_true(scene_harness_wait_frame(&f.h));
	commit_now(&f, &b);
	assert_int_equal(a.calls, 0);
	vl_epd_memory_hold(f.device, false);
	assert_true(run_until_called_in_time(&f, &b));
	assert_false(a.settled);
	assert_false(b.settled);

	vl_epd_memory_set_latency(f.device, 0);
	scene_harness_rect(&f.h, 300, 100, 20, 20, 0);
	assert_true(scene_harness_wait_frame(&f.h));
	commit_now(&f, &c);
	assert_true(run_until_called_in_time(&f, &c));
	assert_true(c.settled);
	assert_int_equal(panel_at(&f, 65, 65), 0);
	assert_int_equal(panel_at(&f, 205, 205), 0x88);
	finish(&f);
}

/*
 * An area whose updates keep failing waits for its own retries: content
 * elsewhere goes to the panel meanwhile, frame after frame, without waking
 * the failing area's retry, nor resetting its backoff.
 */
static void
test_failing_area_backs_off_alone(void **state)
{
	struct fixture f;
	struct settle a = {0}, others[4] = {0};
	(void)state;

	start_memory(&f);
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	struct wlr_scene_rect *failing = scene_harness_rect(&f.h, 20, 20, 30, 30, 255);
	struct wlr_scene_rect *other = scene_harness_rect(&f.h, 200, 200, 30, 30, 255);
	show(&f);
	vl_epd_memory_fail_area(f.device, &(struct vl_epd_rect){20, 20, 30, 30}, EIO);
	scene_harness_set_gray(failing, 0);
	commit_now(&f, &a);
	while (longest_backoff(&f) < 800)
		assert_true(wl_event_loop_dispatch(f.h.loop, 100) >= 0);

	unsigned int failures = refused_submissions(&f);
	for (int i = 0; i < 4; i++) {
		uint8_t gray = i % 2 ? 255 : 0;
		assert_true(scene_harness_wait_frame(&f.h));
		scene_harness_set_gray(other, gray);
		commit_now(&f, &others[i]);
		while (panel_at(&f, 205, 205) != gray)
			assert_true(wl_event_loop_dispatch(f.h.loop, 100) >= 0);
		assert_true(longest_backoff(&f) >= 800);
	}
	/* the failing area was not sent with each of them */
	assert_true(refused_submissions(&f) - failures < 4);
	assert_int_equal(panel_at(&f, 25, 25), 255);

	vl_epd_memory_fail_area(f.device, &(struct vl_epd_rect){0}, 0);
	assert_true(run_until_called_in_time(&f, &others[3]));
	assert_true(others[3].settled);
	assert_int_equal(panel_at(&f, 25, 25), 0);
	assert_int_equal(panel_at(&f, 205, 205), 255);
	assert_int_equal(longest_backoff(&f), 0);
	finish(&f);
}

/*
 * An area whose update failed goes out again even when the content there
 * changes meanwhile to something the failed update happened to make look
 * sent (here: back to white, the inverse of the failed black).
 */
static void
test_failed_area_sent_whatever_comes_next(void **state)
{
	struct fixture f;
	struct settle failing = {0}, next = {0};
	(void)state;

	commit_square_failing(&f, VL_EPD_MEMORY_WAIT, 1, ETIMEDOUT, &failing);
	struct vl_epd_backend *backend = wl_container_of(f.h.backend, backend, base);
	/* the failure is known, its retry still waits */
	while (!backend->output->retry_pending)
		assert_true(wl_event_loop_dispatch(f.h.loop, 1) >= 0);
	assert_int_equal(panel_at(&f, 65, 65), 0);

	scene_harness_rect(&f.h, 60, 60, 20, 20, 255);
	assert_true(scene_harness_wait_frame(&f.h));
	commit_now(&f, &next);
	run_until_called(&f, &next);
	assert_true(next.settled);
	assert_int_equal(panel_at(&f, 65, 65), 255);
	finish(&f);
}

/*
 * A commit whose own updates went through is not shown while an older
 * update failed: its frame has that area too. It settles with the retry.
 */
static void
test_newer_commit_waits_for_failed_area(void **state)
{
	struct fixture f;
	struct settle a = {0}, b = {0};
	(void)state;

	start_memory(&f);
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	struct wlr_scene_rect *first = scene_harness_rect(&f.h, 20, 20, 30, 30, 255);
	struct wlr_scene_rect *second = scene_harness_rect(&f.h, 100, 100, 30, 30, 255);
	show(&f);
	vl_epd_memory_fail(f.device, VL_EPD_MEMORY_SUBMIT, 1, EIO);
	scene_harness_set_gray(first, 0);
	commit_now(&f, &a);
	/* planned before the failure is known */
	scene_harness_set_gray(second, 0);
	commit_now(&f, &b);
	run_until_called(&f, &b);
	assert_true(b.settled);
	assert_int_equal(panel_at(&f, 105, 105), 0);
	assert_int_equal(panel_at(&f, 25, 25), 0);
	finish(&f);
}

/* A device that is gone destroys the output; nothing is reported shown. */
static void
test_device_gone(void **state)
{
	struct fixture f;
	struct settle settle = {0}, next = {0};
	(void)state;

	commit_square_failing(&f, VL_EPD_MEMORY_SUBMIT, 1, ENODEV, &settle);
	vl_epd_output_add_feedback(f.h.output, note_feedback, &next);
	assert_true(scene_harness_run_until(&f.h, &f.output_destroyed));
	assert_int_equal(settle.calls, 1);
	assert_false(settle.settled);
	assert_int_equal(next.calls, 1);
	assert_false(next.settled);
	finish(&f);
}

static int64_t
elapsed_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)(now.tv_sec - since->tv_sec) * 1000 +
	       (now.tv_nsec - since->tv_nsec) / 1000000;
}

/* Destroying the backend with updates in flight: every callback once, no waiting. */
static void
test_destroy_in_flight(void **state)
{
	struct fixture f;
	struct settle a = {0}, b = {0}, next = {0};
	struct timespec start_time;
	(void)state;

	/* far longer than the test may take: only a cancelled wait ends in time */
	start_two_in_flight(&f, 60000, &a, &b);
	vl_epd_output_add_feedback(f.h.output, note_feedback, &next);

	clock_gettime(CLOCK_MONOTONIC, &start_time);
	finish(&f);
	assert_true(elapsed_ms(&start_time) < 30000);
	assert_int_equal(a.calls, 1);
	assert_int_equal(b.calls, 1);
	assert_int_equal(next.calls, 1);
	assert_false(a.settled || b.settled || next.settled);
}

/* Content held back by frame pacing still reaches the panel when the backend goes. */
static void
test_destroy_sends_held_content(void **state)
{
	struct fixture f;
	struct settle a = {0}, b = {0}, c = {0};
	(void)state;

	start_two_in_flight(&f, 60000, &a, &b);
	/* two flushes in flight: this one waits */
	scene_harness_rect(&f.h, 200, 200, 10, 10, 0);
	commit_now(&f, &c);
	struct vl_epd_device *device = vl_epd_device_ref(f.device);

	finish(&f);
	/* the first frame, a and b in flight, then c at the end (the I/O threads may lag) */
	const struct vl_epd_update *u;
	size_t n = vl_epd_memory_updates(device, &u);
	assert_int_equal(n, 4);
	assert_int_equal(u[3].rect.left, 200);
	assert_int_equal(vl_epd_memory_panel(device)[205 * W + 205], 0);
	assert_false(c.settled);
	vl_epd_device_unref(device);
}

/* Markers wrap past UINT32_MAX to 1: 0 means "no marker" to the driver. */
static void
test_marker_wrap(void **state)
{
	struct fixture f;
	(void)state;

	start_memory(&f);
	struct vl_epd_backend *backend = wl_container_of(f.h.backend, backend, base);
	backend->output->next_marker = UINT32_MAX - 1;
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	show(&f);
	for (int i = 0; i < 3; i++) {
		scene_harness_rect(&f.h, 10 + 40 * i, 10, 20, 20, 0);
		show(&f);
	}
	assert_int_equal(n_updates(&f), 4);
	assert_int_equal(update_at(&f, 0)->marker, UINT32_MAX - 1);
	assert_int_equal(update_at(&f, 1)->marker, UINT32_MAX);
	assert_int_equal(update_at(&f, 2)->marker, 1);
	assert_int_equal(update_at(&f, 3)->marker, 2);
	finish(&f);
}

/* A full-refresh hint flashes exactly its area, even without damage. */
static void
test_full_refresh_hint(void **state)
{
	struct fixture f;
	struct vl_epd_hint hint = {
		.box = {.x = 30, .y = 40, .width = 50, .height = 60},
		.full_refresh = true,
	};
	(void)state;

	start_memory(&f);
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	scene_harness_rect(&f.h, 30, 40, 50, 60, 0);
	show(&f);
	size_t before = n_updates(&f);

	vl_epd_output_add_hint(f.h.output, &hint);
	scene_harness_damage_all(&f.h);
	show(&f);
	assert_int_equal(n_updates(&f), before + 1);
	const struct vl_epd_update *u = update_at(&f, before);
	assert_true(u->full);
	assert_int_equal(u->waveform, WAVEFORM_MODE_GC16);
	assert_int_equal(u->rect.left, 30);
	assert_int_equal(u->rect.top, 40);
	assert_int_equal(u->rect.width, 50);
	assert_int_equal(u->rect.height, 60);
	finish(&f);
}

/* Hint boxes from clients may reach anywhere: they are clipped, never wrapped. */
static void
test_hint_out_of_range(void **state)
{
	struct fixture f;
	struct vl_epd_hint huge = {
		.box = {.x = INT32_MAX - 10, .y = INT32_MAX - 10, .width = 100, .height = 100},
		.mode = VL_EPD_MODE_ANIMATION,
	};
	struct vl_epd_hint negative = {
		.box = {.x = -1000, .y = -1000, .width = 1040, .height = 1040},
		.mode = (enum vl_epd_mode)77,
		.full_refresh = true,
	};
	(void)state;

	start_memory(&f);
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	show(&f);
	size_t before = n_updates(&f);
	vl_epd_output_add_hint(f.h.output, &huge);
	vl_epd_output_add_hint(f.h.output, &negative);
	scene_harness_damage_all(&f.h);
	show(&f);
	/* only the part on the panel, 40x40 at the corner, is refreshed */
	assert_int_equal(n_updates(&f), before + 1);
	assert_int_equal(update_at(&f, before)->rect.left, 0);
	assert_int_equal(update_at(&f, before)->rect.width, 40);
	assert_int_equal(update_at(&f, before)->rect.height, 40);
	finish(&f);
}

/* Repeated partial updates of one area are promoted to a flashing refresh. */
static void
test_ghost_promotion(void **state)
{
	struct vl_epd_backend_options options = {
		.device = "memory:400x300",
		.full_refresh_every = 3,
	};
	struct fixture f;
	(void)state;

	start(&f, &options);
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	struct wlr_scene_rect *rect = scene_harness_rect(&f.h, 100, 100, 20, 20, 0);
	show(&f);
	size_t before = n_updates(&f);
	size_t flashes = 0;
	for (int i = 0; i < 4; i++) {
		scene_harness_set_gray(rect, i % 2 ? 0 : 255);
		show(&f);
	}
	for (size_t i = before; i < n_updates(&f); i++)
		flashes += update_at(&f, i)->full;
	assert_int_equal(n_updates(&f), before + 4);
	assert_int_equal(flashes, 1);
	finish(&f);
}

/* wlroots tests a new swapchain's buffer before installing it. */
static void
test_render_format_change(void **state)
{
	struct fixture f;
	struct wlr_output_state output_state;
	(void)state;

	start_memory(&f);
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	show(&f);
	wlr_output_state_init(&output_state);
	wlr_output_state_set_render_format(&output_state, DRM_FORMAT_ARGB8888);
	assert_true(wlr_output_commit_state(f.h.output, &output_state));
	wlr_output_state_finish(&output_state);
	assert_int_equal(f.h.output->render_format, DRM_FORMAT_ARGB8888);
	finish(&f);
}

/*
 * A buffer whose rows the gray stage cannot read as they are laid out: a
 * stride too short for the panel's width, or not a whole number of pixels.
 */
struct bad_buffer {
	struct wlr_buffer base;
	uint32_t *pixels;
	uint32_t format;
	size_t stride;
};

static void
bad_buffer_destroy(struct wlr_buffer *buffer)
{
	struct bad_buffer *bad = wl_container_of(buffer, bad, base);

	free(bad->pixels);
	free(bad);
}

static bool
bad_buffer_begin_access(
	struct wlr_buffer *buffer, uint32_t flags, void **data, uint32_t *format, size_t *stride)
{
	struct bad_buffer *bad = wl_container_of(buffer, bad, base);
	(void)flags;

	*data = bad->pixels;
	*format = bad->format;
	*stride = bad->stride;
	return true;
}

static void
bad_buffer_end_access(struct wlr_buffer *buffer)
{
	(void)buffer;
}

static const struct wlr_buffer_impl bad_buffer_impl = {
	.destroy = bad_buffer_destroy,
	.begin_data_ptr_access = bad_buffer_begin_access,
	.end_data_ptr_access = bad_buffer_end_access,
};

static struct wlr_buffer *
bad_buffer_create(uint32_t format, size_t stride)
{
	struct bad_buffer *bad = calloc(1, sizeof(*bad));

	assert_non_null(bad);
	/* black, and room for every row at the panel's own stride */
	bad->pixels = calloc((size_t)W * H, 4);
	assert_non_null(bad->pixels);
	bad->format = format;
	bad->stride = stride;
	wlr_buffer_init(&bad->base, &bad_buffer_impl, W, H);
	return &bad->base;
}

/*
 * A buffer the gray stage cannot convert is refused by the test and by the
 * commit, and nothing of it reaches the panel. The render format changes
 * with it (from XRGB8888), as when wlroots sets up a swapchain: otherwise
 * the buffer would be refused as one for direct scanout.
 */
static void
test_unconvertible_buffer_refused(void **state)
{
	static const struct {
		uint32_t format;
		size_t stride;
	} cases[] = {
		{DRM_FORMAT_ARGB8888, W * 4 - 4},
		{DRM_FORMAT_ARGB8888, W * 4 + 2},
		{DRM_FORMAT_RGB565, W * 2 - 2},
		{DRM_FORMAT_RGB565, W * 2 + 1},
		{DRM_FORMAT_ARGB8888, (size_t)INT32_MAX + 4},
	};
	struct fixture f;
	(void)state;

	start_memory(&f);
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	show(&f);
	size_t before = n_updates(&f);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wlr_buffer *buffer = bad_buffer_create(cases[i].format, cases[i].stride);
		struct wlr_output_state output_state;
		wlr_output_state_init(&output_state);
		wlr_output_state_set_render_format(&output_state, cases[i].format);
		wlr_output_state_set_buffer(&output_state, buffer);
		print_message("format 0x%x stride %zu\n", cases[i].format, cases[i].stride);
		assert_false(wlr_output_test_state(f.h.output, &output_state));
		assert_false(wlr_output_commit_state(f.h.output, &output_state));
		wlr_output_state_finish(&output_state);
		wlr_buffer_drop(buffer);
	}
	scene_harness_idle(&f.h, 50);
	assert_int_equal(n_updates(&f), before);
	assert_int_equal(panel_at(&f, 10, 10), 255);
	finish(&f);
}

/*
 * Content the pipeline could not write into the framebuffer (here its
 * stride made unusable for one flush) is neither submitted with the old
 * pixels nor taken for sent: it goes out with the retry.
 */
static void
test_failed_write_is_retried(void **state)
{
	struct fixture f;
	struct settle settle = {0};
	(void)state;

	start_memory(&f);
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	show(&f);
	size_t before = n_updates(&f);

	scene_harness_rect(&f.h, 60, 60, 20, 20, 0);
	assert_true(scene_harness_wait_frame(&f.h));
	uint32_t stride = f.device->stride;
	f.device->stride = 0;
	/* the flush runs within the commit */
	commit_now(&f, &settle);
	f.device->stride = stride;
	assert_int_equal(n_updates(&f), before);
	run_until_called(&f, &settle);
	assert_true(settle.settled);
	assert_int_equal(n_updates(&f), before + 1);
	assert_int_equal(update_at(&f, before)->rect.left, 60);
	assert_int_equal(panel_at(&f, 65, 65), 0);
	finish(&f);
}

static void
handle_backend_destroy(struct wl_listener *listener, void *data)
{
	(void)data;
	*(bool *)((char *)listener + sizeof(*listener)) = true;
}

/* The backend goes with its event loop, as wlroots' own backends do. */
static void
test_event_loop_destroyed(void **state)
{
	struct {
		struct wl_listener listener;
		bool destroyed;
	} watch = {.listener.notify = handle_backend_destroy};
	struct fixture f;
	(void)state;

	start_memory(&f);
	scene_harness_rect(&f.h, 0, 0, W, H, 255);
	show(&f);
	wl_signal_add(&f.h.backend->events.destroy, &watch.listener);
	wlr_scene_node_destroy(&f.h.scene->tree.node);
	f.h.scene = NULL;
	wlr_allocator_destroy(f.h.allocator);
	wlr_renderer_destroy(f.h.renderer);
	wl_display_destroy(f.h.display);
	assert_true(watch.destroyed);
	assert_true(f.output_destroyed);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_after_commit_without_buffer),
		cmocka_unit_test(test_enable_sends_no_placeholder),
		cmocka_unit_test(test_disabled_output_drives_nothing),
		cmocka_unit_test(test_present_after_commit_event),
		cmocka_unit_test(test_callbacks_commit_again),
		cmocka_unit_test(test_cleanup_after_unchanged_commit),
		cmocka_unit_test(test_unchanged_commit_while_held),
		cmocka_unit_test(test_failed_submit_is_retried),
		cmocka_unit_test(test_failed_wait_is_retried),
		cmocka_unit_test(test_retry_backoff_capped),
		cmocka_unit_test(test_refused_waveform_falls_back),
		cmocka_unit_test(test_refused_for_good_is_given_up),
		cmocka_unit_test(test_refused_under_a_later_frame),
		cmocka_unit_test(test_failing_area_backs_off_alone),
		cmocka_unit_test(test_failed_area_sent_whatever_comes_next),
		cmocka_unit_test(test_newer_commit_waits_for_failed_area),
		cmocka_unit_test(test_device_gone),
		cmocka_unit_test(test_destroy_in_flight),
		cmocka_unit_test(test_destroy_sends_held_content),
		cmocka_unit_test(test_marker_wrap),
		cmocka_unit_test(test_full_refresh_hint),
		cmocka_unit_test(test_hint_out_of_range),
		cmocka_unit_test(test_ghost_promotion),
		cmocka_unit_test(test_render_format_change),
		cmocka_unit_test(test_unconvertible_buffer_refused),
		cmocka_unit_test(test_failed_write_is_retried),
		cmocka_unit_test(test_event_loop_destroyed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
