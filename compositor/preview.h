/* SPDX-License-Identifier: MIT */
/*
 * The preview window (-d preview): the simulated panel in a window of the
 * desktop vellum runs in, and that window's input.
 */
#ifndef VL_PREVIEW_H
#define VL_PREVIEW_H

#include <stdbool.h>
#include <stddef.h>

struct vl_server;
struct wlr_input_device;
struct wlr_keyboard;
struct wlr_output;

/* Whether the configured device is the preview panel. */
bool vl_preview_wanted(const struct vl_server *server);
/* Adds the desktop's backend (Wayland, else X11) to the server's. */
bool vl_preview_create_backend(struct vl_server *server, char *error, size_t error_size);
/* Once the backends have started: the panel model, and the window opening. */
bool vl_preview_start(struct vl_server *server, char *error, size_t error_size);
/* Takes the desktop backend's output as the window: false for any other output. */
bool vl_preview_handle_output(struct vl_server *server, struct wlr_output *output);
/*
 * Ctrl+Alt+U toggles the overlay of the updates in flight: true when the
 * key is the preview's (its press, and its release later), not the
 * application's. keycode: evdev's.
 */
bool vl_preview_handle_key(
	struct vl_server *server, struct wlr_keyboard *keyboard, uint32_t keycode, bool pressed);
/*
 * An absolute position in the window (0..1 each way) in layout coordinates:
 * false for a device that is not the window's. A position in the desk
 * around the panel is taken to the panel's nearest edge, *on_panel false.
 */
bool vl_preview_to_layout(struct vl_server *server, struct wlr_input_device *device, double x,
	double y, double *lx, double *ly, bool *on_panel);
/* While the panel model is there: ends the recording (--record) with the final panel. */
void vl_preview_finish(struct vl_server *server);
void vl_preview_destroy(struct vl_server *server);

#endif
