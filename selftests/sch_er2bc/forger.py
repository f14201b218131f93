#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An on-path attacker past the bottleneck, for er2bc_trust.sh.

Watches the frames DEV sends (a router's egress toward the receiving
gateway, after its qdisc) and, for each estimator request among them:
  - at once sends BURST forged requests behind it: the same type, seq and
    epoch, a random tag (a plain request: a random seq);
  - REPLAY_MS later sends the request again, byte for byte.
Both go out through a packet socket that bypasses DEV's qdisc, so they do
not queue at the bottleneck nor take its bandwidth. UDP checksums are left
out (0), so the receiving gateway's socket takes them as it takes the real
ones. Prints a JSON line of what it did when SECONDS are over (or SIGTERM).

With --decoy ADDR it is its own control: the same packets at the same
times, but from ADDR (outside the peer prefix: the meter counts none of
them) to the next port (no one listens there), so that a quiet phase
costs the emulated machine's CPU what an attacked one does.
"""
import argparse
import json
import os
import select
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 3
PACKET_OUTGOING = 4
PACKET_QDISC_BYPASS = 20
SOL_PACKET = 263
REQUEST = 1
AUTH = 0x8000


def request_of(frame, port):
    """(IP header, UDP header, payload) of an IPv4 request to port, or None"""
    if len(frame) < 14 + 20 + 8 or frame[12:14] != b"\x08\x00":
        return None
    ip = frame[14:]
    ihl = (ip[0] & 0xF) * 4
    if ip[0] >> 4 != 4 or ip[9] != socket.IPPROTO_UDP or len(ip) < ihl + 8:
        return None
    if struct.unpack("!H", ip[6:8])[0] & 0x3FFF:
        return None  # a fragment
    tot = struct.unpack("!H", ip[2:4])[0]
    udp = ip[ihl:ihl + 8]
    if struct.unpack("!H", udp[2:4])[0] != port:
        return None
    payload = ip[ihl + 8:tot]
    if len(payload) not in (28, 52):
        return None
    t = struct.unpack("!H", payload[:2])[0]
    if t & ~AUTH != REQUEST:
        return None
    return ip[:ihl], udp, payload


def decoyed(iph, src):
    """the IPv4 header from src, its checksum made anew"""
    h = bytearray(iph)
    h[12:16] = src
    h[10:12] = b"\0\0"
    words = struct.unpack("!%dH" % (len(h) // 2), bytes(h))
    c = sum(words)
    while c >> 16:
        c = (c & 0xFFFF) + (c >> 16)
    h[10:12] = struct.pack("!H", ~c & 0xFFFF)
    return bytes(h)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dev", required=True)
    ap.add_argument("--port", type=int, default=4950)
    ap.add_argument("--burst", type=int, default=40)
    ap.add_argument("--replay-ms", type=float, default=5.0)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--decoy", metavar="ADDR")
    a = ap.parse_args()
    decoy = socket.inet_aton(a.decoy) if a.decoy else None

    # outgoing frames reach ETH_P_ALL taps only
    sniff = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sniff.bind((a.dev, ETH_P_ALL))
    inject = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    inject.setsockopt(SOL_PACKET, PACKET_QDISC_BYPASS, 1)
    inject.bind((a.dev, 0))

    stats = {"seen": 0, "forged": 0, "replayed": 0, "errors": 0}
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    replays = []  # (when, frame)
    deadline = time.monotonic() + a.seconds

    def send(frame, key):
        try:
            inject.send(frame)
            stats[key] += 1
        except OSError:
            stats["errors"] += 1

    while not stop:
        now = time.monotonic()
        if now >= deadline:
            break
        while replays and replays[0][0] <= now:
            send(replays.pop(0)[1], "replayed")
        wait = deadline - now
        if replays:
            wait = min(wait, replays[0][0] - now)
        try:
            ready = select.select([sniff], [], [], max(wait, 0))[0]
        except InterruptedError:
            continue
        if not ready:
            continue
        frame, addr = sniff.recvfrom(2048)
        if addr[2] != PACKET_OUTGOING:
            continue
        req = request_of(frame, a.port)
        if not req:
            continue
        stats["seen"] += 1
        iph, udp, payload = req
        eth = frame[:14]
        udp = udp[:6] + b"\0\0"
        if decoy:
            iph = decoyed(iph, decoy)
            udp = udp[:2] + struct.pack("!H", a.port + 1) + udp[4:]
        t = struct.unpack("!H", payload[:2])[0]
        for _ in range(a.burst):
            if t & AUTH:
                fake = payload[:12] + os.urandom(16) + payload[28:]
            else:
                fake = payload[:2] + os.urandom(2) + payload[4:]
            send(eth + iph + udp + fake, "forged")
        replays.append((time.monotonic() + a.replay_ms / 1000, eth + iph + udp + payload))
    json.dump(stats, sys.stdout)
    print()


if __name__ == "__main__":
    main()
