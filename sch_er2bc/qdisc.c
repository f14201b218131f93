// SPDX-License-Identifier: GPL-2.0
/*
 * net/sched/sch_er2bc	eR2BC gateway scheduler: Qdisc_ops and netlink glue.
 *
 * The shaper is a virtual clock (EDT): each packet leaving advances the
 * clock by its transmission time at the cap, and a packet may leave once
 * the clock is not ahead of now. An idle qdisc lets the clock fall behind
 * now by at most the burst, so at most `burst` bytes leave back to back.
 * One qdisc watchdog wakes the queue when the clock is ahead.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/ktime.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <linux/er2bc.h>

#include "er2bc_compat.h"
#include "shaper.h"

/* how late the watchdog may fire, so timers can be batched */
#define ER2BC_TIMER_SLACK_NS	(10 * NSEC_PER_USEC)
/* the default burst: this long at the cap, and at least two full frames */
#define ER2BC_BURST_DEFAULT_NS	NSEC_PER_MSEC

struct er2bc_sched_data {
	/* read and written for every packet */
	struct er2bc_rate rate;
	u64 time_next;		/* earliest departure of the next packet */
	u64 burst_ns;		/* how far the clock may fall behind now */

	/* configuration, as dumped */
	u64 rate_bps;
	u32 burst;		/* bytes; 0 = derived from rate and MTU */
	u32 limit;

	struct qdisc_watchdog watchdog;
};

static const struct nla_policy er2bc_policy[TCA_ER2BC_MAX + 1] = {
	[TCA_ER2BC_RATE]	= { .type = NLA_U64 },
	[TCA_ER2BC_BURST]	= { .type = NLA_U32 },
	[TCA_ER2BC_LIMIT]	= { .type = NLA_U32 },
};

static u32 er2bc_burst_bytes(const struct Qdisc *sch, u64 rate_bps, u32 burst)
{
	u64 bytes;

	if (burst)
		return burst;
	bytes = div_u64(rate_bps, 8 * (NSEC_PER_SEC / ER2BC_BURST_DEFAULT_NS));
	bytes = max_t(u64, bytes, 2 * psched_mtu(qdisc_dev(sch)));
	return min_t(u64, bytes, ER2BC_RATE_MAX_LEN);
}

static int er2bc_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			 struct sk_buff **to_free)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);

	if (unlikely(sch->q.qlen >= READ_ONCE(q->limit)))
		return qdisc_drop(skb, sch, to_free);

	return qdisc_enqueue_tail(skb, sch);
}

static struct sk_buff *er2bc_dequeue(struct Qdisc *sch)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;
	u64 now, earliest;

	skb = qdisc_peek_head(sch);
	if (!skb)
		return NULL;

	if (q->rate.mult) {
		now = ktime_get_ns();
		if (q->time_next > now) {
			qdisc_qstats_overlimit(sch);
			qdisc_watchdog_schedule_range_ns(&q->watchdog, q->time_next,
							 ER2BC_TIMER_SLACK_NS);
			return NULL;
		}
		earliest = now > q->burst_ns ? now - q->burst_ns : 0;
		q->time_next = max(q->time_next, earliest) +
			       er2bc_rate_tx_ns(&q->rate, qdisc_pkt_len(skb));
	}
	return qdisc_dequeue_head(sch);
}

