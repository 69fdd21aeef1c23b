// SPDX-License-Identifier: MIT
/*
 * epaper-reader: pages of a text file on an e-paper panel. Each page turn
 * is drawn in the quality mode, and the next turn is accepted only once
 * the panel has shown the page (its refreshed feedback): turns never pile
 * up behind a slow panel. A long press asks for a full refresh.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "epaper-client.h"
#include "reader-layout.h"

#define PROGRAM "epaper-reader"
/* A touch held this long asks for a full refresh. */
#define LONG_PRESS_NS 600000000ULL
/* A touch that moves further is neither a tap nor a long press. */
#define TAP_SLOP 24
#define MAX_FILE (64 * 1024 * 1024)

extern const char reader_builtin_text[];

struct reader {
	struct ep_client *client;
	struct ep_timer *long_press;
	const char *text;
	struct reader_layout *layout;
	size_t page;
	bool busy;         /* a frame is on its way to the panel */
	bool page_changed; /* the next frame shows another page */
	bool full_refresh; /* the next frame asks for a full refresh */
	long turns, max_turns;
	bool auto_turn;
	double press_x, press_y;
	bool pressed, long_pressed;
};

enum frame_kind {
	FRAME_PAGE,
	FRAME_TURN,
	FRAME_REFRESH,
};

struct frame_note {
	struct reader *reader;
	enum frame_kind kind;
	size_t page;
};

static void turn(struct reader *reader, int direction);

static void
usage(FILE *out)
{
	fprintf(out, "Usage: " PROGRAM " [OPTION]... [FILE]\n"
		     "Shows FILE (UTF-8 text; without one, a text about this reader) page by\n"
		     "page on an e-paper panel, under vellum. Each page turn is a quality\n"
		     "refresh; the next turn is taken once the panel has shown the page.\n"
		     "\n"
		     "  -n, --turns N   exit after N page turns (once the last page is shown)\n"
		     "  -a, --auto      turn the pages by itself, each once the last is shown\n"
		     "  -v, --verbose   print each page and when the panel showed it\n"
		     "  -h, --help      print this help and exit\n"
		     "\n"
		     "Next page: Right, Down, space, Page Down, or a tap on the right half.\n"
		     "Previous page: Left, Up, BackSpace, Page Up, or a tap on the left half.\n"
		     "A press of 600 ms or more, or f: a full refresh. q or Escape quits.\n"
		     "Exit status: 0, 1 when FILE cannot be read, the compositor lacks\n"
		     "epaper-refresh-v1 or the connection fails, 2 for a bad option.\n");
}

/* The whole file as a string; NUL bytes become 0xff, an invalid byte, shown as such. */
static char *
read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, capacity = 0;

	if (!f) {
		fprintf(stderr, PROGRAM ": cannot open %s: %s\n", path, strerror(errno));
		exit(1);
	}
	for (;;) {
		if (capacity - len < 65536) {
			capacity = capacity ? capacity * 2 : 65536;
			char *bigger = capacity <= MAX_FILE ? realloc(text, capacity + 1) : NULL;
			if (!bigger) {
				fprintf(stderr, PROGRAM ": %s is too large (more than %d MiB)\n",
					path, MAX_FILE >> 20);
				exit(1);
			}
			text = bigger;
		}
		size_t got = fread(text + len, 1, capacity - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, PROGRAM ": cannot read %s: %s\n", path, strerror(errno));
		exit(1);
	}
	fclose(f);
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\0')
			text[i] = (char)0xff;
	text[len] = '\0';
	return text;
}

static void
handle_feedback(struct ep_client *client, const struct ep_feedback *feedback, void *data)
{
	struct frame_note *note = data;
	struct reader *reader = note->reader;
	static const char *const kinds[] = {"page", "turn", "refresh"};

	if (!client) {
		free(note);
		return;
	}
	if (feedback->shown)
		ep_client_log(client, "%s %zu shown waveform=%s flashed=%d after=%.0fms",
			kinds[note->kind], note->page + 1, feedback->waveform, feedback->flashed,
			ep_feedback_ms(feedback));
	else
		ep_client_log(client, "%s %zu discarded", kinds[note->kind], note->page + 1);
	reader->busy = false;
	if (note->kind == FRAME_TURN && reader->max_turns && ++reader->turns >= reader->max_turns)
		ep_client_quit(client, 0);
	else if (reader->auto_turn)
		turn(reader, 1);
	free(note);
}

