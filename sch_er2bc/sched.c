// SPDX-License-Identifier: GPL-2.0
/*
 * The class scheduler of sch_er2bc (see sched.h): per-priority lists of the
 * classes that may send, and a timing wheel of those waiting for a clock.
 */
#include <linux/bitops.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "sched.h"

static inline unsigned int wheel_shift(unsigned int lvl)
{
	return ER2BC_WHEEL_SHIFT0 + lvl * ER2BC_WHEEL_LVL_SHIFT;
}

/*
 * The timing wheel. Level l has 64 slots; absolute slot a of level l holds
 * times in [a << shift(l), (a + 1) << shift(l)). An entry added at clock
 * clk goes to the lowest level whose 64 slots from clk's slot reach it, so
 * a level never holds two turns of its ring at once, and an entry above
 * level 0 is never in its level's current slot. Advancing the clock
 * visits every slot whose start it passed: entries due fire, the others
 * drop to a lower level (at most once per level). Every slot keeps a lower
 * bound of its times, so the wheel can tell when its next entry is due,
 * not just when its slot begins.
 */
static void wheel_init(struct er2bc_wheel *w)
{
	int l, i;

	w->clk = 0;
	for (l = 0; l < ER2BC_WHEEL_LEVELS; l++) {
		w->occupied[l] = 0;
		for (i = 0; i < ER2BC_WHEEL_SLOTS; i++) {
			w->slot_min[l][i] = U64_MAX;
			INIT_HLIST_HEAD(&w->slot[l][i]);
		}
	}
}

/* add n, due at t > w->clk */
static void wheel_add(struct er2bc_wheel *w, struct er2bc_node *n, u64 t)
{
	unsigned int l, idx;
	u64 abs = 0;

	for (l = 0; l < ER2BC_WHEEL_LEVELS; l++) {
		abs = t >> wheel_shift(l);
		if (abs < (w->clk >> wheel_shift(l)) + ER2BC_WHEEL_SLOTS)
			break;
	}
	if (l == ER2BC_WHEEL_LEVELS) {
		/* beyond the horizon (78 h): park in the last slot, re-added then */
		l = ER2BC_WHEEL_LEVELS - 1;
		abs = (w->clk >> wheel_shift(l)) + ER2BC_WHEEL_SLOTS - 1;
	}
	idx = abs & (ER2BC_WHEEL_SLOTS - 1);
	hlist_add_head(&n->wheel, &w->slot[l][idx]);
	n->wheel_time = t;
	n->wheel_lvl = l;
	n->wheel_idx = idx;
	w->count++;
	w->occupied[l] |= BIT_ULL(idx);
	w->slot_min[l][idx] = min(w->slot_min[l][idx], t);
}

static void wheel_del(struct er2bc_wheel *w, struct er2bc_node *n)
{
	unsigned int l = n->wheel_lvl, idx = n->wheel_idx;

	if (hlist_unhashed(&n->wheel))
		return;
	hlist_del_init(&n->wheel);
	w->count--;
	if (hlist_empty(&w->slot[l][idx])) {
		w->occupied[l] &= ~BIT_ULL(idx);
		w->slot_min[l][idx] = U64_MAX;
	}
}

/* the earliest time an entry of the wheel may be due; U64_MAX: none */
static u64 wheel_next(const struct er2bc_wheel *w)
{
	u64 best = U64_MAX;
	unsigned int l;

	for (l = 0; l < ER2BC_WHEEL_LEVELS; l++) {
		unsigned int cur, idx;

		if (!w->occupied[l])
			continue;
		/* ring order from the current slot is time order */
		cur = (w->clk >> wheel_shift(l)) & (ER2BC_WHEEL_SLOTS - 1);
		idx = (cur + __ffs64(ror64(w->occupied[l], cur))) &
		      (ER2BC_WHEEL_SLOTS - 1);
		best = min(best, w->slot_min[l][idx]);
	}
	return best;
}

