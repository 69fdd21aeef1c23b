// SPDX-License-Identifier: GPL-2.0-only
/*
 * epdrm - the display pipeline: one primary plane, CRTC, encoder and
 * connector; each commit's damage becomes panel updates
 *
 * A commit copies its damage from the framebuffer into the panel's gray
 * image and queues one update per damage clip, with the plane's EPD_WAVEFORM
 * and EPD_FULL. It does not wait for the panel: the flip event and
 * OUT_FENCE say the updates are queued, so a compositor can go on drawing
 * while a 450 ms waveform runs, as it does on epdfb.
 */

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_damage_helper.h>
#include <drm/drm_drv.h>
#include <drm/drm_fb_helper.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_print.h>
#include <drm/drm_probe_helper.h>
#include <drm/drm_simple_kms_helper.h>
#include <drm/drm_vblank.h>
#include <linux/dma-fence.h>
#include <linux/fb.h>
#include <linux/iosys-map.h>
#include <linux/slab.h>

#include "epdrm_drv.h"

/*
 * Updates one commit queues at most: more damage clips than this go as
 * their bounding box. atomic_check keeps room for two commits' worth (the
 * one being checked and one still being committed) for userspace's commits,
 * so that their updates, and the settle fences' markers they carry, never
 * wait to be queued.
 */
#define EPDRM_COMMIT_UPDATES	4

static const u32 epdrm_formats[] = {
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_R8,
};

static const u64 epdrm_modifiers[] = {
	DRM_FORMAT_MOD_LINEAR,
	DRM_FORMAT_MOD_INVALID,
};

/* ITU-R BT.601 luma in 8-bit fixed point, as epdfb's 32 bpp capture. */
static u8 epdrm_gray(u32 px)
{
	return (77 * ((px >> 16) & 0xff) + 150 * ((px >> 8) & 0xff) +
		29 * (px & 0xff)) >> 8;
}

/* Grows @changed, in panel coordinates, by columns @x1 to @x2 of row @y. */
static void epdrm_changed_add(struct drm_rect *changed, u32 x1, u32 x2, u32 y)
{
	if (drm_rect_visible(changed)) {
		changed->x1 = min_t(int, changed->x1, x1);
		changed->x2 = max_t(int, changed->x2, x2);
		changed->y2 = y + 1;
		return;
	}
	*changed = (struct drm_rect){ x1, y, x2, y + 1 };
}

/*
 * Copies @clip (framebuffer coordinates) of @fb, mapped at @vaddr, into the
 * panel's gray image at @x, @y, and puts into @changed the bounds of the
 * pixels that were not already there (empty when none).
 */
static void epdrm_copy_clip(struct epdfb_par *par, const void *vaddr,
			    const struct drm_framebuffer *fb,
			    const struct drm_rect *clip, u32 x, u32 y,
			    struct drm_rect *changed)
{
	u32 width = drm_rect_width(clip), height = drm_rect_height(clip);
	u32 row, col, first, last;
	u8 gray;

	*changed = (struct drm_rect){};
	for (row = 0; row < height; row++) {
		const u8 *src = vaddr + (size_t)(clip->y1 + row) * fb->pitches[0];
		u8 *dst = par->screen + (size_t)(y + row) * par->line_length + x;

		first = width;
		last = 0;
		for (col = 0; col < width; col++) {
			if (fb->format->format == DRM_FORMAT_R8)
				gray = src[clip->x1 + col];
			else
				gray = epdrm_gray(((const u32 *)src)[clip->x1 + col]);
			if (dst[col] == gray)
				continue;
			dst[col] = gray;
			first = min(first, col);
			last = col;
		}
		if (first < width)
			epdrm_changed_add(changed, x + first, x + last + 1,
					  y + row);
	}
}

/*
 * Whether the kernel makes the commit for itself: the fbdev emulation's
 * (its restore when the last master closes, a mode set through /dev/fbN,
 * its damage worker), which shows the emulation's framebuffer and carries
 * no settle fence, or one putting back a duplicated state (resume). Its
 * caller cannot wait for the panel and try again: refused, the console
 * stays dark or its damage worker warns. Its updates, none with a marker,
 * are never refused: while the queue is full they are held back, and later
 * ones merge into them, as deferred IO's bands on epdfb.
 */
