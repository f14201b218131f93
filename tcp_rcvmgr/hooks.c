// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_rcvmgr: rewrite the receive window that TCP receivers behind a
 * gateway advertise, so the gateway decides how the access link is shared
 * (seed 004, placed on the gateway of the receiving site).
 *
 * This file is the datapath: the netfilter hooks that see a managed
 * connection's data arrive from the WAN (forward and local in) and its
 * ACKs leave toward the WAN (forward and local out), for IPv4 and IPv6. On
 * the data the hooks count bytes and take RTT samples; on the ACKs they
 * lower the window to the connection's assignment. The entries are
 * table.c's; control.c decides the assignments (the hooks ask for one by
 * queueing its work), genl.c configures and registers the hooks.
 *
 * RTT, from the gateway to the sender and back, is sampled three ways:
 * the handshake (the receiver's SYN or SYN-ACK leaving to the sender's
 * answer arriving); with timestamps,
 * an ACK's TSval leaving to the first data echoing it (as pping does);
 * without them, an ACK leaving to the first data beyond the window edge it
 * advertised (as the Linux receiver's own estimate does, an upper bound).
 */
#include <linux/kernel.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/checksum.h>
#include <net/dsfield.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netfilter/ipv4/nf_defrag_ipv4.h>
#include <net/netfilter/ipv6/nf_defrag_ipv6.h>
#include <net/tcp.h>

#include <net/er2bc_compat.h>
#include "assign.h"
#include "rcvmgr.h"

#include "table.h"
#include "trace.h"

/* a TCP segment as the hooks see it */
struct rcvmgr_pkt {
	struct rcvmgr_key key;		/* source and destination as sent */
	unsigned int thoff;		/* TCP header, from skb->data */
	unsigned int payload;
	u8 dscp;
	struct tcphdr th;
};

/* the options the hooks read */
struct rcvmgr_opts {
	u32 tsval;
	u32 tsecr;
	u16 mss;
	u8 wscale;
	bool has_ts;
	bool has_ws;
	bool has_mss;
};

/*
 * A fragment can still reach the hooks behind the reassembly
 * (rcvmgr_defrag_enable()): one a socket of the gateway's own sends with
 * IP_NODEFRAG, one a chain before the reassembly marked notrack, an IPv6
 * fragment the reassembly passes on whole (a first fragment cut short of
 * its headers, a length not a multiple of 8). An IPv4 one is not parsed;
 * an IPv6 first fragment is, its window rewritten in place, the data past
 * it not counted.
 */
static bool rcvmgr_parse(struct sk_buff *skb, u8 pf, struct rcvmgr_pkt *p)
{
	const struct tcphdr *th;
	unsigned int hlen;

	memset(&p->key, 0, sizeof(p->key));
	if (pf == NFPROTO_IPV4) {
		const struct iphdr *iph = ip_hdr(skb);

		if (iph->protocol != IPPROTO_TCP || ip_is_fragment(iph))
			return false;
		p->key.family = AF_INET;
		memcpy(&p->key.saddr, &iph->saddr, 4);
		memcpy(&p->key.daddr, &iph->daddr, 4);
		p->dscp = ipv4_get_dsfield(iph) >> 2;
		p->thoff = skb_network_offset(skb) + iph->ihl * 4;
	} else {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);
		__be16 frag_off;
		u8 nexthdr = ip6h->nexthdr;
		int off;

		off = ipv6_skip_exthdr(skb, skb_network_offset(skb) + sizeof(*ip6h),
				       &nexthdr, &frag_off);
		if (off < 0 || nexthdr != IPPROTO_TCP || (frag_off & htons(~0x7)))
			return false;
		p->key.family = AF_INET6;
		p->key.saddr = ip6h->saddr;
		p->key.daddr = ip6h->daddr;
		p->dscp = ipv6_get_dsfield(ip6h) >> 2;
		p->thoff = off;
	}
	th = skb_header_pointer(skb, p->thoff, sizeof(p->th), &p->th);
	if (!th)
		return false;
	if (th != &p->th)
		p->th = *th;
	hlen = p->th.doff * 4;
	if (hlen < sizeof(*th) || skb->len < p->thoff + hlen)
		return false;
	p->key.sport = p->th.source;
	p->key.dport = p->th.dest;
	p->payload = skb->len - p->thoff - hlen;
	return true;
}

/* the options at @opt, @len bytes, into @o (zeroed) */
static void rcvmgr_walk_opts(const u8 *opt, int len, struct rcvmgr_opts *o)
{
	int i = 0;

	while (i < len) {
		u8 kind = opt[i], olen;

		if (kind == TCPOPT_EOL)
			break;
		if (kind == TCPOPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len)
			break;
		olen = opt[i + 1];
		if (olen < 2 || i + olen > len)
			break;
		if (kind == TCPOPT_MSS && olen == TCPOLEN_MSS) {
			o->mss = get_unaligned_be16(opt + i + 2);
			o->has_mss = true;
		} else if (kind == TCPOPT_WINDOW && olen == TCPOLEN_WINDOW) {
			o->wscale = min_t(u8, opt[i + 2], RCVMGR_WSCALE_MAX);
			o->has_ws = true;
		} else if (kind == TCPOPT_TIMESTAMP && olen == TCPOLEN_TIMESTAMP) {
			o->tsval = get_unaligned_be32(opt + i + 2);
			o->tsecr = get_unaligned_be32(opt + i + 6);
			o->has_ts = true;
		}
		i += olen;
	}
}

/* options not all in the skb's head: copied out first */
static noinline void rcvmgr_parse_opts_copy(const struct sk_buff *skb, unsigned int off,
					    int len, struct rcvmgr_opts *o)
{
	u8 buf[MAX_TCP_OPTION_SPACE];
	const u8 *opt = skb_header_pointer(skb, off, len, buf);

	if (opt)
		rcvmgr_walk_opts(opt, len, o);
}

/*
 * The options the hooks read. A segment that carries only a timestamp, in
 * the layout Linux and most stacks send after the handshake (NOP, NOP,
 * TS: tcp_parse_aligned_timestamp()), is read in one step: every ACK
 * comes here.
 */
static void rcvmgr_parse_opts(const struct sk_buff *skb, const struct rcvmgr_pkt *p,
			      struct rcvmgr_opts *o)
{
	int len = p->th.doff * 4 - sizeof(struct tcphdr);
	unsigned int off = p->thoff + sizeof(struct tcphdr);
	const u8 *opt;

	memset(o, 0, sizeof(*o));
	if (len <= 0)
		return;
	if (unlikely(off + len > skb_headlen(skb))) {
		rcvmgr_parse_opts_copy(skb, off, len, o);
		return;
	}
	opt = skb->data + off;
	if (len == TCPOLEN_TSTAMP_ALIGNED &&
	    get_unaligned_be32(opt) == ((TCPOPT_NOP << 24) | (TCPOPT_NOP << 16) |
					(TCPOPT_TIMESTAMP << 8) | TCPOLEN_TIMESTAMP)) {
		o->tsval = get_unaligned_be32(opt + 4);
		o->tsecr = get_unaligned_be32(opt + 8);
		o->has_ts = true;
		return;
	}
	rcvmgr_walk_opts(opt, len, o);
}

static bool rcvmgr_lan(const struct rcvmgr_cfg *cfg, const struct rcvmgr_key *k,
		       const struct in6_addr *a)
{
	int i;

	for (i = 0; i < cfg->n_lan; i++)
		if (er2bc_prefix_match(&cfg->lan[i], k->family, a))
			return true;
	return false;
}

static bool rcvmgr_wan(const struct rcvmgr_cfg *cfg, const struct net_device *dev)
{
	int i;

	if (!dev)
		return false;
	for (i = 0; i < cfg->n_wan; i++)
		if (cfg->wan[i] == dev->ifindex)
			return true;
	return false;
}

enum rcvmgr_dir { RCVMGR_NONE, RCVMGR_DATA, RCVMGR_ACK };

/*
 * Data arrives through a WAN device for a LAN address; ACKs leave through a
 * WAN device from a LAN address. Without WAN devices, the side a packet's
 * addresses are on decides; without LAN prefixes, the devices do.
 */
static enum rcvmgr_dir rcvmgr_direction(const struct rcvmgr_cfg *cfg,
					const struct nf_hook_state *state,
					const struct rcvmgr_key *k)
{
	bool s_lan, d_lan;

	if (cfg->n_wan) {
		bool in = rcvmgr_wan(cfg, state->in), out = rcvmgr_wan(cfg, state->out);

		if (in == out)
			return RCVMGR_NONE;
		if (!cfg->n_lan)
			return in ? RCVMGR_DATA : RCVMGR_ACK;
		if (in)
			return rcvmgr_lan(cfg, k, &k->daddr) ? RCVMGR_DATA : RCVMGR_NONE;
		return rcvmgr_lan(cfg, k, &k->saddr) ? RCVMGR_ACK : RCVMGR_NONE;
	}
	s_lan = rcvmgr_lan(cfg, k, &k->saddr);
	d_lan = rcvmgr_lan(cfg, k, &k->daddr);
	if (s_lan == d_lan)
		return RCVMGR_NONE;
	return d_lan ? RCVMGR_DATA : RCVMGR_ACK;
}

