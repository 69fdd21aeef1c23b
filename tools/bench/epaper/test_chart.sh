#!/bin/sh
# SPDX-License-Identifier: MIT
# epaper_chart draws the hand-made runs' CSV (a's and e's) as a 1500 pixel
# wide PNG: three rows of figures and a fourth of e's over a's, 60 + 4 * 330
# pixels high; without e's row, the three rows alone; the same from a CSV
# without the panel and scale columns (from before the benchmark had
# panels). Seven groups, scenarios on two panels, take a row per figure:
# 60 + (6 + 2) * 330; without a group that both a and e ran, e's rows go:
# 60 + 6 * 330. It refuses a CSV without the columns it groups by, and a
# missing one.
#
#   test_chart.sh EPAPER_CHART TESTDATA_DIR
set -eu
chart=$1
data=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# IHDR's width and height (big-endian) at bytes 16 and 20 of a PNG
png_size() {
	[ "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" = 89504e470d0a1a0a ]
	echo "$(od -An -tu1 -j16 -N8 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 "x" $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }')"
}

"$chart" "$data/expected.csv" "$work/chart.png"
size=$(png_size "$work/chart.png")
echo "a and e: $size"
[ "$size" = 1500x1380 ]

grep -v '^e,' "$data/expected.csv" >"$work/a.csv"
"$chart" "$work/a.csv" "$work/a.png"
size=$(png_size "$work/a.png")
echo "a alone: $size"
[ "$size" = 1500x1050 ]

cut -d, -f1-2,5- "$data/expected.csv" >"$work/old.csv"
"$chart" "$work/old.csv" "$work/old.png"
size=$(png_size "$work/old.png")
echo "without panels: $size"
[ "$size" = 1500x1380 ]

# each row of expected.csv on desk for six scenarios, and type on reader6
{
	head -n 1 "$data/expected.csv"
	for scenario in clock type scroll page sweep pen; do
		sed -n "2,\$s/^\([ae]\),type,,/\1,$scenario,desk,/p" "$data/expected.csv"
	done
	sed -n '2,$s/^\([ae]\),type,,/\1,type,reader6,/p' "$data/expected.csv"
} >"$work/panels.csv"
"$chart" "$work/panels.csv" "$work/panels.png"
size=$(png_size "$work/panels.png")
echo "seven groups on two panels: $size"
[ "$size" = 1500x2700 ]
# e on reader6 only, a on desk only: no group of both, no row of e over a
grep -v '^e,[a-z]*,desk,\|^a,type,reader6,' "$work/panels.csv" >"$work/apart.csv"
"$chart" "$work/apart.csv" "$work/apart.png"
size=$(png_size "$work/apart.png")
echo "a and e on different panels: $size"
[ "$size" = 1500x2040 ]

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
