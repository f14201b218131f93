// SPDX-License-Identifier: GPL-2.0
/*
 * The commands of the tcp_rcvmgr generic netlink family (nl.c;
 * Documentation/netlink/specs/tcp_rcvmgr.yaml): the configuration of a
 * network namespace, its connections, its counters. A configuration change
 * is checked whole and then replaces the configuration in one step; the
 * datapath sees the old or the new one, never a mix.
 */
#include <linux/kernel.h>
#include <linux/netdevice.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/sock.h>

#include <net/er2bc_compat.h>
#include "nl_gen.h"
#include "rcvmgr.h"
#include "table.h"

static int rcvmgr_parse_prefix(struct er2bc_prefix *p, const struct nlattr *nla,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TCP_RCVMGR_A_PREFIX_PLEN + 1];
	int err;

	/* checked whole by config-set's policy before the handler ran */
	err = nla_parse_nested(tb, TCP_RCVMGR_A_PREFIX_PLEN, nla, NULL, extack);
	if (err)
		return err;
	if (!tb[TCP_RCVMGR_A_PREFIX_ADDR] || !tb[TCP_RCVMGR_A_PREFIX_PLEN]) {
		NL_SET_ERR_MSG_ATTR(extack, nla, "tcp_rcvmgr: a LAN prefix needs addr and plen");
		return -EINVAL;
	}
	if (er2bc_prefix_from_nla(p, tb[TCP_RCVMGR_A_PREFIX_ADDR], tb[TCP_RCVMGR_A_PREFIX_PLEN])) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "tcp_rcvmgr: a LAN prefix is 4 or 16 bytes, a length it has, and no host bits");
		return -EINVAL;
	}
	return 0;
}

static int rcvmgr_parse_rule(struct rcvmgr_rule *r, const struct nlattr *nla,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TCP_RCVMGR_A_RULE_PRIORITY + 1];
	int err;

	/* checked whole by config-set's policy before the handler ran */
	err = nla_parse_nested(tb, TCP_RCVMGR_A_RULE_PRIORITY, nla, NULL, extack);
	if (err)
		return err;
	if (!tb[TCP_RCVMGR_A_RULE_PRIORITY]) {
		NL_SET_ERR_MSG_ATTR(extack, nla, "tcp_rcvmgr: a rule needs a priority");
		return -EINVAL;
	}
	memset(r, 0, sizeof(*r));
	r->dscp = -1;
	r->priority = nla_get_u32(tb[TCP_RCVMGR_A_RULE_PRIORITY]);
	if (tb[TCP_RCVMGR_A_RULE_PORT_MIN] || tb[TCP_RCVMGR_A_RULE_PORT_MAX]) {
		r->has_port = true;
		r->port_max = U16_MAX;
		if (tb[TCP_RCVMGR_A_RULE_PORT_MIN])
			r->port_min = nla_get_u16(tb[TCP_RCVMGR_A_RULE_PORT_MIN]);
		if (tb[TCP_RCVMGR_A_RULE_PORT_MAX])
			r->port_max = nla_get_u16(tb[TCP_RCVMGR_A_RULE_PORT_MAX]);
		if (r->port_min > r->port_max) {
			NL_SET_ERR_MSG_ATTR(extack, nla,
					    "tcp_rcvmgr: a rule's port-min is above its port-max");
			return -EINVAL;
		}
	}
	if (tb[TCP_RCVMGR_A_RULE_DSCP])
		r->dscp = nla_get_u8(tb[TCP_RCVMGR_A_RULE_DSCP]);
	if (tb[TCP_RCVMGR_A_RULE_MARK]) {
		r->mark_mask = U32_MAX;
		if (tb[TCP_RCVMGR_A_RULE_MARK_MASK])
			r->mark_mask = nla_get_u32(tb[TCP_RCVMGR_A_RULE_MARK_MASK]);
		r->mark = nla_get_u32(tb[TCP_RCVMGR_A_RULE_MARK]);
		if (!r->mark_mask || (r->mark & ~r->mark_mask)) {
			NL_SET_ERR_MSG_ATTR(extack, nla,
					    "tcp_rcvmgr: a rule's mark has bits outside its mask, or the mask is 0");
			return -EINVAL;
		}
	} else if (tb[TCP_RCVMGR_A_RULE_MARK_MASK]) {
		NL_SET_ERR_MSG_ATTR(extack, nla, "tcp_rcvmgr: a rule's mark-mask needs a mark");
		return -EINVAL;
	}
	return 0;
}

