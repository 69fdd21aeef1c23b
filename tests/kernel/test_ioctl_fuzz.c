// SPDX-License-Identifier: MIT
/*
 * Random ioctls from several processes at once: 4 processes, each with its
 * own file descriptor, send random commands with random, plausible, NULL and
 * wild arguments for 8 s and at least 100 calls each, while a fifth one
 * keeps opening the device, mapping it, writing through the mapping, sending
 * an update, and unmapping and closing in either order (deferred IO runs
 * over all of it), and the parent reads debugfs. Every call must return 0 or a documented errno, no
 * process may die of a signal, and afterwards, with the settings reset, the
 * driver shows an update exactly, its counters add up, and the module
 * unloads: nothing kept a reference. Set EPD_SEED to repeat a run.
 */
#include "epd_test.h"
#include "ioctl_random.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define NFUZZERS 4
#define RUN_MS   8000
/*
 * Calls a fuzzer makes at least, however long they take: on a loaded
 * machine 8 s held a few dozen, too few to reach every kind of outcome.
 */
#define MIN_CALLS 100

/* errno values a call may end with, counted per process */
enum outcome {
	OUT_OK,
	OUT_EINVAL,
	OUT_EFAULT,
	OUT_ENOTTY,
	OUT_EPERM,   /* USE_ALT_BUFFER */
	OUT_EBUSY,   /* the queue is full */
	OUT_ENOMEM,  /* likewise */
	OUT_TIMEOUT, /* a wait for a marker another process keeps busy */
	OUT_ENOENT,  /* a wait for a marker that completed too long ago to be remembered */
	OUT_OTHER,
	N_OUTCOMES,
};

static const char *const outcome_names[N_OUTCOMES] = {"ok", "EINVAL", "EFAULT", "ENOTTY", "EPERM",
	"EBUSY", "ENOMEM", "ETIMEDOUT", "ENOENT", "other"};

struct shared {
	unsigned long counts[NFUZZERS][N_OUTCOMES];
	unsigned long cycles; /* of the process that maps and closes */
};

static struct epd dev;

static enum outcome
classify(unsigned long cmd, int rc, int err)
{
	if (rc == 0)
		return OUT_OK;
	switch (err) {
	case EINVAL:
		return OUT_EINVAL;
	case EFAULT:
		return OUT_EFAULT;
	case ENOTTY:
		return OUT_ENOTTY;
	case EPERM:
		return OUT_EPERM;
	case EBUSY:
		return OUT_EBUSY;
	case ENOMEM:
		return OUT_ENOMEM;
	case ETIMEDOUT:
		return OUT_TIMEOUT;
	case ENOENT:
		/* the fuzzers' thousands of markers push old ones out of the history */
		return cmd == MXCFB_WAIT_FOR_UPDATE_COMPLETE ? OUT_ENOENT : OUT_OTHER;
	case ENODEV:
		/* FBIO_WAITFORVSYNC refuses a crtc other than 0 */
		return cmd == FBIO_WAITFORVSYNC ? OUT_EINVAL : OUT_OTHER;
	default:
		return OUT_OTHER;
	}
}

static int
fuzzer(int index, uint64_t seed, struct shared *sh)
{
	static uint8_t buf[512] __attribute__((aligned(8)));
	struct epd d = dev;
	unsigned int reported = 0;
	uint64_t t0 = epd_now_ns();

	epd_phase("fuzzer %d", index);
	epd_seed(seed + (uint64_t)index * 7919);
	d.fd = open(dev.devnode, O_RDWR | O_CLOEXEC);
	REQUIRE_MSG(d.fd >= 0, "fuzzer %d: open: %s", index, strerror(errno));
	for (unsigned int calls = 0; calls < MIN_CALLS || epd_ms_since(t0) < RUN_MS; calls++) {
		unsigned long cmd = epd_random_cmd();
		uint32_t how = epd_rand_below(100);
		void *arg = buf;

		epd_random_bytes(buf, sizeof(buf));
		if (how < 50)
			epd_random_arg(&d, cmd, buf);
		else if (how < 55)
			arg = NULL;
		else if (how < 60)
			arg = (void *)(uintptr_t)epd_rand();
		errno = 0;
		int rc = ioctl(d.fd, cmd, arg);
		int err = errno;
		enum outcome out = classify(cmd, rc, err);

		sh->counts[index][out]++;
		if (out == OUT_OTHER && reported++ < 10)
			epd_fail(__FILE__, __LINE__,
				"fuzzer %d: ioctl(0x%08lx, %p) returned %d, %s", index, cmd, arg,
				rc, epd_errname(err));
	}
	close(d.fd);
	return epd_failures ? 1 : 0;
}

/* Opens, maps, writes, updates, then unmaps and closes in either order. */
static int
mapper(uint64_t seed, struct shared *sh)
{
	struct epd d = dev;
	uint64_t t0 = epd_now_ns();

	epd_phase("mapper");
	epd_seed(seed + 104729);
	while (epd_ms_since(t0) < RUN_MS) {
		d.fd = open(dev.devnode, O_RDWR | O_CLOEXEC);
		REQUIRE_MSG(d.fd >= 0, "mapper: open: %s", strerror(errno));
		void *map = mmap(NULL, d.map_len, PROT_READ | PROT_WRITE, MAP_SHARED, d.fd, 0);
		REQUIRE_MSG(map != MAP_FAILED, "mapper: mmap: %s", strerror(errno));
		d.map = map;
		uint32_t top = epd_rand_below(d.height);
		uint32_t rows = 1 + epd_rand_below(d.height - top);
		memset(d.map + (size_t)top * d.line_length, (int)epd_rand(),
			(size_t)rows * d.line_length);
		if (epd_rand_below(2)) {
			int rc = epd_update(&d, 0, top, d.width, rows, WAVEFORM_MODE_DU,
				UPDATE_MODE_PARTIAL, 7000 + epd_rand_below(16), TEMP_USE_AMBIENT,
				0);
			CHECK_MSG(rc == 0 || rc == -EBUSY || rc == -ENOMEM, "mapper: update: %s",
				epd_errname(-rc));
		}
		if (epd_rand_below(2)) {
			/* The mapping outlives the file: deferred IO still has its pages. */
			close(d.fd);
			memset(d.map, (int)epd_rand(), d.line_length);
			REQUIRE_OK(munmap(map, d.map_len));
		} else {
			REQUIRE_OK(munmap(map, d.map_len));
			close(d.fd);
		}
		sh->cycles++;
		/* Deferred IO of every cycle delays the fuzzers' waits: leave them time. */
		epd_sleep_ms(5);
	}
	return epd_failures ? 1 : 0;
}

