#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Rates of guest deaths and flag corruptions per guest-hour (make soak).

    soak-report.py [--json] [DIR]

DIR (default Documentation/results/soak) holds a CONFIG.jsonl per
configuration, to which soak.sh appends a line per guest. For each
configuration (and the -cpu model and accelerator its guests really
had): the guests, their
guest-hours (boot to power-off), how many died (panic, double fault: the
console's first lines are in the line's "why"), how many had a vCPU's
flags corrupted without dying, how many logged a user-space segfault or
trap, and the rate of all three per guest-hour with its exact two-sided
95 % (Garwood) Poisson interval: with no event, its upper end (a
one-sided 97.5 % bound) is what "never" means after those hours. Guests
that ran past their time limit with no fault on the console (timeout)
count in the hours, not as events; guests whose soak failed (error)
count in neither.
"""
import json
import math
import os
import sys

EVENTS = ("died", "flags", "segfault")


def poisson_cdf(k, mu):
    """P(X <= k) for X ~ Poisson(mu)"""
    term = total = math.exp(-mu)
    for i in range(1, k + 1):
        term *= mu / i
        total += term
    return total


def solve(f, lo, hi):
    """the root of increasing f on [lo, hi], by bisection"""
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) < 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def poisson_interval(k, conf=0.95):
    """exact (Garwood) interval for the mean of a Poisson count k"""
    a = (1 - conf) / 2
    hi = 10 * (k + 5)
    lower = 0.0 if k == 0 else solve(lambda m: (1 - poisson_cdf(k - 1, m)) - a, 0, hi)
    upper = solve(lambda m: a - poisson_cdf(k, m), 0, hi)
    return lower, upper


def summarise(runs):
    hours = sum(r["seconds"] for r in runs if r["outcome"] != "error") / 3600
    count = {o: sum(r["outcome"] == o for r in runs) for o in EVENTS + ("clean", "timeout", "error")}
    events = sum(count[o] for o in EVENTS)
    lo, hi = poisson_interval(events)
    return {
        "guests": len(runs), "guest_hours": round(hours, 3), **count, "events": events,
        "per_guest_hour": round(events / hours, 3) if hours else None,
        "per_guest_hour_95": [round(lo / hours, 3), round(hi / hours, 3)] if hours else None,
        "first_events": [f'{r["guest"]}: {r["outcome"]}: {r["why"][:300]}'
                         for r in runs if r["outcome"] in EVENTS][:5],
    }


def main(argv):
    as_json = "--json" in argv
    args = [a for a in argv if a != "--json"]
    if len(args) > 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    top = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                            "../../../Documentation/results/soak")
    report = {}
    for f in sorted(os.listdir(top)) if os.path.isdir(top) else []:
        if not f.endswith(".jsonl"):
            continue
        name, path = f[:-len(".jsonl")], os.path.join(top, f)
        groups = {}
        for line in open(path):
            if line.strip():
                r = json.loads(line)
                key = f'{name} ({r.get("accel", "?")}, -cpu {r.get("cpu") or "?"})'
                groups.setdefault(key, []).append(r)
        for key, runs in groups.items():
            report[key] = summarise(runs)
    if as_json:
        json.dump(report, sys.stdout, indent=1)
        print()
        return 0
    if not report:
        print(f"soak: no runs under {top}")
        return 1
    for name, s in report.items():
        if not s["guest_hours"]:
            print(f"{name}: {s['guests']} guests, none ran its workloads")
            continue
        lo, hi = s["per_guest_hour_95"]
        print(f"{name}: {s['guests']} guests, {s['guest_hours']:.2f} guest-hours: "
              f"{s['died']} died, {s['flags']} flags corrupted, {s['segfault']} segfaults"
              f"{', %d timeouts' % s['timeout'] if s['timeout'] else ''}"
              f"{', %d errors' % s['error'] if s['error'] else ''}; "
              f"{s['per_guest_hour']:.2f} per guest-hour (95 % {lo:.2f}-{hi:.2f})")
        for e in s["first_events"]:
            print(f"    {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
