#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install into a DESTDIR, against Debian's 6.12 headers: every file
# where the distribution and the tools expect it; without headers, an
# error that names the package to install, and nothing installed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=$("$top/tools/testing/vm/kernels.sh" kdir 6.12)
krel=$("$top/tools/testing/vm/kernels.sh" krel 6.12)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
t() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
	[ -z "${3:-}" ] || echo "# $3"
}

out=$(make -s -C "$top" install DESTDIR="$tmp/root" KDIR="$kdir" 2>&1)
t $? "make install DESTDIR KDIR: exit 0" "$(echo "$out" | tail -n 2 | tr '\n' ' ')"
want="lib/modules/$krel/updates/er2bc/sch_er2bc/sch_er2bc.ko
lib/modules/$krel/updates/er2bc/tcp_rcvmgr/tcp_rcvmgr.ko
usr/lib/$(gcc -print-multiarch)/tc/q_er2bc.so
usr/local/lib/systemd/system/er2bc-abwd@.service
usr/local/lib/systemd/system/er2bc-metrics.service
usr/local/lib/systemd/system/er2bc-metrics.timer
usr/local/lib/systemd/system/er2bc-rcvmgr.service
usr/local/lib/systemd/system/er2bc-tc@.service
usr/local/lib/sysusers.d/er2bc.conf
usr/local/sbin/er2bc-abwd
usr/local/sbin/er2bc-tc-apply
usr/local/sbin/er2bcctl
usr/local/share/bash-completion/completions/er2bcctl
usr/local/share/doc/er2bc/abwd-responder.conf.example
usr/local/share/doc/er2bc/abwd-sender.conf.example
usr/local/share/doc/er2bc/er2bc-estimator.rst
usr/local/share/doc/er2bc/rcvmgr.batch.example
usr/local/share/doc/er2bc/tc-DEV.batch.example
usr/local/bin/er2bc-plot
usr/local/share/er2bc/monitoring/er2bc-alerts.yml
usr/local/share/er2bc/monitoring/er2bc-dashboard.json
usr/local/share/man/man1/er2bc-plot.1
usr/local/share/man/man8/er2bc-abwd.8
usr/local/share/man/man8/er2bc-tc-apply.8
usr/local/share/man/man8/er2bcctl.8
usr/local/share/man/man8/tc-er2bc.8"
# (modules compressed or not, as the kernel's configuration says)
got=$(cd "$tmp/root" && find . -type f | sed 's|^\./||; s/\.ko\.[gx]*z*$/.ko/; s/\.ko\.zst$/.ko/' | sort)
[ "$got" = "$(echo "$want" | sort)" ]
t $? "the files, where the system looks for them" "$(diff <(echo "$want" | sort) <(echo "$got") | grep '^[<>]' | xargs)"
grep -q '^ExecStart=/usr/local/sbin/er2bc-abwd ' "$tmp/root/usr/local/lib/systemd/system/er2bc-abwd@.service" &&
	grep -q '^ExecStart=/usr/local/sbin/er2bc-tc-apply %I ' "$tmp/root/usr/local/lib/systemd/system/er2bc-tc@.service" &&
	grep -q '^ExecStart=/usr/local/sbin/er2bcctl -batch ' "$tmp/root/usr/local/lib/systemd/system/er2bc-rcvmgr.service" &&
	grep -q '^ExecStart=/usr/local/sbin/er2bcctl metrics output ' "$tmp/root/usr/local/lib/systemd/system/er2bc-metrics.service"
t $? "the units run the binaries under the prefix"
# (the binaries are in the DESTDIR, not where the units will find them)
out=$(systemd-analyze verify --man=no "$tmp/root/usr/local/lib/systemd/system/er2bc-tc@.service" \
	"$tmp/root/usr/local/lib/systemd/system/er2bc-rcvmgr.service" \
	"$tmp/root/usr/local/lib/systemd/system/er2bc-metrics.service" \
	"$tmp/root/usr/local/lib/systemd/system/er2bc-metrics.timer" 2>&1 |
	grep -v "Command /usr/local/sbin/er2bcctl is not executable" |
	grep -v "Command /usr/local/sbin/er2bc-tc-apply is not executable")
[ -z "$out" ]
t $? "systemd-analyze finds nothing wrong in the boot units" "$out"
[[ $(stat -c %a "$tmp/root/usr/local/sbin/er2bcctl") == 755 ]]
t $? "er2bcctl is executable"

out=$(make -s -C "$top" install DESTDIR="$tmp/none" KDIR="$tmp/nokernel" 2>&1)
rc=$?
[ $rc -ne 0 ] && [[ $out == *"no kernel build tree in $tmp/nokernel: install linux-headers-"* ]] &&
	[ ! -e "$tmp/none" ]
t $? "no headers: an error naming the package, nothing installed" "$(echo "$out" | head -n 1)"
echo "1..$n"
exit $failed