static void
wait_children(const pid_t *pids, int n)
{
	for (int i = 0; i < n; i++) {
		int status;

		REQUIRE_EQ(waitpid(pids[i], &status, 0), pids[i]);
		if (WIFSIGNALED(status))
			epd_fail(__FILE__, __LINE__, "child %d died of signal %d", i,
				WTERMSIG(status));
		else
			CHECK_MSG(WEXITSTATUS(status) == 0, "child %d exited with %d", i,
				WEXITSTATUS(status));
	}
}

static void
phase_concurrent(struct shared *sh)
{
	pid_t pids[NFUZZERS + 1];
	uint64_t seed = epd_seed_from_env();
	unsigned int reads = 0;

	epd_phase("%d processes of random ioctls, one mapping and closing", NFUZZERS);
	REQUIRE_RC(epd_set_auto_mode(&dev, AUTO_UPDATE_MODE_AUTOMATIC_MODE), 0);
	for (int i = 0; i <= NFUZZERS; i++) {
		pids[i] = fork();
		REQUIRE(pids[i] >= 0);
		if (pids[i] == 0)
			_exit(i < NFUZZERS ? fuzzer(i, seed, sh) : mapper(seed, sh));
	}
	/* debugfs readers take the driver's locks too */
	uint64_t t0 = epd_now_ns();
	while (epd_ms_since(t0) < RUN_MS) {
		free(epd_stats_snapshot(&dev));
		reads++;
		epd_sleep_ms(100);
	}
	wait_children(pids, NFUZZERS + 1);

	unsigned long total[N_OUTCOMES] = {0};
	for (int i = 0; i < NFUZZERS; i++)
		for (int o = 0; o < N_OUTCOMES; o++)
			total[o] += sh->counts[i][o];
	printf("calls:");
	for (int o = 0; o < N_OUTCOMES; o++)
		printf(" %lu %s", total[o], outcome_names[o]);
	printf("; %lu map/close cycles, %u stats reads\n", sh->cycles, reads);
	CHECK_EQ(total[OUT_OTHER], 0);
	/* the calls reached the driver's work, not only its argument checks */
	CHECK_GT(total[OUT_OK], 20);
	CHECK_GT(total[OUT_EINVAL], 20);
	CHECK_GT(total[OUT_EFAULT], 5);
	CHECK_GT(sh->cycles, 5);
}

/* With the settings reset, an update shows exactly and the counters add up. */
static void
phase_after(void)
{
	struct mxcfb_waveform_modes modes = {
		.mode_init = WAVEFORM_MODE_INIT,
		.mode_du = WAVEFORM_MODE_DU,
		.mode_gc4 = WAVEFORM_MODE_GC4,
		.mode_gc8 = WAVEFORM_MODE_GC16,
		.mode_gc16 = WAVEFORM_MODE_GC16,
		.mode_gc32 = WAVEFORM_MODE_GC16,
	};

	epd_phase("after: the driver still works");
	REQUIRE_RC(epd_set_auto_mode(&dev, AUTO_UPDATE_MODE_REGION_MODE), 0);
	REQUIRE_RC(epd_set_scheme(&dev, UPDATE_SCHEME_QUEUE_AND_MERGE), 0);
	REQUIRE_RC(epd_set_temp(&dev, 25), 0);
	REQUIRE_OK(ioctl(dev.fd, MXCFB_SET_WAVEFORM_MODES, &modes));
	REQUIRE_RC(epd_wait_idle(&dev), 0);
	epd_stats_reset(&dev);
	long long before = epd_stat(&dev, "updates_submitted");

	epd_clear(&dev);
	epd_fill(&dev, 40, 30, 100, 80, 0);
	/* flashing, so no ghost of the white before remains */
	epd_show(&dev, 40, 30, 100, 80, WAVEFORM_MODE_GC16, UPDATE_MODE_FULL, 42);
	epd_model_apply(&dev, 40, 30, 100, 80, 16);
	CHECK_PANEL_MODEL(&dev, "after random ioctls");
	CHECK_EQ(epd_stat(&dev, "updates_submitted") - before, 2);
	CHECK_EQ(epd_stat(&dev, "updates_completed"), epd_stat(&dev, "updates_submitted"));
}

int
main(void)
{
	epd_begin("ioctl_fuzz", 240);
	epd_open(&dev, "width=320 height=240 time_scale=10 defio_delay_ms=20");

	struct shared *sh =
		mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	REQUIRE(sh != MAP_FAILED);
	memset(sh, 0, sizeof(*sh));

	phase_concurrent(sh);
	phase_after();

	epd_phase("unload: no file, mapping or update holds the module");
	epd_close(&dev);
	CHECK_RC(epd_try_unload(), 0);
	CHECK(!epd_module_loaded());
	return epd_end();
}
