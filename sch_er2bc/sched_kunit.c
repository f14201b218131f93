// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the er2bc class scheduler: which class sends, and how
 * much each gets, driven by a simulated clock.
 */
#include <kunit/test.h>
#include <linux/math64.h>
#include <linux/time64.h>

#include "guarantee.h"
#include "sched.h"

#define PKT	1500		/* bytes per simulated packet */
#define MTU	1514

struct sim {
	struct er2bc_sched s;
	struct er2bc_node n[8];
	u64 bytes[8];
	u64 now;
	int count;
};

static struct sim *sim_new(struct kunit *test, u64 cap_bps, bool weighted)
{
	struct sim *sim = kunit_kzalloc(test, sizeof(*sim), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sim);
	er2bc_sched_init(&sim->s);
	sim->s.weighted = weighted;
	sim->now = 1000 * NSEC_PER_SEC;
	er2bc_clock_set(&sim->s.cap, cap_bps, 2 * MTU, sim->now);
	return sim;
}

/* a class: priority (1 = highest), guarantee, ceil (0 = none), weight */
static struct er2bc_node *sim_class(struct sim *sim, u8 prio, u64 g_bps,
				    u64 ceil_bps, u32 weight)
{
	struct er2bc_node *n = &sim->n[sim->count++];

	er2bc_node_init(n);
	n->prio = prio - 1;
	n->quantum = weight * MTU;
	er2bc_clock_set(&n->g, g_bps, 2 * MTU, sim->now);
	er2bc_clock_set(&n->c, ceil_bps, 2 * MTU, sim->now);
	return n;
}

/*
 * Every class greedy for ns nanoseconds; link_ns is the time a packet takes
 * on a device that has no cap of its own (0: only the cap paces).
 */
static void sim_run(struct kunit *test, struct sim *sim, u64 ns, u64 link_ns)
{
	u64 end = sim->now + ns;
	int i;

	for (i = 0; i < sim->count; i++) {
		sim->bytes[i] = 0;
		er2bc_sched_activate(&sim->s, &sim->n[i], sim->now);
	}
	while (sim->now < end) {
		u64 wake = 0;
		struct er2bc_node *n = er2bc_sched_next(&sim->s, sim->now, &wake);

		if (!n) {
			KUNIT_ASSERT_NE(test, wake, U64_MAX);
			KUNIT_ASSERT_GT(test, wake, sim->now - 1);
			/* the qdisc watchdog fires a little late */
			sim->now = max(wake, sim->now + 1);
			continue;
		}
		sim->bytes[n - sim->n] += PKT;
		er2bc_sched_charge(&sim->s, n, PKT, sim->now, true);
		sim->now += link_ns;
	}
}

/* class i got bps over ns within tol_pct percent (and one packet) */
static void expect_rate(struct kunit *test, struct sim *sim, int i, u64 ns,
			u64 bps, u64 tol_pct)
{
	u64 got = mul_u64_u64_div_u64(sim->bytes[i] * 8, NSEC_PER_SEC, ns);
	u64 tol = div_u64(bps * tol_pct, 100) +
		  mul_u64_u64_div_u64(PKT * 8, NSEC_PER_SEC, ns);

	KUNIT_EXPECT_LE_MSG(test, got, bps + tol, "class %d", i);
	KUNIT_EXPECT_GE_MSG(test, got + tol, bps, "class %d", i);
}

/* W binds: the guarantees of the first three fill it, the rest get nothing */
static void sched_guarantees_by_priority(struct kunit *test)
{
	struct sim *sim = sim_new(test, 1200000, false);
	int i;

	for (i = 0; i < 3; i++)
		sim_class(sim, i + 1, 400000, 0, 1);
	sim_class(sim, 4, 0, 0, 1);
	sim_class(sim, 5, 0, 0, 1);
	sim_run(test, sim, 20 * NSEC_PER_SEC, 0);
	for (i = 0; i < 3; i++)
		expect_rate(test, sim, i, 20 * NSEC_PER_SEC, 400000, 1);
	KUNIT_EXPECT_EQ(test, sim->bytes[3], 0);
	KUNIT_EXPECT_EQ(test, sim->bytes[4], 0);
}

/* what the guarantees leave goes to the highest priority that wants it */
static void sched_lends_by_priority(struct kunit *test)
{
	struct sim *sim = sim_new(test, 5000000, false);
	int i;

	for (i = 0; i < 5; i++)
		sim_class(sim, i + 1, 400000, 0, 1);
	sim_run(test, sim, 10 * NSEC_PER_SEC, 0);
	expect_rate(test, sim, 0, 10 * NSEC_PER_SEC, 3400000, 1);
	for (i = 1; i < 5; i++)
		expect_rate(test, sim, i, 10 * NSEC_PER_SEC, 400000, 1);
}

/* share weighted: the spare goes by weight alone, whatever the priority */
static void sched_lends_by_weight(struct kunit *test)
{
	struct sim *sim = sim_new(test, 5000000, true);
	int i;

	for (i = 0; i < 5; i++)
		sim_class(sim, i + 1, 400000, 0, i + 1);
	sim_run(test, sim, 20 * NSEC_PER_SEC, 0);
	/* 3 Mbit/s spare over weights 1..5 (sum 15) */
	for (i = 0; i < 5; i++)
		expect_rate(test, sim, i, 20 * NSEC_PER_SEC, 400000 + 200000 * (i + 1), 2);
}

/* equal priorities share the spare by weight too */
static void sched_equal_prio_by_weight(struct kunit *test)
{
	struct sim *sim = sim_new(test, 4000000, false);

	sim_class(sim, 3, 0, 0, 1);
	sim_class(sim, 3, 0, 0, 3);
	sim_run(test, sim, 20 * NSEC_PER_SEC, 0);
	expect_rate(test, sim, 0, 20 * NSEC_PER_SEC, 1000000, 2);
	expect_rate(test, sim, 1, 20 * NSEC_PER_SEC, 3000000, 2);
}

/* a ceil caps a class; what it cannot take goes to the next */
static void sched_ceil(struct kunit *test)
{
	struct sim *sim = sim_new(test, 5000000, false);

	sim_class(sim, 1, 400000, 1000000, 1);
	sim_class(sim, 2, 400000, 0, 1);
	sim_run(test, sim, 10 * NSEC_PER_SEC, 0);
	expect_rate(test, sim, 0, 10 * NSEC_PER_SEC, 1000000, 1);
	expect_rate(test, sim, 1, 10 * NSEC_PER_SEC, 4000000, 1);
}

/* pq mode (no guarantees): strict priority under W */
static void sched_strict_priority(struct kunit *test)
{
	struct sim *sim = sim_new(test, 2000000, false);

	sim_class(sim, 2, 0, 0, 1);
	sim_class(sim, 1, 0, 0, 1);
	sim_run(test, sim, 5 * NSEC_PER_SEC, 0);
	KUNIT_EXPECT_EQ(test, sim->bytes[0], 0);
	expect_rate(test, sim, 1, 5 * NSEC_PER_SEC, 2000000, 1);
}

