// SPDX-License-Identifier: GPL-2.0
/*
 * net/sched/sch_er2bc	eR2BC gateway scheduler: Qdisc_ops, class ops and
 *			netlink glue.
 *
 * A classful qdisc: a total rate cap W, and flat classes, each with a
 * priority, a necessary rate R_f, the guarantee G in force, an optional
 * ceil and a weight, and a child qdisc. Where a packet goes is decided in
 * er2bc_classify(); which class sends next, in sched.c; what each class is
 * guaranteed, in guarantee.c.
 */
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/ipv6.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/ktime.h>
#include <net/ndisc.h>
#include <net/netlink.h>
#include <net/pkt_cls.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/sock.h>
#include <linux/er2bc.h>

#include <net/er2bc_compat.h>
#include "guarantee.h"
#include "qdisc.h"

/* how late the watchdog may fire, so timers can be batched */
#define ER2BC_TIMER_SLACK_NS	(10 * NSEC_PER_USEC)
/* the default burst: this long at the rate, and at least two full frames */
#define ER2BC_BURST_DEFAULT_NS	(4 * NSEC_PER_MSEC)
/* a weight's quantum is weight * MTU bytes (60 at the least), at most this */
#define ER2BC_QUANTUM_MAX	BIT(30)

static struct netlink_range_validation er2bc_burst_range = {
	.max = TC_ER2BC_BURST_MAX,
};

/* a burst is one length the shaper charges */
static_assert(TC_ER2BC_BURST_MAX <= ER2BC_RATE_MAX_LEN);

static struct netlink_range_validation er2bc_minor_range = {
	.max = TC_H_MIN_MASK,
};

/* an hour: beyond that, an estimator is not late but gone */
static struct netlink_range_validation er2bc_stale_range = {
	.max = 3600 * MSEC_PER_SEC,
};

/* (er2bc_class_conf()'s message names the most) */
static_assert(TC_ER2BC_LATENCY_MAX == 60 * USEC_PER_SEC);

static struct netlink_range_validation er2bc_latency_range = {
	.max = TC_ER2BC_LATENCY_MAX,
};

static struct netlink_range_validation er2bc_weight_range = {
	.min = 1,
	.max = ER2BC_WEIGHT_MAX,
};

static const struct nla_policy er2bc_policy[TCA_ER2BC_MAX + 1] = {
	[TCA_ER2BC_RATE]	= { .type = NLA_U64 },
	[TCA_ER2BC_BURST]	= NLA_POLICY_FULL_RANGE(NLA_U32, &er2bc_burst_range),
	[TCA_ER2BC_DEFAULT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &er2bc_minor_range),
	[TCA_ER2BC_MODE]	= NLA_POLICY_MAX(NLA_U8, ER2BC_MODE_MAX),
	[TCA_ER2BC_SHARE]	= NLA_POLICY_MAX(NLA_U8, ER2BC_SHARE_MAX),
	[TCA_ER2BC_CTRL_C]	= NLA_POLICY_RANGE(NLA_U32, 1, ER2BC_CTRL_HIST_MAX),
	[TCA_ER2BC_CTRL_M]	= NLA_POLICY_RANGE(NLA_U32, 1, ER2BC_CTRL_HIST_MAX),
	[TCA_ER2BC_CTRL_BLIM]	= { .type = NLA_U64 },
	[TCA_ER2BC_CTRL_FLOOR]	= { .type = NLA_U64 },
	[TCA_ER2BC_CTRL_STALE]	= NLA_POLICY_FULL_RANGE(NLA_U32, &er2bc_stale_range),
	[TCA_ER2BC_CTRL_CONVERGE] = NLA_POLICY_MAX(NLA_U8, ER2BC_CONVERGE_MAX),
	[TCA_ER2BC_PROBE_PORT]	= { .type = NLA_U16 },
	[TCA_ER2BC_PEER]	= { .type = NLA_BINARY,
				    .len = TC_ER2BC_PEER_MAX * sizeof(struct tc_er2bc_prefix) },
	[TCA_ER2BC_PROBE_MARK]	= { .type = NLA_U32 },
	[TCA_ER2BC_LATENCY]	= NLA_POLICY_FULL_RANGE(NLA_U32, &er2bc_latency_range),
};

static const struct nla_policy er2bc_class_policy[TCA_ER2BC_CLASS_MAX + 1] = {
	[TCA_ER2BC_CLASS_PRIO]	 = NLA_POLICY_RANGE(NLA_U8, ER2BC_PRIO_MIN, ER2BC_PRIO_MAX),
	[TCA_ER2BC_CLASS_RATE]	 = { .type = NLA_U64 },
	[TCA_ER2BC_CLASS_CEIL]	 = { .type = NLA_U64 },
	[TCA_ER2BC_CLASS_WEIGHT] = NLA_POLICY_FULL_RANGE(NLA_U32, &er2bc_weight_range),
	[TCA_ER2BC_CLASS_TYPE]	 = NLA_POLICY_MAX(NLA_U8, ER2BC_TYPE_MAX),
	[TCA_ER2BC_CLASS_BURST]	 = NLA_POLICY_FULL_RANGE(NLA_U32, &er2bc_burst_range),
	[TCA_ER2BC_CLASS_CBURST] = NLA_POLICY_FULL_RANGE(NLA_U32, &er2bc_burst_range),
	[TCA_ER2BC_CLASS_MARGIN] = NLA_POLICY_MAX(NLA_U32, ER2BC_MARGIN_MAX),
	/* (the range, and TC_ER2BC_LATENCY_QDISC: er2bc_class_conf()) */
	[TCA_ER2BC_CLASS_LATENCY] = { .type = NLA_U32 },
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

static struct er2bc_class *er2bc_find(struct Qdisc *sch, u32 classid)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct Qdisc_class_common *clc;

	clc = qdisc_class_find(&q->clhash, classid);
	return clc ? container_of(clc, struct er2bc_class, common) : NULL;
}

/*
 * whether a class's child is a fifo, whose backlog is only what waits to
 * be sent: another child may hold packets back on purpose (netem's delay
 * line, tbf) or manage its queue itself (fq_codel, cake)
 */
static bool er2bc_child_fifo(const struct Qdisc *child)
{
	return child->ops == &pfifo_qdisc_ops || child->ops == &bfifo_qdisc_ops;
}

/*
 * a class's latency bound, with its guarantee, ceil and W as they are now:
 * never slower than its guarantee, never faster than its ceil or W. Its
 * own, over any child; the qdisc's, over a fifo child only.
 */
static void er2bc_class_bound(struct Qdisc *sch, struct er2bc_class *cl)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	u32 us = cl->latency_us;
	u64 cap = q->rate;

	if (us == TC_ER2BC_LATENCY_QDISC)
		us = er2bc_child_fifo(cl->qdisc) ? q->latency_us : 0;

	if (cl->ceil && (!cap || cl->ceil < cap))
		cap = cl->ceil;
	er2bc_latency_set(&cl->lat, (u64)us * NSEC_PER_USEC, cl->node.g.bps, cap);
}

