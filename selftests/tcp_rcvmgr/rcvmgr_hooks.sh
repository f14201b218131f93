#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_rcvmgr's netfilter hooks: registered on forward, input and output for
# IPv4 and IPv6 in each namespace while it is configured (a WAN device or a
# LAN prefix), and in no other; transparent to connections it does not
# manage, and gone on unload without disturbing live connections.
#
#   client ---- router (tcp_rcvmgr) ---- server
source "$(dirname "$0")/../lib.sh"

ALL_TESTS="
	hooks_follow_config
	ynl_config
	transparent
	unload
"

require_cmd nft ip iperf3 tcpdump python3 ss
modinfo tcp_rcvmgr >/dev/null 2>&1 || skip_all "tcp_rcvmgr is not installed"
ctl=$(cd "$(dirname "$0")/../.." && pwd)/tools/er2bcctl/er2bcctl
[ -x "$ctl" ] || skip_all "er2bcctl is not built (make tools)"
ctl() { "$ctl" -n "$RTR" "$@"; }
tap_begin

# each case's topology
topology() {
	setup_ns CLI RTR SRV
	veth_pair "$CLI" eth0 10.1.0.2/24 "$RTR" eth0 10.1.0.1/24
	veth_pair "$RTR" eth1 10.2.0.1/24 "$SRV" eth0 10.2.0.2/24
	ip -n "$CLI" -6 addr add fd00:1::2/64 dev eth0 nodad
	ip -n "$RTR" -6 addr add fd00:1::1/64 dev eth0 nodad
	ip -n "$RTR" -6 addr add fd00:2::1/64 dev eth1 nodad
	ip -n "$SRV" -6 addr add fd00:2::2/64 dev eth0 nodad
	ip -n "$CLI" route add default via 10.1.0.1
	ip -n "$SRV" route add default via 10.2.0.1
	ip -n "$CLI" -6 route add default via fd00:1::1
	ip -n "$SRV" -6 route add default via fd00:2::1
	ip netns exec "$RTR" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
}
# ... with tcp_rcvmgr loaded and configured on the router: a LAN prefix
# none of the test's addresses is in, so that it hooks and manages nothing.
# A case whose setup fails reports each of its checks failed, by name.
setup_configured() {
	local desc

	modprobe tcp_rcvmgr && topology && ctl rcvmgr set wan eth1 lan 192.0.2.0/24 &&
		return 0
	for desc in "$@"; do
		tap_result $ksft_fail "$desc" "setup failed: tcp_rcvmgr not configured"
	done
	return 1
}

# hooks NS: "family hook" lines of the hooks tcp_rcvmgr holds in NS
hooks() {
	ip netns exec "$1" nft list hooks 2>/dev/null | awk '
		/^family/ { fam = $2 }
		/^\thook/ { hook = $2 }
		/\[tcp_rcvmgr\]/ { print fam, hook }' | sort | tr '\n' ' '
}
want_hooks="ip forward ip input ip output ip6 forward ip6 input ip6 output "

# Listing hooks needs CONFIG_NETFILTER_NETLINK_HOOK (Debian's 6.1 lacks it):
# see whether an nftables base chain of our own shows up in the listing
setup_ns PROBE
ip netns exec "$PROBE" nft add table inet probe
ip netns exec "$PROBE" nft add chain inet probe out "{ type filter hook output priority 0; }"
if ip netns exec "$PROBE" nft list hooks 2>/dev/null | grep -q "chain inet probe out"; then
	can_list=0
else
	can_list=$ksft_skip
	why="kernel without CONFIG_NETFILTER_NETLINK_HOOK: hooks cannot be listed"
fi
cleanup_all_ns
# check_hooks NS WANT DESC
check_hooks() {
	if [ $can_list -ne 0 ]; then
		tap_result $can_list "$3" "$why"
		return
	fi
	[ "$(hooks "$1")" = "$2" ]
	tap_result $? "$3" "$(hooks "$1")"
}

# hooks in a namespace while tcp_rcvmgr is configured there, and only then
# (the router's namespace made before the module loads: its per-namespace
# state is set up for a namespace that exists; LATE's for one made after)
hooks_follow_config() {
	! grep -q "^tcp_rcvmgr " /proc/modules || rmmod tcp_rcvmgr
	topology
	modprobe tcp_rcvmgr
	tap_result $? "module loads"
	check_hooks "$RTR" "" "loaded, not configured: no hooks"
	# a LAN prefix none of the test's addresses is in: hooks, nothing managed
	ctl rcvmgr set wan eth1 lan 192.0.2.0/24
	tap_result $? "configured: WAN eth1, LAN 192.0.2.0/24"
	check_hooks "$RTR" "$want_hooks" "configured: hooks on forward, input and output, IPv4 and IPv6"
	setup_ns LATE
	check_hooks "$LATE" "" "no hooks in a namespace created after loading, not configured"
	ctl rcvmgr set wan none lan none
	check_hooks "$RTR" "" "neither WAN devices nor LAN prefixes any more: the hooks are gone"
	ctl rcvmgr set lan 192.0.2.0/24
	check_hooks "$RTR" "$want_hooks" "a LAN prefix alone: the hooks again"
}

