#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# er2bc-abwd's command line and configuration, through the binary, on the
# host: every invalid configuration exits 2 with a message naming the key
# (and FILE:LINE when it came from the file); valid ones pass
# --check-config; without sch_er2bc both roles exit 1 saying so.
#
#   ./test-abwd.sh	(make check builds er2bc-abwd first)
#
# TAP output; exits 1 if any test failed.
set -u
cd "$(dirname "$0")"

ABWD=./er2bc-abwd
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

count=0
bad=0

# result NAME OK [DETAIL...]
result() {
	local name=$1 good=$2
	shift 2
	count=$((count + 1))
	if [ "$good" = 1 ]; then
		echo "ok $count - $name"
		return
	fi
	bad=$((bad + 1))
	echo "not ok $count - $name"
	for line in "$@"; do
		echo "#   $line"
	done
}

# expect NAME RC REGEX ARGS...: exit code RC, and REGEX found in stderr
# (or in stdout when RC is 0); "" matches anything
expect() {
	local name=$1 want_rc=$2 want_re=$3 rc text
	shift 3
	"$ABWD" "$@" >"$work/out" 2>"$work/err"
	rc=$?
	if [ "$want_rc" = 0 ]; then
		text=$(cat "$work/out")
	else
		text=$(cat "$work/err")
	fi
	if [ "$rc" = "$want_rc" ] && { [ -z "$want_re" ] || grep -Eq -- "$want_re" <<<"$text"; }; then
		result "$name" 1
	else
		result "$name" 0 "$ABWD $*" "exit $rc, wanted $want_rc; wanted /$want_re/ in:" \
			"$(cat "$work/out" "$work/err")"
	fi
}

S=(sender --peer 192.0.2.1 --dev lo --plain yes --check-config)
R=(responder --dev lo --plain yes --check-config)
RP=("${R[@]}" --peer-prefix 192.0.2.0/24)
SK=(sender --peer 192.0.2.1 --dev lo --check-config)

# --- usage ---
expect "no arguments: usage, exit 2" 2 "Usage" 
expect "-h: usage, exit 0" 0 "Usage: er2bc-abwd sender" -h
expect "--version" 0 "^er2bc-abwd " --version
expect "sender --help lists the keys and defaults" 0 "--d-max .*\[1mbit\]" sender --help
expect "responder --help lists peer-prefix" 0 "--peer-prefix" responder --help
expect "unknown role" 2 'unknown role "relay"' relay
expect "unknown option" 2 'unknown option "--bogus"' "${S[@]}" --bogus 1
expect "option without its value" 2 'needs a value' sender --dev lo --peer
expect "stray argument" 2 'unexpected argument "extra"' "${S[@]}" extra
expect "--once 0" 2 '--once: invalid "0"' "${S[@]}" --once 0
expect "--once is the sender's" 2 '--once is for the sender' "${R[@]}" --once 3

# --- valid configurations ---
expect "sender: the paper's defaults" 0 "alpha = 1.200000" "${S[@]}"
expect "sender: d-ini default 50kbit" 0 "d-ini = 50000bit" "${S[@]}"
expect "sender: timeout defaults to 3s" 0 "timeout = 3s" "${S[@]}" --interval 250ms
expect "sender: mode loss by default" 0 "mode = loss" "${S[@]}"
expect "sender: W handed to the qdisc by default" 0 "apply = yes" "${S[@]}"
expect "sender: the delay rule's defaults (seed 003's MD and push)" 0 \
	"delay-md = 1.100000" "${S[@]}" --mode hybrid
expect "sender: the delay read is the least of two by default" 0 "delay-filter = 2" "${S[@]}"
expect "sender: delay-filter 16" 0 "delay-filter = 16" "${S[@]}" --delay-filter 16
expect "sender: no drain by default (not yet measured)" 0 "^delay-drain = no$" "${S[@]}"
expect "sender: delay-drain yes" 0 "^delay-drain = yes$" "${S[@]}" --delay-drain yes
expect "sender: compete with the delay rule" 0 "^compete = yes$" "${S[@]}" --mode delay --compete yes
expect "sender: delay-span in tc's time units" 0 "delay-span = 120ms" "${S[@]}" --delay-span 0.12s
expect "sender: timeout defaults to at most 16 intervals" 0 "timeout = 1.6s" "${S[@]}" --interval 100ms
expect "sender: a bare interval is us, as tc's: 500000 is 500ms" 0 "^interval = 500ms$" \
	"${S[@]}" --interval 500000
expect "sender: a bare delay-span is us: 40000 is 40ms" 0 "^delay-span = 40ms$" \
	"${S[@]}" --delay-span 40000
