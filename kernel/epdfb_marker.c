// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * epdfb - update markers: the waits for them and their results
 *
 * A waiter registers itself with what it waits for and sleeps on its own
 * completion: an update that completes wakes only the waiters of its
 * markers, and hands each its result, so that no number of markers
 * completing together can lose it. FBIO_WAITFORVSYNC waiters are woken when
 * the last update they wait for completes. The results of the last
 * EPDFB_MARKER_HISTORY markers to complete stay for waits that come later.
 */
#include <linux/completion.h>
#include <linux/export.h>
#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/minmax.h>

#include "epdfb_drv.h"
#include "epdfb_queue.h"

bool epdfb_update_has_marker(const struct epdfb_update *upd, u32 marker)
{
	unsigned int m;

	for (m = 0; m < upd->n_markers; m++)
		if (upd->markers[m] == marker)
			return true;
	return false;
}

bool epdfb_marker_pending(struct epdfb_par *par, u32 marker)
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
void epdfb_marker_waits_follow(struct epdfb_par *par,
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

void epdfb_marker_record(struct epdfb_par *par, u32 marker,
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
void epdfb_marker_wake(struct epdfb_par *par, u32 marker,
		       bool collided, int error)
{
	struct epdfb_waiter *w;
	struct hlist_node *tmp;

	hash_for_each_possible_safe(par->marker_waiters, w, tmp, node, marker)
		if (w->marker == marker)
			epdfb_waiter_finish(w, error, collided);
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
void epdfb_pending_wake(struct epdfb_par *par, u64 retired)
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

/* Ends every wait with -ENODEV: the device goes away. Called with par->lock held. */
void epdfb_marker_cancel_waits(struct epdfb_par *par)
{
	struct epdfb_waiter *w;
	struct hlist_node *next;
	unsigned int bkt;

	hash_for_each_safe(par->marker_waiters, bkt, next, w, node)
		epdfb_waiter_finish(w, -ENODEV, false);
	hlist_for_each_entry_safe(w, next, &par->pending_waiters, node)
		epdfb_waiter_finish(w, -ENODEV, false);
}

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
