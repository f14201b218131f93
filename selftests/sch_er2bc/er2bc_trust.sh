#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What an attacker on the path can do to the estimator
# (Documentation/er2bc-estimator.rst, "What the estimator trusts"). The
# cases:
#  - family_alias: the first request over generic netlink loads sch_er2bc
#    (its family alias)
#  - on_path_attacker: an on-path attacker past the bottleneck, in R,
#    answers each real request with a burst of forged ones behind it and
#    replays it 5 ms later: the estimates go on at the rate they do
#    without it, with the quiet phases' R, and the refusals are counted by
#    the responder and by the meter; then the same, deterministic, at the
#    meter: a request with 40 forged ones right behind it keeps its
#    snapshot
#  - spoofed_flood: an off-path spoofer past the bottleneck floods B from
#    A's address: the estimates go on and W stays in its range, under the
#    loss rule and, by the delay signal, in hybrid mode
#  - sender_alone: no traffic but the sender's. Restarted after the clock
#    is set back an hour, forward two, back one, its requests are taken
#    each time (its epoch is kept, not the clock's); an idle path for an
#    hour, compressed: W never above the qdisc's rate, and an estimate
#    above it caps the qdisc at the rate
# Each case in a namespace of its own (make check T=er2bc_trust:CASE).
#
#   A (er2bc, a0 10.0.1.1) -- (r0) R (r1: bottleneck, attacker) -- (b0 10.0.2.2) B
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/gateways.sh"

ALL_TESTS="
	family_alias
	on_path_attacker
	spoofed_flood
	sender_alone
"

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
abwd=$top/tools/abwd/er2bc-abwd
ctl=$top/tools/er2bcctl/er2bcctl
PORT=4950
# each phase of the attack test, and of the floods, in seconds. On a slow
# machine (the debug kernel) the attacker and the spoofer cannot keep
# their rates (the attacker saw 13 of 200 requests, the spoofer sent 624
# of 30,000 datagrams; 729 s of the debug guests' time in a full run on
# 2026-12-02) and their timing checks are skips, so the quiet phases and
# the floods run a third as long there: long enough for the foreign
# estimates to run under KASAN and lockdep. The attacked phase keeps its
# 20 s: the refusals' check, which is not timing, needs the attacker to
# see requests (1 in 6 s on the debug kernel)
if machine_slow; then
	PHASE=${ER2BC_TRUST_PHASE:-6} FLOOD=${ER2BC_TRUST_FLOOD:-4}
else
	PHASE=${ER2BC_TRUST_PHASE:-20} FLOOD=${ER2BC_TRUST_FLOOD:-10}
fi
ATTACK=${ER2BC_TRUST_ATTACK:-20}
# the bottleneck, Mbit/s. The debug kernel's guest spent its CPU on the
# bulk download through it (the attack's 18 s of phases took 262 s, its
# processes 3 s each), so there it is a quarter as fast: its checks of
# rates are skips there, its refusals and foreign estimates the same
if machine_slow; then BN=2; else BN=8; fi
P_IF=2 P_KEY=6 CMD_METER_GET=7

# what a case started, stopped by stop_all at its end: its processes in
# pids, its work directory (the key, the logs, the sender's epoch)
work=
pids=()
stop_all() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait "${pids[@]}" 2>/dev/null
	pids=()
	[ -z "$work" ] || rm -rf "$work"
	work=
}

# --- the family alias: with sch_er2bc unloaded, asking for the family loads it
unloaded() { modprobe -r sch_er2bc 2>/dev/null; [ ! -e /sys/module/sch_er2bc ]; }
family_alias() {
	local out

	if busywait 30000 unloaded; then
		out=$("$ctl" show dev lo handle 1: 2>&1)
		[ -e /sys/module/sch_er2bc ]
		tap_result $? "the first request for the er2bc family loads sch_er2bc" "$out"
	else
		tap_result $ksft_skip "the first request for the er2bc family loads sch_er2bc" \
			"sch_er2bc cannot be unloaded here: $(lsmod | grep sch_er2bc)"
	fi
}

