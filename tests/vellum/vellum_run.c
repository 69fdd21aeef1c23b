// SPDX-License-Identifier: MIT
#include "vellum_run.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "epd_test.h"

/*
 * One line from fd by the deadline (epd_now_ns() time): 1 read, 0 timed
 * out, -1 end of output. Byte by byte, so that nothing after the line is
 * taken from the pipe: the outputs are a few lines.
 */
static int
read_line_until(int fd, char *line, size_t len, uint64_t deadline_ns)
{
	size_t n = 0;

	for (;;) {
		uint64_t now = epd_now_ns();
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		char c;

		if (now >= deadline_ns)
			return 0;
		int ready = poll(&pfd, 1, (int)((deadline_ns - now) / 1000000 + 1));
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			continue;
		ssize_t got = read(fd, &c, 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (n == 0)
				return -1;
			line[n] = '\0';
			return 1;
		}
		if (c == '\n') {
			line[n] = '\0';
			return 1;
		}
		if (n + 1 < len)
			line[n++] = c;
	}
}

bool
vellum_read_line(
	int fd, const char *tag, const char *prefix, char *line, size_t len, unsigned int timeout_s)
{
	uint64_t deadline = epd_now_ns() + (uint64_t)timeout_s * 1000000000ULL;
	char buf[1024];

	for (;;) {
		int got = read_line_until(fd, buf, sizeof(buf), deadline);

		if (got <= 0) {
			printf("%s| (%s while waiting for \"%s\")\n", tag,
				got == 0 ? "timed out" : "output ended", prefix);
			return false;
		}
		printf("%s| %s\n", tag, buf);
		if (!strncmp(buf, prefix, strlen(prefix))) {
			snprintf(line, len, "%s", buf);
			return true;
		}
	}
}

/*
 * vellums still running when a test stops early: each holds the framebuffer,
 * so the next test could not unload the module.
 */
static pid_t running[8];

static void
stop_running_vellums(void)
{
	for (size_t i = 0; i < sizeof(running) / sizeof(running[0]); i++) {
		if (running[i] <= 0)
			continue;
		printf("note: stopping vellum (pid %d) left running\n", (int)running[i]);
		kill(running[i], SIGTERM);
		vellum_child_wait(running[i], 5);
		running[i] = 0;
	}
	fflush(stdout);
}

static void
track_running(pid_t pid, pid_t replacement)
{
	static bool registered;

	if (!registered) {
		atexit(stop_running_vellums);
		registered = true;
	}
	for (size_t i = 0; i < sizeof(running) / sizeof(running[0]); i++)
		if (running[i] == pid) {
			running[i] = replacement;
			return;
		}
}

static void
make_runtime_dir(struct vellum_run *run, const struct passwd *pw)
{
	snprintf(run->runtime_dir, sizeof(run->runtime_dir), "/tmp/vellum-test-XXXXXX");
	REQUIRE_MSG(mkdtemp(run->runtime_dir), "mkdtemp: %s", strerror(errno));
	if (pw)
		REQUIRE_OK(chown(run->runtime_dir, pw->pw_uid, pw->pw_gid));
	REQUIRE_OK(chmod(run->runtime_dir, 0700));
}

static void
become(const struct passwd *pw)
{
	if (initgroups(pw->pw_name, pw->pw_gid) || setgid(pw->pw_gid) || setuid(pw->pw_uid)) {
		fprintf(stderr, "cannot become %s: %s\n", pw->pw_name, strerror(errno));
		_exit(126);
	}
}

void
vellum_start(struct vellum_run *run, const char *const *args, const char *user)
{
	vellum_start_program(run, VELLUM_BIN, args, user);
}

void
vellum_start_program(
	struct vellum_run *run, const char *program, const char *const *args, const char *user)
{
	const struct passwd *pw = NULL;
	int fds[2];
	size_t n = 0;

	memset(run, 0, sizeof(*run));
	if (user) {
		pw = getpwnam(user);
		REQUIRE_MSG(pw, "no user %s", user);
	}
	make_runtime_dir(run, pw);
	while (args[n])
		n++;
	const char **argv = calloc(n + 2, sizeof(*argv));
	REQUIRE(argv);
	argv[0] = program;
	memcpy(argv + 1, args, n * sizeof(*argv));

