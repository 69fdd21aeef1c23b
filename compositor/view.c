// SPDX-License-Identifier: MIT
/*
 * Views: the application's windows, xdg toplevels and X11 windows. The main
 * window fills the panel; dialogs (windows with a parent or a fixed size)
 * are shown centred above it; popups and X11 menus where the client puts
 * them. The newest mapped window has the keyboard.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vellum/epd-backend.h>
#include <vellum/epd-pipeline.h>
#include <wlr/types/wlr_content_type_v1.h>
#include <wlr/types/wlr_fractional_scale_v1.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_xdg_decoration_v1.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>
#include <wlr/xwayland.h>

#include "border.h"
#include "popup.h"
#include "server.h"

enum vl_view_type {
	VL_VIEW_XDG,
	VL_VIEW_X11,
};

/* Where an X11 window's latest change is, for its merge hold (see "X11 changes"). */
enum x11_change {
	X11_CHANGE_COMPLETE,
	X11_CHANGE_COMMITTED, /* frame callbacks of its last commit not answered yet */
	X11_CHANGE_ANSWERED,  /* they were, at x11_answered_ms, and nothing came since */
};

struct vl_view {
	struct wl_list link; /* vl_server.views, while mapped */
	struct vl_server *server;
	enum vl_view_type type;
	struct wlr_scene_tree *scene_tree;
	struct vl_border border; /* a dialog's, in scene_tree */
	struct wlr_box box;      /* layout coordinates, while mapped */
	bool mapped;
	/* its last frame, kept in the scene since it was unmapped (output.c) */
	struct vl_kept_frame *kept_frame;
	/* where vl_view_place_at() put it, in place of the kiosk's placement */
	struct {
		bool set;
		int x, y;
	} pin;
	union {
		struct wlr_xdg_toplevel *toplevel;
		struct wlr_xwayland_surface *xsurface;
	};
	struct wl_listener map, unmap, commit, destroy;
	struct wl_listener request_fullscreen;    /* xdg */
	struct wl_listener request_maximize;      /* xdg */
	struct wl_listener associate, dissociate; /* X11 */
	struct wl_listener request_configure;     /* X11 */
	struct wl_listener set_geometry;          /* X11 */
	/* X11: the size the client made its window or last asked for */
	struct {
		int width, height;
	} x11_size;
	/* X11: the parent it was last kept above */
	struct wlr_xwayland_surface *x11_parent;
	/* X11: its surface in scene_tree, while mapped */
	struct wlr_scene_surface *x11_scene_surface;
	struct wl_list x11_link; /* vl_server.x11_views, while associated */
	enum x11_change x11_change;
	bool x11_asked_frame; /* its last commit left frame callbacks to answer */
	int64_t x11_answered_ms;
};

static struct wlr_surface *
view_surface(struct vl_view *view)
{
	return view->type == VL_VIEW_XDG ? view->toplevel->base->surface : view->xsurface->surface;
}

static const char *
view_app_id(struct vl_view *view)
{
	return view->type == VL_VIEW_XDG ? view->toplevel->app_id : view->xsurface->class;
}

static bool
is_dialog(struct vl_view *view)
{
	if (view->type == VL_VIEW_XDG) {
		struct wlr_xdg_toplevel_state *current = &view->toplevel->current;
		return view->toplevel->parent ||
		       (current->min_width > 0 && current->min_height > 0 &&
			       current->min_width == current->max_width &&
			       current->min_height == current->max_height);
	}
	struct wlr_xwayland_surface *xsurface = view->xsurface;
	xcb_size_hints_t *hints = xsurface->size_hints;
	if (xsurface->parent || xsurface->modal ||
		(hints && hints->min_width > 0 && hints->min_height > 0 &&
			hints->min_width == hints->max_width &&
			hints->min_height == hints->max_height))
		return true;
	uint32_t dialog_type = view->server->x11_dialog_type;
	for (size_t i = 0; dialog_type && i < xsurface->window_type_len; i++)
		if (xsurface->window_type[i] == dialog_type)
			return true;
	return false;
}

/*
 * Where a view goes: the whole usable area, or, for a dialog, centred there
 * at width x height. False while there is no usable area.
 */
static bool
view_box(struct vl_view *view, int width, int height, struct wlr_box *box)
{
	struct wlr_box area;

	vl_server_usable_area(view->server, &area);
	if (wlr_box_empty(&area))
		return false;
	if (view->pin.set) {
		*box = (struct wlr_box){view->pin.x, view->pin.y, width, height};
		/*
		 * A window that never set its geometry is pinned by its main
		 * surface: its geometry is then the bounds of its subsurfaces
		 * too, and would move the window whenever one of them moved.
		 */
		if (view->type == VL_VIEW_XDG &&
			wlr_box_empty(&view->toplevel->base->current.geometry)) {
			struct wlr_box geometry;
			wlr_xdg_surface_get_geometry(view->toplevel->base, &geometry);
			box->x += geometry.x;
			box->y += geometry.y;
		}
	} else if (!is_dialog(view)) {
		*box = area;
	} else {
		width = width < area.width ? width : area.width;
		height = height < area.height ? height : area.height;
		*box = (struct wlr_box){
			.x = area.x + (area.width - width) / 2,
			.y = area.y + (area.height - height) / 2,
			.width = width,
			.height = height,
		};
	}
	return true;
}