# shaping: A's er2bc shapes TCP toward B; r1's tbf is the bottleneck, with
# a queue
shaping() {
	tc -netns "$A" qdisc add dev a0 root handle 1: er2bc rate 100mbit mode er2bc default 1 \
		probe-port $PORT peer 10.0.2.0/24 &&
		tc -netns "$A" class add dev a0 parent 1: classid 1:1 er2bc prio 1 rate 1mbit \
			type tcp &&
		tc -netns "$R" qdisc add dev r1 root tbf rate ${BN}mbit burst 20k limit 100k
}

# responder: the case's work directory and the key in it; B's responder,
# its meter on b0 with the key; the sender's command in A (sender),
# authenticated, its epoch kept in the work directory
responder() {
	work=$(mktemp -d) || return
	printf 'er2bc-selftest-key-0123456789abcdef' >"$work/key" && chmod 600 "$work/key"
	ip netns exec "$B" "$abwd" responder --dev b0 --peer-prefix 10.0.1.0/24 --port $PORT \
		--key-file "$work/key" --status "$work/resp.json" 2>"$work/resp.log" &
	pids+=($!)
	sender=(ip netns exec "$A" "$abwd" sender --peer 10.0.2.2 --port $PORT --dev a0
		--key-file "$work/key" --epoch-file "$work/epoch" --status "$work/send.json" -v)
	busywait 20000 udp_bound "$B" $PORT
}

# setup: the gateways, shaping and the responder, as on_path_attacker
# checks them one by one
setup() { gateways_setup && shaping && responder; }

# flow: a bulk TCP transfer from A to B through the bottleneck, until the
# case ends (its client's pid in ipf)
flow() {
	ip netns exec "$B" iperf3 -s -p 5201 >/dev/null 2>&1 &
	pids+=($!)
	busywait 20000 tcp_listening "$B" 5201
	ip netns exec "$A" iperf3 -c 10.0.2.2 -p 5201 -t 86400 >/dev/null 2>&1 &
	ipf=$!
	pids+=($ipf)
}

# sender_start [ARGS...]: the sender, an estimate every 100 ms, its log
# into slog (its pid in snd)
sender_start() {
	"${sender[@]}" --interval 100ms "$@" 2>"$slog" &
	snd=$!
	pids+=($snd)
}

# bits(FIELD): awk, the value after FIELD (R or W) in an estimate's line of
# a sender's -v log, in bit/s
bits_awk='function bits(f,   i, v, m) {
		for (i = 1; i < NF; i++) if ($i == f) v = $(i + 1)
		m = 1
		if (v ~ /Kbit$/) m = 1e3; else if (v ~ /Mbit$/) m = 1e6; else if (v ~ /Gbit$/) m = 1e9
		sub(/[A-Za-z]+$/, "", v)
		return int(v * m)
	}'
# an estimate's line in the log
est_line=': sent [0-9]* received [0-9]* L '
# FIELD (R or W) of each estimate LOG has, in bit/s, one a line
field_of() {
	grep "$est_line" "$2" | awk -v f="$1" "$bits_awk"'{ printf "%d\n", bits(f) }'
}
# estimates logged so far
logged() { grep -c "$est_line" "$slog"; }
# stats_of FROM TO: of estimates FROM+1..TO, "MEAN_R MEAN_W LEAST_W MOST_W
# P10_W P90_W DECREASES QUEUED" (bit/s; W's 10th and 90th percentiles by
# nearest rank; decreases of W; estimates that read a queue above 0; all
# 0 if there are none), in one process: a process costs seconds on the
# busy debug kernel, and the phases' figures were 40 of them
stats_of() {
	awk -v a="$1" -v b="$2" -v est="$est_line" "$bits_awk"'
	$0 !~ est { next }
	{ k++ }
	k > a && k <= b {
		w[++n] = bits("W"); sr += bits("R"); sw += w[n]
		br = $0; sub(/.*\(/, "", br); sub(/\).*/, "", br); dec += br == "decrease"
		fq += / queue [1-9][0-9]*us/
	}
	END {
		if (!n) { print "0 0 0 0 0 0 0 0"; exit }
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && w[j - 1] > w[j]; j--) { t = w[j]; w[j] = w[j - 1]; w[j - 1] = t }
		printf "%d %d %d %d %d %d %d %d\n", sr / n, sw / n, w[1], w[n],
			w[int((n + 9) / 10)], w[int((n * 9 + 9) / 10)], dec, fq
	}' "$slog"
}
# The quiet phases have the attacker as its own control (--decoy): the
# same packets at the same times, from outside the peer prefix to a port
# no one listens on, so that all three phases cost the emulated machine's
# one CPU alike (the attack's CPU, not the attack, moved W: 15.5 against
# 11.8-14.6 Mbit/s in one 6.12 run)
forger() { ip netns exec "$R" python3 -S "$here/forger.py" --dev r1 --port $PORT --burst 40 \
	--replay-ms 5 "$@"; }
