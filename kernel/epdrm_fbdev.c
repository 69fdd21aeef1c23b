// SPDX-License-Identifier: GPL-2.0-only
/*
 * epdrm - the fbdev emulation, and who is using it
 *
 * The emulation is drm_fbdev_ttm's (a vmalloc shadow that deferred IO maps
 * and blits into the GEM buffer), set up by a DRM client of epdrm's own so
 * that its fb_open and fb_release can count who holds /dev/fbN: programs
 * that open it and fbcon when it binds to it. The plane's atomic_update
 * reads that count to decide whether the restore that follows the last KMS
 * master is drawn. It cannot ask the fbdev core: the open count and fbcon's
 * binding are under the fb_info lock and the console lock, which are held
 * by the very tasks (FBIOPUT_VSCREENINFO, pan, fbcon) whose commits reach
 * atomic_update.
 */

#include <drm/drm_client.h>
#include <drm/drm_fb_helper.h>
#include <drm/drm_fbdev_ttm.h>
#include <drm/drm_print.h>
#include <linux/fb.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "epdrm_drv.h"

static struct epdrm_device *epdrm_from_info(struct fb_info *info)
{
	struct drm_fb_helper *helper = info->par;

	return to_epdrm(helper->dev);
}

/*
 * @user: 1 for a program opening /dev/fbN, 0 for fbcon binding to it.
 * The fbdev core holds this module (the operations' owner) for either.
 */
static int epdrm_fbdev_open(struct fb_info *info, int user)
{
	atomic_inc(&epdrm_from_info(info)->fbdev_users);
	return 0;
}

static int epdrm_fbdev_release(struct fb_info *info, int user)
{
	atomic_dec(&epdrm_from_info(info)->fbdev_users);
	return 0;
}

/* What drm_fbdev_ttm_driver_fbdev_probe() set up, undone. */
static void epdrm_fbdev_destroy(struct fb_info *info)
{
	struct drm_fb_helper *helper = info->par;
	void *shadow = info->screen_buffer;

	if (!helper->dev)
		return;
	fb_deferred_io_cleanup(info);
	drm_fb_helper_fini(helper);
	vfree(shadow);
	drm_client_framebuffer_delete(helper->buffer);
	drm_client_release(&helper->client);
	drm_fb_helper_unprepare(helper);
	kfree(helper);
}

FB_GEN_DEFAULT_DEFERRED_SYSMEM_OPS(epdrm_fbdev, drm_fb_helper_damage_range,
				   drm_fb_helper_damage_area);

static const struct fb_ops epdrm_fbdev_ops = {
	.owner = THIS_MODULE,
	.fb_open = epdrm_fbdev_open,
	.fb_release = epdrm_fbdev_release,
	FB_DEFAULT_DEFERRED_OPS(epdrm_fbdev),
	DRM_FB_HELPER_DEFAULT_OPS,
	.fb_destroy = epdrm_fbdev_destroy,
};

static int epdrm_fbdev_probe(struct drm_fb_helper *helper,
			     struct drm_fb_helper_surface_size *sizes)
{
	struct epdrm_device *epd = to_epdrm(helper->dev);
	int ret;

	ret = drm_fbdev_ttm_driver_fbdev_probe(helper, sizes);
	if (ret)
		return ret;
	/* The same emulation, with its opens counted. */
	helper->info->fbops = &epdrm_fbdev_ops;
	/*
	 * The probe put in the emulation's helper functions (its damage
	 * blit); a later probe must still be this one.
	 */
	epd->fbdev_funcs = *helper->funcs;
	epd->fbdev_funcs.fb_probe = epdrm_fbdev_probe;
	helper->funcs = &epd->fbdev_funcs;
	return 0;
}

static const struct drm_fb_helper_funcs epdrm_fbdev_helper_funcs = {
	.fb_probe = epdrm_fbdev_probe,
};

static void epdrm_fbdev_client_unregister(struct drm_client_dev *client)
{
	struct drm_fb_helper *helper = drm_fb_helper_from_client(client);

	/* With an fb_info, its fb_destroy frees the rest when it is let go. */
	if (helper->info) {
		drm_fb_helper_unregister_info(helper);
		return;
	}
	drm_client_release(client);
	drm_fb_helper_unprepare(helper);
	kfree(helper);
}

static int epdrm_fbdev_client_restore(struct drm_client_dev *client,
				      bool force)
{
	drm_fb_helper_restore_fbdev_mode_unlocked(client->dev->fb_helper, force);
	return 0;
}

static int epdrm_fbdev_client_hotplug(struct drm_client_dev *client)
{
	struct drm_fb_helper *helper = drm_fb_helper_from_client(client);
	struct drm_device *drm = client->dev;
	int ret;

	if (drm->fb_helper)
		return drm_fb_helper_hotplug_event(drm->fb_helper);
	ret = drm_fb_helper_init(drm, helper);
	if (ret)
		goto err;
	ret = drm_fb_helper_initial_config(helper);
	if (ret) {
		drm_fb_helper_fini(helper);
		goto err;
	}
	return 0;

err:
	drm_err(drm, "fbdev: emulation not set up: %d\n", ret);
	return ret;
}

static const struct drm_client_funcs epdrm_fbdev_client_funcs = {
	.owner = THIS_MODULE,
	.unregister = epdrm_fbdev_client_unregister,
	.restore = epdrm_fbdev_client_restore,
	.hotplug = epdrm_fbdev_client_hotplug,
};

/* After drm_dev_register(); drm_dev_unregister() takes the emulation down. */
void epdrm_fbdev_setup(struct epdrm_device *epd, unsigned int bpp)
{
	struct drm_fb_helper *helper;
	int ret;

	helper = kzalloc(sizeof(*helper), GFP_KERNEL);
	if (!helper)
		return;
	drm_fb_helper_prepare(&epd->drm, helper, bpp,
			      &epdrm_fbdev_helper_funcs);
	ret = drm_client_init(&epd->drm, &helper->client, "fbdev",
			      &epdrm_fbdev_client_funcs);
	if (ret) {
		drm_err(&epd->drm, "fbdev: no client: %d\n", ret);
		drm_fb_helper_unprepare(helper);
		kfree(helper);
		return;
	}
	drm_client_register(&helper->client);
}

/* Whether a program holds /dev/fbN open or fbcon is bound to it. */
bool epdrm_fbdev_in_use(struct epdrm_device *epd)
{
	return atomic_read(&epd->fbdev_users) > 0;
}
