/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the netlink code of both modules shares: an IP prefix's attributes
 * (er2bc_prefix.h) in and out, and the start of a reply to a generic
 * netlink request. Inline: neither module links anything of the other's.
 */
#ifndef _ER2BC_NETLINK_H
#define _ER2BC_NETLINK_H

#include <linux/errno.h>
#include <linux/socket.h>
#include <linux/types.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include <net/er2bc_prefix.h>

/* a prefix from an address attribute of 4 or 16 bytes and its length */
static inline int er2bc_prefix_from_nla(struct er2bc_prefix *p, const struct nlattr *addr,
					const struct nlattr *plen)
{
	int len = nla_len(addr);

	if (len != 4 && len != 16)
		return -EINVAL;
	return er2bc_prefix_set(p, len == 4 ? AF_INET : AF_INET6, nla_get_u8(plen),
				nla_data(addr), len);
}

/* @p as the nest @type of an address @addr_type and a length @plen_type */
static inline int er2bc_prefix_put(struct sk_buff *skb, int type, int addr_type, int plen_type,
				   const struct er2bc_prefix *p)
{
	struct nlattr *nest = nla_nest_start(skb, type);

	if (!nest ||
	    nla_put(skb, addr_type, p->family == AF_INET ? 4 : 16, &p->addr) ||
	    nla_put_u8(skb, plen_type, p->plen))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* a reply of @family to @info's request, its header put */
static inline int er2bc_genl_reply(const struct genl_family *family, struct genl_info *info,
				   struct sk_buff **msg, void **hdr)
{
	*msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!*msg)
		return -ENOMEM;
	*hdr = genlmsg_put_reply(*msg, info, family, 0, info->genlhdr->cmd);
	if (!*hdr) {
		nlmsg_free(*msg);
		return -EMSGSIZE;
	}
	return 0;
}

#endif
