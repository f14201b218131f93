// SPDX-License-Identifier: GPL-2.0
/*
 * An er2bc qdisc as the generic netlink commands see it (state.h): found
 * by ifindex and handle, handed an estimate, its state and classes put in
 * a message, its counts read. genl.c calls these and nothing else of the
 * qdisc; the qdisc's structs stay with the files that run it.
 */
#include <linux/kernel.h>
#include <linux/hashtable.h>
#include <linux/ktime.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/netlink.h>
#include <net/sch_generic.h>
#include <linux/er2bc.h>
#include <linux/er2bc_genl.h>

#include "qdisc.h"
#include "state.h"

#include "trace.h"

/* the qdisc of @dev with @handle, as tc finds it: the root or one hashed below */
static struct Qdisc *er2bc_nl_lookup(struct net_device *dev, u32 handle)
{
	struct Qdisc *root = rtnl_dereference(dev->qdisc), *q;

	if (!root)
		return NULL;
	if (root->handle == handle)
		return root;
	hash_for_each_possible_rcu(dev->qdisc_hash, q, hash, handle,
				   lockdep_rtnl_is_held()) {
		if (q->handle == handle)
			return q;
	}
	return NULL;
}

/**
 * er2bc_qdisc_find - the er2bc qdisc that @ifindex and @handle name in @net
 * @net: the requester's netns
 * @ifindex: the device
 * @handle: the qdisc's handle, major:0
 * @tb: the request's attributes, which an error points at (ifindex and
 *	handle of the qdisc or the probe attribute set, the same numbers);
 *	NULL when it had none (a dump's later parts)
 * @extack: what is wrong, for tc and er2bcctl to print
 *
 * Context: RTNL, held for as long as the qdisc is used: it keeps the qdisc
 * and its classes from going away or changing.
 *
 * Return: the qdisc, or an ERR_PTR() said in @extack
 */
struct Qdisc *er2bc_qdisc_find(struct net *net, u32 ifindex, u32 handle,
			       struct nlattr **tb, struct netlink_ext_ack *extack)
{
	struct nlattr *a_ifindex = tb ? tb[ER2BC_A_QDISC_IFINDEX] : NULL;
	struct nlattr *a_handle = tb ? tb[ER2BC_A_QDISC_HANDLE] : NULL;
	struct net_device *dev;
	struct Qdisc *sch;

	ASSERT_RTNL();
	dev = __dev_get_by_index(net, ifindex);
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, a_ifindex, "er2bc: no such device");
		return ERR_PTR(-ENODEV);
	}
	if (!TC_H_MAJ(handle) || TC_H_MIN(handle)) {
		NL_SET_ERR_MSG_ATTR(extack, a_handle,
				    "er2bc: a qdisc handle is major:0, major not 0");
		return ERR_PTR(-EINVAL);
	}
	sch = er2bc_nl_lookup(dev, handle);
	if (!sch) {
		NL_SET_ERR_MSG_ATTR(extack, a_handle,
				    "er2bc: no qdisc with this handle on the device");
		return ERR_PTR(-ENOENT);
	}
	if (sch->ops != &er2bc_qdisc_ops) {
		NL_SET_ERR_MSG_ATTR(extack, a_handle,
				    "er2bc: the qdisc with this handle is not er2bc");
		return ERR_PTR(-EOPNOTSUPP);
	}
	return sch;
}

/*
 * abw-ntf's classes: each one's classid and guarantee, in priority order, as
 * many as the message holds (a few hundred); the count of all is beside them
 */
static void er2bc_put_guarantees(struct sk_buff *skb, const struct er2bc_sched_data *q)
{
	const struct er2bc_class *cl;
	struct nlattr *nest;
	int p;

	for (p = 0; p < ER2BC_NPRIO; p++) {
		list_for_each_entry(cl, &q->by_prio[p], prio_list) {
			nest = nla_nest_start(skb, ER2BC_A_QDISC_CLASS);
			if (!nest)
				return;
			if (nla_put_u32(skb, ER2BC_A_CLASS_CLASSID, cl->common.classid) ||
			    nla_put_u64_64bit(skb, ER2BC_A_CLASS_GUARANTEE, cl->ctrl.g,
					      ER2BC_A_CLASS_PAD)) {
				nla_nest_cancel(skb, nest);
				return;
			}
			nla_nest_end(skb, nest);
		}
	}
}

/**
 * er2bc_put_state - the controller's state, as ctrl-get and abw-ntf carry it
 * @skb: the message
 * @sch: an er2bc qdisc (er2bc_qdisc_find())
 * @event: only what abw-ntf carries, with each class's guarantee
 *
 * Context: RTNL.
 *
 * Return: 0, or -EMSGSIZE
 */
