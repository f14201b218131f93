// SPDX-License-Identifier: GPL-2.0
/*
 * The ABW estimator's exact counts: which packets count, the cut at a
 * request, the snapshots (probe.h); a request's authentication is auth.c's,
 * the netlink of the counts nl.c's. Used under the lock of their owner: the
 * qdisc's root lock, or a meter's spinlock.
 */
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sch_generic.h>
#include <kunit/visibility.h>

#include "probe.h"

static bool er2bc_peer_match(const struct er2bc_peer *peer, u8 family,
			     const struct in6_addr *addr)
{
	unsigned int i;

	for (i = 0; i < peer->n; i++)
		if (er2bc_prefix_match(&peer->p[i], family, addr))
			return true;
	return false;
}

/*
 * What a whole UDP datagram to @port, of @l4len bytes by its IP header, is
 * to the counts. A request: its type is ER2BC_PROBE_REQUEST and its payload
 * exactly a request's, plain or authenticated, by IP's length and UDP's
 * alike, its body followed by zeros (a larger datagram, one whose UDP
 * length hides bytes behind a request's, or one with anything but zeros
 * behind the body, is data, at both ends alike; trailing link padding,
 * which the meter sees ahead of IP, is neither). A GSO skb whose segments
 * are of a request's size counts nowhere: each segment may look like a
 * request at the other end, which then counts it nowhere either.
 */
static enum er2bc_pkt er2bc_probe_udp(const struct sk_buff *skb, int toff, int l4len,
				      __be16 port, u8 *key, u8 *key_len)
{
	u8 _req[ER2BC_PROBE_AREQ_LEN];
	const struct udphdr *uh;
	struct udphdr _uh;
	int len, body;
	const u8 *req;
	u16 t;

	uh = skb_header_pointer(skb, toff, sizeof(_uh), &_uh);
	if (!uh || uh->dest != port)
		return ER2BC_PKT_COUNT;
	if (skb_is_gso(skb)) {
		len = skb_shinfo(skb)->gso_size;
		return len == ER2BC_PROBE_REQ_LEN || len == ER2BC_PROBE_AREQ_LEN ?
		       ER2BC_PKT_IGNORE : ER2BC_PKT_COUNT;
	}
	len = l4len - (int)sizeof(*uh);
	if (ntohs(uh->len) != l4len ||
	    (len != ER2BC_PROBE_REQ_LEN && len != ER2BC_PROBE_AREQ_LEN))
		return ER2BC_PKT_COUNT;
	req = skb_header_pointer(skb, toff + sizeof(*uh), len, _req);
	if (!req)
		return ER2BC_PKT_COUNT;
	t = req[0] << 8 | req[1];	/* big endian, unaligned */
	if ((t & ~ER2BC_PROBE_AUTH) != ER2BC_PROBE_REQUEST ||
	    len != (t & ER2BC_PROBE_AUTH ? ER2BC_PROBE_AREQ_LEN : ER2BC_PROBE_REQ_LEN))
		return ER2BC_PKT_COUNT;
	body = t & ER2BC_PROBE_AUTH ? ER2BC_PROBE_AREQ_BODY : ER2BC_PROBE_REQ_BODY;
	if (memchr_inv(req + body, 0, len - body))
		return ER2BC_PKT_COUNT;
	if (!key)
		return ER2BC_PKT_PROBE;
	*key_len = body;
	memcpy(key, req, body);
	return ER2BC_PKT_PROBE;
}

