// SPDX-License-Identifier: MIT
/*
 * When the panel is sent what: a change waits for the commits that finish
 * it (the merge hold), content goes out in flushes while the driver has
 * room, frames are held while the panel is saturated, areas whose updates
 * failed are retried with a growing backoff, completed updates settle
 * their commits, and ghosts are cleaned up once the panel is quiet.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <time.h>
#include <wlr/interfaces/wlr_output.h>
#include <wlr/util/log.h>

#include "backend.h"

size_t
vl_epd_flushes_in_flight(const struct vl_epd_output *output)
{
	size_t n = 0;

	for (size_t i = 0; i < VL_EPD_FLUSH_SLOTS; i++)
		n += output->flushes[i].id != 0;
	return n;
}

static size_t
updates_in_flight(const struct vl_epd_output *output)
{
	size_t n = 0;

	for (size_t i = 0; i < VL_EPD_FLUSH_SLOTS; i++)
		n += output->flushes[i].id != 0 ? output->flushes[i].left : 0;
	return n;
}

/*
 * Whether another flush fits under the driver's depth: beyond it the
 * driver refuses updates (EBUSY), so content waits here instead, merging.
 */
static bool
room_for_flush(const struct vl_epd_output *output)
{
	uint32_t max = output->device->max_in_flight;
	size_t n = updates_in_flight(output);

	return max == 0 || n == 0 || n + VL_EPD_MAX_UPDATES_PER_FLUSH <= max;
}

static struct vl_epd_flush_record *
newest_flush(struct vl_epd_output *output)
{
	struct vl_epd_flush_record *newest = NULL;

	for (size_t i = 0; i < VL_EPD_FLUSH_SLOTS; i++) {
		struct vl_epd_flush_record *record = &output->flushes[i];
		if (record->id != 0 && (!newest || record->id > newest->id))
			newest = record;
	}
	return newest;
}

static struct vl_epd_flush_record *
new_flush(struct vl_epd_output *output)
{
	for (size_t i = 0; i < VL_EPD_FLUSH_SLOTS; i++) {
		struct vl_epd_flush_record *record = &output->flushes[i];
		if (record->id == 0) {
			*record = (struct vl_epd_flush_record){.id = ++output->next_flush_id};
			return record;
		}
	}
	return NULL;
}

static void
send_frame(void *data)
{
	struct vl_epd_output *output = data;

	output->frame_idle = NULL;
	wlr_output_send_frame(&output->base);
}

int
vl_epd_handle_frame_timer(void *data)
{
	struct vl_epd_output *output = data;

	wlr_output_send_frame(&output->base);
	return 0;
}

/*
 * Whether an update over box, fast or not, waits on the device for update
 * i of record: they overlap, unless the device lets a fast update take the
 * pixels of a fast one over.
 */
static bool
waits_behind(const struct vl_epd_output *output, const struct vl_epd_flush_record *record, size_t i,
	const pixman_box32_t *box, bool fast)
{
	const pixman_box32_t *a = &record->boxes[i];

	if (fast && record->fast[i] && output->device->retargets_fast)
		return false;
	return a->x1 < box->x2 && box->x1 < a->x2 && a->y1 < box->y2 && box->y1 < a->y2;
}

/* Whether an update of the newer record b queues behind one of a's. */
static bool
queues_behind(const struct vl_epd_output *output, const struct vl_epd_flush_record *a,
	const struct vl_epd_flush_record *b)
{
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++)
			if (waits_behind(output, a, i, &b->boxes[j], b->fast[j]))
				return true;
	return false;
}

/* Backoff between retries of an area whose updates failed. */
#define RETRY_FIRST_MS 50
#define RETRY_MAX_MS   2000

static int64_t
monotonic_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* Initialises region to the failed areas that wait for their retry. */
static void
retries_waiting(const struct vl_epd_output *output, pixman_region32_t *region)
{
	pixman_region32_init(region);
	for (size_t i = 0; i < VL_EPD_RETRY_AREAS; i++) {
		const struct vl_epd_retry_area *retry = &output->retries[i];
		if (retry->waiting)
			pixman_region32_union(region, region, (pixman_region32_t *)&retry->area);
	}
}

