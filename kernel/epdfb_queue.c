// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * epdfb - update queue: collisions, merging, LUT slots, timing and markers
 *
 * The panel drives up to EPDFB_MAX_IN_FLIGHT updates at once, one per LUT,
 * as long as their rectangles are disjoint. Everything runs in process
 * context under par->lock; a single delayed work item is armed for the
 * earliest completion, so nothing is scheduled while the panel is idle.
 *
 * The queue is bounded whatever callers send: at most EPDFB_MAX_QUEUED
 * updates wait to start, and those of the SNAPSHOT scheme hold at most
 * EPDFB_SNAPSHOT_FRAMES frames of pixels. Beyond that MXCFB_SEND_UPDATE is
 * refused, as mxc_epdc_fb refuses it when its buffers run out, while bands
 * from deferred IO, which nobody could resend, merge into a queued band or
 * into the one held back until there is room.
 *
 * A waiter registers itself with what it waits for and sleeps on its own
 * completion: an update that completes wakes only the waiters of its
 * markers, and hands each its result, so that no number of markers
 * completing together can lose it. FBIO_WAITFORVSYNC waiters are woken when
 * the last update they wait for completes.
 */

#include <linux/completion.h>
#include <linux/export.h>
#include <linux/dma-fence.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "epdfb_drv.h"

static bool
epdfb_rects_overlap(const struct mxcfb_rect *a, const struct mxcfb_rect *b)
{
	return a->left < b->left + b->width && b->left < a->left + a->width &&
	       a->top < b->top + b->height && b->top < a->top + a->height;
}

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

static bool epdfb_update_has_marker(const struct epdfb_update *upd, u32 marker)
{
	unsigned int m;

	for (m = 0; m < upd->n_markers; m++)
		if (upd->markers[m] == marker)
			return true;
	return false;
}

static bool epdfb_marker_pending(struct epdfb_par *par, u32 marker)
{
	struct list_head *lists[] = { &par->queue, &par->in_flight };
	struct epdfb_update *upd;
	unsigned int i;

	if (par->held && epdfb_update_has_marker(par->held, marker))
		return true;
	for (i = 0; i < ARRAY_SIZE(lists); i++)
		list_for_each_entry(upd, lists[i], node)
			if (epdfb_update_has_marker(upd, marker))
				return true;
	return false;
}

/**
 * epdfb_queue_marker_pending() - whether an update with @marker is not done
 * @par: device
 * @marker: marker
 *
 * Called with par->lock held.
 *
 * Return: true while an update carrying @marker is queued, held back or in
 * flight.
 */
bool epdfb_queue_marker_pending(struct epdfb_par *par, u32 marker)
{
	lockdep_assert_held(&par->lock);
	return epdfb_marker_pending(par, marker);
}
EXPORT_SYMBOL_NS_GPL(epdfb_queue_marker_pending, EPDPANEL);

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

/**
 * struct epdfb_waiter - a task in a marker wait or FBIO_WAITFORVSYNC
 * @node: link in par->marker_waiters or par->pending_waiters while waiting
 * @marker: the marker waited for
 * @target: submission number of the last update a pending wait waits for
 * @deadline: jiffies at which the wait gives up; a pending wait's is moved
 *	on by each update it waits for that completes, and by nothing else
 * @done: completed once, when @finished is set or the device goes away
 * @finished: @error and @collided hold the result
 * @collided: the marker's update collided
 * @error: the marker's error, 0 for a pending wait
 *
 * Lives on the waiter's stack; it is linked and read under par->lock only.
 */
struct epdfb_waiter {
	struct hlist_node node;
	u32 marker;
	u64 target;
	unsigned long deadline;
	struct completion done;
	bool finished;
	bool collided;
	int error;
};

static void epdfb_waiter_finish(struct epdfb_waiter *w, int error,
				bool collided)
{
	hlist_del_init(&w->node);
	w->error = error;
	w->collided = collided;
	w->finished = true;
	complete(&w->done);
}

