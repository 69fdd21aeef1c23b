// SPDX-License-Identifier: MIT
/*
 * The benchmark's chart: grouped bars, one group per scenario (and
 * simulated panel, when the results are from more than one) and one bar
 * per configuration, in a chart panel per figure, two side by side or, for
 * more than six groups, one a row. With both a and e (a's stack on epdrm)
 * in the results, last come e's figures over a's per scenario and panel
 * both ran, against the targets e is held to (epaper_report's).
 *
 *   epaper_chart RESULTS_CSV PNG
 *
 * Reads the CSV epaper_report writes (its header names the columns; one
 * without a panel column is from a single panel).
 */
#include <cairo.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS    128
#define MAX_COLUMNS 32
#define MAX_GROUPS  24
#define MAX_SERIES  8

struct table {
	char *cells[MAX_ROWS + 1][MAX_COLUMNS]; /* row 0: the header */
	char *lines[MAX_ROWS + 1];              /* what the cells point into */
	size_t rows, columns;
};

struct figure {
	const char *column, *title;
	bool log; /* a log scale: the figures span decades */
};

static const struct figure figures[] = {
	{"latency_p50_ms", "change to panel settled, p50 (ms)", false},
	{"software_p50_ms", "of which software (to the driver), p50 (ms)", false},
	{"driven_per_changed", "pixels driven per pixel changed (log scale)", true},
	{"flashes_per_min", "flashes per minute", false},
	{"ghost_mean", "ghost mean at the end", false},
	{"cpu_ms_per_update", "display stack CPU per update (ms)", false},
};

/* e over a, per scenario: the figure's ratio and the most e may reach. */
struct ratio_figure {
	const char *column, *title;
	double target;
};

static const struct ratio_figure ratio_figures[] = {
	{"driven_per_changed", "e / a: pixels driven per pixel changed (target <= 1)", 1.0},
	{"latency_p50_ms", "e / a: change to panel settled, p50 (target <= 1.1)", 1.1},
};

/*
 * Gray-scale friendly, what the chart looks like on the panel it is about:
 * the series spread from near black to near white, as far apart as their
 * number allows.
 */
static double
series_gray(size_t s, size_t n)
{
	return n < 2 ? 0.1 : 0.1 + 0.8 * (double)s / (double)(n - 1);
}

/* Splits a CSV line in place; quoted fields may hold commas. */
static size_t
split(char *line, char **cells, size_t max)
{
	size_t n = 0;
	char *p = line;

	while (n < max) {
		if (*p == '"') {
			char *end = strchr(p + 1, '"');
			cells[n++] = p + 1;
			if (!end)
				break;
			*end = '\0';
			p = end + 1;
		} else {
			cells[n++] = p;
			p += strcspn(p, ",\n");
		}
		if (*p != ',')
			break;
		*p++ = '\0';
	}
	if (n && cells[n - 1][strcspn(cells[n - 1], "\n")])
		cells[n - 1][strcspn(cells[n - 1], "\n")] = '\0';
	return n;
}

static int
read_table(const char *path, struct table *t)
{
	FILE *f = fopen(path, "r");
	char line[1024];

	if (!f) {
		fprintf(stderr, "epaper_chart: %s: %s\n", path, strerror(errno));
		return -1;
	}
	memset(t, 0, sizeof(*t));
	while (t->rows <= MAX_ROWS && fgets(line, sizeof(line), f)) {
		char *copy = t->lines[t->rows] = strdup(line);
		size_t n = split(copy, t->cells[t->rows], MAX_COLUMNS);

		if (t->rows == 0)
			t->columns = n;
		else if (n != t->columns) {
			fprintf(stderr, "epaper_chart: %s: row %zu has %zu fields, not %zu\n", path,
				t->rows + 1, n, t->columns);
			fclose(f);
			return -1;
		}
		t->rows++;
	}
	fclose(f);
	if (t->rows < 2) {
		fprintf(stderr, "epaper_chart: %s: no results\n", path);
		return -1;
	}
	return 0;
}

static int
column(const struct table *t, const char *name)
{
	for (size_t i = 0; i < t->columns; i++)
		if (!strcmp(t->cells[0][i], name))
			return (int)i;
	return -1;
}

/* Index of value in names (added when missing), or -1 when full. */
static int
intern(const char **names, size_t *n, size_t max, const char *value)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(names[i], value))
			return (int)i;
	if (*n == max)
		return -1;
	names[*n] = value;
	return (int)(*n)++;
}

/*
 * A group is a scenario on a panel ("" without a panel column); groups[]
 * and panels[] are its two halves.
 */
