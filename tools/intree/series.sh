#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The modules as they would go into the kernel: placed in Debian's
# linux-source-6.12 tree, built there with W=1 and C=1 (sparse), and a
# patch series of that tree that checkpatch --strict accepts.
#
#   series.sh [OUT]		OUT: where the series goes [build/intree]
#
# Placement: sch_er2bc/ as net/sched/sch_er2bc/, tcp_rcvmgr/ as
# net/ipv4/tcp_rcvmgr/, each with its own Kbuild and Kconfig (sourced
# from net/sched/Kconfig and net/ipv4/Kconfig); include/uapi/linux/ and
# include/net/ as they are; the YNL specs under Documentation/netlink/specs/.
# The files are copied unchanged but for include/net/er2bc_compat.h,
# whose feature probes (the top-level Kbuild's, against this tree's
# headers) are resolved with unifdef, so that the tree carries only the
# code for itself.
#
# The series (OUT/series/*.patch) is git format-patch of a repository
# holding the touched files of the tree: the files it edits as the tree
# has them, then the UAPI and shared headers, sch_er2bc, tcp_rcvmgr and
# MAINTAINERS, one patch each. `git am` applies it to a 6.12 tree.
#
# The tree is extracted and configured once (x86_64 defconfig, KUnit,
# the UAPI header test, both modules and their KUnit suites as modules;
# about 2 minutes) under ER2BC_CACHE; each run then builds only the two
# directories and the UAPI headers' test. Exit 1 on a warning, an error
# or a checkpatch complaint, each printed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/tools/testing/vm/common.sh"

out=$(mkdir -p "${1:-$top/build/intree}" && cd "${1:-$top/build/intree}" && pwd)
tarball=/usr/src/linux-source-6.12.tar.xz
[ -f "$tarball" ] || die "linux-source-6.12 is not installed (run tools/testing/setup-deps.sh)"
command -v unifdef >/dev/null || die "unifdef is not installed (run tools/testing/setup-deps.sh)"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
# the files the series edits, as the tree has them
edited=(net/sched/Kconfig net/sched/Makefile net/ipv4/Kconfig net/ipv4/Makefile MAINTAINERS)
# the tree is keyed by the source package and by what prepares it (the
# block between the two "prep" marks, and the edited files)
key=$( (sed -n '/^# prep begins/,/^# prep ends/p' "$0"; echo "${edited[*]}") | sha256sum | cut -c1-12)
tree=$ER2BC_CACHE/intree/$srcver-$key

# one run at a time on the cached tree (checkouts side by side share it)
mkdir -p "$ER2BC_CACHE"
exec 9>"$ER2BC_CACHE/intree.lock"
flock 9

# prep begins
if [ ! -f "$tree/.done" ]; then
	log "preparing a 6.12 tree in $tree (once, about 2 minutes)"
	rm -rf "$ER2BC_CACHE/intree"
	mkdir -p "$tree/linux" "$tree/orig"
	tar -xJf "$tarball" -C "$tree/linux" --strip-components=1
	for f in "${edited[@]}"; do
		mkdir -p "$tree/orig/$(dirname "$f")"
		cp "$tree/linux/$f" "$tree/orig/$f"
	done
	make -s -C "$tree/linux" defconfig >/dev/null
	# KUnit and the UAPI headers' test; the modules' own symbols are set
	# once the Kconfig that declares them is in place, below
	"$tree/linux/scripts/config" --file "$tree/linux/.config" -e KUNIT -e HEADERS_INSTALL \
		-e UAPI_HEADER_TEST -e NETFILTER -e NET_SCHED
	KCONFIG_WERROR=1 make -s -C "$tree/linux" olddefconfig >/dev/null
	make -s -C "$tree/linux" -j"$(nproc)" modules_prepare >"$tree/prepare.log" 2>&1 ||
		{ tail -n 30 "$tree/prepare.log" >&2; die "modules_prepare failed in $tree/linux"; }
	: >"$tree/placed.list"
	touch "$tree/.done"
fi
# prep ends
linux=$tree/linux

