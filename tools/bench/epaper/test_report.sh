#!/bin/sh
# SPDX-License-Identifier: MIT
# epaper_report on two hand-made runs of the type scenario, a's
# (testdata/a-type) and e's (testdata/e-type), whose figures are worked out
# below; then on those and the same two runs on the reader6 panel
# (testdata/reader6/, whose info names the panel and vellum's scale, where
# the first two, from before the benchmark had panels, name none): e is
# compared with a on the same panel only; then on a run without its info
# file, which it refuses.
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
# f: e's run on an IT8951 board over USB, which sent 1200 bytes: f against
#   a: drv/chg 0.80 (met), latency 1.14 (met: at most 1.20), 1200 bytes /
#   1000 changed = 1.20 (missed: at most 1)
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
grep -q '^a      -       type      vellum + foot ' "$work/table"

"$report" "$work/usb.csv" "$data/a-type" "$data/f-type" >"$work/usb-table"
cat "$work/usb-table"
grep -qx 'f/a type: drv/chg 4.0 / 5.0 = 0.80 (target <= 1.00, met); lat50 800 / 700 ms = 1.14 (target <= 1.20, met); USB 1200 bytes / 1000 changed = 1.20 (target <= 1.00, missed)' \
	"$work/usb-table"
grep -qx 'f/a: 1 of 3 targets missed in 1 scenario' "$work/usb-table"
grep -qx 'f,type,,,"vellum it8951 + foot",3,3,800.0,.*,1200,1.20,""' "$work/usb.csv"
if grep -q '^e/a' "$work/usb-table"; then
	echo "e was compared without e's run"
	exit 1
fi

# two panels, an unnamed one and reader6, in an order that puts reader6's a first
"$report" "$work/panels.csv" "$data/reader6/a-type" "$data/a-type" "$data/e-type" \
	"$data/reader6/e-type" >"$work/panels-table"
cat "$work/panels-table"
grep -q '^a      reader6 type      vellum + foot ' "$work/panels-table"
grep -qx 'a,type,reader6,3.00,"vellum + foot",3,3,700.0,.*,"fixture"' "$work/panels.csv"
grep -qx 'a,type,,,"vellum + foot",3,3,700.0,.*,"fixture"' "$work/panels.csv"
grep -qx 'e,type,reader6,3.00,"vellum epdrm + foot",3,3,800.0,.*,""' "$work/panels.csv"
grep -qx 'a/type on reader6: fixture' "$work/panels-table"
grep -qx 'a/type: fixture' "$work/panels-table"
grep -qx "panel reader6: 1072x1448, 91x123 mm, 32 bpp; vellum's output scale 3.00" \
	"$work/panels-table"
grep -qx 'e/a type: drv/chg 4.0 / 5.0 = 0.80 (target <= 1.00, met); lat50 800 / 700 ms = 1.14 (target <= 1.10, missed)' \
	"$work/panels-table"
grep -qx 'e/a type on reader6: drv/chg 4.0 / 5.0 = 0.80 (target <= 1.00, met); lat50 800 / 700 ms = 1.14 (target <= 1.10, missed)' \
	"$work/panels-table"
grep -qx 'e/a: 2 of 4 targets missed in 2 scenarios' "$work/panels-table"

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
