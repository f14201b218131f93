#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the project's kselftests (sourced). Each test script sets up
# its own network namespaces, reports each check as a TAP line and exits
# with the kselftest codes: 0 pass, 1 fail, 4 skip.

ksft_pass=0
ksft_fail=1
ksft_skip=4

__tap_n=0
__tap_failed=0
# microseconds since boot (monotonic: tests step the wall clock; 10 ms
# steps), and the processes the kernel has forked since boot, read without
# forking one
__tap_us() {
	local key val up
	read -r up _ </proc/uptime
	__tap_now=$((10#${up//[!0-9]/} * 10000))
	while read -r key val; do
		[ "$key" = processes ] && { __tap_forks=$val; break; }
	done </proc/stat
}
__tap_forks=0
__tap_us
__tap_last=$__tap_now __tap_last_forks=$__tap_forks
NS_LIST=()

tap_begin() {
	echo "TAP version 13"
	trap tap_end EXIT
}

# tap_result RC DESCRIPTION [DETAIL]: one TAP line per check: ok for RC 0,
# SKIP for $ksft_skip, not ok for anything else. (Not the kernel's
# log_test, which reads a global RET and takes its test's name: a script
# moved between the two would misreport.)
tap_result() {
	local rc=$1 desc=$2 detail=${3:-}
	__tap_n=$((__tap_n + 1))
	if [ "$rc" -eq 0 ]; then
		echo "ok $__tap_n - $desc${detail:+ # $detail}"
	elif [ "$rc" -eq $ksft_skip ]; then
		echo "ok $__tap_n - $desc # SKIP ${detail}"
	else
		echo "not ok $__tap_n - $desc${detail:+ # $detail}"
		__tap_failed=1
	fi
	# where a suite's time goes: each check's milliseconds and processes
	# forked since the one before (a process costs 0.5 s on the debug
	# kernel), to the file the harness names (tools/testing/vm/guest-suite.sh)
	if [ -n "${ER2BC_CASE_TIMES:-}" ]; then
		__tap_us
		printf '%s\t%d\t%d\t%d\t%s\n' "${ER2BC_SUITE:-$0}" "$__tap_n" \
			$(((__tap_now - __tap_last) / 1000)) $((__tap_forks - __tap_last_forks)) \
			"$desc" >>"$ER2BC_CASE_TIMES"
		__tap_last=$__tap_now __tap_last_forks=$__tap_forks
	fi
}

# skip_tests REASON DESC...: each check DESC reported skipped, with REASON:
# a branch that cannot run its checks still reports as many as the other,
# so that the count the harness's manifest expects does not change
skip_tests() {
	local why=$1 desc
	shift
	for desc in "$@"; do
		tap_result $ksft_skip "$desc" "$why"
	done
}

# A machine too slow for checks of rate and timing: KSFT_MACHINE_SLOW=yes,
# as the kernel's selftests name it (guest-suite.sh sets it on the debug
# kernel, whose KASAN and lockdep under TCG leave the emulated CPU short
# of the traffic). There a missed timing check is reported skipped, with
# what was measured; everywhere else it fails.
machine_slow() { [ "${KSFT_MACHINE_SLOW:-}" = yes ]; }

# tap_timing_result RC DESCRIPTION [DETAIL]: tap_result for a rate or timing check
tap_timing_result() {
	if [ "$1" -ne 0 ] && [ "$1" -ne $ksft_skip ] && machine_slow; then
		tap_result $ksft_skip "$2" "machine slow, missed: ${3:-}"
	else
		tap_result "$@"
	fi
}

# measure_twice CMD [ARG...]: CMD measures a rate or a timing once, checks
# it, prints its figures and returns the check's status; a miss is
# measured once more and the second measurement decides, the first's
# figures printed after it. A host that deschedules the emulated machine
# takes time from a check that the code under test did not lose: make
# check runs three guests on two CPUs, and such a check missed by 3-9 %
# about twice a run (testing.rst, "Timing checks on a shared host"). A
# fault in the code misses both times. CMD runs in a subshell: it must
# wait for what it starts, and its variables do not come back.
measure_twice() {
	local out rc first
	out=$("$@")
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne $ksft_skip ]; then
		first=$out
		out=$("$@")
		rc=$?
		out="$out; first try missed: $first"
	fi
	printf '%s\n' "$out"
	return $rc
}

tap_end() {
	local rc=$?
	trap - EXIT
	cleanup_all_ns
	echo "1..$__tap_n"
	[ $__tap_failed -eq 1 ] && exit $ksft_fail
	exit $rc
}

skip_all() {
	echo "1..0 # SKIP $*"
	trap - EXIT
	cleanup_all_ns
	exit $ksft_skip
}

require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || skip_all "$c is not installed"
	done
}

