#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest (see rcvmgr-bench.sh): tcp_rcvmgr on real connections
# through a gateway GW.
#
#   rcvmgr-bench-guest.sh scenario OUT.jsonl	(real time)
#   rcvmgr-bench-guest.sh cost OUT.jsonl	(under -icount shift=0)
#
# scenario: the thesis' scenario 1 (seed 004, section 4), time-compressed.
#   S1 S2 S3 (bulk, 35/45/55 ms one way) and S0 (short, 10 ms) -- WAN --
#   (tbf 4 Mbit/s, 128 KB buffer) -- GW (tcp_rcvmgr, wan eth0) -- RCV.
#   Per policy (off, spring, equal, azuma; interval 1 s): three bulk
#   downloads start; after 10 s, 20 downloads of 30 KB from S0 at random
#   gaps (exponential, mean 1 s, seed 4, the same for every policy), each
#   its own connection (the environment changes the shape: SHORTS [20],
#   GAP [1] s, WARMUP [10] s, INTERVAL [1000] ms, POLICIES
#   [off,spring,equal,azuma], AZUMA_OPTS extra `rcvmgr set` options for
#   azuma, comma-separated); the window runs from the first short download's
#   start to the last one's end: the access link's utilization from the
#   tbf's byte counter, its mean queue from its backlog sampled every
#   100 ms, each short download's time (xfer.py: connect_s, transfer_s),
#   and the Jain fairness of the bytes GW forwarded from each bulk sender
#   (nft counters).
# cost: the hooks' per-packet cost in instructions (guest ns) beside
#   conntrack's: one idle tracked connection's last pure ACK, captured on
#   RCV's eth0, replayed 20000 times by an AF_PACKET socket there,
#   forwarded by GW toward the sender; the loop's guest time per packet
#   with the module unloaded, with and without conntrack (an nft rule on
#   GW's forward hook that matches ct state), then with 10, 10000 and
#   100000 connections held open through GW, tracked by the module and
#   by conntrack, in four variants each: the module configured (azuma,
#   wan eth0) or with `wan none` (no hooks: the namespace is not
#   configured), conntrack on or off. Five repeats each. Then the cost of a SYN flood: guest time
#   per spoofed SYN (synflood, 5 s) forwarded by GW with nothing, with
#   conntrack, and with the module (its half-open bound reached).
set -u

mode=$1
out=$2
shorts=${SHORTS:-20} gap=${GAP:-1} warmup=${WARMUP:-10} interval=${INTERVAL:-1000}
policies=${POLICIES:-off,spring,equal,azuma} azuma_opts=${AZUMA_OPTS:-}
top=$(cd "$(dirname "$0")/../.." && pwd)
ctlbin=$top/tools/er2bcctl/er2bcctl
xfer=$top/selftests/tcp_rcvmgr/xfer.py
# shellcheck source=../../selftests/lib.sh
source "$top/selftests/lib.sh"
work=$(mktemp -d)

log() { echo "bench: $*" >&2; }
record() { # KEY=VALUE...: a JSON line (values: numbers, or quoted strings)
	local kv s=
	for kv in "$@"; do s+="${s:+, }\"${kv%%=*}\": ${kv#*=}"; done
	echo "{$s}" >>"$out"
}
ctl() { ip netns exec "$GW" "$ctlbin" "$@"; }
stat_of() { ctl -j rcvmgr stats | json_get "j['$1']"; }