static u32 rcvmgr_priority(const struct rcvmgr_cfg *cfg, const struct rcvmgr_pkt *p,
			   u32 mark)
{
	u16 sport = ntohs(p->key.sport), dport = ntohs(p->key.dport);
	int i;

	for (i = 0; i < cfg->n_rules; i++) {
		const struct rcvmgr_rule *r = &cfg->rules[i];

		if (r->has_port &&
		    !(sport >= r->port_min && sport <= r->port_max) &&
		    !(dport >= r->port_min && dport <= r->port_max))
			continue;
		if (r->dscp >= 0 && r->dscp != p->dscp)
			continue;
		if (r->mark_mask && (mark & r->mark_mask) != r->mark)
			continue;
		return r->priority;
	}
	return 1;
}

/*
 * Ask for a new assignment. Kicks coalesce: the control work runs at most
 * once per RCVMGR_REASSIGN_GAP, however many connections come and go
 */
static void rcvmgr_kick(struct rcvmgr_net *rn)
{
	unsigned long next = READ_ONCE(rn->reassign_next), now = jiffies;

	if (!READ_ONCE(rn->exiting))
		queue_delayed_work(system_dfl_wq, &rn->reassign,
				   time_before(now, next) ? next - now : 0);
}

/* @k, a packet from the receiver, turned into its connection's key: named from the sender */
static void rcvmgr_sender_key(struct rcvmgr_key *k)
{
	swap(k->saddr, k->daddr);
	swap(k->sport, k->dport);
}

/* the window a new connection starts with, until the control work sees it */
static u32 rcvmgr_first_window(const struct rcvmgr_net *rn, const struct rcvmgr_cfg *cfg,
			       u32 mss)
{
	switch (cfg->policy) {
	case TCP_RCVMGR_POLICY_AZUMA:
		return rcvmgr_slow_start_window(0, mss, cfg->initial_window);
	case TCP_RCVMGR_POLICY_EQUAL:
		return max(READ_ONCE(rn->budget) / (READ_ONCE(rn->n_assigned) + 1), mss);
	default:
		return RCVMGR_WINDOW_MAX;
	}
}

/*
 * Entries opened by a SYN that have not carried data (a SYN flood, a scan,
 * connections that never complete) take at most half the table, so that
 * connections with data still find room
 */
static u32 rcvmgr_opening_max(const struct rcvmgr_cfg *cfg)
{
	return max(cfg->max_conns / 2, 1U);
}

/*
 * What conntrack saw of a connection's handshake, for one the gateway first
 * sees after it (rcvmgr_ct_handshake())
 */
struct rcvmgr_hs {
	u8 snd_wscale;
	u8 rcv_wscale;
	bool rcv_opened;	/* the receiver sent the first SYN: a download */
	bool ts;		/* they agreed on timestamps */
	bool closing;		/* conntrack saw a FIN or a reset */
	bool kept;		/* not conntrack's: what the gateway kept */
	u32 carried_kib;	/* (kept) what it carried before, KiB */
};

/* @c (new, or under its lock) managed from what conntrack saw, or was kept, @hs */
static void rcvmgr_conn_adopt(struct rcvmgr_net *rn, struct rcvmgr_conn *c,
			      const struct rcvmgr_hs *hs)
{
	c->state = hs->closing ? TCP_RCVMGR_STATE_CLOSING : TCP_RCVMGR_STATE_PERSISTENT;
	c->flags |= RCVMGR_F_HANDSHAKE | RCVMGR_F_ESTABLISHED | RCVMGR_F_SND_WS | RCVMGR_F_RCV_WS;
	/* a download's priority is its receiver's: from its next ACK */
	if (hs->rcv_opened)
		c->flags |= RCVMGR_F_RCV_OPENED | RCVMGR_F_PRIO_ACK;
	if (hs->ts)
		c->flags |= RCVMGR_F_TS;
	if (hs->kept) {
		c->flags |= RCVMGR_F_RECALLED;
		/*
		 * it goes on from what it carried before it was forgotten: a
		 * long transfer stays long (the spring policy's classes, and
		 * what is kept of it next time); not this round's flight. An
		 * entry a SYN opened no longer counts as opening, as with any
		 * data (rcvmgr_data_count(), which looks at the bytes).
		 */
		c->bytes += (u64)hs->carried_kib << 10;
		c->round_bytes += (u64)hs->carried_kib << 10;
		rcvmgr_conn_clear_opening(rn, c);
	}
	/* what an entry opened in place timed is no round trip of this one's */
	c->hs_ns = 0;
	c->ts_ns = 0;
	c->edge_ns = 0;
	c->snd_wscale = hs->snd_wscale;
	c->rcv_wscale = hs->rcv_wscale;
	c->wscale = hs->rcv_wscale;
	/*
	 * The edge offered before the entry was forgotten is lost: the first
	 * window is an equal share, not slow start's first (a few segments,
	 * far below what the sender was offered), until the control work,
	 * kicked by this data, assigns its share
	 */
	if (READ_ONCE(c->window) != RCVMGR_WINDOW_MAX)
		WRITE_ONCE(c->window, max(READ_ONCE(rn->budget) / (READ_ONCE(rn->n_assigned) + 1),
					  2 * c->mss));
}

/*
 * A new entry: opened by a SYN (@syn; from the receiver if @rcv_opens), or
 * first seen after its handshake: managed if conntrack saw that, or the
 * gateway kept it when it forgot it (@hs, a persistent connection with
 * the scales seen), else unscaled. It takes no share of the budget
 * before its sender's first data (rcvmgr_data() asks for the assignment
 * then).
 */
static struct rcvmgr_conn *rcvmgr_conn_new(struct rcvmgr_net *rn, const struct rcvmgr_cfg *cfg,
					   const struct rcvmgr_pkt *p, u32 mark, u64 now,
					   bool syn, bool rcv_opens, const struct rcvmgr_hs *hs)
{
	struct rcvmgr_conn *c;
	int err = 0;

	if (atomic_read(&rn->count) >= cfg->max_conns) {
		if (syn)
			atomic64_inc(&rn->full);
		return NULL;
	}
	if (syn && atomic_read(&rn->n_opening) >= rcvmgr_opening_max(cfg)) {
		atomic64_inc(&rn->opening_full);
		return NULL;
	}
	c = kmem_cache_zalloc(rcvmgr_conn_cache, GFP_ATOMIC);
	if (!c)
		return NULL;
	c->key = p->key;
	refcount_set(&c->ref, 1);
	spin_lock_init(&c->lock);
	c->state = syn ? TCP_RCVMGR_STATE_INITIAL : TCP_RCVMGR_STATE_UNSCALED;
	if (syn)
		c->isn = ntohl(p->th.seq);
	if (syn && rcv_opens)
		c->flags |= RCVMGR_F_RCV_OPENED;
	c->mss = p->key.family == AF_INET ? TCP_MSS_DEFAULT : IPV6_MIN_MTU - 60;
	c->priority = rcvmgr_priority(cfg, p, mark);
	c->created_ns = now;
	c->last_ns = now;
	c->window = rcvmgr_first_window(rn, cfg, c->mss);
	c->demand = U32_MAX;
	if (hs)
		rcvmgr_conn_adopt(rn, c, hs);

	err = rcvmgr_conn_insert(rn, c, cfg->max_conns, syn ? rcvmgr_opening_max(cfg) : 0);
	if (err) {
		if (err == -ENOSPC && syn)
			atomic64_inc(&rn->full);
		else if (err == -EBUSY)
			atomic64_inc(&rn->opening_full);
		kmem_cache_free(rcvmgr_conn_cache, c);
		return NULL;
	}
	atomic64_inc(&rn->created);
	if (hs)
		atomic64_inc(hs->kept ? &rn->recalled : &rn->adopted);
	else if (!syn)
		atomic64_inc(&rn->unscaled);
	return c;
}

/* how long a connection must have been quiet for a SYN to reopen it */
#define RCVMGR_REOPEN_QUIET_NS	NSEC_PER_SEC

/*
 * Whether a SYN with another sequence number than the one that opened @c,
 * from the same end (@rcv_opens: the receiver), opens a new connection on
 * its addresses and ports: a client restarted, a port reused, after an
 * end the gateway did not see. Not while @c still carries packets: an
 * endpoint answers such a SYN with a challenge ACK (RFC 5961 4.2) and
 * keeps the connection, and so does the gateway. A SYN from the other end
 * never does: from the WAN into a download, it can only be forged. Nor
 * one before the other end answered: the answer may be to either SYN
 * (one may die past the gateway), and the entry takes what both offered
 * (rcvmgr_rcv_syn_more()).
 */
