#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Output scale on the in-process memory panel: the [panel] scale key, the
# default from the physical size the device reports, what wayland-info sees
# (wl_output, xdg-output, the fractional scale global), the logical size
# windows are configured to, dialogs at their scaled size, and a client of
# wp-fractional-scale-v1 whose buffer reaches the panel pixel for pixel,
# also rotated, and epaper-refresh-v1's modes over the scaled areas of
# refresh_client's rects. Prints TAP.
#
#   test_scale.sh VELLUM PROBE_CLIENT SCALE_PROBE REFRESH_CLIENT
set -u

vellum=$1
probe=$2
scale_probe=$3
refresh_client=$4
# shellcheck source=setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

# run_vellum DEVICE [SCALE] -- APP...: vellum on a fresh memory panel, with
# "scale = SCALE" in its config when given, and $extra_config after it;
# $status, $out as it ended.
extra_config=
run_vellum() {
	local device=$1
	shift
	: >"$work/vellum.conf"
	if [ "$1" != -- ]; then
		printf '[panel]\nscale = %s\n' "$1" >"$work/vellum.conf"
		shift
	fi
	printf '%b' "$extra_config" >>"$work/vellum.conf"
	rm -f "$VELLUM_MEMORY_PANEL" "$VELLUM_MEMORY_TRACE"
	out=$(timeout 120 "$vellum" -c "$work/vellum.conf" -d "$device" "$@" 2>&1)
	status=$?
}

# The pixels of the panel vellum left behind, one a line, row by row.
panel_pixels() {
	# P5, then "W H" and 255, each on a line of its own
	local header
	header=$(head -n 3 "$VELLUM_MEMORY_PANEL" | wc -c)
	od -An -v -tu1 -j "$header" "$VELLUM_MEMORY_PANEL" | tr -s ' ' '\n' | grep -v '^$'
}

# panel_at W X Y: the pixel at X,Y of a panel W pixels wide
panel_at() {
	panel_pixels | sed -n "$(($3 * $1 + $2 + 1))p"
}

# --- the scale key
run_vellum memory:800x600 2 -- wayland-info
expect "wayland-info runs at scale 2" [ "$status" = 0 ]
expect "... sees wp_fractional_scale_manager_v1" \
	grep -q "'wp_fractional_scale_manager_v1'" <<<"$out"
expect "... and wp_viewporter" grep -q "'wp_viewporter'" <<<"$out"
expect "... a wl_output of scale 2" grep -q "scale: 2," <<<"$out"
expect "... whose logical size is 400x300" \
	grep -q "logical_width: 400, logical_height: 300" <<<"$out"

# --- the default: about 96 logical pixels an inch, in quarters
run_vellum memory:1872x1404:209x157mm -- wayland-info
expect "a 10.3\" 1872x1404 panel reports its size" \
	grep -q "physical_width: 209 mm, physical_height: 157 mm" <<<"$out"
expect "... and gets scale 2.25 (227 dpi): 832x624 logical pixels" \
	grep -q "logical_width: 832, logical_height: 624" <<<"$out"
expect "... wl_output rounds it up, as wlroots does: 3" grep -q "scale: 3," <<<"$out"
run_vellum memory:1872x1404:209x157mm auto -- wayland-info
expect "scale = auto is the default" grep -q "logical_width: 832, logical_height: 624" <<<"$out"
run_vellum memory:1872x1404:209x157mm 1 -- wayland-info
expect "scale = 1 overrides it" grep -q "logical_width: 1872, logical_height: 1404" <<<"$out"
run_vellum memory:1872x1404 -- wayland-info
expect "a panel of unknown size gets scale 1" \
	grep -q "logical_width: 1872, logical_height: 1404" <<<"$out"
run_vellum memory:800x600:400x300mm -- wayland-info
expect "a coarse panel (51 dpi) is not scaled below 1" \
	grep -q "logical_width: 800, logical_height: 600" <<<"$out"

# --- windows get the logical size; a fractional scale client draws at the panel's
run_vellum memory:800x600 1.25 -- "$scale_probe"
expect "scale_probe ran at scale 1.25" [ "$status" = 0 ]
expect "... configured to the logical size, 640x480" grep -q "^configure 640x480$" <<<"$out"
expect "... told the fractional scale, 150/120" grep -q "^preferred_scale 150$" <<<"$out"
expect "... before its first frame, which it need not draw twice" \
	grep -q "^preferred_scale at configure 150$" <<<"$out"
