// SPDX-License-Identifier: MIT
/*
 * The virtual keyboard protocol (zwp_virtual_keyboard_manager_v1) for the
 * test clients that type into a compositor.
 */
#ifndef VT_VIRTUAL_KEYBOARD_H
#define VT_VIRTUAL_KEYBOARD_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-client.h>

#include "input_client.h"

enum { VK_KEY_RELEASED = 0, VK_KEY_PRESSED = 1 };
/* request opcodes */
enum { VK_MANAGER_CREATE_VIRTUAL_KEYBOARD = 0 };
enum { VK_KEYMAP = 0, VK_KEY = 1, VK_MODIFIERS = 2, VK_DESTROY = 3 };

extern const struct wl_interface vk_manager_interface;
extern const struct wl_interface vk_keyboard_interface;

/*
 * A virtual keyboard on client's seat with the default XKB keymap; NULL,
 * with a message naming program on standard error, if the compositor
 * refuses it.
 */
struct wl_proxy *vk_create(struct input_client *client, const char *program);
/* key: an evdev code (KEY_*). */
void vk_key(struct wl_proxy *keyboard, uint32_t time_ms, uint32_t key, bool pressed);

#endif
