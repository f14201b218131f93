// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of tcp_rcvmgr's budget rule and assignment (seed 004,
 * sections 3.1, 3.2 and 5, and the comparators). Sizes in bytes, RTTs in
 * microseconds; expected values are worked out by hand in the comments.
 */
#include <kunit/test.h>
#include <kunit/resource.h>
#include <linux/math64.h>
#include <linux/vmalloc.h>

#include "assign.h"

#define INITIAL		TCP_RCVMGR_STATE_INITIAL
#define PERSISTENT	TCP_RCVMGR_STATE_PERSISTENT

static const struct rcvmgr_assign_params azuma = { .policy = TCP_RCVMGR_POLICY_AZUMA };

/*
 * n connections off the stack (KASAN's redzones make test frames large):
 * persistent, priority 1, RTT 10 ms, 1000-byte segments, unlimited demand
 */
static struct rcvmgr_share *conns_new(struct kunit *test, unsigned int n)
{
	struct rcvmgr_share *s = kunit_kcalloc(test, n, sizeof(*s), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < n; i++) {
		s[i].mss = 1000;
		s[i].rtt_us = 10000;
		s[i].priority = 1;
		s[i].demand = U32_MAX;
		s[i].state = PERSISTENT;
	}
	return s;
}

static u64 window_sum(const struct rcvmgr_share *s, unsigned int n)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		sum += s[i].window;
	return sum;
}

/* --- the budget rule (section 3.1) --- */

static void assign_rtt_increased(struct kunit *test)
{
	/* an interval without an RTT is no evidence */
	KUNIT_EXPECT_FALSE(test, rcvmgr_rtt_increased(0, 5000, 10));
	KUNIT_EXPECT_FALSE(test, rcvmgr_rtt_increased(5000, 0, 10));
	KUNIT_EXPECT_FALSE(test, rcvmgr_rtt_increased(0, 0, 0));
	/* 10% of 100 ms is 10 ms: more than that counts */
	KUNIT_EXPECT_FALSE(test, rcvmgr_rtt_increased(100000, 110000, 10));
	KUNIT_EXPECT_TRUE(test, rcvmgr_rtt_increased(100000, 110001, 10));
	KUNIT_EXPECT_FALSE(test, rcvmgr_rtt_increased(100000, 50000, 0));
	/* 10% of 2 ms is below the 1 ms floor */
	KUNIT_EXPECT_FALSE(test, rcvmgr_rtt_increased(2000, 3000, 10));
	KUNIT_EXPECT_TRUE(test, rcvmgr_rtt_increased(2000, 3001, 10));
	/* no tolerance: the floor alone */
	KUNIT_EXPECT_FALSE(test, rcvmgr_rtt_increased(5000, 6000, 0));
	KUNIT_EXPECT_TRUE(test, rcvmgr_rtt_increased(5000, 6001, 0));
	/* u32 extremes: prev + margin is not wrapped */
	KUNIT_EXPECT_FALSE(test, rcvmgr_rtt_increased(U32_MAX, U32_MAX, 1000));
	KUNIT_EXPECT_TRUE(test, rcvmgr_rtt_increased(1, U32_MAX, U32_MAX));
	KUNIT_EXPECT_TRUE(test, rcvmgr_rtt_increased(U32_MAX - 1001, U32_MAX, 0));
	KUNIT_EXPECT_FALSE(test, rcvmgr_rtt_increased(U32_MAX - 1000, U32_MAX, 0));
	/* 2147483647 + 100% = 4294967294 < U32_MAX; one more reaches 2^32 */
	KUNIT_EXPECT_TRUE(test, rcvmgr_rtt_increased(2147483647, U32_MAX, 100));
	KUNIT_EXPECT_FALSE(test, rcvmgr_rtt_increased(2147483648U, U32_MAX, 100));
	KUNIT_EXPECT_FALSE(test, rcvmgr_rtt_increased(U32_MAX, U32_MAX, U32_MAX));
}

static void assign_trend(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_trend(0, 0), RCVMGR_TREND_HOLD);
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_trend(0, 3), RCVMGR_TREND_HOLD);
	/* no connection's RTT increased */
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_trend(1, 0), RCVMGR_TREND_UP);
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_trend(4, 0), RCVMGR_TREND_UP);
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_trend(UINT_MAX, 0), RCVMGR_TREND_UP);
	/* all of them */
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_trend(1, 1), RCVMGR_TREND_DOWN);
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_trend(4, 4), RCVMGR_TREND_DOWN);
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_trend(UINT_MAX, UINT_MAX), RCVMGR_TREND_DOWN);
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_trend(2, 3), RCVMGR_TREND_DOWN);
	/* some: a bottleneck elsewhere */
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_trend(4, 1), RCVMGR_TREND_HOLD);
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_trend(4, 3), RCVMGR_TREND_HOLD);
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_trend(UINT_MAX, UINT_MAX - 1), RCVMGR_TREND_HOLD);
}

static void assign_probe(struct kunit *test)
{
	/* split votes in a row, intervals since the last probe */
	KUNIT_EXPECT_FALSE(test, rcvmgr_probe_due(0, U32_MAX));
	KUNIT_EXPECT_FALSE(test, rcvmgr_probe_due(RCVMGR_PROBE_SPLITS - 1, U32_MAX));
	KUNIT_EXPECT_TRUE(test, rcvmgr_probe_due(RCVMGR_PROBE_SPLITS, RCVMGR_PROBE_GAP));
	KUNIT_EXPECT_FALSE(test, rcvmgr_probe_due(RCVMGR_PROBE_SPLITS, RCVMGR_PROBE_GAP - 1));
	KUNIT_EXPECT_TRUE(test, rcvmgr_probe_due(U32_MAX, U32_MAX));

	/* a quarter of B, within budget-min and B */
	KUNIT_EXPECT_EQ(test, rcvmgr_probe_budget(32768, 6144), 8192);
	KUNIT_EXPECT_EQ(test, rcvmgr_probe_budget(16384, 6144), 6144);
	KUNIT_EXPECT_EQ(test, rcvmgr_probe_budget(4096, 6144), 4096);
	KUNIT_EXPECT_EQ(test, rcvmgr_probe_budget(U32_MAX, 0), U32_MAX / 4);
	KUNIT_EXPECT_EQ(test, rcvmgr_probe_budget(0, 0), 0);

	/* three RTTs, from 20 ms to half the interval */
	KUNIT_EXPECT_EQ(test, rcvmgr_probe_ns(64000, 1000), 192000ULL * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, rcvmgr_probe_ns(1000, 1000), 20000ULL * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, rcvmgr_probe_ns(0, 5000), 20000ULL * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, rcvmgr_probe_ns(400000, 1000), 500ULL * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, rcvmgr_probe_ns(U32_MAX, U32_MAX),
			(u64)U32_MAX * RCVMGR_PROBE_RTTS * NSEC_PER_USEC);
	/* an interval shorter than 40 ms: half of it */
	KUNIT_EXPECT_EQ(test, rcvmgr_probe_ns(64000, 10), 5ULL * NSEC_PER_MSEC);
}

