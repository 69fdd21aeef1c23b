/* SPDX-License-Identifier: MIT */
/*
 * Internals shared by the e-paper backend's files.
 */
#ifndef VL_EPD_BACKEND_INTERNAL_H
#define VL_EPD_BACKEND_INTERNAL_H

#include <pixman.h>
#include <stdint.h>
#include <vellum/epd-backend.h>
#include <wayland-server-core.h>
#include <wlr/backend/interface.h>
#include <wlr/interfaces/wlr_output.h>

#include "device.h"

/*
 * Submitted flushes the panel may have in flight before frames are held:
 * epdfb and mxc_epdc_fb run 16 updates at once where they do not overlap.
 */
#define VL_EPD_MAX_FLUSHES_IN_FLIGHT 16
/*
 * Flushes in flight over one pixel: one on the panel and one queued behind
 * it in the driver (or, on a device that retargets fast waveforms, a fast
 * one that took a fast one's pixels over). Newer content for that pixel
 * waits, merging, and frames are held meanwhile.
 */
#define VL_EPD_MAX_DEPTH 2
/* Updates one flush may submit; the merge stage caps a flush at this. */
#define VL_EPD_MAX_UPDATES_PER_FLUSH 16
/* Flush records: the flushes in flight, plus one idle cleanup. */
#define VL_EPD_FLUSH_SLOTS (VL_EPD_MAX_FLUSHES_IN_FLIGHT + 1)
/*
 * After a commit that changed nothing, the next frame comes no sooner than
 * a 60 Hz display's would: a client that asks for frames in a loop without
 * drawing (Firefox does) would otherwise have the server answer it at once,
 * for ever.
 */
#define VL_EPD_UNCHANGED_FRAME_MS 16

struct vl_epd_backend {
	struct wlr_backend base;
	struct wl_event_loop *loop;
	struct wl_listener loop_destroy;
	struct vl_epd_backend_options options;
	struct vl_epd_device *device;
	struct vl_epd_output *output;
	bool started;
};

/* What became of one update: submitted and completed, or the error that stopped it. */
struct vl_epd_io_result {
	uint32_t marker;
	int error; /* 0, or a negative errno from the submission or the wait */
};

struct vl_epd_io_queues;
struct vl_epd_io_watch;

/*
 * Device I/O off the event loop: one thread submits updates, a pool waits
 * for them, one marker a thread, so that each completion is reported when
 * it happens (or the event loop polls the device's completion
 * descriptors), and results wake the event loop through an eventfd. Some drivers
 * (NXP's mxc_epdc_fb) hold the fbdev lock while a wait blocks, so even a
 * submission can stall for a whole waveform; the event loop never makes
 * either call itself.
 */
struct vl_epd_io {
	struct vl_epd_io_queues *queues; /* shared with the threads, which may outlive this */
	struct wl_event_loop *loop;
	struct vl_epd_io_watch *watches; /* with completion_fd: the ones polled */
	struct wl_event_source *source;
	struct wl_event_source *removal; /* the device's removal_fd */
	void (*handler)(const struct vl_epd_io_result *result, void *data);
	void *data;
};

bool vl_epd_io_init(struct vl_epd_io *io, struct vl_epd_device *device, struct wl_event_loop *loop,
	void (*handler)(const struct vl_epd_io_result *result, void *data), void *data);
/*
 * Stops handling results; queued updates are still submitted (for a bounded
 * time), then the threads end after their current call.
 */
void vl_epd_io_finish(struct vl_epd_io *io);
/*
 * Queues an update; false when the queue is full (the caller retries
 * later). It waits for vl_epd_io_kick, which hands everything queued since
 * the last kick to the device as one flush.
 */
bool vl_epd_io_submit(struct vl_epd_io *io, const struct vl_epd_update *update);
void vl_epd_io_kick(struct vl_epd_io *io);

/* One flush's updates, from their submission until every one has completed. */
struct vl_epd_flush_record {
	uint64_t id; /* 0: the slot is free */
	size_t n, left;
	bool failed;          /* an update failed for a passing reason: it is retried */
	bool given_up;        /* the device refused an update for good */
	const char *waveform; /* the main waveform, for feedback */
	bool flashed;
	uint32_t markers[VL_EPD_MAX_UPDATES_PER_FLUSH];
	pixman_box32_t boxes[VL_EPD_MAX_UPDATES_PER_FLUSH];
	/* each update's, for feedback on an area */
	const char *waveforms[VL_EPD_MAX_UPDATES_PER_FLUSH];
	bool flashing[VL_EPD_MAX_UPDATES_PER_FLUSH];
	/* each update's waveform is a fast one (DU, A2) that does not flash */
	bool fast[VL_EPD_MAX_UPDATES_PER_FLUSH];
};

