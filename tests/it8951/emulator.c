// SPDX-License-Identifier: MIT
/*
 * The emulated IT8951 board: SCSI commands in, the panel model driven.
 * Its image buffer is the model's framebuffer, so a load shows in the next
 * display over it; each display takes one of the controller's 16 LUT
 * engines until the model completes it, which is what LUTAFSR reads.
 */
#include <epdfb.h>
#include <errno.h>
#include <panel-model.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emulator.h"

#define ENGINES       16
#define IMAGE_BUFFER  0x00120000u
#define UPDATE_BUFFER 0x00100000u

enum sense_key {
	NO_SENSE = 0x0,
	NOT_READY = 0x2,
	ILLEGAL_REQUEST = 0x5,
};

/* Additional sense codes, with their qualifier in the low byte. */
enum {
	ASC_NONE = 0x0000,
	ASC_NOT_READY = 0x0400,
	ASC_PARAMETER_LENGTH = 0x1a00,
	ASC_INVALID_OPCODE = 0x2000,
	ASC_LBA_OUT_OF_RANGE = 0x2100,
	ASC_INVALID_FIELD_IN_CDB = 0x2400,
	ASC_INVALID_FIELD_IN_PARAMETERS = 0x2600,
	ASC_MEDIUM_NOT_PRESENT = 0x3a00,
};

struct engine {
	uint32_t marker; /* 0: free */
	bool stuck;      /* taken while the controller stalled: never completes */
};

struct it8951_emulator {
	pthread_mutex_t lock;
	struct vl_panel_model *model;
	uint32_t width, height, modes;
	uint16_t vcom_mv;
	int temperature;
	bool stalled;
	struct engine engines[ENGINES];
	uint32_t next_marker;
	uint64_t bytes_loaded;
	uint8_t sense[VL_IT8951_SENSE_SIZE];
};

/* The panel model's waveform for each of the controller's modes. */
static const struct {
	uint32_t waveform, update_mode;
} mode_waveforms[] = {
	[0] = {WAVEFORM_MODE_INIT, UPDATE_MODE_FULL},    /* INIT */
	[1] = {WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL},   /* DU */
	[2] = {WAVEFORM_MODE_GC16, UPDATE_MODE_FULL},    /* GC16 flashes */
	[3] = {WAVEFORM_MODE_GL16, UPDATE_MODE_PARTIAL}, /* GL16 */
	[4] = {WAVEFORM_MODE_GL16, UPDATE_MODE_PARTIAL}, /* GLR16 */
	[5] = {WAVEFORM_MODE_GL16, UPDATE_MODE_PARTIAL}, /* GLD16 */
	[6] = {WAVEFORM_MODE_A2, UPDATE_MODE_PARTIAL},   /* A2 */
	[7] = {WAVEFORM_MODE_GC4, UPDATE_MODE_PARTIAL},  /* DU4 */
};

/* With the lock held: a CHECK CONDITION with this sense. */
static int
fail(struct it8951_emulator *emu, enum sense_key key, unsigned int asc)
{
	memset(emu->sense, 0, sizeof(emu->sense));
	emu->sense[0] = 0x70; /* current error, fixed format */
	emu->sense[2] = (uint8_t)key;
	emu->sense[7] = VL_IT8951_SENSE_SIZE - 8;
	emu->sense[12] = (uint8_t)(asc >> 8);
	emu->sense[13] = (uint8_t)asc;
	return IT8951_STATUS_CHECK_CONDITION;
}

static int
good(struct it8951_emulator *emu)
{
	memset(emu->sense, 0, sizeof(emu->sense));
	emu->sense[0] = 0x70;
	emu->sense[7] = VL_IT8951_SENSE_SIZE - 8;
	return IT8951_STATUS_GOOD;
}

/* Answers reply, cut to what the host takes. */
static int
answer(struct it8951_emulator *emu, const uint8_t *reply, size_t size,
	enum vl_it8951_direction direction, uint8_t *data, size_t *length)
{
	if (direction != VL_IT8951_FROM_DEVICE)
		return fail(emu, ILLEGAL_REQUEST, ASC_INVALID_FIELD_IN_CDB);
	if (size > *length)
		size = *length;
	memcpy(data, reply, size);
	*length = size;
	return good(emu);
}

