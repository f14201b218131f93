#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-qdisc: per-packet cost of er2bc beside pfifo (the floor), tbf
# and htb, measured in the same boot of each kernel with QEMU's -icount, so
# that the figures count executed instructions and repeat from run to run
# (wall-clock packet rates under TCG vary by 8-31 %). Not a test: it prints
# a table and writes build/bench/qdisc-cost-<kernel>.json.
#
#   qdisc-cost.sh [KVER...]
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(6.1 6.12)
mkdir -p "$top/build/bench"

for kver in "${kernels[@]}"; do
	mods=$("$top/tools/testing/build-modules.sh" "$kver" 2>/dev/null)
	vmout=$top/build/bench/vm-$kver
	json=$top/build/bench/qdisc-cost-$kver.json
	rm -f "$json" "$vmout/qdisc-cost.json"
	# the guest writes into the shared output directory
	ER2BC_ACCEL=tcg "$top/tools/testing/vm/run.sh" -k "$kver" -c 1 -x "-icount shift=0" \
		-o "$vmout" -t 1200 -- bash -c \
		"$top/tools/testing/vm/guest-install.sh $mods && $top/tools/bench/qdisc-cost-guest.sh $vmout/qdisc-cost.json 200000" \
		>/dev/null
	cp "$vmout/qdisc-cost.json" "$json"
	python3 - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r['qdisc']: r for r in d['rows']}
floor = rows['pfifo']['insn_per_pkt']
htb_extra = rows['htb']['insn_per_pkt'] - floor
print(f"\n{d['kernel']}: {d['packets']} packets of {d['frame_bytes']} bytes, pktgen queue_xmit on dummy")
print(f"({d['clock']})\n")
print("| qdisc | instructions/packet | over pfifo | extra vs htb's extra |")
print("|---|---:|---:|---:|")
for name, r in rows.items():
    extra = r['insn_per_pkt'] - floor
    ratio = f"{extra / htb_extra:.2f}" if htb_extra > 0 else "-"
    print(f"| {name} | {r['insn_per_pkt']} | {extra:+d} | {ratio} |")
PY
done
