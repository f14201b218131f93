#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scavenger classes (type scavenger) with real packets: one with a rate is
# refused, by tc and by the kernel, and the class stays as it was; a
# scavenger gets what a class at its ceil leaves, even at a higher
# priority; the estimator's scavenger-hold leaves it nothing and the other
# class its rate, ends with the next estimate that does not hold, and
# ends by itself when its time is up. The counts: er2bcctl show prints
# what is left of the hold, tc -s the dequeues it held back (yielded).
#
# Greedy UDP senders (udpflood.py) out of a dummy device, as in
# er2bc_classes.sh; rates over 5 s windows. Each case in a namespace of
# its own (make check T=er2bc_scavenger:CASE).
source "$(dirname "$0")/../lib.sh"

ALL_TESTS="
	refused
	hold_burst
	lent
	hold
	er2bc_mode
	back_to_rate
"

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ctl=$top/tools/er2bcctl/er2bcctl

tcq() { tc -netns "$NS" "$@"; }
ctl() { "$ctl" -n "$NS" "$@"; }
WINDOW=5

# rates PORTS...: flood those ports; {classid: bit/s} over the window,
# after 2 s for the queues to fill
rates() {
	ip netns exec "$NS" python3 -S "$here/udpflood.py" 192.0.2.2 $((WINDOW + 4)) "$@" &
	sleep 2
	ip netns exec "$NS" python3 -S "$here/class_rates.py" dummy0 $WINDOW
	wait
}

# as er2bc_classes.sh: what the senders carry through tbf, or the rate
# checks are skipped, saying so (KSFT_MACHINE_SLOW); once a run, in the
# first case that measures rates, before its qdisc
probed= slow=
calibrate() {
	local cap

	[ -z "$probed" ] || return 0
	probed=1
	tcq qdisc add dev dummy0 root tbf rate 4mbit burst 16k limit 200k
	ip netns exec "$NS" python3 -S "$here/udpflood.py" 192.0.2.2 $((WINDOW + 4)) 5001 5002 &
	sleep 2
	cap=$(dev_rate "$NS" dummy0 tx $WINDOW)
	wait $!
	tcq qdisc del dev dummy0 root
	within "$cap" 3880000 1e12 ||
		slow="machine slow: the senders fill $(printf %.0f "$cap") bit/s of tbf's 4 Mbit/s"
}

# setup [scavenger] [rates]: a namespace of the case's own with dummy0
# sending to 192.0.2.2 (with rates: calibrate first); 1:1 at priority 2,
# 400 kbit/s and a ceil of 1 Mbit/s; 1:2 at priority 1, 300 kbit/s or a
# scavenger; UDP ports 5001 and 5002 to them
setup() {
	local i c2="rate 300kbit"

	[[ " $* " != *" scavenger "* ]] || c2="rate 0 type scavenger"
	setup_ns NS && dummy_dev "$NS" &&
		ip -n "$NS" addr add 192.0.2.1/24 dev dummy0 &&
		ip -n "$NS" neigh add 192.0.2.2 lladdr 02:00:00:00:00:02 dev dummy0 || return 1
	[[ " $* " != *" rates "* ]] || calibrate
	tcq qdisc add dev dummy0 root handle 1: er2bc rate 2mbit burst 16k &&
		tcq class add dev dummy0 parent 1: classid 1:1 er2bc prio 2 rate 400kbit ceil 1mbit &&
		tcq class add dev dummy0 parent 1: classid 1:2 er2bc prio 1 $c2 || return 1
	for i in 1 2; do
		tcq filter add dev dummy0 parent 1: protocol ip prio 1 flower \
			ip_proto udp dst_port 500$i classid 1:$i || return 1
	done
}

# rate_check "1:1=BPS 1:2=BPS": the classes' rates, printed; each within
# 4 % (and a packet)
rate_check() {
	local got

	got=$(rates 5001 5002)
	python3 -S - "$got" "$1" <<'EOF'
import json, sys
got = json.loads(sys.argv[1])
print(" ".join(f"{c}={v / 1e3:.0f}k" for c, v in sorted(got.items())))
sys.exit(any(abs(got.get(c, 0) - float(w)) > 0.04 * float(w) + 1442 * 8 / 5
             for c, w in (p.split("=") for p in sys.argv[2].split())))
EOF
}

# rate_test DESC "1:1=BPS 1:2=BPS": rate_check, a miss measured once more
# (measure_twice: CI's run of 2026-12-06, on a host slower than usual,
# read 1:1=886k 1:2=888k in lent on 6.1, the cap short by 11 % with both
# classes greedy, and 1:1=952k in hold on 6.12; a fault in the qdisc
# misses both times)
rate_test() {
	local out

	if [ -n "$slow" ]; then
		tap_result $ksft_skip "$1" "$slow"
		return
	fi
	out=$(measure_twice rate_check "$2")
	tap_timing_result $? "$1" "$out"
}

# a scavenger holds no guarantee: refused with a rate, by tc and by the
# kernel, and the class stays as it was
refused() {
	local out rc cls

	setup || { setup_failed; return; }
	out=$(tcq class change dev dummy0 classid 1:2 er2bc type scavenger rate 100kbit 2>&1)
	rc=$?
	[ $rc -ne 0 ] && [[ $out == *'illegal "rate" value "100kbit": a scavenger class holds no guarantee'* ]]
	tap_result $? "tc refuses type scavenger with a rate, naming the value" "$out"
	out=$(tcq class change dev dummy0 classid 1:2 er2bc type scavenger 2>&1)
	rc=$?
	cls=$(tcq class show dev dummy0 classid 1:2)
	[ $rc -ne 0 ] && [[ $out == *'scavenger class holds no guarantee: give it rate 0'* ]] &&
		[[ $cls == *'rate 300Kbit'*'type tcp'* ]]
	tap_result $? "the kernel refuses a scavenger with the class's rate; the class is unchanged" \
		"$out; $cls"
	tcq class change dev dummy0 classid 1:2 er2bc rate 0 type scavenger &&
		[[ $(tcq class show dev dummy0 classid 1:2) == *'type scavenger'* ]]
	tap_result $? "rate 0 and type scavenger at once: taken, and shown"
}

