#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The application's environment is the one vellum(1) describes, on the
# memory panel and in the preview, without a VM: WAYLAND_DISPLAY is
# vellum's socket; DISPLAY is Xwayland's or unset, never the display vellum
# was started with (or the desktop's, for the preview); and what vellum
# sets in its own environment for wlroots (WLR_RENDERER for the preview,
# WLR_LIBINPUT_NO_DEVICES) reaches the application as vellum was given it.
# Prints TAP.
#
#   test_environment.sh VELLUM
set -u

vellum=$1
# shellcheck source=setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
start_through_wrapper vellum

# The application: one line with the variables, "unset" for those not set.
cat >"$work/show-env.sh" <<'SHOW'
printf 'env WAYLAND_DISPLAY=%s DISPLAY=%s WLR_RENDERER=%s WLR_LIBINPUT_NO_DEVICES=%s\n' \
	"${WAYLAND_DISPLAY-unset}" "${DISPLAY-unset}" "${WLR_RENDERER-unset}" \
	"${WLR_LIBINPUT_NO_DEVICES-unset}"
SHOW

# run_env [VELLUM OPTIONS]: vellum on the memory panel runs show-env.sh;
# $line is what it printed, $status vellum's exit status.
run_env() {
	out=$(timeout 120 "$vellum" "$@" -- sh "$work/show-env.sh" 2>&1)
	status=$?
	line=$(grep '^env ' <<<"$out" | head -n 1)
}

# is NAME VALUE: $line has NAME=VALUE
is() { [ "$(value "$line" "$1")" = "$2" ]; }

DISPLAY=:99 run_env --no-xwayland -d memory:200x150
expect "--no-xwayland: the application runs ($status)" [ "$status" = 0 ]
expect "... on vellum's socket ($line)" is WAYLAND_DISPLAY wayland-0
expect "... without DISPLAY, not the :99 vellum was started with" is DISPLAY unset
expect "... without anything vellum set for wlroots" \
	[ "$(value "$line" WLR_RENDERER)" = unset -a "$(value "$line" WLR_LIBINPUT_NO_DEVICES)" = unset ]

if command -v Xwayland >/dev/null; then
	DISPLAY=:99 run_env -d memory:200x150
	display=$(value "$line" DISPLAY)
	expect "with Xwayland: DISPLAY is Xwayland's ($display), not the :99 vellum was started with" \
		[ "$status" = 0 -a "$display" != :99 -a -n "${display#unset}" ]
else
	skip "with Xwayland: DISPLAY is Xwayland's" "Xwayland is not installed"
fi

WLR_RENDERER=pixman run_env --no-xwayland -d memory:200x150
expect "what vellum was given for wlroots reaches the application as given ($line)" \
	is WLR_RENDERER pixman

# The preview, in vellum on the memory panel as its desktop: the preview
# sets WLR_RENDERER=pixman for itself, and the desktop's DISPLAY (:99 here)
# is the desktop's. In preview.sh the parent is already vellum's client.
cat >"$work/preview.sh" <<PREVIEW
DISPLAY=:99 "$vellum" --no-xwayland -d preview:200x150 -- sh "$work/show-env.sh"
PREVIEW
out=$(timeout 120 "$vellum" --no-xwayland -d memory:400x300 -- sh "$work/preview.sh" 2>&1)
status=$?
line=$(grep '^env ' <<<"$out" | head -n 1)
expect "-d preview: the application runs ($status)" [ "$status" = 0 -a -n "$line" ]
expect "... on the preview's own socket, not the desktop's ($line)" is WAYLAND_DISPLAY wayland-1
expect "... without the desktop's DISPLAY" is DISPLAY unset
expect "... without the WLR_RENDERER the preview set for itself" is WLR_RENDERER unset

tap_finish