/*
 * How long @upd drives the panel once it starts: its waveform's duration at
 * its temperature. WAVEFORM_MODE_AUTO becomes one of two waveforms when the
 * update starts: the longer one counts.
 */
static u64 epdfb_update_expected_ns(struct epdfb_par *par,
				    const struct epdfb_update *upd)
{
	int temp = upd->temp == TEMP_USE_AMBIENT ? par->ambient_temp : upd->temp;
	u32 ids[] = { upd->waveform, upd->waveform };
	const struct epdfb_waveform *wf;
	u32 ms = 0;
	unsigned int i;

	if (upd->waveform == WAVEFORM_MODE_AUTO) {
		ids[0] = par->modes.mode_du;
		ids[1] = par->modes.mode_gc16;
	}
	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		wf = epdfb_find_waveform(par, ids[i]);
		if (wf)
			ms = max(ms, epdfb_waveform_duration_ms(par, wf, temp));
	}
	return (u64)ms * NSEC_PER_MSEC;
}

/*
 * When a queued update (or the one held back, behind them all) is due to
 * end: once the updates in flight and those queued before it that it
 * overlaps are due to end, it starts and runs its own duration. Sets
 * @upd->due_ns; the updates before it in the queue have theirs set.
 */
static void epdfb_update_estimate(struct epdfb_par *par,
				  struct epdfb_update *upd, u64 now)
{
	struct epdfb_update *other;
	u64 start = now;

	list_for_each_entry(other, &par->in_flight, node)
		if (epdfb_rects_overlap(&other->rect, &upd->rect))
			start = max(start, other->end_ns);
	list_for_each_entry(other, &par->queue, node) {
		if (other == upd)
			break;
		if (epdfb_rects_overlap(&other->rect, &upd->rect))
			start = max(start, other->due_ns);
	}
	upd->due_ns = start + epdfb_update_expected_ns(par, upd);
}

/*
 * When the panel is due to finish the last update carrying @marker: one in
 * flight at the end of its waveform, a queued one after the updates it
 * overlaps ahead of it end, by their durations and its own. Waits for a
 * free LUT are not foreseen; the wait's deadline moves on when its update
 * starts.
 */
static u64 epdfb_marker_due_ns(struct epdfb_par *par, u32 marker, u64 now)
{
	struct epdfb_update *upd;
	u64 due = now;

	list_for_each_entry(upd, &par->in_flight, node)
		if (epdfb_update_has_marker(upd, marker))
			due = max(due, upd->due_ns);
	list_for_each_entry(upd, &par->queue, node) {
		epdfb_update_estimate(par, upd, now);
		if (epdfb_update_has_marker(upd, marker))
			due = max(due, upd->due_ns);
	}
	if (par->held && epdfb_update_has_marker(par->held, marker)) {
		epdfb_update_estimate(par, par->held, now);
		due = max(due, par->held->due_ns);
	}
	return due;
}

/* EPDFB_WAIT_TIMEOUT_MS past @due_ns, a time of ktime_get_ns() after @now. */
static unsigned long epdfb_wait_deadline(u64 due_ns, u64 now)
{
	return jiffies + nsecs_to_jiffies(due_ns - now) + 1 +
	       msecs_to_jiffies(EPDFB_WAIT_TIMEOUT_MS);
}

/*
 * An update that starts knows when it is due to end: the waits for its
 * markers get until EPDFB_WAIT_TIMEOUT_MS past that, if it is later than
 * they had (it started later than foreseen, or was timed for a colder panel
 * as its temperature could not be read).
 */
static void epdfb_marker_waits_follow(struct epdfb_par *par,
				      const struct epdfb_update *upd, u64 now)
{
	unsigned long deadline = epdfb_wait_deadline(upd->due_ns, now);
	struct epdfb_waiter *w;
	struct hlist_node *tmp;
	unsigned int m;

	for (m = 0; m < upd->n_markers; m++)
		hash_for_each_possible_safe(par->marker_waiters, w, tmp, node,
					    upd->markers[m])
			if (w->marker == upd->markers[m] &&
			    time_after(deadline, w->deadline))
				w->deadline = deadline;
}

