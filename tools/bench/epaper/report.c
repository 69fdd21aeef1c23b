// SPDX-License-Identifier: MIT
/*
 * The benchmark's figures, from what one run per configuration and scenario
 * left in its directory:
 *
 *   epaper_report CSV RUN_DIR...
 *
 * A run directory holds the driver's debugfs `stats` and `updates` (the
 * trace) as they were when the panel settled after the workload, `stim`
 * (the workload's changes, "stim I NS", and the pixels the panel had to
 * change, "changed N"), optionally `input` (pen events, "input I NS") and
 * `info`: "config C", "scenario S", "stack TEXT", "note TEXT", "cpu_ticks N"
 * (utime + stime of the display stack's processes over the workload),
 * "clk_tck N", and from runs on more than one panel "panel NAME",
 * "panel_mode TEXT" (its size, physical size and depth) and, for vellum's
 * stacks, "scale S" (vellum's output scale). A run without a panel line
 * (the benchmark's before it had panels) is on an unnamed panel, "-".
 *
 * Times are CLOCK_MONOTONIC nanoseconds, the driver's clock. A change is
 * shown by the updates submitted from its time until the next change's
 * (the last one: one interval); when frame pacing or deferred IO folded it
 * into a later change's updates, by those. Its latency ends when the last
 * of them ended on the panel; its software part ends when the first was
 * submitted to the driver. A pen event is inked by the first update
 * submitted after it; input to ink ends when that update starts on the
 * panel.
 *
 * Prints a table on stdout and writes the same figures to CSV, then the
 * panels with vellum's output scale on each. Where a run of configuration
 * e (a's stack on epdrm) or f (a's stack on an emulated IT8951 board over
 * USB) has a's of the same scenario on the same panel, it then prints its
 * figures against a's, with the targets it is held to (againsts[]): no more
 * pixels driven per pixel changed than a, a latency (p50) within 10 % of
 * a's (f: 20 %, USB transfers included), and for f at most a byte over USB
 * (the stats' usb_bytes: commands, data and status) per pixel changed.
 * Runs of g and h (sway and weston on epdrm, which know nothing of
 * e-paper) are held against vellum's on the same panel (e's, else a's):
 * see foreigns[].
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "epd_test.h"

struct times {
	uint64_t *ns;
	size_t n;
};

struct figures {
	char config[16], scenario[16], panel[16], panel_mode[64], scale[16], stack[64], note[160];
	size_t changes, shown;
	double latency_p50, latency_p99, software_p50, software_p99;
	double driven_per_changed;
	long long updates, flashes, driven, changed;
	/* over USB to an IT8951 board: its stats' usb_bytes, or -1 */
	long long usb_bytes;
	double usb_bytes_per_changed;
	double flashes_per_minute, ghost_mean, cpu_ms_per_update;
	size_t inputs, inked;
	double ink_p50, ink_p99;
	/*
	 * While the changes were made (from the first until an interval after
	 * the last): updates, those of the whole panel (-1: its size unknown)
	 * and flashing ones
	 */
	long long working_updates, working_whole, working_flashes;
};

static void
times_add(struct times *t, uint64_t ns)
{
	t->ns = realloc(t->ns, (t->n + 1) * sizeof(*t->ns));
	REQUIRE(t->ns);
	t->ns[t->n++] = ns;
}

static int
compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of n values (sorted here); NAN for none. */
static double
percentile(double *values, size_t n, double p)
{
	if (n == 0)
		return NAN;
	qsort(values, n, sizeof(*values), compare_double);
	size_t rank = (size_t)ceil(p / 100.0 * (double)n);
	return values[rank ? rank - 1 : 0];
}

/* The "KEY I NS" lines of a file, and "changed N" into *changed when asked. */
static void
read_times(const char *path, const char *key, struct times *t, long long *changed)
{
	char *text = epd_read_file(path, NULL);

	memset(t, 0, sizeof(*t));
	if (!text)
		return;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long ns, value;
		unsigned int i;
		char word[16];

		if (sscanf(line, "%15s %u %llu", word, &i, &ns) == 3 && !strcmp(word, key))
			times_add(t, ns);
		else if (changed && sscanf(line, "changed %llu", &value) == 1)
			*changed = (long long)value;
	}
	free(text);
}

