#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The robustness matrix: what matrix.sh's cells measured (guest.py
--matrix), one record per run in a store, and the table, intervals and
heat map of a store's runs.

    matrix-report.py ingest --input UNIT... --store STORE --commit C --sources H --kver K
    matrix-report.py report --store STORE --out DIR --command CMD [--sources H|--all]
    matrix-report.py compare --store STORE --before H --after H [--json FILE]
    matrix-report.py plan --store STORE [--sources H] [--kver K]

ingest writes one JSON per run (and per run lost) of each finished unit
(a VM of matrix.sh: UNIT/runs.json and UNIT/.done) under
STORE/SOURCES/KVER/SCALEx-DURATIONs/SCENARIO-IMPAIR/PROTO-CONTENDER-sSEED.json
(SOURCES: the hash of what decides a run; the commit is in the record);
a run already there is kept, and a run is one run whatever path it came
by (KEY; a perturbed unit's runs, .perturbed.json, are kept beside the
runs that repeated them). report aggregates the runs of one measured code (--sources:
the hash of the sources that decide a run, matrix.sh's; default the
newest in the store) into DIR/report.json, DIR/matrix.md and
DIR/matrix.png, and prints the markdown. compare sets two measured codes
side by side (the sources before and after a change), contender by
contender in each cell both have: the medians and intervals of each, the
difference seed by seed (the same cross traffic), and whether the change
helped: "better" or "worse" only when the intervals separate by MARGIN,
else "not told apart".

Per run (entry()):

