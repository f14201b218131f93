// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the eR2BC controller: S_d of every class over series of
 * updates, worked out by hand, with the paper's parameters (C = 10,
 * M = 10, B_lim = 50 kbit/s) unless a case says otherwise. Rates are in
 * bits/s, ratios in millionths; "1e6" in a comment is ER2BC_RATIO_ONE.
 */
#include <kunit/test.h>
#include <linux/math64.h>

#include "ctrl.h"
#include "guarantee.h"

/*
 * One update over n classes in priority order, as the qdisc runs it: the
 * guarantees in force are G(t-1); afterwards they are G(t).
 */
static void run_update(struct er2bc_ctrl *ctrl, const struct er2bc_ctrl_params *p,
		       struct er2bc_ctrl_class *k, unsigned int n, u64 w, u64 recv)
{
	struct er2bc_fill fill;
	u64 fr_sum = 0;
	u32 fr_count = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!er2bc_ctrl_in_fr(&k[i]))
			continue;
		/* add with saturation, as the qdisc does */
		fr_sum = k[i].g > U64_MAX - fr_sum ? U64_MAX : fr_sum + k[i].g;
		fr_count++;
	}
	er2bc_ctrl_begin(ctrl, p, w, recv, fr_sum, fr_count);
	for (i = 0; i < n; i++)
		er2bc_ctrl_demand(ctrl, p, &k[i]);
	er2bc_fill_start(&fill, ER2BC_MODE_ER2BC, w);
	for (i = 0; i < n; i++)
		er2bc_guarantee_next(&fill, p, &k[i], k[i].rf, 0, true);
}

/* a fresh controller with the paper's parameters */
static void reset(struct er2bc_ctrl *ctrl, struct er2bc_ctrl_params *p)
{
	er2bc_ctrl_init(ctrl);
	er2bc_ctrl_params_default(p);
}

/* off the stack: KASAN's redzones make test frames large */
struct ctrl_env {
	struct er2bc_ctrl ctrl;
	struct er2bc_ctrl_params p;
	struct er2bc_ctrl_class k[4];
};

static struct ctrl_env *env_new(struct kunit *test)
{
	struct ctrl_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	reset(&e->ctrl, &e->p);
	return e;
}

/* the defaults are the paper's; init leaves nothing behind */
static void ctrl_defaults(struct kunit *test)
{
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_params *p = &e->p;
	struct er2bc_ctrl *ctrl = &e->ctrl;
	struct er2bc_ctrl_class *k = &e->k[0];

	memset(p, 0xff, sizeof(*p));
	er2bc_ctrl_params_default(p);
	KUNIT_EXPECT_EQ(test, p->c, 10);
	KUNIT_EXPECT_EQ(test, p->m, 10);
	KUNIT_EXPECT_EQ(test, p->blim, 50000);
	KUNIT_EXPECT_EQ(test, p->floor, 0);
	KUNIT_EXPECT_EQ(test, p->converge, ER2BC_CONVERGE_IMMEDIATE);

	memset(ctrl, 0xff, sizeof(*ctrl));
	er2bc_ctrl_init(ctrl);
	KUNIT_EXPECT_EQ(test, ctrl->w, 0);
	KUNIT_EXPECT_EQ(test, ctrl->recv, 0);
	KUNIT_EXPECT_EQ(test, ctrl->s, 0);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 0);
	KUNIT_EXPECT_EQ(test, ctrl->fr_avg, 0);
	KUNIT_EXPECT_EQ(test, ctrl->updates, 0);
	KUNIT_EXPECT_EQ(test, ctrl->s_len, 0);
	KUNIT_EXPECT_EQ(test, ctrl->s_pos, 0);

	memset(k, 0xff, sizeof(*k));
	er2bc_ctrl_class_init(k, 400000, ER2BC_TYPE_UDP);
	KUNIT_EXPECT_EQ(test, k->rf, 400000);
	KUNIT_EXPECT_EQ(test, k->type, ER2BC_TYPE_UDP);
	KUNIT_EXPECT_EQ(test, k->g, 0);
	KUNIT_EXPECT_EQ(test, k->sd, 0);
	KUNIT_EXPECT_EQ(test, k->re, 0);
	KUNIT_EXPECT_EQ(test, k->delta, 0);
	KUNIT_EXPECT_EQ(test, k->delta_sum, 0);
	KUNIT_EXPECT_EQ(test, k->hist_len, 0);
	KUNIT_EXPECT_EQ(test, k->hist_pos, 0);
}

/* one TCP and one UDP class over six updates, every figure by hand */
static void ctrl_math_vectors(struct kunit *test)
{
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_params *p = &e->p;
	struct er2bc_ctrl *ctrl = &e->ctrl;
	struct er2bc_ctrl_class *k = e->k;

	er2bc_ctrl_class_init(&k[0], 400000, ER2BC_TYPE_TCP);
	er2bc_ctrl_class_init(&k[1], 400000, ER2BC_TYPE_UDP);
	/* in force before the first update: min(R_f, what W leaves) */
	k[0].g = 400000;
	k[1].g = 400000;

	/* 1: W(t-1) = 0, so s = 1; F_r average 400000 / 1 */
	run_update(ctrl, p, k, 2, 1000000, 0);
	KUNIT_EXPECT_EQ(test, ctrl->s, 1000000);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 1000000);
	KUNIT_EXPECT_EQ(test, ctrl->fr_avg, 400000);
	/* R_e = 400000 * 1e6 / 1e6, delta = 400000 - 400000 */
	KUNIT_EXPECT_EQ(test, k[0].re, 400000);
	KUNIT_EXPECT_EQ(test, k[0].delta, 0);
	KUNIT_EXPECT_EQ(test, k[0].delta_sum, 0);
	KUNIT_EXPECT_EQ(test, k[0].sd, 400000);
	KUNIT_EXPECT_EQ(test, k[0].g, 400000);
	/* 400000 * 1e6 / 1e6 */
	KUNIT_EXPECT_EQ(test, k[1].sd, 400000);
	KUNIT_EXPECT_EQ(test, k[1].g, 400000);

	/* 2: s = 900000 * 1e6 / 1000000 = 900000, s_p = min(1e6, 9e5) */
	run_update(ctrl, p, k, 2, 800000, 900000);
	KUNIT_EXPECT_EQ(test, ctrl->s, 900000);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 900000);
	/* R_e = 400000 * 900000 / 1e6 = 360000, delta = 40000 */
	KUNIT_EXPECT_EQ(test, k[0].re, 360000);
	KUNIT_EXPECT_EQ(test, k[0].delta, 40000);
	KUNIT_EXPECT_EQ(test, k[0].delta_sum, 40000);
	/* Delta = 40000 > 0, under B_lim: 400000 + 40000 */
	KUNIT_EXPECT_EQ(test, k[0].sd, 440000);
	KUNIT_EXPECT_EQ(test, k[0].g, 440000);
	/* 400000 * 1e6 / 900000 = 444444.4; W leaves 800000 - 440000 */
	KUNIT_EXPECT_EQ(test, k[1].sd, 444444);
	KUNIT_EXPECT_EQ(test, k[1].g, 360000);

	/* 3: s = 600000 * 1e6 / 800000 = 750000, s_p = 750000 */
	run_update(ctrl, p, k, 2, 900000, 600000);
	KUNIT_EXPECT_EQ(test, ctrl->s, 750000);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 750000);
	KUNIT_EXPECT_EQ(test, ctrl->fr_avg, 440000);
	/* R_e = 440000 * 750000 / 1e6 = 330000, delta = 70000 */
	KUNIT_EXPECT_EQ(test, k[0].re, 330000);
	KUNIT_EXPECT_EQ(test, k[0].delta, 70000);
	/* Delta = 40000 + 70000 = 110000 > B_lim: 400000 + 50000 */
	KUNIT_EXPECT_EQ(test, k[0].delta_sum, 110000);
	KUNIT_EXPECT_EQ(test, k[0].sd, 450000);
	KUNIT_EXPECT_EQ(test, k[0].g, 450000);
	/* 400000 * 1e6 / 750000 = 533333.3; W leaves 900000 - 450000 */
	KUNIT_EXPECT_EQ(test, k[1].sd, 533333);
	KUNIT_EXPECT_EQ(test, k[1].g, 450000);

	/* 4: s = 900000 * 1e6 / 900000 = 1e6; s_p still 750000 */
	run_update(ctrl, p, k, 2, 1000000, 900000);
	KUNIT_EXPECT_EQ(test, ctrl->s, 1000000);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 750000);
	/* R_e = 450000, delta = -50000, Delta = 40000 + 70000 - 50000 */
	KUNIT_EXPECT_EQ(test, k[0].re, 450000);
	KUNIT_EXPECT_EQ(test, k[0].delta, -50000);
	KUNIT_EXPECT_EQ(test, k[0].delta_sum, 60000);
	/* 400000 + min(60000, 50000) */
	KUNIT_EXPECT_EQ(test, k[0].sd, 450000);
	/* 533333 fits in 1000000 - 450000 */
	KUNIT_EXPECT_EQ(test, k[1].sd, 533333);
	KUNIT_EXPECT_EQ(test, k[1].g, 533333);

	/* 5: s = 1e6; R_e = 450000, delta = -50000, Delta = 10000 */
	run_update(ctrl, p, k, 2, 1000000, 1000000);
	KUNIT_EXPECT_EQ(test, k[0].delta, -50000);
	KUNIT_EXPECT_EQ(test, k[0].delta_sum, 10000);
	KUNIT_EXPECT_EQ(test, k[0].sd, 410000);
	KUNIT_EXPECT_EQ(test, k[0].g, 410000);

	/* 6: R_e = 410000, delta = -10000, Delta = 0: not > 0, S_d = R_f */
	run_update(ctrl, p, k, 2, 1000000, 1000000);
	KUNIT_EXPECT_EQ(test, k[0].re, 410000);
	KUNIT_EXPECT_EQ(test, k[0].delta, -10000);
	KUNIT_EXPECT_EQ(test, k[0].delta_sum, 0);
	KUNIT_EXPECT_EQ(test, k[0].sd, 400000);
	KUNIT_EXPECT_EQ(test, k[0].g, 400000);
	KUNIT_EXPECT_EQ(test, k[1].sd, 533333);

	KUNIT_EXPECT_EQ(test, ctrl->updates, 6);
	KUNIT_EXPECT_EQ(test, ctrl->w, 1000000);
	KUNIT_EXPECT_EQ(test, ctrl->recv, 1000000);
	/* newest first: updates 6, 5, 4, 3, 2, 1 */
	KUNIT_EXPECT_EQ(test, ctrl->s_len, 6);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_s_hist(ctrl, 0), 1000000);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_s_hist(ctrl, 1), 1000000);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_s_hist(ctrl, 2), 1000000);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_s_hist(ctrl, 3), 750000);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_s_hist(ctrl, 4), 900000);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_s_hist(ctrl, 5), 1000000);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_s_hist(ctrl, 6), 0);
}

