#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of the matrix report (matrix-report.py): the ideal (ideal())
and W against the ABW (entry()), on hand-computed schedules, TAP output.
The Debian python3 (matplotlib, which the report imports, comes from
python3-matplotlib)."""
import argparse
import contextlib
import importlib.util
import io
import json
import os
import re
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
spec = importlib.util.spec_from_file_location("matrix_report",
                                              os.path.join(here, "matrix-report.py"))
mr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mr)
sys.path.insert(0, os.path.join(here, "..", "testing"))
from tap import ok, done  # noqa: E402
import guest  # noqa: E402

PROBE = 50 * (100 + 28) * 8		# the priority-1 probe: 51.2 kbit/s

def run(proto, abw):
    """samples at each scenario second, the true ABW at each, no flow
    received anything (the ideal reads only the ABW)"""
    t = [float(k) for k in range(len(abw))]
    return {"proto": proto,
            "samples": {"t": t, "bytes": [[0] * 5 for _ in t], "abw": abw, "w": [None] * len(t),
                        "r": [None] * len(t)}}


doc = {"necessary": 400_000, "scale": 1}

# 10 s of 1.2 Mbit/s after the probe, then 10 s of 0.8: priorities 1-3
# served, then 1-2; UDP's 1 s windows: the third short in 10 of 20
abw = [1_200_000 + PROBE] * 10 + [800_000 + PROBE] * 11
got = mr.ideal(doc, run("udp", abw))
ok(got == [0.0, 0.0, 0.5, 1.0, 1.0], f"UDP, 1.2 then 0.8 Mbit/s: 0, 0, 0.5, 1, 1 (got {got})")

# TCP's 10 s windows over the same: the third's average is below 400
# kbit/s in every window that reaches into the second half (windows end
# at 10..20 s: the one ending at 10 s alone is whole)
got = mr.ideal(doc, run("tcp", abw))
ok(got == [0.0, 0.0, round(10 / 11, 4), 1.0, 1.0],
   f"TCP, the same: the third short in 10 of 11 windows (got {got})")

# what receives exactly its need is not short (the float sums' last bit:
# samples a little late, as the guest's are)
r = run("udp", [2_000_000 + PROBE] * 21)
r["samples"]["t"] = [k + 0.013 * (k % 3) + 0.0007 * k for k in range(21)]
got = mr.ideal(doc, r)
ok(got == [0.0] * 5, f"2 Mbit/s after the probe, samples late: nobody short (got {got})")

# less than the probe: everyone short
got = mr.ideal(doc, run("udp", [PROBE // 2] * 21))
ok(got == [1.0] * 5, f"below the probe's rate: every priority short (got {got})")

# compressed 4x (samples in scenario seconds, a quarter of a second
# apart): 1 Mbit/s after the probe leaves the third 200 kbit/s, short
# whatever the compression
got = mr.ideal({"necessary": 400_000, "scale": 4}, run("udp", [1_000_000 + PROBE] * 21))
ok(got == [0.0, 0.0, 1.0, 1.0, 1.0], f"compressed 4x, 1 Mbit/s: the third short (got {got})")

# no fixed ABW (the elastic cell): no ideal
ok(mr.ideal(doc, run("tcp", [None] * 21)) is None, "no fixed ABW: None")


def est(w, abw):
    """W's error and ratio of a run whose estimator said @w against @abw"""
    r = run("udp", abw)
    r["samples"]["w"] = w
    r["mode"] = "er2bc"
    e = mr.entry({**doc, "scenario": "dbhpf", "impair": "loss1", "estimator_mode": "delay"}, r)
    return e["w_error"], e["w_ratio"]


# W half the ABW: half off, and below it
got = est([1_000_000] * 21, [2_000_000] * 21)
ok(got == (0.5, 0.5), f"W half the ABW: error 0.5, ratio 0.5 (got {got})")

# W above, then below, by as much: the error counts both, the ratio nets
# them (the mean W is the mean ABW)
got = est([2_400_000] * 10 + [1_600_000] * 10 + [None], [2_000_000] * 21)
ok(got == (0.2, 1.0), f"W 20 % over, then under: error 0.2, ratio 1.0 (got {got})")

