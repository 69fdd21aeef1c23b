/* SPDX-License-Identifier: MIT */
/*
 * Panel devices behind the e-paper backend: one small interface, six
 * implementations (epdfb, mxc_epdc_fb, plain deferred-IO fbdev, epdrm, any
 * other atomic KMS driver, memory).
 */
#ifndef VL_EPD_DEVICE_H
#define VL_EPD_DEVICE_H

#include <epdfb.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vellum/epd-pipeline.h>

struct vl_epd_rect {
	uint32_t left, top, width, height;
};

struct vl_epd_update {
	struct vl_epd_rect rect;
	uint32_t waveform;
	bool full;
	uint32_t flags; /* EPDC_FLAG_* */
	uint32_t marker;
};

struct vl_epd_device;

struct vl_epd_device_impl {
	const char *name;
	/*
	 * Shows rect's pixels; the marker completes later. Without snapshot,
	 * what pixels hold there when the driver takes them (epdfb: when the
	 * update starts on the panel), which converges on the newest content
	 * since updates over a pixel reach the panel in order. False with
	 * errno set on failure; EBUSY: the driver's queue is full, nothing
	 * was submitted, and the backend submits it again later.
	 */
	bool (*submit)(struct vl_epd_device *dev, const struct vl_epd_update *update);
	/*
	 * Optional, for devices that copy an update's pixels out in submit
	 * (a controller loaded over USB or SPI): takes rect's pixels for the
	 * update's marker when the update is queued, on the event loop, right
	 * after they were written. The event loop may write the rect again
	 * for a later update before submit runs on the submit thread; submit
	 * sends what was taken, so each update shows the frame it was made
	 * for. Taking again for a marker replaces what was taken; what is
	 * never submitted goes with the device. False when it could not take
	 * them (no memory): the update is not queued then.
	 */
	bool (*snapshot)(struct vl_epd_device *dev, const struct vl_epd_update *update);
	/*
	 * Optional: shows n updates (2 to group_max) of one flush in one
	 * operation of the driver, such as an atomic commit with a damage clip
	 * for each. They share waveform, full and flags, and none overlaps
	 * another; their markers complete together.
	 */
	bool (*submit_group)(
		struct vl_epd_device *dev, const struct vl_epd_update *updates, size_t n);
	/*
	 * Blocks until marker completed: 0, or a negative errno. Devices that
	 * have completion_fd leave it NULL.
	 */
	int (*wait)(struct vl_epd_device *dev, uint32_t marker);
	/*
	 * Optional, instead of wait, for devices whose completions come as
	 * descriptors (DRM's sync_files): a descriptor that becomes readable
	 * when the submitted marker has completed, or -1 when it completed with
	 * its submission. The backend polls it on its event loop, so no thread
	 * sits in a wait; the device keeps owning it until collect_completion,
	 * which gives the marker's result (0 or a negative errno) and lets go.
	 */
	int (*completion_fd)(struct vl_epd_device *dev, uint32_t marker);
	int (*collect_completion)(struct vl_epd_device *dev, uint32_t marker);
	/*
	 * Optional: called when the backend stops sending updates, before
	 * destroy, which may come later.
	 */
	void (*release)(struct vl_epd_device *dev);
	/* Optional: makes waits in progress and later ones return -ECANCELED soon. */
	void (*cancel)(struct vl_epd_device *dev);
	/*
	 * Optional: a descriptor that becomes readable when the device may have
	 * gone away (-1: none), so that an idle backend learns it too; and the
	 * check to make then, which drains it: true when the device is gone.
	 */
	int (*removal_fd)(struct vl_epd_device *dev);
	bool (*removed)(struct vl_epd_device *dev);
	void (*destroy)(struct vl_epd_device *dev);
};

/*
 * pixels: the panel's framebuffer in its native orientation, 8-bit gray
 * (bpp 8) or XRGB8888 (bpp 32), stride bytes a row.
 */
struct vl_epd_device {
	const struct vl_epd_device_impl *impl;
	/* "PATH (DRIVER, WxH, BPP bpp)": a path open() took and at most 53 bytes more */
	char description[PATH_MAX + 64];
	uint32_t width, height, stride, bpp;
	/* The panel's physical size in millimetres, as the device reports it; 0: unknown. */
	uint32_t width_mm, height_mm;
	uint8_t *pixels;
	struct vl_epd_waveform_table waveforms;
	/* turns the kinds in waveforms into the numbers the driver expects */
	struct vl_epd_waveform_map waveform_map;
	/* waveform_map is the device's own numbering, used unless the config gives one */
	bool own_waveform_map;
	/* How many updates submit_group takes at once. */
	uint32_t group_max;
	/*
	 * Updates the driver holds, running and queued, before it refuses more
	 * with EBUSY, less a margin: the backend keeps fewer than this in
	 * flight. 0: the backend's own limits only.
	 */
	uint32_t max_in_flight;
	/* Without update ioctls every submission is a write plus fsync. */
	bool has_update_ioctls;
	/*
	 * A pixel a fast waveform (DU, A2) drives is taken over at once by a
	 * new fast update, instead of the new one waiting for it (epdfb's panel
	 * model; an EPDC waits). Then such an update queues behind nothing.
	 */
	bool retargets_fast;
	/* The backend and its I/O threads, which may end after the backend. */
	atomic_int refs;
};

