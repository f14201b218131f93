// SPDX-License-Identifier: GPL-2.0
/*
 * Guarantees of the er2bc classes (see guarantee.h).
 */
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <kunit/visibility.h>

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
