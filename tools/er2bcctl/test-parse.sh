#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# er2bcctl's host tests: nothing here needs sch_er2bc. The parsers and
# formatters (through er2bcctl's hidden --parse-* and --format-* switches),
# usage errors (exit 2, nothing sent), -batch, the missing family (exit 1),
# and the decoding and printing of made-up kernel messages (test-render).
#
#   ./test-parse.sh		(make check builds er2bcctl and test-render first)
#
# TAP output; exits 1 if any test failed.
set -u
cd "$(dirname "$0")"

BIN=./er2bcctl
RENDER=./test-render
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0

ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}

not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	shift
	printf '#   %s\n' "$@"
}

skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

# check NAME RC STDOUT STDERR CMD...: the exit code and both outputs, exactly
check() {
	local name=$1 want_rc=$2 want_out=$3 want_err=$4 out err rc
	shift 4
	out=$("$@" 2>"$tmp/err")
	rc=$?
	err=$(<"$tmp/err")
	if [[ $rc == "$want_rc" && $out == "$want_out" && $err == "$want_err" ]]; then
		ok "$name"
	else
		not_ok "$name" "command: $*" "exit $rc, wanted $want_rc" \
			"stdout: $out" "wanted: $want_out" "stderr: $err" "wanted: $want_err"
	fi
}

# check_file NAME FILE CMD...: stdout against a file, exit 0, stderr empty
check_file() {
	local name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [[ $rc == 0 ]] && [[ ! -s $tmp/err ]] && cmp -s "$want" "$tmp/out"; then
		ok "$name"
	else
		not_ok "$name" "command: $*" "exit $rc" "stderr: $(<"$tmp/err")"
		diff -u "$want" "$tmp/out" | sed 's/^/#   /'
	fi
}

for f in "$BIN" "$RENDER"; do
	if [[ ! -x $f ]]; then
		echo "Bail out! $f is not built (make -C tools/er2bcctl check)"
		exit 1
	fi
done

echo "# rates: bits/s"
rate() { check "rate $1 = $2" 0 "$2" "" "$BIN" --parse-rate "$1"; }
rate 0 0
rate 100 100
rate 100bit 100
rate 1kbit 1000
rate 400kbit 400000
rate 5mbit 5000000
rate 5Mbit 5000000
rate 5MBIT 5000000
rate 1.5mbit 1500000
rate 1.1mbit 1100000
rate 0.000001mbit 1
rate 2gbit 2000000000
rate 1tbit 1000000000000
rate 1kibit 1024
rate 1mibit 1048576
rate 1gibit 1073741824
rate 1tibit 1099511627776
rate 1bps 8
rate 125bps 1000
rate 1kbps 8000
rate 400kbps 3200000
rate 1.5mbps 12000000
rate 1gbps 8000000000
rate 1tbps 8000000000000
rate 1kibps 8192
rate 1.5bit 1
rate 18446744073709551615 18446744073709551615
rate 18446744073709551615bit 18446744073709551615
rate 2305843009213693951bps 18446744073709551608
rate 18446744.073709551615tbit 18446744073709551615

bad_rate() {
	check "rate \"$1\" refused: $2" 2 "" "er2bcctl: debug: invalid rate \"$1\": $2" \
		"$BIN" --parse-rate "$1"
}
bad_rate "" "empty"
bad_rate -5mbit "negative"
bad_rate -0 "negative"
bad_rate +5mbit "not a number"
bad_rate mbit "not a number"
bad_rate " 5mbit" "not a number"
bad_rate 5. "not a number"
bad_rate .5mbit "not a number"
bad_rate 5xbit 'unknown unit "xbit"'
bad_rate 5k 'unknown unit "k"'
bad_rate 5mbit/s 'unknown unit "mbit/s"'
bad_rate "5 mbit" 'unknown unit " mbit"'
bad_rate 1e6 'unknown unit "e6"'
bad_rate 0x10 'unknown unit "x10"'
bad_rate 18446744073709551616 "too large"
bad_rate 99999999999999999999999 "too large"
bad_rate 2305843009213693952bps "too large"
bad_rate 18446745tbit "too large"

