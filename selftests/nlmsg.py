# SPDX-License-Identifier: GPL-2.0
"""Netlink for the tests' and the tools' Python: attributes, and a dump
request read to its end on a socket of the caller's (no process started
per read, which under TCG costs 0.1-1 s)."""
import socket
import struct

NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLA_TYPE_MASK = 0x3FFF


def attr(kind, payload):
    """one attribute, padded to 4 bytes"""
    return struct.pack("HH", 4 + len(payload), kind) + payload + b"\0" * (-len(payload) % 4)


def attrs(buf):
    """(type, payload) of each attribute in BUF"""
    off = 0
    while off + 4 <= len(buf):
        length, kind = struct.unpack_from("HH", buf, off)
        if length < 4:
            return
        yield kind & NLA_TYPE_MASK, buf[off + 4:off + length]
        off += (length + 3) & ~3


def dump(sock, mtype, body, seq):
    """send a dump request of type MTYPE with BODY on SOCK; yield (type,
    payload) of each answer to it until the kernel's end; OSError if the
    kernel refused it or an answer is malformed"""
    sock.send(struct.pack("IHHII", 16 + len(body), mtype, NLM_F_REQUEST | NLM_F_DUMP, seq, 0)
              + body)
    while True:
        data = sock.recv(1 << 20)
        off = 0
        while off + 16 <= len(data):
            length, kind, _, mseq, _ = struct.unpack_from("IHHII", data, off)
            if length < 16:
                raise OSError(f"netlink: a message of {length} bytes")
            msg = data[off + 16:off + length]
            off += (length + 3) & ~3
            if mseq != seq:
                continue
            if kind == NLMSG_DONE:
                return
            if kind == NLMSG_ERROR:
                err = -struct.unpack_from("i", msg)[0]
                raise OSError(err, f"netlink dump of type {mtype}")
            yield kind, msg


RTM_NEWQDISC, RTM_GETQDISC = 36, 38
TCA_STATS2, TCA_STATS_BASIC, TCA_STATS_QUEUE = 7, 1, 3


def qdisc_backlog(sock, ifindex, seq, parent=0xFFFFFFFF):
    """the backlog in bytes of the qdisc at PARENT (the root by default) of
    IFINDEX, from one RTM_GETQDISC dump on SOCK (NETLINK_ROUTE); None if
    the device has none there"""
    tcm = struct.pack("BxxxiIII", socket.AF_UNSPEC, ifindex, 0, 0, 0)
    got = None
    for kind, msg in dump(sock, RTM_GETQDISC, tcm, seq):
        if kind != RTM_NEWQDISC:
            continue
        _, index, _, qparent, _ = struct.unpack_from("BxxxiIII", msg)
        if index != ifindex or qparent != parent:
            continue
        for k, v in attrs(msg[20:]):
            if k != TCA_STATS2:
                continue
            for k2, v2 in attrs(v):
                if k2 == TCA_STATS_QUEUE:
                    got = struct.unpack_from("IIIII", v2)[1]
    return got
