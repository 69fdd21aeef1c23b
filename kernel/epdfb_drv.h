/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * epdfb - e-paper framebuffer: driver internals shared between its files
 */
#ifndef _EPDFB_DRV_H
#define _EPDFB_DRV_H

#include <linux/fb.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <epdfb.h>

#define EPDFB_MAX_IN_FLIGHT	16	/* one update per LUT */
#define EPDFB_MAX_MARKERS	8	/* markers one merged update may carry */
#define EPDFB_MAX_QUEUED	64	/* updates queued, not started yet */
#define EPDFB_SNAPSHOT_FRAMES	4	/* SNAPSHOT pixels queued, in frames */
#define EPDFB_MARKER_HISTORY	256	/* results a late marker wait sees */
#define EPDFB_MARKERS_FORGOTTEN	4096	/* older markers known to be gone */
#define EPDFB_WAITER_HASH_BITS	6
#define EPDFB_TRACE_LEN		4096	/* completed updates kept in the trace */
#define EPDFB_WAIT_TIMEOUT_MS	5000	/* how late a wait lets its updates be */
#define EPDFB_HANG_TIMEOUT_MS	2000	/* past a hung update's due end, scaled */
#define EPDFB_PIXEL_LUT		0x1f	/* par->owner: LUT driving it, plus 1 */
#define EPDFB_PIXEL_HELD	0x40	/* par->owner: by a failed update */
#define EPDFB_PIXEL_DEFERRED	0x80	/* par->owner: collided, target deferred */
#define EPDFB_TEMP_MIN		0
#define EPDFB_TEMP_MAX		50

struct epdfb_par;

/**
 * struct epdfb_waveform - one waveform of a panel's waveform table
 * @id: WAVEFORM_MODE_* value
 * @name: short name used in the trace and the enumeration ioctl
 * @gray_levels: gray levels the waveform reproduces
 * @flags: EPDFB_WAVEFORM_* flags
 * @base_ms: duration at 25 degrees C and time_scale 100
 * @ghost_gain: residual left by a non-flashing transition, in 1/256 of the
 *	transition's size
 */
struct epdfb_waveform {
	u32 id;
	const char *name;
	u32 gray_levels;
	u32 flags;
	u32 base_ms;
	u32 ghost_gain;
};

/**
 * struct epdfb_update - one panel update, from submission to completion
 * @node: link in the queue or the in-flight list
 * @rect: area of the framebuffer to show
 * @waveform: requested waveform; WAVEFORM_MODE_AUTO until the update starts
 * @mode: UPDATE_MODE_PARTIAL or UPDATE_MODE_FULL
 * @flags: EPDC_FLAG_* flags
 * @temp: temperature in degrees C the waveform is timed for
 * @markers: markers completed with this update
 * @marker_collided: whether the update each marker was sent with collided
 * @n_markers: entries used in @markers
 * @merged: updates merged into this one
 * @seq: submission number; merged updates keep the oldest one's
 * @collided: when it started, some of its pixels were being driven by an
 *	update in flight to another level; they are driven later, by its
 *	resubmission, as the i.MX EPDC resubmits collided pixels
 * @resubmit: a record taken at allocation, for the pixels that wait when
 *	the update starts: no allocation in the start path
 * @deferred: a resubmission: the update drives only the pixels that had to
 *	wait when its update started, marked EPDFB_PIXEL_DEFERRED in
 *	par->owner, their levels in par->deferred
 * @twin: an update and its resubmission, while both are to complete: the
 *	one that completes last completes the update (trace, counters)
 * @whole: a resubmission's update's rect, for the trace
 * @lut: while in flight, the LUT driving its pixels (par->owner)
 * @flashing: the resolved waveform flashes
 * @automatic: a band of rows from deferred IO, never refused
 * @snapshot: @pixels were taken at submission and count against the
 *	SNAPSHOT pool until the update starts
 * @failed: nothing is shown: the pixels could not be captured, or the
 *	controller failed or hung
 * @hung: the controller never reports the end; the update is abandoned at
 *	@end_ns
 * @error: what the update's markers complete with: 0, -EIO (failed),
 *	-ETIMEDOUT (hung) or -ENODATA (shown, timed without a temperature
 *	reading)
 * @submit_ns: submission time (ktime_get_ns)
 * @start_ns: time the panel started driving it
 * @end_ns: time the panel will have finished
 * @due_ns: when the update is due to end, for the deadline of a marker
 *	wait: once started, at the end of its waveform (a hung one is
 *	abandoned later); while queued, as foreseen at the wait's call
 * @pixels: gray levels to show; taken at submission in the SNAPSHOT
 *	scheme, into a rect-sized buffer of their own, else when the update
 *	starts; from its start on, at the rect's place in par->flight
 * @framed: @pixels lie in par->flight, rows par->width apart
 */
