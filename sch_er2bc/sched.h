/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The class scheduler of sch_er2bc: which class sends next, and when.
 *
 * Pure bookkeeping on nodes, lengths and times: no skbs, no locks (the
 * caller holds the qdisc lock), so KUnit drives it with a simulated clock.
 *
 * Every class has two virtual clocks (EDT, as the shaper): its guarantee
 * clock runs at its guarantee G, its ceil clock at its ceil. A backlogged
 * class is in one of three states:
 *
 *   GUARANTEED  its guarantee clock is due: it may send within G.
 *               Served first, highest priority first, round robin among
 *               equal priorities.
 *   BORROWING   not within G, but below its ceil: it may use what the
 *               guarantees leave. Served when no class is GUARANTEED, by
 *               priority (equal priorities by weight) or, with weighted
 *               sharing, by weight alone: deficit round robin.
 *   HELD        at its ceil: waits for its ceil clock.
 *
 * A scavenger class holds no guarantee and borrows from a list of its
 * own, lent only when no other class borrows, and not at all until
 * yield_until (the estimator saw a queue at the bottleneck): bulk
 * transfers through it yield first, to everything else.
 *
 * GUARANTEED classes sit in one list per priority, found by find-first-set
 * on a bitmap; a class that has borrowed and is below its ceil also sits
 * in a borrowing list (one per priority, or a single one with weighted
 * sharing). A GUARANTEED class whose queue empties stays on its
 * guaranteed list, IDLE ("lazily idle"), until the scheduler meets it at the
 * head or it is activated again: a class emptied and refilled between two
 * dequeues does no list work, and one activated while a lazily idle class
 * is alone on its list takes that class's place. An idle class is on no
 * other list, nor in the wheel. A class waiting for a clock sits in a
 * hierarchical timing wheel (six levels of 64 slots) that moves it when its
 * clock comes due. Choosing a class and charging it costs the same with one
 * class or 65535: no step walks the classes, except when lending by deficit
 * round robin finds every class on a list short of credit (packets larger
 * than the quanta), which walks that list a few times (sched_next_lend()).
 *
 * The whole qdisc is capped by a third clock at W.
 */
#ifndef _ER2BC_SCHED_H
#define _ER2BC_SCHED_H

#include <linux/bits.h>
#include <linux/list.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <linux/er2bc.h>

#include "shaper.h"

#define ER2BC_NPRIO		ER2BC_PRIO_MAX

#define ER2BC_WHEEL_LEVELS	6
#define ER2BC_WHEEL_SLOTS	64
/* level 0 slots span 2^12 ns (4.1 us); each level's are 64 times wider */
#define ER2BC_WHEEL_SHIFT0	12
#define ER2BC_WHEEL_LVL_SHIFT	6

struct er2bc_clock {
	u64 next;		/* earliest time the next byte may leave */
	u64 burst_ns;		/* how far behind now an idle clock may fall */
	struct er2bc_rate rate;
	u64 bps;		/* 0: the clock does not exist (see users) */
};

struct er2bc_node {
	/* read and written for every packet the class sends */
	struct list_head glist;		/* GUARANTEED: on a guaranteed list */
	struct list_head blist;		/* below its ceil: on a borrowing list */
	struct er2bc_clock g;		/* at the guarantee; bps 0: none */
	struct er2bc_clock c;		/* at the ceil; bps 0: no ceil but W */
	s32 credit;			/* bytes left in its lending round */
	u32 quantum;			/* bytes added to credit per round */
	u8 state;			/* enum er2bc_class_state */
	u8 prio;			/* 0 = highest */
	u8 blist_lvl;			/* the borrowing list it is on */
	u8 wheel_lvl;
	u8 wheel_idx;
	bool scavenger;			/* borrows last (ER2BC_TYPE_SCAVENGER) */

	/* waiting for a clock */
	struct hlist_node wheel;
	u64 wheel_time;

	/* statistics */
	u64 bytes_guaranteed;
	u64 bytes_borrowed;
	u64 held;			/* times it had to wait for its ceil */
};

struct er2bc_wheel {
	u64 clk;			/* time of the last advance */
	u32 count;			/* entries: none, nothing to advance */
	u64 occupied[ER2BC_WHEEL_LEVELS];
	/* a lower bound of the times in each slot (U64_MAX: empty) */
	u64 slot_min[ER2BC_WHEEL_LEVELS][ER2BC_WHEEL_SLOTS];
	struct hlist_head slot[ER2BC_WHEEL_LEVELS][ER2BC_WHEEL_SLOTS];
};

