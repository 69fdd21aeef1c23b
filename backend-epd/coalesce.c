/*
 * Merging: one update of the union costs update_cost + its area, two cost
 * 2 * update_cost + both areas, so nearby rects of the same waveform merge
 * when that is cheaper, overlapping ones always. Above max_rects the cheapest
 * pairs merge whatever their waveforms, keeping the higher-quality one.
 */
#include <epdfb.h>

#include "pipeline.h"

static uint64_t
area(const pixman_box32_t *b)
{
	return (uint64_t)(b->x2 - b->x1) * (uint64_t)(b->y2 - b->y1);
}

static pixman_box32_t
box_union(const pixman_box32_t *a, const pixman_box32_t *b)
{
	return (pixman_box32_t){
		a->x1 < b->x1 ? a->x1 : b->x1,
		a->y1 < b->y1 ? a->y1 : b->y1,
		a->x2 > b->x2 ? a->x2 : b->x2,
		a->y2 > b->y2 ? a->y2 : b->y2,
	};
}

static bool
overlap(const pixman_box32_t *a, const pixman_box32_t *b)
{
	return a->x1 < b->x2 && b->x1 < a->x2 && a->y1 < b->y2 && b->y1 < a->y2;
}

static bool
same_update(const struct vl_epd_plan *a, const struct vl_epd_plan *b)
{
	return a->choice.waveform == b->choice.waveform && a->choice.dither == b->choice.dither &&
	       a->full == b->full;
}

/* Higher is better quality; merged plans keep the better waveform. */
static int
quality(uint32_t waveform)
{
	switch (waveform) {
	case WAVEFORM_MODE_GC16:
		return 5;
	case WAVEFORM_MODE_GL16:
		return 4;
	case WAVEFORM_MODE_GC4:
		return 3;
	case WAVEFORM_MODE_DU:
		return 2;
	default:
		return 1;
	}
}

/* What merging a and b adds to the total cost (negative: it saves). */
static int64_t
merge_gain(const struct vl_epd_plan *a, const struct vl_epd_plan *b, uint64_t update_cost)
{
	pixman_box32_t u = box_union(&a->box, &b->box);
	return (int64_t)area(&u) - (int64_t)area(&a->box) - (int64_t)area(&b->box) -
	       (int64_t)update_cost;
}

static size_t
merge_pair(struct vl_epd_plan *plans, size_t n, size_t i, size_t j)
{
	struct vl_epd_plan *a = &plans[i], *b = &plans[j];

	a->box = box_union(&a->box, &b->box);
	if (quality(b->choice.waveform) > quality(a->choice.waveform))
		a->choice = b->choice;
	a->full = a->full || b->full;
	if (b->content > a->content)
		a->content = b->content;
	plans[j] = plans[n - 1];
	return n - 1;
}

static void
align_box(pixman_box32_t *box, const struct vl_epd_merge_options *options)
{
	if (options->align > 1) {
		int32_t align = options->align;
		box->x1 -= box->x1 % align;
		box->x2 += (align - box->x2 % align) % align;
	}
	if (box->x1 < 0)
		box->x1 = 0;
	if (box->y1 < 0)
		box->y1 = 0;
	if (box->x2 > (int32_t)options->panel_width)
		box->x2 = options->panel_width;
	if (box->y2 > (int32_t)options->panel_height)
		box->y2 = options->panel_height;
}

size_t
vl_epd_merge(struct vl_epd_plan *plans, size_t n, const struct vl_epd_merge_options *options)
{
	for (size_t i = 0; i < n; i++)
		align_box(&plans[i].box, options);

	bool merged = true;
	while (merged) {
		merged = false;
		for (size_t i = 0; i < n && !merged; i++) {
			for (size_t j = i + 1; j < n && !merged; j++) {
				bool cheaper =
					same_update(&plans[i], &plans[j]) &&
					merge_gain(&plans[i], &plans[j], options->update_cost) <= 0;
				if (cheaper || overlap(&plans[i].box, &plans[j].box)) {
					n = merge_pair(plans, n, i, j);
					merged = true;
				}
			}
		}
	}

	while (options->max_rects > 0 && n > options->max_rects) {
		size_t best_i = 0, best_j = 1;
		int64_t best = INT64_MAX;
		for (size_t i = 0; i < n; i++) {
			for (size_t j = i + 1; j < n; j++) {
				int64_t gain =
					merge_gain(&plans[i], &plans[j], options->update_cost);
				if (gain < best) {
					best = gain;
					best_i = i;
					best_j = j;
				}
			}
		}
		n = merge_pair(plans, n, best_i, best_j);
	}
	return n;
}
