// SPDX-License-Identifier: MIT
/*
 * The IT8951 panel device against the emulated board in process: what it
 * reads from the board at open (size, modes, VCOM), what reaches the panel
 * (each update's own pixels, in transfers within the controller's limit,
 * the controller's modes), completion from the busy bits, overlapping
 * updates in order, and a board that is not one, answers garbage, stalls
 * or goes away. The same device on the real USB stack: test_it8951_usb.
 */
#include <epdfb.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "backend.h"
#include "device.h"
#include "emulator.h"
#include "panel-model.h"

#define W 800
#define H 600

/* The emulator behind the transport interface, with a board that misbehaves on demand. */
struct emulated_transport {
	struct vl_it8951_transport base;
	struct it8951_emulator *emulator;
	bool gone;
	bool other_device; /* answers INQUIRY as some other disk */
	bool garbage;      /* answers GET_SYS with noise */
	size_t largest;    /* the largest data phase sent */
	unsigned int loads;
	unsigned int register_reads;
};

static int
emulated_command(struct vl_it8951_transport *transport, const uint8_t *cdb,
	enum vl_it8951_direction direction, void *data, size_t length, size_t *received)
{
	struct emulated_transport *t = (struct emulated_transport *)transport;

	if (t->gone)
		return -ENODEV;
	if (direction == VL_IT8951_TO_DEVICE && length > t->largest)
		t->largest = length;
	if (cdb[0] == VL_IT8951_VENDOR_COMMAND && cdb[6] == VL_IT8951_LOAD_AREA)
		t->loads++;
	if (cdb[0] == VL_IT8951_VENDOR_COMMAND && cdb[6] == VL_IT8951_READ_REG)
		t->register_reads++;
	size_t size = length;
	int status = it8951_emulator_command(
		t->emulator, cdb, VL_IT8951_CDB_SIZE, direction, data, &size);
	memcpy(transport->sense, it8951_emulator_sense(t->emulator), sizeof(transport->sense));
	if (status != IT8951_STATUS_GOOD)
		return -EIO;
	if (direction == VL_IT8951_FROM_DEVICE && cdb[0] == 0x12 && t->other_device)
		memcpy((uint8_t *)data + 16, "USB Flash Disk  ", 16);
	if (direction == VL_IT8951_FROM_DEVICE && cdb[0] == VL_IT8951_VENDOR_COMMAND &&
		cdb[6] == VL_IT8951_GET_SYS && t->garbage)
		memset(data, 0xa5, size);
	if (received)
		*received = size;
	return 0;
}

static void
emulated_destroy(struct vl_it8951_transport *transport)
{
	struct emulated_transport *t = (struct emulated_transport *)transport;

	it8951_emulator_destroy(t->emulator);
	free(t);
}

/* A board whose waveforms take time_scale percent of their real durations. */
static struct emulated_transport *
emulated_board_timed(uint16_t board_vcom, uint32_t time_scale)
{
	struct it8951_emulator_options options = {
		.width = W, .height = H, .time_scale = time_scale, .vcom_mv = board_vcom};
	struct emulated_transport *t = calloc(1, sizeof(*t));
	char error[128];

	assert_non_null(t);
	t->emulator = it8951_emulator_create(&options, error, sizeof(error));
	assert_non_null(t->emulator);
	t->base.command = emulated_command;
	t->base.destroy = emulated_destroy;
	return t;
}

static struct emulated_transport *
emulated_board(uint16_t board_vcom)
{
	return emulated_board_timed(board_vcom, 10);
}

static struct vl_epd_device *
open_board(struct emulated_transport *t, uint16_t vcom, char *error, size_t size)
{
	struct vl_epd_device *dev =
		vl_epd_it8951_open_transport(&t->base, "emulated", vcom, error, size);

	if (dev)
		atomic_init(&dev->refs, 1);
	return dev;
}

static struct vl_epd_device *
open_default(struct emulated_transport **transport)
{
	char error[512];
	struct emulated_transport *t = emulated_board(1500);
	struct vl_epd_device *dev = open_board(t, 0, error, sizeof(error));

	if (!dev)
		fail_msg("%s", error);
	*transport = t;
	return dev;
}

