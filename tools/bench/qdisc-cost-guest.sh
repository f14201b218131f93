#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest (see qdisc-cost.sh): per-packet cost of a root qdisc on
# a dummy device, with pktgen in queue_xmit mode (every packet goes through
# the qdisc's enqueue and dequeue) and 64-byte frames. Under QEMU -icount
# shift=0 guest time is executed instructions (1 ns each), so the cost is
# reported in instructions per packet, repeatable to a fraction of a percent.
#
#   qdisc-cost-guest.sh OUT.json PACKETS
set -eu

out=$1
count=${2:-200000}
pg=/proc/net/pktgen

modprobe pktgen
modprobe sch_er2bc
ip link add dum0 type dummy
ip link set dum0 up mtu 1500 txqueuelen 10000
ip addr add 198.51.100.1/24 dev dum0

pgset() { echo "$2" >"$pg/$1"; }

# send NAME: COUNT packets through what dum0 has now; prints "NAME pps"
send() {
	pgset kpktgend_0 rem_device_all
	pgset kpktgend_0 "add_device dum0"
	pgset dum0 "count $count"
	pgset dum0 "pkt_size 60"
	pgset dum0 "delay 0"
	pgset dum0 "dst 198.51.100.2"
	pgset dum0 "dst_mac 02:00:00:00:00:02"
	pgset dum0 "xmit_mode queue_xmit"
	pgset pgctrl start
	echo "$1 $(sed -n 's/^ *\([0-9]*\)pps.*/\1/p' "$pg/dum0")"
}

# root KIND ARGS...: a fresh root qdisc (replace keeps the kind of a handle)
root() {
	tc qdisc del dev dum0 root 2>/dev/null || true
	tc qdisc add dev dum0 root handle 1: "$@"
}

# Rates high enough that no shaper binds: this measures the cost of the
# scheduler itself, not of waiting.
{
	root pfifo limit 10000
	send pfifo
	root tbf rate 100gbit burst 10mb latency 100ms
	send tbf
	root er2bc rate 100gbit limit 10000
	send er2bc
	root er2bc rate unlimited limit 10000
	send er2bc_unlimited
	root htb default 1
	tc class add dev dum0 parent 1: classid 1:1 htb rate 100gbit ceil 100gbit
	tc qdisc add dev dum0 parent 1:1 pfifo limit 10000
	send htb
} | python3 -c "
import json, sys
rows = [dict(qdisc=q, pps=int(p), insn_per_pkt=round(1e9 / int(p))) for q, p in (l.split() for l in sys.stdin)]
json.dump({'kernel': '$(uname -r)', 'packets': $count, 'frame_bytes': 64,
           'clock': 'QEMU -icount shift=0: 1 ns of guest time per instruction',
           'rows': rows}, open('$out', 'w'), indent=1)
"
