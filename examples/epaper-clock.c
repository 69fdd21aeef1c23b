// SPDX-License-Identifier: MIT
/*
 * epaper-clock: a digital clock for e-paper. The digits that change each
 * second are redrawn, and damaged, alone, in the fast mode: a small black
 * and white update without a flash. Once a minute the clock asks for a
 * full refresh, which clears the ghosts the fast updates leave behind.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock-face.h"
#include "epaper-client.h"

#define PROGRAM "epaper-clock"

struct clock {
	struct ep_client *client;
	struct ep_timer *tick;
	struct clock_face face;
	char shown[CLOCK_FACE_CELLS + 1]; /* the text of the last frame */
	long ticks, max_ticks;            /* max_ticks 0: run until quit */
	long fake_start;                  /* seconds since midnight, or -1: the system clock */
	long tick_ms;                     /* 0: on the system clock's seconds */
	bool last_frame_sent;
};

struct frame_note {
	char text[CLOCK_FACE_CELLS + 1];
	bool last;
};

static void
usage(FILE *out)
{
	fprintf(out, "Usage: " PROGRAM " [OPTION]...\n"
		     "Shows the time on an e-paper panel, under vellum: the digits that\n"
		     "change each second in the fast refresh mode, and a full refresh every\n"
		     "minute.\n"
		     "\n"
		     "  -s, --seconds N     exit after N ticks (once the last one is shown)\n"
		     "  -t, --time HH:MM:SS start from this time instead of the system clock's\n"
		     "  -T, --tick-ms N     tick every N ms, a second of the clock each: time\n"
		     "                      runs faster, for soak runs and benchmarks\n"
		     "  -v, --verbose       print each tick and when the panel showed it\n"
		     "  -h, --help          print this help and exit\n"
		     "\n"
		     "Keys: q or Escape quits. Exit status: 0, 1 when the compositor lacks\n"
		     "epaper-refresh-v1 or the connection fails, 2 for a bad option.\n");
}

static void
current_text(const struct clock *clock, char *text)
{
	struct tm tm;

	if (clock->fake_start >= 0) {
		unsigned int t = (unsigned int)((clock->fake_start + clock->ticks) % 86400);

		snprintf(text, CLOCK_FACE_CELLS + 1, "%02u:%02u:%02u", t / 3600 % 24, t / 60 % 60,
			t % 60);
		return;
	}
	time_t now = time(NULL);
	localtime_r(&now, &tm);
	strftime(text, CLOCK_FACE_CELLS + 1, "%H:%M:%S", &tm);
}

static void
handle_feedback(struct ep_client *client, const struct ep_feedback *feedback, void *data)
{
	struct frame_note *note = data;

	if (!client) {
		free(note);
		return;
	}
	if (feedback->shown)
		ep_client_log(client, "shown %s waveform=%s flashed=%d after=%.0fms", note->text,
			feedback->waveform, feedback->flashed, ep_feedback_ms(feedback));
	else
		ep_client_log(client, "discarded %s", note->text);
	if (note->last)
		ep_client_quit(client, 0);
	free(note);
}

static void
draw(struct ep_client *client, bool all, void *data)
{
	struct clock *clock = data;
	char text[CLOCK_FACE_CELLS + 1];
	cairo_t *cr;

	current_text(clock, text);
	if (!all && !strcmp(text, clock->shown))
		return;
	cr = ep_frame_begin(client);
	if (all) {
		clock_face_init(&clock->face, ep_client_width(client), ep_client_height(client));
		clock_face_draw(&clock->face, cr, text);
		ep_frame_damage(client, 0, 0, ep_client_width(client), ep_client_height(client));
	} else {
		for (int i = 0; i < CLOCK_FACE_CELLS; i++) {
			const cairo_rectangle_int_t *cell = &clock->face.cells[i];

			if (text[i] == clock->shown[i])
				continue;
			clock_face_draw_cell(&clock->face, cr, i, text[i]);
			ep_frame_damage(client, cell->x, cell->y, cell->width, cell->height);
		}
		/* a new minute (HH:MM) clears the seconds' ghosts */
		if (strncmp(text, clock->shown, 5) != 0)
			ep_frame_full_refresh(client);
	}
	struct frame_note *note = calloc(1, sizeof(*note));
	if (note) {
		memcpy(note->text, text, sizeof(note->text));
		note->last = clock->max_ticks && clock->ticks >= clock->max_ticks;
		clock->last_frame_sent |= note->last;
		ep_frame_feedback(client, handle_feedback, note);
	}
	ep_frame_commit(client, cr);
	memcpy(clock->shown, text, sizeof(clock->shown));
	ep_client_log(client, "tick %s", text);
}

/* The next tick at the system clock's next whole second, or tick_ms from now. */
static void
arm_tick(struct clock *clock)
{
	struct timespec now;

	if (clock->tick_ms) {
		ep_timer_arm(clock->tick, (uint64_t)clock->tick_ms * 1000000);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	ep_timer_arm(clock->tick, 1000000000ULL - (uint64_t)now.tv_nsec);
}

static void
handle_tick(struct ep_client *client, void *data)
{
	struct clock *clock = data;

	if (clock->max_ticks && clock->ticks >= clock->max_ticks)
		return;
	clock->ticks++;
	ep_client_redraw(client);
	arm_tick(clock);
}

static void
handle_key(struct ep_client *client, xkb_keysym_t sym, void *data)
{
	if (sym == XKB_KEY_q || sym == XKB_KEY_Q || sym == XKB_KEY_Escape)
		ep_client_quit(client, 0);
}

static long
parse_time(const char *value)
{
	unsigned int h, m, s;
	char end;

	if (sscanf(value, "%2u:%2u:%2u%c", &h, &m, &s, &end) != 3 || h > 23 || m > 59 || s > 59) {
		fprintf(stderr,
			PROGRAM ": --time takes HH:MM:SS (00:00:00 to 23:59:59), not \"%s\"\n",
			value);
		exit(2);
	}
	return (long)h * 3600 + m * 60 + s;
}

int
main(int argc, char *argv[])
{
	static const struct option options[] = {
		{"seconds", required_argument, NULL, 's'},
		{"time", required_argument, NULL, 't'},
		{"tick-ms", required_argument, NULL, 'T'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	static const struct ep_handlers handlers = {.draw = draw, .key = handle_key};
	struct clock clock = {.fake_start = -1};
	bool verbose = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "s:t:T:vh", options, NULL)) != -1) {
		switch (opt) {
		case 's':
			clock.max_ticks =
				ep_parse_count(PROGRAM, "--seconds", optarg, 86400L * 366);
			break;
		case 't':
			clock.fake_start = parse_time(optarg);
			break;
		case 'T':
			clock.tick_ms = ep_parse_count(PROGRAM, "--tick-ms", optarg, 3600000L);
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROGRAM ": unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		return 2;
	}

	if (clock.tick_ms && clock.fake_start < 0) {
		/* the clock starts at the system's time and runs faster from there */
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		clock.fake_start = (long)tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec;
	}
	clock.client = ep_client_create(PROGRAM, PROGRAM, &handlers, &clock);
	ep_client_set_verbose(clock.client, verbose);
	/* small black and white changes, without a flash */
	ep_client_set_mode(clock.client, XX_EPAPER_SURFACE_REFRESH_V1_MODE_FAST);
	clock.tick = ep_timer_create(clock.client, handle_tick, &clock);
	arm_tick(&clock);
	int status = ep_client_run(clock.client);
	ep_client_destroy(clock.client);
	return status;
}