/*
 * Whether content waits for the panel, not for the rest of its change nor
 * for the retry of an area that failed, nor one the device refused, nor
 * for an animation's pace: frames go on meanwhile.
 */
static bool
waits_for_panel(const struct vl_epd_output *output)
{
	pixman_region32_t waiting, backing_off;

	retries_waiting(output, &backing_off);
	pixman_region32_init(&waiting);
	pixman_region32_subtract(
		&waiting, (pixman_region32_t *)&output->unsent, (pixman_region32_t *)&output->held);
	pixman_region32_subtract(&waiting, &waiting, &backing_off);
	pixman_region32_subtract(&waiting, &waiting, (pixman_region32_t *)&output->refused);
	pixman_region32_subtract(&waiting, &waiting, (pixman_region32_t *)&output->paced);
	bool waits = pixman_region32_not_empty(&waiting);
	pixman_region32_fini(&waiting);
	pixman_region32_fini(&backing_off);
	return waits;
}

/*
 * The panel is saturated where an area waits for it, or has an update
 * queued behind the one it shows: a client drawing there faster than the
 * panel shows waits for its frame. Elsewhere the panel takes more, and so
 * it does where a fast update took a fast one's pixels over: a typed
 * character next to the cursor's old cell goes out while that cell is
 * still driven, and the key after it is drawn meanwhile.
 */
static bool
saturated(const struct vl_epd_output *output)
{
	if (vl_epd_flushes_in_flight(output) >= VL_EPD_MAX_FLUSHES_IN_FLIGHT ||
		!room_for_flush(output) || waits_for_panel(output))
		return true;
	for (size_t i = 0; i < VL_EPD_FLUSH_SLOTS; i++) {
		const struct vl_epd_flush_record *a = &output->flushes[i];
		for (size_t j = i + 1; a->id != 0 && j < VL_EPD_FLUSH_SLOTS; j++) {
			const struct vl_epd_flush_record *b = &output->flushes[j];
			if (b->id == 0)
				continue;
			if (b->id > a->id ? queues_behind(output, a, b)
					  : queues_behind(output, b, a))
				return true;
		}
	}
	return false;
}

/* Frames go out while the panel has room; otherwise when an update completes. */
void
vl_epd_schedule_frame(struct vl_epd_output *output)
{
	if (!output->enabled)
		return;
	if (saturated(output)) {
		output->frame_held = true;
		return;
	}
	output->frame_held = false;
	if (output->last_commit_unchanged)
		wl_event_source_timer_update(output->frame_timer, VL_EPD_UNCHANGED_FRAME_MS);
	else if (!output->frame_idle)
		output->frame_idle =
			wl_event_loop_add_idle(output->backend->loop, send_frame, output);
}

static bool
has_pending_commits(const struct vl_epd_output *output)
{
	const struct vl_epd_commit *commit;

	wl_list_for_each (commit, &output->commits, link)
		if (commit->flush_id == 0)
			return true;
	return false;
}

/* Whether an area still waits to show after a failure, or the I/O queue had no room. */
static bool
retries_outstanding(const struct vl_epd_output *output)
{
	for (size_t i = 0; i < VL_EPD_RETRY_AREAS; i++)
		if (pixman_region32_not_empty((pixman_region32_t *)&output->retries[i].area))
			return true;
	return output->requeue_due_ms != 0;
}

void
vl_epd_update_cleanup_timer(struct vl_epd_output *output)
{
	unsigned int delay_ms;
	bool quiet = output->enabled && !output->lost && !retries_outstanding(output) &&
		     vl_epd_flushes_in_flight(output) == 0 &&
		     !pixman_region32_not_empty(&output->unsent);
	/* A zero delay disarms the timer: an idle panel costs no wake-ups. */
	if (!quiet || !vl_epd_cleanup_due(output, &delay_ms))
		delay_ms = 0;
	/* The timer takes an int: a longer delay is waited for in steps. */
	wl_event_source_timer_update(
		output->cleanup_timer, delay_ms > INT_MAX ? INT_MAX : (int)delay_ms);
}

