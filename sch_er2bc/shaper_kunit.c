// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the er2bc shaper's rate and clock arithmetic. This file
 * also carries the module's information for the suites of sched_kunit.c.
 */
#include <kunit/test.h>
#include <linux/math64.h>
#include <linux/time64.h>

#include <net/er2bc_compat.h>

#include "shaper.h"

/* exact transmission time of len bytes at bps, in ns, rounded down */
static u64 exact_tx_ns(u64 bps, u32 len)
{
	return mul_u64_u64_div_u64((u64)len * 8, NSEC_PER_SEC, bps);
}

static const u64 test_rates[] = {
	1, 999, 80000, 1000000, 4000000, 10000000, 123456789,
	500000000, 1000000000, 10000000000ULL, 100000000000ULL,
};

static const u32 test_lens[] = { 0, 1, 60, 1500, 9000, 65535, 524288 };

/* the reciprocal agrees with the exact division within its stated error */
static void er2bc_rate_matches_division(struct kunit *test)
{
	struct er2bc_rate r;
	int i, j;

	for (i = 0; i < ARRAY_SIZE(test_rates); i++) {
		er2bc_rate_set(&r, test_rates[i]);
		KUNIT_EXPECT_LT(test, r.mult, 1ULL << 34);
		for (j = 0; j < ARRAY_SIZE(test_lens); j++) {
			u64 want = exact_tx_ns(test_rates[i], test_lens[j]);
			u64 got = er2bc_rate_tx_ns(&r, test_lens[j]);
			/* 1 ns of truncation plus 1e-8 of rounding */
			u64 tol = 1 + div_u64(want, 100000000);

			/* never faster than the rate, barely slower */
			KUNIT_EXPECT_GE_MSG(test, got, want,
					    "rate %llu len %u", test_rates[i], test_lens[j]);
			KUNIT_EXPECT_LE_MSG(test, got, want + tol,
					    "rate %llu len %u", test_rates[i], test_lens[j]);
		}
	}
}

/* values worked out by hand */
static void er2bc_rate_known_values(struct kunit *test)
{
	struct er2bc_rate r;

	/* 1500 bytes at 12 Mbit/s: 1 ms */
	er2bc_rate_set(&r, 12000000);
	KUNIT_EXPECT_EQ(test, er2bc_rate_tx_ns(&r, 1500), 1000000);
	/* 1500 bytes at 400 kbit/s (the paper's flows): 30 ms */
	er2bc_rate_set(&r, 400000);
	KUNIT_EXPECT_EQ(test, er2bc_rate_tx_ns(&r, 1500), 30000000);
	/* 125 bytes at 1 Gbit/s: 1 us */
	er2bc_rate_set(&r, 1000000000);
	KUNIT_EXPECT_EQ(test, er2bc_rate_tx_ns(&r, 125), 1000);
	/* 1 byte at 1 bit/s: 8 s */
	er2bc_rate_set(&r, 1);
	KUNIT_EXPECT_EQ(test, er2bc_rate_tx_ns(&r, 1), 8 * NSEC_PER_SEC);
}

/* rate 0 means no cap: every packet takes no time */
static void er2bc_rate_zero_is_unlimited(struct kunit *test)
{
	struct er2bc_rate r;

	er2bc_rate_set(&r, 0);
	KUNIT_EXPECT_EQ(test, r.mult, 0);
	KUNIT_EXPECT_EQ(test, er2bc_rate_tx_ns(&r, 65535), 0);
}

/* the largest length the shaper accepts does not overflow at any rate */
static void er2bc_rate_no_overflow(struct kunit *test)
{
	struct er2bc_rate r;
	int i;

	for (i = 0; i < ARRAY_SIZE(test_rates); i++) {
		u64 want = exact_tx_ns(test_rates[i], ER2BC_RATE_MAX_LEN), got;

		er2bc_rate_set(&r, test_rates[i]);
		got = er2bc_rate_tx_ns(&r, ER2BC_RATE_MAX_LEN);
		KUNIT_EXPECT_GE(test, got, want);
		KUNIT_EXPECT_LE(test, got, want + 1 + div_u64(want, 100000000));
	}
}

/* the clock's debt is carried over in bytes when the rate changes */
static void er2bc_clock_rescale_debt(struct kunit *test)
{
	const u64 now = 1000 * NSEC_PER_SEC;

	/* 11.5 s owed at 1 kbit/s is 11.5 ms at 1 Mbit/s, 1.15 ms at 10 */
	KUNIT_EXPECT_EQ(test, er2bc_clock_rescale(now + 11500000000ULL, now, 1000, 1000000),
			now + 11500000);
	KUNIT_EXPECT_EQ(test, er2bc_clock_rescale(now + 11500000000ULL, now, 1000, 10000000),
			now + 1150000);
	/* lowering the rate stretches the debt */
	KUNIT_EXPECT_EQ(test, er2bc_clock_rescale(now + 1000, now, 10000000, 1000000),
			now + 10000);
	/* 64-bit rates do not overflow the product */
	KUNIT_EXPECT_EQ(test, er2bc_clock_rescale(now + NSEC_PER_SEC, now,
						  100000000000ULL, 200000000000ULL),
			now + NSEC_PER_SEC / 2);
}

/* no debt, or no rate on either side: nothing to carry */
static void er2bc_clock_rescale_edges(struct kunit *test)
{
	const u64 now = 5 * NSEC_PER_SEC;

	/* a clock behind now (burst credit) is left alone */
	KUNIT_EXPECT_EQ(test, er2bc_clock_rescale(now - 7, now, 1000, 2000), now - 7);
	KUNIT_EXPECT_EQ(test, er2bc_clock_rescale(now + 7, now, 1000, 1000), now + 7);
	/* becoming unlimited releases the queue at once */
	KUNIT_EXPECT_EQ(test, er2bc_clock_rescale(now + 7, now, 1000, 0), now);
	KUNIT_EXPECT_EQ(test, er2bc_clock_rescale(now + 7, now, 0, 1000), now);
}

static struct kunit_case er2bc_shaper_cases[] = {
	KUNIT_CASE(er2bc_rate_matches_division),
	KUNIT_CASE(er2bc_rate_known_values),
	KUNIT_CASE(er2bc_rate_zero_is_unlimited),
	KUNIT_CASE(er2bc_rate_no_overflow),
	KUNIT_CASE(er2bc_clock_rescale_debt),
	KUNIT_CASE(er2bc_clock_rescale_edges),
	{}
};

static struct kunit_suite er2bc_shaper_suite = {
	.name = "er2bc_shaper",
	.test_cases = er2bc_shaper_cases,
};

kunit_test_suite(er2bc_shaper_suite);

MODULE_DESCRIPTION("KUnit tests of the er2bc qdisc's arithmetic and scheduler");
MODULE_LICENSE("GPL");
ER2BC_IMPORT_KUNIT_NS();
