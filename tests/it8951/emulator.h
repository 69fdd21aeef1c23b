/* SPDX-License-Identifier: MIT */
/*
 * An emulated IT8951 board: the SCSI commands its USB mass-storage
 * interface answers (the standard ones usb-storage and sd send, and the
 * vendor commands of backend-epd/it8951.h), with the panel model of
 * panel-model/ behind it. The transport is the caller's: the USB gadget
 * (gadget.c) and, in process, the backend's unit tests.
 */
#ifndef IT8951_EMULATOR_H
#define IT8951_EMULATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "it8951.h"

struct vl_panel_model;
struct it8951_emulator;

struct it8951_emulator_options {
	uint32_t width, height;
	unsigned int time_scale; /* percent of the waveforms' time, as epdfb's; 0: 100 */
	uint16_t vcom_mv;        /* the VCOM the board holds; 0: none set yet */
	uint32_t modes;          /* waveform modes it reports (8, or 6 without DU4 and A2); 0: 8 */
};

#define IT8951_STATUS_GOOD            0x00
#define IT8951_STATUS_CHECK_CONDITION 0x02

struct it8951_emulator *it8951_emulator_create(
	const struct it8951_emulator_options *options, char *error, size_t error_size);
void it8951_emulator_destroy(struct it8951_emulator *emulator);
/*
 * Runs a command as the board does: its SCSI status. data holds *length
 * bytes the host sent (TO_DEVICE) or may take (FROM_DEVICE); for
 * FROM_DEVICE *length becomes what the board answers. A CHECK CONDITION
 * leaves its sense data for it8951_emulator_sense and REQUEST SENSE.
 * Safe to call from one thread while others read the model.
 */
int it8951_emulator_command(struct it8951_emulator *emulator, const uint8_t *cdb, size_t cdb_size,
	enum vl_it8951_direction direction, uint8_t *data, size_t *length);
const uint8_t *it8951_emulator_sense(struct it8951_emulator *emulator);
/* The panel behind it: its trace and readback are the ones epdfb's debugfs has. */
struct vl_panel_model *it8951_emulator_model(struct it8951_emulator *emulator);
/* A stalled controller: busy for ever, the displays it takes never complete. */
void it8951_emulator_stall(struct it8951_emulator *emulator, bool stalled);
uint16_t it8951_emulator_vcom(struct it8951_emulator *emulator);
/*
 * A test's fresh start: the image buffer white and shown with a flashing
 * GC16 over the whole panel, as a display command would; 0, or the SCSI
 * status the board would have answered.
 */
int it8951_emulator_show_white(struct it8951_emulator *emulator);
/*
 * What the host's DISPLAY_AREA of the whole panel in GC16 does: a flashing
 * display of what the image buffer holds now, which clears the ghosts and
 * keeps the picture. 0 once the model completed it, the SCSI status the
 * board would have answered, or -ETIMEDOUT when its engine still drives it
 * after timeout_ms (a stalled controller's never ends).
 */
int it8951_emulator_flash(struct it8951_emulator *emulator, unsigned int timeout_ms);
/* Bytes the host loaded into image memory, headers included, since creation. */
uint64_t it8951_emulator_bytes_loaded(struct it8951_emulator *emulator);

#endif
