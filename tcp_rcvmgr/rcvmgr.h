/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcp_rcvmgr's state: per network namespace a configuration, a table of
 * the connections it manages, the window budget B and its counters.
 *
 * Locking: the datapath finds a connection under RCU and updates it under
 * the connection's own spinlock. Connections are added to and removed from
 * the table and the list under rn->lock (softirq-safe). The table holds a
 * reference to each; the control work (rn->ctl_mutex) takes one on each
 * connection it collects under RCU, so that it can assign and write the
 * windows outside the read-side section, rescheduling as it goes. The
 * last reference frees a connection after a grace period. Windows are
 * written with WRITE_ONCE and read by the datapath with READ_ONCE. The
 * configuration is replaced whole under rn->ctl_mutex and read under RCU.
 * Configuration changes are serialised by rn->cfg_mutex. Lock order:
 * cfg_mutex, RTNL, ctl_mutex, rn->lock, a connection's lock. The generic
 * netlink family runs its requests in parallel (no genl_mutex): each takes
 * what it needs of these.
 */
#ifndef _TCP_RCVMGR_H
#define _TCP_RCVMGR_H

#include <linux/in6.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/rhashtable-types.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <linux/tcp_rcvmgr.h>

#include <net/er2bc_compat.h>
#include <net/er2bc_netlink.h>
#include "window.h"

struct rcvmgr_rule {
	u16 port_min;
	u16 port_max;
	u32 mark;
	u32 mark_mask;			/* 0: mark not matched */
	s8 dscp;			/* -1: not matched */
	bool has_port;
	u32 priority;
};

struct rcvmgr_cfg {
	struct rcu_head rcu;
	u8 policy;			/* enum tcp_rcvmgr_policy */
	u8 n_wan;
	u8 n_lan;
	u8 n_rules;
	int wan[TCP_RCVMGR_DEV_MAX];
	struct er2bc_prefix lan[TCP_RCVMGR_PREFIX_MAX];
	struct rcvmgr_rule rules[TCP_RCVMGR_RULE_MAX];
	u32 interval_ms;
	u32 max_conns;
	u32 idle_ms;
	u32 budget_init;
	u32 budget_min;
	u32 budget_max;
	u32 budget_step;
	u32 budget_decrease;
	u32 rtt_tolerance;
	u64 link_rate;
	u32 spring_queue;
	u32 spring_interactive;
	u32 spring_short;
	u32 initial_window;
};

/* a connection, named from its sender (the WAN side) */
struct rcvmgr_key {
	struct in6_addr saddr;
	struct in6_addr daddr;
	__be16 sport;
	__be16 dport;
	u8 family;
	u8 pad[3];
};

/*
 * What a connection's handshake showed. Either end may open it: a download
 * (the receiver's SYN leaves toward the WAN) or an upload to a LAN server
 * (the sender's SYN arrives from it).
 */
#define RCVMGR_F_SND_SYN	BIT(0)	/* the sender's SYN or SYN-ACK was seen */
#define RCVMGR_F_SND_WS		BIT(1)	/* ... with window scaling */
#define RCVMGR_F_SND_TS		BIT(2)	/* ... with timestamps */
#define RCVMGR_F_RCV_SYN	BIT(3)	/* the receiver's SYN or SYN-ACK was seen */
#define RCVMGR_F_RCV_WS		BIT(4)
#define RCVMGR_F_RCV_TS		BIT(5)
/*
 * a reset inside its window passed (rcvmgr_conn_reset()): forgotten once
 * quiet for RCVMGR_RESET_LINGER_NS, not idle-timeout, unless the receiver
 * acknowledges data sent past rst_edge or the sender retransmits after
 * the reset had reached it (the connection went on)
 */
#define RCVMGR_F_RESET		BIT(6)
/* a SYN from its opening end noted after a reset (rcvmgr_conn.reopen) */
#define RCVMGR_F_REOPEN		BIT(7)
/* managed again from what was kept of it: kept again, whatever it carried */
#define RCVMGR_F_RECALLED	BIT(8)
#define RCVMGR_F_SND_ACK	BIT(10)	/* snd_ack and snd_wnd hold the sender's */
#define RCVMGR_F_RCV_OPENED	BIT(11)	/* the receiver's SYN opened it: a download */
#define RCVMGR_F_ESTABLISHED	BIT(12)	/* an ACK after both SYNs: the handshake's last */
#define RCVMGR_F_PRIO_ACK	BIT(13)	/* adopted: the priority from the receiver's next ACK */
#define RCVMGR_F_SND_NXT	BIT(14)	/* snd_nxt holds the sender's */
#define RCVMGR_F_UNSEEN		BIT(15)	/* its data takes another path: ACKs left alone */

