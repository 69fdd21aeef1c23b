// SPDX-License-Identifier: MIT
/*
 * wlcs' Layer/LayerSurfaceLayerTest, which wlcs 1.7 cannot run (its layer
 * surfaces attach a buffer before the first configure): of two 200x100
 * surfaces overlapping, one on a higher layer than the other (background,
 * bottom, a window, top, overlay), the higher one is under the pointer
 * where they overlap; a click on the lower one does not raise it; and
 * zwlr_layer_surface_v1.set_layer moves a surface between layers. The
 * lower surface is at 0,0, the higher one at 100,0 (wlcs moves them there;
 * layer surfaces are placed here by their anchor and margins).
 */
#include "harness.h"

#define W      200
#define H      100
#define WINDOW 4 /* not a layer: a toplevel, between bottom and top */

static const struct {
	int above, below;
} pairs[] = {
	{ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM, ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND},
	{ZWLR_LAYER_SHELL_V1_LAYER_TOP, ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM},
	{ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY, ZWLR_LAYER_SHELL_V1_LAYER_TOP},
	{ZWLR_LAYER_SHELL_V1_LAYER_TOP, WINDOW},
	{ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY, WINDOW},
	{WINDOW, ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM},
	{WINDOW, ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND},
};
static int above_layer, below_layer;

static const char *
layer_name(int layer)
{
	static const char *names[] = {"background", "bottom", "top", "overlay", "window"};
	return names[layer];
}

/* A surface at x, 0: a layer surface anchored top left, or a window placed there. */
static struct ct_surface *
surface_on(struct ct_client *c, int layer, int x)
{
	if (layer == WINDOW)
		return ct_toplevel(c, x, 0, W, H, 0, 0, 0, 0);
	struct ct_surface *s = ct_layer_surface(c, (uint32_t)layer,
		ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT, 0, W, H);
	zwlr_layer_surface_v1_set_margin(s->layer_surface, 0, 0, 0, x);
	wl_surface_commit(s->surface);
	ct_roundtrip(c);
	return s;
}

static void
surface_on_lower_layer_is_initially_placed_below(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *below = surface_on(c, below_layer, 0);
	struct ct_surface *above = surface_on(c, above_layer, 100);

	ct_pointer_move(server, 1, 1);
	ct_roundtrip(c);
	ct_check(c->pointer_focus == below->surface, "%s: the lower surface alone at 1,1",
		layer_name(below_layer));
	ct_pointer_move(server, 102, 3);
	ct_roundtrip(c);
	ct_check_at("where they overlap, the surface on the higher layer", c->pointer_focus,
		c->pointer_x, c->pointer_y, above->surface, 2, 3);
	ct_client_disconnect(c);
}

static void
below_surface_can_not_be_raised_with_click(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *below = surface_on(c, below_layer, 0);
	struct ct_surface *above = surface_on(c, above_layer, 100);

	ct_pointer_move(server, 1, 1);
	ct_pointer_button(server, true);
	ct_pointer_button(server, false);
	ct_roundtrip(c);
	ct_check(c->pointer_focus == below->surface, "the lower surface is clicked");
	ct_pointer_move(server, 102, 1);
	ct_roundtrip(c);
	ct_check(c->pointer_focus == above->surface,
		"%s over %s: clicked, the lower surface is still below", layer_name(above_layer),
		layer_name(below_layer));
	ct_client_disconnect(c);
}

static void
surface_can_be_moved_to_layer(struct ct_server *server)
{
	if (above_layer == WINDOW || below_layer == WINDOW)
		return; /* a window has no layer to move to */
	struct ct_client *c = ct_client_connect(server);
	/* first the other way round */
	struct ct_surface *below = surface_on(c, ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY, 0);
	struct ct_surface *above = surface_on(c, ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND, 100);

	zwlr_layer_surface_v1_set_layer(above->layer_surface, (uint32_t)above_layer);
	zwlr_layer_surface_v1_set_layer(below->layer_surface, (uint32_t)below_layer);
	wl_surface_commit(above->surface);
	wl_surface_commit(below->surface);
	ct_roundtrip(c);
	ct_pointer_move(server, 102, 3);
	ct_roundtrip(c);
	ct_check(c->pointer_focus == above->surface,
		"set_layer: the surface moved to %s is over the one moved to %s",
		layer_name(above_layer), layer_name(below_layer));
	ct_client_disconnect(c);
}

int
main(void)
{
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		above_layer = pairs[i].above;
		below_layer = pairs[i].below;
		printf("# %s over %s\n", layer_name(above_layer), layer_name(below_layer));
		ct_run("surface_on_lower_layer_is_initially_placed_below",
			surface_on_lower_layer_is_initially_placed_below);
		ct_run("below_surface_can_not_be_raised_with_click",
			below_surface_can_not_be_raised_with_click);
		ct_run("surface_can_be_moved_to_layer", surface_can_be_moved_to_layer);
	}
	return ct_finish();
}