struct layout {
	const char *groups[MAX_GROUPS], *panels[MAX_GROUPS];
	const char *series[MAX_SERIES], *labels[MAX_SERIES];
	size_t n_groups, n_series;
	bool many_panels; /* the groups' labels name their panel */
};

/* Row r's panel, "" without a panel column. */
static const char *
row_panel(const struct table *t, size_t r)
{
	int panel = column(t, "panel");

	return panel >= 0 ? t->cells[r][panel] : "";
}

/* The group of a scenario on a panel (added when missing), or -1 when full. */
static int
intern_group(struct layout *l, const char *scenario, const char *panel)
{
	for (size_t i = 0; i < l->n_groups; i++)
		if (!strcmp(l->groups[i], scenario) && !strcmp(l->panels[i], panel))
			return (int)i;
	if (l->n_groups == MAX_GROUPS)
		return -1;
	l->groups[l->n_groups] = scenario;
	l->panels[l->n_groups] = panel;
	return (int)l->n_groups++;
}

/* The group of row r, or -1. */
static int
row_group(const struct table *t, const struct layout *l, size_t r)
{
	int scenario = column(t, "scenario");
	const char *panel = row_panel(t, r);

	for (size_t i = 0; i < l->n_groups; i++)
		if (!strcmp(l->groups[i], t->cells[r][scenario]) && !strcmp(l->panels[i], panel))
			return (int)i;
	return -1;
}

static void
text(cairo_t *cr, double x, double y, double size, const char *s, double align)
{
	cairo_text_extents_t e;

	cairo_set_font_size(cr, size);
	cairo_text_extents(cr, s, &e);
	cairo_move_to(cr, x - e.width * align - e.x_bearing * (1 - align), y);
	cairo_show_text(cr, s);
}

/* Group g's label under its bars: the scenario, and its panel below it. */
static void
group_label(cairo_t *cr, const struct layout *l, size_t g, double x, double bottom)
{
	cairo_set_source_rgb(cr, 0, 0, 0);
	text(cr, x, bottom + 18, 12, l->groups[g], 0.5);
	if (l->many_panels)
		text(cr, x, bottom + 32, 11, l->panels[g][0] ? l->panels[g] : "-", 0.5);
}

static double
nice_max(double v)
{
	if (v <= 0)
		return 1;
	double step = pow(10, floor(log10(v)));
	for (double m = 1; m <= 10; m += m < 2 ? 1 : (m < 5 ? 3 : 5))
		if (m * step >= v)
			return m * step;
	return 10 * step;
}

static void
draw_panel(cairo_t *cr, const struct table *t, const struct layout *l, const struct figure *fig,
	double x, double y, double w, double h)
{
	int config = column(t, "config");
	int value = column(t, fig->column);
	double values[MAX_GROUPS][MAX_SERIES];
	double max = 0;
	char label[32];

	for (size_t g = 0; g < MAX_GROUPS; g++)
		for (size_t s = 0; s < MAX_SERIES; s++)
			values[g][s] = NAN;
	for (size_t r = 1; value >= 0 && r < t->rows; r++) {
		const char *cell = t->cells[r][value];
		int g = row_group(t, l, r), s = -1;

		for (size_t i = 0; i < l->n_series; i++)
			if (!strcmp(l->series[i], t->cells[r][config]))
				s = (int)i;
		if (g < 0 || s < 0 || !cell[0])
			continue;
		values[g][s] = atof(cell);
		max = fmax(max, values[g][s]);
	}
	/* a log scale runs from 1 to the decade above the largest figure */
	max = fig->log ? pow(10, ceil(log10(fmax(max, 10)))) : nice_max(max);

	double left = x + 50, bottom = y + h - (l->many_panels ? 44 : 30), top = y + 40;
	double right = x + w - 10;
	cairo_set_source_rgb(cr, 0, 0, 0);
	text(cr, x + w / 2, y + 20, 15, fig->title, 0.5);
	cairo_set_line_width(cr, 1);
	int ticks = fig->log ? (int)lround(log10(max)) : 4;
	for (int i = 0; i <= ticks; i++) {
		double gy = bottom - (bottom - top) * i / ticks;
		cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
		cairo_move_to(cr, left, gy);
		cairo_line_to(cr, right, gy);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		snprintf(label, sizeof(label), "%g", fig->log ? pow(10, i) : max * i / ticks);
		text(cr, left - 5, gy + 4, 11, label, 1);
	}
	double group_w = (right - left) / (double)l->n_groups;
	double bar_w = group_w * 0.8 / (double)l->n_series;
	for (size_t g = 0; g < l->n_groups; g++) {
		double gx = left + group_w * (double)g + group_w * 0.1;

		group_label(cr, l, g, gx + group_w * 0.4, bottom);
		cairo_set_source_rgb(cr, 0, 0, 0);
		for (size_t s = 0; s < l->n_series; s++) {
			double v = values[g][s], bx = gx + bar_w * (double)s;

			if (isnan(v)) {
				text(cr, bx + bar_w / 2, bottom - 4, 9, "n/a", 0.5);
				continue;
			}
			double bh = fig->log ? (bottom - top) * log10(fmax(v, 1)) / log10(max)
					     : (bottom - top) * v / max;
			double gray = series_gray(s, l->n_series);
			cairo_set_source_rgb(cr, gray, gray, gray);
			cairo_rectangle(cr, bx + 1, bottom - bh, bar_w - 2, bh);
			cairo_fill_preserve(cr);
			cairo_set_source_rgb(cr, 0, 0, 0);
			cairo_stroke(cr);
			snprintf(label, sizeof(label),
				v >= 100 ? "%.0f"
				: v >= 1 ? "%.1f"
					 : "%.2f",
				v);
			text(cr, bx + bar_w / 2, bottom - bh - 3, 9, label, 0.5);
		}
	}
	cairo_move_to(cr, left, top);
	cairo_line_to(cr, left, bottom);
	cairo_line_to(cr, right, bottom);
	cairo_stroke(cr);
}