static void
fill(struct vl_epd_device *dev, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint8_t gray)
{
	for (uint32_t row = y; row < y + h; row++)
		memset(dev->pixels + (size_t)row * dev->stride + x, gray, w);
}

static uint32_t next_marker = 1;

/* Queues and submits an update as the backend does: 0 or the errno of submit. */
static int
send(struct vl_epd_device *dev, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint32_t kind,
	bool full, uint32_t *marker)
{
	struct vl_epd_update update = {
		.rect = {x, y, w, h},
		.waveform = vl_epd_waveform_map_device_id(&dev->waveform_map, kind),
		.full = full,
		.marker = next_marker++,
	};

	*marker = update.marker;
	if (!dev->impl->snapshot(dev, &update))
		return ENOMEM;
	return dev->impl->submit(dev, &update) ? 0 : errno;
}

static uint8_t *
panel_of(struct emulated_transport *t)
{
	static uint8_t panel[W * H];

	vl_panel_model_read(it8951_emulator_model(t->emulator), panel);
	return panel;
}

/* What the panel shows over an area: gray, give or take the ghost a fast waveform leaves. */
static void
assert_area(const uint8_t *panel, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint8_t gray)
{
	for (uint32_t row = y; row < y + h; row++)
		for (uint32_t col = x; col < x + w; col++)
			if (abs(panel[(size_t)row * W + col] - gray) > 16)
				fail_msg("panel at %u,%u is %u, not %u", col, row,
					panel[(size_t)row * W + col], gray);
}

static void
test_open_reads_the_board(void **state)
{
	struct emulated_transport *t;
	struct vl_epd_device *dev = open_default(&t);
	(void)state;

	assert_int_equal(dev->width, W);
	assert_int_equal(dev->height, H);
	assert_int_equal(dev->bpp, 8);
	assert_non_null(strstr(dev->description, "it8951, 800x600"));
	/* the usual LUT's numbering: GL16 is 3, A2 6, DU4 (as GC4) 7 */
	assert_int_equal(vl_epd_waveform_map_device_id(&dev->waveform_map, WAVEFORM_MODE_GC16), 2);
	assert_int_equal(vl_epd_waveform_map_device_id(&dev->waveform_map, WAVEFORM_MODE_GL16), 3);
	assert_int_equal(vl_epd_waveform_map_device_id(&dev->waveform_map, WAVEFORM_MODE_A2), 6);
	assert_int_equal(vl_epd_waveform_map_device_id(&dev->waveform_map, WAVEFORM_MODE_GC4), 7);
	assert_non_null(vl_epd_waveform_find(&dev->waveforms, WAVEFORM_MODE_DU));
	/* its GC16 flashes in either update mode: the policy takes GL16 for a quiet one */
	const struct vl_epd_waveform_entry *gc16 =
		vl_epd_waveform_find(&dev->waveforms, WAVEFORM_MODE_GC16);
	assert_non_null(gc16);
	assert_true(gc16->flashing);
	assert_int_equal(vl_epd_choose_waveform(&dev->waveforms, VL_EPD_CONTENT_IMAGE,
				 VL_EPD_MODE_QUALITY, VL_EPD_DITHER_AUTO)
				 .waveform,
		WAVEFORM_MODE_GL16);
	/*
	 * submit waits for an engine itself; a depth under a flush's 16
	 * updates and one in flight would make the backend hold every frame
	 * while the panel shows anything: typing one key at a time
	 */
	assert_true(dev->max_in_flight == 0 || dev->max_in_flight > VL_EPD_MAX_UPDATES_PER_FLUSH);
	char error[256];
	assert_true(vl_epd_device_check(dev, error, sizeof(error)));
	assert_int_equal(it8951_emulator_vcom(t->emulator), 1500);
	vl_epd_device_unref(dev);
}

