// SPDX-License-Identifier: MIT
/*
 * vellum's configuration: its defaults, copies, the rule for an application,
 * and where the file is. Reading the file is config-parse.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"

#ifndef VL_CONFIG_SYSTEM_FILE
#define VL_CONFIG_SYSTEM_FILE "/etc/xdg/vellum/vellum.conf"
#endif

void
vl_config_init(struct vl_config *config)
{
	*config = (struct vl_config){
		/* If strdup fails, NULL means "auto" to the backend too. */
		.device = strdup("auto"),
		.time_scale = 100,
		.full_refresh_every = 0,
		.idle_cleanup_ms = 1500,
		.input_window_ms = 1000,
		/* Xwayland commits a change in pieces a few ms apart */
		.x11_merge_window_ms = 50,
		.animation_interval_ms = 1000,
		.full_refresh_interval_ms = 1000,
		.default_mode = VL_EPD_MODE_AUTO,
		.default_dither = VL_EPD_DITHER_AUTO,
	};
}

void
vl_config_finish(struct vl_config *config)
{
	free(config->device);
	free(config->waveform_map);
	free(config->keyboard_layout);
	free(config->keyboard_variant);
	free(config->keyboard_options);
	free(config->touch_device);
	for (size_t i = 0; i < config->n_rules; i++)
		free(config->rules[i].app_id);
	free(config->rules);
	memset(config, 0, sizeof(*config));
}

static bool
copy_string(char **to, const char *from)
{
	*to = from ? strdup(from) : NULL;
	return !from || *to;
}

bool
vl_config_copy(struct vl_config *to, const struct vl_config *from)
{
	*to = *from;
	to->device = to->waveform_map = to->keyboard_layout = to->keyboard_variant =
		to->keyboard_options = to->touch_device = NULL;
	to->rules = NULL;
	to->n_rules = 0;
	if (!copy_string(&to->device, from->device) ||
		!copy_string(&to->waveform_map, from->waveform_map) ||
		!copy_string(&to->keyboard_layout, from->keyboard_layout) ||
		!copy_string(&to->keyboard_variant, from->keyboard_variant) ||
		!copy_string(&to->keyboard_options, from->keyboard_options) ||
		!copy_string(&to->touch_device, from->touch_device))
		goto err;
	if (from->n_rules) {
		to->rules = calloc(from->n_rules, sizeof(*to->rules));
		if (!to->rules)
			goto err;
	}
	for (; to->n_rules < from->n_rules; to->n_rules++) {
		to->rules[to->n_rules] = from->rules[to->n_rules];
		if (!copy_string(&to->rules[to->n_rules].app_id, from->rules[to->n_rules].app_id))
			goto err;
	}
	return true;
err:
	vl_config_finish(to);
	return false;
}

static char *
existing_file(const char *dir, const char *subdir)
{
	struct stat st;
	char *path;

	if (asprintf(&path, "%s%s/vellum/vellum.conf", dir, subdir) < 0)
		return NULL;
	if (stat(path, &st) == 0)
		return path;
	free(path);
	return NULL;
}

char *
vl_config_find(void)
{
	const char *config_home = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	char *path = NULL;

	/* As the XDG base directory spec says, a relative XDG_CONFIG_HOME is ignored. */
	if (config_home && config_home[0] == '/')
		path = existing_file(config_home, "");
	else if (home && *home)
		path = existing_file(home, "/.config");
	if (!path) {
		struct stat st;
		if (stat(VL_CONFIG_SYSTEM_FILE, &st) == 0)
			path = strdup(VL_CONFIG_SYSTEM_FILE);
	}
	return path;
}

const struct vl_app_rule *
vl_config_rule(const struct vl_config *config, const char *app_id)
{
	for (size_t i = 0; i < config->n_rules; i++) {
		if (strcmp(config->rules[i].app_id, app_id) == 0)
			return &config->rules[i];
	}
	return NULL;
}
