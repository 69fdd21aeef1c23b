/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers of the epdfb kernel tests: module loading, device
 * discovery, debugfs readback (panel, stats, update trace), assertions and
 * time.
 *
 * Every test program is started by tools/vmtest inside a VM, as root, with
 * EPDFB_KO set to the path of epdfb.ko. It loads the module itself with
 * epd_open(), which also finds the framebuffer and maps it.
 */
#ifndef EPD_TEST_H
#define EPD_TEST_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <epdfb.h>
#include <linux/fb.h>

#define EPD_DEV_NAME    "epdfb.0"
#define EPD_UNBIND_PATH "/sys/bus/platform/drivers/epdfb/unbind"

/* Slack allowed on top of a waveform's duration under TCG emulation. */
#define EPD_SLACK_MS 2000

/* Base durations at 25 degrees C, time_scale 100, indexed by waveform id. */
extern const uint32_t epd_base_ms[6];
extern const char *const epd_wf_names[6];

struct epd {
	int fd;
	int fbnum;
	char devnode[64];
	char dbgdir[128];
	uint32_t width;
	uint32_t height;
	uint32_t bpp;
	uint32_t line_length;
	size_t map_len;
	uint8_t *map;
	/* gray image the panel should show, maintained by the test */
	uint8_t *model;
	/*
	 * An emulated IT8951 board's state directory (tests/it8951/usb-board),
	 * empty for the drivers: the panel, its updates, its counters and its
	 * settling then come through the board's control socket instead of
	 * debugfs.
	 */
	char board[80];
};

/* Size of dbgdir/NAME: the directory, a slash, a file name and the NUL. */
#define EPD_DBG_PATH_SIZE (sizeof(((struct epd *)0)->dbgdir) + 1 + NAME_MAX)

struct epd_trace {
	uint32_t marker;
	uint64_t submit_ns;
	uint64_t start_ns;
	uint64_t end_ns;
	uint32_t left;
	uint32_t top;
	uint32_t width;
	uint32_t height;
	char waveform[16];
	char mode[16];
	uint32_t flags;
	uint32_t merged;
	uint32_t collided;
	uint32_t flash;
};

/* ---- test life cycle and assertions ---- */

extern int epd_failures;