# phases: quiet (PHASE seconds), attacked (ATTACK), quiet; sets what each had
phases() {
	local m0 m1 m2 m3 w1 wa w2 d1 da d2 forger x
	m0=$(logged)
	forger --seconds "$PHASE" --decoy 10.0.9.1 >/dev/null 2>&1
	m1=$(logged)
	forger --seconds "$ATTACK" >"$work/forger.json" 2>"$work/forger.err"
	m2=$(logged)
	forger --seconds "$PHASE" --decoy 10.0.9.1 >/dev/null 2>&1
	m3=$(logged)
	b1=$((m1 - m0)) at=$((m2 - m1)) b2=$((m3 - m2))
	read -r r1 w1 x x x x d1 x <<<"$(stats_of "$m0" "$m1")"
	read -r ra wa x x x x da x <<<"$(stats_of "$m1" "$m2")"
	read -r r2 w2 x x x x d2 x <<<"$(stats_of "$m2" "$m3")"
	forger=$(cat "$work/forger.json" "$work/forger.err")
	info="estimates in ${PHASE}s: before $b1, attacked $at (in ${ATTACK}s), after $b2; mean R $r1, $ra, $r2 bit/s; decreases $d1, $da, $d2; mean W $w1, $wa, $w2 bit/s; attacker $forger"
}

# W follows from each estimate's R and L alone (eq. 8-11), so the attacker
# moves W only through them. R is the bottleneck's rate (BN Mbit/s)
# measured: the attacked phase's mean R within 2 % of the quiet phases'
# (0.4 % apart in the runs seen; the forged requests, were they counted,
# would add 2.4 %). W's own mean is no measure: in 20 s it is set by a few
# cycles of its sawtooth and differs by 20 % and more between two quiet
# phases (11.98 and 14.47 Mbit/s in one 6.12 run); nor is the number of
# its decreases, 0 to 9 in a quiet phase (W above what TCP sends loses
# nothing). That forgeries leave the counts alone is checked
# deterministically after it (the meter keeps the real request's snapshot
# under 40 forgeries).
r_kept() {
	local rq=$(( (r1 + r2) / 2 ))
	[ "$rq" -gt 0 ] && [ $((ra * 100)) -ge $((rq * 98)) ] && [ $((ra * 100)) -le $((rq * 102)) ]
}

# meter_forgeries: one real request (newer than any the sender made), 40
# forged ones right behind it, from R past the bottleneck; prints the real
# one's body and tag, the key the meter keeps its snapshot by
meter_forgeries() {
	ip netns exec "$R" env B_MAC="$bmac" python3 -S - "$work/key" \
		"$(cat "$work/epoch" 2>/dev/null || echo 1)" $PORT <<'PY'
import hashlib, hmac, os, socket, struct, sys
key = open(sys.argv[1], "rb").read()
epoch, port = int(sys.argv[2]) + 1000, int(sys.argv[3])
def frame(payload):
    # r1 -> b0: the MACs the neighbours have, 10.0.1.1 -> 10.0.2.2
    src = bytes.fromhex(open("/sys/class/net/r1/address").read().strip().replace(":", ""))
    dst = bytes.fromhex(os.environ["B_MAC"].replace(":", ""))
    udp = struct.pack("!HHHH", 40000, port, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 63, 17, 0,
                     socket.inet_aton("10.0.1.1"), socket.inet_aton("10.0.2.2"))
    s = sum(struct.unpack("!10H", ip)); s = (s & 0xffff) + (s >> 16); s = (s & 0xffff) + (s >> 16)
    ip = ip[:10] + struct.pack("!H", ~s & 0xffff) + ip[12:]
    return dst + src + b"\x08\x00" + ip + udp
body = struct.pack("!HHQ", 0x8001, 1, epoch)
# (a request: its body, the meter's key, then 24 zeros)
real = body + hmac.new(key, body, hashlib.sha256).digest()[:16]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
s.setsockopt(263, 20, 1)  # SOL_PACKET, PACKET_QDISC_BYPASS
s.bind(("r1", 0))
s.send(frame(real + bytes(24)))
for _ in range(40):
    s.send(frame(body + os.urandom(16) + bytes(24)))
print(real.hex())
PY
}

