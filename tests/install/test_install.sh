#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the build into a DESTDIR, as a package build does, and checks the
# exact list of installed files: vellum, its man pages, epdfb(4), epdrm(4),
# the example configuration and kiosk unit, the example clients and their man pages, the
# udev rule for IT8951 boards (which udevadm must find valid). The
# installed vellum must run, its man page must document every option of
# `vellum -h`, and the unit must start the installed vellum as an
# unprivileged user. The example clients run too, and their man pages
# document their options. Prints TAP.
#
#   test_install.sh BUILD_DIR PREFIX BINDIR MANDIR DATADIR VERSION man|no-man
set -u

build_dir=$1 prefix=$2 bindir=$3 mandir=$4 datadir=$5 version=$6 man=$7
destdir=$(mktemp -d)
trap 'rm -rf "$destdir"' EXIT
# Meson's directory options are relative to the prefix unless absolute.
under_prefix() {
	case $1 in
	/*) echo "$1" ;;
	*) echo "$prefix/$1" ;;
	esac
}
bindir=$(under_prefix "$bindir")
mandir=$(under_prefix "$mandir")
datadir=$(under_prefix "$datadir")
examples=$datadir/doc/vellum/examples

# shellcheck source=../tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

if out=$(meson install -C "$build_dir" --no-rebuild --destdir "$destdir" 2>&1); then
	ok "meson install --destdir"
else
	mapfile -t lines <<<"$out"
	not_ok "meson install --destdir" "${lines[@]}"
fi

clients=(epaper-clock epaper-reader epaper-paint)
expected=(
	"$bindir/vellum"
	"${clients[@]/#/$bindir/}"
	"$examples/vellum.conf"
	"$examples/vellum-kiosk.service"
	"$datadir/vellum/protocols/epaper-refresh-v1.xml"
	"$datadir/pkgconfig/vellum-protocols.pc"
	"$prefix/lib/udev/rules.d/70-vellum-it8951.rules"
)
if [ "$man" = man ]; then
	expected+=("$mandir/man1/vellum.1" "$mandir/man4/epdfb.4" "$mandir/man4/epdrm.4"
		"$mandir/man5/vellum.conf.5")
	for client in "${clients[@]}"; do
		expected+=("$mandir/man1/$client.1")
	done
else
	echo "# scdoc was not found: no man pages are built"
fi
listing=$(diff <(printf '%s\n' "${expected[@]}" | sort) \
	<(cd "$destdir" && find . ! -type d | sed 's|^\.||' | sort))
if [ -z "$listing" ]; then
	ok "exactly the expected files are installed"
else
	mapfile -t lines <<<"$listing"
	not_ok "exactly the expected files are installed" "expected (<) and installed (>):" \
		"${lines[@]}"
fi

vellum=$destdir$bindir/vellum
out=$("$vellum" --version 2>&1)
if [ "$out" = "vellum $version" ]; then
	ok "the installed vellum runs: $out"
else
	not_ok "the installed vellum runs" "vellum --version printed: $out"
fi

if [ "$man" = man ]; then
	# The terms of the OPTIONS section, as scdoc writes them in bold.
	options=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$destdir$mandir/man1/vellum.1" 2>/dev/null)
	missing=()
	for option in $("$vellum" -h | grep -o -- '^  \+-[-a-zA-Z]*\(, --[-a-z]*\)\?' | tr -d ','); do
		grep -qF "\\fB$option\\fR" <<<"$options" || missing+=("$option")
	done
	if [ "${#missing[@]}" -eq 0 ] && [ -n "$options" ]; then
		ok "vellum(1) documents every option of vellum -h"
	else
		not_ok "vellum(1) documents every option of vellum -h" \
			"not in its OPTIONS section: ${missing[*]}"
	fi
fi

# Clients find the protocol as they find wayland-protocols'.
pkgdatadir=$(PKG_CONFIG_PATH=$destdir$datadir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$destdir \
	pkg-config --variable=pkgdatadir vellum-protocols 2>&1)
if [ -f "$pkgdatadir/epaper-refresh-v1.xml" ]; then
	ok "vellum-protocols.pc's pkgdatadir holds epaper-refresh-v1.xml"
else
	not_ok "vellum-protocols.pc's pkgdatadir holds epaper-refresh-v1.xml" "pkgdatadir: $pkgdatadir"
fi

for client in "${clients[@]}"; do
	if out=$("$destdir$bindir/$client" --help 2>&1) && grep -q "^Usage: $client " <<<"$out"; then
		ok "the installed $client runs: --help"
	else
		not_ok "the installed $client runs: --help" "$out"
	fi
	[ "$man" = man ] || continue
	options=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$destdir$mandir/man1/$client.1" 2>/dev/null)
	missing=()
	for option in $(grep -o -- '^  -[a-z], --[a-z]*' <<<"$out" | tr -d ','); do
		grep -qF "\\fB$option\\fR" <<<"$options" || missing+=("$option")
	done
	if [ "${#missing[@]}" -eq 0 ] && [ -n "$options" ]; then
		ok "$client(1) documents every option of $client --help"
	else
		not_ok "$client(1) documents every option of $client --help" \
			"not in its OPTIONS section: ${missing[*]}"
	fi
done

rule=$destdir$prefix/lib/udev/rules.d/70-vellum-it8951.rules
if ! command -v udevadm >/dev/null; then
	ok "the IT8951 udev rule # SKIP without udevadm"
elif out=$(udevadm verify --no-summary "$rule" 2>&1) &&
	grep -q 'SUBSYSTEM=="scsi_generic".*ATTRS{idVendor}=="048d", ATTRS{idProduct}=="8951", GROUP="video"' "$rule"; then
	ok "the IT8951 udev rule gives the video group the board's sg node, and udevadm finds it valid"
else
	not_ok "the IT8951 udev rule gives the video group the board's sg node, and udevadm finds it valid" "$out"
fi

unit=$destdir$examples/vellum-kiosk.service
exec_start=$(sed -n 's/^ExecStart=//p' "$unit" 2>/dev/null)
if [[ $exec_start == "$bindir/vellum -- "* ]]; then
	ok "the kiosk unit runs the installed vellum: $exec_start"
else
	not_ok "the kiosk unit runs the installed vellum" "ExecStart=$exec_start"
fi
user=$(sed -n 's/^User=//p' "$unit" 2>/dev/null)
if [ -n "$user" ] && [ "$user" != root ] && [ "$user" != 0 ] &&
	grep -qx 'PAMName=login' "$unit" && grep -qx 'TTYPath=/dev/tty[0-9]*' "$unit"; then
	ok "... as the unprivileged user $user, in a logind session on a VT"
else
	not_ok "... as an unprivileged user, in a logind session on a VT" "User=$user"
fi
if [ -f "$unit" ] && command -v systemd-analyze >/dev/null; then
	# A copy that starts the vellum in the DESTDIR: systemd-analyze checks
	# the directives and that the command can run.
	mkdir "$destdir/verify"
	sed "s|^ExecStart=|ExecStart=$destdir|" "$unit" >"$destdir/verify/vellum-kiosk.service"
	# It only warns of unknown keys: any message fails.
	if out=$(SYSTEMD_LOG_TARGET=console systemd-analyze verify --man=no "$destdir/verify/vellum-kiosk.service" 2>&1) &&
		[ -z "$out" ]; then
		ok "systemd-analyze verify accepts the unit"
	else
		mapfile -t lines <<<"$out"
		not_ok "systemd-analyze verify accepts the unit" "${lines[@]}"
	fi
fi

tap_finish
