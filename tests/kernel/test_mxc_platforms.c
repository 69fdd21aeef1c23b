// SPDX-License-Identifier: MIT
/*
 * mxc clients as the devices ship them: each platform's waveform ids (the
 * waveform_ids parameter: ntx, the default, and rm1), the update structure
 * and marker wait of the NTX kernels before the Mark 7, sent with the raw
 * ioctl numbers their headers give, and an explicit update in AUTOMATIC
 * mode that is not followed by a deferred-IO band over the same pixels,
 * while pixels written after it, and plain deferred-IO writes, still get
 * theirs. The gray levels are read back from the panel, the waveforms from
 * the update trace. Also built 32-bit, for the compat ioctls.
 */
#include "epd_test.h"

#include <assert.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define W 320
#define H 240
/* the gradient: x - GLEFT is the gray value */
#define GLEFT   32
#define GWIDTH  256
#define GHEIGHT 16

/* The update calls as Kobo Mark 7 and reMarkable 1 software numbers them. */
#define MK7_SEND_UPDATE 0x4048462eu
#define MK7_WAIT        0xc008462fu

/* As the NTX kernels' headers before the Mark 7 define them. */
struct ntx_update_data_v1 {
	struct mxcfb_rect update_region;
	uint32_t waveform_mode;
	uint32_t update_mode;
	uint32_t update_marker;
	int temp;
	unsigned int flags;
	struct mxcfb_alt_buffer_data alt_buffer_data;
};

struct ntx_alt_buffer_data_ntx {
	void *virt_addr;
	uint32_t phys_addr;
	uint32_t width;
	uint32_t height;
	struct mxcfb_rect alt_update_region;
};

struct ntx_update_data_v1_ntx {
	struct mxcfb_rect update_region;
	uint32_t waveform_mode;
	uint32_t update_mode;
	uint32_t update_marker;
	int temp;
	unsigned int flags;
	struct ntx_alt_buffer_data_ntx alt_buffer_data;
};

#define NTX_SEND_UPDATE_V1     0x4040462eu
#define NTX_SEND_UPDATE_V1_NTX _IOW('F', 0x2E, struct ntx_update_data_v1_ntx)
#define NTX_WAIT_V1            0x4004462fu

static_assert(sizeof(struct ntx_update_data_v1) == 64, "the 64-byte structure");
static_assert(sizeof(struct ntx_update_data_v1_ntx) == (sizeof(void *) == 4 ? 68 : 80),
	"the NTX structure: 68 bytes on 32-bit machines, 80 on 64-bit ones");
static_assert(EPDFB_MXC_SEND_UPDATE_V1 == NTX_SEND_UPDATE_V1, "EPDFB_MXC_SEND_UPDATE_V1");
static_assert(EPDFB_MXC_WAIT_FOR_UPDATE_COMPLETE_V1 == NTX_WAIT_V1, "the bare-marker wait");
static_assert(EPDFB_MXC_SEND_UPDATE_V1_NTX == 0x4044462eu, "EPDFB_MXC_SEND_UPDATE_V1_NTX");
static_assert(EPDFB_MXC_SEND_UPDATE_V1_NTX_LP64 == 0x4050462eu, "..._V1_NTX_LP64");
static_assert(NTX_SEND_UPDATE_V1_NTX == (sizeof(void *) == 4 ? EPDFB_MXC_SEND_UPDATE_V1_NTX
							     : EPDFB_MXC_SEND_UPDATE_V1_NTX_LP64),
	"the NTX structure's number, as its software computes it");

enum layout { MK7, V1, V1_NTX };

static const char *const layout_names[] = {"Mark 7", "64-byte v1", "NTX v1"};

static struct epd dev;

