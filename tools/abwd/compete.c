// SPDX-License-Identifier: GPL-2.0
/* Elastic cross traffic, and the loss rule competing (compete.h). */
#include <string.h>

#include "compete.h"

#define PPM	1000000ULL

void compete_init(struct compete *c)
{
	memset(c, 0, sizeof(*c));
}

uint32_t compete_drain_lag(uint64_t rtt_ns, uint64_t interval_ns)
{
	if (!interval_ns || rtt_ns / interval_ns >= COMPETE_DRAIN_MAX)
		return COMPETE_DRAIN_MAX;
	return (uint32_t)(rtt_ns / interval_ns) + 1;
}

uint32_t compete_verify_len(uint64_t interval_ns, uint32_t filter)
{
	uint64_t n;

	if (!interval_ns)
		return COMPETE_DRAIN_MAX;
	/* (the delay read is the least of the last @filter: a rise shows late) */
	n = (COMPETE_VERIFY_NS + interval_ns - 1) / interval_ns + (filter ? filter - 1 : 0);
	return n < 2 ? 2 : n > COMPETE_DRAIN_MAX ? COMPETE_DRAIN_MAX : (uint32_t)n;
}

/* a drain begins at the queue @q_ns, the test's most @most_ns */
static enum compete_step drain_begin(struct compete *c, int64_t q_ns, int64_t most_ns,
				     const struct compete_read *r)
{
	c->draining = true;
	c->halve = true;
	c->fell = false;
	c->risen = 0;
	c->verify = 0;
	c->drain_age = 0;
	c->skipped = 0;
	c->depth = 1;
	c->floored = false;
	c->refilled = false;
	c->lag = compete_drain_lag(r->rtt_ns, r->interval_ns);
	c->drain_most = most_ns;
	c->last_q = q_ns;
	c->w_saved = 0;
	c->drains++;
	return COMPETE_DRAIN;
}

uint32_t compete_quiet_max(uint64_t interval_ns)
{
	uint64_t n = interval_ns ? COMPETE_QUIET_MAX_NS / interval_ns : 0;

	return n < COMPETE_WINDOW ? COMPETE_WINDOW : n > COMPETE_QUIET_CAP ?
	       COMPETE_QUIET_CAP : (uint32_t)n;
}

/*
 * the queue was W's own, or the others have gone: the test starts over,
 * after a quiet twice the last if W's own (compete.h)
 */
static enum compete_step drain_end(struct compete *c, const struct compete_read *r)
{
	uint32_t most = compete_quiet_max(r->interval_ns);

	if (c->on)
		c->quiet_len = 0;
	else if (!c->quiet_len)
		c->quiet_len = COMPETE_WINDOW;
	else
		c->quiet_len = c->quiet_len > most / 2 ? most : c->quiet_len * 2;
	c->quiet = c->quiet_len;
	c->draining = false;
	c->on = false;
	c->n = 0;
	return COMPETE_DRAIN_END;
}

/* the queue is others': competing */
static enum compete_step drain_fail(struct compete *c)
{
	c->draining = false;
	c->quiet = 0;
	c->quiet_len = 0;
	c->drains_failed++;
	c->on = true;
	c->age = 0;
	return COMPETE_DRAIN_FAIL;
}

/*
 * W a step further down, if the drain has one left, judged afresh after
 * the lag. @never_fell: a queue that did not fall at all at this step may
 * also take, where the priorities' floor held the last step up, the
 * quarter itself (the floor may lie above what the others leave free); a
 * queue that fell and then stood or rose takes the floored step only (and
 * no drain that took a step for it goes past the floor later), so
 * that beside loss-based flows W is never put under what the highest
 * priorities ask for by their refill (issue 39). Nor does a recheck while
 * competing: the others held the queue a moment ago, and one that does
 * not fall at the floor is theirs still; under it, the recheck left
 * priority 1 short every COMPETE_RECHECK estimates beside CUBIC
 * (er2bc_elastic, 6.12: W at 533 kbit/s under its 1 Mbit/s for the last
 * 1.5 s of the run)
 */
static bool drain_deeper(struct compete *c, const struct compete_read *r, bool never_fell)
{
	if (c->depth > COMPETE_DRAIN_DEPTH ||
	    (c->depth == COMPETE_DRAIN_DEPTH &&
	     !(c->floored && never_fell && !c->refilled && !c->on)))
		return false;
	c->refilled |= !never_fell;
	c->depth++;
	c->halve = true;
	c->fell = false;
	c->risen = 0;
	c->drain_age = 0;
	c->lag = compete_drain_lag(r->rtt_ns, r->interval_ns);
	return true;
}

