#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Real applications at rest on the preview panel (800x600, the default
# configuration), from the updates --record wrote:
#   - cog (WPE WebKit) on a local page with a focused input: once its caret
#     is held, the panel is sent nothing for it and nothing flashes;
#   - cog on the same page with a CSS spinner: the spinner goes at its paced
#     rate (one update a second) and never flashes, the caret beside it is
#     held, and a key typed into the field is a small update of its own,
#     apart from the spinner;
#   - gtk3-demo's entry_buffer demo, a main window and a dialog over it in
#     its first second: one full-panel flash in all, no flash once started,
#     and the dialog's black frame on the panel;
#   - gtk4-widget-factory, spinners and a pulsing progress bar: no flash
#     while they run.
# A case whose application is not installed is skipped. Prints TAP.
#
#   test_apps.sh VELLUM
set -u

vellum=$1
# shellcheck source=setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
# shellcheck source=apps.sh
source "$(dirname "${BASH_SOURCE[0]}")/apps.sh"
start_through_wrapper vellum

if ! apps_start_parent; then
	not_ok "weston's headless backend runs as the desktop" "$(tail -5 "$work/weston.log")"
	tap_finish
	exit
fi
trap 'apps_stop; apps_stop_parent; rm -rf "$work"' EXIT

apps_write_pages

# report NAME CONDITION... : ok NAME when CONDITION holds, else not ok with
# the recorded updates of $case (at most 20) as the detail
report() {
	local name=$1
	shift
	if "$@"; then
		ok "$name"
	else
		local line details=()
		while IFS= read -r line; do details+=("$line"); done < <(apps_updates "$case" 0 100 | head -20)
		not_ok "$name" "${details[@]}"
	fi
}

if apps_have cog; then
	apps_start caret "$vellum" cog "file://$work/field.html"
	sleep 14
	apps_stop
	updates=$(apps_count caret 0 100)
	expect "cog: the recording holds the page's updates ($updates)" [ "$updates" -ge 2 ]
	case=caret
	rest=$(apps_count caret 8 100)
	rest_flashes=$(apps_count caret 8 100 "$APPS_FLASH")
	# the held caret's cell may be redrawn once, without a flash
	[ "$rest" -le 1 ] && [ "$rest_flashes" = 0 ]
	report "cog: a focused field's caret costs nothing at rest ($rest updates in the last 6 s)" \
		[ $? = 0 ]
	expect "cog: its start costs one full-panel flash" \
		[ "$(apps_count caret 0 100 "$APPS_PAGE_FLASH")" = 1 ]

	apps_start spinner "$vellum" cog "file://$work/spinner.html"
	# the caret's blinking is held once seen for a while: counted from cog's start
	apps_wait_started spinner
	sleep 16
	key_ns=$(apps_type spinner a)
	sleep 4
	apps_stop
	key=$(apps_since spinner "$key_ns")
	paced=$(apps_count spinner 4 "$key" '$2 + $4 > 47')
	caret_before_key=$(apps_count spinner "$(awk -v k="$key" 'BEGIN { print k - 3 }')" "$key" \
		'$2 < 40')
	span=$(awk -v k="$key" 'BEGIN { print k - 4 }')
	flashes=$(apps_count spinner 4 "$key" "$APPS_FLASH")
	case=spinner
	# one update a second, and a second's slack at each end
	report "cog: a CSS spinner goes at its paced rate ($paced updates in ${span} s)" \
		awk -v n="$paced" -v s="$span" 'BEGIN { exit !(n >= 2 && n <= s + 2) }'
	report "cog: the spinner never flashes ($flashes)" [ "$flashes" = 0 ]
	report "cog: the field's caret beside the spinner is held ($caret_before_key updates in 3 s)" \
		[ "$caret_before_key" = 0 ]
	# the key's update: not the spinner's A2, small, and not reaching it
	typed=$(apps_updates spinner "$key" "$(awk -v k="$key" 'BEGIN { print k + 1.5 }')" \
		'$6 != "A2"')
	[ -n "$typed" ] && awk '$4 * $5 > 64 * 64 || $2 + $4 > 47 { exit 1 }' <<<"$typed"
	report "cog: a key typed beside the spinner is a small update of its own" [ $? = 0 ]
else
	skip "cog: a focused field at rest" "cog is not installed"
fi

if apps_have gtk3-demo; then
	apps_start entry "$vellum" gtk3-demo --run=entry_buffer
	sleep 8
	apps_stop
	page_flashes=$(apps_count entry 0 100 "$APPS_PAGE_FLASH")
	expect "gtk3-demo: a main window and a dialog cost one full-panel flash ($page_flashes)" \
		[ "$page_flashes" = 1 ]
	case=entry
	later_flashes=$(apps_count entry 2 100 "$APPS_FLASH")
	report "gtk3-demo: nothing flashes once it has started ($later_flashes)" [ "$later_flashes" = 0 ]
	# the dialog is centred: its frame crosses the middle row at either side
	python3 - "$work/entry/panel.pgm" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()
fields = data.split(maxsplit=4)
width, height = int(fields[1]), int(fields[2])
pixels = fields[4]
row = pixels[(height // 2) * width:(height // 2 + 1) * width]
dark = [x for x in range(width) if row[x] < 48]
# the frame: a dark run of at least 2 pixels left of the middle and right of it
runs = []
for x in dark:
    if runs and runs[-1][1] == x - 1:
        runs[-1][1] = x
    else:
        runs.append([x, x])
left = [r for r in runs if r[1] < width // 2 and r[1] - r[0] >= 1]
right = [r for r in runs if r[0] > width // 2 and r[1] - r[0] >= 1]
sys.exit(0 if left and right and left[0][0] > 0 and right[-1][1] < width - 1 else 1)
EOF
	verdict "gtk3-demo: the dialog's black frame is on the panel"
else
	skip "gtk3-demo: a main window and a dialog" "gtk3-demo is not installed"
fi

if apps_have gtk4-widget-factory; then
	apps_start factory "$vellum" gtk4-widget-factory
	sleep 16
	apps_stop
	flashes=$(apps_count factory 4 100 "$APPS_FLASH")
	updates=$(apps_count factory 4 100)
	# its pulsing progress bar's block slides along the trough: each cell
	# changes only as the block passes, the trough at every frame
	if [ "$flashes" = 0 ]; then
		ok "gtk4-widget-factory: its spinners and progress bar never flash"
	else
		not_ok "gtk4-widget-factory: its spinners and progress bar never flash" \
			"$flashes flashes in 12 s"
	fi
	# three animated areas at one update a second each, and slack
	if [ "$updates" -le 45 ]; then
		ok "gtk4-widget-factory: its animations are paced ($updates updates in 12 s)"
	else
		todo "gtk4-widget-factory: its animations are paced ($updates updates in 12 s)" \
			"the progress bar's block is drawn apart as it enters cells of a new pass"
	fi
else
	skip "gtk4-widget-factory at rest" "gtk4-widget-factory is not installed"
fi

tap_finish
