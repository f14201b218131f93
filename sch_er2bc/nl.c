// SPDX-License-Identifier: GPL-2.0
/*
 * The er2bc generic netlink family (Documentation/netlink/specs/er2bc.yaml)
 * and the headers of its messages. Its commands' table and policies are
 * generated from the spec (nl_gen.c), and the module hands them over at
 * registration (main.c), so that this file, which the handlers call, calls
 * none of them.
 */
#include <linux/kernel.h>
#include <linux/stringify.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <linux/er2bc_genl.h>

#include <net/er2bc_compat.h>
#include <net/er2bc_netlink.h>
#include "nl.h"
#include "nl_gen.h"
#include "probe.h"

/* the monitor group tells of every estimate: joined with CAP_NET_ADMIN */
static const struct genl_multicast_group er2bc_nl_mcgrps[] = {
	[ER2BC_NLGRP_MONITOR] = { .name = ER2BC_MCGRP_MONITOR, ER2BC_MCGRP_CAP_NET_ADMIN },
};

struct genl_family er2bc_nl_family __ro_after_init = {
	.name		= ER2BC_FAMILY_NAME,
	.version	= ER2BC_FAMILY_VERSION,
	.netnsok	= true,
	.module		= THIS_MODULE,
	/* every command validated strictly: reserved header bytes too */
	.resv_start_op	= 0,
	/*
	 * no genl_mutex: every handler takes what it needs, RTNL for what
	 * names a qdisc or changes a meter, RCU and the meter's lock for
	 * meter-get, which then never waits behind an abw-set waiting for
	 * RTNL (genl.c, meter.c)
	 */
	.parallel_ops	= true,
	.mcgrps		= er2bc_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(er2bc_nl_mcgrps),
};

/* the family, with the commands of @ops (module init, before any request) */
int __init er2bc_nl_register(const struct genl_split_ops *ops, unsigned int n_ops)
{
	return er2bc_compat_genl_register(&er2bc_nl_family, ops, n_ops);
}

void er2bc_nl_unregister(void)
{
	er2bc_compat_genl_unregister(&er2bc_nl_family);
}

/* a reply to @info's request, its header put */
int er2bc_nl_reply(struct genl_info *info, struct sk_buff **msg, void **hdr)
{
	return er2bc_genl_reply(&er2bc_nl_family, info, msg, hdr);
}

/* the header of one message of a dump */
void *er2bc_nl_dump_hdr(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   &er2bc_nl_family, NLM_F_MULTI, cmd);
}

/*
 * a request's body as a key, if the request has one (the spec's lengths:
 * no policy can say them)
 */
int er2bc_nl_check_key(const struct nlattr *key, struct netlink_ext_ack *extack)
{
	BUILD_BUG_ON(ER2BC_PROBE_KEY_MIN != ER2BC_PROBE_REQ_BODY);
	if (!key)
		return 0;
	if (nla_len(key) < ER2BC_PROBE_KEY_MIN || nla_len(key) > ER2BC_PROBE_KEY_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, key, "er2bc: key is "
				    __stringify(ER2BC_PROBE_KEY_MIN) " to "
				    __stringify(ER2BC_PROBE_KEY_MAX) " bytes");
		return -EINVAL;
	}
	return 0;
}

int er2bc_nl_parse_peer(const struct genl_info *info, struct er2bc_peer *peer)
{
	struct nlattr *tb[ER2BC_A_PREFIX_PLEN + 1];
	const struct nlattr *nla;
	int rem, err;

	peer->n = 0;
	nlmsg_for_each_attr(nla, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(nla) != ER2BC_A_PROBE_PEER)
			continue;
		if (peer->n == ER2BC_PEER_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, nla, "er2bc: at most "
					    __stringify(ER2BC_PEER_MAX) " peer prefixes");
			return -E2BIG;
		}
		/* checked whole by the command's policy before the handler ran */
		err = nla_parse_nested(tb, ER2BC_A_PREFIX_PLEN, nla, NULL, info->extack);
		if (err)
			return err;
		if (!tb[ER2BC_A_PREFIX_ADDR] || !tb[ER2BC_A_PREFIX_PLEN]) {
			NL_SET_ERR_MSG_ATTR(info->extack, nla,
					    "er2bc: a peer prefix needs addr and plen");
			return -EINVAL;
		}
		if (er2bc_prefix_from_nla(&peer->p[peer->n], tb[ER2BC_A_PREFIX_ADDR],
					  tb[ER2BC_A_PREFIX_PLEN])) {
			NL_SET_ERR_MSG_ATTR(info->extack, nla,
					    "er2bc: a peer prefix is 4 or 16 bytes, a length it has, and no host bits");
			return -EINVAL;
		}
		peer->n++;
	}
	return 0;
}

int er2bc_nl_put_peer(struct sk_buff *skb, const struct er2bc_peer *peer)
{
	unsigned int i;

	for (i = 0; i < peer->n; i++)
		if (er2bc_prefix_put(skb, ER2BC_A_PROBE_PEER, ER2BC_A_PREFIX_ADDR,
				     ER2BC_A_PREFIX_PLEN, &peer->p[i]))
			return -EMSGSIZE;
	return 0;
}

int er2bc_nl_put_count(struct sk_buff *skb, u64 packets, u64 bytes, u64 time,
		       u64 probes, u64 ignored)
{
	if (nla_put_u64_64bit(skb, ER2BC_A_PROBE_PACKETS, packets, ER2BC_A_PROBE_PAD) ||
	    nla_put_u64_64bit(skb, ER2BC_A_PROBE_BYTES, bytes, ER2BC_A_PROBE_PAD) ||
	    nla_put_u64_64bit(skb, ER2BC_A_PROBE_TIME, time, ER2BC_A_PROBE_PAD) ||
	    nla_put_u64_64bit(skb, ER2BC_A_PROBE_PROBES, probes, ER2BC_A_PROBE_PAD) ||
	    nla_put_u64_64bit(skb, ER2BC_A_PROBE_IGNORED, ignored, ER2BC_A_PROBE_PAD))
		return -EMSGSIZE;
	return 0;
}
