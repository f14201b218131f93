/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * er2bc: priority-based bandwidth control for gateways whose uplink crosses
 * a best-effort network of changing available bandwidth (ABW).
 *
 * The "er2bc" qdisc is classful: a total rate cap W, and classes, each with
 * a priority, a necessary rate and the guarantee in force. Options of the
 * qdisc are TCA_ER2BC_* (TCA_OPTIONS of RTM_NEWQDISC), options of a class
 * TCA_ER2BC_CLASS_* (TCA_OPTIONS of RTM_NEWTCLASS). Rates are in bits per
 * second, 64-bit.
 */
#ifndef _UAPI_LINUX_ER2BC_H
#define _UAPI_LINUX_ER2BC_H

#include <linux/types.h>

/* how guarantees are derived from the classes' rates and the cap */
enum er2bc_mode {
	ER2BC_MODE_STATIC,	/* G = rate, in priority order while they fit in W */
	ER2BC_MODE_PQ,		/* no guarantees: strict priority under W */
	ER2BC_MODE_ER2BC,	/* eq. 1 of eR2BC: G = min(S_d, what W leaves) */
	__ER2BC_MODE_MAX
};

#define ER2BC_MODE_MAX	(__ER2BC_MODE_MAX - 1)

/* how capacity that the guarantees leave unused is lent */
enum er2bc_share {
	ER2BC_SHARE_PRIO,	/* highest priority first, equal ones by weight */
	ER2BC_SHARE_WEIGHTED,	/* in proportion to weight, whatever the priority */
	__ER2BC_SHARE_MAX
};

#define ER2BC_SHARE_MAX	(__ER2BC_SHARE_MAX - 1)

enum {
	TCA_ER2BC_UNSPEC,
	TCA_ER2BC_PAD,
	TCA_ER2BC_RATE,		/* u64: total rate cap W, 0 = no cap */
	TCA_ER2BC_BURST,	/* u32: bytes that may leave back to back, 0 = auto */
	TCA_ER2BC_DEFAULT,	/* u32: minor of the default class, 0 = none */
	TCA_ER2BC_MODE,		/* u8: enum er2bc_mode */
	TCA_ER2BC_SHARE,	/* u8: enum er2bc_share */
	/* the eR2BC controller's parameters (Documentation/er2bc-controller.rst) */
	TCA_ER2BC_CTRL_C,	/* u32: updates summed in Delta, 1 .. 32 (10) */
	TCA_ER2BC_CTRL_M,	/* u32: updates s_p is the least of, 1 .. 32 (10) */
	TCA_ER2BC_CTRL_BLIM,	/* u64: B_lim, bits/s (50000) */
	TCA_ER2BC_CTRL_FLOOR,	/* u64: least guarantee of a class with a rate (0) */
	TCA_ER2BC_CTRL_STALE,	/* u32: ms without an estimate until stale, 0 = never */
	TCA_ER2BC_CTRL_CONVERGE, /* u8: enum er2bc_converge */
	/* counting for the ABW estimator (Documentation/er2bc-estimator.rst) */
	TCA_ER2BC_PROBE_PORT,	/* u16: UDP port of its requests, 0 = no counting */
	TCA_ER2BC_PEER,		/* struct tc_er2bc_prefix[0 .. TC_ER2BC_PEER_MAX] */
	TCA_ER2BC_PROBE_MARK,	/* u32: the requests' skb mark, 0 = any */
	/*
	 * u32: the longest a packet may wait in a class's queue, in us at the
	 * rate the class is served (its guarantee, or more when it borrows):
	 * a packet that finds more queued is dropped. 0 = unbounded; by
	 * default TC_ER2BC_LATENCY_DEFAULT. A class may have its own.
	 */
	TCA_ER2BC_LATENCY,
	__TCA_ER2BC_MAX
};

#define TCA_ER2BC_MAX	(__TCA_ER2BC_MAX - 1)

/* latency bounds, us: the default, the most, and a class's "the qdisc's" */
#define TC_ER2BC_LATENCY_DEFAULT	100000U
#define TC_ER2BC_LATENCY_MAX		60000000U
#define TC_ER2BC_LATENCY_QDISC		0xffffffffU

/* the most a burst (qdisc burst, class burst and cburst) may be, bytes */
#define TC_ER2BC_BURST_MAX	(1U << 29)

/*
 * A prefix the peer gateway's site is in: with TCA_ER2BC_PEER the qdisc
 * counts only packets to these prefixes (none: every IPv4 and IPv6 packet).
 * Host bits past plen must be zero.
 */
struct tc_er2bc_prefix {
	__u8	family;		/* AF_INET or AF_INET6 */
	__u8	plen;
	__u16	pad;		/* zero */
	__u8	addr[16];	/* network order; IPv4 in the first 4 bytes */
};