# a sample without W (the estimator's status not read yet) is left out
got = est([None] * 5 + [3_000_000] * 16, [2_000_000] * 21)
ok(got == (0.5, 1.5), f"samples without W left out: error 0.5, ratio 1.5 (got {got})")

# no fixed ABW (the elastic cell): neither
got = est([1_000_000] * 21, [None] * 21)
ok(got == (None, None), f"no fixed ABW: no error, no ratio (got {got})")


# compare(): two measured codes from a store, seed by seed
def stored(store, sources, seed, short, contender="er2bc:loss", **more):
    """a run in the store, where ingest() would put it: DBHPF elastic TCP at
    4x, 120 s, unless MORE says otherwise"""
    e = {"sources": sources, "kver": "6.12", "scale": 4.0, "duration": 120.0,
         "scenario": "dbhpf", "impairment": "elastic", "proto": "tcp", "contender": contender,
         "seed": seed, "commit": "c", "kernel": "6.12.0", "started": f"2026-12-02T0{seed}:00",
         "bounds": [],
         "shortage": [short] * 3 + [1.0, 1.0], "p1_owd_p99_ms": 100.0, **more}
    path = mr.store_path(store, e)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(e, f)


def compare(store, before, after, as_=()):
    class O:
        pass
    o = O()
    o.store, o.before, o.after, o.as_ = store, before, after, list(as_)
    o.json = os.path.join(store, "cmp.json")
    with contextlib.redirect_stdout(io.StringIO()) as out:
        mr.compare(o)
    with open(o.json) as f:
        return json.load(f)["rows"], out.getvalue()


with tempfile.TemporaryDirectory() as store:
    for seed in range(1, 7):
        stored(store, "aaaa", seed, 0.90 + 0.01 * seed)
        stored(store, "bbbb", seed, 0.60 + 0.01 * seed)
        stored(store, "aaaa", seed, 0.50 + 0.02 * seed, "none")
        stored(store, "bbbb", seed, 0.51 + 0.02 * seed, "none")
    rows, text = compare(store, "aaaa", "bbbb")
    byc = {r["contender"]: r for r in rows}
    ok(byc["er2bc:loss"]["verdict"] == "better" and byc["er2bc:loss"]["paired"]["n"] == 6
       and abs(byc["er2bc:loss"]["paired"]["median"] + 0.30) < 1e-9,
       f"compare: 30 points less short on every seed: better, paired -30 (got {byc['er2bc:loss']})")
    ok(byc["none"]["verdict"] == "not told apart",
       f"compare: a point apart, intervals overlapping: not told apart (got {byc['none']['verdict']})")
    ok("| dbhpf/elastic tcp 4x | er2bc:loss |" in text and "better" in text,
       "compare: the table names the cell, the contender and the verdict")
    # --as: a variant of the after code against the before code's contender
    for seed in range(1, 7):
        stored(store, "dddd", seed, 0.40 + 0.01 * seed, "er2bc:loss+w-ini-qdisc")
        stored(store, "dddd", seed, 0.95, "er2bc:loss")
    rows, text = compare(store, "aaaa", "dddd", [("er2bc:loss+w-ini-qdisc", "er2bc:loss")])
    byc = {r["contender"]: r for r in rows}
    ok(len(rows) == 1 and byc["er2bc:loss"]["after_contender"] == "er2bc:loss+w-ini-qdisc"
       and abs(byc["er2bc:loss"]["paired"]["median"] + 0.50) < 1e-9
       and "| er2bc:loss -> er2bc:loss+w-ini-qdisc |" in text,
       f"compare --as: the variant against the before code's contender, paired -50, the "
       f"after code's own er2bc:loss left out (got {rows})")
    for bad, why in (([("er2bc:loss+w-ini-qdisc", "er2bc:loss"), ("er2bc:loss", "er2bc:loss")],
                      "each AFTER and each BEFORE once"),
                     ([("er2bc:loss+w-ini-qdsic", "er2bc:loss")], "has no run of"),
                     ([("er2bc:loss+w-ini-qdisc", "er2bc:hybrid")], "has no run of")):
        try:
            compare(store, "aaaa", "dddd", bad)
            ok(False, f"compare --as {bad}: refused")
        except SystemExit as e:
            ok(why in str(e), f"compare --as {bad}: refused ({e})")
    for seed in range(1, 7):
        stored(store, "dddd", seed, 0.5, "none")
    rows, _ = compare(store, "dddd", "dddd", [("er2bc:loss+w-ini-qdisc", "er2bc:loss")])
    ok([r["contender"] for r in rows] == ["er2bc:loss"]
       and abs(rows[0]["paired"]["median"] + 0.515) < 1e-9,
       f"compare --as, one code against itself: the renamed pair alone (not none against "
       f"itself), paired -51.5 "
       f"(got {rows})")
    ok(mr.as_pair("a:b+c=a:b") == ("a:b+c", "a:b"), "compare --as: AFTER=BEFORE split at the =")
    try:
        mr.as_pair("er2bc:loss")
        ok(False, "compare --as without =: refused")
    except argparse.ArgumentTypeError as e:
        ok("AFTER=BEFORE" in str(e), f"compare --as without =: refused, saying how ({e})")
    stored(store, "cccc", 1, 0.2)
    rows, _ = compare(store, "aaaa", "cccc")
    ok(rows[0]["verdict"] == "too few runs", "compare: one run after: too few runs for a call")

