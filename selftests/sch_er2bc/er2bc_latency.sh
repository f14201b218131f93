#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The latency bound (issue 39): a class holds no more than its service
# rate times the bound, so a packet waits at most about that long however
# far W falls below what the class is sent. One class under W = 2 Mbit/s,
# sent 4 Mbit/s of paced UDP, with pings through the same class:
#  - bound: the default 100 ms; the class is served at about W, its bound
#    is about 25000 bytes, the excess is dropped as latency drops, and no
#    ping waits much more than 100 ms
#  - unbounded: "latency unlimited", as every module before the bound: the
#    queue and the pings' times grow past half a second (the check the
#    bound exists for, seen to fail without it)
#  - class_own: the class's own 20 ms, then "latency qdisc" gives it the
#    qdisc's back, and the qdisc's changed is the class's
#  - cap_falls: W lowered from 2 Mbit/s to 500 kbit/s under load: the bound
#    follows at once (the class cannot be served faster than W), and the
#    pings after it wait no more than about 100 ms either
#  - recovers: measured at 250 kbit/s (a bound of two packets), then W
#    raised to 10 Mbit/s under 4 Mbit/s paced: the class, held to two
#    packets, is hardly ever backlogged long enough to measure more, so the
#    measurement is forgotten when it empties a second on, and its bound
#    is W's again
#  - other_child: a netem delay of 200 ms grafted under a class without a
#    rate: the qdisc's bound is for fifo children only (netem's delay line
#    is not a queue to bound), so 1 Mbit/s goes through whole; the class's
#    own bound applies over any child
# Times are checked with room for TCG's jitter (ER2BC_SLACK_MS); a miss on
# a slow machine, the debug kernel, is a skip that says what was measured.
#
#   sender (er2bc on veth0) ---- receiver
source "$(dirname "$0")/../lib.sh"

ALL_TESTS="
	bound
	unbounded
	class_own
	cap_falls
	recovers
	other_child
"

here=$(cd "$(dirname "$0")" && pwd)
tcq() { tc -netns "$SND" "$@"; }
SLACK_MS=${ER2BC_SLACK_MS:-50}	# the emulator's scheduling, on top of a bound

# setup [QDISC OPTIONS...]: W 2 Mbit/s, class 1:1 (prio 1, rate 1 Mbit/s)
# taking everything, with what the qdisc is given besides
setup() {
	setup_ns SND RCV &&
		veth_pair "$SND" veth0 10.0.0.1/24 "$RCV" veth1 10.0.0.2/24 &&
		tcq qdisc add dev veth0 root handle 1: er2bc rate 2mbit default 1 "$@" &&
		tcq class add dev veth0 parent 1: classid 1:1 er2bc prio 1 rate 1mbit
}

# flood SECS: 4 Mbit/s of paced UDP through the class, in the background,
# from two sockets: unbounded, each fills its send buffer in the queue
# (about 130 kB, half a second at W) before it is held back. (Paced, not
# greedy: a greedy sender takes every slot a departure frees, and a ping
# would find the class full and be dropped nearly every time.)
flood() {
	ip netns exec "$SND" python3 "$here/udpflood.py" 10.0.0.2 "$1" \
		9@2000000 10@2000000 &
	flood_pid=$!
}

# pings N [WAIT]: N pings through the class, 100 ms apart, each waited for
# WAIT seconds at most (1; one the class dropped is lost, and no more are
# sent for it); prints "median max" of their round trips in ms, "- -" if
# none came back
pings() {
	ip netns exec "$SND" ping -n -c "$1" -i 0.1 -W "${2:-1}" 10.0.0.2 |
		sed -n 's/.* time=\([0-9.]*\) ms.*/\1/p' | sort -n |
		awk '{ t[NR] = $1 } END { if (NR) print t[int((NR + 1) / 2)], t[NR]; else print "- -" }'
}

# the class's latency statistics: "service_rate backlog_limit latency_drops"
# in bit/s, bytes and packets (0 0: not measured, unbounded)
bound_stats() {
	class_stats "$SND" veth0 |
		json_get "' '.join(str(j['1:1'].get(k, '-')) for k in ('service_rate', 'backlog_limit', 'latency_drops'))"
}