#define TC_ER2BC_PEER_MAX	4

/* how the controller moves a guarantee towards a new value */
enum er2bc_converge {
	ER2BC_CONVERGE_IMMEDIATE,	/* at once (the paper's) */
	ER2BC_CONVERGE_GRADUAL,		/* decreases spread over updates, dead band */
	__ER2BC_CONVERGE_MAX
};

#define ER2BC_CONVERGE_MAX	(__ER2BC_CONVERGE_MAX - 1)
#define ER2BC_CTRL_HIST_MAX	32	/* the most C and M may be */

/* a class's traffic, as the eR2BC controller treats it */
enum er2bc_class_type {
	ER2BC_TYPE_TCP,		/* retransmits what is lost (F_r) */
	ER2BC_TYPE_UDP,		/* does not retransmit (F_u) */
	ER2BC_TYPE_SCAVENGER,	/* no guarantee (rate 0); lent only after every
				 * other class, and nothing while the estimator
				 * holds scavengers (a queue at the bottleneck)
				 */
	__ER2BC_TYPE_MAX
};

#define ER2BC_TYPE_MAX	(__ER2BC_TYPE_MAX - 1)

#define ER2BC_PRIO_MIN		1	/* the highest priority */
#define ER2BC_PRIO_MAX		64
#define ER2BC_WEIGHT_MAX	65535
#define ER2BC_MARGIN_MAX	100	/* percent */

enum {
	TCA_ER2BC_CLASS_UNSPEC,
	TCA_ER2BC_CLASS_PAD,
	TCA_ER2BC_CLASS_PRIO,	/* u8: 1 (highest) .. ER2BC_PRIO_MAX */
	TCA_ER2BC_CLASS_RATE,	/* u64: necessary rate R_f, 0 = none */
	TCA_ER2BC_CLASS_CEIL,	/* u64: most the class may send, 0 = W */
	TCA_ER2BC_CLASS_WEIGHT,	/* u32: share of lent capacity, 1 .. 65535 */
	TCA_ER2BC_CLASS_TYPE,	/* u8: enum er2bc_class_type */
	TCA_ER2BC_CLASS_BURST,	/* u32: bytes at the guarantee after idling, 0 = auto */
	TCA_ER2BC_CLASS_CBURST,	/* u32: bytes at the ceil after idling, 0 = auto */
	TCA_ER2BC_CLASS_MARGIN,	/* u32: guaranteed above the demand, percent of it,
				 * 0 .. ER2BC_MARGIN_MAX
				 */
	TCA_ER2BC_CLASS_LATENCY, /* u32: its own TCA_ER2BC_LATENCY, us, 0 = unbounded,
				  * TC_ER2BC_LATENCY_QDISC = the qdisc's (default)
				  */
	__TCA_ER2BC_CLASS_MAX
};

#define TCA_ER2BC_CLASS_MAX	(__TCA_ER2BC_CLASS_MAX - 1)

/*
 * Statistics (TCA_STATS_APP): nested attributes, as sch_cake's, so that
 * they grow without breaking anyone. A qdisc's carry TCA_ER2BC_STATS_CAP,
 * a class's TCA_ER2BC_STATS_GUARANTEE; no attribute is in both. Counts
 * are u64 unless marked.
 */
