/* SPDX-License-Identifier: MIT */
/*
 * The preview's recording for bug reports (--record DIR): frames of the
 * panel, its updates and its final picture, in the demo's formats.
 */
#ifndef VL_RECORD_H
#define VL_RECORD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vl_record;
struct vl_panel_model;

/*
 * Creates DIR and DIR/frames (0700), or takes them when they are the user's
 * own and no one else may write in them; NULL with a message in error
 * otherwise.
 */
struct vl_record *vl_record_start(const char *dir, char *error, size_t error_size);
/* A frame of the panel, 8-bit gray, as shown at ns (CLOCK_MONOTONIC). */
void vl_record_frame(struct vl_record *record, const uint8_t *frame, uint32_t width,
	uint32_t height, uint64_t ns);
/* Writes the updates and the final panel of model (which may be NULL), and ends. */
void vl_record_finish(struct vl_record *record, struct vl_panel_model *model);

#endif