/* eq. 1 as W shrinks: the highest priorities keep S_d, the rest share what is left */
static void ctrl_priority_order(struct kunit *test)
{
	static const u64 rf[4] = { 300000, 200000, 100000, 50000 };
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_params *p = &e->p;
	struct er2bc_ctrl *ctrl = &e->ctrl;
	struct er2bc_ctrl_class *k = e->k;
	static const struct {
		u64 w, recv, g[4];
	} step[] = {
		/* 300000 + 200000 + 100000 + 50000 = 650000 fits */
		{ 1000000, 0,       { 300000, 200000, 100000, 50000 } },
		/* 300000 + 200000 + 100000 = 600000: nothing left for the 4th */
		{ 600000,  1000000, { 300000, 200000, 100000, 0 } },
		/* 400000 - 300000 = 100000 for the 2nd */
		{ 400000,  600000,  { 300000, 100000, 0, 0 } },
		{ 300000,  400000,  { 300000, 0, 0, 0 } },
		/* even the highest gets only W */
		{ 100000,  300000,  { 100000, 0, 0, 0 } },
		{ 1000000, 100000,  { 300000, 200000, 100000, 50000 } },
	};
	unsigned int i, j;

	for (j = 0; j < 4; j++) {
		er2bc_ctrl_class_init(&k[j], rf[j], ER2BC_TYPE_UDP);
		k[j].g = rf[j];
	}
	for (i = 0; i < ARRAY_SIZE(step); i++) {
		/* R(t-1) >= W(t-1) every time: s = 1, so S_d = R_f */
		run_update(ctrl, p, k, 4, step[i].w, step[i].recv);
		KUNIT_EXPECT_EQ(test, ctrl->sp, 1000000);
		for (j = 0; j < 4; j++) {
			KUNIT_EXPECT_EQ_MSG(test, k[j].sd, rf[j], "update %u class %u", i, j);
			KUNIT_EXPECT_EQ_MSG(test, k[j].g, step[i].g[j], "update %u class %u", i, j);
		}
	}
}

/*
 * One priority's guarantees as er2bc_assign() hands them out: the classes
 * that ask no more than an equal share of what is left first, then the
 * rest, each walk in classid (array) order
 */
static void fill_priority(struct er2bc_fill *f, const struct er2bc_ctrl_params *p,
			  struct er2bc_ctrl_class *k, const u64 *rate, unsigned int n)
{
	u64 share = er2bc_fill_small(f, n);
	unsigned int pass, j;

	for (pass = 0; pass < (share ? 2 : 1); pass++)
		for (j = 0; j < n; j++)
			if (!share || er2bc_guarantee_small(f, &k[j], rate[j], 0, share) == !pass)
				er2bc_guarantee_next(f, p, &k[j], rate[j], 0, false);
}

/*
 * Within a priority W cannot hold whole: a small class after a large one
 * (a voice class beside a video class) is served whole first; before, in
 * classid order, the large one took all of W and the small one starved
 */
static void ctrl_small_first(struct kunit *test)
{
	static const u64 rate[3] = { 400000, 64000, 150000 };
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_class *k = e->k;
	struct er2bc_fill f;
	unsigned int j;

	for (j = 0; j < 3; j++)
		er2bc_ctrl_class_init(&k[j], rate[j], ER2BC_TYPE_UDP);
	/* (each round as itself: no guarantee kept from the one before) */
	e->p.converge = ER2BC_CONVERGE_IMMEDIATE;

	/* W 300 kbit/s, two classes: an equal share is 150k; 64k first */
	er2bc_fill_start(&f, ER2BC_MODE_ER2BC, 300000);
	fill_priority(&f, &e->p, k, rate, 2);
	KUNIT_EXPECT_EQ(test, k[1].g, 64000);
	KUNIT_EXPECT_EQ(test, k[0].g, 236000);
	KUNIT_EXPECT_EQ(test, f.left, 0);

	/* three: a share of 100k; only 64k is under it, 150k and 400k by classid */
	er2bc_fill_start(&f, ER2BC_MODE_ER2BC, 300000);
	fill_priority(&f, &e->p, k, rate, 3);
	KUNIT_EXPECT_EQ(test, k[1].g, 64000);
	KUNIT_EXPECT_EQ(test, k[0].g, 236000);
	KUNIT_EXPECT_EQ(test, k[2].g, 0);

	/* its margin counts: 64k and 100 % is 128k, above a share of 100k */
	k[1].margin = 100;
	er2bc_fill_start(&f, ER2BC_MODE_ER2BC, 300000);
	fill_priority(&f, &e->p, k, rate, 3);
	KUNIT_EXPECT_EQ(test, k[0].g, 300000);
	KUNIT_EXPECT_EQ(test, k[1].g, 0);
	KUNIT_EXPECT_EQ(test, k[2].g, 0);
	k[1].margin = 0;

	/*
	 * the margin, then the ceil: 60k with 100 % under a ceil of 64k asks
	 * for 64k, under the share of 100k (W 200k, two classes): first
	 */
	{
		struct er2bc_fill g;
		u64 share;

		er2bc_ctrl_class_init(&k[1], 60000, ER2BC_TYPE_UDP);
		k[1].margin = 100;
		er2bc_fill_start(&g, ER2BC_MODE_ER2BC, 200000);
		share = er2bc_fill_small(&g, 2);

		KUNIT_EXPECT_EQ(test, er2bc_guarantee_demand(&g, &k[1], 60000, 64000), 64000);
		KUNIT_EXPECT_TRUE(test, er2bc_guarantee_small(&g, &k[1], 60000, 64000, share));
		er2bc_ctrl_class_init(&k[1], rate[1], ER2BC_TYPE_UDP);
	}

	/* room for all: whole, whatever the order */
	er2bc_fill_start(&f, ER2BC_MODE_ER2BC, 1000000);
	fill_priority(&f, &e->p, k, rate, 3);
	KUNIT_EXPECT_EQ(test, k[0].g, 400000);
	KUNIT_EXPECT_EQ(test, k[1].g, 64000);
	KUNIT_EXPECT_EQ(test, k[2].g, 150000);

	/* no cap, and static mode (the paper's method: classid order): none first */
	er2bc_fill_start(&f, ER2BC_MODE_ER2BC, 0);
	KUNIT_EXPECT_EQ(test, er2bc_fill_small(&f, 3), 0);
	er2bc_fill_start(&f, ER2BC_MODE_STATIC, 300000);
	KUNIT_EXPECT_EQ(test, er2bc_fill_small(&f, 3), 0);
	fill_priority(&f, &e->p, k, rate, 2);
	KUNIT_EXPECT_EQ(test, k[0].g, 0);
	KUNIT_EXPECT_EQ(test, k[1].g, 0);
	er2bc_fill_start(&f, ER2BC_MODE_ER2BC, 300000);
	KUNIT_EXPECT_EQ(test, er2bc_fill_small(&f, 0), 0);
}

