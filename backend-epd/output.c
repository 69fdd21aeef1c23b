/*
 * The wlr_output of an e-paper panel: commits become panel updates, frames
 * are held back while the panel is saturated, and present events and
 * feedback fire when the panel has settled.
 */
#include <assert.h>
#include <drm_fourcc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vellum/epd-pipeline.h>
#include <wlr/interfaces/wlr_buffer.h>
#include <wlr/render/swapchain.h>
#include <wlr/util/log.h>

#include "backend.h"

static const uint32_t SUPPORTED_OUTPUT_STATE = WLR_OUTPUT_STATE_BACKEND_OPTIONAL |
					       WLR_OUTPUT_STATE_BUFFER | WLR_OUTPUT_STATE_MODE |
					       WLR_OUTPUT_STATE_ENABLED;

static const struct wlr_output_impl output_impl;

struct flush_record {
	uint32_t first_marker, last_marker;
	size_t left;
};

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

static bool
format_supported(uint32_t format)
{
	return format == DRM_FORMAT_XRGB8888 || format == DRM_FORMAT_ARGB8888;
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
		 * be black), so only composited frames are accepted.
		 */
		if (wlr_output->swapchain &&
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
			wlr_log(WLR_DEBUG, "buffer format 0x%" PRIx32 " is not XRGB8888", format);
			return false;
		}
	}
	return true;
}

static void
send_frame(void *data)
{
	struct vl_epd_output *output = data;

	output->frame_idle = NULL;
	wlr_output_send_frame(&output->base);
}

/* Frames go out while the panel has room; otherwise when an update completes. */
static void
schedule_frame(struct vl_epd_output *output)
{
	if (output->flushes_in_flight >= VL_EPD_MAX_FLUSHES_IN_FLIGHT) {
		output->frame_held = true;
		return;
	}
	output->frame_held = false;
	if (!output->frame_idle)
		output->frame_idle =
			wl_event_loop_add_idle(output->backend->loop, send_frame, output);
}

static void
finish_commit(struct vl_epd_output *output, struct vl_epd_commit *commit, bool settled)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);

	struct vl_epd_feedback feedback = {
		.settled = settled,
		.when = now,
		.waveform = commit->waveform,
		.flashed = commit->flashed,
	};
	struct vl_epd_feedback_entry *entry;
	wl_array_for_each (entry, &commit->feedback)
		entry->func(&feedback, entry->data);

	struct wlr_output_event_present present = {
		.output = &output->base,
		.commit_seq = commit->seq,
		.presented = settled,
		.when = &now,
	};
	wlr_output_send_present(&output->base, &present);

	wl_list_remove(&commit->link);
	wl_array_release(&commit->feedback);
	free(commit);
}

static void
track_markers(struct vl_epd_output *output, uint32_t last, size_t n_markers)
{
	if (n_markers > 0) {
		struct flush_record *record = wl_array_add(&output->flushes, sizeof(*record));
		if (record) {
			*record = (struct flush_record){
				.first_marker = last - (uint32_t)n_markers + 1,
				.last_marker = last,
				.left = n_markers,
			};
			output->flushes_in_flight++;
			for (uint32_t m = record->first_marker; m != last + 1; m++)
				vl_epd_completion_add(&output->completion, m);
		}
	}
}

static void
flush(struct vl_epd_output *output)
{
	size_t n_markers = 0;
	const char *waveform = NULL;
	bool flashed = false;
	uint32_t last = vl_epd_flush(output, &n_markers, &waveform, &flashed);
	struct vl_epd_commit *commit, *tmp;

	track_markers(output, last, n_markers);
	wl_list_for_each_safe (commit, tmp, &output->commits, link) {
		if (commit->last_marker != 0)
			continue;
		if (n_markers == 0) {
			/* Nothing differed from what the panel already shows. */
			finish_commit(output, commit, true);
			continue;
		}
		commit->last_marker = last;
		commit->waveform = waveform;
		commit->flashed = flashed;
	}
}

static void
handle_marker_done(uint32_t marker, void *data)
{
	struct vl_epd_output *output = data;
	struct flush_record *record, *done = NULL;
	struct vl_epd_commit *commit, *tmp;

	wl_array_for_each (record, &output->flushes) {
		if (marker - record->first_marker <= record->last_marker - record->first_marker) {
			record->left--;
			if (record->left == 0)
				done = record;
			break;
		}
	}
	if (!done)
		return;

	wl_list_for_each_safe (commit, tmp, &output->commits, link)
		if (commit->last_marker == done->last_marker)
			finish_commit(output, commit, true);

	/* Drop the record; order does not matter. */
	struct flush_record *last =
		(struct flush_record *)((char *)output->flushes.data + output->flushes.size) - 1;
	*done = *last;
	output->flushes.size -= sizeof(*last);
	output->flushes_in_flight--;

	if (pixman_region32_not_empty(&output->unsent))
		flush(output);
	if (output->frame_held)
		schedule_frame(output);

	unsigned int delay_ms;
	if (output->flushes_in_flight == 0 && output->cleanup_timer &&
		vl_epd_cleanup_due(output, &delay_ms))
		wl_event_source_timer_update(output->cleanup_timer, delay_ms);
}

