// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: vellum's configuration file, through config.h alone.
 * Each input is a file's content. It is loaded on top of the defaults and
 * then once more on top of the result, and must:
 * - when refused, name the file in the message and leave the config exactly
 *   as it was;
 * - when accepted, leave only values the keys allow, and one rule per app;
 * - give the same answer and the same config the second time.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <vellum/epd-pipeline.h>

#include "config.h"

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                 \
		}                                                                                \
	} while (0)

static bool
same_string(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool
same_config(const struct vl_config *a, const struct vl_config *b)
{
	if (!same_string(a->device, b->device) || !same_string(a->waveform_map, b->waveform_map) ||
		a->rotation != b->rotation || a->full_refresh_every != b->full_refresh_every ||
		a->idle_cleanup_ms != b->idle_cleanup_ms || a->default_mode != b->default_mode ||
		a->default_dither != b->default_dither || a->show_cursor != b->show_cursor ||
		!same_string(a->keyboard_layout, b->keyboard_layout) ||
		!same_string(a->keyboard_variant, b->keyboard_variant) ||
		!same_string(a->keyboard_options, b->keyboard_options) ||
		!same_string(a->touch_device, b->touch_device) || a->n_rules != b->n_rules)
		return false;
	for (size_t i = 0; i < a->n_rules; i++) {
		const struct vl_app_rule *x = &a->rules[i], *y = &b->rules[i];
		if (!same_string(x->app_id, y->app_id) || x->has_mode != y->has_mode ||
			x->has_dither != y->has_dither || (x->has_mode && x->mode != y->mode) ||
			(x->has_dither && x->dither != y->dither))
			return false;
	}
	return true;
}

/* A deep copy, to compare with later. */
static void
snapshot(struct vl_config *copy, const struct vl_config *config)
{
	*copy = *config;
	copy->device = config->device ? strdup(config->device) : NULL;
	copy->waveform_map = config->waveform_map ? strdup(config->waveform_map) : NULL;
	copy->keyboard_layout = config->keyboard_layout ? strdup(config->keyboard_layout) : NULL;
	copy->keyboard_variant = config->keyboard_variant ? strdup(config->keyboard_variant) : NULL;
	copy->keyboard_options = config->keyboard_options ? strdup(config->keyboard_options) : NULL;
	copy->touch_device = config->touch_device ? strdup(config->touch_device) : NULL;
	copy->rules = NULL;
	if (config->n_rules) {
		copy->rules = calloc(config->n_rules, sizeof(*copy->rules));
		CHECK(copy->rules);
		for (size_t i = 0; i < config->n_rules; i++) {
			copy->rules[i] = config->rules[i];
			copy->rules[i].app_id = strdup(config->rules[i].app_id);
		}
	}
}

static void
check_values(const struct vl_config *config)
{
	char error[256];
	struct vl_epd_waveform_map map;

	CHECK(config->device && config->device[0]);
	CHECK(config->rotation == 0 || config->rotation == 90 || config->rotation == 180 ||
		config->rotation == 270);
	CHECK((unsigned int)config->default_mode <= VL_EPD_MODE_ANIMATION);
	CHECK((unsigned int)config->default_dither <= VL_EPD_DITHER_DIFFUSION);
	if (config->waveform_map)
		CHECK(vl_epd_waveform_map_parse(config->waveform_map, &map, error, sizeof(error)));
	for (size_t i = 0; i < config->n_rules; i++) {
		const struct vl_app_rule *rule = &config->rules[i];
		CHECK(rule->app_id);
		CHECK(vl_config_rule(config, rule->app_id) == rule);
		CHECK(!rule->has_mode || (unsigned int)rule->mode <= VL_EPD_MODE_ANIMATION);
		CHECK(!rule->has_dither || (unsigned int)rule->dither <= VL_EPD_DITHER_DIFFUSION);
	}
}

/* Loads path on top of config; checks what a load promises either way. */
static bool
load(struct vl_config *config, const char *path)
{
	struct vl_config before;
	char error[512];

	snapshot(&before, config);
	memset(error, 0, sizeof(error));
	bool ok = vl_config_load(config, path, error, sizeof(error));
	if (ok) {
		check_values(config);
	} else {
		CHECK(strncmp(error, path, strlen(path)) == 0);
		CHECK(error[strlen(path)] == ':');
		CHECK(same_config(config, &before));
	}
	vl_config_finish(&before);
	return ok;
}

static int
file_with(const void *data, size_t size, char *path, size_t path_size)
{
	int fd = memfd_create("vellum.conf", MFD_CLOEXEC);

	CHECK(fd >= 0);
	CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
	snprintf(path, path_size, "/proc/self/fd/%d", fd);
	return fd;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct vl_config config, first;
	int fd = file_with(data, size, path, sizeof(path));

	vl_config_init(&config);
	bool ok = load(&config, path);
	snapshot(&first, &config);
	CHECK(load(&config, path) == ok);
	CHECK(same_config(&config, &first));

	vl_config_finish(&first);
	vl_config_finish(&config);
	close(fd);
	return 0;
}