enum er2bc_pkt er2bc_probe_classify(const struct sk_buff *skb, __be16 port,
				    const struct er2bc_peer *peer, bool to_peer,
				    u8 *key, u8 *key_len)
{
	int noff = skb_network_offset(skb), toff, l4len;
	struct in6_addr addr;
	bool whole = true;
	u8 family, proto;

	switch (skb->protocol) {
	case htons(ETH_P_IP): {
		const struct iphdr *iph;
		struct iphdr _iph;

		iph = skb_header_pointer(skb, noff, sizeof(_iph), &_iph);
		if (!iph || iph->version != 4 || iph->ihl < 5)
			return ER2BC_PKT_IGNORE;
		family = AF_INET;
		ipv6_addr_set(&addr, to_peer ? iph->daddr : iph->saddr, 0, 0, 0);
		proto = iph->protocol;
		toff = noff + iph->ihl * 4;
		l4len = ntohs(iph->tot_len) - iph->ihl * 4;
		whole = !(iph->frag_off & htons(IP_MF | IP_OFFSET));
		break;
	}
	case htons(ETH_P_IPV6): {
		const struct ipv6hdr *ip6h;
		struct ipv6hdr _ip6h;

		ip6h = skb_header_pointer(skb, noff, sizeof(_ip6h), &_ip6h);
		if (!ip6h || ip6h->version != 6)
			return ER2BC_PKT_IGNORE;
		family = AF_INET6;
		addr = to_peer ? ip6h->daddr : ip6h->saddr;
		/* a request has no extension headers: the daemons send none */
		proto = ip6h->nexthdr;
		toff = noff + sizeof(*ip6h);
		l4len = ntohs(ip6h->payload_len);
		break;
	}
	default:
		return ER2BC_PKT_IGNORE;
	}

	if (peer->n && !er2bc_peer_match(peer, family, &addr))
		return ER2BC_PKT_IGNORE;
	if (proto == IPPROTO_UDP && whole && port)
		return er2bc_probe_udp(skb, toff, l4len, port, key, key_len);
	return ER2BC_PKT_COUNT;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_probe_classify);

u64 er2bc_rx_wire_len(const struct sk_buff *skb)
{
	u64 len = skb->len + skb->mac_len;
	u32 segs = er2bc_skb_segs(skb), hdr;

	/* a GRO (or forwarded GSO) packet: each segment had its headers */
	if (segs > 1 && skb_transport_header_was_set(skb)) {
		hdr = skb->mac_len + skb_transport_offset(skb);
		if (skb_shinfo(skb)->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)) {
			const struct tcphdr *th;
			struct tcphdr _th;

			th = skb_header_pointer(skb, skb_transport_offset(skb),
						sizeof(_th), &_th);
			if (th)
				hdr += __tcp_hdrlen(th);
		} else if (skb_shinfo(skb)->gso_type & SKB_GSO_UDP_L4) {
			hdr += sizeof(struct udphdr);
		}
		len += (u64)(segs - 1) * hdr;
	}
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_rx_wire_len);

void er2bc_count_skb(struct er2bc_count *c, const struct sk_buff *skb, __be16 port,
		     const struct er2bc_peer *peer, bool sent, bool cut)
{
	u8 key[ER2BC_PROBE_KEY_MAX], key_len;

	switch (er2bc_probe_classify(skb, port, peer, sent, key, &key_len)) {
	case ER2BC_PKT_COUNT:
		er2bc_count_add(c, er2bc_skb_segs(skb),
				sent ? qdisc_pkt_len(skb) : er2bc_rx_wire_len(skb));
		break;
	case ER2BC_PKT_PROBE:
		if (cut) {
			er2bc_count_snap(c, key, key_len, ktime_get_ns());
			break;
		}
		fallthrough;
	case ER2BC_PKT_IGNORE:
		c->ignored += er2bc_skb_segs(skb);
		break;
	}
}

void er2bc_count_snap(struct er2bc_count *c, const u8 *key, u8 key_len, u64 time)
{
	struct er2bc_snap *s = &c->ring[c->head++ % ER2BC_SNAP_RING];

	s->packets = c->packets;
	s->bytes = c->bytes;
	s->time = time;
	s->held = c->held;
	s->key_len = key_len;
	memcpy(s->key, key, key_len);
	c->probes++;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_count_snap);

const struct er2bc_snap *er2bc_count_find(const struct er2bc_count *c,
					  const u8 *key, unsigned int key_len)
{
	unsigned int i;

	for (i = 1; i <= ER2BC_SNAP_RING; i++) {
		const struct er2bc_snap *s = &c->ring[(c->head - i) % ER2BC_SNAP_RING];

		if (s->key_len && s->key_len == key_len && !memcmp(s->key, key, key_len))
			return s;
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(er2bc_count_find);
