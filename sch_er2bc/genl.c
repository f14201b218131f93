// SPDX-License-Identifier: GPL-2.0
/*
 * The er2bc generic netlink family (Documentation/netlink/specs/er2bc.yaml):
 * ABW estimates in, the eR2BC controller's state out.
 *
 * abw-set names an er2bc qdisc by ifindex and handle in the caller's netns.
 * Under RTNL, which also keeps the classes as they are, each class's demand
 * S_d is computed (ctrl.c); then, under the qdisc's tree lock, the new cap
 * and every guarantee are put in force at once (er2bc_apply(), state.c:
 * all this file asks of a qdisc goes through state.h). The packet path
 * only ever waits for that last step. The monitor group hears of every
 * update. ctrl-get walks the classes under RTNL too, as tc's class dump
 * does, and probe-get copies the counts under the qdisc's tree lock, as its
 * dequeue changes them: the lock of the root, which only RTNL keeps from
 * being replaced (qdisc_root_sleeping_lock() asserts it). meter-get takes
 * no RTNL: a meter has a lock of its own (meter.c).
 */
#include <linux/kernel.h>
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

#include <net/er2bc_compat.h>
#include "nl.h"
#include "nl_gen.h"
#include "probe.h"
#include "state.h"

/* tell the monitor group about an update */
static void er2bc_nl_notify(struct Qdisc *sch)
{
	struct net *net = dev_net(qdisc_dev(sch));
	struct sk_buff *skb;
	void *hdr;

	if (!genl_has_listeners(&er2bc_nl_family, net, ER2BC_NLGRP_MONITOR))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &er2bc_nl_family, 0, ER2BC_CMD_ABW_NTF);
	if (!hdr || er2bc_put_state(skb, sch, true)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&er2bc_nl_family, net, skb, 0, ER2BC_NLGRP_MONITOR,
				GFP_KERNEL);
}

int er2bc_nl_abw_set_doit(struct sk_buff *skb, struct genl_info *info)
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
	if (tb[ER2BC_A_QDISC_SCAVENGER_HOLD])
		e.hold = nla_get_u32(tb[ER2BC_A_QDISC_SCAVENGER_HOLD]);

	rtnl_lock();
	sch = er2bc_qdisc_find(genl_info_net(info), nla_get_u32(tb[ER2BC_A_QDISC_IFINDEX]),
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
int er2bc_nl_ctrl_get_start(struct netlink_callback *cb)
{
	struct nlattr *ifindex = er2bc_dump_attr(cb, ER2BC_A_QDISC_IFINDEX);
	struct nlattr *handle = er2bc_dump_attr(cb, ER2BC_A_QDISC_HANDLE);

	if (!ifindex) {
		NL_SET_ERR_MSG(cb->extack, "er2bc: ctrl-get needs an ifindex");
		return -EINVAL;
	}
	if (!handle) {
		NL_SET_ERR_MSG(cb->extack, "er2bc: ctrl-get needs a handle");
		return -EINVAL;
	}
	cb->args[0] = nla_get_u32(ifindex);
	cb->args[1] = nla_get_u32(handle);
	cb->args[2] = 0;
	cb->args[3] = 0;
	return 0;
}

int er2bc_nl_ctrl_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct Qdisc *sch;
	int err = 0, n;
	void *hdr;

	rtnl_lock();
	sch = er2bc_qdisc_find(sock_net(skb->sk), cb->args[0], cb->args[1], NULL, cb->extack);
	if (IS_ERR(sch)) {
		err = PTR_ERR(sch);
		goto out;
	}
	/*
	 * A class added, removed or moved since the last part: the next
	 * message sent, or the NLMSG_DONE, carries NLM_F_DUMP_INTR. The check
	 * goes on messages that are sent, never on one cancelled.
	 */
	cb->seq = er2bc_class_gen(sch);

	hdr = er2bc_nl_dump_hdr(skb, cb, ER2BC_CMD_CTRL_GET);
	if (!hdr) {
		err = -EMSGSIZE;
		goto out;
	}
	if (!cb->args[3]) {
		if (er2bc_put_state(skb, sch, false)) {
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
	n = er2bc_put_classes(skb, sch, &cb->args[2]);
	if (n <= 0) {
		/* all sent (0), or not one class fits in an empty message */
		genlmsg_cancel(skb, hdr);
		err = n;
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
int er2bc_nl_probe_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs, *key = tb[ER2BC_A_PROBE_KEY];
	struct er2bc_counts c;
	struct sk_buff *msg;
	struct Qdisc *sch;
	void *hdr;
	int err;

	/* er2bc_qdisc_find() points at the qdisc set's ifindex and handle */
	BUILD_BUG_ON((int)ER2BC_A_PROBE_IFINDEX != (int)ER2BC_A_QDISC_IFINDEX ||
		     (int)ER2BC_A_PROBE_HANDLE != (int)ER2BC_A_QDISC_HANDLE);
	if (GENL_REQ_ATTR_CHECK(info, ER2BC_A_PROBE_IFINDEX) ||
	    GENL_REQ_ATTR_CHECK(info, ER2BC_A_PROBE_HANDLE)) {
		NL_SET_ERR_MSG(info->extack, "er2bc: probe-get needs ifindex and handle");
		return -EINVAL;
	}
	err = er2bc_nl_check_key(key, info->extack);
	if (err)
		return err;
	err = er2bc_nl_reply(info, &msg, &hdr);
	if (err)
		return err;

	rtnl_lock();
	sch = er2bc_qdisc_find(genl_info_net(info), nla_get_u32(tb[ER2BC_A_PROBE_IFINDEX]),
			       nla_get_u32(tb[ER2BC_A_PROBE_HANDLE]), tb, info->extack);
	if (IS_ERR(sch)) {
		err = PTR_ERR(sch);
		goto unlock;
	}
	err = er2bc_counts(sch, key ? nla_data(key) : NULL, key ? nla_len(key) : 0, &c);
	if (err) {
		NL_SET_ERR_MSG_ATTR(info->extack, key,
				    "er2bc: the qdisc sent no request with this key lately");
		goto unlock;
	}
	if (nla_put_u32(msg, ER2BC_A_PROBE_IFINDEX, qdisc_dev(sch)->ifindex) ||
	    nla_put_u32(msg, ER2BC_A_PROBE_HANDLE, sch->handle) ||
	    nla_put_u16(msg, ER2BC_A_PROBE_PORT, ntohs(c.port)) ||
	    er2bc_nl_put_peer(msg, &c.peer) ||
	    er2bc_nl_put_count(msg, c.packets, c.bytes, c.time, c.probes, c.ignored) ||
	    nla_put_u64_64bit(msg, ER2BC_A_PROBE_HELD, c.held, ER2BC_A_PROBE_PAD) ||
	    nla_put_u32(msg, ER2BC_A_PROBE_MARK, c.mark))
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
