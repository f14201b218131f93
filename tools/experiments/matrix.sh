#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The robustness matrix: seed 000's DBHPF and tracking scenarios under
# impairments of the bottleneck, each with every contender an operator
# could pick instead (guest.py's CONTENDERS: pfifo; htb, cake and er2bc
# static driven by the estimator's default rule; er2bc with each rule;
# each as shipped, W from the qdisc's cap: +w-ini-qdisc),
# repeated with different seeds; each run stored as it comes
# (matrix-report.py ingest), then the report of the store's runs of this
# code: medians, 95 % intervals, wins and ties.
#
#   matrix.sh [--realtime]
#   matrix.sh --sources	the hash of the sources, as the store keys them
#
# A unit is a cell (a scenario under one of guest.py's IMPAIR) and a seed:
# one VM runs every contender, TCP and UDP, in the seed's own order. Its
# runs go to the store (Documentation/results/matrix/runs/SOURCES/KVER/)
# when the VM ends; a unit whose runs the store has for these sources (the
# hash of what decides a run: the modules, the estimator, the testbed's
# guest.py, cross.py, owd.py and nftcount.py) and kernel is skipped,
# so a stopped matrix resumes, and more seeds add runs to a store:
# SEEDS="6 7 8" make matrix. Progress goes to stderr.
#
# Default: time-compressed 4x, DBHPF 120 scenario s (one cycle of its
# staircase), tracking 160; about 9 minutes a unit. --realtime (or
# REALTIME=1): T_c = 1 s as shipped, the same scenario lengths in real
# time, the cells where compression matters (DBHPF loss1, loss3, deep,
# elastic) and the default rule against pfifo, cake and static: about 17
# minutes a unit.
# Environment: KVER [6.12]; CELLS, cells to run (e.g. "dbhpf/loss1
# tracking/deep") [all]; SEEDS [1 2 3 4 5]; CONTENDERS (guest.py's
# --contenders) [all]; PROTOS, the flows' protocols [tcp udp] (a unit
# counts as stored for the protocols asked for); JOBS, VMs side by side
# [2 with two CPUs or more, measured by parallel.sh; else 1]; STORE [the
# above];
# REPORT, where the report goes [Documentation/results/matrix]; WORK, the
# VMs' directories [build/matrix];
# DURATION, scenario seconds a run (a quick try; rows of another length
# are apart in the report) [120 DBHPF, 160 tracking];
# EXP_COMMAND, the command recorded in the report.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
realtime=${REALTIME:-0}
[ "${1:-}" = --realtime ] && realtime=1
kver=${KVER:-6.12}
# two units at a time where there are two CPUs (parallel.sh: they hold)
jobs=${JOBS:-$(($(nproc) >= 2 ? 2 : 1))}
seeds=${SEEDS:-1 2 3 4 5}
protos=${PROTOS:-tcp udp}
for p in $protos; do
	case $p in
	tcp | udp) ;;
	*) echo "matrix: PROTOS: \"$p\" is not a protocol: tcp, udp or both" >&2; exit 2 ;;
	esac
done
protos=$(echo $protos)	# (one space between: guest.py's --protos a,b)
store=${STORE:-$top/Documentation/results/matrix/runs}
report=${REPORT:-$top/Documentation/results/matrix}
cmd=${EXP_COMMAND:-tools/experiments/matrix.sh${1:+ $1}}
py() { /usr/bin/python3 -c "import sys; sys.path.insert(0, '$here'); import guest; $1"; }
if [ "$realtime" = 1 ]; then
	scale=1
	cells=${CELLS:-dbhpf/loss1 dbhpf/loss3 dbhpf/deep dbhpf/elastic}
	# (as shipped: W from the cap, guest.py's W_INI_QDISC)
	ship=+w-ini-qdisc
	contenders=${CONTENDERS:-none,cake:loss+queue$ship,static:loss+queue$ship,er2bc:loss+queue$ship}
else
	scale=4
	cells=${CELLS:-$(for s in dbhpf tracking; do
		for i in $(py "print(' '.join(guest.IMPAIR))"); do echo "$s/$i"; done; done)}
	contenders=${CONTENDERS:-$(py "print(','.join(guest.CONTENDERS))")}