/* one class's guarantee, from what @fill has left, in force from @now */
static u64 er2bc_assign_class(struct Qdisc *sch, struct er2bc_fill *fill,
			      struct er2bc_class *cl, u64 now, bool estimate)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	u64 g = er2bc_guarantee_next(fill, &q->params, &cl->ctrl, cl->rate, cl->ceil,
				     estimate);

	er2bc_clock_set(&cl->node.g, g, er2bc_burst_bytes(sch, g, cl->burst), now);
	er2bc_sched_replace(&q->sched, &cl->node, now);
	er2bc_class_bound(sch, cl);
	return g;
}

/**
 * er2bc_assign - give every class its guarantee, in priority order
 * @sch: the qdisc
 * @now: the current time
 * @estimate: an ABW estimate arrived, and each class's demand S_d with it
 *
 * Each mode's rule decides (er2bc_guarantee_next()): static and pq from the
 * classes' rates; er2bc from the demand S_d the controller computed at the
 * last estimate (the rate until there is one), with the controller's floor,
 * and on an estimate its convergence policy, within W. Within a priority,
 * in er2bc mode, the classes that ask no more than an equal share of what
 * is left go first (er2bc_fill_small()). Each class's latency bound
 * follows its guarantee and W. Under the tree lock: packets see the whole
 * new set or none of it.
 */
void er2bc_assign(struct Qdisc *sch, u64 now, bool estimate)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct er2bc_class *cl;
	struct er2bc_fill fill;
	u64 sum = 0;
	int p;

	er2bc_fill_start(&fill, q->mode, q->rate);
	for (p = 0; p < ER2BC_NPRIO; p++) {
		unsigned int n = 0, pass;
		u64 share;

		/* (a class that asks for nothing takes no share) */
		list_for_each_entry(cl, &q->by_prio[p], prio_list)
			n += !!er2bc_guarantee_demand(&fill, &cl->ctrl, cl->rate, cl->ceil);
		/* the classes that ask no more than an equal share first, whole */
		share = er2bc_fill_small(&fill, n);
		for (pass = 0; pass < (share ? 2 : 1); pass++) {
			list_for_each_entry(cl, &q->by_prio[p], prio_list) {
				if (share && er2bc_guarantee_small(&fill, &cl->ctrl, cl->rate,
								   cl->ceil, share) != !pass)
					continue;
				sum += er2bc_assign_class(sch, &fill, cl, now, estimate);
			}
		}
	}
	/* no guarantee, but the way of lending and W may have changed */
	er2bc_sched_replace(&q->sched, &q->implicit.node, now);
	er2bc_class_bound(sch, &q->implicit);
	WRITE_ONCE(q->guaranteed, sum);
}

/* no estimate for longer than the stale timeout */
bool er2bc_stale(const struct er2bc_sched_data *q, u64 now)
{
	return q->stale_ms && q->last_update &&
	       now - q->last_update > (u64)q->stale_ms * NSEC_PER_MSEC;
}

/* the cap W, in force from now */
void er2bc_set_cap(struct Qdisc *sch, u64 rate, u64 now)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);

	er2bc_clock_set(&q->sched.cap, rate, er2bc_burst_bytes(sch, rate, q->burst), now);
	WRITE_ONCE(q->rate, rate);
}

void er2bc_class_gen_bump(struct er2bc_sched_data *q)
{
	static atomic_t gen = ATOMIC_INIT(0);

	/* odd: never 0, which netlink takes for no generation */
	q->class_gen = (u32)atomic_add_return(2, &gen) | 1;
}

/* after a change a class may send earlier: let dequeue decide again */
void er2bc_kick(struct Qdisc *sch)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);

	qdisc_watchdog_cancel(&q->watchdog);
	__netif_schedule(qdisc_root(sch));
}

/*
 * the qdisc's filters, then skb->priority naming a class, then the default
 * class, then the implicit one: a packet no one claimed (ARP, neighbour
 * discovery, the operator's SSH into a half-configured gateway) is sent at
 * the lowest priority, under the cap, never dropped for want of a class
 */
static struct er2bc_class *er2bc_classify(struct sk_buff *skb, struct Qdisc *sch,
					  int *qerr)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct er2bc_class *cl;
	struct tcf_result res;
	struct tcf_proto *fl;
	int result;

	*qerr = NET_XMIT_SUCCESS | __NET_XMIT_BYPASS;
	fl = rcu_dereference_bh(q->filter_list);
	/* no filter: tcf_classify() would find nothing */
	result = fl ? tcf_classify(skb, NULL, fl, &res, false) : TC_ACT_UNSPEC;
	if (result >= 0) {
#ifdef CONFIG_NET_CLS_ACT
		switch (result) {
		case TC_ACT_QUEUED:
		case TC_ACT_STOLEN:
		case TC_ACT_TRAP:
			*qerr = NET_XMIT_SUCCESS | __NET_XMIT_STOLEN;
			fallthrough;
		case TC_ACT_SHOT:
			return NULL;
		}
#endif
		cl = (struct er2bc_class *)res.class;
		if (!cl)
			cl = er2bc_find(sch, res.classid);
		if (cl)
			return cl;
	}
	if (TC_H_MAJ(skb->priority ^ sch->handle) == 0 && TC_H_MIN(skb->priority)) {
		cl = er2bc_find(sch, skb->priority);
		if (cl)
			return cl;
	}
	if (q->defcl)
		return q->defcl;
	q->unclassified++;
	return &q->implicit;
}

/*
 * The estimator's requests skip the classes and the cap: the cut in the
 * counts is where a request is dequeued, so it need not wait behind the
 * data, and its response comes back sooner. Only the daemon's requests may
 * take that path: a request sent from a socket of this gateway, in the
 * qdisc's own network namespace (a forwarded packet has no socket, a
 * container's is in another namespace), with the probe mark if there is
 * one (SO_MARK takes CAP_NET_ADMIN or CAP_NET_RAW: an unprivileged process
 * cannot set it), else from a socket owned by the root user of the netns's
 * user namespace; to a peer, of exactly a request's size; and at most
 * ER2BC_PROBE_BURST back to back and one per ER2BC_PROBE_GAP_NS after that
 * (the daemon sends one per interval, 1 ms at the least). Anything else is
 * classified like any packet, and counted by no one (see er2bc_count_skb()).
 */
#define ER2BC_PROBE_GAP_NS	NSEC_PER_MSEC
#define ER2BC_PROBE_BURST	8

static bool er2bc_probe_ours(const struct sk_buff *skb, struct Qdisc *sch)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	const struct sock *sk = skb->sk;
	u64 now, earliest;

	/* a GSO skb would leave as several datagrams, each a look-alike */
	if (!sk || skb_is_gso(skb) || !sk_fullsock(sk) ||
	    !net_eq(sock_net(sk), dev_net(qdisc_dev(sch))))
		return false;
	/* exactly a request's size (er2bc_probe_classify()) */
	if (er2bc_probe_classify(skb, q->probe_port, &q->peer, true, NULL, NULL) !=
	    ER2BC_PKT_PROBE)
		return false;
	/*
	 * SO_MARK takes CAP_NET_ADMIN or CAP_NET_RAW; without a mark, the
	 * socket must be owned by the root user of the netns's user namespace
	 * (sk_uid: its creator's, or whom fchown() gave it to, as "ip rule
	 * uidrange" reads it)
	 */
	if (q->probe_mark ? skb->mark != q->probe_mark :
	    !uid_eq(READ_ONCE(sk->sk_uid), make_kuid(sock_net(sk)->user_ns, 0)))
		return false;
	now = ktime_get_ns();
	earliest = now - min_t(u64, now, (ER2BC_PROBE_BURST - 1) * ER2BC_PROBE_GAP_NS);
	if (q->probe_next > now)
		return false;
	q->probe_next = max(q->probe_next, earliest) + ER2BC_PROBE_GAP_NS;
	return true;
}

