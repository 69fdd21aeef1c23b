// SPDX-License-Identifier: MIT
/*
 * Blinking carets. A small area whose content alternates between the same
 * two pictures at a steady period, with no input meanwhile, is a caret (or
 * any other blinker): left alone it costs the panel an update a blink,
 * and in time an idle cleanup, for as long as the application shows it,
 * which for a browser's focused field is for ever. Once steady, the panel
 * keeps the picture with more ink, and the changes between the two are
 * not sent. The hold ends with input (a key moves the caret and must show
 * at once), with a third picture there, or when the blinking stops with
 * the ink off; then the area is sent as it is.
 */
#include <stdlib.h>
#include <string.h>
#include <vellum/epd-pipeline.h>

/* Areas followed at once; the least recently changed makes way. */
#define TRACKERS 8
/* What counts as small: a caret, or a terminal's block cursor at scale 2. */
#define MAX_SIDE 96
#define MAX_AREA 4096
/* Blink periods (one picture to the other) that count, and their spread. */
#define MIN_PERIOD_MS   150
#define MAX_PERIOD_MS   2000
#define PERIOD_SLACK_MS 60
/* Changes at a steady period before the area is held. */
#define STEADY_FLIPS 4
/*
 * A caret blinks alone: a change this close to another of the same flush
 * is part of something larger (the segments of a clock's digit, which
 * may go on and off at a steady pace too) and is never held.
 */
#define ALONE_PX 48

struct tracker {
	pixman_box32_t box; /* x2 == 0: free */
	uint64_t pictures[2];
	unsigned int inked; /* the index of the picture with more ink */
	unsigned int flips;
	uint32_t period_ms;
	uint64_t latest;   /* the picture drawn when the area was last seen */
	uint64_t flip_ms;  /* the latest change between the two */
	uint64_t inked_ms; /* while held: when the inked picture was last drawn */
	bool held;
};

struct vl_epd_blink {
	struct tracker trackers[TRACKERS];
};

struct vl_epd_blink *
vl_epd_blink_create(void)
{
	return calloc(1, sizeof(struct vl_epd_blink));
}

void
vl_epd_blink_destroy(struct vl_epd_blink *blink)
{
	free(blink);
}

static bool
is_small(const pixman_box32_t *box)
{
	int32_t w = box->x2 - box->x1, h = box->y2 - box->y1;

	return w > 0 && h > 0 && w <= MAX_SIDE && h <= MAX_SIDE && w * h <= MAX_AREA;
}

static bool
same_box(const pixman_box32_t *a, const pixman_box32_t *b)
{
	return a->x1 == b->x1 && a->y1 == b->y1 && a->x2 == b->x2 && a->y2 == b->y2;
}

/* FNV-1a over the box's pixels; *ink gets their darkness. */
static uint64_t
picture(const struct vl_epd_gray *gray, const pixman_box32_t *box, uint64_t *ink)
{
	uint64_t hash = 0xcbf29ce484222325u, dark = 0;

	for (int32_t y = box->y1; y < box->y2; y++) {
		const uint8_t *row = gray->data + (size_t)y * gray->stride;
		for (int32_t x = box->x1; x < box->x2; x++) {
			hash = (hash ^ row[x]) * 0x100000001b3u;
			dark += 255u - row[x];
		}
	}
	if (ink)
		*ink = dark;
	return hash;
}

/* How long a held blinker may show its ink off before it counts as stopped. */
static uint64_t
stop_after_ms(const struct tracker *t)
{
	return 2 * (uint64_t)t->period_ms + 250;
}

static void
restart(struct tracker *t, const pixman_box32_t *box, uint64_t shown, uint64_t drawn, uint64_t now)
{
	*t = (struct tracker){
		.box = *box, .pictures = {shown, drawn}, .latest = drawn, .flip_ms = now};
}

/* Whether tracker a makes way before b: free first, then one never back or forth, then older. */
static bool
makes_way_before(const struct tracker *a, const struct tracker *b)
{
	if ((a->box.x2 == 0) != (b->box.x2 == 0))
		return a->box.x2 == 0;
	if ((a->flips == 0) != (b->flips == 0))
		return a->flips == 0;
	return a->flip_ms < b->flip_ms;
}

