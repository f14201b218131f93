// SPDX-License-Identifier: GPL-2.0
/* The delay rule for W (delay.h). */
#include <string.h>

#include "delay.h"

#define PPM	1000000LL

/* the area bounds, millionths of maxDelay - minDelay (delay.h) */
#define AREA_TOP	900000
#define AREA_HIGH	600000
#define AREA_ABOVE	350000
#define AREA_TARGET	200000
#define AREA_BELOW	100000
#define AREA_LOW	30000

/*
 * hybrid: estimates in a row above the target area, not draining, W
 * binding, before minDelay is pushed; and draining, before it stops
 */
#define DELAY_COMPETE_AFTER	3
#define DELAY_DRAIN_END		3

/*
 * the drain: W at least the bottleneck's rate times this (millionths);
 * estimates, beyond those its W takes to show (drain_lag()), by which the
 * queue must have come down by a quarter; the longest drain, beyond the
 * same; the estimates without one after a drain that failed; the most
 * estimates the lag can be (a bound: a request is answered within the
 * timeout, 16 intervals at most)
 */
#define DELAY_DRAIN_LEAST	250000
#define DELAY_DRAIN_TRY		3
#define DELAY_DRAIN_MAX		8
#define DELAY_DRAIN_OFF		30
#define DELAY_DRAIN_LAG_MAX	64

/* hybrid's push: round trips counted in one estimate, and its most, ppm */
#define DELAY_PUSH_ROUNDS	1000
#define DELAY_PUSH_MAX		(1000 * PPM)

static const char *const cmd_names[DELAY_NCMDS] = {
	[DELAY_HOLD]		= "hold",
	[DELAY_DEC_BIG]		= "down-3",
	[DELAY_DEC]		= "down-2",
	[DELAY_INC]		= "up-2",
	[DELAY_INC_BIG]		= "up-3",
	[DELAY_MD]		= "md",
	[DELAY_DEC_SMALL]	= "down-1",
	[DELAY_INC_SMALL]	= "up-1",
	[DELAY_DRAIN]		= "drain",
	[DELAY_DRAIN_DONE]	= "drain-end",
	[DELAY_DRAIN_FAIL]	= "drain-fail",
};

/* table 1's factors, millionths of delay-step */
static const int64_t cmd_factor[DELAY_NCMDS] = {
	[DELAY_DEC_BIG]		= -1000000,
	[DELAY_DEC]		= -700000,
	[DELAY_INC]		= 500000,
	[DELAY_INC_BIG]		= 1000000,
	[DELAY_DEC_SMALL]	= -200000,
	[DELAY_INC_SMALL]	= 200000,
};

static const char *const mode_names[DELAY_NMODES] = {
	[DELAY_MODE_LOSS]	= "loss",
	[DELAY_MODE_DELAY]	= "delay",
	[DELAY_MODE_HYBRID]	= "hybrid",
};

const char *delay_mode_name(enum delay_mode m)
{
	return (unsigned int)m < DELAY_NMODES ? mode_names[m] : "?";
}

const char *delay_cmd_name(enum delay_cmd c)
{
	return (unsigned int)c < DELAY_NCMDS ? cmd_names[c] : "?";
}

void delay_init(struct delay_state *s)
{
	memset(s, 0, sizeof(*s));
}

/* the least of @s's base delay history */
static int64_t base_least(const struct delay_state *s)
{
	int64_t least = s->base[0];
	uint32_t i;

	for (i = 1; i < s->base_n; i++)
		if (s->base[i] < least)
			least = s->base[i];
	return least;
}

void delay_rebase(struct delay_state *s, const struct delay_state *from)
{
	int64_t old_base = s->min_ns - s->push_ns, base;
	bool had = s->have;

	if (!from->have) {
		delay_init(s);
		return;
	}
	memcpy(s->base, from->base, sizeof(s->base));
	s->base_n = from->base_n;
	s->base_cur = from->base_cur;
	s->base_count = from->base_count;
	memcpy(s->last, from->last, sizeof(s->last));
	s->last_n = from->last_n;
	s->last_cur = from->last_cur;
	s->prev_ns = from->prev_ns;
	s->cur_ns = from->cur_ns;
	s->have = true;
	base = base_least(s);
	if (!had) {
		s->push_ns = 0;
		s->have_max = false;
	} else if (s->have_max) {
		s->max_ns += base - old_base;
	}
	s->min_ns = base + s->push_ns;
	s->queue_ns = s->cur_ns > s->min_ns ? s->cur_ns - s->min_ns : 0;
}