	printf("%s", argv[0]);
	for (size_t i = 1; argv[i]; i++)
		printf(" %s", argv[i]);
	printf("%s%s\n", user ? " as " : "", user ? user : "");
	fflush(stdout);
	REQUIRE_OK(pipe2(fds, O_CLOEXEC));
	run->pid = fork();
	REQUIRE_MSG(run->pid >= 0, "fork: %s", strerror(errno));
	if (run->pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		setenv("XDG_RUNTIME_DIR", run->runtime_dir, 1);
		unsetenv("WAYLAND_DISPLAY");
		unsetenv("DISPLAY");
		if (pw) {
			setenv("HOME", run->runtime_dir, 1);
			setenv("USER", pw->pw_name, 1);
			become(pw);
		}
		execv(argv[0], (char *const *)argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	run->out_fd = fds[0];
	track_running(0, run->pid);
	free(argv);
}

bool
vellum_expect(
	struct vellum_run *run, const char *prefix, char *line, size_t len, unsigned int timeout_s)
{
	return vellum_read_line(run->out_fd, "vellum", prefix, line, len, timeout_s);
}

void
vellum_print_output(struct vellum_run *run)
{
	struct pollfd pfd = {.fd = run->out_fd, .events = POLLIN};
	char line[1024];

	/* the application may write a line in pieces: once one has begun, it waits for its end */
	while (poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN) &&
		read_line_until(run->out_fd, line, sizeof(line), epd_now_ns() + 2000000000ULL) > 0)
		printf("vellum| %s\n", line);
}

bool
vellum_expect_display(struct vellum_run *run, unsigned int timeout_s)
{
	char line[128];

	if (!vellum_expect(run, "display ", line, sizeof(line), timeout_s))
		return false;
	snprintf(run->display, sizeof(run->display), "%s", line + strlen("display "));
	return run->display[0] != '\0';
}

static int
status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

int
vellum_child_wait(pid_t pid, unsigned int timeout_s)
{
	uint64_t t0 = epd_now_ns();
	int status;

	for (;;) {
		pid_t got = waitpid(pid, &status, WNOHANG);

		if (got == pid)
			return status_of(status);
		if (got < 0)
			return -1;
		if (epd_ms_since(t0) > timeout_s * 1000.0) {
			printf("note: pid %d did not exit within %u s: killed\n", (int)pid,
				timeout_s);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		epd_sleep_ms(20);
	}
}

int
vellum_wait(struct vellum_run *run, unsigned int timeout_s)
{
	uint64_t deadline = epd_now_ns() + (uint64_t)timeout_s * 1000000000ULL;
	char line[1024];
	int got;

	/* its output ends when vellum and its application have exited */
	while ((got = read_line_until(run->out_fd, line, sizeof(line), deadline)) > 0)
		printf("vellum| %s\n", line);
	int status = vellum_child_wait(run->pid, got < 0 ? 10 : 1);
	track_running(run->pid, 0);
	close(run->out_fd);
	run->out_fd = -1;
	run->pid = 0;
	return status;
}

int
vellum_stop(struct vellum_run *run, int sig, unsigned int timeout_s)
{
	if (run->pid > 0)
		kill(run->pid, sig);
	return vellum_wait(run, timeout_s);
}

pid_t
vellum_client_start(const struct vellum_run *run, const char *const *argv, int *out_fd)
{
	int fds[2];
	pid_t pid;

	REQUIRE_OK(pipe2(fds, O_CLOEXEC));
	pid = fork();
	REQUIRE_MSG(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		setenv("XDG_RUNTIME_DIR", run->runtime_dir, 1);
		setenv("WAYLAND_DISPLAY", run->display, 1);
		/* a test client ends without freeing what it made: no leak reports in sanitizer
		 * builds */
		setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	*out_fd = fds[0];
	return pid;
}

long
vellum_proc_status(pid_t pid, const char *key)
{
	char path[64], *text, *line;
	long value = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	text = epd_read_file(path, NULL);
	if (!text)
		return -1;
	for (line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':') {
			value = strtol(line + strlen(key) + 1, NULL, 10);
			break;
		}
	}
	free(text);
	return value;
}

long
vellum_rss_kib(pid_t pid)
{
	return vellum_proc_status(pid, "VmRSS");
}

size_t
vellum_ink_box(const uint8_t *image, uint32_t stride, uint32_t x, uint32_t y, uint32_t w,
	uint32_t h, uint8_t paper, struct vellum_box *box)
{
	uint32_t x0 = UINT32_MAX, y0 = UINT32_MAX, x1 = 0, y1 = 0;
	size_t ink = 0;

	for (uint32_t row = y; row < y + h; row++) {
		for (uint32_t col = x; col < x + w; col++) {
			if (abs(image[(size_t)row * stride + col] - paper) <= 127)
				continue;
			ink++;
			x0 = col < x0 ? col : x0;
			y0 = row < y0 ? row : y0;
			x1 = col > x1 ? col : x1;
			y1 = row > y1 ? row : y1;
		}
	}
	if (box)
		*box = ink ? (struct vellum_box){x0, y0, x1 - x0 + 1, y1 - y0 + 1, ink}
			   : (struct vellum_box){0};
	return ink;
}

size_t
vellum_trace_count(struct epd *d)
{
	struct epd_trace *trace;
	size_t n = epd_trace_read(d, &trace);

	free(trace);
	return n;
}

bool
vellum_wait_full_update(struct epd *d, unsigned int timeout_s)
{
	for (unsigned int i = 0; i < timeout_s * 10; i++) {
		struct epd_trace *trace;
		size_t n = epd_trace_read(d, &trace);
		bool found = false;

		for (size_t j = 0; j < n; j++)
			found |= trace[j].width == d->width && trace[j].height == d->height;
		free(trace);
		if (found)
			return true;
		epd_sleep_ms(100);
	}
	return false;
}

/*
 * A size x size square, all the ink of the panel or all the ink inside the
 * frame around it (vellum's border of a dialog, a few pixels wide); *box
 * gets it, or all the panel's ink when there is none.
 */
static bool
marker_on(const uint8_t *panel, uint32_t width, uint32_t height, uint32_t size,
	struct vellum_box *box)
{
	struct vellum_box all;

	vellum_ink_box(panel, width, 0, 0, width, height, 255, &all);
	for (uint32_t inset = 0; inset <= 8 && all.width > 2 * inset && all.height > 2 * inset;
		inset++) {
		size_t ink = vellum_ink_box(panel, width, all.x + inset, all.y + inset,
			all.width - 2 * inset, all.height - 2 * inset, 255, box);
		if (ink == (size_t)size * size && box->width == size && box->height == size)
			return true;
	}
	*box = all;
	return false;
}

bool
vellum_find_marker(struct epd *d, uint32_t size, struct vellum_box *box)
{
	uint8_t *panel = epd_alloc_image(d);
	bool found = false;

	for (int i = 0; i < 300 && !found; i++) {
		if (i)
			epd_sleep_ms(200);
		epd_read_panel(d, panel);
		found = marker_on(panel, d->width, d->height, size, box);
	}
	if (!found)
		epd_fail(__FILE__, __LINE__,
			"no %ux%u marker on the panel: %zu dark pixels in %ux%u at %u,%u", size,
			size, box->ink, box->width, box->height, box->x, box->y);
	free(panel);
	return found;
}

bool
vellum_find_cursor(struct epd *d, struct vellum_box *cursor, uint8_t *paper)
{
	*cursor = (struct vellum_box){0};
	*paper = 255;
	for (int i = 0; i < 100; i++) {
		uint8_t *panel = epd_alloc_image(d);

		if (epd_wait_idle(d) != 0) {
			free(panel);
			epd_fail(__FILE__, __LINE__, "the panel never went idle");
			return false;
		}
		epd_read_panel(d, panel);
		*paper = panel[(size_t)d->width * d->height - 1];
		vellum_ink_box(panel, d->width, 0, 0, d->width, d->height, *paper, cursor);
		free(panel);
		if (cursor->ink)
			break;
		epd_sleep_ms(100);
	}
	printf("the cursor: %ux%u at %u,%u on paper %u\n", cursor->width, cursor->height, cursor->x,
		cursor->y, *paper);
	bool found = cursor->ink && cursor->width >= 4 && cursor->width <= 40 &&
		     cursor->height >= 8 && cursor->height <= 60;
	if (!found)
		epd_fail(__FILE__, __LINE__,
			"no cursor-sized box of ink on the panel: %zu pixels in %ux%u", cursor->ink,
			cursor->width, cursor->height);
	return found;
}
