/*
 * A layer-shell client for vellum's tests: a black bar of HEIGHT rows in the
 * top layer, anchored to the bottom edge across the panel, with an exclusive
 * zone of its height, exclusive keyboard interactivity, and a 60x40 black
 * popup above its top edge, 20 px from the left. Prints "layer shown WxH"
 * once both are drawn, then stays SECONDS seconds and exits 0.
 *
 *   layer_probe HEIGHT SECONDS
 */
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#include "wlr-layer-shell-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

#define POPUP_W 60
#define POPUP_H 40

struct probe {
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct zwlr_layer_shell_v1 *layer_shell;
	uint32_t width, height;
	bool configured, popup_configured, frame_done, closed;
};

static void
handle_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	struct probe *p = data;

	if (strcmp(interface, wl_compositor_interface.name) == 0)
		p->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	else if (strcmp(interface, wl_shm_interface.name) == 0)
		p->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (strcmp(interface, xdg_wm_base_interface.name) == 0)
		p->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
	else if (strcmp(interface, zwlr_layer_shell_v1_interface.name) == 0)
		p->layer_shell =
			wl_registry_bind(registry, name, &zwlr_layer_shell_v1_interface, 4);
}

static void
handle_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = handle_global,
	.global_remove = handle_global_remove,
};

static void
handle_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {.ping = handle_ping};

static void
handle_layer_configure(void *data, struct zwlr_layer_surface_v1 *layer, uint32_t serial,
	uint32_t width, uint32_t height)
{
	struct probe *p = data;

	zwlr_layer_surface_v1_ack_configure(layer, serial);
	p->width = width;
	p->height = height;
	p->configured = true;
}

static void
handle_layer_closed(void *data, struct zwlr_layer_surface_v1 *layer)
{
	struct probe *p = data;

	p->closed = true;
}

static const struct zwlr_layer_surface_v1_listener layer_listener = {
	.configure = handle_layer_configure,
	.closed = handle_layer_closed,
};

static void
handle_popup_surface_configure(void *data, struct xdg_surface *surface, uint32_t serial)
{
	struct probe *p = data;

	xdg_surface_ack_configure(surface, serial);
	p->popup_configured = true;
}

static const struct xdg_surface_listener popup_surface_listener = {
	.configure = handle_popup_surface_configure,
};

static void
handle_popup_configure(
	void *data, struct xdg_popup *popup, int32_t x, int32_t y, int32_t width, int32_t height)
{
}

static void
handle_popup_done(void *data, struct xdg_popup *popup)
{
}

static void
handle_popup_repositioned(void *data, struct xdg_popup *popup, uint32_t token)
{
}

static const struct xdg_popup_listener popup_listener = {
	.configure = handle_popup_configure,
	.popup_done = handle_popup_done,
	.repositioned = handle_popup_repositioned,
};

static void
handle_frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	struct probe *p = data;

	p->frame_done = true;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener frame_listener = {.done = handle_frame_done};