#define RCVMGR_F_HANDSHAKE	(RCVMGR_F_SND_SYN | RCVMGR_F_RCV_SYN)
#define RCVMGR_F_TS		(RCVMGR_F_SND_TS | RCVMGR_F_RCV_TS)

/*
 * A SYN with another sequence number from the end that opened a connection
 * after a reset passed in it (RCVMGR_F_REOPEN): what it offered, and what
 * decided the priority, for a new connection on the same addresses and
 * ports should the other end answer it with a SYN-ACK
 */
struct rcvmgr_syn {
	u32 isn;
	u32 end;			/* past its data (Fast Open) */
	u32 mark;
	u16 mss;			/* 0: no MSS option */
	u8 wscale;
	u8 dscp;
	bool has_ws;
	bool has_ts;
	bool rcv;			/* the receiver's: a download */
};

struct rcvmgr_conn {
	struct rhash_head node;
	struct rcvmgr_key key;
	struct list_head list;
	struct rcu_head rcu;
	refcount_t ref;			/* the table's, the control work's */
	bool unlinked;			/* under rn->lock */
	/*
	 * RCVMGR_CONN_OPENING: opened by a SYN, no data yet; counted in
	 * rn->n_opening until data comes or the entry goes; RCVMGR_CONN_KEPT
	 * (atomic bitops)
	 */
	unsigned long atomic_flags;
	spinlock_t lock;		/* the datapath's fields below */

	/* datapath, under lock */
	u8 state;			/* enum tcp_rcvmgr_state */
	u8 wscale;			/* the receiver's, once both ends agreed */
	u8 rcv_wscale;			/* the receiver's SYN offered this */
	u8 snd_wscale;			/* the sender's SYN offered this */
	u16 flags;
	u32 isn;			/* the opening SYN's sequence number */
	u32 ans_isn;			/* its answer's, the SYN-ACK's */
	/*
	 * where the sender's receive window is, for the receiver's resets
	 * (RFC 5961 3.2); the receiver's is edge.ack and advertised
	 */
	u32 snd_ack;			/* the sender's last ACK: its RCV.NXT */
	u32 snd_wnd;			/* and the window it offered, bytes */
	/*
	 * the end of the sender's highest segment seen here: an ACK past it
	 * acknowledges data that took another path
	 */
	u32 snd_nxt;
	/*
	 * the most the sender could have sent when the last reset passed (the
	 * right edge offered it, or its data seen past that): what it sends
	 * beyond, it sent after the receiver's ACKs went on (RCVMGR_F_RESET)
	 */
	u32 rst_edge;
	struct rcvmgr_syn reopen;
	u32 mss;
	u32 priority;
	u64 bytes;
	u64 round_ns;			/* section 5: an RTT's worth of data began */
	u64 round_bytes;		/* bytes then */
	u32 flight_max;			/* this interval: most arrived in one RTT */
	u32 advertised;			/* bytes the receiver last offered */
	struct rcvmgr_edge edge;
	u64 rewritten;
	u64 created_ns;
	u64 last_ns;
	u64 data_ns;			/* the sender's last data */
	u64 rst_ns;			/* a reset passed (RCVMGR_F_RESET set) */

	/* RTT, gateway to sender and back */
	u64 hs_ns;			/* a handshake packet left; 0: none pending */
	u64 ts_ns;			/* a TSval left at ts_ns; 0: none */
	u32 ts_val;
	u32 ts_last;			/* the TSval of the last ACK */
	u64 edge_ns;			/* data past edge_seq will be a sample */
	u32 edge_seq;
	u32 srtt_us;
	u32 rtt_min_us;
	u32 rtt_samples;
	u64 rtt_sum_us;			/* this interval */
	u32 rtt_cnt;
	u32 rtt_prev_us;		/* the previous interval's mean; 0: none */

