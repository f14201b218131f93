# SPDX-License-Identifier: GPL-2.0
"""What the raw-packet tools of these tests (rst.py, fragack.py) share: the
Internet checksum, the packet socket's protocol numbers, and the
connection they are about, as arguments."""
import struct

ETH_P_ALL, ETH_P_IP = 0x0003, 0x0800


def csum(data):
    """the Internet checksum (RFC 1071) of @data"""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def conn_args(ap):
    """IFACE SRC SPORT DST DPORT, the positional arguments of both tools"""
    ap.add_argument("iface")
    ap.add_argument("src")
    ap.add_argument("sport", type=int)
    ap.add_argument("dst")
    ap.add_argument("dport", type=int)