int er2bc_put_state(struct sk_buff *skb, struct Qdisc *sch, bool event)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	const struct er2bc_ctrl *c = &q->ctrl;
	/* (unlocked, as the rest here; torn on 32-bit, it is off for one dump) */
	u64 now = ktime_get_ns(), until = READ_ONCE(q->sched.yield_until);
	unsigned int i, n;

	if (nla_put_u32(skb, ER2BC_A_QDISC_IFINDEX, qdisc_dev(sch)->ifindex) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_HANDLE, sch->handle) ||
	    nla_put_u8(skb, ER2BC_A_QDISC_MODE, READ_ONCE(q->mode)) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_ABW, READ_ONCE(q->rate), ER2BC_A_QDISC_PAD) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_CEIL, READ_ONCE(q->ceil),
			      ER2BC_A_QDISC_PAD) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_RECV_RATE, q->last.recv, ER2BC_A_QDISC_PAD) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_SEQ, q->last.seq) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_RATIO, c->s) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_RATIO_MIN, c->sp) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_UPDATES, c->updates, ER2BC_A_QDISC_PAD) ||
	    nla_put_u8(skb, ER2BC_A_QDISC_STALE, er2bc_stale(q, now)) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_SCAVENGER_HOLD,
			until > now ? div_u64(until - now, NSEC_PER_USEC) : 0) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_GUARANTEED, READ_ONCE(q->guaranteed),
			      ER2BC_A_QDISC_PAD) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_CLASSES, q->clhash.hashelems) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_COST, q->cost, ER2BC_A_QDISC_PAD))
		return -EMSGSIZE;
	if (event) {
		er2bc_put_guarantees(skb, q);
		return 0;
	}

	if (nla_put_u64_64bit(skb, ER2BC_A_QDISC_SENT, q->last.sent, ER2BC_A_QDISC_PAD) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_LOST, q->last.lost, ER2BC_A_QDISC_PAD) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_INTERVAL, q->last.interval) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_LAST_UPDATE, q->last_update,
			      ER2BC_A_QDISC_PAD) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_PARAM_C, READ_ONCE(q->params.c)) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_PARAM_M, READ_ONCE(q->params.m)) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_PARAM_BLIM, READ_ONCE(q->params.blim),
			      ER2BC_A_QDISC_PAD) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_PARAM_FLOOR, READ_ONCE(q->params.floor),
			      ER2BC_A_QDISC_PAD) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_PARAM_STALE, READ_ONCE(q->stale_ms)) ||
	    nla_put_u8(skb, ER2BC_A_QDISC_PARAM_CONVERGE, READ_ONCE(q->params.converge)))
		return -EMSGSIZE;

	/* the history of s, newest first: the last M values */
	n = min_t(unsigned int, c->s_len, q->params.m);
	for (i = 0; i < n; i++)
		if (nla_put_u32(skb, ER2BC_A_QDISC_RATIO_HIST, er2bc_ctrl_s_hist(c, i)))
			return -EMSGSIZE;
	return 0;
}

static int er2bc_put_class(struct sk_buff *skb, const struct er2bc_class *cl)
{
	const struct er2bc_ctrl_class *k = &cl->ctrl;
	struct nlattr *nest;

	nest = nla_nest_start(skb, ER2BC_A_QDISC_CLASS);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, ER2BC_A_CLASS_CLASSID, cl->common.classid) ||
	    nla_put_u8(skb, ER2BC_A_CLASS_PRIO, cl->prio) ||
	    nla_put_u8(skb, ER2BC_A_CLASS_TYPE, cl->type) ||
	    nla_put_u64_64bit(skb, ER2BC_A_CLASS_RATE, cl->rate, ER2BC_A_CLASS_PAD) ||
	    nla_put_u64_64bit(skb, ER2BC_A_CLASS_GUARANTEE, k->g, ER2BC_A_CLASS_PAD) ||
	    nla_put_u64_64bit(skb, ER2BC_A_CLASS_DEMAND, k->sd, ER2BC_A_CLASS_PAD) ||
	    nla_put_u64_64bit(skb, ER2BC_A_CLASS_EXPECTED, k->re, ER2BC_A_CLASS_PAD) ||
	    nla_put_s64(skb, ER2BC_A_CLASS_DELTA, k->delta, ER2BC_A_CLASS_PAD) ||
	    nla_put_s64(skb, ER2BC_A_CLASS_DELTA_SUM, k->delta_sum, ER2BC_A_CLASS_PAD) ||
	    nla_put_u32(skb, ER2BC_A_CLASS_MARGIN, k->margin)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * er2bc_put_classes - classes in priority order, as many as fit
 * @skb: the message
 * @sch: an er2bc qdisc (er2bc_qdisc_find())
 * @sent: in: how many classes earlier messages carried; out: with these
 *
 * Context: RTNL, which keeps the classes as they are between two calls
 * unless er2bc_class_gen() moved.
 *
 * Return: how many classes this message carries; 0 when all were sent;
 * -EMSGSIZE when not one of those left fits
 */