/* S_d of a TCP class: Delta > 0, Delta <= 0, and B_lim */
static void ctrl_tcp_demand(struct kunit *test)
{
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_params *p = &e->p;
	struct er2bc_ctrl *ctrl = &e->ctrl;
	struct er2bc_ctrl_class *k = &e->k[0];

	er2bc_ctrl_class_init(k, 1000000, ER2BC_TYPE_TCP);
	k->g = 1000000;

	/* first: s = 1, R_e = 1000000, Delta = 0: S_d = R_f */
	run_update(ctrl, p, k, 1, 2000000, 0);
	KUNIT_EXPECT_EQ(test, k->delta_sum, 0);
	KUNIT_EXPECT_EQ(test, k->sd, 1000000);

	/* s = 1980000 * 1e6 / 2000000 = 990000, R_e = 990000, delta = 10000 */
	run_update(ctrl, p, k, 1, 2000000, 1980000);
	KUNIT_EXPECT_EQ(test, k->re, 990000);
	KUNIT_EXPECT_EQ(test, k->delta_sum, 10000);
	/* Delta > 0 under B_lim: 1000000 + 10000 */
	KUNIT_EXPECT_EQ(test, k->sd, 1010000);
	KUNIT_EXPECT_EQ(test, k->g, 1010000);

	/* s = 1: R_e = 1010000, delta = -10000, Delta = 0: S_d = R_f */
	run_update(ctrl, p, k, 1, 2000000, 2000000);
	KUNIT_EXPECT_EQ(test, k->delta, -10000);
	KUNIT_EXPECT_EQ(test, k->delta_sum, 0);
	KUNIT_EXPECT_EQ(test, k->sd, 1000000);

	/* s = 1000000 * 1e6 / 2000000 = 500000: R_e = 500000, delta = 500000 */
	run_update(ctrl, p, k, 1, 2000000, 1000000);
	KUNIT_EXPECT_EQ(test, k->delta, 500000);
	KUNIT_EXPECT_EQ(test, k->delta_sum, 500000);
	/* clamped: 1000000 + 50000 */
	KUNIT_EXPECT_EQ(test, k->sd, 1050000);

	/* B_lim is a parameter: 1000000 + 20000 */
	p->blim = 20000;
	run_update(ctrl, p, k, 1, 2000000, 2000000);
	/* R_e = 1050000, delta = -50000, Delta = 500000 - 50000 */
	KUNIT_EXPECT_EQ(test, k->delta_sum, 450000);
	KUNIT_EXPECT_EQ(test, k->sd, 1020000);
	/* B_lim 0: S_d = R_f even with a deficit */
	p->blim = 0;
	run_update(ctrl, p, k, 1, 2000000, 2000000);
	/* R_e = 1020000, delta = -20000, Delta = 450000 - 20000 */
	KUNIT_EXPECT_EQ(test, k->delta_sum, 430000);
	KUNIT_EXPECT_EQ(test, k->sd, 1000000);

	/* a guarantee above R_f: R_e = 1200000, delta = Delta = -200000 */
	reset(ctrl, p);
	er2bc_ctrl_class_init(k, 1000000, ER2BC_TYPE_TCP);
	k->g = 1200000;
	run_update(ctrl, p, k, 1, 2000000, 0);
	KUNIT_EXPECT_EQ(test, k->re, 1200000);
	KUNIT_EXPECT_EQ(test, k->delta, -200000);
	KUNIT_EXPECT_EQ(test, k->delta_sum, -200000);
	KUNIT_EXPECT_EQ(test, k->sd, 1000000);
}

/* R_e uses the F_r average when it is below the class's own G(t-1) */
static void ctrl_tcp_average(struct kunit *test)
{
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_params *p = &e->p;
	struct er2bc_ctrl *ctrl = &e->ctrl;
	struct er2bc_ctrl_class *k = e->k;

	er2bc_ctrl_class_init(&k[0], 600000, ER2BC_TYPE_TCP);
	er2bc_ctrl_class_init(&k[1], 300000, ER2BC_TYPE_UDP);
	er2bc_ctrl_class_init(&k[2], 200000, ER2BC_TYPE_TCP);
	k[0].g = 600000;
	k[1].g = 300000;
	k[2].g = 100000;

	/* F_r: (600000 + 100000) / 2 = 350000; the UDP class is not in it */
	run_update(ctrl, p, k, 3, 1000000, 0);
	KUNIT_EXPECT_EQ(test, ctrl->fr_avg, 350000);
	/* R_e = min(600000, 350000) = 350000, delta = 250000: 600000 + 50000 */
	KUNIT_EXPECT_EQ(test, k[0].re, 350000);
	KUNIT_EXPECT_EQ(test, k[0].delta, 250000);
	KUNIT_EXPECT_EQ(test, k[0].sd, 650000);
	KUNIT_EXPECT_EQ(test, k[0].g, 650000);
	/* min(300000, 1000000 - 650000) */
	KUNIT_EXPECT_EQ(test, k[1].g, 300000);
	/* R_e = min(100000, 350000), delta = 100000: 200000 + 50000 */
	KUNIT_EXPECT_EQ(test, k[2].re, 100000);
	KUNIT_EXPECT_EQ(test, k[2].delta, 100000);
	KUNIT_EXPECT_EQ(test, k[2].sd, 250000);
	/* 1000000 - 650000 - 300000 = 50000 left */
	KUNIT_EXPECT_EQ(test, k[2].g, 50000);
}

/* Delta sums only the last C deltas, across the wrap of the history */
static void ctrl_delta_window(struct kunit *test)
{
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_params *p = &e->p;
	struct er2bc_ctrl *ctrl = &e->ctrl;
	struct er2bc_ctrl_class *k = &e->k[0];
	unsigned int t;

	/*
	 * W = R_f: G stays 1000000 whatever S_d, so R_e = s * 1000000 and
	 * with R(t-1) = 1000000 - 1000 * t, update t's delta is 1000 * t
	 * (0 at the first update, where s = 1).
	 */
	er2bc_ctrl_class_init(k, 1000000, ER2BC_TYPE_TCP);
	k->g = 1000000;
	for (t = 1; t <= 40; t++) {
		run_update(ctrl, p, k, 1, 1000000, 1000000 - 1000 * t);
		KUNIT_EXPECT_EQ(test, k->g, 1000000);
		KUNIT_EXPECT_EQ(test, k->delta, t == 1 ? 0 : 1000 * t);
		switch (t) {
		case 2:
			KUNIT_EXPECT_EQ(test, k->delta_sum, 2000);
			KUNIT_EXPECT_EQ(test, k->sd, 1002000);
			break;
		case 10:
			/* 0 + 1000 * (2 + 3 + ... + 10) */
			KUNIT_EXPECT_EQ(test, k->delta_sum, 54000);
			KUNIT_EXPECT_EQ(test, k->sd, 1050000);
			break;
		case 11:
			/* update 1 drops out: 1000 * (2 + ... + 11) */
			KUNIT_EXPECT_EQ(test, k->delta_sum, 65000);
			break;
		case 12:
			/* 1000 * (3 + ... + 12) */
			KUNIT_EXPECT_EQ(test, k->delta_sum, 75000);
			break;
		case 32:
			/* the ring is full: 1000 * (23 + ... + 32) = 1000 * (230 + 45) */
			KUNIT_EXPECT_EQ(test, k->delta_sum, 275000);
			KUNIT_EXPECT_EQ(test, k->hist_len, 32);
			break;
		case 33:
			/* the ring wrapped: 1000 * (24 + ... + 33) */
			KUNIT_EXPECT_EQ(test, k->delta_sum, 285000);
			KUNIT_EXPECT_EQ(test, k->hist_len, 32);
			break;
		case 40:
			/* 1000 * (31 + ... + 40) */
			KUNIT_EXPECT_EQ(test, k->delta_sum, 355000);
			break;
		}
	}

	/* C = 1: the latest delta alone, 1000 * 41 */
	p->c = 1;
	run_update(ctrl, p, k, 1, 1000000, 1000000 - 41000);
	KUNIT_EXPECT_EQ(test, k->delta_sum, 41000);
	/* C = 32, the whole ring: 1000 * (11 + ... + 42) = 1000 * (352 + 496) */
	p->c = 32;
	run_update(ctrl, p, k, 1, 1000000, 1000000 - 42000);
	KUNIT_EXPECT_EQ(test, k->delta_sum, 848000);
	/* C beyond the ring is the ring: 1000 * (12 + ... + 43) = 848000 + 32000 */
	p->c = 1000;
	run_update(ctrl, p, k, 1, 1000000, 1000000 - 43000);
	KUNIT_EXPECT_EQ(test, k->delta_sum, 880000);
	/* C = 0 is taken as 1 */
	p->c = 0;
	run_update(ctrl, p, k, 1, 1000000, 1000000 - 44000);
	KUNIT_EXPECT_EQ(test, k->delta_sum, 44000);
}

