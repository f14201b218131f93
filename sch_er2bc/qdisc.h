/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The er2bc qdisc's private data, shared by the qdisc (qdisc.c) and its
 * generic netlink family (genl.c), which feeds ABW estimates to the eR2BC
 * controller and reports its state.
 */
#ifndef _ER2BC_QDISC_H
#define _ER2BC_QDISC_H

#include <linux/list.h>
#include <linux/types.h>
#include <net/gen_stats.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "ctrl.h"
#include "probe.h"
#include "sched.h"
#include "state.h"

struct er2bc_class {
	struct er2bc_node node;		/* the scheduler's: hot */
	struct Qdisc *qdisc;		/* the child */
	struct er2bc_latency lat;	/* its queue's bound: hot */
	struct Qdisc_class_common common;
	struct list_head prio_list;	/* in by_prio[], classid order */

	/* configuration, as dumped; changed under RTNL and the tree lock */
	u64 rate;			/* R_f */
	u64 ceil;
	u32 weight;
	u32 burst;
	u32 cburst;
	u8 prio;			/* 1 = highest */
	u8 type;			/* enum er2bc_class_type */
	u32 latency_us;			/* TC_ER2BC_LATENCY_QDISC: the qdisc's */
	u32 filter_cnt;

	/* the controller's view of the class; RTNL */
	struct er2bc_ctrl_class ctrl;

	struct gnet_stats_basic_sync bstats;
	struct er2bc_short shortage;	/* time below R_f while backlogged */
	u32 drops;			/* refused by the child, or over its bound */
	struct net_rate_estimator __rcu *rate_est;
};

struct er2bc_sched_data {
	struct er2bc_sched sched;	/* hot */
	/* classes whose child held its packets back, during a dequeue */
	struct list_head aside;
	struct tcf_proto __rcu *filter_list;
	struct er2bc_class *defcl;	/* the default class, if it exists */
	u32 defcls;			/* minor of the default class, 0: none */
	u64 unclassified;		/* packets classified to the implicit class */
	struct er2bc_class implicit;	/* what nothing else claimed */

	struct Qdisc_class_hash clhash;
	/*
	 * changes whenever a class is added, removed or moves in by_prio,
	 * never 0 and never the same in two qdiscs: a resumed dump that finds
	 * another is marked inconsistent (RTNL)
	 */
	u32 class_gen;
	struct tcf_block *block;
	/* the classes in priority order, as guarantees are handed out */
	struct list_head by_prio[ER2BC_NPRIO];

	/*
	 * configuration, as dumped: written under RTNL and the tree lock with
	 * WRITE_ONCE(), read by the datapath under the tree lock, dumped with
	 * READ_ONCE() (the dump takes no tree lock, as fq_dump() in sch_fq)
	 */
	u64 ceil;			/* tc's rate: W's ceiling, 0: none */
	u64 rate;			/* W, the cap in force */
	u32 burst;
	u8 mode;
	u8 share;
	u32 latency_us;			/* the classes' bound, 0: none */
	u64 guaranteed;			/* sum of the guarantees in force */

	/* the eR2BC controller; RTNL (params written as the configuration) */
	struct er2bc_ctrl_params params;
	u32 stale_ms;			/* 0: never stale */
	struct er2bc_ctrl ctrl;
	struct er2bc_estimate last;	/* the last estimate applied */
	u64 last_update;		/* when, ktime_get_ns(); 0: never */
	u64 cost;			/* ns the last update took */

	struct qdisc_watchdog watchdog;
	/* when the scheduler can send next (a field: no stack canary in dequeue) */
	u64 wake;
	/* the estimator's counts (probe.h): its requests' port, 0: none */
	__be16 probe_port;
	u32 probe_mark;			/* their mark, 0: any */
	struct sk_buff_head probes;	/* its requests, sent before any class */
	u64 probe_next;			/* when the next may take that path */
	struct er2bc_peer peer;
	struct er2bc_count count;
};

extern struct Qdisc_ops er2bc_qdisc_ops;

/* qdisc.c */
void er2bc_assign(struct Qdisc *sch, u64 now, bool estimate);
void er2bc_class_gen_bump(struct er2bc_sched_data *q);
void er2bc_kick(struct Qdisc *sch);
bool er2bc_stale(const struct er2bc_sched_data *q, u64 now);
void er2bc_set_cap(struct Qdisc *sch, u64 rate, u64 now);

#endif /* _ER2BC_QDISC_H */