/* A marker may be reused: the most recent completion is the one asked for. */
static const struct epdfb_done_marker *
epdfb_marker_done(struct epdfb_par *par, u32 marker)
{
	const struct epdfb_done_marker *done;
	unsigned int i;

	for (i = 1; i <= EPDFB_MARKER_HISTORY; i++) {
		done = &par->done[(par->done_head + EPDFB_MARKER_HISTORY - i) %
				  EPDFB_MARKER_HISTORY];
		if (done->marker == marker)
			return done;
	}
	return NULL;
}

static bool epdfb_marker_forgotten(struct epdfb_par *par, u32 marker)
{
	unsigned int i;

	for (i = 0; i < EPDFB_MARKERS_FORGOTTEN; i++)
		if (par->forgotten[i] == marker)
			return true;
	return false;
}

/*
 * What a wait that begins after its marker completed gets: the marker's
 * result while it is among the last EPDFB_MARKER_HISTORY to complete,
 * -ENOENT for one of the EPDFB_MARKERS_FORGOTTEN before those (it completed,
 * but how is no longer known), and 0 for a marker never sent, or sent so
 * long ago that it is as unknown as one never sent.
 */
static int epdfb_marker_late_result(struct epdfb_par *par, u32 marker,
				    u32 *collided)
{
	const struct epdfb_done_marker *done = epdfb_marker_done(par, marker);

	if (done) {
		*collided = done->collided;
		return done->error;
	}
	return epdfb_marker_forgotten(par, marker) ? -ENOENT : 0;
}

static void epdfb_marker_record(struct epdfb_par *par, u32 marker,
				bool collided, int error)
{
	struct epdfb_done_marker *slot = &par->done[par->done_head];

	if (slot->marker) {
		par->forgotten[par->forgotten_head] = slot->marker;
		par->forgotten_head = (par->forgotten_head + 1) %
				      EPDFB_MARKERS_FORGOTTEN;
	}
	slot->marker = marker;
	slot->collided = collided;
	slot->error = error;
	par->done_head = (par->done_head + 1) % EPDFB_MARKER_HISTORY;
}

/* Hands a completed marker's result to the tasks waiting for it. */
static void epdfb_marker_wake(struct epdfb_par *par, u32 marker,
			      bool collided, int error)
{
	struct epdfb_waiter *w;
	struct hlist_node *tmp;

	hash_for_each_possible_safe(par->marker_waiters, w, tmp, node, marker)
		if (w->marker == marker)
			epdfb_waiter_finish(w, error, collided);
}

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

static void epdfb_trace_add(struct epdfb_par *par,
			    const struct epdfb_update *upd)
{
	struct epdfb_trace_entry *e = &par->trace[par->trace_head];

	e->marker = upd->n_markers ? upd->markers[0] : 0;
	e->waveform = upd->waveform;
	e->mode = upd->mode;
	e->flags = upd->flags;
	e->rect = upd->rect;
	e->submit_ns = upd->submit_ns;
	e->start_ns = upd->start_ns;
	e->end_ns = upd->end_ns;
	e->merged = upd->merged;
	e->collided = upd->collided;
	e->flashing = upd->flashing;
	par->trace_head = (par->trace_head + 1) % EPDFB_TRACE_LEN;
	if (par->trace_len < EPDFB_TRACE_LEN)
		par->trace_len++;
}

/**
 * epdfb_trace_entry() - an entry of the update trace, oldest first
 * @par: device
 * @i: its place, below par->trace_len
 *
 * Called with par->lock held.
 *
 * Return: the @i-th oldest entry the trace still holds.
 */
const struct epdfb_trace_entry *epdfb_trace_entry(const struct epdfb_par *par,
						  unsigned int i)
{
	return &par->trace[(par->trace_head + EPDFB_TRACE_LEN - par->trace_len + i) %
			   EPDFB_TRACE_LEN];
}