/*
 * The tracker of box, else a free one, else one that never went back or
 * forth (an animation's frames churn through those), else the one changed
 * longest ago; NULL when every one holds an area, whose picture would be
 * lost.
 */
static struct tracker *
find_or_take(struct vl_epd_blink *blink, const pixman_box32_t *box)
{
	struct tracker *oldest = NULL;

	for (size_t i = 0; i < TRACKERS; i++) {
		struct tracker *t = &blink->trackers[i];
		if (t->box.x2 != 0 && same_box(&t->box, box))
			return t;
		if (t->held)
			continue;
		if (!oldest || makes_way_before(t, oldest))
			oldest = t;
	}
	if (oldest)
		oldest->box.x2 = 0;
	return oldest;
}

/* A change from one picture to the other: whether the period holds. */
static void
flip(struct tracker *t, uint64_t now)
{
	uint64_t interval = now - t->flip_ms;

	t->flip_ms = now;
	if (interval < MIN_PERIOD_MS || interval > MAX_PERIOD_MS) {
		t->flips = 0;
		return;
	}
	uint32_t spread = t->period_ms / 2 + PERIOD_SLACK_MS;
	if (t->flips > 0 &&
		(interval + spread < t->period_ms || interval > t->period_ms + spread)) {
		t->flips = 1;
		t->period_ms = (uint32_t)interval;
		return;
	}
	t->period_ms = t->flips == 0 ? (uint32_t)interval : (t->period_ms + (uint32_t)interval) / 2;
	t->flips++;
}

/*
 * Follows the area of one changed box: whether its change is a blink
 * between pictures the panel need not show.
 */
static bool
blinks(struct vl_epd_blink *blink, const struct vl_epd_gray *cur, const struct vl_epd_gray *sent,
	const pixman_box32_t *box, uint64_t now)
{
	uint64_t ink[2];
	uint64_t shown = picture(sent, box, &ink[0]), drawn = picture(cur, box, &ink[1]);
	struct tracker *t = find_or_take(blink, box);

	if (!t)
		return false;
	if (t->box.x2 == 0) {
		restart(t, box, shown, drawn, now);
		return false;
	}
	bool back = shown == t->pictures[1] && drawn == t->pictures[0];
	bool forth = shown == t->pictures[0] && drawn == t->pictures[1];
	if (!back && !forth) {
		restart(t, box, shown, drawn, now);
		return false;
	}
	if (t->held)
		/* the panel keeps the inked picture: the other one waits unseen */
		return drawn != t->pictures[t->inked];
	/* seen again unchanged, while it waits to go out (an animation's pace) */
	if (drawn == t->latest)
		return false;
	t->latest = drawn;
	flip(t, now);
	if (t->flips < STEADY_FLIPS)
		return false;
	t->held = true;
	unsigned int drawn_index = drawn == t->pictures[1];
	t->inked = ink[1] > ink[0] ? drawn_index : 1 - drawn_index;
	t->inked_ms = now;
	/* the inked picture goes out once; then the panel keeps it */
	return drawn != t->pictures[t->inked];
}

static bool
near(const pixman_box32_t *a, const pixman_box32_t *b)
{
	return a->x1 - ALONE_PX < b->x2 && b->x1 - ALONE_PX < a->x2 && a->y1 - ALONE_PX < b->y2 &&
	       b->y1 - ALONE_PX < a->y2;
}

/* Whether box is near none of the n boxes. */
static bool
alone(const pixman_box32_t *box, const pixman_box32_t *boxes, size_t n)
{
	for (size_t j = 0; j < n; j++)
		if (near(box, &boxes[j]))
			return false;
	return true;
}

/* The tracker of box, if any, forgets it: what changes there is no blink. */
static void
forget(struct vl_epd_blink *blink, const pixman_box32_t *box)
{
	for (size_t i = 0; i < TRACKERS; i++) {
		struct tracker *t = &blink->trackers[i];
		if (t->box.x2 != 0 && same_box(&t->box, box)) {
			t->box.x2 = 0;
			t->held = false;
		}
	}
}

