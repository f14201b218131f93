#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest (see estimator-bench.sh): the ABW estimator on real
# packets between two gateways, A (er2bc, sender) and B (meter, responder),
# across a router R whose egress toward B is the bottleneck.
#
#   estimator-bench-guest.sh track OUT.jsonl	(real time)
#   estimator-bench-guest.sh cost OUT.jsonl	(under -icount shift=0)
#
# track:
#   overhead   50 estimates at 100 ms with no other traffic, plain and
#              authenticated: the estimator's datagrams captured on a0
#              (tcpdump), their IP bytes per estimate
#   queue      TCP holding a standing queue at an 8 Mbit/s tbf with a deep
#              buffer (no drop), 300 estimates at 100 ms: every loss an
#              estimate reports is false (the bottleneck dropped nothing)
#   steps      the paper's ABW pattern (seed 000, Fig. 11): the bottleneck
#              2 -> 1.69 -> 1.38 -> 1.07 -> 0.76 Mbit/s and back, 15 s a
#              step, under a greedy UDP sender, at the paper's parameters
#              (T_c 1 s); W from each estimate as it is made (sampled every
#              250 ms from that): per step, the delay until W is within
#              10 % of the new ABW, and W's peaks beyond it after that
# cost: the per-packet cost of the counting, in instructions (guest ns):
#   qdisc      pktgen (queue_xmit, 64-byte UDP) through er2bc on a dummy
#              device: no counting; counting, every packet to the peer
#              prefix; counting, 4 prefixes, the match in the last
#   meter      pktgen on a veth whose peer is B's b0, received in B (the
#              receive path runs in pktgen's time, at its bh-enable): no
#              meter; a meter counting every packet
set -u

mode=$1
out=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
abwd=$top/tools/abwd/er2bc-abwd
flood=$top/selftests/sch_er2bc/udpflood.py
# shellcheck source=../../selftests/lib.sh
source "$top/selftests/lib.sh"
source "$top/selftests/sch_er2bc/gateways.sh"
work=$(mktemp -d)
PORT=4950

log() { echo "bench: $*" >&2; }
record() { # KEY=VALUE...: a JSON line (values: numbers, or quoted strings)
	local kv s=
	for kv in "$@"; do s+="${s:+, }\"${kv%%=*}\": ${kv#*=}"; done
	echo "{$s}" >>"$out"
}
st() { json_get "$1" <"$work/send.json"; }
# plain mode unless given a key (the test bed's path is trusted)
plain() { [[ " $* " == *" --key-file "* ]] || echo --plain yes; }
sender() { # LOG ARGS...
	local log=$1
	shift
	ip netns exec "$A" "$abwd" sender --peer 10.0.2.2 --port $PORT --dev a0 \
		--status "$work/send.json" -v $(plain "$@") "$@" 2>"$log"
}
responder() {
	[ -n "${resp:-}" ] && { kill "$resp"; wait "$resp"; }
	ip netns exec "$B" "$abwd" responder --dev b0 --peer-prefix 10.0.1.0/24 \
		--port $PORT $(plain "$@") "$@" 2>>"$work/resp.log" &
	resp=$!
	busywait 20000 udp_bound "$B" $PORT
}
losses() { sed -n 's/.*estimate [0-9]*: sent [0-9]* received [0-9]* L \(-\?[0-9]*\) .*/\1/p' "$1"; }