/* the drain at the queue read @q (past its lag): whose queue is it? */
static enum compete_step drain_judge(struct compete *c, int64_t q, const struct compete_read *r)
{
	int64_t fall = c->last_q - q, tenth = c->drain_most / 10, half = c->drain_most / 2;

	if (tenth < r->span_min_ns)
		tenth = r->span_min_ns;
	if (half < r->span_min_ns)
		half = r->span_min_ns;
	if (c->verify) {
		/*
		 * emptied, W held: loss-based flows fill it again; a queue of
		 * W's own cannot grow while W stays below its share. Their
		 * refill lasts; one reading up is the path's jitter, or a
		 * host that held the packets (the watch goes on past it)
		 */
		if (q < c->watch_min)
			c->watch_min = q;
		if (q >= half || q >= c->watch_min + tenth) {
			/* (or a path that narrowed: below; not on a recheck) */
			if (++c->risen >= COMPETE_RISEN) {
				if (c->on || !drain_deeper(c, r, false))
					return drain_fail(c);
				c->verify = 0;
				return COMPETE_DRAIN;
			}
			if (c->verify == 1)
				return COMPETE_DRAIN;
		} else {
			c->risen = 0;
		}
		return --c->verify ? COMPETE_DRAIN : drain_end(c, r);
	}
	if (q < tenth) {
		/* emptied: does it fill again while W stays where it is? */
		c->verify = compete_verify_len(r->interval_ns, r->filter);
		c->watch_min = q;
		c->risen = 0;
		return COMPETE_DRAIN;
	}
	if (fall >= r->span_min_ns) {
		/* still falling: W's own, draining */
		c->last_q = q;
		c->fell = true;
		c->risen = 0;
		return ++c->drain_age >= COMPETE_DRAIN_MAX ? drain_end(c, r) : COMPETE_DRAIN;
	}
	/*
	 * no fall: judged when it lasts COMPETE_RISEN readings. A reading let
	 * pass is not the base of the next one's fall (a queue standing at 30
	 * ms that reads 33 must not seem to fall when it reads 30 again), nor
	 * the drain's last; and a queue that never fell gets it too (one
	 * that W's step drains slowly, a few ms an estimate where the path
	 * frees little more than the step, fell within the lag and shows its
	 * next fall only a reading later: taken at once, the quarter came
	 * with the queue half gone, in the matrix's fixed-ABW cells)
	 */
	if (++c->risen < COMPETE_RISEN) {
		c->drain_age++;
		return COMPETE_DRAIN;
	}
	/* never fell: R may read above W's share; once deeper, then others' */
	if (!c->fell)
		return drain_deeper(c, r, true) ? COMPETE_DRAIN : drain_fail(c);
	/*
	 * Fell, then no more: refilled, or standing. Others' refill what W
	 * frees, but a path that narrows while W drains (inelastic traffic
	 * that steps up, as the DBHPF staircase does every few seconds) leaves
	 * W's step above what it now frees, and W's own queue stands or grows
	 * as well: in the matrix's fixed-ABW cells that was taken for others'
	 * in most runs. A step deeper tells them apart; others' only at the
	 * deepest. Not on a recheck while competing: the others were there a
	 * moment ago, and their refill at the first step says they still are.
	 */
	if (!c->on && drain_deeper(c, r, false))
		return COMPETE_DRAIN;
	return drain_fail(c);
}

enum compete_step compete_update(struct compete *c, const struct compete_read *r)
{
	int64_t most, q = r->queue_ns > 0 ? r->queue_ns : 0;
	uint32_t i, low = 0;

	if (c->draining) {
		if (!c->lag)
			return drain_judge(c, q, r);
		/* the lag: readings of requests sent before W moved */
		c->lag--;
		c->last_q = q;
		return COMPETE_DRAIN;
	}
	c->cur = (c->cur + 1) % COMPETE_WINDOW;
	c->q[c->cur] = q;
	if (c->n < COMPETE_WINDOW)
		c->n++;
	if (c->on)
		c->age++;
	if (c->quiet)
		c->quiet--;
	if (c->n < COMPETE_WINDOW)
		return c->on ? COMPETE_RATE : COMPETE_LOSS;
	most = c->q[0];
	for (i = 1; i < COMPETE_WINDOW; i++)
		if (c->q[i] > most)
			most = c->q[i];
	/* the readings at which the queue was under a tenth of its most */
	for (i = 0; i < COMPETE_WINDOW; i++)
		if (c->q[i] * 10 < most)
			low++;
	/* (one reading low is a sawtooth's dip, or the paper's own cut) */
	if (!c->on && low <= 1 && most >= r->span_min_ns && !c->quiet)
		return drain_begin(c, q, most, r);
	if (c->on && c->age >= COMPETE_HOLD &&
	    (low >= COMPETE_WINDOW / 2 || most < r->span_min_ns)) {
		/* drained at half the readings: no sawtooth's dip, a queue gone */
		c->on = false;
		return COMPETE_LOSS;
	}
	/* competing a while: are the others still there? */
	if (c->on && c->age >= COMPETE_RECHECK)
		return drain_begin(c, q, most, r);
	return c->on ? COMPETE_RATE : COMPETE_LOSS;
}

