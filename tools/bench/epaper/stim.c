// SPDX-License-Identifier: MIT
/*
 * The workload of one benchmark scenario, run inside a terminal (foot or
 * xterm) or beside a client that draws by itself (xclock):
 *
 *   epaper_stim [--silent | --keyboard | --type-keys] DIR SCENARIO COUNT INTERVAL_MS
 *               [DIR SCENARIO COUNT INTERVAL_MS]...
 *
 * SCENARIO is clock (the time, at each wall-clock second), type (a
 * character), scroll (a line, the text moves up by one), page (a new page of
 * text) or sweep (a vertical line one step to the right). It draws the
 * scenario's first screen, creates DIR/ready, waits for DIR/go, then makes
 * COUNT changes INTERVAL_MS apart (clock: at the next COUNT second
 * boundaries), each logged as "stim I NS" in DIR/stim (CLOCK_MONOTONIC, the
 * clock of the driver's trace), and creates DIR/done. It waits for
 * DIR/settled, then goes on with the next scenario; after the last one it
 * waits for ever, so that the terminal stays up until the harness stops it.
 *
 * Before the first change, before each change (see SAMPLE_EACH_MS) and once
 * settled it reads what the panel shows (debugfs panel of epdfb or epdrm)
 * and counts the pixels that changed since the last reading: "changed N" in
 * DIR/stim is what the panel had to change, the denominator of pixels
 * driven per pixel changed.
 *
 * --silent draws nothing (the clock scenario beside xclock). --keyboard,
 * silent too, creates a uinput keyboard before DIR/ready and makes each
 * change of the page scenario a press of the Right key: the page turns of a
 * client that turns pages on input (epaper-reader), timed from the key.
 * --type-keys creates one too, and types the type scenario's characters
 * with it (the letters a to z over and over) instead of printing them: the
 * terminal echoes each key, as a user's typing, timed from the key.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/input-event-codes.h>

#include "bench_panel.h"
#include "epd_test.h"
#include "vm_input.h"

/* A pixel changed when it moved by more than ghosting leaves behind: a GC16 level. */
#define CHANGE_THRESHOLD 16
/*
 * Changes at least this far apart are each preceded by a reading of the
 * panel; faster ones (typing) only get one before the first and one at the
 * end, which counts what they changed as long as no pixel changes twice.
 */
#define SAMPLE_EACH_MS 500

static const char text[] =
	"E-paper keeps its image without power and reads like paper in the sun, "
	"but every update drives the pixels through a waveform that takes a tenth "
	"of a second to two seconds, and every driven pixel costs time, power and "
	"ghosting. The display stack should drive what changed and nothing else. ";

struct stim {
	const char *dir;
	FILE *log;
	struct epd dev;
	uint8_t *previous, *current;
	unsigned long long changed;
	unsigned short cols, rows;
	bool silent;
	bool type_keys; /* the type scenario presses keys on the keyboard */
	int keyboard;   /* -1: none */
};

static uint64_t
realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void
sleep_until_monotonic(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ULL), .tv_nsec = (long)(ns % 1000000000ULL)};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* The file name in the run's directory, allocated. */
static char *
path_in(const struct stim *s, const char *name)
{
	char *path;

	REQUIRE(asprintf(&path, "%s/%s", s->dir, name) >= 0);
	return path;
}

static void
touch(const struct stim *s, const char *name)
{
	char *path = path_in(s, name);
	FILE *f;

	f = fopen(path, "w");
	REQUIRE_MSG(f, "cannot create %s: %s", path, strerror(errno));
	fclose(f);
	free(path);
}

static void
wait_for(const struct stim *s, const char *name)
{
	char *path = path_in(s, name);

	while (access(path, F_OK) != 0)
		epd_sleep_ms(20);
	free(path);
}

