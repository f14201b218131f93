/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The delay rule for W: CVIHIS's backward-loading mode (seed 003, section
 * 3.2) and its real-time mode (section 3.3), applied once per estimate to
 * the gateway pair's aggregate instead of once per packet to one flow.
 * Integers only, no I/O; see Documentation/er2bc-estimator.rst, "Modes".
 *
 * Each estimate brings the one-way delay of its request (the responder's
 * receipt time minus the sender's dequeue time: the two clocks' offset
 * cancels in every difference below), the RTT of the request, and L(t).
 * The delay the rule reads is the least of the last delay-filter samples
 * (LEDBAT's current-delay filter, RFC 6817 section 3.4.2): one late
 * sample, a scheduling hiccup at either end, is not a queue; a queue
 * that stays is seen one estimate later. minDelay is the least delay of
 * the last ten buckets of 60 estimates each (as LEDBAT keeps its base
 * delay), so that it follows the clocks' drift and a longer path; a
 * delay counts there only if the sample before it was as low (ours: one
 * request that overtook the path's delay, reordered, would read every
 * delay after it as a queue for ten buckets), and the delay read is
 * never below it;
 * maxDelay is the delay at which the bottleneck drops. Between them
 * seven areas; the target area sits low, so that the queue stays short:
 *
 *   fraction of maxDelay - minDelay   command (gradient: the delay's change
 *                                     since the last estimate)
 *   >= 0.90                           --- (1); hold if the queue empties
 *   0.60 - 0.90                       --- (1); + (7) if the queue empties
 *   0.35 - 0.60                       --  (2); + (7) if the queue empties
 *   0.20 - 0.35 (target)              hold
 *   0.10 - 0.20                       ++  (3); - (6) if the queue fills
 *   0.03 - 0.10                       +++ (4); - (6) if the queue fills
 *   < 0.03                            +++ (4); - (6) if the queue fills
 *                                     (which it can only after a push)
 *   (hybrid, competing: every cut is a hold, and below the target a
 *   filling queue takes the area's step; see below)
 *
 * The seed gives the commands, their factors (Table 1: 1.0, 0.7, 0.5, 0.2,
 * MD 1.10, smoothing 0.5, push 1.05) and the rule that the gradient wins
 * over the area; its figure with the areas' positions is not in the text,
 * so the positions above are ours. So is the hold in the top area, where
 * the seed uses no gradient: a deep buffer (ten times the span) drains
 * for seconds once W is below what it drains at, and cutting on through
 * the drain took W to w-min and starved every class (the robustness
 * matrix's deep cell). A step of factor 1.0 is delay-step per
 * estimate, and each step is smoothed: half its own, half the last one
 * (so a hold after an increase still adds half of it). In the lowest
 * area, where no queue is seen, +++ grows W as the paper's AIMD does
 * (W + D, D times alpha up to D_max), so that W finds a fast link as
 * quickly as in the loss mode.
 *
 * A loss (L > theta_L) is congestion if it comes with a delay that rose:
 * a queue (above the base delay, whatever hybrid pushed) of at least
 * delay-span-min, and the delay above the target area or growing (any
 * such queue while maxDelay is not known yet). W, or R if less, is then
 * divided by 1.10 (the MD step, at most once per estimate; in an
 * app-limited estimate, load.h, W itself, and no lower than the load's
 * floor: R measured the flows, not the path; nor does W grow there),
 * and maxDelay learns the delay: at once if higher, by an eighth of the
 * difference if lower, so that one loss taken for congestion by mistake
 * does not squeeze the areas. So is a heavy loss, more than a tenth of
 * the packets sent, queue or not (a policer, a failing link). Any other
 * loss is random: it changes nothing, and W moves as the delay says.
 * The areas span maxDelay - minDelay, but at most delay-span, the
 * queueing delay the operator allows: a deep buffer does not drag the
 * target area up with it. Until a loss has shown where the bottleneck
 * drops, they span delay-span; so they do again once no congestion loss
 * has shown maxDelay for DELAY_MAX_AGE estimates, when maxDelay is
 * raised to delay-span above the base (ours: a maxDelay learnt from a
 * loss with a shallow queue squeezes the areas under the path's jitter,
 * the jitter is read as a queue and W is cut to w-min, where no loss
 * comes to correct it). maxDelay stays known: the next loss is judged
 * as above, and a congestion loss below it takes it down an eighth of
 * the way. (So a bottleneck buffer shallower than the areas above the
 * target, full and dropping while the delay stands still, reads as
 * random loss until the loss is heavy.)
 *
 * Hybrid (real-time) mode: others (loss-based TCP) hold the queue when it
 * is read above the target area, counted from the base, at three
 * estimates in a row that did not see it drain while W capped what
 * crossed (W at most R and a fiftieth): a queue of W's own drains as W
 * steps down, or comes with W above what crosses. Competing ends when the
 * queue falls below the target area, or drains three estimates in a row:
 * W's own queue drains for good once an MD takes W below what the
 * bottleneck serves, where loss-based TCP's drops once a sawtooth and
 * fills again. While competing, minDelay is pushed up multiplicatively,
 * by push - 1 of itself per round trip (push raised to the round trips
 * the estimate spans, at the RTT its request took; whole ones, at least
 * one: the seed does not say how often it pushes, this is ours), minDelay
 * taken from half the least RTT (the propagation delay, free of the
 * clocks' offset), up to the delay read: the areas rise under the others'
 * queue until the rule steps W up, and a loss, its queue counted from the
 * base, is congestion (MD). Competing, the areas above the target lie
 * under the others' queue: they hold W instead of cutting it, and a queue
 * filling below the target takes the area's step, not the gradient's
 * yield. So, competing, the rule is loss-based AIMD, as the seed says of
 * its real-time mode. A delay below the pushed minDelay brings it back
 * down.
 *
 * The drain (delay-drain, ours; BBR's drain and ProbeRTT, Copa's periodic
 * emptying): the areas step W by delay-step an estimate, and in the top
 * area hold while the queue falls. A deep buffer that W overfilled (an
 * increase that overshot, a path that slowed) then drains for seconds,
 * and every class, priority 1 first, waits behind it. So a queue read two
 * delay-spans or more above the base (100 ms at the defaults; beyond the
 * areas), while not competing, starts a drain: W is set under bw, the
 * rate the bottleneck delivers, by the queue's length over the interval T
 * to the next estimate,
 *   W = bw (1 - queue / T), at least bw / 4,
 * so that the bottleneck, still serving bw, empties the queue by then (at
 * most three quarters of an interval's worth each estimate; BBR drains at
 * about bw / 3, and its ProbeRTT goes down to four packets). bw is the
 * most R the drain saw, never this estimate's R alone: beside a queue
 * that is not W's, R follows W down, and a cut from it would compound.
 * The drain ends when the queue reads below 0.35 of the areas' span,
 * where they take over again: W then starts from the most R after the
 * drain's first estimate (whose interval may straddle the path's
 * slowing), no higher than W before the drain.
 * The queue read lags the drain by the queue itself: the requests
 * already queued when it began come back with the queue they met, so the
 * drain's W shows only after the queue's length over T, in estimates (the
 * lag, at most DELAY_DRAIN_LAG_MAX; a queue read still rising meanwhile,
 * the requests sent before the drain meeting the buffer as it filled,
 * lengthens it). A queue that, DELAY_DRAIN_TRY estimates beyond the lag,
 * has not come down by a quarter of the most read, or that still stands
 * two delay-spans high after DELAY_DRAIN_MAX estimates beyond it (a
 * window-based flow's queue, which a lower W drains in part), is not W's:
 * W returns to where it was, or to bw and a fiftieth if lower (a drain
 * misjudged must not put back a W many times the path's), no drain
 * starts for DELAY_DRAIN_OFF estimates, and in hybrid mode the rule
 * competes at once (the others hold the queue). A drain that has run
 * DELAY_DRAIN_MAX estimates beyond the lag below that ends as above.
 * W does not grow while draining; a loss meanwhile changes nothing more
 * (nor teaches maxDelay), and an estimate that received nothing sets W
 * from bw as the others do. The drain applies to app-limited estimates
 * (load.h) too: with a queue standing at the bottleneck, R is what the
 * bottleneck serves, not what the flows asked for.
 */
#ifndef _ABWD_DELAY_H
#define _ABWD_DELAY_H

#include <stdbool.h>
#include <stdint.h>

#include "aimd.h"

enum delay_mode {
	DELAY_MODE_LOSS,	/* the paper's AIMD alone (aimd.h) */
	DELAY_MODE_DELAY,	/* backward loading */
	DELAY_MODE_HYBRID,	/* real time: minDelay pushed while competing */
	DELAY_NMODES,
};

/* "loss", "delay" or "hybrid": the mode key's words */
const char *delay_mode_name(enum delay_mode m);

/* the commands of seed 003's figure 1 and table 1 */
enum delay_cmd {
	DELAY_HOLD,		/* the target area */
	DELAY_DEC_BIG,		/* --- (1) */
	DELAY_DEC,		/* -- (2) */
	DELAY_INC,		/* ++ (3) */
	DELAY_INC_BIG,		/* +++ (4) */
	DELAY_MD,		/* MD (5): congestion loss */
	DELAY_DEC_SMALL,	/* - (6): the queue fills below the target */
	DELAY_INC_SMALL,	/* + (7): the queue empties above the target */
	DELAY_DRAIN,		/* ours: W under what the bottleneck serves */
	DELAY_DRAIN_DONE,	/* the queue drained: W from what it served */
	DELAY_DRAIN_FAIL,	/* the queue did not fall: W back where it was */
	DELAY_NCMDS,
};

const char *delay_cmd_name(enum delay_cmd c);

struct delay_params {
	enum delay_mode mode;
	uint64_t step;		/* bit/s: W's change for a factor of 1.0 */
	uint64_t span_ns;	/* maxDelay - minDelay at most, and before any loss */
	uint64_t span_min_ns;	/* the least queue that makes a loss congestion */
	uint64_t md;		/* millionths: W divided by this on congestion */
	uint64_t push;		/* millionths: hybrid's pushing factor */
	uint32_t filter;	/* the delay read: the least of this many samples */
	bool drain;		/* a standing queue at the top: drain it (below) */
};

#define DELAY_FILTER_MAX	16

#define DELAY_DEFAULTS {			\
	.mode = DELAY_MODE_LOSS,		\
	.step = 200000,				\
	.span_ns = 50000000,			\
	.span_min_ns = 2000000,			\
	.md = 1100000,				\
	.push = 1050000,			\
	.filter = 2,				\
	.drain = false,				\
}

/* one estimate's inputs */
struct delay_sample {
	int64_t owd_ns;		/* T_r minus the request's dequeue time */
	uint64_t rtt_ns;	/* the request out, its response back; 0: unknown */
	uint64_t lost;		/* L(t) */
	uint64_t sent;		/* packets sent in the interval */
	uint64_t recv;		/* R(t-1), bit/s */
	uint64_t span_ns;	/* the estimate's span (delta T_r); 0: one round trip */
	uint64_t next_ns;	/* until the next estimate (the interval); 0: span_ns */
	bool limited;		/* app-limited (load.h): W does not grow, an MD
				 * is taken from W and stops at floor */
	uint64_t floor;		/* bit/s: load_floor(), if limited */
};

/* the base delay's history: buckets of estimates, each its least delay */
#define DELAY_BASE_N	10
#define DELAY_BASE_LEN	60
/* maxDelay no congestion loss has shown for this many estimates: delay-span above the base */
#define DELAY_MAX_AGE	60

struct delay_state {
	bool have;		/* a sample seen: min and prev hold */
	bool have_max;		/* a congestion loss set max */
	uint32_t max_age;	/* estimates since a congestion loss showed max, or the rise */
	int64_t base[DELAY_BASE_N];
	uint32_t base_n;	/* buckets in use */
	uint32_t base_cur;	/* the bucket filling */
	uint32_t base_count;	/* estimates in it */
	int64_t push_ns;	/* hybrid: minDelay above the base */
	int64_t min_ns;		/* minDelay: the least base, plus push_ns */
	int64_t max_ns;		/* maxDelay, if have_max */
	int64_t last[DELAY_FILTER_MAX];	/* the latest samples, raw */
	uint32_t last_n;	/* samples in last[] */
	uint32_t last_cur;	/* the newest's index */
	int64_t cur_ns;		/* the delay read: the least of last[] */
	int64_t queue_ns;	/* cur_ns - min_ns */
	int64_t prev_ns;	/* the last estimate's cur_ns */
	int64_t last_step;	/* bit/s: the last area step, before smoothing */
	uint64_t rtt_min_ns;	/* the least RTT; 0: none */
	uint32_t above;		/* hybrid: estimates in a row above the target, not draining */
	uint32_t drain;		/* hybrid, competing: estimates in a row draining */
	uint32_t fraction;	/* the last sample's place, millionths of the span */
	bool queued;		/* the delay read at 0.2 of the span above the base, or more */
	bool competing;		/* hybrid: minDelay is being pushed */
	/* the drain (below) */
	uint32_t draining;	/* estimates into the drain; 0: not draining */
	uint32_t drain_off;	/* estimates before another drain may start */
	uint64_t drain_w;	/* W when it began */
	uint64_t drain_r0;	/* R when it began */
	uint64_t drain_bw;	/* the most R since; 0: none yet */
	int64_t drain_q;	/* the most queue read up to the fall test */
	uint32_t drain_lag;	/* estimates before its W shows in the queue read */
	uint32_t drains;	/* drains begun */
	uint32_t drains_failed;	/* of which the queue did not fall: not W's */
};

void delay_init(struct delay_state *s);

/*
 * @s reads from now on a source whose own delays @from has read all along
 * (a sender's probes instead of its requests, or back): @from's base
 * delay history, latest samples and last read become @s's, and maxDelay,
 * an absolute delay, moves by the difference between the two bases; the
 * rest (hybrid's push, a drain under way, the least RTT, the counts) stays
 * @s's. A first delay of the new source taken for a new base
 * (delay_init()) would take a queue standing at the switch for the path.
 * From a @from with no delay yet, @s starts over.
 */
void delay_rebase(struct delay_state *s, const struct delay_state *from);

/* maxDelay - minDelay as the areas take it, ns */
int64_t delay_span(const struct delay_state *s, const struct delay_params *p);

/*
 * One estimate: W (in @a, kept within @ap's w-min and w-max) moved by the
 * command the sample @x calls for, which is returned. @ap's D, theta_L and
 * alpha serve the lowest area's increase and the loss test.
 */
/*
 * the bottleneck's rate as the last drain knew it, the most R it saw, its
 * first included (what a drain that follows one the queue outlasted is
 * taken from: the R read during it followed W down); 0: none
 */
uint64_t delay_drain_bw(const struct delay_state *s);

/*
 * another's drain found the queue W's own: the rule's own may begin again
 * at once, not DELAY_DRAIN_OFF estimates after its failed one
 */
void delay_drain_allow(struct delay_state *s);

enum delay_cmd delay_update(struct delay_state *s, const struct delay_params *p,
			    struct aimd *a, const struct aimd_params *ap,
			    const struct delay_sample *x);

/*
 * One estimate's delay read, W left alone: the loss mode keeps the queue
 * measured so (delay_queued())
 */
void delay_watch(struct delay_state *s, const struct delay_params *p,
		 const struct delay_sample *x);

/*
 * the last delay read at or above the target area, counted from the base
 * delay (whatever hybrid pushed): scavengers yield
 */
bool delay_queued(const struct delay_state *s);

/*
 * the last queue read above what the delay rule keeps of its own (the
 * areas up to AREA_ABOVE of the span, where it holds or steps up), ns,
 * 0 at or below it: what compete's test reads in the delay mode, so that
 * the rule's own target queue does not pass for one that stands
 */
int64_t delay_queue_over(const struct delay_state *s, const struct delay_params *p);

/*
 * another rule holds W (compete.h): when the delay rule takes it again,
 * its smoothed step starts over, as after its own drain
 */
void delay_resume(struct delay_state *s);

#endif /* _ABWD_DELAY_H */
