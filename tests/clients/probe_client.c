/*
 * A Wayland client for vellum's tests and benchmark: a fullscreen shm window
 * that commits COUNT frames, each after the previous one's frame callback,
 * and prints the CLOCK_MONOTONIC time of every commit, one per line.
 *
 *   probe_client MODE COUNT
 *
 * full: every pixel changes (black and white alternate); char: one more
 * 10x20 black cell on a line of text, as a typed character; gray and photo:
 * a gray block, the window declaring no content type or "photo"; dialog: a
 * 200x100 black dialog (a toplevel with the window as parent) and a 50x50
 * black subsurface at 10,10 of the window.
 *
 *   probe_client resize
 *
 * A white window that follows every configure, printing "configure WxH"
 * for each, and "keyboard enter" or "keyboard leave" when its keyboard
 * focus changes, until the compositor closes it or the probe is killed.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#include "content-type-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

struct client {
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wl_subcompositor *subcompositor;
	struct wp_content_type_manager_v1 *content_type_manager;
	struct wl_seat *seat;
	int width, height;
	bool configured, frame_done, closed;
};

static void
handle_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	struct client *c = data;

	if (strcmp(interface, wl_compositor_interface.name) == 0)
		c->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	else if (strcmp(interface, wl_shm_interface.name) == 0)
		c->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (strcmp(interface, xdg_wm_base_interface.name) == 0)
		c->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
	else if (strcmp(interface, wl_subcompositor_interface.name) == 0)
		c->subcompositor = wl_registry_bind(registry, name, &wl_subcompositor_interface, 1);
	else if (strcmp(interface, wl_seat_interface.name) == 0 && !c->seat)
		c->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	else if (strcmp(interface, wp_content_type_manager_v1_interface.name) == 0)
		c->content_type_manager =
			wl_registry_bind(registry, name, &wp_content_type_manager_v1_interface, 1);
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
handle_surface_configure(void *data, struct xdg_surface *surface, uint32_t serial)
{
	struct client *c = data;

	xdg_surface_ack_configure(surface, serial);
	c->configured = true;
}

static const struct xdg_surface_listener surface_listener = {
	.configure = handle_surface_configure,
};

static void
handle_toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width, int32_t height,
	struct wl_array *states)
{
	struct client *c = data;

	if (width > 0 && height > 0) {
		c->width = width;
		c->height = height;
	}
}

static void
handle_toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
	struct client *c = data;

	c->closed = true;
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = handle_toplevel_configure,
	.close = handle_toplevel_close,
};

static void
handle_frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	struct client *c = data;

	c->frame_done = true;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener frame_listener = {.done = handle_frame_done};

/* An shm buffer of one color. */
static struct wl_buffer *
solid_buffer(struct client *c, int width, int height, uint32_t color)
{
	size_t size = (size_t)width * height * 4;
	int fd = memfd_create("probe", MFD_CLOEXEC);

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
		exit(1);
	uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pixels == MAP_FAILED)
		exit(1);
	for (size_t p = 0; p < size / 4; p++)
		pixels[p] = color;
	munmap(pixels, size);
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, (int32_t)size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(
		pool, 0, width, height, width * 4, WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	return buffer;
}

static void
wait_frame(struct client *c, struct wl_display *display, struct wl_surface *surface)
{
	struct wl_callback *frame = wl_surface_frame(surface);

	c->frame_done = false;
	wl_callback_add_listener(frame, &frame_listener, c);
	wl_surface_commit(surface);
	while (!c->frame_done && !c->closed && wl_display_dispatch(display) >= 0)
		;
}

/* A dialog and a subsurface over the window, then a last frame to be sure they are shown. */
static void
show_dialog(struct client *c, struct wl_display *display, struct wl_surface *surface,
	struct xdg_toplevel *parent)
{
	struct wl_surface *sub_surface = wl_compositor_create_surface(c->compositor);
	struct wl_subsurface *sub =
		wl_subcompositor_get_subsurface(c->subcompositor, sub_surface, surface);
	wl_subsurface_set_position(sub, 10, 10);
	struct wl_buffer *sub_buffer = solid_buffer(c, 50, 50, 0xff000000);
	wl_surface_attach(sub_surface, sub_buffer, 0, 0);
	wl_surface_commit(sub_surface);