/* no cap: the device paces; guarantees still come first */
static void sched_no_cap(struct kunit *test)
{
	struct sim *sim = sim_new(test, 0, false);

	/* 12 Mbit/s device: 1500 bytes take 1 ms */
	sim_class(sim, 5, 6000000, 0, 1);
	sim_class(sim, 1, 0, 0, 1);
	sim_run(test, sim, 10 * NSEC_PER_SEC, NSEC_PER_MSEC);
	expect_rate(test, sim, 0, 10 * NSEC_PER_SEC, 6000000, 1);
	expect_rate(test, sim, 1, 10 * NSEC_PER_SEC, 6000000, 1);
}

/*
 * Deficit round robin with packets much larger than the quanta (GSO up to
 * 64 KB against one MTU per weight): the classes take the same turns as in
 * a plain DRR, which hands out one quantum at a time, and no choice hands
 * out more than two rounds of quanta one by one, however far behind the
 * classes are.
 */
static void sched_lend_large_packets(struct kunit *test)
{
	struct sim *sim = sim_new(test, 0, true);
	struct { s64 credit; u32 quantum; } ref[8];
	int order[8], i, j, k;
	u64 turns, most = 0, ref_turns = 0;
	u32 seed = 1;

	for (i = 0; i < 8; i++) {
		struct er2bc_node *n = sim_class(sim, i + 1, 0, 0, i % 3 ? 1 : 4);

		er2bc_sched_activate(&sim->s, n, sim->now);
		ref[i].credit = n->credit;
		ref[i].quantum = n->quantum;
		order[i] = i;
	}
	for (k = 0; k < 20000; k++) {
		struct er2bc_node *n;
		u64 wake = 0;
		u32 len;

		seed = seed * 1103515245 + 12345;
		len = 64 + (seed >> 8) % (65536 - 64 + 1);

		/* the plain DRR: one quantum, one move to the tail, a turn */
		while (ref[order[0]].credit <= 0) {
			i = order[0];
			ref[i].credit += ref[i].quantum;
			ref_turns++;
			for (j = 0; j < 7; j++)
				order[j] = order[j + 1];
			order[7] = i;
		}
		i = order[0];
		ref[i].credit -= len;

		turns = sim->s.lend_turns;
		n = er2bc_sched_next(&sim->s, sim->now, &wake);
		KUNIT_ASSERT_NOT_NULL(test, n);
		KUNIT_ASSERT_EQ_MSG(test, n - sim->n, i, "choice %d", k);
		most = max(most, sim->s.lend_turns - turns);
		er2bc_sched_charge(&sim->s, n, len, sim->now, true);
	}
	KUNIT_EXPECT_LE(test, most, 2 * 8);
	/* the same quanta in all, some of them in skipped rounds */
	KUNIT_EXPECT_GT(test, sim->s.lend_rounds, 0);
	KUNIT_EXPECT_EQ(test, sim->s.lend_turns + 8 * sim->s.lend_rounds, ref_turns);
}

/* the extremes of rate: 8 kbit/s and 100 Gbit/s, alone at their ceil */
static void sched_extreme_rates(struct kunit *test)
{
	struct sim *sim = sim_new(test, 0, false);

	sim_class(sim, 1, 8000, 8000, 1);
	sim_run(test, sim, 300 * NSEC_PER_SEC, 0);
	/* 300 s at 8 kbit/s: 300 kB, 200 packets, plus the ceil's burst */
	KUNIT_EXPECT_GE(test, sim->bytes[0], 300000);
	KUNIT_EXPECT_LE(test, sim->bytes[0], 300000 + 2 * MTU + PKT);

	/* 10 ms at 100 Gbit/s: 83333 packets */
	sim = sim_new(test, 100000000000ULL, false);
	sim_class(sim, 1, 100000000000ULL, 100000000000ULL, 1);
	sim_run(test, sim, 10 * NSEC_PER_MSEC, 0);
	expect_rate(test, sim, 0, 10 * NSEC_PER_MSEC, 100000000000ULL, 1);
}

/* states: GUARANTEED, then BORROWING past its guarantee, HELD at its ceil */
static void sched_states(struct kunit *test)
{
	struct sim *sim = sim_new(test, 0, false);
	struct er2bc_node *n = sim_class(sim, 1, 1200000, 2400000, 1);
	u64 wake, t0 = sim->now;

	/* idle: nothing to choose, and nothing to wait for */
	KUNIT_EXPECT_NULL(test, er2bc_sched_next(&sim->s, t0, &wake));
	KUNIT_EXPECT_EQ(test, wake, U64_MAX);

	er2bc_sched_activate(&sim->s, n, t0);
	er2bc_sched_activate(&sim->s, n, t0);	/* idempotent */
	KUNIT_EXPECT_EQ(test, sim->s.active, 1);
	KUNIT_EXPECT_EQ(test, n->state, ER2BC_STATE_GUARANTEED);
	KUNIT_EXPECT_PTR_EQ(test, er2bc_sched_next(&sim->s, t0, &wake), n);

	/* as if it had sent past both clocks: held by its ceil until 5 ms */
	n->g.next = t0 + 10 * NSEC_PER_MSEC;
	n->c.next = t0 + 5 * NSEC_PER_MSEC;
	er2bc_sched_replace(&sim->s, n, t0);
	KUNIT_EXPECT_EQ(test, n->state, ER2BC_STATE_HELD);
	KUNIT_EXPECT_NULL(test, er2bc_sched_next(&sim->s, t0, &wake));
	KUNIT_EXPECT_EQ(test, wake, t0 + 5 * NSEC_PER_MSEC);
	/* not a nanosecond early */
	KUNIT_EXPECT_NULL(test, er2bc_sched_next(&sim->s, wake - 1, &wake));
	KUNIT_EXPECT_PTR_EQ(test, er2bc_sched_next(&sim->s, t0 + 5 * NSEC_PER_MSEC, &wake), n);
	KUNIT_EXPECT_EQ(test, n->state, ER2BC_STATE_BORROWING);
	/* borrowing does not move the guarantee clock */
	er2bc_sched_charge(&sim->s, n, 100, t0 + 5 * NSEC_PER_MSEC, true);
	KUNIT_EXPECT_EQ(test, n->g.next, t0 + 10 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, n->bytes_borrowed, 100);
	/* its guarantee clock comes due: GUARANTEED again */
	KUNIT_EXPECT_PTR_EQ(test, er2bc_sched_next(&sim->s, t0 + 10 * NSEC_PER_MSEC, &wake), n);
	KUNIT_EXPECT_EQ(test, n->state, ER2BC_STATE_GUARANTEED);

	er2bc_sched_deactivate(&sim->s, n);
	er2bc_sched_deactivate(&sim->s, n);	/* idempotent */
	KUNIT_EXPECT_EQ(test, sim->s.active, 0);
	KUNIT_EXPECT_EQ(test, n->state, ER2BC_STATE_IDLE);
	KUNIT_EXPECT_NULL(test, er2bc_sched_next(&sim->s, t0 + NSEC_PER_SEC, &wake));
	KUNIT_EXPECT_EQ(test, wake, U64_MAX);
}

