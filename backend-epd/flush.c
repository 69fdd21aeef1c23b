// SPDX-License-Identifier: MIT
/*
 * One flush: the region committed since the last one becomes panel updates,
 * through the stages of the update pipeline (vellum/epd-pipeline.h): diff
 * against what was sent, classify, choose the waveform from policy and
 * hints, merge, promote to a flashing refresh where ghosts built up, dither
 * into the framebuffer, and submit with consecutive markers.
 *
 * While the user works (input within the input window), changes the
 * client gave no mode for go out fast, DU or A2 for pen and scrolling, put
 * no ghost flash in the way, and are remembered; the idle cleanup redraws
 * them once panel and input are quiet.
 */
#include <epdfb.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vellum/epd-pipeline.h>
#include <wlr/util/log.h>

#include "backend.h"

#define MAX_RECTS_PER_FLUSH VL_EPD_MAX_UPDATES_PER_FLUSH
/* Changes this soon after input are the user's work, not an animation. */
#define USER_WORKS_MS 1000
/*
 * New pages this soon after a page flash, with no input since, are one
 * start: an application mapping its windows, or the page the first frame
 * cleared the panel for. The panel is clean, so they need no flash of their
 * own.
 */
#define START_MS 1000

struct vl_epd_flush_state {
	struct vl_epd_ghost *ghost;
	struct vl_epd_blink *blink;
	struct vl_epd_anim *anim;
	unsigned int animation_interval_ms;
	struct vl_epd_merge_options merge;
	const struct vl_epd_waveform_table *table; /* the device's */
	uint8_t *scratch;                          /* dithered pixels for a 32 bpp framebuffer */
	bool panel_known;
	unsigned int input_window_ms, idle_cleanup_ms;
	/* the latest input, and the latest of pen or scrolling; 0: none yet */
	uint64_t input_ms, stroke_ms;
	/* the latest flash of half the panel or more; 0: none yet */
	uint64_t page_flash_ms;
};

/* How the user works at a time: the fast waveform their changes get. */
enum work {
	WORK_NONE,
	WORK_DU,
	WORK_A2,
};

static uint64_t
now_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

struct vl_epd_flush_state *
vl_epd_flush_state_create(
	const struct vl_epd_device *device, const struct vl_epd_backend_options *options)
{
	struct vl_epd_flush_state *state = calloc(1, sizeof(*state));
	struct vl_epd_ghost_options ghost;

	if (!state)
		return NULL;
	vl_epd_ghost_options_default(&ghost, device->width, device->height);
	ghost.full_refresh_every = options->full_refresh_every;
	ghost.idle_cleanup_ms = options->idle_cleanup_ms;
	state->ghost = vl_epd_ghost_create(&ghost);
	state->blink = vl_epd_blink_create();
	state->anim = vl_epd_anim_create((int32_t)device->width, (int32_t)device->height);
	if (device->bpp == 32)
		state->scratch = malloc((size_t)device->width * device->height);
	if (!state->ghost || !state->blink || !state->anim ||
		(device->bpp == 32 && !state->scratch)) {
		vl_epd_flush_state_destroy(state);
		return NULL;
	}
	state->input_window_ms = options->input_window_ms;
	state->idle_cleanup_ms = options->idle_cleanup_ms;
	state->animation_interval_ms = options->animation_interval_ms;
	state->table = &device->waveforms;
	state->merge = (struct vl_epd_merge_options){
		.panel_width = device->width,
		.panel_height = device->height,
		.update_cost = 4096,
		.max_rects = MAX_RECTS_PER_FLUSH,
	};
	return state;
}

void
vl_epd_flush_state_destroy(struct vl_epd_flush_state *state)
{
	if (!state)
		return;
	vl_epd_ghost_destroy(state->ghost);
	vl_epd_blink_destroy(state->blink);
	vl_epd_anim_destroy(state->anim);
	free(state->scratch);
	free(state);
}

void
vl_epd_flush_set_policy(
	struct vl_epd_flush_state *state, const struct vl_epd_backend_options *options)
{
	vl_epd_ghost_set_policy(
		state->ghost, options->full_refresh_every, options->idle_cleanup_ms);
	state->input_window_ms = options->input_window_ms;
	state->idle_cleanup_ms = options->idle_cleanup_ms;
	state->animation_interval_ms = options->animation_interval_ms;
}

void
vl_epd_flush_note_input(
	struct vl_epd_flush_state *state, enum vl_epd_input kind, pixman_region32_t *release)
{
	uint64_t now = now_ms();

	/* 0 means "none yet" */
	state->input_ms = now ? now : 1;
	if (kind == VL_EPD_INPUT_PEN || kind == VL_EPD_INPUT_SCROLL)
		state->stroke_ms = state->input_ms;
	/* input may move a caret: what blinked shows as it is, and is watched anew */
	vl_epd_blink_release_all(state->blink, release);
}

