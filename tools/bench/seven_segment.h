/* SPDX-License-Identifier: MIT */
/*
 * A clock's digits for the benchmarks: seven segments in a 30x50 cell,
 * drawn as flat rects through a caller's fill function.
 */
#ifndef SEVEN_SEGMENT_H
#define SEVEN_SEGMENT_H

#include <stdint.h>

#define SEVEN_SEGMENT_CELL_W 30
#define SEVEN_SEGMENT_CELL_H 50

typedef void (*seven_segment_fill)(void *data, int x, int y, int w, int h, uint8_t gray);

/* Clears the cell to white, then draws digit (0..9) in black. */
static inline void
seven_segment_draw(int left, int top, int digit, seven_segment_fill fill, void *data)
{
	/* Segments a..g as bits 0..6. */
	static const uint8_t segments[10] = {
		0x3f, 0x06, 0x5b, 0x4f, 0x66, 0x6d, 0x7d, 0x07, 0x7f, 0x6f};
	static const int rects[7][4] = {
		{4, 0, 22, 4},
		{26, 4, 4, 20},
		{26, 26, 4, 20},
		{4, 46, 22, 4},
		{0, 26, 4, 20},
		{0, 4, 4, 20},
		{4, 23, 22, 4},
	};

	fill(data, left, top, SEVEN_SEGMENT_CELL_W, SEVEN_SEGMENT_CELL_H, 255);
	for (int s = 0; s < 7; s++)
		if (segments[digit] & (1u << s))
			fill(data, left + rects[s][0], top + rects[s][1], rects[s][2], rects[s][3],
				0);
}

#endif