/* S_d of a UDP class: R_f / s_p, s_p the least s of the last M updates */
static void ctrl_udp_sp(struct kunit *test)
{
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_params *p = &e->p;
	struct er2bc_ctrl *ctrl = &e->ctrl;
	struct er2bc_ctrl_class *k = &e->k[0];
	unsigned int t;

	er2bc_ctrl_class_init(k, 600000, ER2BC_TYPE_UDP);
	k->g = 600000;
	/*
	 * W = 1000000 throughout; R(t-1) = 1000000 but 500000 at update 2
	 * (s = 500000) and 800000 at update 5 (s = 800000).
	 */
	for (t = 1; t <= 16; t++) {
		u64 recv = t == 2 ? 500000 : t == 5 ? 800000 : 1000000;

		run_update(ctrl, p, k, 1, 1000000, recv);
		KUNIT_EXPECT_EQ(test, k->re, 0);
		KUNIT_EXPECT_EQ(test, k->delta, 0);
		KUNIT_EXPECT_EQ(test, k->delta_sum, 0);
		if (t == 1) {
			/* 600000 * 1e6 / 1e6 */
			KUNIT_EXPECT_EQ(test, ctrl->sp, 1000000);
			KUNIT_EXPECT_EQ(test, k->sd, 600000);
		} else if (t <= 11) {
			/* s(2) is among the last 10 until update 11 */
			KUNIT_EXPECT_EQ_MSG(test, ctrl->sp, 500000, "update %u", t);
			/* 600000 * 1e6 / 500000, then min(1200000, W) */
			KUNIT_EXPECT_EQ_MSG(test, k->sd, 1200000, "update %u", t);
			KUNIT_EXPECT_EQ_MSG(test, k->g, 1000000, "update %u", t);
		} else if (t <= 14) {
			/* then s(5), until update 14 */
			KUNIT_EXPECT_EQ_MSG(test, ctrl->sp, 800000, "update %u", t);
			/* 600000 * 1e6 / 800000 */
			KUNIT_EXPECT_EQ_MSG(test, k->sd, 750000, "update %u", t);
			KUNIT_EXPECT_EQ_MSG(test, k->g, 750000, "update %u", t);
		} else {
			KUNIT_EXPECT_EQ_MSG(test, ctrl->sp, 1000000, "update %u", t);
			KUNIT_EXPECT_EQ_MSG(test, k->sd, 600000, "update %u", t);
		}
	}

	/* M = 1: s_p = s(t); 250000 * 1e6 / 1000000 = 250000 */
	p->m = 1;
	run_update(ctrl, p, k, 1, 1000000, 250000);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 250000);
	/* 600000 * 1e6 / 250000 */
	KUNIT_EXPECT_EQ(test, k->sd, 2400000);
	run_update(ctrl, p, k, 1, 1000000, 1000000);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 1000000);
	/* M = 0 is taken as 1 */
	p->m = 0;
	run_update(ctrl, p, k, 1, 1000000, 1000000);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 1000000);
	/* M = 32 reaches back to update 17 again */
	p->m = 32;
	run_update(ctrl, p, k, 1, 1000000, 1000000);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 250000);
	/* s = 1e6 * 1e6 / 3e6 = 333333.3, but s_p is still 250000 */
	run_update(ctrl, p, k, 1, 3000000, 1000000);
	run_update(ctrl, p, k, 1, 3000000, 1000000);
	KUNIT_EXPECT_EQ(test, ctrl->s, 333333);
	KUNIT_EXPECT_EQ(test, k->sd, 2400000);
	/* M = 1: 600000 * 1e6 / 333333 = 1800001.8 */
	p->m = 1;
	run_update(ctrl, p, k, 1, 3000000, 1000000);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 333333);
	KUNIT_EXPECT_EQ(test, k->sd, 1800001);
}

/*
 * A margin: the class asks for its demand and that share above it, within
 * what the classes before it left of W, taken from the classes after it;
 * in static mode on its rate; saturated at the top of u64
 */
static void ctrl_margin(struct kunit *test)
{
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_class *k = e->k;
	struct er2bc_fill f;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, er2bc_with_margin(400000, 0), 400000);
	KUNIT_EXPECT_EQ(test, er2bc_with_margin(400000, 25), 500000);
	KUNIT_EXPECT_EQ(test, er2bc_with_margin(400000, 100), 800000);
	/* 3 * 33 / 100 = 0.99: rounded down */
	KUNIT_EXPECT_EQ(test, er2bc_with_margin(3, 33), 3);
	/* above ER2BC_MARGIN_MAX is taken as it */
	KUNIT_EXPECT_EQ(test, er2bc_with_margin(400000, 255), 800000);
	KUNIT_EXPECT_EQ(test, er2bc_with_margin(U64_MAX / 2 + 1, 100), U64_MAX);
	KUNIT_EXPECT_EQ(test, er2bc_with_margin(U64_MAX, 1), U64_MAX);

	/*
	 * Four UDP classes of 400 kbit/s, the first three with a margin of
	 * 20 %, no loss (s_p = 1: S_d = R_f), W = 1.8 Mbit/s: 480000 three
	 * times, and the fourth the 360000 left
	 */
	for (i = 0; i < 4; i++) {
		er2bc_ctrl_class_init(&k[i], 400000, ER2BC_TYPE_UDP);
		k[i].margin = i < 3 ? 20 : 0;
	}
	run_update(&e->ctrl, &e->p, k, 4, 1800000, 1800000);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ_MSG(test, k[i].sd, 400000, "class %u", i);
		KUNIT_EXPECT_EQ_MSG(test, k[i].g, 480000, "class %u", i);
	}
	KUNIT_EXPECT_EQ(test, k[3].g, 360000);

	/*
	 * the margin never takes from a class before it: W = 900 kbit/s, a
	 * fresh controller (the s of the update above would carry over)
	 */
	reset(&e->ctrl, &e->p);
	for (i = 0; i < 4; i++) {
		er2bc_ctrl_class_init(&k[i], 400000, ER2BC_TYPE_UDP);
		k[i].margin = i < 3 ? 20 : 0;
	}
	run_update(&e->ctrl, &e->p, k, 4, 900000, 900000);
	KUNIT_EXPECT_EQ(test, k[0].g, 480000);
	KUNIT_EXPECT_EQ(test, k[1].g, 420000);
	KUNIT_EXPECT_EQ(test, k[2].g, 0);
	KUNIT_EXPECT_EQ(test, k[3].g, 0);

	/* static mode: on the rate; a class that no longer fits stops it */
	er2bc_fill_start(&f, ER2BC_MODE_STATIC, 1000000);
	for (i = 0; i < 3; i++)
		er2bc_ctrl_class_init(&k[i], 400000, ER2BC_TYPE_UDP);
	k[0].margin = 50;
	KUNIT_EXPECT_EQ(test, er2bc_guarantee_next(&f, &e->p, &k[0], 400000, 0, false), 600000);
	KUNIT_EXPECT_EQ(test, er2bc_guarantee_next(&f, &e->p, &k[1], 400000, 0, false), 400000);
	KUNIT_EXPECT_EQ(test, er2bc_guarantee_next(&f, &e->p, &k[2], 400000, 0, false), 0);

	/*
	 * static mode, a rate that fits and a margin that does not: the rate
	 * and what is left of the margin; the round goes on, full
	 */
	er2bc_fill_start(&f, ER2BC_MODE_STATIC, 450000);
	k[0].margin = 20;
	KUNIT_EXPECT_EQ(test, er2bc_guarantee_next(&f, &e->p, &k[0], 400000, 0, false), 450000);
	KUNIT_EXPECT_EQ(test, er2bc_guarantee_next(&f, &e->p, &k[1], 400000, 0, false), 0);
	/* and a margin on a rate that does not fit is none */
	er2bc_fill_start(&f, ER2BC_MODE_STATIC, 350000);
	KUNIT_EXPECT_EQ(test, er2bc_guarantee_next(&f, &e->p, &k[0], 400000, 0, false), 0);

	/* and never above the ceil */
	k[0].margin = 50;
	er2bc_fill_start(&f, ER2BC_MODE_STATIC, 0);
	KUNIT_EXPECT_EQ(test, er2bc_guarantee_next(&f, &e->p, &k[0], 400000, 500000, false),
			500000);
}

