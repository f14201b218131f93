/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/er2bc.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_ER2BC_GEN_H
#define _LINUX_ER2BC_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/er2bc_genl.h>

/* Common nested types */
extern const struct nla_policy er2bc_prefix_nl_policy[ER2BC_A_PREFIX_PLEN + 1];

/* Ops table for er2bc */
extern const struct genl_split_ops er2bc_nl_ops[7];

int er2bc_nl_ctrl_get_start(struct netlink_callback *cb);
int er2bc_nl_meter_get_start(struct netlink_callback *cb);

int er2bc_nl_abw_set_doit(struct sk_buff *skb, struct genl_info *info);
int er2bc_nl_ctrl_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int er2bc_nl_probe_get_doit(struct sk_buff *skb, struct genl_info *info);
int er2bc_nl_meter_set_doit(struct sk_buff *skb, struct genl_info *info);
int er2bc_nl_meter_del_doit(struct sk_buff *skb, struct genl_info *info);
int er2bc_nl_meter_get_doit(struct sk_buff *skb, struct genl_info *info);
int er2bc_nl_meter_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

enum {
	ER2BC_NLGRP_MONITOR,
};

#endif /* _LINUX_ER2BC_GEN_H */
