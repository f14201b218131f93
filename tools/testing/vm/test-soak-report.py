#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of the soak's report (soak-report.py): the exact Poisson
interval against published values, and how runs are counted, on
hand-made runs.jsonl files. TAP output."""
import contextlib
import importlib.util
import io
import json
import os
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("soak_report", os.path.join(here, "soak-report.py"))
sr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sr)
sys.path.insert(0, os.path.dirname(here))
from tap import ok, done  # noqa: E402

def near(a, b):
    return abs(a - b) < 5e-4


# Garwood's 95 % limits as tables give them (e.g. Ulm 1990): 0 -> 0-3.689,
# 1 -> 0.0253-5.572, 3 -> 0.619-8.767, 10 -> 4.795-18.390
for k, lo, hi in ((0, 0.0, 3.689), (1, 0.0253, 5.572), (3, 0.619, 8.767), (10, 4.795, 18.390)):
    got = sr.poisson_interval(k)
    ok(near(got[0], lo) and near(got[1], hi), f"Poisson interval of {k}: {lo}-{hi} # {got}")


def run(guest, seconds, outcome, cpu="max,-cx16", why=""):
    return {"config": "c", "guest": guest, "seconds": seconds, "outcome": outcome,
            "why": why, "cpu": cpu, "accel": "tcg"}


with tempfile.TemporaryDirectory() as top:

    runs = [run("g0", 3600, "clean"), run("g1", 1800, "died", why="WARNING: x"),
            run("g2", 900, "flags"), run("g3", 900, "segfault"), run("g4", 1800, "timeout"),
            run("g5", 50, "error"), run("g6", 3600, "clean", cpu="max")]
    with open(os.path.join(top, "c.jsonl"), "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in runs))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        sr.main(["--json", top])
    rep = json.loads(out.getvalue())
    a = rep.get("c (tcg, -cpu max,-cx16)")
    b = rep.get("c (tcg, -cpu max)")
    ok(a is not None and b is not None, "runs grouped by the -cpu model they had")
    ok(a and a["guest_hours"] == 2.5, f"hours: timeouts in, errors out # {a and a['guest_hours']}")
    ok(a and (a["died"], a["flags"], a["segfault"], a["events"]) == (1, 1, 1, 3),
       "a death, a corruption and a segfault are three events; a timeout is none")
    ok(a and near(a["per_guest_hour"], 1.2), f"3 events in 2.5 h: 1.2 per guest-hour # {a and a['per_guest_hour']}")
    ok(a and near(a["per_guest_hour_95"][1], 8.767 / 2.5),
       f"its upper bound is Garwood's over the hours # {a and a['per_guest_hour_95']}")
    ok(b and b["events"] == 0 and near(b["per_guest_hour_95"][1], 3.689),
       "no event in an hour: at most 3.689 per guest-hour")

done()