static bool rcvmgr_reopened(struct rcvmgr_conn *c, const struct rcvmgr_pkt *p, u64 now,
			    bool rcv_opens)
{
	bool done, same_end;

	if (c->isn == ntohl(p->th.seq))
		return false;		/* its SYN again */
	spin_lock(&c->lock);
	done = (c->flags & RCVMGR_F_HANDSHAKE) == RCVMGR_F_HANDSHAKE;
	same_end = !!(c->flags & RCVMGR_F_RCV_OPENED) == rcv_opens;
	spin_unlock(&c->lock);
	return same_end && done && rcvmgr_idle_ns(c, now) >= RCVMGR_REOPEN_QUIET_NS;
}

/*
 * The connection a SYN opens: @c if it is the same one, or a new one in
 * place of @c: one that ended on the same addresses and ports, or one
 * reopened (rcvmgr_reopened()). The new one starts from its own
 * handshake: its window scale, its right edge.
 */
static struct rcvmgr_conn *rcvmgr_conn_fresh(struct rcvmgr_net *rn, const struct rcvmgr_cfg *cfg,
					     struct rcvmgr_conn *c, const struct rcvmgr_pkt *p,
					     u32 mark, u64 now, bool rcv_opens)
{
	if (c && (c->state == TCP_RCVMGR_STATE_CLOSING ||
		  c->state == TCP_RCVMGR_STATE_UNSCALED ||
		  rcvmgr_idle_ns(c, now) > (u64)cfg->idle_ms * NSEC_PER_MSEC ||
		  rcvmgr_reopened(c, p, now, rcv_opens))) {
		/*
		 * (a managed one is kept: the SYN may be a LAN host's own,
		 * forged into its download, which goes on)
		 */
		rcvmgr_conn_forget(rn, c, true, now);
		c = NULL;
	}
	return c ? c : rcvmgr_conn_new(rn, cfg, p, mark, now, true, rcv_opens, NULL);
}

/*
 * During a probe, samples only teach the least RTT: the queue was drained
 * on purpose, and the smoothed RTT (the weights) and the interval's mean
 * that votes are left to the others
 */
static void rcvmgr_rtt_sample(struct rcvmgr_net *rn, struct rcvmgr_conn *c, u64 ns)
{
	u32 us = min_t(u64, div_u64(ns, NSEC_PER_USEC), U32_MAX);
	struct rcvmgr_pcpu_stats *st;

	if (!us)
		us = 1;
	if (!c->rtt_min_us || us < c->rtt_min_us)
		c->rtt_min_us = us;
	c->rtt_samples++;
	/* (a connection's first sample is its smoothed RTT, probe or not) */
	if (!rcvmgr_probing(rn) || !c->srtt_us) {
		c->srtt_us = c->srtt_us ? c->srtt_us - (c->srtt_us >> 3) + (us >> 3) : us;
		c->rtt_sum_us += us;
		c->rtt_cnt++;
	}
	st = this_cpu_ptr(rn->stats);
	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->rtt_samples);
	u64_stats_update_end(&st->syncp);
}

/* the receiver's ACKs may be rewritten once both ends' SYNs were seen */
static void rcvmgr_handshake_done(struct rcvmgr_conn *c)
{
	if ((c->flags & RCVMGR_F_HANDSHAKE) != RCVMGR_F_HANDSHAKE)
		return;
	c->wscale = rcvmgr_scaled(c) ? c->rcv_wscale : 0;
	if ((c->flags & RCVMGR_F_TS) != RCVMGR_F_TS)
		c->flags &= ~RCVMGR_F_TS;
}

/* the sender's SYN or SYN-ACK @p, the first, under c->lock: its options */
static void rcvmgr_snd_syn(struct rcvmgr_conn *c, const struct rcvmgr_pkt *p,
			   const struct rcvmgr_opts *o)
{
	if (p->th.ack)
		c->ans_isn = ntohl(p->th.seq);
	c->flags |= RCVMGR_F_SND_SYN;
	if (o->has_ws) {
		c->flags |= RCVMGR_F_SND_WS;
		c->snd_wscale = o->wscale;
	}
	if (o->has_ts)
		c->flags |= RCVMGR_F_SND_TS;
	rcvmgr_handshake_done(c);
}

/* the receiver's SYN or SYN-ACK @p, the first, under c->lock: its options */
static void rcvmgr_rcv_syn(struct rcvmgr_conn *c, const struct rcvmgr_pkt *p,
			   const struct rcvmgr_opts *o, u64 now)
{
	if (p->th.ack)
		c->ans_isn = ntohl(p->th.seq);
	c->flags |= RCVMGR_F_RCV_SYN;
	if (o->has_ws) {
		c->flags |= RCVMGR_F_RCV_WS;
		c->rcv_wscale = o->wscale;
	}
	if (o->has_ts)
		c->flags |= RCVMGR_F_RCV_TS;
	/* the most the sender may put in a segment */
	if (o->has_mss && o->mss)
		c->mss = o->mss;
	c->hs_ns = now;
	rcvmgr_handshake_done(c);
}

/*
 * Another SYN or SYN-ACK @o from the receiver, under c->lock, before the
 * handshake's last ACK: the other end may have seen this one, not the
 * first (which may have died past the gateway). The largest window scale
 * offered is kept: one larger than the other end saw only lowers the
 * windows of the receiver that offered it; a smaller one would let them
 * pass unlowered.
 */
static void rcvmgr_rcv_syn_more(struct rcvmgr_conn *c, const struct rcvmgr_opts *o)
{
	if (!o->has_ws || ((c->flags & RCVMGR_F_RCV_WS) && o->wscale <= c->rcv_wscale))
		return;
	c->flags |= RCVMGR_F_RCV_WS;
	c->rcv_wscale = o->wscale;
	rcvmgr_handshake_done(c);
}

/*
 * A SYN @p from the end that opened @c, under c->lock, that did not open
 * a new connection in its place (rcvmgr_reopened(): the old one still
 * carried packets). After a reset passed, one with another number may
 * open a new connection on the same addresses and ports at once (the reset
 * ended the old one at its end), or the old one goes on and its end
 * answers the SYN with a challenge ACK (RFC 5961 4.2): noted until the
 * other end answers with a SYN-ACK (rcvmgr_reopen_answered()) or the old
 * connection shows it went on. The SYNs noted since the reset merge: any
 * of them may be the one answered (another may have died past the
 * gateway), and the largest window scale offered is the one kept (one
 * larger than the answered SYN's only lowers the windows of the end that
 * offered it; a smaller one would let them pass), the smallest MSS too.
 */
static void rcvmgr_reopen_note(struct rcvmgr_conn *c, const struct sk_buff *skb,
			       const struct rcvmgr_pkt *p, const struct rcvmgr_opts *o)
{
	struct rcvmgr_syn *r = &c->reopen;
	u32 seq = ntohl(p->th.seq);

	/* (its first SYN again, before the last ACK: rcvmgr_rcv_syn_more()) */
	if (!(c->flags & RCVMGR_F_RESET) ||
	    (seq == c->isn && !(c->flags & RCVMGR_F_ESTABLISHED)))
		return;
	if (!(c->flags & RCVMGR_F_REOPEN)) {
		c->flags |= RCVMGR_F_REOPEN;
		*r = (struct rcvmgr_syn) { .rcv = !!(c->flags & RCVMGR_F_RCV_OPENED) };
	}
	r->isn = seq;
	r->end = seq + 1 + p->payload;
	r->mark = skb->mark;
	r->dscp = p->dscp;
	if (o->has_ws) {
		r->wscale = r->has_ws ? max(r->wscale, o->wscale) : o->wscale;
		r->has_ws = true;
	}
	r->has_ts |= o->has_ts;
	if (o->has_mss && o->mss && (!r->mss || o->mss < r->mss))
		r->mss = o->mss;
}

/*
 * Whether @p, a SYN-ACK from the receiver (@from_rcv) or the sender,
 * answers a SYN its other end sent on @c after a reset
 * (rcvmgr_reopen_note()): the old connection ended there, and this is a
 * new one. An end answers a SYN with a SYN-ACK only when it holds no
 * connection on these ports; while the old one goes on, it answers with
 * a challenge ACK. A SYN-ACK of the old handshake (its number) answers
 * nothing new. Then the note is taken into
 * *@r (one SYN-ACK of several on other CPUs takes it), its SYN the one
 * this acknowledges, and *@carried tells whether @c had a share. A LAN
 * host cannot make the SYN-ACK of its own download (with wan devices
 * set); a forger on the WAN side can only while a reconnection is noted,
 * and then builds the entry the noted SYNs would have built.
 */