/**
 * epdfb_trace_line() - one line of the debugfs updates trace
 * @par: device
 * @e: the completed update
 * @buf: the line, with its newline, NUL-terminated
 * @len: size of @buf; EPDFB_TRACE_LINE_LEN holds any line
 *
 * The panel model in userspace writes its trace with this too: one format
 * for the tools that read either.
 *
 * Return: the line's length, as snprintf().
 */
int epdfb_trace_line(const struct epdfb_par *par,
		     const struct epdfb_trace_entry *e, char *buf, size_t len)
{
	const struct epdfb_waveform *wf = epdfb_find_waveform(par, e->waveform);

	return snprintf(buf, len,
			"marker=%u submit_ns=%llu start_ns=%llu end_ns=%llu left=%u top=%u width=%u height=%u waveform=%s mode=%s flags=0x%x merged=%u collided=%u flash=%u\n",
			e->marker, e->submit_ns, e->start_ns, e->end_ns,
			e->rect.left, e->rect.top, e->rect.width,
			e->rect.height, wf ? wf->name : "?",
			e->mode == UPDATE_MODE_FULL ? "full" : "partial",
			e->flags, e->merged, e->collided, e->flashing);
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
	kfree(upd);
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
		epdfb_update_retire(par, upd);
		return;
	}
	if (wf)
		par->stats.pixels_driven += par->ops->show(par, upd, wf);
	par->stats.updates_completed++;
	if (upd->flashing)
		par->stats.flashes++;
	if (upd->waveform < ARRAY_SIZE(par->stats.per_waveform))
		par->stats.per_waveform[upd->waveform]++;
	epdfb_trace_add(par, upd);
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
 * The pixels of an update that starts go to its rect's place in par->flight,
 * which no other update in flight overlaps: nothing is allocated. SNAPSHOT
 * pixels taken at submission move there; an injected capture failure
 * leaves none.
 */
static void epdfb_update_take_pixels(struct epdfb_par *par,
				     struct epdfb_update *upd)
{
	const struct mxcfb_rect *r = &upd->rect;
	u8 *frame = par->flight + (size_t)r->top * par->width + r->left;
	u32 y;

	if (!upd->pixels && epdfb_inject(&par->inject_capture_failures))
		return;
	if (upd->pixels) {
		for (y = 0; y < r->height; y++)
			memcpy(frame + (size_t)y * par->width,
			       upd->pixels + (size_t)y * r->width, r->width);
		kvfree(upd->pixels);
	} else {
		epdfb_pixels_capture_into(par, r, upd->flags, frame,
					  par->width);
	}
	upd->pixels = frame;
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

	list_for_each_entry_safe(upd, tmp, &par->queue, node) {
		if (par->n_in_flight >= EPDFB_MAX_IN_FLIGHT)
			break;
		/* Earlier overlapping updates keep their order. */
		if (epdfb_overlaps_list(upd, &par->in_flight, NULL) ||
		    epdfb_overlaps_list(upd, &par->queue, upd))
			continue;
		epdfb_update_start(par, upd, now);
	}
}

/* Submission number of the oldest update not completed, U64_MAX if none. */
static u64 epdfb_oldest_pending(struct epdfb_par *par)
{
	u64 oldest = par->held ? par->held->seq : U64_MAX;
	struct epdfb_update *upd;

	list_for_each_entry(upd, &par->queue, node)
		oldest = min(oldest, upd->seq);
	list_for_each_entry(upd, &par->in_flight, node)
		oldest = min(oldest, upd->seq);
	return oldest;
}

/*
 * Wakes the FBIO_WAITFORVSYNC waits whose updates have all completed, and
 * gives those of which one completed (the oldest submission number among
 * the updates just completed is @retired) their time again.
 */
