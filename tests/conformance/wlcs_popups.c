// SPDX-License-Identifier: MIT
/*
 * wlcs' popup groups, which wlcs 1.7 cannot run (the parent window or layer
 * surface attaches its buffer before the first configure):
 *
 * - XdgPopupPositionerTest, each instantiation (xdg_shell_stable_ and
 *   layer_shell_popup_placed_correctly): a 60x40 popup of a 400x500 parent
 *   is configured where xdg_positioner's anchor rect, anchor, gravity and
 *   constraint adjustment (none, slide, flip, resize at the panel's edges)
 *   put it, and the pointer enters it there, at its surface point;
 * - XdgPopupStable/XdgPopupTest and LayerShellPopup/XdgPopupTest: the
 *   pointer goes to a popup and back to its parent when it goes; a grabbed
 *   popup gets the keyboard, an ungrabbed one not; a grabbed popup is
 *   dismissed (popup_done, the topmost first) by a click on another
 *   client's window and by a new toplevel, never before the button press a
 *   client hears;
 * - XdgPopupTest: xdg_popup.reposition (wlroots refuses a zero-size anchor
 *   rect, as xdg-shell did before version 6: invalid_positioner);
 * - Anchor/LayerSurfaceLayoutTest.simple_popup_positioned_correctly: a layer
 *   surface's popup at the centre of its anchor rect.
 *
 * vellum keeps a popup inside the panel's usable area, as its positioner's
 * constraint adjustment allows.
 */
#include "harness.h"

#define WIN_W 400
#define WIN_H 500
#define POP_W 60
#define POP_H 40

enum parent_at { MIDDLE, TOP_LEFT, BOTTOM_RIGHT };

struct placement {
	const char *group, *name;
	int ax, ay, aw, ah; /* the anchor rect */
	uint32_t anchor, gravity, adjust;
	enum parent_at at;
	int x, y, w, h; /* expected */
};

#define AR   0, 0, WIN_W, WIN_H
#define CX   ((WIN_W - POP_W) / 2)
#define CY   ((WIN_H - POP_H) / 2)
#define NONE XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_NONE
#define SLIDE                                           \
	(XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_X | \
		XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_Y)
#define FLIP \
	(XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_X | XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_Y)
#define RESIZE                                           \
	(XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_RESIZE_X | \
		XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_RESIZE_Y)
#define A(x) XDG_POSITIONER_ANCHOR_##x
#define G(x) XDG_POSITIONER_GRAVITY_##x

