// SPDX-License-Identifier: GPL-2.0-only
/*
 * epdrm - the panel model of epdfb, built into this module too
 *
 * The simulated panel, its update queue, the pixel conversion, the debugfs
 * files and the panel's module parameters are one source for both drivers: a change to the model
 * changes both. Kbuild warns about one object linked into two modules, so
 * epdrm compiles the same files through this one.
 */

#include "epdfb_queue.c"
#include "epdfb_pixels.c"
#include "epdfb_sim.c"
#include "epdfb_debugfs.c"
#include "epdfb_module.c"