/* DIR/NAME, allocated. */
static char *
path_in(const char *dir, const char *name)
{
	char *path;

	REQUIRE(asprintf(&path, "%s/%s", dir, name) >= 0);
	return path;
}

static void
read_info(const char *dir, struct figures *f, long long *cpu_ticks, long *clk_tck)
{
	char *path = path_in(dir, "info");
	char *text = epd_read_file(path, NULL);
	REQUIRE_MSG(text, "%s: %s", path, strerror(errno));
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *value = strchr(line, ' ');

		if (!value)
			continue;
		*value++ = '\0';
		if (!strcmp(line, "config"))
			snprintf(f->config, sizeof(f->config), "%s", value);
		else if (!strcmp(line, "scenario"))
			snprintf(f->scenario, sizeof(f->scenario), "%s", value);
		else if (!strcmp(line, "panel"))
			snprintf(f->panel, sizeof(f->panel), "%s", value);
		else if (!strcmp(line, "panel_mode"))
			snprintf(f->panel_mode, sizeof(f->panel_mode), "%s", value);
		else if (!strcmp(line, "scale"))
			snprintf(f->scale, sizeof(f->scale), "%s", value);
		else if (!strcmp(line, "stack"))
			snprintf(f->stack, sizeof(f->stack), "%s", value);
		else if (!strcmp(line, "note"))
			snprintf(f->note, sizeof(f->note), "%s", value);
		else if (!strcmp(line, "cpu_ticks"))
			*cpu_ticks = atoll(value);
		else if (!strcmp(line, "clk_tck"))
			*clk_tck = atol(value);
	}
	free(text);
	REQUIRE_MSG(f->config[0] && f->scenario[0], "%s: no config or scenario line", path);
	free(path);
}

static uint64_t typical_interval(const struct times *t);

/* The updates submitted while the changes were made, of the whole panel, flashing. */
static void
working_updates(struct figures *f, const struct times *changes, const struct epd_trace *trace,
	size_t n_trace)
{
	unsigned int width = 0, height = 0;

	f->working_whole = sscanf(f->panel_mode, "%ux%u", &width, &height) == 2 ? 0 : -1;
	if (!changes->n)
		return;
	uint64_t from = changes->ns[0],
		 to = changes->ns[changes->n - 1] + typical_interval(changes);
	for (size_t i = 0; i < n_trace; i++) {
		if (trace[i].submit_ns < from || trace[i].submit_ns >= to)
			continue;
		f->working_updates++;
		f->working_flashes += trace[i].flash != 0;
		if (f->working_whole >= 0)
			f->working_whole += trace[i].width == width && trace[i].height == height;
	}
}

/* The median gap between changes: how long the last one is given. */
static uint64_t
typical_interval(const struct times *t)
{
	if (t->n < 2)
		return 1000000000ULL;
	double *gaps = calloc(t->n - 1, sizeof(*gaps));
	REQUIRE(gaps);
	for (size_t i = 1; i < t->n; i++)
		gaps[i - 1] = (double)(t->ns[i] - t->ns[i - 1]);
	uint64_t gap = (uint64_t)percentile(gaps, t->n - 1, 50);
	free(gaps);
	return gap;
}

static void
latencies(struct figures *f, const struct times *changes, const struct epd_trace *trace,
	size_t n_trace)
{
	uint64_t interval = typical_interval(changes);
	double *latency = calloc(changes->n + 1, sizeof(double));
	double *software = calloc(changes->n + 1, sizeof(double));
	/* per change: the first submission and the last end of its window's updates */
	uint64_t *first = calloc(changes->n + 1, sizeof(uint64_t));
	uint64_t *last = calloc(changes->n + 1, sizeof(uint64_t));

	REQUIRE(latency && software && first && last);
	for (size_t i = 0; i < changes->n; i++) {
		uint64_t from = changes->ns[i];
		uint64_t to = i + 1 < changes->n ? changes->ns[i + 1] : from + interval;

		for (size_t j = 0; j < n_trace; j++) {
			if (trace[j].submit_ns < from || trace[j].submit_ns >= to)
				continue;
			if (!first[i] || trace[j].submit_ns < first[i])
				first[i] = trace[j].submit_ns;
			if (trace[j].end_ns > last[i])
				last[i] = trace[j].end_ns;
		}
	}
	for (size_t i = 0; i < changes->n; i++) {
		size_t k = i;

		while (k < changes->n && !first[k])
			k++;
		if (k == changes->n)
			continue;
		latency[f->shown] = (double)(last[k] - changes->ns[i]) / 1e6;
		software[f->shown] = (double)(first[k] - changes->ns[i]) / 1e6;
		f->shown++;
	}
	f->changes = changes->n;
	f->latency_p50 = percentile(latency, f->shown, 50);
	f->latency_p99 = percentile(latency, f->shown, 99);
	f->software_p50 = percentile(software, f->shown, 50);
	f->software_p99 = percentile(software, f->shown, 99);
	free(latency);
	free(software);
	free(first);
	free(last);
}

