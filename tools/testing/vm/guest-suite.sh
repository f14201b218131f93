#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest: install the project's modules and tc plugin into
# the guest's overlay, run the KUnit suites (kernels with KUnit) and the
# kselftests, unload the modules, scan for leaks (kernels with kmemleak).
#
#   guest-suite.sh MODULE_DIR [FILTER [KUNIT [ONLY]]]
#
# It judges nothing: it records what ran, and the host (verdict.py) decides.
# Under $ER2BC_OUT:
#   kunit/<module>.load          modprobe's exit status, per *_kunit module
#   kunit/<suite>.ktap           the suite's KTAP, per suite the module ran
#   selftests/<dir>/<prog>.log   the program's output (TAP)
#   selftests/<dir>/<prog>.rc    its exit status
#   harness                      PASS|FAIL lines of this script's own checks
#   case-times                   suite, check number, milliseconds and
#                                processes forked since the check before,
#                                description (selftests/lib.sh)
#   suite-done                   written last: the script ran to its end
# FILTER (a substring) restricts the kselftests to those whose name
# contains it, and FILTER:CASE[,CASE] runs only those cases of them (a
# suite with ALL_TESTS: selftests/lib.sh, tests_run); KUNIT (yes|no,
# default yes) says whether to load the KUnit modules (the host decides
# from its manifest which suites a FILTER names). ONLY, a file (the host's:
# the root is shared) of kselftest names one a line, restricts them to
# those: a kernel that runs only some suites (the KCSAN kernel, whose
# suites the manifest lists); without it every kselftest of the tree runs,
# so that one the manifest does not list fails the run.
#
# With $ER2BC_QUEUE (run.sh -q: a directory two guests of one kernel share,
# check.sh), the KUnit modules and each kselftest are items the guests
# share out: a guest runs an item only if its mkdir of
# claimed/<item> is the first; items go in the order the queue's `order`
# file gives (the longest first), the rest after; `items` lists them all.
set -u

