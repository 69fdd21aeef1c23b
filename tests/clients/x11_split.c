// SPDX-License-Identifier: MIT
/*
 * An X11 client that draws one change in two requests, as X applications
 * do (a clear, then the text): a white window (WM_CLASS x11_split) which,
 * once the window manager has shown it, gets a black 100x40 box at 50,50
 * as two 100x20 halves, the second GAP_MS (default 10) after the first
 * reached the X server. Prints "split drawn ns=NS" after the second half,
 * NS the time the X server had it (CLOCK_MONOTONIC, the clock of the
 * memory panel's trace), then stays until killed.
 *
 *   x11_split [GAP_MS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <xcb/xcb.h>

static void
fill(xcb_connection_t *conn, xcb_window_t window, xcb_gcontext_t gc, int16_t y)
{
	xcb_rectangle_t half = {50, y, 100, 20};

	xcb_poly_fill_rectangle(conn, window, gc, 1, &half);
	xcb_flush(conn);
}

int
main(int argc, char **argv)
{
	char *end = NULL;
	long gap_ms = argc == 2 ? strtol(argv[1], &end, 10) : 10;

	if (argc > 2 || (end && (*end || end == argv[1])) || gap_ms < 0 || gap_ms > 10000) {
		fprintf(stderr, "usage: x11_split [GAP_MS]\n");
		return 2;
	}
	xcb_connection_t *conn = xcb_connect(NULL, NULL);

	if (xcb_connection_has_error(conn)) {
		fprintf(stderr, "x11_split: cannot connect to the X server\n");
		return 2;
	}
	xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(conn)).data;
	xcb_window_t window = xcb_generate_id(conn);
	uint32_t values[] = {screen->white_pixel, XCB_EVENT_MASK_STRUCTURE_NOTIFY};
	xcb_create_window(conn, XCB_COPY_FROM_PARENT, window, screen->root, 0, 0, 400, 300, 0,
		XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual,
		XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, values);
	/* its instance and class, for an [app:x11_split] section */
	static const char wm_class[] = "x11_split\0x11_split";
	xcb_change_property(conn, XCB_PROP_MODE_REPLACE, window, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING,
		8, sizeof(wm_class), wm_class);
	xcb_gcontext_t gc = xcb_generate_id(conn);
	uint32_t black[] = {screen->black_pixel};
	xcb_create_gc(conn, gc, window, XCB_GC_FOREGROUND, black);
	xcb_map_window(conn, window);
	xcb_flush(conn);

	xcb_generic_event_t *event;
	while ((event = xcb_wait_for_event(conn))) {
		uint8_t type = event->response_type & ~0x80;
		free(event);
		if (type == XCB_MAP_NOTIFY)
			break;
	}
	/* the window on the panel, and the panel quiet again */
	nanosleep(&(struct timespec){.tv_sec = 2}, NULL);
	fill(conn, window, gc, 50);
	nanosleep(&(struct timespec){.tv_sec = gap_ms / 1000, .tv_nsec = gap_ms % 1000 * 1000000},
		NULL);
	fill(conn, window, gc, 70);
	/* the server has both halves once it answered a request sent after them */
	free(xcb_get_input_focus_reply(conn, xcb_get_input_focus(conn), NULL));
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	printf("split drawn ns=%lld\n", (long long)now.tv_sec * 1000000000 + now.tv_nsec);
	fflush(stdout);
	while ((event = xcb_wait_for_event(conn)))
		free(event);
	return 0;
}