static void
input_to_ink(struct figures *f, const struct times *inputs, const struct epd_trace *trace,
	size_t n_trace)
{
	double *ink = calloc(inputs->n + 1, sizeof(double));

	REQUIRE(ink);
	f->inputs = inputs->n;
	for (size_t i = 0; i < inputs->n; i++) {
		uint64_t best = 0;

		for (size_t j = 0; j < n_trace; j++)
			if (trace[j].submit_ns >= inputs->ns[i] &&
				(!best || trace[j].start_ns < best))
				best = trace[j].start_ns;
		if (best)
			ink[f->inked++] = (double)(best - inputs->ns[i]) / 1e6;
	}
	f->ink_p50 = percentile(ink, f->inked, 50);
	f->ink_p99 = percentile(ink, f->inked, 99);
	free(ink);
}

static void
compute(const char *dir, struct figures *f)
{
	struct epd fake = {0};
	struct times changes, inputs;
	long long cpu_ticks = -1;
	long clk_tck = 100;
	char *path;

	memset(f, 0, sizeof(*f));
	f->changed = -1;
	read_info(dir, f, &cpu_ticks, &clk_tck);
	/*
	 * The saved files have the debugfs layout: the test helpers parse them,
	 * through the directory's descriptor, whatever the length of its path.
	 */
	int dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	REQUIRE_MSG(dir_fd >= 0, "%s: %s", dir, strerror(errno));
	snprintf(fake.dbgdir, sizeof(fake.dbgdir), "/proc/self/fd/%d", dir_fd);

	char *stats = epd_stats_snapshot(&fake);
	f->updates = epd_snapshot_stat(stats, "updates_completed");
	f->flashes = epd_snapshot_stat(stats, "flashes");
	f->driven = epd_snapshot_stat(stats, "pixels_driven");
	/* the board's only: -1 elsewhere */
	f->usb_bytes = epd_snapshot_stat_or(stats, "usb_bytes", -1);
	free(stats);
	f->ghost_mean = epd_stat_f(&fake, "ghost_mean");

	struct epd_trace *trace;
	size_t n_trace = epd_trace_read(&fake, &trace);

	close(dir_fd);
	path = path_in(dir, "stim");
	read_times(path, "stim", &changes, &f->changed);
	free(path);
	path = path_in(dir, "input");
	read_times(path, "input", &inputs, NULL);
	free(path);
	latencies(f, &changes, trace, n_trace);
	input_to_ink(f, &inputs, trace, n_trace);
	working_updates(f, &changes, trace, n_trace);

	f->driven_per_changed = f->changed > 0 ? (double)f->driven / (double)f->changed : NAN;
	f->usb_bytes_per_changed = f->changed > 0 && f->usb_bytes >= 0
					   ? (double)f->usb_bytes / (double)f->changed
					   : NAN;
	double minutes = changes.n ? (double)(changes.ns[changes.n - 1] - changes.ns[0] +
					      typical_interval(&changes)) /
					     60e9
				   : NAN;
	f->flashes_per_minute = (double)f->flashes / minutes;
	f->cpu_ms_per_update =
		cpu_ticks >= 0 && f->updates > 0
			? (double)cpu_ticks * 1000.0 / (double)clk_tck / (double)f->updates
			: NAN;
	free(trace);
	free(changes.ns);
	free(inputs.ns);
}

/* A figure for the table: "-" when there is none. */
static const char *
fmt(char *buf, size_t len, double v, int decimals)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", decimals, v);
	return buf;
}

