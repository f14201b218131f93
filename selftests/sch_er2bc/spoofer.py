#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An off-path spoofer past the bottleneck, for er2bc_trust.sh.

Sends RATE UDP datagrams a second, SIZE bytes of IP each, from SRC to DST
(to random ports, never PORT, the estimator's), for SECONDS, out of DEV
through a packet socket that bypasses DEV's qdisc: they do not queue at
the bottleneck nor take its bandwidth, and the receiving gateway's meter
sees them as it sees the sending gateway's packets. Paced in batches each
5 ms; a machine too slow for RATE skips what it is behind by more than a
tenth of a second (counted as skipped). Prints a JSON line of what it sent.

With SRC outside the peer prefix it is its own control: the same packets
at the same times, which the meter does not count, so that a quiet phase
costs the emulated machine's CPU what a flooded one does.
"""
import argparse
import json
import random
import signal
import socket
import struct
import sys
import time

PACKET_QDISC_BYPASS = 20
SOL_PACKET = 263
TICK = 0.005


def checksum(h):
    c = sum(struct.unpack("!%dH" % (len(h) // 2), h))
    while c >> 16:
        c = (c & 0xFFFF) + (c >> 16)
    return ~c & 0xFFFF


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dev", required=True)
    ap.add_argument("--dst-mac", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--dst", required=True)
    ap.add_argument("--port", type=int, default=4950)
    ap.add_argument("--rate", type=float, required=True, help="datagrams a second")
    ap.add_argument("--size", type=int, default=28, help="bytes of IP, 28 to 1500")
    ap.add_argument("--seconds", type=float, default=10.0)
    a = ap.parse_args()
    if not 28 <= a.size <= 1500:
        sys.exit("spoofer.py: --size %d: must be 28 to 1500" % a.size)

    with open("/sys/class/net/%s/address" % a.dev) as f:
        smac = bytes.fromhex(f.read().strip().replace(":", ""))
    eth = bytes.fromhex(a.dst_mac.replace(":", "")) + smac + b"\x08\x00"
    src, dst = socket.inet_aton(a.src), socket.inet_aton(a.dst)
    payload = bytes(a.size - 28)
    rng = random.Random(a.size)

    def frame(ident):
        port = rng.randrange(1024, 65536)
        if port == a.port:
            port += 1
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, a.size, ident & 0xFFFF, 0x4000,
                         60, socket.IPPROTO_UDP, 0, src, dst)
        ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
        # no UDP checksum (0): nothing listens there anyway
        udp = struct.pack("!HHHH", rng.randrange(1024, 65536), port, a.size - 20, 0)
        return eth + ip + udp + payload

    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    s.setsockopt(SOL_PACKET, PACKET_QDISC_BYPASS, 1)
    s.bind((a.dev, 0))
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    stats = {"sent": 0, "errors": 0, "skipped": 0, "seconds": 0.0}
    t0 = time.monotonic()
    deadline = t0 + a.seconds
    while not stop:
        now = time.monotonic()
        if now >= deadline:
            break
        # as many as are due by now: a late wake-up sends its backlog
        # (at most a tenth of a second's worth at once: a machine too slow
        # for RATE sends less, within SECONDS, rather than its backlog)
        due = int((now - t0) * a.rate) - stats["sent"] - stats["errors"] - stats["skipped"]
        if due > a.rate / 10:
            stats["skipped"] += due - int(a.rate / 10)
            due = int(a.rate / 10)
        for _ in range(max(due, 0)):
            try:
                s.send(frame(stats["sent"]))
                stats["sent"] += 1
            except OSError:
                stats["errors"] += 1
        time.sleep(TICK)
    stats["seconds"] = round(time.monotonic() - t0, 3)
    json.dump(stats, sys.stdout)
    print()


if __name__ == "__main__":
    main()
