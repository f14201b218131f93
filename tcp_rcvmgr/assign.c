// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_rcvmgr's budget and how it is shared (seed 004): the budget rule of
 * section 3.1, the assignment of section 3.2 with the reassignment of
 * section 5, and the comparators' rules (Spring et al., Mehra et al.).
 *
 * Pure integer arithmetic on a plain array: no lock, no allocation, no
 * recursion, and a bounded number of passes over the connections, so any n
 * is safe. Windows are in bytes and every one ends in [mss, window max].
 *
 * The weight of connection i is w_i = p_i * rtt_i (eq. 2-a). An unmeasured
 * RTT (0) counts, for weighing only, as the mean of the measured ones, or
 * as 1 when none is measured. A priority outside [1, TCP_RCVMGR_PRIORITY_MAX]
 * counts as the nearest end. The weights are exact (up to 2^42 each); only
 * if n times the heaviest would overflow 64 bits, which takes millions of
 * connections with RTTs of minutes, are they all shifted right together.
 */
#include <linux/bitops.h>
#include <linux/export.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/time64.h>
#include <kunit/visibility.h>

#include "assign.h"

/**
 * rcvmgr_rtt_increased - whether a connection's RTT is up
 * @ref_us: the RTT to compare with (the connection's least), 0 if none
 * @now_us: its mean RTT over this interval, 0 if none
 * @tolerance: percent of @ref_us the rise must exceed
 *
 * Section 3.1 says only "increased"; RTT samples jitter, so a rise counts
 * when it exceeds @tolerance percent of @ref_us and, for short RTTs whose
 * jitter is mostly the hosts' own, RCVMGR_RTT_FLOOR_US.
 *
 * Return: true if both RTTs are known and @now_us is above @ref_us by more
 * than max(@ref_us * @tolerance / 100, RCVMGR_RTT_FLOOR_US)
 */
bool rcvmgr_rtt_increased(u32 ref_us, u32 now_us, u32 tolerance)
{
	u64 margin;

	if (!ref_us || !now_us)
		return false;
	margin = max_t(u64, div_u64((u64)ref_us * tolerance, 100), RCVMGR_RTT_FLOOR_US);
	return now_us > ref_us + margin;
}
EXPORT_SYMBOL_IF_KUNIT(rcvmgr_rtt_increased);

/**
 * rcvmgr_budget_trend - what the budget rule decides at an interval's end
 * @sampled: connections with an RTT in this interval and the previous one
 * @increased: how many of them rcvmgr_rtt_increased()
 *
 * Section 3.1: no connection's RTT increased, the access link has room;
 * every one's increased, it is congested; a few, the bottleneck is
 * elsewhere (section 3.3). With nothing sampled there is no evidence either
 * way. @increased above @sampled is read as every one.
 *
 * Return: RCVMGR_TREND_UP, RCVMGR_TREND_DOWN or RCVMGR_TREND_HOLD
 */
enum rcvmgr_trend rcvmgr_budget_trend(unsigned int sampled, unsigned int increased)
{
	if (!sampled)
		return RCVMGR_TREND_HOLD;
	if (!increased)
		return RCVMGR_TREND_UP;
	if (increased >= sampled)
		return RCVMGR_TREND_DOWN;
	return RCVMGR_TREND_HOLD;
}
EXPORT_SYMBOL_IF_KUNIT(rcvmgr_budget_trend);

/**
 * rcvmgr_probe_due - whether the next few RTTs should drain the queue
 * @splits: intervals in a row whose vote was split: some connections' RTTs
 *	increased, not all
 * @since: intervals since the last probe (saturating)
 *
 * The thesis reads a split vote as a bottleneck elsewhere (section 3.3).
 * It is also what a connection casts that began behind a standing queue:
 * its least RTT includes the queue, so it never sees a rise, and B never
 * comes down however long the queue stands. Only a queue that drains
 * tells the two apart: for a few RTTs the connections are given less
 * (rcvmgr_probe_budget()), and each learns the RTT of an empty access
 * link. This is LEDBAT++'s periodic slowdown (and BBR's ProbeRTT), run
 * only while the vote stays split. With the bottleneck elsewhere, it
 * costs RCVMGR_PROBE_RTTS RTTs in every RCVMGR_PROBE_GAP intervals.
 *
 * Return: true after RCVMGR_PROBE_SPLITS split votes in a row, if the last
 * probe was at least RCVMGR_PROBE_GAP intervals ago
 */
