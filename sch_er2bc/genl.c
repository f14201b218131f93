// SPDX-License-Identifier: GPL-2.0
/*
 * The er2bc generic netlink family (Documentation/netlink/specs/er2bc.yaml):
 * ABW estimates in, the eR2BC controller's state out.
 *
 * abw-set names an er2bc qdisc by ifindex and handle in the caller's netns.
 * Under RTNL, which also keeps the classes as they are, each class's demand
 * S_d is computed (ctrl.c); then, under the qdisc's tree lock, the new cap
 * and every guarantee are put in force at once (er2bc_assign()). The packet
 * path only ever waits for that last step. The monitor group hears of every
 * update. ctrl-get walks the classes under RTNL too, as tc's class dump
 * does, and probe-get copies the counts under the qdisc's tree lock, as its
 * dequeue changes them: the lock of the root, which only RTNL keeps from
 * being replaced (qdisc_root_sleeping_lock() asserts it). meter-get takes
 * no RTNL: a meter has a lock of its own (meter.c).
 */
#include <linux/kernel.h>
#include <linux/hashtable.h>
#include <linux/ktime.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/netlink.h>
#include <net/sch_generic.h>
#include <linux/er2bc.h>
#include <linux/er2bc_genl.h>

#include "er2bc_compat.h"
#include "nl.h"
#include "probe.h"
#include "qdisc.h"

#define CREATE_TRACE_POINTS
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

/*
 * The er2bc qdisc @ifindex and @handle name in @net, or an error said in
 * @extack, pointing at @tb's attributes when the request had them (RTNL).
 */
static struct Qdisc *er2bc_nl_qdisc(struct net *net, u32 ifindex, u32 handle,
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

static int er2bc_nl_put_qdisc(struct sk_buff *skb, struct Qdisc *sch, bool event)
{
	struct er2bc_sched_data *q = qdisc_priv(sch);
	const struct er2bc_ctrl *c = &q->ctrl;
	unsigned int i, n;

	if (nla_put_u32(skb, ER2BC_A_QDISC_IFINDEX, qdisc_dev(sch)->ifindex) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_HANDLE, sch->handle) ||
	    nla_put_u8(skb, ER2BC_A_QDISC_MODE, q->mode) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_ABW, q->rate, ER2BC_A_QDISC_PAD) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_CEIL, READ_ONCE(q->ceil),
			      ER2BC_A_QDISC_PAD) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_RECV_RATE, q->last.recv, ER2BC_A_QDISC_PAD) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_SEQ, q->last.seq) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_RATIO, c->s) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_RATIO_MIN, c->sp) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_UPDATES, c->updates, ER2BC_A_QDISC_PAD) ||
	    nla_put_u8(skb, ER2BC_A_QDISC_STALE, er2bc_stale(q, ktime_get_ns())) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_GUARANTEED, READ_ONCE(q->guaranteed),
			      ER2BC_A_QDISC_PAD) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_CLASSES, q->clhash.hashelems) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_COST, q->cost, ER2BC_A_QDISC_PAD))
		return -EMSGSIZE;
	if (event)
		return 0;

	if (nla_put_u64_64bit(skb, ER2BC_A_QDISC_SENT, q->last.sent, ER2BC_A_QDISC_PAD) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_LOST, q->last.lost, ER2BC_A_QDISC_PAD) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_INTERVAL, q->last.interval) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_LAST_UPDATE, q->last_update,
			      ER2BC_A_QDISC_PAD) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_PARAM_C, q->params.c) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_PARAM_M, q->params.m) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_PARAM_BLIM, q->params.blim,
			      ER2BC_A_QDISC_PAD) ||
	    nla_put_u64_64bit(skb, ER2BC_A_QDISC_PARAM_FLOOR, q->params.floor,
			      ER2BC_A_QDISC_PAD) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_PARAM_STALE, q->stale_ms) ||
	    nla_put_u8(skb, ER2BC_A_QDISC_PARAM_CONVERGE, q->params.converge))
		return -EMSGSIZE;

	/* the history of s, newest first: the last M values */
	n = min_t(unsigned int, c->s_len, q->params.m);
	for (i = 0; i < n; i++)
		if (nla_put_u32(skb, ER2BC_A_QDISC_RATIO_HIST, er2bc_ctrl_s_hist(c, i)))
			return -EMSGSIZE;
	return 0;
}

