// SPDX-License-Identifier: MIT
/*
 * The protocol fuzzer: random but well-formed request sequences of
 * wl_surface, xdg-shell and epaper-refresh-v1 against vellum on the memory
 * panel. Each session is a new connection making up to 300 random
 * requests on a few surfaces, xdg surfaces, toplevels, refresh objects,
 * feedbacks, frame callbacks and shm buffers: attaching, damaging (out of
 * range too), committing, setting modes, asking for full refreshes and
 * feedback, acking configures, and destroying any of them in any order
 * (a surface before its role or its refresh object, a buffer while
 * attached, the manager before what it made). Now and then an argument is
 * out of its enum or range, so that the session ends with a protocol error.
 * After every session vellum must still serve a new client; it must never
 * crash or assert (the ASan build ends it at its first report) and it ends
 * at SIGTERM as always. Set EPD_SEED to repeat a run.
 *
 * vellum's output then has a few "pixman_region32_union_rect: Invalid
 * rectangle passed" reports: damage whose x + width passes INT32_MAX, which
 * wlroots hands to pixman as it came and pixman drops. Without INT32_MAX
 * among the coordinates there are none.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>

#include "client.h"
#include "epaper-refresh-v1-client-protocol.h"
#include "epd_test.h"
#include "vellum_run.h"

#define RUN_MS          20000
#define REQUESTS        300
#define POOL            6
#define PANEL           "memory:320x240"
#define PROTOCOL_ERRORS 32 /* kinds of protocol errors counted apart */

struct session {
	struct vt_client c;
	struct xx_epaper_refresh_manager_v1 *manager;
	struct wl_surface *surfaces[POOL];
	struct xdg_surface *xdg_surfaces[POOL];
	struct xdg_toplevel *toplevels[POOL];
	struct xx_epaper_surface_refresh_v1 *refreshes[POOL];
	struct xx_epaper_refresh_feedback_v1 *feedbacks[POOL];
	struct vt_buffer *buffers[POOL];
	struct wl_callback *frames[POOL];
	uint32_t last_serial;
};

struct error_kind {
	char interface[64];
	uint32_t code;
	unsigned long count;
};

static struct vellum_run run;
static struct error_kind errors[PROTOCOL_ERRORS];
static unsigned long sessions, requests;

static void
handle_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct session *s = data;
	(void)xdg_surface;

	/* Acked or not, later or never: the script decides. */
	s->last_serial = serial;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = handle_configure,
};

static void
handle_done(void *data, struct wl_callback *callback, uint32_t time)
{
	struct wl_callback **slot = data;
	(void)time;

	wl_callback_destroy(callback);
	*slot = NULL;
}

static const struct wl_callback_listener frame_listener = {.done = handle_done};

/* Feedback objects are inert after their one event; the script destroys them. */
static void
handle_refreshed(void *data, struct xx_epaper_refresh_feedback_v1 *feedback, uint32_t tv_sec_hi,
	uint32_t tv_sec_lo, uint32_t tv_nsec, const char *waveform, uint32_t flags)
{
	(void)data;
	(void)feedback;
	(void)tv_sec_hi;
	(void)tv_sec_lo;
	(void)tv_nsec;
	(void)waveform;
	(void)flags;
}

static void
handle_discarded(void *data, struct xx_epaper_refresh_feedback_v1 *feedback)
{
	(void)data;
	(void)feedback;
}

static const struct xx_epaper_refresh_feedback_v1_listener feedback_listener = {
	.refreshed = handle_refreshed,
	.discarded = handle_discarded,
};

/* A slot of pool: a random one, filled or empty. */
static size_t
slot(void)
{
	return epd_rand_below(POOL);
}

/* Mostly valid, sometimes one past the last value of its enum: a protocol error. */
static uint32_t
enum_value(uint32_t n)
{
	return epd_rand_below(40) ? epd_rand_below(n) : n + epd_rand_below(3);
}

static int32_t
coordinate(void)
{
	static const int32_t extremes[] = {INT32_MIN, -1, 0, 319, 320, 100000, INT32_MAX};

	if (epd_rand_below(8) == 0)
		return extremes[epd_rand_below(sizeof(extremes) / sizeof(*extremes))];
	return (int32_t)epd_rand_below(360) - 20;
}

