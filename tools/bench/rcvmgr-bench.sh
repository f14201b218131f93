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
# from the last run, in build/bench/rcvmgr-KVER-PART.jsonl).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${1:-6.12}
result=${BENCH_RESULT:-$top/Documentation/results/bench-rcvmgr.json}
bench=$top/build/bench
start=$(date +%s)

log() { echo "bench: $*" >&2; }
mkdir -p "$bench"
kdir=$("$top/tools/testing/vm/kernels.sh" kdir "$kver")
mods=$("$top/tools/testing/build-modules.sh" "$kdir" 2>/dev/null)
make -s -C "$top/tools/er2bcctl" >/dev/null

boot() { # NAME TIMEOUT QEMU_ARGS...
	local name=$1 t=$2 out=$bench/vm-$kver-rcvmgr-$1 rc=0
	shift 2
	rm -rf "$out"
	mkdir -p "$out"
	"$top/tools/testing/vm/run.sh" -k "$kver" -o "$out" -t "$t" "$@" -- bash -c \
		"$top/tools/testing/vm/guest-install.sh $mods && $top/tools/bench/rcvmgr-bench-guest.sh $name $out/$name.jsonl" |
		grep --line-buffered '^bench:' >&2 || rc=${PIPESTATUS[0]}
	if [ "$rc" != 0 ]; then
		log "the $name VM failed ($rc); see $out/console.log"
		exit "$rc"
	fi
	cp "$out/$name.jsonl" "$bench/rcvmgr-$kver-$name.jsonl"
}

parts=${BENCH_PARTS:-scenario cost}
if [[ " $parts " == *" scenario "* ]]; then
	log "$kver: scenario 1, time-compressed, off/spring/equal/azuma (real time)"
	boot scenario 900 -c 2
fi
if [[ " $parts " == *" cost "* ]]; then
	log "$kver: the hooks' per-packet cost, 10 and 10000 connections (icount shift=0)"
	ER2BC_ACCEL=tcg boot cost 1800 -c 1 -x "-icount shift=0"
fi
cat "$bench/rcvmgr-$kver-scenario.jsonl" "$bench/rcvmgr-$kver-cost.jsonl" 2>/dev/null \
	>"$bench/rcvmgr-$kver.jsonl" || true

mkdir -p "$(dirname "$result")"
python3 "$top/tools/bench/rcvmgr-report.py" --kver "$kver" \
	--runtime $(($(date +%s) - start)) --input "$bench/rcvmgr-$kver.jsonl" \
	--json "$bench/bench-rcvmgr-$kver.json" --md "$bench/bench-rcvmgr-$kver.md"
cp "$bench/bench-rcvmgr-$kver.json" "$result"
cp "$bench/bench-rcvmgr-$kver.md" "${result%.json}.md"
log "wrote $result and ${result%.json}.md ($(( ($(date +%s) - start) / 60 )) min)"