/* Reads the panel and adds the pixels that moved since the last reading. */
static void
sample_panel(struct stim *s)
{
	size_t n = (size_t)s->dev.width * s->dev.height;

	epd_read_panel(&s->dev, s->current);
	for (size_t i = 0; i < n; i++)
		s->changed += abs(s->current[i] - s->previous[i]) > CHANGE_THRESHOLD;
	uint8_t *swap = s->previous;
	s->previous = s->current;
	s->current = swap;
}

static void out(const struct stim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
out(const struct stim *s, const char *fmt, ...)
{
	va_list ap;

	if (s->silent)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static void
show_time(const struct stim *s)
{
	time_t now = time(NULL);
	char line[64];

	/* xclock -digital's format */
	strftime(line, sizeof(line), "%a %b %e %H:%M:%S %Y", localtime(&now));
	out(s, "\r  %s", line);
}

/* A line of text of the terminal's width, different for every n. */
static void
text_line(const struct stim *s, unsigned int n)
{
	size_t len = strlen(text), width = s->cols > 1 ? s->cols - 1u : 1u;
	size_t from = (n * 37u) % len;

	for (size_t i = 0; i < width; i++)
		putchar(text[(from + i) % len]);
}

static void
page(const struct stim *s, unsigned int n)
{
	if (s->keyboard >= 0 && n > 0)
		vm_key(s->keyboard, KEY_RIGHT);
	if (s->silent)
		return;
	printf("\033[H\033[2J-- page %u --\n", n + 1);
	for (unsigned int row = 1; row + 1 < s->rows; row++) {
		text_line(s, n * s->rows + row);
		putchar('\n');
	}
	fflush(stdout);
}

/* The sweeping line: column col of every row, drawn (or erased). */
static void
sweep_column(const struct stim *s, unsigned int col, bool draw)
{
	if (s->silent || col >= s->cols)
		return;
	for (unsigned int row = 1; row <= s->rows; row++)
		printf("\033[%u;%uH%s", row, col + 1, draw ? "\u2502" : " ");
	fflush(stdout);
}

static unsigned int
sweep_step(const struct stim *s, unsigned int count)
{
	return s->cols / count > 1 ? s->cols / count : 1;
}

static void
first_screen(struct stim *s, const char *scenario, unsigned int count)
{
	(void)count;
	out(s, "\033[?25l\033[H\033[2J");
	if (!strcmp(scenario, "clock")) {
		show_time(s);
	} else if (!strcmp(scenario, "type")) {
		out(s, "$ ");
	} else if (!strcmp(scenario, "scroll")) {
		for (unsigned int row = 0; row + 1 < s->rows; row++) {
			if (!s->silent) {
				text_line(s, row);
				putchar('\n');
			}
		}
	} else if (!strcmp(scenario, "page")) {
		page(s, 0);
	} else if (!strcmp(scenario, "sweep")) {
		sweep_column(s, 0, true);
	}
	fflush(stdout);
}

static void
change(struct stim *s, const char *scenario, unsigned int i, unsigned int count)
{
	if (!strcmp(scenario, "clock")) {
		show_time(s);
	} else if (!strcmp(scenario, "type") && s->type_keys) {
		static const uint16_t letters[26] = {KEY_A, KEY_B, KEY_C, KEY_D, KEY_E, KEY_F,
			KEY_G, KEY_H, KEY_I, KEY_J, KEY_K, KEY_L, KEY_M, KEY_N, KEY_O, KEY_P, KEY_Q,
			KEY_R, KEY_S, KEY_T, KEY_U, KEY_V, KEY_W, KEY_X, KEY_Y, KEY_Z};
		vm_key(s->keyboard, letters[i % 26]);
	} else if (!strcmp(scenario, "type")) {
		out(s, "%c", text[i % (sizeof(text) - 1)]);
	} else if (!strcmp(scenario, "scroll")) {
		if (!s->silent) {
			text_line(s, s->rows + i);
			putchar('\n');
			fflush(stdout);
		}
	} else if (!strcmp(scenario, "page")) {
		page(s, i + 1);
	} else if (!strcmp(scenario, "sweep")) {
		unsigned int step = sweep_step(s, count);

		sweep_column(s, i * step, false);
		sweep_column(s, (i + 1) * step, true);
	}
}

/* Runs one scenario: its first screen, the handshake, the changes, the final reading. */
static void
run_scenario(struct stim *s, const char *scenario, unsigned int count, unsigned int interval_ms)
{
	char *path = path_in(s, "stim");
	/* a reading costs a few hundred ms in the VM: fast typing would fall behind */
	bool sample_each = interval_ms >= SAMPLE_EACH_MS;

	s->log = fopen(path, "w");
	REQUIRE_MSG(s->log, "cannot create %s: %s", path, strerror(errno));
	free(path);
	fprintf(s->log, "terminal %u %u\n", s->cols, s->rows);
	s->changed = 0;

	first_screen(s, scenario, count);
	touch(s, "ready");
	wait_for(s, "go");
	epd_read_panel(&s->dev, s->previous);

	uint64_t t0 = epd_now_ns();
	for (unsigned int i = 0; i < count; i++) {
		uint64_t at = t0 + (uint64_t)i * interval_ms * 1000000ULL;

		/* before the change, so that its time stays exact */
		if (sample_each)
			sample_panel(s);
		if (!strcmp(scenario, "clock")) {
			/* xclock ticks at the wall clock's seconds: so does this */
			uint64_t real = realtime_ns();
			at = epd_now_ns() + 1000000000ULL - real % 1000000000ULL;
		}
		sleep_until_monotonic(at);
		fprintf(s->log, "stim %u %llu\n", i, (unsigned long long)epd_now_ns());
		change(s, scenario, i, count);
	}
	fflush(s->log);
	touch(s, "done");
	wait_for(s, "settled");
	sample_panel(s);
	fprintf(s->log, "changed %llu\n", s->changed);
	fclose(s->log);
	touch(s, "finished");
}

int
main(int argc, char **argv)
{
	struct stim s = {.keyboard = -1};
	int arg = 1;
	bool keyboard = false;

	if (argc > 1 && !strcmp(argv[1], "--silent")) {
		s.silent = true;
		arg++;
	} else if (argc > 1 && !strcmp(argv[1], "--keyboard")) {
		s.silent = keyboard = true;
		arg++;
	} else if (argc > 1 && !strcmp(argv[1], "--type-keys")) {
		s.type_keys = keyboard = true;
		arg++;
	}
	if (argc - arg < 4 || (argc - arg) % 4) {
		fprintf(stderr, "usage: epaper_stim [--silent | --keyboard | --type-keys] DIR "
				"SCENARIO COUNT INTERVAL_MS...\n");
		return 2;
	}
	for (int i = arg; i < argc; i += 4) {
		const char *scenario = argv[i + 1];

		if (atoi(argv[i + 2]) <= 0 || atoi(argv[i + 3]) <= 0 ||
			!strstr(" clock type scroll page sweep ", scenario) ||
			strchr(scenario, ' ') || !scenario[0]) {
			fprintf(stderr, "epaper_stim: bad scenario, count or interval: %s %s %s\n",
				scenario, argv[i + 2], argv[i + 3]);
			return 2;
		}
	}

	struct winsize ws = {0};
	if (!s.silent && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		s.cols = ws.ws_col;
		s.rows = ws.ws_row;
	} else {
		s.cols = 80;
		s.rows = 24;
	}
	if (keyboard) {
		vm_input_setup();
		s.keyboard = vm_uinput_keyboard();
		vm_udev_settle();
		/* the compositor's libinput adds it on udev's event */
		epd_sleep_ms(1000);
	}
	bench_panel_attach(&s.dev);
	s.previous = epd_alloc_image(&s.dev);
	s.current = epd_alloc_image(&s.dev);

	for (int i = arg; i < argc; i += 4) {
		s.dir = argv[i];
		run_scenario(&s, argv[i + 1], (unsigned int)atoi(argv[i + 2]),
			(unsigned int)atoi(argv[i + 3]));
	}
	for (;;)
		pause();
}