	/* the assignment: written by the control work, read by the datapath */
	u32 window;
	u32 threshold;
	u32 demand;			/* section 5: what the last interval used */
};

/*
 * What the gateway keeps of a managed connection it forgot while it may
 * still go on (quiet past idle-timeout, past the linger after a reset
 * that may not have ended it, or replaced by a SYN of its receiver's that
 * may be forged into it; rcvmgr_conn_keep()): enough to manage it again
 * should its sender's data come back (table.c, rcvmgr_kept_take()),
 * rather than to let the rest of it pass unmanaged. Kept in
 * rcvmgr_net.kept, a set of RCVMGR_KEPT_WAYS slots per hash, under
 * rn->lock.
 */
struct rcvmgr_kept {
	struct rcvmgr_key key;
	u64 ns;				/* when forgotten; 0: a free slot */
	u32 seq_lo;			/* the sender's data from here */
	u32 seq_hi;			/* to here (its end) is this connection's */
	/*
	 * its sender's data that passed here, KiB (saturating): a full set
	 * gives up the record that carried least first (table.c), and the
	 * connection managed again goes on from it
	 */
	u32 carried_kib;
	u8 snd_wscale;
	u8 rcv_wscale;
	bool rcv_opened;		/* a download */
	bool ts;			/* they agreed on timestamps */
};

struct rcvmgr_pcpu_stats {
	u64_stats_t acks;
	u64_stats_t rewritten;
	u64_stats_t rtt_samples;
	u64_stats_t unseen;		/* ACKs past what the sender sent here */
	struct u64_stats_sync syncp;
};

struct rcvmgr_net {
	struct net *net;
	struct rcvmgr_cfg __rcu *cfg;
	struct rhashtable table;
	struct list_head conns;
	spinlock_t lock;		/* table and list changes, walk_pos */
	/*
	 * while the control walk has left its RCU read-side section: the last
	 * entry it went past, or the list's head; an entry unlinked meanwhile
	 * hands the place on to the one before it
	 */
	struct list_head *walk_pos;
	/*
	 * forgotten connections that may still go on (struct rcvmgr_kept),
	 * under lock; allocated when the hooks first go in, NULL before
	 */
	struct rcvmgr_kept *kept;
	u32 kept_sets;			/* a power of two */
	u32 kept_seed;
	atomic_t count;
	struct mutex ctl_mutex;		/* the control work and config changes */
	/*
	 * config changes, one at a time; taken before RTNL and ctl_mutex,
	 * and held alone while the hooks' removal waits for a grace period
	 */
	struct mutex cfg_mutex;
	struct delayed_work tick;	/* every interval: budget, assignment, expiry */
	struct delayed_work reassign;	/* a connection came or changed state */
	unsigned long reassign_next;	/* jiffies: no reassignment before */
	atomic_t n_opening;		/* opened by a SYN, no data yet */
	bool exiting;
	bool hooked;			/* under ctl_mutex: rcvmgr_hooks_set() */

	/* under ctl_mutex; budget also read locklessly */
	u32 budget;
	bool initial_fits;		/* (1-a) at the last assignment */
	u32 n_initial;
	u32 n_persistent;
	u32 n_assigned;			/* also read locklessly */
	u64 intervals;
	u64 assignments;		/* passes, interval ends included */
	u64 budget_up;
	u64 budget_down;
	u32 splits;			/* split votes in a row */
	u32 since_probe;		/* intervals since the last probe */
	u64 probes;
	/* a probe runs until, jiffies (0: none); also read locklessly */
	unsigned long probe_end;
	struct delayed_work probe_done;	/* B for the connections again */

	atomic64_t created;
	atomic64_t freed;
	atomic64_t full;
	atomic64_t opening_full;
	atomic64_t offloaded;
	atomic64_t unscaled;
	atomic64_t adopted;
	atomic64_t resets;		/* in a window, after both SYNs (RCVMGR_F_RESET) */
	atomic64_t resumed;		/* went on after one */
	atomic64_t recalled;		/* managed again from what was kept */
	atomic64_t kept_lost;		/* kept, pushed out before their time */
	struct rcvmgr_pcpu_stats __percpu *stats;
};

