// SPDX-License-Identifier: MIT
#include "reader-layout.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define READER_FONT "DejaVu Serif"

struct reader_layout {
	int width, height;
	double font_size, line_height, margin_x, margin_top;
	size_t lines_per_page;
	char **lines; /* "" between paragraphs */
	size_t n_lines, lines_capacity;
	size_t *page_first; /* each page's first line */
	size_t n_pages;
};

/* Length of the valid UTF-8 sequence at s, or 0 when it is not one. */
static size_t
utf8_sequence(const unsigned char *s)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and values past Unicode are not text */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
		(cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/*
 * The text as cairo can show it: valid UTF-8, invalid bytes replaced by
 * U+FFFD, tabs as spaces, other control characters but newlines dropped.
 */
static char *
clean_text(const char *text)
{
	size_t len = strlen(text), n = 0;
	char *out = malloc(len * 3 + 1);

	if (!out)
		return NULL;
	for (const unsigned char *s = (const unsigned char *)text; *s;) {
		size_t seq = utf8_sequence(s);

		if (seq == 0) {
			memcpy(out + n, "\xef\xbf\xbd", 3);
			n += 3;
			s++;
		} else if (seq == 1 && (*s == '\t' || *s == '\n' || *s >= 0x20) && *s != 0x7f) {
			out[n++] = *s == '\t' ? ' ' : (char)*s;
			s++;
		} else if (seq == 1) {
			s++;
		} else {
			memcpy(out + n, s, seq);
			n += seq;
			s += seq;
		}
	}
	out[n] = '\0';
	return out;
}

static bool
add_line(struct reader_layout *layout, const char *text, size_t len)
{
	if (layout->n_lines == layout->lines_capacity) {
		size_t capacity = layout->lines_capacity ? layout->lines_capacity * 2 : 64;
		char **lines = realloc(layout->lines, capacity * sizeof(*lines));

		if (!lines)
			return false;
		layout->lines = lines;
		layout->lines_capacity = capacity;
	}
	char *line = strndup(text, len);
	if (!line)
		return false;
	layout->lines[layout->n_lines++] = line;
	return true;
}

static double
text_width(cairo_t *cr, const char *text, size_t len)
{
	char buf[1024];
	cairo_text_extents_t extents;

	/* lines are cut well before this: they fit the window */
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	cairo_text_extents(cr, buf, &extents);
	return extents.x_advance;
}

/*
 * Sets one paragraph (words separated by white space) in lines no wider
 * than width; a word wider than a line is cut between characters.
 */
static bool
set_paragraph(
	struct reader_layout *layout, cairo_t *cr, const char *start, const char *end, double width)
{
	char *line = malloc((size_t)(end - start) + 1);
	size_t len = 0;
	bool ok = true;

	if (!line)
		return false;
	for (const char *p = start; p < end && ok;) {
		while (p < end && (*p == ' ' || *p == '\n'))
			p++;
		const char *word = p;
		while (p < end && *p != ' ' && *p != '\n')
			p++;
		size_t word_len = (size_t)(p - word);
		if (word_len == 0)
			break;
		size_t joined = len + (len ? 1 : 0) + word_len;
		char *candidate = line;
		if (len)
			candidate[len] = ' ';
		memcpy(candidate + len + (len ? 1 : 0), word, word_len);
		if (text_width(cr, candidate, joined) <= width) {
			len = joined;
			continue;
		}
		if (len) {
			ok = add_line(layout, line, len);
			len = 0;
		}
		/* the word on a line of its own, cut where it overflows */
		while (ok && word_len) {
			size_t fit = 0;

			while (fit < word_len) {
				size_t next =
					fit + utf8_sequence((const unsigned char *)word + fit);

				if (fit && text_width(cr, word, next) > width)
					break;
				fit = next;
			}
			if (fit == word_len) {
				memcpy(line, word, word_len);
				len = word_len;
				break;
			}
			ok = add_line(layout, word, fit);
			word += fit;
			word_len -= fit;
		}
	}
	if (ok && len)
		ok = add_line(layout, line, len);
	free(line);
	return ok;
}

static void
select_font(cairo_t *cr, double size)
{
	cairo_select_font_face(cr, READER_FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
}

static bool
set_text(struct reader_layout *layout, const char *text)
{
	cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
	cairo_t *cr = cairo_create(scratch);
	double width = layout->width - 2 * layout->margin_x;
	bool ok = true;

	select_font(cr, layout->font_size);
	/* paragraphs end at blank lines */
	for (const char *p = text; *p && ok;) {
		const char *end = p;

		while (*end && !(end[0] == '\n' && end[strspn(end + 1, " ") + 1] == '\n'))
			end++;
		const char *next = end;
		while (*next == '\n' || *next == ' ')
			next++;
		size_t before = layout->n_lines;
		ok = set_paragraph(layout, cr, p, end, width);
		if (ok && layout->n_lines > before && *next)
			ok = add_line(layout, "", 0);
		p = next;
	}
	cairo_destroy(cr);
	cairo_surface_destroy(scratch);
	return ok;
}

static bool
cut_pages(struct reader_layout *layout)
{
	layout->page_first = calloc(layout->n_lines + 1, sizeof(*layout->page_first));
	if (!layout->page_first)
		return false;
	for (size_t line = 0; line < layout->n_lines;) {
		/* a page starts with text, not with a paragraph's gap */
		while (line < layout->n_lines && !layout->lines[line][0])
			line++;
		if (line == layout->n_lines)
			break;
		layout->page_first[layout->n_pages++] = line;
		line += layout->lines_per_page;
	}
	if (layout->n_pages == 0)
		layout->page_first[layout->n_pages++] = 0;
	return true;
}

struct reader_layout *
reader_layout_create(const char *text, int width, int height)
{
	struct reader_layout *layout = calloc(1, sizeof(*layout));
	char *clean = clean_text(text);

	if (!layout || !clean) {
		free(layout);
		free(clean);
		return NULL;
	}
	layout->width = width;
	layout->height = height;
	layout->font_size = floor(height / 28.0);
	if (layout->font_size < 10)
		layout->font_size = 10;
	layout->line_height = ceil(layout->font_size * 1.4);
	layout->margin_x = floor(width / 14.0);
	layout->margin_top = ceil(layout->font_size * 1.5);
	/* the page number's band at the bottom */
	double text_height = height - layout->margin_top - 3 * layout->font_size;
	layout->lines_per_page =
		text_height > layout->line_height ? (size_t)(text_height / layout->line_height) : 1;
	bool ok = set_text(layout, clean) && cut_pages(layout);
	free(clean);
	if (!ok) {
		reader_layout_destroy(layout);
		return NULL;
	}
	return layout;
}

void
reader_layout_destroy(struct reader_layout *layout)
{
	if (!layout)
		return;
	for (size_t i = 0; i < layout->n_lines; i++)
		free(layout->lines[i]);
	free(layout->lines);
	free(layout->page_first);
	free(layout);
}

size_t
reader_layout_pages(const struct reader_layout *layout)
{
	return layout->n_pages;
}

void
reader_layout_draw_page(const struct reader_layout *layout, cairo_t *cr, size_t page)
{
	char number[64];
	cairo_text_extents_t extents;

	if (page >= layout->n_pages)
		page = layout->n_pages - 1;
	cairo_save(cr);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_set_source_rgb(cr, 0, 0, 0);
	select_font(cr, layout->font_size);
	size_t first = layout->page_first[page];
	size_t end = page + 1 < layout->n_pages ? layout->page_first[page + 1] : layout->n_lines;
	if (end > first + layout->lines_per_page)
		end = first + layout->lines_per_page;
	for (size_t i = first; i < end; i++) {
		cairo_move_to(cr, layout->margin_x,
			layout->margin_top + layout->font_size +
				(double)(i - first) * layout->line_height);
		cairo_show_text(cr, layout->lines[i]);
	}
	select_font(cr, floor(layout->font_size * 0.75));
	snprintf(number, sizeof(number), "%zu / %zu", page + 1, layout->n_pages);
	cairo_text_extents(cr, number, &extents);
	cairo_move_to(cr, floor((layout->width - extents.x_advance) / 2),
		layout->height - layout->font_size);
	cairo_show_text(cr, number);
	cairo_restore(cr);
}