bool rcvmgr_probe_due(u32 splits, u32 since)
{
	return splits >= RCVMGR_PROBE_SPLITS && since >= RCVMGR_PROBE_GAP;
}
EXPORT_SYMBOL_IF_KUNIT(rcvmgr_probe_due);

/**
 * rcvmgr_probe_budget - what the connections share during a probe
 * @budget: B
 * @floor: budget-min
 *
 * A quarter of B: below the path's bandwidth-delay product unless B is
 * four times above it, in which case every connection's RTT shows the
 * queue anyway. B itself does not change.
 *
 * Return: @budget / 4, not below @floor, nor above @budget
 */
u32 rcvmgr_probe_budget(u32 budget, u32 floor)
{
	return min(max(budget / 4, floor), budget);
}
EXPORT_SYMBOL_IF_KUNIT(rcvmgr_probe_budget);

/**
 * rcvmgr_probe_ns - how long a probe lasts
 * @srtt_max_us: the longest smoothed RTT among the connections that voted,
 *	queue included
 * @interval_ms: the interval
 *
 * One RTT for the smaller windows to reach the senders and the data in
 * flight to drain, one for data sent into the empty queue to come back,
 * one of margin.
 *
 * Return: RCVMGR_PROBE_RTTS times @srtt_max_us, at least
 * RCVMGR_PROBE_MIN_US and at most half of @interval_ms, in nanoseconds
 */
u64 rcvmgr_probe_ns(u32 srtt_max_us, u32 interval_ms)
{
	u64 us = max_t(u64, (u64)srtt_max_us * RCVMGR_PROBE_RTTS, RCVMGR_PROBE_MIN_US);

	return min_t(u64, us, (u64)interval_ms * USEC_PER_MSEC / 2) * NSEC_PER_USEC;
}
EXPORT_SYMBOL_IF_KUNIT(rcvmgr_probe_ns);

/**
 * rcvmgr_budget_next - the budget B for the next interval
 * @budget: B now
 * @trend: what rcvmgr_budget_trend() decided
 * @p: the rule's parameters
 *
 * The thesis gives the direction, not the amounts: B grows by @p->step
 * bytes (additive, as TCP probes) and loses @p->decrease per mille of
 * itself (multiplicative, as TCP backs off). No step overflows: B saturates.
 *
 * Return: the new B, clamped to [@p->min, @p->max]; @p->max wins if they
 * cross
 */
u32 rcvmgr_budget_next(u32 budget, enum rcvmgr_trend trend,
		       const struct rcvmgr_budget_params *p)
{
	u64 b = budget;

	switch (trend) {
	case RCVMGR_TREND_UP:
		b += p->step;
		break;
	case RCVMGR_TREND_DOWN:
		b -= min(b, div_u64(b * p->decrease, 1000));
		break;
	default:
		break;
	}
	b = max_t(u64, b, p->min);
	return min_t(u64, b, p->max);
}
EXPORT_SYMBOL_IF_KUNIT(rcvmgr_budget_next);

/**
 * rcvmgr_slow_start_window - the window slow start would have reached
 * @rtts: t_i, RTTs since the connection began
 * @mss: its segment size, bytes
 * @iw: the initial window, segments; taken as the nearest of
 *	RCVMGR_IW_MIN and RCVMGR_IW_MAX outside them
 *
 * Eq. 1-a: iw * 2^t_i segments, in bytes; the thesis' iw is 2.
 *
 * Return: @iw * 2^@rtts * @mss, at most RCVMGR_WINDOW_MAX
 */
