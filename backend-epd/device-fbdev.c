// SPDX-License-Identifier: MIT
/*
 * Framebuffer devices: epdfb (waveforms discovered through
 * EPDFB_GET_WAVEFORM), NXP mxc_epdc_fb (same ioctls, the BSP's waveform
 * table unless a map from configuration numbers them) and plain deferred-IO
 * fbdev drivers, driven by writing and fsync().
 */
#include <epdfb.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fb.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device.h"

struct fbdev_device {
	struct vl_epd_device base;
	int fd;
	/* all of the framebuffer memory; base.pixels is its visible part */
	uint8_t *map;
	size_t map_size;
	/* entered REGION mode, so release has a mode and scheme to put back */
	bool changed_modes;
	uint32_t startup_auto_mode, startup_scheme;
	atomic_bool released, restored;
	/* marker waits in the driver right now (the backend's wait thread) */
	atomic_int waits;
	/* the kernel's device events, which tell when the device may be gone */
	int uevent_fd;
};

static struct fbdev_device *
fbdev_from_device(struct vl_epd_device *dev)
{
	return (struct fbdev_device *)dev;
}

static bool
mxc_submit(struct vl_epd_device *dev, const struct vl_epd_update *update)
{
	struct fbdev_device *fb = fbdev_from_device(dev);
	struct mxcfb_update_data data = vl_epd_update_request(update);

	return ioctl(fb->fd, MXCFB_SEND_UPDATE, &data) == 0;
}

/*
 * Gives the framebuffer back to the console and to whatever runs next, in
 * the auto-update mode and scheme the driver started in; once.
 */
static void
restore_modes(struct fbdev_device *fb)
{
	if (!fb->changed_modes || atomic_exchange(&fb->restored, true))
		return;
	/*
	 * Deferred IO still pending for the backend's own writes runs now, in
	 * REGION mode, where it submits nothing: in AUTOMATIC mode it would
	 * refresh what the panel already shows.
	 */
	fsync(fb->fd);
	ioctl(fb->fd, MXCFB_SET_UPDATE_SCHEME, &fb->startup_scheme);
	ioctl(fb->fd, MXCFB_SET_AUTO_UPDATE_MODE, &fb->startup_auto_mode);
}

static int
mxc_wait(struct vl_epd_device *dev, uint32_t marker)
{
	struct fbdev_device *fb = fbdev_from_device(dev);
	struct mxcfb_update_marker_data data = {.update_marker = marker};
	int ret = 0;

	atomic_fetch_add(&fb->waits, 1);
	while (ioctl(fb->fd, MXCFB_WAIT_FOR_UPDATE_COMPLETE, &data) < 0) {
		if (errno != EINTR) {
			ret = -errno;
			break;
		}
	}
	atomic_fetch_sub(&fb->waits, 1);
	/* A release that came during this wait left the modes to it (fbdev_release). */
	if (atomic_load(&fb->released))
		restore_modes(fb);
	return ret;
}

/* Deferred IO picks the written pages up; fsync() runs it at once. */
static bool
plain_submit(struct vl_epd_device *dev, const struct vl_epd_update *update)
{
	(void)update;
	return fsync(fbdev_from_device(dev)->fd) == 0;
}

static int
plain_wait(struct vl_epd_device *dev, uint32_t marker)
{
	(void)dev;
	(void)marker;
	return 0;
}

/*
 * mxc_epdc_fb keeps the fbdev lock during a marker wait, and every ioctl
 * takes it: with a wait in progress, the thread that waits restores the
 * modes when its wait returns, so that release never blocks for a
 * waveform. Either this load or the waiter's sees the other's store.
 */
static void
fbdev_release(struct vl_epd_device *dev)
{
	struct fbdev_device *fb = fbdev_from_device(dev);

	atomic_store(&fb->released, true);
	if (atomic_load(&fb->waits) == 0)
		restore_modes(fb);
}

static int
fbdev_removal_fd(struct vl_epd_device *dev)
{
	return fbdev_from_device(dev)->uevent_fd;
}

/*
 * Which device an event is about does not matter: the framebuffer's own
 * removal comes before the fbdev core lets go of it, so the question is
 * asked again at each event after it (the platform device's unbind, at
 * least). A removed framebuffer answers every call with ENODEV. A read
 * asks without the fbdev lock, which ioctls take and an mxc_epdc_fb marker
 * wait holds for a whole waveform: the event loop must not wait for that.
 */
static bool
fbdev_removed(struct vl_epd_device *dev)
{
	struct fbdev_device *fb = fbdev_from_device(dev);
	uint8_t pixel;

	vl_epd_drain_uevents(fb->uevent_fd);
	return pread(fb->fd, &pixel, 1, 0) < 0 && errno == ENODEV;
}

