#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The emulated IT8951 board on the VM's USB stack (usb-board), driven with
# Debian's sg3-utils through usb-storage and sg as a real board is: it
# appears as /dev/sgN and identifies as the board, answers GET_SYS with its
# size, shows a loaded and displayed black square, counts it in the panel
# model's stats and the bytes on the bus, flashes the panel keeping its
# picture, rejects bad commands with CHECK CONDITION and answers on, reports no medium to TEST UNIT READY,
# goes away when unplugged, and leaves no gadget behind. Run as root in the
# VM (tools/vmtest), built as build/tests/it8951/test_it8951_usb beside
# it8951-gadget. Prints TAP.
set -uo pipefail

build_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# the test runs in the repository (tools/vm-guest-run)
repo_dir=$PWD
[ -x "$repo_dir/tests/it8951/usb-board" ] || repo_dir=$(cd "$build_dir/../../.." && pwd)
# shellcheck source=tests/tap.sh
source "$repo_dir/tests/tap.sh"
usb_board=$repo_dir/tests/it8951/usb-board
export IT8951_GADGET=$build_dir/it8951-gadget

width=1448
height=1072
scratch=$(mktemp -d /tmp/it8951-usb.XXXXXX)
state=$scratch/board

cleanup() {
	"$usb_board" stop "$state" >/dev/null 2>&1 || true
	rm -rf "$scratch"
}
trap cleanup EXIT

for tool in sg_inq sg_raw sg_turs; do
	command -v "$tool" >/dev/null || {
		not_ok "sg3-utils" "$tool is missing: sg3-utils is not installed"
		tap_finish
		exit 1
	}
done

# be32 VALUE...: VALUE as 32-bit big-endian words, the controller's numbers
be32() {
	local value
	for value in "$@"; do
		# shellcheck disable=SC2059
		printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((value >> 24 & 255)) \
			$((value >> 16 & 255)) $((value >> 8 & 255)) $((value & 255)))"
	done
}

# word FILE N: the Nth 32-bit big-endian word of FILE
word() {
	local octets
	read -r -a octets < <(od -An -v -tu1 -j $(($2 * 4)) -N4 "$1")
	echo $((octets[0] << 24 | octets[1] << 16 | octets[2] << 8 | octets[3]))
}

# same FILE FILE: the same bytes (coreutils only: the arm64 guest has no cmp)
same() {
	[ "$(sha256sum <"$1")" = "$(sha256sum <"$2")" ]
}

board() {
	"$usb_board" send "$state" "$@"
}

# stat_of FILE KEY: KEY's value in FILE, an answer of the board's stats command
stat_of() {
	sed -n "s/^$2: //p" "$1"
}

# delta BEFORE AFTER KEY: how much KEY grew from one stats answer to the next
delta() {
	echo $(($(stat_of "$2" "$3") - $(stat_of "$1" "$3")))
}

# stats_have FILE: the counters the benchmark reads are there, numbers each
stats_have() {
	local key
	for key in updates_completed pixels_driven flashes usb_bytes; do
		[[ $(stat_of "$1" "$key") =~ ^[0-9]+$ ]] || return 1
	done
}

# The vendor command's CDB: opcode 0xfe, the command in byte 6.
vendor_cdb() {
	echo "fe 00 00 00 00 00 $1 00 00 00 00 00 00 00 00 00"
}
get_sys_cdb="fe 00 38 39 35 31 80 00 01 00 02 00 00 00 00 00"

# sysinfo FILE: GET_SYS's 112 bytes into FILE
sysinfo() {
	# shellcheck disable=SC2086
	sg_raw -r 112 -o "$1" "$sg" $get_sys_cdb >"$scratch/sg_raw.out" 2>&1
}

# send_data NAME CDB_BYTE FILE: a vendor command with FILE as its data out;
# its output in $scratch/NAME.out
send_data() {
	local size
	size=$(stat -c %s "$3")
	local data=(-s "$size" -i "$3")
	((size)) || data=()
	# shellcheck disable=SC2046
	sg_raw "${data[@]}" "$sg" $(vendor_cdb "$2") >"$scratch/$1.out" 2>&1
}

# rejected NAME CDB_BYTE FILE: the command gets CHECK CONDITION, Illegal Request
rejected() {
	local status=0
	send_data "$@" || status=$?
	if [ "$status" -ne 0 ] && grep -qi "illegal request" "$scratch/$1.out"; then
		ok "$1 rejected: Illegal Request"
	else
		not_ok "$1 rejected: Illegal Request" "sg_raw exited $status:" \
			"$(cat "$scratch/$1.out")"
	fi
}

