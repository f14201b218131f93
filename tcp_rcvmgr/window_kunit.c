// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of tcp_rcvmgr's window arithmetic.
 */
#include <kunit/test.h>

#include <net/er2bc_compat.h>

#include "window.h"

#define MSS 1460

static const u8 window_scales[] = { 0, 7, 14 };

static void window_scale_desc(const u8 *ws, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "window scale %u", *ws);
}

KUNIT_ARRAY_PARAM(window_scale, window_scales, window_scale_desc);

/* the assigned window is written, scaled, when the receiver offers more */
static void rcvmgr_window_scales(struct kunit *test)
{
	const u8 ws = *(const u8 *)test->param_value;
	u32 assigned = 3U << (ws + 12);	/* 12288 units of the scale */
	struct rcvmgr_edge edge = {};

	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(0xffff, ws, 1000, assigned, MSS, &edge), 12288);
	KUNIT_EXPECT_TRUE(test, edge.valid);
	KUNIT_EXPECT_EQ(test, edge.seq, 1000 + (12288U << ws));
}

/* never more than the receiver advertised */
static void rcvmgr_window_never_raises(struct kunit *test)
{
	struct rcvmgr_edge edge = {};

	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(100, 0, 0, 65535, MSS, &edge), 100);
	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(100, 7, 0, 1U << 30, MSS, &edge), 100);
}

/* a smaller assignment later does not pull the right edge back */
static void rcvmgr_window_no_shrink(struct kunit *test)
{
	struct rcvmgr_edge edge = {};

	/* advertise 64 KB at ack 0: edge at 65536 */
	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(0xffff, 7, 0, 65536, MSS, &edge), 512);
	KUNIT_EXPECT_EQ(test, edge.seq, 65536);
	/* 10000 bytes acked, assignment cut to 8 KB: keep the edge at 65536 */
	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(0xffff, 7, 10000, 8192, MSS, &edge),
			DIV_ROUND_UP(65536 - 10000, 128));
	/* rounded up to a multiple of the scale, so a little past 65536 */
	KUNIT_EXPECT_EQ(test, edge.seq, 10000 + DIV_ROUND_UP(65536 - 10000, 128) * 128);
	/* once the sender has passed the edge, the assignment applies */
	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(0xffff, 7, 70000, 8192, MSS, &edge), 64);
	KUNIT_EXPECT_EQ(test, edge.seq, 70000 + 8192);
}

/* if the receiver itself shrinks its window, its value wins */
static void rcvmgr_window_receiver_shrinks(struct kunit *test)
{
	struct rcvmgr_edge edge = {};

	rcvmgr_window_field(1000, 0, 0, 1000, MSS, &edge);
	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(10, 0, 500, 1000, MSS, &edge), 10);
	/* the edge remembers the highest one advertised */
	KUNIT_EXPECT_EQ(test, edge.seq, 1000);
}

/* sequence numbers wrap */
static void rcvmgr_window_wraps(struct kunit *test)
{
	struct rcvmgr_edge edge = {};
	u32 ack = 0xfffff000;

	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(0xffff, 0, ack, 0x2000, MSS, &edge), 0x2000);
	KUNIT_EXPECT_EQ(test, edge.seq, 0x1000);
	/* an ACK past the wrap with a smaller assignment keeps the edge */
	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(0xffff, 0, 0x10, 0x100, MSS, &edge),
			0x1000 - 0x10);
	KUNIT_EXPECT_EQ(test, edge.seq, 0x1000);
}

/*
 * however small the assignment, two segments at every scale: rounded up,
 * never a zero window (at scale 11 and above one segment shifted down is 0)
 */
/* the first window written for a connection: no edge advertised before */
static u16 rcvmgr_first_field(u16 adv_field, u8 wscale, u32 assigned)
{
	struct rcvmgr_edge edge = {};

	return rcvmgr_window_field(adv_field, wscale, 0, assigned, MSS, &edge);
}

