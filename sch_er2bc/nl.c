// SPDX-License-Identifier: GPL-2.0
/*
 * The er2bc generic netlink family (Documentation/netlink/specs/er2bc.yaml)
 * and the headers of its messages. Its commands' table and policies are
 * generated from the spec (nl_gen.c), and the module hands them over at
 * registration (main.c), so that this file, which the handlers call, calls
 * none of them.
 */
#include <linux/kernel.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <linux/er2bc_genl.h>

#include "er2bc_compat.h"
#include "er2bc_netlink.h"
#include "nl.h"
#include "nl_gen.h"

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
