#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The ABW estimator benchmark's table (estimator-bench.sh): what the guest
measured (one JSON object a line), beside the paper's figures (seed 000,
section 3.2 and Fig. 11)."""
import argparse
import datetime
import json
import statistics


def main():
    ap = argparse.ArgumentParser()
    for k in ("kver", "input", "json", "md"):
        ap.add_argument("--" + k, required=True)
    ap.add_argument("--runtime", type=int, default=0)
    o = ap.parse_args()
    rows = [json.loads(line) for line in open(o.input) if line.strip()]
    by = lambda part: [r for r in rows if r.get("part") == part]  # noqa: E731

    over = {r["mode"]: r for r in by("overhead")}
    queue = by("queue")[0]
    steps = by("step")
    series = (by("series") or [{}])[0]
    delays = [s["tracking_delay_s"] for s in steps if s["tracking_delay_s"] is not None]
    overs = [s["overshoot_bps"] for s in steps if s["overshoot_bps"] is not None]
    unders = [s["undershoot_bps"] for s in steps if s["undershoot_bps"] is not None]
    cost = {}
    for r in by("qdisc") + by("meter"):
        cost.setdefault((r["part"], r["variant"]), []).append(r["ns_per_packet"])
    med = {k: statistics.median(v) for k, v in cost.items()}

    def extra(part, variant):
        if (part, variant) in med and (part, "off") in med:
            return round(med[(part, variant)] - med[(part, "off")], 1)
        return None

    res = {
        "kernel": o.kver,
        "date": datetime.date.today().isoformat(),
        "command": f"make bench-estimator KVER={o.kver}",
        "runtime_s": o.runtime,
        "bytes_per_estimate": over["plain"]["bytes_per_estimate"],
        "bytes_per_estimate_auth": over["auth"]["bytes_per_estimate"],
        "estimates": queue["estimates"],
        "false_losses": queue["false_losses"],
        "lossy_estimates": queue["lossy_estimates"],
        "bottleneck_drops": queue["bottleneck_drops"],
        "utilization": queue["utilization"],
        "tracking_delay_s": round(statistics.median(delays), 2) if delays else None,
        "tracking_delay_max_s": max(delays) if delays else None,
        "steps_not_followed": sum(1 for s in steps if s["tracking_delay_s"] is None),
        "overshoot_bps": max(overs) if overs else None,
        "undershoot_bps": max(unders) if unders else None,
        "steps": steps,
        "hook_cost_ns": {f"{p}/{v}": m for (p, v), m in sorted(med.items())},
        "hook_extra_ns": {
            "qdisc_counting": extra("qdisc", "counting"),
            "qdisc_counting_4_prefixes": extra("qdisc", "counting-4-prefixes"),
            "meter_counting": extra("meter", "counting"),
        },
        "series": series,
        "paper": {"bytes_per_estimate": 88, "tracking_delay_s": "3-5",
                  "overshoot_bps": 300000},
    }
    json.dump(res, open(o.json, "w"), indent=1)

    mbit = lambda v: "-" if v is None else f"{v / 1e6:.3f}"  # noqa: E731
    md = [f"# ABW estimator benchmark ({o.kver}, {res['date']})", "",
          f"`{res['command']}`, {o.runtime} s. Paper: seed 000, section 3.2 and Fig. 11.", "",
          "| measure | er2bc-abwd | paper |", "|---|---|---|",
          f"| bytes per estimate, IPv4 (request + response) | {res['bytes_per_estimate']} | 88 |",
          f"| ... authenticated (HMAC-SHA-256/128) | {res['bytes_per_estimate_auth']} | - |",
          f"| false losses in {res['estimates']} estimates, standing queue, "
          f"utilization {res['utilization']} | {res['false_losses']} "
          f"({res['lossy_estimates']} lossy, bottleneck dropped {res['bottleneck_drops']}) | - |",
          f"| tracking delay to W within 10 % of the new ABW, median (max) over {len(steps)} steps | "
          f"{res['tracking_delay_s']} s ({res['tracking_delay_max_s']} s) | 3-5 s |",
          f"| overshoot / undershoot once within 10 %, max, Mbit/s | {mbit(res['overshoot_bps'])} / "
          f"{mbit(res['undershoot_bps'])} | about 0.3 |", "",
          "| step | ABW, Mbit/s | delay, s | mean W after, Mbit/s | over / under, Mbit/s |",
          "|---|---|---|---|---|"]
    for i, s in enumerate(steps, 1):
        md.append(f"| {i} (t = {s['at']} s) | {s['from'] / 1e6:.2f} -> {s['to'] / 1e6:.2f} | "
                  f"{s['tracking_delay_s']} | {mbit(s['mean_w'])} | "
                  f"{mbit(s['overshoot_bps'])} / {mbit(s['undershoot_bps'])} |")
    md += ["", "Per-packet cost of the counting, instructions (QEMU -icount shift=0; "
           "median of 2 runs of 200000 packets):", "",
           "| path | off | counting | extra |", "|---|---|---|---|"]
    for part, variants in (("qdisc", ("counting", "counting-4-prefixes")), ("meter", ("counting",))):
        for v in variants:
            md.append(f"| {part} {v} | {med.get((part, 'off'))} | {med.get((part, v))} | "
                      f"{extra(part, v)} |")
    open(o.md, "w").write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
