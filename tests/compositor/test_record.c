// SPDX-License-Identifier: MIT
/*
 * The preview's recording (--record DIR) without a display: DIR is made
 * private to the user (0700, its files 0600), an existing DIR is taken only
 * when it is the user's own and no one else may write in it, and nothing in
 * it is written through a symbolic link, so that a directory or links
 * planted by another user cannot make vellum write over a file.
 */
#include <cairo.h>
#include <fcntl.h>
#include <fontconfig/fontconfig.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "panel-model.h"
#include "record.h"

#define W 64
#define H 48

/* the files a recording of two frames leaves, below its directory */
static const char *const recorded_files[] = {
	"frames/1000.pgm",
	"frames/2000.pgm",
	"updates.txt",
	"panel.pgm",
	"panel.png",
	"panel-frames.png",
};

static char top[256];

static int
setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "%s/vellum-record-XXXXXX",
		getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(top) ? 0 : -1;
}

static int
teardown(void **state)
{
	char command[PATH_MAX + 16];

	(void)state;
	snprintf(command, sizeof(command), "rm -rf '%s'", top);
	return system(command) == 0 ? 0 : -1;
}

/* top/name */
static const char *
path_of(const char *name)
{
	static char paths[4][PATH_MAX];
	static int next;
	char *path = paths[next++ % 4];

	snprintf(path, PATH_MAX, "%s/%s", top, name);
	return path;
}

/* Records two frames of a white panel in dir and finishes with a model of it. */
static void
record_two_frames(const char *dir)
{
	char error[256];
	uint8_t frame[W * H];
	struct vl_panel_model *model = vl_panel_model_create(W, H, 100, error, sizeof(error));

	assert_non_null(model);
	struct vl_record *record = vl_record_start(dir, error, sizeof(error));
	if (!record)
		fail_msg("--record %s refused: %s", dir, error);
	memset(frame, 255, sizeof(frame));
	vl_record_frame(record, frame, W, H, 1000);
	vl_record_frame(record, frame, W, H, 2000);
	vl_record_finish(record, model);
	vl_panel_model_destroy(model);
}

static void
assert_mode(const char *path, mode_t type, mode_t mode)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		fail_msg("%s: not there", path);
	if ((st.st_mode & S_IFMT) != type || (st.st_mode & 07777) != mode)
		fail_msg("%s: mode %o, not %o", path, (unsigned int)st.st_mode,
			(unsigned int)(type | mode));
}

static void
assert_refused(const char *dir, const char *why)
{
	char error[256] = "";
	struct vl_record *record = vl_record_start(dir, error, sizeof(error));

	if (record) {
		vl_record_finish(record, NULL);
		fail_msg("--record %s was taken: %s", dir, why);
	}
	if (!strstr(error, dir))
		fail_msg("--record %s: the message does not name it: \"%s\"", dir, error);
}

/* A new directory and everything in it are the user's alone. */
static void
test_private_files(void **state)
{
	(void)state;
	const char *dir = path_of("new");

	record_two_frames(dir);
	assert_mode(dir, S_IFDIR, 0700);
	assert_mode(path_of("new/frames"), S_IFDIR, 0700);
	for (size_t i = 0; i < sizeof(recorded_files) / sizeof(*recorded_files); i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", dir, recorded_files[i]);
		assert_mode(path, S_IFREG, 0600);
	}
}

/* The user's own directory is taken again, a second recording over the first. */
static void
test_own_dir_again(void **state)
{
	(void)state;
	const char *dir = path_of("again");

	assert_int_equal(mkdir(dir, 0755), 0);
	record_two_frames(dir);
	record_two_frames(dir);
	assert_mode(path_of("again/panel.pgm"), S_IFREG, 0600);
}

/* Directories others may write in, or that are not the user's, are refused. */
static void
test_refused_dirs(void **state)
{
	(void)state;
	const char *shared = path_of("shared"), *group = path_of("group");
	const char *link = path_of("link"), *own = path_of("own");

	assert_int_equal(mkdir(shared, 0700), 0);
	assert_int_equal(chmod(shared, 01777), 0);
	assert_refused(shared, "a world-writable directory");
	assert_int_equal(mkdir(group, 0700), 0);
	assert_int_equal(chmod(group, 0770), 0);
	assert_refused(group, "a group-writable directory");
	assert_int_equal(mkdir(own, 0700), 0);
	assert_int_equal(symlink(own, link), 0);
	assert_refused(link, "a symbolic link to a directory");

	if (geteuid() == 0) {
		const char *nobody = path_of("nobody");
		assert_int_equal(mkdir(nobody, 0755), 0);
		assert_int_equal(chown(nobody, 65534, 65534), 0);
		assert_refused(nobody, "a directory of another user");
	} else {
		assert_refused("/", "a directory of another user");
	}

	/* a frames directory that is a link elsewhere */
	const char *planted = path_of("planted");
	assert_int_equal(mkdir(planted, 0700), 0);
	char frames[PATH_MAX];
	snprintf(frames, sizeof(frames), "%s/frames", planted);
	assert_int_equal(symlink(own, frames), 0);
	assert_refused(planted, "frames/ a symbolic link");
}

/* Links in the directory are replaced, never written through. */
static void
test_links_not_followed(void **state)
{
	(void)state;
	const char *dir = path_of("links"), *victim = path_of("victim");
	static const char secret[] = "not for the recording\n";
	char text[64] = "";

	assert_int_equal(mkdir(dir, 0700), 0);
	char frames[PATH_MAX];
	snprintf(frames, sizeof(frames), "%s/frames", dir);
	assert_int_equal(mkdir(frames, 0700), 0);
	FILE *f = fopen(victim, "w");
	assert_non_null(f);
	fputs(secret, f);
	assert_int_equal(fclose(f), 0);
	for (size_t i = 0; i < sizeof(recorded_files) / sizeof(*recorded_files); i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", dir, recorded_files[i]);
		assert_int_equal(symlink(victim, path), 0);
	}

	record_two_frames(dir);
	f = fopen(victim, "r");
	assert_non_null(f);
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_string_equal(text, secret);
	for (size_t i = 0; i < sizeof(recorded_files) / sizeof(*recorded_files); i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", dir, recorded_files[i]);
		assert_mode(path, S_IFREG, 0600);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_private_files),
		cmocka_unit_test(test_own_dir_again),
		cmocka_unit_test(test_refused_dirs),
		cmocka_unit_test(test_links_not_followed),
	};

	int failed = cmocka_run_group_tests(tests, setup, teardown);
	/* what the contact sheet's text loaded, for the leak checker */
	cairo_debug_reset_static_data();
	FcFini();
	return failed;
}
