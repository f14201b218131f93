#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages as an operator installs them: make deb, both
# installed into an image of this host (deb-image.sh: dpkg -i in a chroot,
# DKMS building natively for every kernel with headers), then for each
# kernel a guest that has its headers and nothing of er2bc takes the
# image's changes, runs a short smoke, removes the packages and checks
# nothing is left (deb-smoke-guest.sh). For trixie the same with Debian
# 13's: the packages built in its root (deb.sh trixie), installed into an
# image of that root, and the guest Debian 13's kernel on it.
#
#   test-deb.sh [--prebuilt] [KVER...]	(6.12, 6.1 and trixie by default)
#
# --prebuilt: the packages make deb left in build/deb (build/deb-trixie)
# and the image deb-image.sh left in its image/ (make check makes both
# beside its other setup). Logs under $ER2BC_DEB_REPORT, by default
# build/check-deb. TAP per kernel; exits 1 if anything failed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# (one week of roots for the build and the guest)
. "$top/tools/testing/vm/common.sh"
prebuilt=0
[ "${1:-}" = --prebuilt ] && { prebuilt=1; shift; }
[ $# -gt 0 ] || set -- 6.12 6.1 trixie
report=${ER2BC_DEB_REPORT:-$top/build/check-deb}
mkdir -p "$report"
rc=0
# debs_of KVER: the directory of the packages KVER's guest installs
debs_of() { if [ "$1" = trixie ]; then echo "$top/build/deb-trixie"; else echo "$top/build/deb"; fi; }
# the packages and their image for each release the kernels need
suites=$(for k in "$@"; do if [ "$k" = trixie ]; then echo trixie; else echo host; fi; done | sort -u)
for s in $suites; do
	arg= root_arg=()
	if [ "$s" = trixie ]; then
		arg=trixie
		root_arg=(--root "$("$top/tools/testing/vm/mkroot.sh" trixie)") || {
			echo "not ok - the Debian 13 root (mkroot.sh trixie)"; exit 1; }
	fi
	debs=$(debs_of "${arg:-host}")
	if [ $prebuilt = 0 ] && ! "$top/tools/packaging/deb.sh" $arg >"$report/deb$arg.log" 2>&1; then
		tail -n 20 "$report/deb$arg.log"
		echo "not ok 1 - make deb ${arg} # see $report/deb$arg.log"
		exit 1
	fi
	if [ $prebuilt = 0 ] && ! "$top/tools/packaging/deb-image.sh" "${root_arg[@]}" "$debs" "$debs/image" \
		>"$report/image$arg.log" 2>&1; then
		tail -n 20 "$report/image$arg.log"
		echo "not ok 1 - the packages installed into an image ${arg} # see $report/image$arg.log"
		exit 1
	fi
	if ! ls "$debs"/er2bc-dkms_*.deb "$debs"/er2bc-tools_*.deb >/dev/null 2>&1; then
		echo "not ok - no packages in $debs (tools/packaging/deb.sh $arg)"
		exit 1
	fi
	echo "ok - make deb${arg:+ for $arg}: $(cd "$debs" && ls ./*.deb | grep -v dbgsym | xargs)"
done
for k in "$@"; do
	out=$report/$k
	debs=$(debs_of "$k")
	rm -rf "$out"
	mkdir -p "$out"
	"$top/tools/testing/vm/run.sh" -k "$k" -o "$out" -t 900 -- \
		"$top/tools/packaging/deb-smoke-guest.sh" "$debs" "$debs/image" \
		>"$out/run.log" 2>&1
	r=$?
	sed "s/^/$k: /" "$out/deb-smoke.tap" 2>/dev/null
	if [ $r != 0 ] || ! grep -q '^1\.\.' "$out/deb-smoke.tap" 2>/dev/null; then
		echo "not ok - $k: the guest's smoke (exit $r; $out/run.log, $out/console.log)"
		rc=1
	fi
done
exit $rc
