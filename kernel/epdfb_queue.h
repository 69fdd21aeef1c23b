/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * epdfb - what the update queue's files share: epdfb_queue.c (the queue),
 * epdfb_marker.c (waits for markers) and epdfb_trace.c (the trace). The
 * functions that take a device are called with par->lock held.
 */
#ifndef EPDFB_QUEUE_H
#define EPDFB_QUEUE_H

#include "epdfb_drv.h"

static inline bool
epdfb_rects_overlap(const struct mxcfb_rect *a, const struct mxcfb_rect *b)
{
	return a->left < b->left + b->width && b->left < a->left + a->width &&
	       a->top < b->top + b->height && b->top < a->top + a->height;
}

/* epdfb_marker.c */
bool epdfb_update_has_marker(const struct epdfb_update *upd, u32 marker);
bool epdfb_marker_pending(struct epdfb_par *par, u32 marker);
void epdfb_marker_waits_follow(struct epdfb_par *par,
			       const struct epdfb_update *upd, u64 now);
void epdfb_marker_record(struct epdfb_par *par, u32 marker, bool collided,
			 int error);
void epdfb_marker_wake(struct epdfb_par *par, u32 marker, bool collided,
		       int error);
void epdfb_pending_wake(struct epdfb_par *par, u64 retired);
void epdfb_marker_cancel_waits(struct epdfb_par *par);

/* epdfb_trace.c */
void epdfb_trace_add(struct epdfb_par *par, const struct epdfb_update *upd);

#endif