static bool epdrm_commit_is_kernels(struct epdrm_device *epd,
				    struct drm_atomic_state *state,
				    struct drm_plane_state *plane_state)
{
	struct epdrm_plane_state *epd_state = to_epdrm_plane_state(plane_state);
	struct drm_fb_helper *helper = epd->drm.fb_helper;

	if (state->duplicated)
		return true;
	return helper && helper->fb && plane_state->fb == helper->fb &&
	       !epd_state->settle_fence_ptr;
}

static int epdrm_plane_atomic_check(struct drm_plane *plane,
				    struct drm_atomic_state *state)
{
	struct drm_plane_state *plane_state =
		drm_atomic_get_new_plane_state(state, plane);
	struct epdrm_plane_state *epd_state = to_epdrm_plane_state(plane_state);
	struct epdrm_device *epd = to_epdrm(plane->dev);
	struct drm_crtc_state *crtc_state = NULL;
	const struct epdfb_waveform *wf;

	if (plane_state->crtc)
		crtc_state = drm_atomic_get_new_crtc_state(state,
							   plane_state->crtc);
	/* The plane is the whole panel: no scaling, no positioning. */
	if (drm_atomic_helper_check_plane_state(plane_state, crtc_state,
						DRM_PLANE_NO_SCALING,
						DRM_PLANE_NO_SCALING,
						false, false))
		return -EINVAL;
	if (epd_state->settle_fence_ptr && !plane_state->crtc) {
		drm_dbg_atomic(plane->dev,
			       "EPD_SETTLE_FENCE_PTR without a CRTC: nothing to settle\n");
		return -EINVAL;
	}
	if (plane_state->visible &&
	    !epdrm_commit_is_kernels(epd, state, plane_state) &&
	    epdfb_queue_free_slots(&epd->par) < 2 * EPDRM_COMMIT_UPDATES) {
		drm_dbg_atomic(plane->dev, "the panel's update queue is full\n");
		return -EBUSY;
	}
	/* EPD_FULL asks for a flash: a waveform that cannot is a contradiction. */
	if (epd_state->full && epd_state->waveform != WAVEFORM_MODE_AUTO) {
		wf = epdfb_find_waveform(&epd->par, epd_state->waveform);
		if (!wf || !(wf->flags & (EPDFB_WAVEFORM_FLASHING |
					  EPDFB_WAVEFORM_FLASHING_FULL))) {
			drm_dbg_atomic(plane->dev,
				       "EPD_FULL with a waveform that does not flash\n");
			return -EINVAL;
		}
	}
	return 0;
}

/* Whether the update flashes, and so drives every pixel of its rect. */
static bool epdrm_update_flashes(struct epdfb_par *par,
				 const struct mxcfb_update_data *req)
{
	const struct epdfb_waveform *wf;

	if (req->update_mode == UPDATE_MODE_FULL)
		return true;
	/* auto: DU or GC16, in partial mode */
	wf = epdfb_find_waveform(par, req->waveform_mode);
	return wf && (wf->flags & EPDFB_WAVEFORM_FLASHING);
}

/*
 * Adds to @changed the part of @clip (panel coordinates) the panel lacks
 * since an update failed there; once all of it is sent again, it is no
 * longer lacking. Under par.lock.
 */
static void epdrm_add_unshown(struct epdfb_par *par, const struct drm_rect *clip,
			      struct drm_rect *changed)
{
	const struct mxcfb_rect *u = &par->unshown;
	struct drm_rect lacking = { u->left, u->top, u->left + u->width,
				    u->top + u->height };
	struct drm_rect part = lacking;

	if (!u->width || !drm_rect_intersect(&part, clip))
		return;
	if (drm_rect_visible(changed)) {
		changed->x1 = min(changed->x1, part.x1);
		changed->y1 = min(changed->y1, part.y1);
		changed->x2 = max(changed->x2, part.x2);
		changed->y2 = max(changed->y2, part.y2);
	} else {
		*changed = part;
	}
	if (drm_rect_equals(&part, &lacking))
		par->unshown.width = 0;
}

/*
 * Copies @clip into the panel's gray image and queues an update of the
 * pixels that changed: a partial update of pixels the panel already has
 * drives none of them, and would only hold a LUT and the area for the
 * length of a waveform (a compositor that re-commits its framebuffer
 * without damage clips would hold the whole panel). A flash (EPD_FULL,
 * INIT) drives the whole clip, changed or not.
 *
 * Return: 1 if an update was queued, 0 if nothing changed, or a negative
 * error code.
 */
