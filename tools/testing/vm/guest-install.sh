#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest: install the project's modules (as indexed on the
# host by build-modules.sh) and tc plugin into the guest's overlay, so that
# modprobe, and tc's on-demand loading, find them.
#
#   guest-install.sh MODULE_DIR
set -eu

top=$(cd "$(dirname "$0")/../../.." && pwd)
krel=$(uname -r)
if [ ! -d "$1/modroot/lib/modules/$krel" ]; then
	echo "guest-install: the modules in $1 are for $(ls "$1/modroot/lib/modules" 2>/dev/null | xargs), this kernel is $krel" >&2
	exit 1
fi
mkdir -p "/lib/modules/$krel"
cp -r "$1/modroot/lib/modules/$krel/." "/lib/modules/$krel/"
install -m 0644 "$top/tools/tc/q_er2bc.so" /usr/lib/x86_64-linux-gnu/tc/q_er2bc.so