static void
draw(struct ep_client *client, bool all, void *data)
{
	struct reader *reader = data;
	int32_t width = ep_client_width(client), height = ep_client_height(client);
	struct frame_note *note = calloc(1, sizeof(*note));

	if (!note) {
		fprintf(stderr, PROGRAM ": out of memory\n");
		ep_client_quit(client, 1);
		return;
	}
	if (all) {
		reader_layout_destroy(reader->layout);
		reader->layout = reader_layout_create(reader->text, width, height);
		if (!reader->layout) {
			fprintf(stderr, PROGRAM ": out of memory laying the text out\n");
			free(note);
			ep_client_quit(client, 1);
			return;
		}
		if (reader->page >= reader_layout_pages(reader->layout))
			reader->page = reader_layout_pages(reader->layout) - 1;
	}
	cairo_t *cr = ep_frame_begin(client);
	note->reader = reader;
	note->page = reader->page;
	note->kind = FRAME_PAGE;
	if (all || reader->page_changed) {
		reader_layout_draw_page(reader->layout, cr, reader->page);
		ep_frame_damage(client, 0, 0, width, height);
		if (!all)
			note->kind = FRAME_TURN;
	}
	if (reader->full_refresh) {
		ep_frame_full_refresh(client);
		if (note->kind == FRAME_PAGE && !all)
			note->kind = FRAME_REFRESH;
	}
	reader->page_changed = reader->full_refresh = false;
	reader->busy = true;
	ep_frame_feedback(client, handle_feedback, note);
	ep_frame_commit(client, cr);
	ep_client_log(
		client, "page %zu of %zu", reader->page + 1, reader_layout_pages(reader->layout));
}

static void
turn(struct reader *reader, int direction)
{
	size_t pages = reader_layout_pages(reader->layout);

	if (reader->busy) {
		ep_client_log(reader->client, "busy: turn ignored");
		return;
	}
	if ((direction > 0 && reader->page + 1 >= pages) || (direction < 0 && reader->page == 0)) {
		ep_client_log(reader->client, "no page %s", direction > 0 ? "after" : "before");
		if (reader->auto_turn)
			ep_client_quit(reader->client, 0);
		return;
	}
	reader->page += direction;
	reader->page_changed = true;
	reader->busy = true;
	ep_client_redraw(reader->client);
}

static void
full_refresh(struct reader *reader)
{
	if (reader->busy) {
		ep_client_log(reader->client, "busy: full refresh ignored");
		return;
	}
	reader->full_refresh = true;
	reader->busy = true;
	ep_client_redraw(reader->client);
}

static void
handle_key(struct ep_client *client, xkb_keysym_t sym, void *data)
{
	struct reader *reader = data;

	switch (sym) {
	case XKB_KEY_Right:
	case XKB_KEY_Down:
	case XKB_KEY_space:
	case XKB_KEY_Next:
		turn(reader, 1);
		break;
	case XKB_KEY_Left:
	case XKB_KEY_Up:
	case XKB_KEY_BackSpace:
	case XKB_KEY_Prior:
		turn(reader, -1);
		break;
	case XKB_KEY_f:
		full_refresh(reader);
		break;
	case XKB_KEY_q:
	case XKB_KEY_Q:
	case XKB_KEY_Escape:
		ep_client_quit(client, 0);
		break;
	default:
		break;
	}
}

static void
handle_long_press(struct ep_client *client, void *data)
{
	struct reader *reader = data;

	if (!reader->pressed)
		return;
	reader->long_pressed = true;
	full_refresh(reader);
}

static void
handle_contact(
	struct ep_client *client, enum ep_contact_phase phase, double x, double y, void *data)
{
	struct reader *reader = data;

	switch (phase) {
	case EP_CONTACT_DOWN:
		reader->pressed = true;
		reader->long_pressed = false;
		reader->press_x = x;
		reader->press_y = y;
		ep_timer_arm(reader->long_press, LONG_PRESS_NS);
		break;
	case EP_CONTACT_MOTION:
		if (reader->pressed && hypot(x - reader->press_x, y - reader->press_y) > TAP_SLOP) {
			reader->pressed = false;
			ep_timer_disarm(reader->long_press);
		}
		break;
	case EP_CONTACT_UP:
		ep_timer_disarm(reader->long_press);
		if (reader->pressed && !reader->long_pressed)
			turn(reader, reader->press_x >= ep_client_width(client) / 2.0 ? 1 : -1);
		reader->pressed = false;
		break;
	}
}

int
main(int argc, char *argv[])
{
	static const struct option options[] = {
		{"turns", required_argument, NULL, 'n'},
		{"auto", no_argument, NULL, 'a'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	static const struct ep_handlers handlers = {
		.draw = draw,
		.key = handle_key,
		.contact = handle_contact,
	};
	/* busy until the first page is shown */
	struct reader reader = {.text = reader_builtin_text, .busy = true};
	char *file_text = NULL;
	bool verbose = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "n:avh", options, NULL)) != -1) {
		switch (opt) {
		case 'n':
			reader.max_turns = ep_parse_count(PROGRAM, "--turns", optarg, 1000000);
			break;
		case 'a':
			reader.auto_turn = true;
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
	if (argc - optind > 1) {
		fprintf(stderr, PROGRAM ": one file at most, not %d\n", argc - optind);
		usage(stderr);
		return 2;
	}
	if (optind < argc)
		reader.text = file_text = read_text(argv[optind]);

	reader.client = ep_client_create(PROGRAM, PROGRAM, &handlers, &reader);
	ep_client_set_verbose(reader.client, verbose);
	/* clean pages with every gray level: a flash per turn is fine */
	ep_client_set_mode(reader.client, XX_EPAPER_SURFACE_REFRESH_V1_MODE_QUALITY);
	reader.long_press = ep_timer_create(reader.client, handle_long_press, &reader);
	int status = ep_client_run(reader.client);
	ep_client_destroy(reader.client);
	reader_layout_destroy(reader.layout);
	free(file_text);
	return status;
}