/* Sends an update in a layout, with its raw number: 0 or -errno. */
static int
send_layout(struct epd *d, enum layout layout, struct mxcfb_rect r, uint32_t waveform,
	uint32_t mode, uint32_t marker, uint32_t flags)
{
	int rc;

	switch (layout) {
	case MK7: {
		struct mxcfb_update_data u = {.update_region = r,
			.waveform_mode = waveform,
			.update_mode = mode,
			.update_marker = marker,
			.temp = TEMP_USE_AMBIENT,
			.flags = flags};

		rc = ioctl(d->fd, MK7_SEND_UPDATE, &u);
		break;
	}
	case V1: {
		struct ntx_update_data_v1 u = {.update_region = r,
			.waveform_mode = waveform,
			.update_mode = mode,
			.update_marker = marker,
			.temp = TEMP_USE_AMBIENT,
			.flags = flags};

		rc = ioctl(d->fd, NTX_SEND_UPDATE_V1, &u);
		break;
	}
	default: {
		struct ntx_update_data_v1_ntx u = {.update_region = r,
			.waveform_mode = waveform,
			.update_mode = mode,
			.update_marker = marker,
			.temp = TEMP_USE_AMBIENT,
			.flags = flags};

		rc = ioctl(d->fd, NTX_SEND_UPDATE_V1_NTX, &u);
		break;
	}
	}
	return rc ? -errno : 0;
}

/* Waits for a marker the way the layout's software does: 0 or -errno. */
static int
wait_layout(struct epd *d, enum layout layout, uint32_t marker)
{
	if (layout == MK7) {
		struct mxcfb_update_marker_data m = {.update_marker = marker};

		return ioctl(d->fd, MK7_WAIT, &m) ? -errno : 0;
	}
	return ioctl(d->fd, NTX_WAIT_V1, &marker) ? -errno : 0;
}

static struct mxcfb_rect
rect(uint32_t left, uint32_t top, uint32_t width, uint32_t height)
{
	return (struct mxcfb_rect){.top = top, .left = left, .width = width, .height = height};
}

/*
 * Shows a fresh gradient on white with a platform's id and checks the trace
 * names the waveform expected and the panel shows as many gray levels,
 * each pixel nearest its level (a non-flashing waveform leaves a ghost).
 */
static void
gradient_case(struct epd *d, enum layout layout, uint32_t id, uint32_t mode, const char *expect,
	unsigned int levels)
{
	uint8_t *panel = epd_alloc_image(d);
	struct epd_trace *t;
	bool seen[256] = {false};
	unsigned int distinct = 0, wrong = 0;
	uint32_t marker = 0x500 + id;

	epd_phase("%s, id %u %s: %s, %u levels", layout_names[layout], id,
		mode == UPDATE_MODE_FULL ? "FULL" : "PARTIAL", expect, levels);
	epd_clear(d);
	epd_stats_reset(d);
	epd_trace_clear(d);
	for (uint32_t y = 0; y < GHEIGHT; y++)
		for (uint32_t x = 0; x < GWIDTH; x++)
			epd_put(d, GLEFT + x, 100 + y, (uint8_t)x);
	if (!CHECK_RC(
		    send_layout(d, layout, rect(GLEFT, 100, GWIDTH, GHEIGHT), id, mode, marker, 0),
		    0)) {
		free(panel);
		return;
	}
	CHECK_RC(wait_layout(d, layout, marker), 0);
	epd_settle(d);

	size_t n = epd_trace_read(d, &t);
	struct epd_trace *e = epd_trace_find(t, n, marker);

	if (CHECK_MSG(e, "no trace entry for marker 0x%x", marker)) {
		epd_trace_print(e);
		CHECK_MSG(!strcmp(e->waveform, expect), "id %u ran as %s, expected %s", id,
			e->waveform, expect);
	}
	free(t);

	epd_read_panel(d, panel);
	for (uint32_t y = 100; y < 100 + GHEIGHT; y++) {
		for (uint32_t x = 0; x < GWIDTH; x++) {
			uint8_t p = panel[(size_t)y * W + GLEFT + x];
			uint8_t level = epd_quant(p, levels);

			if (level != epd_quant((uint8_t)x, levels))
				wrong++;
			if (!seen[level]) {
				seen[level] = true;
				distinct++;
			}
		}
	}
	CHECK_MSG(wrong == 0, "%u pixels off their %u-level value", wrong, levels);
	CHECK_MSG(distinct == levels, "the panel shows %u gray levels, expected %u", distinct,
		levels);
	free(panel);
}