/*
 * Puts a view where view_box() says. An X11 window is told where it is
 * drawn: X places pointer input and its menus by what it was told.
 */
static void
place_sized(struct vl_view *view, int width, int height)
{
	if (!view_box(view, width, height, &view->box))
		return;
	wlr_scene_node_set_position(&view->scene_tree->node, view->box.x, view->box.y);
	/* a harness that places windows itself checks them without one */
	if (!vl_border_update(&view->border, view->scene_tree, is_dialog(view) && !view->pin.set,
		    view->box.width, view->box.height))
		wlr_log(WLR_ERROR, "cannot draw the border of a dialog");
	if (view->type == VL_VIEW_X11)
		wlr_xwayland_surface_configure(view->xsurface, view->box.x, view->box.y,
			view->box.width, view->box.height);
	else if (!is_dialog(view) && !view->pin.set)
		wlr_xdg_toplevel_set_size(view->toplevel, view->box.width, view->box.height);
}

/*
 * An X11 window's own size: the fixed size its hints give, else the size
 * the client made it or last asked for. Not what X has now: a window
 * vellum made fill the panel before it knew it for a dialog has the
 * panel's size.
 */
static void
x11_own_size(struct vl_view *view, int *width, int *height)
{
	xcb_size_hints_t *hints = view->xsurface->size_hints;

	*width = view->x11_size.width;
	*height = view->x11_size.height;
	if (hints && hints->min_width > 0 && hints->min_width == hints->max_width)
		*width = hints->min_width;
	if (hints && hints->min_height > 0 && hints->min_height == hints->max_height)
		*height = hints->min_height;
}

/* The same at the view's own size. */
static void
place(struct vl_view *view)
{
	int width, height;

	if (view->type == VL_VIEW_XDG) {
		struct wlr_box geometry;
		wlr_xdg_surface_get_geometry(view->toplevel->base, &geometry);
		width = geometry.width;
		height = geometry.height;
	} else {
		x11_own_size(view, &width, &height);
	}
	place_sized(view, width, height);
}

bool
vl_view_place_at(struct vl_server *server, struct wlr_surface *surface, int x, int y)
{
	struct vl_view *view;

	wl_list_for_each (view, &server->views, link) {
		if (view_surface(view) != surface)
			continue;
		view->pin.set = true;
		view->pin.x = x;
		view->pin.y = y;
		place(view);
		vl_seat_update_pointer_later(server->seat);
		return true;
	}
	return false;
}

void
vl_views_arrange(struct vl_server *server)
{
	struct vl_view *view;
	struct wlr_box area;

	vl_server_usable_area(server, &area);
	wlr_scene_node_set_position(&server->background->node, area.x, area.y);
	wlr_scene_rect_set_size(server->background, area.width, area.height);

	wl_list_for_each (view, &server->views, link)
		place(view);
	vl_seat_update_pointer_later(server->seat);
}

static void
set_activated(struct vl_view *view, bool activated)
{
	if (view->type == VL_VIEW_X11) {
		wlr_xwayland_surface_activate(view->xsurface, activated);
		return;
	}
	/* every configure may cost the client a redraw, and the panel an update */
	if (view->toplevel->scheduled.activated != activated)
		wlr_xdg_toplevel_set_activated(view->toplevel, activated);
}

/* The newest view gets the keyboard; the one that had it is told it lost it. */
static void
focus_top(struct vl_server *server)
{
	struct vl_view *view, *top = NULL;

	wl_list_for_each (view, &server->views, link) {
		if (top)
			set_activated(view, false);
		else
			top = view;
	}
	vl_seat_focus(server->seat, top ? view_surface(top) : NULL);
	if (top)
		set_activated(top, true);
}

static void
handle_map(struct wl_listener *listener, void *data)
{
	struct vl_view *view = wl_container_of(listener, view, map);
	(void)data;

	view->mapped = true;
	wl_list_insert(&view->server->views, &view->link);
	vl_output_drop_kept_frame(&view->kept_frame);
	wlr_scene_node_set_enabled(&view->scene_tree->node, true);
	wlr_scene_node_raise_to_top(&view->scene_tree->node);
	place(view);
	focus_top(view->server);
}

