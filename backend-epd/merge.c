// SPDX-License-Identifier: MIT
/*
 * Fewer, larger updates: every update costs the controller a fixed setup
 * (a LUT slot, a pass over the waveform) on top of the pixels it drives,
 * so nearby rects are cheaper as one. Plans of different kinds stay apart:
 * merging text into an image would drive it with the image's waveform.
 */
#include <string.h>
#include <vellum/epd-pipeline.h>

static void
align_box(pixman_box32_t *box, int32_t ax, int32_t ay)
{
	/* Clipped boxes have no negative coordinates. */
	if (ax > 1) {
		box->x1 -= box->x1 % ax;
		box->x2 += (ax - box->x2 % ax) % ax;
	}
	if (ay > 1) {
		box->y1 -= box->y1 % ay;
		box->y2 += (ay - box->y2 % ay) % ay;
	}
}

static bool
compatible(const struct vl_epd_plan *a, const struct vl_epd_plan *b, bool mixed)
{
	return mixed || (a->content == b->content && a->choice.waveform == b->choice.waveform &&
				a->choice.levels == b->choice.levels &&
				a->choice.dither == b->choice.dither && a->full == b->full &&
				a->remember == b->remember && a->animated == b->animated &&
				a->asked == b->asked);
}

/* cost(a) + cost(b) - cost(a + b): what merging saves, negative if it costs. */
static int64_t
saving(const struct vl_epd_plan *a, const struct vl_epd_plan *b, int64_t update_cost)
{
	pixman_box32_t u = vl_epd_box_union(&a->box, &b->box);

	return update_cost + (int64_t)vl_epd_box_area(&a->box) + (int64_t)vl_epd_box_area(&b->box) -
	       (int64_t)vl_epd_box_area(&u);
}

/* Merges plans[j] into plans[i]. */
static void
merge_into(struct vl_epd_plan *a, const struct vl_epd_plan *b)
{
	if (b->content > a->content ||
		(b->content == a->content && vl_epd_box_area(&b->box) > vl_epd_box_area(&a->box))) {
		a->content = b->content;
		a->choice = b->choice;
	}
	a->full = a->full || b->full;
	a->remember = a->remember || b->remember;
	a->scrolled = a->scrolled || b->scrolled;
	a->box = vl_epd_box_union(&a->box, &b->box);
}

size_t
vl_epd_merge(struct vl_epd_plan *plans, size_t n, const struct vl_epd_merge_options *options)
{
	if (!plans || !options)
		return 0;

	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		struct vl_epd_plan plan = plans[i];
		if (!vl_epd_box_clip(&plan.box, options->panel_width, options->panel_height))
			continue;
		align_box(&plan.box, options->align_x, options->align_y);
		vl_epd_box_clip(&plan.box, options->panel_width, options->panel_height);
		plans[kept++] = plan;
	}
	n = kept;

	const int64_t update_cost = options->update_cost > INT64_MAX / 4
					    ? INT64_MAX / 4
					    : (int64_t)options->update_cost;
	for (;;) {
		size_t best_i = 0, best_j = 0;
		int64_t best = INT64_MIN;
		for (size_t i = 0; i < n; i++) {
			for (size_t j = i + 1; j < n; j++) {
				if (!compatible(&plans[i], &plans[j], options->mixed))
					continue;
				int64_t s = saving(&plans[i], &plans[j], update_cost);
				if (s > best) {
					best = s;
					best_i = i;
					best_j = j;
				}
			}
		}
		if (best == INT64_MIN)
			break;
		/* A merge that costs is only worth it to respect the cap. */
		if (best < 0 && (options->max_rects == 0 || n <= options->max_rects))
			break;
		merge_into(&plans[best_i], &plans[best_j]);
		memmove(&plans[best_j], &plans[best_j + 1], (n - best_j - 1) * sizeof(*plans));
		n--;
	}
	return n;
}
