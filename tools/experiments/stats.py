# SPDX-License-Identifier: GPL-2.0
"""The matrix's statistics: medians over repeated runs with their exact
order-statistic intervals, a bootstrap over seeds for figures pooled over
cells, and wins called only where intervals separate.

A median's interval is [x(k), x(n+1-k)] for the largest k whose coverage,
1 - 2 P(B <= k-1) with B ~ Binomial(n, 1/2), is at least 95 %; where no k
reaches it (n <= 5) it is the range, and its coverage is said: 93.75 % at
n = 5 (the percentile bootstrap gives the same range there, and claims
95 %). Fewer than MIN_N runs: no interval, no call. Bootstrap resampling
is seeded (the same runs give the same report)."""
import math
import random

B = 4000		# bootstrap replicates
MIN_N = 5		# fewer runs: no interval, no call
LEVEL = 0.95


def median(xs):
    s = sorted(xs)
    n = len(s)
    if not n:
        return None
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _below(k, n):
    """P(B <= k) for B ~ Binomial(n, 1/2)"""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n


def median_ci(xs, level=LEVEL):
    """(lo, hi, coverage) of the median of XS; None under MIN_N values"""
    n = len(xs)
    if n < MIN_N:
        return None
    s = sorted(xs)
    k = 1
    while k + 1 <= n // 2 and 1 - 2 * _below(k, n) >= level:
        k += 1
    return s[k - 1], s[n - k], round(1 - 2 * _below(k - 1, n), 4)


def seed_ci(cells, stat=median, level=LEVEL, b=B, seed=1):
    """CELLS: {cell: {seed: value}}. The mean over the cells of STAT over
    each cell's values, and its interval by a bootstrap that draws the
    seeds (one draw for every cell alike: a seed's cross traffic and run
    order are shared by the cells, so they are not independent); None if
    a cell has fewer than MIN_N seeds"""
    if not cells or any(len(v) < MIN_N for v in cells.values()):
        return None
    seeds = sorted({s for v in cells.values() for s in v})
    rnd = random.Random(seed)
    point = sum(stat(list(v.values())) for v in cells.values()) / len(cells)
    reps = []
    for _ in range(b):
        draw = [seeds[rnd.randrange(len(seeds))] for _ in seeds]
        tot = 0.0
        for v in cells.values():
            xs = [v[s] for s in draw if s in v] or list(v.values())
            tot += stat(xs)
        reps.append(tot / len(cells))
    reps.sort()
    a = (1 - level) / 2
    return point, (reps[int(a * b)], reps[min(int((1 - a) * b), b - 1)])


def call(a, b, margin=0.0):
    """'<' if interval A lies wholly below interval B by more than MARGIN,
    '>' if above, '=' (not told apart) otherwise, None if either has no
    interval"""
    if a is None or b is None:
        return None
    if a[1] + margin < b[0]:
        return "<"
    if a[0] > b[1] + margin:
        return ">"
    return "="
