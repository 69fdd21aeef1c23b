// SPDX-License-Identifier: MIT
/*
 * vellum on epdfb while the panel fails: faults injected through debugfs
 * (a pixel capture, a controller error and a hang in a row; then a failed
 * temperature read) hit the updates of a client's frame. vellum sends the
 * area again until it shows, and the panel ends showing the client's frame
 * (left half black, right half white) pixel for pixel, up to the ghost of a
 * non-flashing update; the driver's stats count each fault, so none went
 * unused.
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

struct fault {
	const char *knob; /* debugfs file */
	const char *stat; /* its stats counter */
};

/*
 * Pixels of the panel that are not the client's frame, black left half and
 * white right half; the ghost a non-flashing update leaves is allowed.
 */
static size_t
wrong_pixels(struct epd *d, const uint8_t *panel, uint32_t *first_x, uint32_t *first_y)
{
	size_t wrong = 0;

	for (uint32_t y = 0; y < d->height; y++)
		for (uint32_t x = 0; x < d->width; x++) {
			uint8_t want = x < d->width / 2 ? 0 : 255;
			if (epd_quant(panel[(size_t)y * d->width + x], 2) == want)
				continue;
			if (!wrong++) {
				*first_x = x;
				*first_y = y;
			}
		}
	return wrong;
}

static void
run_with_faults(struct epd *d, const char *config, const struct fault *faults, size_t n_faults)
{
	struct vellum_run run;
	char line[256];
	uint8_t *panel = epd_alloc_image(d);
	uint32_t x = 0, y = 0;
	size_t wrong = 0;

	epd_clear(d);
	epd_stats_reset(d);
	for (size_t i = 0; i < n_faults; i++)
		epd_inject(d, faults[i].knob, 1);
	const char *args[] = {"-c", config, "-d", d->devnode, "--no-xwayland", "--", "sh", "-c",
		VELLUM_SAY_DISPLAY "exec \"$0\" show", MISBEHAVE_BIN, NULL};
	vellum_start(&run, args, NULL);
	REQUIRE(vellum_expect_display(&run, 60));
	REQUIRE(vellum_expect(&run, "shown ", line, sizeof(line), 60));
	CHECK_MSG(!strcmp(line, "shown 640 480"), "the window is not fullscreen: %s", line);

	/* vellum sends the area again after each fault, a little later each time */
	for (int i = 0; i < 600; i++) {
		REQUIRE_RC(epd_wait_idle(d), 0);
		epd_read_panel(d, panel);
		wrong = wrong_pixels(d, panel, &x, &y);
		if (!wrong)
			break;
		epd_sleep_ms(100);
	}
	CHECK_MSG(wrong == 0, "%zu pixels are not the client's frame, the first at %u,%u: %u",
		wrong, x, y, wrong ? panel[(size_t)y * d->width + x] : 0);
	char *stats = epd_stats_snapshot(d);
	for (size_t i = 0; i < n_faults; i++) {
		CHECK_MSG(epd_injected_left(d, faults[i].knob) == 0, "%s: a fault went unused",
			faults[i].knob);
		CHECK_MSG(epd_snapshot_stat(stats, faults[i].stat) == 1, "%s: %lld, expected 1",
			faults[i].stat, epd_snapshot_stat(stats, faults[i].stat));
	}
	printf("updates submitted %lld, completed %lld, failed %lld\n",
		epd_snapshot_stat(stats, "updates_submitted"),
		epd_snapshot_stat(stats, "updates_completed"),
		epd_snapshot_stat(stats, "updates_failed"));
	free(stats);
	free(panel);
	CHECK_EQ(vellum_stop(&run, SIGTERM, 30), 128 + SIGTERM);
}

int
main(void)
{
	static const char config_text[] = "[refresh]\nidle-cleanup = off\n";
	static const struct fault in_a_row[] = {
		{"inject_capture_failures", "capture_errors"},
		{"inject_update_errors", "update_errors"},
		{"inject_update_hangs", "update_timeouts"},
	};
	static const struct fault temperature[] = {
		{"inject_temperature_errors", "temperature_errors"},
	};
	struct epd dev, *d = &dev;
	char config[64];

	epd_begin("vellum_faults", 280);
	epd_open(d, "width=640 height=480 bpp=8 time_scale=10");
	snprintf(config, sizeof(config), "/tmp/vellum-faults-%d.conf", (int)getpid());
	FILE *f = fopen(config, "w");
	REQUIRE(f && fputs(config_text, f) >= 0 && fclose(f) == 0);

	epd_phase("a failed capture, a controller error and a hang in a row");
	run_with_faults(d, config, in_a_row, 3);
	epd_phase("a failed temperature read");
	run_with_faults(d, config, temperature, 1);

	unlink(config);
	epd_close(d);
	CHECK_RC(epd_try_unload(), 0);
	return epd_end();
}
