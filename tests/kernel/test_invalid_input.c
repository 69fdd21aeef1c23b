// SPDX-License-Identifier: MIT
/*
 * Invalid input: every invalid argument of every ioctl fails with its exact
 * errno and changes nothing, and a valid update still shows correctly after
 * each; then 10,000 random ioctl calls (random commands among the driver's
 * and others, random argument bytes, NULL and bad pointers), after which,
 * with the settings reset, the driver still shows updates exactly. Set
 * EPD_SEED to repeat a run.
 */
#include "epd_test.h"
#include "ioctl_random.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define W          400
#define H          300
#define FUZZ_CALLS 10000

static struct epd dev;
static unsigned int sanity_count;

/* A valid update shows exactly, and no invalid call submitted anything. */
static void
still_works(struct epd *d, long long submitted_before, const char *after)
{
	uint32_t k = sanity_count++;
	uint32_t left = 8 + (k % 12) * 32, top = 264;
	uint8_t *panel = epd_alloc_image(d);

	CHECK_MSG(epd_stat(d, "updates_submitted") == submitted_before,
		"after %s: updates_submitted went from %lld to %lld", after, submitted_before,
		epd_stat(d, "updates_submitted"));
	for (uint32_t y = top; y < top + 24; y++)
		for (uint32_t x = left; x < left + 24; x++)
			epd_put(d, x, y, (uint8_t)(k * 37 + x + y));
	REQUIRE_RC(epd_update(d, left, top, 24, 24, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL,
			   0x10000 + k, TEMP_USE_AMBIENT, 0),
		0);
	CHECK_RC(epd_wait(d, 0x10000 + k, NULL), 0);
	epd_model_apply(d, left, top, 24, 24, 16);
	epd_read_panel(d, panel);
	if (!CHECK_IMAGE(d, panel, d->model, "valid update after an invalid call"))
		printf("    (after %s)\n", after);
	free(panel);
}

static struct mxcfb_update_data
upd(uint32_t left, uint32_t top, uint32_t w, uint32_t h, uint32_t wf, uint32_t mode, int temp,
	uint32_t flags)
{
	struct mxcfb_update_data u;

	memset(&u, 0, sizeof(u));
	u.update_region = (struct mxcfb_rect){.top = top, .left = left, .width = w, .height = h};
	u.waveform_mode = wf;
	u.update_mode = mode;
	u.update_marker = 77;
	u.temp = temp;
	u.flags = flags;
	return u;
}

static void
send_invalid(struct epd *d, struct mxcfb_update_data u, int err, const char *what)
{
	long long submitted = epd_stat(d, "updates_submitted");

	printf("SEND_UPDATE %s: rect %u,%u %ux%u waveform %u mode %u temp %d flags 0x%x\n", what,
		u.update_region.left, u.update_region.top, u.update_region.width,
		u.update_region.height, u.waveform_mode, u.update_mode, u.temp, u.flags);
	if (!CHECK_ERR(ioctl(d->fd, MXCFB_SEND_UPDATE, &u), err))
		printf("    (%s)\n", what);
	still_works(d, submitted, what);
}