# a contender's rule as the sender's options (guest.py)
ok(guest.estimator_args("loss+compete") == ["--mode", "loss", "--compete", "yes",
                                           "--loss-queue", "no"]
   and guest.estimator_args("hybrid") == ["--mode", "hybrid"] and guest.estimator_args(None) == [],
   "contenders: loss+compete is the paper's loss rule with compete = yes; hybrid as it is; "
   "none none")
ok(guest.estimator_args("loss+compete+queue") == ["--mode", "loss", "--compete", "yes",
                                                  "--loss-queue", "yes"]
   and guest.estimator_args("loss+queue") == ["--mode", "loss", "--loss-queue", "yes"]
   and guest.estimator_args("loss") == ["--mode", "loss", "--loss-queue", "no"],
   "contenders: +queue is loss-queue = yes, alone or after +compete; loss alone, the "
   "paper's rule, says no to it (the estimator's default)")
ok(guest.rule_margin("loss+margin20") == ("loss", 20)
   and guest.rule_margin("loss+compete+margin100") == ("loss+compete", 100)
   and guest.rule_margin("loss") == ("loss", 0) and guest.rule_margin(None) == (None, 0)
   and guest.estimator_args("loss+queue+margin5") == ["--mode", "loss", "--loss-queue", "yes"],
   "contenders: +marginN, last, is the qdisc's margin on priorities 1-3, not the sender's")
ok(guest.rule_qdisc("loss+queue+latency0") == ("loss+queue", 0, 0)
   and guest.rule_qdisc("loss+margin20+latency25") == ("loss", 20, 25)
   and guest.rule_qdisc("loss+queue") == ("loss+queue", 0, None)
   and guest.rule_margin("loss+queue+latency0") == ("loss+queue", 0)
   and guest.estimator_args("loss+queue+latency0") == ["--mode", "loss", "--loss-queue", "yes"]
   and guest.rule_known("loss+latency100") and not guest.rule_known("loss+latency60001")
   and not guest.rule_known("loss+latency25+margin20"),
   "contenders: +latencyMS, after any +marginN, is the classes' latency bound (0: "
   "unlimited), not the sender's; above 60 s, or before the margin, it is refused")
ok(guest.rule_w_ini("loss+queue") == "1000000bit" and guest.rule_w_ini(None) == "1000000bit"
   and guest.rule_w_ini("delay+compete+drain+probe+w-ini-qdisc") == "qdisc"
   and guest.rule_w_ini("loss+margin20+latency25+w-ini-qdisc") == "qdisc"
   and guest.rule_qdisc("loss+margin20+latency25+w-ini-qdisc") == ("loss", 20, 25)
   and guest.estimator_args("loss+queue+w-ini-qdisc") == ["--mode", "loss", "--loss-queue",
                                                          "yes"]
   and guest.rule_known("loss+queue+w-ini-qdisc")
   and not guest.rule_known("loss+w-ini-qdisc+margin20"),
   "contenders: +w-ini-qdisc, last, starts W at the qdisc's cap (the sender's w-ini "
   "qdisc, as shipped), not at the paper's 1 Mbit/s; before a qdisc option it is refused")
