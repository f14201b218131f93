#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The robustness matrix's table and heat map from what matrix.sh's cells
measured (guest.py --matrix).

    matrix-report.py --input build/matrix --results DIR --command CMD [--runtime S]

Writes DIR/matrix.json ({"commit", "kernel", "cells": [...]}, one entry per
scenario, impairment, protocol, baseline and estimator rule), DIR/matrix.md
and DIR/matrix.png; prints the markdown. Per entry:

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
- w_ratio: the mean W over the mean ABW, at the same samples: where
  w_error says how far W strays, w_ratio says to which side (the issue's
  goal for 1 % random loss: at least 0.8);
- cross_bps: what of the cross traffic reached the far gateway;
- bulk_bps: in the elastic cell, what the bulk backup through the gateway
  (a scavenger class in er2bc and static, htb's lowest class, cake's bulk
  tin, pfifo) received: what it took from the others.

Beside them, per scenario, impairment and protocol with a fixed ABW, the
ideal ("ideal" in matrix.json): the shortage, by the same measure, of a
shaper that knows the true ABW at every sample and serves the flows'
necessary rates in priority order, after the priority-1 probe. It is a
reference, not a bound for TCP's 10 s windows (a shaper could serve a
flow more around a dip and lift a window's average); but DBHPF's lowest
steps, 15 s each below what priorities 1-3 need together, no shaper
can fill."""
import argparse
import datetime
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402
from guest import BASELINES as ORDER, CAPACITY, OWD_RATE  # noqa: E402
from owd import LEN as OWD_LEN  # noqa: E402

import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def entry(doc, run):
    scale = doc["scale"]
    s = run["samples"]
    secs = (s["t"][-1] - s["t"][0]) / scale
    got = sum(s["bytes"][-1]) * 8 / secs if secs > 0 else 0
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
    rule = doc["estimator_mode"] if run["mode"] != "none" else None
    return {"scenario": doc["scenario"], "impairment": doc["impair"], "proto": run["proto"],
            "baseline": run["mode"], "estimator_mode": rule,
            "shortage": report.shortage(run, scale, doc["necessary"]),
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
    need, n = doc["necessary"], len(s["bytes"][0])
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


def p13(e):
    return sum(e["shortage"][:3]) / 3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--input", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--command", required=True)
    ap.add_argument("--runtime", type=int, default=0)
    o = ap.parse_args()
    cells, ideals, kernel, scale = [], {}, None, None
    # cells whose VM finished (matrix.sh's .done), not one cut short
    for path in sorted(p for p in glob.glob(f"{o.input}/*/*.json")
                       if os.path.exists(os.path.join(os.path.dirname(p), ".done"))):
        try:
            doc = json.load(open(path))
        except (OSError, ValueError):
            continue
        if not isinstance(doc, dict) or not doc.get("matrix"):
            continue
        kernel, scale = doc["kernel"], doc["scale"]
        cells += [entry(doc, r) for r in doc["runs"]]
        for r in doc["runs"]:
            key = (doc["scenario"], doc["impair"], r["proto"])
            if key not in ideals:
                ideals[key] = ideal(doc, r)
    if not cells:
        sys.exit("matrix-report: no cell measured under " + o.input)
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True,
                            text=True, cwd=os.path.dirname(os.path.abspath(__file__))
                            ).stdout.strip() or "unknown (not a git checkout)"
    os.makedirs(o.results, exist_ok=True)
    with open(f"{o.results}/matrix.json", "w") as f:
        json.dump({"commit": commit, "kernel": kernel, "command": o.command,
                   "date": datetime.date.today().isoformat(), "runtime_s": o.runtime,
                   "scale": scale, "cells": cells,
                   "ideal": [{"scenario": k[0], "impairment": k[1], "proto": k[2],
                              "shortage": v} for k, v in sorted(ideals.items())
                             if v is not None]}, f, indent=1)
        f.write("\n")

    cols = sorted({label(e) for e in cells},
                  key=lambda c: (ORDER.index(c.split()[0]), c))
    rows = sorted({(e["scenario"], e["impairment"], e["proto"]) for e in cells})
    by = {(e["scenario"], e["impairment"], e["proto"], label(e)): e for e in cells}
    md = ["# The robustness matrix (issue 21)", "",
          f"Command: `{o.command}`; commit {commit}; kernel {kernel}; "
          f"{datetime.date.today().isoformat()}; time-compressed {scale:g}x; "
          f"wall time {o.runtime} s.", "",
          "Mean shortage of priorities 1-3 (TCP over 10 s, UDP over 1 s averages), "
          "then utilization and the priority-1 probe's p99 one-way delay (ms). "
          "*ideal*: the shortage of a shaper that knows the true ABW and serves "
          "the necessary rates in priority order (none without a fixed ABW).", "",
          "| cell | ideal |" + "".join(f" {c} |" for c in cols),
          "|---" * (len(cols) + 2) + "|"]
    for r in rows:
        best = ideals.get(r)
        line = (f"| {r[0]} {r[1]} {r[2].upper()} | "
                + (f"{sum(best[:3]) / 3 * 100:.1f}% |" if best else "- |"))
        for c in cols:
            e = by.get(r + (c,))
            line += (f" {p13(e) * 100:.1f}% · {e['utilization']:.2f} · "
                     f"{e['p1_owd_p99_ms'] if e['p1_owd_p99_ms'] is not None else '-'} |"
                     if e else " |")
        md.append(line)
    md += ["", "Per priority (shortage p1..p5), W's error and the cross traffic:", "",
           "| cell | baseline | shortage p1..p5 | W error · W/ABW | cross kbit/s | bulk kbit/s "
           "| p1 OWD p50/p99 ms | p1 probe lost |", "|---|---|---|---|---|---|---|---|"]
    last = None
    for e in sorted(cells, key=lambda e: (e["scenario"], e["impairment"], e["proto"],
                                          ORDER.index(e["baseline"]), label(e))):
        r = (e["scenario"], e["impairment"], e["proto"])
        if r != last and ideals.get(r):
            md.append(f"| {r[0]} {r[1]} {r[2].upper()} | ideal | "
                      + " ".join(f"{x * 100:.1f}%" for x in ideals[r]) + " | - | - | - | - | - |")
        last = r
        bulk = f"{e['bulk_bps'] / 1e3:.0f}" if e["bulk_bps"] is not None else "-"
        md.append(f"| {e['scenario']} {e['impairment']} {e['proto'].upper()} | {label(e)} | "
                  + " ".join(f"{x * 100:.1f}%" for x in e["shortage"])
                  + f" | {e['w_error'] if e['w_error'] is not None else '-'} · "
                  f"{e['w_ratio'] if e['w_ratio'] is not None else '-'} | "
                  f"{e['cross_bps'] / 1e3:.0f} | {bulk} | "
                  f"{e['p1_owd_p50_ms']}/{e['p1_owd_p99_ms']} | {e['p1_probe_lost']} |")
    text = "\n".join(md) + "\n"
    with open(f"{o.results}/matrix.md", "w") as f:
        f.write(text)

    grid = [[(p13(by[r + (c,)]) if r + (c,) in by else float("nan")) for c in cols]
            for r in rows]
    fig, ax = plt.subplots(figsize=(1.3 * len(cols) + 3, 0.35 * len(rows) + 1.8))
    im = ax.imshow(grid, cmap="RdYlGn_r", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)), [f"{a} {b} {c.upper()}" for a, b, c in rows], fontsize=8)
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if v == v:
                ax.text(j, i, f"{v * 100:.0f}", ha="center", va="center", fontsize=7)
    fig.colorbar(im, ax=ax, label="mean shortage, priorities 1-3")
    ax.set_title("Robustness matrix: shortage of priorities 1-3 (%)")
    fig.tight_layout()
    fig.savefig(f"{o.results}/matrix.png", dpi=100)
    plt.close(fig)
    print(text, end="")


if __name__ == "__main__":
    main()
