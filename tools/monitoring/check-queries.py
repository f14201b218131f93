#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the shipped Grafana dashboard and Prometheus alert rules against
the metrics er2bcctl metrics writes: every er2bc_ or tcp_rcvmgr_ metric a
query names must be one the exporter produces.

  check-queries.py DASHBOARD RULES (--names FILE | --metrics FILE...)

--names: the metric names the code can print, one a line (the host test,
from er2bcctl's sources); --metrics: files of er2bcctl metrics output (the
package smoke, from a running gateway), whose sample names count, and
whose labels: every label a query selects on, matches on (on, ignoring,
by, without, group_left, group_right), or prints (a legend's {{label}}, an
annotation's $labels.label) must be one of its metrics' labels, or
instance or job, which Prometheus adds. Also
checks the files' shape: every panel has a query, uses the dashboard's data
source variable and a unique id; every rule has an alert name, an
expression, a severity and a summary; every query names one of these
metrics (or node_exporter's node_textfile_ ones). Prints one line per problem; exits 1
if there is any.
"""
import argparse
import json
import re
import sys

import yaml

METRIC = re.compile(r'\b((?:er2bc|tcp_rcvmgr)_[a-z0-9_]*[a-z0-9])\b')
QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')


def names_in(expr):
    """the er2bc and tcp_rcvmgr metric names in a PromQL expression (label
    values, which are quoted, left out)"""
    return set(METRIC.findall(QUOTED.sub('""', expr)))


SELECTOR = re.compile(r'\b((?:er2bc|tcp_rcvmgr)_[a-z0-9_]*[a-z0-9])\s*\{([^}]*)\}')
MATCHER = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)')
GROUPING = re.compile(r'\b(?:on|ignoring|by|without|group_left|group_right)\s*\(([^)]*)\)')
LABEL_VALUES = re.compile(r'label_values\(\s*([a-z0-9_]+)[^,]*,\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)')
SHOWN = re.compile(r'\{\{\s*(?:\$labels\.)?([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}')
ADDED = {"instance", "job"}


def label_problems(where, expr, shown, labels):
    """the labels @expr (and @shown, its legend or annotations) uses that
    its metrics (@labels: name -> set of label names) do not have"""
    out = []
    names = names_in(expr)
    union = set(ADDED).union(*(labels.get(n, set()) for n in names))
    bare = QUOTED.sub('""', expr)
    for m in SELECTOR.finditer(expr):
        for lab in MATCHER.findall(QUOTED.sub('""', m.group(2))):
            if lab not in labels.get(m.group(1), set()) | ADDED:
                out.append(f"{where}: {m.group(1)} has no label {lab}")
    for group in GROUPING.findall(bare):
        for lab in filter(None, (x.strip() for x in group.split(","))):
            if lab not in union:
                out.append(f"{where}: matches on {lab}, which none of its metrics has")
    for metric, lab in LABEL_VALUES.findall(expr):
        if lab not in labels.get(metric, set()) | ADDED:
            out.append(f"{where}: {metric} has no label {lab}")
    for lab in SHOWN.findall(shown):
        if lab not in union:
            out.append(f"{where}: shows {{{{{lab}}}}}, which none of its metrics has")
    return out


def dashboard_queries(dash, problems):
    out = []
    ids = set()
    for p in dash.get("panels", []):
        where = f"dashboard panel {p.get('id')} ({p.get('title')!r})"
        if p.get("id") in ids:
            problems.append(f"{where}: id used twice")
        ids.add(p.get("id"))
        if p.get("datasource", {}).get("uid") != "${datasource}":
            problems.append(f"{where}: not on the $datasource variable")
        targets = p.get("targets") or []
        if not targets:
            problems.append(f"{where}: no query")
        for t in targets:
            if not t.get("expr"):
                problems.append(f"{where}: target {t.get('refId')} has no expr")
            else:
                out.append((where, t["expr"], t.get("legendFormat", "")))
    for v in dash.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            out.append((f"dashboard variable ${v['name']}", v.get("definition", ""), ""))
    return out


def rule_queries(rules, problems):
    out = []
    for g in rules.get("groups", []):
        for r in g.get("rules", []):
            where = f"rule {r.get('alert') or r.get('record')!r}"
            if not r.get("alert") or not r.get("expr"):
                problems.append(f"{where}: an alert name and an expr are required")
                continue
            if not r.get("labels", {}).get("severity"):
                problems.append(f"{where}: no severity label")
            if not r.get("annotations", {}).get("summary"):
                problems.append(f"{where}: no summary annotation")
            out.append((where, r["expr"], " ".join(r.get("annotations", {}).values())))
    return out


def produced(files):
    """metric name -> the set of its label names, over @files"""
    labels = {}
    for path in files:
        with open(path) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    name = re.split(r'[{\s]', line, 1)[0]
                    m = re.match(r'[^{]*\{(.*)\}', line)
                    labs = set(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="', m.group(1))) if m else set()
                    labels.setdefault(name, set()).update(labs)
    return labels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dashboard")
    ap.add_argument("rules")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--names")
    src.add_argument("--metrics", nargs="+")
    args = ap.parse_args()
    problems = []
    with open(args.dashboard) as f:
        queries = dashboard_queries(json.load(f), problems)
    with open(args.rules) as f:
        queries += rule_queries(yaml.safe_load(f), problems)
    labels = None
    if args.names:
        with open(args.names) as f:
            known = {line.strip() for line in f if line.strip()}
        what = "a metric er2bcctl prints"
    else:
        labels = produced(args.metrics)
        known = set(labels)
        what = "in the metrics produced (%s)" % " ".join(args.metrics)
    if len(known) < 20:
        problems.append(f"only {len(known)} metric names to check against")
    used = set()
    for where, expr, shown in queries:
        found = names_in(expr)
        if labels is not None and found <= known:
            problems += label_problems(where, expr, shown, labels)
        # (the one query about the exporter itself: node_exporter's view of
        # the textfile)
        if not found and "node_textfile_" not in expr:
            problems.append(f"{where}: names no er2bc or tcp_rcvmgr metric: {expr!r}")
        for name in sorted(found - known):
            problems.append(f"{where}: {name} is not {what}")
        used |= found
    for p in problems:
        print(p)
    print(f"{len(queries)} queries naming {len(used)} metrics checked; {len(problems)} problems",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