echo "# times: microseconds"
time_ok() { check "time $1 = $2" 0 "$2" "" "$BIN" --parse-time "$1"; }
time_ok 100ms 100000
time_ok 1s 1000000
time_ok 1sec 1000000
time_ok 2secs 2000000
time_ok 250us 250
time_ok 250usec 250
time_ok 1.5ms 1500
time_ok 1.5msec 1500
time_ok 0.25s 250000
time_ok 100 100
time_ok 0 0
time_ok 1MS 1000

bad_time() {
	check "time \"$1\" refused: $2" 2 "" "er2bcctl: debug: invalid time \"$1\": $2" \
		"$BIN" --parse-time "$1"
}
bad_time "" "empty"
bad_time -1ms "negative"
bad_time 5min 'unknown unit "min"'
bad_time 1ns 'unknown unit "ns"'
bad_time ms "not a number"
bad_time 99999999999999999999s "too large"

echo "# qdisc handles"
handle() { check "handle $1 = $2" 0 "$2" "" "$BIN" --parse-handle "$1"; }
handle 1: "0x10000 1:"
handle 1:0 "0x10000 1:"
handle 1:0000 "0x10000 1:"
handle 00001: "0x10000 1:"
handle a: "0xa0000 a:"
handle 10: "0x100000 10:"
handle ABC: "0xabc0000 abc:"
handle ffff: "0xffff0000 ffff:"
handle 0x10000 "0x10000 1:"
handle 0X20000 "0x20000 2:"
handle 0xffff0000 "0xffff0000 ffff:"

bad_handle() {
	check "handle \"$1\" refused: $2" 2 "" "er2bcctl: debug: invalid handle \"$1\": $2" \
		"$BIN" --parse-handle "$1"
}
bad_handle "" "empty"
bad_handle 1 "not a qdisc handle (e.g. 1:)"
bad_handle 65536 "not a qdisc handle (e.g. 1:)"
bad_handle : "not a qdisc handle (e.g. 1:)"
bad_handle :1 "not a qdisc handle (e.g. 1:)"
bad_handle 1:: "not a qdisc handle (e.g. 1:)"
bad_handle -1: "not a qdisc handle (e.g. 1:)"
bad_handle g: "not a qdisc handle (e.g. 1:)"
bad_handle " 1:" "not a qdisc handle (e.g. 1:)"
bad_handle 0x "not a qdisc handle (e.g. 1:)"
bad_handle 0x1g "not a qdisc handle (e.g. 1:)"
bad_handle 1:10 "minor must be 0 (a qdisc's handle is MAJ:)"
bad_handle 0x10001 "minor must be 0 (a qdisc's handle is MAJ:)"
bad_handle 0: "major must not be 0"
bad_handle 0x0 "major must not be 0"
bad_handle 0xffff "minor must be 0 (a qdisc's handle is MAJ:)"
bad_handle 10000: "major above ffff"
bad_handle 1:10000 "minor above ffff"
bad_handle 0x100000000 "too large"
bad_handle 123456789: "too large"

echo "# formatting, as tc writes rates"
fmt() { check "$1 $2 -> $3" 0 "$3" "" "$BIN" "--$1" "$2"; }
fmt format-rate 0 0bit
fmt format-rate 1 1bit
fmt format-rate 999 999bit
fmt format-rate 1000 1Kbit
fmt format-rate 1500 1.5Kbit
fmt format-rate 400000 400Kbit
fmt format-rate 999949 999.9Kbit
fmt format-rate 999950 1Mbit
fmt format-rate 999999 1Mbit
fmt format-rate 1200000 1.2Mbit
fmt format-rate 1234567 1.235Mbit
fmt format-rate 12345678 12.35Mbit
fmt format-rate 123456789 123.5Mbit
fmt format-rate 9999999 10Mbit
fmt format-rate 10000000 10Mbit
fmt format-rate 2500000000 2.5Gbit
fmt format-rate 1000000000000 1Tbit
fmt format-rate 18446744073709551615 18446744Tbit
fmt format-rate -200000 -200Kbit
fmt format-rate -1 -1bit
fmt format-rate -9223372036854775808 -9223372Tbit
fmt format-time 250 250us
fmt format-time 1000 1ms
fmt format-time 1500 1.5ms
fmt format-time 100000 100ms
fmt format-time 1000000 1s
fmt format-time 1999999 2s
fmt format-time 3000000 3s
fmt format-ratio 0 0.000
fmt format-ratio 982000 0.982
fmt format-ratio 982499 0.982
fmt format-ratio 982500 0.983
fmt format-ratio 999999 1.000
fmt format-ratio 1000000 1.000
fmt format-ns 0 0us
fmt format-ns 800 0.8us
fmt format-ns 12345 12.3us
fmt format-ns 12000 12us

