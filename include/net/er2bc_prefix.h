/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An IP prefix (a peer's in sch_er2bc, a LAN's in tcp_rcvmgr), checked and
 * matched one way in both modules; its netlink attributes are
 * er2bc_netlink.h's. Inline: neither module links anything of the other's.
 */
#ifndef _ER2BC_PREFIX_H
#define _ER2BC_PREFIX_H

#include <linux/errno.h>
#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/types.h>
#include <net/ipv6.h>

struct er2bc_prefix {
	u8 family;			/* AF_INET, AF_INET6 */
	u8 plen;
	struct in6_addr addr;		/* IPv4 in s6_addr32[0] */
};

static inline bool er2bc_prefix_match(const struct er2bc_prefix *p, u8 family,
				      const struct in6_addr *addr)
{
	return p->family == family && ipv6_prefix_equal(&p->addr, addr, p->plen);
}

/*
 * A prefix from its parts, the address's first 4 (AF_INET) or 16 (AF_INET6)
 * of the @addr_len bytes at @addr: -EINVAL for another family, too few
 * bytes, a @plen the address does not have, or host bits set
 */
static inline int er2bc_prefix_set(struct er2bc_prefix *p, u8 family, u8 plen,
				   const void *addr, unsigned int addr_len)
{
	unsigned int len = family == AF_INET ? 4 : 16;
	struct in6_addr a = {}, masked;

	if ((family != AF_INET && family != AF_INET6) || addr_len < len || plen > len * 8)
		return -EINVAL;
	memcpy(&a, addr, len);
	ipv6_addr_prefix(&masked, &a, plen);
	if (!ipv6_addr_equal(&masked, &a))
		return -EINVAL;
	p->family = family;
	p->plen = plen;
	p->addr = a;
	return 0;
}

#endif
