// SPDX-License-Identifier: GPL-2.0
/*
 * Guarantees of the er2bc classes (see guarantee.h).
 */
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <kunit/visibility.h>

#include "ctrl.h"
#include "guarantee.h"

/**
 * er2bc_fill_start - begin handing out guarantees
 * @f: the state of the round
 * @mode: the rule
 * @cap_bps: the cap W, 0 for none
 */
void er2bc_fill_start(struct er2bc_fill *f, enum er2bc_mode mode, u64 cap_bps)
{
	f->left = cap_bps ? cap_bps : U64_MAX;
	f->mode = mode;
	f->full = false;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_fill_start);

/**
 * er2bc_fill_next - the guarantee of the next class in priority order
 * @f: the state of the round
 * @demand_bps: what the class asks for: its rate (static mode), or S_d
 * @ceil_bps: its ceil, 0 for none
 *
 * static: the whole demand while it fits in what is left; once a class
 * does not fit, it and every class after it get nothing (the paper's
 * "existing method": G_i = R_f(i) in priority order while the sum stays
 * within W). er2bc: eq. 1, G_i = min(S_d(i), W - sum of G_j before it).
 * pq: nothing; classes are served by priority alone. A guarantee never
 * exceeds the class's ceil.
 *
 * Return: the guarantee in bits/s.
 */
u64 er2bc_fill_next(struct er2bc_fill *f, u64 demand_bps, u64 ceil_bps)
{
	u64 g;

	if (ceil_bps)
		demand_bps = min(demand_bps, ceil_bps);

	switch (f->mode) {
	case ER2BC_MODE_STATIC:
		if (f->full || demand_bps > f->left) {
			f->full = true;
			return 0;
		}
		g = demand_bps;
		break;
	case ER2BC_MODE_ER2BC:
		g = min(demand_bps, f->left);
		break;
	default:
		return 0;
	}
	if (f->left != U64_MAX)
		f->left -= g;
	return g;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_fill_next);

/**
 * er2bc_with_margin - a demand and the class's margin on it
 * @demand_bps: R_f or S_d
 * @margin: percent of it asked for above it, 0 to ER2BC_MARGIN_MAX
 *
 * A class at exactly its rate is short whenever its packets come in
 * bursts, or the path loses some (cake's voice tin holds a quarter of the
 * rate for the same reason): the margin is what it asks for above that.
 *
 * Return: @demand_bps and @margin percent of it, saturated at U64_MAX.
 */
u64 er2bc_with_margin(u64 demand_bps, u8 margin)
{
	u64 extra = mul_u64_u32_div(demand_bps, min_t(u32, margin, ER2BC_MARGIN_MAX), 100);

	return extra > U64_MAX - demand_bps ? U64_MAX : demand_bps + extra;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_with_margin);

/*
 * what a class asks of the round, before its margin: S_d in er2bc mode
 * once there is one, else R_f
 */
static u64 guarantee_want(const struct er2bc_fill *f, const struct er2bc_ctrl_class *k,
			  u64 rate_bps)
{
	return f->mode == ER2BC_MODE_ER2BC && k->sd ? k->sd : rate_bps;
}

/**
 * er2bc_fill_small - the share under which a class is served first in its
 * priority
 * @f: the state of the round, where the priority begins
 * @n: the priority's classes that ask for something
 *
 * Eq. 1 orders classes by priority and says nothing of classes of one
 * priority. Handed out in classid order, a priority that W cannot hold
 * whole gave all of it to the first class and nothing to a small one
 * after it: a voice class beside a video class of the same priority
 * starved, and its queue, fed at its rate, never drained. So in er2bc
 * mode the classes that ask for no more than an equal share of what is
 * left (margin included) are served first, whole, then the others by
 * eq. 1 in classid order: one step of max-min water-filling, in two walks
 * of the priority, no sort. Static mode keeps the paper's "existing
 * method", classid order within a priority.
 *
 * Return: the share in bits/s; 0: none first (another mode, no cap, no
 * class)
 */
u64 er2bc_fill_small(const struct er2bc_fill *f, unsigned int n)
{
	if (f->mode != ER2BC_MODE_ER2BC || f->left == U64_MAX || !n)
		return 0;
	return div_u64(f->left, n);
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_fill_small);