int64_t delay_span(const struct delay_state *s, const struct delay_params *p)
{
	/*
	 * from the base, not the pushed minDelay: the push lifts the areas
	 * whole, as the seed says, rather than squeezing them under maxDelay
	 */
	int64_t base = s->min_ns - s->push_ns;
	int64_t span = s->have_max && s->max_ns > base ? s->max_ns - base : (int64_t)p->span_ns;

	if (span > (int64_t)p->span_ns)
		span = p->span_ns;
	if (span < (int64_t)p->span_min_ns)
		span = p->span_min_ns;
	return span < 1 ? 1 : span;
}

/* @d into the base delay's history; the least base delay */
static int64_t base_add(struct delay_state *s, int64_t d)
{
	if (s->base_count == DELAY_BASE_LEN) {
		s->base_cur = (s->base_cur + 1) % DELAY_BASE_N;
		s->base[s->base_cur] = d;
		if (s->base_n < DELAY_BASE_N)
			s->base_n++;
		s->base_count = 0;
	} else if (d < s->base[s->base_cur]) {
		s->base[s->base_cur] = d;
	}
	s->base_count++;
	return base_least(s);
}

/* @d into the latest samples; the least of the last delay-filter of them */
static int64_t filter_add(struct delay_state *s, const struct delay_params *p, int64_t d)
{
	uint32_t n = p->filter < 1 ? 1 : p->filter > DELAY_FILTER_MAX ? DELAY_FILTER_MAX :
		     p->filter;
	int64_t least = d;
	uint32_t i;

	s->last_cur = (s->last_cur + 1) % DELAY_FILTER_MAX;
	s->last[s->last_cur] = d;
	if (s->last_n < DELAY_FILTER_MAX)
		s->last_n++;
	if (n > s->last_n)
		n = s->last_n;
	for (i = 1; i < n; i++) {
		int64_t v = s->last[(s->last_cur + DELAY_FILTER_MAX - i) % DELAY_FILTER_MAX];

		if (v < least)
			least = v;
	}
	return least;
}

/* @w moved by @step bit/s, without wrapping */
static uint64_t w_add(uint64_t w, int64_t step)
{
	if (step < 0)
		return (uint64_t)-step >= w ? 0 : w - (uint64_t)-step;
	return w + (uint64_t)step < w ? UINT64_MAX : w + (uint64_t)step;
}

/* the command for a delay at @f millionths of the span, gradient @g */
static enum delay_cmd area_cmd(int64_t f, int g)
{
	/*
	 * (the seed cuts in its top area whatever the gradient; a deep
	 * buffer, ten times the span, drains for seconds after W has come
	 * below what it drains at, and further cuts only starve the classes)
	 */
	if (f >= AREA_TOP)
		return g < 0 ? DELAY_HOLD : DELAY_DEC_BIG;
	if (f >= AREA_HIGH)
		return g < 0 ? DELAY_INC_SMALL : DELAY_DEC_BIG;
	if (f >= AREA_ABOVE)
		return g < 0 ? DELAY_INC_SMALL : DELAY_DEC;
	if (f >= AREA_TARGET)
		return DELAY_HOLD;
	if (f >= AREA_BELOW)
		return g > 0 ? DELAY_DEC_SMALL : DELAY_INC;
	return g > 0 ? DELAY_DEC_SMALL : DELAY_INC_BIG;
}

/* one sample read: the delay, its queue and place in the areas */
struct reading {
	int64_t cur;		/* the delay read (filtered) */
	int64_t base;		/* the least base delay */
	int64_t queue;		/* cur above minDelay */
	int64_t bqueue;		/* cur above the base: the queue whoever holds it */
	int64_t span;		/* what the areas span */
	int64_t f;		/* queue, millionths of span (at most 2 spans) */
	int64_t bf;		/* bqueue, millionths of span (at most 2 spans) */
	int g;			/* the gradient: -1, 0 (dead band) or 1 */
};

