// SPDX-License-Identifier: MIT
/*
 * epaper-paint: a sketch pad for e-paper. Strokes under a finger, the
 * pointer's left button or a pen are drawn in the animation mode, the
 * fastest the panel has, as small updates of what each stroke segment
 * touched; when the pen has rested for a moment, one full refresh clears
 * the ghosts the fast updates left.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "epaper-client.h"

#define PROGRAM         "epaper-paint"
#define DEFAULT_IDLE_MS 1000

struct point {
	double x, y;
	bool starts_stroke;
};

struct paint {
	struct ep_client *client;
	struct ep_timer *idle;
	uint64_t idle_ns;
	double line_width;
	struct point *pending; /* input not drawn yet */
	size_t n_pending, pending_capacity;
	struct point last;   /* where the stroke being drawn is */
	bool drawing;        /* a contact is down */
	bool dirty;          /* strokes drawn since the last cleanup */
	bool cleanup, clear; /* what the next frame does besides drawing */
	long strokes, max_strokes;
};

enum frame_kind {
	FRAME_STROKES,
	FRAME_CLEANUP,
	FRAME_PAGE,
};

struct frame_note {
	struct paint *paint;
	enum frame_kind kind;
	long strokes;
};

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROGRAM " [OPTION]...\n"
		"A sketch pad for an e-paper panel, under vellum: draws black strokes\n"
		"under a finger, the pointer's left button or a pen in the fastest\n"
		"refresh mode, and cleans them up with a full refresh once the pen\n"
		"has rested for a moment.\n"
		"\n"
		"  -i, --idle MS     clean up after MS milliseconds without input (default "
		"%d)\n"
		"  -s, --strokes N   exit once N strokes are drawn and cleaned up\n"
		"  -v, --verbose     print each frame and when the panel showed it\n"
		"  -h, --help        print this help and exit\n"
		"\n"
		"Keys: c clears the page, q or Escape quits. Exit status: 0, 1 when the\n"
		"compositor lacks epaper-refresh-v1 or the connection fails, 2 for a\n"
		"bad option.\n",
		DEFAULT_IDLE_MS);
}

static void
handle_feedback(struct ep_client *client, const struct ep_feedback *feedback, void *data)
{
	struct frame_note *note = data;
	static const char *const kinds[] = {"strokes", "cleanup", "page"};

	if (!client) {
		free(note);
		return;
	}
	if (feedback->shown)
		ep_client_log(client, "%s shown waveform=%s flashed=%d after=%.0fms",
			kinds[note->kind], feedback->waveform, feedback->flashed,
			ep_feedback_ms(feedback));
	else
		ep_client_log(client, "%s discarded", kinds[note->kind]);
	if (note->kind == FRAME_CLEANUP && note->paint->max_strokes &&
		note->strokes >= note->paint->max_strokes)
		ep_client_quit(client, 0);
	free(note);
}

static void
add_feedback(struct paint *paint, enum frame_kind kind)
{
	struct frame_note *note = calloc(1, sizeof(*note));

	if (!note)
		return;
	note->paint = paint;
	note->kind = kind;
	note->strokes = paint->strokes;
	ep_frame_feedback(paint->client, handle_feedback, note);
}

static void
draw_pending(struct paint *paint, cairo_t *cr)
{
	/* what a segment touches: the line's width and its antialiased edge */
	double reach = paint->line_width / 2 + 2;

	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, paint->line_width);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
	for (size_t i = 0; i < paint->n_pending; i++) {
		struct point *p = &paint->pending[i];
		struct point from = p->starts_stroke ? *p : paint->last;

		cairo_move_to(cr, from.x, from.y);
		cairo_line_to(cr, p->x, p->y);
		cairo_stroke(cr);
		double x0 = floor(fmin(from.x, p->x) - reach),
		       y0 = floor(fmin(from.y, p->y) - reach);
		double x1 = ceil(fmax(from.x, p->x) + reach), y1 = ceil(fmax(from.y, p->y) + reach);
		ep_frame_damage(paint->client, (int32_t)x0, (int32_t)y0, (int32_t)(x1 - x0),
			(int32_t)(y1 - y0));
		paint->last = *p;
	}
	paint->n_pending = 0;
}