struct epdfb_update {
	struct list_head node;
	struct mxcfb_rect rect;
	u32 waveform;
	u32 mode;
	u32 flags;
	int temp;
	u32 markers[EPDFB_MAX_MARKERS];
	bool marker_collided[EPDFB_MAX_MARKERS];
	unsigned int n_markers;
	unsigned int merged;
	u64 seq;
	bool collided;
	struct epdfb_update *resubmit;
	bool deferred;
	struct epdfb_update *twin;
	struct mxcfb_rect whole;
	u8 lut;
	bool flashing;
	bool automatic;
	bool snapshot;
	bool failed;
	bool hung;
	int error;
	u64 submit_ns;
	u64 start_ns;
	u64 end_ns;
	u64 due_ns;
	u8 *pixels;
	bool framed;
};

/* Bytes from one row of an update's pixels to the next. */
static inline size_t epdfb_update_stride(u32 panel_width,
					 const struct epdfb_update *upd)
{
	return upd->framed ? panel_width : upd->rect.width;
}

/**
 * struct epdfb_panel_ops - a panel backend: what sits behind the framebuffer
 * @waveforms: the waveform table
 * @n_waveforms: entries in @waveforms
 * @init: allocate the backend's state; the panel starts white
 * @fini: free it
 * @duration_ms: duration of @wf at @temp degrees C, before time_scale
 * @show: drive the panel to the update's pixels; returns pixels driven
 * @read_panel: copy what the panel physically shows, one byte per pixel
 * @ghost_milli: mean residual image over the panel, in 1/1000 gray level
 * @ghost_span: whether row @y has pixels whose residual image is at least
 *	@min gray levels, and the first and last of them; NULL if the panel
 *	cannot tell
 * @retarget: the update driving the pixel at offset @i toward @to with
 *	@wf, @progress (in 1/256) of the way, is cut off there, for another
 *	to drive the pixel from the state it is in; NULL if the panel cannot
 */
struct epdfb_panel_ops {
	const struct epdfb_waveform *waveforms;
	unsigned int n_waveforms;
	int (*init)(struct epdfb_par *par);
	void (*fini)(struct epdfb_par *par);
	u32 (*duration_ms)(const struct epdfb_waveform *wf, int temp);
	u64 (*show)(struct epdfb_par *par, const struct epdfb_update *upd,
		    const struct epdfb_waveform *wf);
	void (*read_panel)(struct epdfb_par *par, u8 *dst);
	u64 (*ghost_milli)(struct epdfb_par *par);
	bool (*ghost_span)(struct epdfb_par *par, u32 y, u32 min, u32 *first,
			   u32 *last);
	void (*retarget)(struct epdfb_par *par, size_t i, u8 to, u32 progress,
			 const struct epdfb_waveform *wf);
};

struct epdfb_stats {
	u64 updates_submitted;
	u64 updates_completed;
	u64 updates_merged;
	u64 updates_cancelled;
	u64 updates_refused;
	u64 updates_failed;
	u64 collisions;
	u64 pixels_driven;
	u64 flashes;
	u64 per_waveform[WAVEFORM_MODE_GL16 + 1];
	u64 defio_runs;
	u64 defio_pages;
	u64 power_downs;
	u64 capture_errors;
	u64 update_errors;
	u64 update_timeouts;
	u64 temperature_errors;
};

