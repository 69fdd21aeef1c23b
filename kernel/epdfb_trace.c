// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * epdfb - the trace of completed updates
 *
 * The last EPDFB_TRACE_LEN updates the panel completed, in a ring, and the
 * line each one is in debugfs' updates file (and in the userspace model's
 * trace).
 */
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