static void assign_budget_next(struct kunit *test)
{
	struct rcvmgr_budget_params p = {
		.min = 10000, .max = 1000000, .step = 5000, .decrease = 100,
	};

	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(100000, RCVMGR_TREND_HOLD, &p), 100000);
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(100000, RCVMGR_TREND_UP, &p), 105000);
	/* 10% of it */
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(100000, RCVMGR_TREND_DOWN, &p), 90000);
	/* 123457 - 12345 (12345.7 rounded down) */
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(123457, RCVMGR_TREND_DOWN, &p), 111112);
	/* clamped, whatever the trend */
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(998000, RCVMGR_TREND_UP, &p), 1000000);
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(10500, RCVMGR_TREND_DOWN, &p), 10000);
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(5000, RCVMGR_TREND_HOLD, &p), 10000);
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(2000000, RCVMGR_TREND_HOLD, &p), 1000000);
	/* min above max: max wins */
	p.min = 500;
	p.max = 400;
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(450, RCVMGR_TREND_HOLD, &p), 400);
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(0, RCVMGR_TREND_UP, &p), 400);
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(100, RCVMGR_TREND_DOWN, &p), 400);

	/* u32 extremes saturate */
	p = (struct rcvmgr_budget_params) {
		.min = 0, .max = U32_MAX, .step = U32_MAX, .decrease = 1000,
	};
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(U32_MAX, RCVMGR_TREND_UP, &p), U32_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(1, RCVMGR_TREND_UP, &p), U32_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(U32_MAX, RCVMGR_TREND_DOWN, &p), 0);
	p.decrease = U32_MAX;
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(1000, RCVMGR_TREND_DOWN, &p), 0);
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(U32_MAX, RCVMGR_TREND_DOWN, &p), 0);
	p.decrease = 1;
	/* 4294967295 - 4294967 */
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(U32_MAX, RCVMGR_TREND_DOWN, &p), 4290672328U);
	p.step = 0;
	KUNIT_EXPECT_EQ(test, rcvmgr_budget_next(777, RCVMGR_TREND_UP, &p), 777);
}

static void assign_slow_start(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(0, 1460, 2), 2920);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(3, 1000, 2), 16000);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(10, 1460, 2), 2990080);
	/* 2 * 2^13 * 65535 is exactly 65535 << 14 */
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(12, 65535, 2), 65535U << 13);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(13, 65535, 2), RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(14, 65535, 2), RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(28, 1, 2), 1U << 29);
	/* 2^30 is past 65535 << 14 */
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(29, 1, 2), RCVMGR_WINDOW_MAX);
	/* shifts a u32 or u64 could not take */
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(31, 1, 2), RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(32, 1, 2), RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(63, 1, 2), RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(64, 1, 2), RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(U32_MAX, 1, 2), RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(0, U32_MAX, 2), RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(U32_MAX, U32_MAX, 2), RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(5, 0, 2), 0);

	/* the initial window of Linux senders (RFC 6928): 10, 20, 40 ... */
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(0, 1448, 10), 14480);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(1, 1448, 10), 28960);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(3, 1000, 10), 80000);
	/* 1024 * 2^6 * 16384 is exactly 2^30; 1024 * 2^4 * 65535 is 65535 << 14 */
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(6, 16384, 1024), RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(4, 65535, 1024), 65535U << 14);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(3, 65535, 1024), 65535U << 13);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(0, U32_MAX, 1024), RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(29, 1, 1024), RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(U32_MAX, U32_MAX, U32_MAX),
			RCVMGR_WINDOW_MAX);
	/* outside RCVMGR_IW_MIN..RCVMGR_IW_MAX: the nearest of them */
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(0, 1460, 0), 2920);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(0, 1460, 1), 2920);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(0, 1000, 1025), 1024000);
	KUNIT_EXPECT_EQ(test, rcvmgr_slow_start_window(0, 1000, U32_MAX), 1024000);
}

static void assign_rtts_since(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rcvmgr_rtts_since(1000000, 50000), 20);
	KUNIT_EXPECT_EQ(test, rcvmgr_rtts_since(49999, 50000), 0);
	KUNIT_EXPECT_EQ(test, rcvmgr_rtts_since(50000, 50000), 1);
	KUNIT_EXPECT_EQ(test, rcvmgr_rtts_since(12345, 0), 0);
	KUNIT_EXPECT_EQ(test, rcvmgr_rtts_since(U32_MAX, 1), U32_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_rtts_since((u64)U32_MAX + 1, 1), U32_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_rtts_since(U64_MAX, 1), U32_MAX);
	/* U64_MAX / U32_MAX = 2^32 + 1 */
	KUNIT_EXPECT_EQ(test, rcvmgr_rtts_since(U64_MAX, U32_MAX), U32_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_rtts_since((u64)U32_MAX * 1000, 1000), U32_MAX);
	KUNIT_EXPECT_EQ(test, rcvmgr_rtts_since((u64)(U32_MAX - 1) * 1000 + 999, 1000),
			U32_MAX - 1);
}

/* --- the assignment (section 3.2) --- */

static const u8 assign_policies[] = {
	TCP_RCVMGR_POLICY_OFF, TCP_RCVMGR_POLICY_AZUMA,
	TCP_RCVMGR_POLICY_SPRING, TCP_RCVMGR_POLICY_EQUAL,
};

static void assign_policy_desc(const u8 *policy, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "policy %u", *policy);
}

KUNIT_ARRAY_PARAM(assign_policy, assign_policies, assign_policy_desc);

