#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside a soak guest (soak.sh): the workloads in turn, again and
# again, for SECONDS, while flagcheck watches every vCPU's RFLAGS.
#
#   soak-guest.sh MODULE_DIR SECONDS WORKLOAD...
#
# WORKLOAD is one of
#   estimator  the kselftests at whose steps guests died: er2bc_estimator,
#              er2bc_trust (forged requests), er2bc_probe (floods)
#   matrix     the matrix cells where they died: dbhpf/reorder1, dbhpf/fast
#              (tools/experiments/guest.py, every baseline, compressed 4x)
#   storm      flagcheck --storm: UDP to a closed port and 10 us sleeps on
#              every vCPU, with none of the project's modules loaded
#
# Under $ER2BC_OUT it leaves progress (a line per workload run: seconds
# since boot, name, exit status), workload.log (their output), flags.log
# (the watcher's), and outcome, one word and a reason:
#   clean     ran for SECONDS
#   flags     a vCPU's RFLAGS showed reserved bits (it stays corrupted:
#             the guest stops there)
#   segfault  the kernel logged a user process's segfault or trap
#   error     the soak itself failed (the modules did not install)
# A guest that dies (panic, double fault) writes nothing more: the host
# reads its console.
set -u

top=$(cd "$(dirname "$0")/../../.." && pwd)
mods=$1 secs=$2
shift 2
out=$ER2BC_OUT
end=$((SECONDS + secs))
: >"$out/progress"

for w in "$@"; do
	case $w in
	estimator | matrix)
		"$top/tools/testing/vm/guest-install.sh" "$mods" || { echo "error the modules did not install" >"$out/outcome"; exit 1; }
		break ;;
	storm) ;;
	*) echo "soak-guest: unknown workload '$w'" >&2; exit 2 ;;
	esac
done

workload() {
	local t=$((end - SECONDS)) imp
	case $1 in
	estimator)
		for s in er2bc_estimator er2bc_trust er2bc_probe; do
			(cd "$top/selftests/sch_er2bc" && timeout 900 "./$s.sh") || return 1
		done ;;
	matrix)
		for imp in reorder1 fast; do
			python3 "$top/tools/experiments/guest.py" dbhpf --matrix --impair $imp \
				--scale 4 --duration 120 --estimator-mode loss \
				--out "$out/matrix-$imp.json" || return 1
		done ;;
	storm)
		# its own watcher stops it at the first reserved bit
		"$top/tools/testing/vm/flagcheck" --storm $((t < 60 ? 60 : t)) ;;
	esac
}

"$top/tools/testing/vm/flagcheck" --watch "$((secs + 3600))" >"$out/flags.log" 2>&1 &
watcher=$!

outcome="clean ran ${secs}s"
while [ $SECONDS -lt $end ] && [ "${outcome%% *}" = clean ]; do
	for w in "$@"; do
		[ $SECONDS -lt $end ] || break
		workload "$w" >>"$out/workload.log" 2>&1
		echo "$SECONDS $w $?" >>"$out/progress"
		if ! kill -0 $watcher 2>/dev/null; then
			outcome="flags $(head -n 1 "$out/flags.log")"
			break
		fi
		if grep -m 1 -E 'segfault at|traps: ' <(dmesg) >"$out/segfault" 2>/dev/null; then
			outcome="segfault $(cat "$out/segfault")"
			break
		fi
	done
done
kill $watcher 2>/dev/null
echo "$outcome" >"$out/outcome"
dmesg >"$out/dmesg.txt"