/* the lists of @info's request, into @cfg */
static int rcvmgr_parse_lists(struct rcvmgr_cfg *cfg, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct netlink_ext_ack *extack = info->extack;
	bool wan = false, lan = false, rule = false;
	const struct nlattr *nla;
	int rem, err;

	nlmsg_for_each_attr(nla, info->nlhdr, GENL_HDRLEN, rem) {
		switch (nla_type(nla)) {
		case TCP_RCVMGR_A_CONFIG_WAN_DEV:
			if (!wan)
				cfg->n_wan = 0;
			wan = true;
			if (cfg->n_wan == TCP_RCVMGR_DEV_MAX) {
				NL_SET_ERR_MSG_ATTR(extack, nla,
						    "tcp_rcvmgr: too many WAN devices");
				return -E2BIG;
			}
			if (!__dev_get_by_index(net, nla_get_u32(nla))) {
				NL_SET_ERR_MSG_ATTR(extack, nla, "tcp_rcvmgr: no such WAN device");
				return -ENODEV;
			}
			cfg->wan[cfg->n_wan++] = nla_get_u32(nla);
			break;
		case TCP_RCVMGR_A_CONFIG_LAN_PREFIX:
			if (!lan)
				cfg->n_lan = 0;
			lan = true;
			if (cfg->n_lan == TCP_RCVMGR_PREFIX_MAX) {
				NL_SET_ERR_MSG_ATTR(extack, nla,
						    "tcp_rcvmgr: too many LAN prefixes");
				return -E2BIG;
			}
			err = rcvmgr_parse_prefix(&cfg->lan[cfg->n_lan], nla, extack);
			if (err)
				return err;
			cfg->n_lan++;
			break;
		case TCP_RCVMGR_A_CONFIG_RULE:
			if (!rule)
				cfg->n_rules = 0;
			rule = true;
			if (cfg->n_rules == TCP_RCVMGR_RULE_MAX) {
				NL_SET_ERR_MSG_ATTR(extack, nla, "tcp_rcvmgr: too many rules");
				return -E2BIG;
			}
			err = rcvmgr_parse_rule(&cfg->rules[cfg->n_rules], nla, extack);
			if (err)
				return err;
			cfg->n_rules++;
			break;
		}
	}
	return 0;
}

static void rcvmgr_get_u32(u32 *v, struct nlattr **tb, int type)
{
	if (tb[type])
		*v = nla_get_u32(tb[type]);
}

