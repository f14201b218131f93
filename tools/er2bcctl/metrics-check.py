#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Reads er2bcctl metrics' output on stdin with the Prometheus client
library's own parser (python3-prometheus-client, PyPI's prometheus_client)
and checks what a scraper relies on: it parses, every family has HELP and a
known TYPE, names follow the conventions (er2bc_ or tcp_rcvmgr_, counters
in _total, units in base units), no sample repeats, values are finite.

  metrics-check.py [--expect NAME{LABEL=VALUE,...}=VALUE]...
                   [--absent NAME{LABEL=VALUE,...}]...
                   [--min NAME{LABEL=VALUE,...}=VALUE]...

--expect: a sample that must be there, once, with that value (labels not
given are not compared); --absent: samples that must not be there; --min:
a sample that must be there, once, at that value or above.
Prints one line per problem; exits 1 if there is any.
"""
import argparse
import math
import re
import sys

from prometheus_client.parser import text_string_to_metric_families


def parse_sample(text, with_value):
    m = re.fullmatch(r'([a-z0-9_]+)(?:\{(.*)\})?' + ('=(.+)' if with_value else ''), text)
    if not m:
        raise SystemExit(f"metrics-check: bad sample {text!r}")
    labels = {}
    if m.group(2):
        for item in m.group(2).split(","):
            k, v = item.split("=", 1)
            labels[k] = v
    return m.group(1), labels, float(m.group(3)) if with_value else None


def matching(samples, name, labels):
    return [s for s in samples if s.name == name and
            all(s.labels.get(k) == v for k, v in labels.items())]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--absent", action="append", default=[])
    ap.add_argument("--min", action="append", default=[])
    args = ap.parse_args()
    text = sys.stdin.read()
    problems = []
    try:
        families = list(text_string_to_metric_families(text))
    except Exception as e:  # the parser's own error: the whole point
        print(f"does not parse: {e}")
        return 1
    helps = set(re.findall(r'^# HELP (\S+) ', text, re.M))
    seen = set()
    samples = []
    for fam in families:
        if fam.type not in ("gauge", "counter"):
            problems.append(f"{fam.name}: type {fam.type}")
        if not fam.documentation:
            problems.append(f"{fam.name}: no HELP")
        if not fam.name.startswith(("er2bc_", "tcp_rcvmgr_")):
            problems.append(f"{fam.name}: not in the er2bc_ or tcp_rcvmgr_ namespace")
        for s in fam.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            if key in seen:
                problems.append(f"{s.name}{s.labels}: repeated")
            seen.add(key)
            if not math.isfinite(s.value):
                problems.append(f"{s.name}{s.labels}: {s.value}")
            if fam.type == "counter" and not s.name.endswith("_total"):
                problems.append(f"{s.name}: a counter without _total")
            if fam.type == "gauge" and s.name.endswith("_total"):
                problems.append(f"{s.name}: a gauge named as a counter")
            if fam.type == "counter" and s.value < 0:
                problems.append(f"{s.name}{s.labels}: a negative counter")
            if "bits" in s.name or "_ms" in s.name or "_us" in s.name:
                problems.append(f"{s.name}: not in base units (bytes, seconds)")
            samples.append(s)
    for name in helps:
        if not any(f.name == name or f.name + "_total" == name for f in families):
            problems.append(f"{name}: HELP without samples parsed")
    # one sample each, equal to the value or at least it
    checks = [(e, lambda v, want: math.isclose(v, want, rel_tol=1e-9, abs_tol=1e-9))
              for e in args.expect]
    checks += [(e, lambda v, want: v >= want) for e in args.min]
    for e, good in checks:
        name, labels, value = parse_sample(e, True)
        found = matching(samples, name, labels)
        if len(found) != 1:
            problems.append(f"{e}: {len(found)} samples match")
        elif not good(found[0].value, value):
            problems.append(f"{e}: is {found[0].value}")
    for a in args.absent:
        name, labels, _ = parse_sample(a, False)
        if matching(samples, name, labels):
            problems.append(f"{a}: present")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