/*
 * An update's pixels (8 bpp), taken when it was queued, for a device that
 * copies pixels out: its snapshot takes them, its submit claims them.
 */
struct vl_epd_snapshot {
	struct vl_epd_snapshot *next;
	uint32_t marker;
	struct vl_epd_rect rect;
	uint8_t *pixels; /* rect, packed */
};

/* update's rect of dev's framebuffer, packed; NULL without memory. */
struct vl_epd_snapshot *vl_epd_snapshot_take(
	const struct vl_epd_device *dev, const struct vl_epd_update *update);
/* Adds snapshot to list, in place of one taken for the same marker. */
void vl_epd_snapshot_add(struct vl_epd_snapshot **list, struct vl_epd_snapshot *snapshot);
/* The snapshot of list taken for marker, out of the list; NULL: none. */
struct vl_epd_snapshot *vl_epd_snapshot_claim(struct vl_epd_snapshot **list, uint32_t marker);
void vl_epd_snapshot_free(struct vl_epd_snapshot *snapshot);
void vl_epd_snapshot_free_all(struct vl_epd_snapshot **list);

/*
 * Opens "auto" (the first epdfb or mxc_epdc_fb framebuffer, else the first
 * epdrm card), "/dev/fbN", "mxc:/dev/fbN", "plain:/dev/fbN",
 * "drm:/dev/dri/cardN", "preview[:WxH]" (epdfb's panel model in this
 * process, its waveforms taking time_scale percent of their time; 0: 100)
 * or "memory:WxH[:WMMxHMMmm]" (a physical size in millimetres; unknown
 * without it). waveform_map, when not NULL, numbers the waveforms instead
 * of what the device reports or the BSP's numbering
 * (vl_epd_waveform_map_parse). On failure returns NULL and writes a
 * message to error.
 */
struct vl_epd_device *vl_epd_device_open(const char *spec, const char *waveform_map,
	unsigned int time_scale, uint16_t vcom_mv, char *error, size_t error_size);
/*
 * Whether dev keeps the device contract: submit and destroy; wait, or
 * completion_fd with collect_completion; submit_group only with a
 * group_max of at least 2; removed with removal_fd; pixels of 8 or 32 bpp.
 * When not, writes what it breaks to error. vl_epd_device_open and the
 * I/O queue check it, so that a broken device fails at once, not in a
 * thread.
 */
bool vl_epd_device_check(const struct vl_epd_device *dev, char *error, size_t error_size);
/*
 * Whether a positive errno from submit or wait means the device refuses the
 * update as it is, for good (an unknown waveform or flag, a rect it cannot
 * take): sending it again unchanged can only fail again.
 */
bool vl_epd_error_is_permanent(int error);
/*
 * The waveform every device takes: GC16 as the device numbers it, or AUTO
 * when its waveform map has no GC16.
 */
uint32_t vl_epd_device_safe_waveform(const struct vl_epd_device *dev);
/* Whether two rects share a pixel. */
bool vl_epd_rects_overlap(const struct vl_epd_rect *a, const struct vl_epd_rect *b);
/* Takes a reference; the device is destroyed when the last one is dropped. */
struct vl_epd_device *vl_epd_device_ref(struct vl_epd_device *dev);
void vl_epd_device_unref(struct vl_epd_device *dev);

struct vl_epd_device *vl_epd_fbdev_open(const char *path, char *error, size_t error_size);
struct vl_epd_device *vl_epd_drm_open(const char *path, char *error, size_t error_size);
/*
 * An IT8951 board: "it8951:/dev/sgN" through SG_IO. vcom_mv is the panel's
 * VCOM as a magnitude in millivolts (1500: -1.50 V), set on the board when
 * it holds another; 0: the board's own, refused when it has none.
 */
struct vl_epd_device *vl_epd_it8951_open(
	const char *path, uint16_t vcom_mv, char *error, size_t error_size);
struct vl_it8951_transport;
/* The same over another transport, which the device owns from now on, even on failure. */
struct vl_epd_device *vl_epd_it8951_open_transport(struct vl_it8951_transport *transport,
	const char *path, uint16_t vcom_mv, char *error, size_t error_size);
/* The SCSI generic node of the first IT8951 board, in path; false when there is none. */
bool vl_epd_it8951_find(char *path, size_t path_size);
/* The preview panel's size when its specification gives none: a 10.3" panel's. */
#define VL_EPD_PREVIEW_WIDTH  1872
#define VL_EPD_PREVIEW_HEIGHT 1404
struct vl_epd_device *vl_epd_preview_open(
	uint32_t width, uint32_t height, unsigned int time_scale, char *error, size_t error_size);
