#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The mirror tools/buildroot creates a root from: the host's first Debian
# archive in its apt sources, in the one-line and the deb822 format, through
# sample apt directories (VELLUM_APT_DIR); deb.debian.org without one;
# VELLUM_MIRROR over everything. Prints TAP.
#
#   test_buildroot_mirror.sh BUILDROOT
set -u

buildroot=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=../tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

# mirror_of DIR: what tools/buildroot picks with DIR as the apt directory
mirror_of() {
	env -u VELLUM_MIRROR VELLUM_APT_DIR="$1" "$buildroot" mirror
}

# expect_mirror NAME DIR WANT
expect_mirror() {
	local got
	got=$(mirror_of "$2" 2>&1)
	if [ "$got" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "expected $3" "got $got"
	fi
}

# --- the one-line format: comments, deb-src, options, security and updates first
dir=$work/one-line
mkdir -p "$dir/sources.list.d"
cat >"$dir/sources.list" <<'SOURCES'
# deb http://commented.example/debian trixie main
deb-src http://source.example/debian trixie main
deb http://security.example/debian-security trixie-security main
deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://updates.example/debian trixie-updates main
deb [ arch=amd64 ] http://mirror.example/debian/ trixie main contrib
deb http://second.example/debian trixie main
SOURCES
expect_mirror "one-line: the first Debian archive, not security or updates" "$dir" \
	http://mirror.example/debian

# --- deb822: a disabled stanza, comments, security, fields in another order and case
dir=$work/deb822
mkdir -p "$dir/sources.list.d"
cat >"$dir/sources.list.d/debian.sources" <<'SOURCES'
# the installer's sources
Types: deb
URIs: http://disabled.example/debian
Suites: trixie
Components: main
Enabled: no

Types: deb deb-src
# a comment inside a stanza
suites: bookworm-security
uris: http://security.example/debian-security
components: main

Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBGQ
 -----END PGP PUBLIC KEY BLOCK-----
Components: main contrib
Suites: bookworm-updates bookworm
URIs: http://mirror.example/debian/
Types: deb
SOURCES
expect_mirror "deb822: the first enabled archive's suite, not updates or security" "$dir" \
	http://mirror.example/debian

# --- sources.list.d in name order; a vendor's repository and Ubuntu do not count
dir=$work/parts
mkdir -p "$dir/sources.list.d"
: >"$dir/sources.list"
echo "deb https://vendor.example/linux/debian trixie stable" >"$dir/sources.list.d/a-vendor.list"
echo "deb http://archive.example/ubuntu noble main" >"$dir/sources.list.d/b-ubuntu.list"
printf 'Types: deb\nURIs: http://nodistro.example/node\nSuites: nodistro\nComponents: main\n' \
	>"$dir/sources.list.d/c-node.sources"
printf 'Types: deb\nURIs: http://mirror.example/debian\nSuites: sid\nComponents: main\n' \
	>"$dir/sources.list.d/d-debian.sources"
echo "deb http://later.example/debian sid main" >"$dir/sources.list.d/e-debian.list"
printf 'deb http://disabled.example/debian trixie main\n' >"$dir/sources.list.d/f.list.disabled"
expect_mirror "sources.list.d: the first Debian archive in name order" "$dir" \
	http://mirror.example/debian

# --- apt's mirror method: the first mirror of its list
dir=$work/mirror-method
mkdir -p "$dir/sources.list.d"
printf 'http://mirror.example/debian\tpriority:1\nhttp://second.example/debian\n' >"$dir/mirrors"
printf 'Types: deb\nURIs: mirror+file://%s/mirrors\nSuites: trixie\nComponents: main\n' "$dir" \
	>"$dir/sources.list.d/debian.sources"
expect_mirror "mirror+file: the first mirror of the list" "$dir" http://mirror.example/debian

# --- no Debian archive: deb.debian.org
dir=$work/ubuntu
mkdir -p "$dir/sources.list.d"
echo "deb http://archive.example/ubuntu noble main" >"$dir/sources.list"
expect_mirror "only Ubuntu's archive: deb.debian.org" "$dir" http://deb.debian.org/debian
expect_mirror "no apt directory: deb.debian.org" "$work/none" http://deb.debian.org/debian
dir=$work/empty
mkdir -p "$dir/sources.list.d"
expect_mirror "an empty apt directory: deb.debian.org" "$dir" http://deb.debian.org/debian

# --- VELLUM_MIRROR over the host's sources
got=$(VELLUM_MIRROR=http://override.example/debian VELLUM_APT_DIR=$work/one-line \
	"$buildroot" mirror)
expect "VELLUM_MIRROR wins over the host's sources" [ "$got" = http://override.example/debian ]

tap_finish
