#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Seed 004's scenario 1 (the thesis' Fig. 8): a 4 Mbit/s access link with a
# 128 KB router buffer, three bulk downloads at 35/45/55 ms one way and short
# 30 KB downloads from a 10 ms sender, through a gateway running tcp_rcvmgr
# under plain TCP (off), spring, equal and azuma. The testbed and the
# measurement are the tcp_rcvmgr benchmark's scenario part
# (tools/bench/rcvmgr-bench-guest.sh).
#
#   accesslink.sh [--full]
#
# Compressed (default, about 5 minutes): 20 short downloads at mean gaps of
# 1 s from 10 s on, tcp_rcvmgr's interval 1 s. --full (or FULL=1): the
# thesis' 100 at mean gaps of 5 s from 100 s on, interval 5 s (about an hour
# under TCG). Writes Documentation/results/rcvmgr-scenario1.{json,md} and
# the CDFs rcvmgr-scenario1-{connect,transfer}.png.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
full=${FULL:-0}
[ "${1:-}" = --full ] && full=1
kver=${KVER:-6.12}
if [ "$full" = 1 ]; then
	export SHORTS=100 GAP=5 WARMUP=100 INTERVAL=5000
else
	export SHORTS=20 GAP=1 WARMUP=10 INTERVAL=1000
fi
res=$top/Documentation/results
BENCH_PARTS=scenario BENCH_KEEP_OTHERS=0 BENCH_RESULT=$res/rcvmgr-scenario1.json \
	BENCH_PLOTS=$res/rcvmgr-scenario1 \
	BENCH_COMMAND=${EXP_COMMAND:-tools/experiments/accesslink.sh${1:+ $1}} \
	exec "$top/tools/bench/rcvmgr-bench.sh" "$kver"
