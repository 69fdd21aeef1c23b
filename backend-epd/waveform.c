// SPDX-License-Identifier: MIT
/*
 * The waveform policy: which of the device's waveforms shows an update,
 * and how its pixels are quantized for it.
 */
#include <epdfb.h>
#include <string.h>
#include <vellum/epd-pipeline.h>

static const struct vl_epd_waveform_entry default_waveforms[] = {
	{WAVEFORM_MODE_INIT, "INIT", 2, true, true},
	{WAVEFORM_MODE_DU, "DU", 2, false, false},
	{WAVEFORM_MODE_GC16, "GC16", 16, false, true},
	{WAVEFORM_MODE_GC4, "GC4", 4, false, true},
	{WAVEFORM_MODE_A2, "A2", 2, false, false},
	{WAVEFORM_MODE_GL16, "GL16", 16, false, false},
};

#define N_FALLBACKS 5

/* Preference order when a waveform is missing; the first is the one wanted. */
static const uint32_t fallbacks[][N_FALLBACKS] = {
	{WAVEFORM_MODE_DU, WAVEFORM_MODE_A2, WAVEFORM_MODE_GC4, WAVEFORM_MODE_GL16,
		WAVEFORM_MODE_GC16},
	{WAVEFORM_MODE_A2, WAVEFORM_MODE_DU, WAVEFORM_MODE_GC4, WAVEFORM_MODE_GL16,
		WAVEFORM_MODE_GC16},
	{WAVEFORM_MODE_GL16, WAVEFORM_MODE_GC16, WAVEFORM_MODE_GC4, WAVEFORM_MODE_DU,
		WAVEFORM_MODE_A2},
	{WAVEFORM_MODE_GC16, WAVEFORM_MODE_GL16, WAVEFORM_MODE_GC4, WAVEFORM_MODE_DU,
		WAVEFORM_MODE_A2},
};

void
vl_epd_waveform_table_default(struct vl_epd_waveform_table *table)
{
	if (!table)
		return;
	memset(table, 0, sizeof(*table));
	table->n = sizeof(default_waveforms) / sizeof(default_waveforms[0]);
	memcpy(table->entries, default_waveforms, sizeof(default_waveforms));
}

const struct vl_epd_waveform_entry *
vl_epd_waveform_find(const struct vl_epd_waveform_table *table, uint32_t id)
{
	if (!table)
		return NULL;
	for (size_t i = 0; i < table->n && i < VL_EPD_WAVEFORM_TABLE_SIZE; i++) {
		if (table->entries[i].id == id)
			return &table->entries[i];
	}
	return NULL;
}

/* The non-INIT entry with the most levels, optionally only flashing ones. */
static const struct vl_epd_waveform_entry *
richest(const struct vl_epd_waveform_table *table, bool flashing_full)
{
	const struct vl_epd_waveform_entry *best = NULL;

	if (!table)
		return NULL;
	for (size_t i = 0; i < table->n && i < VL_EPD_WAVEFORM_TABLE_SIZE; i++) {
		const struct vl_epd_waveform_entry *e = &table->entries[i];
		if (e->id == WAVEFORM_MODE_INIT || e->levels < 2)
			continue;
		if (flashing_full && !e->flashing_full)
			continue;
		if (!best || e->levels > best->levels)
			best = e;
	}
	return best;
}

static const uint32_t *
wanted(enum vl_epd_content content, enum vl_epd_mode mode)
{
	switch (mode) {
	case VL_EPD_MODE_FAST:
	case VL_EPD_MODE_ANIMATION:
		return fallbacks[1];
	case VL_EPD_MODE_QUALITY:
		return fallbacks[3];
	case VL_EPD_MODE_TEXT:
		return content == VL_EPD_CONTENT_MONO ? fallbacks[0] : fallbacks[2];
	case VL_EPD_MODE_AUTO:
	default:
		break;
	}
	switch (content) {
	case VL_EPD_CONTENT_MONO:
		return fallbacks[0];
	case VL_EPD_CONTENT_GRAY:
		return fallbacks[2];
	case VL_EPD_CONTENT_IMAGE:
	default:
		return fallbacks[3];
	}
}

struct vl_epd_waveform_choice
vl_epd_choose_waveform(const struct vl_epd_waveform_table *table, enum vl_epd_content content,
	enum vl_epd_mode mode, enum vl_epd_dither dither)
{
	const uint32_t *order = wanted(content, mode);
	const struct vl_epd_waveform_entry *entry = NULL;
	struct vl_epd_waveform_choice choice;

	/* one that flashes in every update mode shows nothing without a flash: it is missing here
	 */
	for (int i = 0; i < N_FALLBACKS && !entry; i++) {
		entry = vl_epd_waveform_find(table, order[i]);
		if (entry && (entry->levels < 2 || entry->flashing))
			entry = NULL;
	}
	if (!entry)
		entry = richest(table, false);
	if (entry) {
		choice.waveform = entry->id;
		choice.levels = entry->levels > 256 ? 256 : entry->levels;
	} else {
		choice.waveform = WAVEFORM_MODE_AUTO;
		choice.levels = 256;
	}

	if (dither == VL_EPD_DITHER_NONE || dither == VL_EPD_DITHER_ORDERED ||
		dither == VL_EPD_DITHER_DIFFUSION)
		choice.dither = dither;
	else if (content == VL_EPD_CONTENT_MONO || choice.levels >= 256)
		choice.dither = VL_EPD_DITHER_NONE;
	else if (choice.levels <= 2 || content == VL_EPD_CONTENT_IMAGE)
		choice.dither = VL_EPD_DITHER_ORDERED;
	else
		choice.dither = VL_EPD_DITHER_NONE;
	return choice;
}

struct vl_epd_waveform_choice
vl_epd_choose_flashing(const struct vl_epd_waveform_table *table)
{
	const struct vl_epd_waveform_entry *entry = vl_epd_waveform_find(table, WAVEFORM_MODE_GC16);

	if (entry && entry->levels < 2)
		entry = NULL;
	if (!entry)
		entry = richest(table, true);
	if (!entry)
		return vl_epd_choose_waveform(
			table, VL_EPD_CONTENT_IMAGE, VL_EPD_MODE_QUALITY, VL_EPD_DITHER_NONE);
	return (struct vl_epd_waveform_choice){
		.waveform = entry->id,
		.levels = entry->levels > 256 ? 256 : entry->levels,
		.dither = VL_EPD_DITHER_NONE,
	};
}
