// SPDX-License-Identifier: MIT
/*
 * wlcs' SurfaceInputRegions/SurfaceInputCombinations and ToplevelInputRegions/
 * ToplevelInputCombinations on xdg toplevels, which wlcs 1.7 cannot run (its
 * XdgStableSurfaceBuilder attaches a buffer before the first configure),
 * each with a pointer (its button pressed) and a touch: input does not reach
 * a surface unmapped by a null buffer, nor one over an empty input region;
 * it falls through a subsurface's input region to its parent, through an
 * unmapped subsurface or an unmapped parent's subsurface to the window
 * below, and reaches a window and its subsurface again once remapped; a
 * drag off a surface stays with it, and the next press goes to what is
 * under it then. The surfaces are 215x108.
 */
#include "input.h"

#define W 215
#define H 108

static enum ct_input input;

static void
empty_or_full_region_then_null_buffer(struct ct_server *server, bool full)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *s = ct_toplevel(c, 64, 49, W, H, 0, 0, 0, 0);

	if (full) {
		struct wl_region *region = wl_compositor_create_region(c->compositor);
		wl_region_add(region, 0, 0, W, H);
		wl_surface_set_input_region(s->surface, region);
		wl_region_destroy(region);
		wl_surface_commit(s->surface);
	}
	ct_attach(s, 0, 0);
	ct_roundtrip(c);
	ct_input_down(server, input, 64, 49);
	ct_roundtrip(c);
	ct_check(ct_input_surface(c, input) != s->surface,
		"%s not seen by a toplevel %s after a null buffer is committed",
		ct_input_name(input), full ? "with an input region" : "without an input region");
	ct_input_up(server, input);
	ct_client_disconnect(c);
}

static void
input_not_seen_in_region_after_null_buffer_committed(struct ct_server *server)
{
	empty_or_full_region_then_null_buffer(server, true);
}

static void
input_not_seen_in_surface_without_region_after_null_buffer_committed(struct ct_server *server)
{
	empty_or_full_region_then_null_buffer(server, false);
}

static void
input_not_seen_over_empty_region(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *s = ct_toplevel(c, 64, 49, W, H, 0, 0, 0, 0);
	struct wl_region *region = wl_compositor_create_region(c->compositor);

	wl_surface_set_input_region(s->surface, region);
	wl_region_destroy(region);
	wl_surface_commit(s->surface);
	ct_roundtrip(c);
	ct_input_down(server, input, 64 + 4, 49 + 4);
	ct_roundtrip(c);
	ct_check(ct_input_surface(c, input) != s->surface, "%s not seen over an empty input region",
		ct_input_name(input));
	ct_input_up(server, input);
	ct_client_disconnect(c);
}

static void
input_hits_parent_after_falling_through_subsurface(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *parent = ct_toplevel(c, 64, 49, W, H, 0, 0, 0, 0);
	struct ct_surface *sub = ct_subsurface(parent, 0, 0, W, H);
	struct wl_region *region = wl_compositor_create_region(c->compositor);

	wl_region_add(region, 0, 0, 1, 1);
	wl_surface_set_input_region(sub->surface, region);
	wl_region_destroy(region);
	wl_surface_commit(sub->surface);
	ct_roundtrip(c);
	ct_input_down(server, input, 64 + 4, 49 + 4);
	ct_roundtrip(c);
	ct_input_at("input outside the subsurface's input region reaches its parent", c, input,
		parent->surface, 4, 4);
	ct_input_up(server, input);
	ct_client_disconnect(c);
}

static void
unmapping_parent_stops_subsurface_getting_input(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *parent = ct_toplevel(c, 64, 49, W, H, 0, 0, 0, 0);
	struct ct_surface *sub = ct_subsurface(parent, 0, 0, W, H);

	ct_attach(parent, 0, 0);
	ct_roundtrip(c);
	ct_input_down(server, input, 64 + 4, 49 + 4);
	ct_roundtrip(c);
	struct wl_surface *seen = ct_input_surface(c, input);
	ct_check(seen != parent->surface && seen != sub->surface,
		"%s reaches neither an unmapped toplevel nor its subsurface", ct_input_name(input));
	ct_input_up(server, input);
	ct_client_disconnect(c);
}

/*
 * A window below at 100,49; the parent at 200,49 above it with a subsurface
 * at -100,0 over the window below.
 */
static void
falls_through(struct ct_server *server, bool unmap_parent)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *lower = ct_toplevel(c, 100, 49, W, H, 0, 0, 0, 0);
	struct ct_surface *parent = ct_toplevel(c, 200, 49, W, H, 0, 0, 0, 0);
	struct ct_surface *sub = ct_subsurface(parent, -100, 0, W, H);

	ct_input_down(server, input, 200 - 90, 49 + 10);
	ct_roundtrip(c);
	ct_input_at("the mapped subsurface takes the input over the window below", c, input,
		sub->surface, 10, 10);
	ct_input_up(server, input);
	ct_roundtrip(c);
	ct_attach(unmap_parent ? parent : sub, 0, 0);
	ct_roundtrip(c);
	ct_input_down(server, input, 200 - 90, 49 + 10);
	ct_roundtrip(c);
	ct_input_at(unmap_parent ? "the parent unmapped: input falls through its subsurface"
				 : "the subsurface unmapped: input falls through it",
		c, input, lower->surface, 110 - 100, 10);
	ct_input_up(server, input);
	ct_client_disconnect(c);
}

static void
input_falls_through_subsurface_when_unmapped(struct ct_server *server)
{
	falls_through(server, false);
}