static bool rcvmgr_reopen_answered(struct rcvmgr_conn *c, const struct rcvmgr_pkt *p,
				   bool from_rcv, struct rcvmgr_syn *r, bool *carried)
{
	u32 ack = ntohl(p->th.ack_seq);
	bool yes;

	spin_lock(&c->lock);
	yes = (c->flags & RCVMGR_F_REOPEN) && !(c->flags & RCVMGR_F_RCV_OPENED) == from_rcv &&
	      ntohl(p->th.seq) != c->ans_isn;
	if (yes) {
		c->flags &= ~RCVMGR_F_REOPEN;
		*r = c->reopen;
		/* (with Fast Open's data acknowledged, the latest SYN's end) */
		if (ack != r->end) {
			r->isn = ack - 1;
			r->end = ack;
		}
		*carried = rcvmgr_carries(c);
	}
	spin_unlock(&c->lock);
	return yes;
}

/*
 * The new connection whose SYN-ACK answered the SYN @r noted on @c
 * (rcvmgr_reopen_answered()), in @c's place, as that SYN would have opened
 * it; the SYN-ACK is then taken as any. NULL if the table has no room, or
 * another entry took the place first (data of the old connection still in
 * flight, on another CPU).
 */
static struct rcvmgr_conn *rcvmgr_conn_reborn(struct rcvmgr_net *rn,
					      const struct rcvmgr_cfg *cfg,
					      struct rcvmgr_conn *c, const struct rcvmgr_syn *r,
					      u64 now)
{
	struct rcvmgr_pkt syn = { .key = c->key };
	struct rcvmgr_conn *n;
	struct rcvmgr_opts o;

	rcvmgr_conn_unlink(rn, c);

	syn.th.syn = 1;
	syn.th.seq = htonl(r->isn);
	syn.dscp = r->dscp;
	n = rcvmgr_conn_new(rn, cfg, &syn, r->mark, now, true, r->rcv, NULL);
	if (!n)
		return NULL;
	o = (struct rcvmgr_opts) {
		.mss = r->mss,
		.wscale = r->wscale,
		.has_ts = r->has_ts,
		.has_ws = r->has_ws,
		.has_mss = r->mss != 0,
	};
	spin_lock(&n->lock);
	if (r->rcv) {
		rcvmgr_rcv_syn(n, &syn, &o, now);
		n->hs_ns = 0;	/* (the SYN's own time is not kept: no sample) */
	} else {
		rcvmgr_snd_syn(n, &syn, &o);
		n->snd_nxt = r->end;
		n->flags |= RCVMGR_F_SND_NXT;
	}
	spin_unlock(&n->lock);
	return n;
}

/*
 * Whether a reset or a FIN from one end lies in the other's receive
 * window, from ACK (its last ACK: RCV.NXT as far as the gateway knows) to
 * ACK + WND (RFC 5961 section 3.2; ACK itself when the window is closed).
 * One outside it is one the endpoint drops, a blind guess from off the
 * path, and it does not end the connection here either. @known: an ACK
 * was seen; without one (a reset answering a SYN) there is nothing to
 * check against.
 */
static bool rcvmgr_in_window(u32 seq, u32 ack, u32 wnd, bool known)
{
	return !known || (!before(seq, ack) && !after(seq, ack + wnd));
}

/*
 * A reset @p inside @c's window, from the receiver (@from_rcv) or the
 * sender, under c->lock; true if the entry is to be forgotten now. The
 * gateway cannot tell whether the reset reached its end: one inexact (RFC
 * 5961 3.2: its end answers with a challenge ACK and goes on) or lost past
 * the gateway ends nothing, in the handshake as after it. So the
 * connection stays as it is. Once both SYNs passed, it is forgotten once
 * quiet for RCVMGR_RESET_LINGER_NS instead of idle-timeout, unless it
 * shows it went on (rcvmgr_conn_resumed(), rcvmgr_conn_live()); one that
 * ended is quiet and takes no share after RCVMGR_ACTIVE_NS. Before, it is
 * an opening entry, forgotten once quiet for RCVMGR_OPENING_IDLE_NS.
 * Forgotten at once: a download refused (the sender's reset acknowledging
 * exactly the receiver's SYN, the only one a SYN-SENT end takes: RFC 9293
 * 3.10.7.3; a LAN host cannot send from the WAN), one closing (its
 * sender's FIN passed: the commonest end; no data can follow) or
 * unmanaged (*@kick if it had a share: it gives it back).
 */
static bool rcvmgr_conn_reset(struct rcvmgr_net *rn, struct rcvmgr_conn *c,
			      const struct rcvmgr_pkt *p, bool from_rcv, u64 now, bool *kick)
{
	if (c->state == TCP_RCVMGR_STATE_UNSCALED || c->state == TCP_RCVMGR_STATE_CLOSING) {
		if (rcvmgr_carries(c))
			*kick = true;
		return true;
	}
	if ((c->flags & RCVMGR_F_HANDSHAKE) != RCVMGR_F_HANDSHAKE)
		return !from_rcv && (c->flags & RCVMGR_F_RCV_OPENED) && p->th.ack &&
		       ntohl(p->th.ack_seq) == c->isn + 1;
	if (!(c->flags & RCVMGR_F_SND_NXT))
		return false;
	if (!(c->flags & RCVMGR_F_RESET)) {
		c->flags |= RCVMGR_F_RESET;
		/*
		 * Data in flight when the reset passed may still come, up to
		 * the right edge offered until then, and the receiver may
		 * acknowledge it before the reset reaches it: only data past
		 * that edge was sent after the receiver's ACKs went on
		 */
		c->rst_edge = c->edge.valid && after(c->edge.seq, c->snd_nxt) ?
			      c->edge.seq : c->snd_nxt;
		c->rst_ns = now;
		atomic64_inc(&rn->resets);
	}
	return false;
}

/*
 * the reset that passed in @c did not end it, under c->lock: it lives to
 * idle-timeout again. (A SYN noted meanwhile opened nothing: its end kept
 * this one.)
 */
static void rcvmgr_conn_went_on(struct rcvmgr_net *rn, struct rcvmgr_conn *c)
{
	c->flags &= ~(RCVMGR_F_RESET | RCVMGR_F_REOPEN);
	atomic64_inc(&rn->resumed);
}

/*
 * an ACK from the receiver, @ack, under c->lock: if it covers data sent
 * after a reset that passed was answered, the connection went on
 */
static void rcvmgr_conn_resumed(struct rcvmgr_net *rn, struct rcvmgr_conn *c, u32 ack)
{
	if (likely(!(c->flags & RCVMGR_F_RESET)) || !after(ack, c->rst_edge))
		return;
	rcvmgr_conn_went_on(rn, c);
}

/*
 * a retransmission from the sender, under c->lock: if it left the sender
 * after a reset that passed had reached it, the connection went on. An
 * end that takes a reset sends nothing more; one that ignored it (an
 * inexact one, RFC 5961 3.2) or never got it (lost past the gateway)
 * retransmits while the receiver is quiet. So a receiver that stays
 * quiet after its reset, past RCVMGR_RESET_LINGER_NS, keeps its entry
 * while the sender retransmits, and finds it managed when it goes on,
 * where it would otherwise come back as a new unscaled entry, its windows
 * out of the policy. What the sender sent before the reset reached it,
 * retransmissions of a loss recovery among it, comes within a round trip:
 * only one two smoothed RTTs after the reset counts, at least
 * RCVMGR_RESET_LIVE_NS and at most RCVMGR_RESET_LIVE_MAX_NS (the receiver
 * can lift the smoothed RTT with timestamps the sender drops). (@now was
 * read before c->lock: a reset on another CPU may be later.)
 */
static void rcvmgr_conn_live(struct rcvmgr_net *rn, struct rcvmgr_conn *c, u64 now)
{
	u64 wait = clamp_t(u64, 2ULL * c->srtt_us * NSEC_PER_USEC, RCVMGR_RESET_LIVE_NS,
			   RCVMGR_RESET_LIVE_MAX_NS);

	if (now > c->rst_ns && now - c->rst_ns >= wait)
		rcvmgr_conn_went_on(rn, c);
}

/* the sender's FIN, under c->lock: closing */
static void rcvmgr_conn_fin(struct rcvmgr_conn *c, bool *kick)
{
	if (c->state == TCP_RCVMGR_STATE_CLOSING)
		return;
	/* one that had a share gives it back */
	if (rcvmgr_carries(c))
		*kick = true;
	c->state = TCP_RCVMGR_STATE_CLOSING;
}

/*
 * whether the gateway knows an end's window: @seen, an ACK from it (or its
 * SYN-ACK), on a connection whose handshake it saw
 */
static bool rcvmgr_ack_known(const struct rcvmgr_conn *c, bool seen)
{
	return seen && c->state != TCP_RCVMGR_STATE_UNSCALED;
}

