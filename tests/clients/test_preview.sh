#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# vellum -d preview under a headless parent compositor (weston's headless
# backend with its pixman renderer and kiosk shell): vellum opens one
# window, the simulated panel, runs foot or epaper-reader in it, and the
# parent's screenshots show the first frame's flash going black, then
# settle to the panel model's own final picture (--record's panel.pgm),
# pixel for pixel; the recording holds that flash as a GC16 full update
# and frames of the panel over time; the same through X, in Xwayland.
# Then, under vellum on the memory
# panel as the parent (it has the virtual pointer protocol), clicks in the
# window reach touch_probe in the preview at the surface coordinates they
# were made at, with the panel at rotations 0 and 90, one on the desk
# beside the panel reaches nothing, and Ctrl+Alt+U in
# it shows the overlay of the updates in flight (the flash in red), then
# hides it. Prints TAP.
#
#   test_preview.sh VELLUM SHOT_PROBE EPAPER_READER VP_CLICKER TOUCH_PROBE VK_CHORD
#
# With PREVIEW_SCREENSHOT set, epaper-reader's settled window is copied
# there (the README's picture, doc/preview.png).
set -u

vellum=$1
shot_probe=$2
reader=$3
vp_clicker=$4
touch_probe=$5
vk_chord=$6
# shellcheck source=setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
start_through_wrapper vellum shot_probe reader vp_clicker touch_probe vk_chord
W=400
H=300
mkdir -p "$work/shots"

# a gray desktop, so that a black or white window shows on it
printf '[shell]\nbackground-color=0xff808080\n' >"$work/weston.ini"
weston --config="$work/weston.ini" --backend=headless --renderer=pixman --shell=kiosk \
	--debug --socket=parent \
	--width=$W --height=$H --idle-time=0 >"$work/weston.log" 2>&1 &
weston_pid=$!
trap 'kill $weston_pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
	[ -S "$XDG_RUNTIME_DIR/parent" ] && break
	sleep 0.1
done
expect "weston's headless backend runs as the desktop" [ -S "$XDG_RUNTIME_DIR/parent" ]

# shot FILE: a screenshot of the parent (weston names it after the second)
shot() {
	rm -f "$work/shots"/*.png
	(cd "$work/shots" && WAYLAND_DISPLAY=parent timeout 10 weston-screenshooter >/dev/null 2>&1)
	mv "$work/shots"/*.png "$1" 2>/dev/null
}

# thread_switches PID: "TID NAME SWITCHES" for each thread of PID, how
# often it was switched out so far
thread_switches() {
	local task
	for task in /proc/"$1"/task/*; do
		awk -v tid="${task##*/}" -v name="$(tr " " _ <"$task/comm" 2>/dev/null)" \
			'/^(non)?voluntary_ctxt_switches:/ { n += $2 } END { print tid, name, n + 0 }' \
			"$task/status" 2>/dev/null
	done
}

# switches_between BEFORE AFTER: the switches of all threads from one
# thread_switches to the other, then those of each thread that had any
switches_between() {
	join -a 2 <(sort <<<"$1") <(sort <<<"$2") |
		awk 'NF == 5 { d = $5 - $3 } NF == 3 { d = $3 } d > 0 { total += d; each = each " " $1 " " $2 ":" d }
			END { print total + 0 each }'
}

# frames_recorded DIR: the frames --record wrote, one when an update completes
frames_recorded() { find "$1/frames" -name '*.pgm' | wc -l; }

# The refresh policy's idle cleanup would redraw later: the panel rests once drawn.
printf '[refresh]\nidle-cleanup = off\n' >"$work/vellum.conf"