static void sched_place(struct er2bc_sched *s, struct er2bc_node *n, u64 now);

/* visit the slots of level l in ring positions set in mask */
static void wheel_visit(struct er2bc_sched *s, unsigned int l, u64 mask, u64 now)
{
	struct er2bc_wheel *w = &s->wheel;
	u64 pending = w->occupied[l] & mask;

	while (pending) {
		unsigned int idx = __ffs64(pending);
		struct er2bc_node *n;
		struct hlist_node *tmp;
		HLIST_HEAD(due);

		pending &= pending - 1;
		/*
		 * Level 0's current slot may hold nothing due yet: leave it.
		 * A higher level's slot whose start has passed drops its
		 * entries a level now, due or not, or they would wait for
		 * the ring to come round again.
		 */
		if (!l && w->slot_min[l][idx] > now)
			continue;
		hlist_move_list(&w->slot[l][idx], &due);
		w->occupied[l] &= ~BIT_ULL(idx);
		w->slot_min[l][idx] = U64_MAX;
		hlist_for_each_entry_safe(n, tmp, &due, wheel) {
			hlist_del_init(&n->wheel);
			w->count--;
			if (n->wheel_time <= now)
				sched_place(s, n, now);
			else
				wheel_add(w, n, n->wheel_time);
		}
	}
}

/* the clock moved from old to now: visit the slots whose start it passed */
static noinline void wheel_visit_all(struct er2bc_sched *s, u64 old, u64 now)
{
	int l;

	/* from the top, so entries dropping a level are placed before it is visited */
	for (l = ER2BC_WHEEL_LEVELS - 1; l >= 0; l--) {
		unsigned int sh = wheel_shift(l);
		u64 from, to, mask;

		if (!s->wheel.occupied[l])
			continue;
		/* level 0 visits its old current slot again: it was not over */
		from = (old >> sh) + (l ? 1 : 0);
		to = now >> sh;
		if (to < from)
			continue;
		if (to - from >= ER2BC_WHEEL_SLOTS - 1)
			mask = ~0ULL;
		else
			mask = rol64(BIT_ULL(to - from + 1) - 1,
				     from & (ER2BC_WHEEL_SLOTS - 1));
		wheel_visit(s, l, mask, now);
	}
}

/* move the wheel's clock to now: an empty wheel just takes the time */
static inline void wheel_advance(struct er2bc_sched *s, u64 now)
{
	struct er2bc_wheel *w = &s->wheel;
	u64 old = w->clk;

	if (now <= old)
		return;
	w->clk = now;
	if (w->count)
		wheel_visit_all(s, old, now);
}

/* Clocks */

/**
 * er2bc_clock_set - give a clock a new rate and burst
 * @c: the clock
 * @bps: the new rate, bits/s (0: the clock is off)
 * @burst_bytes: bytes it may let through back to back after idling
 * @now: the current time
 *
 * What the clock owes at the old rate is carried over in bytes (see
 * er2bc_clock_rescale()).
 */
void er2bc_clock_set(struct er2bc_clock *c, u64 bps, u32 burst_bytes, u64 now)
{
	c->next = er2bc_clock_rescale(c->next, now, c->bps, bps);
	c->bps = bps;
	er2bc_rate_set(&c->rate, bps);
	c->burst_ns = er2bc_rate_tx_ns(&c->rate, burst_bytes);
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_clock_set);

/* len bytes leave at now: the clock moves by their time at its rate */
void er2bc_clock_charge(struct er2bc_clock *c, u32 len, u64 now)
{
	u64 earliest = now > c->burst_ns ? now - c->burst_ns : 0;

	c->next = max(c->next, earliest) + er2bc_rate_tx_ns(&c->rate, len);
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_clock_charge);

static inline bool g_due(const struct er2bc_node *n, u64 now)
{
	return n->g.bps && n->g.next <= now;
}

static inline bool c_due(const struct er2bc_node *n, u64 now)
{
	return !n->c.bps || n->c.next <= now;
}

