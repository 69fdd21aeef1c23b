// SPDX-License-Identifier: MIT
/*
 * Keyboards: a device's takes the config's layout (xkb), a virtual
 * keyboard brings its own keymap; their keys and modifiers go to the
 * surface with keyboard focus (seat.c gives it), unless the preview window
 * takes them.
 */
#include <stdlib.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/util/log.h>
#include <xkbcommon/xkbcommon.h>

#include "preview.h"
#include "seat.h"
#include "server.h"

struct vl_keyboard {
	struct wl_list link;
	struct vl_seat *seat;
	struct wlr_keyboard *keyboard;
	/* a device's, which takes the config's keymap; a virtual keyboard brings its own */
	bool uses_config_keymap;
	struct wl_listener modifiers, key, destroy;
};

static struct xkb_keymap *
compile_keymap(const struct xkb_rule_names *names, enum xkb_context_flags flags)
{
	struct xkb_context *context = xkb_context_new(flags);
	struct xkb_keymap *keymap =
		context ? xkb_keymap_new_from_names(context, names, XKB_KEYMAP_COMPILE_NO_FLAGS)
			: NULL;

	xkb_context_unref(context);
	return keymap;
}

/*
 * The config's keymap, checked when the file was read; should XKB still
 * fail (its files changed, or XKB_DEFAULT_* names a layout it lacks), the
 * keyboard gets XKB's own default rather than no keymap: a kiosk must not
 * lose its keyboard.
 */
static void
apply_keymap(struct vl_seat *seat, struct wlr_keyboard *keyboard)
{
	const struct vl_config *config = &seat->server->config;
	const struct xkb_rule_names names = {
		.layout = config->keyboard_layout,
		.variant = config->keyboard_variant,
		.options = config->keyboard_options,
	};
	struct xkb_keymap *keymap = compile_keymap(&names, XKB_CONTEXT_NO_FLAGS);

	if (!keymap) {
		keymap = compile_keymap(
			&(struct xkb_rule_names){0}, XKB_CONTEXT_NO_ENVIRONMENT_NAMES);
		wlr_log(WLR_ERROR,
			"%s: XKB cannot compile the keymap of keyboard-layout \"%s\", "
			"keyboard-variant \"%s\", keyboard-options \"%s\" (XKB_DEFAULT_LAYOUT, "
			"_VARIANT and _OPTIONS fill in those not set): %s",
			keyboard->base.name ? keyboard->base.name : "a keyboard",
			names.layout ? names.layout : "", names.variant ? names.variant : "",
			names.options ? names.options : "",
			keymap ? "it has XKB's default keymap" : "it has none, XKB has no files");
	}
	if (keymap && !wlr_keyboard_set_keymap(keyboard, keymap))
		wlr_log(WLR_ERROR, "cannot give %s its keymap",
			keyboard->base.name ? keyboard->base.name : "a keyboard");
	xkb_keymap_unref(keymap);
}

static void
handle_modifiers(struct wl_listener *listener, void *data)
{
	struct vl_keyboard *keyboard = wl_container_of(listener, keyboard, modifiers);
	(void)data;

	wlr_seat_set_keyboard(keyboard->seat->seat, keyboard->keyboard);
	wlr_seat_keyboard_notify_modifiers(keyboard->seat->seat, &keyboard->keyboard->modifiers);
}

static void
handle_key(struct wl_listener *listener, void *data)
{
	struct vl_keyboard *keyboard = wl_container_of(listener, keyboard, key);
	struct wlr_keyboard_key_event *event = data;

	if (vl_preview_handle_key(keyboard->seat->server, keyboard->keyboard, event->keycode,
		    event->state == WL_KEYBOARD_KEY_STATE_PRESSED))
		return;
	vl_seat_notify_activity(keyboard->seat, VL_EPD_INPUT_KEY);
	wlr_seat_set_keyboard(keyboard->seat->seat, keyboard->keyboard);
	wlr_seat_keyboard_notify_key(
		keyboard->seat->seat, event->time_msec, event->keycode, event->state);
}

static void
handle_keyboard_destroy(struct wl_listener *listener, void *data)
{
	struct vl_keyboard *keyboard = wl_container_of(listener, keyboard, destroy);
	(void)data;

	wl_list_remove(&keyboard->modifiers.link);
	wl_list_remove(&keyboard->key.link);
	wl_list_remove(&keyboard->destroy.link);
	wl_list_remove(&keyboard->link);
	free(keyboard);
}

void
vl_seat_add_keyboard(
	struct vl_seat *seat, struct wlr_keyboard *wlr_keyboard, bool uses_config_keymap)
{
	struct vl_keyboard *keyboard = calloc(1, sizeof(*keyboard));

	if (!keyboard)
		return;
	if (uses_config_keymap)
		apply_keymap(seat, wlr_keyboard);
	wlr_keyboard_set_repeat_info(wlr_keyboard, 25, 600);
	keyboard->seat = seat;
	keyboard->keyboard = wlr_keyboard;
	keyboard->uses_config_keymap = uses_config_keymap;
	keyboard->modifiers.notify = handle_modifiers;
	wl_signal_add(&wlr_keyboard->events.modifiers, &keyboard->modifiers);
	keyboard->key.notify = handle_key;
	wl_signal_add(&wlr_keyboard->events.key, &keyboard->key);
	keyboard->destroy.notify = handle_keyboard_destroy;
	wl_signal_add(&wlr_keyboard->base.events.destroy, &keyboard->destroy);
	wl_list_insert(&seat->keyboards, &keyboard->link);
	wlr_seat_set_keyboard(seat->seat, wlr_keyboard);
}

void
vl_seat_apply_keymaps(struct vl_seat *seat)
{
	struct vl_keyboard *keyboard;

	wl_list_for_each (keyboard, &seat->keyboards, link)
		if (keyboard->uses_config_keymap)
			apply_keymap(seat, keyboard->keyboard);
}