- shortage: per priority, the ratio of time below the necessary 400 kbit/s
  (Table 5's measure, report.py);
- utilization: what the five flows received over the run's mean ABW; with
  elastic cross traffic (no fixed ABW), what crossed the bottleneck over
  its 5 Mbit/s;
- p1_owd_p50_ms, p1_owd_p99_ms: the one-way delay of the priority-1 probe,
  of the datagrams that arrived; p1_probe_lost: the share that did not (up
  to the last that arrived), since a baseline that drops the probe would
  otherwise look faster;
- w_error: mean |W - ABW| over the mean ABW (none without an estimator or
  a fixed ABW);
- w_ratio: the mean W over the mean ABW, at the same samples;
- cross_bps: what of the cross traffic reached the far gateway;
- bulk_bps: in the elastic cell, what the bulk backup through the gateway
  received: what it took from the others;
- bounds (bounds()): what the run measured beyond what the link or the
  senders can carry. Such a run is kept in the store, counted in the
  report and left out of every figure: a counting fault, not a result.
- perturbed (perturbed()): the unit (one VM) the run was part of did not
  keep the scenario's time: a quarter or more of its runs had the guest's
  sampler over LATE_MS late at its 99th percentile (sampler_late_ms;
  unit_perturbed()), as when a build or another guest runs beside the
  matrix. Decided at ingest, for the unit's runs alike: single late runs
  are common in units run alone, and more common for some contenders than
  others, so leaving out late runs one by one would select among a
  contender's runs. A perturbed unit's runs are stored apart
  (PROTO-CONTENDER-sSEED.perturbed.json, "perturbed": true), counted in
  the report and left out of every figure; matrix.sh does not take them
  as stored, and runs the unit again: a testbed fault, not a result.

Beside them, per run with a fixed ABW, the ideal: the shortage, by the
same measure, of a shaper that knows the true ABW at every sample and
serves the flows' necessary rates in priority order, after the
priority-1 probe. It is a reference, not a bound for TCP's 10 s windows
(a shaper could serve a flow more around a dip and lift a window's
average); but DBHPF's lowest steps, 15 s each below what priorities 1-3
need together, no shaper can fill.

Per cell and contender the report gives the median over the runs and its
order-statistic interval (stats.py), with n; a contender wins a cell only
where its interval lies below every other's by MARGIN, and the
contenders whose intervals overlap the best median's are not told apart
from it. The shortage here counts a window short when it falls short of
the necessary rate by more than one packet (report.shortage()); Table
5's strict measure is kept beside it (shortage_strict)."""
import argparse
import collections
import datetime
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402
import stats  # noqa: E402
from guest import CAPACITY, CONTENDERS, IMPAIR, OWD_RATE, PORTS, W_INI_QDISC  # noqa: E402
from owd import LEN as OWD_LEN  # noqa: E402

import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def entry(doc, run):
    scale = doc["scale"]
    s = run["samples"]
    got = report.delivered(run, scale)
    abw = [x for x in s["abw"] if x is not None]
    if abw:
        util = got / (sum(abw) / len(abw))
    else:
        util = run.get("r1_bytes", 0) * 8 / (run.get("seconds", 1) * CAPACITY)
    pairs = [(w, x) for w, x in zip(s["w"], s["abw"]) if w is not None and x is not None]
    # (means over the same samples: their counts cancel)
    abw_sum = sum(x for _, x in pairs)
    werr = sum(abs(w - x) for w, x in pairs) / abw_sum if abw_sum else None
    wratio = sum(w for w, _ in pairs) / abw_sum if abw_sum else None
    owd = run.get("owd") or {}
    rule = run.get("estimator_mode", doc.get("estimator_mode")) if run["mode"] != "none" \
        else None
    return {"scenario": doc["scenario"], "impairment": doc["impair"], "proto": run["proto"],
            "baseline": run["mode"], "estimator_mode": rule,
            # the matrix's measure: short by more than one packet over the
            # window (report.shortage()); Table 5's strict one beside it
            "shortage": report.shortage(run, scale, doc["necessary"], slack=True),
            "shortage_strict": report.shortage(run, scale, doc["necessary"]),
            "utilization": round(util, 3),
            "p1_owd_p50_ms": owd.get("p50_ms"), "p1_owd_p99_ms": owd.get("p99_ms"),
            "p1_probe_lost": round(1 - owd["received"] / (owd["seq"] + 1), 4)
            if owd.get("seq", -1) >= 0 else None,
            "w_error": round(werr, 3) if werr is not None else None,
            "w_ratio": round(wratio, 3) if wratio is not None else None,
            "cross_bps": round(run.get("cross_bytes", 0) * 8 / run.get("seconds", 1)),
            # the elastic cell's bulk backup through the gateway (None elsewhere)
            "bulk_bps": round(run["bulk_bytes"] * 8 / run["seconds"])
            if "bulk_bytes" in run else None,
            "driver_sent": run.get("driver_sent"),
            "driver_failed": run.get("driver_failed")}


def ideal(doc, run):
    """the shortage per priority of the ideal allocation (module doc) over
    RUN's samples of the true ABW; None without a fixed ABW"""
    s = run["samples"]
    if any(x is None for x in s["abw"]):
        return None
    need, n = doc["necessary"], len(PORTS)
    probe = OWD_RATE * (OWD_LEN + 28) * 8
    cum, acc = [[0.0] * n], [0.0] * n
    for k in range(1, len(s["t"])):
        left = max(s["abw"][k - 1] - probe, 0)
        dt = (s["t"][k] - s["t"][k - 1]) / doc["scale"]
        for i in range(n):
            got = min(need, left)
            left -= got
            acc[i] += got * dt / 8
        cum.append(list(acc))
    rs = report.rates({"proto": run["proto"], "samples": {"t": s["t"], "bytes": cum}},
                      doc["scale"])
    # (what receives exactly its need is not short: the float sums' last bit)
    return [round(sum(r < need * (1 - 1e-9) for _, r in pr) / len(pr), 4) for pr in rs]


def label(e):
    return e["baseline"] + (f" ({e['estimator_mode']})" if e["estimator_mode"] else "")


def contender(e):
    """the contender's name in the store: mode[:rule], as guest.py's"""
    return e["baseline"] + (f":{e['estimator_mode']}" if e["estimator_mode"] else "")


def p13(e):
    return sum(e["shortage"][:3]) / 3


# (report.py's: make demo's report checks its runs too)
bounds = report.bounds

# a run whose sampler was later than this at its 99th percentile, real
# ms, was late; a unit with a quarter or more of its runs late, perturbed
# (unit_perturbed()). Of 534 units in the stores to date, 180 had a late
# run, mostly one; 95 had a quarter or more
LATE_MS = 50


def late(run):
    """whether the guest's sampler ran over LATE_MS late at its 99th
    percentile in RUN (a run of runs.json or a record)"""
    return ((run.get("sampler_late_ms") or {}).get("p99") or 0) > LATE_MS


def unit_perturbed(runs):
    """whether a unit with these RUNS did not keep time: a quarter or
    more of them late (module doc)"""
    n = sum(late(r) for r in runs)
    return n > 0 and 4 * n >= len(runs)


def perturbed(e):
    """whether the record was stored as perturbed: ingest's verdict on
    its unit (the record's, or its file name's in load()), never judged
    again: older stores, and another LATE_MS, keep their runs as stored"""
    return bool(e.get("perturbed"))


def sound(e):
    """a run the figures take: not lost, within the link, not perturbed"""
    return not e.get("lost") and not e["bounds"] and not perturbed(e)


def record(doc, run, commit, sources, kver):
    """RUN's record for the store"""
    e = entry(doc, run)
    e.update({"contender": contender(e), "seed": run.get("seed", doc.get("seed", 0)),
              "kver": kver, "position": run.get("position"),
              "scale": doc["scale"], "duration": doc["duration"], "kernel": doc["kernel"],
              "commit": commit, "sources": sources, "started": doc.get("started"),
              "wall_s": run.get("wall_s"), "attempts": run.get("attempts", 1),
              "testbed_errors": run.get("testbed_errors", []),
              "counting": run.get("counting"), "sampler_late_ms": run.get("sampler_late_ms"),
              "bounds": bounds(doc, run),
              "ideal": ideal(doc, run)})
    return e


def store_path(store, e):
    """where a run's record goes: by what decides it (the sources' hash,
    the kernel), then the time scale and length, the cell, and the run"""
    return os.path.join(store, e["sources"], e["kver"], f"{e['scale']:g}x-{e['duration']:g}s",
                        f"{e['scenario']}-{e['impairment']}",
                        f"{e['proto']}-{e['contender'].replace(':', '-')}-s{e['seed']}"
                        + (".perturbed" if perturbed(e) else "") + ".json")


def ingest(o):
    """one record per run (and per lost run) of the units (VMs) --input
    names, into --store, whether the VM finished or not (runs.json has the
    runs done); what is there already is kept, and a perturbed run where
    the store has a sound one is not stored (the sound one is the run;
    a perturbed one is kept beside a sound one only where it came first,
    as the record of a run matrix.sh had to repeat)"""
    added = kept = 0
    for path in sorted(p for d in o.input for p in glob.glob(f"{d}/*.json")):
        try:
            doc = json.load(open(path))
        except (OSError, ValueError):
            continue
        if not isinstance(doc, dict) or not doc.get("matrix"):
            continue
        recs = [record(doc, r, o.commit, o.sources, o.kver) for r in doc["runs"]]
        if unit_perturbed(doc["runs"]):
            for e in recs:
                e["perturbed"] = True
        for lost in doc.get("lost", []):
            e = {"scenario": doc["scenario"], "impairment": doc["impair"],
                 "proto": lost["proto"], "baseline": lost["mode"],
                 "estimator_mode": lost["estimator_mode"], "seed": doc.get("seed", 0),
                 "scale": doc["scale"], "duration": doc["duration"], "kernel": doc["kernel"],
                 "commit": o.commit, "sources": o.sources, "kver": o.kver,
                 "started": doc.get("started"), "lost": lost["errors"]}
            e["contender"] = contender(e)
            recs.append(e)
        for e in recs:
            dest = store_path(o.store, e)
            # (where a perturbed run would go as a sound one: there, its
            # unit was run again and the sound run is stored)
            again = store_path(o.store, {**e, "perturbed": False})
            if os.path.exists(dest) or os.path.exists(again):
                kept += 1
                continue
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "w") as f:
                json.dump(e, f, indent=1)
                f.write("\n")
            added += 1
    print(f"matrix-report: {added} runs stored, {kept} already there ({o.store})")


