// SPDX-License-Identifier: MIT
/*
 * Reading vellum's configuration file: its lines, sections and keys, and
 * each key's value, checked and told at its line when it is wrong.
 *
 * inih parses the key lines and comments; lines reach it through a reader of
 * our own, which numbers them (whatever inih was built with), reads section
 * headers (inih truncates long names and says nothing of empty sections) and
 * strips leading blanks, so an indented line is a key of its own rather than
 * the continuation of the previous value.
 */
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vellum/epd-pipeline.h>
#include <xkbcommon/xkbcommon.h>

#include "config.h"

#define APP_PREFIX   "app:"
#define ARRAY_LEN(a) (sizeof(a) / sizeof(*(a)))
#define MAX_KEYS     9 /* in one section */

static const char unparsable_line[] = "expected [SECTION], KEY = VALUE or a comment";

enum section {
	SECTION_NONE, /* keys before the first header */
	SECTION_PANEL,
	SECTION_REFRESH,
	SECTION_INPUT,
	SECTION_APP,
};

enum keyboard_key {
	KEYBOARD_LAYOUT,
	KEYBOARD_VARIANT,
	KEYBOARD_OPTIONS,
	KEYBOARD_KEYS,
};

/* The state of one vl_config_load. */
struct load {
	const char *path;
	FILE *file;
	char *line;
	size_t line_size;
	int line_number;
	int read_errno; /* of the read that failed, or 0 */

	struct vl_config *config; /* the copy the file is read into */
	enum section section;
	size_t rule; /* config->rules[rule] in SECTION_APP */
	/* Where this file opened each section, to report duplicates; 0: not yet. */
	int section_lines[SECTION_APP];
	int *rule_lines;         /* as many as config->rules */
	int key_lines[MAX_KEYS]; /* by index in the section's key table */
	/* where this file set the XKB names (enum keyboard_key); 0: it did not */
	int keyboard_lines[KEYBOARD_KEYS];

	char *error;
	size_t error_size;
	int error_line; /* 0: no error yet */
	char why[256];  /* what a bad value lacks */
};

struct key {
	const char *name;
	/* false: the value is bad, load->why says what is allowed */
	bool (*set)(struct load *load, const char *value);
};

static bool __attribute__((format(printf, 2, 3)))
fail(struct load *load, const char *format, ...)
{
	int len = snprintf(load->error, load->error_size, "%s:%d: ", load->path, load->line_number);
	va_list args;

	if (len >= 0 && (size_t)len < load->error_size) {
		va_start(args, format);
		vsnprintf(load->error + len, load->error_size - (size_t)len, format, args);
		va_end(args);
	}
	load->error_line = load->line_number;
	return false;
}

static bool __attribute__((format(printf, 2, 3)))
bad(struct load *load, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vsnprintf(load->why, sizeof(load->why), format, args);
	va_end(args);
	return false;
}

/* Decimal digits only: no sign, no blanks, no junk, no overflow. */
static bool
parse_number(const char *text, const char **end, unsigned long max, unsigned long *number)
{
	unsigned long value = 0;
	const char *p = text;

	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned long digit = (unsigned long)(*p - '0');
		if (value > (max - digit) / 10)
			return false;
		value = value * 10 + digit;
	}
	if (p == text)
		return false;
	*end = p;
	*number = value;
	return true;
}

static bool
parse_whole_number(const char *text, unsigned long max, unsigned long *number)
{
	const char *end;

	return parse_number(text, &end, max, number) && *end == '\0';
}

/* The index of text in names, or -1. */
static int
find_name(const char *const *names, size_t n, const char *text)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(names[i], text) == 0)
			return (int)i;
	}
	return -1;
}

static bool
replace_string(struct load *load, char **field, const char *value)
{
	char *copy = strdup(value);

	if (!copy)
		return bad(load, "out of memory");
	free(*field);
	*field = copy;
	return true;
}

static bool
set_nonempty_string(struct load *load, char **field, const char *value, const char *what)
{
	if (!*value)
		return bad(load, "expected %s", what);
	return replace_string(load, field, value);
}