static int
handle_cleanup_timer(void *data)
{
	struct vl_epd_output *output = data;
	size_t n_markers;

	if (output->flushes_in_flight > 0 || pixman_region32_not_empty(&output->unsent))
		return 0;
	uint32_t last = vl_epd_cleanup(output, &n_markers);
	track_markers(output, last, n_markers);
	return 0;
}

static bool
read_buffer(struct vl_epd_output *output, const struct wlr_output_state *state)
{
	const struct vl_epd_device *dev = output->device;
	pixman_region32_t damage;
	void *data;
	uint32_t format;
	size_t stride;

	if (!wlr_buffer_begin_data_ptr_access(
		    state->buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &format, &stride))
		return false;

	pixman_region32_init(&damage);
	if (state->committed & WLR_OUTPUT_STATE_DAMAGE)
		pixman_region32_intersect_rect(
			&damage, &state->damage, 0, 0, dev->width, dev->height);
	else
		pixman_region32_init_rect(&damage, 0, 0, dev->width, dev->height);

	struct vl_epd_gray gray = {output->gray, dev->width, dev->height, dev->width};
	vl_epd_gray_convert_region(&gray, data, stride, &damage);
	wlr_buffer_end_data_ptr_access(state->buffer);

	pixman_region32_union(&output->unsent, &output->unsent, &damage);
	pixman_region32_fini(&damage);
	return true;
}

static bool
output_commit(struct wlr_output *wlr_output, const struct wlr_output_state *state)
{
	struct vl_epd_output *output = epd_output_from_output(wlr_output);
	struct vl_epd_commit *commit, *tmp;

	if (!output_test(wlr_output, state))
		return false;
	if (!(state->committed & WLR_OUTPUT_STATE_BUFFER))
		return true;

	struct vl_epd_commit *new_commit = calloc(1, sizeof(*new_commit));
	if (!new_commit || !read_buffer(output, state)) {
		free(new_commit);
		return false;
	}

	/* New content restarts the idle time. */
	if (output->cleanup_timer)
		wl_event_source_timer_update(output->cleanup_timer, 0);

	/* Content not sent yet is superseded: the panel will show the newest. */
	wl_list_for_each_safe (commit, tmp, &output->commits, link)
		if (commit->last_marker == 0)
			finish_commit(output, commit, false);

	new_commit->seq = wlr_output->commit_seq + 1;
	new_commit->feedback = output->next_feedback;
	wl_array_init(&output->next_feedback);
	wl_list_insert(output->commits.prev, &new_commit->link);

	if (output->next_hints.size > 0) {
		void *hints = wl_array_add(&output->hints, output->next_hints.size);
		if (hints)
			memcpy(hints, output->next_hints.data, output->next_hints.size);
		output->next_hints.size = 0;
	}

	if (output->flushes_in_flight < VL_EPD_MAX_FLUSHES_IN_FLIGHT)
		flush(output);
	schedule_frame(output);
	return true;
}

static void
output_destroy(struct wlr_output *wlr_output)
{
	struct vl_epd_output *output = epd_output_from_output(wlr_output);
	struct vl_epd_commit *commit, *tmp;

	vl_epd_completion_finish(&output->completion);
	wl_list_for_each_safe (commit, tmp, &output->commits, link) {
		wl_list_remove(&commit->link);
		wl_array_release(&commit->feedback);
		free(commit);
	}
	if (output->frame_idle)
		wl_event_source_remove(output->frame_idle);
	if (output->cleanup_timer)
		wl_event_source_remove(output->cleanup_timer);
	vl_epd_flush_state_destroy(output->flush_state);
	pixman_region32_fini(&output->unsent);
	wl_array_release(&output->next_hints);
	wl_array_release(&output->hints);
	wl_array_release(&output->next_feedback);
	wl_array_release(&output->flushes);
	free(output->gray);
	free(output->sent);
	output->backend->output = NULL;
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
	output->gray = malloc(size);
	output->sent = malloc(size);
	output->flush_state = vl_epd_flush_state_create(dev, &backend->options);
	if (!output->gray || !output->sent || !output->flush_state)
		goto err;
	/* Nothing is known of the panel yet: the first frame sends everything. */
	memset(output->gray, 0xff, size);
	memset(output->sent, 0xff, size);
	pixman_region32_init(&output->unsent);
	wl_array_init(&output->next_hints);
	wl_array_init(&output->hints);
	wl_array_init(&output->next_feedback);
	wl_array_init(&output->flushes);
	wl_list_init(&output->commits);
	output->next_marker = 1;
	if (backend->options.idle_cleanup_ms > 0) {
		output->cleanup_timer =
			wl_event_loop_add_timer(backend->loop, handle_cleanup_timer, output);
		if (!output->cleanup_timer)
			goto err;
	}
	if (!vl_epd_completion_init(
		    &output->completion, dev, backend->loop, handle_marker_done, output))
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
	return output;

err:
	vl_epd_flush_state_destroy(output->flush_state);
	free(output->gray);
	free(output->sent);
	free(output);
	return NULL;
}

void
vl_epd_output_add_hint(struct wlr_output *wlr_output, const struct vl_epd_hint *hint)
{
	struct vl_epd_output *output = epd_output_from_output(wlr_output);
	struct vl_epd_hint *slot = wl_array_add(&output->next_hints, sizeof(*slot));

	if (slot)
		*slot = *hint;
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
