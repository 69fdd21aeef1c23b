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
 */
#include <linux/input-event-codes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <wayland-client.h>

#include "input_client.h"
#include "virtual_keyboard.h"

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
	int status = input_client_parse(argc, argv, "vk_typist", &options);

	if (status >= 0)
		return status;
	if (!input_client_connect(&client, "vk_typist", &vk_manager_interface))
		return 1;
	struct wl_proxy *keyboard = vk_create(&client, "vk_typist");
	if (!keyboard)
		return 1;
	input_client_sleep_ms(options.wait_ms);

	for (unsigned int i = 0; i < options.count; i++) {
		uint64_t sent_ns = input_client_now_ns();
		uint32_t time_ms = (uint32_t)(sent_ns / 1000000);

		vk_key(keyboard, time_ms, letter_key(i), true);
		vk_key(keyboard, time_ms, letter_key(i), false);
		if (!input_client_flush(&client))
			return 1;
		printf("key n=%u ns=%llu\n", i, (unsigned long long)sent_ns);
		fflush(stdout);
		input_client_sleep_ms(options.interval_ms);
	}
	input_client_finish(&client, keyboard, VK_DESTROY);
	return 0;
}
