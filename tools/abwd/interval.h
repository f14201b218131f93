/* SPDX-License-Identifier: GPL-2.0 */
/*
 * From two samples of the counts to the inputs of an ABW update: L(t),
 * R(t-1) and the interval (seed 000, section 3.2;
 * Documentation/references.rst). No I/O.
 *
 * A sample is what one accepted response gives: P_s from the sending
 * qdisc's snapshot of the request, P_r, B_r and T_r from the responder's
 * meter. Counters are cumulative u64s; deltas are taken by unsigned
 * subtraction, so they survive a counter's wrap, and a delta of 2^63 or
 * more is taken for a counter that went backwards.
 */
#ifndef _ABWD_INTERVAL_H
#define _ABWD_INTERVAL_H

#include <stdbool.h>
#include <stdint.h>

struct sample {
	uint64_t ps;		/* P_s: packets the qdisc sent toward the peer */
	uint64_t pr;		/* P_r: packets the meter received from it */
	uint64_t br;		/* B_r: bytes of those */
	uint64_t tr;		/* T_r: when, the responder's CLOCK_MONOTONIC ns */
	/* the sending qdisc's side, for the load (load.h) */
	uint64_t bs;		/* B_s: bytes the qdisc sent toward the peer */
	uint64_t ts;		/* T_s: when, the sender's CLOCK_MONOTONIC ns */
	uint64_t held;		/* ns the qdisc's cap held a backlog back */
	bool has_held;		/* the module counts held */
};

/*
 * More received than sent by more than this is no longer packets moved
 * across the cut (reordering, GRO at the receiver) but traffic the qdisc
 * did not send that the meter counted: packets spoofed with the peer's
 * addresses past the bottleneck, or a path around the qdisc. The estimate
 * is then foreign: its L cannot be known (the foreign packets hide up to
 * as many losses), and its bytes are credited only up to what the qdisc
 * sent.
 */
#define IV_EXCESS_SLACK		64	/* packets, plus ... */
#define IV_EXCESS_SHIFT		3	/* ... an eighth of the packets sent */
/*
 * What a received packet may count beyond its sent length: the minimum
 * Ethernet frame's padding (18 bytes on a 42-byte frame) and a VLAN or
 * 802.1ad tag kept in the frame
 */
#define IV_PAD_BYTES		32
/* T_r and T_s apart by more than this between two samples (interval.c) */
#define IV_CLOCK_NS		10000000000ULL

struct interval {
	bool have_base;
	struct sample base;	/* the last accepted sample */
	uint32_t missed;	/* intervals lost since (no usable response) */
};

enum iv_result {
	IV_FIRST,		/* the first sample: the baseline, no estimate */
	IV_ESTIMATE,		/* an estimate (struct iv_estimate) */
	IV_DISCONT,		/* counts went backwards: new baseline, no estimate */
	IV_ZERO_DT,		/* T_r did not move: sample ignored */
};

enum iv_discont {
	IV_BACK_PS = 1,		/* P_s went backwards */
	IV_BACK_PR = 2,		/* P_r */
	IV_BACK_BR = 4,		/* B_r */
	IV_BACK_TR = 8,		/* T_r */
	IV_CLOCK = 16,		/* T_r against T_s: another responder's clock */
};

struct iv_estimate {
	uint64_t sent;		/* delta P_s */
	uint64_t received;	/* delta P_r */
	uint64_t lost;		/* L(t), never below 0 */
	uint64_t excess;	/* received - sent when L < 0 (then lost = 0) */
	bool foreign;		/* excess beyond the slack: L unknown */
	uint64_t bytes;		/* delta B_r, credited (below) */
	uint64_t uncredited;	/* bytes of delta B_r beyond what the qdisc sent */
	uint64_t dt_ns;		/* delta T_r */
	uint64_t recv_rate;	/* R(t-1) from the credited bytes, bit/s (saturated) */
	uint32_t interval_us;	/* delta T_r in us, at least 1 (saturated) */
	uint32_t missed;	/* intervals lost inside this one */
	/* the qdisc's side: only if has_load (its counts went forward) */
	bool has_load;
	uint64_t sent_rate;	/* S: delta B_s over delta T_s, bit/s (saturated) */
	uint64_t sent_dt_ns;	/* delta T_s */
	uint64_t held_ns;	/* delta held, if has_held */
	bool has_held;		/* both samples had held */
};

void interval_init(struct interval *iv);

/* a tick went by without a usable response */
void interval_miss(struct interval *iv);

/*
 * Takes sample @s: the estimate against the baseline in @e (IV_ESTIMATE),
 * or why there is none; @why gets the IV_BACK_* and IV_CLOCK bits of an
 * IV_DISCONT. The sample becomes the baseline unless IV_ZERO_DT.
 */
enum iv_result interval_feed(struct interval *iv, const struct sample *s,
			     struct iv_estimate *e, unsigned int *why);

/* bytes over ns as bit/s, saturated; 0 when @ns is 0 */
uint64_t rate_bps(uint64_t bytes, uint64_t ns);

#endif /* _ABWD_INTERVAL_H */
