#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Greedy UDP senders, one socket per destination port, so that a class
held back by the qdisc never starves the others of packets to send (each
socket has its own send buffer). Sends for DURATION seconds.

  udpflood.py [--head HEX] [--len BYTES] DST DURATION PORT[:SO_PRIORITY][@BIT/S] ...

A port with @BIT/S is paced at that rate instead of greedy. --head starts
every payload with those bytes (an estimator's request type, say); --len
sets the payload's length (default 1400).
"""
import errno
import select
import socket
import sys
import time

args = sys.argv[1:]
head = b""
length = 1400
while args[0].startswith("--"):
    if args[0] == "--head":
        head = bytes.fromhex(args[1])
    elif args[0] == "--len":
        length = int(args[1])
    args = args[2:]
dst, duration = args[0], float(args[1])
family = socket.AF_INET6 if ":" in dst else socket.AF_INET
payload = (head + b"x" * length)[:length]
socks = {}
gap = {}
due = {}
poll = select.poll()
for spec in args[2:]:
    spec, _, rate = spec.partition("@")
    port, _, prio = spec.partition(":")
    s = socket.socket(family, socket.SOCK_DGRAM)
    if prio:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, int(prio, 0))
    s.setblocking(False)
    s.connect((dst, int(port)))
    socks[s.fileno()] = s
    if rate:
        # one datagram of 1442 bytes on the wire (Ethernet, IP, UDP) per gap
        gap[s.fileno()] = 1442 * 8 / float(rate)
        due[s.fileno()] = time.monotonic()
    else:
        poll.register(s, select.POLLOUT)


def send(fd):
    try:
        socks[fd].send(payload)
    except OSError as e:
        # ENOBUFS: the qdisc dropped it; the others: an ICMP error came back
        # (a link on the path gone, for a while)
        if e.errno not in (errno.EAGAIN, errno.ENOBUFS, errno.ECONNREFUSED,
                           errno.EHOSTUNREACH, errno.ENETUNREACH):
            raise


end = time.monotonic() + duration
greedy = len(due) < len(socks)
while True:
    now = time.monotonic()
    if now >= end:
        break
    for fd in due:
        if due[fd] <= now:
            send(fd)
            # late by up to 100 ms: caught up, not more
            due[fd] = max(due[fd] + gap[fd], now - 0.1)
    wait = max(0.0, min([0.1, end - now] + [t - now for t in due.values()]))
    if greedy:
        for fd, _ in poll.poll(wait * 1000):
            send(fd)
    else:
        time.sleep(wait)
