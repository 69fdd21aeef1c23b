/* SPDX-License-Identifier: MIT */
/*
 * Runs vellum for a test: in a fresh XDG_RUNTIME_DIR, its output (and its
 * application's) read line by line through a pipe, echoed with a prefix.
 * Also the clients the tests start, and figures of a process.
 */
#ifndef VELLUM_RUN_H
#define VELLUM_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct epd;

struct vellum_run {
	pid_t pid;
	int out_fd; /* vellum's stdout and stderr, and its application's */
	char pending[4096];
	size_t pending_len;
	char runtime_dir[64];
	char display[128]; /* WAYLAND_DISPLAY, once the application printed it */
};

/*
 * Starts vellum with args (NULL-terminated, without the program); its
 * application should print "display $WAYLAND_DISPLAY" first (see
 * VELLUM_SAY_DISPLAY). With user non-NULL, vellum runs as that user, with
 * the user's groups, in a runtime directory the user owns.
 */
void vellum_start(struct vellum_run *run, const char *const *args, const char *user);
/* As vellum_start, with another build of vellum. */
void vellum_start_program(
	struct vellum_run *run, const char *program, const char *const *args, const char *user);
/* The shell command an application starts with so that the test learns the display. */
#define VELLUM_SAY_DISPLAY "echo \"display $WAYLAND_DISPLAY\"; "
/*
 * Reads lines until one starts with prefix, within timeout_s; copies it
 * (without the newline) to line. False on timeout or end of output.
 */
bool vellum_expect(
	struct vellum_run *run, const char *prefix, char *line, size_t len, unsigned int timeout_s);
/* vellum_expect("display "), which sets run->display. */
bool vellum_expect_display(struct vellum_run *run, unsigned int timeout_s);
/*
 * Prints what vellum and its application wrote so far, without waiting: a
 * long run empties the pipe so that they never block on a full one.
 */
void vellum_print_output(struct vellum_run *run);
/*
 * Waits up to timeout_s for vellum to exit, echoing its remaining output:
 * its exit status (128+N when killed by signal N), or -1 when it did not
 * exit (it is killed then).
 */
int vellum_wait(struct vellum_run *run, unsigned int timeout_s);
/* Sends sig, then vellum_wait(). */
int vellum_stop(struct vellum_run *run, int sig, unsigned int timeout_s);

/* Starts a client of run's display with its stdout (and stderr) on *out_fd. */
pid_t vellum_client_start(const struct vellum_run *run, const char *const *argv, int *out_fd);
/* Exit status of pid within timeout_s (128+N for signal N), -1 when it did not exit (then killed).
 */
int vellum_child_wait(pid_t pid, unsigned int timeout_s);
/* Reads a line starting with prefix from fd within timeout_s (echoed with tag). */
bool vellum_read_line(int fd, const char *tag, const char *prefix, char *line, size_t len,
	unsigned int timeout_s);
/* VmRSS of pid in KiB, or -1. */
long vellum_rss_kib(pid_t pid);
/* The first numeric field of "Key:" in /proc/pid/status, or -1. */
long vellum_proc_status(pid_t pid, const char *key);

/* ---- panel images ---- */

struct vellum_box {
	uint32_t x, y, width, height;
	size_t ink; /* pixels that differ from the paper inside */
};

/*
 * The ink on an 8-bit image of the given stride within a rect: pixels
 * further than half the gray range from the paper's value. Their count,
 * and their bounding box in *box (may be NULL).
 */
size_t vellum_ink_box(const uint8_t *image, uint32_t stride, uint32_t x, uint32_t y, uint32_t w,
	uint32_t h, uint8_t paper, struct vellum_box *box);

/* Entries in the driver's update trace. */
size_t vellum_trace_count(struct epd *d);
/* Waits up to timeout_s for an update of the whole panel in the trace. */
bool vellum_wait_full_update(struct epd *d, unsigned int timeout_s);
/*
 * Waits (up to a minute) for the panel to show a white page with a black
 * size x size square on it, as touch_probe draws, alone or in the frame
 * vellum draws around a dialog; its box. Fails the test when it does not.
 */
bool vellum_find_marker(struct epd *d, uint32_t size, struct vellum_box *box);
/*
 * Waits (up to 10 s) for a terminal's cursor, all there is on its
 * background: its box, the first cell, and the background's gray level
 * (the panel's far corner) in *paper. Fails the test when no cursor-sized
 * box of ink shows.
 */
bool vellum_find_cursor(struct epd *d, struct vellum_box *cursor, uint8_t *paper);

#endif