/* no connection: nothing is read or written, whatever the policy */
static void assign_none(struct kunit *test)
{
	struct rcvmgr_assign_params p = { .policy = *(const u8 *)test->param_value };
	struct rcvmgr_share *s = conns_new(test, 1);

	s[0].state = INITIAL;
	s[0].window = 1234;
	s[0].threshold = 5678;
	rcvmgr_assign(NULL, 0, 100000, &p);
	rcvmgr_assign(s, 0, 100000, &p);
	KUNIT_EXPECT_EQ(test, s[0].window, 1234);
	KUNIT_EXPECT_EQ(test, s[0].threshold, 5678);
	KUNIT_EXPECT_EQ(test, s[0].state, INITIAL);
	KUNIT_EXPECT_EQ(test, rcvmgr_assign_initial(NULL, 0, 100000, 2), 0);
}

/* priorities 1 and 2, RTTs 10 and 30 ms: weights 10000 and 60000, 1:6 (2-a) */
static void assign_weights(struct kunit *test)
{
	struct rcvmgr_share *s = conns_new(test, 2);

	s[1].priority = 2;
	s[1].rtt_us = 30000;
	rcvmgr_assign(s, 2, 700000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].threshold, 100000);
	KUNIT_EXPECT_EQ(test, s[1].threshold, 600000);
	KUNIT_EXPECT_EQ(test, s[0].window, 100000);
	KUNIT_EXPECT_EQ(test, s[1].window, 600000);
	KUNIT_EXPECT_EQ(test, s[0].state, PERSISTENT);
	KUNIT_EXPECT_EQ(test, s[1].state, PERSISTENT);

	/* 70001 * 1/7 = 10000.14, * 6/7 = 60000.86: rounded down */
	rcvmgr_assign(s, 2, 70001, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].threshold, 10000);
	KUNIT_EXPECT_EQ(test, s[1].threshold, 60000);
	KUNIT_EXPECT_EQ(test, s[0].window, 10000);
	KUNIT_EXPECT_EQ(test, s[1].window, 60000);

	/* priority alone: 1 and 1000 at the same RTT, 1:1000 */
	s[1].priority = 1000;
	s[1].rtt_us = 10000;
	rcvmgr_assign(s, 2, 2002000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].window, 2000);
	KUNIT_EXPECT_EQ(test, s[1].window, 2000000);
	/* a priority past the maximum counts as the maximum, 0 as 1 */
	s[0].priority = 0;
	s[1].priority = U32_MAX;
	rcvmgr_assign(s, 2, 2002000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].window, 2000);
	KUNIT_EXPECT_EQ(test, s[1].window, 2000000);
}

/*
 * (1-a): B = 90000 over three equal weights: thresholds 30000. The initial
 * ones need 2 * 2^0 * 1000 = 2000 and 2 * 2^3 * 1000 = 16000, within their
 * thresholds, and get that: T_is = 18000, the persistent one the 72000 left.
 */
static void assign_initial_fits(struct kunit *test)
{
	struct rcvmgr_share *s = conns_new(test, 3);

	s[0].state = INITIAL;
	s[0].rtts = 0;
	s[1].state = INITIAL;
	s[1].rtts = 3;
	rcvmgr_assign(s, 3, 90000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].threshold, 30000);
	KUNIT_EXPECT_EQ(test, s[1].threshold, 30000);
	KUNIT_EXPECT_EQ(test, s[2].threshold, 30000);
	KUNIT_EXPECT_EQ(test, s[0].state, INITIAL);
	KUNIT_EXPECT_EQ(test, s[1].state, INITIAL);
	KUNIT_EXPECT_EQ(test, s[2].state, PERSISTENT);
	KUNIT_EXPECT_EQ(test, s[0].window, 2000);
	KUNIT_EXPECT_EQ(test, s[1].window, 16000);
	KUNIT_EXPECT_EQ(test, s[2].window, 72000);

	/* through the stage alone: T_is is the sum of the needs */
	KUNIT_EXPECT_EQ(test, rcvmgr_assign_initial(s, 3, 18000, 2), 18000);
	KUNIT_EXPECT_EQ(test, s[0].window, 2000);
	KUNIT_EXPECT_EQ(test, s[1].window, 16000);
	/* the persistent one is not touched */
	KUNIT_EXPECT_EQ(test, s[2].window, 72000);
}

/*
 * (1-b), with thresholds given: needs 4000, 8000, 16000 (t = 1, 2, 3),
 * thresholds 10000, 20000, 12000: differences 6000, 12000 and -4000,
 * which counts as 0. The needs (28000) pass B = 24000: B is shared by the
 * differences, 24000 * 6000 / 18000 = 8000 (more than the need, as the
 * thesis's formula gives), 24000 * 12000 / 18000 = 16000, and 0, raised to
 * a segment.
 */
static void assign_initial_short(struct kunit *test)
{
	struct rcvmgr_share *s = conns_new(test, 4);
	int i;

	for (i = 0; i < 3; i++) {
		s[i].state = INITIAL;
		s[i].rtts = i + 1;
	}
	s[0].threshold = 10000;
	s[1].threshold = 20000;
	s[2].threshold = 12000;
	s[3].window = 777;
	KUNIT_EXPECT_EQ(test, rcvmgr_assign_initial(s, 4, 24000, 2), 24000);
	KUNIT_EXPECT_EQ(test, s[0].window, 8000);
	KUNIT_EXPECT_EQ(test, s[1].window, 16000);
	KUNIT_EXPECT_EQ(test, s[2].window, 1000);
	KUNIT_EXPECT_EQ(test, s[3].window, 777);
	/* the stage moves no connection */
	KUNIT_EXPECT_EQ(test, s[2].state, INITIAL);
	KUNIT_EXPECT_EQ(test, s[3].state, PERSISTENT);

	/* 25000 * 6000 / 18000 = 8333.3, 25000 * 12000 / 18000 = 16666.7 */
	KUNIT_EXPECT_EQ(test, rcvmgr_assign_initial(s, 4, 25000, 2), 25000);
	KUNIT_EXPECT_EQ(test, s[0].window, 8333);
	KUNIT_EXPECT_EQ(test, s[1].window, 16666);
	KUNIT_EXPECT_EQ(test, s[2].window, 1000);

	/* the needs fit: (1-a) */
	KUNIT_EXPECT_EQ(test, rcvmgr_assign_initial(s, 4, 28000, 2), 28000);
	KUNIT_EXPECT_EQ(test, s[0].window, 4000);
	KUNIT_EXPECT_EQ(test, s[1].window, 8000);
	KUNIT_EXPECT_EQ(test, s[2].window, 16000);

	/* every difference 0: B shared equally, a segment at least */
	s[0].threshold = 4000;
	s[1].threshold = 8000;
	s[2].threshold = 16000;
	KUNIT_EXPECT_EQ(test, rcvmgr_assign_initial(s, 4, 24000, 2), 24000);
	KUNIT_EXPECT_EQ(test, s[0].window, 8000);
	KUNIT_EXPECT_EQ(test, s[1].window, 8000);
	KUNIT_EXPECT_EQ(test, s[2].window, 8000);
	KUNIT_EXPECT_EQ(test, rcvmgr_assign_initial(s, 4, 2000, 2), 2000);
	KUNIT_EXPECT_EQ(test, s[0].window, 1000);
	KUNIT_EXPECT_EQ(test, s[1].window, 1000);
	KUNIT_EXPECT_EQ(test, s[2].window, 1000);

	/* no initial connection: nothing taken, nothing written */
	for (i = 0; i < 3; i++)
		s[i].state = PERSISTENT;
	KUNIT_EXPECT_EQ(test, rcvmgr_assign_initial(s, 4, 24000, 2), 0);
	KUNIT_EXPECT_EQ(test, s[0].window, 1000);
	KUNIT_EXPECT_EQ(test, s[3].window, 777);
}