def load(store, sources=None, every=False):
    """the store's records of one measured code: SOURCES, or the newest
    stored (by the runs' start), or EVERY one"""
    recs = {}
    for path in sorted(glob.glob(f"{store}/*/*/*/*/*.json")):
        try:
            e = json.load(open(path))
        except (OSError, ValueError):
            continue
        e["perturbed"] = perturbed(e) or path.endswith(".perturbed.json")
        # one record per run, whatever path it came by; a perturbed run
        # and the sound one that repeated it are two
        recs.setdefault(tuple(e.get(k) for k in KEY) + (e["perturbed"],), e)
    recs = list(recs.values())
    if not recs:
        sys.exit(f"matrix-report: no run stored under {store}")
    if not every:
        if sources is None:
            sources = max(recs, key=lambda e: e.get("started") or "")["sources"]
        recs = [e for e in recs if e["sources"] == sources]
        if not recs:
            sys.exit(f"matrix-report: no run of sources {sources} under {store}")
    return recs


# what makes a run one run of the store (a perturbed one is another:
# load())
KEY = ("sources", "kver", "scale", "duration", "scenario", "impairment", "proto", "contender",
       "seed")


def order(c):
    """a contender's place in the tables: CONTENDERS' order, a contender
    of the paper's start (no +w-ini-qdisc) at its shipped twin's"""
    for k in (c, c + W_INI_QDISC):
        if k in CONTENDERS:
            return (CONTENDERS.index(k), c)
    return (len(CONTENDERS), c)


def fig(v, ci, fmt="{:.1f}", mul=100):
    """a median and its interval ((lo, hi[, coverage])) as text"""
    if v is None:
        return "-"
    t = fmt.format(v * mul)
    if ci:
        t += " [" + fmt.format(ci[0] * mul) + ", " + fmt.format(ci[1] * mul) + "]"
    return t


def summarize(runs, key):
    """the median of KEY over RUNS, its interval (lo, hi, coverage) and n"""
    xs = [key(e) for e in runs]
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    return {"median": stats.median(xs), "ci95": stats.median_ci(xs), "n": len(xs)}


def aggregate(recs):
    """per row (scale, scenario, impairment, proto) and contender: the
    sound runs' figures, the out-of-bounds, perturbed and lost runs
    counted; per row the call (who wins, who ties with the best)"""
    rows = {}
    dflt = default_of({e["contender"] for e in recs})
    for e in recs:
        row = (e["scale"], e["duration"], e["scenario"], e["impairment"], e["proto"])
        c = rows.setdefault(row, {}).setdefault(e["contender"], {"runs": [], "lost": 0,
                                                                 "out_of_bounds": 0,
                                                                 "perturbed": 0})
        # (perturbed before bounds: a unit that did not keep time can
        # measure beyond the link, and is run again)
        if e.get("lost"):
            c["lost"] += 1
        elif perturbed(e):
            c["perturbed"] += 1
        elif e["bounds"]:
            c["out_of_bounds"] += 1
        else:
            c["runs"].append(e)
    out = []
    for row in sorted(rows):
        cells = {}
        for name, c in sorted(rows[row].items(), key=lambda kv: order(kv[0])):
            r = c["runs"]
            cells[name] = {
                "n": len(r), "lost": c["lost"], "out_of_bounds": c["out_of_bounds"],
                "perturbed": c["perturbed"],
                "seeds": sorted(e["seed"] for e in r),
                "p13": summarize(r, p13),
                "shortage": [stats.median([e["shortage"][i] for e in r]) if r else None
                             for i in range(5)],
                "utilization": summarize(r, lambda e: e["utilization"]),
                "p1_owd_p99_ms": summarize(r, lambda e: e["p1_owd_p99_ms"]),
                "p1_owd_p50_ms": summarize(r, lambda e: e["p1_owd_p50_ms"]),
                "w_ratio": summarize(r, lambda e: e["w_ratio"]),
                "cross_bps": summarize(r, lambda e: e["cross_bps"]),
                "bulk_bps": summarize(r, lambda e: e["bulk_bps"]),
            }
        ideal_runs = [e for c in rows[row].values() for e in c["runs"] if e.get("ideal")]
        best = call(cells)
        best.update(wants_more(cells, dflt))
        best["paired"] = paired({k: c["runs"] for k, c in rows[row].items()}, dflt)
        out.append({"scale": row[0], "duration": row[1], "scenario": row[2],
                    "impairment": row[3], "proto": row[4],
                    "ideal_p13": summarize(ideal_runs, lambda e: sum(e["ideal"][:3]) / 3),
                    "contenders": cells, **best})
    return out


# the default configuration as shipped (W from the qdisc's cap) and as
# stores before it ran it (the paper's W_ini), and how close another must
# come for both to want more runs (issue 38: n >= 10 wherever they are
# within 5 points)
DEFAULT = "er2bc:loss+queue" + W_INI_QDISC
PAPER_DEFAULT = "er2bc:loss+queue"
CLOSE, CLOSE_N = 0.05, 10


