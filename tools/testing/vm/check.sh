#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: install what the tests need, build the tools, checkpatch and
# sparse (make lint), the tools' host tests, then for each kernel build the
# modules warning-free (W=1), boot the kernel, run the suites in the guest,
# judge what the guest recorded against tools/testing/manifest (verdict.py)
# and scan the guest's log. Prints each stage's wall time, a line per
# kernel, whether every expected suite ran, and last
# `total: N passed, N failed[, N skipped]`; exits non-zero on any failure.
#
#   check.sh [-T FILTER] KVER...
#
# The environment may replace parts, for the harness's own test
# (tools/testing/test-check.sh): ER2BC_CHECK_REPORT (where the logs go,
# default build/check), ER2BC_CHECK_SETUP=0 (no deps, tools, lint or host
# stage, and the debug kernel is not built ahead: with the real runner it
# would be built beside a guest), ER2BC_BUILD (the module build), ER2BC_RUN
# (the VM runner), ER2BC_MANIFEST. ER2BC_CHECK_SERIAL=1 runs the kernels
# one after another.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
. "$here/common.sh"

build_modules=${ER2BC_BUILD:-$top/tools/testing/build-modules.sh}
run_vm=${ER2BC_RUN:-$here/run.sh}
setup=${ER2BC_CHECK_SETUP:-1}
verdict() { python3 "$here/verdict.py" "$@"; }

filter=
kernels=()
while [ $# -gt 0 ]; do
	case $1 in
	-T) filter=${2:?-T needs a filter}; shift 2 ;;
	*) kernels+=("$1"); shift ;;
	esac