	struct wl_surface *dialog = wl_compositor_create_surface(c->compositor);
	struct xdg_surface *xdg_dialog = xdg_wm_base_get_xdg_surface(c->wm_base, dialog);
	struct client dialog_state = *c;
	dialog_state.configured = false;
	xdg_surface_add_listener(xdg_dialog, &surface_listener, &dialog_state);
	struct xdg_toplevel *toplevel = xdg_surface_get_toplevel(xdg_dialog);
	xdg_toplevel_set_parent(toplevel, parent);
	wl_surface_commit(dialog);
	while (!dialog_state.configured && wl_display_dispatch(display) >= 0)
		;
	struct wl_buffer *dialog_buffer = solid_buffer(c, 200, 100, 0xff000000);
	wl_surface_attach(dialog, dialog_buffer, 0, 0);
	wl_surface_damage_buffer(dialog, 0, 0, 200, 100);
	wait_frame(c, display, dialog);
	wl_surface_damage_buffer(surface, 0, 0, c->width, c->height);
	wait_frame(c, display, surface);

	xdg_toplevel_destroy(toplevel);
	xdg_surface_destroy(xdg_dialog);
	wl_surface_destroy(dialog);
	wl_buffer_destroy(dialog_buffer);
	wl_subsurface_destroy(sub);
	wl_surface_destroy(sub_surface);
	wl_buffer_destroy(sub_buffer);
}

/* Keyboard focus, reported; keys are not needed. */

static void
handle_keymap(void *data, struct wl_keyboard *keyboard, uint32_t format, int32_t fd, uint32_t size)
{
	close(fd);
}

static void
handle_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial, struct wl_surface *surface,
	struct wl_array *keys)
{
	printf("keyboard enter\n");
	fflush(stdout);
}

static void
handle_leave(void *data, struct wl_keyboard *keyboard, uint32_t serial, struct wl_surface *surface)
{
	printf("keyboard leave\n");
	fflush(stdout);
}

static void
handle_key(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t time, uint32_t key,
	uint32_t state)
{
}

static void
handle_modifiers(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t depressed,
	uint32_t latched, uint32_t locked, uint32_t group)
{
}

static const struct wl_keyboard_listener keyboard_listener = {
	.keymap = handle_keymap,
	.enter = handle_enter,
	.leave = handle_leave,
	.key = handle_key,
	.modifiers = handle_modifiers,
};