static int epdrm_submit_clip(struct epdrm_device *epd,
			     struct drm_plane_state *plane_state,
			     struct mxcfb_update_data *req,
			     const struct drm_rect *clip)
{
	struct epdrm_plane_state *epd_state = to_epdrm_plane_state(plane_state);
	struct epdfb_par *par = &epd->par;
	u32 x = clip->x1 - (plane_state->src.x1 >> 16);
	u32 y = clip->y1 - (plane_state->src.y1 >> 16);
	struct epdfb_update *upd;
	struct drm_rect area = { x, y, x + drm_rect_width(clip),
				 y + drm_rect_height(clip) };
	struct drm_rect changed;
	int ret;

	/* Pixels the panel shows are read under the queue's lock. */
	mutex_lock(&par->lock);
	epdrm_copy_clip(par, epd_state->base.data[0].vaddr, plane_state->fb,
			clip, x, y, &changed);
	epdrm_add_unshown(par, &area, &changed);
	mutex_unlock(&par->lock);
	if (epdrm_update_flashes(par, req))
		changed = area;
	else if (!drm_rect_visible(&changed))
		return 0;

	upd = list_first_entry_or_null(&epd_state->updates,
				       struct epdfb_update, node);
	if (!upd)
		return -ENOMEM;
	list_del(&upd->node);
	req->update_region.left = changed.x1;
	req->update_region.top = changed.y1;
	req->update_region.width = drm_rect_width(&changed);
	req->update_region.height = drm_rect_height(&changed);
	ret = epdfb_queue_submit_accepted(par, req, upd);
	if (ret) {
		drm_warn_once(&epd->drm, "an update was lost\n");
		return ret;
	}
	return 1;
}

/*
 * The commit's damage, as at most EPDRM_COMMIT_UPDATES updates: how many
 * were queued, or the error of the first update lost.
 */
static int epdrm_submit_damage(struct epdrm_device *epd,
			       struct drm_plane_state *old_state,
			       struct drm_plane_state *plane_state,
			       struct mxcfb_update_data *req)
{
	struct drm_atomic_helper_damage_iter iter;
	struct drm_rect clip, bounds = {};
	unsigned int n = 0;
	int ret, queued = 0, error = 0;

	drm_atomic_helper_damage_iter_init(&iter, old_state, plane_state);
	drm_atomic_for_each_plane_damage(&iter, &clip) {
		bounds = n ? (struct drm_rect){
				min(bounds.x1, clip.x1), min(bounds.y1, clip.y1),
				max(bounds.x2, clip.x2), max(bounds.y2, clip.y2) } :
			     clip;
		n++;
	}
	if (n > EPDRM_COMMIT_UPDATES)
		return epdrm_submit_clip(epd, plane_state, req, &bounds);
	drm_atomic_helper_damage_iter_init(&iter, old_state, plane_state);
	drm_atomic_for_each_plane_damage(&iter, &clip) {
		ret = epdrm_submit_clip(epd, plane_state, req, &clip);
		if (ret < 0 && !error)
			error = ret;
		else if (ret > 0)
			queued++;
	}
	return error ?: queued;
}

static void epdrm_plane_atomic_update(struct drm_plane *plane,
				      struct drm_atomic_state *state)
{
	struct drm_plane_state *plane_state =
		drm_atomic_get_new_plane_state(state, plane);
	struct drm_plane_state *old_state =
		drm_atomic_get_old_plane_state(state, plane);
	struct epdrm_plane_state *epd_state = to_epdrm_plane_state(plane_state);
	struct epdrm_device *epd = to_epdrm(plane->dev);
	struct drm_framebuffer *fb = plane_state->fb;
	struct drm_fb_helper *helper = epd->drm.fb_helper;
	bool fbdev = fb && helper && fb == helper->fb;
	struct mxcfb_update_data req = {
		.waveform_mode = epd_state->waveform,
		.update_mode = epd_state->full ? UPDATE_MODE_FULL :
						 UPDATE_MODE_PARTIAL,
		.temp = TEMP_USE_AMBIENT,
	};
	int idx, ret, error = 0;
	bool cookie;