struct er2bc_sched {
	/* read for every packet */
	struct er2bc_clock cap;		/* at W; bps 0: no cap */
	u64 guaranteed_map;		/* priorities with a GUARANTEED class */
	u64 borrowing_map;		/* lists with a BORROWING class */
	bool weighted;			/* lend by weight alone (one list) */
	bool holding;			/* the cap holds a backlog back */
	u32 active;			/* backlogged classes */
	u64 held_since;			/* the spell going on began; if holding */

	struct list_head guaranteed[ER2BC_NPRIO];
	struct list_head borrowing[ER2BC_NPRIO];
	/* scavenger classes, lent to after the others, and not before this */
	struct list_head scavenging;
	u64 yield_until;
	struct er2bc_wheel wheel;

	/* statistics */
	u64 throttled;
	u64 held_ns;			/* a backlog waited on the cap, ended spells */
	u64 waits;
	u64 lend_turns;			/* quanta handed out one by one */
	u64 lend_rounds;		/* and rounds of them at once */
	u64 yielded;			/* dequeues that held a scavenger back */
};

/*
 * A class's shortage: the time it was short of its necessary rate R_f, the
 * paper's own measure, kept per class. Time is cut into windows of
 * ER2BC_SHORT_WINDOW_NS (the paper reads rates every second); in each, the
 * class is short for the time it was backlogged if what it sent in the
 * window, over that time, was below R_f, less 1/ER2BC_SHORT_SLACK of it
 * (a class paced at exactly R_f is not short by a rounding): while it had
 * packets waiting, it was served below its necessary rate. A class whose
 * traffic asks for less than R_f, and is served at once, is never short;
 * a class without R_f is not measured. Windows end lazily, at the class's next event or when
 * read (er2bc_short_read()); the total is of the windows ended, so it
 * never goes down.
 */
#define ER2BC_SHORT_WINDOW_NS	NSEC_PER_SEC
#define ER2BC_SHORT_SLACK	32

struct er2bc_short {
	u64 need_bps;			/* R_f; 0: not measured */
	u64 window_start;
	u64 busy_since;			/* backlogged since then; 0: idle */
	u64 busy_ns;			/* backlogged in the window, before busy_since */
	u64 bytes;			/* sent in the window */
	u64 total_ns;			/* short, in the windows ended */
};

void er2bc_short_init(struct er2bc_short *sh, u64 need_bps, u64 now);
void er2bc_short_set_need(struct er2bc_short *sh, u64 need_bps, u64 now);
void er2bc_short_busy(struct er2bc_short *sh, u64 now);
void er2bc_short_sent(struct er2bc_short *sh, u32 len, u64 now, bool backlogged);
void er2bc_short_idle(struct er2bc_short *sh, u64 now);
u64 er2bc_short_read(struct er2bc_short *sh, u64 now);

/*
 * A class's latency bound: the longest a packet may wait in its queue, at
 * the rate the class is served. That rate is measured over spans of at
 * least ER2BC_LATENCY_SPAN_NS while the class stays backlogged (what
 * leaves a backlogged queue is what it is served, as PIE's departure rate,
 * RFC 8033), smoothed by 1/ER2BC_LATENCY_GAIN, and held within the class's
 * guarantee (it is served at least that) and its ceil or W (at most that),
 * which move at once when the guarantees do. The bound in bytes, the rate
 * times the time, is computed when the rate or the limits change, never
 * per packet: the qdisc drops a packet that finds the class holding that
 * much or more (a bfifo whose size follows the rate: no timestamp in the
 * skb, which the child owns). A class never measured is taken to be served
 * at its ceil or W, and is unbounded without either. A measurement older
 * than ER2BC_LATENCY_FORGET_NS is forgotten when the class empties (it was
 * served as fast as it asked: a class held to a packet by a low rate
 * measured once is never backlogged again to measure a higher one); a
 * class served nothing for a while keeps its last rate until it sends
 * again. A class holding nothing takes any packet, however large: the
 * floor of the bound is a packet, not a number of bytes (one MTU of
 * bytes would be 1.2 s at 10 kbit/s, and let a class of small packets
 * queue that long).
 */
#define ER2BC_LATENCY_SPAN_NS	(16 * NSEC_PER_MSEC)
#define ER2BC_LATENCY_GAIN	4
#define ER2BC_LATENCY_FORGET_NS	NSEC_PER_SEC

struct er2bc_latency {
	u32 limit;			/* bytes it may hold; U32_MAX: unbounded */
	u64 target_ns;			/* 0: unbounded */
	u64 floor_bps;			/* its guarantee */
	u64 cap_bps;			/* its ceil or W, the lower; 0: none */
	u64 rate_bps;			/* as measured; 0: not yet, or forgotten */
	u64 sampled_at;			/* when it was */
	u64 span_start;			/* the span being measured began; 0: none */
	u64 span_bytes;			/* sent in it since */
	u64 drops;			/* packets that found it full */
};

