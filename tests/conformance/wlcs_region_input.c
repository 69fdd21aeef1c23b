// SPDX-License-Identifier: MIT
/*
 * wlcs' RegionSurfaceInputCombinations (its six instantiations) on xdg
 * toplevels, which wlcs 1.7 cannot run (its XdgStableSurfaceBuilder attaches
 * a buffer before the first configure): for the default input region, one
 * naming the whole surface, a smaller one, a larger one clipped to the
 * surface and one of two rectangles, a pointer pressed at (a touch put down
 * on) a point just inside an edge or corner reaches the surface at that
 * surface point, and one pixel across it does not. The pointer also enters,
 * moves and leaves with the right events. Toplevels with no window geometry
 * and with geometry inset 12,5,20,6; the surface's top left at 64,49; the
 * surface 215x108.
 */
#include "input.h"

#define W  215
#define H  108
#define X0 64
#define Y0 49

struct rect {
	int x, y, w, h;
};

struct region {
	const char *name;
	int n; /* 0: the default region (none set) */
	struct rect rects[2];
};

struct point {
	const char *name;
	const struct region *region;
	int x, y;   /* on the surface, inside the region */
	int dx, dy; /* to the point just outside */
};

static const struct region default_region = {"default", 0, {{0}}};
static const struct region full_region = {"explicitly specified full surface", 1, {{0, 0, W, H}}};
static const struct region smaller_region = {"smaller", 1, {{12, 17, W - 12 * 2, H - 17 * 2}}};
static const struct region larger_region = {"larger", 1, {{-12, -17, W + 12 * 2, H + 17 * 2}}};
static const struct region multi_rect_region = {
	"multi-rect", 2, {{0, 0, W, H / 2}, {16, H / 2, W - 16 * 2, H / 2 + 20}}};

static const struct point points[] = {
	/* DefaultEdges */
	{"left edge", &default_region, 0, H / 2, -1, 0},
	{"bottom edge", &default_region, W / 2, H - 1, 0, 1},
	{"right edge", &default_region, W - 1, H / 2, 1, 0},
	{"top edge", &default_region, W / 2, 0, 0, -1},
	/* FullSurface */
	{"left edge", &full_region, 0, H / 2, -1, 0},
	{"bottom edge", &full_region, W / 2, H - 1, 0, 1},
	{"right edge", &full_region, W - 1, H / 2, 1, 0},
	{"top edge", &full_region, W / 2, 0, 0, -1},
	/* SmallerRegion */
	{"left edge", &smaller_region, 12, H / 2, -1, 0},
	{"bottom edge", &smaller_region, W / 2, H - 17 - 1, 0, 1},
	{"right edge", &smaller_region, W - 12 - 1, H / 2, 1, 0},
	{"top edge", &smaller_region, W / 2, 17, 0, -1},
	/* ClippedLargerRegion */
	{"left edge", &larger_region, 0, H / 2, -1, 0},
	{"bottom edge", &larger_region, W / 2, H - 1, 0, 1},
	{"right edge", &larger_region, W - 1, H / 2, 1, 0},
	{"top edge", &larger_region, W / 2, 0, 0, -1},
	/* MultiRectEdges */
	{"top region edge at surface top edge", &multi_rect_region, W / 2, 0, 0, -1},
	{"right region edge at surface right edge", &multi_rect_region, W - 1, H / 4, 1, 0},
	{"left region edge inside surface", &multi_rect_region, 16, H * 3 / 4, -1, 0},
	{"step edge", &multi_rect_region, 16 / 2, H / 2 - 1, 0, 1},
	{"bottom clipped edge", &multi_rect_region, W / 2, H - 1, 0, 1},
	/* MultiRectCorners */
	{"top-left corner", &multi_rect_region, 0, 0, -1, -1},
	{"top-right corner", &multi_rect_region, W - 1, 0, 1, -1},
	{"bottom-left corner", &multi_rect_region, 16, H - 1, -1, 1},
	{"bottom-right corner", &multi_rect_region, W - 16 - 1, H - 1, 1, 1},
	{"left interior corner", &multi_rect_region, 16, H / 2 - 1, -1, 1},
	{"right interior corner", &multi_rect_region, W - 16 - 1, H / 2 - 1, 1, 1},
};

