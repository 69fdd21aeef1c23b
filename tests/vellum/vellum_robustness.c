// SPDX-License-Identifier: MIT
/*
 * Misbehaving clients under vellum on the memory panel: one ended by a
 * protocol error, one killed with SIGKILL while it draws, one committing as
 * fast as it can for 5 s, one making its window's roles again and again
 * (vellum's RSS stays bounded while it is still there), one mapping and
 * destroying window after window (the last frames vellum keeps of them hold
 * two panels' worth of the client's buffers at most, and are few however
 * small). After each, vellum
 * still runs and serves the next client; its RSS after them all stays
 * within a bound of what it was after a first client; and the panel ends
 * showing the last client's frame.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "epd_test.h"
#include "vellum_run.h"

#define PANEL_W 640
#define PANEL_H 480
/* Growth allowed: a few frames' buffers and the allocator's slack; a leak per commit is far more.
 */
#define RSS_GROWTH_LIMIT_KIB (16 * 1024)

static struct vellum_run run;

static bool
vellum_alive(void)
{
	return kill(run.pid, 0) == 0 && vellum_proc_status(run.pid, "VmRSS") > 0;
}

/* Runs misbehave with args until its output has a line starting with prefix; its pid. */
static pid_t
client(const char *const *args, const char *prefix, int *out_fd, unsigned int timeout_s)
{
	const char *argv[8] = {MISBEHAVE_BIN};
	char line[256];

	for (int i = 0; args[i] && i < 6; i++)
		argv[i + 1] = args[i];
	pid_t pid = vellum_client_start(&run, argv, out_fd);
	CHECK_MSG(vellum_read_line(*out_fd, args[0], prefix, line, sizeof(line), timeout_s),
		"misbehave %s printed no \"%s\"", args[0], prefix);
	return pid;
}

/* A client that shows its frame; its pid (it stays until killed). */
static pid_t
show(int *out_fd)
{
	return client((const char *const[]){"show", NULL}, "shown ", out_fd, 60);
}

static void
end_client(pid_t pid, int out_fd)
{
	kill(pid, SIGKILL);
	vellum_child_wait(pid, 10);
	close(out_fd);
}

/* What vellum has mapped of the test clients' buffers, in KiB. */
static long
client_buffers_kib(pid_t pid)
{
	char path[64], line[512];
	long kib = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *maps = fopen(path, "r");
	REQUIRE_MSG(maps, "cannot read %s", path);
	while (fgets(line, sizeof(line), maps)) {
		unsigned long start, end;
		if (strstr(line, "memfd:vt-buffer") && sscanf(line, "%lx-%lx", &start, &end) == 2)
			kib += (long)((end - start) / 1024);
	}
	fclose(maps);
	return kib;
}

static void
check_panel(const char *path)
{
	size_t len = 0;
	uint8_t *pgm = (uint8_t *)epd_read_file(path, &len);
	char header[32];
	int header_len = snprintf(header, sizeof(header), "P5\n%d %d\n255\n", PANEL_W, PANEL_H);
	size_t wrong = 0;

	REQUIRE_MSG(pgm, "vellum wrote no panel image to %s", path);
	REQUIRE_MSG(len == (size_t)header_len + PANEL_W * PANEL_H &&
			    !memcmp(pgm, header, (size_t)header_len),
		"%s is no %dx%d PGM", path, PANEL_W, PANEL_H);
	const uint8_t *panel = pgm + header_len;
	for (int y = 0; y < PANEL_H; y++)
		for (int x = 0; x < PANEL_W; x++)
			wrong += panel[y * PANEL_W + x] != (x < PANEL_W / 2 ? 0 : 255);
	CHECK_MSG(wrong == 0,
		"the panel does not show the last client's frame (left half black, right "
		"half white): %zu pixels differ",
		wrong);
	free(pgm);
}

