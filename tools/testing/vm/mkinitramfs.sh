#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once, cached) the busybox initramfs that boots kernel KVER into the
# host's root file system (or trixie's into Debian 13's: guest_root).
# Prints its path.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

kver=$1
krel=$("$here/kernels.sh" krel "$kver")
key=$(cat "$here/initramfs-init" "$0" /bin/busybox | sha256sum | cut -c1-12)
out=$ER2BC_CACHE/initramfs/$krel-$key.cpio
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,dev,proc,sys,modules}
cp /bin/busybox "$tmp/bin/"
for c in sh mount umount insmod mkdir sed reboot switch_root; do
	ln -s busybox "$tmp/bin/$c"
done
install -m 0755 "$here/initramfs-init" "$tmp/init"
: >"$tmp/modules/order"

# The project's kernels have all they need built in; Debian's have modules
# (in the root that has them)
if ! own_kernel "$kver"; then
	kroot=$(kernel_root "$kver")
	modprobe -d "$kroot" -a -S "$krel" --show-depends \
		virtio_pci 9pnet_virtio 9p overlay |
	while read -r kind path _; do
		[ "$kind" = insmod ] || continue
		name=$(basename "$path")
		case "$name" in
		*.xz)	xz -dc "$path" >"$tmp/modules/${name%.xz}"; name=${name%.xz} ;;
		*.zst)	zstd -qdc "$path" >"$tmp/modules/${name%.zst}"; name=${name%.zst} ;;
		*)	cp "$path" "$tmp/modules/" ;;
		esac
		grep -qx "$name" "$tmp/modules/order" || echo "$name" >>"$tmp/modules/order"
	done
fi

mkdir -p "$(dirname "$out")"
(cd "$tmp" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