static void
phase_send_update(struct epd *d)
{
	const uint32_t G = WAVEFORM_MODE_GC16, F = UPDATE_MODE_FULL;
	const int A = TEMP_USE_AMBIENT;

	epd_phase("SEND_UPDATE: rects");
	send_invalid(d, upd(W, 0, 1, 1, G, F, A, 0), EINVAL, "left = width");
	send_invalid(d, upd(0, H, 1, 1, G, F, A, 0), EINVAL, "top = height");
	send_invalid(d, upd(W - 10, 0, 11, 1, G, F, A, 0), EINVAL, "right edge past the width");
	send_invalid(d, upd(0, H - 10, 1, 11, G, F, A, 0), EINVAL, "bottom edge past the height");
	send_invalid(d, upd(0, 0, W + 1, H, G, F, A, 0), EINVAL, "width + 1");
	send_invalid(d, upd(0, 0, W, H + 1, G, F, A, 0), EINVAL, "height + 1");
	send_invalid(d, upd(0, 0, 0, 10, G, F, A, 0), EINVAL, "zero width");
	send_invalid(d, upd(0, 0, 10, 0, G, F, A, 0), EINVAL, "zero height");
	send_invalid(d, upd(0, 0, 0, 0, G, F, A, 0), EINVAL, "zero size");
	send_invalid(d, upd(0, 0xfffffff0u, 1, 0x20, G, F, A, 0), EINVAL, "top + height wraps");
	send_invalid(d, upd(0xffffffffu, 0, 2, 1, G, F, A, 0), EINVAL, "left + width wraps");
	send_invalid(d, upd(1, 0, 0xffffffffu, 1, G, F, A, 0), EINVAL, "width wraps to 0");
	send_invalid(d, upd(0, 0x80000000u, 1, 0x80000001u, G, F, A, 0), EINVAL,
		"top + height wraps to 1");
	send_invalid(d, upd(0, 0, 0xffffffffu, 0xffffffffu, G, F, A, 0), EINVAL, "huge rect");

	epd_phase("SEND_UPDATE: waveform and update modes");
	static const uint32_t bad_wf[] = {8, 9, 255, 256, 258, 0x8000, 0x80000000u, 0xffffffffu};

	for (size_t i = 0; i < sizeof(bad_wf) / sizeof(bad_wf[0]); i++)
		send_invalid(d, upd(0, 0, 8, 8, bad_wf[i], F, A, 0), EINVAL, "unknown waveform");
	send_invalid(d, upd(0, 0, 8, 8, G, 2, A, 0), EINVAL, "update mode 2");
	send_invalid(d, upd(0, 0, 8, 8, G, 0xffffffffu, A, 0), EINVAL, "update mode ~0");

	epd_phase("SEND_UPDATE: flags");
	static const uint32_t bad_flags[] = {
		0x4, 0x8, 0x10, 0x80, 0x200, 0x1000, 0x8000, 0x10000, 0x80000000u, 0x3 | 0x20};

	for (size_t i = 0; i < sizeof(bad_flags) / sizeof(bad_flags[0]); i++)
		send_invalid(d, upd(0, 0, 8, 8, G, F, A, bad_flags[i]), EINVAL, "unknown flag");
	send_invalid(
		d, upd(0, 0, 8, 8, G, F, A, EPDC_FLAG_USE_ALT_BUFFER), EPERM, "USE_ALT_BUFFER");
	send_invalid(d,
		upd(0, 0, 8, 8, G, F, A, EPDC_FLAG_USE_ALT_BUFFER | EPDC_FLAG_ENABLE_INVERSION),
		EPERM, "USE_ALT_BUFFER | ENABLE_INVERSION");

	epd_phase("SEND_UPDATE: temperatures");
	static const int bad_temp[] = {51, -1, 100, 0x1001, 0xfff, INT_MIN, INT_MAX};

	for (size_t i = 0; i < sizeof(bad_temp) / sizeof(bad_temp[0]); i++)
		send_invalid(d, upd(0, 0, 8, 8, G, F, bad_temp[i], 0), EINVAL, "bad temperature");

	epd_phase("SEND_UPDATE: valid edge cases");
	long long submitted = epd_stat(d, "updates_submitted");
	uint8_t *panel = epd_alloc_image(d);

	/* the whole panel at 0 C, the fb unchanged: nothing changes */
	CHECK_RC(epd_update(d, 0, 0, W, H, WAVEFORM_MODE_GC16, UPDATE_MODE_PARTIAL, 78, 0, 0), 0);
	/* the bottom right pixel at 50 C, white inverted and monochrome: black */
	CHECK_RC(epd_update(d, W - 1, H - 1, 1, 1, WAVEFORM_MODE_GC16, UPDATE_MODE_PARTIAL, 79, 50,
			 EPDC_FLAG_ENABLE_INVERSION | EPDC_FLAG_FORCE_MONOCHROME),
		0);
	CHECK_RC(epd_wait(d, 78, NULL), 0);
	CHECK_RC(epd_wait(d, 79, NULL), 0);
	epd_read_panel(d, panel);
	CHECK_MSG(panel[(size_t)H * W - 1] < 128,
		"inverted white at the corner shows %u, expected black", panel[(size_t)H * W - 1]);
	panel[(size_t)H * W - 1] = 255;
	CHECK_IMAGE(d, panel, d->model, "after the edge cases");
	free(panel);
	epd_show(d, W - 1, H - 1, 1, 1, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 80);
	still_works(d, submitted + 3, "valid edge cases");
}

