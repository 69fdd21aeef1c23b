// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * epdfb - the trace of completed updates, and the counters' text
 *
 * The last EPDFB_TRACE_LEN updates the panel completed, in a ring, and the
 * line each one is in debugfs' updates file (and in the userspace model's
 * trace); the text of debugfs' stats file, which the userspace model
 * answers too.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string_helpers.h>

#include "epdfb_drv.h"
#include "epdfb_queue.h"

void epdfb_trace_add(struct epdfb_par *par,
		     const struct epdfb_update *upd)
{
	struct epdfb_trace_entry *e = &par->trace[par->trace_head];

	e->marker = upd->n_markers ? upd->markers[0] : 0;
	e->waveform = upd->waveform;
	e->mode = upd->mode;
	e->flags = upd->flags;
	e->rect = upd->deferred ? upd->whole : upd->rect;
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
 * Updates in flight, an update and its resubmission counted once: queued
 * while the resubmission is (it has not started, the update waits for it),
 * else in flight. A resubmission starts with a start time.
 */
static unsigned int epdfb_count_in_flight(struct epdfb_par *par)
{
	struct epdfb_update *upd;
	unsigned int n = 0;

	list_for_each_entry(upd, &par->in_flight, node)
		n += !upd->twin || (!upd->deferred && upd->twin->start_ns);
	return n;
}

/**
 * epdfb_stats_text() - the text of the debugfs stats file
 * @par: device
 * @buf: the text, a "key: value" line each, NUL-terminated
 * @size: size of @buf; EPDFB_STATS_TEXT_LEN holds the whole text
 *
 * Called with par->lock held. The panel model in userspace answers its
 * counters with this too: one format for the tools that read either.
 *
 * Return: the text's length, as scnprintf().
 */
int epdfb_stats_text(struct epdfb_par *par, char *buf, size_t size)
{
	const struct epdfb_stats *s = &par->stats;
	unsigned int i;
	int n = 0;
	u32 rem;
	u64 ghost;
	char key[32];

	lockdep_assert_held(&par->lock);
	n += scnprintf(buf + n, size - n, "updates_submitted: %llu\n",
		       s->updates_submitted);
	n += scnprintf(buf + n, size - n, "updates_completed: %llu\n",
		       s->updates_completed);
	n += scnprintf(buf + n, size - n, "updates_merged: %llu\n",
		       s->updates_merged);
	n += scnprintf(buf + n, size - n, "updates_cancelled: %llu\n",
		       s->updates_cancelled);
	n += scnprintf(buf + n, size - n, "updates_refused: %llu\n",
		       s->updates_refused);
	n += scnprintf(buf + n, size - n, "updates_failed: %llu\n",
		       s->updates_failed);
	n += scnprintf(buf + n, size - n, "capture_errors: %llu\n",
		       s->capture_errors);
	n += scnprintf(buf + n, size - n, "update_errors: %llu\n",
		       s->update_errors);
	n += scnprintf(buf + n, size - n, "update_timeouts: %llu\n",
		       s->update_timeouts);
	n += scnprintf(buf + n, size - n, "temperature_errors: %llu\n",
		       s->temperature_errors);
	n += scnprintf(buf + n, size - n, "collisions: %llu\n", s->collisions);
	n += scnprintf(buf + n, size - n, "pixels_driven: %llu\n",
		       s->pixels_driven);
	n += scnprintf(buf + n, size - n, "flashes: %llu\n", s->flashes);
	for (i = 0; i < par->ops->n_waveforms; i++) {
		const struct epdfb_waveform *wf = &par->ops->waveforms[i];

		if (wf->id >= ARRAY_SIZE(s->per_waveform))
			continue;
		snprintf(key, sizeof(key), "waveform_%s", wf->name);
		string_lower(key, key);
		n += scnprintf(buf + n, size - n, "%s: %llu\n", key,
			       s->per_waveform[wf->id]);
	}
	n += scnprintf(buf + n, size - n, "defio_runs: %llu\n", s->defio_runs);
	n += scnprintf(buf + n, size - n, "defio_pages: %llu\n",
		       s->defio_pages);
	ghost = div_u64_rem(par->ops->ghost_milli(par), 1000, &rem);
	n += scnprintf(buf + n, size - n, "ghost_mean: %llu.%03u\n", ghost,
		       rem);
	n += scnprintf(buf + n, size - n, "temperature: %d\n",
		       par->ambient_temp);
	n += scnprintf(buf + n, size - n, "power: %s\n",
		       par->powered ? "on" : "off");
	n += scnprintf(buf + n, size - n, "power_downs: %llu\n",
		       s->power_downs);
	n += scnprintf(buf + n, size - n, "power_down_ns: %llu\n",
		       par->power_down_ns);
	n += scnprintf(buf + n, size - n, "in_flight: %u\n",
		       epdfb_count_in_flight(par));
	n += scnprintf(buf + n, size - n, "queued: %u\n", par->n_queued);
	n += scnprintf(buf + n, size - n, "queued_limit: %u\n",
		       EPDFB_MAX_QUEUED);
	n += scnprintf(buf + n, size - n, "held: %u\n", par->held ? 1 : 0);
	n += scnprintf(buf + n, size - n, "snapshot_bytes: %zu\n",
		       par->snapshot_bytes);
	n += scnprintf(buf + n, size - n, "snapshot_limit: %zu\n",
		       par->snapshot_limit);
	return n;
}

/**
 * epdfb_stats_reset() - zero the counters, as a write to debugfs' stats does
 * @par: device
 *
 * Called with par->lock held. What is not a count (the temperature, the
 * power state, the queue's fill) stays: it says how the panel is now.
 */
void epdfb_stats_reset(struct epdfb_par *par)
{
	lockdep_assert_held(&par->lock);
	memset(&par->stats, 0, sizeof(par->stats));
}
