#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make soak: boot guests one after another, each running the workloads at
# whose steps guests died (soak-guest.sh) for a while, until the
# configuration has HOURS of guest time; count the guests that died, and
# those whose vCPU flags were corrupted without dying, per guest-hour.
#
#   soak.sh [-k KVER] [-h HOURS] [-g MINUTES] [-w "WORKLOAD..."]
#
#   -k  kernel (default 6.12)
#   -h  guest-hours this configuration should reach, counting its earlier
#       runs (default 1)
#   -g  minutes per guest (default 20): a guest whose flags were
#       corrupted stays corrupted, so each guest is a fresh start
#   -w  workloads (soak-guest.sh; default "estimator matrix")
#
# The configuration is the kernel, the workloads, the QEMU binary and its
# -cpu model (run.sh: ER2BC_QEMU, ER2BC_CPU; the default is the one make
# check uses). Each guest appends a line to
# Documentation/results/soak/CONFIG.jsonl (its console and logs in
# build/soak/CONFIG/), so a soak cut off resumes where it stopped, on this
# machine or another; soak-report.py prints every
# configuration's rates, with exact 95 % Poisson intervals. Two soaks of
# different configurations can run side by side: a TCG guest takes a CPU.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
. "$here/common.sh"

kver=6.12 hours=1 minutes=20 workloads="estimator matrix"
while getopts "k:h:g:w:" o; do
	case $o in
	k) kver=$OPTARG ;;
	h) hours=$OPTARG ;;
	g) minutes=$OPTARG ;;
	w) workloads=$OPTARG ;;
	*) exit 2 ;;
	esac
done
for w in $workloads; do
	case $w in estimator | matrix | storm) ;; *) die "unknown workload '$w' (estimator, matrix or storm)" ;; esac
done
[[ "$hours" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "-h: '$hours' is not a number of hours"
[[ "$minutes" =~ ^[0-9]+$ ]] && [ "$minutes" -gt 0 ] || die "-g: '$minutes' is not a whole number of minutes"

qemu=${ER2BC_QEMU:-qemu-system-x86_64}
qver=$("$qemu" --version | sed -n '1s/.*version \([^ ]*\).*/\1/p')
# "default" is run.sh's: max,-cx16 under TCG; each run records the model
# and the accelerator it had, and soak-report.py groups by them too
cpu=${ER2BC_CPU:-default}
name="$kver-qemu$qver-cpu_${cpu//[^A-Za-z0-9_-]/_}-${workloads// /+}"
# the guests' logs stay in build/; the line per guest is kept with the
# results, so that the hours add up across machines and sessions
dir=$top/build/soak/$name
store=$top/Documentation/results/soak
mkdir -p "$dir" "$store"
runs=$store/$name.jsonl
touch "$runs"
# one soak per configuration at a time: two would number their guests alike
exec 9>"$dir/.lock"
flock -n 9 || die "another soak of $name is running (lock $dir/.lock)"
commit=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)

mods=$("$top/tools/testing/build-modules.sh" "$kver" 2>/dev/null) || die "the modules did not build for $kver"
make -s -C "$top" tools >/dev/null || die "the tools did not build"

# the hours as soak-report.py counts them: a guest whose soak failed
# (error) ran none of the workloads
done_hours() {
	python3 -c '
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(sum(r["seconds"] for r in runs if r["outcome"] != "error") / 3600)' "$runs"
}

log "soak $name: to $hours guest-hours, $minutes min a guest; results in $runs"
while awk -v a="$(done_hours)" -v b="$hours" 'BEGIN { exit !(a < b) }'; do
	n=$(wc -l <"$runs")
	g=$dir/guest-$(printf '%04d' "$n")
	rm -rf "$g"
	mkdir -p "$g"
	start=$(date +%s.%N)
	rc=0
	"$here/run.sh" -k "$kver" -o "$g" -t $((minutes * 60 + 1800)) -- \
		"$here/soak-guest.sh" "$mods" $((minutes * 60)) $workloads >"$g/run.log" 2>&1 || rc=$?
	secs=$(echo "$(date +%s.%N) - $start" | bc)
	# what killed it, as make check reports it (common.sh): with nothing,
	# a guest that did not finish ran past its time limit
	fault=$(fault_lines <"$g/console.log" 2>/dev/null | paste -sd '|' -)
	python3 - "$g" "$secs" "$rc" "$name" "$commit" "$fault" >>"$runs" <<'EOF'
import json, os, sys
g, secs, rc, name, commit, fault = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:]
def read(f):
    try:
        return open(os.path.join(g, f), errors="replace").read()
    except OSError:
        return ""
outcome = read("outcome").strip()
if rc == 125 and not outcome:
    if fault:
        kind, why = "died", fault.replace("|", " | ")
    else:
        kind, why = "timeout", " | ".join(read("console.log").splitlines()[-5:])
elif outcome:
    kind, _, why = outcome.partition(" ")
else:
    kind, why = "error", f"run.sh exit {rc}, no outcome"
print(json.dumps({"config": name, "guest": os.path.basename(g), "seconds": round(secs, 1),
                  "outcome": kind, "why": why[:2000], "cpu": read("cpu").strip(),
                  "accel": read("accel").strip(), "commit": commit}))
EOF
	log "soak $name: $(basename "$g"): $(tail -n 1 "$runs" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["outcome"], round(r["seconds"]), "s:", r["why"][:160])')"
done
python3 "$here/soak-report.py" "$store"
