/* SPDX-License-Identifier: MIT */
/*
 * ITE's IT8951 e-paper controller: its commands, apart from how they travel.
 * Over USB the board is a mass-storage device without a medium that takes
 * SCSI vendor commands (opcode 0xfe, the command in byte 6 of a 16-byte
 * CDB, numbers big-endian); over SPI the same commands go as the I80 host
 * interface's words. A transport carries one command with its data phase.
 */
#ifndef VL_IT8951_H
#define VL_IT8951_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VL_IT8951_CDB_SIZE       16
#define VL_IT8951_SENSE_SIZE     18
#define VL_IT8951_VENDOR_COMMAND 0xfe
/* The controller's largest data phase: a load carries at most this, header included. */
#define VL_IT8951_MAX_TRANSFER (60 * 1024)

enum vl_it8951_op {
	VL_IT8951_GET_SYS = 0x80,
	VL_IT8951_READ_MEM = 0x81,
	VL_IT8951_WRITE_MEM = 0x82,
	VL_IT8951_READ_REG = 0x83,
	VL_IT8951_WRITE_REG = 0x84,
	VL_IT8951_DISPLAY_AREA = 0x94,
	VL_IT8951_LOAD_AREA = 0xa2,
	VL_IT8951_PMIC_CONTROL = 0xa3,
	VL_IT8951_TEMPERATURE = 0xa4,
};

/* What GET_SYS answers: 112 bytes, of which these come first. */
#define VL_IT8951_SYSINFO_SIZE 112
#define VL_IT8951_SIGNATURE    0x31353938u /* "1598", as the firmware stores "8951" */
struct vl_it8951_sysinfo {
	uint32_t standard_commands, extended_commands, signature, version;
	uint32_t width, height;
	uint32_t update_buffer, image_buffer;
	uint32_t temperature_segments, modes;
	uint32_t frame_count[8];
	uint32_t image_buffers;
};

/* The register whose bits are the LUT engines busy driving the panel. */
#define VL_IT8951_REG_LUTAFSR 0x18001224u
/* LOAD_AREA's and DISPLAY_AREA's parameters before the pixels: 32-bit words. */
#define VL_IT8951_LOAD_HEADER_SIZE  20 /* address, x, y, width, height */
#define VL_IT8951_DISPLAY_ARGS_SIZE 28 /* address, mode, x, y, width, height, wait */

/* What the board's INQUIRY answers, space-padded as SCSI pads them. */
#define VL_IT8951_INQUIRY_VENDOR   "Generic "
#define VL_IT8951_INQUIRY_PRODUCT  "Storage RamDisc "
#define VL_IT8951_INQUIRY_REVISION "1.00"

enum vl_it8951_direction {
	VL_IT8951_NO_DATA,
	VL_IT8951_TO_DEVICE,
	VL_IT8951_FROM_DEVICE,
};

struct vl_it8951_transport {
	/*
	 * Runs one command: 0, or a negative errno: -EIO when the device
	 * answered CHECK CONDITION (its sense data in sense), -ENODEV when it
	 * is gone, -ETIMEDOUT when it did not answer. For FROM_DEVICE, length
	 * is what the host takes at most; *received (may be NULL) what came.
	 */
	int (*command)(struct vl_it8951_transport *transport, const uint8_t *cdb,
		enum vl_it8951_direction direction, void *data, size_t length, size_t *received);
	void (*destroy)(struct vl_it8951_transport *transport);
	uint8_t sense[VL_IT8951_SENSE_SIZE];
};

/* The controller's numbers are big-endian. */
static inline void
vl_it8951_put_be32(uint8_t *p, uint32_t value)
{
	p[0] = (uint8_t)(value >> 24);
	p[1] = (uint8_t)(value >> 16);
	p[2] = (uint8_t)(value >> 8);
	p[3] = (uint8_t)value;
}

static inline uint32_t
vl_it8951_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

struct vl_it8951_rect {
	uint32_t x, y, width, height;
};

/* The standard INQUIRY: whether the device answers as an IT8951 board does. */
int vl_it8951_identify(struct vl_it8951_transport *transport, bool *is_it8951);
int vl_it8951_get_sysinfo(struct vl_it8951_transport *transport, struct vl_it8951_sysinfo *info);
int vl_it8951_read_register(
	struct vl_it8951_transport *transport, uint32_t address, uint32_t *value);
/*
 * Loads rect's pixels (8-bit gray, stride bytes a row) into the image
 * buffer at address, in as many transfers as the controller's limit needs.
 * scratch holds VL_IT8951_MAX_TRANSFER bytes; *sent adds the bytes sent.
 */
int vl_it8951_load_area(struct vl_it8951_transport *transport, uint32_t address,
	const struct vl_it8951_rect *rect, const uint8_t *pixels, size_t stride, uint8_t *scratch,
	uint64_t *sent);
/* Starts showing rect of the image buffer with waveform mode; the engines run on. */
int vl_it8951_display_area(struct vl_it8951_transport *transport, uint32_t address, uint32_t mode,
	const struct vl_it8951_rect *rect);
/* The panel's VCOM in millivolts, as a magnitude (1500 is -1.50 V); 0: none set. */
int vl_it8951_get_vcom(struct vl_it8951_transport *transport, uint16_t *millivolts);
int vl_it8951_set_vcom(struct vl_it8951_transport *transport, uint16_t millivolts);
/* The temperature the controller drives its waveforms for, in degrees C. */
int vl_it8951_get_temperature(struct vl_it8951_transport *transport, int *celsius);
/* The sense key and additional sense code of sense, as words. */
void vl_it8951_describe_sense(const uint8_t *sense, char *text, size_t size);

/* SG_IO on a SCSI generic node (/dev/sgN): NULL with errno set on failure. */
struct vl_it8951_transport *vl_it8951_sg_open(const char *path);

#endif
