# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by the client tests and by the scripts they run under vellum
# ($VELLUM_TEST_WAIT_FOR names this file).
#
# wait_for COMMAND...: runs COMMAND every 0.1 s until it succeeds. It gives
# up after 100 s, which only a broken run reaches: under emulation on a
# loaded machine a client's first frame can take many seconds. The shell
# expands COMMAND's words once, before wait_for runs: a condition on what
# changes meanwhile must be a function (such as lines_at_least), not a
# [ "$(...)" ... ] test. A file that a command started in the background
# writes is emptied before it starts: its shell opens the file later, and
# a wait could meanwhile read an earlier run's lines.
wait_for() {
	local _
	for _ in $(seq 1000); do
		"$@" && return 0
		sleep 0.1
	done
	echo "# timed out: $*" >&2
	return 1
}

# lines_at_least N PATTERN FILE: FILE has N lines that match PATTERN (a
# missing FILE has none)
lines_at_least() {
	local n
	n=$(grep -c -- "$2" "$3" 2>/dev/null)
	[ "${n:-0}" -ge "$1" ]
}