if ! sg=$("$usb_board" start --width "$width" --height "$height" --vcom 1530 --time-scale 10 \
	"$state" 2>"$scratch/start.err"); then
	not_ok "board appears as /dev/sgN" "$(cat "$scratch/start.err")"
	tap_finish
	exit 1
fi
if [[ $sg =~ ^/dev/sg[0-9]+$ ]] && [ -c "$sg" ]; then
	ok "board appears as $sg"
else
	not_ok "board appears as /dev/sgN" "usb-board start printed \"$sg\""
fi

sg_inq "$sg" >"$scratch/inq.out" 2>&1
if grep -q "Vendor identification: Generic" "$scratch/inq.out" &&
	grep -q "Product identification: Storage RamDisc" "$scratch/inq.out" &&
	grep -q "Product revision level: 1.00" "$scratch/inq.out"; then
	ok "sg_inq: Generic, Storage RamDisc, 1.00"
else
	not_ok "sg_inq: Generic, Storage RamDisc, 1.00" "$(cat "$scratch/inq.out")"
fi

if sysinfo "$scratch/sys.bin" && [ "$(stat -c %s "$scratch/sys.bin")" -eq 112 ]; then
	got_width=$(word "$scratch/sys.bin" 4)
	got_height=$(word "$scratch/sys.bin" 5)
	if [ "$got_width" -eq "$width" ] && [ "$got_height" -eq "$height" ]; then
		ok "GET_SYS: ${width}x${height}"
	else
		not_ok "GET_SYS: ${width}x${height}" "it answers ${got_width}x${got_height}"
	fi
else
	not_ok "GET_SYS: ${width}x${height}" "$(cat "$scratch/sg_raw.out")"
fi
# the image buffer's address, as the host learns it
image_buffer=$(word "$scratch/sys.bin" 7)

board stats >"$scratch/stats0.txt"
# the host's INQUIRY and GET_SYS went over the bus already
if stats_have "$scratch/stats0.txt" && [ "$(stat_of "$scratch/stats0.txt" usb_bytes)" -gt 112 ]; then
	ok "stats: the model's counters and the bytes on the bus"
else
	not_ok "stats: the model's counters and the bytes on the bus" "$(cat "$scratch/stats0.txt")"
fi

# A black square, loaded and displayed with GC16 (mode 2).
x=200 y=120 side=96
{
	be32 "$image_buffer" "$x" "$y" "$side" "$side"
	head -c $((side * side)) /dev/zero
} >"$scratch/load.bin"
be32 "$image_buffer" 2 "$x" "$y" "$side" "$side" 0 >"$scratch/display.bin"
if send_data load a2 "$scratch/load.bin" && send_data display 94 "$scratch/display.bin"; then
	ok "LOAD_AREA and DISPLAY_AREA of a black square"
else
	not_ok "LOAD_AREA and DISPLAY_AREA of a black square" "$(cat "$scratch"/{load,display}.out)"
fi
bytes=$(board bytes)
[ "$bytes" = $((20 + side * side)) ]
verdict "the board counts the bytes loaded ($bytes)"
[ "$(board vcom)" = 1530 ]
verdict "the board holds the VCOM it was given"

# What the panel must show: white, the square black.
{
	printf 'P5\n%d %d\n255\n' "$width" "$height"
	white_row=$(printf '%*s' "$width" '' | tr ' ' w)
	for ((row = 0; row < height; row++)); do
		if ((row >= y && row < y + side)); then
			printf '%s' "${white_row:0:x}"
			printf '%*s' "$side" '' | tr ' ' b
			printf '%s' "${white_row:x+side}"
		else
			printf '%s' "$white_row"
		fi
	done | tr wb '\377\000'
} >"$scratch/expected.pgm"
if board settle 30 >/dev/null && board panel >"$scratch/panel.pgm" &&
	same "$scratch/expected.pgm" "$scratch/panel.pgm"; then
	ok "the panel shows the black square, white elsewhere"
else
	not_ok "the panel shows the black square, white elsewhere" \
		"the first differing bytes (offset, expected, got; octal):" \
		"$(cmp -l "$scratch/expected.pgm" "$scratch/panel.pgm" 2>&1 | head -n 5)"
fi
board updates >"$scratch/updates.txt"
if grep -q "left=$x top=$y width=$side height=$side waveform=GC16" "$scratch/updates.txt"; then
	ok "the trace has the display"
else
	not_ok "the trace has the display" "$(cat "$scratch/updates.txt")"
fi

