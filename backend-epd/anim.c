// SPDX-License-Identifier: MIT
/*
 * Animations nobody asked for: a spinner, a pulsing progress bar, a CSS
 * animation. They change many times a second for as long as they run,
 * without input, and each frame sent would be an update, and in time a
 * ghost flash, for ever. The panel is followed in cells: a cell whose
 * pixels changed STEADY_CHANGES times within STEADY_SPAN_MS while nobody
 * worked is animated until it rests for REST_MS. A rate, not a change at
 * every frame: vellum gives a client its next frame once the panel drew
 * the last (450 ms for GC16), and a spinner's cell may look the same at
 * two frames so taken. A clock's seconds are too slow to count. Changes
 * made while the user works do not count (typing is fast too), but do not
 * end an animation either (a spinner goes on while the user types beside
 * it). A caret blinks fast enough to count: blink.c's hold comes first.
 */
#include <stdlib.h>
#include <vellum/epd-pipeline.h>

#define CELL           VL_EPD_ANIM_CELL
#define STEADY_CHANGES 6
#define STEADY_SPAN_MS 4000
#define REST_MS        1500

struct cell {
	uint64_t picture;    /* a hash of its pixels at the last change */
	uint64_t changed_ms; /* 0: never */
	bool seen;           /* picture holds what it showed */
	uint64_t driven_ms;  /* the last update over it while animated; 0: none */
	/* the latest changes that counted, oldest at next; 0: none */
	uint64_t counted_ms[STEADY_CHANGES];
	uint8_t next;
};

struct vl_epd_anim {
	int32_t columns, rows;
	struct cell cells[];
};

struct vl_epd_anim *
vl_epd_anim_create(int32_t width, int32_t height)
{
	if (width <= 0 || height <= 0)
		return NULL;
	int32_t columns = (width + CELL - 1) / CELL, rows = (height + CELL - 1) / CELL;
	struct vl_epd_anim *anim =
		calloc(1, sizeof(*anim) + (size_t)columns * rows * sizeof(struct cell));
	if (!anim)
		return NULL;
	anim->columns = columns;
	anim->rows = rows;
	return anim;
}

void
vl_epd_anim_destroy(struct vl_epd_anim *anim)
{
	free(anim);
}

/* The cells box touches, clipped to the grid; false when none. */
static bool
cell_range(const struct vl_epd_anim *anim, const pixman_box32_t *box, int32_t *c1, int32_t *r1,
	int32_t *c2, int32_t *r2)
{
	if (box->x1 >= box->x2 || box->y1 >= box->y2)
		return false;
	*c1 = box->x1 < 0 ? 0 : box->x1 / CELL;
	*r1 = box->y1 < 0 ? 0 : box->y1 / CELL;
	*c2 = (box->x2 + CELL - 1) / CELL;
	*r2 = (box->y2 + CELL - 1) / CELL;
	*c2 = *c2 > anim->columns ? anim->columns : *c2;
	*r2 = *r2 > anim->rows ? anim->rows : *r2;
	return *c1 < *c2 && *r1 < *r2;
}

static uint64_t
cell_picture(const struct vl_epd_gray *gray, int32_t column, int32_t row)
{
	uint64_t hash = 0xcbf29ce484222325u;
	int32_t x1 = column * CELL, y1 = row * CELL;
	int32_t x2 = x1 + CELL < gray->width ? x1 + CELL : gray->width;
	int32_t y2 = y1 + CELL < gray->height ? y1 + CELL : gray->height;

	for (int32_t y = y1; y < y2; y++) {
		const uint8_t *p = gray->data + (size_t)y * gray->stride;
		for (int32_t x = x1; x < x2; x++)
			hash = (hash ^ p[x]) * 0x100000001b3u;
	}
	return hash;
}

static void
note_cell(struct cell *cell, uint64_t picture, uint64_t now_ms, bool user_works)
{
	/* the first picture seen is no change: what was there before is not known */
	if (!cell->seen) {
		cell->seen = true;
		cell->picture = picture;
		return;
	}
	if (cell->picture == picture)
		return;
	if (!user_works) {
		cell->counted_ms[cell->next] = now_ms;
		cell->next = (uint8_t)((cell->next + 1) % STEADY_CHANGES);
	}
	cell->picture = picture;
	cell->changed_ms = now_ms;
}

