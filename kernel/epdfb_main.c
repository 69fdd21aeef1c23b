// SPDX-License-Identifier: GPL-2.0-only
/*
 * epdfb - e-paper framebuffer
 *
 * An fbdev device whose framebuffer lives in host memory and is exported
 * through deferred IO, with the update API of NXP's mxc_epdc_fb in front
 * of a panel backend (the simulated E Ink panel for now).
 */

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/fb.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <linux/wait_bit.h>

#include "epdfb_drv.h"
#include "epdfb_fb.h"

DEFINE_EPDFB_PANEL_PARAMS();

static struct dentry *epdfb_debugfs_root;

static unsigned int bpp = 8;
module_param(bpp, uint, 0444);
MODULE_PARM_DESC(bpp, "Bits per pixel: 8 (gray) or 32 (XRGB8888) (default 8)");

static unsigned int defio_delay_ms = 50;
module_param(defio_delay_ms, uint, 0444);
MODULE_PARM_DESC(defio_delay_ms, "Deferred IO delay in ms (default 50)");

static bool auto_update = true;
module_param(auto_update, bool, 0444);
MODULE_PARM_DESC(auto_update,
		 "Turn deferred IO writes into updates (AUTOMATIC mode) (default 1)");

static bool wait_holds_lock;
module_param(wait_holds_lock, bool, 0444);
MODULE_PARM_DESC(wait_holds_lock,
		 "MXCFB_WAIT_FOR_UPDATE_COMPLETE blocks the driver's other ioctls, as mxc_epdc_fb's does (default 0)");

/*
 * fb_destroy may run after the last close, and the fbdev core calls it after
 * dropping the module reference that the open file held, so nothing keeps
 * the module loaded meanwhile: module exit waits until the count of devices
 * not yet destroyed is 0.
 */
static atomic_t epdfb_live = ATOMIC_INIT(0);
static struct platform_device *epdfb_pdev;
/* Why the probe failed: registering the device does not say. */
static int epdfb_probe_error;

/*
 * The drawing helpers (write() and the console's drawing) may run in atomic
 * context, so they only note the rows and leave them to the deferred IO work,
 * with the dirty pages of the mapping: fsync() and FBIO_WAITFORVSYNC flush
 * both at once, and the fbdev core flushes that work before the device is
 * destroyed, so nothing of it outlives the device. @full: the rows were
 * written with write(), not drawn by the console.
 */
static void epdfb_damage_rows(struct epdfb_par *par, u32 top, u32 bottom,
			      bool full)
{
	unsigned long flags;

	if (READ_ONCE(par->auto_update) != AUTO_UPDATE_MODE_AUTOMATIC_MODE ||
	    READ_ONCE(par->dead))
		return;
	spin_lock_irqsave(&par->damage_lock, flags);
	if (par->damage_bottom) {
		top = min(top, par->damage_top);
		bottom = max(bottom, par->damage_bottom);
		full |= par->damage_full;
	}
	par->damage_full = full;
	par->damage_top = top;
	par->damage_bottom = bottom;
	spin_unlock_irqrestore(&par->damage_lock, flags);
	schedule_delayed_work(&par->info->deferred_work, par->defio.delay);
}

static void epdfb_damage_range(struct fb_info *info, off_t off, size_t len)
{
	struct epdfb_par *par = info->par;

	if (len)
		epdfb_damage_rows(par, off / par->line_length,
				  (off + len - 1) / par->line_length + 1, true);
}

static void epdfb_damage_area(struct fb_info *info, u32 x, u32 y, u32 w, u32 h)
{
	if (h)
		epdfb_damage_rows(info->par, y, y + h, false);
}

FB_GEN_DEFAULT_DEFERRED_SYSMEM_OPS(epdfb, epdfb_damage_range, epdfb_damage_area)

/*
 * Rows to submit, joined while they come in order of their first row; a band
 * is FULL if any of its rows was written through the mapping or write().
 */
struct epdfb_bands {
	struct epdfb_par *par;
	u32 top;
	u32 bottom;
	bool full;
};

static void epdfb_bands_submit(struct epdfb_bands *bands)
{
	epdfb_queue_submit_rows(bands->par, bands->top, bands->bottom,
				bands->full ? UPDATE_MODE_FULL :
					      UPDATE_MODE_PARTIAL);
}