/* a queue of @q in millionths of @span, at most two spans */
static int64_t span_frac(int64_t q, int64_t span)
{
	return q >= span * 2 ? 2 * PPM : q * PPM / span;
}

static void delay_read(struct delay_state *s, const struct delay_params *p,
		       const struct delay_sample *x, struct reading *r)
{
	int64_t d = x->owd_ns, low = d, grad;

	if (x->rtt_ns && (!s->rtt_min_ns || x->rtt_ns < s->rtt_min_ns))
		s->rtt_min_ns = x->rtt_ns;
	if (!s->have) {
		s->have = true;
		s->base[0] = d;
		s->base_n = 1;
		s->prev_ns = d;
	}
	/*
	 * the base takes a delay only if the sample before it was as low: a
	 * lone request that overtook the path's delay (reordered) would set
	 * minDelay below the path for ten buckets, and every delay after it
	 * would read as a queue; nor is the delay read below the base
	 */
	if (s->last_n && s->last[s->last_cur] > low)
		low = s->last[s->last_cur];
	r->base = base_add(s, low);
	r->cur = filter_add(s, p, d);
	if (r->cur < r->base)
		r->cur = r->base;
	/* a delay below the pushed minDelay takes it down (base <= cur) */
	if (r->cur < r->base + s->push_ns)
		s->push_ns = r->cur - r->base;
	s->min_ns = r->base + s->push_ns;
	r->queue = r->cur - s->min_ns;
	r->span = delay_span(s, p);
	r->f = span_frac(r->queue, r->span);
	r->bqueue = r->cur - r->base;
	r->bf = span_frac(r->bqueue, r->span);
	/* the gradient, inside a dead band of a twentieth of the span */
	grad = r->cur - s->prev_ns;
	r->g = grad > r->span / 20 ? 1 : grad < -(r->span / 20) ? -1 : 0;
}

static void delay_done(struct delay_state *s, const struct reading *r)
{
	s->prev_ns = r->cur;
	s->cur_ns = r->cur;
	s->queue_ns = r->queue;
	s->fraction = r->f > UINT32_MAX ? UINT32_MAX : (uint32_t)r->f;
	/* above the base, not the pushed minDelay: the queue whoever holds it */
	s->queued = r->bf >= AREA_TARGET;
}

void delay_watch(struct delay_state *s, const struct delay_params *p,
		 const struct delay_sample *x)
{
	struct reading r;

	delay_read(s, p, x, &r);
	delay_done(s, &r);
}

bool delay_queued(const struct delay_state *s)
{
	return s->have && s->queued;
}

int64_t delay_queue_over(const struct delay_state *s, const struct delay_params *p)
{
	int64_t own = (int64_t)((__int128)delay_span(s, p) * AREA_ABOVE / PPM);

	return s->queue_ns > own ? s->queue_ns - own : 0;
}

void delay_resume(struct delay_state *s)
{
	s->last_step = 0;
}

/*
 * W caps what crossed in the estimate @x: W (before this estimate's step)
 * at most R and a fiftieth. A W above that, the queue may be W's own (an
 * increase that overshot the bottleneck fills its buffer, and R is what
 * the bottleneck lets through of it).
 */
static bool w_binds(uint64_t w, const struct delay_sample *x)
{
	return w <= x->recv + x->recv / 50;
}

/*
 * hybrid's push over the estimate @x, millionths: the factor for each
 * round trip the estimate spans (its request's RTT, or the least RTT if
 * none; whole ones, at least one, at most DELAY_PUSH_ROUNDS), the factor
 * itself at most DELAY_PUSH_MAX. (The seed pushes without saying how
 * often; once a round trip is ours.)
 */
static uint64_t push_factor(const struct delay_state *s, const struct delay_params *p,
			    const struct delay_sample *x)
{
	uint64_t rtt = x->rtt_ns > s->rtt_min_ns ? x->rtt_ns : s->rtt_min_ns;
	uint64_t rounds = x->span_ns / rtt, f = p->push;

	if (rounds > DELAY_PUSH_ROUNDS)
		rounds = DELAY_PUSH_ROUNDS;
	while (rounds-- > 1 && f < DELAY_PUSH_MAX)
		f = (uint64_t)((unsigned __int128)f * p->push / PPM);
	return f < DELAY_PUSH_MAX ? f : DELAY_PUSH_MAX;
}