/**
 * er2bc_guarantee_demand - what a class asks of the round
 * @f: the state of the round
 * @k: the controller's view of the class
 * @rate_bps: its rate R_f
 * @ceil_bps: its ceil, 0 for none
 *
 * Return: its demand as er2bc_guarantee_next() hands it out (S_d in er2bc
 * mode once there is one, else R_f), with its margin, within its ceil
 */
u64 er2bc_guarantee_demand(const struct er2bc_fill *f, const struct er2bc_ctrl_class *k,
			   u64 rate_bps, u64 ceil_bps)
{
	u64 d = er2bc_with_margin(guarantee_want(f, k, rate_bps), k->margin);

	return ceil_bps ? min(d, ceil_bps) : d;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_guarantee_demand);

/**
 * er2bc_guarantee_small - whether a class is served first in its priority
 * @f: the state of the round
 * @k: the controller's view of the class
 * @rate_bps: its rate R_f
 * @ceil_bps: its ceil, 0 for none
 * @share: er2bc_fill_small() where its priority began
 *
 * Its demand decides (er2bc_guarantee_demand()); the controller's floor,
 * and a guarantee that gradual convergence holds, then apply to it as to
 * any class.
 *
 * Return: its demand is no more than @share
 */
bool er2bc_guarantee_small(const struct er2bc_fill *f, const struct er2bc_ctrl_class *k,
			   u64 rate_bps, u64 ceil_bps, u64 share)
{
	return share && er2bc_guarantee_demand(f, k, rate_bps, ceil_bps) <= share;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_guarantee_small);

/**
 * er2bc_guarantee_next - the guarantee of the next class in priority order,
 * as the qdisc hands them out (er2bc_assign())
 * @f: the state of the round, started with er2bc_fill_start()
 * @p: the controller's parameters
 * @k: the controller's view of the class: its S_d, and G(t-1) in @k->g
 * @rate_bps: its rate R_f
 * @ceil_bps: its ceil, 0 for none
 * @estimate: an estimate arrived (else a class or the qdisc changed)
 *
 * The mode's rule (er2bc_fill_next()) on the class's rate, or in er2bc
 * mode on its S_d once there is one; in both, a demand granted whole has
 * the class's margin (er2bc_with_margin()) added from what is left. In
 * er2bc mode, on an estimate the controller then settles it (the floor,
 * and one step of gradual convergence: er2bc_ctrl_settle()); on a change,
 * the floor applies and gradual convergence keeps the guarantee in force,
 * to be stepped down by the next estimates, not by the operator's tc
 * commands (er2bc_ctrl_keep()). What either adds is bounded as eq. 1 bounds the
 * rest: never above the class's ceil, nor above what the classes before it
 * left of W, and taken from the classes after it. So the guarantees in
 * force never sum above W.
 *
 * Return: the guarantee in bits/s, also stored in @k->g.
 */
u64 er2bc_guarantee_next(struct er2bc_fill *f, const struct er2bc_ctrl_params *p,
			 struct er2bc_ctrl_class *k, u64 rate_bps, u64 ceil_bps,
			 bool estimate)
{
	bool controlled = f->mode == ER2BC_MODE_ER2BC;
	u64 avail = f->left, d, g, extra;

	d = guarantee_want(f, k, rate_bps);
	g = er2bc_fill_next(f, d, ceil_bps);
	/*
	 * the margin on a demand granted whole, from what is left: in er2bc
	 * mode eq. 1 on the demand and its margin; in static mode a margin
	 * that does not fit whole is cut, and never stops the round
	 */
	if (g == d && k->margin) {
		extra = er2bc_with_margin(d, k->margin) - d;
		if (ceil_bps)
			extra = min(extra, ceil_bps - g);
		if (f->left != U64_MAX) {
			extra = min(extra, f->left);
			f->left -= extra;
		}
		g += extra;
	}
	if (controlled) {
		g = estimate ? er2bc_ctrl_settle(p, k, g) : er2bc_ctrl_keep(p, k, g);
		g = min(g, avail);
		if (ceil_bps)
			g = min(g, ceil_bps);
		if (f->left != U64_MAX)
			f->left = avail - g;
	}
	k->g = g;
	return g;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_guarantee_next);