	/*
	 * fbdev programs know nothing of waveforms: the emulation's writes
	 * get the driver's choice, as in epdfb's AUTOMATIC mode, whatever a
	 * KMS client left the properties at.
	 */
	if (fbdev) {
		req.waveform_mode = WAVEFORM_MODE_AUTO;
		req.update_mode = UPDATE_MODE_PARTIAL;
	}
	/*
	 * When the last KMS master lets go, DRM puts the emulation's
	 * framebuffer back on the plane, and does it again after each later
	 * master, even one that committed nothing and left the emulation's
	 * framebuffer where it was. A panel holds the master's last picture
	 * without power, and a kiosk wants it kept: while nothing uses the
	 * emulation, its commits leave the panel alone. A program that opens
	 * /dev/fbN later gets its writes onto the panel as damage, and a mode
	 * it sets updates the whole panel.
	 */
	if (fbdev && !epdrm_fbdev_in_use(epd))
		fb = NULL;

	/* A flashing full refresh without a waveform named: GC16's. */
	if (req.update_mode == UPDATE_MODE_FULL &&
	    req.waveform_mode == WAVEFORM_MODE_AUTO)
		req.waveform_mode = WAVEFORM_MODE_GC16;
	/* the settle fence waits for what follows */
	cookie = dma_fence_begin_signalling();
	if (epd_state->settle) {
		req.update_marker = epdrm_settle_marker(epd_state->settle);
		epdrm_settle_begin(epd, epd_state->settle);
	}
	if (fb && plane_state->visible) {
		/* unplugged: the commit came too late to show anything */
		error = -ENODEV;
		if (drm_dev_enter(plane->dev, &idx)) {
			error = drm_gem_fb_begin_cpu_access(fb, DMA_FROM_DEVICE);
			if (!error) {
				ret = epdrm_submit_damage(epd, old_state,
							  plane_state, &req);
				drm_gem_fb_end_cpu_access(fb, DMA_FROM_DEVICE);
				error = min(ret, 0);
				if (ret > 0)
					epdrm_cleanup_arm(epd);
			}
			drm_dev_exit(idx);
		}
	}
	/* With nothing to show, the fence signals at once. */
	if (epd_state->settle)
		epdrm_settle_arm(epd, epd_state->settle, error);
	dma_fence_end_signalling(cookie);
}

static void epdrm_plane_atomic_disable(struct drm_plane *plane,
				       struct drm_atomic_state *state)
{
	struct drm_plane_state *plane_state =
		drm_atomic_get_new_plane_state(state, plane);
	struct epdrm_plane_state *epd_state = to_epdrm_plane_state(plane_state);
	bool cookie = dma_fence_begin_signalling();

	/* The panel keeps its image: there is nothing to wait for. */
	if (epd_state->settle)
		epdrm_settle_arm(to_epdrm(plane->dev), epd_state->settle, 0);
	dma_fence_end_signalling(cookie);
}

static const struct drm_plane_helper_funcs epdrm_plane_helper_funcs = {
	DRM_GEM_SHADOW_PLANE_HELPER_FUNCS,
	.atomic_check = epdrm_plane_atomic_check,
	.atomic_update = epdrm_plane_atomic_update,
	.atomic_disable = epdrm_plane_atomic_disable,
};

static void epdrm_plane_destroy_state(struct drm_plane *plane,
				      struct drm_plane_state *plane_state)
{
	struct epdrm_plane_state *state = to_epdrm_plane_state(plane_state);
	struct epdfb_update *upd, *next;

	list_for_each_entry_safe(upd, next, &state->updates, node)
		epdfb_update_free(upd);
	if (state->settle)
		dma_fence_put(state->settle);
	__drm_gem_destroy_shadow_plane_state(&state->base);
	kfree(state);
}

static void epdrm_plane_reset(struct drm_plane *plane)
{
	struct epdrm_plane_state *state;

	if (plane->state) {
		epdrm_plane_destroy_state(plane, plane->state);
		plane->state = NULL;
	}
	state = kzalloc(sizeof(*state), GFP_KERNEL);
	if (!state)
		return;
	INIT_LIST_HEAD(&state->updates);
	state->waveform = WAVEFORM_MODE_AUTO;
	state->epoch = atomic_read(&to_epdrm(plane->dev)->master_epoch);
	__drm_gem_reset_shadow_plane(plane, &state->base);
}