/* the history of s wraps, and keeps the last 32 */
static void ctrl_s_history(struct kunit *test)
{
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_params *p = &e->p;
	struct er2bc_ctrl *ctrl = &e->ctrl;
	unsigned int t;

	/* W = 1000000; update t >= 2 sees R(t-1) = 1000 * t, so s = 1000 * t */
	for (t = 1; t <= 40; t++)
		er2bc_ctrl_begin(ctrl, p, 1000000, 1000 * t, 0, 0);
	KUNIT_EXPECT_EQ(test, ctrl->updates, 40);
	KUNIT_EXPECT_EQ(test, ctrl->s_len, 32);
	KUNIT_EXPECT_EQ(test, ctrl->fr_avg, 0);
	/* newest 40, then 39, ... the oldest kept is update 9 */
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_s_hist(ctrl, 0), 40000);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_s_hist(ctrl, 1), 39000);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_s_hist(ctrl, 8), 32000);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_s_hist(ctrl, 31), 9000);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_s_hist(ctrl, 32), 0);
	/* s_p = min(s(40) ... s(31)) = 31000 */
	KUNIT_EXPECT_EQ(test, ctrl->sp, 31000);
}

/* R(t-1) > W(t-1) counts as s = 1; R(t-1) = 0 as s = 0 */
static void ctrl_s_clamp(struct kunit *test)
{
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_params *p = &e->p;
	struct er2bc_ctrl *ctrl = &e->ctrl;
	struct er2bc_ctrl_class *k = e->k;

	er2bc_ctrl_class_init(&k[0], 300000, ER2BC_TYPE_TCP);
	er2bc_ctrl_class_init(&k[1], 200000, ER2BC_TYPE_UDP);
	k[0].g = 300000;
	k[1].g = 200000;

	run_update(ctrl, p, k, 2, 1000000, 0);
	KUNIT_EXPECT_EQ(test, ctrl->s, 1000000);
	/* 1500000 > 1000000: s = 1, nothing lost */
	run_update(ctrl, p, k, 2, 1000000, 1500000);
	KUNIT_EXPECT_EQ(test, ctrl->s, 1000000);
	KUNIT_EXPECT_EQ(test, ctrl->recv, 1500000);
	KUNIT_EXPECT_EQ(test, k[0].delta, 0);
	KUNIT_EXPECT_EQ(test, k[0].sd, 300000);
	KUNIT_EXPECT_EQ(test, k[1].sd, 200000);

	/* nothing arrived: s = s_p = 0 */
	run_update(ctrl, p, k, 2, 1000000, 0);
	KUNIT_EXPECT_EQ(test, ctrl->s, 0);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 0);
	/* R_e = 0, delta = 300000: 300000 + 50000 */
	KUNIT_EXPECT_EQ(test, k[0].re, 0);
	KUNIT_EXPECT_EQ(test, k[0].delta, 300000);
	KUNIT_EXPECT_EQ(test, k[0].sd, 350000);
	KUNIT_EXPECT_EQ(test, k[0].g, 350000);
	/* R_f / 0 saturates at 2^56; eq. 1 gives what is left, 1000000 - 350000 */
	KUNIT_EXPECT_EQ(test, k[1].sd, 72057594037927936ULL);
	KUNIT_EXPECT_EQ(test, k[1].g, 650000);

	/*
	 * a class without a rate asks for nothing, s_p 0 or not: neither a
	 * udp class nor a scavenger (which would otherwise be GUARANTEED,
	 * ahead of every borrower and past the estimator's hold)
	 */
	er2bc_ctrl_class_init(&k[2], 0, ER2BC_TYPE_UDP);
	er2bc_ctrl_class_init(&k[3], 0, ER2BC_TYPE_SCAVENGER);
	run_update(ctrl, p, k, 4, 1000000, 0);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 0);
	KUNIT_EXPECT_EQ(test, k[2].sd, 0);
	KUNIT_EXPECT_EQ(test, k[2].g, 0);
	KUNIT_EXPECT_EQ(test, k[3].sd, 0);
	KUNIT_EXPECT_EQ(test, k[3].g, 0);

	/* 1 bit/s of 1000000: s = 1 millionth, S_d = 200000 * 1e6 / 1 */
	run_update(ctrl, p, k, 2, 1000000, 1);
	KUNIT_EXPECT_EQ(test, ctrl->s, 1);
	/* s_p still 0 (update 3 is within M) */
	KUNIT_EXPECT_EQ(test, k[1].sd, 72057594037927936ULL);
	p->m = 1;
	run_update(ctrl, p, k, 2, 1000000, 1);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 1);
	KUNIT_EXPECT_EQ(test, k[1].sd, 200000000000ULL);
}

/* the first update has no W(t-1): s = 1 whatever R(t-1) */
static void ctrl_first_update(struct kunit *test)
{
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_params *p = &e->p;
	struct er2bc_ctrl *ctrl = &e->ctrl;
	struct er2bc_ctrl_class *k = &e->k[0];

	er2bc_ctrl_class_init(k, 500000, ER2BC_TYPE_UDP);
	k->g = 500000;
	run_update(ctrl, p, k, 1, 2000000, 12345);
	KUNIT_EXPECT_EQ(test, ctrl->updates, 1);
	KUNIT_EXPECT_EQ(test, ctrl->s, 1000000);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 1000000);
	KUNIT_EXPECT_EQ(test, ctrl->s_len, 1);
	KUNIT_EXPECT_EQ(test, ctrl->w, 2000000);
	KUNIT_EXPECT_EQ(test, ctrl->recv, 12345);
	KUNIT_EXPECT_EQ(test, k->sd, 500000);
	KUNIT_EXPECT_EQ(test, k->g, 500000);

	/* the next one compares with W(t-1) = 2000000: 12345 * 1e6 / 2e6 = 6172.5 */
	run_update(ctrl, p, k, 1, 2000000, 12345);
	KUNIT_EXPECT_EQ(test, ctrl->s, 6172);
	/* 500000 * 1e6 / 6172 = 81011017.4 */
	KUNIT_EXPECT_EQ(test, k->sd, 81011017);
	KUNIT_EXPECT_EQ(test, k->g, 2000000);

	/* an estimate of 0 leaves the next update nothing to compare with */
	run_update(ctrl, p, k, 1, 0, 0);
	KUNIT_EXPECT_EQ(test, ctrl->w, 0);
	run_update(ctrl, p, k, 1, 1000000, 0);
	KUNIT_EXPECT_EQ(test, ctrl->s, 1000000);
	/* s_p: min(1e6, 0 (R = 0 of 2000000), 6172, 1e6) */
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_s_hist(ctrl, 1), 0);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 0);
}