# the repository of the touched files: the tree's own first
repo=$out/git
rm -rf "$repo" "$out/series"
mkdir -p "$repo"
git -C "$repo" init -q
# (author and sign-off: the checkout's git identity, else a placeholder
# that a series sent for real must replace with a person's)
git -C "$repo" config user.name "${GIT_AUTHOR_NAME:-$(git -C "$top" config user.name || echo "er2bc developers")}"
git -C "$repo" config user.email "${GIT_AUTHOR_EMAIL:-$(git -C "$top" config user.email || echo er2bc@example.org)}"
(cd "$tree/orig" && cp --parents "${edited[@]}" "$repo/")
git -C "$repo" add -A
git -C "$repo" commit -q -m "Linux 6.12 (Debian linux-source-6.12 $srcver)"
base=$(git -C "$repo" rev-parse HEAD)

# commit SUBJECT BODY: everything added since the last commit
commit() {
	git -C "$repo" add -A
	git -C "$repo" commit -q -s -m "$1" -m "$2"
}

# put SRC DST: a file of the project at DST in the repository
put() {
	mkdir -p "$repo/$(dirname "$2")"
	cp "$top/$1" "$repo/$2"
}

# insert FILE BEFORE LINE: LINE before the first line that begins with
# the fixed string BEFORE; the tree lacking it is an error
insert() {
	BEFORE=$2 LINE=$3 awk '
		!done && index($0, ENVIRON["BEFORE"]) == 1 { print ENVIRON["LINE"]; done = 1 }
		{ print }
		END { exit !done }' "$repo/$1" >"$repo/$1.new" ||
		die "intree: no line of $1 begins with \"$2\""
	mv "$repo/$1.new" "$repo/$1"
}

