// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * epdfb - simulated E Ink panel
 *
 * Models what matters to the software above it: waveform durations that
 * grow on a cold panel, the gray levels each waveform reproduces, and
 * ghosting. Every pixel has a settled level, the level it had before its
 * last transition, and a ghost amount: a non-flashing transition leaves a
 * residual of its size (scaled by the waveform's ghost gain) that adds up
 * and pulls the visible gray back toward the previous level. A flashing
 * update drives every pixel through black and white, clearing the residual.
 */

#include <linux/export.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "epdfb_drv.h"

#define EPDFB_SIM_GHOST_MAX	64

struct epdfb_sim {
	u8 *level;
	u8 *previous;
	u8 *ghost;
	u64 ghost_sum;
};

static const struct epdfb_waveform epdfb_sim_waveforms[] = {
	{ WAVEFORM_MODE_INIT, "INIT", 2, EPDFB_WAVEFORM_FLASHING, 2000, 0 },
	{ WAVEFORM_MODE_DU, "DU", 2, 0, 260, 16 },
	{ WAVEFORM_MODE_GC16, "GC16", 16, EPDFB_WAVEFORM_FLASHING_FULL, 450, 4 },
	{ WAVEFORM_MODE_GC4, "GC4", 4, EPDFB_WAVEFORM_FLASHING_FULL, 290, 8 },
	{ WAVEFORM_MODE_A2, "A2", 2, 0, 120, 32 },
	{ WAVEFORM_MODE_GL16, "GL16", 16, 0, 450, 4 },
};

/*
 * Electrophoretic particles move slower in a colder, more viscous fluid:
 * from 20 degrees C up waveforms take their nominal time, 10..19 degrees
 * take 1.5 times as long, below 10 degrees 2.5 times.
 */
static u32 epdfb_sim_duration_ms(const struct epdfb_waveform *wf, int temp)
{
	if (temp >= 20)
		return wf->base_ms;
	if (temp >= 10)
		return wf->base_ms * 3 / 2;
	return wf->base_ms * 5 / 2;
}

static int epdfb_sim_init(struct epdfb_par *par)
{
	size_t count = (size_t)par->width * par->height;
	struct epdfb_sim *sim;

	sim = kzalloc(sizeof(*sim), GFP_KERNEL);
	if (!sim)
		return -ENOMEM;
	sim->level = kvmalloc(count, GFP_KERNEL);
	sim->previous = kvmalloc(count, GFP_KERNEL);
	sim->ghost = kvzalloc(count, GFP_KERNEL);
	if (!sim->level || !sim->previous || !sim->ghost) {
		kvfree(sim->level);
		kvfree(sim->previous);
		kvfree(sim->ghost);
		kfree(sim);
		return -ENOMEM;
	}
	memset(sim->level, 0xff, count);
	memset(sim->previous, 0xff, count);
	par->panel = sim;
	return 0;
}

static void epdfb_sim_fini(struct epdfb_par *par)
{
	struct epdfb_sim *sim = par->panel;

	if (!sim)
		return;
	kvfree(sim->level);
	kvfree(sim->previous);
	kvfree(sim->ghost);
	kfree(sim);
	par->panel = NULL;
}

/* Clears the ghost of @n pixels from offset @i on. */
static void epdfb_sim_clear_ghost(struct epdfb_sim *sim, size_t i, size_t n)
{
	u8 *ghost = sim->ghost + i, *end = ghost + n;

	/* most are clear already, a flashing update having cleared them last */
	while ((ghost = memchr_inv(ghost, 0, end - ghost))) {
		sim->ghost_sum -= *ghost;
		*ghost++ = 0;
	}
}

static u64 epdfb_sim_show(struct epdfb_par *par,
			  const struct epdfb_update *upd,
			  const struct epdfb_waveform *wf)
{
	const struct mxcfb_rect *r = &upd->rect;
	struct epdfb_sim *sim = par->panel;
	bool full = upd->mode == UPDATE_MODE_FULL;
	size_t stride = epdfb_update_stride(par->width, upd);
	size_t i, end, n, k;
	const u8 *src;
	u64 driven = 0;
	u32 y, ghost;
	u8 cur;

	epdfb_for_each_row(par, r, y, i) {
		src = upd->pixels + (y - r->top) * stride;
		for (end = i + r->width; i < end; i += n, src += n) {
			n = epdfb_owner_run(par, i, end - i);
			/* another update drives them, or will */
			if (!epdfb_update_drives(par, upd, i))
				continue;
			if (upd->flashing) {
				epdfb_sim_clear_ghost(sim, i, n);
				memcpy(sim->level + i, src, n);
				memcpy(sim->previous + i, src, n);
				driven += n;
				continue;
			}
			for (k = 0; k < n; k++) {
				cur = sim->level[i + k];
				if (full)
					driven++;
				if (src[k] == cur)
					continue;
				if (!full)
					driven++;
				ghost = sim->ghost[i + k] +
					abs(cur - src[k]) * wf->ghost_gain / 256;
				ghost = min_t(u32, ghost, EPDFB_SIM_GHOST_MAX);
				sim->ghost_sum += ghost - sim->ghost[i + k];
				sim->ghost[i + k] = ghost;
				sim->previous[i + k] = cur;
				sim->level[i + k] = src[k];
			}
		}
	}
	return driven;
}

/*
 * A two-level waveform pushes a pixel straight toward black or white: cut
 * off, the pixel is where the push left it (it switches halfway, as frames
 * show it), and the push's share of a transition is residual all the same,
 * as the DC it put in is never balanced: the ghost of the cut transition
 * in proportion to how far it went.
 */
static void epdfb_sim_retarget(struct epdfb_par *par, size_t i, u8 to,
			       u32 progress, const struct epdfb_waveform *wf)
{
	struct epdfb_sim *sim = par->panel;
	u8 cur = sim->level[i];
	u32 ghost;

	if (to == cur)
		return;
	ghost = sim->ghost[i] +
		abs(cur - to) * progress / 256 * wf->ghost_gain / 256;
	ghost = min_t(u32, ghost, EPDFB_SIM_GHOST_MAX);
	sim->ghost_sum += ghost - sim->ghost[i];
	sim->ghost[i] = ghost;
	if (progress >= 128) {
		sim->previous[i] = cur;
		sim->level[i] = to;
	}
}

static void epdfb_sim_read_panel(struct epdfb_par *par, u8 *dst)
{
	size_t count = (size_t)par->width * par->height;
	struct epdfb_sim *sim = par->panel;
	int level, ghost;
	size_t i;

	for (i = 0; i < count; i++) {
		if (!(i % par->width))
			cond_resched();
		level = sim->level[i];
		ghost = sim->ghost[i];
		if (sim->previous[i] > level)
			level = min(level + ghost, 255);
		else if (sim->previous[i] < level)
			level = max(level - ghost, 0);
		dst[i] = level;
	}
}

static u64 epdfb_sim_ghost_milli(struct epdfb_par *par)
{
	struct epdfb_sim *sim = par->panel;

	return div64_u64(sim->ghost_sum * 1000,
			 (u64)par->width * par->height);
}

static bool epdfb_sim_ghost_span(struct epdfb_par *par, u32 y, u32 min,
				 u32 *first, u32 *last)
{
	struct epdfb_sim *sim = par->panel;
	const u8 *row = sim->ghost + (size_t)y * par->width;
	u32 x, left = par->width, right = 0;

	for (x = 0; x < par->width; x++) {
		if (row[x] < min)
			continue;
		left = min(left, x);
		right = x;
	}
	*first = left;
	*last = right;
	return left < par->width;
}

const struct epdfb_panel_ops epdfb_sim_ops = {
	.waveforms = epdfb_sim_waveforms,
	.n_waveforms = ARRAY_SIZE(epdfb_sim_waveforms),
	.init = epdfb_sim_init,
	.fini = epdfb_sim_fini,
	.duration_ms = epdfb_sim_duration_ms,
	.show = epdfb_sim_show,
	.read_panel = epdfb_sim_read_panel,
	.ghost_milli = epdfb_sim_ghost_milli,
	.ghost_span = epdfb_sim_ghost_span,
	.retarget = epdfb_sim_retarget,
};
EXPORT_SYMBOL_NS_GPL(epdfb_sim_ops, EPDPANEL);