/* the request is queued or dropped: its verdict; NET_XMIT_MASK: not ours */
static int er2bc_probe_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			       struct sk_buff **to_free)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);

	if (!er2bc_probe_ours(skb, sch))
		return NET_XMIT_MASK;
	if (skb_queue_len(&q->probes) >= ER2BC_SNAP_RING)
		return qdisc_drop(skb, sch, to_free);
	__skb_queue_tail(&q->probes, skb);
	qdisc_qstats_backlog_inc(sch, skb);
	sch->q.qlen++;
	return NET_XMIT_SUCCESS;
}

/*
 * The gateway's own neighbour resolution, which the latency bound never
 * drops: ARP the kernel built (no socket, no input device), and IPv6
 * neighbour solicitations and advertisements from its ndisc socket. A
 * class held at its bound under sustained load drops most of what
 * arrives; were the gateway's probes and answers among them, the next
 * hop's entry would fail and everything sent to it would wait for a
 * resolution of seconds (er2bc_latency.sh saw a ping answered after
 * 1.2 s, and none at all for a while after). The kernel sends them
 * rarely and they are small. What a LAN host or a local program sends,
 * whatever it looks like (a bridged frame, a packet socket's, a packet a
 * firewall rewrote), is bounded like the rest: exempt, it could take the
 * class.
 */
static bool er2bc_own_neigh(const struct sk_buff *skb, const struct Qdisc *sch)
{
#if IS_ENABLED(CONFIG_IPV6)
	const int off = skb_network_offset(skb);
	const struct ipv6hdr *ip6;
	struct ipv6hdr _ip6;
	const u8 *type;
	u8 _type;
#endif

	switch (skb_protocol(skb, true)) {
	case htons(ETH_P_ARP):
		return !skb->sk && !skb->skb_iif;
#if IS_ENABLED(CONFIG_IPV6)
	case htons(ETH_P_IPV6):
		/* (the namespace's ndisc socket: read only for IPv6) */
		if (!skb->sk || skb->sk != dev_net(qdisc_dev(sch))->ipv6.ndisc_sk)
			return false;
		ip6 = skb_header_pointer(skb, off, sizeof(_ip6), &_ip6);
		if (!ip6 || ip6->nexthdr != IPPROTO_ICMPV6)
			return false;
		type = skb_header_pointer(skb, off + sizeof(_ip6), sizeof(_type), &_type);
		return type && (*type == NDISC_NEIGHBOUR_SOLICITATION ||
				*type == NDISC_NEIGHBOUR_ADVERTISEMENT);
#endif
	default:
		return false;
	}
}

static int er2bc_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			 struct sk_buff **to_free)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	unsigned int len = qdisc_pkt_len(skb);
	struct er2bc_class *cl;
	int err;

	if (unlikely(q->probe_port)) {
		err = er2bc_probe_enqueue(skb, sch, to_free);
		if (err != NET_XMIT_MASK)
			return err;
	}
	cl = er2bc_classify(skb, sch, &err);
	if (unlikely(!cl)) {
		if (err & __NET_XMIT_BYPASS)
			qdisc_qstats_drop(sch);
		__qdisc_drop(skb, to_free);
		return err;
	}

	/* (what the child holds: it may drop or reorder as it will) */
	if (unlikely(er2bc_latency_full(&cl->lat, cl->qdisc->qstats.backlog)) &&
	    !er2bc_own_neigh(skb, sch)) {
		cl->lat.drops++;
		cl->drops++;
		return qdisc_drop(skb, sch, to_free);
	}
	err = qdisc_enqueue(skb, cl->qdisc, to_free);
	if (unlikely(err != NET_XMIT_SUCCESS)) {
		if (net_xmit_drop_count(err)) {
			cl->drops++;
			qdisc_qstats_drop(sch);
		}
		return err;
	}
	sch->qstats.backlog += len;
	sch->q.qlen++;
	/*
	 * Whether the class was idle is asked after the child took the packet:
	 * a child may have dropped others meanwhile, or (netem) sent one back
	 * through this qdisc. Activation is idempotent.
	 */
	if (!er2bc_node_active(&cl->node) && cl->qdisc->q.qlen) {
		u64 now = er2bc_sched_clock(&q->sched);

		/*
		 * read the clock only if the class is not ready already, or if
		 * its shortage is measured: it is backlogged from now
		 */
		if (cl->shortage.need_bps || !er2bc_node_ready(&cl->node, now))
			now = ktime_get_ns();
		er2bc_sched_activate(&q->sched, &cl->node, now);
		er2bc_short_busy(&cl->shortage, now);
	}
	return NET_XMIT_SUCCESS;
}

static struct sk_buff *er2bc_dequeue(struct Qdisc *sch)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct er2bc_node *n;
	struct sk_buff *skb;
	u32 tries;
	u64 now;

	if (!sch->q.qlen) {
		/* emptied under a spell (a class deleted, a child grafted) */
		if (unlikely(q->sched.holding))
			er2bc_sched_unhold(&q->sched, ktime_get_ns());
		return NULL;
	}
	if (unlikely(skb_queue_len(&q->probes))) {
		skb = __skb_dequeue(&q->probes);
		qdisc_bstats_update(sch, skb);
		qdisc_qstats_backlog_dec(sch, skb);
		sch->q.qlen--;
		/* the snapshot's: how long W held the backlog back so far */
		q->count.held = er2bc_sched_held(&q->sched, ktime_get_ns());
		er2bc_count_skb(&q->count, skb, q->probe_port, &q->peer, true, true);
		return skb;
	}
	now = ktime_get_ns();
	/*
	 * A class whose child holds its packets back is set aside for the
	 * rest of this dequeue, and the classes after it are asked: each turn
	 * sends a packet or takes a class out of the running, so there are at
	 * most as many turns as active classes, and one more.
	 */
	for (tries = q->sched.active + 1;; tries--) {
		struct er2bc_class *cl;

		/*
		 * more turns: a class is on a list it is not active on; try
		 * again a millisecond later rather than spin under the lock
		 */
		if (WARN_ON_ONCE(!tries)) {
			n = NULL;
			q->wake = now + NSEC_PER_MSEC;
		} else {
			n = er2bc_sched_next(&q->sched, now, &q->wake);
		}
		if (!n) {
			qdisc_qstats_overlimit(sch);
			if (q->wake != U64_MAX)
				qdisc_watchdog_schedule_range_ns(&q->watchdog, q->wake,
								 ER2BC_TIMER_SLACK_NS);
			skb = NULL;
			break;
		}
		cl = container_of(n, struct er2bc_class, node);
		skb = qdisc_dequeue_peeked(cl->qdisc);
		if (unlikely(!skb)) {
			/* the child may also have emptied itself (qlen_notify) */
			if (er2bc_node_active(n))
				er2bc_sched_set_aside(&q->sched, n, &q->aside);
			continue;
		}
		er2bc_sched_charge(&q->sched, n, qdisc_pkt_len(skb), now,
				   cl->qdisc->q.qlen);
		er2bc_short_sent(&cl->shortage, qdisc_pkt_len(skb), now, cl->qdisc->q.qlen);
		er2bc_latency_sent(&cl->lat, qdisc_pkt_len(skb), now, cl->qdisc->q.qlen);
		bstats_update(&cl->bstats, skb);
		qdisc_bstats_update(sch, skb);
		qdisc_qstats_backlog_dec(sch, skb);
		sch->q.qlen--;
		if (unlikely(q->probe_port))
			er2bc_count_skb(&q->count, skb, q->probe_port, &q->peer, true, false);
		break;
	}
	/* their children's watchdogs wake the root for their next packets */
	if (unlikely(!list_empty(&q->aside)))
		er2bc_sched_restore(&q->sched, &q->aside, now);
	return skb;
}