echo "# usage errors: exit 2, one line naming the word, nothing sent"
usage() {
	local name=$1 msg=$2
	shift 2
	check "$name" 2 "" "er2bcctl: $msg" "$BIN" "$@"
}
A=(dev lo handle 1:)
usage "unknown command" 'unknown command "frob" (try er2bcctl -h)' frob
usage "unknown option" 'unknown option "-x" (try er2bcctl -h)' -x show
usage "unknown long option" 'unknown option "--frob" (try er2bcctl -h)' --frob show
usage "abw-set: unknown argument" 'abw-set: unknown argument "colour" (try er2bcctl -h)' \
	abw-set "${A[@]}" abw 5mbit recv 4mbit colour red
usage "abw-set: value missing" 'abw-set: "recv" needs a value' \
	abw-set "${A[@]}" abw 5mbit recv
usage "abw-set: abw missing" 'abw-set: missing "abw"' abw-set "${A[@]}" recv 4mbit
usage "abw-set: recv missing" 'abw-set: missing "recv"' abw-set "${A[@]}" abw 4mbit
usage "abw-set: dev missing" 'abw-set: missing "dev" (or "ifindex")' \
	abw-set handle 1: abw 5mbit recv 4mbit
usage "abw-set: handle missing" 'abw-set: missing "handle"' \
	abw-set dev lo abw 5mbit recv 4mbit
usage "abw-set: no arguments" 'abw-set: missing "dev" (or "ifindex")' abw-set
usage "abw-set: bad abw unit" 'abw-set: invalid abw "5xbit": unknown unit "xbit"' \
	abw-set "${A[@]}" abw 5xbit recv 4mbit
usage "abw-set: abw 0" 'abw-set: invalid abw "0mbit": must be more than 0' \
	abw-set "${A[@]}" abw 0mbit recv 4mbit
usage "abw-set: abw empty" 'abw-set: invalid abw "": empty' \
	abw-set "${A[@]}" abw "" recv 4mbit
usage "abw-set: abw overflowing" 'abw-set: invalid abw "18446744073709551616": too large' \
	abw-set "${A[@]}" abw 18446744073709551616 recv 4mbit
usage "abw-set: recv negative" 'abw-set: invalid recv "-4mbit": negative' \
	abw-set "${A[@]}" abw 5mbit recv -4mbit
usage "abw-set: abw twice" 'abw-set: "abw" given twice' \
	abw-set "${A[@]}" abw 5mbit abw 6mbit recv 4mbit
usage "abw-set: bad handle" 'abw-set: invalid handle "1:10": minor must be 0 (a qdisc'"'"'s handle is MAJ:)' \
	abw-set dev lo handle 1:10 abw 5mbit recv 4mbit
usage "abw-set: handle twice" 'abw-set: "handle" given twice' \
	abw-set "${A[@]}" handle 2: abw 5mbit recv 4mbit
usage "abw-set: unknown device" 'abw-set: invalid dev "nosuchdev0": no such device' \
	abw-set dev nosuchdev0 handle 1: abw 5mbit recv 4mbit
