/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the eR2BC controller: one event per ABW estimate applied,
 * one per class whose guarantee it set. tools/bpftrace/ reads them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM er2bc

#if !defined(_ER2BC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _ER2BC_TRACE_H

#include <linux/tracepoint.h>
#include <linux/er2bc.h>

TRACE_DEFINE_ENUM(ER2BC_TYPE_TCP);
TRACE_DEFINE_ENUM(ER2BC_TYPE_UDP);
TRACE_DEFINE_ENUM(ER2BC_TYPE_SCAVENGER);

TRACE_EVENT(abw_update,
	    TP_PROTO(int ifindex, u32 handle, u32 seq, u64 abw, u64 recv, u32 s,
		     u32 sp, u32 classes, u64 guaranteed, u64 cost_ns),
	    TP_ARGS(ifindex, handle, seq, abw, recv, s, sp, classes, guaranteed,
		    cost_ns),
	    TP_STRUCT__entry(__field(int, ifindex)
			     __field(u32, handle)
			     __field(u32, seq)
			     __field(u32, s)
			     __field(u32, sp)
			     __field(u32, classes)
			     __field(u64, abw)
			     __field(u64, recv)
			     __field(u64, guaranteed)
			     __field(u64, cost_ns)),
	    TP_fast_assign(__entry->ifindex = ifindex;
			   __entry->handle = handle;
			   __entry->seq = seq;
			   __entry->s = s;
			   __entry->sp = sp;
			   __entry->classes = classes;
			   __entry->abw = abw;
			   __entry->recv = recv;
			   __entry->guaranteed = guaranteed;
			   __entry->cost_ns = cost_ns;),
	    TP_printk("ifindex=%d handle=%x: seq=%u abw=%llu recv=%llu s=%u sp=%u classes=%u guaranteed=%llu cost_ns=%llu",
		      __entry->ifindex, __entry->handle >> 16, __entry->seq,
		      __entry->abw, __entry->recv, __entry->s, __entry->sp,
		      __entry->classes, __entry->guaranteed, __entry->cost_ns)
);

TRACE_EVENT(guarantee_set,
	    TP_PROTO(int ifindex, u32 classid, u8 prio, u8 type, u64 rate,
		     u64 demand, u64 guarantee),
	    TP_ARGS(ifindex, classid, prio, type, rate, demand, guarantee),
	    TP_STRUCT__entry(__field(int, ifindex)
			     __field(u32, classid)
			     __field(u8, prio)
			     __field(u8, type)
			     __field(u64, rate)
			     __field(u64, demand)
			     __field(u64, guarantee)),
	    TP_fast_assign(__entry->ifindex = ifindex;
			   __entry->classid = classid;
			   __entry->prio = prio;
			   __entry->type = type;
			   __entry->rate = rate;
			   __entry->demand = demand;
			   __entry->guarantee = guarantee;),
	    TP_printk("ifindex=%d class=%x:%x prio=%u type=%s rate=%llu demand=%llu guarantee=%llu",
		      __entry->ifindex, __entry->classid >> 16,
		      __entry->classid & 0xffff, __entry->prio,
		      __print_symbolic(__entry->type, { ER2BC_TYPE_TCP, "tcp" },
				       { ER2BC_TYPE_UDP, "udp" },
				       { ER2BC_TYPE_SCAVENGER, "scavenger" }),
		      __entry->rate,
		      __entry->demand, __entry->guarantee)
);

#endif /* _ER2BC_TRACE_H */

/* out of tree: the header is found next to this file */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