/*
 * Lists. A class below its ceil is on its borrowing list, and stays there,
 * keeping its turn in the lending round, while it moves in and out of the
 * guaranteed lists: a round must not restart every time a class's
 * guarantee clock comes due, or classes with large quanta lose their share.
 */
static void list_put(struct list_head *heads, u64 *map, unsigned int lvl,
		     struct list_head *entry)
{
	list_add_tail(entry, &heads[lvl]);
	*map |= BIT_ULL(lvl);
}

static void list_take(struct list_head *heads, u64 *map, unsigned int lvl,
		      struct list_head *entry)
{
	if (list_empty(entry))
		return;
	list_del_init(entry);
	if (list_empty(&heads[lvl]))
		*map &= ~BIT_ULL(lvl);
}

static void g_take(struct er2bc_sched *s, struct er2bc_node *n)
{
	list_take(s->guaranteed, &s->guaranteed_map, n->prio, &n->glist);
}

/* the borrowing list level of a scavenger: its own list, in no map */
#define ER2BC_LVL_SCAVENGER	U8_MAX
static_assert(ER2BC_NPRIO <= ER2BC_LVL_SCAVENGER);

static void b_take(struct er2bc_sched *s, struct er2bc_node *n)
{
	if (n->blist_lvl == ER2BC_LVL_SCAVENGER)
		list_del_init(&n->blist);
	else
		list_take(s->borrowing, &s->borrowing_map, n->blist_lvl, &n->blist);
}

/* take a backlogged node out of every list and the wheel */
static void sched_detach(struct er2bc_sched *s, struct er2bc_node *n)
{
	g_take(s, n);
	b_take(s, n);
	wheel_del(&s->wheel, n);
}

/*
 * put a backlogged node where its clocks say it belongs; it keeps its place
 * on the borrowing list if it has one
 */
static void sched_place(struct er2bc_sched *s, struct er2bc_node *n, u64 now)
{
	wheel_del(&s->wheel, n);
	if (!c_due(n, now)) {
		/* at its ceil, whatever its guarantee says */
		g_take(s, n);
		b_take(s, n);
		n->state = ER2BC_STATE_HELD;
		n->held++;
		wheel_add(&s->wheel, n, n->c.next);
		return;
	}
	if (g_due(n, now)) {
		if (list_empty(&n->glist))
			list_put(s->guaranteed, &s->guaranteed_map, n->prio, &n->glist);
		n->state = ER2BC_STATE_GUARANTEED;
	} else {
		g_take(s, n);
		/* joins the lending round the first time it needs to borrow */
		if (list_empty(&n->blist)) {
			if (n->scavenger) {
				n->blist_lvl = ER2BC_LVL_SCAVENGER;
				list_add_tail(&n->blist, &s->scavenging);
			} else {
				n->blist_lvl = s->weighted ? 0 : n->prio;
				list_put(s->borrowing, &s->borrowing_map, n->blist_lvl,
					 &n->blist);
			}
		}
		n->state = ER2BC_STATE_BORROWING;
		/* to become GUARANTEED when its guarantee clock is due */
		if (n->g.bps)
			wheel_add(&s->wheel, n, n->g.next);
	}
}

void er2bc_sched_init(struct er2bc_sched *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < ER2BC_NPRIO; i++) {
		INIT_LIST_HEAD(&s->guaranteed[i]);
		INIT_LIST_HEAD(&s->borrowing[i]);
	}
	INIT_LIST_HEAD(&s->scavenging);
	wheel_init(&s->wheel);
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_sched_init);

void er2bc_node_init(struct er2bc_node *n)
{
	memset(n, 0, sizeof(*n));
	INIT_LIST_HEAD(&n->glist);
	INIT_LIST_HEAD(&n->blist);
	INIT_HLIST_NODE(&n->wheel);
	n->state = ER2BC_STATE_IDLE;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_node_init);

