/* SPDX-License-Identifier: MIT */
/*
 * The panel the benchmark measures, on whichever driver is loaded: epdfb
 * (its framebuffer, mapped) or epdrm (its debugfs directory only: the card
 * is left to the display stack, which must be its only master). One of the
 * two is loaded at a time; both at once is an error, since the figures
 * would then come from a panel nobody drew on. With EPAPER_BOARD set to an
 * emulated IT8951 board's state directory (tests/it8951/usb-board), the
 * panel is that board's, reached through its control socket.
 */
#ifndef BENCH_PANEL_H
#define BENCH_PANEL_H

#include <stdbool.h>

#include "epd_test.h"

/*
 * Fills d for the loaded driver or the board. On epdrm d->fd is -1, d->devnode the
 * card's /dev/dri/cardN, d->dbgdir /sys/kernel/debug/epdrm/cardN, and the
 * size comes from the debugfs panel's header.
 */
void bench_panel_attach(struct epd *d);
bool bench_panel_is_drm(const struct epd *d);
bool bench_panel_is_board(const struct epd *d);

#endif