size_t
vl_epd_blink_filter(struct vl_epd_blink *blink, const struct vl_epd_gray *cur,
	const struct vl_epd_gray *sent, const pixman_region32_t *damage, pixman_box32_t *boxes,
	size_t n, const bool *exempt, uint64_t now_ms)
{
	/* a held area drawn inked again: its blinking goes on, though nothing changed */
	for (size_t i = 0; i < TRACKERS; i++) {
		struct tracker *t = &blink->trackers[i];
		if (!t->held || pixman_region32_contains_rectangle(
					(pixman_region32_t *)damage, &t->box) == PIXMAN_REGION_OUT)
			continue;
		if (picture(cur, &t->box, NULL) == t->pictures[t->inked])
			t->inked_ms = now_ms;
	}
	/*
	 * Boxes are removed in place: one removed was alone, so that it is
	 * no neighbour of any other, and the kept ones before i and those
	 * after it are all the neighbours i has.
	 */
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		pixman_box32_t box = boxes[i];
		bool dropped = false;
		if ((!exempt || !exempt[i]) && is_small(&box)) {
			if (alone(&box, boxes, kept) && alone(&box, boxes + i + 1, n - i - 1))
				dropped = blinks(blink, cur, sent, &box, now_ms);
			else
				forget(blink, &box);
		}
		if (!dropped)
			boxes[kept++] = box;
	}
	return kept;
}

int64_t
vl_epd_blink_expire(struct vl_epd_blink *blink, const struct vl_epd_gray *cur, uint64_t now_ms,
	pixman_region32_t *release)
{
	int64_t next = -1;

	for (size_t i = 0; i < TRACKERS; i++) {
		struct tracker *t = &blink->trackers[i];
		if (!t->held)
			continue;
		uint64_t due = t->inked_ms + stop_after_ms(t);
		if (due > now_ms || !release) {
			due = due > now_ms ? due : now_ms;
			if (next < 0 || (int64_t)(due - now_ms) < next)
				next = (int64_t)(due - now_ms);
			continue;
		}
		if (picture(cur, &t->box, NULL) != t->pictures[t->inked])
			pixman_region32_union_rect(release, release, t->box.x1, t->box.y1,
				t->box.x2 - t->box.x1, t->box.y2 - t->box.y1);
		t->box.x2 = 0;
		t->held = false;
	}
	return next;
}

void
vl_epd_blink_release_all(struct vl_epd_blink *blink, pixman_region32_t *release)
{
	for (size_t i = 0; i < TRACKERS; i++) {
		struct tracker *t = &blink->trackers[i];
		if (t->held)
			pixman_region32_union_rect(release, release, t->box.x1, t->box.y1,
				t->box.x2 - t->box.x1, t->box.y2 - t->box.y1);
		t->box.x2 = 0;
		t->held = false;
	}
}

size_t
vl_epd_blink_boxes(
	const struct vl_epd_blink *blink, bool held_only, pixman_box32_t *boxes, size_t capacity)
{
	size_t n = 0;

	for (size_t i = 0; i < TRACKERS && n < capacity; i++) {
		const struct tracker *t = &blink->trackers[i];
		if (t->box.x2 != 0 && (t->held || (!held_only && t->flips > 0)))
			boxes[n++] = t->box;
	}
	return n;
}

bool
vl_epd_blink_alternates(const struct vl_epd_blink *blink, const pixman_box32_t *box)
{
	for (size_t i = 0; i < TRACKERS; i++) {
		const struct tracker *t = &blink->trackers[i];
		if (t->box.x2 != 0 && (t->flips > 0 || t->held) && same_box(&t->box, box))
			return true;
	}
	return false;
}

bool
vl_epd_blink_held(const struct vl_epd_blink *blink, const pixman_box32_t *box)
{
	for (size_t i = 0; i < TRACKERS; i++) {
		const struct tracker *t = &blink->trackers[i];
		if (t->held && same_box(&t->box, box))
			return true;
	}
	return false;
}