top=$(cd "$(dirname "$0")/../../.." && pwd)
mods=$1
filter=${2:-}
kunit=${3:-yes}
only=${4:-}
# SUITE:CASE[,CASE]: the cases the suites that FILTER names run (TESTS,
# selftests/lib.sh's tests_run)
cases=
if [[ $filter == *:* ]]; then
	cases=${filter#*:}
	filter=${filter%%:*}
fi
out=$ER2BC_OUT
rm -rf "$out/kunit" "$out/selftests" "$out/suite-done" "$out/case-times"
: >"$out/harness"
krel=$(uname -r)

harness() { echo "$1 $2" >>"$out/harness"; echo "# $1 $2"; }
wanted() {
	{ [ -z "$filter" ] || [[ "$1" == *"$filter"* ]]; } &&
		{ [ -z "$only" ] || grep -qFx -- "$1" "$only"; }
}

if "$top/tools/testing/vm/guest-install.sh" "$mods"; then
	harness PASS "install modules"
else
	harness FAIL "install modules"
fi

# --- the emulated CPU itself: QEMU 7.2's TCG corrupts RFLAGS at CMPXCHG16B,
# which the kernel's SLUB runs at every allocation; run.sh turns CX16 off
# (flagcheck.c, Documentation/testing.rst). Before the tests: the CPU keeps
# its flags there; after them: no vCPU's flags were corrupted meanwhile.
flagcheck=$top/tools/testing/vm/flagcheck
flags_check() {
	local why rc=0
	why=$("$flagcheck" "$@" 2>&1) || rc=$?
	[ -z "$why" ] || echo "$why" | sed 's/^/# /'
	return $rc
}
if flags_check; then
	harness PASS "the CPU keeps RFLAGS across CMPXCHG16B, or does not offer it"
else
	harness FAIL "the CPU keeps RFLAGS across CMPXCHG16B, or does not offer it"
fi
dest=/lib/modules/$krel/updates/er2bc

# KASAN (or KCSAN) and lockdep under TCG leave the emulated CPU short of
# the tests' traffic: their rate and timing checks report a miss as
# skipped there (selftests/lib.sh, machine_slow)
timeout_factor=1
sanitizer=
grep -qw kasan_report /proc/kallsyms && sanitizer=KASAN
grep -qw __kcsan_check_access /proc/kallsyms && sanitizer=KCSAN
if [ -n "$sanitizer" ]; then
	export KSFT_MACHINE_SLOW=yes
	# and each suite's timeout (settings) doubled: a process costs five
	# times what it does on Debian's kernels (0.45 s for /bin/true), and
	# the longest suites took 700-730 s of their 900 there
	timeout_factor=2
	echo "# $sanitizer kernel: KSFT_MACHINE_SLOW=yes, suite timeouts doubled"
fi

kmemleak=/sys/kernel/debug/kmemleak
if [ -w $kmemleak ]; then
	# what boot left is not blamed on the tests: an object is reported
	# only when a second scan finds it unchanged, and clear forgets only
	# what was reported, so two scans before it (the debug kernel has no
	# scan thread: CONFIG_DEBUG_KMEMLEAK_AUTO_SCAN=n)
	start=$SECONDS
	echo scan >$kmemleak
	echo scan >$kmemleak
	echo clear >$kmemleak
	echo "# kmemleak: the scans before the tests took $((SECONDS - start))s"
fi

# --- KUnit: each *_kunit module runs its suites when loaded
run_kunit() {
	mkdir -p "$out/kunit"
	for ko in "$dest"/*_kunit.ko; do
		[ -e "$ko" ] || continue
		mod=$(basename "$ko" .ko)
		before=$(ls /sys/kernel/debug/kunit)
		modprobe "$mod"
		rc=$?
		echo $rc >"$out/kunit/$mod.load"
		for suite in $(ls /sys/kernel/debug/kunit); do
			grep -qFx "$suite" <<<"$before" && continue
			cp "/sys/kernel/debug/kunit/$suite/results" "$out/kunit/$suite.ktap"
			sed 's/^/# /' "$out/kunit/$suite.ktap"
		done
		# (a module that did not load has nothing to unload)
		[ $rc = 0 ] && { rmmod "$mod" || harness FAIL "kunit/$mod: unload"; }
	done
}

# --- kselftests, one directory per module, programs listed in TEST_PROGS

# stuck_snapshot PID FILE: what the process tree under PID waits in, one
# line per process that has no child (what the others wait for): its
# state, seconds alive, wchan, command line, and its kernel stack's first
# frames; then the kernel's blocked tasks (sysrq w) go to the console.
# verdict.py puts FILE in a timed-out suite's FAIL line: a hang names its
# place in the log CI keeps.
stuck_snapshot() {
	local root=$1 file=$2 pid tree kids p
	tree=" $root "
	# (children after parents in pid order, but pids wrap: a few passes)
	for _ in 1 2 3 4; do
		while read -r pid p; do
			[[ "$tree" == *" $p "* && "$tree" != *" $pid "* ]] && tree+="$pid "
		done < <(ps -e -o pid=,ppid=)
	done
	kids=$(ps -e -o ppid= | sort -u | xargs)
	for pid in $tree; do
		[[ " $kids " == *" $pid "* ]] && continue
		[ -d "/proc/$pid" ] || continue
		printf '%s %ss in %s: %s' "$(ps -o stat= -p "$pid")" "$(ps -o etimes= -p "$pid" | xargs)" \
			"$(cat "/proc/$pid/wchan" 2>/dev/null || echo -)" \
			"$(tr '\0' ' ' <"/proc/$pid/cmdline" | cut -c1-100 | sed 's/ *$//')"
		if [ -r "/proc/$pid/stack" ]; then
			printf ' [%s]' "$(sed 's/^\[<[0-9a-f]*>\] //; s/+0x.*//' "/proc/$pid/stack" |
				head -4 | paste -sd, -)"
		fi
		echo
	done >"$file"
	# and the suite's own program (timeout's child), which has children:
	# where it waits, the signals it blocks and those pending. (A shell
	# blocks SIGCHLD alone, 0000000000010000, while it waits for a child
	# or sleeps; other bits, or a SIGCHLD pending outside those waits, are
	# a mask gone wrong: read -t left garbage there once, the shell never
	# reaped a job and kill -0 found it for ever)
	for pid in $(ps -o pid= --ppid "$root"); do
		printf 'the suite %s, %s in %s, blocking %s, pending %s\n' "$pid" \
			"$(ps -o stat= -p "$pid")" "$(cat "/proc/$pid/wchan" 2>/dev/null || echo -)" \
			"$(awk '$1 == "SigBlk:" { print $2 }' "/proc/$pid/status" 2>/dev/null)" \
			"$(awk '$1 == "SigPnd:" || $1 == "ShdPnd:" { printf "%s%s", s, $2; s = "/" }' \
				"/proc/$pid/status" 2>/dev/null)"
	done >>"$file"
	[ -w /proc/sysrq-trigger ] && echo w >/proc/sysrq-trigger
}