usage "abw-set: device name too long" 'abw-set: invalid dev "abcdefghijklmnopq": not a device name' \
	abw-set dev abcdefghijklmnopq handle 1: abw 5mbit recv 4mbit
usage "abw-set: unknown ifindex" 'abw-set: invalid ifindex "999999": no such device' \
	abw-set ifindex 999999 handle 1: abw 5mbit recv 4mbit
usage "abw-set: ifindex 0" 'abw-set: invalid ifindex "0": no such device' \
	abw-set ifindex 0 handle 1: abw 5mbit recv 4mbit
usage "abw-set: ifindex not a number" 'abw-set: invalid ifindex "lo": not a number' \
	abw-set ifindex lo handle 1: abw 5mbit recv 4mbit
usage "abw-set: dev and ifindex" 'abw-set: give dev or ifindex, not both' \
	abw-set dev lo ifindex 1 handle 1: abw 5mbit recv 4mbit
usage "abw-set: dev twice" 'abw-set: "dev" given twice' \
	abw-set dev lo dev lo handle 1: abw 5mbit recv 4mbit
usage "abw-set: sent not a number" 'abw-set: invalid sent "many": not a number' \
	abw-set "${A[@]}" abw 5mbit recv 4mbit sent many
usage "abw-set: lost fraction" 'abw-set: invalid lost "1.5": not a whole number' \
	abw-set "${A[@]}" abw 5mbit recv 4mbit lost 1.5
usage "abw-set: seq too large" 'abw-set: invalid seq "4294967296": too large' \
	abw-set "${A[@]}" abw 5mbit recv 4mbit seq 4294967296
usage "abw-set: interval 0" 'abw-set: invalid interval "0ms": must be more than 0us' \
	abw-set "${A[@]}" abw 5mbit recv 4mbit interval 0ms
usage "abw-set: interval unit" 'abw-set: invalid interval "5min": unknown unit "min"' \
	abw-set "${A[@]}" abw 5mbit recv 4mbit interval 5min
usage "abw-set: interval too long" 'abw-set: invalid interval "4295s": too long (at most 4294s)' \
	abw-set "${A[@]}" abw 5mbit recv 4mbit interval 4295s
usage "show: unknown argument" 'show: unknown argument "abw" (try er2bcctl -h)' \
	show "${A[@]}" abw 5mbit
usage "show: handle missing" 'show: missing "handle"' show dev lo
usage "show: value missing" 'show: "handle" needs a value' show dev lo handle
usage "show: bad handle" 'show: invalid handle "x": not a qdisc handle (e.g. 1:)' \
	show dev lo handle x
usage "monitor: unknown argument" 'monitor: unknown argument "forever" (try er2bcctl -h)' \
	monitor forever
usage "monitor: count 0" 'monitor: invalid count "0": must be more than 0' monitor count 0
usage "monitor: count not a number" 'monitor: invalid count "-1": negative' monitor count -1
usage "monitor: timeout 0" 'monitor: invalid timeout "0": must be more than 0s' \
	monitor timeout 0
usage "monitor: timeout unit" 'monitor: invalid timeout "1h": unknown unit "h"' \
	monitor timeout 1h
usage "monitor: unknown device" 'monitor: invalid dev "nosuchdev0": no such device' \
	monitor dev nosuchdev0

"$BIN" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [[ $rc == 2 && ! -s $tmp/out ]] && head -1 "$tmp/err" | grep -q '^Usage: er2bcctl'; then
	ok "no command: usage on stderr, exit 2"
else
	not_ok "no command: usage on stderr, exit 2" "exit $rc"
fi
for h in -h --help help; do
	"$BIN" $h >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [[ $rc == 0 && ! -s $tmp/err ]] && grep -q '^  er2bcctl abw-set' "$tmp/out" &&
	   grep -q '^  er2bcctl show' "$tmp/out" && grep -q '^  er2bcctl monitor' "$tmp/out" &&
	   grep -q -- '-batch FILE$' "$tmp/out" && grep -q '^  -force ' "$tmp/out" &&
	   grep -q '^  -stats ' "$tmp/out"; then
		ok "$h: usage on stdout, exit 0"
	else
		not_ok "$h: usage on stdout, exit 0" "exit $rc"
	fi
