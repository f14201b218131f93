#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-meter: what the receiving gateway's meter costs each frame
# its device receives, and whether it serialises the CPUs that receive.
# Not a test: it prints a table and writes
# Documentation/results/bench-meter.json (and build/bench/bench-meter-<KVER>.json).
#
#   meter-bench.sh [KVER]		(default 6.12)
#
# Two boots of the kernel in QEMU (TCG), meter-bench-guest.sh in each:
#  1. cost, with -icount shift=0 and one vCPU: guest time counts executed
#     instructions, so the cost of a frame repeats within a fraction of a
#     percent; no meter, a meter that counts the frames, one that ignores
#     them.
#  2. rate, in real time, BENCH_CPUS vCPUs: frames a second received
#     with pktgen on 1, 2 and 4 of them at once, without and with a meter.
#     Under TCG the vCPUs run in parallel only as far as the host has
#     CPUs: the figures compare the two cells of one row, not machines.
#
# Environment (defaults in brackets): BENCH_PACKETS frames a cost cell
# [200000]; BENCH_SECONDS a rate cell, about [5]; BENCH_THREADS [1 2 4];
# BENCH_CPUS vCPUs of the rate boot [2]; BENCH_PARTS [cost rate];
# BENCH_RESULT the JSON to write [Documentation/results/bench-meter.json].
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${1:-6.12}
packets=${BENCH_PACKETS:-200000}
secs=${BENCH_SECONDS:-5}
threads=${BENCH_THREADS:-1 2 4}
parts=${BENCH_PARTS:-cost rate}
result=${BENCH_RESULT:-$top/Documentation/results/bench-meter.json}
# shellcheck source=tools/bench/lib.sh
. "$top/tools/bench/lib.sh"

guest=$top/tools/bench/meter-bench-guest.sh
cost= rate=
if [[ " $parts " = *" cost "* ]]; then
	cost=$bench/vm-$kver-meter-cost/cost.jsonl
	log "$kver: the meter's cost under QEMU -icount shift=0 (guest time = instructions)"
	ER2BC_ACCEL=tcg bench_vm "$bench/vm-$kver-meter-cost" "$guest $cost cost $packets" \
		-c 1 -x "-icount shift=0" -t 3600
fi
if [[ " $parts " = *" rate "* ]]; then
	rate=$bench/vm-$kver-meter-rate/rate.jsonl
	log "$kver: frames a second with 1 to 4 receiving CPUs (real time)"
	bench_vm "$bench/vm-$kver-meter-rate" "$guest $rate rate $secs $threads" \
		-c "${BENCH_CPUS:-2}" -t 1800
fi

python3 "$top/tools/bench/meter-report.py" --kver "$kver" --commit "$commit" \
	--cost "$cost" --rate "$rate" --json "$bench/bench-meter-$kver.json"
bench_publish meter "$result"
