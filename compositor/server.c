// SPDX-License-Identifier: MIT
/*
 * The server: the e-paper backend (with libinput when there is a seat), the
 * pixman renderer, the scene, and the globals a kiosk application expects.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vellum/epd-backend.h>
#include <wlr/backend/libinput.h>
#include <wlr/backend/multi.h>
#include <wlr/backend/session.h>
#include <wlr/render/allocator.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_content_type_v1.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_fractional_scale_v1.h>
#include <wlr/types/wlr_idle_inhibit_v1.h>
#include <wlr/types/wlr_idle_notify_v1.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_presentation_time.h>
#include <wlr/types/wlr_primary_selection_v1.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_screencopy_v1.h>
#include <wlr/types/wlr_single_pixel_buffer_v1.h>
#include <wlr/types/wlr_subcompositor.h>
#include <wlr/types/wlr_tablet_v2.h>
#include <wlr/types/wlr_viewporter.h>
#include <wlr/types/wlr_virtual_keyboard_v1.h>
#include <wlr/types/wlr_virtual_pointer_v1.h>
#include <wlr/types/wlr_xdg_decoration_v1.h>
#include <wlr/types/wlr_xdg_output_v1.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>
#include <wlr/xwayland.h>

#ifdef VL_HAVE_LAYER_SHELL
#include <wlr/types/wlr_layer_shell_v1.h>
#else
/* the layers are there, empty, without layer-shell */
enum {
	ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND,
	ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM,
	ZWLR_LAYER_SHELL_V1_LAYER_TOP,
	ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY
};
#endif

#include "preview.h"
#include "refresh.h"
#include "server.h"

static void
handle_xwayland_ready(struct wl_listener *listener, void *data)
{
	struct vl_server *server = wl_container_of(listener, server, xwayland_ready);
	(void)data;

	wlr_xwayland_set_seat(server->xwayland, vl_seat_wlr(server->seat));
	vl_views_handle_xwayland_ready(server);
}

/*
 * The panel is the one output; input devices come through libinput when a
 * seat can be had (logind or seatd), and without one vellum still shows
 * applications, as it does in a build root or a test without devices.
 */
static bool
create_backend(struct vl_server *server, char *error, size_t error_size)
{
	struct vl_epd_backend_options options = {
		.device = server->config.device,
		.waveform_map = server->config.waveform_map,
		.full_refresh_every = server->config.full_refresh_every,
		.idle_cleanup_ms = server->config.idle_cleanup_ms,
		.input_window_ms = server->config.input_window_ms,
		.merge_window_ms = server->config.merge_window_ms,
		.animation_interval_ms = server->config.animation_interval_ms,
		.time_scale = server->config.time_scale,
		.vcom_mv = server->config.vcom_mv,
	};
	char backend_error[VL_ERROR_SIZE];

	server->backend = wlr_multi_backend_create(server->loop);
	if (!server->backend) {
		snprintf(error, error_size, "cannot create the backend");
		return false;
	}
	server->epd_backend =
		vl_epd_backend_create(server->loop, &options, backend_error, sizeof(backend_error));
	if (!server->epd_backend) {
		snprintf(error, error_size, "%s", backend_error);
		return false;
	}
	wlr_multi_backend_add(server->backend, server->epd_backend);
	if (server->embedded)
		return true;
	/* on a desktop, input comes through the preview window */
	if (vl_preview_wanted(server))
		return vl_preview_create_backend(server, error, error_size);

	server->session = wlr_session_create(server->loop);
	if (!server->session) {
		fprintf(stderr,
			"vellum: no seat (logind or seatd): running without input devices\n");
		return true;
	}
	/* A kiosk may get its keyboard or touchscreen later, or never. */
	setenv("WLR_LIBINPUT_NO_DEVICES", "1", false);
	struct wlr_backend *libinput = wlr_libinput_backend_create(server->session);
	if (libinput)
		wlr_multi_backend_add(server->backend, libinput);
	else
		wlr_log(WLR_ERROR, "cannot open input devices: running without them");
	return true;
}

