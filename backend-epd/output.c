// SPDX-License-Identifier: MIT
/*
 * The wlr_output of an e-paper panel: commits are tested and taken into the
 * panel's gray content, hints and feedback are gathered for the next
 * commit. schedule.c sends the content to the panel and paces frames;
 * present events and feedback fire when the panel has settled (commit.c
 * sends them).
 */
#include <assert.h>
#include <drm_fourcc.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vellum/epd-pipeline.h>
#include <wlr/interfaces/wlr_buffer.h>
#include <wlr/render/swapchain.h>
#include <wlr/util/log.h>

#include "backend.h"

static const uint32_t SUPPORTED_OUTPUT_STATE =
	WLR_OUTPUT_STATE_BACKEND_OPTIONAL | WLR_OUTPUT_STATE_BUFFER | WLR_OUTPUT_STATE_MODE |
	WLR_OUTPUT_STATE_ENABLED | WLR_OUTPUT_STATE_RENDER_FORMAT;

/* Commits that may carry a buffer of a swapchain wlroots is still setting up. */
static const uint32_t RECONFIGURING_STATE =
	WLR_OUTPUT_STATE_MODE | WLR_OUTPUT_STATE_ENABLED | WLR_OUTPUT_STATE_RENDER_FORMAT;

static const struct wlr_output_impl output_impl;

static struct vl_epd_output *
epd_output_from_output(struct wlr_output *wlr_output)
{
	assert(vl_output_is_epd(wlr_output));
	struct vl_epd_output *output = wl_container_of(wlr_output, output, base);
	return output;
}

bool
vl_output_is_epd(struct wlr_output *output)
{
	return output->impl == &output_impl;
}

/*
 * The formats the gray stage reads. XRGB8888 is the default; RGB565, which
 * a compositor may ask for, renders the panel's 16 grays in half the
 * memory, each gray within a few levels of 256.
 */
static bool
format_supported(uint32_t format)
{
	return format == DRM_FORMAT_XRGB8888 || format == DRM_FORMAT_ARGB8888 ||
	       format == DRM_FORMAT_RGB565;
}

static enum vl_epd_pixel_format
pixel_format(uint32_t format)
{
	return format == DRM_FORMAT_RGB565 ? VL_EPD_PIXEL_RGB565 : VL_EPD_PIXEL_XRGB8888;
}

static bool
output_test(struct wlr_output *wlr_output, const struct wlr_output_state *state)
{
	struct vl_epd_output *output = epd_output_from_output(wlr_output);
	const struct vl_epd_device *dev = output->device;
	uint32_t unsupported = state->committed & ~SUPPORTED_OUTPUT_STATE;

	if (unsupported) {
		wlr_log(WLR_DEBUG, "unsupported output state fields: 0x%" PRIx32, unsupported);
		return false;
	}
	if ((state->committed & WLR_OUTPUT_STATE_RENDER_FORMAT) &&
		!format_supported(state->render_format)) {
		wlr_log(WLR_DEBUG, "render format 0x%" PRIx32 " is not XRGB8888 or RGB565",
			state->render_format);
		return false;
	}
	if ((state->committed & WLR_OUTPUT_STATE_MODE) &&
		(state->mode_type != WLR_OUTPUT_STATE_MODE_CUSTOM ||
			state->custom_mode.width != (int32_t)dev->width ||
			state->custom_mode.height != (int32_t)dev->height)) {
		if (state->mode_type != WLR_OUTPUT_STATE_MODE_FIXED || state->mode == NULL ||
			state->mode->width != (int32_t)dev->width ||
			state->mode->height != (int32_t)dev->height) {
			wlr_log(WLR_DEBUG, "the panel has one mode, %ux%u", dev->width,
				dev->height);
			return false;
		}
	}
	if (state->committed & WLR_OUTPUT_STATE_BUFFER) {
		struct wlr_buffer *buffer = state->buffer;
		void *data;
		uint32_t format;
		size_t stride;

		/*
		 * Scanning out a client buffer would skip whatever the scene draws
		 * over it (wlroots culls black rects, expecting the background to
		 * be black), so only composited frames are accepted. wlroots
		 * never scans out while reconfiguring, but then tests buffers of a
		 * swapchain it has not installed yet.
		 */
		if (!(state->committed & RECONFIGURING_STATE) && wlr_output->swapchain &&
			!wlr_swapchain_has_buffer(wlr_output->swapchain, buffer)) {
			wlr_log(WLR_DEBUG, "direct scanout is not supported");
			return false;
		}
		if (buffer->width != (int)dev->width || buffer->height != (int)dev->height) {
			wlr_log(WLR_DEBUG, "buffer %dx%d does not match the panel", buffer->width,
				buffer->height);
			return false;
		}
		if (!wlr_buffer_begin_data_ptr_access(
			    buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &format, &stride)) {
			wlr_log(WLR_DEBUG, "buffer cannot be mapped");
			return false;
		}
		wlr_buffer_end_data_ptr_access(buffer);
		if (!format_supported(format)) {
			wlr_log(WLR_DEBUG, "buffer format 0x%" PRIx32 " is not XRGB8888 or RGB565",
				format);
			return false;
		}
		if (!vl_epd_gray_can_convert(data, stride, buffer->width, pixel_format(format))) {
			wlr_log(WLR_DEBUG,
				"buffer of format 0x%" PRIx32 " with stride %zu cannot be read as "
				"%d pixels a row",
				format, stride, buffer->width);
			return false;
		}
	}
	return true;
}