done
check "-V" 0 "er2bcctl $(cat ../../VERSION 2>/dev/null || echo unknown)" "" "$BIN" -V

# that a usage error sends nothing: not even a netlink socket is opened
if strace -o /dev/null true 2>/dev/null; then
	strace -f -e trace=socket,sendto,sendmsg -o "$tmp/strace" \
		"$BIN" abw-set dev lo handle 1: abw 5xbit recv 1mbit 2>/dev/null
	if grep -q 'AF_NETLINK' "$tmp/strace"; then
		not_ok "usage error: no netlink socket" "$(grep AF_NETLINK "$tmp/strace")"
	else
		ok "usage error: no netlink socket"
	fi
else
	skip "usage error: no netlink socket" "strace cannot trace here"
fi

echo "# -batch: usage errors name their line, exit 2, nothing sent"
# a batch misused at its line 5, after comments and blank lines
cat >"$tmp/bad.batch" <<'END'
# recorded estimates

   # an indented comment
	
abw-set dev lo handle 1: abw 5xbit recv 4mbit seq 2
show dev lo handle 1:
END
BADLINE='er2bcctl: line 5: abw-set: invalid abw "5xbit": unknown unit "xbit"'
check "batch: usage error, its line number, exit 2" 2 "" "$BADLINE" \
	"$BIN" -batch "$tmp/bad.batch"
check "batch -j: usage error, its line number, exit 2" 2 "" "$BADLINE" \
	"$BIN" -j -batch "$tmp/bad.batch"
check "batch --batch=FILE: the same" 2 "" "$BADLINE" "$BIN" --batch="$tmp/bad.batch"
from_stdin() { "$BIN" "$@" <"$tmp/bad.batch"; }
check "batch - (stdin): the same" 2 "" "$BADLINE" from_stdin -batch -

# -force: every line is run, each failure named; exit 1 at the end
printf '%s\n' '# all misused' 'abw-set dev lo handle 1: abw 0 recv 1mbit' 'monitor count 1' \
	'-j show dev lo handle 1:' 'frob' '' 'show dev lo handle 1: abw 5mbit' \
	'abw-set ifindex 999999 handle 1: abw 5mbit recv 4mbit' >"$tmp/force.batch"
check "batch -force: every line, exit 1" 1 "" "$(printf '%s\n' \
	'er2bcctl: line 2: abw-set: invalid abw "0": must be more than 0' \
	'er2bcctl: line 3: monitor: not in a batch (run er2bcctl monitor on its own)' \
	'er2bcctl: line 4: "-j": options go on the command line, before -batch' \
	'er2bcctl: line 5: unknown command "frob" (try er2bcctl -h)' \
	'er2bcctl: line 7: show: unknown argument "abw" (try er2bcctl -h)' \
	'er2bcctl: line 8: abw-set: invalid ifindex "999999": no such device')" \
	"$BIN" -force -batch "$tmp/force.batch"
check "batch: monitor refused, exit 2" 2 "" \
	'er2bcctl: line 3: monitor: not in a batch (run er2bcctl monitor on its own)' \
	"$BIN" -batch <(printf '#\n\nmonitor count 1\nshow dev lo handle 1:\n')

"$BIN" -stats -force -batch "$tmp/force.batch" >"$tmp/out" 2>"$tmp/err"
rc=$?
STATS_RE='^er2bcctl: batch: [0-9]+ commands \([0-9]+ failed\) in [0-9]+\.[0-9]{6}s: [0-9]+ commands/s$'
if [[ $rc == 1 && ! -s $tmp/out ]] && [[ $(wc -l <"$tmp/err") == 7 ]] &&
   tail -1 "$tmp/err" | grep -Eq "$STATS_RE" &&
   tail -1 "$tmp/err" | grep -q ' 6 commands (6 failed) in '; then
	ok "batch -stats: the count and the rate, last on stderr"
