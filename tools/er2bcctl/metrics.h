/* SPDX-License-Identifier: GPL-2.0 */
/*
 * er2bcctl metrics: every er2bc qdisc of the network namespace (found in
 * rtnetlink's qdisc dump), its controller's state (ctrl-get), its classes'
 * tc counters (rtnetlink's class dump), and tcp_rcvmgr's counters
 * (stats-get), and the counters of each er2bc-abwd on the host (its status
 * file), in the Prometheus text exposition format (version 0.0.4).
 *
 * What is gathered (metrics.c) is printed by metrics_print()
 * (metrics_output.c), which the host tests feed made-up state.
 */
#ifndef _ER2BCCTL_METRICS_H
#define _ER2BCCTL_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/er2bc.h>

#include "decode.h"
#include "rcvmgr.h"
#include "status.h"

/* what tc's dump says of a qdisc or class (TCA_STATS2) */
struct tc_counts {
	bool has_basic, has_queue;
	uint64_t bytes, packets;
	uint32_t qlen, backlog, drops, overlimits;
};

/* a class's latency bound, as its nested statistics have it */
struct class_bound {
	bool has;				/* a module before the bound: none */
	uint64_t service_rate;			/* bit/s; 0: not measured yet */
	uint32_t backlog_limit;			/* bytes; 0: unbounded */
	uint64_t latency_drops;
};

struct metrics_class {
	uint32_t classid;
	struct tc_counts tc;
	size_t xlen;				/* the xstats' bytes sent; 0: none */
	struct tc_er2bc_class_xstats x;
	struct class_bound bound;
};

struct metrics_qdisc {
	uint32_t ifindex, handle;
	char dev[32];				/* "" if unknown: "if<N>" */
	struct tc_counts tc;
	size_t xlen;				/* the xstats' bytes sent; 0: none */
	struct tc_er2bc_xstats x;
	struct qdisc_info ctrl;			/* ctrl-get; ctrl.msgs 0: none */
	struct metrics_class *cls;		/* tc's classes, in dump order */
	size_t ncls;
};

struct metrics {
	struct metrics_qdisc *qd;
	size_t nqd;
	bool has_rcvmgr;			/* tcp_rcvmgr is loaded */
	struct rcvmgr_stats rcvmgr;
	/* er2bc-abwd's status files, and when they are read (CLOCK_REALTIME) */
	const struct status_daemon *abwd;
	size_t nabwd;
	uint64_t now_unix_us;
};

/*
 * @m in the text exposition format on @f: each metric's HELP and TYPE, then
 * its samples. @now_ns is CLOCK_MONOTONIC, for the age of the estimate.
 */
void metrics_print(FILE *f, const struct metrics *m, uint64_t now_ns);
void metrics_free(struct metrics *m);

/*
 * A qdisc's or class's TCA_STATS2 (a nest) into @c; its TCA_STATS_APP, or
 * NULL
 */
const struct nlattr *tc_counts_parse(const struct nlattr *stats2, struct tc_counts *c);

/*
 * A qdisc's or a class's statistics (TCA_STATS_APP, or NULL) into @x,
 * zeroed first: nested attributes, or the struct a module loaded before
 * an upgrade sends (fewer fields if older still). *@xlen: the bytes of @x
 * known (every field from nested attributes), 0 if none. A class's latency
 * bound, which no struct has, into @b (zeroed first).
 */
void qdisc_xstats_parse(const struct nlattr *app, struct tc_er2bc_xstats *x, size_t *xlen);
void class_xstats_parse(const struct nlattr *app, struct tc_er2bc_class_xstats *x,
			size_t *xlen, struct class_bound *b);

/* whether xstats of @xlen bytes hold the field at @off of @size bytes */
#define XHAS(xlen, type, field) \
	((xlen) >= offsetof(type, field) + sizeof(((type *)0)->field))

#endif /* _ER2BCCTL_METRICS_H */