static bool
is_device_path(const char *text)
{
	return text[0] == '/' && text[1] != '\0';
}

/* WIDTHxHEIGHT, each at most max; *end is what follows. */
static bool
parse_size(const char *text, unsigned long max, const char **end, unsigned long *width,
	unsigned long *height)
{
	const char *p;

	return parse_number(text, &p, max, width) && *p == 'x' &&
	       parse_number(p + 1, end, max, height);
}

/* :WIDTH_MMxHEIGHT_MMmm, the physical size a memory panel claims. */
static bool
is_physical_size(const char *text)
{
	unsigned long width_mm, height_mm;
	const char *p;

	return text[0] == ':' && parse_size(text + 1, UINT32_MAX, &p, &width_mm, &height_mm) &&
	       strcmp(p, "mm") == 0;
}

/* The syntax of a device spec; whether the device exists is the backend's business. */
static bool
set_device(struct load *load, const char *value)
{
	unsigned long width, height;
	const char *p;

	if (strcmp(value, "auto") == 0 || is_device_path(value) ||
		(strncmp(value, "mxc:", 4) == 0 && is_device_path(value + 4)) ||
		(strncmp(value, "plain:", 6) == 0 && is_device_path(value + 6)) ||
		(strncmp(value, "drm:", 4) == 0 && is_device_path(value + 4)) ||
		(strncmp(value, "it8951:", 7) == 0 && is_device_path(value + 7)))
		return replace_string(load, &load->config->device, value);
	if (strncmp(value, "memory:", 7) == 0 &&
		parse_size(value + 7, UINT32_MAX, &p, &width, &height) && width && height &&
		(!*p || is_physical_size(p)))
		return replace_string(load, &load->config->device, value);
	if (strcmp(value, "preview") == 0 ||
		(strncmp(value, "preview:", 8) == 0 &&
			parse_size(value + 8, VL_PREVIEW_SIZE_MAX, &p, &width, &height) && width &&
			height && !*p))
		return replace_string(load, &load->config->device, value);
	return bad(load, "expected auto, /dev/fbN, mxc:/dev/fbN, plain:/dev/fbN, "
			 "drm:/dev/dri/cardN, it8951:/dev/sgN, preview[:WIDTHxHEIGHT] or "
			 "memory:WIDTHxHEIGHT[:WIDTH_MMxHEIGHT_MMmm]");
}

static bool
set_waveform_map(struct load *load, const char *value)
{
	struct vl_epd_waveform_map map;

	if (!vl_epd_waveform_map_parse(value, &map, load->why, sizeof(load->why)))
		return false;
	return replace_string(load, &load->config->waveform_map, value);
}

bool
vl_config_parse_time_scale(const char *value, unsigned int *time_scale)
{
	unsigned long percent;

	if (!parse_whole_number(value, VL_TIME_SCALE_MAX, &percent) || percent == 0)
		return false;
	*time_scale = (unsigned int)percent;
	return true;
}

/*
 * The VCOM as the panel's cable prints it, in volts: "-1.50" (three
 * decimals at most, the PMIC's millivolts), from -0.20 to -5.00.
 */
