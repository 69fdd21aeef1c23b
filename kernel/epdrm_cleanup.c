// SPDX-License-Identifier: GPL-2.0-only
/*
 * epdrm - the idle cleanup: a flash over the ghosts a master left behind
 *
 * Non-flashing waveforms leave a residue of the picture before (the panel
 * model's ghost), which only a flashing update clears. A compositor made
 * for e-paper flashes with EPD_FULL when it judges right; one that knows
 * nothing of e-paper (sway, weston, cage, the console) never does, and its
 * panel greys over. For those the driver flashes the areas whose ghost has
 * grown visible, once the panel has had no update for cleanup_delay_ms:
 * never while updates keep coming, since they are the user at work. A
 * master that sets EPD_FULL, to either value, is of the first kind, and
 * the cleanup leaves its panel alone until another program becomes master.
 */

#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/sched.h>

#include "epdrm_drv.h"

static unsigned int cleanup_delay_ms = 1500;
module_param(cleanup_delay_ms, uint, 0644);
MODULE_PARM_DESC(cleanup_delay_ms,
		 "Idle time after which the areas left ghosted by a master that never sets EPD_FULL are flashed, in ms; 0: never (default 1500)");

/*
 * The residue, in gray levels, that calls for a flash: one black-white
 * transition in DU or A2 leaves more, one in GL16 or a partial GC16 less.
 */
#define EPDRM_GHOST_DEBT	8
/*
 * The mean residue over the panel, in 1/1000 gray level, beyond which
 * fainter ones call for a flash too: a page drawn over another in GC16
 * leaves 3 levels everywhere, which a reader sees as a gray cast.
 */
#define EPDRM_GHOST_MEAN_DEBT	20
/* Rows apart that two ghosted areas may be and still flash as one. */
#define EPDRM_CLEANUP_GAP	32
/* Updates one cleanup sends at most: the rest join the last. */
#define EPDRM_CLEANUP_RECTS	8

/* Grows @r, in panel coordinates, to hold columns @first to @last of row @y. */
static void epdrm_rect_add(struct mxcfb_rect *r, u32 first, u32 last, u32 y)
{
	u32 right = max(r->left + r->width, last + 1);

	r->left = min(r->left, first);
	r->width = right - r->left;
	r->height = y + 1 - r->top;
}

static void epdrm_rect_join(struct mxcfb_rect *r, const struct mxcfb_rect *b)
{
	u32 right = max(r->left + r->width, b->left + b->width);

	r->left = min(r->left, b->left);
	r->width = right - r->left;
	r->height = b->top + b->height - r->top;
}

/*
 * The areas in debt, top to bottom, as at most EPDRM_CLEANUP_RECTS rects;
 * under par.lock.
 */
static unsigned int epdrm_ghosted_areas(struct epdfb_par *par,
					struct mxcfb_rect *rects)
{
	u32 debt = EPDRM_GHOST_DEBT;
	struct mxcfb_rect *r = NULL;
	unsigned int n = 0;
	u32 y, first, last;

	if (par->ops->ghost_milli(par) > EPDRM_GHOST_MEAN_DEBT)
		debt = 1;
	for (y = 0; y < par->height; y++) {
		cond_resched();
		if (!par->ops->ghost_span(par, y, debt, &first, &last))
			continue;
		if (r && y - (r->top + r->height) <= EPDRM_CLEANUP_GAP) {
			epdrm_rect_add(r, first, last, y);
			continue;
		}
		if (n == EPDRM_CLEANUP_RECTS) {
			epdrm_rect_join(r, &(struct mxcfb_rect){
				.top = y, .left = first,
				.width = last + 1 - first, .height = 1 });
			continue;
		}
		r = &rects[n++];
		*r = (struct mxcfb_rect){ .top = y, .left = first,
					  .width = last + 1 - first,
					  .height = 1 };
	}
	return n;
}

static bool epdrm_panel_idle(struct epdfb_par *par)
{
	return list_empty(&par->in_flight) && list_empty(&par->queue) &&
	       !par->held;
}

static void epdrm_cleanup_work(struct work_struct *work)
{
	struct epdrm_device *epd = container_of(to_delayed_work(work),
						struct epdrm_device,
						cleanup_work);
	struct epdfb_par *par = &epd->par;
	struct mxcfb_rect rects[EPDRM_CLEANUP_RECTS];
	struct mxcfb_update_data req = {
		.waveform_mode = WAVEFORM_MODE_GC16,
		.update_mode = UPDATE_MODE_FULL,
		.temp = TEMP_USE_AMBIENT,
	};
	unsigned int i, n = 0;
	bool idle;

	if (READ_ONCE(epd->master_sets_full) || !READ_ONCE(cleanup_delay_ms))
		return;
	mutex_lock(&par->lock);
	idle = epdrm_panel_idle(par);
	if (idle && !par->dead)
		n = epdrm_ghosted_areas(par, rects);
	mutex_unlock(&par->lock);
	/* The panel is still busy: idle is counted from its last update. */
	if (!idle) {
		epdrm_cleanup_arm(epd);
		return;
	}
	for (i = 0; i < n; i++) {
		req.update_region = rects[i];
		if (epdfb_queue_submit(par, &req))
			break;
	}
}

void epdrm_cleanup_init(struct epdrm_device *epd)
{
	INIT_DELAYED_WORK(&epd->cleanup_work, epdrm_cleanup_work);
}

/**
 * epdrm_cleanup_arm() - count the idle time from now
 * @epd: device, which has just queued an update
 */
void epdrm_cleanup_arm(struct epdrm_device *epd)
{
	unsigned int delay_ms = READ_ONCE(cleanup_delay_ms);

	if (!delay_ms || READ_ONCE(epd->master_sets_full) ||
	    !epd->par.ops->ghost_span)
		return;
	mod_delayed_work(system_wq, &epd->cleanup_work,
			 msecs_to_jiffies(delay_ms));
}

/* No cleanup runs after this returns, while nothing arms it again. */
void epdrm_cleanup_cancel(struct epdrm_device *epd)
{
	cancel_delayed_work_sync(&epd->cleanup_work);
}
