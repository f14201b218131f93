// SPDX-License-Identifier: GPL-2.0
/* Cap-bound and app-limited estimates (load.h). */
#include <string.h>

#include "load.h"

#define PPM	1000000ULL

void load_init(struct load *l)
{
	memset(l, 0, sizeof(*l));
	/* nothing seen yet: the rule as the paper has it until an estimate says otherwise */
	l->bound = true;
}

uint64_t load_eighth_over(uint64_t r)
{
	return r + r / 8 < r ? UINT64_MAX : r + r / 8;
}

static uint64_t most(const uint64_t *r, unsigned int n)
{
	uint64_t m = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (r[i] > m)
			m = r[i];
	return m;
}

uint64_t load_bw(const struct load *l)
{
	return most(l->bw, LOAD_BW_N);
}

uint64_t load_recent(const struct load *l)
{
	return most(l->recent, LOAD_RECENT_N);
}

void load_unknown(struct load *l)
{
	l->bound = true;
	l->was_bound = true;
}

void load_forget(struct load *l)
{
	memset(l->bw, 0, sizeof(l->bw));
	memset(l->recent, 0, sizeof(l->recent));
}

bool load_update(struct load *l, uint64_t w, const struct load_sample *x)
{
	uint64_t ref = l->w_prev && l->w_prev < w ? l->w_prev : w;
	bool bound;

	if (x->has_held)
		bound = x->dt_ns && x->held_ns >= x->dt_ns / 2;
	else
		bound = x->sent >= ref - ref / 16;
	l->cur = (l->cur + 1) % LOAD_BW_N;
	l->bw[l->cur] = 0;	/* the oldest goes first */
	/* (an app-limited R counts only if it is as high as bw already) */
	/* (a foreign estimate's R is the spoofer's as much as the path's) */
	l->bw[l->cur] = !x->foreign && (bound || x->recv >= load_bw(l)) ? x->recv : 0;
	/* (R above S: a late count, not what the path carries) */
	l->recent_cur = (l->recent_cur + 1) % LOAD_RECENT_N;
	l->recent[l->recent_cur] = x->foreign ? 0 : x->recv < x->sent ? x->recv : x->sent;
	l->was_bound = l->bound;
	l->bound = bound;
	l->was_heavy = l->heavy;
	/* (counts, not rates: R and S are timed on two clocks) */
	l->heavy = x->lost_pkts > x->sent_pkts / 8;
	l->w_prev = w;
	return bound;
}

uint64_t load_floor(const struct load *l, uint64_t w, uint64_t recv)
{
	uint64_t bw = load_bw(l), ref = bw && bw < w ? bw : w;
	uint64_t f = load_eighth_over(recv);
	uint64_t g = (uint64_t)((unsigned __int128)ref * LOAD_CUT / PPM);

	if (g > f)
		f = g;
	return f < w ? f : w;
}

const char *load_branch_name(enum load_branch b)
{
	static const char *const names[] = {
		[LOAD_DECREASE] = "decrease",
		[LOAD_HALFWAY] = "halfway",
		[LOAD_INCREASE] = "increase",
		[LOAD_HOLD] = "hold",
		[LOAD_FLOOR] = "floor",
		[LOAD_HEADROOM] = "headroom",
	};

	return (unsigned int)b < sizeof(names) / sizeof(names[0]) && names[b] ? names[b] : "?";
}

/*
 * 9/8 of the most min(R, S) of late: where W belongs while the flows are
 * app-limited and the path carries them; 0 after two heavy losses in a
 * row (the path narrowed below the flows), after a heavy loss in a
 * cap-bound estimate (R is then the path's), or with nothing of late
 */
static uint64_t load_headroom(const struct load *l, const struct aimd_params *p)
{
	uint64_t r = load_recent(l);

	if ((l->heavy && (l->was_heavy || l->bound)) || !r)
		return 0;
	return aimd_clamp(load_eighth_over(r), p);
}

void linkloss_init(struct linkloss *k)
{
	k->p_ppm = 0;
	k->have = false;
}

bool linkloss_random(struct linkloss *k, uint64_t lost, uint64_t sent, uint64_t theta_l,
		     int64_t queue_ns, int64_t span_min_ns)
{
	uint64_t m, allowed, f;
	bool random;

	if (queue_ns >= span_min_ns || !sent)
		return false;
	/*
	 * p n in millionths of a packet, sqrt(p n) in thousandths (n bounded
	 * so that the products stay in 64 bits: no estimate comes near it)
	 */
	if (sent > UINT64_MAX / 4000000ULL)
		sent = UINT64_MAX / 4000000ULL;
	m = k->have ? k->p_ppm * sent : 0;
	allowed = m + m / 2 + 3000 * aimd_isqrt(m) + 1000000ULL;
	random = lost > theta_l && lost <= sent / 8 && lost * 1000000ULL <= allowed;
	/* the link's rate, from this estimate with no queue */
	f = (lost < sent / 8 ? lost : sent / 8) * 1000000ULL / sent;
	k->p_ppm = k->have ? k->p_ppm - k->p_ppm / 8 + f / 8 : f;
	k->have = true;
	return random;
}

enum load_branch load_aimd(const struct load *l, struct aimd *a, const struct aimd_params *p,
			   uint64_t lost, const struct load_sample *x)
{
	uint64_t w0 = a->w, floor, room;
	enum load_branch b;

	if (l->bound && (lost <= p->theta_l || l->was_bound))
		return (enum load_branch)aimd_update(a, p, lost, x->recv);
	/*
	 * app-limited: W does not grow by D where the flows did not use it,
	 * and the increase starts over from D_ini when they press on it again
	 */
	room = load_headroom(l, p);
	if (lost <= p->theta_l) {
		a->d = p->d_ini < p->d_max ? p->d_ini : p->d_max;
		b = LOAD_HOLD;
	} else {
		b = (enum load_branch)aimd_update(a, p, lost, x->recv);
		/* (the rule's cut never raises W: (W + R) / 2 with R above W) */
		if (a->w > w0)
			a->w = w0;
		floor = aimd_clamp(load_floor(l, w0, x->recv), p);
		if (a->w < floor && floor <= w0) {
			a->w = floor;
			b = LOAD_FLOOR;
		}
	}
	/* nor does anything leave W below the flows' headroom */
	if (a->w < room) {
		b = LOAD_HEADROOM;
		a->w = room;
	}
	return b;
}
