// SPDX-License-Identifier: GPL-2.0
/*
 * The eR2BC controller (see ctrl.h): the demand S_d of every class, from
 * the reception ratio s(t) of the aggregate and, for retransmitting
 * classes, the deficit of their estimated receive rate.
 *
 * Integer arithmetic only. Ratios are millionths of ER2BC_RATIO_ONE and
 * are rounded down, as are rates derived from them. Every rate that comes
 * in is first saturated at ER2BC_CTRL_RATE_MAX (2^56 bit/s): a rate times
 * a ratio is then below 2^76, which mul_u64_u64_div_u64() handles, and a
 * sum of ER2BC_HIST_MAX deltas of such rates stays below 2^62, inside s64.
 * No quotient computed here can exceed 64 bits, and no divisor is 0.
 *
 * Where the paper is silent, this file chooses:
 * - s(t) = 1 at the first update (W(t-1) = 0: nothing to compare R(t-1)
 *   with), and whenever the previous estimate was 0;
 * - s(t) is clamped to [0, 1]: R(t-1) above W(t-1) counts as no loss;
 * - G(t-1) at the first update is the guarantee already in force, which
 *   the qdisc computed as min(R_f, what W leaves); the histories of s and
 *   of delta start empty, and Delta and s_p are taken over the updates seen
 *   so far, at most C and M of them;
 * - sum G(t-1) / |F_r| is taken as 0 when F_r is empty, and saturated at
 *   ER2BC_CTRL_RATE_MAX;
 * - a non-retransmitting class's S_d is ER2BC_CTRL_RATE_MAX when s_p is 0:
 *   eq. 1 then gives it whatever W leaves;
 * - C and M outside 1..ER2BC_HIST_MAX are taken as the nearest bound;
 * - a class of a type other than ER2BC_TYPE_TCP is treated as F_u.
 */
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "ctrl.h"

static inline u64 rate_sat(u64 bps)
{
	return min_t(u64, bps, ER2BC_CTRL_RATE_MAX);
}

/* C or M, in 1..ER2BC_HIST_MAX */
static inline unsigned int hist_span(u32 n)
{
	return clamp_t(u32, n, 1, ER2BC_HIST_MAX);
}

/* slot of the i-th newest entry of a ring whose next entry goes to pos */
static inline unsigned int hist_slot(unsigned int pos, unsigned int i)
{
	return (pos + ER2BC_HIST_MAX - 1 - i) % ER2BC_HIST_MAX;
}

/**
 * er2bc_ctrl_params_default - the paper's parameters (Table 4)
 * @p: the parameters to set
 *
 * C = M = 10, B_lim = 50 kbit/s, no floor, guarantees applied at once.
 */
void er2bc_ctrl_params_default(struct er2bc_ctrl_params *p)
{
	memset(p, 0, sizeof(*p));
	p->c = ER2BC_CTRL_C_DEFAULT;
	p->m = ER2BC_CTRL_M_DEFAULT;
	p->blim = ER2BC_CTRL_BLIM_DEFAULT;
	p->floor = 0;
	p->converge = ER2BC_CONVERGE_IMMEDIATE;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_ctrl_params_default);

/**
 * er2bc_ctrl_init - a controller that has seen no estimate
 * @ctrl: the controller
 */
void er2bc_ctrl_init(struct er2bc_ctrl *ctrl)
{
	memset(ctrl, 0, sizeof(*ctrl));
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_ctrl_init);

/**
 * er2bc_ctrl_class_init - a class the controller has not seen yet
 * @k: the class
 * @rf: its necessary rate R_f, bits/s (saturated at ER2BC_CTRL_RATE_MAX)
 * @type: enum er2bc_class_type
 *
 * Its guarantee is 0 until the qdisc writes the one in force into @k->g.
 */
void er2bc_ctrl_class_init(struct er2bc_ctrl_class *k, u64 rf, u8 type)
{
	memset(k, 0, sizeof(*k));
	k->rf = rate_sat(rf);
	k->type = type;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_ctrl_class_init);

/**
 * er2bc_ctrl_begin - start the update for a new estimate
 * @ctrl: the controller
 * @p: the parameters
 * @w: the new estimate W(t), bits/s
 * @recv: R(t-1), the aggregate's receive rate at the far gateway, bits/s
 * @fr_sum: sum of G(t-1) over the retransmitting classes F_r (the caller
 *	should add with saturation; U64_MAX is taken as is)
 * @fr_count: |F_r|
 *
 * Computes s(t) = min(1, R(t-1) / W(t-1)), or 1 when W(t-1) is 0 (the
 * first update), records it, and computes s_p(t+1), the least s of the
 * last M updates, and the average guarantee of F_r that eq. 2 uses.
 */
