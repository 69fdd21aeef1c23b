// SPDX-License-Identifier: MIT
/*
 * The preview window: with "-d preview", vellum runs as a client of the
 * desktop's compositor (wlroots' Wayland backend, or X11's where only X
 * runs) and shows one window, the simulated panel, turned as the panel
 * is (-r). Applications run inside as on a device, on the preview device's
 * panel model; the window shows what that model's panel shows, redrawn
 * while updates run, and its pointer, keyboard and touch input reaches
 * them through vellum's seat. Ctrl+Alt+U in the window lays the overlay
 * of the updates in flight over it (overlay.c).
 */
#include <drm_fourcc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <wlr/backend/multi.h>
#include <wlr/backend/wayland.h>
#include <wlr/backend/x11.h>
#include <wlr/interfaces/wlr_output.h>
#include <wlr/render/pass.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/util/log.h>
#include <wlr/util/transform.h>
#include <xkbcommon/xkbcommon.h>

#include "desktop-screen.h"
#include "overlay.h"
#include "panel-model.h"
#include "preview.h"
#include "record.h"
#include "server.h"

/* How often the window looks for a change of the panel while updates are queued or run. */
#define PREVIEW_POLL_MS 33
/*
 * The largest window the preview opens, and no larger than the desktop's
 * screen: the panel is scaled down to fit.
 */
#define PREVIEW_MAX_WIDTH  1280
#define PREVIEW_MAX_HEIGHT 960

struct vl_preview {
	struct vl_server *server;
	struct wlr_backend *desktop; /* the Wayland or X11 backend */
	struct vl_panel_model *model;
	struct wlr_output *window;
	struct wl_listener frame, request_state, destroy;
	struct wl_event_source *poll;      /* armed while the panel changes */
	struct wl_event_source *submitted; /* the model's submissions, which arm it */
	uint32_t width, height;            /* the panel's, native */
	int screen_width, screen_height;   /* the desktop's smallest screen, 0 when unknown */
	uint8_t *panel;                    /* the model's readback */
	uint32_t *xrgb;                    /* the same, for the renderer */
	uint64_t drawn;                    /* completions when the window was last drawn */
	bool dirty;
	struct vl_record *record; /* --record DIR */
	uint64_t recorded;        /* completions when a frame was last recorded */
	bool overlay;             /* Ctrl+Alt+U: the updates in flight over the panel */
	uint32_t *overlay_argb;   /* overlay_width x overlay_height, the window's size */
	int overlay_width, overlay_height;
	uint32_t chord_keycode; /* the chord's key, whose release is the preview's too */
	bool chord_down;
};

bool
vl_preview_wanted(const struct vl_server *server)
{
	const char *device = server->config.device;

	return device && strncmp(device, "preview", 7) == 0 && (!device[7] || device[7] == ':');
}

static bool
is_set(const char *name)
{
	const char *value = getenv(name);

	return value && *value;
}

static void
free_preview(struct vl_preview *preview)
{
	free(preview->panel);
	free(preview->xrgb);
	free(preview->overlay_argb);
	free(preview);
}

/* The panel model, and room for its pictures. */
static bool
take_model(struct vl_preview *preview, char *error, size_t error_size)
{
	preview->model = vl_epd_backend_preview_model(preview->server->epd_backend);
	if (!preview->model) {
		snprintf(error, error_size, "the preview device has no panel model");
		return false;
	}
	preview->width = vl_panel_model_width(preview->model);
	preview->height = vl_panel_model_height(preview->model);
	size_t count = (size_t)preview->width * preview->height;
	preview->panel = malloc(count);
	preview->xrgb = malloc(count * sizeof(*preview->xrgb));
	if (!preview->panel || !preview->xrgb) {
		snprintf(error, error_size, "out of memory");
		return false;
	}
	return true;
}

bool
vl_preview_create_backend(struct vl_server *server, char *error, size_t error_size)
{
	struct vl_preview *preview = calloc(1, sizeof(*preview));

	if (!preview) {
		snprintf(error, error_size, "out of memory");
		return false;
	}
	preview->server = server;
	if (!take_model(preview, error, error_size)) {
		free_preview(preview);
		return false;
	}
	bool wayland = is_set("WAYLAND_DISPLAY") || is_set("WAYLAND_SOCKET");
	bool x11 = is_set("DISPLAY");
	if (wayland) {
		preview->desktop = wlr_wl_backend_create(server->loop, NULL);
		/* without one the screen size stays 0, unknown */
		if (preview->desktop)
			vl_desktop_screen_size(wlr_wl_backend_get_remote_display(preview->desktop),
				&preview->screen_width, &preview->screen_height);
	} else if (x11)
		preview->desktop = wlr_x11_backend_create(server->loop, NULL);
	if (!preview->desktop) {
		snprintf(error, error_size, "the preview needs a desktop: %s",
			wayland || x11 ? "cannot connect to its display"
				       : "neither WAYLAND_DISPLAY nor DISPLAY is set");
		free_preview(preview);
		return false;
	}
	wlr_multi_backend_add(server->backend, preview->desktop);
	server->preview = preview;
	return true;
}

