// SPDX-License-Identifier: GPL-2.0-only
/*
 * epdrm - the simulated e-paper panel of epdfb as a DRM device
 *
 * Atomic KMS with GEM shmem buffers and fbdev emulation (a deferred-IO
 * /dev/fbN) in front of the same panel model, update queue and debugfs
 * files as epdfb. epdrm(4) documents the interface.
 */

#include <drm/drm_atomic_helper.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_modes.h>
#include <drm/drm_print.h>
#include <linux/debugfs.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/rcupdate.h>
#include <linux/vmalloc.h>

#include "epdrm_drv.h"

DEFINE_EPDFB_PANEL_PARAMS();

static struct dentry *epdrm_debugfs_root;

/*
 * epdrm's queue lock is taken where its settle fences signal, epdfb's
 * where epdfb's SNAPSHOT scheme allocates: to lockdep two locks of one
 * class, whose dependencies would join into a cycle that neither device
 * has. epdrm's lock is a class of its own.
 */
static struct lock_class_key epdrm_queue_lock_key;

static struct platform_device *epdrm_pdev;
/* Why the probe failed: registering the device does not say. */
static int epdrm_probe_error;

DEFINE_DRM_GEM_FOPS(epdrm_fops);

/*
 * A program became DRM master: the EPD_* properties the last one left read
 * as their defaults again (epdrm_kms.c), and whether it cleans its own
 * ghosts is yet to be seen.
 */
static void epdrm_master_set(struct drm_device *drm, struct drm_file *file,
			     bool from_open)
{
	struct epdrm_device *epd = to_epdrm(drm);

	atomic_inc(&epd->master_epoch);
	WRITE_ONCE(epd->master_sets_full, false);
}

static const struct drm_driver epdrm_driver = {
	.driver_features = DRIVER_MODESET | DRIVER_GEM | DRIVER_ATOMIC,
	.fops = &epdrm_fops,
	.master_set = epdrm_master_set,
	DRM_GEM_SHMEM_DRIVER_OPS,
	.name = "epdrm",
	.desc = "Simulated e-paper panel",
	.date = "20261205",
	.major = 1,
	.minor = 0,
};

/*
 * Runs when the last reference to the DRM device goes, after unbind and the
 * last close: nothing can submit updates any more.
 */
static void epdrm_release_panel(struct drm_device *drm, void *data)
{
	struct epdfb_par *par = data;

	par->ops->fini(par);
	epdfb_queue_fini(par);
	vfree(par->screen);
}

static int epdrm_init_panel(struct epdrm_device *epd, struct device *dev)
{
	struct epdfb_par *par = &epd->par;
	size_t size = (size_t)epdfb_panel.width * epdfb_panel.height;
	int ret;

	par->dev = dev;
	par->width = epdfb_panel.width;
	par->height = epdfb_panel.height;
	par->bpp = 8;
	par->line_length = par->width;
	par->time_scale = epdfb_panel.time_scale;
	par->ambient_temp = epdfb_panel.ambient_temp;
	/* Commits say what changed; the fbdev emulation's writes come as commits. */
	par->auto_update = AUTO_UPDATE_MODE_REGION_MODE;
	par->ops = &epdfb_sim_ops;
	mutex_init(&par->ioctl_lock);
	par->screen = vmalloc(size);
	if (!par->screen)
		return -ENOMEM;
	/* The panel starts white. */
	memset(par->screen, 0xff, size);
	ret = epdfb_queue_init(par);
	if (ret)
		goto err_vfree;
	lockdep_set_class(&par->lock, &epdrm_queue_lock_key);
	/*
	 * Pixels are read from the gray image when an update starts: later
	 * commits to the same area merge into a queued update rather than
	 * queue behind it.
	 */
	par->scheme = UPDATE_SCHEME_QUEUE_AND_MERGE;
	ret = par->ops->init(par);
	if (ret)
		goto err_queue;
	epdrm_settle_init(epd);
	epdrm_cleanup_init(epd);
	return drmm_add_action_or_reset(&epd->drm, epdrm_release_panel, par);

err_queue:
	epdfb_queue_fini(par);
err_vfree:
	vfree(par->screen);
	return ret;
}

