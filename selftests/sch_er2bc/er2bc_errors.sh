#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad input to the er2bc qdisc and its classes: each invalid command fails
# with a clear message (the tc plugin's, the kernel's extack that tc prints,
# or the errno of the tc core), and the running configuration stays as it
# was. Requests the plugin would never build go as raw netlink (nlraw.py).
source "$(dirname "$0")/../lib.sh"

ALL_TESTS="
	qdisc_options
	class_options
	wide_values
	raw_policy
	boot_file
"

here=$(cd "$(dirname "$0")" && pwd)
tcq() { tc -netns "$NS" "$@"; }

# each case's own namespace and a configuration to keep: a qdisc, two
# classes and a filter; $before, what tc shows of it (a setup that fails
# is the case's one check)
setup() {
	before=
	setup_ns NS && dummy_dev "$NS" &&
		tcq qdisc add dev dummy0 root handle 1: er2bc rate 5mbit default 50 &&
		tcq class add dev dummy0 parent 1: classid 1:10 er2bc prio 1 rate 400kbit ceil 1mbit &&
		tcq class add dev dummy0 parent 1: classid 1:50 er2bc &&
		tcq filter add dev dummy0 parent 1: protocol ip prio 1 u32 \
			match ip dport 5001 0xffff classid 1:10 &&
		before=$(config) && [[ "$before" == *er2bc* ]] && return 0
	tap_result $ksft_fail "${FUNCNAME[1]}: a configuration to keep" "tc shows: ${before:-}"
	return 1
}

# the configuration as tc shows it: qdisc options, every class and filter
# (one tc: a process costs the debug kernel half a second or more)
config() {
	tcq -j -batch - <<-EOF
		qdisc show dev dummy0
		class show dev dummy0
		filter show dev dummy0
	EOF
}

# refused WANT DESC CMD...: fails, prints WANT, leaves the configuration
refused() {
	local want=$1 desc=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && [[ "$out" == *"$want"* ]] && [[ "$before" == *er2bc* ]] &&
		[ "$(config)" = "$before" ]; then
		tap_result 0 "$desc" "${out%%$'\n'*}"
	else
		tap_result 1 "$desc" "exit $rc: ${out%%$'\n'*}"
	fi
}
raw() { ip netns exec "$NS" python3 -S "$here/nlraw.py" "$@"; }

qdisc_options() {
	setup || return
	# --- the qdisc
	refused 'illegal "rate" value "0": use "rate unlimited"' "qdisc rate 0" \
		tcq qdisc change dev dummy0 root er2bc rate 0
	refused 'illegal "rate" value "-5mbit": must not be negative' "qdisc rate negative" \
		tcq qdisc change dev dummy0 root er2bc rate -5mbit
	refused 'illegal "mode" value "fast"' "qdisc mode unknown" \
		tcq qdisc change dev dummy0 root er2bc mode fast
	refused 'illegal "share" value "fair"' "qdisc share unknown" \
		tcq qdisc change dev dummy0 root er2bc share fair
	refused 'illegal "default" value "10000"' "qdisc default beyond a minor" \
		tcq qdisc change dev dummy0 root er2bc default 10000
	refused 'illegal "burst" value "600mb": at most 512mb' "qdisc burst above 512 MiB" \
		tcq qdisc change dev dummy0 root er2bc burst 600mb
	refused 'unknown option "limit"' "qdisc option that does not exist" \
		tcq qdisc change dev dummy0 root er2bc limit 100
	# a word out of place at the end is unknown, not a keyword short of a value
	refused 'unknown option "bogus"' "qdisc: a last word that is no option: unknown" \
		tcq qdisc change dev dummy0 root er2bc rate 5mbit bogus
	refused '"stale" needs a value' "qdisc: a last option without its value: needs a value" \
		tcq qdisc change dev dummy0 root er2bc rate 5mbit stale
	# (a bare time is in us, as tc reads times: 1500 was 1.5 s before 2026-11-28)
	refused 'illegal "stale" value "1500": a whole number of milliseconds' \
		"qdisc stale: a bare number is us, and not whole ms" \
		tcq qdisc change dev dummy0 root er2bc stale 1500
	refused 'illegal "window" value "33": updates, 1-32' "qdisc window (C) above 32" \
		tcq qdisc change dev dummy0 root er2bc window 33
	refused 'unknown class option "mode"' "class: a qdisc's option last: unknown" \
		tcq class change dev dummy0 classid 1:10 er2bc rate 1mbit mode
	refused 'illegal "probe-mark" value "0": a mark, 0x1-0xffffffff, or none' "qdisc probe-mark 0" \
		tcq qdisc change dev dummy0 root er2bc probe-mark 0
	refused 'illegal "probe-mark" value "0x100000000"' "qdisc probe-mark beyond 32 bits" \
		tcq qdisc change dev dummy0 root er2bc probe-mark 0x100000000
	refused 'illegal "latency" value "61s": at most 60s' "qdisc latency above 60 s" \
		tcq qdisc change dev dummy0 root er2bc latency 61s
	refused 'illegal "latency" value "0": use "latency unlimited" for no bound' "qdisc latency 0" \
		tcq qdisc change dev dummy0 root er2bc latency 0
	refused 'illegal "latency" value "1.5us": a whole number of microseconds' \
		"qdisc latency below a microsecond's precision" \
		tcq qdisc change dev dummy0 root er2bc latency 1.5us
	refused 'illegal "latency" value "soon": a time (e.g. 500ms, 3s)' "qdisc latency not a time" \
		tcq qdisc change dev dummy0 root er2bc latency soon
}