/*
 * hybrid: whether others hold the queue. It starts on a queue above the
 * target area, counted from the base, at DELAY_COMPETE_AFTER estimates in
 * a row that did not see it drain while W capped what crossed; it ends
 * when the queue falls below the target area, or drains for
 * DELAY_DRAIN_END estimates in a row: a queue of W's own drains for good
 * once an MD or a cut takes W below what the bottleneck serves, where
 * loss-based TCP's drops once a sawtooth and fills again.
 */
static void compete(struct delay_state *s, const struct delay_params *p,
		    const struct delay_sample *x, const struct reading *r, uint64_t w0)
{
	bool others = p->mode == DELAY_MODE_HYBRID && r->bf >= AREA_TARGET && s->rtt_min_ns;

	if (others && !s->competing) {
		if (r->g < 0)
			s->above = 0;
		else if (r->bf >= AREA_ABOVE && w_binds(w0, x))
			s->above++;
		s->competing = s->above >= DELAY_COMPETE_AFTER;
		s->drain = 0;
		return;
	}
	s->drain = others && r->g < 0 ? s->drain + 1 : 0;
	if (!others || s->drain >= DELAY_DRAIN_END) {
		s->above = 0;
		s->drain = 0;
		s->competing = false;
	}
}

/*
 * the rate the bottleneck serves, as the drain knows it: to cut from, the
 * most R it saw, its first included (never R alone: beside a queue that
 * is not W's, R follows W down, and a cut from it would compound estimate
 * after estimate); to end at, the most R after its first (whose interval
 * may straddle the path's slowing), or the first's while there is none
 */
static uint64_t drain_rate(const struct delay_state *s, bool end)
{
	if (end)
		return s->drain_bw ? s->drain_bw : s->drain_r0;
	return s->drain_bw > s->drain_r0 ? s->drain_bw : s->drain_r0;
}

uint64_t delay_drain_bw(const struct delay_state *s)
{
	return drain_rate(s, false);
}

void delay_drain_allow(struct delay_state *s)
{
	s->drain_off = 0;
}

/* the drain's end: W from the bottleneck's rate, no higher than before it */
static enum delay_cmd drain_end(struct delay_state *s, struct aimd *a,
				const struct aimd_params *ap)
{
	uint64_t bw = drain_rate(s, true);

	a->w = bw && bw < s->drain_w ? bw : s->drain_w;
	a->d = ap->d_ini;
	s->last_step = 0;
	s->draining = 0;
	return DELAY_DRAIN_DONE;
}

/*
 * the queue is not W's: W back where it was, or at the bottleneck's rate
 * and a fiftieth if lower (a drain misjudged must not put back a W
 * many times the path's), no drain for DELAY_DRAIN_OFF estimates, and in
 * hybrid mode competing at once
 */
static enum delay_cmd drain_fail(struct delay_state *s, const struct delay_params *p,
				 struct aimd *a, const struct aimd_params *ap)
{
	uint64_t bw = drain_rate(s, false);

	bw += bw / 50;
	a->w = bw && bw < s->drain_w ? bw : s->drain_w;
	a->d = ap->d_ini;
	s->last_step = 0;
	s->draining = 0;
	s->drain_off = DELAY_DRAIN_OFF;
	s->drains_failed++;
	if (p->mode == DELAY_MODE_HYBRID && s->rtt_min_ns)
		s->competing = true;
	return DELAY_DRAIN_FAIL;
}

/* the time to the next estimate: the interval, or this one's span */
static uint64_t drain_next(const struct delay_state *s, const struct delay_sample *x)
{
	return x->next_ns ? x->next_ns : x->span_ns ? x->span_ns :
	       x->rtt_ns ? x->rtt_ns : s->rtt_min_ns;
}

/*
 * the estimates before the drain's W shows in the queue read: the requests
 * already queued when it began come back with the queue they met, so the
 * queue's length over the interval, rounded up
 */
static uint32_t drain_lag(int64_t queue, uint64_t next)
{
	uint64_t lag;

	if (!next || queue <= 0)
		return 0;
	lag = ((uint64_t)queue + next - 1) / next;
	return lag < DELAY_DRAIN_LAG_MAX ? (uint32_t)lag : DELAY_DRAIN_LAG_MAX;
}