/* TCA_ER2BC_PEER: an array of struct tc_er2bc_prefix, none to count all */
static int er2bc_parse_peer(const struct nlattr *attr, struct er2bc_peer *peer,
			    struct netlink_ext_ack *extack)
{
	const struct tc_er2bc_prefix *p = nla_data(attr);
	unsigned int i, n = nla_len(attr) / sizeof(*p);

	BUILD_BUG_ON(TC_ER2BC_PEER_MAX != ER2BC_PEER_MAX);
	if (nla_len(attr) % sizeof(*p)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "er2bc: peer is an array of struct tc_er2bc_prefix");
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (p[i].pad || er2bc_prefix_set(&peer->p[i], p[i].family, p[i].plen,
						 p[i].addr, sizeof(p[i].addr))) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "er2bc: a peer prefix is IPv4 or IPv6, of a length it has, without host bits");
			return -EINVAL;
		}
	}
	peer->n = n;
	return 0;
}

/* the qdisc's options, at init or on change */
static int er2bc_configure(struct Qdisc *sch, struct nlattr *opt,
			   struct netlink_ext_ack *extack)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_ER2BC_MAX + 1];
	struct er2bc_peer peer;
	u64 rate, ceil, now;
	u32 burst;
	int err;

	if (!opt)
		return 0;
	err = nla_parse_nested(tb, TCA_ER2BC_MAX, opt, er2bc_policy, extack);
	if (err < 0)
		return err;

	/* everything is validated and computed before any state changes */
	if (tb[TCA_ER2BC_PEER]) {
		err = er2bc_parse_peer(tb[TCA_ER2BC_PEER], &peer, extack);
		if (err)
			return err;
	}
	/*
	 * A new rate is the new ceiling, and W until the first estimate; once
	 * estimates come, W stays below both (0: no cap, no ceiling)
	 */
	ceil = tb[TCA_ER2BC_RATE] ? nla_get_u64(tb[TCA_ER2BC_RATE]) : q->ceil;
	rate = tb[TCA_ER2BC_RATE] ? ceil : q->rate;
	if (tb[TCA_ER2BC_RATE] && q->last_update && q->rate && (!ceil || q->rate < ceil))
		rate = q->rate;
	burst = tb[TCA_ER2BC_BURST] ? nla_get_u32(tb[TCA_ER2BC_BURST]) : q->burst;

	sch_tree_lock(sch);
	now = ktime_get_ns();
	WRITE_ONCE(q->burst, burst);
	WRITE_ONCE(q->ceil, ceil);
	er2bc_set_cap(sch, rate, now);
	if (tb[TCA_ER2BC_DEFAULT]) {
		WRITE_ONCE(q->defcls, nla_get_u32(tb[TCA_ER2BC_DEFAULT]));
		q->defcl = q->defcls ? er2bc_find(sch, TC_H_MAKE(sch->handle, q->defcls))
				     : NULL;
		/* a warning, printed by tc: the default may name a class to come */
		if (q->defcls && !q->defcl)
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_ER2BC_DEFAULT],
					    "er2bc: the default class does not exist (yet): until it does, unclassified packets go at the lowest priority");
	}
	if (tb[TCA_ER2BC_MODE])
		WRITE_ONCE(q->mode, nla_get_u8(tb[TCA_ER2BC_MODE]));
	if (tb[TCA_ER2BC_SHARE])
		WRITE_ONCE(q->share, nla_get_u8(tb[TCA_ER2BC_SHARE]));
	/* every class is placed again below, on the lists of the new sharing */
	q->sched.weighted = q->share == ER2BC_SHARE_WEIGHTED;
	if (tb[TCA_ER2BC_CTRL_C])
		WRITE_ONCE(q->params.c, nla_get_u32(tb[TCA_ER2BC_CTRL_C]));
	if (tb[TCA_ER2BC_CTRL_M])
		WRITE_ONCE(q->params.m, nla_get_u32(tb[TCA_ER2BC_CTRL_M]));
	if (tb[TCA_ER2BC_CTRL_BLIM])
		WRITE_ONCE(q->params.blim, nla_get_u64(tb[TCA_ER2BC_CTRL_BLIM]));
	if (tb[TCA_ER2BC_CTRL_FLOOR])
		WRITE_ONCE(q->params.floor, nla_get_u64(tb[TCA_ER2BC_CTRL_FLOOR]));
	if (tb[TCA_ER2BC_CTRL_CONVERGE])
		WRITE_ONCE(q->params.converge, nla_get_u8(tb[TCA_ER2BC_CTRL_CONVERGE]));
	if (tb[TCA_ER2BC_CTRL_STALE])
		WRITE_ONCE(q->stale_ms, nla_get_u32(tb[TCA_ER2BC_CTRL_STALE]));
	/* the counts go on: a change of port or peers is a change from now on */
	if (tb[TCA_ER2BC_PROBE_PORT])
		WRITE_ONCE(q->probe_port, htons(nla_get_u16(tb[TCA_ER2BC_PROBE_PORT])));
	if (tb[TCA_ER2BC_PEER])
		q->peer = peer;
	if (tb[TCA_ER2BC_PROBE_MARK])
		WRITE_ONCE(q->probe_mark, nla_get_u32(tb[TCA_ER2BC_PROBE_MARK]));
	/* (every class's bound follows, in er2bc_assign()) */
	if (tb[TCA_ER2BC_LATENCY])
		WRITE_ONCE(q->latency_us, nla_get_u32(tb[TCA_ER2BC_LATENCY]));
	er2bc_assign(sch, now, false);
	sch_tree_unlock(sch);
	return 0;
}

static int er2bc_change(struct Qdisc *sch, struct nlattr *opt,
			struct netlink_ext_ack *extack)
{
	int err = er2bc_configure(sch, opt, extack);

	if (!err)
		er2bc_kick(sch);
	return err;
}