/* pixels: a word of 8 characters 16x32 pixels each */
#define GLYPH_AREA (8 * 16 * 32)

static bool
within(uint64_t then, uint64_t now, unsigned int window_ms)
{
	return then != 0 && now >= then && now - then <= window_ms;
}

static enum work
working(const struct vl_epd_flush_state *state, uint64_t now)
{
	if (state->input_window_ms == 0 || !within(state->input_ms, now, state->input_window_ms))
		return WORK_NONE;
	return within(state->stroke_ms, now, state->input_window_ms) ? WORK_A2 : WORK_DU;
}

static struct vl_epd_gray
gray_view(uint8_t *data, const struct vl_epd_device *dev)
{
	return (struct vl_epd_gray){data, dev->width, dev->height, dev->width};
}

bool
vl_epd_flush_expire_blinks(struct vl_epd_output *output, bool release)
{
	struct vl_epd_flush_state *state = output->flush_state;
	struct vl_epd_gray cur = gray_view(output->gray, output->device);
	pixman_region32_t released;

	pixman_region32_init(&released);
	int64_t next =
		vl_epd_blink_expire(state->blink, &cur, now_ms(), release ? &released : NULL);
	/* a zero delay disarms the timer */
	wl_event_source_timer_update(output->blink_timer, next < 0         ? 0
							  : next < 1       ? 1
							  : next > INT_MAX ? INT_MAX
									   : (int)next);
	bool any = pixman_region32_not_empty(&released);
	pixman_region32_union(&output->unsent, &output->unsent, &released);
	pixman_region32_fini(&released);
	return any;
}

void
vl_epd_flush_note_commit(struct vl_epd_output *output, const pixman_region32_t *damage)
{
	struct vl_epd_flush_state *state = output->flush_state;
	struct vl_epd_gray cur = gray_view(output->gray, output->device);
	uint64_t now = now_ms();

	/* without pacing nothing asks which areas animate: no hashing on every commit */
	if (state->animation_interval_ms == 0)
		return;
	vl_epd_anim_note(state->anim, &cur, damage, now,
		state->input_ms != 0 && within(state->input_ms, now, USER_WORKS_MS));
}

int
vl_epd_handle_pace_timer(void *data)
{
	struct vl_epd_output *output = data;

	pixman_region32_clear(&output->paced);
	vl_epd_kick(output);
	return 0;
}

int
vl_epd_handle_blink_timer(void *data)
{
	struct vl_epd_output *output = data;

	if (vl_epd_flush_expire_blinks(output, true))
		vl_epd_kick(output);
	return 0;
}

static const struct vl_epd_hint *
hint_for(const struct wl_array *hints, const pixman_box32_t *box)
{
	const struct vl_epd_hint *hint, *found = NULL;

	wl_array_for_each (hint, hints) {
		if (box->x1 < hint->box.x + hint->box.width && hint->box.x < box->x2 &&
			box->y1 < hint->box.y + hint->box.height && hint->box.y < box->y2)
			found = hint;
	}
	return found;
}

static bool
covers_half_panel(const struct vl_epd_device *dev, uint64_t area)
{
	return area * 2 >= (uint64_t)dev->width * dev->height;
}

static bool
is_page_sized(const struct vl_epd_device *dev, const pixman_box32_t *box)
{
	return covers_half_panel(dev, vl_epd_box_area(box));
}

/* The pixels n boxes cover, counted once per box. */
static uint64_t
boxes_area(const pixman_box32_t *boxes, size_t n)
{
	uint64_t area = 0;

	for (size_t i = 0; i < n; i++)
		area += vl_epd_box_area(&boxes[i]);
	return area;
}

/*
 * A box a typed character or word fits in: its antialiased edges may hold
 * as many gray levels as an image, but while keys come it is text.
 */
static bool
is_glyph_sized(const pixman_box32_t *box)
{
	return vl_epd_box_area(box) <= GLYPH_AREA;
}

/*
 * While the user works, a change goes out in the fast waveform: A2 for pen
 * strokes and scrolling, whatever their size, DU for text and UI that is
 * not a new page (those keep their page flash). Images keep their waveform
 * unless they move under a pen or a scroll, or are no bigger than a word.
 */
static void
choose_fast(const struct vl_epd_flush_state *state, const struct vl_epd_device *dev,
	struct vl_epd_plan *plan, enum work work, enum vl_epd_dither dither)
{
	if (work == WORK_A2) {
		plan->choice = vl_epd_choose_waveform(
			state->table, plan->content, VL_EPD_MODE_FAST, dither);
	} else if (work == WORK_DU &&
		   (plan->content != VL_EPD_CONTENT_IMAGE || is_glyph_sized(&plan->box)) &&
		   !is_page_sized(dev, &plan->box)) {
		/* DU as the policy picks it for black and white, with its fallbacks */
		plan->choice = vl_epd_choose_waveform(
			state->table, VL_EPD_CONTENT_MONO, VL_EPD_MODE_AUTO, dither);
		if (plan->content != VL_EPD_CONTENT_MONO && dither == VL_EPD_DITHER_AUTO &&
			plan->choice.levels < 256)
			plan->choice.dither = plan->choice.levels == 2 ? VL_EPD_DITHER_ORDERED
								       : VL_EPD_DITHER_NONE;
	} else {
		return;
	}
	plan->remember = true;
}