static void epdfb_bands_add(struct epdfb_bands *bands, u32 first, u32 last,
			    bool full)
{
	if (bands->bottom && first <= bands->bottom) {
		bands->bottom = max(bands->bottom, last);
		bands->full |= full;
		return;
	}
	if (bands->bottom)
		epdfb_bands_submit(bands);
	bands->top = first;
	bands->bottom = last;
	bands->full = full;
}

/*
 * Dirty pages become full-width row bands: a page covers whole rows or
 * parts of rows, and nothing tells which pixels in it changed. Adjacent
 * bands, and the rows drawn by write() or the console, are joined so that
 * one write across pages is one update.
 *
 * The console's rows alone become PARTIAL updates: it redraws a line for
 * every character typed and the cursor several times a second, which FULL
 * updates would turn into as many flashes, and PARTIAL drives only the
 * pixels that change, so that WAVEFORM_MODE_AUTO's GC16 does not flash.
 */
static void epdfb_deferred_io(struct fb_info *info, struct list_head *pagereflist)
{
	struct epdfb_par *par = info->par;
	struct epdfb_bands bands = { .par = par };
	struct fb_deferred_io_pageref *ref;
	u32 drawn_top, drawn_bottom, first, last;
	unsigned int pages = 0;
	bool automatic, drawn_full;

	spin_lock_irq(&par->damage_lock);
	drawn_top = par->damage_top;
	drawn_bottom = par->damage_bottom;
	drawn_full = par->damage_full;
	par->damage_bottom = 0;
	spin_unlock_irq(&par->damage_lock);

	mutex_lock(&par->lock);
	automatic = !par->dead &&
		    par->auto_update == AUTO_UPDATE_MODE_AUTOMATIC_MODE;
	mutex_unlock(&par->lock);

	list_for_each_entry(ref, pagereflist, list) {
		pages++;
		if (!epdfb_taken_changed_rows(par, ref->offset, &first, &last) ||
		    !automatic)
			continue;
		if (drawn_bottom && drawn_top <= first) {
			epdfb_bands_add(&bands, drawn_top, drawn_bottom,
					drawn_full);
			drawn_bottom = 0;
		}
		epdfb_bands_add(&bands, first, last, true);
	}
	if (automatic && drawn_bottom)
		epdfb_bands_add(&bands, drawn_top, drawn_bottom, drawn_full);
	if (bands.bottom)
		epdfb_bands_submit(&bands);

	mutex_lock(&par->lock);
	par->stats.defio_runs++;
	par->stats.defio_pages += pages;
	mutex_unlock(&par->lock);
}

static int epdfb_check_var(struct fb_var_screeninfo *var, struct fb_info *info)
{
	if (var->xres != info->var.xres || var->yres != info->var.yres ||
	    var->bits_per_pixel != info->var.bits_per_pixel)
		return -EINVAL;
	*var = info->var;
	return 0;
}

/*
 * The colour map is the console's: the drawing helpers use it, through the
 * pseudo palette, to turn its 16 colours into pixels. A console draws light
 * text on a black screen; on paper, ink is dark, so its colours are drawn
 * inverted: the black background is the white page, light gray text is dark
 * gray. In 8 bpp a pixel is the gray level of the inverted colour.
 */
static int epdfb_setcolreg(unsigned int regno, unsigned int red,
			   unsigned int green, unsigned int blue,
			   unsigned int transp, struct fb_info *info)
{
	struct epdfb_par *par = info->par;
	u32 r = 255 - (red >> 8), g = 255 - (green >> 8), b = 255 - (blue >> 8);

	if (regno >= ARRAY_SIZE(par->palette))
		return -EINVAL;
	if (par->bpp == 8)
		par->palette[regno] = (77 * r + 150 * g + 29 * b) >> 8;
	else
		par->palette[regno] = r << 16 | g << 8 | b;
	return 0;
}

/*
 * Deferred IO in Linux 6.12 sets page->mapping on every page faulted in
 * through a mapping of the device but clears it only on the pages written
 * to: a page that was only read would reach vfree() with it set, a "Bad page
 * state". No mapping of the device is left when it is destroyed.
 */