ok(guest.rule_w_ini("loss+queue+w-ini-qdisc", "htb") == "5000000bit"
   and guest.rule_w_ini("loss+queue+w-ini-qdisc", "cake") == "5000000bit"
   and guest.rule_w_ini("loss+queue+w-ini-qdisc", "static") == "qdisc"
   and guest.rule_w_ini("loss+queue", "cake") == "1000000bit",
   "contenders: htb and cake +w-ini-qdisc start at the cap, 5 Mbit/s (their sender reads "
   "no er2bc cap), and at the paper's 1 Mbit/s without it")
ok(guest.CONTENDERS[0] == "none" and len(guest.CONTENDERS) == 9
   and all(c.endswith("+w-ini-qdisc") for c in guest.CONTENDERS[1:])
   and all(guest.rule_known(c.split(":")[1]) for c in guest.CONTENDERS[1:]),
   "contenders: the matrix runs pfifo and eight configurations as shipped, W from the cap")
ok(mr.default_of({"none", "er2bc:loss+queue+w-ini-qdisc", "er2bc:loss+queue"})
   == "er2bc:loss+queue+w-ini-qdisc"
   and mr.default_of({"none", "er2bc:loss+queue", "er2bc:hybrid"}) == "er2bc:loss+queue"
   and mr.order("er2bc:hybrid") == (guest.CONTENDERS.index("er2bc:hybrid+w-ini-qdisc"),
                                    "er2bc:hybrid")
   and mr.order("er2bc:hybrid") < mr.order("er2bc:hybrid+w-ini-qdisc")
   and mr.order("fancy:loss")[0] == len(guest.CONTENDERS),
   "report: the default is the shipped one where the runs have it, the paper's start's in "
   "older stores; a contender of the paper's start sorts at its shipped twin's place")
ok(guest.estimator_args("delay+drain+probe") == ["--mode", "delay", "--delay-drain", "yes",
                                                "--probe-interval", "50ms", "--delay-filter", "1"]
   and guest.estimator_args("loss+queue+probe") == ["--mode", "loss", "--loss-queue", "yes",
                                                    "--probe-interval", "50ms", "--delay-filter",
                                                    "1"]
   and guest.estimator_args("hybrid+drain") == ["--mode", "hybrid", "--delay-drain", "yes"],
   "contenders: +drain for the delay rules, +probe for any (delay probes, delay-filter 1)")
ok(guest.estimator_args("delay+compete") == ["--mode", "delay", "--compete", "yes"]
   and guest.estimator_args("delay+compete+drain+probe") == [
       "--mode", "delay", "--compete", "yes", "--delay-drain", "yes",
       "--probe-interval", "50ms", "--delay-filter", "1"],
   "contenders: +compete for the delay rule too, before +drain")
for bad in ("hybrid+compete", "delay+drain+compete", "loss+drain", "fast", "loss+queue+compete", "hybrid+queue",
            "loss+margin0", "loss+margin101", "loss+margin20+queue", "delay+probe+drain",
            "loss+probe+probe"):
    try:
        guest.estimator_args(bad)
        ok(False, f"contenders: {bad} refused")
    except ValueError as e:
        ok(bad in str(e), f"contenders: {bad} refused, named ({e})")

# plan(): the commands to the evaluation's n
def plan(store, sources):
    class O:
        pass
    o = O()
    o.store, o.sources, o.kver = store, sources, "6.12"
    with contextlib.redirect_stdout(io.StringIO()) as out:
        mr.plan(o)
    return out.getvalue()


# the figures a report reads beside the shortage, all 1
FIGURES = {k: 1.0 for k in ("utilization", "p1_owd_p99_ms", "p1_owd_p50_ms", "w_ratio",
                            "cross_bps", "bulk_bps")}


