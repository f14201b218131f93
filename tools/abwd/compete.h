/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Elastic cross traffic, and the loss rule's answer to it. Integers, no
 * I/O; see Documentation/er2bc-estimator.rst, "Beside elastic traffic".
 *
 * The paper's loss rule (aimd.h) grows W by D, 50 kbit/s at first and
 * reset at every loss, once an interval, and cuts it at every interval
 * with two losses. Beside loss-based TCP that shares the bottleneck
 * (CUBIC, Reno), which fills the buffer and drops at every sawtooth, a
 * Reno flow at a 50 ms round trip grows by 1.2 Mbit/s in a quarter of a
 * second: the aggregate of the gateway's flows, held to W, loses its
 * share to two such flows (the robustness matrix's elastic cell, issue
 * 39), and its priorities with it.
 *
 * Detection (Copa's test, genericCC rtt-window.cc is_copa(), per estimate
 * here): after each cut the paper's rule sends below what the path
 * delivers, so a queue of W's own drains. Over the last COMPETE_WINDOW
 * estimates, if the queue read stayed at a tenth of the most or more at
 * all readings but one (a sawtooth's dip, or the paper's own cut), and
 * the most was at least the queue that makes a loss congestion
 * (delay-span-min), others hold the buffer and do not yield: elastic. It
 * ends once half of a window's readings are below a tenth of its most (a
 * queue that empties again and again, not one sawtooth's dip when the
 * others back off together), or the most is below delay-span-min, and
 * not sooner than COMPETE_HOLD estimates after it began (Nimbus waits
 * 5 s before it switches back).
 *
 * Competing, W follows the rate that COMPETE_N TCP flows would get on the
 * same path (TFRC's reasoning, RFC 5348; the simple model of Mathis et
 * al.): X = N * 1.22 * MSS / (RTT * sqrt(p)), with p the share of the
 * aggregate's packets lost (an EWMA over estimates, a quarter weight), and
 * RTT the requests' (an EWMA, an eighth, queue included, as TCP's own
 * rate sees it). So W takes as much as N loss-based flows would, no
 * more: more, and its own losses bring X down. Per estimate:
 *  - X above W, cap-bound: W up toward X, at most by half and to twice
 *    R (TFRC's limit on the sending rate);
 *  - X below W: W down to X, at most by half; app-limited, no lower than
 *    the floor (load.h);
 *  - X above W, app-limited: W holds (load.h).
 * N is 4: about the flows an office's priority traffic opens at once, the
 * share they would take unshaped (the matrix's elastic cell: five flows of
 * 400 kbit/s and a bulk backup beside two CUBIC flows). The scheduler then
 * serves priorities 1-3 first out of a W that holds that share, where the
 * paper's W gave it up.
 *
 * The drain. Copa's test is sound because Copa empties its own queue
 * every few round trips; the paper's rule does not (it cuts only beta
 * below R, and grows W by D into the buffer again), so on a fixed path a
 * queue of W's own can pass the test. So the test only begins a drain
 * (Copa's lesson, and BBR's ProbeRTT): W at three quarters of min(R, W),
 * and the queue watched once the lag has passed (the requests sent before
 * the drain, its RTT's worth, come back with the queue they met). A queue
 * of W's own falls at every estimate, by what W gave up over the
 * bottleneck's rate, whatever share inelastic traffic takes of the link,
 * and once empty stays so while W stays where it is; loss-based flows
 * beside it fill the buffer again whatever W does. So, past the lag, at
 * each estimate:
 *  - the queue under a tenth of the test's most, or under the least that
 *    counts: emptied; W holds COMPETE_VERIFY_NS longer, and a queue back
 *    at half the most meanwhile, or up by a tenth of it from the least
 *    read (W's own cannot grow while W stays below its share, unless the
 *    path narrowed), at COMPETE_RISEN readings in a row, is others' at
 *    the deepest step (drain-fail), else a step deeper; one that stays
 *    low is W's own (drain-end);
 *  - fallen by the least that counts since the last reading: still
 *    draining, W holds (at COMPETE_DRAIN_MAX estimates, W's own);
 *  - not fallen, having fallen before, COMPETE_RISEN readings in a row:
 *    refilled, or standing: a step deeper, as below, and others' only
 *    there (drain-fail). A path that narrows during the drain (inelastic
 *    traffic stepping up, as DBHPF's staircase does) leaves a step no
 *    lower than what it now frees, and W's own queue stands or grows
 *    too; the deeper step empties it, the others refill at it as well.
 *    That step is never past the priorities' floor (only a queue that
 *    never fell goes to the plain quarter, and not on a recheck while
 *    competing), and a recheck while competing judges a refill at the
 *    first step others' at once;
 *  - never fallen, COMPETE_RISEN readings in a row (a step that frees
 *    little more than the path gives drains a few ms an estimate, and a
 *    fall within the lag shows its next only a reading later): W at a
 *    quarter of min(R, W) (R can read above W's
 *    share of the free rate where inelastic traffic takes part of a full
 *    buffer's drops), and the lag again; never fallen there,
 *    COMPETE_RISEN readings in a row: others'. That quarter is no lower
 *    than what the qdisc's highest priorities ask for (their classes'
 *    rates, margins included), as many whole priorities as fit in half of
 *    min(R, W) (compete_floor()): a drain beside CUBIC comes back every
 *    COMPETE_RECHECK estimates and lasts several, and at a quarter it
 *    left priorities 2 and 3 short at every one (the matrix's elastic
 *    cell, issue 39). Half of min(R, W) still drains a queue of W's own
 *    at half the rate the path gave it.
 * (One reading that says others' is not enough: a path's jitter, or a
 * host that held the packets a while, lasts one; the others' refill
 * lasts. The reading let pass is not the base of the next one's fall,
 * nor the drain's last.)
 * W's own: W goes back to the R of the estimate that began it if that is
 * lower than the W before (half of it if it had to go to a quarter), and
 * the test starts over. Others': W goes back to where it was, no higher
 * than the most R of the drain and a fiftieth (a drain misjudged, or a
 * path that narrowed, must not put back a W far above it), and the rule
 * competes. Competing, the same drain every COMPETE_RECHECK estimates
 * asks whether the others are still there: a queue held by the competing
 * rate itself passes Copa's test for ever, and only a drain tells it from
 * theirs.
 *
 * A drain costs: W below what the path gives for its lag, its fall and
 * COMPETE_VERIFY_NS held, and on a fixed path the paper's rule grows W
 * into the buffer again, so its own queue passes the test once the window
 * has refilled: in the matrix's fixed-ABW cells 39 % of the estimates
 * were spent draining (evaluation.rst, set 5). So each drain that finds
 * W's own queue doubles the quiet before the test may begin another
 * (COMPETE_WINDOW estimates after the first, as the window's refill
 * already gave, then twice, up to COMPETE_QUIET_MAX_NS' worth of
 * estimates: compete_quiet_max()): a path that keeps saying "mine" is
 * asked less often. A drain that finds others' queue, or the others gone,
 * starts the quiet over. The price: elastic traffic that arrives during a
 * long quiet is met up to 20 s and a drain late (a cap in time, as BBR's
 * ProbeRTT comes every 10 s whatever the interval; estimates that cannot
 * feed the test do not count, so 20 s is the least). At 1 s (a drain of
 * about six estimates) that cuts the share of a fixed path's estimates
 * spent draining from about a third to about a quarter.
 */
#ifndef _ABWD_COMPETE_H
#define _ABWD_COMPETE_H

#include <stdbool.h>
#include <stdint.h>

#include "aimd.h"
#include "load.h"

#define COMPETE_WINDOW	10	/* estimates the test reads */
#define COMPETE_HOLD	20	/* estimates competing, at least */
#define COMPETE_N	4	/* TCP flows the aggregate is worth */
#define COMPETE_MSS	1500	/* bytes */
#define COMPETE_RECHECK	30	/* competing, a drain every so many estimates */
#define COMPETE_DRAIN_MAX 40	/* estimates a drain lasts, at most */
#define COMPETE_DRAIN_DEPTH 2	/* steps of W down a drain takes, at most */
#define COMPETE_VERIFY_NS 2000000000ULL	/* emptied: W held so long, does it fill? */
#define COMPETE_RISEN	2	/* readings in a row that say others' refill */
/* the longest quiet between tests, after drains that found W's own queue */
#define COMPETE_QUIET_MAX_NS 20000000000ULL
#define COMPETE_QUIET_CAP (8 * COMPETE_WINDOW)	/* estimates, at most */

/* what the test asks of W at one estimate (compete_update()) */
enum compete_step {
	COMPETE_LOSS,		/* not competing: the loss rule */
	COMPETE_RATE,		/* competing: compete_aimd() */
	COMPETE_DRAIN,		/* a drain begins, or goes on: compete_drain() */
	COMPETE_DRAIN_END,	/* the queue drained: it was W's own */
	COMPETE_DRAIN_FAIL,	/* it outlasted the drain: others', competing */
};

struct compete {
	int64_t q[COMPETE_WINDOW];	/* the last queues read, ns */
	uint32_t n;			/* in q[] */
	uint32_t cur;			/* the newest's index */
	uint32_t age;			/* estimates since it began competing */
	bool on;			/* elastic cross traffic: competing */
	bool draining;			/* a drain is under way */
	bool halve;			/* W halves at this estimate (compete_drain()) */
	bool fell;			/* the queue fell, past the lag */
	uint32_t risen;			/* readings in a row that said others' */
	uint32_t verify;		/* emptied: estimates left to see it stay so */
	int64_t watch_min;		/* and the least queue read meanwhile, ns */
	uint32_t skipped;		/* estimates that could not feed it */
	uint32_t quiet;			/* estimates before the test may drain again */
	uint32_t quiet_len;		/* the quiet after the next drain-end */
	uint32_t drain_age;		/* its readings of a falling queue */
	uint32_t lag;			/* estimates still to wait out */
	uint32_t depth;			/* steps of W down so far (3/4, then 1/4) */
	bool floored;			/* the priorities' floor held the last step up */
	bool refilled;			/* a step taken for a queue that fell, then stood */
	int64_t drain_most;		/* the most the test saw when it began, ns */
	int64_t last_q;			/* the last queue read in the drain, ns */
	uint64_t w_saved;		/* W when it began, bit/s; 0: not yet set */
	uint64_t r_saved;		/* the R of the estimate that began it */
	uint64_t r_most;		/* the most R the drain saw */
	uint64_t drains;		/* drains begun */
	uint64_t drains_failed;		/* drains the queue outlasted */
	bool have;			/* p and srtt hold a sample */
	uint64_t p_ppm;			/* the aggregate's packets lost, millionths */
	uint64_t srtt_ns;		/* the requests' RTT */
};

void compete_init(struct compete *c);

/* one estimate's reading for the test */
struct compete_read {
	int64_t queue_ns;	/* the delay above the base */
	int64_t span_min_ns;	/* the least queue that counts */
	uint64_t interval_ns;	/* between estimates */
	uint64_t rtt_ns;	/* the request's RTT, queue included; 0: unknown */
	uint32_t filter;	/* the delay read is the least of so many samples */
};

/*
 * the longest quiet, in estimates at @interval_ns: COMPETE_QUIET_MAX_NS'
 * worth, no fewer than COMPETE_WINDOW nor more than COMPETE_QUIET_CAP
 */
uint32_t compete_quiet_max(uint64_t interval_ns);

/* one estimate's reading @r into the test: what W does at this estimate */
enum compete_step compete_update(struct compete *c, const struct compete_read *r);

/*
 * the drain's lag in estimates: the requests of its first @rtt_ns (the
 * RTT that began it, queue included) were sent before it, at an estimate
 * each @interval_ns; 1 to COMPETE_DRAIN_MAX
 */
uint32_t compete_drain_lag(uint64_t rtt_ns, uint64_t interval_ns);

/*
 * estimates an emptied queue is watched, W held, at an estimate each
 * @interval_ns: COMPETE_VERIFY_NS' worth, and @filter - 1 more (the delay
 * read is the least of the last @filter samples: a rise shows late); 2 to
 * COMPETE_DRAIN_MAX
 */
uint32_t compete_verify_len(uint64_t interval_ns, uint32_t filter);

/*
 * An estimate that could not feed the test (foreign, or no delay read)
 * while a drain is under way: the lag passes, W holds; COMPETE_DRAIN_MAX
 * of them past the lag and the drain gives W back (in @a) and the test
 * starts over, deciding nothing
 */
void compete_skip(struct compete *c, struct aimd *a, const struct aimd_params *p);

/*
 * The floor of a drain (a sum of @level[1..@n], bit/s): the rates the
 * qdisc's classes ask for, priority by priority from the highest, as many
 * whole priorities as fit in @limit; 0 with no @level
 */
uint64_t compete_floor(const uint64_t *level, unsigned int n, uint64_t limit);

/*
 * The least W a cut may leave for the qdisc's highest priorities, from
 * @w, the estimate's R being @recv: as many whole priorities of
 * @level[1..@n] (NULL: none) as fit in an eighth over the lower of what
 * the path carried of late (load_bw() of @l; none yet, no floor) and R
 * (a path that narrowed is not held to what it carried before), never
 * above @w. The eighth: R and bw never exceed a W that sits at a sum of
 * whole priorities, and without it the floor would drop a priority at
 * each loss and follow W down (half of bw, set 9's suggestion, ratchets
 * the same way). Its cost: a W up to an eighth above a path that
 * narrowed, whose queue the delay rule's drain (not floored) empties.
 * The competing rule's cuts stop there (compete_aimd()).
 */
uint64_t compete_priorities(const struct load *l, uint64_t w, uint64_t recv,
			    const uint64_t *level, unsigned int n);

/*
 * The least W the delay rule's cuts may leave while compete watches beside
 * it (sender.c, delay_compete()), from @w: as many whole priorities of
 * @level[1..@n] as fit in an eighth over what the path carried of late
 * (load_bw() of @l; none yet, no floor), never above @w. Not this
 * estimate's R, as compete_priorities() has it: beside CUBIC R falls with
 * W, and the first cuts come when R is already under priority 1 (set 10:
 * R 420 kbit/s of a path that carried 885, priority 1's classes asking
 * 484). The floor is a bridge until Copa's test has its window: beside
 * elastic flows an aggregate held at a rate keeps it, less its losses, as
 * under pfifo; bw follows a path that narrowed within LOAD_BW_N cap-bound
 * estimates, and meanwhile the rule's drain, not floored, empties the
 * queue W keeps above it.
 */
uint64_t compete_delay_floor(const struct load *l, uint64_t w, const uint64_t *level,
			     unsigned int n);

/*
 * W (in @a) for @step, a drain's (COMPETE_DRAIN, _END or _FAIL), with
 * @recv the estimate's R, bit/s, and @level[1..@n] what the qdisc's
 * classes ask for at each priority (NULL: not known), which a drain's
 * deeper step keeps for the highest priorities that fit in half of
 * min(R, W) (compete_floor())
 */
void compete_drain(struct compete *c, enum compete_step step, struct aimd *a,
		   const struct aimd_params *p, uint64_t recv,
		   const uint64_t *level, unsigned int n);

/*
 * the test starts over (the rule or its parameters changed): a drain under
 * way gives W (in @a) back where it was
 */
void compete_abandon(struct compete *c, struct aimd *a, const struct aimd_params *p);

/*
 * beside the delay rule (delay.h), which drains a queue of its own: while
 * it drains, the window's readings are W's own drain, and the test starts
 * over after it (compete_forget()). A drain of its that the queue
 * outlasted begins one of compete's at its deeper step, at the queue read
 * @r (compete_confirm()): that drain judges whose queue it is, and the
 * rule competes only if it fails too. Taken as a verdict at once, the
 * rule's failed drain had compete compete in a deep buffer with no
 * elastic traffic in 5 of 10 runs (evaluation.rst, set 9): a queue of
 * hundreds of ms at a minority share drains slower than the rule's drain
 * waits; compete's quarter, watched until it empties, tells. No step past
 * the priorities' floor: the rule's drain, not floored, already held W
 * low and the queue outlasted it. The drain's R must be the rule's drain
 * rate (delay_drain_bw()), not the R read during it, which followed W
 * down.
 */
void compete_forget(struct compete *c);
enum compete_step compete_confirm(struct compete *c, const struct compete_read *r);

/* a drain's step as the log names it: drain, drain-end, drain-fail */
const char *compete_step_name(enum compete_step step);

/*
 * One estimate's @lost of @sent packets and its request's RTT @rtt_ns
 * (0: none) into p and srtt, competing or not (so that they hold when
 * it begins)
 */
void compete_observe(struct compete *c, uint64_t lost, uint64_t sent, uint64_t rtt_ns);

/* X, bit/s: what COMPETE_N TCP flows get at p and srtt (saturated) */
uint64_t compete_rate(const struct compete *c);

/* which way the competing rule went */
enum compete_branch {
	COMPETE_UP,		/* toward X, cap-bound */
	COMPETE_DOWN,		/* down to X */
	COMPETE_HOLD_W,		/* app-limited, X above W: W held */
	COMPETE_FLOOR,		/* app-limited: a cut stopped at the floor */
	COMPETE_PRIORITIES,	/* a cut stopped at what the highest priorities ask */
};

const char *compete_branch_name(enum compete_branch b);

/*
 * The loss rule, competing: W (in @a) toward compete_rate(), the load of
 * the estimate @x as @l took it (load_update()). A cut stops at what the
 * qdisc's highest priorities ask for, @level[1..@n] (NULL: not known), as
 * many whole priorities as the path carried of late (load_bw()): beside
 * elastic flows the aggregate keeps its top classes' rates, as their
 * flows would unshaped, and never more than the path gave it.
 */
enum compete_branch compete_aimd(const struct compete *c, const struct load *l,
				 struct aimd *a, const struct aimd_params *p,
				 const struct load_sample *x, const uint64_t *level,
				 unsigned int n);

#endif /* _ABWD_COMPETE_H */
