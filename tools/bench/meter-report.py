#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The meter benchmark's tables (meter-bench.sh), from what the guest
measured (meter-bench-guest.sh, one JSON object a line): the cost of a
received frame without a meter and with one, and frames a second with
1 to 4 receiving CPUs. Only measured values; a part not run is left out."""
import argparse
import json


def lines(path):
    if not path:
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kver", required=True)
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--cost", default="")
    ap.add_argument("--rate", default="")
    ap.add_argument("--json", required=True)
    a = ap.parse_args()
    cost, rate = lines(a.cost), lines(a.rate)
    out = {"kver": a.kver, "commit": a.commit, "cost": [], "rate": []}
    if cost:
        print(f"The meter's cost, {a.kver}: instructions a received 64-byte frame "
              "(QEMU -icount, one vCPU; pktgen netif_receive, dropped by IP as "
              "another host's)")
        print(f"{'meter':<10}{'runs':>6}{'instr/frame':>14}{'over none':>12}{'counted':>12}"
              f"{'ignored':>12}")
        base = None
        for m in ("none", "counted", "ignored"):
            rows = [r for r in cost if r["meter"] == m]
            if not rows:
                continue
            per = [r["ns"] / r["packets"] for r in rows]
            mean = sum(per) / len(per)
            if m == "none":
                base = mean
            over = "" if base is None or m == "none" else f"{mean - base:+.0f}"
            print(f"{m:<10}{len(rows):>6}{mean:>14.0f}{over:>12}{rows[-1]['counted']:>12}"
                  f"{rows[-1]['ignored']:>12}")
            out["cost"].append({"meter": m, "runs": len(rows),
                                "instructions_per_frame": [round(p, 1) for p in per],
                                "over_none": None if base is None or m == "none"
                                else round(mean - base, 1),
                                "counted": rows[-1]["counted"],
                                "ignored": rows[-1]["ignored"],
                                "frames": rows[-1]["packets"]})
    if rate:
        print()
        print(f"Frames a second received, {a.kver} (real time, TCG: the vCPUs run "
              "in parallel as far as the host's CPUs go)")
        print(f"{'threads':<9}{'none':>12}{'meter':>12}{'meter/none':>12}")
        for n in sorted({r["threads"] for r in rate}):
            rows = {r.get("meter"): r for r in rate if r["threads"] == n}
            if "skipped" in next(iter(rows.values())):
                print(f"{n:<9}  skipped: {next(iter(rows.values()))['skipped']}")
                out["rate"].append({"threads": n,
                                    "skipped": next(iter(rows.values()))["skipped"]})
                continue
            none, met = rows.get("none"), rows.get("counted")
            ratio = met["pps"] / none["pps"] if none and met and none["pps"] else None
            print(f"{n:<9}{none['pps'] if none else '-':>12}{met['pps'] if met else '-':>12}"
                  f"{'' if ratio is None else f'{ratio:.3f}':>12}")
            out["rate"].append({"threads": n, "none_pps": none and none["pps"],
                                "meter_pps": met and met["pps"],
                                "ratio": None if ratio is None else round(ratio, 3)})
    with open(a.json, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