static void epdfb_clear_page_mappings(struct epdfb_par *par)
{
	u32 off;

	for (off = 0; off < par->info->fix.smem_len; off += PAGE_SIZE)
		vmalloc_to_page(par->screen + off)->mapping = NULL;
}

static void epdfb_destroy(struct fb_info *info)
{
	struct epdfb_par *par = info->par;

	/* Runs the deferred IO work a last time, if pending; it submits nothing. */
	fb_deferred_io_cleanup(info);
	epdfb_clear_page_mappings(par);
	par->ops->fini(par);
	epdfb_queue_fini(par);
	epdfb_taken_fini(par);
	vfree(par->screen);
	fb_dealloc_cmap(&info->cmap);
	mutex_destroy(&par->ioctl_lock);
	framebuffer_release(info);
	/*
	 * Module exit may return as soon as the count is 0, and the module's
	 * memory be freed: the wake-up comes last and uses a wait queue of
	 * the kernel's, not one in the module's data.
	 */
	if (atomic_dec_and_test(&epdfb_live))
		wake_up_var(&epdfb_live);
}

static const struct fb_ops epdfb_ops = {
	.owner = THIS_MODULE,
	FB_DEFAULT_DEFERRED_OPS(epdfb),
	.fb_check_var = epdfb_check_var,
	.fb_setcolreg = epdfb_setcolreg,
	.fb_ioctl = epdfb_ioctl,
#ifdef CONFIG_COMPAT
	.fb_compat_ioctl = epdfb_compat_ioctl,
#endif
	.fb_destroy = epdfb_destroy,
};

/* fbdev says "unknown" with -1, as a u32 in the var's millimetre fields. */
static u32 epdfb_var_mm(unsigned int mm)
{
	return mm ? mm : (u32)-1;
}

static void epdfb_init_var(struct fb_info *info, u32 w, u32 h, u32 depth)
{
	struct fb_var_screeninfo *var = &info->var;

	var->xres = w;
	var->yres = h;
	var->xres_virtual = w;
	var->yres_virtual = h;
	var->bits_per_pixel = depth;
	var->activate = FB_ACTIVATE_NOW;
	var->width = epdfb_var_mm(epdfb_panel.width_mm);
	var->height = epdfb_var_mm(epdfb_panel.height_mm);
	/*
	 * 8 bpp is gray: red, green and blue are the same 8 bits. It is
	 * TRUECOLOR, not PSEUDOCOLOR, so that the console's drawing maps its
	 * colours through the pseudo palette (epdfb_setcolreg()) rather than
	 * writing their palette indices, which would be gray levels 0 to 15.
	 */
	if (depth == 8) {
		var->grayscale = 1;
		var->red.length = 8;
		var->green.length = 8;
		var->blue.length = 8;
		info->fix.visual = FB_VISUAL_TRUECOLOR;
	} else {
		var->red.offset = 16;
		var->green.offset = 8;
		var->red.length = 8;
		var->green.length = 8;
		var->blue.length = 8;
		info->fix.visual = FB_VISUAL_TRUECOLOR;
	}
}