static void
handle_unmap(struct wl_listener *listener, void *data)
{
	struct vl_view *view = wl_container_of(listener, view, unmap);
	(void)data;

	view->mapped = false;
	wl_list_remove(&view->link);
	vl_output_keep_frame(view->server, &view->scene_tree->node, &view->kept_frame);
	wlr_scene_node_set_enabled(&view->scene_tree->node, false);
	focus_top(view->server);
}

static void
view_destroy(struct vl_view *view)
{
	if (view->mapped)
		wl_list_remove(&view->link);
	/* its last frame stays, for the panel between windows */
	vl_output_disown_kept_frame(&view->kept_frame);
	wl_list_remove(&view->destroy.link);
	free(view);
}

/* xdg-shell */

/*
 * The panel's scale, told before the first frame: the scene tells it once
 * the surface is shown, and a client that guessed otherwise would draw its
 * first frame twice, the first time at a size vellum reads and drops (foot
 * at scale 2.25 draws it at 3: 18 MB of pixels, for nothing).
 */
static void
tell_scale(struct vl_server *server, struct wlr_surface *surface)
{
	struct vl_output *output = vl_output_first(server);

	if (!output)
		return;
	wlr_fractional_scale_v1_notify_scale(surface, output->wlr_output->scale);
	wlr_surface_set_preferred_buffer_scale(surface, (int32_t)ceilf(output->wlr_output->scale));
}

static void
handle_xdg_commit(struct wl_listener *listener, void *data)
{
	struct vl_view *view = wl_container_of(listener, view, commit);
	(void)data;

	if (view->toplevel->base->initial_commit) {
		/* no maximize, minimize or window menu, and always fullscreen */
		wlr_xdg_toplevel_set_wm_capabilities(view->toplevel, 0);
		/* Every window is fullscreen on the panel, dialogs at their own size. */
		wlr_xdg_toplevel_set_fullscreen(view->toplevel, !is_dialog(view));
		struct wlr_box area;
		vl_server_usable_area(view->server, &area);
		tell_scale(view->server, view->toplevel->base->surface);
		if (is_dialog(view))
			wlr_xdg_toplevel_set_size(view->toplevel, 0, 0);
		else
			wlr_xdg_toplevel_set_size(view->toplevel, area.width, area.height);
		return;
	}
	if (view->mapped && (is_dialog(view) || view->pin.set))
		place(view);
}

/*
 * A kiosk window stays as it is whatever state it asks for; xdg-shell still
 * has each request answered by a configure.
 */
static void
refuse_state_request(struct vl_view *view)
{
	if (view->toplevel->base->initialized)
		wlr_xdg_surface_schedule_configure(view->toplevel->base);
}

static void
handle_xdg_request_fullscreen(struct wl_listener *listener, void *data)
{
	struct vl_view *view = wl_container_of(listener, view, request_fullscreen);
	(void)data;

	refuse_state_request(view);
}

static void
handle_xdg_request_maximize(struct wl_listener *listener, void *data)
{
	struct vl_view *view = wl_container_of(listener, view, request_maximize);
	(void)data;

	refuse_state_request(view);
}

static void
handle_xdg_destroy(struct wl_listener *listener, void *data)
{
	struct vl_view *view = wl_container_of(listener, view, destroy);
	(void)data;

	wl_list_remove(&view->map.link);
	wl_list_remove(&view->unmap.link);
	wl_list_remove(&view->commit.link);
	wl_list_remove(&view->request_fullscreen.link);
	wl_list_remove(&view->request_maximize.link);
	/*
	 * The tree goes with the role object, not with the xdg_surface: a
	 * client may give the xdg_surface a new toplevel, which gets a tree
	 * of its own.
	 */
	view->toplevel->base->data = NULL;
	wlr_scene_node_destroy(&view->scene_tree->node);
	view_destroy(view);
}

void
vl_view_handle_new_toplevel(struct wl_listener *listener, void *data)
{
	struct vl_server *server = wl_container_of(listener, server, new_toplevel);
	struct wlr_xdg_toplevel *toplevel = data;
	struct vl_view *view = calloc(1, sizeof(*view));

	if (!view) {
		wl_resource_post_no_memory(toplevel->resource);
		return;
	}
	view->server = server;
	view->type = VL_VIEW_XDG;
	view->toplevel = toplevel;
	view->scene_tree = wlr_scene_xdg_surface_create(server->views_tree, toplevel->base);
	if (!view->scene_tree) {
		free(view);
		wl_resource_post_no_memory(toplevel->resource);
		return;
	}
	wlr_scene_node_set_enabled(&view->scene_tree->node, false);
	/* popups find their parent's tree here */
	toplevel->base->data = view->scene_tree;

	view->map.notify = handle_map;
	wl_signal_add(&toplevel->base->surface->events.map, &view->map);
	view->unmap.notify = handle_unmap;
	wl_signal_add(&toplevel->base->surface->events.unmap, &view->unmap);
	view->commit.notify = handle_xdg_commit;
	wl_signal_add(&toplevel->base->surface->events.commit, &view->commit);
	view->destroy.notify = handle_xdg_destroy;
	wl_signal_add(&toplevel->events.destroy, &view->destroy);
	view->request_fullscreen.notify = handle_xdg_request_fullscreen;
	wl_signal_add(&toplevel->events.request_fullscreen, &view->request_fullscreen);
	view->request_maximize.notify = handle_xdg_request_maximize;
	wl_signal_add(&toplevel->events.request_maximize, &view->request_maximize);
}