/* no class, and a single one */
static void ctrl_zero_and_one_class(struct kunit *test)
{
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_params *p = &e->p;
	struct er2bc_ctrl *ctrl = &e->ctrl;
	struct er2bc_ctrl_class *k = &e->k[0];

	run_update(ctrl, p, NULL, 0, 1000000, 0);
	run_update(ctrl, p, NULL, 0, 1000000, 500000);
	KUNIT_EXPECT_EQ(test, ctrl->updates, 2);
	KUNIT_EXPECT_EQ(test, ctrl->fr_avg, 0);
	/* 500000 * 1e6 / 1000000 */
	KUNIT_EXPECT_EQ(test, ctrl->s, 500000);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 500000);

	reset(ctrl, p);
	er2bc_ctrl_class_init(k, 1000000, ER2BC_TYPE_TCP);
	k->g = 500000;
	/* G(t-1) = min(R_f, W) = 500000; R_e = 500000, delta = 500000 */
	run_update(ctrl, p, k, 1, 500000, 0);
	KUNIT_EXPECT_EQ(test, ctrl->fr_avg, 500000);
	KUNIT_EXPECT_EQ(test, k->delta, 500000);
	/* 1000000 + 50000, of which W gives 500000 */
	KUNIT_EXPECT_EQ(test, k->sd, 1050000);
	KUNIT_EXPECT_EQ(test, k->g, 500000);
	/* s = 1: delta = 500000 again, Delta = 1000000 */
	run_update(ctrl, p, k, 1, 2000000, 500000);
	KUNIT_EXPECT_EQ(test, k->delta_sum, 1000000);
	KUNIT_EXPECT_EQ(test, k->sd, 1050000);
	KUNIT_EXPECT_EQ(test, k->g, 1050000);
}

/* 4096 classes, TCP and UDP alternately */
static void ctrl_many_classes(struct kunit *test)
{
	const unsigned int n = 4096;
	struct er2bc_ctrl_class *k;
	struct er2bc_ctrl_params p;
	struct er2bc_ctrl ctrl;
	unsigned int i;
	u64 sum;

	k = kunit_kcalloc(test, n, sizeof(*k), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k);
	reset(&ctrl, &p);
	for (i = 0; i < n; i++) {
		er2bc_ctrl_class_init(&k[i], 1000, i % 2 ? ER2BC_TYPE_UDP : ER2BC_TYPE_TCP);
		k[i].g = 1000;
	}

	/* s = 1, every delta 0, every S_d 1000: 3000000 / 1000 classes fit */
	run_update(&ctrl, &p, k, n, 3000000, 0);
	KUNIT_EXPECT_EQ(test, ctrl.fr_avg, 1000);
	sum = 0;
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, k[i].sd, 1000);
		KUNIT_EXPECT_EQ(test, k[i].g, i < 3000 ? 1000 : 0);
		sum += k[i].g;
	}
	KUNIT_EXPECT_EQ(test, sum, 3000000);

	/*
	 * 2048 TCP classes, the 1500 below 3000 with G = 1000:
	 * F_r average 1500000 / 2048 = 732.4
	 */
	run_update(&ctrl, &p, k, n, 3000000, 3000000);
	KUNIT_EXPECT_EQ(test, ctrl.fr_avg, 732);
	/* G = 1000: R_e = 732, delta = 268: S_d = 1268 */
	KUNIT_EXPECT_EQ(test, k[0].re, 732);
	KUNIT_EXPECT_EQ(test, k[0].sd, 1268);
	/* G = 0: R_e = 0, delta = 1000: S_d = 1000 + 1000 */
	KUNIT_EXPECT_EQ(test, k[4094].re, 0);
	KUNIT_EXPECT_EQ(test, k[4094].sd, 2000);
	KUNIT_EXPECT_EQ(test, k[4095].sd, 1000);
	/*
	 * pairs of 1268 + 1000 = 2268: 1322 pairs take 2998296, the next
	 * TCP class gets its 1268 of the 1704 left, the UDP class after it
	 * the last 436
	 */
	KUNIT_EXPECT_EQ(test, k[2643].g, 1000);
	KUNIT_EXPECT_EQ(test, k[2644].g, 1268);
	KUNIT_EXPECT_EQ(test, k[2645].g, 436);
	KUNIT_EXPECT_EQ(test, k[2646].g, 0);
	KUNIT_EXPECT_EQ(test, k[4095].g, 0);
	sum = 0;
	for (i = 0; i < n; i++)
		sum += k[i].g;
	KUNIT_EXPECT_EQ(test, sum, 3000000);
}

/* 100 Gbit/s rates, exactly */
static void ctrl_100g(struct kunit *test)
{
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_params *p = &e->p;
	struct er2bc_ctrl *ctrl = &e->ctrl;
	struct er2bc_ctrl_class *k = e->k;

	er2bc_ctrl_class_init(&k[0], 40000000000ULL, ER2BC_TYPE_TCP);
	er2bc_ctrl_class_init(&k[1], 50000000000ULL, ER2BC_TYPE_UDP);
	k[0].g = 40000000000ULL;
	k[1].g = 50000000000ULL;
	run_update(ctrl, p, k, 2, 100000000000ULL, 0);
	KUNIT_EXPECT_EQ(test, k[0].sd, 40000000000ULL);
	KUNIT_EXPECT_EQ(test, k[1].sd, 50000000000ULL);

	/* s = 99e9 * 1e6 / 100e9 = 990000 */
	run_update(ctrl, p, k, 2, 100000000000ULL, 99000000000ULL);
	KUNIT_EXPECT_EQ(test, ctrl->s, 990000);
	/* R_e = 40e9 * 0.99 = 39.6e9, delta = 4e8: 40e9 + 50000 */
	KUNIT_EXPECT_EQ(test, k[0].re, 39600000000ULL);
	KUNIT_EXPECT_EQ(test, k[0].delta, 400000000);
	KUNIT_EXPECT_EQ(test, k[0].sd, 40000050000ULL);
	KUNIT_EXPECT_EQ(test, k[0].g, 40000050000ULL);
	/* 50e9 * 1e6 / 990000 = 50505050505.05; 100e9 - 40000050000 is more */
	KUNIT_EXPECT_EQ(test, k[1].sd, 50505050505ULL);
	KUNIT_EXPECT_EQ(test, k[1].g, 50505050505ULL);
}