int tcp_rcvmgr_nl_config_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rcvmgr_net *rn = rcvmgr_pernet(genl_info_net(info));
	struct netlink_ext_ack *extack = info->extack;
	struct rcvmgr_cfg *cfg, *old;
	struct nlattr **tb = info->attrs;
	bool unhooked;
	u32 clear;
	int err;

	cfg = kmalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	/* the device list is checked against the netns: under RTNL */
	mutex_lock(&rn->cfg_mutex);
	rtnl_lock();
	mutex_lock(&rn->ctl_mutex);
	old = rcu_dereference_protected(rn->cfg, lockdep_is_held(&rn->ctl_mutex));
	*cfg = *old;

	clear = tb[TCP_RCVMGR_A_CONFIG_CLEAR] ? nla_get_u32(tb[TCP_RCVMGR_A_CONFIG_CLEAR]) : 0;
	if (clear & TCP_RCVMGR_CLEAR_WAN_DEV)
		cfg->n_wan = 0;
	if (clear & TCP_RCVMGR_CLEAR_LAN_PREFIX)
		cfg->n_lan = 0;
	if (clear & TCP_RCVMGR_CLEAR_RULE)
		cfg->n_rules = 0;
	err = rcvmgr_parse_lists(cfg, info);
	if (err)
		goto err;

	if (tb[TCP_RCVMGR_A_CONFIG_POLICY])
		cfg->policy = nla_get_u8(tb[TCP_RCVMGR_A_CONFIG_POLICY]);
	rcvmgr_get_u32(&cfg->interval_ms, tb, TCP_RCVMGR_A_CONFIG_INTERVAL);
	rcvmgr_get_u32(&cfg->max_conns, tb, TCP_RCVMGR_A_CONFIG_MAX_CONNS);
	rcvmgr_get_u32(&cfg->idle_ms, tb, TCP_RCVMGR_A_CONFIG_IDLE_TIMEOUT);
	rcvmgr_get_u32(&cfg->budget_init, tb, TCP_RCVMGR_A_CONFIG_BUDGET_INIT);
	rcvmgr_get_u32(&cfg->budget_min, tb, TCP_RCVMGR_A_CONFIG_BUDGET_MIN);
	rcvmgr_get_u32(&cfg->budget_max, tb, TCP_RCVMGR_A_CONFIG_BUDGET_MAX);
	rcvmgr_get_u32(&cfg->budget_step, tb, TCP_RCVMGR_A_CONFIG_BUDGET_STEP);
	rcvmgr_get_u32(&cfg->budget_decrease, tb, TCP_RCVMGR_A_CONFIG_BUDGET_DECREASE);
	rcvmgr_get_u32(&cfg->rtt_tolerance, tb, TCP_RCVMGR_A_CONFIG_RTT_TOLERANCE);
	if (tb[TCP_RCVMGR_A_CONFIG_LINK_RATE])
		cfg->link_rate = nla_get_u64(tb[TCP_RCVMGR_A_CONFIG_LINK_RATE]);
	rcvmgr_get_u32(&cfg->spring_queue, tb, TCP_RCVMGR_A_CONFIG_SPRING_QUEUE);
	rcvmgr_get_u32(&cfg->spring_interactive, tb, TCP_RCVMGR_A_CONFIG_SPRING_INTERACTIVE);
	rcvmgr_get_u32(&cfg->spring_short, tb, TCP_RCVMGR_A_CONFIG_SPRING_SHORT);
	rcvmgr_get_u32(&cfg->initial_window, tb, TCP_RCVMGR_A_CONFIG_INITIAL_WINDOW);

	err = -EINVAL;
	if (cfg->budget_min > cfg->budget_max) {
		NL_SET_ERR_MSG(extack, "tcp_rcvmgr: budget-min is above budget-max");
		goto err;
	}
	if (cfg->budget_init < cfg->budget_min || cfg->budget_init > cfg->budget_max) {
		NL_SET_ERR_MSG(extack, "tcp_rcvmgr: budget-init is outside budget-min..budget-max");
		goto err;
	}
	if (cfg->spring_interactive > cfg->spring_short) {
		NL_SET_ERR_MSG(extack, "tcp_rcvmgr: spring-interactive is above spring-short");
		goto err;
	}

	err = rcvmgr_hooks_set(rn, cfg->n_wan || cfg->n_lan, cfg->max_conns, &unhooked);
	if (err) {
		NL_SET_ERR_MSG(extack, "tcp_rcvmgr: cannot register the netfilter hooks");
		goto err;
	}
	rcu_assign_pointer(rn->cfg, cfg);
	/* a new B range applies at once */
	WRITE_ONCE(rn->budget, clamp(rn->budget, cfg->budget_min, cfg->budget_max));
	if (cfg->interval_ms != old->interval_ms)
		mod_delayed_work(system_dfl_wq, &rn->tick, msecs_to_jiffies(cfg->interval_ms));
	mutex_unlock(&rn->ctl_mutex);
	rtnl_unlock();
	if (unhooked)
		rcvmgr_hooks_gone(rn);
	mutex_unlock(&rn->cfg_mutex);
	kfree_rcu(old, rcu);
	mod_delayed_work(system_dfl_wq, &rn->reassign, 0);
	return 0;

err:
	mutex_unlock(&rn->ctl_mutex);
	rtnl_unlock();
	mutex_unlock(&rn->cfg_mutex);
	kfree(cfg);
	return err;
}

