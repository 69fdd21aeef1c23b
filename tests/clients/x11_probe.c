// SPDX-License-Identifier: MIT
/*
 * An X11 client for vellum's tests: a black main window and a white 200x100
 * dialog (transient for the main window). Prints "main at X,Y WxH" and
 * "dialog at X,Y WxH", the window's place on the root window as the X server
 * has it, once mapped and each time the window manager moves or resizes it,
 * until killed.
 *
 *   x11_probe [resize|menu]
 *
 * resize: once the window manager has placed the dialog, the dialog asks to
 * go to 0,0 at 300x150, as an application resizing its dialog would.
 * menu: no dialog, but a white 100x50 override-redirect window (a menu) at
 * 50,50, mapped once the main window is, printing "menu at X,Y WxH" as the
 * others; a line "move" on stdin moves it to 300,200, as X moves a menu
 * while it is shown.
 */
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xcb/xcb.h>

struct window {
	const char *name;
	xcb_window_t id;
	bool mapped;
	int16_t x, y;
	uint16_t width, height;
};

static xcb_window_t
create_window(xcb_connection_t *conn, xcb_screen_t *screen, int16_t x, int16_t y, uint16_t width,
	uint16_t height, uint32_t background, bool override_redirect)
{
	xcb_window_t window = xcb_generate_id(conn);
	/* in the order of their bits */
	uint32_t values[] = {background, override_redirect, XCB_EVENT_MASK_STRUCTURE_NOTIFY};

	xcb_create_window(conn, XCB_COPY_FROM_PARENT, window, screen->root, x, y, width, height, 0,
		XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual,
		XCB_CW_BACK_PIXEL | XCB_CW_OVERRIDE_REDIRECT | XCB_CW_EVENT_MASK, values);
	return window;
}

/* Prints where the window is now, if that changed. */
static void
report(xcb_connection_t *conn, xcb_window_t root, struct window *window)
{
	xcb_get_geometry_reply_t *geometry =
		xcb_get_geometry_reply(conn, xcb_get_geometry(conn, window->id), NULL);
	xcb_translate_coordinates_reply_t *origin = xcb_translate_coordinates_reply(
		conn, xcb_translate_coordinates(conn, window->id, root, 0, 0), NULL);

	if (geometry && origin &&
		(origin->dst_x != window->x || origin->dst_y != window->y ||
			geometry->width != window->width || geometry->height != window->height)) {
		window->x = origin->dst_x;
		window->y = origin->dst_y;
		window->width = geometry->width;
		window->height = geometry->height;
		printf("%s at %d,%d %ux%u\n", window->name, window->x, window->y, window->width,
			window->height);
		fflush(stdout);
	}
	free(geometry);
	free(origin);
}

/* "move" on stdin: the menu goes to 300,200. False once stdin is closed. */
static bool
read_command(xcb_connection_t *conn, xcb_window_t menu)
{
	char line[64];

	if (!fgets(line, sizeof(line), stdin))
		return false;
	if (!strcmp(line, "move\n")) {
		uint32_t values[] = {300, 200};
		xcb_configure_window(conn, menu, XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_Y, values);
		xcb_flush(conn);
	}
	return true;
}

int
main(int argc, char **argv)
{
	bool resize = argc == 2 && !strcmp(argv[1], "resize");
	bool menu = argc == 2 && !strcmp(argv[1], "menu");

	if (argc > 2 || (argc == 2 && !resize && !menu)) {
		fprintf(stderr, "usage: x11_probe [resize|menu]\n");
		return 2;
	}
	xcb_connection_t *conn = xcb_connect(NULL, NULL);

	if (xcb_connection_has_error(conn)) {
		fprintf(stderr, "x11_probe: cannot connect to the X server\n");
		return 2;
	}
	xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(conn)).data;
	struct window windows[] = {
		{.name = "main", .x = -1, .y = -1},
		{.name = menu ? "menu" : "dialog", .x = -1, .y = -1},
	};
	windows[0].id = create_window(conn, screen, 0, 0, 400, 300, screen->black_pixel, false);
	if (menu) {
		windows[1].id =
			create_window(conn, screen, 50, 50, 100, 50, screen->white_pixel, true);
	} else {
		windows[1].id =
			create_window(conn, screen, 0, 0, 200, 100, screen->white_pixel, false);
		xcb_change_property(conn, XCB_PROP_MODE_REPLACE, windows[1].id,
			XCB_ATOM_WM_TRANSIENT_FOR, XCB_ATOM_WINDOW, 32, 1, &windows[0].id);
	}
	xcb_map_window(conn, windows[0].id);
	xcb_flush(conn);

	struct pollfd fds[] = {
		{.fd = xcb_get_file_descriptor(conn), .events = POLLIN},
		{.fd = menu ? 0 : -1, .events = POLLIN},
	};
	for (;;) {
		xcb_generic_event_t *event;
		while ((event = xcb_poll_for_event(conn))) {
			uint8_t type = event->response_type & ~0x80;
			xcb_window_t id = XCB_WINDOW_NONE;
			if (type == XCB_MAP_NOTIFY)
				id = ((xcb_map_notify_event_t *)event)->window;
			else if (type == XCB_CONFIGURE_NOTIFY)
				id = ((xcb_configure_notify_event_t *)event)->window;
			free(event);
			for (size_t i = 0; i < sizeof(windows) / sizeof(windows[0]); i++) {
				if (windows[i].id != id)
					continue;
				if (type == XCB_MAP_NOTIFY)
					windows[i].mapped = true;
				if (windows[i].mapped)
					report(conn, screen->root, &windows[i]);
			}
			/* the dialog once its parent is shown, as an application's would come */
			if (type == XCB_MAP_NOTIFY && id == windows[0].id)
				xcb_map_window(conn, windows[1].id);
			if (resize && windows[1].x > 0) {
				uint32_t values[] = {0, 0, 300, 150};
				xcb_configure_window(conn, windows[1].id,
					XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_Y |
						XCB_CONFIG_WINDOW_WIDTH | XCB_CONFIG_WINDOW_HEIGHT,
					values);
				resize = false;
			}
		}
		xcb_flush(conn);
		if (xcb_connection_has_error(conn))
			return 0;
		if (poll(fds, 2, -1) < 0)
			return 1;
		if ((fds[1].revents & (POLLIN | POLLHUP)) && !read_command(conn, windows[1].id))
			fds[1].fd = -1;
	}
}
