// SPDX-License-Identifier: MIT
/*
 * Popups: a scene tree under the parent's, placed by the positioner inside
 * the area the parent's kind gives (see popup.h).
 */
#include <stdlib.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_xdg_shell.h>

#include "popup.h"

struct vl_popup {
	struct wlr_xdg_popup *popup;
	vl_popup_area_fn area;
	void *area_data;
	/* NULL once it went with its parent's tree */
	struct wlr_scene_tree *tree;
	struct wl_listener commit, reposition, destroy, tree_destroy;
};

static void
unconstrain(struct vl_popup *popup)
{
	struct wlr_box box;

	if (popup->area(popup->popup, popup->area_data, &box))
		wlr_xdg_popup_unconstrain_from_box(popup->popup, &box);
}

static void
handle_commit(struct wl_listener *listener, void *data)
{
	struct vl_popup *popup = wl_container_of(listener, popup, commit);

	if (popup->popup->base->initial_commit)
		unconstrain(popup);
}

/* A new positioner: placed again, for the configure that answers it. */
static void
handle_reposition(struct wl_listener *listener, void *data)
{
	struct vl_popup *popup = wl_container_of(listener, popup, reposition);

	unconstrain(popup);
}

static void
handle_destroy(struct wl_listener *listener, void *data)
{
	struct vl_popup *popup = wl_container_of(listener, popup, destroy);

	/*
	 * Its tree goes with it: the client may make its xdg_surface a popup
	 * again, under another parent, and only that one is to be drawn.
	 */
	if (popup->tree)
		wlr_scene_node_destroy(&popup->tree->node);
	wl_list_remove(&popup->commit.link);
	wl_list_remove(&popup->reposition.link);
	wl_list_remove(&popup->destroy.link);
	free(popup);
}

/* The popup's tree went, with its own or its parent's. */
static void
handle_tree_destroy(struct wl_listener *listener, void *data)
{
	struct vl_popup *popup = wl_container_of(listener, popup, tree_destroy);

	if (popup->popup->base->data == popup->tree)
		popup->popup->base->data = NULL;
	popup->tree = NULL;
	wl_list_remove(&popup->tree_destroy.link);
}

void
vl_popup_create(struct wlr_xdg_popup *xdg_popup, struct wlr_scene_tree *parent_tree,
	vl_popup_area_fn area, void *data)
{
	struct vl_popup *popup = calloc(1, sizeof(*popup));

	if (!popup) {
		wl_resource_post_no_memory(xdg_popup->resource);
		return;
	}
	popup->tree = wlr_scene_xdg_surface_create(parent_tree, xdg_popup->base);
	if (!popup->tree) {
		free(popup);
		wl_resource_post_no_memory(xdg_popup->resource);
		return;
	}
	popup->popup = xdg_popup;
	popup->area = area;
	popup->area_data = data;
	xdg_popup->base->data = popup->tree;
	popup->tree_destroy.notify = handle_tree_destroy;
	wl_signal_add(&popup->tree->node.events.destroy, &popup->tree_destroy);
	popup->commit.notify = handle_commit;
	wl_signal_add(&xdg_popup->base->surface->events.commit, &popup->commit);
	popup->reposition.notify = handle_reposition;
	wl_signal_add(&xdg_popup->events.reposition, &popup->reposition);
	popup->destroy.notify = handle_destroy;
	wl_signal_add(&xdg_popup->events.destroy, &popup->destroy);
}
