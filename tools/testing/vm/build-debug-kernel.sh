#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug kernel from Debian's linux-source-6.12 with debug.config,
# cached outside the checkout. The cache key is the source package version
# plus this script and the config fragment, so only a fresh machine (or a
# change of either) pays for the build. Prints the build directory.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

tarball=$(ls /usr/src/linux-source-6.12.tar.xz 2>/dev/null) ||
	die "linux-source-6.12 is not installed (run tools/testing/setup-deps.sh)"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
key=$(cat "$here/debug.config" "$0" | sha256sum | cut -c1-12)
dir=$ER2BC_CACHE/debug-kernel/$srcver-$key

if [ -f "$dir/.done" ]; then
	echo "$dir"
	exit 0
fi

log "building the debug kernel in $dir (linux-source $srcver); this takes about 20 minutes once"
start=$(date +%s)
rm -rf "$dir"
mkdir -p "$dir"
tar -xJf "$tarball" -C "$dir" --strip-components=1
cd "$dir"
make -s tinyconfig >/dev/null
scripts/kconfig/merge_config.sh -m .config "$here/debug.config" >/dev/null
make -s olddefconfig >/dev/null

# Every option of the fragment must have survived olddefconfig.
bad=0
while IFS= read -r line; do
	case "$line" in CONFIG_*) ;; *) continue ;; esac
	opt=${line%%=*} val=${line#*=}
	if [ "$val" = n ]; then
		grep -q "^$opt=" .config && { echo "debug kernel: $opt should be off" >&2; bad=1; }
	else
		grep -qx "$line" .config || { echo "debug kernel: $line was dropped" >&2; bad=1; }
	fi
done < "$here/debug.config"
[ $bad -eq 0 ] || die "debug kernel config is incomplete (see above)"

# vmlinux to boot, modules for Module.symvers (external modules build against it)
make -s -j"$(nproc)" vmlinux modules >build.log 2>&1 || { tail -40 build.log >&2; die "debug kernel build failed"; }
echo "$(( $(date +%s) - start ))" > .build-seconds
touch .done
log "debug kernel built in $(cat .build-seconds)s"
echo "$dir"
