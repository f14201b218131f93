#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the guest once it runs on the host's root (see initramfs-init):
# mount the kernel's file systems and the shared output directory, run the
# command the host left in <out>/cmd (or a shell), record its exit status
# and power off.
set -u

arg() { sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" /proc/cmdline; }

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
# /tmp stays the host's, under the overlay (writes land in its tmpfs): a
# checkout under /tmp, as CI may have, must stay visible to the guest
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null

out=$(arg er2bc.out)
mkdir -p "$out"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 out "$out"
cut -d' ' -f1 /proc/uptime >"$out/boot-seconds"
# a queue shared with another guest (run.sh -q), uncached: its claims are
# the other guest's too
queue=$(arg er2bc.queue)
if [ -n "$queue" ]; then
	mkdir -p "$queue"
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=none queue "$queue"
	export ER2BC_QUEUE="$queue"
fi

hostname er2bc-vm
ip link set lo up
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 ER2BC_VM=1 ER2BC_OUT="$out"
export ER2BC_KVER="$(arg er2bc.kver)"
cd "$(arg er2bc.cwd)" || cd /

if [ "$(arg er2bc.interactive)" = 1 ]; then
	# the command prepares the shell (make vm-shell installs the modules)
	bash "$out/cmd"
	echo "er2bc: $(uname -r) guest; exit the shell to power off"
	setsid -c bash -l </dev/ttyS0 >/dev/ttyS0 2>&1
	rc=$?
else
	bash "$out/cmd"
	rc=$?
fi
echo "$rc" >"$out/exit-status"
sync
echo b >/proc/sysrq-trigger
