#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build one of the project's kernels from the newest kernel source Debian
# offers (trixie-backports' linux-source), cached outside the checkout,
# and print its build directory:
#
#   build-debug-kernel.sh [debug|kcsan]
#   build-debug-kernel.sh --source	the source it builds from: VERSION TARBALL
#
# debug (the default): debug.config, KASAN, lockdep, kmemleak, in make
# check. kcsan: debug.config, then kcsan.config over it (KCSAN instead of
# KASAN and kmemleak), in make check-kcsan. The cache key is the source
# package version plus this script and the fragments, so only a fresh
# machine (or a change of either, or a newer source) pays for the build.
#
# The newest source, as the trixie-bpo guests have the newest kernel
# (mkroot.sh): the sanitizers and KUnit run on the kernel the next
# Debian gateways move to, while Debian's own 6.1 and 6.12 run every
# suite as they ship. Which version that is gets asked of the archive
# once a week (ER2BC_ROOT_WEEK, common.sh: one run's calls all name the
# same source); without the archive, the newest source fetched before.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

# (ER2BC_DEBIAN_MIRROR: another mirror of Debian's archive)
mirror=${ER2BC_DEBIAN_MIRROR:-http://deb.debian.org/debian}
src=$ER2BC_CACHE/kernel-source
mkdir -p "$src"

# newest_source: "VERSION TARBALL" of the newest linux-source in
# trixie-backports, fetched if need be (apt with a state of its own: the
# host's sources, status and pins stay out of it), once a week: the
# week's file names it (its build may outlive the tarball). Without the
# archive, the newest tarball fetched before, said so, and asked again at
# the next call. Under the lock on $src. (Called in $(...), where set -e
# does not reach: each step is checked.)
newest_source() {
	local apt=$src/apt week=$src/week-$ER2BC_ROOT_WEEK pkg ver deb
	if [ -s "$week" ]; then
		cat "$week"
		return
	fi
	mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/preferences.d" || return 1
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie-backports main" \
		>"$apt/sources.list" || return 1
	local opts=(-o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts=-
		-o Dir::Etc::preferences=/dev/null -o Dir::Etc::preferencesparts="$apt/preferences.d"
		-o Dir::State::status=/dev/null -o Dir::State::Lists="$apt/lists"
		-o Dir::Cache="$apt" -o Dir::Cache::archives="$apt/archives"
		-o APT::Architecture=amd64 -o APT::Sandbox::User=root -qq)
	# (--error-on=any: an archive that cannot be reached is an error, not
	# the lists of the last time it could)
	if apt-get "${opts[@]}" --error-on=any update >"$apt/update.log" 2>&1 &&
		# (the meta-package names the newest: linux-source-X.Y (= VERSION))
		pkg=$(apt-cache "${opts[@]}" depends linux-source 2>/dev/null |
			sed -n 's/^ *Depends: \(linux-source-[0-9.]*\)$/\1/p' | head -n 1) &&
		[ -n "$pkg" ] &&
		ver=$(apt-cache "${opts[@]}" show "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n 1) &&
		[ -n "$ver" ]; then
		if [ ! -f "$src/$pkg-$ver.tar.xz" ]; then
			log "fetching $pkg $ver from trixie-backports"
			rm -f "$apt/archives/"*.deb
			(cd "$apt/archives" && apt-get "${opts[@]}" download "$pkg=$ver" >>"$apt/update.log" 2>&1) ||
				die "cannot download $pkg $ver from trixie-backports (see $apt/update.log)"
			deb=$(ls "$apt/archives/${pkg}_"*.deb | head -n 1)
			{ dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$pkg.tar.xz" >"$src/.tmp.tar.xz" &&
				mv "$src/.tmp.tar.xz" "$src/$pkg-$ver.tar.xz"; } ||
				die "cannot unpack $pkg $ver's source from $deb"
			rm -f "$apt/archives/"*.deb
		fi
		echo "$ver $src/$pkg-$ver.tar.xz" >"$week" || die "cannot write $week"
		cat "$week"
		return
	fi
	deb=$(ls "$src"/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
	[ -n "$deb" ] ||
		die "no kernel source: trixie-backports could not be asked (see $apt/update.log) and none was fetched before"
	ver=${deb##*/linux-source-}	# X.Y-VERSION.tar.xz
	ver=${ver#*-}
	ver=${ver%.tar.xz}
	log "trixie-backports could not be asked (see $apt/update.log): the source fetched before, $ver"
	echo "$ver $deb"
}

exec 8>"$src.lock"
flock 8
source_of=$(newest_source) || exit 1
flock -u 8
srcver=${source_of%% *}
tarball=${source_of#* }
if [ "${1:-}" = --source ]; then
	echo "$source_of"
	exit 0
fi
flavour=${1:-debug}
case $flavour in
debug)	fragments=("$here/debug.config") ;;
kcsan)	fragments=("$here/debug.config" "$here/kcsan.config") ;;
*)	die "no kernel '$flavour' to build (debug or kcsan)" ;;
esac
key=$(cat "${fragments[@]}" "$0" | sha256sum | cut -c1-12)
dir=$ER2BC_CACHE/$flavour-kernel/$srcver-$key

# done: the stamp of its last use touched (an older build is removed
# once unused for a week, below)
done_already() {
	[ -f "$dir/.done" ] || return 1
	touch "$dir/.done" 2>/dev/null || true
	echo "$dir"
}
done_already && exit 0
# one build of a directory at a time (worktrees side by side all want the
# new one when backports moves), and the next caller takes it done
mkdir -p "$ER2BC_CACHE/$flavour-kernel"
exec 7>"$dir.lock"
flock 7
done_already && exit 0
[ -f "$tarball" ] ||
	die "the week's kernel source is gone ($tarball): remove $src/week-$ER2BC_ROOT_WEEK to ask the archive again"

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
# older builds (another source, script or fragment) once unused for a
# week, unless one is being built (its lock held): a guest of another
# worktree may still boot one; then, under the sources' lock, the week
# files of more than two weeks ago and the sources no week file names
find "$ER2BC_CACHE/$flavour-kernel" -mindepth 2 -maxdepth 2 -name .done -mtime +6 -printf '%h\n' |
	while read -r old; do
		[ "$old" = "$dir" ] && continue
		(flock -n 6 && rm -rf "$old" && rm -f "$old.lock") 6>"$old.lock"
	done
(
	flock 8
	find "$src" -maxdepth 1 -name 'week-*' -mtime +13 -delete
	for t in "$src"/linux-source-*.tar.xz; do
		[ -e "$t" ] || continue
		grep -qsF " $t" "$src"/week-* || rm -f "$t"
	done
) 8>"$src.lock"
echo "$dir"