/* Starts the test: name for messages, a watchdog of timeout_s seconds. */
void epd_begin(const char *name, unsigned int timeout_s);
/* Ends the test: checks the kernel log, prints PASS/FAIL, returns the exit code. */
int epd_end(void);
/* Names the current phase; printed with failures and by the watchdog. */
void epd_phase(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void epd_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prints the failure and exits with status 1. */
void epd_fatal(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

bool epd_check_int(const char *file, int line, const char *a_str, const char *b_str, long long a,
	long long b, const char *op);
bool epd_check_ret(
	const char *file, int line, const char *expr, long ret, int err, int expected_errno);
bool epd_check_rc(const char *file, int line, const char *expr, long rc, long expected);
/* Name of an errno value ("EINVAL"), or its number. */
const char *epd_errname(int err);

/* CHECK*: record a failure and go on; they evaluate to true on success. */
#define CHECK(cond) \
	((cond) ? true : (epd_fail(__FILE__, __LINE__, "CHECK(%s) failed", #cond), false))
#define CHECK_MSG(cond, ...) ((cond) ? true : (epd_fail(__FILE__, __LINE__, __VA_ARGS__), false))
#define CHECK_OP(a, op, b) \
	epd_check_int(__FILE__, __LINE__, #a, #b, (long long)(a), (long long)(b), #op)
#define CHECK_EQ(a, b) CHECK_OP(a, ==, b)
#define CHECK_NE(a, b) CHECK_OP(a, !=, b)
#define CHECK_GE(a, b) CHECK_OP(a, >=, b)
#define CHECK_GT(a, b) CHECK_OP(a, >, b)
#define CHECK_LE(a, b) CHECK_OP(a, <=, b)
#define CHECK_LT(a, b) CHECK_OP(a, <, b)
/* The call returned 0. */
#define CHECK_OK(expr)                                                  \
	({                                                              \
		long _r = (long)(expr);                                 \
		epd_check_ret(__FILE__, __LINE__, #expr, _r, errno, 0); \
	})
/* The call returned -1 with errno set to err. */
#define CHECK_ERR(expr, err)                                              \
	({                                                                \
		long _r = (long)(expr);                                   \
		epd_check_ret(__FILE__, __LINE__, #expr, _r, errno, err); \
	})
/* The helper returning 0 or -errno returned want (0, -EINVAL, ...). */
#define CHECK_RC(expr, want) epd_check_rc(__FILE__, __LINE__, #expr, (long)(expr), (long)(want))
/* REQUIRE*: as CHECK*, but a failure ends the test. */
#define REQUIRE(cond)                                                  \
	do {                                                           \
		if (!CHECK(cond))                                      \
			epd_fatal(__FILE__, __LINE__, "cannot go on"); \
	} while (0)
#define REQUIRE_MSG(cond, ...)                                      \
	do {                                                        \
		if (!(cond))                                        \
			epd_fatal(__FILE__, __LINE__, __VA_ARGS__); \
	} while (0)
#define REQUIRE_EQ(a, b)                                               \
	do {                                                           \
		if (!CHECK_EQ(a, b))                                   \
			epd_fatal(__FILE__, __LINE__, "cannot go on"); \
	} while (0)
#define REQUIRE_RC(expr, want)                                         \
	do {                                                           \
		if (!CHECK_RC(expr, want))                             \
			epd_fatal(__FILE__, __LINE__, "cannot go on"); \
	} while (0)
#define REQUIRE_OK(expr)                                               \
	do {                                                           \
		if (!CHECK_OK(expr))                                   \
			epd_fatal(__FILE__, __LINE__, "cannot go on"); \
	} while (0)

/* ---- time and randomness ---- */

uint64_t epd_now_ns(void);
double epd_ms_since(uint64_t t0_ns);
void epd_sleep_ms(unsigned int ms);
/* xorshift64*; seeded by epd_seed(), which prints the seed */
uint64_t epd_rand(void);
uint32_t epd_rand_below(uint32_t n);
void epd_seed(uint64_t seed);
/* Seed from EPD_SEED in the environment, else from the clock; printed. */
uint64_t epd_seed_from_env(void);

/* ---- module and device ---- */

/* rmmod epdfb (a missing module is fine), then insmod $EPDFB_KO params. */
void epd_load(const char *params);
/*
 * Loads epdpanel.ko, the panel model both drivers need, from $EPDFB_KO's
 * directory unless it is loaded; fails the test if it cannot.
 */
void epd_load_panel_model(void);
/*
 * Loads the module file ko with params (finit_module), after the panel
 * model; fails the test if it cannot.
 */
void epd_insmod(const char *ko, const char *params);
/* delete_module("epdfb"): 0 or -errno. */
int epd_try_unload(void);
bool epd_module_loaded(void);
/* Finds the epdfb framebuffer: its index, or -1 when there is none. */
int epd_find_fb(void);
/*
 * Loads the module with params, finds and opens the framebuffer, reads its
 * geometry and maps it. The model is set to all white.
 */
void epd_open(struct epd *d, const char *params);
/* Finds, opens and maps an already loaded device. */
void epd_attach(struct epd *d);
/* Unmaps and closes (keeps the module loaded). */
void epd_close(struct epd *d);
/* Writes EPD_DEV_NAME to the driver's unbind file: 0 or -errno. */
int epd_unbind(void);

/* ---- framebuffer access (8 bpp gray unless noted) ---- */

void epd_put(struct epd *d, uint32_t x, uint32_t y, uint8_t v);
uint8_t epd_get(const struct epd *d, uint32_t x, uint32_t y);
void epd_fill(struct epd *d, uint32_t left, uint32_t top, uint32_t w, uint32_t h, uint8_t v);
/* 32 bpp */
void epd_put_xrgb(struct epd *d, uint32_t x, uint32_t y, uint32_t xrgb);
uint8_t epd_luma(uint32_t xrgb);
/* Gray value of a framebuffer pixel in either format (luma for 32 bpp). */
uint8_t epd_fb_gray(const struct epd *d, uint32_t x, uint32_t y);
/* Sets the model rect to the framebuffer's gray values quantized to levels. */
void epd_model_apply(
	struct epd *d, uint32_t left, uint32_t top, uint32_t w, uint32_t h, unsigned int levels);
/* Runs pending deferred IO now and waits until the panel is idle. */
void epd_settle(struct epd *d);
/*
 * Fills the framebuffer white and shows it with a flashing GC16 FULL update
 * of the whole panel (marker 0xfffffff0), so the panel is white and free of
 * ghosts; sets the model to white. Returns once the panel is idle: nothing
 * of it is left to show up in a trace read later.
 */
void epd_clear(struct epd *d);

/* ---- gray levels ---- */

uint8_t epd_quant(uint8_t v, unsigned int levels);
unsigned int epd_wf_levels(uint32_t waveform);
/* Scaled duration of a waveform at temp, as the driver computes it. */
uint32_t epd_duration_ms(uint32_t waveform, int temp, uint32_t time_scale);

/* ---- ioctls ---- */

/* MXCFB_SEND_UPDATE: 0 or -errno. */
int epd_update(struct epd *d, uint32_t left, uint32_t top, uint32_t w, uint32_t h,
	uint32_t waveform, uint32_t mode, uint32_t marker, int temp, uint32_t flags);
/* MXCFB_WAIT_FOR_UPDATE_COMPLETE: 0 or -errno; collision may be NULL. */
int epd_wait(struct epd *d, uint32_t marker, uint32_t *collision);
/* FBIO_WAITFORVSYNC (the updates submitted before the call complete): 0 or -errno. */
int epd_wait_idle(struct epd *d);
int epd_set_temp(struct epd *d, int temp);
int epd_set_scheme(struct epd *d, uint32_t scheme);
int epd_set_auto_mode(struct epd *d, uint32_t mode);
int epd_get_waveform(struct epd *d, uint32_t index, struct epdfb_waveform_info *info);
/* Submits an update and waits for its marker, failing the test on errors. */
void epd_show(struct epd *d, uint32_t left, uint32_t top, uint32_t w, uint32_t h, uint32_t waveform,
	uint32_t mode, uint32_t marker);

/* ---- debugfs ---- */

/* Reads the panel PGM into buf (width * height bytes); fatal on errors. */
void epd_read_panel(struct epd *d, uint8_t *buf);
/* Reads a width x height 8-bit PGM file into buf; fatal on errors. */
void epd_read_pgm(const char *path, uint32_t width, uint32_t height, uint8_t *buf);
/* A named stats value; fatal when missing. */
long long epd_stat(struct epd *d, const char *key);
double epd_stat_f(struct epd *d, const char *key);
void epd_stat_str(struct epd *d, const char *key, char *buf, size_t len);
/* epd_settle(), then zeroes the counters. */
void epd_stats_reset(struct epd *d);
/*
 * The whole stats file as one malloc'ed text: the driver prints it under its
 * lock, so counters taken from one snapshot are consistent with each other.
 */
char *epd_stats_snapshot(struct epd *d);
long long epd_snapshot_stat(const char *snapshot, const char *key);
/* Reads the update trace; returns the entry count, *out is malloc'ed. */
size_t epd_trace_read(struct epd *d, struct epd_trace **out);
/* The same from a file in the trace's format (vellum --record's updates.txt). */
size_t epd_trace_read_file(const char *path, struct epd_trace **out);
void epd_trace_clear(struct epd *d);
void epd_trace_print(const struct epd_trace *t);
/* Reads a whole file into a malloc'ed NUL-terminated buffer; NULL on errors. */
char *epd_read_file(const char *path, size_t *len);
/* The emulated board's answer to a command of its control socket; fails the test on an error. */
char *epd_board_query(const struct epd *d, const char *command, size_t *len);
int epd_write_file(const char *path, const char *text);
/* Runs a shell command, its output in out: its exit status, or -1. */
int epd_run_command(const char *command, char *out, size_t size);
/* How many of this process's threads have the name (their comm). */
unsigned int epd_threads_named(const char *name);
/*
 * Calls visit with the id of each thread of this process until it returns
 * false; false when the threads cannot be listed.
 */
bool epd_for_each_thread(bool (*visit)(const char *tid, void *data), void *data);
/* A file of a thread's /proc/self/task/TID directory, or NULL; free() it. */
char *epd_read_thread_file(const char *tid, const char *file);
/* Makes the next count faults of a kind happen (knob: an inject_* file of debugfs). */
void epd_inject(struct epd *d, const char *knob, unsigned int count);
/* Faults of a kind still to come, as the knob reads back. */
long epd_injected_left(struct epd *d, const char *knob);

/* ---- image comparison ---- */

/*
 * Compares a rect of the panel (width * height bytes) with the expected image
 * (same layout); prints up to a few mismatches. Returns true when all match.
 */
bool epd_compare(const char *file, int line, const struct epd *d, const uint8_t *panel,
	const uint8_t *expect, uint32_t left, uint32_t top, uint32_t w, uint32_t h,
	const char *what);
#define CHECK_IMAGE(d, panel, expect, what) \
	epd_compare(__FILE__, __LINE__, d, panel, expect, 0, 0, (d)->width, (d)->height, what)
#define CHECK_IMAGE_RECT(d, panel, expect, l, t, w, h, what) \
	epd_compare(__FILE__, __LINE__, d, panel, expect, l, t, w, h, what)
/*
 * Compares a rect of the panel with a non-flashing update's result: where
 * before == after the panel must show after exactly; elsewhere a ghost may
 * push the pixel toward before, but it must lie between after and before and
 * its nearest level (of levels) must be after. Returns true when all match;
 * *ghosted (may be NULL) gets the count of pixels that differ from after.
 */
bool epd_compare_ghost(const char *file, int line, const struct epd *d, const uint8_t *panel,
	const uint8_t *before, const uint8_t *after, unsigned int levels, uint32_t left,
	uint32_t top, uint32_t w, uint32_t h, const char *what, size_t *ghosted);
#define CHECK_GHOSTED_RECT(d, panel, before, after, levels, l, t, w, h, what, ghosted) \
	epd_compare_ghost(                                                             \
		__FILE__, __LINE__, d, panel, before, after, levels, l, t, w, h, what, ghosted)
/* Reads the panel and compares it with d->model. */
#define CHECK_PANEL_MODEL(d, what)                               \
	({                                                       \
		uint8_t *_p = epd_alloc_image(d);                \
		epd_read_panel(d, _p);                           \
		bool _ok = CHECK_IMAGE(d, _p, (d)->model, what); \
		free(_p);                                        \
		_ok;                                             \
	})
uint8_t *epd_alloc_image(const struct epd *d);

/* ---- threads ---- */

/* The calling thread's id (gettid). */
int epd_gettid(void);
/*
 * Waits up to timeout_ms for thread tid of this process to sleep inside an
 * ioctl(2) call (from /proc/self/task/TID/syscall); true once it does.
 */
bool epd_thread_in_ioctl(int tid, unsigned int timeout_ms);

/* ---- workqueue tracing ---- */

/*
 * Mounts tracefs if needed, clears the trace and enables the
 * workqueue_execute_start event: false when it is not available.
 */
bool epd_wq_trace_start(void);
void epd_wq_trace_clear(void);
void epd_wq_trace_stop(void);
/* Work items of the driver (functions epdfb_*) run since the last clear. */
int epd_wq_driver_runs(void);

/* ---- stats added over time ---- */

/* A stats value of a snapshot, or fallback when it has no such line. */
long long epd_snapshot_stat_or(const char *snapshot, const char *key, long long fallback);

/* ---- update trace: durations and lookups ---- */

/*
 * The trace's start and end times come from the driver's clock, not from a
 * test's view of it, so they hold on a loaded machine: an update is driven
 * for at least its waveform's duration, and longer only by a late timer.
 * True when dur_ms <= end - start <= dur_ms + dur_ms / 4 + 20 ms.
 */
bool epd_check_trace_duration(
	const char *file, int line, const struct epd_trace *e, uint32_t dur_ms, const char *what);
#define CHECK_TRACE_DURATION(e, dur_ms, what) \
	epd_check_trace_duration(__FILE__, __LINE__, e, dur_ms, what)
/* The trace entry carrying marker (first of n), or NULL. */
struct epd_trace *epd_trace_find(struct epd_trace *t, size_t n, uint32_t marker);

#endif /* EPD_TEST_H */
