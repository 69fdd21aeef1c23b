// SPDX-License-Identifier: MIT
/*
 * A soak run: vellum on epdfb for 30 minutes of simulated time, panel and
 * clients running 20 times faster than real time: epaper-clock ticks on
 * top for a minute, then foot is typed into for a minute, and again. Then
 * the same for a few minutes with vellum's AddressSanitizer build, leak
 * checks on, when it was built.
 *
 * vellum's RSS after warm-up stays flat (the curve is printed), the
 * sanitizer build exits without reports, the driver accounts for every
 * update it was sent (submitted = completed + merged + cancelled + failed,
 * none failed), and the panel ends showing exactly the last client's frame.
 *
 * VELLUM_TEST_SOAK_MINUTES sets the simulated minutes (default 30):
 *
 *   VELLUM_TEST_SOAK_MINUTES=10 tools/vmtest --timeout 900 \
 *       build/tests/vellum/soak_vellum
 */
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "epd_test.h"
#include "vellum_run.h"

#define SPEEDUP         20
#define MINUTE_MS       (60000 / SPEEDUP)
#define WARM_UP_MINUTES 5
/* The sanitizer build's run, for leaks and memory errors. */
#define SANITIZED_MINUTES 6
/* RSS may move by this much after warm-up: allocator caches, not leaks. */
#define RSS_SLACK_KIB 2048
#define LEAK_LOG      "/tmp/vellum-soak-leaks"
#define MARKER_X      400
#define MARKER_Y      300
#define MARKER_SIZE   16

/*
 * The sanitizer build of the vellum under test (to be freed), or NULL when
 * it was not built.
 */
static char *
sanitizer_build(void)
{
	const char *plain = VELLUM_BIN, *build = strstr(plain, "/build/");
	char *asan;

	if (!build)
		return NULL;
	REQUIRE(asprintf(&asan, "%.*s/build-asan/%s", (int)(build - plain), plain,
			build + strlen("/build/")) >= 0);
	if (access(asan, X_OK) == 0)
		return asan;
	free(asan);
	return NULL;
}

static void
remove_leak_logs(void)
{
	glob_t logs;

	if (glob(LEAK_LOG ".*", 0, NULL, &logs) == 0)
		for (size_t i = 0; i < logs.gl_pathc; i++)
			unlink(logs.gl_pathv[i]);
	globfree(&logs);
}

/* Prints the sanitizer's reports; how many there were. */
static size_t
print_leak_logs(void)
{
	glob_t logs;
	size_t count = 0;

	if (glob(LEAK_LOG ".*", 0, NULL, &logs) != 0)
		return 0;
	for (size_t i = 0; i < logs.gl_pathc; i++) {
		char *text = epd_read_file(logs.gl_pathv[i], NULL);
		printf("---- %s\n%s\n", logs.gl_pathv[i], text ? text : "(unreadable)");
		free(text);
		count++;
	}
	globfree(&logs);
	return count;
}

/*
 * The client's output until it ends or the deadline passes; only the end of
 * it is kept: it is printed when the client failed.
 */
static void
collect_output(int fd, char *tail, size_t size, unsigned int timeout_s)
{
	uint64_t deadline = epd_now_ns() + (uint64_t)timeout_s * 1000000000ULL;
	size_t used = 0;
	char chunk[512];

	tail[0] = '\0';
	while (epd_now_ns() < deadline) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		ssize_t got = read(fd, chunk, sizeof(chunk));
		if (got <= 0)
			return;
		if (used + (size_t)got >= size) {
			size_t drop = used + (size_t)got - (size - 1);
			drop = drop > used ? used : drop;
			memmove(tail, tail + drop, used - drop);
			used -= drop;
		}
		size_t take = (size_t)got < size - 1 - used ? (size_t)got : size - 1 - used;
		memcpy(tail + used, chunk + (size_t)got - take, take);
		used += take;
		tail[used] = '\0';
	}
}

static void
run_clock_minute(const struct vellum_run *run)
{
	char tick_ms[16], tail[2048];
	int out_fd;

	snprintf(tick_ms, sizeof(tick_ms), "%d", 1000 / SPEEDUP);
	const char *argv[] = {
		EPAPER_CLOCK_BIN, "--verbose", "--tick-ms", tick_ms, "--seconds", "60", NULL};
	pid_t pid = vellum_client_start(run, argv, &out_fd);
	collect_output(out_fd, tail, sizeof(tail), 120);
	int status = vellum_child_wait(pid, 5);
	close(out_fd);
	/* printed apart: a failure's message has room for a line or two */
	if (!CHECK_MSG(status == 0, "epaper-clock exited with status %d", status))
		printf("epaper-clock's last lines:\n%s\n", tail);
}

static void
type_minute(const struct vellum_run *run, int minute)
{
	char text[64], delay[16];
	int out_fd;

	snprintf(text, sizeof(text), "minute %02d: typed", minute);
	snprintf(delay, sizeof(delay), "%zu", MINUTE_MS / (strlen(text) + 1));
	const char *argv[] = {"wtype", "-s", "200", "-d", delay, text, "-k", "Return", NULL};
	pid_t pid = vellum_client_start(run, argv, &out_fd);
	int status = vellum_child_wait(pid, 120);
	close(out_fd);
	CHECK_MSG(status == 0, "wtype exited with status %d", status);
}

