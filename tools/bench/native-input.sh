#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Input to update, natively: vellum on the memory panel, foot typed into
# through the virtual keyboard protocol (vk_typist, a key every 100 ms),
# then epaper-paint drawn in through the virtual pointer protocol
# (vp_stroker, strokes of 20 motions, one every 20 ms). Per event, the time
# from the event sent to the first update submitted after it (the memory
# panel's trace, CLOCK_MONOTONIC as the senders' stamps); its median and
# 99th percentile.
#
#   tools/bench/native-input.sh BUILD_DIR [EVENTS]
#
# EVENTS is how many keys are typed and pen motions made (default 220).
set -euo pipefail

build=$(cd "$1" && pwd)
keys=${2:-220}
vellum=$build/compositor/vellum
typist=$build/tests/clients/vk_typist
stroker=$build/tests/clients/vp_stroker
paint=$build/examples/epaper-paint
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR=$work/run
mkdir -m 700 "$XDG_RUNTIME_DIR"
export VELLUM_MEMORY_TRACE=$work/trace

# foot echoes the keys (cat reads them away); the typist starts once foot's
# first frame and its idle cleanup are done.
cat >"$work/type.sh" <<SCRIPT
foot --override=font=monospace:size=12 sh -c 'exec cat >/dev/null' &
foot=\$!
"$typist" -n "$keys" -i 100 -w 4000 >"$work/keys"
sleep 1
kill \$foot
SCRIPT
"$vellum" --no-xwayland -d memory:1872x1404 -- bash "$work/type.sh" >"$work/vellum.log" 2>&1 || true
mv "$VELLUM_MEMORY_TRACE" "$work/type.trace"

cat >"$work/paint.sh" <<SCRIPT
"$paint" &
paint=\$!
"$stroker" -n "$keys" -i 20 -w 3000 >"$work/motions"
sleep 1
kill \$paint
SCRIPT
"$vellum" --no-xwayland -d memory:1872x1404 -- bash "$work/paint.sh" >>"$work/vellum.log" 2>&1 || true
mv "$VELLUM_MEMORY_TRACE" "$work/paint.trace"

# event_to_update TRACE EVENTS: "p50 X ms, p99 Y ms (N events)" from the
# events' ns= stamps and the trace's.
event_to_update() {
	awk '
		FNR == NR { if (match($0, /ns=[0-9]+/)) update[++n] = substr($0, RSTART + 3, RLENGTH - 3); next }
		match($0, /ns=[0-9]+/) {
			t = substr($0, RSTART + 3, RLENGTH - 3)
			while (u <= n && update[u] + 0 < t + 0)
				u++
			if (u <= n)
				print (update[u] - t) / 1e6
		}' u=1 "$1" "$2" | sort -g |
		awk '{ v[NR] = $1 } END {
			if (NR == 0) { print "no events"; exit }
			p99 = int(NR * 0.99 + 0.999); if (p99 < 1) p99 = 1
			printf "p50 %.1f ms, p99 %.1f ms (%d events)\n", v[int((NR + 1) / 2)], v[p99], NR }'
}

status=0
if [ -s "$work/keys" ] && [ -s "$work/type.trace" ]; then
	echo "native key -> update submitted (foot): $(event_to_update "$work/type.trace" "$work/keys")"
else
	echo "native key -> update submitted (foot): not measured: no keys or no updates" >&2
	status=1
fi
if [ -s "$work/motions" ] && [ -s "$work/paint.trace" ]; then
	echo "native pen event -> update submitted (epaper-paint):" \
		"$(event_to_update "$work/paint.trace" "$work/motions")"
else
	echo "native pen event -> update submitted (epaper-paint): not measured: no motions or" \
		"no updates" >&2
	status=1
fi
((status == 0)) || cat "$work/vellum.log" >&2
exit $status
