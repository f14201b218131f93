#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-qdisc: the cost of er2bc beside htb configured equivalently and
# pfifo (the floor), at 1 to 4096 classes, and the rate er2bc achieves
# against the rate configured. Not a test: it prints tables and writes
# Documentation/results/bench-qdisc.json (and build/bench/bench-qdisc-<KVER>.json).
#
#   qdisc-cost.sh [KVER]		(default 6.12)
#
# Two boots of the kernel in QEMU (TCG):
#  1. cost, with -icount shift=0 and one vCPU: guest time counts executed
#     instructions (1 ns each), so a cost repeats within a fraction of a
#     percent, where wall-clock packet rates under TCG vary by 8-31 % from
#     run to run. pktgen, queue_xmit mode, 64-byte frames, dummy device;
#     patterns a0 and a (one class), b (all classes), c (backlogged): see
#     qdisc-cost-guest.sh for exactly what is measured and how.
#  2. rate accuracy, in real time (no -icount), two vCPUs: TCP and UDP
#     through veth at 1, 10 and 50 Mbit/s (qdisc-rate-guest.sh). Under TCG
#     the emulated timers can fire milliseconds late (both vCPUs share one
#     host thread), which costs any shaper part of its rate: the figures
#     say as much about the emulation as about the shaper.
# Then qdisc-report.py prints the tables and writes the JSON.
#
# Environment (defaults in brackets): BENCH_PACKETS packets a cell of
# patterns a0, a and b [100000]; BENCH_BACKLOG packets of a pattern c cell
# [20000, at most 20000]; BENCH_CLASSES [1 16 256 4096]; BENCH_RATES
# Mbit/s [1 10 50]; BENCH_SECONDS of each iperf3 run [10]; BENCH_RATE_CPUS
# vCPUs of the rate boot [2]; BENCH_PARTS [cost rate]; BENCH_RESULT the
# JSON to write [Documentation/results/bench-qdisc.json].
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${1:-6.12}
packets=${BENCH_PACKETS:-100000}
backlog=${BENCH_BACKLOG:-20000}
classes=${BENCH_CLASSES:-1 16 256 4096}
rates=${BENCH_RATES:-1 10 50}
secs=${BENCH_SECONDS:-10}
parts=${BENCH_PARTS:-cost rate}
result=${BENCH_RESULT:-$top/Documentation/results/bench-qdisc.json}
# shellcheck source=tools/bench/lib.sh
. "$top/tools/bench/lib.sh"

# bench_txq.ko (the stoppable device queue of pattern c), in a tree of
# links of its own
txq=$bench/mod-$kver
mkdir -p "$txq"
ln -sfn "$top/tools/bench/bench_txq.c" "$txq/bench_txq.c"
ln -sfn "$top/tools/bench/Kbuild" "$txq/Kbuild"
make -s -C "$kdir" M="$txq" modules >&2

# only what this run measured goes into the report
cost= rate=
if [[ " $parts " = *" cost "* ]]; then
	cost=$bench/vm-$kver-cost/cost.jsonl
	log "$kver: cost under QEMU -icount shift=0 (guest time = instructions)"
	ER2BC_ACCEL=tcg bench_vm "$bench/vm-$kver-cost" \
		"$top/tools/bench/qdisc-cost-guest.sh $cost $txq/bench_txq.ko $packets $backlog $classes" \
		-c 1 -x "-icount shift=0" -t 7200
fi
if [[ " $parts " = *" rate "* ]]; then
	rate=$bench/vm-$kver-rate/rate.jsonl
	log "$kver: rate accuracy in real time (no -icount)"
	bench_vm "$bench/vm-$kver-rate" "$top/tools/bench/qdisc-rate-guest.sh $rate $secs $rates" \
		-c "${BENCH_RATE_CPUS:-2}" -t 1800
fi

python3 "$top/tools/bench/qdisc-report.py" --kver "$kver" --packets "$packets" \
	--backlog "$backlog" --seconds "$secs" --runtime $(($(date +%s) - start)) \
	--cost "$cost" --rate "$rate" --json "$bench/bench-qdisc-$kver.json"
bench_publish qdisc "$result"
