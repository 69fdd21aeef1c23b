/* SPDX-License-Identifier: MIT */
/*
 * The contact sheet of the panel over time, with its updates drawn over it.
 */
#ifndef PANEL_SHEET_H
#define PANEL_SHEET_H

#include <stdint.h>
#include <stdio.h>

/*
 * Lays out the count frames (PGM paths named NS.pgm) in columns, scaled by
 * scale, with the updates of the trace at trace_path, times from start_ns
 * (0: the first frame's), as a PNG at out_path. 0, or 1 with a message on
 * standard error.
 */
int panel_sheet_make(const char *out_path, const char *trace_path, int columns, double scale,
	uint64_t start_ns, char **paths, int count);
/*
 * The same into out, a file the caller opened (out_name names it in
 * messages), trace_path and the frames' paths taken relative to the
 * directory dir_fd, as openat(2) takes them.
 */
int panel_sheet_write(FILE *out, const char *out_name, int dir_fd, const char *trace_path,
	int columns, double scale, uint64_t start_ns, char **paths, int count);

#endif