expect "... drew an 800x600 buffer" grep -q "^buffer 800x600$" <<<"$out"
stripes() {
	panel_pixels | awk -v w="$1" -v rows="$2" '
		{ x = (NR - 1) % w; y = int((NR - 1) / w) }
		index(" " rows " ", " " y " ") { seen++; if ($1 != (x % 2 ? 0 : 255)) bad++ }
		END { exit !(seen == 3 * w && !bad) }'
}
expect "... which the panel shows pixel for pixel, every stripe" stripes 800 "0 300 599"

# rotated: the logical size turns, the stripes come out as rows of the panel
run_vellum memory:800x600 2 -r 90 -- "$scale_probe"
expect "rotated 90 at scale 2: configured 300x400" grep -q "^configure 300x400$" <<<"$out"
expect "... a 600x800 buffer" grep -q "^buffer 600x800$" <<<"$out"
alternating_rows() {
	panel_pixels | awk -v w=800 -v x="$1" '
		(NR - 1) % w == x { if (n && $1 == last) bad++; if ($1 != 0 && $1 != 255) bad++; last = $1; n++ }
		END { exit !(n == 600 && !bad) }'
}
expect "... the panel's rows alternate black and white" alternating_rows 400

# an application's refresh mode covers all its window on the panel, not the
# logical size of it: the block near the far corner is drawn with A2 (4), as
# the mode says, not DU (1), what black and white gets by default
extra_config='[app:scale_probe]\nmode = fast\n'
run_vellum memory:800x600 2 -- "$scale_probe"
extra_config=
expect "a window's mode at scale 2 reaches the panel's far corner" \
	grep -Eq "^update .* x=6[0-9][0-9] y=4[0-9][0-9] .* waveform=4 " "$VELLUM_MEMORY_TRACE"
expect "... no update is DU" eval '! grep -q " waveform=1 " "$VELLUM_MEMORY_TRACE"'

# epaper-refresh-v1 on a 1200x1600 panel turned 90 degrees, scale 2: each
# mode's rect, 80x80 logical pixels at X,Y, is one update of 160x160 panel
# pixels, at 2Y,1200-2(X+80), with the mode's waveform
declare -A waveform_id=([quality]=2 [text]=5 [fast]=4 [animation]=4 [auto]=1)
run_vellum memory:1600x1200 2 -r 90 -- "$refresh_client" modes
expect "refresh_client modes runs at scale 2, turned 90 degrees" [ "$status" = 0 ]
for mode in quality text fast animation auto; do
	line=$(grep "^mode $mode " <<<"$out")
	read -r x y w h < <(sed 's/.* x=\([0-9]*\) y=\([0-9]*\) width=\([0-9]*\) height=\([0-9]*\) .*/\1 \2 \3 \4/' <<<"$line")
	rect="x=$((2 * y)) y=$((1200 - 2 * (x + w))) width=$((2 * h)) height=$((2 * w))"
	expect "... mode $mode: one update of $rect, waveform ${waveform_id[$mode]}" \
		grep -q "^update .* $rect waveform=${waveform_id[$mode]} " "$VELLUM_MEMORY_TRACE"
done

# --- dialogs centred in the logical output, at their scaled size
run_vellum memory:800x600 2 -- "$probe" dialog 1
expect "probe_client showed a dialog at scale 2" [ "$status" = 0 ]
expect "... its 200x100 take 400x200 panel pixels, centred: left edge in" \
	[ "$(panel_at 800 205 300)" = 0 ]
expect "... left edge out" [ "$(panel_at 800 195 300)" = 255 ]
expect "... bottom edge in" [ "$(panel_at 800 400 395)" = 0 ]
expect "... bottom edge out" [ "$(panel_at 800 400 405)" = 255 ]
expect "the 50x50 subsurface at 10,10 takes 20..120" [ "$(panel_at 800 115 115)" = 0 ]
expect "... and no more" [ "$(panel_at 800 125 125)" = 255 ]

# --- errors
printf '[panel]\nscale = 0\n' >"$work/bad.conf"
out=$(timeout 20 "$vellum" -c "$work/bad.conf" --validate 2>&1)
status=$?
expect "scale = 0 fails --validate with FILE:LINE" \
	eval '[ "$status" = 1 ] && grep -q "bad.conf:2: invalid scale \"0\"" <<<"$out"'
out=$(timeout 20 "$vellum" -d memory:800x600:209mm -- true 2>&1)
status=$?
expect "a bad physical size in -d: status 1" [ "$status" = 1 ]
expect "... naming the syntax" grep -q "memory:WIDTHxHEIGHT:WIDTH_MMxHEIGHT_MMmm" <<<"$out"

tap_finish
