/* SPDX-License-Identifier: MIT */
/*
 * The vellum server: the Wayland display, the e-paper backend, the scene and
 * the protocols, shared by the compositor's files.
 */
#ifndef VL_SERVER_H
#define VL_SERVER_H

#include <stdbool.h>
#include <sys/types.h>
#include <vellum/epd-backend.h>
#include <wayland-server-core.h>
#include <wlr/backend.h>
#include <wlr/util/box.h>

#include "config.h"

struct vl_kept_frame;
struct vl_seat;
struct vl_preview;
struct vl_refresh_manager;
struct wlr_input_device;
struct wlr_scene_node;
struct wlr_surface;

/* How many variables of its own environment vellum sets for wlroots. */
#define VL_WLROOTS_VARIABLES 2

struct vl_server {
	struct wl_display *display;
	struct wl_event_loop *loop;
	struct vl_config config;
	char *config_path; /* NULL: built-in defaults */
	const char *socket;

	struct wlr_backend *backend; /* multi: the panel and, with a seat, libinput */
	struct wlr_backend *epd_backend;
	struct wlr_session *session;
	struct wlr_renderer *renderer;
	struct wlr_allocator *allocator;
	struct wlr_compositor *compositor;
	struct wlr_scene *scene;
	struct wlr_output_layout *output_layout;
	struct wlr_scene_output_layout *scene_layout;
	struct wlr_scene_rect *background; /* paper white, under the views */
	/* layer-shell's layers: background and bottom below the views, top and overlay above */
	struct wlr_scene_tree *layer_trees[4];
	struct wlr_scene_tree *views_tree;
	struct wlr_scene_tree *layer_popups_tree; /* popups of layer surfaces, above all */
	struct wlr_xdg_shell *xdg_shell;
	struct wlr_xdg_decoration_manager_v1 *decoration_manager;
	struct wlr_content_type_manager_v1 *content_type_manager;
	struct wlr_virtual_keyboard_manager_v1 *virtual_keyboard_manager;
	struct wlr_virtual_pointer_manager_v1 *virtual_pointer_manager;
	struct wlr_idle_notifier_v1 *idle_notifier;
	struct wlr_idle_inhibit_manager_v1 *idle_inhibit_manager;
	struct wlr_layer_shell_v1 *layer_shell; /* NULL when built without layer-shell */
	struct wlr_tablet_manager_v2 *tablet_manager;
	struct wlr_xwayland *xwayland;
	uint32_t x11_dialog_type;            /* the X server's _NET_WM_WINDOW_TYPE_DIALOG atom */
	struct wl_event_source *x11_recheck; /* pending: X windows looked at again */
	/* struct vl_view: X11 windows with a surface, whose changes end the merge hold (view.c) */
	struct wl_list x11_views;
	struct wl_event_source *x11_settle; /* when the next X11 change may be complete */
	struct vl_seat *seat;
	struct vl_refresh_manager *refresh;
	struct vl_preview *preview; /* -d preview: the window on the desktop */
	const char *record_dir;     /* --record DIR: the preview's recording */

	struct wl_list outputs;        /* struct vl_output */
	struct wl_list views;          /* struct vl_view, most recently mapped first */
	struct wl_list layer_surfaces; /* struct vl_layer_surface */
	/* what the layer surfaces' exclusive zones take from each edge of the output */
	struct {
		int top, right, bottom, left;
	} exclusive;

	struct wl_listener new_output;
	struct wl_listener new_input;
	struct wl_listener new_toplevel;
	struct wl_listener new_popup;
	struct wl_listener new_decoration;
	struct wl_listener new_virtual_keyboard;
	struct wl_listener new_virtual_pointer;
	struct wl_listener new_layer_surface;
	struct wl_listener new_xwayland_surface;
	struct wl_listener xwayland_ready;

	struct wl_event_source *sigchld, *sigterm, *sigint, *sighup;
	pid_t child;
	int exit_status;
	bool panel_gone; /* exit with 1, whatever the application's status */
	bool xwayland_enabled;
	/*
	 * Started inside another program (the conformance suite's integration
	 * module): no session or libinput, no listening socket, nothing set in
	 * the environment; clients come through wl_client_create() and input
	 * devices through vl_seat_add_input().
	 */
	bool embedded;
	/*
	 * The variables vellum sets for wlroots (WLR_RENDERER, ...), as vellum
	 * was given them (NULL: unset): the application gets these.
	 */
	char *given_env[VL_WLROOTS_VARIABLES];
	bool shutting_down;
	/* struct vl_kept_frame: the last frames of windows that went, in views_tree (output.c) */
	struct wl_list kept_frames;
};

struct vl_output {
	struct wl_list link;
	struct vl_server *server;
	struct wlr_output *wlr_output;
	struct wlr_scene_output *scene_output;
	struct wl_listener frame;
	struct wl_listener request_state;
	struct wl_listener destroy;
};

/* server.c */
bool vl_server_init(struct vl_server *server, char *error, size_t error_size);
void vl_server_finish(struct vl_server *server);
/* Applies the configuration again after a reload: refresh policy, input. */
void vl_server_apply_config(struct vl_server *server);
/*
 * The box the views fill: the output's less the layer surfaces' exclusive
 * zones, in layout coordinates (empty without an output).
 */
void vl_server_usable_area(struct vl_server *server, struct wlr_box *box);

