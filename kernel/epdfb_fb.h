/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * epdfb - what only the fbdev driver has beside the panel model: the
 * waveform numbering of the platform its clients come from, and its record
 * of what the panel's updates took from the framebuffer
 */
#ifndef _EPDFB_FB_H
#define _EPDFB_FB_H

#include <linux/types.h>

#include "epdfb_drv.h"

/**
 * struct epdfb_taken - what the panel's updates last took from the
 *	framebuffer, so that deferred IO does not send again what an explicit
 *	update already showed
 * @bytes: per framebuffer byte, its value when an update last took it;
 *	written with par->lock held, just before the update reads the
 *	framebuffer
 * @pages: framebuffer pages an explicit update took some of since deferred
 *	IO last went over them: deferred IO sends only the rows of theirs that
 *	differ from @bytes
 */
struct epdfb_taken {
	u8 *bytes;
	unsigned long *pages;
};

/**
 * struct epdfb_fb - one epdfb device: the panel model's device and epdfb's
 *	own state, allocated together as the fbdev device's par
 * @par: the panel model's device; info->par points here
 * @taken: see struct epdfb_taken
 */
struct epdfb_fb {
	struct epdfb_par par;
	struct epdfb_taken taken;
};

static inline struct epdfb_fb *epdfb_fb(struct epdfb_par *par)
{
	return container_of(par, struct epdfb_fb, par);
}

/* The id no platform uses, which the panel has no waveform for. */
#define EPDFB_WAVEFORM_NONE	U32_MAX

/* epdfb_numbering.c */
u32 epdfb_numbering_to_panel(u32 id);
bool epdfb_numbering_listed(u32 id);

/* epdfb_taken.c */
int epdfb_taken_init(struct epdfb_par *par);
void epdfb_taken_fini(struct epdfb_par *par);
bool epdfb_taken_changed_rows(struct epdfb_par *par, unsigned long offset,
			      u32 *first, u32 *last);

#endif /* _EPDFB_FB_H */