run_selftest() {
	local name=$1 dir=$top/selftests/${1%/*} prog=${1#*/}.sh log limit rc start forks wd
	limit=$(sed -n 's/^timeout=//p' "$dir/settings" 2>/dev/null)
	limit=$((${limit:-300} * timeout_factor))
	log=$out/selftests/$name.log
	mkdir -p "$(dirname "$log")"
	rm -f "$out/selftests/$name.stuck"
	echo "# selftests: $name"
	start=$(date +%s)
	forks=$(awk '$1 == "processes" { print $2 }' /proc/stat)
	# a watchdog 10 s short of the limit: what the suite waits in, if it is
	# still running (timeout's pid: the subshell's, which execs it)
	# (killed, it kills its sleep and ends quietly)
	{
		trap 'kill $! 2>/dev/null; exit 0' TERM
		sleep $((limit - 10)) &
		wait $! && stuck_snapshot "$(cat "$out/selftests/$name.pid")" \
			"$out/selftests/$name.stuck"
	} &
	wd=$!
	(echo "$BASHPID" >"$out/selftests/$name.pid"; cd "$dir" &&
		TESTS=$cases ER2BC_SUITE=$name ER2BC_CASE_TIMES=$out/case-times \
			exec timeout "$limit" "./$prog") 2>&1 |
		tee "$log" | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	kill "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
	rm -f "$out/selftests/$name.pid"
	echo "$rc" >"$out/selftests/$name.rc"
	forks=$(( $(awk '$1 == "processes" { print $2 }' /proc/stat) - forks ))
	echo "# $name: exit $rc after $(( $(date +%s) - start ))s, $forks processes"
}

items=()
if [ -d /sys/kernel/debug/kunit ] && [ "$kunit" = yes ]; then
	items+=(kunit)
elif [ "$kunit" = yes ]; then
	echo "# this kernel has no KUnit: the KUnit suites run on the debug kernel"
fi
for dir in "$top"/selftests/*/; do
	for prog in $(sed -n 's/^TEST_PROGS *:= *//p' "$dir/Makefile" 2>/dev/null); do
		name=$(basename "$dir")/${prog%.sh}
		wanted "$name" && items+=("$name")
	done
done

queue=${ER2BC_QUEUE:-}
if [ -n "$queue" ]; then
	mkdir -p "$queue/claimed"
	printf '%s\n' "${items[@]}" >"$queue/items"
	# the queue's order first, then the rest in the tree's order
	mapfile -t items < <({ grep -Fx -f "$queue/items" "$queue/order" 2>/dev/null
		printf '%s\n' "${items[@]}"; } | awk '!seen[$0]++')
fi
for item in "${items[@]}"; do
	if [ -n "$queue" ] && ! mkdir "$queue/claimed/${item//\//:}" 2>/dev/null; then
		continue
	fi
	case $item in
	kunit) run_kunit ;;
	*) run_selftest "$item" ;;
	esac
done

# --- unload: refcounts must have dropped back. A namespace deleted by the
# last case is torn down by a workqueue after `ip netns del` returns, and
# its qdiscs hold the module until then (rmmod found sch_er2bc in use right
# after er2bc_classes:lending, 6.12): up to 30 s for the count to reach 0.
# A reference that leaked never does.
ok=1
for m in tcp_rcvmgr sch_er2bc; do
	if grep -q "^$m " /proc/modules; then
		for _ in $(seq 300); do
			[ "$(cat "/sys/module/$m/refcnt" 2>/dev/null)" = 0 ] && break
			sleep 0.1
		done
		rmmod "$m" || { ok=0; echo "# $m: refcnt $(cat "/sys/module/$m/refcnt" 2>/dev/null) 30 s after the last case"; }
	fi
done
[ $ok = 1 ] && harness PASS "modules unload" || harness FAIL "modules unload"

if flags_check --watch 1; then
	harness PASS "no vCPU's RFLAGS has reserved bits after the tests"
else
	harness FAIL "no vCPU's RFLAGS has reserved bits after the tests"
fi

# --- leaks (objects younger than 5 s are not reported yet)
if [ -w $kmemleak ]; then
	sleep 5
	start=$SECONDS
	echo scan >$kmemleak
	echo scan >$kmemleak
	echo "# kmemleak: the two scans after the tests took $((SECONDS - start))s"
	cat $kmemleak >"$out/kmemleak.txt"
	if [ -s "$out/kmemleak.txt" ]; then
		sed 's/^/# /' "$out/kmemleak.txt" | head -n 60
		harness FAIL "kmemleak: no unreferenced objects"
	else
		harness PASS "kmemleak: no unreferenced objects"
	fi
fi

dmesg >"$out/dmesg.txt"
echo "$(uname -r)" >"$out/suite-done"