static void
ioctl_invalid(struct epd *d, unsigned long cmd, void *arg, int err, const char *what)
{
	long long submitted = epd_stat(d, "updates_submitted");

	printf("%s\n", what);
	if (!CHECK_ERR(ioctl(d->fd, cmd, arg), err))
		printf("    (%s)\n", what);
	still_works(d, submitted, what);
}

static void
phase_settings(struct epd *d, void *noaccess, void *kernel)
{
	__s32 v;
	__u32 u;
	struct mxcfb_waveform_modes modes, good = {
						   .mode_init = WAVEFORM_MODE_INIT,
						   .mode_du = WAVEFORM_MODE_DU,
						   .mode_gc4 = WAVEFORM_MODE_GC4,
						   .mode_gc8 = WAVEFORM_MODE_GC16,
						   .mode_gc16 = WAVEFORM_MODE_GC16,
						   .mode_gc32 = WAVEFORM_MODE_GC16,
					   };
	struct epdfb_waveform_info info;

	epd_phase("MXCFB_SET_TEMPERATURE");
	REQUIRE_RC(epd_set_temp(d, 30), 0);
	static const int bad_temp[] = {51, -1, 1000, INT_MIN, INT_MAX};

	for (size_t i = 0; i < sizeof(bad_temp) / sizeof(bad_temp[0]); i++) {
		v = bad_temp[i];
		ioctl_invalid(d, MXCFB_SET_TEMPERATURE, &v, EINVAL, "SET_TEMPERATURE out of range");
		CHECK_EQ(epd_stat(d, "temperature"), 30);
	}
	REQUIRE_RC(epd_set_temp(d, 25), 0);

	epd_phase("MXCFB_SET_AUTO_UPDATE_MODE");
	u = 2;
	ioctl_invalid(d, MXCFB_SET_AUTO_UPDATE_MODE, &u, EINVAL, "SET_AUTO_UPDATE_MODE 2");
	u = 0xffffffffu;
	ioctl_invalid(d, MXCFB_SET_AUTO_UPDATE_MODE, &u, EINVAL, "SET_AUTO_UPDATE_MODE ~0");
	/* still REGION mode: written pixels are not shown by deferred IO */
	long long submitted = epd_stat(d, "updates_submitted");

	epd_fill(d, 0, 0, W, 20, 0);
	REQUIRE_OK(fsync(d->fd));
	CHECK_RC(epd_wait_idle(d), 0);
	CHECK_EQ(epd_stat(d, "updates_submitted"), submitted);
	epd_fill(d, 0, 0, W, 20, 255);

	epd_phase("MXCFB_SET_UPDATE_SCHEME");
	u = 3;
	ioctl_invalid(d, MXCFB_SET_UPDATE_SCHEME, &u, EINVAL, "SET_UPDATE_SCHEME 3");
	u = 0xffffffffu;
	ioctl_invalid(d, MXCFB_SET_UPDATE_SCHEME, &u, EINVAL, "SET_UPDATE_SCHEME ~0");
	for (u = 0; u <= 2; u++)
		CHECK_RC(epd_set_scheme(d, u), 0);

	epd_phase("MXCFB_SET/GET_PWRDOWN_DELAY");
	static const int good_delay[] = {FB_POWERDOWN_DISABLE, 0, 1, 1000, INT_MAX};

	for (size_t i = 0; i < sizeof(good_delay) / sizeof(good_delay[0]); i++) {
		v = good_delay[i];
		CHECK_OK(ioctl(d->fd, MXCFB_SET_PWRDOWN_DELAY, &v));
		v = 12345;
		CHECK_OK(ioctl(d->fd, MXCFB_GET_PWRDOWN_DELAY, &v));
		CHECK_EQ(v, good_delay[i]);
	}
	v = 1000;
	REQUIRE_OK(ioctl(d->fd, MXCFB_SET_PWRDOWN_DELAY, &v));
	static const int bad_delay[] = {-2, -1000, INT_MIN};

	for (size_t i = 0; i < sizeof(bad_delay) / sizeof(bad_delay[0]); i++) {
		v = bad_delay[i];
		ioctl_invalid(d, MXCFB_SET_PWRDOWN_DELAY, &v, EINVAL, "SET_PWRDOWN_DELAY negative");
		v = 12345;
		CHECK_OK(ioctl(d->fd, MXCFB_GET_PWRDOWN_DELAY, &v));
		CHECK_EQ(v, 1000);
	}

	epd_phase("MXCFB_SET_WAVEFORM_MODES");
	CHECK_OK(ioctl(d->fd, MXCFB_SET_WAVEFORM_MODES, &good));
	static const int bad_id[] = {8, -1, 1000, WAVEFORM_MODE_AUTO};

	for (int field = 0; field < 6; field++) {
		for (size_t i = 0; i < sizeof(bad_id) / sizeof(bad_id[0]); i++) {
			modes = good;
			((int *)&modes)[field] = bad_id[i];
			ioctl_invalid(d, MXCFB_SET_WAVEFORM_MODES, &modes, EINVAL,
				"SET_WAVEFORM_MODES with an unknown waveform");
		}
	}
	/* the modes are unchanged: AUTO on black/white still resolves to DU */
	{
		struct epd_trace *t;
		size_t n;

		epd_trace_clear(d);
		epd_fill(d, 0, 0, 16, 16, 0);
		REQUIRE_RC(epd_update(d, 0, 0, 16, 16, WAVEFORM_MODE_AUTO, UPDATE_MODE_FULL, 90,
				   TEMP_USE_AMBIENT, 0),
			0);
		CHECK_RC(epd_wait(d, 90, NULL), 0);
		n = epd_trace_read(d, &t);
		if (CHECK_EQ(n, 1))
			CHECK_MSG(
				!strcmp(t[0].waveform, "DU"), "AUTO resolved to %s", t[0].waveform);
		free(t);
		epd_fill(d, 0, 0, 16, 16, 255);
		epd_show(d, 0, 0, 16, 16, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 91);
	}

	epd_phase("EPDFB_GET_WAVEFORM");
	memset(&info, 0, sizeof(info));
	info.index = 6;
	ioctl_invalid(d, EPDFB_GET_WAVEFORM, &info, EINVAL, "GET_WAVEFORM index 6");
	info.index = 0xffffffffu;
	ioctl_invalid(d, EPDFB_GET_WAVEFORM, &info, EINVAL, "GET_WAVEFORM index ~0");

	epd_phase("bad pointers: EFAULT");
	static const struct {
		unsigned long cmd;
		const char *name;
	} ptr_cmds[] = {
		{MXCFB_SET_WAVEFORM_MODES, "SET_WAVEFORM_MODES"},
		{MXCFB_SET_TEMPERATURE, "SET_TEMPERATURE"},
		{MXCFB_SET_AUTO_UPDATE_MODE, "SET_AUTO_UPDATE_MODE"},
		{MXCFB_SEND_UPDATE, "SEND_UPDATE"},
		{MXCFB_WAIT_FOR_UPDATE_COMPLETE, "WAIT_FOR_UPDATE_COMPLETE"},
		{MXCFB_SET_PWRDOWN_DELAY, "SET_PWRDOWN_DELAY"},
		{MXCFB_GET_PWRDOWN_DELAY, "GET_PWRDOWN_DELAY"},
		{MXCFB_SET_UPDATE_SCHEME, "SET_UPDATE_SCHEME"},
		{EPDFB_GET_WAVEFORM, "EPDFB_GET_WAVEFORM"},
	};
	void *bad_ptrs[] = {NULL, noaccess, kernel};
	size_t n_bad = kernel ? 3 : 2;

	for (size_t i = 0; i < sizeof(ptr_cmds) / sizeof(ptr_cmds[0]); i++) {
		for (size_t j = 0; j < n_bad; j++) {
			char what[96];

			snprintf(what, sizeof(what), "%s with pointer %p", ptr_cmds[i].name,
				bad_ptrs[j]);
			ioctl_invalid(d, ptr_cmds[i].cmd, bad_ptrs[j], EFAULT, what);
		}
	}

	epd_phase("unknown ioctl commands: ENOTTY");
	ioctl_invalid(d, _IOW('F', 0x81, int), &u, ENOTTY, "_IOW('F', 0x81, int)");
	ioctl_invalid(d, _IO('E', 0x42), NULL, ENOTTY, "_IO('E', 0x42)");
	/* the driver's numbers with a wrong size or direction */
	ioctl_invalid(d, _IOW('F', 0x2E, int), &u, ENOTTY, "SEND_UPDATE with a wrong size");
	ioctl_invalid(d, _IOR('F', 0x2C, __s32), &u, ENOTTY, "SET_TEMPERATURE as _IOR");
	ioctl_invalid(d, _IOWR('F', 0x80, int), &u, ENOTTY, "GET_WAVEFORM with a wrong size");
}

