#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install from Debian everything the build and the tests need. The package
# list is pinned here and nowhere else. Idempotent: quiet and fast when all
# is installed already.
#
# Kernels are named by Debian's meta-packages, so the ABI suffix (which
# moves with every security update) is never written down: the harness
# discovers what got installed (tools/testing/vm/kernels.sh).
set -euo pipefail

PKGS=(
	# kernels the tests boot, and their headers for out-of-tree builds
	linux-image-amd64 linux-headers-amd64		# Debian 12's 6.1 LTS
	linux-image-6.12-amd64 linux-headers-6.12-amd64	# 6.12 LTS (security archive)
	linux-source-6.12 unifdef			# checkpatch, the in-tree series, YNL (the debug
							# kernel: the newest source, build-debug-kernel.sh)
	# build; libssl-dev is also er2bc-abwd's libcrypto (HMAC-SHA-256)
	build-essential bc bison flex libelf-dev libssl-dev dwarves
	xz-utils zstd pkg-config sparse libmnl-dev python3
	python3-yaml python3-jsonschema			# YNL: the generator, the spec check
	jq strace					# er2bcctl's and er2bc-abwd's host tests
	bash-builtins					# selftests/lib.sh's sleep: no fork, no read -t
	clang-14 libfuzzer-14-dev libclang-rt-14-dev	# er2bc-abwd's fuzz targets
	# the VM and what runs inside it
	qemu-system-x86 busybox-static kmod cpio
	iproute2 iperf3 bpftrace iputils-ping tcpdump nftables ethtool
	python3-matplotlib				# the experiments' plots (tools/experiments)
	python3-prometheus-client			# er2bcctl metrics: its tests parse the output
	python3-docutils				# make lint: the rst documents parse cleanly
	# make deb and the packages' image (tools/packaging/deb.sh, deb-image.sh):
	# here, before any guest runs on the host's root, not beside them
	debhelper dh-dkms dkms lintian
	mmdebstrap					# Debian 13's root for its guests (vm/mkroot.sh)
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "setup-deps: missing packages: ${missing[*]}" >&2
	echo "setup-deps: run this script as root to install them" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# wait for another apt or dpkg (unattended upgrades) rather than fail at once
apt_opts=(-o DPkg::Lock::Timeout=600 -y -qq)
fix_hint="run 'dpkg --configure -a && apt-get -f install' as root, then make check again"

# An install interrupted before (Ctrl-C, a session cut off) leaves packages
# unpacked but not configured, and every apt-get install after it fails on
# that: finish the old one first.
# dpkg itself does not wait for its lock (apt's Lock::Timeout is apt's):
# while another dpkg runs (unattended upgrades), what it has unpacked shows
# as unconfigured too, so wait for it, up to 10 minutes, then retry.
dpkg_configure() {
	local i out
	for i in $(seq 120); do
		out=$(dpkg --configure -a 2>&1) && return 0
		[[ "$out" == *"lock"* ]] || { echo "$out" >&2; return 1; }
		[ "$i" = 1 ] && echo "setup-deps: waiting for another dpkg to finish" >&2
		sleep 5
	done
	echo "$out" >&2
	return 1
}
if [ -n "$(dpkg --audit 2>/dev/null)" ]; then
	echo "setup-deps: an earlier package install did not finish; finishing it (dpkg --configure -a)" >&2
	if ! dpkg_configure || ! apt-get "${apt_opts[@]}" -f install >/dev/null; then
		echo "setup-deps: dpkg could not finish the earlier install: $fix_hint" >&2
		exit 1
	fi
fi

echo "setup-deps: installing ${missing[*]}" >&2
start=$(date +%s)
if ! apt-get "${apt_opts[@]}" update || ! apt-get "${apt_opts[@]}" install --no-install-recommends "${missing[@]}" >/dev/null; then
	echo "setup-deps: apt-get could not install ${missing[*]}: if it says dpkg was interrupted, $fix_hint" >&2
	exit 1
fi
echo "setup-deps: done in $(( $(date +%s) - start ))s" >&2