/* The panel as the user sees it, turned by -r: the layout's size. */
static void
logical_size(struct vl_preview *preview, int *width, int *height)
{
	bool turned = preview->server->config.rotation % 180 != 0;

	*width = (int)(turned ? preview->height : preview->width);
	*height = (int)(turned ? preview->width : preview->height);
}

/*
 * Where the panel is in the window: as large as fits, its shape kept, in
 * the middle. The desktop may size the window as it likes (a tiling or
 * kiosk shell does).
 */
static struct wlr_box
content_box(struct vl_preview *preview)
{
	int width, height, window_width = preview->window->width,
			   window_height = preview->window->height;

	logical_size(preview, &width, &height);
	double scale = fmin((double)window_width / width, (double)window_height / height);
	int box_width = (int)lround(width * scale), box_height = (int)lround(height * scale);
	return (struct wlr_box){(window_width - box_width) / 2, (window_height - box_height) / 2,
		box_width, box_height};
}

static void
draw_overlay(struct vl_preview *preview, struct wlr_render_pass *pass,
	enum wl_output_transform transform)
{
	struct wlr_output *window = preview->window;
	struct wlr_box box = content_box(preview);
	int width, height;

	logical_size(preview, &width, &height);
	struct vl_overlay_view view = {
		.panel_width = preview->width,
		.panel_height = preview->height,
		.transform = transform,
		.x = box.x,
		.y = box.y,
		.scale_x = (double)box.width / width,
		.scale_y = (double)box.height / height,
		.width = window->width,
		.height = window->height,
	};
	/* vl_overlay_draw clears it: a new one only when the window's size changed */
	if (preview->overlay_width != window->width || preview->overlay_height != window->height) {
		free(preview->overlay_argb);
		preview->overlay_argb = malloc((size_t)window->width * window->height * 4);
		preview->overlay_width = preview->overlay_argb ? window->width : 0;
		preview->overlay_height = preview->overlay_argb ? window->height : 0;
	}
	if (!preview->overlay_argb)
		return;
	vl_overlay_draw(&view, preview->model, preview->overlay_argb);
	struct wlr_texture *texture =
		wlr_texture_from_pixels(preview->server->renderer, DRM_FORMAT_ARGB8888,
			window->width * 4, window->width, window->height, preview->overlay_argb);
	if (!texture)
		return;
	wlr_render_pass_add_texture(pass, &(struct wlr_render_texture_options){.texture = texture});
	wlr_texture_destroy(texture);
}

static void
draw(struct vl_preview *preview)
{
	struct wlr_output *window = preview->window;
	struct vl_output *panel_output = vl_output_first(preview->server);
	size_t count = (size_t)preview->width * preview->height;
	struct wlr_output_state state;

	preview->drawn = vl_panel_model_completions(preview->model);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	uint64_t now_ns = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
	vl_panel_model_read_frame(preview->model, preview->panel, now_ns);
	if (preview->record && preview->recorded != preview->drawn) {
		vl_record_frame(
			preview->record, preview->panel, preview->width, preview->height, now_ns);
		preview->recorded = preview->drawn;
	}
	for (size_t i = 0; i < count; i++)
		preview->xrgb[i] = 0xff000000u | preview->panel[i] * 0x010101u;
	struct wlr_texture *texture =
		wlr_texture_from_pixels(preview->server->renderer, DRM_FORMAT_XRGB8888,
			preview->width * 4, preview->width, preview->height, preview->xrgb);
	if (!texture)
		return;
	wlr_output_state_init(&state);
	struct wlr_render_pass *pass = wlr_output_begin_render_pass(window, &state, NULL, NULL);
	if (pass) {
		/* the panel's native image, turned back as the panel output turns the scene */
		enum wl_output_transform transform =
			panel_output
				? wlr_output_transform_invert(panel_output->wlr_output->transform)
				: WL_OUTPUT_TRANSFORM_NORMAL;
		/* around the panel, the gray of a desk */
		wlr_render_pass_add_rect(pass, &(struct wlr_render_rect_options){
						       .box = {0, 0, window->width, window->height},
						       .color = {0.5f, 0.5f, 0.5f, 1.0f},
					       });
		wlr_render_pass_add_texture(pass, &(struct wlr_render_texture_options){
							  .texture = texture,
							  .dst_box = content_box(preview),
							  .transform = transform,
							  .filter_mode = WLR_SCALE_FILTER_BILINEAR,
						  });
		if (preview->overlay)
			draw_overlay(preview, pass, transform);
		if (wlr_render_pass_submit(pass))
			wlr_output_commit_state(window, &state);
	}
	wlr_output_state_finish(&state);
	wlr_texture_destroy(texture);
	preview->dirty = false;
}