static void
test_update_shows_its_pixels(void **state)
{
	struct emulated_transport *t;
	struct vl_epd_device *dev = open_default(&t);
	uint32_t marker;
	(void)state;

	fill(dev, 100, 50, 40, 30, 0);
	assert_int_equal(send(dev, 100, 50, 40, 30, WAVEFORM_MODE_DU, false, &marker), 0);
	/* the framebuffer changes before the update completes: the update keeps its own */
	fill(dev, 100, 50, 40, 30, 0xff);
	assert_int_equal(dev->impl->wait(dev, marker), 0);
	/* completion comes from the board: the model has finished it */
	struct vl_panel_model *model = it8951_emulator_model(t->emulator);
	assert_false(vl_panel_model_busy(model));
	const uint8_t *panel = panel_of(t);
	assert_area(panel, 100, 50, 40, 30, 0);
	assert_area(panel, 0, 0, W, 50, 0xff);
	/* one transfer: a byte a pixel and the header */
	assert_int_equal(it8951_emulator_bytes_loaded(t->emulator), 40 * 30 + 20);
	struct vl_panel_model_trace trace;
	assert_int_equal(vl_panel_model_trace(model, &trace, 1), 1);
	assert_int_equal(trace.waveform, WAVEFORM_MODE_DU);
	vl_epd_device_unref(dev);
}

static void
test_large_update_is_split(void **state)
{
	struct emulated_transport *t;
	struct vl_epd_device *dev = open_default(&t);
	uint32_t marker;
	(void)state;

	for (uint32_t y = 0; y < H; y++)
		for (uint32_t x = 0; x < W; x++)
			dev->pixels[(size_t)y * W + x] = (uint8_t)((x / 50) * 17);
	assert_int_equal(send(dev, 0, 0, W, H, WAVEFORM_MODE_GC16, true, &marker), 0);
	assert_int_equal(dev->impl->wait(dev, marker), 0);
	assert_true(t->largest <= VL_IT8951_MAX_TRANSFER);
	/* 76 rows of 800 a transfer */
	assert_int_equal(t->loads, (H + 75) / 76);
	assert_int_equal(it8951_emulator_bytes_loaded(t->emulator), W * H + 20 * t->loads);
	const uint8_t *panel = panel_of(t);
	for (uint32_t x = 0; x < W; x += 50)
		assert_area(panel, x, 0, 50, H, (uint8_t)((x / 50) * 17));
	vl_epd_device_unref(dev);
}

static void
test_modes_as_the_controller_numbers_them(void **state)
{
	struct emulated_transport *t;
	struct vl_epd_device *dev = open_default(&t);
	struct vl_panel_model *model = it8951_emulator_model(t->emulator);
	struct vl_panel_model_trace trace[3];
	uint32_t marker;
	(void)state;

	/* GL16 drives sixteen levels without a flash; GC16 flashes in either update mode */
	fill(dev, 0, 0, 64, 64, 0x80);
	assert_int_equal(send(dev, 0, 0, 64, 64, WAVEFORM_MODE_GL16, false, &marker), 0);
	assert_int_equal(dev->impl->wait(dev, marker), 0);
	assert_int_equal(send(dev, 0, 0, 64, 64, WAVEFORM_MODE_GC16, false, &marker), 0);
	assert_int_equal(dev->impl->wait(dev, marker), 0);
	fill(dev, 0, 0, 64, 64, 0);
	assert_int_equal(send(dev, 0, 0, 64, 64, WAVEFORM_MODE_A2, false, &marker), 0);
	assert_int_equal(dev->impl->wait(dev, marker), 0);
	assert_int_equal(vl_panel_model_trace(model, trace, 3), 3);
	assert_int_equal(trace[0].waveform, WAVEFORM_MODE_GL16);
	assert_false(trace[0].flashing);
	assert_int_equal(trace[1].waveform, WAVEFORM_MODE_GC16);
	assert_true(trace[1].flashing);
	assert_int_equal(trace[2].waveform, WAVEFORM_MODE_A2);
	vl_epd_device_unref(dev);
}