/* The retry timer fires when the first waiting area is due, or a requeue. */
static void
arm_retry_timer(struct vl_epd_output *output)
{
	int64_t due = output->requeue_due_ms;
	bool pending = false;

	for (size_t i = 0; i < VL_EPD_RETRY_AREAS; i++) {
		const struct vl_epd_retry_area *retry = &output->retries[i];
		if (!retry->waiting)
			continue;
		pending = true;
		if (due == 0 || retry->due_ms < due)
			due = retry->due_ms;
	}
	output->retry_pending = pending;
	if (due == 0) {
		wl_event_source_timer_update(output->retry_timer, 0);
		return;
	}
	int64_t delay_ms = due - monotonic_ms();
	/* a zero delay would disarm it */
	if (delay_ms < 1)
		delay_ms = 1;
	else if (delay_ms > RETRY_MAX_MS)
		delay_ms = RETRY_MAX_MS;
	wl_event_source_timer_update(output->retry_timer, (int)delay_ms);
}

static unsigned int
next_backoff(unsigned int backoff_ms)
{
	if (backoff_ms == 0)
		return RETRY_FIRST_MS;
	return backoff_ms < RETRY_MAX_MS / 2 ? backoff_ms * 2 : RETRY_MAX_MS;
}

/*
 * An update over box failed for a passing reason: its area waits for a
 * retry, longer each time it fails again, whatever shows elsewhere.
 * Failures known before the retry lengthen the wait once.
 */
static void
retry_later(struct vl_epd_output *output, const pixman_box32_t *box)
{
	struct vl_epd_retry_area *slot = NULL, *free_slot = NULL, *longest = NULL;
	pixman_box32_t b = *box;

	for (size_t i = 0; i < VL_EPD_RETRY_AREAS; i++) {
		struct vl_epd_retry_area *retry = &output->retries[i];
		if (!pixman_region32_not_empty(&retry->area)) {
			free_slot = free_slot ? free_slot : retry;
			continue;
		}
		if (!longest || retry->backoff_ms > longest->backoff_ms)
			longest = retry;
		if (!slot &&
			pixman_region32_contains_rectangle(&retry->area, &b) != PIXMAN_REGION_OUT)
			slot = retry;
	}
	/* with every slot taken, the area joins the one that failed longest */
	slot = slot ? slot : free_slot ? free_slot : longest;
	pixman_region32_union_rect(&slot->area, &slot->area, b.x1, b.y1, b.x2 - b.x1, b.y2 - b.y1);
	if (!slot->waiting) {
		slot->backoff_ms = next_backoff(slot->backoff_ms);
		slot->due_ms = monotonic_ms() + slot->backoff_ms;
		slot->waiting = true;
	}
	arm_retry_timer(output);
}

/* An update over box showed, or was given up: no retry is left to do there. */
static void
retry_done(struct vl_epd_output *output, const pixman_box32_t *box)
{
	bool freed = false;

	for (size_t i = 0; i < VL_EPD_RETRY_AREAS; i++) {
		struct vl_epd_retry_area *retry = &output->retries[i];
		if (!pixman_region32_not_empty(&retry->area))
			continue;
		pixman_region32_t done;
		pixman_region32_init_rect(
			&done, box->x1, box->y1, box->x2 - box->x1, box->y2 - box->y1);
		pixman_region32_subtract(&retry->area, &retry->area, &done);
		pixman_region32_fini(&done);
		if (!pixman_region32_not_empty(&retry->area)) {
			retry->backoff_ms = 0;
			retry->waiting = false;
			freed = true;
		}
	}
	if (freed)
		arm_retry_timer(output);
}

/* An update over box showed: what the device refused there before is shown now. */
static void
shown_again(struct vl_epd_output *output, const pixman_box32_t *box)
{
	if (!pixman_region32_not_empty(&output->refused))
		return;
	pixman_region32_t shown;
	pixman_region32_init_rect(&shown, box->x1, box->y1, box->x2 - box->x1, box->y2 - box->y1);
	pixman_region32_subtract(&output->refused, &output->refused, &shown);
	pixman_region32_fini(&shown);
}

/* A record whose updates are queued waits for them; one without any is free again. */
static void
track_flush(struct vl_epd_flush_record *record)
{
	record->left = record->n;
	if (record->n == 0)
		record->id = 0;
}

/*
 * Sends what is unsent, and settles commits that changed nothing. A commit
 * whose content partly waits for the panel is carried by the flush that
 * sends the rest.
 */
