/* SPDX-License-Identifier: MIT */
/*
 * Input in the VM: udevd (so libinput finds and classifies devices), a seat
 * daemon, and virtual keyboards, touchscreens and pens written through
 * uinput. Their absolute axes span the panel's pixels, as a touchscreen
 * laminated to it does.
 */
#ifndef VM_INPUT_H
#define VM_INPUT_H

#include <stdint.h>
#include <sys/types.h>

/* Loads uinput, starts systemd-udevd unless it runs, replays the devices' events. */
void vm_input_setup(void);
/* Waits until udev has handled every event so far. */
void vm_udev_settle(void);

int vm_uinput_keyboard(void);
int vm_uinput_touchscreen(uint32_t width, uint32_t height);
int vm_uinput_pen(uint32_t width, uint32_t height);
void vm_uinput_destroy(int fd);

/*
 * A touchscreen of VM_MULTITOUCH_SLOTS fingers that tells a palm from a
 * finger (libinput cancels a touch that turns into a palm). Each finger is
 * put down, turned into a palm or lifted in its own slot.
 */
#define VM_MULTITOUCH_SLOTS 20
int vm_uinput_multitouch(uint32_t width, uint32_t height);
void vm_finger_down(int fd, int slot, uint32_t x, uint32_t y);
void vm_finger_palm(int fd, int slot);
void vm_finger_up(int fd, int slot);

/* A key pressed and released. */
void vm_key(int fd, uint16_t code);
/* A one-finger tap at a panel pixel. */
void vm_tap(int fd, uint32_t x, uint32_t y);
/* One finger touches a panel pixel, moves over others, lifts. */
void vm_touch_down(int fd, uint32_t x, uint32_t y);
void vm_touch_move(int fd, uint32_t x, uint32_t y);
void vm_touch_up(int fd);
/* The pen comes near at a panel pixel, touches it, lifts and goes away. */
void vm_pen_click(int fd, uint32_t x, uint32_t y);
/* The pen comes near and touches a panel pixel, moves over others, lifts and goes away. */
void vm_pen_down(int fd, uint32_t x, uint32_t y);
void vm_pen_move(int fd, uint32_t x, uint32_t y);
void vm_pen_up(int fd);

/* Starts seatd for the members of group; its pid. */
pid_t vm_seatd_start(const char *group);

#endif
