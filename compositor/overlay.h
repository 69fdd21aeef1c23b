/* SPDX-License-Identifier: MIT */
/*
 * The preview's overlay: the updates in flight, outlined and named, the
 * flashing ones filled red (toggled by Ctrl+Alt+U in the window).
 */
#ifndef VL_OVERLAY_H
#define VL_OVERLAY_H

#include <stddef.h>
#include <stdint.h>
#include <wayland-server-protocol.h>

struct vl_panel_model;

/* How the window shows the panel. */
struct vl_overlay_view {
	uint32_t panel_width, panel_height; /* native */
	enum wl_output_transform transform; /* native to the window's orientation */
	int x, y;                           /* where the panel is in the window */
	double scale_x, scale_y;            /* window pixels per panel pixel, turned */
	int width, height;                  /* the window's */
};

/*
 * Draws the updates model is driving over a transparent argb image of the
 * window's size (premultiplied ARGB8888, width * 4 bytes a row); returns
 * how many there were.
 */
size_t vl_overlay_draw(
	const struct vl_overlay_view *view, struct vl_panel_model *model, uint32_t *argb);

#endif
