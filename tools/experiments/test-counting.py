#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of how the matrix counts and judges: the per-flow counters
(nftcount.py, Accumulator on replayed reads, Counters on the host kernel's
nftables in a namespace), the physical bounds a run must keep
(matrix-report.py bounds()), the statistics (stats.py) and the report's
calls from a store of hand-made runs. TAP output."""
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "testing"))
import nftcount  # noqa: E402
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

# the statistics: n = 5 gives the range, a tie where intervals overlap
ok(stats.boot_ci([5, 1, 4, 2, 3]) == (1, 5), "n = 5: the median's 95 % interval is the range")
ok(stats.boot_ci([1, 2]) is None, "n = 2: no interval")
ok(stats.call((1, 2), (3, 4)) == "<" and stats.call((1, 3), (2, 4)) == "=",
   "a call only where intervals separate")
ci = stats.strata_ci([[0.1] * 5, [0.3] * 5])
ok(ci == (0.2, 0.2), f"the mean over cells of constant runs: exact (got {ci})")


def rec(cell, contender, seed, short, bounds=(), lost=None):
    mode, _, rule = contender.partition(":")
    e = {"scenario": "dbhpf", "impairment": cell, "proto": "udp", "baseline": mode,
         "estimator_mode": rule or None, "contender": contender, "seed": seed, "scale": 4,
         "duration": 120, "kernel": "test", "commit": "c0ffee", "sources": "s1",
         "started": f"2026-12-02T00:00:{seed:02d}", "shortage": [short] * 5,
         "utilization": 0.9, "p1_owd_p50_ms": 30, "p1_owd_p99_ms": 60, "w_ratio": 1.0,
         "cross_bps": 1e6, "bulk_bps": None, "bounds": list(bounds), "ideal": [0.0] * 5}
    if lost:
        e["lost"] = [lost]
    return e


with tempfile.TemporaryDirectory() as store:
    recs = []
    for s in range(1, 6):
        # loss1: er2bc well below pfifo; deep: the two overlap
        recs += [rec("loss1", "er2bc:loss", s, 0.10 + s / 100),
                 rec("loss1", "none", s, 0.40 + s / 100),
                 rec("deep", "er2bc:loss", s, 0.20 + s / 100),
                 rec("deep", "none", s, 0.22 + s / 100)]
    recs.append(rec("loss1", "none", 6, 9.0, bounds=["priority 1 at 44.30 Mbit/s"]))
    recs.append(rec("deep", "none", 7, 0, lost="CalledProcessError: netem"))
    recs.append({**rec("deep", "none", 8, 0.0), "sources": "other"})
    for e in recs:
        p = mr.store_path(store, e)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        json.dump(e, open(p, "w"))
    rows = mr.aggregate(mr.load(store, "s1"))
    by = {r["impairment"]: r for r in rows}
    ok(by["loss1"]["best"] == "er2bc:loss" and by["loss1"]["wins"],
       "separate intervals: a win")
    ok(by["deep"]["best"] == "er2bc:loss" and not by["deep"]["wins"]
       and by["deep"]["tied"] == ["none"], "overlapping intervals: a tie")
    v = by["loss1"]["contenders"]["none"]
    ok(v["n"] == 5 and v["out_of_bounds"] == 1 and abs(v["p13"]["median"] - 0.43) < 1e-9,
       f"a run beyond the bounds: counted, left out of the median ({v['n']}, "
       f"{v['out_of_bounds']}, {v['p13']['median']})")
    v = by["deep"]["contenders"]["none"]
    ok(v["n"] == 5 and v["lost"] == 1, "a lost run counted, and another sources' run not taken")
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

done()
