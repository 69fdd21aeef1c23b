/* SPDX-License-Identifier: MIT */
/*
 * wlcs' input methods: a pointer (moved there, its button pressed) and a
 * touch (down there), and which surface of a client each reaches, at what
 * point.
 */
#ifndef CT_INPUT_H
#define CT_INPUT_H

#include "harness.h"

enum ct_input { CT_POINTER, CT_TOUCH };

static inline const char *
ct_input_name(enum ct_input input)
{
	return input == CT_POINTER ? "pointer" : "touch";
}

static inline void
ct_input_down(struct ct_server *server, enum ct_input input, int x, int y)
{
	if (input == CT_POINTER) {
		ct_pointer_move(server, x, y);
		ct_pointer_button(server, true);
	} else {
		ct_touch_down(server, x, y);
	}
}

static inline void
ct_input_move(struct ct_server *server, enum ct_input input, int x, int y)
{
	if (input == CT_POINTER)
		ct_pointer_move(server, x, y);
	else
		ct_touch_move(server, x, y);
}

static inline void
ct_input_up(struct ct_server *server, enum ct_input input)
{
	if (input == CT_POINTER)
		ct_pointer_button(server, false);
	else
		ct_touch_up(server);
}

static inline struct wl_surface *
ct_input_surface(struct ct_client *c, enum ct_input input)
{
	return input == CT_POINTER ? c->pointer_focus : c->touch_focus;
}

static inline bool
ct_input_at(const char *what, struct ct_client *c, enum ct_input input, struct wl_surface *want,
	int x, int y)
{
	return input == CT_POINTER
		       ? ct_check_at(what, c->pointer_focus, c->pointer_x, c->pointer_y, want, x, y)
		       : ct_check_at(what, c->touch_focus, c->touch_x, c->touch_y, want, x, y);
}

#endif