/*
 * Lazily idle classes and activation: a class that empties stays on its
 * guaranteed list; refilled at once, it is GUARANTEED again where it
 * stands; a class on no list takes the place of a lazily idle class alone
 * on its list, or else joins the tail, behind idle ones that leave as the
 * scheduler meets them; a lazily idle class with an active class behind it
 * goes to the tail; and one whose guarantee clock is not due borrows.
 */
static void sched_lazy_idle(struct kunit *test)
{
	struct sim *sim = sim_new(test, 0, false);
	struct er2bc_node *a = sim_class(sim, 1, 1000000000, 0, 1);
	struct er2bc_node *b = sim_class(sim, 1, 1000000000, 0, 1);
	struct er2bc_node *c = sim_class(sim, 1, 1000000000, 0, 1);
	struct list_head *head = &sim->s.guaranteed[0];
	u64 wake, t = sim->now;

	er2bc_sched_activate(&sim->s, a, t);
	KUNIT_EXPECT_PTR_EQ(test, er2bc_sched_next(&sim->s, t, &wake), a);
	er2bc_sched_charge(&sim->s, a, PKT, t, false);
	KUNIT_EXPECT_EQ(test, a->state, ER2BC_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, sim->s.active, 0);
	KUNIT_EXPECT_TRUE(test, list_is_last(&a->glist, head));

	/* refilled: GUARANTEED where it stands */
	er2bc_sched_activate(&sim->s, a, t);
	KUNIT_EXPECT_EQ(test, a->state, ER2BC_STATE_GUARANTEED);
	KUNIT_EXPECT_EQ(test, sim->s.active, 1);
	KUNIT_EXPECT_TRUE(test, list_is_singular(head));
	KUNIT_EXPECT_PTR_EQ(test, er2bc_sched_next(&sim->s, t, &wake), a);
	er2bc_sched_charge(&sim->s, a, PKT, t, false);

	/* b takes the place of idle a, alone on the list */
	er2bc_sched_activate(&sim->s, b, t);
	KUNIT_EXPECT_EQ(test, b->state, ER2BC_STATE_GUARANTEED);
	KUNIT_EXPECT_TRUE(test, list_is_singular(head));
	KUNIT_EXPECT_PTR_EQ(test, head->next, &b->glist);
	KUNIT_EXPECT_TRUE(test, list_empty(&a->glist));
	KUNIT_EXPECT_EQ(test, sim->s.guaranteed_map, 1);
	KUNIT_EXPECT_PTR_EQ(test, er2bc_sched_next(&sim->s, t, &wake), b);
	er2bc_sched_charge(&sim->s, b, PKT, t, true);

	/* c joins behind active b; a behind c and idle b, which leaves */
	er2bc_sched_activate(&sim->s, c, t);
	KUNIT_EXPECT_TRUE(test, list_is_last(&c->glist, head));
	KUNIT_EXPECT_PTR_EQ(test, er2bc_sched_next(&sim->s, t, &wake), b);
	er2bc_sched_charge(&sim->s, b, PKT, t, false);
	er2bc_sched_activate(&sim->s, a, t);
	KUNIT_EXPECT_PTR_EQ(test, head->next, &b->glist);
	KUNIT_EXPECT_TRUE(test, list_is_last(&a->glist, head));
	KUNIT_EXPECT_PTR_EQ(test, er2bc_sched_next(&sim->s, t, &wake), c);
	KUNIT_EXPECT_TRUE(test, list_empty(&b->glist));

	/* lazily idle c, with active a behind it, refilled: to the tail */
	er2bc_sched_charge(&sim->s, c, PKT, t, false);
	er2bc_sched_activate(&sim->s, c, t);
	KUNIT_EXPECT_EQ(test, sim->s.active, 2);
	KUNIT_EXPECT_PTR_EQ(test, head->next, &a->glist);
	KUNIT_EXPECT_TRUE(test, list_is_last(&c->glist, head));
	KUNIT_EXPECT_PTR_EQ(test, er2bc_sched_next(&sim->s, t, &wake), a);
	er2bc_sched_charge(&sim->s, a, PKT, t, false);
	KUNIT_EXPECT_PTR_EQ(test, er2bc_sched_next(&sim->s, t, &wake), c);
	er2bc_sched_charge(&sim->s, c, PKT, t, false);
	KUNIT_EXPECT_EQ(test, sim->s.active, 0);

	/* guarantee clock not due: a borrows, off the guaranteed list */
	a->g.next = t + NSEC_PER_MSEC;
	er2bc_sched_activate(&sim->s, a, t);
	KUNIT_EXPECT_EQ(test, a->state, ER2BC_STATE_BORROWING);
	KUNIT_EXPECT_TRUE(test, list_empty(&a->glist));
	KUNIT_EXPECT_PTR_EQ(test, er2bc_sched_next(&sim->s, t, &wake), a);
	KUNIT_EXPECT_EQ(test, sim->s.guaranteed_map, 0);
	er2bc_sched_deactivate(&sim->s, a);
	er2bc_sched_deactivate(&sim->s, b);
	er2bc_sched_deactivate(&sim->s, c);
	KUNIT_EXPECT_TRUE(test, list_empty(head));
	KUNIT_EXPECT_EQ(test, sim->s.active, 0);
}

/*
 * The timing wheel, at every scale: a class held until a time from 1 us to
 * beyond the wheel's 78 h horizon is released exactly then, whatever the
 * steps the clock takes to get there (one jump, or many wake-ups).
 */
static void sched_wheel_times(struct kunit *test)
{
	static const u64 delays[] = {
		1, 999, 4096, 4097, 262143, 262144, 300000, 16777216,
		NSEC_PER_SEC, 68 * NSEC_PER_SEC, 3600 * NSEC_PER_SEC,
		100ULL * 3600 * NSEC_PER_SEC,	/* past the horizon */
	};
	int i, jump;

	for (i = 0; i < ARRAY_SIZE(delays); i++) {
		for (jump = 0; jump < 2; jump++) {
			struct sim *sim = sim_new(test, 0, false);
			struct er2bc_node *n = sim_class(sim, 1, 0, 1000, 1);
			u64 due = sim->now + delays[i], wake = 0, t = sim->now;
			int wakeups = 0;

			n->c.next = due;
			er2bc_sched_activate(&sim->s, n, t);
			KUNIT_EXPECT_EQ(test, n->state, ER2BC_STATE_HELD);
			if (jump) {
				/* one step to just before, one to the time */
				KUNIT_EXPECT_NULL(test, er2bc_sched_next(&sim->s, due - 1, &wake));
				t = due;
			} else {
				/* follow the wake-ups the scheduler asks for */
				while (!er2bc_sched_next(&sim->s, t, &wake)) {
					KUNIT_ASSERT_LE(test, wake, due);
					KUNIT_ASSERT_GT(test, wake, t);
					KUNIT_ASSERT_LT(test, ++wakeups, 16);
					t = wake;
				}
				KUNIT_EXPECT_EQ_MSG(test, t, due, "delay %llu", delays[i]);
			}
			KUNIT_EXPECT_PTR_EQ_MSG(test, er2bc_sched_next(&sim->s, t, &wake), n,
						"delay %llu jump %d", delays[i], jump);
			KUNIT_EXPECT_EQ(test, n->state, ER2BC_STATE_BORROWING);
		}
	}
}