# bounded RTTS LIMIT_MS: the longest ping waited at least half the bound
# (it found the class full: the flood comes in bursts from a Python loop
# in an emulator, so others found it empty) and no more than the bound, a
# packet's time (a packet is taken while less than the bound is queued)
# and the slack
bounded() {
	local max=${1#* }

	[ "$max" != - ] && within "$max" "$2 / 2" "$2 + $SLACK_MS"
}

bound() {
	local rtt st rate limit drops

	setup || { setup_failed "the qdisc and its class"; return; }
	flood 6
	sleep 1.5
	st=$(bound_stats)
	rtt=$(pings 25)
	wait $flood_pid
	read -r rate limit drops <<<"$st"
	within "$rate" 1600000 2100000 && within "$limit" 20000 26250 && within "$drops" 1 1e12
	log_timing_test $? "the default bound: the class served at W holds 100 ms of it" \
		"service rate $rate bit/s, backlog limit $limit B, latency drops $drops"
	bounded "$rtt" 100
	log_timing_test $? "pings through the full class wait no more than 100 ms" \
		"median and most $rtt ms"
}

unbounded() {
	local rtt st rate limit drops

	setup latency unlimited || { setup_failed "the qdisc and its class"; return; }
	tcq qdisc show dev veth0 | grep -q "latency unlimited"
	log_test $? "latency unlimited is shown as given"
	flood 6
	sleep 1.5
	st=$(bound_stats)
	rtt=$(pings 25 3)
	wait $flood_pid
	read -r rate limit drops <<<"$st"
	[ "$limit" = 0 ] && [ "$drops" = 0 ]
	log_test $? "unbounded: no limit, no latency drops" \
		"backlog limit $limit, latency drops $drops"
	# (two send buffers' worth: about a second of queue)
	[ "${rtt% *}" != - ] && within "${rtt% *}" 500 1e9
	log_timing_test $? "unbounded, the pings wait behind the whole queue: more than 500 ms" \
		"median and most $rtt ms"
}

class_own() {
	local rtt st rate limit drops

	setup || { setup_failed "the qdisc and its class"; return; }
	tcq class change dev veth0 classid 1:1 er2bc latency 20ms &&
		tcq class show dev veth0 classid 1:1 | grep -q "latency 20ms"
	log_test $? "a class's own bound, 20 ms, is shown"
	flood 6
	sleep 1.5
	st=$(bound_stats)
	rtt=$(pings 15)
	read -r rate limit drops <<<"$st"
	within "$rate" 1600000 2100000 && within "$limit" 4000 5250
	log_timing_test $? "its own bound: 20 ms at the rate it is served" \
		"service rate $rate bit/s, backlog limit $limit B"
	# (the slack is the emulator's, not the bound's: 20 ms and 100 ms apart)
	bounded "$rtt" 20
	log_timing_test $? "pings through it wait no more than 20 ms" "median and most $rtt ms"
	local cls
	tcq class change dev veth0 classid 1:1 er2bc latency qdisc &&
		cls=$(tcq class show dev veth0 classid 1:1) &&
		[[ $cls == *"prio 1 "* ]] && [[ $cls != *latency* ]]
	log_test $? "latency qdisc: the class has the qdisc's again, and shows none of its own" \
		"$cls"
	sleep 0.5
	read -r rate limit drops <<<"$(bound_stats)"
	within "$limit" 20000 26250
	log_timing_test $? "... and the qdisc's bound is in force" "backlog limit $limit B"
	tcq qdisc change dev veth0 root er2bc latency 50ms
	sleep 0.3
	read -r rate limit drops <<<"$(bound_stats)"
	wait $flood_pid
	within "$limit" 10000 13125
	log_timing_test $? "the qdisc's bound changed to 50 ms: the class's follows" \
		"backlog limit $limit B, service rate $rate bit/s"
}

cap_falls() {
	local rtt st rate limit drops

	setup || { setup_failed "the qdisc and its class"; return; }
	flood 6
	sleep 1.5
	tcq qdisc change dev veth0 root er2bc rate 500kbit &&
		read -r rate limit drops <<<"$(bound_stats)" &&
		# (500 kbit/s for 100 ms: 6250 bytes, from the cap, at once)
		within "$limit" 5000 6250
	log_test $? "W lowered under load: the bound follows at once" \
		"backlog limit $limit B, service rate $rate bit/s"
	sleep 0.5
	rtt=$(pings 20)
	wait $flood_pid
	bounded "$rtt" 100
	log_timing_test $? "after W fell, pings wait no more than 100 ms" "median and most $rtt ms"
}

recovers() {
	local rate limit drops r0 l0

	setup || { setup_failed "the qdisc and its class"; return; }
	tcq qdisc change dev veth0 root er2bc rate 250kbit &&
		tcq class change dev veth0 classid 1:1 er2bc rate 0
	flood 6
	sleep 2
	read -r r0 l0 drops <<<"$(bound_stats)"
	# (250 kbit/s for 100 ms is 3125 bytes: two packets of the flood's)
	within "$r0" 200000 262500 && within "$l0" 2500 3282
	log_timing_test $? "W at 250 kbit/s: measured, and held to two packets" \
		"service rate $r0 bit/s, backlog limit $l0 B"
	tcq qdisc change dev veth0 root er2bc rate 10mbit
	sleep 2.5
	read -r rate limit drops <<<"$(bound_stats)"
	wait $flood_pid
	# (the flood's 4 Mbit/s, or W's 10 for 100 ms before it is measured)
	within "$limit" 40000 125000
	log_timing_test $? "W raised to 10 Mbit/s: the bound is no longer two packets'" \
		"service rate $r0 -> $rate bit/s, backlog limit $l0 -> $limit B"
}

other_child() {
	local rate limit drops got

	setup_ns SND RCV &&
		veth_pair "$SND" veth0 10.0.0.1/24 "$RCV" veth1 10.0.0.2/24 &&
		tcq qdisc add dev veth0 root handle 1: er2bc rate 10mbit default 1 &&
		tcq class add dev veth0 parent 1: classid 1:1 er2bc prio 1 &&
		tcq qdisc add dev veth0 parent 1:1 handle 10: netem delay 200ms limit 10000 ||
		{ setup_failed "a class with netem under it"; return; }
	ip netns exec "$SND" python3 "$here/udpflood.py" 10.0.0.2 4 9@1000000 &
	flood_pid=$!
	sleep 2.5
	read -r rate limit drops <<<"$(bound_stats)"
	wait $flood_pid
	[ "$limit" = 0 ] && [ "$drops" = 0 ]
	log_test $? "netem under a class: the qdisc's bound is not its (fifo children only)" \
		"backlog limit $limit, latency drops $drops"
	tcq class change dev veth0 classid 1:1 er2bc latency 50ms &&
		read -r rate limit drops <<<"$(bound_stats)" &&
		# (W's 10 Mbit/s for 50 ms, or the rate measured since)
		within "$limit" 1514 62500
	log_test $? "the class's own bound applies over any child" "backlog limit $limit B"
}

require_cmd tc ip ping python3
tap_begin
tests_run