static void epdfb_pending_wake(struct epdfb_par *par, u64 retired)
{
	u64 oldest = epdfb_oldest_pending(par);
	struct epdfb_waiter *w;
	struct hlist_node *tmp;

	hlist_for_each_entry_safe(w, tmp, &par->pending_waiters, node) {
		if (w->target < oldest)
			epdfb_waiter_finish(w, 0, false);
		else if (retired <= w->target)
			w->deadline = jiffies +
				      msecs_to_jiffies(EPDFB_WAIT_TIMEOUT_MS);
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
	    queued->pixels)
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
		kfree(upd);
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
	bool collided;

	upd->submit_ns = ktime_get_ns();
	collided = epdfb_overlaps_list(upd, &par->in_flight, NULL) ||
		   epdfb_overlaps_list(upd, &par->queue, NULL);
	upd->collided = collided;
	if (upd->n_markers)
		upd->marker_collided[0] = collided;

	if ((par->scheme == UPDATE_SCHEME_QUEUE_AND_MERGE ||
	     (upd->automatic && full)) && epdfb_try_merge(par, upd)) {
		kfree(upd);
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
	if (collided)
		par->stats.collisions++;
	return 0;
}

/**
 * epdfb_update_alloc() - a record for epdfb_queue_submit_accepted()
 *
 * Return: the record, or NULL without memory.
 */
struct epdfb_update *epdfb_update_alloc(void)
{
	return kzalloc(sizeof(struct epdfb_update), GFP_KERNEL);
}
EXPORT_SYMBOL_NS_GPL(epdfb_update_alloc, EPDPANEL);

/**
 * epdfb_update_free() - free a record epdfb_queue_submit_accepted() did not take
 * @upd: record from epdfb_update_alloc(), or NULL
 */
void epdfb_update_free(struct epdfb_update *upd)
{
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
	kfree(upd);
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

/* Ends a registered wait: its result, or why there is none. */
static int epdfb_waiter_end(struct epdfb_par *par, struct epdfb_waiter *w,
			    long left, u32 *collided)
{
	int ret;

	mutex_lock(&par->lock);
	if (!w->finished)
		hlist_del(&w->node);
	if (par->dead) {
		ret = -ENODEV;
	} else if (w->finished) {
		ret = w->error;
		if (collided)
			*collided = w->collided;
	} else {
		ret = left < 0 ? left : -ETIMEDOUT;
	}
	mutex_unlock(&par->lock);
	return ret;
}

/*
 * Sleeps until the wait's result is known, a signal comes or the deadline
 * passes; a pending wait's deadline may have moved on while it slept.
 */
static int epdfb_waiter_sleep(struct epdfb_par *par, struct epdfb_waiter *w,
			      u32 *collided)
{
	long left = 0, timeout;

	for (;;) {
		mutex_lock(&par->lock);
		timeout = (long)(w->deadline - jiffies);
		mutex_unlock(&par->lock);
		if (timeout <= 0)
			break;
		left = wait_for_completion_interruptible_timeout(&w->done,
								 timeout);
		if (left)
			break;
	}
	return epdfb_waiter_end(par, w, left, collided);
}

/**
 * epdfb_queue_wait_marker() - wait until the update carrying @marker completed
 * @par: device
 * @marker: update_marker of a submitted update
 * @collided: set to whether that update collided with another
 *
 * A wait that begins before the marker completed gets its result whatever
 * completes with it. One that begins after gets it while the marker is among
 * the last EPDFB_MARKER_HISTORY to complete.
 *
 * The wait gives up EPDFB_WAIT_TIMEOUT_MS after the update is due to end:
 * at the call, when the updates it waits behind and its own waveform, at
 * its temperature and time_scale, are due to end; once it starts, when it
 * is due to end, if that is later. Other updates' completions do not move
 * the deadline.
 *
 * Return: 0 once completed (at once for a marker never sent or completed);
 * -EIO if nothing was shown, its pixels not captured or the update failed;
 * -ETIMEDOUT if the update hung and was abandoned, or did not complete
 * within EPDFB_WAIT_TIMEOUT_MS of its due end; -ENODATA if it was shown but
 * timed without a temperature reading; -ENOENT if it completed too long
 * before the call for its result to be known; -ERESTARTSYS on a signal;
 * -ENODEV if the device goes away.
 */
int epdfb_queue_wait_marker(struct epdfb_par *par, u32 marker, u32 *collided)
{
	struct epdfb_waiter w = { .marker = marker };
	u64 now;
	int ret;

	*collided = 0;
	if (!marker)
		return 0;
	mutex_lock(&par->lock);
	if (par->dead) {
		mutex_unlock(&par->lock);
		return -ENODEV;
	}
	if (!epdfb_marker_pending(par, marker)) {
		ret = epdfb_marker_late_result(par, marker, collided);
		mutex_unlock(&par->lock);
		return ret;
	}
	now = ktime_get_ns();
	w.deadline = epdfb_wait_deadline(epdfb_marker_due_ns(par, marker, now),
					 now);
	init_completion(&w.done);
	hash_add(par->marker_waiters, &w.node, marker);
	mutex_unlock(&par->lock);
	return epdfb_waiter_sleep(par, &w, collided);
}
EXPORT_SYMBOL_NS_GPL(epdfb_queue_wait_marker, EPDPANEL);

/**
 * epdfb_queue_wait_pending() - wait for the updates submitted so far
 * @par: device
 *
 * Updates submitted after the call are not waited for, and none may merge
 * into a queued one so as to delay it, so a steady stream of them cannot
 * keep the caller waiting. Nor can their completions: the wait gives up
 * when none of its own updates completed for EPDFB_WAIT_TIMEOUT_MS. It
 * waits for at most the EPDFB_MAX_QUEUED queued, EPDFB_MAX_IN_FLIGHT in
 * flight and one held back, which may take longer than that together.
 *
 * Return: 0, -ETIMEDOUT if none of the updates completed for
 * EPDFB_WAIT_TIMEOUT_MS, -ERESTARTSYS on a signal, -ENODEV if the device
 * goes away.
 */
int epdfb_queue_wait_pending(struct epdfb_par *par)
{
	struct epdfb_waiter w = {};

	mutex_lock(&par->lock);
	if (par->dead) {
		mutex_unlock(&par->lock);
		return -ENODEV;
	}
	w.target = par->submit_seq;
	if (epdfb_oldest_pending(par) > w.target) {
		mutex_unlock(&par->lock);
		return 0;
	}
	w.deadline = jiffies + msecs_to_jiffies(EPDFB_WAIT_TIMEOUT_MS);
	init_completion(&w.done);
	hlist_add_head(&w.node, &par->pending_waiters);
	mutex_unlock(&par->lock);
	return epdfb_waiter_sleep(par, &w, NULL);
}
EXPORT_SYMBOL_NS_GPL(epdfb_queue_wait_pending, EPDPANEL);

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
	struct epdfb_waiter *w;
	struct hlist_node *next;
	unsigned int bkt;

	mutex_lock(&par->lock);
	WRITE_ONCE(par->dead, true);
	kfree(par->held);
	par->held = NULL;
	list_for_each_entry_safe(upd, tmp, &par->in_flight, node) {
		par->stats.updates_cancelled++;
		par->n_in_flight--;
		epdfb_update_retire(par, upd);
	}
	list_for_each_entry_safe(upd, tmp, &par->queue, node) {
		par->stats.updates_cancelled++;
		epdfb_update_retire(par, upd);
	}
	par->n_queued = 0;
	par->snapshot_bytes = 0;
	hash_for_each_safe(par->marker_waiters, bkt, next, w, node)
		epdfb_waiter_finish(w, -ENODEV, false);
	hlist_for_each_entry_safe(w, next, &par->pending_waiters, node)
		epdfb_waiter_finish(w, -ENODEV, false);
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
	par->wq = alloc_workqueue("epdfb", WQ_UNBOUND, 0);
	if (!par->wq)
		goto err_flight;
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
	kvfree(par->flight);
	kvfree(par->forgotten);
	kvfree(par->trace);
	mutex_destroy(&par->lock);
}
EXPORT_SYMBOL_NS_GPL(epdfb_queue_fini, EPDPANEL);