static int
inquiry(struct it8951_emulator *emu, const uint8_t *cdb, enum vl_it8951_direction direction,
	uint8_t *data, size_t *length)
{
	uint8_t reply[36] = {0};
	size_t size = sizeof(reply);
	size_t allocation = (size_t)cdb[3] << 8 | cdb[4];

	if (cdb[1] & 1) {
		static const char serial[] = "IT8951EMU";
		/* vital product data: the supported pages, and the unit serial number */
		reply[1] = cdb[2];
		if (cdb[2] == 0x00) {
			reply[3] = 2;
			reply[5] = 0x80;
			size = 6;
		} else if (cdb[2] == 0x80) {
			reply[3] = sizeof(serial) - 1;
			memcpy(reply + 4, serial, sizeof(serial) - 1);
			size = 4 + sizeof(serial) - 1;
		} else {
			return fail(emu, ILLEGAL_REQUEST, ASC_INVALID_FIELD_IN_CDB);
		}
	} else if (cdb[2] != 0) {
		return fail(emu, ILLEGAL_REQUEST, ASC_INVALID_FIELD_IN_CDB);
	} else {
		reply[0] = 0x00; /* direct access */
		reply[1] = 0x80; /* removable */
		reply[2] = 0x02;
		reply[3] = 0x02;
		reply[4] = sizeof(reply) - 5;
		memcpy(reply + 8, VL_IT8951_INQUIRY_VENDOR, 8);
		memcpy(reply + 16, VL_IT8951_INQUIRY_PRODUCT, 16);
		memcpy(reply + 32, VL_IT8951_INQUIRY_REVISION, 4);
	}
	if (size > allocation && cdb[0] == 0x12)
		size = allocation;
	return answer(emu, reply, size, direction, data, length);
}

static int
request_sense(struct it8951_emulator *emu, const uint8_t *cdb, enum vl_it8951_direction direction,
	uint8_t *data, size_t *length)
{
	uint8_t reply[VL_IT8951_SENSE_SIZE];
	size_t size = cdb[4] < sizeof(reply) ? cdb[4] : sizeof(reply);

	memcpy(reply, emu->sense, sizeof(reply));
	if (reply[0] == 0) {
		reply[0] = 0x70;
		reply[7] = VL_IT8951_SENSE_SIZE - 8;
	}
	return answer(emu, reply, size, direction, data, length);
}

static int
system_info(struct it8951_emulator *emu, const uint8_t *cdb, enum vl_it8951_direction direction,
	uint8_t *data, size_t *length)
{
	uint8_t reply[VL_IT8951_SYSINFO_SIZE] = {0};
	static const uint8_t frames[8] = {60, 12, 40, 40, 40, 40, 8, 20};

	if (memcmp(cdb + 2, "8951", 4) != 0)
		return fail(emu, ILLEGAL_REQUEST, ASC_INVALID_FIELD_IN_CDB);
	vl_it8951_put_be32(reply + 0, 0x10);
	vl_it8951_put_be32(reply + 4, 0x0a);
	vl_it8951_put_be32(reply + 8, VL_IT8951_SIGNATURE);
	vl_it8951_put_be32(reply + 12, 0x0102);
	vl_it8951_put_be32(reply + 16, emu->width);
	vl_it8951_put_be32(reply + 20, emu->height);
	vl_it8951_put_be32(reply + 24, UPDATE_BUFFER);
	vl_it8951_put_be32(reply + 28, IMAGE_BUFFER);
	vl_it8951_put_be32(reply + 32, 13);
	vl_it8951_put_be32(reply + 36, emu->modes);
	for (uint32_t i = 0; i < 8; i++)
		vl_it8951_put_be32(reply + 40 + 4 * i, i < emu->modes ? frames[i] : 0);
	vl_it8951_put_be32(reply + 72, 1);
	return answer(emu, reply, sizeof(reply), direction, data, length);
}

/* With the lock held: the bits of the engines still driving the panel. */
static uint32_t
busy_engines(struct it8951_emulator *emu)
{
	uint32_t busy = 0;

	for (unsigned int i = 0; i < ENGINES; i++) {
		struct engine *engine = &emu->engines[i];
		if (engine->marker &&
			(engine->stuck || vl_panel_model_pending(emu->model, engine->marker)))
			busy |= 1u << i;
		else
			engine->marker = 0;
	}
	return busy;
}

