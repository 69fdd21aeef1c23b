// SPDX-License-Identifier: GPL-2.0-only
/*
 * epdfb - what the panel's updates took from the framebuffer
 *
 * In AUTOMATIC mode the pages a client writes become full-width bands of
 * rows. A client that also sends its own updates (mxc software) would pay
 * for every change twice: its update, then the band over the same pixels.
 * So every update records the framebuffer bytes it takes, just before it
 * takes them, and the pages an explicit update took some of. Deferred IO
 * then sends, of such a page, only the rows that differ from what was
 * taken: pixels written after the update took them differ and still go
 * out, whenever they were written, as the page is write-protected again
 * before deferred IO reads it. Pages no explicit update took go out whole,
 * as before: a client that only writes gets the bands it always had.
 */

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "epdfb_fb.h"

/* Called by the queue with par->lock held; see struct epdfb_par. */
static void epdfb_taken_record(struct epdfb_par *par,
			       const struct epdfb_update *upd)
{
	struct epdfb_taken *taken = &epdfb_fb(par)->taken;
	u32 bytes_pp = par->bpp / 8;
	size_t start, len, page;
	u32 y;

	lockdep_assert_held(&par->lock);
	len = (size_t)upd->rect.width * bytes_pp;
	for (y = upd->rect.top; y < upd->rect.top + upd->rect.height; y++) {
		start = (size_t)y * par->line_length +
			(size_t)upd->rect.left * bytes_pp;
		memcpy(taken->bytes + start, par->screen + start, len);
		if (upd->automatic)
			continue;
		for (page = start >> PAGE_SHIFT;
		     page <= (start + len - 1) >> PAGE_SHIFT; page++)
			set_bit(page, taken->pages);
	}
}

/**
 * epdfb_taken_init() - start the record: the panel and the framebuffer
 *	start white
 * @par: device, its framebuffer allocated
 *
 * Return: 0 or -ENOMEM.
 */
int epdfb_taken_init(struct epdfb_par *par)
{
	struct epdfb_taken *taken = &epdfb_fb(par)->taken;
	size_t size = par->info->fix.smem_len;

	taken->bytes = vmalloc(size);
	if (!taken->bytes)
		return -ENOMEM;
	memset(taken->bytes, 0xff, size);
	taken->pages = bitmap_zalloc(size >> PAGE_SHIFT, GFP_KERNEL);
	if (!taken->pages) {
		vfree(taken->bytes);
		return -ENOMEM;
	}
	par->captured = epdfb_taken_record;
	return 0;
}

/**
 * epdfb_taken_fini() - free the record
 * @par: device, no update left to start
 */
void epdfb_taken_fini(struct epdfb_par *par)
{
	struct epdfb_taken *taken = &epdfb_fb(par)->taken;

	par->captured = NULL;
	bitmap_free(taken->pages);
	vfree(taken->bytes);
}

/**
 * epdfb_taken_changed_rows() - the rows of a dirty page deferred IO sends
 * @par: device
 * @offset: the page's offset in the framebuffer
 * @first: the first row to send
 * @last: the row after the last one to send
 *
 * Called by deferred IO for each page it goes over, after the page was
 * write-protected: what is written from then on makes the page dirty
 * again. For a page an explicit update took some of since, the rows whose
 * bytes in the page differ from what was taken; for any other page, every
 * row it touches.
 *
 * Return: whether there is any row to send.
 */
bool epdfb_taken_changed_rows(struct epdfb_par *par, unsigned long offset,
			      u32 *first, u32 *last)
{
	struct epdfb_taken *taken = &epdfb_fb(par)->taken;
	size_t used = (size_t)par->line_length * par->height;
	size_t end = min_t(size_t, offset + PAGE_SIZE, used);
	u32 top, bottom, y;
	size_t start, stop;
	bool changed = false;

	if (offset >= used)
		return false;
	top = offset / par->line_length;
	bottom = (end - 1) / par->line_length + 1;
	*first = top;
	*last = bottom;
	if (!test_and_clear_bit(offset >> PAGE_SHIFT, taken->pages))
		return true;

	mutex_lock(&par->lock);
	for (y = top; y < bottom; y++) {
		start = max_t(size_t, (size_t)y * par->line_length, offset);
		stop = min_t(size_t, (size_t)(y + 1) * par->line_length, end);
		if (!memcmp(par->screen + start, taken->bytes + start,
			    stop - start))
			continue;
		if (!changed)
			*first = y;
		changed = true;
		*last = y + 1;
	}
	mutex_unlock(&par->lock);
	return changed;
}
