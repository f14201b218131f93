#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once, cached) a root file system of another Debian release, made
# by mmdebstrap from Debian's archive. Prints its path.
#
#   mkroot.sh SUITE
#
# trixie: Debian 13, for guests that run its userland on its own kernel
# (run.sh -k trixie). In it: the release's kernel and headers (DKMS builds
# for them as on a gateway), what the packages' build needs (the packages
# are built for the release inside it: tools/packaging/deb.sh trixie), and
# what the packages' smoke runs (deb-smoke-guest.sh). About a minute and
# 900 MB.
#
# trixie-bpo: the newest kernel Debian offers (trixie-backports), its
# headers and the compiler it was built with, for the modules' build in a
# chroot of it (build-modules.sh) and guests that boot that kernel on the
# host's root with its modules from here (KVER trixie-bpo). About a minute
# and 700 MB.
#
# The cache is keyed by this script and the week (ER2BC_ROOT_WEEK, taken
# once per run: common.sh): a change here, a new
# week (the archive's updates, a newer backports kernel), or `rm -r` of
# the directory builds it again with the archive's packages of the day.
# A root of an older key is removed once nothing has asked for it for a
# day (the stamp .er2bc-root is touched at each use): a guest or a build
# of another worktree may still run on it.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

suite=${1:?usage: mkroot.sh SUITE}
mirror=http://deb.debian.org/debian
# the release as a gateway has it: its point release, its updates and its
# security updates
release_sources=("deb $mirror trixie main" "deb $mirror trixie-updates main"
	"deb http://deb.debian.org/debian-security trixie-security main")
case "$suite" in
trixie)
	release=trixie
	sources=("${release_sources[@]}")
	PKGS=(
		# the kernel a gateway of the release runs, and its headers for DKMS
		linux-image-amd64 linux-headers-amd64
		# the packages' build (debian/control's Build-Depends) and lintian
		build-essential debhelper dh-dkms dkms libmnl-dev libssl-dev pkg-config lintian
		# the smoke and the quick start: tc and ip, nft, traffic, the man
		# pages, the units' user (systemd-sysusers); the shipped dashboard's
		# and alert rules' check (tools/monitoring/check-queries.py)
		iproute2 nftables iperf3 python3 kmod procps util-linux man-db systemd
		python3-yaml
	)
	;;
trixie-bpo)
	release=trixie
	sources=("${release_sources[@]}" "deb $mirror trixie-backports main")
	# the meta-packages from backports: the newest kernel, its ABI
	# discovered (kernels.sh), never written down
	PKGS=(linux-image-amd64/trixie-backports linux-headers-amd64/trixie-backports
		build-essential kmod)
	;;
*) die "mkroot: no root for '$suite' (trixie, trixie-bpo)" ;;
esac

key=$( (cat "$0"; echo "${PKGS[*]}"; echo "$ER2BC_ROOT_WEEK") | sha256sum | cut -c1-12)
root=$ER2BC_CACHE/roots/$suite-$key
if [ -e "$root/.er2bc-root" ]; then
	touch "$root/.er2bc-root" 2>/dev/null || true
	echo "$root"
	exit 0
fi
[ "$(id -u)" = 0 ] || die "mkroot: building the $suite root needs root (mmdebstrap --mode=root)"
command -v mmdebstrap >/dev/null || die "mkroot: no mmdebstrap (tools/testing/setup-deps.sh installs it)"

# one build at a time (guests booted side by side ask at once)
mkdir -p "$ER2BC_CACHE/roots"
exec 9>"$ER2BC_CACHE/roots/$suite.lock"
flock 9
if [ -e "$root/.er2bc-root" ]; then
	touch "$root/.er2bc-root"
	echo "$root"
	exit 0
fi
rm -rf "$root" "$root.tmp"
log "mkroot: building the $suite root in $root (mmdebstrap)"
t0=$(date +%s)
# --variant=apt: the essential packages and apt, then PKGS with what they
# depend on (no recommends). man-db's trigger indexes every page again at
# each install: off, as on the host's image (deb-image.sh)
if ! mmdebstrap --quiet --mode=root --variant=apt --include="$(IFS=,; echo "${PKGS[*]}")" \
	--customize-hook='rm -f "$1/var/lib/man-db/auto-update"' \
	--customize-hook='rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*_Packages' \
	"$release" "$root.tmp" "${sources[@]}" >&2; then
	rm -rf "$root.tmp"
	die "mkroot: mmdebstrap could not build the $suite root"
fi
date -u +%FT%TZ >"$root.tmp/.er2bc-root"
mv "$root.tmp" "$root"
log "mkroot: $suite root in $(( $(date +%s) - t0 )) s, $(du -sh "$root" | cut -f1)"
# this suite's roots of other keys (exactly: trixie's are not
# trixie-bpo's), once unused for a day
k='[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'
for old in "$ER2BC_CACHE/roots/$suite"-$k; do
	[ "$old" != "$root" ] && [ -d "$old" ] || continue
	if [ -z "$(find "$old/.er2bc-root" -mmin -1440 2>/dev/null)" ]; then
		log "mkroot: removing $old (another key, unused for a day)"
		rm -rf "$old"
	fi
done
echo "$root"
