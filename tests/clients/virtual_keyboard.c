// SPDX-License-Identifier: MIT
/*
 * zwp_virtual_keyboard_manager_v1 for the test clients, declared from the
 * protocol's description (requests and their signatures) rather than
 * generated: the build has no copy of the protocol's XML. Keyboards get
 * the default XKB keymap, so that their key codes are evdev's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xkbcommon/xkbcommon.h>

#include "virtual_keyboard.h"

static const struct wl_interface *vk_types[] = {
	NULL,
	NULL,
	NULL,
	NULL,
	&wl_seat_interface,
	&vk_keyboard_interface,
};

static const struct wl_message vk_keyboard_requests[] = {
	{"keymap", "uhu", vk_types},
	{"key", "uuu", vk_types},
	{"modifiers", "uuuu", vk_types},
	{"destroy", "", vk_types},
};

const struct wl_interface vk_keyboard_interface = {
	"zwp_virtual_keyboard_v1",
	1,
	4,
	vk_keyboard_requests,
	0,
	NULL,
};

static const struct wl_message vk_manager_requests[] = {
	{"create_virtual_keyboard", "on", vk_types + 4},
};

const struct wl_interface vk_manager_interface = {
	"zwp_virtual_keyboard_manager_v1",
	1,
	1,
	vk_manager_requests,
	0,
	NULL,
};

/* The default XKB keymap in a sealed memory file: its fd, and its size in *size. */
static int
keymap_fd(uint32_t *size)
{
	struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	struct xkb_keymap *keymap =
		context ? xkb_keymap_new_from_names(context, NULL, XKB_KEYMAP_COMPILE_NO_FLAGS)
			: NULL;
	char *text = keymap ? xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1) : NULL;
	int fd = -1;

	if (text) {
		size_t len = strlen(text) + 1;

		fd = memfd_create("vk_typist-keymap", MFD_CLOEXEC);
		if (fd >= 0 && write(fd, text, len) != (ssize_t)len) {
			close(fd);
			fd = -1;
		}
		*size = (uint32_t)len;
	}
	free(text);
	xkb_keymap_unref(keymap);
	xkb_context_unref(context);
	return fd;
}

struct wl_proxy *
vk_create(struct input_client *client, const char *program)
{
	uint32_t keymap_size = 0;
	struct wl_proxy *keyboard =
		wl_proxy_marshal_flags(client->manager, VK_MANAGER_CREATE_VIRTUAL_KEYBOARD,
			&vk_keyboard_interface, 1, 0, client->vt.seat, NULL);
	int fd = keymap_fd(&keymap_size);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot make an XKB keymap\n", program);
		return NULL;
	}
	wl_proxy_marshal_flags(
		keyboard, VK_KEYMAP, NULL, 1, 0, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, keymap_size);
	close(fd);
	if (wl_display_roundtrip(client->vt.display) < 0) {
		fprintf(stderr, "%s: the compositor refused the virtual keyboard\n", program);
		return NULL;
	}
	return keyboard;
}

void
vk_key(struct wl_proxy *keyboard, uint32_t time_ms, uint32_t key, bool pressed)
{
	wl_proxy_marshal_flags(keyboard, VK_KEY, NULL, 1, 0, time_ms, key,
		pressed ? VK_KEY_PRESSED : VK_KEY_RELEASED);
}
