#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# er2bc-dkms's postinst, after DKMS built and installed the modules for the
# running kernel: whether that kernel still has older ones loaded (an
# upgrade), told apart by version and by srcversion (the checksum of the
# sources in the module's own directory; the version covers the shared
# headers, which srcversion does not). The package does not reload them:
# unloading sch_er2bc takes the shaping off every device it is on, and
# tcp_rcvmgr's hooks off the forwarding path, which an operator
# schedules; so it says which are stale and how to reload them, or to
# reboot, and marks a reboot as required (/run/reboot-required, as
# needrestart and unattended-upgrades read it). When DKMS installed no
# module for the running kernel (no headers for it), it says to keep the
# loaded one. Prints nothing when none is loaded or all match, or in a
# chroot (whose /sys is another system's); always exits 0: a notice, not
# a failure of the install.
krel=$(uname -r)
if command -v ischroot >/dev/null 2>&1 && ischroot; then
	exit 0
fi
stale= missing=
for m in sch_er2bc tcp_rcvmgr; do
	[ -r "/sys/module/$m/srcversion" ] || continue
	lsrc=$(cat "/sys/module/$m/srcversion")
	lver=$(cat "/sys/module/$m/version" 2>/dev/null) || lver=
	if ! dsrc=$(modinfo -k "$krel" -F srcversion "$m" 2>/dev/null) || [ -z "$dsrc" ]; then
		missing="$missing $m"
		continue
	fi
	dver=$(modinfo -k "$krel" -F version "$m" 2>/dev/null) || dver=
	[ "$lsrc" = "$dsrc" ] && [ "$lver" = "$dver" ] && continue
	stale="$stale $m ${lver:-of no version} (installed: ${dver:-of no version}),"
done
if [ -n "$missing" ]; then
	cat >&2 <<EOT
er2bc-dkms: no module is installed for the running kernel $krel
(DKMS did not build:$missing; are its headers installed?). Keep the
loaded ones: do not unload them.
EOT
fi
[ -n "$stale" ] || exit 0
cat >&2 <<EOT
er2bc-dkms: the running kernel still has the modules of before this upgrade
loaded:${stale%,}. The new ones take effect once
reloaded, which takes the shaping off the uplink for a moment:
  systemctl stop 'er2bc-abwd@*' 'er2bc-tc@*' er2bc-rcvmgr
  modprobe -r tcp_rcvmgr sch_er2bc    (after deleting any er2bc qdisc left)
  systemctl start er2bc-tc@DEV er2bc-abwd@NAME er2bc-rcvmgr    (those enabled)
or reboot.
EOT
if [ -d /run ]; then
	touch /run/reboot-required 2>/dev/null
	grep -qx er2bc-dkms /run/reboot-required.pkgs 2>/dev/null ||
		echo er2bc-dkms >>/run/reboot-required.pkgs 2>/dev/null
fi
exit 0