struct epdfb_trace_entry {
	u32 marker;
	u32 waveform;
	u32 mode;
	u32 flags;
	struct mxcfb_rect rect;
	u64 submit_ns;
	u64 start_ns;
	u64 end_ns;
	unsigned int merged;
	bool collided;
	bool flashing;
};

/* Room for any line of the debugfs updates trace, its newline and NUL. */
#define EPDFB_TRACE_LINE_LEN 320

/* Room for the whole text of the debugfs stats file and its NUL. */
#define EPDFB_STATS_TEXT_LEN 2048

struct epdfb_done_marker {
	u32 marker;
	bool collided;
	int error;
};

/**
 * struct epdfb_par - one e-paper framebuffer device
 * @info: the fbdev device
 * @dev: the platform device's struct device
 * @defio: deferred IO setup
 * @screen: framebuffer memory (vmalloc)
 * @width: panel width in pixels
 * @height: panel height in pixels
 * @bpp: 8 (gray) or 32 (XRGB8888)
 * @line_length: bytes per framebuffer line
 * @time_scale: percentage applied to every waveform duration
 * @wait_holds_lock: MXCFB_WAIT_FOR_UPDATE_COMPLETE keeps @ioctl_lock held
 * @ioctl_lock: with @wait_holds_lock, serializes the driver's ioctls in
 *	place of info->lock
 * @ops: panel backend
 * @panel: panel backend state
 * @lock: protects everything below
 * @queue: submitted updates not started yet, in submission order
 * @n_queued: entries in @queue, at most EPDFB_MAX_QUEUED
 * @held: an automatic update waiting for room in the full @queue; later
 *	bands merge into it
 * @unshown: bounds of the pixels of updates that failed, which the panel
 *	lacks whatever @screen holds (width 0: none); a front end that sends
 *	only pixels that changed sends these again
 * @submit_seq: number of the last update accepted
 * @snapshot_bytes: pixels held by queued SNAPSHOT updates
 * @snapshot_limit: most @snapshot_bytes may reach
 * @in_flight: updates the panel is driving
 * @flight: the level each pixel driven by an update in flight is driven to,
 *	at its place. Panel-sized and allocated with the queue, as are
 *	@owner and @deferred: the work that starts updates also completes
 *	them and signals epdrm's fences, and may not wait for memory reclaim.
 * @owner: per pixel, the LUT driving it plus 1 (EPDFB_PIXEL_LUT), 0 if
 *	none, and EPDFB_PIXEL_DEFERRED when it collided and a queued update
 *	will drive it to its level in @deferred; rects in flight may overlap,
 *	a pixel is driven by one update at a time
 * @deferred: levels of the pixels that collided, waiting for the update
 *	driving them to end; also where an update's pixels are captured when
 *	it starts, before they are shared out
 * @luts: LUTs in use, a bit each
 * @n_in_flight: entries in @in_flight
 * @scheme: UPDATE_SCHEME_*
 * @auto_update: AUTO_UPDATE_MODE_*
 * @ambient_temp: temperature used for TEMP_USE_AMBIENT
 * @pwrdown_delay_ms: idle time before the panel powers down, or -1
 * @modes: waveforms WAVEFORM_MODE_AUTO chooses from
 * @powered: the panel's power supply is on
 * @power_down_ns: time of the last power-down (ktime_get_ns)
 * @dead: the device is being removed; nothing new starts
 * @wq: runs @panel_work and @power_work; unbound, as they loop over pixels
 * @panel_work: completes due updates and starts queued ones
 * @power_work: powers the panel down once idle
 * @inject_capture_failures: pixel captures at update start still to fail,
 *	set through debugfs to test the error path
 * @inject_update_errors: updates the controller still fails when they start
 * @inject_update_hangs: updates still to hang, never reported done
 * @inject_temperature_errors: temperature sensor reads still to fail
 * @marker_waiters: marker waits in progress, hashed by marker; each is
 *	told its own result when its marker completes
 * @pending_waiters: FBIO_WAITFORVSYNC waits in progress
 * @completions: count of completed updates
 * @stats: counters shown in debugfs
 * @done: results of the last EPDFB_MARKER_HISTORY completed markers, for
 *	waits that begin after completion
 * @done_head: next slot in @done
 * @forgotten: ring of markers that fell out of @done, so that a late wait
 *	for one of them fails instead of passing for a marker never sent
 * @forgotten_head: next slot in @forgotten
 * @trace: ring of completed updates
 * @trace_head: next slot in @trace
 * @trace_len: valid entries in @trace
 * @debugfs: this device's debugfs directory
 * @marker_done: called, with @lock held, for each update carrying a
 *	marker when it is done, with its error, and whether it was the last
 *	one carrying it (@settled); a front end's own completion (epdrm's
 *	fences), NULL for epdfb
 * @captured: called, with @lock held, just before an update's pixels are
 *	taken from the framebuffer; a front end's record of what the panel
 *	was given (epdfb's, see epdfb_taken.c), NULL for epdrm
 * @palette: pseudo palette: the console's 16 colours as pixels
 * @damage_lock: protects @damage_top and @damage_bottom
 * @damage_top: first row drawn by the fbdev helpers since the last deferred
 *	IO run
 * @damage_bottom: row after the last one drawn, 0 if none
 * @damage_full: write() drew some of those rows, not only the console
 */
