/* SPDX-License-Identifier: MIT */
/*
 * The driver a vellum test runs on: epdfb, or epdrm through KMS when the
 * program's name ends in "_epdrm" (tools/test links the tests under such
 * names) or VELLUM_TEST_DRIVER=epdrm. One test, both drivers: the panel
 * side is the same debugfs files either way.
 */
#ifndef VELLUM_PANEL_H
#define VELLUM_PANEL_H

#include <stdbool.h>

#include "epd_test.h"

/* Whether this test runs on epdrm. */
bool vellum_panel_is_drm(void);
/*
 * Loads the driver with params (epdfb's; epdrm takes its size, timing and
 * temperature from them) and fills d: d->devnode is what vellum's -d takes.
 * On epdrm d has no framebuffer open (d->fd is -1): vellum must be the
 * card's only client.
 */
void vellum_panel_open(struct epd *d, const char *params);
/* A flashing full refresh to white, settled, as epd_clear(). */
void vellum_panel_clear(struct epd *d);
/* Unbinds the panel's device from its driver, as an unplug: 0 or -errno. */
int vellum_panel_unbind(void);
/* Unloads the panel's driver: 0, or -errno (EAGAIN: in use). */
int vellum_panel_try_unload(void);

#endif