u32 rcvmgr_slow_start_window(u32 rtts, u32 mss, u32 iw)
{
	u64 first;

	if (!mss)
		return 0;
	/* 2^30 bytes already pass RCVMGR_WINDOW_MAX (below 2^30) */
	if (rtts >= 30)
		return RCVMGR_WINDOW_MAX;
	/* below 2^32 * 2^10; if not above RCVMGR_WINDOW_MAX, shifted by 29 at
	 * most it stays below 2^59
	 */
	first = (u64)mss * clamp_t(u32, iw, RCVMGR_IW_MIN, RCVMGR_IW_MAX);
	if (first >= RCVMGR_WINDOW_MAX)
		return RCVMGR_WINDOW_MAX;
	return min_t(u64, first << rtts, RCVMGR_WINDOW_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(rcvmgr_slow_start_window);

/**
 * rcvmgr_rtts_since - t_i, whole RTTs in a connection's age
 * @age_us: microseconds since the connection began
 * @rtt_us: its RTT, microseconds; 0 if not measured yet
 *
 * Return: @age_us / @rtt_us, at most U32_MAX; 0 if @rtt_us is 0
 */
u32 rcvmgr_rtts_since(u64 age_us, u32 rtt_us)
{
	if (!rtt_us)
		return 0;
	return min_t(u64, div_u64(age_us, rtt_us), U32_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(rcvmgr_rtts_since);

/* how the connections are weighed: see the top of this file */
struct rcvmgr_weights {
	u64 rtt_mean;		/* stands in for an unmeasured RTT */
	u64 total;		/* sum of every connection's weight */
	unsigned int shift;	/* applied to every p_i * rtt_i */
};

static u64 rcvmgr_prio(const struct rcvmgr_share *c)
{
	return clamp_t(u32, c->priority, 1, TCP_RCVMGR_PRIORITY_MAX);
}

static u64 rcvmgr_rtt(const struct rcvmgr_share *c, const struct rcvmgr_weights *wt)
{
	return c->rtt_us ?: wt->rtt_mean;
}

/* w_i, at least 1 */
static u64 rcvmgr_weight(const struct rcvmgr_share *c, const struct rcvmgr_weights *wt)
{
	return max_t(u64, (rcvmgr_prio(c) * rcvmgr_rtt(c, wt)) >> wt->shift, 1);
}

/* n > 0; two passes */
static void rcvmgr_weigh(const struct rcvmgr_share *s, unsigned int n,
			 struct rcvmgr_weights *wt)
{
	u64 rtt_sum = 0, heaviest = 0, prio_unmeasured = 0;
	unsigned int measured = 0, i, bits;

	for (i = 0; i < n; i++) {
		if (s[i].rtt_us) {
			rtt_sum += s[i].rtt_us;
			measured++;
			heaviest = max(heaviest, rcvmgr_prio(&s[i]) * s[i].rtt_us);
		} else {
			prio_unmeasured = max(prio_unmeasured, rcvmgr_prio(&s[i]));
		}
	}
	wt->rtt_mean = measured ? div_u64(rtt_sum, measured) : 1;
	heaviest = max(heaviest, prio_unmeasured * wt->rtt_mean);

	/*
	 * n weights below 2^(64 - fls(n)) each cannot overflow their sum: if
	 * the heaviest is not, shift them all until it is (below 2^63 then,
	 * with the rounding up to 1).
	 */
	bits = fls64(heaviest) + fls(n);
	wt->shift = bits > 64 ? bits - 63 : 0;
	wt->total = 0;
	for (i = 0; i < n; i++)
		wt->total += rcvmgr_weight(&s[i], wt);
}

/* one segment: no window is smaller (silly window syndrome, eq. 2-b) */
static u32 rcvmgr_floor(const struct rcvmgr_share *c)
{
	return clamp_t(u32, c->mss, 1, RCVMGR_WINDOW_MAX);
}

static u32 rcvmgr_clamp(const struct rcvmgr_share *c, u64 window)
{
	return clamp_t(u64, window, rcvmgr_floor(c), RCVMGR_WINDOW_MAX);
}

/* section 5: the most a persistent connection is given, what it can use */
static u32 rcvmgr_cap(const struct rcvmgr_share *c)
{
	return rcvmgr_clamp(c, c->demand);
}

/*
 * threshold_i: B * w_i / sum_j w_j over every connection, initial or not
 * (its share were all persistent), and at least one segment
 */
static u32 rcvmgr_threshold(const struct rcvmgr_share *c, u32 budget,
			    const struct rcvmgr_weights *wt)
{
	return max_t(u64, mul_u64_u64_div_u64(budget, rcvmgr_weight(c, wt), wt->total),
		     c->mss);
}

/* threshold_i - iw * 2^t_i, or 0 where that would not be positive */
static u32 rcvmgr_gap(const struct rcvmgr_share *c, u32 need)
{
	return c->threshold > need ? c->threshold - need : 0;
}

/**
 * rcvmgr_assign_initial - windows of the initial connections (eq. 1-a, 1-b)
 * @s: the connections; only those in TCP_RCVMGR_STATE_INITIAL are written
 * @n: how many
 * @budget: B
 * @iw: the initial window, segments (see rcvmgr_slow_start_window())
 *
 * Each initial connection needs its slow-start size, need_i =
 * rcvmgr_slow_start_window(). If the needs fit in @budget, each gets its
 * need (1-a). Otherwise (1-b) @budget is shared in proportion to
 * threshold_i - need_i, taking each connection's @threshold as it stands;
 * a difference that is not positive counts as 0, and if every one is 0 the
 * connections share @budget equally. As in the thesis, (1-b) may give a
 * connection more than its need; no window is below one segment.
 *
 * rcvmgr_assign() calls this after moving each initial connection whose
 * need passed its threshold to the persistent state. A need left is within
 * its threshold and at least RCVMGR_IW_MIN (two) segments, so that threshold is B * w_i /
 * sum_j w_j, not the one-segment floor, and those add up to B at most: the
 * needs fit, and (1-b) is only reached here with thresholds from elsewhere
 * (another interval's, say).
 *
 * Return: T_is, the part of @budget the initial connections take: the sum
 * of the needs (1-a) or @budget (1-b)
 */
u32 rcvmgr_assign_initial(struct rcvmgr_share *s, unsigned int n, u32 budget, u32 iw)
{
	u64 need_sum = 0, gap_sum = 0;
	unsigned int count = 0, i;

	for (i = 0; i < n; i++) {
		u32 need;

		if (s[i].state != TCP_RCVMGR_STATE_INITIAL)
			continue;
		need = rcvmgr_slow_start_window(s[i].rtts, s[i].mss, iw);
		need_sum += need;
		gap_sum += rcvmgr_gap(&s[i], need);
		count++;
	}
	if (!count)
		return 0;

	for (i = 0; i < n; i++) {
		struct rcvmgr_share *c = &s[i];
		u32 need;
		u64 w;

		if (c->state != TCP_RCVMGR_STATE_INITIAL)
			continue;
		need = rcvmgr_slow_start_window(c->rtts, c->mss, iw);
		if (need_sum <= budget)
			w = need;
		else if (gap_sum)
			w = div64_u64((u64)budget * rcvmgr_gap(c, need), gap_sum);
		else
			w = budget / count;
		c->window = rcvmgr_clamp(c, w);
	}
	return need_sum <= budget ? need_sum : budget;
}
EXPORT_SYMBOL_IF_KUNIT(rcvmgr_assign_initial);

/*
 * Eq. 2-a with section 5: the persistent connections share what is left,
 * rest, by weight, but none gets more than its cap (what it showed it can
 * use) nor less than its floor (one segment); what a capped one leaves goes
 * to the others by weight, and a floored one's segment is taken from them.
 * That is the weighted max-min fair share: a level lambda with
 *
 *	window_i = clamp(lambda * w_i, floor_i, cap_i),  sum_i window_i = rest
 *
 * (or every window at its cap if the caps do not reach rest). The thesis's
 * R_i = (B - T_is) * w_i / sum_j w_j is the case where no clamp applies.
 * Windows at neither bound are lambda * w_i rounded down, so the windows
 * never sum to more than rest.
 *
 * The level is found as Bitran and Hax do: at lambda = rest / weight over
 * the unsettled connections, add up the excess of those above their cap and
 * the shortfall of those below their floor; if the excess is at least the
 * shortfall, lambda can only rise, so those above their cap are capped at
 * the solution: settle them. Otherwise lambda can only fall: settle those
 * below their floor. Repeat until none is out of bounds. Every comparison
 * is exact, so the result is the exact solution; usually one pass does.
 * Each pass settles at least one connection, so after
 * RCVMGR_FILL_EXACT_PASSES the level is bisected instead (64 passes at
 * most): the largest level, to 2^-32 byte per unit of weight, at which the
 * windows fit in rest. That gives the same windows but for rounding.
 */

/* a persistent connection whose window is not settled yet: window 0 */
static bool rcvmgr_unsettled(const struct rcvmgr_share *c)
{
	return c->state != TCP_RCVMGR_STATE_INITIAL && !c->window;
}

enum rcvmgr_bound {
	RCVMGR_WITHIN,
	RCVMGR_ABOVE_CAP,
	RCVMGR_BELOW_FLOOR,
};

/* the level rest / weight: weight > 0, rest <= U32_MAX */
struct rcvmgr_level {
	u64 rest;
	u64 weight;
};

/* where w_i * rest / weight falls (w_i <= weight) */
static enum rcvmgr_bound rcvmgr_bound_at(const struct rcvmgr_level *l, u64 w,
					 u32 floor, u32 cap)
{
	u64 q = mul_u64_u64_div_u64(l->rest, w, l->weight);
	/* the remainder: below weight, so exact in modulo-2^64 arithmetic */
	u64 r = l->rest * w - q * l->weight;

	if (q > cap || (q == cap && r))
		return RCVMGR_ABOVE_CAP;
	if (q < floor)
		return RCVMGR_BELOW_FLOOR;
	return RCVMGR_WITHIN;
}

/* level * w / 2^32; past every cap (> 2^63) where it would overflow */
static u64 rcvmgr_grid_share(u64 level, u64 w)
{
	if (fls64(level) + fls64(w) > 96)
		return U64_MAX;
	return mul_u64_u64_shr(level, w, 32);
}

/* the unsettled windows at a grid level; below 2^62 */
static u64 rcvmgr_grid_sum(const struct rcvmgr_share *s, unsigned int n, u64 level,
			   const struct rcvmgr_weights *wt)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (rcvmgr_unsettled(&s[i]))
			sum += clamp_t(u64, rcvmgr_grid_share(level, rcvmgr_weight(&s[i], wt)),
				       rcvmgr_floor(&s[i]), rcvmgr_cap(&s[i]));
	}
	return sum;
}

/* the bisection: the unsettled connections' floors fit in rest */
static void rcvmgr_fill_grid(struct rcvmgr_share *s, unsigned int n, u64 rest,
			     const struct rcvmgr_weights *wt)
{
	/* at 2^30 bytes per unit of weight every window is at its cap */
	u64 lo = 0, hi = 1ULL << 62;
	unsigned int i;

	if (rcvmgr_grid_sum(s, n, hi, wt) <= rest)
		lo = hi;
	while (hi - lo > 1) {
		u64 mid = lo + (hi - lo) / 2;

		if (rcvmgr_grid_sum(s, n, mid, wt) <= rest)
			lo = mid;
		else
			hi = mid;
	}
	for (i = 0; i < n; i++) {
		struct rcvmgr_share *c = &s[i];

		if (rcvmgr_unsettled(c))
			c->window = clamp_t(u64, rcvmgr_grid_share(lo, rcvmgr_weight(c, wt)),
					    rcvmgr_floor(c), rcvmgr_cap(c));
	}
}

/* @cur: rest and the weight of every unsettled persistent connection */
static void rcvmgr_fill(struct rcvmgr_share *s, unsigned int n, struct rcvmgr_level cur,
			const struct rcvmgr_weights *wt)
{
	enum rcvmgr_bound settle = RCVMGR_WITHIN;
	struct rcvmgr_level prev = {};
	unsigned int pass, i;

	for (pass = 0; pass <= RCVMGR_FILL_EXACT_PASSES; pass++) {
		u64 above_w = 0, above_b = 0, below_w = 0, below_b = 0;
		bool last = pass == RCVMGR_FILL_EXACT_PASSES;

		for (i = 0; i < n; i++) {
			struct rcvmgr_share *c = &s[i];
			u32 floor, cap;
			u64 w;

			if (!rcvmgr_unsettled(c))
				continue;
			w = rcvmgr_weight(c, wt);
			floor = rcvmgr_floor(c);
			cap = rcvmgr_cap(c);
			/* what the previous pass decided to settle, settle now */
			if (settle != RCVMGR_WITHIN &&
			    rcvmgr_bound_at(&prev, w, floor, cap) == settle) {
				c->window = settle == RCVMGR_ABOVE_CAP ? cap : floor;
				continue;
			}
			if (last || !cur.weight)
				continue;
			switch (rcvmgr_bound_at(&cur, w, floor, cap)) {
			case RCVMGR_ABOVE_CAP:
				above_w += w;
				above_b += cap;
				break;
			case RCVMGR_BELOW_FLOOR:
				below_w += w;
				below_b += floor;
				break;
			default:
				break;
			}
		}
		if (last)
			break;
		if (!above_w && !below_w) {
			/* converged: the rest are within bounds at cur */
			for (i = 0; i < n && cur.weight; i++) {
				struct rcvmgr_share *c = &s[i];

				if (rcvmgr_unsettled(c))
					c->window = mul_u64_u64_div_u64(cur.rest,
									rcvmgr_weight(c, wt),
									cur.weight);
			}
			return;
		}
		/*
		 * excess >= shortfall, i.e. lambda * (above_w + below_w) >=
		 * above_b + below_b: the cap side settles
		 */
		prev = cur;
		if (mul_u64_u64_div_u64(cur.rest, above_w + below_w, cur.weight) >=
		    above_b + below_b) {
			settle = RCVMGR_ABOVE_CAP;
			cur.rest -= above_b;
			cur.weight -= above_w;
		} else {
			settle = RCVMGR_BELOW_FLOOR;
			cur.rest -= min(cur.rest, below_b);
			cur.weight -= below_w;
		}
	}
	rcvmgr_fill_grid(s, n, cur.rest, wt);
}

/* eq. 2-a, 2-b: every connection not initial is served as persistent */
static void rcvmgr_assign_persistent(struct rcvmgr_share *s, unsigned int n, u32 rest,
				     const struct rcvmgr_weights *wt)
{
	struct rcvmgr_level all = { .rest = rest };
	u64 floors = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (s[i].state == TCP_RCVMGR_STATE_INITIAL)
			continue;
		s[i].window = 0;
		floors += rcvmgr_floor(&s[i]);
		all.weight += rcvmgr_weight(&s[i], wt);
	}
	if (!all.weight)
		return;
	/* (2-b): not a segment each left, so a segment each */
	if (rest < floors) {
		for (i = 0; i < n; i++) {
			if (s[i].state != TCP_RCVMGR_STATE_INITIAL)
				s[i].window = rcvmgr_floor(&s[i]);
		}
		return;
	}
	rcvmgr_fill(s, n, all, wt);
}

/* bytes the link carries in one RTT: link_rate / 8 * rtt_us / 10^6, saturating */
static u64 rcvmgr_bdp(u64 link_rate, u64 rtt_us)
{
	const u32 bits_per_byte_us = 8 * USEC_PER_SEC;
	u64 q, bdp;
	u32 r;

	/* link_rate = q * 8e6 + r: q * rtt, then r * rtt (below 2^55) / 8e6 */
	q = div_u64_rem(link_rate, bits_per_byte_us, &r);
	if (check_mul_overflow(q, rtt_us, &bdp) ||
	    check_add_overflow(bdp, div_u64((u64)r * rtt_us, bits_per_byte_us), &bdp))
		return U64_MAX;
	return bdp;
}

static bool rcvmgr_managed(const struct rcvmgr_share *c)
{
	return c->state == TCP_RCVMGR_STATE_INITIAL ||
	       c->state == TCP_RCVMGR_STATE_PERSISTENT;
}

/*
 * Spring et al. with the thesis's Table 1: by bytes received, a connection
 * is interactive, short or long. Interactive and short connections are not
 * limited; while a short one exists, every long one is held to a segment;
 * otherwise the long ones share the link's bandwidth-delay product, each by
 * its own RTT (the mean if unmeasured), plus the queue target, equally:
 * window_i = (link_rate / 8 * rtt_i + spring_queue) / n_long. Without a
 * link rate, B stands for the bandwidth-delay product.
 */
static void rcvmgr_assign_spring(struct rcvmgr_share *s, unsigned int n, u32 budget,
				 const struct rcvmgr_assign_params *p,
				 const struct rcvmgr_weights *wt)
{
	unsigned int n_long = 0, i;
	bool short_seen = false;
	u32 queue;

	for (i = 0; i < n; i++) {
		struct rcvmgr_share *c = &s[i];
		bool is_long = c->bytes >= p->spring_short;

		if (rcvmgr_managed(c))
			c->state = is_long ? TCP_RCVMGR_STATE_PERSISTENT :
					     TCP_RCVMGR_STATE_INITIAL;
		if (is_long) {
			n_long++;
			continue;
		}
		if (c->bytes >= p->spring_interactive)
			short_seen = true;
		c->window = RCVMGR_WINDOW_MAX;
	}
	if (!n_long)
		return;

	queue = p->spring_queue / n_long;
	for (i = 0; i < n; i++) {
		struct rcvmgr_share *c = &s[i];
		u64 bdp;

		if (c->bytes < p->spring_short)
			continue;
		if (short_seen) {
			c->window = rcvmgr_floor(c);
			continue;
		}
		bdp = p->link_rate ? rcvmgr_bdp(p->link_rate, rcvmgr_rtt(c, wt)) : budget;
		bdp = min_t(u64, div_u64(bdp, n_long), RCVMGR_WINDOW_MAX);
		c->window = rcvmgr_clamp(c, bdp + queue);
	}
}

/**
 * rcvmgr_assign - share the budget among the connections
 * @s: the connections; @threshold and @window are written, @state may be
 * @n: how many; 0 is fine
 * @budget: B
 * @p: the policy and its parameters
 *
 * Every connection's threshold_i, B * w_i / sum_j w_j over all @n (its share
 * were all of them persistent), at least one segment, is computed whatever
 * the policy. Then, by @p->policy:
 *
 * TCP_RCVMGR_POLICY_AZUMA (section 3.2): an initial connection whose
 * slow-start size passes its threshold becomes persistent, for good, before
 * anything is assigned (the thesis moves a connection once its assignment
 * passes the threshold; here it moves in the interval its slow-start size
 * would, instead of being held to its threshold for one more interval).
 * The initial connections are served first (rcvmgr_assign_initial(), eq.
 * 1-a), the persistent ones share what is left: by weight, each within its
 * segment and its demand, what a demand-limited one leaves going to the
 * others (eq. 2-a with section 5), or a segment each if not a segment each
 * is left (eq. 2-b). A connection in any state but initial is served as
 * persistent, and its state left alone.
 *
 * TCP_RCVMGR_POLICY_EQUAL (Mehra et al., as the thesis runs it: no
 * priority, minimal rate or weight): B / @n each, at least a segment;
 * states untouched.
 *
 * TCP_RCVMGR_POLICY_SPRING (Spring et al.): see rcvmgr_assign_spring();
 * long connections come out persistent, the others initial (other states
 * are left alone).
 *
 * TCP_RCVMGR_POLICY_OFF, or a policy not known here: every window is
 * RCVMGR_WINDOW_MAX, nothing is limited; states untouched.
 *
 * Every window is in [mss, RCVMGR_WINDOW_MAX] but for spring's unlimited
 * ones, which are RCVMGR_WINDOW_MAX. The cost is a few passes over @s,
 * under 80 whatever the input.
 */
void rcvmgr_assign(struct rcvmgr_share *s, unsigned int n, u32 budget,
		   const struct rcvmgr_assign_params *p)
{
	struct rcvmgr_weights wt;
	unsigned int i;
	u32 taken;

	if (!n)
		return;
	rcvmgr_weigh(s, n, &wt);
	for (i = 0; i < n; i++) {
		struct rcvmgr_share *c = &s[i];

		c->threshold = rcvmgr_threshold(c, budget, &wt);
		if (p->policy == TCP_RCVMGR_POLICY_AZUMA &&
		    c->state == TCP_RCVMGR_STATE_INITIAL &&
		    rcvmgr_slow_start_window(c->rtts, c->mss, p->initial_window) > c->threshold)
			c->state = TCP_RCVMGR_STATE_PERSISTENT;
	}

	switch (p->policy) {
	case TCP_RCVMGR_POLICY_AZUMA:
		taken = rcvmgr_assign_initial(s, n, budget, p->initial_window);
		rcvmgr_assign_persistent(s, n, budget - taken, &wt);
		break;
	case TCP_RCVMGR_POLICY_SPRING:
		rcvmgr_assign_spring(s, n, budget, p, &wt);
		break;
	case TCP_RCVMGR_POLICY_EQUAL:
		for (i = 0; i < n; i++)
			s[i].window = rcvmgr_clamp(&s[i], budget / n);
		break;
	default:
		for (i = 0; i < n; i++)
			s[i].window = RCVMGR_WINDOW_MAX;
		break;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rcvmgr_assign);
