// SPDX-License-Identifier: MIT
/*
 * A black frame of VL_BORDER_WIDTH around a dialog, drawn as four rects in
 * the dialog's own tree: it moves, shows and goes with the dialog, and
 * popups drawn in that tree stay above it.
 */
#include <wlr/types/wlr_scene.h>

#include "border.h"

static const float black[4] = {0, 0, 0, 1};

void
vl_border_forget(struct vl_border *border)
{
	for (int i = 0; i < 4; i++)
		border->sides[i] = NULL;
}

bool
vl_border_update(
	struct vl_border *border, struct wlr_scene_tree *tree, bool shown, int width, int height)
{
	const int b = VL_BORDER_WIDTH;

	if (!shown || !tree || width <= 0 || height <= 0) {
		for (int i = 0; i < 4; i++)
			if (border->sides[i])
				wlr_scene_node_destroy(&border->sides[i]->node);
		vl_border_forget(border);
		return true;
	}
	/* top, bottom, left, right */
	const struct {
		int x, y, width, height;
	} sides[4] = {
		{-b, -b, width + 2 * b, b},
		{-b, height, width + 2 * b, b},
		{-b, 0, b, height},
		{width, 0, b, height},
	};
	for (int i = 0; i < 4; i++) {
		if (!border->sides[i]) {
			border->sides[i] = wlr_scene_rect_create(tree, 1, 1, black);
			if (!border->sides[i])
				return false;
			wlr_scene_node_lower_to_bottom(&border->sides[i]->node);
		}
		wlr_scene_rect_set_size(border->sides[i], sides[i].width, sides[i].height);
		wlr_scene_node_set_position(&border->sides[i]->node, sides[i].x, sides[i].y);
	}
	return true;
}