static bool
set_vcom(struct load *load, const char *value)
{
	unsigned long volts = 0, millivolts = 0, scale = 100;
	const char *p = value;

	if (*p++ != '-' || *p < '0' || *p > '9')
		return bad(load, "expected the VCOM printed on the panel's cable, in volts from "
				 "-0.20 to -5.00, e.g. -1.50");
	for (; *p >= '0' && *p <= '9' && volts < 10; p++)
		volts = volts * 10 + (unsigned long)(*p - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9' && scale > 0; p++, scale /= 10)
			millivolts += (unsigned long)(*p - '0') * scale;
	millivolts += volts * 1000;
	if (*p || millivolts < 200 || millivolts > 5000)
		return bad(load, "expected the VCOM printed on the panel's cable, in volts from "
				 "-0.20 to -5.00, e.g. -1.50");
	load->config->vcom_mv = (uint16_t)millivolts;
	return true;
}

static bool
set_time_scale(struct load *load, const char *value)
{
	if (!vl_config_parse_time_scale(value, &load->config->time_scale))
		return bad(load, "expected a percentage from 1 to %d", VL_TIME_SCALE_MAX);
	return true;
}

static bool
set_rotation(struct load *load, const char *value)
{
	static const char *const rotations[] = {"0", "90", "180", "270"};
	int index = find_name(rotations, ARRAY_LEN(rotations), value);

	if (index < 0)
		return bad(load, "expected 0, 90, 180 or 270");
	load->config->rotation = 90 * index;
	return true;
}

/*
 * auto, or a decimal number such as 2 or 1.75, read exactly as written (no
 * locale, no exponent): digits over a power of ten, one rounding. The
 * digits of a scale up to 1000 with nine decimals need more than 32 bits,
 * which unsigned long is on 32-bit ARM.
 */
static bool
set_scale(struct load *load, const char *value)
{
	unsigned long whole;
	uint64_t numerator, denominator = 1;
	const char *p;

	if (strcmp(value, "auto") == 0) {
		load->config->scale = 0;
		return true;
	}
	if (parse_number(value, &p, 1000, &whole)) {
		numerator = whole;
		if (*p == '.' && p[1])
			for (p++; *p >= '0' && *p <= '9' && denominator < 1000000000; p++) {
				numerator = numerator * 10 + (uint64_t)(*p - '0');
				denominator *= 10;
			}
		double scale = (double)numerator / (double)denominator;
		if (!*p && scale >= VL_SCALE_MIN && scale <= VL_SCALE_MAX) {
			load->config->scale = scale;
			return true;
		}
	}
	return bad(load, "expected auto or a scale from %g to %g, such as 2 or 1.75", VL_SCALE_MIN,
		VL_SCALE_MAX);
}

static bool
set_full_refresh_every(struct load *load, const char *value)
{
	unsigned long count;

	if (!parse_whole_number(value, UINT_MAX, &count))
		return bad(load, "expected a number of updates from 0 (never) to %u", UINT_MAX);
	load->config->full_refresh_every = (unsigned int)count;
	return true;
}

/* A delay such as 2000ms, 2s or 2000 (milliseconds); 0 or off: none. */
static bool
parse_delay(struct load *load, const char *value, const char *zero_means, unsigned int *ms)
{
	unsigned long number, scale = 1;
	const char *unit;

	if (strcmp(value, "off") == 0) {
		*ms = 0;
		return true;
	}
	if (parse_number(value, &unit, ULONG_MAX, &number)) {
		if (strcmp(unit, "s") == 0)
			scale = 1000;
		else if (*unit && strcmp(unit, "ms") != 0)
			unit = NULL;
		if (unit && number <= UINT_MAX / scale) {
			*ms = (unsigned int)(number * scale);
			return true;
		}
	}
	return bad(load,
		"expected a delay such as 2000ms, 2s or 2000 (milliseconds) up to %ums, "
		"or 0 or off for %s",
		UINT_MAX, zero_means);
}

static bool
set_idle_cleanup(struct load *load, const char *value)
{
	return parse_delay(load, value, "never", &load->config->idle_cleanup_ms);
}

static bool
set_input_window(struct load *load, const char *value)
{
	return parse_delay(load, value, "never", &load->config->input_window_ms);
}

static bool
set_merge_window(struct load *load, const char *value)
{
	return parse_delay(load, value, "none", &load->config->merge_window_ms);
}

static bool
set_x11_merge_window(struct load *load, const char *value)
{
	return parse_delay(load, value, "none", &load->config->x11_merge_window_ms);
}

static bool
set_animation_interval(struct load *load, const char *value)
{
	return parse_delay(
		load, value, "animations as any change", &load->config->animation_interval_ms);
}

static bool
set_full_refresh_interval(struct load *load, const char *value)
{
	return parse_delay(load, value, "no limit", &load->config->full_refresh_interval_ms);
}

static const char *const mode_names[] = {
	[VL_EPD_MODE_AUTO] = "auto",
	[VL_EPD_MODE_QUALITY] = "quality",
	[VL_EPD_MODE_TEXT] = "text",
	[VL_EPD_MODE_FAST] = "fast",
	[VL_EPD_MODE_ANIMATION] = "animation",
};

static const char *const dither_names[] = {
	[VL_EPD_DITHER_AUTO] = "auto",
	[VL_EPD_DITHER_NONE] = "none",
	[VL_EPD_DITHER_ORDERED] = "ordered",
	[VL_EPD_DITHER_DIFFUSION] = "diffusion",
};

static bool
parse_mode(struct load *load, const char *value, enum vl_epd_mode *mode)
{
	int index = find_name(mode_names, ARRAY_LEN(mode_names), value);

	if (index < 0)
		return bad(load, "expected auto, quality, text, fast or animation");
	*mode = (enum vl_epd_mode)index;
	return true;
}

static bool
parse_dither(struct load *load, const char *value, enum vl_epd_dither *dither)
{
	int index = find_name(dither_names, ARRAY_LEN(dither_names), value);

	if (index < 0)
		return bad(load, "expected auto, none, ordered or diffusion");
	*dither = (enum vl_epd_dither)index;
	return true;
}

static bool
set_default_mode(struct load *load, const char *value)
{
	return parse_mode(load, value, &load->config->default_mode);
}

static bool
set_default_dither(struct load *load, const char *value)
{
	return parse_dither(load, value, &load->config->default_dither);
}

static bool
set_cursor(struct load *load, const char *value)
{
	if (strcmp(value, "hidden") == 0)
		load->config->show_cursor = false;
	else if (strcmp(value, "shown") == 0)
		load->config->show_cursor = true;
	else
		return bad(load, "expected hidden or shown");
	return true;
}

static bool
set_keyboard_layout(struct load *load, const char *value)
{
	load->keyboard_lines[KEYBOARD_LAYOUT] = load->line_number;
	return set_nonempty_string(
		load, &load->config->keyboard_layout, value, "an XKB layout such as us or de,fr");
}

static bool
set_keyboard_variant(struct load *load, const char *value)
{
	load->keyboard_lines[KEYBOARD_VARIANT] = load->line_number;
	return set_nonempty_string(load, &load->config->keyboard_variant, value,
		"an XKB variant such as dvorak or nodeadkeys");
}

static bool
set_keyboard_options(struct load *load, const char *value)
{
	load->keyboard_lines[KEYBOARD_OPTIONS] = load->line_number;
	return set_nonempty_string(load, &load->config->keyboard_options, value,
		"XKB options such as ctrl:nocaps,compose:ralt");
}

/*
 * Which devices there are is known only when they come (a touchscreen may be
 * plugged in later, a file checked on another machine): the name is checked
 * for what no device name holds, and vellum says at run time when no device
 * has it.
 */
static bool
set_touch_device(struct load *load, const char *value)
{
	for (const char *c = value; *c; c++)
		if ((unsigned char)*c < ' ' || *c == 0x7f)
			return bad(load, "a device name holds no control characters");
	return set_nonempty_string(load, &load->config->touch_device, value,
		"the name of a touchscreen or tablet, as libinput lists it");
}

static bool
set_app_mode(struct load *load, const char *value)
{
	struct vl_app_rule *rule = &load->config->rules[load->rule];

	if (!parse_mode(load, value, &rule->mode))
		return false;
	rule->has_mode = true;
	return true;
}

static bool
set_app_merge_window(struct load *load, const char *value)
{
	struct vl_app_rule *rule = &load->config->rules[load->rule];

	if (!parse_delay(load, value, "none", &rule->merge_window_ms))
		return false;
	rule->has_merge_window = true;
	return true;
}

static bool
set_app_dither(struct load *load, const char *value)
{
	struct vl_app_rule *rule = &load->config->rules[load->rule];

	if (!parse_dither(load, value, &rule->dither))
		return false;
	rule->has_dither = true;
	return true;
}

static bool
set_app_blinking(struct load *load, const char *value)
{
	struct vl_app_rule *rule = &load->config->rules[load->rule];

	if (strcmp(value, "held") != 0 && strcmp(value, "shown") != 0)
		return bad(load, "expected held or shown");
	rule->show_blinking = strcmp(value, "shown") == 0;
	return true;
}

static const struct key panel_keys[] = {
	{"device", set_device},
	{"waveform-map", set_waveform_map},
	{"rotation", set_rotation},
	{"scale", set_scale},
	{"time-scale", set_time_scale},
	{"vcom", set_vcom},
};

static const struct key refresh_keys[] = {
	{"full-refresh-every", set_full_refresh_every},
	{"idle-cleanup", set_idle_cleanup},
	{"input-window", set_input_window},
	{"merge-window", set_merge_window},
	{"x11-merge-window", set_x11_merge_window},
	{"animation-interval", set_animation_interval},
	{"full-refresh-interval", set_full_refresh_interval},
	{"default-mode", set_default_mode},
	{"default-dither", set_default_dither},
};

static const struct key input_keys[] = {
	{"cursor", set_cursor},
	{"keyboard-layout", set_keyboard_layout},
	{"keyboard-variant", set_keyboard_variant},
	{"keyboard-options", set_keyboard_options},
	{"touch-device", set_touch_device},
};

static const struct key app_keys[] = {
	{"mode", set_app_mode},
	{"dither", set_app_dither},
	{"merge-window", set_app_merge_window},
	{"blinking", set_app_blinking},
};

static const struct {
	const char *name; /* as in the header, without brackets */
	const struct key *keys;
	size_t n_keys;
} sections[] = {
	[SECTION_PANEL] = {"panel", panel_keys, ARRAY_LEN(panel_keys)},
	[SECTION_REFRESH] = {"refresh", refresh_keys, ARRAY_LEN(refresh_keys)},
	[SECTION_INPUT] = {"input", input_keys, ARRAY_LEN(input_keys)},
	[SECTION_APP] = {APP_PREFIX "APP_ID", app_keys, ARRAY_LEN(app_keys)},
};

_Static_assert(ARRAY_LEN(panel_keys) <= MAX_KEYS && ARRAY_LEN(refresh_keys) <= MAX_KEYS &&
		       ARRAY_LEN(input_keys) <= MAX_KEYS && ARRAY_LEN(app_keys) <= MAX_KEYS,
	"a section has more keys than load.key_lines holds");

/*
 * The XKB names this file set must make a keymap; told at the line of the
 * first name that breaks it, as XKB takes them (layout, then variant, then
 * options), rather than when a keyboard comes and would have none.
 */
static bool
check_keymap(struct load *load)
{
	static const char *const keys[KEYBOARD_KEYS] = {
		"keyboard-layout", "keyboard-variant", "keyboard-options"};
	const struct vl_config *config = load->config;
	const char *values[KEYBOARD_KEYS] = {
		config->keyboard_layout, config->keyboard_variant, config->keyboard_options};
	int broken = -1, last = -1;

	for (int i = 0; i < KEYBOARD_KEYS; i++)
		if (load->keyboard_lines[i] &&
			(last < 0 || load->keyboard_lines[i] > load->keyboard_lines[last]))
			last = i;
	if (last < 0)
		return true;
	struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	if (!context)
		return fail(load, "out of memory");
	/* the error below says it all */
	xkb_context_set_log_level(context, XKB_LOG_LEVEL_CRITICAL);
	for (int i = 0; i < KEYBOARD_KEYS && broken < 0; i++) {
		struct xkb_rule_names names = {
			.layout = values[KEYBOARD_LAYOUT],
			.variant = i >= KEYBOARD_VARIANT ? values[KEYBOARD_VARIANT] : NULL,
			.options = i >= KEYBOARD_OPTIONS ? values[KEYBOARD_OPTIONS] : NULL,
		};
		struct xkb_keymap *keymap =
			xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS);
		if (!keymap)
			broken = i;
		xkb_keymap_unref(keymap);
	}
	xkb_context_unref(context);
	if (broken < 0)
		return true;
	/* a name an earlier file set: the last of this file's is the one to change */
	if (!load->keyboard_lines[broken])
		broken = last;
	load->line_number = load->keyboard_lines[broken];
	return fail(load,
		"invalid %s \"%s\": XKB has no keymap for layout \"%s\", variant \"%s\", "
		"options \"%s\" (see xkeyboard-config(7))",
		keys[broken], values[broken] ? values[broken] : "",
		values[KEYBOARD_LAYOUT] ? values[KEYBOARD_LAYOUT] : "",
		values[KEYBOARD_VARIANT] ? values[KEYBOARD_VARIANT] : "",
		values[KEYBOARD_OPTIONS] ? values[KEYBOARD_OPTIONS] : "");
}