static void
input_falls_through_subsurface_when_parent_unmapped(struct ct_server *server)
{
	falls_through(server, true);
}

static void
input_seen_after_surface_unmapped_and_remapped(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *s = ct_toplevel(c, 200, 49, W, H, 0, 0, 0, 0);

	ct_attach(s, 0, 0);
	ct_roundtrip(c);
	ct_check(ct_remap_toplevel(s, W, H), "the toplevel is mapped again");
	ct_input_down(server, input, 200 + 4, 49 + 4);
	ct_roundtrip(c);
	ct_input_at("input reaches a toplevel unmapped and mapped again, where it was", c, input,
		s->surface, 4, 4);
	ct_input_up(server, input);
	ct_client_disconnect(c);
}

static void
input_seen_by_subsurface_after_parent_unmapped_and_remapped(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *parent = ct_toplevel(c, 200, 49, W, H, 0, 0, 0, 0);
	struct ct_surface *sub = ct_subsurface(parent, -100, 0, W, H);

	ct_attach(parent, 0, 0);
	ct_roundtrip(c);
	ct_check(ct_remap_toplevel(parent, W, H), "the parent is mapped again");
	ct_input_down(server, input, 200 - 90, 49 + 10);
	ct_roundtrip(c);
	ct_input_at("input reaches the subsurface of a parent mapped again", c, input, sub->surface,
		10, 10);
	ct_input_up(server, input);
	ct_client_disconnect(c);
}

static void
input_seen_after_dragged_off_surface(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *other = ct_toplevel(c, 200 - 102, 49, 100, 100, 0, 0, 0, 0);
	struct ct_surface *main_surface = ct_toplevel(c, 200, 49, W, H, 0, 0, 0, 0);

	ct_input_down(server, input, 200 + 5, 49 + 5);
	ct_roundtrip(c);
	ct_input_move(server, input, 200 - 5, 49 + 5);
	ct_roundtrip(c);
	ct_input_at("dragged off onto another window, the input stays with its surface", c, input,
		main_surface->surface, -5, 5);
	ct_check(ct_input_surface(c, input) != other->surface, "the other window does not get it");
	ct_input_up(server, input);
	ct_client_disconnect(c);
}

static void
input_seen_by_second_surface_after_drag_off_first_and_up(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *other = ct_toplevel(c, 200 - 102, 49, 100, 100, 0, 0, 0, 0);
	struct ct_surface *main_surface = ct_toplevel(c, 200, 49, W, H, 0, 0, 0, 0);

	ct_input_down(server, input, 200 + 5, 49 + 5);
	ct_roundtrip(c);
	ct_input_move(server, input, 200 - 80, 49 + 5);
	ct_roundtrip(c);
	ct_input_up(server, input);
	ct_input_down(server, input, 200 - 80, 49 + 5);
	ct_roundtrip(c);
	ct_input_at("released and pressed again, the input goes to the window under it", c, input,
		other->surface, 102 - 80, 5);
	ct_check(ct_input_surface(c, input) != main_surface->surface,
		"the first window does not keep it");
	ct_input_up(server, input);
	ct_client_disconnect(c);
}

static void
input_falls_through_surface_without_region_after_null_buffer_committed(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *lower = ct_toplevel(c, 64, 49, W, H, 0, 0, 0, 0);
	struct ct_surface *upper = ct_toplevel(c, 64, 49, W, H, 0, 0, 0, 0);

	ct_attach(upper, 0, 0);
	ct_roundtrip(c);
	ct_input_down(server, input, 64, 49);
	ct_roundtrip(c);
	ct_input_at("the upper toplevel unmapped: input falls through to the one below", c, input,
		lower->surface, 0, 0);
	ct_input_up(server, input);
	ct_client_disconnect(c);
}

int
main(void)
{
	for (input = CT_POINTER; input <= CT_TOUCH; input++) {
		printf("# input: %s\n", ct_input_name(input));
		/* SurfaceInputRegions/SurfaceInputCombinations */
		ct_run("input_not_seen_in_region_after_null_buffer_committed",
			input_not_seen_in_region_after_null_buffer_committed);
		ct_run("input_not_seen_in_surface_without_region_after_null_buffer_committed",
			input_not_seen_in_surface_without_region_after_null_buffer_committed);
		ct_run("input_not_seen_over_empty_region", input_not_seen_over_empty_region);
		ct_run("input_hits_parent_after_falling_through_subsurface",
			input_hits_parent_after_falling_through_subsurface);
		ct_run("unmapping_parent_stops_subsurface_getting_input",
			unmapping_parent_stops_subsurface_getting_input);
		ct_run("input_falls_through_subsurface_when_unmapped",
			input_falls_through_subsurface_when_unmapped);
		ct_run("input_falls_through_subsurface_when_parent_unmapped",
			input_falls_through_subsurface_when_parent_unmapped);
		ct_run("input_seen_after_surface_unmapped_and_remapped",
			input_seen_after_surface_unmapped_and_remapped);
		ct_run("input_seen_by_subsurface_after_parent_unmapped_and_remapped",
			input_seen_by_subsurface_after_parent_unmapped_and_remapped);
		ct_run("input_seen_after_dragged_off_surface",
			input_seen_after_dragged_off_surface);
		ct_run("input_seen_by_second_surface_after_drag_off_first_and_up",
			input_seen_by_second_surface_after_drag_off_first_and_up);
		/* ToplevelInputRegions/ToplevelInputCombinations */
		ct_run("input_falls_through_surface_without_region_after_null_buffer_committed",
			input_falls_through_surface_without_region_after_null_buffer_committed);
	}
	return ct_finish();
}
