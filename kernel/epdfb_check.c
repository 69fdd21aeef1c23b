// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * epdfb - the checks of an update request, before it reaches the queue;
 * the ioctls and the panel model's userspace build make the same ones
 */

#include "epdfb_drv.h"

#define EPDFB_KNOWN_FLAGS (EPDC_FLAG_ENABLE_INVERSION | \
			   EPDC_FLAG_FORCE_MONOCHROME | \
			   EPDC_FLAG_USE_ALT_BUFFER | \
			   EPDC_FLAG_USE_DITHERING_Y1 | \
			   EPDC_FLAG_USE_DITHERING_Y4)

/**
 * epdfb_temp_valid() - whether a temperature is one the waveforms cover
 * @temp: degrees C
 *
 * Return: true for EPDFB_TEMP_MIN to EPDFB_TEMP_MAX.
 */
bool epdfb_temp_valid(int temp)
{
	return temp >= EPDFB_TEMP_MIN && temp <= EPDFB_TEMP_MAX;
}

/* The u32 sums are written as subtractions so that they cannot overflow. */
static bool epdfb_rect_valid(const struct epdfb_par *par,
			     const struct mxcfb_rect *r)
{
	return r->width && r->height &&
	       r->width <= par->width && r->left <= par->width - r->width &&
	       r->height <= par->height && r->top <= par->height - r->height;
}

/**
 * epdfb_check_update() - validate an update request
 * @par: device
 * @req: the request as passed by userspace
 *
 * Return: 0, -EPERM for an alternate buffer (a physical address from
 * userspace is never trusted), or -EINVAL for anything else the driver does
 * not know.
 */
int epdfb_check_update(const struct epdfb_par *par,
		       const struct mxcfb_update_data *req)
{
	if (req->flags & ~EPDFB_KNOWN_FLAGS)
		return -EINVAL;
	if (req->flags & EPDC_FLAG_USE_ALT_BUFFER)
		return -EPERM;
	if (!epdfb_rect_valid(par, &req->update_region))
		return -EINVAL;
	if (req->waveform_mode != WAVEFORM_MODE_AUTO &&
	    !epdfb_find_waveform(par, req->waveform_mode))
		return -EINVAL;
	if (req->update_mode != UPDATE_MODE_PARTIAL &&
	    req->update_mode != UPDATE_MODE_FULL)
		return -EINVAL;
	if (req->temp != TEMP_USE_AMBIENT && !epdfb_temp_valid(req->temp))
		return -EINVAL;
	return 0;
}
