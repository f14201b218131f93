#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The estimator beside elastic cross traffic (issue 39). Through A's
# er2bc: priority 1, paced UDP at its necessary 1 Mbit/s, and a greedy TCP
# backup at priority 3, with the estimator's default rule (loss) at 250 ms
# intervals, over a 5 Mbit/s bottleneck at R (20 ms of delay, a buffer of
# about 27 full frames).
#  - beside_cubic: two CUBIC flows from the router share the bottleneck
#    with the gateway's aggregate, and fill its buffer at every sawtooth:
#    - the loss rule sees the others hold the queue and competes (the log
#      says so, and when it began; compete.h)
#    - W does not collapse: its mean over the last 10 s is at least 2
#      Mbit/s (the paper's rule, before: about 0.5, below priority 1's own
#      rate)
#    - priority 1 keeps its rate: B receives at least 90 % of its 1 Mbit/s
#      (what A sent of it is counted too, and said)
#  - alone: alone on the path (no CUBIC flows), the rule does not compete
#    against its own queue: every drain the queue test begins empties it
# (rates and reaction times: a miss on a slow machine, the debug kernel,
# is a skip that says so). Each case with namespaces of its own (make
# check T=er2bc_elastic:CASE).
#
#   A (er2bc, a0 10.0.1.1) -- (r0) R (r1: bottleneck; two CUBIC flows) -- (b0 10.0.2.2) B
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/gateways.sh"

ALL_TESTS="
	beside_cubic
	alone
"

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
abwd=$top/tools/abwd/er2bc-abwd
PORT=4950
EST=160		# estimates of the sender beside the CUBIC flows, 4 a second
DUR=$((EST / 4 + 6))	# seconds of traffic: 2 before the sender, some after
MEASURE=10	# the last seconds, measured
ALONE=16	# seconds the estimator runs alone on the path (its first
		# drain began at the 19th-23rd estimate and took 10-12; before
		# the drain the rule competed from the 23rd; measured with W
		# starting where the run beside the CUBIC flows left it; from
		# the cap, as this case starts, 2 drains in the 64 estimates
		# on 6.1 and 6.12, 1 and 2 of them emptying the queue)

