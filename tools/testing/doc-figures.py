#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Figures the documentation cites, checked against the results they come
from (make check's host stage). Each check names a sentence of a document,
with the figure as a regex group, and the value in Documentation/results/
that the figure must show, as the document rounds it. A rerun benchmark
whose figures the documents do not follow fails here; so does a sentence
that was reworded (the check must then be moved with it).

  doc-figures.py

Prints TAP, and last `doc-figures: N passed, N failed`.
"""
import functools
import json
import os
import re
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
RESULTS = os.path.join(TOP, "Documentation", "results")

# (document, sentence with (group)s, results file, [(expression over j, format)])
CHECKS = [
    ("Documentation/evaluation.rst",
     r"With UDP, pfifo's (\S+) \[(\S+), (\S+)\] % wins over every shaper",
     "matrix/report-c85e06a27f35.json",
     [(f"100 * [r for r in j['rows'] if r['scenario'] == 'dbhpf' and "
       f"r['impairment'] == 'elastic' and r['proto'] == 'udp'][0]"
       f"['contenders']['none']['p13']{k}", "{:.1f}")
      for k in ("['median']", "['ci95'][0]", "['ci95'][1]")]),
    # set 14: W from the qdisc's cap, against the paper's 1 Mbit/s
    ("Documentation/er2bc-estimator.rst",
     r"priorities 1-3 short (\S+) % of the time from 1 Mbit/s and (\S+) % from the cap",
     "matrix/report-b07fad911f62.json",
     [(f"100 * [r for r in j['rows'] if r['impairment'] == 'elastic' and r['proto'] == 'udp']"
       f"[0]['contenders']['{c}']['p13']['median']", "{:.1f}")
      for c in ("er2bc:loss+queue", "er2bc:loss+queue+w-ini-qdisc")]),
    ("Documentation/evaluation.rst",
     r"elastic UDP (\S+) \[(\S+), (\S+)\] (\S+) \[(\S+), (\S+)\] \S+ \[\S+, \S+\] (\S+) \[(\S+), (\S+)\] (\S+) \[(\S+), (\S+)\] \S+ \[\S+, \S+\] ",
     "matrix/report-b07fad911f62.json",
     [(f"100 * [r for r in j['rows'] if r['impairment'] == 'elastic' and r['proto'] == 'udp']"
       f"[0]['contenders']['{c}']['p13']{k}", "{:.1f}")
      for c in ("er2bc:loss+queue", "er2bc:loss+queue+w-ini-qdisc",
                "er2bc:delay+compete+drain+probe", "er2bc:delay+compete+drain+probe+w-ini-qdisc")
      for k in ("['median']", "['ci95'][0]", "['ci95'][1]")]),
] + [
    ("Documentation/evaluation.rst",
     rf"{cell} {proto.upper()} \S+ \[\S+, \S+\] \S+ \[\S+, \S+\] (\S+) \[(\S+), (\S+)\] \S+ \[\S+, \S+\] \S+ \[\S+, \S+\] (\S+) \[(\S+), (\S+)\] ",
     "matrix/compare-b07fad911f62-w-ini.json",
     [(f"100 * [r for r in j['rows'] if r['impairment'] == '{cell}' and r['proto'] == '{proto}' "
       f"and r['contender'] == '{c}'][0]['paired']{k}", "{:+.1f}")
      for c in ("er2bc:loss+queue", "er2bc:delay+compete+drain+probe")
      for k in ("['median']", "['ci95'][0]", "['ci95'][1]")])
    for cell, proto in (("elastic", "udp"), ("loss1", "tcp"))
] + [
    ("Documentation/evaluation.rst",
     r"pfifo in the same runs: ``elastic`` (\S+) \[(\S+), (\S+)\] and (\S+) \[(\S+), (\S+)\] \(TCP, UDP\)",
     "matrix/report-b07fad911f62.json",
     [(f"100 * [r for r in j['rows'] if r['impairment'] == 'elastic' and r['proto'] == '{p}']"
       f"[0]['contenders']['none']['p13']{k}", "{:.1f}")
      for p in ("tcp", "udp") for k in ("['median']", "['ci95'][0]", "['ci95'][1]")]),
    ("Documentation/evaluation.rst",
     r"the default's priority 1 tail is\s+(\d+) ms against pfifo's (\d+)",
     "matrix/report-c85e06a27f35.json",
     [(f"[r for r in j['rows'] if r['scenario'] == 'dbhpf' and "
       f"r['impairment'] == 'elastic' and r['proto'] == 'tcp'][0]"
       f"['contenders']['{c}']['p1_owd_p99_ms']['median']", "{:.0f}")
      for c in ("er2bc:loss+queue", "none")]),
    ("Documentation/evaluation.rst",
     r"\*\*\+queue\*\* is better than the paper's rule in loss1 UDP and both loss3 cells, with the paired intervals below zero, and not told apart in the 13 others\. Priority 1's p99 one-way delay under 3 % loss: (\d+) \[(\d+), (\d+)\] and (\d+) \[(\d+), (\d+)\] ms \(TCP, UDP\) where the paper's rule has (\d+) \[(\d+), (\d+)\] and (\d+) \[(\d+), (\d+)\] ms",
     "matrix/report-14e4190452a0.json",
     [(f"[r for r in j['rows'] if r['impairment'] == 'loss3' and r['proto'] == '{p}']"
       f"[0]['contenders']['{c}']['p1_owd_p99_ms']{k}", "{:.0f}")
      for c in ("er2bc:loss+queue", "er2bc:loss") for p in ("tcp", "udp")
      for k in ("['median']", "['ci95'][0]", "['ci95'][1]")]),
    ("Documentation/evaluation.rst",
     r"loss3 TCP\s+78\.4 \[67\.3, 79\.9\]\s+29\.6 \[19\.2, 43\.0\]\s+\*\*(\S+) \[(\S+), (\S+)\]\*\*",
     "matrix/report-14e4190452a0.json",
     [("100 * [r for r in j['rows'] if r['impairment'] == 'loss3' and r['proto'] == 'tcp']"
       "[0]['paired']['er2bc:loss']['median']", "{:+.1f}"),
      ("100 * [r for r in j['rows'] if r['impairment'] == 'loss3' and r['proto'] == 'tcp']"
       "[0]['paired']['er2bc:loss']['ci95'][0]", "{:+.1f}"),
      ("100 * [r for r in j['rows'] if r['impairment'] == 'loss3' and r['proto'] == 'tcp']"
       "[0]['paired']['er2bc:loss']['ci95'][1]", "{:+.1f}")]),
    ("Documentation/tcp_rcvmgr.rst",
     r"tcp_rcvmgr adds (\d+)\s+instructions per forwarded ACK at 10 connections, (\d+) at 10000 and (\d+)\s+at 100000, where conntrack adds (\d+), (\d+) and (\d+)",
     "bench-rcvmgr.json",
     [("j['module_adds_ns_per_packet']['10']", "{:.0f}"),
      ("j['module_adds_ns_per_packet']['10000']", "{:.0f}"),
      ("j['module_adds_ns_per_packet']['100000']", "{:.0f}"),
      ("j['conntrack_adds_ns_per_packet']['10']", "{:.0f}"),
      ("j['conntrack_adds_ns_per_packet']['10000']", "{:.0f}"),
      ("j['conntrack_adds_ns_per_packet']['100000']", "{:.0f}")]),
    ("Documentation/tcp_rcvmgr.rst",
     r"At 100000 connections the run\s+that met it took (\S+) million instructions more",
     "bench-rcvmgr.json",
     [("j['azuma_walk_instructions']['100000'] / 1e6", "{:.1f}")]),
    ("Documentation/tcp_rcvmgr.rst",
     r"A spoofed SYN that creates an entry costs the\s+gateway (\d+) instructions more with the module, (\d+) with conntrack",
     "bench-rcvmgr.json",
     [("j['flood_adds_ns_per_syn']['module']", "{:.0f}"),
      ("j['flood_adds_ns_per_syn']['conntrack']", "{:.0f}")]),
    ("Documentation/status.rst",
     r"at (\S+) of HTB's extra over pfifo with no filter, (\S+)-(\S+) with a filter or a backlog",
     "bench-qdisc.json",
     [("min(r['ratio'] for r in j['rows'] if r['pattern'] == 'a0')", "{:.2f}"),
      ("min(r['ratio'] for r in j['rows'] if r['pattern'] != 'a0')", "{:.2f}"),
      ("max(r['ratio'] for r in j['rows'] if r['pattern'] != 'a0')", "{:.2f}")]),
    ("Documentation/sch_er2bc.rst",
     r"prio alone adds (\d+) instructions over pfifo in pattern a, where half of HTB's extra is (\d+)",
     "bench-qdisc.json",
     [("j['floor_prio']['a']['prio_extra']", "{:.0f}"),
      ("j['floor_prio']['a']['budget_over_prio'][0]['htb_extra_half']", "{:.0f}")]),
    ("Documentation/sch_er2bc.rst",
     r"Of er2bc's own part, beyond prio's: (\d+) instructions in a0, (\d+) in a\.",
     "bench-qdisc.json",
     [("j['floor_prio']['a0']['budget_over_prio'][0]['er2bc_over_prio']", "{:.0f}"),
      ("j['floor_prio']['a']['budget_over_prio'][0]['er2bc_over_prio']", "{:.0f}")]),
    ("Documentation/sch_er2bc.rst",
     r"frames add to er2bc's drain over pfifo's: (\d+) instructions a packet at one\s+"
     r"class, (\d+) at 16\.",
     "bench-qdisc.json",
     [("[r['growth'] for r in j['lending']['rows'] if r['qdisc'] == 'er2bc'][0]", "{:.0f}"),
      ("[r['growth'] for r in j['lending']['rows'] if r['qdisc'] == 'er2bc'][1]", "{:.0f}")]),
    ("Documentation/evaluation.rst",
     r"The existing method is much better here than in the paper\*\* \(TCP priority 1 ([\d.]+) % "
     r"against 82\.1 %\)",
     "full/table5.json",
     [("j['tcp']['static'][0] * 100", "{:.1f}")]),
    ("Documentation/er2bc-estimator.rst",
     r"the qdisc's counting adds (\d+) instructions a packet with one prefix and (\d+) with four "
     r"\(on (\d+) for the whole transmit path\)\. The meter added (\d+) \(on (\d+) for transmit",
     "bench-estimator.json",
     [("j['hook_extra_ns']['qdisc_counting']", "{:.0f}"),
      ("j['hook_extra_ns']['qdisc_counting_4_prefixes']", "{:.0f}"),
      ("j['hook_cost_ns']['qdisc/off']", "{:.0f}"),
      ("j['hook_extra_ns']['meter_counting']", "{:.0f}"),
      ("j['hook_cost_ns']['meter/off']", "{:.0f}")]),
    ("Documentation/er2bc-estimator.rst",
     r"a frame costs (\d+) instructions\s+with no meter, (\d+) with a meter that counts it and "
     r"(\d+) with one that\s+ignores it",
     "bench-meter.json",
     [("[c for c in j['cost'] if c['meter'] == 'none'][0]['instructions_per_frame'][0]", "{:.0f}"),
      ("[c for c in j['cost'] if c['meter'] == 'counted'][0]['instructions_per_frame'][0]",
       "{:.0f}"),
      ("[c for c in j['cost'] if c['meter'] == 'ignored'][0]['instructions_per_frame'][0]",
       "{:.0f}")]),
    ("Documentation/er2bc-estimator.rst",
     r"- (\d+) bytes per estimate on IPv4 \((\d+) authenticated\)",
     "bench-estimator.json",
     [("j['bytes_per_estimate']", "{:.0f}"), ("j['bytes_per_estimate_auth']", "{:.0f}")]),
    ("Documentation/er2bc-estimator.rst",
     r"- (\d+) false losses in (\d+) estimates under a standing queue \(the bottleneck (\d+)% busy",
     "bench-estimator.json",
     [("j['false_losses']", "{}"), ("j['estimates']", "{}"), ("j['utilization'] * 100", "{:.0f}")]),
    ("Documentation/er2bc-estimator.rst",
     r"W within 10 % of each new ABW ([\d.]+) s after the step \(median; ([\d.]+) s at most\)\. "
     r"Once there, it overshoots by at most ([\d.]+) Mbit/s and undershoots by ([\d.]+)\.",
     "bench-estimator.json",
     [("j['tracking_delay_s']", "{:.1f}"), ("j['tracking_delay_max_s']", "{:.1f}"),
      ("j['overshoot_bps'] / 1e6", "{:.3f}"), ("j['undershoot_bps'] / 1e6", "{:.3f}")]),
    ("Documentation/er2bc-controller.rst",
     r"with (\d+) classes, er2bc puts new guarantees in force in ([\d.,]+) thousand instructions "
     r"\(p50, send to ACK\); htb takes ([\d.,]+) thousand for the same classes' new rates over "
     r"netlink, ([\d.]+) times as many, and ([\d.,]+) thousand through tc -batch",
     "bench-ctrl.json",
     [("j['rows'][0]['classes']", "{}"), ("j['rows'][0]['apply_p50_us']", "{:,.1f}"),
      ("j['rows'][0]['htb_netlink_p50_us']", "{:,.1f}"),
      ("j['rows'][0]['htb_netlink_over_er2bc_p50']", "{:.1f}"),
      ("j['rows'][0]['htb_tc_p50_us']", "{:,.0f}")]),
    ("Documentation/er2bc-controller.rst",
     r"With (\d+) classes: ([\d.,]+) thousand against ([\d.,]+) \(([\d.]+) times\)",
     "bench-ctrl.json",
     [("j['rows'][-1]['classes']", "{}"), ("j['rows'][-1]['apply_p50_us']", "{:,.0f}"),
      ("j['rows'][-1]['htb_netlink_p50_us']", "{:,.0f}"),
      ("j['rows'][-1]['htb_netlink_over_er2bc_p50']", "{:.1f}")]),
    ("Documentation/evaluation.rst",
     r"Averaged over the 32: pfifo (\S+) %, eR2BC \(``loss``\) (\S+) %, static (\S+) %, "
     r"eR2BC \(``hybrid``\) (\S+) %, cake (\S+) %, eR2BC \(``delay``\) (\S+) %, htb (\S+) %",
     "matrix.json",
     [(f"100 * mean13(j, '{b}', {m!r})", "{:.1f}") for b, m in
      (("none", None), ("er2bc", "loss"), ("static", "loss"), ("er2bc", "hybrid"),
       ("cake", "loss"), ("er2bc", "delay"), ("htb", "loss"))]),
    ("README.md",
     r"the best average of the matrix \(priorities 1-3 short (\S+) % of the time, "
     r"`loss` (\S+) %, static (\S+) %, cake (\S+) %, htb (\S+) %\)",
     "matrix.json",
     [(f"100 * mean13(j, '{b}', {m!r})", "{:.1f}") for b, m in
      (("er2bc", "hybrid"), ("er2bc", "loss"), ("static", "loss"), ("cake", "loss"),
       ("htb", "loss"))]),
    ("README.md",
     r"over its three runs, priorities 1-3 short (\S+) % of the time on average, against "
     r"(\S+) % for `hybrid` and (\S+) % for `delay`",
     "matrix.json",
     [(f"100 * elastic13(j, 'er2bc', {m!r}, every=True)", "{:.1f}")
      for m in ("loss", "hybrid", "delay")]),
    ("Documentation/evaluation.rst",
     r"Over the three runs \(12 pairs each\): pfifo (\S+) %, cake (\S+) %, htb (\S+) %, "
     r"eR2BC \(``loss``\) (\S+) %, static (\S+) %, ``hybrid`` (\S+) %, ``delay`` (\S+) %",
     "matrix.json",
     [(f"100 * elastic13(j, '{b}', {m!r}, every=True)", "{:.1f}") for b, m in
      (("none", None), ("cake", "loss"), ("htb", "loss"), ("er2bc", "loss"), ("static", "loss"),
       ("er2bc", "hybrid"), ("er2bc", "delay"))]),
    ("Documentation/evaluation.rst",
     r"the paper's rule (\S+), (\S+) and (\S+) %, ``hybrid`` (\S+), (\S+) and (\S+) %, "
     r"``delay`` (\S+), (\S+) and (\S+) %",
     "matrix.json",
     [(f"100 * elastic13({w}, 'er2bc', {m!r})", "{:.1f}") for m in ("loss", "hybrid", "delay")
      for w in ("j", "earlier_elastic()[0]", "earlier_elastic()[1]")]),
    ("Documentation/evaluation.rst",
     r"Their worst cells: eR2BC \(``loss``\) (\S+) %, pfifo (\S+) %",
     "matrix.json",
     [("100 * worst13(j, 'er2bc', 'loss')", "{:.1f}"), ("100 * worst13(j, 'none', None)", "{:.1f}")]),
    ("Documentation/evaluation.rst",
     r"\(mean of priorities 1-3: (\S+) %\) and [\d., %]+ for UDP \((\S+) %\)",
     "matrix.json",
     [(f"100 * ideal13(j, {p!r})", "{:.1f}") for p in ("tcp", "udp")]),
    ("Documentation/evaluation.rst",
     r"more than 2 points above static's in (\d+) of the (\d+) cell-protocol pairs, "
     r"more than 2 below in (\d+), within 2 in (\d+)",
     "matrix.json",
     [("versus(j)[0]", "{}"), ("versus(j)[3]", "{}"), ("versus(j)[1]", "{}"),
      ("versus(j)[2]", "{}")]),
]


def _p13(j, baseline, mode):
    """the mean shortage of priorities 1-3 of each cell and protocol, for
    one baseline and estimator rule (matrix.json)"""
    return {(e["scenario"], e["impairment"], e["proto"]): sum(e["shortage"][:3]) / 3
            for e in j["cells"] if e["baseline"] == baseline and e["estimator_mode"] == mode}


def ideal13(j, proto):
    """the ideal's mean shortage of priorities 1-3 in DBHPF's published
    cell (matrix.json's "ideal")"""
    i = next(e for e in j["ideal"] if (e["scenario"], e["impairment"], e["proto"]) ==
             ("dbhpf", "published", proto))
    return sum(i["shortage"][:3]) / 3


# the elastic cells' earlier runs (matrix-elastic-COMMIT.json), the latest first
ELASTIC_RUNS = ("c1b1433", "d432656")


@functools.cache
def earlier_elastic():
    """the earlier runs' results (read once: every elastic figure asks for
    them)"""
    return [json.load(open(os.path.join(RESULTS, f"matrix-elastic-{c}.json")))
            for c in ELASTIC_RUNS]


def elastic13(j, baseline, mode, every=False):
    """the mean shortage of priorities 1-3 over the elastic cells of @j,
    or of @j and every earlier run of them together"""
    v = [x for k, x in _p13(j, baseline, mode).items() if k[1] == "elastic"]
    if every:
        for r in earlier_elastic():
            v += list(_p13(r, baseline, mode).values())
    return sum(v) / len(v)


def mean13(j, baseline, mode):
    v = list(_p13(j, baseline, mode).values())
    return sum(v) / len(v)


def worst13(j, baseline, mode):
    return max(_p13(j, baseline, mode).values())


def versus(j):
    """er2bc (loss) against static: pairs worse by more than 2 points,
    better by more than 2, within 2, and all"""
    e, s = _p13(j, "er2bc", "loss"), _p13(j, "static", "loss")
    worse = sum(e[k] > s[k] + 0.02 for k in e)
    better = sum(e[k] < s[k] - 0.02 for k in e)
    return worse, better, len(e) - worse - better, len(e)


# the real-time cells beside their compressed runs (evaluation.rst,
# "The real-time cells, measured"): per cell and protocol, each
# contender's median and interval at 1 s and at 4x
RT = "matrix/report-4a681aa581fe.json"
RT_NAMES = (("pfifo", "none"), ("cake", "cake:loss+queue"), ("static", "static:loss+queue"),
            ("default", "er2bc:loss+queue"))


def rt_row(imp, proto, scale, c, k):
    return (f"100 * [r for r in j['rows'] if r['impairment'] == '{imp}' and r['proto'] == '{proto}'"
            f" and r['scale'] == {scale}][0]['contenders']['{c}']['p13']{k}")


for imp, proto in (("elastic", "tcp"), ("elastic", "udp"), ("loss1", "tcp"), ("loss1", "udp")):
    CHECKS.append((
        "Documentation/evaluation.rst",
        rf"{imp} {proto.upper()} " + " ".join(
            rf"{name} (\S+) \[(\S+), (\S+)\] (\S+) \[(\S+), (\S+)\]" for name, _ in RT_NAMES),
        RT,
        [(rt_row(imp, proto, scale, c, k), "{:.1f}")
         for _, c in RT_NAMES for scale in (1.0, 4.0)
         for k in ("['median']", "['ci95'][0]", "['ci95'][1]")]))
CHECKS.append((
    "Documentation/evaluation.rst",
    r"at 1 s pfifo (\S+) \[(\S+), (\S+)\], cake (\S+) \[(\S+), (\S+)\], static (\S+) \[(\S+), "
    r"(\S+)\], the default (\S+) \[(\S+), (\S+)\]; compressed pfifo (\S+) \[(\S+), (\S+)\], "
    r"cake (\S+) \[(\S+), (\S+)\], static (\S+) \[(\S+), (\S+)\], the default (\S+) "
    r"\[(\S+), (\S+)\]\.",
    RT,
    [(f"100 * [o for o in j['overall'] if o['scale'] == {scale}][0]['contenders']['{c}']{k}",
      "{:.1f}")
     for scale in (1.0, 4.0) for _, c in RT_NAMES
     for k in ("['mean_of_medians']", "['ci95'][0]", "['ci95'][1]")]))

# compete at 1 s beside CUBIC (evaluation.rst, "The real-time cells,
# measured"): its medians and intervals, the default's, pfifo's; the
# default less compete, paired; priority 1's p99
RTC = "matrix/report-4a681aa581fe-compete.json"


def rtc(proto, c, what):
    return (f"[r for r in j['rows'] if r['impairment'] == 'elastic' and r['proto'] == '{proto}'"
            f" and r['scale'] == 1.0][0]['contenders']['{c}']{what}")


def rtc_paired(proto, k):
    return (f"100 * [r for r in j['rows'] if r['impairment'] == 'elastic' and r['proto'] == "
            f"'{proto}' and r['scale'] == 1.0][0]['paired']['er2bc:loss+compete+queue']{k}")


CC = "er2bc:loss+compete+queue"
CHECKS.append((
    "Documentation/evaluation.rst",
    r"Priorities 1-3 short, TCP (\S+) \[(\S+), (\S+)\] and UDP (\S+) \[(\S+), (\S+)\], where "
    r"the default is (\S+) and (\S+) and pfifo (\S+) and (\S+)\. Paired by seed, the default "
    r"less ``compete``: TCP (\S+) \[(\S+), (\S+)\], UDP (\S+) \[(\S+), (\S+)\]:",
    RTC,
    [("100 * " + rtc(p, CC, "['p13']" + k), "{:.1f}") for p in ("tcp", "udp")
     for k in ("['median']", "['ci95'][0]", "['ci95'][1]")] +
    [("100 * " + rtc(p, c, "['p13']['median']"), "{:.1f}")
     for c in ("er2bc:loss+queue", "none") for p in ("tcp", "udp")] +
    [(rtc_paired(p, k), "{:+.1f}") for p in ("tcp", "udp")
     for k in ("['median']", "['ci95'][0]", "['ci95'][1]")]))
CHECKS.append((
    "Documentation/evaluation.rst",
    r"priority 1's p99 one-way delay, (\S+) ms \[(\S+), (\S+)\] \(TCP\) and (\S+) \[(\S+), "
    r"(\S+)\] \(UDP\), a tenth to a twenty-fifth of the default's (\S+) and (\S+) but 30 to 55 "
    r"times pfifo's (\S+) and (\S+) \(medians;",
    RTC,
    [(rtc(p, CC, "['p1_owd_p99_ms']" + k), "{:.0f}") for p in ("tcp", "udp")
     for k in ("['median']", "['ci95'][0]", "['ci95'][1]")] +
    [(rtc(p, c, "['p1_owd_p99_ms']['median']"), "{:.0f}")
     for c in ("er2bc:loss+queue", "none") for p in ("tcp", "udp")]))


# the classes' latency bound (evaluation.rst, "The classes' latency bound,
# measured"): each row of its table, and the default less the default
# unbounded, paired
LB = "matrix/report-b410b453c1e9.json"
LB_ROWS = [("elastic", "tcp", ["none", "cake:loss+queue", "er2bc:loss+queue",
                               "er2bc:loss+queue+latency0", "er2bc:loss+compete+queue"]),
           ("elastic", "udp", ["none", "cake:loss+queue", "er2bc:loss+queue",
                               "er2bc:loss+queue+latency0", "er2bc:loss+compete+queue"]),
           ("deep", "tcp", ["none", "cake:loss+queue", "er2bc:loss+queue",
                            "er2bc:loss+queue+latency0", "er2bc:loss+compete+queue"]),
           ("deep", "udp", ["none", "cake:loss+queue", "er2bc:loss+queue",
                            "er2bc:loss+queue+latency0", "er2bc:loss+compete+queue"])]
LB_NAMES = {"none": "pfifo", "cake:loss+queue": "cake", "er2bc:loss+queue": "default @0510f45",
            "er2bc:loss+queue+latency0": "default, unbounded",
            "er2bc:loss+compete+queue": "compete @0510f45"}


def lb(imp, proto, c, what):
    return (f"[r for r in j['rows'] if r['impairment'] == '{imp}' and r['proto'] == '{proto}']"
            f"[0]['contenders']['{c}']{what}")


for imp, proto, cs in LB_ROWS:
    CHECKS.append((
        "Documentation/evaluation.rst",
        rf"{imp} {proto.upper()} " + " ".join(
            re.escape(LB_NAMES[c] if i else "pfifo") +
            r" (\S+) \[(\S+), (\S+)\] (\S+) \[(\S+), (\S+)\]"
            for i, c in enumerate(cs)),
        LB,
        [(("100 * " if what == "['p13']" else "") + lb(imp, proto, c, what + k),
          "{:.1f}" if what == "['p13']" else "{:.0f}")
         for c in cs for what in ("['p13']", "['p1_owd_p99_ms']")
         for k in ("['median']", "['ci95'][0]", "['ci95'][1]")]))


def lb_paired(imp, proto, k):
    return (f"100 * [r for r in j['rows'] if r['impairment'] == '{imp}' and r['proto'] == "
            f"'{proto}'][0]['paired']['er2bc:loss+queue+latency0']{k}")


CHECKS.append((
    "Documentation/evaluation.rst",
    r"the default less the default unbounded: ``elastic`` TCP (\S+) \[(\S+), (\S+)\], UDP "
    r"(\S+) \[(\S+), (\S+)\]; ``deep`` TCP (\S+) \[(\S+), (\S+)\], UDP (\S+) \[(\S+), "
    r"(\S+)\]\.",
    LB,
    [(lb_paired(i, p, k), "{:+.1f}") for i in ("elastic", "deep") for p in ("tcp", "udp")
     for k in ("['median']", "['ci95'][0]", "['ci95'][1]")]))


def main():
    n = failed = 0
    for doc, sentence, res, values in CHECKS:
        n += 1
        text = " ".join(open(os.path.join(TOP, doc)).read().split())
        j = json.load(open(os.path.join(RESULTS, res)))
        m = re.search(sentence, text)
        try:
            want = [fmt.format(eval(expr, {"j": j, "mean13": mean13, "worst13": worst13,
                                           "versus": versus, "ideal13": ideal13,
                                           "elastic13": elastic13,
                                           "earlier_elastic": earlier_elastic}))
                    for expr, fmt in values]
        except (KeyError, IndexError, TypeError, ValueError, StopIteration) as e:
            print(f"not ok {n} - {doc}: {res} lacks what the sentence cites ({e!r})")
            failed += 1
            continue
        if not m:
            print(f"not ok {n} - {doc}: no sentence /{sentence}/ (the results give {want})")
            failed += 1
            continue
        got = list(m.groups())
        if got != want:
            print(f"not ok {n} - {doc}: '{m.group(0)[:70]}...' says {got}, {res} gives {want}")
            failed += 1
        else:
            print(f"ok {n} - {doc}: {', '.join(got)} as in {res}")
    print(f"1..{n}")
    print(f"doc-figures: {n - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
