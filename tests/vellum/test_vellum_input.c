// SPDX-License-Identifier: MIT
/*
 * vellum's [input] keys for real devices (a uinput keyboard and touchscreen
 * through libinput), each changed by SIGHUP and checked by what the client
 * gets:
 *
 * - a keyboard whose keymap XKB cannot compile (XKB_DEFAULT_LAYOUT names a
 *   layout it lacks) is kept, with XKB's default keymap: it types "y";
 * - keyboard-layout = de: the same key types "z"; keyboard-variant =
 *   dvorak: "f"; keyboard-options = caps:escape: Caps Lock types Escape
 *   (foot's shell prints what it reads, through vellum's output);
 * - touch-device: a tap reaches touch_probe while the touchscreen is
 *   named, not after a reload naming another device (vellum says no device
 *   has that name), and again after a reload naming it;
 * - a touch cancelled (a finger turned palm) ends every touch of the client
 *   for vellum too: with 16 fingers down and one cancelled, two more
 *   fingers still reach the client (vellum follows 16 touches at once).
 */
#include <linux/input-event-codes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "epd_test.h"
#include "vellum_run.h"
#include "vm_input.h"

#define PANEL_W  640
#define PANEL_H  480
#define MARKER_X 100
#define MARKER_Y 60
#define MARKER   16

static char config[64];

