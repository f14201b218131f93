/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the generic netlink commands (genl.c) may ask of an er2bc qdisc
 * (state.c), and all they may: the qdisc's structs stay private to the
 * files that run it. Every call is made under RTNL, held from er2bc_qdisc_find()
 * for as long as the qdisc is used; RTNL keeps the qdisc and its classes
 * as they are. What changes under the packet path is read or written under
 * the qdisc's tree lock, inside these calls.
 */
#ifndef _ER2BC_STATE_H
#define _ER2BC_STATE_H

#include <linux/skbuff.h>
#include <linux/types.h>
#include <net/netlink.h>
#include <net/sch_generic.h>

#include "probe.h"

/* one ABW estimate, as abw-set carries it */
struct er2bc_estimate {
	u64 abw;			/* W(t) */
	u64 recv;			/* R(t-1) */
	u64 sent;
	u64 lost;
	u32 seq;
	u32 interval;			/* us */
	u32 hold;			/* us scavengers are lent nothing */
};

/* what the qdisc sent, counted for the estimator (probe.h), and where */
struct er2bc_counts {
	__be16 port;			/* the requests' port; 0: none */
	u32 mark;
	struct er2bc_peer peer;
	u64 packets;
	u64 bytes;
	u64 probes;
	u64 ignored;
	u64 time;			/* ktime_get_ns() of the count */
	u64 held;			/* ns the cap W held the backlog back, by then */
};

struct Qdisc *er2bc_qdisc_find(struct net *net, u32 ifindex, u32 handle,
			       struct nlattr **tb, struct netlink_ext_ack *extack);
void er2bc_apply(struct Qdisc *sch, const struct er2bc_estimate *e);
int er2bc_put_state(struct sk_buff *skb, struct Qdisc *sch, bool event);
int er2bc_put_classes(struct sk_buff *skb, struct Qdisc *sch, unsigned long *sent);
unsigned int er2bc_class_gen(struct Qdisc *sch);
int er2bc_counts(struct Qdisc *sch, const u8 *key, unsigned int key_len,
		 struct er2bc_counts *c);

#endif /* _ER2BC_STATE_H */