# an on-path attacker, then the same deterministic at the meter
on_path_attacker() {
	local rc first ipf snd slog bmac ifb lo seen r forged replayed req out d
	local b1 at b2 r1 ra r2 info

	gateways_setup
	rc=$?
	tap_result $rc "two gateways and a router"
	[ $rc = 0 ] || return
	shaping
	rc=$?
	tap_result $rc "er2bc on A, a $BN Mbit/s bottleneck on r1"
	[ $rc = 0 ] || return
	responder
	rc=$?
	tap_result $rc "responder up, its meter on b0 with the key"
	[ $rc = 0 ] || { stop_all; return; }
	flow
	slog=$work/send.log
	sender_start
	# W at the bottleneck's rate first
	sleep 10
	phases

	# the attacker saw most requests and did what it says
	seen=$(json_get "j['seen']" <"$work/forger.json")
	[ "${seen:-0}" -ge $((ATTACK * 10 / 2)) ]
	# (a Python on the debug kernel under TCG may start too late to see as many)
	tap_timing_result $? \
		"the attacker sent a burst behind each request it saw, and replayed it" "$info"

	# estimates at the rate they are without the attacker: at least the
	# fewer of the two quiet phases, less 10 % (per second of each: on a
	# slow machine the attacked phase is the longer)
	lo=$((b1 < b2 ? b1 : b2))
	[ $((at * PHASE)) -ge $((lo * ATTACK * 9 / 10)) ] && [ "$lo" -gt 0 ]
	tap_timing_result $? "under forged bursts and replays, the estimates go on" "$info"

	# R as the quiet phases had it (r_kept). (measure_twice's rule by hand:
	# the phases run once more if R missed; the 6.1 guest beside two others
	# once read the attacked phase 2.1 % low, 7.76 against 7.94 and 7.91
	# Mbit/s)
	r_kept
	rc=$?
	if [ $rc != 0 ] && ! machine_slow; then
		first=$info
		phases
		r_kept
		rc=$?
		info="$info; first try missed: $first"
	fi
	tap_timing_result $rc "under forged bursts and replays, R is the quiet phases'" "$info"

	# the refusals are counted: the responder's socket took every forgery
	# and replay (no checksum to fail), the meter refused them before
	r=$(json_get "(j['dropped']['unauthenticated'], j['dropped']['replayed'],
		j['meter_refused']['unauthenticated'], j['meter_refused']['replayed'])" \
		<"$work/resp.json")
	forged=$(json_get "j['forged']" <"$work/forger.json")
	replayed=$(json_get "j['replayed']" <"$work/forger.json")
	d="responder dropped unauthenticated/replayed, meter refused unauthenticated/replayed"
	d+=": $r; sent $forged forged, $replayed replayed"
	python3 -S - "$r" "$forged" "$replayed" <<'PY'
import sys
du, dr, mu, mr = eval(sys.argv[1])
f, p = int(sys.argv[2]), int(sys.argv[3])
# all but those still in flight when the status was written
ok = du >= 0.9 * f and dr >= 0.9 * p and mu >= 0.9 * f and mr >= 0.9 * p
sys.exit(0 if ok and f > 0 and p > 0 else 1)
PY
	tap_result $? "forgeries and replays counted: responder and meter" "$d"

	# --- the same, deterministic and at the meter itself, with no traffic
	# but its own (the sender and the flow stopped): then the responder's
	# question to the meter, by hand: the snapshot of the real request is
	# there (the ring keeps 16: before, the forgeries had pushed it out)
	kill "$snd" "$ipf" 2>/dev/null
	wait "$snd" "$ipf" 2>/dev/null
	ifb=$(ip netns exec "$B" cat /sys/class/net/b0/ifindex)
	bmac=$(ip netns exec "$B" cat /sys/class/net/b0/address)
	req=$(meter_forgeries)
	sleep 0.5
	out=$(ip netns exec "$B" python3 -S "$here/genlraw.py" send $CMD_METER_GET "$P_IF:u32:$ifb" \
		"$P_KEY:hex:$req" 2>&1)
	[ "$out" = ok ]
	tap_result $? "a request with 40 forged ones behind it: the meter still has its snapshot" \
		"meter-get: $out"
	stop_all
}

