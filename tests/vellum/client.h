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

#define VT_MAX_GLOBALS 64

struct vt_global {
	uint32_t name, version;
	char interface[64];
};

struct vt_client {
	struct wl_display *display;
	struct wl_registry *registry;
	struct vt_global globals[VT_MAX_GLOBALS]; /* as the registry announced them */
	size_t n_globals;
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
	bool activated; /* in the states of the last configure */
	bool closed;    /* the compositor asked the window to close */
	bool frame_done;
};

/* Connects to $WAYLAND_DISPLAY and binds the globals. */
void vt_client_connect(struct vt_client *c);
/*
 * Destroys what vt_client made (the window, the globals it bound) and
 * disconnects; what the caller bound or made it destroys first.
 */
void vt_client_disconnect(struct vt_client *c);
/* Binds another global the registry announced; NULL when it has none. */
void *vt_client_bind(struct vt_client *c, const struct wl_interface *interface, uint32_t version);
/* Creates the fullscreen window and waits for its first configure. */
void vt_client_create_window(struct vt_client *c, const char *app_id);
/*
 * The same in two steps, for state that must come with the first commit
 * (fullscreen is not asked for): the toplevel, then the first commit and
 * the wait for its configure.
 */
void vt_client_create_toplevel(struct vt_client *c, const char *app_id);
void vt_client_wait_configure(struct vt_client *c);
/* A buffer of the window's size, filled with color. */
struct vt_buffer *vt_buffer_create(struct vt_client *c, uint32_t color);
/* A buffer of any size, filled with color. */
struct vt_buffer *vt_buffer_create_sized(
	struct vt_client *c, int32_t width, int32_t height, uint32_t color);
void vt_buffer_destroy(struct vt_buffer *b);
void vt_buffer_fill(
	struct vt_buffer *b, int32_t x, int32_t y, int32_t w, int32_t h, uint32_t color);
/* Attaches, damages all of it, commits with a frame callback (not waited for). */
void vt_client_commit(struct vt_client *c, struct vt_buffer *b);
/* The same with the damage of one rect only. */
void vt_client_commit_rect(
	struct vt_client *c, struct vt_buffer *b, int32_t x, int32_t y, int32_t w, int32_t h);
/* Commits surface (the window's or another) with a frame callback, and waits for it. */
void vt_surface_commit_and_wait(struct vt_client *c, struct wl_surface *surface);
/* Dispatches until the last commit's frame callback is done, or the window is closed. */
void vt_client_wait_frame(struct vt_client *c);
/* Prints a line on stdout at once: the tests read it through a pipe. */
void vt_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the error and exits with status 2. */
void vt_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
