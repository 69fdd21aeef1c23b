#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The example clients (examples/): their command lines; under weston, which
# has no epaper-refresh-v1, a clear message and status 1; under vellum on the
# memory panel, the updates their modes and full refreshes ask for
# (VELLUM_MEMORY_TRACE; vellum's own flashes are switched off). Prints TAP.
#
#   test_examples.sh VELLUM EPAPER_CLOCK EPAPER_READER EPAPER_PAINT VP_STROKER
set -u

vellum=$1
clock=$2
reader=$3
paint=$4
stroker=$5
work=$(mktemp -d)
weston_pid=
cleanup() {
	[ -z "$weston_pid" ] || kill "$weston_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
export XDG_RUNTIME_DIR=$work/run
mkdir -m 700 "$XDG_RUNTIME_DIR"
unset WAYLAND_DISPLAY DISPLAY

# shellcheck source=../tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

# run CLIENT ARGS...: $status and $out (stdout and stderr) of the client
run() {
	out=$(timeout 60 "$@" 2>&1)
	status=$?
}

# --- command lines
for client in "$clock" "$reader" "$paint"; do
	name=$(basename "$client")
	run "$client" --help
	[ "$status" = 0 ] &&
		grep -q "^Usage: $name " <<<"$out"
	verdict "$name --help: status 0 and its usage"
	run "$client" --no-such-option
	expect "$name with an unknown option: status 2" [ "$status" = 2 ]
done
run "$clock" --seconds 0
[ "$status" = 2 ] && grep -q -- "--seconds takes a whole number" <<<"$out"
verdict "epaper-clock --seconds 0: status 2, saying what it takes"
run "$clock" --time 25:00:00
[ "$status" = 2 ] && grep -q -- "--time takes HH:MM:SS" <<<"$out"
verdict "epaper-clock --time 25:00:00: status 2, saying what it takes"
run "$paint" --idle 1x
expect "epaper-paint --idle 1x: status 2" [ "$status" = 2 ]
run "$reader" "$work/missing.txt"
[ "$status" = 1 ] && grep -q "cannot open $work/missing.txt" <<<"$out"
verdict "epaper-reader with a missing file: status 1, naming it"
run "$reader" a b
expect "epaper-reader with two files: status 2" [ "$status" = 2 ]

# --- a compositor without epaper-refresh-v1
if command -v weston >/dev/null; then
	weston --backend=headless --socket=weston-test --idle-time=0 >"$work/weston.log" 2>&1 &
	weston_pid=$!
	for _ in $(seq 100); do
		[ -S "$XDG_RUNTIME_DIR/weston-test" ] && break
		sleep 0.1
	done
	for client in "$clock" "$reader" "$paint"; do
		name=$(basename "$client")
		WAYLAND_DISPLAY=weston-test run "$client"
		expect "$name under weston: status 1" [ "$status" = 1 ]
		expect "... saying the compositor lacks epaper-refresh-v1" \
			grep -q "^$name: the compositor does not support epaper-refresh-v1" <<<"$out"
	done
else
	echo "# weston is not installed: the cases without epaper-refresh-v1 are skipped"
fi

# --- under vellum, on the memory panel
W=640
H=480
export VELLUM_MEMORY_TRACE=$work/trace
printf '[refresh]\nfull-refresh-every = 0\nidle-cleanup = off\n' >"$work/vellum.conf"
# run_vellum CLIENT ARGS...: the client under vellum on a fresh panel
run_vellum() {
	rm -f "$VELLUM_MEMORY_TRACE"
	run "$vellum" -c "$work/vellum.conf" -d memory:${W}x${H} -- "$@"
}
# The updates after the window's first frame, one per line: waveform id,
# flashing (full) or not, and whether they cover the whole window.
later_updates() {
	grep '^update' "$VELLUM_MEMORY_TRACE" | tail -n +2 |
		sed -E 's/.*width=([0-9]+) height=([0-9]+) waveform=([0-9]+) full=([0-9]).*/\3 \4 \1x\2/' |
		sed "s/ ${W}x${H}\$/ window/; s/ [0-9]*x[0-9]*\$/ part/"
}

# epaper-clock: seven ticks across a minute: A2 (4) ticks, one flashing GC16
# (2) refresh of the window at the new minute, between them
run_vellum "$clock" --verbose --time 12:34:56 --seconds 7
expect "epaper-clock --seconds 7 under vellum: status 0" [ "$status" = 0 ]
expect "... the panel showed its last tick" grep -q "^shown 12:35:03 " <<<"$out"
updates=$(later_updates | tr '\n' ,)
echo "# epaper-clock's updates after its first frame: $updates"
expect "... its ticks are A2 updates of part of the window, the new minute one flash of all of it" \
	grep -Eq '^(4 0 part,)+2 1 window,(4 0 part,)+$' <<<"$updates"

# epaper-reader: two page turns by itself, each a GC16 or GL16 (5) update
run_vellum "$reader" --verbose --auto --turns 2
expect "epaper-reader --auto --turns 2 under vellum: status 0" [ "$status" = 0 ]
expect "... the panel showed page 3" grep -q "^turn 3 shown waveform=GC16 " <<<"$out"
updates=$(later_updates | tr '\n' ,)
echo "# epaper-reader's updates after its first page: $updates"
expect "... each turn a quality update" grep -Eq '^([25] [01] [a-z]+,){2,}$' <<<"$updates"

# epaper-paint drawn in with a pointer a client drives (virtual pointer):
# two strokes, 20 motions each, on rows 20% and 25% down
export VELLUM_MEMORY_PANEL=$work/panel.pgm
cat >"$work/paint.sh" <<'SCRIPT'
"$1" &
"$2" -n 40 -i 20 -w 1500 >"$3/motions"
sleep 1
kill $!
SCRIPT
run_vellum bash "$work/paint.sh" "$paint" "$stroker" "$work"
# panel_at X Y: the pixel at X,Y of the panel vellum left behind
panel_at() {
	od -An -tu1 -j $((3 + ${#W} + 1 + ${#H} + 1 + 4 + $2 * W + $1)) -N1 "$VELLUM_MEMORY_PANEL" |
		tr -d ' '
}
[ "$(grep -c '^motion ' "$work/motions")" = 40 ] &&
	[ "$(panel_at $((W / 2)) $((H / 5)))" -lt 128 ] &&
	[ "$(panel_at $((W / 2)) $((H / 4)))" -lt 128 ]
verdict "a virtual pointer draws in epaper-paint: 40 motions, ink on both rows"
expect "... and nothing between them" [ "$(panel_at $((W / 2)) $((H * 9 / 40)))" -gt 128 ]

tap_finish
