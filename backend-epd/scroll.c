// SPDX-License-Identifier: MIT
/*
 * Scroll detection. A terminal printing a line, or a list dragged by a
 * finger, changes the whole window, as a new page does; but a scroll shows
 * the rows that were there, moved. Each row of the box is hashed in the
 * content sent and in the new one; a row that appears once in the old
 * content votes for the distance it moved; the distance most rows voted
 * for is a scroll when most rows of the new content are old rows moved by
 * it.
 */
#include <stdlib.h>
#include <string.h>
#include <vellum/epd-pipeline.h>

/* Fewer rows than this agreeing is chance, not a scroll. */
#define MIN_AGREEING_ROWS 8
/* the hash of every flat row: they tell no shift */
#define FLAT_ROW 0

struct row_slot {
	uint64_t hash;
	int32_t row; /* -1: empty; -2: the hash of more than one row */
};

/*
 * A row's hash, FLAT_ROW for a row of one value. Eight pixels at a time: a
 * page's rows are hashed within a frame's budget.
 */
static uint64_t
hash_row(const uint8_t *p, int32_t width)
{
	const uint64_t first = p[0] * 0x0101010101010101ull;
	uint64_t h = 1469598103934665603ull, differs = 0, word;
	int32_t x = 0;

	for (; x + 8 <= width; x += 8) {
		memcpy(&word, p + x, sizeof(word));
		differs |= word ^ first;
		h = (h ^ word) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	for (; x < width; x++) {
		differs |= p[x] ^ p[0];
		h = (h ^ p[x]) * 0x100000001b3ull;
	}
	if (differs == 0)
		return FLAT_ROW;
	return h == FLAT_ROW ? 1 : h;
}

static struct row_slot *
find_slot(struct row_slot *slots, size_t mask, uint64_t hash)
{
	size_t i = (size_t)(hash ^ (hash >> 29)) & mask;

	while (slots[i].row != -1 && slots[i].hash != hash)
		i = (i + 1) & mask;
	return &slots[i];
}

static void
hash_rows(const struct vl_epd_gray *gray, const pixman_box32_t *box, uint64_t *hashes)
{
	for (int32_t y = box->y1; y < box->y2; y++)
		hashes[y - box->y1] = hash_row(
			gray->data + (size_t)y * gray->stride + box->x1, box->x2 - box->x1);
}

/* The shift most of cur's rows that occur once in prev vote for; false if none. */
static bool
likely_shift(const uint64_t *cur, const uint64_t *prev, int32_t rows, int32_t *shift)
{
	size_t size = 1;
	while (size < (size_t)rows * 2)
		size <<= 1;
	struct row_slot *slots = malloc(size * sizeof(*slots));
	uint32_t *votes = calloc((size_t)rows * 2, sizeof(*votes));
	int32_t best = -1;

	if (!slots || !votes)
		goto out;
	for (size_t i = 0; i < size; i++)
		slots[i].row = -1;
	for (int32_t y = 0; y < rows; y++) {
		if (prev[y] == FLAT_ROW)
			continue;
		struct row_slot *slot = find_slot(slots, size - 1, prev[y]);
		slot->row = slot->row == -1 ? y : -2;
		slot->hash = prev[y];
	}
	for (int32_t y = 0; y < rows; y++) {
		if (cur[y] == FLAT_ROW)
			continue;
		const struct row_slot *slot = find_slot(slots, size - 1, cur[y]);
		if (slot->row >= 0)
			votes[y - slot->row + rows]++;
	}
	/* votes[rows] is no shift: rows that stayed */
	for (int32_t i = 1; i < rows * 2; i++)
		if (i != rows && votes[i] > 0 && (best < 0 || votes[i] > votes[best]))
			best = i;
out:
	free(slots);
	free(votes);
	if (best < 0)
		return false;
	*shift = best - rows;
	return true;
}

bool
vl_epd_detect_scroll(const struct vl_epd_gray *cur, const struct vl_epd_gray *prev,
	const pixman_box32_t *box, int32_t *shift)
{
	pixman_box32_t b = *box;

	if (!cur || !prev || !shift || !vl_epd_box_clip(&b, cur->width, cur->height) ||
		!vl_epd_box_clip(&b, prev->width, prev->height))
		return false;
	int32_t rows = b.y2 - b.y1;
	if (rows < MIN_AGREEING_ROWS)
		return false;
	uint64_t *cur_rows = malloc((size_t)rows * sizeof(*cur_rows));
	uint64_t *prev_rows = malloc((size_t)rows * sizeof(*prev_rows));
	bool found = false;
	if (!cur_rows || !prev_rows)
		goto out;
	hash_rows(cur, &b, cur_rows);
	hash_rows(prev, &b, prev_rows);

	int32_t d;
	if (!likely_shift(cur_rows, prev_rows, rows, &d))
		goto out;
	/*
	 * Checked row by row, repeated rows too (the stems of a line of text):
	 * most rows that did not come in from the edge must be old rows moved.
	 */
	uint32_t moved = 0, textured = 0;
	for (int32_t y = d > 0 ? d : 0; y < (d < 0 ? rows + d : rows); y++) {
		if (cur_rows[y] == FLAT_ROW)
			continue;
		textured++;
		moved += cur_rows[y] == prev_rows[y - d];
	}
	if (moved >= MIN_AGREEING_ROWS && moved * 4 >= textured * 3) {
		*shift = d;
		found = true;
	}
out:
	free(cur_rows);
	free(prev_rows);
	return found;
}
