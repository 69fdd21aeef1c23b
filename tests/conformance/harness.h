/* SPDX-License-Identifier: MIT */
/*
 * What wlcs would check of vellum, checked with clients that follow the
 * protocols: vellum's own server (the code the vellum binary runs) on a
 * memory panel in this process, a mouse, a touchscreen and a keyboard in its
 * seat, and libwayland-client clients connected through socket pairs. One
 * thread: a client's roundtrip runs the server's event loop until the
 * server has answered. Windows are placed where a case wants them (the
 * test-only placement the wlcs module uses), input goes where a case puts
 * it, and each case sees what its client was sent: enter, leave, motion,
 * touch down and up at surface coordinates, configures, popup_done.
 *
 * Cases print TAP; a protocol error or a client that is never answered
 * fails the case it happens in.
 */
#ifndef CT_HARNESS_H
#define CT_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <wayland-client.h>

#include "xdg-shell-client-protocol.h"
#ifdef VL_HAVE_LAYER_SHELL
#include "wlr-layer-shell-unstable-v1-client-protocol.h"
#endif

/* The panel: larger than any window a case places. */
#define CT_PANEL_WIDTH  1920
#define CT_PANEL_HEIGHT 1080

struct ct_server;
struct ct_client;

struct ct_surface {
	struct ct_client *client;
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	struct xdg_popup *popup;
	struct wl_subsurface *subsurface;
#ifdef VL_HAVE_LAYER_SHELL
	struct zwlr_layer_surface_v1 *layer_surface;
#endif
	uint32_t configures;      /* xdg_surface or layer surface configures acked */
	int32_t width, height;    /* of the buffer attached last */
	int32_t popup_x, popup_y; /* the last xdg_popup.configure */
	int32_t popup_width, popup_height;
	bool popup_configured;
	int popup_done; /* 0, or the order it was sent in among the client's */
	bool repositioned;
	uint32_t repositioned_token;
	struct ct_surface *next; /* the client's surfaces */
};

struct ct_client {
	struct ct_server *server;
	struct wl_client *server_client; /* its end in vellum */
	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_subcompositor *subcompositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wl_seat *seat;
	struct wl_pointer *pointer;
	struct wl_touch *touch;
	struct wl_keyboard *keyboard;
#ifdef VL_HAVE_LAYER_SHELL
	struct zwlr_layer_shell_v1 *layer_shell;
#endif
	/* what the seat told this client last */
	struct wl_surface *pointer_focus;
	wl_fixed_t pointer_x, pointer_y;
	uint32_t buttons; /* wl_pointer.button events */
	bool button_after_popup_done;
	struct wl_surface *touch_focus; /* the surface of the touch down, until up */
	wl_fixed_t touch_x, touch_y;
	uint32_t touch_ups;
	struct wl_surface *keyboard_focus;
	uint32_t serial; /* the latest input serial */
	int popups_done;
	struct ct_surface *surfaces;
	struct ct_buffer *buffers;
	bool failed;
};

/* Starts vellum's server with the devices; NULL (and a diagnostic) on failure. */
struct ct_server *ct_server_start(void);
void ct_server_stop(struct ct_server *server);
/* Runs what the server has to do now: requests, idle work, timers due. */
void ct_server_dispatch(struct ct_server *server);

struct ct_client *ct_client_connect(struct ct_server *server);
void ct_client_disconnect(struct ct_client *client);
/* Sends what the client asked and waits for the server's answer to all of it. */
bool ct_roundtrip(struct ct_client *client);

/* A toplevel of w x h, mapped as xdg-shell wants, its window geometry inset by
 * left, top, right, bottom, its window placed with its surface's top left at x, y. */
struct ct_surface *ct_toplevel(struct ct_client *client, int x, int y, int w, int h, int left,
	int top, int right, int bottom);
/* Moves a toplevel's surface's top left to x, y (its geometry inset kept). */
void ct_move_toplevel(struct ct_surface *surface, int x, int y, int left, int top);
/* A subsurface of parent at x, y, w x h, with a buffer, desynchronized. */
struct ct_surface *ct_subsurface(struct ct_surface *parent, int x, int y, int w, int h);
/*
 * A popup of parent (NULL: the caller gives it its layer surface) from the
 * positioner; not committed yet (the caller may grab first).
 */
struct ct_surface *ct_popup_create(
	struct ct_client *client, struct ct_surface *parent, struct xdg_positioner *positioner);
/* The popup's first commit, its configure acked, then its buffer of w x h. */
bool ct_popup_map(struct ct_surface *popup, int w, int h);
void ct_surface_destroy(struct ct_surface *surface);
#ifdef VL_HAVE_LAYER_SHELL
/*
 * A layer surface on layer, anchored so with margin on each side, of w x h,
 * taking the keyboard on demand, mapped as layer-shell wants.
 */
struct ct_surface *ct_layer_surface(
	struct ct_client *client, uint32_t layer, uint32_t anchor, int margin, int w, int h);
#endif
/* Attaches a w x h buffer (0 x 0: a null buffer, unmapping it) and commits. */
void ct_attach(struct ct_surface *surface, int w, int h);
/* A toplevel unmapped by a null buffer is mapped again: its first commit, configure, buffer. */
bool ct_remap_toplevel(struct ct_surface *surface, int w, int h);

/* Input, in layout (panel) coordinates; each is followed by its frame. */
void ct_pointer_move(struct ct_server *server, double x, double y);
void ct_pointer_button(struct ct_server *server, bool pressed);
void ct_touch_down(struct ct_server *server, double x, double y);
void ct_touch_move(struct ct_server *server, double x, double y);
void ct_touch_up(struct ct_server *server);

/* TAP */
void ct_check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A check of what vellum does not do yet: TAP's TODO, reported, not failing. */
void ct_check_todo(bool ok, const char *todo, const char *what);
int ct_finish(void);
/* Runs a case on a fresh server; the case's checks report themselves. */
void ct_run(const char *name, void (*test)(struct ct_server *server));
/* Checks a surface and the position on it; false when either is wrong. */
bool ct_check_at(const char *what, struct wl_surface *seen, wl_fixed_t x, wl_fixed_t y,
	struct wl_surface *want, int want_x, int want_y);

#endif
