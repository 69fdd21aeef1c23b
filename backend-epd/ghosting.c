/*
 * Ghost debt per 64x64 cell of the panel. Each non-flashing update adds debt
 * to the cells it covers, by how much its waveform ghosts (A2 most, DU less,
 * GC4 and the 16-level ones least) and counts as a partial. The next
 * non-animation update of a cell that had full_refresh_every partials, or
 * whose debt passed the limit, becomes a flashing refresh; animation (A2)
 * never flashes mid-way and is cleaned up once input idles instead.
 */
#include <epdfb.h>
#include <stdlib.h>

#include "pipeline.h"

#define CELL_SIZE  64
#define DEBT_LIMIT 64

struct cell {
	uint32_t partials;
	uint32_t debt;
};

struct vl_epd_ghost {
	uint32_t columns, rows;
	unsigned int full_refresh_every;
	unsigned int idle_cleanup_ms;
	struct cell cells[];
};

static uint32_t
debt_of(uint32_t waveform)
{
	switch (waveform) {
	case WAVEFORM_MODE_A2:
		return 8;
	case WAVEFORM_MODE_DU:
		return 4;
	case WAVEFORM_MODE_GC4:
		return 2;
	default:
		return 1;
	}
}

struct vl_epd_ghost *
vl_epd_ghost_create(uint32_t width, uint32_t height, unsigned int full_refresh_every,
	unsigned int idle_cleanup_ms)
{
	uint32_t columns = (width + CELL_SIZE - 1) / CELL_SIZE;
	uint32_t rows = (height + CELL_SIZE - 1) / CELL_SIZE;
	struct vl_epd_ghost *ghost =
		calloc(1, sizeof(*ghost) + (size_t)columns * rows * sizeof(struct cell));

	if (!ghost)
		return NULL;
	ghost->columns = columns;
	ghost->rows = rows;
	ghost->full_refresh_every = full_refresh_every;
	ghost->idle_cleanup_ms = idle_cleanup_ms;
	return ghost;
}

void
vl_epd_ghost_destroy(struct vl_epd_ghost *ghost)
{
	free(ghost);
}

/* Cells a box covers, clipped to the panel. */
static void
cell_range(const struct vl_epd_ghost *ghost, const pixman_box32_t *box, uint32_t *c1, uint32_t *r1,
	uint32_t *c2, uint32_t *r2)
{
	*c1 = box->x1 > 0 ? (uint32_t)box->x1 / CELL_SIZE : 0;
	*r1 = box->y1 > 0 ? (uint32_t)box->y1 / CELL_SIZE : 0;
	*c2 = box->x2 > 0 ? ((uint32_t)box->x2 + CELL_SIZE - 1) / CELL_SIZE : 0;
	*r2 = box->y2 > 0 ? ((uint32_t)box->y2 + CELL_SIZE - 1) / CELL_SIZE : 0;
	if (*c2 > ghost->columns)
		*c2 = ghost->columns;
	if (*r2 > ghost->rows)
		*r2 = ghost->rows;
}

bool
vl_epd_ghost_promote(
	struct vl_epd_ghost *ghost, const pixman_box32_t *box, uint32_t waveform, bool full)
{
	uint32_t c1, r1, c2, r2;

	if (full || waveform == WAVEFORM_MODE_A2)
		return false;
	cell_range(ghost, box, &c1, &r1, &c2, &r2);
	for (uint32_t r = r1; r < r2; r++) {
		for (uint32_t c = c1; c < c2; c++) {
			const struct cell *cell = &ghost->cells[r * ghost->columns + c];
			if (ghost->full_refresh_every > 0 &&
				cell->partials >= ghost->full_refresh_every)
				return true;
			if (cell->debt >= DEBT_LIMIT)
				return true;
		}
	}
	return false;
}

void
vl_epd_ghost_record(struct vl_epd_ghost *ghost, const pixman_box32_t *box, uint32_t waveform,
	bool full, bool flashing)
{
	uint32_t c1, r1, c2, r2;
	(void)full;

	cell_range(ghost, box, &c1, &r1, &c2, &r2);
	for (uint32_t r = r1; r < r2; r++) {
		for (uint32_t c = c1; c < c2; c++) {
			struct cell *cell = &ghost->cells[r * ghost->columns + c];
			if (flashing) {
				*cell = (struct cell){0};
				continue;
			}
			cell->partials++;
			cell->debt += debt_of(waveform);
		}
	}
}

bool
vl_epd_ghost_cleanup(const struct vl_epd_ghost *ghost, pixman_box32_t *box, unsigned int *delay_ms)
{
	bool dirty = false;

	if (ghost->idle_cleanup_ms == 0)
		return false;
	*box = (pixman_box32_t){INT32_MAX, INT32_MAX, 0, 0};
	for (uint32_t r = 0; r < ghost->rows; r++) {
		for (uint32_t c = 0; c < ghost->columns; c++) {
			if (ghost->cells[r * ghost->columns + c].debt == 0)
				continue;
			dirty = true;
			if ((int32_t)(c * CELL_SIZE) < box->x1)
				box->x1 = c * CELL_SIZE;
			if ((int32_t)(r * CELL_SIZE) < box->y1)
				box->y1 = r * CELL_SIZE;
			if ((int32_t)((c + 1) * CELL_SIZE) > box->x2)
				box->x2 = (c + 1) * CELL_SIZE;
			if ((int32_t)((r + 1) * CELL_SIZE) > box->y2)
				box->y2 = (r + 1) * CELL_SIZE;
		}
	}
	*delay_ms = ghost->idle_cleanup_ms;
	return dirty;
}
