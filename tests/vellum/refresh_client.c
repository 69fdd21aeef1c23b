// SPDX-License-Identifier: MIT
/*
 * An epaper-refresh-v1 client for the tests; it prints what it did and what
 * the compositor answered, a line each:
 *
 *   refresh_client modes        one rect per mode, each with feedback:
 *                               "mode NAME x=X y=Y width=W height=H waveform=WF flags=F ns=NS"
 *   refresh_client full         a 300x200 dialog, drawn, then a full refresh
 *                               without damage: "full x=.. waveform=.. flags=.. ns=.."
 *   refresh_client flood SECONDS  full refreshes requested and committed
 *                               every 10 ms for SECONDS: "flooded REQUESTS"
 *   refresh_client supersede N  N frames committed back to back, each with
 *                               feedback: "supersede refreshed=R discarded=D"
 *   refresh_client error KIND   a protocol error (twice, mode, dither, gone,
 *                               gone-feedback): "protocol error interface=I code=C"
 *   refresh_client unmap        a drawn window unmapped by a commit without a
 *                               buffer, with feedback: "unmap refreshed=R discarded=D"
 *   refresh_client drop-full    the dialog drawn, then a full refresh requested
 *                               and the refresh object destroyed before a commit
 *                               that changes a 20x20 square:
 *                               "drop-full refreshed=R waveform=WF flags=F"
 *   refresh_client cap N        N feedback objects requested before one commit:
 *                               "cap waiting discarded=D oldest=O" once the
 *                               compositor answered the requests (O: how many of
 *                               the D are the oldest ones), then after the commit
 *                               "cap committed refreshed=R discarded=D"; then N
 *                               commits, each with feedback, without waiting:
 *                               "cap commits refreshed=R discarded=D"
 *   refresh_client steps        a fullscreen white window drawn as stdin says, a
 *                               command a line, each committed with feedback:
 *                               "rect X Y W H GRAY" fills a rect with a gray level,
 *                               "full" asks for a full refresh. As the feedback of
 *                               the Nth command comes: "feedback N refreshed
 *                               waveform=WF flags=F" or "feedback N discarded";
 *                               the first frame's is "feedback 0 ...", after
 *                               "shown" (its frame callback). The window stays
 *                               after the end of stdin.
 *
 * ns is the feedback's time, CLOCK_MONOTONIC in nanoseconds: the clock of
 * epdfb's trace. Each feedback object must get exactly one event; a second
 * one ends the client with status 2, as any failure does.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "epaper-refresh-v1-client-protocol.h"

#define DIALOG_W 300
#define DIALOG_H 200
#define GRAY     0xff808080u

static struct vt_client client;
static struct xx_epaper_refresh_manager_v1 *manager;

struct feedback {
	int events;
	bool refreshed;
	char waveform[16];
	uint32_t flags;
	uint64_t ns;
};

static void
handle_refreshed(void *data, struct xx_epaper_refresh_feedback_v1 *object, uint32_t sec_hi,
	uint32_t sec_lo, uint32_t nsec, const char *waveform, uint32_t flags)
{
	struct feedback *f = data;
	(void)object;

	if (++f->events > 1)
		vt_die("a feedback object got a second event (refreshed)");
	f->refreshed = true;
	snprintf(f->waveform, sizeof(f->waveform), "%s", waveform);
	f->flags = flags;
	f->ns = ((uint64_t)sec_hi << 32 | sec_lo) * 1000000000u + nsec;
}

static void
handle_discarded(void *data, struct xx_epaper_refresh_feedback_v1 *object)
{
	struct feedback *f = data;
	(void)object;

	if (++f->events > 1)
		vt_die("a feedback object got a second event (discarded)");
}

static const struct xx_epaper_refresh_feedback_v1_listener feedback_listener = {
	.refreshed = handle_refreshed,
	.discarded = handle_discarded,
};

static void
connect_all(void)
{
	vt_client_connect(&client);
	manager = vt_client_bind(&client, &xx_epaper_refresh_manager_v1_interface, 1);
	if (!manager)
		vt_die("xx_epaper_refresh_manager_v1 is not advertised");
}

/* A window the compositor shows centred at its own size: a fixed-size dialog. */
static void
create_dialog(void)
{
	vt_client_create_window(&client, "refresh-client");
	xdg_toplevel_set_min_size(client.toplevel, DIALOG_W, DIALOG_H);
	xdg_toplevel_set_max_size(client.toplevel, DIALOG_W, DIALOG_H);
	client.width = DIALOG_W;
	client.height = DIALOG_H;
}

