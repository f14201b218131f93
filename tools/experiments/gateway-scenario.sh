#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One of seed 000's scenarios on its testbed (guest.py), in QEMU, then its
# table and plots (report.py) under Documentation/results/.
#
#   gateway-scenario.sh dbhpf|tracking [--full]
#
# Without --full (or FULL=1), time-compressed 4x: the ABW schedule, the
# estimator's T_c (250 ms), the sampling (every 250 ms) and the averaging
# windows (TCP 2.5 s, UDP 250 ms) all divided by 4, C and M unchanged; DBHPF
# runs 240 scenario seconds (two cycles of its staircase: 60 s a run),
# tracking 320 (80 s a run). With --full: the paper's 320 s in real time.
# Environment: KVER [6.12]; EXP_COMMAND, the command recorded in the results
# [this one's command line].
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
name=${1:?usage: gateway-scenario.sh dbhpf|tracking [--full]}
full=${FULL:-0}
[ "${2:-}" = --full ] && full=1
kver=${KVER:-6.12}
cmd=${EXP_COMMAND:-tools/experiments/$name.sh${2:+ $2}}
case $name in
dbhpf) runs=6 dur=240 ;;
tracking) runs=2 dur=320 ;;
*) echo "unknown scenario $name" >&2; exit 2 ;;
esac
scale=4
if [ "$full" = 1 ]; then
	scale=1 dur=320
fi
out=$top/build/experiments/$name
start=$(date +%s)

mods=$("$top/tools/testing/build-modules.sh" "$kver" 2>/dev/null)
rm -rf "$out"
mkdir -p "$out"
limit=$((runs * (dur / scale + 40) + 240))
echo "experiments: $name on $kver, $runs runs of ${dur} s compressed ${scale}x (time limit ${limit} s)" >&2
rc=0
"$top/tools/testing/vm/run.sh" -k "$kver" -o "$out" -t "$limit" -c 1 -- bash -c \
	"$top/tools/testing/vm/guest-install.sh $mods && python3 $here/guest.py $name --scale $scale --duration $dur --out $out/$name.json" |
	grep --line-buffered '^experiments:' >&2 || rc=${PIPESTATUS[0]}
if [ "$rc" != 0 ]; then
	echo "experiments: the VM failed ($rc); see $out/console.log" >&2
	exit "$rc"
fi
/usr/bin/python3 "$here/report.py" --input "$out/$name.json" \
	--results "$top/Documentation/results" --command "$cmd" \
	--runtime $(($(date +%s) - start))
