#!/usr/bin/env bash
# The example clients (examples/): their command lines, and under weston,
# which has no epaper-refresh-v1, a clear message and status 1. Prints TAP.
#
#   test_examples.sh VELLUM EPAPER_CLOCK EPAPER_READER EPAPER_PAINT
set -u

vellum=$1
clock=$2
reader=$3
paint=$4
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
	expect "$name --help: status 0 and its usage" [ "$status" = 0 ] &&
		grep -q "^Usage: $name " <<<"$out"
	run "$client" --no-such-option
	expect "$name with an unknown option: status 2" [ "$status" = 2 ]
done
run "$clock" --seconds 0
expect "epaper-clock --seconds 0: status 2, saying what it takes" \
	[ "$status" = 2 ] && grep -q -- "--seconds takes a whole number" <<<"$out"
run "$clock" --time 25:00:00
expect "epaper-clock --time 25:00:00: status 2, saying what it takes" \
	[ "$status" = 2 ] && grep -q -- "--time takes HH:MM:SS" <<<"$out"
run "$paint" --idle 1x
expect "epaper-paint --idle 1x: status 2" [ "$status" = 2 ]
run "$reader" "$work/missing.txt"
expect "epaper-reader with a missing file: status 1, naming it" \
	[ "$status" = 1 ] && grep -q "cannot open $work/missing.txt" <<<"$out"
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

tap_finish