static const struct placement placements[] = {
	{"Default", "default values", AR, A(NONE), G(NONE), NONE, MIDDLE, CX, CY, POP_W, POP_H},
	{"Anchor", "anchor left", AR, A(LEFT), G(NONE), NONE, MIDDLE, -POP_W / 2, CY, POP_W, POP_H},
	{"Anchor", "anchor right", AR, A(RIGHT), G(NONE), NONE, MIDDLE, WIN_W - POP_W / 2, CY,
		POP_W, POP_H},
	{"Anchor", "anchor top", AR, A(TOP), G(NONE), NONE, MIDDLE, CX, -POP_H / 2, POP_W, POP_H},
	{"Anchor", "anchor bottom", AR, A(BOTTOM), G(NONE), NONE, MIDDLE, CX, WIN_H - POP_H / 2,
		POP_W, POP_H},
	{"Anchor", "anchor top left", AR, A(TOP_LEFT), G(NONE), NONE, MIDDLE, -POP_W / 2,
		-POP_H / 2, POP_W, POP_H},
	{"Anchor", "anchor bottom right", AR, A(BOTTOM_RIGHT), G(NONE), NONE, MIDDLE,
		WIN_W - POP_W / 2, WIN_H - POP_H / 2, POP_W, POP_H},
	{"Gravity", "gravity left", AR, A(NONE), G(LEFT), NONE, MIDDLE, WIN_W / 2 - POP_W, CY,
		POP_W, POP_H},
	{"Gravity", "gravity right", AR, A(NONE), G(RIGHT), NONE, MIDDLE, WIN_W / 2, CY, POP_W,
		POP_H},
	{"Gravity", "gravity top", AR, A(NONE), G(TOP), NONE, MIDDLE, CX, WIN_H / 2 - POP_H, POP_W,
		POP_H},
	{"Gravity", "gravity bottom", AR, A(NONE), G(BOTTOM), NONE, MIDDLE, CX, WIN_H / 2, POP_W,
		POP_H},
	{"Gravity", "gravity top left", AR, A(NONE), G(TOP_LEFT), NONE, MIDDLE, WIN_W / 2 - POP_W,
		WIN_H / 2 - POP_H, POP_W, POP_H},
	{"Gravity", "gravity bottom right", AR, A(NONE), G(BOTTOM_RIGHT), NONE, MIDDLE, WIN_W / 2,
		WIN_H / 2, POP_W, POP_H},
	{"AnchorRect", "upper left anchor rect", 0, 0, WIN_W - 40, WIN_H - 30, A(NONE), G(NONE),
		NONE, MIDDLE, (WIN_W - 40 - POP_W) / 2, (WIN_H - 30 - POP_H) / 2, POP_W, POP_H},
	{"AnchorRect", "lower right anchor rect", 40, 30, WIN_W - 40, WIN_H - 30, A(NONE), G(NONE),
		NONE, MIDDLE, (WIN_W + 40 - POP_W) / 2, (WIN_H + 30 - POP_H) / 2, POP_W, POP_H},
	{"AnchorRect", "offset anchor rect", 20, 20, WIN_W - 80, WIN_H - 120, A(NONE), G(NONE),
		NONE, MIDDLE, (WIN_W - 40 - POP_W) / 2, (WIN_H - 80 - POP_H) / 2, POP_W, POP_H},
	{"ConstraintAdjustmentNone", "middle of screen", AR, A(TOP_LEFT), G(TOP_LEFT), NONE, MIDDLE,
		-POP_W, -POP_H, POP_W, POP_H},
	{"ConstraintAdjustmentNone", "off top left edge", AR, A(TOP_LEFT), G(TOP_LEFT), NONE,
		TOP_LEFT, -POP_W, -POP_H, POP_W, POP_H},
	{"ConstraintAdjustmentNone", "off bottom right edge", AR, A(BOTTOM_RIGHT), G(BOTTOM_RIGHT),
		NONE, BOTTOM_RIGHT, WIN_W, WIN_H, POP_W, POP_H},
	{"ConstraintAdjustmentSlide", "middle of screen", AR, A(TOP_LEFT), G(TOP_LEFT), SLIDE,
		MIDDLE, -POP_W, -POP_H, POP_W, POP_H},
	{"ConstraintAdjustmentSlide", "off top left edge", AR, A(TOP_LEFT), G(TOP_LEFT), SLIDE,
		TOP_LEFT, -5, -5, POP_W, POP_H},
	{"ConstraintAdjustmentSlide", "off bottom right edge", AR, A(BOTTOM_RIGHT), G(BOTTOM_RIGHT),
		SLIDE, BOTTOM_RIGHT, WIN_W - POP_W + 5, WIN_H - POP_H + 5, POP_W, POP_H},
	{"ConstraintAdjustmentFlip", "off top left edge", AR, A(TOP_LEFT), G(TOP_LEFT), FLIP,
		TOP_LEFT, WIN_W, WIN_H, POP_W, POP_H},
	{"ConstraintAdjustmentFlip", "off bottom right edge", AR, A(BOTTOM_RIGHT), G(BOTTOM_RIGHT),
		FLIP, BOTTOM_RIGHT, -POP_W, -POP_H, POP_W, POP_H},
	{"ConstraintAdjustmentResize", "off top left edge", AR, A(TOP_LEFT), G(TOP_LEFT), RESIZE,
		TOP_LEFT, -5, -5, 5, 5},
	{"ConstraintAdjustmentResize", "off bottom right edge", AR, A(BOTTOM_RIGHT),
		G(BOTTOM_RIGHT), RESIZE, BOTTOM_RIGHT, WIN_W, WIN_H, 5, 5},
};

static bool layer_parent;
static const struct placement *placement;