else
	not_ok "batch -stats: the count and the rate, last on stderr" "exit $rc" \
		"stderr: $(<"$tmp/err")"
fi

printf '# nothing\n\n  \n\t# at all\n' >"$tmp/empty.batch"
check "batch: comments and blank lines only, exit 0" 0 "" "" "$BIN" -batch "$tmp/empty.batch"
check "batch: no lines at all, exit 0" 0 "" "" "$BIN" -batch /dev/null
"$BIN" -stats -batch "$tmp/empty.batch" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [[ $rc == 0 && ! -s $tmp/out ]] && grep -Eq "$STATS_RE" "$tmp/err" &&
   grep -q ' 0 commands (0 failed) in ' "$tmp/err"; then
	ok "batch -stats: comments are not commands"
else
	not_ok "batch -stats: comments are not commands" "exit $rc" "stderr: $(<"$tmp/err")"
fi

check "batch: the file missing, exit 2" 2 "" \
	"er2bcctl: cannot open batch file \"$tmp/nosuch.batch\": No such file or directory" \
	"$BIN" -batch "$tmp/nosuch.batch"
check "batch: a directory, exit 2" 2 "" \
	"er2bcctl: cannot read batch file \"$tmp\": Is a directory" "$BIN" -batch "$tmp"
check "batch: FILE missing, exit 2" 2 "" 'er2bcctl: option "-batch" needs a value' \
	"$BIN" -batch
check "batch: --batch's FILE missing, exit 2" 2 "" 'er2bcctl: option "--batch" needs a value' \
	"$BIN" --batch
check "batch: a command after FILE, exit 2" 2 "" \
	'er2bcctl: "show" after -batch FILE: the commands are in FILE (try er2bcctl -h)' \
	"$BIN" -batch "$tmp/empty.batch" show dev lo handle 1:
check "-force without -batch, exit 2" 2 "" 'er2bcctl: -force goes with -batch (try er2bcctl -h)' \
	"$BIN" -force show dev lo handle 1:
check "-stats without -batch, exit 2" 2 "" 'er2bcctl: -stats goes with -batch (try er2bcctl -h)' \
	"$BIN" -stats show dev lo handle 1:

if strace -o /dev/null true 2>/dev/null; then
	for how in "" -force; do
		f=$tmp/bad.batch
		[[ $how ]] && f=$tmp/force.batch
		strace -f -e trace=socket,sendto,sendmsg -o "$tmp/strace" \
			"$BIN" $how -batch "$f" 2>/dev/null
		if grep -q 'AF_NETLINK' "$tmp/strace"; then
			not_ok "batch $how: usage errors, no netlink socket" \
				"$(grep AF_NETLINK "$tmp/strace")"
		else
			ok "batch $how: usage errors, no netlink socket"
		fi
	done
else
	skip "batch: usage errors, no netlink socket" "strace cannot trace here"
fi

echo "# the family missing (sch_er2bc not loaded): exit 1"
NOFAM='er2bcctl: generic netlink family er2bc not found (is sch_er2bc loaded?)'
if [[ -e /sys/module/sch_er2bc ]]; then
	for c in abw-set show monitor; do
		skip "$c: family not found" "sch_er2bc is loaded"
	done
