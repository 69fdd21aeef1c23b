/* SPDX-License-Identifier: MIT */
/*
 * The uapi fbdev header, and the two kernel types the model's device
 * structure embeds or points to, which it never uses here.
 */
#include "../kernel-shim.h"
#include_next <linux/fb.h>
struct fb_info;
struct fb_deferred_io {
	int unused;
};
