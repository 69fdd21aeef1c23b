// SPDX-License-Identifier: MIT
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static struct timespec log_start;

static const char *const level_names[] = {
	[WLR_SILENT] = "",
	[WLR_ERROR] = "[ERROR] ",
	[WLR_INFO] = "[INFO] ",
	[WLR_DEBUG] = "[DEBUG] ",
};

static void
log_line(enum wlr_log_importance importance, const char *fmt, va_list args)
{
	char line[1024];
	struct timespec now;

	/* wlroots hands every message to the callback, whatever the verbosity */
	if (importance > wlr_log_get_verbosity())
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	long long ms = (now.tv_sec - log_start.tv_sec) * 1000LL +
		       (now.tv_nsec - log_start.tv_nsec) / 1000000;
	int n = snprintf(line, sizeof(line), "%02lld:%02lld:%02lld.%03lld %s", ms / 3600000,
		ms / 60000 % 60, ms / 1000 % 60, ms % 1000,
		importance < WLR_LOG_IMPORTANCE_LAST ? level_names[importance] : "");
	if (n < 0)
		return;
	int body = vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, args);
	if (body < 0)
		return;
	size_t len = (size_t)n + (size_t)body;
	if (len > sizeof(line) - 2) {
		/* a cut line still ends where it should */
		len = sizeof(line) - 2;
	}
	line[len++] = '\n';
	for (size_t done = 0; done < len;) {
		ssize_t wrote = write(STDERR_FILENO, line + done, len - done);
		if (wrote <= 0)
			return;
		done += (size_t)wrote;
	}
}

void
vl_log_init(enum wlr_log_importance verbosity)
{
	clock_gettime(CLOCK_MONOTONIC, &log_start);
	wlr_log_init(verbosity, log_line);
}
