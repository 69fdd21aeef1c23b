// SPDX-License-Identifier: MIT
/*
 * Ghost debt. Non-flashing updates leave a residue of the previous image
 * that builds up with each one, most with A2, least with GL16 and partial
 * GC16; a flashing update wipes it. The panel is tracked in square cells:
 * each partial update adds to the cells it touches, and once a cell has
 * had enough, the next update covering it flashes. Cells drawn fast (by
 * the input policy, or in a two-level waveform a client asked for) are
 * remembered for the idle cleanup, which redraws them and flashes those
 * whose debt asks for it.
 */
#include <epdfb.h>
#include <stdlib.h>
#include <vellum/epd-pipeline.h>

struct cell {
	uint32_t partials;
	uint32_t debt;
	bool remembered; /* drawn fast: the idle cleanup redraws it */
};

struct vl_epd_ghost {
	struct vl_epd_ghost_options options;
	int32_t cols, rows;
	struct cell *cells;
	uint64_t last_update_ms;
};

void
vl_epd_ghost_options_default(
	struct vl_epd_ghost_options *options, int32_t panel_width, int32_t panel_height)
{
	if (!options)
		return;
	*options = (struct vl_epd_ghost_options){
		.panel_width = panel_width,
		.panel_height = panel_height,
		.cell_size = 64,
		.full_refresh_every = 0,
		.debt_threshold = 40,
		.cleanup_debt = 4,
		.idle_cleanup_ms = 0,
		.debt_a2 = 4,
		.debt_du = 2,
		.debt_gc4 = 2,
		.debt_gl16 = 1,
		.debt_gc16 = 1,
		.debt_other = 2,
	};
}

struct vl_epd_ghost *
vl_epd_ghost_create(const struct vl_epd_ghost_options *options)
{
	if (!options || options->panel_width <= 0 || options->panel_height <= 0 ||
		options->cell_size <= 0)
		return NULL;

	struct vl_epd_ghost *ghost = calloc(1, sizeof(*ghost));
	if (!ghost)
		return NULL;
	ghost->options = *options;
	/* Larger cells are one cell; this keeps cell coordinates from overflowing. */
	int32_t longest = options->panel_width > options->panel_height ? options->panel_width
								       : options->panel_height;
	if (ghost->options.cell_size > longest)
		ghost->options.cell_size = longest;
	const int32_t size = ghost->options.cell_size;
	ghost->cols = (options->panel_width - 1) / size + 1;
	ghost->rows = (options->panel_height - 1) / size + 1;
	ghost->cells = calloc((size_t)ghost->cols * ghost->rows, sizeof(*ghost->cells));
	if (!ghost->cells) {
		free(ghost);
		return NULL;
	}
	return ghost;
}

void
vl_epd_ghost_destroy(struct vl_epd_ghost *ghost)
{
	if (!ghost)
		return;
	free(ghost->cells);
	free(ghost);
}

void
vl_epd_ghost_set_policy(
	struct vl_epd_ghost *ghost, uint32_t full_refresh_every, uint32_t idle_cleanup_ms)
{
	ghost->options.full_refresh_every = full_refresh_every;
	ghost->options.idle_cleanup_ms = idle_cleanup_ms;
}

/* The cells box touches, as inclusive column and row ranges; false if none. */
static bool
cell_range(const struct vl_epd_ghost *ghost, const pixman_box32_t *box, pixman_box32_t *clipped,
	int32_t *c1, int32_t *r1, int32_t *c2, int32_t *r2)
{
	*clipped = *box;
	if (!vl_epd_box_clip(clipped, ghost->options.panel_width, ghost->options.panel_height))
		return false;
	int32_t size = ghost->options.cell_size;
	*c1 = clipped->x1 / size;
	*r1 = clipped->y1 / size;
	*c2 = (clipped->x2 - 1) / size;
	*r2 = (clipped->y2 - 1) / size;
	return true;
}

