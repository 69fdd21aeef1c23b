// SPDX-License-Identifier: MIT
#include "vm_input.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "epd_test.h"

#define SEATD_SOCKET "/run/seatd.sock"

static void
run(const char *command)
{
	printf("+ %s\n", command);
	fflush(stdout);
	int status = system(command);
	REQUIRE_MSG(status == 0, "%s: status %d", command, status);
}

void
vm_udev_settle(void)
{
	run("udevadm settle --timeout=60");
}

void
vm_input_setup(void)
{
	run("modprobe uinput");
	if (access("/run/udev/control", F_OK) != 0)
		run("/usr/lib/systemd/systemd-udevd --daemon");
	/* the devices that were there before udevd: classified as they would be at boot */
	run("udevadm trigger --action=add --subsystem-match=input");
	vm_udev_settle();
}

static void
emit(int fd, uint16_t type, uint16_t code, int32_t value)
{
	struct input_event event = {.type = type, .code = code, .value = value};

	REQUIRE_MSG(write(fd, &event, sizeof(event)) == sizeof(event), "uinput write: %s",
		strerror(errno));
}

static void
sync_report(int fd)
{
	emit(fd, EV_SYN, SYN_REPORT, 0);
}

static int
uinput_open(void)
{
	int fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC);

	REQUIRE_MSG(fd >= 0, "open /dev/uinput: %s", strerror(errno));
	return fd;
}

static void
abs_axis(int fd, uint16_t code, int32_t max, int32_t resolution)
{
	struct uinput_abs_setup setup = {
		.code = code,
		.absinfo = {.minimum = 0, .maximum = max, .resolution = resolution},
	};

	REQUIRE_OK(ioctl(fd, UI_SET_ABSBIT, code));
	REQUIRE_OK(ioctl(fd, UI_ABS_SETUP, &setup));
}

static void
create(int fd, const char *name, uint16_t product)
{
	struct uinput_setup setup = {
		.id = {.bustype = BUS_VIRTUAL, .vendor = 0x1d6b, .product = product, .version = 1},
	};

	snprintf(setup.name, sizeof(setup.name), "%s", name);
	REQUIRE_OK(ioctl(fd, UI_DEV_SETUP, &setup));
	REQUIRE_OK(ioctl(fd, UI_DEV_CREATE));
	printf("uinput: created \"%s\"\n", name);
}

int
vm_uinput_keyboard(void)
{
	int fd = uinput_open();

	REQUIRE_OK(ioctl(fd, UI_SET_EVBIT, EV_KEY));
	for (int key = KEY_ESC; key <= KEY_MICMUTE; key++)
		REQUIRE_OK(ioctl(fd, UI_SET_KEYBIT, key));
	create(fd, "vellum test keyboard", 0x0101);
	return fd;
}

/* 10 units per mm, as libinput wants a size for touchscreens and tablets. */
#define RESOLUTION 10

int
vm_uinput_touchscreen(uint32_t width, uint32_t height)
{
	int fd = uinput_open();

	REQUIRE_OK(ioctl(fd, UI_SET_EVBIT, EV_KEY));
	REQUIRE_OK(ioctl(fd, UI_SET_KEYBIT, BTN_TOUCH));
	REQUIRE_OK(ioctl(fd, UI_SET_EVBIT, EV_ABS));
	REQUIRE_OK(ioctl(fd, UI_SET_PROPBIT, INPUT_PROP_DIRECT));
	abs_axis(fd, ABS_X, (int32_t)width - 1, RESOLUTION);
	abs_axis(fd, ABS_Y, (int32_t)height - 1, RESOLUTION);
	abs_axis(fd, ABS_MT_SLOT, 9, 0);
	abs_axis(fd, ABS_MT_TRACKING_ID, 65535, 0);
	abs_axis(fd, ABS_MT_POSITION_X, (int32_t)width - 1, RESOLUTION);
	abs_axis(fd, ABS_MT_POSITION_Y, (int32_t)height - 1, RESOLUTION);
	create(fd, "vellum test touchscreen", 0x0102);
	return fd;
}

int
vm_uinput_multitouch(uint32_t width, uint32_t height)
{
	int fd = uinput_open();

	REQUIRE_OK(ioctl(fd, UI_SET_EVBIT, EV_KEY));
	REQUIRE_OK(ioctl(fd, UI_SET_KEYBIT, BTN_TOUCH));
	REQUIRE_OK(ioctl(fd, UI_SET_EVBIT, EV_ABS));
	REQUIRE_OK(ioctl(fd, UI_SET_PROPBIT, INPUT_PROP_DIRECT));
	abs_axis(fd, ABS_X, (int32_t)width - 1, RESOLUTION);
	abs_axis(fd, ABS_Y, (int32_t)height - 1, RESOLUTION);
	abs_axis(fd, ABS_MT_SLOT, VM_MULTITOUCH_SLOTS - 1, 0);
	abs_axis(fd, ABS_MT_TRACKING_ID, 65535, 0);
	abs_axis(fd, ABS_MT_POSITION_X, (int32_t)width - 1, RESOLUTION);
	abs_axis(fd, ABS_MT_POSITION_Y, (int32_t)height - 1, RESOLUTION);
	abs_axis(fd, ABS_MT_TOOL_TYPE, MT_TOOL_MAX, 0);
	create(fd, "vellum test multitouch", 0x0104);
	return fd;
}

