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

RTM_NEWTCLASS, RTM_GETTCLASS = 40, 42
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
TCA_STATS2 = 7
TCA_STATS_BASIC = 1
NLA_TYPE_MASK = 0x3FFF
SLOW_DUMP = 0.020


def attrs(buf):
    """(type, payload) of each netlink attribute in buf"""
    off = 0
    while off + 4 <= len(buf):
        length, kind = struct.unpack_from("HH", buf, off)
        if length < 4:
            break
        yield kind & NLA_TYPE_MASK, buf[off + 4:off + length]
        off += (length + 3) & ~3


def handle(h):
    return f"{h >> 16:x}:{h & 0xFFFF:x}"


def dump(sock, ifindex, seq):
    """{classid: bytes} of the classes with byte counters (a grafted
    fq_codel lists its flows as classes without them)"""
    tcm = struct.pack("BxxxiIII", socket.AF_UNSPEC, ifindex, 0, 0, 0)
    sock.send(struct.pack("IHHII", 16 + len(tcm), RTM_GETTCLASS,
                          NLM_F_REQUEST | NLM_F_DUMP, seq, 0) + tcm)
    got = {}
    while True:
        data = sock.recv(1 << 16)
        off = 0
        while off + 16 <= len(data):
            length, kind, _, mseq, _ = struct.unpack_from("IHHII", data, off)
            msg = data[off + 16:off + length]
            off += (length + 3) & ~3
            if mseq != seq:
                continue
            if kind == NLMSG_DONE:
                return got
            if kind == NLMSG_ERROR:
                err = -struct.unpack_from("i", msg)[0]
                sys.exit(f"class dump of ifindex {ifindex}: {os.strerror(err)}")
            if kind != RTM_NEWTCLASS:
                continue
            _, _, hid, _, _ = struct.unpack_from("BxxxiIII", msg)
            for k, v in attrs(msg[20:]):
                if k != TCA_STATS2:
                    continue
                for k2, v2 in attrs(v):
                    if k2 == TCA_STATS_BASIC:
                        got[handle(hid)] = struct.unpack_from("Q", v2)[0]


def snapshot(sock, ifindex, seq):
    """(time, {classid: bytes}): the dump's counters and the midpoint of
    the time it took, taken again while it took too long"""
    for tries in range(5):
        t0 = time.monotonic()
        got = dump(sock, ifindex, seq + tries)
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
