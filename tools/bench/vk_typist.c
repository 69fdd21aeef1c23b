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
#include <errno.h>
#include <getopt.h>
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

struct typist {
	struct wl_seat *seat;
	struct wl_proxy *manager;
};

static void
handle_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	struct typist *typist = data;

	(void)version;
	if (!strcmp(interface, wl_seat_interface.name) && !typist->seat)
		typist->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	else if (!strcmp(interface, vk_manager_interface.name))
		typist->manager = wl_registry_bind(registry, name, &vk_manager_interface, 1);
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

static int
usage(FILE *out, int status)
{
	fprintf(out, "usage: vk_typist [-n KEYS] [-i INTERVAL_MS] [-w WAIT_MS]\n");
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
	unsigned int keys = 200, interval_ms = 100, wait_ms = 0;
	struct typist typist = {0};
	uint32_t keymap_size = 0;
	int opt;

	while ((opt = getopt(argc, argv, "n:i:w:h")) != -1) {
		unsigned int *value = opt == 'n' ? &keys : opt == 'i' ? &interval_ms : &wait_ms;

		if (opt == 'h')
			return usage(stdout, 0);
		if (opt == '?' || !parse_count(optarg, value)) {
			if (opt != '?')
				fprintf(stderr, "vk_typist: -%c: not a count: %s\n", opt, optarg);
			return usage(stderr, 2);
		}
	}
	if (optind != argc)
		return usage(stderr, 2);

	struct wl_display *display = wl_display_connect(NULL);
	if (!display) {
		fprintf(stderr, "vk_typist: cannot connect to the Wayland display\n");
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, &typist);
	wl_display_roundtrip(display);
	if (!typist.seat || !typist.manager) {
		fprintf(stderr, "vk_typist: the compositor offers no %s\n",
			typist.seat ? vk_manager_interface.name : "seat");
		return 1;
	}
	struct wl_proxy *keyboard =
		wl_proxy_marshal_flags(typist.manager, VK_MANAGER_CREATE_VIRTUAL_KEYBOARD,
			&vk_keyboard_interface, 1, 0, typist.seat, NULL);
	int fd = keymap_fd(&keymap_size);
	if (fd < 0) {
		fprintf(stderr, "vk_typist: cannot make an XKB keymap\n");
		return 1;
	}
	wl_proxy_marshal_flags(
		keyboard, VK_KEYMAP, NULL, 1, 0, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, keymap_size);
	close(fd);
	if (wl_display_roundtrip(display) < 0) {
		fprintf(stderr, "vk_typist: the compositor refused the virtual keyboard\n");
		return 1;
	}
	sleep_ms(wait_ms);

	for (unsigned int i = 0; i < keys; i++) {
		uint64_t sent_ns = now_ns();
		uint32_t time_ms = (uint32_t)(sent_ns / 1000000);

		wl_proxy_marshal_flags(
			keyboard, VK_KEY, NULL, 1, 0, time_ms, letter_key(i), VK_KEY_PRESSED);
		wl_proxy_marshal_flags(
			keyboard, VK_KEY, NULL, 1, 0, time_ms, letter_key(i), VK_KEY_RELEASED);
		if (wl_display_flush(display) < 0) {
			fprintf(stderr, "vk_typist: the connection broke: %s\n", strerror(errno));
			return 1;
		}
		printf("key n=%u ns=%llu\n", i, (unsigned long long)sent_ns);
		fflush(stdout);
		sleep_ms(interval_ms);
	}
	wl_proxy_marshal_flags(keyboard, VK_DESTROY, NULL, 1, WL_MARSHAL_FLAG_DESTROY);
	wl_display_roundtrip(display);
	wl_display_disconnect(display);
	return 0;
}
