#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-ctrl: how long a new set of class guarantees takes to be in
# force. er2bc recomputes them in the kernel when an ABW estimate arrives
# (generic netlink abw-set, ACKed once the cap and every guarantee are in
# force); the paper's gateway had a user-space controller re-rate htb with
# tc. Not a test: it prints a markdown table and writes
# Documentation/results/bench-ctrl.{json,md} (and build/bench/bench-ctrl-<KVER>.json).
#
#   ctrl-bench.sh [KVER]		(default 6.12)
#
# One boot of the kernel in QEMU (TCG), one vCPU, by default with -icount
# shift=0 (guest time counts executed instructions, 1 ns each: repeatable,
# as make bench-qdisc). ctrl-bench-guest.sh says what is measured, and
# ctrl_bench.c how; ctrl-report.py prints the table.
#
# Environment (defaults in brackets): BENCH_SIZES, each CLASSES:ESTIMATES:
# TC_RUNS [5:300:30 256:300:30 4096:300:20]; BENCH_ICOUNT 1 for -icount
# shift=0 (TCG forced), 0 for real time, KVM if run.sh finds it works [1];
# BENCH_RESULT the JSON to write [Documentation/results/bench-ctrl.json]
# (the markdown goes beside it, .md).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${1:-6.12}
sizes=${BENCH_SIZES:-5:300:30 256:300:30 4096:300:20}
icount=${BENCH_ICOUNT:-1}
result=${BENCH_RESULT:-$top/Documentation/results/bench-ctrl.json}
# shellcheck source=tools/bench/lib.sh
. "$top/tools/bench/lib.sh"
out=$bench/vm-$kver-ctrl

# the client, which the guest runs from the host's file system, with the
# project's netlink library (tools/lib)
client=$bench/ctrl_bench
make -s -C "$top/tools/lib"
# shellcheck disable=SC2046 # pkg-config prints a list of words
${CC:-cc} -O2 -g -Wall -Wextra -Werror -std=gnu11 -I"$top/include/uapi" -I"$top/tools/lib" \
	$(pkg-config --cflags libmnl 2>/dev/null) -o "$client" \
	"$top/tools/bench/ctrl_bench.c" "$top/tools/lib/liber2bc.a" \
	$(pkg-config --libs libmnl 2>/dev/null || echo -lmnl)

qemu=()
clock="real time"
if [ "$icount" = 1 ]; then
	export ER2BC_ACCEL=tcg
	qemu=(-x "-icount shift=0")
	clock="icount shift=0"
fi
log "$kver: control-path latency, classes $(for s in $sizes; do printf '%s ' "${s%%:*}"; done)($clock)"
bench_vm "$out" "$top/tools/bench/ctrl-bench-guest.sh $out/ctrl.jsonl $client $sizes" \
	-c 1 -t 1800 "${qemu[@]}"

python3 "$top/tools/bench/ctrl-report.py" --kver "$kver" --clock "$clock" \
	--runtime $(($(date +%s) - start)) --input "$out/ctrl.jsonl" \
	--json "$bench/bench-ctrl-$kver.json" --md "$bench/bench-ctrl-$kver.md"
bench_publish ctrl "$result"