expect "sender: a time fmt_time would round is printed in us" 0 "^interval = 1234567us$" \
	"${S[@]}" --interval 1234567
expect "sender: --key=value" 0 "beta = 200000bit" "${S[@]}" --beta=200kbit
expect "sender: IPv6 peer" 0 "peer = 2001:db8::2" sender --peer 2001:db8::2 --dev lo --plain yes \
	--check-config
expect "sender: handle 10:" 0 "handle = 10:" "${S[@]}" --handle 10:
expect "sender: w-max 0 (the qdisc's rate)" 0 "w-max = 0bit" "${S[@]}" --w-max 0
expect "sender: theta-l = theta-h" 0 "theta-l = 3" "${S[@]}" --theta-h 3 --theta-l 3
expect "responder: listen defaults to ::" 0 "listen = ::" "${RP[@]}"
expect "responder: IPv4 listen" 0 "listen = 192.0.2.9" "${RP[@]}" --listen 192.0.2.9
expect "responder: rate-limit defaults to 100" 0 "rate-limit = 100" "${RP[@]}"
expect "responder: rate-limit 0 is no limit" 0 "rate-limit = 0" "${RP[@]}" --rate-limit 0
expect "responder: four peer prefixes" 0 "peer-prefix = 2001:db8::/32" "${R[@]}" \
	--peer-prefix 10.0.0.0/8 --peer-prefix 192.0.2.0/24 --peer-prefix 2001:db8::/32 \
	--peer-prefix 198.51.100.7

# --- invalid values: exit 2, the key named ---
# bad_value KEY VALUE [R]: the sender's (or responder's) minimal
# configuration without KEY, and KEY VALUE
bad_value() {
	local key=$1 val=$2 args
	if [ "${3:-}" = R ]; then
		args=(responder --check-config)
		[ "$key" = dev ] || args+=(--dev lo)
		[ "$key" = peer-prefix ] || args+=(--peer-prefix 192.0.2.0/24)
	else
		args=(sender --check-config)
		[ "$key" = dev ] || args+=(--dev lo)
		[ "$key" = peer ] || args+=(--peer 192.0.2.1)
	fi
	[ "$key" = plain ] || [ "$key" = key-file ] || args+=(--plain yes)
	expect "invalid --$key \"$val\"" 2 "^er2bc-abwd: --$key: invalid \"$val\": " \
		"${args[@]}" "--$key" "$val"
}
bad_value peer not-an-address
bad_value peer 0.0.0.0
bad_value peer 224.0.0.1
bad_value peer ::
bad_value peer ::ffff:192.0.2.1
bad_value peer example.org
bad_value port 0
bad_value port 65536
bad_value port http
bad_value dev a-name-far-too-long-for-a-device
bad_value handle 1:1
bad_value handle 0:
bad_value handle one
bad_value interval 0
bad_value interval 0s
bad_value interval 500us
bad_value interval 3601s
bad_value interval 1h
bad_value interval -1s
bad_value interval 999
bad_value interval 3600000001
bad_value timeout 0ms
bad_value timeout 3
expect "interval 1 (us, once a second): refused, naming the range" 2 \
	'^er2bc-abwd: --interval: invalid "1": must be 1ms to 3600s \(a bare number is us\)$' \
	"${S[@]}" --interval 1
expect "interval 3601s: refused, naming the range" 2 \
	'^er2bc-abwd: --interval: invalid "3601s": must be 1ms to 3600s$' "${S[@]}" --interval 3601s
bad_value theta-h -1
bad_value theta-h 1.5
bad_value theta-l x
bad_value d-ini 0
bad_value d-ini 5parsecs
bad_value d-max lots
bad_value alpha 0.9
bad_value alpha 1.2.3
bad_value alpha 1.0000001
bad_value alpha 1001
bad_value beta -100kbit
bad_value mode fast
bad_value apply maybe
bad_value mode Loss
bad_value delay-step -1kbit
bad_value delay-step 0
bad_value delay-step 101gbit
bad_value delay-span 500us
bad_value delay-span-min 0
bad_value delay-md 0.9
bad_value delay-push 1001
bad_value delay-filter 0
bad_value delay-filter 17
bad_value delay-drain maybe
bad_value w-ini fast
bad_value w-min 0
bad_value w-min 0bit
bad_value w-max 1zbit
bad_value status ""
bad_value status /tmp/
bad_value key-file /nonexistent/abwd.key
bad_value listen 10.0.0.300 R
bad_value listen ::ffff:10.0.0.1 R
bad_value peer-prefix 10.0.0.1/8 R
bad_value peer-prefix 10.0.0.0/33 R
bad_value peer-prefix 2001:db8::/200 R
bad_value peer-prefix eth0 R
bad_value port 99999 R
bad_value rate-limit 100001 R
bad_value rate-limit -1 R
bad_value plain maybe
bad_value decay-after 1001
bad_value decay-after -1
bad_value w-floor slow

