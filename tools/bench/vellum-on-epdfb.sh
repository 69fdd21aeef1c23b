#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# vellum's RSS and wake-ups with foot on epdfb at its default 1872x1404, in
# the VM that tools/bench/run boots: tools/bench/vellum.sh on the device.
#
#   tools/vmtest --results DIR tools/bench/vellum-on-epdfb.sh
set -euo pipefail
repo_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# a benchmark before this one may have left the driver loaded at another size
rmmod epdfb 2>/dev/null || true
# the panel model epdfb needs
[ -d /sys/module/epdpanel ] || insmod "$repo_dir/kernel/epdpanel.ko"
insmod "$repo_dir/kernel/epdfb.ko" time_scale=20
trap 'rmmod epdfb' EXIT
fb=
for name in /sys/class/graphics/fb*/name; do
	if [ "$(cat "$name")" = epdfb ]; then
		fb=/dev/$(basename "$(dirname "$name")")
	fi
done
[ -n "$fb" ] || {
	echo "vellum-on-epdfb: epdfb loaded, but no framebuffer of it" >&2
	exit 1
}
# foot starts in seconds under emulation, not in a moment
VELLUM_BENCH_SETTLE_S=30 "$repo_dir/tools/bench/vellum.sh" "$repo_dir/build" "$fb"
