/* SPDX-License-Identifier: MIT */
/*
 * Random ioctl commands and arguments for the driver's fuzz tests, drawn
 * from epd_rand() (seeded by epd_seed_from_env(), so a run can be repeated).
 */
#ifndef IOCTL_RANDOM_H
#define IOCTL_RANDOM_H

#include <stddef.h>

#include "epd_test.h"

/*
 * A random command: mostly the driver's, else one of its numbers with
 * another size or direction, else a random number outside the fbdev core's
 * and the VFS's.
 */
unsigned long epd_random_cmd(void);
void epd_random_bytes(void *buf, size_t len);
/* Fills buf (room for struct mxcfb_update_data) with a plausible argument for cmd, one field
 * random. */
void epd_random_arg(struct epd *d, unsigned long cmd, void *buf);

#endif