static int er2bc_nl_put_class(struct sk_buff *skb, const struct er2bc_class *cl)
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
	    nla_put_s64(skb, ER2BC_A_CLASS_DELTA_SUM, k->delta_sum, ER2BC_A_CLASS_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* tell the monitor group about an update */
static void er2bc_nl_notify(struct Qdisc *sch)
{
	struct net *net = dev_net(qdisc_dev(sch));
	struct sk_buff *skb;
	void *hdr;

	if (!genl_has_listeners(&er2bc_nl_family, net, ER2BC_NL_MCGRP_MONITOR))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &er2bc_nl_family, 0, ER2BC_CMD_ABW_NTF);
	if (!hdr || er2bc_nl_put_qdisc(skb, sch, true)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&er2bc_nl_family, net, skb, 0, ER2BC_NL_MCGRP_MONITOR,
				GFP_KERNEL);
}

/* one ABW estimate: demands under RTNL, then cap and guarantees at once */
static void er2bc_apply(struct Qdisc *sch, const struct er2bc_estimate *e)
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

static int er2bc_nl_abw_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct er2bc_estimate e = {};
	struct Qdisc *sch;

	/* the missing one in the ack's attributes, and words for people */
	if (GENL_REQ_ATTR_CHECK(info, ER2BC_A_QDISC_IFINDEX) ||
	    GENL_REQ_ATTR_CHECK(info, ER2BC_A_QDISC_HANDLE) ||
	    GENL_REQ_ATTR_CHECK(info, ER2BC_A_QDISC_ABW) ||
	    GENL_REQ_ATTR_CHECK(info, ER2BC_A_QDISC_RECV_RATE)) {
		NL_SET_ERR_MSG(info->extack,
			       "er2bc: abw-set needs ifindex, handle, abw and recv-rate");
		return -EINVAL;
	}

	e.abw = nla_get_u64(tb[ER2BC_A_QDISC_ABW]);
	e.recv = nla_get_u64(tb[ER2BC_A_QDISC_RECV_RATE]);
	if (tb[ER2BC_A_QDISC_SENT])
		e.sent = nla_get_u64(tb[ER2BC_A_QDISC_SENT]);
	if (tb[ER2BC_A_QDISC_LOST])
		e.lost = nla_get_u64(tb[ER2BC_A_QDISC_LOST]);
	if (e.lost > e.sent && tb[ER2BC_A_QDISC_SENT]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[ER2BC_A_QDISC_LOST],
				    "er2bc: more packets lost than sent");
		return -EINVAL;
	}
	if (tb[ER2BC_A_QDISC_SEQ])
		e.seq = nla_get_u32(tb[ER2BC_A_QDISC_SEQ]);
	if (tb[ER2BC_A_QDISC_INTERVAL])
		e.interval = nla_get_u32(tb[ER2BC_A_QDISC_INTERVAL]);

	rtnl_lock();
	sch = er2bc_nl_qdisc(genl_info_net(info), nla_get_u32(tb[ER2BC_A_QDISC_IFINDEX]),
			     nla_get_u32(tb[ER2BC_A_QDISC_HANDLE]), tb, info->extack);
	if (IS_ERR(sch)) {
		rtnl_unlock();
		return PTR_ERR(sch);
	}
	er2bc_apply(sch, &e);
	er2bc_nl_notify(sch);
	rtnl_unlock();
	return 0;
}

/*
 * ctrl-get, a dump: the qdisc's message first, then its classes in priority
 * order, as many to a message as fit. cb->args: [0] ifindex, [1] handle,
 * [2] classes sent, [3] the qdisc's message sent.
 */