/* The rule for app_id, added (with a line slot) if config has none yet. */
static bool
find_or_add_rule(struct load *load, const char *app_id, size_t *index)
{
	struct vl_config *config = load->config;
	struct vl_app_rule *rules;
	int *lines;

	for (size_t i = 0; i < config->n_rules; i++) {
		if (strcmp(config->rules[i].app_id, app_id) == 0) {
			*index = i;
			return true;
		}
	}
	rules = realloc(config->rules, (config->n_rules + 1) * sizeof(*rules));
	if (!rules)
		return false;
	config->rules = rules;
	lines = realloc(load->rule_lines, (config->n_rules + 1) * sizeof(*lines));
	if (!lines)
		return false;
	load->rule_lines = lines;
	rules[config->n_rules] = (struct vl_app_rule){.app_id = strdup(app_id)};
	if (!rules[config->n_rules].app_id)
		return false;
	lines[config->n_rules] = 0;
	*index = config->n_rules++;
	return true;
}

/* name: what is between the brackets. */
static bool
enter_section(struct load *load, const char *name)
{
	int *first_line;

	load->section = SECTION_NONE;
	memset(load->key_lines, 0, sizeof(load->key_lines));
	if (strncmp(name, APP_PREFIX, strlen(APP_PREFIX)) == 0) {
		const char *app_id = name + strlen(APP_PREFIX);
		if (!*app_id)
			return fail(load, "[%s] names no application (expected [%sAPP_ID])", name,
				APP_PREFIX);
		if (!find_or_add_rule(load, app_id, &load->rule))
			return fail(load, "out of memory");
		load->section = SECTION_APP;
		first_line = &load->rule_lines[load->rule];
	} else {
		for (size_t i = SECTION_PANEL; i < SECTION_APP; i++) {
			if (strcmp(name, sections[i].name) == 0)
				load->section = (enum section)i;
		}
		if (load->section == SECTION_NONE)
			return fail(load,
				"unknown section [%s] (known: [panel], [refresh], [input], "
				"[%sAPP_ID])",
				name, APP_PREFIX);
		first_line = &load->section_lines[load->section];
	}
	if (*first_line)
		return fail(load, "duplicate section [%s] (first at line %d)", name, *first_line);
	*first_line = load->line_number;
	return true;
}