static int
read_register(struct it8951_emulator *emu, const uint8_t *cdb, enum vl_it8951_direction direction,
	uint8_t *data, size_t *length)
{
	uint8_t reply[4] = {0};

	if (vl_it8951_get_be32(cdb + 2) == VL_IT8951_REG_LUTAFSR)
		vl_it8951_put_be32(reply, busy_engines(emu));
	return answer(emu, reply, sizeof(reply), direction, data, length);
}

static bool
area_fits(const struct it8951_emulator *emu, const struct vl_it8951_rect *r)
{
	return r->width > 0 && r->height > 0 && r->x < emu->width && r->y < emu->height &&
	       r->width <= emu->width - r->x && r->height <= emu->height - r->y;
}

static struct vl_it8951_rect
rect_at(const uint8_t *words)
{
	return (struct vl_it8951_rect){
		.x = vl_it8951_get_be32(words),
		.y = vl_it8951_get_be32(words + 4),
		.width = vl_it8951_get_be32(words + 8),
		.height = vl_it8951_get_be32(words + 12),
	};
}

static int
load_area(struct it8951_emulator *emu, enum vl_it8951_direction direction, const uint8_t *data,
	size_t length)
{
	if (direction != VL_IT8951_TO_DEVICE || length < VL_IT8951_LOAD_HEADER_SIZE)
		return fail(emu, ILLEGAL_REQUEST, ASC_PARAMETER_LENGTH);
	if (length > VL_IT8951_MAX_TRANSFER)
		return fail(emu, ILLEGAL_REQUEST, ASC_PARAMETER_LENGTH);
	struct vl_it8951_rect r = rect_at(data + 4);
	if (vl_it8951_get_be32(data) != IMAGE_BUFFER || !area_fits(emu, &r))
		return fail(emu, ILLEGAL_REQUEST, ASC_INVALID_FIELD_IN_PARAMETERS);
	if (length != VL_IT8951_LOAD_HEADER_SIZE + (size_t)r.width * r.height)
		return fail(emu, ILLEGAL_REQUEST, ASC_PARAMETER_LENGTH);
	uint8_t *pixels = vl_panel_model_pixels(emu->model);
	const uint8_t *rows = data + VL_IT8951_LOAD_HEADER_SIZE;
	for (uint32_t y = 0; y < r.height; y++)
		memcpy(pixels + (size_t)(r.y + y) * emu->width + r.x, rows + (size_t)y * r.width,
			r.width);
	emu->bytes_loaded += length;
	return good(emu);
}

/* Image memory as WRITE_MEM and READ_MEM see it: the image buffer, a byte a pixel. */
static uint8_t *
memory_at(struct it8951_emulator *emu, uint32_t address, size_t length)
{
	size_t size = (size_t)emu->width * emu->height;

	if (address < IMAGE_BUFFER || address - IMAGE_BUFFER > size ||
		length > size - (address - IMAGE_BUFFER))
		return NULL;
	return vl_panel_model_pixels(emu->model) + (address - IMAGE_BUFFER);
}

static int
access_memory(struct it8951_emulator *emu, const uint8_t *cdb, enum vl_it8951_direction direction,
	uint8_t *data, size_t *length)
{
	size_t count = (size_t)cdb[7] << 8 | cdb[8];
	bool write = cdb[6] == VL_IT8951_WRITE_MEM;
	uint8_t *memory = memory_at(emu, vl_it8951_get_be32(cdb + 2), count);

	if (!memory)
		return fail(emu, ILLEGAL_REQUEST, ASC_LBA_OUT_OF_RANGE);
	if (!write)
		return answer(emu, memory, count, direction, data, length);
	if (direction != VL_IT8951_TO_DEVICE || *length != count)
		return fail(emu, ILLEGAL_REQUEST, ASC_PARAMETER_LENGTH);
	memcpy(memory, data, count);
	emu->bytes_loaded += count;
	return good(emu);
}

