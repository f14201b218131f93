# SPDX-License-Identifier: GPL-2.0
"""The matrix's statistics: medians over repeated runs with percentile
bootstrap intervals, and wins called only where intervals separate.

Bootstrap resampling is seeded (the same runs give the same report). With
n = 5 runs the 95 % percentile interval of a median is the runs' range
(the bootstrap median falls on the smallest value with probability 5.8 %,
above 2.5 %); the order-statistic interval [x(1), x(5)] covers the true
median with probability 93.75 %. n = 10 narrows it to [x(3), x(8)] (the
mean of two middle values at its ends), n = 20 to about [x(7), x(14)]."""
import random

B = 4000		# bootstrap replicates
MIN_N = 3		# fewer runs: no interval, no call


def median(xs):
    s = sorted(xs)
    n = len(s)
    if not n:
        return None
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def boot_ci(xs, stat=median, alpha=0.05, b=B, seed=1):
    """the percentile bootstrap interval of STAT over XS, (lo, hi); None
    with fewer than MIN_N values"""
    if len(xs) < MIN_N:
        return None
    rnd = random.Random(seed)
    n = len(xs)
    reps = sorted(stat([xs[rnd.randrange(n)] for _ in range(n)]) for _ in range(b))
    return reps[int(alpha / 2 * b)], reps[min(int((1 - alpha / 2) * b), b - 1)]


def strata_ci(groups, alpha=0.05, b=B, seed=1):
    """the mean over GROUPS (lists of runs, one per cell) of each group's
    median, and its interval by a bootstrap that resamples the runs within
    each group; None if a group has fewer than MIN_N"""
    if not groups or any(len(g) < MIN_N for g in groups):
        return None
    rnd = random.Random(seed)
    reps = []
    for _ in range(b):
        reps.append(sum(median([g[rnd.randrange(len(g))] for _ in g]) for g in groups)
                    / len(groups))
    reps.sort()
    return reps[int(alpha / 2 * b)], reps[min(int((1 - alpha / 2) * b), b - 1)]


def call(a, b):
    """'<' if interval A lies wholly below interval B, '>' if above, '='
    (a tie: they overlap) otherwise, None if either has no interval"""
    if a is None or b is None:
        return None
    if a[1] < b[0]:
        return "<"
    if a[0] > b[1]:
        return ">"
    return "="