# a device that is not there yet (a tunnel brought up later) is no error:
# the daemons wait for it (test-loop.sh)
expect "a device not there yet: taken" 0 "^dev = no-such-dev0$" \
	sender --check-config --peer 192.0.2.1 --plain yes --dev no-such-dev0
expect "... by the responder too" 0 "^dev = no-such-dev0$" \
	responder --check-config --peer-prefix 192.0.2.0/24 --plain yes --dev no-such-dev0

# --- checks across keys ---
expect "delay-span-min above delay-span" 2 \
	"^er2bc-abwd: --delay-span-min: delay-span-min \(20ms\) is above delay-span \(10ms\)" \
	"${S[@]}" --delay-span 10ms --delay-span-min 20ms
expect "compete with hybrid: refused, compete named" 2 \
	"^er2bc-abwd: --compete: compete \(yes\) is for mode loss or delay: hybrid has its own answer" \
	"${S[@]}" --mode hybrid --compete yes
expect "hybrid after compete: compete still named" 2 "^er2bc-abwd: --compete: compete \(yes\) is for mode loss or delay" \
	"${S[@]}" --compete yes --mode hybrid
expect "theta-l above theta-h" 2 "^er2bc-abwd: --theta-l: theta-l \(2\) is above theta-h \(1\)" \
	"${S[@]}" --theta-l 2
expect "theta-h below theta-l" 2 "^er2bc-abwd: --theta-l: theta-l \(1\) is above theta-h \(0\)" \
	"${S[@]}" --theta-h 0 --theta-l 1
expect "d-ini above d-max" 2 "^er2bc-abwd: --d-ini: d-ini \(2Mbit\) is above d-max \(1Mbit\)" \
	"${S[@]}" --d-ini 2mbit
expect "d-max below the default d-ini: d-max named" 2 "^er2bc-abwd: --d-max: d-ini \(50Kbit\) is above d-max \(40Kbit\)" \
	"${S[@]}" --d-max 40kbit
expect "w-max below w-min" 2 "^er2bc-abwd: --w-max: w-max \(5Kbit\) is below w-min \(10Kbit\)" \
	"${S[@]}" --w-max 5kbit
expect "w-ini below w-min" 2 "^er2bc-abwd: --w-ini: w-ini \(5Kbit\) is below w-min" \
	"${S[@]}" --w-ini 5kbit
expect "w-ini and w-max default to the qdisc's" 0 "^w-ini = qdisc$" "${S[@]}"
expect "... and w-max" 0 "^w-max = qdisc$" "${S[@]}"
expect "w-ini below w-min, both given: w-ini named" 2 "^er2bc-abwd: --w-ini: w-ini \\(1Mbit\\) is below w-min \\(2Mbit\\)" \
	"${S[@]}" --w-min 2mbit --w-ini 1mbit
expect "w-ini above w-max" 2 "^er2bc-abwd: --w-ini: w-ini \(2Mbit\) is above w-max \(1.5Mbit\)" \
	"${S[@]}" --w-ini 2mbit --w-max 1500kbit
expect "decay-after and w-floor default to 3 and 1 Mbit/s" 0 "^decay-after = 3$" "${S[@]}"
expect "... and w-floor" 0 "^w-floor = 1000000bit$" "${S[@]}"
expect "w-floor below w-min" 2 "^er2bc-abwd: --w-floor: w-floor \(5Kbit\) is below w-min \(10Kbit\)" \
	"${S[@]}" --w-floor 5kbit
expect "w-floor above w-max" 2 "^er2bc-abwd: --w-floor: w-floor \(2Mbit\) is above w-max \(1.5Mbit\)" \
	"${S[@]}" --w-floor 2mbit --w-max 1500kbit
expect "the default w-floor under a lower w-max: taken" 0 "^w-max = 500000bit$" \
	"${S[@]}" --w-max 500kbit
expect "timeout longer than 16 intervals" 2 "^er2bc-abwd: --timeout: timeout \(17s\) is longer than 16 intervals \(1s\)" \
	"${S[@]}" --timeout 17s
expect "no key-file: refused, naming key-file and plain" 2 \
	"^er2bc-abwd: missing key-file .*plain = yes" sender --peer 192.0.2.1 --dev lo --check-config
