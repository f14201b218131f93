// SPDX-License-Identifier: GPL-2.0
/*
 * Rate arithmetic of the er2bc shaper.
 */
#include <linux/bits.h>
#include <linux/export.h>
#include <linux/math64.h>
#include <linux/time64.h>
#include <kunit/visibility.h>

#include "shaper.h"

#define ER2BC_MULT_LIMIT	BIT_ULL(34)
/* 8 * NSEC_PER_SEC < 2^33: shifted left by at most 30 it stays below 2^63 */
#define ER2BC_SHIFT_MAX		30

/**
 * er2bc_rate_set - compute the reciprocal of a rate
 * @r: the rate to set
 * @bits_per_sec: the rate; 0 means no limit (every packet takes 0 ns)
 *
 * Picks the largest shift (at most 30) whose multiplier still fits below
 * 2^34. The multiplier is rounded up, so a packet never takes less time
 * than at the exact rate: the shaper never exceeds its cap. Rounding costs
 * at most one part in mult: under 1e-9 of the rate up to about 8.6 Gbit/s,
 * 1e-8 at 86 Gbit/s; truncating the product, under 1 ns per packet.
 */
void er2bc_rate_set(struct er2bc_rate *r, u64 bits_per_sec)
{
	const u64 ns_per_byte_at_1bps = 8 * NSEC_PER_SEC;
	u64 mult = 0;
	int shift;

	if (!bits_per_sec) {
		r->mult = 0;
		r->shift = 0;
		return;
	}
	for (shift = ER2BC_SHIFT_MAX; shift >= 0; shift--) {
		mult = DIV64_U64_ROUND_UP(ns_per_byte_at_1bps << shift,
					  bits_per_sec);
		/* at shift 0, mult <= 8e9 < 2^34: the loop always breaks */
		if (mult < ER2BC_MULT_LIMIT)
			break;
	}
	r->mult = mult;
	r->shift = shift;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_rate_set);

/**
 * er2bc_clock_rescale - move the virtual clock to a new rate
 * @time_next: earliest departure of the next packet, at the old rate
 * @now: the current time
 * @old_bps: the old rate (0: none)
 * @new_bps: the new rate (0: none)
 *
 * A clock ahead of now is a debt: bytes already sent that the old rate has
 * not paid for yet. The debt is carried over in bytes, so that a rate
 * raised from 1 kbit/s to 10 Mbit/s releases the queue at once instead of
 * after the seconds the old rate still owed, and a rate lowered does not
 * let the debt be paid at the new, faster pace.
 *
 * Return: the clock at the new rate.
 */
u64 er2bc_clock_rescale(u64 time_next, u64 now, u64 old_bps, u64 new_bps)
{
	if (time_next <= now || old_bps == new_bps)
		return time_next;
	if (!old_bps || !new_bps)
		return now;
	return now + mul_u64_u64_div_u64(time_next - now, old_bps, new_bps);
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_clock_rescale);