static int er2bc_change(struct Qdisc *sch, struct nlattr *opt,
			struct netlink_ext_ack *extack)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_ER2BC_MAX + 1];
	unsigned int dropped_pkts = 0, dropped_bytes = 0;
	struct er2bc_rate rate;
	u64 rate_bps, burst_ns;
	u32 burst, limit;
	int err;

	if (!opt)
		return 0;

	err = nla_parse_nested(tb, TCA_ER2BC_MAX, opt, er2bc_policy, extack);
	if (err < 0)
		return err;

	/* everything is validated and computed before any state changes */
	if (tb[TCA_ER2BC_LIMIT] && !nla_get_u32(tb[TCA_ER2BC_LIMIT])) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_ER2BC_LIMIT],
				    "er2bc: limit must be at least one packet");
		return -EINVAL;
	}
	if (tb[TCA_ER2BC_BURST] &&
	    nla_get_u32(tb[TCA_ER2BC_BURST]) > ER2BC_RATE_MAX_LEN) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_ER2BC_BURST],
				    "er2bc: burst must not exceed 512 MiB");
		return -EINVAL;
	}
	rate_bps = tb[TCA_ER2BC_RATE] ? nla_get_u64(tb[TCA_ER2BC_RATE]) : q->rate_bps;
	burst = tb[TCA_ER2BC_BURST] ? nla_get_u32(tb[TCA_ER2BC_BURST]) : q->burst;
	limit = tb[TCA_ER2BC_LIMIT] ? nla_get_u32(tb[TCA_ER2BC_LIMIT]) : q->limit;

	er2bc_rate_set(&rate, rate_bps);
	burst_ns = er2bc_rate_tx_ns(&rate, er2bc_burst_bytes(sch, rate_bps, burst));

	sch_tree_lock(sch);
	q->time_next = er2bc_clock_rescale(q->time_next, ktime_get_ns(),
					   q->rate_bps, rate_bps);
	q->rate = rate;
	q->burst_ns = burst_ns;
	WRITE_ONCE(q->rate_bps, rate_bps);
	WRITE_ONCE(q->burst, burst);
	WRITE_ONCE(q->limit, limit);
	/* the excess is dropped from the head, counted as drops, not as sent */
	while (sch->q.qlen > limit) {
		struct sk_buff *skb = __qdisc_dequeue_head(&sch->q);

		if (!skb)	/* what is left is a packet a parent peeked at */
			break;
		dropped_pkts++;
		dropped_bytes += qdisc_pkt_len(skb);
		qdisc_qstats_backlog_dec(sch, skb);
		qdisc_qstats_drop(sch);
		rtnl_kfree_skbs(skb, skb);
	}
	qdisc_tree_reduce_backlog(sch, dropped_pkts, dropped_bytes);
	sch_tree_unlock(sch);

	/* the head packet may leave earlier now: let dequeue decide again */
	qdisc_watchdog_cancel(&q->watchdog);
	__netif_schedule(qdisc_root(sch));
	return 0;
}

static int er2bc_init(struct Qdisc *sch, struct nlattr *opt,
		      struct netlink_ext_ack *extack)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);

	qdisc_watchdog_init(&q->watchdog, sch);
	q->limit = max_t(u32, qdisc_dev(sch)->tx_queue_len, 1);
	er2bc_rate_set(&q->rate, 0);

	return er2bc_change(sch, opt, extack);
}

static void er2bc_reset(struct Qdisc *sch)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);

	qdisc_reset_queue(sch);
	q->time_next = 0;
	qdisc_watchdog_cancel(&q->watchdog);
}

static void er2bc_destroy(struct Qdisc *sch)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);

	qdisc_watchdog_cancel(&q->watchdog);
}

static int er2bc_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;

	if (nla_put_u64_64bit(skb, TCA_ER2BC_RATE, READ_ONCE(q->rate_bps),
			      TCA_ER2BC_PAD) ||
	    nla_put_u32(skb, TCA_ER2BC_BURST, READ_ONCE(q->burst)) ||
	    nla_put_u32(skb, TCA_ER2BC_LIMIT, READ_ONCE(q->limit)))
		goto nla_put_failure;

	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static struct Qdisc_ops er2bc_qdisc_ops __read_mostly = {
	.id		= "er2bc",
	.priv_size	= sizeof(struct er2bc_sched_data),
	.enqueue	= er2bc_enqueue,
	.dequeue	= er2bc_dequeue,
	.peek		= qdisc_peek_dequeued,
	.init		= er2bc_init,
	.reset		= er2bc_reset,
	.destroy	= er2bc_destroy,
	.change		= er2bc_change,
	.dump		= er2bc_dump,
	.owner		= THIS_MODULE,
};
MODULE_ALIAS_NET_SCH("er2bc");

static int __init er2bc_module_init(void)
{
	return register_qdisc(&er2bc_qdisc_ops);
}

static void __exit er2bc_module_exit(void)
{
	unregister_qdisc(&er2bc_qdisc_ops);
}

module_init(er2bc_module_init);
module_exit(er2bc_module_exit);
MODULE_AUTHOR("The er2bc authors");
MODULE_DESCRIPTION("eR2BC priority-based bandwidth control for gateways");
MODULE_LICENSE("GPL");
MODULE_VERSION(ER2BC_VERSION);
