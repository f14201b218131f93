/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/tcp_rcvmgr.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_TCP_RCVMGR_GEN_H
#define _LINUX_TCP_RCVMGR_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/tcp_rcvmgr.h>

/* Common nested types */
extern const struct nla_policy tcp_rcvmgr_prefix_nl_policy[TCP_RCVMGR_A_PREFIX_PLEN + 1];
extern const struct nla_policy tcp_rcvmgr_rule_nl_policy[TCP_RCVMGR_A_RULE_PRIORITY + 1];

/* Ops table for tcp_rcvmgr */
extern const struct genl_split_ops tcp_rcvmgr_nl_ops[4];

int tcp_rcvmgr_nl_conn_get_start(struct netlink_callback *cb);
int tcp_rcvmgr_nl_conn_get_done(struct netlink_callback *cb);

int tcp_rcvmgr_nl_config_get_doit(struct sk_buff *skb, struct genl_info *info);
int tcp_rcvmgr_nl_config_set_doit(struct sk_buff *skb, struct genl_info *info);
int tcp_rcvmgr_nl_conn_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb);
int tcp_rcvmgr_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _LINUX_TCP_RCVMGR_GEN_H */
