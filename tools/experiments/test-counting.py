#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of how the matrix counts and judges: the per-flow counters
(nftcount.py, Accumulator on replayed reads, Counters on the host kernel's
nftables in a namespace), the physical bounds a run must keep
(matrix-report.py bounds()), the statistics (stats.py) and the report's
calls from a store of hand-made runs. TAP output."""
import importlib.util
import json
import random
import os
import socket
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "testing"))
import nftcount  # noqa: E402
import report  # noqa: E402
import stats  # noqa: E402
from tap import ok, done  # noqa: E402

spec = importlib.util.spec_from_file_location("matrix_report",
                                              os.path.join(here, "matrix-report.py"))
mr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mr)

NAMES = ["p5301", "p5302"]


def replay(reads):
    acc = nftcount.Accumulator(NAMES)
    out = [acc.update(r) for r in reads]
    return out, acc


# what a flow received since the first read, whatever earlier runs left
got, acc = replay([{"p5301": 10_000, "p5302": 5_000}, {"p5301": 12_000, "p5302": 5_500},
                   {"p5301": 15_000, "p5302": 6_000}])
ok(got[-1] == [5_000, 1_000] and acc.missed == 0,
   f"an earlier run's bytes on the counters: counted from the first read (got {got[-1]})")

# a read that misses a flow: its total holds, and the next read adds only
# what is new (conntrack sums added its whole count again: 44 Mbit/s on
# a 5 Mbit/s link)
got, acc = replay([{"p5301": 0, "p5302": 0}, {"p5301": 1_000, "p5302": 1_000},
                   {"p5302": 2_000}, {"p5301": 3_000, "p5302": 3_000}])
ok(got == [[0, 0], [1_000, 1_000], [1_000, 2_000], [3_000, 3_000]] and acc.missed == 1,
   f"a read that misses a flow: nothing counted twice, the miss counted (got {got})")

# a dump that failed altogether: every total holds
got, acc = replay([{"p5301": 0, "p5302": 0}, None, {"p5301": 4_000, "p5302": 2_000}])
ok(got == [[0, 0], [0, 0], [4_000, 2_000]] and acc.missed == 1,
   f"a failed read: totals hold, then catch up (got {got})")

# a counter created again (a testbed rebuilt): counts from zero
got, acc = replay([{"p5301": 50_000, "p5302": 0}, {"p5301": 51_000, "p5302": 0},
                   {"p5301": 700, "p5302": 0}])
ok(got[-1] == [1_700, 0] and acc.resets == 1,
   f"a counter that went backwards was made again: counted from zero (got {got[-1]})")

# a flow that the first read misses starts at its first read
got, acc = replay([{"p5301": 100}, {"p5301": 200, "p5302": 9_000},
                   {"p5301": 300, "p5302": 9_500}])
ok(got[-1] == [200, 500], f"a flow first seen later: from its first read (got {got[-1]})")


def run(proto, per_sample, secs=40, scale=4):
    """a run whose five flows each receive PER_SAMPLE bytes a sample (one
    a scenario second, as guest.py samples: a quarter second at 4x)"""
    n = secs
    t = [float(k) for k in range(n + 1)]
    return {"proto": proto, "mode": "er2bc", "estimator_mode": "loss",
            "samples": {"t": t, "bytes": [[per_sample * k] * 5 for k in range(n + 1)],
                        "abw": [2_000_000] * (n + 1), "w": [None] * (n + 1),
                        "r": [None] * (n + 1)}}


DOC = {"scale": 4, "necessary": 400_000, "scenario": "dbhpf", "impair": "loss1",
       "duration": 40, "kernel": "test", "seed": 1}
# 400 kbit/s a flow: 2 Mbit/s in all, what the link carries and the
# flows offer
sound = run("udp", 400_000 // 8 // 4)
ok(mr.bounds(DOC, sound) == [], f"five flows at 400 kbit/s: within bounds ({mr.bounds(DOC, sound)})")

# one read of the old sum missed a flow's entry: its cumulative count
# added again, one sample carries it all
double = run("udp", 400_000 // 8 // 4)
b = double["samples"]["bytes"]
for k in range(20, len(b)):
    b[k][0] += b[19][0]
bad = mr.bounds(DOC, double)
ok(any("priority 1" in x for x in bad),
   f"a flow's count added again: priority 1 above the link, flagged ({bad})")

# every flow at 1.2 Mbit/s: within the link each, above what they offer
greedy = run("udp", 1_200_000 // 8 // 4)
bad = mr.bounds(DOC, greedy)
ok(len(bad) == 1 and "received" in bad[0],
   f"the flows above what they offer: flagged ({bad})")

# the live counters: the host kernel's nftables, in a namespace of its own
ns = f"nftcount-test-{os.getpid()}"
try:
    subprocess.run(["ip", "netns", "add", ns], check=True, capture_output=True)
    subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
    subprocess.run(["ip", "netns", "exec", ns, "nft", "-f", "-"], check=True, text=True,
                   input="table ip exp { counter p5301 { }\n counter p5302 { }\n"
                   " chain in { type filter hook input priority 0;\n"
                   " meta l4proto { tcp, udp } th dport 5301 counter name p5301\n"
                   " meta l4proto { tcp, udp } th dport 5302 counter name p5302\n }\n}\n")
    own = os.readlink("/proc/self/ns/net")
    c = nftcount.Counters(f"/run/netns/{ns}", "exp")
    before = c.read()
    send = ("import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            "for _ in range(25):\n    s.sendto(b'x' * 972, ('127.0.0.1', 5301))\n"
            "s.sendto(b'y' * 72, ('127.0.0.1', 5302))\n")
    subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", send], check=True)
    after = c.read()
    ok(before == {"p5301": 0, "p5302": 0} and after == {"p5301": 25_000, "p5302": 100},
       f"the kernel's counters over netlink, from a socket in the namespace: "
       f"25 x 1000 and 100 IP bytes (got {before}, then {after})")
    # this process is still in its own namespace: no p5301 here
    ok(os.readlink("/proc/self/ns/net") == own,
       "the process stays in its own namespace")
except (OSError, subprocess.CalledProcessError) as e:
    ok(False, f"the kernel's counters over netlink ({e})")
finally:
    subprocess.run(["ip", "netns", "del", ns], capture_output=True)

# the statistics: the median's order-statistic interval and its coverage
ok(stats.median_ci([5, 1, 4, 2, 3]) == (1, 5, 0.9375),
   "n = 5: the range, covering 93.75 %, said so")
ok(stats.median_ci(list(range(1, 11))) == (2, 9, 0.9785), "n = 10: [x(2), x(9)], 97.85 %")
ok(stats.median_ci([1, 2, 3, 4]) is None, "n = 4: no interval")
ok(stats.call((1, 2), (3, 4)) == "<" and stats.call((1, 3), (2, 4)) == "="
   and stats.call((0, 0), (0.005, 0.01), 0.01) == "=",
   "a call only where intervals separate, by more than the margin")
got = stats.seed_ci({"a": {s: 0.1 for s in range(5)}, "b": {s: 0.3 for s in range(5)}})
ok(got == (0.2, (0.2, 0.2)), f"the mean over cells of constant runs: exact (got {got})")

# cells that share each seed's effect (the same cross traffic and order):
# the interval of their mean must draw seeds alike, and then covers the
# true mean about as often as it says (a draw per cell would not)
rnd = random.Random(3)
hits = 0
for trial in range(60):
    effect = {s: rnd.gauss(0, 1) for s in range(8)}
    cells = {c: {s: effect[s] + rnd.gauss(0, 1) for s in range(8)} for c in range(6)}
    lo, hi = stats.seed_ci(cells, stat=lambda xs: sum(xs) / len(xs), b=400)[1]
    hits += lo <= 0 <= hi
ok(hits >= 48, f"a shared seed effect: the seeds' bootstrap covers the mean in {hits} of 60")

# the shortage of a flow received at exactly 400 kbit/s in whole packets:
# at 4x, UDP's 250 ms windows hold 10 or 11 of its 1228-byte packets
# (10.18 on average), so most windows read 393 kbit/s: short by Table
# 5's strict measure, not by the matrix's (one packet of slack)
def whole_packets(rate, pkt=1228):
    """samples at 4x of five flows received at RATE in whole packets"""
    t, b, got, due = [], [], 0, 0.0
    for k in range(121):
        t.append(float(k))
        while due <= k * 0.25:
            got += pkt
            due += pkt * 8 / rate
        b.append([got] * 5)
    return t, b


t, b = whole_packets(400_000)
exact = {"proto": "udp", "samples": {"t": t, "bytes": b}}
strict = report.shortage(exact, 4, 400_000)[0]
slack = report.shortage(exact, 4, 400_000, slack=True)[0]
ok(strict > 0.7 and slack == 0.0,
   f"a flow at exactly 400 kbit/s: strictly short {strict:.0%} of windows, by the matrix 0")
# 15 % below, 8 or 9 packets a window: short by both (10 % below, 9 or
# 10, is short in four windows of five: the measure's resolution at 4x)
t85, b85 = whole_packets(340_000)
low = report.shortage({"proto": "udp", "samples": {"t": t85, "bytes": b85}}, 4, 400_000,
                      slack=True)[0]
ok(low == 1.0, f"a flow at 340 kbit/s: short in every window by the matrix's measure too "
   f"({low:.0%})")
# a sample without counts (a failed read): its windows left out
holes = {"proto": "udp", "samples": {"t": t, "bytes": [None if k == 50 else x
                                                       for k, x in enumerate(b)]}}
n_all, n_holes = len(report.rates(exact, 4)[0]), len(report.rates(holes, 4)[0])
ok(n_holes == n_all - 2, f"a sample without counts: the two windows on it left out "
   f"({n_all} and {n_holes})")


def rec(cell, contender, seed, short, bounds=(), lost=None, commit="c0ffee"):
    mode, _, rule = contender.partition(":")
    e = {"scenario": "dbhpf", "impairment": cell, "proto": "udp", "baseline": mode,
         "estimator_mode": rule or None, "contender": contender, "seed": seed, "scale": 4,
         "duration": 120, "kernel": "test", "kver": "6.12", "commit": commit, "sources": "s1",
         "started": f"2026-12-02T00:00:{seed:02d}", "shortage": [short] * 5,
         "utilization": 0.9, "p1_owd_p50_ms": 30, "p1_owd_p99_ms": 60, "w_ratio": 1.0,
         "cross_bps": 1e6, "bulk_bps": None, "bounds": list(bounds), "ideal": [0.0] * 5}
    if lost:
        e["lost"] = [lost]
    return e


# the records' default: the report's (matrix-report.py DEFAULT)
D = mr.DEFAULT
with tempfile.TemporaryDirectory() as store:
    recs = []
    for s in range(1, 6):
        # loss1: er2bc well below pfifo; deep: the two overlap
        recs += [rec("loss1", D, s, 0.10 + s / 100),
                 rec("loss1", "none", s, 0.40 + s / 100),
                 rec("deep", D, s, 0.20 + s / 100),
                 rec("deep", "none", s, 0.22 + s / 100)]
    recs.append(rec("loss1", "none", 6, 9.0, bounds=["priority 1 at 44.30 Mbit/s"]))
    recs.append(rec("deep", "none", 7, 0, lost="CalledProcessError: netem"))
    recs.append({**rec("deep", "none", 8, 0.0), "sources": "other"})
    # a third contender in one cell with too few runs
    recs += [rec("deep", "cake:loss", s, 0.0) for s in (1, 2)]
    for e in recs:
        p = mr.store_path(store, e)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        json.dump(e, open(p, "w"))
    # the same run stored again by a later commit of the same sources,
    # under another name
    dup = rec("deep", "none", 1, 0.23, commit="beef")
    json.dump(dup, open(mr.store_path(store, dup).replace(".json", "-again.json"), "w"))
    rows = mr.aggregate(mr.load(store, "s1"))
    by = {r["impairment"]: r for r in rows}
    ok(by["loss1"]["best"] == D and by["loss1"]["wins"],
       "separate intervals: a win")
    ok(by["deep"]["best"] is None and not by["deep"]["wins"],
       "a contender with 2 runs, best of the three: no call in that cell")
    ok(mr.call({k: v for k, v in by["deep"]["contenders"].items() if k != "cake:loss"})
       == {"best": D, "wins": False, "untold": ["none"]},
       "overlapping intervals: not told apart")
    v = by["loss1"]["contenders"]["none"]
    ok(v["n"] == 5 and v["out_of_bounds"] == 1 and abs(v["p13"]["median"] - 0.43) < 1e-9,
       f"a run beyond the bounds: counted, left out of the median ({v['n']}, "
       f"{v['out_of_bounds']}, {v['p13']['median']})")
    v = by["deep"]["contenders"]["none"]
    ok(v["n"] == 5 and v["lost"] == 1 and v["seeds"] == [1, 2, 3, 4, 5],
       "a lost run counted; another sources' run not taken; a run stored by two "
       "commits counted once")
    out = os.path.join(store, "report")
    o = type("O", (), {"store": store, "sources": "s1", "all": False, "out": out,
                       "command": "test"})
    with open(os.devnull, "w") as null:
        real, sys.stdout = sys.stdout, null
        try:
            mr.write_report(o)
        finally:
            sys.stdout = real
    md = open(os.path.join(out, "matrix.md")).read()
    ok("1 lost to the testbed" in md and "1 measured beyond" in md and "**13.0 [11.0, 15.0] n=5**"
       in md, "matrix.md counts the lost and out-of-bounds runs and bolds a win")
    ok("| 4x, 120 s | 0 of 2 | - | - |" in md,
       "a contender with 2 runs in one cell: no cell in the mean over cells")
    full = [e for e in mr.load(store, "s1") if e["contender"] != "cake:loss"]
    rows = mr.aggregate(full)
    tot = mr.overall(full, rows, ["none", D])[0]
    got = {c: round(v["mean_of_medians"], 4) for c, v in tot["contenders"].items()}
    ok(tot["cells"] == 2 and got == {"none": 0.34, D: 0.18},
       f"the mean over cells of each contender's median, over the same cells (got {got})")
    pd = {r["impairment"]: r["paired"]["none"] for r in rows}["deep"]
    ok(abs(pd["median"] + 0.02) < 1e-9 and pd["ci95"][1] < 0 and pd["n"] == 5,
       f"paired by seed, the default 2 points below pfifo in every seed: told apart where "
       f"the unpaired intervals overlap (got {pd})")
    more = {r["impairment"]: (r["wants_more"], r["rival"]) for r in rows}
    ok(more == {"deep": (True, "none"), "loss1": (False, "none")},
       f"the default within 5 points of the best other with n < 10: more runs wanted "
       f"there (got {more})")

done()