static struct drm_plane_state *
epdrm_plane_duplicate_state(struct drm_plane *plane)
{
	struct epdrm_plane_state *old, *state;

	if (WARN_ON(!plane->state))
		return NULL;
	old = to_epdrm_plane_state(plane->state);
	state = kzalloc(sizeof(*state), GFP_KERNEL);
	if (!state)
		return NULL;
	INIT_LIST_HEAD(&state->updates);
	__drm_gem_duplicate_shadow_plane_state(plane, &state->base);
	/* The settle fence pointer, like OUT_FENCE_PTR, is not kept. */
	state->epoch = atomic_read(&to_epdrm(plane->dev)->master_epoch);
	state->waveform = WAVEFORM_MODE_AUTO;
	/* A new master starts from the defaults, whatever the last one left. */
	if (old->epoch == state->epoch) {
		state->waveform = old->waveform;
		state->full = old->full;
	}
	return &state->base.base;
}

static int epdrm_plane_set_property(struct drm_plane *plane,
				    struct drm_plane_state *plane_state,
				    struct drm_property *property, u64 val)
{
	struct epdrm_plane_state *state = to_epdrm_plane_state(plane_state);
	struct epdrm_device *epd = to_epdrm(plane->dev);

	/* The core has checked val against the enum and the bool's range. */
	if (property == epd->waveform_property)
		state->waveform = val;
	else if (property == epd->full_property)
		state->full = val;
	else if (property == epd->settle_property)
		state->settle_fence_ptr = val;
	else
		return -EINVAL;
	/* A master that can flash takes care of the ghosts it leaves. */
	if (property == epd->full_property)
		WRITE_ONCE(epd->master_sets_full, true);
	return 0;
}

static int epdrm_plane_get_property(struct drm_plane *plane,
				    const struct drm_plane_state *plane_state,
				    struct drm_property *property, u64 *val)
{
	const struct epdrm_plane_state *state =
		container_of(plane_state, struct epdrm_plane_state, base.base);
	struct epdrm_device *epd = to_epdrm(plane->dev);
	bool fresh = state->epoch == atomic_read(&epd->master_epoch);

	if (property == epd->waveform_property)
		*val = fresh ? state->waveform : WAVEFORM_MODE_AUTO;
	else if (property == epd->full_property)
		*val = fresh && state->full;
	else if (property == epd->settle_property)
		*val = 0; /* as OUT_FENCE_PTR reads */
	else
		return -EINVAL;
	return 0;
}

static const struct drm_plane_funcs epdrm_plane_funcs = {
	.update_plane = drm_atomic_helper_update_plane,
	.disable_plane = drm_atomic_helper_disable_plane,
	.destroy = drm_plane_cleanup,
	.reset = epdrm_plane_reset,
	.atomic_duplicate_state = epdrm_plane_duplicate_state,
	.atomic_destroy_state = epdrm_plane_destroy_state,
	.atomic_set_property = epdrm_plane_set_property,
	.atomic_get_property = epdrm_plane_get_property,
};