require_module() {
	modprobe "$1" 2>/dev/null || skip_all "module $1 cannot be loaded"
}

# tests_run: the suite's cases, as the kernel's net/forwarding/lib.sh runs
# them: each function named in ALL_TESTS, or only those in TESTS (names
# separated by spaces or commas: `make check T=suite:case,case`). A case
# sets up what it needs (its namespaces, devices and qdiscs) and reports
# its checks; its namespaces go when it ends, with whatever it left in
# them. A name in TESTS that is not one of the suite's cases fails.
tests_run() {
	# (ALL_TESTS as the kernel's suites write it: a name a line)
	local -a all=($ALL_TESTS)
	local t list=${TESTS:-${all[*]}}

	# (the harness's verdict counts the results of these cases alone)
	[ -z "${TESTS:-}" ] || echo "# tests_run: only ${list//,/ }"
	for t in ${list//,/ }; do
		if [[ " ${all[*]} " != *" $t "* ]]; then
			tap_result $ksft_fail "case $t" "not a case of ${ER2BC_SUITE:-$0}: ${all[*]}"
			continue
		fi
		if ! declare -F "$t" >/dev/null; then
			tap_result $ksft_fail "case $t" "ALL_TESTS names it, but no function does"
			continue
		fi
		$t
		cleanup_all_ns
	done
}

# setup_failed [DETAIL]: in a case whose setup failed, a failed check named
# after the case; the case then returns, and the verdict finds its count
# short
setup_failed() { tap_result $ksft_fail "${FUNCNAME[1]}: setup" "$*"; }

# setup_ns NAME...: create namespaces with unique names, stored in $NAME
setup_ns() {
	local name ns r add=()
	# (names by bash alone, added in one ip: every program started costs
	# a tenth of a second or more under TCG, and this runs for each case)
	for name in "$@"; do
		# (one that is there already drawn again: NS_LIST is deleted
		# whole by cleanup_all_ns)
		while :; do
			printf -v r '%04x%02x' $RANDOM $((RANDOM & 255))
			ns="$name-$r"
			[ -e "/run/netns/$ns" ] || [[ " ${add[*]} " == *" netns add $ns "* ]] || break
		done
		add+=("netns add $ns")
		NS_LIST+=("$ns")
		eval "$name=$ns"
	done
	printf '%s\n' "${add[@]}" | ip -batch - || return 1
	for name in "$@"; do
		ip -n "${!name}" link set lo up || return 1
	done
}

cleanup_all_ns() {
	local ns pids del=()
	for ns in "${NS_LIST[@]}"; do
		pids=$(ip netns pids "$ns" 2>/dev/null)
		# shellcheck disable=SC2086 # (one pid a word)
		[ -z "$pids" ] || kill $pids 2>/dev/null
		del+=("netns del $ns")
	done
	# (-force: past one already gone, or never made)
	[ ${#del[@]} = 0 ] || printf '%s\n' "${del[@]}" | ip -force -batch - >/dev/null 2>&1
	NS_LIST=()
}

# busywait TIMEOUT_MS COMMAND...: retry until the command succeeds (bash's
# clock and sleep below: each round forks only what COMMAND forks).
# Between tries it waits 200 ms, or as long as the last try took if that
# was longer, never past the deadline: a COMMAND that forks costs up to a
# second of CPU on the debug kernel under TCG, where trying it every 100
# ms kept the guest's CPU busy for the whole wait, taken from the guests
# beside it (and make check is bound by its two CPUs: at 100 ms, once
# er2bcctl ran without ip netns exec, rcvmgr_windows polled it a third
# more often for the same waits, 597 runs against 447). A COMMAND that
# turns true before the deadline is found true by then, as before; one
# that turns true between tries is found up to one try's time later
# (busywait_fixed, a try every 100 ms, for a check that times the wait).
busywait() {
	# (names of its own: COMMAND sees these locals, bash scoping dynamically)
	local timeout_ms=$1 start now _bw_try _bw_wait _bw_frac
	shift
	now_ms_to start
	while true; do
		now_ms_to _bw_try
		"$@" && return 0
		now_ms_to now
		[ $((now - start)) -ge "$timeout_ms" ] && return 1
		_bw_wait=$((now - _bw_try))
		if [ -n "${_bw_fixed:-}" ]; then
			_bw_wait=100
		elif [ "$_bw_wait" -lt 200 ]; then
			_bw_wait=200
		fi
		[ $((now + _bw_wait)) -le $((start + timeout_ms)) ] ||
			_bw_wait=$((start + timeout_ms - now))
		printf -v _bw_frac %03d $((_bw_wait % 1000))
		sleep "$((_bw_wait / 1000)).$_bw_frac"
	done
}

# busywait_fixed TIMEOUT_MS COMMAND...: busywait, a try every 100 ms after
# the last ended whatever it costs, as busywait was: for a check that
# asserts how long the wait took
busywait_fixed() { _bw_fixed=1 busywait "$@"; }

# sleep SECONDS: bash's loadable sleep (package bash-builtins), not
# /bin/sleep: a fork and an exec cost up to seconds on the debug kernel,
# and the suites sleep hundreds of times. Not `read -t` on a pipe, as it
# was: when bash 5.2's read times out before it reads, it restores a
# signal mask it never saved (builtins/read.def), stack garbage. SIGCHLD,
# SIGTERM and others were left blocked at random in the suite's shell
# (its children start with bash's own mask): a finished background job
# was never reaped and `kill -0` found it for ever (er2bc_probe's RTNL
# case spun until the suite's limit, CI's debug run of stop 61). Without
# bash-builtins, and for anything but one plain number of seconds
# ("infinity" among them): /bin/sleep.
lib_sleep_bin=$(type -P sleep)
lib_sleep_builtin=no
enable -f /usr/lib/bash/sleep sleep 2>/dev/null && lib_sleep_builtin=yes
sleep() {
	if [ $# = 1 ] && [[ $1 =~ ^[0-9]*\.?[0-9]+$ ]] && [ $lib_sleep_builtin = yes ]; then
		builtin sleep "$1"
	else
		"$lib_sleep_bin" "$@"
	fi
}

# dummy_dev NS: dummy0 in NS, up, and IPv6 off in NS, so that only the
# test's own packets cross it (no neighbour discovery or MLD reports)
dummy_dev() {
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	printf '%s\n' "link add dummy0 type dummy" "link set dummy0 up" | ip -n "$1" -batch -
}

# veth_pair NS1 DEV1 ADDR1 NS2 DEV2 ADDR2: link two namespaces (v4 /24, v6 /64)
veth_pair() {
	ip link add "$2" netns "$1" type veth peer name "$5" netns "$4" || return 1
	printf '%s\n' "addr add $3 dev $2" "link set $2 up" | ip -n "$1" -batch - &&
		printf '%s\n' "addr add $6 dev $5" "link set $5 up" | ip -n "$4" -batch -
}

tcp_listening() { ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q .; }
udp_bound() { ip netns exec "$1" ss -Hlun "sport = :$2" | grep -q .; }

# iperf3_run CLIENT_NS SERVER_NS SERVER_ADDR ARGS...: one run, JSON on stdout
iperf3_run() {
	local cns=$1 sns=$2 addr=$3 port=5201 server rc
	shift 3
	ip netns exec "$sns" iperf3 -s -1 -p $port >/dev/null 2>&1 &
	server=$!
	busywait 5000 tcp_listening "$sns" $port || { kill $server; return 1; }
	ip netns exec "$cns" iperf3 -c "$addr" -p $port -J "$@"
	rc=$?
	wait $server
	return $rc
}

# json_num FILE KEY: the integer at KEY in FILE's JSON, the first
# '"KEY": N' (a flat object: a status file, er2bcctl -j's stats), read by
# bash itself: a python3 costs seconds of the debug kernel's one CPU, and a
# loop that polls with it slows what it waits for
json_num() {
	local line
	while IFS= read -r line; do
		[[ $line =~ \"$2\":[[:space:]]*(-?[0-9]+) ]] && { echo "${BASH_REMATCH[1]}"; return 0; }
	done <"$1"
	return 1
}

# json_get EXPR: evaluate a Python expression on the JSON document j (stdin)
# (-I -S: no site packages to look for, a third of python's start here and
# seconds of it on the debug kernel; json is in the standard library)
json_get() {
	python3 -I -S -c "import json,sys; j=json.load(sys.stdin); print($1)"
}

# ynl_cli [-n NS] SPEC ARGS...: the kernel's own YNL CLI
# (tools/net/ynl/cli.py, from linux-source-6.12: make check writes where in
# build/ynl) on the project's spec Documentation/netlink/specs/SPEC.yaml,
# against the schema its protocol names, in NS if given, answers as JSON
# (--output-json); ksft_skip if the CLI is not there (a run without make
# check's setup)
ynl_cli() {
	local spec top dir proto ns=()
	if [ "$1" = -n ]; then
		ns=(ip netns exec "$2")
		shift 2
	fi
	spec=$1
	shift
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	dir=$(cat "$top/build/ynl" 2>/dev/null)
	[ -n "$dir" ] && [ -f "$dir/tools/net/ynl/cli.py" ] || return $ksft_skip
	spec=$top/Documentation/netlink/specs/$spec.yaml
	proto=$(sed -n 's/^protocol: *//p' "$spec")
	"${ns[@]}" /usr/bin/python3 "$dir/tools/net/ynl/cli.py" --spec "$spec" \
		--schema "$dir/Documentation/netlink/$proto.yaml" --output-json "$@"
}

# within VALUE LOW HIGH: LOW <= VALUE <= HIGH (floating point; the bounds
# may be arithmetic, "$x / 2"). A VALUE that is not a number, or a bound
# with anything but numbers and arithmetic in it, is not within.
within() {
	[[ $1 =~ ^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]] &&
		[[ $2 =~ ^[-+0-9.eE*/\ ()]+$ ]] && [[ $3 =~ ^[-+0-9.eE*/\ ()]+$ ]] &&
		awk "BEGIN { exit !(($2) <= $1 && $1 <= ($3)) }" </dev/null
}

# class_stats NS DEV [EXPR]: DEV's classes as JSON keyed by classid
# (tc_class_stats.py); with EXPR, what EXPR is with them as j, as
# json_get prints it (one Python, not two)
lib_dir=$(cd "${BASH_SOURCE[0]%/*}" && pwd)
class_stats() {
	tc -netns "$1" -s class show dev "$2" |
		python3 -S "$lib_dir/tc_class_stats.py" ${3:+"$3"}
}

# dev_rate NS DEV rx|tx SECS: bit/s that DEV in NS received or sent over
# SECS, counted by the device (frames, as the qdiscs count them), sampled
# by one process so that no fork falls inside the window
dev_rate() {
	ip netns exec "$1" python3 -S - "$2" "$3" "$4" <<'EOF'
import sys, time
path = f"/sys/class/net/{sys.argv[1]}/statistics/{sys.argv[2]}_bytes"
def read():
    with open(path) as f:
        return int(f.read()), time.monotonic()
b0, t0 = read()
time.sleep(float(sys.argv[3]))
b1, t1 = read()
print((b1 - b0) * 8 / (t1 - t0))
EOF
}

# now: seconds since the epoch, with microseconds; now_ms: milliseconds.
# Bash's own clock (bash 5), not date's: an exec costs up to a second on
# the debug kernel. Its decimal point is the locale's: a dot, always.
LC_NUMERIC=C
[ -n "${EPOCHREALTIME:-}" ] || { echo "lib.sh: bash 5 or later is needed (EPOCHREALTIME)" >&2; exit 1; }
now() { echo "$EPOCHREALTIME"; }
# now_ms_to VAR: the same into VAR, without the fork of $(now_ms)
now_ms_to() { local _t=${EPOCHREALTIME//[!0-9]/}; printf -v "$1" %d $((10#$_t / 1000)); }
now_ms() { local ms; now_ms_to ms; echo "$ms"; }
