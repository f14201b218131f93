#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo (run in the VM by `make demo`): a sender, a gateway whose WAN
# side is shaped by er2bc, and a receiver, in network namespaces. TCP from
# the sender crosses the gateway while the cap moves, as estimates of the
# available bandwidth would move it; each phase prints what arrived.
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

measure() {
	iperf3_run "$SND" "$RCV" 10.20.0.2 -t 4 -O 1 |
		json_get "'%.2f' % (j['end']['sum_received']['bits_per_second'] / 1e6)"
}

echo "er2bc demo on $(uname -r), sch_er2bc $(modinfo -F version sch_er2bc)"
echo
echo "| phase | gateway qdisc on wan0 | TCP goodput (Mbit/s) |"
echo "|---|---|---|"
echo "| 1 | none (noqueue) | $(measure) |"
ip netns exec "$GW" tc qdisc add dev wan0 root er2bc rate 20mbit || exit 1
echo "| 2 | er2bc rate 20mbit | $(measure) |"
ip netns exec "$GW" tc qdisc change dev wan0 root er2bc rate 8mbit
echo "| 3 | er2bc rate 8mbit (changed live) | $(measure) |"
ip netns exec "$GW" tc qdisc change dev wan0 root er2bc rate 2mbit
echo "| 4 | er2bc rate 2mbit | $(measure) |"
echo
echo "Goodput is TCP payload: about 95.6 % of the rate on the wire."
ip netns exec "$GW" tc -s qdisc show dev wan0