enum {
	TCA_ER2BC_STATS_UNSPEC,
	TCA_ER2BC_STATS_PAD,
	/* a qdisc's */
	TCA_ER2BC_STATS_CAP,		/* the cap W in force, bits/s (0: none) */
	TCA_ER2BC_STATS_GUARANTEED,	/* sum of the guarantees in force, bits/s */
	TCA_ER2BC_STATS_CLASSES,	/* u32 */
	TCA_ER2BC_STATS_ACTIVE,		/* u32: classes with packets queued */
	TCA_ER2BC_STATS_UNCLASSIFIED,	/* packets in no class: sent in the implicit one */
	TCA_ER2BC_STATS_THROTTLED,	/* dequeues held back by the cap W */
	TCA_ER2BC_STATS_WAITS,		/* dequeues with backlog but nothing to send */
	TCA_ER2BC_STATS_YIELDED,	/* dequeues that held scavenger classes back */
	TCA_ER2BC_STATS_HELD_NS,	/* the cap W held a backlog back, in all */
	TCA_ER2BC_STATS_LEND_TURNS,	/* lending: quanta handed out one by one */
	TCA_ER2BC_STATS_LEND_ROUNDS,	/* and whole rounds of them at once */
	TCA_ER2BC_STATS_UPDATES,	/* ABW estimates applied */
	TCA_ER2BC_STATS_SEQ,		/* u32: sequence number of the last estimate */
	TCA_ER2BC_STATS_STALE,		/* u8: 1: no estimate for longer than stale */
	TCA_ER2BC_STATS_ESTIMATE_AGE_NS, /* since the last estimate (absent: none yet) */
	/* the estimator's counts, with probe-port set */
	TCA_ER2BC_STATS_PROBE_PACKETS,	/* packets sent toward the peer, segments counted */
	TCA_ER2BC_STATS_PROBE_BYTES,
	TCA_ER2BC_STATS_PROBES,		/* the estimator's requests dequeued */
	TCA_ER2BC_STATS_PROBE_IGNORED,	/* packets not counted: not IP, not to a peer */
	/* a class's */
	TCA_ER2BC_STATS_GUARANTEE,	/* G in force, bits/s */
	TCA_ER2BC_STATS_BYTES_GUARANTEED, /* bytes sent within the guarantee */
	TCA_ER2BC_STATS_BYTES_BORROWED,	/* bytes sent on lent capacity */
	TCA_ER2BC_STATS_CREDIT,		/* s32: bytes left in its lending round */
	TCA_ER2BC_STATS_STATE,		/* u32: enum er2bc_class_state */
	/*
	 * ns it was short of its rate (R_f): backlogged but served below it,
	 * judged over windows of a second (Documentation/sch_er2bc.rst)
	 */
	TCA_ER2BC_STATS_SHORTAGE_NS,
	/* its latency bound (TCA_ER2BC_LATENCY) */
	TCA_ER2BC_STATS_SERVICE_RATE,	/* served while backlogged, bits/s (0: not yet) */
	TCA_ER2BC_STATS_BACKLOG_LIMIT,	/* u32: bytes it may hold, 0: unbounded */
	TCA_ER2BC_STATS_LATENCY_DROPS,	/* packets dropped as its queue was full */
	__TCA_ER2BC_STATS_MAX
};

#define TCA_ER2BC_STATS_MAX	(__TCA_ER2BC_STATS_MAX - 1)

/*
 * What modules before the nested statistics sent in TCA_STATS_APP: the
 * tools still read it from a module loaded before an upgrade. Frozen.
 */
struct tc_er2bc_xstats {
	__u64	rate;		/* the cap W in force, bits/s (0: none) */
	__u64	guaranteed;	/* sum of the guarantees in force, bits/s */
	__u64	unclassified;	/* packets in no class: sent in the implicit one */
	__u64	throttled;	/* dequeues held back by the cap W */
	__u64	waits;		/* dequeues with backlog but nothing to send: no class
				 * allowed to, or their children held their packets
				 */
	__u32	classes;
	__u32	active;		/* classes with packets queued */
	__u64	updates;	/* ABW estimates applied */
	__u32	stale;		/* 1: no estimate for longer than the stale timeout */
	__u32	seq;		/* sequence number of the last estimate */
	/* the estimator's counts, with probe-port set */
	__u64	probe_packets;	/* packets sent toward the peer, segments counted */
	__u64	probe_bytes;
	__u64	probes;		/* the estimator's requests dequeued */
	__u64	probe_ignored;	/* packets not counted: not IP, not to a peer */
	__u64	yielded;	/* dequeues that held scavenger classes back */
	__u64	estimate_age_ns; /* since the last estimate was applied (0: none) */
	__u64	held_ns;	/* the cap W held a backlog back, in all */
};

/* the scheduling state of a class */
enum er2bc_class_state {
	ER2BC_STATE_IDLE,	/* nothing queued */
	ER2BC_STATE_GUARANTEED,	/* may send within its guarantee */
	ER2BC_STATE_BORROWING,	/* beyond its guarantee, may borrow */
	ER2BC_STATE_HELD,	/* at its ceil: waits */
};

/*
 * A class's, before the nested statistics; frozen. It is smaller than the
 * part of struct tc_er2bc_xstats every version had (up to probe_packets):
 * tc hands both to one print function, which tells them apart by size.
 */
struct tc_er2bc_class_xstats {
	__u64	guarantee;	/* G in force, bits/s */
	__u64	bytes_guaranteed; /* bytes sent within the guarantee */
	__u64	bytes_borrowed;	/* bytes sent on lent capacity */
	__s32	credit;		/* bytes left in its lending round */
	__u32	state;		/* enum er2bc_class_state */
	/*
	 * ns it was short of its rate (R_f): backlogged but served below it,
	 * judged over windows of a second (Documentation/sch_er2bc.rst)
	 */
	__u64	shortage_ns;
};

#endif /* _UAPI_LINUX_ER2BC_H */
