#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prints the path of a promtool (Prometheus's rule checker and rule unit
# tester) for the host tests of tools/monitoring: the one installed, or
# Debian's, taken from the prometheus package's archive into
# $ER2BC_CACHE/promtool/VERSION/ (the package itself is not installed: it
# would start a Prometheus server). Exit 1, saying why, if neither.
set -euo pipefail
. "$(dirname "$0")/vm/common.sh"

if command -v promtool >/dev/null; then
	command -v promtool
	exit 0
fi
candidate() { apt-cache policy prometheus 2>/dev/null | awk '/Candidate:/ { print $2 }'; }
ver=$(candidate)
# (a machine whose package lists were never fetched: once, as root)
if { [ -z "$ver" ] || [ "$ver" = "(none)" ]; } && [ "$(id -u)" = 0 ]; then
	apt-get -qq -o DPkg::Lock::Timeout=600 update >/dev/null 2>&1
	ver=$(candidate)
fi
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	echo "promtool.sh: Debian's archive offers no prometheus package (apt-get update as root)" >&2
	exit 1
fi
dir=$ER2BC_CACHE/promtool/${ver//[^A-Za-z0-9.+~-]/_}
if [ ! -x "$dir/promtool" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	if ! (cd "$tmp" && apt-get download "prometheus=$ver" >/dev/null 2>&1); then
		echo "promtool.sh: apt-get download prometheus=$ver failed" >&2
		exit 1
	fi
	mkdir -p "$tmp/x" "$dir"
	dpkg-deb --fsys-tarfile "$tmp"/prometheus_*.deb | tar -x -C "$tmp/x" ./usr/bin/promtool
	mv "$tmp/x/usr/bin/promtool" "$dir/promtool"
fi
echo "$dir/promtool"