static void
test_overlapping_updates_in_order(void **state)
{
	struct emulated_transport *t;
	struct vl_epd_device *dev = open_default(&t);
	struct vl_panel_model *model = it8951_emulator_model(t->emulator);
	struct vl_panel_model_trace trace[3];
	uint32_t first, second, beside;
	(void)state;

	fill(dev, 0, 0, 100, 100, 0);
	assert_int_equal(send(dev, 0, 0, 100, 100, WAVEFORM_MODE_GC16, true, &first), 0);
	/* elsewhere: loaded and started while the first runs */
	fill(dev, 400, 0, 50, 50, 0);
	assert_int_equal(send(dev, 400, 0, 50, 50, WAVEFORM_MODE_DU, false, &beside), 0);
	fill(dev, 50, 50, 100, 100, 0xff);
	assert_int_equal(send(dev, 50, 50, 100, 100, WAVEFORM_MODE_DU, false, &second), 0);
	assert_int_equal(dev->impl->wait(dev, second), 0);
	assert_int_equal(dev->impl->wait(dev, beside), 0);
	assert_int_equal(dev->impl->wait(dev, first), 0);
	assert_int_equal(vl_panel_model_trace(model, trace, 3), 3);
	const struct vl_panel_model_trace *gc16 = NULL, *du = NULL, *other = NULL;
	for (int i = 0; i < 3; i++) {
		if (trace[i].rect.left == 0)
			gc16 = &trace[i];
		else if (trace[i].rect.left == 50)
			du = &trace[i];
		else
			other = &trace[i];
	}
	assert_non_null(gc16);
	assert_non_null(du);
	assert_non_null(other);
	assert_true(du->start_ns >= gc16->end_ns);
	assert_true(other->start_ns < gc16->end_ns);
	const uint8_t *panel = panel_of(t);
	assert_area(panel, 0, 0, 50, 50, 0);
	assert_area(panel, 50, 50, 100, 100, 0xff);
	vl_epd_device_unref(dev);
}

/* The keys of epdfb's debugfs stats file, in its order. */
static const char *const stats_keys[] = {"updates_submitted", "updates_completed", "updates_merged",
	"updates_cancelled", "updates_refused", "updates_failed", "capture_errors", "update_errors",
	"update_timeouts", "temperature_errors", "collisions", "pixels_driven", "flashes",
	"waveform_init", "waveform_du", "waveform_gc16", "waveform_gc4", "waveform_a2",
	"waveform_gl16", "defio_runs", "defio_pages", "ghost_mean", "temperature", "power",
	"power_downs", "power_down_ns", "in_flight", "queued", "queued_limit", "held",
	"snapshot_bytes", "snapshot_limit"};

/* The model's stats text, its keys checked against the driver's: malloc'ed. */
static char *
stats_of(struct emulated_transport *t)
{
	char *text = vl_panel_model_stats_text(it8951_emulator_model(t->emulator));
	const char *line = text;

	assert_non_null(text);
	for (size_t i = 0; i < sizeof(stats_keys) / sizeof(stats_keys[0]); i++) {
		size_t length = strlen(stats_keys[i]);
		if (strncmp(line, stats_keys[i], length) || strncmp(line + length, ": ", 2))
			fail_msg("line %zu of the stats is \"%.40s\", not %s", i, line,
				stats_keys[i]);
		line = strchr(line, '\n');
		assert_non_null(line);
		line++;
	}
	assert_string_equal(line, "");
	return text;
}

/* Whether the stats text has the line "key: value". */
static bool
has_stat(const char *text, const char *key, const char *value)
{
	char line[128];

	snprintf(line, sizeof(line), "\n%s: %s\n", key, value);
	return strstr(text, line) || (!strncmp(text, line + 1, strlen(line + 1)));
}

static void
assert_stat(const char *text, const char *key, const char *value)
{
	if (!has_stat(text, key, value))
		fail_msg("no \"%s: %s\" in the stats:\n%s", key, value, text);
}

