// SPDX-License-Identifier: MIT
/*
 * vellum as an unprivileged user, as a kiosk unit runs it: a user of the
 * video group (which owns the framebuffer) and of the group seatd serves.
 * It starts, shows its client on the panel, takes a tap from a touchscreen
 * it opened through seatd, and exits with the client's status.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "epd_test.h"
#include "vellum_run.h"
#include "vm_input.h"

#define USER       "vlkiosk"
#define SEAT_GROUP "vlseat"
#define APP_STATUS 42
#define MARKER_X   100
#define MARKER_Y   60

#define USER_UID       4242
#define SEAT_GROUP_GID 4243

/* Adds user to the member list of group's line in /etc/group. */
static void
add_member(const char *group, const char *user)
{
	char *text = epd_read_file("/etc/group", NULL);
	size_t prefix_len = strlen(group) + 1;

	REQUIRE_MSG(text, "cannot read /etc/group");
	FILE *f = fopen("/etc/group", "w");
	REQUIRE_MSG(f, "cannot write /etc/group: %s", strerror(errno));
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		bool match = !strncmp(line, group, prefix_len - 1) && line[prefix_len - 1] == ':';

		fprintf(f, "%s%s%s\n", line, match && line[strlen(line) - 1] != ':' ? "," : "",
			match ? user : "");
	}
	REQUIRE_OK(fclose(f));
	free(text);
}

static void
append_line(const char *path, const char *line)
{
	FILE *f = fopen(path, "a");

	REQUIRE_MSG(
		f && fprintf(f, "%s\n", line) > 0 && fclose(f) == 0, "cannot append to %s", path);
}

/*
 * The guest's /etc is an overlay, writable, but useradd cannot replace
 * /etc/shadow on it: the user is written in as useradd would.
 */
static void
create_user(void)
{
	char line[256];

	if (getpwnam(USER))
		return;
	add_member("video", USER);
	snprintf(line, sizeof(line), SEAT_GROUP ":x:%d:" USER, SEAT_GROUP_GID);
	append_line("/etc/group", line);
	snprintf(line, sizeof(line), USER ":x:%d:%d:vellum kiosk:/nonexistent:/usr/sbin/nologin",
		USER_UID, SEAT_GROUP_GID);
	append_line("/etc/passwd", line);
	printf("user %s (uid %d), groups %s and video\n", USER, USER_UID, SEAT_GROUP);
}

int
main(void)
{
	struct epd dev, *d = &dev;
	struct vellum_run run;
	struct vellum_box box = {0};
	char app[64], line[256] = "";

	epd_begin("vellum_user", 280);
	epd_open(d, "width=640 height=480 bpp=8 time_scale=10");
	epd_clear(d);
	epd_trace_clear(d);
	vm_input_setup();
	int touch = vm_uinput_touchscreen(d->width, d->height);
	vm_udev_settle();

	epd_phase("a kiosk user with the video and seat groups");
	create_user();
	/* what udev's rules do for framebuffers, whichever way the node was made */
	struct group *video = getgrnam("video");
	REQUIRE(video);
	REQUIRE_OK(chown(d->devnode, 0, video->gr_gid));
	REQUIRE_OK(chmod(d->devnode, 0660));
	pid_t seatd = vm_seatd_start(SEAT_GROUP);

	epd_phase("vellum as " USER);
	/* the program's path is an argument of the shell, whatever its length */
	snprintf(app, sizeof(app), "\"$0\" %d %d 1 && exit %d", MARKER_X, MARKER_Y, APP_STATUS);
	setenv("LIBSEAT_BACKEND", "seatd", 1);
	const char *args[] = {"-d", d->devnode, "--", "sh", "-c", app, TOUCH_PROBE_BIN, NULL};
	vellum_start(&run, args, USER);
	unsetenv("LIBSEAT_BACKEND");
	bool ready = CHECK(vellum_expect(&run, "ready ", line, sizeof(line), 120));
	long uid = vellum_proc_status(run.pid, "Uid");
	struct passwd *pw = getpwnam(USER);
	CHECK_MSG(pw && uid == (long)pw->pw_uid, "vellum runs as uid %ld, not as " USER, uid);
	CHECK_MSG(strstr(line, " touch"), "no touch on the seat: the touchscreen was not opened");

	if (ready) {
		epd_phase("the client is on the panel");
		CHECK_MSG(vellum_wait_full_update(d, 120),
			"the client's window never reached the panel");
		if (vellum_find_marker(d, 16, &box)) {
			epd_phase("a tap ends the client");
			vm_tap(touch, box.x + 8, box.y + 8);
			CHECK(vellum_expect(&run, "down ", line, sizeof(line), 60));
		}
	}
	if (!ready || !box.ink)
		kill(run.pid, SIGTERM);

	epd_phase("vellum exits with the client's status");
	int status = vellum_wait(&run, 60);
	CHECK_EQ(status, APP_STATUS);

	kill(seatd, SIGTERM);
	vellum_child_wait(seatd, 10);
	vm_uinput_destroy(touch);
	epd_close(d);
	return epd_end();
}