yielded() { tcq -s -j qdisc show dev dummy0 | json_get "[q for q in j if q['kind'] == 'er2bc'][0]['yielded']"; }
cls2() { class_stats "$NS" dummy0 "'%d %d' % (j['1:2']['packets'], j['1:2']['qlen'])"; }

# the estimator's hold with no other traffic: a burst to the scavenger
# waits behind it (and tc -s counts the dequeues it turned away); then the
# hold, shortened to 2 s by the next estimate, ends with no packet
# arriving to wake the qdisc: the burst leaves only if the scheduler woke
# itself. (The burst is sent under a 60 s hold, and the 2 s one set by
# er2bcctl alone: a slow machine's Python start-up must not outlast it.
# The class has no latency bound: the qdisc's 100 ms at W would keep 24
# of the 40 packets and drop the rest, as it should a bulk transfer's.)
hold_burst() {
	local p0 p1 p2 q1 q2 y0 y1

	setup scavenger && tcq class change dev dummy0 classid 1:2 er2bc latency unlimited ||
		{ setup_failed; return; }
	read -r p0 _ <<<"$(cls2)"
	y0=$(yielded)
	ctl abw-set dev dummy0 handle 1: abw 2mbit recv 2mbit seq 1 scavenger-hold 60s
	ip netns exec "$NS" python3 -S -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(40):
    s.sendto(b'x' * 1000, ('192.0.2.2', 5002))"
	read -r p1 q1 <<<"$(cls2)"
	y1=$(yielded)
	[ "$q1" = 40 ] && [ "$p1" = "$p0" ] && [ "$y1" -gt "$y0" ]
	tap_result $? "a burst behind a hold waits, and tc -s counts the dequeues it turned away" \
		"queued $q1, sent $((p1 - p0)); yielded $y0 -> $y1"
	ctl abw-set dev dummy0 handle 1: abw 2mbit recv 2mbit seq 2 scavenger-hold 2s
	sleep 3
	read -r p2 q2 <<<"$(cls2)"
	[ "$q2" = 0 ] && [ $((p2 - p0)) = 40 ]
	tap_result $? "the hold cut to 2 s, then no packet: the burst leaves when it ends" \
		"queued $q2 after; sent $((p2 - p0)) of 40"
}

# lent to last: a scavenger at priority 1 gets what 1:1 at its ceil leaves
lent() {
	setup scavenger rates || { setup_failed; return; }
	rate_test "a scavenger at priority 1 gets what 1:1 at its ceil leaves" "1:1=1000000 1:2=1000000"
}

hold_left() { ctl -j show dev dummy0 handle 1: | json_get "j.get('scavenger_hold_us', 0)"; }

# the estimator's hold under load: er2bcctl show prints what is left of
# it; the scavenger gets nothing while it lasts and borrows again once the
# next estimate without a hold ends it
hold() {
	local h

	setup scavenger rates || { setup_failed; return; }
	ctl abw-set dev dummy0 handle 1: abw 2mbit recv 2mbit seq 11 scavenger-hold 60s
	h=$(hold_left)
	within "$h" 50000000 60000000
	tap_result $? "an estimate with scavenger-hold 60s: show prints what is left of it" "${h} us"
	rate_test "while the hold lasts the scavenger gets nothing, 1:1 its ceil" "1:1=1000000 1:2=0"
	ctl abw-set dev dummy0 handle 1: abw 2mbit recv 2mbit seq 12
	h=$(hold_left)
	[ "$h" = 0 ]
	tap_result $? "the next estimate without a hold ends it" "${h} us"
	rate_test "the hold ended: the scavenger borrows again" "1:1=1000000 1:2=1000000"
}

# mode er2bc: estimates with nothing received (s_p = 0) give a class of
# type udp its whole demand; a scavenger, without a rate, asks for none
er2bc_mode() {
	local g

	setup scavenger || { setup_failed; return; }
	tcq qdisc change dev dummy0 root er2bc mode er2bc &&
		ctl abw-set dev dummy0 handle 1: abw 2mbit recv 0 seq 13 &&
		ctl abw-set dev dummy0 handle 1: abw 2mbit recv 0 seq 14
	g=$(class_stats "$NS" dummy0 "j['1:2']['guarantee']")
	[ "$g" = 0 ]
	tap_result $? "mode er2bc, two estimates with nothing received: the scavenger has no guarantee" \
		"guarantee $g"
}

# back to a class with a rate: it is guaranteed again, at priority 1
back_to_rate() {
	setup scavenger || { setup_failed; return; }
	tcq class change dev dummy0 classid 1:2 er2bc type tcp rate 300kbit &&
		[[ $(tcq -s class show dev dummy0 classid 1:2) == *'guarantee 300Kbit'* ]]
	tap_result $? "a scavenger made a tcp class with a rate is guaranteed again"
}

require_cmd tc ip python3
[ -x "$ctl" ] || skip_all "er2bcctl is not built (make tools)"
tap_begin
tests_run
