// SPDX-License-Identifier: MIT
/*
 * wlcs' AllSurfaceTypes/TouchTest on xdg toplevels, which wlcs 1.7 cannot
 * run (its XdgStableSurfaceBuilder attaches a buffer before the first
 * configure): a touch goes down on the toplevel at the surface point under
 * it, moves with it there, stays with it when dragged off the surface and
 * back, and ends when the surface is destroyed under it. Toplevels with no
 * window geometry and with geometry inset 12,5,20,6, as wlcs builds them.
 */
#include "harness.h"

struct inset {
	const char *name;
	int left, top, right, bottom;
};

static const struct inset insets[] = {
	{"xdg_surface_stable", 0, 0, 0, 0},
	{"xdg_surface_stable_12_5_20_6", 12, 5, 20, 6},
};
static const struct inset *inset;

static struct ct_surface *
window(struct ct_client *c, int x, int y)
{
	return ct_toplevel(c, x, y, 300, 300, inset->left, inset->top, inset->right, inset->bottom);
}

static void
touch_on_surface_seen(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *s = window(c, 64, 7);

	ct_touch_down(server, 64 + 27, 7 + 8);
	ct_roundtrip(c);
	ct_check_at("touch down", c->touch_focus, c->touch_x, c->touch_y, s->surface, 27, 8);
	ct_touch_up(server);
	ct_roundtrip(c);
	ct_check(c->touch_focus == NULL && c->touch_ups == 1, "touch up reaches the surface");
	ct_client_disconnect(c);
}

static void
touch_and_drag_on_surface_seen(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *s = window(c, 64, 12);

	ct_touch_down(server, 64 + 27, 12 + 140);
	ct_roundtrip(c);
	ct_check_at("touch down", c->touch_focus, c->touch_x, c->touch_y, s->surface, 27, 140);
	ct_touch_move(server, 64 + 27 + 37, 12 + 140 - 52);
	ct_roundtrip(c);
	ct_check_at("touch moved", c->touch_focus, c->touch_x, c->touch_y, s->surface, 27 + 37,
		140 - 52);
	ct_touch_up(server);
	ct_roundtrip(c);
	ct_client_disconnect(c);
}

static void
touch_drag_outside_of_surface_and_back_not_lost(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *s = window(c, 64, 12);

	ct_touch_down(server, 64 + 27, 12 + 12);
	ct_roundtrip(c);
	ct_check_at("touch down", c->touch_focus, c->touch_x, c->touch_y, s->surface, 27, 12);
	ct_touch_move(server, 64 - 6, 12 + 300 + 8);
	ct_roundtrip(c);
	ct_check_at("touch dragged off the surface", c->touch_focus, c->touch_x, c->touch_y,
		s->surface, -6, 308);
	ct_touch_move(server, 64 + 27, 12 + 12);
	ct_roundtrip(c);
	ct_check_at(
		"touch dragged back", c->touch_focus, c->touch_x, c->touch_y, s->surface, 27, 12);
	ct_touch_up(server);
	ct_roundtrip(c);
	ct_client_disconnect(c);
}

static void
sends_touch_up_on_surface_destroy(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *s = window(c, 64, 7);
	struct wl_surface *surface = s->surface;

	ct_touch_down(server, 64 + 27, 7 + 8);
	ct_roundtrip(c);
	ct_check(c->touch_focus == surface, "touch down on the surface");
	ct_surface_destroy(s);
	ct_roundtrip(c);
	ct_check(c->touch_focus == NULL && c->touch_ups == 1,
		"the surface destroyed under the touch: the client hears the touch up (%u ups)",
		c->touch_ups);
	ct_touch_up(server);
	ct_roundtrip(c);
	ct_client_disconnect(c);
}

int
main(void)
{
	for (size_t i = 0; i < sizeof(insets) / sizeof(insets[0]); i++) {
		inset = &insets[i];
		printf("# window geometry: %s\n", inset->name);
		ct_run("touch_on_surface_seen", touch_on_surface_seen);
		ct_run("touch_and_drag_on_surface_seen", touch_and_drag_on_surface_seen);
		ct_run("touch_drag_outside_of_surface_and_back_not_lost",
			touch_drag_outside_of_surface_and_back_not_lost);
		ct_run("sends_touch_up_on_surface_destroy", sends_touch_up_on_surface_destroy);
	}
	return ct_finish();
}