struct epdfb_par {
	struct fb_info *info;
	struct device *dev;
	struct fb_deferred_io defio;
	u8 *screen;
	u32 width;
	u32 height;
	u32 bpp;
	u32 line_length;
	u32 time_scale;
	bool wait_holds_lock;
	struct mutex ioctl_lock; /* see the kernel-doc above */
	const struct epdfb_panel_ops *ops;
	void *panel;

	struct mutex lock; /* see the kernel-doc above */
	struct list_head queue;
	unsigned int n_queued;
	struct epdfb_update *held;
	struct mxcfb_rect unshown;
	u64 submit_seq;
	size_t snapshot_bytes;
	size_t snapshot_limit;
	struct list_head in_flight;
	u8 *flight;
	u8 *owner;
	u8 *deferred;
	u32 luts;
	unsigned int n_in_flight;
	u32 scheme;
	u32 auto_update;
	int ambient_temp;
	s32 pwrdown_delay_ms;
	struct mxcfb_waveform_modes modes;
	bool powered;
	u64 power_down_ns;
	bool dead;
	struct workqueue_struct *wq;
	struct delayed_work panel_work;
	struct delayed_work power_work;
	u32 inject_capture_failures;
	u32 inject_update_errors;
	u32 inject_update_hangs;
	u32 inject_temperature_errors;
	DECLARE_HASHTABLE(marker_waiters, EPDFB_WAITER_HASH_BITS);
	struct hlist_head pending_waiters;
	u64 completions;
	struct epdfb_stats stats;
	struct epdfb_done_marker done[EPDFB_MARKER_HISTORY];
	unsigned int done_head;
	u32 *forgotten;
	unsigned int forgotten_head;
	struct epdfb_trace_entry *trace;
	unsigned int trace_head;
	unsigned int trace_len;
	struct dentry *debugfs;
	void (*marker_done)(struct epdfb_par *par, u32 marker, int error,
			    bool settled);
	void (*captured)(struct epdfb_par *par,
			 const struct epdfb_update *upd);
	u32 palette[16];
	spinlock_t damage_lock; /* see the kernel-doc above */
	u32 damage_top;
	u32 damage_bottom;
	bool damage_full;
};

