/*
 * Internals shared by the e-paper backend's files.
 */
#ifndef VL_EPD_BACKEND_INTERNAL_H
#define VL_EPD_BACKEND_INTERNAL_H

#include <pixman.h>
#include <pthread.h>
#include <stdint.h>
#include <vellum/epd-backend.h>
#include <wayland-server-core.h>
#include <wlr/backend/interface.h>
#include <wlr/interfaces/wlr_output.h>

#include "device.h"

/* Submitted flushes the panel may have in flight before frames are held. */
#define VL_EPD_MAX_FLUSHES_IN_FLIGHT 2

struct vl_epd_backend {
	struct wlr_backend base;
	struct wl_event_loop *loop;
	struct vl_epd_backend_options options;
	struct vl_epd_device *device;
	struct vl_epd_output *output;
	bool started;
};

/* Hands markers to a thread that waits for them, and wakes the event loop. */
struct vl_epd_completion {
	struct vl_epd_device *device;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	uint32_t *waiting; /* markers to wait for, in order */
	size_t n_waiting, waiting_capacity;
	uint32_t *done; /* completed markers not yet taken */
	size_t n_done, done_capacity;
	bool stop;
	int eventfd;
	struct wl_event_source *source;
	void (*handler)(uint32_t marker, void *data);
	void *data;
};

/* A commit waiting for the panel; its feedback fires once flushed markers complete. */
struct vl_epd_commit {
	struct wl_list link;
	uint32_t seq;
	uint32_t last_marker; /* 0 until flushed */
	size_t markers_left;
	const char *waveform;
	bool flashed;
	struct wl_array feedback; /* struct vl_epd_feedback_entry */
};

struct vl_epd_feedback_entry {
	vl_epd_feedback_func func;
	void *data;
};

struct vl_epd_output {
	struct wlr_output base;
	struct vl_epd_backend *backend;
	struct vl_epd_device *device;
	struct vl_epd_completion completion;

	uint8_t *gray;              /* the latest committed content, panel-sized */
	uint8_t *sent;              /* what was last sent to the panel */
	pixman_region32_t unsent;   /* committed but not sent yet */
	struct wl_array next_hints; /* struct vl_epd_hint, for the next commit */
	struct wl_array hints;      /* hints of the content in unsent */
	struct wl_array next_feedback;
	struct wl_list commits;  /* struct vl_epd_commit, oldest first */
	struct wl_array flushes; /* struct flush_record, submitted and not complete */
	uint32_t next_marker;
	size_t flushes_in_flight;
	bool frame_held;
	struct wl_event_source *frame_idle;
	struct wl_event_source *cleanup_timer; /* armed only while ghosts wait */
	struct vl_epd_flush_state *flush_state;
};

struct vl_epd_output *vl_epd_output_create(struct vl_epd_backend *backend);

bool vl_epd_completion_init(struct vl_epd_completion *completion, struct vl_epd_device *device,
	struct wl_event_loop *loop, void (*handler)(uint32_t marker, void *data), void *data);
void vl_epd_completion_finish(struct vl_epd_completion *completion);
bool vl_epd_completion_add(struct vl_epd_completion *completion, uint32_t marker);

/*
 * Turns the unsent region into panel updates and submits them. Returns the
 * marker of the last update, 0 if nothing needed showing, and sets *waveform
 * and *flashed to describe the flush.
 */
struct vl_epd_flush_state *vl_epd_flush_state_create(
	const struct vl_epd_device *device, const struct vl_epd_backend_options *options);
void vl_epd_flush_state_destroy(struct vl_epd_flush_state *state);
uint32_t vl_epd_flush(
	struct vl_epd_output *output, size_t *n_markers, const char **waveform, bool *flashed);
/* Whether ghosts wait for an idle cleanup, and after how long. */
bool vl_epd_cleanup_due(struct vl_epd_output *output, unsigned int *delay_ms);
/* Submits the flashing cleanup refresh; returns its marker, 0 if none. */
uint32_t vl_epd_cleanup(struct vl_epd_output *output, size_t *n_markers);

#endif
