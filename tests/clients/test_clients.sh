#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Real clients under vellum on the in-process memory panel, without a VM:
# wayland-info, weston's demo clients, foot with text typed by wtype, grim,
# xclock through Xwayland, and vellum's own exit statuses. The memory device
# traces every update (VELLUM_MEMORY_TRACE) and writes what its panel shows
# (VELLUM_MEMORY_PANEL) when vellum ends. Prints TAP.
#
#   test_clients.sh VELLUM PROBE_CLIENT [LAYER_PROBE]
#
# Without LAYER_PROBE vellum was built without layer-shell: its cases are
# skipped.
set -u

vellum=$1
probe=$2
layer_probe=${3:-}
no_layer_shell="vellum is built without layer-shell (-Dlayer-shell)"
# shellcheck source=setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
start_through_wrapper vellum probe layer_probe
W=800
H=600

# run_vellum [VELLUM OPTIONS] -- APP...: runs vellum on a fresh panel;
# $status is its exit status, $out its output.
run_vellum() {
	rm -f "$VELLUM_MEMORY_TRACE" "$VELLUM_MEMORY_PANEL"
	out=$(timeout 120 "$vellum" -d memory:${W}x${H} "$@" 2>&1)
	status=$?
	# what a script gave up waiting for, as a TAP comment
	grep '^# timed out' <<<"$out"
}

updates() {
	local n
	n=$(grep -c '^update' "$VELLUM_MEMORY_TRACE" 2>/dev/null)
	echo "${n:-0}"
}
# field N NAME: the NAME= value of the Nth update (1-based)
field() { sed -n "/^update/p" "$VELLUM_MEMORY_TRACE" | sed -n "${1}p" | grep -o "$2=[0-9]*" | cut -d= -f2; }

