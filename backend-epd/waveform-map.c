// SPDX-License-Identifier: MIT
/*
 * A device's waveform numbering, from configuration: which number shows
 * which of the BSP's waveform kinds.
 */
#include <ctype.h>
#include <epdfb.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <vellum/epd-pipeline.h>

static const char *const kind_names[VL_EPD_WAVEFORM_KINDS] = {
	[WAVEFORM_MODE_INIT] = "init",
	[WAVEFORM_MODE_DU] = "du",
	[WAVEFORM_MODE_GC16] = "gc16",
	[WAVEFORM_MODE_GC4] = "gc4",
	[WAVEFORM_MODE_A2] = "a2",
	[WAVEFORM_MODE_GL16] = "gl16",
};

void
vl_epd_waveform_map_identity(struct vl_epd_waveform_map *map)
{
	for (int32_t kind = 0; kind < VL_EPD_WAVEFORM_KINDS; kind++)
		map->id[kind] = kind;
}

static int
find_kind(const char *name, size_t len)
{
	for (int kind = 0; kind < VL_EPD_WAVEFORM_KINDS; kind++) {
		if (strlen(kind_names[kind]) == len &&
			strncasecmp(name, kind_names[kind], len) == 0)
			return kind;
	}
	return -1;
}

static bool
parse_id(const char *text, size_t len, int32_t *id)
{
	char digits[16], *end;
	long value;

	if (len == 0 || len >= sizeof(digits) || strspn(text, "0123456789") < len)
		return false;
	memcpy(digits, text, len);
	digits[len] = '\0';
	errno = 0;
	value = strtol(digits, &end, 10);
	if (errno || *end || value > INT32_MAX)
		return false;
	*id = (int32_t)value;
	return true;
}

/* Narrows [*start, *start + *len) to its part without surrounding blanks. */
static void
trim(const char **start, size_t *len)
{
	while (*len && isblank((unsigned char)**start)) {
		(*start)++;
		(*len)--;
	}
	while (*len && isblank((unsigned char)(*start)[*len - 1]))
		(*len)--;
}

bool
vl_epd_waveform_map_parse(
	const char *text, struct vl_epd_waveform_map *map, char *error, size_t error_size)
{
	static const char known[] = "init, du, gc16, gc4, a2, gl16";
	struct vl_epd_waveform_map parsed;
	bool any = false;

	for (int kind = 0; kind < VL_EPD_WAVEFORM_KINDS; kind++)
		parsed.id[kind] = -1;
	for (const char *next = text; next;) {
		const char *item = next, *comma = strchr(next, ',');
		size_t len = comma ? (size_t)(comma - item) : strlen(item);

		next = comma ? comma + 1 : NULL;
		trim(&item, &len);
		if (!len)
			continue;
		const char *equals = memchr(item, '=', len);
		if (!equals) {
			snprintf(error, error_size, "waveform map item \"%.*s\": expected KIND=ID",
				(int)len, item);
			return false;
		}
		const char *name = item, *id = equals + 1;
		size_t name_len = (size_t)(equals - item), id_len = len - name_len - 1;
		trim(&name, &name_len);
		trim(&id, &id_len);
		int kind = find_kind(name, name_len);
		if (kind < 0) {
			snprintf(error, error_size,
				"waveform map item \"%.*s\": unknown waveform \"%.*s\" (known: %s)",
				(int)len, item, (int)name_len, name, known);
			return false;
		}
		if (parsed.id[kind] >= 0) {
			snprintf(error, error_size, "waveform map: %s is given twice",
				kind_names[kind]);
			return false;
		}
		if (!parse_id(id, id_len, &parsed.id[kind])) {
			snprintf(error, error_size,
				"waveform map item \"%.*s\": the id must be a number from 0 to %d",
				(int)len, item, INT32_MAX);
			return false;
		}
		any |= kind != WAVEFORM_MODE_INIT;
	}
	if (!any) {
		snprintf(error, error_size,
			"waveform map \"%s\" names no waveform to draw with (%s)", text,
			known + strlen("init, "));
		return false;
	}
	*map = parsed;
	return true;
}

void
vl_epd_waveform_table_from_map(
	struct vl_epd_waveform_table *table, const struct vl_epd_waveform_map *map)
{
	struct vl_epd_waveform_table all;

	vl_epd_waveform_table_default(&all);
	memset(table, 0, sizeof(*table));
	for (size_t i = 0; i < all.n; i++) {
		uint32_t kind = all.entries[i].id;
		if (kind < VL_EPD_WAVEFORM_KINDS && map->id[kind] >= 0)
			table->entries[table->n++] = all.entries[i];
	}
}

uint32_t
vl_epd_waveform_map_device_id(const struct vl_epd_waveform_map *map, uint32_t waveform)
{
	if (waveform < VL_EPD_WAVEFORM_KINDS && map->id[waveform] >= 0)
		return (uint32_t)map->id[waveform];
	return waveform;
}
