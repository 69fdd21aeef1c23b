// SPDX-License-Identifier: MIT
/*
 * The IT8951's commands as CDBs and parameter blocks, over any transport.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "it8951.h"

/* A vendor command's CDB: address in bytes 2-5, the command in byte 6. */
static void
vendor_cdb(uint8_t *cdb, enum vl_it8951_op op, uint32_t address)
{
	memset(cdb, 0, VL_IT8951_CDB_SIZE);
	cdb[0] = VL_IT8951_VENDOR_COMMAND;
	vl_it8951_put_be32(cdb + 2, address);
	cdb[6] = (uint8_t)op;
}

int
vl_it8951_identify(struct vl_it8951_transport *transport, bool *is_it8951)
{
	uint8_t cdb[VL_IT8951_CDB_SIZE] = {0x12, 0, 0, 0, 36};
	uint8_t reply[36] = {0};
	size_t received = 0;

	int error = transport->command(
		transport, cdb, VL_IT8951_FROM_DEVICE, reply, sizeof(reply), &received);
	if (error)
		return error;
	*is_it8951 = received >= 36 && memcmp(reply + 8, VL_IT8951_INQUIRY_VENDOR, 8) == 0 &&
		     memcmp(reply + 16, VL_IT8951_INQUIRY_PRODUCT, 16) == 0;
	return 0;
}

int
vl_it8951_get_sysinfo(struct vl_it8951_transport *transport, struct vl_it8951_sysinfo *info)
{
	uint8_t cdb[VL_IT8951_CDB_SIZE], reply[VL_IT8951_SYSINFO_SIZE];
	uint32_t words[30];
	size_t received = 0;

	vendor_cdb(cdb, VL_IT8951_GET_SYS, 0);
	/* the firmware wants its name where an address goes, and these two bytes */
	memcpy(cdb + 2, "8951", 4);
	cdb[8] = 0x01;
	cdb[10] = 0x02;
	int error = transport->command(
		transport, cdb, VL_IT8951_FROM_DEVICE, reply, sizeof(reply), &received);
	if (error)
		return error;
	if (received < 19 * 4)
		return -EPROTO;
	for (size_t i = 0; i < 19; i++)
		words[i] = vl_it8951_get_be32(reply + 4 * i);
	*info = (struct vl_it8951_sysinfo){
		.standard_commands = words[0],
		.extended_commands = words[1],
		.signature = words[2],
		.version = words[3],
		.width = words[4],
		.height = words[5],
		.update_buffer = words[6],
		.image_buffer = words[7],
		.temperature_segments = words[8],
		.modes = words[9],
		.image_buffers = words[18],
	};
	memcpy(info->frame_count, words + 10, sizeof(info->frame_count));
	return 0;
}

int
vl_it8951_read_register(struct vl_it8951_transport *transport, uint32_t address, uint32_t *value)
{
	uint8_t cdb[VL_IT8951_CDB_SIZE], reply[4];
	size_t received = 0;

	vendor_cdb(cdb, VL_IT8951_READ_REG, address);
	cdb[8] = sizeof(reply);
	int error = transport->command(
		transport, cdb, VL_IT8951_FROM_DEVICE, reply, sizeof(reply), &received);
	if (error)
		return error;
	if (received != sizeof(reply))
		return -EPROTO;
	*value = vl_it8951_get_be32(reply);
	return 0;
}

/* One LOAD_AREA: a block of rows, or of columns of a row too wide for one transfer. */
static int
load_block(struct vl_it8951_transport *transport, uint32_t address,
	const struct vl_it8951_rect *block, const uint8_t *pixels, size_t stride, uint8_t *scratch,
	uint64_t *sent)
{
	uint8_t cdb[VL_IT8951_CDB_SIZE];
	size_t size = VL_IT8951_LOAD_HEADER_SIZE + (size_t)block->width * block->height;

	vendor_cdb(cdb, VL_IT8951_LOAD_AREA, 0);
	vl_it8951_put_be32(scratch, address);
	vl_it8951_put_be32(scratch + 4, block->x);
	vl_it8951_put_be32(scratch + 8, block->y);
	vl_it8951_put_be32(scratch + 12, block->width);
	vl_it8951_put_be32(scratch + 16, block->height);
	for (uint32_t y = 0; y < block->height; y++)
		memcpy(scratch + VL_IT8951_LOAD_HEADER_SIZE + (size_t)y * block->width,
			pixels + (size_t)y * stride, block->width);
	int error = transport->command(transport, cdb, VL_IT8951_TO_DEVICE, scratch, size, NULL);
	if (!error)
		*sent += size;
	return error;
}