/*
 * The window scales of @skb's connection, a segment from its sender, if
 * conntrack saw both SYNs offer the option (it records them from the
 * handshake; a connection it picks up mid-stream has none). A connection
 * whose entry was forgotten while it went on (quiet past idle-timeout, or
 * past RCVMGR_RESET_LINGER_NS after a reset in its window that did not end
 * it, a flowtable that handed it back), or whose
 * handshake the gateway did not see whole, is then managed, not left to
 * pass unmanaged. Not one conntrack saw end (TIME_WAIT): what trails its
 * end is no connection. One conntrack saw a FIN or a reset of is adopted
 * closing: its window is held, it takes no share, and it is forgotten once
 * quiet.
 */
static bool rcvmgr_ct_handshake(const struct sk_buff *skb, struct rcvmgr_hs *hs)
{
#if IS_ENABLED(CONFIG_NF_CONNTRACK)
	const struct ip_ct_tcp_state *snd, *rcv;
	enum ip_conntrack_info ctinfo;
	struct nf_conn *ct = nf_ct_get(skb, &ctinfo);
	enum ip_conntrack_dir dir;
	bool known;
	u8 state;

	if (!ct || nf_ct_is_template(ct) || nf_ct_protonum(ct) != IPPROTO_TCP)
		return false;
	dir = CTINFO2DIR(ctinfo);
	snd = &ct->proto.tcp.seen[dir];
	rcv = &ct->proto.tcp.seen[!dir];
	/* conntrack rewrites them when it resynchronises: under its lock */
	spin_lock(&ct->lock);
	state = ct->proto.tcp.state;
	known = (snd->flags & rcv->flags & IP_CT_TCP_FLAG_WINDOW_SCALE) &&
		state != TCP_CONNTRACK_TIME_WAIT;
	hs->snd_wscale = min_t(u8, snd->td_scale, TCP_MAX_WSCALE);
	hs->rcv_wscale = min_t(u8, rcv->td_scale, TCP_MAX_WSCALE);
	spin_unlock(&ct->lock);
	hs->rcv_opened = dir == IP_CT_DIR_REPLY;
	hs->closing = state != TCP_CONNTRACK_ESTABLISHED;
	return known;
#else
	return false;
#endif
}

/*
 * @p carries data and nothing of its connection's start or end: what an
 * entry may be built, or adopted, from mid-stream
 */
static bool rcvmgr_midstream(const struct rcvmgr_pkt *p)
{
	return p->payload && !p->th.syn && !p->th.rst && !p->th.fin;
}

/* what conntrack would say of a connection, from what was kept of it, @k */
static void rcvmgr_kept_hs(const struct rcvmgr_kept *k, struct rcvmgr_hs *hs)
{
	*hs = (struct rcvmgr_hs) {
		.snd_wscale = k->snd_wscale,
		.rcv_wscale = k->rcv_wscale,
		.rcv_opened = k->rcv_opened,
		.ts = k->ts,
		.kept = true,
		.carried_kib = k->carried_kib,
	};
}

/*
 * An entry for data from the sender, @p, first seen after its handshake
 * when conntrack does not know it: managed again from what the gateway
 * kept of it, if it forgot it while it may have gone on (rcvmgr_kept_take():
 * quiet past idle-timeout, or past RCVMGR_RESET_LINGER_NS after a reset
 * that did not end it), else tracked unscaled, never rewritten
 */
static struct rcvmgr_conn *rcvmgr_conn_recall(struct rcvmgr_net *rn,
					      const struct rcvmgr_cfg *cfg,
					      const struct rcvmgr_pkt *p, u32 mark, u64 now)
{
	u32 seq = ntohl(p->th.seq);
	struct rcvmgr_conn *c;
	struct rcvmgr_kept k;
	struct rcvmgr_hs hs;

	/* (a full table takes no lock: a flood of such data fills it) */
	if (atomic_read(&rn->count) >= cfg->max_conns ||
	    rcvmgr_kept_take(rn, &p->key, seq, seq + p->payload, now, &k) != RCVMGR_KEPT_TAKEN)
		return rcvmgr_conn_new(rn, cfg, p, mark, now, false, false, NULL);
	rcvmgr_kept_hs(&k, &hs);
	c = rcvmgr_conn_new(rn, cfg, p, mark, now, false, false, &hs);
	/*
	 * (the table full, or another CPU's entry first: kept for later, and
	 * that entry looks at it)
	 */
	if (!c)
		rcvmgr_kept_put(rn, &k, now);
	return c;
}

/*
 * The entry a segment from the sender belongs to: the one a SYN of its
 * opens (an upload to a LAN server), the one it is tracked under, or one
 * built for it first seen after its handshake (managed if conntrack saw
 * that or the gateway kept it, else tracked, never rewritten; *@asked:
 * conntrack was asked)
 */
static struct rcvmgr_conn *rcvmgr_data_conn(struct rcvmgr_net *rn, const struct rcvmgr_cfg *cfg,
					    struct sk_buff *skb, const struct rcvmgr_pkt *p,
					    const struct rcvmgr_opts *o, u64 now, bool *asked)
{
	/* both ends send timestamps once they agreed to (RFC 7323) */
	struct rcvmgr_hs hs = { .ts = o->has_ts };
	struct rcvmgr_conn *c;
	struct rcvmgr_syn r;
	bool carried;

	c = rhashtable_lookup(&rn->table, &p->key, rcvmgr_rht_params);
	if (p->th.syn && !p->th.ack)
		return rcvmgr_conn_fresh(rn, cfg, c, p, skb->mark, now, false);
	if (c && p->th.syn && rcvmgr_reopen_answered(c, p, false, &r, &carried)) {
		if (carried)
			rcvmgr_kick(rn);	/* it gives its share back */
		return rcvmgr_conn_reborn(rn, cfg, c, &r, now);
	}
	if (c || !rcvmgr_midstream(p))
		return c;
	*asked = true;
	if (rcvmgr_ct_handshake(skb, &hs))
		return rcvmgr_conn_new(rn, cfg, p, skb->mark, now, false, false, &hs);
	return rcvmgr_conn_recall(rn, cfg, p, skb->mark, now);
}

/*
 * Data on an entry that cannot be managed (first seen mid-stream when
 * conntrack did not know it, or opened by a SYN whose answer never passed
 * here): managed from now on if conntrack saw the handshake. Under c->lock;
 * whether it now asks for a share.
 */
static bool rcvmgr_data_adopt(struct rcvmgr_net *rn, struct rcvmgr_conn *c,
			      const struct sk_buff *skb, const struct rcvmgr_pkt *p,
			      const struct rcvmgr_opts *o)
{
	struct rcvmgr_hs hs = { .ts = o->has_ts };

	if (likely(c->state != TCP_RCVMGR_STATE_UNSCALED && (c->flags & RCVMGR_F_SND_SYN)) ||
	    !rcvmgr_midstream(p) || !rcvmgr_ct_handshake(skb, &hs))
		return false;
	rcvmgr_conn_adopt(rn, c, &hs);
	atomic64_inc(&rn->adopted);
	return true;
}

/*
 * Mid-stream data on an entry made while a connection on its addresses
 * and ports was kept (RCVMGR_CONN_KEPT), under c->lock; @took, what
 * rcvmgr_kept_take() found for it, @k (RCVMGR_KEPT_TAKEN). An entry that
 * cannot be managed (tracked unscaled, or opened by a SYN the other end
 * did not answer: a LAN host's own, forged into its download) is that
 * connection come back: managed again from @k. One managed by a
 * handshake of its own is another connection, and one closing has
 * nothing to come; neither looks again, nor does one with nothing kept
 * for it. Whether it was managed again.
 */
static bool rcvmgr_data_recall(struct rcvmgr_net *rn, struct rcvmgr_conn *c,
			       enum rcvmgr_kept_took took, const struct rcvmgr_kept *k)
{
	struct rcvmgr_hs hs;

	if ((c->state != TCP_RCVMGR_STATE_UNSCALED && (c->flags & RCVMGR_F_SND_SYN)) ||
	    c->state == TCP_RCVMGR_STATE_CLOSING || took == RCVMGR_KEPT_NONE) {
		clear_bit(RCVMGR_CONN_KEPT, &c->atomic_flags);
		return false;
	}
	if (took != RCVMGR_KEPT_TAKEN)
		return false;
	clear_bit(RCVMGR_CONN_KEPT, &c->atomic_flags);
	rcvmgr_kept_hs(k, &hs);
	rcvmgr_conn_adopt(rn, c, &hs);
	atomic64_inc(&rn->recalled);
	return true;
}

/*
 * What a segment tells of the sender's own end, under c->lock: its SYN's
 * options; and its receive window, for the receiver's resets, from its
 * SYN-ACK to this connection's SYN (unscaled), then its ACKs, which only
 * move it forward
 */
