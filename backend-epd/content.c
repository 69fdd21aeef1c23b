/*
 * Content classes pick waveforms: MONO when every pixel is black or white,
 * GRAY when the rect uses few distinct values (text and UI: a handful of
 * flat grays plus their anti-aliasing), IMAGE otherwise.
 */
#include <string.h>

#include "pipeline.h"

/* More distinct values than this is continuous tone. */
#define GRAY_MAX_DISTINCT 24

enum vl_epd_content
vl_epd_classify(const uint8_t *gray, uint32_t stride, const pixman_box32_t *box)
{
	bool seen[256];
	unsigned int distinct = 0;
	bool mono = true;

	memset(seen, 0, sizeof(seen));
	for (int32_t y = box->y1; y < box->y2; y++) {
		const uint8_t *row = gray + (size_t)y * stride;
		for (int32_t x = box->x1; x < box->x2; x++) {
			uint8_t v = row[x];
			if (seen[v])
				continue;
			seen[v] = true;
			distinct++;
			mono = mono && (v == 0 || v == 255);
			if (distinct > GRAY_MAX_DISTINCT)
				return VL_EPD_CONTENT_IMAGE;
		}
	}
	return mono ? VL_EPD_CONTENT_MONO : VL_EPD_CONTENT_GRAY;
}
