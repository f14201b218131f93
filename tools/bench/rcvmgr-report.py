#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The tcp_rcvmgr benchmark's table (rcvmgr-bench.sh): what the guest
measured (one JSON object a line): the thesis' scenario 1 (seed 004,
section 4), time-compressed, per policy, and the hooks' per-packet cost.
Only measured values: a part not run is left out (and said so)."""
import argparse
import datetime
import json
import statistics

POLICIES = ("off", "spring", "equal", "azuma")

def note(shape):
    """What was run, for a scenario of SHORTS transfers at mean GAP after
    WARMUP s with tcp_rcvmgr's INTERVAL: the paper's shape or a compressed one."""
    shorts, gap, warmup, interval = shape
    paper = (shorts, gap, warmup, interval) == (100, 5.0, 100.0, 5000)
    how = ("at the thesis' length: 100 short transfers (30 KB) starting 100 s "
           "after the bulk flows at random gaps of mean 5 s (exponential, seed 4, "
           "the same for every policy); tcp_rcvmgr's interval 5 s" if paper else
           f"but the short transfers (30 KB) are {shorts}, not 100, start "
           f"{warmup:g} s after the bulk flows, not 100 s, and arrive at random gaps "
           f"of mean {gap:g} s (exponential, seed 4, the same for every policy), "
           f"not 5 s; tcp_rcvmgr's interval is {interval / 1000:g} s, not 5 s")
    return ("Scenario 1 of the thesis (seed 004, section 4)"
            f"{'' if paper else ', time-compressed'}: "
            "4 Mbit/s access link (tbf on the WAN router toward the gateway, "
            "128 KB buffer), three bulk senders at 35/45/55 ms one way and a "
            f"short sender at 10 ms, as in the thesis; {how}; "
            "the measurement window runs from the first short transfer's start to "
            "the last one's end; utilization is the tbf's dequeued bytes (with "
            "Ethernet headers, as tbf counts them) over 4 Mbit/s times the window; "
            "the queue is the tbf's backlog sampled every 100 ms (one tc -batch "
            "process); one run per policy; QEMU guest (TCG, real time), namespaces and "
            "veths, netem for the delays; the bulk flows' Jain fairness is over the "
            "bytes the gateway forwarded from each bulk sender in the window (nft "
            "counters).")


def pct(v, q):
    if not v:
        return None
    v = sorted(v)
    k = (len(v) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(v) - 1)
    return round(v[lo] + (v[hi] - v[lo]) * (k - lo), 3)


def plots(pol, prefix):
    """CDFs of the short transfers' connection setup and transfer times per
    policy, as the thesis' Fig. 8."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    for key, what in (("short_connect_s", "connection establishment"),
                      ("short_transfer_s", "transfer (30 KB)")):
        fig, ax = plt.subplots(figsize=(6, 4))
        for p in POLICIES:
            v = sorted(pol.get(p, {}).get(key) or [])
            if v:
                ax.step(v, [(i + 1) / len(v) for i in range(len(v))], where="post",
                        label=p if p != "off" else "plain TCP")
        ax.set_xlabel(f"{what} time, s")
        ax.set_ylabel("CDF")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(f"{prefix}-{key.split('_')[1]}.png", dpi=100)
        plt.close(fig)


