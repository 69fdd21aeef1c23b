/* SPDX-License-Identifier: MIT */
/*
 * A wlroots scene on the e-paper backend, for the backend's VM tests: rect
 * nodes drawn into the panel with no Wayland client.
 */
#ifndef SCENE_HARNESS_H
#define SCENE_HARNESS_H

#include <stdbool.h>
#include <time.h>
#include <vellum/epd-backend.h>
#include <wlr/types/wlr_scene.h>

enum scene_harness_event_type {
	SCENE_HARNESS_COMMIT,  /* wlroots' commit event */
	SCENE_HARNESS_PRESENT, /* the backend's present event */
	SCENE_HARNESS_FRAME,
};

struct scene_harness_event {
	enum scene_harness_event_type type;
	uint32_t seq; /* commit and present: the commit's commit_seq */
	bool presented;
	uint64_t ns; /* CLOCK_MONOTONIC when the harness got it */
};

/* The output's latest events, in the order they came. */
#define SCENE_HARNESS_EVENTS 256

struct scene_harness {
	struct wl_display *display;
	struct wl_event_loop *loop;
	struct wlr_backend *backend;
	struct wlr_renderer *renderer;
	struct wlr_allocator *allocator;
	struct wlr_output *output;
	struct wlr_scene *scene;
	struct wlr_scene_output *scene_output;
	struct wl_listener new_output;
	struct wl_listener frame;
	struct wl_listener commit;
	struct wl_listener present;
	/* a frame event came after the latest commit */
	bool frame_ready;
	unsigned int frames;
	/* commit_seq of the latest commit */
	uint32_t last_commit_seq;
	/* the output's present events: how many, and the last one's time */
	unsigned int presented, discarded;
	struct timespec last_present;
	struct vl_epd_feedback last_feedback;
	bool feedback_received;
	struct scene_harness_event events[SCENE_HARNESS_EVENTS];
	size_t n_events; /* ever recorded; the ring holds the latest */
};

/* Starts the backend on device; false with a message in error on failure. */
bool scene_harness_start(
	struct scene_harness *h, const char *device, char *error, size_t error_size);
bool scene_harness_start_with(struct scene_harness *h, const struct vl_epd_backend_options *options,
	char *error, size_t error_size);
/* Runs the event loop for ms milliseconds; returns how many dispatches woke early. */
int scene_harness_idle(struct scene_harness *h, int ms);
/* CLOCK_MONOTONIC in nanoseconds: the clock of the backend's feedback and of epdfb's trace. */
uint64_t scene_harness_now_ns(void);
void scene_harness_finish(struct scene_harness *h);
/* Rotates the output; the panel stays native. */
bool scene_harness_set_transform(struct scene_harness *h, enum wl_output_transform transform);
struct wlr_scene_rect *scene_harness_rect(
	struct scene_harness *h, int x, int y, int width, int height, uint8_t gray);
/* An image node: gray pixels (width * height) shown through a shm-like buffer. */
struct wlr_scene_buffer *scene_harness_image(
	struct scene_harness *h, int x, int y, int width, int height, const uint8_t *gray);
void scene_harness_set_gray(struct wlr_scene_rect *rect, uint8_t gray);
/*
 * A gradient over the whole width x height output with a black 50x50 block
 * at 100,100 over it (an image node and a rect node); image gets what the
 * panel should show, width x height gray bytes.
 */
bool scene_harness_gradient_with_block(
	struct scene_harness *h, uint32_t width, uint32_t height, uint8_t *image);
/* Damages the whole output, so the next commit re-sends identical pixels. */
void scene_harness_damage_all(struct scene_harness *h);
/*
 * Runs the loop until the output asks for a frame after the latest commit;
 * false on timeout.
 */
bool scene_harness_wait_frame(struct scene_harness *h);
/* Runs the loop until *flag is set; false on timeout. */
bool scene_harness_run_until(struct scene_harness *h, bool *flag);
/*
 * Commits the scene once the frame that follows the previous commit came;
 * false if nothing was committed. Its commit_seq is h->last_commit_seq.
 */
bool scene_harness_commit(struct scene_harness *h);
/* Commits the scene and runs the loop until the panel settled that commit. */
bool scene_harness_show(struct scene_harness *h, struct vl_epd_feedback *feedback);
/*
 * Runs the loop until the present event for commit seq came, and checks
 * that it was the only one for seq and came after wlroots' commit event
 * for seq. False, with the reason in error, when not; *presented tells
 * whether the commit was presented or discarded.
 */
bool scene_harness_check_present(
	struct scene_harness *h, uint32_t seq, bool *presented, char *error, size_t error_size);
/* Frame events that came in [from_ns, to_ns), CLOCK_MONOTONIC. */
unsigned int scene_harness_frames_between(
	struct scene_harness *h, uint64_t from_ns, uint64_t to_ns);

/*
 * Loads vfb (a framebuffer in plain memory, without the e-paper ioctls),
 * switches it to bpp bits per pixel and a virtual size of xres_virtual x
 * yres_virtual (0: the visible size) and puts its node in path. False when
 * vfb or the mode is refused.
 */
bool scene_harness_vfb(
	char *path, size_t size, uint32_t bpp, uint32_t xres_virtual, uint32_t yres_virtual);

#endif