/* A commit waiting for the panel; its feedback fires once its flush completed. */
struct vl_epd_commit {
	struct wl_list link;
	uint32_t seq;
	uint64_t flush_id; /* 0 until all its content is part of a flush */
	/* the first flush that took part of its content while the rest waited; 0: none */
	uint64_t first_flush_id;
	bool settled;
	bool incomplete; /* part of its content was given up: it is not reported shown */
	struct timespec when;
	const char *waveform;
	bool flashed;
	struct wl_array feedback; /* struct vl_epd_feedback_entry */
};

struct vl_epd_feedback_entry {
	vl_epd_feedback_func func; /* NULL: only marks a change of owner's content */
	void *data;
	uint64_t owner; /* 0: feedback on the whole commit */
	pixman_box32_t area;
	const char *waveform; /* for an area: what drew most of it */
	uint64_t drawn;       /* how much of it that waveform drew */
	bool flashed;
};

/*
 * Areas whose updates failed for a passing reason. Each waits for its own
 * retry, with a backoff that grows while it keeps failing and ends when
 * the area has shown; the rest of the panel goes on meanwhile.
 */
#define VL_EPD_RETRY_AREAS 8
struct vl_epd_retry_area {
	pixman_region32_t area; /* empty: the slot is free */
	unsigned int backoff_ms;
	int64_t due_ms; /* CLOCK_MONOTONIC */
	bool waiting;   /* until due_ms, its content is not sent */
};

struct vl_epd_output {
	struct wlr_output base;
	struct vl_epd_backend *backend;
	struct vl_epd_device *device;
	struct vl_epd_io io;
	bool enabled;

	uint8_t *gray;            /* the latest committed content, panel-sized */
	uint8_t *sent;            /* what was last sent to the panel */
	pixman_region32_t unsent; /* committed but not sent yet */
	/*
	 * Where the panel may not show what sent holds (its update failed): sent
	 * again whatever the diff says, since content can come to equal sent.
	 */
	pixman_region32_t stale;
	struct wl_array next_hints; /* struct vl_epd_hint, for the next commit */
	struct wl_array hints;      /* hints of the content in unsent */
	struct wl_array next_feedback;
	struct wl_list commits;  /* struct vl_epd_commit, waiting for the panel, oldest first */
	struct wl_list finished; /* struct vl_epd_commit, callbacks and present still to send */
	struct vl_epd_flush_record flushes[VL_EPD_FLUSH_SLOTS];
	uint64_t next_flush_id;
	uint32_t next_marker;
	struct vl_epd_retry_area retries[VL_EPD_RETRY_AREAS];
	/*
	 * Areas the device refused for good (with the safe waveform too): not
	 * retried on their own, which would fail again at once, but sent again
	 * along with the next content that goes to the panel.
	 */
	pixman_region32_t refused;
	bool retry_pending; /* an area waits for the retry timer */
	/* updates the I/O queue had no room for are tried again then; 0: none */
	int64_t requeue_due_ms;
	bool lost; /* the device is gone */
	bool frame_held;
	bool last_commit_unchanged; /* its frame waits for frame_timer */
	bool dispatching;           /* finished commits' callbacks are running */
	bool destroyed;             /* destroyed from such a callback: freed when it returns */
	struct wl_event_source *frame_idle;
	struct wl_event_source *frame_timer;
	struct wl_event_source *finish_idle;
	struct wl_event_source *lost_idle;
	struct wl_event_source *retry_timer;
	struct wl_event_source *cleanup_timer; /* armed only while ghosts wait */
	/*
	 * A change waits for the commits that follow it: all of it for
	 * merge_window_ms, or where a hint gives a merge window, for that.
	 * held is what waits, until merge_timer fires.
	 */
	struct wl_event_source *merge_timer;
	/* fires when a held blinking area may have stopped blinking */
	struct wl_event_source *blink_timer;
	/*
	 * Animated areas that wait for their pace (unsent too): frames go on
	 * meanwhile, and the pace timer fires when the first is due.
	 */
	pixman_region32_t paced;
	struct wl_event_source *pace_timer;
	unsigned int merge_window_ms;
	pixman_region32_t held;
	struct vl_epd_flush_state *flush_state;
};

struct vl_epd_output *vl_epd_output_create(struct vl_epd_backend *backend);

struct vl_epd_flush_state *vl_epd_flush_state_create(
	const struct vl_epd_device *device, const struct vl_epd_backend_options *options);
