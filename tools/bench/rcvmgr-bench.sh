#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-rcvmgr: tcp_rcvmgr on real connections through a gateway, in
# QEMU. Not a test: prints a markdown table of the policies side by side and
# the hooks' cost, and writes Documentation/results/bench-rcvmgr.{json,md}
# (and build/bench/).
#
#   rcvmgr-bench.sh [KVER]		(default 6.12)
#
# Two boots (rcvmgr-bench-guest.sh says what each measures):
#   scenario  real time (TCG or KVM): the thesis' scenario 1, time-compressed,
#             under off, spring, equal and azuma
#   cost      -icount shift=0, one vCPU (guest time counts instructions):
#             the hooks' per-packet cost with 10 and 10000 connections
# Environment: BENCH_RESULT the JSON to write
# [Documentation/results/bench-rcvmgr.json] (the markdown beside it);
# BENCH_PARTS which boots [scenario cost] (the others' results are kept
# from the last run, in build/bench/rcvmgr-KVER-PART.jsonl); BENCH_COMMAND
# the command recorded; BENCH_PLOTS a prefix for the CDF plots; SHORTS, GAP, WARMUP, INTERVAL, POLICIES, AZUMA_OPTS
# the scenario's shape (rcvmgr-bench-guest.sh; tools/experiments/accesslink.sh).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${1:-6.12}
result=${BENCH_RESULT:-$top/Documentation/results/bench-rcvmgr.json}
# shellcheck source=tools/bench/lib.sh
. "$top/tools/bench/lib.sh"
make -s -C "$top/tools/er2bcctl" >/dev/null

# the scenario's shape, handed to the guest (values without spaces)
shape=
for v in SHORTS GAP WARMUP INTERVAL POLICIES AZUMA_OPTS; do
	[ -n "${!v:-}" ] && shape+="$v=${!v} "
done

boot() { # NAME TIMEOUT QEMU_ARGS...
	local name=$1 t=$2 out=$bench/vm-$kver-rcvmgr-$1

	shift 2
	bench_vm "$out" "$shape$top/tools/bench/rcvmgr-bench-guest.sh $name $out/$name.jsonl" \
		-t "$t" "$@" || exit
	cp "$out/$name.jsonl" "$bench/rcvmgr-$kver-$name.jsonl"
}

parts=${BENCH_PARTS:-scenario cost}
if [[ " $parts " == *" scenario "* ]]; then
	shorts=${SHORTS:-20} policies=${POLICIES:-off,spring,equal,azuma}
	log "$kver: scenario 1, $shorts short transfers, $policies (real time)"
	# per policy: the warm-up, the arrivals (their sum is about SHORTS *
	# GAP), the last transfers and the bulk flows' end
	t=$(python3 -c "import sys; s, g, w, p = sys.argv[1:]; print(int(len(p.split(',')) * (float(w) + int(s) * float(g) * 1.5 + 60) + 300))" \
		"$shorts" "${GAP:-1}" "${WARMUP:-10}" "$policies")
	boot scenario "$t" -c 2
fi
if [[ " $parts " == *" cost "* ]]; then
	log "$kver: the hooks' per-packet cost beside conntrack's, 10 to 100000 connections, and a SYN flood's (icount shift=0)"
	ER2BC_ACCEL=tcg boot cost 5400 -c 1 -x "-icount shift=0"
fi
: >"$bench/rcvmgr-$kver.jsonl"
for part in scenario cost; do
	# BENCH_KEEP_OTHERS=0: only the parts of this run
	[ "${BENCH_KEEP_OTHERS:-1}" = 1 ] || [[ " $parts " == *" $part "* ]] || continue
	cat "$bench/rcvmgr-$kver-$part.jsonl" >>"$bench/rcvmgr-$kver.jsonl" 2>/dev/null || true
done

# Debian's python3, whose matplotlib setup-deps.sh installs
/usr/bin/python3 "$top/tools/bench/rcvmgr-report.py" --kver "$kver" \
	--command "${BENCH_COMMAND:-make bench-rcvmgr KVER=$kver}" \
	${BENCH_PLOTS:+--plots "$BENCH_PLOTS"} \
	--runtime $(($(date +%s) - start)) --input "$bench/rcvmgr-$kver.jsonl" \
	--json "$bench/bench-rcvmgr-$kver.json" --md "$bench/bench-rcvmgr-$kver.md"
bench_publish rcvmgr "$result"