/*
 * the drain (delay.h): the command if it took the estimate @x, else
 * DELAY_NCMDS (the areas and the loss rule decide)
 */
static enum delay_cmd drain(struct delay_state *s, const struct delay_params *p,
			    struct aimd *a, const struct aimd_params *ap,
			    const struct delay_sample *x, const struct reading *r)
{
	uint64_t t, w, bw;

	if (!p->drain || s->competing) {
		s->draining = 0;
		return DELAY_NCMDS;
	}
	if (!s->draining) {
		if (s->drain_off) {
			s->drain_off--;
			return DELAY_NCMDS;
		}
		/* two delay-spans above the base: beyond the areas */
		if (r->bqueue < 2 * (int64_t)p->span_ns || !x->recv)
			return DELAY_NCMDS;
		s->drain_w = a->w;
		s->drain_r0 = x->recv;
		s->drain_bw = 0;
		s->drain_q = r->bqueue;
		s->drain_lag = drain_lag(r->bqueue, drain_next(s, x));
		s->drains++;
		s->above = 0;
	} else if (r->bf < AREA_ABOVE) {
		return drain_end(s, a, ap);
	} else if (s->draining >= DELAY_DRAIN_MAX + s->drain_lag) {
		/* as long as it may, and still beyond the areas: not W's */
		if (r->bqueue >= 2 * (int64_t)p->span_ns)
			return drain_fail(s, p, a, ap);
		return drain_end(s, a, ap);
	} else if (s->draining < DELAY_DRAIN_TRY + s->drain_lag) {
		/* still rising behind the requests queued before: the lag grows */
		if (r->bqueue > s->drain_q) {
			s->drain_q = r->bqueue;
			s->drain_lag = drain_lag(r->bqueue, drain_next(s, x));
		}
	} else if (s->draining == DELAY_DRAIN_TRY + s->drain_lag &&
		   s->drain_q - r->bqueue < s->drain_q / 4) {
		/* not W's queue: the others hold it */
		return drain_fail(s, p, a, ap);
	}
	if (s->draining && x->recv > s->drain_bw)
		s->drain_bw = x->recv;
	s->draining++;
	bw = drain_rate(s, false);
	/*
	 * W = bw (1 - queue / T), at least bw * DELAY_DRAIN_LEAST, T the time
	 * to the next estimate and bw the bottleneck's rate (drain_rate())
	 */
	t = drain_next(s, x);
	if (!t || (unsigned __int128)r->bqueue * PPM >=
		  (unsigned __int128)t * (PPM - DELAY_DRAIN_LEAST))
		w = (uint64_t)((unsigned __int128)bw * DELAY_DRAIN_LEAST / PPM);
	else
		w = bw - (uint64_t)((unsigned __int128)bw * (uint64_t)r->bqueue / t);
	if (w < a->w)
		a->w = w;
	a->d = ap->d_ini;
	s->last_step = 0;
	return DELAY_DRAIN;
}