/* A line starting with '[', blanks already stripped from both ends. */
static bool
read_section_header(struct load *load, char *line)
{
	char *close = strchr(line, ']');
	const char *rest;

	if (!close)
		return fail(load, "section header without ']'");
	rest = close + 1 + strspn(close + 1, " \t");
	if (*rest && *rest != ';' && *rest != '#')
		return fail(load, "unexpected \"%s\" after the section header", rest);
	*close = '\0';
	if (!enter_section(load, line + 1))
		return false;
	*close = ']';
	return true;
}

/* inih's ini_reader: one line of the file per call, NULL at the end or on an error. */
static char *
read_line(char *buffer, int size, void *data)
{
	struct load *load = data;
	ssize_t len;
	char *line;
	size_t n;

	if (load->error_line)
		return NULL;
	errno = 0;
	len = getline(&load->line, &load->line_size, load->file);
	if (len < 0) {
		load->read_errno = errno;
		return NULL;
	}
	load->line_number++;
	line = load->line;
	if ((size_t)len != strlen(line)) {
		fail(load, "the line holds a NUL byte");
		return NULL;
	}
	if (load->line_number == 1 && strncmp(line, "\xef\xbb\xbf", 3) == 0)
		line += 3;
	line += strspn(line, " \t\r\n\v\f");
	n = strlen(line);
	while (n && strchr(" \t\r\n\v\f", line[n - 1]))
		line[--n] = '\0';
	if (size < 1 || n > (size_t)size - 1) {
		fail(load, "the line is longer than %d characters", size - 1);
		return NULL;
	}
	if (line[0] == '[' && !read_section_header(load, line))
		return NULL;
	memcpy(buffer, line, n + 1);
	return buffer;
}