# stop_procs: the case's background processes (pids), stopped and
# reaped before the next case: removing the namespaces (tests_run) kills
# what runs in them, but the shell keeps the jobs
pids=()
stop_procs() {
	local p

	[ ${#pids[@]} -gt 0 ] || return 0
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait "${pids[@]}" 2>/dev/null
	pids=()
}

# path_setup: the gateways, and R's bottleneck on r1
path_setup() {
	gateways_setup &&
		tc -netns "$R" -batch - <<-EOF
		qdisc add dev r1 root handle 1: netem delay 20ms limit 1000
		qdisc add dev r1 parent 1: handle 2: tbf rate 5mbit burst 5k limit 40k
		EOF
}

# a_setup: A's er2bc, priority 1 at 1 Mbit/s for UDP to port 9, priority
# 3 (the default) for the rest
a_setup() {
	tc -netns "$A" -batch - <<-EOF
	qdisc add dev a0 root handle 1: er2bc rate 100mbit mode er2bc default 3 \
		probe-port $PORT peer 10.0.2.0/24
	class add dev a0 parent 1: classid 1:1 er2bc prio 1 rate 1mbit type udp
	class add dev a0 parent 1: classid 1:3 er2bc prio 3
	filter add dev a0 parent 1: protocol ip prio 1 flower ip_proto udp \
		dst_port 9 classid 1:1
	EOF
}

# b_start PORT...: B's responder, and a TCP receiver on each PORT
b_start() {
	local p

	ip netns exec "$B" "$abwd" responder --dev b0 --peer-prefix 10.0.1.0/24 --port $PORT \
		--plain yes 2>"$work/resp.log" &
	pids+=($!)
	for p in "$@"; do
		ip netns exec "$B" iperf3 -s -p $p >/dev/null 2>&1 &
		pids+=($!)
	done
}

# b_listening PORT...: B's responder bound, and a receiver on each PORT
b_listening() {
	local p

	busywait 20000 udp_bound "$B" $PORT || return 1
	for p in "$@"; do busywait 10000 tcp_listening "$B" $p || return 1; done
}

# p1_counters: a count of priority 1's bytes at B, and A's count of what
# it sent of them, said beside what B got
p1_counters() {
	ip netns exec "$B" nft -f - <<-'EOF'
	table inet er2bc_elastic {
		counter p1 { }
		chain in {
			type filter hook input priority 0;
			udp dport 9 counter name p1
		}
	}
	EOF
	ip netns exec "$A" nft -f - <<-'EOF'
	table inet er2bc_elastic {
		counter p1 { }
		chain out {
			type filter hook output priority 0;
			udp dport 9 counter name p1
		}
	}
	EOF
}

# p1_bytes NS: what B received, or A sent, of priority 1 so far
p1_bytes() {
	ip netns exec "$1" nft -j list counter inet er2bc_elastic p1 |
		json_get "[x['counter']['bytes'] for x in j['nftables'] if 'counter' in x][0]"
}

# a_flows SECONDS: A's flows, priority 1 paced at its rate and a greedy
# backup, their pids added to the caller's run and to pids
a_flows() {
	ip netns exec "$A" python3 -S "$here/udpflood.py" 10.0.2.2 "$1" 9@1000000 >/dev/null &
	run+=($!)
	pids+=($!)
	ip netns exec "$A" iperf3 -c 10.0.2.2 -p 5203 -t "$1" -C cubic >/dev/null 2>&1 &
	run+=($!)
	pids+=($!)
}

# w_mean_of LOG: W's mean over the sender's last MEASURE seconds of
# estimates in LOG (4 a second), bit/s
w_mean_of() {
	sed -n 's/.*estimate [0-9]*: .* W \([0-9.]*\)\([KMG]\?bit\) D .*/\1 \2/p' "$1" |
		tail -n $((MEASURE * 4)) |
		awk '{ s += $1 * ($2 == "Mbit" ? 1e6 : $2 == "Kbit" ? 1e3 : 1); n++ }
			END { if (n) printf "%d", s / n; else print 0 }'
}

# elastic_run: the cross traffic, A's flows and the sender for DUR
# seconds; sets rc, p1, p1_sent, w_mean, competing, first, stops, now_on
elastic_run() {
	local run=() p meas

	# the cross traffic, from R: two CUBIC flows that never pass A
	for p in 5201 5202; do
		ip netns exec "$R" iperf3 -c 10.0.2.2 -p $p -t $DUR -C cubic >/dev/null 2>&1 &
		run+=($!)
		pids+=($!)
	done
	a_flows $DUR
	sleep 2
	(
		sleep $((EST / 4 - MEASURE))
		a0=$(p1_bytes "$A") b0=$(p1_bytes "$B") t0=$(now)
		sleep $MEASURE
		a1=$(p1_bytes "$A") b1=$(p1_bytes "$B") t1=$(now)
		python3 -S -c "print(round(($b1 - $b0) * 8 / ($t1 - $t0)), round(($a1 - $a0) * 8 / ($t1 - $t0)))"
	) >"$work/p1.rate" &
	meas=$!
	ip netns exec "$A" "$abwd" sender --peer 10.0.2.2 --port $PORT --dev a0 --interval 250ms --compete yes \
		--once $EST --plain yes --status "$work/send.json" -v 2>"$work/send.log"
	rc=$?
	wait $meas
	read -r p1 p1_sent <"$work/p1.rate"

	w_mean=$(w_mean_of "$work/send.log")
	competing=$(grep -c '(compete-' "$work/send.log")
	first=$(grep -m1 -o 'estimate [0-9]*: .*(compete-' "$work/send.log" | sed 's/estimate \([0-9]*\):.*/\1/')
	# times it stopped competing once it had begun
	stops=$(grep -o 'estimate [0-9]*: .*([a-z0-9-]*)' "$work/send.log" | sed 's/.*(\(.*\))$/\1/' |
		awk '/^compete-/ { on = 1; next } on { n++; on = 0 } END { print n + 0 }')
	now_on=$(json_get "j['competing']" <"$work/send.json")
	rules=$(rules_of "$work/send.log")
	# the flows end with DUR, after the sender
	wait "${run[@]}" 2>/dev/null
}
# trace_of LOG: the rule, W and the queue read (ms; "-" where none was) at
# each estimate of the sender's LOG: what the test and the drain judged by
trace_of() {
	sed -n 's/.*estimate [0-9]*: .* W \([0-9.]*[KMG]\?\)bit D .*(\([a-z0-9, -]*\))\( queue \([0-9]*\)us\)\?.*/\2:\1@\4/p' \
		"$1" | awk -F@ '{ printf "%s@%s\n", $1, $2 == "" ? "-" : sprintf("%.1f", $2 / 1000) }' |
		sed 's/^compete-/c/' | tr ' ' '_' | tr '\n' ' '
}
# rules_of LOG: trace_of's rules run-length coded, with W at each run's
# end ("headroom*12:2.5M drain*4:2.06M ..."), short enough for a
# failure's line, which is all a CI log may show of a run
rules_of() {
	trace_of "$1" | tr ' ' '\n' |
		awk -F '[:@]' 'NF && $1 != r { if (n) printf "%s*%d:%s ", r, n, w; r = $1; n = 0 }
			NF { n++; w = $2 } END { if (n) printf "%s*%d:%s", r, n, w }'
}
# the three verdicts below, and all three at once
competes() { [ $rc = 0 ] && [ -n "$first" ]; }
w_kept() { [ "$w_mean" -ge 2000000 ]; }
p1_kept() { [ "${p1:-0}" -ge 900000 ]; }
elastic_ok() { competes && w_kept && p1_kept; }
elastic_info() {
	echo "from estimate ${first:-none}; $competing of $EST estimates by the competing rule, stopped $stops times; competing at the end: $now_on; mean W $w_mean bit/s; priority 1 received ${p1:-?} bit/s of ${p1_sent:-?} sent over the last ${MEASURE} s"
}
# the CUBIC flows beside the gateway's aggregate; the setup reported as
# three checks, as the suite has always counted it (alone's setup reports
# only a failure)
beside_cubic() {
	local again=

	path_setup
	tap_result $? "two gateways, a 5 Mbit/s bottleneck with 20 ms of delay"
	a_setup
	tap_result $? "er2bc on A: priority 1 at 1 Mbit/s (UDP to port 9), priority 3 for the rest"
	b_start 5201 5202 5203
	p1_counters
	tap_result $? "B: responder, receivers, priority 1's counter; A's of what it sent"
	b_listening 5201 5202 5203

	# (a run that misses is run once more, measure_twice's rule by hand: on
	# a host shared by three guests the estimates' timing is noisy, and the
	# rule may stop competing for a while; priority 1 then loses at the
	# bottleneck. make check's 6.12 guest read 897, 804 and 735 kbit/s for
	# priority 1 in three runs, the 6.1 guest beside the second 1020.)
	elastic_run
	if ! elastic_ok && ! machine_slow; then
		again="; first run missed: $(elastic_info); its rules: $rules"
		elastic_run
	fi

	# (a shallow buffer empties now and then under three CUBIC sawtooths,
	# and a loaded host's delays are noisy: the test may read the queue
	# drained and begin late, or stop for a while, the rule then as the
	# paper has it, W floored by the load. On 6.12 alone it began at the
	# 11th-19th estimate and competed most of the time after; three guests
	# on two CPUs have begun it as late as the 105th, and CI's 6.12 guest
	# (stop 45) not within 112 in two runs, where this host under load
	# began it at the 47th, 56th and 75th. It must begin within the run's
	# 160.)
	competes
	tap_timing_result $? "two CUBIC flows hold the bottleneck's queue: the loss rule competes" \
		"from estimate ${first:-none}; $competing of $EST estimates by the competing rule, stopped $stops times; competing at the end: $now_on; rules: $rules$again"
	# (the rules, estimate by estimate, W and the queue: the trace behind
	# the verdicts)
	echo "# rules:W@queue: $(trace_of "$work/send.log")"
	w_kept
	tap_timing_result $? \
		"W does not collapse beside them: its mean over the last ${MEASURE} s is 2 Mbit/s or more" \
		"mean W $w_mean bit/s$again"
	# (what A sent is said beside it: a paced Python sender descheduled on
	# a busy host sends less, which is not the shaper's doing)
	p1_kept
	tap_timing_result $? "priority 1 keeps its rate: B receives 90 % of its 1 Mbit/s or more" \
		"priority 1 received ${p1:-?} bit/s of ${p1_sent:-?} sent over the last ${MEASURE} s$again"
	stop_procs
}

# --- alone: the same path without the CUBIC flows, the same flows through
# A. The paper's rule grows W by D into the bottleneck's buffer and cuts
# it only beta below R, so a queue of W's own can stand through Copa's
# test; before the drain (8fe48c6) the rule then competed against itself
# (er2bc-estimator.rst, "Beside elastic traffic"). Now the test begins a
# drain, the queue empties under it (drain-end), and the rule goes on as
# the paper has it. Sets rc, w_mean, competing, drains, failed, ends
alone_run() {
	local run=()

	a_flows $((ALONE + 4))
	sleep 2
	ip netns exec "$A" "$abwd" sender --peer 10.0.2.2 --port $PORT --dev a0 --interval 250ms --compete yes \
		--once $((ALONE * 4)) --plain yes --status "$work/alone.json" -v 2>"$work/alone.log"
	rc=$?
	w_mean=$(w_mean_of "$work/alone.log")
	competing=$(grep -c '(compete-' "$work/alone.log")
	ends=$(grep -c '(drain-end)' "$work/alone.log")
	drains=$(json_get "j.get('drains', 'missing')" <"$work/alone.json")
	failed=$(json_get "j.get('drains_failed', 'missing')" <"$work/alone.json")
	wait "${run[@]}" 2>/dev/null
}
# (a drain at least, none judged others', each ended as own but one the
# run's end may cut)
alone_ok() {
	[ $rc = 0 ] && [ "$competing" = 0 ] && [ "$failed" = 0 ] &&
		[[ "$drains" =~ ^[0-9]+$ ]] && [ "$drains" -ge 1 ] && [ "$ends" -ge $((drains - 1)) ]
}
alone_info() {
	echo "$drains drains, $ends of them drained, $failed outlasted; $competing of $((ALONE * 4)) estimates by the competing rule; mean W $w_mean bit/s over the last ${MEASURE} s"
}
# the same path and flows through A without the CUBIC flows, on a path
# of the case's own: the estimator starts as beside_cubic's does, W at
# the qdisc's cap in force (its rate, 100 Mbit/s, before any estimate),
# not where the run beside the CUBIC flows left it, as when the suite ran
# as one sequence (a W that run decided, never the same twice)
alone() {
	local again=

	# (b_start's status says nothing: b_listening tells)
	if ! path_setup || ! a_setup || { b_start 5203; ! b_listening 5203; }; then
		stop_procs
		setup_failed "the path, A's er2bc, B's responder and receiver"
		return
	fi
	alone_run
	if ! alone_ok && ! machine_slow; then
		again="; first run missed: $(alone_info)"
		echo "# first run's rules:W@queue: $(trace_of "$work/alone.log")"
		alone_run
	fi
	echo "# rules:W@queue: $(trace_of "$work/alone.log")"
	alone_ok
	tap_timing_result $? \
		"alone on the path, the loss rule does not compete against its own queue: a drain empties it" \
		"$(alone_info)$again"
	stop_procs
}

require_cmd tc ip python3 iperf3 nft
[ -x "$abwd" ] || skip_all "er2bc-abwd is not built (make tools)"
tap_begin
# (the logs of a run, kept until the suite ends; the exit status is
# tap_end's to give)
work=$(mktemp -d)
trap 'rc=$?; stop_procs; rm -rf "$work"; (exit $rc); tap_end' EXIT
tests_run