else
	check "abw-set: family not found" 1 "" "$NOFAM" \
		"$BIN" abw-set dev lo handle 1: abw 5mbit recv 4mbit sent 100 lost 1 seq 1 interval 100ms
	check "abw-set (ifindex): family not found" 1 "" "$NOFAM" \
		"$BIN" abw-set ifindex 1 handle 0x10000 abw 5mbit recv 0
	check "show: family not found" 1 "" "$NOFAM" "$BIN" show dev lo handle 1:
	check "show -j: family not found" 1 "" "$NOFAM" "$BIN" -j show dev lo handle 1:
	check "monitor: family not found" 1 "" "$NOFAM" "$BIN" monitor
	check "monitor -j count timeout: family not found" 1 "" "$NOFAM" \
		"$BIN" -j monitor dev lo handle 1: count 1 timeout 1
	# in a batch: at the first line that needs the family, -force or not
	printf '%s\n' '# replay' 'abw-set dev lo handle 1: abw 5mbit recv 4mbit seq 1' \
		'abw-set dev lo handle 1: abw 5xbit recv 4mbit seq 2' \
		'show dev lo handle 1:' >"$tmp/nofam.batch"
	for how in "" -force; do
		check "batch $how: family not found at line 2, exit 1" 1 "" \
			"er2bcctl: line 2: ${NOFAM#er2bcctl: }" "$BIN" $how -batch "$tmp/nofam.batch"
	done
	check "batch show -j: family not found, exit 1" 1 "" \
		"er2bcctl: line 1: ${NOFAM#er2bcctl: }" "$BIN" -j -batch <(echo show dev lo handle 1:)
	if strace -o /dev/null true 2>/dev/null; then
		strace -f -e trace=socket -o "$tmp/strace" \
			"$BIN" -force -batch "$tmp/nofam.batch" 2>/dev/null
		if [[ $(grep -c 'AF_NETLINK' "$tmp/strace") == 1 ]]; then
			ok "batch -force: family not found, looked up once, then the end"
		else
			not_ok "batch -force: family not found, looked up once, then the end" \
				"$(grep AF_NETLINK "$tmp/strace")"
		fi
	fi
fi

echo "# made-up kernel messages, decoded and printed (test-render)"
cat >"$tmp/show.txt" <<'END'
er2bc 1: dev lo mode er2bc
  W 10Mbit  R 9.5Mbit  seq 42  sent 1000  lost 12  interval 100ms
  s 0.982  s_p 0.950  s history 0.982 0.990 0.950
  updates 42  last update 120 ms ago  stale no
  parameters C 10  M 10  B_lim 50Kbit  floor 0bit  stale after 3s  converge gradual
  guaranteed 9Mbit  classes 3  cost 12.3us

classid  prio  type  R_f        G        S_d      R_e        delta     Delta
1:10     1     tcp   2Mbit      2Mbit    2.1Mbit  1.9Mbit    100Kbit   1Mbit
1:20     2     tcp   1.235Mbit  1.2Mbit  1.2Mbit  1.435Mbit  -200Kbit  -1.5Mbit
1:ff     3     udp   400Kbit    400Kbit  400Kbit  -          -         -
END
check_file "show: text" "$tmp/show.txt" "$RENDER" show text

cat >"$tmp/show.json" <<'END'
{"ifindex":1,"dev":"lo","handle":"1:","mode":"er2bc","abw":10000000,"recv_rate":9500000,"sent":1000,"lost":12,"seq":42,"interval":100000,"ratio":982000,"ratio_min":950123,"ratio_hist":[982000,990000,950123],"updates":42,"last_update":5000000000,"last_update_ms_ago":120,"stale":false,"param_c":10,"param_m":10,"param_blim":50000,"param_floor":0,"param_stale":3000,"param_converge":"gradual","guaranteed":9000000,"class_count":3,"cost":12345,"classes":[{"classid":"1:10","prio":1,"type":"tcp","rate":2000000,"guarantee":2000000,"demand":2100000,"expected":1900000,"delta":100000,"delta_sum":1000000},{"classid":"1:20","prio":2,"type":"tcp","rate":1234567,"guarantee":1200000,"demand":1200000,"expected":1434567,"delta":-200000,"delta_sum":-1500000},{"classid":"1:ff","prio":3,"type":"udp","rate":400000,"guarantee":400000,"demand":400000}]}
END
check_file "show: JSON" "$tmp/show.json" "$RENDER" show json

cat >"$tmp/sparse.txt" <<'END'
er2bc dev if999999
  W 1Mbit
  s history 1.000
  updates 0  last update never  stale yes
  parameters never stale

classid  prio  type  R_f     G  S_d  R_e  delta    Delta
1:1      -     -     -       -  -    -    -        -
1:2      -     -     64Kbit  -  -    -    -64Kbit  -1bit
END
check_file "show: attributes missing, narrow, broken" "$tmp/sparse.txt" "$RENDER" show-sparse