/* min(R, W) when the drain began: what its steps are taken from */
static uint64_t drain_base(const struct compete *c)
{
	return c->r_saved < c->w_saved ? c->r_saved : c->w_saved;
}

/*
 * W from before the drain, given back: no higher than the drain's most R
 * and a fiftieth (a drain misjudged, or a path that narrowed meanwhile,
 * must not put back a W far above it)
 */
static uint64_t drain_restore(const struct compete *c)
{
	uint64_t cap = c->r_most > c->r_saved ? c->r_most : c->r_saved;

	cap = cap + cap / 50 < cap ? UINT64_MAX : cap + cap / 50;
	return c->w_saved < cap ? c->w_saved : cap;
}

uint64_t compete_floor(const uint64_t *level, unsigned int n, uint64_t limit)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 1; level && i <= n; i++) {
		if (level[i] > limit - sum)
			break;
		sum += level[i];
	}
	return sum;
}

/*
 * as many whole priorities as fit in an eighth over @carried: R and bw
 * never exceed a W that sits at a sum of whole priorities, and without
 * the eighth the floor would drop one at each loss; never above @w
 */
static uint64_t priorities_within(uint64_t carried, uint64_t w, const uint64_t *level,
				  unsigned int n)
{
	uint64_t top = compete_floor(level, n, load_eighth_over(carried));

	return top < w ? top : w;
}

uint64_t compete_priorities(const struct load *l, uint64_t w, uint64_t recv,
			    const uint64_t *level, unsigned int n)
{
	uint64_t bw = load_bw(l);

	/* (a path that narrowed is not held to what it carried before) */
	return priorities_within(bw < recv ? bw : recv, w, level, n);
}

uint64_t compete_delay_floor(const struct load *l, uint64_t w, const uint64_t *level,
			     unsigned int n)
{
	return priorities_within(load_bw(l), w, level, n);
}

void compete_drain(struct compete *c, enum compete_step step, struct aimd *a,
		   const struct aimd_params *p, uint64_t recv,
		   const uint64_t *level, unsigned int n)
{
	uint64_t w, f;

	switch (step) {
	case COMPETE_DRAIN:
		if (c->halve) {
			c->halve = false;
			if (!c->w_saved) {
				c->w_saved = a->w;
				c->r_saved = recv ? recv : a->w;
				c->r_most = 0;
			}
			/*
			 * three quarters of min(R, W), then a quarter of it,
			 * no lower than the highest priorities ask for, then
			 * (if that held it up) the quarter itself
			 */
			w = drain_base(c);
			f = c->depth > COMPETE_DRAIN_DEPTH ? 0 : compete_floor(level, n, w / 2);
			w = c->depth > 1 ? w / 4 : w - w / 4;
			c->floored = f > w;
			a->w = aimd_clamp(c->floored ? f : w, p);
		}
		if (recv > c->r_most)
			c->r_most = recv;
		break;
	case COMPETE_DRAIN_END:
		/*
		 * W's own queue: W was above what the bottleneck served; back
		 * to the R that began the drain, or, if it had to go to a
		 * quarter, to half of it (at three quarters it did not fall)
		 */
		if (c->w_saved) {
			w = drain_base(c);
			a->w = aimd_clamp(c->depth > 1 ? w / 2 : w, p);
		}
		a->d = p->d_ini;
		c->w_saved = 0;
		break;
	case COMPETE_DRAIN_FAIL:
		if (c->w_saved)
			a->w = aimd_clamp(drain_restore(c), p);
		a->d = p->d_ini;
		c->w_saved = 0;
		break;
	default:
		break;
	}
}

void compete_skip(struct compete *c, struct aimd *a, const struct aimd_params *p)
{
	if (!c->draining)
		return;
	/* (the lag is time: it passes) */
	if (c->lag) {
		c->lag--;
		return;
	}
	if (++c->skipped < COMPETE_DRAIN_MAX)
		return;
	/* no reading to end it: W back, nothing decided, the test over */
	if (c->w_saved)
		a->w = aimd_clamp(drain_restore(c), p);
	c->w_saved = 0;
	c->draining = false;
	c->n = 0;
	/* (the quiet as it was: the drain told nothing that changes it) */
	c->quiet = c->quiet_len;
}