static struct xx_epaper_refresh_feedback_v1 *
get_feedback(struct xx_epaper_surface_refresh_v1 *refresh, struct feedback *f)
{
	struct xx_epaper_refresh_feedback_v1 *object =
		xx_epaper_surface_refresh_v1_get_feedback(refresh);

	memset(f, 0, sizeof(*f));
	xx_epaper_refresh_feedback_v1_add_listener(object, &feedback_listener, f);
	return object;
}

static void
wait_feedback(struct feedback *f)
{
	while (f->events == 0)
		if (wl_display_dispatch(client.display) < 0)
			vt_die("dispatch failed waiting for feedback");
}

static void
commit_rect(struct vt_buffer *b, int32_t x, int32_t y, int32_t w, int32_t h)
{
	wl_surface_attach(client.surface, b->buffer, 0, 0);
	wl_surface_damage_buffer(client.surface, x, y, w, h);
	wl_surface_commit(client.surface);
}

static int
run_modes(void)
{
	static const struct {
		const char *name;
		enum xx_epaper_surface_refresh_v1_mode mode;
		uint32_t color;
	} cases[] = {
		/* colors that auto would show with another waveform */
		{"quality", XX_EPAPER_SURFACE_REFRESH_V1_MODE_QUALITY, VT_BLACK},
		{"text", XX_EPAPER_SURFACE_REFRESH_V1_MODE_TEXT, GRAY},
		{"fast", XX_EPAPER_SURFACE_REFRESH_V1_MODE_FAST, GRAY},
		{"animation", XX_EPAPER_SURFACE_REFRESH_V1_MODE_ANIMATION, GRAY},
		{"auto", XX_EPAPER_SURFACE_REFRESH_V1_MODE_AUTO, VT_BLACK},
	};
	struct feedback f;

	vt_client_create_window(&client, "refresh-client");
	struct xx_epaper_surface_refresh_v1 *refresh =
		xx_epaper_refresh_manager_v1_get_surface_refresh(manager, client.surface);
	/* two buffers taken in turn: the compositor keeps the one it shows */
	struct vt_buffer *b[2] = {
		vt_buffer_create(&client, VT_WHITE), vt_buffer_create(&client, VT_WHITE)};
	get_feedback(refresh, &f);
	commit_rect(b[0], 0, 0, client.width, client.height);
	b[0]->busy = true;
	wait_feedback(&f);
	vt_say("first waveform=%s flags=%u", f.waveform, f.flags);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vt_buffer *buffer = b[(i + 1) % 2];
		int32_t x = 20 + (int32_t)i * 100, y = 40, w = 80, h = 80;
		while (buffer->busy)
			if (wl_display_dispatch(client.display) < 0)
				vt_die("dispatch failed waiting for a release");
		for (size_t j = 0; j <= i; j++)
			vt_buffer_fill(buffer, 20 + (int32_t)j * 100, y, w, h, cases[j].color);
		xx_epaper_surface_refresh_v1_set_mode(refresh, cases[i].mode);
		get_feedback(refresh, &f);
		commit_rect(buffer, x, y, w, h);
		buffer->busy = true;
		wait_feedback(&f);
		if (!f.refreshed)
			vt_die("mode %s: the frame was discarded", cases[i].name);
		vt_say("mode %s x=%d y=%d width=%d height=%d waveform=%s flags=%u ns=%llu",
			cases[i].name, x, y, w, h, f.waveform, f.flags, (unsigned long long)f.ns);
	}
	return 0;
}