# preview NAME APP...: vellum -d preview with APP, its waveforms at 10 times
# their time; the flash, the settled window and the recording.
preview() {
	local name=$1 i shown=0 black=0 settled="" previous="" share rec=$work/record-$1
	shift
	"${desktop[@]}" "$vellum" -c "$work/vellum.conf" --no-xwayland \
		-d preview:${W}x$H --time-scale 1000 --record "$rec" -- "$@" >"$work/vellum-$name.log" 2>&1 &
	local vellum_pid=$!
	# The window covers the gray desktop; GC16 takes 4.5 s, and its black
	# third shows in a shot.
	for i in $(seq 200); do
		shot "$work/shot-$name-$i.png" || { sleep 0.1; continue; }
		share=$("$shot_probe" share "$work/shot-$name-$i.png" 120 136)
		[ "${share:-1000}" -lt 50 ] && [ "$shown" = 0 ] && shown=$i
		share=$("$shot_probe" share "$work/shot-$name-$i.png" 0 16)
		if [ "${share:-0}" -ge 950 ]; then
			black=$i
			break
		fi
	done
	expect "$name: the window opens over the desktop" [ "$shown" -gt 0 ]
	if [ "$black" -gt 0 ]; then ok "$name: the first frame's flash turns the window black"; else
		not_ok "$name: the first frame's flash turns the window black" \
			"no screenshot was black" \
			"vellum: $(tail -n 3 "$work/vellum-$name.log" | tr '\n' ' ')"
	fi
	# then the window settles with the application's picture: the same
	# picture 3 s apart, longer than any third of a waveform (a flash
	# shows its pixels for the last 1.5 s), something dark in it
	local shots=()
	for i in $(seq 60); do
		sleep 1.5
		shot "$work/settled-$name-$i.png" || continue
		shots+=("$work/settled-$name-$i.png")
		((${#shots[@]} >= 3)) || continue
		previous=${shots[${#shots[@]} - 3]}
		share=$("$shot_probe" share "$previous" 0 127)
		if [ "${share:-0}" -ge 1 ] && [ "${share:-1000}" -lt 950 ] &&
			cmp -s "$previous" "$work/settled-$name-$i.png" &&
			cmp -s "$previous" "${shots[${#shots[@]} - 2]}"; then
			settled=$previous
			break
		fi
	done
	expect "$name: the window settles" [ -n "$settled" ]
	# Nothing changes on the panel: vellum sleeps, it does not poll the
	# model. The window may look settled while an update that changes no
	# pixel runs: the 3 s count only when no update completed in them or
	# in the 6 s after (longer than any waveform but INIT at this scale).
	local before after frames wakeups="" attempt
	for attempt in 1 2 3 4 5; do
		frames=$(frames_recorded "$rec")
		before=$(thread_switches $vellum_pid)
		sleep 3
		after=$(thread_switches $vellum_pid)
		sleep 6
		if [ "$(frames_recorded "$rec")" = "$frames" ]; then
			wakeups=$(switches_between "$before" "$after")
			break
		fi
		echo "# $name: an update ran while the wake-ups were counted ($attempt)"
	done
	if [ -z "$wakeups" ]; then
		not_ok "$name: the settled preview sleeps" "the panel never rested for 9 s"
	else
		local total=${wakeups%% *} threads=${wakeups#"${wakeups%% *}"}
		expect "$name: the settled preview sleeps ($total wake-ups of vellum in 3 s${threads:+;$threads})" \
			[ "$total" -le 10 ]
	fi
	kill -TERM $vellum_pid
	local status=0
	wait $vellum_pid || status=$?
	# It exits with the application's status; under the sanitizers a report
	# (a leak found at exit, say) aborts it instead.
	if [ "$status" != 134 ] && ! grep -q 'ERROR: [A-Za-z]*Sanitizer\|runtime error:' \
		"$work/vellum-$name.log"; then
		ok "$name: vellum ends on SIGTERM without a sanitizer report"
	else
		not_ok "$name: vellum ends on SIGTERM without a sanitizer report" \
			"exit status $status" "$(tail -n 40 "$work/vellum-$name.log")"
	fi
	expect "$name: --record writes the final panel, the updates and the contact sheet" \
		test -s "$rec/panel.pgm" -a -s "$rec/panel.png" -a -s "$rec/updates.txt" \
		-a -s "$rec/panel-frames.png"
	local first
	first=$(head -n 1 "$rec/updates.txt")
	expect "$name: the recorded first update is the flash, GC16 full over the panel" \
		grep -q "left=0 top=0 width=$W height=$H waveform=GC16 mode=full .*flash=1" <<<"$first"
	local frames
	frames=$(find "$rec/frames" -name '*.pgm' | wc -l)
	expect "$name: frames of the panel over time are recorded ($frames)" [ "$frames" -ge 2 ]
	if [ -n "$settled" ] && [ -s "$rec/panel.pgm" ]; then
		local result
		result=$("$shot_probe" compare "$settled" "$rec/panel.pgm")
		if [ "$(value "$result" differ)" = 0 ]; then
			ok "$name: the settled window is the panel model's picture, pixel for pixel"
		else
			not_ok "$name: the settled window is the panel model's picture, pixel for pixel" \
				"$result"
		fi
	else
		not_ok "$name: the settled window is the panel model's picture, pixel for pixel" \
			"nothing to compare"
	fi
	if [ "$name" = epaper-reader ] && [ -n "${PREVIEW_SCREENSHOT:-}" ] && [ -n "$settled" ]; then
		cp "$settled" "$PREVIEW_SCREENSHOT"
	fi
	# the application drew in it: some dark pixels, mostly paper
	share=$([ -n "$settled" ] && "$shot_probe" share "$settled" 0 127)
	expect "$name: the application's dark pixels show on paper (${share:-0} per mille)" \
		test "${share:-0}" -ge 1 -a "${share:-0}" -le 500
}

# the desktop vellum sees: weston's Wayland display
desktop=(env WAYLAND_DISPLAY=parent)
preview foot foot -o font=monospace:size=14 -o colors.background=ffffff \
	-o colors.foreground=000000 sh -c 'printf "the preview shows foot\n"; sleep 60'
preview epaper-reader "$reader"

# The default panel, 1872x1404, on a desktop of 400x300: the window's first
# size fits the desktop's screen, as weston's kiosk shell requires of a
# fullscreen window (it closes a larger one). The window shows the
# reader's page, mostly paper, and stays open.
env WAYLAND_DISPLAY=parent "$vellum" -c "$work/vellum.conf" --no-xwayland -d preview \
	--time-scale 10 -- "$reader" >"$work/vellum-large.log" 2>&1 &
large_pid=$!
paper=0
for i in $(seq 100); do
	sleep 0.2
	kill -0 $large_pid 2>/dev/null || break
	shot "$work/shot-large.png" || continue
	paper=$("$shot_probe" share "$work/shot-large.png" 200 255)
	[ "${paper:-0}" -ge 500 ] && break
done
expect "a panel larger than the desktop: the window opens within the desktop's screen ($paper per mille paper)" \
	[ "${paper:-0}" -ge 500 ]
sleep 1
if kill -0 $large_pid 2>/dev/null; then ok "... and stays open"; else
	not_ok "... and stays open" "vellum: $(tail -n 3 "$work/vellum-large.log" | tr '\n' ' ')"
fi
kill $large_pid 2>/dev/null
wait $large_pid 2>/dev/null

# Where only X runs: rootful Xwayland fills weston's output, its root
# window white (-wr), so that only vellum's window can turn it black; and
# vellum, given DISPLAY alone, opens its window there through wlroots' X11
# backend.
WAYLAND_DISPLAY=parent Xwayland -geometry ${W}x$H -wr -noreset -displayfd 3 \
	3>"$work/x-display" >"$work/xwayland.log" 2>&1 &
xwayland_pid=$!
for _ in $(seq 100); do
	[ -s "$work/x-display" ] && break
	sleep 0.1
done
x_display=$(head -n 1 "$work/x-display" 2>/dev/null)
if [ -n "$x_display" ]; then
	desktop=(env -u WAYLAND_DISPLAY DISPLAY=":$x_display")
	preview x11-epaper-reader "$reader"
else
	not_ok "Xwayland starts for the X11 case" "$(tr '\n' ' ' <"$work/xwayland.log")"
fi
kill $xwayland_pid 2>/dev/null

# probe_clicks ROTATION PARENT_W PARENT_H X Y [X Y ...]: vellum on a memory
# panel of PARENT_W x PARENT_H runs the preview (turned by ROTATION) of
# touch_probe, and vp_clicker clicks at each X, Y per mille of the window in
# turn; touch_probe's first button, "button X Y" in its surface's
# coordinates, goes to $line.
probe_clicks() {
	local rotation=$1 parent_w=$2 parent_h=$3
	shift 3
	rm -f "$work/probe.log"
	# the parent's virtual pointer first: touch_probe binds a pointer only if
	# there is one, so the preview starts once vp_clicker says it made it
	rm -f "$work/clicker.log"
	cat >"$work/inner.sh" <<-INNER
		"$vp_clicker" $* "$work/probe.log" >"$work/clicker.log" &
		for i in \$(seq 300); do grep -q pointer "$work/clicker.log" 2>/dev/null && break; sleep 0.1; done
		"$vellum" -c "$work/vellum.conf" --no-xwayland -d preview:${W}x$H -r $rotation \\
			--time-scale 10 -- "$touch_probe" 20 20 1 >"$work/probe.log" 2>&1
	INNER
	timeout 120 "$vellum" -c "$work/vellum.conf" --no-xwayland -d memory:${parent_w}x$parent_h \
		-- sh "$work/inner.sh" >"$work/parent.log" 2>&1
	line=$(grep '^button' "$work/probe.log" | head -n 1)
}

# click ROTATION X Y: under a parent the size of the preview window
# (400x300 turned by ROTATION), a click at X, Y per mille of the window
# reaches touch_probe at that point of its surface, which is the window's.
click() {
	local rotation=$1 x=$2 y=$3 lw=$W lh=$H
	if [ "$rotation" = 90 ]; then lw=$H lh=$W; fi
	probe_clicks "$rotation" $lw $lh $x $y
	local expect_x=$((x * lw / 1000)) expect_y=$((y * lh / 1000))
	if [ "$line" = "button $expect_x.00 $expect_y.00" ]; then
		ok "rotation $rotation: a click at $x,$y per mille of the window reaches the client at $expect_x,$expect_y"
	else
		not_ok "rotation $rotation: a click at $x,$y per mille of the window reaches the client at $expect_x,$expect_y" \
			"touch_probe: $(tr '\n' ' ' <"$work/probe.log")" "parent: $(tail -n 3 "$work/parent.log" | tr '\n' ' ')"
	fi
}
click 0 250 750
click 90 250 750
click 90 900 100

# A click on the desk beside the panel reaches nothing: under a parent half
# as wide again as the window, the panel (400x300) sits in its middle,
# 100 pixels from either side; a click on the left margin, then one at the
# middle, and touch_probe's first button is the second click's.
probe_clicks 0 $((W * 3 / 2)) $H 50 500 500 500
expect "a click on the desk beside the panel reaches nothing, the next one the panel's middle ($line)" \
	[ "$line" = "button $((W / 2)).00 $((H / 2)).00" ]

# The overlay: under vellum on the memory panel again, the preview's first
# flash (GC16 at 30 times its time: 13.5 s) with Ctrl+Alt+U pressed in the
# window, then again; grim takes the parent's picture each time.
rm -f "$work/probe.log" "$work/overlay-on.png" "$work/overlay-off.png"
cat >"$work/inner.sh" <<-INNER
	"$vellum" -c "$work/vellum.conf" --no-xwayland -d preview:${W}x$H --time-scale 3000 \
		-- "$touch_probe" 20 20 1 >"$work/probe.log" 2>&1 &
	for i in \$(seq 300); do grep -q ready "$work/probe.log" 2>/dev/null && break; sleep 0.1; done
	"$vk_chord" LEFTCTRL LEFTALT U
	sleep 1
	grim "$work/overlay-on.png"
	"$vk_chord" LEFTCTRL LEFTALT U
	sleep 1
	grim "$work/overlay-off.png"
	kill \$!
INNER
timeout 120 "$vellum" -c "$work/vellum.conf" --no-xwayland -d memory:${W}x$H \
	-- sh "$work/inner.sh" >"$work/parent.log" 2>&1
red_on=$("$shot_probe" red "$work/overlay-on.png" 2>&1)
red_off=$("$shot_probe" red "$work/overlay-off.png" 2>&1)
expect "Ctrl+Alt+U shows the flash in flight in red ($red_on per mille)" \
	test "${red_on:-0}" -ge 500 2>/dev/null
expect "Ctrl+Alt+U again hides it ($red_off per mille)" test "${red_off:-1}" = 0 2>/dev/null

# Bad starts: a clear message and exit status 1, not a crash.
# refused NAME PATTERN VELLUM_ARGS...
refused() {
	local name=$1 pattern=$2 out status
	shift 2
	out=$(timeout 30 "$vellum" "$@" 2>&1)
	status=$?
	if [ $status = 1 ] && grep -q -- "$pattern" <<<"$out"; then ok "$name"; else
		not_ok "$name" "exit status $status" "$(tr '\n' ' ' <<<"$out")"
	fi
}
WAYLAND_DISPLAY='' DISPLAY='' refused "without a desktop vellum says so" \
	"neither WAYLAND_DISPLAY nor DISPLAY" -d preview:${W}x$H -- true
refused "--record without the preview is refused" "needs -d preview" \
	-d memory:${W}x$H --record "$work/nope" -- true
refused "--time-scale 0 is refused" "time-scale 0" --time-scale 0 -d preview -- true
refused "a preview of 0 pixels is refused" 'preview:0x10' -d preview:0x10 -- true
tap_finish