/* ---- fuzzing ---- */

static void
phase_fuzz(struct epd *d, uint8_t *guard_end, void *noaccess, void *kernel, void *readonly)
{
	static uint8_t buf[512] __attribute__((aligned(8)));
	unsigned long counts[8] = {0};
	unsigned int unexpected = 0;
	uint64_t t0 = epd_now_ns();

	epd_phase("%d random ioctl calls", FUZZ_CALLS);
	epd_seed_from_env();
	for (int i = 0; i < FUZZ_CALLS; i++) {
		unsigned long cmd = epd_random_cmd();
		void *arg;
		uint32_t how = epd_rand_below(100);
		size_t size = _IOC_SIZE(cmd) ? _IOC_SIZE(cmd) : 8;

		if (how < 55) {
			epd_random_bytes(buf, sizeof(buf));
			arg = buf;
		} else if (how < 80) {
			epd_random_bytes(buf, sizeof(buf));
			epd_random_arg(d, cmd, buf);
			arg = buf;
		} else if (how < 84) {
			arg = NULL;
		} else if (how < 88) {
			arg = noaccess;
		} else if (how < 91) {
			arg = kernel ? kernel : noaccess;
		} else if (how < 95) {
			/* the argument ends past the last mapped byte */
			size_t back = 1 + epd_rand_below((uint32_t)(size < 4096 ? size : 4096));

			epd_random_bytes(guard_end - back, back);
			arg = guard_end - back;
		} else if (how < 98) {
			arg = readonly;
		} else {
			arg = (void *)(uintptr_t)epd_rand();
		}
		errno = 0;
		int rc = ioctl(d->fd, cmd, arg);
		int err = errno;

		if (rc == 0) {
			counts[0]++;
			continue;
		}
		switch (err) {
		case EINVAL:
			counts[1]++;
			continue;
		case EFAULT:
			counts[2]++;
			continue;
		case ENOTTY:
			counts[3]++;
			continue;
		case EPERM:
			counts[4]++;
			continue;
		case ETIMEDOUT:
			counts[5]++;
			continue;
		case ENODEV:
			/* FBIO_WAITFORVSYNC may refuse a crtc other than 0 */
			if (cmd == FBIO_WAITFORVSYNC) {
				counts[6]++;
				continue;
			}
			break;
		default:
			break;
		}
		if (unexpected++ < 20)
			epd_fail(__FILE__, __LINE__,
				"call %d: ioctl(0x%08lx, %p) returned %d, errno %s", i, cmd, arg,
				rc, epd_errname(err));
	}
	printf("%d calls in %.1f s: %lu ok, %lu EINVAL, %lu EFAULT, %lu ENOTTY, %lu EPERM, "
	       "%lu ETIMEDOUT, %lu ENODEV (WAITFORVSYNC), %u other\n",
		FUZZ_CALLS, epd_ms_since(t0) / 1000, counts[0], counts[1], counts[2], counts[3],
		counts[4], counts[5], counts[6], unexpected);
	CHECK_EQ(unexpected, 0);
	/* the calls reached the driver's code paths, not only its argument checks */
	CHECK_GT(counts[0], 100);
	CHECK_GT(counts[1], 100);
	CHECK_GT(counts[2], 100);
}

