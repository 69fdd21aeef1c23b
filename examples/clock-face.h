/* SPDX-License-Identifier: MIT */
/*
 * epaper-clock's face: the time as HH:MM:SS, black on white, as large as
 * the window allows, one cell per character, so that a tick redraws (and
 * damages) only the cells whose character changed. Tests draw the same face
 * to know what the panel should show.
 */
#ifndef CLOCK_FACE_H
#define CLOCK_FACE_H

#include <cairo.h>

#define CLOCK_FACE_CELLS 8 /* "HH:MM:SS" */

struct clock_face {
	int width, height;
	double font_size;
	double baseline;
	double origin_x, advance;
	/* each cell's pixels: every pixel its glyph may touch */
	cairo_rectangle_int_t cells[CLOCK_FACE_CELLS];
};

/* Lays the face out for a window of width x height pixels. */
void clock_face_init(struct clock_face *face, int width, int height);
/* Paints the whole window white and the text in its cells. */
void clock_face_draw(const struct clock_face *face, cairo_t *cr, const char *text);
/* Repaints cell i (white) with character ch. */
void clock_face_draw_cell(const struct clock_face *face, cairo_t *cr, int i, char ch);

#endif