/*
 * Initial connections become persistent exactly when their slow-start
 * size passes their threshold, and never go back.
 */
static void assign_transition(struct kunit *test)
{
	struct rcvmgr_assign_params p = { .policy = TCP_RCVMGR_POLICY_EQUAL };
	struct rcvmgr_share *s = conns_new(test, 2);

	/* alone, threshold_0 = B; it needs 2 * 2^3 * 1000 = 16000 */
	s[0].state = INITIAL;
	s[0].rtts = 3;
	rcvmgr_assign(s, 1, 16000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].threshold, 16000);
	KUNIT_EXPECT_EQ(test, s[0].state, INITIAL);
	KUNIT_EXPECT_EQ(test, s[0].window, 16000);
	rcvmgr_assign(s, 1, 15999, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].threshold, 15999);
	KUNIT_EXPECT_EQ(test, s[0].state, PERSISTENT);
	KUNIT_EXPECT_EQ(test, s[0].window, 15999);
	/* its need is far within its threshold again: it stays persistent */
	s[0].rtts = 0;
	rcvmgr_assign(s, 1, 1000000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].state, PERSISTENT);
	KUNIT_EXPECT_EQ(test, s[0].window, 1000000);

	/* the threshold counts every connection: B / 2 each */
	s[0].state = INITIAL;
	s[0].rtts = 3;
	rcvmgr_assign(s, 2, 32000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].threshold, 16000);
	KUNIT_EXPECT_EQ(test, s[0].state, INITIAL);
	KUNIT_EXPECT_EQ(test, s[0].window, 16000);
	KUNIT_EXPECT_EQ(test, s[1].window, 16000);
	/* 31999 / 2 = 15999.5: 16000 passes it; both share by weight */
	rcvmgr_assign(s, 2, 31999, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].threshold, 15999);
	KUNIT_EXPECT_EQ(test, s[0].state, PERSISTENT);
	KUNIT_EXPECT_EQ(test, s[0].window, 15999);
	KUNIT_EXPECT_EQ(test, s[1].window, 15999);

	/* the other policies move no connection */
	s[0].state = INITIAL;
	s[0].rtts = 10;
	rcvmgr_assign(s, 2, 31999, &p);
	KUNIT_EXPECT_EQ(test, s[0].state, INITIAL);
	p.policy = TCP_RCVMGR_POLICY_OFF;
	rcvmgr_assign(s, 2, 31999, &p);
	KUNIT_EXPECT_EQ(test, s[0].state, INITIAL);
	KUNIT_EXPECT_EQ(test, s[1].state, PERSISTENT);
}

/*
 * (2-b): an initial connection of priority 1000 (weight 10^7) and two
 * persistent ones of priority 1 (10^4), B = 10000: threshold_0 =
 * 10000 * 10^7 / 10020000 = 9980 >= its need 2 * 2^2 * 1000 = 8000, so it
 * stays initial and takes 8000; the 2000 left is not a segment (1460)
 * each, so a segment each.
 */
static void assign_persistent_short(struct kunit *test)
{
	struct rcvmgr_share *s = conns_new(test, 3);

	s[0].state = INITIAL;
	s[0].priority = 1000;
	s[0].rtts = 2;
	s[1].mss = 1460;
	s[2].mss = 1460;
	rcvmgr_assign(s, 3, 10000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].threshold, 9980);
	/* 10000 * 10^4 / 10020000 = 9, a segment at least */
	KUNIT_EXPECT_EQ(test, s[1].threshold, 1460);
	KUNIT_EXPECT_EQ(test, s[0].state, INITIAL);
	KUNIT_EXPECT_EQ(test, s[0].window, 8000);
	KUNIT_EXPECT_EQ(test, s[1].window, 1460);
	KUNIT_EXPECT_EQ(test, s[2].window, 1460);

	/* B = 11000: 3000 left, (2-a), 1500 each */
	rcvmgr_assign(s, 3, 11000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].threshold, 10978);
	KUNIT_EXPECT_EQ(test, s[0].window, 8000);
	KUNIT_EXPECT_EQ(test, s[1].window, 1500);
	KUNIT_EXPECT_EQ(test, s[2].window, 1500);
}

/*
 * The one-segment floor in (2-a): weights 1000 and 99000 over B = 100000
 * give 1000 and 99000, but 1000 is below a segment (1460): it gets 1460,
 * taken from the other, which gets the 98540 left.
 */
