/* SPDX-License-Identifier: MIT */
/*
 * What the clients that send input through a virtual device protocol
 * (vk_typist, vp_stroker) share: their command line, -n COUNT -i
 * INTERVAL_MS -w WAIT_MS; the tests' client connection (tests/vellum/
 * client.h) with the protocol's manager bound beside the seat; the clock
 * their events are stamped with.
 */
#ifndef VL_INPUT_CLIENT_H
#define VL_INPUT_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-client.h>

#include "client.h"

struct input_options {
	unsigned int count;       /* events to send */
	unsigned int interval_ms; /* between two events */
	unsigned int wait_ms;     /* before the first, for the client to show itself */
};

struct input_client {
	const char *program; /* for messages */
	struct vt_client vt;
	struct wl_proxy *manager;
};

/*
 * Reads -n, -i and -w into options (which holds the defaults) and -h.
 * Returns -1 to go on, or the status to exit with (usage printed).
 */
int input_client_parse(int argc, char **argv, const char *program, struct input_options *options);

/*
 * Connects to the Wayland display (exits with status 2 if it cannot) and
 * binds manager_interface (version 1); false, with a message on standard
 * error, if the compositor has no seat or no such manager.
 */
bool input_client_connect(struct input_client *client, const char *program,
	const struct wl_interface *manager_interface);

/* Sends what was asked; false, with a message, if the connection broke. */
bool input_client_flush(struct input_client *client);

/* Destroys the device with its destructor request, then disconnects. */
void input_client_finish(struct input_client *client, struct wl_proxy *device, uint32_t destroy);

/* CLOCK_MONOTONIC in ns, the clock of the memory panel's trace. */
uint64_t input_client_now_ns(void);

void input_client_sleep_ms(unsigned int ms);

#endif
