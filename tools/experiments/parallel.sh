#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How many matrix units (VMs) can run side by side on this machine without
# moving the results: the same cell and seeds at each level, LEVEL units at
# once, then each level's runs beside the first level's (parallel-report
# in matrix-report.py): the sampler's lateness, the wall time a unit took,
# and each contender's shortage.
#
#   parallel.sh [LEVEL...]            default: 1 2
#
# Environment: CELL [dbhpf/published]; CONTENDERS [none,er2bc:loss];
# UNITS, units per level (a multiple of every level, so that each
# level runs at its width throughout) [4]; KVER [6.12]. Stores under
# build/matrix-parallel/LEVEL/, the comparison in
# Documentation/results/matrix/parallel.{json,md}.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
levels=${*:-1 2}
units=${UNITS:-4}
cell=${CELL:-dbhpf/published}
out=$top/build/matrix-parallel
mkdir -p "$out"
for l in $levels; do
	if [ -f "$out/$l/.done" ]; then
		echo "parallel: level $l: kept" >&2
		continue
	fi
	rm -rf "$out/$l"
	mkdir -p "$out/$l"
	start=$(date +%s)
	echo "parallel: level $l: $units units, $l at once" >&2
	CELLS=$cell SEEDS=$(seq -s ' ' 1 "$units") JOBS=$l \
		CONTENDERS=${CONTENDERS:-none,er2bc:loss} STORE=$out/$l/store \
		REPORT=$out/$l/report WORK=$out/$l/work EXP_COMMAND="tools/experiments/parallel.sh $l" \
		"$here/matrix.sh" >"$out/$l/matrix.log" 2>&1 || {
		tail -n 20 "$out/$l/matrix.log" >&2
		exit 1
	}
	echo "$(($(date +%s) - start))" >"$out/$l/wall_s"
	touch "$out/$l/.done"
done
/usr/bin/python3 "$here/matrix-report.py" parallel --input "$out" \
	--out "$top/Documentation/results/matrix"