static void assign_floor(struct kunit *test)
{
	struct rcvmgr_share *s = conns_new(test, 3);
	int i;

	for (i = 0; i < 3; i++) {
		s[i].mss = 1460;
		s[i].rtt_us = 1000;
	}
	s[1].priority = 99;
	rcvmgr_assign(s, 2, 100000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].threshold, 1460);
	KUNIT_EXPECT_EQ(test, s[1].threshold, 99000);
	KUNIT_EXPECT_EQ(test, s[0].window, 1460);
	KUNIT_EXPECT_EQ(test, s[1].window, 98540);
	KUNIT_EXPECT_EQ(test, window_sum(s, 2), 100000);

	/* weights 1000, 49500, 49500: the two share 98540 */
	s[1].priority = 99;
	s[1].rtt_us = 500;
	s[2].priority = 99;
	s[2].rtt_us = 500;
	rcvmgr_assign(s, 3, 100000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].window, 1460);
	KUNIT_EXPECT_EQ(test, s[1].window, 49270);
	KUNIT_EXPECT_EQ(test, s[2].window, 49270);

	/* not even a segment each: a segment each, over B (2-b) */
	rcvmgr_assign(s, 3, 4000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].window, 1460);
	KUNIT_EXPECT_EQ(test, s[1].window, 1460);
	KUNIT_EXPECT_EQ(test, s[2].window, 1460);
	/* exactly a segment each: (2-a), within B */
	rcvmgr_assign(s, 3, 4380, &azuma);
	KUNIT_EXPECT_EQ(test, window_sum(s, 3), 4380);
}

/* an unmeasured RTT weighs as the mean of the measured ones, or as 1 */
static void assign_rtt_zero(struct kunit *test)
{
	struct rcvmgr_share *s = conns_new(test, 3);

	/* mean 20000: weights 10000, 30000, 20000 */
	s[1].rtt_us = 30000;
	s[2].rtt_us = 0;
	rcvmgr_assign(s, 3, 600000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].window, 100000);
	KUNIT_EXPECT_EQ(test, s[1].window, 300000);
	KUNIT_EXPECT_EQ(test, s[2].window, 200000);
	KUNIT_EXPECT_EQ(test, s[2].threshold, 200000);
	KUNIT_EXPECT_EQ(test, s[2].rtt_us, 0);

	/* the mean of 10000 and 10001 rounds down: 10000, 10001, 10000 */
	s[1].rtt_us = 10001;
	rcvmgr_assign(s, 3, 300010, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].window, 100000);
	KUNIT_EXPECT_EQ(test, s[1].window, 100010);
	KUNIT_EXPECT_EQ(test, s[2].window, 100000);

	/* none measured: by priority alone */
	s[0].rtt_us = 0;
	s[1].rtt_us = 0;
	s[1].priority = 3;
	rcvmgr_assign(s, 2, 400000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].window, 100000);
	KUNIT_EXPECT_EQ(test, s[1].window, 300000);
}

/*
 * Section 5: what a connection cannot use (its demand is below its share)
 * goes to the others by weight; it keeps its demand, a segment at least.
 */
static void assign_reassign(struct kunit *test)
{
	struct rcvmgr_share *s = conns_new(test, 4);

	/* equal weights, B = 300000: 100000 each, but one uses 40000 */
	s[0].demand = 40000;
	rcvmgr_assign(s, 3, 300000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].window, 40000);
	KUNIT_EXPECT_EQ(test, s[1].window, 130000);
	KUNIT_EXPECT_EQ(test, s[2].window, 130000);
	/* the threshold is the share, whatever the demand */
	KUNIT_EXPECT_EQ(test, s[0].threshold, 100000);

	/* a demand of exactly the share is not limiting; one byte less is */
	s[0].demand = 100000;
	rcvmgr_assign(s, 3, 300000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].window, 100000);
	KUNIT_EXPECT_EQ(test, s[1].window, 100000);
	s[0].demand = 99999;
	rcvmgr_assign(s, 3, 300000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].window, 99999);
	/* 200001 / 2 rounded down */
	KUNIT_EXPECT_EQ(test, s[1].window, 100000);
	KUNIT_EXPECT_EQ(test, s[2].window, 100000);

	/* a demand below a segment: a segment */
	s[0].demand = 100;
	rcvmgr_assign(s, 3, 300000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].window, 1000);
	KUNIT_EXPECT_EQ(test, s[1].window, 149500);
	KUNIT_EXPECT_EQ(test, s[2].window, 149500);

	/* by weight: priorities 1, 1, 2, B = 400000; 20000 used, 380000 1:2 */
	s[0].demand = 20000;
	s[2].priority = 2;
	rcvmgr_assign(s, 3, 400000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].window, 20000);
	KUNIT_EXPECT_EQ(test, s[1].window, 126666);
	KUNIT_EXPECT_EQ(test, s[2].window, 253333);

	/*
	 * a cascade: 100000 each at first, one uses 10000; then 130000 each
	 * for three, but one uses 120000; the last two share 270000
	 */
	s[2].priority = 1;
	s[0].demand = 10000;
	s[1].demand = 120000;
	rcvmgr_assign(s, 4, 400000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].window, 10000);
	KUNIT_EXPECT_EQ(test, s[1].window, 120000);
	KUNIT_EXPECT_EQ(test, s[2].window, 135000);
	KUNIT_EXPECT_EQ(test, s[3].window, 135000);
	KUNIT_EXPECT_EQ(test, window_sum(s, 4), 400000);

	/* all limited: each its demand, the rest of B unassigned */
	s[0].demand = 1000;
	s[1].demand = 2000;
	s[2].demand = 3000;
	rcvmgr_assign(s, 3, 100000, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].window, 1000);
	KUNIT_EXPECT_EQ(test, s[1].window, 2000);
	KUNIT_EXPECT_EQ(test, s[2].window, 3000);

	/* unlimited is still at most the largest window */
	s[0].demand = U32_MAX;
	s[1].demand = U32_MAX;
	rcvmgr_assign(s, 1, U32_MAX, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].window, RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, s[0].threshold, U32_MAX);
	rcvmgr_assign(s, 2, U32_MAX, &azuma);
	KUNIT_EXPECT_EQ(test, s[0].window, RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, s[1].window, RCVMGR_WINDOW_MAX);
}

/*
 * Demands that make the exact water-filling settle one connection per
 * pass: weights 4^(n-1-k), each demand half the connection's share at the
 * level reached once the ones before are capped (the level then grows
 * 2.5 times per pass, so no later demand is reached early). Returns the
 * window the last connection gets: all that is left.
 */
static u64 cascade(struct rcvmgr_share *s, unsigned int n, u32 budget)
{
	u64 rest = budget, weight = 0;
	unsigned int k;

	for (k = 0; k < n; k++) {
		s[k].mss = 1;
		s[k].rtt_us = 1U << (2 * (n - 1 - k));
		weight += s[k].rtt_us;
	}
	for (k = 0; k + 1 < n; k++) {
		s[k].demand = div64_u64(rest * s[k].rtt_us, weight) / 2;
		rest -= s[k].demand;
		weight -= s[k].rtt_us;
	}
	return rest;
}

