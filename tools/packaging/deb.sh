#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: the Debian packages er2bc-dkms and er2bc-tools (debian/), built
# with Debian's tooling from the files git knows in the working tree
# (committed or not, ignored ones left out), into build/deb; lintian runs
# on them, and any tag not explained in debian/*.lintian-overrides fails.
#
#   deb.sh [SUITE]
#
# SUITE (trixie: Debian 13) builds them for another release, in a chroot
# of its root file system (tools/testing/vm/mkroot.sh, under an overlay
# that goes with the build), with that release's compiler, libraries and
# lintian, into build/deb-SUITE: er2bc-tools links libssl and libmnl, so
# its Depends name the release's own.
#
# Each build is for one release and says so in its version: VERSION~debNN
# (NN the release's major number, 12 for this host's Debian 12), a
# changelog entry of its own on top of the tree's, as Debian's own
# rebuilds for a release do (~bpo). So both releases' packages can sit in
# one repository, and an upgrade from Debian 12 to 13 takes 13's (~deb12
# sorts before ~deb13, and both before a plain VERSION).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
suite=${1:-}

# release_entry NN CODENAME SRC: SRC's debian/changelog gets an entry for
# the build for Debian NN (CODENAME): VERSION~debNN
release_entry() {
	local nn=$1 codename=$2 src=$3 v
	v=$(cat "$src/VERSION")
	case "$nn" in
	*[!0-9]* | "") echo "deb: cannot tell the release's number ('$nn')" >&2; return 1 ;;
	esac
	{
		printf 'er2bc (%s~deb%s) %s; urgency=medium\n\n' "$v" "$nn" "$codename"
		printf '  * Built for Debian %s (%s).\n\n' "$nn" "$codename"
		printf ' -- er2bc developers <er2bc@users.noreply.github.com>  %s\n\n' "$(date -R)"
		cat "$src/debian/changelog"
	} >"$src/debian/changelog.new" && mv "$src/debian/changelog.new" "$src/debian/changelog"
}
out=$top/build/deb${suite:+-$suite}

if [ -z "$suite" ]; then
	# Debian's packaging tools and the build's libraries, nothing else
	# (make deps is for the tests and the demo)
	need=(build-essential debhelper dh-dkms dkms lintian libmnl-dev libssl-dev pkg-config)
	missing=()
	for p in "${need[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
			missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		[ "$(id -u)" = 0 ] || { echo "deb: missing ${missing[*]}: run as root to install them" >&2; exit 1; }
		echo "deb: installing ${missing[*]}"
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -y -qq install \
			--no-install-recommends "${missing[@]}" >/dev/null
	fi
else
	[ "$(id -u)" = 0 ] || { echo "deb: building for $suite needs root (a chroot under an overlay)" >&2; exit 1; }
	root=$("$top/tools/testing/vm/mkroot.sh" "$suite")
fi
rm -rf "$out"
mkdir -p "$out/src"
# (a file deleted but not yet committed is left out too)
(cd "$top" && git ls-files -co --exclude-standard -z |
	while IFS= read -r -d '' f; do
		if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
	done | tar --null -cf - -T -) |
	tar -xf - -C "$out/src"
if [ -n "$suite" ]; then
	# in the release's root under an overlay (the root is not written),
	# the tree to build bound at /build; lintian as nobody
	. "$top/tools/packaging/overlay.sh"
	release_entry "$(cut -d. -f1 "$root/etc/debian_version")" "$suite" "$out/src"
	echo "deb: building in $out/src for $suite (log: $out/build.log)"
	if ! in_overlay "$root" "$out" /build sh -c 'cd /build/src && dpkg-buildpackage -b -us -uc' \
		>"$out/build.log" 2>&1; then
		tail -n 30 "$out/build.log"
		echo "deb: dpkg-buildpackage failed in the $suite root (log: $out/build.log)" >&2
		exit 1
	fi
	echo "deb: lintian ($suite's)"
	in_overlay "$root" "$out" /build setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env HOME=/tmp sh -c 'lintian --fail-on warning,error --info /build/er2bc_*.changes'
	ls -1 "$out"/*.deb
	exit
fi
release_entry "$(cut -d. -f1 /etc/debian_version)" \
	"$(. /etc/os-release && echo "${VERSION_CODENAME:-unknown}")" "$out/src"
echo "deb: building in $out/src (log: $out/build.log)"
if ! (cd "$out/src" && dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log"
	echo "deb: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
fi
changes=$(ls "$out"/er2bc_*.changes)
echo "deb: lintian"
lintian --fail-on warning,error --info "$changes"
ls -1 "$out"/*.deb