static struct wl_buffer *
black_buffer(struct probe *p, int width, int height)
{
	size_t size = (size_t)width * height * 4;
	int fd = memfd_create("layer-probe", MFD_CLOEXEC);

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
		exit(1);
	uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pixels == MAP_FAILED)
		exit(1);
	for (size_t i = 0; i < size / 4; i++)
		pixels[i] = 0xff000000;
	munmap(pixels, size);
	struct wl_shm_pool *pool = wl_shm_create_pool(p->shm, fd, (int32_t)size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(
		pool, 0, width, height, width * 4, WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	return buffer;
}

/* Draws buffer on surface and waits until the compositor showed it. */
static void
show(struct probe *p, struct wl_display *display, struct wl_surface *surface,
	struct wl_buffer *buffer, int width, int height)
{
	struct wl_callback *frame = wl_surface_frame(surface);

	p->frame_done = false;
	wl_callback_add_listener(frame, &frame_listener, p);
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_damage_buffer(surface, 0, 0, width, height);
	wl_surface_commit(surface);
	while (!p->frame_done && !p->closed && wl_display_dispatch(display) >= 0)
		;
}

int
main(int argc, char **argv)
{
	struct probe p = {0};

	if (argc != 3 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: layer_probe HEIGHT SECONDS\n");
		return 2;
	}
	int bar_height = atoi(argv[1]), seconds = atoi(argv[2]);
	struct wl_display *display = wl_display_connect(NULL);
	if (!display) {
		fprintf(stderr, "cannot connect to the Wayland display\n");
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, &p);
	wl_display_roundtrip(display);
	if (!p.compositor || !p.shm || !p.wm_base || !p.layer_shell) {
		fprintf(stderr, "missing globals\n");
		return 1;
	}
	xdg_wm_base_add_listener(p.wm_base, &wm_base_listener, NULL);

	struct wl_surface *surface = wl_compositor_create_surface(p.compositor);
	struct zwlr_layer_surface_v1 *layer = zwlr_layer_shell_v1_get_layer_surface(
		p.layer_shell, surface, NULL, ZWLR_LAYER_SHELL_V1_LAYER_TOP, "probe");
	zwlr_layer_surface_v1_add_listener(layer, &layer_listener, &p);
	zwlr_layer_surface_v1_set_size(layer, 0, (uint32_t)bar_height);
	zwlr_layer_surface_v1_set_anchor(layer, ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM |
							ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT |
							ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT);
	zwlr_layer_surface_v1_set_exclusive_zone(layer, bar_height);
	zwlr_layer_surface_v1_set_keyboard_interactivity(
		layer, ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_EXCLUSIVE);
	wl_surface_commit(surface);
	while (!p.configured && !p.closed && wl_display_dispatch(display) >= 0)
		;
	if (p.closed || p.width == 0 || p.height != (uint32_t)bar_height) {
		fprintf(stderr, "configured %ux%u, not the panel's width x %d\n", p.width, p.height,
			bar_height);
		return 1;
	}
	struct wl_buffer *bar = black_buffer(&p, (int)p.width, bar_height);
	show(&p, display, surface, bar, (int)p.width, bar_height);

	/* the popup, above the bar's top edge */
	struct wl_surface *popup_surface = wl_compositor_create_surface(p.compositor);
	struct xdg_surface *xdg_popup_surface =
		xdg_wm_base_get_xdg_surface(p.wm_base, popup_surface);
	xdg_surface_add_listener(xdg_popup_surface, &popup_surface_listener, &p);
	struct xdg_positioner *positioner = xdg_wm_base_create_positioner(p.wm_base);
	xdg_positioner_set_size(positioner, POPUP_W, POPUP_H);
	xdg_positioner_set_anchor_rect(positioner, 20, 0, 1, 1);
	xdg_positioner_set_anchor(positioner, XDG_POSITIONER_ANCHOR_TOP_LEFT);
	xdg_positioner_set_gravity(positioner, XDG_POSITIONER_GRAVITY_TOP_RIGHT);
	struct xdg_popup *popup = xdg_surface_get_popup(xdg_popup_surface, NULL, positioner);
	xdg_popup_add_listener(popup, &popup_listener, &p);
	zwlr_layer_surface_v1_get_popup(layer, popup);
	xdg_positioner_destroy(positioner);
	wl_surface_commit(popup_surface);
	while (!p.popup_configured && !p.closed && wl_display_dispatch(display) >= 0)
		;
	struct wl_buffer *popup_buffer = black_buffer(&p, POPUP_W, POPUP_H);
	show(&p, display, popup_surface, popup_buffer, POPUP_W, POPUP_H);
	printf("layer shown %ux%u\n", p.width, p.height);
	fflush(stdout);

	/* stays, answering the compositor, for the time asked */
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		wl_display_flush(display);
		struct pollfd pfd = {.fd = wl_display_get_fd(display), .events = POLLIN};
		if (poll(&pfd, 1, 100) > 0 && wl_display_dispatch(display) < 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - start.tv_sec < seconds);

	xdg_popup_destroy(popup);
	xdg_surface_destroy(xdg_popup_surface);
	wl_surface_destroy(popup_surface);
	wl_buffer_destroy(popup_buffer);
	zwlr_layer_surface_v1_destroy(layer);
	wl_surface_destroy(surface);
	wl_buffer_destroy(bar);
	wl_display_disconnect(display);
	return 0;
}
