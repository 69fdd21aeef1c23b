#include "input_client.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void
handle_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	struct input_client *client = data;

	(void)version;
	if (!strcmp(interface, wl_seat_interface.name) && !client->seat)
		client->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	else if (!strcmp(interface, client->manager_interface->name))
		client->manager = wl_registry_bind(registry, name, client->manager_interface, 1);
}

static void
handle_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
	(void)data;
	(void)registry;
	(void)name;
}

static const struct wl_registry_listener registry_listener = {
	.global = handle_global,
	.global_remove = handle_global_remove,
};

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
	*client = (struct input_client){.program = program, .manager_interface = manager_interface};
	client->display = wl_display_connect(NULL);
	if (!client->display) {
		fprintf(stderr, "%s: cannot connect to the Wayland display\n", program);
		return false;
	}
	struct wl_registry *registry = wl_display_get_registry(client->display);
	wl_registry_add_listener(registry, &registry_listener, client);
	wl_display_roundtrip(client->display);
	if (!client->seat || !client->manager) {
		fprintf(stderr, "%s: the compositor offers no %s\n", program,
			client->seat ? manager_interface->name : "seat");
		return false;
	}
	return true;
}

bool
input_client_flush(struct input_client *client)
{
	if (wl_display_flush(client->display) >= 0)
		return true;
	fprintf(stderr, "%s: the connection broke: %s\n", client->program, strerror(errno));
	return false;
}

void
input_client_finish(struct input_client *client, struct wl_proxy *device, uint32_t destroy)
{
	wl_proxy_marshal_flags(device, destroy, NULL, 1, WL_MARSHAL_FLAG_DESTROY);
	wl_display_roundtrip(client->display);
	wl_display_disconnect(client->display);
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