def default_of(names):
    """the default among contenders NAMES: as shipped where the runs have
    it, else with the paper's start"""
    return DEFAULT if DEFAULT in names else PAPER_DEFAULT


def wants_more(cells, dflt):
    """{"rival": the other contender of the lowest median, "wants_more":
    whether it and the default DFLT are within CLOSE with fewer than
    CLOSE_N runs of either}"""
    d = cells.get(dflt)
    others = {k: v for k, v in cells.items() if k != dflt and v["p13"]}
    if not d or not d["p13"] or not others:
        return {"rival": None, "wants_more": False}
    rival = min(others, key=lambda k: others[k]["p13"]["median"])
    close = abs(d["p13"]["median"] - others[rival]["p13"]["median"]) < CLOSE
    return {"rival": rival,
            "wants_more": close and min(d["n"], others[rival]["n"]) < CLOSE_N}


def paired(runs, dflt):
    """the default DFLT against each other contender, seed by seed (the same
    cross traffic; the same VM where they ran in one unit, as a full
    matrix runs them): {contender: {"median", "ci95", "n"}} of
    the default's shortage (p1-3) less the other's, over the seeds both
    have; a negative interval: the default short less often"""
    mine = {e["seed"]: p13(e) for e in runs.get(dflt, [])}
    out = {}
    for c, rs in runs.items():
        if c == dflt:
            continue
        d = [mine[e["seed"]] - p13(e) for e in rs if e["seed"] in mine]
        if d:
            out[c] = {"median": stats.median(d), "ci95": stats.median_ci(d), "n": len(d)}
    return out


# a win needs its interval below the others' by at least this (a point of
# shortage): intervals of runs that all read 0 separate from [0.3 %, 1 %]
MARGIN = 0.01


def call(cells):
    """{"best": the contender of the lowest median shortage (p1-3),
    "wins": whether its interval lies below every other's by MARGIN,
    "untold": those it is not told apart from}; no call while a
    contender of the row has no interval (fewer than stats.MIN_N runs):
    the missing one could be the best"""
    if len(cells) < 2 or any(not v["p13"] or not v["p13"]["ci95"] for v in cells.values()):
        return {"best": None, "wins": False, "untold": []}
    have = {k: v["p13"] for k, v in cells.items()}
    best = min(have, key=lambda k: have[k]["median"])
    untold = [k for k in have if k != best and
              stats.call(have[best]["ci95"], have[k]["ci95"], MARGIN) != "<"]
    return {"best": best, "wins": not untold, "untold": untold}


def overall(recs, rows, names):
    """per time scale and length, and contender: the mean over the cells
    of its median shortage (p1-3) and its interval (stats.seed_ci: the
    seeds drawn alike for every cell), over the cells where every
    contender of that scale has at least stats.MIN_N runs, so that every
    contender's mean is over the same cells"""
    out = []
    for scale in sorted({(r["scale"], r["duration"]) for r in rows}):
        mine = [r for r in rows if (r["scale"], r["duration"]) == scale]
        here = [c for c in names if any(c in r["contenders"] for r in mine)]
        full = [r for r in mine if all(c in r["contenders"] and
                                       r["contenders"][c]["n"] >= stats.MIN_N for c in here)]
        res = {"scale": scale[0], "duration": scale[1], "cells": len(full),
               "of_cells": len(mine), "contenders": {}}
        for c in here:
            cells = {}
            for r in full:
                key = (r["scenario"], r["impairment"], r["proto"])
                cells[key] = {e["seed"]: p13(e) for e in recs
                              if sound(e)
                              and (e["scale"], e["duration"], e["scenario"], e["impairment"],
                                   e["proto"], e["contender"]) == scale + key + (c,)}
            got = stats.seed_ci(cells)
            if got:
                res["contenders"][c] = {"mean_of_medians": got[0], "ci95": got[1]}
        out.append(res)
    return out