def main():
    ap = argparse.ArgumentParser()
    for k in ("kver", "input", "json", "md"):
        ap.add_argument("--" + k, required=True)
    ap.add_argument("--runtime", type=int, default=0)
    ap.add_argument("--command", default=None)
    ap.add_argument("--plots", default=None,
                    help="PREFIX: CDFs of the short transfers to PREFIX-{connect,transfer}.png")
    o = ap.parse_args()
    rows = [json.loads(line) for line in open(o.input) if line.strip()]
    by = lambda part: [r for r in rows if r.get("part") == part]  # noqa: E731

    res = {
        "kernel": o.kver,
        "date": datetime.date.today().isoformat(),
        "command": o.command or f"make bench-rcvmgr KVER={o.kver}",
        "runtime_s": o.runtime,
    }
    scen = {r["policy"]: r for r in by("scenario")}
    first = next(iter(scen.values()), {})
    shape = (first.get("shorts", 20), first.get("gap_mean_s", 1.0),
             first.get("warmup_s", 10.0), first.get("interval_ms", 1000))
    res["note"] = note(shape)
    res["shape"] = dict(zip(("shorts", "gap_mean_s", "warmup_s", "interval_ms"), shape))
    pol = {}
    for p in POLICIES:
        r = scen.get(p)
        if not r:
            continue
        pol[p] = {
            "short_p50_s": pct(r["short_transfer_s"], 0.5),
            "short_p90_s": pct(r["short_transfer_s"], 0.9),
            "short_connect_p50_s": pct(r["short_connect_s"], 0.5),
            "short_connect_p90_s": pct(r["short_connect_s"], 0.9),
            "short_done": len(r["short_transfer_s"]),
            "short_failed": r["short_failed"],
            "utilization": r["utilization"],
            "queue_kb": r["queue_kb"],
            "queue_max_kb": r["queue_max_kb"],
            "window_s": r["window_s"],
            "bulk_jain": r.get("bulk_jain"),
            "bulk_bytes": r.get("bulk_bytes"),
            "short_transfer_s": r["short_transfer_s"],
            "short_connect_s": r["short_connect_s"],
        }
        if r.get("options"):
            pol[p]["options"] = r["options"]
        st = r.get("rcvmgr_stats") or {}
        # er2bcctl -j rcvmgr stats' keys (B: budget_bytes, "budget" in runs
        # before it named its unit), each under the report's own name
        for k, name in (("budget_bytes", "budget"), ("budget", "budget"),
                        ("budget_up", "budget_up"), ("budget_down", "budget_down"),
                        ("probes", "probes"), ("intervals", "intervals"),
                        ("rewritten", "rewritten")):
            if k in st:
                pol[p].setdefault("rcvmgr_" + name, st[k])
    if pol:
        res.update(pol)
    # the goal: the median short transfer at least 80 % below plain
    # TCP's, the access link at least 95 % used (the thesis: up to about 90 %)
    if "off" in pol and pol["off"]["short_p50_s"]:
        for p in pol:
            if p != "off" and pol[p]["short_p50_s"] is not None:
                pol[p]["short_p50_reduction"] = round(
                    1 - pol[p]["short_p50_s"] / pol["off"]["short_p50_s"], 3)

    cost = {}
    tracked = {}
    packets = {}
    seen = {}
    ctcount = {}
    for r in by("cost"):
        key = (r["variant"], r["conns"])
        cost.setdefault(key, []).append(r["ns_per_packet"])
        tracked[key] = r["tracked"]
        packets[key] = r["packets"]
        seen[key] = r.get("acks_seen")
        ctcount[key] = r.get("conntrack")
    med = {k: round(statistics.median(v), 1) for k, v in cost.items()}
    base = med.get(("unloaded", 1))
    flood = {r["variant"]: r["ns_per_syn"] for r in by("flood")}
    if med:
        res["cost_ns_per_packet"] = {f"{v}/{n}": m for (v, n), m in sorted(med.items())}
        res["cost_runs"] = {f"{v}/{n}": cost[(v, n)] for (v, n) in sorted(cost)}
        res["cost_tracked_conns"] = {f"{v}/{n}": tracked[(v, n)] for (v, n) in sorted(tracked)}
        res["cost_module_acks_seen"] = {f"{v}/{n}": seen[(v, n)] for (v, n) in sorted(seen)}
        res["cost_method"] = (
            "QEMU -icount shift=0, one vCPU: guest ns count instructions. One tracked "
            "connection's pure ACK replayed by an AF_PACKET socket on the receiver's veth, "
            "forwarded by the gateway to the sender; guest time of the send loop per packet "
            "(median of 5 runs of 20000), which includes the Python loop, the syscall, veth, "
            "forwarding and the sender's TCP. module_adds = azuma (wan eth0, conntrack off) "
            "minus wan-none at the same connections: the module's hook on the gateway's "
            "forward (lookup, window rewrite); the median leaves out the interval's walk "
            "of the module's table, which at most one run of the five meets (a run lasts "
            "about 0.2 s of guest time, the interval 5 s): azuma_walk_instructions is the "
            "largest azuma run's excess over the median, times its packets; wan none leaves the module loaded with no hooks and an "
            "empty table, the N connections still in the sockets' tables (the module "
            "registers no hooks in the other namespaces, which are not configured). "
            "conntrack_adds = the same packets with an nft rule "
            "matching ct state on the gateway's forward hook minus without it, the module "
            "present with wan none (at 1 connection: conntrack minus unloaded); both include "
            "the nft rule's own cost, measured alone as nft/1 (a rule that matches the "
            "protocol, not ct). The replayed ACK's checksum is computed afresh (the capture "
            "holds veth's partial one). The 10, "
            "10000 and 100000 are connections held open by sockets through the gateway, in "
            "the module's table (cost_tracked_conns) and in conntrack's.")
        if base is not None:
            res["baseline_ns_per_packet"] = base
            adds, ct, total, walk = {}, {}, {}, {}
            if ("conntrack", 1) in med:
                ct["1"] = round(med[("conntrack", 1)] - base, 1)
            for n in (10, 10000, 100000):
                # both measured the same way: beside wan-none at the same
                # connections (held in the sockets' and conntrack's tables)
                if ("azuma", n) in med and ("wan-none", n) in med:
                    adds[str(n)] = round(med[("azuma", n)] - med[("wan-none", n)], 1)
                if ("wan-none+ct", n) in med and ("wan-none", n) in med:
                    ct[str(n)] = round(med[("wan-none+ct", n)] - med[("wan-none", n)], 1)
                if ("azuma", n) in med:
                    total[str(n)] = round(med[("azuma", n)] - base, 1)
                    runs = cost[("azuma", n)]
                    walk[str(n)] = round((max(runs) - med[("azuma", n)]) * packets[("azuma", n)])
            if adds:
                res["module_adds_ns_per_packet"] = adds
            if total:
                res["azuma_minus_unloaded_ns_per_packet"] = total
            if walk:
                res["azuma_walk_instructions"] = walk
            if ct:
                res["conntrack_adds_ns_per_packet"] = ct
            ratio = {n: round(adds[n] / ct[n], 2) for n in adds if ct.get(n)}
            if ratio:
                res["module_over_conntrack"] = ratio
    if flood:
        res["flood_ns_per_syn"] = flood
        if "unloaded" in flood:
            res["flood_adds_ns_per_syn"] = {v: round(x - flood["unloaded"], 1)
                                            for v, x in flood.items() if v != "unloaded"}
    json.dump(res, open(o.json, "w"), indent=1)

    f = lambda v: "-" if v is None else str(v)  # noqa: E731
    md = [f"# tcp_rcvmgr, the thesis' scenario 1 ({o.kver}, {res['date']})", "",
          f"`{res['command']}`, {o.runtime} s.", "", res["note"], ""]
    if pol:
        md += ["| | " + " | ".join(p for p in POLICIES if p in pol) + " |",
               "|---|" + "---|" * len(pol)]
        for k, label in (("short_p50_s", "short transfer (30 KB), median, s"),
                         ("short_p90_s", "short transfer, 90th percentile, s"),
                         ("short_connect_p50_s", "short: connection setup, median, s"),
                         ("short_p50_reduction", "median below plain TCP's (goal 0.8; thesis: up to about 0.9)"),
                         ("short_done", f"short transfers completed (of {shape[0]})"),
                         ("utilization", "access-link utilization"),
                         ("queue_kb", "router queue, mean, KB"),
                         ("queue_max_kb", "router queue, max sampled, KB"),
                         ("bulk_jain", "bulk flows' Jain fairness"),
                         ("window_s", "measurement window, s")):
            md.append(f"| {label} | " + " | ".join(f(pol[p].get(k)) for p in POLICIES if p in pol) + " |")
        opts = {p: pol[p]["options"] for p in pol if pol[p].get("options")}
        if opts:
            md += ["", "Options beside the defaults: " +
                   "; ".join(f"{p}: `{v}`" for p, v in opts.items()) + "."]
    else:
        md.append("The scenario was not run.")
    md.append("")
    if med:
        md += ["Per-packet cost, instructions (QEMU -icount shift=0; guest ns; median of 5 "
               "runs of 20000 replayed ACKs of one tracked connection):", "",
               "| variant | connections | tracked | in conntrack | ns/packet | minus unloaded |",
               "|---|---|---|---|---|---|"]
        for (v, n), m in sorted(med.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            md.append(f"| {v} | {n} | {tracked[(v, n)]} | {f(ctcount.get((v, n)))} | {m} | "
                      f"{f(None if base is None else round(m - base, 1))} |")
        adds = res.get("module_adds_ns_per_packet", {})
        ct = res.get("conntrack_adds_ns_per_packet", {})
        if adds or ct:
            md += ["", "What each adds per forwarded ACK (goal: the module at most half of "
                   "conntrack, flat from 10 to 100000 connections):", "",
                   "| connections | tcp_rcvmgr adds | conntrack adds | ratio | azuma minus unloaded |",
                   "|---|---|---|---|---|"]
            total = res.get("azuma_minus_unloaded_ns_per_packet", {})
            for n in ("1", "10", "10000", "100000"):
                if n in adds or n in ct:
                    md.append(f"| {n} | {f(adds.get(n))} | {f(ct.get(n))} | "
                              f"{f(res.get('module_over_conntrack', {}).get(n))} | "
                              f"{f(total.get(n))} |")
            md += ["", "Both measured the same way, against wan-none at the same connections "
                   "(the module loaded, no hooks, its table empty: wan none forgets what the "
                   "hooks learnt; the held connections still in the sockets' and conntrack's "
                   "tables). tcp_rcvmgr adds: azuma minus wan-none, its hook's work per ACK. "
                   "conntrack adds: wan-none+ct minus wan-none. "
                   "Azuma minus unloaded also counts what the held connections cost outside "
                   "both (the sockets' tables and timers). The medians leave out the "
                   "module's walk of its table, once an interval (5 s), which at most one "
                   "run of five meets: the largest azuma run's excess over the median, in "
                   "instructions, " + ", ".join(
                       f"{v} at {n}" for n, v in res.get("azuma_walk_instructions", {}).items())
                   + " connections (millions where a run met a walk, some thousands of "
                   "noise where none did)."]
    else:
        md.append("The hooks' cost was not measured.")
    if flood:
        md += ["", "A SYN flood through the gateway, instructions per spoofed SYN "
               "(synflood, 0.5 s of guest time, about 50000 SYNs, each creating an entry "
               "below the tables' bounds; the sender's cost included):", "",
               "| gateway | ns/SYN | minus nothing |", "|---|---|---|"]
        for v in ("unloaded", "conntrack", "module"):
            if v in flood:
                md.append(f"| {v} | {flood[v]} | "
                          f"{f(res.get('flood_adds_ns_per_syn', {}).get(v))} |")
    open(o.md, "w").write("\n".join(md) + "\n")
    if o.plots and pol:
        plots(pol, o.plots)
    print("\n".join(md))


if __name__ == "__main__":
    main()