/* many classes waiting at once on the wheel come back in time order */
static void sched_wheel_many(struct kunit *test)
{
	struct er2bc_sched *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct er2bc_node *n = kunit_kcalloc(test, 4096, sizeof(*n), GFP_KERNEL);
	u64 t0 = 5 * NSEC_PER_SEC, t, wake, last = 0;
	int i, seen = 0;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, n);
	er2bc_sched_init(s);
	for (i = 0; i < 4096; i++) {
		er2bc_node_init(&n[i]);
		n[i].prio = i % ER2BC_NPRIO;
		n[i].quantum = MTU;
		er2bc_clock_set(&n[i].c, 1000000, MTU, t0);
		/* spread from 1 us to about 2 minutes, in a scrambled order */
		n[i].c.next = t0 + 1000 + (u64)((i * 2654435761U) % 4096) * 29 * NSEC_PER_MSEC;
		er2bc_sched_activate(s, &n[i], t0);
	}
	t = t0;
	while (seen < 4096) {
		struct er2bc_node *got = er2bc_sched_next(s, t, &wake);

		if (!got) {
			KUNIT_ASSERT_NE(test, wake, U64_MAX);
			t = wake;
			continue;
		}
		/* released not before its time, and not before an earlier one */
		KUNIT_ASSERT_LE(test, got->c.next, t);
		KUNIT_ASSERT_GE(test, got->c.next, last);
		last = got->c.next;
		er2bc_sched_deactivate(s, got);
		seen++;
	}
	KUNIT_EXPECT_EQ(test, s->active, 0);
	KUNIT_EXPECT_EQ(test, s->wheel.count, 0);
}

/*
 * A backlogged class moved to another priority, whether sending within its
 * guarantee or borrowing, leaves nothing of itself at the old one: no
 * bit set over an empty list, which would hand out the list head as a class.
 */
static void sched_prio_change_active(struct kunit *test)
{
	struct sim *sim = sim_new(test, 0, false);
	struct er2bc_node *n = sim_class(sim, 2, 1000000, 0, 1);
	u64 wake;

	er2bc_sched_activate(&sim->s, n, sim->now);
	KUNIT_ASSERT_EQ(test, n->state, ER2BC_STATE_GUARANTEED);
	KUNIT_EXPECT_EQ(test, sim->s.guaranteed_map, BIT_ULL(1));
	er2bc_sched_move(&sim->s, n, 0, false, sim->now);
	KUNIT_EXPECT_EQ(test, sim->s.guaranteed_map, BIT_ULL(0));
	KUNIT_EXPECT_PTR_EQ(test, er2bc_sched_next(&sim->s, sim->now, &wake), n);

	/* spend the guarantee: it borrows, on the list of its priority */
	while (n->state == ER2BC_STATE_GUARANTEED)
		er2bc_sched_charge(&sim->s, n, PKT, sim->now, true);
	KUNIT_ASSERT_EQ(test, n->state, ER2BC_STATE_BORROWING);
	KUNIT_EXPECT_EQ(test, sim->s.borrowing_map, BIT_ULL(0));
	er2bc_sched_move(&sim->s, n, 5, false, sim->now);
	KUNIT_EXPECT_EQ(test, sim->s.guaranteed_map, 0);
	KUNIT_EXPECT_EQ(test, sim->s.borrowing_map, BIT_ULL(5));
	KUNIT_EXPECT_PTR_EQ(test, er2bc_sched_next(&sim->s, sim->now, &wake), n);

	er2bc_sched_deactivate(&sim->s, n);
	KUNIT_EXPECT_EQ(test, sim->s.guaranteed_map, 0);
	KUNIT_EXPECT_EQ(test, sim->s.borrowing_map, 0);
	KUNIT_EXPECT_EQ(test, sim->s.wheel.count, 0);

	/* idle, the priority just changes */
	er2bc_sched_move(&sim->s, n, 3, false, sim->now);
	KUNIT_EXPECT_EQ(test, n->prio, 3);
	KUNIT_EXPECT_EQ(test, sim->s.active, 0);
}

/* a clock charged at time 0 with a burst does not wrap below zero */
static void sched_clock_at_zero(struct kunit *test)
{
	struct er2bc_clock c = {};

	er2bc_clock_set(&c, 12000000, 3000, 0);
	er2bc_clock_charge(&c, 1500, 0);
	KUNIT_EXPECT_EQ(test, c.next, 1000000);
	/* idle long: it falls at most a burst (2 ms) behind */
	er2bc_clock_charge(&c, 1500, 100 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, c.next, 98 * NSEC_PER_MSEC + 1000000);
}

/* guarantees, mode by mode, as W shrinks */
static void guarantee_modes(struct kunit *test)
{
	static const u64 rates[] = { 400000, 400000, 400000, 400000, 400000 };
	static const struct {
		enum er2bc_mode mode;
		u64 cap;
		u64 want[5];
	} cases[] = {
		{ ER2BC_MODE_STATIC, 5000000, { 400000, 400000, 400000, 400000, 400000 } },
		{ ER2BC_MODE_STATIC, 1000000, { 400000, 400000, 0, 0, 0 } },
		{ ER2BC_MODE_ER2BC, 1000000, { 400000, 400000, 200000, 0, 0 } },
		{ ER2BC_MODE_ER2BC, 0, { 400000, 400000, 400000, 400000, 400000 } },
		{ ER2BC_MODE_STATIC, 0, { 400000, 400000, 400000, 400000, 400000 } },
		{ ER2BC_MODE_PQ, 5000000, { 0, 0, 0, 0, 0 } },
		{ ER2BC_MODE_ER2BC, 300000, { 300000, 0, 0, 0, 0 } },
	};
	int i, j;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct er2bc_fill f;

		er2bc_fill_start(&f, cases[i].mode, cases[i].cap);
		for (j = 0; j < 5; j++)
			KUNIT_EXPECT_EQ_MSG(test, er2bc_fill_next(&f, rates[j], 0),
					    cases[i].want[j], "case %d class %d", i, j);
	}
}

/* static mode stops at the first class that does not fit */
static void guarantee_static_stops(struct kunit *test)
{
	struct er2bc_fill f;

	er2bc_fill_start(&f, ER2BC_MODE_STATIC, 1000000);
	KUNIT_EXPECT_EQ(test, er2bc_fill_next(&f, 900000, 0), 900000);
	KUNIT_EXPECT_EQ(test, er2bc_fill_next(&f, 200000, 0), 0);
	/* would fit in what is left, but comes after one that did not */
	KUNIT_EXPECT_EQ(test, er2bc_fill_next(&f, 50000, 0), 0);
}

