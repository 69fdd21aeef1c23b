#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Real applications at rest: each runs under vellum -d preview:800x600 in a
# headless weston with the default configuration (as tests/clients/test_apps.sh
# does), untouched, for SECONDS (default 65); the panel's updates and
# flashes per minute are counted from --record's updates.txt after the first
# 5 s (the start), and the start's full-panel flashes (the first 5 s).
#
#   tools/bench/at-rest.sh BUILD_DIR [SECONDS]
#
# Rows: cog on a page with a focused field, the same with a CSS spinner,
# gtk3-demo's entry_buffer (a main window and a dialog, caret blinking),
# gtk4-demo, gtk4-widget-factory and gtk3-widget-factory (spinners and a
# pulsing progress bar). Goals: a caret at most 2 updates a minute and no
# flash; an animation at most 60 a minute and no flash while it runs.
set -euo pipefail

build=$(cd "$1" && pwd)
seconds=${2:-65}
vellum=$build/compositor/vellum
tests_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../tests/clients" && pwd)
# shellcheck source=../../tests/clients/setup.sh
source "$tests_dir/setup.sh"
# shellcheck source=../../tests/clients/apps.sh
source "$tests_dir/apps.sh"
apps_start_parent || {
	echo "weston's headless backend did not start" >&2
	exit 1
}
trap 'apps_stop; apps_stop_parent; rm -rf "$work"' EXIT

apps_write_pages

# row NAME LABEL APP...: one application's line of the table
row() {
	local name=$1 label=$2
	shift 2
	if ! apps_have "$1"; then
		printf '| %s | not installed | | |\n' "$label"
		return
	fi
	apps_start "$name" "$vellum" "$@"
	sleep "$seconds"
	apps_stop
	local rest=$((seconds - 5))
	awk -v label="$label" -v s="$rest" \
		-v updates="$(apps_count "$name" 5 1000)" \
		-v flashes="$(apps_count "$name" 5 1000 "$APPS_FLASH")" \
		-v start="$(apps_count "$name" 0 5 "$APPS_PAGE_FLASH")" \
		'BEGIN { printf "| %s | %.0f | %.1f | %d |\n", label, updates * 60 / s, flashes * 60 / s, start }'
}

echo "at rest on preview:$APPS_PANEL, ${seconds} s each, counted after the first 5 s:"
echo "| application | updates/min | flashes/min | full-panel flashes at start |"
echo "| --- | --- | --- | --- |"
row field "cog, a focused field" cog "file://$work/field.html"
row spinner "cog, a focused field and a CSS spinner" cog "file://$work/spinner.html"
row entry "gtk3-demo --run=entry_buffer" gtk3-demo --run=entry_buffer
row demo4 "gtk4-demo" gtk4-demo
row factory4 "gtk4-widget-factory" gtk4-widget-factory
row factory3 "gtk3-widget-factory" gtk3-widget-factory
