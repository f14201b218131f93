#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages as an operator installs them: make deb, both
# installed into an image of this host (deb-image.sh: dpkg -i in a chroot,
# DKMS building natively for every kernel with headers), then for each
# kernel a guest that has its headers and nothing of er2bc takes the
# image's changes, runs a short smoke, removes the packages and checks
# nothing is left (deb-smoke-guest.sh).
#
#   test-deb.sh [--prebuilt] [KVER...]	(6.12 and 6.1 by default)
#
# --prebuilt: the packages make deb left in build/deb and the image
# deb-image.sh left in build/deb/image (make check makes both beside its
# other setup). Logs under $ER2BC_DEB_REPORT, by default
# build/check-deb. TAP per kernel; exits 1 if anything failed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
prebuilt=0
[ "${1:-}" = --prebuilt ] && { prebuilt=1; shift; }
[ $# -gt 0 ] || set -- 6.12 6.1
report=${ER2BC_DEB_REPORT:-$top/build/check-deb}
mkdir -p "$report"
rc=0
if [ $prebuilt = 0 ] && ! "$top/tools/packaging/deb.sh" >"$report/deb.log" 2>&1; then
	tail -n 20 "$report/deb.log"
	echo "not ok 1 - make deb # see $report/deb.log"
	exit 1
fi
if [ $prebuilt = 0 ] && ! "$top/tools/packaging/deb-image.sh" "$top/build/deb" "$top/build/deb/image" \
	>"$report/image.log" 2>&1; then
	tail -n 20 "$report/image.log"
	echo "not ok 1 - the packages installed into an image # see $report/image.log"
	exit 1
fi
if ! ls "$top"/build/deb/er2bc-dkms_*.deb "$top"/build/deb/er2bc-tools_*.deb >/dev/null 2>&1; then
	echo "not ok - no packages in $top/build/deb (make deb)"
	exit 1
fi
echo "ok - make deb: $(cd "$top/build/deb" && ls ./*.deb | grep -v dbgsym | xargs)"
for k in "$@"; do
	out=$report/$k
	rm -rf "$out"
	mkdir -p "$out"
	"$top/tools/testing/vm/run.sh" -k "$k" -o "$out" -t 900 -- \
		"$top/tools/packaging/deb-smoke-guest.sh" "$top/build/deb" "$top/build/deb/image" \
		>"$out/run.log" 2>&1
	r=$?
	sed "s/^/$k: /" "$out/deb-smoke.tap" 2>/dev/null
	if [ $r != 0 ] || ! grep -q '^1\.\.' "$out/deb-smoke.tap" 2>/dev/null; then
		echo "not ok - $k: the guest's smoke (exit $r; $out/run.log, $out/console.log)"
		rc=1
	fi
done
exit $rc
