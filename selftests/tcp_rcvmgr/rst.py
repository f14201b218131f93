#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A TCP reset in a live connection, at a chosen distance from its window.

  rst.py IFACE SRC SPORT DST DPORT [--offset N] [--answer] [--fin] [--syn]
         [--second-syn] [--ready] [--timeout SECONDS] [--delay SECONDS]
         [--gap SECONDS]

Waits for a TCP segment from SRC:SPORT to DST:DPORT on IFACE (one the
namespace sends or receives), then sends, from a raw socket, a RST from
SRC:SPORT to DST:DPORT whose sequence number is that segment's plus N
(default 0: where the end would put its own; 1 << 30: far outside any
window, a blind guess from off the path). With --answer it waits for a
segment from DST:DPORT to SRC:SPORT instead (a SYN-ACK, say) and the
reset's sequence number is that segment's ACK number plus N: where SRC
puts its own. --ready prints "listening" on stderr once it sees IFACE's
packets (a connection may be opened then). Prints the segment's sequence
number and the reset's. IPv4 only. Exit 1 if no segment came in time. --fin sends a
bare FIN (with ACK, acknowledging nothing new) instead; --syn a bare
SYN, no options (so no window scaling). --second-syn sends that SYN
once SRC sent a second SYN with another number than its first (a
reconnection), at that one's number plus N. --delay waits that long
after the segment before sending (the connection quiet meanwhile).
--gap takes only a segment that came at least that long after the one
before it from the same end with nothing from the other end between them
(a sender backing off from a receiver gone quiet, not a pause in a flow),
as the kernel stamped their arrival, not as this process read them; its
--delay then counts from that stamp.
"""
import argparse
import socket
import struct
import sys
import time

from pkt import ETH_P_ALL, ETH_P_IP, conn_args, csum

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


def arrival(anc):
    """the arrival time, in seconds, that SO_TIMESTAMPNS put in @anc"""
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
            sec, nsec = struct.unpack("qq", data[:16])
            return sec + nsec / 1e9
    raise RuntimeError("a packet without its SO_TIMESTAMPNS stamp")


def main():
    ap = argparse.ArgumentParser()
    conn_args(ap)
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--answer", action="store_true")
    ap.add_argument("--fin", action="store_true")
    ap.add_argument("--ready", action="store_true")
    ap.add_argument("--syn", action="store_true")
    ap.add_argument("--second-syn", action="store_true")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--gap", type=float, default=0.0)
    args = ap.parse_args()
    src, dst = socket.inet_aton(args.src), socket.inet_aton(args.dst)

    # ETH_P_ALL: a socket bound to one protocol sees no outgoing packets
    sniff = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_ALL))
    sniff.bind((args.iface, ETH_P_ALL))
    sniff.settimeout(args.timeout)
    # (the kernel's time of arrival: a process that falls behind a download
    # reads its segments late, and their gaps shrunk or stretched)
    sniff.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    # (made before: the reset follows the segment as soon as it can)
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)
    raw.bind((args.src, 0))
    if args.ready:
        print("listening", file=sys.stderr, flush=True)
    # (--answer: the segment comes from DST:DPORT)
    want = (dst, src, args.dport, args.sport) if args.answer else \
        (src, dst, args.sport, args.dport)
    end = time.monotonic() + args.timeout
    other = (want[1], want[0], want[3], want[2])
    seq = first = last = heard = gap = at = None
    widest = 0.0
    while seq is None and time.monotonic() < end:
        try:
            ip, anc, _, addr = sniff.recvmsg(256, socket.CMSG_SPACE(16))
        except socket.timeout:
            break
        if addr[1] != ETH_P_IP or len(ip) < 40 or ip[9] != 6:
            continue
        tcp = ip[(ip[0] & 0xF) * 4:]
        sport, dport, s, a = struct.unpack("!HHII", tcp[:12])
        seg = (ip[12:16], ip[16:20], sport, dport)
        if args.gap and seg == other:
            heard = arrival(anc)
        if seg != want:
            continue
        if args.gap:
            at = arrival(anc)
            quiet = last is not None and (heard is None or heard < last)
            gap, last = (at - last if quiet else None), at
            widest = max(widest, gap or 0.0)
            if gap is None or gap < args.gap:
                continue
        if args.second_syn:
            if not tcp[13] & 0x02 or s == first:
                continue
            if first is None:
                first = s
                continue
        seq, ack = (a, s) if args.answer else (s, a)
    if seq is None:
        ends = ((args.dst, args.dport, args.src, args.sport) if args.answer else
                (args.src, args.sport, args.dst, args.dport))
        print("rst.py: no segment from %s:%d to %s:%d on %s%s" %
              (ends + (args.iface,) +
               ((" %.2f s or more after the one before, the other end quiet"
                 " (the widest such gap: %.2f s)" % (args.gap, widest)) if args.gap else "",)),
              file=sys.stderr)
        return 1
    rseq = (seq + args.offset) & 0xFFFFFFFF
    # FIN|ACK, acknowledging what the segment did, a SYN, or RST
    flags, rack, what = ((0x11, ack, "FIN") if args.fin else
                         (0x02, 0, "SYN") if args.syn or args.second_syn else
                         (0x04, 0, "reset"))
    hdr = struct.pack("!HHIIBBHHH", args.sport, args.dport, rseq, rack, 5 << 4, flags,
                      0 if flags == 0x04 else 1024, 0, 0)
    pseudo = src + dst + struct.pack("!BBH", 0, socket.IPPROTO_TCP, len(hdr))
    hdr = hdr[:16] + struct.pack("!H", csum(pseudo + hdr)) + hdr[18:]
    late = 0.0
    if at is None:
        time.sleep(args.delay)
    else:
        late = time.time() - at
        time.sleep(max(0.0, args.delay - late))
    raw.sendto(hdr, (args.dst, 0))
    print("segment seq %d%s, %s seq %d" %
          (seq, "" if at is None else
           " after %.2f s (read %.2f s after it came)" % (gap, late), what, rseq))
    return 0


if __name__ == "__main__":
    sys.exit(main())