static int
display_area(struct it8951_emulator *emu, enum vl_it8951_direction direction, const uint8_t *data,
	size_t length)
{
	if (direction != VL_IT8951_TO_DEVICE || length != VL_IT8951_DISPLAY_ARGS_SIZE)
		return fail(emu, ILLEGAL_REQUEST, ASC_PARAMETER_LENGTH);
	uint32_t mode = vl_it8951_get_be32(data + 4);
	struct vl_it8951_rect r = rect_at(data + 8);
	if (vl_it8951_get_be32(data) != IMAGE_BUFFER || mode >= emu->modes || !area_fits(emu, &r))
		return fail(emu, ILLEGAL_REQUEST, ASC_INVALID_FIELD_IN_PARAMETERS);
	uint32_t busy = busy_engines(emu);
	unsigned int free_engine = 0;
	while (free_engine < ENGINES && (busy & (1u << free_engine)))
		free_engine++;
	if (free_engine == ENGINES)
		return fail(emu, NOT_READY, ASC_NOT_READY);
	struct engine *engine = &emu->engines[free_engine];
	if (++emu->next_marker == 0)
		emu->next_marker = 1;
	engine->marker = emu->next_marker;
	engine->stuck = emu->stalled;
	if (emu->stalled)
		return good(emu);
	struct mxcfb_update_data update = {
		.update_region = {.top = r.y, .left = r.x, .width = r.width, .height = r.height},
		.waveform_mode = mode_waveforms[mode].waveform,
		.update_mode = mode_waveforms[mode].update_mode,
		.update_marker = engine->marker,
		.temp = TEMP_USE_AMBIENT,
	};
	int error = vl_panel_model_submit(emu->model, &update);
	if (error) {
		engine->marker = 0;
		return fail(emu, ILLEGAL_REQUEST, ASC_INVALID_FIELD_IN_PARAMETERS);
	}
	return good(emu);
}

static int
pmic_control(struct it8951_emulator *emu, const uint8_t *cdb, enum vl_it8951_direction direction,
	uint8_t *data, size_t *length)
{
	uint16_t vcom = (uint16_t)(cdb[7] << 8 | cdb[8]);

	if (cdb[9] == 1) {
		/* the PMIC takes -0.2 V to -5.0 V */
		if (vcom < 200 || vcom > 5000)
			return fail(emu, ILLEGAL_REQUEST, ASC_INVALID_FIELD_IN_CDB);
		emu->vcom_mv = vcom;
	} else if (cdb[9] != 0) {
		return fail(emu, ILLEGAL_REQUEST, ASC_INVALID_FIELD_IN_CDB);
	}
	if (direction != VL_IT8951_FROM_DEVICE)
		return good(emu);
	uint8_t reply[2] = {(uint8_t)(emu->vcom_mv >> 8), (uint8_t)emu->vcom_mv};
	return answer(emu, reply, sizeof(reply), direction, data, length);
}

static int
temperature(struct it8951_emulator *emu, const uint8_t *cdb, enum vl_it8951_direction direction,
	uint8_t *data, size_t *length)
{
	if (cdb[7] > 1)
		return fail(emu, ILLEGAL_REQUEST, ASC_INVALID_FIELD_IN_CDB);
	if (cdb[7] == 1)
		emu->temperature = (int8_t)cdb[8];
	uint8_t reply[2] = {(uint8_t)(int8_t)emu->temperature, 0};
	if (direction != VL_IT8951_FROM_DEVICE)
		return good(emu);
	return answer(emu, reply, sizeof(reply), direction, data, length);
}

/* With the lock held. */
static int
vendor_command(struct it8951_emulator *emu, const uint8_t *cdb, enum vl_it8951_direction direction,
	uint8_t *data, size_t *length)
{
	switch (cdb[6]) {
	case VL_IT8951_GET_SYS:
		return system_info(emu, cdb, direction, data, length);
	case VL_IT8951_READ_MEM:
	case VL_IT8951_WRITE_MEM:
		return access_memory(emu, cdb, direction, data, length);
	case VL_IT8951_READ_REG:
		return read_register(emu, cdb, direction, data, length);
	case VL_IT8951_WRITE_REG:
		return direction == VL_IT8951_TO_DEVICE && *length == 4
			       ? good(emu)
			       : fail(emu, ILLEGAL_REQUEST, ASC_PARAMETER_LENGTH);
	case VL_IT8951_DISPLAY_AREA:
		return display_area(emu, direction, data, *length);
	case VL_IT8951_LOAD_AREA:
		return load_area(emu, direction, data, *length);
	case VL_IT8951_PMIC_CONTROL:
		return pmic_control(emu, cdb, direction, data, length);
	case VL_IT8951_TEMPERATURE:
		return temperature(emu, cdb, direction, data, length);
	default:
		return fail(emu, ILLEGAL_REQUEST, ASC_INVALID_FIELD_IN_CDB);
	}
}