static bool
create_globals(struct vl_server *server)
{
	struct wl_display *display = server->display;

	server->compositor = wlr_compositor_create(display, 6, server->renderer);
	server->output_layout = wlr_output_layout_create(display);
	server->scene = wlr_scene_create();
	if (!server->compositor || !server->output_layout || !server->scene)
		return false;
	server->scene_layout = wlr_scene_attach_output_layout(server->scene, server->output_layout);
	/* Where no window is, the panel is white, as paper. */
	const float white[4] = {1.0f, 1.0f, 1.0f, 1.0f};
	server->background = wlr_scene_rect_create(&server->scene->tree, 0, 0, white);
	server->layer_trees[ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND] =
		wlr_scene_tree_create(&server->scene->tree);
	server->layer_trees[ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM] =
		wlr_scene_tree_create(&server->scene->tree);
	server->views_tree = wlr_scene_tree_create(&server->scene->tree);
	server->layer_trees[ZWLR_LAYER_SHELL_V1_LAYER_TOP] =
		wlr_scene_tree_create(&server->scene->tree);
	server->layer_trees[ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY] =
		wlr_scene_tree_create(&server->scene->tree);
	server->layer_popups_tree = wlr_scene_tree_create(&server->scene->tree);
	for (size_t i = 0; i < sizeof(server->layer_trees) / sizeof(server->layer_trees[0]); i++)
		if (!server->layer_trees[i])
			return false;
	server->xdg_shell = wlr_xdg_shell_create(display, 6);
	server->decoration_manager = wlr_xdg_decoration_manager_v1_create(display);
	server->content_type_manager = wlr_content_type_manager_v1_create(display, 1);
	server->virtual_keyboard_manager = wlr_virtual_keyboard_manager_v1_create(display);
	server->virtual_pointer_manager = wlr_virtual_pointer_manager_v1_create(display);
	server->idle_notifier = wlr_idle_notifier_v1_create(display);
	server->idle_inhibit_manager = wlr_idle_inhibit_v1_create(display);
	server->tablet_manager = wlr_tablet_v2_create(display);
	server->refresh = vl_refresh_manager_create(server);
	if (!server->scene_layout || !server->background || !server->views_tree ||
		!server->layer_popups_tree || !vl_layers_init(server) || !server->xdg_shell ||
		!server->decoration_manager || !server->content_type_manager ||
		!server->virtual_keyboard_manager || !server->virtual_pointer_manager ||
		!server->idle_notifier || !server->idle_inhibit_manager ||
		!server->tablet_manager || !server->refresh)
		return false;

	/* presented = when the panel settled, from the backend's present events */
	return wlr_subcompositor_create(display) && wlr_data_device_manager_create(display) &&
	       wlr_primary_selection_v1_device_manager_create(display) &&
	       wlr_viewporter_create(display) &&
	       /* the scene tells surfaces the output's scale */
	       wlr_fractional_scale_manager_v1_create(display, 1) &&
	       wlr_presentation_create(display, server->backend) &&
	       wlr_screencopy_manager_v1_create(display) &&
	       wlr_xdg_output_manager_v1_create(display, server->output_layout) &&
	       wlr_single_pixel_buffer_manager_v1_create(display);
}

/* X11 applications, when Xwayland is installed; it starts when a client connects. */
static void
start_xwayland(struct vl_server *server)
{
	server->xwayland = wlr_xwayland_create(server->display, server->compositor, true);
	if (!server->xwayland) {
		wlr_log(WLR_INFO, "Xwayland is not available: X11 applications will not run");
		return;
	}
	server->new_xwayland_surface.notify = vl_view_handle_new_xwayland_surface;
	wl_signal_add(&server->xwayland->events.new_surface, &server->new_xwayland_surface);
	server->xwayland_ready.notify = handle_xwayland_ready;
	wl_signal_add(&server->xwayland->events.ready, &server->xwayland_ready);
	vl_views_init_x11(server);
}