/* A white window redrawn at the size of every configure, until closed. */
static int
follow_configures(struct client *c, struct wl_display *display, struct wl_surface *surface)
{
	int shown_width = 0, shown_height = 0;

	/* vellum's seat always has a keyboard */
	if (c->seat)
		wl_keyboard_add_listener(wl_seat_get_keyboard(c->seat), &keyboard_listener, c);
	while (!c->closed) {
		if (c->width != shown_width || c->height != shown_height) {
			shown_width = c->width;
			shown_height = c->height;
			printf("configure %dx%d\n", shown_width, shown_height);
			fflush(stdout);
			struct wl_buffer *buffer =
				solid_buffer(c, shown_width, shown_height, 0xffffffff);
			wl_surface_attach(surface, buffer, 0, 0);
			wl_surface_damage_buffer(surface, 0, 0, shown_width, shown_height);
			wl_surface_commit(surface);
			wl_buffer_destroy(buffer);
		}
		if (wl_display_dispatch(display) < 0)
			return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct client c = {.width = 640, .height = 480};

	const char *mode = argc == 3 ? argv[1] : argc == 2 ? argv[1] : "";
	bool resize = argc == 2 && strcmp(mode, "resize") == 0;
	if (!resize && (argc != 3 || (strcmp(mode, "full") && strcmp(mode, "char") &&
					     strcmp(mode, "gray") && strcmp(mode, "photo") &&
					     strcmp(mode, "dialog")))) {
		fprintf(stderr, "usage: probe_client full|char|gray|photo|dialog COUNT\n"
				"       probe_client resize\n");
		return 2;
	}
	bool full = strcmp(mode, "full") == 0;
	int count = resize ? 0 : atoi(argv[2]);
	struct wl_display *display = wl_display_connect(NULL);
	if (!display) {
		fprintf(stderr, "cannot connect to the Wayland display\n");
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, &c);
	wl_display_roundtrip(display);
	if (!c.compositor || !c.shm || !c.wm_base || !c.subcompositor || !c.content_type_manager) {
		fprintf(stderr, "missing globals\n");
		return 1;
	}
	xdg_wm_base_add_listener(c.wm_base, &wm_base_listener, NULL);
	struct wl_surface *surface = wl_compositor_create_surface(c.compositor);
	struct xdg_surface *xdg_surface = xdg_wm_base_get_xdg_surface(c.wm_base, surface);
	xdg_surface_add_listener(xdg_surface, &surface_listener, &c);
	struct xdg_toplevel *toplevel = xdg_surface_get_toplevel(xdg_surface);
	xdg_toplevel_add_listener(toplevel, &toplevel_listener, &c);
	struct wp_content_type_v1 *content_type = NULL;
	if (strcmp(mode, "photo") == 0) {
		content_type = wp_content_type_manager_v1_get_surface_content_type(
			c.content_type_manager, surface);
		wp_content_type_v1_set_content_type(content_type, WP_CONTENT_TYPE_V1_TYPE_PHOTO);
	}
	wl_surface_commit(surface);
	while (!c.configured && wl_display_dispatch(display) >= 0)
		;
	if (resize)
		return follow_configures(&c, display, surface);

	int stride = c.width * 4;
	size_t size = (size_t)stride * c.height;
	int fd = memfd_create("bench", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
		return 1;
	uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pixels == MAP_FAILED)
		return 1;
	struct wl_shm_pool *pool = wl_shm_create_pool(c.shm, fd, (int32_t)size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(
		pool, 0, c.width, c.height, stride, WL_SHM_FORMAT_XRGB8888);

	for (int i = 0; i <= count && !c.closed; i++) {
		uint32_t color = i % 2 ? 0xff000000 : 0xffffffff;
		if (i > 0 && (strcmp(mode, "gray") == 0 || strcmp(mode, "photo") == 0)) {
			/* a block of mid gray, in a new place each frame */
			int x = 20 + (i * 50) % (c.width - 100), y = 20;
			for (int row = y; row < y + 40; row++)
				for (int col = x; col < x + 40; col++)
					pixels[row * c.width + col] = 0xff808080;
			wl_surface_damage_buffer(surface, x, y, 40, 40);
		} else if (full || i == 0) {
			for (size_t p = 0; p < size / 4; p++)
				pixels[p] = i == 0 ? 0xffffffff : color;
			wl_surface_damage_buffer(surface, 0, 0, c.width, c.height);
		} else {
			/* the next character cell, line after line */
			int per_line = (c.width - 20) / 12;
			int x = 10 + (i % per_line) * 12, y = 10 + (i / per_line) * 24;
			for (int row = y; row < y + 20 && row < c.height; row++)
				for (int col = x; col < x + 10; col++)
					pixels[row * c.width + col] = 0xff000000;
			wl_surface_damage_buffer(surface, x, y, 10, 20);
		}
		wl_surface_attach(surface, buffer, 0, 0);
		struct wl_callback *frame = wl_surface_frame(surface);
		c.frame_done = false;
		wl_callback_add_listener(frame, &frame_listener, &c);
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		wl_surface_commit(surface);
		wl_display_flush(display);
		/* the first frame maps the window; it is not measured */
		if (i > 0)
			printf("commit ns=%lld\n",
				(long long)now.tv_sec * 1000000000 + now.tv_nsec);
		while (!c.frame_done && !c.closed && wl_display_dispatch(display) >= 0)
			;
	}
	if (strcmp(mode, "dialog") == 0)
		show_dialog(&c, display, surface, toplevel);
	fflush(stdout);
	wl_buffer_destroy(buffer);
	wl_shm_pool_destroy(pool);
	xdg_toplevel_destroy(toplevel);
	xdg_surface_destroy(xdg_surface);
	if (content_type)
		wp_content_type_v1_destroy(content_type);
	wl_surface_destroy(surface);
	munmap(pixels, size);
	close(fd);
	wl_registry_destroy(registry);
	wl_compositor_destroy(c.compositor);
	wl_shm_destroy(c.shm);
	wl_subcompositor_destroy(c.subcompositor);
	if (c.seat)
		wl_seat_destroy(c.seat);
	wp_content_type_manager_v1_destroy(c.content_type_manager);
	xdg_wm_base_destroy(c.wm_base);
	wl_display_disconnect(display);
	return 0;
}