/* A window's popups are kept inside the usable area (the panel less the bars). */
static bool
window_popup_area(struct wlr_xdg_popup *popup, void *data, struct wlr_box *area)
{
	struct vl_server *server = data;
	struct wlr_xdg_surface *root = popup->base;
	int lx = 0, ly = 0;

	vl_server_usable_area(server, area);
	/* the box is in the coordinates of the popup's toplevel */
	while (root->role == WLR_XDG_SURFACE_ROLE_POPUP && root->popup->parent) {
		struct wlr_xdg_surface *parent =
			wlr_xdg_surface_try_from_wlr_surface(root->popup->parent);
		if (!parent)
			break;
		root = parent;
	}
	struct wlr_scene_tree *tree = root->data;
	if (tree)
		wlr_scene_node_coords(&tree->node, &lx, &ly);
	area->x -= lx;
	area->y -= ly;
	return true;
}

void
vl_view_handle_new_popup(struct wl_listener *listener, void *data)
{
	struct vl_server *server = wl_container_of(listener, server, new_popup);
	struct wlr_xdg_popup *xdg_popup = data;
	if (!xdg_popup->parent) /* a layer surface's: layer.c places it */
		return;
	struct wlr_xdg_surface *parent = wlr_xdg_surface_try_from_wlr_surface(xdg_popup->parent);

	if (!parent || !parent->data) {
		wlr_log(WLR_DEBUG, "a popup without a known parent is not shown");
		return;
	}
	vl_popup_create(xdg_popup, parent->data, window_popup_area, server);
}

/*
 * Decorations: nothing is drawn around the one window, and clients should
 * not draw any either. The mode goes with a configure, which may only be
 * sent once the surface's first commit came.
 */
struct vl_decoration {
	struct wlr_xdg_toplevel_decoration_v1 *decoration;
	struct wl_listener commit, request_mode, destroy;
};