/* inih's ini_handler; the section is the reader's (inih's copy may be truncated). */
static int
handle_key(void *data, const char *inih_section, const char *name, const char *value)
{
	struct load *load = data;
	size_t n_keys = sections[load->section].n_keys;

	/* inih takes "= VALUE" for a key without a name. */
	if (!*name)
		return fail(load, "%s", unparsable_line);
	if (load->section == SECTION_NONE)
		return fail(load, "key \"%s\" is outside any section", name);
	for (size_t i = 0; i < n_keys; i++) {
		const struct key *key = &sections[load->section].keys[i];
		if (strcmp(name, key->name) != 0)
			continue;
		if (load->key_lines[i])
			return fail(load, "duplicate key \"%s\" (first at line %d)", name,
				load->key_lines[i]);
		load->key_lines[i] = load->line_number;
		if (!key->set(load, value))
			return fail(load, "invalid %s \"%s\": %s", name, value, load->why);
		return true;
	}

	/* the whole list, however many keys a section grows */
	size_t size = 1;
	for (size_t i = 0; i < n_keys; i++)
		size += strlen(sections[load->section].keys[i].name) + 2;
	char *known = calloc(1, size);
	if (!known)
		return fail(load, "out of memory");
	for (size_t i = 0; i < n_keys; i++) {
		size_t len = strlen(known);
		snprintf(known + len, size - len, "%s%s", i ? ", " : "",
			sections[load->section].keys[i].name);
	}
	bool ok;
	if (load->section == SECTION_APP)
		ok = fail(load, "unknown key \"%s\" in [%s%s] (known: %s)", name, APP_PREFIX,
			load->config->rules[load->rule].app_id, known);
	else
		ok = fail(load, "unknown key \"%s\" in [%s] (known: %s)", name,
			sections[load->section].name, known);
	free(known);
	return ok;
}

