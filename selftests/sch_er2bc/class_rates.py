#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What each class of DEV sends over WINDOW seconds, in bit/s, as JSON.

  class_rates.py DEV WINDOW

Each counter snapshot is one rtnetlink dump of DEV's classes, timed by the
clock read just before the request and just after the kernel's last
answer: the counters were read between the two. A snapshot whose dump took
longer than 20 ms (the emulated machine descheduled in it) is taken again,
up to five times; the window's rate divides by the time between the two
snapshots' midpoints. (Timing a command written to a running `tc -batch`
at the moment it was written, as this did before, skewed a 10 s window by
3-5 % on a host that ran three guests on two CPUs: tc read the counters
when it was next scheduled, not then.)
"""
import json
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from nlmsg import TCA_STATS2, TCA_STATS_BASIC, attrs, dump  # noqa: E402

RTM_NEWTCLASS, RTM_GETTCLASS = 40, 42
SLOW_DUMP = 0.020


def handle(h):
    return f"{h >> 16:x}:{h & 0xFFFF:x}"


def classes(sock, ifindex, seq):
    """{classid: bytes} of the classes with byte counters (a grafted
    fq_codel lists its flows as classes without them)"""
    tcm = struct.pack("BxxxiIII", socket.AF_UNSPEC, ifindex, 0, 0, 0)
    got = {}
    for kind, msg in dump(sock, RTM_GETTCLASS, tcm, seq):
        if kind != RTM_NEWTCLASS:
            continue
        _, _, hid, _, _ = struct.unpack_from("BxxxiIII", msg)
        for k, v in attrs(msg[20:]):
            if k != TCA_STATS2:
                continue
            for k2, v2 in attrs(v):
                if k2 == TCA_STATS_BASIC:
                    got[handle(hid)] = struct.unpack_from("Q", v2)[0]
    return got


def snapshot(sock, ifindex, seq):
    """(time, {classid: bytes}): the dump's counters and the midpoint of
    the time it took, taken again while it took too long"""
    for tries in range(5):
        t0 = time.monotonic()
        got = classes(sock, ifindex, seq + tries)
        t1 = time.monotonic()
        if t1 - t0 <= SLOW_DUMP:
            break
    return (t0 + t1) / 2, got


def main():
    dev, window = sys.argv[1], float(sys.argv[2])
    ifindex = socket.if_nametoindex(dev)
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    sock.bind((0, 0))
    t0, s0 = snapshot(sock, ifindex, 1)
    time.sleep(window)
    t1, s1 = snapshot(sock, ifindex, 100)
    print(json.dumps({c: (s1[c] - s0.get(c, 0)) * 8 / (t1 - t0) for c in s1}))


if __name__ == "__main__":
    main()