/* rates at and beyond the saturation point do not overflow */
static void ctrl_extremes(struct kunit *test)
{
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_params *p = &e->p;
	struct er2bc_ctrl *ctrl = &e->ctrl;
	struct er2bc_ctrl_class *k = e->k;
	unsigned int t;

	p->c = 32;
	p->blim = U64_MAX;
	er2bc_ctrl_class_init(&k[0], U64_MAX, ER2BC_TYPE_TCP);
	er2bc_ctrl_class_init(&k[1], U64_MAX, ER2BC_TYPE_UDP);
	/* R_f saturates at 2^56 */
	KUNIT_EXPECT_EQ(test, k[0].rf, 72057594037927936ULL);
	k[0].g = U64_MAX;
	k[1].g = U64_MAX;

	er2bc_ctrl_begin(ctrl, p, U64_MAX, U64_MAX, U64_MAX, 1);
	KUNIT_EXPECT_EQ(test, ctrl->w, 72057594037927936ULL);
	KUNIT_EXPECT_EQ(test, ctrl->recv, 72057594037927936ULL);
	KUNIT_EXPECT_EQ(test, ctrl->fr_avg, 72057594037927936ULL);
	KUNIT_EXPECT_EQ(test, ctrl->s, 1000000);
	/* R_e = 2^56, delta = 0 */
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_demand(ctrl, p, &k[0]), 72057594037927936ULL);
	KUNIT_EXPECT_EQ(test, k[0].re, 72057594037927936ULL);
	KUNIT_EXPECT_EQ(test, k[0].delta, 0);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_demand(ctrl, p, &k[1]), 72057594037927936ULL);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, &k[0], U64_MAX), 72057594037927936ULL);

	/* R = 1 of W = 2^56: s = 1e6 / 2^56 = 0, R_e = 0, delta = 2^56 */
	for (t = 0; t < 40; t++)
		run_update(ctrl, p, k, 2, 72057594037927936ULL, 1);
	KUNIT_EXPECT_EQ(test, ctrl->s, 0);
	KUNIT_EXPECT_EQ(test, k[0].delta, 72057594037927936LL);
	/* 32 * 2^56 = 2^61 */
	KUNIT_EXPECT_EQ(test, k[0].delta_sum, 2305843009213693952LL);
	/* 2^56 + min(2^61, 2^56) saturates at 2^56 */
	KUNIT_EXPECT_EQ(test, k[0].sd, 72057594037927936ULL);
	KUNIT_EXPECT_EQ(test, k[1].sd, 72057594037927936ULL);
	/* eq. 1 with W = 2^56: all of it to the first */
	KUNIT_EXPECT_EQ(test, k[0].g, 72057594037927936ULL);
	KUNIT_EXPECT_EQ(test, k[1].g, 0);

	/* F_r average of a saturated sum over many classes */
	er2bc_ctrl_begin(ctrl, p, 1, 1, U64_MAX, 4096);
	/* (2^64 - 1) / 2^12 = 2^52 - 1 */
	KUNIT_EXPECT_EQ(test, ctrl->fr_avg, 4503599627370495ULL);

	/* R_f / s_p right at the saturation point, s_p = 500000 */
	reset(ctrl, p);
	er2bc_ctrl_begin(ctrl, p, 2, 0, 0, 0);
	er2bc_ctrl_begin(ctrl, p, 2, 1, 0, 0);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 500000);
	/* (2^55 - 1) * 2 = 2^56 - 2 */
	er2bc_ctrl_class_init(&k[1], 36028797018963967ULL, ER2BC_TYPE_UDP);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_demand(ctrl, p, &k[1]), 72057594037927934ULL);
	/* 2^55 * 2 = 2^56 */
	er2bc_ctrl_class_init(&k[1], 36028797018963968ULL, ER2BC_TYPE_UDP);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_demand(ctrl, p, &k[1]), 72057594037927936ULL);
	/* (2^55 + 1) * 2 saturates */
	er2bc_ctrl_class_init(&k[1], 36028797018963969ULL, ER2BC_TYPE_UDP);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_demand(ctrl, p, &k[1]), 72057594037927936ULL);

	/* s_p = 1 millionth: 2^55 * 1e6 would need 76 bits; saturates */
	er2bc_ctrl_begin(ctrl, p, 1000000, 2, 0, 0);
	er2bc_ctrl_begin(ctrl, p, 1000000, 1, 0, 0);
	p->m = 1;
	er2bc_ctrl_begin(ctrl, p, 1000000, 1, 0, 0);
	KUNIT_EXPECT_EQ(test, ctrl->sp, 1);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_demand(ctrl, p, &k[1]), 72057594037927936ULL);
	/* 1000 * 1e6 / 1 */
	er2bc_ctrl_class_init(&k[1], 1000, ER2BC_TYPE_UDP);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_demand(ctrl, p, &k[1]), 1000000000);

	/* gradual convergence at 2^56: the dead band without overflow */
	p->converge = ER2BC_CONVERGE_GRADUAL;
	k[0].g = U64_MAX;
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, &k[0], 72057594037927935ULL),
			72057594037927936ULL);
	/* to 0: 2^56 - 2^56 / 4 = 3 * 2^54 */
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, &k[0], 0), 54043195528445952ULL);
}

/* the floor lifts guarantees of classes with a rate, not others */
static void ctrl_floor(struct kunit *test)
{
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_params *p = &e->p;
	struct er2bc_ctrl *ctrl = &e->ctrl;
	struct er2bc_ctrl_class *k = e->k;

	p->floor = 100000;
	er2bc_ctrl_class_init(&k[0], 900000, ER2BC_TYPE_UDP);
	er2bc_ctrl_class_init(&k[1], 400000, ER2BC_TYPE_UDP);
	er2bc_ctrl_class_init(&k[2], 0, ER2BC_TYPE_UDP);
	k[0].g = 900000;
	k[1].g = 100000;

	/* eq. 1: 900000, then the 100000 left, then nothing for R_f = 0 */
	run_update(ctrl, p, k, 3, 1000000, 0);
	KUNIT_EXPECT_EQ(test, k[0].g, 900000);
	KUNIT_EXPECT_EQ(test, k[1].g, 100000);
	KUNIT_EXPECT_EQ(test, k[2].sd, 0);
	KUNIT_EXPECT_EQ(test, k[2].g, 0);

	/*
	 * W = 900000: eq. 1 leaves the second class 0, and so does the floor:
	 * it is not taken from W beyond what the classes before it left
	 */
	run_update(ctrl, p, k, 3, 900000, 1000000);
	KUNIT_EXPECT_EQ(test, k[0].g, 900000);
	KUNIT_EXPECT_EQ(test, k[1].g, 0);
	KUNIT_EXPECT_EQ(test, k[2].g, 0);
	/* W = 950000: the floor would lift the second class to 100000; 50000 is left */
	run_update(ctrl, p, k, 3, 950000, 900000);
	KUNIT_EXPECT_EQ(test, k[0].g, 900000);
	KUNIT_EXPECT_EQ(test, k[1].g, 50000);

	/* above the floor, untouched */
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, &k[1], 250000), 250000);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, &k[1], 99999), 100000);
	KUNIT_EXPECT_EQ(test, k[1].g, 100000);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, &k[2], 0), 0);
	/* no floor */
	p->floor = 0;
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, &k[1], 0), 0);
}

/* gradual convergence: a dead band, decreases in steps, increases at once */
static void ctrl_gradual(struct kunit *test)
{
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_params *p = &e->p;
	struct er2bc_ctrl_class *k = &e->k[0];

	p->converge = ER2BC_CONVERGE_GRADUAL;
	er2bc_ctrl_class_init(k, 1000000, ER2BC_TYPE_UDP);

	/* from 0: at once */
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 1000000), 1000000);
	/* within 20000 / 1e6 of 1000000: 15000 * 1e6 <= 20000 * 1000000 */
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 1015000), 1000000);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 985000), 1000000);
	/* the edges of the band are in it */
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 1020000), 1000000);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 980000), 1000000);
	/* just beyond: an increase applies at once */
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 1020001), 1020001);
	KUNIT_EXPECT_EQ(test, k->g, 1020001);

	/* a decrease to 600000 moves a quarter of the way each time */
	k->g = 1000000;
	/* 1000000 - 400000 / 4 */
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 600000), 900000);
	/* 900000 - 300000 / 4 */
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 600000), 825000);
	/* 825000 - 225000 / 4 */
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 600000), 768750);
	/* 768750 - ceil(168750 / 4 = 42187.5) */
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 600000), 726562);
	/* 726562 - ceil(126562 / 4 = 31640.5) */
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 600000), 694921);
	/* an increase from there: at once */
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 2000000), 2000000);

	/* at least 1 bit/s a step: 3 - ceil(3 / 4), 2 - 1, 1 - 1 */
	k->g = 3;
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 0), 2);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 0), 1);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 0), 0);
	/* and from 0, at once */
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 7), 7);

	/* immediate: as given */
	p->converge = ER2BC_CONVERGE_IMMEDIATE;
	k->g = 1000000;
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 1015000), 1015000);
	KUNIT_EXPECT_EQ(test, er2bc_ctrl_settle(p, k, 600000), 600000);
	KUNIT_EXPECT_EQ(test, k->g, 600000);
}

/* gradual convergence in a whole update: W halves, a guarantee follows */
static void ctrl_gradual_update(struct kunit *test)
{
	struct ctrl_env *e = env_new(test);
	struct er2bc_ctrl_params *p = &e->p;
	struct er2bc_ctrl *ctrl = &e->ctrl;
	struct er2bc_ctrl_class *k = &e->k[0];

	p->converge = ER2BC_CONVERGE_GRADUAL;
	er2bc_ctrl_class_init(k, 800000, ER2BC_TYPE_UDP);
	k->g = 800000;
	run_update(ctrl, p, k, 1, 1000000, 0);
	KUNIT_EXPECT_EQ(test, k->g, 800000);
	/* eq. 1 gives 400000; 800000 - 400000 / 4 would exceed W: W */
	run_update(ctrl, p, k, 1, 400000, 1000000);
	KUNIT_EXPECT_EQ(test, k->sd, 800000);
	KUNIT_EXPECT_EQ(test, k->g, 400000);
	/* W back up: 800000 at once */
	run_update(ctrl, p, k, 1, 1000000, 400000);
	KUNIT_EXPECT_EQ(test, k->g, 800000);
	/* S_d falls to 400000 under a W that has room: 800000 - 400000 / 4 */
	er2bc_ctrl_class_init(k, 400000, ER2BC_TYPE_UDP);
	k->g = 800000;
	run_update(ctrl, p, k, 1, 1000000, 1000000);
	KUNIT_EXPECT_EQ(test, k->sd, 400000);
	KUNIT_EXPECT_EQ(test, k->g, 700000);
	/* 700000 - 300000 / 4 */
	run_update(ctrl, p, k, 1, 1000000, 1000000);
	KUNIT_EXPECT_EQ(test, k->g, 625000);
}

