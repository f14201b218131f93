/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The er2bc generic netlink family itself (nl.c), below the files that
 * handle its commands: genl.c (the qdisc's commands, and the table of all
 * of them) and meter.c (the receiving gateway's meter). They build their
 * messages with these; genl.c registers the family with its table. nl.c
 * calls none of them.
 */
#ifndef _ER2BC_NL_H
#define _ER2BC_NL_H

#include <net/genetlink.h>
#include <linux/er2bc_genl.h>

/* the monitor group (ER2BC_MCGRP_MONITOR), the family's group 0 */
#define ER2BC_NL_MCGRP_MONITOR	0

extern struct genl_family er2bc_nl_family;

/* each command's request, as the spec gives it (nl.c) */
extern const struct nla_policy er2bc_abw_set_nl_policy[ER2BC_A_QDISC_INTERVAL + 1];
extern const struct nla_policy er2bc_ctrl_get_nl_policy[ER2BC_A_QDISC_HANDLE + 1];
extern const struct nla_policy er2bc_probe_get_nl_policy[ER2BC_A_PROBE_KEY + 1];
extern const struct nla_policy er2bc_meter_set_nl_policy[ER2BC_A_PROBE_AUTH_KEY + 1];
extern const struct nla_policy er2bc_meter_del_nl_policy[ER2BC_A_PROBE_IFINDEX + 1];
extern const struct nla_policy er2bc_meter_get_nl_policy[ER2BC_A_PROBE_KEY + 1];

/* nl.c */
int er2bc_nl_register(const struct genl_ops *ops, unsigned int n_ops);
void er2bc_nl_unregister(void);
int er2bc_nl_reply(struct genl_info *info, struct sk_buff **msg, void **hdr);
void *er2bc_nl_dump_hdr(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd);

#endif /* _ER2BC_NL_H */