bool
vl_config_load(struct vl_config *config, const char *path, char *error, size_t error_size)
{
	struct load load = {
		.path = path,
		.error = error,
		.error_size = error_size,
	};
	struct vl_config copy;
	int inih_error;

	load.file = fopen(path, "re");
	if (!load.file) {
		snprintf(error, error_size, "%s: %s", path, strerror(errno));
		return false;
	}
	if (!vl_config_copy(&copy, config)) {
		snprintf(error, error_size, "%s: out of memory", path);
		fclose(load.file);
		return false;
	}
	load.config = &copy;
	load.rule_lines = calloc(copy.n_rules ? copy.n_rules : 1, sizeof(*load.rule_lines));
	if (!load.rule_lines) {
		snprintf(error, error_size, "%s: out of memory", path);
		goto err;
	}

	inih_error = ini_parse_stream(read_line, &load, handle_key, &load);
	if (load.read_errno) {
		snprintf(error, error_size, "%s: %s", path, strerror(load.read_errno));
		goto err;
	}
	/* inih reports the first line it could not parse; an earlier error of ours wins. */
	if (inih_error > 0 && (!load.error_line || inih_error < load.error_line)) {
		load.line_number = inih_error;
		fail(&load, "%s", unparsable_line);
	} else if (inih_error < 0 && !load.error_line) {
		snprintf(error, error_size, "%s: out of memory", path);
		goto err;
	}
	if (load.error_line || !check_keymap(&load))
		goto err;

	vl_config_finish(config);
	*config = copy;
	free(load.rule_lines);
	free(load.line);
	fclose(load.file);
	return true;
err:
	vl_config_finish(&copy);
	free(load.rule_lines);
	free(load.line);
	fclose(load.file);
	return false;
}