/*
 * Content of half the panel or more that moved (a terminal printing, a list
 * scrolled) is not a new page: it goes in A2, as a scroll by input does.
 */
static bool
is_scroll(const struct vl_epd_device *dev, const struct vl_epd_gray *cur,
	const struct vl_epd_gray *sent, const pixman_box32_t *box)
{
	int32_t shift;

	return is_page_sized(dev, box) && vl_epd_detect_scroll(cur, sent, box, &shift);
}

/* Whether the rects that changed cover half the panel or more: a new page. */
static bool
is_new_page(const struct vl_epd_device *dev, const pixman_box32_t *boxes, size_t n)
{
	return n > 1 && covers_half_panel(dev, boxes_area(boxes, n));
}

/*
 * Joins boxes less than gap apart into one, in place; returns how many are
 * left. The animated cells of one spinner (a ring around cells at rest)
 * come out of the diff in pieces, which would be paced apart.
 */
static size_t
join_near(pixman_box32_t *boxes, size_t n, int32_t gap)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = i + 1; j < n; j++) {
			const pixman_box32_t *a = &boxes[i], *b = &boxes[j];
			if (a->x1 - gap >= b->x2 || b->x1 - gap >= a->x2 || a->y1 - gap >= b->y2 ||
				b->y1 - gap >= a->y2)
				continue;
			boxes[i] = vl_epd_box_union(a, b);
			boxes[j] = boxes[--n];
			/* the grown box may reach boxes already passed */
			j = i;
		}
	}
	return n;
}

/* A caret: at most 8 pixels wide (or tall), at least 12 long and thrice as long as wide. */
static bool
is_caret_shaped(const pixman_box32_t *box)
{
	int32_t w = box->x2 - box->x1, h = box->y2 - box->y1;
	int32_t narrow = w < h ? w : h, along = w < h ? h : w;

	return narrow <= 8 && along >= 12 && along >= 3 * narrow;
}

/*
 * The animated cells, but not a blinker's: a caret blinks fast enough to
 * count as animation, and blink.c holds it instead.
 */
static void
animated_region(const struct vl_epd_flush_state *state, pixman_region32_t *region)
{
	pixman_box32_t blinkers[VL_EPD_BLINK_AREAS];

	pixman_region32_init(region);
	if (state->animation_interval_ms == 0)
		return;
	vl_epd_anim_region(state->anim, now_ms(), region);
	size_t n = vl_epd_blink_boxes(state->blink, false, blinkers, VL_EPD_BLINK_AREAS);
	for (size_t i = 0; i < n; i++) {
		/* whole cells, as animation is told */
		const int32_t cell = VL_EPD_ANIM_CELL;
		pixman_box32_t b = blinkers[i];
		int32_t x1 = b.x1 / cell * cell, y1 = b.y1 / cell * cell;
		int32_t x2 = (b.x2 + cell - 1) / cell * cell, y2 = (b.y2 + cell - 1) / cell * cell;
		pixman_region32_t cells;
		pixman_region32_init_rect(&cells, x1, y1, x2 - x1, y2 - y1);
		pixman_region32_subtract(region, region, &cells);
		pixman_region32_fini(&cells);
	}
}

