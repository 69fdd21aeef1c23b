// SPDX-License-Identifier: MIT
/*
 * A commit's life once the output took it: it waits for the panel to show
 * its content, is finished (shown, or superseded by newer content), and its
 * feedback callbacks and present event then run from the event loop. Which
 * waveform drew an area is noted for the area's feedback on the way.
 */
#include <stdlib.h>
#include <time.h>
#include <wlr/interfaces/wlr_output.h>

#include "backend.h"

/*
 * Callbacks and present events run from the event loop, never inside a
 * commit, so that wlroots has emitted the commit event first and a callback
 * that commits again finds the output in a consistent state.
 */
static void
dispatch_finished(void *data)
{
	struct vl_epd_output *output = data;

	output->finish_idle = NULL;
	output->dispatching = true;
	while (!wl_list_empty(&output->finished)) {
		struct vl_epd_commit *commit = wl_container_of(output->finished.next, commit, link);
		wl_list_remove(&commit->link);
		vl_epd_commit_call_feedback(commit, commit->settled);
		if (!output->destroyed) {
			struct wlr_output_event_present present = {
				.output = &output->base,
				.commit_seq = commit->seq,
				.presented = commit->settled,
				.when = &commit->when,
			};
			wlr_output_send_present(&output->base, &present);
		}
		vl_epd_commit_free(commit);
	}
	output->dispatching = false;
	if (output->destroyed)
		free(output);
}

void
vl_epd_commit_finish(struct vl_epd_output *output, struct vl_epd_commit *commit, bool settled)
{
	commit->settled = settled;
	clock_gettime(CLOCK_MONOTONIC, &commit->when);
	wl_list_remove(&commit->link);
	wl_list_insert(output->finished.prev, &commit->link);
	if (!output->finish_idle && !output->dispatching)
		output->finish_idle =
			wl_event_loop_add_idle(output->backend->loop, dispatch_finished, output);
}

void
vl_epd_commit_call_feedback(struct vl_epd_commit *commit, bool settled)
{
	struct vl_epd_feedback feedback = {
		.settled = settled,
		.when = commit->when,
	};
	struct vl_epd_feedback_entry *entry;

	wl_array_for_each (entry, &commit->feedback) {
		if (!entry->func)
			continue;
		if (entry->owner != 0) {
			feedback.waveform = entry->waveform ? entry->waveform : "";
			feedback.flashed = entry->flashed;
		} else {
			feedback.waveform = commit->waveform;
			feedback.flashed = commit->flashed;
		}
		entry->func(&feedback, entry->data);
	}
}

void
vl_epd_commit_free(struct vl_epd_commit *commit)
{
	wl_array_release(&commit->feedback);
	free(commit);
}

static bool
has_owner(const struct wl_array *entries, size_t size, uint64_t owner)
{
	const struct vl_epd_feedback_entry *entry = entries->data;

	for (size_t i = 0; i < size / sizeof(*entry); i++)
		if (entry[i].owner == owner)
			return true;
	return false;
}

/*
 * An owner's area is superseded only by the owner's newer content: feedback
 * of owners that did not change since goes with the newer commit, which
 * shows their content too.
 */
static void
carry_over(struct vl_epd_commit *commit, struct wl_array *newer, size_t newer_size)
{
	struct vl_epd_feedback_entry *entry;

	wl_array_for_each (entry, &commit->feedback) {
		if (entry->owner == 0 || !entry->func || has_owner(newer, newer_size, entry->owner))
			continue;
		struct vl_epd_feedback_entry *moved = wl_array_add(newer, sizeof(*moved));
		if (!moved)
			continue; /* discarded instead: still exactly one call */
		*moved = *entry;
		entry->func = NULL;
	}
}

/*
 * Commits whose content is not part of a flush yet are superseded by newer
 * content, whose feedback is newer (NULL: nothing newer will show them).
 */
void
vl_epd_output_discard_pending(struct vl_epd_output *output, struct wl_array *newer)
{
	struct vl_epd_commit *commit, *tmp;
	size_t newer_size = newer ? newer->size : 0;

	wl_list_for_each_safe (commit, tmp, &output->commits, link) {
		if (commit->flush_id != 0)
			continue;
		if (newer)
			carry_over(commit, newer, newer_size);
		vl_epd_commit_finish(output, commit, false);
	}
}

/*
 * Feedback on an area names the waveform that drew most of it, over every
 * flush that took part of the commit's content.
 */
void
vl_epd_commit_name_waveforms(struct vl_epd_commit *commit, const struct vl_epd_flush_record *record)
{
	struct vl_epd_feedback_entry *entry;

	wl_array_for_each (entry, &commit->feedback) {
		if (entry->owner == 0)
			continue;
		for (size_t i = 0; i < record->n; i++) {
			const pixman_box32_t *box = &record->boxes[i];
			pixman_box32_t overlap = {
				box->x1 > entry->area.x1 ? box->x1 : entry->area.x1,
				box->y1 > entry->area.y1 ? box->y1 : entry->area.y1,
				box->x2 < entry->area.x2 ? box->x2 : entry->area.x2,
				box->y2 < entry->area.y2 ? box->y2 : entry->area.y2,
			};
			if (overlap.x1 >= overlap.x2 || overlap.y1 >= overlap.y2)
				continue;
			uint64_t area = vl_epd_box_area(&overlap);
			entry->flashed |= record->flashing[i];
			if (area > entry->drawn) {
				entry->drawn = area;
				entry->waveform = record->waveforms[i];
			}
		}
	}
}
