// SPDX-License-Identifier: MIT
/*
 * The pixels of queued updates, for devices that copy them out: taken when
 * an update is queued, claimed when it is submitted.
 */
#include <stdlib.h>
#include <string.h>

#include "device.h"

struct vl_epd_snapshot *
vl_epd_snapshot_take(const struct vl_epd_device *dev, const struct vl_epd_update *update)
{
	const struct vl_epd_rect *r = &update->rect;
	struct vl_epd_snapshot *snapshot = calloc(1, sizeof(*snapshot));

	if (!snapshot || !(snapshot->pixels = malloc((size_t)r->width * r->height))) {
		free(snapshot);
		return NULL;
	}
	for (uint32_t y = 0; y < r->height; y++)
		memcpy(snapshot->pixels + (size_t)y * r->width,
			dev->pixels + (size_t)(r->top + y) * dev->stride + r->left, r->width);
	snapshot->marker = update->marker;
	snapshot->rect = *r;
	return snapshot;
}

void
vl_epd_snapshot_add(struct vl_epd_snapshot **list, struct vl_epd_snapshot *snapshot)
{
	vl_epd_snapshot_free(vl_epd_snapshot_claim(list, snapshot->marker));
	snapshot->next = *list;
	*list = snapshot;
}

struct vl_epd_snapshot *
vl_epd_snapshot_claim(struct vl_epd_snapshot **list, uint32_t marker)
{
	for (struct vl_epd_snapshot **link = list; *link; link = &(*link)->next) {
		struct vl_epd_snapshot *snapshot = *link;
		if (snapshot->marker != marker)
			continue;
		*link = snapshot->next;
		return snapshot;
	}
	return NULL;
}

void
vl_epd_snapshot_free(struct vl_epd_snapshot *snapshot)
{
	if (snapshot)
		free(snapshot->pixels);
	free(snapshot);
}

void
vl_epd_snapshot_free_all(struct vl_epd_snapshot **list)
{
	while (*list) {
		struct vl_epd_snapshot *snapshot = *list;
		*list = snapshot->next;
		vl_epd_snapshot_free(snapshot);
	}
}
