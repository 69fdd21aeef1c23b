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

# value LINE NAME: the value of NAME= in LINE
value() { grep -o "\<$2=[^ ]*" <<<"$1" | head -n 1 | cut -d= -f2; }