void er2bc_latency_init(struct er2bc_latency *l);
void er2bc_latency_set(struct er2bc_latency *l, u64 target_ns, u64 floor_bps,
		       u64 cap_bps);
void er2bc_latency_sent(struct er2bc_latency *l, u32 len, u64 now, bool backlogged);
u64 er2bc_latency_rate(const struct er2bc_latency *l);

/* a class that holds @backlog bytes takes no more (an empty one, any packet) */
static inline bool er2bc_latency_full(const struct er2bc_latency *l, u32 backlog)
{
	return backlog && backlog >= l->limit;
}

/* the class has nothing queued any more: the span so far says nothing */
static inline void er2bc_latency_idle(struct er2bc_latency *l)
{
	l->span_start = 0;
}

void er2bc_sched_init(struct er2bc_sched *s);
void er2bc_node_init(struct er2bc_node *n);

void er2bc_clock_set(struct er2bc_clock *c, u64 bps, u32 burst_bytes, u64 now);
void er2bc_clock_charge(struct er2bc_clock *c, u32 len, u64 now);

void er2bc_sched_activate_slow(struct er2bc_sched *s, struct er2bc_node *n,
			       u64 now);
void er2bc_sched_deactivate(struct er2bc_sched *s, struct er2bc_node *n);
void er2bc_sched_replace(struct er2bc_sched *s, struct er2bc_node *n, u64 now);
void er2bc_sched_move(struct er2bc_sched *s, struct er2bc_node *n,
		      unsigned int prio, bool scavenger, u64 now);

struct er2bc_node *er2bc_sched_next(struct er2bc_sched *s, u64 now, u64 *wake);
u64 er2bc_sched_held(const struct er2bc_sched *s, u64 now);
void er2bc_sched_unhold(struct er2bc_sched *s, u64 now);
void er2bc_sched_charge(struct er2bc_sched *s, struct er2bc_node *n, u32 len,
			u64 now, bool backlogged);
void er2bc_sched_set_aside(struct er2bc_sched *s, struct er2bc_node *n,
			   struct list_head *aside);
void er2bc_sched_restore(struct er2bc_sched *s, struct list_head *aside, u64 now);

static inline bool er2bc_node_active(const struct er2bc_node *n)
{
	return n->state != ER2BC_STATE_IDLE;
}

/*
 * Whether a class may send at now, within its guarantee or without one,
 * as far as its own clocks go: lets a caller that knows an earlier time
 * than now (the wheel's) activate the class without reading the clock.
 */
static inline bool er2bc_node_ready(const struct er2bc_node *n, u64 now)
{
	return (!n->c.bps || n->c.next <= now) &&
	       (!n->g.bps || n->g.next <= now);
}

/**
 * er2bc_sched_activate - a class has packets queued again
 * @s: the scheduler
 * @n: the class's node
 * @now: the current time
 *
 * Idempotent. Inline for the common case of a packet that finds its class
 * idle and free to send within its guarantee: a class that emptied and
 * refilled between two dequeues, still lazily idle at the tail of its
 * guaranteed list (see er2bc_sched_charge()), is GUARANTEED again where it
 * stands; one on no list takes the place of a lazily idle class alone on
 * the list, or else joins the tail (an idle class is on no borrowing list
 * and not in the wheel). Everything else is er2bc_sched_activate_slow().
 */
static inline void er2bc_sched_activate(struct er2bc_sched *s,
					struct er2bc_node *n, u64 now)
{
	struct list_head *head = &s->guaranteed[n->prio];

	if (er2bc_node_active(n))
		return;
	if (!n->g.bps || !er2bc_node_ready(n, now) ||
	    (!list_is_last(&n->glist, head) && !list_empty(&n->glist))) {
		er2bc_sched_activate_slow(s, n, now);
		return;
	}
	if (list_empty(&n->glist)) {
		struct er2bc_node *first = list_first_entry(head, struct er2bc_node,
							    glist);

		/* the lazily idle class alone on the list gives up its place */
		if (list_is_singular(head) && !er2bc_node_active(first)) {
			list_replace_init(&first->glist, &n->glist);
		} else {
			list_add_tail(&n->glist, head);
			s->guaranteed_map |= BIT_ULL(n->prio);
		}
	}
	n->credit = n->quantum;
	s->active++;
	n->state = ER2BC_STATE_GUARANTEED;
}

/* the time the scheduler last looked at the clock: never after now */
static inline u64 er2bc_sched_clock(const struct er2bc_sched *s)
{
	return s->wheel.clk;
}

#endif /* _ER2BC_SCHED_H */
