// SPDX-License-Identifier: MIT
/*
 * layer-shell: surfaces a client puts in a layer of the panel rather than in
 * a window, such as an on-screen keyboard. Background and bottom layers are
 * drawn below the application, top and overlay above it; an exclusive zone
 * is taken from the area the application fills, so a keyboard at the bottom
 * pushes the application's bottom edge up instead of hiding it.
 */
#include <stdlib.h>
#include <vellum/epd-backend.h>
#include <vellum/epd-pipeline.h>
#include <wlr/types/wlr_layer_shell_v1.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>

#include "popup.h"
#include "server.h"

#define VL_LAYER_COUNT 4

struct vl_layer_surface {
	struct wl_list link; /* vl_server.layer_surfaces */
	struct vl_server *server;
	struct wlr_layer_surface_v1 *layer_surface;
	struct wlr_scene_layer_surface_v1 *scene;
	/* the surface's popups, above every layer, kept where the surface is */
	struct wlr_scene_tree *popups;
	bool mapped;
	struct wl_listener map, unmap, commit, new_popup, output_destroy, destroy;
};

/*
 * Configures the layer's surfaces whose exclusive zone is (or is not)
 * positive: those with one first, so that the others are placed in what
 * they leave.
 */
static void
arrange_layer(struct vl_server *server, enum zwlr_layer_shell_v1_layer layer, bool exclusive,
	const struct wlr_box *full, struct wlr_box *usable)
{
	struct vl_layer_surface *surface;

	wl_list_for_each (surface, &server->layer_surfaces, link) {
		struct wlr_layer_surface_v1 *layer_surface = surface->layer_surface;
		if (!layer_surface->initialized || layer_surface->current.layer != layer ||
			(layer_surface->current.exclusive_zone > 0) != exclusive)
			continue;
		wlr_scene_layer_surface_v1_configure(surface->scene, full, usable);
		wlr_scene_node_set_position(&surface->popups->node, surface->scene->tree->node.x,
			surface->scene->tree->node.y);
	}
}

void
vl_layers_arrange(struct vl_server *server)
{
	struct vl_output *output = vl_output_first(server);
	struct wlr_box full, usable;

	if (!output)
		return;
	wlr_output_layout_get_box(server->output_layout, output->wlr_output, &full);
	usable = full;
	/* the upper layers' zones first: a panel on top wins over a wallpaper's */
	for (int layer = VL_LAYER_COUNT - 1; layer >= 0; layer--)
		arrange_layer(server, layer, true, &full, &usable);
	for (int layer = VL_LAYER_COUNT - 1; layer >= 0; layer--)
		arrange_layer(server, layer, false, &full, &usable);

	int top = usable.y - full.y, left = usable.x - full.x;
	int bottom = full.y + full.height - (usable.y + usable.height);
	int right = full.x + full.width - (usable.x + usable.width);
	if (top != server->exclusive.top || bottom != server->exclusive.bottom ||
		left != server->exclusive.left || right != server->exclusive.right) {
		server->exclusive.top = top;
		server->exclusive.bottom = bottom;
		server->exclusive.left = left;
		server->exclusive.right = right;
		vl_views_arrange(server);
	}
	/* Paper white under everything, exclusive zones included. */
	wlr_scene_node_set_position(&server->background->node, full.x, full.y);
	wlr_scene_rect_set_size(server->background, full.width, full.height);
}

/* Keyboard focus */

static bool
wants_keyboard(struct vl_layer_surface *surface)
{
	const struct wlr_layer_surface_v1_state *state = &surface->layer_surface->current;

	return surface->mapped &&
	       state->keyboard_interactive ==
		       ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_EXCLUSIVE &&
	       state->layer >= ZWLR_LAYER_SHELL_V1_LAYER_TOP;
}

/* The topmost surface that takes the keyboard for itself, if any. */
static struct vl_layer_surface *
exclusive_keyboard_surface(struct vl_server *server)
{
	struct vl_layer_surface *surface, *found = NULL;

	wl_list_for_each (surface, &server->layer_surfaces, link)
		if (wants_keyboard(surface) &&
			(!found || surface->layer_surface->current.layer >
					   found->layer_surface->current.layer))
			found = surface;
	return found;
}

static void
update_keyboard_focus(struct vl_server *server)
{
	struct vl_layer_surface *surface = exclusive_keyboard_surface(server);

	if (surface) {
		vl_seat_focus_layer(server->seat, surface->layer_surface->surface);
		return;
	}
	/* an on-demand surface keeps the keyboard it was given while mapped */
	struct wlr_surface *focused = vl_seat_layer_focus(server->seat);
	struct wlr_layer_surface_v1 *layer_surface =
		focused ? wlr_layer_surface_v1_try_from_wlr_surface(focused) : NULL;
	if (focused && (!layer_surface || !layer_surface->surface->mapped ||
			       layer_surface->current.keyboard_interactive ==
				       ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE))
		vl_seat_focus_layer(server->seat, NULL);
}