/* never 0, even on a device whose MTU and header are (a tunnel's may be) */
static u32 er2bc_quantum(struct Qdisc *sch, u32 weight)
{
	u64 quantum = (u64)weight * max_t(u32, psched_mtu(qdisc_dev(sch)), ETH_ZLEN);

	return min_t(u64, quantum, ER2BC_QUANTUM_MAX);
}

/*
 * A class's own parts, its configuration aside: an idle scheduler node, its
 * counters, and a pfifo child (of the device's txqueuelen) whose parent is
 * the class. The node is ready before the child exists, so er2bc_reset()
 * may deactivate it as soon as the child does.
 */
static int er2bc_class_init(struct Qdisc *sch, struct er2bc_class *cl, u32 classid,
			    struct netlink_ext_ack *extack)
{
	er2bc_node_init(&cl->node);
	INIT_LIST_HEAD(&cl->prio_list);
	gnet_stats_basic_sync_init(&cl->bstats);
	er2bc_short_init(&cl->shortage, 0, ktime_get_ns());
	er2bc_latency_init(&cl->lat);
	cl->latency_us = TC_ER2BC_LATENCY_QDISC;
	cl->common.classid = classid;
	cl->qdisc = qdisc_create_dflt(sch->dev_queue, &pfifo_qdisc_ops, classid,
				      extack);
	return cl->qdisc ? 0 : -ENOBUFS;
}

/*
 * The implicit class: no guarantee, no ceil but W, weight 1, at the lowest
 * priority, classid <major>:0. It is in no hash and no priority list: tc
 * neither shows nor changes it.
 */
static int er2bc_implicit_init(struct Qdisc *sch, struct netlink_ext_ack *extack)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct er2bc_class *cl = &q->implicit;
	int err;

	err = er2bc_class_init(sch, cl, sch->handle, extack);
	if (err)
		return err;
	cl->prio = ER2BC_PRIO_MAX;
	cl->node.prio = ER2BC_NPRIO - 1;
	cl->weight = 1;
	cl->type = ER2BC_TYPE_UDP;
	cl->node.quantum = er2bc_quantum(sch, cl->weight);
	er2bc_class_bound(sch, cl);
	return 0;
}

static int er2bc_init(struct Qdisc *sch, struct nlattr *opt,
		      struct netlink_ext_ack *extack)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	int err, p;

	qdisc_watchdog_init(&q->watchdog, sch);
	__skb_queue_head_init(&q->probes);
	INIT_LIST_HEAD(&q->aside);
	er2bc_sched_init(&q->sched);
	er2bc_ctrl_params_default(&q->params);
	er2bc_ctrl_init(&q->ctrl);
	q->latency_us = TC_ER2BC_LATENCY_DEFAULT;
	for (p = 0; p < ER2BC_NPRIO; p++)
		INIT_LIST_HEAD(&q->by_prio[p]);

	err = tcf_block_get(&q->block, &q->filter_list, sch, extack);
	if (err)
		return err;
	err = qdisc_class_hash_init(&q->clhash);
	if (err)
		return err;
	err = er2bc_implicit_init(sch, extack);
	if (err)
		return err;
	er2bc_class_gen_bump(q);
	return er2bc_configure(sch, opt, extack);
}

/*
 * a class has nothing queued any more: off the scheduler's lists, not busy
 * (the clock read only if it was: a reset walks every class)
 */
static void er2bc_class_idle(struct er2bc_sched_data *q, struct er2bc_class *cl)
{
	er2bc_sched_deactivate(&q->sched, &cl->node);
	er2bc_latency_idle(&cl->lat);
	if (cl->shortage.busy_since)
		er2bc_short_idle(&cl->shortage, ktime_get_ns());
}

static void er2bc_reset(struct Qdisc *sch)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct er2bc_class *cl;
	unsigned int i;

	for (i = 0; i < q->clhash.hashsize; i++) {
		hlist_for_each_entry(cl, &q->clhash.hash[i], common.hnode) {
			er2bc_class_idle(q, cl);
			qdisc_reset(cl->qdisc);
		}
	}
	if (q->implicit.qdisc) {
		er2bc_class_idle(q, &q->implicit);
		qdisc_reset(q->implicit.qdisc);
	}
	__skb_queue_purge(&q->probes);
	er2bc_sched_unhold(&q->sched, ktime_get_ns());
	qdisc_watchdog_cancel(&q->watchdog);
}

static void er2bc_destroy_class(struct Qdisc *sch, struct er2bc_class *cl)
{
	gen_kill_estimator(&cl->rate_est);
	qdisc_put(cl->qdisc);
	kfree(cl);
}

static void er2bc_destroy(struct Qdisc *sch)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct er2bc_class *cl;
	struct hlist_node *next;
	unsigned int i;

	qdisc_watchdog_cancel(&q->watchdog);
	__skb_queue_purge(&q->probes);
	tcf_block_put(q->block);
	for (i = 0; i < q->clhash.hashsize; i++) {
		hlist_for_each_entry_safe(cl, next, &q->clhash.hash[i], common.hnode)
			er2bc_destroy_class(sch, cl);
	}
	qdisc_class_hash_destroy(&q->clhash);
	qdisc_put(q->implicit.qdisc);
}

static int er2bc_dump_peer(struct sk_buff *skb, const struct er2bc_peer *peer)
{
	struct tc_er2bc_prefix p[TC_ER2BC_PEER_MAX] = {};
	unsigned int i;

	if (!peer->n)
		return 0;
	for (i = 0; i < peer->n; i++) {
		p[i].family = peer->p[i].family;
		p[i].plen = peer->p[i].plen;
		memcpy(p[i].addr, &peer->p[i].addr, sizeof(p[i].addr));
	}
	return nla_put(skb, TCA_ER2BC_PEER, peer->n * sizeof(p[0]), p);
}

static int er2bc_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;

	if (nla_put_u64_64bit(skb, TCA_ER2BC_RATE, READ_ONCE(q->ceil), TCA_ER2BC_PAD) ||
	    nla_put_u32(skb, TCA_ER2BC_BURST, READ_ONCE(q->burst)) ||
	    nla_put_u32(skb, TCA_ER2BC_DEFAULT, READ_ONCE(q->defcls)) ||
	    nla_put_u8(skb, TCA_ER2BC_MODE, READ_ONCE(q->mode)) ||
	    nla_put_u8(skb, TCA_ER2BC_SHARE, READ_ONCE(q->share)) ||
	    nla_put_u32(skb, TCA_ER2BC_CTRL_C, READ_ONCE(q->params.c)) ||
	    nla_put_u32(skb, TCA_ER2BC_CTRL_M, READ_ONCE(q->params.m)) ||
	    nla_put_u64_64bit(skb, TCA_ER2BC_CTRL_BLIM, READ_ONCE(q->params.blim),
			      TCA_ER2BC_PAD) ||
	    nla_put_u64_64bit(skb, TCA_ER2BC_CTRL_FLOOR, READ_ONCE(q->params.floor),
			      TCA_ER2BC_PAD) ||
	    nla_put_u32(skb, TCA_ER2BC_CTRL_STALE, READ_ONCE(q->stale_ms)) ||
	    nla_put_u8(skb, TCA_ER2BC_CTRL_CONVERGE, READ_ONCE(q->params.converge)) ||
	    nla_put_u16(skb, TCA_ER2BC_PROBE_PORT, ntohs(READ_ONCE(q->probe_port))) ||
	    er2bc_dump_peer(skb, &q->peer) ||
	    nla_put_u32(skb, TCA_ER2BC_PROBE_MARK, READ_ONCE(q->probe_mark)) ||
	    nla_put_u32(skb, TCA_ER2BC_LATENCY, READ_ONCE(q->latency_us)))
		goto nla_put_failure;

	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int er2bc_put_u64(struct sk_buff *skb, int type, u64 v)
{
	return nla_put_u64_64bit(skb, type, v, TCA_ER2BC_STATS_PAD);
}