track() {
	gateways_setup || { log "cannot set up the gateways"; exit 1; }
	ip netns exec "$A" tc qdisc add dev a0 root handle 1: er2bc rate 100mbit mode er2bc \
		default 1 probe-port $PORT peer 10.0.2.0/24
	ip netns exec "$A" tc class add dev a0 parent 1: classid 1:1 er2bc prio 1 rate 1mbit type udp
	printf 'er2bc-bench-key-0123456789abcdef' >"$work/key" && chmod 600 "$work/key"

	local m args
	for m in plain auth; do
		args=()
		[ $m = auth ] && args=(--key-file "$work/key")
		responder "${args[@]}"
		ip netns exec "$A" tcpdump -q -n -i a0 -w "$work/$m.pcap" "udp port $PORT" 2>/dev/null &
		local td=$!
		sleep 1
		sender "$work/o.log" --interval 100ms --once 50 "${args[@]}"
		sleep 0.5
		kill $td
		wait $td
		python3 - "$work/$m.pcap" $PORT <<'PY' | while read -r req resp n; do
import struct, sys
data = open(sys.argv[1], "rb").read()
port = int(sys.argv[2])
off, req, resp, nreq = 24, 0, 0, 0
while off + 16 <= len(data):
    _, _, incl, orig = struct.unpack_from("IIII", data, off)
    pkt = data[off + 16:off + 16 + incl]
    off += 16 + incl
    ip = pkt[14:]
    ihl = (ip[0] & 15) * 4
    dport = struct.unpack_from("!H", ip, ihl + 2)[0]
    if dport == port:
        req += orig - 14
        nreq += 1
    else:
        resp += orig - 14
print(req, resp, nreq)
PY
			record part='"overhead"' mode="\"$m\"" family='"ipv4"' requests="$n" \
				request_bytes="$req" response_bytes="$resp" \
				bytes_per_estimate="$(python3 -c "print(round(($req + $resp) / $n, 2))")" \
				daemon_bytes_per_estimate="$(st "j['bytes_per_estimate']")"
			log "overhead $m: $(((req + resp) / n)) bytes per estimate ($n requests)"
		done
	done
	responder

	# a standing queue, no drop: every reported loss is false
	ip netns exec "$R" tc qdisc replace dev r1 root tbf rate 8mbit burst 64k limit 4m
	ip netns exec "$B" iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
	busywait 20000 tcp_listening "$B" 5201
	ip netns exec "$A" iperf3 -c 10.0.2.2 -p 5201 -t 90 -w 400K >/dev/null 2>&1 &
	local ipf=$!
	sleep 3
	local d0 d1 rx0 rx1 t0 t1
	d0=$(ip netns exec "$R" tc -s -j qdisc show dev r1 | json_get "j[0]['drops']")
	rx0=$(ip netns exec "$B" cat /sys/class/net/b0/statistics/rx_bytes) t0=$(now)
	sender "$work/q.log" --interval 100ms --once 300 --w-ini 8mbit
	rx1=$(ip netns exec "$B" cat /sys/class/net/b0/statistics/rx_bytes) t1=$(now)
	d1=$(ip netns exec "$R" tc -s -j qdisc show dev r1 | json_get "j[0]['drops']")
	kill $ipf 2>/dev/null
	wait $ipf
	local n sum lossy
	n=$(losses "$work/q.log" | wc -l)
	sum=$(losses "$work/q.log" | paste -sd+ | bc)
	lossy=$(losses "$work/q.log" | grep -vc '^0$')
	record part='"queue"' estimates="$n" interval_ms=100 bottleneck_drops=$((d1 - d0)) \
		reported_lost="$sum" lossy_estimates="$lossy" \
		false_losses=$((sum > d1 - d0 ? sum - (d1 - d0) : 0)) \
		utilization="$(python3 -c "print(round(($rx1 - $rx0) * 8 / ($t1 - $t0) / 8e6, 3))")" \
		negative_loss="$(st "j['negative_loss']")"
	log "queue: $n estimates, $lossy lossy, bottleneck dropped $((d1 - d0))"

	# the paper's staircase, T_c 1 s, the paper's parameters
	local levels=(2000 1690 1380 1070 760 1070 1380 1690 2000) step=15 i
	ip netns exec "$R" tc qdisc replace dev r1 root tbf rate 2mbit burst 4k limit 30k
	ip netns exec "$A" python3 "$flood" 10.0.2.2 $(( ${#levels[@]} * step + 5 )) 9 >/dev/null &
	local fl=$! start
	# W from each estimate as the sender makes it (its -v line, stamped as it
	# arrives): W changes only at an estimate, so this is W at every
	# instant, finer than any sampling of the status file
	start=$(now)
	ip netns exec "$A" "$abwd" sender --peer 10.0.2.2 --port $PORT --dev a0 \
		--plain yes --w-ini 1mbit --status "$work/send.json" -v \
		--once $(( (${#levels[@]} + 1) * step )) \
		2>&1 >/dev/null |
		while IFS= read -r line; do echo "$(date +%s.%N) $line"; done >"$work/t.log" &
	local snd=$!
	(
		for i in "${!levels[@]}"; do
			[ "$i" = 0 ] && { sleep $step; continue; }
			ip netns exec "$R" tc qdisc change dev r1 root tbf rate "${levels[$i]}kbit" burst 4k limit 30k
			# stamped once the new rate is in force
			echo "$(date +%s.%N) ${levels[$i]}000" >>"$work/steps.txt"
			sleep $step
		done
	) &
	local stp=$!
	wait $snd $stp $fl
	python3 - "$work/t.log" "$work/steps.txt" "${levels[0]}000" $step "$start" <<'PY' >>"$out"
import json, re, sys
units = {"bit": 1, "Kbit": 1e3, "Mbit": 1e6, "Gbit": 1e9}
t0 = float(sys.argv[5])
ev = []  # (t, W, R) at each estimate
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) .*estimate \d+: sent .* R ([\d.]+)(\w+) W ([\d.]+)(\w+) D ", line)
    if m:
        ev.append((float(m.group(1)) - t0, float(m.group(4)) * units[m.group(5)],
                   float(m.group(2)) * units[m.group(3)]))
steps = [(float(a) - t0, float(b)) for a, b in (l.split() for l in open(sys.argv[2]))]
first, length = float(sys.argv[3]), float(sys.argv[4])
# W sampled every T_c / 4 from the step function the estimates make
grid = [i * 0.25 for i in range(int((ev[-1][0] if ev else 0) / 0.25) + 1)]
w_at = lambda t: next((w for te, w, _ in reversed(ev) if te <= t), None)  # noqa: E731
series = [(t, w_at(t)) for t in grid if w_at(t) is not None]
old = first
for at, new in steps:
    seg = [(t, w) for t, w, _ in ev if at <= t < at + length]
    # delay: from the step to the first estimate that puts W within 10 % of
    # the new ABW; overshoot and undershoot: W's peaks above and below the
    # ABW from then to the next step (the step settled)
    delay = next((t - at for t, w in seg if abs(w - new) <= 0.1 * new), None)
    after = [w for t, w in seg if delay is not None and t >= at + delay]
    print(json.dumps({"part": "step", "at": round(at, 2), "from": old, "to": new,
                      "tracking_delay_s": None if delay is None else round(delay, 2),
                      "overshoot_bps": max((w - new for w in after), default=None),
                      "undershoot_bps": max((new - w for w in after), default=None),
                      "mean_w": round(sum(after) / len(after)) if after else None}))
    old = new
print(json.dumps({"part": "series", "sample_s": 0.25, "t": [p[0] for p in series],
                  "w": [p[1] for p in series], "estimates_t": [e[0] for e in ev],
                  "estimates_w": [e[1] for e in ev], "estimates_r": [e[2] for e in ev],
                  "steps": steps, "first": first}))
PY
	log "steps: done"
	kill "$resp"
	wait "$resp"
	cleanup_all_ns
}

cost() {
	local pg=/proc/net/pktgen count=200000
	modprobe pktgen || { log "no pktgen"; exit 1; }
	pgset() { echo "$2" >"$pg/$1"; }
	pgrun() { # DEV: packets sent and busy ns per packet
		pgset "$1" "count $count"
		pgset pgctrl start
		sed -n 's/.*OK: [0-9]*(c\([0-9]*\)+d[0-9]*) usec, \([0-9]*\) .*/\1 \2/p' "$pg/$1"
	}
	setup_ns B
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip link add dum0 type dummy && ip addr add 10.0.1.1/24 dev dum0 && ip link set dum0 up
	ip link add v0 type veth peer name b0 netns "$B"
	ip addr add 10.0.9.1/24 dev v0 && ip link set v0 up
	ip -n "$B" addr add 10.0.9.2/24 dev b0 && ip -n "$B" link set b0 up
	# pktgen forgets a device's settings when it is removed: set them anew
	# each time one is added
	pgdev() { # DEV
		pgset kpktgend_0 rem_device_all
		pgset kpktgend_0 "add_device $1"
		pgset "$1" "pkt_size 60"
		pgset "$1" "delay 0"
		pgset "$1" "xmit_mode queue_xmit"
		pgset "$1" "src_min 10.0.1.1"
		pgset "$1" "src_max 10.0.1.1"
		pgset "$1" "udp_dst_min 9"
		pgset "$1" "udp_dst_max 9"
		if [ "$1" = dum0 ]; then
			pgset dum0 "dst 10.0.2.2"
			pgset dum0 "dst_mac 02:00:00:00:00:02"
		else
			pgset v0 "dst 10.0.9.2"
			pgset v0 "dst_mac $(ip -n "$B" -j link show b0 | json_get "j[0]['address']")"
		fi
	}
	# only one device at a time: the other one idles
	local variant res us n rep
	counted() { # PART: packets the qdisc or the meter has counted so far
		if [ "$1" = qdisc ]; then
			tc -s -j qdisc show dev dum0 | json_get "j[0].get('probe_packets', 0)"
		else
			ip netns exec "$B" python3 - "$top/selftests/sch_er2bc" \
				"$(ip netns exec "$B" cat /sys/class/net/b0/ifindex)" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
import genlraw
g = genlraw.Genl()
fid = genlraw.u(dict(g.family("er2bc"))[genlraw.CTRL_ATTR_FAMILY_ID])
err, _, rep = g.request(fid, 7, genlraw.attr(2, struct.pack("I", int(sys.argv[2]))))
print(0 if err else genlraw.u(dict(rep[0])[7]))
PY
		fi
	}
	measure() { # PART VARIANT DEV
		for rep in 1 2; do
			pgdev "$3"
			res=$(pgrun "$3")
			us=${res% *} n=${res#* }
			record part="\"$1\"" variant="\"$2\"" rep=$rep packets="$n" \
				ns_per_packet="$(python3 -c "print(round($us * 1000 / $n, 1))")" \
				counted="$(counted "$1")"
			log "$1 $2: $(python3 -c "print(round($us * 1000 / $n, 1))") ns/packet"
		done
	}
	tc qdisc add dev dum0 root handle 1: er2bc rate 10gbit default 1
	tc class add dev dum0 parent 1: classid 1:1 er2bc prio 1 rate 1gbit
	measure qdisc off dum0
	tc qdisc change dev dum0 root handle 1: er2bc probe-port $PORT peer 10.0.2.0/24
	measure qdisc counting dum0
	tc qdisc change dev dum0 root handle 1: er2bc peer 10.9.0.0/16 peer 10.8.0.0/16 \
		peer 10.7.0.0/16 peer 10.0.2.0/24
	measure qdisc counting-4-prefixes dum0
	measure meter off v0
	ip netns exec "$B" python3 "$top/selftests/sch_er2bc/genlraw.py" send 5 \
		"2:u32:$(ip netns exec "$B" cat /sys/class/net/b0/ifindex)" "4:u16:$PORT" \
		"5:prefix:10.0.1.0/24" >/dev/null
	measure meter counting v0
	cleanup_all_ns
}

case $mode in
track) track ;;
cost) cost ;;
*) log "unknown mode $mode"; exit 2 ;;
esac
rm -rf "$work"
