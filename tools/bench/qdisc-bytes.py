#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sample the bytes a device's root qdisc has sent, straight from rtnetlink
(one process: a fork of tc costs up to a second under TCG, too coarse a
clock for a rate). For qdisc-rate-guest.sh.

    qdisc-bytes.py DEV DELAY SECONDS INTERVAL

After DELAY seconds, prints "MONOTONIC_SECONDS BYTES QLEN LATE" every
INTERVAL seconds for SECONDS seconds; LATE is how many seconds after its
time the sample was taken (this process woke late: a sign of how late the
emulated CPUs run timers, the qdisc's watchdog among them). The bytes are the qdisc's own count
(TCA_STATS_BASIC): frames as the qdisc charges them, a GSO packet as the
frames it becomes on the wire; QLEN the packets it holds
(TCA_STATS_QUEUE).
"""

import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "selftests"))
from nlmsg import attrs, dump  # noqa: E402

RTM_NEWQDISC, RTM_GETQDISC = 36, 38
TCA_STATS2, TCA_STATS_BASIC, TCA_STATS_QUEUE = 7, 1, 3
TC_H_ROOT = 0xFFFFFFFF


def root_stats(sk, ifindex, seq):
    """(bytes sent, packets queued) of the device's root qdisc"""
    req = struct.pack("BBHiIII", socket.AF_UNSPEC, 0, 0, 0, 0, 0, 0)
    found = [None, None]
    for ty, msg in dump(sk, RTM_GETQDISC, req, seq):
        if ty != RTM_NEWQDISC:
            continue
        _, _, _, idx, _, parent, _ = struct.unpack_from("BBHiIII", msg)
        if idx != ifindex or parent != TC_H_ROOT:
            continue
        for t, v in attrs(msg[20:]):
            if t == TCA_STATS2:
                for t2, v2 in attrs(v):
                    if t2 == TCA_STATS_BASIC:
                        found[0] = struct.unpack_from("Q", v2)[0]
                    elif t2 == TCA_STATS_QUEUE:
                        found[1] = struct.unpack_from("I", v2)[0]
    return found


def main():
    dev, delay, secs, step = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
    ifindex = socket.if_nametoindex(dev)
    sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    sk.bind((0, 0))
    time.sleep(delay)
    start = time.monotonic()
    seq = 1
    while True:
        t = time.monotonic()
        if t - start > secs:
            break
        due = start + (seq - 1) * step
        b, qlen = root_stats(sk, ifindex, seq)
        seq += 1
        print(f"{t:.6f} {b} {qlen} {max(0.0, t - due):.6f}", flush=True)
        time.sleep(max(0.0, start + (seq - 1) * step - time.monotonic()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