int
main(void)
{
	char panel_path[128];
	int out_fd;
	pid_t pid;

	epd_begin("vellum_robustness", 170);
	snprintf(panel_path, sizeof(panel_path), "/tmp/vellum-robustness-%d.pgm", (int)getpid());
	setenv("VELLUM_MEMORY_PANEL", panel_path, 1);
	unlink(panel_path);
	const char *args[] = {"-d", "memory:640x480", "--no-xwayland", "--", "sh", "-c",
		VELLUM_SAY_DISPLAY "exec sleep 600", NULL};
	vellum_start(&run, args, NULL);
	REQUIRE(vellum_expect_display(&run, 60));

	epd_phase("a first client");
	pid = show(&out_fd);
	end_client(pid, out_fd);
	long rss_before = vellum_rss_kib(run.pid);
	REQUIRE(vellum_alive());

	epd_phase("a protocol error");
	pid = client((const char *const[]){"error", NULL}, "protocol error", &out_fd, 60);
	CHECK_EQ(vellum_child_wait(pid, 30), 0);
	close(out_fd);
	CHECK_MSG(vellum_alive(), "vellum ended after a client's protocol error");

	epd_phase("a client killed while drawing");
	pid = client((const char *const[]){"draw", NULL}, "drawing", &out_fd, 60);
	/* a few more frames, so that it is killed mid-frame rather than idle */
	epd_sleep_ms(300);
	end_client(pid, out_fd);
	CHECK_MSG(vellum_alive(), "vellum ended after a client was killed while drawing");

	epd_phase("a client that commits as fast as it can for 5 s");
	pid = client((const char *const[]){"flood", "5", NULL}, "flooded", &out_fd, 90);
	CHECK_EQ(vellum_child_wait(pid, 30), 0);
	close(out_fd);
	CHECK_MSG(vellum_alive(), "vellum ended after a commit flood");

	epd_phase("a client that makes its window's roles again, 30000 times");
	long rss_roles = vellum_rss_kib(run.pid);
	pid = client(
		(const char *const[]){"roles", "30000", NULL}, "roles made again", &out_fd, 120);
	/* what its roles left is measured while the client is there to own it */
	long rss_roles_after = vellum_rss_kib(run.pid);
	printf("vellum's VmRSS: %ld KiB before the roles made again, %ld KiB after\n", rss_roles,
		rss_roles_after);
	CHECK_LE(rss_roles_after - rss_roles, RSS_GROWTH_LIMIT_KIB);
	end_client(pid, out_fd);
	CHECK_MSG(vellum_alive(), "vellum ended after roles made again");

	epd_phase("a client that maps and destroys 40 windows between frames");
	pid = client((const char *const[]){"windows", "40", NULL}, "windows gone", &out_fd, 120);
	long kept_kib = client_buffers_kib(run.pid);
	printf("vellum maps %ld KiB of the clients' buffers after 40 windows went\n", kept_kib);
	CHECK_LE(kept_kib, 2 * PANEL_W * PANEL_H * 4 / 1024);
	end_client(pid, out_fd);
	CHECK_MSG(vellum_alive(), "vellum ended after windows mapped and destroyed");

	epd_phase("a client that maps and destroys 40000 tiny windows between frames");
	long rss_tiny = vellum_rss_kib(run.pid);
	pid = client((const char *const[]){"windows", "40000", "tiny", NULL}, "windows gone",
		&out_fd, 150);
	long rss_tiny_after = vellum_rss_kib(run.pid);
	printf("vellum's VmRSS: %ld KiB before the tiny windows, %ld KiB after\n", rss_tiny,
		rss_tiny_after);
	CHECK_LE(rss_tiny_after - rss_tiny, RSS_GROWTH_LIMIT_KIB);
	end_client(pid, out_fd);
	CHECK_MSG(vellum_alive(), "vellum ended after tiny windows mapped and destroyed");

	epd_phase("the last client is served and shown");
	pid = show(&out_fd);
	long rss_after = vellum_rss_kib(run.pid);
	printf("vellum's VmRSS: %ld KiB after the first client, %ld KiB after the "
	       "misbehaving ones (peak VmHWM %ld KiB)\n",
		rss_before, rss_after, vellum_proc_status(run.pid, "VmHWM"));
	CHECK_GT(rss_before, 0);
	CHECK_LE(rss_after - rss_before, RSS_GROWTH_LIMIT_KIB);

	/* vellum writes what its panel shows when it ends */
	/* it ends its application with the same signal, and exits with its status */
	CHECK_EQ(vellum_stop(&run, SIGTERM, 60), 128 + SIGTERM);
	end_client(pid, out_fd);
	check_panel(panel_path);
	unlink(panel_path);
	rmdir(run.runtime_dir);
	return epd_end();
}