void er2bc_ctrl_begin(struct er2bc_ctrl *ctrl, const struct er2bc_ctrl_params *p,
		      u64 w, u64 recv, u64 fr_sum, u32 fr_count)
{
	unsigned int m = hist_span(p->m), n, i;
	u64 w_prev = ctrl->w;
	u32 s, sp;

	recv = rate_sat(recv);
	if (!w_prev || recv >= w_prev)
		s = ER2BC_RATIO_ONE;
	else	/* recv < w_prev: the quotient is below ER2BC_RATIO_ONE */
		s = mul_u64_u64_div_u64(recv, ER2BC_RATIO_ONE, w_prev);

	ctrl->s_hist[ctrl->s_pos] = s;
	ctrl->s_pos = (ctrl->s_pos + 1) % ER2BC_HIST_MAX;
	if (ctrl->s_len < ER2BC_HIST_MAX)
		ctrl->s_len++;

	n = min_t(unsigned int, m, ctrl->s_len);
	sp = s;
	for (i = 1; i < n; i++)
		sp = min(sp, ctrl->s_hist[hist_slot(ctrl->s_pos, i)]);

	ctrl->sp = sp;
	ctrl->s = s;
	ctrl->fr_avg = fr_count ? rate_sat(div64_u64(fr_sum, fr_count)) : 0;
	ctrl->w = rate_sat(w);
	ctrl->recv = recv;
	ctrl->updates++;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_ctrl_begin);

/* S_d of a retransmitting class, eq. 2-5 */
static u64 demand_tcp(const struct er2bc_ctrl *ctrl,
		      const struct er2bc_ctrl_params *p, struct er2bc_ctrl_class *k)
{
	unsigned int c = hist_span(p->c), n, i;
	u64 rf = rate_sat(k->rf), blim;
	s64 delta, sum = 0;
	u64 base, re;

	/* s <= ER2BC_RATIO_ONE: re <= base <= ER2BC_CTRL_RATE_MAX */
	base = min(rate_sat(k->g), ctrl->fr_avg);
	re = mul_u64_u64_div_u64(base, min_t(u32, ctrl->s, ER2BC_RATIO_ONE),
				 ER2BC_RATIO_ONE);
	delta = (s64)rf - (s64)re;

	k->hist[k->hist_pos] = delta;
	k->hist_pos = (k->hist_pos + 1) % ER2BC_HIST_MAX;
	if (k->hist_len < ER2BC_HIST_MAX)
		k->hist_len++;

	/* at most ER2BC_HIST_MAX terms of magnitude <= 2^56 */
	n = min_t(unsigned int, c, k->hist_len);
	for (i = 0; i < n; i++)
		sum += k->hist[hist_slot(k->hist_pos, i)];

	k->re = re;
	k->delta = delta;
	k->delta_sum = sum;

	if (sum <= 0)
		return rf;
	blim = rate_sat(p->blim);
	/* both terms <= 2^56: the sum fits */
	return rate_sat(rf + min_t(u64, sum, blim));
}

/* S_d of a class that does not retransmit, eq. 6-7 */
static u64 demand_udp(const struct er2bc_ctrl *ctrl, struct er2bc_ctrl_class *k)
{
	u64 rf = rate_sat(k->rf), sp = min_t(u32, ctrl->sp, ER2BC_RATIO_ONE);

	k->re = 0;
	k->delta = 0;
	k->delta_sum = 0;

	/* no rate (a scavenger among them): no demand, whatever s_p */
	if (!rf)
		return 0;
	if (!sp)
		return ER2BC_CTRL_RATE_MAX;
	/*
	 * rf * ONE / sp <= RATE_MAX exactly when rf <= RATE_MAX * sp / ONE
	 * (rounded down, rf being whole); above it the quotient saturates, and
	 * below it cannot exceed 64 bits.
	 */
	if (rf > mul_u64_u64_div_u64(ER2BC_CTRL_RATE_MAX, sp, ER2BC_RATIO_ONE))
		return ER2BC_CTRL_RATE_MAX;
	return mul_u64_u64_div_u64(rf, ER2BC_RATIO_ONE, sp);
}

