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
 *
 * The interfaces are declared here from the protocol's description
 * (requests and their signatures) rather than generated: the build has no
 * copy of the protocol's XML.
 */
#include <errno.h>
#include <getopt.h>
#include <linux/input-event-codes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>

/* request opcodes */
enum { VP_MANAGER_CREATE_VIRTUAL_POINTER = 0 };
enum { VP_MOTION_ABSOLUTE = 1, VP_BUTTON = 2, VP_FRAME = 4, VP_DESTROY = 8 };

/* motion_absolute's coordinates: fractions of the output in these units */
#define EXTENT             1000
#define MOTIONS_PER_STROKE 20

extern const struct wl_interface vp_pointer_interface;

static const struct wl_interface *vp_types[] = {
	NULL,
	NULL,
	NULL,
	NULL,
	NULL,
	&wl_seat_interface,
	&vp_pointer_interface,
};

static const struct wl_message vp_pointer_requests[] = {
	{"motion", "uff", vp_types},
	{"motion_absolute", "uuuuu", vp_types},
	{"button", "uuu", vp_types},
	{"axis", "uuf", vp_types},
	{"frame", "", vp_types},
	{"axis_source", "u", vp_types},
	{"axis_stop", "uu", vp_types},
	{"axis_discrete", "uufi", vp_types},
	{"destroy", "", vp_types},
};

const struct wl_interface vp_pointer_interface = {
	"zwlr_virtual_pointer_v1",
	1,
	9,
	vp_pointer_requests,
	0,
	NULL,
};

static const struct wl_message vp_manager_requests[] = {
	{"create_virtual_pointer", "?on", vp_types + 5},
};

static const struct wl_interface vp_manager_interface = {
	"zwlr_virtual_pointer_manager_v1",
	1,
	1,
	vp_manager_requests,
	0,
	NULL,
};

struct stroker {
	struct wl_display *display;
	struct wl_seat *seat;
	struct wl_proxy *manager;
	struct wl_proxy *pointer;
};

static void
handle_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	struct stroker *stroker = data;

	(void)version;
	if (!strcmp(interface, wl_seat_interface.name) && !stroker->seat)
		stroker->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	else if (!strcmp(interface, vp_manager_interface.name))
		stroker->manager = wl_registry_bind(registry, name, &vp_manager_interface, 1);
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

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
sleep_ms(unsigned int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Sends what was asked, as one pointer frame; false if the connection broke. */
static bool
send_frame(struct stroker *stroker)
{
	wl_proxy_marshal_flags(stroker->pointer, VP_FRAME, NULL, 1, 0);
	if (wl_display_flush(stroker->display) >= 0)
		return true;
	fprintf(stderr, "vp_stroker: the connection broke: %s\n", strerror(errno));
	return false;
}

static void
move_to(struct stroker *stroker, uint32_t time_ms, uint32_t x, uint32_t y)
{
	wl_proxy_marshal_flags(
		stroker->pointer, VP_MOTION_ABSOLUTE, NULL, 1, 0, time_ms, x, y, EXTENT, EXTENT);
}

static void
press(struct stroker *stroker, uint32_t time_ms, bool pressed)
{
	wl_proxy_marshal_flags(stroker->pointer, VP_BUTTON, NULL, 1, 0, time_ms, BTN_LEFT,
		pressed ? WL_POINTER_BUTTON_STATE_PRESSED : WL_POINTER_BUTTON_STATE_RELEASED);
}

static int
usage(FILE *out, int status)
{
	fprintf(out, "usage: vp_stroker [-n EVENTS] [-i INTERVAL_MS] [-w WAIT_MS]\n");
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
main(int argc, char *argv[])
{
	unsigned int events = 200, interval_ms = 20, wait_ms = 0;
	struct stroker stroker = {0};
	int opt;

	while ((opt = getopt(argc, argv, "n:i:w:h")) != -1) {
		unsigned int *value = opt == 'n' ? &events : opt == 'i' ? &interval_ms : &wait_ms;

		if (opt == 'h')
			return usage(stdout, 0);
		if (opt == '?' || !parse_count(optarg, value)) {
			if (opt != '?')
				fprintf(stderr, "vp_stroker: -%c: not a count: %s\n", opt, optarg);
			return usage(stderr, 2);
		}
	}
	if (optind != argc)
		return usage(stderr, 2);

	stroker.display = wl_display_connect(NULL);
	if (!stroker.display) {
		fprintf(stderr, "vp_stroker: cannot connect to the Wayland display\n");
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(stroker.display);
	wl_registry_add_listener(registry, &registry_listener, &stroker);
	wl_display_roundtrip(stroker.display);
	if (!stroker.seat || !stroker.manager) {
		fprintf(stderr, "vp_stroker: the compositor offers no %s\n",
			stroker.seat ? vp_manager_interface.name : "seat");
		return 1;
	}
	stroker.pointer = wl_proxy_marshal_flags(stroker.manager, VP_MANAGER_CREATE_VIRTUAL_POINTER,
		&vp_pointer_interface, 1, 0, stroker.seat, NULL);
	if (wl_display_roundtrip(stroker.display) < 0) {
		fprintf(stderr, "vp_stroker: the compositor refused the virtual pointer\n");
		return 1;
	}
	sleep_ms(wait_ms);

	/* rows 5% apart over the middle 60% of the output, then again from the top */
	for (unsigned int i = 0; i < events; i++) {
		unsigned int step = i % MOTIONS_PER_STROKE, stroke = i / MOTIONS_PER_STROKE;
		uint32_t y = 200 + (stroke % 13) * 50, x = 200 + step * 30;
		uint64_t sent_ns = now_ns();
		uint32_t time_ms = (uint32_t)(sent_ns / 1000000);

		if (step == 0) {
			move_to(&stroker, time_ms, x, y);
			press(&stroker, time_ms, true);
			if (!send_frame(&stroker))
				return 1;
			sleep_ms(interval_ms);
			sent_ns = now_ns();
			time_ms = (uint32_t)(sent_ns / 1000000);
		}
		move_to(&stroker, time_ms, x + 30, y);
		if (step == MOTIONS_PER_STROKE - 1)
			press(&stroker, time_ms, false);
		if (!send_frame(&stroker))
			return 1;
		printf("motion n=%u ns=%llu\n", i, (unsigned long long)sent_ns);
		fflush(stdout);
		sleep_ms(interval_ms);
	}
	wl_proxy_marshal_flags(stroker.pointer, VP_DESTROY, NULL, 1, WL_MARSHAL_FLAG_DESTROY);
	wl_display_roundtrip(stroker.display);
	wl_display_disconnect(stroker.display);
	return 0;
}