/* The unsent region as rects of pixels that changed, each with its waveform. */
static size_t
plan_updates(struct vl_epd_output *output, struct vl_epd_plan *plans, size_t capacity)
{
	struct vl_epd_flush_state *state = output->flush_state;
	const struct vl_epd_device *dev = output->device;
	struct vl_epd_gray cur = gray_view(output->gray, dev), sent = gray_view(output->sent, dev);
	pixman_box32_t boxes[MAX_RECTS_PER_FLUSH * 4];
	size_t room = capacity < MAX_RECTS_PER_FLUSH * 4 ? capacity : MAX_RECTS_PER_FLUSH * 4;
	pixman_region32_t known;

	/* Where the panel is stale, everything counts as changed. */
	pixman_region32_init(&known);
	pixman_region32_subtract(&known, &output->unsent, &output->stale);
	/* animation is diffed apart: no box of the rest reaches into it */
	pixman_region32_t moving;
	animated_region(state, &moving);
	pixman_region32_t still;
	pixman_region32_init(&still);
	pixman_region32_subtract(&still, &known, &moving);
	pixman_region32_intersect(&moving, &moving, &known);
	pixman_region32_fini(&known);
	size_t n = vl_epd_diff(&cur, &sent, &still, boxes, room);
	pixman_region32_fini(&still);
	bool exempt[MAX_RECTS_PER_FLUSH * 4];
	for (size_t i = 0; i < n; i++) {
		const struct vl_epd_hint *hint = hint_for(&output->hints, &boxes[i]);
		exempt[i] = hint && hint->show_blinking;
	}
	n = vl_epd_blink_filter(
		state->blink, &cur, &sent, &output->unsent, boxes, n, exempt, now_ms());
	/*
	 * A caret blinks fast enough to count as animation: one that did
	 * before blink.c saw it alone is followed here, on its own (animation
	 * is no neighbour), and is diffed with the rest once it goes back and
	 * forth. Only a caret's shape: an animation's frames would churn
	 * through the areas blink.c follows.
	 */
	size_t n_moving = join_near(boxes + n,
		vl_epd_diff(&cur, &sent, &moving, boxes + n, room - n), VL_EPD_ANIM_CELL);
	pixman_region32_fini(&moving);
	for (size_t i = 0, first = n; i < n_moving; i++) {
		boxes[n] = boxes[first + i];
		if (!is_caret_shaped(&boxes[n]) ||
			vl_epd_blink_filter(state->blink, &cur, &sent, &output->unsent, &boxes[n],
				1, NULL, now_ms()) == 1)
			n++;
	}
	int n_stale;
	const pixman_box32_t *stale = pixman_region32_rectangles(&output->stale, &n_stale);
	for (int i = 0; i < n_stale; i++) {
		if (n < room) {
			boxes[n++] = stale[i];
			continue;
		}
		/* out of room: the last rect grows over the rest, as vl_epd_diff does */
		boxes[n - 1] = vl_epd_box_union(&boxes[n - 1], &stale[i]);
	}

	uint64_t now = now_ms();
	enum work work = working(state, now);
	/* a scroll is split into several rects by what moved: it is told on all of them */
	pixman_box32_t extents = n ? boxes[0] : (pixman_box32_t){0};
	for (size_t i = 1; i < n; i++)
		extents = vl_epd_box_union(&extents, &boxes[i]);
	bool scrolled = n && work != WORK_A2 && is_scroll(dev, &cur, &sent, &extents);
	/* so is a new page, which flashes once, not once a rect */
	if (!scrolled && is_new_page(dev, boxes, n)) {
		boxes[0] = extents;
		n = 1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct vl_epd_hint *hint = hint_for(&output->hints, &boxes[i]);
		struct vl_epd_plan *plan = &plans[i];
		plan->box = boxes[i];
		plan->content = vl_epd_classify(&cur, &boxes[i]);
		plan->choice = vl_epd_choose_waveform(state->table, plan->content,
			hint ? hint->mode : VL_EPD_MODE_AUTO,
			hint ? hint->dither : VL_EPD_DITHER_AUTO);
		plan->full = false;
		plan->remember = false;
		plan->scrolled = false;
		plan->animated = false;
		plan->asked = hint && (hint->full_refresh || hint->mode != VL_EPD_MODE_AUTO);
		if (hint && hint->full_refresh) {
			plan->choice = vl_epd_choose_flashing(state->table);
			plan->full = true;
		} else if (!hint || hint->mode == VL_EPD_MODE_AUTO) {
			choose_fast(state, dev, plan, scrolled ? WORK_A2 : work,
				hint ? hint->dither : VL_EPD_DITHER_AUTO);
			plan->scrolled = scrolled && work == WORK_NONE;
			/* what a client animates by itself gets what it would have asked for */
			/* a caret blinks fast enough to count: its hold comes first */
			if (!scrolled && state->animation_interval_ms != 0 &&
				vl_epd_anim_covers(state->anim, &plan->box, now) &&
				!vl_epd_blink_alternates(state->blink, &plan->box)) {
				plan->animated = true;
				plan->choice = vl_epd_choose_waveform(state->table, plan->content,
					VL_EPD_MODE_ANIMATION,
					hint ? hint->dither : VL_EPD_DITHER_AUTO);
			}
		}
	}
	return vl_epd_merge(plans, n, &state->merge);
}

/*
 * Dithers the plan's pixels of src into the framebuffer; false when they
 * could not all be written (no memory for error diffusion, a framebuffer
 * the pipeline cannot address), and then the update must not go out.
 */
