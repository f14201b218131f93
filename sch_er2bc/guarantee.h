/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a class's guarantee is decided: the rule of each mode, applied to
 * the classes in priority order. Pure arithmetic, tested by KUnit; the
 * eR2BC controller feeds it each class's S_d.
 */
#ifndef _ER2BC_GUARANTEE_H
#define _ER2BC_GUARANTEE_H

#include <linux/types.h>
#include <linux/er2bc.h>

/* the capacity left while guarantees are handed out in priority order */
struct er2bc_fill {
	u64 left;		/* U64_MAX: no cap */
	u8 mode;		/* enum er2bc_mode */
	bool full;		/* static mode: a class did not fit, none after it may */
};

struct er2bc_ctrl_class;
struct er2bc_ctrl_params;

void er2bc_fill_start(struct er2bc_fill *f, enum er2bc_mode mode, u64 cap_bps);
u64 er2bc_fill_next(struct er2bc_fill *f, u64 demand_bps, u64 ceil_bps);
u64 er2bc_with_margin(u64 demand_bps, u8 margin);
u64 er2bc_fill_small(const struct er2bc_fill *f, unsigned int n);
u64 er2bc_guarantee_demand(const struct er2bc_fill *f, const struct er2bc_ctrl_class *k,
			   u64 rate_bps, u64 ceil_bps);
bool er2bc_guarantee_small(const struct er2bc_fill *f, const struct er2bc_ctrl_class *k,
			   u64 rate_bps, u64 ceil_bps, u64 share);
u64 er2bc_guarantee_next(struct er2bc_fill *f, const struct er2bc_ctrl_params *p,
			 struct er2bc_ctrl_class *k, u64 rate_bps, u64 ceil_bps,
			 bool estimate);

#endif /* _ER2BC_GUARANTEE_H */
