// SPDX-License-Identifier: MIT
/*
 * The preview's overlay, the "why did it flash" view: each update the
 * panel model is driving, outlined in the window with its waveform's name,
 * and filled red when it flashes. Drawn with cairo into an ARGB image the
 * size of the window, which the preview lays over the panel.
 */
#include <cairo.h>
#include <stdio.h>
#include <wlr/util/box.h>

#include "overlay.h"
#include "panel-model.h"

/* The most updates in flight the model has: epdfb's EPDFB_MAX_IN_FLIGHT. */
#define OVERLAY_UPDATES_MAX 16
#define OVERLAY_FONT_SIZE   13.0

/* An update's rect, native panel coordinates, as the window shows it. */
static struct wlr_box
window_box(const struct vl_overlay_view *view, const struct mxcfb_rect *rect)
{
	struct wlr_box native = {
		(int)rect->left, (int)rect->top, (int)rect->width, (int)rect->height};
	struct wlr_box shown;

	wlr_box_transform(
		&shown, &native, view->transform, (int)view->panel_width, (int)view->panel_height);
	return (struct wlr_box){
		.x = view->x + (int)(shown.x * view->scale_x),
		.y = view->y + (int)(shown.y * view->scale_y),
		.width = (int)(shown.width * view->scale_x + 0.999),
		.height = (int)(shown.height * view->scale_y + 0.999),
	};
}

static void
label(cairo_t *cr, const struct wlr_box *box, const char *text)
{
	cairo_text_extents_t extents;

	cairo_text_extents(cr, text, &extents);
	double x = box->x + 2, y = box->y + 2;
	cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
	cairo_rectangle(cr, x, y, extents.x_advance + 6, OVERLAY_FONT_SIZE + 4);
	cairo_fill(cr);
	cairo_set_source_rgb(cr, 0.1, 0.2, 0.9);
	cairo_move_to(cr, x + 3, y + OVERLAY_FONT_SIZE);
	cairo_show_text(cr, text);
}

size_t
vl_overlay_draw(const struct vl_overlay_view *view, struct vl_panel_model *model, uint32_t *argb)
{
	struct vl_panel_model_trace updates[OVERLAY_UPDATES_MAX];
	size_t n = vl_panel_model_in_flight(model, updates, OVERLAY_UPDATES_MAX);
	cairo_surface_t *surface = cairo_image_surface_create_for_data((unsigned char *)argb,
		CAIRO_FORMAT_ARGB32, view->width, view->height, view->width * 4);
	cairo_t *cr = cairo_create(surface);

	cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR);
	cairo_paint(cr);
	cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
	cairo_set_font_size(cr, OVERLAY_FONT_SIZE);
	cairo_set_line_width(cr, 2);
	for (size_t i = 0; i < n; i++) {
		struct wlr_box box = window_box(view, &updates[i].rect);
		const char *name = vl_panel_model_waveform_name(updates[i].waveform);
		char text[48];

		cairo_rectangle(cr, box.x + 1, box.y + 1, box.width - 2, box.height - 2);
		if (updates[i].flashing) {
			cairo_set_source_rgba(cr, 0.9, 0.1, 0.1, 0.35);
			cairo_fill_preserve(cr);
			cairo_set_source_rgb(cr, 0.9, 0.1, 0.1);
		} else {
			cairo_set_source_rgb(cr, 0.1, 0.2, 0.9);
		}
		cairo_stroke(cr);
		snprintf(text, sizeof(text), "%s%s%s", name ? name : "?",
			updates[i].mode == UPDATE_MODE_FULL ? " full" : "",
			updates[i].flashing ? " flash" : "");
		label(cr, &box, text);
	}
	cairo_destroy(cr);
	cairo_surface_flush(surface);
	cairo_surface_destroy(surface);
	return n;
}
