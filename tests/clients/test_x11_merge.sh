#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One change an X client draws in two requests (x11_split) under vellum on
# the memory panel. Xwayland commits the halves one per frame callback:
# without a merge window they are two updates; with one they merge into
# one, which goes to the panel as soon as Xwayland answered a frame done
# with nothing, long before a 2 s x11-merge-window is over. Halves drawn a
# second apart go as two updates, the first on the panel before the second
# is drawn; an application's own merge-window is waited out. Prints TAP.
#
#   test_x11_merge.sh VELLUM X11_SPLIT
set -u

vellum=$1
x11_split=$2
# shellcheck source=setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
start_through_wrapper vellum x11_split
W=800
H=600

if ! command -v Xwayland >/dev/null; then
	skip "X11 changes and the merge window" "Xwayland is not installed"
	tap_finish
	exit
fi

# The pixel at X,Y of the panel vellum left behind.
panel_at() {
	od -An -tu1 -j $((3 + ${#W} + 1 + ${#H} + 1 + 4 + $2 * W + $1)) -N1 "$VELLUM_MEMORY_PANEL" |
		tr -d ' '
}

cat >"$work/split_lib.sh" <<'LIB'
# box_updates: the updates within the box the halves fill (50,50 100x40),
# one line each: its y, its height and when it was submitted (ns)
box_updates() {
	grep '^update' "$VELLUM_MEMORY_TRACE" 2>/dev/null | awk '{
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["x"] >= 50 && v["y"] >= 50 && v["x"] + v["width"] <= 150 &&
			v["y"] + v["height"] <= 90) print v["y"], v["height"], v["ns"]
	}'
}
split_updates() { box_updates | wc -l; }
split_updates_at_least() { [ "$(split_updates)" -ge "$1" ]; }
LIB
# shellcheck source=/dev/null
source "$work/split_lib.sh"

# x11_split.sh WORK X11_SPLIT GAP_MS N: both halves drawn and N updates of
# them on the panel (however long Xwayland takes), then a second for any more
cat >"$work/x11_split.sh" <<'SCRIPT'
source "$VELLUM_TEST_WAIT_FOR"
source "$1/split_lib.sh"
: >"$1/split"
"$2" "$3" >"$1/split" &
wait_for grep -q '^split drawn' "$1/split"
wait_for split_updates_at_least "$4"
sleep 1
SCRIPT

# run_split CONFIG GAP_MS N: x11_split under vellum with CONFIG (a [refresh] or
# [app:x11_split] section), until N updates of the box
run_split() {
	printf '%b' "$1" >"$work/split.conf"
	rm -f "$VELLUM_MEMORY_TRACE" "$VELLUM_MEMORY_PANEL"
	out=$(timeout 300 "$vellum" -c "$work/split.conf" -d memory:${W}x${H} -- \
		bash "$work/x11_split.sh" "$work" "$x11_split" "$2" "$3" 2>&1)
	status=$?
	grep '^# timed out' <<<"$out"
	drawn_ns=$(value "$(grep '^split drawn' "$work/split")" ns)
}

# ms_after_drawn N: how long after the X server had both halves the Nth
# update of the box was submitted, in ms (negative: before)
ms_after_drawn() {
	local ns
	ns=$(box_updates | sed -n "${1}p" | cut -d' ' -f3)
	echo $(((${ns:-0} - ${drawn_ns:-0}) / 1000000))
}

both_halves_shown() {
	[ "$(panel_at 60 60)" = 0 ] && [ "$(panel_at 140 85)" = 0 ] && [ "$(panel_at 160 60)" = 255 ]
}

# the halves 300 ms apart (a loaded machine's Xwayland keeps them apart, as
# it does the few ms of a real one), each its own commit
run_split '[refresh]\nx11-merge-window = 0\n' 300 2
expect "x11-merge-window = 0: an X change in two requests is two updates ($(split_updates))" \
	[ "$status" = 0 -a "$(split_updates)" = 2 ]

# Xwayland commits the second half once it has the frame done: the change
# is complete once it committed nothing after the next one. On the panel
# well before the window is over, generously: 2 s before this.
run_split '[refresh]\nx11-merge-window = 2s\n' 0 1
after=$(ms_after_drawn 1)
[ "$status" = 0 -a "$(split_updates)" = 1 ] && both_halves_shown
verdict "x11-merge-window = 2s: one update ($(split_updates)), both halves on the panel"
expect "... ${after} ms after X had them, well within the window" \
	[ "$status" = 0 -a -n "$drawn_ns" -a "$after" -lt 1000 ]

# halves a second apart are two changes: the first does not wait 2 s for
# the second, which Xwayland did not commit after its frame done
run_split '[refresh]\nx11-merge-window = 2s\n' 1000 2
expect "halves 1 s apart: two updates ($(split_updates))" \
	[ "$status" = 0 -a "$(split_updates)" = 2 ]
expect "... the first on the panel before the second half was drawn ($(ms_after_drawn 1) ms)" \
	[ "$status" = 0 -a -n "$drawn_ns" -a "$(ms_after_drawn 1)" -lt 0 ]

# an application's own merge window is for pieces further apart than frames
run_split '[app:x11_split]\nmerge-window = 2s\n' 300 1
expect "[app:x11_split] merge-window = 2s, halves 300 ms apart: one update ($(split_updates))" \
	[ "$status" = 0 -a "$(split_updates)" = 1 ]

tap_finish