/* With the lock held: the standard commands usb-storage and sd send a disk without medium. */
static int
run_command(struct it8951_emulator *emu, const uint8_t *cdb, size_t cdb_size,
	enum vl_it8951_direction direction, uint8_t *data, size_t *length)
{
	static const uint8_t mode_sense6[4] = {3, 0, 0, 0};
	static const uint8_t mode_sense10[8] = {0, 6, 0, 0, 0, 0, 0, 0};
	/* a capacity list header, and the one descriptor: no medium */
	static const uint8_t format_capacities[12] = {0, 0, 0, 8, 0, 0, 0, 0, 3, 0, 2, 0};

	if (cdb_size < 6)
		return fail(emu, ILLEGAL_REQUEST, ASC_INVALID_OPCODE);
	switch (cdb[0]) {
	case 0x00: /* TEST UNIT READY */
	case 0x25: /* READ CAPACITY (10) */
	case 0x9e: /* READ CAPACITY (16) */
	case 0x28: /* READ (10) */
	case 0x2a: /* WRITE (10) */
	case 0x35: /* SYNCHRONIZE CACHE */
		return fail(emu, NOT_READY, ASC_MEDIUM_NOT_PRESENT);
	case 0x03:
		return request_sense(emu, cdb, direction, data, length);
	case 0x12:
		return inquiry(emu, cdb, direction, data, length);
	case 0x1a:
		return answer(emu, mode_sense6, sizeof(mode_sense6), direction, data, length);
	case 0x5a:
		return answer(emu, mode_sense10, sizeof(mode_sense10), direction, data, length);
	case 0x23:
		return answer(
			emu, format_capacities, sizeof(format_capacities), direction, data, length);
	case 0x1b: /* START STOP UNIT */
	case 0x1e: /* PREVENT ALLOW MEDIUM REMOVAL */
		return good(emu);
	case VL_IT8951_VENDOR_COMMAND:
		if (cdb_size < VL_IT8951_CDB_SIZE)
			return fail(emu, ILLEGAL_REQUEST, ASC_INVALID_FIELD_IN_CDB);
		return vendor_command(emu, cdb, direction, data, length);
	default:
		return fail(emu, ILLEGAL_REQUEST, ASC_INVALID_OPCODE);
	}
}

int
it8951_emulator_command(struct it8951_emulator *emu, const uint8_t *cdb, size_t cdb_size,
	enum vl_it8951_direction direction, uint8_t *data, size_t *length)
{
	size_t host_length = *length;

	pthread_mutex_lock(&emu->lock);
	int status = run_command(emu, cdb, cdb_size, direction, data, length);
	pthread_mutex_unlock(&emu->lock);
	if (direction != VL_IT8951_FROM_DEVICE || status != IT8951_STATUS_GOOD)
		*length = direction == VL_IT8951_FROM_DEVICE ? 0 : host_length;
	return status;
}

const uint8_t *
it8951_emulator_sense(struct it8951_emulator *emu)
{
	return emu->sense;
}

struct it8951_emulator *
it8951_emulator_create(
	const struct it8951_emulator_options *options, char *error, size_t error_size)
{
	struct it8951_emulator *emu = calloc(1, sizeof(*emu));

	if (!emu) {
		snprintf(error, error_size, "out of memory");
		return NULL;
	}
	emu->modes = options->modes ? options->modes : 8;
	if (emu->modes > 8) {
		snprintf(error, error_size, "an IT8951 has at most 8 modes, not %u", emu->modes);
		free(emu);
		return NULL;
	}
	emu->model = vl_panel_model_create(options->width, options->height,
		options->time_scale ? options->time_scale : 100, error, error_size);
	if (!emu->model) {
		free(emu);
		return NULL;
	}
	pthread_mutex_init(&emu->lock, NULL);
	emu->width = options->width;
	emu->height = options->height;
	emu->vcom_mv = options->vcom_mv;
	emu->temperature = 25;
	good(emu);
	return emu;
}