/* er2bc_sched_activate() (sched.h) for every case but its fast one */
void er2bc_sched_activate_slow(struct er2bc_sched *s, struct er2bc_node *n,
			       u64 now)
{
	n->credit = n->quantum;
	s->active++;
	if (!list_empty(&n->glist)) {
		struct list_head *head = &s->guaranteed[n->prio];

		/*
		 * Lazily idle (see er2bc_sched_charge()). Idle classes behind
		 * it leave the list (each leaves once: amortised O(1)); then
		 * if it is where placing it again would put it, at the tail,
		 * and due, it just becomes GUARANTEED again.
		 */
		while (!list_is_last(&n->glist, head)) {
			struct er2bc_node *last = list_last_entry(head, struct er2bc_node,
								  glist);

			if (er2bc_node_active(last))
				break;
			g_take(s, last);
		}
		if (list_is_last(&n->glist, head) && g_due(n, now) && c_due(n, now)) {
			n->state = ER2BC_STATE_GUARANTEED;
			return;
		}
		g_take(s, n);
	}
	sched_place(s, n, now);
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_sched_activate_slow);

/*
 * a class has nothing queued any more; idempotent. It leaves every list,
 * lazily idle or not: a node may be freed once this returns.
 */
void er2bc_sched_deactivate(struct er2bc_sched *s, struct er2bc_node *n)
{
	if (!er2bc_node_active(n)) {
		g_take(s, n);
		return;
	}
	sched_detach(s, n);
	n->state = ER2BC_STATE_IDLE;
	s->active--;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_sched_deactivate);

/*
 * er2bc_sched_replace - place a class again after its rates, priority or the
 * way of lending changed
 */
void er2bc_sched_replace(struct er2bc_sched *s, struct er2bc_node *n, u64 now)
{
	if (!er2bc_node_active(n))
		return;
	wheel_advance(s, now);
	sched_detach(s, n);
	sched_place(s, n, now);
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_sched_replace);

/**
 * er2bc_sched_move - move a class to another priority, or lending round
 * @s: the scheduler
 * @n: the class's node, active or idle
 * @prio: the new priority, 0 highest
 * @scavenger: whether it borrows last, in the scavengers' round
 * @now: the current time
 *
 * A backlogged class leaves the lists of its old priority and round before
 * they change: taken off with the new ones, its old list could be left
 * empty with its bit still set in the map.
 */
void er2bc_sched_move(struct er2bc_sched *s, struct er2bc_node *n,
		      unsigned int prio, bool scavenger, u64 now)
{
	if (!er2bc_node_active(n)) {
		g_take(s, n);	/* lazily idle, on the old priority's list */
		n->prio = prio;
		n->scavenger = scavenger;
		return;
	}
	wheel_advance(s, now);
	sched_detach(s, n);
	n->prio = prio;
	n->scavenger = scavenger;
	sched_place(s, n, now);
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_sched_move);

static struct er2bc_node *sched_next_lend(struct er2bc_sched *s, u64 now, u64 *wake);

/**
 * er2bc_sched_held - how long the cap W has held a backlog back
 * @s: the scheduler
 * @now: the current time
 *
 * A spell begins when a dequeue finds packets waiting and the cap not yet
 * due, and ends at the next dequeue the cap lets through (or when the
 * backlog is dropped, er2bc_sched_unhold()). An aggregate that offers
 * more than W is held back nearly all the time; one whose flows ask for
 * less than W, never: the estimator tells by it whether an interval's
 * received rate measured the path or only what the flows asked for.
 *
 * Return: the nanoseconds held, the spell going on included; never goes down.
 */
u64 er2bc_sched_held(const struct er2bc_sched *s, u64 now)
{
	if (s->holding && now > s->held_since)
		return s->held_ns + (now - s->held_since);
	return s->held_ns;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_sched_held);

/**
 * er2bc_sched_unhold - end a spell of the cap holding a backlog back
 * @s: the scheduler
 * @now: the current time
 *
 * At a dequeue the cap let through, and when the backlog goes (a reset):
 * an empty qdisc is not held back.
 */