scenario() {
	local delays=(10 35 45 55) i d ns
	setup_ns S0 S1 S2 S3 WAN GW RCV
	local senders=("$S0" "$S1" "$S2" "$S3")
	for i in 0 1 2 3; do
		veth_pair "${senders[$i]}" eth0 10.1.$i.2/24 "$WAN" s$i 10.1.$i.1/24
		ip -n "${senders[$i]}" route add default via 10.1.$i.1
	done
	veth_pair "$WAN" eth9 10.2.0.1/24 "$GW" eth0 10.2.0.2/24
	veth_pair "$GW" eth1 10.3.0.1/24 "$RCV" eth0 10.3.0.2/24
	ip -n "$WAN" route add 10.3.0.0/24 via 10.2.0.2
	ip -n "$GW" route add default via 10.2.0.1
	ip -n "$RCV" route add default via 10.3.0.1
	for ns in "$WAN" "$GW"; do ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1; done
	# one-way delay D each way between sender i and the WAN router
	for i in 0 1 2 3; do
		d=${delays[$i]}
		tc -n "${senders[$i]}" qdisc add dev eth0 root netem delay ${d}ms limit 10000
		tc -n "$WAN" qdisc add dev s$i root netem delay ${d}ms limit 10000
	done
	# the access link: 4 Mbit/s, a 128 KB router buffer
	tc -n "$WAN" qdisc add dev eth9 root tbf rate 4mbit burst 5k limit 128k
	# what each bulk sender gets through the access link, for their Jain
	# fairness: GW counts the bytes it forwards from each
	ip netns exec "$GW" nft -f - <<-EOF || { log "cannot set up nft counters"; exit 1; }
		table ip bench {
			chain bulk {
				type filter hook forward priority 0;
				ip saddr 10.1.1.2 counter
				ip saddr 10.1.2.2 counter
				ip saddr 10.1.3.2 counter
			}
		}
	EOF
	local pids=
	ip netns exec "$S0" python3 "$xfer" serve 5005 30000 --bind 0.0.0.0 &
	pids+=" $!"
	for i in 1 2 3; do
		ip netns exec "${senders[$i]}" python3 "$xfer" serve 5007 1000000000 --bind 0.0.0.0 &
		pids+=" $!"
	done
	busywait 20000 tcp_listening "$S0" 5005
	for i in 1 2 3; do busywait 20000 tcp_listening "${senders[$i]}" 5007; done
	modprobe tcp_rcvmgr || { log "cannot load tcp_rcvmgr"; exit 1; }
	# the arrivals: SHORTS, the gaps between them exponential with mean GAP, seed 4
	python3 -c "import random, sys; n, g = int(sys.argv[1]), float(sys.argv[2]); r = random.Random(4); print(' '.join(['0'] + ['%.3f' % r.expovariate(1 / g) for _ in range(n - 1)]))" \
		"$shorts" "$gap" >"$work/gaps"
	# the bulk downloads outlast the short ones by far
	local bulk_s
	bulk_s=$(python3 -c "import sys; print(int($warmup + sum(map(float, sys.argv[1:])) * 2 + 60))" $(cat "$work/gaps"))

	local p extra bulk t0 t1 b0 b1 samp sh
	for p in ${policies//,/ }; do
		extra=
		[ $p = spring ] && extra="link-rate 4mbit"
		[ $p = azuma ] && extra=${azuma_opts//,/ }
		# shellcheck disable=SC2086
		ctl rcvmgr set policy $p wan eth0 interval "${interval}ms" $extra ||
			{ log "cannot configure $p"; exit 1; }
		bulk=
		for i in 1 2 3; do
			ip netns exec "$RCV" timeout "$bulk_s" python3 "$xfer" fetch 10.1.$i.2 5007 \
				--limit "$bulk_s" >/dev/null 2>&1 &
			bulk+=" $!"
		done
		sleep "$warmup"
		: >"$work/short.$p"
		: >"$work/q.$p"
		# the queue, every 100 ms, until stopped
		# one tc process (-batch) fed a command every 100 ms, so that
		# sampling costs the guest little; parsed at the end
		ip netns exec "$WAN" python3 -c '
import signal, subprocess, sys, time
def stop(*_):
    raise KeyboardInterrupt
signal.signal(signal.SIGTERM, stop)
tc = subprocess.Popen(["tc", "-s", "-j", "-batch", "-"], stdin=subprocess.PIPE,
                      stdout=open(sys.argv[1], "w"), text=True)
t = time.monotonic()
try:
    while True:
        tc.stdin.write("qdisc show dev eth9\n")
        tc.stdin.flush()
        t += 0.1
        time.sleep(max(0, t - time.monotonic()))
except (KeyboardInterrupt, BrokenPipeError):
    pass
finally:
    tc.stdin.close()
    tc.wait()
' "$work/q.$p" &
		samp=$!
		t0=$(now)
		tc -n "$WAN" -s -j qdisc show dev eth9 >"$work/b0.$p"
		ip netns exec "$GW" nft -j list chain ip bench bulk >"$work/f0.$p"
		sh=
		for d in $(cat "$work/gaps"); do
			sleep "$d"
			ip netns exec "$RCV" python3 "$xfer" fetch 10.1.0.2 5005 --limit 30 \
				>>"$work/short.$p" 2>/dev/null &
			sh+=" $!"
		done
		wait $sh
		t1=$(now)
		tc -n "$WAN" -s -j qdisc show dev eth9 >"$work/b1.$p"
		ip netns exec "$GW" nft -j list chain ip bench bulk >"$work/f1.$p"
		kill $samp
		wait $samp 2>/dev/null
		b0=$(json_get "j[0]['bytes']" <"$work/b0.$p")
		b1=$(json_get "j[0]['bytes']" <"$work/b1.$p")
		ctl -j rcvmgr stats >"$work/stats.$p"
		kill $bulk 2>/dev/null
		wait $bulk 2>/dev/null
		python3 - "$p" "$work/short.$p" "$work/q.$p" "$t0" "$t1" "$b0" "$b1" \
			"$work/stats.$p" "$shorts" "$gap" "$warmup" "$interval" "$extra" \
			"$work/f0.$p" "$work/f1.$p" <<'PY' >>"$out"
import json, sys
(p, short, q, t0, t1, b0, b1, stats, shorts, gap, warmup, interval, opts,
 f0, f1) = sys.argv[1:]


def counters(path):
    # the chain's counters, in the order of its rules (bulk senders 1..3)
    rules = [x["rule"] for x in json.load(open(path))["nftables"] if "rule" in x]
    return [next(e["counter"]["bytes"] for e in r["expr"] if "counter" in e) for r in rules]


bulk = [b - a for a, b in zip(counters(f0), counters(f1))]
jain = sum(bulk) ** 2 / (len(bulk) * sum(x * x for x in bulk)) if any(bulk) else None
t0, t1, b0, b1 = float(t0), float(t1), int(b0), int(b1)
tr = [json.loads(l) for l in open(short) if l.strip()]
ok = [t for t in tr if "transfer_s" in t]
text, dec, qs, i = open(q).read(), json.JSONDecoder(), [], 0
while True:
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    try:
        j, i = dec.raw_decode(text, i)
    except ValueError:
        break
    if j:
        qs.append(j[0]["backlog"])
st = json.load(open(stats))
print(json.dumps({"part": "scenario", "policy": p, "window_s": round(t1 - t0, 3),
    "short_transfer_s": [t["transfer_s"] for t in ok],
    "short_connect_s": [t["connect_s"] for t in ok],
    "short_failed": len(tr) - len(ok) + max(0, int(shorts) - len(tr)),
    "shorts": int(shorts), "gap_mean_s": float(gap), "warmup_s": float(warmup),
    "interval_ms": int(interval), "options": opts,
    "link_bytes": b1 - b0,
    "bulk_bytes": bulk, "bulk_jain": round(jain, 4) if jain is not None else None,
    "utilization": round((b1 - b0) * 8 / (t1 - t0) / 4e6, 4),
    "queue_samples": len(qs),
    "queue_kb": round(sum(qs) / len(qs) / 1024, 2) if qs else None,
    "queue_max_kb": round(max(qs) / 1024, 2) if qs else None,
    "rcvmgr_stats": st}))
PY
		log "$p: $(tail -n 1 "$out" | json_get "'util %s, queue %s KB, Jain %s, %d shorts, failed %d' % (j['utilization'], j['queue_kb'], j['bulk_jain'], len(j['short_transfer_s']), j['short_failed'])")"
		sleep 3	# the bulk connections end
	done
	ctl rcvmgr set policy off wan none
	kill $pids 2>/dev/null
	wait $pids 2>/dev/null
	rmmod tcp_rcvmgr
	cleanup_all_ns
}

cost() {
	local count=20000 reps=5
	setup_ns SND GW RCV
	veth_pair "$SND" eth0 10.1.0.2/24 "$GW" eth0 10.1.0.1/24
	veth_pair "$GW" eth1 10.3.0.1/24 "$RCV" eth0 10.3.0.2/24
	ip -n "$SND" route add default via 10.1.0.1
	ip -n "$RCV" route add default via 10.3.0.1
	ip netns exec "$GW" sysctl -qw net.ipv4.ip_forward=1
	for ns in "$SND" "$RCV"; do
		ip netns exec "$ns" sysctl -qw "net.ipv4.ip_local_port_range=1024 65000" \
			net.core.somaxconn=4096 net.ipv4.tcp_max_syn_backlog=4096
	done
	ulimit -n 120000
	# the held connections bind their own ports (hold.py), below the
	# ephemeral ones of the replays
	ip netns exec "$RCV" sysctl -qw "net.ipv4.ip_local_port_range=62000 65000"
	# the flood's SYNs end at SND, unanswered
	ip netns exec "$SND" nft add table inet sink
	ip netns exec "$SND" nft add chain inet sink in "{ type filter hook prerouting priority -300; }"
	ip netns exec "$SND" nft add rule inet sink in tcp dport 9 drop
	cat >"$work/hold.py" <<'PY'
import os, signal, socket, sys, threading, time, select
# hold.py serve PORT BYTES | hold.py connect HOST PORT N READY [SPORT]:
# connections held open (the server sends BYTES on each, and no FIN); from
# SPORT, SPORT+1, ... if given: the kernel's search for a free port is
# linear in the ports in use, tens of minutes for 100000 under -icount.
# SIGUSR1 to a server: one byte more on each connection it holds, which
# the gateway's module learns again after forgetting them (wan none)
if sys.argv[1] == "serve":
    data = b"\0" * int(sys.argv[3])
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", int(sys.argv[2])))
    srv.listen(4096)
    held = []

    def touch(signum, frame):
        for c in held:
            c.send(b"\0")
    signal.signal(signal.SIGUSR1, touch)
    while True:
        c, _ = srv.accept()
        if data:
            c.sendall(data)
        held.append(c)
else:
    host, port, n, ready = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    sport = int(sys.argv[6]) if len(sys.argv) > 6 else 0
    held = []
    for i in range(n):
        s = socket.socket()
        if sport:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("0.0.0.0", sport + i))
        s.connect((host, port))
        held.append(s)
    open(ready, "w").write("%d\n" % len(held))
    while True:
        time.sleep(3600)
PY
	cat >"$work/replay.py" <<'PY'
import json, socket, struct, sys, time
# replay.py HOST PORT COUNT REPS FIFO: one connection downloads 8 KB and stays
# open; its last pure ACK, captured on eth0, is replayed COUNT times per
# line read from FIFO ("label"); prints one JSON line per repeat
host, port, count, reps, fifo = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
cap = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
cap.bind(("eth0", 0))
s = socket.socket()
s.connect((host, port))
lport = s.getsockname()[1]
got = 0
while got < 8192:
    b = s.recv(65536)
    if not b:
        break
    got += len(b)
time.sleep(0.5)
cap.setblocking(False)
ack = None
while True:
    try:
        frame, addr = cap.recvfrom(2048)
    except BlockingIOError:
        break
    if addr[2] != socket.PACKET_OUTGOING or frame[12:14] != b"\x08\x00":
        continue
    ip = frame[14:]
    ihl = (ip[0] & 15) * 4
    tot = struct.unpack_from("!H", ip, 2)[0]
    tcp = ip[ihl:]
    if ip[9] != 6 or struct.unpack_from("!H", tcp, 0)[0] != lport:
        continue
    doff = (tcp[12] >> 4) * 4
    if tcp[13] == 0x10 and tot == ihl + doff:
        ack = bytearray(frame[:14 + tot])
cap.close()
if ack is None:
    print(json.dumps({"error": "no pure ACK captured", "bytes": got}), flush=True)
    sys.exit(1)
# the capture holds the checksum veth's offload left partial: compute it,
# or the gateway's conntrack would find it wrong and not track the ACK
ip = ack[14:]
ihl = (ip[0] & 15) * 4
seg = bytearray(ip[ihl:])
seg[16:18] = b"\0\0"
data = bytes(ip[12:20]) + struct.pack("!BBH", 0, 6, len(seg)) + bytes(seg)
if len(data) % 2:
    data += b"\0"
s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
while s >> 16:
    s = (s & 0xFFFF) + (s >> 16)
struct.pack_into("!H", ack, 14 + ihl + 16, ~s & 0xFFFF)
ack = bytes(ack)
tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
tx.bind(("eth0", 0))
print(json.dumps({"ready": True, "lport": lport, "ack_len": len(ack)}), flush=True)
for label in open(fifo):
    label = label.strip()
    if label == "quit":
        break
    for rep in range(reps):
        t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        for _ in range(count):
            tx.send(ack)
        t1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        print(json.dumps({"label": label, "rep": rep + 1, "packets": count,
                          "ns_per_packet": round((t1 - t0) / count, 1)}), flush=True)
    print(json.dumps({"done": label}), flush=True)
PY
	ip netns exec "$SND" bash -c "ulimit -n 120000; exec python3 $work/hold.py serve 5010 0" &
	local srv=$!
	busywait 20000 tcp_listening "$SND" 5010
	ip netns exec "$SND" bash -c "ulimit -n 120000; exec python3 $work/hold.py serve 5012 0" &
	local srv3=$!
	busywait 20000 tcp_listening "$SND" 5012
	ip netns exec "$SND" bash -c "ulimit -n 120000; exec python3 $work/hold.py serve 5013 0" &
	local srv4=$!
	busywait 20000 tcp_listening "$SND" 5013
	# the tracked connection's sender: 8 KB, then held open, no FIN
	ip netns exec "$SND" python3 "$work/hold.py" serve 5011 8192 &
	local srv2=$!
	busywait 20000 tcp_listening "$SND" 5011

	# measure LABEL N: COUNT replays x REPS of the tracked connection's ACK.
	# The replay's lines come through a pipe the shell blocks on: nothing
	# else of the benchmark's runs on the guest's one vCPU while it sends
	# (a poll, a process a second, would cost more than the hooks measured)
	mkfifo "$work/fifo" "$work/results"
	local rp
	# replay_line: the replay's next line, in $line and appended to
	# replay.out; false if it ended (a minute's wait sees whether it
	# still runs: one process a minute)
	replay_line() {
		local rc
		until IFS= read -r -t 60 line <&8; do
			rc=$?
			[ $rc -gt 128 ] && kill -0 $rp 2>/dev/null || return 1
		done
		echo "$line" >>"$work/replay.out"
	}
	start_replay() { # one tracked connection, opened now
		local line
		: >"$work/replay.out"
		ip netns exec "$RCV" python3 "$work/replay.py" 10.1.0.2 5011 $count $reps \
			"$work/fifo" >"$work/results" 2>"$work/replay.err" &
		rp=$!
		exec 7<>"$work/fifo" 8<"$work/results"
		replay_line && [[ $line == *'"ready"'* ]] ||
			{ log "replay not ready: $(cat "$work/replay.out" "$work/replay.err")"; exit 1; }
	}
	stop_replay() { echo quit >&7; exec 7>&- 8<&-; wait $rp; }
	measure() { # VARIANT CONNS
		local a0=0 a1=0 tracked=0 loaded=0 ct line
		lsmod | grep -q '^tcp_rcvmgr' && loaded=1
		[ $loaded = 1 ] && a0=$(stat_of acks) && tracked=$(stat_of conns)
		ct=$(ip netns exec "$GW" cat /proc/sys/net/netfilter/nf_conntrack_count 2>/dev/null || echo 0)
		# what those processes left behind (their exit, freed memory) first
		sleep 1
		echo "$1-$2" >&7
		while [[ ${line:-} != *"\"done\": \"$1-$2\""* ]]; do
			replay_line || { log "replay died: $(cat "$work/replay.err")"; exit 1; }
		done
		[ $loaded = 1 ] && a1=$(stat_of acks)
		# the module's variants measure a hit: every replayed ACK seen
		if [[ $1 == azuma* ]] && [ $((a1 - a0)) -lt $((count * reps)) ]; then
			log "cost $1: the module saw $((a1 - a0)) of $((count * reps)) replayed ACKs"
			exit 1
		fi
		grep "\"label\": \"$1-$2\"" "$work/replay.out" | while read -r l; do
			record part='"cost"' variant="\"$1\"" conns="$2" tracked="$tracked" \
				conntrack="$ct" acks_seen=$((a1 - a0)) \
				rep="$(echo "$l" | json_get "j['rep']")" packets=$count \
				ns_per_packet="$(echo "$l" | json_get "j['ns_per_packet']")"
		done
		log "cost $1 ($2 connections, $tracked tracked, $ct in conntrack, module saw $((a1 - a0)) ACKs): $(grep "\"label\": \"$1-$2\"" "$work/replay.out" | sed 's/.*"ns_per_packet": \([0-9.]*\).*/\1/' | paste -sd' ') ns/packet"
	}
	hold() { # N PORT [SPORT]: N more connections held open from RCV to SND's PORT
		ip netns exec "$RCV" bash -c "ulimit -n 120000; exec python3 $work/hold.py connect 10.1.0.2 $2 $1 $work/ready.$1.$2 ${3:-}" &
		holds+=" $!"
		busywait 1800000 test -s "$work/ready.$1.$2" || { log "could not open $1 connections"; exit 1; }
	}
	# conntrack on GW: a rule on its forward hook that looks at ct state
	ct_on() {
		ip netns exec "$GW" nft -f - <<-EOF
			table inet bench_conntrack {
				chain forward_ct {
					type filter hook forward priority 0;
					ct state established counter
				}
			}
		EOF
	}
	ct_off() { ip netns exec "$GW" nft delete table inet bench_conntrack; }
	# (conntrack's table, global, must hold the 100000 and the replays)
	# the four variants at N connections: the module's first, while its
	# table holds the N (the replayed one among them); wan none takes its hooks
	# and empties its table (what they learnt would be stale), so then
	# the module is configured again, a new replayed connection opened,
	# and every held connection carries a byte, which it learns them from
	configure() {
		ctl rcvmgr set policy azuma wan eth0 max-conns 262144 idle-timeout 86400s ||
			{ log "cannot configure azuma"; exit 1; }
	}
	tracked_all() { [ "$(stat_of conns)" -ge "$want" ]; }
	variants() { # N [last]
		local want=$1
		tracked_all || { log "the module tracks $(stat_of conns) connections, not $want"; exit 1; }
		measure azuma+ct "$1"
		ct_off
		measure azuma "$1"
		# the module's counters, once, with all it tracked
		[ "${2:-}" = last ] && ctl -j rcvmgr stats >"$work/stats"
		ctl rcvmgr set wan none
		measure wan-none "$1"
		ct_on
		measure wan-none+ct "$1"
		[ "${2:-}" = last ] && return
		stop_replay
		configure
		start_replay
		kill -USR1 $srv $srv3 $srv4
		busywait 1800000 tracked_all ||
			{ log "the module learnt $(stat_of conns) of $want connections again"; exit 1; }
	}
	# flood LABEL: guest ns per SYN of a flood from RCV through GW, half a
	# second (about 50000 SYNs: each creates an entry, below both bounds)
	flood() {
		local r
		r=$(ip netns exec "$RCV" "$top/selftests/tcp_rcvmgr/synflood" -s 10.3.0.0/24 \
			-d 10.1.0.2 -p 9 -t 0.5) || { log "synflood failed"; exit 1; }
		r=$(echo "$r" | json_get "j['rate']")
		record part='"flood"' variant="\"$1\"" ns_per_syn="$(python3 -c "print(round(1e9 / $r, 1))")"
		log "flood $1: $r SYN/s of guest time"
	}
	local holds=

	# nothing, an nft rule alone, and conntrack: the module unloaded; each
	# on a replayed connection of its own (conntrack sees its handshake)
	rmmod tcp_rcvmgr 2>/dev/null
	start_replay
	measure unloaded 1
	ip netns exec "$GW" nft -f - <<-EOF
		table inet bench_nft {
			chain forward_nft {
				type filter hook forward priority 0;
				meta l4proto tcp counter
			}
		}
	EOF
	measure nft 1
	ip netns exec "$GW" nft delete table inet bench_nft
	stop_replay
	ct_on
	sysctl -qw net.netfilter.nf_conntrack_max=1048576
	start_replay
	measure conntrack 1
	stop_replay

	# connections opened from now on are in both tables
	modprobe tcp_rcvmgr || { log "cannot load tcp_rcvmgr"; exit 1; }
	configure
	start_replay
	hold 9 5010 1100
	variants 10
	hold 9990 5010 1109
	variants 10000
	hold 50000 5012 12000
	hold 40000 5013 12000
	variants 100000 last

	# the floods, on tables without the held connections
	stop_replay
	kill $holds 2>/dev/null
	wait $holds 2>/dev/null
	holds=
	rmmod tcp_rcvmgr
	ct_off
	flood unloaded
	ct_on
	flood conntrack
	ct_off
	modprobe tcp_rcvmgr
	ctl rcvmgr set policy azuma wan eth0 max-conns 262144
	flood module
	record part='"cost-stats"' stats="$(python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))" "$work/stats")"
	kill $holds $srv $srv2 $srv3 $srv4 2>/dev/null
	wait $holds $srv $srv2 $srv3 $srv4 2>/dev/null
	cleanup_all_ns
}

case $mode in
scenario) scenario ;;
cost) cost ;;
*) log "unknown mode $mode"; exit 2 ;;
esac
rm -rf "$work"