void
vm_finger_down(int fd, int slot, uint32_t x, uint32_t y)
{
	static int32_t tracking_id = 1000;

	emit(fd, EV_ABS, ABS_MT_SLOT, slot);
	emit(fd, EV_ABS, ABS_MT_TRACKING_ID, ++tracking_id);
	emit(fd, EV_ABS, ABS_MT_TOOL_TYPE, MT_TOOL_FINGER);
	emit(fd, EV_ABS, ABS_MT_POSITION_X, (int32_t)x);
	emit(fd, EV_ABS, ABS_MT_POSITION_Y, (int32_t)y);
	emit(fd, EV_KEY, BTN_TOUCH, 1);
	emit(fd, EV_ABS, ABS_X, (int32_t)x);
	emit(fd, EV_ABS, ABS_Y, (int32_t)y);
	sync_report(fd);
}

void
vm_finger_palm(int fd, int slot)
{
	emit(fd, EV_ABS, ABS_MT_SLOT, slot);
	emit(fd, EV_ABS, ABS_MT_TOOL_TYPE, MT_TOOL_PALM);
	sync_report(fd);
}

void
vm_finger_up(int fd, int slot)
{
	emit(fd, EV_ABS, ABS_MT_SLOT, slot);
	emit(fd, EV_ABS, ABS_MT_TRACKING_ID, -1);
	sync_report(fd);
}

int
vm_uinput_pen(uint32_t width, uint32_t height)
{
	int fd = uinput_open();

	REQUIRE_OK(ioctl(fd, UI_SET_EVBIT, EV_KEY));
	REQUIRE_OK(ioctl(fd, UI_SET_KEYBIT, BTN_TOOL_PEN));
	REQUIRE_OK(ioctl(fd, UI_SET_KEYBIT, BTN_TOUCH));
	REQUIRE_OK(ioctl(fd, UI_SET_KEYBIT, BTN_STYLUS));
	REQUIRE_OK(ioctl(fd, UI_SET_EVBIT, EV_ABS));
	REQUIRE_OK(ioctl(fd, UI_SET_PROPBIT, INPUT_PROP_DIRECT));
	/* no pressure axis: libinput then takes the tip from BTN_TOUCH */
	abs_axis(fd, ABS_X, (int32_t)width - 1, RESOLUTION);
	abs_axis(fd, ABS_Y, (int32_t)height - 1, RESOLUTION);
	create(fd, "vellum test pen", 0x0103);
	return fd;
}

void
vm_uinput_destroy(int fd)
{
	ioctl(fd, UI_DEV_DESTROY);
	close(fd);
}

void
vm_key(int fd, uint16_t code)
{
	emit(fd, EV_KEY, code, 1);
	sync_report(fd);
	emit(fd, EV_KEY, code, 0);
	sync_report(fd);
}

void
vm_touch_down(int fd, uint32_t x, uint32_t y)
{
	static int32_t tracking_id;

	emit(fd, EV_ABS, ABS_MT_SLOT, 0);
	emit(fd, EV_ABS, ABS_MT_TRACKING_ID, ++tracking_id);
	emit(fd, EV_ABS, ABS_MT_POSITION_X, (int32_t)x);
	emit(fd, EV_ABS, ABS_MT_POSITION_Y, (int32_t)y);
	emit(fd, EV_KEY, BTN_TOUCH, 1);
	emit(fd, EV_ABS, ABS_X, (int32_t)x);
	emit(fd, EV_ABS, ABS_Y, (int32_t)y);
	sync_report(fd);
}

void
vm_touch_move(int fd, uint32_t x, uint32_t y)
{
	emit(fd, EV_ABS, ABS_MT_POSITION_X, (int32_t)x);
	emit(fd, EV_ABS, ABS_MT_POSITION_Y, (int32_t)y);
	emit(fd, EV_ABS, ABS_X, (int32_t)x);
	emit(fd, EV_ABS, ABS_Y, (int32_t)y);
	sync_report(fd);
}

void
vm_touch_up(int fd)
{
	emit(fd, EV_ABS, ABS_MT_TRACKING_ID, -1);
	emit(fd, EV_KEY, BTN_TOUCH, 0);
	sync_report(fd);
}

void
vm_tap(int fd, uint32_t x, uint32_t y)
{
	vm_touch_down(fd, x, y);
	vm_touch_up(fd);
}

void
vm_pen_down(int fd, uint32_t x, uint32_t y)
{
	emit(fd, EV_KEY, BTN_TOOL_PEN, 1);
	emit(fd, EV_ABS, ABS_X, (int32_t)x);
	emit(fd, EV_ABS, ABS_Y, (int32_t)y);
	sync_report(fd);
	emit(fd, EV_KEY, BTN_TOUCH, 1);
	sync_report(fd);
}

void
vm_pen_move(int fd, uint32_t x, uint32_t y)
{
	emit(fd, EV_ABS, ABS_X, (int32_t)x);
	emit(fd, EV_ABS, ABS_Y, (int32_t)y);
	sync_report(fd);
}

void
vm_pen_up(int fd)
{
	emit(fd, EV_KEY, BTN_TOUCH, 0);
	sync_report(fd);
	emit(fd, EV_KEY, BTN_TOOL_PEN, 0);
	sync_report(fd);
}

void
vm_pen_click(int fd, uint32_t x, uint32_t y)
{
	vm_pen_down(fd, x, y);
	vm_pen_up(fd);
}

pid_t
vm_seatd_start(const char *group)
{
	pid_t pid;

	unlink(SEATD_SOCKET);
	printf("+ seatd -g %s\n", group);
	fflush(stdout);
	pid = fork();
	REQUIRE_MSG(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		execlp("seatd", "seatd", "-g", group, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 300 && access(SEATD_SOCKET, F_OK) != 0; i++)
		epd_sleep_ms(100);
	REQUIRE_MSG(access(SEATD_SOCKET, F_OK) == 0, "seatd made no %s", SEATD_SOCKET);
	return pid;
}
