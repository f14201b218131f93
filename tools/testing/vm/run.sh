#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel in QEMU on the host's root file system and run a command.
#
#   run.sh [-k KVER] [-o OUT] [-t SECONDS] [-c CPUS] [-x QEMU_ARGS]
#          [-q QUEUE] [-i] [-- COMMAND ...]
#
#   -k  6.1, 6.12 (default), debug or kcsan, on the host's root; or
#       trixie: Debian 13's kernel on Debian 13's root (mkroot.sh), with
#       the project's tree shared at its path
#   -o  output directory shared writable with the guest (default: a new
#       one under build/vm); it keeps console.log, the exit status and
#       whatever the command writes to $ER2BC_OUT
#   -t  time limit for the whole run (default 600 s)
#   -c  number of vCPUs (default 2)
#   -x  more QEMU arguments, e.g. "-icount shift=0" for benchmarks whose
#       guest time must count executed instructions (TCG only)
#   -q  a directory shared writable with the guest at the same path, and
#       named in $ER2BC_QUEUE: guests booted at once with the same one
#       share out the suites (guest-suite.sh)
#   -i  interactive shell instead of a command
#
# Exits with the command's exit status; 125 if the guest never finished
# (panic, timeout). Acceleration: KVM if a real boot with it works (probed
# once per host kernel and cached), else TCG; ER2BC_ACCEL=kvm|tcg forces.
# ER2BC_QEMU names another qemu-system-x86_64 binary, ER2BC_CPU another
# -cpu model (make soak compares them; Documentation/testing.rst).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
. "$here/common.sh"

kver=6.12 out= limit=600 interactive=0 cpus=2 extra= queue=
while getopts "k:o:t:c:x:q:i" o; do
	case $o in
	q) queue=$OPTARG ;;
	c) cpus=$OPTARG ;;
	x) extra=$OPTARG ;;
	k) kver=$OPTARG ;;
	o) out=$OPTARG ;;
	t) limit=$OPTARG ;;
	i) interactive=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift

[ -n "$out" ] || out=$top/build/vm/$kver-$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -n "$queue" ]; then
	mkdir -p "$queue"
	queue=$(cd "$queue" && pwd)
fi
rm -f "$out/exit-status" "$out/boot-seconds"
printf '%q ' "$@" >"$out/cmd"

qemu=${ER2BC_QEMU:-qemu-system-x86_64}
image=$("$here/kernels.sh" image "$kver")
initrd=$("$here/mkinitramfs.sh" "$kver")
root=$(guest_root "$kver")

qemu_cmd() {
	local accel=$1 mem=2G cmdline

	own_kernel "$kver" && mem=4G
	# panic=-1 reboot=t: a panic triple-faults at once, and -no-reboot
	# turns that into QEMU's exit
	cmdline="console=ttyS0 loglevel=5 panic=-1 reboot=t oops=panic"
	# (not on the KCSAN kernel: a data race would stop it, and the
	# kernel's own are listed, not judged; check.sh)
	[ "$kver" = kcsan ] || cmdline+=" panic_on_warn=1"
	cmdline+=" mitigations=off nokaslr no_timer_check tsc=reliable"
	cmdline+=" 8250.nr_uarts=1 rcupdate.rcu_expedited=1"
	[ "$kver" = debug ] && cmdline+=" kasan.fault=panic kmemleak=on"
	cmdline+=" er2bc.init=$here/guest-init.sh er2bc.out=$out er2bc.cwd=$PWD"
	cmdline+=" er2bc.kver=$kver er2bc.interactive=$interactive"
	[ -n "$queue" ] && cmdline+=" er2bc.queue=$queue"
	[ "$root" = / ] || cmdline+=" er2bc.top=$top"

	QEMU=("$qemu" -nodefaults -no-reboot -display none
		-machine q35 -smp "$cpus" -m "$mem"
		-kernel "$image" -initrd "$initrd" -append "$cmdline"
		-fsdev local,id=root,path="$root",security_model=none,readonly=on,multidevs=remap
		-device virtio-9p-pci,fsdev=root,mount_tag=hostroot
		-fsdev local,id=out,path="$out",security_model=none,multidevs=remap
		-device virtio-9p-pci,fsdev=out,mount_tag=out)
	if [ "$root" != / ]; then
		QEMU+=(-fsdev local,id=top,path="$top",security_model=none,readonly=on,multidevs=remap
			-device virtio-9p-pci,fsdev=top,mount_tag=top)
	fi
	if [ -n "$queue" ]; then
		QEMU+=(-fsdev local,id=queue,path="$queue",security_model=none,multidevs=remap
			-device virtio-9p-pci,fsdev=queue,mount_tag=queue)
	fi
	if [ "$accel" = kvm ]; then
		cpu=${ER2BC_CPU:-max}
		QEMU+=(-accel kvm -cpu "$cpu")
	else
		# One host thread for both vCPUs: with a thread each, a vCPU can
		# run a stale translation of code the kernel is patching (jump
		# labels) and die on an int3 no text_poke owns (seen at boot on
		# 6.12, about one boot in ten). Round-robin vCPUs still interleave.
		# No CMPXCHG16B: QEMU 7.2's TCG corrupts RFLAGS at it (the helper
		# reads a stale cc_op), and the kernel's SLUB runs it at every
		# allocation; the garbage (TF, NT, reserved bits) panicked guests
		# now and then (flagcheck.c; Documentation/testing.rst, "Guests
		# that died"). Without CX16 the kernel takes its own fallbacks.
		cpu=${ER2BC_CPU:-max,-cx16}
		QEMU+=(-accel tcg,thread=single -cpu "$cpu")
	fi
	if [ -n "$extra" ]; then
		# shellcheck disable=SC2206 # -x is a list of words by design
		QEMU+=($extra)
	fi
	if [ $interactive = 1 ]; then
		QEMU+=(-serial mon:stdio)
	else
		QEMU+=(-serial "file:$out/console.log")
	fi
}

