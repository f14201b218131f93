#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run experiments: each NAME as tools/experiments/NAME.sh, or `all` for
# every scenario listed in tools/experiments/scenarios.
#
#   run.sh [--full] NAME...|all
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
args=()
if [ "${1:-}" = --full ]; then
	args=(--full)
	shift
fi
[ $# -gt 0 ] || { echo "usage: run.sh [--full] NAME...|all" >&2; exit 2; }
names=("$@")
[ "$*" = all ] && mapfile -t names < <(grep -v '^[[:space:]]*\(#\|$\)' "$here/scenarios")
for n in "${names[@]}"; do
	"$here/$n.sh" "${args[@]}"
done