expect "no key-file (responder): refused" 2 "^er2bc-abwd: missing key-file" \
	responder --dev lo --peer-prefix 192.0.2.0/24 --check-config
expect "responder: no peer-prefix: refused" 2 "^er2bc-abwd: missing peer-prefix" "${R[@]}"
expect "a key given twice" 2 "^er2bc-abwd: --port: given twice" "${S[@]}" --port 1 --port 2
expect "five peer prefixes" 2 "peer-prefix: given more than 4 times" "${R[@]}" \
	--peer-prefix 10.0.0.0/8 --peer-prefix 10.0.0.0/8 --peer-prefix 10.0.0.0/8 \
	--peer-prefix 10.0.0.0/8 --peer-prefix 10.0.0.0/8
expect "missing peer" 2 "missing peer" sender --dev lo --check-config
expect "missing dev" 2 "missing dev" sender --peer 192.0.2.1 --check-config
expect "missing dev (responder)" 2 "missing dev" responder --check-config
expect "a responder's key for the sender" 2 "--peer-prefix: not an option of the sender" \
	"${S[@]}" --peer-prefix 10.0.0.0/8
expect "a sender's key for the responder" 2 "--alpha: not an option of the responder" \
	"${R[@]}" --alpha 1.5

# --- the key file ---
key=$work/abwd.key
printf '0123456789abcdef0123456789abcdef\n' >"$key"
chmod 600 "$key"
expect "key-file: 32 bytes, mode 600" 0 "key-file = $key" "${SK[@]}" --key-file "$key"
expect "key-file and plain = yes: refused" 2 "^er2bc-abwd: --plain: plain = yes and a key-file" \
	"${S[@]}" --key-file "$key"
chmod 644 "$key"
expect "key-file: readable by others" 2 "--key-file: invalid .*others" "${SK[@]}" --key-file "$key"
printf 'short\n' >"$key"
chmod 600 "$key"
expect "key-file: 5 bytes" 2 "--key-file: invalid .*shorter than 16 bytes" \
	responder --dev lo --peer-prefix 192.0.2.0/24 --check-config --key-file "$key"
: >"$key"
expect "key-file: empty" 2 "--key-file: invalid .*shorter than 16 bytes" \
	"${SK[@]}" --key-file "$key"

# --- the configuration file ---
conf=$work/abwd.conf
cat >"$conf" <<EOF
# the sender's configuration
peer = 192.0.2.1
dev = lo
plain = yes
interval = 2s    # T_c

alpha=1.5
EOF
expect "file: valid" 0 "interval = 2s" sender --config "$conf" --check-config
expect "file: key=value without blanks" 0 "alpha = 1.500000" sender --config "$conf" --check-config
expect "file: the command line wins" 0 "interval = 500ms" sender --config "$conf" \
	--interval 500ms --check-config
expect "file: --config=FILE" 0 "peer = 192.0.2.1" sender --config="$conf" --check-config
sed -i 's/^interval = .*/interval = 500000/' "$conf"
expect "file: interval = 500000 is 500ms" 0 "^interval = 500ms$" sender --config "$conf" \
	--check-config
# what --check-config prints is a configuration, and it prints the same again
"$ABWD" sender --config "$conf" --interval 1234567 --delay-span 0.0501s --check-config \
	>"$work/printed" 2>&1
"$ABWD" --config "$work/printed" --check-config >"$work/again" 2>&1
rc=$?
[ $rc = 0 ] && cmp -s "$work/printed" "$work/again"
result "file: the printed configuration parses back to the same" $((! $?)) \
	"exit $rc" "$(diff "$work/printed" "$work/again")"
expect "file: missing" 2 "cannot read the configuration" sender --config "$work/none" \
	--check-config
expect "file: --config twice" 2 "--config given twice" sender --config "$conf" \
	--config "$conf" --check-config

# bad_line NAME REGEX LINE: LINE as the file's fourth line
bad_line() {
	printf 'peer = 192.0.2.1\ndev = lo\n# comment\n%s\n' "$3" >"$conf"
	expect "file: $1" 2 "^er2bc-abwd: $conf:4: $2" sender --config "$conf" --plain yes \
		--check-config
}
bad_line "unknown key" 'unknown key "speed"' "speed = 5"
bad_line "no =" 'expected "key = value"' "interval 1s"
bad_line "bad value" 'interval: invalid "0s"' "interval = 0s"
bad_line "interval = 1: 1 us, refused" \
	'interval: invalid "1": must be 1ms to 3600s \(a bare number is us\)$' "interval = 1"