/* never above the ceil; 64-bit rates do not overflow */
static void guarantee_ceil_and_range(struct kunit *test)
{
	struct er2bc_fill f;

	er2bc_fill_start(&f, ER2BC_MODE_ER2BC, 0);
	KUNIT_EXPECT_EQ(test, er2bc_fill_next(&f, 800000, 500000), 500000);

	er2bc_fill_start(&f, ER2BC_MODE_ER2BC, 100000000000ULL);
	KUNIT_EXPECT_EQ(test, er2bc_fill_next(&f, 60000000000ULL, 0), 60000000000ULL);
	KUNIT_EXPECT_EQ(test, er2bc_fill_next(&f, 60000000000ULL, 0), 40000000000ULL);
	KUNIT_EXPECT_EQ(test, er2bc_fill_next(&f, U64_MAX, 0), 0);

	er2bc_fill_start(&f, ER2BC_MODE_STATIC, U64_MAX - 1);
	KUNIT_EXPECT_EQ(test, er2bc_fill_next(&f, U64_MAX - 2, 0), U64_MAX - 2);
	KUNIT_EXPECT_EQ(test, er2bc_fill_next(&f, 2, 0), 0);
}

/*
 * A scavenger is lent to after every other class, whatever its priority:
 * only what a class at its ceil leaves, nothing beside a greedy one
 */
static void sched_scavenger_last(struct kunit *test)
{
	struct sim *sim = sim_new(test, 5000000, false);
	struct er2bc_node *scav;

	sim_class(sim, 2, 400000, 1000000, 1);
	scav = sim_class(sim, 1, 0, 0, 1);
	scav->scavenger = true;
	sim_run(test, sim, 10 * NSEC_PER_SEC, 0);
	expect_rate(test, sim, 0, 10 * NSEC_PER_SEC, 1000000, 1);
	expect_rate(test, sim, 1, 10 * NSEC_PER_SEC, 4000000, 1);

	sim = sim_new(test, 5000000, false);
	sim_class(sim, 5, 0, 0, 1);
	scav = sim_class(sim, 1, 0, 0, 1);
	scav->scavenger = true;
	sim_run(test, sim, 10 * NSEC_PER_SEC, 0);
	expect_rate(test, sim, 0, 10 * NSEC_PER_SEC, 5000000, 1);
	KUNIT_EXPECT_EQ(test, sim->bytes[1], 0);
}

/*
 * yield_until holds scavengers back, and only them: the scheduler asks to
 * be woken when it ends, then lends again
 */
static void sched_scavenger_yield(struct kunit *test)
{
	struct sim *sim = sim_new(test, 5000000, false);
	struct er2bc_node *scav;
	u64 wake = 0, until;

	scav = sim_class(sim, 1, 0, 0, 1);
	scav->scavenger = true;
	until = sim->now + 2 * NSEC_PER_SEC;
	sim->s.yield_until = until;
	er2bc_sched_activate(&sim->s, scav, sim->now);
	KUNIT_EXPECT_NULL(test, er2bc_sched_next(&sim->s, sim->now, &wake));
	KUNIT_EXPECT_EQ(test, wake, until);
	KUNIT_EXPECT_EQ(test, sim->s.yielded, 1);
	KUNIT_EXPECT_EQ(test, scav->state, ER2BC_STATE_BORROWING);
	/* 2 s held, then 2 s at the cap */
	sim_run(test, sim, 4 * NSEC_PER_SEC, 0);
	expect_rate(test, sim, 0, 4 * NSEC_PER_SEC, 2500000, 1);

	/* a class that is not a scavenger is not held */
	sim = sim_new(test, 5000000, false);
	sim_class(sim, 64, 0, 0, 1);
	sim->s.yield_until = sim->now + 10 * NSEC_PER_SEC;
	sim_run(test, sim, 4 * NSEC_PER_SEC, 0);
	expect_rate(test, sim, 0, 4 * NSEC_PER_SEC, 5000000, 1);
	KUNIT_EXPECT_EQ(test, sim->s.yielded, 0);
}

/*
 * held: the time the cap kept a backlog waiting. A greedy aggregate at the
 * cap is held nearly all the time; one that its own ceil keeps below the
 * cap, or with no cap, never; a spell ended stays counted
 */
static void sched_held(struct kunit *test)
{
	struct sim *sim = sim_new(test, 5000000, false);
	u64 start = sim->now, held, wake;

	sim_class(sim, 1, 0, 0, 1);
	sim_run(test, sim, 4 * NSEC_PER_SEC, 0);
	held = er2bc_sched_held(&sim->s, sim->now);
	KUNIT_EXPECT_GE(test, held, (sim->now - start) / 100 * 99);
	KUNIT_EXPECT_LE(test, held, sim->now - start);
	/* the spell goes on until a dequeue the cap lets through */
	KUNIT_EXPECT_TRUE(test, sim->s.holding);
	KUNIT_EXPECT_EQ(test, er2bc_sched_held(&sim->s, sim->now + 1000), held + 1000);
	er2bc_sched_unhold(&sim->s, sim->now + 1000);
	KUNIT_EXPECT_FALSE(test, sim->s.holding);
	KUNIT_EXPECT_EQ(test, er2bc_sched_held(&sim->s, sim->now + 5000), held + 1000);
	er2bc_sched_unhold(&sim->s, sim->now + 9000);
	KUNIT_EXPECT_EQ(test, er2bc_sched_held(&sim->s, sim->now + 9000), held + 1000);

	/*
	 * a class at its own ceil of 2 Mbit/s under a 5 Mbit/s cap: held
	 * only while both bursts go out at the start, one packet's time
	 */
	sim = sim_new(test, 5000000, false);
	sim_class(sim, 1, 0, 2000000, 1);
	sim_run(test, sim, 4 * NSEC_PER_SEC, 0);
	expect_rate(test, sim, 0, 4 * NSEC_PER_SEC, 2000000, 1);
	KUNIT_EXPECT_LE(test, er2bc_sched_held(&sim->s, sim->now),
			div_u64((u64)MTU * 8 * NSEC_PER_SEC, 5000000));

	/* no cap: the device paces, nothing is held */
	sim = sim_new(test, 0, false);
	sim_class(sim, 1, 0, 0, 1);
	sim_run(test, sim, NSEC_PER_SEC, 100000);
	KUNIT_EXPECT_EQ(test, er2bc_sched_held(&sim->s, sim->now), 0);
	KUNIT_EXPECT_NOT_NULL(test, er2bc_sched_next(&sim->s, sim->now, &wake));
	KUNIT_EXPECT_FALSE(test, sim->s.holding);
}

