#!/usr/bin/env bash
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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR=$work/run
mkdir -m 700 "$XDG_RUNTIME_DIR"
unset WAYLAND_DISPLAY DISPLAY
export VELLUM_MEMORY_TRACE=$work/trace VELLUM_MEMORY_PANEL=$work/panel.pgm
W=800
H=600

# shellcheck source=../tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

# run_vellum [VELLUM OPTIONS] -- APP...: runs vellum on a fresh panel;
# $status is its exit status, $out its output.
run_vellum() {
	rm -f "$VELLUM_MEMORY_TRACE" "$VELLUM_MEMORY_PANEL"
	out=$(timeout 120 "$vellum" -d memory:${W}x${H} "$@" 2>&1)
	status=$?
}

updates() { grep -c '^update' "$VELLUM_MEMORY_TRACE" 2>/dev/null || echo 0; }
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
expect "--validate of a bad file: status 1 and FILE:LINE" \
	[ "$status" = 1 ] && grep -q "bad.conf:2: " <<<"$out"
out=$(timeout 20 "$vellum" -c "$work/fast.conf" --validate 2>&1)
expect "--validate of a good file: status 0" [ $? = 0 ]
out=$(timeout 20 "$vellum" -C -c "$work/missing.conf" 2>&1)
status=$?
expect "--validate of a missing file: status 1, naming it" \
	[ "$status" = 1 ] && grep -q "missing.conf: " <<<"$out"

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
foot --override=font=monospace:size=14 cat &
sleep 4
[ -n "$(grep '^update' "$VELLUM_MEMORY_TRACE")" ] || sleep 4
grep -c '^update' "$VELLUM_MEMORY_TRACE" >"$1/before"
wtype hello
sleep 3
kill $!
SCRIPT
run_vellum -- bash "$work/type.sh" "$work"
before=$(cat "$work/before" 2>/dev/null || echo 0)
expect "foot showed its window" [ "$before" -ge 1 ]
expect "typed keys reach the panel" [ "$(updates)" -gt "$before" ]
# the one flash allowed is the idle cleanup after the typing stopped
expect "... each keystroke a small update, without a flash" small_updates_after "$before" 200 130 1

# --- SIGTERM ends the application, then vellum; foot talks to the
# compositor on its way out, so vellum must serve it until it has gone
rm -f "$VELLUM_MEMORY_TRACE" "$VELLUM_MEMORY_PANEL"
"$vellum" -d memory:${W}x${H} -- foot --override=font=monospace:size=14 cat >"$work/term.out" 2>&1 &
vellum_pid=$!
for _ in $(seq 100); do
	[ -n "$(grep '^update' "$VELLUM_MEMORY_TRACE" 2>/dev/null)" ] && break
	sleep 0.1
done
kill -TERM $vellum_pid
for _ in $(seq 200); do
	kill -0 $vellum_pid 2>/dev/null || break
	sleep 0.1
done
kill -KILL $vellum_pid 2>/dev/null
wait $vellum_pid
status=$?
expect "SIGTERM: foot ends by itself, not killed (status $status)" \
	[ "$status" != 137 ] && ! grep -q "Killed" "$work/term.out"
expect "... and vellum leaves the panel it showed" [ -s "$VELLUM_MEMORY_PANEL" ]

