# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the VM harness scripts (sourced, not run).

ER2BC_CACHE=${ER2BC_CACHE:-/var/cache/er2bc}
mkdir -p "$ER2BC_CACHE" 2>/dev/null || ER2BC_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/er2bc
mkdir -p "$ER2BC_CACHE"

log() { echo "vm: $*" >&2; }
die() { echo "vm: error: $*" >&2; exit 1; }
