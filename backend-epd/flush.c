/*
 * One flush: the region committed since the last one becomes panel updates.
 *
 * gray shadow -> diff against what was sent -> classify -> waveform (policy
 * and hints) -> merge -> ghost promotion -> quantize/dither into the
 * framebuffer -> MXCFB_SEND_UPDATE with consecutive markers.
 */
#include <epdfb.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/util/log.h>

#include "backend.h"
#include "pipeline.h"

#define MAX_RECTS_PER_FLUSH 16

struct vl_epd_flush_state {
	struct vl_epd_ghost *ghost;
	struct vl_epd_merge_options merge;
	struct vl_epd_waveform_table table;
	bool panel_known;
};

struct vl_epd_flush_state *
vl_epd_flush_state_create(
	const struct vl_epd_device *device, const struct vl_epd_backend_options *options)
{
	struct vl_epd_flush_state *state = calloc(1, sizeof(*state));

	if (!state)
		return NULL;
	state->ghost = vl_epd_ghost_create(device->width, device->height,
		options->full_refresh_every, options->idle_cleanup_ms);
	if (!state->ghost) {
		free(state);
		return NULL;
	}
	state->merge = (struct vl_epd_merge_options){
		.panel_width = device->width,
		.panel_height = device->height,
		.align = 1,
		.update_cost = 4096,
		.max_rects = MAX_RECTS_PER_FLUSH,
	};
	state->table.n = device->n_waveforms;
	for (size_t i = 0; i < device->n_waveforms; i++) {
		state->table.entries[i] = (struct vl_epd_waveform_entry){
			.id = device->waveforms[i].id,
			.gray_levels = device->waveforms[i].gray_levels,
		};
	}
	return state;
}

void
vl_epd_flush_state_destroy(struct vl_epd_flush_state *state)
{
	if (!state)
		return;
	vl_epd_ghost_destroy(state->ghost);
	free(state);
}

static const struct vl_epd_hint *
hint_for(const struct wl_array *hints, const pixman_box32_t *box)
{
	const struct vl_epd_hint *hint, *found = NULL;

	wl_array_for_each(hint, hints)
	{
		if (box->x1 < hint->box.x + hint->box.width && hint->box.x < box->x2 &&
			box->y1 < hint->box.y + hint->box.height && hint->box.y < box->y2)
			found = hint;
	}
	return found;
}

/* The unsent region as rects of pixels that changed, each with its waveform. */
static size_t
plan_updates(struct vl_epd_output *output, struct vl_epd_flush_state *state,
	struct vl_epd_plan *plans, size_t capacity)
{
	const struct vl_epd_device *dev = output->device;
	int n_boxes;
	const pixman_box32_t *boxes = pixman_region32_rectangles(&output->unsent, &n_boxes);
	size_t n = 0;

	for (int i = 0; i < n_boxes && n < capacity; i++) {
		pixman_box32_t changed;
		if (!vl_epd_diff_box(output->gray, output->sent, dev->width, &boxes[i], &changed))
			continue;
		const struct vl_epd_hint *hint = hint_for(&output->hints, &changed);
		struct vl_epd_plan *plan = &plans[n++];
		plan->box = changed;
		plan->content = vl_epd_classify(output->gray, dev->width, &changed);
		plan->choice = vl_epd_choose_waveform(&state->table, plan->content,
			hint ? hint->mode : VL_EPD_MODE_AUTO,
			hint ? hint->dither : VL_EPD_DITHER_AUTO);
		plan->full = hint && hint->full_refresh;
	}
	return vl_epd_merge(plans, n, &state->merge);
}

static void
write_pixels(struct vl_epd_output *output, const struct vl_epd_plan *plan, uint32_t levels)
{
	const struct vl_epd_device *dev = output->device;

	vl_epd_quantize(dev->pixels, dev->stride, dev->bpp, output->gray, dev->width, &plan->box,
		levels, plan->choice.dither);
	for (int32_t y = plan->box.y1; y < plan->box.y2; y++) {
		size_t offset = (size_t)y * dev->width + plan->box.x1;
		memcpy(output->sent + offset, output->gray + offset, plan->box.x2 - plan->box.x1);
	}
}

static bool
submit(struct vl_epd_output *output, const struct vl_epd_plan *plan)
{
	struct vl_epd_update update = {
		.rect =
			{
				.left = plan->box.x1,
				.top = plan->box.y1,
				.width = plan->box.x2 - plan->box.x1,
				.height = plan->box.y2 - plan->box.y1,
			},
		.waveform = plan->choice.waveform,
		.full = plan->full,
		.marker = output->next_marker,
	};
	if (!output->device->impl->submit(output->device, &update)) {
		wlr_log_errno(WLR_ERROR, "submitting an update of %ux%u", update.rect.width,
			update.rect.height);
		return false;
	}
	output->next_marker = output->next_marker == UINT32_MAX ? 1 : output->next_marker + 1;
	return true;
}

/*
 * A change of half the panel or more is a new page: it gets a flashing GC16,
 * as on e-readers, since the ghost of a whole page would be plain to see.
 * Animation keeps its fast waveform.
 */
static bool
is_page_turn(const struct vl_epd_device *dev, const struct vl_epd_plan *plan)
{
	uint64_t area = (uint64_t)(plan->box.x2 - plan->box.x1) * (plan->box.y2 - plan->box.y1);

	return plan->choice.waveform != WAVEFORM_MODE_A2 &&
	       area * 2 >= (uint64_t)dev->width * dev->height;
}

uint32_t
vl_epd_flush(struct vl_epd_output *output, size_t *n_markers, const char **waveform, bool *flashed)
{
	struct vl_epd_flush_state *state = output->flush_state;
	const struct vl_epd_device *dev = output->device;
	struct vl_epd_plan plans[MAX_RECTS_PER_FLUSH * 4];
	size_t n;

	*n_markers = 0;
	*flashed = false;
	if (!state->panel_known) {
		/* The panel may show anything: one flashing refresh puts it in a known state. */
		plans[0] = (struct vl_epd_plan){
			.box = {0, 0, dev->width, dev->height},
			.content = VL_EPD_CONTENT_IMAGE,
			.choice = {.waveform = WAVEFORM_MODE_GC16, .dither = VL_EPD_DITHER_NONE},
			.full = true,
		};
		n = 1;
		state->panel_known = true;
	} else {
		n = plan_updates(output, state, plans, sizeof(plans) / sizeof(plans[0]));
	}

	uint32_t last = 0;
	for (size_t i = 0; i < n; i++) {
		struct vl_epd_plan *plan = &plans[i];
		if (is_page_turn(dev, plan) || vl_epd_ghost_promote(state->ghost, &plan->box,
						       plan->choice.waveform, plan->full)) {
			plan->choice.waveform = WAVEFORM_MODE_GC16;
			plan->full = true;
		}
		const struct vl_epd_waveform *wf =
			vl_epd_device_find_waveform(dev, plan->choice.waveform);
		if (!wf)
			continue;
		write_pixels(output, plan, wf->gray_levels);
		if (!submit(output, plan))
			continue;
		vl_epd_ghost_record(state->ghost, &plan->box, wf->id, plan->full,
			wf->flashing || (plan->full && wf->flashing_full));
		last = output->next_marker == 1 ? UINT32_MAX : output->next_marker - 1;
		(*n_markers)++;
		if (!*waveform || i == 0)
			*waveform = wf->name;
		*flashed |= wf->flashing || (plan->full && wf->flashing_full);
	}
	pixman_region32_clear(&output->unsent);
	output->hints.size = 0;
	return last;
}