/* the scheduler's counts, under the tree lock */
static int er2bc_put_sched_stats(struct sk_buff *skb, struct er2bc_sched_data *q, u64 now)
{
	const struct er2bc_sched *s = &q->sched;

	if (er2bc_put_u64(skb, TCA_ER2BC_STATS_CAP, q->rate) ||
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_GUARANTEED, q->guaranteed) ||
	    nla_put_u32(skb, TCA_ER2BC_STATS_CLASSES, q->clhash.hashelems) ||
	    nla_put_u32(skb, TCA_ER2BC_STATS_ACTIVE, s->active) ||
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_UNCLASSIFIED, q->unclassified) ||
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_THROTTLED, s->throttled) ||
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_WAITS, s->waits) ||
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_YIELDED, s->yielded) ||
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_HELD_NS, er2bc_sched_held(s, now)) ||
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_LEND_TURNS, s->lend_turns) ||
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_LEND_ROUNDS, s->lend_rounds) ||
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_PROBE_PACKETS, q->count.packets) ||
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_PROBE_BYTES, q->count.bytes) ||
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_PROBES, q->count.probes) ||
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_PROBE_IGNORED, q->count.ignored))
		return -EMSGSIZE;
	return 0;
}

/* the controller's, under RTNL as dumps are */
static int er2bc_put_ctrl_stats(struct sk_buff *skb, struct er2bc_sched_data *q, u64 now)
{
	if (er2bc_put_u64(skb, TCA_ER2BC_STATS_UPDATES, q->ctrl.updates) ||
	    nla_put_u32(skb, TCA_ER2BC_STATS_SEQ, q->last.seq) ||
	    nla_put_u8(skb, TCA_ER2BC_STATS_STALE, er2bc_stale(q, now)))
		return -EMSGSIZE;
	if (q->last_update && now > q->last_update &&
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_ESTIMATE_AGE_NS, now - q->last_update))
		return -EMSGSIZE;
	return 0;
}

/* statistics nested in TCA_STATS_APP, as sch_cake's */
static int er2bc_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct nlattr *stats;
	int err;

	stats = nla_nest_start_noflag(d->skb, TCA_STATS_APP);
	if (!stats)
		return -1;
	sch_tree_lock(sch);
	err = er2bc_put_sched_stats(d->skb, q, ktime_get_ns());
	sch_tree_unlock(sch);
	if (err || er2bc_put_ctrl_stats(d->skb, q, ktime_get_ns())) {
		nla_nest_cancel(d->skb, stats);
		return -1;
	}
	nla_nest_end(d->skb, stats);
	return 0;
}

/* Classes */

static unsigned long er2bc_search_class(struct Qdisc *sch, u32 classid)
{
	return (unsigned long)er2bc_find(sch, classid);
}

static struct Qdisc *er2bc_class_leaf(struct Qdisc *sch, unsigned long arg)
{
	return ((struct er2bc_class *)arg)->qdisc;
}

static int er2bc_graft(struct Qdisc *sch, unsigned long arg, struct Qdisc *new,
		       struct Qdisc **old, struct netlink_ext_ack *extack)
{
	struct er2bc_class *cl = (struct er2bc_class *)arg;

	if (!new) {
		new = qdisc_create_dflt(sch->dev_queue, &pfifo_qdisc_ops,
					cl->common.classid, extack);
		if (!new)
			return -ENOBUFS;
		qdisc_hash_add(new, true);
	}
	/* the old child's packets are purged: qlen_notify idles the class */
	*old = qdisc_replace(sch, new, &cl->qdisc);
	/* the new child's rate is measured afresh, and a fifo's bounded */
	sch_tree_lock(sch);
	er2bc_latency_init(&cl->lat);
	er2bc_class_bound(sch, cl);
	sch_tree_unlock(sch);
	return 0;
}

static void er2bc_qlen_notify(struct Qdisc *sch, unsigned long arg)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct er2bc_class *cl = (struct er2bc_class *)arg;

	/* the implicit class's pfifo has parent <major>:0, which find() does not name */
	er2bc_class_idle(q, cl ?: &q->implicit);
}

/* insert into the priority order, by classid among equals */
static void er2bc_prio_insert(struct er2bc_sched_data *q, struct er2bc_class *cl)
{
	struct list_head *head = &q->by_prio[cl->prio - 1];
	struct er2bc_class *pos;

	/* classes tend to be added in rising classid order: search from the tail */
	list_for_each_entry_reverse(pos, head, prio_list) {
		if (pos->common.classid < cl->common.classid) {
			list_add(&cl->prio_list, &pos->prio_list);
			return;
		}
	}
	list_add(&cl->prio_list, head);
}

/* a class's configuration, as a change leaves it */
struct er2bc_class_conf {
	u64 rate;
	u64 ceil;
	u32 weight;
	u32 burst;
	u32 cburst;
	u32 latency_us;
	u8 prio;
	u8 type;
	u8 margin;
};

/*
 * @cl's configuration (or a new class's defaults) with what @tb names
 * changed, checked whole before anything changes
 */
static int er2bc_class_conf(const struct er2bc_class *cl, struct nlattr **tb,
			    struct er2bc_class_conf *c, struct netlink_ext_ack *extack)
{
	c->prio = cl ? cl->prio : ER2BC_PRIO_MAX;
	c->rate = cl ? cl->rate : 0;
	c->ceil = cl ? cl->ceil : 0;
	c->weight = cl ? cl->weight : 1;
	c->type = cl ? cl->type : ER2BC_TYPE_TCP;
	c->burst = cl ? cl->burst : 0;
	c->cburst = cl ? cl->cburst : 0;
	c->margin = cl ? cl->ctrl.margin : 0;
	c->latency_us = cl ? cl->latency_us : TC_ER2BC_LATENCY_QDISC;
	if (tb[TCA_ER2BC_CLASS_PRIO])
		c->prio = nla_get_u8(tb[TCA_ER2BC_CLASS_PRIO]);
	if (tb[TCA_ER2BC_CLASS_RATE])
		c->rate = nla_get_u64(tb[TCA_ER2BC_CLASS_RATE]);
	if (tb[TCA_ER2BC_CLASS_CEIL])
		c->ceil = nla_get_u64(tb[TCA_ER2BC_CLASS_CEIL]);
	if (tb[TCA_ER2BC_CLASS_WEIGHT])
		c->weight = nla_get_u32(tb[TCA_ER2BC_CLASS_WEIGHT]);
	if (tb[TCA_ER2BC_CLASS_TYPE])
		c->type = nla_get_u8(tb[TCA_ER2BC_CLASS_TYPE]);
	if (tb[TCA_ER2BC_CLASS_BURST])
		c->burst = nla_get_u32(tb[TCA_ER2BC_CLASS_BURST]);
	if (tb[TCA_ER2BC_CLASS_CBURST])
		c->cburst = nla_get_u32(tb[TCA_ER2BC_CLASS_CBURST]);
	if (tb[TCA_ER2BC_CLASS_MARGIN])
		c->margin = nla_get_u32(tb[TCA_ER2BC_CLASS_MARGIN]);
	if (tb[TCA_ER2BC_CLASS_LATENCY])
		c->latency_us = nla_get_u32(tb[TCA_ER2BC_CLASS_LATENCY]);