class_options() {
	setup || return
	# --- classes, through tc
	refused 'illegal "prio" value "0": 1 (highest) to 64' "class prio 0" \
		tcq class change dev dummy0 classid 1:10 er2bc prio 0
	refused 'illegal "prio" value "65": 1 (highest) to 64' "class prio above 64" \
		tcq class change dev dummy0 classid 1:10 er2bc prio 65
	refused 'illegal "rate" value "-1kbit": must not be negative' "class rate negative" \
		tcq class change dev dummy0 classid 1:10 er2bc rate -1kbit
	refused 'illegal "ceil" value "0": use "ceil none"' "class ceil 0" \
		tcq class change dev dummy0 classid 1:10 er2bc ceil 0
	refused 'illegal "weight" value "0": 1 to 65535' "class weight 0" \
		tcq class change dev dummy0 classid 1:10 er2bc weight 0
	refused 'illegal "weight" value "70000": 1 to 65535' "class weight above 65535" \
		tcq class change dev dummy0 classid 1:10 er2bc weight 70000
	refused 'illegal "type" value "sctp": tcp, udp or scavenger' "class type unknown" \
		tcq class change dev dummy0 classid 1:10 er2bc type sctp
	refused 'illegal "margin" value "101%": 0 to 100 percent' "class margin above 100 %" \
		tcq class change dev dummy0 classid 1:10 er2bc margin 101%
	refused 'illegal "margin" value "ten": 0 to 100 percent' "class margin not a number" \
		tcq class change dev dummy0 classid 1:10 er2bc margin ten
	refused 'illegal "margin" value "20": a scavenger class holds no guarantee: 0 only' \
		"class margin on a scavenger" \
		tcq class change dev dummy0 classid 1:10 er2bc rate 0 type scavenger margin 20
	refused 'illegal "latency" value "2min": a time (e.g. 500ms, 3s)' "class latency not a time" \
		tcq class change dev dummy0 classid 1:10 er2bc latency 2min
	refused 'illegal "latency" value "60.5s": at most 60s' "class latency above 60 s" \
		tcq class change dev dummy0 classid 1:10 er2bc latency 60.5s
	refused "Error: er2bc: ceil must not be below rate" "class rate above its ceil (kernel)" \
		tcq class change dev dummy0 classid 1:10 er2bc rate 2mbit
	refused "Error: er2bc: ceil must not be below rate" "new class with ceil below rate (kernel)" \
		tcq class add dev dummy0 parent 1: classid 1:20 er2bc rate 2mbit ceil 1mbit
	refused "Error: er2bc: classes are flat: their parent is the qdisc" "class under a class" \
		tcq class add dev dummy0 parent 1:10 classid 1:30 er2bc rate 1mbit
	refused "Error: er2bc: classid must be <qdisc major>:<minor>, minor not 0" "classid minor 0" \
		tcq class add dev dummy0 parent 1: classid 1:0 er2bc rate 1mbit
	refused "File exists" "duplicate classid" \
		tcq class add dev dummy0 parent 1: classid 1:10 er2bc rate 1mbit
	refused "No such file or directory" "change of an unknown classid" \
		tcq class change dev dummy0 classid 1:99 er2bc rate 1mbit
	refused "No such file or directory" "delete of an unknown classid" \
		tcq class del dev dummy0 classid 1:99
	refused "Error: er2bc: class is in use by filters: delete them first" "delete a class in use by a filter" \
		tcq class del dev dummy0 classid 1:10
	refused "Error: er2bc: class is the qdisc's default: change the default first" "delete the default class" \
		tcq class del dev dummy0 classid 1:50
	refused "Error: er2bc: filters attach to the qdisc, not to a class" "filter attached to a class" \
		tcq filter add dev dummy0 parent 1:10 protocol ip prio 2 u32 match ip dport 5002 0xffff classid 1:10
}

