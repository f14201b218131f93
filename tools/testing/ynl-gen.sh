#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What the kernel's own generator (tools/net/ynl/ynl-gen-c.py, from
# Debian's linux-source-6.12, extracted once) makes of the YNL specs of the
# project's generic netlink families (er2bc, tcp_rcvmgr): the uapi header
# under include/uapi/linux/, and the module's policies and operations table
# (nl_gen.c, nl_gen.h in the module's directory), as net/handshake's genl.c
# and genl.h are made.
#
#   ynl-gen.sh		write them
#   ynl-gen.sh --check	fail if a committed file differs from its spec's
#   ynl-gen.sh --cli	print the directory of the kernel's YNL tools
#			(tools/net/ynl: cli.py) and of their schemas
#			(Documentation/netlink), extracted if need be
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tools/testing/vm/common.sh"

# spec, uapi header, module directory
specs="er2bc.yaml:er2bc_genl.h:sch_er2bc tcp_rcvmgr.yaml:tcp_rcvmgr.h:tcp_rcvmgr"

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12) || die "linux-source-6.12 is not installed"
gen=$ER2BC_CACHE/ynl/$srcver
if [ ! -e "$gen/tools/net/ynl/ynl-gen-c.py" ]; then
	mkdir -p "$gen"
	tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$gen" --strip-components=1 \
		--wildcards '*/tools/net/ynl/*' '*/Documentation/netlink/*.yaml' ||
		die "cannot extract the YNL generator"
fi

if [ "${1:-}" = --cli ]; then
	echo "$gen"
	exit 0
fi

# the generator names the spec by its path under a kernel tree (a directory
# with MAINTAINERS) and finds the schema two levels above the spec
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/Documentation/netlink/specs"
touch "$tree/MAINTAINERS"
cp "$gen"/Documentation/netlink/genetlink*.yaml "$tree/Documentation/netlink/"
rc=0
# gen SPEC MODE ARG FILE: generate FILE (a path in the tree) from SPEC
gen() {
	local spec=$1 mode=$2 arg=$3 file=$4 out
	out=$tree/$file
	mkdir -p "$(dirname "$out")"
	(cd "$tree" && /usr/bin/python3 "$gen/tools/net/ynl/ynl-gen-c.py" --mode "$mode" \
		"$arg" --spec "$spec" -o "$file" >/dev/null) || die "ynl-gen-c.py failed on $spec ($mode $arg)"
	if [ "$check" = 1 ]; then
		if ! diff -u "$top/$file" "$out"; then
			echo "$file is not what $spec generates: run tools/testing/ynl-gen.sh" >&2
			rc=1
			return
		fi
		echo "ynl: $file matches $spec"
	else
		cp "$out" "$top/$file"
	fi
}
check=0
[ "${1:-}" = --check ] && check=1
for triple in $specs; do
	IFS=: read -r yaml hdr dir <<<"$triple"
	spec=Documentation/netlink/specs/$yaml
	cp "$top/$spec" "$tree/$spec"
	gen "$spec" uapi --header "include/uapi/linux/$hdr"
	gen "$spec" kernel --header "$dir/nl_gen.h"
	gen "$spec" kernel --source "$dir/nl_gen.c"
done
exit $rc
