/* SPDX-License-Identifier: MIT */
/*
 * vellum's configuration: an INI file read with inih (config-parse.c), and
 * the settings it gives (config.c).
 */
#ifndef VL_CONFIG_H
#define VL_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vellum/epd-mode.h>

/* The scales the [panel] scale key takes. */
#define VL_SCALE_MIN 0.25
#define VL_SCALE_MAX 8.0

/* Refresh mode and dither for the windows of one application. */
struct vl_app_rule {
	char *app_id; /* xdg app_id, or WM_CLASS for X11 clients */
	bool has_mode, has_dither, has_merge_window;
	/* its carets blink on the panel, instead of being held inked while they blink */
	bool show_blinking;
	enum vl_epd_mode mode;
	enum vl_epd_dither dither;
	unsigned int merge_window_ms; /* its changes wait this long for the rest of them */
};

struct vl_config {
	/* [panel] */
	char *device;            /* backend device spec; "auto" by default */
	char *waveform_map;      /* NULL: as the device reports them */
	int rotation;            /* how far the panel is turned clockwise: 0, 90, 180, 270 */
	double scale;            /* panel pixels per logical pixel; 0: from the panel's size */
	unsigned int time_scale; /* the preview panel's waveforms take this % of their time */
	uint16_t vcom_mv;        /* the panel's VCOM, -mV, for a board that sets it; 0: its own */

	/* [refresh] */
	unsigned int full_refresh_every;  /* partial updates of an area before a flash; 0 never */
	unsigned int idle_cleanup_ms;     /* flashing cleanup after this much quiet; 0 never */
	unsigned int input_window_ms;     /* the user works while input is this recent; 0 never */
	unsigned int merge_window_ms;     /* a change waits this long for the rest of it; 0 none */
	unsigned int x11_merge_window_ms; /* the same for X11 windows alone */
	/* an animation nobody asked for is driven this often; 0: not told apart */
	unsigned int animation_interval_ms;
	/* shortest time between the flashes clients ask for (epaper-refresh-v1); 0 no limit */
	unsigned int full_refresh_interval_ms;
	enum vl_epd_mode default_mode;
	enum vl_epd_dither default_dither;

	/* [input] */
	bool show_cursor; /* false by default: e-paper has no use for a pointer image */
	char *keyboard_layout, *keyboard_variant, *keyboard_options; /* NULL: xkb defaults */
	char *touch_device; /* name of the touchscreen or tablet mapped to the panel; NULL: all */

	/* [app:APP_ID] sections, in file order */
	struct vl_app_rule *rules;
	size_t n_rules;
};

/* The preview panel's largest side, and its slowest time scale (epdfb's too). */
#define VL_PREVIEW_SIZE_MAX 16384
#define VL_TIME_SCALE_MAX   100000
/* A time scale: a whole percentage from 1 to VL_TIME_SCALE_MAX. */
bool vl_config_parse_time_scale(const char *value, unsigned int *time_scale);

/* The built-in defaults. */
void vl_config_init(struct vl_config *config);
void vl_config_finish(struct vl_config *config);
/* A deep copy, for a load to work on until it has succeeded; false when out of memory. */
bool vl_config_copy(struct vl_config *to, const struct vl_config *from);

/* Room for an error message naming a file: its path, whatever its length, and what is wrong. */
#define VL_ERROR_SIZE (PATH_MAX + 512)

/*
 * Reads path into config (on top of what it holds). On error returns false,
 * leaves config as it was, and writes "FILE:LINE: message" (or "FILE: message"
 * when the file cannot be read) to error.
 */
bool vl_config_load(struct vl_config *config, const char *path, char *error, size_t error_size);

/*
 * The file to read when none is given: $XDG_CONFIG_HOME/vellum/vellum.conf
 * (or ~/.config/...), then /etc/xdg/vellum/vellum.conf; NULL if neither
 * exists. The result is malloc'ed.
 */
char *vl_config_find(void);

/* The rule for app_id, or NULL. */
const struct vl_app_rule *vl_config_rule(const struct vl_config *config, const char *app_id);

#endif