static pixman_box32_t
cell_box(const struct vl_epd_ghost *ghost, int32_t col, int32_t row)
{
	int32_t size = ghost->options.cell_size;
	pixman_box32_t box = {col * size, row * size, (col + 1) * size, (row + 1) * size};

	vl_epd_box_clip(&box, ghost->options.panel_width, ghost->options.panel_height);
	return box;
}

static bool
cell_due(const struct vl_epd_ghost *ghost, const struct cell *cell)
{
	uint32_t every = ghost->options.full_refresh_every;
	uint32_t threshold = ghost->options.debt_threshold;

	return (every && cell->partials >= every) || (threshold && cell->debt >= threshold);
}

bool
vl_epd_ghost_promote(
	const struct vl_epd_ghost *ghost, const pixman_box32_t *box, pixman_box32_t *promoted)
{
	pixman_box32_t b, grown;
	int32_t c1, r1, c2, r2;
	bool due = false;

	if (!ghost || !box || !promoted || !cell_range(ghost, box, &b, &c1, &r1, &c2, &r2))
		return false;
	grown = b;
	for (int32_t row = r1; row <= r2; row++) {
		for (int32_t col = c1; col <= c2; col++) {
			if (!cell_due(ghost, &ghost->cells[(size_t)row * ghost->cols + col]))
				continue;
			pixman_box32_t cell = cell_box(ghost, col, row);
			grown.x1 = cell.x1 < grown.x1 ? cell.x1 : grown.x1;
			grown.y1 = cell.y1 < grown.y1 ? cell.y1 : grown.y1;
			grown.x2 = cell.x2 > grown.x2 ? cell.x2 : grown.x2;
			grown.y2 = cell.y2 > grown.y2 ? cell.y2 : grown.y2;
			due = true;
		}
	}
	if (due)
		*promoted = grown;
	return due;
}

static uint32_t
debt_of(const struct vl_epd_ghost_options *options, uint32_t waveform)
{
	switch (waveform) {
	case WAVEFORM_MODE_A2:
		return options->debt_a2;
	case WAVEFORM_MODE_DU:
		return options->debt_du;
	case WAVEFORM_MODE_GC4:
		return options->debt_gc4;
	case WAVEFORM_MODE_GL16:
		return options->debt_gl16;
	case WAVEFORM_MODE_GC16:
		return options->debt_gc16;
	default:
		return options->debt_other;
	}
}