void er2bc_sched_unhold(struct er2bc_sched *s, u64 now)
{
	if (!s->holding)
		return;
	s->held_ns = er2bc_sched_held(s, now);
	s->holding = false;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_sched_unhold);

/**
 * er2bc_sched_next - the class that sends now
 * @s: the scheduler
 * @now: the current time
 * @wake: where to write when to ask again, if no class may send now
 *
 * A GUARANTEED class of the highest priority if any, round robin among
 * equals; else a BORROWING one, by deficit round robin: a class whose
 * credit is spent gets its quantum and goes to the tail. The credit may go
 * negative by less than one packet; when that is more than a quantum, the
 * rounds in which no class could send are handed out together, so one call
 * walks the list a few times at most, whatever the packet sizes.
 *
 * Return: the node, or NULL with *@wake set (U64_MAX: nothing will be
 * ready by time alone).
 */
struct er2bc_node *er2bc_sched_next(struct er2bc_sched *s, u64 now, u64 *wake)
{
	struct er2bc_node *n;

	if (s->cap.bps && s->cap.next > now) {
		s->throttled++;
		if (!s->holding) {
			s->holding = true;
			s->held_since = now;
		}
		*wake = s->cap.next;
		return NULL;
	}
	if (unlikely(s->holding))
		er2bc_sched_unhold(s, now);
	wheel_advance(s, now);

	while (s->guaranteed_map) {
		n = list_first_entry(&s->guaranteed[__ffs64(s->guaranteed_map)],
				     struct er2bc_node, glist);
		if (likely(er2bc_node_active(n)))
			return n;
		/* lazily idle: it leaves its list now */
		g_take(s, n);
	}
	return sched_next_lend(s, now, wake);
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_sched_next);

/*
 * A whole round went by and no class on @head could send: each is short
 * of more than its quantum (a GSO packet of 64 KB against a weight's quantum
 * of one MTU leaves it 43 rounds short). Hand out at once the rounds in
 * which still no class would send, as deficit round robin would one by
 * one: the work per dequeue is a few walks of the list, whatever the
 * quantum and the packet sizes, and the order of turns stays the same.
 */
static void lend_skip_rounds(struct er2bc_sched *s, struct list_head *head)
{
	struct er2bc_node *n;
	u32 rounds = U32_MAX;

	list_for_each_entry(n, head, blist) {
		/* the quanta it needs for a positive credit; 0: it has one */
		u32 r = n->credit > 0 ? 0 : div_u64(-(s64)n->credit, n->quantum) + 1;

		rounds = min(rounds, r);
	}
	if (!rounds)
		return;
	/* none overshoots: credit + rounds * quantum <= quantum */
	list_for_each_entry(n, head, blist)
		n->credit += (s64)rounds * n->quantum;
	s->lend_rounds += rounds;
}

/* deficit round robin on a lending round that is not empty */
static struct er2bc_node *lend_from(struct er2bc_sched *s, struct list_head *head)
{
	struct er2bc_node *n, *first = NULL;

	for (;;) {
		n = list_first_entry(head, struct er2bc_node, blist);
		if (n->credit > 0)
			return n;
		if (n == first) {
			/* a positive credit for at least one: the next turn returns */
			lend_skip_rounds(s, head);
			first = NULL;
			continue;
		}
		if (!first)
			first = n;
		n->credit += n->quantum;
		list_move_tail(&n->blist, head);
		s->lend_turns++;
	}
}

/*
 * no class is GUARANTEED: every class on a borrowing list is BORROWING;
 * the scavengers' turn only when no other class borrows, and not before
 * yield_until
 */
static noinline struct er2bc_node *sched_next_lend(struct er2bc_sched *s, u64 now, u64 *wake)
{
	if (s->borrowing_map)
		return lend_from(s, &s->borrowing[__ffs64(s->borrowing_map)]);
	*wake = wheel_next(&s->wheel);
	if (!list_empty(&s->scavenging)) {
		if (s->yield_until <= now)
			return lend_from(s, &s->scavenging);
		s->yielded++;
		*wake = min(*wake, s->yield_until);
	}
	s->waits++;
	return NULL;
}