# The load and the display in the stats: one update more, its pixels
# driven, a flash (GC16), and on the bus at least their data, CBWs and CSWs.
board stats >"$scratch/stats1.txt"
if stats_have "$scratch/stats1.txt" &&
	[ "$(delta "$scratch/stats0.txt" "$scratch/stats1.txt" updates_completed)" -eq 1 ] &&
	[ "$(delta "$scratch/stats0.txt" "$scratch/stats1.txt" pixels_driven)" -eq $((side * side)) ] &&
	[ "$(delta "$scratch/stats0.txt" "$scratch/stats1.txt" flashes)" -eq 1 ] &&
	[ "$(delta "$scratch/stats0.txt" "$scratch/stats1.txt" usb_bytes)" -ge \
		$((20 + side * side + 28 + 2 * (31 + 13))) ]; then
	ok "stats count the load and the display"
else
	not_ok "stats count the load and the display" "before:" "$(cat "$scratch/stats0.txt")" \
		"after:" "$(cat "$scratch/stats1.txt")"
fi

# flash: a GC16 of the whole panel with what the image buffer holds, the
# picture the same after it
if [ "$(board flash)" = ok ] && board panel >"$scratch/flashed.pgm" &&
	same "$scratch/expected.pgm" "$scratch/flashed.pgm"; then
	ok "flash keeps the panel's picture"
else
	not_ok "flash keeps the panel's picture" "the first differing bytes:" \
		"$(cmp -l "$scratch/expected.pgm" "$scratch/flashed.pgm" 2>&1 | head -n 5)"
fi
board stats >"$scratch/stats2.txt"
if [ "$(delta "$scratch/stats1.txt" "$scratch/stats2.txt" flashes)" -eq 1 ] &&
	[ "$(delta "$scratch/stats1.txt" "$scratch/stats2.txt" updates_completed)" -eq 1 ] &&
	[ "$(delta "$scratch/stats1.txt" "$scratch/stats2.txt" pixels_driven)" -eq $((width * height)) ]; then
	ok "flash counts one flash of the whole panel"
else
	not_ok "flash counts one flash of the whole panel" "before:" "$(cat "$scratch/stats1.txt")" \
		"after:" "$(cat "$scratch/stats2.txt")"
fi

# stats-reset: the counters zeroed; on the bus, at most what the host
# polled since
if [ "$(board stats-reset)" = ok ] && board stats >"$scratch/stats3.txt" &&
	stats_have "$scratch/stats3.txt" && [ "$(stat_of "$scratch/stats3.txt" updates_completed)" -eq 0 ] &&
	[ "$(stat_of "$scratch/stats3.txt" pixels_driven)" -eq 0 ] &&
	[ "$(stat_of "$scratch/stats3.txt" flashes)" -eq 0 ] &&
	[ "$(stat_of "$scratch/stats3.txt" usb_bytes)" -lt 1024 ]; then
	ok "stats-reset zeroes the counters and the bytes on the bus"
else
	not_ok "stats-reset zeroes the counters and the bytes on the bus" "$(cat "$scratch/stats3.txt")"
fi

# Bad input: each is refused, and the board answers on.
: >"$scratch/empty.bin"
rejected "unknown vendor command 0xff" ff "$scratch/empty.bin"
{
	be32 "$image_buffer" $((width - 10)) "$y" 64 64
	head -c $((64 * 64)) /dev/zero
} >"$scratch/outside.bin"
rejected "LOAD_AREA outside the panel" a2 "$scratch/outside.bin"
be32 "$image_buffer" 2 $((width - 10)) "$y" 64 64 0 >"$scratch/display-outside.bin"
rejected "DISPLAY_AREA outside the panel" 94 "$scratch/display-outside.bin"
{
	be32 "$image_buffer" 0 0 256 256
	head -c $((256 * 256)) /dev/zero
} >"$scratch/big.bin"
rejected "LOAD_AREA of 64 KB (over 60 KB)" a2 "$scratch/big.bin"
if sysinfo "$scratch/sys-after.bin" && same "$scratch/sys.bin" "$scratch/sys-after.bin"; then
	ok "the board answers GET_SYS after the bad commands"
else
	not_ok "the board answers GET_SYS after the bad commands" "$(cat "$scratch/sg_raw.out")"
fi
[ "$(board bytes)" = "$bytes" ]
verdict "the rejected loads loaded nothing"

# --low: sg3-utils 1.48's sg_turs sends no CDB without it ("bad
# pass-through setup", exit 0: Debian bug 1118528, fixed upstream in 1.49).
turs_status=0
sg_turs --low "$sg" >"$scratch/turs.out" 2>&1 || turs_status=$?
if [ "$turs_status" -ne 0 ] && grep -Eqi "not ready|medium not present" "$scratch/turs.out"; then
	ok "TEST UNIT READY: not ready, no medium"
