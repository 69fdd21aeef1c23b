/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * epdrm - the simulated e-paper panel as a DRM device: internals shared
 * between its files
 */
#ifndef _EPDRM_DRV_H
#define _EPDRM_DRV_H

#include <drm/drm_connector.h>
#include <drm/drm_crtc.h>
#include <drm/drm_device.h>
#include <drm/drm_encoder.h>
#include <drm/drm_fb_helper.h>
#include <drm/drm_gem_atomic_helper.h>
#include <drm/drm_modes.h>
#include <drm/drm_plane.h>
#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/workqueue.h>

#include "epdfb_drv.h"

/* The mode's refresh rate, in Hz. */
#define EPDRM_REFRESH_HZ	60

/**
 * struct epdrm_device - one panel
 * @drm: the DRM device
 * @par: the panel model, update queue and debugfs files epdfb has; its
 *	screen is the panel-sized gray image commits copy their damage into
 * @plane: the primary plane, with the EPD_* properties
 * @crtc: the one CRTC
 * @encoder: its encoder
 * @connector: the panel's connector, whose one mode is the panel's size
 * @mode: that mode
 * @waveform_property: EPD_WAVEFORM
 * @full_property: EPD_FULL
 * @settle_property: EPD_SETTLE_FENCE_PTR
 * @settle_pending: settle fences whose updates are not all done; under
 *	par.lock
 * @next_marker: the last marker given to a commit's updates
 * @fbdev_users: programs holding /dev/fbN open, and fbcon if bound to it
 * @fbdev_funcs: the emulation's helper functions, its probe epdrm's
 * @vblank_timer: ticks at the mode's rate while vblank is on
 * @vblank_period: its period
 * @master_epoch: counts the programs that became DRM master; plane
 *	states whose EPD_* properties were set under an earlier one read as
 *	the defaults
 * @master_sets_full: the present master has set EPD_FULL, to either
 *	value: it knows how to flash and cleans the panel's ghosts itself
 * @cleanup_work: the flash over the ghosts left behind, once the panel
 *	has been idle for cleanup_delay_ms
 */
struct epdrm_device {
	struct drm_device drm;
	struct epdfb_par par;
	struct drm_plane plane;
	struct drm_crtc crtc;
	struct drm_encoder encoder;
	struct drm_connector connector;
	struct drm_display_mode mode;
	struct drm_property *waveform_property;
	struct drm_property *full_property;
	struct drm_property *settle_property;
	struct list_head settle_pending;
	atomic_t next_marker;
	atomic_t fbdev_users;
	struct drm_fb_helper_funcs fbdev_funcs;
	struct hrtimer vblank_timer;
	ktime_t vblank_period;
	atomic_t master_epoch;
	bool master_sets_full;
	struct delayed_work cleanup_work;
};

/**
 * struct epdrm_plane_state - the primary plane's state
 * @base: the shadow plane state, which maps the framebuffer for the CPU
 * @waveform: EPD_WAVEFORM: WAVEFORM_MODE_AUTO or a waveform of the panel
 * @epoch: the master_epoch under which @waveform and @full were set
 * @full: EPD_FULL: a flashing full refresh of the commit's damage
 * @settle_fence_ptr: EPD_SETTLE_FENCE_PTR: where the commit's settle fence
 *	fd goes; 0 for none. Like OUT_FENCE_PTR, it holds for one commit.
 * @settle: the commit's settle fence, or NULL
 * @updates: records for the commit's updates, allocated before it is
 *	committed: the plane update is part of what the settle fence waits
 *	for and may not wait for memory reclaim. Those left are freed with
 *	the state.
 */
struct epdrm_plane_state {
	struct drm_shadow_plane_state base;
	u32 waveform;
	int epoch;
	bool full;
	u64 settle_fence_ptr;
	struct dma_fence *settle;
	struct list_head updates;
};

/* A settle fence's fd, reserved until the commit is known to go through. */
struct epdrm_settle_fd {
	int fd;
	struct file *file;
	s32 __user *ptr;
};

static inline struct epdrm_device *to_epdrm(struct drm_device *drm)
{
	return container_of(drm, struct epdrm_device, drm);
}

static inline struct epdrm_plane_state *
to_epdrm_plane_state(struct drm_plane_state *state)
{
	return container_of(state, struct epdrm_plane_state, base.base);
}

/* epdrm_kms.c */
int epdrm_kms_init(struct epdrm_device *epd);

void epdrm_fbdev_setup(struct epdrm_device *epd, unsigned int bpp);
bool epdrm_fbdev_in_use(struct epdrm_device *epd);

/* epdrm_vblank.c */
int epdrm_vblank_init(struct epdrm_device *epd);
int epdrm_enable_vblank(struct drm_crtc *crtc);
void epdrm_disable_vblank(struct drm_crtc *crtc);
bool epdrm_get_vblank_timestamp(struct drm_crtc *crtc, int *max_error,
				ktime_t *vblank_time, bool in_vblank_irq);
void epdrm_vblank_send_event(struct drm_crtc *crtc);

/* epdrm_cleanup.c */
void epdrm_cleanup_init(struct epdrm_device *epd);
void epdrm_cleanup_arm(struct epdrm_device *epd);
void epdrm_cleanup_cancel(struct epdrm_device *epd);

/* epdrm_fence.c */
void epdrm_settle_init(struct epdrm_device *epd);
struct dma_fence *epdrm_settle_create(struct epdrm_device *epd);
u32 epdrm_settle_marker(struct dma_fence *fence);
void epdrm_settle_begin(struct epdrm_device *epd, struct dma_fence *fence);
void epdrm_settle_arm(struct epdrm_device *epd, struct dma_fence *fence,
		      int error);
void epdrm_settle_cancel_all(struct epdrm_device *epd);
int epdrm_settle_install(struct dma_fence *fence, s32 __user *ptr,
			 struct epdrm_settle_fd *out);
void epdrm_settle_publish(struct epdrm_settle_fd *settle_fd, bool committed);

#endif /* _EPDRM_DRV_H */