void
vl_epd_anim_note(struct vl_epd_anim *anim, const struct vl_epd_gray *gray,
	const pixman_region32_t *damage, uint64_t now_ms, bool user_works)
{
	int n;
	const pixman_box32_t *rects = pixman_region32_rectangles(damage, &n);

	if (!anim || !vl_epd_gray_valid(gray))
		return;
	for (int i = 0; i < n; i++) {
		int32_t c1, r1, c2, r2;
		if (!cell_range(anim, &rects[i], &c1, &r1, &c2, &r2))
			continue;
		for (int32_t r = r1; r < r2; r++) {
			for (int32_t c = c1; c < c2; c++)
				note_cell(&anim->cells[(size_t)r * anim->columns + c],
					cell_picture(gray, c, r), now_ms, user_works);
		}
	}
}

static bool
animated(const struct cell *cell, uint64_t now_ms)
{
	uint64_t oldest = cell->counted_ms[cell->next];
	uint64_t newest = cell->counted_ms[(cell->next + STEADY_CHANGES - 1) % STEADY_CHANGES];

	return oldest != 0 && newest - oldest <= STEADY_SPAN_MS &&
	       now_ms - cell->changed_ms <= REST_MS;
}

/*
 * A box may reach over cells at rest (the diff sends two spinners one
 * above the other as one box): it is animated when it holds an animated
 * cell and every cell of it that changed lately is animated.
 */
bool
vl_epd_anim_covers(const struct vl_epd_anim *anim, const pixman_box32_t *box, uint64_t now_ms)
{
	int32_t c1, r1, c2, r2;
	bool any = false;

	if (!anim || !cell_range(anim, box, &c1, &r1, &c2, &r2))
		return false;
	for (int32_t r = r1; r < r2; r++) {
		for (int32_t c = c1; c < c2; c++) {
			const struct cell *cell = &anim->cells[(size_t)r * anim->columns + c];
			bool resting = cell->changed_ms == 0 || now_ms - cell->changed_ms > REST_MS;
			if (animated(cell, now_ms))
				any = true;
			else if (!resting)
				return false;
		}
	}
	return any;
}

uint32_t
vl_epd_anim_wait(const struct vl_epd_anim *anim, const pixman_box32_t *box, uint64_t now_ms,
	uint32_t interval_ms)
{
	int32_t c1, r1, c2, r2;
	uint64_t due = 0;

	if (!anim || !cell_range(anim, box, &c1, &r1, &c2, &r2))
		return 0;
	for (int32_t r = r1; r < r2; r++) {
		for (int32_t c = c1; c < c2; c++) {
			const struct cell *cell = &anim->cells[(size_t)r * anim->columns + c];
			if (cell->driven_ms != 0 && cell->driven_ms + interval_ms > due)
				due = cell->driven_ms + interval_ms;
		}
	}
	return due > now_ms ? (uint32_t)(due - now_ms) : 0;
}

void
vl_epd_anim_driven(struct vl_epd_anim *anim, const pixman_box32_t *box, uint64_t now_ms)
{
	int32_t c1, r1, c2, r2;

	if (!anim || !cell_range(anim, box, &c1, &r1, &c2, &r2))
		return;
	for (int32_t r = r1; r < r2; r++)
		for (int32_t c = c1; c < c2; c++)
			anim->cells[(size_t)r * anim->columns + c].driven_ms = now_ms;
}

void
vl_epd_anim_region(const struct vl_epd_anim *anim, uint64_t now_ms, pixman_region32_t *region)
{
	if (!anim)
		return;
	for (int32_t r = 0; r < anim->rows; r++) {
		/* runs of animated cells in a row, one rect each */
		int32_t run = -1;
		for (int32_t c = 0; c <= anim->columns; c++) {
			bool on = c < anim->columns &&
				  animated(&anim->cells[(size_t)r * anim->columns + c], now_ms);
			if (on && run < 0)
				run = c;
			if (on || run < 0)
				continue;
			pixman_region32_union_rect(
				region, region, run * CELL, r * CELL, (c - run) * CELL, CELL);
			run = -1;
		}
	}
}
