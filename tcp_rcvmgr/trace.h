/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of tcp_rcvmgr: one event per ACK whose window it lowered, one
 * per budget adjustment. tools/bpftrace/rcvmgr-windows.bt reads them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tcp_rcvmgr

#if !defined(_TCP_RCVMGR_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TCP_RCVMGR_TRACE_H

#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/tracepoint.h>
#include <net/ipv6.h>

#include "rcvmgr.h"

#ifndef RCVMGR_TRACE_ONCE
#define RCVMGR_TRACE_ONCE
/* an address as IPv6, IPv4 mapped: one format prints both families */
static inline void rcvmgr_trace_addr(u8 *dst, u8 family, const struct in6_addr *a)
{
	if (family == AF_INET)
		ipv6_addr_set_v4mapped(a->s6_addr32[0], (struct in6_addr *)dst);
	else
		memcpy(dst, a, sizeof(*a));
}
#endif

TRACE_EVENT(tcp_rcvmgr_window,
	    TP_PROTO(const struct rcvmgr_key *k, u32 ack, u32 advertised, u32 written,
		     u32 assigned),
	    TP_ARGS(k, ack, advertised, written, assigned),
	    TP_STRUCT__entry(__array(u8, saddr, 16)
			     __array(u8, daddr, 16)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u32, ack)
			     __field(u32, advertised)
			     __field(u32, written)
			     __field(u32, assigned)),
	    TP_fast_assign(rcvmgr_trace_addr(__entry->saddr, k->family, &k->saddr);
			   rcvmgr_trace_addr(__entry->daddr, k->family, &k->daddr);
			   __entry->sport = ntohs(k->sport);
			   __entry->dport = ntohs(k->dport);
			   __entry->ack = ack;
			   __entry->advertised = advertised;
			   __entry->written = written;
			   __entry->assigned = assigned;),
	    TP_printk("[%pI6c]:%u > [%pI6c]:%u ack=%u advertised=%u written=%u assigned=%u",
		      __entry->saddr, __entry->sport, __entry->daddr, __entry->dport,
		      __entry->ack, __entry->advertised, __entry->written,
		      __entry->assigned)
);

TRACE_EVENT(tcp_rcvmgr_budget,
	    TP_PROTO(u32 old, u32 budget, int trend, u32 conns, u32 sampled,
		     u32 increased),
	    TP_ARGS(old, budget, trend, conns, sampled, increased),
	    TP_STRUCT__entry(__field(u32, old)
			     __field(u32, budget)
			     __field(int, trend)
			     __field(u32, conns)
			     __field(u32, sampled)
			     __field(u32, increased)),
	    TP_fast_assign(__entry->old = old;
			   __entry->budget = budget;
			   __entry->trend = trend;
			   __entry->conns = conns;
			   __entry->sampled = sampled;
			   __entry->increased = increased;),
	    TP_printk("budget %u -> %u (%s): conns=%u rtt sampled=%u increased=%u",
		      __entry->old, __entry->budget,
		      __print_symbolic(__entry->trend, { 0, "hold" }, { 1, "up" },
				       { 2, "down" }),
		      __entry->conns, __entry->sampled, __entry->increased)
);

TRACE_EVENT(tcp_rcvmgr_probe,
	    TP_PROTO(u32 budget, u32 probe, u32 len_us, u32 sampled, u32 increased),
	    TP_ARGS(budget, probe, len_us, sampled, increased),
	    TP_STRUCT__entry(__field(u32, budget)
			     __field(u32, probe)
			     __field(u32, len_us)
			     __field(u32, sampled)
			     __field(u32, increased)),
	    TP_fast_assign(__entry->budget = budget;
			   __entry->probe = probe;
			   __entry->len_us = len_us;
			   __entry->sampled = sampled;
			   __entry->increased = increased;),
	    TP_printk("budget %u, %u for %uus: rtt sampled=%u increased=%u",
		      __entry->budget, __entry->probe, __entry->len_us,
		      __entry->sampled, __entry->increased)
);

#endif /* _TCP_RCVMGR_TRACE_H */

/* out of tree: the header is found next to this file */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
