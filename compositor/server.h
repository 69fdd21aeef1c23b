/*
 * The vellum server: the Wayland display, the e-paper backend, the scene and
 * the protocols, shared by the compositor's files.
 */
#ifndef VL_SERVER_H
#define VL_SERVER_H

#include <stdbool.h>
#include <sys/types.h>
#include <wayland-server-core.h>
#include <wlr/backend.h>
#include <wlr/util/box.h>

#include "config.h"

struct vl_seat;

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
	struct wlr_scene_tree *views_tree;
	struct wlr_xdg_shell *xdg_shell;
	struct wlr_xdg_decoration_manager_v1 *decoration_manager;
	struct wlr_content_type_manager_v1 *content_type_manager;
	struct wlr_virtual_keyboard_manager_v1 *virtual_keyboard_manager;
	struct wlr_idle_notifier_v1 *idle_notifier;
	struct wlr_idle_inhibit_manager_v1 *idle_inhibit_manager;
	struct wlr_xwayland *xwayland;
	struct vl_seat *seat;

	struct wl_list outputs; /* struct vl_output */
	struct wl_list views;   /* struct vl_view, most recently mapped first */

	struct wl_listener new_output;
	struct wl_listener new_input;
	struct wl_listener new_toplevel;
	struct wl_listener new_popup;
	struct wl_listener new_decoration;
	struct wl_listener new_virtual_keyboard;
	struct wl_listener new_xwayland_surface;
	struct wl_listener xwayland_ready;

	struct wl_event_source *sigchld, *sigterm, *sigint, *sighup;
	pid_t child;
	int exit_status;
	bool panel_gone; /* exit with 1, whatever the application's status */
	bool xwayland_enabled;
	bool shutting_down;
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
/* The box the views fill: the output's, in layout coordinates (empty without one). */
void vl_server_usable_area(struct vl_server *server, struct wlr_box *box);

/* output.c */
void vl_output_handle_new(struct wl_listener *listener, void *data);
struct vl_output *vl_output_first(struct vl_server *server);

/* view.c */
void vl_view_handle_new_toplevel(struct wl_listener *listener, void *data);
void vl_view_handle_new_popup(struct wl_listener *listener, void *data);
void vl_view_handle_new_decoration(struct wl_listener *listener, void *data);
void vl_view_handle_new_xwayland_surface(struct wl_listener *listener, void *data);
void vl_views_arrange(struct vl_server *server);
/* Hints for the panel: each view's refresh mode over its area. */
void vl_views_add_hints(struct vl_server *server, struct vl_output *output);

/* seat.c */
struct vl_seat *vl_seat_create(struct vl_server *server);
void vl_seat_destroy(struct vl_seat *seat);
void vl_seat_handle_new_input(struct wl_listener *listener, void *data);
void vl_seat_handle_new_virtual_keyboard(struct wl_listener *listener, void *data);
/* Gives keyboard focus to surface (NULL: none). */
void vl_seat_focus(struct vl_seat *seat, struct wlr_surface *surface);
struct wlr_seat *vl_seat_wlr(struct vl_seat *seat);
/* Applies the config's cursor and keyboard settings again. */
void vl_seat_configure(struct vl_seat *seat);

#endif
