#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_rcvmgr against what outsiders and idle clients do to its table. Only
# connections that carry data take a share of the budget: idle ones and
# half-open ones (a SYN flood) leave it to the downloads. Half-open entries
# take at most half the table and are forgotten seconds after they go
# quiet; the table never holds more than max-conns. A connection handed to
# a flowtable, which the hooks no longer see, is forgotten. With asymmetric
# routing, ACKs of data that took another path pass as the receiver wrote
# them.
#
# The flood: a LAN host sends spoofed SYNs (random LAN sources and ports)
# to a port the WAN router drops, as fast as the VM sends them, past the
# access link, as many connection attempts that never complete. The
# download beside it must keep at least 80 % of its goodput under the same
# flood with the policy off (under TCG the flood itself takes much of the
# VM's CPU, hence the comparison with the same flood, not with a quiet
# link).
#
# Each case (ALL_TESTS) builds its own gateway and sender and runs alone:
# make check T=rcvmgr_safety:syn_flood.
source "$(dirname "$0")/../lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ctl=$top/tools/er2bcctl/er2bcctl

require_cmd ip tc python3 nft
modinfo tcp_rcvmgr >/dev/null 2>&1 || skip_all "tcp_rcvmgr is not installed"
[ -x "$ctl" ] || skip_all "er2bcctl is not built (make tools)"
[ -x "$here/synflood" ] || skip_all "synflood is not built (make tools)"
tap_begin

ALL_TESTS="
	idle_conns
	syn_flood
	flowtable
	asymmetric
"

source "$here/topology.sh"

ctl() { "$ctl" -n "$GW" "$@"; }
rset() { ctl rcvmgr set wan eth0 lan 10.3.0.0/24 interval 1s "$@"; }
fetch() { ip netns exec "$RCV" python3 -S "$here/xfer.py" fetch "$@"; }
stat_of() { ctl -j rcvmgr stats >"$tmp/stats" && json_num "$tmp/stats" "$1"; }
tmp=$(mktemp -d)

pids=
cleanup() { kill $pids 2>/dev/null; wait $pids 2>/dev/null; }
trap 'rc=$?; cleanup; (exit $rc); tap_end' EXIT

# the download beside the flood: 10 MB, about 30 s under the flood here
# (2 MB on the debug kernel, where it is slower by far)
bytes=10000000
machine_slow && bytes=2000000

modprobe tcp_rcvmgr
tap_result $? "module loads"

# setup: each case's gateway (rcvmgr_topology, a 20 Mbit/s access link
# with a 256 KB buffer) and its sender, serving every port the cases
# fetch from; the case's namespaces, and the sender in them, go when it
# ends (tests_run)
setup() {
	rcvmgr_topology 20mbit 256k || return
	ip netns exec "$SND" python3 -S "$here/xfer.py" serve 5001 $bytes 5002 100000000 \
		5004 8000000 5003 10000:hold &
	pids+=" $!"
	busywait 30000 tcp_listening "$SND" 5003
}

