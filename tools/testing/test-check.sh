#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The harness's own test (make check's host stage): check.sh is fed fake
# guests, each wrong in one way a real guest can be, and must fail the run
# with the reason on a line; a well-behaved fake guest must pass it. The
# fakes replace only the module build and the VM (ER2BC_BUILD, ER2BC_RUN):
# the judging, the manifest and the log scan are check.sh's own.
# Also: the real manifest parses and lists every test the tree has.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
check=$top/tools/testing/vm/check.sh
verdict=$top/tools/testing/vm/verdict.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 n=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
		passed=$((passed + 1))
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

# --- the fakes
cat >"$work/build" <<EOF
#!/bin/bash
[ "\$FAKE" = buildfail ] && { echo "demo.c:1:1: error: broken" >&2; exit 1; }
[ "\$FAKE" = buildwarn ] && echo "demo.c:1:1: warning: unused variable" >&2
mkdir -p "$work/mods"
echo "$work/mods"
EOF
cat >"$work/manifest" <<'EOF'
suite all   harness     2
suite all   demo/alpha  2
suite debug kunit/demo  2
skip  debug demo/alpha  *  'machine slow*'
skip  all   demo/alpha  ALL  'whole program allowed*'
skip  all   demo/alpha  two  'capacity [1-9]* bit/s'
suite kcsan harness     2
like  kcsan debug  demo/*
suite trixie-bpo harness 2
like  trixie-bpo 6.12  demo/*
EOF
# run -k KVER -o OUT ... -- guest-suite.sh MODS FILTER KUNIT, as run.sh is
# called; FAKE says how this guest goes wrong
cat >"$work/run" <<'EOF'
#!/bin/bash
queue=
while getopts "k:o:t:c:x:q:i" o; do
	case $o in k) kver=$OPTARG ;; o) out=$OPTARG ;; q) queue=$OPTARG ;; *) ;; esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
filter=${3:-}
kunit=${4:-yes}
only=${5:-}
mkdir -p "$out"
: >"$out/console.log"
# (the suites the host asked this guest to run, if it named them)
[ -n "$only" ] && cp "$only" "$out/only"
case $FAKE in exit127) exit 127 ;; noresults) exit 0 ;; esac
mkdir -p "$out/selftests/demo" "$out/kunit"
printf 'PASS install modules\nPASS modules unload\n' >"$out/harness"
tap() { printf 'TAP version 13\n'; printf '%s\n' "$@"; }
# mine ITEM: this guest runs ITEM; with a queue (-q), if it claims it first,
# as guest-suite.sh does. split: the first guest (vm) takes only KUnit;
# twice: both guests run everything
mine() {
	[ -n "$queue" ] || return 0
	mkdir -p "$queue/claimed"
	echo "$1" >>"$queue/items"
	[ "$FAKE" = twice ] && return 0
	[ "$FAKE" = split ] && [ "$(basename "$out")" = vm ] && [ "$1" != kunit ] && return 1
	mkdir "$queue/claimed/${1//\//:}" 2>/dev/null
}
# beside a first debug guest (check.sh's queue), a Debian kernel's fake
# ends after it: whether a second debug guest boots depends on what the
# first claimed, not on which fake was quicker
if [ "$kver" != debug ] && [ -d "$ER2BC_CHECK_REPORT/debug-queue" ]; then
	for i in $(seq 100); do
		[ -e "$ER2BC_CHECK_REPORT/debug/vm/suite-done" ] && break
		sleep 0.1
	done
fi
[[ demo/alpha == *"${filter%%:*}"* ]] && mine demo/alpha &&
case $FAKE in
cases)		[[ $filter == *:* ]] && echo "# tests_run: only ${filter#*:}"
		tap "ok 1 - ${filter#*:}" "1..1" ;;
casesnot)	tap "ok 1 - ${filter#*:}" "1..1" ;;
shortplan)	tap "ok 1 - one" "ok 2 - two" "1..3" ;;
fewer)		tap "ok 1 - one" "1..1" ;;
more)		tap "ok 1 - one" "ok 2 - two" "ok 3 - three" "1..3" ;;
noplan)		tap "ok 1 - one" "ok 2 - two" ;;
timeout)	tap "ok 1 - one" ;;
notok)		tap "ok 1 - one" "not ok 2 - two" "1..2" ;;
badskip)	tap "ok 1 - one" "ok 2 - two # SKIP no reason given" "1..2" ;;
slowskip)	tap "ok 1 - one" "ok 2 - two # SKIP machine slow, missed: 1 of 2" "1..2" ;;
capskip)	tap "ok 1 - one" "ok 2 - two # SKIP capacity 5000 bit/s" "1..2" ;;
capzero)	tap "ok 1 - one" "ok 2 - two # SKIP capacity 0 bit/s" "1..2" ;;
wholeok)	echo "1..0 # SKIP whole program allowed: no such device" ;;
wholebad)	echo "1..0 # SKIP some other reason" ;;
*)		tap "ok 1 - one" "ok 2 - two" "1..2" ;;
esac >"$out/selftests/demo/alpha.log" &&
case $FAKE in
failexit) echo 2 ;;
notok) echo 1 ;;
timeout) echo 124 ;;
wholeok | wholebad) echo 4 ;;
*) echo 0 ;;
esac >"$out/selftests/demo/alpha.rc"
[ "$FAKE" = norc ] && rm -f "$out/selftests/demo/alpha.rc"
[ "$FAKE" = timeout ] &&
	echo "D 880s in rtnl_lock: ip link del group 77 [rtnl_lock,rtnl_dellink]" \
		>"$out/selftests/demo/alpha.stuck"
if [ "$FAKE" = unlisted ]; then
	tap "ok 1 - x" "1..1" >"$out/selftests/demo/beta.log"
	echo 0 >"$out/selftests/demo/beta.rc"
fi
if [ "$kver" = debug ] && [ "$kunit" = yes ] && ! mine kunit; then
	:
elif [ "$kver" = debug ] && [ "$kunit" = yes ] && [ "$FAKE" = kunitload ]; then
	echo 1 >"$out/kunit/demo_kunit.load"
elif [ "$kver" = debug ] && [ "$kunit" = yes ] && [ "$FAKE" != nokunit ]; then
	echo 0 >"$out/kunit/demo_kunit.load"
	second="    ok 2 case_two" plan="    1..2"
	[ "$FAKE" = kunitfail ] && second="    not ok 2 case_two"
	[ "$FAKE" = ktapnoplan ] && plan="    # no plan"
	printf '%s\n' "    KTAP version 1" "    # Subtest: demo" "$plan" \
		"    ok 1 case_one" "$second" "ok 1 demo" >"$out/kunit/demo.ktap"
fi
[ "$FAKE" = warn ] && echo "[    3.141592] WARNING: CPU: 0 PID: 1 at fake.c:1 fake+0x0/0x1" >"$out/console.log"
[ "$FAKE" = timeout ] && printf '[   42.000000] fake: last words\r\n' >"$out/console.log"
# KCSAN's report, in the kernel's own code or (kcsanours) with a frame in
# a module; kcsanopen: the module's, its closing line lost, other lines after
case $FAKE in kcsan | kcsanours | kcsanopen)
	frame=" p9_client_rpc+0x17d/0x580" end="=================="
	[ "$FAKE" != kcsan ] && frame=" er2bc_enqueue+0x1c/0x400 [sch_er2bc]"
	[ "$FAKE" = kcsanopen ] && end="fake: the log goes on"
	printf '[   65.231995] %s\r\n' "==================" "BUG: KCSAN: data-race in fake_a / fake_b" \
		"" "read to 0xffff8881014ded44 of 2 bytes by task 386 on cpu 0:" \
		" virtqueue_kick_prepare+0x157/0x210" "$frame" "" "value changed: 0x2691 -> 0x2693" \
		"$end" >"$out/console.log"
esac
[ "$FAKE" = accel ] && echo tcg >"$out/accel"
case $FAKE in timeout) exit 125 ;; nodone) exit 0 ;; esac
echo fake >"$out/suite-done"
exit 0
EOF
chmod +x "$work/build" "$work/run"

# expect RC_WANTED MESSAGE FAKE KVER [-T FILTER]: check.sh's exit status and
# a line of its output
run_check() {
	local fake=$1
	shift
	FAKE=$fake ER2BC_CHECK_SETUP=0 ER2BC_CHECK_SERIAL=${SERIAL-1} ER2BC_CHECK_REPORT=$work/report \
		ER2BC_BUILD=$work/build ER2BC_RUN=$work/run ER2BC_MANIFEST=$work/manifest \
		"$check" "$@" >"$work/out" 2>&1
}
expect() {
	local want=$1 msg=$2 desc=$3 rc
	shift 3
	run_check "$@"
	rc=$?
	if { [ "$want" = 0 ] && [ $rc = 0 ]; } || { [ "$want" != 0 ] && [ $rc != 0 ]; }; then
		if grep -qF -- "$msg" "$work/out"; then
			ok 0 "$desc"
			return
		fi
	fi
	ok 1 "$desc (exit $rc; no line with '$msg')"
	sed 's/^/#   /' "$work/out" | tail -n 15
}

expect 0 "total: 6 passed, 0 failed" "a guest that ran everything as listed passes" good 6.12
expect 0 "all expected suites ran" "... and says all expected suites ran" good 6.12
expect 0 "total: 8 passed, 0 failed" "debug: the KUnit suite as listed passes" good debug
expect 0 "total: 7 passed, 0 failed, 1 skipped" "a skip the manifest allows is a skip" slowskip debug
expect 1 "exit 127: a command was not found" "guest exit 127 fails" exit127 6.12
expect 1 "FAIL guest # did not finish" "guest that never finished (125) fails" timeout 6.12
expect 1 "no suite-done" "guest that exits 0 without reaching its end fails" nodone 6.12
expect 1 "no record of the guest's own checks" "guest that leaves no results fails" noresults 6.12
expect 1 "NOT all expected suites ran" "... and says not all suites ran" noresults 6.12
expect 1 "TAP plan 1..3 but 2 results" "a short TAP plan fails" shortplan 6.12
expect 1 "no TAP plan" "a test with no TAP plan fails" noplan 6.12
expect 1 "reported 1 cases, the manifest expects 2" "fewer cases than the manifest fails" fewer 6.12
expect 1 "the manifest allows no such skip" "a skip the manifest does not allow fails" badskip 6.12
expect 1 "the manifest allows no such skip" "a skip allowed on debug fails on 6.12" slowskip 6.12
expect 1 "exit status 2" "a test's odd exit status fails" failexit 6.12
expect 1 "FAIL demo/alpha: two" "a kselftest's failed check fails" notok 6.12
expect 1 "timed out (settings' timeout) after 1 results; still running: D 880s in rtnl_lock: ip link del" \
	"a kselftest killed by its timeout fails, naming what it waited in" timeout 6.12
expect 1 "reported 3 cases, the manifest expects 2" "more cases than the manifest fails" more 6.12
expect 1 "no exit status" "a kselftest with no exit status recorded fails" norc 6.12
expect 0 "total: 5 passed, 0 failed, 1 skipped" "a skip whose measurement the manifest allows is a skip" capskip 6.12
expect 1 "the manifest allows no such skip" "... but not when the measurement read 0" capzero 6.12
expect 0 "total: 4 passed, 0 failed, 1 skipped" "a whole program skipped as the manifest allows (ALL)" wholeok 6.12
expect 1 "the manifest allows no such skip" "a whole program skipped for another reason fails" wholebad 6.12
expect 1 "FAIL build" "a module build that fails fails" buildfail 6.12
expect 1 "FAIL build W=1 without warnings" "a compiler warning fails" buildwarn 6.12
expect 1 "modprobe failed" "a KUnit module that does not load fails" kunitload debug
expect 1 "no KTAP plan" "a KUnit suite without its plan fails" ktapnoplan debug
expect 1 "not in the manifest" "a test the manifest does not list fails" unlisted 6.12
expect 1 "FAIL kunit/demo: case_two" "a KUnit failure fails" kunitfail debug
expect 1 "kunit/demo # did not run" "a KUnit suite whose module was not built fails" nokunit debug
expect 1 "FAIL guest log free of warnings" "a WARNING in the guest's log fails" warn 6.12
expect 0 "KCSAN, in the kernel, not judged: BUG: KCSAN: data-race in fake_a / fake_b" \
	"KCSAN: a data race in the kernel's own code is listed, not judged" kcsan kcsan
! grep -q "guest log.*BUG: KCSAN" "$work/out"
ok $? "KCSAN: ... and the summary names no fault for it"
[ "$(cat "$work/report/kcsan/vm/only" 2>/dev/null)" = demo/alpha ]
ok $? "KCSAN: the guest is given the suites the manifest lists for it, and only those"
expect 0 "total: 6 passed, 0 failed" "6.12: ... (a guest run again)" good 6.12
[ ! -e "$work/report/6.12/vm/only" ]
ok $? "6.12: the guest is given no list: it runs every suite, and one not listed fails"
expect 1 "FAIL no data race in the modules (KCSAN)" \
	"KCSAN: a data race with a frame in a module fails" kcsanours kcsan
expect 1 "FAIL no data race in the modules (KCSAN)" \
	"KCSAN: ... also when the report lost its closing line" kcsanopen kcsan
expect 1 "FAIL guest log free of warnings" "a KCSAN report on another kernel is a BUG like any" kcsan 6.12
expect 1 "6.12: guest log (vm/console.log): WARNING: CPU: 0 PID: 1 at fake.c:1" \
	"... and the summary repeats the report, with the log it is in" warn 6.12
expect 1 "6.12: vm did not finish; its console's last lines:" \
	"a guest that did not finish: the summary says so" timeout 6.12
expect 1 "# 6.12:   [   42.000000] fake: last words" "... and where its console ended" timeout 6.12
expect 0 "6.12 (tcg): 6 passed, 0 failed" "the kernel's summary line names the accelerator" accel 6.12
# two debug guests sharing the debug suites (check.sh beside 6.12, on a
# machine with two CPUs or more)
if [ "$(nproc)" -lt 2 ]; then
	for t in 1 2 3 4 5 6 7 8 9 10; do ok 0 "two debug guests # SKIP one CPU: check.sh runs the kernels in turn"; done
else
SERIAL= expect 0 "debug: 10 passed, 0 failed" "two debug guests, one suite each: judged as one run" split 6.12 debug
SERIAL= expect 0 "total: 16 passed, 0 failed" "... and each guest's own checks count once per guest" split 6.12 debug
SERIAL= expect 0 "debug: 8 passed, 0 failed" "the first debug guest took all: no second one" good 6.12 debug
SERIAL= expect 1 "ran in two guests" "a suite that two guests ran fails" twice 6.12 debug
# 6.1 and 6.12 side by side beside the debug guest: each judged and counted
SERIAL= expect 0 "total: 20 passed, 0 failed" "6.1 and 6.12 side by side, beside debug: all counted" \
	good 6.1 6.12 debug
SERIAL= expect 1 "6.1: FAIL guest log free of warnings" "... a failure of one of them is named with its kernel" \
	warn 6.1 6.12 debug
# trixie-bpo after 6.1 in its lane (chained), judged and counted as itself
SERIAL= expect 0 "total: 26 passed, 0 failed" "trixie-bpo chained after 6.1, beside 6.12 and debug: all counted" \
	good 6.1 6.12 debug trixie-bpo
grep -q '^trixie-bpo.*: 6 passed, 0 failed' "$work/out" &&
	grep -q '^=== trixie-bpo$' "$work/report/6.1.log" && ! grep -q '^=== trixie-bpo' "$work/report/6.12.log"
ok $? "... its line in the summary, its guest in 6.1's lane"
SERIAL= expect 0 "total: 20 passed, 0 failed" "trixie-bpo chained after 6.1 with no other lane beside: counted too" \
	good 6.1 debug trixie-bpo
SERIAL= expect 1 "FAIL trixie-bpo # not run: 6.1's lane stopped before it" \
	"6.1's build failed: the chained kernel fails as not run, not with an earlier run's results" \
	buildfail 6.1 6.12 debug trixie-bpo
fi
expect 1 "no test matches 'nosuchtest'" "a filter that matches nothing fails" good 6.12 debug -T nosuchtest
expect 0 "total: 6 passed, 0 failed" "a filter that matches one suite runs it alone" good 6.12 -T alpha
expect 0 "debug: 6 passed, 0 failed" "a filter naming a KUnit suite runs only it" good debug -T kunit/demo
expect 0 "total: 5 passed, 0 failed" "a filter naming a case: judged by the results it reports" \
	cases 6.12 -T alpha:two
expect 1 "reported 1 cases, the manifest expects 2" "... but without a case, fewer results fail" \
	cases 6.12 -T alpha
expect 1 "reported 1 cases, the manifest expects 2" \
	"... and a suite that did not say it ran only those cases is counted whole" casesnot 6.12 -T alpha:two
expect 0 "6.12: no test matches 'kunit/demo', not booted" "... and boots no kernel without it" good 6.12 debug -T kunit/demo

# --- selftests/lib.sh's tests_run: the cases of ALL_TESTS, or those of TESTS
cat >"$work/suite.sh" <<EOF
#!/bin/bash
source "$top/selftests/lib.sh"
ALL_TESTS="
	one
	two three
"
one() { tap_result 0 one; }
two() { tap_result 0 two; }
three() { tap_result 0 three; }
ALL_TESTS+=" four"
tap_begin
tests_run
EOF
chmod +x "$work/suite.sh"
out=$("$work/suite.sh" | grep -v '^TAP' | paste -sd' ' -)
[[ "$out" == "ok 1 - one ok 2 - two ok 3 - three not ok 4 - case four # ALL_TESTS names it, but no function does 1..4" ]]
ok $? "tests_run: every case of ALL_TESTS, in order; a name without a function fails${out:+: $out}"
out=$(TESTS="three,one" "$work/suite.sh" | grep -v '^TAP' | paste -sd' ' -)
[ "$out" = "# tests_run: only three one ok 1 - three ok 2 - one 1..2" ]
ok $? "tests_run: only the cases TESTS names (T=suite:three,one)${out:+: $out}"
TESTS="two five" "$work/suite.sh" >"$work/out"
rc=$?
[ $rc = 1 ] && grep -q "^not ok 2 - case five # not a case of" "$work/out"
ok $? "tests_run: a case the suite does not have fails (exit $rc)"
grep -q "^not ok 2 - case five # not a case of .*: one two three four$" "$work/out"
ok $? "tests_run: ... and names the suite's cases on one line ($(grep "case five" "$work/out"))"

# --- selftests/lib.sh's sleep: many short sleeps, at several depths of
# function calls, some running out before bash could read (the read -t it
# was restored a signal mask it never saved: stack garbage, SIGCHLD among
# it, after a few dozen), leave the shell's signal mask as it was
cat >"$work/sleeps.sh" <<EOF
#!/bin/bash
source "$top/selftests/lib.sh"
EOF
cat >>"$work/sleeps.sh" <<'EOF'
# (no command substitution between the sleeps: its fork hid the garbage)
mask() { local k v; while read -r k v; do [ "$k" = SigBlk: ] && { m=$v; return; }; done </proc/$BASHPID/status; }
deep() { if [ "$1" -gt 0 ]; then deep $(($1 - 1)) "$2"; else sleep "$2"; fi; }
mask
before=$m
for i in $(seq 2000); do
	deep $((i % 7)) 0.00000$((i % 2 + 1))
	[ $((i % 5)) = 0 ] && sleep 0.0005
	mask
	[ "$m" = "$before" ] || { echo "after $i sleeps the mask was $m, not $before"; exit 1; }
done
start=$EPOCHREALTIME
sleep 0.2
took=$(awk "BEGIN { printf \"%.3f\", $EPOCHREALTIME - $start }")
echo "2000 sleeps, the mask $before throughout; sleep 0.2 took $took s (builtin: $lib_sleep_builtin)"
awk "BEGIN { exit !($took >= 0.2) }" &&
	# (bash-builtins installed: no fork per sleep, which is why it is not /bin/sleep)
	{ [ ! -e /usr/lib/bash/sleep ] || [ $lib_sleep_builtin = yes ]; }
EOF
out=$(bash "$work/sleeps.sh")
ok $? "lib.sh's sleep sleeps and leaves the shell's signal mask as it was: $out"

# --- selftests/lib.sh's busywait: a slow COMMAND is tried no more often
# than it takes, a quick one every 200 ms, never past the deadline, and
# one that turns true before the deadline is found true
cat >"$work/waits.sh" <<EOF
#!/bin/bash
source "$top/selftests/lib.sh"
EOF
cat >>"$work/waits.sh" <<'EOF'
n=0
slow() { n=$((n + 1)); /bin/sleep 0.3; false; }
now_ms_to a; busywait 2000 slow; rc=$?; now_ms_to b
# (0.3 s a try and 0.3 s between: about 4 tries in 2 s, where 0.1 s
# between made 5; none after the deadline)
echo "slow: exit $rc, $n tries in $((b - a)) ms"
[ $rc = 1 ] && [ $n -le 4 ] && [ $((b - a)) -ge 2000 ] && [ $((b - a)) -lt 3000 ] || exit 1
# a quick COMMAND: 200 ms between tries (6 in 1 s, the last at the
# deadline; 100 ms made 10)
n=0
quick() { n=$((n + 1)); false; }
busywait 1000 quick
echo "quick: $n tries"
[ $n -ge 4 ] && [ $n -le 7 ] || exit 1
# busywait_fixed: 100 ms between tries whatever they cost (5 or more)
n=0
busywait_fixed 2000 slow
echo "fixed: $n tries"
[ $n -ge 5 ] || exit 1
now_ms_to t0
late() { local now; now_ms_to now; [ $((now - t0)) -ge 900 ]; }
busywait 1000 late; rc=$?; now_ms_to b
echo "true at 0.9 s of 1 s: exit $rc after $((b - t0)) ms"
[ $rc = 0 ]
EOF
out=$(bash "$work/waits.sh" | paste -sd';' -)
ok $? "lib.sh's busywait: $out"

# --- the generated netlink code (make lint): a committed table or policy
# that its spec would not generate fails ynl-gen.sh --check
g=$work/ynl
mkdir -p "$g"
(cd "$top" && tar -cf - tools/testing/ynl-gen.sh tools/testing/vm/common.sh \
	Documentation/netlink/specs include/uapi/linux/er2bc_genl.h \
	include/uapi/linux/tcp_rcvmgr.h sch_er2bc/nl_gen.[ch] tcp_rcvmgr/nl_gen.[ch]) |
	tar -xf - -C "$g"
"$g/tools/testing/ynl-gen.sh" --check >"$work/ynl.out" 2>&1
ok $? "ynl-gen.sh --check passes on the files as committed"
# sabotaged FILE SED DESC: FILE edited by SED fails the check, named; then restored
sabotaged() {
	sed -i "$2" "$g/$1"
	"$g/tools/testing/ynl-gen.sh" --check >"$work/ynl.out" 2>&1
	[ $? = 1 ] && grep -q "$1 is not what" "$work/ynl.out"
	ok $? "$3 fails ynl-gen.sh --check"
	cp "$top/$1" "$g/$1"
}
sabotaged sch_er2bc/nl_gen.c 's/GENL_UNS_ADMIN_PERM | //' \
	"a permission dropped from a generated commands table"
sabotaged tcp_rcvmgr/nl_gen.c 's/NLA_POLICY_MIN(NLA_U32, 1000)/NLA_POLICY_MIN(NLA_U32, 1)/' \
	"a bound loosened in a generated policy"

# --- like: a kernel that runs another's suites, as it runs them
cat >"$work/like" <<'EOF2'
suite all     harness 4
suite all     one/alpha  3
suite debug   one/beta   2
suite debug   two/gamma  5
skip  debug   one/beta   'b*'  'machine slow*'
like  kcsan   debug  one/*
EOF2
python3 "$verdict" list --kver kcsan --manifest "$work/like" >"$work/like.out" 2>&1 &&
	[ "$(tr '\n' ' ' <"$work/like.out")" = "one/alpha one/beta " ]
ok $? "like: the other kernel's suites the glob matches, not those it does not, nor all's harness"
python3 "$verdict" list --kver 6.1 --manifest "$work/like" >"$work/like.out" 2>&1 &&
	[ "$(tr '\n' ' ' <"$work/like.out")" = "one/alpha " ]
ok $? "like: the kernels it does not name are unchanged"
echo "like  kcsan  debug  three/*" >>"$work/like"
python3 "$verdict" list --kver kcsan --manifest "$work/like" >"$work/like.out" 2>&1
[ $? = 1 ] && grep -q "no suite of debug matches 'three/\*'" "$work/like.out"
ok $? "like: a glob that matches nothing is an error"
printf '%s\n' "like a b one/*" "like b a one/*" >"$work/like"
python3 "$verdict" list --kver a --manifest "$work/like" >"$work/like.out" 2>&1
[ $? = 1 ] && grep -q "a loop of like lines" "$work/like.out"
ok $? "like: a loop of like lines is an error"

# --- the debug kernel's source when Debian's archive cannot be asked: the
# newest fetched before, said so; none, an error that says why
# bdk_source: the source build-debug-kernel.sh picks, the archive unreachable
bdk_source() {
	ER2BC_CACHE=$work/cache ER2BC_DEBIAN_MIRROR=http://127.0.0.1:9/debian ER2BC_ROOT_WEEK=test \
		"$top/tools/testing/vm/build-debug-kernel.sh" --source
}
mkdir -p "$work/cache/kernel-source"
out=$(bdk_source 2>&1)
[ $? != 0 ] && [[ "$out" == *"could not be asked"*"none was fetched before"* ]] &&
	grep -q "Failed to fetch http://127.0.0.1:9/debian/dists/trixie-backports" \
		"$work/cache/kernel-source/apt/update.log"
ok $? "debug kernel: no archive and no source fetched before: refused, saying why ($out)"
for v in 7.2.9-1~bpo13+1 7.2.12-1~bpo13+1; do
	touch "$work/cache/kernel-source/linux-source-7.2-$v.tar.xz"
done
out=$(bdk_source 2>"$work/err")
[ "$out" = "7.2.12-1~bpo13+1 $work/cache/kernel-source/linux-source-7.2-7.2.12-1~bpo13+1.tar.xz" ] &&
	grep -q "could not be asked.*the source fetched before, 7.2.12-1~bpo13+1" "$work/err"
ok $? "debug kernel: no archive: the newest source fetched before, said so ($out; $(cat "$work/err"))"
[ ! -e "$work/cache/kernel-source/week-test" ]
ok $? "debug kernel: no archive: the week's choice is left to the next call that reaches it"
echo "7.3.4-1~bpo13+1 $work/cache/kernel-source/gone dir/linux-source-7.3-7.3.4-1~bpo13+1.tar.xz" \
	>"$work/cache/kernel-source/week-test"
out=$(bdk_source 2>&1)
[ "$out" = "7.3.4-1~bpo13+1 $work/cache/kernel-source/gone dir/linux-source-7.3-7.3.4-1~bpo13+1.tar.xz" ]
ok $? "debug kernel: the week's source stands, its tarball gone or not (a build of it may be done) ($out)"

# --- the real manifest: it parses, and lists what the tree has
python3 "$verdict" list --kver kcsan >"$work/list.kcsan" 2>"$work/err" &&
	grep -qx tcp_rcvmgr/rcvmgr_hooks "$work/list.kcsan"
ok $? "the manifest parses for kcsan, and gives it the hooks' suite"
for k in 6.1 6.12 debug trixie-bpo-all; do
	python3 "$verdict" list --kver $k >"$work/list.$k" 2>"$work/err"
	ok $? "the manifest parses for $k"
done
missing=
for mk in "$top"/selftests/*/Makefile; do
	d=$(basename "$(dirname "$mk")")
	for prog in $(sed -n 's/^TEST_PROGS *:= *//p' "$mk"); do
		for k in 6.1 6.12 debug trixie-bpo-all; do
			grep -qx "$d/${prog%.sh}" "$work/list.$k" || missing+=" $k:$d/${prog%.sh}"
		done
	done
done
for s in $(sed -n 's/^\t\.name = "\(.*\)",$/\1/p' "$top"/sch_er2bc/*_kunit.c "$top"/tcp_rcvmgr/*_kunit.c); do
	grep -qx "kunit/$s" "$work/list.debug" || missing+=" debug:kunit/$s"
done
[ -z "$missing" ]
ok $? "the manifest lists every kselftest and KUnit suite in the tree${missing:+: missing$missing}"

echo "1..$n"
echo "harness: $passed passed, $failed failed"
[ $failed = 0 ]