static bool
write_pixels(struct vl_epd_output *output, const struct vl_epd_plan *plan, const uint8_t *src)
{
	struct vl_epd_flush_state *state = output->flush_state;
	const struct vl_epd_device *dev = output->device;
	struct vl_epd_gray from = gray_view((uint8_t *)src, dev);
	bool written;

	if (dev->bpp == 8) {
		struct vl_epd_gray fb = {dev->pixels, dev->width, dev->height, dev->stride};
		written = vl_epd_dither(
			&fb, &from, &plan->box, plan->choice.levels, plan->choice.dither);
	} else {
		struct vl_epd_gray scratch = gray_view(state->scratch, dev);
		written = vl_epd_dither(&scratch, &from, &plan->box, plan->choice.levels,
				  plan->choice.dither) &&
			  vl_epd_gray_expand(dev->pixels, dev->stride, &scratch, &plan->box);
	}
	if (!written)
		wlr_log(WLR_ERROR, "cannot write the pixels of %dx%d at %d,%d into the framebuffer",
			plan->box.x2 - plan->box.x1, plan->box.y2 - plan->box.y1, plan->box.x1,
			plan->box.y1);
	return written;
}

static void
mark_sent(struct vl_epd_output *output, const pixman_box32_t *box)
{
	const uint32_t width = output->device->width;

	for (int32_t y = box->y1; y < box->y2; y++) {
		size_t offset = (size_t)y * width + box->x1;
		memcpy(output->sent + offset, output->gray + offset, box->x2 - box->x1);
	}
	/* a failed submission makes it stale again */
	pixman_region32_t sent_box;
	pixman_region32_init_rect(
		&sent_box, box->x1, box->y1, box->x2 - box->x1, box->y2 - box->y1);
	pixman_region32_subtract(&output->stale, &output->stale, &sent_box);
	pixman_region32_fini(&sent_box);
}

/*
 * Queues the plan's update; its pixels are already in the framebuffer, and
 * a device that copies them out has taken them.
 */
static bool
submit(struct vl_epd_output *output, const struct vl_epd_plan *plan,
	struct vl_epd_flush_record *record, const struct vl_epd_waveform_entry *wf, bool flashing)
{
	struct vl_epd_update update = {
		.rect =
			{
				.left = plan->box.x1,
				.top = plan->box.y1,
				.width = plan->box.x2 - plan->box.x1,
				.height = plan->box.y2 - plan->box.y1,
			},
		.waveform = vl_epd_waveform_map_device_id(
			&output->device->waveform_map, plan->choice.waveform),
		.full = plan->full,
		.marker = output->next_marker,
	};
	const struct vl_epd_device_impl *impl = output->device->impl;
	if (record->n == VL_EPD_MAX_UPDATES_PER_FLUSH)
		return false;
	/*
	 * A device that copies pixels out takes them now: a later flush may
	 * write this box again before the submit thread gets to this update.
	 */
	if (impl->snapshot && !impl->snapshot(output->device, &update)) {
		wlr_log(WLR_ERROR, "cannot take the pixels of panel update %" PRIu32,
			update.marker);
		return false;
	}
	if (!vl_epd_io_submit(&output->io, &update))
		return false;
	/* Marker 0 means "no marker" to the driver. */
	output->next_marker = output->next_marker == UINT32_MAX ? 1 : output->next_marker + 1;
	if (record->n == 0)
		record->waveform = wf ? wf->name : "AUTO";
	record->markers[record->n] = update.marker;
	record->boxes[record->n] = plan->box;
	record->waveforms[record->n] = wf ? wf->name : "AUTO";
	record->flashing[record->n] = flashing;
	record->fast[record->n] = !flashing && (plan->choice.waveform == WAVEFORM_MODE_DU ||
						       plan->choice.waveform == WAVEFORM_MODE_A2);
	record->n++;
	record->flashed |= flashing;
	return true;
}

static bool
flashes(const struct vl_epd_waveform_entry *wf, const struct vl_epd_plan *plan)
{
	return wf && (wf->flashing || (plan->full && wf->flashing_full));
}

/*
 * A change of half the panel or more is a new page: it gets a flashing
 * refresh, as on e-readers, since the ghost of a whole page would be plain
 * to see. Animation keeps its fast waveform.
 */
static bool
is_page_turn(const struct vl_epd_device *dev, const struct vl_epd_plan *plan)
{
	return plan->choice.waveform != WAVEFORM_MODE_A2 && !plan->remember && !plan->animated &&
	       is_page_sized(dev, &plan->box);
}

/* Whether the panel was flashed clean moments ago, by no page turn of the user's. */
static bool
starting(const struct vl_epd_flush_state *state, uint64_t now)
{
	return within(state->page_flash_ms, now, START_MS) &&
	       state->input_ms < state->page_flash_ms;
}

static void
promote(struct vl_epd_flush_state *state, const struct vl_epd_device *dev, struct vl_epd_plan *plan,
	enum work work, uint64_t now)
{
	pixman_box32_t promoted;

