#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A receiver's ACKs sent again in IPv4 fragments, with a window of its own.

  fragack.py IFACE SRC SPORT DST DPORT [--window N] [--ttl N] [--count N]
             [--interval SECONDS] [--timeout SECONDS]

Watches the ACKs that SRC:SPORT sends to DST:DPORT on IFACE, and sends
--count copies (default 20), --interval apart (default 0.05 s), of the
newest one seen, options and all, with the window field set to --window
(default 65535) and the IP TTL to --ttl (default 200, so that the far end
can tell the copies), each as two IPv4 fragments: the first carries the
first 8 bytes of the TCP header (ports and sequence number), the second
the rest. A hook that skips fragments does not see them; one behind
reassembly sees the whole segment. Prints how many copies went out.
Exit 1 if no ACK came within --timeout (default 10 s).
"""
import argparse
import random
import socket
import struct
import sys
import time

from pkt import ETH_P_ALL, ETH_P_IP, conn_args, csum

IP_NODEFRAG = 22	# (linux/in.h): the sending namespace's own reassembly passes them


def fragments(src, dst, ttl, tcp):
    """@tcp (a whole TCP segment, checksum set) as two IPv4 fragments"""
    ident = random.randrange(1, 0x10000)
    out = []
    for off, part, more in ((0, tcp[:8], True), (8, tcp[8:], False)):
        flags = (0x2000 if more else 0) | (off // 8)
        hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(part), ident, flags, ttl,
                          socket.IPPROTO_TCP, 0, src, dst)
        hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
        out.append(hdr + part)
    return out


def main():
    ap = argparse.ArgumentParser()
    conn_args(ap)
    ap.add_argument("--window", type=int, default=65535)
    ap.add_argument("--ttl", type=int, default=200)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--interval", type=float, default=0.05)
    ap.add_argument("--timeout", type=float, default=10.0)
    args = ap.parse_args()
    src, dst = socket.inet_aton(args.src), socket.inet_aton(args.dst)

    sniff = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_ALL))
    sniff.bind((args.iface, ETH_P_ALL))
    sniff.setblocking(False)
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    raw.setsockopt(socket.IPPROTO_IP, socket.IP_HDRINCL, 1)
    raw.setsockopt(socket.IPPROTO_IP, IP_NODEFRAG, 1)

    newest = None
    sent = 0
    end = time.monotonic() + args.timeout
    while sent < args.count:
        while True:
            try:
                ip, addr = sniff.recvfrom(256)
            except BlockingIOError:
                break
            if addr[1] != ETH_P_IP or addr[2] != socket.PACKET_OUTGOING or \
                    len(ip) < 40 or ip[9] != 6 or (ip[12:16], ip[16:20]) != (src, dst) or \
                    struct.unpack("!H", ip[6:8])[0] & 0x3FFF:
                continue
            ihl = (ip[0] & 0xF) * 4
            tot = struct.unpack("!H", ip[2:4])[0]
            tcp = ip[ihl:tot]
            if len(tcp) < 20 or struct.unpack("!HH", tcp[:4]) != (args.sport, args.dport):
                continue
            doff = (tcp[12] >> 4) * 4
            # a pure ACK (no data, no SYN, FIN or RST), its options whole
            if tcp[13] & 0x07 or not tcp[13] & 0x10 or len(tcp) != doff:
                continue
            newest = tcp
        if newest is None:
            if time.monotonic() > end:
                print("fragack.py: no ACK from %s:%d to %s:%d on %s" %
                      (args.src, args.sport, args.dst, args.dport, args.iface), file=sys.stderr)
                return 1
            time.sleep(0.01)
            continue
        tcp = bytearray(newest)
        tcp[14:16] = struct.pack("!H", args.window)
        tcp[16:18] = b"\0\0"
        pseudo = src + dst + struct.pack("!BBH", 0, socket.IPPROTO_TCP, len(tcp))
        tcp[16:18] = struct.pack("!H", csum(pseudo + bytes(tcp)))
        for frag in fragments(src, dst, args.ttl, bytes(tcp)):
            raw.sendto(frag, (args.dst, 0))
        sent += 1
        time.sleep(args.interval)
    seq, ack = struct.unpack("!II", newest[4:12])
    print("%d ACKs sent again in fragments, window %d (last seq %d ack %d)" %
          (sent, args.window, seq, ack))
    return 0


if __name__ == "__main__":
    sys.exit(main())
