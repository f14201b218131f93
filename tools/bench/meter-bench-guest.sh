#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest (meter-bench.sh): what the receiving gateway's meter
# costs each packet its device receives. pktgen injects 64-byte UDP frames
# into the receive path of a dummy device (xmit_mode netif_receive: what a
# driver's NAPI poll hands up), addressed to another host's MAC, so that
# IP drops them at once (PACKET_OTHERHOST) and what is left to measure is
# the core's receive path and the taps on it. The meter (a tap for
# ETH_P_ALL bound to the device, as a packet socket's) sees every frame.
#
#   meter-bench-guest.sh OUT.jsonl cost PACKETS
#   meter-bench-guest.sh OUT.jsonl rate SECONDS THREADS...
#
# cost: under QEMU -icount (guest time = executed instructions, 1 ns
# each), one vCPU: PACKETS frames per cell, pktgen's busy time over the
# frames, for
#   none     no meter on the device
#   counted  a meter whose peer prefix holds the frames' source: each is
#            classified and counted
#   ignored  a meter whose peer prefix does not: each is classified and
#            counted as ignored
# each cell twice, for the spread between runs.
# rate: in real time, pktgen threads on THREADS vCPUs at once (each with
# its own copy of the device, dum0@N, as pktgen names them), SECONDS x
# 100,000 frames each; frames a second in all, for none and counted:
# whether the meter serialises the CPUs that receive. (Under TCG the
# vCPUs run in parallel only as far as the host has CPUs.)
#
# Writes one JSON object a line per cell to OUT.jsonl.
set -eu

out=$1
part=$2
shift 2
pg=/proc/net/pktgen
peer_in=10.0.1.0/24	# the frames come from 10.0.1.1
peer_out=10.9.0.0/24
port=4950

modprobe pktgen
modprobe sch_er2bc
ip link add dum0 type dummy
sysctl -qw net.ipv6.conf.dum0.disable_ipv6=1
ip link set dum0 up mtu 1500
ip addr add 198.51.100.1/24 dev dum0
ifindex=$(cat /sys/class/net/dum0/ifindex)
genlraw=$(dirname "$0")/../../selftests/sch_er2bc/genlraw.py
: >"$out"

pgset() { echo "$2" >"$pg/$1"; }

# the meter: none, or from PREFIX
meter() {
	python3 "$genlraw" send 6 "2:u32:$ifindex" >/dev/null 2>&1 || true
	[ "$1" = none ] && return 0
	python3 "$genlraw" send 5 "2:u32:$ifindex" "4:u16:$port" "5:prefix:$1" >/dev/null
}

# counts: the meter's packets and ignored (meter-get), "0 0" for none
counts() {
	python3 - "$(dirname "$genlraw")" "$ifindex" <<-'PY'
	import sys
	sys.path.insert(0, sys.argv[1])
	import genlraw as g
	n = g.Genl()
	fid = g.u(dict(n.family("er2bc"))[g.CTRL_ATTR_FAMILY_ID])
	err, _, rep = n.request(fid, 7, g.encode(f"2:u32:{sys.argv[2]}"), raw=True)
	a = {} if err else dict(g.attrs(rep[0][1]))
	print(g.u(a[7]) if 7 in a else 0, g.u(a[11]) if 11 in a else 0)
	PY
}

# record KEY=VALUE...: one JSON line (values are numbers, or quoted strings)
record() {
	local kv s=
	for kv in "$@"; do s+="${s:+, }\"${kv%%=*}\": ${kv#*=}"; done
	echo "{$s}" >>"$out"
}

# devices N: pktgen threads 0..N-1, each with dum0@I, set up alike
devices() {
	local i dev
	for ((i = 0; i < $(nproc); i++)); do
		pgset "kpktgend_$i" rem_device_all
	done
	for ((i = 0; i < $1; i++)); do
		dev=dum0@$i
		pgset "kpktgend_$i" "add_device $dev"
		pgset "$dev" "xmit_mode netif_receive"
		pgset "$dev" "pkt_size 60"
		pgset "$dev" "delay 0"
		pgset "$dev" "src_min 10.0.1.1"
		pgset "$dev" "src_max 10.0.1.1"
		pgset "$dev" "dst 198.51.100.2"
		pgset "$dev" "dst_mac 02:00:00:00:00:99"
		pgset "$dev" "udp_dst_min 9"
		pgset "$dev" "udp_dst_max 9"
		pgset "$dev" "flag UDPSRC_RND"
		pgset "$dev" "udp_src_min 4096"
		pgset "$dev" "udp_src_max 8192"
	done
}

# result DEV: pktgen's busy microseconds and frames sent, one line
result() {
	sed -n 's/.*OK: [0-9]*(c\([0-9]*\)+d[0-9]*) usec, \([0-9]*\) .*/\1 \2/p' "$pg/$1"
}

if [ "$part" = cost ]; then
	packets=$1
	devices 1
	pgset dum0@0 "count $packets"
	for run in 1 2; do
		for m in none counted ignored; do
			case $m in
			none) meter none ;;
			counted) meter "$peer_in" ;;
			ignored) meter "$peer_out" ;;
			esac
			pgset pgctrl start
			read -r us sent < <(result dum0@0)
			# (what the meter saw of them: the check that it was there)
			read -r counted ignored < <(counts)
			record part='"cost"' meter="\"$m\"" run="$run" packets="$sent" \
				ns=$((us * 1000)) counted="$counted" ignored="$ignored"
			echo "bench: cost, meter $m, run $run: $((us * 1000 / sent)) ns a frame"
		done
	done
	meter none
	exit 0
fi

secs=$1
shift
for n in "$@"; do
	if [ "$n" -gt "$(nproc)" ]; then
		record part='"rate"' threads="$n" skipped="\"the guest has $(nproc) vCPUs\""
		echo "bench: rate, $n threads: skipped, the guest has $(nproc) vCPUs"
		continue
	fi
	devices "$n"
	for m in none counted; do
		meter "$([ $m = none ] && echo none || echo "$peer_in")"
		# (pktgen runs a count, not a time: about SECONDS at 100k frames/s)
		for ((i = 0; i < n; i++)); do
			pgset "dum0@$i" "count $((secs * 100000))"
		done
		t0=$EPOCHREALTIME
		pgset pgctrl start
		t1=$EPOCHREALTIME
		# (a dummy device counts nothing it receives: pktgen's counts)
		rx=0
		for ((i = 0; i < n; i++)); do
			read -r _ sent < <(result "dum0@$i")
			rx=$((rx + sent))
		done
		pps=$(awk -v r="$rx" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", r / (b - a) }')
		record part='"rate"' threads="$n" meter="\"$m\"" received="$rx" \
			seconds="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" pps="$pps"
		echo "bench: rate, $n threads, meter $m: $pps frames/s"
	done
done
meter none
