#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest: install the project's modules and tc plugin into
# the guest's overlay, run the KUnit suites (kernels with KUnit) and the
# kselftests, unload the modules, scan for leaks (kernels with kmemleak).
#
#   guest-suite.sh MODULE_DIR [FILTER]
#
# Writes one line per result to $ER2BC_OUT/results: PASS|FAIL|SKIP name.
# FILTER (a substring) restricts the run to KUnit suites and kselftests
# whose name contains it.
set -u

top=$(cd "$(dirname "$0")/../../.." && pwd)
mods=$1
filter=${2:-}
out=$ER2BC_OUT
results=$out/results
: >"$results"
krel=$(uname -r)

result() { echo "$1 $2" >>"$results"; echo "# $1 $2"; }
wanted() { [ -z "$filter" ] || [[ "$1" == *"$filter"* ]]; }

"$top/tools/testing/vm/guest-install.sh" "$mods" || result FAIL "install modules"
dest=/lib/modules/$krel/updates/er2bc

# KASAN and lockdep under TCG leave the emulated CPU short of the tests'
# traffic: their rate and timing checks report a miss as skipped there
# (selftests/lib.sh, machine_slow)
if grep -qw kasan_report /proc/kallsyms; then
	export KSFT_MACHINE_SLOW=yes
	echo "# KASAN kernel: KSFT_MACHINE_SLOW=yes"
fi

kmemleak=/sys/kernel/debug/kmemleak
if [ -w $kmemleak ]; then
	echo scan >$kmemleak
	echo clear >$kmemleak
fi

# --- KUnit: each *_kunit module runs its suites when loaded
if [ -d /sys/kernel/debug/kunit ]; then
	for ko in "$dest"/*_kunit.ko; do
		[ -e "$ko" ] || continue
		mod=$(basename "$ko" .ko)
		wanted "$mod" || continue
		before=$(ls /sys/kernel/debug/kunit)
		if ! modprobe "$mod"; then
			result FAIL "kunit/$mod: load"
			continue
		fi
		for suite in $(ls /sys/kernel/debug/kunit); do
			grep -qx "$suite" <<<"$before" && continue
			r=/sys/kernel/debug/kunit/$suite/results
			cp "$r" "$out/kunit-$suite.ktap"
			sed 's/^/# /' "$r"
			n=0
			# one line per case, indented one level below the suite
			while read -r status name directive; do
				n=$((n + 1))
				if [ "$status" = ok ] && [[ "$directive" == *"# SKIP"* ]]; then
					result SKIP "kunit/$suite/$name"
				elif [ "$status" = ok ]; then
					result PASS "kunit/$suite/$name"
				else
					result FAIL "kunit/$suite/$name"
				fi
			done < <(sed -n 's/^    \(not ok\|ok\) [0-9]* \([^ ]*\)\(.*\)$/\1 \2 \3/p' "$r" |
				 sed 's/^not ok/not_ok/')
			[ $n -gt 0 ] || result FAIL "kunit/$suite: no results"
		done
		rmmod "$mod" || result FAIL "kunit/$mod: unload"
	done
else
	echo "# this kernel has no KUnit: the KUnit suites run on the debug kernel"
fi

# --- kselftests, one directory per module, programs listed in TEST_PROGS
for dir in "$top"/selftests/*/; do
	suite=$(basename "$dir")
	progs=$(sed -n 's/^TEST_PROGS *:= *//p' "$dir/Makefile" 2>/dev/null)
	limit=$(sed -n 's/^timeout=//p' "$dir/settings" 2>/dev/null)
	for prog in $progs; do
		name=$suite/${prog%.sh}
		wanted "$name" || continue
		log=$out/selftests/$suite/${prog%.sh}.log
		mkdir -p "$(dirname "$log")"
		echo "# selftests: $name"
		start=$(date +%s)
		(cd "$dir" && timeout "${limit:-300}" "./$prog") 2>&1 | tee "$log" | sed 's/^/# /'
		rc=${PIPESTATUS[0]}
		echo "# $name: exit $rc after $(( $(date +%s) - start ))s"
		n=0 failed=0
		while IFS= read -r line; do
			desc=${line#*ok [0-9]* - }
			desc=${desc%% # *}
			n=$((n + 1))
			case "$line" in
			"not ok"*) result FAIL "$name: $desc"; failed=1 ;;
			*"# SKIP"*) result SKIP "$name: $desc" ;;
			*) result PASS "$name: $desc" ;;
			esac
		done < <(grep -E '^(not )?ok [0-9]+ - ' "$log")
		if [ $rc -eq 4 ] && [ $n -eq 0 ]; then
			result SKIP "$name: $(sed -n 's/^1..0 # SKIP //p' "$log")"
		elif [ $rc -eq 124 ]; then
			result FAIL "$name: timed out after ${limit:-300}s"
		elif [ $rc -ne 0 ] && [ $rc -ne 4 ] && [ $failed -eq 0 ]; then
			result FAIL "$name: exit status $rc"
		fi
	done
done

# --- unload: refcounts must have dropped back
ok=1
for m in tcp_rcvmgr sch_er2bc; do
	if grep -q "^$m " /proc/modules; then
		rmmod "$m" || ok=0
	fi
done
[ $ok = 1 ] && result PASS "modules unload" || result FAIL "modules unload"

# --- leaks (objects younger than 5 s are not reported yet)
if [ -w $kmemleak ]; then
	sleep 5
	echo scan >$kmemleak
	echo scan >$kmemleak
	cat $kmemleak >"$out/kmemleak.txt"
	if [ -s "$out/kmemleak.txt" ]; then
		sed 's/^/# /' "$out/kmemleak.txt" | head -n 60
		result FAIL "kmemleak: no unreferenced objects"
	else
		result PASS "kmemleak: no unreferenced objects"
	fi
fi

dmesg >"$out/dmesg.txt"