static void
draw(struct ep_client *client, bool all, void *data)
{
	struct paint *paint = data;
	int32_t width = ep_client_width(client), height = ep_client_height(client);
	cairo_t *cr = ep_frame_begin(client);
	enum frame_kind kind = FRAME_STROKES;

	if (all || paint->clear) {
		/* a new page (or size): what was drawn is gone, and so are the ghosts */
		cairo_set_source_rgb(cr, 1, 1, 1);
		cairo_paint(cr);
		ep_frame_damage(client, 0, 0, width, height);
		if (paint->clear)
			ep_frame_full_refresh(client);
		paint->line_width = fmax(4, round(fmin(width, height) / 160.0));
		paint->dirty = paint->clear = false;
		kind = FRAME_PAGE;
	}
	if (paint->n_pending) {
		draw_pending(paint, cr);
		paint->dirty = true;
	}
	if (paint->cleanup && !paint->drawing) {
		ep_frame_full_refresh(client);
		paint->dirty = paint->cleanup = false;
		kind = FRAME_CLEANUP;
	}
	add_feedback(paint, kind);
	ep_frame_commit(client, cr);
	ep_client_log(client, "frame %s",
		kind == FRAME_CLEANUP ? "cleanup"
		: kind == FRAME_PAGE  ? "page"
				      : "strokes");
}

static void
add_point(struct paint *paint, double x, double y, bool starts_stroke)
{
	if (paint->n_pending == paint->pending_capacity) {
		size_t capacity = paint->pending_capacity ? paint->pending_capacity * 2 : 256;
		struct point *bigger = realloc(paint->pending, capacity * sizeof(*bigger));

		/* out of memory: this point is left out of the stroke */
		if (!bigger)
			return;
		paint->pending = bigger;
		paint->pending_capacity = capacity;
	}
	paint->pending[paint->n_pending++] = (struct point){x, y, starts_stroke};
	ep_client_redraw(paint->client);
}

static void
handle_contact(
	struct ep_client *client, enum ep_contact_phase phase, double x, double y, void *data)
{
	struct paint *paint = data;

	switch (phase) {
	case EP_CONTACT_DOWN:
		ep_timer_disarm(paint->idle);
		paint->drawing = true;
		add_point(paint, x, y, true);
		break;
	case EP_CONTACT_MOTION:
		if (paint->drawing)
			add_point(paint, x, y, false);
		break;
	case EP_CONTACT_UP:
		if (!paint->drawing)
			break;
		paint->drawing = false;
		paint->strokes++;
		ep_timer_arm(paint->idle, paint->idle_ns);
		break;
	}
}

static void
handle_idle(struct ep_client *client, void *data)
{
	struct paint *paint = data;

	if (paint->drawing || (!paint->dirty && !paint->n_pending))
		return;
	paint->cleanup = true;
	ep_client_redraw(client);
}

static void
handle_key(struct ep_client *client, xkb_keysym_t sym, void *data)
{
	struct paint *paint = data;

	switch (sym) {
	case XKB_KEY_c:
	case XKB_KEY_C:
		paint->clear = true;
		paint->n_pending = 0;
		ep_timer_disarm(paint->idle);
		ep_client_redraw(client);
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

int
main(int argc, char *argv[])
{
	static const struct option options[] = {
		{"idle", required_argument, NULL, 'i'},
		{"strokes", required_argument, NULL, 's'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	static const struct ep_handlers handlers = {
		.draw = draw,
		.key = handle_key,
		.contact = handle_contact,
	};
	struct paint paint = {.idle_ns = DEFAULT_IDLE_MS * 1000000ULL};
	bool verbose = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "i:s:vh", options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			paint.idle_ns =
				(uint64_t)ep_parse_count(PROGRAM, "--idle", optarg, 3600000) *
				1000000;
			break;
		case 's':
			paint.max_strokes = ep_parse_count(PROGRAM, "--strokes", optarg, 1000000);
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

	paint.client = ep_client_create(PROGRAM, PROGRAM, &handlers, &paint);
	ep_client_set_verbose(paint.client, verbose);
	/* the shortest latency under the pen; ghosts are cleaned up when it rests */
	ep_client_set_mode(paint.client, XX_EPAPER_SURFACE_REFRESH_V1_MODE_ANIMATION);
	paint.idle = ep_timer_create(paint.client, handle_idle, &paint);
	int status = ep_client_run(paint.client);
	ep_client_destroy(paint.client);
	free(paint.pending);
	return status;
}