	if (is_page_turn(dev, plan)) {
		if (!plan->asked && starting(state, now)) {
			/* a quality redraw: all the levels, no flash */
			plan->choice = vl_epd_choose_waveform(state->table, VL_EPD_CONTENT_GRAY,
				VL_EPD_MODE_TEXT, VL_EPD_DITHER_AUTO);
			return;
		}
		plan->choice = vl_epd_choose_flashing(state->table);
		plan->full = true;
		return;
	}
	/*
	 * Animation, and any change while the user works, puts its promotion
	 * off to the idle cleanup: no ghost flash gets in the user's way. So
	 * does a change beside a running animation (a progress bar's block
	 * entering a cell). Text that scrolls by itself may never rest: it
	 * flashes once its debt is due.
	 */
	bool animation =
		(plan->choice.waveform == WAVEFORM_MODE_A2 && !plan->scrolled) || plan->animated;
	if (work != WORK_NONE || animation || plan->full ||
		(state->animation_interval_ms != 0 &&
			vl_epd_anim_beside(state->anim, &plan->box, now)) ||
		!vl_epd_ghost_promote(state->ghost, &plan->box, &promoted))
		return;
	plan->box = promoted;
	plan->choice = vl_epd_choose_flashing(state->table);
	plan->full = true;
}

/*
 * Two-level waveforms leave the most ghost: what they drew is cleaned up
 * once the panel rests, whoever chose them (a clock's seconds in A2 too).
 */
static bool
leaves_fast_ghost(const struct vl_epd_plan *plan)
{
	return plan->choice.waveform == WAVEFORM_MODE_A2 ||
	       plan->choice.waveform == WAVEFORM_MODE_DU;
}

void
vl_epd_forget_sent(struct vl_epd_output *output, const pixman_box32_t *box)
{
	const struct vl_epd_device *dev = output->device;
	pixman_region32_t area;

	pixman_region32_init_rect(&area, box->x1, box->y1, box->x2 - box->x1, box->y2 - box->y1);
	pixman_region32_intersect_rect(&area, &area, 0, 0, dev->width, dev->height);
	pixman_region32_union(&output->stale, &output->stale, &area);
	pixman_region32_union(&output->unsent, &output->unsent, &area);
	pixman_region32_fini(&area);
}

static bool
boxes_overlap(const pixman_box32_t *a, const pixman_box32_t *b)
{
	return a->x1 < b->x2 && b->x1 < a->x2 && a->y1 < b->y2 && b->y1 < a->y2;
}

/*
 * Whether box must wait: the updates in flight over it are one on the
 * panel and one queued behind it already. Content for it waits and merges
 * with what comes meanwhile, newest wins, instead of queueing an update a
 * frame; anything else goes to the panel at once.
 */
static bool
must_wait(const struct vl_epd_output *output, const struct vl_epd_flush_record *current,
	const pixman_box32_t *box)
{
	size_t over = 0;

	for (size_t i = 0; i < VL_EPD_FLUSH_SLOTS; i++) {
		const struct vl_epd_flush_record *record = &output->flushes[i];
		if (record->id == 0 || record == current)
			continue;
		for (size_t j = 0; j < record->n; j++) {
			if (boxes_overlap(&record->boxes[j], box)) {
				over++;
				break;
			}
		}
	}
	return over >= VL_EPD_MAX_DEPTH;
}

/* Whether box waits for the rest of a change split over commits. */
static bool
is_held(const struct vl_epd_output *output, const pixman_box32_t *box)
{
	pixman_box32_t b = *box;

	return pixman_region32_contains_rectangle((pixman_region32_t *)&output->held, &b) !=
	       PIXMAN_REGION_OUT;
}

/*
 * A hint goes with the content it came with: where that content went out,
 * the hint is spent; it stays, shrunk, only over what still waits or failed.
 * So a one-shot full refresh flashes once, and a change that comes later
 * without a hint is not taken for hinted content.
 */
static void
keep_hints_of_unsent(struct vl_epd_output *output)
{
	struct vl_epd_hint *hints = output->hints.data;
	size_t n = output->hints.size / sizeof(*hints), kept = 0;

	for (size_t i = 0; i < n; i++) {
		pixman_region32_t left;
		pixman_region32_init(&left);
		pixman_region32_intersect_rect(&left, &output->unsent, hints[i].box.x,
			hints[i].box.y, hints[i].box.width, hints[i].box.height);
		if (pixman_region32_not_empty(&left)) {
			const pixman_box32_t *e = pixman_region32_extents(&left);
			hints[kept] = hints[i];
			hints[kept].box =
				(struct wlr_box){e->x1, e->y1, e->x2 - e->x1, e->y2 - e->y1};
			kept++;
		}
		pixman_region32_fini(&left);
	}
	output->hints.size = kept * sizeof(*hints);
}