/**
 * er2bc_sched_charge - a class sent len bytes
 * @s: the scheduler
 * @n: the class er2bc_sched_next() chose
 * @len: bytes on the wire
 * @now: the time it left
 * @backlogged: the class still has packets
 *
 * Bytes sent within the guarantee move the guarantee clock; bytes borrowed
 * spend credit instead, so borrowing never eats into a later guarantee.
 * Both move the ceil clock and the cap.
 */
void er2bc_sched_charge(struct er2bc_sched *s, struct er2bc_node *n, u32 len,
			u64 now, bool backlogged)
{
	bool guaranteed = n->state == ER2BC_STATE_GUARANTEED;

	if (s->cap.bps)
		er2bc_clock_charge(&s->cap, len, now);
	if (n->c.bps)
		er2bc_clock_charge(&n->c, len, now);
	if (guaranteed) {
		er2bc_clock_charge(&n->g, len, now);
		n->bytes_guaranteed += len;
	} else {
		n->credit -= len;
		n->bytes_borrowed += len;
	}

	if (!er2bc_node_active(n))	/* its child emptied itself meanwhile */
		return;
	if (!backlogged) {
		/*
		 * Lazily idle: a class that was GUARANTEED and has no turn in
		 * a lending round stays on its guaranteed list, IDLE, so that
		 * a class emptied and refilled between two dequeues does no
		 * list work. er2bc_sched_next() takes it off when it meets it
		 * at the head; activation, set_prio and deactivation too.
		 */
		if (guaranteed && list_empty(&n->blist)) {
			n->state = ER2BC_STATE_IDLE;
			s->active--;
			return;
		}
		er2bc_sched_deactivate(s, n);
		return;
	}
	if (guaranteed && g_due(n, now) && c_due(n, now)) {
		/* round robin among equal priorities */
		if (!list_is_singular(&s->guaranteed[n->prio]))
			list_move_tail(&n->glist, &s->guaranteed[n->prio]);
		return;
	}
	/* still borrowing: keeps its turn, its guarantee clock did not move */
	if (!guaranteed && c_due(n, now))
		return;
	sched_place(s, n, now);
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_sched_charge);

/**
 * er2bc_sched_set_aside - the class had nothing to send after all
 * @s: the scheduler
 * @n: the class er2bc_sched_next() chose, still backlogged
 * @aside: where it waits until er2bc_sched_restore()
 *
 * Its child qdisc holds its packets back (a shaper, a delay line, pacing).
 * It leaves every list and the wheel, so that er2bc_sched_next() goes on to
 * the classes after it, of its priority and below, in this same dequeue;
 * its child's own watchdog wakes the root for its next packet. A class set
 * aside is still active: deactivating it takes it off @aside.
 */
void er2bc_sched_set_aside(struct er2bc_sched *s, struct er2bc_node *n,
			   struct list_head *aside)
{
	sched_detach(s, n);
	list_add_tail(&n->glist, aside);
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_sched_set_aside);

/*
 * er2bc_sched_restore - put the classes set aside back where their clocks
 * say, at the tail of their lists: each loses its turn, and its place in
 * the lending round
 */
void er2bc_sched_restore(struct er2bc_sched *s, struct list_head *aside, u64 now)
{
	struct er2bc_node *n, *tmp;

	list_for_each_entry_safe(n, tmp, aside, glist) {
		list_del_init(&n->glist);
		sched_place(s, n, now);
	}
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_sched_restore);

/*
 * The part of the window begun at sh->window_start, up to @now, for which
 * the class was short: its backlogged time, if what it sent in the window
 * fell short of R_f over that time; else 0.
 */