def write_report(o):
    recs = load(o.store, o.sources, o.all)
    rows = aggregate(recs)
    names = sorted({c for r in rows for c in r["contenders"]}, key=order)
    dflt = default_of(names)
    tot = overall(recs, rows, names)
    commits = sorted({e["commit"] for e in recs})
    kernels = sorted({e["kernel"] for e in recs})
    lost = sum(1 for e in recs if e.get("lost"))
    late = [e for e in recs if not e.get("lost") and perturbed(e)]
    oob = [e for e in recs if not e.get("lost") and not perturbed(e) and e["bounds"]]
    os.makedirs(o.out, exist_ok=True)
    with open(f"{o.out}/report.json", "w") as f:
        json.dump({"sources": sorted({e["sources"] for e in recs}), "commits": commits,
                   "kernels": kernels, "command": o.command,
                   "date": datetime.date.today().isoformat(), "runs": len(recs),
                   "lost": lost, "out_of_bounds": len(oob), "perturbed": len(late),
                   "late_ms_limit": LATE_MS, "default": dflt, "rows": rows,
                   "overall": tot},
                  f, indent=1)
        f.write("\n")

    def cname(c):
        return "pfifo" if c == "none" else c.replace(":", " (") + (")" if ":" in c else "")

    md = ["# The robustness matrix", "",
          f"Command: `{o.command}`; commits {', '.join(commits)} "
          f"(sources {', '.join(sorted({e['sources'] for e in recs}))}); kernel "
          f"{', '.join(kernels)}; {datetime.date.today().isoformat()}.", "",
          f"{len(recs)} runs stored; {lost} lost to the testbed (expected 0); "
          f"{len(oob)} measured beyond what the link carries, left out (expected 0); "
          f"{len(late)} runs of units that did not keep time (a quarter or more of a unit's "
          f"runs with the guest's sampler over {LATE_MS} ms late at its 99th percentile), "
          "left out; make matrix runs such a unit again.", "",
          "Per cell, each contender's median shortage of priorities 1-3 over its runs "
          "(TCP over 10 s, UDP over 1 s averages, scenario seconds; a window is short "
          "when it falls short of 400 kbit/s by more than one packet), percent, with its "
          "order-statistic interval (95 %, or the range where n is too small for it: "
          "93.75 % at n = 5) and n. **Bold**: the lowest median, whose interval lies "
          f"below every other's by more than {MARGIN * 100:g} point (a win); *italic*: "
          "the lowest median and the contenders not told apart from it (intervals that "
          "overlap: no difference shown, which at n = 5 is weak evidence of none). No "
          f"call in a cell where a contender has fewer than {stats.MIN_N} runs. "
          "*ideal*: the shortage of a shaper that knows the true ABW (median over the "
          "runs' traces).", "",
          "| cell | ideal |" + "".join(f" {cname(c)} |" for c in names),
          "|---" * (len(names) + 2) + "|"]
    for r in rows:
        line = (f"| {r['scenario']} {r['impairment']} {r['proto'].upper()}"
                + (f" ({r['scale']:g}x, {r['duration']:g} s)"
                   if (r["scale"], r["duration"]) not in ((4, 120), (4, 160)) else "") + " | "
                + (f"{r['ideal_p13']['median'] * 100:.1f} |" if r["ideal_p13"] else "- |"))
        for c in names:
            v = r["contenders"].get(c)
            if not v or not v["n"]:
                line += " |" if not v else (f" lost {v['lost']}, bounds {v['out_of_bounds']}, "
                                            f"perturbed {v['perturbed']} |")
                continue
            t = fig(v["p13"]["median"], v["p13"]["ci95"]) + f" n={v['n']}"
            if c == r["best"] and r["wins"]:
                t = f"**{t}**"
            elif c == r["best"] or c in r["untold"]:
                t = f"*{t}*"
            if v["lost"] or v["out_of_bounds"] or v["perturbed"]:
                t += (f" (lost {v['lost']}, bounds {v['out_of_bounds']}, "
                      f"perturbed {v['perturbed']})")
            line += f" {t} |"
        md.append(line)
    md += ["", "Mean over the cells of each contender's median shortage of priorities 1-3, "
           "percent, with its 95 % bootstrap interval (the seeds drawn alike for every "
           f"cell); per time scale, over the cells where every contender has {stats.MIN_N} "
           "runs or more:", "", "| time scale | cells | contender | mean |", "|---|---|---|---|"]
    for t in tot:
        if not t["contenders"]:
            md.append(f"| {t['scale']:g}x, {t['duration']:g} s | {t['cells']} of "
                      f"{t['of_cells']} | - | - |")
        for c, v in t["contenders"].items():
            md.append(f"| {t['scale']:g}x, {t['duration']:g} s | {t['cells']} of "
                      f"{t['of_cells']} | {cname(c)} | {fig(v['mean_of_medians'], v['ci95'])} |")
    md += ["", "Utilization (median, interval) and the priority-1 probe's one-way delay p99 "
           "(ms, median, interval):", "", "| cell | contender | n | utilization | p1 OWD p99 ms "
           "| shortage p1..p5 (medians) |", "|---|---|---|---|---|---|"]
    for r in rows:
        for c in names:
            v = r["contenders"].get(c)
            if not v or not v["n"]:
                continue
            u, d = v["utilization"], v["p1_owd_p99_ms"]
            md.append(f"| {r['scenario']} {r['impairment']} {r['proto'].upper()} | {cname(c)} | "
                      f"{v['n']} | {fig(u['median'], u['ci95'], '{:.2f}', 1) if u else '-'} | "
                      f"{fig(d['median'], d['ci95'], '{:.0f}', 1) if d else '-'} | "
                      + " ".join(f"{x * 100:.1f}" if x is not None else "-"
                                 for x in v["shortage"]) + " |")
    md += ["", f"The default ({cname(dflt)}) against each other contender, seed by seed "
           "(the same cross traffic; the same VM where they ran in one unit): the median of "
           "the default's shortage (p1-3) less the other's, points, with its interval and n. "
           "Pairing takes out what a seed does to both, so it tells smaller differences apart "
           "than the intervals above; below zero the default is short less often.", "",
           "| cell |" + "".join(f" {cname(c)} |" for c in names if c != dflt),
           "|---" * len(names) + "|"]
    for r in rows:
        line = f"| {r['scenario']} {r['impairment']} {r['proto'].upper()} |"
        for c in names:
            if c == dflt:
                continue
            v = r["paired"].get(c)
            line += (f" {fig(v['median'], v['ci95'], '{:+.1f}')} n={v['n']} |" if v else " |")
        md.append(line)
    more = [r for r in rows if r["wants_more"]]
    if more:
        md += ["", f"Cells where the default ({cname(dflt)}) and the best other contender "
               f"are within {CLOSE * 100:g} points with fewer than {CLOSE_N} runs of either "
               "(run more seeds there):", ""]
        md += [f"- {r['scenario']}/{r['impairment']} {r['proto'].upper()}: "
               f"{cname(dflt)} against {cname(r['rival'])}, n = "
               f"{r['contenders'][dflt]['n']} and {r['contenders'][r['rival']]['n']}"
               for r in more]
    if oob:
        md += ["", "Runs left out, measured beyond what the link carries:", ""]
        md += [f"- {e['scenario']} {e['impairment']} {e['proto']} {e['contender']} seed "
               f"{e['seed']}: {'; '.join(e['bounds'])}" for e in oob]
    if late:
        md += ["", "Runs left out, of units that did not keep time (the sampler's p99 "
               f"lateness, ms; over {LATE_MS} is late):", ""]
        md += [f"- {e['scenario']} {e['impairment']} {e['proto']} {e['contender']} seed "
               f"{e['seed']}: {(e.get('sampler_late_ms') or {}).get('p99', '-')}"
               for e in late]
    text = "\n".join(md) + "\n"
    with open(f"{o.out}/matrix.md", "w") as f:
        f.write(text)

    grid = [[(r["contenders"][c]["p13"]["median"] if c in r["contenders"]
              and r["contenders"][c]["p13"] else float("nan")) for c in names] for r in rows]
    figure, ax = plt.subplots(figsize=(1.3 * len(names) + 3, 0.35 * len(rows) + 1.8))
    im = ax.imshow(grid, cmap="RdYlGn_r", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(names)), [cname(c) for c in names], rotation=30, ha="right",
                  fontsize=8)
    ax.set_yticks(range(len(rows)), [f"{r['scenario']} {r['impairment']} {r['proto'].upper()}"
                                     for r in rows], fontsize=8)
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if v == v:
                c = rows[i]["contenders"][names[j]]
                ci = c["p13"]["ci95"]
                ax.text(j, i, f"{v * 100:.0f}" + (f" [{ci[0] * 100:.0f}-{ci[1] * 100:.0f}]"
                                                  if ci else "") + f"\nn={c['n']}",
                        ha="center", va="center", fontsize=6)
    figure.colorbar(im, ax=ax, label="median shortage, priorities 1-3")
    ax.set_title("Robustness matrix: median shortage of priorities 1-3 (%)")
    figure.tight_layout()
    figure.savefig(f"{o.out}/matrix.png", dpi=100)
    plt.close(figure)
    print(text, end="")


