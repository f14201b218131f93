#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest, under QEMU -icount shift=0 (see qdisc-cost.sh): the
# per-packet cost of er2bc, htb and pfifo on a dummy device, with pktgen in
# queue_xmit mode (every packet goes through the root qdisc, as a packet
# from a socket would) and 64-byte frames. Guest time is executed
# instructions (1 ns each), so every cost below is in instructions: pktgen
# building the packet, the qdisc, the device, freeing it.
#
#   qdisc-cost-guest.sh OUT.jsonl BENCH_TXQ_KO PACKETS BACKLOG CLASSES...
#
# Writes one JSON object a line per measurement ("cell") to OUT.jsonl.
#
# Configurations (the same for every pattern; C = 10 Tbit/s, N classes):
#   htb    root class 1:ffff rate C ceil C; N leaves 1:1..1:N under it, each
#          rate C/N ceil C quantum 1514, a pfifo each (htb's default)
#   er2bc  cap C (rate C); N classes 1:1..1:N, each prio 1 rate C/N (its
#          guarantee; no ceil but the cap, as htb's ceil C), weight 1
#          (quantum = 1514 bytes, as htb's), a pfifo each (er2bc's default)
#          Bursts: the same for both, 1 ms at each rate (see burst_of)
#   pfifo  root pfifo: the floor, no classes and no classifier. With an
#          empty queue it hands packets straight to the device
#          (TCQ_F_CAN_BYPASS: no enqueue, no dequeue)
#   bfifo  root bfifo limit 1000 (bytes): a fifo that never bypasses (its
#          limit is below an MTU), to show what the generic enqueue and
#          dequeue path costs by itself; patterns a and b only
#   prio   root prio (3 bands, a pfifo each, its default): the floor of a
#          classful qdisc that classifies with the same filter and queues
#          to a child but shapes nothing and reads no clock; patterns a0
#          and a only (at most 16 bands), one band
# Both classful qdiscs classify with one identical filter, whatever N:
#   filter ... handle 1 flow map key proto-src divisor N baseclass 1:1
# i.e. class 1 + (UDP source port mod N): one hash lookup, not N filters.
# C/N is at least 2.4 Gbit/s while 64-byte packets leave at well under
# 0.5 Gbit/s (guest time): no class exceeds its guarantee, nothing borrows,
# nothing waits; every pfifo holds 32767 packets (txqueuelen), more than
# any backlog here.
#
# Patterns (pktgen draws the source port at random in all of them, so its
# own cost is the same in each):
#   a0 all packets to one class, the default class 1:1, with no filter
#   a  all packets to one class through the filter (source port 4096:
#      class 1:1)
#   b  spread over all classes through the filter (source port uniform over
#      32768 ports, a multiple of every N: each class gets 1/N of them)
#   c  backlogged: the device is slower than the offered load. Its transmit
#      queue is stopped (bench_txq.ko, as a driver whose ring is full), and
#      pktgen sends BACKLOG packets as in b: they all queue, spread over
#      the N classes (fill: pktgen + classifier + enqueue). Then the queue
#      restarts and the qdisc is run at once until empty, as a driver's
#      wake-up would (drain: BACKLOG dequeues from N active classes, each
#      choosing the next class, + the device's xmit + freeing). The cost is
#      (fill + drain) / BACKLOG: the same work per packet as a and b, done
#      with every class backlogged (see run_c for how it is timed).
#   g  lending with packets far larger than the quanta, backlogged as in
#      c (GBACKLOG packets, spread over the N classes by the filter):
#      every class borrows, so the scheduler chooses by deficit round
#      robin with a quantum of 1514 bytes (er2bc: classes with no rate,
#      weight 1; htb: leaves of rate 1 kbit/s, ceil C, quantum 1514), once
#      with frames of 1514 bytes and once of 64000 (a GSO packet's size:
#      the dummy device takes them whole), each beside pfifo at the same
#      size. A 64000-byte packet leaves its class 42 quanta short: a
#      scheduler that hands out one quantum per turn walks its list 42
#      times more per packet than with 1514-byte frames.
#
# Each cell: PACKETS packets (c: BACKLOG), the busy time pktgen reports
# (and bench_txq.ko, for a drain), divided by the packets; the device's
# packet counter checks that every packet went out, the classes' counters
# that the filter spread them as meant. The cells at the most classes and
# the pfifo ones are run twice, for the spread between runs.
set -eu

