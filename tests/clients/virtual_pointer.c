// SPDX-License-Identifier: MIT
/*
 * zwlr_virtual_pointer_manager_v1 for the test clients, declared from the
 * protocol's description (requests and their signatures) rather than
 * generated: the build has no copy of the protocol's XML.
 */
#include <linux/input-event-codes.h>
#include <stdio.h>

#include "virtual_pointer.h"

static const struct wl_interface *vp_types[] = {
	NULL,
	NULL,
	NULL,
	NULL,
	NULL,
	&wl_seat_interface,
	&vp_pointer_interface,
};

static const struct wl_message vp_pointer_requests[] = {
	{"motion", "uff", vp_types},
	{"motion_absolute", "uuuuu", vp_types},
	{"button", "uuu", vp_types},
	{"axis", "uuf", vp_types},
	{"frame", "", vp_types},
	{"axis_source", "u", vp_types},
	{"axis_stop", "uu", vp_types},
	{"axis_discrete", "uufi", vp_types},
	{"destroy", "", vp_types},
};

const struct wl_interface vp_pointer_interface = {
	"zwlr_virtual_pointer_v1",
	1,
	9,
	vp_pointer_requests,
	0,
	NULL,
};

static const struct wl_message vp_manager_requests[] = {
	{"create_virtual_pointer", "?on", vp_types + 5},
};

const struct wl_interface vp_manager_interface = {
	"zwlr_virtual_pointer_manager_v1",
	1,
	1,
	vp_manager_requests,
	0,
	NULL,
};

struct wl_proxy *
vp_create(struct input_client *client, const char *program)
{
	struct wl_proxy *pointer =
		wl_proxy_marshal_flags(client->manager, VP_MANAGER_CREATE_VIRTUAL_POINTER,
			&vp_pointer_interface, 1, 0, client->vt.seat, NULL);

	if (wl_display_roundtrip(client->vt.display) < 0) {
		fprintf(stderr, "%s: the compositor refused the virtual pointer\n", program);
		return NULL;
	}
	return pointer;
}

void
vp_move_to(struct wl_proxy *pointer, uint32_t time_ms, uint32_t x, uint32_t y)
{
	wl_proxy_marshal_flags(
		pointer, VP_MOTION_ABSOLUTE, NULL, 1, 0, time_ms, x, y, EXTENT, EXTENT);
}

void
vp_press(struct wl_proxy *pointer, uint32_t time_ms, bool pressed)
{
	wl_proxy_marshal_flags(pointer, VP_BUTTON, NULL, 1, 0, time_ms, BTN_LEFT,
		pressed ? WL_POINTER_BUTTON_STATE_PRESSED : WL_POINTER_BUTTON_STATE_RELEASED);
}

bool
vp_send_frame(struct input_client *client, struct wl_proxy *pointer)
{
	wl_proxy_marshal_flags(pointer, VP_FRAME, NULL, 1, 0);
	return input_client_flush(client);
}