static void
random_request(struct session *s)
{
	size_t i = slot(), j = slot();

	switch (epd_rand_below(24)) {
	case 0:
		if (!s->surfaces[i])
			s->surfaces[i] = wl_compositor_create_surface(s->c.compositor);
		break;
	case 1:
		if (s->surfaces[i]) {
			wl_surface_destroy(s->surfaces[i]);
			s->surfaces[i] = NULL;
		}
		break;
	case 2:
		if (s->surfaces[i] && !s->xdg_surfaces[j]) {
			s->xdg_surfaces[j] =
				xdg_wm_base_get_xdg_surface(s->c.wm_base, s->surfaces[i]);
			xdg_surface_add_listener(s->xdg_surfaces[j], &xdg_surface_listener, s);
		}
		break;
	case 3:
		if (s->xdg_surfaces[i]) {
			xdg_surface_destroy(s->xdg_surfaces[i]);
			s->xdg_surfaces[i] = NULL;
		}
		break;
	case 4:
		if (s->xdg_surfaces[i] && !s->toplevels[j])
			s->toplevels[j] = xdg_surface_get_toplevel(s->xdg_surfaces[i]);
		break;
	case 5:
		if (s->toplevels[i]) {
			xdg_toplevel_destroy(s->toplevels[i]);
			s->toplevels[i] = NULL;
		}
		break;
	case 6:
		if (s->toplevels[i]) {
			xdg_toplevel_set_app_id(
				s->toplevels[i], epd_rand_below(2) ? "foot" : "fuzz");
			xdg_toplevel_set_title(s->toplevels[i], "fuzz");
			if (epd_rand_below(2))
				xdg_toplevel_set_fullscreen(s->toplevels[i], NULL);
			else
				xdg_toplevel_set_maximized(s->toplevels[i]);
		}
		break;
	case 7:
		if (s->xdg_surfaces[i])
			xdg_surface_ack_configure(s->xdg_surfaces[i],
				epd_rand_below(8) ? s->last_serial : (uint32_t)epd_rand());
		break;
	case 8:
		if (s->surfaces[i])
			wl_surface_attach(s->surfaces[i],
				s->buffers[j] && epd_rand_below(4) ? s->buffers[j]->buffer : NULL,
				0, 0);
		break;
	case 9:
		if (s->surfaces[i]) {
			if (epd_rand_below(2))
				wl_surface_damage(s->surfaces[i], coordinate(), coordinate(),
					coordinate(), coordinate());
			else
				wl_surface_damage_buffer(s->surfaces[i], coordinate(), coordinate(),
					coordinate(), coordinate());
		}
		break;
	case 10:
	case 11:
		if (s->surfaces[i])
			wl_surface_commit(s->surfaces[i]);
		break;
	case 12:
		if (s->surfaces[i] && !s->frames[j]) {
			s->frames[j] = wl_surface_frame(s->surfaces[i]);
			wl_callback_add_listener(s->frames[j], &frame_listener, &s->frames[j]);
		}
		break;
	case 13:
		if (s->surfaces[i]) {
			if (epd_rand_below(2))
				wl_surface_set_buffer_scale(s->surfaces[i],
					epd_rand_below(40) ? 1 + (int32_t)epd_rand_below(3) : 0);
			else
				wl_surface_set_buffer_transform(
					s->surfaces[i], (int32_t)enum_value(8));
		}
		break;
	case 14:
		if (s->manager && s->surfaces[i] && !s->refreshes[j])
			s->refreshes[j] = xx_epaper_refresh_manager_v1_get_surface_refresh(
				s->manager, s->surfaces[i]);
		break;
	case 15:
		if (s->refreshes[i]) {
			xx_epaper_surface_refresh_v1_destroy(s->refreshes[i]);
			s->refreshes[i] = NULL;
		}
		break;
	case 16:
		if (s->refreshes[i]) {
			if (epd_rand_below(2))
				xx_epaper_surface_refresh_v1_set_mode(
					s->refreshes[i], enum_value(5));
			else
				xx_epaper_surface_refresh_v1_set_dither(
					s->refreshes[i], enum_value(3));
		}
		break;
	case 17:
		if (s->refreshes[i])
			xx_epaper_surface_refresh_v1_request_full_refresh(s->refreshes[i]);
		break;
	case 18:
		if (s->refreshes[i] && !s->feedbacks[j]) {
			s->feedbacks[j] =
				xx_epaper_surface_refresh_v1_get_feedback(s->refreshes[i]);
			xx_epaper_refresh_feedback_v1_add_listener(
				s->feedbacks[j], &feedback_listener, NULL);
		}
		break;
	case 19:
		if (s->feedbacks[i]) {
			xx_epaper_refresh_feedback_v1_destroy(s->feedbacks[i]);
			s->feedbacks[i] = NULL;
		}
		break;
	case 20:
		if (!s->buffers[i]) {
			s->c.width = 1 + (int32_t)epd_rand_below(400);
			s->c.height = 1 + (int32_t)epd_rand_below(300);
			s->buffers[i] =
				vt_buffer_create(&s->c, epd_rand_below(2) ? VT_WHITE : VT_BLACK);
			vt_buffer_fill(s->buffers[i], 0, 0, (int32_t)epd_rand_below(100),
				(int32_t)epd_rand_below(100), (uint32_t)epd_rand() | 0xff000000u);
		}
		break;
	case 21:
		/* attached or not */
		if (s->buffers[i]) {
			vt_buffer_destroy(s->buffers[i]);
			s->buffers[i] = NULL;
		}
		break;
	case 22:
		if (s->manager && epd_rand_below(8) == 0) {
			/* what it made lives on */
			xx_epaper_refresh_manager_v1_destroy(s->manager);
			s->manager = NULL;
		}
		break;
	default:
		wl_display_roundtrip(s->c.display);
		break;
	}
}