bool
vl_epd_flush(struct vl_epd_output *output, struct vl_epd_flush_record *record, bool everything)
{
	struct vl_epd_flush_state *state = output->flush_state;
	const struct vl_epd_device *dev = output->device;
	struct vl_epd_plan plans[MAX_RECTS_PER_FLUSH * 4];
	pixman_region32_t failed, waiting;
	size_t n;

	vl_epd_flush_expire_blinks(output, true);
	/* what failed before goes out again with what is new */
	pixman_region32_union(&output->unsent, &output->unsent, &output->stale);
	if (!pixman_region32_not_empty(&output->unsent)) {
		n = 0;
	} else if (!state->panel_known) {
		/* The panel may show anything: one flashing refresh puts it in a known state. */
		plans[0] = (struct vl_epd_plan){
			.box = {0, 0, dev->width, dev->height},
			.content = VL_EPD_CONTENT_IMAGE,
			.choice = vl_epd_choose_flashing(state->table),
			.full = true,
		};
		n = 1;
	} else {
		n = plan_updates(output, plans, sizeof(plans) / sizeof(plans[0]));
	}

	uint64_t now = now_ms();
	enum work work = working(state, now);
	uint32_t next_pace = 0;
	pixman_region32_init(&failed);
	pixman_region32_init(&waiting);
	pixman_region32_clear(&output->paced);
	for (size_t i = 0; i < n; i++) {
		struct vl_epd_plan *plan = &plans[i];
		promote(state, dev, plan, work, now);
		/* an animation's frames between its paced ones are skipped, the newest kept */
		uint32_t pace = everything || !plan->animated
					? 0
					: vl_epd_anim_wait(state->anim, &plan->box, now,
						  state->animation_interval_ms);
		if (pace > 0) {
			pixman_region32_union_rect(&waiting, &waiting, plan->box.x1, plan->box.y1,
				plan->box.x2 - plan->box.x1, plan->box.y2 - plan->box.y1);
			pixman_region32_union_rect(&output->paced, &output->paced, plan->box.x1,
				plan->box.y1, plan->box.x2 - plan->box.x1,
				plan->box.y2 - plan->box.y1);
			next_pace = next_pace == 0 || pace < next_pace ? pace : next_pace;
			continue;
		}
		if (!everything &&
			(is_held(output, &plan->box) || must_wait(output, record, &plan->box))) {
			pixman_region32_union_rect(&waiting, &waiting, plan->box.x1, plan->box.y1,
				plan->box.x2 - plan->box.x1, plan->box.y2 - plan->box.y1);
			continue;
		}
		const struct vl_epd_waveform_entry *wf =
			vl_epd_waveform_find(state->table, plan->choice.waveform);
		bool flashing = flashes(wf, plan);
		/*
		 * A promoted box may reach past what changed: send it what was
		 * committed. What cannot be written or queued is sent again.
		 */
		mark_sent(output, &plan->box);
		if (!write_pixels(output, plan, output->sent) ||
			!submit(output, plan, record, wf, flashing)) {
			pixman_region32_union_rect(&failed, &failed, plan->box.x1, plan->box.y1,
				plan->box.x2 - plan->box.x1, plan->box.y2 - plan->box.y1);
			continue;
		}
		if (plan->animated)
			vl_epd_anim_driven(state->anim, &plan->box, now);
		vl_epd_ghost_record(state->ghost, &plan->box, plan->choice.waveform, flashing, now);
		/*
		 * What an application draws in its start in gray levels lands on
		 * a panel just flashed clean: the idle cleanup redraws it, it
		 * owes no flash. DU and A2 leave ghosts of their own.
		 */
		if (!flashing && !leaves_fast_ghost(plan) && starting(state, now))
			vl_epd_ghost_settle(state->ghost, &plan->box);
		if (flashing && is_page_sized(dev, &plan->box))
			state->page_flash_ms = now;
		if (!flashing && (plan->remember || leaves_fast_ghost(plan)))
			vl_epd_ghost_remember(state->ghost, &plan->box);
	}
	vl_epd_io_kick(&output->io);
	/*
	 * A held caret's blinks drove only its own pixels between two levels:
	 * counted as so many DU updates over its cell, they would flash the
	 * field at rest. Its cell is redrawn in GL16 instead.
	 */
	pixman_box32_t held[VL_EPD_BLINK_AREAS];
	size_t n_held = vl_epd_blink_boxes(state->blink, true, held, VL_EPD_BLINK_AREAS);
	for (size_t i = 0; i < n_held; i++)
		vl_epd_ghost_settle(state->ghost, &held[i]);
	if (record->n > 0)
		state->panel_known = true;
	pixman_region32_copy(&output->unsent, &waiting);
	pixman_region32_fini(&waiting);

	bool queued = !pixman_region32_not_empty(&failed);
	int n_failed;
	const pixman_box32_t *boxes = pixman_region32_rectangles(&failed, &n_failed);
	for (int i = 0; i < n_failed; i++)
		vl_epd_forget_sent(output, &boxes[i]);
	pixman_region32_fini(&failed);
	keep_hints_of_unsent(output);
	/* areas held from now on stop being held once they stop blinking */
	vl_epd_flush_expire_blinks(output, false);
	/* a zero delay disarms the timer: nothing is paced */
	wl_event_source_timer_update(output->pace_timer, (int)next_pace);
	return queued;
}

