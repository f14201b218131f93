#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Rate accuracy of the er2bc shaper with real traffic: TCP and UDP through
# a veth pair, at rates the VM reaches (under TCG the emulated CPU carries a
# few hundred Mbit/s at most), and a rate change while traffic flows.
#
#   sender (er2bc on veth0) ---- receiver
source "$(dirname "$0")/../lib.sh"

require_cmd tc ip iperf3 python3 ss
tap_begin
setup_ns SND RCV
veth_pair "$SND" veth0 10.0.0.1/24 "$RCV" veth1 10.0.0.2/24

tcq() { ip netns exec "$SND" tc "$@"; }

# Goodput expected at a given rate on the wire: a TCP segment with
# timestamps carries 1448 bytes in a 1514-byte frame; a UDP datagram of
# 1400 bytes goes in 1442 (UDP 8, IPv4 20, Ethernet 14).
tcp_goodput() { echo "$1 * 1448 / 1514" | bc -l; }
udp_goodput() { echo "$1 * 1400 / 1442" | bc -l; }

# The shaper is never faster than its rate; it may lose a little to timer
# slack and TCP's own dynamics. 5 s measured after 2 s of warm-up.
LOW=0.95
HIGH=1.01

# What the VM carries without a cap: the rate checks below need several
# times their rate, else they measure the emulated CPU, not the shaper, and
# are skipped visibly (as the kernel's tests do with KSFT_MACHINE_SLOW).
tcq qdisc add dev veth0 root er2bc rate unlimited limit 1000
cap_tcp=$(iperf3_run "$SND" "$RCV" 10.0.0.2 -t 3 -O 1 |
	json_get "j['end']['sum_received']['bits_per_second']") || cap_tcp=0
within "$cap_tcp" 40000000 1e12
log_test $? "rate unlimited does not shape" "goodput $(printf %.0f "$cap_tcp") bit/s"
cap_udp=$(iperf3_run "$SND" "$RCV" 10.0.0.2 -u -b 0 -l 1400 -t 2 |
	json_get "j['end']['sum_received']['bits_per_second']") || cap_udp=0

# enough NEED: the VM's capacity CAP is at least NEED
enough() { within "$1" "$2" 1e12; }

check_tcp() {
	local rate=$1 desc=$2 bps want
	if ! enough "$cap_tcp" "$((4 * rate))"; then
		log_test $ksft_skip "$desc" "machine slow: TCP capacity $(printf %.0f "$cap_tcp") bit/s"
		return
	fi
	bps=$(iperf3_run "$SND" "$RCV" 10.0.0.2 -t 5 -O 2 |
		json_get "j['end']['sum_received']['bits_per_second']") || bps=0
	want=$(tcp_goodput "$rate")
	within "$bps" "$(echo "$want * $LOW" | bc -l)" "$(echo "$want * $HIGH" | bc -l)"
	log_test $? "$desc" "goodput $(printf %.0f "$bps") bit/s, expected $(printf %.0f "$want")"
}

tcq qdisc change dev veth0 root er2bc rate 10mbit
check_tcp 10000000 "TCP at 10 Mbit/s"

tcq qdisc change dev veth0 root er2bc rate 4mbit
check_tcp 4000000 "TCP after a change to 4 Mbit/s"

# UDP offered at three times the cap: the excess is dropped at the queue
# (short enough to fill before the socket's send buffer does), what is
# delivered is the cap. 10 Mbit/s where the VM carries four times that,
# else 2 Mbit/s (the debug kernel under TCG carries about 12).
if enough "$cap_udp" 40000000; then
	udp_rate=10000000
else
	udp_rate=2000000
fi
tcq qdisc change dev veth0 root er2bc rate "${udp_rate}bit" limit 20
drops0=$(tcq -s -j qdisc show dev veth0 | json_get "j[0]['drops']")
bps=$(iperf3_run "$SND" "$RCV" 10.0.0.2 -u -b $((3 * udp_rate)) -l 1400 -t 5 |
	json_get "j['end']['sum_received']['bits_per_second']") || bps=0
want=$(udp_goodput $udp_rate)
if enough "$cap_udp" $((4 * udp_rate)); then
	within "$bps" "$(echo "$want * $LOW" | bc -l)" "$(echo "$want * $HIGH" | bc -l)"
	log_test $? "UDP overload delivered at the cap ($((udp_rate / 1000000)) Mbit/s)" \
		"goodput $(printf %.0f "$bps") bit/s, expected $(printf %.0f "$want")"
else
	log_test $ksft_skip "UDP overload delivered at the cap" \
		"machine slow: UDP capacity $(printf %.0f "$cap_udp") bit/s"
fi
drops=$(tcq -s -j qdisc show dev veth0 | json_get "j[0]['drops']")
[ "$((drops - drops0))" -gt 0 ]
log_test $? "excess dropped and counted" "drops=$((drops - drops0))"

# A cap raised while packets wait releases them at once: 1400-byte pings at
# 1 kbit/s owe 11.5 s each; raised to 10 Mbit/s after 0.5 s, the owed time
# shrinks to about 1 ms, so the second ping returns long before 11 s.
tcq qdisc change dev veth0 root er2bc rate 1kbit limit 1000 burst 1600
ip netns exec "$SND" ping -q -c 2 -i 0.2 -s 1400 -w 6 10.0.0.2 >/dev/null &
ping=$!
sleep 0.5
tcq qdisc change dev veth0 root er2bc rate 10mbit
wait $ping
log_test $? "raising the cap releases waiting packets at once" "two replies within 6 s"