void compete_abandon(struct compete *c, struct aimd *a, const struct aimd_params *p)
{
	if (c->draining && c->w_saved)
		a->w = aimd_clamp(drain_restore(c), p);
	compete_init(c);
}

void compete_forget(struct compete *c)
{
	c->n = 0;
}

enum compete_step compete_confirm(struct compete *c, const struct compete_read *r)
{
	int64_t q = r->queue_ns > 0 ? r->queue_ns : 0;

	drain_begin(c, q, q, r);
	/*
	 * the rule's drain was the first step: straight to the deeper one,
	 * and none past the priorities' floor (drain_deeper(); compete.h)
	 */
	c->depth = COMPETE_DRAIN_DEPTH;
	c->refilled = true;
	return COMPETE_DRAIN;
}

const char *compete_step_name(enum compete_step step)
{
	static const char *const names[] = {
		[COMPETE_DRAIN] = "drain",
		[COMPETE_DRAIN_END] = "drain-end",
		[COMPETE_DRAIN_FAIL] = "drain-fail",
	};

	return (unsigned int)step < sizeof(names) / sizeof(names[0]) && names[step] ?
	       names[step] : "?";
}

void compete_observe(struct compete *c, uint64_t lost, uint64_t sent, uint64_t rtt_ns)
{
	uint64_t f;

	if (sent) {
		f = (lost >= sent ? sent : lost) * PPM / sent;
		/* an EWMA, a quarter weight (the first sample as it is) */
		c->p_ppm = c->have ? c->p_ppm - c->p_ppm / 4 + f / 4 : f;
		c->have = true;
	}
	if (rtt_ns)
		c->srtt_ns = c->srtt_ns ? c->srtt_ns - c->srtt_ns / 8 + rtt_ns / 8 : rtt_ns;
}

uint64_t compete_rate(const struct compete *c)
{
	unsigned __int128 x;
	uint64_t root;

	/*
	 * N * 1.22 * MSS * 8 / (RTT * sqrt(p)) with RTT in ns and p in
	 * millionths: sqrt(p) = sqrt(p_ppm) / 1000, 1.22 = 122 / 100; p in
	 * millionths' hundredths below 1 ppm would read as none: at most
	 */
	root = aimd_isqrt(c->p_ppm * 100);	/* sqrt(p) * 10000 */
	if (!c->have || !c->srtt_ns || !root)
		return UINT64_MAX;
	x = (unsigned __int128)COMPETE_N * 122 * COMPETE_MSS * 8 * 1000000000ULL * 100 /
	    ((unsigned __int128)c->srtt_ns * root);
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

const char *compete_branch_name(enum compete_branch b)
{
	static const char *const names[] = {
		[COMPETE_UP] = "compete-up",
		[COMPETE_DOWN] = "compete-down",
		[COMPETE_HOLD_W] = "compete-hold",
		[COMPETE_FLOOR] = "compete-floor",
		[COMPETE_PRIORITIES] = "compete-priorities",
	};

	return (unsigned int)b < sizeof(names) / sizeof(names[0]) ? names[b] : "?";
}

enum compete_branch compete_aimd(const struct compete *c, const struct load *l,
				 struct aimd *a, const struct aimd_params *p,
				 const struct load_sample *x, const uint64_t *level,
				 unsigned int n)
{
	uint64_t w0 = a->w, x_rate = compete_rate(c), w, most, top;
	enum compete_branch b;

	a->d = p->d_ini;	/* the paper's increase starts over when it resumes */
	if (x_rate >= w0) {
		if (!l->bound)
			return COMPETE_HOLD_W;
		/* up toward X: at most by half, and to twice R (TFRC) */
		uint64_t twice = x->recv > UINT64_MAX / 2 ? UINT64_MAX : x->recv * 2;

		most = w0 + w0 / 2 < w0 ? UINT64_MAX : w0 + w0 / 2;
		if (twice < most)
			most = twice > w0 ? twice : w0;
		w = x_rate < most ? x_rate : most;
		b = COMPETE_UP;
	} else {
		/* down to X, at most by half */
		w = x_rate > w0 / 2 ? x_rate : w0 / 2;
		b = COMPETE_DOWN;
		if (!load_cut_bound(l)) {
			uint64_t floor = load_floor(l, w0, x->recv);

			if (w < floor) {
				w = floor;
				b = COMPETE_FLOOR;
			}
		}
		top = compete_priorities(l, w0, x->recv, level, n);
		if (w < top) {
			w = top;
			b = COMPETE_PRIORITIES;
		}
	}
	a->w = aimd_clamp(w, p);
	return b;
}
