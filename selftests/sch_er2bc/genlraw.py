#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Raw generic netlink for the er2bc family (or the family named by
$GENL_FAMILY, e.g. tcp_rcvmgr), for what er2bcctl would never send, and to
read the kernel's own description of the family. $GENL_RESERVED sets the
reserved field of the genl header of the requests it sends.

  genlraw.py send CMD ATTR...   send command CMD (a number) with ATTR...,
                                each TYPE:FORMAT:VALUE (FORMAT u8 u16 u32 u64,
                                hex for bytes, prefix for ADDR/LEN as a nest,
                                nest for T:F:V,T:F:V... members);
                                prints "ok" or "errno: extack message", exit 1
                                if refused
  genlraw.py batch GETCMD       for each line of stdin, "CMD ATTR...", send
                                it as send does, then command GETCMD (a do,
                                no attributes); print "RESULT<TAB>DIGEST",
                                RESULT what send prints and DIGEST a hash of
                                GETCMD's reply (the configuration after the
                                request), after a first line
                                "before<TAB>DIGEST": many refusals in one
                                process, which costs seconds on the debug
                                kernel
  genlraw.py wait CMD ATTR...   as send, once a line comes on stdin; prints
                                "ready" first, the family found: a request
                                sent at a moment of the caller's choosing,
                                without the seconds Python takes to start
  genlraw.py policy             the family's ops and per-op policies as JSON
                                (CTRL_CMD_GETFAMILY and CTRL_CMD_GETPOLICY)
  genlraw.py dump CMD ATTR...   dump command CMD; print each reply as JSON:
                                {"cmd": N, "attrs": [[type, length, nested]]},
                                nested listing the attributes of a nest
