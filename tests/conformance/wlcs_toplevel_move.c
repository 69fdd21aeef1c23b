// SPDX-License-Identifier: MIT
/*
 * wlcs' XdgToplevelStableTest interactive move and resize tests, which wlcs
 * 1.7 cannot run (its XdgStableSurfaceBuilder attaches a buffer before the
 * first configure). They check that a compositor moves or resizes a window
 * when asked and that the pointer leaves it meanwhile; a kiosk does neither
 * (every window stays where the kiosk put it), so this checks the kiosk's
 * rule instead: after xdg_toplevel.move or .resize from a button press, the
 * pointer's drag stays the client's, its release reaches the client, and the
 * window is where it was; a touch asking to move is answered the same way.
 */
#include "harness.h"

#define X0 200
#define Y0 100

static struct ct_surface *window;

static void
stays(struct ct_server *server, struct ct_client *c, const char *what)
{
	ct_pointer_move(server, X0 + 50, Y0 + 40);
	ct_roundtrip(c);
	ct_check_at(what, c->pointer_focus, c->pointer_x, c->pointer_y, window->surface, 50, 40);
}

static void
request(struct ct_server *server, bool resize)
{
	struct ct_client *c = ct_client_connect(server);
	window = ct_toplevel(c, X0, Y0, 300, 200, 0, 0, 0, 0);

	ct_pointer_move(server, X0 + 10, Y0 + 10);
	ct_pointer_button(server, true);
	ct_roundtrip(c);
	uint32_t buttons = c->buttons;
	if (resize)
		xdg_toplevel_resize(window->toplevel, c->seat, c->serial,
			XDG_TOPLEVEL_RESIZE_EDGE_BOTTOM_RIGHT);
	else
		xdg_toplevel_move(window->toplevel, c->seat, c->serial);
	ct_roundtrip(c);
	ct_pointer_move(server, X0 + 400, Y0 + 300);
	ct_roundtrip(c);
	ct_check_at(resize ? "the drag after a resize request stays with the window"
			   : "the drag after a move request stays with the window",
		c->pointer_focus, c->pointer_x, c->pointer_y, window->surface, 400, 300);
	ct_pointer_button(server, false);
	ct_roundtrip(c);
	ct_check(c->buttons == buttons + 1, "the button's release reaches the client");
	stays(server, c,
		resize ? "the window is where it was, at its size" : "the window is where it was");
	ct_client_disconnect(c);
}

static void
surface_is_not_moved_interactively(struct ct_server *server)
{
	request(server, false);
}

static void
surface_is_not_resized_interactively(struct ct_server *server)
{
	request(server, true);
}

static void
touch_move_request_is_ignored(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	window = ct_toplevel(c, X0, Y0, 300, 200, 0, 0, 0, 0);

	ct_touch_down(server, X0 + 10, Y0 + 10);
	ct_roundtrip(c);
	xdg_toplevel_move(window->toplevel, c->seat, c->serial);
	ct_roundtrip(c);
	ct_touch_move(server, X0 + 400, Y0 + 300);
	ct_roundtrip(c);
	ct_check_at("the touch after a move request stays with the window", c->touch_focus,
		c->touch_x, c->touch_y, window->surface, 400, 300);
	ct_touch_up(server);
	ct_roundtrip(c);
	ct_check(c->touch_ups == 1, "the touch's up reaches the client");
	stays(server, c, "the window is where it was");
	ct_client_disconnect(c);
}

int
main(void)
{
	ct_run("surface_is_not_moved_interactively", surface_is_not_moved_interactively);
	ct_run("surface_is_not_resized_interactively", surface_is_not_resized_interactively);
	ct_run("touch_move_request_is_ignored", touch_move_request_is_ignored);
	return ct_finish();
}