void vl_epd_flush_state_destroy(struct vl_epd_flush_state *state);
/*
 * Turns the unsent region into panel updates and queues them; the record
 * lists them (n == 0: nothing needed showing). Areas over which
 * VL_EPD_MAX_DEPTH flushes are in flight stay unsent, unless everything is
 * set; so do updates that could not be queued, and then it returns false.
 */
bool vl_epd_flush(
	struct vl_epd_output *output, struct vl_epd_flush_record *record, bool everything);
void vl_epd_flush_set_policy(
	struct vl_epd_flush_state *state, const struct vl_epd_backend_options *options);
/* Notes input now, for the policy of the flushes that follow. */
/* Notes input; held blinking areas go to release (see blink.c). */
void vl_epd_flush_note_input(
	struct vl_epd_flush_state *state, enum vl_epd_input kind, pixman_region32_t *release);
/*
 * Ends the hold of blinking areas that stopped (with release, adding what
 * they show to unsent: then it returns true) and arms the blink timer for
 * the next that may stop.
 */
bool vl_epd_flush_expire_blinks(struct vl_epd_output *output, bool release);
/* Follows what a commit changed under damage, for animations (anim.c). */
void vl_epd_flush_note_commit(struct vl_epd_output *output, const pixman_region32_t *damage);
/* Whether ghosts wait for an idle cleanup, and after how long. */
bool vl_epd_cleanup_due(struct vl_epd_output *output, unsigned int *delay_ms);
/*
 * Queues the idle cleanup into record (n == 0: none): a flashing refresh
 * where the ghost debt asks for one, a quality redraw of the other areas
 * drawn fast.
 */
void vl_epd_cleanup(struct vl_epd_output *output, struct vl_epd_flush_record *record);
/*
 * Forgets what the panel was sent in box, so that flushes send it again
 * whatever the diff would say until one succeeds: for updates that failed
 * and full refreshes.
 */
void vl_epd_forget_sent(struct vl_epd_output *output, const pixman_box32_t *box);

/* commit.c */
/*
 * Finishes a commit: shown when settled, else superseded or not shown. Its
 * feedback and present event follow from the event loop.
 */
void vl_epd_commit_finish(struct vl_epd_output *output, struct vl_epd_commit *commit, bool settled);
/* Calls the commit's feedback callbacks, each once. */
void vl_epd_commit_call_feedback(struct vl_epd_commit *commit, bool settled);
void vl_epd_commit_free(struct vl_epd_commit *commit);
/*
 * Finishes the commits whose content is not part of a flush yet: newer
 * content supersedes them. newer is the newer commit's feedback (NULL:
 * nothing newer will show them); feedback on the areas of owners that did
 * not change since moves to it.
 */
void vl_epd_output_discard_pending(struct vl_epd_output *output, struct wl_array *newer);
/* Notes on the commit's area feedback which of the flush's waveforms drew each area most. */
void vl_epd_commit_name_waveforms(
	struct vl_epd_commit *commit, const struct vl_epd_flush_record *record);

/* schedule.c */
/* Moves the panel on after anything changed: flushes, frames, the idle cleanup. */
void vl_epd_kick(struct vl_epd_output *output);
/* Frames go out while the panel has room; otherwise when an update completes. */
void vl_epd_schedule_frame(struct vl_epd_output *output);
/* Arms the idle cleanup's timer while ghosts wait and the panel is quiet, else disarms it. */
void vl_epd_update_cleanup_timer(struct vl_epd_output *output);
/*
 * Holds the commit's damage back for the commits a client may split a
 * change into, by the merge window and the next commit's hints.
 */
void vl_epd_hold_split_changes(struct vl_epd_output *output, const pixman_region32_t *damage);
/* Sends what waits in box for the rest of its change: the change is complete. */
void vl_epd_end_hold(struct vl_epd_output *output, const pixman_box32_t *box);
/*
 * Sends what is unsent, and settles commits that changed nothing.
 * everything sends also what waits for a retry or for the flushes in
 * flight over it: the last content before the output goes.
 */
void vl_epd_output_flush(struct vl_epd_output *output, bool everything);
size_t vl_epd_flushes_in_flight(const struct vl_epd_output *output);
/* The output's timers and I/O results. */
int vl_epd_handle_frame_timer(void *data);
int vl_epd_handle_merge_timer(void *data);
int vl_epd_handle_blink_timer(void *data);
int vl_epd_handle_pace_timer(void *data);
int vl_epd_handle_retry_timer(void *data);
int vl_epd_handle_cleanup_timer(void *data);
void vl_epd_handle_io_result(const struct vl_epd_io_result *result, void *data);

#endif