static int epdfb_probe(struct platform_device *pdev)
{
	struct epdfb_par *par;
	struct fb_info *info;
	char debugfs_name[16];
	size_t size;
	int ret;

	info = framebuffer_alloc(sizeof(struct epdfb_fb), &pdev->dev);
	if (!info)
		return -ENOMEM;
	par = info->par;
	par->info = info;
	par->dev = &pdev->dev;
	par->width = epdfb_panel.width;
	par->height = epdfb_panel.height;
	par->bpp = bpp;
	par->line_length = par->width * (bpp / 8);
	par->time_scale = epdfb_panel.time_scale;
	par->ambient_temp = epdfb_panel.ambient_temp;
	par->auto_update = auto_update ? AUTO_UPDATE_MODE_AUTOMATIC_MODE :
					 AUTO_UPDATE_MODE_REGION_MODE;
	par->wait_holds_lock = wait_holds_lock;
	mutex_init(&par->ioctl_lock);
	par->ops = &epdfb_sim_ops;
	size = PAGE_ALIGN((size_t)par->line_length * par->height);

	ret = -ENOMEM;
	par->screen = vzalloc(size);
	if (!par->screen)
		goto err_release;
	/* The panel starts white; so does the framebuffer. */
	memset(par->screen, 0xff, size);
	ret = epdfb_queue_init(par);
	if (ret)
		goto err_vfree;
	ret = par->ops->init(par);
	if (ret)
		goto err_queue;

	strscpy(info->fix.id, "epdfb", sizeof(info->fix.id));
	info->fix.type = FB_TYPE_PACKED_PIXELS;
	info->fix.line_length = par->line_length;
	info->fix.smem_len = size;
	info->fix.accel = FB_ACCEL_NONE;
	ret = epdfb_taken_init(par);
	if (ret)
		goto err_panel;
	epdfb_init_var(info, par->width, par->height, bpp);
	info->fbops = &epdfb_ops;
	info->flags = FBINFO_VIRTFB;
	info->screen_buffer = par->screen;
	info->screen_size = size;
	info->pseudo_palette = par->palette;
	ret = fb_alloc_cmap(&info->cmap, ARRAY_SIZE(par->palette), 0);
	if (ret)
		goto err_taken;

	spin_lock_init(&par->damage_lock);
	par->defio.delay = msecs_to_jiffies(defio_delay_ms);
	par->defio.sort_pagereflist = true;
	par->defio.deferred_io = epdfb_deferred_io;
	info->fbdefio = &par->defio;
	ret = fb_deferred_io_init(info);
	if (ret)
		goto err_cmap;

	ret = register_framebuffer(info);
	if (ret)
		goto err_defio;
	atomic_inc(&epdfb_live);
	platform_set_drvdata(pdev, info);
	snprintf(debugfs_name, sizeof(debugfs_name), "fb%d", info->node);
	epdfb_debugfs_init(par, epdfb_debugfs_root, debugfs_name);
	fb_info(info, "%ux%u %u bpp simulated e-paper panel\n", par->width,
		par->height, bpp);
	return 0;

err_defio:
	fb_deferred_io_cleanup(info);
err_cmap:
	fb_dealloc_cmap(&info->cmap);
err_taken:
	epdfb_taken_fini(par);
err_panel:
	par->ops->fini(par);
err_queue:
	epdfb_queue_fini(par);
err_vfree:
	vfree(par->screen);
err_release:
	mutex_destroy(&par->ioctl_lock);
	framebuffer_release(info);
	epdfb_probe_error = ret;
	return ret;
}

/*
 * Processes may still hold the device open or mapped: the fb core keeps
 * fb_info alive for them and calls epdfb_destroy() after the last close.
 * Until then every ioctl fails and deferred IO runs submit nothing.
 */
static void epdfb_remove(struct platform_device *pdev)
{
	struct fb_info *info = platform_get_drvdata(pdev);
	struct epdfb_par *par = info->par;

	epdfb_debugfs_fini(par);
	epdfb_queue_cancel_all(par);
	unregister_framebuffer(info);
}

static struct platform_driver epdfb_driver = {
	.probe = epdfb_probe,
	.remove = epdfb_remove,
	.driver = {
		.name = "epdfb",
	},
};

static int epdfb_check_params(void)
{
	if ((bpp != 8 && bpp != 32) || !defio_delay_ms)
		return -EINVAL;
	return epdfb_check_panel_params(&epdfb_panel);
}

static int __init epdfb_init(void)
{
	int ret;

	ret = epdfb_check_params();
	if (ret) {
		pr_err("epdfb: invalid module parameters\n");
		return ret;
	}
	epdfb_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	ret = epdfb_platform_register(&epdfb_driver, &epdfb_pdev,
				      &epdfb_probe_error);
	if (ret)
		debugfs_remove_recursive(epdfb_debugfs_root);
	return ret;
}

static void __exit epdfb_exit(void)
{
	epdfb_platform_unregister(&epdfb_driver, epdfb_pdev);
	wait_var_event(&epdfb_live, !atomic_read(&epdfb_live));
	debugfs_remove_recursive(epdfb_debugfs_root);
}

module_init(epdfb_init);
module_exit(epdfb_exit);

MODULE_DESCRIPTION("E-paper framebuffer with deferred IO and a simulated E Ink panel");
MODULE_AUTHOR("The vellum developers");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EPDPANEL);
