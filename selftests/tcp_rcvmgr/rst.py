#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A TCP reset in a live connection, at a chosen distance from its window.

  rst.py IFACE SRC SPORT DST DPORT [--offset N] [--ack-ahead N] [--frag-data N]
         [--at-ack QUIET] [--timeout SECONDS]

Waits for a TCP segment from SRC:SPORT to DST:DPORT on IFACE (one the
namespace sends or receives), then sends, from a raw socket, a RST from
SRC:SPORT to DST:DPORT whose sequence number is that segment's plus N
(default 0: where the end would put its own; 1 << 30: far outside any
window, a blind guess from off the path).

  --frag-data N   first N bytes of data at the segment's sequence number,
                  in two IP fragments (acknowledging what the segment did)
  --at-ack QUIET  the reset's sequence number is instead the highest ACK
                  from DST:DPORT seen on IFACE, once none has come for
                  QUIET seconds (exit 1 if they never stop)
  --ack-ahead N   instead of a reset, a bare ACK at the segment's sequence
                  number acknowledging N bytes more than it did (data never
                  sent: the other end drops it)

Prints the segment's sequence number and the reset's. IPv4 only. Exit 1
if no segment came within SECONDS (30).
"""
import argparse
import os
import socket
import struct
import sys
import time

ETH_P_ALL, ETH_P_IP = 0x0003, 0x0800


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def segment(src, dst, args, seq, ack, flags, window, data=b""):
    """a TCP segment without options, with its checksum"""
    hdr = struct.pack("!HHIIBBHHH", args.sport, args.dport, seq, ack, 5 << 4, flags,
                      window, 0, 0)
    pseudo = src + dst + struct.pack("!BBH", 0, socket.IPPROTO_TCP, len(hdr) + len(data))
    return hdr[:16] + struct.pack("!H", csum(pseudo + hdr + data)) + hdr[18:] + data


def send_fragments(src, dst, seg, to):
    """@seg in two IPv4 fragments: its header and 4 bytes, then the rest"""
    ident = int(time.monotonic() * 1000) & 0xFFFF
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    for off, part, more in ((0, seg[:24], 1), (3, seg[24:], 0)):
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(part), ident,
                         (more << 13) | off, 64, socket.IPPROTO_TCP, 0, src, dst)
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        raw.sendto(ip + part, (to, 0))


def highest_ack(sniff, src, dst, args, end):
    """the highest ACK from DST:DPORT to SRC:SPORT, once quiet for args.at_ack"""
    high = None
    sniff.settimeout(args.at_ack)
    while time.monotonic() < end:
        try:
            ip, addr = sniff.recvfrom(256)
        except socket.timeout:
            if high is not None:
                return high
            continue
        if addr[1] != ETH_P_IP or len(ip) < 40 or ip[9] != 6 or \
                ip[12:16] != dst or ip[16:20] != src:
            continue
        tcp = ip[(ip[0] & 0xF) * 4:]
        sport, dport, _, a = struct.unpack("!HHII", tcp[:12])
        if (sport, dport) == (args.dport, args.sport) and tcp[13] & 0x10 and \
                (high is None or (a - high) & 0xFFFFFFFF < 1 << 31):
            high = a
    print("rst.py: the ACKs never went quiet for %g s" % args.at_ack, file=sys.stderr)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("iface")
    ap.add_argument("src")
    ap.add_argument("sport", type=int)
    ap.add_argument("dst")
    ap.add_argument("dport", type=int)
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--frag-data", type=int)
    ap.add_argument("--at-ack", type=float)
    ap.add_argument("--ack-ahead", type=int)
    ap.add_argument("--timeout", type=float, default=30.0)
    args = ap.parse_args()
    src, dst = socket.inet_aton(args.src), socket.inet_aton(args.dst)

    # ETH_P_ALL: a socket bound to one protocol sees no outgoing packets
    sniff = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_ALL))
    sniff.bind((args.iface, ETH_P_ALL))
    sniff.settimeout(args.timeout)
    end = time.monotonic() + args.timeout
    seq = None
    while seq is None and time.monotonic() < end:
        try:
            ip, addr = sniff.recvfrom(256)
        except socket.timeout:
            break
        if addr[1] != ETH_P_IP or len(ip) < 40 or ip[9] != 6 or \
                ip[12:16] != src or ip[16:20] != dst:
            continue
        tcp = ip[(ip[0] & 0xF) * 4:]
        sport, dport, s, a = struct.unpack("!HHII", tcp[:12])
        if (sport, dport) == (args.sport, args.dport):
            seq, ack = s, a
    if seq is not None and args.at_ack is not None:
        print("sniffing ACKs", flush=True)
        seq = highest_ack(sniff, src, dst, args, end)
    if seq is None:
        print("rst.py: no segment from %s:%d to %s:%d on %s" %
              (args.src, args.sport, args.dst, args.dport, args.iface), file=sys.stderr)
        return 1
    rseq = (seq + args.offset) & 0xFFFFFFFF
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)
    raw.bind((args.src, 0))
    if args.ack_ahead is not None:
        ahead = (ack + args.ack_ahead) & 0xFFFFFFFF
        raw.sendto(segment(src, dst, args, seq, ahead, 0x10, 65535), (args.dst, 0))
        print("segment seq %d ack %d, bare ACK %d" % (seq, ack, ahead))
        return 0
    if args.frag_data:
        # one CPU: sent from two, the packets could take two CPUs' backlogs
        # on the veth's far side and the reset overtake the data
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        send_fragments(src, dst, segment(src, dst, args, seq, ack, 0x18, 65535,
                                         b"x" * args.frag_data), args.dst)
    raw.sendto(segment(src, dst, args, rseq, 0, 0x04, 0), (args.dst, 0))
    print("segment seq %d, reset seq %d" % (seq, rseq))
    return 0


if __name__ == "__main__":
    sys.exit(main())
