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
# the tree's preparation below, by name: a change to it renames this
prep="defconfig +KUNIT +HEADERS_INSTALL +UAPI_HEADER_TEST +NETFILTER +NET_SCHED"
key=$(echo "$prep" | sha256sum | cut -c1-12)
tree=$ER2BC_CACHE/intree/$srcver-$key

# the files the series edits, as the tree has them
edited=(net/sched/Kconfig net/sched/Makefile net/ipv4/Kconfig net/ipv4/Makefile MAINTAINERS)

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
	make -s -C "$tree/linux" olddefconfig >/dev/null
	make -s -C "$tree/linux" -j"$(nproc)" modules_prepare >"$tree/prepare.log" 2>&1 ||
		{ tail -n 30 "$tree/prepare.log" >&2; die "modules_prepare failed in $tree/linux"; }
	touch "$tree/.done"
fi
linux=$tree/linux

# the repository of the touched files: the tree's own first
repo=$out/git
rm -rf "$repo" "$out/series"
mkdir -p "$repo"
git -C "$repo" init -q
git -C "$repo" config user.name "${GIT_AUTHOR_NAME:-er2bc developers}"
git -C "$repo" config user.email "${GIT_AUTHOR_EMAIL:-er2bc@example.org}"
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

# insert FILE BEFORE-REGEX LINE: LINE before the first line matching
# BEFORE-REGEX (at the end if none does)
insert() {
	awk -v re="$2" -v line="$3" '
		!done && $0 ~ re { print line; done = 1 }
		{ print }
		END { if (!done) print line }' "$repo/$1" >"$repo/$1.new"
	mv "$repo/$1.new" "$repo/$1"
}

