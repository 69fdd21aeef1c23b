#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/wlcs/judge.py, which decides whether vellum passes the conformance
# suite: sample wlcs logs and expected-failure lists, and what it says of
# them. Prints TAP.
#
#   test_wlcs_judge.sh JUDGE
set -u

judge=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=../tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

# A run: one test passes, one fails for a listed reason, one is skipped.
cat >"$work/run.log" <<'LOG'
[ RUN      ] Group.passes
[       OK ] Group.passes (12 ms)
[ RUN      ] Group.fails_for_the_reason
some output
xdg_surface has never been configured
[  FAILED  ] Group.fails_for_the_reason (3 ms)
[ RUN      ] Params/Other.case/4
[  FAILED  ] Params/Other.case/4, where GetParam() = (a, b) (5 ms)
[ RUN      ] Skipped.case
[     SKIP ] Skipped.case (1ms)
LOG

# judge_with LIST [WHOLE_SUITE]: its output in $out, its status in $status
judge_with() {
	printf '%s\n' "$1" >"$work/list"
	out=$(python3 "$judge" "$work/run.log" "$work/list" 1 wlcs "${2:-1}")
	status=$?
}

judge_with "# comment
* | never been configured | the client breaks xdg-shell
Params/Other.case/* | | a kiosk"
if [ "$status" -eq 0 ] && grep -qx "PASS wlcs/Group" <<<"$out" &&
	grep -qx "PASS wlcs/Params/Other" <<<"$out" &&
	grep -qx "3 wlcs tests ran: 1 pass, 2 fail as listed, 0 fail otherwise; 1 more skipped (their protocols are not offered)" <<<"$out" &&
	[ "$(tail -n 1 <<<"$out")" = "3 passed, 0 failed" ]; then
	ok "failures listed with their reasons pass"
else
	not_ok "failures listed with their reasons pass" "status $status" "$out"
fi

judge_with "## untestable: the suite's builders break xdg-shell
Group.fails_for_the_reason | never been configured | the client breaks xdg-shell
## kiosk
Params/Other.case/* | | a kiosk"
if [ "$status" -eq 0 ] &&
	grep -qx "of the 2 that can test vellum, 1 pass and 1 fail for the reasons listed" <<<"$out" &&
	grep -qx " *1  untestable: the suite's builders break xdg-shell" <<<"$out" &&
	grep -qx " *1  kiosk" <<<"$out" &&
	grep -q "^untestable with wlcs 1.7 .*: Group$" <<<"$out"; then
	ok "failures are counted by reason group, the untestable ones apart"
else
	not_ok "failures are counted by reason group, the untestable ones apart" "status $status" "$out"
fi

judge_with "* | some other error | a reason
Params/Other.case/* | | a kiosk"
if [ "$status" -ne 0 ] && grep -q "^FAIL wlcs/Group" <<<"$out" &&
	grep -q "Group.fails_for_the_reason fails" <<<"$out"; then
	ok "a failure for another reason than the listed one fails its group"
else
	not_ok "a failure for another reason than the listed one fails its group" "$out"
fi

judge_with "Group.passes | | it used to fail
* | never been configured | the client breaks xdg-shell
Params/Other.case/* | | a kiosk"
if [ "$status" -ne 0 ] && grep -q "Group.passes passes: take line 1 off the list" <<<"$out"; then
	ok "a listed test that passes fails the check"
else
	not_ok "a listed test that passes fails the check" "$out"
fi

stale_list="* | never been configured | the client breaks xdg-shell
Params/Other.case/* | | a kiosk
Gone.test | | fixed long ago"
judge_with "$stale_list"
if [ "$status" -ne 0 ] && grep -q "list:3: Gone.test explains no failure now" <<<"$out"; then
	ok "an entry that explains no failure fails the whole-suite run"
else
	not_ok "an entry that explains no failure fails the whole-suite run" "$out"
fi
judge_with "$stale_list" 0
expect "a filtered run does not call entries stale" [ "$status" -eq 0 ]

judge_with "* | never been configured"
if [ "$status" -ne 0 ] && grep -q "not PATTERN | TEXT | REASON" <<<"$out"; then
	ok "an entry without a reason is refused"
else
	not_ok "an entry without a reason is refused" "$out"
fi

# The runner died in the middle of a test, with a sanitizer's report.
cat >>"$work/run.log" <<'LOG'
[ RUN      ] Crash.test
==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x1
LOG
judge_with "* | never been configured | the client breaks xdg-shell
Params/Other.case/* | | a kiosk"
if [ "$status" -ne 0 ] && grep -q "Crash.test never finished" <<<"$out" &&
	grep -q "^FAIL wlcs (a sanitizer report: ==1==ERROR: AddressSanitizer" <<<"$out"; then
	ok "a test the runner died in and a sanitizer report fail"
else
	not_ok "a test the runner died in and a sanitizer report fail" "$out"
fi

tap_finish
