/* SPDX-License-Identifier: MIT */
/*
 * The border vellum draws around dialogs: it asks every window for
 * server-side decorations, and a dialog without any would blend into a
 * window of the same colour behind it on a white panel.
 */
#ifndef VL_BORDER_H
#define VL_BORDER_H

#include <stdbool.h>

struct wlr_scene_rect;
struct wlr_scene_tree;

/* Its width in layout pixels: the output's scale makes it wider on the panel. */
#define VL_BORDER_WIDTH 2

struct vl_border {
	struct wlr_scene_rect *sides[4]; /* in the window's tree, below its surfaces */
};

/*
 * Shows the border around a window of width x height at the origin of
 * tree, or takes it away when shown is false; false when it could not be
 * made.
 */
bool vl_border_update(
	struct vl_border *border, struct wlr_scene_tree *tree, bool shown, int width, int height);
/* The window's tree went, and the border with it. */
void vl_border_forget(struct vl_border *border);

#endif
