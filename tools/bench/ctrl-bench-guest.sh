#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest (see ctrl-bench.sh): how long a new set of guarantees
# takes to be in force, er2bc's controller in the kernel against a
# user-space controller re-rating htb with tc.
#
#   ctrl-bench-guest.sh OUT.jsonl CTRL_BENCH N:ESTIMATES:TC_RUNS...
#
# For each N (classes), on dummy devices with no traffic (the qdiscs are
# idle):
#   er2bc  dev ctl0: root er2bc rate 1gbit mode er2bc; classes 1:1..1:N,
#          prio 1 + (i-1) mod 64, type udp for every third class (tcp
#          otherwise), rate 1.5 Gbit/s / N each (all created with one
#          tc -batch). ctrl_bench sends ESTIMATES abw-set, W alternating
#          400 and 800 Mbit/s (below the 1.5 Gbit/s the classes ask for, so
#          every estimate moves guarantees), R = 0.9 x the previous W:
#          send->ACK, first with no listener, then with the monitor group
#          joined, which also gives the kernel's cost of each update.
#   htb    dev ctl1: root htb; class 1:ffff rate ceil 1gbit; leaves
#          1:1..1:N under it, rate 1.5 Gbit/s / N ceil 1gbit. A user-space
#          controller puts N new rates in force with one tc -batch of N
#          "class change ... htb rate X ceil 1gbit quantum 1514" lines,
#          X = 400 or 800 Mbit/s / N by turns: TC_RUNS runs, each timed
#          from fork to exit of tc (its start-up included; tc runs from
#          a copy in tmpfs, see below). quantum is
#          given so that htb does not derive one from the rate (and warn on
#          the console about it); 1514 bytes, er2bc's quantum at weight 1.
#   htb netlink  the same TC_RUNS sets of N new rates, sent by ctrl_bench
#          as tc sends them (RTM_NEWTCLASS, one at a time, each after the
#          last ACK) from one open socket: htb's own cost with no process
#          start-up, timed as er2bc's abw-set is.
#   tc     an empty tc -batch, TC_RUNS times: tc's start-up alone.
#
# Writes one JSON object a line to OUT.jsonl; progress lines (bench: ...)
# to stderr.
set -eu

out=$1
client=$2
shift 2
cap=1000000000
ask=1500000000		# the sum of the classes' rates
w1=400000000
w2=800000000
tmp=/tmp/ctrl-bench
mkdir -p $tmp

log() { echo "bench: $*" >&2; }
now() { date +%s.%N; }
since() { printf '%.6f' "$(echo "$(now) - $1" | bc)"; }

modprobe sch_er2bc
modprobe sch_htb

accel=tcg
if grep -qw kvm-clock /sys/devices/system/clocksource/clocksource0/available_clocksource; then
	accel=kvm
fi
{
	printf '{"kind": "head", "kernel": "%s", "accel": "%s", ' "$(uname -r)" "$accel"
	printf '"er2bc_version": "%s", "cpus": %d, ' \
		"$(cat /sys/module/sch_er2bc/version 2>/dev/null || echo unknown)" "$(nproc)"
	printf '"clocksource": "%s", "tc": "%s"}\n' \
		"$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" \
		"$(tc -V | head -n 1)"
} >"$out"

dev_up() {
	ip link add "$1" type dummy
	sysctl -qw "net.ipv6.conf.$1.disable_ipv6=1"
	ip link set "$1" up
}

# er2bc_batch N: the qdisc and its N classes
er2bc_batch() {
	local n=$1 i type
	echo "qdisc add dev ctl0 root handle 1: er2bc rate ${cap}bit mode er2bc"
	for ((i = 1; i <= n; i++)); do
		type=tcp
		((i % 3)) || type=udp
		printf 'class add dev ctl0 parent 1: classid 1:%x er2bc prio %d rate %dbit type %s\n' \
			"$i" $((1 + (i - 1) % 64)) $((ask / n)) "$type"
	done
}

# htb_batch N: the same N classes under htb
htb_batch() {
	local n=$1 i
	echo "qdisc add dev ctl1 root handle 1: htb"
	echo "class add dev ctl1 parent 1: classid 1:ffff htb rate ${cap}bit ceil ${cap}bit quantum 1514"
	for ((i = 1; i <= n; i++)); do
		printf 'class add dev ctl1 parent 1:ffff classid 1:%x htb rate %dbit ceil %dbit quantum 1514\n' \
			"$i" $((ask / n)) "$cap"
	done
}

