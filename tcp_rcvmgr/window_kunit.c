// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of tcp_rcvmgr's window arithmetic.
 */
#include <kunit/test.h>

#include "window.h"

/* the assigned window is written, scaled, when the receiver offers more */
static void rcvmgr_window_scales(struct kunit *test)
{
	static const u8 scales[] = { 0, 7, 14 };
	int i;

	for (i = 0; i < ARRAY_SIZE(scales); i++) {
		struct rcvmgr_edge edge = {};
		u8 ws = scales[i];
		u32 assigned = 3U << (ws + 4);	/* 48 units of the scale */

		KUNIT_EXPECT_EQ(test, rcvmgr_window_field(0xffff, ws, 1000, assigned, &edge),
				48);
		KUNIT_EXPECT_TRUE(test, edge.valid);
		KUNIT_EXPECT_EQ(test, edge.seq, 1000 + (48U << ws));
	}
}

/* never more than the receiver advertised */
static void rcvmgr_window_never_raises(struct kunit *test)
{
	struct rcvmgr_edge edge = {};

	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(100, 0, 0, 65535, &edge), 100);
	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(100, 7, 0, 1U << 30, &edge), 100);
}

/* a smaller assignment later does not pull the right edge back */
static void rcvmgr_window_no_shrink(struct kunit *test)
{
	struct rcvmgr_edge edge = {};

	/* advertise 64 KB at ack 0: edge at 65536 */
	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(0xffff, 7, 0, 65536, &edge), 512);
	KUNIT_EXPECT_EQ(test, edge.seq, 65536);
	/* 10000 bytes acked, assignment cut to 8 KB: keep the edge at 65536 */
	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(0xffff, 7, 10000, 8192, &edge),
			DIV_ROUND_UP(65536 - 10000, 128));
	/* rounded up to a multiple of the scale, so a little past 65536 */
	KUNIT_EXPECT_EQ(test, edge.seq, 10000 + DIV_ROUND_UP(65536 - 10000, 128) * 128);
	/* once the sender has passed the edge, the assignment applies */
	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(0xffff, 7, 70000, 8192, &edge), 64);
	KUNIT_EXPECT_EQ(test, edge.seq, 70000 + 8192);
}

/* if the receiver itself shrinks its window, its value wins */
static void rcvmgr_window_receiver_shrinks(struct kunit *test)
{
	struct rcvmgr_edge edge = {};

	rcvmgr_window_field(1000, 0, 0, 1000, &edge);
	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(10, 0, 500, 1000, &edge), 10);
	/* the edge remembers the highest one advertised */
	KUNIT_EXPECT_EQ(test, edge.seq, 1000);
}

/* sequence numbers wrap */
static void rcvmgr_window_wraps(struct kunit *test)
{
	struct rcvmgr_edge edge = {};
	u32 ack = 0xfffff000;

	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(0xffff, 0, ack, 0x2000, &edge), 0x2000);
	KUNIT_EXPECT_EQ(test, edge.seq, 0x1000);
	/* an ACK past the wrap with a smaller assignment keeps the edge */
	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(0xffff, 0, 0x10, 0x100, &edge), 0x1000 - 0x10);
	KUNIT_EXPECT_EQ(test, edge.seq, 0x1000);
}

static struct kunit_case rcvmgr_window_cases[] = {
	KUNIT_CASE(rcvmgr_window_scales),
	KUNIT_CASE(rcvmgr_window_never_raises),
	KUNIT_CASE(rcvmgr_window_no_shrink),
	KUNIT_CASE(rcvmgr_window_receiver_shrinks),
	KUNIT_CASE(rcvmgr_window_wraps),
	{}
};

static struct kunit_suite rcvmgr_window_suite = {
	.name = "tcp_rcvmgr_window",
	.test_cases = rcvmgr_window_cases,
};

kunit_test_suite(rcvmgr_window_suite);

MODULE_DESCRIPTION("KUnit tests of tcp_rcvmgr's window arithmetic, budget and assignment");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
