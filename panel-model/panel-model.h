/* SPDX-License-Identifier: MIT */
/*
 * epdfb's simulated E Ink panel inside a process: the driver's own update
 * queue, waveform timing, merging, collisions, gray levels and ghosting
 * (kernel/epdfb_queue.c, epdfb_marker.c, epdfb_trace.c, epdfb_sim.c,
 * epdfb_pixels.c, epdfb_check.c, built against panel-model/shim), behind the
 * mxc_epdc_fb requests. A change to
 * the driver's model changes this one: they are the same source.
 */
#ifndef VL_PANEL_MODEL_H
#define VL_PANEL_MODEL_H

#include <epdfb.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vl_panel_model;

/* A completed update, as a line of epdfb's debugfs trace. */
struct vl_panel_model_trace {
	uint32_t marker, waveform, mode, flags;
	struct mxcfb_rect rect;
	uint64_t submit_ns, start_ns, end_ns; /* CLOCK_MONOTONIC */
	unsigned int merged;
	bool collided, flashing;
};

/*
 * A white panel of width x height (1 to 16384 each), 8-bit gray, whose
 * waveforms take time_scale percent of their time (1 to 100000, as epdfb's
 * parameter), at 25 degrees C. NULL, with a message in error, on failure.
 */
struct vl_panel_model *vl_panel_model_create(
	uint32_t width, uint32_t height, unsigned int time_scale, char *error, size_t error_size);
/*
 * As the device going away: drops what is queued or in flight; waits in
 * progress and later calls end with -ENODEV. Waits must have returned
 * before destroy, which cancels too.
 */
void vl_panel_model_cancel(struct vl_panel_model *model);
void vl_panel_model_destroy(struct vl_panel_model *model);

/* The framebuffer: 8-bit gray, width bytes a row. Updates show what it holds. */
uint8_t *vl_panel_model_pixels(struct vl_panel_model *model);
uint32_t vl_panel_model_width(const struct vl_panel_model *model);
uint32_t vl_panel_model_height(const struct vl_panel_model *model);

/* MXCFB_SEND_UPDATE: 0, or the negative errno the ioctl would give. */
int vl_panel_model_submit(struct vl_panel_model *model, const struct mxcfb_update_data *update);
/* MXCFB_WAIT_FOR_UPDATE_COMPLETE: 0, or its negative errno; collided may be NULL. */
int vl_panel_model_wait(struct vl_panel_model *model, uint32_t marker, uint32_t *collided);
/* Whether an update carrying marker is still queued or in flight. */
bool vl_panel_model_pending(struct vl_panel_model *model, uint32_t marker);
/*
 * An eventfd that becomes readable when an update was accepted, from any
 * thread: a reader that sleeps while the panel rests learns there to wake.
 * The reader drains it; the model owns it.
 */
int vl_panel_model_submitted_fd(const struct vl_panel_model *model);
/* Whether anything is queued, held back or in flight: what the panel shows may still change. */
bool vl_panel_model_busy(struct vl_panel_model *model);
/* FBIO_WAITFORVSYNC: waits for the updates submitted before the call. */
int vl_panel_model_wait_submitted(struct vl_panel_model *model);

/* How many updates have completed: what the panel shows changed when it grows. */
uint64_t vl_panel_model_completions(struct vl_panel_model *model);
/* What the panel shows now, width x height bytes, ghosts included. */
void vl_panel_model_read(struct vl_panel_model *model, uint8_t *panel);
/*
 * What a camera would see at now_ns (CLOCK_MONOTONIC): the panel as
 * vl_panel_model_read gives it, with each update in flight part of the
 * way. A flashing one goes black, then white, then shows its pixels, a
 * third of its time each; a two-level one (DU, A2) switches halfway; the
 * others fade from the old pixels to the new ones.
 */
void vl_panel_model_read_frame(struct vl_panel_model *model, uint8_t *frame, uint64_t now_ns);
/* The updates completed so far, oldest first: at most max of the newest. */
size_t vl_panel_model_trace(
	struct vl_panel_model *model, struct vl_panel_model_trace *trace, size_t max);
/*
 * The same updates as the text of epdfb's debugfs "updates" file, a line
 * each, written by the driver's own code: malloc'ed, NULL without memory.
 */
char *vl_panel_model_trace_text(struct vl_panel_model *model);
/*
 * The counters as the text of epdfb's debugfs "stats" file, written by the
 * driver's own code: malloc'ed, NULL without memory.
 */
char *vl_panel_model_stats_text(struct vl_panel_model *model);
/* Zeroes the counters, as writing to epdfb's debugfs "stats" file does. */
void vl_panel_model_stats_reset(struct vl_panel_model *model);
/* EPDFB_GET_WAVEFORM: the waveform of info->index; 0, or -EINVAL past the last. */
int vl_panel_model_waveform(struct vl_panel_model *model, struct epdfb_waveform_info *info);
/*
 * The updates the panel is driving now, oldest first, at most max: what a
 * trace line will say of them once complete (their end_ns is due). Pixels
 * that collided when an update started are driven by its resubmission, once
 * the update driving them ended: an entry of its own, with the update's
 * marker, its rect that of those pixels.
 */
size_t vl_panel_model_in_flight(
	struct vl_panel_model *model, struct vl_panel_model_trace *updates, size_t max);
/* A waveform's name ("DU", "GC16", ...), or NULL for one the panel lacks. */
const char *vl_panel_model_waveform_name(uint32_t waveform);

#endif