static void rcvmgr_data_sender(struct rcvmgr_conn *c, const struct rcvmgr_pkt *p,
			       const struct rcvmgr_opts *o)
{
	const struct tcphdr *th = &p->th;
	bool scaled = false, take;
	u32 a;

	if (th->syn && !(c->flags & RCVMGR_F_SND_SYN))
		rcvmgr_snd_syn(c, p, o);
	if (!th->ack)
		return;
	a = ntohl(th->ack_seq);
	if (th->syn) {
		/* its SYN-ACK to the receiver's SYN: a download */
		take = (c->flags & RCVMGR_F_RCV_OPENED) && a == c->isn + 1;
	} else {
		/* after both SYNs: the handshake's last ACK (an upload) */
		if ((c->flags & RCVMGR_F_HANDSHAKE) == RCVMGR_F_HANDSHAKE)
			c->flags |= RCVMGR_F_ESTABLISHED;
		take = !(c->flags & RCVMGR_F_SND_ACK) || !before(a, c->snd_ack);
		scaled = rcvmgr_scaled(c);
	}
	if (take) {
		c->snd_ack = a;
		c->snd_wnd = (u32)ntohs(th->window) << (scaled ? c->snd_wscale : 0);
		c->flags |= RCVMGR_F_SND_ACK;
	}
}

/*
 * A segment's payload counted, under c->lock, and what the sender keeps in
 * flight (section 5) as the receiver's side sees it: the data that arrives
 * in one RTT (the gap between the gateway's highest sequence and ACK is
 * only the last hop's share). Whether it asks for a share of the budget
 * (rcvmgr_control()): its first data, or the first after a quiet second.
 */
static bool rcvmgr_data_count(struct rcvmgr_net *rn, struct rcvmgr_conn *c,
			      const struct sk_buff *skb, const struct rcvmgr_pkt *p, u64 now)
{
	bool kick = false;

	/*
	 * (a SYN's payload, Fast Open's, or a reset's does not make the entry
	 * one that carries data: it would leave the opening ones' bound)
	 */
	if (p->payload && !p->th.syn && !p->th.rst) {
		unsigned int seg = skb_is_gso(skb) ? skb_shinfo(skb)->gso_size : p->payload;

		if (c->state != TCP_RCVMGR_STATE_UNSCALED &&
		    (!c->bytes || !c->data_ns || rcvmgr_quiet(c, now)))
			kick = true;
		if (!c->bytes)
			rcvmgr_conn_clear_opening(rn, c);
		/* its data passes here (again) */
		c->flags &= ~RCVMGR_F_UNSEEN;
		c->data_ns = now;
		c->bytes += p->payload;
		if (seg > c->mss)
			c->mss = min_t(u32, seg, U16_MAX);	/* the MSS option's most */
	}
	if (c->srtt_us && now - c->round_ns >= (u64)c->srtt_us * NSEC_PER_USEC) {
		if (c->round_ns)
			c->flight_max = max_t(u64, c->flight_max,
					      min_t(u64, c->bytes - c->round_bytes, U32_MAX));
		c->round_ns = now;
		c->round_bytes = c->bytes;
	}
	return kick;
}

/*
 * An RTT sample, under c->lock, if a segment ending at @end answers what
 * was timed: the handshake (the receiver's SYN out, the SYN-ACK back; or
 * the SYN-ACK out, the ACK back), the echoed timestamp, or data past an
 * edge
 */
static void rcvmgr_data_rtt(struct rcvmgr_net *rn, struct rcvmgr_conn *c,
			    const struct rcvmgr_pkt *p, const struct rcvmgr_opts *o,
			    u32 end, u64 now)
{
	if (c->hs_ns && p->th.ack) {
		rcvmgr_rtt_sample(rn, c, now - c->hs_ns);
		c->hs_ns = 0;
	} else if (c->ts_ns && o->has_ts && !before(o->tsecr, c->ts_val)) {
		rcvmgr_rtt_sample(rn, c, now - c->ts_ns);
		c->ts_ns = 0;
	} else if (c->edge_ns && after(end, c->edge_seq)) {
		rcvmgr_rtt_sample(rn, c, now - c->edge_ns);
		c->edge_ns = 0;
	}
}

/* a segment from the sender */
static void rcvmgr_data(struct rcvmgr_net *rn, const struct rcvmgr_cfg *cfg,
			struct sk_buff *skb, const struct rcvmgr_pkt *p, u64 now)
{
	bool kick = false, asked = false, forget = false, fin, known, retrans, recalled = false;
	enum rcvmgr_kept_took took = RCVMGR_KEPT_NONE;
	const struct tcphdr *th = &p->th;
	struct rcvmgr_conn *c;
	struct rcvmgr_opts o;
	struct rcvmgr_kept k;
	u32 seq, end;
	bool look;

	rcvmgr_parse_opts(skb, p, &o);
	c = rcvmgr_data_conn(rn, cfg, skb, p, &o, now, &asked);
	if (!c)
		return;
	seq = ntohl(th->seq);
	end = seq + p->payload + th->syn + th->fin;
	/* (taken before c->lock: rn->lock comes first; not twice for one segment) */
	look = !asked && rcvmgr_midstream(p) && test_bit(RCVMGR_CONN_KEPT, &c->atomic_flags);
	if (look)
		took = rcvmgr_kept_take(rn, &c->key, seq, end, now, &k);

	spin_lock(&c->lock);
	/* the receiver's window: from its newest ACK, the edge's */
	known = rcvmgr_ack_known(c, c->edge.valid);
	if (th->rst && !rcvmgr_in_window(seq, c->edge.ack, c->advertised, known)) {
		spin_unlock(&c->lock);
		return;
	}
	/* (a FIN outside it, forged, neither closes nor moves snd_nxt) */
	fin = th->fin && rcvmgr_in_window(seq + p->payload, c->edge.ack, c->advertised, known);
	WRITE_ONCE(c->last_ns, now);
	if (th->syn && !th->ack && !(c->flags & RCVMGR_F_RCV_OPENED))
		rcvmgr_reopen_note(c, skb, p, &o);
	/*
	 * data it sent before (not past snd_nxt, and within the receiver's
	 * last offer below it, as the sender's own unacknowledged data is: a
	 * blind forger from the WAN must guess that, as for a reset): a
	 * retransmission, looked for only after a reset
	 */
	retrans = (c->flags & RCVMGR_F_RESET) && p->payload && !th->rst && !th->syn &&
		  (c->flags & RCVMGR_F_SND_NXT) && !after(end, c->snd_nxt) &&
		  !before(seq, c->snd_nxt - c->advertised);
	/*
	 * the most of the sender's data the receiver's ACKs may cover (not
	 * a reset's number: one checked against the receiver's own offer,
	 * nor a SYN's after its first: another connection's)
	 */
	if (!th->rst && !(th->syn && (c->flags & RCVMGR_F_SND_SYN)) && (fin || !th->fin) &&
	    (!(c->flags & RCVMGR_F_SND_NXT) || after(end, c->snd_nxt))) {
		c->snd_nxt = end;
		c->flags |= RCVMGR_F_SND_NXT;
	}
	if (look)
		recalled = rcvmgr_data_recall(rn, c, took, &k);
	kick = recalled;
	/* (conntrack not asked twice for one segment) */
	if (!asked)
		kick |= rcvmgr_data_adopt(rn, c, skb, p, &o);
	rcvmgr_data_sender(c, p, &o);
	kick |= rcvmgr_data_count(rn, c, skb, p, now);
	rcvmgr_data_rtt(rn, c, p, &o, end, now);
	if (retrans)
		rcvmgr_conn_live(rn, c, now);
	if (th->rst)
		forget = rcvmgr_conn_reset(rn, c, p, false, now, &kick);
	else if (fin)
		rcvmgr_conn_fin(c, &kick);
	spin_unlock(&c->lock);

	if (forget)
		rcvmgr_conn_unlink(rn, c);
	if (recalled)
		rcvmgr_kept_again(rn, c, &k, now);
	if (kick)
		rcvmgr_kick(rn);
}

/*
 * The window to hold @c to, in bytes, as of now. An initial connection
 * under azuma grows as slow start would, by the RTTs since it began (eq.
 * 1-a), while the last assignment found room for every initial one; once
 * that exceeds its threshold it is persistent and held to the threshold
 * until the control work, kicked, gives it its share.
 */
static u32 rcvmgr_assigned(struct rcvmgr_net *rn, const struct rcvmgr_cfg *cfg,
			   struct rcvmgr_conn *c, u64 now, bool *kick)
{
	u32 threshold, need, rtts;

	if (cfg->policy == TCP_RCVMGR_POLICY_OFF)
		return RCVMGR_WINDOW_MAX;
	/* a closing connection keeps its last window to the end */
	if (cfg->policy != TCP_RCVMGR_POLICY_AZUMA || c->state != TCP_RCVMGR_STATE_INITIAL ||
	    !READ_ONCE(rn->initial_fits))
		return READ_ONCE(c->window);

