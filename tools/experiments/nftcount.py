# SPDX-License-Identifier: GPL-2.0
"""Bytes delivered per flow, from nftables counter objects that cannot
count a byte twice.

A namespace's named counters (``add counter ip exp NAME``, bumped by a
rule per flow) are read with one netlink dump (NFT_MSG_GETOBJ) on a
socket opened once in that namespace: no process is started per sample,
which under TCG costs 0.1-1 s. Accumulator turns the cumulative reads into
what each flow received since the run's first read, whatever the reads
miss. (Sums of conntrack entries' differences from the previous read, as
the matrix took them before, counted an entry's whole history again when
one /proc read missed it, or when an earlier run's entry was still there:
rates of 44 and 69 Mbit/s on a 5 Mbit/s link.)
"""
import ctypes
import os
import socket
import struct
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "selftests"))
from nlmsg import attr, attrs, dump  # noqa: E402

NETLINK_NETFILTER = 12
NFNL_SUBSYS_NFTABLES = 10
NFT_MSG_NEWOBJ, NFT_MSG_GETOBJ = 18, 19
NFPROTO_IPV4 = 2
NFTA_OBJ_TABLE, NFTA_OBJ_NAME, NFTA_OBJ_TYPE, NFTA_OBJ_DATA = 1, 2, 3, 4
NFT_OBJECT_COUNTER = 1
NFTA_COUNTER_BYTES = 1
CLONE_NEWNET = 0x40000000


def socket_in(netns):
    """a NETLINK_NETFILTER socket of the network namespace at path NETNS
    (/run/netns/NAME), opened by a thread of its own that enters it: the
    socket stays in that namespace, the process in its own"""
    out = {}

    def enter():
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            fd = os.open(netns, os.O_RDONLY)
            try:
                if libc.setns(fd, CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), f"setns {netns}")
            finally:
                os.close(fd)
            out["sock"] = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
        except OSError as e:
            out["err"] = e

    t = threading.Thread(target=enter)
    t.start()
    t.join()
    if "err" in out:
        raise out["err"]
    return out["sock"]


class Counters:
    """The named counters of one nftables table (family ip) in a namespace"""

    def __init__(self, netns, table):
        self.sock = socket_in(netns)
        self.sock.bind((0, 0))
        self.sock.settimeout(5)
        self.table = table
        self.seq = 0

    def read(self):
        """{name: bytes} of the table's counters, or None if the dump
        failed (the caller's sample keeps what it had)"""
        self.seq += 1
        body = struct.pack("BBH", NFPROTO_IPV4, 0, 0)
        body += attr(NFTA_OBJ_TABLE, self.table.encode() + b"\0")
        body += attr(NFTA_OBJ_TYPE, struct.pack(">I", NFT_OBJECT_COUNTER))
        got = {}
        try:
            for mtype, msg in dump(self.sock, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_GETOBJ,
                                   body, self.seq):
                if mtype != (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWOBJ:
                    continue
                name, nbytes = None, None
                for k, v in attrs(msg[4:]):
                    if k == NFTA_OBJ_NAME:
                        name = v.rstrip(b"\0").decode()
                    elif k == NFTA_OBJ_DATA:
                        for k2, v2 in attrs(v):
                            if k2 == NFTA_COUNTER_BYTES:
                                nbytes = struct.unpack(">Q", v2[:8])[0]
                if name is not None and nbytes is not None:
                    got[name] = nbytes
        except OSError:
            return None
        return got


class Accumulator:
    """What each of NAMES received since the first read, from cumulative
    counter reads. The first read that has a name is its baseline (what an
    earlier run in the same namespace left on it); a read that fails, or
    misses a name, leaves that name's total where it was, and the next
    read that has it adds only what is new; a counter that went backwards
    was created again, and counts from zero. Every such event is counted
    (missed, resets), so that a run can say how its counting went."""

    def __init__(self, names):
        self.names = list(names)
        self.base = {}
        self.last = {}
        self.total = {n: 0 for n in self.names}
        self.missed = 0
        self.resets = 0
        self.complete = False	# the last read had every name

    def update(self, read):
        """fold in one read ({name: bytes} or None); returns the totals,
        in NAMES' order"""
        self.complete = read is not None and all(n in read for n in self.names)
        if read is None:
            self.missed += 1
            return self.totals()
        for n in self.names:
            if n not in read:
                self.missed += 1
                continue
            v = read[n]
            if n not in self.last:
                self.base[n] = v
            elif v < self.last[n]:
                self.resets += 1
                self.total[n] += v
            else:
                self.total[n] += v - self.last[n]
            self.last[n] = v
        return self.totals()

    def totals(self):
        return [self.total[n] for n in self.names]
