#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SIGHUP under vellum on the in-process memory panel, without a VM: every
# [refresh] and [app:APP_ID] key is changed by a reload while a window stays
# mapped, each checked by its effect on what the panel got (the memory
# device's trace and the panel image it leaves) or on what a client got; a
# virtual keyboard keeps its own keymap through a reload. Prints TAP.
#
#   test_reload.sh VELLUM REFRESH_CLIENT
set -u

vellum=$1
client=$2
# shellcheck source=setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
W=800
H=600

# The panel's distinct pixel values in a rect X Y W H, space-separated.
panel_values() {
	local x=$1 y=$2 w=$3 h=$4 row header=$((3 + ${#W} + 1 + ${#H} + 1 + 4))
	for ((row = y; row < y + h; row++)); do
		od -An -v -tu1 -w1 -j $((header + row * W + x)) -N "$w" "$VELLUM_MEMORY_PANEL"
	done | tr -d ' ' | sort -nu | tr '\n' ' '
}

# What the test and the script under vellum share.
cat >"$work/lib.sh" <<'LIB'
# updates_over FROM TO X Y W H: the trace's updates from line FROM to line TO
# (1-based; TO empty: the end) that overlap the rect
updates_over() {
	sed -n "$1,${2:-\$}p" "$VELLUM_MEMORY_TRACE" | awk -v x="$3" -v y="$4" -v w="$5" -v h="$6" '
		/^update/ {
			for (i = 2; i <= NF; i++) {
				split($i, kv, "=")
				v[kv[1]] = kv[2]
			}
			if (v["x"] < x + w && x < v["x"] + v["width"] &&
				v["y"] < y + h && y < v["y"] + v["height"])
				print
		}'
}

# write_config KEY=VALUE...: a configuration file with every [refresh] key,
# these values taking the place of the first ones; app_KEY=VALUE is a key
# of an [app:refresh-client] section
write_config() {
	local -A refresh=([full-refresh-every]=0 [idle-cleanup]=off
		[full-refresh-interval]=3600s [default-mode]=text [default-dither]=none
		[input-window]=off [merge-window]=off [x11-merge-window]=off)
	local word key app=()
	for word in "$@"; do
		case $word in
		app_*) app+=("${word#app_}") ;;
		*) refresh[${word%%=*}]=${word#*=} ;;
		esac
	done
	{
		echo "[refresh]"
		for key in "${!refresh[@]}"; do echo "$key = ${refresh[$key]}"; done
		[ ${#app[@]} = 0 ] || echo "[app:refresh-client]"
		for word in "${app[@]}"; do echo "${word%%=*} = ${word#*=}"; done
	} >"$work/live.conf.new"
	mv "$work/live.conf.new" "$work/live.conf"
}
LIB
# shellcheck source=/dev/null
source "$work/lib.sh"

# --- every [refresh] and [app:APP_ID] key, reloaded while refresh_client's window stays
#
# The script runs under vellum: it draws through refresh_client (see its
# "steps" command), reloads with a new configuration between steps, and
# notes how long the trace was at each reload in $work/mark.NAME.
cat >"$work/steps.sh" <<'SCRIPT'
# steps.sh WORK CLIENT
work=$1
# shellcheck source=/dev/null
source "$work/lib.sh"
source "$VELLUM_TEST_WAIT_FOR"
feedback() { wait_for grep -q "^feedback $1 " "$work/out"; }
step=0
# step COMMAND: sends it and waits for its feedback
step() {
	step=$((step + 1))
	echo "$1" >&3
	feedback $step
}
# note NAME: how long the trace is now, as $work/mark.NAME
note() { grep -c '^update' "$VELLUM_MEMORY_TRACE" >"$work/mark.$1"; }
reloads=0
# reload NAME KEY=VALUE...: the configuration with these keys, applied
reload() {
	local name=$1
	shift
	write_config "$@"
	reloads=$((reloads + 1))
	note "$name"
	kill -HUP $PPID
	wait_for lines_at_least $reloads 'configuration reloaded' "$work/log"
}
mkfifo "$work/commands"
"$2" steps <"$work/commands" >"$work/out" &
exec 3>"$work/commands"
wait_for grep -q '^shown' "$work/out"

# full-refresh-interval: the second of two requests waits for the limit (an hour)
step full
step full
reload interval full-refresh-interval=0
# ... which a reload to no limit lifts; then requests flash at once
# flashed_since NAME: a full refresh since the reload noted as NAME
flashed_since() { tail -n +$(($(cat "$work/mark.$1") + 1)) "$VELLUM_MEMORY_TRACE" | grep -q 'full=1'; }
wait_for flashed_since interval
note requests
step full
step full

# full-refresh-every: an area updated again and again gets a flash
for gray in 0 255 0 255; do step "rect 100 400 40 40 $gray"; done
reload every full-refresh-interval=0 full-refresh-every=2
for gray in 0 255 0 255; do step "rect 200 400 40 40 $gray"; done

# idle-cleanup and input-window: an area drawn fast while the user types is
# redrawn once the panel and the input are quiet
reload idle full-refresh-interval=0 idle-cleanup=200ms input-window=30s default-mode=auto
wtype -k space
step "rect 300 400 40 40 128"
# the rect, then the cleanup
rect_and_cleanup() {
	[ "$(updates_over $(($(cat "$work/mark.idle") + 1)) "" 300 400 40 40 | grep -vc 'width=800')" -ge 2 ]
}
wait_for rect_and_cleanup

# default-mode: gray in text mode is GL16, in fast mode A2 (dithered as default-dither says)
reload text full-refresh-interval=0
step "rect 100 100 40 40 128"
reload mode full-refresh-interval=0 default-mode=fast
step "rect 200 100 40 40 128"
# default-dither: A2 without dithering is one level, ordered dithering two
reload dither full-refresh-interval=0 default-mode=fast default-dither=ordered
step "rect 300 100 40 40 128"
# an app rule's mode and dither: GC16, without dithering
reload app full-refresh-interval=0 default-mode=fast default-dither=ordered \
	app_mode=quality app_dither=none
step "rect 400 100 40 40 128"
# an app rule's merge-window: the client's change waits that long to be shown
reload merge full-refresh-interval=0 app_merge-window=1500ms
started=$(date +%s%N)
step "rect 500 100 40 40 0"
echo $((($(date +%s%N) - started) / 1000000)) >"$work/merge_ms"
# idle-cleanup is off again: the rects stay as drawn (a cleanup would come after 200 ms)
sleep 1
SCRIPT

write_config
rm -f "$VELLUM_MEMORY_TRACE" "$VELLUM_MEMORY_PANEL"
timeout 120 "$vellum" -d memory:${W}x${H} -c "$work/live.conf" -- \
	bash "$work/steps.sh" "$work" "$client" 2>"$work/log"
status=$?
expect "the reload script ran to its end" [ "$status" = 0 ]
fb() { grep "^feedback $1 " "$work/out"; }
mark() { echo $(($(cat "$work/mark.$1" 2>/dev/null || echo 1000000) + 1)); }

expect "full-refresh-interval 3600s: the first request flashes" [ "$(value "$(fb 1)" flags)" = 1 ]
expect "... the second waits" [ "$(sed -n "2,$(($(mark interval) - 1))p" "$VELLUM_MEMORY_TRACE" | grep -c 'full=1')" = 1 ]
expect "reloaded to 0: the waiting flash comes" \
	[ -n "$(sed -n "$(mark interval),$(($(mark requests) - 1))p" "$VELLUM_MEMORY_TRACE" | grep 'full=1')" ]
[ "$(value "$(fb 3)" flags)" = 1 ] && [ "$(value "$(fb 4)" flags)" = 1 ]
verdict "... and the next two requests flash at once"
expect "full-refresh-every 0: an area updated 4 times does not flash" \
	[ -z "$(updates_over 2 "$(mark every)" 100 400 40 40 | grep -v 'width=800' | grep 'full=1')" ]
expect "reloaded to 2: it flashes" \
	[ -n "$(updates_over "$(mark every)" "$(mark idle)" 200 400 40 40 | grep 'full=1')" ]
expect "reloaded idle-cleanup 200ms: an area is redrawn when the panel is quiet" \
	[ "$(updates_over "$(mark idle)" "$(mark text)" 300 400 40 40 | grep -vc 'width=800')" -ge 2 ]
expect "reloaded input-window 30s: typing makes the area's first update DU" \
	[ "$(updates_over "$(mark idle)" "$(mark text)" 300 400 40 40 | grep -v 'width=800' | head -n 1 | grep -c 'waveform=1 ')" = 1 ]
expect "default-mode text: gray is GL16" [ "$(value "$(fb 14)" waveform)" = GL16 ]
expect "reloaded to fast: A2" [ "$(value "$(fb 15)" waveform)" = A2 ]
expect "reloaded default-dither ordered: still A2" [ "$(value "$(fb 16)" waveform)" = A2 ]
expect "reloaded [app:refresh-client] mode quality: GC16" [ "$(value "$(fb 17)" waveform)" = GC16 ]
A2_NONE=$(panel_values 200 100 40 40)
A2_ORDERED=$(panel_values 300 100 40 40)
APP_NONE=$(panel_values 400 100 40 40)
expect "default-dither none: one level ($A2_NONE)" [ "$(wc -w <<<"$A2_NONE")" = 1 ]
expect "reloaded to ordered: black and white dots ($A2_ORDERED)" [ "$A2_ORDERED" = "0 255 " ]
expect "reloaded app dither none: one level ($APP_NONE)" [ "$(wc -w <<<"$APP_NONE")" = 1 ]
for x in 100 200 300 400; do
	drawn=$(updates_over "$(mark text)" "" $x 100 40 40 | grep -vc 'width=800')
	expect "reloaded idle-cleanup off: the rect at $x,100 is updated once ($drawn)" [ "$drawn" = 1 ]
done
merge_ms=$(cat "$work/merge_ms" 2>/dev/null)
expect "reloaded [app:refresh-client] merge-window 1500ms: its change is shown ${merge_ms:-?} ms later" \
	[ "${merge_ms:-0}" -ge 1500 ]

# --- a virtual keyboard keeps its own keymap through a reload
#
# wtype gives each key it types a keycode of a keymap of its own (a, b and
# Return are its first three); with the configuration's keymap in its place
# they would be Escape, 1 and 2, and cat would not even get a line.
printf '[input]\nkeyboard-layout = us\n' >"$work/live.conf"
cat >"$work/type.sh" <<'SCRIPT'
# type.sh WORK: "ab", a reload, "ab" and Return from one wtype into foot
work=$1
source "$VELLUM_TEST_WAIT_FOR"
foot --override=font=monospace:size=10 sh -c "stty -echo; cat >$work/typed" &
wait_for grep -q '^update' "$VELLUM_MEMORY_TRACE"
# foot's shell is ready when the file is there
wait_for [ -e "$work/typed" ]
wtype ab -s 6000 ab -k Return &
typist=$!
sleep 1
kill -HUP $PPID
wait_for grep -q 'configuration reloaded' "$work/log"
wait $typist
wait_for grep -q . "$work/typed"
kill %1
SCRIPT
rm -f "$VELLUM_MEMORY_TRACE" "$VELLUM_MEMORY_PANEL" "$work/typed"
timeout 120 "$vellum" -d memory:${W}x${H} -c "$work/live.conf" -- bash "$work/type.sh" "$work" \
	2>"$work/log"
expect "wtype types the same keys before and after a reload ($(od -An -c "$work/typed" 2>/dev/null))" \
	[ "$(cat "$work/typed" 2>/dev/null)" = abab ]

tap_finish