	rtts = rcvmgr_rtts_since(div_u64(now - c->created_ns, NSEC_PER_USEC), c->srtt_us);
	need = rcvmgr_slow_start_window(rtts, c->mss, cfg->initial_window);
	threshold = READ_ONCE(c->threshold);
	if (threshold && need > threshold) {
		c->state = TCP_RCVMGR_STATE_PERSISTENT;
		WRITE_ONCE(c->window, threshold);
		*kick = true;
		return threshold;
	}
	return need;
}

/*
 * A reset from the receiver: in the sender's window (ACK flag or not: one
 * answering a segment has none) it may end the connection
 * (rcvmgr_conn_reset())
 */
static void rcvmgr_ack_rst(struct rcvmgr_net *rn, struct rcvmgr_conn *c,
			   const struct rcvmgr_pkt *p, u64 now)
{
	bool forget = false, kick = false;

	spin_lock(&c->lock);
	if (rcvmgr_in_window(ntohl(p->th.seq), c->snd_ack, c->snd_wnd,
			     rcvmgr_ack_known(c, c->flags & RCVMGR_F_SND_ACK)))
		forget = rcvmgr_conn_reset(rn, c, p, true, now, &kick);
	spin_unlock(&c->lock);
	if (forget)
		rcvmgr_conn_unlink(rn, c);
	if (kick)
		rcvmgr_kick(rn);
}

/*
 * The receiver's SYN or SYN-ACK, under c->lock: its options, once. A SYN's
 * window is never scaled, and is left as it is. A SYN-ACK's offers the
 * sender its first right edge (an upload: the sender may fill it at once),
 * which no rewritten ACK may then pull back.
 */
static void rcvmgr_ack_syn(struct rcvmgr_conn *c, const struct rcvmgr_pkt *p,
			   const struct rcvmgr_opts *o, u64 now)
{
	u32 ack = ntohl(p->th.ack_seq);
	u16 adv = ntohs(p->th.window);

	if (!(c->flags & RCVMGR_F_RCV_SYN))
		rcvmgr_rcv_syn(c, p, o, now);
	else if (!(c->flags & RCVMGR_F_ESTABLISHED))
		rcvmgr_rcv_syn_more(c, o);
	/* (with Fast Open it acknowledges the SYN's data too: snd_nxt) */
	if (p->th.ack && !(c->flags & RCVMGR_F_RCV_OPENED) &&
	    (ack == c->isn + 1 || ((c->flags & RCVMGR_F_SND_NXT) && ack == c->snd_nxt))) {
		if (!c->edge.valid)
			c->edge.ack = ack;
		if (!c->edge.valid || after(ack + adv, c->edge.seq)) {
			c->edge.seq = ack + adv;
			c->edge.valid = true;
		}
		c->advertised = adv;
	}
}

/*
 * An adopted download's priority, from its receiver's packets, under
 * c->lock: whether its share changes
 */
static bool rcvmgr_ack_priority(const struct rcvmgr_cfg *cfg, struct rcvmgr_conn *c,
				const struct sk_buff *skb, const struct rcvmgr_pkt *p)
{
	u32 prio;

	if (likely(!(c->flags & RCVMGR_F_PRIO_ACK)))
		return false;
	c->flags &= ~RCVMGR_F_PRIO_ACK;
	prio = rcvmgr_priority(cfg, p, skb->mark);
	if (prio == c->priority)
		return false;
	c->priority = prio;
	return rcvmgr_carries(c);
}

/*
 * Whether the sender's data takes another path, under c->lock. An ACK past
 * the sender's highest segment seen here, once no data has passed for a
 * second, covers data that takes another path (asymmetric routing, a route
 * change, fragments the hooks do not see: rcvmgr_parse()): what the module
 * measured of the connection is stale, and its windows pass as the
 * receiver offers them until data passes here again. While data still
 * passes, an ACK ahead of it (a receiver acknowledging what it has not
 * had) is rewritten as any other.
 */
static bool rcvmgr_ack_unseen(struct rcvmgr_conn *c, u32 ack, u64 now)
{
	if (!(c->flags & RCVMGR_F_UNSEEN) && rcvmgr_quiet(c, now) &&
	    (c->flags & RCVMGR_F_SND_NXT) && after(ack, c->snd_nxt)) {
		c->flags |= RCVMGR_F_UNSEEN;
		/* their answers take the other path: no RTT sample from them */
		c->ts_ns = 0;
		c->edge_ns = 0;
	}
	return c->flags & RCVMGR_F_UNSEEN;
}

/*
 * An ACK's TSval timed, under c->lock, from its first ACK: one timed at a
 * later ACK that repeats it would be echoed by data the first one
 * released, early
 */
static void rcvmgr_ack_timestamp(struct rcvmgr_conn *c, const struct rcvmgr_opts *o,
				 bool unseen, u64 now)
{
	if (!(c->flags & RCVMGR_F_TS) || !o->has_ts)
		return;
	if (!c->ts_ns && !unseen && o->tsval != c->ts_last) {
		c->ts_val = o->tsval;
		c->ts_ns = now;
	}
	c->ts_last = o->tsval;
}

/* the window field an ACK leaves with: @field in place of the receiver's */
static void rcvmgr_ack_rewrite(struct rcvmgr_net *rn, struct sk_buff *skb,
			       const struct rcvmgr_pkt *p, const struct rcvmgr_key *key,
			       u16 field, u8 wscale, u32 assigned, bool unseen)
{
	u16 adv = ntohs(p->th.window);
	struct rcvmgr_pcpu_stats *st;
	struct tcphdr *wth;

	st = this_cpu_ptr(rn->stats);
	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->acks);
	if (field != adv)
		u64_stats_inc(&st->rewritten);
	if (unseen)
		u64_stats_inc(&st->unseen);
	u64_stats_update_end(&st->syncp);

	if (field == adv || skb_ensure_writable(skb, p->thoff + sizeof(struct tcphdr)))
		return;
	wth = (struct tcphdr *)(skb->data + p->thoff);
	inet_proto_csum_replace2(&wth->check, skb, wth->window, htons(field), false);
	wth->window = htons(field);
	trace_tcp_rcvmgr_window(key, ntohl(p->th.ack_seq), (u32)adv << wscale,
				(u32)field << wscale, assigned);
}

/* an ACK from the receiver: the window it offers may be lowered */
static void rcvmgr_ack(struct rcvmgr_net *rn, const struct rcvmgr_cfg *cfg,
		       struct sk_buff *skb, const struct rcvmgr_pkt *p, u64 now)
{
	const struct tcphdr *th = &p->th;
	u16 field, adv = ntohs(th->window);
	struct rcvmgr_key key = p->key;
	bool kick, unseen, carried;
	struct rcvmgr_conn *c;
	struct rcvmgr_opts o;
	struct rcvmgr_syn r;
	u32 ack, assigned;
	u8 wscale;

	rcvmgr_sender_key(&key);
	c = rhashtable_lookup(&rn->table, &key, rcvmgr_rht_params);
	if (th->syn && !th->ack) {
		/* the receiver opens: a download, named from the sender */
		struct rcvmgr_pkt data = *p;

		data.key = key;
		c = rcvmgr_conn_fresh(rn, cfg, c, &data, skb->mark, now, true);
	} else if (c && th->syn && rcvmgr_reopen_answered(c, p, true, &r, &carried)) {
		/* the receiver's SYN-ACK to an upload's new SYN */
		if (carried)
			rcvmgr_kick(rn);	/* it gives its share back */
		c = rcvmgr_conn_reborn(rn, cfg, c, &r, now);
	}
	if (!c)
		return;
	if (th->rst) {
		rcvmgr_ack_rst(rn, c, p, now);
		return;
	}
	rcvmgr_parse_opts(skb, p, &o);
	ack = ntohl(th->ack_seq);

	spin_lock(&c->lock);
	WRITE_ONCE(c->last_ns, now);
	if (th->syn) {
		if (!th->ack && (c->flags & RCVMGR_F_RCV_OPENED))
			rcvmgr_reopen_note(c, skb, p, &o);
		rcvmgr_ack_syn(c, p, &o, now);
		spin_unlock(&c->lock);
		return;
	}
	if (!th->ack ||
	    ((c->flags & RCVMGR_F_HANDSHAKE) != RCVMGR_F_HANDSHAKE &&
	     c->state != TCP_RCVMGR_STATE_UNSCALED)) {
		spin_unlock(&c->lock);
		return;
	}
	/* after both SYNs: the handshake's last ACK (a download) */
	c->flags |= RCVMGR_F_ESTABLISHED;
	kick = rcvmgr_ack_priority(cfg, c, skb, p);
	rcvmgr_conn_resumed(rn, c, ack);
	unseen = rcvmgr_ack_unseen(c, ack, now);
	rcvmgr_ack_timestamp(c, &o, unseen, now);
	c->advertised = (u32)adv << c->wscale;