fi
out=${WORK:-$top/build/matrix}/${scale}x
mkdir -p "$out" "$store"
start=$(date +%s)

# what decides a run, hashed from the working tree (a change not yet
# committed has sources of its own); the commit, -dirty if they differ
# from it
src_paths=(sch_er2bc include tools/abwd tools/experiments/guest.py tools/experiments/cross.py
	tools/experiments/owd.py tools/experiments/nftcount.py)
sources=$(cd "$top" && git ls-files -co --exclude-standard -- "${src_paths[@]}" | sort |
	xargs sha256sum | sha256sum | cut -c1-12)
# (matrix.sh --sources: the hash alone, for matrix-report.py plan)
[ "${1:-}" = --sources ] && { echo "$sources"; exit 0; }
commit=$(cd "$top" && git rev-parse --short=12 HEAD)
[ -z "$(cd "$top" && git status --porcelain -- "${src_paths[@]}")" ] || commit+=-dirty
echo "matrix: commit $commit, sources $sources; ${scale}x; seeds $seeds" >&2

mods=$("$top/tools/testing/build-modules.sh" "$kver" 2>/dev/null)
ncont=$(echo "$contenders" | tr ',' '\n' | wc -l)

unit_dur() { echo "${DURATION:-$([ "$1" = dbhpf ] && echo 120 || echo 160)}"; }
# stored SCEN IMP SEED: whether the store has every run the unit would make
# (PROTO-CONTENDER-sSEED.json, a lost one too: it was tried twice) for
# these sources on this kernel; a perturbed run (.perturbed.json,
# matrix-report.py's perturbed()) is not, and its unit runs again
stored() {
	local d p c
	d=$store/$sources/$kver/${scale}x-$(unit_dur "$1")s/$1-$2
	for p in $protos; do
		for c in ${contenders//,/ }; do
			[ -f "$d/$p-${c//:/-}-s$3.json" ] || return 1
		done
	done
}

# unit SCENARIO/IMPAIR SEED: its runs in one VM, then into the store
unit() {
	local name=$1 seed=$2 scen=${1%/*} imp=${1#*/} dir dur rc=0
	dir=$out/${name/\//-}-s$seed
	if stored "$scen" "$imp" "$seed"; then
		echo "matrix: $name seed $seed: stored" >&2
		return 0
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	dur=$(unit_dur "$scen")
	echo "matrix: $name seed $seed: $ncont contenders, ${dur} s at ${scale}x a run" >&2
	"$top/tools/testing/vm/run.sh" -k "$kver" -o "$dir" -t $((scale == 1 ? 7200 : 2400)) -c 1 -- \
		bash -c "$top/tools/testing/vm/guest-install.sh $mods && python3 $here/guest.py $scen \
--matrix --impair $imp --scale $scale --duration $dur --seed $seed --contenders $contenders \
--protos ${protos// /,} \
--out $dir/runs.json" |
		sed -u -n "s|^experiments: |matrix: $name seed $seed: |p" >&2 || rc=${PIPESTATUS[0]}
	# the runs done, whether the VM finished or not (a unit cut short
	# runs again, keeping what the store has)
	/usr/bin/python3 "$here/matrix-report.py" ingest --input "$dir" --store "$store" \
		--commit "$commit" --sources "$sources" --kver "$kver" >&2
	if [ "$rc" != 0 ]; then
		echo "matrix: $name seed $seed: the VM failed ($rc); see $dir/console.log" >&2
		return "$rc"
	fi
	touch "$dir/.done"
}

rc=0
running=0
# seed by seed, so that a matrix cut short has every cell at the same n
for s in $seeds; do
	for c in $cells; do
		unit "$c" "$s" &
		running=$((running + 1))
		if [ "$running" -ge "$jobs" ]; then
			wait -n || rc=1
			running=$((running - 1))
		fi
	done
done
while [ "$running" -gt 0 ]; do
	wait -n || rc=1
	running=$((running - 1))
done

echo "matrix: $(($(date +%s) - start)) s" >&2
/usr/bin/python3 "$here/matrix-report.py" report --store "$store" --sources "$sources" \
	--out "$report" --command "$cmd"
exit $rc