/*
 * 5 connections settle one by one, exactly; 11 and 15 need the bisection.
 * Priority 2^9 scales every weight alike (to 2^39): the same windows.
 */
static const struct cascade_case {
	unsigned int n;
	u32 priority;
} cascade_cases[] = {
	{ 6, 1 }, { 6, 512 }, { 12, 1 }, { 12, 512 }, { 16, 1 }, { 16, 512 },
};

static void cascade_desc(const struct cascade_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u connections at priority %u", c->n, c->priority);
}

KUNIT_ARRAY_PARAM(cascade, cascade_cases, cascade_desc);

static void assign_cascade(struct kunit *test)
{
	const struct cascade_case *c = test->param_value;
	struct rcvmgr_share *s = conns_new(test, c->n);
	u64 last = cascade(s, c->n, 1U << 30);
	unsigned int k;

	KUNIT_ASSERT_LT(test, 6 - 1, RCVMGR_FILL_EXACT_PASSES);
	KUNIT_ASSERT_GT(test, 12 - 1, RCVMGR_FILL_EXACT_PASSES);
	for (k = 0; k < c->n; k++)
		s[k].priority = c->priority;
	rcvmgr_assign(s, c->n, 1U << 30, &azuma);
	for (k = 0; k + 1 < c->n; k++)
		KUNIT_EXPECT_EQ_MSG(test, s[k].window, s[k].demand, "k %u", k);
	KUNIT_EXPECT_EQ(test, s[c->n - 1].window, last);
	KUNIT_EXPECT_EQ(test, window_sum(s, c->n), 1U << 30);
}

