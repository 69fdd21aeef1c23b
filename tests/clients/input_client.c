// SPDX-License-Identifier: MIT
#include "input_client.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int
usage(FILE *out, const char *program, int status)
{
	fprintf(out, "usage: %s [-n COUNT] [-i INTERVAL_MS] [-w WAIT_MS]\n", program);
	return status;
}

static bool
parse_count(const char *text, unsigned int *value)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(text, &end, 10);
	if (errno || end == text || *end || n > 1000000)
		return false;
	*value = (unsigned int)n;
	return true;
}

int
input_client_parse(int argc, char **argv, const char *program, struct input_options *options)
{
	int opt;

	while ((opt = getopt(argc, argv, "n:i:w:h")) != -1) {
		unsigned int *value = opt == 'n'   ? &options->count
				      : opt == 'i' ? &options->interval_ms
						   : &options->wait_ms;

		if (opt == 'h')
			return usage(stdout, program, 0);
		if (opt == '?' || !parse_count(optarg, value)) {
			if (opt != '?')
				fprintf(stderr, "%s: -%c: not a count: %s\n", program, opt, optarg);
			return usage(stderr, program, 2);
		}
	}
	if (optind != argc)
		return usage(stderr, program, 2);
	return -1;
}

bool
input_client_connect(struct input_client *client, const char *program,
	const struct wl_interface *manager_interface)
{
	client->program = program;
	vt_client_connect(&client->vt);
	client->manager = vt_client_bind(&client->vt, manager_interface, 1);
	if (!client->vt.seat || !client->manager) {
		fprintf(stderr, "%s: the compositor offers no %s\n", program,
			client->vt.seat ? manager_interface->name : "seat");
		return false;
	}
	return true;
}

bool
input_client_flush(struct input_client *client)
{
	if (wl_display_flush(client->vt.display) >= 0)
		return true;
	fprintf(stderr, "%s: the connection broke: %s\n", client->program, strerror(errno));
	return false;
}

void
input_client_finish(struct input_client *client, struct wl_proxy *device, uint32_t destroy)
{
	wl_proxy_marshal_flags(device, destroy, NULL, 1, WL_MARSHAL_FLAG_DESTROY);
	wl_display_roundtrip(client->vt.display);
	wl_proxy_destroy(client->manager);
	vt_client_disconnect(&client->vt);
}

uint64_t
input_client_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void
input_client_sleep_ms(unsigned int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}
