// SPDX-License-Identifier: MIT
/*
 * Presses a chord through the virtual keyboard protocol: each key down in
 * order, then up in the reverse order, the keys as evdev names them
 * without KEY_ (LEFTCTRL, LEFTALT, U, ...):
 *
 *   vk_chord KEY...
 *
 * The preview's test toggles its overlay (Ctrl+Alt+U) with it. A virtual
 * keyboard's keys change no modifiers by themselves: after each key the
 * modifiers it leaves (the default keymap's, as an XKB state has them)
 * are sent too, as a real keyboard's compositor would.
 */
#include <linux/input-event-codes.h>
#include <stdio.h>
#include <string.h>
#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>

#include "input_client.h"
#include "virtual_keyboard.h"

/* For the focused client to take the keys in before the keyboard goes. */
#define SETTLE_MS 300
#define CHORD_MAX 8

static const struct {
	const char *name;
	uint32_t code;
} keys[] = {
	{"LEFTCTRL", KEY_LEFTCTRL},
	{"LEFTALT", KEY_LEFTALT},
	{"LEFTSHIFT", KEY_LEFTSHIFT},
	{"U", KEY_U},
	{"Q", KEY_Q},
};

/* The key, and the modifiers it leaves, which go with it. */
static void
send_key(struct wl_proxy *keyboard, struct xkb_state *state, uint32_t time_ms, uint32_t code,
	bool pressed)
{
	vk_key(keyboard, time_ms, code, pressed);
	xkb_state_update_key(state, code + 8, pressed ? XKB_KEY_DOWN : XKB_KEY_UP);
	wl_proxy_marshal_flags(keyboard, VK_MODIFIERS, NULL, 1, 0,
		xkb_state_serialize_mods(state, XKB_STATE_MODS_DEPRESSED),
		xkb_state_serialize_mods(state, XKB_STATE_MODS_LATCHED),
		xkb_state_serialize_mods(state, XKB_STATE_MODS_LOCKED),
		xkb_state_serialize_layout(state, XKB_STATE_LAYOUT_EFFECTIVE));
}

static bool
key_code(const char *name, uint32_t *code)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strcmp(keys[i].name, name) == 0) {
			*code = keys[i].code;
			return true;
		}
	}
	return false;
}

int
main(int argc, char *argv[])
{
	uint32_t chord[CHORD_MAX];
	struct input_client client;
	int n = argc - 1;

	if (n < 1 || n > CHORD_MAX) {
		fprintf(stderr, "usage: vk_chord KEY... (LEFTCTRL, LEFTALT, LEFTSHIFT, U, Q)\n");
		return 2;
	}
	for (int i = 0; i < n; i++) {
		if (!key_code(argv[i + 1], &chord[i])) {
			fprintf(stderr, "vk_chord: unknown key %s\n", argv[i + 1]);
			return 2;
		}
	}
	if (!input_client_connect(&client, "vk_chord", &vk_manager_interface))
		return 1;
	struct wl_proxy *keyboard = vk_create(&client, "vk_chord");
	struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	struct xkb_keymap *keymap =
		context ? xkb_keymap_new_from_names(context, NULL, XKB_KEYMAP_COMPILE_NO_FLAGS)
			: NULL;
	struct xkb_state *state = keymap ? xkb_state_new(keymap) : NULL;
	if (!keyboard || !state) {
		fprintf(stderr, "vk_chord: no keyboard or no XKB state\n");
		return 1;
	}
	uint32_t time_ms = (uint32_t)(input_client_now_ns() / 1000000);
	for (int i = 0; i < n; i++)
		send_key(keyboard, state, time_ms, chord[i], true);
	for (int i = n; i-- > 0;)
		send_key(keyboard, state, time_ms + 1, chord[i], false);
	if (!input_client_flush(&client))
		return 1;
	input_client_sleep_ms(SETTLE_MS);
	input_client_finish(&client, keyboard, VK_DESTROY);
	xkb_state_unref(state);
	xkb_keymap_unref(keymap);
	xkb_context_unref(context);
	return 0;
}