static int
run_full(void)
{
	struct feedback f;

	create_dialog();
	struct xx_epaper_surface_refresh_v1 *refresh =
		xx_epaper_refresh_manager_v1_get_surface_refresh(manager, client.surface);
	struct vt_buffer *b = vt_buffer_create(&client, GRAY);
	vt_buffer_fill(b, 20, 20, 100, 60, VT_BLACK);
	get_feedback(refresh, &f);
	commit_rect(b, 0, 0, b->width, b->height);
	wait_feedback(&f);
	vt_say("drawn waveform=%s flags=%u ns=%llu", f.waveform, f.flags, (unsigned long long)f.ns);

	/* nothing damaged: the flash alone */
	xx_epaper_surface_refresh_v1_request_full_refresh(refresh);
	xx_epaper_surface_refresh_v1_request_full_refresh(refresh);
	get_feedback(refresh, &f);
	wl_surface_commit(client.surface);
	wait_feedback(&f);
	if (!f.refreshed)
		vt_die("the full refresh was discarded");
	vt_say("full width=%d height=%d waveform=%s flags=%u ns=%llu", DIALOG_W, DIALOG_H,
		f.waveform, f.flags, (unsigned long long)f.ns);
	return 0;
}

static uint64_t
monotonic_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

static int
run_flood(unsigned int seconds)
{
	struct feedback f;
	unsigned int requests = 0;

	create_dialog();
	struct xx_epaper_surface_refresh_v1 *refresh =
		xx_epaper_refresh_manager_v1_get_surface_refresh(manager, client.surface);
	struct vt_buffer *b = vt_buffer_create(&client, GRAY);
	get_feedback(refresh, &f);
	commit_rect(b, 0, 0, b->width, b->height);
	wait_feedback(&f);
	vt_say("flooding");
	for (uint64_t end = monotonic_ms() + seconds * 1000u; monotonic_ms() < end; requests++) {
		xx_epaper_surface_refresh_v1_request_full_refresh(refresh);
		wl_surface_commit(client.surface);
		if (wl_display_flush(client.display) < 0 ||
			wl_display_dispatch_pending(client.display) < 0)
			vt_die("the connection failed while flooding");
		usleep(10000);
	}
	if (wl_display_roundtrip(client.display) < 0)
		vt_die("roundtrip failed after the flood");
	vt_say("flooded %u", requests);
	/* stays, so that the flashes owed still have a surface to show */
	pause();
	return 0;
}

static int
run_supersede(unsigned int frames)
{
	struct feedback *f = calloc(frames, sizeof(*f));
	unsigned int refreshed = 0, discarded = 0;

	if (!f)
		vt_die("out of memory");
	vt_client_create_window(&client, "refresh-client");
	struct xx_epaper_surface_refresh_v1 *refresh =
		xx_epaper_refresh_manager_v1_get_surface_refresh(manager, client.surface);
	struct vt_buffer *b[2] = {
		vt_buffer_create(&client, VT_WHITE), vt_buffer_create(&client, VT_WHITE)};
	for (unsigned int i = 0; i < frames; i++) {
		/* content that differs from frame to frame, in two buffers taken in turn */
		struct vt_buffer *buffer = b[i % 2];
		while (buffer->busy)
			if (wl_display_dispatch(client.display) < 0)
				vt_die("dispatch failed waiting for a release");
		vt_buffer_fill(buffer, 0, 0, buffer->width, buffer->height, VT_WHITE);
		vt_buffer_fill(buffer, 20 + (int32_t)i * 30, 40, 20, 20, VT_BLACK);
		get_feedback(refresh, &f[i]);
		commit_rect(buffer, 0, 0, buffer->width, buffer->height);
		buffer->busy = true;
		if (wl_display_flush(client.display) < 0)
			vt_die("flush failed");
	}
	for (unsigned int i = 0; i < frames; i++) {
		wait_feedback(&f[i]);
		refreshed += f[i].refreshed;
		discarded += !f[i].refreshed;
	}
	/* a late second event would come with the roundtrip */
	if (wl_display_roundtrip(client.display) < 0)
		vt_die("roundtrip failed");
	if (!f[frames - 1].refreshed)
		vt_die("the last frame was discarded");
	vt_say("supersede refreshed=%u discarded=%u", refreshed, discarded);
	free(f);
	return 0;
}