/* What vellum sets in its own environment for wlroots, read once they are created. */
static const char *const wlroots_variables[VL_WLROOTS_VARIABLES] = {
	"WLR_RENDERER",
	"WLR_LIBINPUT_NO_DEVICES",
};

static bool
keep_given_environment(struct vl_server *server)
{
	for (size_t i = 0; i < VL_WLROOTS_VARIABLES; i++) {
		const char *value = getenv(wlroots_variables[i]);
		if (value && !(server->given_env[i] = strdup(value)))
			return false;
	}
	return true;
}

/*
 * The application's environment, as vellum(1) describes it: WAYLAND_DISPLAY
 * is vellum's socket, DISPLAY Xwayland's or unset (never the display vellum
 * was started with, which with the preview is the desktop's), and what
 * vellum set for wlroots is as vellum was given it. Set once wlroots has
 * read what it needs, before the application starts.
 */
static void
set_application_environment(struct vl_server *server)
{
	for (size_t i = 0; i < VL_WLROOTS_VARIABLES; i++) {
		if (server->given_env[i])
			setenv(wlroots_variables[i], server->given_env[i], true);
		else
			unsetenv(wlroots_variables[i]);
	}
	if (server->xwayland)
		setenv("DISPLAY", server->xwayland->display_name, true);
	else
		unsetenv("DISPLAY");
	setenv("WAYLAND_DISPLAY", server->socket, true);
}

bool
vl_server_init(struct vl_server *server, char *error, size_t error_size)
{
	wl_list_init(&server->outputs);
	wl_list_init(&server->views);
	wl_list_init(&server->layer_surfaces);
	wl_list_init(&server->kept_frames);
	wl_list_init(&server->x11_views);
	server->display = wl_display_create();
	if (!server->display) {
		snprintf(error, error_size, "cannot create the Wayland display");
		return false;
	}
	server->loop = wl_display_get_event_loop(server->display);
	if (!server->embedded && !keep_given_environment(server)) {
		snprintf(error, error_size, "out of memory");
		return false;
	}
	/* the panel's output reads what it renders: pixman, whatever the desktop has */
	if (vl_preview_wanted(server))
		setenv("WLR_RENDERER", "pixman", true);
	if (!create_backend(server, error, error_size))
		return false;
	server->renderer = wlr_renderer_autocreate(server->backend);
	server->allocator = server->renderer
				    ? wlr_allocator_autocreate(server->backend, server->renderer)
				    : NULL;
	if (!server->allocator ||
		!wlr_renderer_init_wl_display(server->renderer, server->display)) {
		snprintf(error, error_size, "cannot create the renderer");
		return false;
	}
	if (!create_globals(server)) {
		snprintf(error, error_size, "cannot create the Wayland globals");
		return false;
	}
	server->seat = vl_seat_create(server);
	if (!server->seat) {
		snprintf(error, error_size, "cannot create the seat");
		return false;
	}

	server->new_output.notify = vl_output_handle_new;
	wl_signal_add(&server->backend->events.new_output, &server->new_output);
	server->new_input.notify = vl_seat_handle_new_input;
	wl_signal_add(&server->backend->events.new_input, &server->new_input);
	server->new_toplevel.notify = vl_view_handle_new_toplevel;
	wl_signal_add(&server->xdg_shell->events.new_toplevel, &server->new_toplevel);
	server->new_popup.notify = vl_view_handle_new_popup;
	wl_signal_add(&server->xdg_shell->events.new_popup, &server->new_popup);
	server->new_decoration.notify = vl_view_handle_new_decoration;
	wl_signal_add(&server->decoration_manager->events.new_toplevel_decoration,
		&server->new_decoration);
	server->new_virtual_keyboard.notify = vl_seat_handle_new_virtual_keyboard;
	wl_signal_add(&server->virtual_keyboard_manager->events.new_virtual_keyboard,
		&server->new_virtual_keyboard);
	server->new_virtual_pointer.notify = vl_seat_handle_new_virtual_pointer;
	wl_signal_add(&server->virtual_pointer_manager->events.new_virtual_pointer,
		&server->new_virtual_pointer);

	if (!server->embedded) {
		server->socket = wl_display_add_socket_auto(server->display);
		if (!server->socket) {
			snprintf(error, error_size,
				"cannot create a Wayland socket in XDG_RUNTIME_DIR");
			return false;
		}
	}
	if (server->xwayland_enabled)
		start_xwayland(server);
	if (!wlr_backend_start(server->backend)) {
		snprintf(error, error_size, "cannot start the backend");
		return false;
	}
	if (server->record_dir && !server->preview) {
		snprintf(error, error_size, "--record records the preview: it needs -d preview");
		return false;
	}
	if (!vl_preview_start(server, error, error_size))
		return false;
	if (!server->embedded)
		set_application_environment(server);
	/* the devices there are at the start have come */
	vl_seat_report_touch_device(server->seat);
	return true;
}

