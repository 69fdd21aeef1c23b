// SPDX-License-Identifier: GPL-2.0-only
/*
 * epdrm - vblank from a timer at the mode's refresh rate
 *
 * A panel has no scanout, but compositors pace their repaints by vblank:
 * without it, weston asks drmWaitVBlank for a timestamp, fails, and
 * re-commits its framebuffer with no damage clips, which DRM reads as
 * damage of the whole plane. A timer that ticks at the mode's rate while
 * someone waits for vblank gives them what a display would, and stops when
 * nobody does, so the panel's idle machine runs no timer.
 */

#include <drm/drm_crtc.h>
#include <drm/drm_vblank.h>
#include <linux/dma-fence.h>
#include <linux/hrtimer.h>

#include "epdrm_drv.h"

static enum hrtimer_restart epdrm_vblank_tick(struct hrtimer *timer)
{
	struct epdrm_device *epd = container_of(timer, struct epdrm_device,
						vblank_timer);
	bool cookie = dma_fence_begin_signalling();

	/* forwarded first: the timestamp is this tick's expiry */
	hrtimer_forward_now(timer, epd->vblank_period);
	drm_crtc_handle_vblank(&epd->crtc);
	dma_fence_end_signalling(cookie);
	return HRTIMER_RESTART;
}

int epdrm_enable_vblank(struct drm_crtc *crtc)
{
	struct epdrm_device *epd = to_epdrm(crtc->dev);
	struct drm_vblank_crtc *vblank = drm_crtc_vblank_crtc(crtc);

	drm_calc_timestamping_constants(crtc, &crtc->mode);
	epd->vblank_period = ns_to_ktime(vblank->framedur_ns);
	hrtimer_start(&epd->vblank_timer, epd->vblank_period,
		      HRTIMER_MODE_REL);
	return 0;
}

void epdrm_disable_vblank(struct drm_crtc *crtc)
{
	hrtimer_cancel(&to_epdrm(crtc->dev)->vblank_timer);
}

bool epdrm_get_vblank_timestamp(struct drm_crtc *crtc, int *max_error,
				ktime_t *vblank_time, bool in_vblank_irq)
{
	struct epdrm_device *epd = to_epdrm(crtc->dev);
	struct drm_vblank_crtc *vblank = drm_crtc_vblank_crtc(crtc);

	if (!READ_ONCE(vblank->enabled)) {
		*vblank_time = ktime_get();
		return true;
	}
	/* The timer was forwarded before the tick was handled: one back. */
	*vblank_time = ktime_sub(hrtimer_get_expires(&epd->vblank_timer),
				 epd->vblank_period);
	return true;
}

/**
 * epdrm_vblank_send_event() - deliver a commit's event at the next vblank
 * @crtc: the CRTC, its new state's event set or not
 *
 * With vblank off (the CRTC being disabled), at once.
 */
void epdrm_vblank_send_event(struct drm_crtc *crtc)
{
	struct drm_pending_vblank_event *event = crtc->state->event;

	if (!event)
		return;
	crtc->state->event = NULL;
	spin_lock_irq(&crtc->dev->event_lock);
	if (drm_crtc_vblank_get(crtc))
		drm_crtc_send_vblank_event(crtc, event);
	else
		drm_crtc_arm_vblank_event(crtc, event);
	spin_unlock_irq(&crtc->dev->event_lock);
}

/**
 * epdrm_vblank_init() - vblank for the one CRTC
 * @epd: device
 *
 * Return: 0 or a negative error code.
 */
int epdrm_vblank_init(struct epdrm_device *epd)
{
	hrtimer_init(&epd->vblank_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	epd->vblank_timer.function = epdrm_vblank_tick;
	return drm_vblank_init(&epd->drm, 1);
}