static int er2bc_nl_ctrl_get_start(struct netlink_callback *cb)
{
	struct nlattr *tb[ER2BC_A_QDISC_HANDLE + 1];
	int err;

	err = genlmsg_parse(cb->nlh, &er2bc_nl_family, tb, ER2BC_A_QDISC_HANDLE,
			    er2bc_ctrl_get_nl_policy, cb->extack);
	if (err)
		return err;
	if (!tb[ER2BC_A_QDISC_IFINDEX]) {
		NL_SET_ERR_MSG(cb->extack, "er2bc: ctrl-get needs an ifindex");
		return -EINVAL;
	}
	if (!tb[ER2BC_A_QDISC_HANDLE]) {
		NL_SET_ERR_MSG(cb->extack, "er2bc: ctrl-get needs a handle");
		return -EINVAL;
	}
	cb->args[0] = nla_get_u32(tb[ER2BC_A_QDISC_IFINDEX]);
	cb->args[1] = nla_get_u32(tb[ER2BC_A_QDISC_HANDLE]);
	cb->args[2] = 0;
	cb->args[3] = 0;
	return 0;
}

static int er2bc_nl_ctrl_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct er2bc_sched_data *q;
	struct er2bc_class *cl;
	unsigned long i = 0;
	struct Qdisc *sch;
	int err = 0, p, n = 0;
	void *hdr;

	rtnl_lock();
	sch = er2bc_nl_qdisc(sock_net(skb->sk), cb->args[0], cb->args[1], NULL,
			     cb->extack);
	if (IS_ERR(sch)) {
		err = PTR_ERR(sch);
		goto out;
	}
	q = qdisc_priv(sch);
	/*
	 * A class added, removed or moved since the last part: the next
	 * message sent, or the NLMSG_DONE, carries NLM_F_DUMP_INTR. The check
	 * goes on messages that are sent, never on one cancelled.
	 */
	cb->seq = q->class_gen;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &er2bc_nl_family, NLM_F_MULTI, ER2BC_CMD_CTRL_GET);
	if (!hdr) {
		err = -EMSGSIZE;
		goto out;
	}
	if (!cb->args[3]) {
		if (er2bc_nl_put_qdisc(skb, sch, false)) {
			genlmsg_cancel(skb, hdr);
			err = -EMSGSIZE;
			goto out;
		}
		cb->args[3] = 1;
		genl_dump_check_consistent(cb, hdr);
		genlmsg_end(skb, hdr);
		err = skb->len;
		goto out;
	}
	if (nla_put_u32(skb, ER2BC_A_QDISC_IFINDEX, cb->args[0]) ||
	    nla_put_u32(skb, ER2BC_A_QDISC_HANDLE, cb->args[1])) {
		genlmsg_cancel(skb, hdr);
		err = -EMSGSIZE;
		goto out;
	}
	for (p = 0; p < ER2BC_NPRIO; p++) {
		list_for_each_entry(cl, &q->by_prio[p], prio_list) {
			if (i++ < cb->args[2])
				continue;
			if (er2bc_nl_put_class(skb, cl))
				goto full;
			cb->args[2]++;
			n++;
		}
	}
full:
	if (!n) {
		/* all sent, or not one class fits in an empty message */
		genlmsg_cancel(skb, hdr);
		err = i > cb->args[2] ? -EMSGSIZE : 0;
		goto out;
	}
	genl_dump_check_consistent(cb, hdr);
	genlmsg_end(skb, hdr);
	err = skb->len;
out:
	rtnl_unlock();
	return err;
}