static void rcvmgr_window_floor(struct kunit *test)
{
	static const u32 assigned[] = { 0, 1, MSS, 2 * MSS - 1 };
	u8 ws;
	int i;

	for (ws = 0; ws <= RCVMGR_WSCALE_MAX; ws++)
		for (i = 0; i < ARRAY_SIZE(assigned); i++)
			KUNIT_EXPECT_EQ_MSG(test, rcvmgr_first_field(0xffff, ws, assigned[i]),
					    DIV_ROUND_UP(2 * MSS, 1U << ws),
					    "wscale %u, assigned %u", ws, assigned[i]);
}

/* a scaled window is rounded up, not down */
static void rcvmgr_window_rounds_up(struct kunit *test)
{
	/* 5900 bytes at scale 7: 47 units (6016 bytes), not 46 (5888) */
	KUNIT_EXPECT_EQ(test, rcvmgr_first_field(0xffff, 7, 5900), 47);
	KUNIT_EXPECT_EQ(test, rcvmgr_first_field(0xffff, 7, 8193), 65);
	/* no overflow at the top of the range */
	KUNIT_EXPECT_EQ(test, rcvmgr_first_field(0xffff, 0, U32_MAX), 0xffff);
	KUNIT_EXPECT_EQ(test, rcvmgr_first_field(0xffff, 14, U32_MAX), 0xffff);
}

/* the floor never raises a window above what the receiver offered */
static void rcvmgr_window_floor_below_offer(struct kunit *test)
{
	/* the receiver's own zero window passes as it is */
	KUNIT_EXPECT_EQ(test, rcvmgr_first_field(0, 14, 0), 0);
	KUNIT_EXPECT_EQ(test, rcvmgr_first_field(1, 14, 0), 1);
	KUNIT_EXPECT_EQ(test, rcvmgr_first_field(1000, 0, 0), 1000);
}

/*
 * an ACK reordered before an older one neither keeps nor moves the edge: at
 * scale 14 the edge kept from it, rounded up, would be a unit further, and
 * every ACK after it would keep that unit
 */
static void rcvmgr_window_stale_ack(struct kunit *test)
{
	struct rcvmgr_edge edge = {};

	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(0xffff, 14, 100000, 32768, MSS, &edge), 2);
	KUNIT_EXPECT_EQ(test, edge.seq, 100000 + 32768);
	/* the older ACK: the assignment, the edge as it was */
	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(0xffff, 14, 99000, 32768, MSS, &edge), 2);
	KUNIT_EXPECT_EQ(test, edge.seq, 100000 + 32768);
	KUNIT_EXPECT_EQ(test, edge.ack, 100000);
	/* the next one in order keeps two units, not three */
	KUNIT_EXPECT_EQ(test, rcvmgr_window_field(0xffff, 14, 101000, 32768, MSS, &edge), 2);
	KUNIT_EXPECT_EQ(test, edge.seq, 101000 + 32768);
}

static struct kunit_case rcvmgr_window_cases[] = {
	KUNIT_CASE_PARAM(rcvmgr_window_scales, window_scale_gen_params),
	KUNIT_CASE(rcvmgr_window_never_raises),
	KUNIT_CASE(rcvmgr_window_no_shrink),
	KUNIT_CASE(rcvmgr_window_receiver_shrinks),
	KUNIT_CASE(rcvmgr_window_wraps),
	KUNIT_CASE(rcvmgr_window_floor),
	KUNIT_CASE(rcvmgr_window_rounds_up),
	KUNIT_CASE(rcvmgr_window_floor_below_offer),
	KUNIT_CASE(rcvmgr_window_stale_ack),
	{}
};

static struct kunit_suite rcvmgr_window_suite = {
	.name = "tcp_rcvmgr_window",
	.test_cases = rcvmgr_window_cases,
};

kunit_test_suite(rcvmgr_window_suite);

MODULE_DESCRIPTION("KUnit tests of tcp_rcvmgr's window arithmetic, budget and assignment");
MODULE_LICENSE("GPL");
ER2BC_IMPORT_KUNIT_NS();
