#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tables of make bench-qdisc (see qdisc-cost.sh): markdown on stdout, JSON
to --json, from what the guests wrote (qdisc-cost-guest.sh: cost.jsonl,
qdisc-rate-guest.sh: rate.jsonl)."""

import argparse
import json
import math
import os
import sys

CLOCK = ("QEMU TCG with -icount shift=0, one vCPU: guest time counts executed "
         "instructions, 1 ns each, so instructions/packet = guest ns/packet and "
         "pps = 1e9 / instructions per packet (packets per guest second). "
         "Wall-clock packet rates under TCG vary by 8-31 % from run to run; "
         "these repeat within the spread measured below. icount models "
         "neither caches nor memory latency.")

PATTERNS = {
    "a0": "all packets to one class, the default class, no filter",
    "a": "all packets to one class, through the filter",
    "b": "packets spread over all classes through the filter (random UDP source port)",
    "c": "backlogged: the device's queue stopped while the load is offered, "
         "then drained with every class active",
}

LENDING = ("g: lending with packets far larger than the quanta: every class borrows "
           "(er2bc: no rate, weight 1; htb: rate 1 kbit/s, ceil C; both a quantum of "
           "1514 bytes), backlogged and drained as in c, frames of 1514 and of 64000 "
           "bytes (a GSO packet's size)")

TARGET_RATIO = 0.5      # er2bc's extra over pfifo, at most this much of htb's
TARGET_FLAT = 0.02      # er2bc's cost from 1 to the most classes: within 2 %
TARGET_RATE = 0.005     # |achieved / configured - 1|


def load(path):
    if not path or not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def pct(x):
    return f"{100 * x:+.2f} %"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kver", required=True)
    ap.add_argument("--packets", type=int, required=True)
    ap.add_argument("--backlog", type=int, required=True)
    ap.add_argument("--seconds", type=int, required=True)
    ap.add_argument("--runtime", type=int, default=0)
    ap.add_argument("--cost")
    ap.add_argument("--rate")
    ap.add_argument("--json", required=True)
    a = ap.parse_args()

    recs = load(a.cost)
    head = next((r for r in recs if "kernel" in r), {})
    kernel = head.get("kernel", a.kver)
    version = head.get("er2bc_version", "unknown")
    unshared = head.get("unshared", 0) == 1
    cells = {}
    repeats = []
    checks = []
    gbacklog = head.get("gbacklog", 0)
    lend_cells = {}
    for r in recs:
        if "qdisc" not in r or r.get("tag") == "warmup":
            continue
        if r["pattern"] == "g":
            ok = (r["packets"] >= gbacklog and r["queued_after_drain"] == 0 and
                  r["errors"] == 0 and r["dequeued"] == r["sent"])
            if not ok:
                checks.append(r)
            lend_cells[(r["qdisc"], r["classes"], r["frame"])] = r
            continue
        if r["pattern"] == "c":
            # drained at least BACKLOG, all of it, and pktgen went on through
            # the running qdisc: its run did not end with the queue stopped
            ok = (r["packets"] >= a.backlog and r["queued_after_drain"] == 0 and
                  r["errors"] == 0 and r["dequeued"] == r["sent"] and
                  (r["after_drain"] > 0 if not unshared else r["after_drain"] == 0))
        else:
            ok = r["packets"] == a.packets and r["errors"] == 0 and r["dequeued"] == a.packets
            if "classes_used" in r and r.get("tag") != "repeat":
                # a0 and a: one class; b: all of them (they add up, a ran first)
                # (b: as many as random ports reach, at least 95 % of those expected)
                n = r["classes"]
                want = 1 if r["pattern"] in ("a0", "a") else 0.95 * n * (1 - math.exp(-a.packets / n))
                ok = ok and (r["classes_used"] == 1 if want == 1 else r["classes_used"] >= want)
        if not ok:
            checks.append(r)
        r["insn"] = r["ns"] / r["packets"] if r["packets"] else float("nan")
        key = (r["qdisc"], r["classes"], r["pattern"])
        if r.get("tag") == "repeat":
            repeats.append(r)
        else:
            cells[key] = r

    classes = sorted({k[1] for k in cells if k[0] != "pfifo"})
    rows = []
    for pat in PATTERNS:
        floor = cells.get(("pfifo", 1, pat))
        nobypass = cells.get(("bfifo", 1, "a" if pat == "a0" else pat))
        for n in classes:
            e, h = cells.get(("er2bc", n, pat)), cells.get(("htb", n, pat))
            if not (e and h and floor):
                continue
            row = {"classes": n, "pattern": pat,
                   "er2bc_pps": round(1e9 / e["insn"]),
                   "htb_pps": round(1e9 / h["insn"]),
                   "pfifo_pps": round(1e9 / floor["insn"]),
                   "er2bc_insn_per_pkt": round(e["insn"], 1),
                   "htb_insn_per_pkt": round(h["insn"], 1),
                   "pfifo_insn_per_pkt": round(floor["insn"], 1)}
            ee, he = e["insn"] - floor["insn"], h["insn"] - floor["insn"]
            row["er2bc_extra"] = round(ee, 1)
            row["htb_extra"] = round(he, 1)
            row["ratio"] = round(ee / he, 3) if he > 0 else None
            row["ratio_target_met"] = row["ratio"] is not None and row["ratio"] <= TARGET_RATIO
            if nobypass:
                # the same, over a fifo that takes the full enqueue/dequeue path
                nb = nobypass["insn"]
                row["bfifo_insn_per_pkt"] = round(nb, 1)
                row["ratio_over_bfifo"] = round((e["insn"] - nb) / (h["insn"] - nb), 3) \
                    if h["insn"] > nb else None
            if pat == "c":
                for name, c in (("er2bc", e), ("htb", h), ("pfifo", floor)):
                    row[f"{name}_fill_insn_per_pkt"] = round(c["fill_ns"] / c["packets"], 1)
                    row[f"{name}_drain_insn_per_pkt"] = round(c["drain_ns"] / c["packets"], 1)
                de = row["er2bc_drain_insn_per_pkt"] - row["pfifo_drain_insn_per_pkt"]
                dh = row["htb_drain_insn_per_pkt"] - row["pfifo_drain_insn_per_pkt"]
                row["drain_ratio"] = round(de / dh, 3) if dh > 0 else None
            row["packets"] = e["packets"]
            rows.append(row)

    flat = {}
    for pat in PATTERNS:
        pr = [r for r in rows if r["pattern"] == pat]
        if len(pr) >= 2:
            lo, hi = pr[0], pr[-1]
            flat[pat] = {
                "from_classes": lo["classes"], "to_classes": hi["classes"],
                "er2bc_change": round(hi["er2bc_insn_per_pkt"] / lo["er2bc_insn_per_pkt"] - 1, 4),
                "htb_change": round(hi["htb_insn_per_pkt"] / lo["htb_insn_per_pkt"] - 1, 4),
                "er2bc_max_change": round(max(r["er2bc_insn_per_pkt"] for r in pr) /
                                          min(r["er2bc_insn_per_pkt"] for r in pr) - 1, 4),
            }
            flat[pat]["er2bc_target_met"] = flat[pat]["er2bc_max_change"] <= TARGET_FLAT

    # what the flow filter costs each qdisc: a (filter) - a0 (default class)
    classifier = []
    for n in classes:
        d = {"classes": n}
        for q in ("htb", "er2bc"):
            x, y = cells.get((q, n, "a")), cells.get((q, n, "a0"))
            if x and y:
                d[q] = round(x["insn"] - y["insn"], 1)
        classifier.append(d)

    # the floor of a classful qdisc: prio classifies as the others do
    # (a0: skb->priority; a: the same filter) and queues to a pfifo, but
    # shapes nothing. What the target leaves for everything else: half of
    # htb's extra, less prio's.
    floor_prio = {}
    for pat in ("a0", "a"):
        pr, pf = cells.get(("prio", 1, pat)), cells.get(("pfifo", 1, pat))
        if not (pr and pf):
            continue
        pe = pr["insn"] - pf["insn"]
        floor_prio[pat] = {"prio_insn_per_pkt": round(pr["insn"], 1), "prio_extra": round(pe, 1),
                           "budget_over_prio": [
                               {"classes": r["classes"],
                                "htb_extra_half": round(r["htb_extra"] / 2, 1),
                                "er2bc_over_prio": round(r["er2bc_extra"] - pe, 1),
                                "budget": round(r["htb_extra"] / 2 - pe, 1)}
                               for r in rows if r["pattern"] == pat]}

    rep = []
    for r in repeats:
        first = cells.get((r["qdisc"], r["classes"], r["pattern"]))
        if first:
            rep.append({"qdisc": r["qdisc"], "classes": r["classes"], "pattern": r["pattern"],
                        "first_insn_per_pkt": round(first["insn"], 1),
                        "second_insn_per_pkt": round(r["insn"], 1),
                        "spread": round(abs(r["insn"] / first["insn"] - 1), 5)})

    acc = load(a.rate)
    for r in acc:
        for k in ("error", "iperf3_error"):
            if k in r:
                r[k] = round(r[k], 5)
        r["target_met"] = "error" in r and abs(r["error"]) < TARGET_RATE

    lending = lending_rows(lend_cells)

    doc = {
        "kernel": kernel,
        "er2bc_version": version,
        "clock": CLOCK,
        "frame_bytes": 64,
        "generator": "pktgen, xmit_mode queue_xmit, dummy device",
        "packets_per_cell": a.packets,
        "backlog_per_cell_c": a.backlog,
        "patterns": PATTERNS,
        "configuration": {
            "htb": "root class 1:ffff rate C ceil C; N leaves rate C/N ceil C quantum 1514, pfifo each",
            "er2bc": "cap C; N classes prio 1 rate C/N (no ceil but the cap), weight 1, pfifo each",
            "bursts": "both alike: 1 ms at each rate, at least 3028 bytes, at most 2^29 bytes",
            "pfifo": "root pfifo, no classifier (bypasses enqueue/dequeue when empty)",
            "bfifo": "root bfifo limit 1000 bytes: never bypasses (a, b only; extra columns)",
            "prio": "root prio, 3 bands, a pfifo each: classifies (a0: skb->priority, a: the filter) "
                    "and queues to a child, shapes nothing (a0, a only; floor_prio)",
            "C": "10 Tbit/s (never binds)",
            "filter": "flow map key src-port divisor N baseclass 1:1 (htb and er2bc alike)",
        },
        "ratio": "(er2bc - pfifo) / (htb - pfifo), instructions per packet",
        "rows": rows,
        "flatness": flat,
        "lending": {"pattern": LENDING, "backlog_per_cell": gbacklog, "rows": lending},
        "filter_cost": classifier,
        "floor_prio": floor_prio,
        "repeatability": rep,
        "accuracy_method": (f"TCP, or UDP (1400-byte datagrams offered at 1.5x the rate), "
                            f"with iperf3, {a.seconds} s after 2 s omitted, through veth "
                            "between two namespaces, one class; real time (no -icount), "
                            "2 vCPUs. achieved_bps: bytes the root qdisc sent (its own counter, "
                            "frames as on the wire), least-squares rate over samples every "
                            "0.1 s of the steady part (queue empty: share of those samples that found "
                            "the qdisc's queue empty; timers late: how late the sampler woke for "
                            "them, the emulated CPUs' timer lateness, which costs a shaper rate; a run "
                            "whose p95 is over 20 ms is done again, up to 3 runs, the last kept: "
                            "runs); "
                            "iperf3_achieved_bps: the receiver's goodput x 1514/1448 (TCP) "
                            "or x 1442/1400 (UDP), whose window includes the run's edges"),
        "accuracy": acc,
        "failed_checks": checks,
        "runtime_seconds": a.runtime,
    }
    with open(a.json, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")

    out = sys.stdout
    print(f"\n## bench-qdisc: {kernel}, er2bc {version}\n", file=out)
    if rows:
        print(f"Cost in instructions per packet: {CLOCK}\n", file=out)
        print(f"pktgen queue_xmit, 64-byte frames, dummy device; {a.packets} packets a cell "
              f"(pattern c: a backlog of {a.backlog}). Extra = cost over pfifo; "
              f"ratio = er2bc's extra / htb's extra (target <= {TARGET_RATIO}).\n", file=out)
        for p, d in PATTERNS.items():
            print(f"- {p}: {d}", file=out)
        cost_tables(out, rows)
        cost_notes(out, flat, classifier, rep)
        floor_notes(out, floor_prio)
    if lending:
        lending_table(out, lending, gbacklog)
    if acc:
        accuracy_table(out, doc, acc)
    targets(out, a, rows, flat, acc, checks)
    return 0


def cost_tables(out, rows):
    print("\n| pattern | classes | pfifo | htb | er2bc | htb extra | er2bc extra | ratio "
          "| er2bc pps | htb pps | pfifo pps | bfifo | ratio over bfifo |", file=out)
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|", file=out)
    for r in rows:
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}" + ("" if r["ratio_target_met"] else " (miss)")
        nb = f"{r['bfifo_insn_per_pkt']:.0f}" if "bfifo_insn_per_pkt" in r else "-"
        rnb = f"{r['ratio_over_bfifo']:.2f}" if r.get("ratio_over_bfifo") is not None else "-"
        print(f"| {r['pattern']} | {r['classes']} | {r['pfifo_insn_per_pkt']:.0f} | "
              f"{r['htb_insn_per_pkt']:.0f} | {r['er2bc_insn_per_pkt']:.0f} | "
              f"{r['htb_extra']:+.0f} | {r['er2bc_extra']:+.0f} | {ratio} | "
              f"{r['er2bc_pps']} | {r['htb_pps']} | {r['pfifo_pps']} | {nb} | {rnb} |", file=out)
    print("\n(Columns pfifo to er2bc extra: instructions per packet. pps: packets per "
          "guest second = 1e9 / instructions. bfifo: a fifo that never bypasses, "
          "to separate the generic enqueue/dequeue path from the schedulers' own cost; "
          "the target is judged against pfifo.)", file=out)
    crow = [r for r in rows if r["pattern"] == "c"]
    if crow:
        print("\nPattern c split: fill (pktgen, classifier, enqueue) + drain (dequeue, "
              "device xmit, free), instructions per packet:\n", file=out)
        print("| classes | pfifo fill+drain | htb fill+drain | er2bc fill+drain | drain ratio |", file=out)
        print("|---:|---:|---:|---:|---:|", file=out)
        for r in crow:
            dr = "-" if r["drain_ratio"] is None else f"{r['drain_ratio']:.2f}"
            print(f"| {r['classes']} | " + " | ".join(
                f"{r[q + '_fill_insn_per_pkt']:.0f} + {r[q + '_drain_insn_per_pkt']:.0f}"
                for q in ("pfifo", "htb", "er2bc")) + f" | {dr} |", file=out)


def lending_rows(cells):
    """Pattern g: each qdisc's drain per packet over pfifo's at the same
    frame size, at 1514 and at 64000 bytes, and what the larger frames add."""
    rows = []
    for n in sorted({k[1] for k in cells if k[0] != "pfifo"}):
        for qd in ("htb", "er2bc"):
            row = {"qdisc": qd, "classes": n}
            for size in (1514, 64000):
                c, floor = cells.get((qd, n, size)), cells.get(("pfifo", 1, size))
                if not (c and floor):
                    break
                d = c["drain_ns"] / c["packets"]
                row[f"drain_insn_per_pkt_{size}"] = round(d, 1)
                row[f"drain_extra_{size}"] = round(d - floor["drain_ns"] / floor["packets"], 1)
            else:
                row["growth"] = round(row["drain_extra_64000"] - row["drain_extra_1514"], 1)
                rows.append(row)
    return rows


def lending_table(out, rows, gbacklog):
    print(f"\nPattern {LENDING}; a backlog of {gbacklog}. Drain (dequeue, device xmit, "
          "free) in instructions per packet, and its extra over pfifo's drain at the same "
          "size; growth: what 64000-byte frames add to the extra:\n", file=out)
    print("| qdisc | classes | drain 1514 B | extra | drain 64000 B | extra | growth |", file=out)
    print("|---|---:|---:|---:|---:|---:|---:|", file=out)
    for r in rows:
        print(f"| {r['qdisc']} | {r['classes']} | {r['drain_insn_per_pkt_1514']:.0f} | "
              f"{r['drain_extra_1514']:+.0f} | {r['drain_insn_per_pkt_64000']:.0f} | "
              f"{r['drain_extra_64000']:+.0f} | {r['growth']:+.0f} |", file=out)


def cost_notes(out, flat, classifier, rep):
    if flat:
        print("\nCost from the fewest to the most classes (target for er2bc: flat, "
              f"within {100 * TARGET_FLAT:.0f} %):\n", file=out)
        for p, f_ in flat.items():
            print(f"- {p}: er2bc {pct(f_['er2bc_change'])} from {f_['from_classes']} to "
                  f"{f_['to_classes']} (largest spread over all counts "
                  f"{100 * f_['er2bc_max_change']:.2f} %), htb {pct(f_['htb_change'])}", file=out)
    if any(len(d) > 1 for d in classifier):
        print("\nWhat the flow filter adds (a - a0), instructions per packet: " + "; ".join(
            f"{d['classes']} classes: htb {d.get('htb', float('nan')):+.0f}, "
            f"er2bc {d.get('er2bc', float('nan')):+.0f}" for d in classifier), file=out)
    if rep:
        print("\nRepeatability, the same cell twice in the same boot:\n", file=out)
        for r in rep:
            print(f"- {r['qdisc']} {r['pattern']} {r['classes']} classes: "
                  f"{r['first_insn_per_pkt']:.1f} then {r['second_insn_per_pkt']:.1f} "
                  f"instructions/packet ({100 * r['spread']:.3f} %)", file=out)


def floor_notes(out, floor_prio):
    if not floor_prio:
        return
    print("\nThe floor of a classful qdisc: prio classifies as the others do (a0: "
          "skb->priority, a: the same flow filter) and queues to a pfifo child, but shapes "
          "nothing and reads no clock. Budget: what the target leaves a qdisc on top of that "
          "(half of htb's extra, less prio's), instructions per packet:\n", file=out)
    print("| pattern | prio extra | classes | half htb extra | budget over prio "
          "| er2bc over prio |", file=out)
    print("|---|---:|---:|---:|---:|---:|", file=out)
    for pat, f_ in floor_prio.items():
        for b in f_["budget_over_prio"]:
            print(f"| {pat} | {f_['prio_extra']:+.0f} | {b['classes']} | {b['htb_extra_half']:.0f} "
                  f"| {b['budget']:+.0f} | {b['er2bc_over_prio']:+.0f} |", file=out)


def accuracy_table(out, doc, acc):
    print(f"\n### Rate accuracy ({doc['accuracy_method']})\n", file=out)
    print("| qdisc | proto | configured | achieved (qdisc counter) | error | queue empty "
          "| timers late p95 / max | runs | achieved (iperf3 goodput) | error |", file=out)
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|", file=out)
    for r in acc:
        miss = "" if r["target_met"] else " (miss)"
        if "achieved_bps" in r:
            dev = (f"{r['achieved_bps'] / 1e6:.4f} Mbit/s | {pct(r['error'])}{miss} | "
                   f"{100 * r['empty_queue_samples']:.0f} % | "
                   f"{r['sampler_late_ms_p95']:g} / {r['sampler_late_ms_max']:g} ms")
        else:
            dev = "- | - | - | -"
        ip3 = (f"{r['iperf3_achieved_bps'] / 1e6:.4f} Mbit/s | {pct(r['iperf3_error'])}"
               if "iperf3_achieved_bps" in r else "- | -")
        print(f"| {r['qdisc']} | {r['proto']} | {r['target_bps'] / 1e6:g} Mbit/s | "
              f"{dev} | {r.get('attempts', 1)} | {ip3} |", file=out)
        if "failure" in r:
            print(f"|  | failure: {r['failure']} | | | | | | | | |", file=out)


def targets(out, a, rows, flat, acc, checks):
    print("\nTargets:", file=out)
    misses = [r for r in rows if not r["ratio_target_met"]]
    print(f"- er2bc's extra at most {TARGET_RATIO} of htb's: met in "
          f"{len(rows) - len(misses)} of {len(rows)} cells" +
          ("" if not misses else "; missed: " + ", ".join(
              f"{r['pattern']}/{r['classes']} ({r['ratio']})" for r in misses)), file=out)
    for p, f_ in flat.items():
        print(f"- flat ({p}): {'met' if f_['er2bc_target_met'] else 'missed'} "
              f"({100 * f_['er2bc_max_change']:.2f} % spread over class counts)", file=out)
    er = [r for r in acc if r["qdisc"] == "er2bc" and "error" in r]
    if er:
        worst = max(er, key=lambda r: abs(r["error"]))
        print(f"- er2bc rate error under {100 * TARGET_RATE} %: "
              f"{sum(r['target_met'] for r in er)} of {len(er)} runs; worst "
              f"{worst['proto']} at {worst['target_bps'] / 1e6:g} Mbit/s: {pct(worst['error'])}", file=out)
    if a.runtime:
        print(f"\nRun time: {a.runtime // 60} min {a.runtime % 60} s (build, both boots).", file=out)
    if checks:
        print(f"\nWARNING: {len(checks)} cells lost or kept packets (see failed_checks "
              f"in {a.json})", file=out)


if __name__ == "__main__":
    sys.exit(main())
