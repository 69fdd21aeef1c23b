// SPDX-License-Identifier: MIT
/*
 * An X11 client for vellum's tests: a black 400x300 main window and a white
 * 200x100 dialog, whose being a dialog the window manager learns in the
 * order named on the command line. Prints "main at X,Y WxH" and "dialog at
 * X,Y WxH", the window's place on the root window as the X server has it,
 * once mapped and each time the window manager moves or resizes it, until
 * killed.
 *
 *   x11_dialog ORDER
 *
 * The dialog is mapped once the main window is, and is a dialog by:
 * transient: WM_TRANSIENT_FOR (the main window), set before it is mapped;
 * transient-at-map: the same, set in the request after the one mapping it;
 * transient-late: the same, set once the window manager has placed it;
 * type: _NET_WM_WINDOW_TYPE_DIALOG, without WM_TRANSIENT_FOR, before it is
 * mapped;
 * type-late: the same, once the window manager has placed it;
 * hints-late: WM_NORMAL_HINTS of a fixed size (200x100), once the window
 * manager has placed it (and made it another size);
 * parent-late: WM_TRANSIENT_FOR set before it is mapped, but the main
 * window mapped only once the window manager has placed the dialog.
 * "Placed" is: X has the dialog elsewhere or at another size than it was
 * made.
 */
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xcb/xcb.h>

enum order {
	TRANSIENT,
	TRANSIENT_AT_MAP,
	TRANSIENT_LATE,
	TYPE,
	TYPE_LATE,
	HINTS_LATE,
	PARENT_LATE,
};

static const char *const order_names[] = {
	[TRANSIENT] = "transient",
	[TRANSIENT_AT_MAP] = "transient-at-map",
	[TRANSIENT_LATE] = "transient-late",
	[TYPE] = "type",
	[TYPE_LATE] = "type-late",
	[HINTS_LATE] = "hints-late",
	[PARENT_LATE] = "parent-late",
};

struct window {
	const char *name;
	xcb_window_t id;
	bool mapped;
	int16_t x, y;
	uint16_t width, height;
};

static xcb_window_t
create_window(xcb_connection_t *conn, xcb_screen_t *screen, uint16_t width, uint16_t height,
	uint32_t background)
{
	xcb_window_t window = xcb_generate_id(conn);
	/* in the order of their bits */
	uint32_t values[] = {background, XCB_EVENT_MASK_STRUCTURE_NOTIFY};

	xcb_create_window(conn, XCB_COPY_FROM_PARENT, window, screen->root, 0, 0, width, height, 0,
		XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual,
		XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, values);
	return window;
}

static xcb_atom_t
atom(xcb_connection_t *conn, const char *name)
{
	xcb_intern_atom_reply_t *reply =
		xcb_intern_atom_reply(conn, xcb_intern_atom(conn, 0, strlen(name), name), NULL);
	xcb_atom_t atom = reply ? reply->atom : XCB_ATOM_NONE;

	free(reply);
	return atom;
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

static void
set_transient_for(xcb_connection_t *conn, struct window *dialog, struct window *main_window)
{
	xcb_change_property(conn, XCB_PROP_MODE_REPLACE, dialog->id, XCB_ATOM_WM_TRANSIENT_FOR,
		XCB_ATOM_WINDOW, 32, 1, &main_window->id);
}

static void
set_dialog_type(xcb_connection_t *conn, struct window *dialog)
{
	xcb_atom_t type = atom(conn, "_NET_WM_WINDOW_TYPE_DIALOG");

	xcb_change_property(conn, XCB_PROP_MODE_REPLACE, dialog->id,
		atom(conn, "_NET_WM_WINDOW_TYPE"), XCB_ATOM_ATOM, 32, 1, &type);
}

/* WM_NORMAL_HINTS (ICCCM 4.1.2.3): min and max size 200x100, all else unset */
static void
set_fixed_size(xcb_connection_t *conn, struct window *dialog)
{
	enum { P_MIN_SIZE = 1 << 4, P_MAX_SIZE = 1 << 5 };
	uint32_t hints[18] = {
		[0] = P_MIN_SIZE | P_MAX_SIZE,
		[5] = 200, /* min width, height */
		[6] = 100,
		[7] = 200, /* max width, height */
		[8] = 100,
	};

	xcb_change_property(conn, XCB_PROP_MODE_REPLACE, dialog->id, XCB_ATOM_WM_NORMAL_HINTS,
		XCB_ATOM_WM_SIZE_HINTS, 32, 18, hints);
}

int
main(int argc, char **argv)
{
	int order = -1;

	for (int i = 0; argc == 2 && i < (int)(sizeof(order_names) / sizeof(order_names[0])); i++)
		if (!strcmp(argv[1], order_names[i]))
			order = i;
	if (order < 0) {
		fprintf(stderr, "usage: x11_dialog transient|transient-at-map|transient-late|type|"
				"type-late|hints-late|parent-late\n");
		return 2;
	}
	xcb_connection_t *conn = xcb_connect(NULL, NULL);

	if (xcb_connection_has_error(conn)) {
		fprintf(stderr, "x11_dialog: cannot connect to the X server\n");
		return 2;
	}
	xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(conn)).data;
	struct window main_window = {.name = "main", .x = -1, .y = -1};
	struct window dialog = {.name = "dialog", .x = -1, .y = -1};
	struct window *windows[] = {&main_window, &dialog};

	main_window.id = create_window(conn, screen, 400, 300, screen->black_pixel);
	dialog.id = create_window(conn, screen, 200, 100, screen->white_pixel);
	if (order == TRANSIENT || order == PARENT_LATE)
		set_transient_for(conn, &dialog, &main_window);
	if (order == TYPE)
		set_dialog_type(conn, &dialog);
	if (order == PARENT_LATE) {
		xcb_map_window(conn, dialog.id);
	} else {
		xcb_map_window(conn, main_window.id);
	}
	xcb_flush(conn);

	bool placed = false;
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
				if (windows[i]->id != id)
					continue;
				if (type == XCB_MAP_NOTIFY)
					windows[i]->mapped = true;
				if (windows[i]->mapped)
					report(conn, screen->root, windows[i]);
			}
			/* the dialog once its parent is shown, as an application's would come */
			if (type == XCB_MAP_NOTIFY && id == main_window.id &&
				order != PARENT_LATE) {
				xcb_map_window(conn, dialog.id);
				if (order == TRANSIENT_AT_MAP)
					set_transient_for(conn, &dialog, &main_window);
			}
			if (placed || !dialog.mapped ||
				(dialog.x == 0 && dialog.y == 0 && dialog.width == 200 &&
					dialog.height == 100))
				continue;
			placed = true;
			if (order == TRANSIENT_LATE)
				set_transient_for(conn, &dialog, &main_window);
			else if (order == TYPE_LATE)
				set_dialog_type(conn, &dialog);
			else if (order == HINTS_LATE)
				set_fixed_size(conn, &dialog);
			else if (order == PARENT_LATE)
				xcb_map_window(conn, main_window.id);
		}
		xcb_flush(conn);
		if (xcb_connection_has_error(conn))
			return 0;
		struct pollfd fd = {.fd = xcb_get_file_descriptor(conn), .events = POLLIN};
		if (poll(&fd, 1, -1) < 0)
			return 1;
	}
}