/* The last reference is gone: no wait can be in progress. */
static void
fbdev_destroy(struct vl_epd_device *dev)
{
	struct fbdev_device *fb = fbdev_from_device(dev);

	if (fb->uevent_fd >= 0)
		close(fb->uevent_fd);
	if (fb->fd >= 0)
		restore_modes(fb);
	if (fb->map)
		munmap(fb->map, fb->map_size);
	if (fb->fd >= 0)
		close(fb->fd);
	free(fb);
}

static const struct vl_epd_device_impl mxc_impl = {
	.name = "mxc_epdc_fb",
	.submit = mxc_submit,
	.wait = mxc_wait,
	.release = fbdev_release,
	.removal_fd = fbdev_removal_fd,
	.removed = fbdev_removed,
	.destroy = fbdev_destroy,
};

static const struct vl_epd_device_impl epdfb_impl = {
	.name = "epdfb",
	.submit = mxc_submit,
	.wait = mxc_wait,
	.release = fbdev_release,
	.removal_fd = fbdev_removal_fd,
	.removed = fbdev_removed,
	.destroy = fbdev_destroy,
};

static const struct vl_epd_device_impl plain_impl = {
	.name = "fbdev",
	.submit = plain_submit,
	.wait = plain_wait,
	.release = fbdev_release,
	.removal_fd = fbdev_removal_fd,
	.removed = fbdev_removed,
	.destroy = fbdev_destroy,
};

static bool
get_waveform(struct epdfb_waveform_info *info, void *data)
{
	struct fbdev_device *fb = data;

	return ioctl(fb->fd, EPDFB_GET_WAVEFORM, info) == 0;
}

static bool
discover_waveforms(struct fbdev_device *fb)
{
	vl_epd_read_waveforms(&fb->base.waveforms, get_waveform, fb);
	return fb->base.waveforms.n > 0;
}

/*
 * The update API can set the auto-update mode and the update scheme but not
 * read them back, so what release puts back is the state the driver starts
 * in: for epdfb the mode of its auto_update parameter and QUEUE_AND_MERGE;
 * for NXP's mxc_epdc_fb REGION mode and SNAPSHOT, as its BSP starts it. A
 * mode some other program set before the backend opened the device is lost.
 */
static void
note_startup_modes(struct fbdev_device *fb, bool epdfb)
{
	char value[8] = "";

	fb->startup_auto_mode = AUTO_UPDATE_MODE_REGION_MODE;
	fb->startup_scheme = UPDATE_SCHEME_SNAPSHOT;
	if (!epdfb)
		return;
	fb->startup_scheme = UPDATE_SCHEME_QUEUE_AND_MERGE;
	/* Module parameters are there for a built-in driver too; "Y" is the default. */
	FILE *f = fopen("/sys/module/epdfb/parameters/auto_update", "re");
	if (f) {
		if (!fgets(value, sizeof(value), f))
			value[0] = '\0';
		fclose(f);
	}
	if (value[0] != 'N' && value[0] != 'n' && value[0] != '0')
		fb->startup_auto_mode = AUTO_UPDATE_MODE_AUTOMATIC_MODE;
}

/* Updates come from the backend only: deferred IO must not add row bands. */
static bool
enter_region_mode(struct fbdev_device *fb, const struct fb_fix_screeninfo *fix)
{
	uint32_t mode = AUTO_UPDATE_MODE_REGION_MODE;
	uint32_t scheme = UPDATE_SCHEME_QUEUE_AND_MERGE;

	note_startup_modes(fb, strncmp(fix->id, "epdfb", sizeof(fix->id)) == 0);
	fb->changed_modes = true;
	return ioctl(fb->fd, MXCFB_SET_AUTO_UPDATE_MODE, &mode) == 0 &&
	       ioctl(fb->fd, MXCFB_SET_UPDATE_SCHEME, &scheme) == 0;
}

/*
 * A panned framebuffer shows the rows from var.yoffset (and the columns from
 * var.xoffset) of a larger virtual one: the panel shows, and the EPDC
 * drivers take an update's pixels from, that visible part only.
 */
static bool
map_visible_area(struct fbdev_device *fb, const char *path, const struct fb_var_screeninfo *var,
	const struct fb_fix_screeninfo *fix, char *error, size_t error_size)
{
	size_t pixel_size = var->bits_per_pixel / 8;
	size_t offset = (size_t)var->yoffset * fix->line_length + (size_t)var->xoffset * pixel_size;
	size_t end = offset + (size_t)fix->line_length * (var->yres - 1) + var->xres * pixel_size;

	if (var->yoffset && (var->vmode & FB_VMODE_YWRAP)) {
		snprintf(error, error_size,
			"%s wraps its display around at y offset %u, which cannot be drawn into "
			"as one image",
			path, var->yoffset);
		return false;
	}
	if (var->xres == 0 || var->yres == 0 || fix->line_length < var->xres * pixel_size ||
		end > fix->smem_len) {
		snprintf(error, error_size,
			"%s: its visible %ux%u at %u,%u lies outside its %u bytes of memory", path,
			var->xres, var->yres, var->xoffset, var->yoffset, fix->smem_len);
		return false;
	}
	fb->map_size = fix->smem_len;
	fb->map = mmap(NULL, fb->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fb->fd, 0);
	if (fb->map == MAP_FAILED) {
		fb->map = NULL;
		snprintf(error, error_size, "cannot map %s: %s", path, strerror(errno));
		return false;
	}
	fb->base.pixels = fb->map + offset;
	return true;
}