static void
handle_frame(struct wl_listener *listener, void *data)
{
	struct vl_preview *preview = wl_container_of(listener, preview, frame);
	(void)data;

	if (preview->dirty)
		draw(preview);
}

/* The desktop sizes the window: the panel keeps its shape inside. */
static void
handle_request_state(struct wl_listener *listener, void *data)
{
	struct vl_preview *preview = wl_container_of(listener, preview, request_state);
	const struct wlr_output_event_request_state *event = data;

	if (!wlr_output_commit_state(preview->window, event->state))
		wlr_log(WLR_ERROR, "cannot resize the preview window");
	preview->dirty = true;
	wlr_output_schedule_frame(preview->window);
}

static void
forget_window(struct vl_preview *preview)
{
	wl_list_remove(&preview->frame.link);
	wl_list_remove(&preview->request_state.link);
	wl_list_remove(&preview->destroy.link);
	preview->window = NULL;
}

/* The window closed: vellum ends, as a device would when switched off. */
static void
handle_destroy(struct wl_listener *listener, void *data)
{
	struct vl_preview *preview = wl_container_of(listener, preview, destroy);
	(void)data;

	forget_window(preview);
	if (!preview->server->shutting_down) {
		wlr_log(WLR_INFO, "the preview window closed");
		wl_display_terminate(preview->server->display);
	}
}

/*
 * Redraws while the panel changes and once more when the last update has
 * completed; then sleeps until the next submission (handle_submitted).
 */
static int
handle_poll(void *data)
{
	struct vl_preview *preview = data;
	bool busy = vl_panel_model_busy(preview->model);

	if (preview->window &&
		(busy || vl_panel_model_completions(preview->model) != preview->drawn)) {
		preview->dirty = true;
		wlr_output_schedule_frame(preview->window);
	}
	if (busy)
		wl_event_source_timer_update(preview->poll, PREVIEW_POLL_MS);
	return 0;
}

static int
handle_submitted(int fd, uint32_t mask, void *data)
{
	eventfd_t submissions;
	(void)mask;

	eventfd_read(fd, &submissions);
	return handle_poll(data);
}

bool
vl_preview_handle_output(struct vl_server *server, struct wlr_output *output)
{
	struct vl_preview *preview = server->preview;
	struct wlr_output_state state;
	char title[64];
	int width, height;

	if (!preview || !(wlr_output_is_wl(output) || wlr_output_is_x11(output)))
		return false;
	if (preview->window || !preview->model ||
		!wlr_output_init_render(output, server->allocator, server->renderer)) {
		wlr_log(WLR_ERROR, "cannot show the preview in %s", output->name);
		return true;
	}
	logical_size(preview, &width, &height);
	double scale = fmin(
		1.0, fmin((double)PREVIEW_MAX_WIDTH / width, (double)PREVIEW_MAX_HEIGHT / height));
	if (preview->screen_width > 0 && preview->screen_height > 0)
		scale = fmin(scale, fmin((double)preview->screen_width / width,
					    (double)preview->screen_height / height));
	wlr_output_state_init(&state);
	wlr_output_state_set_enabled(&state, true);
	wlr_output_state_set_custom_mode(
		&state, (int)lround(width * scale), (int)lround(height * scale), 0);
	bool ok = wlr_output_commit_state(output, &state);
	wlr_output_state_finish(&state);
	if (!ok) {
		wlr_log(WLR_ERROR, "cannot open the preview window");
		return true;
	}
	snprintf(title, sizeof(title), "vellum preview %ux%u", preview->width, preview->height);
	if (wlr_output_is_wl(output))
		wlr_wl_output_set_title(output, title);
	else
		wlr_x11_output_set_title(output, title);
	preview->window = output;
	preview->frame.notify = handle_frame;
	wl_signal_add(&output->events.frame, &preview->frame);
	preview->request_state.notify = handle_request_state;
	wl_signal_add(&output->events.request_state, &preview->request_state);
	preview->destroy.notify = handle_destroy;
	wl_signal_add(&output->events.destroy, &preview->destroy);
	preview->dirty = true;
	wlr_output_schedule_frame(output);
	return true;
}

