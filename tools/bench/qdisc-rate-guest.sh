#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest, in real time (no -icount; see qdisc-cost.sh): the rate
# er2bc and htb achieve against the rate configured, for TCP and UDP
# through a veth pair between two network namespaces.
#
#   qdisc-rate-guest.sh OUT.jsonl SECONDS RATE_MBIT...
#
#   sender (qdisc on veth0) ---- receiver
#
# One class takes all traffic (the default class):
#   er2bc  cap R (rate R), class 1:1 prio 1 rate R
#   htb    root class 1:ffff rate R ceil R, leaf 1:1 rate R ceil R
# Bursts are each qdisc's default; the class's pfifo holds 100 packets
# (txqueuelen). iperf3 runs SECONDS after 2 s of warm-up (-O 2). UDP:
# 1400-byte datagrams offered at 1.5 R; the sender's socket buffer (the
# default 208 KiB) holds it back once about 90 of them wait in the qdisc,
# so the queue stays full without the CPU time that dropping the excess
# would take from the emulated CPUs (whose late timers are then what
# costs a shaper its rate).
#
# Two measures of the rate achieved on the wire:
#  - iperf3's: the receiver's goodput converted to frames (a TCP segment
#    with timestamps carries 1448 bytes in a 1514-byte frame; a 1400-byte
#    UDP datagram goes in 1442 bytes: UDP 8, IPv4 20, Ethernet 14), as
#    selftests/sch_er2bc/er2bc_rate.sh counts. Its window includes the
#    run's edges (start-up, the queue emptying at the end), which cost
#    about 1 % at these lengths under TCG.
#  - the qdisc's: the bytes the root qdisc has sent (its own counter: frames
#    without FCS, a GSO packet as the frames it becomes), read every 0.1 s
#    over the steady part of the run (qdisc-bytes.py), and the rate fitted
#    to them by least squares. With its queue length at each sample: a
#    shaper can only be short of its rate where its queue runs empty (TCP
#    may leave it so), so the share of samples that found it empty is
#    recorded too, and how late the sampler woke for its samples: the
#    emulated CPUs run timers late when the host is busy, and a shaper
#    whose watchdog fires late loses rate.
set -eu

out=$1
secs=$2
shift 2
rates=("$@")

# setup_ns, veth_pair, iperf3_run, cleanup_all_ns, busywait, tcp_listening
source "$(dirname "$0")/../../selftests/lib.sh"

modprobe sch_er2bc
modprobe sch_htb
setup_ns SND RCV
trap cleanup_all_ns EXIT
veth_pair "$SND" veth0 10.0.0.1/24 "$RCV" veth1 10.0.0.2/24
: >"$out"
raw=$(dirname "$out")/rate-runs
mkdir -p "$raw"

tcq() { ip netns exec "$SND" tc "$@"; }

# setup QDISC RATE QUEUE: the qdisc, whose pfifo holds QUEUE packets
setup() {
	local qd=$1 bps=$2
	tcq qdisc del dev veth0 root 2>/dev/null || true
	ip -n "$SND" link set veth0 txqueuelen "$3"
	case $qd in
	er2bc)
		tcq qdisc add dev veth0 root handle 1: er2bc rate "${bps}bit" default 1
		tcq class add dev veth0 parent 1: classid 1:1 er2bc prio 1 rate "${bps}bit"
		;;
	htb)
		tcq qdisc add dev veth0 root handle 1: htb default 1
		tcq class add dev veth0 parent 1: classid 1:ffff htb rate "${bps}bit" ceil "${bps}bit"
		tcq class add dev veth0 parent 1:ffff classid 1:1 htb rate "${bps}bit" ceil "${bps}bit"
		;;
	esac
}

# one line of OUT: both measures of one run
analyse='
import json, sys
qd, proto, bps, frame, payload, result, samples = sys.argv[1:8]
bps, frame, payload = int(bps), int(frame), int(payload)
r = {"qdisc": qd, "proto": proto, "target_bps": bps}
j = {}
try:
    j = json.load(open(result))
    s = j["end"]["sum_received"]
    r["iperf3_goodput_bps"] = round(s["bits_per_second"])
    r["iperf3_achieved_bps"] = round(s["bits_per_second"] * frame / payload)
    r["iperf3_error"] = r["iperf3_achieved_bps"] / bps - 1
except Exception as e:
    r["failure"] = str(j.get("error", repr(e)) if isinstance(j, dict) else repr(e))
pts = [tuple(map(float, l.split())) for l in open(samples) if len(l.split()) == 4]
if len(pts) >= 4:
    late = sorted(p[3] for p in pts)
    r["sampler_late_ms_p95"] = round(1000 * late[int(0.95 * (len(late) - 1))], 1)
    r["sampler_late_ms_max"] = round(1000 * late[-1], 1)
    t0 = pts[0][0]
    xs = [p[0] - t0 for p in pts]
    ys = [p[1] * 8 for p in pts]
    r["empty_queue_samples"] = round(sum(p[2] == 0 for p in pts) / len(pts), 3)
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    r["achieved_bps"] = round(slope)
    r["error"] = slope / bps - 1
    r["window_seconds"] = round(xs[-1], 3)
    r["samples"] = len(pts)
else:
    r.setdefault("failure", "too few samples of the qdisc counter")
print(json.dumps(r))

'

# measure QDISC MBIT PROTO ATTEMPT: one run, its line to stdout
measure() {
	local qd=$1 mbit=$2 proto=$3 bps=$(($2 * 1000000)) args frame payload run json pid
	setup "$qd" $bps 100
	if [ "$proto" = tcp ]; then
		args=(-t "$secs" -O 2)
		frame=1514 payload=1448
	else
		args=(-u -b $((bps * 3 / 2)) -l 1400 -t "$secs" -O 2)
		frame=1442 payload=1400
	fi
	run=$raw/$qd-$mbit-$proto-$4
	# iperf3 takes about a second to start under TCG: sample from 3 s to
	# 1 s before its end
	ip netns exec "$SND" python3 "$(dirname "$0")/qdisc-bytes.py" \
		veth0 3 $((secs - 2)) 0.1 >"$run.samples" &
	pid=$!
	json=$(iperf3_run "$SND" "$RCV" 10.0.0.2 "${args[@]}") || json='{}'
	wait $pid
	echo "$json" >"$run.json"
	python3 -c "$analyse" "$qd" "$proto" "$bps" "$frame" "$payload" \
		"$run.json" "$run.samples"
}

# A run during which the emulated CPUs ran timers late (the sampler woke
# more than 20 ms late for one sample in twenty) says more about the host
# than about the shaper: such a run is done again, twice at most, and the
# last is kept, with the earlier ones beside it.
for mbit in "${rates[@]}"; do
	for qd in er2bc htb; do
		for proto in tcp udp; do
			tries=()
			for attempt in 1 2 3; do
				echo "bench: $qd at $mbit Mbit/s, $proto${tries:+ (again: timers were late)}" >&2
				line=$(measure $qd "$mbit" $proto $attempt)
				late=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1]).get("sampler_late_ms_p95", 0))' "$line")
				if [ $attempt = 3 ] || python3 -c "import sys; sys.exit(0 if $late <= 20 else 1)"; then
					break
				fi
				tries+=("$line")
			done
			python3 -c '
import json, sys
r = json.loads(sys.argv[1])
r["attempts"] = len(sys.argv) - 1
r["earlier_attempts"] = [json.loads(a) for a in sys.argv[2:]]
print(json.dumps(r))
' "$line" "${tries[@]}" >>"$out"
		done
	done
done