/*
 * The layer surface a surface is part of, as itself, a subsurface or a popup
 * (through popups of popups): touching a bar's menu is touching the bar.
 * NULL for none.
 */
static struct wlr_layer_surface_v1 *
layer_surface_of(struct wlr_surface *surface)
{
	while (surface) {
		surface = wlr_surface_get_root_surface(surface);
		struct wlr_layer_surface_v1 *layer_surface =
			wlr_layer_surface_v1_try_from_wlr_surface(surface);
		if (layer_surface)
			return layer_surface;
		struct wlr_xdg_popup *popup = wlr_xdg_popup_try_from_wlr_surface(surface);
		surface = popup ? popup->parent : NULL;
	}
	return NULL;
}

void
vl_layers_handle_press(struct vl_server *server, struct wlr_surface *surface)
{
	struct wlr_layer_surface_v1 *layer_surface = layer_surface_of(surface);

	if (exclusive_keyboard_surface(server))
		return;
	/* On demand: the keyboard goes to the surface touched, and back to the view when it is not.
	 */
	if (layer_surface && layer_surface->current.keyboard_interactive ==
				     ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_ON_DEMAND)
		vl_seat_focus_layer(server->seat, layer_surface->surface);
	else if (!layer_surface)
		vl_seat_focus_layer(server->seat, NULL);
}

/* Layer surfaces */

static void
handle_map(struct wl_listener *listener, void *data)
{
	struct vl_layer_surface *surface = wl_container_of(listener, surface, map);
	(void)data;

	surface->mapped = true;
	vl_layers_arrange(surface->server);
	update_keyboard_focus(surface->server);
}

static void
handle_unmap(struct wl_listener *listener, void *data)
{
	struct vl_layer_surface *surface = wl_container_of(listener, surface, unmap);
	(void)data;

	surface->mapped = false;
	vl_layers_arrange(surface->server);
	if (vl_seat_layer_focus(surface->server->seat) == surface->layer_surface->surface)
		vl_seat_focus_layer(surface->server->seat, NULL);
	update_keyboard_focus(surface->server);
}

/* A width or height of 0 leaves it to the compositor, which needs both opposite edges anchored. */
static bool
has_valid_size(const struct wlr_layer_surface_v1_state *state)
{
	const uint32_t horizontal =
		ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT | ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT;
	const uint32_t vertical =
		ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP | ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM;

	return (state->desired_width != 0 || (state->anchor & horizontal) == horizontal) &&
	       (state->desired_height != 0 || (state->anchor & vertical) == vertical);
}

static void
handle_commit(struct wl_listener *listener, void *data)
{
	struct vl_layer_surface *surface = wl_container_of(listener, surface, commit);
	struct wlr_layer_surface_v1 *layer_surface = surface->layer_surface;
	struct vl_server *server = surface->server;
	(void)data;

	if (!layer_surface->initialized)
		return;
	if (!has_valid_size(&layer_surface->current)) {
		wl_resource_post_error(layer_surface->resource,
			ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_SIZE,
			"a width or height of 0 needs the surface anchored to both opposite edges");
		return;
	}
	uint32_t committed = layer_surface->current.committed;
	if (committed & WLR_LAYER_SURFACE_V1_STATE_LAYER)
		wlr_scene_node_reparent(&surface->scene->tree->node,
			server->layer_trees[layer_surface->current.layer]);
	/*
	 * Configures only when the client changed what placing depends on, or
	 * for the first one it waits for: every configure asks for a new frame.
	 */
	if (layer_surface->initial_commit || committed)
		vl_layers_arrange(server);
	if (committed & (WLR_LAYER_SURFACE_V1_STATE_KEYBOARD_INTERACTIVITY |
				WLR_LAYER_SURFACE_V1_STATE_LAYER))
		update_keyboard_focus(server);
}

/* A layer surface's popups are kept on the panel. */
static bool
layer_popup_area(struct wlr_xdg_popup *popup, void *data, struct wlr_box *box)
{
	struct vl_layer_surface *surface = data;
	struct vl_output *output = vl_output_first(surface->server);

	if (!output)
		return false;
	/* in the coordinates of the layer surface */
	wlr_output_layout_get_box(surface->server->output_layout, output->wlr_output, box);
	box->x -= surface->scene->tree->node.x;
	box->y -= surface->scene->tree->node.y;
	return true;
}

static void
handle_new_popup(struct wl_listener *listener, void *data)
{
	struct vl_layer_surface *surface = wl_container_of(listener, surface, new_popup);

	vl_popup_create(data, surface->popups, layer_popup_area, surface);
}

static void
handle_output_destroy(struct wl_listener *listener, void *data)
{
	struct vl_layer_surface *surface = wl_container_of(listener, surface, output_destroy);
	(void)data;

	/* closed: the client may ask again for another output */
	wlr_layer_surface_v1_destroy(surface->layer_surface);
}

