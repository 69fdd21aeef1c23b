# SPDX-License-Identifier: MIT
# Sourced by the client tests: a scratch directory, $work, removed on exit,
# which holds the Wayland runtime directory and the memory panel's trace and
# image, so that vellum and its clients meet nothing of the caller's desktop;
# then TAP (tests/tap.sh) and the helpers the tests share.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR=$work/run
mkdir -m 700 "$XDG_RUNTIME_DIR"
unset WAYLAND_DISPLAY DISPLAY
export VELLUM_MEMORY_TRACE=$work/trace VELLUM_MEMORY_PANEL=$work/panel.pgm

# shellcheck source=../tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
VELLUM_TEST_WAIT_FOR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/wait-for.sh
export VELLUM_TEST_WAIT_FOR
# shellcheck source=wait-for.sh
source "$VELLUM_TEST_WAIT_FOR"

# value LINE NAME: the value of NAME= in LINE
value() { grep -o "\<$2=[^ ]*" <<<"$1" | head -n 1 | cut -d= -f2; }

# start_through_wrapper VAR...: in a cross build (VELLUM_TEST_WRAPPER, e.g.
# qemu-aarch64), each VAR naming a built program names instead a script
# that starts it through the wrapper, and so does every program beside it,
# which the tests find by their directory; vellum starts its application
# through such a script too, as the host cannot run ARM code of itself.
start_through_wrapper() {
	local var path dir program
	[ -n "${VELLUM_TEST_WRAPPER:-}" ] || return 0
	for var in "$@"; do
		path=${!var}
		[ -n "$path" ] || continue
		dir=$(cd "$(dirname "$path")" && pwd)
		if [ ! -d "$work/wrapped$dir" ]; then
			mkdir -p "$work/wrapped$dir"
			for program in "$dir"/*; do
				[ -f "$program" ] && [ -x "$program" ] || continue
				printf '#!/bin/sh\nexec %s %q "$@"\n' "$VELLUM_TEST_WRAPPER" "$program" \
					>"$work/wrapped$program"
				chmod +x "$work/wrapped$program"
			done
		fi
		printf -v "$var" '%s' "$work/wrapped$dir/$(basename "$path")"
	done
}