/* xorshift32: the same connections on every run */
static u32 next_rand(u32 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/*
 * Persistent connection i could take more (it is below its cap): no
 * persistent connection above its floor may be above i's level, window / w
 */
static void check_level(struct kunit *test, const struct rcvmgr_share *s, const u64 *w,
			unsigned int n, unsigned int i)
{
	unsigned int j;

	for (j = 0; j < n; j++) {
		if (s[j].state == INITIAL || s[j].window <= s[j].mss)
			continue;
		KUNIT_ASSERT_LT_MSG(test, s[j].window * w[i], (s[i].window + 1) * w[j],
				    "%u below its level, %u above", i, j);
	}
}

/*
 * Random connections (priorities, RTTs, demands, states) against what
 * rcvmgr_assign() promises under azuma: thresholds as defined, the
 * transition exactly as defined, initial windows their needs within B, and
 * for the persistent ones either a segment each (2-b) or a weighted max-min
 * fair share of what is left: within [segment, demand], within the rest,
 * none left unassigned but rounding unless every one is at its demand, and
 * no connection below its share level while another is above it.
 */
static void assign_random(struct kunit *test)
{
	static const u32 mss[] = { 536, 1000, 1460, 9000 };
	static const u32 iws[] = { 2, 4, 10, 64 };
	struct rcvmgr_assign_params p = azuma;
	const unsigned int nmax = 24;
	struct rcvmgr_share *s = conns_new(test, nmax);
	u8 *was = kunit_kcalloc(test, nmax, sizeof(*was), GFP_KERNEL);
	u64 *w = kunit_kcalloc(test, nmax, sizeof(*w), GFP_KERNEL);
	unsigned int trial, i;
	u32 x = 2463534242U;

	KUNIT_ASSERT_NOT_NULL(test, was);
	KUNIT_ASSERT_NOT_NULL(test, w);
	for (trial = 0; trial < 2000; trial++) {
		unsigned int n = 1 + next_rand(&x) % nmax, measured = 0, free = 0;
		u32 budget = next_rand(&x) % (trial % 2 ? 400000 : 4000000);
		u64 rtt_sum = 0, total = 0, needs = 0, floors = 0, rest, sum = 0;
		u32 mean;

		p.initial_window = iws[next_rand(&x) % ARRAY_SIZE(iws)];
		for (i = 0; i < n; i++) {
			struct rcvmgr_share *c = &s[i];

			c->mss = mss[next_rand(&x) % ARRAY_SIZE(mss)];
			c->priority = 1 + next_rand(&x) % 1000;
			c->rtt_us = next_rand(&x) % 8 ? 1000 + next_rand(&x) % 200000 : 0;
			c->demand = next_rand(&x) % 2 ? U32_MAX : next_rand(&x) % 300000;
			c->state = next_rand(&x) % 3 ? PERSISTENT : INITIAL;
			c->rtts = next_rand(&x) % 12;
			c->window = 0;
			was[i] = c->state;
			if (c->rtt_us) {
				rtt_sum += c->rtt_us;
				measured++;
			}
		}
		mean = measured ? div_u64(rtt_sum, measured) : 1;
		for (i = 0; i < n; i++) {
			w[i] = (u64)s[i].priority * (s[i].rtt_us ?: mean);
			total += w[i];
		}

		rcvmgr_assign(s, n, budget, &p);

		for (i = 0; i < n; i++) {
			struct rcvmgr_share *c = &s[i];
			u32 need = rcvmgr_slow_start_window(c->rtts, c->mss, p.initial_window);
			u64 thr = max_t(u64, div64_u64(budget * w[i], total), c->mss);

			KUNIT_ASSERT_EQ(test, c->threshold, thr);
			KUNIT_ASSERT_GE(test, c->window, c->mss);
			KUNIT_ASSERT_LE(test, c->window, RCVMGR_WINDOW_MAX);
			if (was[i] == INITIAL && need <= thr) {
				KUNIT_ASSERT_EQ(test, c->state, INITIAL);
				KUNIT_ASSERT_EQ(test, c->window, need);
				needs += need;
			} else {
				KUNIT_ASSERT_EQ(test, c->state, PERSISTENT);
				floors += c->mss;
			}
		}
		KUNIT_ASSERT_LE(test, needs, budget);
		rest = budget - needs;
		for (i = 0; i < n; i++) {
			struct rcvmgr_share *c = &s[i];
			u32 cap = max(c->demand, c->mss);

			if (c->state == INITIAL)
				continue;
			if (rest < floors) {
				KUNIT_ASSERT_EQ(test, c->window, c->mss);
				continue;
			}
			KUNIT_ASSERT_LE(test, c->window, cap);
			sum += c->window;
			if (c->window < cap)
				free++;
			if (c->window < cap)
				check_level(test, s, w, n, i);
		}
		if (rest < floors)
			continue;
		KUNIT_ASSERT_LE(test, sum, rest);
		/* only rounding is left over, unless every one is at its cap */
		if (free)
			KUNIT_ASSERT_GT(test, sum + free, rest);
	}
}

/* Mehra et al. as the thesis runs them: B / n each, a segment at least */
static void assign_equal(struct kunit *test)
{
	struct rcvmgr_assign_params p = { .policy = TCP_RCVMGR_POLICY_EQUAL };
	struct rcvmgr_share *s = conns_new(test, 3);

	s[0].state = INITIAL;
	s[0].rtts = 10;
	s[0].demand = 5;
	s[1].priority = 2;
	s[2].state = INITIAL;
	s[2].priority = 3;
	rcvmgr_assign(s, 3, 30000, &p);
	KUNIT_EXPECT_EQ(test, s[0].window, 10000);
	KUNIT_EXPECT_EQ(test, s[1].window, 10000);
	KUNIT_EXPECT_EQ(test, s[2].window, 10000);
	/* thresholds by weight all the same: 1:2:3 */
	KUNIT_EXPECT_EQ(test, s[0].threshold, 5000);
	KUNIT_EXPECT_EQ(test, s[1].threshold, 10000);
	KUNIT_EXPECT_EQ(test, s[2].threshold, 15000);
	KUNIT_EXPECT_EQ(test, s[0].state, INITIAL);
	KUNIT_EXPECT_EQ(test, s[1].state, PERSISTENT);
	KUNIT_EXPECT_EQ(test, s[2].state, INITIAL);
	/* 30001 / 3 rounded down */
	rcvmgr_assign(s, 3, 30001, &p);
	KUNIT_EXPECT_EQ(test, s[2].window, 10000);
	/* 333 each is below a segment */
	rcvmgr_assign(s, 3, 1000, &p);
	KUNIT_EXPECT_EQ(test, s[0].window, 1000);
	KUNIT_EXPECT_EQ(test, s[2].window, 1000);
	rcvmgr_assign(s, 1, U32_MAX, &p);
	KUNIT_EXPECT_EQ(test, s[0].window, RCVMGR_WINDOW_MAX);
}

/*
 * Spring et al. with Table 1: 4 Mbit/s, a 64 KB queue, interactive below
 * 2 KB, short below 8 KB
 */
static void assign_spring(struct kunit *test)
{
	struct rcvmgr_assign_params p = {
		.policy = TCP_RCVMGR_POLICY_SPRING,
		.link_rate = 4000000,
		.spring_queue = 65536,
		.spring_interactive = 2048,
		.spring_short = 8192,
	};
	struct rcvmgr_share *s = conns_new(test, 4);
	int i;

	for (i = 0; i < 4; i++)
		s[i].mss = 1460;
	s[0].bytes = 1000;		/* interactive */
	s[1].bytes = 5000;		/* short */
	s[2].bytes = 100000;		/* long */
	s[2].rtt_us = 35000;
	s[3].bytes = 1000000;		/* long */
	s[3].rtt_us = 45000;
	s[3].state = INITIAL;

	/* a short one exists: the long ones get a segment */
	rcvmgr_assign(s, 4, 100000, &p);
	KUNIT_EXPECT_EQ(test, s[0].window, RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, s[1].window, RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, s[2].window, 1460);
	KUNIT_EXPECT_EQ(test, s[3].window, 1460);
	KUNIT_EXPECT_EQ(test, s[0].state, INITIAL);
	KUNIT_EXPECT_EQ(test, s[1].state, INITIAL);
	KUNIT_EXPECT_EQ(test, s[2].state, PERSISTENT);
	KUNIT_EXPECT_EQ(test, s[3].state, PERSISTENT);
	/* thresholds by weight all the same: 10000, 10000, 35000, 45000 */
	KUNIT_EXPECT_EQ(test, s[2].threshold, 35000);

	/*
	 * only an interactive one: 500000 bytes/s, 17500 and 22500 bytes in
	 * an RTT; halves of those and of the queue: 8750 + 32768 and
	 * 11250 + 32768
	 */
	s[1].bytes = 2047;
	rcvmgr_assign(s, 4, 100000, &p);
	KUNIT_EXPECT_EQ(test, s[0].window, RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, s[1].window, RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, s[2].window, 41518);
	KUNIT_EXPECT_EQ(test, s[3].window, 44018);

	/* no link rate: B stands for the bandwidth-delay product */
	p.link_rate = 0;
	rcvmgr_assign(s, 4, 100000, &p);
	KUNIT_EXPECT_EQ(test, s[2].window, 82768);
	KUNIT_EXPECT_EQ(test, s[3].window, 82768);

	/* the class boundaries: 2048 is short, 8192 long */
	p.link_rate = 4000000;
	s[1].bytes = 2048;
	s[0].bytes = 8192;
	rcvmgr_assign(s, 4, 100000, &p);
	KUNIT_EXPECT_EQ(test, s[0].state, PERSISTENT);
	KUNIT_EXPECT_EQ(test, s[0].window, 1460);
	KUNIT_EXPECT_EQ(test, s[1].state, INITIAL);
	KUNIT_EXPECT_EQ(test, s[1].window, RCVMGR_WINDOW_MAX);

	/* an unmeasured RTT: the mean, 40000 (20000 bytes in an RTT) */
	s[0].bytes = 0;
	s[1].bytes = 0;
	s[0].rtt_us = 35000;
	s[1].rtt_us = 0;
	s[2].rtt_us = 0;
	rcvmgr_assign(s, 4, 100000, &p);
	KUNIT_EXPECT_EQ(test, s[2].window, 10000 + 32768);
	KUNIT_EXPECT_EQ(test, s[3].window, 11250 + 32768);

	/* the extremes: clamped to [mss, window max] */
	p.link_rate = U64_MAX;
	s[2].rtt_us = U32_MAX;
	rcvmgr_assign(s, 4, 100000, &p);
	KUNIT_EXPECT_EQ(test, s[2].window, RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, s[3].window, RCVMGR_WINDOW_MAX);
	/* 8e6 * 2^33 bits/s for 2^31 us: 2^64 bytes, not 0 */
	p.link_rate = 8000000ULL << 33;
	s[2].rtt_us = 1U << 31;
	rcvmgr_assign(s, 4, 100000, &p);
	KUNIT_EXPECT_EQ(test, s[2].window, RCVMGR_WINDOW_MAX);
	p.link_rate = 8;
	p.spring_queue = 0;
	s[2].rtt_us = 1000;
	rcvmgr_assign(s, 4, 100000, &p);
	KUNIT_EXPECT_EQ(test, s[2].window, 1460);
}

/* off: nothing limited, nothing moved; thresholds still reported */
static void assign_off(struct kunit *test)
{
	struct rcvmgr_assign_params p = { .policy = TCP_RCVMGR_POLICY_OFF };
	struct rcvmgr_share *s = conns_new(test, 2);

	s[0].state = INITIAL;
	s[0].rtts = 20;
	s[1].priority = 2;
	s[1].rtt_us = 30000;
	rcvmgr_assign(s, 2, 700000, &p);
	KUNIT_EXPECT_EQ(test, s[0].threshold, 100000);
	KUNIT_EXPECT_EQ(test, s[1].threshold, 600000);
	KUNIT_EXPECT_EQ(test, s[0].window, RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, s[1].window, RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, s[0].state, INITIAL);
	/* a policy not known here is off */
	p.policy = 200;
	s[0].window = 0;
	rcvmgr_assign(s, 2, 700000, &p);
	KUNIT_EXPECT_EQ(test, s[0].window, RCVMGR_WINDOW_MAX);
	KUNIT_EXPECT_EQ(test, s[0].state, INITIAL);
}

/* 100000 connections: exact shares, and sums within B */
static void assign_many(struct kunit *test)
{
	const unsigned int n = 100000;
	struct rcvmgr_assign_params p = { .policy = TCP_RCVMGR_POLICY_EQUAL };
	struct rcvmgr_share *s = conns_new(test, n);
	u64 needs = 0, floors = 0, persistent = 0;
	unsigned int i, initial = 0;

	/* equal weights: 2000 each, exactly B in all */
	rcvmgr_assign(s, n, 200000000, &azuma);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, s[i].window, 2000);
		KUNIT_ASSERT_EQ(test, s[i].threshold, 2000);
	}
	rcvmgr_assign(s, n, 200000000, &p);
	KUNIT_EXPECT_EQ(test, window_sum(s, n), 200000000);

	/* a mix: a tenth initial, priorities 1-1000, RTTs 1-300 ms, some limited */
	for (i = 0; i < n; i++) {
		s[i].mss = 1460;
		s[i].priority = 1 + i % 1000;
		s[i].rtt_us = 1000 + (i % 300) * 1000;
		s[i].demand = i % 7 ? U32_MAX : 50000 + i % 5000;
		s[i].state = i % 10 ? PERSISTENT : INITIAL;
		s[i].rtts = i % 8;
	}
	rcvmgr_assign(s, n, 500000000, &azuma);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_GE(test, s[i].window, 1460);
		KUNIT_ASSERT_LE(test, s[i].window, RCVMGR_WINDOW_MAX);
		if (s[i].state == INITIAL) {
			initial++;
			needs += s[i].window;
		} else {
			floors += s[i].mss;
			persistent += s[i].window;
			KUNIT_ASSERT_LE(test, s[i].window, max(s[i].demand, s[i].mss));
		}
	}
	KUNIT_EXPECT_GT(test, initial, 0);
	KUNIT_EXPECT_LT(test, initial, n / 10);
	KUNIT_EXPECT_LE(test, needs, 500000000);
	KUNIT_EXPECT_GE(test, 500000000 - needs, floors);
	KUNIT_EXPECT_LE(test, persistent, 500000000 - needs);
	/* nothing wasted but rounding: at most a byte per connection */
	KUNIT_EXPECT_GT(test, persistent + n, 500000000 - needs);

	/* B too small for a segment each: (2-b) */
	rcvmgr_assign(s, n, 1000000, &azuma);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, s[i].window, 1460);
}