static int
run_error(const char *kind)
{
	vt_client_create_window(&client, "refresh-client");
	struct xx_epaper_surface_refresh_v1 *refresh =
		xx_epaper_refresh_manager_v1_get_surface_refresh(manager, client.surface);

	if (!strcmp(kind, "twice")) {
		xx_epaper_refresh_manager_v1_get_surface_refresh(manager, client.surface);
	} else if (!strcmp(kind, "mode")) {
		xx_epaper_surface_refresh_v1_set_mode(refresh, 5);
	} else if (!strcmp(kind, "dither")) {
		xx_epaper_surface_refresh_v1_set_dither(refresh, 3);
	} else if (!strcmp(kind, "gone") || !strcmp(kind, "gone-feedback")) {
		xdg_toplevel_destroy(client.toplevel);
		xdg_surface_destroy(client.xdg_surface);
		wl_surface_destroy(client.surface);
		if (!strcmp(kind, "gone"))
			xx_epaper_surface_refresh_v1_set_mode(
				refresh, XX_EPAPER_SURFACE_REFRESH_V1_MODE_TEXT);
		else
			xx_epaper_surface_refresh_v1_get_feedback(refresh);
	} else {
		vt_die("unknown error kind %s", kind);
	}
	if (wl_display_roundtrip(client.display) >= 0)
		vt_die("no protocol error for %s", kind);
	const struct wl_interface *interface = NULL;
	uint32_t code = wl_display_get_protocol_error(client.display, &interface, NULL);
	if (wl_display_get_error(client.display) != EPROTO || !interface)
		vt_die("the connection failed without a protocol error");
	vt_say("protocol error interface=%s code=%u", interface->name, code);
	return 0;
}

/* The window unmapped with feedback for the commit that unmaps it. */
static int
run_unmap(void)
{
	struct feedback f;

	vt_client_create_window(&client, "refresh-client");
	struct xx_epaper_surface_refresh_v1 *refresh =
		xx_epaper_refresh_manager_v1_get_surface_refresh(manager, client.surface);
	struct vt_buffer *b = vt_buffer_create(&client, VT_BLACK);
	get_feedback(refresh, &f);
	commit_rect(b, 0, 0, b->width, b->height);
	wait_feedback(&f);
	if (!f.refreshed)
		vt_die("the window's first frame was discarded");
	get_feedback(refresh, &f);
	wl_surface_attach(client.surface, NULL, 0, 0);
	wl_surface_commit(client.surface);
	wait_feedback(&f);
	vt_say("unmap refreshed=%d discarded=%d", f.refreshed, !f.refreshed);
	return 0;
}

/* A full refresh requested, then the refresh object destroyed before the commit. */
static int
run_drop_full(void)
{
	struct feedback f;

	create_dialog();
	struct xx_epaper_surface_refresh_v1 *refresh =
		xx_epaper_refresh_manager_v1_get_surface_refresh(manager, client.surface);
	struct vt_buffer *b[2] = {vt_buffer_create(&client, VT_WHITE), NULL};
	get_feedback(refresh, &f);
	commit_rect(b[0], 0, 0, b[0]->width, b[0]->height);
	wait_feedback(&f);
	vt_say("drawn waveform=%s flags=%u", f.waveform, f.flags);

	xx_epaper_surface_refresh_v1_request_full_refresh(refresh);
	/* requested before the destroy: it stays valid and tells how the commit was shown */
	get_feedback(refresh, &f);
	xx_epaper_surface_refresh_v1_destroy(refresh);
	b[1] = vt_buffer_create(&client, VT_WHITE);
	vt_buffer_fill(b[1], 20, 20, 20, 20, VT_BLACK);
	commit_rect(b[1], 20, 20, 20, 20);
	wait_feedback(&f);
	vt_say("drop-full refreshed=%d waveform=%s flags=%u", f.refreshed, f.waveform, f.flags);
	return 0;
}