wide_values() {
	local arg out

	setup || return
	# rates beyond 2^64 - 1 bit/s: tc's own parser would wrap them
	for arg in "rate 18446744073709551616bit" "rate 20000000000000000000bit" \
		   "blim 2306000000000mbps" "floor 18446745tbit"; do
		refused "illegal \"${arg%% *}\" value \"${arg#* }\": at most 18446744073709551615bit" \
			"qdisc ${arg%% *} ${arg#* } (beyond 2^64 - 1 bit/s)" \
			tcq qdisc change dev dummy0 root er2bc $arg
	done
	for arg in "rate 20000000000000000000bit" "ceil 18446744073709551616bit" "ceil 1.9e19bit"; do
		refused "illegal \"${arg%% *}\" value \"${arg#* }\": at most 18446744073709551615bit" \
			"class ${arg%% *} ${arg#* } (beyond 2^64 - 1 bit/s)" \
			tcq class change dev dummy0 classid 1:10 er2bc $arg
	done
	refused 'illegal "burst" value "4294967296"' "qdisc burst beyond 32 bits" \
		tcq qdisc change dev dummy0 root er2bc burst 4294967296
	refused 'illegal "cburst" value "5gb"' "class cburst beyond 32 bits" \
		tcq class change dev dummy0 classid 1:10 er2bc cburst 5gb

	# 2^64 - 1 bit/s itself is a rate, taken exactly, and so is 1.5 Mbit/s
	tcq qdisc change dev dummy0 root er2bc rate 18446744073709551615bit &&
		tcq class change dev dummy0 classid 1:50 er2bc rate 1.5mbit ceil 18446744073709551615bit
	out=$(tcq -j qdisc show dev dummy0 | json_get "j[0]['options']['rate']"
		class_stats "$NS" dummy0 "j['1:50']['options']")
	# (tc's JSON in bytes/s, as it prints htb's: 2^64 - 1 bit/s over 8)
	[[ "$out" == $'2305843009213693951\nprio 64 rate 1500Kbit ceil '* ]]
	tap_result $? "a rate of 2^64 - 1 bit/s, and 1.5mbit, are taken as written" "$(echo "$out" | tr '\n' ' ')"
}

