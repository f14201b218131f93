#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the running kernel's er2bc family against its YNL spec.

  spec_check.py SPEC POLICY.json
  spec_check.py SPEC --reply OP DUMP.jsonl

POLICY.json is what `genlraw.py policy` printed. Every operation of the
spec that has a do or a dump must exist in the kernel with that number,
with admin-perm and uns-admin-perm exactly where the spec says, and with a policy that knows
exactly the request's attributes, each of the spec's type and checks; an
event must not be an operation. With --reply, DUMP.jsonl is what
`genlraw.py dump` printed for OP: every message must carry OP's number,
only attributes of the spec's reply, each of its type's size (nests
member by member), and every attribute of the reply must have been seen.
Prints one line per finding; exit 1 if any.
"""
import json
import sys

import yaml

GENL_ADMIN_PERM, GENL_UNS_ADMIN_PERM = 0x01, 0x10
GENL_CMD_CAP_DO, GENL_CMD_CAP_DUMP = 0x02, 0x04
TYPE_MAX = {"u8": 0xFF, "u16": 0xFFFF, "u32": 0xFFFFFFFF, "u64": 0xFFFFFFFFFFFFFFFF}


SIZES = {"u8": 1, "u16": 2, "u32": 4, "u64": 8, "s64": 8, "s32": 4}


def check_reply(spec, opname, path):
    sets = {s["name"]: {i + 1: a for i, a in enumerate(s["attributes"])}
            for s in spec["attribute-sets"]}
    ops = spec["operations"]["list"]
    num, op = next((i + 1, o) for i, o in enumerate(ops) if o["name"] == opname)
    mode = "dump" if "dump" in op else "do"
    allowed = set(op[mode]["reply"]["attributes"])
    aset = sets[op["attribute-set"]]
    bad, seen = [], set()

    def check(attrset, kind, length, nested, where):
        a = attrset.get(kind)
        if not a:
            bad.append(f"{where}: attribute {kind} is not in the spec")
            return None
        if a["type"] in SIZES and length != SIZES[a["type"]]:
            bad.append(f"{where}: {a['name']} has {length} bytes, "
                       f"{a['type']} has {SIZES[a['type']]}")
        if a["type"] == "nest":
            for k, n in nested:
                sub = check(sets[a["nested-attributes"]], k, n, [], f"{where} {a['name']}")
                if sub:
                    seen.add(f"{a['name']}.{sub}")
        return a["name"]

    msgs = [json.loads(line) for line in open(path) if line.strip()]
    for i, m in enumerate(msgs):
        if m["cmd"] != num:
            bad.append(f"message {i}: cmd {m['cmd']}, {opname} is {num}")
        for kind, length, nested in m["attrs"]:
            name = check(aset, kind, length, nested, f"message {i}")
            if name and name not in allowed and aset[kind]["type"] != "pad":
                bad.append(f"message {i}: {name} is not in {opname}'s reply")
            if name:
                seen.add(name)
    # every attribute of the reply came, and every member of its nests
    want = set(allowed)
    for name in allowed:
        a = next(x for x in aset.values() if x["name"] == name)
        if a["type"] == "nest":
            want |= {f"{name}.{m['name']}" for m in
                     spec_set(spec, a["nested-attributes"]) if m["type"] != "pad"}
    for name in sorted(want - seen):
        bad.append(f"{opname}: {name} of the spec's reply never came")
    for line in bad:
        print(line)
    print(f"{len(msgs)} messages, {len(seen)} attributes seen, {len(bad)} findings")
    sys.exit(1 if bad else 0)


def spec_set(spec, name):
    return next(s["attributes"] for s in spec["attribute-sets"] if s["name"] == name)


def flags_mask(spec, name):
    """the OR of a flags definition's values (entries from bit 0)"""
    d = next(d for d in spec.get("definitions", []) if d["name"] == name)
    return (1 << len(d["entries"])) - 1


