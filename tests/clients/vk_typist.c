// SPDX-License-Identifier: MIT
/*
 * Types into the focused client through the virtual keyboard protocol
 * (zwp_virtual_keyboard_manager_v1) at a steady pace, and prints the
 * CLOCK_MONOTONIC time each key press was sent, one line a key:
 *
 *   key n=N ns=T
 *
 *   vk_typist [-n KEYS] [-i INTERVAL_MS] [-w WAIT_MS]
 *
 * It waits WAIT_MS (default 0) before the first key, so that the client to
 * type into can show its window; keys are the letters a to z over and over,
 * INTERVAL_MS apart (default 100).
 *
 * The two interfaces are declared here from the protocol's description
 * (requests and their signatures) rather than generated: the build has no
 * copy of the protocol's XML.
 */
#include <linux/input-event-codes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>

#include "input_client.h"

enum { VK_KEY_RELEASED = 0, VK_KEY_PRESSED = 1 };
/* request opcodes */
enum { VK_MANAGER_CREATE_VIRTUAL_KEYBOARD = 0 };
enum { VK_KEYMAP = 0, VK_KEY = 1, VK_MODIFIERS = 2, VK_DESTROY = 3 };

extern const struct wl_interface vk_keyboard_interface;

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

static const struct wl_interface vk_manager_interface = {
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

static uint32_t
letter_key(unsigned int i)
{
	static const uint32_t keys[26] = {KEY_A, KEY_B, KEY_C, KEY_D, KEY_E, KEY_F, KEY_G, KEY_H,
		KEY_I, KEY_J, KEY_K, KEY_L, KEY_M, KEY_N, KEY_O, KEY_P, KEY_Q, KEY_R, KEY_S, KEY_T,
		KEY_U, KEY_V, KEY_W, KEY_X, KEY_Y, KEY_Z};

	return keys[i % 26];
}

int
main(int argc, char *argv[])
{
	struct input_options options = {.count = 200, .interval_ms = 100};
	struct input_client client;
	uint32_t keymap_size = 0;
	int status = input_client_parse(argc, argv, "vk_typist", &options);

	if (status >= 0)
		return status;
	if (!input_client_connect(&client, "vk_typist", &vk_manager_interface))
		return 1;
	struct wl_proxy *keyboard =
		wl_proxy_marshal_flags(client.manager, VK_MANAGER_CREATE_VIRTUAL_KEYBOARD,
			&vk_keyboard_interface, 1, 0, client.vt.seat, NULL);
	int fd = keymap_fd(&keymap_size);
	if (fd < 0) {
		fprintf(stderr, "vk_typist: cannot make an XKB keymap\n");
		return 1;
	}
	wl_proxy_marshal_flags(
		keyboard, VK_KEYMAP, NULL, 1, 0, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, keymap_size);
	close(fd);
	if (wl_display_roundtrip(client.vt.display) < 0) {
		fprintf(stderr, "vk_typist: the compositor refused the virtual keyboard\n");
		return 1;
	}
	input_client_sleep_ms(options.wait_ms);

	for (unsigned int i = 0; i < options.count; i++) {
		uint64_t sent_ns = input_client_now_ns();
		uint32_t time_ms = (uint32_t)(sent_ns / 1000000);

		wl_proxy_marshal_flags(
			keyboard, VK_KEY, NULL, 1, 0, time_ms, letter_key(i), VK_KEY_PRESSED);
		wl_proxy_marshal_flags(
			keyboard, VK_KEY, NULL, 1, 0, time_ms, letter_key(i), VK_KEY_RELEASED);
		if (!input_client_flush(&client))
			return 1;
		printf("key n=%u ns=%llu\n", i, (unsigned long long)sent_ns);
		fflush(stdout);
		input_client_sleep_ms(options.interval_ms);
	}
	input_client_finish(&client, keyboard, VK_DESTROY);
	return 0;
}