else
	not_ok "TEST UNIT READY: not ready, no medium" "sg_turs exited $turs_status:" \
		"$(cat "$scratch/turs.out")"
fi

"$usb_board" unplug "$state" >"$scratch/unplug.out" 2>&1
gone() { [ ! -e "$sg" ] && [ ! -e "/sys/class/scsi_generic/${sg#/dev/}" ]; }
for ((i = 0; i < 100; i++)); do
	gone && break
	sleep 0.1
done
if gone; then
	ok "unplugged: $sg goes away"
else
	not_ok "unplugged: $sg goes away" "$(cat "$scratch/unplug.out")"
fi

gadget_pid=$(cat "$state/gadget.pid" 2>/dev/null)
if "$usb_board" stop "$state" >"$scratch/stop.out" 2>&1; then
	ok "usb-board stop"
else
	not_ok "usb-board stop" "$(cat "$scratch/stop.out")"
fi
[ ! -e /sys/kernel/config/usb_gadget/it8951 ] && ! kill -0 "$gadget_pid" 2>/dev/null &&
	! grep -q " $state/ffs " /proc/mounts
verdict "no gadget, gadget program or FunctionFS mount left"

# A second board: the control socket's trace, a stalled controller, and a
# cable pulled in the middle of a load.
if ! sg=$("$usb_board" start --width "$width" --height "$height" --time-scale 10 "$state" \
	2>"$scratch/start.err"); then
	not_ok "the board appears again" "$(cat "$scratch/start.err")"
	tap_finish
	exit 1
fi
ok "the board appears again as $sg"
sysinfo "$scratch/sys.bin"
image_buffer=$(word "$scratch/sys.bin" 7)
# display NAME X: a DU (mode 1) display of a 64x64 square at X
display() {
	be32 "$image_buffer" 1 "$2" 0 64 64 0 >"$scratch/display.bin"
	send_data "$1" 94 "$scratch/display.bin"
}
display first 0 && board settle 30 >/dev/null && board clear >/dev/null &&
	display second 100 && board settle 30 >/dev/null && board updates >"$scratch/updates.txt"
if [ "$(wc -l <"$scratch/updates.txt")" -eq 1 ] && grep -q "left=100 top=0" "$scratch/updates.txt"; then
	ok "clear: updates has only the display after it"
else
	not_ok "clear: updates has only the display after it" "$(cat "$scratch/updates.txt")"
fi

# LUTAFSR: the engines still driving the panel
lutafsr() {
	sg_raw -r 4 -o "$scratch/lutafsr.bin" "$sg" fe 00 18 00 12 24 83 00 00 00 00 00 00 00 00 00 \
		>/dev/null 2>&1 && word "$scratch/lutafsr.bin" 0
}
board stall on >/dev/null && display stalled 200 && sleep 1
busy=$(lutafsr)
board stall off >/dev/null
idle=$(lutafsr)
if [ "${busy:-0}" -ne 0 ] && [ "${idle:-1}" -eq 0 ]; then
	ok "stall: the controller stays busy until stall off"
else
	not_ok "stall: the controller stays busy until stall off" "LUTAFSR ${busy:-?} stalled," \
		"${idle:-?} after"
fi

gadget_pid=$(cat "$state/gadget.pid")
board disconnect >/dev/null
{
	be32 "$image_buffer" 0 0 200 200
	head -c $((200 * 200)) /dev/zero
} >"$scratch/load.bin"
load_status=0
send_data cut a2 "$scratch/load.bin" || load_status=$?
for ((i = 0; i < 100; i++)); do
	gone && ! kill -0 "$gadget_pid" 2>/dev/null && break
	sleep 0.1
done
if [ "$load_status" -ne 0 ] && gone && ! kill -0 "$gadget_pid" 2>/dev/null; then
	ok "disconnect: the load fails, $sg goes away, the gadget exits"
else
	not_ok "disconnect: the load fails, $sg goes away, the gadget exits" \
		"sg_raw exited $load_status: $(cat "$scratch/cut.out")" "$(tail -n 3 "$state/gadget.log")"
fi
if "$usb_board" stop "$state" >"$scratch/stop.out" 2>&1 && [ ! -e /sys/kernel/config/usb_gadget/it8951 ]; then
	ok "usb-board stop after the disconnect"
else
	not_ok "usb-board stop after the disconnect" "$(cat "$scratch/stop.out")"
fi

tap_finish