struct vl_panel_model;
/* The preview device's panel model; NULL for any other device. */
struct vl_panel_model *vl_epd_device_preview_model(struct vl_epd_device *dev);
/* The path of the first epdrm card, in path; false when there is none. */
bool vl_epd_drm_find_epdrm(char *path, size_t path_size);

/* The MXCFB_SEND_UPDATE request of an update, at the panel's temperature. */
struct mxcfb_update_data vl_epd_update_request(const struct vl_epd_update *update);
/*
 * Fills table from a device's entries as EPDFB_GET_WAVEFORM describes them:
 * get fills info for info->index, and is false past the last.
 */
void vl_epd_read_waveforms(struct vl_epd_waveform_table *table,
	bool (*get)(struct epdfb_waveform_info *info, void *data), void *data);

/* A socket of the kernel's device events (-1 without one), and reading it empty. */
int vl_epd_open_uevent_socket(void);
void vl_epd_drain_uevents(int fd);
struct vl_epd_device *vl_epd_memory_open(
	uint32_t width, uint32_t height, char *error, size_t error_size);

/* How long the memory device's updates take to complete (0: at once). */
void vl_epd_memory_set_latency(struct vl_epd_device *dev, unsigned int latency_ms);
/* How long its updates of waveform take instead, as a panel's waveforms differ. */
void vl_epd_memory_set_waveform_latency(
	struct vl_epd_device *dev, uint32_t waveform, unsigned int latency_ms);
/*
 * While hold is set, no update of the memory device completes: they stay in
 * flight, whatever the latency, until it is cleared.
 */
void vl_epd_memory_hold(struct vl_epd_device *dev, bool hold);
/* Whether the memory device claims to retarget fast waveforms as epdfb does. */
void vl_epd_memory_set_retargets_fast(struct vl_epd_device *dev, bool retargets);
/*
 * The memory device's record of submitted updates, for tests, oldest first.
 * It keeps at most VL_EPD_MEMORY_RECORD_MAX: when full, its older half goes,
 * so that a compositor on the memory panel runs for as long as it likes.
 */
#define VL_EPD_MEMORY_RECORD_MAX 4096
size_t vl_epd_memory_updates(struct vl_epd_device *dev, const struct vl_epd_update **updates);
/*
 * For each update of the record, the number of the submission call that
 * brought it: updates submitted together share it.
 */
size_t vl_epd_memory_calls(struct vl_epd_device *dev, const uint32_t **calls);
/*
 * Before the backend starts: makes the memory device take up to group_max
 * updates in one call (submit_group), as a DRM device does; 1: one a call.
 */
void vl_epd_memory_set_group_max(struct vl_epd_device *dev, uint32_t group_max);
/*
 * While closed, the memory device's submissions wait before they take any
 * pixels: updates stay queued behind the one being submitted.
 */
void vl_epd_memory_gate(struct vl_epd_device *dev, bool closed);
/*
 * Makes the memory device copy each update's pixels out, as a controller
 * loaded over USB or SPI does: it takes them when the update is queued
 * (snapshot), sends them when it is submitted, and keeps them for
 * vl_epd_memory_update_pixels. Set it while no update is queued.
 */
void vl_epd_memory_set_copy_out(struct vl_epd_device *dev, bool copy_out);
/*
 * With copy_out, the pixels update index of the record took (its rect,
 * packed, rect.width a row); NULL without.
 */
const uint8_t *vl_epd_memory_update_pixels(struct vl_epd_device *dev, size_t index);
/* What the memory panel shows: the pixels of every update that was submitted. */
const uint8_t *vl_epd_memory_panel(struct vl_epd_device *dev);

enum vl_epd_memory_call {
	VL_EPD_MEMORY_SUBMIT,
	VL_EPD_MEMORY_WAIT,
};

/*
 * Makes the next count calls fail with error (a positive errno); ENODEV
 * makes the device gone for good, as an unplugged one.
 */
void vl_epd_memory_fail(
	struct vl_epd_device *dev, enum vl_epd_memory_call call, unsigned int count, int error);
/*
 * Makes submissions with an update of waveform fail with EINVAL from now
 * on, as a driver refuses a waveform it does not know.
 */
void vl_epd_memory_refuse_waveform(struct vl_epd_device *dev, uint32_t waveform);
/*
 * Makes submissions with an update that overlaps rect fail with error (a
 * positive errno) until it is called again with error 0.
 */
void vl_epd_memory_fail_area(struct vl_epd_device *dev, const struct vl_epd_rect *rect, int error);
/* How many submission calls the device had, refused ones included. */
unsigned int vl_epd_memory_submissions(struct vl_epd_device *dev);

#endif