	if (c->latency_us > TC_ER2BC_LATENCY_MAX && c->latency_us != TC_ER2BC_LATENCY_QDISC) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_ER2BC_CLASS_LATENCY],
				    "er2bc: latency is at most 60s (60000000 us), or 0xffffffff for the qdisc's");
		return -ERANGE;
	}

	if (c->ceil && c->ceil < c->rate) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_ER2BC_CLASS_CEIL] ?:
				    tb[TCA_ER2BC_CLASS_RATE],
				    "er2bc: ceil must not be below rate");
		return -EINVAL;
	}
	if (c->type == ER2BC_TYPE_SCAVENGER && c->rate) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_ER2BC_CLASS_RATE] ?:
				    tb[TCA_ER2BC_CLASS_TYPE],
				    "er2bc: a scavenger class holds no guarantee: give it rate 0 (rate 0 type scavenger)");
		return -EINVAL;
	}
	if (c->type == ER2BC_TYPE_SCAVENGER && c->margin) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_ER2BC_CLASS_MARGIN] ?:
				    tb[TCA_ER2BC_CLASS_TYPE],
				    "er2bc: a scavenger class holds no guarantee to add a margin to: give it margin 0");
		return -EINVAL;
	}
	return 0;
}

/* a new class @classid with its child and rate estimator, not yet in the qdisc */
static struct er2bc_class *er2bc_class_create(struct Qdisc *sch, u32 classid,
					      struct nlattr *est,
					      struct netlink_ext_ack *extack)
{
	struct er2bc_class *cl;
	int err;

	if (!TC_H_MIN(classid) || TC_H_MAJ(classid ^ sch->handle)) {
		NL_SET_ERR_MSG(extack,
			       "er2bc: classid must be <qdisc major>:<minor>, minor not 0");
		return ERR_PTR(-EINVAL);
	}
	cl = kzalloc(sizeof(*cl), GFP_KERNEL_ACCOUNT);
	if (!cl)
		return ERR_PTR(-ENOBUFS);
	err = er2bc_class_init(sch, cl, classid, extack);
	if (err)
		goto free;
	if (est) {
		err = gen_new_estimator(&cl->bstats, NULL, &cl->rate_est,
					NULL, true, est);
		if (err) {
			NL_SET_ERR_MSG(extack, "er2bc: cannot create the rate estimator");
			qdisc_put(cl->qdisc);
			goto free;
		}
	}
	return cl;
free:
	kfree(cl);
	return ERR_PTR(err);
}

/* @c into @cl (@new: not yet in the qdisc), under the tree lock */
static void er2bc_class_apply(struct Qdisc *sch, struct er2bc_class *cl,
			      const struct er2bc_class_conf *c, bool new)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	u64 now = ktime_get_ns();
	bool scavenger;

	if (new) {
		qdisc_class_hash_insert(&q->clhash, &cl->common);
		/* the default may name a class before it exists */
		if (q->defcls && TC_H_MIN(cl->common.classid) == q->defcls)
			q->defcl = cl;
	}
	if (new || c->prio != cl->prio) {
		er2bc_class_gen_bump(q);
		if (!new)
			list_del(&cl->prio_list);
		cl->prio = c->prio;
		er2bc_prio_insert(q, cl);
	}
	/* a new rate or type starts the class's history afresh */
	if (new || c->rate != cl->rate || c->type != cl->type)
		er2bc_ctrl_class_init(&cl->ctrl, c->rate, c->type);
	cl->ctrl.margin = c->margin;
	cl->rate = c->rate;
	er2bc_short_set_need(&cl->shortage, c->rate, now);
	cl->ceil = c->ceil;
	cl->weight = c->weight;
	cl->type = c->type;
	/* (its bound follows in er2bc_assign()) */
	cl->latency_us = c->latency_us;
	/* (a class that stays where it was keeps its turn in the lending round) */
	scavenger = c->type == ER2BC_TYPE_SCAVENGER;
	if (new || c->prio - 1 != cl->node.prio || scavenger != cl->node.scavenger)
		er2bc_sched_move(&q->sched, &cl->node, c->prio - 1, scavenger, now);
	cl->burst = c->burst;
	cl->cburst = c->cburst;
	cl->node.quantum = er2bc_quantum(sch, c->weight);
	er2bc_clock_set(&cl->node.c, c->ceil, er2bc_burst_bytes(sch, c->ceil, c->cburst), now);
	/* every class's guarantee may move: this one's rate or place changed */
	er2bc_assign(sch, now, false);
}

static int er2bc_change_class(struct Qdisc *sch, u32 classid, u32 parentid,
			      struct nlattr **tca, unsigned long *arg,
			      struct netlink_ext_ack *extack)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct er2bc_class *cl = (struct er2bc_class *)*arg;
	struct nlattr *tb[TCA_ER2BC_CLASS_MAX + 1] = {};
	struct er2bc_class_conf conf;
	bool new = !cl;
	int err;

	if (parentid && parentid != TC_H_ROOT &&
	    parentid != TC_H_MAKE(sch->handle, 0)) {
		NL_SET_ERR_MSG(extack, "er2bc: classes are flat: their parent is the qdisc");
		return -EINVAL;
	}
	if (tca[TCA_OPTIONS]) {
		err = nla_parse_nested(tb, TCA_ER2BC_CLASS_MAX, tca[TCA_OPTIONS],
				       er2bc_class_policy, extack);
		if (err < 0)
			return err;
	}
	/* the new configuration, whole, before anything changes */
	err = er2bc_class_conf(cl, tb, &conf, extack);
	if (err)
		return err;

	if (new) {
		cl = er2bc_class_create(sch, classid, tca[TCA_RATE], extack);
		if (IS_ERR(cl))
			return PTR_ERR(cl);
	} else if (tca[TCA_RATE]) {
		err = gen_replace_estimator(&cl->bstats, NULL, &cl->rate_est,
					    NULL, true, tca[TCA_RATE]);
		if (err) {
			NL_SET_ERR_MSG(extack, "er2bc: cannot replace the rate estimator");
			return err;
		}
	}

	sch_tree_lock(sch);
	er2bc_class_apply(sch, cl, &conf, new);
	sch_tree_unlock(sch);

	if (new) {
		qdisc_class_hash_grow(sch, &q->clhash);
		qdisc_hash_add(cl->qdisc, true);
	}
	*arg = (unsigned long)cl;
	er2bc_kick(sch);
	return 0;
}

