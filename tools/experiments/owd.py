#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One-way delay of a small UDP probe stream, for guest.py's matrix runs:
the sender stamps each datagram with CLOCK_MONOTONIC, which every network
namespace of one machine shares, and the receiver takes the difference.

    owd.py send DST PORT RATE DURATION [--tos TOS]
    owd.py recv PORT DURATION

send: RATE datagrams a second (100 bytes of UDP payload) for DURATION
seconds, with IP_TOS TOS (a number, 0xb8 for EF). recv: until DURATION
seconds have passed, or SIGTERM; then prints one JSON object: received,
the highest sequence number sent that arrived (so lost = seq - received +
1), and the delays' p50 and p99 in milliseconds."""
import json
import signal
import socket
import struct
import sys
import time

LEN = 100
HDR = struct.Struct("!QQ")	# sequence number, send time in ns


def send(dst, port, rate, duration, tos):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if tos:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
    pad = b"\0" * (LEN - HDR.size)
    start = time.monotonic()
    n = 0
    while True:
        due = start + n / rate
        now = time.monotonic()
        if due - start >= duration:
            break
        if due > now:
            time.sleep(due - now)
        try:
            s.sendto(HDR.pack(n, time.monotonic_ns()) + pad, (dst, port))
        except OSError:
            pass		# a full queue drops it: it counts as lost
        n += 1


def pct(sorted_vals, q):
    if not sorted_vals:
        return None
    i = min(len(sorted_vals) - 1, int(q * len(sorted_vals)))
    return round(sorted_vals[i] / 1e6, 3)


def recv(port, duration):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    s.settimeout(0.5)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    delays, top = [], -1
    end = time.monotonic() + duration
    while not stop and time.monotonic() < end:
        try:
            buf = s.recv(2048)
        except (socket.timeout, InterruptedError):
            continue
        now = time.monotonic_ns()
        if len(buf) < HDR.size:
            continue
        seq, sent = HDR.unpack_from(buf)
        delays.append(now - sent)
        top = max(top, seq)
    delays.sort()
    print(json.dumps({"received": len(delays), "seq": top, "p50_ms": pct(delays, 0.5),
                      "p99_ms": pct(delays, 0.99)}), flush=True)


def main():
    a = sys.argv[1:]
    if len(a) >= 5 and a[0] == "send":
        tos = int(a[a.index("--tos") + 1], 0) if "--tos" in a else 0
        send(a[1], int(a[2]), float(a[3]), float(a[4]), tos)
    elif len(a) == 3 and a[0] == "recv":
        recv(int(a[1]), float(a[2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