static int rcvmgr_put_rule(struct sk_buff *msg, const struct rcvmgr_rule *r)
{
	struct nlattr *nest = nla_nest_start(msg, TCP_RCVMGR_A_CONFIG_RULE);

	if (!nest)
		return -EMSGSIZE;
	if (r->has_port &&
	    (nla_put_u16(msg, TCP_RCVMGR_A_RULE_PORT_MIN, r->port_min) ||
	     nla_put_u16(msg, TCP_RCVMGR_A_RULE_PORT_MAX, r->port_max)))
		return -EMSGSIZE;
	if (r->dscp >= 0 && nla_put_u8(msg, TCP_RCVMGR_A_RULE_DSCP, r->dscp))
		return -EMSGSIZE;
	if (r->mark_mask &&
	    (nla_put_u32(msg, TCP_RCVMGR_A_RULE_MARK, r->mark) ||
	     nla_put_u32(msg, TCP_RCVMGR_A_RULE_MARK_MASK, r->mark_mask)))
		return -EMSGSIZE;
	if (nla_put_u32(msg, TCP_RCVMGR_A_RULE_PRIORITY, r->priority))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int rcvmgr_put_config(struct sk_buff *msg, const struct rcvmgr_cfg *cfg)
{
	int i;

	if (nla_put_u8(msg, TCP_RCVMGR_A_CONFIG_POLICY, cfg->policy))
		return -EMSGSIZE;
	for (i = 0; i < cfg->n_wan; i++)
		if (nla_put_u32(msg, TCP_RCVMGR_A_CONFIG_WAN_DEV, cfg->wan[i]))
			return -EMSGSIZE;
	for (i = 0; i < cfg->n_lan; i++)
		if (er2bc_prefix_put(msg, TCP_RCVMGR_A_CONFIG_LAN_PREFIX, TCP_RCVMGR_A_PREFIX_ADDR,
				     TCP_RCVMGR_A_PREFIX_PLEN, &cfg->lan[i]))
			return -EMSGSIZE;
	for (i = 0; i < cfg->n_rules; i++)
		if (rcvmgr_put_rule(msg, &cfg->rules[i]))
			return -EMSGSIZE;
	if (nla_put_u32(msg, TCP_RCVMGR_A_CONFIG_INTERVAL, cfg->interval_ms) ||
	    nla_put_u32(msg, TCP_RCVMGR_A_CONFIG_MAX_CONNS, cfg->max_conns) ||
	    nla_put_u32(msg, TCP_RCVMGR_A_CONFIG_IDLE_TIMEOUT, cfg->idle_ms) ||
	    nla_put_u32(msg, TCP_RCVMGR_A_CONFIG_BUDGET_INIT, cfg->budget_init) ||
	    nla_put_u32(msg, TCP_RCVMGR_A_CONFIG_BUDGET_MIN, cfg->budget_min) ||
	    nla_put_u32(msg, TCP_RCVMGR_A_CONFIG_BUDGET_MAX, cfg->budget_max) ||
	    nla_put_u32(msg, TCP_RCVMGR_A_CONFIG_BUDGET_STEP, cfg->budget_step) ||
	    nla_put_u32(msg, TCP_RCVMGR_A_CONFIG_BUDGET_DECREASE, cfg->budget_decrease) ||
	    nla_put_u32(msg, TCP_RCVMGR_A_CONFIG_RTT_TOLERANCE, cfg->rtt_tolerance) ||
	    nla_put_u64_64bit(msg, TCP_RCVMGR_A_CONFIG_LINK_RATE, cfg->link_rate,
			      TCP_RCVMGR_A_CONFIG_PAD) ||
	    nla_put_u32(msg, TCP_RCVMGR_A_CONFIG_SPRING_QUEUE, cfg->spring_queue) ||
	    nla_put_u32(msg, TCP_RCVMGR_A_CONFIG_SPRING_INTERACTIVE, cfg->spring_interactive) ||
	    nla_put_u32(msg, TCP_RCVMGR_A_CONFIG_SPRING_SHORT, cfg->spring_short) ||
	    nla_put_u32(msg, TCP_RCVMGR_A_CONFIG_INITIAL_WINDOW, cfg->initial_window))
		return -EMSGSIZE;
	return 0;
}

/*
 * The reads take nothing. 6.1's core refuses what a command without a
 * policy is sent ("Unknown attribute type"); 6.2 and later pass it
 * through unread (no request attributes in the spec: no policy). Refused
 * here alike, whichever kernel.
 */
static int rcvmgr_no_attrs(const struct nlmsghdr *nlh, struct netlink_ext_ack *extack)
{
	if (nlmsg_len(nlh) > GENL_HDRLEN) {
		NL_SET_ERR_MSG(extack, "tcp_rcvmgr: this command takes no attributes");
		return -EINVAL;
	}
	return 0;
}

int tcp_rcvmgr_nl_config_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rcvmgr_net *rn = rcvmgr_pernet(genl_info_net(info));
	struct sk_buff *msg;
	void *hdr;
	int err;

	err = rcvmgr_no_attrs(info->nlhdr, info->extack);
	if (err)
		return err;
	err = rcvmgr_nl_reply(info, &msg, &hdr);
	if (err)
		return err;
	mutex_lock(&rn->ctl_mutex);
	err = rcvmgr_put_config(msg, rcu_dereference_protected(rn->cfg,
							       lockdep_is_held(&rn->ctl_mutex)));
	mutex_unlock(&rn->ctl_mutex);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* every u64 of the stats set shares its pad */
static int rcvmgr_put_u64(struct sk_buff *msg, int type, u64 v)
{
	return nla_put_u64_64bit(msg, type, v, TCP_RCVMGR_A_STATS_PAD);
}

int tcp_rcvmgr_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rcvmgr_net *rn = rcvmgr_pernet(genl_info_net(info));
	u64 acks = 0, rewritten = 0, samples = 0, unseen = 0;
	u32 n_initial, n_persistent, budget;
	u64 intervals, assignments, up, down, probes;
	struct sk_buff *msg;
	unsigned int start;
	void *hdr;
	int cpu, err;

	err = rcvmgr_no_attrs(info->nlhdr, info->extack);
	if (err)
		return err;
	for_each_possible_cpu(cpu) {
		const struct rcvmgr_pcpu_stats *st = per_cpu_ptr(rn->stats, cpu);
		u64 a, r, s, u;

		do {
			start = u64_stats_fetch_begin(&st->syncp);
			a = u64_stats_read(&st->acks);
			r = u64_stats_read(&st->rewritten);
			s = u64_stats_read(&st->rtt_samples);
			u = u64_stats_read(&st->unseen);
		} while (u64_stats_fetch_retry(&st->syncp, start));
		acks += a;
		rewritten += r;
		samples += s;
		unseen += u;
	}
	mutex_lock(&rn->ctl_mutex);
	n_initial = rn->n_initial;
	n_persistent = rn->n_persistent;
	budget = rn->budget;
	intervals = rn->intervals;
	assignments = rn->assignments;
	up = rn->budget_up;
	down = rn->budget_down;
	probes = rn->probes;
	mutex_unlock(&rn->ctl_mutex);

	err = rcvmgr_nl_reply(info, &msg, &hdr);
	if (err)
		return err;
	if (nla_put_u32(msg, TCP_RCVMGR_A_STATS_CONNS, atomic_read(&rn->count)) ||
	    nla_put_u32(msg, TCP_RCVMGR_A_STATS_INITIAL, n_initial) ||
	    nla_put_u32(msg, TCP_RCVMGR_A_STATS_PERSISTENT, n_persistent) ||
	    nla_put_u32(msg, TCP_RCVMGR_A_STATS_BUDGET, budget) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_INTERVALS, intervals) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_BUDGET_UP, up) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_BUDGET_DOWN, down) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_CREATED, atomic64_read(&rn->created)) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_FREED, atomic64_read(&rn->freed)) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_FULL, atomic64_read(&rn->full)) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_UNSCALED, atomic64_read(&rn->unscaled)) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_ACKS, acks) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_REWRITTEN, rewritten) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_RTT_SAMPLES, samples) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_MEMORY,
			   (u64)atomic_read(&rn->count) * kmem_cache_size(rcvmgr_conn_cache) +
			   rcvmgr_kept_bytes(rn)) ||
	    nla_put_u32(msg, TCP_RCVMGR_A_STATS_OPENING, atomic_read(&rn->n_opening)) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_OPENING_FULL,
			   atomic64_read(&rn->opening_full)) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_OFFLOADED, atomic64_read(&rn->offloaded)) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_ASSIGNMENTS, assignments) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_ADOPTED, atomic64_read(&rn->adopted)) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_PROBES, probes) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_UNSEEN, unseen) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_RESETS, atomic64_read(&rn->resets)) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_RESUMED, atomic64_read(&rn->resumed)) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_RECALLED, atomic64_read(&rn->recalled)) ||
	    rcvmgr_put_u64(msg, TCP_RCVMGR_A_STATS_KEPT_LOST, atomic64_read(&rn->kept_lost))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* the dump walks the table; its walker lives between the dump's calls */
