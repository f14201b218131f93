#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The er2bc qdisc through tc: it loads on demand, stores and dumps its
# options, changes them in place, and refuses bad input with a message that
# tc prints, leaving the running configuration as it was.
source "$(dirname "$0")/../lib.sh"

require_cmd tc ip python3
tap_begin
setup_ns NS
ip -n "$NS" link add dummy0 type dummy && ip -n "$NS" link set dummy0 up

tcq() { ip netns exec "$NS" tc "$@"; }
opts() { tcq -j qdisc show dev dummy0 | json_get "j[0].get('options', {})$1"; }
# snapshot: the statistics of every qdisc on dummy0, read at one instant
snapshot() { tcq -s -j qdisc show dev dummy0; }
# get SNAPSHOT KIND FIELD
get() { echo "$1" | json_get "[q for q in j if q['kind']=='$2'][0]['$3']"; }

# tc asks the kernel for the module ("sch_er2bc", or "net-sch-er2bc" on 6.9+)
tcq qdisc add dev dummy0 root handle 1: er2bc rate 10mbit limit 200
log_test $? "qdisc add (module loaded on demand)"

kind=$(tcq -j qdisc show dev dummy0 | json_get "j[0]['kind']")
[ "$kind" = er2bc ]
log_test $? "tc shows kind er2bc" "kind=$kind"

[ "$(opts "['rate']")" = 10000000 ] && [ "$(opts "['limit']")" = 200 ] &&
	[ "$(opts "['burst']")" = 0 ]
log_test $? "options dumped as set (rate in bit/s, burst derived)"

tcq qdisc change dev dummy0 root er2bc burst 4000 &&
	[ "$(opts "['burst']")" = 4000 ] && [ "$(opts "['rate']")" = 10000000 ]
log_test $? "change sets burst and keeps the rate"

tcq qdisc change dev dummy0 root er2bc rate 2gbit &&
	[ "$(opts "['rate']")" = 2000000000 ]
log_test $? "change to a 64-bit rate above 4 Gbyte/s scale" "rate=$(opts "['rate']")"

tcq qdisc change dev dummy0 root er2bc rate unlimited && [ "$(opts "['rate']")" = 0 ]
log_test $? "rate unlimited"

# bad input: refused with the kernel's own message; nothing changes
before=$(tcq -j qdisc show dev dummy0)
check_refused() {
	local want=$1 out
	shift
	out=$(tcq qdisc change dev dummy0 root er2bc "$@" 2>&1)
	[ $? -ne 0 ] && echo "$out" | grep -qF "$want" &&
		[ "$(tcq -j qdisc show dev dummy0)" = "$before" ]
}
check_refused "Error: er2bc: limit must be at least one packet" limit 0
log_test $? "limit 0 refused with a message, configuration intact"
check_refused "Error: er2bc: burst must not exceed 512 MiB" burst 600mb
log_test $? "oversized burst refused with a message, configuration intact"
check_refused 'illegal "rate" value "fast"' rate fast
log_test $? "unparsable rate refused by the tc plugin"

tcq qdisc del dev dummy0 root && ! tcq qdisc show dev dummy0 | grep -q er2bc
log_test $? "qdisc del"

# as a child of another qdisc, with the parent asking to peek; all
# priorities map to the band er2bc sits in
tcq qdisc add dev dummy0 root handle 1: prio bands 2 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
	tcq qdisc add dev dummy0 parent 1:1 handle 10: er2bc rate 1mbit &&
	ip -n "$NS" addr add 192.0.2.1/24 dev dummy0 &&
	ip -n "$NS" neigh add 192.0.2.2 lladdr 02:00:00:00:00:02 dev dummy0 &&
	ip netns exec "$NS" ping -q -c 3 -i 0.2 -W 1 192.0.2.2 >/dev/null 2>&1
sent=$(get "$(snapshot)" er2bc packets)
[ "${sent:-0}" -ge 3 ]
log_test $? "works as a child qdisc" "packets=$sent"

# Lowering the limit below the queue drops the excess from the head, counts
# it as dropped, not sent, and tells the parent: both report the same
# backlog. At 8 bit/s a 1042-byte frame takes 17 minutes and a burst of one
# byte lets only the first frame go at once: nothing else leaves while the
# test looks, so every count is exact.
tcq qdisc change dev dummy0 parent 1:1 handle 10: er2bc rate 8bit limit 100 burst 1
ip netns exec "$NS" python3 -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(40):
    s.sendto(b'x' * 1000, ('192.0.2.2', 9))"
s0=$(snapshot)
queued=$(get "$s0" er2bc qlen)
[ "$queued" -ge 30 ]
log_test $? "packets wait at 8 bit/s" "qlen=$queued"
tcq qdisc change dev dummy0 parent 1:1 handle 10: er2bc limit 5
s1=$(snapshot)
# 1000 bytes of UDP payload: 1042-byte frames
[ "$(get "$s1" er2bc qlen)" = 5 ] && [ "$(get "$s1" prio qlen)" = 5 ] &&
	[ "$(get "$s1" er2bc backlog)" = 5210 ] && [ "$(get "$s1" prio backlog)" = 5210 ] &&
	[ $(($(get "$s1" er2bc drops) - $(get "$s0" er2bc drops))) = $((queued - 5)) ] &&
	[ "$(get "$s1" er2bc bytes)" = "$(get "$s0" er2bc bytes)" ]
log_test $? "limit lowered: excess dropped and counted, parent's backlog follows" \
	"qlen=$(get "$s1" er2bc qlen)/$(get "$s1" prio qlen) backlog=$(get "$s1" er2bc backlog)/$(get "$s1" prio backlog) drops=$(get "$s0" er2bc drops)->$(get "$s1" er2bc drops) bytes=$(get "$s0" er2bc bytes)->$(get "$s1" er2bc bytes)"

# deleting a qdisc that holds packets and an armed watchdog
tcq qdisc del dev dummy0 root && ! tcq qdisc show dev dummy0 | grep -q er2bc
log_test $? "delete with packets queued and the watchdog armed"