static void
phase_after_fuzz(struct epd *d)
{
	struct mxcfb_waveform_modes good = {
		.mode_init = WAVEFORM_MODE_INIT,
		.mode_du = WAVEFORM_MODE_DU,
		.mode_gc4 = WAVEFORM_MODE_GC4,
		.mode_gc8 = WAVEFORM_MODE_GC16,
		.mode_gc16 = WAVEFORM_MODE_GC16,
		.mode_gc32 = WAVEFORM_MODE_GC16,
	};
	__s32 delay = 1000;
	struct epd_trace *t;
	size_t n;

	epd_phase("after fuzzing: reset the settings, the driver still works");
	REQUIRE_RC(epd_set_scheme(d, UPDATE_SCHEME_QUEUE_AND_MERGE), 0);
	REQUIRE_RC(epd_set_auto_mode(d, AUTO_UPDATE_MODE_REGION_MODE), 0);
	REQUIRE_RC(epd_set_temp(d, 25), 0);
	REQUIRE_OK(ioctl(d->fd, MXCFB_SET_WAVEFORM_MODES, &good));
	REQUIRE_OK(ioctl(d->fd, MXCFB_SET_PWRDOWN_DELAY, &delay));
	REQUIRE_RC(epd_wait_idle(d), 0);
	CHECK_EQ(epd_stat(d, "in_flight"), 0);
	CHECK_EQ(epd_stat(d, "queued"), 0);
	CHECK_EQ(epd_stat(d, "updates_completed") + epd_stat(d, "updates_merged") +
			 epd_stat(d, "updates_cancelled"),
		epd_stat(d, "updates_submitted"));

	epd_clear(d);
	epd_trace_clear(d);
	for (uint32_t y = 40; y < 200; y++)
		for (uint32_t x = 40; x < 360; x++)
			epd_put(d, x, y, (uint8_t)(x ^ y));
	epd_show(d, 40, 40, 320, 160, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 5000);
	epd_model_apply(d, 40, 40, 320, 160, 16);
	CHECK_PANEL_MODEL(d, "GC16 update after fuzzing");
	n = epd_trace_read(d, &t);
	if (CHECK_EQ(n, 1)) {
		epd_trace_print(&t[0]);
		CHECK_EQ(t[0].marker, 5000);
		CHECK_MSG(!strcmp(t[0].waveform, "GC16"), "waveform %s", t[0].waveform);
		CHECK_GE(t[0].end_ns - t[0].start_ns, 45 * 1000000ULL);
	}
	free(t);
}