# --- an on-screen keyboard (wvkbd, layer-shell) beside a window that follows its configures
KB=200
cat >"$work/keyboard.sh" <<'SCRIPT'
# keyboard.sh WORK PROBE HIDE: the probe's window, the keyboard over its
# bottom, and with HIDE=1 the keyboard gone again before the end
configures() { grep -c '^configure' "$1/sizes"; }
wait_for() { for _ in $(seq 100); do "$@" && return 0; sleep 0.1; done; return 1; }
"$2" resize >"$1/sizes" &
wait_for [ "$(configures "$1")" -ge 1 ]
wvkbd-mobintl -H 200 -L 200 &
keyboard=$!
wait_for [ "$(configures "$1")" -ge 2 ]
# the keyboard's rows reached the panel
wait_for grep -qE '^update .* y=(4|5)[0-9][0-9] ' "$VELLUM_MEMORY_TRACE"
if [ "$3" = 1 ]; then
	kill $keyboard
	wait_for [ "$(configures "$1")" -ge 3 ]
	updates=$(grep -c '^update' "$VELLUM_MEMORY_TRACE")
	wait_for [ "$(grep -c '^update' "$VELLUM_MEMORY_TRACE")" -gt "$updates" ]
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
wait_for() { for _ in $(seq 100); do "$@" && return 0; sleep 0.1; done; return 1; }
"$2" resize >"$1/events" &
wait_for grep -q '^keyboard enter' "$1/events"
"$3" 80 "$4" >"$1/layer" &
wait_for grep -q '^layer shown' "$1/layer"
wait_for grep -q '^keyboard leave' "$1/events"
if [ "$4" = 1 ]; then
	wait_for [ "$(grep -c '^keyboard enter' "$1/events")" -ge 2 ]
	wait_for [ "$(grep -c '^configure' "$1/events")" -ge 3 ]
	updates=$(grep -c '^update' "$VELLUM_MEMORY_TRACE")
	wait_for [ "$(grep -c '^update' "$VELLUM_MEMORY_TRACE")" -gt "$updates" ]
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
	expect "... its popup above it" [ "$(panel_at 20 $((H - BAR - 40)))" = 0 ] &&
		[ "$(panel_at 79 $((H - BAR - 1)))" = 0 ] &&
		[ "$(not_white_rows $((H - BAR - 40)) $((H - BAR)))" = $((60 * 40)) ]
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
foot --override=font=monospace:size=10 sh -c "stty -echo; cat >$1/typed" &
for _ in $(seq 100); do grep -q '^update' "$VELLUM_MEMORY_TRACE" && break; sleep 0.1; done
for _ in $(seq 10); do
	wtype Hello
	wtype -k Return
done
# the ten lines, or give up after 10 s
for _ in $(seq 100); do [ "$(wc -l <"$1/typed")" -ge 10 ] && break; sleep 0.1; done
kill $!
SCRIPT
run_vellum -- bash "$work/fresh.sh" "$work"
expect "ten fresh wtype runs type Hello ten times into foot" \
	[ "$(grep -cx Hello "$work/typed")" = 10 ] && [ "$(wc -l <"$work/typed")" = 10 ]

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

# --- X11: xclock through Xwayland, started when it connects
if command -v Xwayland >/dev/null; then
	run_vellum -- timeout 6 xclock -update 1
	expect "xclock ran through Xwayland" [ "$status" = 124 ]
	expect "its window fills the panel from the first frame, one flash" \
		first_update_is_one_full_flash
	expect "its hands move on the panel" [ "$(updates)" -ge 3 ]
	run_vellum --no-xwayland -- sh -c 'test -z "$DISPLAY"'
	expect "--no-xwayland sets no DISPLAY" [ "$status" = 0 ]
else
	echo "# Xwayland is not installed: the X11 cases are skipped"
fi

# --- dialogs centred above the window, subsurfaces on it
run_vellum -- "$probe" dialog 1
expect "probe_client showed a dialog" [ "$status" = 0 ]
expect "... centred on the panel" [ "$(panel_at $((W / 2)) $((H / 2)))" = 0 ]
expect "... at its own size" [ "$(panel_at $((W / 2 - 90)) $((H / 2 - 40)))" = 0 ] &&
	[ "$(panel_at $((W / 2 - 110)) $((H / 2)))" = 255 ]
expect "the subsurface at 10,10 of the window" [ "$(panel_at 30 30)" = 0 ] &&
	[ "$(panel_at 70 70)" = 255 ]

# --- content types: a photo gets the quality waveform (GC16), gray UI GL16
run_vellum -- "$probe" gray 3
expect "gray blocks of a plain window: GL16" \
	[ "$(grep -c 'waveform=5 ' "$VELLUM_MEMORY_TRACE")" -ge 3 ]
run_vellum -- "$probe" photo 3
expect "gray blocks of a photo: GC16, not GL16" \
	[ "$(tail -n +2 "$VELLUM_MEMORY_TRACE" | grep -c 'waveform=2 ')" -ge 3 ] &&
	! grep -q 'waveform=5 ' "$VELLUM_MEMORY_TRACE"

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

tap_finish