static int
run_cap(unsigned int n)
{
	struct feedback *f = calloc(n, sizeof(*f));
	unsigned int refreshed = 0, discarded = 0, oldest = 0;

	if (!f)
		vt_die("out of memory");
	create_dialog();
	struct xx_epaper_surface_refresh_v1 *refresh =
		xx_epaper_refresh_manager_v1_get_surface_refresh(manager, client.surface);
	struct vt_buffer *b[2] = {
		vt_buffer_create(&client, VT_WHITE), vt_buffer_create(&client, VT_WHITE)};
	get_feedback(refresh, &f[0]);
	commit_rect(b[0], 0, 0, b[0]->width, b[0]->height);
	b[0]->busy = true;
	wait_feedback(&f[0]);

	/* all waiting for one commit */
	for (unsigned int i = 0; i < n; i++)
		get_feedback(refresh, &f[i]);
	if (wl_display_roundtrip(client.display) < 0)
		vt_die("roundtrip failed after the requests");
	for (unsigned int i = 0; i < n; i++) {
		discarded += f[i].events > 0;
		/* the discarded ones are the first requested */
		oldest += f[i].events > 0 && i == oldest;
	}
	vt_say("cap waiting discarded=%u oldest=%u", discarded, oldest);
	vt_buffer_fill(b[1], 0, 0, b[1]->width, b[1]->height, VT_WHITE);
	vt_buffer_fill(b[1], 20, 20, 20, 20, VT_BLACK);
	commit_rect(b[1], 20, 20, 20, 20);
	b[1]->busy = true;
	discarded = 0;
	for (unsigned int i = 0; i < n; i++) {
		wait_feedback(&f[i]);
		refreshed += f[i].refreshed;
		discarded += !f[i].refreshed;
	}
	vt_say("cap committed refreshed=%u discarded=%u", refreshed, discarded);

	/* each commit with its feedback, none waited for */
	for (unsigned int i = 0; i < n; i++) {
		get_feedback(refresh, &f[i]);
		wl_surface_commit(client.surface);
	}
	refreshed = discarded = 0;
	for (unsigned int i = 0; i < n; i++) {
		wait_feedback(&f[i]);
		refreshed += f[i].refreshed;
		discarded += !f[i].refreshed;
	}
	/* a late second event would come with the roundtrip */
	if (wl_display_roundtrip(client.display) < 0)
		vt_die("roundtrip failed");
	vt_say("cap commits refreshed=%u discarded=%u", refreshed, discarded);
	free(f);
	return 0;
}

/* The feedback of one command of run_steps, printed as it comes. */
struct step_feedback {
	struct feedback f;
	unsigned int step;
};

static void
handle_step_refreshed(void *data, struct xx_epaper_refresh_feedback_v1 *object, uint32_t sec_hi,
	uint32_t sec_lo, uint32_t nsec, const char *waveform, uint32_t flags)
{
	struct step_feedback *s = data;

	handle_refreshed(&s->f, object, sec_hi, sec_lo, nsec, waveform, flags);
	vt_say("feedback %u refreshed waveform=%s flags=%u", s->step, waveform, flags);
}

static void
handle_step_discarded(void *data, struct xx_epaper_refresh_feedback_v1 *object)
{
	struct step_feedback *s = data;

	handle_discarded(&s->f, object);
	vt_say("feedback %u discarded", s->step);
}

static const struct xx_epaper_refresh_feedback_v1_listener step_feedback_listener = {
	.refreshed = handle_step_refreshed,
	.discarded = handle_step_discarded,
};

/* Feedback for the next commit, printed as step's. */
static void
request_step_feedback(struct xx_epaper_surface_refresh_v1 *refresh, unsigned int step)
{
	struct step_feedback *s = calloc(1, sizeof(*s));

	if (!s)
		vt_die("out of memory");
	s->step = step;
	xx_epaper_refresh_feedback_v1_add_listener(
		xx_epaper_surface_refresh_v1_get_feedback(refresh), &step_feedback_listener, s);
}

