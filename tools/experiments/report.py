#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Seed 000's tables and figures from what guest.py measured
(gateway-scenario.sh): the ratio of time in shortage per priority (Table 5
for dbhpf, Table 6 for tracking) beside the paper's, the receive rates
(Fig. 11, 12, 14) and the ABW estimates (Fig. 13) as PNG.

    report.py --input SCENARIO.json --results DIR --command CMD [--runtime S]

Writes DIR/table5.{json,md} (dbhpf) or DIR/table6.{json,md} (tracking),
DIR/SCENARIO-runs.json (every sample measured, with the run's metadata)
and DIR/SCENARIO-*.png; prints the markdown."""
import argparse
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from guest import CAPACITY, IP_PACKET, PORTS, TCP_RATE, UDP_LEN, UDP_RATE  # noqa: E402

import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# seed 000, Table 5 and Table 6 (percent)
PAPER5 = {
    "tcp": {"none": [75.7, 69.6, 75.7, 73.9, 86.1], "static": [82.1, 87.9, 90.7, 94.3, 100],
            "er2bc": [0, 32.5, 67.9, 96.1, 100]},
    "udp": {"none": [100, 20.3, 97.2, 62.1, 87.9], "static": [60.7, 70, 79, 91, 97.6],
            "er2bc": [14.5, 37.6, 63.4, 88.3, 98.6]},
}
PAPER6 = {"tcp": [0, 0, 0, 48.2, 100], "udp": [19.2, 19.6, 21.3, 44.7, 95.2]}
MODE_NAME = {"none": "no control", "static": "existing (static)", "er2bc": "eR2BC"}
# the averaging window, in samples of one scenario second (section 4.2)
WINDOW = {"tcp": 10, "udp": 1}


def rates(run, scale, slack=False):
    """Per priority, (scenario time, receive rate in bit/s) over the
    protocol's averaging window, from the cumulative byte counts; with
    SLACK, (time, rate, the rate of one packet over that window). A
    window that begins or ends at a sample without counts (a read that
    failed: None) is left out."""
    s = run["samples"]
    w = WINDOW[run["proto"]]
    t, b = s["t"], s["bytes"]
    first = next((x for x in b if x is not None), None)
    if first is None:
        return []
    pkt = IP_PACKET[run["proto"]] * 8
    out = []
    for i in range(len(first)):
        pr = []
        for n in range(w, len(t)):
            if b[n] is None or b[n - w] is None:
                continue
            secs = (t[n] - t[n - w]) / scale
            r = (b[n][i] - b[n - w][i]) * 8 / secs
            pr.append((t[n], r, pkt / secs) if slack else (t[n], r))
        out.append(pr)
    return out


def shortage(run, scale, necessary, slack=False):
    """per priority, the share of windows whose rate is below NECESSARY
    (Table 5's measure); with SLACK, below it by more than one packet
    over the window: counts of whole packets in a short window put a flow
    received at exactly NECESSARY below it in most windows (at 4x, UDP's
    250 ms holds 10.2 of its packets at 400 kbit/s: 10 in four windows of
    five read 393 kbit/s)"""
    out = []
    for pr in rates(run, scale, slack):
        if slack:
            short = sum(r < necessary - p for _, r, p in pr)
        else:
            short = sum(r < necessary for _, r in pr)
        out.append(round(short / len(pr), 4) if pr else None)
    return out


TOLERANCE = 1.1


def _bits(text):
    return float(text.rstrip("k")) * (1000 if text.endswith("k") else 1)


def offered(proto):
    """what the five flows offer, IP bit/s: iperf3's -b counts the
    payload (UDP: 1200 bytes in 1228; TCP: 1448 in 1500)"""
    if proto == "udp":
        return len(PORTS) * _bits(UDP_RATE) * IP_PACKET["udp"] / UDP_LEN
    return len(PORTS) * _bits(TCP_RATE) * IP_PACKET["tcp"] / 1448


def delivered(run, scale):
    """what the five flows received together, bit/s, between the run's
    first and last samples with counts"""
    s = run["samples"]
    ends = [k for k, x in enumerate(s["bytes"]) if x is not None]
    secs = (s["t"][ends[-1]] - s["t"][ends[0]]) / scale if ends else 0
    return (sum(s["bytes"][ends[-1]]) - sum(s["bytes"][ends[0]])) * 8 / secs if secs > 0 else 0


def bounds(doc, run):
    """what RUN measured beyond what is physically possible, each a
    sentence (none: the run is sound): a flow's rate over its averaging
    window above the link's 5 Mbit/s, the five flows' mean above what
    they offer or the link carries, the bottleneck's output above its
    rate; each with TOLERANCE for the sampler's timing"""
    bad = []
    scale = doc["scale"]
    for i, pr in enumerate(rates(run, scale)):
        top = max((r for _, r in pr), default=0)
        if top > TOLERANCE * CAPACITY:
            bad.append(f"priority {i + 1} at {top / 1e6:.2f} Mbit/s over its window, "
                       f"on a {CAPACITY / 1e6:g} Mbit/s link")
    got = delivered(run, scale)
    limit = min(offered(run["proto"]), CAPACITY)
    if got > TOLERANCE * limit:
        bad.append(f"the flows received {got / 1e6:.2f} Mbit/s, above the "
                   f"{limit / 1e6:.2f} they can (offered or the link)")
    if run.get("seconds") and run.get("r1_bytes") is not None:
        out = run["r1_bytes"] * 8 / run["seconds"]
        if out > TOLERANCE * CAPACITY:
            bad.append(f"the bottleneck sent {out / 1e6:.2f} Mbit/s at {CAPACITY / 1e6:g}")
    return bad


def pct(x):
    return f"{x * 100:.1f}%"


def goals(ours, paper, proto_list):
    """The issue's goal, per protocol: eR2BC's shortage for priorities 1-3
    at or below the paper's eR2BC, and below our static baseline (or both
    zero)."""
    lines = []
    for p in proto_list:
        e, s = ours[p]["er2bc"][:3], ours[p]["static"][:3]
        pe = [v / 100 for v in paper[p]["er2bc"][:3]]
        vs_paper = all(a <= b + 1e-9 for a, b in zip(e, pe))
        vs_static = all(a < b or a == b == 0 for a, b in zip(e, s))
        lines.append(f"- {p.upper()}: priorities 1-3 at or below the paper's eR2BC: "
                     f"{'met' if vs_paper else 'MISSED'} (ours "
                     f"{', '.join(pct(v) for v in e)}; paper "
                     f"{', '.join(pct(v) for v in pe)}); below our static baseline: "
                     f"{'met' if vs_static else 'MISSED'} (static "
                     f"{', '.join(pct(v) for v in s)})")
    return lines


def plot_rates(doc, runs, title, path):
    scale, rf = doc["scale"], doc["necessary"]
    fig, axes = plt.subplots(len(runs), 1, figsize=(9, 2.6 * len(runs)), sharex=True,
                             squeeze=False)
    for ax, (label, run) in zip(axes[:, 0], runs):
        for i, pr in enumerate(rates(run, scale)):
            ax.plot([t for t, _ in pr], [r / 1e3 for _, r in pr], lw=1,
                    label=f"priority {i + 1}")
        ax.axhline(rf / 1e3, color="k", ls="--", lw=0.8)
        ax.set_ylabel("receive rate (kbit/s)")
        ax.set_ylim(0, 800)
        ax.set_title(label, fontsize=10)
    axes[0, 0].legend(ncol=5, fontsize=8, loc="upper right")
    axes[-1, 0].set_xlabel("time (s, scenario)")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_abw(runs, title, path):
    fig, axes = plt.subplots(len(runs), 1, figsize=(9, 2.6 * len(runs)), sharex=True,
                             squeeze=False)
    for ax, (label, run) in zip(axes[:, 0], runs):
        s = run["samples"]
        ax.step(s["t"], [a / 1e3 for a in s["abw"]], where="post", color="k", lw=1,
                label="actual ABW")
        ax.plot([t for t, w in zip(s["t"], s["w"]) if w is not None],
                [w / 1e3 for w in s["w"] if w is not None], lw=1, label="estimated ABW (W)")
        ax.set_ylabel("kbit/s")
        ax.set_ylim(0, 3500)
        ax.set_title(label, fontsize=10)
    axes[0, 0].legend(fontsize=8, loc="upper right")
    axes[-1, 0].set_xlabel("time (s, scenario)")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def tracking_error(run):
    s = run["samples"]
    d = [w - a for w, a in zip(s["w"], s["abw"]) if w is not None]
    return {"mean_kbit": round(sum(d) / len(d) / 1e3, 1),
            "mean_abs_kbit": round(sum(abs(x) for x in d) / len(d) / 1e3, 1),
            "max_over_kbit": round(max(d) / 1e3, 1), "max_under_kbit": round(-min(d) / 1e3, 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--input", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--command", required=True)
    ap.add_argument("--runtime", type=int, default=0)
    o = ap.parse_args()
    doc = json.load(open(o.input))
    name, scale, rf = doc["scenario"], doc["scale"], doc["necessary"]
    # a run measured beyond what the link carries is a counting fault:
    # no table from it
    bad = [f"{r['proto']} {r['mode']}: {x}" for r in doc["runs"] for x in bounds(doc, r)]
    if bad:
        sys.exit("report: runs beyond what the link carries, no table written:\n  "
                 + "\n  ".join(bad))
    os.makedirs(o.results, exist_ok=True)
    meta = {"command": o.command, "kernel": doc["kernel"],
            "date": datetime.date.today().isoformat(), "started": doc["started"],
            "runtime_s": o.runtime, "scale": scale, "duration_s": doc["duration"],
            "compressed": scale != 1}
    runs = {(r["proto"], r["mode"]): r for r in doc["runs"]}
    protos = [p for p in ("tcp", "udp") if any(k[0] == p for k in runs)]
    how = (f"time-compressed {scale:g}x ({doc['duration']:g} scenario s in "
           f"{doc['duration'] / scale:g} s a run)" if scale != 1
           else f"full length ({doc['duration']:g} s a run)")
    md = [f"Command: `{o.command}`; kernel {doc['kernel']}; {meta['date']}; {how}; "
          f"wall time {o.runtime} s.", ""]

    if name == "dbhpf":
        table = {p: {m: shortage(runs[(p, m)], scale, rf) for m in ("none", "static", "er2bc")
                     if (p, m) in runs} for p in protos}
        out, paper = "table5", PAPER5
        md = ["# Table 5 (seed 000): ratio of time in shortage, DBHPF scenario", ""] + md
        md.append("Ours / the paper's. TCP: receive rate averaged over 10 s; UDP: over 1 s "
                  "(scenario seconds); shortage: below 400 kbit/s (IP bytes, D's nft counters).")
        md.append("")
        head = "| priority |" + "".join(f" {p.upper()} {MODE_NAME[m]} |"
                                        for p in protos for m in table[p])
        md += [head, "|---" * (1 + sum(len(table[p]) for p in protos)) + "|"]
        for i in range(5):
            md.append(f"| {i + 1} |" + "".join(
                f" {pct(table[p][m][i])} / {paper[p][m][i]}% |" for p in protos for m in table[p]))
        if all(set(table[p]) == {"none", "static", "er2bc"} for p in protos):
            md += ["", "Goals:"] + goals(table, paper, protos)
        for p in protos:
            plot_rates(doc, [(MODE_NAME[m], runs[(p, m)]) for m in ("none", "static", "er2bc")
                             if (p, m) in runs],
                       f"DBHPF: receive rate of {p.upper()} flows "
                       f"({'10 s' if p == 'tcp' else '1 s'} averages)",
                       f"{o.results}/dbhpf-{p}.png")
        est = [(f"{p.upper()}, {MODE_NAME[m]}", runs[(p, m)]) for p in protos
               for m in ("static", "er2bc") if (p, m) in runs]
        plot_abw(est, "DBHPF: estimated and actual ABW", f"{o.results}/dbhpf-abw.png")
        meta["estimate_error"] = {f"{p}-{m}": tracking_error(runs[(p, m)])
                                  for p in protos for m in ("static", "er2bc") if (p, m) in runs}
    else:
        table = {p: shortage(runs[(p, "er2bc")], scale, rf) for p in protos}
        out, paper = "table6", PAPER6
        md = ["# Table 6 (seed 000): ratio of time in shortage, tracking scenario (eR2BC)",
              ""] + md
        md += ["Ours / the paper's.", "", "| | p1 | p2 | p3 | p4 | p5 |", "|---|---|---|---|---|---|"]
        for p in protos:
            md.append(f"| {p.upper()} |" + "".join(f" {pct(table[p][i])} / {paper[p][i]}% |"
                                                  for i in range(5)))
        meta["estimate_error"] = {p: tracking_error(runs[(p, "er2bc")]) for p in protos}
        md += ["", "Estimated minus actual ABW (kbit/s): " + "; ".join(
            f"{p.upper()} mean {e['mean_kbit']}, mean absolute {e['mean_abs_kbit']}, "
            f"largest over {e['max_over_kbit']}, largest under {e['max_under_kbit']}"
            for p, e in meta["estimate_error"].items())]
        plot_abw([(p.upper(), runs[(p, "er2bc")]) for p in protos],
                 "Tracking: estimated and actual ABW (eR2BC)", f"{o.results}/tracking-abw.png")
        plot_rates(doc, [(f"{p.upper()} ({'10 s' if p == 'tcp' else '1 s'} averages)",
                          runs[(p, "er2bc")]) for p in protos],
                   "Tracking: receive rates under eR2BC", f"{o.results}/tracking-rates.png")

    with open(f"{o.results}/{out}.json", "w") as f:
        json.dump(table, f, indent=1)
        f.write("\n")
    doc["meta"] = meta
    with open(f"{o.results}/{name}-runs.json", "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    text = "\n".join(md) + "\n"
    with open(f"{o.results}/{out}.md", "w") as f:
        f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
