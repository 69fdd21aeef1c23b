/*
 * Damage is what the compositor redrew, not what changed: shrinking it to the
 * pixels that differ from what the panel was sent keeps a caret blink from
 * refreshing a line. Only pixels inside the damage are read.
 */
#include <string.h>

#include "pipeline.h"

bool
vl_epd_diff_box(const uint8_t *gray, const uint8_t *sent, uint32_t stride,
	const pixman_box32_t *box, pixman_box32_t *changed)
{
	int32_t x1 = box->x2, x2 = box->x1, y1 = box->y2, y2 = box->y1;
	const int32_t width = box->x2 - box->x1;

	for (int32_t y = box->y1; y < box->y2; y++) {
		const uint8_t *a = gray + (size_t)y * stride + box->x1;
		const uint8_t *b = sent + (size_t)y * stride + box->x1;
		if (memcmp(a, b, width) == 0)
			continue;
		int32_t first = 0, last = width - 1;
		while (a[first] == b[first])
			first++;
		while (a[last] == b[last])
			last--;
		if (box->x1 + first < x1)
			x1 = box->x1 + first;
		if (box->x1 + last + 1 > x2)
			x2 = box->x1 + last + 1;
		if (y < y1)
			y1 = y;
		y2 = y + 1;
	}
	if (x1 >= x2)
		return false;
	*changed = (pixman_box32_t){x1, y1, x2, y2};
	return true;
}
