/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ABW update of seed 000, eq. 8-11 (section 3.2;
 * Documentation/references.rst), in integers: rates in bit/s (u64), alpha
 * in millionths. No I/O.
 */
#ifndef _ABWD_AIMD_H
#define _ABWD_AIMD_H

#include <stdint.h>

/* alpha's unit: 1000000 is 1 */
#define AIMD_ONE	1000000ULL

struct aimd_params {
	uint64_t theta_h;	/* packets lost above which W = R - beta */
	uint64_t theta_l;	/* packets lost up to which W grows */
	uint64_t d_ini;		/* bit/s */
	uint64_t d_max;		/* bit/s */
	uint64_t alpha;		/* millionths, >= AIMD_ONE */
	uint64_t beta;		/* bit/s */
	uint64_t w_ini;		/* bit/s */
	uint64_t w_min;		/* bit/s, >= 1: W never goes below */
	uint64_t w_max;		/* bit/s, 0: no limit */
};

/* W_ini of the paper's test bed (Table 4) */
#define AIMD_W_INI	1000000ULL

/* the paper's parameters (Table 4), and w-min 10 kbit/s, no w-max */
#define AIMD_DEFAULTS {				\
	.theta_h = 1,				\
	.theta_l = 0,				\
	.d_ini = 50000,				\
	.d_max = 1000000,			\
	.alpha = 1200000,			\
	.beta = 100000,				\
	.w_ini = AIMD_W_INI,			\
	.w_min = 10000,				\
	.w_max = 0,				\
}

struct aimd {
	uint64_t w;		/* W(t), bit/s */
	uint64_t d;		/* D(t), bit/s */
};

/* which branch of eq. 8-10 the last update took */
enum aimd_branch {
	AIMD_DECREASE,		/* L > theta_H: W = R - beta */
	AIMD_HALFWAY,		/* theta_L < L <= theta_H: W = (W + R) / 2 */
	AIMD_INCREASE,		/* L <= theta_L: W = W + D */
};

/* @w within [w_min, w_max] (w_max 0: no limit) */
uint64_t aimd_clamp(uint64_t w, const struct aimd_params *p);

/* floor(sqrt(@v)): the rate equations' (compete.h, load.h) */
uint64_t aimd_isqrt(uint64_t v);

/* W(1) = W_ini, D(1) = D_ini (clamped to [w_min, w_max]) */
void aimd_init(struct aimd *a, const struct aimd_params *p);

/*
 * One update with L(t) = @lost (packets, never negative) and R(t-1) =
 * @recv (bit/s): W(t) and D(t) from W(t-1) and D(t-1). W is then kept
 * within [w_min, w_max]. Sums saturate at UINT64_MAX.
 */
enum aimd_branch aimd_update(struct aimd *a, const struct aimd_params *p,
			     uint64_t lost, uint64_t recv);

#endif /* _ABWD_AIMD_H */