static void
test_stats_and_flash(void **state)
{
	struct emulated_transport *t;
	struct vl_epd_device *dev = open_default(&t);
	struct vl_panel_model *model = it8951_emulator_model(t->emulator);
	static uint8_t before[W * H];
	uint32_t marker;
	char number[32];
	(void)state;

	vl_panel_model_stats_reset(model);
	char *text = stats_of(t);
	assert_stat(text, "updates_completed", "0");
	assert_stat(text, "ghost_mean", "0.000");
	assert_stat(text, "temperature", "25");
	free(text);

	/* DU leaves a ghost where it drove, 15 levels of each pixel's 255 */
	fill(dev, 100, 50, 40, 30, 0);
	assert_int_equal(send(dev, 100, 50, 40, 30, WAVEFORM_MODE_DU, false, &marker), 0);
	assert_int_equal(dev->impl->wait(dev, marker), 0);
	text = stats_of(t);
	assert_stat(text, "updates_submitted", "1");
	assert_stat(text, "updates_completed", "1");
	assert_stat(text, "pixels_driven", "1200");
	assert_stat(text, "flashes", "0");
	assert_stat(text, "waveform_du", "1");
	assert_stat(text, "ghost_mean", "0.037");
	free(text);

	/* the flash shows the image buffer again: the picture stays, the ghost goes */
	const uint8_t *image = vl_panel_model_pixels(model);
	memcpy(before, panel_of(t), sizeof(before));
	assert_area(before, 100, 50, 40, 30, 0);
	assert_memory_not_equal(before, image, sizeof(before));
	assert_int_equal(it8951_emulator_flash(t->emulator, 10000), 0);
	assert_false(vl_panel_model_busy(model));
	assert_memory_equal(panel_of(t), image, sizeof(before));
	text = stats_of(t);
	assert_stat(text, "updates_completed", "2");
	assert_stat(text, "flashes", "1");
	assert_stat(text, "waveform_gc16", "1");
	snprintf(number, sizeof(number), "%u", 1200 + W * H);
	assert_stat(text, "pixels_driven", number);
	assert_stat(text, "ghost_mean", "0.000");
	free(text);

	/* counts go, what the panel is now stays */
	vl_panel_model_stats_reset(model);
	text = stats_of(t);
	assert_stat(text, "updates_submitted", "0");
	assert_stat(text, "updates_completed", "0");
	assert_stat(text, "pixels_driven", "0");
	assert_stat(text, "flashes", "0");
	assert_stat(text, "waveform_gc16", "0");
	assert_stat(text, "temperature", "25");
	assert_stat(text, "queued_limit", "64");
	free(text);

	/* a stalled controller's flash never ends */
	it8951_emulator_stall(t->emulator, true);
	assert_int_equal(it8951_emulator_flash(t->emulator, 50), -ETIMEDOUT);
	it8951_emulator_stall(t->emulator, false);
	vl_epd_device_unref(dev);
}

/*
 * The busy bits are read over the link that loads pixels: once an update
 * of a mode was seen to end, the next one's are not read until it may
 * end. At real speed (time_scale 100) a GL16 update lasts 450 ms.
 */
static void
test_busy_bits_read_when_an_update_may_end(void **state)
{
	struct emulated_transport *t = emulated_board_timed(1500, 100);
	char error[512];
	unsigned int reads[2];
	uint32_t marker;
	(void)state;

	struct vl_epd_device *dev = open_board(t, 0, error, sizeof(error));
	if (!dev)
		fail_msg("%s", error);
	for (int i = 0; i < 2; i++) {
		fill(dev, 10, 10, 20, 20, i ? 0xff : 0);
		assert_int_equal(send(dev, 10, 10, 20, 20, WAVEFORM_MODE_GL16, false, &marker), 0);
		t->register_reads = 0;
		assert_int_equal(dev->impl->wait(dev, marker), 0);
		reads[i] = t->register_reads;
	}
	assert_area(panel_of(t), 10, 10, 20, 20, 0xff);
	/* the first: every 5 ms of its 450; the second: from 20 ms before its end */
	if (reads[1] > 10 || reads[0] <= reads[1])
		fail_msg("%u reads of the busy bits for the first update, %u for the second",
			reads[0], reads[1]);
	vl_epd_device_unref(dev);
}