static int er2bc_delete_class(struct Qdisc *sch, unsigned long arg,
			      struct netlink_ext_ack *extack)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct er2bc_class *cl = (struct er2bc_class *)arg;

	if (cl->filter_cnt) {
		NL_SET_ERR_MSG(extack, "er2bc: class is in use by filters: delete them first");
		return -EBUSY;
	}
	/* so the cached default class never outlives its class */
	if (cl == q->defcl) {
		NL_SET_ERR_MSG(extack,
			       "er2bc: class is the qdisc's default: change the default first");
		return -EBUSY;
	}

	sch_tree_lock(sch);
	qdisc_purge_queue(cl->qdisc);
	er2bc_class_idle(q, cl);
	qdisc_class_hash_remove(&q->clhash, &cl->common);
	list_del(&cl->prio_list);
	er2bc_class_gen_bump(q);
	/* what it was guaranteed goes to the classes after it */
	er2bc_assign(sch, ktime_get_ns(), false);
	sch_tree_unlock(sch);

	er2bc_destroy_class(sch, cl);
	er2bc_kick(sch);
	return 0;
}

static struct tcf_block *er2bc_tcf_block(struct Qdisc *sch, unsigned long arg,
					 struct netlink_ext_ack *extack)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);

	if (arg) {
		NL_SET_ERR_MSG(extack, "er2bc: filters attach to the qdisc, not to a class");
		return NULL;
	}
	return q->block;
}

static unsigned long er2bc_bind_tcf(struct Qdisc *sch, unsigned long parent,
				    u32 classid)
{
	struct er2bc_class *cl = er2bc_find(sch, classid);

	if (cl)
		cl->filter_cnt++;
	return (unsigned long)cl;
}

static void er2bc_unbind_tcf(struct Qdisc *sch, unsigned long arg)
{
	struct er2bc_class *cl = (struct er2bc_class *)arg;

	cl->filter_cnt--;
}

static int er2bc_dump_class(struct Qdisc *sch, unsigned long arg,
			    struct sk_buff *skb, struct tcmsg *tcm)
{
	struct er2bc_class *cl = (struct er2bc_class *)arg;
	struct nlattr *opts;

	tcm->tcm_parent = TC_H_ROOT;
	tcm->tcm_handle = cl->common.classid;
	tcm->tcm_info = cl->qdisc->handle;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	if (nla_put_u8(skb, TCA_ER2BC_CLASS_PRIO, cl->prio) ||
	    nla_put_u64_64bit(skb, TCA_ER2BC_CLASS_RATE, cl->rate, TCA_ER2BC_CLASS_PAD) ||
	    nla_put_u64_64bit(skb, TCA_ER2BC_CLASS_CEIL, cl->ceil, TCA_ER2BC_CLASS_PAD) ||
	    nla_put_u32(skb, TCA_ER2BC_CLASS_WEIGHT, cl->weight) ||
	    nla_put_u8(skb, TCA_ER2BC_CLASS_TYPE, cl->type) ||
	    nla_put_u32(skb, TCA_ER2BC_CLASS_BURST, cl->burst) ||
	    nla_put_u32(skb, TCA_ER2BC_CLASS_CBURST, cl->cburst) ||
	    nla_put_u32(skb, TCA_ER2BC_CLASS_MARGIN, cl->ctrl.margin) ||
	    /* (only its own: absent, the qdisc's) */
	    (cl->latency_us != TC_ER2BC_LATENCY_QDISC &&
	     nla_put_u32(skb, TCA_ER2BC_CLASS_LATENCY, cl->latency_us)))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int er2bc_put_class_stats(struct sk_buff *skb, struct er2bc_class *cl, u64 now)
{
	const struct er2bc_node *n = &cl->node;
	const struct er2bc_latency *l = &cl->lat;

	if (er2bc_put_u64(skb, TCA_ER2BC_STATS_GUARANTEE, n->g.bps) ||
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_BYTES_GUARANTEED, n->bytes_guaranteed) ||
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_BYTES_BORROWED, n->bytes_borrowed) ||
	    nla_put_s32(skb, TCA_ER2BC_STATS_CREDIT, n->credit) ||
	    nla_put_u32(skb, TCA_ER2BC_STATS_STATE, n->state) ||
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_SHORTAGE_NS,
			  er2bc_short_read(&cl->shortage, now)) ||
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_SERVICE_RATE,
			  er2bc_latency_rate(l)) ||
	    nla_put_u32(skb, TCA_ER2BC_STATS_BACKLOG_LIMIT,
			l->limit == U32_MAX ? 0 : l->limit) ||
	    er2bc_put_u64(skb, TCA_ER2BC_STATS_LATENCY_DROPS, l->drops))
		return -EMSGSIZE;
	return 0;
}

static int er2bc_dump_class_stats(struct Qdisc *sch, unsigned long arg,
				  struct gnet_dump *d)
{
	struct er2bc_class *cl = (struct er2bc_class *)arg;
	struct gnet_stats_queue qs = {};
	struct nlattr *stats;
	__u32 qlen;
	int err;

	sch_tree_lock(sch);
	qdisc_qstats_qlen_backlog(cl->qdisc, &qlen, &qs.backlog);
	qs.drops = cl->drops;
	qs.overlimits = cl->node.held;
	sch_tree_unlock(sch);

	if (gnet_stats_copy_basic(d, NULL, &cl->bstats, true) < 0 ||
	    gnet_stats_copy_rate_est(d, &cl->rate_est) < 0 ||
	    gnet_stats_copy_queue(d, NULL, &qs, qlen) < 0)
		return -1;

	stats = nla_nest_start_noflag(d->skb, TCA_STATS_APP);
	if (!stats)
		return -1;
	sch_tree_lock(sch);
	err = er2bc_put_class_stats(d->skb, cl, ktime_get_ns());
	sch_tree_unlock(sch);
	if (err) {
		nla_nest_cancel(d->skb, stats);
		return -1;
	}
	nla_nest_end(d->skb, stats);
	return 0;
}

static void er2bc_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct er2bc_class *cl;
	unsigned int i;

	if (arg->stop)
		return;
	for (i = 0; i < q->clhash.hashsize; i++) {
		hlist_for_each_entry(cl, &q->clhash.hash[i], common.hnode) {
			if (!tc_qdisc_stats_dump(sch, (unsigned long)cl, arg))
				return;
		}
	}
}

static const struct Qdisc_class_ops er2bc_class_ops = {
	.graft		= er2bc_graft,
	.leaf		= er2bc_class_leaf,
	.qlen_notify	= er2bc_qlen_notify,
	.find		= er2bc_search_class,
	.change		= er2bc_change_class,
	.delete		= er2bc_delete_class,
	.walk		= er2bc_walk,
	.tcf_block	= er2bc_tcf_block,
	.bind_tcf	= er2bc_bind_tcf,
	.unbind_tcf	= er2bc_unbind_tcf,
	.dump		= er2bc_dump_class,
	.dump_stats	= er2bc_dump_class_stats,
};

struct Qdisc_ops er2bc_qdisc_ops __read_mostly = {
	.cl_ops		= &er2bc_class_ops,
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
	.dump_stats	= er2bc_dump_stats,
	.owner		= THIS_MODULE,
};
