#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The er2bc qdisc and its classes through tc: the module loads on demand,
# options and classes are stored and dumped as set (text and JSON), change
# in place, and delete cleanly, also as a child of another qdisc.
source "$(dirname "$0")/../lib.sh"

ALL_TESTS="
	qdisc_and_classes
	small_first
	child_qdisc
	shortage
"

# each case's own namespace with dummy0 in it, and an address and a
# neighbour to send to where it sends
setup() {
	setup_ns NS && dummy_dev "$NS"
}
setup_addr() {
	ip -n "$NS" addr add 192.0.2.1/24 dev dummy0 &&
		ip -n "$NS" neigh add 192.0.2.2 lladdr 02:00:00:00:00:02 dev dummy0
}

tcq() { tc -netns "$NS" "$@"; }
# (tc's JSON: rates in bytes/s, as it prints htb's; class_stats reads the text)
opts() { tcq -j qdisc show dev dummy0 | json_get "j[0].get('options', {})$1"; }
xstat() { tcq -s -j qdisc show dev dummy0 | json_get "[q for q in j if q['kind'] == 'er2bc'][0]['$1']"; }
cls() { class_stats "$NS" dummy0 "j['$1']$2"; }

# options and classes through tc: stored and dumped as set, changed in
# place, deleted
qdisc_and_classes() {
	local kind o q x

	setup
	# tc asks the kernel for the module ("sch_er2bc", or "net-sch-er2bc" on 6.9+)
	tcq qdisc add dev dummy0 root handle 1: er2bc rate 5mbit mode static default 50
	tap_result $? "qdisc add (module loaded on demand)"

	kind=$(tcq -j qdisc show dev dummy0 | json_get "j[0]['kind']")
	[ "$kind" = er2bc ]
	tap_result $? "tc shows kind er2bc" "kind=$kind"

	[ "$(opts "['rate']")" = 625000 ] && [ "$(opts "['burst']")" = 0 ] &&
		[ "$(opts "['default']")" = 0x50 ] && [ "$(opts "['mode']")" = static ] &&
		[ "$(opts "['share']")" = prio ]
	tap_result $? "qdisc options dumped as set" "$(opts "")"

	tcq class add dev dummy0 parent 1: classid 1:10 er2bc prio 1 rate 400kbit type tcp &&
		tcq class add dev dummy0 parent 1: classid 1:20 er2bc prio 2 rate 1mbit \
			ceil 2mbit weight 3 type udp burst 6000 cburst 3000 &&
		tcq class add dev dummy0 parent 1: classid 1:50 er2bc
	tap_result $? "class add"

	o=$(cls 1:20 "['options']")
	[ "$o" = "prio 2 rate 1Mbit ceil 2Mbit weight 3 type udp burst 6000b cburst 3000b" ]
	tap_result $? "class options dumped as set" "$o"
	o=$(cls 1:50 "['options']")
	[ "$o" = "prio 64 rate 0bit weight 1 type tcp burst auto cburst auto" ]
	tap_result $? "class defaults: lowest priority, no rate, weight 1" "$o"

	# (one tc and one python for all of them: a process costs the debug
	# kernel half a second)
	x=$(tcq -s -j qdisc show dev dummy0 | json_get "' '.join('%s=%s' % (k, [q for q in j
		if q['kind'] == 'er2bc'][0].get(k)) for k in ('classes', 'guaranteed', 'cap',
		'lend_turns', 'lend_rounds'))")
	[ "$x" = "classes=3 guaranteed=175000 cap=625000 lend_turns=0 lend_rounds=0" ] &&
		[ "$(cls 1:20 "['guarantee']")" = 1000000 ]
	tap_result $? "xstats (nested): classes, guarantees in force, cap, no lending yet" "$x"

	# default children are hidden from dumps, as HTB's and DRR's are (6.1
	# leaves them without a handle: "pfifo 0:")
	q=$(tcq qdisc show dev dummy0 invisible | grep "parent 1:10 ")
	[[ "$q" == "qdisc pfifo "*": parent 1:10 limit 1000p"* ]]
	tap_result $? "each class has a pfifo sized from txqueuelen" "$q"

	tcq class change dev dummy0 classid 1:10 er2bc rate 800kbit &&
		[ "$(cls 1:10 "['options']")" = "prio 1 rate 800Kbit weight 1 type tcp burst auto cburst auto" ] &&
		[ "$(xstat guaranteed)" = 225000 ]
	tap_result $? "class change keeps what it does not name" "$(cls 1:10 "['options']")"

	tcq class change dev dummy0 classid 1:20 er2bc ceil none &&
		[ "$(cls 1:20 "['options']")" = "prio 2 rate 1Mbit weight 3 type udp burst 6000b cburst 3000b" ]
	tap_result $? "ceil none takes the ceil away"

	tcq qdisc change dev dummy0 root er2bc rate 1mbit &&
		[ "$(cls 1:10 "['guarantee']")" = 800000 ] && [ "$(cls 1:20 "['guarantee']")" = 0 ]
	tap_result $? "static mode: a guarantee that no longer fits in W goes" \
		"1:10 $(cls 1:10 "['guarantee']") 1:20 $(cls 1:20 "['guarantee']")"

	tcq qdisc change dev dummy0 root er2bc rate 2gbit mode er2bc share weighted &&
		[ "$(opts "['rate']")" = 250000000 ] && [ "$(opts "['mode']")" = er2bc ] &&
		[ "$(opts "['share']")" = weighted ] && [ "$(opts "['default']")" = 0x50 ]
	tap_result $? "change: a 64-bit rate, mode and share; the default kept" "$(opts "")"

	tcq qdisc change dev dummy0 root er2bc rate unlimited && [ "$(opts "['rate']")" = 0 ]
	tap_result $? "rate unlimited"

	tcq class del dev dummy0 classid 1:20 && ! class_stats "$NS" dummy0 | grep -q '"1:20"' &&
		[ "$(xstat classes)" = 2 ]
	tap_result $? "class delete"

	tcq qdisc del dev dummy0 root && ! tcq qdisc show dev dummy0 | grep -q er2bc
	tap_result $? "qdisc del with its classes"
}