# htb_change N TOTAL: N new rates, TOTAL / N each
htb_change() {
	local n=$1 i
	for ((i = 1; i <= n; i++)); do
		printf 'class change dev ctl1 parent 1:ffff classid 1:%x htb rate %dbit ceil %dbit quantum 1514\n' \
			"$i" $(($2 / n)) "$cap"
	done
}

: >$tmp/empty
# The tc that is timed: a copy, with the libraries it links, in the guest's
# tmpfs. The guest's root is the host's over 9p, and the lookups of an exec
# there wait on the host: under -icount that wait counts as guest time, and
# varies with the host's load (empty tc -batch: 4.5 to 38 ms from 9p,
# 4.1 to 4.4 ms, a few outliers aside, from tmpfs). A gateway's tc would
# start from its page cache.
tcdir=/dev/shm/ctrl-bench
mkdir -p $tcdir/lib
cp "$(command -v tc)" $tcdir/tc
ldd $tcdir/tc | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | xargs -r cp -t $tcdir/lib
export LD_LIBRARY_PATH=$tcdir/lib
for spec in "$@"; do
	IFS=: read -r n estimates runs <<<"$spec"
	log "$n classes: setup"
	dev_up ctl0
	dev_up ctl1
	er2bc_batch "$n" >$tmp/er2bc.batch
	htb_batch "$n" >$tmp/htb.batch
	htb_change "$n" $w1 >$tmp/htb-a.batch
	htb_change "$n" $w2 >$tmp/htb-b.batch
	t=$(now)
	tc -batch $tmp/er2bc.batch
	er2bc_setup=$(since "$t")
	t=$(now)
	tc -batch $tmp/htb.batch
	htb_setup=$(since "$t")
	got=$(tc class show dev ctl0 | grep -c '^class er2bc') || true
	[ "$got" = "$n" ] || { log "er2bc: $got classes, not $n"; exit 1; }
	got=$(tc class show dev ctl1 | grep -c '^class htb') || true
	[ "$got" = $((n + 1)) ] || { log "htb: $got classes, not $((n + 1))"; exit 1; }
	printf '{"kind": "setup", "n": %d, "er2bc_s": %s, "htb_s": %s}\n' \
		"$n" "$er2bc_setup" "$htb_setup" >>"$out"

	log "$n classes: er2bc, $estimates estimates twice (no listener, monitor)"
	ifindex=$(cat /sys/class/net/ctl0/ifindex)
	t=$(now)
	res=$("$client" abw -i "$ifindex" -H 0x10000 -n "$estimates" -w "$w1,$w2")
	printf '{"kind": "er2bc", "n": %d, "wall_s": %s, "data": %s}\n' \
		"$n" "$(since "$t")" "$res" >>"$out"
	# the last estimate's W is the cap in force
	tc -s -j qdisc show dev ctl0 >$tmp/q.json
	printf '{"kind": "er2bc_qdisc", "n": %d, "data": %s}\n' "$n" "$(cat $tmp/q.json)" >>"$out"

	log "$n classes: htb, tc -batch of $n class changes, $runs runs"
	t=$(now)
	res=$("$client" exec -n "$runs" -A $tmp/htb-a.batch -B $tmp/htb-b.batch -- $tcdir/tc -batch @)
	printf '{"kind": "htb", "n": %d, "wall_s": %s, "data": %s}\n' \
		"$n" "$(since "$t")" "$res" >>"$out"
	# the last run's rates are in force (class 1:1)
	want=$w2
	((runs % 2)) && want=$w1
	# (tc 6.1 prints htb classes as text, -j or not)
	printf '{"kind": "htb_class", "n": %d, "want_rate_bit": %d, "show": "%s"}\n' \
		"$n" $((want / n)) "$(tc class show dev ctl1 classid 1:1 | tr -d '"\n')" >>"$out"

	log "$n classes: htb, the same $n class changes over netlink, $runs runs"
	res=$("$client" htb -i "$(cat /sys/class/net/ctl1/ifindex)" -p 0x1ffff -N "$n" \
		-n "$runs" -t "$w1,$w2" -c "$cap")
	printf '{"kind": "htb_netlink", "n": %d, "data": %s}\n' "$n" "$res" >>"$out"

	res=$("$client" exec -n "$runs" -- $tcdir/tc -batch $tmp/empty)
	printf '{"kind": "tc_startup", "n": %d, "data": %s}\n' "$n" "$res" >>"$out"

	ip link del ctl0
	ip link del ctl1
done
log "done"