# conn_field sport|dport PORT FIELD: a number the dump gives the connection
# with that port, SND's (sport) or RCV's (dport); read without a Python
conn_field() {
	local dump
	ctl -j rcvmgr conns >"$tmp/conns" || return
	IFS= read -r -d '' dump <"$tmp/conns"
	[[ $dump =~ \"$1\":[[:space:]]*$2,[^}]*\"$3\":[[:space:]]*([0-9]+) ]] &&
		echo "${BASH_REMATCH[1]}"
}
window_of() { conn_field sport "$1" window_bytes; }

# --- idle connections: 30 that each received 10 KB and stay open, quiet;
# a download beside them gets the whole of a fixed 64 KB budget under
# equal shares, not a 31st of it. (An idle-timeout that outlives the
# test: CI's loaded debug guest read 31 entries, then 1 in the next read,
# the default 120 s having passed since the 30 last carried data.)
idle_conns()
{
	setup || { setup_failed "the gateway and its sender"; return; }
	rset policy equal budget-init 64k budget-min 64k budget-max 64k idle-timeout 1800s
	ip netns exec "$RCV" python3 -S "$here/xfer.py" idle 10.1.0.2 5003 30 10000 600 >"$tmp/idle" &
	idle_pid=$!
	pids+=" $idle_pid"
	busywait 120000 grep -q open "$tmp/idle"
	tap_result $? "30 idle connections open"
	sleep 2
	fetch 10.1.0.2 5002 --abort-after 600 >/dev/null 2>&1 &
	bulk=$!
	pids+=" $bulk"
	# once the download has been assigned its share: its window, read again
	# until it is there (a second on the others, more on the debug kernel)
	win=
	for _ in $(seq 20); do
		sleep 1
		win=$(window_of 5002) && [ "${win:-0}" -ge 58982 ] && break
	done
	ctl -j rcvmgr stats >"$tmp/stats"
	conns=$(json_num "$tmp/stats" conns)
	[ "${win:-0}" -ge 58982 ] && [ "${conns:-0}" -ge 31 ]
	tap_result $? "idle connections take no share: the download's window is the 64 KB budget" \
		"window ${win:-none} with ${conns:-?} connections tracked"
	# the same counters as Prometheus reads them (er2bcctl metrics)
	if ! /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null; then
		tap_result $ksft_skip "metrics: tcp_rcvmgr's counters, parsed by prometheus_client" \
			"python3-prometheus-client is not installed"
	else
		out=$(ctl metrics | /usr/bin/python3 "$top/tools/er2bcctl/metrics-check.py" \
			--min "tcp_rcvmgr_connections=31" --min "tcp_rcvmgr_acks_total=1" \
			--min "tcp_rcvmgr_connections_created_total=31" \
			--expect "tcp_rcvmgr_budget_bytes=$(json_num "$tmp/stats" budget_bytes)" 2>&1)
		tap_result $? "metrics: tcp_rcvmgr's counters, parsed by prometheus_client" "$out"
	fi
	kill $bulk $idle_pid 2>/dev/null
	wait $bulk $idle_pid 2>/dev/null
}

# --- the SYN flood
syn_flood()
{
	setup || { setup_failed "the gateway and its sender"; return; }
	ip netns exec "$WAN" nft -f - <<-EOF
		table inet rcvmgr_safety {
			chain forward_drop {
				type filter hook forward priority 0;
				tcp dport 9 drop
			}
		}
	EOF
	# (the debug kernel forwards a few dozen spoofed SYNs a second: a table
	# its flood fills in the seconds the check looks)
	max_conns=4096
	machine_slow && max_conns=128
	# flood POLICY [RATE]: a download of $bytes from SND under way, then the
	# flood beside it (RATE SYN/s, or as many as the VM sends), under
	# tcp_rcvmgr's POLICY with a fixed 256 KB budget; $tmp/POLICY.fetch,
	# .flood, .stats, and .window: the download's window during the flood
	flood() {
		local policy=$1 rate=${2:-} fl f
		# (t0, t1: the flood's first 5 s, between the two stats read)
		rset policy "$policy" max-conns $max_conns budget-init 256k budget-min 256k \
			budget-max 256k
		# (one that the flood slows to the two-segment floor is cut short)
		fetch 10.1.0.2 5001 --limit 300 --abort-after 90 >"$tmp/$policy.fetch" &
		f=$!
		sleep 2
		ctl -j rcvmgr stats >"$tmp/$policy.stats0"
		t0=$(now_ms)
		ip netns exec "$RCV" "$here/synflood" -s 10.3.0.0/24 -d 10.1.0.2 -p 9 -t 600 \
			${rate:+-r "$rate"} >"$tmp/$policy.flood" &
		fl=$!
		pids+=" $f $fl"
		# the table full of half-open entries
		sleep 5
		window_of 5001 >"$tmp/$policy.window"
		ctl -j rcvmgr stats >"$tmp/$policy.stats"
		t1=$(now_ms)
		wait $f
		kill -TERM $fl
		wait $fl
	}
	# goodput POLICY: the download's, bit/s
	goodput() {
		sed -n 's/.*"transfer_s": \([0-9.]*\), "bytes": \([0-9]*\).*/\1 \2/p' "$tmp/$1.fetch" |
			awk '$1 > 0 { printf "%d", $2 * 8 / $1 }'
	}
	sent_rate() { sed -n 's/.*"rate": \([0-9]*\).*/\1/p' "$tmp/$1.flood"; }

	# unmanaged first, as many SYNs as the VM sends; then managed, the same
	flood off
	rate=$(sent_rate off)
	[ "${rate:-0}" -gt 0 ]
	tap_result $? "the flood runs beside the download (policy off)" \
		"$(cat "$tmp/off.fetch"); flood $(cat "$tmp/off.flood")"
	flood equal "$rate"
	# the managed run must be offered the same flood: a VM whose host CPU is
	# shared (make check's three guests on two CPUs) sent it short once in
	# four runs on 2026-11-28 (35715 of 53800 SYN/s); measured once more
	r_eq=$(sent_rate equal)
	if [ $(( ${rate:-0} * 2 )) -gt $(( ${r_eq:-0} * 3 )) ]; then
		echo "# the managed run's flood came short (${r_eq:-none} of $rate SYN/s): once more"
		flood equal "$rate"
	fi
	# assignments: a few a second (the intervals', the download's), not one
	# per SYN
	a1=$(json_num "$tmp/equal.stats" assignments)
	a0=$(json_num "$tmp/equal.stats0" assignments)
	assigns=$(( ${a1:-999999} - ${a0:-0} ))
	conns=$(json_num "$tmp/equal.stats" conns)
	opening=$(json_num "$tmp/equal.stats" opening)
	# (opening-full since this flood began: the one with the policy off,
	# whose entries are tracked too, counted before)
	full=$(( $(json_num "$tmp/equal.stats" opening_full) - $(json_num "$tmp/equal.stats0" opening_full) ))
	shares=$(( $(json_num "$tmp/equal.stats" initial) + $(json_num "$tmp/equal.stats" persistent) ))
	win=$(cat "$tmp/equal.window")
	# the download's window: what it uses, with room to grow (section 5)
	[ "$shares" -le 2 ] && [ "${conns:-99999}" -le $max_conns ] &&
		[ "${opening:-99999}" -le $((max_conns / 2)) ] && [ "${full:-0}" -gt 0 ] &&
		[ "$assigns" -le $(( (t1 - t0) / 500 + 10 )) ]
	tap_result $? "half-open entries take no share of the budget; the table keeps its bounds" \
		"$shares sharing, the download's window ${win:-none}; conns ${conns:-?} opening ${opening:-?} of $max_conns, SYNs not tracked ${full:-?}; $assigns assignments in $((t1 - t0)) ms"
	# keeps_goodput: the managed download's goodput at least 80 % of the
	# unmanaged one's under the same flood (the managed run's at least two
	# thirds of the other's rate, which it is offered; 81 % seen on 6.12, its
	# download faster)
	keeps_goodput() {
		local on off r_eq
		on=$(goodput equal) off=$(goodput off) r_eq=$(sent_rate equal)
		echo "equal ${on:-?} bit/s, off ${off:-?} bit/s; flood ${r_eq:-?} and ${rate:-?} SYN/s"
		[ -n "$on" ] && [ -n "$off" ] && [ $((on * 10)) -ge $((off * 8)) ] &&
			[ $((${r_eq:-0} * 3)) -ge $((rate * 2)) ]
	}
	# (measure_twice's rule by hand: the two runs above are measured once
	# more, in the same order, if they missed)
	out=$(keeps_goodput)
	rc=$?
	if [ $rc != 0 ]; then
		first=$out
		flood off
		rate=$(sent_rate off)
		flood equal "$rate"
		out=$(keeps_goodput)
		rc=$?
		out="$out; first try missed: $first"
	fi
	tap_timing_result $rc "the managed download keeps 80 % of its goodput with the policy off" "$out"
	# once the flood stops, its entries go: 5 s of quiet, then the next interval
	no_opening() { ctl -j rcvmgr stats >"$tmp/after" && [ "$(json_num "$tmp/after" opening)" = 0 ]; }
	busywait 20000 no_opening
	opening=$(json_num "$tmp/after" opening)
	[ "${opening:-1}" = 0 ]
	tap_result $? "half-open entries are forgotten seconds after the flood" "opening ${opening:-?}"
}

# --- a connection conntrack hands to a flowtable leaves these hooks (its
# packets take the fast path from ingress): it is forgotten at once, not
# managed on what was seen before.
flowtable()
{
	setup || { setup_failed "the gateway and its sender"; return; }
	rset policy azuma
	if ip netns exec "$GW" nft -f - 2>"$tmp/ft.err" <<-EOF
		table inet rcvmgr_offload {
			flowtable ft {
				hook ingress priority 0;
				devices = { eth0, eth1 };
			}
			chain forward {
				type filter hook forward priority 0;
				tcp dport 5004 ct state established flow add @ft
			}
		}
	EOF
	then
		before=$(stat_of offloaded)
		fetch 10.1.0.2 5004 --limit 120 >"$tmp/offload" &
		f=$!
		# (until the download's connection is offloaded: within its first
		# round trips, once its Python has started, which a loaded machine
		# can take seconds to do; a fixed 2 s missed it once on 6.1)
		offloaded() { after=$(stat_of offloaded) && [ "${after:-0}" -gt "${before:-0}" ]; }
		busywait 30000 offloaded
		win=$(window_of 5004)
		wait $f
		rc=$?
		[ $rc = 0 ] && [ -z "$win" ] && [ "${after:-0}" -gt "${before:-0}" ]
		tap_result $? "a connection offloaded to a flowtable is forgotten, and completes" \
			"tracked: ${win:-no}; offloaded ${before:-?} -> ${after:-?}; $(cat "$tmp/offload")"
	else
		tap_result $ksft_skip "a connection offloaded to a flowtable is forgotten, and completes" \
			"kernel without flowtables: $(head -n 1 "$tmp/ft.err")"
	fi
}

# --- asymmetric routing. A second link, WAN to RCV, 20 ms toward RCV as
# the first; a host route on the WAN router sends SND's data to RCV over
# it, past the gateway, while RCV's ACKs still cross the gateway. Once no
# data has passed for a second, an ACK that acknowledges data the gateway
# never saw passes as the receiver wrote it: what the module measured of
# that connection is stale.
asymmetric()
{
	setup || { setup_failed "the gateway and its sender"; return; }
	veth_pair "$WAN" eth2 10.4.0.1/24 "$RCV" eth1 10.4.0.2/24
	tc -n "$WAN" qdisc add dev eth2 root netem delay 20ms limit 10000
	ip netns exec "$RCV" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.eth1.rp_filter=0

	# by_client PORT FIELD: FIELD of the connection RCV opened from PORT
	by_client() { conn_field dport "$1" "$2"; }

	# a download held to a 32 KB share, its data then rerouted
	rset policy equal budget-init 32k budget-min 32k budget-max 32k
	# (python itself, not a subshell: killed below, it stops)
	ip netns exec "$RCV" python3 -S "$here/xfer.py" fetch 10.1.0.2 5002 --sport 40002 \
		--abort-after 600 >/dev/null 2>&1 &
	f=$!
	pids+=" $f"
	rewrites() { r0=$(by_client 40002 rewritten) && [[ $r0 =~ ^[0-9]+$ ]] && [ "$r0" -gt 10 ]; }
	busywait 30000 rewrites
	u0=$(stat_of unseen)
	ip -n "$WAN" route add 10.3.0.2/32 via 10.4.0.2 dev eth2
	# (the data already on its way through the gateway acknowledged, then a
	# second without data)
	sleep 2
	r1=$(by_client 40002 rewritten)
	sleep 3
	r2=$(by_client 40002 rewritten)
	u1=$(stat_of unseen)
	kill $f 2>/dev/null
	wait $f 2>/dev/null
	[ "${r0:-0}" -gt 10 ] && [[ $r1 =~ ^[0-9]+$ ]] && [ "$r2" = "$r1" ] &&
		[ "${u1:-0}" -gt "${u0:-0}" ]
	tap_result $? "a download rerouted past the gateway: its ACKs pass as the receiver wrote them" \
		"rewritten ${r0:-?} before, ${r1:-?} 2 s after the route change, ${r2:-?} 3 s later; ACKs of unseen data ${u0:-?} -> ${u1:-?}"

	# a download whose data takes the other link from its start: the gateway
	# sees its receiver's side only (its SYN, its ACKs), never the handshake's
	# answer, and rewrites nothing
	fetch 10.1.0.2 5001 --sport 40001 --limit 120 >"$tmp/asym"
	rc=$?
	r=$(by_client 40001 rewritten)
	[ $rc = 0 ] && [ "$r" = 0 ]
	tap_result $? "a download whose data never crosses the gateway completes, no ACK rewritten" \
		"rewritten: ${r:-no entry}; $(cat "$tmp/asym")"
}

tests_run
rm -rf "$tmp"