	if (c->state == TCP_RCVMGR_STATE_UNSCALED || unseen)
		assigned = RCVMGR_WINDOW_MAX;
	else
		assigned = rcvmgr_assigned(rn, cfg, c, now, &kick);
	/* whatever was assigned, two segments pass (rcvmgr_window_field) */
	field = rcvmgr_window_field(adv, c->wscale, ack, assigned, c->mss, &c->edge);
	if (!(c->flags & RCVMGR_F_TS) && !c->edge_ns && !unseen) {
		c->edge_seq = c->edge.seq;
		c->edge_ns = now;
	}
	if (field != adv)
		c->rewritten++;
	/* for the tracepoint: the scale may change once the lock is let go */
	wscale = c->wscale;
	spin_unlock(&c->lock);

	rcvmgr_ack_rewrite(rn, skb, p, &key, field, wscale, assigned, unseen);
	if (kick)
		rcvmgr_kick(rn);
}

/*
 * Whether conntrack handed @skb's connection to a flowtable (nft "flow
 * add"): its next packets take the flowtable's fast path from the ingress
 * hook and never reach these hooks again, until it leaves it (a FIN, a
 * reset, a timeout). Nothing learnt from it would stay true: it is not
 * managed. The flag is set by the rule that offloads, on the packet that
 * then reaches this hook, last on forward.
 */
static bool rcvmgr_offloaded(const struct sk_buff *skb)
{
#if IS_ENABLED(CONFIG_NF_CONNTRACK)
	enum ip_conntrack_info ctinfo;
	const struct nf_conn *ct = nf_ct_get(skb, &ctinfo);

	return ct && test_bit(IPS_OFFLOAD_BIT, &ct->status);
#else
	return false;
#endif
}

/* @p's connection, if tracked, is forgotten: it was offloaded */
static void rcvmgr_offload(struct rcvmgr_net *rn, const struct rcvmgr_pkt *p,
			   enum rcvmgr_dir dir)
{
	struct rcvmgr_key key = p->key;
	struct rcvmgr_conn *c;

	if (dir == RCVMGR_ACK)
		rcvmgr_sender_key(&key);
	c = rhashtable_lookup(&rn->table, &key, rcvmgr_rht_params);
	if (c && rcvmgr_conn_unlink(rn, c)) {
		atomic64_inc(&rn->offloaded);
		if (READ_ONCE(c->bytes))
			rcvmgr_kick(rn);
	}
}

static unsigned int rcvmgr_hook(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	struct rcvmgr_net *rn = rcvmgr_pernet(state->net);
	const struct rcvmgr_cfg *cfg = rcu_dereference(rn->cfg);
	struct rcvmgr_pkt p;
	enum rcvmgr_dir dir;
	bool bh;

	if (!cfg->n_wan && !cfg->n_lan)
		return NF_ACCEPT;
	if (!rcvmgr_parse(skb, state->pf, &p))
		return NF_ACCEPT;
	dir = rcvmgr_direction(cfg, state, &p.key);
	if (dir == RCVMGR_NONE)
		return NF_ACCEPT;
	/*
	 * local out runs in process context: the locks are also taken in
	 * softirq (where forward and local in run, bottom halves off)
	 */
	bh = state->hook == NF_INET_LOCAL_OUT;
	if (bh)
		local_bh_disable();
	if (unlikely(rcvmgr_offloaded(skb)))
		rcvmgr_offload(rn, &p, dir);
	else if (dir == RCVMGR_DATA)
		rcvmgr_data(rn, cfg, skb, &p, ktime_get_ns());
	else
		rcvmgr_ack(rn, cfg, skb, &p, ktime_get_ns());
	if (bh)
		local_bh_enable();
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
	RCVMGR_HOOK(NFPROTO_IPV4, NF_INET_LOCAL_IN, NF_IP_PRI_LAST - 1),
	RCVMGR_HOOK(NFPROTO_IPV4, NF_INET_LOCAL_OUT, NF_IP_PRI_LAST - 1),
	RCVMGR_HOOK(NFPROTO_IPV6, NF_INET_FORWARD, NF_IP6_PRI_LAST - 1),
	RCVMGR_HOOK(NFPROTO_IPV6, NF_INET_LOCAL_IN, NF_IP6_PRI_LAST - 1),
	RCVMGR_HOOK(NFPROTO_IPV6, NF_INET_LOCAL_OUT, NF_IP6_PRI_LAST - 1),
};

/*
 * The hooks see whole datagrams: IP fragments are reassembled before them
 * (at PREROUTING and LOCAL_OUT, as conntrack has them; the defrag hooks
 * are shared with conntrack's and counted). Without that a LAN host that
 * sends its ACKs in IPv4 fragments, which the hooks cannot parse, has
 * their windows pass as it wrote them, out of the policy; a forwarded
 * datagram leaves again in fragments no larger than those it came in. (A
 * kernel built without the reassembly, which the module's Kconfig selects
 * in a tree, leaves its fragments unseen, as before.)
 */
static int rcvmgr_defrag_enable(struct net *net)
{
	int err = 0;

	if (IS_ENABLED(CONFIG_NF_DEFRAG_IPV4))
		err = nf_defrag_ipv4_enable(net);
	if (err || !IS_ENABLED(CONFIG_NF_DEFRAG_IPV6))
		return err;
	err = nf_defrag_ipv6_enable(net);
	if (err && IS_ENABLED(CONFIG_NF_DEFRAG_IPV4))
		nf_defrag_ipv4_disable(net);
	return err;
}

static void rcvmgr_defrag_disable(struct net *net)
{
	if (IS_ENABLED(CONFIG_NF_DEFRAG_IPV6))
		nf_defrag_ipv6_disable(net);
	if (IS_ENABLED(CONFIG_NF_DEFRAG_IPV4))
		nf_defrag_ipv4_disable(net);
}

/*
 * The hooks are registered in a namespace only while it is configured (a
 * WAN device or a LAN prefix): the packets of every other namespace, a
 * container's, the host's own, pay nothing for the module, nor for the
 * reassembly it asks for, nor for the room to keep forgotten connections
 * (rcvmgr_kept_alloc(), from the first time on, sized by @max_conns).
 * Under ctl_mutex, the configuration not yet published. *@removed: the
 * hooks went, and the caller calls rcvmgr_hooks_gone() once it has let
 * go of ctl_mutex and RTNL, still holding cfg_mutex.
 */
int rcvmgr_hooks_set(struct rcvmgr_net *rn, bool on, u32 max_conns, bool *removed)
{
	bool fresh;
	int err;

	lockdep_assert_held(&rn->cfg_mutex);
	lockdep_assert_held(&rn->ctl_mutex);
	*removed = false;
	if (on == rn->hooked)
		return 0;
	if (!on) {
		rcvmgr_hooks_remove(rn);
		*removed = true;
		return 0;
	}
	fresh = !rn->kept;
	err = rcvmgr_kept_alloc(rn, max_conns);
	if (err)
		return err;
	err = rcvmgr_defrag_enable(rn->net);
	if (err)
		goto err_kept;
	err = nf_register_net_hooks(rn->net, rcvmgr_nf_ops, ARRAY_SIZE(rcvmgr_nf_ops));
	if (err)
		goto err_defrag;
	rn->hooked = true;
	return 0;

err_defrag:
	rcvmgr_defrag_disable(rn->net);
err_kept:
	if (fresh)
		rcvmgr_kept_free(rn);
	return err;
}

/*
 * What the hooks learnt goes with them: it would be stale if they came
 * back. Once no hook runs on another CPU, which takes a grace period: with
 * cfg_mutex alone held, so that the control work (ctl_mutex) and every
 * request that needs RTNL go on meanwhile. The control work may run beside
 * the flush: an entry is unlinked under rn->lock, as a reset's is.
 */
void rcvmgr_hooks_gone(struct rcvmgr_net *rn)
{
	lockdep_assert_held(&rn->cfg_mutex);
	lockdep_assert_not_held(&rn->ctl_mutex);
	synchronize_net();
	rcvmgr_flush(rn);
	rcvmgr_kept_flush(rn);
}

/*
 * The hooks out of @rn's namespace, if in, and the reassembly they asked
 * for; a CPU may still be in one until a grace period has passed
 */
void rcvmgr_hooks_remove(struct rcvmgr_net *rn)
{
	if (!rn->hooked)
		return;
	nf_unregister_net_hooks(rn->net, rcvmgr_nf_ops, ARRAY_SIZE(rcvmgr_nf_ops));
	rcvmgr_defrag_disable(rn->net);
	rn->hooked = false;
}

