#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_rcvmgr with real connections through a gateway. The generic netlink
# family matches its YNL spec and refuses bad configuration, changing
# nothing; the windows the sender sees never exceed the assignment and never
# shrink, with window scale 0, 7 and 14, over IPv4 and IPv6; SACK works and
# checksums stay right on both checksum paths; connections get their
# priorities from port, DSCP and mark rules and an RTT with and without
# timestamps; short downloads beside bulk ones finish faster under azuma,
# whose budget moves, and the tracepoints fire; resets a LAN host sends,
# in the handshake (Fast Open too) or after it, inexact or lost past the
# gateway, leave its download managed, and one behind the sender's FIN
# ends its entry at once; ACKs in IPv4 fragments are lowered as any
# other, and a download whose data comes in fragments is managed, a reset
# behind it too; a full table
# passes new connections unmanaged; connections ending on the gateway are
# managed too; unloading leaves live connections working.
#
#   SND ---- WAN (20 ms each way, 4 mbit, 128 KB buffer) ---- GW ---- RCV
#   sender                                            tcp_rcvmgr  receiver
#
# Downloads: RCV connects to SND, SND sends (xfer.py). The cases: netlink
# (the family against its spec, the configuration read back, the
# refusals, what needs CAP_NET_ADMIN) needs a gateway's namespace alone,
# with a device eth0; each of the others builds the network above, with
# equal shares of a fixed 32 KB budget configured: windows (at each
# scale, over IPv6, on the floor, an upload's, ACKs in fragments, under
# loss; then, with no LAN prefix, a download to the gateway itself, and
# the module unloaded under a managed download), resets (after the
# handshake: blind ones and an exact one, inexact ones and ones lost past
# the gateway, behind either end's FIN, behind fragmented data, with
# conntrack; a connection reopened on its ports; a download begun before
# the gateway was configured), quiet_receivers (a receiver quiet after
# its reset, one that stalls its sender, one that sends a SYN into its
# own download), handshake (resets and a second SYN in the handshake,
# Fast Open too; a reconnection at once after a reset) and shares
# (priority rules, RTT, greedy bulk downloads, a late one behind their
# queue and short ones beside them under azuma, the budget and the
# tracepoints; the table once they end, and when full). Each case in a
# namespace of its own (make check T=rcvmgr_windows:CASE).
source "$(dirname "$0")/../lib.sh"

ALL_TESTS="
	netlink
	windows
	resets
	quiet_receivers
	handshake
	shares
"

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ctl=$top/tools/er2bcctl/er2bcctl
spec=$top/Documentation/netlink/specs/tcp_rcvmgr.yaml
genlraw=$top/selftests/sch_er2bc/genlraw.py
speccheck=$top/selftests/sch_er2bc/spec_check.py

require_cmd ip tc tcpdump python3 nstat ethtool nft unshare
modinfo tcp_rcvmgr >/dev/null 2>&1 || skip_all "tcp_rcvmgr is not installed"
[ -x "$ctl" ] || skip_all "er2bcctl is not built (make tools)"
tap_begin

source "$here/topology.sh"

ctl() { "$ctl" -n "$GW" "$@"; }
rset() { ctl rcvmgr set "$@"; }
raw() { ip netns exec "$GW" env GENL_FAMILY=tcp_rcvmgr python3 -S "$genlraw" "$@"; }
stat_of() { ctl -j rcvmgr stats >"$tmp/stats" && json_num "$tmp/stats" "$1"; }
# no_conns: the table holds no connection
no_conns() { [ "$(stat_of conns)" = 0 ]; }
fetch() { ip netns exec "$RCV" python3 -S "$here/xfer.py" fetch "$@"; }

pids=
# serve PORT BYTES [PORT BYTES]...: the sender, one process for every
# port, until the case ends (stop); once the last port listens, all do
serve() {
	ip netns exec "$SND" python3 -S "$here/xfer.py" serve "$@" &
	pids+=" $!"
	busywait 30000 tcp_listening "$SND" "${@: -2:1}"
}
# stop: what the case left running in the background (its sender, the
# uploads' sink) ended, before tests_run removes its namespaces
stop() { kill $pids 2>/dev/null; wait $pids 2>/dev/null; pids=; }
cleanup() { stop; rm -rf "$tmp"; }
# nft_packets NS TABLE: the packets all the counters of inet TABLE in NS
# counted
nft_packets() {
	ip netns exec "$1" nft list table inet "$2" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "packets") n += $(i + 1) } END { print n + 0 }'
}
# nft_counters NS TABLE NAME...: the packets each named counter of inet
# TABLE in NS counted, in the order named ("?" for one unread)
nft_counters() {
	local ns=$1 table=$2
	shift 2
	ip netns exec "$ns" nft list counters table inet "$table" 2>/dev/null |
		awk -v names="$*" '$1 == "counter" { c = $2 } $1 == "packets" { v[c] = $2 }
		END {
			n = split(names, k, " ")
			for (i = 1; i <= n; i++)
				printf "%s%s", (i > 1 ? " " : ""), ((k[i] in v) ? v[k[i]] : "?")
			print ""
		}'
}
trap 'rc=$?; cleanup; (exit $rc); tap_end' EXIT

# capture DEV FILE: headers of the TCP packets on SND's DEV, until stopped;
# in immediate mode: libpcap otherwise holds packets in a block of its
# ring until the block's timeout (a second), and tcpdump stopped by SIGINT
# leaves the last block's packets out of the file
capture() {
	ip netns exec "$SND" tcpdump -i "$1" -w "$2" -U --immediate-mode -s 128 tcp 2>"$2.err" &
	cap=$!
	busywait 10000 grep -q "listening on" "$2.err"
}
stop_capture() { sleep 0.5; kill -INT $cap; wait $cap 2>/dev/null; }

# A debug kernel (KASAN, lockdep) runs the checks that exercise every path
# once and skips, visibly, the repeats and the timing comparisons, as the
# kernel's tests do with KSFT_MACHINE_SLOW: they take minutes there.
slow_skip() { tap_result $ksft_skip "$1" "machine slow (debug kernel): covered on the others"; }

tmp=$(mktemp -d)
# (the download unloading interrupts: 24 s at 4 Mbit/s, twice that on the
# debug kernel, where its start and one er2bcctl call take seconds)
unload_bytes=12000000
machine_slow && unload_bytes=24000000

# the configuration each case on a gateway starts from, the one netlink
# sets and reads back: equal shares of a fixed 32 KB budget
config=(policy equal wan eth0 lan 10.3.0.0/24 lan fd00:3::/64 budget-init 32k
	budget-min 32k budget-max 32k interval 1s initial-window 4)

# setup: the case's own network (rcvmgr_topology: 4 Mbit/s and a 128 KB
# buffer at the access link), tcp_rcvmgr loaded (again, after a case that
# unloaded it) and configured, the receiver's TCP settings, and the
# sender serving every port the cases fetch from
setup() {
	modprobe tcp_rcvmgr && rcvmgr_topology 4mbit 128k && rset "${config[@]}" &&
		rcv_defaults && serve 5001 1000000 5002 100000000 5003 100000000 \
		5004 300000 5008 100000000 5005 30000 5006 $unload_bytes 5007 100000000
}

modprobe tcp_rcvmgr
tap_result $? "module loads"

