// SPDX-License-Identifier: MIT
#include "client.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void
vt_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void
vt_die(const char *fmt, ...)
{
	va_list ap;

	fputs("client: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void
handle_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	(void)data;
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {.ping = handle_ping};

static void
handle_capabilities(void *data, struct wl_seat *seat, uint32_t caps)
{
	struct vt_client *c = data;
	(void)seat;

	c->seat_caps = caps;
}

static void
handle_seat_name(void *data, struct wl_seat *seat, const char *name)
{
	(void)data;
	(void)seat;
	(void)name;
}

static const struct wl_seat_listener seat_listener = {
	.capabilities = handle_capabilities,
	.name = handle_seat_name,
};

static void
handle_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	struct vt_client *c = data;
	(void)registry;

	if (c->n_globals < VT_MAX_GLOBALS) {
		struct vt_global *global = &c->globals[c->n_globals++];
		global->name = name;
		global->version = version;
		snprintf(global->interface, sizeof(global->interface), "%s", interface);
	}
}

static void
handle_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
	(void)data;
	(void)registry;
	(void)name;
}

static const struct wl_registry_listener registry_listener = {
	.global = handle_global,
	.global_remove = handle_global_remove,
};

void *
vt_client_bind(struct vt_client *c, const struct wl_interface *interface, uint32_t version)
{
	for (size_t i = 0; i < c->n_globals; i++) {
		const struct vt_global *global = &c->globals[i];
		if (!strcmp(global->interface, interface->name))
			return wl_registry_bind(c->registry, global->name, interface,
				global->version < version ? global->version : version);
	}
	return NULL;
}

void
vt_client_connect(struct vt_client *c)
{
	memset(c, 0, sizeof(*c));
	c->display = wl_display_connect(NULL);
	if (!c->display)
		vt_die("cannot connect to the compositor: %s", strerror(errno));
	c->registry = wl_display_get_registry(c->display);
	wl_registry_add_listener(c->registry, &registry_listener, c);
	if (wl_display_roundtrip(c->display) < 0)
		vt_die("roundtrip failed");
	c->compositor = vt_client_bind(c, &wl_compositor_interface, 4);
	c->shm = vt_client_bind(c, &wl_shm_interface, 1);
	c->wm_base = vt_client_bind(c, &xdg_wm_base_interface, 3);
	if (!c->compositor || !c->shm || !c->wm_base)
		vt_die("wl_compositor, wl_shm or xdg_wm_base is missing");
	xdg_wm_base_add_listener(c->wm_base, &wm_base_listener, c);
	c->seat = vt_client_bind(c, &wl_seat_interface, 4);
	if (c->seat) {
		wl_seat_add_listener(c->seat, &seat_listener, c);
		/* its capabilities */
		if (wl_display_roundtrip(c->display) < 0)
			vt_die("roundtrip failed");
	}
}

void
vt_client_disconnect(struct vt_client *c)
{
	if (c->toplevel)
		xdg_toplevel_destroy(c->toplevel);
	if (c->xdg_surface)
		xdg_surface_destroy(c->xdg_surface);
	if (c->surface)
		wl_surface_destroy(c->surface);
	if (c->seat)
		wl_seat_destroy(c->seat);
	xdg_wm_base_destroy(c->wm_base);
	wl_shm_destroy(c->shm);
	wl_compositor_destroy(c->compositor);
	wl_registry_destroy(c->registry);
	wl_display_disconnect(c->display);
}

static void
handle_xdg_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct vt_client *c = data;

	xdg_surface_ack_configure(xdg_surface, serial);
	c->configured = true;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = handle_xdg_configure,
};

static void
handle_toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width, int32_t height,
	struct wl_array *states)
{
	struct vt_client *c = data;
	const uint32_t *state;
	(void)toplevel;

	c->activated = false;
	wl_array_for_each (state, states)
		if (*state == XDG_TOPLEVEL_STATE_ACTIVATED)
			c->activated = true;
	if (width > 0 && height > 0) {
		c->width = width;
		c->height = height;
	}
}

static void
handle_toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
	struct vt_client *c = data;
	(void)toplevel;

	c->closed = true;
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = handle_toplevel_configure,
	.close = handle_toplevel_close,
};

