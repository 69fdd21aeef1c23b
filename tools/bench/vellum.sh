#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# vellum's figures at 1872x1404: client commit to update submitted (a full
# frame, one typed character), peak RSS with foot running and its RSS, PSS
# and USS then, and vellum's wake-ups over 10 s of a static screen.
#
#   tools/bench/vellum.sh BUILD_DIR [DEVICE]
#
# DEVICE is the memory panel at 1872x1404 unless given; for foot it is a
# 10.3" panel (209x157 mm), at that panel's default scale (2.25) as epdfb
# is, which says its size. On an epdfb device
# (/dev/fbN, see tools/bench/vellum-on-epdfb.sh) only the RSS and wake-up
# figures: the commit times come from the memory panel's trace. The memory
# panel keeps its framebuffer and its panel in vellum's own memory (5.3 MB
# at this size); epdfb keeps them in the kernel, as a device does.
# VELLUM_BENCH_SETTLE_S is how long foot gets to show its text and the idle
# cleanup to pass (default 6 s; the VM needs more).
set -euo pipefail

build=$(cd "$1" && pwd)
device=${2:-memory:1872x1404}
rss_device=${2:-memory:1872x1404:209x157mm}
settle_s=${VELLUM_BENCH_SETTLE_S:-6}
vellum=$build/compositor/vellum
client=$build/tests/clients/probe_client
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR=$work/run
mkdir -m 700 "$XDG_RUNTIME_DIR"
export VELLUM_MEMORY_TRACE=$work/trace

# commit_to_update KIND: median and worst microseconds from each commit to the
# update that carried it (the trace's first line is the window's first frame).
commit_to_update() {
	rm -f "$work/trace"
	"$vellum" -d "$device" -- "$client" "$1" 200 >"$work/commits" 2>/dev/null
	paste <(grep -o 'ns=[0-9]*' "$work/commits" | cut -d= -f2) \
		<(grep -o 'ns=[0-9]*' "$work/trace" | tail -n +2 | cut -d= -f2) |
		awk '$2 != "" { print ($2 - $1) / 1000 }' | sort -n |
		awk '{ v[NR] = $1 } END { printf "%d commits: median %.0f us, worst %.0f us\n", NR, v[int((NR + 1) / 2)], v[NR] }'
}

echo "vellum on $device"
if [[ $device == memory:* ]]; then
	echo "client commit -> update submitted, full frame: $(commit_to_update full)"
	echo "client commit -> update submitted, one character: $(commit_to_update char)"
fi

# foot with a screen of text; the script reads vellum's figures from /proc.
cat >"$work/probe.sh" <<SCRIPT
settle_s=$settle_s
SCRIPT
cat >>"$work/probe.sh" <<'SCRIPT'
vellum=$PPID
foot --override=font=monospace:size=12 sh -c 'seq 1 60; sleep 600' &
foot=$!
# the first frame, then the idle cleanup 2 s after it: then all is still
sleep "$settle_s"
switches() {
	cat /proc/$vellum/task/*/status | awk '/ctxt_switches/ { n += $2 } END { print n }'
}
before=$(switches)
sleep 10
after=$(switches)
echo "wake-ups of vellum's threads over 10 s of a static screen: $((after - before)) (goal 0)"
echo "peak RSS of vellum with foot running: $(awk '/VmHWM/ { printf "%.1f MB", $2 / 1024 }' /proc/$vellum/status) (goal <= 40 MB)"
# RSS counts pages shared with clients (their shm buffers) in full, PSS
# shares them out among the processes mapping them, USS is vellum's alone.
awk '/^Rss:/ { rss = $2 } /^Pss:/ { pss = $2 } /^Private_(Clean|Dirty):/ { uss += $2 }
	END { printf "  now: RSS %.1f MB, PSS %.1f MB, USS %.1f MB\n", rss / 1024, pss / 1024, uss / 1024 }' \
	/proc/$vellum/smaps_rollup
# clients' shm buffers are mapped into vellum and count in its RSS
awk '/RssAnon|RssFile|RssShmem/ { printf "  now %s %.1f MB\n", $1, $2 / 1024 }' /proc/$vellum/status
awk '/^[0-9a-f]+-[0-9a-f]+ / { name = $6 }
	/^Rss:/ { if (name ~ /^\/memfd:/ && name !~ /wlroots/) clients += $2; else own += $2 }
	END { printf "  now: clients'"'"' shm buffers %.1f MB, vellum'"'"'s own %.1f MB\n", clients / 1024, own / 1024 }' \
	/proc/$vellum/smaps
# vellum's own: its output buffer (wlroots' shm), its heap and anonymous
# maps (gray shadows, the memory panel), the framebuffer it maps, libraries
awk '/^[0-9a-f]+-[0-9a-f]+ / {
		name = $6
		if (name ~ /wlroots/) kind = "output buffers (wlroots shm)"
		else if (name ~ /^\/memfd:/) kind = ""
		else if (name ~ /^\/dev\/(fb|dri)/) kind = "the device'"'"'s framebuffer"
		else if (name ~ /\.so/) kind = "libraries"
		else kind = "heap, stacks, anonymous maps"
	}
	/^Rss:/ && kind != "" { own[kind] += $2 }
	END { for (k in own) printf "    %s %.1f MB\n", k, own[k] / 1024 }' /proc/$vellum/smaps | sort
kill $foot
SCRIPT
echo "vellum on $rss_device, foot in it"
"$vellum" --no-xwayland -d "$rss_device" -- bash "$work/probe.sh" 2>/dev/null || true
if [[ $rss_device =~ ^memory:([0-9]+)x([0-9]+) ]]; then
	echo "  of which the memory panel's framebuffer and panel, in the kernel on a device:" \
		"$(awk -v w="${BASH_REMATCH[1]}" -v h="${BASH_REMATCH[2]}" 'BEGIN { printf "%.1f MB", 2 * w * h / 1048576 }')"
fi