cat >"$tmp/sparse.json" <<'END'
{"ifindex":999999,"abw":999999,"ratio_hist":[1000000],"updates":0,"last_update":0,"stale":true,"param_stale":0,"classes":[{"classid":"1:1"},{"classid":"1:2","rate":64000,"delta":-64000,"delta_sum":-1}]}
END
check_file "show: attributes missing, JSON" "$tmp/sparse.json" "$RENDER" show-sparse json

cat >"$tmp/monitor.txt" <<'END'
dev lo handle 1: mode er2bc seq 7 W 8Mbit R 8Mbit s 1.000 s_p 0.001 updates 7 stale no guaranteed 7.5Mbit classes 2 cost 0.8us
dev if999999 handle ffff: mode er2bc seq 8 W 8Mbit R 8Mbit s 1.000 s_p 0.001 updates 8 stale yes guaranteed 7.5Mbit classes 2 cost 0.8us
END
check_file "monitor: text, filtered by device" "$tmp/monitor.txt" "$RENDER" monitor text

cat >"$tmp/monitor.json" <<'END'
{"ifindex":1,"dev":"lo","handle":"1:","mode":"er2bc","abw":8000000,"recv_rate":7999999,"seq":7,"ratio":999999,"ratio_min":500,"updates":7,"stale":false,"guaranteed":7500000,"class_count":2,"cost":800}
{"ifindex":999999,"handle":"ffff:","mode":"er2bc","abw":8000000,"recv_rate":7999999,"seq":8,"ratio":999999,"ratio_min":500,"updates":8,"stale":true,"guaranteed":7500000,"class_count":2,"cost":800}
END
check_file "monitor: JSON, one object a line" "$tmp/monitor.json" "$RENDER" monitor json

if command -v jq >/dev/null; then
	for how in json pretty; do
		if "$RENDER" show $how | jq -e '.classes[1].delta == -200000 and
		    .ratio_hist == [982000, 990000, 950123] and .handle == "1:" and
		    .classes[2].type == "udp" and (.classes[2] | has("expected") | not)' \
		    >/dev/null; then
			ok "show: $how parses (jq)"
		else
			not_ok "show: $how parses (jq)"
		fi
	done
	if [[ $("$RENDER" monitor json | jq -c -s 'map(.seq)') == "[7,8]" ]]; then
		ok "monitor: JSON lines parse (jq)"
	else
		not_ok "monitor: JSON lines parse (jq)"
	fi
else
	skip "show: JSON parses (jq)" "no jq"
fi

cat >"$tmp/extack.txt" <<'END'
capped: ret 22 error 22 msg "not an er2bc qdisc"
er2bcctl: not an er2bc qdisc: Invalid argument
uncapped: ret 19 error 19 msg "no such qdisc"
er2bcctl: no such qdisc: No such device
missing: ret 22 error 22 msg "" miss 5
er2bcctl: abw-set: missing attribute recv-rate: Invalid argument
plain: ret 1 error 1 msg ""
er2bcctl: abw-set: Operation not permitted
ack: ret 0 error 0 msg ""
warning: ret 0 error 0 msg "estimate out of order"
done-error: ret 95 error 95 msg "qdisc is not in er2bc mode"
er2bcctl: qdisc is not in er2bc mode: Operation not supported
done: ret 0 error 0 msg ""
short: ret -1 error 0 msg ""
END
"$RENDER" extack >"$tmp/out" 2>&1
if cmp -s "$tmp/extack.txt" "$tmp/out"; then
	ok "extended ACKs: the kernel's message, capped or not, and NLMSG_DONE's"
else
	not_ok "extended ACKs: the kernel's message, capped or not, and NLMSG_DONE's"
	diff -u "$tmp/extack.txt" "$tmp/out" | sed 's/^/#   /'
fi

echo "1..$n"
if ((failed)); then
	echo "# $failed of $n failed"
	exit 1
fi
echo "# all $n passed"
