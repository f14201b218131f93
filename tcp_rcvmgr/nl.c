// SPDX-License-Identifier: GPL-2.0
/*
 * The tcp_rcvmgr generic netlink family
 * (Documentation/netlink/specs/tcp_rcvmgr.yaml) and the start of its
 * replies. Its commands' table and policies are generated from the spec
 * (nl_gen.c), their handlers are genl.c's, and the module hands the table
 * over at registration (main.c), as sch_er2bc's nl.c does.
 */
#include <linux/kernel.h>
#include <net/genetlink.h>
#include <linux/tcp_rcvmgr.h>

#include <net/er2bc_compat.h>
#include <net/er2bc_netlink.h>
#include "rcvmgr.h"

struct genl_family rcvmgr_nl_family __ro_after_init = {
	.name		= TCP_RCVMGR_FAMILY_NAME,
	.version	= TCP_RCVMGR_FAMILY_VERSION,
	.netnsok	= true,
	.module		= THIS_MODULE,
	/* every command validated strictly: reserved header bytes too */
	.resv_start_op	= 0,
	/*
	 * no genl_mutex: config-set takes cfg_mutex, RTNL and ctl_mutex,
	 * config-get and stats-get ctl_mutex, conn-get's dump its own walker
	 * under RCU (rcvmgr.h), so that one slow request holds up no other
	 * family's
	 */
	.parallel_ops	= true,
};

/* the family, with the commands of @ops (module init, before any request) */
int __init rcvmgr_nl_register(const struct genl_split_ops *ops, unsigned int n_ops)
{
	return er2bc_compat_genl_register(&rcvmgr_nl_family, ops, n_ops);
}

void rcvmgr_nl_unregister(void)
{
	er2bc_compat_genl_unregister(&rcvmgr_nl_family);
}

/* a reply to @info's request, its header put */
int rcvmgr_nl_reply(struct genl_info *info, struct sk_buff **msg, void **hdr)
{
	return er2bc_genl_reply(&rcvmgr_nl_family, info, msg, hdr);
}
