/* SPDX-License-Identifier: MIT */
/*
 * A minimal Wayland client for the vellum tests: one fullscreen xdg
 * toplevel drawn from shm buffers, and the seat's capabilities. Failures
 * end the program with status 2, so a test tells them from a client's own
 * verdicts.
 */
#ifndef VT_CLIENT_H
#define VT_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-client.h>

#include "xdg-shell-client-protocol.h"

#define VT_WHITE 0xffffffffu
#define VT_BLACK 0xff000000u

struct vt_buffer {
	struct wl_buffer *buffer;
	uint32_t *pixels; /* XRGB8888, stride width * 4 */
	int32_t width, height;
	bool busy;
};

struct vt_client {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wl_seat *seat;
	uint32_t seat_caps;
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	int32_t width, height; /* as the compositor configured the window */
	bool configured;
	bool frame_done;
};

/* Connects to $WAYLAND_DISPLAY and binds the globals. */
void vt_client_connect(struct vt_client *c);
/* Creates the fullscreen window and waits for its first configure. */
void vt_client_create_window(struct vt_client *c, const char *app_id);
/* A buffer of the window's size, filled with color. */
struct vt_buffer *vt_buffer_create(struct vt_client *c, uint32_t color);
void vt_buffer_fill(
	struct vt_buffer *b, int32_t x, int32_t y, int32_t w, int32_t h, uint32_t color);
/* Attaches, damages all of it, commits with a frame callback (not waited for). */
void vt_client_commit(struct vt_client *c, struct vt_buffer *b);
/* Dispatches until the last commit's frame callback is done. */
void vt_client_wait_frame(struct vt_client *c);
/* Prints a line on stdout at once: the tests read it through a pipe. */
void vt_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the error and exits with status 2. */
void vt_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