/* a backlogged class made a scavenger, and back, changes its lending round */
static void sched_scavenger_change_active(struct kunit *test)
{
	struct sim *sim = sim_new(test, 5000000, false);
	struct er2bc_node *a, *b;

	a = sim_class(sim, 1, 0, 0, 1);
	b = sim_class(sim, 2, 0, 0, 1);
	sim_run(test, sim, NSEC_PER_SEC, 0);
	expect_rate(test, sim, 0, NSEC_PER_SEC, 5000000, 1);
	er2bc_sched_move(&sim->s, a, a->prio, true, sim->now);
	KUNIT_EXPECT_TRUE(test, a->scavenger);
	sim_run(test, sim, NSEC_PER_SEC, 0);
	KUNIT_EXPECT_EQ(test, sim->bytes[0], 0);
	expect_rate(test, sim, 1, NSEC_PER_SEC, 5000000, 1);
	/* both leave: no list keeps a node that is gone */
	er2bc_sched_deactivate(&sim->s, a);
	er2bc_sched_deactivate(&sim->s, b);
	KUNIT_EXPECT_TRUE(test, list_empty(&sim->s.scavenging));
	KUNIT_EXPECT_EQ(test, sim->s.borrowing_map, 0);
	er2bc_sched_move(&sim->s, a, a->prio, false, sim->now);
	sim_run(test, sim, NSEC_PER_SEC, 0);
	expect_rate(test, sim, 0, NSEC_PER_SEC, 5000000, 1);
	KUNIT_EXPECT_EQ(test, sim->bytes[1], 0);
}

/*
 * Shortage (er2bc_short_*): a class sending PKT-byte packets from @start for
 * @ns, one every @gap_ns, always backlogged (@backlogged) or each packet
 * leaving at once into an empty queue
 */
#define NEED	1200000ULL	/* R_f: a PKT every 10 ms */

static u64 short_feed(struct er2bc_short *sh, u64 start, u64 ns, u64 gap_ns,
		      bool backlogged)
{
	u64 t;

	for (t = start; t < start + ns; t += gap_ns) {
		if (!backlogged)
			er2bc_short_busy(sh, t);
		/* (served at once: a packet's time at 1 Gbit/s) */
		er2bc_short_sent(sh, PKT, backlogged ? t : t + 12 * NSEC_PER_USEC,
				 backlogged);
	}
	return t;
}

/*
 * served at R_f while backlogged, or within the slack, or asking less and
 * served at once: none; 5 % below R_f: short, the whole time
 */
static void short_none_when_served(struct kunit *test)
{
	struct er2bc_short sh;
	u64 t = 1000 * NSEC_PER_SEC, t0;

	er2bc_short_init(&sh, NEED, t);
	er2bc_short_busy(&sh, t);
	t = short_feed(&sh, t, 5 * NSEC_PER_SEC, 10 * NSEC_PER_MSEC, true);
	KUNIT_EXPECT_EQ(test, er2bc_short_read(&sh, t), 0);
	/* 2 % below R_f: within the slack, not short */
	t = short_feed(&sh, t, 5 * NSEC_PER_SEC, 10204 * NSEC_PER_USEC, true);
	KUNIT_EXPECT_EQ(test, er2bc_short_read(&sh, t), 0);
	/* 5 % below, from a window of its own: short, the whole time */
	er2bc_short_init(&sh, NEED, t);
	er2bc_short_busy(&sh, t);
	t0 = t;
	t = short_feed(&sh, t, 5 * NSEC_PER_SEC, 10527 * NSEC_PER_USEC, true);
	KUNIT_EXPECT_EQ(test, er2bc_short_read(&sh, t), t - t0);
	/* a tenth of R_f, each packet sent as it comes: not short either */
	er2bc_short_init(&sh, NEED, t);
	t = short_feed(&sh, t, 5 * NSEC_PER_SEC, 100 * NSEC_PER_MSEC, false);
	KUNIT_EXPECT_EQ(test, er2bc_short_read(&sh, t), 0);
}

/* backlogged and served at half R_f for 3 s: short for those 3 s */
static void short_half_rate(struct kunit *test)
{
	struct er2bc_short sh;
	u64 t0 = 1000 * NSEC_PER_SEC, t;

	er2bc_short_init(&sh, NEED, t0);
	er2bc_short_busy(&sh, t0);
	t = short_feed(&sh, t0, 3 * NSEC_PER_SEC, 20 * NSEC_PER_MSEC, true);
	KUNIT_EXPECT_EQ(test, er2bc_short_read(&sh, t), t - t0);
	/* then served at R_f for 2 s: no more */
	t = short_feed(&sh, t, 2 * NSEC_PER_SEC, 10 * NSEC_PER_MSEC, true);
	KUNIT_EXPECT_EQ(test, er2bc_short_read(&sh, t), 3 * NSEC_PER_SEC);
}

/*
 * starved: backlogged, nothing sent for 5 s, so no event ends a window:
 * the reader's does; an open window is never counted, so a class that
 * waited 40 ms and was then served at twice R_f is never short, and the
 * total never goes down
 */
static void short_starved(struct kunit *test)
{
	struct er2bc_short sh;
	u64 t0 = 1000 * NSEC_PER_SEC, t;

	er2bc_short_init(&sh, NEED, t0);
	er2bc_short_busy(&sh, t0);
	KUNIT_EXPECT_EQ(test, er2bc_short_read(&sh, t0 + 40 * NSEC_PER_MSEC), 0);
	KUNIT_EXPECT_EQ(test, er2bc_short_read(&sh, t0 + 5 * NSEC_PER_SEC), 5 * NSEC_PER_SEC);
	er2bc_short_sent(&sh, PKT, t0 + 5 * NSEC_PER_SEC, false);
	KUNIT_EXPECT_EQ(test, er2bc_short_read(&sh, t0 + 65 * NSEC_PER_SEC), 5 * NSEC_PER_SEC);

	er2bc_short_init(&sh, NEED, t0);
	er2bc_short_busy(&sh, t0);
	KUNIT_EXPECT_EQ(test, er2bc_short_read(&sh, t0 + 40 * NSEC_PER_MSEC), 0);
	t = short_feed(&sh, t0 + 40 * NSEC_PER_MSEC, 2 * NSEC_PER_SEC, 5 * NSEC_PER_MSEC, true);
	KUNIT_EXPECT_EQ(test, er2bc_short_read(&sh, t), 0);
}