struct inset {
	const char *name;
	int left, top, right, bottom;
};

static const struct inset insets[] = {
	{"xdg_surface_stable", 0, 0, 0, 0},
	{"xdg_surface_stable_12_5_20_6", 12, 5, 20, 6},
};

static const struct inset *inset;
static const struct point *point;
static enum ct_input input;

static struct ct_surface *
window_with_region(struct ct_client *c)
{
	struct ct_surface *s =
		ct_toplevel(c, X0, Y0, W, H, inset->left, inset->top, inset->right, inset->bottom);

	if (point->region->n) {
		struct wl_region *region = wl_compositor_create_region(c->compositor);
		for (int i = 0; i < point->region->n; i++) {
			const struct rect *r = &point->region->rects[i];
			wl_region_add(region, r->x, r->y, r->w, r->h);
		}
		wl_surface_set_input_region(s->surface, region);
		wl_region_destroy(region);
		wl_surface_commit(s->surface);
		ct_roundtrip(c);
	}
	return s;
}

static void
input_inside_region_seen(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *s = window_with_region(c);
	char what[160];

	snprintf(what, sizeof(what), "%s inside the %s of the %s region, %s", ct_input_name(input),
		point->name, point->region->name, inset->name);
	ct_input_down(server, input, X0 + point->x, Y0 + point->y);
	ct_roundtrip(c);
	ct_input_at(what, c, input, s->surface, point->x, point->y);
	ct_input_up(server, input);
	ct_roundtrip(c);
	ct_client_disconnect(c);
}

static void
input_not_seen_after_leaving_region(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *s = window_with_region(c);

	ct_input_down(server, input, X0 + point->x, Y0 + point->y);
	ct_roundtrip(c);
	bool was_in = ct_input_surface(c, input) == s->surface;
	ct_input_up(server, input);
	ct_input_down(server, input, X0 + point->x + point->dx, Y0 + point->y + point->dy);
	ct_roundtrip(c);
	ct_check(was_in && ct_input_surface(c, input) != s->surface,
		"%s one pixel outside the %s of the %s region (%+d,%+d), %s: not on the surface",
		ct_input_name(input), point->name, point->region->name, point->dx, point->dy,
		inset->name);
	ct_input_up(server, input);
	ct_roundtrip(c);
	ct_client_disconnect(c);
}

/* The pointer's own events: enter, motion and leave, each at surface coordinates. */
static void
pointer_enters_moves_and_leaves(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	struct ct_surface *s =
		ct_toplevel(c, X0, Y0, W, H, inset->left, inset->top, inset->right, inset->bottom);

	ct_pointer_move(server, X0 - 10, Y0 + 10);
	ct_roundtrip(c);
	ct_check(c->pointer_focus == NULL, "pointer left of the surface: no focus");
	ct_pointer_move(server, X0 + 3, Y0 + 10);
	ct_roundtrip(c);
	ct_check_at(
		"pointer enters", c->pointer_focus, c->pointer_x, c->pointer_y, s->surface, 3, 10);
	ct_pointer_move(server, X0 + 100, Y0 + 50);
	ct_roundtrip(c);
	ct_check_at(
		"pointer moves", c->pointer_focus, c->pointer_x, c->pointer_y, s->surface, 100, 50);
	ct_pointer_move(server, X0 + W + 5, Y0 + 50);
	ct_roundtrip(c);
	ct_check(c->pointer_focus == NULL, "pointer off the right edge: it left the surface");
	ct_client_disconnect(c);
}

int
main(void)
{
	for (size_t i = 0; i < sizeof(insets) / sizeof(insets[0]); i++) {
		inset = &insets[i];
		ct_run("pointer_enters_moves_and_leaves", pointer_enters_moves_and_leaves);
		for (size_t p = 0; p < sizeof(points) / sizeof(points[0]); p++) {
			point = &points[p];
			for (input = CT_POINTER; input <= CT_TOUCH; input++) {
				ct_run("input_inside_region_seen", input_inside_region_seen);
				ct_run("input_not_seen_after_leaving_region",
					input_not_seen_after_leaving_region);
			}
		}
	}
	return ct_finish();
}