def parallel(o):
    """parallel.sh's levels side by side: per level (units at once), the
    units' wall time, the sampler's lateness and, per protocol and
    contender, the median shortage (p1-3) and the median of each seed's
    difference from the first level's run of the same seed (the same
    cross traffic and order). A level holds where the sampler's p99
    lateness (median over runs) stays under LATE_MS and no paired median
    difference exceeds MOVED points"""
    levels = {}
    for d in sorted(glob.glob(f"{o.input}/*/.done")):
        d = os.path.dirname(d)
        recs = [e for e in load(f"{d}/store", every=True)
                if not e.get("lost") and not e["bounds"]]
        if recs:
            levels[int(os.path.basename(d))] = (recs, int(open(f"{d}/wall_s").read()))
    if not levels:
        sys.exit(f"matrix-report: no level measured under {o.input}")
    base = min(levels)
    ref = {(e["proto"], e["contender"], e["seed"]): p13(e) for e in levels[base][0]}
    rows = []
    for lvl, (recs, wall) in sorted(levels.items()):
        late = [e["sampler_late_ms"]["p99"] for e in recs if e.get("sampler_late_ms")]
        units = len({(e["scenario"], e["impairment"], e["seed"]) for e in recs})
        row = {"level": lvl, "units": units, "wall_s": wall,
               "units_per_hour": round(units * 3600 / wall, 2),
               "sampler_p99_late_ms": {"median": stats.median(late), "max": max(late)},
               "runs": len(recs), "p13": {}}
        for key in sorted({(e["proto"], e["contender"]) for e in recs}):
            mine = [e for e in recs if (e["proto"], e["contender"]) == key]
            xs = [p13(e) for e in mine]
            diffs = [p13(e) - ref[key + (e["seed"],)] for e in mine
                     if key + (e["seed"],) in ref]
            row["p13"]["/".join(key)] = {
                "median": stats.median(xs), "n": len(xs),
                "paired_diff_median": stats.median(diffs) if diffs else None,
                "paired_diff_range": [min(diffs), max(diffs)] if diffs else None}
        row["moved"] = [k for k, v in row["p13"].items()
                        if v["paired_diff_median"] is not None
                        and abs(v["paired_diff_median"]) > MOVED]
        row["holds"] = not row["moved"] and row["sampler_p99_late_ms"]["median"] <= LATE_MS
        rows.append(row)
    os.makedirs(o.out, exist_ok=True)
    with open(f"{o.out}/parallel.json", "w") as f:
        json.dump({"date": datetime.date.today().isoformat(), "base_level": base,
                   "late_ms_limit": LATE_MS, "levels": rows}, f, indent=1)
        f.write("\n")
    keys = sorted({k for r in rows for k in r["p13"]})
    md = ["# Matrix units side by side", "",
          f"{datetime.date.today().isoformat()}; the same cell and seeds at each level. "
          "Per protocol and contender: the median shortage of priorities 1-3 (%), and "
          f"the median of each seed's difference from level {base}'s run of that seed "
          f"(points). A level holds where the sampler's p99 lateness (median over runs) "
          f"stays under {LATE_MS} ms and no paired median difference exceeds {MOVED * 100:g} "
          "points.", "",
          "| at once | units | wall s | units/hour | sampler p99 late ms (median, max) |"
          + "".join(f" {k} |" for k in keys) + " holds |",
          "|---" * (6 + len(keys)) + "|"]
    for r in rows:
        cells = ""
        for k in keys:
            v = r["p13"].get(k)
            if not v:
                cells += " - |"
                continue
            d = v["paired_diff_median"]
            cells += (f" {v['median'] * 100:.1f}"
                      + (f", {d * 100:+.1f} [{v['paired_diff_range'][0] * 100:+.1f}, "
                         f"{v['paired_diff_range'][1] * 100:+.1f}]" if d is not None and
                         r["level"] != base else "") + f" n={v['n']} |")
        md.append(f"| {r['level']} | {r['units']} | {r['wall_s']} | {r['units_per_hour']} | "
                  f"{r['sampler_p99_late_ms']['median']}, {r['sampler_p99_late_ms']['max']} |"
                  + cells + f" {'yes' if r['holds'] else 'no'} |")
    text = "\n".join(md) + "\n"
    with open(f"{o.out}/parallel.md", "w") as f:
        f.write(text)
    print(text, end="")