int tcp_rcvmgr_nl_conn_get_start(struct netlink_callback *cb)
{
	struct rcvmgr_net *rn = rcvmgr_pernet(sock_net(cb->skb->sk));
	struct rhashtable_iter *it;
	int err;

	err = rcvmgr_no_attrs(cb->nlh, cb->extack);
	if (err)
		return err;
	it = kmalloc(sizeof(*it), GFP_KERNEL);
	if (!it)
		return -ENOMEM;
	rhashtable_walk_enter(&rn->table, it);
	cb->args[0] = (long)it;
	return 0;
}

int tcp_rcvmgr_nl_conn_get_done(struct netlink_callback *cb)
{
	struct rhashtable_iter *it = (struct rhashtable_iter *)cb->args[0];

	if (it) {
		rhashtable_walk_exit(it);
		kfree(it);
	}
	return 0;
}

static int rcvmgr_put_conn(struct sk_buff *skb, struct netlink_callback *cb,
			   struct rcvmgr_conn *c)
{
	int alen = c->key.family == AF_INET ? 4 : 16;
	struct rcvmgr_conn v;
	void *hdr;

	spin_lock_bh(&c->lock);
	v = *c;
	spin_unlock_bh(&c->lock);

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &rcvmgr_nl_family, NLM_F_MULTI, TCP_RCVMGR_CMD_CONN_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u8(skb, TCP_RCVMGR_A_CONN_FAMILY, v.key.family) ||
	    nla_put(skb, TCP_RCVMGR_A_CONN_SADDR, alen, &v.key.saddr) ||
	    nla_put(skb, TCP_RCVMGR_A_CONN_DADDR, alen, &v.key.daddr) ||
	    nla_put_be16(skb, TCP_RCVMGR_A_CONN_SPORT, v.key.sport) ||
	    nla_put_be16(skb, TCP_RCVMGR_A_CONN_DPORT, v.key.dport) ||
	    nla_put_u8(skb, TCP_RCVMGR_A_CONN_STATE, v.state) ||
	    nla_put_u32(skb, TCP_RCVMGR_A_CONN_PRIORITY, v.priority) ||
	    nla_put_u64_64bit(skb, TCP_RCVMGR_A_CONN_BYTES, v.bytes, TCP_RCVMGR_A_CONN_PAD) ||
	    nla_put_u32(skb, TCP_RCVMGR_A_CONN_RTT, v.srtt_us) ||
	    nla_put_u32(skb, TCP_RCVMGR_A_CONN_RTT_MIN, v.rtt_min_us) ||
	    nla_put_u32(skb, TCP_RCVMGR_A_CONN_RTT_SAMPLES, v.rtt_samples) ||
	    nla_put_u32(skb, TCP_RCVMGR_A_CONN_MSS, v.mss) ||
	    nla_put_u8(skb, TCP_RCVMGR_A_CONN_WSCALE, v.wscale) ||
	    nla_put_u32(skb, TCP_RCVMGR_A_CONN_WINDOW, v.window) ||
	    nla_put_u32(skb, TCP_RCVMGR_A_CONN_THRESHOLD, v.threshold) ||
	    nla_put_u32(skb, TCP_RCVMGR_A_CONN_ADVERTISED, v.advertised) ||
	    nla_put_u64_64bit(skb, TCP_RCVMGR_A_CONN_REWRITTEN, v.rewritten,
			      TCP_RCVMGR_A_CONN_PAD) ||
	    nla_put_u64_64bit(skb, TCP_RCVMGR_A_CONN_AGE,
			      div_u64(ktime_get_ns() - v.created_ns, NSEC_PER_MSEC),
			      TCP_RCVMGR_A_CONN_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

int tcp_rcvmgr_nl_conn_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct rhashtable_iter *it = (struct rhashtable_iter *)cb->args[0];
	struct rcvmgr_conn *c;
	int err = 0;

	rhashtable_walk_start(it);
	for (;;) {
		c = rhashtable_walk_peek(it);
		if (IS_ERR(c)) {
			if (PTR_ERR(c) == -EAGAIN)
				continue;
			err = PTR_ERR(c);
			break;
		}
		if (!c)
			break;
		if (rcvmgr_put_conn(skb, cb, c)) {
			/* this one goes first in the next message */
			err = skb->len ? 0 : -EMSGSIZE;
			break;
		}
		rhashtable_walk_next(it);
	}
	rhashtable_walk_stop(it);
	if (err)
		return err;
	return skb->len;
}