# The pixel at X,Y of the panel vellum left behind.
panel_at() {
	od -An -tu1 -j $((3 + ${#W} + 1 + ${#H} + 1 + 4 + $2 * W + $1)) -N1 "$VELLUM_MEMORY_PANEL" |
		tr -d ' '
}

first_update_is_one_full_flash() {
	[ "$(field 1 x)" = 0 ] && [ "$(field 1 y)" = 0 ] && [ "$(field 1 width)" = $W ] &&
		[ "$(field 1 height)" = $H ] && [ "$(field 1 full)" = 1 ] &&
		! sed -n '2,$p' "$VELLUM_MEMORY_TRACE" | grep -q "width=$W height=$H"
}

# The updates after the FROMth (but the last SKIP_LAST) are at most MAX_W x
# MAX_H and, but for FLASHES of them (ghost promotions, the idle cleanup), not
# flashing.
small_updates_after() {
	grep '^update' "$VELLUM_MEMORY_TRACE" | tail -n +$(($1 + 1)) | head -n -"${5:-0}" |
		awk -v max_w="$2" -v max_h="$3" -v flashes="$4" '
			{
				for (i = 2; i <= NF; i++) {
					split($i, kv, "=")
					v[kv[1]] = kv[2]
				}
				if (v["width"] > max_w || v["height"] > max_h)
					bad = 1
				flashed += v["full"]
				count++
			}
			END { exit !(count > 0 && !bad && flashed <= flashes) }'
}

# --- globals
run_vellum -- wayland-info
expect "wayland-info runs under vellum" [ "$status" = 0 ]
for global in wl_compositor wl_subcompositor wl_shm wl_seat wl_output wl_data_device_manager \
	xdg_wm_base zxdg_decoration_manager_v1 wp_viewporter wp_presentation \
	wp_content_type_manager_v1 zwlr_screencopy_manager_v1 zwp_virtual_keyboard_manager_v1 \
	zwp_idle_inhibit_manager_v1 zxdg_output_manager_v1 wp_single_pixel_buffer_manager_v1; do
	expect "global $global" grep -q "'$global'" <<<"$out"
done
if [ -n "$layer_probe" ]; then
	expect "global zwlr_layer_shell_v1" grep -q "'zwlr_layer_shell_v1'" <<<"$out"
else
	skip "global zwlr_layer_shell_v1" "$no_layer_shell"
fi

# a client sees a keyboard from the start, before any virtual keyboard
expect "the seat has a keyboard without any keyboard device" \
	grep -q "capabilities:.*keyboard" <<<"$out"

# --- exit statuses
run_vellum -- sh -c 'exit 7'
expect "the application's exit status is vellum's" [ "$status" = 7 ]
run_vellum -- sh -c 'kill -KILL $$'
expect "killed by signal 9: 137" [ "$status" = 137 ]
run_vellum -- /nonexistent/app
expect "an application that cannot run: 127" [ "$status" = 127 ]
expect "... with a message naming it" grep -q "cannot run /nonexistent/app" <<<"$out"
out=$(timeout 20 "$vellum" -d /dev/nonexistent -- true 2>&1)
status=$?
expect "a missing device fails at once with status 1" [ "$status" = 1 ]
expect "... and one line naming it" [ "$(grep -c 'vellum: .*/dev/nonexistent' <<<"$out")" = 1 ]
out=$(timeout 20 "$vellum" -d memory:${W}x${H} 2>&1)
status=$?
expect "no application: status 1" [ "$status" = 1 ]
out=$(timeout 20 "$vellum" -r 45 -- true 2>&1)
status=$?
expect "a bad rotation: status 1" [ "$status" = 1 ]

# --- the configuration file
printf '[panel]\nrotation = 45\n' >"$work/bad.conf"
printf '[refresh]\ndefault-mode = animation\n' >"$work/fast.conf"
out=$(timeout 20 "$vellum" -c "$work/bad.conf" -d memory:${W}x${H} -- touch "$work/started" 2>&1)
status=$?
expect "a bad config: status 1" [ "$status" = 1 ]
expect "... its error names FILE:LINE" grep -q "$work/bad.conf:2: " <<<"$out"
expect "... and nothing was started" [ ! -e "$work/started" ]
out=$(timeout 20 "$vellum" -c "$work/bad.conf" --validate 2>&1)
status=$?
[ "$status" = 1 ] && grep -q "bad.conf:2: " <<<"$out"
verdict "--validate of a bad file: status 1 and FILE:LINE"
out=$(timeout 20 "$vellum" -c "$work/fast.conf" --validate 2>&1)
expect "--validate of a good file: status 0" [ $? = 0 ]
out=$(timeout 20 "$vellum" -C -c "$work/missing.conf" 2>&1)
status=$?
[ "$status" = 1 ] && grep -q "missing.conf: " <<<"$out"
verdict "--validate of a missing file: status 1, naming it"

# XKB names are compiled when the file is read
printf '[input]\ncursor = hidden\nkeyboard-layout = nosuchlayout\n' >"$work/keyboard.conf"
out=$(timeout 20 "$vellum" -c "$work/keyboard.conf" --validate 2>&1)
status=$?
[ "$status" = 1 ] && grep -q "keyboard.conf:3: invalid keyboard-layout \"nosuchlayout\"" <<<"$out"
verdict "--validate of an unknown keyboard-layout: status 1, FILE:LINE naming it"
# touch-device: which devices there are is known only at run time
printf '[input]\ntouch-device = No Such Touchscreen\n' >"$work/touch.conf"
out=$(timeout 20 "$vellum" -c "$work/touch.conf" --validate 2>&1)
expect "--validate of a touch-device: status 0" [ $? = 0 ]
run_vellum -c "$work/touch.conf" -- true
expect "a touch-device no device has: vellum says so at the start" \
	grep -q 'no touchscreen or tablet is named "No Such Touchscreen" (input touch-device).* there are none' <<<"$out"

# SIGHUP: a bad file is reported and the config in use stays; a good one applies
cp "$work/bad.conf" "$work/live.conf"
printf '[refresh]\ndefault-mode = auto\n' >"$work/live.conf"
cat >"$work/reload.sh" <<'SCRIPT'
printf '[refresh]\nfull-refresh-every = -3\n' >"$1/live.conf"
kill -HUP $PPID
sleep 1
cp "$1/fast.conf" "$1/live.conf"
kill -HUP $PPID
sleep 1
timeout 3 weston-simple-damage
SCRIPT
run_vellum -c "$work/live.conf" -- bash "$work/reload.sh" "$work"
expect "SIGHUP with a bad file: vellum goes on" [ "$status" = 124 ]
expect "... and says what is wrong" grep -q "live.conf:2: .*configuration in use stays" <<<"$out"
expect "SIGHUP with a good file: animation is drawn with A2" grep -q 'waveform=4 ' "$VELLUM_MEMORY_TRACE"

# --- weston-simple-shm: an animation of the whole window
run_vellum -- timeout 3 weston-simple-shm
expect "weston-simple-shm ran until stopped" [ "$status" = 124 ]
expect "its first frame flashes the whole panel, once" first_update_is_one_full_flash
expect "its animation updates the panel" [ "$(updates)" -ge 4 ]

# --- weston-simple-damage: a ball moving, with the damage the client reports
run_vellum -- timeout 3 weston-simple-damage
expect "weston-simple-damage ran until stopped" [ "$status" = 124 ]
expect "its first frame flashes the whole panel, once" first_update_is_one_full_flash
expect "its frames update the panel" [ "$(updates)" -ge 3 ]
# the ball is 20 px; promotions flash the 64 px cells it crossed
expect "... in small rects: what the client damaged" small_updates_after 1 200 200 1000

# --- foot, with text typed by wtype through the virtual keyboard
cat >"$work/type.sh" <<'SCRIPT'
source "$VELLUM_TEST_WAIT_FOR"
foot --override=font=monospace:size=14 cat &
wait_for grep -q '^update' "$VELLUM_MEMORY_TRACE"
# foot's first frame has flashed in: what follows is the typing
sleep 3
before=$(grep -c '^update' "$VELLUM_MEMORY_TRACE")
echo "$before" >"$1/before"
wtype hello
wait_for lines_at_least $((before + 1)) '^update' "$VELLUM_MEMORY_TRACE"
sleep 2
kill $!
SCRIPT
run_vellum -- bash "$work/type.sh" "$work"
before=$(cat "$work/before" 2>/dev/null || echo 0)
expect "foot showed its window" [ "$before" -ge 1 ]
expect "typed keys reach the panel" [ "$(updates)" -gt "$before" ]
# the one flash allowed is the idle cleanup after the typing stopped
expect "... each keystroke a small update, without a flash" small_updates_after "$before" 200 130 1

# --- foot's blinking cursor at rest: once it blinks steadily, the panel
# keeps it inked and is sent nothing for it; a key still goes out at once.
# An application's section can have the blinks shown.
cat >"$work/blink.sh" <<'SCRIPT'
source "$VELLUM_TEST_WAIT_FOR"
foot --override=font=monospace:size=14 --override=cursor.blink=yes cat &
wait_for grep -q '^update' "$VELLUM_MEMORY_TRACE"
sleep 1
# two keys 11 s apart; the keyboard, without which foot does not blink,
# stays meanwhile. foot blinks every 500 ms: a few blinks teach the pace.
"$2" -n 2 -i 11000 >/dev/null &
sleep 5
grep -c '^update' "$VELLUM_MEMORY_TRACE" >"$1/rest-start"
sleep 5.5
grep -c '^update' "$VELLUM_MEMORY_TRACE" >"$1/rest-end"
sleep 2.5
kill %1 %2
SCRIPT
# blink_updates CONFIG: runs the script under CONFIG; sets rest (updates in 5.5 s at rest) and typed
blink_updates() {
	rm -f "$work/rest-start" "$work/rest-end"
	run_vellum -c "$1" -- bash "$work/blink.sh" "$work" "$(dirname "$probe")/vk_typist"
	rest=$(($(cat "$work/rest-end" 2>/dev/null || echo 999) - $(cat "$work/rest-start" 2>/dev/null || echo 0)))
	typed=$(($(updates) - $(cat "$work/rest-end" 2>/dev/null || echo 0)))
}
printf '[refresh]\n' >"$work/blink-held.conf"
printf '[app:foot]\nblinking = shown\n' >"$work/blink-shown.conf"
blink_updates "$work/blink-held.conf"
expect "a steadily blinking cursor costs no update at rest ($rest in 5.5 s)" [ "$rest" -eq 0 ]
expect "... and a key typed then reaches the panel ($typed updates)" [ "$typed" -ge 1 ]
blink_updates "$work/blink-shown.conf"
expect "with blinking = shown each blink is an update ($rest in 5.5 s)" [ "$rest" -ge 8 ]

# --- SIGTERM ends the application, then vellum; foot talks to the
# compositor on its way out, so vellum must serve it until it has gone
rm -f "$VELLUM_MEMORY_TRACE" "$VELLUM_MEMORY_PANEL"
"$vellum" -d memory:${W}x${H} -- foot --override=font=monospace:size=14 cat >"$work/term.out" 2>&1 &
vellum_pid=$!
wait_for lines_at_least 1 '^update' "$VELLUM_MEMORY_TRACE"
kill -TERM $vellum_pid
for _ in $(seq 200); do
	kill -0 $vellum_pid 2>/dev/null || break
	sleep 0.1
done
kill -KILL $vellum_pid 2>/dev/null
wait $vellum_pid
status=$?
[ "$status" != 137 ] && ! grep -q "Killed" "$work/term.out"
verdict "SIGTERM: foot ends by itself, not killed (status $status)"
expect "... and vellum leaves the panel it showed" [ -s "$VELLUM_MEMORY_PANEL" ]

# --- an on-screen keyboard (wvkbd, layer-shell) beside a window that follows its configures
KB=200
cat >"$work/keyboard.sh" <<'SCRIPT'
# keyboard.sh WORK PROBE HIDE: the probe's window, the keyboard over its
# bottom, and with HIDE=1 the keyboard gone again before the end
source "$VELLUM_TEST_WAIT_FOR"
: >"$1/sizes"
"$2" resize >"$1/sizes" &
wait_for lines_at_least 1 '^configure' "$1/sizes"
wvkbd-mobintl -H 200 -L 200 &
keyboard=$!
wait_for lines_at_least 2 '^configure' "$1/sizes"
# the keyboard's rows reached the panel
wait_for grep -qE '^update .* y=(4|5)[0-9][0-9] ' "$VELLUM_MEMORY_TRACE"
if [ "$3" = 1 ]; then
	kill $keyboard
	wait_for lines_at_least 3 '^configure' "$1/sizes"
	updates=$(grep -c '^update' "$VELLUM_MEMORY_TRACE")
	wait_for lines_at_least $((updates + 1)) '^update' "$VELLUM_MEMORY_TRACE"
fi
SCRIPT
# not_white_rows FROM TO: the pixels of rows FROM..TO-1 of the panel that are not white
not_white_rows() {
	od -An -v -tu1 -j $((3 + ${#W} + 1 + ${#H} + 1 + 4 + $1 * W)) -N $((($2 - $1) * W)) \
		"$VELLUM_MEMORY_PANEL" | tr -s ' ' '\n' | grep -v '^$' | grep -vc '^255$'
}
if [ -z "$layer_probe" ]; then
	skip "wvkbd beside a window, and when it exits" "$no_layer_shell"
elif command -v wvkbd-mobintl >/dev/null; then
	run_vellum -- bash "$work/keyboard.sh" "$work" "$probe" 0
	expect "wvkbd beside a window: the window is configured to the panel first" \
		[ "$(grep "^configure" "$work/sizes" | sed -n 1p)" = "configure ${W}x${H}" ]
	expect "... then shrinks by the keyboard's exclusive zone" \
		[ "$(grep "^configure" "$work/sizes" | sed -n 2p)" = "configure ${W}x$((H - KB))" ]
	expect "the keyboard is on the panel, at the bottom" \
		[ "$(not_white_rows $((H - KB)) $H)" -gt $((W * KB / 2)) ]
	expect "... and the window, white, above it" [ "$(not_white_rows 0 $((H - KB)))" = 0 ]
	run_vellum -- bash "$work/keyboard.sh" "$work" "$probe" 1
	expect "when wvkbd exits the window gets the full height back" \
		[ "$(grep "^configure" "$work/sizes" | sed -n 3p)" = "configure ${W}x${H}" ]
	expect "... and fills the panel again" [ "$(not_white_rows 0 $H)" = 0 ]
else
	echo "# wvkbd is not installed: the on-screen keyboard cases are skipped"
fi

# --- a layer surface that takes the keyboard, with a popup
BAR=80
cat >"$work/layer.sh" <<'SCRIPT'
# layer.sh WORK PROBE LAYER_PROBE STAY: the probe's window, then the bar
# for STAY seconds; the script ends once the bar is shown (STAY=30) or once
# the window has the keyboard and its height back (STAY=1)
source "$VELLUM_TEST_WAIT_FOR"
: >"$1/events"
"$2" resize >"$1/events" &
wait_for grep -q '^keyboard enter' "$1/events"
: >"$1/layer"
"$3" 80 "$4" >"$1/layer" &
wait_for grep -q '^layer shown' "$1/layer"
wait_for grep -q '^keyboard leave' "$1/events"
if [ "$4" = 1 ]; then
	wait_for lines_at_least 2 '^keyboard enter' "$1/events"
	wait_for lines_at_least 3 '^configure' "$1/events"
	updates=$(grep -c '^update' "$VELLUM_MEMORY_TRACE")
	wait_for lines_at_least $((updates + 1)) '^update' "$VELLUM_MEMORY_TRACE"
fi
SCRIPT
if [ -n "$layer_probe" ]; then
	run_vellum -- bash "$work/layer.sh" "$work" "$probe" "$layer_probe" 30
	expect "a layer surface is configured to the panel's width" \
		grep -qx "layer shown ${W}x$BAR" "$work/layer"
	expect "... the window shrinks by its exclusive zone" \
		[ "$(grep '^configure' "$work/events" | sed -n 2p)" = "configure ${W}x$((H - BAR))" ]
	expect "... it takes the keyboard (exclusive interactivity)" \
		[ "$(grep '^keyboard' "$work/events" | tr '\n' ' ')" = "keyboard enter keyboard leave " ]
	expect "... it is drawn at the bottom" [ "$(not_white_rows $((H - BAR)) $H)" = $((W * BAR)) ]
	# the popup: 60x40 above the bar's top edge, 20 px from the left, over the window
	[ "$(panel_at 20 $((H - BAR - 40)))" = 0 ] &&
		[ "$(panel_at 79 $((H - BAR - 1)))" = 0 ] &&
		[ "$(not_white_rows $((H - BAR - 40)) $((H - BAR)))" = $((60 * 40)) ]
	verdict "... its popup above it"
	run_vellum -- bash "$work/layer.sh" "$work" "$probe" "$layer_probe" 1
	expect "when it goes the window gets the keyboard back" \
		[ "$(grep '^keyboard' "$work/events" | tr '\n' ' ')" = \
			"keyboard enter keyboard leave keyboard enter " ]
	expect "... and its full height" \
		[ "$(grep '^configure' "$work/events" | sed -n 3p)" = "configure ${W}x${H}" ]
	expect "... and fills the panel again" [ "$(not_white_rows 0 $H)" = 0 ]
else
	skip "a layer surface with a popup, and when it goes" "$no_layer_shell"
fi

# --- a fresh wtype each time: none of its first keys is lost
cat >"$work/fresh.sh" <<'SCRIPT'
source "$VELLUM_TEST_WAIT_FOR"
foot --override=font=monospace:size=10 sh -c "stty -echo; cat >$1/typed" &
wait_for grep -q '^update' "$VELLUM_MEMORY_TRACE"
for _ in $(seq 10); do
	wtype Hello
	wtype -k Return
done
wait_for lines_at_least 10 '' "$1/typed"
kill $!
SCRIPT
run_vellum -- bash "$work/fresh.sh" "$work"
[ "$(grep -cx Hello "$work/typed")" = 10 ] && [ "$(wc -l <"$work/typed")" = 10 ]
verdict "ten fresh wtype runs type Hello ten times into foot"

# --- grim through screencopy
cat >"$work/grab.sh" <<'SCRIPT'
weston-simple-shm &
sleep 2
grim "$1/shot.png"
kill $!
SCRIPT
run_vellum -- bash "$work/grab.sh" "$work"
expect "grim takes a screenshot" [ -s "$work/shot.png" ]
size=$(od -An -tu1 -j16 -N8 "$work/shot.png" 2>/dev/null | awk '{print $3*256+$4 "x" $7*256+$8}')
expect "... of the panel's size" [ "$size" = "${W}x${H}" ]

# --- no window: frames, screenshots and feedback are served, the panel keeps its image
# (not_white_rows, BAR: the layer-shell cases above)
run_vellum -- timeout 30 grim "$work/alone.png"
expect "grim with no window takes a screenshot (status $status)" \
	[ "$status" = 0 -a -s "$work/alone.png" ]
expect "... and the panel keeps what it showed: no update" [ "$(updates)" = 0 ]
if [ -n "$layer_probe" ]; then
	run_vellum -- timeout 30 "$layer_probe" $BAR 1
	expect "a layer surface alone gets frame callbacks (status $status)" \
		[ "$status" = 0 -a "$(grep -x "layer shown ${W}x$BAR" <<<"$out")" ]
	expect "... and is drawn at the bottom" [ "$(not_white_rows $((H - BAR)) $H)" = $((W * BAR)) ]
fi
cat >"$work/between.sh" <<'SCRIPT'
# between.sh WORK PROBE [LAYER_PROBE]: a window with a dialog that exits,
# then a screenshot and a layer surface with no window
"$2" dialog 1
grep -c '^update' "$VELLUM_MEMORY_TRACE" >"$1/gone"
timeout 30 grim "$1/between.png" || exit 1
[ -n "$3" ] || exit 0
# the bar stays until vellum ends, once it is shown and its update is sent
# (frames are not held back for the panel, so "shown" may come first)
before=$(grep -c '^update' "$VELLUM_MEMORY_TRACE")
: >"$1/layer"
"$3" 80 30 >"$1/layer" &
for _ in $(seq 300); do
	grep -q '^layer shown' "$1/layer" &&
		[ "$(grep -c '^update' "$VELLUM_MEMORY_TRACE")" -gt "$before" ] && exit 0
	sleep 0.1
done
exit 1
SCRIPT
run_vellum -- bash "$work/between.sh" "$work" "$probe" "$layer_probe"
gone=$(cat "$work/gone" 2>/dev/null || echo 0)
expect "between windows: grim takes a screenshot (status $status)" \
	[ "$status" = 0 -a -s "$work/between.png" ]
expect "... the panel keeps the windows' last frame: the dialog" \
	[ "$(panel_at $((W / 2)) $((H / 2)))" = 0 -a "$(panel_at $((W / 2 - 110)) $((H / 2)))" = 255 ]
expect "... and the subsurface" [ "$(panel_at 30 30)" = 0 -a "$(panel_at 70 70)" = 255 ]
if [ -n "$layer_probe" ]; then
	expect "... a layer surface is drawn over it" \
		[ "$(not_white_rows $((H - BAR)) $H)" = $((W * BAR)) ]
	# the bar and its popup above it, nothing of the page the windows left
	top=$(grep '^update' "$VELLUM_MEMORY_TRACE" | tail -n +$((gone + 1)) | grep -o ' y=[0-9]*' |
		cut -d= -f2 | sort -n | head -n 1)
	expect "... and only it is drawn (top row ${top:-none})" \
		[ "${top:-0}" -ge $((H - BAR - 40)) ]
	expect "... the windows' frame still there" \
		[ "$(panel_at $((W / 2)) $((H / 2)))" = 0 -a "$(panel_at 30 30)" = 0 ]
fi
# xclock.sh TRACE N XCLOCK_ARGS...: xclock runs until the panel had N
# updates, however long Xwayland takes to start (under emulation, on a
# loaded machine, many seconds), up to 100 s: status 0 then, 1 if it never
# got there or xclock ended first.
cat >"$work/xclock.sh" <<'SCRIPT'
source "$VELLUM_TEST_WAIT_FOR"
trace=$1 wanted=$2
shift 2
xclock "$@" &
xclock=$!
drawn() { lines_at_least "$wanted" '^update' "$trace"; }
drawn_or_gone() { drawn || ! kill -0 $xclock 2>/dev/null; }
wait_for drawn_or_gone
kill $xclock 2>/dev/null
drawn
SCRIPT
if command -v Xwayland >/dev/null; then
	# an X11 application whose one window is override-redirect, at 0,0
	run_vellum -- bash "$work/xclock.sh" "$VELLUM_MEMORY_TRACE" 1 \
		-xrm 'xclock.overrideRedirect: true' -update 1
	expect "an override-redirect X11 window alone is drawn ($(updates) updates)" \
		[ "$status" = 0 -a "$(updates)" -ge 1 -a "$(not_white_rows 0 100)" -gt 0 ]
fi

# --- X11: xclock through Xwayland, started when it connects
if command -v Xwayland >/dev/null; then
	run_vellum -- bash "$work/xclock.sh" "$VELLUM_MEMORY_TRACE" 3 -update 1
	expect "xclock ran through Xwayland" [ "$status" = 0 ]
	expect "its window fills the panel from the first frame, one flash" \
		first_update_is_one_full_flash
	expect "its hands move on the panel" [ "$(updates)" -ge 3 ]
else
	echo "# Xwayland is not installed: the X11 cases are skipped"
fi

# --- dialogs centred above the window, subsurfaces on it
run_vellum -- "$probe" dialog 1
expect "probe_client showed a dialog" [ "$status" = 0 ]
expect "... centred on the panel" [ "$(panel_at $((W / 2)) $((H / 2)))" = 0 ]
[ "$(panel_at $((W / 2 - 90)) $((H / 2 - 40)))" = 0 ] &&
	[ "$(panel_at $((W / 2 - 110)) $((H / 2)))" = 255 ]
verdict "... at its own size"
# a black frame of 2 pixels around it, on the white window behind
[ "$(panel_at $((W / 2 - 101)) $((H / 2)))" = 0 ] && [ "$(panel_at $((W / 2 - 102)) $((H / 2)))" = 0 ] &&
	[ "$(panel_at $((W / 2 - 103)) $((H / 2)))" = 255 ] &&
	[ "$(panel_at $((W / 2 + 101)) $((H / 2)))" = 0 ] &&
	[ "$(panel_at $((W / 2)) $((H / 2 - 51)))" = 0 ] && [ "$(panel_at $((W / 2)) $((H / 2 + 51)))" = 0 ]
verdict "... with a border"
[ "$(panel_at 30 30)" = 0 ] &&
	[ "$(panel_at 70 70)" = 255 ]
verdict "the subsurface at 10,10 of the window"

# --- content types: a photo gets the quality waveform (GC16), gray UI GL16
run_vellum -- "$probe" gray 3
expect "gray blocks of a plain window: GL16" \
	[ "$(grep -c 'waveform=5 ' "$VELLUM_MEMORY_TRACE")" -ge 3 ]
run_vellum -- "$probe" photo 3
[ "$(tail -n +2 "$VELLUM_MEMORY_TRACE" | grep -c 'waveform=2 ')" -ge 3 ] &&
	! grep -q 'waveform=5 ' "$VELLUM_MEMORY_TRACE"
verdict "gray blocks of a photo: GC16, not GL16"

# --- the panel at the end shows the last frame
run_vellum -- timeout 3 weston-simple-shm
expect "the panel image is written" [ -s "$VELLUM_MEMORY_PANEL" ]
# the window fills the panel: it shows the animation, not an empty page
pixels=$(od -An -v -tu1 -j $((3 + ${#W} + 1 + ${#H} + 1 + 4)) "$VELLUM_MEMORY_PANEL" |
	tr -s ' ' '\n' | grep -c '^[0-9]' )
not_white=$(od -An -v -tu1 -j $((3 + ${#W} + 1 + ${#H} + 1 + 4)) "$VELLUM_MEMORY_PANEL" |
	tr -s ' ' '\n' | grep -v '^$' | grep -vc '^255$')
expect "... the whole panel" [ "$pixels" = $((W * H)) ]
expect "... showing the window's last frame, not a white page" [ "$not_white" -gt $((W * H / 10)) ]

# --- windows and popups as xdg-shell and X11 clients expect them
run_vellum -- "$probe" maximize 0
expect "set_maximized is answered by a configure" grep -qx "set_maximized: configure" <<<"$out"
expect "... and unset_maximized too" grep -qx "unset_maximized: configure" <<<"$out"

run_vellum -- "$probe" dialog 1
expect "the window is activated while it has the keyboard" \
	grep -qx "activated window=1 dialog=0" <<<"$out"
expect "... a dialog taking the keyboard is activated, the window no longer" \
	grep -qx "activated window=0 dialog=1" <<<"$out"

run_vellum -- "$probe" popup 0
expect "a popup is shown where asked" [ "$(grep '^popup at' <<<"$out" | sed -n 1p)" = \
	"popup at 20,20 60x40" ]
expect "... moved past the right edge, it is slid back onto the panel" \
	[ "$(grep '^popup at' <<<"$out" | sed -n 2p)" = "popup at $((W - 60)),20 60x40" ]

if [ -n "$layer_probe" ]; then
	cat >"$work/layer_popup.sh" <<'SCRIPT'
# layer_popup.sh WORK PROBE LAYER_PROBE: a window, and a bar whose popup moves right
source "$VELLUM_TEST_WAIT_FOR"
: >"$1/events"
"$2" resize >"$1/events" &
wait_for grep -q '^configure' "$1/events"
"$3" 80 0 reposition
SCRIPT
	run_vellum -- bash "$work/layer_popup.sh" "$work" "$probe" "$layer_probe"
	expect "a layer surface's popup is shown where asked" \
		[ "$(grep '^popup at' <<<"$out" | sed -n 1p)" = "popup at 20,-40 60x40" ]
	expect "... moved past the right edge, it is slid back onto the panel" \
		[ "$(grep '^popup at' <<<"$out" | sed -n 2p)" = "popup at $((W - 60)),-40 60x40" ]
fi

# X11 windows drawn where X has them after a re-arrange, seen in a screenshot
# taken while X reports where they are (the panel is written once the
# clients have gone, and the windows with them)
x11_probe=$(dirname "$probe")/x11_probe
# shot_at FILE X Y: the red level of pixel X,Y of grim's PPM of the panel
shot_at() {
	od -An -tu1 -j $(($(head -n 3 "$1" | wc -c) + ($3 * W + $2) * 3)) -N1 "$1" | tr -d ' '
}
# shot_not_white_rows FILE FROM TO: the pixels of rows FROM..TO-1 that are not white
shot_not_white_rows() {
	od -An -v -tu1 -w3 -j $(($(head -n 3 "$1" | wc -c) + $2 * W * 3)) -N $((($3 - $2) * W * 3)) \
		"$1" | grep -vc '255 *255 *255'
}
if command -v Xwayland >/dev/null && [ -n "$layer_probe" ]; then
	cat >"$work/x11.sh" <<'SCRIPT'
# x11.sh WORK X11_PROBE LAYER_PROBE: an X window and its dialog, then a bar
# taking the panel's top 80 rows; the screenshot once X has them below it
source "$VELLUM_TEST_WAIT_FOR"
: >"$1/x11"
"$2" >"$1/x11" &
wait_for grep -q '^dialog at 300,250 ' "$1/x11"
: >"$1/layer"
"$3" 80 30 top >"$1/layer" &
wait_for grep -q '^layer shown' "$1/layer"
wait_for grep -q '^main at 0,80 ' "$1/x11"
wait_for grep -q '^dialog at 300,290 ' "$1/x11"
grim -t ppm "$1/x11.ppm"
cp "$1/x11" "$1/x11.seen"
SCRIPT
	run_vellum -- bash "$work/x11.sh" "$work" "$x11_probe" "$layer_probe"
	grep -qx "main at 0,0 ${W}x$H" "$work/x11.seen" &&
		grep -qx "dialog at 300,250 200x100" "$work/x11.seen"
	verdict "X11: the window fills the panel, the dialog centred on it"
	expect "... a bar on top: X has the window below it" \
		[ "$(grep '^main at' "$work/x11.seen" | tail -n 1)" = "main at 0,80 ${W}x$((H - 80))" ]
	expect "... and it is drawn there, down to the bottom edge" \
		[ "$(shot_not_white_rows "$work/x11.ppm" 80 $H)" = $((W * (H - 80) - 200 * 100)) ]
	expect "... X has the dialog centred in what is left" \
		[ "$(grep '^dialog at' "$work/x11.seen" | tail -n 1)" = "dialog at 300,290 200x100" ]
	[ "$(shot_at "$work/x11.ppm" 300 290)" = 255 ] &&
		[ "$(shot_at "$work/x11.ppm" 499 389)" = 255 ] &&
		[ "$(shot_at "$work/x11.ppm" 300 289)" = 0 ] &&
		[ "$(shot_at "$work/x11.ppm" 299 290)" = 0 ] &&
		[ "$(shot_at "$work/x11.ppm" 500 389)" = 0 ] &&
		[ "$(shot_at "$work/x11.ppm" 499 390)" = 0 ]
	verdict "... and it is drawn there"

	cat >"$work/x11_resize.sh" <<'SCRIPT'
# x11_resize.sh WORK X11_PROBE: an X window and its dialog, which resizes itself
source "$VELLUM_TEST_WAIT_FOR"
: >"$1/x11"
"$2" resize >"$1/x11" &
wait_for grep -q '^dialog at .* 300x150' "$1/x11"
wait_for grep -q '^dialog at 250,225 300x150' "$1/x11"
grim -t ppm "$1/x11.ppm"
cp "$1/x11" "$1/x11.seen"
SCRIPT
	run_vellum -- bash "$work/x11_resize.sh" "$work" "$x11_probe"
	expect "an X11 dialog resizing itself stays centred, for X too" \
		[ "$(grep '^dialog at' "$work/x11.seen" | tail -n 1)" = "dialog at 250,225 300x150" ]
	[ "$(shot_at "$work/x11.ppm" 250 225)" = 255 ] &&
		[ "$(shot_at "$work/x11.ppm" 549 374)" = 255 ] &&
		[ "$(shot_at "$work/x11.ppm" 249 225)" = 0 ] &&
		[ "$(shot_at "$work/x11.ppm" 250 224)" = 0 ] &&
		[ "$(shot_at "$work/x11.ppm" 550 374)" = 0 ] &&
		[ "$(shot_at "$work/x11.ppm" 549 375)" = 0 ]
	verdict "... and it is drawn there"
else
	echo "# Xwayland or layer-shell is missing: the X11 re-arrange cases are skipped"
fi

# A popup made again from its xdg_surface, under another parent: drawn
# there only, nothing left where it was
cat >"$work/repopup.sh" <<'SCRIPT'
# repopup.sh WORK PROBE: the screenshot once the popup is made again
source "$VELLUM_TEST_WAIT_FOR"
: >"$1/repopup"
"$2" repopup >"$1/repopup" &
wait_for grep -q '^repopup shown' "$1/repopup"
grim -t ppm "$1/repopup.ppm"
kill $!
SCRIPT
run_vellum -- bash "$work/repopup.sh" "$work" "$probe"
expect "a popup made again under another popup is drawn there" \
	[ "$status" = 0 -a "$(shot_at "$work/repopup.ppm" 340 240)" = 0 ]
expect "... and not where its first role had it ($(shot_at "$work/repopup.ppm" 40 40))" \
	[ "$(shot_at "$work/repopup.ppm" 40 40)" = 255 ]

# The same for a layer surface's popup, made again under a second bar
# above the first bar's zone, at the right end
if [ -n "$layer_probe" ]; then
	cat >"$work/layer_remake.sh" <<'SCRIPT'
# layer_remake.sh WORK LAYER_PROBE: the screenshot once the bottom bar's
# popup is made again under the second bar
source "$VELLUM_TEST_WAIT_FOR"
: >"$1/layer"
"$2" 80 30 remake >"$1/layer" &
wait_for grep -q '^layer shown' "$1/layer"
grim -t ppm "$1/remake.ppm"
kill $!
SCRIPT
	run_vellum -- bash "$work/layer_remake.sh" "$work" "$layer_probe"
	expect "a layer surface's popup made again under another bar is drawn there" \
		[ "$status" = 0 -a "$(shot_at "$work/remake.ppm" $((W - 160)) $((H - 180)))" = 0 ]
	expect "... and not where its first role had it ($(shot_at "$work/remake.ppm" 40 $((H - 100))))" \
		[ "$(shot_at "$work/remake.ppm" 40 $((H - 100)))" = 255 ]
else
	skip "a layer surface's popup made again under another bar" "$no_layer_shell"
fi

# An X11 override-redirect window (a menu) that X moves while it is shown
if command -v Xwayland >/dev/null; then
	cat >"$work/x11_menu.sh" <<'SCRIPT'
# x11_menu.sh WORK X11_PROBE W: an X menu drawn at 50,50, then moved to
# 300,200 by X; menu.seen is the screenshot once it is drawn there
source "$VELLUM_TEST_WAIT_FOR"
work=$1 W=$3
# white_at X Y: a screenshot of the panel taken now has pixel X,Y white
white_at() {
	grim -t ppm "$work/menu.ppm" || return 1
	local offset=$(($(head -n 3 "$work/menu.ppm" | wc -c) + ($2 * W + $1) * 3))
	[ "$(od -An -tu1 -j $offset -N1 "$work/menu.ppm" | tr -d ' ')" = 255 ]
}
: >"$work/x11"
rm -f "$work/ctl"
mkfifo "$work/ctl"
"$2" menu <"$work/ctl" >"$work/x11" &
probe=$!
exec 3>"$work/ctl"
wait_for grep -q '^menu at 50,50 ' "$work/x11"
wait_for white_at 60 60
echo move >&3
wait_for grep -q '^menu at 300,200 ' "$work/x11"
wait_for white_at 310 210 && cp "$work/menu.ppm" "$work/menu.seen"
exec 3>&-
kill $probe
SCRIPT
	# menu_shows VALUE X Y...: the screenshot has VALUE at each X,Y
	menu_shows() {
		local value=$1
		shift
		[ -s "$work/menu.seen" ] || return 1
		while [ $# -gt 1 ]; do
			[ "$(shot_at "$work/menu.seen" "$1" "$2")" = "$value" ] || return 1
			shift 2
		done
	}
	run_vellum -- bash "$work/x11_menu.sh" "$work" "$x11_probe" $W
	expect "an X11 menu moved by X is drawn where it went (status $status)" \
		menu_shows 255 310 210 399 249
	expect "... and no longer where it was" menu_shows 0 60 60 299 199 400 250
else
	echo "# Xwayland is not installed: the X11 menu case is skipped"
fi

tap_finish
