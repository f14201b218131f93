#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The robustness matrix (issue 21): seed 000's DBHPF and tracking scenarios
# under impairments of the bottleneck, each with every baseline an operator
# would run instead (pfifo; htb and cake driven by the same estimator as
# er2bc; er2bc static and er2bc), then matrix-report.py's table and heat
# map under Documentation/results/.
#
#   matrix.sh [--full]
#
# A cell is a scenario under one impairment (guest.py's IMPAIR): it boots a
# VM of its own and runs, for TCP and UDP, every baseline with the paper's
# estimator rule (mode loss), then er2bc with the delay and hybrid rules.
# Cells already measured (build/matrix/CELL/.done) are kept: a run that
# stops resumes with the next cell. Progress goes to stderr.
#
# Default: time-compressed 4x, DBHPF 120 scenario s (one cycle of its
# staircase), tracking 160; about 10 minutes a cell, 16 cells. --full (or
# FULL=1): the paper's 320 s in real time and every estimator rule for
# every capped baseline; hours.
# Environment: KVER [6.12]; CELLS, cells to run (e.g. "dbhpf/loss1
# tracking/deep") [all]; JOBS, VMs side by side [1]; EXP_COMMAND, the
# command recorded in the results.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
full=${FULL:-0}
[ "${1:-}" = --full ] && full=1
kver=${KVER:-6.12}
jobs=${JOBS:-1}
cmd=${EXP_COMMAND:-tools/experiments/matrix.sh${1:+ $1}}
impairs=$(python3 -c "import sys; sys.path.insert(0, '$here'); import guest; print(' '.join(guest.IMPAIR))")
cells=${CELLS:-$(for s in dbhpf tracking; do for i in $impairs; do echo "$s/$i"; done; done)}
out=$top/build/matrix
mkdir -p "$out"
start=$(date +%s)

mods=$("$top/tools/testing/build-modules.sh" "$kver" 2>/dev/null)

# cell SCENARIO/IMPAIR: its runs in one VM, the JSON files in its directory
cell() {
	local name=$1 scen=${1%/*} imp=${1#*/} dir scale dur rules g rc=0
	dir=$out/${name/\//-}
	[ -f "$dir/.done" ] && { echo "matrix: $name: kept" >&2; return 0; }
	rm -rf "$dir"
	mkdir -p "$dir"
	if [ "$full" = 1 ]; then
		scale=1 dur=320
	else
		scale=4
		dur=$([ "$scen" = dbhpf ] && echo 120 || echo 160)
	fi
	g="python3 $here/guest.py $scen --matrix --impair $imp --scale $scale --duration $dur"
	# the paper's rule for every baseline; the others for er2bc (all
	# capped baselines with --full)
	rules="$g --estimator-mode loss --out $dir/loss.json"
	for r in delay hybrid; do
		rules+=" && $g --estimator-mode $r --modes $([ "$full" = 1 ] && echo htb,cake,static,er2bc || echo er2bc) --out $dir/$r.json"
	done
	echo "matrix: $name: ${dur} s compressed ${scale}x a run" >&2
	"$top/tools/testing/vm/run.sh" -k "$kver" -o "$dir" -t $((full ? 20000 : 2400)) -c 1 -- bash -c \
		"$top/tools/testing/vm/guest-install.sh $mods && $rules" |
		sed -u -n "s|^experiments: |matrix: $name: |p" >&2 || rc=${PIPESTATUS[0]}
	if [ "$rc" != 0 ]; then
		echo "matrix: $name: the VM failed ($rc); see $dir/console.log" >&2
		return "$rc"
	fi
	touch "$dir/.done"
}

rc=0
running=0
for c in $cells; do
	cell "$c" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n || rc=1
		running=$((running - 1))
	fi
done
while [ "$running" -gt 0 ]; do
	wait -n || rc=1
	running=$((running - 1))
done

/usr/bin/python3 "$here/matrix-report.py" --input "$out" --results "$top/Documentation/results" \
	--command "$cmd" --runtime $(($(date +%s) - start))
exit $rc