/* output.c */
void vl_output_handle_new(struct wl_listener *listener, void *data);
struct vl_output *vl_output_first(struct vl_server *server);
/*
 * A window is going: what its node shows now stays in the scene in its
 * place while no window is mapped, so that the panel keeps its image
 * between windows. *owner is where the window keeps its frame: the one it
 * had is dropped for the new one, and *owner is cleared whenever the frame
 * is dropped (a window is shown, or the frames kept hold more than two
 * panels' worth of pixels: the lowest go first).
 */
void vl_output_keep_frame(
	struct vl_server *server, struct wlr_scene_node *node, struct vl_kept_frame **owner);
/* Drops the frame kept in *owner, if any: the window is shown again. */
void vl_output_drop_kept_frame(struct vl_kept_frame **owner);
/* The window is going for good: its frame stays, without it. */
void vl_output_disown_kept_frame(struct vl_kept_frame **owner);
/*
 * Hints the next commit of an e-paper output that box (layout coordinates)
 * shows content as how says (its mode, dither and merge window; its box is
 * ignored); the part outside the output is left out.
 */
void vl_output_hint_box(struct vl_server *server, struct vl_output *output,
	const struct wlr_box *box, const struct vl_epd_hint *how);
/*
 * Ends the merge hold over box (layout coordinates) of an e-paper output:
 * the change there is complete.
 */
void vl_output_end_hold(
	struct vl_server *server, struct vl_output *output, const struct wlr_box *box);

/* view.c */
void vl_view_handle_new_toplevel(struct wl_listener *listener, void *data);
void vl_view_handle_new_popup(struct wl_listener *listener, void *data);
void vl_view_handle_new_decoration(struct wl_listener *listener, void *data);
void vl_view_handle_new_xwayland_surface(struct wl_listener *listener, void *data);
/* X11 windows: placed again when X changes what they are (see view.c). */
void vl_views_init_x11(struct vl_server *server);
void vl_views_handle_xwayland_ready(struct vl_server *server);
void vl_views_finish_x11(struct vl_server *server);
void vl_views_arrange(struct vl_server *server);
/*
 * Pins the mapped window whose surface this is at x, y (layout coordinates)
 * at its own size, outside the kiosk's placement: for a test harness that
 * positions windows itself. False when the surface is no mapped window's.
 */
bool vl_view_place_at(struct vl_server *server, struct wlr_surface *surface, int x, int y);
/* Hints for the panel: each view's refresh mode over its area. */
void vl_views_add_hints(struct vl_server *server, struct vl_output *output);
/*
 * The output's frame done was sent: X11 windows that committed since the
 * last one were answered, and their changes may be complete (see view.c).
 */
void vl_views_x11_frame_done(struct vl_server *server);
/*
 * The mode, dither and blinking of the view that node is part of (the
 * defaults outside views), into how.
 */
void vl_view_hint_for_node(
	struct vl_server *server, struct wlr_scene_node *node, struct vl_epd_hint *how);

/* layer.c: layer-shell, when built with it */
#ifdef VL_HAVE_LAYER_SHELL
bool vl_layers_init(struct vl_server *server);
void vl_layers_finish(struct vl_server *server);
/*
 * Places the layer surfaces on the output, computes the usable area their
 * exclusive zones leave, and arranges the views in it.
 */
void vl_layers_arrange(struct vl_server *server);
/* Hints for the panel: each mapped layer surface's refresh mode over its area. */
void vl_layers_add_hints(struct vl_server *server, struct vl_output *output);
/* A button, touch or pen press on surface (NULL: none): on-demand keyboard focus. */
void vl_layers_handle_press(struct vl_server *server, struct wlr_surface *surface);
#else
static inline bool
vl_layers_init(struct vl_server *server)
{
	return true;
}
static inline void
vl_layers_finish(struct vl_server *server)
{
}
static inline void
vl_layers_arrange(struct vl_server *server)
{
}
static inline void
vl_layers_add_hints(struct vl_server *server, struct vl_output *output)
{
}
static inline void
vl_layers_handle_press(struct vl_server *server, struct wlr_surface *surface)
{
}
#endif

/* seat.c */
struct vl_seat *vl_seat_create(struct vl_server *server);
void vl_seat_destroy(struct vl_seat *seat);
void vl_seat_handle_new_input(struct wl_listener *listener, void *data);
/* A keyboard, pointer, touchscreen or tablet joins the seat, as a backend's would. */
void vl_seat_add_input(struct vl_seat *seat, struct wlr_input_device *device);
void vl_seat_handle_new_virtual_keyboard(struct wl_listener *listener, void *data);
void vl_seat_handle_new_virtual_pointer(struct wl_listener *listener, void *data);
/* Gives keyboard focus to the view's surface (NULL: none), unless a layer surface has it. */
void vl_seat_focus(struct vl_seat *seat, struct wlr_surface *surface);
/* Gives keyboard focus to a layer surface, over the views; NULL gives it back to them. */
void vl_seat_focus_layer(struct vl_seat *seat, struct wlr_surface *surface);
struct wlr_surface *vl_seat_layer_focus(struct vl_seat *seat);
struct wlr_seat *vl_seat_wlr(struct vl_seat *seat);
/* Applies the config's cursor and keyboard settings again. */
void vl_seat_configure(struct vl_seat *seat);
/* Logs an error when the config's touch-device names none of the devices there are. */
void vl_seat_report_touch_device(struct vl_seat *seat);

/* pointer.c */
/*
 * What is under the pointer may have changed without the pointer moving (a
 * window mapped, moved or went): the surface there hears of it once the
 * event loop is idle.
 */
void vl_seat_update_pointer_later(struct vl_seat *seat);

#endif
