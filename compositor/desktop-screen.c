// SPDX-License-Identifier: MIT
/*
 * The desktop's screens, asked on the connection wlroots' Wayland backend
 * opened but in an event queue of their own, so that the backend's
 * dispatching never sees these objects. The preview's window is sized to
 * fit before its first frame: wlroots' backend consumes the size the
 * desktop configures before it hands the window over, and a kiosk shell
 * (weston's) closes a fullscreen window larger than its screen.
 */
#include <stdint.h>
#include <string.h>
#include <wayland-client-protocol.h>

#include "desktop-screen.h"

/* More screens than a desk has; the others are not looked at. */
#define SCREENS_MAX 16

struct screen {
	struct wl_output *output;
	int32_t width, height, scale;
	bool turned; /* a transform of 90 or 270 degrees */
};

struct screens {
	struct screen screen[SCREENS_MAX];
	size_t count;
};

static void
handle_geometry(void *data, struct wl_output *output, int32_t x, int32_t y, int32_t width_mm,
	int32_t height_mm, int32_t subpixel, const char *make, const char *model, int32_t transform)
{
	struct screen *screen = data;
	(void)output, (void)x, (void)y, (void)width_mm, (void)height_mm, (void)subpixel;
	(void)make, (void)model;

	/* the odd transforms turn the screen a quarter */
	screen->turned = transform & 1;
}

static void
handle_mode(void *data, struct wl_output *output, uint32_t flags, int32_t width, int32_t height,
	int32_t refresh)
{
	struct screen *screen = data;
	(void)output, (void)refresh;

	if (flags & WL_OUTPUT_MODE_CURRENT) {
		screen->width = width;
		screen->height = height;
	}
}

static void
handle_done(void *data, struct wl_output *output)
{
	(void)data, (void)output;
}

static void
handle_scale(void *data, struct wl_output *output, int32_t factor)
{
	struct screen *screen = data;
	(void)output;

	screen->scale = factor > 0 ? factor : 1;
}

static const struct wl_output_listener output_listener = {
	.geometry = handle_geometry,
	.mode = handle_mode,
	.done = handle_done,
	.scale = handle_scale,
};

static void
handle_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	struct screens *screens = data;

	if (strcmp(interface, wl_output_interface.name) != 0 || screens->count == SCREENS_MAX)
		return;
	struct screen *screen = &screens->screen[screens->count++];
	screen->scale = 1;
	/* version 2 has the scale; done and the rest are not needed */
	screen->output =
		wl_registry_bind(registry, name, &wl_output_interface, version < 2 ? 1 : 2);
	wl_output_add_listener(screen->output, &output_listener, screen);
}

static void
handle_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
	(void)data, (void)registry, (void)name;
}

static const struct wl_registry_listener registry_listener = {
	.global = handle_global,
	.global_remove = handle_global_remove,
};

bool
vl_desktop_screen_size(struct wl_display *display, int *width, int *height)
{
	struct screens screens = {0};
	struct wl_event_queue *queue = wl_display_create_queue(display);
	struct wl_display *wrapper = queue ? wl_proxy_create_wrapper(display) : NULL;
	bool found = false;

	if (!wrapper) {
		if (queue)
			wl_event_queue_destroy(queue);
		return false;
	}
	wl_proxy_set_queue((struct wl_proxy *)wrapper, queue);
	struct wl_registry *registry = wl_display_get_registry(wrapper);
	wl_registry_add_listener(registry, &registry_listener, &screens);
	/* the globals, then the screens' modes */
	if (wl_display_roundtrip_queue(display, queue) >= 0 &&
		wl_display_roundtrip_queue(display, queue) >= 0) {
		for (size_t i = 0; i < screens.count; i++) {
			const struct screen *screen = &screens.screen[i];
			if (screen->width <= 0 || screen->height <= 0)
				continue;
			int w = (screen->turned ? screen->height : screen->width) / screen->scale;
			int h = (screen->turned ? screen->width : screen->height) / screen->scale;
			if (!found || w < *width)
				*width = w;
			if (!found || h < *height)
				*height = h;
			found = true;
		}
	}
	for (size_t i = 0; i < screens.count; i++)
		wl_output_destroy(screens.screen[i].output);
	wl_registry_destroy(registry);
	wl_proxy_wrapper_destroy(wrapper);
	wl_event_queue_destroy(queue);
	return found;
}