done
[ ${#kernels[@]} -gt 0 ] || kernels=(6.1 6.12 debug trixie-bpo)

total_p=0 total_f=0 total_s=0 all_ran=1
t_start=$(date +%s)
# the first debug guest's time limit (boot), when it runs alone; beside
# the others, the debug guests end by debug_end seconds into the run: CI
# gives up at 90 minutes (5,400 s), and the verdict and summary need
# seconds (CI's run of stop 43 ended 1 s after the deadline): 150 s left
debug_limit=5100
debug_end=5250
report=${ER2BC_CHECK_REPORT:-$top/build/check}
mkdir -p "$report"
: >"$report/summary"
: >"$report/times"

# stage NAME COMMAND...: run it, its wall time in the summary's table
stage() {
	local name=$1 t0 rc
	shift
	t0=$(date +%s)
	"$@"
	rc=$?
	echo "$name $(( $(date +%s) - t0 ))" >>"$report/times"
	return $rc
}

# abort MESSAGE: a stage every kernel needs failed; nothing else can run
abort() {
	echo "check: $1" >&2
	echo "total: 0 passed, 1 failed"
	exit 1
}

# the stages' wall times; the debug kernel's build and VM run overlap the
# others', so the whole run is less than their sum
print_times() {
	echo "=== time per stage (s)"
	awk '{ printf "  %-22s %6d\n", $1, $2 }' "$report/times"
	printf '  %-22s %6d\n' "whole run" $(( $(date +%s) - t_start ))
	# where the guests' time went: the longest checks (guest-suite.sh)
	local f k
	for f in "$report"/*/vm*/case-times; do
		[ -e "$f" ] || continue
		k=${f#"$report"/}
		awk -F '\t' -v k="${k%%/*}" '{ printf "%d\t%s\t%d\t%s %d: %s\n", $3 / 1000, k, $4, $1, $2, $5 }' "$f"
	done | sort -rn | head -n 12 | awk -F '\t' 'NR == 1 {
			print "=== the longest checks (seconds and processes since the check before)" }
		{ printf "  %5d  %-6s %5d  %s\n", $1, $2, $3, substr($4, 1, 84) }'
}

if [ "$setup" = 1 ]; then
	echo "=== deps"
	stage deps "$top/tools/testing/setup-deps.sh" || abort "the packages could not be installed"
	echo "=== tools"
	stage tools make -s -C "$top" tools || abort "the tools did not build"
	# the kernel's own YNL CLI, for the guests' tests of the specs
	# (selftests/lib.sh, ynl_cli): where it is, in build/ynl
	mkdir -p "$top/build"
	"$top/tools/testing/ynl-gen.sh" --cli >"$top/build/ynl" ||
		abort "the kernel's YNL tools could not be extracted"
fi

# a filter must select something, on the kernels asked for: kernels where
# it selects nothing are not booted
if [ -n "$filter" ]; then
	chosen=()
	for k in "${kernels[@]}"; do
		if verdict list --kver "$k" --filter "$filter" >/dev/null; then
			chosen+=("$k")
		else
			echo "=== $k: no test matches '$filter', not booted"
		fi
	done
	[ ${#chosen[@]} -gt 0 ] ||
		abort "no test matches '$filter' on ${kernels[*]} (names in tools/testing/manifest)"
	kernels=("${chosen[@]}")
fi

# the debug kernel's build (once, about 12 minutes of two CPUs) starts
# now, beside the lint and host stage below and then beside the Debian
# kernels' guests, at the lowest priority: it takes the CPU they leave
# (half of it: their suites sleep), without taking it from their rates.
# Its exit status in $report/debug-kernel.rc, for the debug lane
# put_rc FILE STATUS: STATUS in FILE whole or not at all (read by a poller)
put_rc() { echo "$2" >"$1.tmp" && mv "$1.tmp" "$1"; }
# await FILE PID: until FILE has something in it or PID (which writes it)
# is gone
await() { while [ ! -s "$1" ] && kill -0 "$2" 2>/dev/null; do sleep 5; done; }
# a full run: the stages that do not depend on the kernels (lint, the
# host tests, the in-tree build, the packages) run too; not for the KCSAN
# kernel alone (make check-kcsan), whose guest is the run
full=0
[ -z "$filter" ] && [ "$setup" = 1 ] && [ "${kernels[*]}" != kcsan ] && full=1
# intree: the modules in a kernel tree, W=1 C=1 there, and the series'
# checkpatch (tools/intree/series.sh; a prepared tree is cached), about
# 5 minutes of a CPU on a fresh machine. After the debug kernel's build,
# at its priority, where there is one: ahead of it, even at nice 10, it
# put off the debug guests, the run's longest lane, by as much. Its exit
# status in $report/intree.rc, judged at the end of the run
# (bounded by the debug guests' deadline, debug_end above, so that it
# cannot hold the run past CI's limit)
intree() {
	stage intree timeout $((t_start + debug_end - $(date +%s))) \
		nice -n 19 "$top/tools/intree/series.sh" "$top/build/intree" >"$report/intree.log" 2>&1
	put_rc "$report/intree.rc" $?
}
dk_pid= intree_pid=
rm -f "$report/debug-kernel.rc" "$report/deb.rc" "$report/deb.out" "$report/intree.rc" \
	"$report/deb-trixie.rc" "$report/deb-trixie.out"
if [ "$setup" = 1 ] && [[ " ${kernels[*]} " == *" debug "* ]]; then
	{
		stage debug-kernel nice -n 19 "$here/kernels.sh" image debug
		put_rc "$report/debug-kernel.rc" $?
		[ $full = 1 ] && intree
	} >"$report/debug-kernel.log" 2>&1 &
	dk_pid=$!
	intree_pid=$dk_pid
elif [ $full = 1 ]; then
	intree &
	intree_pid=$!
fi
# side_verdict NAME OK LOG LINES: the verdict of a stage run beside the
# others (OK 1 if it passed), its log's last LINES lines shown (40 on a
# failure)
side_verdict() {
	echo "=== $1 (log: $3)"
	if [ "$2" = 1 ]; then
		tail -n "$4" "$3"
		echo "$1: 1 passed, 0 failed" | tee -a "$report/summary"
		total_p=$((total_p + 1))
	else
		tail -n 40 "$3"
		echo "$1: 0 passed, 1 failed" | tee -a "$report/summary"
		total_f=$((total_f + 1))
	fi
}
# style and static checks, and the tools' own tests on the host (no kernel
# needed), once for all kernels (a full run only); lint beside the host
# tests, each mostly one CPU's work
if [ $full = 1 ]; then
	echo "=== lint and host tests, side by side"
	stage lint "$top/tools/testing/lint.sh" >"$report/lint.log" 2>&1 &
	lint_pid=$!
	t0=$(date +%s)
	"$top/tools/testing/host-tests.sh" "$report" >"$report/host.out"
	cat "$report/host.out"
	grep '^FAIL host ' "$report/host.out" >>"$report/summary"
	echo "host $(( $(date +%s) - t0 ))" >>"$report/times"
	grep '^host: ' "$report/host.out" >>"$report/summary"
	host_p=$(sed -n 's/^host: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$report/host.out")
	host_f=$(sed -n 's/^host: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$report/host.out")
	# (a runner that died before its count is one failure)
	host_p=${host_p:-0} host_f=${host_f:-1}
	total_p=$((total_p + host_p))
	total_f=$((total_f + host_f))
	lint_ok=0
	wait $lint_pid && lint_ok=1
	side_verdict lint $lint_ok "$report/lint.log" 1000
fi

# the Debian packages (make deb, lintian) and an image of this host with
# both installed (deb-image.sh: DKMS builds natively in a chroot, where in
# a guest under TCG it took 14-30 minutes of a CPU), for their smoke in a
# 6.12 guest of its own (test-deb.sh) once the 6.12 suites are done; then
# Debian 13's: its root (mkroot.sh: mmdebstrap, about a minute, cached),
# the packages built in it and installed into an image of it, for a guest
# of Debian 13's kernel on that root, after that (the 6.1 lane goes on
# with the newest kernel's suites: chained below). A full run only; after the
# host tests, at the lowest priority as the debug kernel's build (what it
# needs setup-deps.sh installed before any guest). Their exit statuses in
# $report/deb.rc and deb-trixie.rc, for the smokes
deb_build() {
	nice -n 19 "$top/tools/packaging/deb.sh" &&
		nice -n 19 "$top/tools/packaging/deb-image.sh" "$top/build/deb" "$top/build/deb/image"
}
deb_build_trixie() {
	local root
	root=$(nice -n 19 "$here/mkroot.sh" trixie) &&
		nice -n 19 "$top/tools/packaging/deb.sh" trixie &&
		nice -n 19 "$top/tools/packaging/deb-image.sh" --root "$root" \
			"$top/build/deb-trixie" "$top/build/deb-trixie/image"
}
deb_pid= trixie_lane=
if [ $full = 1 ] && [[ " ${kernels[*]} " == *" 6.12 "* ]]; then
	trixie_lane=6.12
	{
		stage deb deb_build
		put_rc "$report/deb.rc" $?
		stage deb-trixie deb_build_trixie
		put_rc "$report/deb-trixie.rc" $?
		# the newest kernel's root, for its build in the 6.1 lane
		# (mkroot.sh waits for a build under way: one at a time)
		if [[ " ${kernels[*]} " == *" trixie-bpo "* ]]; then
			stage root-trixie-bpo nice -n 19 "$here/mkroot.sh" trixie-bpo >/dev/null
		fi
	} >"$report/deb-build.log" 2>&1 &
	deb_pid=$!
fi

# build_kernel KVER: the modules, W=1, for KVER; their directory in
# $report/KVER/mods, the build's verdict in $report/KVER/results
build_kernel() {
	local kver=$1 out=$report/$1 mods t0
	rm -rf "$out"
	mkdir -p "$out"
	: >"$out/results"
	: >"$out/times"
	echo "=== $kver"
	t0=$(date +%s)
	if ! mods=$("$build_modules" "$kver" W=1 2>"$out/build.log"); then
		tail -n 30 "$out/build.log"
		echo "FAIL build # see $out/build.log" >>"$out/results"
		echo "$kver-build $(( $(date +%s) - t0 ))" >>"$out/times"
		return 1
	fi
	if grep -E 'warning:|error:' "$out/build.log" | grep -v '^make' | grep -q .; then
		grep -E -A3 'warning:|error:' "$out/build.log"
		echo "FAIL build W=1 without warnings" >>"$out/results"
	else
		echo "PASS build W=1 without warnings" >>"$out/results"
	fi
	echo "$mods" >"$out/mods"
	echo "$kver-build $(( $(date +%s) - t0 ))" >>"$out/times"
}


# boot KVER VM [QUEUE [LIMIT]]: boot KVER with the modules build_kernel
# left, run the suites (those of QUEUE not yet claimed, when given), the
# guest's exit status in VM/rc; LIMIT seconds instead of the kernel's
boot() {
	local kver=$1 vm=$2 queue=${3:-} out=$report/$1 t0 rc limit=3600 kunit=yes only
	# a Debian kernel's suites beside two other guests: 2401 s were not
	# enough for either on 2026-12-02 (both stopped in their last suite),
	# 60 minutes bound a hung one. KASAN, lockdep and kmemleak under TCG,
	# alone: 85 minutes, short of CI's 90, bound a hung one (beside the
	# others, the first debug guest takes suites until none is left,
	# about the whole run, and debug_lane gives the limit)
	[ "$kver" = debug ] && limit=$debug_limit
	limit=${4:-$limit}
	# the kernel chained after 6.1's suites starts late: bound by the
	# run's deadline, as the debug guests are (run_chained leaves it out
	# with less than 300 s)
	if [ "$kver" = "$chained" ] && [ $((t_start + debug_end - $(date +%s))) -lt "$limit" ]; then
		limit=$((t_start + debug_end - $(date +%s)))
	fi
	if [ -n "$filter" ] && ! verdict list --kver "$kver" --filter "$filter" | grep '^kunit/' >/dev/null; then
		kunit=no
	fi
	# the KCSAN kernel and trixie-bpo run only the suites the manifest
	# gives them (the others run every suite of the tree: one the manifest
	# does not list fails)
	only=
	if [ "$kver" = kcsan ] || [ "$kver" = trixie-bpo ]; then
		only=$out/suites
		verdict list --kver "$kver" >"$only"
	fi
	t0=$(date +%s)
	"$run_vm" -k "$kver" -o "$vm" -t "$limit" ${queue:+-q "$queue"} -- \
		"$here/guest-suite.sh" "$(cat "$out/mods")" "$filter" "$kunit" ${only:+"$only"}
	rc=$?
	echo $rc >"$vm/rc"
	echo "$kver-$(basename "$vm") $(( $(date +%s) - t0 ))" >>"$out/times"
	# and the host CPU it took (run.sh): what the two CPUs were not used for
	[ -s "$vm/cpu-seconds" ] &&
		echo "$kver-$(basename "$vm")-cpu $(cut -d. -f1 "$vm/cpu-seconds")" >>"$out/times"
	echo "# $kver: $(basename "$vm") ran $(( $(date +%s) - t0 ))s, guest exit $rc"
}

# guest_rc VM: the guest's exit status, 125 if it recorded none (run.sh:
# a panic or the time limit)
guest_rc() {
	cat "$1/rc" 2>/dev/null || echo 125
}

# scanned KVER: of a guest's log on stdin, the kernel's lines the log
# scan reads: on the KCSAN kernel, not its data races, which are judged
# apart (judge_kernel)
scanned() {
	if [ "$1" = kcsan ]; then
		kernel_lines | kcsan_split rest
	else
		kernel_lines
	fi
}

# fault_report KVER VM...: for the summary, since CI shows only the end of the
# output: the first report in the guests' logs, from the first log that
# has one, and the log it came from; else, for each guest that did not
# finish, where its console ended
fault_report() {
	local kver=$1 vm log lines
	shift
	for vm in "$@"; do
		for log in "$vm/console.log" "$vm/dmesg.txt"; do
			[ -s "$log" ] || continue
			lines=$(scanned "$kver" <"$log" | fault_lines)
			if [ -n "$lines" ]; then
				echo "$lines" | sed "s|^|guest log ($(basename "$vm")/$(basename "$log")): |"
				return
			fi
		done
	done
	for vm in "$@"; do
		[ "$(guest_rc "$vm")" = 125 ] || continue
		echo "$(basename "$vm") did not finish; its console's last lines:"
		[ -f "$vm/console.log" ] && tr -d '\r' <"$vm/console.log" | tail -n 5 | sed 's/^/  /'
	done
}

# judge_kernel KVER VM...: what KVER's guests recorded, against the
# manifest, and their logs, scanned; the results in $report/KVER/results
judge_kernel() {
	local kver=$1 res=$report/$1/results args=() vm hits
	shift
	for vm in "$@"; do
		args+=(--out "$vm" --rc "$(guest_rc "$vm")")
	done
	verdict judge --kver "$kver" "${args[@]}" --filter "$filter" >>"$res" ||
		echo "FAIL verdict # verdict.py could not judge $*" >>"$res"
	for vm in "$@"; do cat "$vm/console.log" "$vm/dmesg.txt" 2>/dev/null; done |
		kernel_lines >"$report/$kver/kernel.log"
	# the KCSAN kernel: a data race in the modules fails; the kernel's own
	# are listed (kcsan-elsewhere), not judged, and neither is scanned
	# below (KCSAN's title is a BUG:)
	if [ "$kver" = kcsan ]; then
		kcsan_split reports <"$report/$kver/kernel.log" | sort -u >"$report/$kver/kcsan"
		grep $'^elsewhere\t' "$report/$kver/kcsan" | cut -f2 >"$report/$kver/kcsan-elsewhere"
		sed 's/^/# KCSAN, in the kernel, not judged: /' "$report/$kver/kcsan-elsewhere"
		hits=$(grep $'^ours\t' "$report/$kver/kcsan" | cut -f2)
		if [ -n "$hits" ]; then
			echo "$hits" | sed 's/^/# KCSAN, in the modules: /'
			echo "FAIL no data race in the modules (KCSAN)" >>"$res"
		else
			echo "PASS no data race in the modules (KCSAN)" >>"$res"
		fi
	fi
	hits=$(scanned "$kver" <"$report/$kver/kernel.log" | grep -E "$bad_log" | head -n 20)
	if [ -n "$hits" ]; then
		echo "$hits" | sed 's/^/# guest log: /'
		echo "FAIL guest log free of warnings, BUGs, lockdep and KASAN reports" >>"$res"
	else
		echo "PASS guest log free of warnings, BUGs, lockdep and KASAN reports" >>"$res"
	fi
	fault_report "$kver" "$@" >"$report/$kver/fault"
	grep -E '^(FAIL|SKIP)' "$res" | sed 's/^/# /'
}

# run_kernel KVER [QUEUE]: build, boot and judge KVER in one guest, or
# with QUEUE, build and boot the first of the guests that share it; after
# 6.12's, the packages' smoke, and Debian 13's (deb_smoke); after 6.1's,
# the kernel chained to it (below)
run_kernel() {
	build_kernel "$1" || return
	boot "$1" "$report/$1/vm" "${2:-}"
	[ -n "${2:-}" ] || judge_kernel "$1" "$report/$1/vm"
	[ "$1" = 6.12 ] && [ -n "$deb_pid" ] && deb_smoke 6.12 6.12
	[ "$1" = "$trixie_lane" ] && [ -n "$deb_pid" ] && deb_smoke trixie "$1"
	[ "$1" = 6.1 ] && [ -n "$chained" ] && run_chained
	return 0
}

# run_chained: the chained kernel, if the run's deadline leaves it time
# (its "not run" result stays otherwise)
run_chained() {
	local left=$((t_start + debug_end - $(date +%s)))
	if [ "$left" -lt 300 ]; then
		echo "FAIL $chained # not run: ${left}s left before the run's deadline" \
			>"$report/$chained/results"
		return
	fi
	run_kernel "$chained"
}

# deb_name KVER: the name of KVER's smoke in the report: deb (the host's
# packages, on 6.12) or deb-trixie
deb_name() { if [ "$1" = trixie ]; then echo deb-trixie; else echo deb; fi; }

# deb_smoke KVER LANE: the image's install applied to a fresh KVER guest
# with its headers, a short smoke, the packages removed (test-deb.sh); its
# TAP in $report/NAME.out, its time in LANE's
deb_smoke() {
	local k=$1 name t0 deb_rc
	name=$(deb_name "$k")
	t0=$(date +%s)
	await "$report/$name.rc" "$deb_pid"
	deb_rc=$(cat "$report/$name.rc" 2>/dev/null || echo 1)
	if [ "$deb_rc" != 0 ]; then
		tail -n 20 "$report/deb-build.log"
		echo "not ok - the packages or their image for $k failed: see $report/deb-build.log" \
			>"$report/$name.out"
		return
	fi
	echo "=== $k: the packages' smoke (log: $report/$name.out)"
	ER2BC_DEB_REPORT=$report/deb "$top/tools/packaging/test-deb.sh" --prebuilt "$k" \
		>"$report/$name.out" 2>&1
	echo "$name-$k-vm $(( $(date +%s) - t0 ))" >>"$report/$2/times"
}

# count_deb [KVER]: a smoke's line in the summary, its counts in the totals
count_deb() {
	local k=${1:-6.12} name p f
	[ -n "$deb_pid" ] || return 0
	name=$(deb_name "$k")
	p=$(grep -c "^${k//./\\.}: ok " "$report/$name.out" 2>/dev/null)
	f=$(grep -c 'not ok' "$report/$name.out" 2>/dev/null)
	grep 'not ok' "$report/$name.out" 2>/dev/null | sed "s/^/# $name: /" | tee -a "$report/summary"
	if ! grep -q "^${k//./\\.}: 1\\.\\." "$report/$name.out" 2>/dev/null; then
		echo "# $name: FAIL the smoke did not finish its plan (see $report/$name.out)" |
			tee -a "$report/summary"
		f=$((f + 1))
	fi
	echo "$name: ${p:-0} passed, $f failed" | tee -a "$report/summary"
	total_p=$((total_p + ${p:-0})) total_f=$((total_f + f))
	[ "$k" = trixie ] || [ -z "$trixie_lane" ] || count_deb trixie
}

# count KVER: its line in the summary, its counts added to the totals
count() {
	local kver=$1 res=$report/$1/results p f s line suites accel
	cat "$report/$kver/times" >>"$report/times" 2>/dev/null
	# the failures again in the summary, with their reasons: CI shows only
	# the end of the output
	grep '^FAIL' "$res" | sed "s/^/# $kver: /" | tee -a "$report/summary"
	[ -s "$report/$kver/fault" ] && sed "s/^/# $kver: /" "$report/$kver/fault" |
		tee -a "$report/summary"
	p=$(grep -c '^PASS' "$res")
	f=$(grep -c '^FAIL' "$res")
	s=$(grep -c '^SKIP' "$res")
	line="$p passed, $f failed"
	[ "$s" -gt 0 ] && line+=", $s skipped"
	# "# suites: N of M expected ran as listed[; unlisted: ...]" (verdict.py)
	suites=$(sed -n 's/^# suites: //p' "$res")
	[[ "$suites" =~ ^([0-9]+)\ of\ ([0-9]+)\ expected ]] &&
		[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] && [[ "$suites" != *unlisted* ]] ||
		all_ran=0
	line+=" (${suites:-no suites judged})"
	# how its guests ran (run.sh): KVM, where it works, or TCG
	accel=$(cat "$report/$kver"/vm*/accel 2>/dev/null | sort -u | paste -sd, -)
	echo "$kver${accel:+ ($accel)}: $line" | tee -a "$report/summary"
	total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + s))
}

# A guest under TCG runs its vCPUs on one host thread (run.sh), which the
# suites leave idle about half the time on Debian's kernels (their timers,
# sleeps and the estimator's intervals; `*-cpu` in the time table: the 6.1
# guest took 454 s of CPU in 949 s on 2026-11-28) and a fifth on the debug
# kernel. So with two CPUs the Debian kernels boot side by side as soon as
# the host stage is done, beside the rest of the debug kernel's build; the
# debug kernel, the longest run, boots beside them once built, three
# guests on two CPUs; then, as each of the Debian lanes ends, another
# debug guest takes the debug suites the first has not reached (a queue
# the guests share: guest-suite.sh), so that three guests run until the
# debug suites are done and no CPU waits for another. Each kernel's
# output comes when its guests are done (6.1's and 6.12's once both are).
# ER2BC_CHECK_SERIAL=1 runs every kernel in turn, in one guest each.
background=
if [ "$(nproc)" -ge 2 ] && [ -z "${ER2BC_CHECK_SERIAL:-}" ] && [ ${#kernels[@]} -gt 1 ] &&
	[[ " ${kernels[*]} " == *" debug "* ]]; then
	background=debug
fi
# trixie-bpo (the newest kernel Debian offers: the suites that drive the
# kernel's interfaces, tools/testing/manifest) follows the 6.1 suites in
# their lane, rather than a fourth guest beside three: the timing checks
# of the Debian kernels allow no "machine slow" skip
chained=
if [ -n "$background" ] && [[ " ${kernels[*]} " == *" trixie-bpo "* ]] &&
	[[ " ${kernels[*]} " == *" 6.1 "* ]]; then
	chained=trixie-bpo
	# (what it reports if 6.1's lane stops before it: no result of an
	# earlier run read as this one's)
	rm -rf "${report:?}/$chained"
	mkdir -p "$report/$chained"
	echo "FAIL $chained # not run: 6.1's lane stopped before it (see $report/6.1.log)" \
		>"$report/$chained/results"
fi
if [[ " ${kernels[*]} " == *" debug "* ]] && [ "$setup" = 1 ] && [ -z "$background" ]; then
	# one kernel at a time: the debug kernel before its guest
	echo "=== debug kernel"
	if [ -n "$dk_pid" ]; then
		# (its rc, not the job: the job goes on with intree)
		await "$report/debug-kernel.rc" "$dk_pid"
		[ "$(cat "$report/debug-kernel.rc" 2>/dev/null)" = 0 ]
	else
		stage debug-kernel "$here/kernels.sh" image debug >"$report/debug-kernel.log" 2>&1
	fi || { tail -n 30 "$report/debug-kernel.log"; abort "the debug kernel did not build"; }
fi
# debug_lane: the first debug guest, once its kernel and modules are
# built (the kernel at once if nothing builds it here), until debug_end
# seconds into the run: the queue's deadline, which the guests that
# follow it share (more_debug), written once its modules are there
debug_lane() {
	local left
	if [ -n "$dk_pid" ]; then
		await "$report/debug-kernel.rc" "$dk_pid"
		if [ "$(cat "$report/debug-kernel.rc" 2>/dev/null)" != 0 ]; then
			tail -n 30 "$report/debug-kernel.log"
			rm -rf "$report/debug"
			mkdir -p "$report/debug"
			echo "FAIL debug kernel # it did not build: see $report/debug-kernel.log" \
				>"$report/debug/results"
			put_rc "$queue/deadline" none
			return 1
		fi
	fi
	if ! build_kernel debug; then
		put_rc "$queue/deadline" none
		return 1
	fi
	put_rc "$queue/deadline" $((t_start + debug_end))
	left=$((t_start + debug_end - $(date +%s)))
	if [ "$left" -lt 300 ]; then
		echo "FAIL guest # the debug kernel was ready with ${left}s left before the run's deadline" \
			>>"$report/debug/results"
		return 1
	fi
	boot debug "$report/debug/vm" "$queue" "$left"
}
queue=$report/debug-queue
rm -rf "$queue"
if [ -n "$background" ]; then
	mkdir -p "$queue"
	# the suites' order in the queue, the longest on the debug kernel first
	# (measured in make check), so that what is left for the last one to
	# take is short; a suite not named here goes after them (seconds on
	# 2026-12-07, three debug guests, the suites written case by case:
	# windows 955, classes 454, estimator 411, safety 307, ctrl 283,
	# rcvmgr_safety 282, latency 282, probe 263, trust 243, scavenger
	# 177, rate 176, hooks 174, elastic 154, basic 143, errors 128)
	printf '%s\n' tcp_rcvmgr/rcvmgr_windows sch_er2bc/er2bc_classes \
		sch_er2bc/er2bc_estimator sch_er2bc/er2bc_safety sch_er2bc/er2bc_ctrl \
		tcp_rcvmgr/rcvmgr_safety sch_er2bc/er2bc_latency sch_er2bc/er2bc_probe \
		sch_er2bc/er2bc_trust sch_er2bc/er2bc_scavenger sch_er2bc/er2bc_rate \
		tcp_rcvmgr/rcvmgr_hooks sch_er2bc/er2bc_elastic sch_er2bc/er2bc_basic \
		sch_er2bc/er2bc_errors \
		kunit >"$queue/order"
	debug_lane >"$report/debug.log" 2>&1 &
	bg_pid=$!
	echo "=== debug: in the background, beside the others once built (log: $report/debug.log)"
fi
others=()
for kver in "${kernels[@]}"; do
	[ "$kver" = "$background" ] || [ "$kver" = "$chained" ] || others+=("$kver")
done
# more_debug N: debug guest N for what the others have not taken
# (unclaimed: all of it, if the first has not listed its items yet), in
# the background, bound by the first debug guest's deadline (a late guest
# gets what is left until the deadline, not all of it again); none if
# nothing is left
more_pids=()
more_vms=()
more_debug() {
	local unclaimed left deadline
	# (the first debug guest's modules built, or its lane given up)
	await "$queue/deadline" "$bg_pid"
	deadline=$(cat "$queue/deadline" 2>/dev/null)
	[[ "$deadline" =~ ^[0-9]+$ ]] || return 0
	left=$((deadline - $(date +%s)))
	unclaimed=$( { cat "$queue/items" 2>/dev/null || echo '?'; } | while read -r item; do
		[ -d "$queue/claimed/${item//\//:}" ] || echo "$item"; done)
	if [ -s "$report/debug/mods" ] && [ -n "$unclaimed" ] && [ "$left" -gt 300 ]; then
		echo "=== debug: guest $1 for what the others have not taken"
		boot debug "$report/debug/vm$1" "$queue" "$left" >"$report/debug-vm$1.log" 2>&1 &
		more_pids+=($!)
		more_vms+=("$report/debug/vm$1")
	fi
}
if [ -n "$background" ] && [ ${#others[@]} -gt 1 ]; then
	pids=()
	for kver in "${others[@]}"; do
		run_kernel "$kver" >"$report/$kver.log" 2>&1 &
		pids+=($!)
		echo "=== $kver: side by side (log: $report/$kver.log)"
	done
	# the first lane done (6.12's goes on with the packages' smoke), a
	# second debug guest takes its CPU; the second lane done, a third: the
	# debug suites are the run's longest, and three guests keep two CPUs
	# busy where two leave a third of them idle (the guests' own idle time)
	wait -n "${pids[@]}"
	more_debug 2
	wait "${pids[@]}"
	more_debug 3
	for i in "${!others[@]}"; do
		cat "$report/${others[$i]}.log"
		count "${others[$i]}"
	done
else
	for kver in "${others[@]}"; do
		run_kernel "$kver"
		count "$kver"
	done
	[ -n "$background" ] && more_debug 2
fi
[ -z "$chained" ] || count "$chained"
count_deb
if [ -n "$background" ]; then
	vms=("$report/debug/vm")
	for i in "${!more_pids[@]}"; do
		wait "${more_pids[$i]}"
		cat "$report/debug-$(basename "${more_vms[$i]}").log"
		vms+=("${more_vms[$i]}")
	done
	wait $bg_pid
	cat "$report/debug.log"
	[ -s "$report/debug/mods" ] && judge_kernel debug "${vms[@]}"
	count debug
fi

if [ $full = 1 ]; then
	await "$report/intree.rc" "$intree_pid"
	side_verdict intree "$([ "$(cat "$report/intree.rc" 2>/dev/null)" = 0 ] && echo 1)" \
		"$report/intree.log" 1
fi
print_times
echo "=== summary (logs under $report)"
cat "$report/summary"
# (the table above, on a line: CI shows only the end of the output)
echo "# seconds: $(awk '{ printf "%s %s, ", $1, $2 }' "$report/times")whole run $(( $(date +%s) - t_start ))"
if [ $all_ran = 1 ]; then
	echo "all expected suites ran"
else
	echo "NOT all expected suites ran (see the FAIL lines above)"
fi
line="$total_p passed, $total_f failed"
[ "$total_s" -gt 0 ] && line+=", $total_s skipped"
echo "total: $line"
[ "$total_f" -eq 0 ] && [ "$total_p" -gt 0 ] && [ $all_ran = 1 ]