# --- an off-path spoofer past the bottleneck (R's r1, its qdisc bypassed)
# sends B datagrams from A's address, which B's meter counts as A's: more
# received than A's qdisc sent, beyond the slack. Each such sample used to
# be a new baseline, so W froze for as long as the flood lasted (1 estimate
# in 30 s against 27 without it). Now the estimate is foreign: applied,
# W held by the loss rule and moved by the delay signal in hybrid mode,
# the flood's bytes not credited to R (er2bc-estimator.rst, "What the
# estimator trusts"). Phases as above, FLOOD seconds each: the same
# datagrams from outside the peer prefix (which the meter does not count),
# the flood, the decoy again.
spoof() { ip netns exec "$R" python3 -S "$here/spoofer.py" --dev r1 --dst-mac "$bmac" \
	--dst 10.0.2.2 --port $PORT --seconds "$FLOOD" "$@"; }
# flood_phases RATE SIZE STATUS: the decoy, the flood, the decoy; sets the
# estimates of each (q1 fl q2), W's range over the quiet two (wlo whi) and
# the flood (flo fhi; its 10th and 90th percentiles f10 f90), the foreign
# estimates in the flood (fo), those of its estimates the delay rule read
# a queue above 0 for (fq), the mean R of the quiet phases and of the
# flood (rq rf), and info
flood_phases() {
	local m0 m1 m2 m3 f0 f1 r1 r2 lo1 hi1 lo2 hi2 x
	m0=$(logged)
	spoof --src 10.0.9.1 --rate "$1" --size "$2" >/dev/null 2>&1
	m1=$(logged) f0=$(json_get "j['foreign']" <"$3")
	spoof --src 10.0.1.1 --rate "$1" --size "$2" >"$work/spoof.json" 2>&1
	m2=$(logged) f1=$(json_get "j['foreign']" <"$3")
	spoof --src 10.0.9.1 --rate "$1" --size "$2" >/dev/null 2>&1
	m3=$(logged)
	q1=$((m1 - m0)) fl=$((m2 - m1)) q2=$((m3 - m2)) fo=$((f1 - f0))
	# (W's range over both quiet phases; hybrid mode logs the queue read at
	# every estimate, 0us too)
	read -r r1 x lo1 hi1 x x x x <<<"$(stats_of "$m0" "$m1")"
	read -r rf x flo fhi f10 f90 x fq <<<"$(stats_of "$m1" "$m2")"
	read -r r2 x lo2 hi2 x x x x <<<"$(stats_of "$m2" "$m3")"
	wlo=$((lo1 < lo2 ? lo1 : lo2)) whi=$((hi1 > hi2 ? hi1 : hi2))
	rq=$(( (r1 + r2) / 2 ))
	info="estimates in ${FLOOD}s: before $q1, flooded $fl ($fo foreign, $fq with a queue above 0), after $q2; W from $flo to $fhi bit/s flooded (10th-90th percentile $f10 to $f90), $wlo to $whi in the quiet phases; mean R $r1, $rf, $r2 bit/s; spoofer $(cat "$work/spoof.json")"
}
# at least half the estimates of the fewer quiet phase, most of them foreign
flood_estimates() {
	local lo=$((q1 < q2 ? q1 : q2))
	[ "$lo" -gt 0 ] && [ $((fl * 2)) -ge "$lo" ] && [ $((fo * 2)) -ge "$fl" ]
}
# twice RUN: RUN (phases and their verdict) once more on a miss,
# measure_twice's rule by hand (info and the phases' figures must come
# back: no subshell), none on a slow machine, where a miss is a skip
twice() {
	local first
	"$1" && return
	machine_slow && return
	first=$info
	"$1"
	info="$info; first try missed: $first"
}
# W inside the range the quiet phases had, give or take 5 %: the flood's
# 10th to 90th percentile of W (nearest rank: the extremes below 15
# estimates; a flood has 100 and more) within the extremes of the two
# quiet phases' sawtooth. (Its own extremes were asked before: with W's
# law the same in all three phases, the flood's third of the estimates
# holds the highest of them a third of the time, and two 6.1 runs under
# CI's load had it 6.3 % above, then its least 17 % below; a W the flood
# drives away moves the percentiles.) And the flood's bytes not in R: its mean within 5 %
# of the quiet phases' (3.5 % above in hybrid mode, losses hidden;
# without the credit 13.6 against 7.9 Mbit/s)
flood_kept() {
	[ "$q1" -gt 0 ] && [ "$q2" -gt 0 ] && [ "$fl" -gt 0 ] && [ "$rq" -gt 0 ] &&
		[ $((f10 * 100)) -ge $((wlo * 95)) ] && [ $((f90 * 100)) -le $((whi * 105)) ] &&
		[ $((rf * 100)) -le $((rq * 105)) ] && [ $((rf * 100)) -ge $((rq * 95)) ]
}