static void
check_rss_flat(const long *rss_kib, int minutes)
{
	long low = rss_kib[WARM_UP_MINUTES], high = low;

	for (int i = WARM_UP_MINUTES; i <= minutes; i++) {
		low = rss_kib[i] < low ? rss_kib[i] : low;
		high = rss_kib[i] > high ? rss_kib[i] : high;
	}
	printf("RSS after warm-up: %ld to %ld KiB (%ld KiB apart)\n", low, high, high - low);
	CHECK_MSG(high - low <= RSS_SLACK_KIB,
		"vellum's RSS moved by %ld KiB after warm-up, more than %d", high - low,
		RSS_SLACK_KIB);
	CHECK_MSG(rss_kib[minutes] <= rss_kib[WARM_UP_MINUTES] + RSS_SLACK_KIB / 2,
		"vellum's RSS grew from %ld to %ld KiB after warm-up", rss_kib[WARM_UP_MINUTES],
		rss_kib[minutes]);
}

static void
check_accounting(struct epd *d)
{
	long long submitted = epd_stat(d, "updates_submitted");
	long long completed = epd_stat(d, "updates_completed");
	long long merged = epd_stat(d, "updates_merged");
	long long cancelled = epd_stat(d, "updates_cancelled");
	long long failed = epd_stat(d, "updates_failed");

	printf("updates: %lld submitted = %lld completed + %lld merged + %lld cancelled + %lld "
	       "failed; %lld flashes\n",
		submitted, completed, merged, cancelled, failed, epd_stat(d, "flashes"));
	CHECK_EQ(submitted, completed + merged + cancelled + failed);
	CHECK_EQ(failed, 0);
	CHECK_GT(completed, 0);
}

/*
 * One soak: vellum (program) with foot for the given simulated minutes,
 * then the probe's frame on top. RSS is only judged for the plain build:
 * the sanitizer's allocator keeps freed memory in its own caches.
 */
static void
soak(struct epd *d, const char *program, int minutes, bool judge_rss)
{
	struct vellum_run run;

	epd_clear(d);
	epd_trace_clear(d);
	epd_stats_reset(d);
	remove_leak_logs();

	epd_phase("%s starts with foot", program);
	setenv("ASAN_OPTIONS",
		"log_path=" LEAK_LOG ":detect_leaks=1:quarantine_size_mb=0:"
		"thread_local_quarantine_size_kb=0",
		1);
	const char *args[] = {"-d", d->devnode, "--no-xwayland", "--", "sh", "-c",
		VELLUM_SAY_DISPLAY
		"exec foot -o colors.background=ffffff -o colors.foreground=000000 "
		"cat",
		NULL};
	vellum_start_program(&run, program, args, NULL);
	unsetenv("ASAN_OPTIONS");
	REQUIRE(vellum_expect_display(&run, 60));
	REQUIRE_MSG(vellum_wait_full_update(d, 120), "foot's first frame never reached the panel");

	epd_phase("%d simulated minutes: the clock, then typing, and again", minutes);
	long *rss_kib = calloc(minutes + 1, sizeof(*rss_kib));
	REQUIRE(rss_kib);
	rss_kib[0] = vellum_rss_kib(run.pid);
	for (int minute = 1; minute <= minutes; minute++) {
		if (minute % 2)
			run_clock_minute(&run);
		else
			type_minute(&run, minute);
		vellum_print_output(&run);
		rss_kib[minute] = vellum_rss_kib(run.pid);
		printf("minute %2d: RSS %ld KiB, %zu updates in the trace\n", minute,
			rss_kib[minute], vellum_trace_count(d));
		REQUIRE_MSG(rss_kib[minute] > 0, "vellum is gone after minute %d", minute);
	}
	if (judge_rss)
		check_rss_flat(rss_kib, minutes);
	free(rss_kib);

	epd_phase("the panel ends showing the last frame");
	char marker_x[16], marker_y[16];
	int probe_fd;
	snprintf(marker_x, sizeof(marker_x), "%d", MARKER_X);
	snprintf(marker_y, sizeof(marker_y), "%d", MARKER_Y);
	const char *probe_argv[] = {TOUCH_PROBE_BIN, marker_x, marker_y, "1", NULL};
	pid_t probe = vellum_client_start(&run, probe_argv, &probe_fd);
	struct vellum_box box;
	if (vellum_find_marker(d, MARKER_SIZE, &box)) {
		CHECK_EQ(box.x, MARKER_X - MARKER_SIZE / 2);
		CHECK_EQ(box.y, MARKER_Y - MARKER_SIZE / 2);
	}
	kill(probe, SIGTERM);
	vellum_child_wait(probe, 30);
	close(probe_fd);
	REQUIRE_RC(epd_wait_idle(d), 0);
	check_accounting(d);

	epd_phase("vellum exits cleanly");
	int status = vellum_stop(&run, SIGTERM, 120);
	printf("vellum exited with status %d\n", status);
	CHECK_MSG(status >= 0, "vellum did not exit");
	CHECK_MSG(print_leak_logs() == 0, "the sanitizer reported errors or leaks in vellum");
}

int
main(void)
{
	struct epd dev, *d = &dev;
	const char *minutes_env = getenv("VELLUM_TEST_SOAK_MINUTES");
	int minutes = minutes_env ? atoi(minutes_env) : 30;
	char *sanitized = sanitizer_build();

	REQUIRE_MSG(minutes > WARM_UP_MINUTES && minutes <= 24 * 60,
		"VELLUM_TEST_SOAK_MINUTES must be more than %d", WARM_UP_MINUTES);
	epd_begin("vellum_soak", 300 + (minutes + SANITIZED_MINUTES) * MINUTE_MS / 1000 * 4);
	epd_open(d, "width=800 height=600 bpp=8 time_scale=5");
	soak(d, VELLUM_BIN, minutes, true);
	if (sanitized) {
		soak(d, sanitized, SANITIZED_MINUTES, false);
		free(sanitized);
	} else {
		printf("no sanitizer build of vellum next to %s: no leak check\n", VELLUM_BIN);
	}
	epd_close(d);
	return epd_end();
}