static uint32_t
add_saturating(uint32_t a, uint32_t b)
{
	return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

void
vl_epd_ghost_record(struct vl_epd_ghost *ghost, const pixman_box32_t *box, uint32_t waveform,
	bool flashing, uint64_t now_ms)
{
	pixman_box32_t b;
	int32_t c1, r1, c2, r2;

	if (!ghost || !box || !cell_range(ghost, box, &b, &c1, &r1, &c2, &r2))
		return;
	ghost->last_update_ms = now_ms;
	uint32_t debt = debt_of(&ghost->options, waveform);
	for (int32_t row = r1; row <= r2; row++) {
		for (int32_t col = c1; col <= c2; col++) {
			struct cell *cell = &ghost->cells[(size_t)row * ghost->cols + col];
			if (!flashing) {
				cell->partials = add_saturating(cell->partials, 1);
				cell->debt = add_saturating(cell->debt, debt);
				continue;
			}
			/* A flash wipes the residue only where it drove the pixels. */
			pixman_box32_t c = cell_box(ghost, col, row);
			if (b.x1 <= c.x1 && b.y1 <= c.y1 && b.x2 >= c.x2 && b.y2 >= c.y2)
				*cell = (struct cell){0};
		}
	}
}

void
vl_epd_ghost_settle(struct vl_epd_ghost *ghost, const pixman_box32_t *box)
{
	pixman_box32_t b;
	int32_t c1, r1, c2, r2;

	if (!ghost || !box || !cell_range(ghost, box, &b, &c1, &r1, &c2, &r2))
		return;
	uint32_t below = ghost->options.cleanup_debt ? ghost->options.cleanup_debt - 1 : 0;
	for (int32_t row = r1; row <= r2; row++) {
		for (int32_t col = c1; col <= c2; col++) {
			struct cell *cell = &ghost->cells[(size_t)row * ghost->cols + col];
			cell->debt = cell->debt < below ? cell->debt : below;
		}
	}
}

void
vl_epd_ghost_remember(struct vl_epd_ghost *ghost, const pixman_box32_t *box)
{
	pixman_box32_t b;
	int32_t c1, r1, c2, r2;

	if (!ghost || !box || !cell_range(ghost, box, &b, &c1, &r1, &c2, &r2))
		return;
	for (int32_t row = r1; row <= r2; row++)
		for (int32_t col = c1; col <= c2; col++)
			ghost->cells[(size_t)row * ghost->cols + col].remembered = true;
}

void
vl_epd_ghost_forget(struct vl_epd_ghost *ghost, const pixman_box32_t *box)
{
	pixman_box32_t b;
	int32_t c1, r1, c2, r2;

	if (!ghost || !box || !cell_range(ghost, box, &b, &c1, &r1, &c2, &r2))
		return;
	for (int32_t row = r1; row <= r2; row++) {
		for (int32_t col = c1; col <= c2; col++) {
			pixman_box32_t c = cell_box(ghost, col, row);
			if (b.x1 <= c.x1 && b.y1 <= c.y1 && b.x2 >= c.x2 && b.y2 >= c.y2)
				ghost->cells[(size_t)row * ghost->cols + col].remembered = false;
		}
	}
}

static void
add_cell(const struct vl_epd_ghost *ghost, pixman_region32_t *region, int32_t col, int32_t row)
{
	if (!region)
		return;
	pixman_box32_t c = cell_box(ghost, col, row);
	pixman_region32_union_rect(region, region, c.x1, c.y1, c.x2 - c.x1, c.y2 - c.y1);
}

int64_t
vl_epd_ghost_cleanup(const struct vl_epd_ghost *ghost, uint64_t now_ms, uint64_t *deadline_ms,
	pixman_region32_t *flash, pixman_region32_t *redraw)
{
	uint32_t cleanup_debt = ghost ? ghost->options.cleanup_debt : 0;
	bool dirty = false;

	if (!ghost || !deadline_ms || ghost->options.idle_cleanup_ms == 0)
		return -1;
	if (flash)
		pixman_region32_clear(flash);
	if (redraw)
		pixman_region32_clear(redraw);
	for (int32_t row = 0; row < ghost->rows; row++) {
		for (int32_t col = 0; col < ghost->cols; col++) {
			const struct cell *cell = &ghost->cells[(size_t)row * ghost->cols + col];
			bool due = cell_due(ghost, cell);
			if (!due && !cell->remembered)
				continue;
			dirty = true;
			if (due || (cleanup_debt && cell->debt >= cleanup_debt))
				add_cell(ghost, flash, col, row);
			else
				add_cell(ghost, redraw, col, row);
		}
	}
	if (!dirty)
		return -1;
	*deadline_ms = ghost->last_update_ms + ghost->options.idle_cleanup_ms;
	return *deadline_ms > now_ms ? (int64_t)(*deadline_ms - now_ms) : 0;
}

bool
vl_epd_ghost_cell(
	const struct vl_epd_ghost *ghost, int32_t x, int32_t y, uint32_t *partials, uint32_t *debt)
{
	if (!ghost || x < 0 || y < 0 || x >= ghost->options.panel_width ||
		y >= ghost->options.panel_height)
		return false;
	const struct cell *cell =
		&ghost->cells[(size_t)(y / ghost->options.cell_size) * ghost->cols +
			      x / ghost->options.cell_size];
	if (partials)
		*partials = cell->partials;
	if (debt)
		*debt = cell->debt;
	return true;
}