/* no R_f, or a clock read before the window began: nothing, no wrap */
static void short_edges(struct kunit *test)
{
	struct er2bc_short sh;
	u64 t0 = 1000 * NSEC_PER_SEC, t;

	er2bc_short_init(&sh, 0, t0);
	er2bc_short_busy(&sh, t0);
	KUNIT_EXPECT_EQ(test, er2bc_short_read(&sh, t0 + 5 * NSEC_PER_SEC), 0);
	/* R_f set while starved: judged from then on, against the new R_f */
	er2bc_short_set_need(&sh, NEED, t0 + 5 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, sh.total_ns, 0);
	KUNIT_EXPECT_EQ(test, er2bc_short_read(&sh, t0 + 7 * NSEC_PER_SEC), 2 * NSEC_PER_SEC);
	/* a clock behind the window's start (the scheduler's, not read anew) */
	er2bc_short_init(&sh, NEED, t0);
	er2bc_short_busy(&sh, t0 - 3 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, sh.busy_since, t0);
	t = short_feed(&sh, t0, NSEC_PER_SEC, 10 * NSEC_PER_MSEC, true);
	KUNIT_EXPECT_EQ(test, er2bc_short_read(&sh, t), 0);
	/* the highest rates: no overflow in the rate got */
	er2bc_short_init(&sh, U64_MAX / 2, t0);
	er2bc_short_busy(&sh, t0);
	KUNIT_EXPECT_EQ(test, er2bc_short_read(&sh, t0 + 100000 * NSEC_PER_SEC),
			100000 * NSEC_PER_SEC);
}

/*
 * The latency bound (er2bc_latency_*): a class sending PKT-byte packets
 * from @start for @ns, one every @gap_ns, backlogged after each
 */
#define TARGET	(100 * NSEC_PER_MSEC)

static u64 latency_feed(struct er2bc_latency *l, u64 start, u64 ns, u64 gap_ns)
{
	u64 t;

	for (t = start; t < start + ns; t += gap_ns)
		er2bc_latency_sent(l, PKT, t, true);
	return t - gap_ns;
}

/* nothing measured: the bound at the ceil or W, within the floor; none */
static void latency_unmeasured(struct kunit *test)
{
	struct er2bc_latency l;

	er2bc_latency_init(&l);
	KUNIT_EXPECT_EQ(test, l.limit, U32_MAX);
	KUNIT_EXPECT_FALSE(test, er2bc_latency_full(&l, U32_MAX - 1));
	/* 10 Mbit/s for 100 ms: 125000 bytes */
	er2bc_latency_set(&l, TARGET, 0, 10000000);
	KUNIT_EXPECT_EQ(test, l.limit, 125000);
	KUNIT_EXPECT_FALSE(test, er2bc_latency_full(&l, 124999));
	KUNIT_EXPECT_TRUE(test, er2bc_latency_full(&l, 125000));
	/* unbounded: no target, or no rate known and no cap */
	er2bc_latency_set(&l, 0, 0, 10000000);
	KUNIT_EXPECT_EQ(test, l.limit, U32_MAX);
	er2bc_latency_set(&l, TARGET, 0, 0);
	KUNIT_EXPECT_EQ(test, l.limit, U32_MAX);
	/*
	 * nothing measured and no cap: unbounded, whatever the guarantee (the
	 * least it is served: a class that a line-rate device drains at once
	 * is not held to 100 ms at its guarantee)
	 */
	er2bc_latency_set(&l, TARGET, 2000000, 0);
	KUNIT_EXPECT_EQ(test, l.limit, U32_MAX);
	/*
	 * 10 ms at 400 kbit/s is 500 bytes: an empty class takes a packet of
	 * any size, one holding 500 bytes no more
	 */
	er2bc_latency_set(&l, 10 * NSEC_PER_MSEC, 0, 400000);
	KUNIT_EXPECT_EQ(test, l.limit, 500);
	KUNIT_EXPECT_FALSE(test, er2bc_latency_full(&l, 0));
	KUNIT_EXPECT_FALSE(test, er2bc_latency_full(&l, 499));
	KUNIT_EXPECT_TRUE(test, er2bc_latency_full(&l, 500));
	/* 1 us at 1 kbit/s is less than a byte: a byte, a packet at a time */
	er2bc_latency_set(&l, 1000, 0, 1000);
	KUNIT_EXPECT_EQ(test, l.limit, 1);
	KUNIT_EXPECT_FALSE(test, er2bc_latency_full(&l, 0));
	KUNIT_EXPECT_TRUE(test, er2bc_latency_full(&l, 1));
	/* 60 s at 1 Tbit/s is past 2^32 bytes: unbounded, not wrapped */
	er2bc_latency_set(&l, 60 * NSEC_PER_SEC, 0, 1000000000000ULL);
	KUNIT_EXPECT_EQ(test, l.limit, U32_MAX);
	/* a cap of 2^64 - 1 bit/s for 60 s: no overflow (x86 would fault) */
	er2bc_latency_set(&l, 60 * NSEC_PER_SEC, U64_MAX, U64_MAX);
	KUNIT_EXPECT_EQ(test, l.limit, U32_MAX);
	er2bc_latency_set(&l, 1000, 0, U64_MAX);
	KUNIT_EXPECT_EQ(test, l.limit, U32_MAX);
}

/*
 * backlogged, a PKT every 10 ms: 1.2 Mbit/s, 15000 bytes in 100 ms from
 * the first span on (20 ms: the first packet at 16 ms or later); then a
 * PKT every 5 ms, 2.4 Mbit/s: a quarter of the way there each span
 */
static void latency_measures(struct kunit *test)
{
	struct er2bc_latency l;
	u64 t = 1000 * NSEC_PER_SEC;

	er2bc_latency_init(&l);
	er2bc_latency_set(&l, TARGET, 0, 10000000);
	er2bc_latency_sent(&l, PKT, t, true);
	er2bc_latency_sent(&l, PKT, t + 10 * NSEC_PER_MSEC, true);
	KUNIT_EXPECT_EQ(test, l.rate_bps, 0);
	KUNIT_EXPECT_EQ(test, er2bc_latency_rate(&l), 0);
	KUNIT_EXPECT_EQ(test, l.limit, 125000);
	er2bc_latency_sent(&l, PKT, t + 20 * NSEC_PER_MSEC, true);
	KUNIT_EXPECT_EQ(test, l.rate_bps, 1200000);
	KUNIT_EXPECT_EQ(test, l.limit, 15000);
	t = latency_feed(&l, t + 30 * NSEC_PER_MSEC, NSEC_PER_SEC, 10 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, l.rate_bps, 1200000);
	KUNIT_EXPECT_EQ(test, l.limit, 15000);
	/* (the span from t ends 4 packets later, 20 ms: 1.2 + 1.2 / 4) */
	latency_feed(&l, t + 5 * NSEC_PER_MSEC, 20 * NSEC_PER_MSEC, 5 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, l.rate_bps, 1500000);
	KUNIT_EXPECT_EQ(test, l.limit, 18750);
	KUNIT_EXPECT_EQ(test, er2bc_latency_rate(&l), 1500000);
	/*
	 * its guarantee above the rate measured, its cap below it: the
	 * bound and the rate reported both held there, the measurement kept
	 */
	er2bc_latency_set(&l, TARGET, 2000000, 10000000);
	KUNIT_EXPECT_EQ(test, l.limit, 25000);
	KUNIT_EXPECT_EQ(test, er2bc_latency_rate(&l), 2000000);
	er2bc_latency_set(&l, TARGET, 0, 800000);
	KUNIT_EXPECT_EQ(test, l.limit, 10000);
	KUNIT_EXPECT_EQ(test, er2bc_latency_rate(&l), 800000);
	KUNIT_EXPECT_EQ(test, l.rate_bps, 1500000);
	/* measured, no cap: its own rate, and its guarantee below it */
	er2bc_latency_set(&l, TARGET, 2000000, 0);
	KUNIT_EXPECT_EQ(test, l.limit, 25000);
	er2bc_latency_set(&l, TARGET, 0, 0);
	KUNIT_EXPECT_EQ(test, l.limit, 18750);
	KUNIT_EXPECT_EQ(test, er2bc_latency_rate(&l), 1500000);
}