static u64 short_window(const struct er2bc_short *sh, u64 now)
{
	u64 busy = sh->busy_ns, got;

	if (sh->busy_since && now > sh->busy_since)
		busy += now - sh->busy_since;
	if (!sh->need_bps || !busy)
		return 0;
	/*
	 * the rate it got while backlogged, bit/s: what it sent in the window
	 * left while it was backlogged, so no faster than a device sends, far
	 * below 2^64 (R_f times the time could pass it)
	 */
	got = mul_u64_u64_div_u64(sh->bytes, 8 * NSEC_PER_SEC, busy);
	return got < sh->need_bps - sh->need_bps / ER2BC_SHORT_SLACK ? busy : 0;
}

/* ends the window if it is over (or @force): its shortage counted, a new one */
static void short_roll(struct er2bc_short *sh, u64 now, bool force)
{
	/* (a clock read before the window began does not end it) */
	if (!force && (now < sh->window_start ||
		       now - sh->window_start < ER2BC_SHORT_WINDOW_NS))
		return;
	sh->total_ns += short_window(sh, now);
	sh->window_start = now;
	sh->busy_ns = 0;
	sh->bytes = 0;
	if (sh->busy_since)
		sh->busy_since = now;
}

/**
 * er2bc_short_init - a class's shortage, from none, measured against @need_bps
 * @sh: the class's
 * @need_bps: R_f; 0: not measured
 * @now: the current time, ns (never 0: a busy_since of 0 means idle)
 */
void er2bc_short_init(struct er2bc_short *sh, u64 need_bps, u64 now)
{
	memset(sh, 0, sizeof(*sh));
	sh->need_bps = need_bps;
	sh->window_start = now;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_short_init);

/* R_f changed: the window so far is judged against the old one */
void er2bc_short_set_need(struct er2bc_short *sh, u64 need_bps, u64 now)
{
	if (sh->need_bps == need_bps)
		return;
	short_roll(sh, now, true);
	sh->need_bps = need_bps;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_short_set_need);

/* the class had no packet queued and has one now */
void er2bc_short_busy(struct er2bc_short *sh, u64 now)
{
	short_roll(sh, now, false);
	/* (a clock read before the window began counts from its start) */
	if (!sh->busy_since)
		sh->busy_since = max3(now, sh->window_start, (u64)1);
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_short_busy);

/* the class sent @len bytes at @now; @backlogged: it has more queued */
void er2bc_short_sent(struct er2bc_short *sh, u32 len, u64 now, bool backlogged)
{
	short_roll(sh, now, false);
	sh->bytes += len;
	if (!backlogged)
		er2bc_short_idle(sh, now);
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_short_sent);

/* the class has nothing queued any more (sent, dropped, reset) */
void er2bc_short_idle(struct er2bc_short *sh, u64 now)
{
	if (!sh->busy_since)
		return;
	if (now > sh->busy_since)
		sh->busy_ns += now - sh->busy_since;
	sh->busy_since = 0;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_short_idle);

/*
 * er2bc_short_read - the class's shortage so far, ns
 *
 * A window a second old or more ends first: a class starved of every
 * dequeue, with no event of its own, is judged at the reader's. The
 * window still open is left out, so the total never goes down (its
 * verdict may change before it ends): a counter, as Prometheus reads it.
 */
u64 er2bc_short_read(struct er2bc_short *sh, u64 now)
{
	short_roll(sh, now, false);
	return sh->total_ns;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_short_read);

/* @bps held within what the class is served: its guarantee, its ceil or W */
static u64 latency_clamp(const struct er2bc_latency *l, u64 bps)
{
	bps = max(bps, l->floor_bps);
	if (l->cap_bps)
		bps = min(bps, l->cap_bps);
	return bps;
}

/**
 * er2bc_latency_rate - the service rate the bound is computed from
 * @l: the class's
 *
 * Return: the rate measured, held within the class's guarantee and its
 * ceil or W (the limits move at once, the measurement follows); 0 while
 * none is measured
 */