out=$1
txq_ko=$2
count=$3
backlog=$4
shift 4
classes=("$@")
gbacklog=2000		# pattern g: 2000 packets of 64000 bytes take 256 MB
pg=/proc/net/pktgen
txq=/sys/module/bench_txq/parameters
cap=10000000000000	# C, bits/s
port0=4096		# pattern a's port; b and c: [port0, port0 + nports)
nports=32768

modprobe pktgen
modprobe sch_er2bc
modprobe sch_htb
modprobe sch_prio
modprobe cls_flow
insmod "$txq_ko"
ip link add dum0 type dummy
# nothing but pktgen's packets: no IPv6 neighbour discovery or reports
sysctl -qw net.ipv6.conf.dum0.disable_ipv6=1
# every pfifo, root or child, takes its limit from txqueuelen (at most 32767)
[ "$backlog" -le 20000 ] || { echo "bench: BACKLOG is at most 20000" >&2; exit 2; }
ip link set dum0 up mtu 1500 txqueuelen 32767
ip addr add 198.51.100.1/24 dev dum0
: >"$out"
read -r tx_bias </proc/sys/net/core/dev_weight_tx_bias

pgset() { echo "$2" >"$pg/$1"; }

pgset kpktgend_0 rem_device_all
pgset kpktgend_0 "add_device dum0"
pgset dum0 "pkt_size 60"
pgset dum0 "delay 0"
pgset dum0 "dst 198.51.100.2"
pgset dum0 "dst_mac 02:00:00:00:00:02"
pgset dum0 "xmit_mode queue_xmit"
pgset dum0 "flag UDPSRC_RND"
# see run_c; set for every pattern, so that pktgen's own work is the same
unshared=0
pgset dum0 "flag !SHARED"
if grep -q "^Result: OK: flags=" "$pg/dum0"; then unshared=1; fi

# ports NPORTS: source ports [port0, port0 + NPORTS), drawn at random
ports() {
	pgset dum0 "udp_src_min $port0"
	pgset dum0 "udp_src_max $((port0 + $1))"
}

# the last run's "c" (busy) microseconds, packets sent and errors
pg_result() {
	sed -n 's/.*OK: [0-9]*(c\([0-9]*\)+d[0-9]*) usec, \([0-9]*\) .*/\1 \2/p' "$pg/dum0"
	sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$pg/dum0"
}

tx_packets() { cat /sys/class/net/dum0/statistics/tx_packets; }

# record KEY=VALUE...: one JSON line (values are numbers, or strings if quoted)
record() {
	local kv s=
	for kv in "$@"; do s+="${s:+, }\"${kv%%=*}\": ${kv#*=}"; done
	echo "{$s}" >>"$out"
}

# Sleep without a fork (a fork in the middle of a measured run would be
# measured): bash's loadable sleep (bash-builtins), not `read -t`, whose
# timeout can leave the shell's signal mask garbage (selftests/lib.sh)
if enable -f /usr/lib/bash/sleep sleep 2>/dev/null; then
	nap() { builtin sleep "$1" || true; }
else
	nap() { command sleep "$1" || true; }
fi

# used QDISC: classes that have sent anything so far (the filter at work)
used() {
	local n
	n=$(tc -s class show dev dum0 | grep -c 'Sent [1-9]') || true
	[ "$1" = htb ] && n=$((n - 1))	# htb's root class 1:ffff
	echo "$n"
}

# run QDISC N PATTERN [TAG]: one cell of pattern a0, a or b
run() {
	local qd=$1 n=$2 pat=$3 tag=${4:-} tx0 us sent err extra=()
	case $pat in a*) ports 1 ;; *) ports $nports ;; esac
	pgset dum0 "count $count"
	tx0=$(tx_packets)
	pgset pgctrl start
	{ read -r us sent; read -r err; } < <(pg_result)
	case $qd in htb | er2bc) extra=(classes_used="$(used "$qd")") ;; esac
	record qdisc="\"$qd\"" classes="$n" pattern="\"$pat\"" tag="\"$tag\"" \
		packets="$sent" ns=$((us * 1000)) errors="$err" \
		dequeued=$(($(tx_packets) - tx0)) "${extra[@]}"
	last_ns=$((us * 1000))
}

# Pattern c: BACKLOG packets queue while the device's queue is stopped (the
# fill), then one drain. pktgen's busy time must not include the drain, nor
# its own wait for the last packet it sent: that wait ends only with the
# drain, and pktgen counts the time other tasks run during it twice over as
# idle. Two ways, by what the kernel's pktgen offers:
#  - "flag !SHARED" (6.12): pktgen keeps no reference to what it sent, so
#    its run ends with the fill; the drain follows. Exact.
#  - otherwise (6.1): pktgen sends BACKLOG * 3/2 packets, and a drainer
#    process drains once BACKLOG packets wait; pktgen counts the time it
#    gives the CPU up to the drainer as idle (once), then sends the rest
#    through the running, empty qdisc, as in pattern b: those are taken
#    out at b's cost per packet. Within about 1 % of the exact way.
#   cost  = (fill + drain) / (packets drained)