/**
 * er2bc_ctrl_demand - the demand S_d(t) of one class
 * @ctrl: the controller, after er2bc_ctrl_begin() for this update
 * @p: the parameters
 * @k: the class; @k->g is its guarantee G(t-1)
 *
 * Retransmitting classes (ER2BC_TYPE_TCP): R_e = s(t) * min(G(t-1), the
 * average G(t-1) of F_r), delta = R_f - R_e, Delta = the sum of delta over
 * the last C updates, and S_d = R_f + min(Delta, B_lim) if Delta > 0, else
 * R_f. Other classes: S_d = R_f / s_p(t+1), ER2BC_CTRL_RATE_MAX if s_p is
 * 0 (but 0 if R_f is: a class without a rate, a scavenger, never asks
 * for a guarantee). Call once per class and update: each call records
 * one delta. Stores
 * R_e, delta, Delta and S_d in @k.
 *
 * Return: S_d in bits/s, at most ER2BC_CTRL_RATE_MAX.
 */
u64 er2bc_ctrl_demand(const struct er2bc_ctrl *ctrl,
		      const struct er2bc_ctrl_params *p, struct er2bc_ctrl_class *k)
{
	u64 sd;

	if (k->type == ER2BC_TYPE_TCP)
		sd = demand_tcp(ctrl, p, k);
	else
		sd = demand_udp(ctrl, k);
	k->sd = sd;
	return sd;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_ctrl_demand);

/* @g saturated, and at least the floor for a class with a rate */
static u64 ctrl_floor(const struct er2bc_ctrl_params *p,
		      const struct er2bc_ctrl_class *k, u64 g)
{
	g = rate_sat(g);
	if (p->floor && k->rf)
		g = max(g, rate_sat(p->floor));
	return g;
}

/**
 * er2bc_ctrl_settle - the guarantee a class gets from this update
 * @p: the parameters
 * @k: the class; @k->g is the guarantee in force, G(t-1)
 * @g: the class's guarantee by eq. 1 (er2bc_fill_next())
 *
 * A class with R_f > 0 gets at least the floor. With gradual convergence,
 * from a guarantee in force other than 0: a change within
 * ER2BC_CTRL_DEADBAND millionths of it is ignored; an increase applies at
 * once; a decrease moves 1/ER2BC_CTRL_STEPS of the way, rounded up, so at
 * least 1 bit/s. The result is stored in @k->g.
 *
 * Return: G(t) in bits/s.
 */
u64 er2bc_ctrl_settle(const struct er2bc_ctrl_params *p,
		      struct er2bc_ctrl_class *k, u64 g)
{
	u64 old = rate_sat(k->g), diff;

	g = ctrl_floor(p, k, g);

	if (p->converge == ER2BC_CONVERGE_GRADUAL && old) {
		diff = g > old ? g - old : old - g;
		/* diff * ONE <= DEADBAND * old, without the product */
		if (diff <= mul_u64_u64_div_u64(old, ER2BC_CTRL_DEADBAND,
						ER2BC_RATIO_ONE))
			g = old;
		else if (g < old)
			g = old - div_u64(diff + ER2BC_CTRL_STEPS - 1,
					  ER2BC_CTRL_STEPS);
	}

	k->g = g;
	return g;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_ctrl_settle);

/**
 * er2bc_ctrl_keep - the guarantee a class keeps when a class or the qdisc
 * changed, with no estimate
 * @p: the parameters
 * @k: the class; @k->g is the guarantee in force
 * @g: the class's guarantee by eq. 1 (er2bc_fill_next())
 *
 * The floor applies as in er2bc_ctrl_settle(); with gradual convergence a
 * decrease waits for the next estimates to step it, so the guarantee in
 * force is kept if it is larger. Unlike er2bc_ctrl_settle(), @k->g is left
 * as it is: the caller bounds the result and stores it.
 *
 * Return: the guarantee in bits/s.
 */
u64 er2bc_ctrl_keep(const struct er2bc_ctrl_params *p,
		    const struct er2bc_ctrl_class *k, u64 g)
{
	g = ctrl_floor(p, k, g);
	if (p->converge == ER2BC_CONVERGE_GRADUAL)
		g = max(g, k->g);
	return g;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_ctrl_keep);

/**
 * er2bc_ctrl_s_hist - a past reception ratio
 * @ctrl: the controller
 * @i: 0 for s(t), 1 for s(t-1), ...
 *
 * Return: the i-th newest s in millionths, 0 if @i >= @ctrl->s_len.
 */
u32 er2bc_ctrl_s_hist(const struct er2bc_ctrl *ctrl, unsigned int i)
{
	if (i >= ctrl->s_len || i >= ER2BC_HIST_MAX)
		return 0;
	return ctrl->s_hist[hist_slot(ctrl->s_pos, i)];
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_ctrl_s_hist);