static void
check_enumeration(struct epd *d, const uint32_t *ids, const char *const *names, unsigned int n)
{
	struct epdfb_waveform_info info;

	epd_phase("EPDFB_GET_WAVEFORM lists %u waveforms with the platform's ids", n);
	for (uint32_t i = 0; i < n; i++) {
		if (!CHECK_RC(epd_get_waveform(d, i, &info), 0))
			continue;
		CHECK_EQ(info.index, i);
		CHECK_EQ(info.id, ids[i]);
		CHECK_MSG(!strcmp(info.name, names[i]), "entry %u: %.16s, expected %s", i,
			info.name, names[i]);
	}
	CHECK_RC(epd_get_waveform(d, n, &info), -EINVAL);
}

static void
refused_ids(struct epd *d, const uint32_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (int layout = MK7; layout <= V1_NTX; layout++)
			CHECK_MSG(send_layout(d, layout, rect(0, 0, 8, 8), ids[i], UPDATE_MODE_FULL,
					  0, 0) == -EINVAL,
				"%s: id %u not refused with EINVAL", layout_names[layout], ids[i]);
}

static void
ntx_numbering(struct epd *d)
{
	static const uint32_t ids[] = {0, 1, 2, 3, 4, 5};
	static const char *const names[] = {"INIT", "DU", "GC16", "GC4", "A2", "GL16"};
	static const uint32_t refused[] = {8, 9, 10, 256, 0xffffffffu};

	epd_phase("load with the default numbering (ntx)");
	epd_open(d, "width=320 height=240 bpp=8 time_scale=10 auto_update=0");
	gradient_case(d, MK7, 3, UPDATE_MODE_FULL, "GC4", 4);
	gradient_case(d, V1, 3, UPDATE_MODE_FULL, "GC4", 4);
	gradient_case(d, V1_NTX, 5, UPDATE_MODE_PARTIAL, "GL16", 16);
	gradient_case(d, V1, 2, UPDATE_MODE_FULL, "GC16", 16);
	/* REAGL and REAGLD, KOReader's page turns on Kobos from the Mark 7 on */
	gradient_case(d, MK7, 6, UPDATE_MODE_PARTIAL, "GL16", 16);
	gradient_case(d, V1_NTX, 7, UPDATE_MODE_PARTIAL, "GL16", 16);
	check_enumeration(d, ids, names, 6);

	epd_phase("ntx: ids the panel has no waveform for are refused");
	refused_ids(d, refused, sizeof(refused) / sizeof(refused[0]));

	epd_phase("the 64-byte and NTX structures: bad input");
	for (int layout = V1; layout <= V1_NTX; layout++) {
		CHECK_RC(send_layout(d, layout, rect(0, 0, W + 1, 8), 2, UPDATE_MODE_FULL, 0, 0),
			-EINVAL);
		CHECK_RC(send_layout(d, layout, rect(0, 0, 8, 8), 2, 2, 0, 0), -EINVAL);
		CHECK_RC(send_layout(d, layout, rect(0, 0, 8, 8), 2, UPDATE_MODE_FULL, 0, 0x8),
			-EINVAL);
		CHECK_RC(send_layout(d, layout, rect(0, 0, 8, 8), 2, UPDATE_MODE_FULL, 0,
				 EPDC_FLAG_USE_ALT_BUFFER),
			-EPERM);
	}
	CHECK_ERR(ioctl(d->fd, NTX_SEND_UPDATE_V1, NULL), EFAULT);
	CHECK_ERR(ioctl(d->fd, NTX_SEND_UPDATE_V1_NTX, NULL), EFAULT);
	CHECK_ERR(ioctl(d->fd, NTX_WAIT_V1, NULL), EFAULT);
	/* an unknown marker's wait returns at once, as the newer wait's does */
	CHECK_RC(wait_layout(d, V1, 0x7777), 0);
	epd_close(d);
}

