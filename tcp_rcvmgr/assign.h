/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How tcp_rcvmgr's budget is adjusted and shared (seed 004, sections 3.1,
 * 3.2 and 5; Spring et al. and Mehra et al. as comparators). Pure integer
 * arithmetic on plain arrays, covered by KUnit; the control work
 * (control.c) snapshots its connections into struct rcvmgr_share, calls
 * these, and writes the windows back.
 */
#ifndef _TCP_RCVMGR_ASSIGN_H
#define _TCP_RCVMGR_ASSIGN_H

#include <linux/types.h>
#include <linux/tcp_rcvmgr.h>

/* a window is never below one segment, nor above what 14 bits of scale reach */
#define RCVMGR_WINDOW_MAX	(65535U << 14)

/* the initial window of eq. 1-a, segments: the thesis' 2 at least */
#define RCVMGR_IW_MIN		TCP_RCVMGR_INITIAL_WINDOW_MIN
#define RCVMGR_IW_MAX		TCP_RCVMGR_INITIAL_WINDOW_MAX

/* what the budget rule decided at the end of an interval */
enum rcvmgr_trend {
	RCVMGR_TREND_HOLD,
	RCVMGR_TREND_UP,
	RCVMGR_TREND_DOWN,
};

/**
 * struct rcvmgr_budget_params - the budget rule's parameters
 * @min: B never goes below this
 * @max: nor above this
 * @step: bytes B grows by when no connection's RTT increased
 * @decrease: per mille of B lost when every connection's RTT increased
 * @tolerance: percent an interval's mean RTT must exceed the connection's
 *	least RTT to count as increased (and by at least RCVMGR_RTT_FLOOR_US)
 */
struct rcvmgr_budget_params {
	u32 min;
	u32 max;
	u32 step;
	u32 decrease;
	u32 tolerance;
};

#define RCVMGR_RTT_FLOOR_US	1000

/*
 * The probe (rcvmgr_probe_due()): after this many split votes in a row,
 * no more often than every RCVMGR_PROBE_GAP intervals, the connections
 * are assigned a quarter of B, not below budget-min, for
 * RCVMGR_PROBE_RTTS of their longest smoothed RTT (at least
 * RCVMGR_PROBE_MIN_US, at most half an interval)
 */
#define RCVMGR_PROBE_SPLITS	2
#define RCVMGR_PROBE_GAP	8
#define RCVMGR_PROBE_RTTS	3
#define RCVMGR_PROBE_MIN_US	20000

/**
 * struct rcvmgr_share - one connection as the assignment sees it
 * @bytes: data received from the sender so far
 * @mss: the sender's segment size, bytes (> 0)
 * @rtt_us: smoothed RTT, microseconds; 0 if not measured yet
 * @priority: p_i, 1 to TCP_RCVMGR_PRIORITY_MAX
 * @rtts: t_i, RTTs since the connection began
 * @demand: bytes of window it showed it can use (section 5); U32_MAX when
 *	it uses all it is given (its sender is limited by the window)
 * @state: enum tcp_rcvmgr_state, INITIAL or PERSISTENT on input; an initial
 *	connection whose slow-start size passes its threshold comes out
 *	PERSISTENT (never the other way)
 * @threshold: out: threshold_i, its share if every connection were persistent
 * @window: out: R_i, the window assigned, bytes, at least @mss
 */
struct rcvmgr_share {
	u64 bytes;
	u32 mss;
	u32 rtt_us;
	u32 priority;
	u32 rtts;
	u32 demand;
	u8 state;
	u32 threshold;
	u32 window;
};

/**
 * struct rcvmgr_assign_params - what the policies need beyond the budget
 * @policy: enum tcp_rcvmgr_policy
 * @link_rate: the access link's rate, bits/s (spring; 0: use the budget)
 * @spring_queue: bytes of queue spring lets the long connections keep
 * @spring_interactive: below this many bytes received, interactive (spring)
 * @spring_short: below this, short; at or above, long (spring)
 * @initial_window: segments an initial connection starts with (azuma, eq.
 *	1-a), RCVMGR_IW_MIN to RCVMGR_IW_MAX
 */
struct rcvmgr_assign_params {
	u8 policy;
	u64 link_rate;
	u32 spring_queue;
	u32 spring_interactive;
	u32 spring_short;
	u32 initial_window;
};

bool rcvmgr_rtt_increased(u32 ref_us, u32 now_us, u32 tolerance);
enum rcvmgr_trend rcvmgr_budget_trend(unsigned int sampled, unsigned int increased);
u32 rcvmgr_budget_next(u32 budget, enum rcvmgr_trend trend,
		       const struct rcvmgr_budget_params *p);

bool rcvmgr_probe_due(u32 splits, u32 since);
u32 rcvmgr_probe_budget(u32 budget, u32 floor);
u64 rcvmgr_probe_ns(u32 srtt_max_us, u32 interval_ms);

u32 rcvmgr_slow_start_window(u32 rtts, u32 mss, u32 iw);
u32 rcvmgr_rtts_since(u64 age_us, u32 rtt_us);

/*
 * Passes of exact water-filling (section 5) before rcvmgr_assign() falls back
 * to a bisection of the water level, which bounds its cost whatever the
 * demands (assign.c)
 */
#define RCVMGR_FILL_EXACT_PASSES	8

u32 rcvmgr_assign_initial(struct rcvmgr_share *s, unsigned int n, u32 budget, u32 iw);
void rcvmgr_assign(struct rcvmgr_share *s, unsigned int n, u32 budget,
		   const struct rcvmgr_assign_params *p);

#endif /* _TCP_RCVMGR_ASSIGN_H */
