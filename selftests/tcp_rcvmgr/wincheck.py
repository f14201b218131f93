#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The receive windows a TCP sender was offered, read from a capture.

  wincheck.py PCAP PORT [--limit BYTES] [--upload]

PCAP is a tcpdump capture (Ethernet, headers are enough) taken at the sender or anywhere on the
path; PORT is the sender's port (a download), or with --upload the
receiver's (an upload to a server). For each connection on PORT, the window
scale its receiver announced (and whether the sender agreed), then every
ACK the receiver sent after the handshake: its window in bytes (scaled) and
its right edge, ack + window. A SYN-ACK from the receiver offers the first
edge, with its window unscaled (RFC 7323). Prints one JSON object:

  {"conns": N, "wscale": [..], "acks": N, "max_window": B, "min_window": B,
   "over": N, "shrinks": N, "sack_acks": N, "data_segments": N,
   "retransmits": N, "stale": N,
   "per_conn": [{"wscale": S, "acks": N, "min_window": B}, ..]}

over counts ACKs whose window exceeds LIMIT; shrinks counts ACKs whose
right edge lies before one already offered; retransmits counts data
segments that start before the highest sequence already sent. An ACK older
than one already seen (its sequence, then its acknowledgment number,
before theirs: reordered after it was written, as ACKs sent from two CPUs
can be) is a window the sender ignores (RFC 9293 3.10.7.4, SND.WL1 and
SND.WL2): it counts in stale, not in shrinks.
"""
import argparse
import json
import struct


def packets(path):
    with open(path, "rb") as f:
        head = f.read(24)
        magic = struct.unpack("<I", head[:4])[0]
        endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            _, _, incl, _ = struct.unpack(endian + "IIII", rec)
            yield f.read(incl)


def tcp_of(frame):
    if len(frame) < 14:
        return None
    etype = struct.unpack("!H", frame[12:14])[0]
    ip = frame[14:]
    if etype == 0x0800 and len(ip) >= 20 and ip[9] == 6:
        ihl = (ip[0] & 0xF) * 4
        return ip[12:16], ip[16:20], ip[ihl:], struct.unpack("!H", ip[2:4])[0] - ihl
    if etype == 0x86DD and len(ip) >= 40 and ip[6] == 6:
        return ip[8:24], ip[24:40], ip[40:], struct.unpack("!H", ip[4:6])[0]
    return None


def options(tcp, hlen):
    opts, i, out = tcp[20:hlen], 0, {}
    while i < len(opts):
        kind = opts[i]
        if kind == 0:
            break
        if kind == 1:
            i += 1
            continue
        if i + 1 >= len(opts) or opts[i + 1] < 2:
            break
        olen = opts[i + 1]
        if kind == 3 and olen == 3:
            out["ws"] = opts[i + 2]
        elif kind == 5:
            out["sack"] = True
        i += olen
    return out


def after(a, b):
    """a comes after b in sequence space"""
    return 0 < ((a - b) & 0xFFFFFFFF) < 0x80000000


def new_conn():
    """a connection's state: the receiver's and the sender's window scale,
    the right edge offered, the sender's highest sequence, and (SND.WL1,
    SND.WL2) of the newest ACK"""
    return {"rws": None, "sws": None, "edge": None, "top": None, "wl": None,
            "acks": 0, "min": None}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pcap")
    ap.add_argument("port", type=int)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--upload", action="store_true")
    args = ap.parse_args()

    conns = {}
    res = {"conns": 0, "wscale": [], "acks": 0, "max_window": 0,
           "min_window": None, "over": 0, "shrinks": 0, "sack_acks": 0,
           "data_segments": 0, "retransmits": 0, "stale": 0}
    for frame in packets(args.pcap):
        t = tcp_of(frame)
        if not t or len(t[2]) < 20:
            continue
        src, dst, tcp, seglen = t
        sport, dport, seq, ack, off, flags, win = struct.unpack("!HHIIBBH", tcp[:16])
        hlen = (off >> 4) * 4
        syn, ackf = flags & 0x02, flags & 0x10
        # PORT, at the receiver's end of a packet it sent, and at the
        # sender's; a connection is named by the other port, the client's
        rx_port, tx_port = (sport, dport) if args.upload else (dport, sport)
        if rx_port == args.port:        # the receiver's side
            key = (dst, src, dport if args.upload else sport)
            c = conns.setdefault(key, new_conn())
            o = options(tcp, hlen)
            if syn:
                c["rws"] = o.get("ws", -1)   # -1: no scaling offered
                if ackf:
                    c["edge"] = (ack + win) & 0xFFFFFFFF
                continue
            if not ackf or c["rws"] is None or c["sws"] is None:
                continue
            ws = c["rws"] if c["sws"] and c["rws"] >= 0 else 0
            w = win << ws
            edge = (ack + w) & 0xFFFFFFFF
            res["acks"] += 1
            res["max_window"] = max(res["max_window"], w)
            res["min_window"] = w if res["min_window"] is None else min(res["min_window"], w)
            c["acks"] += 1
            c["min"] = w if c["min"] is None else min(c["min"], w)
            if args.limit is not None and w > args.limit:
                res["over"] += 1
            if c["wl"] is not None and (after(c["wl"][0], seq) or
                                        (c["wl"][0] == seq and after(c["wl"][1], ack))):
                res["stale"] += 1
            else:
                c["wl"] = (seq, ack)
                if c["edge"] is not None and after(c["edge"], edge):
                    res["shrinks"] += 1
                if c["edge"] is None or after(edge, c["edge"]):
                    c["edge"] = edge
            if o.get("sack"):
                res["sack_acks"] += 1
        elif tx_port == args.port:      # the sender's side
            key = (src, dst, sport if args.upload else dport)
            c = conns.setdefault(key, new_conn())
            if syn:
                c["sws"] = "ws" in options(tcp, hlen)
                continue
            plen = seglen - hlen  # the capture may be cut short
            if not plen:
                continue
            res["data_segments"] += 1
            if c["top"] is not None and after(c["top"], seq):
                res["retransmits"] += 1
            end = (seq + plen) & 0xFFFFFFFF
            if c["top"] is None or after(end, c["top"]):
                c["top"] = end
    res["conns"] = sum(1 for c in conns.values() if c["rws"] is not None or c["sws"] is not None)
    res["wscale"] = sorted({(c["rws"] if c["sws"] and c["rws"] >= 0 else 0)
                            for c in conns.values()
                            if c["rws"] is not None and c["sws"] is not None})
    res["per_conn"] = sorted(({"wscale": c["rws"] if c["sws"] and c["rws"] >= 0 else 0,
                               "acks": c["acks"], "min_window": c["min"]}
                              for c in conns.values() if c["acks"]),
                             key=lambda x: (x["wscale"], x["acks"]))
    print(json.dumps(res))


if __name__ == "__main__":
    main()
