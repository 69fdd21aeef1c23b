// SPDX-License-Identifier: MIT
/*
 * Shared helpers of the epdfb kernel tests.
 */
#include "epd_test.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const uint32_t epd_base_ms[6] = {2000, 260, 450, 290, 120, 450};
const char *const epd_wf_names[6] = {"INIT", "DU", "GC16", "GC4", "A2", "GL16"};

int epd_failures;

static const char *test_name = "?";
static char phase[256] = "start";
static int kmsg_fd = -1;
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

/* ---- test life cycle and assertions ---- */

/* Where each thread of the test is, for a test that hangs: in the kernel or not. */
bool
epd_for_each_thread(bool (*visit)(const char *tid, void *data), void *data)
{
	DIR *tasks = opendir("/proc/self/task");
	struct dirent *ent;

	if (!tasks)
		return false;
	while ((ent = readdir(tasks))) {
		if (ent->d_name[0] != '.' && !visit(ent->d_name, data))
			break;
	}
	closedir(tasks);
	return true;
}

char *
epd_read_thread_file(const char *tid, const char *file)
{
	char path[320];

	snprintf(path, sizeof(path), "/proc/self/task/%s/%s", tid, file);
	return epd_read_file(path, NULL);
}

static bool
print_thread_stack(const char *tid, void *data)
{
	(void)data;
	char *stack = epd_read_thread_file(tid, "stack");
	char *wchan = epd_read_thread_file(tid, "wchan");

	printf("thread %s waits in %s; its kernel stack:\n%s", tid,
		wchan && *wchan ? wchan : "(nothing)", stack ? stack : "(unreadable)\n");
	free(stack);
	free(wchan);
	return true;
}

static void *
watchdog_main(void *arg)
{
	unsigned int timeout_s = (unsigned int)(uintptr_t)arg;

	sleep(timeout_s);
	printf("FAIL %s: watchdog: still running after %u s (phase: %s)\n", test_name, timeout_s,
		phase);
	epd_for_each_thread(print_thread_stack, NULL);
	fflush(stdout);
	_exit(1);
	return NULL;
}

void
epd_begin(const char *name, unsigned int timeout_s)
{
	pthread_t thread;

	setvbuf(stdout, NULL, _IOLBF, 0);
	setvbuf(stderr, NULL, _IONBF, 0);
	test_name = name;
	printf("=== %s\n", name);

	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
	else
		printf("note: /dev/kmsg: %s; kernel log not checked\n", strerror(errno));

	if (pthread_create(&thread, NULL, watchdog_main, (void *)(uintptr_t)timeout_s) == 0)
		pthread_detach(thread);
}

/* Kernel log lines that mean the kernel (or the driver) went wrong. */
static const char *const kmsg_bad[] = {
	"BUG:",
	"WARNING:",
	"Oops",
	"general protection",
	"UBSAN:",
	"KASAN:",
	"kernel BUG",
	"Call Trace:",
	"list_add corruption",
	"list_del corruption",
	"refcount_t:",
	"INFO: task",
	"lockdep",
	"possible circular locking",
};

static void
check_kmsg(void)
{
	char rec[8192];
	ssize_t n;
	unsigned int bad = 0;

	if (kmsg_fd < 0)
		return;
	for (;;) {
		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue; /* overwritten records */
		if (n <= 0)
			break;
		rec[n] = '\0';
		char *msg = strchr(rec, ';');

		msg = msg ? msg + 1 : rec;
		for (size_t i = 0; i < sizeof(kmsg_bad) / sizeof(kmsg_bad[0]); i++) {
			if (strstr(msg, kmsg_bad[i])) {
				if (bad++ < 20)
					printf("kernel log: %s", msg);
				break;
			}
		}
	}
	if (bad) {
		printf("FAIL [kernel log]: %u kernel log record(s) report a bug or warning\n", bad);
		epd_failures++;
	}
}

int
epd_end(void)
{
	check_kmsg();
	if (epd_failures) {
		printf("FAIL %s: %d assertion(s) failed\n", test_name, epd_failures);
		return 1;
	}
	printf("PASS %s\n", test_name);
	return 0;
}

void
epd_phase(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(phase, sizeof(phase), fmt, ap);
	va_end(ap);
	printf("--- %s\n", phase);
}

static void
vfail(const char *file, int line, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	printf("%s:%d: FAIL [%s] %s\n", file, line, phase, msg);
	fflush(stdout);
	epd_failures++;
}

void
epd_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(file, line, fmt, ap);
	va_end(ap);
}

void
epd_fatal(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(file, line, fmt, ap);
	va_end(ap);
	check_kmsg();
	printf("FAIL %s: stopped after a fatal failure (%d assertion(s) failed)\n", test_name,
		epd_failures);
	fflush(stdout);
	exit(1);
}