static void
print_row(const struct figures *f)
{
	char b[12][32];

	printf("%-6s %-7s %-9s %-28s %4zu/%-4zu %7s %7s %7s %7s %8s %6lld %7s %6s %7s %7s %7s\n",
		f->config, f->panel[0] ? f->panel : "-", f->scenario, f->stack, f->shown,
		f->changes, fmt(b[0], 32, f->latency_p50, 0), fmt(b[1], 32, f->latency_p99, 0),
		fmt(b[2], 32, f->software_p50, 0), fmt(b[3], 32, f->software_p99, 0),
		fmt(b[4], 32, f->driven_per_changed, 1), f->updates,
		fmt(b[5], 32, f->flashes_per_minute, 1), fmt(b[6], 32, f->ghost_mean, 2),
		fmt(b[7], 32, f->cpu_ms_per_update, 1),
		fmt(b[8], 32, f->inked ? f->ink_p50 : NAN, 0),
		fmt(b[9], 32, f->inked ? f->ink_p99 : NAN, 0));
}

static void
csv_number(FILE *csv, double v, int decimals)
{
	if (isnan(v))
		fputs(",", csv);
	else
		fprintf(csv, ",%.*f", decimals, v);
}

static void
csv_row(FILE *csv, const struct figures *f)
{
	fprintf(csv, "%s,%s,%s,%s,\"%s\",%zu,%zu", f->config, f->scenario, f->panel, f->scale,
		f->stack, f->changes, f->shown);
	csv_number(csv, f->latency_p50, 1);
	csv_number(csv, f->latency_p99, 1);
	csv_number(csv, f->software_p50, 1);
	csv_number(csv, f->software_p99, 1);
	fprintf(csv, ",%lld,%lld", f->driven, f->changed);
	csv_number(csv, f->driven_per_changed, 2);
	fprintf(csv, ",%lld,%lld", f->updates, f->flashes);
	csv_number(csv, f->flashes_per_minute, 2);
	csv_number(csv, f->ghost_mean, 3);
	csv_number(csv, f->cpu_ms_per_update, 2);
	fprintf(csv, ",%zu,%zu", f->inputs, f->inked);
	csv_number(csv, f->inked ? f->ink_p50 : NAN, 1);
	csv_number(csv, f->inked ? f->ink_p99 : NAN, 1);
	if (f->usb_bytes >= 0)
		fprintf(csv, ",%lld", f->usb_bytes);
	else
		fputs(",", csv);
	csv_number(csv, f->usb_bytes_per_changed, 2);
	fprintf(csv, ",\"%s\"\n", f->note);
}

/*
 * The configurations held against a (vellum on epdfb) on the same panel and
 * scenario, with their targets: pixels driven per pixel changed and
 * latency (p50) against a's at most; over USB, bytes sent per pixel
 * changed at most (0: not held to it).
 */
static const struct against {
	const char *config, *title;
	double driven_ratio_max, latency_ratio_max, usb_bytes_per_changed_max;
} againsts[] = {
	{"e", "vellum on epdrm", 1.0, 1.1, 0},
	{"f", "vellum on an IT8951 board over USB", 1.0, 1.2, 1.0},
};

/*
 * One figure of e against a's: "NAME E / A UNIT = RATIO (target <= MAX,
 * met|missed)"; true when missed. Without a figure on both sides there is
 * no ratio, and nothing is missed.
 */
static bool
compare(const char *name, double e, double a, int decimals, const char *unit, double max)
{
	char b[3][32];

	if (isnan(e) || isnan(a) || a <= 0) {
		printf("%s %s / %s%s: no ratio", name, fmt(b[0], 32, e, decimals),
			fmt(b[1], 32, a, decimals), unit);
		return false;
	}
	double ratio = e / a;
	bool missed = ratio > max;
	printf("%s %s / %s%s = %s (target <= %.2f, %s)", name, fmt(b[0], 32, e, decimals),
		fmt(b[1], 32, a, decimals), unit, fmt(b[2], 32, ratio, 2), max,
		missed ? "missed" : "met");
	return missed;
}

/* " on PANEL", or nothing on an unnamed panel. */
static const char *
on_panel(char *buf, size_t len, const struct figures *f)
{
	snprintf(buf, len, "%s%s", f->panel[0] ? " on " : "", f->panel);
	return buf;
}

