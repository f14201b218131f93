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
#    qdisc's back
#  - cap_falls: W lowered from 2 Mbit/s to 500 kbit/s under load: the bound
#    follows at once (the class cannot be served faster than W), and the
#    pings after it wait no more than about 100 ms either
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
# (about 130 kB, half a second at W) before it is held back
flood() {
	ip netns exec "$SND" python3 "$here/udpflood.py" 10.0.0.2 "$1" \
		9@2000000 10@2000000 &
	flood_pid=$!
}

# pings N: N pings through the class, 100 ms apart; prints "median max"
# of their round trips in ms, "- -" if none came back
pings() {
	ip netns exec "$SND" ping -n -c "$1" -i 0.1 -w 20 10.0.0.2 |
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
	flood 5
	sleep 1.5
	rtt=$(pings 25)
	st=$(bound_stats)
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
	flood 5
	sleep 1.5
	rtt=$(pings 25)
	st=$(bound_stats)
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
	flood 4
	sleep 1.5
	rtt=$(pings 15)
	st=$(bound_stats)
	read -r rate limit drops <<<"$st"
	within "$limit" 4000 5250
	log_timing_test $? "its own bound: 20 ms at the rate it is served" \
		"service rate $rate bit/s, backlog limit $limit B"
	bounded "$rtt" 20
	log_timing_test $? "pings through it wait no more than 20 ms" "median and most $rtt ms"
	tcq class change dev veth0 classid 1:1 er2bc latency qdisc &&
		! tcq class show dev veth0 classid 1:1 | grep -q latency
	log_test $? "latency qdisc: the class has the qdisc's again, and shows none of its own"
	sleep 0.5
	read -r rate limit drops <<<"$(bound_stats)"
	wait $flood_pid
	within "$limit" 20000 26250
	log_timing_test $? "... and the qdisc's bound is in force" "backlog limit $limit B"
}

cap_falls() {
	local rtt st rate limit drops

	setup || { setup_failed "the qdisc and its class"; return; }
	flood 6
	sleep 1.5
	tcq qdisc change dev veth0 root er2bc rate 500kbit
	read -r rate limit drops <<<"$(bound_stats)"
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

require_cmd tc ip ping python3
tap_begin
tests_run
