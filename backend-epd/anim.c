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
 *
 * A pulsing progress bar's block slides along its trough: each cell
 * changes only as the block's edges pass, a few times in the span, while
 * the trough changes at every frame. A cell that changed in the span is
 * animated too when the run of cells that changed along its row or column
 * (its band) changed at STEADY_CHANGES different times in it: a clock's
 * seconds still do not count, nor a caret beside a spinner.
 */
#include <stdlib.h>
#include <vellum/epd-pipeline.h>

#define CELL           VL_EPD_ANIM_CELL
#define STEADY_CHANGES 6
#define STEADY_SPAN_MS 4000
#define REST_MS        1500
#define BAND_CELLS     16

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

/* Whether cell changed at most within_ms before now. */
static bool
changed_within(const struct cell *cell, uint64_t now_ms, uint64_t within_ms)
{
	return cell->changed_ms != 0 && now_ms - cell->changed_ms <= within_ms;
}

static bool
animated_alone(const struct cell *cell, uint64_t now_ms)
{
	uint64_t oldest = cell->counted_ms[cell->next];
	uint64_t newest = cell->counted_ms[(cell->next + STEADY_CHANGES - 1) % STEADY_CHANGES];

	return oldest != 0 && newest - oldest <= STEADY_SPAN_MS &&
	       changed_within(cell, now_ms, REST_MS);
}

/* Whether t is a counted change within the span before now. */
static bool
in_span(uint64_t t, uint64_t now_ms)
{
	return t != 0 && t <= now_ms && now_ms - t <= STEADY_SPAN_MS;
}

static const struct cell *
cell_at(const struct vl_epd_anim *anim, int32_t c, int32_t r)
{
	if (c < 0 || r < 0 || c >= anim->columns || r >= anim->rows)
		return NULL;
	return &anim->cells[(size_t)r * anim->columns + c];
}

static size_t
changes_in_span(const struct cell *cell, uint64_t now_ms)
{
	size_t n = 0;

	for (size_t i = 0; i < STEADY_CHANGES; i++)
		n += in_span(cell->counted_ms[i], now_ms);
	return n;
}

/* Adds cell's counted changes in the span to times, n of them, each once; true when full. */
static bool
add_times(const struct cell *cell, uint64_t now_ms, uint64_t *times, size_t *n)
{
	for (size_t i = 0; i < STEADY_CHANGES; i++) {
		uint64_t t = cell->counted_ms[i];
		if (!in_span(t, now_ms))
			continue;
		size_t j = 0;
		while (j < *n && times[j] != t)
			j++;
		if (j == *n)
			times[(*n)++] = t;
		if (*n == STEADY_CHANGES)
			return true;
	}
	return false;
}

/*
 * Whether the band through cell (c, r) along (dc, dr) changed at
 * STEADY_CHANGES different times lately. The band is the run of cells
 * that changed in the span, up to BAND_CELLS either side: a block sliding
 * along a trough changes one run, two fields that change in turn with
 * text at rest between them are two. Cells animated alone add no times: a
 * spinner beside a caret makes no band of the two.
 */
static bool
band_steady(const struct vl_epd_anim *anim, int32_t c, int32_t r, int32_t dc, int32_t dr,
	uint64_t now_ms)
{
	uint64_t times[STEADY_CHANGES];
	size_t n = 0;

	if (add_times(cell_at(anim, c, r), now_ms, times, &n))
		return true;
	for (int32_t side = -1; side <= 1; side += 2) {
		for (int32_t k = 1; k <= BAND_CELLS; k++) {
			const struct cell *cell =
				cell_at(anim, c + side * k * dc, r + side * k * dr);
			if (!cell || !changed_within(cell, now_ms, STEADY_SPAN_MS))
				break;
			if (!animated_alone(cell, now_ms) && add_times(cell, now_ms, times, &n))
				return true;
		}
	}
	return false;
}

/*
 * A cell that changed lately without input, in a steady band along a row
 * or a column (a vertical progress bar), is animated: the block's leading
 * edge enters a cell once before it changes it again.
 */
static bool
animated(const struct vl_epd_anim *anim, int32_t c, int32_t r, uint64_t now_ms)
{
	const struct cell *cell = cell_at(anim, c, r);

	if (animated_alone(cell, now_ms))
		return true;
	if (!changed_within(cell, now_ms, REST_MS) || changes_in_span(cell, now_ms) == 0)
		return false;
	return band_steady(anim, c, r, 1, 0, now_ms) || band_steady(anim, c, r, 0, 1, now_ms);
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
			bool resting = !changed_within(cell_at(anim, c, r), now_ms, REST_MS);
			if (animated(anim, c, r, now_ms))
				any = true;
			else if (!resting)
				return false;
		}
	}
	return any;
}

/* Whether a cell of columns c1 to c2 and rows r1 to r2, clipped to the grid, is animated. */
static bool
any_animated(const struct vl_epd_anim *anim, int32_t c1, int32_t r1, int32_t c2, int32_t r2,
	uint64_t now_ms)
{
	c1 = c1 < 0 ? 0 : c1;
	r1 = r1 < 0 ? 0 : r1;
	c2 = c2 > anim->columns ? anim->columns : c2;
	r2 = r2 > anim->rows ? anim->rows : r2;
	for (int32_t r = r1; r < r2; r++)
		for (int32_t c = c1; c < c2; c++)
			if (animated(anim, c, r, now_ms))
				return true;
	return false;
}

bool
vl_epd_anim_beside(const struct vl_epd_anim *anim, const pixman_box32_t *box, uint64_t now_ms)
{
	int32_t c1, r1, c2, r2;

	if (!anim || !cell_range(anim, box, &c1, &r1, &c2, &r2))
		return false;
	return any_animated(anim, c1 - BAND_CELLS, r1, c2 + BAND_CELLS, r2, now_ms) ||
	       any_animated(anim, c1, r1 - BAND_CELLS, c2, r2 + BAND_CELLS, now_ms);
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
			bool on = c < anim->columns && animated(anim, c, r, now_ms);
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