# the loss rule (the default): 3,000 datagrams a second of 28 bytes,
# about 300 an estimate at 100 ms, well past the 64 + an eighth of those
# sent that reordering may move across the cut: every estimate foreign,
# none applied before (the issue's 1,000 a second at T_c = 1 s is about
# 100 an estimate; at 100 ms it falls within the slack half the time,
# where it hides losses instead: 63 of 218 estimates foreign in one run)
flood_loss() { flood_phases 3000 28 "$work/send.json"; flood_estimates && flood_kept; }

# the delay signal survives: the sender in hybrid mode, a flood of
# full-size datagrams at the bottleneck's rate (8 Mbit/s, 667 a second:
# about 67 an estimate, within the slack at times; then they hide losses,
# but the delay rule keeps W at the queue's target). Hybrid mode's
# estimates at the quiet phases' rate, read with a queue, some of them
# foreign
flood_delay_ok() {
	local lo=$((q1 < q2 ? q1 : q2))
	[ "$lo" -gt 0 ] && [ $((fl * 2)) -ge "$lo" ] && [ $((fq * 2)) -ge "$fl" ] && [ "$fo" -gt 0 ]
}
flood_delay() {
	flood_phases $(((BN * 1000000 + 6000) / 12000)) 1500 "$work/send.json"
	flood_delay_ok && flood_kept
}

# the spoofed floods: the loss rule's sender, then hybrid mode's
spoofed_flood() {
	local ipf snd slog bmac d
	local q1 fl q2 fo fq rq rf wlo whi flo fhi f10 f90 info

	setup || { setup_failed "the gateways, the shaping or the responder"; stop_all; return; }
	flow
	slog=$work/send.log
	sender_start
	bmac=$(ip netns exec "$B" cat /sys/class/net/b0/address)
	# W at the bottleneck's rate first, as on_path_attacker waits for it
	sleep 10
	# (a miss is measured once more, measure_twice's rule by hand: a Python
	# spoofer descheduled on a busy host sends in bursts, and an estimate
	# with fewer than the slack's worth hides losses instead; four guests on
	# two CPUs once read 79 of 176 foreign, the spoofer at 2,180 a second)
	twice flood_loss
	d="a spoofed flood of 3000 small datagrams a second from A's address"
	flood_estimates
	tap_timing_result $? "$d: estimates go on, foreign" "$info"
	d="... and the loss rule holds W inside the quiet phases' range, R their mean"
	flood_kept
	tap_timing_result $? "$d" "$info"

	kill $snd; wait $snd 2>/dev/null
	slog=$work/send-hybrid.log
	sender_start --mode hybrid
	sleep 10
	twice flood_delay
	d="a spoofed flood of $BN Mbit/s: hybrid mode's estimates go on, by the delay signal"
	flood_delay_ok
	tap_timing_result $? "$d" "$info"
	flood_kept
	tap_timing_result $? "... and W stays inside the quiet phases' range, R their mean" "$info"
	stop_all
}

