// SPDX-License-Identifier: MIT
#include "vellum_panel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "epdrm_test.h"

bool
vellum_panel_is_drm(void)
{
	const char *driver = getenv("VELLUM_TEST_DRIVER");
	const char *name = program_invocation_short_name;
	size_t len = strlen(name);

	if (driver && *driver)
		return strcmp(driver, "epdrm") == 0;
	return len > 6 && strcmp(name + len - 6, "_epdrm") == 0;
}

/* epdfb's parameters that epdrm has too */
static void
epdrm_params(const char *params, char *out, size_t size)
{
	static const char *const shared[] = {
		"width=", "height=", "width_mm=", "height_mm=", "time_scale=", "ambient_temp="};
	char copy[512];
	size_t used = 0;

	snprintf(copy, sizeof(copy), "%s", params);
	out[0] = '\0';
	for (char *save = NULL, *word = strtok_r(copy, " ", &save); word;
		word = strtok_r(NULL, " ", &save)) {
		for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
			if (strncmp(word, shared[i], strlen(shared[i])) == 0 && used < size) {
				used += (size_t)snprintf(
					out + used, size - used, "%s%s", used ? " " : "", word);
				break;
			}
		}
	}
}

/* As KMS master for a moment: a white frame, GC16 with a flash, settled. */
static void
clear_through_kms(struct epd *d)
{
	struct epdrm e;

	epdrm_open(&e);
	epdrm_clear_white(&e);
	epdrm_close(&e);
	memset(d->model, 255, (size_t)d->width * d->height);
}

void
vellum_panel_open(struct epd *d, const char *params)
{
	char drm_params[512];
	struct epdrm e;

	if (!vellum_panel_is_drm()) {
		epd_open(d, params);
		return;
	}
	epdrm_params(params, drm_params, sizeof(drm_params));
	epdrm_load(drm_params);
	epdrm_open(&e);
	epdrm_close(&e);
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->fbnum = -1;
	d->width = e.panel.width;
	d->height = e.panel.height;
	d->bpp = 8;
	d->line_length = d->width;
	snprintf(
		d->devnode, sizeof(d->devnode), "drm:%.*s", (int)sizeof(d->devnode) - 5, e.devnode);
	snprintf(d->dbgdir, sizeof(d->dbgdir), "%s", e.panel.dbgdir);
	d->model = malloc((size_t)d->width * d->height);
	REQUIRE(d->model);
	printf("device: %s, debugfs %s\n", d->devnode, d->dbgdir);
}

void
vellum_panel_clear(struct epd *d)
{
	if (d->fd < 0)
		clear_through_kms(d);
	else
		epd_clear(d);
}

int
vellum_panel_unbind(void)
{
	if (vellum_panel_is_drm())
		return epd_write_file(EPDRM_UNBIND_PATH, EPDRM_DEV_NAME);
	return epd_unbind();
}

int
vellum_panel_try_unload(void)
{
	return vellum_panel_is_drm() ? epdrm_try_unload() : epd_try_unload();
}
