// SPDX-License-Identifier: MIT
/*
 * Clicks of the left button through the virtual pointer protocol, one at
 * each point of the output given, in order, in per mille of its width and
 * height:
 *
 *   vp_clicker X Y [X Y ...] [READY_FILE]
 *
 * With READY_FILE it clicks once a line of that file starts with "ready", as touch_probe
 * prints when its window shows; the virtual pointer is there from the start, and "pointer" on
 * standard output says so, so that the clients started after that line find a pointer on their
 * seat. The preview's test clicks in the preview window through its parent compositor with it.
 * A client learns of a new pointer only when the seat says it has one: the pointer goes a while
 * after the click, or its events would reach no client.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>

#include "input_client.h"
#include "virtual_pointer.h"

/* For the clients to bind the seat's new pointer, and to take the click in. */
#define SETTLE_MS 500
/* How long READY_FILE may take to say ready. */
#define READY_TIMEOUT_MS 60000

static bool
says_ready(const char *path)
{
	char line[256];
	bool ready = false;
	FILE *f = fopen(path, "r");

	while (f && !ready && fgets(line, sizeof(line), f))
		ready = strncmp(line, "ready", 5) == 0;
	if (f)
		fclose(f);
	return ready;
}

/* A per-mille coordinate: digits only, at most EXTENT. */
static bool
parse_point(const char *text, uint32_t *value)
{
	char *end;
	unsigned long number = strtoul(text, &end, 10);

	if (end == text || *end || text[0] == '-' || number > EXTENT)
		return false;
	*value = (uint32_t)number;
	return true;
}

/* Moves to a point (from beside it first) and clicks there. */
static bool
click(struct input_client *client, struct wl_proxy *pointer, uint32_t x, uint32_t y)
{
	/*
	 * The pointer enters the window with the first motion, and a client
	 * such as wlroots' Wayland backend moves its cursor with the next.
	 */
	uint32_t time_ms = (uint32_t)(input_client_now_ns() / 1000000);
	vp_move_to(pointer, time_ms, x < EXTENT ? x + 1 : x - 1, y);
	if (!vp_send_frame(client, pointer))
		return false;
	input_client_sleep_ms(SETTLE_MS / 5);
	time_ms = (uint32_t)(input_client_now_ns() / 1000000);
	vp_move_to(pointer, time_ms, x, y);
	if (!vp_send_frame(client, pointer))
		return false;
	vp_press(pointer, time_ms, true);
	if (!vp_send_frame(client, pointer))
		return false;
	vp_press(pointer, time_ms + 1, false);
	return vp_send_frame(client, pointer);
}

int
main(int argc, char *argv[])
{
	struct input_client client;
	/* an odd count of arguments ends with READY_FILE */
	const char *ready_file = argc % 2 == 0 ? argv[argc - 1] : NULL;
	int coordinates = ready_file ? argc - 2 : argc - 1;
	uint32_t points[32][2];
	int n_points = coordinates / 2;
	bool usage = n_points == 0 || n_points > 32;

	for (int i = 0; !usage && i < n_points; i++)
		usage = !parse_point(argv[1 + 2 * i], &points[i][0]) ||
			!parse_point(argv[2 + 2 * i], &points[i][1]);
	if (usage) {
		fprintf(stderr,
			"usage: vp_clicker X Y [X Y ...] [READY_FILE] (per mille of the output, 0 "
			"to %d, up to 32 points)\n",
			EXTENT);
		return 2;
	}
	if (!input_client_connect(&client, "vp_clicker", &vp_manager_interface))
		return 1;
	struct wl_proxy *pointer = vp_create(&client, "vp_clicker");
	if (!pointer)
		return 1;
	/* the compositor has the pointer now: clients started after this find it */
	printf("pointer\n");
	fflush(stdout);
	for (unsigned int waited = 0; ready_file && !says_ready(ready_file); waited += 50) {
		if (waited >= READY_TIMEOUT_MS) {
			fprintf(stderr, "vp_clicker: %s never said ready\n", ready_file);
			return 1;
		}
		wl_display_flush(client.vt.display);
		input_client_sleep_ms(50);
	}
	input_client_sleep_ms(SETTLE_MS);
	for (int i = 0; i < n_points; i++)
		if (!click(&client, pointer, points[i][0], points[i][1]))
			return 1;
	input_client_sleep_ms(SETTLE_MS);
	input_client_finish(&client, pointer, VP_DESTROY);
	return 0;
}