static int epdrm_probe(struct platform_device *pdev)
{
	struct drm_display_mode mode = {
		DRM_SIMPLE_MODE(epdfb_panel.width, epdfb_panel.height,
				epdfb_panel.width_mm, epdfb_panel.height_mm),
	};
	struct epdrm_device *epd;
	char debugfs_name[16];
	int ret;

	epd = devm_drm_dev_alloc(&pdev->dev, &epdrm_driver,
				 struct epdrm_device, drm);
	if (IS_ERR(epd)) {
		ret = PTR_ERR(epd);
		goto err;
	}
	/*
	 * The rate compositors pace their frames by, and vblank ticks at:
	 * a display's. The panel takes what they commit at any rate, merging
	 * what comes faster than its waveforms.
	 */
	mode.clock = DIV_ROUND_UP(epdfb_panel.width * epdfb_panel.height *
				  EPDRM_REFRESH_HZ, 1000);
	epd->mode = mode;
	ret = epdrm_init_panel(epd, &pdev->dev);
	if (ret)
		goto err;
	ret = epdrm_kms_init(epd);
	if (ret)
		goto err;
	platform_set_drvdata(pdev, epd);
	ret = drm_dev_register(&epd->drm, 0);
	if (ret)
		goto err;
	snprintf(debugfs_name, sizeof(debugfs_name), "card%d",
		 epd->drm.primary->index);
	epdfb_debugfs_init(&epd->par, epdrm_debugfs_root, debugfs_name);
	/*
	 * XRGB8888: what fbdev programs expect most. The emulation with a
	 * shadow buffer in vmalloc memory, which deferred IO maps and which
	 * is blitted into the GEM buffer, not drm_fbdev_shmem's, which maps
	 * the shmem pages themselves: Linux 6.12's deferred IO points every
	 * page it maps at /dev/fbN's address_space, and shmem's truncation of
	 * such a page, when the buffer is freed, never ends. drm_fbdev_ttm
	 * is that emulation for any GEM object that vmaps, TTM or not.
	 */
	epdrm_fbdev_setup(epd, 32);
	drm_info(&epd->drm, "%ux%u simulated e-paper panel\n", epd->par.width,
		 epd->par.height);
	return 0;

err:
	epdrm_probe_error = ret;
	return ret;
}

/*
 * Processes may hold the device open or its buffers mapped: the DRM core
 * keeps the device for them, and every call fails from here on.
 */
static void epdrm_remove(struct platform_device *pdev)
{
	struct epdrm_device *epd = platform_get_drvdata(pdev);

	drm_dev_unplug(&epd->drm);
	drm_atomic_helper_shutdown(&epd->drm);
	epdrm_cleanup_cancel(epd);
	epdfb_debugfs_fini(&epd->par);
	epdfb_queue_cancel_all(&epd->par);
	epdrm_settle_cancel_all(epd);
}

static void epdrm_shutdown(struct platform_device *pdev)
{
	struct epdrm_device *epd = platform_get_drvdata(pdev);

	drm_atomic_helper_shutdown(&epd->drm);
}

static struct platform_driver epdrm_platform_driver = {
	.probe = epdrm_probe,
	.remove = epdrm_remove,
	.shutdown = epdrm_shutdown,
	.driver = {
		.name = "epdrm",
	},
};

static int __init epdrm_init(void)
{
	int ret;

	ret = epdfb_check_panel_params(&epdfb_panel);
	if (ret) {
		pr_err("epdrm: invalid module parameters\n");
		return ret;
	}
	epdrm_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	ret = epdfb_platform_register(&epdrm_platform_driver, &epdrm_pdev,
				      &epdrm_probe_error);
	if (ret)
		debugfs_remove_recursive(epdrm_debugfs_root);
	return ret;
}

static void __exit epdrm_exit(void)
{
	epdfb_platform_unregister(&epdrm_platform_driver, epdrm_pdev);
	debugfs_remove_recursive(epdrm_debugfs_root);
	/*
	 * The last settle fence let go of the module in an RCU callback that
	 * may not have returned yet: it must before the module's text goes.
	 */
	rcu_barrier();
}

module_init(epdrm_init);
module_exit(epdrm_exit);

MODULE_DESCRIPTION("Simulated e-paper panel as a DRM device, with waveform and flash properties");
MODULE_AUTHOR("The vellum developers");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EPDPANEL);
