#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: checkpatch and sparse (make lint), then for each kernel build
# the modules warning-free (W=1), boot the kernel, run the suites in the
# guest and scan the guest's log; print a line per kernel and the total,
# `N passed, N failed[, N skipped]`.
#
#   check.sh [-T FILTER] KVER...
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
. "$here/common.sh"

filter=
if [ "${1:-}" = -T ]; then
	filter=$2
	shift 2
fi
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(6.1 6.12 debug)

# What a guest must never print. A warning or worse anywhere in the log
# fails the kernel's run, wherever it came from.
bad_log='(WARNING:|BUG:|Oops|Kernel panic|general protection fault|UBSAN:|KASAN:|'
bad_log+='possible recursive locking|possible circular locking|inconsistent lock state|'
bad_log+='suspicious RCU usage|refcount_t:|rcu: INFO: .* detected stalls|'
bad_log+='unreferenced object|list_(add|del) corruption|sleeping function called from invalid context)'

total_p=0 total_f=0 total_s=0
report=$top/build/check
mkdir -p "$report"
: >"$report/summary"

# style and static checks, once for all kernels (a full run only)
if [ -z "$filter" ]; then
	echo "=== lint"
	if "$top/tools/testing/lint.sh"; then
		echo "lint: 1 passed, 0 failed" | tee -a "$report/summary"
		total_p=1
	else
		echo "lint: 0 passed, 1 failed" | tee -a "$report/summary"
		total_f=1
	fi
	# the tools' own tests, on the host (no kernel needed): one each
	echo "=== host"
	: >"$report/host.log"
	host_p=0 host_f=0
	for tool in er2bcctl abwd; do
		if make -s -C "$top/tools/$tool" check >"$report/host-$tool.log" 2>&1; then
			host_p=$((host_p + 1))
		else
			echo "# host: tools/$tool check failed (log: $report/host-$tool.log)"
			tail -n 20 "$report/host-$tool.log"
			host_f=$((host_f + 1))
		fi
		cat "$report/host-$tool.log" >>"$report/host.log"
	done
	echo "host: $host_p passed, $host_f failed" | tee -a "$report/summary"
	total_p=$((total_p + host_p))
	total_f=$((total_f + host_f))
fi

# run_kernel KVER: build the modules W=1, boot KVER, run the suites, scan
# the guest's log; its results in build/check/KVER/host-results
run_kernel() {
	local kver=$1 out=$report/$1 res mods t0 t1 rc hits limit=2400
	# KASAN, lockdep and kmemleak under TCG: the suites took over 2400 s in CI
	[ "$kver" = debug ] && limit=3600
	res=$out/host-results
	rm -rf "$out"
	mkdir -p "$out"
	: >"$res"
	echo "=== $kver"

	t0=$(date +%s)
	if mods=$("$top/tools/testing/build-modules.sh" "$kver" W=1 2>"$out/build.log"); then
		if grep -E 'warning:|error:' "$out/build.log" | grep -v '^make' | grep -q .; then
			grep -E -A3 'warning:|error:' "$out/build.log"
			echo "FAIL build W=1 without warnings" >>"$res"
		else
			echo "PASS build W=1 without warnings" >>"$res"
		fi
		t1=$(date +%s)
		"$here/run.sh" -k "$kver" -o "$out/vm" -t "$limit" -- \
			"$here/guest-suite.sh" "$mods" "$filter"
		rc=$?
		echo "# $kver: build $((t1 - t0))s, VM run $(( $(date +%s) - t1 ))s" | tee "$out/timing"
		if [ $rc -eq 125 ]; then
			echo "FAIL guest ran to the end (panic or timeout: see $out/vm/console.log)" >>"$res"
		fi
		[ -f "$out/vm/results" ] && cat "$out/vm/results" >>"$res"
		# kernel lines only (timestamped); the tests' own output is not scanned
		hits=$(cat "$out/vm/console.log" "$out/vm/dmesg.txt" 2>/dev/null |
			grep -E '^\[ *[0-9]+\.[0-9]+\]' | grep -E "$bad_log" | head -n 20)
		if [ -n "$hits" ]; then
			echo "$hits" | sed 's/^/# guest log: /'
			echo "FAIL guest log free of warnings, BUGs, lockdep and KASAN reports" >>"$res"
		else
			echo "PASS guest log free of warnings, BUGs, lockdep and KASAN reports" >>"$res"
		fi
	else
		tail -n 30 "$out/build.log"
		echo "FAIL build" >>"$res"
	fi
}

# count KVER: its line in the summary, its counts added to the totals
count() {
	local kver=$1 res=$report/$1/host-results p f s line
	# the failures again in the summary: CI shows only the end of the output
	grep '^FAIL' "$res" | sed "s/^/# $kver: /" | tee -a "$report/summary"
	p=$(grep -c '^PASS' "$res")
	f=$(grep -c '^FAIL' "$res")
	s=$(grep -c '^SKIP' "$res")
	line="$p passed, $f failed"
	[ "$s" -gt 0 ] && line+=", $s skipped"
	echo "$kver: $line" | tee -a "$report/summary"
	total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + s))
}

# A guest under TCG keeps one host CPU busy (run.sh: one thread for its
# vCPUs), so with two CPUs the debug kernel, the longest run, boots beside
# the others, which run one after the other; its output comes at the end.
# ER2BC_CHECK_SERIAL=1 runs every kernel in turn.
background=
if [ "$(nproc)" -ge 2 ] && [ -z "${ER2BC_CHECK_SERIAL:-}" ] && [ ${#kernels[@]} -gt 1 ] &&
	[[ " ${kernels[*]} " == *" debug "* ]]; then
	background=debug
fi
if [ -n "$background" ]; then
	# the debug kernel itself is built first (once, about 20 minutes, both
	# CPUs), not beside a guest whose rates it would disturb
	"$here/kernels.sh" image debug >/dev/null || exit 1
	run_kernel debug >"$report/debug.log" 2>&1 &
	bg_pid=$!
	echo "=== debug: in the background, beside the others (log: $report/debug.log)"
fi
for kver in "${kernels[@]}"; do
	[ "$kver" = "$background" ] && continue
	run_kernel "$kver"
	count "$kver"
done
if [ -n "$background" ]; then
	wait $bg_pid
	cat "$report/debug.log"
	count debug
fi

echo "=== summary (logs under $report)"
cat "$report/summary"
line="$total_p passed, $total_f failed"
[ "$total_s" -gt 0 ] && line+=", $total_s skipped"
echo "total: $line"
[ "$total_f" -eq 0 ] && [ "$total_p" -gt 0 ]