void
vl_epd_output_flush(struct vl_epd_output *output, bool everything)
{
	struct vl_epd_flush_record *record = new_flush(output);
	struct vl_epd_commit *commit, *tmp;
	pixman_region32_t backing_off, others, kept_unsent, kept_stale;

	if (!record)
		return;
	/*
	 * Areas waiting for their retry sit this flush out (a last one takes
	 * them), and so do refused areas, unless other content goes.
	 */
	retries_waiting(output, &backing_off);
	pixman_region32_init(&others);
	pixman_region32_union(&others, &output->unsent, &output->stale);
	pixman_region32_subtract(&others, &others, &backing_off);
	pixman_region32_subtract(&others, &others, &output->refused);
	if (!pixman_region32_not_empty(&others))
		pixman_region32_union(&backing_off, &backing_off, &output->refused);
	pixman_region32_fini(&others);
	pixman_region32_init(&kept_unsent);
	pixman_region32_init(&kept_stale);
	if (!everything) {
		pixman_region32_intersect(&kept_unsent, &output->unsent, &backing_off);
		pixman_region32_subtract(&output->unsent, &output->unsent, &backing_off);
		pixman_region32_intersect(&kept_stale, &output->stale, &backing_off);
		pixman_region32_subtract(&output->stale, &output->stale, &backing_off);
	}
	bool queued = vl_epd_flush(output, record, everything);
	pixman_region32_union(&output->unsent, &output->unsent, &kept_unsent);
	pixman_region32_union(&output->stale, &output->stale, &kept_stale);
	pixman_region32_fini(&kept_unsent);
	pixman_region32_fini(&kept_stale);
	pixman_region32_fini(&backing_off);
	uint64_t id = record->id;
	size_t n = record->n;
	/* a refused area left out holds no commit, which is not shown in full then */
	pixman_region32_t left_out;
	pixman_region32_init(&left_out);
	pixman_region32_intersect(&left_out, &output->unsent, &output->refused);
	bool incomplete = pixman_region32_not_empty(&left_out);
	pixman_region32_subtract(&left_out, &output->unsent, &output->refused);
	bool waiting = pixman_region32_not_empty(&left_out);
	pixman_region32_fini(&left_out);
	track_flush(record);
	/* A commit that changed nothing has settled once what is in flight has. */
	struct vl_epd_flush_record *carrier = n > 0 ? record : newest_flush(output);
	wl_list_for_each_safe (commit, tmp, &output->commits, link) {
		if (commit->flush_id != 0)
			continue;
		if (n > 0)
			vl_epd_commit_name_waveforms(commit, record);
		if (waiting) {
			if (n > 0 && commit->first_flush_id == 0)
				commit->first_flush_id = id;
			continue;
		}
		commit->incomplete |= incomplete;
		if (!carrier) {
			vl_epd_commit_finish(output, commit, !commit->incomplete);
			continue;
		}
		if (n == 0)
			vl_epd_commit_name_waveforms(commit, carrier);
		commit->flush_id = carrier->id;
		commit->waveform = carrier->waveform;
		commit->flashed = carrier->flashed;
	}
	/* Updates that could not be queued: their commits wait for the retry. */
	if (!queued && output->requeue_due_ms == 0) {
		output->requeue_due_ms = monotonic_ms() + RETRY_FIRST_MS;
		arm_retry_timer(output);
	}
}

/* Moves the panel on after anything changed: flushes, frames, the idle cleanup. */
void
vl_epd_kick(struct vl_epd_output *output)
{
	/* what waits for the rest of its change is not sent, nor are commits settled before it */
	bool holding = pixman_region32_not_empty(&output->held);
	if (output->enabled && !output->lost &&
		vl_epd_flushes_in_flight(output) < VL_EPD_MAX_FLUSHES_IN_FLIGHT &&
		room_for_flush(output) &&
		(waits_for_panel(output) || (!holding && has_pending_commits(output))))
		vl_epd_output_flush(output, false);
	if (output->frame_held)
		vl_epd_schedule_frame(output);
	vl_epd_update_cleanup_timer(output);
}

int
vl_epd_handle_merge_timer(void *data)
{
	struct vl_epd_output *output = data;

	pixman_region32_clear(&output->held);
	vl_epd_kick(output);
	return 0;
}

/*
 * What is held elsewhere still waits for the merge timer, which is
 * disarmed once nothing is held: the next change starts a hold of its own.
 */
