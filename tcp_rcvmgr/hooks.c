// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_rcvmgr: rewrite the receive window that TCP receivers behind a
 * gateway advertise, so the gateway decides how the access link is shared.
 *
 * This file holds the module and its netfilter hooks: forwarded packets
 * (connections crossing the gateway) and locally generated ones
 * (connections ending on the gateway), for IPv4 and IPv6, in every network
 * namespace.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <linux/tcp_rcvmgr.h>

#include "er2bc_compat.h"

/*
 * No connection is managed yet: the hook sees every packet and lets it pass
 * untouched. Window management comes with the connection table.
 */
static unsigned int rcvmgr_hook(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	return NF_ACCEPT;
}

#define RCVMGR_HOOK(_pf, _hooknum, _prio) {	\
	.hook		= rcvmgr_hook,			\
	.pf		= _pf,				\
	.hooknum	= _hooknum,			\
	.priority	= _prio,			\
}

/* last on each hook: a packet is seen once every filter has accepted it */
static const struct nf_hook_ops rcvmgr_nf_ops[] = {
	RCVMGR_HOOK(NFPROTO_IPV4, NF_INET_FORWARD, NF_IP_PRI_LAST - 1),
	RCVMGR_HOOK(NFPROTO_IPV4, NF_INET_LOCAL_OUT, NF_IP_PRI_LAST - 1),
	RCVMGR_HOOK(NFPROTO_IPV6, NF_INET_FORWARD, NF_IP6_PRI_LAST - 1),
	RCVMGR_HOOK(NFPROTO_IPV6, NF_INET_LOCAL_OUT, NF_IP6_PRI_LAST - 1),
};

static int __net_init rcvmgr_net_init(struct net *net)
{
	return nf_register_net_hooks(net, rcvmgr_nf_ops, ARRAY_SIZE(rcvmgr_nf_ops));
}

static void __net_exit rcvmgr_net_exit(struct net *net)
{
	nf_unregister_net_hooks(net, rcvmgr_nf_ops, ARRAY_SIZE(rcvmgr_nf_ops));
}

static struct pernet_operations rcvmgr_net_ops = {
	.init = rcvmgr_net_init,
	.exit = rcvmgr_net_exit,
};

static int __init rcvmgr_module_init(void)
{
	return register_pernet_subsys(&rcvmgr_net_ops);
}

static void __exit rcvmgr_module_exit(void)
{
	unregister_pernet_subsys(&rcvmgr_net_ops);
}

module_init(rcvmgr_module_init);
module_exit(rcvmgr_module_exit);
MODULE_AUTHOR("The er2bc authors");
MODULE_DESCRIPTION("Receive-window management of TCP connections crossing a gateway");
MODULE_LICENSE("GPL");
MODULE_VERSION(ER2BC_VERSION);