static void
write_config(const char *text)
{
	FILE *f = fopen(config, "w");

	REQUIRE(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* Writes the config, sends SIGHUP, and waits for vellum to say it took it. */
static bool
reload(struct vellum_run *run, const char *text)
{
	char line[256];

	write_config(text);
	REQUIRE_OK(kill(run->pid, SIGHUP));
	return CHECK(vellum_expect(run, "vellum: configuration reloaded", line, sizeof(line), 60));
}

/* Presses key then Return; foot's shell prints "typed LINE": LINE must be want. */
static void
check_typed(struct vellum_run *run, int keyboard, uint16_t key, const char *want, const char *what)
{
	char line[256];

	vm_key(keyboard, key);
	vm_key(keyboard, KEY_ENTER);
	if (CHECK_MSG(vellum_expect(run, "typed ", line, sizeof(line), 60), "%s: nothing typed",
		    what))
		CHECK_MSG(strcmp(line + strlen("typed "), want) == 0,
			"%s: typed \"%s\", expected \"%s\"", what, line + strlen("typed "), want);
}

static void
run_keyboard(struct epd *d, int keyboard)
{
	struct vellum_run run;
	char line[256];

	epd_phase("XKB_DEFAULT_LAYOUT names a layout XKB lacks: the keyboard types with XKB's "
		  "default");
	epd_clear(d);
	epd_trace_clear(d);
	write_config("[refresh]\nidle-cleanup = off\n");
	/* foot's shell prints each line it reads on vellum's output (foot's own stdout) */
	const char *args[] = {"-c", config, "-d", d->devnode, "--", "sh", "-c",
		VELLUM_SAY_DISPLAY "exec foot --override=font=monospace:size=14 sh -c "
				   "'stty -echo; exec >/proc/'$$'/fd/1; echo typing; "
				   "while IFS= read -r l; do echo \"typed $l\"; done'",
		NULL};
	setenv("XKB_DEFAULT_LAYOUT", "nosuchlayout", 1);
	vellum_start(&run, args, NULL);
	unsetenv("XKB_DEFAULT_LAYOUT");
	REQUIRE(vellum_expect_display(&run, 60));
	REQUIRE(vellum_expect(&run, "typing", line, sizeof(line), 120));
	/* keys go to the window that has the keyboard: foot's, once it is shown */
	REQUIRE_MSG(vellum_wait_full_update(d, 120), "foot's window never reached the panel");
	check_typed(&run, keyboard, KEY_Y, "y", "XKB's default keymap");

	epd_phase("keyboard-layout = de, by SIGHUP");
	if (reload(&run, "[input]\nkeyboard-layout = de\n"))
		check_typed(&run, keyboard, KEY_Y, "z", "keyboard-layout de");

	epd_phase("keyboard-variant = dvorak, by SIGHUP");
	if (reload(&run, "[input]\nkeyboard-layout = us\nkeyboard-variant = dvorak\n"))
		check_typed(&run, keyboard, KEY_Y, "f", "keyboard-variant dvorak");

	epd_phase("keyboard-options = caps:escape, by SIGHUP");
	if (reload(&run, "[input]\nkeyboard-layout = us\nkeyboard-options = caps:escape\n"))
		check_typed(&run, keyboard, KEY_CAPSLOCK, "\x1b", "keyboard-options caps:escape");

	vellum_stop(&run, SIGTERM, 60);
}

/*
 * Reads vellum's output up to its line for a reload: whether a touch
 * reached the client before it, and whether vellum said no device has the
 * name touch-device gives.
 */
static bool
read_to_reload(struct vellum_run *run, bool *touched, bool *no_device)
{
	char line[512];

	while (vellum_expect(run, "", line, sizeof(line), 60)) {
		if (strncmp(line, "vellum: configuration reloaded", 30) == 0)
			return true;
		*touched |= strncmp(line, "down ", 5) == 0;
		*no_device |= strstr(line, "no touchscreen or tablet is named") != NULL;
	}
	return false;
}

static void
run_touch(struct epd *d, int touch)
{
	struct vellum_run run;
	struct vellum_box box;
	char line[256], x[16], y[16];

	epd_phase("touch-device names the touchscreen: a tap reaches the client");
	epd_clear(d);
	epd_trace_clear(d);
	write_config("[input]\ntouch-device = vellum test touchscreen\n");
	/* two taps, then the probe exits, and vellum with it */
	snprintf(x, sizeof(x), "%d", MARKER_X);
	snprintf(y, sizeof(y), "%d", MARKER_Y);
	const char *args[] = {
		"-c", config, "-d", d->devnode, "--", TOUCH_PROBE_BIN, x, y, "2", NULL};
	vellum_start(&run, args, NULL);
	REQUIRE(vellum_expect(&run, "ready ", line, sizeof(line), 120));
	CHECK_MSG(vellum_wait_full_update(d, 120), "the probe's window never reached the panel");
	if (!vellum_find_marker(d, MARKER, &box)) {
		vellum_stop(&run, SIGTERM, 30);
		return;
	}
	uint32_t px = box.x + MARKER / 2, py = box.y + MARKER / 2;
	vm_tap(touch, px, py);
	CHECK(vellum_expect(&run, "down ", line, sizeof(line), 60));

	epd_phase("touch-device names another device, by SIGHUP: the tap goes nowhere");
	bool touched = false, no_device = false;
	write_config("[input]\ntouch-device = another touchscreen\n");
	REQUIRE_OK(kill(run.pid, SIGHUP));
	CHECK_MSG(read_to_reload(&run, &touched, &no_device), "no reload");
	CHECK_MSG(no_device, "vellum did not say that no device is named \"another touchscreen\"");
	vm_tap(touch, px, py);

	epd_phase(
		"touch-device names the touchscreen again, by SIGHUP: the tap reaches the client");
	no_device = false;
	write_config("[input]\ntouch-device = vellum test touchscreen\n");
	REQUIRE_OK(kill(run.pid, SIGHUP));
	CHECK_MSG(read_to_reload(&run, &touched, &no_device), "no second reload");
	CHECK_MSG(!touched, "a tap reached the client while touch-device named another device");
	CHECK_MSG(!no_device, "vellum said no device has the touchscreen's name");
	vm_tap(touch, px, py);
	CHECK(vellum_expect(&run, "down ", line, sizeof(line), 60));
	CHECK_EQ(vellum_wait(&run, 60), 0);
}

static void
run_touch_cancel(struct epd *d, int multitouch)
{
	const int held = 16, more = 2;
	struct vellum_run run;
	char line[256], x[16], y[16], taps[16];
	int downs = 0;

	epd_phase("16 fingers down, one turned palm: every touch of the client is cancelled");
	epd_clear(d);
	write_config("[input]\ntouch-device = vellum test multitouch\n");
	snprintf(x, sizeof(x), "%d", MARKER_X);
	snprintf(y, sizeof(y), "%d", MARKER_Y);
	snprintf(taps, sizeof(taps), "%d", held + more);
	const char *args[] = {
		"-c", config, "-d", d->devnode, "--", TOUCH_PROBE_BIN, x, y, taps, NULL};
	vellum_start(&run, args, NULL);
	REQUIRE(vellum_expect(&run, "ready ", line, sizeof(line), 120));
	CHECK_MSG(vellum_wait_full_update(d, 120), "the probe's window never reached the panel");
	for (int slot = 0; slot < held; slot++) {
		vm_finger_down(multitouch, slot, 40 + 30 * (uint32_t)slot, 300);
		downs += CHECK(vellum_expect(&run, "down ", line, sizeof(line), 60));
	}
	vm_finger_palm(multitouch, 0);

	epd_phase("two more fingers while 15 are still down: both reach the client");
	for (int slot = held; slot < held + more; slot++) {
		vm_finger_down(multitouch, slot, 40 + 30 * (uint32_t)(slot - held), 400);
		downs += CHECK_MSG(vellum_expect(&run, "down ", line, sizeof(line), 60),
			"finger %d did not reach the client", slot - held + 1);
	}
	CHECK_EQ(downs, held + more);
	for (int slot = 0; slot < held + more; slot++)
		vm_finger_up(multitouch, slot);
	if (downs == held + more)
		CHECK_EQ(vellum_wait(&run, 60), 0);
	else
		vellum_stop(&run, SIGTERM, 60);
}

int
main(void)
{
	struct epd dev, *d = &dev;

	epd_begin("vellum_input", 560);
	epd_open(d, "width=640 height=480 bpp=8 time_scale=10");
	vm_input_setup();
	int keyboard = vm_uinput_keyboard();
	int touch = vm_uinput_touchscreen(PANEL_W, PANEL_H);
	int multitouch = vm_uinput_multitouch(PANEL_W, PANEL_H);
	vm_udev_settle();
	snprintf(config, sizeof(config), "/tmp/vellum-input-%d.conf", (int)getpid());

	run_keyboard(d, keyboard);
	run_touch(d, touch);
	run_touch_cancel(d, multitouch);

	unlink(config);
	vm_uinput_destroy(keyboard);
	vm_uinput_destroy(touch);
	vm_uinput_destroy(multitouch);
	epd_close(d);
	return epd_end();
}