int
vl_it8951_load_area(struct vl_it8951_transport *transport, uint32_t address,
	const struct vl_it8951_rect *rect, const uint8_t *pixels, size_t stride, uint8_t *scratch,
	uint64_t *sent)
{
	const size_t room = VL_IT8951_MAX_TRANSFER - VL_IT8951_LOAD_HEADER_SIZE;
	uint32_t columns = rect->width < room ? rect->width : (uint32_t)room;
	uint32_t rows = (uint32_t)(room / columns);

	for (uint32_t y = 0; y < rect->height; y += rows) {
		for (uint32_t x = 0; x < rect->width; x += columns) {
			struct vl_it8951_rect block = {
				.x = rect->x + x,
				.y = rect->y + y,
				.width = rect->width - x < columns ? rect->width - x : columns,
				.height = rect->height - y < rows ? rect->height - y : rows,
			};
			int error = load_block(transport, address, &block,
				pixels + (size_t)y * stride + x, stride, scratch, sent);
			if (error)
				return error;
		}
	}
	return 0;
}

int
vl_it8951_display_area(struct vl_it8951_transport *transport, uint32_t address, uint32_t mode,
	const struct vl_it8951_rect *rect)
{
	uint8_t cdb[VL_IT8951_CDB_SIZE], args[VL_IT8951_DISPLAY_ARGS_SIZE];

	vendor_cdb(cdb, VL_IT8951_DISPLAY_AREA, 0);
	vl_it8951_put_be32(args, address);
	vl_it8951_put_be32(args + 4, mode);
	vl_it8951_put_be32(args + 8, rect->x);
	vl_it8951_put_be32(args + 12, rect->y);
	vl_it8951_put_be32(args + 16, rect->width);
	vl_it8951_put_be32(args + 20, rect->height);
	/* the host learns completion from LUTAFSR: the command returns at once */
	vl_it8951_put_be32(args + 24, 0);
	return transport->command(transport, cdb, VL_IT8951_TO_DEVICE, args, sizeof(args), NULL);
}

/* A vendor command answering two bytes: the PMIC's and the temperature's reads. */
static int
read_two_bytes(struct vl_it8951_transport *transport, enum vl_it8951_op op, uint8_t *reply)
{
	uint8_t cdb[VL_IT8951_CDB_SIZE];
	size_t received = 0;

	vendor_cdb(cdb, op, 0);
	int error = transport->command(transport, cdb, VL_IT8951_FROM_DEVICE, reply, 2, &received);
	return error ? error : received == 2 ? 0 : -EPROTO;
}

int
vl_it8951_get_vcom(struct vl_it8951_transport *transport, uint16_t *millivolts)
{
	uint8_t reply[2];
	int error = read_two_bytes(transport, VL_IT8951_PMIC_CONTROL, reply);

	if (!error)
		*millivolts = (uint16_t)(reply[0] << 8 | reply[1]);
	return error;
}

int
vl_it8951_set_vcom(struct vl_it8951_transport *transport, uint16_t millivolts)
{
	uint8_t cdb[VL_IT8951_CDB_SIZE];

	vendor_cdb(cdb, VL_IT8951_PMIC_CONTROL, 0);
	cdb[7] = (uint8_t)(millivolts >> 8);
	cdb[8] = (uint8_t)millivolts;
	cdb[9] = 1; /* set VCOM; the power stays as it is */
	return transport->command(transport, cdb, VL_IT8951_NO_DATA, NULL, 0, NULL);
}

int
vl_it8951_get_temperature(struct vl_it8951_transport *transport, int *celsius)
{
	uint8_t reply[2];
	int error = read_two_bytes(transport, VL_IT8951_TEMPERATURE, reply);

	if (!error)
		*celsius = (int8_t)reply[0];
	return error;
}

void
vl_it8951_describe_sense(const uint8_t *sense, char *text, size_t size)
{
	static const char *const keys[16] = {
		[0x0] = "no sense",
		[0x2] = "not ready",
		[0x3] = "medium error",
		[0x4] = "hardware error",
		[0x5] = "illegal request",
		[0x6] = "unit attention",
		[0xb] = "aborted command",
	};
	bool fixed = (sense[0] & 0x7e) == 0x70;
	uint8_t key = (fixed ? sense[2] : sense[1]) & 0xf;
	uint8_t asc = fixed ? sense[12] : sense[2], ascq = fixed ? sense[13] : sense[3];

	snprintf(text, size, "%s (sense key 0x%x, additional sense 0x%02x/0x%02x)",
		keys[key] ? keys[key] : "sense", key, asc, ascq);
}