def stored_all(store, sources, cell, seed, short, **more):
    """every shipped contender's run of CELL (DBHPF) and SEED, TCP and UDP,
    each short by SHORT[contender] (default 0.5)"""
    for c in guest.CONTENDERS:
        for proto in ("tcp", "udp"):
            stored(store, sources, seed, short.get(c, 0.5) + 0.001 * seed, c, impairment=cell,
                   proto=proto, **FIGURES, **more)


with tempfile.TemporaryDirectory() as store:
    dflt = "er2bc:loss+queue" + guest.W_INI_QDISC
    for seed in range(1, 6):
        # loss1: the default 20 points ahead of every other; elastic: pfifo
        # 2 points behind it
        stored_all(store, "cccc", "loss1", seed, {dflt: 0.2})
        stored_all(store, "cccc", "elastic", seed, {dflt: 0.2, "none": 0.22})
    for seed in range(1, 3):
        stored_all(store, "cccc", "deep", seed, {})
    # the default's run of seed 6 in elastic TCP, lost: a seed tried; and
    # deep's seeds 3-5 at another scenario length, which make matrix
    # does not run: not counted
    stored(store, "cccc", 6, 0.2, dflt, lost=True)
    for seed in range(3, 6):
        stored_all(store, "cccc", "deep", seed, {}, duration=60.0)
    text = plan(store, "cccc")
    lines = text.splitlines()
    first = next((ln for ln in lines if ln.startswith("KVER=6.12 SEEDS=\"1 2 3 4 5\"")), "")
    ok("dbhpf/deep" in first and "tracking/loss1" in first and "dbhpf/loss1" not in first
       and "dbhpf/elastic " not in first + " ",
       f"plan: cells short of n = 5 (a partial one, and ones never run) and not those at 5 "
       f"(got {first!r})")
    ok(any(ln.startswith("REALTIME=1 ") and "dbhpf/elastic" in ln for ln in lines),
       f"plan: the real-time cells, none run (got {text!r})")
    close = {ln.split("PROTOS=")[1].split()[0]: ln for ln in lines if "CONTENDERS=" in ln}
    ok(len(close) == 2 and all('CELLS="dbhpf/elastic"' in ln and f'CONTENDERS="{dflt},none"' in ln
                               for ln in close.values())
       and 'SEEDS="6 7 8 9 10"' in close.get("udp", "")
       and 'SEEDS="7 8 9 10 11"' in close.get("tcp", ""),
       f"plan: to n = 10 the default and its rival within 5 points, in each protocol, "
       f"not in the cell 20 points apart; a seed whose run was lost not asked again "
       f"(got {close})")

# perturbed units (a quarter or more of their runs with the guest's
# sampler over LATE_MS late): their runs stored apart, left out of the
# figures, counted, and the unit run again
LATE = {"sampler_late_ms": {"p50": 3, "p99": mr.LATE_MS + 1, "max": 400}}
ON_TIME = {"sampler_late_ms": {"p50": 1, "p99": mr.LATE_MS, "max": 60}}


def unit(d, seed, runs):
    """a unit's runs.json, as guest.py --matrix writes it: RUNS, (mode,
    lateness) pairs, UDP in DBHPF loss1, 20 samples at 0.5 Mbit/s each flow"""
    def one(mode, late):
        t = [float(k) for k in range(21)]
        return {"proto": "udp", "mode": mode, "estimator_mode": None, "seed": seed,
                "samples": {"t": t, "bytes": [[k * 62_500] * 5 for k in range(21)],
                            "abw": [5_000_000] * 21, "w": [None] * 21, "r": [None] * 21},
                **late}
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "runs.json"), "w") as f:
        json.dump({"matrix": True, "scenario": "dbhpf", "impair": "loss1", "scale": 1,
                   "duration": 20, "kernel": "6.12.0", "necessary": 400_000, "seed": seed,
                   "runs": [one(m, late) for m, late in runs]}, f)