raw_policy() {
	local out

	setup || return
	# --- what the plugin never sends: the kernel's policy refuses it
	refused "Numerical result out of range: integer out of range" "raw: class prio 0" \
		raw class dummy0 1:10 2:u8:0
	refused "Numerical result out of range: integer out of range" "raw: class weight 0" \
		raw class dummy0 1:10 5:u32:0
	refused "Numerical result out of range: integer out of range" "raw: class type 3" \
		raw class dummy0 1:10 6:u8:3
	refused "Numerical result out of range: integer out of range" "raw: class margin 101" \
		raw class dummy0 1:10 9:u32:101
	refused "er2bc: a scavenger class holds no guarantee to add a margin to: give it margin 0" \
		"raw: class margin on a scavenger (kernel)" \
		raw class dummy0 1:10 3:u64:0 6:u8:2 9:u32:20
	refused "Numerical result out of range: integer out of range" "raw: qdisc burst above 512 MiB" \
		raw qdisc dummy0 1: 3:u32:600000000
	refused "Numerical result out of range: integer out of range" "raw: qdisc mode 3" \
		raw qdisc dummy0 1: 5:u8:3
	refused "Numerical result out of range: integer out of range" "raw: qdisc latency above 60 s" \
		raw qdisc dummy0 1: 16:u32:60000001
	refused "er2bc: latency is at most 60s (60000000 us), or 0xffffffff for the qdisc's" \
		"raw: class latency above 60 s (kernel)" \
		raw class dummy0 1:10 10:u32:60000001
	refused "Invalid argument: invalid attribute length" "raw: class prio sent as u32" \
		raw class dummy0 1:10 2:u32:1
	refused "Invalid argument: invalid attribute length" "raw: qdisc rate sent as u32" \
		raw qdisc dummy0 1: 2:u32:1000000
	refused "Invalid argument: Unknown attribute type" "raw: unknown class attribute" \
		raw class dummy0 1:10 42:u32:1
	refused "Invalid argument: NLA_F_NESTED is missing" "raw: options not marked nested" \
		raw class dummy0 1:10 nonest 2:u8:1

	# and a valid raw request goes through: the tests above fail for their cause
	out=$(raw class dummy0 1:10 2:u8:3)
	[ "$out" = ok ] && tcq class show dev dummy0 | grep -q "class er2bc 1:10 root prio 3 "
	tap_result $? "raw: a valid request is accepted" "$out"
}

boot_file() {
	local apply batches out rc after classes

	setup || return
	# --- a boot file (er2bc-tc@DEV runs er2bc-tc-apply): one tc takes replaces
	# the device's configuration, an ingress qdisc included (the file adds it
	# again); one with a line tc refuses leaves the running one as it was,
	# shaper and all (before, the unit deleted the root qdisc first and a bad
	# file left the uplink unshaped)
	apply=$here/../../tools/tc/er2bc-tc-apply
	batches=$(mktemp -d)
	printf '%s\n' "qdisc add dev dummy0 root handle 1: er2bc rate 4mbit default 60" \
		"class add dev dummy0 parent 1: classid 1:10 er2bc prio 1 rate 400kbit" \
		"class add dev dummy0 parent 1: classid 1:60 er2bc prio 6" \
		"qdisc add dev dummy0 ingress" >"$batches/good.batch"
	sed 's/prio 1 rate 400kbit/prio 1 rate 400kbot/' "$batches/good.batch" >"$batches/bad.batch"
	tcq qdisc add dev dummy0 ingress
	out=$(ip netns exec "$NS" "$apply" dummy0 "$batches/good.batch" 2>&1)
	rc=$?
	after=$(config)
	classes=$(tcq class show dev dummy0 | awk '{ print $3 }' | sort | xargs)
	[ $rc = 0 ] && [ "$classes" = "1:10 1:60" ] && [ "$after" != "$before" ]
	tap_result $? "er2bc-tc-apply: a file tc takes is the device's whole configuration" \
		"exit $rc, classes $classes: $out"
	before=$after
	refused 'er2bc-tc-apply: tc refuses' \
		"er2bc-tc-apply: a file with a line tc refuses leaves the running configuration" \
		ip netns exec "$NS" "$apply" dummy0 "$batches/bad.batch"
	out=$(ip netns exec "$NS" "$apply" dummy0 "$batches/bad.batch" 2>&1)
	[[ "$out" == *"bad.batch:2"* ]]
	tap_result $? "er2bc-tc-apply: ... tc's message names the line" \
		"$(echo "$out" | tr '\n' ' ')"
	rm -rf "$batches"
}

require_cmd tc ip python3
tap_begin
tests_run