def check_attr(kernel, sets, consts, p, a, where, bad):
    """one attribute's policy @p against its spec @a; nests recursively;
    returns the number of attributes checked"""
    if not p:
        bad.append(f"{where} not in the kernel's policy")
        return 1
    ktype = {"nested": "nest"}.get(p["type"], p["type"])
    if ktype != a["type"]:
        bad.append(f"{where} is {p['type']}, spec says {a['type']}")
        return 1
    checks = {}
    if a.get("enum-as-flags"):
        # a set of flags: the kernel refuses any other bit
        checks = {"mask": consts["flags:" + a["enum"]]}
    elif a["type"] in TYPE_MAX:
        # unchecked integers must take their whole range
        checks = {"min": 0, "max": TYPE_MAX.get(a["type"])}
    checks.update(a.get("checks", {}))
    for check, value in checks.items():
        value = consts.get(value, value)
        key = {"min": "min-u", "max": "max-u"}.get(check, check)
        if p.get(key) != value:
            bad.append(f"{where} {check} is {p.get(key)}, spec says {value}")
    n = 1
    if a["type"] == "nest":
        inner = kernel["policies"].get(str(p.get("policy-idx")), {})
        for mname, (k, m) in sets[a["nested-attributes"]].items():
            n += check_attr(kernel, sets, consts, inner.get(str(k)), m,
                            f"{where} {mname}", bad)
    return n


def main():
    spec = yaml.safe_load(open(sys.argv[1]))
    if sys.argv[2] == "--reply":
        return check_reply(spec, sys.argv[3], sys.argv[4])
    kernel = json.load(open(sys.argv[2]))
    sets = {s["name"]: {a["name"]: (i + 1, a) for i, a in enumerate(s["attributes"])}
            for s in spec["attribute-sets"]}
    consts = {d["name"]: d["value"] for d in spec.get("definitions", [])
              if d["type"] == "const"}
    consts.update({"flags:" + d["name"]: flags_mask(spec, d["name"])
                   for d in spec.get("definitions", []) if d["type"] == "flags"})
    bad = []
    checked = 0
    for num, op in enumerate(spec["operations"]["list"], 1):
        name = op["name"]
        kop = kernel["ops"].get(str(num))
        modes = [m for m in ("do", "dump") if m in op]
        if not modes:
            if kop:
                bad.append(f"{name}: an event in the spec, op {num} in the kernel")
            continue
        if not kop:
            bad.append(f"{name}: op {num} missing from the kernel")
            continue
        # each permission flag exactly as the spec has it: admin-perm is
        # CAP_NET_ADMIN in the initial user namespace, uns-admin-perm in
        # the one that owns the netns
        for flag, bit in (("admin-perm", GENL_ADMIN_PERM),
                          ("uns-admin-perm", GENL_UNS_ADMIN_PERM)):
            want = flag in op.get("flags", [])
            if want != bool(kop["flags"] & bit):
                bad.append(f"{name}: {flag} {want} in the spec, flags {kop['flags']:#x}")
        for mode in modes:
            cap = GENL_CMD_CAP_DO if mode == "do" else GENL_CMD_CAP_DUMP
            if not kop["flags"] & cap:
                bad.append(f"{name}: no {mode} in the kernel")
                continue
            want = op[mode].get("request", {}).get("attributes", [])
            pol = kernel["policies"].get(str(kop.get(mode)), {})
            attrs = sets[op["attribute-set"]]
            known = {int(k) for k, v in pol.items() if v.get("type") != "invalid"}
            for aname in want:
                n, a = attrs[aname]
                checked += check_attr(kernel, sets, consts, pol.get(str(n)), a,
                                      f"{name} {mode}: {aname}", bad)
            extra = known - {attrs[a][0] for a in want}
            # classic genl_ops (all 6.1 has) give a do and a dump one policy:
            # what the do takes, the dump's start refuses itself
            if mode == "dump" and "do" in op and kop.get("do") == kop.get("dump"):
                extra -= {attrs[a][0] for a in op["do"].get("request", {}).get("attributes", [])}
            for n in sorted(extra):
                bad.append(f"{name} {mode}: attribute {n} accepted, not in the spec's request")
    for line in bad:
        print(line)
    print(f"{len(spec['operations']['list'])} operations, {checked} attributes checked, "
          f"{len(bad)} findings")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
