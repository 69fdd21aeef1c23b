// SPDX-License-Identifier: MIT
/*
 * One panel model: the same scripted session under vellum on epdfb and
 * under vellum -d preview gives the same updates and the same panel.
 *
 * The session is refresh_client's steps: a white fullscreen window, then
 * rects of black, white and grays and a full refresh, each command sent
 * once the panel showed the one before (its epaper-refresh-v1 feedback),
 * so that no update meets another and the trace does not depend on the
 * machine's speed. The policy's flash after three partial updates of an
 * area stays on, its clocks (idle cleanup, flash interval) are off.
 *
 * On epdfb the trace and the panel come from debugfs. The preview runs
 * nested in vellum on the memory panel, its desktop here, and its --record
 * writes the trace (updates.txt, in the debugfs file's format: read by the
 * same parser) and the panel (panel.pgm) as it exits. Both must have the
 * same updates in the same order (marker, rect, waveform, mode, flags,
 * merges, collisions, flash), the client the same feedback, and the panels
 * the same pixels.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "epd_test.h"
#include "vellum_panel.h"
#include "vellum_run.h"

#define PANEL_W    640
#define PANEL_H    480
#define TIME_SCALE "10"

static const char config_text[] = "[refresh]\n"
				  "full-refresh-every = 3\n"
				  "full-refresh-interval = off\n"
				  "idle-cleanup = off\n";

static const char *const script[] = {
	"rect 40 40 200 120 0",
	"rect 300 40 200 120 128",
	"rect 40 40 200 120 255",
	"rect 40 40 200 120 0",
	"rect 40 40 200 120 128",
	"rect 100 250 400 150 64",
	"rect 320 320 40 40 0",
	"full",
	"rect 100 250 400 150 255",
	"rect 0 0 640 24 200",
	"rect 600 440 40 40 0",
	"rect 10 200 620 8 0",
};
#define SCRIPT_LEN (sizeof(script) / sizeof(script[0]))

struct session {
	char feedback[SCRIPT_LEN + 1][160];
	struct epd_trace *trace;
	size_t trace_len;
	uint8_t *panel;
};

static char config[64], fifo[64];

/*
 * The inner command both sessions run: refresh_client's steps on the
 * FIFO the test writes.
 */
static char *
client_command(void)
{
	char *command;

	REQUIRE(asprintf(&command, VELLUM_SAY_DISPLAY "exec %s steps <%s", REFRESH_CLIENT_BIN,
			fifo) >= 0);
	return command;
}

/* Runs the script through the FIFO: every feedback line, the first frame's first. */
static void
run_script(struct vellum_run *run, int commands, struct session *s)
{
	char prefix[32];

	for (size_t step = 0; step <= SCRIPT_LEN; step++) {
		if (step > 0) {
			char line[64];
			int len = snprintf(line, sizeof(line), "%s\n", script[step - 1]);
			REQUIRE_RC(write(commands, line, (size_t)len), len);
		}
		snprintf(prefix, sizeof(prefix), "feedback %zu ", step);
		REQUIRE_MSG(vellum_expect(
				    run, prefix, s->feedback[step], sizeof(s->feedback[step]), 120),
			"no feedback for step %zu (%s)", step,
			step ? script[step - 1] : "first frame");
		CHECK_MSG(strstr(s->feedback[step], " refreshed "), "step %zu was not shown: %s",
			step, s->feedback[step]);
	}
}

static int
open_fifo(void)
{
	unlink(fifo);
	REQUIRE_OK(mkfifo(fifo, 0600));
	/* read and write: neither the test nor the client waits for the other to open it */
	int fd = open(fifo, O_RDWR | O_CLOEXEC);
	REQUIRE_MSG(fd >= 0, "open %s: %s", fifo, strerror(errno));
	return fd;
}

static void
session_on_epdfb(struct epd *d, struct session *s)
{
	struct vellum_run run;
	char *command = client_command();
	int commands = open_fifo();

	vellum_panel_clear(d);
	epd_trace_clear(d);
	const char *args[] = {
		"-c", config, "--no-xwayland", "-d", d->devnode, "--", "sh", "-c", command, NULL};
	vellum_start(&run, args, NULL);
	REQUIRE(vellum_expect_display(&run, 120));
	run_script(&run, commands, s);
	s->trace_len = epd_trace_read(d, &s->trace);
	s->panel = epd_alloc_image(d);
	epd_read_panel(d, s->panel);
	CHECK_EQ(vellum_stop(&run, SIGTERM, 60), 128 + SIGTERM);
	close(commands);
	free(command);
}

