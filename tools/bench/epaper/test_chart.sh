#!/bin/sh
# epaper_chart draws the hand-made run's CSV as a 1500 pixel wide PNG, and
# refuses a CSV without the columns it groups by, and a missing one.
#
#   test_chart.sh EPAPER_CHART TESTDATA_DIR
set -eu
chart=$1
data=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$chart" "$data/expected.csv" "$work/chart.png"
# the PNG signature, then IHDR's width (big-endian) at byte 16
[ "$(od -An -tx1 -N8 "$work/chart.png" | tr -d ' \n')" = 89504e470d0a1a0a ]
[ "$(od -An -tx1 -j16 -N4 "$work/chart.png" | tr -d ' \n')" = 000005dc ]

printf 'name,value\nx,1\n' >"$work/bad.csv"
if "$chart" "$work/bad.csv" "$work/bad.png" 2>"$work/err"; then
	echo "a CSV without config and scenario columns was accepted"
	exit 1
fi
grep -q "no config, scenario or stack column" "$work/err"
[ ! -e "$work/bad.png" ]
if "$chart" "$work/missing.csv" "$work/bad.png" 2>"$work/err"; then
	echo "a missing CSV was accepted"
	exit 1
fi
grep -q "missing.csv: No such file" "$work/err"