"""
import hashlib
import json
import os
import socket
import struct
import sys

SOL_NETLINK, NETLINK_EXT_ACK = 270, 11
NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY, CTRL_CMD_GETPOLICY = 3, 10
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME, CTRL_ATTR_OPS = 1, 2, 6
CTRL_ATTR_POLICY, CTRL_ATTR_OP_POLICY, CTRL_ATTR_OP = 8, 9, 10
CTRL_ATTR_OP_ID, CTRL_ATTR_OP_FLAGS = 1, 2
CTRL_ATTR_POLICY_DO, CTRL_ATTR_POLICY_DUMP = 1, 2
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLMSGERR_ATTR_MSG = 1
NLA_F_NESTED = 0x8000
FAMILY = os.environ.get("GENL_FAMILY", "er2bc")
# the genl header's reserved field, which the kernel must refuse when set
RESERVED = int(os.environ.get("GENL_RESERVED", "0"), 0)
FORMATS = {"u8": "B", "u16": "H", "u32": "I", "u64": "Q"}
# enum netlink_attribute_type and enum netlink_policy_type_attr (uapi)
NL_ATTR_TYPES = ["invalid", "flag", "u8", "u16", "u32", "u64", "s8", "s16",
                 "s32", "s64", "binary", "string", "nul-string", "nested",
                 "nested-array", "bitfield32", "sint", "uint"]
NL_POLICY_KEYS = {1: "type", 2: "min-s", 3: "max-s", 4: "min-u", 5: "max-u",
                  6: "min-len", 7: "max-len", 8: "policy-idx",
                  9: "policy-maxtype", 10: "bitfield32-mask", 11: "pad", 12: "mask"}


def attr(kind, payload):
    return struct.pack("HH", 4 + len(payload), kind) + payload + \
        b"\0" * (-len(payload) % 4)


def attrs(buf):
    out = []
    while len(buf) >= 4:
        length, kind = struct.unpack_from("HH", buf)
        if length < 4:
            break
        out.append((kind & 0x3FFF, buf[4:length]))
        buf = buf[(length + 3) & ~3:]
    return out


def u(payload):
    return int.from_bytes(payload, "little")


class Genl:
    def __init__(self):
        self.sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.sk.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sk.bind((0, 0))
        self.seq = 0

    def request(self, family, cmd, body, flags=NLM_F_ACK, raw=False):
        """send; return (errno, extack, [attribute lists of the replies]),
        with raw the replies' genl command and attribute bytes instead"""
        self.seq += 1
        payload = struct.pack("BBH", cmd, 1, RESERVED) + body
        self.sk.send(struct.pack("IHHII", 16 + len(payload), family,
                                 NLM_F_REQUEST | flags, self.seq, 0) + payload)
        replies = []
        while True:
            data = self.sk.recv(1 << 20)
            while data:
                length, kind, mflags, _, _ = struct.unpack_from("IHHII", data)
                msg, data = data[16:length], data[(length + 3) & ~3:]
                if kind == NLMSG_DONE:
                    return 0, "", replies
                if kind == NLMSG_ERROR:
                    err = struct.unpack_from("i", msg)[0]
                    ext = ""
                    orig_len = struct.unpack_from("I", msg, 4)[0]
                    tail = msg[4 + (16 if mflags & 0x100 else orig_len):]
                    for k, v in attrs(tail):
                        if k == NLMSGERR_ATTR_MSG:
                            ext = v.rstrip(b"\0").decode()
                    return -err, ext, replies
                replies.append((msg[0], msg[4:], mflags) if raw else attrs(msg[4:]))

    def family(self, name):
        err, ext, rep = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                                     attr(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
        if err:
            sys.exit(f"family {name}: {os.strerror(err)}")
        return rep[0]


def policy(g):
    fam = g.family(FAMILY)
    fid = u(dict(fam)[CTRL_ATTR_FAMILY_ID])
    ops = {}
    for _, op in attrs(dict(fam)[CTRL_ATTR_OPS]):
        a = dict(attrs(op))
        ops[u(a[CTRL_ATTR_OP_ID])] = {"flags": u(a[CTRL_ATTR_OP_FLAGS])}
    err, ext, rep = g.request(GENL_ID_CTRL, CTRL_CMD_GETPOLICY,
                              attr(CTRL_ATTR_FAMILY_ID, struct.pack("H", fid)),
                              NLM_F_DUMP)
    if err:
        sys.exit(f"getpolicy: {os.strerror(err)}: {ext}")
    policies = {}
    for msg in rep:
        a = dict(msg)
        if CTRL_ATTR_OP_POLICY in a:
            for op_id, p in attrs(a[CTRL_ATTR_OP_POLICY]):
                for kind, idx in attrs(p):
                    key = "do" if kind == CTRL_ATTR_POLICY_DO else "dump"
                    ops.setdefault(op_id, {})[key] = u(idx)
        if CTRL_ATTR_POLICY in a:
            for idx, pol in attrs(a[CTRL_ATTR_POLICY]):
                for attr_type, props in attrs(pol):
                    d = {}
                    for k, v in attrs(props):
                        name = NL_POLICY_KEYS.get(k, str(k))
                        d[name] = NL_ATTR_TYPES[u(v)] if name == "type" else \
                            struct.unpack("q", v)[0] if name.endswith("-s") else u(v)
                    policies.setdefault(str(idx), {})[str(attr_type)] = d
    json.dump({"ops": {str(k): v for k, v in ops.items()}, "policies": policies},
              sys.stdout, indent=1)
    print()


def dump(g, fid, cmd, body):
    err, ext, rep = g.request(fid, cmd, body, NLM_F_DUMP, raw=True)
    if err:
        sys.exit(f"{os.strerror(err)}: {ext}")
    for rcmd, payload, _ in rep:
        out = []
        for kind, value in attrs(payload):
            # a nest's members, if the payload parses as attributes exactly
            inner = attrs(value)
            whole = sum((len(v) + 4 + 3) & ~3 for _, v in inner) == len(value)
            out.append([kind, len(value), [[k, len(v)] for k, v in inner]
                        if inner and whole and len(value) > 8 else []])
        print(json.dumps({"cmd": rcmd, "attrs": out}))


def send(g, fid, cmd, specs):
    """send command CMD with the attributes SPECS; (refused, what send prints)"""
    err, ext, _ = g.request(fid, cmd, b"".join(encode(spec) for spec in specs))
    return bool(err), f"{os.strerror(err)}: {ext}" if err else "ok"


def batch(g, getcmd):
    fid = u(dict(g.family(FAMILY))[CTRL_ATTR_FAMILY_ID])

    def digest():
        err, ext, rep = g.request(fid, getcmd, b"", raw=True)
        if err:
            sys.exit(f"command {getcmd}: {os.strerror(err)}: {ext}")
        return hashlib.sha256(b"".join(p for _, p, _ in rep)).hexdigest()[:16]

    print(f"before\t{digest()}")
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        _, res = send(g, fid, int(words[0]), words[1:])
        print(f"{res}\t{digest()}", flush=True)


def main():
    g = Genl()
    if sys.argv[1] == "policy":
        return policy(g)
    if sys.argv[1] == "batch":
        return batch(g, int(sys.argv[2]))
    cmd = int(sys.argv[2])
    fid = u(dict(g.family(FAMILY))[CTRL_ATTR_FAMILY_ID])
    if sys.argv[1] == "dump":
        return dump(g, fid, cmd, b"".join(encode(spec) for spec in sys.argv[3:]))
    if sys.argv[1] == "wait":
        print("ready", flush=True)
        sys.stdin.readline()
    refused, res = send(g, fid, cmd, sys.argv[3:])
    print(res)
    if refused:
        sys.exit(1)


def encode(spec):
    """One attribute from TYPE:FORMAT:VALUE."""
    kind, fmt, value = spec.split(":", 2)
    if fmt == "nest":
        return attr(int(kind) | NLA_F_NESTED,
                    b"".join(encode(m) for m in value.split(",")))
    if fmt == "hex":
        return attr(int(kind), bytes.fromhex(value))
    if fmt == "prefix":
        addr, plen = value.split("/")
        fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
        return attr(int(kind) | NLA_F_NESTED,
                    attr(1, socket.inet_pton(fam, addr)) +
                    attr(2, struct.pack("B", int(plen))))
    return attr(int(kind), struct.pack(FORMATS[fmt], int(value, 0)))

if __name__ == "__main__":
    main()