/* Runs one command line of run_steps; false if it is not one. */
static bool
run_step(const char *line, struct xx_epaper_surface_refresh_v1 *refresh, struct vt_buffer *b[2],
	unsigned int *shown, unsigned int step)
{
	struct vt_buffer *next = b[(*shown + 1) % 2];
	int32_t x, y, w, h;
	unsigned int gray;
	bool is_rect =
		sscanf(line, "rect %d %d %d %d %u", &x, &y, &w, &h, &gray) == 5 && gray <= 255;

	if (!is_rect && strcmp(line, "full") != 0)
		return false;
	/* the compositor keeps the buffer it shows: draw into the other one */
	while (next->busy)
		if (wl_display_dispatch(client.display) < 0)
			vt_die("dispatch failed waiting for a release");
	memcpy(next->pixels, b[*shown % 2]->pixels, (size_t)next->width * next->height * 4);
	if (is_rect)
		vt_buffer_fill(next, x, y, w, h, 0xff000000u | gray << 16 | gray << 8 | gray);
	else
		xx_epaper_surface_refresh_v1_request_full_refresh(refresh);
	request_step_feedback(refresh, step);
	wl_surface_attach(client.surface, next->buffer, 0, 0);
	if (is_rect)
		wl_surface_damage_buffer(client.surface, x, y, w, h);
	wl_surface_commit(client.surface);
	next->busy = true;
	(*shown)++;
	return true;
}

static int
run_steps(void)
{
	struct pollfd fds[2] = {
		{.fd = wl_display_get_fd(client.display), .events = POLLIN},
		{.fd = STDIN_FILENO, .events = POLLIN},
	};
	unsigned int shown = 0, step = 0;
	char line[128];

	vt_client_create_window(&client, "refresh-client");
	struct xx_epaper_surface_refresh_v1 *refresh =
		xx_epaper_refresh_manager_v1_get_surface_refresh(manager, client.surface);
	struct vt_buffer *b[2] = {
		vt_buffer_create(&client, VT_WHITE), vt_buffer_create(&client, VT_WHITE)};
	request_step_feedback(refresh, 0);
	vt_client_commit(&client, b[0]);
	b[0]->busy = true;
	vt_client_wait_frame(&client);
	vt_say("shown");
	for (;;) {
		while (wl_display_prepare_read(client.display) != 0)
			wl_display_dispatch_pending(client.display);
		wl_display_flush(client.display);
		if (poll(fds, fds[1].fd < 0 ? 1 : 2, -1) < 0 && errno != EINTR)
			vt_die("poll: %s", strerror(errno));
		if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) {
			if (wl_display_read_events(client.display) < 0)
				vt_die("the connection failed");
		} else {
			wl_display_cancel_read(client.display);
		}
		if (wl_display_dispatch_pending(client.display) < 0)
			vt_die("the connection failed");
		if (fds[1].fd >= 0 && fds[1].revents) {
			/* a line at a time: the test writes whole lines */
			ssize_t n = read(STDIN_FILENO, line, sizeof(line) - 1);
			if (n <= 0) {
				fds[1].fd = -1;
				continue;
			}
			line[n] = '\0';
			for (char *cmd = strtok(line, "\n"); cmd; cmd = strtok(NULL, "\n"))
				if (!run_step(cmd, refresh, b, &shown, ++step))
					vt_die("unknown command: %s", cmd);
		}
	}
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		vt_die("usage: refresh_client modes|full|flood S|supersede N|error KIND|unmap|"
		       "drop-full|cap N|steps");
	connect_all();
	if (!strcmp(argv[1], "modes"))
		return run_modes();
	if (!strcmp(argv[1], "full"))
		return run_full();
	if (!strcmp(argv[1], "flood") && argc > 2)
		return run_flood((unsigned int)atoi(argv[2]));
	if (!strcmp(argv[1], "supersede") && argc > 2 && atoi(argv[2]) > 0)
		return run_supersede((unsigned int)atoi(argv[2]));
	if (!strcmp(argv[1], "error") && argc > 2)
		return run_error(argv[2]);
	if (!strcmp(argv[1], "unmap"))
		return run_unmap();
	if (!strcmp(argv[1], "drop-full"))
		return run_drop_full();
	if (!strcmp(argv[1], "cap") && argc > 2 && atoi(argv[2]) > 0)
		return run_cap((unsigned int)atoi(argv[2]));
	if (!strcmp(argv[1], "steps"))
		return run_steps();
	vt_die("unknown command %s", argv[1]);
}
