#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the modules for one kernel in a directory of their own:
#
#   build-modules.sh KVER [make arguments ...]
#
# KVER is 6.1, 6.12, debug, kcsan, trixie or trixie-bpo[-all] (kernels.sh), or a
# path to a kernel build tree (KDIR). A kernel whose headers are in another
# release's root (trixie, trixie-bpo) is built for in a chroot of that
# root, with the compiler the kernel was built with. Kbuild
# writes objects next to the sources of an external module, so each kernel
# gets a tree of links to the sources under build/<name>/: the kernels never
# share an object, and rebuilds stay incremental. Prints that directory;
# its modroot/ is a module tree for the guest (see below).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# kernel_root, guest_root, and one week of roots for all the calls below
. "$top/tools/testing/vm/common.sh"
. "$top/tools/packaging/overlay.sh"
kver=$1
shift

if [ -d "$kver" ]; then
	kdir=$(cd "$kver" && pwd)
	name=kdir-$(echo "$kdir" | sha256sum | cut -c1-8)
	# what modules built here carry as vermagic (Debian's 6.1 headers have
	# the upstream version in kernel.release)
	krel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$kdir/include/generated/utsrelease.h")
else
	kdir=$("$top/tools/testing/vm/kernels.sh" kdir "$kver")
	krel=$("$top/tools/testing/vm/kernels.sh" krel "$kver")
	name=$kver
fi
kroot=/
[ -d "$kver" ] || kroot=$(kernel_root "$kver")
dir=$top/build/$name
version=$(git -C "$top" describe --always --dirty --tags 2>/dev/null ||
	  cat "$top/VERSION" 2>/dev/null || echo unknown)

mkdir -p "$dir"
# mirror the sources as links; drop links whose source has gone
(cd "$top" && find Kbuild VERSION include sch_er2bc tcp_rcvmgr -type f \
	\( -name Kbuild -o -name VERSION -o -name '*.[ch]' \)) |
while read -r f; do
	mkdir -p "$dir/$(dirname "$f")"
	ln -sfn "$top/$f" "$dir/$f"
done
find "$dir" -xtype l -delete

if [ "$kroot" = / ]; then
	make -C "$kdir" M="$dir" ER2BC_VERSION="$version" "$@" modules >&2
else
	# the project's tree bound at its path (the links above point there):
	# the objects land in $dir, the cached root is not written
	in_overlay "$kroot" "$top" "$top" \
		make -C "/lib/modules/$krel/build" M="$dir" ER2BC_VERSION="$version" "$@" modules >&2
fi

# A module tree for the guest, indexed here: depmod over 9p in the guest
# takes a minute under TCG, natively a second. The guest copies the index
# and the project's modules over its own /lib/modules/<krel>.
root=$dir/modroot/lib/modules/$krel
rm -rf "$dir/modroot"
mkdir -p "$root/updates/er2bc"
cp "$dir"/*/*.ko "$root/updates/er2bc/"
kmods=${kroot%/}/lib/modules/$krel
if [ -d "$kmods/kernel" ]; then
	ln -s "$kmods/kernel" "$root/kernel"
	cp "$kmods"/modules.{order,builtin,builtin.modinfo} "$root/"
else
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		if [ -e "$kdir/$f" ]; then cp "$kdir/$f" "$root/"; else : >"$root/$f"; fi
	done
fi
depmod -b "$dir/modroot" "$krel"
# (a kernel whose guest runs on the root that has its modules, the host's
# or trixie's, finds them at that path there; trixie-bpo's guest runs on
# the host's root and finds them through the link)
if [ -d "$kver" ] || [ "$kroot" = "$(guest_root "$kver")" ]; then
	rm -f "$root/kernel"
fi
echo "$dir"