# refused NAME EXPECT ATTR...: config-set (2) with ATTRs fails with a
# message containing EXPECT (or one of EXPECT's |-separated parts), and
# the configuration (config-get, 1) is as it was; the requests go out
# together (refused_run), in one process
# has_any TEXT PARTS: whether TEXT contains one of PARTS' |-separated parts
has_any() {
	local alt alts
	IFS='|' read -ra alts <<<"$2"
	for alt in "${alts[@]}"; do [[ "$1" == *"$alt"* ]] && return 0; done
	return 1
}
refused() {
	local name=$1 expect=$2
	shift 2
	refused_cases+=("$name" "$expect" "2 $*")
}
# refused_read NAME CMD ATTR...: the same for read command CMD (config-get
# 1, stats-get 4), which takes no attributes: refused by the module, or
# by the core where it refuses what a command without a policy is sent
# (6.1)
no_attrs="takes no attributes|Unknown attribute type"
refused_read() {
	refused_cases+=("$1" "$no_attrs" "${*:2}")
}
refused_run() {
	local i res digest before
	for ((i = 2; i < ${#refused_cases[@]}; i += 3)); do
		echo "${refused_cases[$i]}"
	done | raw batch 1 >"$tmp/refused"
	{
		IFS=$'\t' read -r _ before
		for ((i = 0; i < ${#refused_cases[@]}; i += 3)); do
			res= digest=
			IFS=$'\t' read -r res digest
			[ -n "$before" ] && [ "$res" != ok ] &&
				has_any "$res" "${refused_cases[$((i + 1))]}" && [ "$digest" = "$before" ]
			tap_result $? "refused: ${refused_cases[$i]}" "$res"
		done
	} <"$tmp/refused"
}

# --- netlink: a gateway's namespace alone, with a device eth0 to
# configure as the WAN's; no traffic
netlink() {
	modprobe tcp_rcvmgr && setup_ns GW && ip -n "$GW" link add eth0 type veth peer name eth1 ||
		{ setup_failed "a gateway's namespace with a device eth0"; return; }
	refused_cases=()
	# the family, against its spec
	raw policy >"$tmp/pol" && out=$(python3 "$speccheck" "$spec" "$tmp/pol" 2>&1)
	rc=$?
	tap_result $rc "the kernel's ops and policies match the YNL spec" \
		"$(echo "$out" | tail -n 1)"
	[ $rc = 0 ] || echo "$out" | sed 's/^/# /'

	# configuration: what is set reads back, in er2bcctl's words
	rset "${config[@]}"
	tap_result $? "configure: equal shares of a fixed 32 KB budget, WAN eth0"
	ctl -j rcvmgr show >"$tmp/cfg"
	got=$(json_get "(j['policy'], [d['dev'] for d in j['wan_dev']], len(j['lan_prefix']), j['budget_init_bytes'], j['interval_us'], j['initial_window_segments'])" <"$tmp/cfg")
	[ "$got" = "('equal', ['eth0'], 2, 32768, 1000000, 4)" ]
	tap_result $? "the configuration reads back" "$got"
	lo=$(ip netns exec "$GW" cat /sys/class/net/lo/ifindex)
	refused "policy out of range" "out of range" 2:u8:4
	refused "interval below 10 ms" "out of range" 7:u32:5
	refused "budget-decrease of 1000 per mille" "out of range" 14:u32:1000
	refused "an unknown clear flag" "reserved bit" 6:u32:8
	refused "a WAN device that does not exist" "no such WAN device" 3:u32:999
	refused "nine WAN devices" "too many WAN devices" \
		3:u32:$lo 3:u32:$lo 3:u32:$lo 3:u32:$lo 3:u32:$lo 3:u32:$lo 3:u32:$lo 3:u32:$lo \
		3:u32:$lo
	refused "a LAN prefix with host bits" "no host bits" 4:prefix:10.3.0.1/24
	refused "an IPv4 prefix of length 33" "a length it has" 4:prefix:10.3.0.0/33
	refused "a LAN prefix of 5 bytes" "4 or 16 bytes" 4:nest:1:hex:0a03000000,2:u8:24
	refused "a rule without a priority" "needs a priority" 5:nest:1:u16:80
	refused "a rule of priority 0" "out of range" 5:nest:6:u32:0
	refused "a rule of priority 1001" "out of range" 5:nest:6:u32:1001
	refused "a rule with DSCP 64" "out of range" 5:nest:3:u8:64,6:u32:1
	refused "a rule with port-min above port-max" "port-min is above" \
		5:nest:1:u16:100,2:u16:50,6:u32:1
	refused "a rule's mark outside its mask" "outside its mask" \
		5:nest:4:u32:0x10,5:u32:0x0f,6:u32:1
	refused "budget-min above budget-max" "budget-min is above" 11:u32:100000 12:u32:50000
	refused "budget-init below budget-min" "budget-init is outside" 10:u32:1000
	refused "spring-interactive above spring-short" "spring-interactive is above" 18:u32:9000
	refused "an initial window of 1 segment" "out of range" 20:u32:1
	refused "an initial window of 1025 segments" "out of range" 20:u32:1025
	# (6.2 and later pass a read's attributes through unread: the module
	# refuses them)
	refused_read "config-get with an attribute" 1 2:u8:1
	refused_read "stats-get with an attribute" 4 2:u8:1
	refused_run
	out=$(raw dump 3 2:u8:1 2>&1)
	[ $? = 1 ] && has_any "$out" "$no_attrs"
	tap_result $? "refused: a connection dump with an attribute" "$out"
	out=$(ip netns exec "$GW" unshare -U "$ctl" rcvmgr set policy off 2>&1)
	rc=$?
	ctl -j rcvmgr show >"$tmp/cfg2"
	[ $rc = 1 ] && [[ "$out" == *"ermitted"* ]] && cmp -s "$tmp/cfg" "$tmp/cfg2"
	tap_result $? "refused: a change without CAP_NET_ADMIN over the netns" "$out"
	out=$(ip netns exec "$GW" unshare -U "$ctl" rcvmgr conns 2>&1)
	rc=$?
	out2=$(ip netns exec "$GW" unshare -U "$ctl" rcvmgr stats 2>&1)
	[ $rc = 1 ] && [[ "$out" == *"ermitted"* ]] && [[ "$out2" == *budget* ]]
	tap_result $? "the connection dump needs CAP_NET_ADMIN; the stats do not" \
		"$out; stats: $(echo $out2 | head -c 60)"
}

# --- windows at the sender: never above the assignment, never shrinking
# rcv_sysctl KEY=VALUE...: the receiver's TCP settings
rcv_sysctl() { ip netns exec "$RCV" sysctl -qw "$@"; }
rcv_defaults() {
	rcv_sysctl net.ipv4.tcp_window_scaling=1 net.ipv4.tcp_timestamps=1 \
		net.ipv4.tcp_sack=1 "net.ipv4.tcp_rmem=4096 131072 6291456"
}
# windows_check NAME ADDR WS: download 1 MB from ADDR; the receiver's scale is WS
windows_check() {
	local name=$1 addr=$2 ws=$3 out rc rewritten
	rewritten=$(stat_of rewritten)
	capture eth0 "$tmp/w.pcap"
	out=$(fetch "$addr" 5001 --limit 60)
	rc=$?
	stop_capture
	res=$(python3 -S "$here/wincheck.py" "$tmp/w.pcap" 5001 --limit 32768)
	rewritten=$(($(stat_of rewritten) - rewritten))
	echo "$res" | json_get "j['wscale'] == [$ws] and j['acks'] > 50 and j['over'] == 0 and \
		j['shrinks'] == 0 and j['stale'] * 20 <= j['acks'] and \
		j['max_window'] >= 32768 - (1 << $ws)" | grep -q True &&
		[ $rc = 0 ] && [ "$rewritten" -gt 0 ]
	tap_result $? "$name: windows at the sender within 32 KB, never shrinking" \
		"$(echo "$res" | json_get "'ws %s, %d ACKs, max %d, over %d, shrinks %d, stale %d' % (j['wscale'], j['acks'], j['max_window'], j['over'], j['shrinks'], j['stale'])"), $rewritten rewritten"
}

# (three downloads' first packets take the debug kernel half a minute)
conns_wait=60000
machine_slow && conns_wait=180000
# long downloads, killed once their check is done (in the background
# only: its subshell becomes the download, which kill stops); the timeout
# bounds one a failing check leaves behind, and outlasts the longest wait
# with the checks after it (the resets')
long() { exec ip netns exec "$RCV" timeout $((conns_wait / 1000 + 300)) python3 -S "$here/xfer.py" fetch 10.1.0.2 "$@" >/dev/null 2>&1; }

# rst_begin PORT ARG...: rst.py (ARG... its options) on the receiver's
# side of the download from client port PORT, in the background as $rst,
# once it listens or is gone (its wait then says how it ended); its output
# in $tmp/rst.out and rst.err, an earlier one's removed first. rst_said:
# what it printed, but "listening"
rst_ready() { grep -q listening "$tmp/rst.err" 2>/dev/null || ! kill -0 "$1" 2>/dev/null; }
rst_begin() {
	rm -f "$tmp/rst.out" "$tmp/rst.err"
	ip netns exec "$RCV" python3 -S "$here/rst.py" eth0 10.3.0.2 "$1" 10.1.0.2 5007 \
		"${@:2}" --ready >"$tmp/rst.out" 2>"$tmp/rst.err" &
	rst=$!
	busywait $conns_wait rst_ready $rst
}
rst_said() { cat "$tmp/rst.out" "$tmp/rst.err" | grep -v listening; }

# read_conns: the connection dump, in $tmp/conns and in $dump, to be read
# by bash (json_num's reason): under the downloads a process costs the
# debug kernel seconds
read_conns() {
	ctl -j rcvmgr conns >"$tmp/conns" || return
	IFS= read -r -d '' dump <"$tmp/conns"
	return 0
}
# conns_with N PORT...: the dump, once it holds N connections from PORTs
# with RTT samples
conns_with() {
	local n=$1 port dump found=0
	shift
	read_conns || return
	for port; do
		[[ $dump =~ \"sport\":[[:space:]]*$port,[^}]*\"rtt_samples\":[[:space:]]*([0-9]+) ]] &&
			[ "${BASH_REMATCH[1]}" -gt 1 ] && found=$((found + 1))
	done
	[ $found -ge "$n" ]
}

# --- the floor: a budget far below two segments a connection puts every
# connection on it, at every window scale. Each gets two segments, rounded
# up to its scale: never a zero window, never less than a segment (the
# receiver offers far more). The receiver's scale is the socket's window
# clamp's (xfer.py --clamp): 0, 7, 11 and 14, the downloads side by side
floor_test() {
	local clamp pids= rc=0 res
	rset budget-init 2k budget-min 2k budget-max 2k
	rcv_sysctl "net.ipv4.tcp_rmem=4096 131072 1073741824"
	capture eth0 "$tmp/f.pcap"
	for clamp in 65535 4194304 67108864 1073741824; do
		fetch 10.1.0.2 5004 --clamp $clamp --limit 30 >"$tmp/floor.$clamp" &
		pids+=" $!"
	done
	for clamp in $pids; do wait $clamp || rc=1; done
	stop_capture
	rcv_defaults
	rset budget-init 32k budget-min 32k budget-max 32k
	res=$(python3 -S - "$tmp/f.pcap" "$here/wincheck.py" "$tmp"/floor.* <<-'PY'
	import json, subprocess, sys
	w = json.loads(subprocess.run([sys.executable, sys.argv[2], sys.argv[1], "5004"],
	                              capture_output=True, text=True, check=True).stdout)
	got = [json.loads(l).get("bytes") for f in sys.argv[3:] for l in open(f)]
	per = [(c["wscale"], c["acks"], c["min_window"]) for c in w["per_conn"]]
	# two segments of 1460 bytes, rounded up to the scale's unit: at the
	# floor exactly, neither under it nor left unmanaged above it
	floor = {0: 2920, 7: 2944, 11: 4096, 14: 16384}
	ok = (sorted(c[0] for c in per) == [0, 7, 11, 14] and got == [300000] * 4 and
	      all(a >= 10 and m == floor[s] for s, a, m in per))
	print(ok, "scale, ACKs, least window:", per, "; bytes:", got)
	PY
	)
	[ $rc = 0 ] && [ "${res%% *}" = True ]
	tap_result $? "budget far below two segments: at window scale 0, 7, 11 and 14 the window is two segments rounded up to the scale, the downloads complete" \
		"${res#* }, fetch rc $rc"
}

# --- an upload to a LAN server: the server's SYN-ACK offers the sender its
# first right edge, which the first rewritten ACKs keep (the assignment,
# 32 KB, is below the SYN-ACK's 64 KB) until the sender has passed it;
# with TCP Fast Open too, whose SYN-ACK acknowledges the SYN's data (the
# gateway took only a SYN-ACK acknowledging the SYN alone as one that
# offers an edge: the first rewritten ACKs pulled it back)
# upload WHAT [--fastopen]
upload() {
	local what=$1 tfo=${2:-} fo=0 out rc res
	if [ "$tfo" ]; then
		ip netns exec "$SND" sysctl -qw net.ipv4.tcp_fastopen=5	# client, no cookie
		rcv_sysctl net.ipv4.tcp_fastopen=0x202	# server, no cookie needed
		fo=$(ip netns exec "$RCV" nstat -az TcpExtTCPFastOpenPassive | awk '/TcpExt/ { print $2 }')
	fi
	capture eth0 "$tmp/u.pcap"
	out=$(ip netns exec "$SND" python3 -S "$here/xfer.py" push 10.3.0.2 5010 1000000 --limit 60 $tfo)
	rc=$?
	stop_capture
	if [ "$tfo" ]; then
		fo=$(($(ip netns exec "$RCV" nstat -az TcpExtTCPFastOpenPassive | awk '/TcpExt/ { print $2 }') - fo))
		ip netns exec "$SND" sysctl -qw net.ipv4.tcp_fastopen=1
		rcv_sysctl net.ipv4.tcp_fastopen=1
		[ $fo -ge 1 ] || rc=1
	fi
	res=$(python3 -S "$here/wincheck.py" "$tmp/u.pcap" 5010 --upload)
	echo "$res" | json_get "j['acks'] > 50 and j['shrinks'] == 0 and j['stale'] * 20 <= j['acks'] and \
		j['per_conn'][0]['min_window'] <= 32768" | grep -q True && [ $rc = 0 ]
	tap_result $? "an upload to a LAN server$what: the SYN-ACK's window is kept, then the assignment, never shrinking" \
		"$(echo "$res" | json_get "'%d ACKs, least %s, max %d, shrinks %d, stale %d' % (j['acks'], j['min_window'], j['max_window'], j['shrinks'], j['stale'])"), push rc $rc${tfo:+, $fo Fast Open}"
}

# --- a client reopens its addresses and ports after an end the gateway did
# not see (its reset lost, the server timed out): its new SYN opens a new
# entry, with the new window scale, 7, not the old one's, 14
reopen_port=47001
# client_with PORT [WSCALE]: the dump holds the connection from the client
# port PORT, with RTT samples (and window scale WSCALE)
client_with() {
	local dump
	read_conns || return
	[[ $dump =~ \"dport\":[[:space:]]*$1,[^}]*\"rtt_samples\":[[:space:]]*([0-9]+),[^}]*\"wscale\":[[:space:]]*([0-9]+) ]] &&
		[ "${BASH_REMATCH[1]}" -gt 1 ] && { [ -z "${2:-}" ] || [ "${BASH_REMATCH[2]}" = "$2" ]; }
}
reopen_test() {
	ip netns exec "$RCV" nft -f - <<-EOF
		table inet rcvmgr_reopen {
			chain out {
				type filter hook output priority 0;
				tcp sport $reopen_port tcp flags & rst == rst drop
			}
		}
	EOF
	ip netns exec "$SND" sysctl -qw net.ipv4.tcp_retries2=2
	rcv_sysctl "net.ipv4.tcp_rmem=4096 131072 1073741824"
	# scale 14, two seconds, then a reset that never leaves RCV; SND gives up
	# after two retransmissions, sending nothing. No reset leaves RCV until
	# the new connection is seen (one would end the old entry): while SND
	# still holds the old connection, it answers the new SYN with a challenge
	# ACK, and the SYN is sent again until SND has given up
	fetch 10.1.0.2 5007 --sport $reopen_port --clamp 1073741824 --abort-after 2 >/dev/null
	client_with $reopen_port 14
	first=$?
	sleep 3
	long 5007 --sport $reopen_port --clamp 4194304 &
	f1=$!
	busywait $conns_wait client_with $reopen_port 7
	rc=$?
	[ $first = 0 ] || rc=1
	ip netns exec "$RCV" nft delete table inet rcvmgr_reopen
	ip netns exec "$SND" sysctl -qw net.ipv4.tcp_retries2=15
	rcv_defaults
	kill $f1 2>/dev/null
	wait $f1 2>/dev/null
	tap_result $rc "a connection reopened on the same ports after an unseen end: a new entry, its own window scale" \
		"first at scale 14: $([ $first = 0 ] && echo yes || echo no); $(json_get "[(c['dport'], c['wscale'], c['rtt_samples'], c['age_us']) for c in j if c['dport'] == $reopen_port]" <"$tmp/conns")"
}

# the connection from client port PORT as the dump has it: (state, age)
conn_of() {
	json_get "[(c['state'], c['age_us']) for c in j if c['dport'] == $1]" <"$tmp/conns"
}
# gone PORT: no entry left from client port PORT
gone() { read_conns && [[ ! $dump =~ \"dport\":[[:space:]]*$1, ]]; }
# (a reset lingers RCVMGR_RESET_LINGER_NS, 10 s, after the last packet)
gone_wait=30000
machine_slow && gone_wait=60000

# --- resets (RFC 5961 section 3.2): one far outside the window, from
# either end's address (a blind guess from off the path), and a FIN from
# the sender's, leave the connection managed (a forged FIN closed it once:
# no share, its window held); one where the receiver would put its own
# ends it
# rst_crossed: the resets to and from client port $rport that crossed the
# gateway (its table rcvmgr_rst)
rst_crossed() {
	nft_packets "$GW" rcvmgr_rst
}
outside_test() {
	rport=47002
	# the resets that cross the gateway, counted before the module sees them
	ip netns exec "$GW" nft -f - <<-EOF
		table inet rcvmgr_rst {
			chain resets {
				type filter hook forward priority 0;
				tcp sport $rport tcp flags & rst == rst counter
				tcp dport $rport tcp flags & rst == rst counter
			}
		}
	EOF
	long 5007 --sport $rport &
	f1=$!
	busywait $conns_wait client_with $rport
	age=$(json_get "[c['age_us'] for c in j if c['dport'] == $rport][0]" <"$tmp/conns")
	out=$(ip netns exec "$SND" python3 -S "$here/rst.py" eth0 10.1.0.2 5007 10.3.0.2 "$rport" \
		--offset $((1 << 30)) 2>&1 &&
		ip netns exec "$RCV" python3 -S "$here/rst.py" eth0 10.3.0.2 "$rport" 10.1.0.2 5007 \
			--offset $((1 << 30)) 2>&1 &&
		ip netns exec "$SND" python3 -S "$here/rst.py" eth0 10.1.0.2 5007 10.3.0.2 "$rport" \
			--offset $((1 << 30)) --fin 2>&1)
	rc=$?
	crossed=$(rst_crossed)
	read_conns
	# the same entry: older than before, still managed
	got=$(json_get "[(c['state'], c['age_us'] > $age) for c in j if c['dport'] == $rport]" <"$tmp/conns")
	[ $rc = 0 ] && [ "$crossed" = 2 ] &&
		[[ "$got" =~ ^\[\(\'(initial|persistent)\',\ True\)\]$ ]]
	tap_result $? "resets far outside the window from either end, and a FIN from the sender's: the connection stays, managed" \
		"$got, $crossed resets crossed; $(echo $out)"
	freed=$(stat_of freed)
	resets=$(stat_of resets)
	resumed=$(stat_of resumed)
	out=$(ip netns exec "$RCV" python3 -S "$here/rst.py" eth0 10.3.0.2 "$rport" 10.1.0.2 5007 2>&1)
	rc=$?
	busywait $gone_wait gone $rport
	left=$?
	freed=$(($(stat_of freed) - freed))
	resets=$(($(stat_of resets) - resets))
	resumed=$(($(stat_of resumed) - resumed))
	kill $f1 2>/dev/null
	wait $f1 2>/dev/null
	ip netns exec "$GW" nft delete table inet rcvmgr_rst
	[ $rc = 0 ] && [ $left = 0 ] && [ $freed -ge 1 ] && [ $resets -ge 1 ] && [ $resumed = 0 ]
	tap_result $? "a reset where the receiver would put its own: forgotten once quiet" \
		"gone: $([ $left = 0 ] && echo yes || echo no), $(conn_of $rport); $freed forgotten, $resets resets, $resumed resumed; $out"
}

# --- a receiver's reset that does not end its download: one 1000 bytes
# into the sender's window, which the sender answers with a challenge ACK
# and ignores (RFC 5961 section 3.2), and one where the receiver would put
# its own that dies past the gateway (dropped on SND's side). The gateway
# cannot tell them from one that ended it: the entry stays, managed, and
# once the receiver acknowledges data sent after the reset it is counted
# resumed (no conntrack on the gateway to adopt it from were it
# forgotten). Without that a LAN host takes its bulk download out of the
# policy (the old behaviour: the download went on as a new unscaled entry).
# So does one behind the receiver's own FIN (a half-close: the download
# goes on); one behind the sender's FIN frees the entry at once (no data
# can follow it), neither counted nor lingering 10 s.
# managed_again PORT AGE REWRITTEN: the entry from client port PORT is one
# older than AGE, managed, with more than REWRITTEN windows lowered
managed_again() {
	read_conns || return
	json_get "[1 for c in j if c['dport'] == $1 and c['state'] in ('initial', 'persistent') and \
		c['age_us'] > $2 and c['rewritten'] > $3]" <"$tmp/conns" | grep -q 1
}
# download_begin PORT [FETCH_ARG...]: a long download from client port PORT
# at window scale 14 (f1); its entry's age, scale and windows rewritten so
# far into the caller's age, scale and rewritten
download_begin() {
	local port=$1
	rcv_sysctl "net.ipv4.tcp_rmem=4096 131072 1073741824"
	long 5007 --sport "$port" --clamp 1073741824 "${@:2}" &
	f1=$!
	busywait $conns_wait client_with "$port"
	rcv_defaults
	age=$(json_get "[c['age_us'] for c in j if c['dport'] == $port][0]" <"$tmp/conns")
	scale=$(json_get "[c['wscale'] for c in j if c['dport'] == $port][0]" <"$tmp/conns")
	rewritten=$(json_get "[c['rewritten'] for c in j if c['dport'] == $port][0]" <"$tmp/conns")
}
# kept_test PORT WHAT OFFSET [drop [FETCH_ARG...]]
kept_test() {
	local port=$1 what=$2 offset=$3 drop=${4:-} age scale rewritten out rc again resets resumed
	local dropped=1 extra=("${@:5}")
	[ "$drop" ] && ip netns exec "$SND" nft -f - <<-EOF
		table inet rcvmgr_drop {
			chain in {
				type filter hook input priority 0;
				tcp sport $port tcp flags & rst == rst counter drop
			}
		}
	EOF
	download_begin $port "${extra[@]}"
	resets=$(stat_of resets)
	resumed=$(stat_of resumed)
	out=$(ip netns exec "$RCV" python3 -S "$here/rst.py" eth0 10.3.0.2 "$port" 10.1.0.2 5007 \
		--offset "$offset" 2>&1)
	rc=$?
	# (resumed within a round trip and a window of data: at once, here)
	busywait 30000 managed_again $port "${age:-0}" "${rewritten:-0}"
	again=$?
	resets=$(($(stat_of resets) - resets))
	resumed=$(($(stat_of resumed) - resumed))
	kill $f1 2>/dev/null
	wait $f1 2>/dev/null
	if [ "$drop" ]; then
		dropped=$(nft_packets "$SND" rcvmgr_drop)
		ip netns exec "$SND" nft delete table inet rcvmgr_drop
	fi
	[ $rc = 0 ] && [ "$scale" = 14 ] && [ $again = 0 ] && [ $resets -ge 1 ] &&
		[ $resumed -ge 1 ] && [ "$dropped" -ge 1 ]
	tap_result $? "a receiver's reset that did not end its download ($what): the same entry, managed, resumed" \
		"scale ${scale:-none}, $(conn_of $port) after; $resets resets, $resumed resumed${drop:+, $dropped dropped at SND}; $(echo $out)"
}

# --- the same inexact reset, then a receiver that keeps quiet (its own
# packets dropped on its side) for 40 s: the sender retransmits, its timer
# backing off, and once a gap between its retransmissions passed 10 s
# (about 25 s in) the code before forgot the entry, the gateway quiet that
# long since the reset; the next retransmission came back as a new
# unscaled entry, its windows out of the policy. A retransmission after
# the reset had reached the sender shows the reset did not end the
# connection: the entry stays, the same one, managed, counted resumed.
# rcv_hush TABLE PORT FLAGS: RCV's own segments from client port PORT
# dropped on its side (inet TABLE, to delete after), but those with one
# of FLAGS (nft's tcp flags)
rcv_hush() {
	ip netns exec "$RCV" nft -f - <<-EOF
		table inet $1 {
			chain out {
				type filter hook output priority 0;
				tcp sport $2 tcp flags & ($3) == 0 counter drop
			}
		}
	EOF
}
quiet_test() {
	local port=47020 age=0 scale rewritten out rc resets resumed unscaled dropped vanished=0 t0s
	download_begin $port
	resets=$(stat_of resets)
	resumed=$(stat_of resumed)
	unscaled=$(stat_of unscaled)
	rcv_hush rcvmgr_quiet $port rst
	# (its own segments dropped: the reset's number from the sender's ACKs)
	out=$(ip netns exec "$RCV" python3 -S "$here/rst.py" eth0 10.3.0.2 "$port" 10.1.0.2 5007 \
		--answer --offset 1000 2>&1)
	rc=$?
	t0s=$EPOCHSECONDS
	while ((EPOCHSECONDS - t0s < 40)); do
		gone $port && vanished=1
		sleep 1
	done
	dropped=$(nft_packets "$RCV" rcvmgr_quiet)
	ip netns exec "$RCV" nft delete table inet rcvmgr_quiet
	read_conns
	resets=$(($(stat_of resets) - resets))
	resumed=$(($(stat_of resumed) - resumed))
	unscaled=$(($(stat_of unscaled) - unscaled))
	kill $f1 2>/dev/null
	wait $f1 2>/dev/null
	[ $rc = 0 ] && [ "$scale" = 14 ] && [ $vanished = 0 ] && [ "$dropped" -ge 1 ] &&
		json_get "[1 for c in j if c['dport'] == $port and c['state'] in ('initial', 'persistent') \
			and c['age_us'] > ${age:-0} + 40000000]" <"$tmp/conns" | grep -q 1 &&
		[ $resets -ge 1 ] && [ $resumed -ge 1 ] && [ $unscaled = 0 ]
	tap_result $? "a receiver quiet for 40 s after its reset, the sender retransmitting: the same entry, managed, resumed" \
		"scale ${scale:-none}, vanished: $vanished, $(conn_of $port) after; $dropped of its packets dropped; $resets resets, $resumed resumed, $unscaled unscaled; $(echo $out)"
}
# --- the sender stalled first: the receiver withholds its ACKs (its own
# packets dropped on its side) until the sender's retransmissions come
# more than 10 s apart, 20 s in, then resets (inexact) right behind one
# and keeps quiet. Nothing crosses the gateway until the next, a gap
# twice the last: the entry is forgotten (the reset's 10 s of quiet) and
# the code before took that retransmission for a new connection, tracked
# unscaled, the rest of the download out of the policy (no conntrack on
# the gateway). What the gateway kept of the entry when it forgot it (any
# that carried data: this one stalls 64 KB in) makes it managed again,
# with its scale (recalled); the receiver's ACKs pass again meanwhile, and
# their windows are rewritten.
# carried PORT BYTES: the entry from client port PORT carried BYTES
carried() {
	read_conns &&
		json_get "[1 for c in j if c['dport'] == $1 and c['bytes'] >= $2]" <"$tmp/conns" |
		grep -q 1
}
stall_test() {
	local port=47021 out rc recalled unscaled dropped forgotten=no back=no scale_after
	# (its client waits for data through the whole stall, over a minute)
	download_begin $port --limit 300
	busywait $conns_wait carried $port 65536
	recalled=$(stat_of recalled)
	unscaled=$(stat_of unscaled)
	rcv_hush rcvmgr_stall $port rst
	sleep 20
	out=$(ip netns exec "$RCV" python3 -S "$here/rst.py" eth0 10.3.0.2 "$port" 10.1.0.2 5007 \
		--answer --offset 1000 --timeout 60 2>&1)
	rc=$?
	busywait $gone_wait gone $port && forgotten=yes
	dropped=$(nft_packets "$RCV" rcvmgr_stall)
	ip netns exec "$RCV" nft delete table inet rcvmgr_stall
	# (the next retransmission: up to twice the last gap, 20-40 s)
	busywait 90000 managed_again $port 0 0 && back=yes
	scale_after=$(json_get "[c['wscale'] for c in j if c['dport'] == $port]" <"$tmp/conns")
	recalled=$(($(stat_of recalled) - recalled))
	unscaled=$(($(stat_of unscaled) - unscaled))
	kill $f1 2>/dev/null
	wait $f1 2>/dev/null
	[ $rc = 0 ] && [ "$scale" = 14 ] && [ $forgotten = yes ] && [ "$dropped" -ge 1 ] &&
		[ $back = yes ] && [ "$scale_after" = "[14]" ] && [ $recalled -ge 1 ] &&
		[ $unscaled = 0 ]
	tap_result $? "a receiver that stalls its sender, resets and keeps quiet: forgotten, then managed again with its scale" \
		"scale ${scale:-none}, forgotten: $forgotten, back managed: $back, $(conn_of $port) scale $scale_after; $dropped of its packets dropped; $recalled recalled, $unscaled unscaled; $(echo $out)"
}
# --- a SYN of the receiver's own into its download, once it has been
# quiet a second (its ACKs withheld, the sender's retransmissions backing
# off past a second apart): the gateway takes it for a new connection on
# the same addresses and ports and opens a new entry in place of the old
# (the SYN, bare, offers no scaling). The sender answers it with a
# challenge ACK and goes on: its data, on an entry whose handshake never
# ends, passed unmanaged on the code before. The old entry (64 KB in)
# was kept: the sender's next data, on the new entry (within the 5 s an
# unanswered SYN's entry lives), manages it again from that, at scale 14.
# The SYN goes 1.5 s after the first retransmission that came a second or
# more after the one before it, nothing from the receiver between them
# (rst.py --gap, by the kernel's arrival stamps, the delay counted from
# that one's): as the sender doubles its gaps, that one's, G, is under
# 2 s unless its first retransmission came a second or more after the
# last ACK, and the next comes 2G - 1.5 s after the SYN: within 2.5 s,
# where the SYN's entry lives 5 s. rst.py listens before the
# receiver hushes: one started after a 2 s sleep (a Python start costs
# the loaded debug kernel seconds) once took the one after a 4 s gap, the
# sender's next data came when the SYN's entry had gone, and the download
# was recalled into a new entry (in place: no: the entry made 2.75 s after
# rst.py ended; so too with the sleep made 5 s, on 6.1).
syn_test() {
	local port=47022 out rc=0 recalled back=no inplace=no scale_after t_syn age_min rst
	download_begin $port --limit 300
	busywait $conns_wait carried $port 65536
	recalled=$(stat_of recalled)
	rst_begin $port --answer --syn --offset 5000 --gap 1 --delay 1.5 --timeout 30
	rcv_hush rcvmgr_syn $port "rst | syn"
	wait $rst || rc=1
	t_syn=$(now)
	out=$(rst_said)
	# (the SYN passed the gateway: its entry is the new one)
	sleep 1
	ip netns exec "$RCV" nft delete table inet rcvmgr_syn
	busywait 60000 managed_again $port 0 0 && back=yes
	# (the SYN's entry managed in place: about as old as the SYN)
	age_min=$(python3 -S -c "print(int(($(now) - $t_syn - 1) * 1e6))")
	managed_again $port "$age_min" 0 && inplace=yes
	scale_after=$(json_get "[c['wscale'] for c in j if c['dport'] == $port]" <"$tmp/conns")
	recalled=$(($(stat_of recalled) - recalled))
	kill $f1 2>/dev/null
	wait $f1 2>/dev/null
	[ $rc = 0 ] && [ "$scale" = 14 ] && [ $back = yes ] && [ $inplace = yes ] &&
		[ "$scale_after" = "[14]" ] && [ $recalled -ge 1 ]
	tap_result $? "a receiver's SYN into its own download after a quiet second: the download managed again with its scale" \
		"scale ${scale:-none}, back managed: $back, in place: $inplace (older than ${age_min}us), $(conn_of $port) scale $scale_after; $recalled recalled; $(echo $out)"
}
# a download of 1 MB whose receiver resets it once the sender's FIN came
# (the reset counted as it crosses the gateway): gone at the first look
# after it, before a closed connection's second of quiet (on the debug
# kernel, where one look takes seconds, well before the 10 s a reset that
# may not have ended one lingers), and not counted in resets
fin_rst_test() {
	ip netns exec "$GW" nft -f - <<-EOF
		table inet rcvmgr_fin_rst {
			chain resets {
				type filter hook forward priority 0;
				tcp sport 47011 tcp flags & rst == rst counter
			}
		}
	EOF
	freed=$(stat_of freed)
	resets=$(stat_of resets)
	out=$(fetch 10.1.0.2 5001 --sport 47011 --reset-at-end --limit 60)
	rc=$?
	t0=$(now)
	gone 47011
	first=$?
	# (it times the wait: looks every 100 ms, however long one takes)
	busywait_fixed 30000 gone 47011
	left=$?
	took=$(python3 -S -c "print(round($(now) - $t0, 1))")
	freed=$(($(stat_of freed) - freed))
	resets=$(($(stat_of resets) - resets))
	crossed=$(nft_packets "$GW" rcvmgr_fin_rst)
	ip netns exec "$GW" nft delete table inet rcvmgr_fin_rst
	[ $rc = 0 ] && [ $left = 0 ] && [ "$crossed" -ge 1 ] && [ $freed -ge 1 ] &&
		[ $resets = 0 ] &&
		if machine_slow; then python3 -S -c "import sys; sys.exit(not $took < 8)"
		else [ $first = 0 ]; fi
	tap_result $? "a receiver's reset behind the sender's FIN: forgotten at once, not counted" \
		"gone at the first look: $([ $first = 0 ] && echo yes || echo no), ${took}s after the download ended; $crossed resets crossed, $freed forgotten, $resets resets; $out"
}

# --- resets in the handshake, no conntrack on the gateway: the
# receiver's, where it would put its own, dropped past the gateway (on
# SND's side), after its SYN (the sender's SYN-ACK held back until the
# reset has crossed) and after the SYN-ACK (the receiver's ACKs held back
# instead), with and without TCP Fast Open (the sender's data then follows
# its SYN-ACK, and may cross the gateway before the reset: the entry is
# then established, as after the handshake). The handshake goes on, and
# the entry with it, managed at the SYN's window scale; after the SYN-ACK
# the reset is counted and the download resumed. The old code forgot the
# entry at such a reset: the download went on as a new unscaled one.
# What is held back waits $hold_s in a netem; the gateway counts what
# crosses it, and the check fails as set up wrong if the SYN-ACK (or RCV's
# ACK) crossed before the reset. RCV sends its SYN only once: a second one
# would open a new entry where the old code had forgotten one.
hold_s=2
machine_slow && hold_s=3	# (under the 5 s an entry that has not completed its handshake may be quiet)
# hold PORT: RCV's segments from client port PORT that carry an ACK and
# no reset wait $hold_s in RCV's qdisc (a prio's third band)
hold() {
	tc -n "$RCV" qdisc add dev eth0 root handle 1: prio bands 3 \
		priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
	tc -n "$RCV" qdisc add dev eth0 parent 1:3 handle 30: netem delay ${hold_s}s &&
	tc -n "$RCV" filter add dev eth0 parent 1: protocol ip prio 1 u32 \
		match ip protocol 6 0xff match ip sport "$1" 0xffff \
		match u8 0x10 0x14 at 33 flowid 1:3
}
tfo_passive() { ip netns exec "$SND" nstat -az TcpExtTCPFastOpenPassive | awk '/TcpExt/ { print $2 }'; }
# the resets SND's rcvmgr_drop table dropped
snd_dropped() {
	nft_packets "$SND" rcvmgr_drop
}
snd_dropped_one() { [ "$(snd_dropped)" -ge 1 ]; }
resumed_since() { [ "$(stat_of resumed)" -gt "$1" ]; }
# hold_synacks [DELAY]: SND's SYN-ACKs (from port 5007) wait DELAY
# [${hold_s}s], the rest its 20 ms as before; unhold_synacks: as it was
hold_synacks() {
	tc -n "$SND" qdisc replace dev eth0 root handle 1: prio bands 3 \
		priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
	tc -n "$SND" qdisc add dev eth0 parent 1:1 handle 10: netem delay 20ms limit 10000 &&
	tc -n "$SND" qdisc add dev eth0 parent 1:3 handle 30: netem delay "${1:-${hold_s}s}" limit 10000 &&
	tc -n "$SND" filter add dev eth0 parent 1: protocol ip prio 1 u32 \
		match ip protocol 6 0xff match ip sport 5007 0xffff \
		match u8 0x12 0x12 at 33 flowid 1:3
}
unhold_synacks() { tc -n "$SND" qdisc replace dev eth0 root netem delay 20ms limit 10000; }
# order_table PORT: the gateway counts the SYN-ACKs to client port PORT,
# and RCV's plain ACKs from it; and, in the kernel as they cross, the
# SYN-ACKs that come after a new connection's SYN (one with options from
# PORT behind a reset from PORT: the old connection ended) but before a
# SYN without options (rst.py's): "between". Nothing the host times
# decides what is counted.
order_table() {
	ip netns exec "$GW" nft -f - <<-EOF
		table inet rcvmgr_order {
			set ended { type ipv4_addr; flags dynamic; }
			set renewed { type ipv4_addr; flags dynamic; }
			set faked { type ipv4_addr; flags dynamic; }
			counter synacks { }
			counter acks { }
			counter renewals { }
			counter between { }
			chain seen {
				type filter hook forward priority 0;
				tcp sport $1 tcp flags & rst == rst add @ended { ip saddr }
				tcp sport $1 tcp flags & (syn | ack) == syn tcp doff 5 add @faked { ip saddr }
				tcp sport $1 tcp flags & (syn | ack) == syn tcp doff > 5 ip saddr @ended add @renewed { ip saddr } counter name renewals
				tcp dport $1 tcp flags & (syn | ack) == syn | ack ip daddr @renewed ip daddr != @faked counter name between
				tcp dport $1 tcp flags & (syn | ack) == syn | ack counter name synacks
				tcp sport $1 tcp flags & (syn | rst | ack) == ack counter name acks
			}
		}
	EOF
}
# what crossed the gateway so far: "SYNACKS ACKS" ("?" for one unread)
crossed() { nft_counters "$GW" rcvmgr_order synacks acks; }
early_test() {
	local port=$1 what=$2 when=$3 tfo=${4:-} rc=0 out got resets resumed dropped fo=0 args rst
	local synacks acks
	ip netns exec "$SND" nft -f - <<-EOF
		table inet rcvmgr_drop {
			chain in {
				type filter hook input priority 0;
				tcp sport $port tcp flags & rst == rst counter drop
			}
		}
	EOF
	order_table $port
	if [ "$when" = syn ]; then
		# the reset one past the SYN's number, before the SYN-ACK; RCV's
		# SYN once only (a quota of 100 bytes: one SYN, 60)
		ip netns exec "$RCV" nft -f - <<-EOF
			table inet rcvmgr_onesyn {
				chain out {
					type filter hook output priority 0;
					tcp sport $port tcp flags & (syn | ack) == syn quota over 100 bytes counter drop
				}
			}
		EOF
		tc -n "$SND" qdisc change dev eth0 root netem delay ${hold_s}s limit 10000 || rc=1
		args="--offset 1"
	else
		# the reset at the SYN-ACK's ACK number, before the last ACK
		hold $port || rc=1
		args=--answer
	fi
	if [ "$tfo" ]; then
		rcv_sysctl net.ipv4.tcp_fastopen=5	# client, no cookie
		# server, no cookie needed (xfer.py's listeners allow it)
		ip netns exec "$SND" sysctl -qw net.ipv4.tcp_fastopen=0x202
		fo=$(tfo_passive)
	fi
	rcv_sysctl "net.ipv4.tcp_rmem=4096 131072 1073741824"
	resets=$(stat_of resets)
	resumed=$(stat_of resumed)
	rst_begin $port $args --timeout $((conns_wait / 1000))
	long 5007 --sport $port --clamp 1073741824 $tfo &
	f1=$!
	wait $rst || rc=1
	# what crossed the gateway before the reset: nothing that was held
	read -r synacks acks <<<"$(crossed)"
	out="$(rst_said); before it $synacks SYN-ACKs, $acks ACKs"
	if [ "$when" = syn ]; then [ "$synacks" = 0 ] || rc=1; else [ "$acks" = 0 ] || rc=1; fi
	busywait 10000 snd_dropped_one
	dropped=$(snd_dropped)
	# what was held has left
	sleep $((hold_s + 1))
	if [ "$when" = syn ]; then
		tc -n "$SND" qdisc change dev eth0 root netem delay 20ms limit 10000
		ip netns exec "$RCV" nft delete table inet rcvmgr_onesyn
	else
		tc -n "$RCV" qdisc del dev eth0 root
	fi
	ip netns exec "$GW" nft delete table inet rcvmgr_order
	busywait $conns_wait client_with $port
	got=$(json_get "[(c['state'], c['wscale']) for c in j if c['dport'] == $port]" <"$tmp/conns")
	# (the first ACKs of data may have been held, and lost with the hold)
	[ "$when" = syn ] || busywait 30000 resumed_since $resumed
	resets=$(($(stat_of resets) - resets))
	resumed=$(($(stat_of resumed) - resumed))
	kill $f1 2>/dev/null
	wait $f1 2>/dev/null
	ip netns exec "$SND" nft delete table inet rcvmgr_drop
	rcv_defaults
	if [ "$tfo" ]; then
		fo=$(($(tfo_passive) - fo))
		rcv_sysctl net.ipv4.tcp_fastopen=1
		ip netns exec "$SND" sysctl -qw net.ipv4.tcp_fastopen=1
		[ $fo -ge 1 ] || rc=1
	fi
	# after the SYN-ACK the reset is counted and the download resumes;
	# before it (one SYN seen) the entry is an opening one: not counted
	if [ "$when" = syn ]; then
		[ $resets = 0 ] && [ $resumed = 0 ] || rc=1
	else
		[ $resets -ge 1 ] && [ $resumed -ge 1 ] || rc=1
	fi
	[ $rc = 0 ] && [ "$dropped" -ge 1 ] && [[ "$got" =~ ^\[\(\'(initial|persistent)\',\ 14\)\]$ ]]
	tap_result $? "a receiver's reset $what, lost past the gateway: the handshake's entry, managed" \
		"$got; $resets resets, $resumed resumed, $dropped dropped at SND before the rest went${tfo:+, $fo Fast Open}; $(echo $out)"
}

# --- a SYN with another number and no window scaling right behind the
# receiver's own, before the SYN-ACK, dying past the gateway (dropped at
# SND; the SYN-ACK held $hold_s, the gateway counting that none crossed
# first; RCV's own SYN sent once, as its retransmission would open the
# entry again): the entry keeps the scale the first SYN offered, 14.
# Before, a SYN ahead of the answer opened a new entry in place of the
# first, and the download was rewritten at scale 0.
fake_syn_test() {
	ip netns exec "$RCV" nft -f - <<-EOF
		table inet rcvmgr_onesyn {
			chain out {
				type filter hook output priority 0;
				tcp sport 47015 tcp flags & (syn | ack) == syn tcp doff != 5 quota over 100 bytes counter drop
			}
		}
	EOF
	ip netns exec "$SND" nft -f - <<-EOF
		table inet rcvmgr_fake {
			chain in {
				type filter hook input priority 0;
				tcp sport 47015 tcp flags & (syn | ack) == syn tcp doff 5 counter drop
			}
		}
	EOF
	order_table 47015
	rc=0
	rcv_sysctl "net.ipv4.tcp_rmem=4096 131072 1073741824"
	hold_synacks || rc=1
	rst_begin 47015 --syn --offset 12345 --timeout $((conns_wait / 1000))
	long 5007 --sport 47015 --clamp 1073741824 &
	f1=$!
	wait $rst || rc=1
	read -r synacks acks <<<"$(crossed)"
	[ "$synacks" = 0 ] || rc=1
	sleep $((hold_s + 1))
	unhold_synacks
	ip netns exec "$RCV" nft delete table inet rcvmgr_onesyn
	busywait $conns_wait client_with 47015 14 || rc=1
	rcv_defaults
	kill $f1 2>/dev/null
	wait $f1 2>/dev/null
	dropped=$(nft_packets "$SND" rcvmgr_fake)
	ip netns exec "$SND" nft delete table inet rcvmgr_fake
	ip netns exec "$GW" nft delete table inet rcvmgr_order
	[ $rc = 0 ] && [ "$dropped" -ge 1 ]
	tap_result $? "a SYN with another number and no scaling behind the receiver's own, before the answer: the first SYN's scale kept" \
		"$(json_get "[(c['state'], c['wscale']) for c in j if c['dport'] == 47015]" <"$tmp/conns"); $(rst_said), before it $synacks SYN-ACKs; $dropped dropped at SND"
}

# --- a new connection on the same addresses and ports right after an
# exact reset ended the old one (from one process: within milliseconds,
# well inside the second a SYN needs to reopen a quiet connection): the
# old one at window scale 0, the new one at 14. The sender's SYN-ACK to
# the new SYN shows the old connection ended: a new entry, the new
# handshake's scale. The old code kept the old entry and its scale 0: the
# new download's windows passed at 2^14 times what was meant. (The old
# connection's reset is counted: it was the established one.) Then the
# same with a second SYN behind the new one, with another number and no
# window scale, dropped past the gateway (the sender's SYN-ACKs held
# $hold_s from the start, the old connection's too, and its data flowing
# on unheld until the reconnection, so that the old entry is never quiet
# a second; the gateway counting, as they cross, the SYN-ACKs between
# the new SYN, after the old one's reset, and the fake one: none): the SYN-ACK answers the first, and the
# entry keeps the larger scale offered. The hold is 500 ms, under the
# second after which the client sends its SYN again (which, quiet a
# second after the first, reopens the entry the ordinary way: with that,
# the code before passed); on the debug kernel, where rst.py may take
# longer, it is $hold_s and the check cannot fail on the code before.
# Noting only the latest SYN, the SYN-ACK matched nothing and the old
# entry's scale 0 stayed.
# A miss on the order alone (reconnect_once's status 3: the emulator
# paused rst.py past the hold) is tried once more, on PORT + 1000, and
# the second try decides. Any other miss (the scale, the entry, the
# reset) is not tried again; the code before the fix keeps scale 0.
# (Until stop 68 the order was judged by the SYN-ACKs counted when
# rst.py had exited: on 6.1, beside other guests, its exit and the read
# after it took longer than the hold, and the new connection's own
# SYN-ACK was counted, both tries, in CI: a miss of the test, not of the
# code.)
reconnect_test() {
	local out rc first
	rm -f "$tmp/reconnect.$1"
	out=$(reconnect_once "$@")
	rc=$?
	if [ $rc = 3 ]; then
		first=$out
		out=$(reconnect_once "$@")
		rc=$?
		out+="; first try missed on the order count alone: $first"
	fi
	tap_result $rc "a new connection on the same ports at once after a reset ended the old one$2: its own entry and window scale" \
		"$out"
}
reconnect_once() {
	local port=$1 fake=${3:-} rc=0 order=0 resets out= synacks acks rst abort=1 rst_rc=0 renewals between
	# (the second try, in a subshell of its own as the first: ports of
	# its own, the first's connections gone)
	[ -e "$tmp/reconnect.$1" ] && port=$(($1 + 1000))
	: >"$tmp/reconnect.$1"
	rcv_sysctl "net.ipv4.tcp_rmem=4096 131072 1073741824"
	resets=$(stat_of resets)
	if [ "$fake" ]; then
		ip netns exec "$SND" nft -f - <<-EOF
			table inet rcvmgr_fake {
				chain in {
					type filter hook input priority 0;
					tcp sport $port tcp flags & (syn | ack) == syn tcp doff 5 counter drop
				}
			}
		EOF
		order_table $port
		if machine_slow; then hold_synacks || rc=1; else hold_synacks 500ms || rc=1; fi
		rst_begin $port --second-syn --offset 12345 --timeout $((conns_wait / 1000))
		# (time for the old connection's SYN-ACKs, the first and the one
		# its SYN sent again brought, to cross before its reset: one
		# after it would count as "between")
		abort=4
		machine_slow && abort=$((3 * hold_s + 2))
	fi
	long 5007 --count 2 --sport $port --clamp 65535,1073741824 --abort-after $abort,0 &
	f1=$!
	if [ "$fake" ]; then
		wait $rst || { rst_rc=$?; rc=1; }
		# a new SYN seen after the reset, and no SYN-ACK between it
		# and the fake one
		read -r renewals between synacks \
			<<<"$(nft_counters "$GW" rcvmgr_order renewals between synacks)"
		[ "$between" = 0 ] && [ "$renewals" != "?" ] && [ "$renewals" -ge 1 ] || order=1
		out="; $(rst_said), $between SYN-ACKs between the new SYN and it ($renewals new SYNs after the reset), $synacks in all, rst.py exit $rst_rc"
		sleep $((hold_s + 1))
		unhold_synacks
	fi
	busywait $conns_wait client_with $port 14 || rc=1
	resets=$(($(stat_of resets) - resets))
	rcv_defaults
	kill $f1 2>/dev/null
	wait $f1 2>/dev/null
	if [ "$fake" ]; then
		local dropped
		dropped=$(nft_packets "$SND" rcvmgr_fake)
		ip netns exec "$SND" nft delete table inet rcvmgr_fake
		ip netns exec "$GW" nft delete table inet rcvmgr_order
		[ "$dropped" -ge 1 ] || rc=1
		out+=", $dropped dropped at SND"
	fi
	echo "port $port: $(json_get "[(c['state'], c['wscale'], c['age_us']) for c in j if c['dport'] == $port]" <"$tmp/conns"); $resets resets$out"
	[ $rc = 0 ] && [ $resets -ge 1 ] || return 1
	[ $order = 0 ] || return 3
}

# --- a receiver that sends its ACKs in IPv4 fragments, no conntrack on
# the gateway: copies of its newest ACK with the widest window (65535 at
# scale 7, 8 MB), each in two fragments, TTL 200 so that SND can tell them
# (fragack.py). The gateway reassembles them and lowers their windows as
# any other's: none reaches SND as the receiver wrote it. SND counts the
# fragments that reach it (the gateway sent them on in fragments), the
# copies it reassembled, and the ACKs of the download with that window.
# The old code did not parse a fragment, and every copy's window reached
# the sender: the download out of the policy.
frag_acks_test() {
	ip netns exec "$SND" nft -f - <<-EOF
		table inet rcvmgr_frag {
			counter fragments { }
			counter copies { }
			counter wide { }
			chain pre {
				type filter hook prerouting priority -450;
				ip saddr 10.3.0.2 ip frag-off & 0x3fff != 0 counter name fragments
			}
			chain in {
				type filter hook input priority 0;
				ip saddr 10.3.0.2 tcp sport 47016 ip ttl > 150 counter name copies
				ip saddr 10.3.0.2 tcp sport 47016 tcp window 65535 counter name wide
			}
		}
	EOF
	long 5007 --sport 47016 &
	f1=$!
	busywait $conns_wait client_with 47016 7
	rc=$?
	out=$(ip netns exec "$RCV" python3 -S "$here/fragack.py" eth0 10.3.0.2 47016 10.1.0.2 \
		5007 2>&1) || rc=1
	sleep 1
	read -r frags copies wide <<<"$(nft_counters "$SND" rcvmgr_frag fragments copies wide)"
	read_conns
	got=$(json_get "[(c['state'], c['wscale']) for c in j if c['dport'] == 47016]" \
		<"$tmp/conns")
	kill $f1 2>/dev/null
	wait $f1 2>/dev/null
	ip netns exec "$SND" nft delete table inet rcvmgr_frag
	[ $rc = 0 ] && [ "$frags" != "?" ] && [ "$frags" -ge 2 ] && [ "$copies" != "?" ] &&
		[ "$copies" -ge 1 ] && [ "$wide" = 0 ]
	tap_result $? "a receiver's ACKs in IPv4 fragments: reassembled at the gateway, their windows lowered" \
		"at SND: $frags fragments, $copies copies, $wide with the receiver's window 65535; $got; $out"
}

# --- the sender's data in IPv4 fragments (SND sends without DF, the WAN's
# link to the gateway takes 1280 bytes): reassembled at the gateway, the
# download is managed as any other (RTT samples, windows lowered), and a
# receiver's reset behind the fragmented data leaves it managed, resumed.
# The gateway counts the fragments that reach it, so that the check fails
# as set up wrong if none did. The old code saw none of the data: no RTT,
# its ACKs passed as written. No DF: a route to RCV whose MTU is locked
# (ip_no_pmtu_disc would reach only sockets made after it, not the
# listener's; and its ICMP would leave a 552-byte route behind).
frag_data_test() {
	ip -n "$SND" route add 10.3.0.2/32 via 10.1.0.1 mtu lock 1500
	ip -n "$WAN" link set eth1 mtu 1280
	ip netns exec "$GW" nft -f - <<-EOF
		table inet rcvmgr_fragdata {
			counter fragments { }
			chain pre {
				type filter hook prerouting priority -450;
				ip saddr 10.1.0.2 ip frag-off & 0x3fff != 0 counter name fragments
			}
		}
	EOF
	kept_test 47017 "behind data that came in IPv4 fragments" 1000
	frags=$(nft_counters "$GW" rcvmgr_fragdata fragments)
	ip netns exec "$GW" nft delete table inet rcvmgr_fragdata
	ip -n "$WAN" link set eth1 mtu 1500
	ip -n "$SND" route del 10.3.0.2/32
	ip -n "$SND" route flush cache
	[ "$frags" != "?" ] && [ "$frags" -ge 2 ]
	tap_result $? "the download's data reached the gateway in IPv4 fragments" "$frags fragments"
}

# --- with conntrack on the gateway
# adopted_with PORT WSCALE: the dump holds a persistent connection from
# the client port PORT at scale WSCALE whose windows were lowered
adopted_with() {
	local dump
	read_conns || return
	[[ $dump =~ \"dport\":[[:space:]]*$1,[^}]*\"state\":[[:space:]]*\"persistent\",[^}]*\"wscale\":[[:space:]]*$2,[^}]*\"rewritten\":[[:space:]]*[1-9] ]]
}
conntrack_test() {
	ip netns exec "$GW" nft -f - <<-EOF
		table inet rcvmgr_ct {
			chain track {
				type filter hook forward priority 0;
				ct state established counter
			}
		}
	EOF
	# a reset lost past the gateway, which conntrack takes as the end (an
	# exact one: its state goes to CLOSE): the entry stays, managed, resumed,
	# whatever conntrack now holds
	kept_test 47013 "lost past the gateway, conntrack on it" 0 drop

	# a download that began while the gateway's namespace was not configured
	# (no hooks): once it is, the download's next data finds no entry, and it
	# is managed from conntrack's record of its handshake
	rport=47004
	established() { ip netns exec "$RCV" ss -tnH state established "sport = :$1" | grep -q .; }
	rset wan none lan none
	long 5007 --sport $rport &
	f1=$!
	busywait $conns_wait established $rport
	up=$?
	rset wan eth0 lan 10.3.0.0/24 lan fd00:3::/64
	rc=$?
	busywait 30000 adopted_with $rport 7
	managed=$?
	kill $f1 2>/dev/null
	wait $f1 2>/dev/null
	got=$(json_get "[(c['state'], c['wscale'], c['rewritten']) for c in j if c['dport'] == $rport]" <"$tmp/conns")
	[ $up = 0 ] && [ $rc = 0 ] && [ $managed = 0 ]
	tap_result $? "with conntrack, a download that began before the gateway was configured: managed once it is" \
		"$got; download up: $([ $up = 0 ] && echo yes || echo no)"
}

# --- loss: SACK in use, checksums right whether the ACKs reach the gateway
# with their checksum to complete (CHECKSUM_PARTIAL) or complete; the WAN
# computes them in software and the sender verifies every one
lossy() {
	local name=$1 out rc before after drops res
	before=$(ip netns exec "$SND" nstat -az TcpInCsumErrors | awk '/TcpInCsumErrors/ { print $2 }')
	drops=$(tc -n "$SND" -s qdisc show dev eth0 | awk '/dropped/ { sub(",", "", $7); print $7; exit }')
	capture eth0 "$tmp/l.pcap"
	out=$(fetch 10.1.0.2 5001 --limit 90)
	rc=$?
	stop_capture
	after=$(ip netns exec "$SND" nstat -az TcpInCsumErrors | awk '/TcpInCsumErrors/ { print $2 }')
	drops=$(($(tc -n "$SND" -s qdisc show dev eth0 | awk '/dropped/ { sub(",", "", $7); print $7; exit }') - drops))
	res=$(python3 -S "$here/wincheck.py" "$tmp/l.pcap" 5001 --limit 32768)
	echo "$res" | json_get "j['sack_acks'] > 0 and j['over'] == 0 and j['shrinks'] == 0 and \
		j['stale'] * 20 <= j['acks'] and j['retransmits'] <= 3 * $drops + 10" | grep -q True &&
		[ $rc = 0 ] && [ "$((after - before))" = 0 ] && [ "$drops" -gt 0 ]
	tap_result $? "$name" "$drops dropped, $(echo "$res" | json_get "'%d retransmitted, %d ACKs with SACK, over %d, shrinks %d, stale %d' % (j['retransmits'], j['sack_acks'], j['over'], j['shrinks'], j['stale'])"), $((after - before)) checksum errors"
}
loss_test() {
	ip netns exec "$WAN" ethtool -K eth0 tx off >/dev/null
	ip netns exec "$SND" ethtool -K eth0 rx off >/dev/null
	tc -n "$SND" qdisc change dev eth0 root netem delay 20ms loss 2% limit 10000
	lossy "2% loss, ACKs with checksums to complete: SACK, checksums right"
	ip netns exec "$RCV" ethtool -K eth0 tx off >/dev/null
	if ! machine_slow; then
		lossy "2% loss, ACKs with complete checksums: SACK, checksums right"
	else
		slow_skip "2% loss, ACKs with complete checksums: SACK, checksums right"
	fi
	ip netns exec "$RCV" ethtool -K eth0 tx on >/dev/null
	tc -n "$SND" qdisc change dev eth0 root netem delay 20ms limit 10000
}

# --- priorities from rules; RTT measured with and without timestamps
# What the RTT can be: 40 ms of path, plus the queue at the access link,
# which the 32 KB budget (the equal policy's, fixed) holds to at most
# 32 KB at 4 Mbit/s, 66 ms; 200 ms leaves the emulated machine's own
# delays a margin and is still under the 302 ms of a full 128 KB buffer
RTT_LO=40000 RTT_HI=200000
# rtt_test DESC PORTS...: each connection from PORTS in the last dump has
# an RTT of RTT_LO or more (a hard check: the path's delay) and RTT_HI or
# less (a timing check: an emulated machine's delays add to it)
rtt_test() {
	local desc=$1 ports got
	shift
	ports=$(IFS=,; echo "$*,")
	got=$(json_get "[(c['sport'], c['rtt_us'], c['rtt_samples']) for c in j if c['sport'] in ($ports)]" <"$tmp/conns")
	if ! json_get "len([c for c in j if c['sport'] in ($ports) and c['rtt_us'] >= $RTT_LO and c['rtt_samples'] > 1]) == $#" <"$tmp/conns" | grep -q True; then
		tap_result 1 "$desc" "port, rtt us, samples: $got"
	else
		json_get "all(c['rtt_us'] <= $RTT_HI for c in j if c['sport'] in ($ports))" <"$tmp/conns" | grep -q True
		tap_timing_result $? "$desc" "port, rtt us, samples: $got"
	fi
}
priorities_test() {
	ip netns exec "$GW" nft -f - <<-EOF
		table inet rcvmgr_test {
			chain pre {
				type filter hook prerouting priority 0;
				tcp dport 5008 meta mark set 0x5
			}
		}
	EOF
	rset rule port 5002 priority 4 rule dscp 10 priority 2 rule mark 0x5/0xff priority 7
	tap_result $? "three priority rules: port, DSCP, mark"
	long 5002 &
	f1=$!
	long 5003 --dscp 10 &
	f2=$!
	long 5008 &
	f3=$!
	busywait $conns_wait conns_with 3 5002 5003 5008
	kill $f1 $f2 $f3 2>/dev/null
	wait $f1 $f2 $f3 2>/dev/null
	got=$(json_get "sorted((c['sport'], c['priority']) for c in j if c['sport'] in (5002, 5003, 5008))" <"$tmp/conns")
	[ "$got" = "[(5002, 4), (5003, 2), (5008, 7)]" ]
	tap_result $? "connections get the priority of their rule" "$got"
	rtt_test "RTT measured with timestamps: 40 ms of path plus at most the 32 KB budget's queue" \
		5002 5003 5008
	rcv_sysctl net.ipv4.tcp_timestamps=0
	long 5002 &
	f1=$!
	busywait $conns_wait conns_with 1 5002
	kill $f1 2>/dev/null
	wait $f1 2>/dev/null
	rcv_defaults
	rtt_test "RTT measured without timestamps: within the same bounds" 5002
	rset rule none
}

# --- section 5: greedy senders are not taken for limited ones. Under a
# fixed budget above the path's BDP, three bulk downloads keep their windows
# full, so each is given its share (its threshold), not what a short look
# at its flight suggests
# bulk_start SECONDS: three bulk downloads from port 5007 for at most
# SECONDS; their pids in $bulk
bulk_start() {
	local p

	bulk=
	for p in 1 2 3; do
		ip netns exec "$RCV" timeout "$1" python3 -S "$here/xfer.py" fetch 10.1.0.2 5007 \
			--limit 30 >/dev/null 2>&1 &
		bulk+=" $!"
	done
}

greedy_test() {
	# (the connections before, forgotten: none takes a share)
	busywait 20000 no_conns
	rset policy azuma budget-min 48k budget-max 48k budget-init 48k interval 1s \
		initial-window 10
	bulk_start 30
	sleep 6
	: >"$tmp/share"
	for i in 1 2 3 4 5 6; do
		ctl -j rcvmgr conns >>"$tmp/share"
		sleep 1
	done
	kill $bulk 2>/dev/null
	wait $bulk 2>/dev/null
	# (window / threshold) of each bulk connection in each dump; most at 3/4 or more
	res=$(python3 -S - "$tmp/share" <<-'PY'
	import json, sys
	text, dec, i, r = open(sys.argv[1]).read(), json.JSONDecoder(), 0, []
	while True:
	    while i < len(text) and text[i].isspace():
	        i += 1
	    if i >= len(text):
	        break
	    dump, i = dec.raw_decode(text, i)
	    r += [c["window_bytes"] / c["threshold_bytes"] for c in dump
	          if c["sport"] == 5007 and c["state"] == "persistent" and c["threshold_bytes"]]
	full = sum(x >= 0.75 for x in r)
	print("ok" if len(r) >= 12 and full >= 0.8 * len(r) else "short",
	      f"{full} of {len(r)} windows at 3/4 of the share or more,",
	      f"lowest {min(r, default=0):.2f}")
	PY
	)
	[ "${res%% *}" = ok ]
	tap_timing_result $? "greedy bulk downloads get their share of the budget (section 5)" \
		"${res#* }"
}

# --- a download that begins behind a standing queue: its least RTT holds
# that queue, it never sees its RTT rise, and the vote stays split (the
# first one's rose) while B keeps the queue standing. A probe (a quarter of
# B for a few RTTs) drains it: the late one learns the path's RTT, and then
# B comes down as both RTTs stand above their least.
# downloads from port 5007 in the table: at least $1
downloads() {
	[ "$(ctl -j rcvmgr conns | json_get "sum(c.get('sport') == 5007 for c in j)")" -ge "$1" ]
}
late_test() {
	if machine_slow; then
		slow_skip "a download begun behind a standing queue learns its least RTT (a probe)"
		slow_skip "then the budget comes down: at least four cuts"
		return
	fi
	busywait 20000 no_conns
	# (no RTT counts as increased at first: B stays at its 48 KB, the first
	# download's window reaches it, 28 KB queued: 56 ms)
	rset policy azuma budget-min 6k budget-max 48k budget-init 48k interval 1s \
		rtt-tolerance 1000
	ctl -j rcvmgr stats >"$tmp/late.before"
	late=
	for n in 1 2; do
		ip netns exec "$RCV" timeout 60 python3 -S "$here/xfer.py" fetch 10.1.0.2 5007 \
			--limit 30 >/dev/null 2>&1 &
		late+=" $!"
		busywait 20000 downloads $n
		sleep 2
	done
	rset rtt-tolerance 20
	sleep 8
	ctl -j rcvmgr conns >"$tmp/late.conns"
	ctl -j rcvmgr stats >"$tmp/late.after"
	kill $late 2>/dev/null
	wait $late 2>/dev/null
	res=$(python3 -S - "$tmp/late.conns" "$tmp/late.before" "$tmp/late.after" <<-'PY'
	import json, sys
	conns = [c for c in json.load(open(sys.argv[1])) if c.get("sport") == 5007]
	b, a = (json.load(open(f)) for f in sys.argv[2:4])
	probes = a["probes"] - b["probes"]
	down = a["budget_down"] - b["budget_down"]
	if len(conns) != 2:
	    print("none", "none", f"{len(conns)} downloads in the table, not 2")
	    sys.exit()
	first, late = sorted(conns, key=lambda c: -c["age_us"])
	# the same path: within a quarter of each other (without the probe, the
	# late one kept the queue it began behind: 88 ms against 41)
	learnt = late["rtt_min_us"] <= first["rtt_min_us"] * 1.25 and probes >= 1
	print("ok" if learnt else "no", "ok" if down >= 4 else "no",
	      f"least RTT {first['rtt_min_us'] / 1000:.1f} ms, the late one's",
	      f"{late['rtt_min_us'] / 1000:.1f} ms; {probes} probes, B down {down} times,",
	      f"B now {a['budget_bytes']}")
	PY
	)
	read -r learnt came_down detail <<<"$res"
	[ "$learnt" = ok ]
	tap_timing_result $? "a download begun behind a standing queue learns its least RTT (a probe)" "$detail"
	[ "$came_down" = ok ]
	tap_timing_result $? "then the budget comes down: at least four cuts" "$detail"
}

# --- three bulk downloads fill the access link's buffer; short ones beside
# them finish faster under azuma than with the module only watching (off);
# azuma's budget moves as the RTTs rise above their least; the tracepoints fire
# beside POLICY: 8 downloads of 30 KB beside 3 bulk ones; their median time
beside() {
	local bulk
	rset policy "$1" budget-min 6k budget-max 48k budget-init 32k interval 1s
	bulk_start 25
	sleep 6
	fetch 10.1.0.2 5005 --count 8 --gap 0.5 --limit 20 >"$tmp/short.$1"
	ctl -j rcvmgr stats >"$tmp/stats.$1"
	kill $bulk 2>/dev/null
	wait $bulk 2>/dev/null
	python3 -S -c "import json,statistics,sys; t=[json.loads(l)['transfer_s'] for l in open(sys.argv[1])]; print('%.3f' % statistics.median(t) if len(t) == 8 else 'none')" "$tmp/short.$1"
}
beside_test() {
	if machine_slow; then
		slow_skip "short downloads beside bulk ones, the budget, the tracepoints"
		return
	fi
	tr=/sys/kernel/tracing
	[ -d $tr/events ] || tr=/sys/kernel/debug/tracing
	p50_off=$(beside off)
	sleep 2	# the bulk connections end
	if [ -d $tr/events/tcp_rcvmgr ]; then
		echo >$tr/trace
		echo 1 >$tr/events/tcp_rcvmgr/enable
	fi
	bpf_kernel() { grep -qw __sys_bpf /proc/kallsyms && grep -qw trace_call_bpf /proc/kallsyms; }
	bt=
	if command -v bpftrace >/dev/null && bpf_kernel; then
		bt=$tmp/bt
		timeout 120 bpftrace "$top/tools/bpftrace/rcvmgr-windows.bt" >"$bt" 2>&1 &
		tracer=$!
		busywait 90000 grep -q "^Tracing" "$bt"
	fi
	ctl -j rcvmgr stats >"$tmp/stats.before"
	p50_az=$(beside azuma)
	# With the module off, the bulk downloads keep the 128 KB buffer full:
	# each of a short download's three or four round trips waits about
	# 300 ms. Under azuma the windows add up to the budget, at most 48 KB,
	# which holds the queue under 60 ms: at most half the time.
	[ "$p50_off" != none ] && [ "$p50_az" != none ] && within "$p50_az" 0 "$p50_off / 2"
	tap_timing_result $? "short downloads beside three bulk ones: at most half the time under azuma" \
		"median ${p50_az} s under azuma, ${p50_off} s with the module off"
	# The budget starts at 32 KB, above the 20 KB the path holds (4 Mbit/s
	# for 40 ms), so the bulk downloads hold 12 KB in the queue, 24 ms, far
	# above the RTT tolerance (20 % of 40 ms: about 4 KB of queue). Each
	# interval with the RTTs up cuts B by 10 %: reaching 24 KB takes three
	# cuts, and B ends below where it started. Counted over this run alone.
	got=$(python3 -S - "$tmp/stats.before" "$tmp/stats.azuma" <<-'EOF'
	import json, sys
	b, a = (json.load(open(f)) for f in sys.argv[1:3])
	d = {k: a[k] - b[k] for k in ("intervals", "budget_up", "budget_down")}
	ok = d["intervals"] >= 5 and d["budget_down"] >= 3 and a["budget_bytes"] < 32768
	print(ok, "intervals %(intervals)d, up %(budget_up)d, down %(budget_down)d," % d,
	      "B at the end %d" % a["budget_bytes"])
	EOF
	)
	[ "${got%% *}" = True ]
	tap_timing_result $? "azuma: the budget comes down from 32 KB as the RTTs rise" "${got#* }"
	if [ -d $tr/events/tcp_rcvmgr ]; then
		echo 0 >$tr/events/tcp_rcvmgr/enable
		nb=$(grep -c "tcp_rcvmgr_budget:" $tr/trace)
		nw=$(grep -c "tcp_rcvmgr_window:" $tr/trace)
		[ "$nb" -ge 5 ] && [ "$nw" -gt 0 ]
		tap_result $? "tracepoints tcp_rcvmgr_budget and tcp_rcvmgr_window fire" "$nb budget, $nw window events"
	else
		tap_result $ksft_skip "tracepoints tcp_rcvmgr_budget and tcp_rcvmgr_window fire" "no tracefs"
	fi
	if [ -n "$bt" ]; then
		kill $tracer 2>/dev/null
		wait $tracer 2>/dev/null
		grep -q "^[0-9:]* budget [0-9]* -> [0-9]*:" "$bt" && grep -q "^@written\[" "$bt"
		tap_result $? "rcvmgr-windows.bt shows budget changes and windows written" \
			"$(grep -c " budget " "$bt") budget lines, $(grep -c "^@written" "$bt") windows"
		grep -q "^[0-9:]* budget " "$bt" || head -n 5 "$bt" | sed 's/^/# /'
	else
		tap_result $ksft_skip "rcvmgr-windows.bt shows budget changes and windows written" \
			"no bpftrace, or a kernel without CONFIG_BPF_SYSCALL and CONFIG_BPF_EVENTS"
	fi
}

# --- a full table: new connections pass unmanaged, nothing is dropped
# (once the bulk connections, and what arrived after they ended, are
# forgotten: those a reset ended 10 s after their last packet). A long
# download a check killed may outlive the kill on the debug kernel (one
# did, still downloading 70 s later, its process started slowly): what
# is still running here is no ended connection, and goes first.
table_test() {
	# (the receiver's own: its namespace's processes, not every one a
	# pattern matches; none but the receiver's, where it mattered)
	local p cmd killed=
	for p in $(ip netns pids "$RCV"); do
		cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline") || continue
		[[ "$cmd" == *"$here/xfer.py fetch"* ]] && kill "$p" 2>/dev/null && killed=1
	done
	[ -z "$killed" ] || sleep 1
	busywait 30000 no_conns
	rc=$?
	read_conns
	tap_result $rc "connections that ended, by FIN or RST, are forgotten" \
		"$(stat_of conns) left: $(json_get "[(c['sport'], c['dport'], c['state'], c['age_us'], c['bytes']) for c in j]" <"$tmp/conns")"
	rset policy equal budget-min 32k budget-max 32k budget-init 32k max-conns 2
	# refused: SYNs not tracked, for a full table (full) or because half of
	# it already held connections without data (opening-full: here, one)
	syns_refused() { echo $(($(stat_of full) + $(stat_of opening_full))); }
	full=$(syns_refused)
	created=$(($(stat_of created) - $(stat_of unscaled)))
	# (the four open at once by construction: four fetches of their own, each
	# a Python started in turn, did not overlap on the debug kernel, where one
	# ended before the last began and three were tracked)
	fetch 10.1.0.2 5004 --count 4 --together --limit 30 >/dev/null
	ok=$?
	full=$(($(syns_refused) - full))
	# (a refused one may be tracked unscaled later, when a slot frees)
	created=$(($(stat_of created) - $(stat_of unscaled) - created))
	# every SYN was tracked or counted; at least two were refused
	[ $ok = 0 ] && [ $full -ge 2 ] && [ $((full + created)) = 4 ]
	tap_result $? "max-conns 2, four downloads: all complete, the untracked counted" \
		"$created tracked, $full counted full or opening-full"
}

# --- connections ending on the gateway itself (local in, local out): the
# gateway's address is not in the LAN prefixes, so managed by the WAN device
local_test() {
	rset lan none
	busywait 20000 no_conns
	capture eth0 "$tmp/g.pcap"
	ip netns exec "$GW" python3 -S "$here/xfer.py" fetch 10.1.0.2 5001 --limit 60 >/dev/null
	rc=$?
	stop_capture
	res=$(python3 -S "$here/wincheck.py" "$tmp/g.pcap" 5001 --limit 32768)
	# (stale: older ACKs the sender ignores, at most one in twenty)
	echo "$res" | json_get "j['acks'] > 50 and j['over'] == 0 and j['shrinks'] == 0 and \
		j['stale'] * 20 <= j['acks'] and j['max_window'] >= 32768 - 128" | grep -q True && [ $rc = 0 ]
	tap_result $? "a download to the gateway itself is managed" \
		"$(echo "$res" | json_get "'%d ACKs, max %d, over %d, shrinking %d, stale %d' % (j['acks'], j['max_window'], j['over'], j['shrinks'], j['stale'])"), fetch exit $rc"
}

# --- unload while managed connections transfer: they complete
unload_test() {
	created=$(stat_of created)
	grew() { [ "$(stat_of created)" -gt "$created" ]; }
	fetch 10.1.0.2 5006 --limit 90 >"$tmp/unload" &
	f1=$!
	busywait 60000 grew
	tracked=$?
	rmmod tcp_rcvmgr
	unload=$?
	kill -0 $f1 2>/dev/null
	during=$?
	wait $f1
	rc=$?
	got=$(json_get "j['bytes']" <"$tmp/unload")
	[ $tracked = 0 ] && [ $during = 0 ] && [ $unload = 0 ] && [ $rc = 0 ] &&
		[ "$got" = $unload_bytes ]
	tap_result $? "unload during a managed download; it completes" \
		"tracked $([ $tracked = 0 ] && echo yes || echo no), still running at unload $([ $during = 0 ] && echo yes || echo no), rmmod=$unload, $got bytes"
}

# --- the cases on a network of their own (setup): each stops what it
# left running (stop), and tests_run removes its namespaces after it

windows() {
	setup || { setup_failed "the gateway and its sender"; stop; return; }
	windows_check "IPv4, window scale 7" 10.1.0.2 7
	if ! machine_slow; then
		rcv_sysctl net.ipv4.tcp_window_scaling=0
		windows_check "IPv4, window scale 0" 10.1.0.2 0
		rcv_sysctl net.ipv4.tcp_window_scaling=1 "net.ipv4.tcp_rmem=4096 131072 1073741824"
		windows_check "IPv4, window scale 14" 10.1.0.2 14
		rcv_defaults
		windows_check "IPv6, window scale 7" fd00:1::2 7
	else
		slow_skip "windows with scale 0 and 14, and over IPv6"
	fi
	floor_test
	# the uploads' server
	ip netns exec "$RCV" python3 -S "$here/xfer.py" sink 5010 &
	pids+=" $!"
	busywait 10000 tcp_listening "$RCV" 5010
	upload ""
	upload " with Fast Open" --fastopen
	frag_acks_test
	loss_test
	# (with the checksum offloads loss_test leaves off: the sender
	# verifies the checksum of every ACK, the gateway's own too)
	local_test
	unload_test
	stop
}

resets() {
	setup || { setup_failed "the gateway and its sender"; stop; return; }
	reopen_test
	outside_test
	kept_test 47003 "inexact, the sender went on" 1000
	kept_test 47005 "lost past the gateway" 0 drop
	kept_test 47010 "inexact, behind its own FIN" 1000 "" --half-close
	fin_rst_test
	frag_data_test
	conntrack_test
	stop
}

quiet_receivers() {
	setup || { setup_failed "the gateway and its sender"; stop; return; }
	quiet_test
	stall_test
	syn_test
	stop
}

handshake() {
	setup || { setup_failed "the gateway and its sender"; stop; return; }
	early_test 47006 "after its SYN, before the SYN-ACK" syn
	early_test 47008 "after the SYN-ACK, before the last ACK" synack
	early_test 47009 "after a Fast Open SYN-ACK, before the last ACK" synack --fastopen
	fake_syn_test
	reconnect_test 47012 ""
	reconnect_test 47014 ", a SYN without scaling behind its own" fake
	stop
}

shares() {
	setup || { setup_failed "the gateway and its sender"; stop; return; }
	priorities_test
	greedy_test
	late_test
	beside_test
	table_test
	stop
}

tests_run
