// SPDX-License-Identifier: MIT
/*
 * Damage to the pixels that really changed: each damaged rect shrinks to
 * the bounding box of what differs from the image last sent to the panel.
 * Clients and the scene damage more than they change (a redrawn button, a
 * blinking cursor's whole line); the panel must only drive real changes.
 */
#include <string.h>
#include <vellum/epd-pipeline.h>

/* Index of the first byte where a and b differ, or n. */
static int32_t
first_diff(const uint8_t *a, const uint8_t *b, int32_t n)
{
	int32_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t wa, wb;
		memcpy(&wa, a + i, 8);
		memcpy(&wb, b + i, 8);
		if (wa != wb)
			break;
	}
	for (; i < n; i++) {
		if (a[i] != b[i])
			return i;
	}
	return n;
}

/* Index of the last byte where a and b differ, or -1. */
static int32_t
last_diff(const uint8_t *a, const uint8_t *b, int32_t n)
{
	int32_t i = n;

	for (; i >= 8; i -= 8) {
		uint64_t wa, wb;
		memcpy(&wa, a + i - 8, 8);
		memcpy(&wb, b + i - 8, 8);
		if (wa != wb)
			break;
	}
	while (i > 0) {
		i--;
		if (a[i] != b[i])
			return i;
	}
	return -1;
}

bool
vl_epd_diff_box(const struct vl_epd_gray *cur, const struct vl_epd_gray *prev,
	const pixman_box32_t *box, pixman_box32_t *changed)
{
	if (!vl_epd_gray_valid(cur) || !vl_epd_gray_valid(prev) || !box || !changed)
		return false;
	pixman_box32_t b = *box;
	if (!vl_epd_box_clip(&b, cur->width, cur->height) ||
		!vl_epd_box_clip(&b, prev->width, prev->height))
		return false;

	const int32_t w = b.x2 - b.x1;
	const uint8_t *c = cur->data + b.x1, *p = prev->data + b.x1;
#define CUR(y)  (c + (size_t)(y) * cur->stride)
#define PREV(y) (p + (size_t)(y) * prev->stride)

	int32_t top = b.y1;
	while (top < b.y2 && memcmp(CUR(top), PREV(top), w) == 0)
		top++;
	if (top == b.y2)
		return false;
	int32_t bottom = b.y2 - 1;
	while (bottom > top && memcmp(CUR(bottom), PREV(bottom), w) == 0)
		bottom--;

	/* Each row only needs scanning outside the columns known to differ. */
	int32_t left = first_diff(CUR(top), PREV(top), w);
	int32_t right = last_diff(CUR(top), PREV(top), w);
	for (int32_t y = top + 1; y <= bottom && (left > 0 || right < w - 1); y++) {
		int32_t l = first_diff(CUR(y), PREV(y), left);
		if (l < left)
			left = l;
		int32_t r = last_diff(CUR(y) + right + 1, PREV(y) + right + 1, w - right - 1);
		if (r >= 0)
			right += r + 1;
	}
#undef CUR
#undef PREV

	*changed = (pixman_box32_t){
		.x1 = b.x1 + left,
		.y1 = top,
		.x2 = b.x1 + right + 1,
		.y2 = bottom + 1,
	};
	return true;
}

size_t
vl_epd_diff(const struct vl_epd_gray *cur, const struct vl_epd_gray *prev,
	const pixman_region32_t *damage, pixman_box32_t *out, size_t capacity)
{
	size_t n = 0;
	int n_rects;

	if (!damage || !out || capacity == 0)
		return 0;
	const pixman_box32_t *rects = pixman_region32_rectangles(damage, &n_rects);
	for (int i = 0; i < n_rects; i++) {
		pixman_box32_t changed;
		if (!vl_epd_diff_box(cur, prev, &rects[i], &changed))
			continue;
		if (n < capacity) {
			out[n++] = changed;
			continue;
		}
		out[n - 1] = vl_epd_box_union(&out[n - 1], &changed);
	}
	return n;
}