static void
rm1_numbering(struct epd *d)
{
	static const uint32_t ids[] = {0, 1, 2, 3, 4};
	static const char *const names[] = {"INIT", "DU", "GC16", "GL16", "A2"};
	static const uint32_t refused[] = {5, 6, 7, 8, 9, 10, 11, 12, 0xffffffffu};
	struct mxcfb_waveform_modes modes = {.mode_init = 0,
		.mode_du = 1,
		.mode_gc4 = 3,
		.mode_gc8 = 2,
		.mode_gc16 = 3,
		.mode_gc32 = 2};
	struct epd_trace *t;

	epd_phase("load with waveform_ids=rm1");
	epd_open(d, "width=320 height=240 bpp=8 time_scale=10 auto_update=0 waveform_ids=rm1");
	gradient_case(d, MK7, 3, UPDATE_MODE_PARTIAL, "GL16", 16);
	gradient_case(d, MK7, 3, UPDATE_MODE_FULL, "GL16", 16);
	gradient_case(d, MK7, 2, UPDATE_MODE_FULL, "GC16", 16);
	gradient_case(d, MK7, 4, UPDATE_MODE_FULL, "A2", 2);
	check_enumeration(d, ids, names, 5);

	epd_phase("rm1: ids the panel has no waveform for are refused");
	refused_ids(d, refused, sizeof(refused) / sizeof(refused[0]));

	epd_phase("rm1: MXCFB_SET_WAVEFORM_MODES takes the platform's ids");
	CHECK_OK(ioctl(d->fd, MXCFB_SET_WAVEFORM_MODES, &modes));
	epd_clear(d);
	epd_trace_clear(d);
	epd_fill(d, 40, 40, 32, 32, 0x80);
	REQUIRE_RC(epd_update(d, 40, 40, 32, 32, WAVEFORM_MODE_AUTO, UPDATE_MODE_FULL, 0x600,
			   TEMP_USE_AMBIENT, 0),
		0);
	CHECK_RC(epd_wait(d, 0x600, NULL), 0);
	size_t n = epd_trace_read(d, &t);
	struct epd_trace *e = epd_trace_find(t, n, 0x600);

	if (CHECK(e))
		CHECK_MSG(!strcmp(e->waveform, "GL16"), "AUTO with mode_gc16 3 ran as %s",
			e->waveform);
	free(t);
	modes.mode_gc16 = 5;
	CHECK_ERR(ioctl(d->fd, MXCFB_SET_WAVEFORM_MODES, &modes), EINVAL);
	epd_close(d);
}

/* Checks a rect of the panel shows value (black or white) as DU's 2 levels. */
static void
check_bw(struct epd *d, const uint8_t *panel, struct mxcfb_rect r, uint8_t value, const char *what)
{
	unsigned int wrong = 0;

	for (uint32_t y = r.top; y < r.top + r.height; y++)
		for (uint32_t x = r.left; x < r.left + r.width; x++)
			wrong += epd_quant(panel[(size_t)y * d->width + x], 2) != value;
	CHECK_MSG(wrong == 0, "%s: %u pixels of %ux%u at %u,%u are not %u", what, wrong, r.width,
		r.height, r.left, r.top, value);
}

/* Rows from..to (exclusive) lie in one trace entry without a marker, full width. */
static bool
band_covers(struct epd_trace *t, size_t n, uint32_t from, uint32_t to)
{
	for (size_t i = 0; i < n; i++)
		if (!t[i].marker && t[i].left == 0 && t[i].width == W && t[i].top <= from &&
			t[i].top + t[i].height >= to)
			return true;
	return false;
}