# pg_state: pktgen's run under way, in pg_running (1 while it runs) and
# pg_sofar (packets sent so far), with builtins only. Until its thread
# takes the run up, the file still shows the last run's counters; its
# result reads "Starting" only once they are cleared.
pg_state() {
	local l
	pg_sofar=0 pg_running=0
	while read -r l; do
		case $l in
		pkts-sofar:*)
			l=${l#pkts-sofar: }
			pg_sofar=${l%% *}
			;;
		"Result: Starting"*)
			pg_running=1
			;;
		esac
	done <"$pg/dum0"
	[ $pg_running = 1 ] || pg_sofar=0
}

# drainer SECONDS: the device's wake-up, a process of its own. It sleeps
# through most of the fill, then looks every 5 ms, and once BACKLOG
# packets wait, restarts the queue and drains the qdisc (bench_txq.ko).
# It lives on until pktgen's run ends: the shell that started pktgen
# waits in the kernel for it, and a SIGCHLD there (this process ending)
# would make pktgen stop all its threads.
drainer() {
	nap "$1"
	pg_state
	while [ "$pg_sofar" -lt "$backlog" ]; do
		nap 0.005
		pg_state
	done
	echo dum0 >"$txq/drain"
	while [ "$pg_running" = 1 ]; do
		nap 0.05
		pg_state
	done
}

# run_c QDISC N [TAG]: one backlogged cell, after the b cell of the same
# configuration (whose cost per packet is $last_ns / $count)
run_c() {
	local qd=$1 n=$2 tag=${3:-} tx0 us sent err drain before after pid total rest
	if [ "$unshared" = 1 ]; then total=$backlog; else total=$((backlog * 3 / 2)); fi
	ports $nports
	pgset dum0 "count $total"
	# the transmit quota: one net_tx_action drains the whole backlog
	echo 100000 >/proc/sys/net/core/dev_weight_tx_bias
	echo dum0 >"$txq/stop"
	read -r tx0 </sys/class/net/dum0/statistics/tx_packets
	if [ "$unshared" = 1 ]; then
		pgset pgctrl start
		echo dum0 >"$txq/drain"
	else
		drainer "$(echo "scale=3; 0.5 * $last_ns * $backlog / $count / 1000000000" | bc)" &
		pid=$!
		pgset pgctrl start
		wait "$pid"
	fi
	echo "$tx_bias" >/proc/sys/net/core/dev_weight_tx_bias
	{ read -r us sent; read -r err; } < <(pg_result)
	read -r drain before after <"$txq/drain"
	rest=$(((sent - before) * last_ns / count))	# 0 if unshared
	record qdisc="\"$qd\"" classes="$n" pattern="\"${c_pattern:-c}\"" tag="\"$tag\"" \
		frame="${c_frame:-60}" \
		packets="$before" ns=$((us * 1000 - rest + drain)) \
		fill_ns=$((us * 1000 - rest)) drain_ns="$drain" busy_ns=$((us * 1000)) \
		sent="$sent" after_drain=$((sent - before)) errors="$err" \
		queued_after_drain="$after" dequeued=$(($(tx_packets) - tx0))
}

# burst_of RATE: bytes a clock or bucket at RATE may send back to back, for
# both qdiscs alike: 1 ms at the rate, at least two frames, at most 2^29
# (er2bc's limit). tc's default for htb (rate / HZ + MTU, in 64 ns ticks)
# rounds to 0 at these rates, and a leaf with no bucket changes mode at
# every packet: that costs htb up to 470 instructions a packet at some
# class counts, a cost of the setup, not of htb.
burst_of() {
	local b=$(($1 / 8 / 1000))
	[ $b -ge 3028 ] || b=3028
	[ $b -le $((1 << 29)) ] || b=$((1 << 29))
	echo $b
}

