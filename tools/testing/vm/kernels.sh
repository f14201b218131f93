#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Find the kernels the project builds for and boots.
#
#   kernels.sh krel  KVER	kernel release (uname -r) of KVER
#   kernels.sh kdir  KVER	directory to build external modules against
#   kernels.sh image KVER	uncompressed vmlinux to boot through PVH
#   kernels.sh root  KVER	the root file system that has its /boot and /lib/modules
#
# KVER is 6.1 or 6.12 (Debian's packages, newest installed ABI; the suffix
# moves with security updates so it is discovered, never written down), or
# one of the project's own kernels, built on first use
# (build-debug-kernel.sh): debug, or kcsan; or trixie, Debian 13's kernel
# in Debian 13's root file system (mkroot.sh, made on first use), which
# its guests run on (guest_root in common.sh); or trixie-bpo, the newest
# kernel Debian offers (trixie-backports), in a root of its own (and
# trixie-bpo-all, the same, for every suite: tools/testing/manifest). kdir of
# those is the headers' directory inside their root: build in a chroot of
# it (build-modules.sh does).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

# own_dir KVER: the build directory of one of the project's kernels
own_dir() { "$here/build-debug-kernel.sh" "$1"; }

krel_of() {
	local kver=$1 k
	if own_kernel "$kver"; then
		# (each on its own: a failure inside $(...) in an argument is lost)
		k=$(own_dir "$kver") || exit
		cat "$k/include/config/kernel.release"
		return
	fi
	local root pat=$kver.[0-9]*
	root=$(kernel_root "$kver") || exit
	# (another release's root has that one kernel; the host's, a Debian
	# kernel named by its version)
	if [ "$root" != / ]; then
		pat='*'
	else
		case "$kver" in
		*[!0-9.]* | "") die "unknown kernel '$kver' (use 6.1, 6.12, debug, kcsan, trixie or trixie-bpo[-all])" ;;
		esac
	fi
	# shellcheck disable=SC2086 # $pat is a pattern
	k=$(cd "$root/lib/modules" && ls -d $pat 2>/dev/null |
		while read -r d; do
			[ -e "$d/build/Makefile" ] && [ -e "$root/boot/vmlinuz-$d" ] && echo "$d"
		done | sort -V | tail -n 1)
	[ -n "$k" ] || die "no Debian $kver kernel with headers installed in $root (run tools/testing/setup-deps.sh)"
	echo "$k"
}

# The bzImage carries vmlinux compressed (xz on 6.1, zstd on 6.12): find the
# stream and unpack it. Booting vmlinux through PVH skips the decompressor,
# which under TCG saves seconds per boot.
extract_vmlinux() {
	local img=$1 out=$2 magic tool off tmp
	# a temporary file of its own: guests started side by side on a fresh
	# machine unpack the same image at once
	tmp=$(mktemp "$out.XXXXXX")
	for magic in '\xfd7zXZ\x00:xz' '\x28\xb5\x2f\xfd:zstd' '\x1f\x8b\x08:gzip'; do
		tool=${magic##*:}
		for off in $(LC_ALL=C grep -obUaP "${magic%:*}" "$img" | cut -d: -f1); do
			tail -c +$((off + 1)) "$img" | $tool -dc >"$tmp" 2>/dev/null || true
			if [ "$(head -c 4 "$tmp" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
				chmod 644 "$tmp"
				mv "$tmp" "$out"
				return 0
			fi
		done
	done
	rm -f "$tmp"
	die "cannot find vmlinux inside $img"
}

image_of() {
	local kver=$1 krel out kroot vmlinuz
	if own_kernel "$kver"; then
		out=$(own_dir "$kver") || exit
		echo "$out/vmlinux"
		return
	fi
	krel=$(krel_of "$kver")
	kroot=$(kernel_root "$kver") || exit
	vmlinuz=${kroot%/}/boot/vmlinuz-$krel
	out=$ER2BC_CACHE/vmlinux/$krel
	if [ ! -s "$out" ] || [ "$vmlinuz" -nt "$out" ]; then
		mkdir -p "$(dirname "$out")"
		extract_vmlinux "$vmlinuz" "$out"
	fi
	echo "$out"
}

case "${1:-}" in
krel)	krel_of "$2" ;;
kdir)	if own_kernel "$2"; then own_dir "$2"; else
		# (each on its own: a failure inside $(...) in an echo is lost)
		kroot=$(kernel_root "$2")
		krel=$(krel_of "$2")
		echo "${kroot%/}/lib/modules/$krel/build"
	fi ;;
image)	image_of "$2" ;;
root)	kernel_root "$2" ;;
*)	echo "usage: $0 krel|kdir|image|root 6.1|6.12|debug|kcsan|trixie|trixie-bpo[-all]" >&2; exit 2 ;;
esac
