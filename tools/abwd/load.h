/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether an estimate measured the path or only the gateway's demand, and
 * what W may be cut to when it measured the demand. Integers, no I/O; see
 * Documentation/er2bc-estimator.rst, "Cap-bound and app-limited intervals".
 *
 * R(t-1), the rate the responder received, is the path's available
 * bandwidth only if the gateway offered at least W: then W is what held
 * the aggregate back, and R is what the path let through of it. When the
 * flows ask for less than W (they back off after a loss at the
 * bottleneck, their applications send less), R measures them, not the
 * path. The paper cuts W to R - beta (eq. 8) or (W + R) / 2 (eq. 9), and
 * the delay rule divides min(R, W) by its MD factor: from an app-limited
 * R each cut lands below what the flows asked for, they are held back
 * below it, the next R is lower still, and W ratchets down with every
 * loss the path's other traffic causes (the robustness matrix's elastic
 * cell; issue 39).
 *
 * An interval is cap-bound when the sending qdisc held a backlog back at
 * W for at least half of it (its snapshot's held time), or, from a module
 * that does not count that, when the qdisc sent at least 15/16 of the
 * lower of the last two W toward the peer (the W of the estimate before
 * still paced the interval's first round trip). Otherwise it is
 * app-limited:
 *  - W does not grow by D (RFC 7661's rule for a congestion window the
 *    sender does not use; cake-autorate raises its rate only under high
 *    load), and D starts over (from D_ini when the flows press on W
 *    again, not from where it stood);
 *  - W is no lower than its headroom, 9/8 of the most min(R, S) of the
 *    last LOAD_RECENT_N estimates, app-limited or not (load_recent()),
 *    and goes up to it if it was below ("headroom"), loss or not; not
 *    after two heavy losses in a row (more than an eighth of the packets:
 *    paced traffic above a narrower path), nor after a heavy loss in a
 *    cap-bound estimate (R is then the path's). The flows got through,
 *    and this interval's R is its losses' and its own noise, not the
 *    path. With 43 datagrams an interval and 3 % random loss, R + R/8 of
 *    one interval that lost 4 or 5 was below what the flows asked, and
 *    so was a first cut from one such R; W did not come back while
 *    app-limited, the flows pressed on it, and two cap-bound estimates
 *    in a row gave W to the paper's rule, which ratchets on random loss
 *    (er2bc_estimator's ratchet case under make check). Its costs: an
 *    app-limited aggregate whose path narrows is followed in up to
 *    LOAD_RECENT_N estimates, not one; paced traffic above the path by
 *    up to about a tenth is not held back (its losses look random);
 *  - a cut lands no lower than load_floor(): R plus an eighth (above what
 *    the flows sent at a few per cent of random loss, and above the
 *    cap-bound threshold, so that W stays out of their way), and no lower
 *    than LOAD_CUT of min(W, bw) either, so that one estimate cuts by 30 %
 *    at most (CUBIC's decrease). The rule's cut never raises W (the
 *    headroom may). (R, not what the qdisc sent: traffic that does not
 *    back off, paced UDP above the path, loses the difference at the
 *    bottleneck; a floor above what it sends would hold W there for good,
 *    never binding, and the priorities with it.)
 * bw is the most R of the last LOAD_BW_N cap-bound estimates (BBR's
 * max filter over ten rounds); an app-limited R enters it only if it is
 * at least as high (tcp_bbr.c: app-limited samples would drag the
 * estimate down).
 * Cap-bound estimates follow the rule as written: R is then the path's.
 * Except the first after an app-limited one: its cut stops at the floor
 * too, and at the headroom unless its loss was heavy. A burst the flows
 * sent at once, held back by a W only an eighth above them, can take
 * half an interval to drain and read cap-bound;
 * cut to R - beta, below what the flows ask, W would bind from then on
 * and the ratchet begin again.
 */
#ifndef _ABWD_LOAD_H
#define _ABWD_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "aimd.h"

/* cap-bound estimates bw remembers (BBR: ten rounds) */
#define LOAD_BW_N	10
/* estimates the headroom remembers */
#define LOAD_RECENT_N	4
/* an app-limited cut, at most: W times this, millionths */
#define LOAD_CUT	700000

struct load {
	uint64_t w_prev;		/* W before the last update: it paced the
					 * interval's first round trip */
	uint64_t bw[LOAD_BW_N];		/* R of the last estimates, 0 if app-limited */
	uint64_t recent[LOAD_RECENT_N];	/* min(R, S) of the last estimates, all of them */
	uint32_t recent_cur;		/* the newest's index */
	uint32_t cur;			/* the newest's index */
	bool bound;			/* the last estimate was cap-bound */
	bool was_bound;			/* and the one before */
	bool heavy;			/* the last estimate lost more than 1/8 */
	bool was_heavy;			/* and the one before's */
};

/* what one estimate tells of the gateway's own load */
struct load_sample {
	uint64_t recv;		/* R(t-1), bit/s */
	uint64_t sent;		/* S: bit/s the qdisc sent toward the peer */
	uint64_t dt_ns;		/* the qdisc's time between the two snapshots */
	uint64_t held_ns;	/* of which W held a backlog back */
	bool has_held;		/* the module counts held_ns */
	uint64_t sent_pkts;	/* packets the qdisc sent toward the peer */
	uint64_t lost_pkts;	/* of which lost (L) */
	bool foreign;		/* more received than sent: R is not the path's */
};

void load_init(struct load *l);

/*
 * Whether the estimate @x was cap-bound at W @w (the W in force over it),
 * and R into bw by BBR's rule. The verdict is kept in @l->bound.
 */
bool load_update(struct load *l, uint64_t w, const struct load_sample *x);

/*
 * No load to go by (the qdisc's counts went backwards): the rule as the
 * paper has it, as if this and the estimate before were cap-bound
 */
void load_unknown(struct load *l);

/*
 * loss-queue: the link's own loss rate, learnt from the estimates read
 * with no queue at the bottleneck (an EWMA, an eighth; the first as it
 * is), each estimate's share capped at an eighth
 */
struct linkloss {
	uint64_t p_ppm;		/* millionths */
	bool have;
};

void linkloss_init(struct linkloss *k);

/*
 * loss-queue: whether @lost of @sent packets, above theta-l @theta_l, with
 * the queue read @queue_ns at the bottleneck, are the link's (random) and
 * not congestion (the rule then takes L as 0): not heavy (an eighth of the
 * packets or less; a policer drops without a queue), with no queue (less
 * than @span_min_ns: TCP Veno reads its backlog so), and no more than the
 * link's own rate p loses of them by itself: p n + p n / 2 + 3 sqrt(p n) +
 * 1 packets at most (three binomial deviations and one packet of room,
 * and half again of p). A drop-tail buffer shallower than the least queue
 * that counts drops without one: those losses grow with W where the
 * link's do not, and past the bound they are congestion. Feeds @k.
 */
bool linkloss_random(struct linkloss *k, uint64_t lost, uint64_t sent, uint64_t theta_l,
		     int64_t queue_ns, int64_t span_min_ns);

/* W was decayed (the peer quiet): what the path carried before is stale */
void load_forget(struct load *l);

/* @r and an eighth more (9/8 r), saturating */
uint64_t load_eighth_over(uint64_t r);

/* bw: the most R of the last LOAD_BW_N cap-bound estimates; 0: none */
uint64_t load_bw(const struct load *l);

/* the most min(R, S) of the last LOAD_RECENT_N estimates, app-limited or not; 0: none */
uint64_t load_recent(const struct load *l);

/*
 * The least W a cut may leave in an app-limited estimate (or the first
 * cap-bound one after it: load_cut_bound()), R being @recv:
 * R + R/8, or LOAD_CUT of min(@w, bw) if higher, and never above @w
 */
uint64_t load_floor(const struct load *l, uint64_t w, uint64_t recv);

/* which way the loss rule went, with the load in view */
enum load_branch {
	LOAD_DECREASE = AIMD_DECREASE,
	LOAD_HALFWAY = AIMD_HALFWAY,
	LOAD_INCREASE = AIMD_INCREASE,
	LOAD_HOLD,		/* app-limited, no loss: W held */
	LOAD_FLOOR,		/* app-limited, a cut stopped at load_floor() */
	LOAD_HEADROOM,		/* W at its headroom: up to it, or a cut stopped there */
};

const char *load_branch_name(enum load_branch b);

/* whether a cut goes as the rule has it: this estimate and the one before cap-bound */
static inline bool load_cut_bound(const struct load *l)
{
	return l->bound && l->was_bound;
}

/*
 * The paper's rule (aimd_update()) for an estimate with @lost packets
 * lost and the load @x: as written when cap-bound (and the estimate
 * before too); app-limited, W holds without a loss (D back to D_ini), a
 * cut stops at load_floor() and never raises W, and either way W is no
 * lower than its headroom (9/8 of load_recent(); none after two heavy
 * losses in a row, or a heavy loss in a cap-bound estimate). @l must have
 * taken @x (load_update()) already.
 */
enum load_branch load_aimd(const struct load *l, struct aimd *a, const struct aimd_params *p,
			   uint64_t lost, const struct load_sample *x);

#endif /* _ABWD_LOAD_H */
