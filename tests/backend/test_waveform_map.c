// SPDX-License-Identifier: MIT
/*
 * waveform-map: parsing a device's waveform numbering from configuration,
 * the table it leaves the policy, and the numbers sent for the kinds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <epdfb.h>

#include "helpers.h"

static void
test_identity(void **state)
{
	struct vl_epd_waveform_map map;
	(void)state;

	vl_epd_waveform_map_identity(&map);
	for (uint32_t kind = 0; kind < VL_EPD_WAVEFORM_KINDS; kind++)
		assert_int_equal(vl_epd_waveform_map_device_id(&map, kind), kind);
	assert_int_equal(
		vl_epd_waveform_map_device_id(&map, WAVEFORM_MODE_AUTO), WAVEFORM_MODE_AUTO);
}

static void
test_parse(void **state)
{
	struct vl_epd_waveform_map map;
	char error[256] = "";
	(void)state;

	/* GL16 numbered before A2, any case, blanks anywhere around the parts */
	assert_true(vl_epd_waveform_map_parse(
		" INIT = 0, du=1,GC16 =2 , gl16= 3,\ta2=4, ", &map, error, sizeof(error)));
	assert_string_equal(error, "");
	assert_int_equal(map.id[WAVEFORM_MODE_INIT], 0);
	assert_int_equal(map.id[WAVEFORM_MODE_DU], 1);
	assert_int_equal(map.id[WAVEFORM_MODE_GC16], 2);
	assert_int_equal(map.id[WAVEFORM_MODE_GL16], 3);
	assert_int_equal(map.id[WAVEFORM_MODE_A2], 4);
	assert_int_equal(map.id[WAVEFORM_MODE_GC4], -1);
	assert_int_equal(vl_epd_waveform_map_device_id(&map, WAVEFORM_MODE_GL16), 3);
	assert_int_equal(vl_epd_waveform_map_device_id(&map, WAVEFORM_MODE_A2), 4);
	/* a kind the device lacks, and ids beyond the kinds, pass unchanged */
	assert_int_equal(vl_epd_waveform_map_device_id(&map, WAVEFORM_MODE_GC4), WAVEFORM_MODE_GC4);
	assert_int_equal(vl_epd_waveform_map_device_id(&map, 9), 9);

	/* two kinds may share one waveform */
	assert_true(vl_epd_waveform_map_parse("gc16=2,gl16=2", &map, error, sizeof(error)));
	assert_int_equal(map.id[WAVEFORM_MODE_GL16], 2);
	assert_true(vl_epd_waveform_map_parse("du=2147483647", &map, error, sizeof(error)));
	assert_int_equal(map.id[WAVEFORM_MODE_DU], INT32_MAX);
}

static void
expect_error(const char *text, const char *message)
{
	struct vl_epd_waveform_map map, before;
	char error[256] = "";

	vl_epd_waveform_map_identity(&map);
	before = map;
	assert_false(vl_epd_waveform_map_parse(text, &map, error, sizeof(error)));
	if (!strstr(error, message))
		fail_msg("\"%s\": error \"%s\" lacks \"%s\"", text, error, message);
	assert_memory_equal(&map, &before, sizeof(map));
}

static void
test_errors(void **state)
{
	(void)state;
	expect_error("", "names no waveform to draw with");
	expect_error(" , ", "names no waveform to draw with");
	expect_error("init=0", "names no waveform to draw with");
	expect_error("du", "item \"du\": expected KIND=ID");
	expect_error("du 1, gc16=2", "item \"du 1\": expected KIND=ID");
	expect_error("du=1 gc16=2", "item \"du=1 gc16=2\": the id must be a number");
	expect_error("d u=1", "unknown waveform \"d u\"");
	expect_error("du=1,reagl=6", "unknown waveform \"reagl\"");
	expect_error("=1", "unknown waveform \"\"");
	expect_error("du=1,du=2", "du is given twice");
	expect_error("DU=1,du=2", "du is given twice");
	expect_error("du=", "item \"du=\": the id must be a number");
	expect_error("du=-1", "item \"du=-1\": the id must be a number");
	expect_error("du=0x1", "the id must be a number");
	expect_error("du=1=2", "the id must be a number");
	expect_error("du=2147483648", "the id must be a number");
	expect_error("du=99999999999999999999", "the id must be a number");
}

static void
test_table(void **state)
{
	struct vl_epd_waveform_map map;
	struct vl_epd_waveform_table table;
	char error[256];
	(void)state;

	assert_true(vl_epd_waveform_map_parse("a2=10,gc16=20,du=30", &map, error, sizeof(error)));
	vl_epd_waveform_table_from_map(&table, &map);
	assert_int_equal(table.n, 3);
	/* the table keeps kinds and their properties; the map holds the numbers */
	const struct vl_epd_waveform_entry *gc16 = vl_epd_waveform_find(&table, WAVEFORM_MODE_GC16);
	assert_non_null(gc16);
	assert_string_equal(gc16->name, "GC16");
	assert_int_equal(gc16->levels, 16);
	assert_true(gc16->flashing_full);
	assert_null(vl_epd_waveform_find(&table, WAVEFORM_MODE_GL16));
	assert_null(vl_epd_waveform_find(&table, WAVEFORM_MODE_INIT));

	/* gray text wants GL16; without it the policy falls back to GC16, sent as 20 */
	struct vl_epd_waveform_choice choice = vl_epd_choose_waveform(
		&table, VL_EPD_CONTENT_GRAY, VL_EPD_MODE_AUTO, VL_EPD_DITHER_AUTO);
	assert_int_equal(choice.waveform, WAVEFORM_MODE_GC16);
	assert_int_equal(vl_epd_waveform_map_device_id(&map, choice.waveform), 20);
	choice = vl_epd_choose_waveform(
		&table, VL_EPD_CONTENT_MONO, VL_EPD_MODE_AUTO, VL_EPD_DITHER_AUTO);
	assert_int_equal(vl_epd_waveform_map_device_id(&map, choice.waveform), 30);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