enum delay_cmd delay_update(struct delay_state *s, const struct delay_params *p,
			    struct aimd *a, const struct aimd_params *ap,
			    const struct delay_sample *x)
{
	uint64_t w0 = a->w;	/* the W the estimate measured */
	bool loss, heavy, queued, shown = false;
	struct reading r;
	enum delay_cmd cmd;
	int64_t step;

	delay_read(s, p, x, &r);
	cmd = drain(s, p, a, ap, x, &r);
	if (cmd != DELAY_NCMDS)
		goto drained;

	/*
	 * a loss is congestion if it comes with a queue that rose: above the
	 * target area, or filling; or with any queue while no loss has shown
	 * where the bottleneck drops
	 */
	loss = x->lost > ap->theta_l;
	queued = r.bqueue >= (int64_t)p->span_min_ns &&
		 (!s->have_max || r.bf >= AREA_ABOVE || r.g > 0);
	heavy = x->sent && x->lost > x->sent / 10;
	if (loss && (queued || heavy)) {
		/*
		 * congestion: the bottleneck dropped with this queue. From
		 * W, or R if less; app-limited, R measured the flows and
		 * not the path: from W, and no lower than the floor (load.h)
		 */
		uint64_t from = !x->limited && x->recv && x->recv < a->w ? x->recv : a->w;

		if (queued) {
			int64_t m = r.cur > s->prev_ns ? r.cur : s->prev_ns;

			/* up at once, down by an eighth of the way */
			if (!s->have_max || m > s->max_ns)
				s->max_ns = m;
			else
				s->max_ns -= (s->max_ns - m) / 8;
			s->have_max = true;
			shown = true;
		}
		a->w = (uint64_t)((unsigned __int128)from * PPM / p->md);
		if (x->limited && a->w < x->floor && x->floor <= from)
			a->w = x->floor;
		a->d = ap->d_ini;
		s->last_step = 0;
		cmd = DELAY_MD;
	} else {
		/*
		 * (competing, a queue that fills below the target area is the
		 * others' growing, not W's: the area's step, not the yield)
		 */
		cmd = area_cmd(r.f, s->competing && r.f < AREA_TARGET && r.g > 0 ? 0 : r.g);
		/*
		 * (competing, the areas above the target lie under the others'
		 * queue until the push has lifted them: W holds, and comes
		 * down on a congestion loss, not on their queue)
		 */
		if (s->competing && cmd_factor[cmd] < 0)
			cmd = DELAY_HOLD;
		/* app-limited: W does not grow where the flows did not use it */
		if (x->limited && cmd_factor[cmd] > 0)
			cmd = DELAY_HOLD;
		if (cmd == DELAY_INC_BIG && r.f < AREA_LOW) {
			/* no queue at all: the paper's increase, eq. 10-11 (L = 0) */
			aimd_update(a, ap, 0, x->recv);
			s->last_step = p->step > INT64_MAX ? INT64_MAX : (int64_t)p->step;
		} else {
			/* the area's step, smoothed: half this one, half the last */
			int64_t raw = (int64_t)((__int128)cmd_factor[cmd] * (int64_t)p->step / PPM);

			step = raw / 2 + s->last_step / 2;
			s->last_step = raw;
			if (x->limited && step > 0)
				step = 0;
			a->w = w_add(a->w, step);
			a->d = ap->d_ini;
		}
	}

drained:
	/*
	 * a maxDelay that no congestion loss has shown for DELAY_MAX_AGE
	 * estimates, this one included, is raised to delay-span above the
	 * base: learnt from a loss with a shallow queue, it may squeeze the
	 * areas under the path's jitter, which then reads as a queue and
	 * holds W at w-min, where no loss comes to correct it. It stays
	 * known: a loss must still come with a queue that rose to be
	 * congestion, and one below it takes it down an eighth of the way,
	 * not at once. (A bottleneck buffer shallower than the areas above
	 * the target, full and dropping while the delay stands still, is
	 * then read as random loss until the loss is heavy.)
	 */
	if (shown) {
		s->max_age = 0;
	} else if (s->have_max && ++s->max_age >= DELAY_MAX_AGE) {
		if (s->max_ns < r.base + (int64_t)p->span_ns)
			s->max_ns = r.base + (int64_t)p->span_ns;
		s->max_age = 0;
	}

	/*
	 * hybrid: while others hold the queue (compete()), minDelay (half
	 * the least RTT, plus the push so far) is pushed up by push - 1 of
	 * itself each round trip, up to the delay read: the areas rise under
	 * the others' queue until the rule steps W up, and a loss, its queue
	 * counted from the base, is congestion and takes W down (MD)
	 */
	if (!s->draining)
		compete(s, p, x, &r, w0);
	if (s->competing && s->rtt_min_ns) {
		int64_t lift = (int64_t)((unsigned __int128)(push_factor(s, p, x) - PPM) *
					 (uint64_t)((int64_t)(s->rtt_min_ns / 2) + s->push_ns) / PPM);
		/* not past the delay read: a pushed minDelay above it comes down */
		int64_t most = r.cur - r.base;

		if (s->push_ns + lift > most)
			lift = most > s->push_ns ? most - s->push_ns : 0;
		s->push_ns += lift;
		s->min_ns = r.base + s->push_ns;
	}

	delay_done(s, &r);
	a->w = aimd_clamp(a->w, ap);
	return cmd;
}
