#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send an er2bc qdisc or class request as raw rtnetlink, with options tc's
plugin would never build (wrong sizes, unknown attributes, values out of
range), and print the kernel's answer: "ok", or "errno: extack message".

  nlraw.py qdisc DEV HANDLE [nonest] ATTR...     change the qdisc HANDLE
  nlraw.py class DEV CLASSID [nonest] ATTR...    change or create a class
ATTR is TYPE:FORMAT:VALUE, FORMAT one of u8 u16 u32 u64. Exit status 0 if
the kernel accepted the request, 1 if it refused it.
"""
import os
import socket
import struct
import sys

SOL_NETLINK, NETLINK_EXT_ACK = 270, 11
RTM_NEWQDISC, RTM_NEWTCLASS = 36, 40
NLM_F_REQUEST, NLM_F_ACK, NLM_F_CREATE = 0x1, 0x4, 0x400
NLMSG_ERROR = 2
NLMSGERR_ATTR_MSG = 1
TCA_KIND, TCA_OPTIONS = 1, 2
NLA_F_NESTED = 0x8000
TC_H_ROOT = 0xFFFFFFFF
FORMATS = {"u8": "B", "u16": "H", "u32": "I", "u64": "Q"}


def attr(kind, payload):
    hdr = struct.pack("HH", 4 + len(payload), kind)
    return hdr + payload + b"\0" * (-len(payload) % 4)


def handle(text):
    major, _, minor = text.partition(":")
    return (int(major, 16) << 16) | int(minor or "0", 16)


def main():
    what, dev, hid = sys.argv[1:4]
    args = sys.argv[4:]
    nested = NLA_F_NESTED
    if args and args[0] == "nonest":
        nested = 0
        args = args[1:]
    opts = b""
    for spec in args:
        kind, fmt, value = spec.split(":")
        opts += attr(int(kind), struct.pack(FORMATS[fmt], int(value, 0)))
    with open(f"/sys/class/net/{dev}/ifindex") as f:
        ifindex = int(f.read())
    h = handle(hid)
    if what == "qdisc":
        msg_type, flags, parent = RTM_NEWQDISC, 0, TC_H_ROOT
    else:
        msg_type, flags, parent = RTM_NEWTCLASS, NLM_F_CREATE, h & 0xFFFF0000
    body = struct.pack("BxHiIII", socket.AF_UNSPEC, 0, ifindex, h, parent, 0)
    body += attr(TCA_KIND, b"er2bc\0") + attr(TCA_OPTIONS | nested, opts)
    msg = struct.pack("IHHII", 16 + len(body), msg_type,
                      NLM_F_REQUEST | NLM_F_ACK | flags, 1, 0) + body

    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
    s.send(msg)
    data = s.recv(65536)
    length, rtype, rflags = struct.unpack_from("IHH", data)
    if rtype != NLMSG_ERROR:
        sys.exit(f"unexpected answer type {rtype}")
    (err,) = struct.unpack_from("i", data, 16)
    if err == 0:
        print("ok")
        return 0
    # the request comes back whole, or only its header (NLM_F_CAPPED)
    (orig_len,) = struct.unpack_from("I", data, 20)
    off = 20 + (16 if rflags & 0x100 else (orig_len + 3) & ~3)
    text = ""
    while off + 4 <= length:
        alen, akind = struct.unpack_from("HH", data, off)
        if alen < 4:
            break
        if akind == NLMSGERR_ATTR_MSG:
            text = data[off + 4:off + alen].split(b"\0")[0].decode()
        off += (alen + 3) & ~3
    print(f"{os.strerror(-err)}: {text}")
    return 1


sys.exit(main())
