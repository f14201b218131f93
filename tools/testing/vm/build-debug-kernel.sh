#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build one of the project's kernels from Debian's linux-source-6.12,
# cached outside the checkout, and print its build directory:
#
#   build-debug-kernel.sh [debug|kcsan]
#
# debug (the default): debug.config, KASAN, lockdep, kmemleak, in make
# check. kcsan: debug.config, then kcsan.config over it (KCSAN instead of
# KASAN and kmemleak), in make check-kcsan. The cache key is the source
# package version plus this script and the fragments, so only a fresh
# machine (or a change of either) pays for the build.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

tarball=$(ls /usr/src/linux-source-6.12.tar.xz 2>/dev/null) ||
	die "linux-source-6.12 is not installed (run tools/testing/setup-deps.sh)"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
flavour=${1:-debug}
case $flavour in
debug)	fragments=("$here/debug.config") ;;
kcsan)	fragments=("$here/debug.config" "$here/kcsan.config") ;;
*)	die "no kernel '$flavour' to build (debug or kcsan)" ;;
esac
key=$(cat "${fragments[@]}" "$0" | sha256sum | cut -c1-12)
dir=$ER2BC_CACHE/$flavour-kernel/$srcver-$key

if [ -f "$dir/.done" ]; then
	echo "$dir"
	exit 0
fi

log "building the $flavour kernel in $dir (linux-source $srcver); this takes about 20 minutes once"
start=$(date +%s)
rm -rf "$dir"
mkdir -p "$dir"
tar -xJf "$tarball" -C "$dir" --strip-components=1
cd "$dir"
make -s tinyconfig >/dev/null
scripts/kconfig/merge_config.sh -m .config "${fragments[@]}" >/dev/null
make -s olddefconfig >/dev/null

# Every option of the fragments must have survived olddefconfig, as the
# last fragment to name it sets it.
bad=0
declare -A want=()
while IFS= read -r line; do
	case "$line" in CONFIG_*) want[${line%%=*}]=${line#*=} ;; esac
done < <(cat "${fragments[@]}")
for opt in "${!want[@]}"; do
	if [ "${want[$opt]}" = n ]; then
		grep -q "^$opt=" .config && { echo "$flavour kernel: $opt should be off" >&2; bad=1; }
	else
		grep -qx "$opt=${want[$opt]}" .config ||
			{ echo "$flavour kernel: $opt=${want[$opt]} was dropped" >&2; bad=1; }
	fi
done
[ $bad -eq 0 ] || die "$flavour kernel config is incomplete (see above)"

# vmlinux to boot, modules for Module.symvers (external modules build against it)
make -s -j"$(nproc)" vmlinux modules >build.log 2>&1 || { tail -40 build.log >&2; die "$flavour kernel build failed"; }
echo "$(( $(date +%s) - start ))" > .build-seconds
touch .done
log "$flavour kernel built in $(cat .build-seconds)s"
echo "$dir"
