# SPDX-License-Identifier: MIT
# Sourced by test_apps.sh and the at-rest benchmark: real applications
# (Debian's cog, GTK's demos) under vellum -d preview:800x600 in a headless
# weston, each recorded with --record, and counts from its updates.txt.
# Needs setup.sh's $work and $XDG_RUNTIME_DIR.

APPS_PANEL=800x600

# apps_start_parent: weston's headless backend as the desktop; false when it
# does not come up
apps_start_parent() {
	weston --backend=headless --renderer=pixman --shell=kiosk --socket=parent \
		--width=1000 --height=800 --idle-time=0 >"$work/weston.log" 2>&1 &
	apps_parent_pid=$!
	local _
	for _ in $(seq 100); do
		[ -S "$XDG_RUNTIME_DIR/parent" ] && return 0
		sleep 0.1
	done
	return 1
}

apps_stop_parent() { kill "$apps_parent_pid" 2>/dev/null || true; }

# apps_write_pages: $work/field.html, a page with a focused input, and
# $work/spinner.html, the same with a CSS spinner below the input
apps_write_pages() {
	cat >"$work/field.html" <<'EOF'
<!DOCTYPE html>
<html><head><style>
body { background: #fff; color: #000; font: 24px sans-serif }
input { font: 24px sans-serif; width: 20em }
.spinner { width: 40px; height: 40px; margin: 40px; border: 6px solid #ccc;
	border-top-color: #000; border-radius: 50%; animation: turn 1s linear infinite }
@keyframes turn { to { transform: rotate(360deg) } }
</style></head>
<body><p>Search</p><input id="field" autofocus>
<script>document.getElementById("field").focus()</script></body></html>
EOF
	sed 's|<script>|<div class="spinner"></div><script>|' "$work/field.html" >"$work/spinner.html"
}

# apps_have PROGRAM...: whether every program is installed
apps_have() {
	local program
	for program in "$@"; do
		command -v "$program" >/dev/null || return 1
	done
}

# apps_start NAME VELLUM APP...: vellum on the preview panel running APP,
# recording into $work/NAME; the socket vellum gave APP is written to
# $work/NAME.display once APP starts
apps_start() {
	local name=$1 vellum=$2
	shift 2
	rm -rf "${work:?}/$name" "$work/$name.display"
	# WPE's sandbox needs namespaces a build root may not give
	WAYLAND_DISPLAY=parent WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS=1 GDK_BACKEND=wayland \
		"$vellum" -d "preview:$APPS_PANEL" --record "$work/$name" -- \
		sh -c 'echo "$WAYLAND_DISPLAY" >"$0"; exec "$@"' "$work/$name.display" "$@" \
		>"$work/$name.log" 2>&1 &
	apps_vellum_pid=$!
}

# apps_wait_started NAME: waits, up to a minute, until vellum has started
# NAME's application (a slow machine or a sanitizer build takes seconds)
apps_wait_started() {
	local i
	for ((i = 0; i < 600; i++)); do
		[ ! -s "$work/$1.display" ] || return 0
		sleep 0.1
	done
	return 1
}

# apps_stop: ends vellum (its recording is written on the way out)
apps_stop() {
	[ -n "${apps_vellum_pid:-}" ] || return 0
	kill "$apps_vellum_pid" 2>/dev/null || true
	wait "$apps_vellum_pid" 2>/dev/null || true
	apps_vellum_pid=
}

# apps_type NAME TEXT: types TEXT into the application of NAME; prints
# when, in the monotonic clock's nanoseconds, as updates.txt counts time
apps_type() {
	python3 -c 'import time; print(time.monotonic_ns())'
	WAYLAND_DISPLAY=$(cat "$work/$1.display") wtype "$2"
}

# apps_since NAME NS: seconds from NAME's first update to NS
apps_since() {
	awk -v ns="$2" 'NR == 1 { split($2, kv, "="); print (ns - kv[2]) / 1e9; exit }' \
		"$work/$1/updates.txt"
}

# apps_updates NAME FROM TO [FILTER]: the updates of NAME submitted from FROM
# to TO seconds after its first one, one per line as "t left top width
# height waveform flash", t in seconds; FILTER an awk condition on those
# fields ($1..$7)
apps_updates() {
	local file=$work/$1/updates.txt
	[ -f "$file" ] || return 0
	awk -v from="$2" -v to="$3" '
		{
			for (i = 1; i <= NF; i++) {
				split($i, kv, "=")
				f[kv[1]] = kv[2]
			}
			if (NR == 1)
				first = f["submit_ns"]
			t = (f["submit_ns"] - first) / 1e9
			if (t >= from && t < to)
				print t, f["left"], f["top"], f["width"], f["height"], f["waveform"], f["flash"]
		}' "$file" | awk "${4:-1}"
}

# apps_count NAME FROM TO [FILTER]: how many of those updates
apps_count() { apps_updates "$@" | wc -l; }

# awk conditions on apps_updates' lines
APPS_FLASH='$7 == 1'
# a flash of half the panel or more
APPS_PAGE_FLASH='$7 == 1 && $4 * $5 * 2 >= 800 * 600'
