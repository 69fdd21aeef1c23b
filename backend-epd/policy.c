/*
 * Waveform policy: mono content -> DU; fast or animation hints -> A2, gray
 * content dithered to one bit; text and UI grays -> GL16, which does not
 * flash; images and the quality hint -> GC16. A waveform the panel lacks
 * falls back to the nearest one it has.
 */
#include <epdfb.h>

#include "pipeline.h"

static bool
has(const struct vl_epd_waveform_table *table, uint32_t id)
{
	for (size_t i = 0; i < table->n; i++)
		if (table->entries[i].id == id)
			return true;
	return false;
}

static uint32_t
available(const struct vl_epd_waveform_table *table, uint32_t id)
{
	static const uint32_t fallback[][3] = {
		[WAVEFORM_MODE_A2] = {WAVEFORM_MODE_DU, WAVEFORM_MODE_GC16, WAVEFORM_MODE_GC16},
		[WAVEFORM_MODE_DU] = {WAVEFORM_MODE_A2, WAVEFORM_MODE_GC16, WAVEFORM_MODE_GC16},
		[WAVEFORM_MODE_GL16] = {WAVEFORM_MODE_GC16, WAVEFORM_MODE_GC4, WAVEFORM_MODE_DU},
		[WAVEFORM_MODE_GC16] = {WAVEFORM_MODE_GL16, WAVEFORM_MODE_GC4, WAVEFORM_MODE_DU},
		[WAVEFORM_MODE_GC4] = {WAVEFORM_MODE_GC16, WAVEFORM_MODE_GL16, WAVEFORM_MODE_DU},
	};

	if (has(table, id) || id >= sizeof(fallback) / sizeof(fallback[0]))
		return id;
	for (size_t i = 0; i < 3; i++)
		if (has(table, fallback[id][i]))
			return fallback[id][i];
	return id;
}

struct vl_epd_choice
vl_epd_choose_waveform(const struct vl_epd_waveform_table *table, enum vl_epd_content content,
	enum vl_epd_mode mode, enum vl_epd_dither dither)
{
	struct vl_epd_choice choice = {.dither = VL_EPD_DITHER_NONE};

	switch (mode) {
	case VL_EPD_MODE_FAST:
	case VL_EPD_MODE_ANIMATION:
		choice.waveform = WAVEFORM_MODE_A2;
		if (content != VL_EPD_CONTENT_MONO)
			choice.dither = VL_EPD_DITHER_ORDERED;
		break;
	case VL_EPD_MODE_QUALITY:
		choice.waveform = WAVEFORM_MODE_GC16;
		break;
	case VL_EPD_MODE_TEXT:
		choice.waveform =
			content == VL_EPD_CONTENT_MONO ? WAVEFORM_MODE_DU : WAVEFORM_MODE_GL16;
		break;
	case VL_EPD_MODE_AUTO:
	default:
		choice.waveform = content == VL_EPD_CONTENT_MONO   ? WAVEFORM_MODE_DU
				  : content == VL_EPD_CONTENT_GRAY ? WAVEFORM_MODE_GL16
								   : WAVEFORM_MODE_GC16;
		break;
	}
	if (dither != VL_EPD_DITHER_AUTO)
		choice.dither = dither;
	choice.waveform = available(table, choice.waveform);
	return choice;
}