/*
 * held to a packet: measured at 80 kbit/s (1000 bytes in 100 ms, less
 * than a PKT), the class can never be backlogged to measure more. A packet that
 * empties it 500 ms later ends a span, a sample of 24 kbit/s: 66 kbit/s.
 * Emptied within a second of that sample it keeps it; emptied later, the
 * measurement is forgotten and the cap's 10 Mbit/s is the bound; the next
 * span's sample is taken whole.
 */
static void latency_forgets(struct kunit *test)
{
	struct er2bc_latency l;
	u64 t = 1000 * NSEC_PER_SEC;

	er2bc_latency_init(&l);
	er2bc_latency_set(&l, TARGET, 0, 10000000);
	/* a PKT every 150 ms, backlogged: 80 kbit/s */
	er2bc_latency_sent(&l, PKT, t, true);
	er2bc_latency_sent(&l, PKT, t + 150 * NSEC_PER_MSEC, true);
	KUNIT_EXPECT_EQ(test, l.rate_bps, 80000);
	KUNIT_EXPECT_EQ(test, l.limit, 1000);
	t += 150 * NSEC_PER_MSEC;
	er2bc_latency_sent(&l, PKT, t + 500 * NSEC_PER_MSEC, false);
	KUNIT_EXPECT_EQ(test, l.rate_bps, 66000);
	KUNIT_EXPECT_EQ(test, l.limit, 825);
	KUNIT_EXPECT_EQ(test, l.span_start, 0);
	er2bc_latency_sent(&l, PKT, t + 1500 * NSEC_PER_MSEC, false);
	KUNIT_EXPECT_EQ(test, l.rate_bps, 66000);
	er2bc_latency_sent(&l, PKT, t + 1501 * NSEC_PER_MSEC, false);
	KUNIT_EXPECT_EQ(test, l.rate_bps, 0);
	KUNIT_EXPECT_EQ(test, l.limit, 125000);
	/* then backlogged at 2.4 Mbit/s: the first sample whole */
	t += 2 * NSEC_PER_SEC;
	er2bc_latency_sent(&l, PKT, t, true);
	latency_feed(&l, t + 5 * NSEC_PER_MSEC, 20 * NSEC_PER_MSEC, 5 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, l.rate_bps, 2400000);
	KUNIT_EXPECT_EQ(test, l.limit, 30000);
}

/*
 * a class that empties is served as fast as it asks: no sample, in a span
 * or across an idle time; one backlogged but starved for a second, then
 * sent: a sample of 12 kbit/s, a quarter of the way down
 */
static void latency_idle_and_starved(struct kunit *test)
{
	struct er2bc_latency l;
	u64 t = 1000 * NSEC_PER_SEC, i;

	er2bc_latency_init(&l);
	er2bc_latency_set(&l, TARGET, 0, 10000000);
	for (i = 0; i < 100; i++)
		er2bc_latency_sent(&l, PKT, t + i * 10 * NSEC_PER_MSEC, false);
	KUNIT_EXPECT_EQ(test, l.rate_bps, 0);
	KUNIT_EXPECT_EQ(test, l.span_start, 0);
	/* a span begun, the class emptied by a drop (idle), sent 1 s later */
	er2bc_latency_sent(&l, PKT, t, true);
	er2bc_latency_idle(&l);
	er2bc_latency_sent(&l, PKT, t + NSEC_PER_SEC, true);
	KUNIT_EXPECT_EQ(test, l.rate_bps, 0);
	/* measured at 1.2 Mbit/s (its last packet ends a span), then starved */
	er2bc_latency_idle(&l);
	t = latency_feed(&l, t + 2 * NSEC_PER_SEC, 990 * NSEC_PER_MSEC, 10 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, l.span_start, t);
	KUNIT_EXPECT_EQ(test, l.rate_bps, 1200000);
	er2bc_latency_sent(&l, PKT, t + NSEC_PER_SEC, true);
	KUNIT_EXPECT_EQ(test, l.rate_bps, 903000);
	KUNIT_EXPECT_EQ(test, l.limit, 11287);
	/* a clock behind the span's start begins another, no wrap */
	er2bc_latency_sent(&l, PKT, t, true);
	KUNIT_EXPECT_EQ(test, l.span_start, t);
	KUNIT_EXPECT_EQ(test, l.rate_bps, 903000);
}

static struct kunit_case er2bc_sched_cases[] = {
	KUNIT_CASE(sched_guarantees_by_priority),
	KUNIT_CASE(sched_lends_by_priority),
	KUNIT_CASE(sched_lends_by_weight),
	KUNIT_CASE(sched_equal_prio_by_weight),
	KUNIT_CASE(sched_ceil),
	KUNIT_CASE(sched_strict_priority),
	KUNIT_CASE(sched_no_cap),
	KUNIT_CASE(sched_lend_large_packets),
	KUNIT_CASE(sched_extreme_rates),
	KUNIT_CASE(sched_states),
	KUNIT_CASE(sched_lazy_idle),
	KUNIT_CASE(sched_wheel_times),
	KUNIT_CASE(sched_wheel_many),
	KUNIT_CASE(sched_prio_change_active),
	KUNIT_CASE(sched_clock_at_zero),
	KUNIT_CASE(sched_scavenger_last),
	KUNIT_CASE(sched_scavenger_yield),
	KUNIT_CASE(sched_scavenger_change_active),
	KUNIT_CASE(sched_held),
	KUNIT_CASE(short_none_when_served),
	KUNIT_CASE(short_half_rate),
	KUNIT_CASE(short_starved),
	KUNIT_CASE(short_edges),
	KUNIT_CASE(latency_unmeasured),
	KUNIT_CASE(latency_measures),
	KUNIT_CASE(latency_idle_and_starved),
	KUNIT_CASE(latency_forgets),
	{}
};

static struct kunit_case er2bc_guarantee_cases[] = {
	KUNIT_CASE(guarantee_modes),
	KUNIT_CASE(guarantee_static_stops),
	KUNIT_CASE(guarantee_ceil_and_range),
	{}
};

static struct kunit_suite er2bc_sched_suite = {
	.name = "er2bc_sched",
	.test_cases = er2bc_sched_cases,
};

static struct kunit_suite er2bc_guarantee_suite = {
	.name = "er2bc_guarantee",
	.test_cases = er2bc_guarantee_cases,
};

kunit_test_suites(&er2bc_sched_suite, &er2bc_guarantee_suite);
