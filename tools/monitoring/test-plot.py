#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""er2bc-plot against a stand-in for Prometheus's HTTP API (query_range
answered from made-up series, every query recorded): the terminal chart,
--csv, --png, and its errors. TAP on stdout; exit 1 if a check failed."""
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
PLOT = os.path.join(HERE, "er2bc-plot")
QUERIES = []
EMPTY = {"on": False}


class Prom(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        u = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(u.query)
        expr = q["query"][0]
        QUERIES.append(expr)
        start, end, step = float(q["start"][0]), float(q["end"][0]), float(q["step"][0])
        ts = [start + i * step for i in range(int((end - start) / step) + 1)]
        result = []
        if not EMPTY["on"]:
            if "er2bc_cap_bytes_per_second" in expr:
                result = [({"dev": "eth1"}, lambda i: 3.2e6 if i < len(ts) / 2 else 1.6e6)]
            elif "er2bc_recv_rate_bytes_per_second" in expr:
                result = [({"dev": "eth1"}, lambda i: 3.0e6)]
            elif "er2bc_class_sent_bytes_total" in expr:
                result = [({"dev": "eth1", "classid": "1:10"}, lambda i: 4.0e5)]
            elif "er2bc_class_guarantee_bytes_per_second" in expr:
                result = [({"dev": "eth1", "classid": "1:10"}, lambda i: 4.8e5)]
        body = {"status": "success", "data": {"resultType": "matrix", "result": [
            {"metric": m, "values": [[t, str(f(i))] for i, t in enumerate(ts)]} for m, f in result]}}
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


n = failed = 0


def check(desc, ok, detail=""):
    global n, failed
    n += 1
    print(f"{'ok' if ok else 'not ok'} {n} - {desc}")
    if not ok:
        failed = 1
        for line in str(detail).splitlines()[:12]:
            print(f"#   {line}")


def run(*args):
    return subprocess.run([sys.executable, PLOT, *args], capture_output=True, text=True, timeout=60)


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Prom)
threading.Thread(target=srv.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{srv.server_address[1]}"
base = ["--prometheus", url, "--instance", "gw-a:9100", "--hours", "1"]

r = run(*base)
lines = r.stdout.splitlines()
names = [line.split("  ")[0].strip() for line in lines[1:]]
check("the chart: W, R, the class's sent rate and guarantee, one row each",
      r.returncode == 0 and names == ["eth1 W", "eth1 R", "eth1 1:10 sent", "eth1 1:10 guarantee"],
      r.stdout + r.stderr)
check("each row ends with the series' last value; the scale is the largest",
      r.returncode == 0 and lines[1].endswith("1.6Mbit") and lines[2].endswith("3Mbit") and
      "full scale 3.2Mbit" in lines[0], r.stdout)
# (the row: the name padded to the longest, two spaces, the 72 cells)
namew = len("eth1 1:10 guarantee")
w = lines[1][namew + 2:namew + 2 + 72] if len(lines) > 1 else ""
check("W's row shows its halving halfway through the window",
      len(w) == 72 and w[:30] == "█" * 30 and set(w[40:]) == {"▄"}, w)
check("every query is about the instance asked for",
      QUERIES and all('instance="gw-a:9100"' in q for q in QUERIES), QUERIES)

QUERIES.clear()
r = run(*base, "--dev", "eth1", "--csv")
rows = r.stdout.splitlines()
check("--csv: a header, then unix time, series and bit/s for every sample",
      r.returncode == 0 and rows[0] == "unix_time,series,bits_per_second" and
      len(rows) == 1 + 4 * 241 and rows[1].split(",")[1:] == ["eth1 W", "3200000"], rows[:3])
check("--dev: every query names the device too",
      all('dev="eth1"' in q for q in QUERIES), QUERIES)

with tempfile.TemporaryDirectory() as d:
    png = os.path.join(d, "w.png")
    r = run(*base, "--png", png)
    head = open(png, "rb").read(8) if os.path.exists(png) else b""
    check("--png: a PNG file", r.returncode == 0 and head == b"\x89PNG\r\n\x1a\n", r.stderr)

EMPTY["on"] = True
r = run(*base)
check("nothing for the instance: exit 1, and what to check",
      r.returncode == 1 and "no er2bc metrics for instance gw-a:9100" in r.stderr and
      "er2bc-metrics.timer" in r.stderr, r.stderr)
r = run("--prometheus", "http://127.0.0.1:1", "--instance", "x")
check("Prometheus unreachable: exit 1, naming it",
      r.returncode == 1 and r.stderr.startswith("er2bc-plot: http://127.0.0.1:1: "), r.stderr)
r = run(*base[:4], "--hours", "0")
check("a window out of range: exit 2, naming the option and the range",
      r.returncode == 2 and "--hours 0.0: from more than 0 to 744" in r.stderr, r.stderr)
for step in ("-15", "0.4", "nan"):
    r = run(*base, "--step", step)
    check(f"--step {step}: exit 2, naming the option and the range",
          r.returncode == 2 and "0 (the window / 240, at least 15) or 1 or more seconds" in r.stderr,
          r.stderr)
r = run(*base[:4], "--hours", "24", "--step", "1")
check("a step that asks for more than 11000 samples: exit 2, the least step that does",
      r.returncode == 2 and "--step 1: at most 11000 samples a series" in r.stderr and
      "8 or more seconds for --hours 24" in r.stderr, r.stderr)
srv.shutdown()
print(f"1..{n}")
sys.exit(failed)