static void
set_decoration_mode(struct vl_decoration *decoration)
{
	if (decoration->decoration->toplevel->base->initialized)
		wlr_xdg_toplevel_decoration_v1_set_mode(
			decoration->decoration, WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
}

static void
handle_decoration_commit(struct wl_listener *listener, void *data)
{
	struct vl_decoration *decoration = wl_container_of(listener, decoration, commit);
	(void)data;

	if (decoration->decoration->toplevel->base->initial_commit)
		set_decoration_mode(decoration);
}

static void
handle_decoration_request_mode(struct wl_listener *listener, void *data)
{
	struct vl_decoration *decoration = wl_container_of(listener, decoration, request_mode);
	(void)data;

	set_decoration_mode(decoration);
}

static void
handle_decoration_destroy(struct wl_listener *listener, void *data)
{
	struct vl_decoration *decoration = wl_container_of(listener, decoration, destroy);
	(void)data;

	wl_list_remove(&decoration->commit.link);
	wl_list_remove(&decoration->request_mode.link);
	wl_list_remove(&decoration->destroy.link);
	free(decoration);
}

void
vl_view_handle_new_decoration(struct wl_listener *listener, void *data)
{
	struct wlr_xdg_toplevel_decoration_v1 *wlr_decoration = data;
	struct vl_decoration *decoration = calloc(1, sizeof(*decoration));
	(void)listener;

	if (!decoration)
		return;
	decoration->decoration = wlr_decoration;
	decoration->commit.notify = handle_decoration_commit;
	wl_signal_add(&wlr_decoration->toplevel->base->surface->events.commit, &decoration->commit);
	decoration->request_mode.notify = handle_decoration_request_mode;
	wl_signal_add(&wlr_decoration->events.request_mode, &decoration->request_mode);
	decoration->destroy.notify = handle_decoration_destroy;
	wl_signal_add(&wlr_decoration->events.destroy, &decoration->destroy);
	set_decoration_mode(decoration);
}

/* X11 windows through Xwayland */

static void
handle_x11_request_configure(struct wl_listener *listener, void *data)
{
	struct vl_view *view = wl_container_of(listener, view, request_configure);
	struct wlr_xwayland_surface_configure_event *event = data;

	if (event->mask & XCB_CONFIG_WINDOW_WIDTH)
		view->x11_size.width = event->width;
	if (event->mask & XCB_CONFIG_WINDOW_HEIGHT)
		view->x11_size.height = event->height;
	if (view->mapped) {
		/* a dialog may change its size, not where it is */
		place_sized(view, event->width, event->height);
		return;
	}
	if (!is_dialog(view) && !view->xsurface->override_redirect) {
		/* The main window fills the panel from its first frame on. */
		struct wlr_box area;
		vl_server_usable_area(view->server, &area);
		wlr_xwayland_surface_configure(
			view->xsurface, area.x, area.y, area.width, area.height);
		return;
	}
	wlr_xwayland_surface_configure(
		view->xsurface, event->x, event->y, event->width, event->height);
}

/*
 * X moved or resized the window. An override-redirect one (a menu, a
 * tooltip, a drag icon) goes where X has it, whenever X moves it; the
 * others are where vellum put them.
 */
static void
handle_x11_set_geometry(struct wl_listener *listener, void *data)
{
	struct vl_view *view = wl_container_of(listener, view, set_geometry);
	struct wlr_xwayland_surface *xsurface = view->xsurface;
	(void)data;

	if (!view->scene_tree || view->mapped || !xsurface->override_redirect)
		return;
	wlr_scene_node_set_position(&view->scene_tree->node, xsurface->x, xsurface->y);
	vl_seat_update_pointer_later(view->server->seat);
}

/* The mapped dialogs of a mapped X11 window, and theirs, go above it. */
static void
raise_x11_children(struct vl_view *view)
{
	struct wlr_xwayland_surface *child;

	/* the newest first in the list: the oldest raised first, the newest on top */
	wl_list_for_each_reverse (child, &view->xsurface->children, parent_link) {
		struct vl_view *child_view = child->data;
		if (!child_view || !child_view->mapped)
			continue;
		wlr_scene_node_raise_to_top(&child_view->scene_tree->node);
		wl_list_remove(&child_view->link);
		wl_list_insert(&view->server->views, &child_view->link);
		raise_x11_children(child_view);
	}
}

/*
 * X told the window manager of a window's parent, type, size hints or
 * state: whether it is a dialog, and at what size, may have changed after
 * it was mapped (a client may set them at any time, and Xwayland may have
 * the window drawn before they reach vellum). Each mapped X11 window goes
 * where it now belongs, if that is elsewhere, and a window given a parent
 * goes above it.
 */
static void
recheck_x11_views(void *data)
{
	struct vl_server *server = data;
	struct vl_view *view;
	bool changed = false;

	server->x11_recheck = NULL;
	wl_list_for_each (view, &server->views, link) {
		int width, height;
		struct wlr_box box;
		if (view->type != VL_VIEW_X11)
			continue;
		x11_own_size(view, &width, &height);
		if (view_box(view, width, height, &box) && !wlr_box_equal(&box, &view->box)) {
			place_sized(view, width, height);
			changed = true;
		}
	}
restack:
	wl_list_for_each (view, &server->views, link) {
		if (view->type != VL_VIEW_X11 || view->xsurface->parent == view->x11_parent)
			continue;
		view->x11_parent = view->xsurface->parent;
		struct vl_view *parent = view->x11_parent ? view->x11_parent->data : NULL;
		if (parent && parent->mapped)
			raise_x11_children(parent);
		changed = true;
		/* the list may have changed order */
		goto restack;
	}
	if (!changed)
		return;
	focus_top(server);
	vl_seat_update_pointer_later(server->seat);
}

/*
 * X11 changes. Xwayland commits a change an X client draws in several
 * requests in pieces, one per frame callback: it commits what was drawn,
 * asks for a frame, and commits what was drawn meanwhile when the frame
 * done comes, at once. A window that, a frame after its frame done, has
 * committed nothing new has no piece left: its change is complete and its
 * merge hold ends then, not x11-merge-window after it began, which stays
 * the bound for a window that asks for no frames or is not shown. An
 * application's own merge-window is waited out: it was set for one that
 * draws its pieces further apart than that.
 */

/*
 * How long Xwayland has to answer a frame done with the next piece: a frame
 * at 60 Hz. vellum's frames come when the scene changed, at once: the next
 * one could come before Xwayland even read the frame done.
 */
#define X11_ANSWER_MS 16

static int64_t
monotonic_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* Whether its changes wait for x11-merge-window, which a complete change ends. */
static bool
x11_hold_ends_early(struct vl_view *view)
{
	const char *app_id = view->xsurface->class;
	const struct vl_app_rule *rule =
		app_id ? vl_config_rule(&view->server->config, app_id) : NULL;

	return !rule || !rule->has_merge_window;
}

/* Where the window's surface is shown, in layout coordinates; false: nowhere. */
static bool
x11_surface_box(struct vl_view *view, struct wlr_box *box)
{
	struct wlr_surface *surface = view->xsurface->surface;
	int x, y;

	if (!view->x11_scene_surface || !surface ||
		!wlr_scene_node_coords(&view->scene_tree->node, &x, &y))
		return false;
	*box = (struct wlr_box){x, y, surface->current.width, surface->current.height};
	return !wlr_box_empty(box);
}

/*
 * Whether more of the window's change may come: committed asking for a
 * frame and shown (a window not shown is sent no frame done, and may wait
 * for it as long as it is hidden), or answered less than a frame ago.
 */
static bool
x11_change_pending(struct vl_view *view, int64_t now)
{
	switch (view->x11_change) {
	case X11_CHANGE_COMMITTED:
		return view->x11_asked_frame && view->x11_scene_surface &&
		       view->x11_scene_surface->buffer->primary_output;
	case X11_CHANGE_ANSWERED:
		return now - view->x11_answered_ms < X11_ANSWER_MS;
	default:
		return false;
	}
}

/* The timer fires when the first answered change is a frame old. */
static void
arm_x11_settle(struct vl_server *server)
{
	struct vl_view *view;
	int64_t due = 0;

	if (!server->x11_settle)
		return;
	wl_list_for_each (view, &server->x11_views, x11_link) {
		int64_t at = view->x11_answered_ms + X11_ANSWER_MS;
		if (view->x11_change == X11_CHANGE_ANSWERED && (due == 0 || at < due))
			due = at;
	}
	int64_t delay_ms = due == 0 ? 0 : due - monotonic_ms();
	/* a zero delay would disarm it */
	if (due != 0 && delay_ms < 1)
		delay_ms = 1;
	wl_event_source_timer_update(server->x11_settle, (int)delay_ms);
}

/*
 * The changes answered a frame ago with nothing are complete: their holds
 * end, but where another X11 window's change may still get more pieces.
 */
static int
handle_x11_settle(void *data)
{
	struct vl_server *server = data;
	struct vl_output *output = vl_output_first(server);
	int64_t now = monotonic_ms();
	pixman_region32_t complete, pending;
	struct vl_view *view;

	pixman_region32_init(&complete);
	pixman_region32_init(&pending);
	wl_list_for_each (view, &server->x11_views, x11_link) {
		struct wlr_box box;
		bool shown = x11_surface_box(view, &box);
		bool early = x11_hold_ends_early(view);
		if (view->x11_change == X11_CHANGE_ANSWERED && !x11_change_pending(view, now)) {
			view->x11_change = X11_CHANGE_COMPLETE;
			if (shown && early)
				pixman_region32_union_rect(
					&complete, &complete, box.x, box.y, box.width, box.height);
		} else if (shown && early && x11_change_pending(view, now)) {
			pixman_region32_union_rect(
				&pending, &pending, box.x, box.y, box.width, box.height);
		}
	}
	pixman_region32_subtract(&complete, &complete, &pending);
	int n;
	const pixman_box32_t *rects = pixman_region32_rectangles(&complete, &n);
	for (int i = 0; output && i < n; i++) {
		struct wlr_box box = {rects[i].x1, rects[i].y1, rects[i].x2 - rects[i].x1,
			rects[i].y2 - rects[i].y1};
		vl_output_end_hold(server, output, &box);
	}
	pixman_region32_fini(&complete);
	pixman_region32_fini(&pending);
	arm_x11_settle(server);
	return 0;
}

void
vl_views_x11_frame_done(struct vl_server *server)
{
	struct vl_view *view;
	int64_t now = monotonic_ms();
	bool answered = false;

	wl_list_for_each (view, &server->x11_views, x11_link) {
		/* the scene answers the frame callbacks of the surfaces it shows */
		if (view->x11_change != X11_CHANGE_COMMITTED || !view->x11_asked_frame ||
			!wl_list_empty(&view->xsurface->surface->current.frame_callback_list))
			continue;
		view->x11_change = X11_CHANGE_ANSWERED;
		view->x11_answered_ms = now;
		answered = true;
	}
	if (answered)
		arm_x11_settle(server);
}

static void
handle_x11_commit(struct wl_listener *listener, void *data)
{
	struct vl_view *view = wl_container_of(listener, view, commit);
	(void)data;

	view->x11_change = X11_CHANGE_COMMITTED;
	view->x11_asked_frame =
		!wl_list_empty(&view->xsurface->surface->current.frame_callback_list);
}

/* The server whose X events handle_x11_event sees: the hook has no data of its own. */
static struct vl_server *x11_server;

/*
 * Sees each X event before wlroots does; a property change or a client
 * message (_NET_WM_STATE) has the windows looked at again, once wlroots
 * has read it.
 */
static int
handle_x11_event(struct wlr_xwm *xwm, xcb_generic_event_t *event)
{
	uint8_t type = event->response_type & ~0x80;
	(void)xwm;

	if ((type == XCB_PROPERTY_NOTIFY || type == XCB_CLIENT_MESSAGE) && x11_server &&
		!x11_server->x11_recheck)
		x11_server->x11_recheck =
			wl_event_loop_add_idle(x11_server->loop, recheck_x11_views, x11_server);
	return 0;
}

void
vl_views_init_x11(struct vl_server *server)
{
	x11_server = server;
	server->xwayland->user_event_handler = handle_x11_event;
	/* without it, X11 changes wait for x11-merge-window */
	server->x11_settle = wl_event_loop_add_timer(server->loop, handle_x11_settle, server);
}

void
vl_views_handle_xwayland_ready(struct vl_server *server)
{
	static const char name[] = "_NET_WM_WINDOW_TYPE_DIALOG";
	xcb_connection_t *conn = wlr_xwayland_get_xwm_connection(server->xwayland);
	xcb_intern_atom_reply_t *reply = xcb_intern_atom_reply(
		conn, xcb_intern_atom(conn, false, sizeof(name) - 1, name), NULL);

	/* atoms are the X server's: one started again may have others */
	server->x11_dialog_type = reply ? reply->atom : XCB_ATOM_NONE;
	free(reply);
}

void
vl_views_finish_x11(struct vl_server *server)
{
	if (server->x11_recheck)
		wl_event_source_remove(server->x11_recheck);
	server->x11_recheck = NULL;
	if (server->x11_settle)
		wl_event_source_remove(server->x11_settle);
	server->x11_settle = NULL;
	x11_server = NULL;
}

static void
handle_x11_map(struct wl_listener *listener, void *data)
{
	struct vl_view *view = wl_container_of(listener, view, map);
	struct wlr_xwayland_surface *xsurface = view->xsurface;
	(void)data;

	view->scene_tree = wlr_scene_tree_create(view->server->views_tree);
	if (!view->scene_tree)
		return;
	view->x11_scene_surface = wlr_scene_surface_create(view->scene_tree, xsurface->surface);
	if (!view->x11_scene_surface)
		return;
	if (xsurface->override_redirect) {
		/* menus and tooltips: where X put them, without the keyboard */
		wlr_scene_node_set_position(&view->scene_tree->node, xsurface->x, xsurface->y);
		return;
	}
	view->mapped = true;
	wl_list_insert(&view->server->views, &view->link);
	vl_output_drop_kept_frame(&view->kept_frame);
	place(view);
	/* its dialogs, if they came first, stay above it */
	view->x11_parent = xsurface->parent;
	raise_x11_children(view);
	focus_top(view->server);
}

static void
handle_x11_unmap(struct wl_listener *listener, void *data)
{
	struct vl_view *view = wl_container_of(listener, view, unmap);
	(void)data;

	if (view->mapped && view->scene_tree)
		vl_output_keep_frame(view->server, &view->scene_tree->node, &view->kept_frame);
	if (view->scene_tree)
		wlr_scene_node_destroy(&view->scene_tree->node);
	view->scene_tree = NULL;
	vl_border_forget(&view->border);
	view->x11_scene_surface = NULL;
	if (!view->mapped)
		return;
	view->mapped = false;
	wl_list_remove(&view->link);
	focus_top(view->server);
}

static void
handle_x11_associate(struct wl_listener *listener, void *data)
{
	struct vl_view *view = wl_container_of(listener, view, associate);
	struct wlr_surface *surface = view->xsurface->surface;
	(void)data;

	view->map.notify = handle_x11_map;
	wl_signal_add(&surface->events.map, &view->map);
	view->unmap.notify = handle_x11_unmap;
	wl_signal_add(&surface->events.unmap, &view->unmap);
	view->commit.notify = handle_x11_commit;
	wl_signal_add(&surface->events.commit, &view->commit);
	view->x11_change = X11_CHANGE_COMPLETE;
	wl_list_insert(&view->server->x11_views, &view->x11_link);
	/*
	 * Xwayland may have committed the window's first buffer before the
	 * window manager read which X window the wl_surface is for: wlroots
	 * maps it on the next commit only, and a window that does not draw
	 * again (a dialog that waits to be placed) would never be shown.
	 * Mapped now, as that commit would have mapped it.
	 */
	if (!surface->mapped && wlr_surface_has_buffer(surface)) {
		wlr_log(WLR_DEBUG, "X11 window %u drew before it was associated: mapped now",
			view->xsurface->window_id);
		wlr_surface_map(surface);
	}
}

static void
handle_x11_dissociate(struct wl_listener *listener, void *data)
{
	struct vl_view *view = wl_container_of(listener, view, dissociate);
	(void)data;

	wl_list_remove(&view->map.link);
	wl_list_remove(&view->unmap.link);
	wl_list_remove(&view->commit.link);
	wl_list_remove(&view->x11_link);
}

static void
handle_x11_destroy(struct wl_listener *listener, void *data)
{
	struct vl_view *view = wl_container_of(listener, view, destroy);
	(void)data;

	wl_list_remove(&view->associate.link);
	wl_list_remove(&view->dissociate.link);
	wl_list_remove(&view->request_configure.link);
	wl_list_remove(&view->set_geometry.link);
	view->xsurface->data = NULL;
	view_destroy(view);
}

void
vl_view_handle_new_xwayland_surface(struct wl_listener *listener, void *data)
{
	struct vl_server *server = wl_container_of(listener, server, new_xwayland_surface);
	struct wlr_xwayland_surface *xsurface = data;
	struct vl_view *view = calloc(1, sizeof(*view));

	if (!view)
		return;
	view->server = server;
	view->type = VL_VIEW_X11;
	view->xsurface = xsurface;
	view->x11_size.width = xsurface->width;
	view->x11_size.height = xsurface->height;
	/* its parent's view finds it here */
	xsurface->data = view;
	view->associate.notify = handle_x11_associate;
	wl_signal_add(&xsurface->events.associate, &view->associate);
	view->dissociate.notify = handle_x11_dissociate;
	wl_signal_add(&xsurface->events.dissociate, &view->dissociate);
	view->destroy.notify = handle_x11_destroy;
	wl_signal_add(&xsurface->events.destroy, &view->destroy);
	view->request_configure.notify = handle_x11_request_configure;
	wl_signal_add(&xsurface->events.request_configure, &view->request_configure);
	view->set_geometry.notify = handle_x11_set_geometry;
	wl_signal_add(&xsurface->events.set_geometry, &view->set_geometry);
}

/* Refresh hints */

/*
 * How the panel shows a view. Its mode: the content type the client
 * declares (photo → quality, video and games → animation), else the
 * config's rule for the application, else the default mode (a surface's
 * epaper-refresh-v1 mode comes before all of them, in refresh.c); its
 * dither likewise, without the content type. Its merge window: the rule's,
 * else x11-merge-window for X11 clients, which split their changes, else
 * none. Its carets' blinking is held unless the rule shows it. The hint's
 * box is left alone.
 */
static void
view_hint(struct vl_view *view, struct vl_epd_hint *how)
{
	const struct vl_config *config = &view->server->config;
	const char *app_id = view_app_id(view);
	const struct vl_app_rule *rule = app_id ? vl_config_rule(config, app_id) : NULL;

	how->mode = rule && rule->has_mode ? rule->mode : config->default_mode;
	how->dither = rule && rule->has_dither ? rule->dither : config->default_dither;
	how->show_blinking = rule && rule->show_blinking;
	if (rule && rule->has_merge_window)
		how->merge_window_ms = rule->merge_window_ms;
	else
		how->merge_window_ms = view->type == VL_VIEW_X11 ? config->x11_merge_window_ms : 0;
	switch (wlr_surface_get_content_type_v1(
		view->server->content_type_manager, view_surface(view))) {
	case WP_CONTENT_TYPE_V1_TYPE_PHOTO:
		how->mode = VL_EPD_MODE_QUALITY;
		break;
	case WP_CONTENT_TYPE_V1_TYPE_VIDEO:
	case WP_CONTENT_TYPE_V1_TYPE_GAME:
		how->mode = VL_EPD_MODE_ANIMATION;
		break;
	default:
		break;
	}
}

void
vl_view_hint_for_node(
	struct vl_server *server, struct wlr_scene_node *node, struct vl_epd_hint *how)
{
	struct vl_view *view;

	how->mode = server->config.default_mode;
	how->dither = server->config.default_dither;
	/* Popups and subsurfaces are drawn inside their view's tree. */
	for (struct wlr_scene_tree *tree = node->parent; tree; tree = tree->node.parent) {
		wl_list_for_each (view, &server->views, link) {
			if (view->scene_tree == tree) {
				struct vl_epd_hint view_how = {0};
				view_hint(view, &view_how);
				how->mode = view_how.mode;
				how->dither = view_how.dither;
				how->show_blinking = view_how.show_blinking;
				return;
			}
		}
	}
}

void
vl_views_add_hints(struct vl_server *server, struct vl_output *output)
{
	struct vl_view *view;

	/* Oldest first: hints of views on top come later and win where they overlap. */
	wl_list_for_each_reverse (view, &server->views, link) {
		struct vl_epd_hint how = {0};
		view_hint(view, &how);
		if (how.mode != VL_EPD_MODE_AUTO || how.dither != VL_EPD_DITHER_AUTO ||
			how.merge_window_ms != 0 || how.show_blinking)
			vl_output_hint_box(server, output, &view->box, &how);
	}
}