/* Each panel once: its mode and the output scales vellum took on it. */
static void
print_panels(const struct figures *f, int n)
{
	for (int i = 0; i < n; i++) {
		bool first = true;

		if (!f[i].panel[0] || !f[i].panel_mode[0])
			continue;
		for (int k = 0; k < i; k++)
			if (!strcmp(f[k].panel, f[i].panel))
				first = false;
		if (!first)
			continue;
		printf("panel %s: %s", f[i].panel, f[i].panel_mode);
		int scales = 0;
		for (int j = i; j < n; j++) {
			bool seen = false;

			if (strcmp(f[j].panel, f[i].panel) || !f[j].scale[0])
				continue;
			for (int k = i; k < j; k++)
				if (!strcmp(f[k].panel, f[i].panel) &&
					!strcmp(f[k].scale, f[j].scale))
					seen = true;
			if (!seen)
				printf("%s%s", scales++ ? ", " : "; vellum's output scale ",
					f[j].scale);
		}
		printf("\n");
	}
}

/* Bytes over USB per pixel changed against its target; true when missed. */
static bool
compare_usb(const struct figures *f, double max)
{
	char b[32];
	bool missed = !(f->usb_bytes_per_changed <= max);

	printf("USB %lld bytes / %lld changed = %s (target <= %.2f, %s)", f->usb_bytes, f->changed,
		fmt(b, sizeof(b), f->usb_bytes_per_changed, 2), max, missed ? "missed" : "met");
	return missed;
}

/*
 * A configuration's figures against a's, per scenario and panel both ran,
 * and how many of its targets it missed.
 */
static void
print_against(const struct figures *f, int n, const struct against *x)
{
	int compared = 0, missed = 0, targets = 0;
	char on[32];

	for (int i = 0; i < n; i++) {
		if (strcmp(f[i].config, x->config))
			continue;
		for (int j = 0; j < n; j++) {
			if (strcmp(f[j].config, "a") || strcmp(f[j].scenario, f[i].scenario) ||
				strcmp(f[j].panel, f[i].panel))
				continue;
			if (!compared++)
				printf("\n%s (%s) against a (vellum on epdfb):\n", x->config,
					x->title);
			printf("%s/a %s%s: ", x->config, f[i].scenario,
				on_panel(on, sizeof(on), &f[i]));
			missed += compare("drv/chg", f[i].driven_per_changed,
				f[j].driven_per_changed, 1, "", x->driven_ratio_max);
			printf("; ");
			missed += compare("lat50", f[i].latency_p50, f[j].latency_p50, 0, " ms",
				x->latency_ratio_max);
			targets += 2;
			if (x->usb_bytes_per_changed_max > 0) {
				printf("; ");
				missed += compare_usb(&f[i], x->usb_bytes_per_changed_max);
				targets++;
			}
			printf("\n");
			break;
		}
	}
	if (compared)
		printf("%s/a: %d of %d targets missed in %d scenario%s\n", x->config, missed,
			targets, compared, compared == 1 ? "" : "s");
}

/*
 * Compositors that know nothing of e-paper on epdrm, held against vellum on
 * the same panel (e, vellum on epdrm; a, on epdfb, where e did not run):
 * updates a change while the changes were made, none of them of the whole
 * panel or flashing, pixels driven per pixel changed at most
 * FOREIGN_DRIVEN_RATIO_MAX times vellum's, and once idle the ghost
 * cleaned up (the driver's idle cleanup) to FOREIGN_GHOST_MAX.
 */
#define FOREIGN_DRIVEN_RATIO_MAX 1.5
#define FOREIGN_GHOST_MAX        0.02
static const struct foreign {
	const char *config, *title;
} foreigns[] = {
	{"g", "sway on epdrm"},
	{"h", "weston on epdrm"},
};

/* vellum's run of f's scenario on f's panel: e's, else a's; NULL when neither ran. */
static const struct figures *
vellum_run_like(const struct figures *f, int n, const struct figures *of)
{
	const struct figures *found = NULL;

	for (int i = 0; i < n; i++) {
		if (strcmp(f[i].scenario, of->scenario) || strcmp(f[i].panel, of->panel))
			continue;
		if (!strcmp(f[i].config, "e"))
			return &f[i];
		if (!strcmp(f[i].config, "a"))
			found = &f[i];
	}
	return found;
}