/* What the commit changed on the panel: its damage, or all of it. */
static void
commit_damage(const struct vl_epd_output *output, const struct wlr_output_state *state,
	pixman_region32_t *damage)
{
	const struct vl_epd_device *dev = output->device;

	pixman_region32_init_rect(damage, 0, 0, dev->width, dev->height);
	if (state->committed & WLR_OUTPUT_STATE_DAMAGE)
		pixman_region32_intersect(damage, damage, (pixman_region32_t *)&state->damage);
}

/* Converts the damaged pixels into the gray shadow; output_test made sure it can. */
static bool
read_buffer(struct vl_epd_output *output, const pixman_region32_t *damage, void *data,
	uint32_t format, size_t stride)
{
	const struct vl_epd_device *dev = output->device;
	struct vl_epd_gray gray = {output->gray, dev->width, dev->height, dev->width};

	if (!vl_epd_gray_can_convert(data, stride, dev->width, pixel_format(format)))
		return false;
	return vl_epd_gray_convert_region(
		&gray, data, (int32_t)stride, pixel_format(format), damage);
}

/*
 * When a commit lights the output up or changes its mode or format without
 * a buffer, wlroots attaches an empty (transparent black) one of its own,
 * without damage. The panel keeps its image instead: the scene's next frame
 * brings the real content with full damage.
 */
static bool
is_placeholder(const struct wlr_output_state *state)
{
	return !(state->committed & WLR_OUTPUT_STATE_DAMAGE) &&
	       (state->committed & (WLR_OUTPUT_STATE_ENABLED | WLR_OUTPUT_STATE_MODE |
					   WLR_OUTPUT_STATE_RENDER_FORMAT));
}

/* A disabled output drives nothing; the panel keeps what it shows. */
static void
disable(struct vl_epd_output *output)
{
	output->enabled = false;
	pixman_region32_clear(&output->held);
	wl_event_source_timer_update(output->merge_timer, 0);
	pixman_region32_clear(&output->unsent);
	output->hints.size = 0;
	vl_epd_output_discard_pending(output, NULL);
	output->frame_held = false;
	wl_event_source_timer_update(output->frame_timer, 0);
	vl_epd_update_cleanup_timer(output);
}

static void
take_hints(struct vl_epd_output *output)
{
	struct vl_epd_hint *hint;

	wl_array_for_each (hint, &output->next_hints) {
		struct vl_epd_hint *slot = wl_array_add(&output->hints, sizeof(*slot));
		if (slot)
			*slot = *hint;
		if (hint->full_refresh) {
			/* A full refresh shows the area again even where nothing changed. */
			pixman_box32_t box = {hint->box.x, hint->box.y,
				hint->box.x + hint->box.width, hint->box.y + hint->box.height};
			vl_epd_forget_sent(output, &box);
		}
	}
	output->next_hints.size = 0;
}

