// SPDX-License-Identifier: MIT
/*
 * Boxes and gray images: the checks every stage starts with.
 */
#include <vellum/epd-pipeline.h>

bool
vl_epd_gray_valid(const struct vl_epd_gray *gray)
{
	return gray && gray->data && gray->width > 0 && gray->height > 0 &&
	       gray->stride >= gray->width;
}

bool
vl_epd_box_clip(pixman_box32_t *box, int32_t width, int32_t height)
{
	if (!box)
		return false;
	if (box->x1 < 0)
		box->x1 = 0;
	if (box->y1 < 0)
		box->y1 = 0;
	if (box->x2 > width)
		box->x2 = width;
	if (box->y2 > height)
		box->y2 = height;
	if (box->x1 >= box->x2 || box->y1 >= box->y2) {
		*box = (pixman_box32_t){0};
		return false;
	}
	return true;
}

uint64_t
vl_epd_box_area(const pixman_box32_t *box)
{
	if (!box || box->x1 >= box->x2 || box->y1 >= box->y2)
		return 0;
	return (uint64_t)((int64_t)box->x2 - box->x1) * (uint64_t)((int64_t)box->y2 - box->y1);
}

pixman_box32_t
vl_epd_box_union(const pixman_box32_t *a, const pixman_box32_t *b)
{
	return (pixman_box32_t){
		.x1 = a->x1 < b->x1 ? a->x1 : b->x1,
		.y1 = a->y1 < b->y1 ? a->y1 : b->y1,
		.x2 = a->x2 > b->x2 ? a->x2 : b->x2,
		.y2 = a->y2 > b->y2 ? a->y2 : b->y2,
	};
}
