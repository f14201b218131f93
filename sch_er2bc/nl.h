/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The er2bc generic netlink family itself (nl.c), below the files that
 * handle its commands: genl.c (the qdisc's commands) and meter.c (the
 * receiving gateway's meter), whose prototypes, with the commands' table
 * and policies, are generated from the spec (nl_gen.h, nl_gen.c). The
 * handlers build their messages with these; the module (main.c) registers
 * the family with the generated table. nl.c calls none of them.
 */
#ifndef _ER2BC_NL_H
#define _ER2BC_NL_H

#include <net/genetlink.h>
#include <linux/er2bc_genl.h>

#include <net/er2bc_compat.h>

extern struct genl_family er2bc_nl_family;

/* nl.c */
int er2bc_nl_register(const struct genl_split_ops *ops, unsigned int n_ops);
void er2bc_nl_unregister(void);
int er2bc_nl_reply(struct genl_info *info, struct sk_buff **msg, void **hdr);
void *er2bc_nl_dump_hdr(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd);

struct er2bc_peer;

/*
 * a request's key checked, the peer's nests in and out, a count's
 * attributes out
 */
int er2bc_nl_check_key(const struct nlattr *key, struct netlink_ext_ack *extack);
int er2bc_nl_parse_peer(const struct genl_info *info, struct er2bc_peer *peer);
int er2bc_nl_put_peer(struct sk_buff *skb, const struct er2bc_peer *peer);
int er2bc_nl_put_count(struct sk_buff *skb, u64 packets, u64 bytes, u64 time,
		       u64 probes, u64 ignored);

#endif /* _ER2BC_NL_H */