# --- restarts across clock steps: the responder and its meter keep the
# newest epoch they took; the sender's next one is newer whatever the
# clock. clock_back undoes the steps (offset) when the case ends, or the
# suite if it ends first
offset=0
# (date reads the clock itself: a step from date +%s lost the fraction,
# and one from a time read before date's fork the fork's time, up to a
# second a step on the debug kernel, which clock_back did not give back)
step_clock() { date -s "$1 seconds" >/dev/null && offset=$((offset + $1)); }
clock_back() { [ "$offset" = 0 ] || step_clock $((-offset)); }

# the sender alone: restarted across clock steps, then an idle hour
sender_alone() {
	local n step rc need wmax cap out w d

	setup || { setup_failed "the gateways, the shaping or the responder"; stop_all; return; }
	# an epoch the responder took before the steps, as it had taken the
	# running senders' when the suite ran as one sequence: each restart's
	# must be newer than it, whatever the clock says
	timeout 30 "${sender[@]}" --interval 100ms --once 10 2>"$work/clock0.log" ||
		{ setup_failed "the sender's first run: exit $?"; stop_all; return; }
	n=0
	for step in -3600 7200 -3600; do
		n=$((n + 1))
		step_clock $step
		timeout 30 "${sender[@]}" --interval 100ms --once 10 2>"$work/clock$n.log"
		rc=$?
		out="exit $rc, $(grep -c ': sent [0-9]* received' "$work/clock$n.log") estimates"
		out+="; responder dropped $(json_get "j['dropped']" <"$work/resp.json")"
		d="the sender restarted after a clock step of ${step}s: its requests are taken"
		tap_result $rc "$d" "$out"
	done
	clock_back

	# --- an idle path: W never above the qdisc's rate, its ceiling. An
	# hour of estimates at T_c = 1 s, compressed to 11 ms each, without
	# traffic: the sender's W and the qdisc's cap stay at most 20 Mbit/s,
	# and the sender lasts the hour. W starts at the ceiling (the cap the
	# clock steps left is the old rate, above the new one) and, the path
	# idle, the rule holds it there: this is the start read from the
	# qdisc and an hour of holds, not a climb (the rule's clamp at w-max
	# has its host tests, test-abwd.c: "held at w-max"). Started at 8
	# Mbit/s instead, W stayed at 8 for all 3600 (6.12, 2026-12-07)
	tc -netns "$A" qdisc change dev a0 root handle 1: er2bc rate 20mbit
	# (the debug kernel under TCG makes them far more slowly: a tenth
	# there)
	need=3600
	machine_slow && need=360
	timeout 200 "${sender[@]}" --interval 11ms --once $need 2>"$work/idle.log"
	rc=$?
	wmax=$(field_of W "$work/idle.log" |
		awk '{ if ($1 > x) x = $1; n++ } END { printf "%d %d\n", x, n }')
	cap=$(tc -netns "$A" -s -j qdisc show dev a0 |
		json_get "j[0]['options']['rate'], j[0].get('xstats', {}).get('cap')")
	out="exit $rc; the largest W and the estimates: $wmax; rate and cap: $cap"
	out+="; $(grep -m1 'W starts' "$work/idle.log")"
	[ $rc = 0 ] && [ "${wmax% *}" -le 20000000 ] && [ "${wmax#* }" -ge $need ]
	tap_result $? "an idle hour, compressed: W never above the qdisc's rate (20 Mbit/s)" "$out"
	# the kernel holds the cap under the rate whatever the estimate says
	"$ctl" -n "$A" abw-set dev a0 handle 1: abw 1gbit recv 1mbit
	out=$("$ctl" -n "$A" -j show dev a0 handle 1: 2>&1)
	w=$(json_get "j['cap_bytes_per_second'], j['cap_ceiling_bytes_per_second']" <<<"$out" 2>&1)
	[ "$w" = "2500000 2500000" ]
	tap_result $? "an estimate of 1 Gbit/s caps the qdisc at its rate, 20 Mbit/s" \
		"cap, ceiling (bytes/s): $w"
	stop_all
}

require_cmd tc ip python3 iperf3
[ -x "$abwd" ] && [ -x "$ctl" ] || skip_all "er2bc-abwd or er2bcctl is not built (make tools)"
tap_begin
trap 'rc=$?; clock_back; stop_all; (exit $rc); tap_end' EXIT
tests_run