MOVED = 0.05


def compare(o):
    """two measured codes, cell by cell and contender by contender"""
    a = load(o.store, o.before)
    b = load(o.store, o.after)
    key = ("scale", "duration", "scenario", "impairment", "proto", "contender")
    # --as AFTER=BEFORE: the after code's contender AFTER (a variant, say
    # +w-ini-qdisc) against the before code's BEFORE, seed by seed; the
    # after code's own BEFORE, if it has one, is left out
    pairs = list(getattr(o, "as_", None) or [])
    renamed = dict(pairs)
    twice = sorted(v for v, n in collections.Counter(renamed.values()).items() if n > 1)
    if len(renamed) != len(pairs) or twice:
        sys.exit(f"matrix-report: compare --as: each AFTER and each BEFORE once "
                 f"({', '.join(twice) or 'an AFTER given twice'}): two variants against one "
                 "contender would be pooled")
    for after, before in pairs:
        for code, recs, name in ((o.after, b, after), (o.before, a, before)):
            if not any(e["contender"] == name for e in recs):
                sys.exit(f"matrix-report: compare --as {after}={before}: {code} has no run of "
                         f"{name}")
    groups = {}
    for side, recs in (("before", a), ("after", b)):
        for e in recs:
            if not sound(e):
                continue
            c = e["contender"]
            # (with --as, the after code's BEFORE and the before code's
            # AFTER are not what is compared: left out)
            if side == "after" and c in renamed.values() and c not in renamed:
                continue
            if side == "before" and c in renamed and c not in renamed.values():
                continue
            if side == "after":
                c = renamed.get(c, c)
            k = tuple(e[x] for x in key[:-1]) + (c,)
            groups.setdefault(k, {"before": [], "after": []})[side].append(e)
    shown = {v: f"{v} -> {k}" for k, v in renamed.items()}
    rows = []
    for k in sorted(groups, key=lambda k: k[:5] + order(k[5])):
        g = groups[k]
        if not g["before"] or not g["after"]:
            continue
        # (one code against itself, --as: only the renamed pairs say anything)
        if o.before == o.after and k[-1] not in renamed.values():
            continue
        x, y = summarize(g["before"], p13), summarize(g["after"], p13)
        mine = {e["seed"]: p13(e) for e in g["before"]}
        d = [p13(e) - mine[e["seed"]] for e in g["after"] if e["seed"] in mine]
        verdict = "not told apart"
        if x["ci95"] and y["ci95"]:
            c = stats.call(y["ci95"], x["ci95"], MARGIN)
            verdict = "better" if c == "<" else "worse" if c == ">" else verdict
        else:
            verdict = "too few runs"
        rows.append({**dict(zip(key, k)), "after_contender": g["after"][0]["contender"],
                     "before": x, "after": y,
                     "owd_before": summarize(g["before"], lambda e: e["p1_owd_p99_ms"]),
                     "owd_after": summarize(g["after"], lambda e: e["p1_owd_p99_ms"]),
                     "paired": {"median": stats.median(d), "ci95": stats.median_ci(d),
                                "n": len(d)} if d else None,
                     "verdict": verdict})
    if not rows:
        sys.exit("matrix-report: no cell and contender has runs of both")
    if o.json:
        with open(o.json, "w") as f:
            json.dump({"before": o.before, "after": o.after, "rows": rows}, f, indent=1)
    print(f"Priorities 1-3 short, % (median [order-statistic interval, 95 %, or the range "
          f"where n is too small for it: 93.75 % at n = 5] n), sources {o.before} -> {o.after}; "
          "after - before seed by seed (median [range-type interval]); priority 1's p99 "
          "one-way delay, ms")
    print()
    print("| cell | contender | before | after | after - before, paired | p1 p99 OWD | verdict |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        def ms(v):
            return f"{v['median']:.0f}" if v else "-"
        pd = r["paired"]
        diff = f"{fig(pd['median'], pd['ci95'])} n={pd['n']}" if pd else "-"
        print(f"| {r['scenario']}/{r['impairment']} {r['proto']} {r['scale']:g}x "
              f"| {shown.get(r['contender'], r['contender'])} "
              f"| {fig(r['before']['median'], r['before']['ci95'])} n={r['before']['n']} "
              f"| {fig(r['after']['median'], r['after']['ci95'])} n={r['after']['n']} "
              f"| {diff} | {ms(r['owd_before'])} -> {ms(r['owd_after'])} | {r['verdict']} |")


MIN_N = 5
# the scenario lengths matrix.sh runs (its unit_dur)
DURATION = {"dbhpf": 120.0, "tracking": 160.0}
# the real-time cells and contenders (matrix.sh --realtime's): the cells
# where compression matters, the default against pfifo, cake and static
REALTIME_CELLS = ("dbhpf/loss1", "dbhpf/loss3", "dbhpf/deep", "dbhpf/elastic")
REALTIME_CONTENDERS = ("none", "cake:loss+queue" + W_INI_QDISC, "static:loss+queue" + W_INI_QDISC,
                       "er2bc:loss+queue" + W_INI_QDISC)


def tree_sources():
    """the sources hash of this checkout, as matrix.sh stores its runs"""
    sh = os.path.join(os.path.dirname(os.path.abspath(__file__)), "matrix.sh")
    return subprocess.run(["bash", sh, "--sources"], capture_output=True, text=True,
                          check=True).stdout.strip()


def plan(o):
    """the matrix.sh commands that take a store's runs of one code to the
    evaluation's n (issue 38): every cell's contenders to MIN_N, the
    compressed cells seed by seed as matrix.sh runs them (a run of it
    resumes where the store stops), then CLOSE_N for the default and its
    closest rival wherever they are within CLOSE, those two alone and
    the protocol alone; a cell short of MIN_N is planned to MIN_N first,
    as the medians that decide whether it wants more mean little before.
    The code is this checkout's (what make matrix here runs), or
    --sources, said to need a checkout of its own; the runs are those of
    the scenario lengths matrix.sh runs by default, on --kver."""
    tree = tree_sources()
    sources = o.sources or tree
    recs = [e for e in load(o.store, every=True)
            if e["sources"] == sources and e["kver"] == o.kver
            and e["duration"] == DURATION[e["scenario"]]]
    lines = [f"# sources {sources} on {o.kver}: {len(recs)} runs stored"]
    if sources != tree:
        lines.append(f"# (make matrix in this checkout runs sources {tree}: run these from a "
                     f"checkout of {sources})")
    rows = aggregate(recs) if recs else []
    want = {4: ({f"{s}/{i}" for s in ("dbhpf", "tracking") for i in IMPAIR}, set(CONTENDERS)),
            1: (set(REALTIME_CELLS), set(REALTIME_CONTENDERS))}
    if default_of({e["contender"] for e in recs}) == PAPER_DEFAULT:
        # (a store of the paper's start: its contenders without it)
        want = {k: (cells, {c.replace(W_INI_QDISC, "") for c in names})
                for k, (cells, names) in want.items()}
    # the runs tried and their seeds, per (scale, cell, protocol, contender):
    # a run lost or beyond the link was tried too, and matrix.sh takes its
    # seed as stored; a perturbed one was not (matrix.sh runs it again)
    tried = collections.defaultdict(set)
    for e in recs:
        if perturbed(e):
            continue
        tried[(e["scale"], f"{e['scenario']}/{e['impairment']}", e["proto"],
               e["contender"])].add(e["seed"])
    short = {}
    for scale, (cells, names) in want.items():
        for cell in cells:
            if min(len(tried[(scale, cell, p, c)]) for p in ("tcp", "udp") for c in names) < MIN_N:
                short.setdefault(scale, set()).add(cell)
    for scale in sorted(short, reverse=True):
        cells = " ".join(sorted(short[scale]))
        env = "REALTIME=1 " if scale == 1 else ""
        lines.append(f"# to n = {MIN_N}: {len(short[scale])} cells at {scale:g}x")
        lines.append(f'{env}KVER={o.kver} SEEDS="{" ".join(map(str, range(1, MIN_N + 1)))}" '
                     f'CELLS="{cells}" make matrix')
    more = []
    for r in rows:
        cell = f"{r['scenario']}/{r['impairment']}"
        if not r["wants_more"] or cell in short.get(r["scale"], ()):
            continue
        dflt = default_of(r["contenders"])
        pair = [dflt, r["rival"]]
        # (new seeds, as many as the fewer sound runs lack)
        seen = set().union(*(tried[(r["scale"], cell, r["proto"], c)] for c in pair))
        lack = CLOSE_N - min(r["contenders"][c]["n"] for c in pair)
        seeds = [s for s in range(1, 1000) if s not in seen][:lack]
        env = "REALTIME=1 " if r["scale"] == 1 else ""
        more.append(f'{env}KVER={o.kver} SEEDS="{" ".join(map(str, seeds))}" CELLS="{cell}" '
                    f'PROTOS={r["proto"]} CONTENDERS="{",".join(pair)}" make matrix')
    if more:
        lines.append(f"# to n = {CLOSE_N}: the default and its closest rival within "
                     f"{CLOSE * 100:g} points")
        lines += more
    if not short and not more:
        lines.append(f"# every cell has n >= {MIN_N}, and n >= {CLOSE_N} where the default "
                     f"and its rival are close: nothing to run")
    print("\n".join(lines))


def as_pair(v):
    """compare's --as AFTER=BEFORE: the two contenders' names"""
    after, eq, before = v.partition("=")
    if not eq or not after or not before:
        raise argparse.ArgumentTypeError(
            f"{v!r}: AFTER=BEFORE, two contenders (er2bc:loss+queue+w-ini-qdisc=er2bc:loss+queue)")
    return after, before


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    q = sub.add_parser("parallel")
    q.add_argument("--input", required=True)
    q.add_argument("--out", required=True)
    i = sub.add_parser("ingest")
    i.add_argument("--input", required=True, nargs="+")
    i.add_argument("--store", required=True)
    i.add_argument("--commit", required=True)
    i.add_argument("--sources", required=True)
    i.add_argument("--kver", required=True)
    r = sub.add_parser("report")
    r.add_argument("--store", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--command", required=True)
    g = r.add_mutually_exclusive_group()
    g.add_argument("--sources", default=None)
    g.add_argument("--all", action="store_true")
    c = sub.add_parser("compare")
    c.add_argument("--store", required=True)
    c.add_argument("--before", required=True)
    c.add_argument("--after", required=True)
    c.add_argument("--json", default=None)
    c.add_argument("--as", dest="as_", action="append", default=[], metavar="AFTER=BEFORE",
                   type=as_pair, help="compare the after code's contender AFTER with the "
                   "before code's BEFORE (repeatable)")
    p = sub.add_parser("plan")
    p.add_argument("--store", required=True)
    p.add_argument("--sources", default=None)
    p.add_argument("--kver", default="6.12")
    o = ap.parse_args()
    if o.cmd == "plan":
        plan(o)
    elif o.cmd == "ingest":
        ingest(o)
    elif o.cmd == "compare":
        compare(o)
    elif o.cmd == "parallel":
        parallel(o)
    else:
        write_report(o)


if __name__ == "__main__":
    main()
