// SPDX-License-Identifier: MIT
/*
 * Draws strokes with the left button through the virtual pointer protocol
 * (zwlr_virtual_pointer_manager_v1), as a pen would, and prints the
 * CLOCK_MONOTONIC time each motion with the button held was sent, one line
 * an event:
 *
 *   motion n=N ns=T
 *
 *   vp_stroker [-n EVENTS] [-i INTERVAL_MS] [-w WAIT_MS]
 *
 * It waits WAIT_MS (default 0) before the first stroke, so that the client
 * to draw in can show its window. Strokes are horizontal, 20 motions long,
 * each on a row of its own, across the middle of the output; motions are
 * INTERVAL_MS apart (default 20).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <wayland-client.h>

#include "input_client.h"
#include "virtual_pointer.h"

#define MOTIONS_PER_STROKE 20

int
main(int argc, char *argv[])
{
	struct input_options options = {.count = 200, .interval_ms = 20};
	struct input_client client;
	int status = input_client_parse(argc, argv, "vp_stroker", &options);

	if (status >= 0)
		return status;
	if (!input_client_connect(&client, "vp_stroker", &vp_manager_interface))
		return 1;
	struct wl_proxy *pointer = vp_create(&client, "vp_stroker");
	if (!pointer)
		return 1;
	input_client_sleep_ms(options.wait_ms);

	/* rows 5% apart over the middle 60% of the output, then again from the top */
	for (unsigned int i = 0; i < options.count; i++) {
		unsigned int step = i % MOTIONS_PER_STROKE, stroke = i / MOTIONS_PER_STROKE;
		uint32_t y = 200 + (stroke % 13) * 50, x = 200 + step * 30;
		uint64_t sent_ns = input_client_now_ns();
		uint32_t time_ms = (uint32_t)(sent_ns / 1000000);

		if (step == 0) {
			vp_move_to(pointer, time_ms, x, y);
			vp_press(pointer, time_ms, true);
			if (!vp_send_frame(&client, pointer))
				return 1;
			input_client_sleep_ms(options.interval_ms);
			sent_ns = input_client_now_ns();
			time_ms = (uint32_t)(sent_ns / 1000000);
		}
		vp_move_to(pointer, time_ms, x + 30, y);
		if (step == MOTIONS_PER_STROKE - 1)
			vp_press(pointer, time_ms, false);
		if (!vp_send_frame(&client, pointer))
			return 1;
		printf("motion n=%u ns=%llu\n", i, (unsigned long long)sent_ns);
		fflush(stdout);
		input_client_sleep_ms(options.interval_ms);
	}
	input_client_finish(&client, pointer, VP_DESTROY);
	return 0;
}
