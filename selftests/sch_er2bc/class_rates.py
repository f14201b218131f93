#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What each class of DEV sends over WINDOW seconds, in bit/s, as JSON.

  class_rates.py DEV WINDOW

Both counter snapshots come from one `tc -s -batch` process that is already
running: a command written to it is carried out at once, so the time it is
written is the time of the snapshot. (Forking tc per snapshot costs 0.1-1 s
under TCG, with a start-up that varies enough to skew a 10 s window by 4 %.)
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tc_class_stats import parse  # noqa: E402

dev, window = sys.argv[1], float(sys.argv[2])
cmd = f"class show dev {dev}\n".encode()
tc = subprocess.Popen(["tc", "-s", "-batch", "-"], stdin=subprocess.PIPE,
                      stdout=subprocess.PIPE)
# a first command loads tc's plugin before anything is timed
tc.stdin.write(cmd)
tc.stdin.flush()
time.sleep(0.5)
tc.stdin.write(cmd)
tc.stdin.flush()
t0 = time.monotonic()
time.sleep(window)
tc.stdin.write(cmd)
tc.stdin.flush()
t1 = time.monotonic()
out, _ = tc.communicate()
dumps = parse(out.decode().splitlines())
if len(dumps) != 3:
    sys.exit(f"expected three dumps, got {len(dumps)}")
s0, s1 = dumps[1], dumps[2]
# the classes with byte counters (a grafted fq_codel lists its flows as
# classes without them)
print(json.dumps({c: (s1[c]["bytes"] - s0.get(c, {}).get("bytes", 0)) * 8 / (t1 - t0)
                  for c in s1 if "bytes" in s1[c]}))
