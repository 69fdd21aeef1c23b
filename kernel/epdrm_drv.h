/* SPDX-License-Identifier: GPL-2.0 */
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
#include <drm/drm_gem_atomic_helper.h>
#include <drm/drm_modes.h>
#include <drm/drm_plane.h>

#include "epdfb_drv.h"

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
};

/**
 * struct epdrm_plane_state - the primary plane's state
 * @base: the shadow plane state, which maps the framebuffer for the CPU
 * @waveform: EPD_WAVEFORM: WAVEFORM_MODE_AUTO or a waveform of the panel
 * @full: EPD_FULL: a flashing full refresh of the commit's damage
 */
struct epdrm_plane_state {
	struct drm_shadow_plane_state base;
	u32 waveform;
	bool full;
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

#endif /* _EPDRM_DRV_H */