/* When the idle cleanup is due: the panel and the input quiet for idle_cleanup_ms. */
static int64_t
cleanup_left(const struct vl_epd_flush_state *state, uint64_t now, pixman_region32_t *flash,
	pixman_region32_t *redraw)
{
	uint64_t deadline;
	int64_t left = vl_epd_ghost_cleanup(state->ghost, now, &deadline, flash, redraw);

	if (left < 0)
		return -1;
	uint64_t after_input = state->input_ms + state->idle_cleanup_ms;
	if (state->input_ms != 0 && after_input > now && (int64_t)(after_input - now) > left)
		left = (int64_t)(after_input - now);
	return left;
}

bool
vl_epd_cleanup_due(struct vl_epd_output *output, unsigned int *delay_ms)
{
	int64_t left = cleanup_left(output->flush_state, now_ms(), NULL, NULL);

	if (left < 0)
		return false;
	/* A zero delay would disarm the timer. */
	*delay_ms = left > 0 ? (unsigned int)left : 1;
	return true;
}

/* Plans the cleanup of area's rects, merged, each with its waveform. */
static size_t
plan_cleanup(struct vl_epd_flush_state *state, const pixman_region32_t *area, bool flash,
	struct vl_epd_plan *plans, size_t capacity)
{
	int n_rects;
	const pixman_box32_t *rects = pixman_region32_rectangles(area, &n_rects);
	struct vl_epd_merge_options merge = state->merge;
	size_t n = 0;

	for (int i = 0; i < n_rects; i++) {
		struct vl_epd_plan plan = {
			.box = rects[i],
			.content = VL_EPD_CONTENT_IMAGE,
			.choice = vl_epd_choose_flashing(state->table),
			.full = true,
		};
		if (!flash) {
			/* a quality redraw: 16 levels without a flash */
			plan.content = VL_EPD_CONTENT_GRAY;
			plan.choice = vl_epd_choose_waveform(state->table, VL_EPD_CONTENT_GRAY,
				VL_EPD_MODE_TEXT, VL_EPD_DITHER_AUTO);
			plan.full = false;
		}
		if (n < capacity) {
			plans[n++] = plan;
			continue;
		}
		plans[n - 1].box = vl_epd_box_union(&plans[n - 1].box, &plan.box);
	}
	merge.max_rects = capacity;
	/*
	 * One flash is one moment the user sees: a flash of areas close
	 * together goes as one update, if that drives at most twice the area.
	 */
	const pixman_box32_t *extents = pixman_region32_extents(area);
	if (flash && vl_epd_box_area(extents) <= 2 * boxes_area(rects, (size_t)n_rects))
		merge.max_rects = 1;
	return vl_epd_merge(plans, n, &merge);
}

void
vl_epd_cleanup(struct vl_epd_output *output, struct vl_epd_flush_record *record)
{
	struct vl_epd_flush_state *state = output->flush_state;
	struct vl_epd_plan plans[MAX_RECTS_PER_FLUSH * 4];
	const size_t half = MAX_RECTS_PER_FLUSH / 2;
	pixman_region32_t flash, redraw;
	size_t n;

	pixman_region32_init(&flash);
	pixman_region32_init(&redraw);
	if (cleanup_left(state, now_ms(), &flash, &redraw) != 0)
		goto out;
	n = plan_cleanup(state, &flash, true, plans, half);
	/* Cells a merged flash covers are clean already. */
	for (size_t i = 0; i < n; i++) {
		pixman_region32_t flashed;
		pixman_region32_init_rect(&flashed, plans[i].box.x1, plans[i].box.y1,
			plans[i].box.x2 - plans[i].box.x1, plans[i].box.y2 - plans[i].box.y1);
		pixman_region32_subtract(&redraw, &redraw, &flashed);
		pixman_region32_fini(&flashed);
	}
	n += plan_cleanup(state, &redraw, false, plans + n, half);
	for (size_t i = 0; i < n; i++) {
		struct vl_epd_plan *plan = &plans[i];
		const struct vl_epd_waveform_entry *wf =
			vl_epd_waveform_find(state->table, plan->choice.waveform);
		bool flashing = flashes(wf, plan);
		vl_epd_box_clip(&plan->box, output->device->width, output->device->height);
		/* The panel is cleaned to what it was sent, not to newer content. */
		if (!write_pixels(output, plan, output->sent) ||
			!submit(output, plan, record, wf, flashing))
			continue;
		vl_epd_ghost_record(
			state->ghost, &plan->box, plan->choice.waveform, flashing, now_ms());
		vl_epd_ghost_forget(state->ghost, &plan->box);
	}
	vl_epd_io_kick(&output->io);
out:
	pixman_region32_fini(&flash);
	pixman_region32_fini(&redraw);
}