/* the counts of an er2bc qdisc: now, or as a request's dequeue cut them */
static int er2bc_nl_probe_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs, *key = tb[ER2BC_A_PROBE_KEY];
	const struct er2bc_snap *s;
	struct er2bc_sched_data *q;
	u64 packets, bytes, probes, ignored, time;
	struct er2bc_peer peer;
	struct sk_buff *msg;
	struct Qdisc *sch;
	__be16 port;
	void *hdr;
	u32 mark;
	int err;

	/* er2bc_nl_qdisc() points at the qdisc set's ifindex and handle */
	BUILD_BUG_ON((int)ER2BC_A_PROBE_IFINDEX != (int)ER2BC_A_QDISC_IFINDEX ||
		     (int)ER2BC_A_PROBE_HANDLE != (int)ER2BC_A_QDISC_HANDLE);
	if (GENL_REQ_ATTR_CHECK(info, ER2BC_A_PROBE_IFINDEX) ||
	    GENL_REQ_ATTR_CHECK(info, ER2BC_A_PROBE_HANDLE)) {
		NL_SET_ERR_MSG(info->extack, "er2bc: probe-get needs ifindex and handle");
		return -EINVAL;
	}
	err = er2bc_nl_reply(info, &msg, &hdr);
	if (err)
		return err;

	rtnl_lock();
	sch = er2bc_nl_qdisc(genl_info_net(info), nla_get_u32(tb[ER2BC_A_PROBE_IFINDEX]),
			     nla_get_u32(tb[ER2BC_A_PROBE_HANDLE]), tb, info->extack);
	if (IS_ERR(sch)) {
		err = PTR_ERR(sch);
		goto unlock;
	}
	q = qdisc_priv(sch);
	sch_tree_lock(sch);
	port = q->probe_port;
	mark = q->probe_mark;
	peer = q->peer;
	packets = q->count.packets;
	bytes = q->count.bytes;
	probes = q->count.probes;
	ignored = q->count.ignored;
	time = ktime_get_ns();
	s = key ? er2bc_count_find(&q->count, nla_data(key), nla_len(key)) : NULL;
	if (s) {
		packets = s->packets;
		bytes = s->bytes;
		time = s->time;
	}
	sch_tree_unlock(sch);
	if (key && !s) {
		NL_SET_ERR_MSG_ATTR(info->extack, key,
				    "er2bc: the qdisc sent no request with this key lately");
		err = -ENOENT;
		goto unlock;
	}
	if (nla_put_u32(msg, ER2BC_A_PROBE_IFINDEX, qdisc_dev(sch)->ifindex) ||
	    nla_put_u32(msg, ER2BC_A_PROBE_HANDLE, sch->handle) ||
	    nla_put_u16(msg, ER2BC_A_PROBE_PORT, ntohs(port)) ||
	    er2bc_nl_put_peer(msg, &peer) ||
	    er2bc_nl_put_count(msg, packets, bytes, time, probes, ignored) ||
	    nla_put_u32(msg, ER2BC_A_PROBE_MARK, mark))
		err = -EMSGSIZE;
unlock:
	rtnl_unlock();
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static const struct genl_ops er2bc_genl_ops[] = {
	{
		.cmd		= ER2BC_CMD_ABW_SET,
		.doit		= er2bc_nl_abw_set_doit,
		.policy		= er2bc_abw_set_nl_policy,
		.maxattr	= ER2BC_A_QDISC_INTERVAL,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= ER2BC_CMD_CTRL_GET,
		.start		= er2bc_nl_ctrl_get_start,
		.dumpit		= er2bc_nl_ctrl_get_dumpit,
		.policy		= er2bc_ctrl_get_nl_policy,
		.maxattr	= ER2BC_A_QDISC_HANDLE,
	},
	{
		.cmd		= ER2BC_CMD_PROBE_GET,
		.doit		= er2bc_nl_probe_get_doit,
		.policy		= er2bc_probe_get_nl_policy,
		.maxattr	= ER2BC_A_PROBE_KEY,
	},
	{
		.cmd		= ER2BC_CMD_METER_SET,
		.doit		= er2bc_nl_meter_set_doit,
		.policy		= er2bc_meter_set_nl_policy,
		.maxattr	= ER2BC_A_PROBE_AUTH_KEY,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= ER2BC_CMD_METER_DEL,
		.doit		= er2bc_nl_meter_del_doit,
		.policy		= er2bc_meter_del_nl_policy,
		.maxattr	= ER2BC_A_PROBE_IFINDEX,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= ER2BC_CMD_METER_GET,
		.doit		= er2bc_nl_meter_get_doit,
		.start		= er2bc_nl_meter_get_start,
		.dumpit		= er2bc_nl_meter_get_dumpit,
		.policy		= er2bc_meter_get_nl_policy,
		.maxattr	= ER2BC_A_PROBE_KEY,
	},
};

int __init er2bc_genl_register(void)
{
	return er2bc_nl_register(er2bc_genl_ops, ARRAY_SIZE(er2bc_genl_ops));
}

void er2bc_genl_unregister(void)
{
	er2bc_nl_unregister();
}
