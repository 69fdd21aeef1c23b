// SPDX-License-Identifier: MIT
/*
 * A libFuzzer target's inputs replayed without libFuzzer: each file given,
 * and each file of each directory given, goes to LLVMFuzzerTestOneInput
 * once. The seed corpus runs this way in every build, the cross builds
 * under qemu-user among them, where clang's libFuzzer is not; a target
 * aborts on an input that breaks what it checks.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool
replay_file(const char *path)
{
	FILE *file = fopen(path, "rb");
	uint8_t *data = NULL;
	long size;

	if (!file || fseek(file, 0, SEEK_END) != 0 || (size = ftell(file)) < 0 ||
		fseek(file, 0, SEEK_SET) != 0) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		if (file)
			fclose(file);
		return false;
	}
	/* one byte more, so that an empty input is a pointer too */
	data = malloc((size_t)size + 1);
	bool read = data && fread(data, 1, (size_t)size, file) == (size_t)size;
	fclose(file);
	if (read)
		LLVMFuzzerTestOneInput(data, (size_t)size);
	else
		fprintf(stderr, "replay: cannot read %s\n", path);
	free(data);
	return read;
}

/* The number of inputs replayed from path, or -1 when one could not be read. */
static long
replay(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: no such input: %s\n", path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path) ? 1 : -1;
	DIR *dir = opendir(path);
	if (!dir) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return -1;
	}
	long count = 0;
	struct dirent *entry;
	while (count >= 0 && (entry = readdir(dir))) {
		if (entry->d_name[0] == '.')
			continue;
		size_t length = strlen(path) + strlen(entry->d_name) + 2;
		char *child = malloc(length);
		if (!child) {
			count = -1;
			break;
		}
		snprintf(child, length, "%s/%s", path, entry->d_name);
		long n = replay(child);
		count = n < 0 ? -1 : count + n;
		free(child);
	}
	closedir(dir);
	return count;
}

int
main(int argc, char **argv)
{
	long total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE_OR_DIRECTORY...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		long n = replay(argv[i]);
		if (n < 0)
			return 1;
		total += n;
	}
	if (total == 0) {
		fprintf(stderr, "replay: no input to replay\n");
		return 1;
	}
	printf("replayed %ld inputs\n", total);
	return 0;
}
