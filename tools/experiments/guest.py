#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Runs in the guest (gateway-scenario.sh boots it): seed 000's testbed
(Fig. 10) in network namespaces, and one of its scenarios, every run of it
(protocol x gateway mode) in turn; writes what was measured as JSON.

    guest.py dbhpf|tracking --scale K --duration S --out FILE.json
             [--matrix --impair NAME --seed N
              (--contenders MODE[:RULE],... | --modes M,... --estimator-mode RULE)]

--matrix (matrix.sh): the robustness matrix's testbed and measures. A
counting hop GC between GA and R carries an er2bc qdisc that only counts
(rate 10 Gbit/s) for the baselines that are not er2bc: htb and cake on
GA's uplink take the same estimator's W (er2bc-abwd on GC, apply no)
through a driver that changes them at each estimate. The flows carry DSCP
by priority (EF, AF41, CS0, CS1, CS1: cake's diffserv4 tins), a 50
datagram/s probe at priority 1 in a class of its own measures one-way
delay, GB counts the cross traffic, and the bottleneck takes an
impairment (IMPAIR).

    S (senders) -- GA [er2bc + estimator sender] -- R [bottleneck] -- GB [responder] -- D (receivers)
                                                    |
                                       X (cross traffic, toward GB)

R shapes both directions to 5 Mbit/s with 25 ms one-way delay (netem:
rate, delay and a 32-packet queue). X's cross traffic crosses R's
bottleneck toward GB (which drops it: blackhole route), never GA. Five
controlled flows S -> D (iperf3, one port each, priority i on port 5300+i)
need 400 kbit/s each; an nftables counter per flow in D counts what it
receives (IP bytes, as the paper's conntrack entries did), read every 1/K
s by this process over one netlink socket (nftcount.py: no process
started per sample, no byte counted twice), with the estimator sender's W
from its status file.

Time compression: every time of the scenario (the ABW schedule, the
estimator's interval T_c, the sampling and averaging periods) is divided
by K; C and M stay counts of updates, so the same number of updates spans
a step of the ABW. The network (5 Mbit/s, 25 ms) is not scaled. DURATION
is in scenario (paper) seconds.

Repetitions (--matrix): --seed N picks the cross traffic's phase in its
period (DBHPF, fast) or the tracking scenario's trace (seed 0: the
published ones), and the order of the runs, shuffled so that drift over
an hour of runs hits every contender alike. Before the first run every
module and tool a run needs is loaded and tried (preflight()); a run the
testbed fails is run once more on a testbed built again, and recorded
lost if that fails too ("lost" in the output)."""
import argparse
import faulthandler
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import nftcount

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ABWD = os.path.join(TOP, "tools/abwd/er2bc-abwd")
CROSS = os.path.join(TOP, "tools/experiments/cross.py")

NS = {k: "exp-" + k for k in ("s", "ga", "r", "gb", "d", "x")}
DST = "10.2.0.2"			# D, the receivers
PROBE_PORT = 4950
PORTS = [5301, 5302, 5303, 5304, 5305]	# priority 1..5
RF = 400_000				# necessary bandwidth, bit/s
CAPACITY = 5_000_000
W_INI = 1_000_000			# the paper's W_ini, bit/s
CROSS_SIZE = 1250			# IP bytes per cross-traffic datagram
CROSS_DST = "10.9.0.1"			# routed by GB to a blackhole
UDP_RATE = "480k"			# R_f plus FEC parity (code rate 5/6)
UDP_LEN = 1200
TCP_RATE = "400k"
TCP_LEN = "8K"
# R_f is what a flow needs in IP bytes, which D's counters count; er2bc
# counts frames, the IP packet and its 14-byte Ethernet header. A class's
# rate is R_f in frames of its flow's full-sized packets (UDP: 1200 bytes
# of data in 1228-byte packets; TCP: 1500-byte packets), so a flow held at
# its guarantee receives R_f, not 1 % less.
ETH_HLEN = 14
IP_PACKET = {"udp": UDP_LEN + 28, "tcp": 1500}


def class_rate(proto):
    """R_f in frame bits per second for PROTO's packets, rounded up to
    whole bytes per second (tc keeps rates in bytes: a rate in bits is
    truncated, and a flow held at it would receive just under R_f)"""
    bits = -(-RF * (IP_PACKET[proto] + ETH_HLEN) // IP_PACKET[proto])
    return -(-bits // 8) * 8


# The paper's DBHPF cross traffic (section 4.2): 3 Mbit/s steady, and four
# 310 kbit/s flows, each on for ON s of every 120 s after OFF0 s off
DBHPF_SWITCHED = [(15, 105), (30, 75), (45, 45), (60, 15)]
DBHPF_PERIOD = 120
# tracking (section 4.3): up to four 100 kbit/s flows, exponential on-times
# (mean 15 s) and off-times (mean 10 s), each beginning off
TRACK_ON, TRACK_OFF, TRACK_SEED = 15.0, 10.0, 6

MODES = {"dbhpf": ["none", "static", "er2bc"], "tracking": ["er2bc"]}
BASELINES = ["none", "htb", "cake", "static", "er2bc"]

# the matrix's impairments of the bottleneck (both directions) and its
# cross traffic: netem's options replacing the published ones, or another
# cross traffic
IMPAIR = {
    "published": {},
    "loss1": {"loss": "1%"},
    "loss3": {"loss": "3%"},
    "deep": {"limit": "256"},
    # (netem's limit holds the packets in its delay too: 100 ms at 5 Mbit/s
    # is about 42 full frames more than the published 25 ms)
    "delay100": {"delay": "100ms", "limit": "64"},
    "reorder1": {"reorder": "1%"},
    "elastic": {"cross": "elastic"},
    # (the same two CUBIC flows, arriving halfway: what a test for them
    # that has been quiet a while costs before it sees them)
    "elastic-late": {"cross": "elastic", "late": 0.5},
    "fast": {"cross": "fast"},
}
OWD = os.path.join(TOP, "tools/experiments/owd.py")
OWD_PORT, OWD_RATE, OWD_CLASS_RATE = 5311, 50, "64kbit"
# +probe: the estimator's probes share the delay probe's class, which
# grows by their rate and some (20 a second of 58-byte frames, plain: 9.3
# kbit/s), so that they do not wait behind its guarantee
PROBE_CLASS_RATE = "80kbit"
# TOS bytes by priority: EF, AF41, CS0, CS1, CS1 (cake diffserv4: voice,
# video, best effort, bulk)
PRIO_TOS = [0xb8, 0x88, 0x00, 0x20, 0x20]
ELASTIC_PORTS = [5401, 5402]
# the elastic cell's bulk backup through the gateway, greedy TCP: in a
# scavenger class (er2bc, static), htb's lowest class (8 kbit/s, prio 7),
# cake's bulk tin (DSCP LE, RFC 8622), pfifo with the rest
BULK_PORT, BULK_TOS = 5501, 0x04
# D's counters (testbed()): one per flow, priority order, and the backup's
COUNTERS = {**{f"p{p}": p for p in PORTS}, "bulk": BULK_PORT}
# fast: the ABW moves every 2 scenario seconds, faster than C T_c (10 s)
FAST_FLOW, FAST_HALF = 1_500_000, 2.0


def log(msg):
    print(f"experiments: {msg}", file=sys.stderr, flush=True)


def sh(*cmd, ns=None, check=True, **kw):
    if ns:
        cmd = ("ip", "netns", "exec", NS[ns]) + cmd
    return subprocess.run(cmd, check=check, timeout=60, **kw)


# every process spawned, so that a run that raises leaves none behind
SPAWNED = []


def spawn(ns, *cmd, **kw):
    # `ip netns exec` execs the command: the pid is the command's
    p = subprocess.Popen(("ip", "netns", "exec", NS[ns]) + cmd, **kw)
    SPAWNED.append(p)
    return p


def mac(link, end):
    return f"02:00:00:00:{link:02x}:{end:02x}"


def bottleneck(impair):
    """netem's options for R's two directions under IMPAIR"""
    o = {"delay": "25ms", "rate": "5mbit", "limit": "32"}
    o.update({k: v for k, v in IMPAIR[impair].items() if k not in ("cross", "late")})
    return " ".join(f"{k} {v}" for k, v in o.items())


def testbed(matrix=False, impair="published"):
    """The namespaces, links, routes and the bottleneck; D's counters
    (COUNTERS). With MATRIX, the counting hop GC between GA and
    R, and GB's count of the cross traffic. Returns the pid of a process
    living in D."""
    if matrix:
        NS["gc"] = "exp-gc"
    for key, n in NS.items():
        sh("ip", "netns", "del", n, check=False, stderr=subprocess.DEVNULL)
        sh("ip", "netns", "add", n)
        sh("ip", "-n", n, "link", "set", "lo", "up")
        sh("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", ns=key)
        sh("sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1", ns=key)
    links = [("s", "s0", "10.1.0.2", "ga", "ga0", "10.1.0.1"),
             ("ga", "ga1", "10.1.1.1", "gc" if matrix else "r", "gc0" if matrix else "r0",
              "10.1.1.2"),
             ("r", "r1", "10.2.1.1", "gb", "gb1", "10.2.1.2"),
             ("gb", "gb0", "10.2.0.1", "d", "d0", "10.2.0.2"),
             ("x", "x0", "10.3.0.2", "r", "rx", "10.3.0.1")]
    if matrix:
        links.append(("gc", "gc1", "10.1.2.1", "r", "r0", "10.1.2.2"))
    for j, (a, da, aa, b, db, ab) in enumerate(links):
        sh("ip", "link", "add", da, "netns", NS[a], "address", mac(j, 1), "type", "veth",
           "peer", "name", db, "netns", NS[b], "address", mac(j, 2))
        for n, d, addr in ((a, da, aa), (b, db, ab)):
            sh("ip", "-n", NS[n], "addr", "add", addr + "/24", "dev", d)
            sh("ip", "-n", NS[n], "link", "set", d, "up")
    routes = [("s", "default via 10.1.0.1"), ("ga", "default via 10.1.1.2"),
              ("r", "10.2.0.0/24 via 10.2.1.2"),
              ("r", "10.9.0.0/24 via 10.2.1.2"), ("gb", "default via 10.2.1.1"),
              ("gb", "blackhole 10.9.0.0/24"), ("d", "default via 10.2.0.1"),
              ("x", "default via 10.3.0.1")]
    if matrix:
        routes += [("gc", "default via 10.1.2.2"), ("gc", "10.1.0.0/24 via 10.1.1.1"),
                   ("r", "10.1.0.0/24 via 10.1.2.1"), ("r", "10.1.1.0/24 via 10.1.2.1")]
    else:
        routes.append(("r", "10.1.0.0/24 via 10.1.1.1"))
    for n, r in routes:
        sh("ip", "-n", NS[n], "route", "add", *r.split())
    for n in ("ga", "r", "gb") + (("gc",) if matrix else ()):
        sh("sysctl", "-qw", "net.ipv4.ip_forward=1", ns=n)
    # no TCP metrics carried from one run's connections to the next's
    for n in NS:
        sh("sysctl", "-qw", "net.ipv4.tcp_no_metrics_save=1", ns=n)
    # static neighbours across the shaped links: an ARP reply queued behind
    # a full bottleneck would be lost, and with it the reverse path (the
    # estimator's responses, with UDP nothing else uses it)
    neigh = [("ga", "10.1.1.2", "ga1", mac(1, 2)), ("r", "10.2.1.2", "r1", mac(2, 2)),
             ("gb", "10.2.1.1", "gb1", mac(2, 1))]
    if matrix:
        neigh += [("gc", "10.1.1.1", "gc0", mac(1, 1)), ("gc", "10.1.2.2", "gc1", mac(5, 2)),
                  ("r", "10.1.2.1", "r0", mac(5, 1))]
    else:
        neigh.append(("r", "10.1.1.1", "r0", mac(1, 1)))
    for n, addr, d, m in neigh:
        sh("ip", "-n", NS[n], "neigh", "replace", addr, "dev", d, "lladdr", m, "nud", "permanent")
    # the estimator's request must stay in order with the data: every
    # receiving end of the counted path through one CPU's backlog
    # (selftests/sch_er2bc/gateways.sh, fifo_link)
    for n, d in (("r", "r0"), ("gb", "gb1")) + ((("gc", "gc0"),) if matrix else ()):
        sh("sh", "-c", f"echo 1 >/sys/class/net/{d}/queues/rx-0/rps_cpus", ns=n)
    for d in ("r0", "r1"):
        sh("tc", "qdisc", "add", "dev", d, "root", "netem", *bottleneck(impair).split(), ns="r")
    if matrix:
        # GC's uplink counts for an estimator on GC (apply no): er2bc that
        # never shapes, one class for everything
        sh("tc", "-batch", "-", ns="gc", text=True, input=(
            f"qdisc add dev gc1 root handle 1: er2bc rate 10gbit mode static default 1 "
            f"probe-port {PROBE_PORT} peer 10.2.0.0/16\n"
            "class add dev gc1 parent 1: classid 1:1 er2bc prio 1\n"))
        # what of X's cross traffic reaches GB, before its blackhole route
        sh("nft", "-f", "-", ns="gb", text=True, input="table ip exp {\n counter cross { }\n"
           " chain pre {\n  type filter hook prerouting priority -300;\n"
           "  ip saddr 10.3.0.0/24 counter name cross\n }\n}\n")
    # what each flow, and the bulk backup, delivers to D: a named counter
    # each (nftcount.py reads them, sampler and report alike)
    sh("nft", "-f", "-", ns="d", text=True, input="table ip exp {\n" + "".join(
        f"  counter {name} {{ }}\n" for name in COUNTERS) +
        "  chain in {\n    type filter hook input priority 0;\n" + "".join(
        f"    meta l4proto {{ tcp, udp }} th dport {port} counter name {name}\n"
        for name, port in COUNTERS.items()) + "  }\n}\n")
    return spawn("d", "sleep", "infinity")


def filters(ports_classes):
    return [f"filter add dev ga1 parent 1: protocol ip prio 1 flower ip_proto {p} "
            f"dst_port {port} classid 1:{cls}"
            for port, cls in ports_classes for p in ("tcp", "udp")]


def htb_rates(proto, w):
    """The paper's existing method as a script computes it for htb: out of
    W, the delay probe's 64 kbit/s, then each flow's R_f by priority while
    it fits, what is left to the next; at least 8 kbit/s a class (htb
    serves a class's own rate whatever its parent's, so the rates must add
    up to W or less for W to cap)"""
    left, out = w, []
    for want in [64_000] + [class_rate(proto)] * len(PORTS):
        r = max(min(want, left), 8_000)
        out.append(r)
        left = max(left - r, 0)
    return out[0], out[1:]


def htb_lines(proto, w, verb):
    probe, rates = htb_rates(proto, w)
    lines = [f"class {verb} dev ga1 parent 1: classid 1:100 htb rate {w}bit ceil {w}bit"]
    for i, r in enumerate(rates, 1):
        lines.append(f"class {verb} dev ga1 parent 1:100 classid 1:{i} htb rate {r}bit "
                     f"ceil {w}bit prio {i - 1}")
    lines.append(f"class {verb} dev ga1 parent 1:100 classid 1:6 htb rate {probe}bit "
                 f"ceil {w}bit prio 0")
    lines.append(f"class {verb} dev ga1 parent 1:100 classid 1:50 htb rate 8kbit ceil {w}bit "
                 f"prio 7")
    lines.append(f"class {verb} dev ga1 parent 1:100 classid 1:7 htb rate 8kbit ceil {w}bit "
                 f"prio 7")
    return lines


def gateway_htb(proto, w):
    """The paper's existing method in sch_htb, as a script would run it: a
    parent class at W (rate = ceil), a class per flow at priorities 0-4
    and the delay probe's at 0, with the rates htb_rates() gives and ceil
    W, a default class, and the bulk backup's class (8 kbit/s, prio 7);
    the driver (Driver) moves them with W"""
    lines = ["qdisc add dev ga1 root handle 1: htb default 50"] + htb_lines(proto, w, "add")
    # (the estimator's delay probes, +probe, with the testbed's own)
    lines += filters(list(zip(PORTS, range(1, 6))) + [(OWD_PORT, 6), (PROBE_PORT, 6),
                                                      (BULK_PORT, 7)])
    sh("tc", "-batch", "-", ns="ga", input="\n".join(lines) + "\n", text=True)


def gateway(mode, proto, c, m, matrix=False, w_ini=W_INI, margin=0, probes=False,
            latency=None):
    """GA's uplink ga1: pfifo (no control) or er2bc in static or er2bc
    mode, five classes of 400 kbit/s (class_rate()) at priorities 1-5 (flower filters by
    destination port) and a default class with no rate. With MATRIX also
    htb (gateway_htb()) or cake (diffserv4, the flows' DSCP), both at
    W_INI (the cap, CAPACITY, for a contender +w-ini-qdisc) until the
    driver moves them, and for er2bc a class for the
    delay probe at priority 1 and a scavenger class for the bulk backup
    (BULK_PORT). MARGIN: the margin of priorities 1-3, percent (er2bc
    and static). PROBES: the estimator sends delay probes (+probe), which
    share the delay probe's class. LATENCY: the classes' latency bound, ms
    (0: unlimited; None: the qdisc's default, er2bc and static)."""
    sh("tc", "qdisc", "del", "dev", "ga1", "root", ns="ga", check=False,
       stderr=subprocess.DEVNULL)
    if mode == "none":
        sh("tc", "qdisc", "add", "dev", "ga1", "root", "pfifo", "limit", "1000", ns="ga")
        return
    if mode == "htb":
        gateway_htb(proto, w_ini)
        return
    if mode == "cake":
        sh("tc", "qdisc", "add", "dev", "ga1", "root", "cake", "bandwidth", f"{w_ini}bit",
           "diffserv4", ns="ga")
        return
    ctl = f" window {c} history {m} loss-headroom 50kbit" if mode == "er2bc" else ""
    # the rate is the line's, W's ceiling; W itself starts at the paper's
    # W_ini, 1 Mbit/s, with the first estimate (the sender's --w-ini), or
    # at this cap with +w-ini-qdisc (rule_w_ini())
    lat = "" if latency is None else \
        f" latency {latency}ms" if latency else " latency unlimited"
    lines = [f"qdisc add dev ga1 root handle 1: er2bc rate {CAPACITY}bit mode {mode} default 50"
             f"{ctl}{lat} probe-port {PROBE_PORT} peer 10.2.0.0/16"]
    for i, port in enumerate(PORTS, 1):
        lines.append(f"class add dev ga1 parent 1: classid 1:{i} er2bc prio {i} "
                     f"rate {class_rate(proto)}bit type {proto}"
                     + (f" margin {margin}" if margin and i <= 3 else ""))
    pc = list(zip(PORTS, range(1, 6)))
    if matrix:
        lines.append(f"class add dev ga1 parent 1: classid 1:6 er2bc prio 1 "
                     f"rate {PROBE_CLASS_RATE if probes else OWD_CLASS_RATE} type udp")
        lines.append("class add dev ga1 parent 1: classid 1:7 er2bc prio 64 type scavenger")
        # the estimator's delay probes (+probe) in the delay probe's
        # class too: its requests skip the classes, its probes do not
        pc += [(OWD_PORT, 6), (PROBE_PORT, 6), (BULK_PORT, 7)]
    lines += filters(pc)
    lines.append("class add dev ga1 parent 1: classid 1:50 er2bc prio 64")
    sh("tc", "-batch", "-", ns="ga", input="\n".join(lines) + "\n", text=True)


def switched(on_s, off0, period, dur):
    out, t = [], off0
    while t < dur:
        out.append([t, min(t + on_s, dur)])
        t += period
    return out


def phase(seed, period):
    """where in its period a seed's periodic cross traffic starts, whole
    scenario seconds: seed 0 at 0 (the published schedule), each next
    seed the golden ratio's fraction of the period further, so that any
    run of consecutive seeds spreads its phases evenly"""
    return int((seed * 0.6180339887498949) % 1 * period) if seed else 0


def periodic(on_s, off0, period, dur, seed):
    """switched()'s schedule, PHASE(seed) seconds into it at time 0"""
    ph = phase(seed, period)
    out = []
    for a, b in switched(on_s, off0, period, dur + period):
        a, b = max(a - ph, 0), min(b - ph, dur)
        if a < b:
            out.append([a, b])
    return out


def cross_flows(scenario, dur, impair="published", seed=0):
    """The cross traffic's flows as (rate, [[on, off], ...]), in scenario
    seconds: none for the elastic cell (two TCP flows instead, elastic()),
    a steady 2 Mbit/s and 1.5 Mbit/s switched every 2 s for the fast one.
    SEED picks a repetition's schedule: the periodic flows' phase, the
    tracking scenario's trace (seed 0: the published ones)."""
    kind = IMPAIR[impair].get("cross")
    if kind == "elastic":
        return []
    if kind == "fast":
        return [(2_000_000, [[0, dur]]),
                (FAST_FLOW, periodic(FAST_HALF, 0, 2 * FAST_HALF, dur, seed))]
    flows = [(3_000_000, [[0, dur]])]
    if scenario == "dbhpf":
        flows += [(310_000, periodic(on, off0, DBHPF_PERIOD, dur, seed))
                  for off0, on in DBHPF_SWITCHED]
    else:
        rnd = random.Random(TRACK_SEED + seed)
        for _ in range(4):
            on, t = [], rnd.expovariate(1 / TRACK_OFF)
            while t < dur:
                d = rnd.expovariate(1 / TRACK_ON)
                on.append([t, min(t + d, dur)])
                t += d + rnd.expovariate(1 / TRACK_OFF)
            flows.append((100_000, on))
    return flows


def abw_at(flows, t):
    return CAPACITY - sum(r for r, on in flows if any(a <= t < b for a, b in on))


def listening(pid, port):
    """A socket of PID's namespace listens on TCP PORT (iperf3 listens on
    IPv6's any address unless told otherwise)."""
    for table in ("tcp", "tcp6"):
        try:
            with open(f"/proc/{pid}/net/{table}") as f:
                if any(ln.split()[1].endswith(f":{port:04X}") and ln.split()[3] == "0A"
                       for ln in f.readlines()[1:]):
                    return True
        except OSError:
            pass
    return False


def read_status(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def status_bps(st, key):
    """a rate of the status file (bytes/s, as tc -j has them) in bit/s, as
    the samples of the runs keep W and R (Documentation/results/)"""
    return st[key] * 8 if st else None


class Driver(threading.Thread):
    """A script's loop, as operators run one beside htb or cake: at each new
    estimate in the estimator's status file, W to the shaper (one tc
    -batch process fed a line at a time)"""

    def __init__(self, mode, proto, status, period, errlog):
        super().__init__(daemon=True)
        self.mode, self.proto, self.status, self.period = mode, proto, status, period
        self.errlog = errlog
        self.tc = spawn("ga", "tc", "-force", "-batch", "-", stdin=subprocess.PIPE,
                        stdout=subprocess.DEVNULL, stderr=open(errlog, "w"), text=True)
        self.done = threading.Event()
        self.sent = 0

    def commands(self, w):
        if self.mode == "cake":
            return [f"qdisc change dev ga1 root cake bandwidth {w}bit"]
        return htb_lines(self.proto, w, "change")

    def run(self):
        seq = None
        while not self.done.wait(self.period):
            st = read_status(self.status)
            if not st or not st.get("estimates") or st.get("seq") == seq:
                continue
            seq = st["seq"]
            try:
                w = status_bps(st, "abw_bytes_per_second")
                self.tc.stdin.write("\n".join(self.commands(w)) + "\n")
                self.tc.stdin.flush()
                self.sent += 1
            except OSError:
                return

    def stop(self):
        self.done.set()
        self.join(timeout=5)
        try:
            self.tc.stdin.close()
        except OSError:
            pass
        self.tc.wait(timeout=10)

    def failed(self):
        """the commands tc refused (-force goes on after each)"""
        with open(self.errlog) as f:
            return sum(line.startswith("Command failed") for line in f)


def counter_bytes(counters, name):
    """the bytes of one named counter, over the testbed's netlink socket;
    through nft if that read failed"""
    got = counters.read()
    if got and name in got:
        return got[name]
    out = sh("nft", "-j", "list", "counter", "ip", "exp", name, ns="gb", capture_output=True,
             text=True).stdout
    return next(o["counter"]["bytes"] for o in json.loads(out)["nftables"] if "counter" in o)


def dev_bytes(pid, dev, way):
    """DEV's bytes sent (WAY tx) or received (rx), from /proc/PID/net/dev
    of a process in its namespace (no process started)"""
    with open(f"/proc/{pid}/net/dev") as f:
        for line in f:
            name, _, rest = line.partition(":")
            if name.strip() == dev:
                return int(rest.split()[8 if way == "tx" else 0])
    raise OSError(f"no device {dev} in /proc/{pid}/net/dev")


def stop(procs):
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


QDISC_OPTS = re.compile(r"(\+margin([1-9][0-9]?|100))?(\+latency(0|[1-9][0-9]{0,4}))?"
                        r"(\+w-ini-qdisc)?$")


def rule_qdisc(rule):
    """a contender's RULE and what it names for the qdisc after the
    estimator's options: the margin of priorities 1-3 (+marginN, percent;
    0 for none) and the classes' latency bound (+latencyMS, ms, 0 for
    unlimited, at most 60000; None for the qdisc's default), in that
    order, then +w-ini-qdisc (rule_w_ini()): (the estimator's rule, N, MS)"""
    m = QDISC_OPTS.search(rule or "")
    if not m or not m.group(0):
        return (rule, 0, None)
    lat = int(m.group(4)) if m.group(3) else None
    if lat is not None and lat > 60000:
        raise ValueError(f"+latency{lat}: at most 60000 ms")
    return (rule[:m.start()], int(m.group(2)) if m.group(1) else 0, lat)


def rule_w_ini(rule, mode="er2bc"):
    """the sender's w-ini for a contender's RULE in MODE: the paper's
    W_ini, 1 Mbit/s, as the matrix ran it until sources c85e06a27f35;
    with +w-ini-qdisc, last, "qdisc", the estimator's default as shipped
    (W starts at the qdisc's cap, the bottleneck's 5 Mbit/s here), and for
    htb and cake, whose sender reads no er2bc cap, that rate itself (the
    rate an operator gives them, where their driver starts them)"""
    m = QDISC_OPTS.search(rule or "")
    if not (m and m.group(5)):
        return f"{W_INI}bit"
    return f"{CAPACITY}bit" if mode in ("htb", "cake") else "qdisc"


def rule_margin(rule):
    """a contender's RULE and the margin it names for priorities 1-3 (its
    +marginN, er2bc's classes; 0 for none): (the estimator's rule, N)"""
    return rule_qdisc(rule)[:2]


# each mode's options, in the order a RULE names them
RULE_EXTRAS = {
    "loss": ["compete", "queue", "probe"],
    "delay": ["compete", "drain", "probe"],
    "hybrid": ["drain", "probe"],
}
PROBE_INTERVAL = "50ms"


def estimator_args(rule):
    """the sender's options for a contender's RULE: a mode (loss, delay,
    hybrid), for the loss rule and the delay rule +compete (beside elastic
    traffic), for the loss rule +queue (a loss cuts only over a queue),
    for the delay rules +drain (a standing queue drained), then for any +probe (delay probes every
    50 ms, each read the least over a round trip, so delay-filter 1), in
    that order (er2bc-estimator.rst); a +marginN and a +latencyMS after
    them are the qdisc's"""
    rule = rule_margin(rule)[0]
    if not rule:
        return []
    mode, *extra = rule.split("+")
    allowed = RULE_EXTRAS.get(mode)
    if allowed is None or len(set(extra)) != len(extra) or any(e not in allowed for e in extra) \
            or extra != sorted(extra, key=allowed.index):
        raise ValueError(f"unknown estimator rule {rule!r}: loss[+compete][+queue][+probe], "
                         "delay[+compete][+drain][+probe], hybrid[+drain][+probe], then +marginN (1-100), "
                         "+latencyMS and +w-ini-qdisc if any")
    # (loss-queue is the estimator's default: the paper's rule, loss
    # without +queue, says no to it, so that stored runs keep their meaning)
    return ["--mode", mode] + (["--compete", "yes"] if "compete" in extra else []) + \
        (["--loss-queue", "yes" if "queue" in extra else "no"] if mode == "loss" else []) + \
        (["--delay-drain", "yes"] if "drain" in extra else []) + \
        (["--probe-interval", PROBE_INTERVAL, "--delay-filter", "1"] if "probe" in extra
         else [])


def run(a, tb, proto, mode, rule, run_dir):
    """one run of PROTO's flows through GA in MODE, its estimator with
    RULE (None: the estimator's default), on the testbed TB (Testbed)"""
    dpid, counters = tb.dpid, tb.counters
    k = a.scale
    dur = a.duration / k
    dt = 1.0 / k
    flows = cross_flows(a.scenario, a.duration, a.impair, a.seed)
    elastic = IMPAIR[a.impair].get("cross") == "elastic"
    gateway(mode, proto, a.c, a.m, a.matrix, margin=rule_margin(rule)[1],
            w_ini=CAPACITY if rule_w_ini(rule, mode) == f"{CAPACITY}bit" else W_INI,
            probes="probe" in (rule_margin(rule)[0] or "").split("+"),
            latency=rule_qdisc(rule)[2])
    servers = [spawn("d", "iperf3", "-s", "-1", "-p", str(p), stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL) for p in PORTS]
    if elastic:
        # the elastic cell's two TCP receivers, in GB (started with D's),
        # and the bulk backup's, in D
        servers += [spawn("gb", "iperf3", "-s", "-1", "-p", str(p), stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL) for p in ELASTIC_PORTS]
        servers.append(spawn("d", "iperf3", "-s", "-1", "-p", str(BULK_PORT),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    deadline = time.monotonic() + 20
    listen = PORTS + ([BULK_PORT] if elastic else [])
    while not all(listening(dpid, p) for p in listen) and time.monotonic() < deadline:
        time.sleep(0.1)
    # one clock for every process of the run: CLOCK_MONOTONIC (a step of
    # the guest's wall clock must not stall the schedule)
    t0 = time.monotonic() + 2.0
    wall0 = time.time() - time.monotonic()
    sched = {"dst": CROSS_DST, "start": t0, "end": t0 + dur + 1, "size": CROSS_SIZE,
             "flows": [{"port": 9000 + i, "rate": r, "on": [[x / k, y / k] for x, y in on]}
                       for i, (r, on) in enumerate(flows)]}
    with open(f"{run_dir}/sched.json", "w") as f:
        json.dump(sched, f)
    cross = spawn("x", sys.executable, CROSS, f"{run_dir}/sched.json", stdout=subprocess.PIPE,
                  text=True)
    # the matrix runs each estimator mode into the same directory: a log each
    tag = f"{proto}-{mode}" + (f"-{rule}" if rule else "")
    status = f"{run_dir}/abwd-{tag}.json"
    procs, driver, extra = [], None, []
    if mode != "none":
        # htb and cake: the same estimator, counting on GC, W by the driver
        where, dev = ("gc", "gc1") if mode in ("htb", "cake") else ("ga", "ga1")
        est = estimator_args(rule)
        if where == "gc":
            est += ["--apply", "no", "--w-max", f"{CAPACITY}bit"]
        procs.append(spawn(where, ABWD, "sender", "--peer", "10.2.1.2", "--dev", dev,
                           "--port", str(PROBE_PORT), "--interval", f"{round(1000 / k)}ms",
                           "--plain", "yes", "--w-ini", rule_w_ini(rule, mode), "--status", status, "-v",
                           *est, stderr=open(f"{run_dir}/abwd-{tag}.log", "w")))
        if where == "gc":
            driver = Driver(mode, proto, status, dt / 4,
                            f"{run_dir}/driver-{proto}-{mode}.log")
            driver.start()
    t_run = str(int(dur + 6))
    for i, p in enumerate(PORTS):
        args = ["-b", UDP_RATE, "-u", "-l", str(UDP_LEN)] if proto == "udp" else \
               ["-b", TCP_RATE, "-l", TCP_LEN, "-C", "cubic"]
        if a.matrix:
            args += ["-S", str(PRIO_TOS[i])]
        procs.append(spawn("s", "iperf3", "-c", DST, "-p", str(p), "-t", t_run,
                           "--pacing-timer", "5000", *args, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL))
    if a.matrix:
        owd_rx = spawn("d", sys.executable, OWD, "recv", str(OWD_PORT), str(dur + 10),
                       stdout=subprocess.PIPE, text=True)
        extra.append(spawn("s", sys.executable, OWD, "send", DST, str(OWD_PORT), str(OWD_RATE),
                           str(dur + 4), "--tos", str(PRIO_TOS[0])))
        if elastic:
            # (arriving late: started now, so that no fork falls in the
            # sampling, and sleeping until then, real seconds from t0,
            # the run's time zero, which lies ahead of now)
            late = IMPAIR[a.impair].get("late", 0) * dur
            for p in ELASTIC_PORTS:
                cubic = ["iperf3", "-c", "10.2.1.2", "-p", str(p), "-t",
                         str(int(dur - late + 6)), "-C", "cubic"]
                if late:
                    wait = max(t0 + late - time.monotonic(), 0)
                    cubic = ["sh", "-c", f"sleep {wait:.3f}; exec {' '.join(cubic)}"]
                extra.append(spawn("x", *cubic, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL))
            extra.append(spawn("s", "iperf3", "-c", DST, "-p", str(BULK_PORT), "-t", t_run,
                               "-C", "cubic", "-S", str(BULK_TOS), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL))
        cross0 = r1_0 = None
    samples = {"t": [], "bytes": [], "w": [], "r": [], "abw": []}
    # what D received since this run's first sample (the first read is the
    # baseline: the counters keep earlier runs' bytes)
    acc = nftcount.Accumulator(COUNTERS)
    n, late, lateness = 0, 0.0, []
    while n * dt <= dur:
        wait = t0 + n * dt - time.monotonic()
        if wait > 0:
            time.sleep(min(wait, dt))
            continue
        now = time.monotonic()
        # a sampler that stops prints where it stopped (twice so far, cause
        # not found); one that falls behind says by how much
        faulthandler.dump_traceback_later(30, repeat=True)
        lateness.append(now - (t0 + n * dt))
        if now - (t0 + n * dt) > late + 2:
            late = now - (t0 + n * dt)
            log(f"{proto} {mode}: sample {n} is {late:.1f} s late")
        if a.matrix and cross0 is None:
            # (what crossed from the first sample on, as the seconds count)
            cross0, r1_0 = counter_bytes(tb.gb, "cross"), dev_bytes(tb.rpid, "r1", "tx")
            first = now
        cum = acc.update(counters.read())
        # (the sample's time is the counters': read just now)
        now = time.monotonic()
        st = read_status(status) if mode != "none" else None
        samples["t"].append(round((now - t0) * k, 4))
        # a read that failed or missed a flow: no counts at this sample
        # (report.rates() leaves its windows out)
        samples["bytes"].append(cum[:len(PORTS)] if acc.complete else None)
        samples["w"].append(status_bps(st, "abw_bytes_per_second"))
        samples["r"].append(status_bps(st, "recv_rate_bytes_per_second"))
        samples["abw"].append(None if elastic else
                              abw_at(flows, min((now - t0) * k, a.duration - 1e-6)))
        n += 1
    faulthandler.cancel_dump_traceback_later()
    st = read_status(status) if mode != "none" else None
    measured = {}
    if a.matrix:
        measured = {"cross_bytes": counter_bytes(tb.gb, "cross") - cross0,
                    "r1_bytes": dev_bytes(tb.rpid, "r1", "tx") - r1_0,
                    "seconds": round(time.monotonic() - first, 3)}
        if elastic:
            measured["bulk_bytes"] = acc.totals()[-1]
    measured["counting"] = {"reads_missed": acc.missed, "counter_resets": acc.resets}
    # how late the sampler ran (a busy host shows here first), real ms
    lateness.sort()
    measured["sampler_late_ms"] = {
        "p50": round(1e3 * lateness[len(lateness) // 2]),
        "p99": round(1e3 * lateness[min(len(lateness) - 1, int(0.99 * len(lateness)))]),
        "max": round(1e3 * lateness[-1])}
    if driver:
        driver.stop()
        measured["driver_sent"] = driver.sent
        measured["driver_failed"] = driver.failed()
    stop(procs + extra)
    if a.matrix:
        owd_rx.send_signal(signal.SIGTERM)
        measured["owd"] = json.loads(owd_rx.communicate(timeout=30)[0] or "null")
    cross_sent = json.loads(cross.communicate(timeout=30)[0] or "null")
    stop(servers)
    r1 = json.loads(sh("tc", "-s", "-j", "qdisc", "show", "dev", "r1", ns="r",
                       capture_output=True, text=True).stdout)
    res = {"scenario": a.scenario, "proto": proto, "mode": mode,
           "estimator_mode": rule if mode != "none" else None, "seed": a.seed,
           "samples": samples,
           "cross": [{"rate": r, "on": on} for r, on in flows], "cross_sent": cross_sent,
           "bottleneck_drops": r1[0].get("drops"), "estimator": st, **measured,
           "wall_clock_step_s": round(time.time() - time.monotonic() - wall0, 3)}
    if mode != "none":
        res["gateway"] = sh("tc", "-s", "class", "show", "dev", "ga1", ns="ga",
                            capture_output=True, text=True).stdout
    time.sleep(2)		# the bottleneck drains
    return res


# what a matrix run needs of the kernel, checked before the first run: a
# qdisc or nftables expression the kernel cannot load on demand (sch_netem
# once, in a loaded emulator) fails here, by name, not mid-scenario
PREFLIGHT = [
    ("sch_netem", "qdisc add dev {d} root netem delay 1ms rate 5mbit limit 32"),
    ("sch_htb", "qdisc add dev {d} root handle 1: htb default 1"),
    ("sch_cake", "qdisc add dev {d} root cake bandwidth 1mbit diffserv4"),
    ("sch_er2bc", "qdisc add dev {d} root handle 1: er2bc rate 5mbit"),
    ("cls_flower", "qdisc add dev {d} root handle 1: er2bc rate 5mbit\n"
     "filter add dev {d} parent 1: protocol ip prio 1 flower ip_proto udp dst_port 1 "
     "classid 1:1"),
]
TOOLS = ["ip", "tc", "nft", "iperf3", "sysctl", ABWD]


def preflight():
    """load and try every module and tool a matrix run uses, in a scratch
    namespace; exit naming what is missing"""
    missing = [t for t in TOOLS if not shutil.which(t)]
    if missing:
        sys.exit(f"experiments: not installed: {', '.join(missing)}")
    for mod in ["sch_er2bc", "sch_netem", "sch_htb", "sch_cake", "cls_flower", "veth",
                "nf_tables"]:
        # (built in: modprobe succeeds; absent: the try below names it)
        sh("modprobe", mod, check=False, stderr=subprocess.DEVNULL)
    ns = "exp-preflight"
    sh("ip", "netns", "del", ns, check=False, stderr=subprocess.DEVNULL)
    sh("ip", "netns", "add", ns)
    bad = []
    try:
        sh("ip", "-n", ns, "link", "add", "pf0", "type", "veth", "peer", "name", "pf1")
        for what, cmds in PREFLIGHT:
            sh("tc", "-n", ns, "qdisc", "del", "dev", "pf0", "root", check=False,
               stderr=subprocess.DEVNULL)
            r = sh("tc", "-n", ns, "-batch", "-", input=cmds.format(d="pf0") + "\n",
                   text=True, check=False, capture_output=True)
            if r.returncode:
                bad.append(f"{what} ({r.stderr.strip() or r.stdout.strip()})")
        r = sh("ip", "netns", "exec", ns, "nft", "-f", "-", check=False,
               capture_output=True, text=True,
               input="table ip preflight {\n counter c { }\n chain in {\n  type filter hook "
               "input priority 0;\n  meta l4proto { tcp, udp } th dport 1 counter name c\n }\n}\n")
        if r.returncode:
            bad.append(f"nf_tables counters ({r.stderr.strip()})")
    finally:
        sh("ip", "netns", "del", ns, check=False)
    if bad:
        sys.exit("experiments: the kernel cannot run the matrix: " + "; ".join(bad))


class Testbed:
    """The namespaces and what lives in them for every run: D's process
    (its /proc), D's counters, GB's responder. Built again (again())
    after a run the testbed itself failed."""

    def __init__(self, a, run_dir):
        self.a, self.run_dir = a, run_dir
        self.build()

    def build(self):
        self.dpid = testbed(self.a.matrix, self.a.impair).pid
        self.counters = nftcount.Counters(f"/run/netns/{NS['d']}", "exp")
        if self.a.matrix:
            # GB's count of the cross traffic; R's devices, from a process there
            self.gb = nftcount.Counters(f"/run/netns/{NS['gb']}", "exp")
            self.rpid = spawn("r", "sleep", "infinity").pid
        spawn("gb", ABWD, "responder", "--dev", "gb1", "--peer-prefix", "10.1.0.0/16",
              "--port", str(PROBE_PORT), "--plain", "yes",
              stderr=open(f"{self.run_dir}/responder.log", "a"))

    def again(self):
        self.counters.sock.close()
        if self.a.matrix:
            self.gb.sock.close()
        stop([p for p in SPAWNED if p.poll() is None])
        SPAWNED.clear()
        self.build()


# the matrix's contenders: configurations an operator could pick, each
# judged as itself (mode:estimator rule; pfifo has no estimator), each as
# shipped: W from the cap (W_INI_QDISC). Stores before sources
# c85e06a27f35's end ran them from the paper's W_ini, named without it
W_INI_QDISC = "+w-ini-qdisc"
CONTENDERS = ["none"] + [c + W_INI_QDISC for c in (
    "htb:loss+queue", "cake:loss+queue", "static:loss+queue", "er2bc:loss+queue", "er2bc:loss",
    "er2bc:delay", "er2bc:hybrid", "er2bc:delay+compete+drain+probe")]


def rule_known(rule):
    """whether estimator_args() takes RULE (None, the default, too; an
    empty one, or a margin alone, is no rule)"""
    if rule is None:
        return True
    try:
        return bool(rule_margin(rule)[0]) and estimator_args(rule) is not None
    except ValueError:
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", choices=sorted(MODES))
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--duration", type=float, default=320.0)
    ap.add_argument("--c", type=int, default=10)
    ap.add_argument("--m", type=int, default=10)
    ap.add_argument("--protos", default="tcp,udp")
    ap.add_argument("--modes", default=None)
    ap.add_argument("--matrix", action="store_true")
    ap.add_argument("--impair", choices=sorted(IMPAIR), default="published")
    ap.add_argument("--estimator-mode", choices=["loss", "delay", "hybrid"], default="loss")
    ap.add_argument("--contenders", default=None,
                    help="MODE[:RULE],... (matrix; default: --modes with --estimator-mode)")
    ap.add_argument("--seed", type=int, default=0,
                    help="the repetition: cross traffic's phase or trace, the runs' order")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.contenders:
        runs = [tuple(c.split(":")) if ":" in c else (c, None) for c in a.contenders.split(",")]
    else:
        modes = a.modes.split(",") if a.modes else BASELINES if a.matrix else MODES[a.scenario]
        runs = [(m, a.estimator_mode if a.matrix and m != "none" else None) for m in modes]
    bad = [f"{m}:{r}" for m, r in runs
           if m not in BASELINES or not rule_known(r)
           or (rule_margin(r)[1] or rule_qdisc(r)[2] is not None) and m not in ("er2bc", "static")
           or (m == "none") != (r is None) and a.matrix]
    if bad:
        ap.error(f"--contenders: {', '.join(bad)}: MODE one of {', '.join(BASELINES)}, "
                 "RULE loss[+compete][+queue], delay[+compete] or hybrid (none has none), "
                 "and for er2bc and static +marginN (1-100 %: priorities 1-3) "
                 "and +latencyMS (0: unlimited), then for any +w-ini-qdisc (W from the cap)")
    if not a.matrix and (a.impair != "published" or a.seed
                         or {m for m, _ in runs} - set(MODES["dbhpf"])):
        ap.error("--impair, --seed, htb and cake need --matrix")
    runs = [(p, m, r) for p in a.protos.split(",") for m, r in runs]
    if a.matrix:
        # the repetition's own order, so that drift over the runs hits
        # every contender alike: shuffled by cell and seed, each run's
        # place recorded, so that drift can be looked for afterwards
        random.Random(f"{a.scenario}/{a.impair}/{a.seed}").shuffle(runs)
    work = os.path.dirname(os.path.abspath(a.out))
    # what the processes of a run write and read while it runs stays in the
    # guest (tmpfs): a read of the estimator's status file through the
    # host's 9p share blocked for good, twice, mid-run; copied to WORK after
    run_dir = tempfile.mkdtemp(prefix="er2bc-exp-", dir="/run")
    preflight()
    tb = Testbed(a, run_dir)
    doc = {"scenario": a.scenario, "kernel": os.uname().release, "scale": a.scale,
           "duration": a.duration, "c": a.c, "m": a.m, "necessary": RF,
           "class_rate": {p: class_rate(p) for p in IP_PACKET},
           "ports": PORTS, "bottleneck": bottleneck(a.impair), "udp_rate": UDP_RATE,
           "matrix": a.matrix, "impair": a.impair, "estimator_mode": a.estimator_mode,
           "udp_len": UDP_LEN, "tcp_rate": TCP_RATE, "tcp_len": TCP_LEN,
           "cross_size": CROSS_SIZE, "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
           "seed": a.seed, "runs": [], "lost": []}
    try:
        for position, (proto, mode, rule) in enumerate(runs):
            name = f"{proto} {mode}" + (f" ({rule})" if rule else "")
            errors = []
            start, started = time.monotonic(), time.strftime("%Y-%m-%dT%H:%M:%S%z")
            # a run the testbed failed (a command refused or timed out, a
            # process that did not start, output that did not parse) is
            # run once more on a testbed built again; if that fails too,
            # it is recorded lost, never dropped. (A bug of this script,
            # any other exception, stops the VM.)
            r = None
            for attempt in (1, 2):
                if errors:
                    tb.again()
                log(f"{a.scenario} {name}: {a.duration / a.scale:.0f} s "
                    f"({a.duration:.0f} s compressed {a.scale:g}x)")
                try:
                    r = run(a, tb, proto, mode, rule, run_dir)
                    break
                except (subprocess.SubprocessError, OSError, ValueError) as e:
                    errors.append(f"{type(e).__name__}: {e}")
                    log(f"{a.scenario} {name}: the testbed failed ({errors[-1]})"
                        + ("; once more" if attempt == 1 else "; lost"))
            if r is None:
                doc["lost"].append({"proto": proto, "mode": mode, "estimator_mode": rule,
                                    "position": position, "errors": errors})
                tb.again()
            else:
                r["wall_s"] = round(time.monotonic() - start, 1)
                r["attempts"], r["testbed_errors"] = len(errors) + 1, errors
                r["position"], r["started"] = position, started
                doc["runs"].append(r)
            with open(a.out, "w") as f:
                json.dump(doc, f)
    finally:
        # (a run that raised left its processes: these too)
        stop([p for p in SPAWNED if p.poll() is None])
        for n in NS.values():
            sh("ip", "netns", "del", n, check=False)
        for f in os.listdir(run_dir):
            shutil.copy(os.path.join(run_dir, f), work)


if __name__ == "__main__":
    main()