bool
epd_check_int(const char *file, int line, const char *a_str, const char *b_str, long long a,
	long long b, const char *op)
{
	bool ok;

	if (!strcmp(op, "=="))
		ok = a == b;
	else if (!strcmp(op, "!="))
		ok = a != b;
	else if (!strcmp(op, ">="))
		ok = a >= b;
	else if (!strcmp(op, ">"))
		ok = a > b;
	else if (!strcmp(op, "<="))
		ok = a <= b;
	else
		ok = a < b;
	if (!ok)
		epd_fail(file, line, "expected %s %s %s, got %lld vs %lld", a_str, op, b_str, a, b);
	return ok;
}

const char *
epd_errname(int err)
{
	static __thread char buf[32];

	switch (err) {
	case 0:
		return "0";
	case EPERM:
		return "EPERM";
	case ENOENT:
		return "ENOENT";
	case EINTR:
		return "EINTR";
	case EIO:
		return "EIO";
	case EFAULT:
		return "EFAULT";
	case EBUSY:
		return "EBUSY";
	case EEXIST:
		return "EEXIST";
	case ENODEV:
		return "ENODEV";
	case EINVAL:
		return "EINVAL";
	case ENOTTY:
		return "ENOTTY";
	case ENOMEM:
		return "ENOMEM";
	case EAGAIN:
		return "EAGAIN";
	case ETIMEDOUT:
		return "ETIMEDOUT";
	case ENOSPC:
		return "ENOSPC";
	case ESHUTDOWN:
		return "ESHUTDOWN";
	default:
		snprintf(buf, sizeof(buf), "errno %d", err);
		return buf;
	}
}

bool
epd_check_ret(const char *file, int line, const char *expr, long ret, int err, int expected_errno)
{
	if (expected_errno == 0) {
		if (ret == 0)
			return true;
		epd_fail(file, line, "%s: expected 0, got %ld (%s)", expr, ret,
			ret == -1 ? epd_errname(err) : "no errno");
		return false;
	}
	if (ret == -1 && err == expected_errno)
		return true;
	if (ret == -1)
		epd_fail(file, line, "%s: expected -1/%s, got -1/%s", expr,
			epd_errname(expected_errno), epd_errname(err));
	else
		epd_fail(file, line, "%s: expected -1/%s, got %ld (success)", expr,
			epd_errname(expected_errno), ret);
	return false;
}

bool
epd_check_rc(const char *file, int line, const char *expr, long rc, long expected)
{
	char want[48], got[48];

	if (rc == expected)
		return true;
	snprintf(want, sizeof(want), "%s%s", expected < 0 ? "-" : "",
		epd_errname((int)(expected < 0 ? -expected : expected)));
	snprintf(
		got, sizeof(got), "%s%s", rc < 0 ? "-" : "", epd_errname((int)(rc < 0 ? -rc : rc)));
	epd_fail(file, line, "%s: expected %s, got %s", expr, want, got);
	return false;
}

/* ---- time and randomness ---- */

uint64_t
epd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

double
epd_ms_since(uint64_t t0_ns)
{
	return (double)(epd_now_ns() - t0_ns) / 1e6;
}

