/* SPDX-License-Identifier: MIT */
/*
 * libvellum-epd: a wlroots 0.18 backend whose outputs are e-paper panels.
 *
 * Each commit's damage becomes grayscale, waveform-aware panel updates; the
 * output's frame events are held back while an area waits for the panel,
 * and its present events carry the time the panel settled.
 */
#ifndef VELLUM_EPD_BACKEND_H
#define VELLUM_EPD_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <vellum/epd-mode.h>
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>
#include <wlr/backend.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/box.h>

struct vl_epd_backend_options {
	/*
	 * "auto", "/dev/fbN", "mxc:/dev/fbN" (the mxc_epdc_fb update ioctls
	 * only), "plain:/dev/fbN" (writes and fsync only), "drm:/dev/dri/cardN",
	 * "preview[:WxH]" (epdfb's panel model in this process), "memory:WxH"
	 * or "it8951:/dev/sgN" (an IT8951 board over USB)
	 */
	const char *device;
	/*
	 * The panel's VCOM, a magnitude in millivolts (1500: -1.50 V), for a
	 * device that sets it (an IT8951 board); 0: the board's own.
	 */
	uint16_t vcom_mv;
	/* The preview panel's waveforms take this percentage of their time; 0: 100. */
	unsigned int time_scale;
	/*
	 * How the driver numbers its waveforms, e.g. "du=1,gc16=2,gl16=3,a2=4"
	 * (see vl_epd_waveform_map_parse in vellum/epd-pipeline.h); NULL: as
	 * epdfb reports them, else the NXP BSP's numbering.
	 */
	const char *waveform_map;
	/*
	 * Partial updates of an area before it gets a flashing refresh; 0: never,
	 * the ghost debt alone decides.
	 */
	unsigned int full_refresh_every;
	/*
	 * Once the panel and the input have been quiet this long, the areas drawn
	 * fast while the user worked, and those whose flash was put off, are
	 * redrawn; 0: never.
	 */
	unsigned int idle_cleanup_ms;
	/* The user works while the last input is at most this old; 0: input changes nothing. */
	unsigned int input_window_ms;
	/*
	 * A change waits this long before it goes to the panel, so that the
	 * commits a client splits one change into (Xwayland commits twice) cost
	 * one update; 0: changes go at once.
	 */
	unsigned int merge_window_ms;
	/*
	 * An area animated without input (a spinner) is driven at most once
	 * this often, fast and apart from the rest, and the frames between
	 * are skipped; 0: such areas are not told apart from other changes.
	 */
	unsigned int animation_interval_ms;
};

/* What the user did: it decides the fast waveform while they work. */
enum vl_epd_input {
	VL_EPD_INPUT_KEY,
	VL_EPD_INPUT_POINTER,
	VL_EPD_INPUT_TOUCH,
	VL_EPD_INPUT_PEN,    /* strokes: A2 */
	VL_EPD_INPUT_SCROLL, /* moving content: A2 */
};

/* Hints for an area of the next commit, in output buffer coordinates. */
struct vl_epd_hint {
	struct wlr_box box;
	enum vl_epd_mode mode;
	enum vl_epd_dither dither;
	bool full_refresh;
	/*
	 * The area's client may split one change over commits: a change
	 * there waits this long from its first commit for the rest, while the
	 * rest of the panel goes on; 0: it goes at once.
	 */
	unsigned int merge_window_ms;
	/*
	 * A caret blinking there goes to the panel at every blink, instead of
	 * the panel keeping it inked while it blinks (see vl_epd_blink).
	 */
	bool show_blinking;
};

struct vl_epd_feedback {
	bool settled; /* false: newer content superseded this commit first */
	struct timespec when;
	/*
	 * The main waveform that showed it; for feedback on an area, the one
	 * that drew most of the area, or "" when nothing in it had to be drawn.
	 */
	const char *waveform;
	bool flashed; /* for an area: an update that touched it flashed */
};

typedef void (*vl_epd_feedback_func)(const struct vl_epd_feedback *feedback, void *data);

/* Creates the backend; NULL with a message in error when the device fails. */
struct wlr_backend *vl_epd_backend_create(struct wl_event_loop *loop,
	const struct vl_epd_backend_options *options, char *error, size_t error_size);
bool vl_backend_is_epd(struct wlr_backend *backend);
bool vl_output_is_epd(struct wlr_output *output);
struct vl_panel_model;
/* The preview device's panel model (panel-model.h); NULL on any other device. */
struct vl_panel_model *vl_epd_backend_preview_model(struct wlr_backend *backend);

/*
 * Applies options' full_refresh_every, idle_cleanup_ms, input_window_ms and
 * merge_window_ms from now on.
 */
void vl_epd_output_set_policy(
	struct wlr_output *output, const struct vl_epd_backend_options *options);

/*
 * Tells the backend's outputs that the user did something now: while input
 * comes, small changes go out in a fast waveform (DU; A2 for pen and
 * scrolling) without ghost flashes, and their areas are redrawn for quality
 * once the panel and the input have been quiet for idle_cleanup_ms. Explicit
 * modes in hints still win. backend may be any backend; others ignore it.
 */
void vl_epd_backend_notify_input(struct wlr_backend *backend, enum vl_epd_input kind);

/* Attaches a hint to the output's next commit. */
void vl_epd_output_add_hint(struct wlr_output *output, const struct vl_epd_hint *hint);
/* Forgets the hints attached since the last commit: the commit they were for did not come. */
void vl_epd_output_drop_hints(struct wlr_output *output);
/*
 * Ends the merge hold over box (output buffer coordinates) at once: what
 * waits there for the rest of its change goes to the panel, as when its
 * merge window is over, while the hold elsewhere goes on. For a compositor
 * that knows a change is complete before its merge window is over (Xwayland
 * commits the pieces of a change one per frame callback: one that answered
 * a frame done with nothing has no piece left to commit).
 */
void vl_epd_output_end_hold(struct wlr_output *output, const struct wlr_box *box);
/*
 * Calls func once for the output's next commit: when the panel has shown it,
 * or when newer content superseded it before it reached the panel.
 */
bool vl_epd_output_add_feedback(struct wlr_output *output, vl_epd_feedback_func func, void *data);
/*
 * Like vl_epd_output_add_feedback, for one owner's area of the next commit
 * (a surface's, in output buffer coordinates): the feedback names the
 * waveform that drew that area. Newer content supersedes the commit only if
 * it comes from the same owner: when a later commit overtakes this one before
 * it reached the panel, the feedback moves on to that commit, unless that
 * commit carries feedback of the same owner (non-zero), which means the
 * owner's content changed since. func may be NULL, to mark such a change.
 */
bool vl_epd_output_add_area_feedback(struct wlr_output *output, const struct wlr_box *area,
	uint64_t owner, vl_epd_feedback_func func, void *data);

#endif