static void
explicit_and_deferred_io(struct epd *d)
{
	uint8_t *panel = epd_alloc_image(d);
	struct epd_trace *t;
	size_t n;

	epd_phase("AUTOMATIC mode: load");
	epd_open(d, "width=320 height=240 bpp=8 time_scale=10 auto_update=1 defio_delay_ms=50");
	epd_clear(d);

	for (int layout = MK7; layout <= V1; layout++) {
		struct mxcfb_rect r = rect(40 + 120 * (uint32_t)layout, 40, 64, 32);
		uint32_t marker = 0x700 + (uint32_t)layout;

		epd_phase("%s: an explicit update of written pixels is the only update",
			layout_names[layout]);
		epd_stats_reset(d);
		epd_trace_clear(d);
		epd_fill(d, r.left, r.top, r.width, r.height, 0);
		if (!CHECK_RC(send_layout(d, layout, r, WAVEFORM_MODE_DU, UPDATE_MODE_PARTIAL,
				      marker, 0),
			    0))
			continue;
		CHECK_RC(wait_layout(d, layout, marker), 0);
		epd_settle(d);
		CHECK_GE(epd_stat(d, "defio_pages"), 1);
		n = epd_trace_read(d, &t);
		for (size_t i = 0; i < n; i++)
			epd_trace_print(&t[i]);
		if (CHECK_EQ(n, 1)) {
			CHECK_EQ(t[0].marker, marker);
			CHECK_MSG(!strcmp(t[0].waveform, "DU"), "ran as %s", t[0].waveform);
		}
		free(t);
		epd_read_panel(d, panel);
		check_bw(d, panel, r, 0, "the explicit update's rect");
	}

	epd_phase("pixels written after the explicit update, and beside it, still show");
	epd_stats_reset(d);
	epd_trace_clear(d);
	struct mxcfb_rect sent = rect(40, 120, 64, 32), inside = rect(48, 128, 8, 8),
			  beside = rect(200, 110, 32, 16), after = rect(240, 140, 16, 8);

	epd_fill(d, sent.left, sent.top, sent.width, sent.height, 0);
	epd_fill(d, beside.left, beside.top, beside.width, beside.height, 0);
	REQUIRE_RC(epd_update(d, sent.left, sent.top, sent.width, sent.height, WAVEFORM_MODE_DU,
			   UPDATE_MODE_PARTIAL, 0x710, TEMP_USE_AMBIENT, 0),
		0);
	/* the explicit update took its pixels when it was sent: the queue was idle */
	epd_fill(d, inside.left, inside.top, inside.width, inside.height, 255);
	epd_fill(d, after.left, after.top, after.width, after.height, 0);
	CHECK_RC(epd_wait(d, 0x710, NULL), 0);
	epd_settle(d);
	n = epd_trace_read(d, &t);
	for (size_t i = 0; i < n; i++)
		epd_trace_print(&t[i]);
	CHECK_MSG(band_covers(t, n, inside.top, inside.top + inside.height),
		"no deferred-IO band over the rows written after the update");
	CHECK_MSG(band_covers(t, n, beside.top, beside.top + beside.height),
		"no deferred-IO band over the rows written beside the update");
	free(t);
	epd_read_panel(d, panel);
	check_bw(d, panel, rect(40, 120, 8, 32), 0, "the update's rect, left of the white square");
	check_bw(d, panel, inside, 255, "written white after the update");
	check_bw(d, panel, beside, 0, "written black beside the update");
	check_bw(d, panel, after, 0, "written black after the update, beside it");

	epd_phase("plain deferred IO: writes without an update get their band");
	epd_stats_reset(d);
	epd_trace_clear(d);
	struct mxcfb_rect plain = rect(40, 190, 64, 32);

	epd_fill(d, plain.left, plain.top, plain.width, plain.height, 0);
	epd_settle(d);
	n = epd_trace_read(d, &t);
	for (size_t i = 0; i < n; i++)
		epd_trace_print(&t[i]);
	CHECK_EQ(n, 1);
	CHECK_MSG(band_covers(t, n, plain.top, plain.top + plain.height),
		"no deferred-IO band over the written rows");
	free(t);
	epd_read_panel(d, panel);
	check_bw(d, panel, plain, 0, "written through the mapping only");
	free(panel);
	epd_close(d);
}

static void
unknown_numbering(void)
{
	const char *ko = getenv("EPDFB_KO");
	char log[16384];
	int fd, rc;

	epd_phase("an unknown numbering: the module refuses to load, and says why");
	REQUIRE_MSG(ko && *ko, "EPDFB_KO is not set");
	rc = epd_try_unload();
	CHECK_MSG(rc == 0 || rc == -ENOENT, "rmmod epdfb: %s", epd_errname(-rc));
	epd_load_panel_model();
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	REQUIRE_MSG(fd >= 0, "open %s: %s", ko, strerror(errno));
	CHECK_ERR(syscall(SYS_finit_module, fd, "waveform_ids=kobo", 0), EINVAL);
	close(fd);
	CHECK(!epd_module_loaded());
	rc = epd_run_command("dmesg | tail -n 20", log, sizeof(log));
	CHECK_EQ(rc, 0);
	CHECK_MSG(strstr(log, "waveform_ids=kobo: no such numbering; ntx"),
		"dmesg does not say why:\n%s", log);
}

int
main(void)
{
	struct epd *d = &dev;

	epd_begin("mxc_platforms", 240);
	ntx_numbering(d);
	rm1_numbering(d);
	explicit_and_deferred_io(d);
	unknown_numbering();
	return epd_end();
}