bool
vl_preview_start(struct vl_server *server, char *error, size_t error_size)
{
	struct vl_preview *preview = server->preview;

	if (!preview)
		return true;
	preview->poll = wl_event_loop_add_timer(server->loop, handle_poll, preview);
	preview->submitted =
		wl_event_loop_add_fd(server->loop, vl_panel_model_submitted_fd(preview->model),
			WL_EVENT_READABLE, handle_submitted, preview);
	if (!preview->poll || !preview->submitted) {
		snprintf(error, error_size, "out of memory");
		return false;
	}
	if (server->record_dir) {
		preview->record = vl_record_start(server->record_dir, error, error_size);
		if (!preview->record)
			return false;
		/* the first frame, white, is recorded too */
		preview->recorded = UINT64_MAX;
	}
	/* the desktop's backends open windows on request */
	struct wlr_output *window = wlr_backend_is_wl(preview->desktop)
					    ? wlr_wl_output_create(preview->desktop)
					    : wlr_x11_output_create(preview->desktop);
	if (!window) {
		snprintf(error, error_size, "cannot open the preview window");
		return false;
	}
	return true;
}

bool
vl_preview_handle_key(
	struct vl_server *server, struct wlr_keyboard *keyboard, uint32_t keycode, bool pressed)
{
	struct vl_preview *preview = server->preview;
	const uint32_t chord = WLR_MODIFIER_CTRL | WLR_MODIFIER_ALT;

	if (!preview)
		return false;
	if (!pressed) {
		bool ours = preview->chord_down && keycode == preview->chord_keycode;
		preview->chord_down = preview->chord_down && !ours;
		return ours;
	}
	if ((wlr_keyboard_get_modifiers(keyboard) & chord) != chord || !keyboard->xkb_state ||
		xkb_keysym_to_lower(xkb_state_key_get_one_sym(keyboard->xkb_state, keycode + 8)) !=
			XKB_KEY_u)
		return false;
	preview->chord_down = true;
	preview->chord_keycode = keycode;
	preview->overlay = !preview->overlay;
	wlr_log(WLR_INFO, "the preview's overlay is %s", preview->overlay ? "on" : "off");
	if (preview->window) {
		preview->dirty = true;
		wlr_output_schedule_frame(preview->window);
	}
	return true;
}

bool
vl_preview_to_layout(struct vl_server *server, struct wlr_input_device *device, double x, double y,
	double *lx, double *ly, bool *on_panel)
{
	struct wlr_box box;

	if (!server->preview ||
		!(wlr_input_device_is_wl(device) || wlr_input_device_is_x11(device)))
		return false;
	/* the window shows the layout, turned as the user holds the panel */
	wlr_output_layout_get_box(server->output_layout, NULL, &box);
	struct vl_preview *preview = server->preview;
	*on_panel = true;
	if (preview->window) {
		struct wlr_box panel = content_box(preview);
		double px = (x * preview->window->width - panel.x) / panel.width;
		double py = (y * preview->window->height - panel.y) / panel.height;
		*on_panel = px >= 0.0 && px <= 1.0 && py >= 0.0 && py <= 1.0;
		x = fmin(fmax(px, 0.0), 1.0);
		y = fmin(fmax(py, 0.0), 1.0);
	}
	*lx = box.x + x * box.width;
	*ly = box.y + y * box.height;
	return true;
}

void
vl_preview_finish(struct vl_server *server)
{
	struct vl_preview *preview = server->preview;

	if (!preview || !preview->record)
		return;
	vl_record_finish(preview->record, preview->model);
	preview->record = NULL;
}

void
vl_preview_destroy(struct vl_server *server)
{
	struct vl_preview *preview = server->preview;

	if (!preview)
		return;
	vl_preview_finish(server);
	if (preview->window)
		forget_window(preview);
	if (preview->poll)
		wl_event_source_remove(preview->poll);
	if (preview->submitted)
		wl_event_source_remove(preview->submitted);
	free_preview(preview);
	server->preview = NULL;
}