/* The parent: a toplevel or a layer surface of WIN_W x WIN_H, and where it is. */
static struct ct_surface *
make_parent(struct ct_client *c, enum parent_at at, int *x, int *y)
{
	*x = at == MIDDLE     ? (CT_PANEL_WIDTH - WIN_W) / 2
	     : at == TOP_LEFT ? 5
			      : CT_PANEL_WIDTH - WIN_W - 5;
	*y = at == MIDDLE     ? (CT_PANEL_HEIGHT - WIN_H) / 2
	     : at == TOP_LEFT ? 5
			      : CT_PANEL_HEIGHT - WIN_H - 5;
#ifdef VL_HAVE_LAYER_SHELL
	if (layer_parent) {
		uint32_t anchor = at == MIDDLE     ? 0
				  : at == TOP_LEFT ? ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP |
							     ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT
						   : ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM |
							     ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT;
		return ct_layer_surface(c, ZWLR_LAYER_SHELL_V1_LAYER_TOP, anchor,
			at == MIDDLE ? 0 : 5, WIN_W, WIN_H);
	}
#endif
	return ct_toplevel(c, *x, *y, WIN_W, WIN_H, 0, 0, 0, 0);
}

static struct xdg_positioner *
positioner(struct ct_client *c, int w, int h, int ax, int ay, int aw, int ah, uint32_t anchor,
	uint32_t gravity, uint32_t adjust)
{
	struct xdg_positioner *p = xdg_wm_base_create_positioner(c->wm_base);

	xdg_positioner_set_size(p, w, h);
	xdg_positioner_set_anchor_rect(p, ax, ay, aw, ah);
	xdg_positioner_set_anchor(p, anchor);
	xdg_positioner_set_gravity(p, gravity);
	xdg_positioner_set_constraint_adjustment(p, adjust);
	return p;
}

/* A popup of parent, grabbing or not, mapped at w x h. */
static struct ct_surface *
popup(struct ct_surface *parent, struct xdg_positioner *p, bool grab, int w, int h)
{
	struct ct_client *c = parent->client;
	struct ct_surface *s = ct_popup_create(
		c, parent->layer_surface || !parent->xdg_surface ? NULL : parent, p);

#ifdef VL_HAVE_LAYER_SHELL
	if (parent->layer_surface)
		zwlr_layer_surface_v1_get_popup(parent->layer_surface, s->popup);
#endif
	if (grab)
		xdg_popup_grab(s->popup, c->seat, c->serial);
	xdg_positioner_destroy(p);
	ct_check(ct_popup_map(s, w, h), "the popup is configured and mapped");
	return s;
}

static void
placed_correctly(struct ct_server *server)
{
	const struct placement *pl = placement;
	struct ct_client *c = ct_client_connect(server);
	int px, py;
	struct ct_surface *parent = make_parent(c, pl->at, &px, &py);
	struct ct_surface *s = popup(parent,
		positioner(c, POP_W, POP_H, pl->ax, pl->ay, pl->aw, pl->ah, pl->anchor, pl->gravity,
			pl->adjust),
		false, POP_W, POP_H);

	ct_check(s->popup_configured && s->popup_x == pl->x && s->popup_y == pl->y &&
			 s->popup_width == pl->w && s->popup_height == pl->h,
		"%s/%s: %s popup configured at %d,%d %dx%d (want %d,%d %dx%d)", pl->group, pl->name,
		layer_parent ? "layer surface's" : "toplevel's", s->popup_x, s->popup_y,
		s->popup_width, s->popup_height, pl->x, pl->y, pl->w, pl->h);
	/* the pointer there, one pixel in (more where the panel ends) */
	int x = px + pl->x, y = py + pl->y;
	int dx = x < 0 ? 1 - x : 1, dy = y < 0 ? 1 - y : 1;
	if (x >= 0 && y >= 0 && x + dx < CT_PANEL_WIDTH && y + dy < CT_PANEL_HEIGHT) {
		ct_pointer_move(server, x + dx, y + dy);
		ct_roundtrip(c);
		ct_check_at("the pointer finds the popup where it was configured", c->pointer_focus,
			c->pointer_x, c->pointer_y, s->surface, dx, dy);
	}
	ct_client_disconnect(c);
}

