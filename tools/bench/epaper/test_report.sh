#!/bin/sh
# epaper_report on a hand-made run (testdata/run) whose figures are worked
# out below, then on a run without its info file, which it refuses.
#
#   changes at 1, 2 and 3 s; updates submitted at 1.1 s (ends 1.55), 1.2 s
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
#
#   test_report.sh EPAPER_REPORT TESTDATA_DIR
set -eu
report=$1
data=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$report" "$work/out.csv" "$data/run" >"$work/table"
cat "$work/table"
diff -u "$data/expected.csv" "$work/out.csv"

mkdir "$work/no-info"
if "$report" "$work/bad.csv" "$work/no-info" >"$work/err" 2>&1; then
	echo "a run without its info file was accepted"
	exit 1
fi
cat "$work/err"
grep -q "no-info/info: No such file" "$work/err"
