#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build the modules for KVER, boot it and run the gateway demo.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
kver=${1:-6.12}

mods=$("$top/tools/testing/build-modules.sh" "$kver" 2>/dev/null)
exec "$here/run.sh" -k "$kver" -o "$top/build/demo" -t 600 -- bash -c \
	"$here/guest-install.sh $mods && $top/tools/demo/gateway-demo.sh"
