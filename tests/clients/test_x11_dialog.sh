#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An X11 dialog under vellum on the memory panel is centred on its main
# window whatever order X tells the window manager it is a dialog in:
# WM_TRANSIENT_FOR, _NET_WM_WINDOW_TYPE_DIALOG or a fixed size, before the
# dialog is mapped, in the request after, or once vellum has placed it as a
# main window; and stays above its main window when that is mapped after it
# (x11_dialog). X has it there, and a screenshot shows it there. Each case
# also meets, now and then, Xwayland drawing the window before vellum knows
# which X window it is (a dialog left at 0,0, never shown, before that was
# handled). Prints TAP.
#
#   test_x11_dialog.sh VELLUM X11_DIALOG
set -u

vellum=$1
x11_dialog=$2
# shellcheck source=setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
start_through_wrapper vellum x11_dialog
W=800
H=600

if ! command -v Xwayland >/dev/null; then
	skip "X11 dialogs" "Xwayland is not installed"
	tap_finish
	exit
fi

# shot_at FILE X Y: the red level of pixel X,Y of grim's PPM of the panel
shot_at() {
	od -An -tu1 -j $(($(head -n 3 "$1" | wc -c) + ($3 * W + $2) * 3)) -N1 "$1" | tr -d ' '
}

# dialog_drawn FILE: the screenshot shows the white dialog at 300,250 200x100
# on the black main window
dialog_drawn() {
	[ -s "$1" ] &&
		[ "$(shot_at "$1" 300 250)" = 255 ] && [ "$(shot_at "$1" 499 349)" = 255 ] &&
		[ "$(shot_at "$1" 299 250)" = 0 ] && [ "$(shot_at "$1" 300 249)" = 0 ] &&
		[ "$(shot_at "$1" 500 349)" = 0 ] && [ "$(shot_at "$1" 499 350)" = 0 ] &&
		[ "$(shot_at "$1" 10 10)" = 0 ]
}

# dialog.sh WORK X11_DIALOG ORDER: the screenshot and what X said once the
# dialog is centred (or 20 s after the main window was placed, if it never
# is), and a moment later for any move after that
cat >"$work/dialog.sh" <<'SCRIPT'
source "$VELLUM_TEST_WAIT_FOR"
centred() { grep -qx 'dialog at 300,250 200x100' "$1/x11"; }
: >"$1/x11"
"$2" "$3" >"$1/x11" &
wait_for grep -qx 'main at 0,0 800x600' "$1/x11"
for _ in $(seq 200); do
	centred "$1" && break
	sleep 0.1
done
sleep 0.5
grim -t ppm "$1/x11.ppm"
cp "$1/x11" "$1/x11.seen"
SCRIPT

for order in transient transient-at-map transient-late type type-late hints-late parent-late; do
	rm -f "$work/x11.seen" "$work/x11.ppm"
	out=$(timeout 120 "$vellum" -d memory:${W}x${H} -- \
		bash "$work/dialog.sh" "$work" "$x11_dialog" "$order" 2>&1)
	grep '^# timed out' <<<"$out"
	last_dialog=$(grep '^dialog at' "$work/x11.seen" 2>/dev/null | tail -n 1)
	last_main=$(grep '^main at' "$work/x11.seen" 2>/dev/null | tail -n 1)
	expect "$order: X has the dialog centred at its own size ($last_dialog)" \
		[ "$last_dialog" = "dialog at 300,250 200x100" ]
	[ "$last_dialog" = "dialog at 300,250 200x100" ] || sed 's/^/# /' "$work/x11.seen"
	expect "... and the main window filling the panel ($last_main)" \
		[ "$last_main" = "main at 0,0 ${W}x$H" ]
	expect "... the dialog is drawn there, above the main window" dialog_drawn "$work/x11.ppm"
done

tap_finish