/* XdgPopupTest: a parent at the middle, the pointer pressed on it for a serial. */
struct scene {
	struct ct_client *c;
	struct ct_surface *parent;
	int x, y;
};

static struct scene
parent_scene(struct ct_server *server, bool click)
{
	struct scene sc = {.c = ct_client_connect(server)};

	sc.parent = make_parent(sc.c, MIDDLE, &sc.x, &sc.y);
	ct_pointer_move(server, sc.x + 2, sc.y + 2);
	if (click) {
		ct_pointer_button(server, true);
		ct_pointer_button(server, false);
	}
	ct_roundtrip(sc.c);
	return sc;
}

static struct ct_surface *
corner_popup(struct scene *sc, bool grab)
{
	return popup(sc->parent,
		positioner(sc->c, 30, 30, 0, 0, WIN_W, WIN_H, A(TOP_LEFT), G(BOTTOM_RIGHT), NONE),
		grab, 30, 30);
}

static void
pointer_focus_goes_to_popup(struct ct_server *server)
{
	struct scene sc = parent_scene(server, false);

	ct_check(sc.c->pointer_focus == sc.parent->surface, "the pointer is on the parent");
	struct ct_surface *s = corner_popup(&sc, false);
	ct_pointer_move(server, sc.x + 2, sc.y + 1);
	ct_roundtrip(sc.c);
	ct_check_at("the pointer goes to the popup", sc.c->pointer_focus, sc.c->pointer_x,
		sc.c->pointer_y, s->surface, 2, 1);
	ct_client_disconnect(sc.c);
}

static void
popup_gives_up_pointer_focus_when_gone(struct ct_server *server)
{
	struct scene sc = parent_scene(server, false);
	struct ct_surface *s = corner_popup(&sc, false);

	ct_pointer_move(server, sc.x + 2, sc.y + 1);
	ct_roundtrip(sc.c);
	ct_check(sc.c->pointer_focus == s->surface, "the pointer is on the popup");
	ct_surface_destroy(s);
	ct_roundtrip(sc.c);
	ct_pointer_move(server, sc.x + 3, sc.y + 1);
	ct_roundtrip(sc.c);
	ct_check_at("the popup gone, the pointer is on the parent again", sc.c->pointer_focus,
		sc.c->pointer_x, sc.c->pointer_y, sc.parent->surface, 3, 1);
	ct_client_disconnect(sc.c);
}

static void
grabbed_popup_gets_done_event_when_new_toplevel_created(struct ct_server *server)
{
	struct scene sc = parent_scene(server, true);
	struct ct_surface *s = corner_popup(&sc, true);

	ct_check(!s->popup_done, "the grabbed popup is not dismissed yet");
	struct ct_surface *dialog = ct_toplevel(sc.c, 100, 100, WIN_W, WIN_H, 0, 0, 0, 0);
	ct_roundtrip(sc.c);
	ct_check(s->popup_done, "a new toplevel dismisses the grabbed popup (popup_done)");
	/* (a layer surface that took the keyboard on demand keeps it over windows) */
	if (!layer_parent)
		ct_check(sc.c->keyboard_focus == dialog->surface,
			"the new toplevel has the keyboard");
	ct_client_disconnect(sc.c);
}

static void
grabbed_popups_get_done_events_in_correct_order(struct ct_server *server)
{
	struct ct_client *background = ct_client_connect(server);
	struct ct_surface *behind = ct_toplevel(background, (CT_PANEL_WIDTH - WIN_W) / 2 - 5,
		(CT_PANEL_HEIGHT - WIN_H) / 2 - 5, 10, 10, 0, 0, 0, 0);
	struct scene sc = parent_scene(server, true);
	struct ct_surface *top = popup(sc.parent,
		positioner(sc.c, 30, 30, 20, 20, 1, 1, A(TOP_LEFT), G(BOTTOM_RIGHT), NONE), true,
		30, 30);
	struct ct_surface *sub = popup(top,
		positioner(sc.c, 30, 30, 20, 20, 1, 1, A(TOP_LEFT), G(BOTTOM_RIGHT), NONE), true,
		30, 30);

	ct_pointer_move(server, sc.x - 2, sc.y - 2);
	ct_pointer_button(server, true);
	ct_pointer_button(server, false);
	ct_roundtrip(sc.c);
	ct_roundtrip(background);
	ct_check(sub->popup_done && top->popup_done && sub->popup_done < top->popup_done,
		"a click on another client's window dismisses both grabbed popups, the topmost "
		"first (sub %d, top %d)",
		sub->popup_done, top->popup_done);
	ct_check(
		background->pointer_focus == behind->surface, "the click's window has the pointer");
	ct_client_disconnect(sc.c);
	ct_client_disconnect(background);
}