# N-class configurations, each in one tc process (a fork of tc costs up to
# a second under TCG); no filter yet. setup QDISC N lend: pattern g's
# classes, which all borrow: htb's leaves at 1 kbit/s, er2bc's with no rate
setup() {
	local qd=$1 n=$2 lend=${3:-} m batch=/tmp/bench-tc.batch rate burst cburst opts
	rate=$((cap / n))
	[ -z "$lend" ] || rate=1000
	burst=$(burst_of $rate)
	cburst=$(burst_of $cap)
	opts="rate ${rate}bit burst $burst"
	[ -z "$lend" ] || opts="weight 1"
	tc qdisc del dev dum0 root 2>/dev/null || true
	case $qd in
	pfifo)
		tc qdisc add dev dum0 root handle 1: pfifo
		return
		;;
	bfifo)
		tc qdisc add dev dum0 root handle 1: bfifo limit 1000
		return
		;;
	prio)
		tc qdisc add dev dum0 root handle 1: prio
		return
		;;
	htb)
		{
			echo "qdisc add dev dum0 root handle 1: htb default 1"
			echo "class add dev dum0 parent 1: classid 1:ffff htb rate ${cap}bit ceil ${cap}bit burst $cburst cburst $cburst quantum 1514"
			for ((m = 1; m <= n; m++)); do
				printf 'class add dev dum0 parent 1:ffff classid 1:%x htb rate %dbit ceil %dbit burst %d cburst %d quantum 1514\n' \
					"$m" "$rate" "$cap" "$burst" "$cburst"
			done
		} >"$batch"
		;;
	er2bc)
		{
			echo "qdisc add dev dum0 root handle 1: er2bc rate ${cap}bit burst $cburst default 1"
			for ((m = 1; m <= n; m++)); do
				printf 'class add dev dum0 parent 1: classid 1:%x er2bc prio 1 %s\n' \
					"$m" "$opts"
			done
		} >"$batch"
		;;
	esac
	tc -batch "$batch"
}

# run_g QDISC N: pattern g's cells, at 1514 and at 64000 bytes a frame. A
# b run of GBACKLOG packets first, unrecorded, gives run_c (6.1's way) the
# cost of a packet through the running qdisc.
run_g() {
	local qd=$1 n=$2 size count=$gbacklog backlog=$gbacklog c_pattern=g c_frame

	for size in 1514 64000; do
		c_frame=$size
		pgset dum0 "pkt_size $size"
		run "$qd" "$n" b warmup
		run_c "$qd" "$n" warmup
		run_c "$qd" "$n"
	done
	pgset dum0 "pkt_size 60"
}

add_filter() {
	tc filter add dev dum0 parent 1: protocol ip prio 1 handle 1 \
		flow map key proto-src divisor "$1" baseclass 1:1
}

# what was measured: the kernel, and the module's version (git describe of
# the tree it was built from)
record kernel="\"$(uname -r)\"" \
	er2bc_version="\"$(cat /sys/module/sch_er2bc/version 2>/dev/null || echo unknown)\"" \
	packets="$count" backlog="$backlog" gbacklog="$gbacklog" unshared="$unshared"
echo "bench: $(uname -r), $count packets a cell, backlog $backlog, classes ${classes[*]}" >&2

# warm-up (not recorded as a result): first use of pktgen, slabs for a backlog
setup pfifo 1
run pfifo 1 b warmup
run_c pfifo 1 warmup

run pfifo 1 a0
run pfifo 1 a
run pfifo 1 b
run_c pfifo 1 warmup
run_c pfifo 1
setup bfifo 1
run bfifo 1 a
run bfifo 1 b
setup prio 1
run prio 1 a0
add_filter 1
run prio 1 a

nmax=${classes[-1]}
order=(htb er2bc)
for n in "${classes[@]}"; do
	# which of the two goes first alternates from one class count to the next
	order=("${order[1]}" "${order[0]}")
	for qd in "${order[@]}"; do
		echo "bench: $qd, $n classes" >&2
		setup $qd "$n"
		run $qd "$n" a0
		add_filter "$n"
		run $qd "$n" a
		run $qd "$n" b
		# the first backlog after a configuration change also pays for
		# memory the allocators then keep: once unrecorded, then measured
		run_c $qd "$n" warmup
		run_c $qd "$n"
		if [ "$n" = "$nmax" ]; then
			# repeatability: the same cell again, in the same boot
			run $qd "$n" b repeat
			run_c $qd "$n" repeat
		fi
	done
done
setup pfifo 1
run pfifo 1 b repeat
run_c pfifo 1 warmup
run_c pfifo 1 repeat

setup pfifo 1
run_g pfifo 1
for n in "${classes[@]}"; do
	for qd in htb er2bc; do
		echo "bench: $qd, $n classes, pattern g" >&2
		setup $qd "$n" lend
		add_filter "$n"
		run_g $qd "$n"
	done
done
tc qdisc del dev dum0 root
