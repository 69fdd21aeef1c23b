#!/bin/sh
# SPDX-License-Identifier: MIT
# epaper_report on two hand-made runs of the type scenario, a's
# (testdata/a-type) and e's (testdata/e-type), whose figures are worked out
# below, then on a run without its info file, which it refuses.
#
# a: changes at 1, 2 and 3 s; updates submitted at 1.1 s (ends 1.55), 1.2 s
#   (ends 1.7) and 3.05 s (starts 3.06, ends 3.5, flashing)
#   change 0: its updates 1.1..1.7      latency 700 ms, software 100 ms
#   change 1: none before 3 s, folded into change 2's: 1500 ms, 1050 ms
#   change 2: 3.05..3.5                 latency 500 ms, software 50 ms
#   p50 / p99 (nearest rank of 3): 700 / 1500, 100 / 1050
#   5000 pixels driven / 1000 changed = 5; 1 flash over 3 s (2 s between
#   the first and last change plus the 1 s interval) = 20 per minute;
#   30 ticks of 10 ms / 3 updates = 100 ms per update
#   pen events at 1.05 s and 3 s: inked by the updates starting at 1.1 s
#   and 3.06 s: 50 and 60 ms
# e: the same changes and updates, but the first two end at 1.6 and 1.8 s
#   change 0: 1.1..1.8                  latency 800 ms, software 100 ms
#   changes 1 and 2 as a's: latencies 1500 and 500 ms
#   p50: 800 ms; 4000 pixels driven / 1000 changed = 4; 60 ticks = 200 ms
#   per update; no pen events
# e against a: 4 / 5 = 0.80 pixels driven per pixel changed (met: at most
#   1), 800 / 700 = 1.14 latency (missed: at most 1.10)
#
#   test_report.sh EPAPER_REPORT TESTDATA_DIR
set -eu
report=$1
data=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$report" "$work/out.csv" "$data/a-type" "$data/e-type" >"$work/table"
cat "$work/table"
diff -u "$data/expected.csv" "$work/out.csv"
grep -qx 'e/a type: drv/chg 4.0 / 5.0 = 0.80 (target <= 1.00, met); lat50 800 / 700 ms = 1.14 (target <= 1.10, missed)' \
	"$work/table"
grep -qx 'e/a: 1 of 2 targets missed in 1 scenario' "$work/table"

# a alone: nothing to compare
"$report" "$work/a.csv" "$data/a-type" >"$work/a-table"
if grep -q '^e/a' "$work/a-table"; then
	echo "a comparison was printed without e's run"
	exit 1
fi

mkdir "$work/no-info"
if "$report" "$work/bad.csv" "$work/no-info" >"$work/err" 2>&1; then
	echo "a run without its info file was accepted"
	exit 1
fi
cat "$work/err"
grep -q "no-info/info: No such file" "$work/err"