static bool
output_commit(struct wlr_output *wlr_output, const struct wlr_output_state *state)
{
	struct vl_epd_output *output = epd_output_from_output(wlr_output);
	bool enabled =
		(state->committed & WLR_OUTPUT_STATE_ENABLED) ? state->enabled : output->enabled;
	bool has_content = (state->committed & WLR_OUTPUT_STATE_BUFFER) && !is_placeholder(state);
	void *data = NULL;
	uint32_t format;
	size_t stride;

	if (output->lost || !output_test(wlr_output, state))
		return false;
	if (!enabled) {
		if (output->enabled)
			disable(output);
		return true;
	}
	struct vl_epd_commit *commit = calloc(1, sizeof(*commit));
	if (!commit)
		return false;
	if (has_content && !wlr_buffer_begin_data_ptr_access(state->buffer,
				   WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &format, &stride)) {
		free(commit);
		return false;
	}
	pixman_region32_t damage;
	if (has_content) {
		commit_damage(output, state, &damage);
		bool converted = read_buffer(output, &damage, data, format, stride);
		wlr_buffer_end_data_ptr_access(state->buffer);
		if (!converted) {
			/* wlroots keeps the damage of a failed commit for the next one */
			wlr_log(WLR_ERROR, "cannot read the committed buffer");
			pixman_region32_fini(&damage);
			free(commit);
			return false;
		}
	} else {
		pixman_region32_init(&damage);
	}
	output->enabled = true;
	output->last_commit_unchanged = true;
	if (has_content) {
		output->last_commit_unchanged = !pixman_region32_not_empty(&damage);
		vl_epd_flush_note_commit(output, &damage);
		vl_epd_hold_split_changes(output, &damage);
		pixman_region32_union(&output->unsent, &output->unsent, &damage);
		/* The panel will show the newest content: older unsent content is superseded. */
		vl_epd_output_discard_pending(output, &output->next_feedback);
	}
	pixman_region32_fini(&damage);
	take_hints(output);

	commit->seq = wlr_output->commit_seq + 1;
	commit->feedback = output->next_feedback;
	wl_array_init(&output->next_feedback);
	wl_list_insert(output->commits.prev, &commit->link);

	vl_epd_kick(output);
	/* wlroots waits for a frame event after every commit of an enabled output. */
	vl_epd_schedule_frame(output);
	return true;
}

static void
output_destroy(struct wlr_output *wlr_output)
{
	struct vl_epd_output *output = epd_output_from_output(wlr_output);
	struct vl_epd_commit *commit, *tmp;

	/* Content held back by frame pacing still goes out: the panel keeps the last frame. */
	if (output->enabled && !output->lost && pixman_region32_not_empty(&output->unsent) &&
		vl_epd_flushes_in_flight(output) < VL_EPD_FLUSH_SLOTS)
		vl_epd_output_flush(output, true);
	vl_epd_io_finish(&output->io);
	if (output->frame_idle)
		wl_event_source_remove(output->frame_idle);
	if (output->finish_idle)
		wl_event_source_remove(output->finish_idle);
	if (output->lost_idle)
		wl_event_source_remove(output->lost_idle);
	wl_event_source_remove(output->retry_timer);
	wl_event_source_remove(output->cleanup_timer);
	wl_event_source_remove(output->merge_timer);
	wl_event_source_remove(output->frame_timer);
	wl_event_source_remove(output->blink_timer);
	wl_event_source_remove(output->pace_timer);
	/* Every callback runs once: what never reached the panel was not shown. */
	wl_list_for_each_safe (commit, tmp, &output->finished, link) {
		wl_list_remove(&commit->link);
		vl_epd_commit_call_feedback(commit, commit->settled);
		vl_epd_commit_free(commit);
	}
	wl_list_for_each_safe (commit, tmp, &output->commits, link) {
		wl_list_remove(&commit->link);
		clock_gettime(CLOCK_MONOTONIC, &commit->when);
		vl_epd_commit_call_feedback(commit, false);
		vl_epd_commit_free(commit);
	}
	struct vl_epd_commit next = {.feedback = output->next_feedback};
	clock_gettime(CLOCK_MONOTONIC, &next.when);
	vl_epd_commit_call_feedback(&next, false);
	wl_array_release(&output->next_feedback);
	vl_epd_flush_state_destroy(output->flush_state);
	pixman_region32_fini(&output->unsent);
	pixman_region32_fini(&output->stale);
	pixman_region32_fini(&output->held);
	pixman_region32_fini(&output->paced);
	for (size_t i = 0; i < VL_EPD_RETRY_AREAS; i++)
		pixman_region32_fini(&output->retries[i].area);
	pixman_region32_fini(&output->refused);
	wl_array_release(&output->next_hints);
	wl_array_release(&output->hints);
	free(output->gray);
	free(output->sent);
	output->backend->output = NULL;
	/* From inside a callback the dispatch loop still holds it; it frees it then. */
	if (output->dispatching)
		output->destroyed = true;
	else
		free(output);
}