/* A count held to zero: "NAME N (target 0, met|missed)"; true when missed. */
static bool
count_zero(const char *name, long long count)
{
	if (count < 0) {
		printf("%s -: unknown", name);
		return false;
	}
	printf("%s %lld (target 0, %s)", name, count, count ? "missed" : "met");
	return count != 0;
}

static void
print_foreign(const struct figures *f, int n, const struct foreign *x)
{
	int compared = 0, missed = 0, targets = 0;
	char on[32], b[2][32];

	for (int i = 0; i < n; i++) {
		if (strcmp(f[i].config, x->config))
			continue;
		const struct figures *v = vellum_run_like(f, n, &f[i]);
		if (!compared++)
			printf("\n%s (%s) against vellum:\n", x->config, x->title);
		printf("%s %s%s: upd/change %s; ", x->config, f[i].scenario,
			on_panel(on, sizeof(on), &f[i]),
			fmt(b[0], 32,
				f[i].changes ? (double)f[i].working_updates / (double)f[i].changes
					     : NAN,
				2));
		missed += count_zero("whole-panel updates", f[i].working_whole);
		printf("; ");
		missed += count_zero("flashes while working", f[i].working_flashes);
		printf("; ");
		if (v) {
			printf("against %s: ", v->config);
			missed += compare("drv/chg", f[i].driven_per_changed, v->driven_per_changed,
				1, "", FOREIGN_DRIVEN_RATIO_MAX);
		} else {
			printf("drv/chg %s: no vellum run to hold it against",
				fmt(b[1], 32, f[i].driven_per_changed, 1));
		}
		bool ghosted = !(f[i].ghost_mean <= FOREIGN_GHOST_MAX);
		printf("; ghost once idle %s (target <= %.2f, %s)\n",
			fmt(b[1], 32, f[i].ghost_mean, 3), FOREIGN_GHOST_MAX,
			ghosted ? "missed" : "met");
		missed += ghosted;
		targets += 4;
	}
	if (compared)
		printf("%s: %d of %d targets missed in %d scenario%s\n", x->config, missed, targets,
			compared, compared == 1 ? "" : "s");
}

static void
print_comparisons(const struct figures *f, int n)
{
	for (size_t i = 0; i < sizeof(againsts) / sizeof(againsts[0]); i++)
		print_against(f, n, &againsts[i]);
	for (size_t i = 0; i < sizeof(foreigns) / sizeof(foreigns[0]); i++)
		print_foreign(f, n, &foreigns[i]);
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: epaper_report CSV RUN_DIR...\n");
		return 2;
	}
	FILE *csv = fopen(argv[1], "w");
	if (!csv) {
		fprintf(stderr, "epaper_report: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	fputs("config,scenario,panel,scale,stack,changes,shown,latency_p50_ms,latency_p99_ms,"
	      "software_p50_ms,software_p99_ms,pixels_driven,pixels_changed,"
	      "driven_per_changed,updates,flashes,flashes_per_min,ghost_mean,"
	      "cpu_ms_per_update,inputs,inked,ink_p50_ms,ink_p99_ms,usb_bytes,"
	      "usb_bytes_per_changed,note\n",
		csv);
	printf("%-6s %-7s %-9s %-28s %9s %7s %7s %7s %7s %8s %6s %7s %6s %7s %7s %7s\n", "config",
		"panel", "scene", "stack", "shown", "lat50", "lat99", "sw50", "sw99", "drv/chg",
		"upd", "fl/min", "ghost", "cpu/upd", "ink50", "ink99");
	int n = argc - 2;
	struct figures *f = calloc((size_t)n, sizeof(*f));
	REQUIRE(f);
	for (int i = 0; i < n; i++) {
		compute(argv[i + 2], &f[i]);
		print_row(&f[i]);
		csv_row(csv, &f[i]);
	}
	/* the notes once, below the table, and the panels */
	for (int i = 0; i < n; i++) {
		char on[32];

		if (f[i].note[0])
			printf("%s/%s%s: %s\n", f[i].config, f[i].scenario,
				on_panel(on, sizeof(on), &f[i]), f[i].note);
	}
	print_panels(f, n);
	print_comparisons(f, n);
	free(f);
	if (fclose(csv)) {
		fprintf(stderr, "epaper_report: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
