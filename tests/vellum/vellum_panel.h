/* SPDX-License-Identifier: MIT */
/*
 * The panel a vellum test runs on: epdfb; epdrm through KMS when the
 * program's name ends in "_epdrm" (tools/vm-driver-tests links the tests
 * under such names) or VELLUM_TEST_DRIVER=epdrm; or an emulated IT8951
 * board on the VM's USB stack (tests/it8951/usb-board), which vellum
 * drives through SG_IO, when it ends in "_it8951" or VELLUM_TEST_DRIVER=it8951.
 * One test, every panel: the panel side is the same debugfs files, or the
 * board's control socket with the same contents (epd_test.h).
 */
#ifndef VELLUM_PANEL_H
#define VELLUM_PANEL_H

#include <stdbool.h>

#include "epd_test.h"

enum vellum_panel_kind {
	VELLUM_PANEL_EPDFB,
	VELLUM_PANEL_EPDRM,
	VELLUM_PANEL_IT8951,
};

enum vellum_panel_kind vellum_panel_kind(void);
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
/*
 * Unloads the panel's driver: 0, or -errno (EAGAIN: in use). On the board: 0 once no
 * process holds its SCSI generic node (sg may stay loaded a while after).
 */
int vellum_panel_try_unload(void);

#endif