int
main(void)
{
	struct epd *d = &dev;
	long page = sysconf(_SC_PAGESIZE);

	epd_begin("invalid_input", 300);
	/* two pages, the second inaccessible (but reserved); a read-only page */
	uint8_t *pages =
		mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	REQUIRE(pages != MAP_FAILED);
	REQUIRE_OK(mprotect(pages + page, page, PROT_NONE));
	void *readonly = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	REQUIRE(readonly != MAP_FAILED);
	void *noaccess = pages + page;
#if UINTPTR_MAX > 0xffffffffu
	/* x86-64's kernel text mapping, where the kernel lies, KASLR or not */
	void *kernel = (void *)(uintptr_t)0xffffffff81000000ULL;
#else
	/*
	 * A 32-bit process's pointers are zero-extended to user addresses: it
	 * cannot name kernel memory at all, so it has no such case.
	 */
	void *kernel = NULL;

	printf("note: a 32-bit pointer cannot point into the kernel: those cases are "
	       "skipped\n");
#endif

	epd_phase("load");
	epd_open(d, "width=400 height=300 bpp=8 time_scale=10 auto_update=0");
	REQUIRE_EQ(d->width, W);
	REQUIRE_EQ(d->height, H);
	epd_clear(d);

	phase_send_update(d);
	phase_settings(d, noaccess, kernel);
	phase_fuzz(d, pages + page, noaccess, kernel, readonly);
	phase_after_fuzz(d);

	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
