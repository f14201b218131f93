# SPDX-License-Identifier: GPL-2.0
#
# Two gateways and a router between them, for the ABW estimator's tests and
# benchmark (sourced after lib.sh):
#
#   A (a0 10.0.1.1) -- (r0 10.0.1.2) R (r1 10.0.2.1) -- (b0 10.0.2.2) B
#
# A sends toward B's site 10.0.2.0/24 through R, whose egress r1 is where
# a test puts its bottleneck. R runs no IPv6 and the neighbours across r1
# are static: the only packets crossing r1 are those A sends, so what r1's
# qdisc drops is what a count between A and B must find lost.
#
# The links are FIFO, as a wire is. A veth hands each packet to the receive
# backlog of the CPU that sent it, and two CPUs' backlogs drain in any
# order: a request sent from one CPU could overtake data another CPU sent
# just before it. So each receiving end steers every packet to CPU 0's
# backlog (RPS, one CPU): one queue, in the order sent. (veth's NAPI mode
# would give one ring too, but only with GRO, which lets a request
# overtake the segments it holds: see Documentation/er2bc-estimator.rst.)

# fifo_link NS DEV: everything DEV receives through one CPU's backlog
fifo_link() {
	ip netns exec "$1" sh -c "echo 1 >/sys/class/net/$2/queues/rx-0/rps_cpus"
}

# mac_of NS DEV: DEV's link-layer address, read by bash from ip's line (a
# program less than through JSON: each costs under TCG)
mac_of() {
	[[ $(ip -n "$1" -o link show "$2") =~ link/ether\ ([0-9a-f:]+) ]] && echo "${BASH_REMATCH[1]}"
}

# gateways_setup: the three namespaces ($A, $R, $B) and their links
gateways_setup() {
	setup_ns A R B
	veth_pair "$A" a0 10.0.1.1/24 "$R" r0 10.0.1.2/24 &&
		ip -n "$A" route add 10.0.2.0/24 via 10.0.1.2 &&
		ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv6.conf.all.disable_ipv6=1 &&
		fifo_link "$R" r0 && fifo_link "$A" a0 && gateways_link_rb
}

# gateways_link_rb: the link between R and B (r1, b0), anew after a test
# deleted it (a tunnel brought down and up)
gateways_link_rb() {
	veth_pair "$R" r1 10.0.2.1/24 "$B" b0 10.0.2.2/24 &&
		ip -n "$B" route add 10.0.1.0/24 via 10.0.2.1 &&
		fifo_link "$B" b0 || return 1
	ip -n "$R" neigh replace 10.0.2.2 dev r1 nud permanent \
		lladdr "$(mac_of "$B" b0)" &&
		ip -n "$B" neigh replace 10.0.2.1 dev b0 nud permanent \
			lladdr "$(mac_of "$R" r1)"
}

# gateways_setup6: the same over IPv6 only, in namespaces of its own ($A6,
# $R6, $B6): 2001:db8:1::/64 on A's side, 2001:db8:2::/64 on B's; no DAD,
# static neighbours across r1, so that only A's packets cross it
gateways_setup6() {
	local ns dev
	setup_ns A6 R6 B6
	ip link add a0 netns "$A6" type veth peer name r0 netns "$R6" &&
		ip link add r1 netns "$R6" type veth peer name b0 netns "$B6" || return 1
	for ns in "$A6:a0:2001:db8:1::1" "$R6:r0:2001:db8:1::2" "$R6:r1:2001:db8:2::1" \
		  "$B6:b0:2001:db8:2::2"; do
		dev=${ns#*:}
		printf '%s\n' "addr add ${dev#*:}/64 dev ${dev%%:*} nodad" \
			"link set ${dev%%:*} up" | ip -n "${ns%%:*}" -batch - || return 1
	done
	ip -n "$A6" route add 2001:db8:2::/64 via 2001:db8:1::2 &&
		ip -n "$B6" route add 2001:db8:1::/64 via 2001:db8:2::1 &&
		ip netns exec "$R6" sysctl -qw net.ipv6.conf.all.forwarding=1 &&
		fifo_link "$R6" r0 && fifo_link "$B6" b0 && fifo_link "$A6" a0 || return 1
	ip -n "$R6" neigh replace 2001:db8:2::2 dev r1 nud permanent \
		lladdr "$(mac_of "$B6" b0)" &&
		ip -n "$B6" neigh replace 2001:db8:2::1 dev b0 nud permanent \
			lladdr "$(mac_of "$R6" r1)"
}