static void
grabbed_popup_gets_keyboard_focus(struct ct_server *server)
{
	struct scene sc = parent_scene(server, true);
	struct ct_surface *s = corner_popup(&sc, true);

	ct_roundtrip(sc.c);
	/*
	 * xdg-shell: "the top most grabbing popup will always have keyboard
	 * focus". wlroots' popup grab ignores keyboard enters while it lasts
	 * and sends the keys to the client's focused surface, its parent; the
	 * popup itself is not entered.
	 */
	ct_check_todo(sc.c->keyboard_focus == s->surface,
		"vellum leaves the keyboard's focus on the parent; the grab sends it the keys",
		"a grabbed popup has the keyboard");
	ct_client_disconnect(sc.c);
}

static void
non_grabbed_popup_does_not_get_keyboard_focus(struct ct_server *server)
{
	/* a layer surface takes the keyboard on demand: when pressed */
	struct scene sc = parent_scene(server, layer_parent);
	struct ct_surface *s = corner_popup(&sc, false);

	ct_roundtrip(sc.c);
	ct_check(sc.c->keyboard_focus != s->surface, "a popup that did not grab has no keyboard");
	ct_check(sc.c->keyboard_focus == sc.parent->surface, "its parent keeps the keyboard");
	ct_client_disconnect(sc.c);
}

static void
does_not_get_popup_done_event_before_button_press(struct ct_server *server)
{
	struct scene sc = parent_scene(server, true);

	corner_popup(&sc, true);
	sc.c->popups_done = 0;
	sc.c->button_after_popup_done = false;
	uint32_t buttons = sc.c->buttons;
	ct_pointer_move(server, sc.x + 32, sc.y + 32);
	ct_pointer_button(server, true);
	ct_pointer_button(server, false);
	ct_roundtrip(sc.c);
	ct_check(!sc.c->button_after_popup_done,
		"no button event reaches the client after its popup was dismissed (%u buttons, "
		"%d dismissed)",
		sc.c->buttons - buttons, sc.c->popups_done);
	ct_client_disconnect(sc.c);
}

static void
popup_configure_is_valid(struct ct_server *server)
{
	struct scene sc = parent_scene(server, false);
	struct ct_surface *s = corner_popup(&sc, false);

	ct_check(s->popup_configured && s->popup_width > 0 && s->popup_height > 0,
		"the popup's configure has a size (%dx%d)", s->popup_width, s->popup_height);
	ct_client_disconnect(sc.c);
}

static void
popup_can_be_repositioned(struct ct_server *server)
{
	struct scene sc = parent_scene(server, false);
	struct ct_surface *s =
		popup(sc.parent, positioner(sc.c, POP_W, POP_H, AR, A(TOP_LEFT), G(TOP_LEFT), NONE),
			false, POP_W, POP_H);

	ct_check(!s->repositioned && s->popup_x == -POP_W && s->popup_y == -POP_H,
		"the popup is first at its first positioner's place");
	struct xdg_positioner *p =
		positioner(sc.c, POP_W, POP_H, AR, A(BOTTOM_RIGHT), G(BOTTOM_RIGHT), NONE);
	xdg_popup_reposition(s->popup, p, 1);
	xdg_positioner_destroy(p);
	ct_roundtrip(sc.c);
	ct_check(s->repositioned && s->repositioned_token == 1 && s->popup_x == WIN_W &&
			 s->popup_y == WIN_H,
		"reposition: repositioned(1) and a configure at %d,%d (want %d,%d)", s->popup_x,
		s->popup_y, WIN_W, WIN_H);
	wl_surface_commit(s->surface);
	ct_roundtrip(sc.c);
	ct_pointer_move(server, sc.x + WIN_W + 1, sc.y + WIN_H + 1);
	ct_roundtrip(sc.c);
	ct_check_at("the pointer finds the popup at its new place", sc.c->pointer_focus,
		sc.c->pointer_x, sc.c->pointer_y, s->surface, 1, 1);
	ct_client_disconnect(sc.c);
}

