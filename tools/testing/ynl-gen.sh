#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The uapi headers of the project's generic netlink families (er2bc,
# tcp_rcvmgr), generated from their YNL specs by the kernel's own generator
# (tools/net/ynl/ynl-gen-c.py, from Debian's linux-source-6.12, extracted
# once).
#
#   ynl-gen.sh		write the headers under include/uapi/linux/
#   ynl-gen.sh --check	fail if a committed header differs from its spec's
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tools/testing/vm/common.sh"

# spec and the header generated from it
specs="er2bc.yaml:er2bc_genl.h tcp_rcvmgr.yaml:tcp_rcvmgr.h"

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12) || die "linux-source-6.12 is not installed"
gen=$ER2BC_CACHE/ynl/$srcver
if [ ! -e "$gen/tools/net/ynl/ynl-gen-c.py" ]; then
	mkdir -p "$gen"
	tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$gen" --strip-components=1 \
		--wildcards '*/tools/net/ynl/*' '*/Documentation/netlink/*.yaml' ||
		die "cannot extract the YNL generator"
fi

# the generator names the spec by its path under a kernel tree (a directory
# with MAINTAINERS) and finds the schema two levels above the spec
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/Documentation/netlink/specs"
touch "$tree/MAINTAINERS"
cp "$gen"/Documentation/netlink/genetlink*.yaml "$tree/Documentation/netlink/"
rc=0
for pair in $specs; do
	spec=Documentation/netlink/specs/${pair%%:*}
	hdr=include/uapi/linux/${pair#*:}
	cp "$top/$spec" "$tree/$spec"
	/usr/bin/python3 "$gen/tools/net/ynl/ynl-gen-c.py" --mode uapi --header \
		--spec "$tree/$spec" -o "$tree/out.h" >/dev/null
	if [ "${1:-}" = --check ]; then
		if ! diff -u "$top/$hdr" "$tree/out.h"; then
			echo "$hdr is not what $spec generates: run tools/testing/ynl-gen.sh" >&2
			rc=1
			continue
		fi
		echo "ynl: $hdr matches $spec"
	else
		cp "$tree/out.h" "$top/$hdr"
	fi
done
exit $rc