static const struct wlr_output_impl output_impl = {
	.destroy = output_destroy,
	.test = output_test,
	.commit = output_commit,
};

struct vl_epd_output *
vl_epd_output_create(struct vl_epd_backend *backend)
{
	struct vl_epd_device *dev = backend->device;
	struct vl_epd_output *output = calloc(1, sizeof(*output));
	size_t size = (size_t)dev->width * dev->height;

	if (!output)
		return NULL;
	output->backend = backend;
	output->device = dev;
	pixman_region32_init(&output->unsent);
	pixman_region32_init(&output->stale);
	pixman_region32_init(&output->held);
	pixman_region32_init(&output->paced);
	for (size_t i = 0; i < VL_EPD_RETRY_AREAS; i++)
		pixman_region32_init(&output->retries[i].area);
	pixman_region32_init(&output->refused);
	wl_array_init(&output->next_hints);
	wl_array_init(&output->hints);
	wl_array_init(&output->next_feedback);
	wl_list_init(&output->commits);
	wl_list_init(&output->finished);
	output->next_marker = 1;
	output->gray = malloc(size);
	output->sent = malloc(size);
	output->flush_state = vl_epd_flush_state_create(dev, &backend->options);
	output->retry_timer =
		wl_event_loop_add_timer(backend->loop, vl_epd_handle_retry_timer, output);
	if (!output->gray || !output->sent || !output->flush_state || !output->retry_timer)
		goto err;
	/* Nothing is known of the panel yet: the first frame sends everything. */
	memset(output->gray, 0xff, size);
	memset(output->sent, 0xff, size);
	/* armed only while ghosts wait for a cleanup */
	output->cleanup_timer =
		wl_event_loop_add_timer(backend->loop, vl_epd_handle_cleanup_timer, output);
	output->merge_timer =
		wl_event_loop_add_timer(backend->loop, vl_epd_handle_merge_timer, output);
	output->frame_timer =
		wl_event_loop_add_timer(backend->loop, vl_epd_handle_frame_timer, output);
	output->blink_timer =
		wl_event_loop_add_timer(backend->loop, vl_epd_handle_blink_timer, output);
	output->pace_timer =
		wl_event_loop_add_timer(backend->loop, vl_epd_handle_pace_timer, output);
	if (!output->cleanup_timer || !output->merge_timer || !output->frame_timer ||
		!output->blink_timer || !output->pace_timer)
		goto err;
	output->merge_window_ms = backend->options.merge_window_ms;
	if (!vl_epd_io_init(&output->io, dev, backend->loop, vl_epd_handle_io_result, output))
		goto err;

	struct wlr_output_state state;
	wlr_output_state_init(&state);
	wlr_output_state_set_custom_mode(&state, dev->width, dev->height, 0);
	wlr_output_init(&output->base, &backend->base, &output_impl, backend->loop, &state);
	wlr_output_state_finish(&state);
	wlr_output_set_name(&output->base, "EPD-1");
	wlr_output_set_description(&output->base, dev->description);
	output->base.make = strdup("E Ink");
	output->base.model = strdup(dev->impl->name);
	/* what the compositor's default scale comes from; 0 when the device does not say */
	output->base.phys_width = dev->width_mm > INT32_MAX ? 0 : (int32_t)dev->width_mm;
	output->base.phys_height = dev->height_mm > INT32_MAX ? 0 : (int32_t)dev->height_mm;
	return output;

err:
	if (output->pace_timer)
		wl_event_source_remove(output->pace_timer);
	if (output->blink_timer)
		wl_event_source_remove(output->blink_timer);
	if (output->frame_timer)
		wl_event_source_remove(output->frame_timer);
	if (output->merge_timer)
		wl_event_source_remove(output->merge_timer);
	if (output->cleanup_timer)
		wl_event_source_remove(output->cleanup_timer);
	if (output->retry_timer)
		wl_event_source_remove(output->retry_timer);
	vl_epd_flush_state_destroy(output->flush_state);
	pixman_region32_fini(&output->unsent);
	pixman_region32_fini(&output->stale);
	pixman_region32_fini(&output->held);
	pixman_region32_fini(&output->paced);
	for (size_t i = 0; i < VL_EPD_RETRY_AREAS; i++)
		pixman_region32_fini(&output->retries[i].area);
	pixman_region32_fini(&output->refused);
	free(output->gray);
	free(output->sent);
	free(output);
	return NULL;
}