static void
handle_destroy(struct wl_listener *listener, void *data)
{
	struct vl_layer_surface *surface = wl_container_of(listener, surface, destroy);
	(void)data;

	wl_list_remove(&surface->link);
	wl_list_remove(&surface->map.link);
	wl_list_remove(&surface->unmap.link);
	wl_list_remove(&surface->commit.link);
	wl_list_remove(&surface->new_popup.link);
	wl_list_remove(&surface->output_destroy.link);
	wl_list_remove(&surface->destroy.link);
	wlr_scene_node_destroy(&surface->popups->node);
	free(surface);
}

static void
handle_new_surface(struct wl_listener *listener, void *data)
{
	struct vl_server *server = wl_container_of(listener, server, new_layer_surface);
	struct wlr_layer_surface_v1 *layer_surface = data;
	struct vl_output *output = vl_output_first(server);

	/* the panel is the one output, whichever the client names */
	if (!output) {
		wlr_log(WLR_INFO, "layer surface %s closed: no panel to show it on",
			layer_surface->namespace);
		wlr_layer_surface_v1_destroy(layer_surface);
		return;
	}
	layer_surface->output = output->wlr_output;
	struct vl_layer_surface *surface = calloc(1, sizeof(*surface));
	if (!surface) {
		wl_resource_post_no_memory(layer_surface->resource);
		return;
	}
	surface->server = server;
	surface->layer_surface = layer_surface;
	surface->scene = wlr_scene_layer_surface_v1_create(
		server->layer_trees[layer_surface->pending.layer], layer_surface);
	surface->popups = wlr_scene_tree_create(server->layer_popups_tree);
	if (!surface->scene || !surface->popups) {
		if (surface->scene)
			wlr_scene_node_destroy(&surface->scene->tree->node);
		free(surface);
		wl_resource_post_no_memory(layer_surface->resource);
		return;
	}
	wl_list_insert(&server->layer_surfaces, &surface->link);
	surface->map.notify = handle_map;
	wl_signal_add(&layer_surface->surface->events.map, &surface->map);
	surface->unmap.notify = handle_unmap;
	wl_signal_add(&layer_surface->surface->events.unmap, &surface->unmap);
	surface->commit.notify = handle_commit;
	wl_signal_add(&layer_surface->surface->events.commit, &surface->commit);
	surface->new_popup.notify = handle_new_popup;
	wl_signal_add(&layer_surface->events.new_popup, &surface->new_popup);
	surface->output_destroy.notify = handle_output_destroy;
	wl_signal_add(&output->wlr_output->events.destroy, &surface->output_destroy);
	surface->destroy.notify = handle_destroy;
	wl_signal_add(&layer_surface->events.destroy, &surface->destroy);
}

/* Refresh hints */

/*
 * The mode for a layer surface: the config's rule for its namespace (an
 * on-screen keyboard may want fast updates), else the default mode.
 */
static void
layer_mode(struct vl_layer_surface *surface, enum vl_epd_mode *mode, enum vl_epd_dither *dither)
{
	const struct vl_config *config = &surface->server->config;
	const char *namespace = surface->layer_surface->namespace;
	const struct vl_app_rule *rule = namespace ? vl_config_rule(config, namespace) : NULL;

	*mode = rule && rule->has_mode ? rule->mode : config->default_mode;
	*dither = rule && rule->has_dither ? rule->dither : config->default_dither;
}

void
vl_layers_add_hints(struct vl_server *server, struct vl_output *output)
{
	struct vl_layer_surface *surface;

	/* lower layers first: hints that come later win where they overlap */
	for (int layer = 0; layer < VL_LAYER_COUNT; layer++) {
		wl_list_for_each (surface, &server->layer_surfaces, link) {
			struct wlr_layer_surface_v1 *layer_surface = surface->layer_surface;
			if (!surface->mapped || layer_surface->current.layer != (uint32_t)layer)
				continue;
			enum vl_epd_mode mode;
			enum vl_epd_dither dither;
			layer_mode(surface, &mode, &dither);
			if (mode == VL_EPD_MODE_AUTO && dither == VL_EPD_DITHER_AUTO)
				continue;
			struct wlr_box box = {
				surface->scene->tree->node.x,
				surface->scene->tree->node.y,
				layer_surface->surface->current.width,
				layer_surface->surface->current.height,
			};
			struct vl_epd_hint how = {.mode = mode, .dither = dither};
			vl_output_hint_box(server, output, &box, &how);
		}
	}
}

/* Setup */

bool
vl_layers_init(struct vl_server *server)
{
	server->layer_shell = wlr_layer_shell_v1_create(server->display, 4);
	if (!server->layer_shell)
		return false;
	server->new_layer_surface.notify = handle_new_surface;
	wl_signal_add(&server->layer_shell->events.new_surface, &server->new_layer_surface);
	return true;
}

void
vl_layers_finish(struct vl_server *server)
{
	if (server->layer_shell)
		wl_list_remove(&server->new_layer_surface.link);
}