void
it8951_emulator_destroy(struct it8951_emulator *emu)
{
	if (!emu)
		return;
	vl_panel_model_destroy(emu->model);
	pthread_mutex_destroy(&emu->lock);
	free(emu);
}

struct vl_panel_model *
it8951_emulator_model(struct it8951_emulator *emu)
{
	return emu->model;
}

void
it8951_emulator_stall(struct it8951_emulator *emu, bool stalled)
{
	pthread_mutex_lock(&emu->lock);
	emu->stalled = stalled;
	if (!stalled)
		for (unsigned int i = 0; i < ENGINES; i++)
			emu->engines[i].stuck = false;
	pthread_mutex_unlock(&emu->lock);
}

/*
 * With the lock held: DISPLAY_AREA of the whole panel in GC16, a flashing
 * one, as the host sends it; its SCSI status, and the marker of the engine
 * it took.
 */
static int
display_whole_panel(struct it8951_emulator *emu, uint32_t *marker)
{
	uint8_t args[VL_IT8951_DISPLAY_ARGS_SIZE];

	vl_it8951_put_be32(args, IMAGE_BUFFER);
	vl_it8951_put_be32(args + 4, 2); /* GC16 */
	vl_it8951_put_be32(args + 8, 0);
	vl_it8951_put_be32(args + 12, 0);
	vl_it8951_put_be32(args + 16, emu->width);
	vl_it8951_put_be32(args + 20, emu->height);
	vl_it8951_put_be32(args + 24, 0);
	int status = display_area(emu, VL_IT8951_TO_DEVICE, args, sizeof(args));
	*marker = emu->next_marker;
	return status;
}

int
it8951_emulator_show_white(struct it8951_emulator *emu)
{
	uint32_t marker;

	pthread_mutex_lock(&emu->lock);
	memset(vl_panel_model_pixels(emu->model), 0xff, (size_t)emu->width * emu->height);
	int status = display_whole_panel(emu, &marker);
	pthread_mutex_unlock(&emu->lock);
	return status;
}

/* Whether an engine still drives the display that took marker, as LUTAFSR tells. */
static bool
display_busy(struct it8951_emulator *emu, uint32_t marker)
{
	bool busy = false;

	pthread_mutex_lock(&emu->lock);
	uint32_t engines = busy_engines(emu);
	for (unsigned int i = 0; i < ENGINES; i++)
		if (emu->engines[i].marker == marker && (engines & (1u << i)))
			busy = true;
	pthread_mutex_unlock(&emu->lock);
	return busy;
}

int
it8951_emulator_flash(struct it8951_emulator *emu, unsigned int timeout_ms)
{
	uint32_t marker;
	struct timespec start, now;

	pthread_mutex_lock(&emu->lock);
	int status = display_whole_panel(emu, &marker);
	pthread_mutex_unlock(&emu->lock);
	if (status != IT8951_STATUS_GOOD)
		return status;
	/*
	 * By the engine, not the model: the display of a stalled controller
	 * never reaches the model, and is not done either.
	 */
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (display_busy(emu, marker)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 >=
			(long)timeout_ms)
			return -ETIMEDOUT;
		nanosleep(&(struct timespec){.tv_nsec = 5 * 1000 * 1000}, NULL);
	}
	return 0;
}

uint16_t
it8951_emulator_vcom(struct it8951_emulator *emu)
{
	pthread_mutex_lock(&emu->lock);
	uint16_t vcom = emu->vcom_mv;
	pthread_mutex_unlock(&emu->lock);
	return vcom;
}

uint64_t
it8951_emulator_bytes_loaded(struct it8951_emulator *emu)
{
	pthread_mutex_lock(&emu->lock);
	uint64_t bytes = emu->bytes_loaded;
	pthread_mutex_unlock(&emu->lock);
	return bytes;
}
