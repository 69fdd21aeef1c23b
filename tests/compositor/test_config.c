// SPDX-License-Identifier: MIT
/*
 * vellum's configuration file: defaults, every key, every error with the
 * exact text the user sees, loads that fail leaving the config alone, the
 * search path, and the example config shipped in examples/.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"

static char tmp_dir[] = "/tmp/vellum-test-config-XXXXXX";

/* tmp_dir/NAME, in a static buffer. */
static const char *
tmp_path(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", tmp_dir, name);
	return path;
}

static void
make_dirs(const char *path)
{
	char copy[PATH_MAX];

	snprintf(copy, sizeof(copy), "%s", path);
	for (char *slash = strchr(copy + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		assert_true(mkdir(copy, 0755) == 0 || errno == EEXIST);
		*slash = '/';
	}
	assert_true(mkdir(copy, 0755) == 0 || errno == EEXIST);
}

static void
write_bytes(const char *path, const char *data, size_t size)
{
	FILE *file = fopen(path, "w");

	assert_non_null(file);
	assert_int_equal(fwrite(data, 1, size, file), size);
	assert_int_equal(fclose(file), 0);
}

static void
write_file(const char *path, const char *text)
{
	write_bytes(path, text, strlen(text));
}

/* Writes size bytes of data to the test's config file and returns its path. */
static const char *
config_bytes(const char *data, size_t size)
{
	const char *path = tmp_path("vellum.conf");

	write_bytes(path, data, size);
	return path;
}

static const char *
config_file(const char *text)
{
	return config_bytes(text, strlen(text));
}

static void
load_ok(struct vl_config *config, const char *text)
{
	char error[512] = "";

	if (!vl_config_load(config, config_file(text), error, sizeof(error)))
		fail_msg("%s", error);
}

/* expected is the error after "FILE:". */
static void
assert_bytes_fail(const char *data, size_t size, const char *expected)
{
	const char *path = config_bytes(data, size);
	char error[512], want[1024];
	struct vl_config config;

	vl_config_init(&config);
	snprintf(want, sizeof(want), "%s:%s", path, expected);
	assert_false(vl_config_load(&config, path, error, sizeof(error)));
	assert_string_equal(error, want);
	vl_config_finish(&config);
}

static void
assert_load_fails(const char *text, const char *expected)
{
	assert_bytes_fail(text, strlen(text), expected);
}

static int
remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int
setup(void **state)
{
	return mkdtemp(tmp_dir) ? 0 : -1;
}

static int
teardown(void **state)
{
	return nftw(tmp_dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void
assert_defaults(const struct vl_config *config)
{
	assert_string_equal(config->device, "auto");
	assert_null(config->waveform_map);
	assert_int_equal(config->rotation, 0);
	assert_true(config->scale == 0);
	assert_int_equal(config->full_refresh_every, 0);
	assert_int_equal(config->idle_cleanup_ms, 1500);
	assert_int_equal(config->input_window_ms, 1000);
	assert_int_equal(config->merge_window_ms, 0);
	assert_int_equal(config->x11_merge_window_ms, 50);
	assert_int_equal(config->animation_interval_ms, 1000);
	assert_int_equal(config->full_refresh_interval_ms, 1000);
	assert_int_equal(config->default_mode, VL_EPD_MODE_AUTO);
	assert_int_equal(config->default_dither, VL_EPD_DITHER_AUTO);
	assert_false(config->show_cursor);
	assert_null(config->keyboard_layout);
	assert_null(config->keyboard_variant);
	assert_null(config->keyboard_options);
	assert_null(config->touch_device);
	assert_int_equal(config->n_rules, 0);
}

static void
test_defaults(void **state)
{
	struct vl_config config;

	vl_config_init(&config);
	assert_defaults(&config);
	assert_null(vl_config_rule(&config, "foot"));
	vl_config_finish(&config);
}

static void
test_empty_file_changes_nothing(void **state)
{
	struct vl_config config;

	vl_config_init(&config);
	load_ok(&config, "");
	assert_defaults(&config);
	load_ok(&config, "; only\n# comments\n\n[panel]\n[refresh]\n[input]\n");
	assert_defaults(&config);
	vl_config_finish(&config);
}

static void
test_every_key(void **state)
{
	const struct vl_app_rule *rule;
	struct vl_config config;

	vl_config_init(&config);
	load_ok(&config, "[panel]\n"
			 "device = mxc:/dev/fb1\n"
			 "waveform-map = init=0, du=1, gc16=2, gc4=3, a2=4, gl16=5\n"
			 "rotation = 270\n"
			 "scale = 1.75\n"
			 "[refresh]\n"
			 "full-refresh-every = 0\n"
			 "idle-cleanup = 750ms\n"
			 "full-refresh-interval = 3s\n"
			 "default-mode = text\n"
			 "default-dither = ordered\n"
			 "[input]\n"
			 "cursor = shown\n"
			 "keyboard-layout = de,fr\n"
			 "keyboard-variant = nodeadkeys\n"
			 "keyboard-options = ctrl:nocaps,compose:ralt\n"
			 "touch-device = Wacom HID 52C2 Finger\n"
			 "[app:foot]\n"
			 "mode = text\n"
			 "dither = none\n"
			 "[app:XClock]\n"
			 "mode = animation\n"
			 "merge-window = 0\n"
			 "[app:gimp]\n"
			 "dither = diffusion\n"
			 "blinking = shown\n");
	assert_string_equal(config.device, "mxc:/dev/fb1");
	assert_string_equal(config.waveform_map, "init=0, du=1, gc16=2, gc4=3, a2=4, gl16=5");
	assert_int_equal(config.rotation, 270);
	assert_true(config.scale == 1.75);
	assert_int_equal(config.full_refresh_every, 0);
	assert_int_equal(config.idle_cleanup_ms, 750);
	assert_int_equal(config.full_refresh_interval_ms, 3000);
	assert_int_equal(config.default_mode, VL_EPD_MODE_TEXT);
	assert_int_equal(config.default_dither, VL_EPD_DITHER_ORDERED);
	assert_true(config.show_cursor);
	assert_string_equal(config.keyboard_layout, "de,fr");
	assert_string_equal(config.keyboard_variant, "nodeadkeys");
	assert_string_equal(config.keyboard_options, "ctrl:nocaps,compose:ralt");
	assert_string_equal(config.touch_device, "Wacom HID 52C2 Finger");

	assert_int_equal(config.n_rules, 3);
	assert_string_equal(config.rules[0].app_id, "foot");
	assert_string_equal(config.rules[1].app_id, "XClock");
	assert_string_equal(config.rules[2].app_id, "gimp");
	rule = vl_config_rule(&config, "foot");
	assert_ptr_equal(rule, &config.rules[0]);
	assert_true(rule->has_mode && rule->has_dither);
	assert_int_equal(rule->mode, VL_EPD_MODE_TEXT);
	assert_int_equal(rule->dither, VL_EPD_DITHER_NONE);
	rule = vl_config_rule(&config, "XClock");
	assert_true(rule->has_mode && !rule->has_dither && rule->has_merge_window);
	assert_int_equal(rule->mode, VL_EPD_MODE_ANIMATION);
	assert_int_equal(rule->merge_window_ms, 0);
	rule = vl_config_rule(&config, "gimp");
	assert_true(!rule->has_mode && rule->has_dither && !rule->has_merge_window);
	assert_int_equal(rule->dither, VL_EPD_DITHER_DIFFUSION);
	assert_true(rule->show_blinking);
	assert_false(vl_config_rule(&config, "foot")->show_blinking);
	/* app_ids are matched exactly. */
	assert_null(vl_config_rule(&config, "xclock"));
	assert_null(vl_config_rule(&config, "foo"));
	vl_config_finish(&config);
}

static void
test_values(void **state)
{
	static const struct {
		const char *text;
		size_t offset;
		unsigned int value;
	} cases[] = {
#define FIELD(name) offsetof(struct vl_config, name)
		{"[panel]\nrotation = 0", FIELD(rotation), 0},
		{"[panel]\nrotation = 90", FIELD(rotation), 90},
		{"[panel]\nrotation = 180", FIELD(rotation), 180},
		{"[refresh]\nfull-refresh-every = 4294967295", FIELD(full_refresh_every), UINT_MAX},
		{"[refresh]\nfull-refresh-every = 007", FIELD(full_refresh_every), 7},
		{"[refresh]\nidle-cleanup = 2000ms", FIELD(idle_cleanup_ms), 2000},
		{"[refresh]\nidle-cleanup = 3s", FIELD(idle_cleanup_ms), 3000},
		{"[refresh]\nidle-cleanup = 1500", FIELD(idle_cleanup_ms), 1500},
		{"[refresh]\nidle-cleanup = 0", FIELD(idle_cleanup_ms), 0},
		{"[refresh]\nidle-cleanup = 0s", FIELD(idle_cleanup_ms), 0},
		{"[refresh]\nidle-cleanup = off", FIELD(idle_cleanup_ms), 0},
		{"[refresh]\ninput-window = 2s", FIELD(input_window_ms), 2000},
		{"[refresh]\ninput-window = 700ms", FIELD(input_window_ms), 700},
		{"[refresh]\ninput-window = off", FIELD(input_window_ms), 0},
		{"[refresh]\nmerge-window = 30ms", FIELD(merge_window_ms), 30},
		{"[refresh]\nmerge-window = 0", FIELD(merge_window_ms), 0},
		{"[refresh]\nx11-merge-window = 80ms", FIELD(x11_merge_window_ms), 80},
		{"[refresh]\nx11-merge-window = off", FIELD(x11_merge_window_ms), 0},
		{"[refresh]\nanimation-interval = 2s", FIELD(animation_interval_ms), 2000},
		{"[refresh]\nanimation-interval = off", FIELD(animation_interval_ms), 0},
		{"[refresh]\nidle-cleanup = 4294967295ms", FIELD(idle_cleanup_ms), UINT_MAX},
		{"[refresh]\nidle-cleanup = 4294967s", FIELD(idle_cleanup_ms), 4294967000u},
		{"[refresh]\nfull-refresh-interval = 250ms", FIELD(full_refresh_interval_ms), 250},
		{"[refresh]\nfull-refresh-interval = 2s", FIELD(full_refresh_interval_ms), 2000},
		{"[refresh]\nfull-refresh-interval = off", FIELD(full_refresh_interval_ms), 0},
		{"[refresh]\ndefault-mode = auto", FIELD(default_mode), VL_EPD_MODE_AUTO},
		{"[refresh]\ndefault-mode = quality", FIELD(default_mode), VL_EPD_MODE_QUALITY},
		{"[refresh]\ndefault-mode = fast", FIELD(default_mode), VL_EPD_MODE_FAST},
		{"[refresh]\ndefault-mode = animation", FIELD(default_mode), VL_EPD_MODE_ANIMATION},
		{"[refresh]\ndefault-dither = none", FIELD(default_dither), VL_EPD_DITHER_NONE},
		{"[refresh]\ndefault-dither = diffusion", FIELD(default_dither),
			VL_EPD_DITHER_DIFFUSION},
		{"[input]\ncursor = hidden", FIELD(show_cursor), false},
#undef FIELD
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct vl_config config;
		unsigned int value;

		vl_config_init(&config);
		/* Every field is set to something else first, so the load must write it. */
		config.rotation = 1;
		config.full_refresh_every = config.idle_cleanup_ms = config.input_window_ms =
			config.merge_window_ms = config.x11_merge_window_ms = 1;
		config.default_mode = (enum vl_epd_mode)5;
		config.default_dither = (enum vl_epd_dither)5;
		config.show_cursor = true;
		load_ok(&config, cases[i].text);
		if (cases[i].offset == offsetof(struct vl_config, show_cursor))
			value = config.show_cursor;
		else
			memcpy(&value, (char *)&config + cases[i].offset, sizeof(value));
		if (value != cases[i].value)
			fail_msg("\"%s\" gave %u", cases[i].text, value);
		vl_config_finish(&config);
	}
}

static void
test_devices(void **state)
{
	static const char *const devices[] = {
		"auto",
		"/dev/fb0",
		"mxc:/dev/fb1",
		"plain:/dev/fb2",
		"drm:/dev/dri/card0",
		"memory:1872x1404",
		"memory:1x1",
		"memory:1872x1404:209x157mm",
		"memory:800x600:0x0mm",
		"preview",
		"preview:1872x1404",
		"preview:1x16384",
	};

	for (size_t i = 0; i < sizeof(devices) / sizeof(*devices); i++) {
		struct vl_config config;
		char text[64];

		vl_config_init(&config);
		snprintf(text, sizeof(text), "[panel]\ndevice = %s\n", devices[i]);
		load_ok(&config, text);
		assert_string_equal(config.device, devices[i]);
		vl_config_finish(&config);
	}
}

/* The preview's time scale: 100 by default, a whole percentage as written. */
static void
test_time_scale(void **state)
{
	struct vl_config config;

	vl_config_init(&config);
	assert_int_equal(config.time_scale, 100);
	load_ok(&config, "[panel]\ntime-scale = 1\n");
	assert_int_equal(config.time_scale, 1);
	load_ok(&config, "[panel]\ntime-scale = 100000\n");
	assert_int_equal(config.time_scale, 100000);
	vl_config_finish(&config);
}

/* An IT8951 board's VCOM, as its cable prints it: none by default, millivolts kept. */
static void
test_vcom(void **state)
{
	struct vl_config config;

	vl_config_init(&config);
	assert_int_equal(config.vcom_mv, 0);
	load_ok(&config, "[panel]\ndevice = it8951:/dev/sg1\nvcom = -1.50\n");
	assert_int_equal(config.vcom_mv, 1500);
	assert_string_equal(config.device, "it8951:/dev/sg1");
	load_ok(&config, "[panel]\nvcom = -2.13\n");
	assert_int_equal(config.vcom_mv, 2130);
	load_ok(&config, "[panel]\nvcom = -0.875\n");
	assert_int_equal(config.vcom_mv, 875);
	load_ok(&config, "[panel]\nvcom = -5\n");
	assert_int_equal(config.vcom_mv, 5000);
	vl_config_finish(&config);
}

/* Scales as written, exactly (no locale, no exponent), and auto after a number. */
static void
test_scale(void **state)
{
	static const struct {
		const char *value;
		double scale;
	} cases[] = {
		{"1", 1},
		{"2", 2},
		{"2.25", 2.25},
		{"1.75", 1.75},
		{"1.333", 1.333},
		{"02.50", 2.5},
		{"0.25", 0.25},
		{"8", 8},
		{"8.000", 8},
		/* nine decimals, the most there are, past 32 bits as a number */
		{"4.500000000", 4.5},
		{"7.999999999", 7.999999999},
		{"0.333333333", 0.333333333},
		{"auto", 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct vl_config config;
		char text[64];

		vl_config_init(&config);
		config.scale = 3;
		snprintf(text, sizeof(text), "[panel]\nscale = %s\n", cases[i].value);
		load_ok(&config, text);
		if (config.scale != cases[i].scale)
			fail_msg("scale = %s gave %g", cases[i].value, config.scale);
		vl_config_finish(&config);
	}
}

static void
test_syntax(void **state)
{
	struct vl_config config;

	vl_config_init(&config);
	/*
	 * A byte order mark, CRLF line ends, blanks everywhere, an inline
	 * comment, ':' for '=', and indented lines that are keys of their own
	 * (inih would append them to the previous value).
	 */
	load_ok(&config, "\xef\xbb\xbf[panel]\r\n"
			 "  rotation=90 ; upside right\r\n"
			 "\t[input]  ; the keyboard\n"
			 "keyboard-layout : us\n"
			 "   keyboard-variant   =   intl   \n"
			 "\tkeyboard-options = compose:ralt\n");
	assert_int_equal(config.rotation, 90);
	assert_string_equal(config.keyboard_layout, "us");
	assert_string_equal(config.keyboard_variant, "intl");
	assert_string_equal(config.keyboard_options, "compose:ralt");
	vl_config_finish(&config);
}

/* inih keeps 50 bytes of a section name; app_ids can be longer. */
static void
test_long_app_ids(void **state)
{
	const char *long_a = "org.example.AVeryLongApplicationIdentifierThatGoesOn.Viewer";
	const char *long_b = "org.example.AVeryLongApplicationIdentifierThatGoesOn.Editor";
	struct vl_config config;
	char text[256];

	vl_config_init(&config);
	snprintf(text, sizeof(text), "[app:%s]\nmode = quality\n[app:%s]\nmode = fast\n", long_a,
		long_b);
	load_ok(&config, text);
	assert_int_equal(config.n_rules, 2);
	assert_int_equal(vl_config_rule(&config, long_a)->mode, VL_EPD_MODE_QUALITY);
	assert_int_equal(vl_config_rule(&config, long_b)->mode, VL_EPD_MODE_FAST);
	vl_config_finish(&config);
}

static void
test_structure_errors(void **state)
{
	assert_load_fails("[panel]\nrotation = 90\n\n[screen]\n",
		"4: unknown section [screen] (known: [panel], [refresh], [input], [app:APP_ID])");
	assert_load_fails("[Panel]\n",
		"1: unknown section [Panel] (known: [panel], [refresh], [input], [app:APP_ID])");
	assert_load_fails("rotation = 90\n", "1: key \"rotation\" is outside any section");
	assert_load_fails("[panel]\ndevice = auto\nwaveform = a2=4\n",
		"3: unknown key \"waveform\" in [panel] (known: device, waveform-map, rotation, "
		"scale, time-scale, vcom)");
	assert_load_fails("[refresh]\nmode = text\n",
		"2: unknown key \"mode\" in [refresh] (known: full-refresh-every, idle-cleanup, "
		"input-window, merge-window, x11-merge-window, animation-interval, "
		"full-refresh-interval, "
		"default-mode, default-dither)");
	assert_load_fails("[input]\ncursor-theme = x\n",
		"2: unknown key \"cursor-theme\" in [input] (known: cursor, keyboard-layout, "
		"keyboard-variant, keyboard-options, touch-device)");
	assert_load_fails("[app:foot]\nrotation = 90\n",
		"2: unknown key \"rotation\" in [app:foot] (known: "
		"mode, dither, merge-window, blinking)");
	assert_load_fails("[panel]\nrotation = 90\n; comment\nrotation = 180\n",
		"4: duplicate key \"rotation\" (first at line 2)");
	assert_load_fails("[app:foot]\nmode = text\nmode = fast\n",
		"3: duplicate key \"mode\" (first at line 2)");
	assert_load_fails(
		"[panel]\n[refresh]\n[panel]\n", "3: duplicate section [panel] (first at line 1)");
	assert_load_fails("[app:foot]\nmode = text\n[input]\n[app:foot]\ndither = none\n",
		"4: duplicate section [app:foot] (first at line 1)");
	assert_load_fails("[input]\n[app:]\nmode = text\n",
		"2: [app:] names no application (expected [app:APP_ID])");
	assert_load_fails("[panel\n", "1: section header without ']'");
	assert_load_fails("[panel] rotation = 90\n",
		"1: unexpected \"rotation = 90\" after the section header");
	assert_load_fails(
		"[panel]\nrotation 90\n", "2: expected [SECTION], KEY = VALUE or a comment");
	assert_load_fails("[panel]\n\n= 90\n", "3: expected [SECTION], KEY = VALUE or a comment");
	static const char nul_line[] = "[panel]\nrotation = 90\0\n";
	assert_bytes_fail(nul_line, sizeof(nul_line) - 1, "2: the line holds a NUL byte");

	char text[512];
	snprintf(text, sizeof(text), "[input]\n\ntouch-device = %0300d\n", 1);
	assert_load_fails(text, "3: the line is longer than 199 characters");
}

/* inih goes on after a line it cannot parse; the first error in the file is the one reported. */
static void
test_first_error_wins(void **state)
{
	assert_load_fails("[panel]\nrotation\nrotation = 45\n",
		"2: expected [SECTION], KEY = VALUE or a comment");
	assert_load_fails("[panel]\nrotation = 45\nrotation\n",
		"2: invalid rotation \"45\": expected 0, 90, 180 or 270");
	assert_load_fails("[panel]\nrotation\n[nowhere]\n",
		"2: expected [SECTION], KEY = VALUE or a comment");
}

static void
test_value_errors(void **state)
{
	static const char *const bad_device =
		"expected auto, /dev/fbN, mxc:/dev/fbN, plain:/dev/fbN, "
		"drm:/dev/dri/cardN, it8951:/dev/sgN, preview[:WIDTHxHEIGHT] or "
		"memory:WIDTHxHEIGHT[:WIDTH_MMxHEIGHT_MMmm]";
	static const char *const bad_vcom = "expected the VCOM printed on the panel's cable, in "
					    "volts from -0.20 to -5.00, e.g. -1.50";
	static const char *const bad_time_scale = "expected a percentage from 1 to 100000";
	static const char *const bad_scale =
		"expected auto or a scale from 0.25 to 8, such as 2 or 1.75";
	static const char *const bad_count =
		"expected a number of updates from 0 (never) to 4294967295";
	static const char *const bad_delay = "expected a delay such as 2000ms, 2s or 2000 "
					     "(milliseconds) up to 4294967295ms, or 0 or off for "
					     "never";
	static const char *const bad_interval =
		"expected a delay such as 2000ms, 2s or 2000 "
		"(milliseconds) up to 4294967295ms, or 0 or off for "
		"no limit";
	static const char *const bad_merge = "expected a delay such as 2000ms, 2s or 2000 "
					     "(milliseconds) up to 4294967295ms, or 0 or off for "
					     "none";
	static const char *const bad_mode = "expected auto, quality, text, fast or animation";
	static const char *const bad_dither = "expected auto, none, ordered or diffusion";
	static const struct {
		const char *section, *key, *value, *why;
	} cases[] = {
		{"panel", "device", "", bad_device},
		{"panel", "device", "fb0", bad_device},
		{"panel", "device", "mxc:", bad_device},
		{"panel", "device", "plain:fb0", bad_device},
		{"panel", "device", "drm:", bad_device},
		{"panel", "device", "drm:card0", bad_device},
		{"panel", "device", "memory:", bad_device},
		{"panel", "device", "memory:0x600", bad_device},
		{"panel", "device", "memory:800x", bad_device},
		{"panel", "device", "memory:800x600x", bad_device},
		{"panel", "device", "memory:-800x600", bad_device},
		{"panel", "device", "memory:4294967296x1", bad_device},
		{"panel", "device", "memory:800x600:209x157", bad_device},
		{"panel", "device", "memory:800x600:209mm", bad_device},
		{"panel", "device", "memory:800x600:x157mm", bad_device},
		{"panel", "device", "memory:800x600:209x157mmm", bad_device},
		{"panel", "device", "memory:800x600209x157mm", bad_device},
		{"panel", "device", "memory:800x600:4294967296x1mm", bad_device},
		{"panel", "device", "preview:", bad_device},
		{"panel", "device", "preview:0x600", bad_device},
		{"panel", "device", "preview:800x", bad_device},
		{"panel", "device", "preview:800x600x", bad_device},
		{"panel", "device", "preview:16385x600", bad_device},
		{"panel", "device", "preview:800x600:209x157mm", bad_device},
		{"panel", "device", "previews", bad_device},
		{"panel", "vcom", "", bad_vcom},
		{"panel", "vcom", "1.50", bad_vcom},
		{"panel", "vcom", "-0.1", bad_vcom},
		{"panel", "vcom", "-5.01", bad_vcom},
		{"panel", "vcom", "-1.5V", bad_vcom},
		{"panel", "vcom", "-1.5000", bad_vcom},
		{"panel", "vcom", "-", bad_vcom},
		{"panel", "device", "it8951:", bad_device},
		{"panel", "time-scale", "", bad_time_scale},
		{"panel", "time-scale", "0", bad_time_scale},
		{"panel", "time-scale", "100001", bad_time_scale},
		{"panel", "time-scale", "-5", bad_time_scale},
		{"panel", "time-scale", "50%", bad_time_scale},
		{"panel", "scale", "", bad_scale},
		{"panel", "scale", "0", bad_scale},
		{"panel", "scale", "0.0", bad_scale},
		{"panel", "scale", "0.1", bad_scale},
		{"panel", "scale", "-1", bad_scale},
		{"panel", "scale", "-2.5", bad_scale},
		{"panel", "scale", "+2", bad_scale},
		{"panel", "scale", "8.01", bad_scale},
		{"panel", "scale", "100", bad_scale},
		{"panel", "scale", "99999999999999999999999", bad_scale},
		{"panel", "scale", "1e2", bad_scale},
		{"panel", "scale", "2.", bad_scale},
		{"panel", "scale", ".5", bad_scale},
		{"panel", "scale", "1,5", bad_scale},
		{"panel", "scale", "2x", bad_scale},
		{"panel", "scale", "2 5", bad_scale},
		{"panel", "scale", "nan", bad_scale},
		{"panel", "scale", "inf", bad_scale},
		{"panel", "scale", "Auto", bad_scale},
		{"panel", "waveform-map", "du=1, gc16",
			"waveform map item \"gc16\": expected KIND=ID"},
		{"panel", "waveform-map", "init=0",
			"waveform map \"init=0\" names no waveform to draw with (du, gc16, gc4, "
			"a2, "
			"gl16)"},
		{"panel", "rotation", "45", "expected 0, 90, 180 or 270"},
		{"panel", "rotation", "-90", "expected 0, 90, 180 or 270"},
		{"panel", "rotation", "90deg", "expected 0, 90, 180 or 270"},
		{"panel", "rotation", "", "expected 0, 90, 180 or 270"},
		{"refresh", "full-refresh-every", "-1", bad_count},
		{"refresh", "full-refresh-every", "+6", bad_count},
		{"refresh", "full-refresh-every", "6x", bad_count},
		{"refresh", "full-refresh-every", "6 7", bad_count},
		{"refresh", "full-refresh-every", "0x10", bad_count},
		{"refresh", "full-refresh-every", "4294967296", bad_count},
		{"refresh", "full-refresh-every", "99999999999999999999999", bad_count},
		{"refresh", "full-refresh-every", "", bad_count},
		{"refresh", "input-window", "soon", bad_delay},
		{"refresh", "input-window", "-1", bad_delay},
		{"refresh", "merge-window", "1 frame", bad_merge},
		{"refresh", "x11-merge-window", "-5ms", bad_merge},
		{"refresh", "animation-interval", "fast",
			"expected a delay such as 2000ms, 2s or 2000 (milliseconds) up to "
			"4294967295ms, or 0 or off for animations as any change"},
		{"app:foot", "merge-window", "soon", bad_merge},
		{"refresh", "idle-cleanup", "2min", bad_delay},
		{"refresh", "idle-cleanup", "2 s", bad_delay},
		{"refresh", "idle-cleanup", "s", bad_delay},
		{"refresh", "idle-cleanup", "-1", bad_delay},
		{"refresh", "idle-cleanup", "1.5s", bad_delay},
		{"refresh", "idle-cleanup", "4294967296", bad_delay},
		{"refresh", "idle-cleanup", "4294967296ms", bad_delay},
		{"refresh", "idle-cleanup", "4294968s", bad_delay},
		{"refresh", "idle-cleanup", "99999999999999999999999s", bad_delay},
		{"refresh", "idle-cleanup", "Off", bad_delay},
		{"refresh", "full-refresh-interval", "1 s", bad_interval},
		{"refresh", "full-refresh-interval", "-1", bad_interval},
		{"refresh", "full-refresh-interval", "4294968s", bad_interval},
		{"refresh", "idle-cleanup", "", bad_delay},
		{"refresh", "default-mode", "gc16", bad_mode},
		{"refresh", "default-mode", "Text", bad_mode},
		{"refresh", "default-dither", "floyd-steinberg", bad_dither},
		{"input", "cursor", "yes", "expected hidden or shown"},
		{"input", "cursor", "", "expected hidden or shown"},
		{"input", "keyboard-layout", "", "expected an XKB layout such as us or de,fr"},
		{"input", "keyboard-variant", "",
			"expected an XKB variant such as dvorak or nodeadkeys"},
		{"input", "keyboard-options", "",
			"expected XKB options such as ctrl:nocaps,compose:ralt"},
		{"input", "touch-device", "",
			"expected the name of a touchscreen or tablet, as libinput lists it"},
		{"app:foot", "mode", "a2", bad_mode},
		{"app:foot", "dither", "yes", bad_dither},
		{"app:foot", "blinking", "yes", "expected held or shown"},
		{"app:foot", "blinking", "", "expected held or shown"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char text[256], expected[512];

		snprintf(text, sizeof(text), "; line 1\n[%s]\n%s = %s\n", cases[i].section,
			cases[i].key, cases[i].value);
		snprintf(expected, sizeof(expected), "3: invalid %s \"%s\": %s", cases[i].key,
			cases[i].value, cases[i].why);
		assert_load_fails(text, expected);
	}
}

/*
 * The XKB names must make a keymap, checked when the file is read: a kiosk
 * whose keyboard has none would take no key. The error is at the name XKB
 * takes first of those that break it.
 */
static void
test_keymap_errors(void **state)
{
	struct vl_config config;
	char error[512], expected[1024];
	const char *path;

	assert_load_fails("[input]\nkeyboard-layout = nosuchlayout\n",
		"2: invalid keyboard-layout \"nosuchlayout\": XKB has no keymap for layout "
		"\"nosuchlayout\", variant \"\", options \"\" (see xkeyboard-config(7))");
	assert_load_fails("[input]\nkeyboard-layout = us\nkeyboard-variant = nosuch\n",
		"3: invalid keyboard-variant \"nosuch\": XKB has no keymap for layout \"us\", "
		"variant \"nosuch\", options \"\" (see xkeyboard-config(7))");
	/* the layout is at fault, whichever line comes first */
	assert_load_fails("[input]\nkeyboard-variant = nodeadkeys\nkeyboard-layout = xx\n",
		"3: invalid keyboard-layout \"xx\": XKB has no keymap for layout \"xx\", "
		"variant \"nodeadkeys\", options \"\" (see xkeyboard-config(7))");

	/* a file on top of another: the layout of the first, the bad variant of the second */
	vl_config_init(&config);
	load_ok(&config, "[input]\nkeyboard-layout = de\nkeyboard-variant = nodeadkeys\n");
	path = config_file("[refresh]\nidle-cleanup = off\n[input]\nkeyboard-variant = dvorak-x\n");
	assert_false(vl_config_load(&config, path, error, sizeof(error)));
	snprintf(expected, sizeof(expected),
		"%s:4: invalid keyboard-variant \"dvorak-x\": XKB has no keymap for layout \"de\", "
		"variant \"dvorak-x\", options \"\" (see xkeyboard-config(7))",
		path);
	assert_string_equal(error, expected);
	/* nothing of the bad file was taken */
	assert_string_equal(config.keyboard_variant, "nodeadkeys");
	struct vl_config defaults;
	vl_config_init(&defaults);
	assert_int_equal(config.idle_cleanup_ms, defaults.idle_cleanup_ms);
	vl_config_finish(&defaults);
	/* names that make a keymap */
	load_ok(&config, "[input]\nkeyboard-layout = us,de\nkeyboard-variant = ,nodeadkeys\n"
			 "keyboard-options = grp:alt_shift_toggle,ctrl:nocaps\n");
	assert_string_equal(config.keyboard_layout, "us,de");
	vl_config_finish(&config);
}

/* touch-device: any name a device can have, which has no control characters. */
static void
test_touch_device_names(void **state)
{
	struct vl_config config;

	vl_config_init(&config);
	load_ok(&config, "[input]\ntouch-device = ELAN9008:00 04F3:2C82\n");
	assert_string_equal(config.touch_device, "ELAN9008:00 04F3:2C82");
	vl_config_finish(&config);
	assert_load_fails("[input]\ntouch-device = Wacom\tPen\n",
		"2: invalid touch-device \"Wacom\tPen\": a device name holds no control "
		"characters");
}

static void
test_unreadable_files(void **state)
{
	char error[512], expected[1024];
	struct vl_config config;
	const char *path;

	vl_config_init(&config);
	path = tmp_path("missing.conf");
	assert_false(vl_config_load(&config, path, error, sizeof(error)));
	snprintf(expected, sizeof(expected), "%s: No such file or directory", path);
	assert_string_equal(error, expected);

	path = tmp_path("a-directory.conf");
	make_dirs(path);
	assert_false(vl_config_load(&config, path, error, sizeof(error)));
	snprintf(expected, sizeof(expected), "%s: Is a directory", path);
	assert_string_equal(error, expected);
	assert_defaults(&config);
	vl_config_finish(&config);
}

/* The compositor reloads on SIGHUP and keeps what it had when the new file is bad. */
static void
test_failed_load_changes_nothing(void **state)
{
	static const char *const bad_files[] = {
		/* every kind of change made before the error */
		"[panel]\ndevice = memory:10x10\nwaveform-map = du=7\nrotation = 90\n"
		"[refresh]\nfull-refresh-every = 1\nidle-cleanup = off\ndefault-mode = fast\n"
		"[input]\ncursor = shown\nkeyboard-layout = fr\ntouch-device = pen\n"
		"[app:foot]\nmode = quality\ndither = diffusion\n"
		"[app:new]\nmode = fast\n"
		"[input]\n",
		"[app:new]\nmode = fast\n[refresh]\nfull-refresh-every = 1\nbogus\n",
		"[panel]\nrotation = 90\n[input]\nkeyboard-options = x\n"
		"keyboard-options = y\n",
		"[panel]\nrotation = 90\ndevice = /dev/fb3\n[panel]\n",
	};
	struct vl_config config, before;
	struct vl_app_rule rules_before[2];
	char error[512];

	vl_config_init(&config);
	load_ok(&config, "[panel]\nwaveform-map = du=1, gc16=2\n"
			 "[input]\nkeyboard-layout = us\nkeyboard-options = ctrl:nocaps\n"
			 "[app:foot]\nmode = text\n[app:XClock]\ndither = none\n");
	before = config;
	memcpy(rules_before, config.rules, sizeof(rules_before));
	for (size_t i = 0; i < sizeof(bad_files) / sizeof(*bad_files); i++) {
		assert_false(
			vl_config_load(&config, config_file(bad_files[i]), error, sizeof(error)));
		/* The same strings and rules at the same addresses, so nothing was freed. */
		assert_memory_equal(&config, &before, sizeof(config));
		assert_memory_equal(config.rules, rules_before, sizeof(rules_before));
		assert_string_equal(config.device, "auto");
		assert_string_equal(config.waveform_map, "du=1, gc16=2");
		assert_string_equal(config.keyboard_layout, "us");
		assert_string_equal(config.keyboard_options, "ctrl:nocaps");
		assert_string_equal(config.rules[0].app_id, "foot");
		assert_string_equal(config.rules[1].app_id, "XClock");
	}
	vl_config_finish(&config);
}

/* What a file does not mention stays as the config had it. */
static void
test_load_on_top(void **state)
{
	struct vl_config config;

	vl_config_init(&config);
	load_ok(&config, "[panel]\nrotation = 90\n[input]\nkeyboard-layout = us\n"
			 "[app:foot]\nmode = text\n[app:XClock]\ndither = none\n");
	load_ok(&config, "[panel]\ndevice = memory:800x600\n[input]\nkeyboard-layout = de\n"
			 "[app:foot]\ndither = ordered\n[app:gimp]\nmode = quality\n");
	assert_string_equal(config.device, "memory:800x600");
	assert_int_equal(config.rotation, 90);
	assert_string_equal(config.keyboard_layout, "de");
	/* [app:foot] again in another file is no duplicate: the rule gains a key. */
	assert_int_equal(config.n_rules, 3);
	assert_true(config.rules[0].has_mode && config.rules[0].has_dither);
	assert_int_equal(config.rules[0].mode, VL_EPD_MODE_TEXT);
	assert_int_equal(config.rules[0].dither, VL_EPD_DITHER_ORDERED);
	assert_string_equal(config.rules[1].app_id, "XClock");
	assert_string_equal(config.rules[2].app_id, "gimp");
	vl_config_finish(&config);
}

static void
assert_found(const char *expected)
{
	char *found = vl_config_find();

	if (expected) {
		assert_non_null(found);
		assert_string_equal(found, expected);
	} else {
		assert_null(found);
	}
	free(found);
}

static void
test_search_order(void **state)
{
	char xdg_dir[128], xdg_file[256], home_dir[128], home_file[256];
	const char *system_file = VL_CONFIG_SYSTEM_FILE;
	char system_dir[PATH_MAX];

	snprintf(xdg_dir, sizeof(xdg_dir), "%s", tmp_path("xdg"));
	snprintf(xdg_file, sizeof(xdg_file), "%s/vellum/vellum.conf", xdg_dir);
	snprintf(home_dir, sizeof(home_dir), "%s", tmp_path("home"));
	snprintf(home_file, sizeof(home_file), "%s/.config/vellum/vellum.conf", home_dir);
	snprintf(system_dir, sizeof(system_dir), "%s", system_file);
	*strrchr(system_dir, '/') = '\0';
	make_dirs(tmp_path("xdg/vellum"));
	make_dirs(tmp_path("home/.config/vellum"));
	make_dirs(system_dir);
	write_file(xdg_file, "");
	write_file(home_file, "");
	write_file(system_file, "");

	setenv("XDG_CONFIG_HOME", xdg_dir, 1);
	setenv("HOME", home_dir, 1);
	assert_found(xdg_file);
	/* XDG_CONFIG_HOME takes the place of ~/.config. */
	unlink(xdg_file);
	assert_found(system_file);

	unsetenv("XDG_CONFIG_HOME");
	assert_found(home_file);
	setenv("XDG_CONFIG_HOME", "", 1);
	assert_found(home_file);
	/* The XDG spec: a relative path is invalid and ignored. */
	setenv("XDG_CONFIG_HOME", "xdg", 1);
	assert_found(home_file);

	unlink(home_file);
	assert_found(system_file);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("HOME");
	assert_found(system_file);
	unlink(system_file);
	assert_found(NULL);
	/* The two directories make_dirs created above the system file. */
	rmdir(system_dir);
	*strrchr(system_dir, '/') = '\0';
	rmdir(system_dir);
}

/* The example documents the defaults: loading it changes nothing. */
static void
test_example_is_the_defaults(void **state)
{
	char error[512] = "";
	struct vl_config config;

	vl_config_init(&config);
	if (!vl_config_load(&config, EXAMPLE_CONFIG, error, sizeof(error)))
		fail_msg("%s", error);
	assert_defaults(&config);
	vl_config_finish(&config);
}

/*
 * The example's settings left out (lines starting with ';') are valid too,
 * and together with the others name every key once.
 */
static void
test_example_commented_settings(void **state)
{
	FILE *example = fopen(EXAMPLE_CONFIG, "r");
	char line[512], *text = NULL;
	size_t text_size = 0;
	FILE *uncommented;
	struct vl_config config;

	assert_non_null(example);
	uncommented = open_memstream(&text, &text_size);
	assert_non_null(uncommented);
	while (fgets(line, sizeof(line), example))
		fputs(line[0] == ';' ? line + 1 : line, uncommented);
	fclose(example);
	assert_int_equal(fclose(uncommented), 0);

	vl_config_init(&config);
	load_ok(&config, text);
	assert_non_null(config.waveform_map);
	assert_non_null(config.keyboard_layout);
	assert_non_null(config.keyboard_variant);
	assert_non_null(config.keyboard_options);
	assert_non_null(config.touch_device);
	assert_true(config.n_rules > 0);
	vl_config_finish(&config);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_empty_file_changes_nothing),
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_time_scale),
		cmocka_unit_test(test_vcom),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_long_app_ids),
		cmocka_unit_test(test_structure_errors),
		cmocka_unit_test(test_first_error_wins),
		cmocka_unit_test(test_value_errors),
		cmocka_unit_test(test_keymap_errors),
		cmocka_unit_test(test_touch_device_names),
		cmocka_unit_test(test_unreadable_files),
		cmocka_unit_test(test_failed_load_changes_nothing),
		cmocka_unit_test(test_load_on_top),
		cmocka_unit_test(test_search_order),
		cmocka_unit_test(test_example_is_the_defaults),
		cmocka_unit_test(test_example_commented_settings),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
