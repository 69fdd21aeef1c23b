// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * epdfb - update queue: collisions, merging, LUT slots and timing
 *
 * The panel drives up to EPDFB_MAX_IN_FLIGHT updates at once, one per LUT.
 * Collisions are decided per pixel when an update starts, as the i.MX
 * EPDC's collision test does: a pixel of it that an update in flight is
 * driving to another level collides, and waits, its level kept in
 * par->deferred, for that update to end; the rest of the update starts at
 * once. The collided pixels are then driven by a resubmission queued in
 * the update's place, so the panel ends with what was sent last. A pixel
 * the update would drive to the level it is being driven to already is
 * left to the update driving it (if that one ends first; else it waits
 * too, without a collision). A pixel a fast waveform (DU, A2) drives is
 * retargeted by an update with a fast waveform: it takes the pixel over at
 * once, and the panel model pays for the cut-off push in ghost. Queued
 * updates keep their order: one waits for a queued update ahead of it that
 * it overlaps.
 *
 * Everything runs in process context under par->lock; a single delayed
 * work item is armed for the earliest completion, so nothing is scheduled
 * while the panel is idle.
 *
 * The queue is bounded whatever callers send: at most EPDFB_MAX_QUEUED
 * updates wait to start, and those of the SNAPSHOT scheme hold at most
 * EPDFB_SNAPSHOT_FRAMES frames of pixels. Beyond that MXCFB_SEND_UPDATE is
 * refused, as mxc_epdc_fb refuses it when its buffers run out, while bands
 * from deferred IO, which nobody could resend, merge into a queued band or
 * into the one held back until there is room.
 *
 * The waits for markers are epdfb_marker.c's, the trace of completed
 * updates epdfb_trace.c's.
 */

#include <linux/completion.h>
#include <linux/export.h>
#include <linux/dma-fence.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "epdfb_drv.h"
#include "epdfb_queue.h"

/*
 * Overlapping or sharing an edge. Their union may still cover pixels neither
 * asked for (rects offset along the shared edge, or meeting at a corner),
 * which a merged update drives again with what the framebuffer holds.
 */
static bool
epdfb_rects_touch(const struct mxcfb_rect *a, const struct mxcfb_rect *b)
{
	return a->left <= b->left + b->width && b->left <= a->left + a->width &&
	       a->top <= b->top + b->height && b->top <= a->top + a->height;
}

static void epdfb_rect_union(struct mxcfb_rect *a, const struct mxcfb_rect *b)
{
	u32 right = max(a->left + a->width, b->left + b->width);
	u32 bottom = max(a->top + a->height, b->top + b->height);

	a->left = min(a->left, b->left);
	a->top = min(a->top, b->top);
	a->width = right - a->left;
	a->height = bottom - a->top;
}

/**
 * epdfb_find_waveform() - look up a waveform of the panel's table
 * @par: device
 * @id: WAVEFORM_MODE_* value (not AUTO)
 *
 * Return: the waveform, or NULL if the panel has none with that id.
 */
const struct epdfb_waveform *epdfb_find_waveform(const struct epdfb_par *par,
						 u32 id)
{
	unsigned int i;

	for (i = 0; i < par->ops->n_waveforms; i++)
		if (par->ops->waveforms[i].id == id)
			return &par->ops->waveforms[i];
	return NULL;
}
EXPORT_SYMBOL_NS_GPL(epdfb_find_waveform, EPDPANEL);

/**
 * epdfb_waveform_info() - describe an entry of the panel's waveform table
 * @par: device
 * @wi: @wi->index in; the entry's id, gray levels, flags, duration at the
 *	ambient temperature and name out
 *
 * Return: 0, or -EINVAL past the last entry.
 */