enum fbdev_interface {
	FBDEV_RICHEST, /* whatever the driver answers to */
	FBDEV_MXC,     /* the mxc_epdc_fb update ioctls, even on epdfb */
	FBDEV_PLAIN,   /* writes and fsync() */
};

static bool
pick_driver(struct fbdev_device *fb, const struct fb_fix_screeninfo *fix,
	enum fbdev_interface interface)
{
	int32_t delay;

	if (interface == FBDEV_RICHEST && strncmp(fix->id, "epdfb", sizeof(fix->id)) == 0 &&
		discover_waveforms(fb) && enter_region_mode(fb, fix)) {
		fb->base.impl = &epdfb_impl;
		fb->base.has_update_ioctls = true;
		fb->base.retargets_fast = true;
		return true;
	}
	/* Only an EPDC driver answers this one. */
	if (interface != FBDEV_PLAIN && ioctl(fb->fd, MXCFB_GET_PWRDOWN_DELAY, &delay) == 0 &&
		enter_region_mode(fb, fix)) {
		vl_epd_waveform_table_default(&fb->base.waveforms);
		fb->base.impl = &mxc_impl;
		fb->base.has_update_ioctls = true;
		return true;
	}
	if (interface == FBDEV_MXC)
		return false;
	/* Writes become whatever updates the driver makes of them. */
	vl_epd_waveform_table_default(&fb->base.waveforms);
	fb->base.impl = &plain_impl;
	fb->base.has_update_ioctls = false;
	return true;
}

/*
 * Opens a framebuffer: "/dev/fbN" picks the richest driver interface it
 * finds, "mxc:/dev/fbN" insists on the mxc_epdc_fb update ioctls and
 * "plain:/dev/fbN" uses writes and fsync() only.
 */
struct vl_epd_device *
vl_epd_fbdev_open(const char *spec, char *error, size_t error_size)
{
	enum fbdev_interface interface = FBDEV_RICHEST;
	const char *path = spec;
	struct fb_var_screeninfo var;
	struct fb_fix_screeninfo fix;
	struct fbdev_device *fb;
	struct stat st;

	if (strncmp(spec, "plain:", 6) == 0) {
		interface = FBDEV_PLAIN;
		path += 6;
	} else if (strncmp(spec, "mxc:", 4) == 0) {
		interface = FBDEV_MXC;
		path += 4;
	}
	fb = calloc(1, sizeof(*fb));
	if (!fb) {
		snprintf(error, error_size, "out of memory");
		return NULL;
	}
	fb->uevent_fd = -1;
	fb->fd = open(path, O_RDWR | O_CLOEXEC);
	if (fb->fd < 0) {
		snprintf(error, error_size, "cannot open %s: %s", path, strerror(errno));
		goto err;
	}
	if (fstat(fb->fd, &st) < 0 || !S_ISCHR(st.st_mode) ||
		ioctl(fb->fd, FBIOGET_VSCREENINFO, &var) < 0 ||
		ioctl(fb->fd, FBIOGET_FSCREENINFO, &fix) < 0) {
		snprintf(error, error_size, "%s is not a framebuffer device", path);
		goto err;
	}
	if (var.bits_per_pixel != 8 && var.bits_per_pixel != 32) {
		snprintf(error, error_size,
			"%s has %u bits per pixel; only 8 (gray) and 32 (XRGB8888) are supported",
			path, var.bits_per_pixel);
		goto err;
	}
	fb->base.width = var.xres;
	fb->base.height = var.yres;
	fb->base.bpp = var.bits_per_pixel;
	/* fbdev says "unknown" with 0 or -1 in either. */
	if (var.width && var.height && var.width != UINT32_MAX && var.height != UINT32_MAX) {
		fb->base.width_mm = var.width;
		fb->base.height_mm = var.height;
	}
	fb->base.stride = fix.line_length;
	if (!map_visible_area(fb, path, &var, &fix, error, error_size))
		goto err;
	if (!pick_driver(fb, &fix, interface)) {
		snprintf(error, error_size, "%s does not take the mxc_epdc_fb update ioctls", path);
		goto err;
	}
	snprintf(fb->base.description, sizeof(fb->base.description), "%s (%s, %ux%u, %u bpp)", path,
		fb->base.impl->name, var.xres, var.yres, var.bits_per_pixel);
	fb->uevent_fd = vl_epd_open_uevent_socket();
	return &fb->base;

err:
	/* Whatever the driver was asked already, it goes back to how it was. */
	fb->base.impl = &plain_impl;
	fbdev_destroy(&fb->base);
	return NULL;
}