static void
test_vcom(void **state)
{
	char error[512];
	(void)state;

	/* none on the board, none configured: refused, nothing sent to the panel */
	struct emulated_transport *t = emulated_board(0);
	assert_null(open_board(t, 0, error, sizeof(error)));
	assert_non_null(strstr(error, "[panel] vcom = -1.50"));

	/* configured: set on the board */
	t = emulated_board(0);
	struct vl_epd_device *dev = open_board(t, 2130, error, sizeof(error));
	assert_non_null(dev);
	assert_int_equal(it8951_emulator_vcom(t->emulator), 2130);
	vl_epd_device_unref(dev);

	/* one the PMIC cannot take: refused with the board's words */
	t = emulated_board(1500);
	assert_null(open_board(t, 9000, error, sizeof(error)));
	assert_non_null(strstr(error, "illegal request"));
}

static void
test_not_an_it8951(void **state)
{
	char error[512];
	(void)state;

	struct emulated_transport *t = emulated_board(1500);
	t->other_device = true;
	assert_null(open_board(t, 0, error, sizeof(error)));
	assert_non_null(strstr(error, "not an IT8951 board"));

	t = emulated_board(1500);
	t->garbage = true;
	assert_null(open_board(t, 0, error, sizeof(error)));
	assert_non_null(strstr(error, "makes no sense"));
}

static void
test_refused_mode_is_permanent(void **state)
{
	struct emulated_transport *t;
	struct vl_epd_device *dev = open_default(&t);
	struct vl_epd_update update = {.rect = {0, 0, 8, 8}, .waveform = 9, .marker = 77};
	(void)state;

	assert_true(dev->impl->snapshot(dev, &update));
	assert_false(dev->impl->submit(dev, &update));
	assert_int_equal(errno, EINVAL);
	assert_true(vl_epd_error_is_permanent(errno));
	/* an area outside the panel: the board's CHECK CONDITION, as EINVAL */
	update = (struct vl_epd_update){.rect = {W - 4, 0, 8, 8}, .waveform = 1, .marker = 78};
	assert_false(dev->impl->submit(dev, &update));
	vl_epd_device_unref(dev);
}

static void
test_stalled_board_is_cancelled(void **state)
{
	struct emulated_transport *t;
	struct vl_epd_device *dev = open_default(&t);
	uint32_t marker;
	(void)state;

	it8951_emulator_stall(t->emulator, true);
	fill(dev, 0, 0, 16, 16, 0);
	assert_int_equal(send(dev, 0, 0, 16, 16, WAVEFORM_MODE_DU, false, &marker), 0);
	dev->impl->cancel(dev);
	assert_int_equal(dev->impl->wait(dev, marker), -ECANCELED);
	vl_epd_device_unref(dev);
}

static void
test_unplugged_board(void **state)
{
	struct emulated_transport *t;
	struct vl_epd_device *dev = open_default(&t);
	uint32_t first, second;
	(void)state;

	it8951_emulator_stall(t->emulator, true);
	assert_int_equal(send(dev, 0, 0, 16, 16, WAVEFORM_MODE_DU, false, &first), 0);
	t->gone = true;
	assert_int_equal(dev->impl->wait(dev, first), -ENODEV);
	assert_int_equal(send(dev, 100, 0, 16, 16, WAVEFORM_MODE_DU, false, &second), ENODEV);
	assert_true(dev->impl->removed(dev));
	vl_epd_device_unref(dev);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_reads_the_board),
		cmocka_unit_test(test_update_shows_its_pixels),
		cmocka_unit_test(test_large_update_is_split),
		cmocka_unit_test(test_modes_as_the_controller_numbers_them),
		cmocka_unit_test(test_overlapping_updates_in_order),
		cmocka_unit_test(test_stats_and_flash),
		cmocka_unit_test(test_busy_bits_read_when_an_update_may_end),
		cmocka_unit_test(test_vcom),
		cmocka_unit_test(test_not_an_it8951),
		cmocka_unit_test(test_refused_mode_is_permanent),
		cmocka_unit_test(test_stalled_board_is_cancelled),
		cmocka_unit_test(test_unplugged_board),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