# the kernel's own YNL CLI reads and sets the configuration from the spec
ynl() { ynl_cli -n "$RTR" tcp_rcvmgr "$@"; }
ynl_config() {
	local cfg rc eth1 got st conns

	setup_configured "ynl CLI: config-get from the spec" "ynl CLI: config-set from the spec" \
		"ynl CLI: stats-get and a conn-get dump from the spec" || return
	cfg=$(ynl --do config-get 2>&1)
	rc=$?
	if [ $rc = "$ksft_skip" ]; then
		skip_tests "the kernel's ynl CLI is not extracted (make check does it)" \
			"ynl CLI: config-get from the spec" "ynl CLI: config-set from the spec" \
			"ynl CLI: stats-get and a conn-get dump from the spec"
	else
		eth1=$(ip netns exec "$RTR" cat /sys/class/net/eth1/ifindex)
		got=$(echo "$cfg" | python3 -S -c "
import json, sys
c = json.load(sys.stdin)
w = c.get('wan-dev')
print(w if isinstance(w, int) else (w or [None])[0], c.get('policy'), len(c.get('lan-prefix', [])))" 2>&1)
		[ "$got" = "$eth1 azuma 1" ] || [ "$got" = "$eth1 1 1" ]
		tap_result $? "ynl CLI: config-get from the spec" "wan-dev policy lan-prefixes: $got (eth1 $eth1)"
		ynl --do config-set --json '{"policy": "equal"}' >/dev/null 2>&1 &&
			ctl rcvmgr show | grep -q "policy equal"
		tap_result $? "ynl CLI: config-set from the spec" "$(ctl rcvmgr show | head -n 1)"
		ctl rcvmgr set policy azuma
		st=$(ynl --do stats-get 2>&1) && conns=$(ynl --dump conn-get 2>&1) &&
			echo "$st" | python3 -S -c "import json, sys; sys.exit(0 if 'conns' in json.load(sys.stdin) else 1)" &&
			echo "$conns" | python3 -S -c "import json, sys; sys.exit(0 if isinstance(json.load(sys.stdin), list) else 1)"
		tap_result $? "ynl CLI: stats-get and a conn-get dump from the spec" "$(echo "$st" | head -c 120)"
	fi
}

# Unmanaged connections (none is in the LAN prefix) pass untouched: the
# windows of the ACKs the server
# sends are the same on both sides of the router. Compared per connection
# (iperf3 runs two): packets of different connections may pass each other.
window_trace() {
	tcpdump -nr "$1" 2>/dev/null |
		sed -n 's/.* > \([^ ]*\): .*ack \([0-9]*\), win \([0-9]*\).*/\1 \2 \3/p' |
		sort -s -k1,1
}
# capture NS DEV FILE: start tcpdump and wait until it is capturing; in
# immediate mode: libpcap otherwise holds packets in a block of its ring
# until the block's timeout (a second), and tcpdump stopped by SIGINT
# leaves the last block's packets out of the file (6.1 under a loaded
# host: "61 ACKs in, 57 out", the last four missing from one capture)
capture() {
	ip netns exec "$1" tcpdump -i "$2" -w "$3" -U --immediate-mode -s 96 "tcp src port 5201" 2>"$3.err" &
	pids+=" $!"
	busywait 10000 grep -q "listening on" "$3.err"
}
transparent_one() {
	local addr=$1 dir pids= rc
	dir=$(mktemp -d)
	capture "$RTR" eth1 "$dir/in.pcap" && capture "$RTR" eth0 "$dir/out.pcap" &&
		iperf3_run "$CLI" "$SRV" "$addr" -n 2M >/dev/null
	rc=$?
	sleep 1
	kill -INT $pids 2>/dev/null
	wait $pids 2>/dev/null
	window_trace "$dir/in.pcap" >"$dir/in"
	window_trace "$dir/out.pcap" >"$dir/out"
	[ $rc -eq 0 ] && [ -s "$dir/in" ] && cmp -s "$dir/in" "$dir/out"
	rc=$?
	echo "$(wc -l <"$dir/in") ACKs in, $(wc -l <"$dir/out") out"
	rm -rf "$dir"
	return $rc
}
transparent() {
	local detail

	setup_configured "IPv4 forwarded TCP passes with windows untouched" \
		"IPv6 forwarded TCP passes with windows untouched" || return
	detail=$(transparent_one 10.2.0.2)
	tap_result $? "IPv4 forwarded TCP passes with windows untouched" "$detail"
	detail=$(transparent_one fd00:2::2)
	tap_result $? "IPv6 forwarded TCP passes with windows untouched" "$detail"
}

# unload while a connection is transferring: it completes, and no hook is
# left, in the router's namespace nor in one created after the load
unload() {
	local server client unload rc

	setup_configured "unload during a transfer; the transfer completes" \
		"no hooks left after unload" \
		"no hooks left after unload (namespace created later)" || return
	setup_ns LATE
	ip netns exec "$SRV" iperf3 -s -1 >/dev/null 2>&1 &
	server=$!
	busywait 5000 tcp_listening "$SRV" 5201
	ip netns exec "$CLI" iperf3 -c 10.2.0.2 -t 4 >/dev/null 2>&1 &
	client=$!
	sleep 2
	rmmod tcp_rcvmgr
	unload=$?
	wait $client
	rc=$?
	wait $server
	[ $unload -eq 0 ] && [ $rc -eq 0 ]
	tap_result $? "unload during a transfer; the transfer completes" "rmmod=$unload iperf3=$rc"

	check_hooks "$RTR" "" "no hooks left after unload"
	check_hooks "$LATE" "" "no hooks left after unload (namespace created later)"
}

tests_run
