/* SPDX-License-Identifier: MIT */
/*
 * vellum's log lines. Each line reaches stderr in one write(2), so that the
 * application's output, which shares the terminal or the journal's pipe,
 * never lands in the middle of one.
 */
#ifndef VL_LOG_H
#define VL_LOG_H

#include <wlr/util/log.h>

/* Sends wlroots' and vellum's log to stderr, up to verbosity. */
void vl_log_init(enum wlr_log_importance verbosity);

#endif