/* Whether the update in flight @upd drives the pixel at offset @i. */
static inline bool epdfb_update_drives(const struct epdfb_par *par,
				       const struct epdfb_update *upd,
				       size_t i)
{
	return (par->owner[i] & EPDFB_PIXEL_LUT) == upd->lut + 1u;
}

/* Where a walk over the rows of a rect is: see epdfb_for_each_row(). */
struct epdfb_row_walk {
	const struct epdfb_par *par;
	const struct mxcfb_rect *r;
	u32 rows;
};

static inline bool epdfb_row_next(struct epdfb_row_walk *walk, u32 *y,
				  size_t *i)
{
	const struct mxcfb_rect *r = walk->r;

	if (walk->rows == r->height)
		return false;
	cond_resched();
	*y = r->top + walk->rows++;
	*i = (size_t)*y * walk->par->width + r->left;
	return true;
}

/*
 * Walks the rows @y of the rect @r, @i the offset of each row's first pixel
 * in the panel-sized arrays (par->owner, par->flight, par->deferred, the
 * panel's). A full-screen update's passes cover millions of pixels under
 * par->lock: they yield between rows.
 */
#define epdfb_for_each_row(par, r, y, i)				\
	for (struct epdfb_row_walk walk_ = { par, r, 0 };		\
	     epdfb_row_next(&walk_, &(y), &(i));)

/*
 * How many pixels from offset @i on, at most @n, have the owner of the one
 * at @i: what becomes of one becomes of them all, and the passes take them
 * at once. A full-screen update meets runs as wide as the panel, and
 * memchr_inv() compares them by words where a loop took every byte.
 */
static inline size_t epdfb_owner_run(const struct epdfb_par *par, size_t i,
				     size_t n)
{
	const u8 *own = par->owner + i;
	const u8 *end = memchr_inv(own, *own, n);

	return end ? end - own : n;
}

extern const struct epdfb_panel_ops epdfb_sim_ops;

/**
 * struct epdfb_panel_params - the panel's module parameters, epdfb's and
 *	epdrm's alike
 * @width: width in pixels
 * @height: height in pixels
 * @width_mm: physical width in millimetres, 0 if unknown
 * @height_mm: physical height in millimetres, 0 if unknown
 * @time_scale: percentage applied to every waveform duration
 * @ambient_temp: temperature in degrees C
 */
struct epdfb_panel_params {
	unsigned int width;
	unsigned int height;
	unsigned int width_mm;
	unsigned int height_mm;
	unsigned int time_scale;
	int ambient_temp;
};

/* The panel's parameters' defaults: the 10.3" 4:3 panel */
#define EPDFB_PANEL_DEFAULTS {		\
	.width = 1872,			\
	.height = 1404,			\
	.width_mm = 209,		\
	.height_mm = 157,		\
	.time_scale = 100,		\
	.ambient_temp = 25,		\
}

/*
 * The panel's module parameters, the same names on epdfb and epdrm, each
 * module its own values in its static epdfb_panel.
 */
#define DEFINE_EPDFB_PANEL_PARAMS()					\
	static struct epdfb_panel_params epdfb_panel = EPDFB_PANEL_DEFAULTS; \
	module_param_named(width, epdfb_panel.width, uint, 0444);	\
	MODULE_PARM_DESC(width, "Panel width in pixels (default 1872)"); \
	module_param_named(height, epdfb_panel.height, uint, 0444);	\
	MODULE_PARM_DESC(height, "Panel height in pixels (default 1404)"); \
	module_param_named(width_mm, epdfb_panel.width_mm, uint, 0444);	\
	MODULE_PARM_DESC(width_mm,					\
			 "Panel width in millimetres, 0 if unknown (default 209)"); \
	module_param_named(height_mm, epdfb_panel.height_mm, uint, 0444); \
	MODULE_PARM_DESC(height_mm,					\
			 "Panel height in millimetres, 0 if unknown (default 157)"); \
	module_param_named(time_scale, epdfb_panel.time_scale, uint, 0444); \
	MODULE_PARM_DESC(time_scale,					\
			 "Waveform durations are multiplied by time_scale/100 (default 100)"); \
	module_param_named(ambient_temp, epdfb_panel.ambient_temp, int, 0444); \
	MODULE_PARM_DESC(ambient_temp,					\
			 "Panel temperature in degrees C, 0..50 (default 25)")

