#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cross traffic for the experiments (guest.py runs it in the cross-traffic
namespace): constant-bit-rate UDP flows, each switched on and off on a
schedule, from one process so that the switching is exact (no process is
started at a switch).

    cross.py SCHEDULE.json

SCHEDULE.json: {"dst": ADDR, "start": S, "end": S (CLOCK_MONOTONIC), "size": IP
bytes a datagram, "flows": [{"port": P, "rate": bit/s at the IP level,
"on": [[from_s, to_s], ...]}, ...]} (times relative to start). Every
datagram has the same IP size; a flow's datagrams leave at fixed gaps
(size / rate) while it is on, against absolute deadlines, so a late wakeup
sends what is due at once. At the end, prints per flow the datagrams and
IP bytes sent, as JSON."""
import json
import socket
import sys
import time

IP_UDP = 28


def main():
    sched = json.load(open(sys.argv[1]))
    size = sched["size"]
    payload = bytes(size - IP_UDP)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    flows = []
    for f in sched["flows"]:
        gap = size * 8 / f["rate"]
        flows.append({"port": f["port"], "gap": gap, "on": f["on"], "sent": 0,
                      "next": None})
    t0, end = sched["start"], sched["end"]
    while time.monotonic() < t0:
        time.sleep(max(0.0, min(0.05, t0 - time.monotonic())))
    while True:
        now = time.monotonic()
        if now >= end:
            break
        rel = now - t0
        wake = end - t0
        for f in flows:
            on = next(((a, b) for a, b in f["on"] if a <= rel < b), None)
            if on is None:
                f["next"] = None
                later = [a for a, _ in f["on"] if a > rel]
                if later:
                    wake = min(wake, later[0])
                continue
            if f["next"] is None:
                f["next"] = on[0]
            while f["next"] <= rel and f["next"] < on[1]:
                try:
                    sock.sendto(payload, (sched["dst"], f["port"]))
                    f["sent"] += 1
                except OSError:
                    pass
                f["next"] += f["gap"]
            wake = min(wake, f["next"])
        time.sleep(max(0.0, wake - (time.monotonic() - t0)))
    print(json.dumps([{"port": f["port"], "datagrams": f["sent"],
                       "bytes": f["sent"] * size} for f in flows]))


if __name__ == "__main__":
    main()