static void
session_on_preview(struct session *s, const char *record_dir)
{
	struct vellum_run run;
	char *command = client_command(), *preview, line[256];
	int commands = open_fifo();

	/* the desktop's application is the preview, which says its pid for the test to end it */
	REQUIRE(asprintf(&preview,
			"echo \"preview $$\"; exec %s -c %s --no-xwayland -d preview:%ux%u "
			"--time-scale %s --record %s -- sh -c '%s'",
			VELLUM_BIN, config, PANEL_W, PANEL_H, TIME_SCALE, record_dir,
			command) >= 0);
	char desktop_size[32];
	snprintf(desktop_size, sizeof(desktop_size), "memory:%ux%u", PANEL_W, PANEL_H);
	const char *args[] = {
		"-c", config, "--no-xwayland", "-d", desktop_size, "--", "sh", "-c", preview, NULL};
	vellum_start(&run, args, NULL);
	REQUIRE(vellum_expect(&run, "preview ", line, sizeof(line), 60));
	pid_t preview_pid = (pid_t)atoi(line + strlen("preview "));
	REQUIRE(preview_pid > 0);
	REQUIRE(vellum_expect_display(&run, 120));
	run_script(&run, commands, s);
	/* the preview writes its recording as it ends; the desktop ends with it */
	REQUIRE_OK(kill(preview_pid, SIGTERM));
	CHECK_EQ(vellum_wait(&run, 120), 128 + SIGTERM);
	close(commands);

	char path[256];
	snprintf(path, sizeof(path), "%s/updates.txt", record_dir);
	s->trace_len = epd_trace_read_file(path, &s->trace);
	snprintf(path, sizeof(path), "%s/panel.pgm", record_dir);
	s->panel = malloc((size_t)PANEL_W * PANEL_H);
	REQUIRE(s->panel);
	epd_read_pgm(path, PANEL_W, PANEL_H, s->panel);
	free(preview);
	free(command);
}

static bool
same_update(const struct epd_trace *a, const struct epd_trace *b)
{
	return a->marker == b->marker && a->left == b->left && a->top == b->top &&
	       a->width == b->width && a->height == b->height &&
	       !strcmp(a->waveform, b->waveform) && !strcmp(a->mode, b->mode) &&
	       a->flags == b->flags && a->merged == b->merged && a->collided == b->collided &&
	       a->flash == b->flash;
}

static void
compare(const struct session *epdfb, const struct session *preview)
{
	epd_phase("the same updates, feedback and panel");
	for (size_t step = 0; step <= SCRIPT_LEN; step++)
		CHECK_MSG(!strcmp(epdfb->feedback[step], preview->feedback[step]),
			"step %zu: \"%s\" on epdfb, \"%s\" on the preview", step,
			epdfb->feedback[step], preview->feedback[step]);

	bool same = epdfb->trace_len == preview->trace_len;
	for (size_t i = 0; same && i < epdfb->trace_len; i++)
		same = same_update(&epdfb->trace[i], &preview->trace[i]);
	CHECK_MSG(same, "the traces differ: %zu updates on epdfb, %zu on the preview",
		epdfb->trace_len, preview->trace_len);
	printf("%s trace, %zu updates:\n", same ? "the" : "epdfb's", epdfb->trace_len);
	for (size_t i = 0; i < epdfb->trace_len; i++)
		epd_trace_print(&epdfb->trace[i]);
	if (!same) {
		printf("the preview's trace, %zu updates:\n", preview->trace_len);
		for (size_t i = 0; i < preview->trace_len; i++)
			epd_trace_print(&preview->trace[i]);
	}
	/* more than the first frame's flash: the script's updates are in it */
	CHECK_MSG(epdfb->trace_len > SCRIPT_LEN / 2, "only %zu updates in epdfb's trace",
		epdfb->trace_len);

	size_t differ = 0, first = 0;
	for (size_t i = (size_t)PANEL_W * PANEL_H; i-- > 0;)
		if (epdfb->panel[i] != preview->panel[i]) {
			differ++;
			first = i;
		}
	CHECK_MSG(differ == 0,
		"%zu pixels differ, the first at %zu,%zu: %u on epdfb, %u on the preview", differ,
		first % PANEL_W, first / PANEL_W, differ ? epdfb->panel[first] : 0,
		differ ? preview->panel[first] : 0);
}

int
main(void)
{
	struct epd dev, *d = &dev;
	struct session on_epdfb = {0}, on_preview = {0};
	char record_dir[64];

	epd_begin("vellum_preview", 600);
	vellum_panel_open(d, "width=640 height=480 bpp=8 time_scale=" TIME_SCALE);
	snprintf(config, sizeof(config), "/tmp/vellum-preview-%d.conf", (int)getpid());
	snprintf(fifo, sizeof(fifo), "/tmp/vellum-preview-%d.fifo", (int)getpid());
	snprintf(record_dir, sizeof(record_dir), "/tmp/vellum-preview-%d.record", (int)getpid());
	FILE *f = fopen(config, "w");
	REQUIRE(f && fputs(config_text, f) >= 0 && fclose(f) == 0);

	epd_phase("the session on epdfb");
	session_on_epdfb(d, &on_epdfb);
	epd_phase("the session on the preview");
	session_on_preview(&on_preview, record_dir);
	compare(&on_epdfb, &on_preview);

	free(on_epdfb.trace);
	free(on_epdfb.panel);
	free(on_preview.trace);
	free(on_preview.panel);
	unlink(config);
	unlink(fifo);
	char command[128], out[256];
	snprintf(command, sizeof(command), "rm -r %s", record_dir);
	CHECK_RC(epd_run_command(command, out, sizeof(out)), 0);
	epd_close(d);
	return epd_end();
}
