/* SPDX-License-Identifier: MIT */
/*
 * epaper-reader's pages: a text set in lines that fit the window, with a
 * blank line between paragraphs, cut into pages, each drawn black on white
 * with its number at the bottom. Tests lay a text out the same way to know
 * what the panel should show.
 */
#ifndef READER_LAYOUT_H
#define READER_LAYOUT_H

#include <cairo.h>
#include <stddef.h>

struct reader_layout;

/*
 * Lays text (UTF-8; invalid bytes show as U+FFFD) out for a window of
 * width x height pixels; NULL when out of memory.
 */
struct reader_layout *reader_layout_create(const char *text, int width, int height);
void reader_layout_destroy(struct reader_layout *layout);
/* At least 1: an empty text has one empty page. */
size_t reader_layout_pages(const struct reader_layout *layout);
/* Paints the whole window with page (0-based). */
void reader_layout_draw_page(const struct reader_layout *layout, cairo_t *cr, size_t page);

#endif