/* Frees a proxy on the client's side only: nothing is sent. */
static void
forget(void *proxy)
{
	if (proxy)
		wl_proxy_destroy(proxy);
}

/* The client's proxies that vt_client made, before disconnecting. */
static void
forget_client(struct vt_client *c)
{
	forget(c->toplevel);
	forget(c->xdg_surface);
	forget(c->surface);
	forget(c->seat);
	forget(c->wm_base);
	forget(c->shm);
	forget(c->compositor);
	forget(c->registry);
}

static void
count_error(struct session *s)
{
	const struct wl_interface *interface = NULL;
	uint32_t id;
	uint32_t code = wl_display_get_protocol_error(s->c.display, &interface, &id);
	const char *name = interface ? interface->name : "(none)";

	for (size_t k = 0; k < PROTOCOL_ERRORS; k++) {
		if (!errors[k].count) {
			snprintf(errors[k].interface, sizeof(errors[k].interface), "%s", name);
			errors[k].code = code;
		}
		if (!strcmp(errors[k].interface, name) && errors[k].code == code) {
			errors[k].count++;
			return;
		}
	}
}

static void
play_session(void)
{
	struct session s;

	memset(&s, 0, sizeof(s));
	vt_client_connect(&s.c);
	s.manager = vt_client_bind(&s.c, &xx_epaper_refresh_manager_v1_interface, 1);
	REQUIRE_MSG(s.manager, "vellum has no xx_epaper_refresh_manager_v1");

	unsigned int n = 1 + epd_rand_below(REQUESTS);
	for (unsigned int k = 0; k < n && !wl_display_get_error(s.c.display); k++) {
		random_request(&s);
		requests++;
	}
	wl_display_roundtrip(s.c.display);
	if (wl_display_get_error(s.c.display))
		count_error(&s);
	for (size_t k = 0; k < POOL; k++) {
		if (s.buffers[k]) {
			forget(s.buffers[k]->buffer);
			munmap(s.buffers[k]->pixels,
				(size_t)s.buffers[k]->width * s.buffers[k]->height * 4);
			free(s.buffers[k]);
		}
		forget(s.frames[k]);
		forget(s.feedbacks[k]);
		forget(s.refreshes[k]);
		forget(s.toplevels[k]);
		forget(s.xdg_surfaces[k]);
		forget(s.surfaces[k]);
	}
	forget(s.manager);
	forget_client(&s.c);
	wl_display_disconnect(s.c.display);
	sessions++;
}

/* A new client is served: its globals come, a roundtrip completes. */
static bool
vellum_serves(void)
{
	struct vt_client c;

	/* A dead vellum lingers as a zombie, which has no memory. */
	if (kill(run.pid, 0) != 0 || vellum_proc_status(run.pid, "VmRSS") <= 0) {
		/* its last words: a sanitizer's report, an assertion */
		printf("vellum is gone: exit status %d\n", vellum_wait(&run, 10));
		return false;
	}
	vt_client_connect(&c);
	bool ok = wl_display_roundtrip(c.display) >= 0;
	forget_client(&c);
	wl_display_disconnect(c.display);
	return ok;
}

int
main(void)
{
	epd_begin("protocol_fuzz", 110);
	const char *args[] = {
		"-d", PANEL, "--", "sh", "-c", VELLUM_SAY_DISPLAY "exec sleep 600", NULL};
	vellum_start(&run, args, NULL);
	REQUIRE(vellum_expect_display(&run, 60));
	setenv("XDG_RUNTIME_DIR", run.runtime_dir, 1);
	setenv("WAYLAND_DISPLAY", run.display, 1);
	epd_seed_from_env();

	epd_phase("random sessions for %d s", RUN_MS / 1000);
	uint64_t t0 = epd_now_ns();
	while (epd_ms_since(t0) < RUN_MS) {
		play_session();
		REQUIRE_MSG(vellum_serves(), "vellum stopped serving after session %lu", sessions);
	}
	printf("%lu sessions, %lu requests; protocol errors:\n", sessions, requests);
	for (size_t k = 0; k < PROTOCOL_ERRORS && errors[k].count; k++)
		printf("  %s %u: %lu\n", errors[k].interface, errors[k].code, errors[k].count);
	/* The rare wrong arguments did reach vellum's checks. */
	CHECK(errors[0].count > 0);

	epd_phase("vellum ends at SIGTERM");
	CHECK_EQ(vellum_stop(&run, SIGTERM, 60), 128 + SIGTERM);
	return epd_end();
}
