/* SPDX-License-Identifier: MIT */
/*
 * What the example clients share: the connection and its globals, one
 * fullscreen window drawn with cairo into shm buffers, input from the
 * seat's keyboard, touchscreen, pointer and tablet pens, timers, and the
 * epaper-refresh-v1 requests: the surface's mode, full refreshes and
 * feedback on when the panel showed a frame.
 *
 * A client draws a frame between ep_frame_begin() and ep_frame_commit(),
 * into a buffer that already shows the previous frame, and names what it
 * changed with ep_frame_damage(): only that reaches the panel. It draws when
 * its draw handler is called, which ep_client_redraw() asks for: at most
 * one frame is in flight, so a client never draws faster than the panel
 * shows.
 */
#ifndef EPAPER_CLIENT_H
#define EPAPER_CLIENT_H

#include <cairo.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <xkbcommon/xkbcommon.h>

#include "epaper-refresh-v1-client-protocol.h"

struct ep_client;

/* Where a touch, the pointer's left button or a pen's tip is. */
enum ep_contact_phase {
	EP_CONTACT_DOWN,
	EP_CONTACT_MOTION,
	EP_CONTACT_UP,
};

/* The one event of a frame's feedback. */
struct ep_feedback {
	bool shown;                /* false: discarded, the panel will never show it */
	struct timespec when;      /* when the panel finished, if shown */
	struct timespec committed; /* when the frame was committed (CLOCK_MONOTONIC, as when) */
	char waveform[16];         /* the waveform that drew it, "" when nothing had to be */
	bool flashed;
};

struct ep_handlers {
	/* Draws the window: everything (all true) or what changed since the last frame. */
	void (*draw)(struct ep_client *client, bool all, void *data);
	void (*key)(struct ep_client *client, xkb_keysym_t sym, void *data);
	void (*contact)(struct ep_client *client, enum ep_contact_phase phase, double x, double y,
		void *data);
};

typedef void (*ep_feedback_func)(
	struct ep_client *client, const struct ep_feedback *feedback, void *data);

struct ep_timer;
typedef void (*ep_timer_func)(struct ep_client *client, void *data);

/*
 * Connects to the compositor of $WAYLAND_DISPLAY and opens a fullscreen
 * window with app_id, ready to draw. When the compositor lacks something
 * the client needs (epaper-refresh-v1 above all), prints why, naming
 * program, and exits with status 1.
 */
struct ep_client *ep_client_create(
	const char *program, const char *app_id, const struct ep_handlers *handlers, void *data);
/* Also frees cairo's and fontconfig's caches: call it last. */
void ep_client_destroy(struct ep_client *client);
/*
 * Runs the event loop until ep_client_quit() or until the compositor closes
 * the window (status 0); returns the status. A lost connection prints a
 * message and returns 1.
 */
int ep_client_run(struct ep_client *client);
void ep_client_quit(struct ep_client *client, int status);
/* With verbose, ep_client_log() prints its lines on stdout. */
void ep_client_set_verbose(struct ep_client *client, bool verbose);
void ep_client_log(struct ep_client *client, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

int32_t ep_client_width(const struct ep_client *client);
int32_t ep_client_height(const struct ep_client *client);
/* Asks for the draw handler to be called once the compositor is ready for a frame. */
void ep_client_redraw(struct ep_client *client);
/* The refresh mode of the window's next and later frames. */
void ep_client_set_mode(struct ep_client *client, enum xx_epaper_surface_refresh_v1_mode mode);

/* A cairo context on the next frame's buffer, which shows the last frame. */
cairo_t *ep_frame_begin(struct ep_client *client);
/* The frame changes this rect (surface pixels). */
void ep_frame_damage(struct ep_client *client, int32_t x, int32_t y, int32_t width, int32_t height);
/* The frame asks for one flashing full refresh of the window. */
void ep_frame_full_refresh(struct ep_client *client);
/*
 * func gets this frame's feedback; if the client is destroyed first, it is
 * called from ep_client_destroy() with client NULL, to free data.
 */
void ep_frame_feedback(struct ep_client *client, ep_feedback_func func, void *data);
/* From the frame's commit to the panel showing it, in ms. */
double ep_feedback_ms(const struct ep_feedback *feedback);
/* Destroys cr and commits the frame (with no damage: still one, for a full refresh). */
void ep_frame_commit(struct ep_client *client, cairo_t *cr);

/* A one-shot timer on CLOCK_MONOTONIC, calling func from the event loop. */
struct ep_timer *ep_timer_create(struct ep_client *client, ep_timer_func func, void *data);
/* (Re)arms the timer for delay_ns from now. */
void ep_timer_arm(struct ep_timer *timer, uint64_t delay_ns);
void ep_timer_disarm(struct ep_timer *timer);

/*
 * Reads a positive integer option value (up to max) for program; prints an
 * error naming option and exits 2 when it is not one.
 */
long ep_parse_count(const char *program, const char *option, const char *value, long max);

#endif