def ingest(store, d):
    class O:
        pass
    o = O()
    o.input, o.store, o.commit, o.sources, o.kver = [d], store, "c", "ffff", "6.12"
    with contextlib.redirect_stdout(io.StringIO()):
        mr.ingest(o)
    return sorted(os.path.relpath(p, store) for p in
                  __import__("glob").glob(f"{store}/**/*.json", recursive=True))


MODES = ("none", "htb", "cake", "static")
with tempfile.TemporaryDirectory() as tmp:
    store = os.path.join(tmp, "store")
    where = "ffff/6.12/1x-20s/dbhpf-loss1/"
    # seed 1: one run of four late (a quarter): the unit's runs perturbed,
    # all of them; seed 2: none late
    unit(os.path.join(tmp, "u1"), 1, [("none", LATE)] + [(m, ON_TIME) for m in MODES[1:]])
    unit(os.path.join(tmp, "u2"), 2, [(m, ON_TIME) for m in MODES])
    got = ingest(store, os.path.join(tmp, "u1"))
    ingest(store, os.path.join(tmp, "u2"))
    ok(got == [where + f"udp-{m}-s1.perturbed.json" for m in sorted(MODES)]
       and all(json.load(open(os.path.join(store, p)))["perturbed"] for p in got),
       f"ingest: a unit with a quarter of its runs over {mr.LATE_MS} ms late: every run "
       f"stored apart, marked perturbed (got {got})")
    # seed 3: one of five late: the unit kept time, the late run too
    unit(os.path.join(tmp, "u3"), 3, [("none", LATE)] + [(m, ON_TIME) for m in MODES[1:]]
         + [("er2bc", ON_TIME)])
    got = [p for p in ingest(store, os.path.join(tmp, "u3")) if "-s3" in p]
    ok(got == sorted(where + f"udp-{m}-s3.json" for m in MODES + ("er2bc",)),
       f"ingest: one run of five late, under a quarter: the unit's runs stored as runs, the "
       f"late one too (got {got})")
    # seed 1 again (matrix.sh: its runs are not stored): on time, then
    # perturbed once more
    unit(os.path.join(tmp, "u1b"), 1, [(m, ON_TIME) for m in MODES])
    ingest(store, os.path.join(tmp, "u1b"))
    unit(os.path.join(tmp, "u1c"), 1, [(m, LATE) for m in MODES])
    got = [p for p in ingest(store, os.path.join(tmp, "u1c")) if "-s1" in p]
    ok(got == sorted([where + f"udp-{m}-s1.json" for m in MODES]
                     + [where + f"udp-{m}-s1.perturbed.json" for m in MODES]),
       f"ingest: the repeated unit's runs stored beside the perturbed ones; a perturbed "
       f"unit where sound runs are stored, not stored (got {got})")
    recs = mr.load(store, "ffff")
    row = mr.aggregate(recs)[0]["contenders"]
    ok(len(recs) == 17 and all(row[m]["n"] == 3 and row[m]["perturbed"] == 1 for m in MODES),
       f"load, aggregate: a perturbed run and its repeat are two records; the figures "
       f"take the sound ones and count the others (got {len(recs)} records, "
       f"{[(m, row[m]['n'], row[m]['perturbed']) for m in MODES]})")