u64 er2bc_latency_rate(const struct er2bc_latency *l)
{
	return l->rate_bps ? latency_clamp(l, l->rate_bps) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_latency_rate);

/*
 * the bound in force, from the rate measured and the limits on it; none
 * before a measurement without a ceil or W (the device's rate is unknown,
 * and a guarantee is only the least it is served)
 */
static void latency_limit(struct er2bc_latency *l)
{
	u64 bps = l->rate_bps ?: l->cap_bps, bytes;

	if (!l->target_ns || !bps) {
		l->limit = U32_MAX;
		return;
	}
	bps = latency_clamp(l, bps);
	/*
	 * (at 2^56 bit/s a microsecond is past 2^32 bytes already; below it,
	 * 60 s of it is far from 2^64: a rate of 2^64 - 1 would overflow the
	 * quotient, which x86's divide turns into a fault)
	 */
	bps = min_t(u64, bps, BIT_ULL(56));
	bytes = mul_u64_u64_div_u64(bps, l->target_ns, 8 * NSEC_PER_SEC);
	/* (at least a byte: a class holding anything then takes nothing more) */
	l->limit = clamp_t(u64, bytes, 1, U32_MAX);
}

/**
 * er2bc_latency_init - a class's latency bound, unbounded, nothing measured
 * @l: the class's
 */
void er2bc_latency_init(struct er2bc_latency *l)
{
	memset(l, 0, sizeof(*l));
	l->limit = U32_MAX;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_latency_init);

/**
 * er2bc_latency_set - the bound and what the class's rate lies within
 * @l: the class's
 * @target_ns: the longest a packet may wait; 0: unbounded
 * @floor_bps: its guarantee in force
 * @cap_bps: its ceil or W, the lower; 0: neither
 */
void er2bc_latency_set(struct er2bc_latency *l, u64 target_ns, u64 floor_bps,
		       u64 cap_bps)
{
	l->target_ns = target_ns;
	l->floor_bps = floor_bps;
	l->cap_bps = cap_bps;
	latency_limit(l);
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_latency_set);

/**
 * er2bc_latency_sent - the class sent a packet
 * @l: the class's
 * @len: its length
 * @now: when
 * @backlogged: the class has more queued
 *
 * A span begins at a packet that leaves the class backlogged, and ends at
 * the first packet ER2BC_LATENCY_SPAN_NS or more after it: the bytes sent
 * after its start, over its length, are a sample of the rate (the class
 * was backlogged throughout, that last packet's departure included). A
 * span in which the class empties sooner is dropped: it was served as
 * fast as it asked. The first sample, and the first after a measurement
 * is forgotten, is taken whole; the others by 1/ER2BC_LATENCY_GAIN.
 */
void er2bc_latency_sent(struct er2bc_latency *l, u32 len, u64 now, bool backlogged)
{
	u64 elapsed, sample;

	if (!backlogged && l->rate_bps && now > l->sampled_at + ER2BC_LATENCY_FORGET_NS) {
		l->rate_bps = 0;
		latency_limit(l);
	}
	if (!l->span_start || now < l->span_start) {
		l->span_start = backlogged ? max(now, 1ULL) : 0;
		l->span_bytes = 0;
		return;
	}
	l->span_bytes += len;
	elapsed = now - l->span_start;
	if (elapsed < ER2BC_LATENCY_SPAN_NS) {
		if (!backlogged)
			l->span_start = 0;
		return;
	}
	/* bytes over at least 16 ms: far from 2^64 bits */
	sample = mul_u64_u64_div_u64(l->span_bytes, 8 * NSEC_PER_SEC, elapsed);
	if (l->rate_bps)
		l->rate_bps += div_s64((s64)(sample - l->rate_bps), ER2BC_LATENCY_GAIN);
	else
		l->rate_bps = max(sample, 1ULL);
	l->sampled_at = now;
	latency_limit(l);
	l->span_start = backlogged ? now : 0;
	l->span_bytes = 0;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_latency_sent);