KUNIT_DEFINE_ACTION_WRAPPER(vfree_wrapper, vfree, const void *);

/*
 * 6000000 connections of 71 minutes' RTT, priorities 1000 and 500: their
 * weights would overflow a u64 sum, so they are shifted; the shares stay
 * 2:1, U32_MAX / 4.5e6 = 954.4 and U32_MAX / 9e6 = 477.2.
 */
static void assign_heavy(struct kunit *test)
{
	const unsigned int n = 6000000;
	struct rcvmgr_share *s = vzalloc(array_size(n, sizeof(*s)));
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vfree_wrapper, s), 0);
	for (i = 0; i < n; i++) {
		s[i].mss = 1;
		s[i].rtt_us = U32_MAX;
		s[i].priority = i < n / 2 ? 1000 : 500;
		s[i].demand = U32_MAX;
		s[i].state = PERSISTENT;
	}
	rcvmgr_assign(s, n, U32_MAX, &azuma);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, s[i].threshold, i < n / 2 ? 954 : 477);
		KUNIT_ASSERT_EQ(test, s[i].window, i < n / 2 ? 954 : 477);
	}
}

static struct kunit_case rcvmgr_assign_cases[] = {
	KUNIT_CASE(assign_rtt_increased),
	KUNIT_CASE(assign_trend),
	KUNIT_CASE(assign_budget_next),
	KUNIT_CASE(assign_probe),
	KUNIT_CASE(assign_slow_start),
	KUNIT_CASE(assign_rtts_since),
	KUNIT_CASE_PARAM(assign_none, assign_policy_gen_params),
	KUNIT_CASE(assign_weights),
	KUNIT_CASE(assign_initial_fits),
	KUNIT_CASE(assign_initial_short),
	KUNIT_CASE(assign_transition),
	KUNIT_CASE(assign_persistent_short),
	KUNIT_CASE(assign_floor),
	KUNIT_CASE(assign_rtt_zero),
	KUNIT_CASE(assign_reassign),
	KUNIT_CASE_PARAM(assign_cascade, cascade_gen_params),
	KUNIT_CASE(assign_random),
	KUNIT_CASE(assign_equal),
	KUNIT_CASE(assign_spring),
	KUNIT_CASE(assign_off),
	KUNIT_CASE(assign_many),
	KUNIT_CASE_SLOW(assign_heavy),
	{}
};

static struct kunit_suite rcvmgr_assign_suite = {
	.name = "tcp_rcvmgr_assign",
	.test_cases = rcvmgr_assign_cases,
};

kunit_test_suite(rcvmgr_assign_suite);