int epdfb_waveform_info(struct epdfb_par *par, struct epdfb_waveform_info *wi)
{
	const struct epdfb_waveform *wf;
	int temp;

	if (wi->index >= par->ops->n_waveforms)
		return -EINVAL;
	wf = &par->ops->waveforms[wi->index];
	mutex_lock(&par->lock);
	temp = par->ambient_temp;
	mutex_unlock(&par->lock);

	memset(&wi->name, 0, sizeof(wi->name));
	strscpy(wi->name, wf->name, sizeof(wi->name));
	wi->id = wf->id;
	wi->gray_levels = wf->gray_levels;
	wi->flags = wf->flags;
	wi->duration_ms = epdfb_waveform_duration_ms(par, wf, temp);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(epdfb_waveform_info, EPDPANEL);

/**
 * epdfb_waveform_duration_ms() - how long an update with @wf takes
 * @par: device
 * @wf: waveform
 * @temp: panel temperature in degrees C
 *
 * Return: duration in ms with time_scale applied, at least 1.
 */
u32 epdfb_waveform_duration_ms(const struct epdfb_par *par,
			       const struct epdfb_waveform *wf, int temp)
{
	u64 ms = (u64)par->ops->duration_ms(wf, temp) * par->time_scale;

	return max_t(u32, div_u64(ms, 100), 1);
}

/**
 * epdfb_queue_free_slots() - updates the queue still takes without merging
 * @par: device
 *
 * Return: how many more updates may be queued before they are refused or,
 * for those that cannot be refused, held back.
 */
unsigned int epdfb_queue_free_slots(struct epdfb_par *par)
{
	unsigned int n;

	mutex_lock(&par->lock);
	n = par->held ? 0 : EPDFB_MAX_QUEUED - par->n_queued;
	mutex_unlock(&par->lock);
	return n;
}
EXPORT_SYMBOL_NS_GPL(epdfb_queue_free_slots, EPDPANEL);

static bool epdfb_overlaps_list(const struct epdfb_update *upd,
				struct list_head *list,
				const struct epdfb_update *stop)
{
	struct epdfb_update *other;

	list_for_each_entry(other, list, node) {
		if (other == stop)
			break;
		if (epdfb_rects_overlap(&upd->rect, &other->rect))
			return true;
	}
	return false;
}

/*
 * A marker carried by another update still to complete is waited for until
 * that one completes too: its waiters get the latest result. Of a marker
 * carried twice by this update, the later one is the latest.
 */
static void epdfb_update_retire(struct epdfb_par *par,
				struct epdfb_update *upd)
{
	unsigned int m;
	bool settled;

	for (m = 0; m < upd->n_markers; m++)
		epdfb_marker_record(par, upd->markers[m],
				    upd->marker_collided[m], upd->error);
	list_del(&upd->node);
	if (upd->twin)
		upd->twin->twin = NULL;
	for (m = upd->n_markers; m-- > 0;) {
		settled = !epdfb_marker_pending(par, upd->markers[m]);
		/* a front end's completion takes every update's error */
		if (par->marker_done)
			par->marker_done(par, upd->markers[m], upd->error,
					 settled);
		if (settled)
			epdfb_marker_wake(par, upd->markers[m],
					  upd->marker_collided[m], upd->error);
	}
	par->completions++;
	if (!upd->framed)
		kvfree(upd->pixels);
	epdfb_update_free(upd);
}

/* The LUT of an update that ends frees, and so do the pixels it drove. */
static void epdfb_update_release(struct epdfb_par *par,
				 struct epdfb_update *upd)
{
	const struct mxcfb_rect *r = &upd->rect;
	size_t i, end, n;
	u32 y;

	epdfb_for_each_row(par, r, y, i) {
		for (end = i + r->width; i < end; i += n) {
			n = epdfb_owner_run(par, i, end - i);
			if (epdfb_update_drives(par, upd, i))
				memset(par->owner + i,
				       par->owner[i] & EPDFB_PIXEL_DEFERRED, n);
		}
	}
	par->luts &= ~(1u << upd->lut);
}

static void epdfb_update_complete(struct epdfb_par *par,
				  struct epdfb_update *upd)
{
	const struct epdfb_waveform *wf = epdfb_find_waveform(par, upd->waveform);

	par->n_in_flight--;
	if (upd->hung)
		par->stats.update_timeouts++;
	if (upd->failed) {
		/* The panel keeps its pixels; the markers' waiters learn it. */
		par->stats.updates_failed++;
		if (par->unshown.width)
			epdfb_rect_union(&par->unshown, &upd->rect);
		else
			par->unshown = upd->rect;
		epdfb_update_release(par, upd);
		epdfb_update_retire(par, upd);
		return;
	}
	if (wf)
		par->stats.pixels_driven += par->ops->show(par, upd, wf);
	epdfb_update_release(par, upd);
	/* An update and its resubmission complete once, with the last one. */
	if (!upd->twin) {
		par->stats.updates_completed++;
		if (upd->flashing)
			par->stats.flashes++;
		if (upd->waveform < ARRAY_SIZE(par->stats.per_waveform))
			par->stats.per_waveform[upd->waveform]++;
		epdfb_trace_add(par, upd);
	}
	epdfb_update_retire(par, upd);
}

static u32 epdfb_resolve_auto(const struct epdfb_par *par,
			      const struct epdfb_update *upd)
{
	if (upd->pixels &&
	    epdfb_pixels_monochrome(upd->pixels, upd->rect.width,
				    upd->rect.height,
				    epdfb_update_stride(par->width, upd)))
		return par->modes.mode_du;
	return par->modes.mode_gc16;
}

/* Takes one fault of an injection count: whether there was one left. */
static bool epdfb_inject(u32 *count)
{
	if (!*count)
		return false;
	(*count)--;
	return true;
}

/*
 * The simulated sensor reads the panel temperature, ambient_temp. Without a
 * reading the update is timed for the coldest panel: a waveform too short
 * for the panel's temperature leaves particles short of their state, one
 * too long only takes longer. The update shows, and its markers complete
 * with -ENODATA so that the waiter may send it again.
 */
static int epdfb_update_temperature(struct epdfb_par *par,
				    struct epdfb_update *upd)
{
	if (upd->temp != TEMP_USE_AMBIENT)
		return upd->temp;
	if (epdfb_inject(&par->inject_temperature_errors)) {
		par->stats.temperature_errors++;
		/* A hung update's error is the one its waiters need. */
		if (!upd->error)
			upd->error = -ENODATA;
		return EPDFB_TEMP_MIN;
	}
	return par->ambient_temp;
}

/*
 * Decides what becomes of an update that starts: its pixels could not be
 * captured, or the controller fails it at once (both -EIO, nothing shown),
 * or it hangs (abandoned after its due end plus EPDFB_HANG_TIMEOUT_MS,
 * scaled by time_scale, with -ETIMEDOUT, nothing shown).
 */
static void epdfb_update_faults(struct epdfb_par *par, struct epdfb_update *upd)
{
	if (!upd->pixels) {
		par->stats.capture_errors++;
		upd->failed = true;
		upd->error = -EIO;
	} else if (epdfb_inject(&par->inject_update_errors)) {
		par->stats.update_errors++;
		upd->failed = true;
		upd->error = -EIO;
	} else if (epdfb_inject(&par->inject_update_hangs)) {
		upd->failed = true;
		upd->hung = true;
		upd->error = -ETIMEDOUT;
	}
}

/*
 * The pixels of an update that starts are captured at its rect's place in
 * par->deferred, which holds no collided pixel there (a queued update ahead
 * of it that it overlaps would keep it from starting): nothing is
 * allocated. SNAPSHOT pixels taken at submission move there; an injected
 * capture failure leaves none. epdfb_update_share() then hands them out.
 */
static void epdfb_update_take_pixels(struct epdfb_par *par,
				     struct epdfb_update *upd)
{
	const struct mxcfb_rect *r = &upd->rect;
	u8 *frame = par->deferred + (size_t)r->top * par->width + r->left;
	u32 y;

	if (!upd->pixels && epdfb_inject(&par->inject_capture_failures))
		return;
	if (upd->pixels) {
		for (y = 0; y < r->height; y++)
			memcpy(frame + (size_t)y * par->width,
			       upd->pixels + (size_t)y * r->width, r->width);
		kvfree(upd->pixels);
	} else {
		if (par->captured)
			par->captured(par, upd);
		epdfb_pixels_capture_into(par, r, upd->flags, frame,
					  par->width);
	}
	upd->pixels = frame;
	upd->framed = true;
}

/*
 * The pixels of @upd that wait are driven by its resubmission, queued in its
 * place with its markers, which starts once the updates driving them ended.
 */
static void epdfb_update_resubmit(struct epdfb_par *par,
				  struct epdfb_update *upd,
				  const struct mxcfb_rect *rect, bool collided)
{
	struct epdfb_update *again = upd->resubmit;
	struct epdfb_update *other;
	unsigned int m;

	upd->resubmit = NULL;
	if (collided) {
		upd->collided = true;
		for (m = 0; m < upd->n_markers; m++)
			upd->marker_collided[m] = true;
		par->stats.collisions++;
	}

	again->twin = upd;
	upd->twin = again;
	again->whole = upd->rect;
	again->merged = upd->merged;
	again->rect = *rect;
	again->waveform = upd->waveform;
	again->mode = upd->mode;
	again->flags = upd->flags;
	again->temp = upd->temp;
	memcpy(again->markers, upd->markers, sizeof(upd->markers));
	memcpy(again->marker_collided, upd->marker_collided,
	       sizeof(upd->marker_collided));
	again->n_markers = upd->n_markers;
	again->seq = upd->seq;
	again->submit_ns = upd->submit_ns;
	/* shown, but timed without a temperature reading: its markers say so */
	again->error = upd->error;
	again->automatic = upd->automatic;
	again->collided = upd->collided;
	again->deferred = true;
	list_add(&again->node, &upd->node);
	par->n_queued++;

	/* due once the updates it waits for ended (a hung one abandoned) */
	again->due_ns = upd->start_ns;
	list_for_each_entry(other, &par->in_flight, node)
		again->due_ns = max(again->due_ns, other->end_ns);
	again->due_ns += upd->end_ns - upd->start_ns;
	epdfb_marker_waits_follow(par, again, upd->start_ns);
}

/*
 * A two-level waveform that does not flash (DU, A2) pushes a pixel straight
 * toward black or white: another such push may take the pixel over from
 * wherever the first left it.
 */
static bool epdfb_waveform_fast(const struct epdfb_par *par, u32 id)
{
	const struct epdfb_waveform *wf = epdfb_find_waveform(par, id);

	return wf && wf->gray_levels == 2 &&
	       !(wf->flags & (EPDFB_WAVEFORM_FLASHING |
			      EPDFB_WAVEFORM_FLASHING_FULL));
}

/*
 * Takes the pixel at @i over from the update driving it, cut off @progress
 * (of 256) of the way by @wf.
 */
static void epdfb_update_retarget(struct epdfb_par *par,
				  struct epdfb_update *upd, size_t i,
				  u32 progress, const struct epdfb_waveform *wf)
{
	par->ops->retarget(par, i, par->flight[i], progress, wf);
	par->flight[i] = par->deferred[i];
	par->owner[i] = upd->lut + 1;
}

/* How far @from, cut off as @upd starts, pushed its pixels: 256 is all. */
static u32 epdfb_retarget_progress(const struct epdfb_update *upd,
				   const struct epdfb_update *from)
{
	u64 span = from->end_ns - from->start_ns;

	if (upd->start_ns < from->end_ns && span)
		return div64_u64((upd->start_ns - from->start_ns) * 256, span);
	return 256;
}

/*
 * How many pixels of row @y from @x (offset @i) on, at most @n, share their
 * fate: where no update in flight may drive one, all up to @busy, as none
 * does (each drives pixels of its rect only, and @busy holds the rects that
 * meet the update's); else those of the first one's owner.
 */
static size_t epdfb_share_run(const struct epdfb_par *par,
			      const struct mxcfb_rect *busy, u32 x, u32 y,
			      size_t i, size_t n)
{
	if (y < busy->top || y >= busy->top + busy->height ||
	    x >= busy->left + busy->width)
		return n;
	if (x < busy->left)
		return min_t(size_t, n, busy->left - x);
	return epdfb_owner_run(par, i,
			       min_t(size_t, n, busy->left + busy->width - x));
}

/* Grows @box, empty while without width, to hold @rect. */
static void epdfb_box_grow(struct mxcfb_rect *box,
			   const struct mxcfb_rect *rect)
{
	if (box->width)
		epdfb_rect_union(box, rect);
	else
		*box = *rect;
}

/* Grows @box to hold @n pixels of row @y from @x on. */
static void epdfb_box_add(struct mxcfb_rect *box, u32 x, u32 y, u32 n)
{
	struct mxcfb_rect run = { .left = x, .top = y, .width = n, .height = 1 };

	epdfb_box_grow(box, &run);
}

/*
 * Hands the pixels of an update that starts, captured in par->deferred,
 * out, a run of pixels of one owner at a time: what becomes of a pixel
 * depends on its owner, and on its level only where another update drives
 * it. One no update in flight drives is the update's. One being driven to
 * the same level is left to the update driving it, if that one ends first;
 * else it waits, as one being driven to another level does, which
 * collides: its level stays in par->deferred, for the resubmission. But a
 * pixel a fast waveform (DU, A2) drives to another level is retargeted by
 * an update with a fast waveform: it takes the pixel over at once. A
 * flashing update drives every pixel of its rect, so all it finds in
 * flight collide, and so do those an update that failed holds. An update
 * that failed takes the free pixels only, and shows nothing.
 */
static void epdfb_update_share(struct epdfb_par *par, struct epdfb_update *upd)
{
	const struct mxcfb_rect *r = &upd->rect;
	struct mxcfb_rect box = { 0 }, busy = { 0 };
	u8 mine = (upd->lut + 1) | (upd->failed ? EPDFB_PIXEL_HELD : 0);
	struct epdfb_update *by_lut[EPDFB_MAX_IN_FLIGHT] = { NULL };
	bool fast = par->ops->retarget && !upd->flashing &&
		    epdfb_waveform_fast(par, upd->waveform);
	const struct epdfb_waveform *wf = NULL;
	struct epdfb_update *other, *from;
	u32 later = 0, retargets = 0;
	bool collided = false, late;
	u32 x, y, lut, progress = 0;
	size_t i, k, n, first, last;
	u8 own;

	/*
	 * the LUTs that end after @upd, those it may take pixels from, and
	 * where in its rect it may meet pixels in flight
	 */
	list_for_each_entry(other, &par->in_flight, node) {
		by_lut[other->lut] = other;
		if (other->end_ns > upd->end_ns)
			later |= 1u << other->lut;
		if (fast && !other->failed &&
		    epdfb_waveform_fast(par, other->waveform))
			retargets |= 1u << other->lut;
		if (epdfb_rects_overlap(&other->rect, r))
			epdfb_box_grow(&busy, &other->rect);
	}

	epdfb_for_each_row(par, r, y, i) {
		for (x = r->left; x < r->left + r->width; x += n, i += n) {
			own = par->owner[i];
			n = epdfb_share_run(par, &busy, x, y, i,
					    r->left + r->width - x);
			if (!(own & EPDFB_PIXEL_LUT)) {
				memcpy(par->flight + i, par->deferred + i, n);
				memset(par->owner + i, mine, n);
				continue;
			}
			if (upd->failed)
				continue;
			if ((own & EPDFB_PIXEL_HELD) || upd->flashing) {
				memset(par->owner + i,
				       own | EPDFB_PIXEL_DEFERRED, n);
				epdfb_box_add(&box, x, y, n);
				collided = true;
				continue;
			}

			/* what becomes of each depends on its level */
			lut = (own & EPDFB_PIXEL_LUT) - 1;
			late = later & (1u << lut);
			from = retargets & (1u << lut) ? by_lut[lut] : NULL;
			if (from) {
				progress = epdfb_retarget_progress(upd, from);
				wf = epdfb_find_waveform(par, from->waveform);
			}
			first = n;
			last = 0;
			for (k = 0; k < n; k++) {
				if (par->flight[i + k] == par->deferred[i + k]) {
					if (!late)
						continue;
				} else if (from) {
					epdfb_update_retarget(par, upd, i + k,
							      progress, wf);
					continue;
				} else {
					collided = true;
				}
				par->owner[i + k] = own | EPDFB_PIXEL_DEFERRED;
				if (first == n)
					first = k;
				last = k;
			}
			if (first < n)
				epdfb_box_add(&box, x + first, y,
					      last - first + 1);
		}
	}
	upd->pixels = par->flight + (size_t)r->top * par->width + r->left;
	if (box.width)
		epdfb_update_resubmit(par, upd, &box, collided);
}

/* Whether the pixels a resubmission drives are no longer driven. */
static bool epdfb_deferred_ready(struct epdfb_par *par,
				 const struct epdfb_update *upd)
{
	const struct mxcfb_rect *r = &upd->rect;
	size_t i, end;
	u32 y;

	epdfb_for_each_row(par, r, y, i)
		for (end = i + r->width; i < end;
		     i += epdfb_owner_run(par, i, end - i))
			if ((par->owner[i] & EPDFB_PIXEL_DEFERRED) &&
			    (par->owner[i] & EPDFB_PIXEL_LUT))
				return false;
	return true;
}

/* A resubmission takes the collided pixels of its rect: no other is its. */
static void epdfb_update_take_deferred(struct epdfb_par *par,
				       struct epdfb_update *upd)
{
	const struct mxcfb_rect *r = &upd->rect;
	size_t i, end, n;
	u32 y;

	epdfb_for_each_row(par, r, y, i) {
		for (end = i + r->width; i < end; i += n) {
			n = epdfb_owner_run(par, i, end - i);
			if (!(par->owner[i] & EPDFB_PIXEL_DEFERRED))
				continue;
			memcpy(par->flight + i, par->deferred + i, n);
			memset(par->owner + i, upd->lut + 1, n);
		}
	}
	upd->pixels = par->flight + (size_t)r->top * par->width + r->left;
	upd->framed = true;
}

static void epdfb_update_start(struct epdfb_par *par, struct epdfb_update *upd,
			       u64 now)
{
	size_t count = (size_t)upd->rect.width * upd->rect.height;
	const struct epdfb_waveform *wf;
	u32 levels, y;
	int temp;

	par->n_queued--;
	if (upd->snapshot)
		par->snapshot_bytes -= count;
	for (upd->lut = 0; par->luts & (1u << upd->lut); upd->lut++)
		;
	par->luts |= 1u << upd->lut;
	if (upd->deferred) {
		/* levels already quantized, waveform resolved */
		epdfb_update_take_deferred(par, upd);
		wf = epdfb_find_waveform(par, upd->waveform);
		goto timed;
	}
	epdfb_update_take_pixels(par, upd);
	epdfb_update_faults(par, upd);
	if (upd->waveform == WAVEFORM_MODE_AUTO)
		upd->waveform = epdfb_resolve_auto(par, upd);
	wf = epdfb_find_waveform(par, upd->waveform);
	if (upd->pixels && wf) {
		if (wf->id == WAVEFORM_MODE_INIT)
			for (y = 0; y < upd->rect.height; y++)
				memset(upd->pixels + (size_t)y * par->width,
				       0xff, upd->rect.width);
		levels = (upd->flags & EPDC_FLAG_FORCE_MONOCHROME) ?
			 2 : wf->gray_levels;
		epdfb_pixels_quantize(upd->pixels, upd->rect.width,
				      upd->rect.height, par->width, levels);
	}

timed:
	upd->flashing = wf && ((wf->flags & EPDFB_WAVEFORM_FLASHING) ||
			       (upd->mode == UPDATE_MODE_FULL &&
				(wf->flags & EPDFB_WAVEFORM_FLASHING_FULL)));

	upd->start_ns = now;
	upd->end_ns = now;
	/* A failed update shows nothing and ends at once; a hung one never. */
	if (wf && (!upd->failed || upd->hung)) {
		temp = epdfb_update_temperature(par, upd);
		upd->end_ns += (u64)epdfb_waveform_duration_ms(par, wf, temp) *
			       NSEC_PER_MSEC;
	}
	if (!upd->deferred && (!upd->failed || upd->hung) && upd->pixels)
		epdfb_update_share(par, upd);
	else if (!upd->deferred)
		upd->pixels = NULL;
	/* A hung update is due all the same: its waits do not know it hangs. */
	upd->due_ns = upd->end_ns;
	epdfb_marker_waits_follow(par, upd, now);
	if (upd->hung)
		upd->end_ns += div_u64((u64)EPDFB_HANG_TIMEOUT_MS * par->time_scale *
				       NSEC_PER_MSEC, 100);

	par->powered = true;
	list_move_tail(&upd->node, &par->in_flight);
	par->n_in_flight++;
}

static void epdfb_queue_start_ready(struct epdfb_par *par, u64 now)
{
	struct epdfb_update *upd, *tmp;

	/* A resubmission queued by a start is not met before the next pass. */
	list_for_each_entry_safe(upd, tmp, &par->queue, node) {
		if (par->n_in_flight >= EPDFB_MAX_IN_FLIGHT)
			break;
		/* Earlier overlapping updates keep their order. */
		if (epdfb_overlaps_list(upd, &par->queue, upd))
			continue;
		if (upd->deferred && !epdfb_deferred_ready(par, upd))
			continue;
		epdfb_update_start(par, upd, now);
	}
}

/*
 * Complete what is due, start what may start, then arm the work item for the
 * next completion. Called with par->lock held.
 */
static void epdfb_queue_advance(struct epdfb_par *par)
{
	struct epdfb_update *upd, *tmp;
	u64 completions = par->completions;
	u64 now = ktime_get_ns();
	u64 next = U64_MAX;
	u64 retired = U64_MAX;

	list_for_each_entry_safe(upd, tmp, &par->in_flight, node) {
		if (upd->end_ns <= now) {
			retired = min(retired, upd->seq);
			epdfb_update_complete(par, upd);
		}
	}

	epdfb_queue_start_ready(par, now);
	if (par->held && par->n_queued < EPDFB_MAX_QUEUED) {
		list_add_tail(&par->held->node, &par->queue);
		par->n_queued++;
		par->held = NULL;
		epdfb_queue_start_ready(par, now);
	}

	list_for_each_entry(upd, &par->in_flight, node)
		next = min(next, upd->end_ns);

	if (next != U64_MAX) {
		cancel_delayed_work(&par->power_work);
		/* Round up: completing early would show pixels too soon. */
		mod_delayed_work(par->wq, &par->panel_work,
				 next <= now ? 0 : nsecs_to_jiffies(next - now) + 1);
	} else if (par->powered && par->pwrdown_delay_ms >= 0) {
		mod_delayed_work(par->wq, &par->power_work,
				 msecs_to_jiffies(par->pwrdown_delay_ms));
	}

	if (par->completions != completions)
		epdfb_pending_wake(par, retired);
}

static void epdfb_panel_work(struct work_struct *work)
{
	struct epdfb_par *par = container_of(to_delayed_work(work),
					     struct epdfb_par, panel_work);
	/*
	 * With a front end's fences (epdrm's), this work is what signals
	 * them: lockdep checks that it waits for nothing that could wait
	 * for a fence, memory reclaim among them.
	 */
	bool cookie = par->marker_done ? dma_fence_begin_signalling() : true;

	mutex_lock(&par->lock);
	if (!par->dead)
		epdfb_queue_advance(par);
	mutex_unlock(&par->lock);
	dma_fence_end_signalling(cookie);
}

static void epdfb_power_work(struct work_struct *work)
{
	struct epdfb_par *par = container_of(to_delayed_work(work),
					     struct epdfb_par, power_work);

	mutex_lock(&par->lock);
	/* The delay may have become -1 while this work waited for the lock. */
	if (par->powered && par->pwrdown_delay_ms >= 0 &&
	    list_empty(&par->in_flight) && list_empty(&par->queue)) {
		par->powered = false;
		par->power_down_ns = ktime_get_ns();
		par->stats.power_downs++;
	}
	mutex_unlock(&par->lock);
}

/**
 * epdfb_queue_set_pwrdown_delay() - set the idle time before power-down
 * @par: device
 * @delay_ms: milliseconds, or FB_POWERDOWN_DISABLE (-1) to stay powered
 *
 * Applies to a power-down already scheduled too: it is cancelled, or
 * rescheduled @delay_ms from now.
 */
void epdfb_queue_set_pwrdown_delay(struct epdfb_par *par, s32 delay_ms)
{
	mutex_lock(&par->lock);
	par->pwrdown_delay_ms = delay_ms;
	if (par->powered && !par->dead && list_empty(&par->in_flight)) {
		if (delay_ms < 0)
			cancel_delayed_work(&par->power_work);
		else
			mod_delayed_work(par->wq, &par->power_work,
					 msecs_to_jiffies(delay_ms));
	}
	mutex_unlock(&par->lock);
}
EXPORT_SYMBOL_NS_GPL(epdfb_queue_set_pwrdown_delay, EPDPANEL);

static bool epdfb_can_merge(const struct epdfb_update *queued,
			    const struct epdfb_update *upd)
{
	if (queued->waveform != upd->waveform || queued->mode != upd->mode ||
	    queued->flags != upd->flags || queued->temp != upd->temp ||
	    queued->pixels || queued->deferred)
		return false;
	return queued->n_markers + upd->n_markers <= EPDFB_MAX_MARKERS &&
	       epdfb_rects_touch(&queued->rect, &upd->rect);
}

static bool epdfb_overlaps_after(struct epdfb_par *par,
				 struct epdfb_update *queued,
				 const struct mxcfb_rect *rect)
{
	struct epdfb_update *later = queued;

	list_for_each_entry_continue(later, &par->queue, node)
		if (epdfb_rects_overlap(&later->rect, rect))
			return true;
	return false;
}

/*
 * Whether @queued, grown to @merged, would overlap an update in flight that
 * it does not overlap now, and so wait for it. Were such merges allowed, a
 * writer sending the column next to @queued, first at another temperature
 * (it starts at once) and then with @queued's parameters (it merges), could
 * keep @queued waiting for as long as it goes on.
 */
static bool epdfb_merge_delays(struct epdfb_par *par,
			       const struct epdfb_update *queued,
			       const struct mxcfb_rect *merged)
{
	struct epdfb_update *running;

	list_for_each_entry(running, &par->in_flight, node)
		if (epdfb_rects_overlap(&running->rect, merged) &&
		    !epdfb_rects_overlap(&running->rect, &queued->rect))
			return true;
	return false;
}

static void epdfb_merge_into(struct epdfb_par *par, struct epdfb_update *into,
			     const struct epdfb_update *upd)
{
	unsigned int m;

	epdfb_rect_union(&into->rect, &upd->rect);
	for (m = 0; m < upd->n_markers; m++) {
		/*
		 * epdfb_can_merge() keeps queued merges within the array; the
		 * update held back merges whatever comes, and only epdrm's
		 * have markers, one per userspace commit, which its
		 * atomic_check keeps from coming while the queue is full (the
		 * kernel's own commits, which it lets through, have none).
		 */
		if (epdfb_update_has_marker(into, upd->markers[m]) ||
		    into->n_markers == EPDFB_MAX_MARKERS)
			continue;
		into->markers[into->n_markers] = upd->markers[m];
		into->marker_collided[into->n_markers] = upd->marker_collided[m];
		into->n_markers++;
	}
	into->merged++;
	into->collided |= upd->collided;
	par->stats.updates_merged++;
}

/*
 * Merging moves @upd to the place of the queued update it joins, so it may
 * not pass a queued update that overlaps it (which would then show after
 * it), nor may the grown rect overlap one queued in between, nor make the
 * queued update wait for more of the updates in flight than it did.
 */
static bool epdfb_try_merge(struct epdfb_par *par, struct epdfb_update *upd)
{
	struct epdfb_update *queued;
	struct mxcfb_rect merged;

	list_for_each_entry_reverse(queued, &par->queue, node) {
		if (epdfb_can_merge(queued, upd)) {
			merged = queued->rect;
			epdfb_rect_union(&merged, &upd->rect);
			if (!epdfb_overlaps_after(par, queued, &merged) &&
			    !epdfb_merge_delays(par, queued, &merged)) {
				epdfb_merge_into(par, queued, upd);
				return true;
			}
		}
		if (epdfb_rects_overlap(&queued->rect, &upd->rect))
			return false;
	}
	return false;
}

/*
 * A band from deferred IO that finds the queue full waits outside it until
 * there is room, together with the bands that come meanwhile; its pixels are
 * taken when it starts, so the panel ends up with what was written last.
 */
static void epdfb_hold_band(struct epdfb_par *par, struct epdfb_update *upd)
{
	if (par->held) {
		epdfb_merge_into(par, par->held, upd);
		epdfb_update_free(upd);
		return;
	}
	upd->seq = ++par->submit_seq;
	par->held = upd;
}

/*
 * Queue @upd, merge it or hold it back. Called with par->lock held; takes
 * @upd over unless it returns an error.
 */
static int epdfb_queue_add(struct epdfb_par *par, struct epdfb_update *upd)
{
	size_t count = (size_t)upd->rect.width * upd->rect.height;
	bool full = par->n_queued >= EPDFB_MAX_QUEUED;

	/* whether it collides is known when it starts */
	upd->submit_ns = ktime_get_ns();
	if ((par->scheme == UPDATE_SCHEME_QUEUE_AND_MERGE ||
	     (upd->automatic && full)) && epdfb_try_merge(par, upd)) {
		epdfb_update_free(upd);
		goto accepted;
	}
	if (full && upd->automatic) {
		epdfb_hold_band(par, upd);
		goto accepted;
	}
	if (full)
		return -EBUSY;
	if (par->scheme == UPDATE_SCHEME_SNAPSHOT && !upd->automatic) {
		if (count > par->snapshot_limit - par->snapshot_bytes)
			return -ENOMEM;
		if (par->captured)
			par->captured(par, upd);
		upd->pixels = epdfb_pixels_capture(par, &upd->rect, upd->flags);
		if (!upd->pixels)
			return -ENOMEM;
		upd->snapshot = true;
		par->snapshot_bytes += count;
	}
	upd->seq = ++par->submit_seq;
	list_add_tail(&upd->node, &par->queue);
	par->n_queued++;
	epdfb_queue_advance(par);

accepted:
	/* An update merged or held back counts as submitted all the same. */
	par->stats.updates_submitted++;
	return 0;
}

/**
 * epdfb_update_alloc() - a record for epdfb_queue_submit_accepted()
 *
 * Return: the record, or NULL without memory.
 */
struct epdfb_update *epdfb_update_alloc(void)
{
	struct epdfb_update *upd = kzalloc(sizeof(*upd), GFP_KERNEL);

	if (!upd)
		return NULL;
	/* for its collided pixels, should it collide when it starts */
	upd->resubmit = kzalloc(sizeof(*upd), GFP_KERNEL);
	if (!upd->resubmit) {
		kfree(upd);
		return NULL;
	}
	return upd;
}
EXPORT_SYMBOL_NS_GPL(epdfb_update_alloc, EPDPANEL);

/**
 * epdfb_update_free() - free a record epdfb_queue_submit_accepted() did not take
 * @upd: record from epdfb_update_alloc(), or NULL
 */
void epdfb_update_free(struct epdfb_update *upd)
{
	if (upd)
		kfree(upd->resubmit);
	kfree(upd);
}
EXPORT_SYMBOL_NS_GPL(epdfb_update_free, EPDPANEL);

/* Takes @upd, zeroed, over whatever it returns. */
static int epdfb_queue_submit_update(struct epdfb_par *par,
				     const struct mxcfb_update_data *req,
				     bool automatic, struct epdfb_update *upd)
{
	int ret;

	upd->rect = req->update_region;
	upd->waveform = req->waveform_mode;
	upd->mode = req->update_mode;
	upd->flags = req->flags;
	upd->temp = req->temp;
	upd->automatic = automatic;
	if (req->update_marker)
		upd->markers[upd->n_markers++] = req->update_marker;

	mutex_lock(&par->lock);
	if (par->dead) {
		ret = -ENODEV;
		goto out_free;
	}
	ret = epdfb_queue_add(par, upd);
	if (ret) {
		par->stats.updates_refused++;
		goto out_free;
	}
	mutex_unlock(&par->lock);
	return 0;

out_free:
	mutex_unlock(&par->lock);
	kvfree(upd->pixels);
	epdfb_update_free(upd);
	return ret;
}

/**
 * epdfb_queue_submit() - queue an update sent by userspace
 * @par: device
 * @req: the update, already checked by epdfb_check_update()
 *
 * Return: 0; -EBUSY when EPDFB_MAX_QUEUED updates are queued already and
 * the update merges with none of them; -ENOMEM when its SNAPSHOT pixels
 * would pass the pool of EPDFB_SNAPSHOT_FRAMES frames, or without memory;
 * -ENODEV once the device is being removed.
 */
int epdfb_queue_submit(struct epdfb_par *par,
		       const struct mxcfb_update_data *req)
{
	struct epdfb_update *upd = epdfb_update_alloc();

	if (!upd)
		return -ENOMEM;
	return epdfb_queue_submit_update(par, req, false, upd);
}
EXPORT_SYMBOL_NS_GPL(epdfb_queue_submit, EPDPANEL);

/**
 * epdfb_queue_submit_accepted() - queue an update a front end cannot refuse
 * @par: device
 * @req: the update, already checked
 * @upd: a record from epdfb_update_alloc(), taken over
 *
 * For a DRM commit, already accepted when its planes are updated: like
 * deferred IO's updates it is never refused; while the queue is full it
 * waits, and later ones merge into it. The record is allocated beforehand:
 * a commit's updates are part of what its settle fence waits for, and may
 * not wait for memory reclaim.
 *
 * Return: 0, or -ENODEV once the device is being removed.
 */
int epdfb_queue_submit_accepted(struct epdfb_par *par,
				const struct mxcfb_update_data *req,
				struct epdfb_update *upd)
{
	return epdfb_queue_submit_update(par, req, true, upd);
}
EXPORT_SYMBOL_NS_GPL(epdfb_queue_submit_accepted, EPDPANEL);

/**
 * epdfb_queue_submit_rows() - queue an automatic update of whole rows
 * @par: device
 * @top: first row
 * @bottom: row after the last one
 * @mode: UPDATE_MODE_FULL or UPDATE_MODE_PARTIAL
 *
 * Used by deferred IO and the fbdev drawing helpers in AUTOMATIC mode: they
 * know which rows changed but not what content, so the driver picks the
 * waveform (WAVEFORM_MODE_AUTO).
 *
 * Return: 0 or a negative error code.
 */
int epdfb_queue_submit_rows(struct epdfb_par *par, u32 top, u32 bottom,
			    u32 mode)
{
	struct mxcfb_update_data req = {
		.update_region = {
			.top = top,
			.left = 0,
			.width = par->width,
			.height = min(bottom, par->height) - top,
		},
		.waveform_mode = WAVEFORM_MODE_AUTO,
		.update_mode = mode,
		.temp = TEMP_USE_AMBIENT,
	};
	struct epdfb_update *upd;

	if (top >= min(bottom, par->height))
		return 0;
	upd = epdfb_update_alloc();
	if (!upd)
		return -ENOMEM;
	return epdfb_queue_submit_update(par, &req, true, upd);
}
EXPORT_SYMBOL_NS_GPL(epdfb_queue_submit_rows, EPDPANEL);

/**
 * epdfb_queue_cancel_all() - stop the panel for removal
 * @par: device
 *
 * Drops every queued and in-flight update, wakes all waiters and makes
 * further submissions fail. No work item runs once this returns.
 */
void epdfb_queue_cancel_all(struct epdfb_par *par)
{
	struct epdfb_update *upd, *tmp;

	mutex_lock(&par->lock);
	WRITE_ONCE(par->dead, true);
	epdfb_update_free(par->held);
	par->held = NULL;
	list_for_each_entry_safe(upd, tmp, &par->in_flight, node) {
		par->stats.updates_cancelled++;
		par->n_in_flight--;
		epdfb_update_release(par, upd);
		epdfb_update_retire(par, upd);
	}
	list_for_each_entry_safe(upd, tmp, &par->queue, node) {
		par->stats.updates_cancelled++;
		epdfb_update_retire(par, upd);
	}
	par->n_queued = 0;
	par->snapshot_bytes = 0;
	epdfb_marker_cancel_waits(par);
	mutex_unlock(&par->lock);
	cancel_delayed_work_sync(&par->panel_work);
	cancel_delayed_work_sync(&par->power_work);
}
EXPORT_SYMBOL_NS_GPL(epdfb_queue_cancel_all, EPDPANEL);

/**
 * epdfb_queue_init() - set up the update queue of a device
 * @par: device, with width, height and ops set
 *
 * Return: 0 or -ENOMEM.
 */
int epdfb_queue_init(struct epdfb_par *par)
{
	par->trace = kvcalloc(EPDFB_TRACE_LEN, sizeof(*par->trace), GFP_KERNEL);
	if (!par->trace)
		return -ENOMEM;
	par->forgotten = kvcalloc(EPDFB_MARKERS_FORGOTTEN,
				  sizeof(*par->forgotten), GFP_KERNEL);
	if (!par->forgotten)
		goto err_trace;
	par->flight = kvmalloc((size_t)par->width * par->height, GFP_KERNEL);
	if (!par->flight)
		goto err_forgotten;
	par->owner = kvzalloc((size_t)par->width * par->height, GFP_KERNEL);
	if (!par->owner)
		goto err_flight;
	par->deferred = kvmalloc((size_t)par->width * par->height, GFP_KERNEL);
	if (!par->deferred)
		goto err_owner;
	par->wq = alloc_workqueue("epdfb", WQ_UNBOUND, 0);
	if (!par->wq)
		goto err_deferred;
	par->snapshot_limit = (size_t)EPDFB_SNAPSHOT_FRAMES * par->width *
			      par->height;
	mutex_init(&par->lock);
	INIT_LIST_HEAD(&par->queue);
	INIT_LIST_HEAD(&par->in_flight);
	INIT_DELAYED_WORK(&par->panel_work, epdfb_panel_work);
	INIT_DELAYED_WORK(&par->power_work, epdfb_power_work);
	hash_init(par->marker_waiters);
	INIT_HLIST_HEAD(&par->pending_waiters);
	par->scheme = UPDATE_SCHEME_QUEUE_AND_MERGE;
	par->pwrdown_delay_ms = 1000;
	par->modes = (struct mxcfb_waveform_modes) {
		.mode_init = WAVEFORM_MODE_INIT,
		.mode_du = WAVEFORM_MODE_DU,
		.mode_gc4 = WAVEFORM_MODE_GC4,
		.mode_gc8 = WAVEFORM_MODE_GC16,
		.mode_gc16 = WAVEFORM_MODE_GC16,
		.mode_gc32 = WAVEFORM_MODE_GC16,
	};
	return 0;

err_deferred:
	kvfree(par->deferred);
err_owner:
	kvfree(par->owner);
err_flight:
	kvfree(par->flight);
err_forgotten:
	kvfree(par->forgotten);
err_trace:
	kvfree(par->trace);
	return -ENOMEM;
}
EXPORT_SYMBOL_NS_GPL(epdfb_queue_init, EPDPANEL);

/**
 * epdfb_queue_fini() - free what epdfb_queue_init() allocated
 * @par: device, after epdfb_queue_cancel_all()
 */
void epdfb_queue_fini(struct epdfb_par *par)
{
	destroy_workqueue(par->wq);
	kvfree(par->deferred);
	kvfree(par->owner);
	kvfree(par->flight);
	kvfree(par->forgotten);
	kvfree(par->trace);
	mutex_destroy(&par->lock);
}
EXPORT_SYMBOL_NS_GPL(epdfb_queue_fini, EPDPANEL);