void
vl_epd_end_hold(struct vl_epd_output *output, const pixman_box32_t *box)
{
	pixman_region32_t ended;

	pixman_region32_init_rect(&ended, box->x1, box->y1, box->x2 - box->x1, box->y2 - box->y1);
	pixman_region32_intersect(&ended, &ended, &output->held);
	bool ends = pixman_region32_not_empty(&ended);
	pixman_region32_subtract(&output->held, &output->held, &ended);
	pixman_region32_fini(&ended);
	if (!ends)
		return;
	if (!pixman_region32_not_empty(&output->held))
		wl_event_source_timer_update(output->merge_timer, 0);
	vl_epd_kick(output);
}

/*
 * A change waits for the commits a client may split it into: one to a
 * panel with nothing waiting, all of it for merge_window_ms; one in an
 * area whose hint has a merge window, that area for that long. Commits
 * meanwhile merge into it; frames go on, or the client could not send the
 * rest, and so does the rest of the panel.
 */
void
vl_epd_hold_split_changes(struct vl_epd_output *output, const pixman_region32_t *damage)
{
	bool holding = pixman_region32_not_empty(&output->held);
	unsigned int window_ms = 0;
	struct vl_epd_hint *hint;
	pixman_region32_t area;

	pixman_region32_init(&area);
	if (output->merge_window_ms && (holding || !pixman_region32_not_empty(&output->unsent))) {
		pixman_region32_copy(&area, (pixman_region32_t *)damage);
		window_ms = output->merge_window_ms;
	}
	wl_array_for_each (hint, &output->next_hints) {
		if (hint->merge_window_ms == 0)
			continue;
		pixman_region32_t changed;
		pixman_region32_init(&changed);
		pixman_region32_intersect_rect(&changed, (pixman_region32_t *)damage, hint->box.x,
			hint->box.y, hint->box.width, hint->box.height);
		if (pixman_region32_not_empty(&changed) && hint->merge_window_ms > window_ms)
			window_ms = hint->merge_window_ms;
		pixman_region32_union(&area, &area, &changed);
		pixman_region32_fini(&changed);
	}
	if (window_ms > 0 && pixman_region32_not_empty(&area)) {
		if (!holding)
			wl_event_source_timer_update(output->merge_timer,
				window_ms > INT_MAX ? INT_MAX : (int)window_ms);
		pixman_region32_union(&output->held, &output->held, &area);
	}
	pixman_region32_fini(&area);
}

int
vl_epd_handle_retry_timer(void *data)
{
	struct vl_epd_output *output = data;
	int64_t now = monotonic_ms();

	for (size_t i = 0; i < VL_EPD_RETRY_AREAS; i++) {
		struct vl_epd_retry_area *retry = &output->retries[i];
		if (retry->waiting && retry->due_ms <= now)
			retry->waiting = false;
	}
	if (output->requeue_due_ms != 0 && output->requeue_due_ms <= now)
		output->requeue_due_ms = 0;
	arm_retry_timer(output);
	vl_epd_kick(output);
	return 0;
}

static void
handle_lost(void *data)
{
	struct vl_epd_output *output = data;

	output->lost_idle = NULL;
	wlr_output_destroy(&output->base);
}

/* The device is gone: the compositor learns it as the output's destruction. */
static bool
is_fatal(int error)
{
	return error == -ENODEV || error == -ENXIO || error == -EBADF || error == -ENOTTY;
}

/* Whether none of the flushes from first to last is in flight any more. */
static bool
flushes_done(const struct vl_epd_output *output, uint64_t first, uint64_t last)
{
	for (size_t i = 0; i < VL_EPD_FLUSH_SLOTS; i++) {
		uint64_t id = output->flushes[i].id;
		if (id != 0 && id >= first && id <= last)
			return false;
	}
	return true;
}

/*
 * Flush id gave part of its content up: the commits it carried are not
 * shown in full, nor are those sent after it, whose flushes left the area
 * out as it was on its way then. Commits not sent yet take it along.
 */
static void
mark_incomplete(struct vl_epd_output *output, uint64_t id)
{
	struct vl_epd_commit *commit;

	wl_list_for_each (commit, &output->commits, link) {
		uint64_t first = commit->first_flush_id ? commit->first_flush_id : commit->flush_id;
		if (commit->flush_id != 0 ? commit->flush_id >= id : first != 0 && first <= id)
			commit->incomplete = true;
	}
}