/* The number in column of config's row in group g, or NAN. */
static double
cell_value(const struct table *t, const struct layout *l, int column_index, const char *config,
	size_t g)
{
	int c = column(t, "config");

	for (size_t r = 1; column_index >= 0 && r < t->rows; r++)
		if (!strcmp(t->cells[r][c], config) && row_group(t, l, r) == (int)g &&
			t->cells[r][column_index][0])
			return atof(t->cells[r][column_index]);
	return NAN;
}

/* Whether both a and e ran group g. */
static bool
has_a_and_e(const struct table *t, const struct layout *l, size_t g)
{
	int c = column(t, "config");
	bool a = false, e = false;

	for (size_t r = 1; r < t->rows; r++) {
		if (row_group(t, l, r) != (int)g)
			continue;
		a = a || !strcmp(t->cells[r][c], "a");
		e = e || !strcmp(t->cells[r][c], "e");
	}
	return a && e;
}

/*
 * e's figure over a's per group in l (the groups both ran), one bar each,
 * the target a dashed line.
 */
static void
draw_ratio_panel(cairo_t *cr, const struct table *t, const struct layout *l,
	const struct ratio_figure *fig, double gray, double x, double y, double w, double h)
{
	int value = column(t, fig->column);
	double ratios[MAX_GROUPS], max = fig->target * 1.25;
	char label[32];

	for (size_t g = 0; g < l->n_groups; g++) {
		double a = cell_value(t, l, value, "a", g);
		double e = cell_value(t, l, value, "e", g);

		ratios[g] = a > 0 ? e / a : NAN;
		if (!isnan(ratios[g]))
			max = fmax(max, ratios[g]);
	}
	max = nice_max(max);

	double left = x + 50, bottom = y + h - (l->many_panels ? 44 : 30), top = y + 40;
	double right = x + w - 10;
	cairo_set_source_rgb(cr, 0, 0, 0);
	text(cr, x + w / 2, y + 20, 15, fig->title, 0.5);
	cairo_set_line_width(cr, 1);
	for (int i = 0; i <= 4; i++) {
		double gy = bottom - (bottom - top) * i / 4;
		cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
		cairo_move_to(cr, left, gy);
		cairo_line_to(cr, right, gy);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		snprintf(label, sizeof(label), "%g", max * i / 4);
		text(cr, left - 5, gy + 4, 11, label, 1);
	}
	/* the target behind the bars: a bar that hides it is a target missed */
	double ty = bottom - (bottom - top) * fig->target / max;
	const double dash[] = {6, 4};
	cairo_set_dash(cr, dash, 2, 0);
	cairo_set_line_width(cr, 2);
	cairo_move_to(cr, left, ty);
	cairo_line_to(cr, right, ty);
	cairo_stroke(cr);
	cairo_set_dash(cr, NULL, 0, 0);
	cairo_set_line_width(cr, 1);
	double group_w = (right - left) / (double)l->n_groups, bar_w = group_w * 0.4;
	for (size_t g = 0; g < l->n_groups; g++) {
		double bx = left + group_w * (double)g + (group_w - bar_w) / 2;
		double v = ratios[g];

		group_label(cr, l, g, bx + bar_w / 2, bottom);
		cairo_set_source_rgb(cr, 0, 0, 0);
		if (isnan(v)) {
			text(cr, bx + bar_w / 2, bottom - 4, 9, "n/a", 0.5);
			continue;
		}
		double bh = (bottom - top) * v / max;
		cairo_set_source_rgb(cr, gray, gray, gray);
		cairo_rectangle(cr, bx + 1, bottom - bh, bar_w - 2, bh);
		cairo_fill_preserve(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		cairo_stroke(cr);
		snprintf(label, sizeof(label), "%.2f", v);
		text(cr, bx + bar_w / 2, bottom - bh - 3, 9, label, 0.5);
	}
	cairo_move_to(cr, left, top);
	cairo_line_to(cr, left, bottom);
	cairo_line_to(cr, right, bottom);
	cairo_stroke(cr);
}

int
main(int argc, char **argv)
{
	static struct table t;
	struct layout l = {0};

	if (argc != 3) {
		fprintf(stderr, "usage: epaper_chart RESULTS_CSV PNG\n");
		return 2;
	}
	if (read_table(argv[1], &t))
		return 1;
	int config = column(&t, "config"), scenario = column(&t, "scenario");
	int stack = column(&t, "stack");
	if (config < 0 || scenario < 0 || stack < 0) {
		fprintf(stderr, "epaper_chart: %s: no config, scenario or stack column\n", argv[1]);
		return 1;
	}
	for (size_t r = 1; r < t.rows; r++) {
		int s = intern(l.series, &l.n_series, MAX_SERIES, t.cells[r][config]);

		intern_group(&l, t.cells[r][scenario], row_panel(&t, r));
		l.many_panels = l.many_panels || strcmp(row_panel(&t, r), row_panel(&t, 1));
		/* the terminal's stack names the configuration (xclock is its clock) */
		if (s >= 0 && (!l.labels[s] || strstr(l.labels[s], "xclock")))
			l.labels[s] = t.cells[r][stack];
	}

	/* e against a, in the groups both ran */
	struct layout both = l;
	int e_series = -1;
	for (size_t s = 0; s < l.n_series; s++)
		if (!strcmp(l.series[s], "e"))
			e_series = (int)s;
	both.n_groups = 0;
	for (size_t g = 0; g < l.n_groups; g++) {
		if (!has_a_and_e(&t, &l, g))
			continue;
		both.groups[both.n_groups] = l.groups[g];
		both.panels[both.n_groups++] = l.panels[g];
	}
	const size_t n_figures = sizeof(figures) / sizeof(figures[0]);
	const size_t n_ratios =
		both.n_groups ? sizeof(ratio_figures) / sizeof(ratio_figures[0]) : 0;
	const int width = 1500, panel_h = 330, cols = l.n_groups > 6 ? 1 : 2;
	const int rows = (int)((n_figures + cols - 1) / cols + (n_ratios + cols - 1) / cols);
	const int height = 60 + rows * panel_h;
	cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
	cairo_t *cr = cairo_create(surface);

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	/* the legend */
	double lx = 20;
	for (size_t s = 0; s < l.n_series; s++) {
		char label[96];

		double gray = series_gray(s, l.n_series);
		cairo_set_source_rgb(cr, gray, gray, gray);
		cairo_rectangle(cr, lx, 20, 18, 18);
		cairo_fill_preserve(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		cairo_stroke(cr);
		snprintf(label, sizeof(label), "(%s) %s", l.series[s], l.labels[s]);
		text(cr, lx + 24, 34, 14, label, 0);
		lx += 24 + 9.0 * (double)strlen(label) + 30;
	}
	for (size_t i = 0; i < n_figures; i++)
		draw_panel(cr, &t, &l, &figures[i], (double)(i % cols) * width / cols,
			60 + (double)(i / cols) * panel_h, (double)width / cols, panel_h);
	const size_t ratio_row = (n_figures + cols - 1) / cols;
	for (size_t i = 0; i < n_ratios; i++)
		draw_ratio_panel(cr, &t, &both, &ratio_figures[i],
			series_gray((size_t)e_series, l.n_series),
			(double)(i % cols) * width / cols,
			60 + (double)(ratio_row + i / cols) * panel_h, (double)width / cols,
			panel_h);
	cairo_destroy(cr);
	cairo_status_t status = cairo_surface_write_to_png(surface, argv[2]);
	cairo_surface_destroy(surface);
	if (status != CAIRO_STATUS_SUCCESS) {
		fprintf(stderr, "epaper_chart: %s: %s\n", argv[2], cairo_status_to_string(status));
		return 1;
	}
	for (size_t r = 0; r < t.rows; r++)
		free(t.lines[r]);
	/* the fonts cairo looked up stay cached until both let go of them */
	cairo_debug_reset_static_data();
	FcFini();
	return 0;
}