/* EPD_WAVEFORM: "auto" and the panel's waveforms, by epdfb's names. */
static int epdrm_create_properties(struct epdrm_device *epd)
{
	const struct epdfb_panel_ops *ops = epd->par.ops;
	struct drm_prop_enum_list *list;
	unsigned int i;

	list = kcalloc(ops->n_waveforms + 1, sizeof(*list), GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	list[0].type = WAVEFORM_MODE_AUTO;
	list[0].name = "auto";
	for (i = 0; i < ops->n_waveforms; i++) {
		list[i + 1].type = ops->waveforms[i].id;
		list[i + 1].name = ops->waveforms[i].name;
	}
	epd->waveform_property = drm_property_create_enum(&epd->drm, 0,
							  "EPD_WAVEFORM", list,
							  ops->n_waveforms + 1);
	kfree(list);
	epd->full_property = drm_property_create_bool(&epd->drm, 0, "EPD_FULL");
	epd->settle_property = drm_property_create_range(&epd->drm,
							 DRM_MODE_PROP_ATOMIC,
							 "EPD_SETTLE_FENCE_PTR",
							 0, U64_MAX);
	if (!epd->waveform_property || !epd->full_property ||
	    !epd->settle_property)
		return -ENOMEM;
	drm_object_attach_property(&epd->plane.base, epd->waveform_property,
				   WAVEFORM_MODE_AUTO);
	drm_object_attach_property(&epd->plane.base, epd->full_property, 0);
	drm_object_attach_property(&epd->plane.base, epd->settle_property, 0);
	return 0;
}

static enum drm_mode_status
epdrm_crtc_mode_valid(struct drm_crtc *crtc, const struct drm_display_mode *mode)
{
	struct epdrm_device *epd = to_epdrm(crtc->dev);

	return drm_crtc_helper_mode_valid_fixed(crtc, mode, &epd->mode);
}

static int epdrm_crtc_atomic_check(struct drm_crtc *crtc,
				   struct drm_atomic_state *state)
{
	struct drm_crtc_state *crtc_state =
		drm_atomic_get_new_crtc_state(state, crtc);

	/* Removing the last framebuffer turns the CRTC off with its plane. */
	if (!crtc_state->enable)
		return 0;
	return drm_atomic_helper_check_crtc_primary_plane(crtc_state);
}

static void epdrm_crtc_atomic_enable(struct drm_crtc *crtc,
				     struct drm_atomic_state *state)
{
	drm_crtc_vblank_on(crtc);
}

static void epdrm_crtc_atomic_disable(struct drm_crtc *crtc,
				      struct drm_atomic_state *state)
{
	drm_crtc_vblank_off(crtc);
}

static void epdrm_crtc_atomic_flush(struct drm_crtc *crtc,
				    struct drm_atomic_state *state)
{
	epdrm_vblank_send_event(crtc);
}

static const struct drm_crtc_helper_funcs epdrm_crtc_helper_funcs = {
	.mode_valid = epdrm_crtc_mode_valid,
	.atomic_check = epdrm_crtc_atomic_check,
	.atomic_enable = epdrm_crtc_atomic_enable,
	.atomic_disable = epdrm_crtc_atomic_disable,
	.atomic_flush = epdrm_crtc_atomic_flush,
};

static const struct drm_crtc_funcs epdrm_crtc_funcs = {
	.reset = drm_atomic_helper_crtc_reset,
	.destroy = drm_crtc_cleanup,
	.set_config = drm_atomic_helper_set_config,
	.page_flip = drm_atomic_helper_page_flip,
	.atomic_duplicate_state = drm_atomic_helper_crtc_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_crtc_destroy_state,
	.enable_vblank = epdrm_enable_vblank,
	.disable_vblank = epdrm_disable_vblank,
	.get_vblank_timestamp = epdrm_get_vblank_timestamp,
};

static int epdrm_connector_get_modes(struct drm_connector *connector)
{
	struct epdrm_device *epd = to_epdrm(connector->dev);

	return drm_connector_helper_get_modes_fixed(connector, &epd->mode);
}

static const struct drm_connector_helper_funcs epdrm_connector_helper_funcs = {
	.get_modes = epdrm_connector_get_modes,
};

static const struct drm_connector_funcs epdrm_connector_funcs = {
	.reset = drm_atomic_helper_connector_reset,
	.fill_modes = drm_helper_probe_single_connector_modes,
	.destroy = drm_connector_cleanup,
	.atomic_duplicate_state = drm_atomic_helper_connector_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_connector_destroy_state,
};

/*
 * The settle fence's fd is reserved and written to userspace before the
 * commit, as the core does for OUT_FENCE_PTR, and installed once the commit
 * has gone through; the records of the commit's updates are allocated here
 * too. TEST_ONLY commits never come here.
 */
static int epdrm_atomic_commit(struct drm_device *drm,
			       struct drm_atomic_state *state, bool nonblock)
{
	struct epdrm_device *epd = to_epdrm(drm);
	struct drm_plane_state *plane_state =
		drm_atomic_get_new_plane_state(state, &epd->plane);
	struct epdrm_settle_fd settle_fd = {};
	struct epdrm_plane_state *epd_state;
	struct epdfb_update *upd;
	unsigned int i;
	int ret;

	if (plane_state) {
		epd_state = to_epdrm_plane_state(plane_state);
		for (i = 0; i < EPDRM_COMMIT_UPDATES; i++) {
			upd = epdfb_update_alloc();
			if (!upd)
				return -ENOMEM;
			list_add_tail(&upd->node, &epd_state->updates);
		}
		if (epd_state->settle_fence_ptr) {
			epd_state->settle = epdrm_settle_create(epd);
			if (!epd_state->settle)
				return -ENOMEM;
			ret = epdrm_settle_install(epd_state->settle,
						   u64_to_user_ptr(epd_state->settle_fence_ptr),
						   &settle_fd);
			if (ret)
				return ret;
		}
	}
	ret = drm_atomic_helper_commit(drm, state, nonblock);
	epdrm_settle_publish(&settle_fd, !ret);
	return ret;
}

/*
 * DRM's commit tail, but for what it waits on before it lets go of the old
 * framebuffers: the commit's flip event, which its CRTC sends at the next
 * vblank, rather than a vblank within 100 ms. The panel took its pixels in
 * the plane update; a timer tick late on a loaded machine is no reason for
 * a warning.
 */
static void epdrm_commit_tail(struct drm_atomic_state *state)
{
	struct drm_device *drm = state->dev;

	drm_atomic_helper_commit_modeset_disables(drm, state);
	drm_atomic_helper_commit_planes(drm, state, 0);
	drm_atomic_helper_commit_modeset_enables(drm, state);
	drm_atomic_helper_commit_hw_done(state);
	drm_atomic_helper_wait_for_flip_done(drm, state);
	drm_atomic_helper_cleanup_planes(drm, state);
}

static const struct drm_mode_config_helper_funcs epdrm_mode_config_helpers = {
	.atomic_commit_tail = epdrm_commit_tail,
};

static const struct drm_mode_config_funcs epdrm_mode_config_funcs = {
	.fb_create = drm_gem_fb_create_with_dirty,
	.atomic_check = drm_atomic_helper_check,
	.atomic_commit = epdrm_atomic_commit,
};

/**
 * epdrm_kms_init() - create the display pipeline of a panel
 * @epd: device, its panel model set up
 *
 * Return: 0 or a negative error code.
 */
int epdrm_kms_init(struct epdrm_device *epd)
{
	struct drm_device *drm = &epd->drm;
	int ret;

	ret = drmm_mode_config_init(drm);
	if (ret)
		return ret;
	drm->mode_config.min_width = epd->par.width;
	drm->mode_config.max_width = epd->par.width;
	drm->mode_config.min_height = epd->par.height;
	drm->mode_config.max_height = epd->par.height;
	drm->mode_config.preferred_depth = 24;
	drm->mode_config.funcs = &epdrm_mode_config_funcs;
	drm->mode_config.helper_private = &epdrm_mode_config_helpers;

	ret = drm_universal_plane_init(drm, &epd->plane, 0, &epdrm_plane_funcs,
				       epdrm_formats, ARRAY_SIZE(epdrm_formats),
				       epdrm_modifiers, DRM_PLANE_TYPE_PRIMARY,
				       NULL);
	if (ret)
		return ret;
	drm_plane_helper_add(&epd->plane, &epdrm_plane_helper_funcs);
	drm_plane_enable_fb_damage_clips(&epd->plane);
	ret = epdrm_create_properties(epd);
	if (ret)
		return ret;

	ret = drm_crtc_init_with_planes(drm, &epd->crtc, &epd->plane, NULL,
					&epdrm_crtc_funcs, NULL);
	if (ret)
		return ret;
	drm_crtc_helper_add(&epd->crtc, &epdrm_crtc_helper_funcs);
	ret = epdrm_vblank_init(epd);
	if (ret)
		return ret;

	ret = drm_simple_encoder_init(drm, &epd->encoder,
				      DRM_MODE_ENCODER_NONE);
	if (ret)
		return ret;
	epd->encoder.possible_crtcs = drm_crtc_mask(&epd->crtc);

	ret = drm_connector_init(drm, &epd->connector, &epdrm_connector_funcs,
				 DRM_MODE_CONNECTOR_VIRTUAL);
	if (ret)
		return ret;
	drm_connector_helper_add(&epd->connector, &epdrm_connector_helper_funcs);
	ret = drm_connector_attach_encoder(&epd->connector, &epd->encoder);
	if (ret)
		return ret;

	drm_mode_config_reset(drm);
	return 0;
}