static void
complete_flush(struct vl_epd_output *output, struct vl_epd_flush_record *record)
{
	struct vl_epd_commit *commit, *tmp;
	uint64_t id = record->id;

	record->id = 0;
	if (record->given_up)
		mark_incomplete(output, id);
	if (record->failed) {
		/*
		 * Every commit still waiting, also one whose own updates are in
		 * flight or done, shows the failed area too: all of them are
		 * shown by the retry, or superseded.
		 */
		wl_list_for_each (commit, &output->commits, link)
			commit->flush_id = 0;
		return;
	}
	/* A commit is shown when every flush that took part of it completed. */
	wl_list_for_each_safe (commit, tmp, &output->commits, link) {
		uint64_t first = commit->first_flush_id ? commit->first_flush_id : commit->flush_id;
		if (commit->flush_id == 0 || id < first || id > commit->flush_id ||
			!flushes_done(output, first, commit->flush_id))
			continue;
		vl_epd_commit_finish(output, commit, !commit->incomplete);
	}
}

void
vl_epd_handle_io_result(const struct vl_epd_io_result *result, void *data)
{
	struct vl_epd_output *output = data;

	/* Also without an update in flight: the device's removal is reported so. */
	if (is_fatal(result->error) && !output->lost) {
		output->lost = true;
		output->lost_idle =
			wl_event_loop_add_idle(output->backend->loop, handle_lost, output);
	}
	for (size_t i = 0; i < VL_EPD_FLUSH_SLOTS; i++) {
		struct vl_epd_flush_record *record = &output->flushes[i];
		for (size_t j = 0; record->id != 0 && j < record->n; j++) {
			if (record->markers[j] != result->marker)
				continue;
			const pixman_box32_t *box = &record->boxes[j];
			if (result->error == 0) {
				retry_done(output, box);
				shown_again(output, box);
			} else if (vl_epd_error_is_permanent(-result->error)) {
				/* the I/O queue tried the safe waveform too: it would fail again */
				if (!pixman_region32_not_empty(&output->refused))
					wlr_log(WLR_ERROR,
						"panel update %" PRIu32 " (%" PRId32 "x%" PRId32
						" at %" PRId32 ",%" PRId32
						") is refused for good: %s; "
						"refused areas go out again with later changes "
						"only",
						result->marker, box->x2 - box->x1,
						box->y2 - box->y1, box->x1, box->y1,
						strerror(-result->error));
				record->given_up = true;
				retry_done(output, box);
				pixman_region32_union_rect(&output->refused, &output->refused,
					box->x1, box->y1, box->x2 - box->x1, box->y2 - box->y1);
				vl_epd_forget_sent(output, box);
			} else {
				wlr_log(WLR_ERROR, "panel update %" PRIu32 " failed: %s",
					result->marker, strerror(-result->error));
				record->failed = true;
				/* Its pixels are not known to be on the panel: send them again. */
				vl_epd_forget_sent(output, box);
				retry_later(output, box);
			}
			if (--record->left == 0)
				complete_flush(output, record);
			vl_epd_kick(output);
			return;
		}
	}
}

int
vl_epd_handle_cleanup_timer(void *data)
{
	struct vl_epd_output *output = data;

	unsigned int delay_ms;

	if (!output->enabled || output->lost || vl_epd_flushes_in_flight(output) > 0 ||
		pixman_region32_not_empty(&output->unsent))
		return 0;
	/* Input since the timer was armed puts the cleanup off. */
	if (!vl_epd_cleanup_due(output, &delay_ms))
		return 0;
	if (delay_ms > 1) {
		wl_event_source_timer_update(
			output->cleanup_timer, delay_ms > INT_MAX ? INT_MAX : (int)delay_ms);
		return 0;
	}
	struct vl_epd_flush_record *record = new_flush(output);
	if (!record)
		return 0;
	vl_epd_cleanup(output, record);
	track_flush(record);
	/* Nothing was due yet after a step of a long delay: the next step. */
	if (record->n == 0)
		vl_epd_update_cleanup_timer(output);
	return 0;
}