bad_line "empty value" 'port: invalid "": empty' "port ="
bad_line "key given twice" 'peer: given twice' "peer = 192.0.2.2"
bad_line "a responder's key" 'peer-prefix: not a key of the sender' "peer-prefix = 10.0.0.0/8"
bad_line "theta-l above theta-h" 'theta-l: theta-l \(4\) is above theta-h \(1\)' "theta-l = 4"
bad_line "alpha below 1" 'alpha: invalid "0.5": must be at least 1' "alpha = 0.5"
bad_line "d-ini above d-max" 'd-ini: d-ini \(5Mbit\) is above d-max' "d-ini = 5mbit"

printf 'dev = lo\nlisten = ::\npeer-prefix = 10.0.0.0/8\npeer-prefix = 2001:db8::/32\nplain = yes\n' >"$conf"
expect "file: responder with two prefixes" 0 "peer-prefix = 2001:db8::/32" \
	responder --config "$conf" --check-config
expect "file: command-line prefixes replace the file's" 0 "^peer-prefix = 192.0.2.0/24$" \
	responder --config "$conf" --peer-prefix 192.0.2.0/24 --check-config
if "$ABWD" responder --config "$conf" --peer-prefix 192.0.2.0/24 --check-config |
	grep -q 10.0.0.0; then
	result "file: ... and none of the file's stay" 0 "10.0.0.0/8 still there"
else
	result "file: ... and none of the file's stay" 1
fi

# --- the role in the configuration file (an instance per uplink), and the
# two example files as they are, but for the key's path
head -c 32 /dev/urandom >"$work/k.key" && chmod 600 "$work/k.key"
for role in sender responder; do
	sed "s|/etc/er2bc/abwd.key|$work/k.key|" "abwd-$role.conf.example" >"$work/ex-$role.conf"
	expect "abwd-$role.conf.example: valid, its role from the file" 0 "^role = $role\$" \
		--config "$work/ex-$role.conf" --check-config
done
expect "--config=FILE too" 0 "^role = responder\$" --config="$work/ex-responder.conf" --check-config
expect "a role first, another in the file: refused, naming both" 2 \
	"ex-sender.conf:[0-9]+: role = sender, but this er2bc-abwd runs as the responder" \
	responder --config "$work/ex-sender.conf" --check-config
expect "no role first and no --config: refused" 2 "^er2bc-abwd: no role: begin with sender or responder" \
	--check-config
printf 'dev = lo\nplain = yes\n' >"$work/norole.conf"
expect "no role first and none in the file: refused" 2 \
	"norole.conf: no \"role = sender\" or \"role = responder\"" --config "$work/norole.conf"
expect "a role first and the same in the file: valid" 0 "^role = sender\$" \
	sender --config "$work/ex-sender.conf" --check-config

# --- under systemd: stderr is the journal's stream (JOURNAL_STREAM names
# it), and each line carries its syslog priority for journalctl -p
: >"$work/jerr"
js=$(stat -c '%d:%i' "$work/jerr")
JOURNAL_STREAM=$js "$ABWD" "${S[@]}" --alpha 0.5 2>"$work/jerr" >/dev/null
if grep -q '^<3>er2bc-abwd: --alpha: invalid "0.5": ' "$work/jerr"; then
	result "journal stream: an error line starts with <3>" 1
else
	result "journal stream: an error line starts with <3>" 0 "$(cat "$work/jerr")"
fi
JOURNAL_STREAM=1:1 "$ABWD" "${S[@]}" --alpha 0.5 2>"$work/jerr" >/dev/null
if grep -q '^er2bc-abwd: --alpha: invalid' "$work/jerr"; then
	result "JOURNAL_STREAM of another file: no priority" 1
else
	result "JOURNAL_STREAM of another file: no priority" 0 "$(cat "$work/jerr")"
fi

# --- without the kernel module ---
if [ -d /sys/module/sch_er2bc ]; then
	echo "ok $((count += 1)) - sender without sch_er2bc # SKIP sch_er2bc is loaded"
	echo "ok $((count += 1)) - responder without sch_er2bc # SKIP sch_er2bc is loaded"
else
	expect "sender without sch_er2bc: exit 1" 1 "family er2bc not found .*sch_er2bc" \
		sender --peer 192.0.2.1 --dev lo --plain yes
	expect "responder without sch_er2bc: exit 1" 1 "family er2bc not found .*sch_er2bc" \
		responder --dev lo --peer-prefix 192.0.2.0/24 --plain yes
fi

echo "1..$count"
[ "$bad" -eq 0 ] || echo "# $bad of $count failed"
[ "$bad" -eq 0 ]
