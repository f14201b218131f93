# SPDX-License-Identifier: GPL-2.0
#
# The gateway the tcp_rcvmgr suites test, sourced after lib.sh:
#
#   SND ---- WAN (20 ms each way; RATE, BUFFER toward GW) ---- GW ---- RCV
#   sender                                              tcp_rcvmgr  receiver
#
# rcvmgr_topology RATE BUFFER: the namespaces (SND, WAN, GW, RCV), their
# IPv4 and IPv6 addresses and routes, and the WAN's delay and access link
# (RATE and BUFFER in tc's units). SND is 10.1.0.2 and fd00:1::2, RCV
# 10.3.0.2 and fd00:3::2 (LAN 10.3.0.0/24, fd00:3::/64); the gateway's
# WAN device is eth0.
rcvmgr_topology() {
	setup_ns SND WAN GW RCV || return 1
	veth_pair "$SND" eth0 10.1.0.2/24 "$WAN" eth0 10.1.0.1/24 &&
		veth_pair "$WAN" eth1 10.2.0.1/24 "$GW" eth0 10.2.0.2/24 &&
		veth_pair "$GW" eth1 10.3.0.1/24 "$RCV" eth0 10.3.0.2/24 || return 1
	# (one ip a namespace: each program started costs under TCG; a
	# batch stops at a line that fails, and so does the setup)
	printf '%s\n' "addr add fd00:1::2/64 dev eth0 nodad" \
		"route add default via 10.1.0.1" "route add ::/0 via fd00:1::1" |
		ip -n "$SND" -batch - || return 1
	printf '%s\n' "addr add fd00:1::1/64 dev eth0 nodad" \
		"addr add fd00:2::1/64 dev eth1 nodad" "route add 10.3.0.0/24 via 10.2.0.2" \
		"route add fd00:3::/64 via fd00:2::2" | ip -n "$WAN" -batch - || return 1
	printf '%s\n' "addr add fd00:2::2/64 dev eth0 nodad" \
		"addr add fd00:3::1/64 dev eth1 nodad" "route add default via 10.2.0.1" \
		"route add ::/0 via fd00:2::1" | ip -n "$GW" -batch - || return 1
	printf '%s\n' "addr add fd00:3::2/64 dev eth0 nodad" \
		"route add default via 10.3.0.1" "route add ::/0 via fd00:3::1" |
		ip -n "$RCV" -batch - || return 1
	local ns
	for ns in "$WAN" "$GW"; do
		ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	done
	# the WAN: 20 ms each way, and the access link toward the gateway
	tc -n "$SND" qdisc add dev eth0 root netem delay 20ms limit 10000
	tc -n "$WAN" qdisc add dev eth0 root netem delay 20ms limit 10000
	tc -n "$WAN" qdisc add dev eth1 root tbf rate "$1" burst 5k limit "$2"
}