void
vl_server_finish(struct vl_server *server)
{
	for (size_t i = 0; i < VL_WLROOTS_VARIABLES; i++) {
		free(server->given_env[i]);
		server->given_env[i] = NULL;
	}
	if (!server->display)
		return;
	server->shutting_down = true;
	/* the recording's last frame and updates, from the panel model still there */
	vl_preview_finish(server);
	wl_display_destroy_clients(server->display);
	if (server->xwayland) {
		wl_list_remove(&server->new_xwayland_surface.link);
		wl_list_remove(&server->xwayland_ready.link);
		vl_views_finish_x11(server);
		wlr_xwayland_destroy(server->xwayland);
	}
	if (server->new_output.notify) {
		wl_list_remove(&server->new_output.link);
		wl_list_remove(&server->new_input.link);
		wl_list_remove(&server->new_toplevel.link);
		wl_list_remove(&server->new_popup.link);
		wl_list_remove(&server->new_decoration.link);
		wl_list_remove(&server->new_virtual_keyboard.link);
		wl_list_remove(&server->new_virtual_pointer.link);
	}
	vl_layers_finish(server);
	/* The panel keeps showing the last frame: destroying the backend sends nothing. */
	if (server->backend)
		wlr_backend_destroy(server->backend);
	else if (server->epd_backend)
		wlr_backend_destroy(server->epd_backend);
	vl_preview_destroy(server);
	/* after the backend: its input devices leave the seat as they go */
	if (server->seat)
		vl_seat_destroy(server->seat);
	if (server->scene)
		wlr_scene_node_destroy(&server->scene->tree.node);
	if (server->allocator)
		wlr_allocator_destroy(server->allocator);
	if (server->renderer)
		wlr_renderer_destroy(server->renderer);
	wl_display_destroy(server->display);
	server->display = NULL;
}

void
vl_server_usable_area(struct vl_server *server, struct wlr_box *box)
{
	struct vl_output *output = vl_output_first(server);

	*box = (struct wlr_box){0};
	if (!output)
		return;
	wlr_output_layout_get_box(server->output_layout, output->wlr_output, box);
	box->x += server->exclusive.left;
	box->y += server->exclusive.top;
	box->width -= server->exclusive.left + server->exclusive.right;
	box->height -= server->exclusive.top + server->exclusive.bottom;
	if (box->width <= 0 || box->height <= 0)
		*box = (struct wlr_box){0};
}

void
vl_server_apply_config(struct vl_server *server)
{
	struct vl_output *output = vl_output_first(server);
	struct vl_epd_backend_options options = {
		.full_refresh_every = server->config.full_refresh_every,
		.idle_cleanup_ms = server->config.idle_cleanup_ms,
		.input_window_ms = server->config.input_window_ms,
		.merge_window_ms = server->config.merge_window_ms,
		.animation_interval_ms = server->config.animation_interval_ms,
	};

	if (output)
		vl_epd_output_set_policy(output->wlr_output, &options);
	vl_seat_configure(server->seat);
	vl_seat_report_touch_device(server->seat);
	if (server->refresh)
		vl_refresh_handle_reload(server->refresh);
	/* new rules give views new modes from the next frame on */
	if (output)
		wlr_output_schedule_frame(output->wlr_output);
}