struct platform_driver;
struct platform_device;

/* epdfb_module.c */
int epdfb_check_panel_params(const struct epdfb_panel_params *p);
int epdfb_platform_register(struct platform_driver *drv,
			    struct platform_device **pdev,
			    const int *probe_error);
void epdfb_platform_unregister(struct platform_driver *drv,
			       struct platform_device *pdev);

/* epdfb_queue.c */
int epdfb_queue_init(struct epdfb_par *par);
void epdfb_queue_fini(struct epdfb_par *par);
int epdfb_queue_submit(struct epdfb_par *par,
		       const struct mxcfb_update_data *req);
int epdfb_queue_submit_rows(struct epdfb_par *par, u32 top, u32 bottom,
			    u32 mode);
struct epdfb_update *epdfb_update_alloc(void);
void epdfb_update_free(struct epdfb_update *upd);
int epdfb_queue_submit_accepted(struct epdfb_par *par,
				const struct mxcfb_update_data *req,
				struct epdfb_update *upd);
unsigned int epdfb_queue_free_slots(struct epdfb_par *par);
void epdfb_queue_set_pwrdown_delay(struct epdfb_par *par, s32 delay_ms);
void epdfb_queue_cancel_all(struct epdfb_par *par);
const struct epdfb_waveform *epdfb_find_waveform(const struct epdfb_par *par,
						 u32 id);
u32 epdfb_waveform_duration_ms(const struct epdfb_par *par,
			       const struct epdfb_waveform *wf, int temp);
int epdfb_waveform_info(struct epdfb_par *par, struct epdfb_waveform_info *wi);

/* epdfb_marker.c */
bool epdfb_queue_marker_pending(struct epdfb_par *par, u32 marker);
int epdfb_queue_wait_marker(struct epdfb_par *par, u32 marker,
			    u32 *collided);
int epdfb_queue_wait_pending(struct epdfb_par *par);

/* epdfb_trace.c */
const struct epdfb_trace_entry *epdfb_trace_entry(const struct epdfb_par *par,
						  unsigned int i);
int epdfb_trace_line(const struct epdfb_par *par,
		     const struct epdfb_trace_entry *e, char *buf, size_t len);
int epdfb_stats_text(struct epdfb_par *par, char *buf, size_t size);
void epdfb_stats_reset(struct epdfb_par *par);

/* epdfb_pixels.c */
void epdfb_pixels_capture_into(const struct epdfb_par *par,
			       const struct mxcfb_rect *rect, u32 flags,
			       u8 *pixels, size_t stride);
u8 *epdfb_pixels_capture(const struct epdfb_par *par,
			 const struct mxcfb_rect *rect, u32 flags);
bool epdfb_pixels_monochrome(const u8 *pixels, u32 width, u32 height,
			     size_t stride);
void epdfb_pixels_quantize(u8 *pixels, u32 width, u32 height, size_t stride,
			   u32 levels);

/* epdfb_ioctl.c */
int epdfb_ioctl(struct fb_info *info, unsigned int cmd, unsigned long arg);
#ifdef CONFIG_COMPAT
int epdfb_compat_ioctl(struct fb_info *info, unsigned int cmd,
		       unsigned long arg);
#endif

/* epdfb_check.c */
bool epdfb_temp_valid(int temp);
int epdfb_check_update(const struct epdfb_par *par,
		       const struct mxcfb_update_data *req);

/* epdfb_debugfs.c */
void epdfb_debugfs_init(struct epdfb_par *par, struct dentry *root,
			const char *name);
void epdfb_debugfs_fini(struct epdfb_par *par);

#endif /* _EPDFB_DRV_H */
