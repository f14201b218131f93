/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ABW estimator's exact counts (Documentation/er2bc-estimator.rst).
 *
 * The estimator's read request travels with the data. Both gateways count
 * the packets that pass between them and cut their counts exactly where the
 * request passes: the sending gateway's er2bc qdisc as it dequeues
 * (packets sent toward the peer), the receiving gateway's meter, a tap
 * ahead of tc's ingress, as packets arrive (packets received from the
 * peer). Each cut is a snapshot remembered under the request's body,
 * which the daemons ask for by generic netlink.
 */
#ifndef _ER2BC_PROBE_H
#define _ER2BC_PROBE_H

#include <linux/in6.h>
#include <linux/skbuff.h>
#include <linux/types.h>
#include <linux/er2bc_genl.h>

#include <net/er2bc_prefix.h>

struct sk_buff;

/*
 * a request's body: type and sequence number, and with ER2BC_PROBE_AUTH
 * an epoch and a tag (Documentation/er2bc-estimator.rst, "Wire protocol");
 * the key of its snapshot
 */
#define ER2BC_PROBE_REQ_BODY	4
#define ER2BC_PROBE_AREQ_BODY	28

/*
 * a request's datagram: its body, then zeros up to its response's length,
 * so that a response is never larger than the request it answers
 */
#define ER2BC_PROBE_REQ_LEN	28
#define ER2BC_PROBE_AREQ_LEN	52

/* an authenticated request: its tag, over the 12 bytes before it */
#define ER2BC_PROBE_TAG_LEN	16

/* the snapshots remembered: requests that may still be asked about */
#define ER2BC_SNAP_RING		16

struct er2bc_peer {
	u8 n;				/* 0: every IP packet counts */
	struct er2bc_prefix p[ER2BC_PEER_MAX];
};

struct er2bc_snap {
	u64 packets;
	u64 bytes;
	u64 time;			/* ktime_get_ns() */
	u64 held;			/* the qdisc's: ns W held its backlog back */
	u8 key_len;			/* 0: unused */
	u8 key[ER2BC_PROBE_KEY_MAX];
};

/* the counts of one qdisc or meter */
struct er2bc_count {
	u64 packets;
	u64 bytes;
	u64 probes;
	u64 ignored;
	u64 held;			/* the qdisc's, set before a snapshot; 0: a meter's */
	u32 head;			/* the next snapshot's slot */
	struct er2bc_snap ring[ER2BC_SNAP_RING];
};

/* what a packet is to the counts */
enum er2bc_pkt {
	ER2BC_PKT_COUNT,		/* counted */
	/* not IP, not to or from a peer, or GSO of request-sized segments */
	ER2BC_PKT_IGNORE,
	ER2BC_PKT_PROBE,		/* a request: the cut, not counted itself */
};

/*
 * What @skb is to counts that take requests on UDP port @port (network
 * order) and only packets whose destination (@to_peer) or source is in
 * @peer. A request's body (its payload without the zeros) goes to
 * @key and its length to @key_len; with @key NULL, nothing is copied.
 */
enum er2bc_pkt er2bc_probe_classify(const struct sk_buff *skb, __be16 port,
				    const struct er2bc_peer *peer, bool to_peer,
				    u8 *key, u8 *key_len);

/* the packets an skb will be on the wire, GSO segments each one */
static inline u32 er2bc_skb_segs(const struct sk_buff *skb)
{
	return skb_is_gso(skb) ? max_t(u32, skb_shinfo(skb)->gso_segs, 1) : 1;
}

/* the link-layer bytes of a received skb, as a qdisc's rates count them */
u64 er2bc_rx_wire_len(const struct sk_buff *skb);

static inline void er2bc_count_add(struct er2bc_count *c, u32 packets, u64 bytes)
{
	c->packets += packets;
	c->bytes += bytes;
}

/*
 * Counts @skb, sent toward the peer (@sent: qdisc_pkt_len() bytes) or
 * received from it (link-layer bytes). A request cuts the count if @cut,
 * else it is ignored: the sending qdisc cuts only at the requests it let
 * past its classes, and counts none of the others, as the receiving meter
 * counts no request.
 */
void er2bc_count_skb(struct er2bc_count *c, const struct sk_buff *skb, __be16 port,
		     const struct er2bc_peer *peer, bool sent, bool cut);
void er2bc_count_snap(struct er2bc_count *c, const u8 *key, u8 key_len, u64 time);
/* the newest snapshot taken at a request of body @key; NULL: none */
const struct er2bc_snap *er2bc_count_find(const struct er2bc_count *c,
					  const u8 *key, unsigned int key_len);

#endif /* _ER2BC_PROBE_H */
