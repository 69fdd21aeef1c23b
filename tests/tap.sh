# SPDX-License-Identifier: MIT
# TAP output for the shell tests, sourced by them: ok NAME, not_ok NAME
# [DETAIL...], skip NAME REASON, todo NAME REASON, expect NAME COMMAND..., verdict NAME, and tap_finish,
# which prints the plan and returns nonzero when anything failed.
n=0
failures=0
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1))
	failures=$((failures + 1))
	echo "not ok $n - $1"
	shift
	local line
	for line in "$@"; do echo "# $line"; done
}
# skip NAME REASON: a case this build or machine cannot run
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}
# todo NAME REASON: a case known to fail, for REASON; it does not fail the test
todo() {
	n=$((n + 1))
	echo "not ok $n - $1 # TODO $2"
}
# expect NAME COMMAND...: ok when COMMAND succeeds
expect() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name" "failed: $*"; fi
}
# verdict NAME: ok when the command just before it succeeded; for a check
# that is a list (A && B), which expect's arguments cannot hold
verdict() {
	local status=$?
	if [ "$status" = 0 ]; then ok "$1"; else not_ok "$1" "failed with status $status"; fi
}
tap_finish() {
	echo "1..$n"
	[ "$failures" -eq 0 ]
}
