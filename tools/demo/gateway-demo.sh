#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo (run in the VM by `make demo`): a sender, a gateway whose WAN
# side is shaped by er2bc, and a receiver, in network namespaces. Two TCP
# flows of different priority cross the gateway while the cap moves, as
# estimates of the available bandwidth would move it; each phase prints
# what arrived of each.
#
#   sender --- gateway [er2bc on wan0] --- receiver
set -u
source "$(dirname "$0")/../../selftests/lib.sh"

trap cleanup_all_ns EXIT
setup_ns SND GW RCV
veth_pair "$SND" eth0 10.10.0.2/24 "$GW" lan0 10.10.0.1/24
veth_pair "$GW" wan0 10.20.0.1/24 "$RCV" eth0 10.20.0.2/24
ip -n "$SND" route add default via 10.10.0.1
ip -n "$RCV" route add default via 10.20.0.1
ip netns exec "$GW" sysctl -qw net.ipv4.ip_forward=1

# both FLOWS at once for 5 s (iperf3 to ports 5201 and 5202, 1 s omitted);
# prints "priority bulk" goodput in Mbit/s
measure() {
	local out p pids=()
	out=$(mktemp -d)
	for p in 5201 5202; do
		ip netns exec "$RCV" iperf3 -s -1 -p $p >/dev/null 2>&1 &
	done
	for p in 5201 5202; do
		busywait 5000 tcp_listening "$RCV" $p
	done
	for p in 5201 5202; do
		ip netns exec "$SND" iperf3 -c 10.20.0.2 -p $p -t 5 -O 1 -J >"$out/$p" &
		pids+=($!)
	done
	wait "${pids[@]}"
	wait
	for p in 5201 5202; do
		json_get "'%.2f' % (j['end']['sum_received']['bits_per_second'] / 1e6)" <"$out/$p"
	done | paste -sd' '
	rm -rf "$out"
}

gw() { ip netns exec "$GW" tc "$@"; }
row() {
	local m
	m=$(measure)
	echo "| $1 | $2 | ${m% *} | ${m#* } |"
}

echo "er2bc demo on $(uname -r), sch_er2bc $(modinfo -F version sch_er2bc)"
echo
echo "Two TCP flows cross the gateway: 'priority' (port 5201, class 1:10,"
echo "prio 1, rate 4mbit) and 'bulk' (port 5202, class 1:20, prio 2, rate"
echo "1mbit, the default class). The cap W moves as ABW estimates would move it."
echo
echo "| phase | gateway qdisc on wan0 (mode static) | priority (Mbit/s) | bulk (Mbit/s) |"
echo "|---|---|---|---|"
row 1 "none (noqueue)"
gw qdisc add dev wan0 root handle 1: er2bc rate 20mbit mode static default 20 &&
	gw class add dev wan0 parent 1: classid 1:10 er2bc prio 1 rate 4mbit type tcp &&
	gw class add dev wan0 parent 1: classid 1:20 er2bc prio 2 rate 1mbit type tcp &&
	gw filter add dev wan0 parent 1: protocol ip prio 1 flower ip_proto tcp \
		dst_port 5201 classid 1:10 || exit 1
row 2 "W 20mbit: guarantees 4 + 1, 15 spare lent to priority"
gw qdisc change dev wan0 root er2bc rate 8mbit
row 3 "W 8mbit (changed live): 3 spare to priority"
gw qdisc change dev wan0 root er2bc rate 4mbit
row 4 "W 4mbit: only priority's guarantee fits"
gw qdisc change dev wan0 root er2bc rate 2mbit
row 5 "W 2mbit: no guarantee fits, lent by priority"
echo
echo "Goodput is TCP payload: about 95.6 % of the rate on the wire."
gw -s qdisc show dev wan0
gw -s class show dev wan0