void
epd_sleep_ms(unsigned int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

void
epd_seed(uint64_t seed)
{
	rng_state = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

uint64_t
epd_seed_from_env(void)
{
	const char *env = getenv("EPD_SEED");
	uint64_t seed;

	if (env && *env)
		seed = strtoull(env, NULL, 0);
	else
		seed = epd_now_ns() ^ ((uint64_t)getpid() << 32);
	printf("seed: %" PRIu64 " (set EPD_SEED=%" PRIu64 " to repeat)\n", seed, seed);
	epd_seed(seed);
	return seed;
}

uint64_t
epd_rand(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

uint32_t
epd_rand_below(uint32_t n)
{
	return n ? (uint32_t)((epd_rand() >> 32) % n) : 0;
}

/* ---- module and device ---- */

int
epd_try_unload(void)
{
	/* epdrm too: a test of epdfb must not find the panel a test of epdrm left */
	syscall(SYS_delete_module, "epdrm", O_NONBLOCK);
	if (syscall(SYS_delete_module, "epdfb", O_NONBLOCK) == 0)
		return 0;
	return -errno;
}

bool
epd_module_loaded(void)
{
	return access("/sys/module/epdfb/initstate", F_OK) == 0;
}

void
epd_load(const char *params)
{
	const char *ko = getenv("EPDFB_KO");
	int rc;

	REQUIRE_MSG(ko && *ko, "EPDFB_KO is not set");
	rc = epd_try_unload();
	if (rc && rc != -ENOENT)
		printf("note: rmmod epdfb before loading: %s\n", epd_errname(-rc));
	epd_insmod(ko, params);
}

void
epd_load_panel_model(void)
{
	const char *epdfb_ko = getenv("EPDFB_KO");
	char path[4096], dir[4096];
	int fd, rc;

	if (access("/sys/module/epdpanel", F_OK) == 0)
		return;
	REQUIRE_MSG(epdfb_ko && *epdfb_ko, "EPDFB_KO is not set");
	snprintf(dir, sizeof(dir), "%s", epdfb_ko);
	snprintf(path, sizeof(path), "%s/epdpanel.ko", dirname(dir));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	REQUIRE_MSG(fd >= 0, "open %s: %s", path, strerror(errno));
	printf("insmod %s\n", path);
	rc = (int)syscall(SYS_finit_module, fd, "", 0);
	REQUIRE_MSG(rc == 0 || errno == EEXIST, "insmod %s: %s", path, strerror(errno));
	close(fd);
}

void
epd_insmod(const char *ko, const char *params)
{
	int fd;

	epd_load_panel_model();
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	REQUIRE_MSG(fd >= 0, "open %s: %s", ko, strerror(errno));
	printf("insmod %s %s\n", ko, params);
	int rc = (int)syscall(SYS_finit_module, fd, params, 0);
	REQUIRE_MSG(rc == 0, "insmod %s %s: %s", ko, params, strerror(errno));
	close(fd);
}

static int
read_trimmed(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

int
epd_find_fb(void)
{
	DIR *dir = opendir("/sys/class/graphics");
	struct dirent *ent;
	int found = -1;

	if (!dir)
		return -1;
	while ((ent = readdir(dir))) {
		char path[512], name[64];
		int n;

		if (sscanf(ent->d_name, "fb%d", &n) != 1)
			continue;
		snprintf(path, sizeof(path), "/sys/class/graphics/%s/name", ent->d_name);
		if (read_trimmed(path, name, sizeof(name)) == 0 && !strcmp(name, "epdfb")) {
			found = n;
			break;
		}
	}
	closedir(dir);
	return found;
}

static void
ensure_devnode(struct epd *d)
{
	char path[128], devstr[32];
	unsigned int maj, min;
	struct stat st;

	snprintf(path, sizeof(path), "/sys/class/graphics/fb%d/dev", d->fbnum);
	REQUIRE_MSG(read_trimmed(path, devstr, sizeof(devstr)) == 0, "read %s failed", path);
	REQUIRE_MSG(
		sscanf(devstr, "%u:%u", &maj, &min) == 2, "%s: bad contents '%s'", path, devstr);
	snprintf(d->devnode, sizeof(d->devnode), "/dev/fb%d", d->fbnum);
	for (int i = 0; i < 10; i++) {
		if (stat(d->devnode, &st) == 0 && S_ISCHR(st.st_mode) &&
			st.st_rdev == makedev(maj, min))
			return;
		epd_sleep_ms(100);
	}
	unlink(d->devnode);
	REQUIRE_MSG(mknod(d->devnode, S_IFCHR | 0600, makedev(maj, min)) == 0, "mknod %s: %s",
		d->devnode, strerror(errno));
	printf("note: created %s (%u:%u)\n", d->devnode, maj, min);
}

static void
ensure_debugfs(struct epd *d)
{
	snprintf(d->dbgdir, sizeof(d->dbgdir), "/sys/kernel/debug/epdfb/fb%d", d->fbnum);
	if (access("/sys/kernel/debug/epdfb", F_OK) != 0) {
		if (mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) != 0 &&
			errno != EBUSY)
			printf("note: mount debugfs: %s\n", strerror(errno));
	}
	REQUIRE_MSG(access(d->dbgdir, F_OK) == 0, "%s missing: %s", d->dbgdir, strerror(errno));
}

void
epd_attach(struct epd *d)
{
	struct fb_var_screeninfo var;
	struct fb_fix_screeninfo fix;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->fbnum = -1;
	for (int i = 0; i < 40 && d->fbnum < 0; i++) {
		d->fbnum = epd_find_fb();
		if (d->fbnum < 0)
			epd_sleep_ms(50);
	}
	REQUIRE_MSG(d->fbnum >= 0, "no /sys/class/graphics/fbN with name epdfb");
	ensure_devnode(d);
	ensure_debugfs(d);
	d->fd = open(d->devnode, O_RDWR | O_CLOEXEC);
	REQUIRE_MSG(d->fd >= 0, "open %s: %s", d->devnode, strerror(errno));
	REQUIRE_OK(ioctl(d->fd, FBIOGET_VSCREENINFO, &var));
	REQUIRE_OK(ioctl(d->fd, FBIOGET_FSCREENINFO, &fix));
	d->width = var.xres;
	d->height = var.yres;
	d->bpp = var.bits_per_pixel;
	d->line_length = fix.line_length;
	REQUIRE_MSG(d->bpp == 8 || d->bpp == 32, "unexpected bits_per_pixel %u", d->bpp);
	REQUIRE_MSG(d->line_length >= d->width * (d->bpp / 8), "line_length %u < width %u * %u",
		d->line_length, d->width, d->bpp / 8);
	REQUIRE_MSG(fix.smem_len >= (size_t)d->line_length * d->height,
		"smem_len %u < line_length %u * height %u", fix.smem_len, d->line_length,
		d->height);
	d->map_len = fix.smem_len;
	void *map = mmap(NULL, d->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, 0);
	REQUIRE_MSG(map != MAP_FAILED, "mmap %s: %s", d->devnode, strerror(errno));
	d->map = map;
	d->model = malloc((size_t)d->width * d->height);
	REQUIRE(d->model);
	memset(d->model, 255, (size_t)d->width * d->height);
	printf("device: %s (fb%d) %ux%u bpp %u line_length %u, debugfs %s\n", d->devnode, d->fbnum,
		d->width, d->height, d->bpp, d->line_length, d->dbgdir);
}

void
epd_open(struct epd *d, const char *params)
{
	epd_load(params);
	epd_attach(d);
}

void
epd_close(struct epd *d)
{
	if (d->map)
		munmap(d->map, d->map_len);
	if (d->fd >= 0)
		close(d->fd);
	free(d->model);
	d->map = NULL;
	d->fd = -1;
	d->model = NULL;
}

int
epd_run_command(const char *command, char *out, size_t size)
{
	FILE *p = popen(command, "r");
	size_t used = 0;

	REQUIRE_MSG(p, "cannot run %s", command);
	printf("+ %s\n", command);
	while (used + 1 < size && fgets(out + used, (int)(size - used), p))
		used += strlen(out + used);
	out[used] = '\0';
	int status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct threads_named {
	const char *name;
	unsigned int n;
};

static bool
count_if_named(const char *tid, void *data)
{
	struct threads_named *count = data;
	char *comm = epd_read_thread_file(tid, "comm");

	if (comm) {
		comm[strcspn(comm, "\n")] = '\0';
		count->n += !strcmp(comm, count->name);
	}
	free(comm);
	return true;
}

unsigned int
epd_threads_named(const char *name)
{
	struct threads_named count = {.name = name};

	epd_for_each_thread(count_if_named, &count);
	return count.n;
}

int
epd_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

void
epd_inject(struct epd *d, const char *knob, unsigned int count)
{
	char path[EPD_DBG_PATH_SIZE], text[16];

	snprintf(path, sizeof(path), "%s/%s", d->dbgdir, knob);
	snprintf(text, sizeof(text), "%u", count);
	REQUIRE_RC(epd_write_file(path, text), 0);
}

long
epd_injected_left(struct epd *d, const char *knob)
{
	char path[EPD_DBG_PATH_SIZE];

	snprintf(path, sizeof(path), "%s/%s", d->dbgdir, knob);
	char *text = epd_read_file(path, NULL);
	REQUIRE_MSG(text, "cannot read %s", path);
	long left = atol(text);
	free(text);
	return left;
}

int
epd_unbind(void)
{
	return epd_write_file(EPD_UNBIND_PATH, EPD_DEV_NAME);
}

/* ---- framebuffer access ---- */

void
epd_put(struct epd *d, uint32_t x, uint32_t y, uint8_t v)
{
	d->map[(size_t)y * d->line_length + x] = v;
}

uint8_t
epd_get(const struct epd *d, uint32_t x, uint32_t y)
{
	return d->map[(size_t)y * d->line_length + x];
}

void
epd_fill(struct epd *d, uint32_t left, uint32_t top, uint32_t w, uint32_t h, uint8_t v)
{
	for (uint32_t y = top; y < top + h; y++) {
		if (d->bpp == 8) {
			memset(d->map + (size_t)y * d->line_length + left, v, w);
		} else {
			for (uint32_t x = left; x < left + w; x++)
				epd_put_xrgb(d, x, y, 0x010101u * v);
		}
	}
}

void
epd_put_xrgb(struct epd *d, uint32_t x, uint32_t y, uint32_t xrgb)
{
	memcpy(d->map + (size_t)y * d->line_length + (size_t)x * 4, &xrgb, 4);
}

uint8_t
epd_luma(uint32_t xrgb)
{
	uint32_t r = (xrgb >> 16) & 0xff, g = (xrgb >> 8) & 0xff, b = xrgb & 0xff;

	return (uint8_t)((77 * r + 150 * g + 29 * b) >> 8);
}

uint8_t
epd_fb_gray(const struct epd *d, uint32_t x, uint32_t y)
{
	uint32_t xrgb;

	if (d->bpp == 8)
		return epd_get(d, x, y);
	memcpy(&xrgb, d->map + (size_t)y * d->line_length + (size_t)x * 4, 4);
	return epd_luma(xrgb);
}

void
epd_model_apply(
	struct epd *d, uint32_t left, uint32_t top, uint32_t w, uint32_t h, unsigned int levels)
{
	for (uint32_t y = top; y < top + h; y++)
		for (uint32_t x = left; x < left + w; x++)
			d->model[(size_t)y * d->width + x] =
				epd_quant(epd_fb_gray(d, x, y), levels);
}

void
epd_settle(struct epd *d)
{
	REQUIRE_OK(fsync(d->fd));
	REQUIRE_RC(epd_wait_idle(d), 0);
}

void
epd_clear(struct epd *d)
{
	epd_fill(d, 0, 0, d->width, d->height, 255);
	epd_show(d, 0, 0, d->width, d->height, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 0xfffffff0u);
	/*
	 * In AUTOMATIC mode the fill's dirty pages are an update of their own,
	 * due after the deferred-IO delay: it goes now, not in what comes next.
	 */
	epd_settle(d);
	memset(d->model, 255, (size_t)d->width * d->height);
}

/* ---- gray levels ---- */

uint8_t
epd_quant(uint8_t v, unsigned int levels)
{
	unsigned int idx = ((unsigned int)v * (levels - 1) + 127) / 255;

	return (uint8_t)(idx * 255 / (levels - 1));
}

unsigned int
epd_wf_levels(uint32_t waveform)
{
	switch (waveform) {
	case WAVEFORM_MODE_GC16:
	case WAVEFORM_MODE_GL16:
		return 16;
	case WAVEFORM_MODE_GC4:
		return 4;
	default:
		return 2;
	}
}

uint32_t
epd_duration_ms(uint32_t waveform, int temp, uint32_t time_scale)
{
	uint32_t f10 = temp >= 20 ? 10 : temp >= 10 ? 15 : 25;

	return epd_base_ms[waveform] * f10 / 10 * time_scale / 100;
}

/* ---- ioctls ---- */

int
epd_update(struct epd *d, uint32_t left, uint32_t top, uint32_t w, uint32_t h, uint32_t waveform,
	uint32_t mode, uint32_t marker, int temp, uint32_t flags)
{
	struct mxcfb_update_data u;

	memset(&u, 0, sizeof(u));
	u.update_region.left = left;
	u.update_region.top = top;
	u.update_region.width = w;
	u.update_region.height = h;
	u.waveform_mode = waveform;
	u.update_mode = mode;
	u.update_marker = marker;
	u.temp = temp;
	u.flags = flags;
	return ioctl(d->fd, MXCFB_SEND_UPDATE, &u) ? -errno : 0;
}

int
epd_wait(struct epd *d, uint32_t marker, uint32_t *collision)
{
	struct mxcfb_update_marker_data m = {.update_marker = marker, .collision_test = 0xdead};

	if (ioctl(d->fd, MXCFB_WAIT_FOR_UPDATE_COMPLETE, &m))
		return -errno;
	if (collision)
		*collision = m.collision_test;
	return 0;
}

int
epd_wait_idle(struct epd *d)
{
	__u32 crtc = 0;

	if (d->fd >= 0)
		return ioctl(d->fd, FBIO_WAITFORVSYNC, &crtc) ? -errno : 0;
	if (d->board[0]) {
		free(epd_board_query(d, "settle", NULL));
		return 0;
	}
	/*
	 * No framebuffer (epdrm): as many updates have completed, failed or
	 * merged as were submitted before the call, which is the ioctl's wait
	 * unless a later update completes before an earlier one.
	 */
	long long submitted = -1;
	for (int i = 0; i < 3000; i++) {
		char *stats = epd_stats_snapshot(d);
		if (submitted < 0)
			submitted = epd_snapshot_stat(stats, "updates_submitted");
		long long done = epd_snapshot_stat(stats, "updates_completed") +
				 epd_snapshot_stat(stats, "updates_failed") +
				 epd_snapshot_stat(stats, "updates_merged");
		free(stats);
		if (done >= submitted)
			return 0;
		epd_sleep_ms(20);
	}
	return -ETIMEDOUT;
}

int
epd_set_temp(struct epd *d, int temp)
{
	__s32 t = temp;

	return ioctl(d->fd, MXCFB_SET_TEMPERATURE, &t) ? -errno : 0;
}

int
epd_set_scheme(struct epd *d, uint32_t scheme)
{
	__u32 s = scheme;

	return ioctl(d->fd, MXCFB_SET_UPDATE_SCHEME, &s) ? -errno : 0;
}

int
epd_set_auto_mode(struct epd *d, uint32_t mode)
{
	__u32 m = mode;

	return ioctl(d->fd, MXCFB_SET_AUTO_UPDATE_MODE, &m) ? -errno : 0;
}

int
epd_get_waveform(struct epd *d, uint32_t index, struct epdfb_waveform_info *info)
{
	memset(info, 0xa5, sizeof(*info));
	info->index = index;
	return ioctl(d->fd, EPDFB_GET_WAVEFORM, info) ? -errno : 0;
}

void
epd_show(struct epd *d, uint32_t left, uint32_t top, uint32_t w, uint32_t h, uint32_t waveform,
	uint32_t mode, uint32_t marker)
{
	REQUIRE_RC(epd_update(d, left, top, w, h, waveform, mode, marker, TEMP_USE_AMBIENT, 0), 0);
	REQUIRE_RC(epd_wait(d, marker, NULL), 0);
}

/* ---- debugfs ---- */

char *
epd_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 65536, n = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	for (;;) {
		if (!buf)
			break;
		if (n == cap) {
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			buf = NULL;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (buf) {
		buf[n] = '\0';
		if (len)
			*len = n;
	}
	return buf;
}

uint8_t *
epd_alloc_image(const struct epd *d)
{
	uint8_t *img = malloc((size_t)d->width * d->height);

	REQUIRE(img);
	return img;
}

/* A PGM of width x height into buf; data is freed. what names it in messages. */
static void
parse_pgm(const char *what, char *data, size_t len, uint32_t width, uint32_t height, uint8_t *buf)
{
	char hdr[64];
	size_t hlen;
	const char *path = what;

	hlen = (size_t)snprintf(hdr, sizeof(hdr), "P5\n%u %u\n255\n", width, height);
	REQUIRE_MSG(len >= hlen && !memcmp(data, hdr, hlen),
		"%s: header is not \"P5\\n%u %u\\n255\\n\" (got %zu bytes starting \"%.16s\")",
		path, width, height, len, data);
	REQUIRE_MSG(len == hlen + (size_t)width * height,
		"%s: %zu bytes, expected %zu header + %zu pixels", path, len, hlen,
		(size_t)width * height);
	memcpy(buf, data + hlen, (size_t)width * height);
	free(data);
}

void
epd_read_pgm(const char *path, uint32_t width, uint32_t height, uint8_t *buf)
{
	size_t len;
	char *data = epd_read_file(path, &len);

	REQUIRE_MSG(data, "read %s: %s", path, strerror(errno));
	parse_pgm(path, data, len, width, height, buf);
}

char *
epd_board_query(const struct epd *d, const char *command, size_t *len)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	size_t size = 0, capacity = 4096;
	char *answer = malloc(capacity + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	REQUIRE(answer && fd >= 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/control", d->board);
	REQUIRE_MSG(connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0,
		"the emulated board's %s: %s", addr.sun_path, strerror(errno));
	REQUIRE_MSG(dprintf(fd, "%s\n", command) > 0, "%s: %s", addr.sun_path, strerror(errno));
	for (;;) {
		if (size == capacity) {
			capacity *= 2;
			answer = realloc(answer, capacity + 1);
			REQUIRE(answer);
		}
		ssize_t got = read(fd, answer + size, capacity - size);
		REQUIRE_MSG(got >= 0, "%s: %s", addr.sun_path, strerror(errno));
		if (got == 0)
			break;
		size += (size_t)got;
	}
	close(fd);
	answer[size] = '\0';
	REQUIRE_MSG(strncmp(answer, "error: ", 7) != 0, "the emulated board, asked \"%s\": %s",
		command, answer);
	if (len)
		*len = size;
	return answer;
}

void
epd_read_panel(struct epd *d, uint8_t *buf)
{
	char path[EPD_DBG_PATH_SIZE];

	if (d->board[0]) {
		size_t len;
		char *data = epd_board_query(d, "panel", &len);
		parse_pgm("the emulated board's panel", data, len, d->width, d->height, buf);
		return;
	}
	snprintf(path, sizeof(path), "%s/panel", d->dbgdir);
	epd_read_pgm(path, d->width, d->height, buf);
}

char *
epd_stats_snapshot(struct epd *d)
{
	char path[EPD_DBG_PATH_SIZE];
	char *data;

	if (d->board[0])
		return epd_board_query(d, "stats", NULL);
	snprintf(path, sizeof(path), "%s/stats", d->dbgdir);
	data = epd_read_file(path, NULL);
	REQUIRE_MSG(data, "read %s: %s", path, strerror(errno));
	return data;
}

static bool
find_stat(const char *snapshot, const char *key, char *val, size_t len)
{
	size_t klen = strlen(key);

	for (const char *line = snapshot; line && *line;) {
		const char *next = strchr(line, '\n');

		if (!strncmp(line, key, klen) && line[klen] == ':') {
			const char *v = line + klen + 1;
			size_t vlen;

			while (*v == ' ')
				v++;
			vlen = next ? (size_t)(next - v) : strlen(v);
			snprintf(val, len, "%.*s", (int)vlen, v);
			return true;
		}
		line = next ? next + 1 : NULL;
	}
	return false;
}

long long
epd_snapshot_stat(const char *snapshot, const char *key)
{
	char val[64], *end;
	long long v;

	REQUIRE_MSG(find_stat(snapshot, key, val, sizeof(val)), "stats has no \"%s:\" line", key);
	v = strtoll(val, &end, 10);
	REQUIRE_MSG(end != val && *end == '\0', "stats %s: not an integer: \"%s\"", key, val);
	return v;
}

long long
epd_stat(struct epd *d, const char *key)
{
	char *snapshot = epd_stats_snapshot(d);
	long long v = epd_snapshot_stat(snapshot, key);

	free(snapshot);
	return v;
}

double
epd_stat_f(struct epd *d, const char *key)
{
	char val[64], *end;
	double v;

	epd_stat_str(d, key, val, sizeof(val));
	v = strtod(val, &end);
	REQUIRE_MSG(end != val && *end == '\0', "stats %s: not a number: \"%s\"", key, val);
	return v;
}

void
epd_stat_str(struct epd *d, const char *key, char *buf, size_t len)
{
	char *snapshot = epd_stats_snapshot(d);
	bool found = find_stat(snapshot, key, buf, len);

	free(snapshot);
	REQUIRE_MSG(found, "stats has no \"%s:\" line", key);
}

void
epd_stats_reset(struct epd *d)
{
	char path[EPD_DBG_PATH_SIZE];

	/*
	 * An update submitted before the reset and completed after it would
	 * count as completed but not as submitted.
	 */
	if (d->board[0]) {
		/* the board settles its panel model first itself */
		free(epd_board_query(d, "stats-reset", NULL));
		return;
	}
	epd_settle(d);
	snprintf(path, sizeof(path), "%s/stats", d->dbgdir);
	REQUIRE_RC(epd_write_file(path, "0\n"), 0);
}

void
epd_trace_clear(struct epd *d)
{
	char path[EPD_DBG_PATH_SIZE];

	if (d->board[0]) {
		free(epd_board_query(d, "clear", NULL));
		return;
	}
	snprintf(path, sizeof(path), "%s/updates", d->dbgdir);
	REQUIRE_RC(epd_write_file(path, "0\n"), 0);
}

static size_t parse_trace(const char *path, char *data, struct epd_trace **out);

size_t
epd_trace_read(struct epd *d, struct epd_trace **out)
{
	char path[EPD_DBG_PATH_SIZE];

	if (d->board[0])
		return parse_trace(
			"the emulated board's updates", epd_board_query(d, "updates", NULL), out);
	snprintf(path, sizeof(path), "%s/updates", d->dbgdir);
	return epd_trace_read_file(path, out);
}

size_t
epd_trace_read_file(const char *path, struct epd_trace **out)
{
	char *data = epd_read_file(path, NULL);

	REQUIRE_MSG(data, "read %s: %s", path, strerror(errno));
	return parse_trace(path, data, out);
}

static size_t
parse_trace(const char *path, char *data, struct epd_trace **out)
{
	char *line;
	size_t n = 0, cap = 64;
	struct epd_trace *t = malloc(cap * sizeof(*t));

	REQUIRE(t);
	for (line = data; line && *line;) {
		char *next = strchr(line, '\n');
		int end = 0;

		if (next)
			*next++ = '\0';
		if (n == cap) {
			cap *= 2;
			t = realloc(t, cap * sizeof(*t));
			REQUIRE(t);
		}
		struct epd_trace *e = &t[n];
		int got = sscanf(line,
			"marker=%" SCNu32 " submit_ns=%" SCNu64 " start_ns=%" SCNu64
			" end_ns=%" SCNu64 " left=%" SCNu32 " top=%" SCNu32 " width=%" SCNu32
			" height=%" SCNu32 " waveform=%15s mode=%15s"
			" flags=0x%" SCNx32 " merged=%" SCNu32 " collided=%" SCNu32
			" flash=%" SCNu32 "%n",
			&e->marker, &e->submit_ns, &e->start_ns, &e->end_ns, &e->left, &e->top,
			&e->width, &e->height, e->waveform, e->mode, &e->flags, &e->merged,
			&e->collided, &e->flash, &end);
		REQUIRE_MSG(
			got == 14 && line[end] == '\0', "%s: unparsable line \"%s\"", path, line);
		n++;
		line = next;
	}
	free(data);
	*out = t;
	return n;
}

void
epd_trace_print(const struct epd_trace *e)
{
	printf("  trace: marker=%u submit=%.3f start=%.3f end=%.3f ms rect=%u,%u %ux%u %s %s "
	       "flags=0x%x merged=%u collided=%u flash=%u\n",
		e->marker, (double)e->submit_ns / 1e6, (double)e->start_ns / 1e6,
		(double)e->end_ns / 1e6, e->left, e->top, e->width, e->height, e->waveform, e->mode,
		e->flags, e->merged, e->collided, e->flash);
}

/* ---- image comparison ---- */

bool
epd_compare(const char *file, int line, const struct epd *d, const uint8_t *panel,
	const uint8_t *expect, uint32_t left, uint32_t top, uint32_t w, uint32_t h,
	const char *what)
{
	size_t bad = 0;

	for (uint32_t y = top; y < top + h; y++) {
		for (uint32_t x = left; x < left + w; x++) {
			size_t i = (size_t)y * d->width + x;

			if (panel[i] == expect[i])
				continue;
			if (bad < 8)
				printf("    %s: pixel (%u,%u): expected %u, panel shows %u\n", what,
					x, y, expect[i], panel[i]);
			bad++;
		}
	}
	if (bad)
		epd_fail(file, line, "%s: %zu of %zu pixels of rect (%u,%u %ux%u) differ", what,
			bad, (size_t)w * h, left, top, w, h);
	return bad == 0;
}

bool
epd_compare_ghost(const char *file, int line, const struct epd *d, const uint8_t *panel,
	const uint8_t *before, const uint8_t *after, unsigned int levels, uint32_t left,
	uint32_t top, uint32_t w, uint32_t h, const char *what, size_t *ghosted)
{
	size_t bad = 0, ghost = 0;

	for (uint32_t y = top; y < top + h; y++) {
		for (uint32_t x = left; x < left + w; x++) {
			size_t i = (size_t)y * d->width + x;
			uint8_t p = panel[i], a = after[i], b = before[i];
			uint8_t lo = a < b ? a : b, hi = a < b ? b : a;
			bool ok;

			if (p != a)
				ghost++;
			if (a == b)
				ok = p == a;
			else
				ok = p >= lo && p <= hi && epd_quant(p, levels) == a;
			if (ok)
				continue;
			if (bad < 8)
				printf("    %s: pixel (%u,%u): expected %u (was %u, %u levels, "
				       "ghost "
				       "allowed toward %u), panel shows %u\n",
					what, x, y, a, b, levels, b, p);
			bad++;
		}
	}
	if (bad)
		epd_fail(file, line, "%s: %zu of %zu pixels of rect (%u,%u %ux%u) are wrong", what,
			bad, (size_t)w * h, left, top, w, h);
	if (ghosted)
		*ghosted = ghost;
	return bad == 0;
}

/* ---- threads ---- */

int
epd_gettid(void)
{
	return (int)syscall(SYS_gettid);
}

bool
epd_thread_in_ioctl(int tid, unsigned int timeout_ms)
{
	char path[64], *text;
	uint64_t t0 = epd_now_ns();
	long nr;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	for (;;) {
		/* "NR args... sp pc" while blocked in a system call, "running" else */
		text = epd_read_file(path, NULL);
		nr = text && *text >= '0' && *text <= '9' ? strtol(text, NULL, 10) : -1;
		free(text);
		if (nr == SYS_ioctl)
			return true;
		if (epd_ms_since(t0) > timeout_ms)
			return false;
		epd_sleep_ms(5);
	}
}

/* ---- workqueue tracing ---- */

#define EPD_TRACING  "/sys/kernel/tracing"
#define EPD_WQ_EVENT EPD_TRACING "/events/workqueue/workqueue_execute_start/enable"

bool
epd_wq_trace_start(void)
{
	if (access(EPD_TRACING "/trace", F_OK) != 0)
		mount("tracefs", EPD_TRACING, "tracefs", 0, NULL);
	if (access(EPD_WQ_EVENT, W_OK) != 0)
		return false;
	epd_wq_trace_clear();
	REQUIRE_RC(epd_write_file(EPD_WQ_EVENT, "1"), 0);
	return true;
}

void
epd_wq_trace_clear(void)
{
	int fd = open(EPD_TRACING "/trace", O_WRONLY | O_TRUNC | O_CLOEXEC);

	REQUIRE_MSG(fd >= 0, "cannot clear " EPD_TRACING "/trace");
	close(fd);
}

void
epd_wq_trace_stop(void)
{
	REQUIRE_RC(epd_write_file(EPD_WQ_EVENT, "0"), 0);
}

int
epd_wq_driver_runs(void)
{
	char *trace = epd_read_file(EPD_TRACING "/trace", NULL);
	int runs = 0;

	REQUIRE_MSG(trace, "cannot read " EPD_TRACING "/trace");
	for (char *p = trace; (p = strstr(p, "function epdfb_")); p++)
		runs++;
	free(trace);
	return runs;
}

/* ---- stats added over time ---- */

long long
epd_snapshot_stat_or(const char *snapshot, const char *key, long long fallback)
{
	char val[64];

	if (!find_stat(snapshot, key, val, sizeof(val)))
		return fallback;
	return epd_snapshot_stat(snapshot, key);
}

/* ---- update trace: durations and lookups ---- */

bool
epd_check_trace_duration(
	const char *file, int line, const struct epd_trace *e, uint32_t dur_ms, const char *what)
{
	uint64_t lo = (uint64_t)dur_ms * 1000000ULL;
	uint64_t hi = lo + ((uint64_t)dur_ms / 4 + 20) * 1000000ULL;
	uint64_t driven = e->end_ns - e->start_ns;

	if (e->end_ns >= e->start_ns && driven >= lo && driven <= hi)
		return true;
	epd_fail(file, line, "%s: marker %u driven for %.3f ms, expected %u ms (up to %.3f)", what,
		e->marker, ((double)e->end_ns - (double)e->start_ns) / 1e6, dur_ms,
		(double)hi / 1e6);
	epd_trace_print(e);
	return false;
}

struct epd_trace *
epd_trace_find(struct epd_trace *t, size_t n, uint32_t marker)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].marker == marker)
			return &t[i];
	return NULL;
}
