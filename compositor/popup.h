/* SPDX-License-Identifier: MIT */
/*
 * Popups (menus, tooltips) of windows and of layer surfaces: drawn in a
 * tree under their parent's, kept where their parent wants them.
 */
#ifndef VL_POPUP_H
#define VL_POPUP_H

#include <stdbool.h>

struct wlr_box;
struct wlr_scene_tree;
struct wlr_xdg_popup;

/*
 * The box a popup is kept inside, in the coordinates of its root surface
 * (the toplevel or layer surface it belongs to); false to leave it where
 * its positioner put it.
 */
typedef bool (*vl_popup_area_fn)(struct wlr_xdg_popup *popup, void *data, struct wlr_box *box);

/*
 * Draws popup in a tree under parent_tree, moved into area's box as its
 * positioner allows when it is first committed and when it is repositioned.
 * Its own popups find that tree in the xdg_surface's data. All of it goes
 * with the popup. Posts no_memory to the client when it cannot.
 */
void vl_popup_create(struct wlr_xdg_popup *popup, struct wlr_scene_tree *parent_tree,
	vl_popup_area_fn area, void *data);

#endif
