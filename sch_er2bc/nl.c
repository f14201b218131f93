// SPDX-License-Identifier: GPL-2.0
/*
 * The er2bc generic netlink family (Documentation/netlink/specs/er2bc.yaml)
 * and the headers of its messages. The commands' table comes from genl.c
 * at registration, so that this file, which the handlers call, calls none
 * of them.
 */
#include <linux/kernel.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <linux/er2bc_genl.h>

#include "er2bc_compat.h"
#include "nl.h"
#include "probe.h"

/* each op's policy is the spec's request: the selftest er2bc_genl_spec checks */
const struct nla_policy er2bc_abw_set_nl_policy[ER2BC_A_QDISC_INTERVAL + 1] = {
	[ER2BC_A_QDISC_IFINDEX]		= NLA_POLICY_MIN(NLA_U32, 1),
	[ER2BC_A_QDISC_HANDLE]		= { .type = NLA_U32 },
	[ER2BC_A_QDISC_ABW]		= NLA_POLICY_MIN(NLA_U64, 1),
	[ER2BC_A_QDISC_RECV_RATE]	= { .type = NLA_U64 },
	[ER2BC_A_QDISC_SENT]		= { .type = NLA_U64 },
	[ER2BC_A_QDISC_LOST]		= { .type = NLA_U64 },
	[ER2BC_A_QDISC_SEQ]		= { .type = NLA_U32 },
	[ER2BC_A_QDISC_INTERVAL]	= NLA_POLICY_MIN(NLA_U32, 1),
};

const struct nla_policy er2bc_ctrl_get_nl_policy[ER2BC_A_QDISC_HANDLE + 1] = {
	[ER2BC_A_QDISC_IFINDEX]		= NLA_POLICY_MIN(NLA_U32, 1),
	[ER2BC_A_QDISC_HANDLE]		= { .type = NLA_U32 },
};

const struct nla_policy er2bc_probe_get_nl_policy[ER2BC_A_PROBE_KEY + 1] = {
	[ER2BC_A_PROBE_IFINDEX]		= NLA_POLICY_MIN(NLA_U32, 1),
	[ER2BC_A_PROBE_HANDLE]		= { .type = NLA_U32 },
	[ER2BC_A_PROBE_KEY]		= NLA_POLICY_RANGE(NLA_BINARY, 4, ER2BC_PROBE_KEY_MAX),
};

const struct nla_policy er2bc_meter_set_nl_policy[ER2BC_A_PROBE_AUTH_KEY + 1] = {
	[ER2BC_A_PROBE_IFINDEX]		= NLA_POLICY_MIN(NLA_U32, 1),
	[ER2BC_A_PROBE_PORT]		= NLA_POLICY_MIN(NLA_U16, 1),
	[ER2BC_A_PROBE_PEER]		= NLA_POLICY_NESTED(er2bc_prefix_nl_policy),
	[ER2BC_A_PROBE_AUTH_KEY]	= NLA_POLICY_RANGE(NLA_BINARY, 16, 1024),
};

const struct nla_policy er2bc_meter_del_nl_policy[ER2BC_A_PROBE_IFINDEX + 1] = {
	[ER2BC_A_PROBE_IFINDEX]		= NLA_POLICY_MIN(NLA_U32, 1),
};

const struct nla_policy er2bc_meter_get_nl_policy[ER2BC_A_PROBE_KEY + 1] = {
	[ER2BC_A_PROBE_IFINDEX]		= NLA_POLICY_MIN(NLA_U32, 1),
	[ER2BC_A_PROBE_KEY]		= NLA_POLICY_RANGE(NLA_BINARY, 4, ER2BC_PROBE_KEY_MAX),
};

/* the monitor group tells of every estimate: joined with CAP_NET_ADMIN */
static const struct genl_multicast_group er2bc_nl_mcgrps[] = {
	[ER2BC_NL_MCGRP_MONITOR] = { .name = ER2BC_MCGRP_MONITOR, ER2BC_MCGRP_CAP_NET_ADMIN },
};

struct genl_family er2bc_nl_family __ro_after_init = {
	.name		= ER2BC_FAMILY_NAME,
	.version	= ER2BC_FAMILY_VERSION,
	.netnsok	= true,
	.module		= THIS_MODULE,
	/* every command validated strictly: reserved header bytes too */
	.resv_start_op	= 0,
	.mcgrps		= er2bc_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(er2bc_nl_mcgrps),
};

/* the family, with the commands of @ops (module init, before any request) */
int __init er2bc_nl_register(const struct genl_ops *ops, unsigned int n_ops)
{
	er2bc_nl_family.ops = ops;
	er2bc_nl_family.n_ops = n_ops;
	return genl_register_family(&er2bc_nl_family);
}

void er2bc_nl_unregister(void)
{
	genl_unregister_family(&er2bc_nl_family);
}

/* a reply to @info's request, its header put */
int er2bc_nl_reply(struct genl_info *info, struct sk_buff **msg, void **hdr)
{
	*msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!*msg)
		return -ENOMEM;
	*hdr = genlmsg_put_reply(*msg, info, &er2bc_nl_family, 0, info->genlhdr->cmd);
	if (!*hdr) {
		nlmsg_free(*msg);
		return -EMSGSIZE;
	}
	return 0;
}

/* the header of one message of a dump */
void *er2bc_nl_dump_hdr(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   &er2bc_nl_family, NLM_F_MULTI, cmd);
}
