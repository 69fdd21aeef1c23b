/* SPDX-License-Identifier: MIT */
/*
 * epdrm, the panel as a DRM device, seen by a KMS client (libdrm): loading
 * the module, its one pipeline, dumb buffers and atomic commits with damage
 * clips and the EPD_* plane properties. The panel side (trace, readback,
 * stats) is epd_test.h's, through a struct epd that has only the debugfs
 * directory and the size.
 */
#ifndef EPDRM_TEST_H
#define EPDRM_TEST_H

#include <drm_fourcc.h>
#include <stdbool.h>
#include <stdint.h>
#include <xf86drmMode.h>

#include "epd_test.h"

#define EPDRM_UNBIND_PATH "/sys/bus/platform/drivers/epdrm/unbind"
#define EPDRM_DEV_NAME    "epdrm.0"

/* Property ids of the pipeline's objects, by name. */
struct epdrm_props {
	uint32_t crtc_active, crtc_mode_id;
	uint32_t conn_crtc_id;
	uint32_t fb_id, crtc_id, src_x, src_y, src_w, src_h, crtc_x, crtc_y, crtc_w, crtc_h;
	uint32_t damage_clips, waveform, full, settle_fence_ptr, in_fence_fd;
};

struct epdrm {
	int fd;
	char devnode[64];
	uint32_t crtc, connector, plane;
	drmModeModeInfo mode;
	uint32_t mode_blob;
	struct epdrm_props props;
	/* the panel's debugfs files, read with epd_test.h */
	struct epd panel;
};

/* A dumb buffer with a framebuffer on it, mapped. */
struct epdrm_fb {
	uint32_t handle, fb_id, width, height, pitch, format;
	size_t size;
	uint8_t *map;
};

/* Loads epdrm.ko (EPDFB_KO's directory) and the DRM modules it needs. */
void epdrm_load(const char *params);
/* 0, or -errno of removing epdrm. */
int epdrm_try_unload(void);
/* Opens the epdrm card, atomic, and finds its pipeline and debugfs files. */
void epdrm_open(struct epdrm *e);
void epdrm_close(struct epdrm *e);

void epdrm_fb_create(struct epdrm *e, struct epdrm_fb *fb, uint32_t format);
void epdrm_fb_destroy(struct epdrm *e, struct epdrm_fb *fb);
/* Fills a rect of the buffer with a gray level (XRGB: the same in R, G, B). */
void epdrm_fb_fill(
	struct epdrm_fb *fb, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint8_t gray);

/* The value of EPD_WAVEFORM named name ("auto", "DU"...), or -1. */
int64_t epdrm_waveform_value(struct epdrm *e, const char *name);

/*
 * One commit of fb to the plane with these damage clips (n_clips 0: the
 * property left unset) and properties; flags as drmModeAtomicCommit's,
 * DRM_MODE_ATOMIC_ALLOW_MODESET added for the first. Returns 0 or -errno.
 */
struct epdrm_commit {
	const struct epdrm_fb *fb;
	const struct drm_mode_rect *clips;
	unsigned int n_clips;
	int64_t waveform; /* -1: leave as it is */
	int full;         /* -1: leave as it is */
	uint32_t flags;
	int32_t crtc_x;      /* the plane's position: not 0 is refused */
	int64_t raw_clips;   /* a blob id for FB_DAMAGE_CLIPS, made by the test */
	int *settle_fd;      /* EPD_SETTLE_FENCE_PTR, or NULL */
	const int *in_fence; /* IN_FENCE_FD: a fence the commit waits for, or NULL */
	void *user_data;
};
int epdrm_commit(struct epdrm *e, const struct epdrm_commit *c);

/* The plane's current value of a property (its id), or UINT64_MAX if it has none. */
uint64_t epdrm_plane_property(struct epdrm *e, uint32_t prop);

/* Waits until the panel has completed every update submitted; false on timeout. */
bool epdrm_wait_idle(struct epdrm *e);

/* A white frame, GC16 with a flash, settled: the card must be open, as master. */
void epdrm_clear_white(struct epdrm *e);

/* N of the fbdev emulation's /dev/fbN, or -1. */
int epdrm_find_fbdev(void);

#endif