#define RCVMGR_CONN_OPENING	0	/* bit of rcvmgr_conn.atomic_flags */
/*
 * bit of rcvmgr_conn.atomic_flags: a connection on its addresses and
 * ports was kept when it was made (table.c, rcvmgr_conn_insert())
 */
#define RCVMGR_CONN_KEPT	1
/*
 * A connection its sender has not sent data to for this long is left out
 * of the assignment (its share goes to the others) until it sends again
 */
#define RCVMGR_ACTIVE_NS	NSEC_PER_SEC
/*
 * A retransmission from the sender this long after a reset passed, or two
 * smoothed RTTs if longer (at most RCVMGR_RESET_LIVE_MAX_NS), left it
 * after the reset had reached it (rcvmgr_conn_live())
 */
#define RCVMGR_RESET_LIVE_NS	NSEC_PER_SEC
#define RCVMGR_RESET_LIVE_MAX_NS	(3 * NSEC_PER_SEC)
/*
 * one whose handshake the gateway did not see complete (no ACK after both
 * SYNs: a SYN unanswered or refused, a scan), data or not, is forgotten
 * once this quiet (at the end of an interval)
 */
#define RCVMGR_OPENING_IDLE_NS	(5 * NSEC_PER_SEC)
/* reassignments between intervals: at most one per this many jiffies */
#define RCVMGR_REASSIGN_GAP	msecs_to_jiffies(10)
/* an assignment that found no memory runs again this many jiffies later */
#define RCVMGR_NOMEM_RETRY	msecs_to_jiffies(100)
/*
 * room for connections that join between the count and the walk (the
 * walk takes no more than this; the rest wait for the next assignment)
 */
#define RCVMGR_ASSIGN_SLACK	64
/* an Ethernet path's MSS: the budget's steps are whole segments of it */
#define RCVMGR_SEG_ETH		1460

/* whether a probe (rcvmgr_probe_due()) runs now */
static inline bool rcvmgr_probing(const struct rcvmgr_net *rn)
{
	unsigned long end = READ_ONCE(rn->probe_end);

	return end && time_before(jiffies, end);
}

/* whether @c's sender has been quiet for RCVMGR_ACTIVE_NS as of @now (c->lock) */
static inline bool rcvmgr_quiet(const struct rcvmgr_conn *c, u64 now)
{
	return now > c->data_ns && now - c->data_ns > RCVMGR_ACTIVE_NS;
}

/* whether both ends' SYNs offered window scaling (RFC 7323: then it holds) */
static inline bool rcvmgr_scaled(const struct rcvmgr_conn *c)
{
	return (c->flags & (RCVMGR_F_SND_WS | RCVMGR_F_RCV_WS)) ==
	       (RCVMGR_F_SND_WS | RCVMGR_F_RCV_WS);
}

/* whether @c is managed and its sender has sent: it had a share (c->lock) */
static inline bool rcvmgr_carries(const struct rcvmgr_conn *c)
{
	return c->bytes && c->state != TCP_RCVMGR_STATE_UNSCALED;
}

/* ns since @c's last packet as of @now; 0 if another CPU saw one since @now */
static inline u64 rcvmgr_idle_ns(const struct rcvmgr_conn *c, u64 now)
{
	u64 last = READ_ONCE(c->last_ns);

	return now > last ? now - last : 0;
}

/* hooks.c */
int rcvmgr_hooks_set(struct rcvmgr_net *rn, bool on, u32 max_conns, bool *removed);
void rcvmgr_hooks_gone(struct rcvmgr_net *rn);
void rcvmgr_hooks_remove(struct rcvmgr_net *rn);

/* control.c */
void rcvmgr_tick(struct work_struct *work);
void rcvmgr_reassign_work(struct work_struct *work);
void rcvmgr_probe_done(struct work_struct *work);
void rcvmgr_control_start(struct rcvmgr_net *rn);

/* nl.c: the family */
extern struct genl_family rcvmgr_nl_family;
int rcvmgr_nl_register(const struct genl_split_ops *ops, unsigned int n_ops);
void rcvmgr_nl_unregister(void);
int rcvmgr_nl_reply(struct genl_info *info, struct sk_buff **msg, void **hdr);

#endif /* _TCP_RCVMGR_H */