void
vl_epd_output_set_policy(
	struct wlr_output *wlr_output, const struct vl_epd_backend_options *options)
{
	struct vl_epd_output *output = epd_output_from_output(wlr_output);

	vl_epd_flush_set_policy(output->flush_state, options);
	output->merge_window_ms = options->merge_window_ms;
	vl_epd_update_cleanup_timer(output);
}

void
vl_epd_backend_notify_input(struct wlr_backend *wlr_backend, enum vl_epd_input kind)
{
	if (!wlr_backend || !vl_backend_is_epd(wlr_backend))
		return;
	struct vl_epd_backend *backend = wl_container_of(wlr_backend, backend, base);
	struct vl_epd_output *output = backend->output;
	if (!output || (unsigned int)kind > VL_EPD_INPUT_SCROLL)
		return;
	pixman_region32_t released;
	pixman_region32_init(&released);
	vl_epd_flush_note_input(output->flush_state, kind, &released);
	bool any = pixman_region32_not_empty(&released);
	pixman_region32_union(&output->unsent, &output->unsent, &released);
	pixman_region32_fini(&released);
	if (any)
		vl_epd_kick(output);
	vl_epd_update_cleanup_timer(output);
}

/* box clipped to the panel; false when nothing is left of it. */
static bool
clip_to_panel(const struct vl_epd_device *dev, const struct wlr_box *box, pixman_box32_t *clipped)
{
	/* In 64 bits: a box reaching INT32_MAX must not wrap around. */
	int64_t x1 = box->x, y1 = box->y;
	int64_t x2 = x1 + box->width, y2 = y1 + box->height;

	x1 = x1 < 0 ? 0 : x1;
	y1 = y1 < 0 ? 0 : y1;
	x2 = x2 > dev->width ? dev->width : x2;
	y2 = y2 > dev->height ? dev->height : y2;
	if (x1 >= x2 || y1 >= y2)
		return false;
	*clipped = (pixman_box32_t){(int32_t)x1, (int32_t)y1, (int32_t)x2, (int32_t)y2};
	return true;
}

void
vl_epd_output_add_hint(struct wlr_output *wlr_output, const struct vl_epd_hint *hint)
{
	struct vl_epd_output *output = epd_output_from_output(wlr_output);
	pixman_box32_t b;

	if (!clip_to_panel(output->device, &hint->box, &b))
		return;
	struct vl_epd_hint *slot = wl_array_add(&output->next_hints, sizeof(*slot));
	if (!slot)
		return;
	*slot = *hint;
	slot->box = (struct wlr_box){b.x1, b.y1, b.x2 - b.x1, b.y2 - b.y1};
	if ((unsigned int)slot->mode > VL_EPD_MODE_ANIMATION)
		slot->mode = VL_EPD_MODE_AUTO;
	if ((unsigned int)slot->dither > VL_EPD_DITHER_DIFFUSION)
		slot->dither = VL_EPD_DITHER_AUTO;
}

void
vl_epd_output_drop_hints(struct wlr_output *wlr_output)
{
	struct vl_epd_output *output = epd_output_from_output(wlr_output);

	output->next_hints.size = 0;
}

void
vl_epd_output_end_hold(struct wlr_output *wlr_output, const struct wlr_box *box)
{
	struct vl_epd_output *output = epd_output_from_output(wlr_output);
	pixman_box32_t b;

	if (clip_to_panel(output->device, box, &b))
		vl_epd_end_hold(output, &b);
}

bool
vl_epd_output_add_feedback(struct wlr_output *wlr_output, vl_epd_feedback_func func, void *data)
{
	struct vl_epd_output *output = epd_output_from_output(wlr_output);
	struct vl_epd_feedback_entry *entry = wl_array_add(&output->next_feedback, sizeof(*entry));

	if (!entry)
		return false;
	*entry = (struct vl_epd_feedback_entry){.func = func, .data = data};
	return true;
}

bool
vl_epd_output_add_area_feedback(struct wlr_output *wlr_output, const struct wlr_box *area,
	uint64_t owner, vl_epd_feedback_func func, void *data)
{
	struct vl_epd_output *output = epd_output_from_output(wlr_output);
	struct vl_epd_feedback_entry *entry = wl_array_add(&output->next_feedback, sizeof(*entry));

	if (!entry)
		return false;
	*entry = (struct vl_epd_feedback_entry){
		.func = func,
		.data = data,
		.owner = owner,
		.area = {area->x, area->y, area->x + area->width, area->y + area->height},
	};
	return true;
}
