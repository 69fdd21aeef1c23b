// SPDX-License-Identifier: MIT
/*
 * The virtual pointer protocol (zwlr_virtual_pointer_manager_v1) for the
 * test clients that drive a compositor's pointer.
 */
#ifndef VT_VIRTUAL_POINTER_H
#define VT_VIRTUAL_POINTER_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-client.h>

#include "input_client.h"

/* request opcodes */
enum { VP_MANAGER_CREATE_VIRTUAL_POINTER = 0 };
enum { VP_MOTION_ABSOLUTE = 1, VP_BUTTON = 2, VP_FRAME = 4, VP_DESTROY = 8 };

/* motion_absolute's coordinates: fractions of the output in these units */
#define EXTENT 1000

extern const struct wl_interface vp_manager_interface;
extern const struct wl_interface vp_pointer_interface;

/*
 * A virtual pointer on client's seat, once the compositor took it; NULL,
 * with a message naming program, when it refused.
 */
struct wl_proxy *vp_create(struct input_client *client, const char *program);
/* To x, y of EXTENT each way. */
void vp_move_to(struct wl_proxy *pointer, uint32_t time_ms, uint32_t x, uint32_t y);
/* The left button. */
void vp_press(struct wl_proxy *pointer, uint32_t time_ms, bool pressed);
/* Sends what was asked, as one pointer frame; false if the connection broke. */
bool vp_send_frame(struct input_client *client, struct wl_proxy *pointer);

#endif
