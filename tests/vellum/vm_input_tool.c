// SPDX-License-Identifier: MIT
/*
 * A touchscreen laminated to the panel, for scripts in the VM (tools/demo):
 *
 *   vm_input_tool WIDTH HEIGHT <COMMANDS
 *
 * starts udevd when it does not run, creates the touchscreen (its axes span
 * WIDTH x HEIGHT panel pixels), prints "ready" once udev has handled it, and
 * then takes one command per line from stdin:
 *
 *   tap X Y          a one-finger tap at panel pixel X,Y
 *   press X Y MS     a finger held at X,Y for MS milliseconds
 *
 * It prints "done COMMAND" after each, and removes the device at the end of
 * its input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "epd_test.h"
#include "vm_input.h"

int
main(int argc, char **argv)
{
	char line[128];
	unsigned int width, height, x, y, ms;

	if (argc != 3 || sscanf(argv[1], "%u", &width) != 1 ||
		sscanf(argv[2], "%u", &height) != 1 || !width || !height) {
		fprintf(stderr, "usage: vm_input_tool WIDTH HEIGHT <COMMANDS\n");
		return 2;
	}
	vm_input_setup();
	int touch = vm_uinput_touchscreen(width, height);
	vm_udev_settle();
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "tap %u %u", &x, &y) == 2 && x < width && y < height) {
			vm_tap(touch, x, y);
		} else if (sscanf(line, "press %u %u %u", &x, &y, &ms) == 3 && x < width &&
			   y < height) {
			vm_touch_down(touch, x, y);
			epd_sleep_ms(ms);
			vm_touch_up(touch);
		} else {
			fprintf(stderr, "vm_input_tool: not a command: \"%s\"\n", line);
			continue;
		}
		printf("done %s\n", line);
		fflush(stdout);
	}
	vm_uinput_destroy(touch);
	return 0;
}