# 1: the UAPI headers and what both modules share
for f in "$top"/include/uapi/linux/*.h; do
	put "include/uapi/linux/${f##*/}" "include/uapi/linux/${f##*/}"
done
put include/net/er2bc_netlink.h include/net/er2bc_netlink.h
put include/net/er2bc_prefix.h include/net/er2bc_prefix.h
# the compatibility header, reduced to what this tree has: the top-level
# Kbuild's probes (read from it, so that a new one is not forgotten here)
# and the two macros it tests for itself, run against the tree's headers
probe() {
	[ -f "$linux/include/$1" ] || die "intree: the tree has no include/$1"
	if grep -qE "$2" "$linux/include/$1"; then echo "-D$3"; else echo "-U$3"; fi
}
defs=()
while IFS=$'\t' read -r hdr re name; do
	defs+=("$(probe "$hdr" "$re" "$name")")
done < <(sed -n 's/^subdir-ccflags-y += $(call er2bc_probe,\([^,]*\),\(.*\),\(ER2BC_HAVE_[A-Z_]*\))$/\1\t\2\t\3/p' "$top/Kbuild")
[ ${#defs[@]} -gt 0 ] || die "intree: no feature probe read from the top-level Kbuild"
defs+=("$(probe net/pkt_sched.h '#define MODULE_ALIAS_NET_SCH' MODULE_ALIAS_NET_SCH)"
       "$(probe net/genetlink.h 'GENL_MCAST_CAP_NET_ADMIN' GENL_MCAST_CAP_NET_ADMIN)")
# (unifdef: exit 1 when it changed something, 2 on trouble)
unifdef "${defs[@]}" -o "$repo/include/net/er2bc_compat.h" "$top/include/net/er2bc_compat.h" || [ $? = 1 ]
if grep -nE '^#\s*(if|ifdef|ifndef|elif).*(ER2BC_HAVE_|MODULE_ALIAS_NET_SCH|GENL_MCAST_CAP_NET_ADMIN)' \
	"$repo/include/net/er2bc_compat.h" >&2; then
	die "intree: the compatibility header keeps a branch this tree does not need"
fi
for f in er2bc tcp_rcvmgr; do
	put "Documentation/netlink/specs/$f.yaml" "Documentation/netlink/specs/$f.yaml"
done
# who looks after them: the entry, then each module's patch adds its
# directory
entry="ER2BC BANDWIDTH CONTROL (SCH_ER2BC, TCP_RCVMGR)
M:	$(git -C "$repo" config user.name) <$(git -C "$repo" config user.email)>
L:	netdev@vger.kernel.org
L:	netfilter-devel@vger.kernel.org
S:	Maintained
F:	Documentation/netlink/specs/er2bc.yaml
F:	Documentation/netlink/specs/tcp_rcvmgr.yaml
F:	include/net/er2bc_*.h
F:	include/uapi/linux/er2bc*.h
F:	include/uapi/linux/tcp_rcvmgr.h
"
# (in order: "ER2BC" sorts before "EROFS", '2' before 'O')
insert MAINTAINERS 'EROFS FILE SYSTEM' "$entry"
# maintain DIR: DIR among the entry's files, in order
maintain() {
	awk -v f="F:	$1" '
		/^ER2BC BANDWIDTH CONTROL/ { in_e = 1 }
		in_e && (/^$/ || (/^F:/ && $0 > f)) { print f; in_e = 0 }
		{ print }' "$repo/MAINTAINERS" >"$repo/MAINTAINERS.new"
	mv "$repo/MAINTAINERS.new" "$repo/MAINTAINERS"
}
# place_module SRC DIR SYM KCONFIG_BEFORE MAKEFILE_BEFORE MAKEFILE_LINE:
# the project's SRC/ as DIR/ (a directory of net/), its Kconfig sourced
# from DIR's parent before the line beginning with KCONFIG_BEFORE, and
# MAKEFILE_LINE in the parent's Makefile before MAKEFILE_BEFORE; DIR in
# the MAINTAINERS entry. The module's directory and Kconfig symbol (and
# its KUnit suite's, SYM_KUNIT_TEST) go to dirs and syms for the build
dirs=() syms=()
place_module() {
	local f parent=${2%/*}

	for f in "$top/$1"/*.[ch] "$top/$1/Kbuild" "$top/$1/Kconfig"; do
		put "$1/${f##*/}" "$2/${f##*/}"
	done
	insert "$parent/Kconfig" "$4" "source \"$2/Kconfig\"
"
	insert "$parent/Makefile" "$5" "$6"
	maintain "$2/"
	dirs+=("$2") syms+=("$3" "$3_KUNIT_TEST")
}

commit "net: er2bc: UAPI headers, netlink specs and shared prefix helpers" \
"The generic netlink families of sch_er2bc (\"er2bc\": ABW estimates,
the receiving gateway's meter, the controller's parameters) and of
tcp_rcvmgr (\"tcp_rcvmgr\": receive-window management), described by
their YNL specs, and the qdisc's TCA_ER2BC_* attributes. Both modules
take IP prefixes the same way: their struct, check, match and netlink
form are in include/net/er2bc_prefix.h and er2bc_netlink.h."

# 2: the qdisc
place_module sch_er2bc net/sched/sch_er2bc NET_SCH_ER2BC 'config NET_SCH_FQ' \
	'obj-$(CONFIG_NET_SCH_FQ)' 'obj-$(CONFIG_NET_SCH_ER2BC)	+= sch_er2bc/'
commit "net/sched: sch_er2bc: guaranteed rates under an estimated available bandwidth" \
"A classful qdisc for a gateway's uplink toward a peer site over a
path whose available bandwidth (ABW) changes. Classes get HTB-style
guaranteed rates by priority, the whole is capped at the latest ABW
estimate, and the guarantees are recomputed by the eR2BC algorithm each
time an estimate arrives over the \"er2bc\" generic netlink family. On
the receiving gateway, a meter counts the peer's packets and answers the
estimator's requests, authenticated with HMAC-SHA256 and a replay
window. KUnit suites cover the arithmetic, the scheduler and the
probe's tags."

# 3: the receive-window manager
place_module tcp_rcvmgr net/ipv4/tcp_rcvmgr TCP_RCVMGR 'config TCP_MD5SIG' \
	'obj-$(CONFIG_TCP_AO)' 'obj-$(CONFIG_TCP_RCVMGR) += tcp_rcvmgr/'
commit "net: tcp_rcvmgr: receive windows set by a gateway, short transfers first" \
"Netfilter hooks on a gateway that rewrite the receive window each LAN
receiver advertises toward the WAN, so that an access link is shared
by priority and short transfers finish first; configured over the
\"tcp_rcvmgr\" generic netlink family. Windows never close and never
move back; resets are judged against the window, as RFC 5961 asks of
an endpoint. KUnit suites cover the window arithmetic and the
assignment."

rm -rf "$out/checkpatch"
mkdir -p "$out/checkpatch"
git -C "$repo" format-patch -q --cover-letter --subject-prefix="PATCH net-next" \
	-o "$out/series" "$base"
# the cover letter: what the series is (cover.txt)
cover=$(ls "$out/series"/0000-*.patch)
sed -i -e 's/\*\*\* SUBJECT HERE \*\*\*/er2bc: bandwidth control for gateways over a path of changing capacity/' \
	-e '/\*\*\* BLURB HERE \*\*\*/{
r '"$here"'/cover.txt
d
}' "$cover"
ls "$out/series"/0*.patch | grep -v '/0000-' >"$out/series.list"

# the tree with the series' files (those of the run before removed first),
# built with W=1 and C=1
fail=0
(cd "$linux" && xargs -r rm -f <"$tree/placed.list")
# (the modules' directories whole: last run's objects must not pass for
# this run's below)
for d in "${dirs[@]}"; do rm -rf "${linux:?}/$d"; done
(cd "$tree/orig" && cp --parents "${edited[@]}" "$linux/")
(cd "$repo" && git ls-files -z | xargs -0 cp --parents -t "$linux")
(cd "$repo" && git ls-files | grep -vxF -f <(printf '%s\n' "${edited[@]}")) >"$tree/placed.list"
"$linux/scripts/config" --file "$linux/.config" $(printf -- '-m %s ' "${syms[@]}")
# (a Kconfig warning, an unmet dependency or an unknown symbol, fails it)
if ! KCONFIG_WERROR=1 make -s -C "$linux" olddefconfig >"$out/kconfig.log" 2>&1; then
	cat "$out/kconfig.log" >&2
	echo "intree: olddefconfig warned with the series' Kconfig" >&2
	fail=1
fi
for s in "${syms[@]}"; do
	grep -qx "CONFIG_$s=m" "$linux/.config" || { echo "intree: CONFIG_$s is not m after olddefconfig" >&2; fail=1; }
done
if ! { make -C "$linux" -j"$(nproc)" W=1 C=1 $(printf '%s/ ' "${dirs[@]}") &&
	make -C "$linux" -j"$(nproc)" headers && make -C "$linux" -j"$(nproc)" usr/include/; } \
	>"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	echo "intree: the build in the tree failed (log: $out/build.log)" >&2
	fail=1
elif grep -E 'warning:|error:' "$out/build.log" | grep -q .; then
	grep -E -A3 'warning:|error:' "$out/build.log" >&2
	echo "intree: the build in the tree warned (log: $out/build.log)" >&2
	fail=1
fi
# (each module and its KUnit suite, named as the directory is)
for d in "${dirs[@]}"; do
	for o in "$d/${d##*/}.o" "$d/${d##*/}_kunit.o"; do
		[ -s "$linux/$o" ] || { echo "intree: $o was not built" >&2; fail=1; }
	done
done

# checkpatch --strict, the tree's own, on each patch (its output in
# OUT/checkpatch). What the kernel's YNL generator writes (nl_gen.[ch], as
# the kernel's own *-nl-gen.c) has policy lines past 100 columns; those
# are listed, not counted: the generator, not the patch, would have to
# change
while read -r p; do
	pfail=0 c=$out/checkpatch/${p##*/}
	(cd "$linux" && ./scripts/checkpatch.pl --strict --show-types --ignore LONG_LINE "$p") \
		>"$c.txt" 2>&1 || { cat "$c.txt" >&2; pfail=1; }
	(cd "$linux" && ./scripts/checkpatch.pl --strict --show-types --types LONG_LINE "$p") \
		>"$c.long" 2>&1 || true
	while read -r at; do
		case $at in
		*/nl_gen.[ch]:*) echo "intree: generated, past 100 columns: $at" ;;
		*) echo "intree: past 100 columns: $at" >&2; pfail=1 ;;
		esac
	done < <(sed -n 's/^#[0-9]*: FILE: \(.*\):$/\1/p' "$c.long")
	if [ "$pfail" = 1 ]; then
		echo "intree: checkpatch --strict: ${p##*/}" >&2
		fail=1
	fi
done <"$out/series.list"

n=$(wc -l <"$out/series.list")
if [ "$fail" = 0 ]; then
	echo "intree: $n patches and a cover letter in $out/series; built in $linux with W=1 C=1, no warning; checkpatch --strict clean"
fi
exit $fail
