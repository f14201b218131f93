#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install: er2bc for the running kernel (or KDIR), from the sources,
# into PREFIX (/usr/local) under DESTDIR: the modules (updates/er2bc, then
# depmod), the tc plugin where tc looks for it, er2bcctl and its bash
# completion, er2bc-abwd with its systemd unit and user, the man pages.
# It installs no package: it needs the kernel's headers, a compiler,
# libmnl-dev, libssl-dev and pkg-config, and says which is missing. For
# Debian packages that DKMS rebuilds on kernel upgrades: make deb.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
prefix=${PREFIX:-/usr/local}
destdir=${DESTDIR:-}
krel=$(uname -r)
kdir=${KDIR:-/lib/modules/$krel/build}

die() { echo "make install: $*" >&2; exit 1; }

[ -f "$kdir/Makefile" ] ||
	die "no kernel build tree in $kdir: install linux-headers-$krel, or give KDIR="
missing=()
command -v cc >/dev/null || missing+=(build-essential)
command -v pkg-config >/dev/null || missing+=(pkg-config)
pkg-config --exists libmnl 2>/dev/null || missing+=(libmnl-dev)
pkg-config --exists libcrypto 2>/dev/null || missing+=(libssl-dev)
[ ${#missing[@]} -eq 0 ] ||
	die "missing to build: ${missing[*]} (apt-get install ${missing[*]})"

mods=$("$top/tools/testing/build-modules.sh" "$kdir")
krel=$(modinfo -F vermagic "$mods/sch_er2bc/sch_er2bc.ko" | cut -d' ' -f1)
# depmod by hand: Debian's headers carry no System.map for Kbuild to run
# it with (its warning left out); into a DESTDIR, not at all
make -s -C "$kdir" M="$mods" INSTALL_MOD_PATH="$destdir" INSTALL_MOD_DIR=updates/er2bc \
	CONFIG_MODULE_SIG_ALL= modules_install 2> >(grep -v "missing 'System.map'" >&2)
[ -n "$destdir" ] || depmod -a "$krel"
echo "make install: sch_er2bc and tcp_rcvmgr for $krel"

for d in lib er2bcctl abwd tc; do make -s -C "$top/tools/$d"; done
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
make -s -C "$top/tools/er2bcctl" install DESTDIR="$destdir" PREFIX="$prefix" \
	COMPDIR="$prefix/share/bash-completion/completions" UNITDIR="$prefix/lib/systemd/system"
# systemd and systemd-sysusers look under /usr/local/lib too
make -s -C "$top/tools/abwd" install DESTDIR="$destdir" PREFIX="$prefix" \
	UNITDIR="$prefix/lib/systemd/system" SYSUSERSDIR="$prefix/lib/sysusers.d"
# tc looks for its plugins in one directory, whatever the prefix
make -s -C "$top/tools/tc" install DESTDIR="$destdir" TCDIR="/usr/lib/$multiarch/tc" \
	PREFIX="$prefix" UNITDIR="$prefix/lib/systemd/system"
install -D -m 0644 -t "$destdir$prefix/share/man/man8" "$top/Documentation/tc-er2bc.8" \
	"$top/Documentation/er2bcctl.8" "$top/Documentation/er2bc-abwd.8" \
	"$top/Documentation/er2bc-tc-apply.8"
install -D -m 0644 -t "$destdir$prefix/share/man/man1" "$top/Documentation/er2bc-plot.1"
make -s -C "$top/tools/monitoring" install DESTDIR="$destdir" PREFIX="$prefix"
echo "make install: er2bcctl, er2bc-abwd, er2bc-tc-apply in $prefix/sbin; er2bc-plot in $prefix/bin; q_er2bc.so in /usr/lib/$multiarch/tc"

if [ -z "$destdir" ] && [ -d /run/systemd/system ]; then
	systemd-sysusers er2bc.conf
	systemctl daemon-reload
	echo "make install: user er2bc made; systemctl enable --now er2bc-abwd@sender (or @responder)" \
		"once /etc/er2bc/abwd-ROLE.conf is written"
fi
