#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: seed 000's DBHPF scenario, time-compressed, on KVER in QEMU
# (tools/experiments/dbhpf.sh): TCP and UDP, no control, the existing method
# and eR2BC; prints Table 5 beside the paper's and writes it with its plots
# to Documentation/results/.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
kver=${1:-6.12}
cmd="make demo"
[ "$kver" = 6.12 ] || cmd+=" KVER=$kver"
KVER=$kver EXP_COMMAND=$cmd exec "$top/tools/experiments/dbhpf.sh"