# 1: the UAPI headers and what both modules share
for f in "$top"/include/uapi/linux/*.h; do
	put "include/uapi/linux/${f##*/}" "include/uapi/linux/${f##*/}"
done
put include/net/er2bc_netlink.h include/net/er2bc_netlink.h
put include/net/er2bc_prefix.h include/net/er2bc_prefix.h
# the compatibility header, reduced to what this tree has (the probes of
# the top-level Kbuild, run against the tree's headers)
probe() { grep -qsE "$2" "$linux/include/$1" && echo "-D$3" || echo "-U$3"; }
defs=("$(probe net/genetlink.h '^struct genl_split_ops [{]' ER2BC_HAVE_GENL_SPLIT_OPS)"
      "$(probe net/genetlink.h '^genl_info_dump.struct netlink_callback' ER2BC_HAVE_GENL_INFO_DUMP)"
      "$(probe net/netlink.h 'const struct netlink_range_validation +[*]range;' ER2BC_HAVE_NLA_RANGE_CONST)")
# (unifdef: exit 1 when it changed something, 2 on trouble)
unifdef "${defs[@]}" -o "$repo/include/net/er2bc_compat.h" "$top/include/net/er2bc_compat.h" || [ $? = 1 ]
for f in er2bc tcp_rcvmgr; do
	put "Documentation/netlink/specs/$f.yaml" "Documentation/netlink/specs/$f.yaml"
done
# who looks after them: the entry, then each module's patch adds its
# directory
entry='ER2BC BANDWIDTH CONTROL (SCH_ER2BC, TCP_RCVMGR)
M:	er2bc developers <er2bc@example.org>
L:	netdev@vger.kernel.org
S:	Maintained
F:	Documentation/netlink/specs/er2bc.yaml
F:	Documentation/netlink/specs/tcp_rcvmgr.yaml
F:	include/net/er2bc_*.h
F:	include/uapi/linux/er2bc*.h
F:	include/uapi/linux/tcp_rcvmgr.h
'
insert MAINTAINERS '^ERRSEQ ERROR TRACKING INFRASTRUCTURE$' "$entry"
# maintain DIR: DIR among the entry's files, in order
maintain() {
	awk -v f="F:	$1" '
		/^ER2BC BANDWIDTH CONTROL/ { in_e = 1 }
		in_e && (/^$/ || (/^F:/ && $0 > f)) { print f; in_e = 0 }
		{ print }' "$repo/MAINTAINERS" >"$repo/MAINTAINERS.new"
	mv "$repo/MAINTAINERS.new" "$repo/MAINTAINERS"
}
commit "net: er2bc: UAPI headers, netlink specs and shared prefix helpers" \
"The generic netlink families of sch_er2bc (\"er2bc\": ABW estimates,
the receiving gateway's meter, the controller's parameters) and of
tcp_rcvmgr (\"tcp_rcvmgr\": receive-window management), described by
their YNL specs, and the qdisc's TCA_ER2BC_* attributes. Both modules
take IP prefixes the same way: their struct, check, match and netlink
form are in include/net/er2bc_prefix.h and er2bc_netlink.h."

# 2: the qdisc
for f in "$top"/sch_er2bc/*.[ch] "$top"/sch_er2bc/Kbuild "$top"/sch_er2bc/Kconfig; do
	put "sch_er2bc/${f##*/}" "net/sched/sch_er2bc/${f##*/}"
done
insert net/sched/Kconfig '^config NET_SCH_FQ$' 'source "net/sched/sch_er2bc/Kconfig"
'
insert net/sched/Makefile '^obj-\$\(CONFIG_NET_SCH_FQ\)' 'obj-$(CONFIG_NET_SCH_ER2BC)	+= sch_er2bc/'
maintain net/sched/sch_er2bc/
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
for f in "$top"/tcp_rcvmgr/*.[ch] "$top"/tcp_rcvmgr/Kbuild "$top"/tcp_rcvmgr/Kconfig; do
	put "tcp_rcvmgr/${f##*/}" "net/ipv4/tcp_rcvmgr/${f##*/}"
done
insert net/ipv4/Kconfig '^config TCP_MD5SIG$' 'source "net/ipv4/tcp_rcvmgr/Kconfig"
'
insert net/ipv4/Makefile '^obj-\$\(CONFIG_TCP_AO\)' 'obj-$(CONFIG_TCP_RCVMGR) += tcp_rcvmgr/'
maintain net/ipv4/tcp_rcvmgr/
commit "tcp_rcvmgr: receive windows set by a gateway, short transfers first" \
"Netfilter hooks on a gateway that rewrite the receive window each LAN
receiver advertises toward the WAN, so that an access link is shared
by priority and short transfers finish first; configured over the
\"tcp_rcvmgr\" generic netlink family. Windows never close and never
move back; resets are judged against the window, as RFC 5961 asks of
an endpoint. KUnit suites cover the window arithmetic and the
assignment."

git -C "$repo" format-patch -q -o "$out/series" "$base"
ls "$out/series"/*.patch >"$out/series.list"

# the tree with the series' files, built with W=1 and C=1
fail=0
rm -rf "$linux/net/sched/sch_er2bc" "$linux/net/ipv4/tcp_rcvmgr"
(cd "$repo" && git ls-files -z | xargs -0 cp --parents -t "$linux")
"$linux/scripts/config" --file "$linux/.config" -m NET_SCH_ER2BC -m NET_SCH_ER2BC_KUNIT_TEST \
	-m TCP_RCVMGR -m TCP_RCVMGR_KUNIT_TEST
make -s -C "$linux" olddefconfig >/dev/null
for s in NET_SCH_ER2BC NET_SCH_ER2BC_KUNIT_TEST TCP_RCVMGR TCP_RCVMGR_KUNIT_TEST; do
	grep -qx "CONFIG_$s=m" "$linux/.config" || { echo "intree: CONFIG_$s is not m after olddefconfig" >&2; fail=1; }
done
if ! { make -C "$linux" -j"$(nproc)" W=1 C=1 net/sched/sch_er2bc/ net/ipv4/tcp_rcvmgr/ &&
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
for o in net/sched/sch_er2bc/sch_er2bc.o net/sched/sch_er2bc/sch_er2bc_kunit.o \
	 net/ipv4/tcp_rcvmgr/tcp_rcvmgr.o net/ipv4/tcp_rcvmgr/tcp_rcvmgr_kunit.o; do
	[ -s "$linux/$o" ] || { echo "intree: $o was not built" >&2; fail=1; }
done

# checkpatch --strict, the tree's own, on each patch. What the kernel's
# YNL generator writes (nl_gen.[ch], as the kernel's own *-nl-gen.c) has
# policy lines past 100 columns; those are shown, not counted: the
# generator, not the patch, would have to change
for p in $(cat "$out/series.list"); do
	pfail=0
	(cd "$linux" && ./scripts/checkpatch.pl --strict --show-types --ignore LONG_LINE "$p") \
		>"$p.checkpatch" 2>&1 || { cat "$p.checkpatch" >&2; pfail=1; }
	(cd "$linux" && ./scripts/checkpatch.pl --strict --show-types --types LONG_LINE "$p") \
		>"$p.long" 2>&1 || true
	sed -n 's/^#[0-9]*: FILE: //p' "$p.long" | sed 's/:$//' | while read -r at; do
		case $at in
		*/nl_gen.[ch]:*) echo "intree: generated, past 100 columns: $at" ;;
		*) echo "intree: past 100 columns: $at" >&2; echo x ;;
		esac
	done >"$p.long.verdict" 2>&1
	grep -v '^x$' "$p.long.verdict" || true
	if grep -qx x "$p.long.verdict"; then pfail=1; fi
	if [ "$pfail" = 1 ]; then
		echo "intree: checkpatch --strict: ${p##*/}" >&2
		fail=1
	fi
done

n=$(wc -l <"$out/series.list")
if [ "$fail" = 0 ]; then
	echo "intree: $n patches in $out/series; built in $linux with W=1 C=1, no warning; checkpatch --strict clean"
fi
exit $fail
