// SPDX-License-Identifier: GPL-2.0
/* The ABW update, eq. 8-11 (aimd.h). */
#include "aimd.h"

uint64_t aimd_isqrt(uint64_t v)
{
	uint64_t r = 0, bit = 1ULL << 62;

	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

uint64_t aimd_clamp(uint64_t w, const struct aimd_params *p)
{
	if (p->w_max && w > p->w_max)
		w = p->w_max;
	if (w < p->w_min)
		w = p->w_min;
	return w;
}

void aimd_init(struct aimd *a, const struct aimd_params *p)
{
	a->w = aimd_clamp(p->w_ini, p);
	a->d = p->d_ini < p->d_max ? p->d_ini : p->d_max;
}

enum aimd_branch aimd_update(struct aimd *a, const struct aimd_params *p,
			     uint64_t lost, uint64_t recv)
{
	unsigned __int128 d;
	enum aimd_branch b;
	uint64_t w;


	/* eq. 8-10, W(t) from W(t-1), D(t-1) */
	if (lost > p->theta_h) {
		b = AIMD_DECREASE;
		w = recv > p->beta ? recv - p->beta : 0;
	} else if (lost > p->theta_l) {
		b = AIMD_HALFWAY;
		/* (W + R) / 2 without the sum overflowing */
		w = a->w / 2 + recv / 2 + (a->w & recv & 1);
	} else {
		b = AIMD_INCREASE;
		w = a->w + a->d < a->w ? UINT64_MAX : a->w + a->d;
	}

	/* eq. 11, D(t) from D(t-1) */
	if (b == AIMD_INCREASE) {
		d = (unsigned __int128)a->d * p->alpha / AIMD_ONE;
		a->d = d > p->d_max ? p->d_max : (uint64_t)d;
	} else {
		a->d = p->d_ini;
	}
	a->w = aimd_clamp(w, p);
	return b;
}