#ifdef VL_HAVE_LAYER_SHELL
/* Anchor/LayerSurfaceLayoutTest.simple_popup_positioned_correctly, for some anchors */
static uint32_t layer_anchor;

static void
layer_popup_positioned_correctly(struct ct_server *server)
{
	struct ct_client *c = ct_client_connect(server);
	int w = 300, h = 200;
	struct ct_surface *layer =
		ct_layer_surface(c, ZWLR_LAYER_SHELL_V1_LAYER_TOP, layer_anchor, 0, w, h);
	struct ct_surface *s = popup(layer,
		positioner(c, 30, 30, 5, 5, w - 10, h - 10, A(NONE), G(BOTTOM_RIGHT), NONE), false,
		30, 30);
	int lx = layer_anchor & ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT    ? 0
		 : layer_anchor & ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT ? CT_PANEL_WIDTH - w
								     : (CT_PANEL_WIDTH - w) / 2;
	int ly = layer_anchor & ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP      ? 0
		 : layer_anchor & ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM ? CT_PANEL_HEIGHT - h
								      : (CT_PANEL_HEIGHT - h) / 2;

	ct_check(s->popup_x == w / 2 && s->popup_y == h / 2,
		"anchor %u: the layer surface's popup at the centre of its anchor rect (%d,%d)",
		layer_anchor, s->popup_x, s->popup_y);
	ct_pointer_move(server, lx + w / 2 + 1, ly + h / 2 + 1);
	ct_roundtrip(c);
	ct_check_at("the pointer finds it there", c->pointer_focus, c->pointer_x, c->pointer_y,
		s->surface, 1, 1);
	ct_client_disconnect(c);
}
#endif

int
main(void)
{
	for (int layer = 0; layer < 2; layer++) {
#ifndef VL_HAVE_LAYER_SHELL
		if (layer)
			break;
#endif
		layer_parent = layer;
		printf("# parent: %s\n", layer ? "layer surface" : "xdg toplevel");
		for (size_t i = 0; i < sizeof(placements) / sizeof(placements[0]); i++) {
			placement = &placements[i];
			ct_run(layer ? "layer_shell_popup_placed_correctly"
				     : "xdg_shell_stable_popup_placed_correctly",
				placed_correctly);
		}
		ct_run("pointer_focus_goes_to_popup", pointer_focus_goes_to_popup);
		ct_run("popup_gives_up_pointer_focus_when_gone",
			popup_gives_up_pointer_focus_when_gone);
		ct_run("grabbed_popup_gets_done_event_when_new_toplevel_created",
			grabbed_popup_gets_done_event_when_new_toplevel_created);
		ct_run("grabbed_popups_get_done_events_in_correct_order",
			grabbed_popups_get_done_events_in_correct_order);
		ct_run("grabbed_popup_gets_keyboard_focus", grabbed_popup_gets_keyboard_focus);
		ct_run("non_grabbed_popup_does_not_get_keyboard_focus",
			non_grabbed_popup_does_not_get_keyboard_focus);
		ct_run("does_not_get_popup_done_event_before_button_press",
			does_not_get_popup_done_event_before_button_press);
		ct_run("popup_configure_is_valid", popup_configure_is_valid);
		ct_run("popup_can_be_repositioned", popup_can_be_repositioned);
	}
#ifdef VL_HAVE_LAYER_SHELL
	static const uint32_t anchors[] = {0,
		ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT,
		ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM | ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT,
		ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP};
	for (size_t i = 0; i < sizeof(anchors) / sizeof(anchors[0]); i++) {
		layer_anchor = anchors[i];
		ct_run("simple_popup_positioned_correctly", layer_popup_positioned_correctly);
	}
#endif
	return ct_finish();
}
