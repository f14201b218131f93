#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-estimator: the ABW estimator between two gateways, in QEMU.
# Not a test: prints a markdown table beside the paper's figures and writes
# Documentation/results/bench-estimator.{json,md} (and build/bench/).
#
#   estimator-bench.sh [KVER]		(default 6.12)
#
# Two boots (estimator-bench-guest.sh says what each measures):
#   track  real time (TCG): overhead per estimate, false losses under a
#          standing queue, tracking of the paper's ABW staircase
#   cost   -icount shift=0 (guest time counts instructions): the counting
#          hooks' per-packet cost, qdisc and meter, with and without
# Environment: BENCH_RESULT the JSON to write
# [Documentation/results/bench-estimator.json] (the markdown beside it);
# BENCH_PARTS which boots [track cost] (the others' results are kept from
# the last run, in build/bench/estimator-KVER-PART.jsonl).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${1:-6.12}
result=${BENCH_RESULT:-$top/Documentation/results/bench-estimator.json}
# shellcheck source=tools/bench/lib.sh
. "$top/tools/bench/lib.sh"
make -s -C "$top/tools/abwd" >/dev/null

boot() { # NAME TIMEOUT QEMU_ARGS...
	local name=$1 t=$2 out=$bench/vm-$kver-estimator-$1

	shift 2
	bench_vm "$out" "$top/tools/bench/estimator-bench-guest.sh $name $out/$name.jsonl" \
		-c 1 -t "$t" "$@" || exit
	cp "$out/$name.jsonl" "$bench/estimator-$kver-$name.jsonl"
}

parts=${BENCH_PARTS:-track cost}
if [[ " $parts " == *" track "* ]]; then
	log "$kver: overhead, false losses, tracking (real time)"
	boot track 1500
fi
if [[ " $parts " == *" cost "* ]]; then
	log "$kver: the counting's per-packet cost (icount shift=0)"
	ER2BC_ACCEL=tcg boot cost 1200 -x "-icount shift=0"
fi
# the report needs both parts: this run's, the other from an earlier run
for part in track cost; do
	[ -e "$bench/estimator-$kver-$part.jsonl" ] && continue
	log "no $part results from this run or an earlier one: run with BENCH_PARTS=\"track cost\""
	exit 1
done
cat "$bench/estimator-$kver-track.jsonl" "$bench/estimator-$kver-cost.jsonl" \
	>"$bench/estimator-$kver.jsonl"

python3 "$top/tools/bench/estimator-report.py" --kver "$kver" \
	--runtime $(($(date +%s) - start)) --input "$bench/estimator-$kver.jsonl" \
	--json "$bench/bench-estimator-$kver.json" --md "$bench/bench-estimator-$kver.md"
bench_publish estimator "$result"
