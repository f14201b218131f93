#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Greedy UDP senders, one socket per destination port, so that a class
held back by the qdisc never starves the others of packets to send (each
socket has its own send buffer). Sends for DURATION seconds.

  udpflood.py DST DURATION PORT[:SO_PRIORITY] ...
"""
import errno
import select
import socket
import sys
import time

dst, duration = sys.argv[1], float(sys.argv[2])
family = socket.AF_INET6 if ":" in dst else socket.AF_INET
payload = b"x" * 1400
socks = {}
poll = select.poll()
for spec in sys.argv[3:]:
    port, _, prio = spec.partition(":")
    s = socket.socket(family, socket.SOCK_DGRAM)
    if prio:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, int(prio, 0))
    s.setblocking(False)
    s.connect((dst, int(port)))
    socks[s.fileno()] = s
    poll.register(s, select.POLLOUT)

end = time.monotonic() + duration
while time.monotonic() < end:
    for fd, _ in poll.poll(100):
        try:
            socks[fd].send(payload)
        except OSError as e:
            # ENOBUFS: the qdisc dropped it; ECONNREFUSED: an ICMP error came back
            if e.errno not in (errno.EAGAIN, errno.ENOBUFS, errno.ECONNREFUSED):
                raise