/* xorshift64*: the property test's draws, the same on every run */
static u64 prop_rand(u64 *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545F4914F6CDD1DULL;
}

/* a rate: none, a LAN's, anything up to 2^57, or next to 2^64 */
static u64 prop_rate(u64 *x)
{
	u64 r = prop_rand(x);

	switch (r & 3) {
	case 0:
		return 0;
	case 1:
		return (r >> 2) % 10000000;
	case 2:
		return (r >> 2) & (BIT_ULL(57) - 1);
	default:
		return U64_MAX - (r >> 2) % 3;
	}
}

#define PROP_CLASSES	8
#define PROP_SETS	1000
#define PROP_STEPS	100

struct prop_env {
	struct er2bc_ctrl ctrl;
	struct er2bc_ctrl_params p;
	struct er2bc_ctrl_class k[PROP_CLASSES];
	u64 rate[PROP_CLASSES], ceil[PROP_CLASSES];
};

/*
 * One round of guarantees, as er2bc_assign() hands them out, and what must
 * hold after it: the sum within W, each guarantee within its ceil, a TCP
 * class's within R_f + B_lim (or the floor), and eq. 1's priority: a class
 * gets what it asks (up to its ceil) or all that the classes before it
 * left, short by at most the dead band of gradual convergence. Rates are
 * drawn from 0, a LAN's, up to 2^57 and next to 2^64, so that the
 * saturation at ER2BC_CTRL_RATE_MAX and every sum near 2^64 are crossed.
 */
static void prop_round(struct kunit *test, struct prop_env *e, unsigned int n,
		       u64 w, bool estimate, unsigned int set, unsigned int step)
{
	const struct er2bc_ctrl_params *p = &e->p;
	struct er2bc_fill fill;
	u64 sum = 0, cap = w ? w : U64_MAX;
	unsigned int i;

	er2bc_fill_start(&fill, ER2BC_MODE_ER2BC, w);
	for (i = 0; i < n; i++) {
		struct er2bc_ctrl_class *k = &e->k[i];
		u64 old = k->g, left = cap - sum, want, g, slack;

		want = k->sd ? k->sd : e->rate[i];
		if (e->ceil[i])
			want = min(want, e->ceil[i]);
		g = er2bc_guarantee_next(&fill, p, k, e->rate[i], e->ceil[i], estimate);
		KUNIT_ASSERT_EQ_MSG(test, g, k->g, "set %u step %u class %u", set, step, i);
		KUNIT_ASSERT_LE_MSG(test, g, left, "set %u step %u class %u: above what W left",
				    set, step, i);
		sum += g;
		if (e->ceil[i])
			KUNIT_ASSERT_LE_MSG(test, g, e->ceil[i],
					    "set %u step %u class %u: above ceil", set, step, i);
		if (k->type == ER2BC_TYPE_TCP && k->rf)
			KUNIT_ASSERT_LE_MSG(test, g,
					    max(k->rf + min(p->blim, ER2BC_CTRL_RATE_MAX),
						min(p->floor, ER2BC_CTRL_RATE_MAX)),
					    "set %u step %u class %u: above R_f + B_lim",
					    set, step, i);
		slack = p->converge == ER2BC_CONVERGE_GRADUAL ?
			mul_u64_u64_div_u64(old, ER2BC_CTRL_DEADBAND, ER2BC_RATIO_ONE) : 0;
		/* guarantees saturate at ER2BC_CTRL_RATE_MAX, as every rate does */
		KUNIT_ASSERT_GE_MSG(test, g + slack, min3(want, left, ER2BC_CTRL_RATE_MAX),
				    "set %u step %u class %u: short of eq. 1 (want %llu, left %llu)",
				    set, step, i, want, left);
	}
	KUNIT_ASSERT_LE_MSG(test, sum, cap, "set %u step %u: guarantees above W", set, step);
}

static void ctrl_property(struct kunit *test)
{
	struct prop_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	unsigned int set, step, i, n;
	u64 x = 0x9E3779B97F4A7C15ULL, w;

	KUNIT_ASSERT_NOT_NULL(test, e);
	for (set = 0; set < PROP_SETS; set++) {
		er2bc_ctrl_init(&e->ctrl);
		er2bc_ctrl_params_default(&e->p);
		e->p.floor = prop_rand(&x) & 1 ? prop_rate(&x) : 0;
		e->p.blim = prop_rate(&x);
		e->p.converge = prop_rand(&x) & 1;
		e->p.c = 1 + prop_rand(&x) % ER2BC_CTRL_HIST_MAX;
		e->p.m = 1 + prop_rand(&x) % ER2BC_CTRL_HIST_MAX;
		n = 1 + prop_rand(&x) % PROP_CLASSES;
		for (i = 0; i < n; i++) {
			e->rate[i] = prop_rate(&x);
			e->ceil[i] = prop_rand(&x) & 1 ? 0 : prop_rate(&x);
			if (e->ceil[i] && e->ceil[i] < e->rate[i])
				e->ceil[i] = e->rate[i];
			er2bc_ctrl_class_init(&e->k[i], e->rate[i], prop_rand(&x) & 1);
		}
		w = prop_rate(&x);
		prop_round(test, e, n, w, false, set, 0);
		for (step = 1; step < PROP_STEPS; step++) {
			bool estimate = false;
			u64 fr_sum = 0;
			u32 fr_count = 0;

			switch (prop_rand(&x) % 4) {
			case 0:	/* a class changes, as er2bc_change_class() does it */
				i = prop_rand(&x) % n;
				e->rate[i] = prop_rate(&x);
				e->ceil[i] = prop_rand(&x) & 1 ? 0 : max(prop_rate(&x), e->rate[i]);
				er2bc_ctrl_class_init(&e->k[i], e->rate[i], prop_rand(&x) & 1);
				break;
			case 1:	/* W moves by tc */
				w = prop_rate(&x);
				break;
			default: /* an estimate */
				w = prop_rate(&x);
				for (i = 0; i < n; i++) {
					if (!er2bc_ctrl_in_fr(&e->k[i]))
						continue;
					fr_sum = min(fr_sum + min(e->k[i].g, ER2BC_CTRL_RATE_MAX),
						     ER2BC_CTRL_RATE_MAX);
					fr_count++;
				}
				er2bc_ctrl_begin(&e->ctrl, &e->p, w, prop_rate(&x), fr_sum,
						 fr_count);
				for (i = 0; i < n; i++)
					er2bc_ctrl_demand(&e->ctrl, &e->p, &e->k[i]);
				estimate = true;
				break;
			}
			prop_round(test, e, n, w, estimate, set, step);
		}
	}
}

static struct kunit_case er2bc_ctrl_cases[] = {
	KUNIT_CASE(ctrl_defaults),
	KUNIT_CASE(ctrl_math_vectors),
	KUNIT_CASE(ctrl_priority_order),
	KUNIT_CASE(ctrl_small_first),
	KUNIT_CASE(ctrl_tcp_demand),
	KUNIT_CASE(ctrl_tcp_average),
	KUNIT_CASE(ctrl_delta_window),
	KUNIT_CASE(ctrl_udp_sp),
	KUNIT_CASE(ctrl_margin),
	KUNIT_CASE(ctrl_s_history),
	KUNIT_CASE(ctrl_s_clamp),
	KUNIT_CASE(ctrl_first_update),
	KUNIT_CASE(ctrl_zero_and_one_class),
	KUNIT_CASE(ctrl_many_classes),
	KUNIT_CASE(ctrl_100g),
	KUNIT_CASE(ctrl_extremes),
	KUNIT_CASE(ctrl_floor),
	KUNIT_CASE(ctrl_gradual),
	KUNIT_CASE(ctrl_gradual_update),
	KUNIT_CASE_SLOW(ctrl_property),
	{}
};

static struct kunit_suite er2bc_ctrl_suite = {
	.name = "er2bc_ctrl",
	.test_cases = er2bc_ctrl_cases,
};

kunit_test_suite(er2bc_ctrl_suite);
