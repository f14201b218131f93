#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The table of make bench-ctrl (see ctrl-bench.sh): markdown on stdout and
to --md, JSON to --json, from what ctrl-bench-guest.sh wrote."""

import argparse
import json
import math
import re
import sys


def pctl(samples, p):
    """The p-th percentile, nearest rank."""
    s = sorted(samples)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)]


def us(ns):
    return round(ns / 1000, 1)


def fmt(x):
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:.1f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kver", required=True)
    ap.add_argument("--clock", required=True)
    ap.add_argument("--runtime", type=int, default=0)
    ap.add_argument("--input", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--md", required=True)
    a = ap.parse_args()

    with open(a.input) as f:
        recs = [json.loads(line) for line in f if line.strip()]
    head = next(r for r in recs if r["kind"] == "head")
    by = {}
    for r in recs:
        if "n" in r:
            by.setdefault(r["n"], {})[r["kind"]] = r

    rows, problems = [], []
    for n in sorted(by):
        k = by[n]
        if not all(x in k for x in ("er2bc", "htb", "htb_netlink", "tc_startup")):
            problems.append(f"{n} classes: incomplete")
            continue
        e, h, t = k["er2bc"]["data"], k["htb"]["data"], k["tc_startup"]["data"]
        hn = k["htb_netlink"]["data"]
        row = {
            "classes": n,
            "apply_p50_us": us(pctl(e["apply_ns"], 50)),
            "apply_p99_us": us(pctl(e["apply_ns"], 99)),
            "cost_p50_us": us(pctl(e["cost_ns"], 50)),
            "cost_p99_us": us(pctl(e["cost_ns"], 99)),
            "htb_tc_p50_us": us(pctl(h["exec_ns"], 50)),
            "htb_tc_p99_us": us(pctl(h["exec_ns"], 99)),
            "estimates": e["estimates"],
            "apply_monitor_p50_us": us(pctl(e["apply_monitor_ns"], 50)),
            "apply_monitor_p99_us": us(pctl(e["apply_monitor_ns"], 99)),
            "apply_min_us": us(min(e["apply_ns"])),
            "cost_min_us": us(min(e["cost_ns"])),
            "htb_tc_runs": h["runs"],
            "htb_tc_min_us": us(min(h["exec_ns"])),
            "htb_netlink_p50_us": us(pctl(hn["netlink_ns"], 50)),
            "htb_netlink_p99_us": us(pctl(hn["netlink_ns"], 99)),
            "htb_netlink_runs": hn["runs"],
            "tc_startup_p50_us": us(pctl(t["exec_ns"], 50)),
            "tc_startup_p99_us": us(pctl(t["exec_ns"], 99)),
            "w_bps": e["w"],
            "guaranteed_bps": e["guaranteed"],
        }
        row["htb_over_er2bc_p50"] = round(row["htb_tc_p50_us"] / row["apply_p50_us"], 1)
        row["htb_minus_startup_p50_us"] = round(row["htb_tc_p50_us"] - row["tc_startup_p50_us"], 1)
        # the two comparisons without tc's start-up: htb's batch less an
        # empty tc's, and htb's changes sent over netlink as er2bc's are
        row["htb_batch_over_er2bc_p50"] = round(row["htb_minus_startup_p50_us"] / row["apply_p50_us"], 1)
        row["htb_netlink_over_er2bc_p50"] = round(row["htb_netlink_p50_us"] / row["apply_p50_us"], 1)
        if "setup" in k:
            row["setup_er2bc_s"] = round(k["setup"]["er2bc_s"], 2)
            row["setup_htb_s"] = round(k["setup"]["htb_s"], 2)

        # what was measured is what was meant
        if e["classes"] != n:
            problems.append(f"{n} classes: the notifications say {e['classes']} classes")
        if e["guaranteed_changes"] != e["estimates"] - 1:
            problems.append(f"{n} classes: the sum of guarantees changed at "
                            f"{e['guaranteed_changes']} of {e['estimates'] - 1} estimates")
        last = e["warmup"] + 2 * e["estimates"]
        want_cap = e["w"][(last - 1) % 2]
        q = [x for x in k.get("er2bc_qdisc", {}).get("data", []) if x.get("kind") == "er2bc"]
        cap = q[0].get("options", {}).get("cap", q[0].get("cap")) if q else None
        # (tc's JSON: bytes/s, as it prints htb's rates; W is in bit/s)
        cap = cap * 8 if cap is not None else None
        row["cap_after_bps"] = cap
        if cap is not None and cap != want_cap // 8 * 8:
            problems.append(f"{n} classes: cap in force {cap}, the last W was {want_cap}")
        hc = k.get("htb_class")
        if hc:
            # "rate 1562Kbit": tc's rounding, so within 1 %
            m = re.search(r"\brate ([0-9.]+)([KMG]?)bit", hc["show"])
            rate = float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[m.group(2)] \
                if m else None
            want = hc["want_rate_bit"]
            row["htb_rate_after_bit"] = rate
            if rate is None or abs(rate / want - 1) > 0.01:
                problems.append(f"{n} classes: htb class 1:1 rate {rate}, expected {want} bit/s")
        rows.append(row)

    if not rows:
        print("bench-ctrl: no results", file=sys.stderr)
        return 1

    kernel = head["kernel"]
    out = {
        "kernel": kernel,
        "accel": head["accel"],
        "clock": a.clock,
        "cpus": head["cpus"],
        "er2bc_version": head["er2bc_version"],
        "tc": head["tc"],
        "qdisc_idle": True,
        "runtime_s": a.runtime,
        "rows": rows,
        "problems": problems,
    }
    with open(a.json, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")

    icount = "icount" in a.clock
    md = []
    md.append(f"## make bench-ctrl: new guarantees in force, er2bc (kernel) vs htb re-rated\n")
    md.append(f"Kernel {kernel}, QEMU {head['accel'].upper()}"
              f"{' with -icount shift=0' if icount else ''}, {head['cpus']} vCPU; "
              f"er2bc {head['er2bc_version']} (commit of the run in the JSON); {head['tc']}.\n")
    # under -icount shift=0 a guest ns is one instruction: µs are thousands
    unit = "k instructions (= µs)" if icount else "µs"
    md.append(f"Times in {unit}, p50 / p99; ratios of p50s.\n")
    md.append("| classes | er2bc apply | kernel cost | htb via netlink | htb via tc -batch "
              "| tc start-up alone | htb netlink / er2bc | (htb tc − start-up) / er2bc "
              "| htb tc / er2bc | estimates / htb runs |")
    md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        md.append(f"| {r['classes']} "
                  f"| {fmt(r['apply_p50_us'])} / {fmt(r['apply_p99_us'])} "
                  f"| {fmt(r['cost_p50_us'])} / {fmt(r['cost_p99_us'])} "
                  f"| {fmt(r['htb_netlink_p50_us'])} / {fmt(r['htb_netlink_p99_us'])} "
                  f"| {fmt(r['htb_tc_p50_us'])} / {fmt(r['htb_tc_p99_us'])} "
                  f"| {fmt(r['tc_startup_p50_us'])} "
                  f"| {r['htb_netlink_over_er2bc_p50']}× "
                  f"| {r['htb_batch_over_er2bc_p50']}× "
                  f"| {r['htb_over_er2bc_p50']}× "
                  f"| {r['estimates']} / {r['htb_tc_runs']} |")
    md.append("")
    md.append("Notes:")
    if head["accel"] == "tcg":
        md.append("- **Emulated CPU.** These figures come from QEMU TCG (no hardware "
                  "virtualisation) on a 2-core host"
                  + (", with -icount shift=0: guest time counts executed instructions, "
                     "1 ns each (a 1 GHz, one-instruction-per-cycle CPU with no cache "
                     "or memory latency), so runs repeat closely" if icount else "")
                  + ". Absolute values are not native speed; the ratios between columns "
                  "and between class counts are the point.")
    else:
        md.append("- KVM: near native speed, but still a VM.")
    md.append("- **er2bc apply**: `abw-set` sendto() to the netlink ACK, CLOCK_MONOTONIC, one "
              "estimate at a time, W alternating 400/800 Mbit/s with the classes asking "
              "1.5 Gbit/s in all, so every estimate changes guarantees (checked: the sum of "
              "guarantees changed at every estimate). The kernel ACKs only after the new "
              "cap and all guarantees are in force. No listener on the monitor group.")
    md.append("- **kernel cost**: ER2BC_A_QDISC_COST of each `abw-ntf` (the kernel's own "
              "timing of demands + applying, RTNL held), from a second run of as many "
              "estimates with the monitor group joined. Send→ACK in that run, which also "
              "builds and multicasts the notification, is in the JSON (apply_monitor_*).")
    md.append("- **htb via netlink**: the same N class changes as `tc -batch` sends them "
              "(RTM_NEWTCLASS with the htb parameters and rate tables, one message at a "
              "time, each after the previous ACK), from one socket that stays open: htb's "
              "own cost of N new rates, timed from the first sendto() to the last ACK, as "
              "er2bc's apply is. The fair comparison with er2bc: **htb netlink / er2bc**.")
    md.append("- **htb via tc**: the paper's gateway: a user-space controller puts N new "
              "rates in force with one `tc -batch` of N `class change ... htb rate X ceil "
              "1gbit quantum 1514` lines; the whole tc process is timed (fork to exit), so "
              "**tc's start-up is included**: the column *tc start-up alone* is an empty "
              "`tc -batch`. Rates alternate between two sets so that every run changes every "
              "class. p99 of so few runs is their maximum. tc and its libraries run from a copy "
              "in the guest's tmpfs: the VM's root is the host's file system over 9p, whose "
              "lookups at exec would add time that depends on the host's load.")
    md.append("- Classes 1:1..1:N: prio 1 + (i-1) mod 64, every third `type udp`, rate "
              "1.5 Gbit/s / N, under `er2bc rate 1gbit mode er2bc`; htb: the same N leaves "
              "under one 1gbit class. Both created with one `tc -batch` each.")
    md.append("- **The qdiscs were idle** (dummy devices, no traffic): nothing waited on the "
              "qdisc lock; under load, applying also contends with the packet path.")
    if problems:
        md.append("- **Problems seen**: " + "; ".join(problems))
    if a.runtime:
        md.append(f"- Whole run (build, boot, all sizes): {a.runtime // 60} min {a.runtime % 60} s.")
    text = "\n".join(md) + "\n"
    with open(a.md, "w") as f:
        f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
