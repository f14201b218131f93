// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/tcp_rcvmgr.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "nl_gen.h"

#include <uapi/linux/tcp_rcvmgr.h>

/* Integer value ranges */
static const struct netlink_range_validation tcp_rcvmgr_a_config_interval_range = {
	.min	= 10ULL,
	.max	= 3600000ULL,
};

static const struct netlink_range_validation tcp_rcvmgr_a_config_max_conns_range = {
	.min	= 1ULL,
	.max	= 16777216ULL,
};

/* Common nested types */
const struct nla_policy tcp_rcvmgr_prefix_nl_policy[TCP_RCVMGR_A_PREFIX_PLEN + 1] = {
	[TCP_RCVMGR_A_PREFIX_ADDR] = { .type = NLA_BINARY, },
	[TCP_RCVMGR_A_PREFIX_PLEN] = NLA_POLICY_MAX(NLA_U8, 128),
};

const struct nla_policy tcp_rcvmgr_rule_nl_policy[TCP_RCVMGR_A_RULE_PRIORITY + 1] = {
	[TCP_RCVMGR_A_RULE_PORT_MIN] = { .type = NLA_U16, },
	[TCP_RCVMGR_A_RULE_PORT_MAX] = { .type = NLA_U16, },
	[TCP_RCVMGR_A_RULE_DSCP] = NLA_POLICY_MAX(NLA_U8, 63),
	[TCP_RCVMGR_A_RULE_MARK] = { .type = NLA_U32, },
	[TCP_RCVMGR_A_RULE_MARK_MASK] = { .type = NLA_U32, },
	[TCP_RCVMGR_A_RULE_PRIORITY] = NLA_POLICY_RANGE(NLA_U32, 1, TCP_RCVMGR_PRIORITY_MAX),
};

/* TCP_RCVMGR_CMD_CONFIG_SET - do */
static const struct nla_policy tcp_rcvmgr_config_set_nl_policy[TCP_RCVMGR_A_CONFIG_INITIAL_WINDOW + 1] = {
	[TCP_RCVMGR_A_CONFIG_POLICY] = NLA_POLICY_MAX(NLA_U8, 3),
	[TCP_RCVMGR_A_CONFIG_WAN_DEV] = NLA_POLICY_MIN(NLA_U32, 1),
	[TCP_RCVMGR_A_CONFIG_LAN_PREFIX] = NLA_POLICY_NESTED(tcp_rcvmgr_prefix_nl_policy),
	[TCP_RCVMGR_A_CONFIG_RULE] = NLA_POLICY_NESTED(tcp_rcvmgr_rule_nl_policy),
	[TCP_RCVMGR_A_CONFIG_CLEAR] = NLA_POLICY_MASK(NLA_U32, 0x7),
	[TCP_RCVMGR_A_CONFIG_INTERVAL] = NLA_POLICY_FULL_RANGE(NLA_U32, &tcp_rcvmgr_a_config_interval_range),
	[TCP_RCVMGR_A_CONFIG_MAX_CONNS] = NLA_POLICY_FULL_RANGE(NLA_U32, &tcp_rcvmgr_a_config_max_conns_range),
	[TCP_RCVMGR_A_CONFIG_IDLE_TIMEOUT] = NLA_POLICY_MIN(NLA_U32, 1000),
	[TCP_RCVMGR_A_CONFIG_BUDGET_INIT] = NLA_POLICY_MIN(NLA_U32, 1),
	[TCP_RCVMGR_A_CONFIG_BUDGET_MIN] = NLA_POLICY_MIN(NLA_U32, 1),
	[TCP_RCVMGR_A_CONFIG_BUDGET_MAX] = NLA_POLICY_MIN(NLA_U32, 1),
	[TCP_RCVMGR_A_CONFIG_BUDGET_STEP] = NLA_POLICY_MIN(NLA_U32, 1),
	[TCP_RCVMGR_A_CONFIG_BUDGET_DECREASE] = NLA_POLICY_RANGE(NLA_U32, 1, 999),
	[TCP_RCVMGR_A_CONFIG_RTT_TOLERANCE] = NLA_POLICY_MAX(NLA_U32, 1000),
	[TCP_RCVMGR_A_CONFIG_LINK_RATE] = { .type = NLA_U64, },
	[TCP_RCVMGR_A_CONFIG_SPRING_QUEUE] = { .type = NLA_U32, },
	[TCP_RCVMGR_A_CONFIG_SPRING_INTERACTIVE] = { .type = NLA_U32, },
	[TCP_RCVMGR_A_CONFIG_SPRING_SHORT] = { .type = NLA_U32, },
	[TCP_RCVMGR_A_CONFIG_INITIAL_WINDOW] = NLA_POLICY_RANGE(NLA_U32, TCP_RCVMGR_INITIAL_WINDOW_MIN, TCP_RCVMGR_INITIAL_WINDOW_MAX),
};

/* Ops table for tcp_rcvmgr */
const struct genl_split_ops tcp_rcvmgr_nl_ops[4] = {
	{
		.cmd	= TCP_RCVMGR_CMD_CONFIG_GET,
		.doit	= tcp_rcvmgr_nl_config_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= TCP_RCVMGR_CMD_CONFIG_SET,
		.doit		= tcp_rcvmgr_nl_config_set_doit,
		.policy		= tcp_rcvmgr_config_set_nl_policy,
		.maxattr	= TCP_RCVMGR_A_CONFIG_INITIAL_WINDOW,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd	= TCP_RCVMGR_CMD_CONN_GET,
		.start	= tcp_rcvmgr_nl_conn_get_start,
		.dumpit	= tcp_rcvmgr_nl_conn_get_dumpit,
		.done	= tcp_rcvmgr_nl_conn_get_done,
		.flags	= GENL_ADMIN_PERM | GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= TCP_RCVMGR_CMD_STATS_GET,
		.doit	= tcp_rcvmgr_nl_stats_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
};
