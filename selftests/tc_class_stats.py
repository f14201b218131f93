#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read `tc -s class show` text (iproute2 6.1 prints classes only as text)
on stdin; print the classes as JSON: {"1:10": {"bytes": .., "packets": ..,
"drops": .., "overlimits": .., "backlog": .., "qlen": .., "guarantee": bps,
"state": .., "bytes_guaranteed": .., "bytes_borrowed": .., "shortage_ns": ..
(to tc's precision: whole ms, or tenths of a second), "service_rate": bps
(0: not measured), "backlog_limit": bytes (0: unbounded), "latency_drops":
.., "leaf": "8001" or None, "options": "prio 1 rate ..."}}; or, given an
expression, what it is with those classes as j.
"""
import json
import re
import sys

UNITS = {"bit": 1, "Kbit": 1e3, "Mbit": 1e6, "Gbit": 1e9, "Tbit": 1e12}
SIZES = {"b": 1, "Kb": 1024, "Mb": 1024 * 1024}


def rate(text):
    m = re.fullmatch(r"([0-9.]+)([KMGT]?bit)", text)
    if not m:
        raise ValueError(f"not a rate: {text}")
    return int(round(float(m.group(1)) * UNITS[m.group(2)]))


def size(text):
    m = re.fullmatch(r"([0-9]+)([KM]?b)", text)
    if not m:
        raise ValueError(f"not a size: {text}")
    return int(m.group(1)) * SIZES[m.group(2)]


def parse(lines):
    """One dump's classes; a classid seen twice starts a new dump: a list of
    dumps is returned, one per `class show` in the text."""
    dumps = []
    classes = {}
    cur = None
    for line in lines:
        m = re.match(r"class (\S+) (\S+) (root |parent \S+ )?(leaf (\S+): )?(.*)", line)
        if m:
            if m.group(2) in classes:
                dumps.append(classes)
                classes = {}
            cur = classes[m.group(2)] = {"kind": m.group(1), "leaf": m.group(5),
                                         "options": m.group(6).strip()}
            continue
        if cur is None:
            continue
        m = re.search(r"Sent (\d+) bytes (\d+) pkt \(dropped (\d+), overlimits (\d+)", line)
        if m:
            cur.update(bytes=int(m.group(1)), packets=int(m.group(2)),
                       drops=int(m.group(3)), overlimits=int(m.group(4)))
        m = re.search(r"backlog (\d+)b (\d+)p", line)
        if m:
            cur.update(backlog=int(m.group(1)), qlen=int(m.group(2)))
        m = re.search(r"guarantee (\S+) state (\S+) credit (-?\d+)", line)
        if m:
            cur.update(guarantee=rate(m.group(1)), state=m.group(2), credit=int(m.group(3)))
        m = re.search(r"sent within guarantee (\d+) bytes borrowed (\d+) bytes", line)
        if m:
            cur.update(bytes_guaranteed=int(m.group(1)), bytes_borrowed=int(m.group(2)))
        m = re.search(r"^\s*shortage ([0-9.]+)(ms|s)\b", line)
        if m:
            cur.update(shortage_ns=int(round(float(m.group(1)) *
                                             (1e6 if m.group(2) == "ms" else 1e9))))
        m = re.search(r"service-rate (\S+) backlog-limit (\S+) latency drops (\d+)", line)
        if m:
            cur.update(service_rate=0 if m.group(1) == "unmeasured" else rate(m.group(1)),
                       backlog_limit=0 if m.group(2) == "unlimited" else size(m.group(2)),
                       latency_drops=int(m.group(3)))
    dumps.append(classes)
    return dumps


if __name__ == "__main__":
    # an expression: printed with the classes as j (selftests/lib.sh's
    # class_stats NS DEV EXPR, as json_get prints it)
    if len(sys.argv) > 1:
        j = parse(sys.stdin)[0]
        print(eval(sys.argv[1]))
    else:
        json.dump(parse(sys.stdin)[0], sys.stdout)
