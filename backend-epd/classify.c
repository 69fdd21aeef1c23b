// SPDX-License-Identifier: MIT
/*
 * What kind of content a rect holds, which the waveform policy turns into a
 * waveform: black and white can use the fast 2-level waveforms exactly,
 * text and UI look best with GL16, images with GC16.
 */
#include <string.h>
#include <vellum/epd-pipeline.h>

/* A fixed trip count, so that GCC vectorizes the check at -O2. */
#define BLOCK 32

/* Whether every pixel of the row is 0 or 255. */
static bool
row_is_mono(const uint8_t *row, int32_t n)
{
	uint8_t other = 0;
	int32_t x = 0;

	/* v + 1 wraps 255 to 0, and is 0 or 1 only for 255 and 0. */
	for (; x + BLOCK <= n; x += BLOCK) {
		for (int32_t i = 0; i < BLOCK; i++)
			other |= (uint8_t)(row[x + i] + 1) >> 1;
		if (other)
			return false;
	}
	for (; x < n; x++)
		other |= (uint8_t)(row[x] + 1) >> 1;
	return !other;
}

/* Sum of the largest `top` counts of hist. */
static uint64_t
top_counts(const uint32_t hist[256], int top)
{
	uint32_t best[VL_EPD_CLASSIFY_LEVELS] = {0};
	uint64_t sum = 0;

	/* best[] stays sorted, largest first. */
	for (int v = 0; v < 256; v++) {
		uint32_t count = hist[v];
		if (count <= best[top - 1])
			continue;
		int i = top - 1;
		while (i > 0 && best[i - 1] < count) {
			best[i] = best[i - 1];
			i--;
		}
		best[i] = count;
	}
	for (int i = 0; i < top; i++)
		sum += best[i];
	return sum;
}

enum vl_epd_content
vl_epd_classify(const struct vl_epd_gray *gray, const pixman_box32_t *box)
{
	if (!vl_epd_gray_valid(gray) || !box)
		return VL_EPD_CONTENT_MONO;
	pixman_box32_t b = *box;
	if (!vl_epd_box_clip(&b, gray->width, gray->height))
		return VL_EPD_CONTENT_MONO;

	const int32_t w = b.x2 - b.x1, h = b.y2 - b.y1;
	const uint8_t *origin = gray->data + (size_t)b.y1 * gray->stride + b.x1;

	bool mono = true;
	for (int32_t y = 0; y < h && mono; y++)
		mono = row_is_mono(origin + (size_t)y * gray->stride, w);
	if (mono)
		return VL_EPD_CONTENT_MONO;

	uint64_t area = (uint64_t)w * (uint64_t)h;
	int32_t step = (int32_t)((area + VL_EPD_CLASSIFY_SAMPLES - 1) / VL_EPD_CLASSIFY_SAMPLES);
	uint32_t hist[256];
	uint64_t counted = 0;

	memset(hist, 0, sizeof(hist));
	for (int32_t y = 0; y < h; y += step) {
		const uint8_t *row = origin + (size_t)y * gray->stride;
		for (int32_t x = 0; x < w; x++)
			hist[row[x]]++;
		counted += (uint64_t)w;
	}
	if (top_counts(hist, VL_EPD_CLASSIFY_LEVELS) * 8 >= counted * 7)
		return VL_EPD_CONTENT_GRAY;
	return VL_EPD_CONTENT_IMAGE;
}
