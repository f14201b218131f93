#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# er2bcctl's host tests: nothing here needs sch_er2bc or tcp_rcvmgr. The
# parsers and formatters (through er2bcctl's hidden --parse-* and --format-*
# switches), usage errors (exit 2, nothing sent), the requests rcvmgr set
# builds (test-render rcvmgr-set), -batch, the missing families (exit 1),
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

# renamed NAME JSON EXPR OLD:NEW:VALUE...: in the object EXPR (Python, on
# the document j) of the JSON text, each OLD key gone and NEW there, VALUE
renamed() {
	local name=$1 json=$2 expr=$3 out
	shift 3
	if out=$(python3 -c '
import json, sys
j = json.loads(sys.argv[1])
o = eval(sys.argv[2])
bad = []
for r in sys.argv[3:]:
    old, new, want = r.split(":")
    if old in o:
        bad.append(f"{old} still there")
    if new not in o or o[new] != json.loads(want):
        bad.append(f"{new}: {o.get(new)!r}, wanted {want}")
print("; ".join(bad))
sys.exit(1 if bad else 0)' "$json" "$expr" "$@"); then
		ok "$name"
	else
		not_ok "$name" "$out"
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


echo "# sizes: bytes, k m g powers of 1024"
size_ok() { check "size $1 = $2" 0 "$2" "" "$BIN" --parse-size "$1"; }
size_ok 0 0
size_ok 65536 65536
size_ok 1460b 1460
size_ok 1460B 1460
size_ok 64k 65536
size_ok 64K 65536
size_ok 64kb 65536
size_ok 64KB 65536
size_ok 64kib 65536
size_ok 64KiB 65536
size_ok 1m 1048576
size_ok 1mb 1048576
size_ok 16MiB 16777216
size_ok 1g 1073741824
size_ok 4GiB 4294967296
size_ok 1.5k 1536
size_ok 0.5m 524288
size_ok 0.0009765625k 1
size_ok 18446744073709551615 18446744073709551615

bad_size() {
	check "size \"$1\" refused: $2" 2 "" "er2bcctl: debug: invalid size \"$1\": $2" \
		"$BIN" --parse-size "$1"
}
bad_size "" "empty"
bad_size -1k "negative"
bad_size k "not a number"
bad_size 64x 'unknown unit "x"'
bad_size 64kbit 'unknown unit "kbit"'
bad_size "64 k" 'unknown unit " k"'
bad_size 1t 'unknown unit "t"'
bad_size 0.5 "not a whole number of bytes"
bad_size 1.0001k "not a whole number of bytes"
bad_size 18446744073709551616 "too large"
bad_size 17179869184g "too large"

fmt format-size 0 0B
fmt format-size 1023 1023B
fmt format-size 1024 1KiB
fmt format-size 1536 1.5KiB
fmt format-size 14280 13.9KiB
fmt format-size 65535 64KiB
fmt format-size 1234567 1.18MiB
fmt format-size 1047552 1023KiB
fmt format-size 1048063 1023KiB
fmt format-size 1048064 1MiB
fmt format-size 1048575 1MiB
fmt format-size 4294967295 4GiB
fmt format-size 18446744073709551615 16777216TiB
fmt format-size-exact 0 0B
fmt format-size-exact 1460 1460B
fmt format-size-exact 65535 65535B
fmt format-size-exact 65536 64KiB
fmt format-size-exact 1572864 1536KiB
fmt format-size-exact 16777216 16MiB
fmt format-size-exact 1073741824 1GiB
fmt format-size-exact 4294967295 4294967295B

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
# -n NETNS, as ip -n and tc -n: a name that cannot be ip netns's is misuse
# (exit 2); one that is not there, a failure (exit 1, what to run to see
# the names); without a value, its name. Nothing is sent in any.
usage "-n: value missing" 'option "-n" needs a value' -n
usage "-netns: value missing" 'option "-netns" needs a value' -netns
usage "--netns: value missing" 'option "--netns" needs a value' --netns
usage "-n: a path, not a name" '-n "../x": not a network namespace'"'"'s name (ip netns list names them)' \
	-n ../x show "${A[@]}"
usage "-n: empty" '-n "": not a network namespace'"'"'s name (ip netns list names them)' \
	-n "" show "${A[@]}"
usage "-n: dot-dot" '-n "..": not a network namespace'"'"'s name (ip netns list names them)' \
	-netns .. show "${A[@]}"
check "-n: no such namespace, exit 1" 1 "" \
	'er2bcctl: -n "er2bc-none-such": cannot open /run/netns/er2bc-none-such: No such file or directory (ip netns list names them)' \
	"$BIN" -n er2bc-none-such show "${A[@]}"
usage "-netns=NAME: not taken as -n" 'unknown option "-netns=gw" (try er2bcctl -h)' \
	-netns=gw show "${A[@]}"
usage "-n and misuse: misuse first, exit 2" '-force goes with -batch (try er2bcctl -h)' \
	-n er2bc-none-such -force show "${A[@]}"
usage "-n and a command after -batch FILE: misuse, exit 2" \
	'"show" after -batch FILE: the commands are in FILE (try er2bcctl -h)' \
	-n er2bc-none-such -batch /nonexistent show
check "-n before -batch: no such namespace, exit 1, nothing read" 1 "" \
	'er2bcctl: -n "er2bc-none-such": cannot open /run/netns/er2bc-none-such: No such file or directory (ip netns list names them)' \
	"$BIN" -n er2bc-none-such -batch /nonexistent
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
# span, show's name of the estimate's interval; interval, its name before
usage "abw-set: span 0" 'abw-set: invalid span "0ms": must be more than 0us' \
	abw-set "${A[@]}" abw 5mbit recv 4mbit span 0ms
usage "abw-set: span too long" 'abw-set: invalid span "4295s": too long (at most 4294s)' \
	abw-set "${A[@]}" abw 5mbit recv 4mbit span 4295s
usage "abw-set: span twice" 'abw-set: "span" given twice' \
	abw-set "${A[@]}" abw 5mbit recv 4mbit span 1s span 2s
usage "abw-set: span and interval, the same" 'abw-set: "interval" given twice' \
	abw-set "${A[@]}" abw 5mbit recv 4mbit span 1s interval 1s
usage "abw-set: scavenger-hold too long" \
	'abw-set: invalid scavenger-hold "61s": too long (at most 60s)' \
	abw-set "${A[@]}" abw 5mbit recv 4mbit scavenger-hold 61s
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

echo "# rcvmgr set: the request each option makes (test-render rcvmgr-set)"
# req NAME WANT ARGS...: config-set (cmd 2) with WANT's attributes, one a line
req() {
	local name=$1 want=$2
	shift 2
	check "rcvmgr set $name" 0 "$(printf 'cmd 2 version 1\n%s' "$want")" "" \
		"$RENDER" rcvmgr-set "$@"
}
req "policy off" "policy u8 0" policy off
req "policy azuma" "policy u8 1" policy azuma
req "policy spring" "policy u8 2" policy spring
req "policy equal" "policy u8 3" policy equal
req "wan lo" "wan-dev u32 1" wan lo
if [[ -e /sys/class/net/eth0 ]]; then
	req "wan lo wan eth0: a list" "$(printf 'wan-dev u32 1\nwan-dev u32 %s' \
		"$(cat /sys/class/net/eth0/ifindex)")" wan lo wan eth0
else
	skip "rcvmgr set wan lo wan eth0: a list" "no eth0"
fi
req "wan none: the clear flag, no wan-dev" "clear u32 1" wan none
req "lan IPv4" "$(printf 'lan-prefix\n  addr 0a000000\n  plen u8 8')" lan 10.0.0.0/8
req "lan IPv4, no length: /32" "$(printf 'lan-prefix\n  addr c0a80107\n  plen u8 32')" \
	lan 192.168.1.7
req "lan IPv6" "$(printf 'lan-prefix\n  addr 20010db8000000000000000000000000\n  plen u8 32')" \
	lan 2001:db8::/32
req "lan ::/0" "$(printf 'lan-prefix\n  addr 00000000000000000000000000000000\n  plen u8 0')" \
	lan ::/0
req "lan IPv4 /0" "$(printf 'lan-prefix\n  addr 00000000\n  plen u8 0')" lan 0.0.0.0/0
req "lan host bits: the kernel's to refuse" "$(printf 'lan-prefix\n  addr 0a000001\n  plen u8 8')" \
	lan 10.0.0.1/8
req "lan twice: a list" \
	"$(printf 'lan-prefix\n  addr 0a000000\n  plen u8 8\nlan-prefix\n  addr fd000000000000000000000000000000\n  plen u8 8')" \
	lan 10.0.0.0/8 lan fd00::/8
req "lan none" "clear u32 2" lan none
req "rule none" "clear u32 4" rule none
req "wan none lan none rule none" "clear u32 7" rule none lan none wan none
req "rule priority only" "$(printf 'rule\n  priority u32 1')" rule priority 1
req "rule port N" "$(printf 'rule\n  port-min u16 80\n  port-max u16 80\n  priority u32 5')" \
	rule port 80 priority 5
req "rule port N-M" "$(printf 'rule\n  port-min u16 1024\n  port-max u16 65535\n  priority u32 5')" \
	rule port 1024-65535 priority 5
req "rule port 0-0" "$(printf 'rule\n  port-min u16 0\n  port-max u16 0\n  priority u32 5')" \
	rule port 0-0 priority 5
req "rule dscp" "$(printf 'rule\n  dscp u8 46\n  priority u32 1000')" rule dscp 46 priority 1000
req "rule dscp hex, 63" "$(printf 'rule\n  dscp u8 63\n  priority u32 1')" rule dscp 0x3f priority 1
req "rule mark: mask all ones" \
	"$(printf 'rule\n  mark u32 16\n  mark-mask u32 4294967295\n  priority u32 1')" \
	rule mark 16 priority 1
req "rule mark/mask hex" "$(printf 'rule\n  mark u32 16\n  mark-mask u32 240\n  priority u32 1')" \
	rule mark 0x10/0xF0 priority 1
req "rule mark/mask decimal" "$(printf 'rule\n  mark u32 0\n  mark-mask u32 4294967295\n  priority u32 1')" \
	rule mark 0/4294967295 priority 1
req "rule: its words in any order" \
	"$(printf 'rule\n  port-min u16 22\n  port-max u16 22\n  dscp u8 10\n  mark u32 1\n  mark-mask u32 1\n  priority u32 7')" \
	rule priority 7 mark 1/1 dscp 10 port 22
req "two rules, in order" \
	"$(printf 'rule\n  port-min u16 443\n  port-max u16 443\n  priority u32 100\nrule\n  priority u32 1')" \
	rule port 443 priority 100 rule priority 1
RULES16=()
for i in $(seq 16); do RULES16+=(rule port "$i" priority "$i"); done
"$RENDER" rcvmgr-set "${RULES16[@]}" >"$tmp/out" 2>"$tmp/err"
if [[ $? == 0 && ! -s $tmp/err ]] && [[ $(grep -c '^rule$' "$tmp/out") == 16 ]]; then
	ok "rcvmgr set: 16 rules"
else
	not_ok "rcvmgr set: 16 rules" "$(<"$tmp/err")"
fi
req "interval TIME" "interval u32 100" interval 100ms
req "interval: bare numbers are us, as in tc" "interval u32 250" interval 250000
req "interval 0.5s" "interval u32 500" interval 0.5s
req "interval 10ms, the least" "interval u32 10" interval 10ms
req "interval 3600s, the most" "interval u32 3600000" interval 3600s
req "interval 20000us" "interval u32 20" interval 20000us
req "max-conns" "max-conns u32 4096" max-conns 4096
req "max-conns 1" "max-conns u32 1" max-conns 1
req "max-conns 16777216" "max-conns u32 16777216" max-conns 16777216
req "idle-timeout" "idle-timeout u32 120000" idle-timeout 120s
req "idle-timeout 1s, the least" "idle-timeout u32 1000" idle-timeout 1s
req "idle-timeout, the most" "idle-timeout u32 4294967295" idle-timeout 4294967295ms
req "budget-init 64k" "budget-init u32 65536" budget-init 64k
req "budget-min 16kb" "budget-min u32 16384" budget-min 16kb
req "budget-max 16mib" "budget-max u32 16777216" budget-max 16mib
req "budget-step bytes" "budget-step u32 1460" budget-step 1460
req "budget-max 4294967295" "budget-max u32 4294967295" budget-max 4294967295
req "budget-decrease" "budget-decrease u32 100" budget-decrease 100
req "budget-decrease 1" "budget-decrease u32 1" budget-decrease 1
req "budget-decrease 999" "budget-decrease u32 999" budget-decrease 999
req "rtt-tolerance" "rtt-tolerance u32 20" rtt-tolerance 20
req "rtt-tolerance with %" "rtt-tolerance u32 20" rtt-tolerance 20%
req "rtt-tolerance 0" "rtt-tolerance u32 0" rtt-tolerance 0
req "rtt-tolerance 1000%" "rtt-tolerance u32 1000" rtt-tolerance 1000%
req "link-rate: a u64, bits/s" "link-rate u64 100000000" link-rate 100mbit
req "link-rate bytes/s" "link-rate u64 8000000000" link-rate 1gbps
req "link-rate 0" "link-rate u64 0" link-rate 0
req "spring-queue" "spring-queue u32 65536" spring-queue 64k
req "spring-interactive 0" "spring-interactive u32 0" spring-interactive 0
req "spring-short" "spring-short u32 1572864" spring-short 1.5m
req "initial-window" "initial-window u32 10" initial-window 10
req "initial-window 2, the thesis'" "initial-window u32 2" initial-window 2
req "initial-window 1024" "initial-window u32 1024" initial-window 1024
req "everything, in the spec's order" "$(printf '%s\n' 'policy u8 2' 'wan-dev u32 1' \
	'lan-prefix' '  addr c0a80100' '  plen u8 24' 'rule' '  dscp u8 46' '  priority u32 10' \
	'interval u32 50' 'max-conns u32 1000' 'idle-timeout u32 60000' 'budget-init u32 131072' \
	'budget-min u32 65536' 'budget-max u32 8388608' 'budget-step u32 2920' \
	'budget-decrease u32 50' 'rtt-tolerance u32 10' 'link-rate u64 50000000' \
	'spring-queue u32 32768' 'spring-interactive u32 4096' 'spring-short u32 65536' \
	'initial-window u32 4')" \
	initial-window 4 spring-short 64k spring-interactive 4k spring-queue 32k link-rate 50mbit \
	rtt-tolerance 10 budget-decrease 50 budget-step 2920 budget-max 8m budget-min 64k \
	budget-init 128k idle-timeout 60s max-conns 1000 interval 50ms rule dscp 46 priority 10 \
	lan 192.168.1.0/24 wan lo policy spring

echo "# rcvmgr: usage errors, exit 2, nothing sent"
usage "rcvmgr: no command" 'rcvmgr: missing command: show, set, conns or stats (try er2bcctl -h)' \
	rcvmgr
usage "rcvmgr: unknown command" 'rcvmgr: unknown command "frob" (try er2bcctl -h)' rcvmgr frob
usage "rcvmgr show: an argument" 'rcvmgr show: unknown argument "all" (try er2bcctl -h)' \
	rcvmgr show all
usage "rcvmgr conns: an argument" 'rcvmgr conns: unknown argument "dev" (try er2bcctl -h)' \
	rcvmgr conns dev lo
usage "rcvmgr stats: an argument" 'rcvmgr stats: unknown argument "-j" (try er2bcctl -h)' \
	rcvmgr stats -j
S=(rcvmgr set)
rset() {
	local name=$1 msg=$2
	shift 2
	usage "rcvmgr set: $name" "rcvmgr set: $msg" "${S[@]}" "$@"
}
rset "nothing" 'nothing to set (try er2bcctl -h)'
rset "unknown keyword" 'unknown argument "colour" (try er2bcctl -h)' policy off colour red
rset "unknown keyword, no value" 'unknown argument "verbose" (try er2bcctl -h)' verbose
rset "value missing" '"interval" needs a value' policy off interval
rset "wan's value missing" '"wan" needs a value' wan
rset "a rule's value missing" '"port" needs a value' rule priority 1 port
rset "unknown policy" 'invalid policy "fifo": not off, azuma, spring or equal' policy fifo
rset "policy's case" 'invalid policy "Azuma": not off, azuma, spring or equal' policy Azuma
rset "policy twice" '"policy" given twice' policy off policy azuma
rset "unknown device" 'invalid wan "nosuchdev0": no such device' wan lo wan nosuchdev0
rset "device name too long" 'invalid wan "abcdefghijklmnopq": not a device name' \
	wan abcdefghijklmnopq
rset "device name empty" 'invalid wan "": not a device name' wan ""
rset "wan twice" '"wan lo" given twice' wan lo wan lo
rset "wan none and a list" 'give "wan none" or a list, not both' wan none wan lo
rset "a list and wan none" 'give "wan none" or a list, not both' wan lo wan none
rset "wan none twice" '"wan none" given twice' wan none wan none
rset "lan: not an address" 'invalid lan "10.0.0/8": not an IPv4 or IPv6 address' lan 10.0.0/8
rset "lan: a name" 'invalid lan "lan.example/24": not an IPv4 or IPv6 address' lan lan.example/24
rset "lan: no address" 'invalid lan "/8": not an IPv4 or IPv6 address' lan /8
rset "lan: empty" 'invalid lan "": empty' lan ""
rset "lan: IPv4 length above 32" 'invalid lan "10.0.0.0/33": prefix length above 32' \
	lan 10.0.0.0/33
rset "lan: IPv6 length above 128" 'invalid lan "2001:db8::/129": prefix length above 128' \
	lan 2001:db8::/129
rset "lan: no length after /" 'invalid lan "10.0.0.0/": no prefix length after /' lan 10.0.0.0/
rset "lan: length not a number" 'invalid lan "10.0.0.0/x": prefix length not a number' \
	lan 10.0.0.0/x
rset "lan: length negative" 'invalid lan "10.0.0.0/-8": prefix length not a number' \
	lan 10.0.0.0/-8
rset "lan: two lengths" 'invalid lan "10.0.0.0/8/8": prefix length not a number' \
	lan 10.0.0.0/8/8
rset "lan: a netmask" 'invalid lan "10.0.0.0/255.0.0.0": prefix length not a number' \
	lan 10.0.0.0/255.0.0.0
LAN9=()
for i in $(seq 9); do LAN9+=(lan "10.$i.0.0/16"); done
rset "9 prefixes" 'at most 8 "lan" prefixes' "${LAN9[@]}"
rset "lan none and a list" 'give "lan none" or a list, not both' lan none lan 10.0.0.0/8
rset "rule without priority" 'rule 1: missing "priority"' rule port 80
rset "rule alone" 'rule 1: missing "priority"' rule
rset "second rule without priority" 'rule 2: missing "priority"' \
	rule priority 1 rule dscp 1 interval 100ms
rset "priority 0" 'invalid priority "0": must be 1 to 1000' rule priority 0
rset "priority 1001" 'invalid priority "1001": must be 1 to 1000' rule priority 1001
rset "priority not a number" 'invalid priority "high": not a number' rule priority high
rset "priority negative" 'invalid priority "-1": negative' rule priority -1
rset "port range reversed" 'invalid port "443-80": the range is reversed' \
	rule port 443-80 priority 1
rset "port above 65535" 'invalid port "65536": ports are at most 65535' rule port 65536 priority 1
rset "port range above 65535" 'invalid port "1-70000": ports are at most 65535' \
	rule port 1-70000 priority 1
rset "port range open" 'invalid port "80-": not a port or a range of ports (N or N-M)' \
	rule port 80- priority 1
rset "port negative" 'invalid port "-80": not a port or a range of ports (N or N-M)' \
	rule port -80 priority 1
rset "port three numbers" 'invalid port "1-2-3": not a port or a range of ports (N or N-M)' \
	rule port 1-2-3 priority 1
rset "port a name" 'invalid port "http": not a number' rule port http priority 1
rset "port hex" 'invalid port "0x50": not a whole number' rule port 0x50 priority 1
rset "dscp 64" 'invalid dscp "64": must be 0 to 63' rule dscp 64 priority 1
rset "dscp negative" 'invalid dscp "-1": negative' rule dscp -1 priority 1
rset "dscp a name" 'invalid dscp "ef": not a number' rule dscp ef priority 1
rset "mark: no mask after /" 'invalid mark "0x10/": not a mark or a mark and mask (N or N/MASK)' \
	rule mark 0x10/ priority 1
rset "mark: no mark before /" 'invalid mark "/0xff": not a mark or a mark and mask (N or N/MASK)' \
	rule mark /0xff priority 1
rset "mark: two masks" 'invalid mark "1/2/3": not a mark or a mark and mask (N or N/MASK)' \
	rule mark 1/2/3 priority 1
rset "mark: bad hex" 'invalid mark "0xg": not a number' rule mark 0xg priority 1
rset "mark: 0x alone" 'invalid mark "0x": not a number' rule mark 0x priority 1
rset "mark: bad mask" 'invalid mark "16/0x": not a number' rule mark 16/0x priority 1
rset "mark: above 32 bits" 'invalid mark "0x100000000": too large' rule mark 0x100000000 priority 1
rset "mark: decimal above 32 bits" 'invalid mark "4294967296": too large' \
	rule mark 4294967296 priority 1
rset "a rule's word twice" 'rule 1: "port" given twice (a new rule starts with "rule")' \
	rule port 80 port 81 priority 1
rset "priority twice" 'rule 1: "priority" given twice (a new rule starts with "rule")' \
	rule priority 1 priority 2
rset "port outside a rule" '"port" outside a rule (a rule starts with "rule")' port 80
rset "priority outside a rule" '"priority" outside a rule (a rule starts with "rule")' \
	policy off priority 5
RULES17=("${RULES16[@]}" rule priority 17)
rset "17 rules" 'at most 16 rules' "${RULES17[@]}"
rset "rule none and rules" 'give "rule none" or a list, not both' rule none rule priority 1
rset "rules and rule none" 'give "rule none" or a list, not both' rule priority 1 rule none
rset "interval: sub-ms" 'invalid interval "1.5ms": not a whole number of milliseconds' \
	interval 1.5ms
rset "interval: us" 'invalid interval "100us": not a whole number of milliseconds' \
	interval 100us
rset "interval: below 10ms" 'invalid interval "9ms": must be at least 10ms' interval 9ms
rset "interval: a bare number is in us, as in tc" \
	'invalid interval "100": not a whole number of milliseconds' interval 100
rset "interval: 0" 'invalid interval "0": must be at least 10ms' interval 0
rset "interval: above 3600s" 'invalid interval "3601s": must be at most 3600s' interval 3601s
rset "interval: unit" 'invalid interval "1h": unknown unit "h"' interval 1h
rset "interval twice" '"interval" given twice' interval 1s interval 2s
rset "idle-timeout: below 1s" 'invalid idle-timeout "999ms": must be at least 1s' \
	idle-timeout 999ms
rset "idle-timeout: above u32 ms" 'invalid idle-timeout "4294968s": must be at most 4294967.295s' \
	idle-timeout 4294968s
rset "max-conns 0" 'invalid max-conns "0": must be more than 0' max-conns 0
rset "max-conns above 16777216" 'invalid max-conns "16777217": must be at most 16777216' \
	max-conns 16777217
rset "max-conns with a unit" 'invalid max-conns "1k": not a whole number' max-conns 1k
rset "budget-init 0" 'invalid budget-init "0": must be more than 0' budget-init 0
rset "budget-min 0k" 'invalid budget-min "0k": must be more than 0' budget-min 0k
rset "budget-max 4g" 'invalid budget-max "4g": must be at most 4294967295B' budget-max 4g
rset "budget-step unit" 'invalid budget-step "1mbit": unknown unit "mbit"' budget-step 1mbit
rset "budget-step fraction" 'invalid budget-step "0.5": not a whole number of bytes' \
	budget-step 0.5
rset "budget-init negative" 'invalid budget-init "-64k": negative' budget-init -64k
rset "budget-decrease 0" 'invalid budget-decrease "0": must be more than 0' budget-decrease 0
rset "budget-decrease 1000" 'invalid budget-decrease "1000": must be at most 999' \
	budget-decrease 1000
rset "budget-decrease fraction" 'invalid budget-decrease "10.5": not a whole number' \
	budget-decrease 10.5
rset "rtt-tolerance 1001" 'invalid rtt-tolerance "1001%": must be at most 1000%' \
	rtt-tolerance 1001%
rset "rtt-tolerance %%" 'invalid rtt-tolerance "20%%": not a whole number' rtt-tolerance 20%%
rset "rtt-tolerance % alone" 'invalid rtt-tolerance "%": empty' rtt-tolerance %
rset "link-rate unit" 'invalid link-rate "100mb": unknown unit "mb"' link-rate 100mb
rset "spring-queue above u32" 'invalid spring-queue "4g": must be at most 4294967295B' \
	spring-queue 4g
rset "spring-short twice" '"spring-short" given twice' spring-short 1k spring-short 2k
rset "initial-window 1" 'invalid initial-window "1": must be at least 2' initial-window 1
rset "initial-window 1025" 'invalid initial-window "1025": must be at most 1024' \
	initial-window 1025
rset "initial-window with a unit" 'invalid initial-window "10k": not a whole number' \
	initial-window 10k

if strace -o /dev/null true 2>/dev/null; then
	for args in "policy fifo" "wan nosuchdev0" "rule port 443-80 priority 1" \
		    "lan 10.0.0.0/33" "interval 1.5ms"; do
		# shellcheck disable=SC2086
		strace -f -e trace=socket,sendto,sendmsg -o "$tmp/strace" \
			"$BIN" rcvmgr set $args 2>/dev/null
		if grep -q 'AF_NETLINK' "$tmp/strace"; then
			not_ok "rcvmgr set $args: no netlink socket" "$(grep AF_NETLINK "$tmp/strace")"
		else
			ok "rcvmgr set $args: no netlink socket"
		fi
	done
else
	skip "rcvmgr set: usage errors, no netlink socket" "strace cannot trace here"
fi

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
	   grep -q '^  er2bcctl rcvmgr show$' "$tmp/out" &&
	   grep -q '^  er2bcctl rcvmgr set \[ policy' "$tmp/out" &&
	   grep -q '^  er2bcctl rcvmgr conns$' "$tmp/out" &&
	   grep -q '^  er2bcctl rcvmgr stats$' "$tmp/out" && grep -q '^SIZE ' "$tmp/out" &&
	   awk 'length > 80 { exit 1 }' "$tmp/out" &&
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

# rcvmgr commands in a batch: usage errors by line, a line of 200 words
printf '%s\n' '# rcvmgr' 'rcvmgr set policy fifo' \
	'rcvmgr show all' 'rcvmgr' 'rcvmgr set rule port 443-80 priority 1' \
	'rcvmgr set wan nosuchdev0' >"$tmp/rcvmgr.batch"
check "batch: rcvmgr usage errors, exit 2 at the first" 2 "" \
	'er2bcctl: line 2: rcvmgr set: invalid policy "fifo": not off, azuma, spring or equal' \
	"$BIN" -batch "$tmp/rcvmgr.batch"
check "batch -force: rcvmgr usage errors, every line" 1 "" "$(printf '%s\n' \
	'er2bcctl: line 2: rcvmgr set: invalid policy "fifo": not off, azuma, spring or equal' \
	'er2bcctl: line 3: rcvmgr show: unknown argument "all" (try er2bcctl -h)' \
	'er2bcctl: line 4: rcvmgr: missing command: show, set, conns or stats (try er2bcctl -h)' \
	'er2bcctl: line 5: rcvmgr set: invalid port "443-80": the range is reversed' \
	'er2bcctl: line 6: rcvmgr set: invalid wan "nosuchdev0": no such device')" \
	"$BIN" -force -batch "$tmp/rcvmgr.batch"
LONG="rcvmgr set policy equal"
for i in $(seq 16); do LONG+=" rule port $i-$((i + 100)) dscp $i mark $i/0xff priority $i"; done
for i in $(seq 8); do LONG+=" lan 10.$i.0.0/16"; done
LONG+=" interval 1s max-conns 10 idle-timeout 10s budget-init 64k budget-min 1k budget-max 1m"
LONG+=" budget-step 1k budget-decrease 10 rtt-tolerance 5 link-rate 1gbit spring-queue 1k"
LONG+=" spring-interactive 1k spring-short 2k frob"
check "batch: a rcvmgr set of $(wc -w <<<"$LONG") words is read whole" 2 "" \
	'er2bcctl: line 1: rcvmgr set: unknown argument "frob" (try er2bcctl -h)' \
	"$BIN" -batch <(echo "$LONG")

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
	for c in abw-set "abw-set span" show monitor; do
		skip "$c: family not found" "sch_er2bc is loaded"
	done
else
	check "abw-set: family not found" 1 "" "$NOFAM" \
		"$BIN" abw-set dev lo handle 1: abw 5mbit recv 4mbit sent 100 lost 1 seq 1 interval 100ms
	check "abw-set span parses: family not found" 1 "" "$NOFAM" \
		"$BIN" abw-set dev lo handle 1: abw 5mbit recv 4mbit sent 100 lost 1 seq 1 span 100ms
	check "abw-set (ifindex): family not found" 1 "" "$NOFAM" \
		"$BIN" abw-set ifindex 1 handle 0x10000 abw 5mbit recv 0
	check "abw-set scavenger-hold 60s parses: family not found" 1 "" "$NOFAM" \
		"$BIN" abw-set dev lo handle 1: abw 5mbit recv 4mbit scavenger-hold 60s
	check "show: family not found" 1 "" "$NOFAM" "$BIN" show dev lo handle 1:
	check "show -j: family not found" 1 "" "$NOFAM" "$BIN" -j show dev lo handle 1:
	check "monitor: family not found" 1 "" "$NOFAM" "$BIN" monitor
	check "monitor -j count timeout: family not found" 1 "" "$NOFAM" \
		"$BIN" -j monitor dev lo handle 1: count 1 timeout 1s
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

echo "# the family tcp_rcvmgr missing (tcp_rcvmgr not loaded): exit 1"
NOFAM_R='er2bcctl: the tcp_rcvmgr module is not loaded (generic netlink family tcp_rcvmgr not found)'
if [[ -e /sys/module/tcp_rcvmgr ]]; then
	skip "rcvmgr: family not found" "tcp_rcvmgr is loaded"
else
	check "rcvmgr show: family not found" 1 "" "$NOFAM_R" "$BIN" rcvmgr show
	check "rcvmgr show -j: family not found" 1 "" "$NOFAM_R" "$BIN" -j rcvmgr show
	check "rcvmgr set: family not found" 1 "" "$NOFAM_R" \
		"$BIN" rcvmgr set policy azuma wan lo lan 10.0.0.0/8 rule port 80 priority 5
	check "rcvmgr set wan none: family not found" 1 "" "$NOFAM_R" "$BIN" rcvmgr set wan none
	check "rcvmgr conns: family not found" 1 "" "$NOFAM_R" "$BIN" rcvmgr conns
	check "rcvmgr conns -p: family not found, no output" 1 "" "$NOFAM_R" "$BIN" -p rcvmgr conns
	check "rcvmgr stats: family not found" 1 "" "$NOFAM_R" "$BIN" rcvmgr stats
	check "batch: rcvmgr, family not found at line 2, exit 1" 1 "" \
		"er2bcctl: line 2: ${NOFAM_R#er2bcctl: }" \
		"$BIN" -force -batch <(printf '%s\n' '# rcvmgr' 'rcvmgr stats' 'rcvmgr show')
	# a batch of both families: a usage error is only that line's; a family
	# not found ends it (the lines after would fail the same way)
	check "batch -force: both families, to the first family not found" 1 "" "$(printf '%s\n' \
		'er2bcctl: line 1: rcvmgr set: invalid dscp "64": must be 0 to 63' \
		"er2bcctl: line 2: ${NOFAM_R#er2bcctl: }")" \
		"$BIN" -force -batch <(printf '%s\n' 'rcvmgr set rule dscp 64 priority 1' \
			'rcvmgr conns' 'show dev lo handle 1:')
	if strace -o /dev/null true 2>/dev/null; then
		strace -f -e trace=socket -o "$tmp/strace" "$BIN" -force -batch \
			<(printf '%s\n' 'rcvmgr stats' 'rcvmgr show' 'rcvmgr conns') 2>/dev/null
		if [[ $(grep -c 'AF_NETLINK' "$tmp/strace") == 1 ]]; then
			ok "batch -force: tcp_rcvmgr not found, looked up once, then the end"
		else
			not_ok "batch -force: tcp_rcvmgr not found, looked up once, then the end" \
				"$(grep AF_NETLINK "$tmp/strace")"
		fi
	fi
fi

echo "# made-up kernel messages, decoded and printed (test-render)"
cat >"$tmp/show.txt" <<'END'
er2bc 1: dev lo mode er2bc
  cap 10Mbit  recv-rate 9.5Mbit  seq 42  sent 1000  lost 12  span 100ms  scavenger-hold 1.5s
  recv-ratio 0.982  recv-ratio-min 0.950  recv-ratio-history 0.982 0.990 0.950
  updates 42  last estimate 120ms ago  stale no
  window 10  history 10  loss-headroom 50Kbit  floor 0bit  stale 3s  converge gradual
  guaranteed 9Mbit  classes 3  cost 12.3us

classid  prio  type  rate       margin  guarantee  demand   expected   shortfall  shortfall-sum
1:10     1     tcp   2Mbit      0%      2Mbit      2.1Mbit  1.9Mbit    100Kbit    1Mbit
1:20     2     tcp   1.235Mbit  0%      1.2Mbit    1.2Mbit  1.435Mbit  -200Kbit   -1.5Mbit
1:ff     3     udp   400Kbit    20%     400Kbit    400Kbit  -          -          -
END
check_file "show: text" "$tmp/show.txt" "$RENDER" show text

cat >"$tmp/show.json" <<'END'
{"ifindex":1,"dev":"lo","handle":"1:","mode":"er2bc","cap_bytes_per_second":1250000,"recv_rate_bytes_per_second":1187500,"sent_packets":1000,"lost_packets":12,"seq":42,"span_us":100000,"scavenger_hold_us":1500000,"recv_ratio_ppm":982000,"recv_ratio_min_ppm":950123,"recv_ratio_history_ppm":[982000,990000,950123],"updates":42,"last_update_ns":5000000000,"estimate_age_ns":120500000,"stale":false,"window":10,"history":10,"loss_headroom_bytes_per_second":6250,"floor_bytes_per_second":0,"stale_us":3000000,"converge":"gradual","guaranteed_bytes_per_second":1125000,"class_count":3,"cost_ns":12345,"classes":[{"classid":"1:10","prio":1,"type":"tcp","rate_bytes_per_second":250000,"margin_percent":0,"guarantee_bytes_per_second":250000,"demand_bytes_per_second":262500,"expected_bytes_per_second":237500,"shortfall_bytes_per_second":12500,"shortfall_sum_bytes_per_second":125000},{"classid":"1:20","prio":2,"type":"tcp","rate_bytes_per_second":154320,"margin_percent":0,"guarantee_bytes_per_second":150000,"demand_bytes_per_second":150000,"expected_bytes_per_second":179320,"shortfall_bytes_per_second":-25000,"shortfall_sum_bytes_per_second":-187500},{"classid":"1:ff","prio":3,"type":"udp","rate_bytes_per_second":50000,"margin_percent":20,"guarantee_bytes_per_second":50000,"demand_bytes_per_second":50000}]}
END
check_file "show: JSON" "$tmp/show.json" "$RENDER" show json
renamed "show: JSON, the keys renamed: the estimate's span and age (tc -j's estimate_age_ns)" \
	"$("$RENDER" show json)" j interval_us:span_us:100000 \
	estimate_age_us:estimate_age_ns:120500000

cat >"$tmp/sparse.txt" <<'END'
er2bc dev if999999
  cap 1Mbit
  recv-ratio-history 1.000
  updates 0  last estimate never  stale yes
  stale never

classid  prio  type  rate    margin  guarantee  demand  expected  shortfall  shortfall-sum
1:1      -     -     -       -       -          -       -         -          -
1:2      -     -     64Kbit  -       -          -       -         -64Kbit    -1bit
END
check_file "show: attributes missing, narrow, broken" "$tmp/sparse.txt" "$RENDER" show-sparse

cat >"$tmp/sparse.json" <<'END'
{"ifindex":999999,"cap_bytes_per_second":124999,"recv_ratio_history_ppm":[1000000],"updates":0,"last_update_ns":0,"stale":true,"stale_us":0,"classes":[{"classid":"1:1"},{"classid":"1:2","rate_bytes_per_second":8000,"shortfall_bytes_per_second":-8000,"shortfall_sum_bytes_per_second":0}]}
END
check_file "show: attributes missing, JSON" "$tmp/sparse.json" "$RENDER" show-sparse json

cat >"$tmp/monitor.txt" <<'END'
[2026-11-27T00:42:03.456796] dev lo handle 1: mode er2bc seq 7 cap 8Mbit recv-rate 8Mbit recv-ratio 1.000 recv-ratio-min 0.001 updates 7 stale no guaranteed 7.5Mbit classes 3 cost 0.8us guarantees 1:10=4Mbit 1:20=3.5Mbit +1 more
[2026-11-27T00:42:03.456797] dev if999999 handle ffff: mode er2bc seq 8 cap 8Mbit recv-rate 8Mbit recv-ratio 1.000 recv-ratio-min 0.001 updates 8 stale yes guaranteed 7.5Mbit classes 3 cost 0.8us guarantees 1:10=4Mbit 1:20=3.5Mbit +1 more
END
# (the local time of each event: a time zone of its own)
check_file "monitor: text, filtered by device, timestamped, with guarantees" "$tmp/monitor.txt" env TZ=UTC "$RENDER" monitor text

cat >"$tmp/monitor.json" <<'END'
{"unix_time_us":1795740123456796,"ifindex":1,"dev":"lo","handle":"1:","mode":"er2bc","cap_bytes_per_second":1000000,"recv_rate_bytes_per_second":999999,"seq":7,"recv_ratio_ppm":999999,"recv_ratio_min_ppm":500,"updates":7,"stale":false,"guaranteed_bytes_per_second":937500,"class_count":3,"cost_ns":800,"classes":[{"classid":"1:10","guarantee_bytes_per_second":500000},{"classid":"1:20","guarantee_bytes_per_second":437500}]}
{"unix_time_us":1795740123456797,"ifindex":999999,"handle":"ffff:","mode":"er2bc","cap_bytes_per_second":1000000,"recv_rate_bytes_per_second":999999,"seq":8,"recv_ratio_ppm":999999,"recv_ratio_min_ppm":500,"updates":8,"stale":true,"guaranteed_bytes_per_second":937500,"class_count":3,"cost_ns":800,"classes":[{"classid":"1:10","guarantee_bytes_per_second":500000},{"classid":"1:20","guarantee_bytes_per_second":437500}]}
END
check_file "monitor: JSON, one object a line" "$tmp/monitor.json" "$RENDER" monitor json

if command -v jq >/dev/null; then
	for how in json pretty; do
		if "$RENDER" show $how | jq -e '.classes[1].shortfall_bytes_per_second == -25000 and
		    .recv_ratio_history_ppm == [982000, 990000, 950123] and .handle == "1:" and
		    .cap_bytes_per_second == 1250000 and .stale_us == 3000000 and
		    .classes[2].type == "udp" and
		    (.classes[2] | has("expected_bytes_per_second") | not)' \
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

# --- the JSON reader that status reads the daemons' files with
jr() { "$RENDER" json-read; }
check "json-read: members, nested flattened, arrays skipped" 0 \
	"$(printf '%s\n' 'a int 1' 'b.c str "x"y"' 'f int -3' 'g bool true' 'h null')" "" \
	jr <<<'{"a": 1, "b": {"c": "x\"y", "d": [1, {"e": 2}, []]}, "f": -3, "g": true, "h": null}'
check "json-read: escapes, \\u of ASCII, the largest u64" 0 \
	"$(printf 's str "a\\b\tA"\nn int 18446744073709551615')" "" \
	jr <<<'{"s": "a\\b\tA", "n": 18446744073709551615}'
# INPUT|PAIRS READ|WHY (each input ends in a newline)
for bad in '[1]|0|not a JSON object' '{"a": 1,}|1|expected a key' '{"a" 1}|0|expected : after a key' \
	   '{"a": 1|1|the text ends inside an object' '{"a": 01}|0|a number with a leading zero' \
	   '{"a": 1.5}|0|a number that is not an integer' \
	   '{"a": 18446744073709551616}|0|a number too large' \
	   '{"a": "x|0|a control character in a string' '{"a": tru}|0|a bad value' \
	   '{"a": "\q"}|0|a bad escape in a string' '{"a": 1} x|1|something after the object' \
	   '{"a": [[[[[[[[[1]]]]]]]]]}|0|nested too deep'; do
	pairs=${bad#*|} pairs=${pairs%%|*}
	check "json-read refuses: ${bad##*|}" 1 "error: ${bad##*|} (after $pairs pairs)" "" \
		jr <<<"${bad%%|*}"
done
check "json-read refuses: a string does not end" 1 "error: a string does not end (after 0 pairs)" "" \
	jr < <(printf '{"a": "x')
check "json-read: no room for more pairs" 1 "error: too many members (after 8 pairs)" "" \
	jr <<<'{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}'
check "json-read: an array or object after the last pair that fits is no pair" 0 \
	"$(printf '%s\n' a b c d e f g h | sed 's/$/ int 1/')" "" \
	jr <<<'{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":[1],"j":{}}'
check "json-read: a string value too long is cut, not refused" 0 "s str \"$(printf 'x%.0s' {1..255})\"" "" \
	jr <<<"{\"s\": \"$(printf 'x%.0s' {1..700})\"}"
check "json-read: the least int64" 0 "a int -9223372036854775808" "" \
	jr <<<'{"a": -9223372036854775808}'
check "json-read: ... and no less" 1 "error: a number too large (after 1 pairs)" "" \
	jr <<<'{"a": -9223372036854775808, "b": -9223372036854775809}'

# --- status: the daemons' files and the sender's qdisc (show's, on lo)
now=1795740123
cat >"$tmp/sender.json" <<END
{"role": "sender", "peer": "192.0.2.1", "port": 4950, "dev": "lo", "ifindex": 1,
 "handle": "1:", "interval_us": 1000000, "unix_time_seconds": $((now - 1)), "estimates": 20,
 "abw_bytes_per_second": 362290, "recv_rate_bytes_per_second": 374750, "mode": "loss",
 "rtt_min_us": 20500, "requests": 21, "responses": 20, "timeouts": 1, "quiet_intervals": 0,
 "abw_set_failures": 0, "applied": true, "dropped": {"malformed": 0}, "last_error": ""}
END
cat >"$tmp/responder.json" <<END
{"role": "responder", "listen": "::", "port": 4950, "dev": "eth0", "peer_prefixes": 1,
 "unix_time_seconds": $((now - 2)), "requests": 1300, "responses": 1299, "rate_limited": 1,
 "dropped": {"malformed": 0, "unauthenticated": 0, "replayed": 0},
 "meter_refused": {"unauthenticated": 2, "replayed": 0}, "last_error": ""}
END
cat >"$tmp/status-ok.txt" <<END
sender $tmp/sender.json (written 1s ago)
  peer 192.0.2.1 port 4950  dev lo handle 1:  mode loss  interval 1s
  estimates 20  abw 2.898Mbit  recv-rate 2.998Mbit  responses 20 of 21  timeouts 1  rtt-min 20.5ms
  qdisc 1: dev lo  mode er2bc  cap 10Mbit  last estimate 400ms ago  stale no  guaranteed 9Mbit  classes 3
responder $tmp/responder.json (written 2s ago)
  listen :: port 4950  dev eth0  peer prefixes 1
  requests 1300  responses 1299  rate-limited 1  dropped unauthenticated 0 replayed 0 malformed 0  meter refused unauthenticated 2 replayed 0
ok
END
check_file "status: a sender, its qdisc and a responder, all well" "$tmp/status-ok.txt" \
	"$RENDER" status text "$tmp/sender.json" "$tmp/responder.json"

# a sender with delay probes, each echoed, and a responder that echoes
# them; then probes that no one echoes, and echoes without transmit stamps
sed 's/"last_error": ""/"probes": {"interval_us": 50000, "on": true, "sent": 400, "echoed": 398, "unstamped": 0, "reads": 19, "reading": true, "qdisc_wait_max_us": 1200}, "last_error": ""/' \
	"$tmp/sender.json" >"$tmp/sender-probes.json"
sed 's/"rate_limited": 1,/"rate_limited": 1, "probes": {"received": 398, "echoed": 398, "unstamped": 1},/' \
	"$tmp/responder.json" >"$tmp/responder-probes.json"
cat >"$tmp/status-probes.txt" <<END
sender $tmp/sender-probes.json (written 1s ago)
  peer 192.0.2.1 port 4950  dev lo handle 1:  mode loss  interval 1s
  estimates 20  abw 2.898Mbit  recv-rate 2.998Mbit  responses 20 of 21  timeouts 1  rtt-min 20.5ms
  probes every 50ms  echoed 398 of 400  unstamped 0  reads 19  qdisc-wait-max 1.2ms
  qdisc 1: dev lo  mode er2bc  cap 10Mbit  last estimate 400ms ago  stale no  guaranteed 9Mbit  classes 3
responder $tmp/responder-probes.json (written 2s ago)
  listen :: port 4950  dev eth0  peer prefixes 1
  requests 1300  responses 1299  rate-limited 1  probes 398 echoed 398  dropped unauthenticated 0 replayed 0 malformed 0  meter refused unauthenticated 2 replayed 0
ok
END
check_file "status: a sender with delay probes, a responder echoing them" \
	"$tmp/status-probes.txt" "$RENDER" status text "$tmp/sender-probes.json" \
	"$tmp/responder-probes.json"
sed 's/"echoed": 398, "unstamped": 0/"echoed": 0, "unstamped": 0/' "$tmp/sender-probes.json" \
	>"$tmp/sender-noecho.json"
out=$("$RENDER" status text "$tmp/sender-noecho.json")
rc=$?
if [[ $rc == 1 && $out == *"sender-noecho.json: none of 400 delay probes echoed: does the responder take them"* ]]; then
	ok "status: probes that no one echoes are a problem"
else
	not_ok "status: probes that no one echoes are a problem" "exit $rc" "$out"
fi
sed -e 's/"unstamped": 0, "reads": 19, "reading": true/"unstamped": 200, "reads": 19, "reading": false/' \
	"$tmp/sender-probes.json" >"$tmp/sender-nostamp.json"
out=$("$RENDER" status text "$tmp/sender-nostamp.json")
rc=$?
if [[ $rc == 1 && $out == *"sender-nostamp.json: the last estimate did not read the delay probes: none echoed with a transmit timestamp lately (echoed 398 of 400, unstamped 200)"* ]]; then
	ok "status: probes that stopped bringing a delay after a good start are a problem"
else
	not_ok "status: probes that stopped bringing a delay after a good start are a problem" \
		"exit $rc" "$out"
fi
sed 's/"on": true/"on": false/' "$tmp/sender-probes.json" >"$tmp/sender-nosock.json"
out=$("$RENDER" status text "$tmp/sender-nosock.json")
rc=$?
if [[ $rc == 1 && $out == *"sender-nosock.json: delay probes configured but not sent"* ]]; then
	ok "status: probes configured but not sent are a problem"
else
	not_ok "status: probes configured but not sent are a problem" "exit $rc" "$out"
fi

# the daemons' versions (hellos): both sides' said, the same protocol; a
# peer of protocol 1 or of a newer one, and a sender that sends no hello,
# are an upgrade not finished
ver=$(cat ../../VERSION)
sed "s/\"last_error\": \"\"/\"protocol\": 2, \"release\": \"$ver\", \"peer_versions\": {\"hellos\": 3, \"answered\": 3, \"protocol\": 2, \"release\": \"0.1.9\"}, \"last_error\": \"\"/" \
	"$tmp/sender.json" >"$tmp/sender-v2.json"
sed "s/\"last_error\": \"\"/\"protocol\": 2, \"release\": \"$ver\", \"peer_versions\": {\"hellos\": 22, \"hellos_rate_limited\": 0, \"requests_since\": 40, \"seconds_since\": 40, \"protocol\": 2, \"release\": \"$ver\", \"unix_time_seconds\": $((now - 30))}, \"last_error\": \"\"/" \
	"$tmp/responder.json" >"$tmp/responder-v2.json"
cat >"$tmp/status-v2.txt" <<END
sender $tmp/sender-v2.json (written 1s ago)
  peer 192.0.2.1 port 4950  dev lo handle 1:  mode loss  interval 1s
  estimates 20  abw 2.898Mbit  recv-rate 2.998Mbit  responses 20 of 21  timeouts 1  rtt-min 20.5ms
  er2bc $ver protocol 2  responder er2bc 0.1.9 protocol 2
  qdisc 1: dev lo  mode er2bc  cap 10Mbit  last estimate 400ms ago  stale no  guaranteed 9Mbit  classes 3
responder $tmp/responder-v2.json (written 2s ago)
  listen :: port 4950  dev eth0  peer prefixes 1
  requests 1300  responses 1299  rate-limited 1  dropped unauthenticated 0 replayed 0 malformed 0  meter refused unauthenticated 2 replayed 0
  er2bc $ver protocol 2  sender er2bc $ver protocol 2
ok
END
check_file "status: both daemons' versions, one protocol (another release is no problem)" \
	"$tmp/status-v2.txt" "$RENDER" status text "$tmp/sender-v2.json" "$tmp/responder-v2.json"
sed 's/"answered": 3, "protocol": 2, "release": "0.1.9"/"answered": 0, "protocol": 1, "release": ""/' \
	"$tmp/sender-v2.json" >"$tmp/sender-v1.json"
out=$("$RENDER" status text "$tmp/sender-v1.json")
rc=$?
if [[ $rc == 1 && $out == *"responder protocol 1 (no hellos)"* &&
      $out == *"sender-v1.json: the responder 192.0.2.1 answers no hello: it speaks protocol 1 (a release without hellos), or they are lost on the way; this side 2 (er2bc $ver): upgrade it (er2bc-abwd(8), UPGRADES)"* ]]; then
	ok "status: a responder of protocol 1 is a problem, named"
else
	not_ok "status: a responder of protocol 1 is a problem, named" "exit $rc" "$out"
fi
sed 's/"protocol": 2, "release": "0.1.9"/"protocol": 3, "release": "0.4.0"/' \
	"$tmp/sender-v2.json" >"$tmp/sender-v3.json"
out=$("$RENDER" status text "$tmp/sender-v3.json")
rc=$?
if [[ $rc == 1 && $out == *"sender-v3.json: the responder 192.0.2.1 speaks protocol 3 (er2bc 0.4.0), this side 2 (er2bc $ver): upgrade the older side (er2bc-abwd(8), UPGRADES)"* ]]; then
	ok "status: a responder of a newer protocol is a problem, named"
else
	not_ok "status: a responder of a newer protocol is a problem, named" "exit $rc" "$out"
fi
sed 's/"peer_versions": {[^}]*}/"peer_versions": {"hellos": 0, "hellos_rate_limited": 0, "requests_since": 1300, "seconds_since": 1300}/' \
	"$tmp/responder-v2.json" >"$tmp/responder-v1.json"
out=$("$RENDER" status text "$tmp/responder-v1.json")
rc=$?
if [[ $rc == 1 && $out == *"sender versions not known yet"* &&
      $out == *"responder-v1.json: 1300 requests and no hello in 1300s: the sender speaks protocol 1 (a release without hellos), or its hellos are lost on the way; this side 2 (er2bc $ver): upgrade it (er2bc-abwd(8), UPGRADES)"* ]]; then
	ok "status: a sender that asks but sends no hello is a problem, named"
else
	not_ok "status: a sender that asks but sends no hello is a problem, named" "exit $rc" "$out"
fi
# a sender that said hello once, then no more (rolled back to protocol 1)
sed 's/"requests_since": 40, "seconds_since": 40/"requests_since": 400, "seconds_since": 400/' \
	"$tmp/responder-v2.json" >"$tmp/responder-back.json"
out=$("$RENDER" status text "$tmp/responder-back.json")
rc=$?
if [[ $rc == 1 && $out == *"responder-back.json: 400 requests and no hello in 400s"* ]]; then
	ok "status: a sender that stopped saying hello is a problem, whatever its last hello said"
else
	not_ok "status: a sender that stopped saying hello is a problem" "exit $rc" "$out"
fi
# 179 requests, or 29 s, without a hello (a responder started between two
# hellos, or one hello lost): no problem yet
for q in '"requests_since": 179, "seconds_since": 1300' '"requests_since": 1300, "seconds_since": 29'; do
	sed "s/\"requests_since\": 1300, \"seconds_since\": 1300/$q/" "$tmp/responder-v1.json" \
		>"$tmp/responder-new.json"
	out=$("$RENDER" status text "$tmp/responder-new.json")
	rc=$?
	if [[ $rc == 0 ]]; then
		ok "status: no hello for $q: no problem yet"
	else
		not_ok "status: no hello for $q: no problem yet" "exit $rc" "$out"
	fi
done

# the module loaded is of another version than the tools: an upgrade not
# finished; the same version is no problem
out=$(TEST_MODULE_VERSION=0.1.9 "$RENDER" status text "$tmp/sender.json" "$tmp/responder.json")
rc=$?
if [[ $rc == 1 && $out == *"sender.json: sch_er2bc 0.1.9 is loaded, these tools are $(cat ../../VERSION): after an upgrade the old module stays until it is loaded again"* ]]; then
	ok "status: a module of another version than the tools is a problem"
else
	not_ok "status: a module of another version than the tools is a problem" "exit $rc" "$out"
fi
TEST_MODULE_VERSION=$(cat ../../VERSION) "$RENDER" status text "$tmp/sender.json" \
	"$tmp/responder.json" >"$tmp/out"
rc=$?
[[ $rc == 0 ]] && cmp -s "$tmp/out" "$tmp/status-ok.txt"
if [[ $? == 0 ]]; then
	ok "status: the module of the tools' version: no problem"
else
	not_ok "status: the module of the tools' version: no problem" "exit $rc" "$(cat "$tmp/out")"
fi
# a module built from git (its version a commit): nothing to compare
TEST_MODULE_VERSION=1258677 "$RENDER" status text "$tmp/sender.json" "$tmp/responder.json" \
	>"$tmp/out"
rc=$?
[[ $rc == 0 ]] && cmp -s "$tmp/out" "$tmp/status-ok.txt"
if [[ $? == 0 ]]; then
	ok "status: a module built from git (a commit for its version): no problem"
else
	not_ok "status: a module built from git (a commit for its version): no problem" \
		"exit $rc" "$(cat "$tmp/out")"
fi

# the same sender gone quiet, on a device without the qdisc; a responder
# without requests; a file that is not one
sed -e "s/\"unix_time_seconds\": $((now - 1))/\"unix_time_seconds\": $((now - 10))/" \
	-e 's/"quiet_intervals": 0/"quiet_intervals": 5/' -e 's/"dev": "lo"/"dev": "eth9"/' \
	-e 's/"last_error": ""/"last_error": "no response to request 25"/' \
	"$tmp/sender.json" >"$tmp/sender-bad.json"
sed "s/\"unix_time_seconds\": $((now - 2))/\"unix_time_seconds\": $((now - 95))/" \
	"$tmp/responder.json" >"$tmp/responder-bad.json"
echo '{"role": "sender",' >"$tmp/cut.json"
echo '{"peer": "x"}' >"$tmp/norole.json"
check "status: what is wrong, named, exit 1" 1 "$(printf '%s\n' \
	"sender $tmp/sender-bad.json (written 10s ago)" \
	"  peer 192.0.2.1 port 4950  dev eth9 handle 1:  mode loss  interval 1s" \
	"  estimates 20  abw 2.898Mbit  recv-rate 2.998Mbit  responses 20 of 21  timeouts 1  rtt-min 20.5ms" \
	"  last error: no response to request 25" \
	"responder $tmp/responder-bad.json (written 95s ago)" \
	"  listen :: port 4950  dev eth0  peer prefixes 1" \
	"  requests 1300  responses 1299  rate-limited 1  dropped unauthenticated 0 replayed 0 malformed 0  meter refused unauthenticated 2 replayed 0" \
	"$tmp/cut.json" "$tmp/norole.json" \
	"6 problems:" \
	"  $tmp/sender-bad.json: not written for 10s (interval 1s): is er2bc-abwd running?" \
	"  $tmp/sender-bad.json: no response from 192.0.2.1 for 5 intervals (no response to request 25)" \
	"  $tmp/sender-bad.json: no er2bc qdisc 1: on eth9" \
	"  $tmp/responder-bad.json: no request from the peer for 95s: is its sender running, and is port 4950 open here?" \
	"  $tmp/cut.json: cannot be read: the text ends inside an object" \
	"  $tmp/norole.json: not an er2bc-abwd status file (no role)")" "" \
	"$RENDER" status text "$tmp/sender-bad.json" "$tmp/responder-bad.json" "$tmp/cut.json" \
	"$tmp/norole.json"
# a responder that takes no request: the keys differ
sed -e 's/"requests": 1300, "responses": 1299/"requests": 0, "responses": 0/' \
	-e 's/"unauthenticated": 0, "replayed": 0}/"unauthenticated": 40, "replayed": 0}/' \
	"$tmp/responder.json" >"$tmp/responder-key.json"
out=$("$RENDER" status text "$tmp/responder-key.json")
rc=$?
if [[ $rc == 1 && $out == *"responder-key.json: 40 datagrams dropped and no request taken (unauthenticated 40, replayed 0, malformed 0): do both ends have the same key?" ]]; then
	ok "status: a responder that drops every datagram: the keys named"
else
	not_ok "status: a responder that drops every datagram: the keys named" "exit $rc" "$out"
fi
# a qdisc gone stale: the sender's line and the problem give its age
sed 's/"dev": "lo"/"dev": "stale"/' "$tmp/sender.json" >"$tmp/sender-stale.json"
out=$("$RENDER" status text "$tmp/sender-stale.json")
rc=$?
if [[ $rc == 1 && $out == *"qdisc 1: dev stale  mode er2bc  cap 10Mbit  last estimate 4.4s ago  stale yes"* &&
      $out == *"sender-stale.json: qdisc 1: on stale is stale: the last estimate came 4s ago" ]]; then
	ok "status: a stale qdisc, its last estimate's age"
else
	not_ok "status: a stale qdisc, its last estimate's age" "exit $rc" "$out"
fi
check "status: no file, exit 1" 1 \
	'no er2bc-abwd status file: set "status" in the daemon'"'"'s configuration (/run/er2bc/abwd-*.json is read)' \
	"" "$RENDER" status text
out=$("$RENDER" status json "$tmp/sender.json" "$tmp/responder-bad.json")
rc=$?
if [[ $rc == 1 ]] && python3 -c '
import json, sys
j = json.loads(sys.argv[1])
s, r = j["daemons"]
sys.exit(0 if not j["ok"] and s["role"] == "sender" and s["problems"] == []
         and s["status"]["abw_bytes_per_second"] == 362290 and s["status"]["dropped"] == {"malformed": 0}
         and s["qdisc"]["cap_bytes_per_second"] == 1250000 and s["qdisc"]["estimate_age_ns"] == 400000000
         and s["status_age_us"] == 1000000 and len(r["problems"]) == 1 else 1)' "$out"; then
	ok "status: JSON, the files as they are and the problems"
else
	not_ok "status: JSON, the files as they are and the problems" "exit $rc" "$out"
fi
# the file's objects nested as the file nests them, not "outer.inner";
# the keys renamed in 0.2.0 (the status file's age, the estimate's age and
# span) under their new names alone
out=$("$RENDER" status json "$tmp/sender-probes.json" "$tmp/responder-probes.json")
if python3 -c '
import json, sys
s, r = json.loads(sys.argv[1])["daemons"]
old = {"written_us_ago", "estimate_age_us", "interval_us"}
def keys(o):
    for k, v in o.items():
        yield k
        if isinstance(v, dict):
            yield from keys(v)
p = s["status"]["probes"]
sys.exit(0 if p["interval_us"] == 50000 and p["sent"] == 400 and p["on"] is True
         and p["qdisc_wait_max_us"] == 1200 and s["status"]["interval_us"] == 1000000
         and r["status"]["meter_refused"] == {"unauthenticated": 2, "replayed": 0}
         and r["status"]["probes"]["received"] > 0 and not any("." in k for k in keys(s))
         and s["status_age_us"] == 1000000 and r["status_age_us"] == 2000000
         and s["qdisc"]["span_us"] == 100000 and s["qdisc"]["estimate_age_ns"] == 400000000
         and not old & set(s) and not old & set(s["qdisc"]) and not old & set(r) else 1)' "$out"; then
	ok "status: JSON, the file's objects nested; status_age_us, span_us, estimate_age_ns"
else
	not_ok "status: JSON, the file's objects nested; status_age_us, span_us, estimate_age_ns" "$out"
fi
renamed "status: JSON, the status file's age renamed (metrics' status_age)" \
	"$("$RENDER" status json "$tmp/sender.json")" 'j["daemons"][0]' \
	written_us_ago:status_age_us:1000000
# objects in objects, one after another, one empty (left out: no member)
cat >"$tmp/nested.json" <<END
{"role": "responder", "a": {"b": {"c": 1, "d": {"e": "x"}}, "f": -2}, "g": {"h": true},
 "i": {}, "j": [1, {"k": 1}], "l": {"m": {"n": {"o": 3}}}, "unix_time_seconds": $((now - 2)),
 "p": 4}
END
out=$("$RENDER" status json "$tmp/nested.json")
if python3 -c '
import json, sys
d = json.loads(sys.argv[1])["daemons"][0]["status"]
sys.exit(0 if d == {"role": "responder", "a": {"b": {"c": 1, "d": {"e": "x"}}, "f": -2},
                    "g": {"h": True}, "l": {"m": {"n": {"o": 3}}},
                    "unix_time_seconds": int(sys.argv[2]) - 2, "p": 4} else 1)' "$out" "$now"; then
	ok "status: JSON, objects in objects nested back as the file has them"
else
	not_ok "status: JSON, objects in objects nested back as the file has them" "$out"
fi

cat >"$tmp/rcvmgr-config.txt" <<'END'
policy azuma
wan lo if999999
lan 192.168.0.0/16
rule port 80-443 dscp 46 priority 100
rule port 22 mark 0x10/0xf0 priority 1
interval 100ms  max-conns 65536  idle-timeout 120s
budget-init 64KiB  budget-min 16KiB  budget-max 16MiB  budget-step 1460B  budget-decrease 100
rtt-tolerance 20%  link-rate 100Mbit  spring-queue 64KiB  spring-interactive 2KiB  spring-short 100KiB  initial-window 10
END
check_file "rcvmgr show: text" "$tmp/rcvmgr-config.txt" "$RENDER" rcvmgr-config text

cat >"$tmp/rcvmgr-config.json" <<'END'
{"policy":"azuma","wan_dev":[{"ifindex":1,"dev":"lo"},{"ifindex":999999}],"lan_prefix":[{"addr":"192.168.0.0","plen":16}],"rule":[{"port_min":80,"port_max":443,"dscp":46,"priority":100},{"port_min":22,"port_max":22,"mark":16,"mark_mask":240,"priority":1}],"interval_us":100000,"max_conns":65536,"idle_timeout_us":120000000,"budget_init_bytes":65536,"budget_min_bytes":16384,"budget_max_bytes":16777216,"budget_step_bytes":1460,"budget_decrease_permille":100,"rtt_tolerance_percent":20,"link_rate_bytes_per_second":12500000,"spring_queue_bytes":65536,"spring_interactive_bytes":2048,"spring_short_bytes":102400,"initial_window_segments":10}
END
check_file "rcvmgr show: JSON" "$tmp/rcvmgr-config.json" "$RENDER" rcvmgr-config json

# what show prints, but the WAN devices (one is gone), is what set takes
req "takes back what show prints" "$(printf '%s\n' 'policy u8 1' 'lan-prefix' \
	'  addr c0a80000' '  plen u8 16' 'rule' '  port-min u16 80' '  port-max u16 443' \
	'  dscp u8 46' '  priority u32 100' 'rule' '  port-min u16 22' '  port-max u16 22' \
	'  mark u32 16' '  mark-mask u32 240' '  priority u32 1' 'interval u32 100' \
	'max-conns u32 65536' 'idle-timeout u32 120000' 'budget-init u32 65536' \
	'budget-min u32 16384' 'budget-max u32 16777216' 'budget-step u32 1460' \
	'budget-decrease u32 100' 'rtt-tolerance u32 20' 'link-rate u64 100000000' \
	'spring-queue u32 65536' 'spring-interactive u32 2048' 'spring-short u32 102400' \
	'initial-window u32 10')" \
	$("$RENDER" rcvmgr-config text | grep -v '^wan ')

cat >"$tmp/rcvmgr-sparse.txt" <<'END'
policy 9
wan none
lan none
rule none
interval 1.5s  idle-timeout 90s
policy 9
wan none
lan 2001:db8::1 fd00::/8
rule mark 0xcafe priority 1000
rule port 1024-65535 mark 0x1
interval 1.5s  idle-timeout 90s
END
check_file "rcvmgr show: empty lists, then lists merged; odd widths" "$tmp/rcvmgr-sparse.txt" \
	"$RENDER" rcvmgr-config-sparse text
cat >"$tmp/rcvmgr-sparse.json" <<'END'
{"policy":"9","wan_dev":[],"lan_prefix":[],"rule":[],"interval_us":1500000,"idle_timeout_us":90000000}
{"policy":"9","wan_dev":[],"lan_prefix":[{"addr":"2001:db8::1"},{"addr":"fd00::","plen":8}],"rule":[{"mark":51966,"priority":1000},{"port_min":1024,"mark":1,"mark_mask":4294967295}],"interval_us":1500000,"idle_timeout_us":90000000}
END
check_file "rcvmgr show: empty lists, JSON" "$tmp/rcvmgr-sparse.json" \
	"$RENDER" rcvmgr-config-sparse json

cat >"$tmp/rcvmgr-conns.txt" <<'END'
198.51.100.7:443 > 192.168.1.20:51234 persistent priority 100 bytes 1.18MiB rtt 23.5ms rtt-min 20.0ms window 64KiB threshold 32KiB advertised 256KiB wscale 7 mss 1448 rewritten 1234 age 12.345s
[2001:db8::1]:80 > [fd00::20]:40000 initial priority 1 bytes 900B rtt 0.1ms rtt-min 0.0ms window 13.9KiB threshold 1MiB advertised 4GiB wscale 14 mss 1428 rewritten 0 age 3723s
- > - state 7 mss 536
END
check_file "rcvmgr conns: text, IPv4 and IPv6" "$tmp/rcvmgr-conns.txt" "$RENDER" rcvmgr-conns text

cat >"$tmp/rcvmgr-conns.json" <<'END'
[{"family":"inet","saddr":"198.51.100.7","daddr":"192.168.1.20","sport":443,"dport":51234,"state":"persistent","priority":100,"bytes":1234567,"rtt_us":23456,"rtt_min_us":20049,"rtt_samples":312,"mss_bytes":1448,"wscale":7,"window_bytes":65536,"threshold_bytes":32768,"advertised_bytes":262144,"rewritten":1234,"age_us":12345000},{"family":"inet6","saddr":"2001:db8::1","daddr":"fd00::20","sport":80,"dport":40000,"state":"initial","priority":1,"bytes":900,"rtt_us":50,"rtt_min_us":0,"rtt_samples":1,"mss_bytes":1428,"wscale":14,"window_bytes":14280,"threshold_bytes":1048576,"advertised_bytes":4294967295,"rewritten":0,"age_us":3723000000},{"family":"99","state":"7","mss_bytes":536}]
END
check_file "rcvmgr conns: JSON, one array" "$tmp/rcvmgr-conns.json" "$RENDER" rcvmgr-conns json
check "rcvmgr conns: none, text" 0 "" "" "$RENDER" rcvmgr-conns-none text
check "rcvmgr conns: none, JSON" 0 "[]" "" "$RENDER" rcvmgr-conns-none json

cat >"$tmp/rcvmgr-stats.txt" <<'END'
conns 12  initial 3  persistent 8  budget 1.5MiB  memory 3KiB
intervals 36000  budget-up 20000  budget-down 1500  probes 40
created 4000  freed 3988  full 0  unscaled 2  adopted 5
resets 9  resumed 4  recalled 3  kept-lost 1
acks 9876543210  rewritten 123456  rtt-samples 234567  unseen 17
END
check_file "rcvmgr stats: text" "$tmp/rcvmgr-stats.txt" "$RENDER" rcvmgr-stats text
cat >"$tmp/rcvmgr-stats.json" <<'END'
{"conns":12,"initial":3,"persistent":8,"budget_bytes":1572864,"intervals":36000,"budget_up":20000,"budget_down":1500,"created":4000,"freed":3988,"full":0,"unscaled":2,"acks":9876543210,"rewritten":123456,"rtt_samples":234567,"memory_bytes":3072,"adopted":5,"probes":40,"unseen":17,"resets":9,"resumed":4,"recalled":3,"kept_lost":1}
END
check_file "rcvmgr stats: JSON, the spec's names with their units" "$tmp/rcvmgr-stats.json" "$RENDER" rcvmgr-stats json
# each key that gained its unit, and the value in that unit (ms made us,
# bit/s made bytes/s)
renamed "rcvmgr show: JSON, the keys renamed, in their units" \
	"$("$RENDER" rcvmgr-config json)" j interval:interval_us:100000 \
	idle_timeout:idle_timeout_us:120000000 budget_init:budget_init_bytes:65536 \
	budget_min:budget_min_bytes:16384 budget_max:budget_max_bytes:16777216 \
	budget_step:budget_step_bytes:1460 budget_decrease:budget_decrease_permille:100 \
	rtt_tolerance:rtt_tolerance_percent:20 link_rate:link_rate_bytes_per_second:12500000 \
	spring_queue:spring_queue_bytes:65536 spring_interactive:spring_interactive_bytes:2048 \
	spring_short:spring_short_bytes:102400 initial_window:initial_window_segments:10
renamed "rcvmgr conns: JSON, the keys renamed, in their units" \
	"$("$RENDER" rcvmgr-conns json)" 'j[1]' rtt:rtt_us:50 rtt_min:rtt_min_us:0 \
	mss:mss_bytes:1428 window:window_bytes:14280 threshold:threshold_bytes:1048576 \
	advertised:advertised_bytes:4294967295 age:age_us:3723000000
renamed "rcvmgr stats: JSON, the keys renamed" "$("$RENDER" rcvmgr-stats json)" j \
	budget:budget_bytes:1572864 memory:memory_bytes:3072

if command -v jq >/dev/null; then
	for how in json pretty; do
		if "$RENDER" rcvmgr-config $how | jq -e '.policy == "azuma" and
		    (.wan_dev | length) == 2 and .wan_dev[0].dev == "lo" and
		    (.wan_dev[1] | has("dev") | not) and .lan_prefix[0].plen == 16 and
		    .rule[1].mark_mask == 240 and .interval_us == 100000 and
		    .link_rate_bytes_per_second == 12500000' >/dev/null &&
		   "$RENDER" rcvmgr-conns $how | jq -e 'length == 3 and .[0].sport == 443 and
		    .[1].saddr == "2001:db8::1" and .[1].family == "inet6" and
		    .[0].rtt_min_us == 20049 and .[1].age_us == 3723000000' >/dev/null &&
		   "$RENDER" rcvmgr-stats $how | jq -e '.budget_bytes == 1572864 and .budget_up == 20000 and
		    .rtt_samples == 234567 and .adopted == 5 and .probes == 40 and .unseen == 17 and .resets == 9 and .resumed == 4 and .recalled == 3 and .kept_lost == 1 and (keys | length) == 22' >/dev/null &&
		   [[ $("$RENDER" rcvmgr-conns-none $how | jq -c .) == "[]" ]]; then
			ok "rcvmgr: $how parses (jq)"
		else
			not_ok "rcvmgr: $how parses (jq)"
		fi
	done
else
	skip "rcvmgr: JSON parses (jq)" "no jq"
fi

cat >"$tmp/extack.txt" <<'END'
capped: ret 22 error 22 msg "not an er2bc qdisc"
er2bcctl: not an er2bc qdisc: Invalid argument
uncapped: ret 19 error 19 msg "no such qdisc"
er2bcctl: no such qdisc: No such device
missing: ret 22 error 22 msg "" miss 5
er2bcctl: abw-set: missing attribute recv-rate: Invalid argument
missing-rcvmgr: ret 22 error 22 msg "" miss 11
er2bcctl: rcvmgr set: missing attribute budget-min: Invalid argument
rcvmgr: ret 19 error 19 msg "tcp_rcvmgr: no such WAN device"
er2bcctl: tcp_rcvmgr: no such WAN device: No such device
rcvmgr-plain: ret 1 error 1 msg ""
er2bcctl: rcvmgr set: Operation not permitted
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


echo "# metrics: the Prometheus text format, read by prometheus_client's parser"
mcheck=./metrics-check.py
if ! /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null; then
	echo "Bail out! python3-prometheus-client is missing (tools/testing/setup-deps.sh)"
	exit 1
fi
"$RENDER" metrics >"$tmp/metrics.txt" 2>"$tmp/err"
if [[ -s $tmp/err ]]; then
	not_ok "metrics: printed without a message" "$(<"$tmp/err")"
else
	ok "metrics: printed without a message"
fi
mexpect=(
	'er2bc_info{dev=lo,handle=1:,mode=er2bc,converge=gradual}=1'
	'er2bc_cap_bytes_per_second{dev=lo,handle=1:}=1250000'
	'er2bc_cap_ceiling_bytes_per_second{dev=lo}=1500000'
	'er2bc_recv_rate_bytes_per_second{dev=lo}=1187500'
	'er2bc_estimate_age_seconds{dev=lo}=1.5'
	'er2bc_estimate_span_seconds{dev=lo}=0.1'
	'er2bc_updates_total{dev=lo}=42'
	'er2bc_stale_timeout_seconds{dev=lo}=3'
	'er2bc_recv_ratio_min{dev=lo}=0.950123'
	'er2bc_scavenger_hold_seconds{dev=lo}=1.5'
	'er2bc_sent_bytes_total{dev=lo}=9876543210'
	'er2bc_backlog_packets{dev=lo}=17'
	'er2bc_throttled_total{dev=lo}=1234'
	'er2bc_held_seconds_total{dev=lo}=7.25'
	'er2bc_yielded_total{dev=lo}=7'
	'er2bc_class_info{dev=lo,classid=1:ff,prio=3,type=udp}=1'
	'er2bc_class_rate_bytes_per_second{classid=1:20}=154320.875'
	'er2bc_class_guarantee_bytes_per_second{classid=1:10}=250000'
	'er2bc_class_dropped_packets_total{classid=1:10}=4'
	'er2bc_class_borrowed_bytes_total{classid=1:10}=250000'
	'er2bc_class_sent_bytes_total{classid=1:ff}=7'
	'er2bc_class_shortage_seconds_total{classid=1:10}=12.345'
	# its latency bound
	'er2bc_class_service_rate_bytes_per_second{classid=1:10}=125000'
	'er2bc_class_backlog_limit_bytes{classid=1:10}=12500'
	'er2bc_class_latency_dropped_packets_total{classid=1:10}=6'
	# the estimate's age from tc when the controller's state is missing
	'er2bc_estimate_age_seconds{dev=if999999,handle=3:}=2.5'
	# a device name with a quote and a backslash, escaped and read back
	'er2bc_sent_bytes_total{dev=we"ird\,handle=2:}=100'
	# W from the xstats when the controller's state is not there
	'er2bc_cap_bytes_per_second{dev=we"ird\}=1250000'
	'tcp_rcvmgr_acks_total=9876543210'
	'tcp_rcvmgr_budget_bytes=1572864'
	# er2bc-abwd's counters from its status files, by role and device
	'er2bc_abwd_info{role=sender,dev=eth1,status_file=abwd-sender.json,mode=loss,peer=192.0.2.1}=1'
	'er2bc_abwd_info{role=responder,dev=eth0}=1'
	'er2bc_abwd_status_age_seconds{role=sender,dev=eth1}=3'
	'er2bc_abwd_requests_total{role=sender,dev=eth1}=21'
	'er2bc_abwd_requests_total{role=responder,dev=eth0}=1300'
	'er2bc_abwd_timeouts_total{role=sender}=1'
	'er2bc_abwd_decays_total{role=sender}=2'
	'er2bc_abwd_queue_delay_seconds{role=sender}=0.0015'
	'er2bc_abwd_rate_limited_total{role=responder}=1'
	'er2bc_abwd_probes_sent_total{role=sender}=400'
	'er2bc_abwd_probes_echoed_total{role=sender}=398'
	'er2bc_abwd_dropped_total{role=sender,reason=malformed}=3'
	'er2bc_abwd_dropped_total{role=responder,reason=replayed}=4'
	'er2bc_abwd_meter_refused_total{role=responder,reason=unauthenticated}=2'
)
mabsent=(
	# a class's xstats of the wrong size are not read
	'er2bc_class_guaranteed_bytes_total{classid=1:ff}'
	'er2bc_class_guaranteed_bytes_total{classid=1:fe}'
	# the other qdisc's class in the made-up dump is not mixed in
	'er2bc_class_info{classid=2:10}'
	# an older module's class: no shortage said to be 0, no latency bound
	'er2bc_class_shortage_seconds_total{classid=1:20}'
	'er2bc_class_latency_dropped_packets_total{classid=1:20}'
	'er2bc_class_backlog_limit_bytes{classid=1:20}'
	# an older module's qdisc: no scavengers' count, no estimate's age
	'er2bc_yielded_total{handle=2:}'
	'er2bc_estimate_age_seconds{handle=2:}'
	'er2bc_held_seconds_total{handle=2:}'
	# xstats of neither size of a class's
	'er2bc_class_borrowed_bytes_total{classid=1:ff}'
	'er2bc_class_borrowed_bytes_total{classid=1:fe}'
	# a qdisc's nested statistics where a class's belong
	'er2bc_class_guaranteed_bytes_total{classid=1:fd}'
	'er2bc_class_shortage_seconds_total{classid=1:fd}'
	# the names before 0.2.0's vocabulary: er2bc_estimate_span_seconds and
	# er2bc_updates_total now, as show and tc name them
	'er2bc_estimate_interval_seconds'
	'er2bc_estimates_total'
	# a responder has no timeouts; a sender no rate limit
	'er2bc_abwd_timeouts_total{role=responder}'
	'er2bc_abwd_rate_limited_total{role=sender}'
)
margs=()
for e in "${mexpect[@]}"; do margs+=(--expect "$e"); done
for a in "${mabsent[@]}"; do margs+=(--absent "$a"); done
if out=$("$mcheck" "${margs[@]}" <"$tmp/metrics.txt"); then
	ok "metrics: parsed by prometheus_client, names and types by the conventions, ${#mexpect[@]} values as sent"
else
	not_ok "metrics: parsed by prometheus_client, names and types by the conventions, ${#mexpect[@]} values as sent" "$out"
fi
# the checker itself fails on what it must refuse
printf '# HELP er2bc_x_bits x\n# TYPE er2bc_x_bits counter\ner2bc_x_bits_total 1\nbad{ 2\n' >"$tmp/bad.txt"
if out=$("$mcheck" <"$tmp/bad.txt"); then
	not_ok "metrics check: refuses text the parser refuses"
else
	ok "metrics check: refuses text the parser refuses"
fi
sed -i 's/^er2bc_sent_bytes_total{dev="lo",handle="1:"} .*/&\n&/' "$tmp/metrics.txt"
if out=$("$mcheck" <"$tmp/metrics.txt") || [[ $out != *repeated* ]]; then
	not_ok "metrics check: refuses a repeated sample" "$out"
else
	ok "metrics check: refuses a repeated sample"
fi
check "metrics: an unknown argument" 2 "" \
	'er2bcctl: metrics: unknown argument "handle" (try er2bcctl -h)' "$BIN" metrics handle 1:
check "metrics: dev needs a value" 2 "" 'er2bcctl: metrics: "dev" needs a value' \
	"$BIN" metrics dev
# here, on the host, neither module is loaded: nothing to say, and no error
check "metrics: no er2bc qdisc and no tcp_rcvmgr: no metrics, exit 0" 0 "" "" "$BIN" metrics
# output FILE (er2bc-metrics.service's): a sender's status file here gives
# it lines; the file replaced whole, mode 644, no temporary left beside it
mkdir -p "$tmp/sd" "$tmp/prom"
cp "$tmp/sender.json" "$tmp/sd/abwd-sender.json"
echo "old" >"$tmp/prom/er2bc.prom"
out=$("$BIN" metrics dir "$tmp/sd" output "$tmp/prom/er2bc.prom" 2>&1)
rc=$?
if [[ $rc == 0 && -z $out && $(stat -c %a "$tmp/prom/er2bc.prom") == 644 &&
      $(ls -A "$tmp/prom") == er2bc.prom ]] &&
   grep -q '^er2bc_abwd_info{role="sender",dev="lo"' "$tmp/prom/er2bc.prom" &&
   "$mcheck" <"$tmp/prom/er2bc.prom" >/dev/null; then
	ok "metrics output FILE: replaced whole, mode 644, nothing left beside it"
else
	not_ok "metrics output FILE: replaced whole, mode 644, nothing left beside it" \
		"exit $rc: $out" "$(ls -lA "$tmp/prom")" "$(head -n 3 "$tmp/prom/er2bc.prom")"
fi
# a FILE that cannot be replaced (a directory): exit 1, it and its
# directory as they were
mkdir "$tmp/prom/d"
check "metrics output: a FILE that cannot be replaced stays as it was, exit 1" 1 "" \
	"er2bcctl: metrics: cannot write $tmp/prom/d: Is a directory (it stays as it was)" \
	"$BIN" metrics dir "$tmp/sd" output "$tmp/prom/d"
left=$(ls -A "$tmp/prom" | tr '\n' ' ')
if [[ $left == "d er2bc.prom " && -z $(ls -A "$tmp/prom/d") ]]; then
	ok "metrics output: no temporary left after the failure"
else
	not_ok "metrics output: no temporary left after the failure" "$left"
fi
check "metrics output: a directory that is not there, exit 1" 1 "" \
	"er2bcctl: metrics: cannot write beside $tmp/none/er2bc.prom: No such file or directory" \
	"$BIN" metrics output "$tmp/none/er2bc.prom"
check "metrics output: a directory for FILE" 2 "" \
	"er2bcctl: metrics: invalid output \"$tmp/prom/\": a file name, not a directory" \
	"$BIN" metrics output "$tmp/prom/"
check "metrics output: given twice" 2 "" 'er2bcctl: metrics: "output" given twice' \
	"$BIN" metrics output a output b


echo "# the examples shipped: every line of rcvmgr.batch.example parses (eth1 as lo)"
ex_ok=0 ex_lines=0
while read -r line; do
	[[ -z $line || $line == \#* ]] && continue
	ex_lines=$((ex_lines + 1))
	line=${line//eth1/lo}
	# shellcheck disable=SC2086 # the line's words are the arguments
	"$RENDER" rcvmgr-set ${line#rcvmgr set } >/dev/null 2>"$tmp/err" && [[ ! -s $tmp/err ]] &&
		ex_ok=$((ex_ok + 1))
done <rcvmgr.batch.example
if ((ex_lines > 0 && ex_ok == ex_lines)); then
	ok "rcvmgr.batch.example: its $ex_lines commands parse"
else
	not_ok "rcvmgr.batch.example: its $ex_lines commands parse" "$ex_ok parsed" "$(<"$tmp/err")"
fi
echo "1..$n"
if ((failed)); then
	echo "# $failed of $n failed"
	exit 1
fi
echo "# all $n passed"
