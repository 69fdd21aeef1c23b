// SPDX-License-Identifier: MIT
#include "clock-face.h"

#include <math.h>

/* A monospaced face: every digit has the same advance, so cells never move. */
#define CLOCK_FONT "DejaVu Sans Mono"

static void
select_font(const struct clock_face *face, cairo_t *cr)
{
	cairo_select_font_face(cr, CLOCK_FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
	cairo_set_font_size(cr, face->font_size);
}

void
clock_face_init(struct clock_face *face, int width, int height)
{
	cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
	cairo_t *cr = cairo_create(scratch);
	cairo_font_extents_t font;
	cairo_text_extents_t digit;

	face->width = width;
	face->height = height;
	/* measure at size 100, then scale to fill 90% of the width or 50% of the height */
	face->font_size = 100;
	select_font(face, cr);
	cairo_text_extents(cr, "0", &digit);
	double size_w = 100 * width * 0.9 / (digit.x_advance * CLOCK_FACE_CELLS);
	cairo_font_extents(cr, &font);
	double size_h = 100 * height * 0.5 / (font.ascent + font.descent);
	face->font_size = floor(size_w < size_h ? size_w : size_h);
	if (face->font_size < 1)
		face->font_size = 1;

	select_font(face, cr);
	cairo_font_extents(cr, &font);
	cairo_text_extents(cr, "0", &digit);
	face->advance = digit.x_advance;
	face->origin_x = floor((width - face->advance * CLOCK_FACE_CELLS) / 2);
	face->baseline = floor((height - (font.ascent + font.descent)) / 2 + font.ascent);
	/* a glyph may reach past its advance a little; cells meet halfway there */
	int top = (int)floor(face->baseline - font.ascent) - 2;
	int bottom = (int)ceil(face->baseline + font.descent) + 2;
	for (int i = 0; i < CLOCK_FACE_CELLS; i++) {
		int left = (int)floor(face->origin_x + i * face->advance);
		int right = (int)floor(face->origin_x + (i + 1) * face->advance);

		face->cells[i] = (cairo_rectangle_int_t){left, top, right - left, bottom - top};
	}
	cairo_destroy(cr);
	cairo_surface_destroy(scratch);
}

void
clock_face_draw_cell(const struct clock_face *face, cairo_t *cr, int i, char ch)
{
	const cairo_rectangle_int_t *cell = &face->cells[i];
	char text[2] = {ch, '\0'};

	cairo_save(cr);
	cairo_rectangle(cr, cell->x, cell->y, cell->width, cell->height);
	cairo_clip(cr);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_set_source_rgb(cr, 0, 0, 0);
	select_font(face, cr);
	cairo_move_to(cr, face->origin_x + i * face->advance, face->baseline);
	cairo_show_text(cr, text);
	cairo_restore(cr);
}

void
clock_face_draw(const struct clock_face *face, cairo_t *cr, const char *text)
{
	cairo_save(cr);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_restore(cr);
	for (int i = 0; i < CLOCK_FACE_CELLS && text[i]; i++)
		clock_face_draw_cell(face, cr, i, text[i]);
}