void
vt_client_create_toplevel(struct vt_client *c, const char *app_id)
{
	c->surface = wl_compositor_create_surface(c->compositor);
	c->xdg_surface = xdg_wm_base_get_xdg_surface(c->wm_base, c->surface);
	xdg_surface_add_listener(c->xdg_surface, &xdg_surface_listener, c);
	c->toplevel = xdg_surface_get_toplevel(c->xdg_surface);
	xdg_toplevel_add_listener(c->toplevel, &toplevel_listener, c);
	xdg_toplevel_set_app_id(c->toplevel, app_id);
}

void
vt_client_wait_configure(struct vt_client *c)
{
	wl_surface_commit(c->surface);
	while (!c->configured)
		if (wl_display_dispatch(c->display) < 0)
			vt_die("dispatch failed before the first configure");
	if (c->width <= 0 || c->height <= 0)
		vt_die("the compositor configured no size");
}

void
vt_client_create_window(struct vt_client *c, const char *app_id)
{
	vt_client_create_toplevel(c, app_id);
	xdg_toplevel_set_fullscreen(c->toplevel, NULL);
	vt_client_wait_configure(c);
}

static void
handle_buffer_release(void *data, struct wl_buffer *buffer)
{
	struct vt_buffer *b = data;
	(void)buffer;

	b->busy = false;
}

static const struct wl_buffer_listener buffer_listener = {.release = handle_buffer_release};

struct vt_buffer *
vt_buffer_create(struct vt_client *c, uint32_t color)
{
	return vt_buffer_create_sized(c, c->width, c->height, color);
}

struct vt_buffer *
vt_buffer_create_sized(struct vt_client *c, int32_t width, int32_t height, uint32_t color)
{
	struct vt_buffer *b = calloc(1, sizeof(*b));
	int32_t stride = width * 4;
	size_t size = (size_t)stride * height;
	int fd = memfd_create("vt-buffer", MFD_CLOEXEC);

	if (!b || fd < 0 || ftruncate(fd, (off_t)size) < 0)
		vt_die("cannot allocate a %zu byte buffer", size);
	b->pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (b->pixels == MAP_FAILED)
		vt_die("mmap: %s", strerror(errno));
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, (int32_t)size);
	b->buffer =
		wl_shm_pool_create_buffer(pool, 0, width, height, stride, WL_SHM_FORMAT_XRGB8888);
	wl_buffer_add_listener(b->buffer, &buffer_listener, b);
	wl_shm_pool_destroy(pool);
	close(fd);
	b->width = width;
	b->height = height;
	vt_buffer_fill(b, 0, 0, b->width, b->height, color);
	return b;
}

void
vt_buffer_destroy(struct vt_buffer *b)
{
	wl_buffer_destroy(b->buffer);
	munmap(b->pixels, (size_t)b->width * b->height * 4);
	free(b);
}

void
vt_buffer_fill(struct vt_buffer *b, int32_t x, int32_t y, int32_t w, int32_t h, uint32_t color)
{
	for (int32_t row = y; row < y + h && row < b->height; row++)
		for (int32_t col = x; col < x + w && col < b->width; col++)
			if (row >= 0 && col >= 0)
				b->pixels[(size_t)row * b->width + col] = color;
}

static void
handle_frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	struct vt_client *c = data;
	(void)time;

	c->frame_done = true;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener frame_listener = {.done = handle_frame_done};

static void
commit_with_frame(struct vt_client *c, struct wl_surface *surface)
{
	struct wl_callback *frame = wl_surface_frame(surface);

	c->frame_done = false;
	wl_callback_add_listener(frame, &frame_listener, c);
	wl_surface_commit(surface);
}

void
vt_client_commit_rect(
	struct vt_client *c, struct vt_buffer *b, int32_t x, int32_t y, int32_t w, int32_t h)
{
	wl_surface_attach(c->surface, b->buffer, 0, 0);
	wl_surface_damage_buffer(c->surface, x, y, w, h);
	commit_with_frame(c, c->surface);
	b->busy = true;
}

void
vt_client_commit(struct vt_client *c, struct vt_buffer *b)
{
	vt_client_commit_rect(c, b, 0, 0, b->width, b->height);
}

void
vt_client_wait_frame(struct vt_client *c)
{
	while (!c->frame_done && !c->closed)
		if (wl_display_dispatch(c->display) < 0)
			vt_die("dispatch failed waiting for a frame");
}

void
vt_surface_commit_and_wait(struct vt_client *c, struct wl_surface *surface)
{
	commit_with_frame(c, surface);
	vt_client_wait_frame(c);
}
