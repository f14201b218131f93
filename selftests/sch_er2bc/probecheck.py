#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the estimator's exact counts without the daemon: from namespace A,
send read requests to the meter's port across the path; after each, read the
sending qdisc's snapshot (probe-get, in A) and the meter's (meter-get, in B)
by the request's payload, and compare what each interval sent and received.

  probecheck.py --ns-a A --dev-a DEV --ns-b B --dev-b DEV --to ADDR
                [--port 4950] [--count N] [--gap SECONDS] [--ready FILE --until FILE]

--ready FILE: create FILE once the first interval has begun (its request's
snapshots read at both ends); --until FILE: go on past N intervals until
FILE exists, then close one interval more, so that all the traffic sent
before FILE was made falls in the intervals, however late it started.

Prints one JSON object: intervals, sent, received, lost (sum of positive
per-interval differences), negative (intervals that received more than was
sent), missing (requests whose snapshot was not found), per-interval lost.
"""
import argparse
import ctypes
import json
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import genlraw  # noqa: E402

CLONE_NEWNET = 0x40000000
CMD_PROBE_GET, CMD_METER_GET = 4, 7
A_IFINDEX, A_HANDLE, A_KEY, A_PACKETS, A_BYTES, A_TIME = 2, 3, 6, 7, 8, 9
libc = ctypes.CDLL(None, use_errno=True)


def in_ns(name, make):
    """make() with the calling thread in netns @name; the object keeps it"""
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    fd = os.open(f"/var/run/netns/{name}", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET):
            sys.exit(f"setns {name}: {os.strerror(ctypes.get_errno())}")
        return make()
    finally:
        libc.setns(home, CLONE_NEWNET)
        os.close(fd)
        os.close(home)


def ifindex(ns, dev):
    return in_ns(ns, lambda: socket.if_nametoindex(dev))


def snap(g, fid, cmd, body):
    err, ext, rep = g.request(fid, cmd, body)
    if err:
        return None
    a = dict(rep[0])
    return tuple(genlraw.u(a[k]) for k in (A_PACKETS, A_BYTES, A_TIME))


def main():
    ap = argparse.ArgumentParser()
    for k in ("ns-a", "dev-a", "ns-b", "dev-b", "to"):
        ap.add_argument("--" + k, required=True)
    ap.add_argument("--port", type=int, default=4950)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--gap", type=float, default=0.1)
    ap.add_argument("--handle", type=lambda s: int(s, 0), default=0x10000)
    ap.add_argument("--ready", default=None)
    ap.add_argument("--until", default=None)
    o = ap.parse_args()

    ga = in_ns(o.ns_a, genlraw.Genl)
    gb = in_ns(o.ns_b, genlraw.Genl)
    fid = genlraw.u(dict(ga.family("er2bc"))[genlraw.CTRL_ATTR_FAMILY_ID])
    fam = socket.AF_INET6 if ":" in o.to else socket.AF_INET
    sk = in_ns(o.ns_a, lambda: socket.socket(fam, socket.SOCK_DGRAM))
    ia, ib = ifindex(o.ns_a, o.dev_a), ifindex(o.ns_b, o.dev_b)
    qa = genlraw.attr(A_IFINDEX, struct.pack("I", ia)) + \
        genlraw.attr(A_HANDLE, struct.pack("I", o.handle))
    qb = genlraw.attr(A_IFINDEX, struct.pack("I", ib))

    prev, per, missing = None, [], 0
    sent = received = 0
    seq, last = 0, False
    while True:
        if o.until:
            # (the interval that began after FILE appeared is the last)
            if seq > o.count and last:
                break
            last = os.path.exists(o.until)
        elif seq > o.count:
            break
        seq += 1
        # a plain request: its body (the snapshots' key), then 24 zeros
        key = struct.pack("!HH", 1, seq & 0xFFFF)
        sk.sendto(key + bytes(24), (o.to, o.port))
        time.sleep(o.gap)
        body = genlraw.attr(A_KEY, key)
        # the request may still be on its way: a few tries
        for _ in range(50):
            s, r = snap(ga, fid, CMD_PROBE_GET, qa + body), \
                snap(gb, fid, CMD_METER_GET, qb + body)
            if s and r:
                break
            time.sleep(0.02)
        if not (s and r):
            missing += 1
            continue
        if prev:
            ds, dr = s[0] - prev[0][0], r[0] - prev[1][0]
            sent += ds
            received += dr
            per.append(ds - dr)
        elif o.ready:
            open(o.ready, "w").close()
        prev = (s, r)
    print(json.dumps({"intervals": len(per), "sent": sent, "received": received,
                      "lost": sum(x for x in per if x > 0),
                      "negative": sum(1 for x in per if x < 0),
                      "lossy_intervals": sum(1 for x in per if x > 0),
                      "missing": missing, "per_interval": per}))


if __name__ == "__main__":
    main()