# A working /dev/kvm is not enough: nested KVM here starts guests that then
# die on MSRs or emulation failures. Boot for real once and remember.
pick_accel() {
	local key cache probe
	if [ -n "${ER2BC_ACCEL:-}" ]; then
		echo "$ER2BC_ACCEL"
		return
	fi
	key=$( (uname -r; "$qemu" --version | head -n 1) | sha256sum | cut -c1-12)
	cache=$ER2BC_CACHE/accel-$key
	# one probe at a time (make check boots two kernels at once)
	exec 8>"$cache.lock"
	flock 8
	if [ ! -s "$cache" ]; then
		echo tcg >"$cache.tmp"
		if [ -w /dev/kvm ]; then
			probe=$(mktemp -d)
			if ER2BC_ACCEL=kvm timeout 60 "$0" -k "$kver" -o "$probe" -t 30 -- true \
				>/dev/null 2>&1; then
				echo kvm >"$cache.tmp"
			fi
			rm -rf "$probe"
		fi
		mv "$cache.tmp" "$cache"
		log "acceleration: $(cat "$cache") (probed with a real boot)"
	fi
	exec 8>&-
	cat "$cache"
}

accel=$(pick_accel)
echo "$accel" >"$out/accel"
qemu_cmd "$accel"
echo "$cpu" >"$out/cpu"
# the CPU seconds of this shell's children so far, from what bash's times
# wrote to FILE (in this shell: a subshell would have its own)
cpu_of() {
	awk 'NR == 2 { n = 0
		for (i = 1; i <= 2; i++) { gsub(/,/, ".", $i); split($i, a, /[ms]/); n += a[1] * 60 + a[2] }
		printf "%.1f\n", n }' "$1"
}
cpu_dir=$(mktemp -d)
times >"$cpu_dir/0"
start=$(date +%s.%N)
if [ $interactive = 1 ]; then
	"${QEMU[@]}" || true
else
	: >"$out/console.log"
	tail -n +1 -f "$out/console.log" --pid=$$ 2>/dev/null &
	timeout --foreground "$limit" "${QEMU[@]}" </dev/null || true
	sleep 0.2
	kill %1 2>/dev/null || true
	wait %1 2>/dev/null || true
fi
secs=$(echo "$(date +%s.%N) - $start" | bc)
# the host CPU the guest took (QEMU's and the console tail's): a guest
# that waits on timers leaves its CPU idle, which is what running guests
# side by side could win back
times >"$cpu_dir/1"
cpu=$(echo "$(cpu_of "$cpu_dir/1") - $(cpu_of "$cpu_dir/0")" | bc)
rm -rf "$cpu_dir"
echo "$cpu" >"$out/cpu-seconds"

if [ ! -s "$out/exit-status" ]; then
	log "$kver guest did not finish (panic or timeout after ${limit}s); log: $out/console.log"
	exit 125
fi
log "$kver ($accel): booted in $(cat "$out/boot-seconds" 2>/dev/null || echo '?')s, whole run $(printf '%.1f' "$secs")s, host CPU ${cpu}s"
exit "$(cat "$out/exit-status")"
