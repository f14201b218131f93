// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/er2bc.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "nl_gen.h"

#include <uapi/linux/er2bc_genl.h>

/* Integer value ranges */
static const struct netlink_range_validation er2bc_a_qdisc_scavenger_hold_range = {
	.max	= 60000000ULL,
};

/* Common nested types */
const struct nla_policy er2bc_prefix_nl_policy[ER2BC_A_PREFIX_PLEN + 1] = {
	[ER2BC_A_PREFIX_ADDR] = { .type = NLA_BINARY, },
	[ER2BC_A_PREFIX_PLEN] = NLA_POLICY_MAX(NLA_U8, 128),
};

/* ER2BC_CMD_ABW_SET - do */
static const struct nla_policy er2bc_abw_set_nl_policy[ER2BC_A_QDISC_SCAVENGER_HOLD + 1] = {
	[ER2BC_A_QDISC_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[ER2BC_A_QDISC_HANDLE] = { .type = NLA_U32, },
	[ER2BC_A_QDISC_ABW] = NLA_POLICY_MIN(NLA_U64, 1),
	[ER2BC_A_QDISC_RECV_RATE] = { .type = NLA_U64, },
	[ER2BC_A_QDISC_SENT] = { .type = NLA_U64, },
	[ER2BC_A_QDISC_LOST] = { .type = NLA_U64, },
	[ER2BC_A_QDISC_SEQ] = { .type = NLA_U32, },
	[ER2BC_A_QDISC_INTERVAL] = NLA_POLICY_MIN(NLA_U32, 1),
	[ER2BC_A_QDISC_SCAVENGER_HOLD] = NLA_POLICY_FULL_RANGE(NLA_U32, &er2bc_a_qdisc_scavenger_hold_range),
};

/* ER2BC_CMD_CTRL_GET - dump */
static const struct nla_policy er2bc_ctrl_get_nl_policy[ER2BC_A_QDISC_HANDLE + 1] = {
	[ER2BC_A_QDISC_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[ER2BC_A_QDISC_HANDLE] = { .type = NLA_U32, },
};

/* ER2BC_CMD_PROBE_GET - do */
static const struct nla_policy er2bc_probe_get_nl_policy[ER2BC_A_PROBE_KEY + 1] = {
	[ER2BC_A_PROBE_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[ER2BC_A_PROBE_HANDLE] = { .type = NLA_U32, },
	[ER2BC_A_PROBE_KEY] = { .type = NLA_BINARY, },
};

/* ER2BC_CMD_METER_SET - do */
static const struct nla_policy er2bc_meter_set_nl_policy[ER2BC_A_PROBE_AUTH_KEY + 1] = {
	[ER2BC_A_PROBE_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[ER2BC_A_PROBE_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
	[ER2BC_A_PROBE_PEER] = NLA_POLICY_NESTED(er2bc_prefix_nl_policy),
	[ER2BC_A_PROBE_AUTH_KEY] = { .type = NLA_BINARY, },
};

/* ER2BC_CMD_METER_DEL - do */
static const struct nla_policy er2bc_meter_del_nl_policy[ER2BC_A_PROBE_IFINDEX + 1] = {
	[ER2BC_A_PROBE_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* ER2BC_CMD_METER_GET - do */
static const struct nla_policy er2bc_meter_get_do_nl_policy[ER2BC_A_PROBE_KEY + 1] = {
	[ER2BC_A_PROBE_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[ER2BC_A_PROBE_KEY] = { .type = NLA_BINARY, },
};

/* ER2BC_CMD_METER_GET - dump */
static const struct nla_policy er2bc_meter_get_dump_nl_policy[ER2BC_A_PROBE_IFINDEX + 1] = {
	[ER2BC_A_PROBE_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* Ops table for er2bc */
const struct genl_split_ops er2bc_nl_ops[7] = {
	{
		.cmd		= ER2BC_CMD_ABW_SET,
		.doit		= er2bc_nl_abw_set_doit,
		.policy		= er2bc_abw_set_nl_policy,
		.maxattr	= ER2BC_A_QDISC_SCAVENGER_HOLD,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ER2BC_CMD_CTRL_GET,
		.start		= er2bc_nl_ctrl_get_start,
		.dumpit		= er2bc_nl_ctrl_get_dumpit,
		.policy		= er2bc_ctrl_get_nl_policy,
		.maxattr	= ER2BC_A_QDISC_HANDLE,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= ER2BC_CMD_PROBE_GET,
		.doit		= er2bc_nl_probe_get_doit,
		.policy		= er2bc_probe_get_nl_policy,
		.maxattr	= ER2BC_A_PROBE_KEY,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ER2BC_CMD_METER_SET,
		.doit		= er2bc_nl_meter_set_doit,
		.policy		= er2bc_meter_set_nl_policy,
		.maxattr	= ER2BC_A_PROBE_AUTH_KEY,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ER2BC_CMD_METER_DEL,
		.doit		= er2bc_nl_meter_del_doit,
		.policy		= er2bc_meter_del_nl_policy,
		.maxattr	= ER2BC_A_PROBE_IFINDEX,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ER2BC_CMD_METER_GET,
		.doit		= er2bc_nl_meter_get_doit,
		.policy		= er2bc_meter_get_do_nl_policy,
		.maxattr	= ER2BC_A_PROBE_KEY,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ER2BC_CMD_METER_GET,
		.start		= er2bc_nl_meter_get_start,
		.dumpit		= er2bc_nl_meter_get_dumpit,
		.policy		= er2bc_meter_get_dump_nl_policy,
		.maxattr	= ER2BC_A_PROBE_IFINDEX,
		.flags		= GENL_CMD_CAP_DUMP,
	},
};

static const struct genl_multicast_group er2bc_nl_mcgrps[] = {
	[ER2BC_NLGRP_MONITOR] = { "monitor", },
};