with tempfile.TemporaryDirectory() as store:
    # the default's TCP run of seed 3 perturbed (its shortage 90 %) and
    # run again (20 %); seed 5's perturbed and not yet run again, and out
    # of bounds as well; a record from before the verdict was stored, late
    # by its numbers, taken as it was stored
    for seed in range(1, 6):
        stored(store, "eeee", seed, 0.2 + 0.001 * seed, dflt, **ON_TIME, **FIGURES)
        stored(store, "eeee", seed, 0.5 + 0.001 * seed, "none",
               **(LATE if seed == 2 else ON_TIME), **FIGURES)
    stored(store, "eeee", 3, 0.9, dflt, perturbed=True, **LATE, **FIGURES)
    stored(store, "eeee", 5, 0.9, dflt, perturbed=True, **LATE, **FIGURES,
           bounds=["the flows received 9 Mbit/s"])
    rows = mr.aggregate(mr.load(store, "eeee"))[0]["contenders"]
    row = rows[dflt]
    ok(row["n"] == 5 and row["perturbed"] == 2 and row["out_of_bounds"] == 0
       and row["p13"]["median"] < 0.21 and rows["none"]["n"] == 5,
       f"aggregate: perturbed runs left out of n and the median and counted, one beyond the "
       f"link too counted as perturbed; an older record late by its numbers kept (got n "
       f"{row['n']}, perturbed {row['perturbed']}, bounds {row['out_of_bounds']}, median "
       f"{row['p13']['median']}, pfifo n {rows['none']['n']})")
    for seed in range(1, 6):
        stored(store, "gggg", seed, 0.9, dflt, **FIGURES)
        stored(store, "gggg", seed, 0.5 + 0.001 * seed, "none", **FIGURES)
    os.remove(mr.store_path(store, {"sources": "eeee", "kver": "6.12", "scale": 4.0,
                                    "duration": 120.0, "scenario": "dbhpf",
                                    "impairment": "elastic", "proto": "tcp",
                                    "contender": dflt, "seed": 5}))
    rows, _ = compare(store, "gggg", "eeee")
    byc = {r["contender"]: r for r in rows}
    ok(byc[dflt]["after"]["n"] == 4 and byc[dflt]["paired"]["n"] == 4
       and byc[dflt]["after"]["median"] < 0.21,
       f"compare: perturbed runs left out (got {byc[dflt]['after']}, "
       f"{byc[dflt]['paired']})")
    with tempfile.TemporaryDirectory() as out:
        class O:
            pass
        o = O()
        o.store, o.sources, o.all, o.out, o.command = store, "eeee", False, out, "make matrix"
        with contextlib.redirect_stdout(io.StringIO()) as md:
            mr.write_report(o)
        md = md.getvalue()
        rep = json.load(open(os.path.join(out, "report.json")))
    ok(rep["perturbed"] == 2 and rep["out_of_bounds"] == 0 and "2 runs of units that did not" in md
       and "seed 3: 51" in md and "perturbed 2)" in md,
       f"report: the perturbed runs counted in the header and the cell, and listed with "
       f"their lateness (got {rep['perturbed']}, {md[:400]!r})")

# plan: every shipped contender's five seeds in DBHPF elastic; the
# default's TCP run of seed 2 perturbed: the cell short of n = 5 until it
# is run again
with tempfile.TemporaryDirectory() as store:
    for seed in range(1, 6):
        stored_all(store, "hhhh", "elastic", seed, {})
    kw = {"sources": "hhhh", "kver": "6.12", "scale": 4.0, "duration": 120.0,
          "scenario": "dbhpf", "impairment": "elastic", "proto": "tcp", "contender": dflt,
          "seed": 2}
    sound_path = mr.store_path(store, kw)
    os.rename(sound_path, mr.store_path(store, {**kw, "perturbed": True}))
    first = [ln for ln in plan(store, "hhhh").splitlines() if ln.startswith("KVER=")][0]
    os.link(mr.store_path(store, {**kw, "perturbed": True}), sound_path)
    again = [ln for ln in plan(store, "hhhh").splitlines() if ln.startswith("KVER=")][0]
    ok("dbhpf/elastic " in first and "dbhpf/elastic " not in again,
       f"plan: a cell whose perturbed run was not run again is short of n = 5, and not once "
       f"it was (got {first!r}, then {again!r})")

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "matrix.sh")) as f:
    sh = f.read()
rt_cells = re.search(r'cells=\$\{CELLS:-(dbhpf/[^}]*)\}', sh).group(1).split()
rt_cont = re.search(r'contenders=\$\{CONTENDERS:-(none,[^}]*)\}', sh).group(1)
rt_cont = rt_cont.replace("$ship", guest.W_INI_QDISC).split(",")
ok(tuple(rt_cells) == mr.REALTIME_CELLS and tuple(rt_cont) == mr.REALTIME_CONTENDERS,
   f"plan: the real-time cells and contenders are matrix.sh --realtime's "
   f"(matrix.sh: {rt_cells} {rt_cont})")


done()
