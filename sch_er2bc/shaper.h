/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rate arithmetic of the shaper: how long a packet occupies a link of a
 * given rate. Pure integer math, no locks and no skbs, so KUnit covers it.
 */
#ifndef _ER2BC_SHAPER_H
#define _ER2BC_SHAPER_H

#include <linux/bits.h>
#include <linux/types.h>

/*
 * A rate as a reciprocal: a packet of len bytes takes
 * (len * mult) >> shift nanoseconds, never less than at the exact rate.
 * The division happens once, when the rate is set, never per packet (as
 * sch_cake does). mult is kept below 2^34, so len may reach 2^29 bytes
 * without overflow.
 */
struct er2bc_rate {
	u64 mult;
	u8 shift;
};

#define ER2BC_RATE_MAX_LEN	BIT(29)

void er2bc_rate_set(struct er2bc_rate *r, u64 bits_per_sec);
u64 er2bc_clock_rescale(u64 time_next, u64 now, u64 old_bps, u64 new_bps);

static inline u64 er2bc_rate_tx_ns(const struct er2bc_rate *r, u32 len)
{
	return ((u64)len * r->mult) >> r->shift;
}

#endif /* _ER2BC_SHAPER_H */