int er2bc_put_classes(struct sk_buff *skb, struct Qdisc *sch, unsigned long *sent)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	struct er2bc_class *cl;
	unsigned long i = 0;
	int p, n = 0;

	for (p = 0; p < ER2BC_NPRIO; p++) {
		list_for_each_entry(cl, &q->by_prio[p], prio_list) {
			if (i++ < *sent)
				continue;
			if (er2bc_put_class(skb, cl))
				return n ? n : -EMSGSIZE;
			(*sent)++;
			n++;
		}
	}
	return n;
}

/**
 * er2bc_class_gen - moves when a class is added, removed or changes priority
 * @sch: an er2bc qdisc (er2bc_qdisc_find())
 *
 * Context: RTNL.
 *
 * Return: the generation, for a dump's consistency check
 */
unsigned int er2bc_class_gen(struct Qdisc *sch)
{
	const struct er2bc_sched_data *q = qdisc_priv(sch);

	return q->class_gen;
}

/**
 * er2bc_apply - one ABW estimate: demands, then the cap and guarantees at once
 * @sch: an er2bc qdisc (er2bc_qdisc_find())
 * @e: the estimate
 *
 * Context: RTNL, which keeps the classes as they are while the demands are
 * computed; the packet path waits only for the tree lock's part.
 */
void er2bc_apply(struct Qdisc *sch, const struct er2bc_estimate *e)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	int ifindex = qdisc_dev(sch)->ifindex;
	struct er2bc_class *cl;
	u64 t0 = ktime_get_ns(), fr_sum = 0, now;
	u64 w = e->abw;
	u32 fr_count = 0;
	int p;

	/* the operator's rate is W's ceiling, whatever the estimate says */
	if (q->ceil)
		w = min(w, q->ceil);
	for (p = 0; p < ER2BC_NPRIO; p++) {
		list_for_each_entry(cl, &q->by_prio[p], prio_list) {
			if (!er2bc_ctrl_in_fr(&cl->ctrl))
				continue;
			fr_sum = min(fr_sum + cl->ctrl.g, ER2BC_CTRL_RATE_MAX);
			fr_count++;
		}
	}
	er2bc_ctrl_begin(&q->ctrl, &q->params, w, e->recv, fr_sum, fr_count);
	for (p = 0; p < ER2BC_NPRIO; p++)
		list_for_each_entry(cl, &q->by_prio[p], prio_list)
			er2bc_ctrl_demand(&q->ctrl, &q->params, &cl->ctrl);

	sch_tree_lock(sch);
	now = ktime_get_ns();
	er2bc_set_cap(sch, w, now);
	er2bc_assign(sch, now, true);
	/* (the policy bounds it: 60 s) */
	WRITE_ONCE(q->sched.yield_until, e->hold ? now + (u64)e->hold * NSEC_PER_USEC : 0);
	sch_tree_unlock(sch);
	er2bc_kick(sch);

	q->last = *e;
	q->last_update = now;
	q->cost = ktime_get_ns() - t0;

	trace_abw_update(ifindex, sch->handle, e->seq, w, e->recv, q->ctrl.s,
			 q->ctrl.sp, q->clhash.hashelems, q->guaranteed, q->cost);
	if (trace_guarantee_set_enabled()) {
		for (p = 0; p < ER2BC_NPRIO; p++)
			list_for_each_entry(cl, &q->by_prio[p], prio_list)
				trace_guarantee_set(ifindex, cl->common.classid, cl->prio,
						    cl->type, cl->rate, cl->ctrl.sd,
						    cl->ctrl.g);
	}
}

/**
 * er2bc_counts - the qdisc's counts of what it sent, now or at a request
 * @sch: an er2bc qdisc (er2bc_qdisc_find())
 * @key: a request's body (its first bytes), or NULL for now
 * @key_len: its length
 * @c: out
 *
 * Context: RTNL; takes the qdisc's tree lock, as its dequeue changes them.
 *
 * Return: 0, or -ENOENT when the qdisc sent no request with @key lately
 */
int er2bc_counts(struct Qdisc *sch, const u8 *key, unsigned int key_len,
		 struct er2bc_counts *c)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	const struct er2bc_snap *s;

	sch_tree_lock(sch);
	c->port = q->probe_port;
	c->mark = q->probe_mark;
	c->peer = q->peer;
	c->packets = q->count.packets;
	c->bytes = q->count.bytes;
	c->probes = q->count.probes;
	c->ignored = q->count.ignored;
	c->time = ktime_get_ns();
	c->held = er2bc_sched_held(&q->sched, c->time);
	s = key ? er2bc_count_find(&q->count, key, key_len) : NULL;
	if (s) {
		c->packets = s->packets;
		c->bytes = s->bytes;
		c->time = s->time;
		c->held = s->held;
	}
	sch_tree_unlock(sch);
	return key && !s ? -ENOENT : 0;
}