# within a priority W cannot hold whole, a class that asks for no more
# than an equal share goes first (er2bc mode): 64 kbit/s beside 400 under
# a W of 300; static mode keeps classid order, the paper's method
small_first() {
	local g1 g2

	setup
	tcq qdisc add dev dummy0 root handle 1: er2bc rate 300kbit mode er2bc &&
		tcq class add dev dummy0 parent 1: classid 1:1 er2bc prio 1 rate 400kbit type udp &&
		tcq class add dev dummy0 parent 1: classid 1:2 er2bc prio 1 rate 64kbit type udp
	g1=$(cls 1:1 "['guarantee']") g2=$(cls 1:2 "['guarantee']")
	[ "$g1" = 236000 ] && [ "$g2" = 64000 ]
	tap_result $? "er2bc mode: the small class of a priority whole first, the large one the rest" \
		"1:1 $g1, 1:2 $g2 bit/s"
	tcq qdisc change dev dummy0 root er2bc mode static
	g1=$(cls 1:1 "['guarantee']") g2=$(cls 1:2 "['guarantee']")
	[ "$g1" = 0 ] && [ "$g2" = 0 ]
	tap_result $? "static mode: classid order, the first does not fit and none after it" \
		"1:1 $g1, 1:2 $g2 bit/s"
}

# as a child of another qdisc, with the parent asking to peek; all
# priorities map to the band er2bc sits in
child_qdisc() {
	local sent q

	setup && setup_addr
	tcq qdisc add dev dummy0 root handle 1: prio bands 2 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
		tcq qdisc add dev dummy0 parent 1:1 handle 10: er2bc rate 1mbit default 1 &&
		tcq class add dev dummy0 parent 10: classid 10:1 er2bc rate 100kbit &&
		ip netns exec "$NS" ping -q -c 3 -i 0.2 -W 1 192.0.2.2 >/dev/null 2>&1
	sent=$(cls 10:1 "['packets']")
	[ "${sent:-0}" -ge 3 ]
	tap_result $? "works as a child qdisc" "packets=$sent"

	# packets waiting at 8 bit/s with the watchdog armed when the qdisc goes
	# (no latency bound: at 8 bit/s it would keep one packet)
	tcq class change dev dummy0 classid 10:1 er2bc rate 8bit ceil 8bit burst 1 cburst 1 &&
		tcq qdisc change dev dummy0 parent 1:1 handle 10: er2bc rate 8bit burst 1 \
			latency unlimited
	ip netns exec "$NS" python3 -S -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(20):
    s.sendto(b'x' * 1000, ('192.0.2.2', 9))"
	q=$(cls 10:1 "['qlen']")
	[ "$q" -ge 15 ]
	tap_result $? "packets wait at 8 bit/s" "qlen=$q"
	tcq qdisc del dev dummy0 root && ! tcq qdisc show dev dummy0 | grep -q er2bc
	tap_result $? "delete with packets queued and the watchdog armed"
}

# shortage, the kernel's measure of time below R_f while backlogged: under
# a 200 kbit/s cap in strict priority, 1:1 (R_f 100 kbit/s, offered 400)
# takes it all and is never short; 1:2 (R_f 1 Mbit/s, offered 2) gets
# nothing and is short for as long as it waits. Paced senders: light even
# on the debug kernel, and 1:2's starvation does not depend on the CPU
shortage() {
	local i sh0 s1 s2

	setup && setup_addr
	tcq qdisc add dev dummy0 root handle 1: er2bc rate 200kbit mode pq &&
		tcq class add dev dummy0 parent 1: classid 1:1 er2bc prio 1 rate 100kbit &&
		tcq class add dev dummy0 parent 1: classid 1:2 er2bc prio 2 rate 1mbit &&
		for i in 1 2; do
			tcq filter add dev dummy0 parent 1: protocol ip prio 1 flower \
				ip_proto udp dst_port 500$i classid 1:$i || break
		done
	tap_result $? "a 200 kbit/s cap, 1:1 needing 100 kbit/s, 1:2 needing 1 Mbit/s"
	sh0=$(cls 1:2 "['shortage_ns']")
	ip netns exec "$NS" python3 -S "$(dirname "$0")/udpflood.py" 192.0.2.2 4 5001@400000 5002@2000000
	s1=$(cls 1:1 "['shortage_ns']") s2=$(cls 1:2 "['shortage_ns']")
	[ "$sh0" = 0 ] && [ "${s1:-1}" = 0 ] && [ "${s2:-0}" -ge 3000000000 ]
	tap_result $? "after 4 s: 1:2 short for as long as it waited, 1:1 not at all" \
		"shortage before: 1:2 $sh0; after: 1:1 $s1, 1:2 $s2 ns"
	tcq qdisc del dev dummy0 root
}

require_cmd tc ip python3
tap_begin
tests_run
