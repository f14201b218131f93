// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the ABW estimator's counting (probe.c): which packets
 * count, which one is a request and what its key is, prefixes, the
 * snapshots, and the wire length of a received GRO packet.
 */
#include <crypto/hash.h>
#include <kunit/test.h>
#include <linux/inet.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip.h>

#include <net/er2bc_compat.h>
#include "auth.h"
#include "probe.h"

#define PORT	4950

/* an IPv4 or IPv6 UDP datagram from @src to @dst, headers and @payload */
static struct sk_buff *udp_skb(struct kunit *test, bool v6, const char *src,
			       const char *dst, u16 dport, const void *payload,
			       unsigned int len, bool frag)
{
	unsigned int nhl = v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	struct sk_buff *skb = alloc_skb(nhl + sizeof(struct udphdr) + len, GFP_KERNEL);
	struct udphdr *uh;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reset_network_header(skb);
	if (v6) {
		struct ipv6hdr *h = skb_put_zero(skb, sizeof(*h));

		h->version = 6;
		h->nexthdr = IPPROTO_UDP;
		h->payload_len = htons(sizeof(*uh) + len);
		KUNIT_ASSERT_EQ(test, in6_pton(src, -1, h->saddr.s6_addr, -1, NULL), 1);
		KUNIT_ASSERT_EQ(test, in6_pton(dst, -1, h->daddr.s6_addr, -1, NULL), 1);
		skb->protocol = htons(ETH_P_IPV6);
	} else {
		struct iphdr *h = skb_put_zero(skb, sizeof(*h));

		h->version = 4;
		h->ihl = 5;
		h->tot_len = htons(sizeof(*h) + sizeof(*uh) + len);
		h->protocol = IPPROTO_UDP;
		h->frag_off = frag ? htons(IP_MF) : 0;
		KUNIT_ASSERT_EQ(test, in4_pton(src, -1, (u8 *)&h->saddr, -1, NULL), 1);
		KUNIT_ASSERT_EQ(test, in4_pton(dst, -1, (u8 *)&h->daddr, -1, NULL), 1);
		skb->protocol = htons(ETH_P_IP);
	}
	uh = skb_put_zero(skb, sizeof(*uh));
	uh->dest = htons(dport);
	uh->len = htons(sizeof(*uh) + len);
	skb_put_data(skb, payload, len);
	return skb;
}

/* the UDP header of an IPv4 datagram of udp_skb() */
static struct udphdr *udp_of(struct sk_buff *skb)
{
	return (struct udphdr *)(skb_network_header(skb) + sizeof(struct iphdr));
}

static void peer_of(struct kunit *test, struct er2bc_peer *peer, u8 family,
		    const char *addr, u8 plen)
{
	u8 a[16] = {};

	if (family == AF_INET)
		KUNIT_ASSERT_EQ(test, in4_pton(addr, -1, a, -1, NULL), 1);
	else
		KUNIT_ASSERT_EQ(test, in6_pton(addr, -1, a, -1, NULL), 1);
	KUNIT_ASSERT_EQ(test, er2bc_prefix_set(&peer->p[peer->n], family, plen, a,
					       sizeof(a)), 0);
	peer->n++;
}

static enum er2bc_pkt classify(struct sk_buff *skb, const struct er2bc_peer *peer,
			       bool to_peer, u8 *key, u8 *key_len)
{
	enum er2bc_pkt v = er2bc_probe_classify(skb, htons(PORT), peer, to_peer,
						key, key_len);

	kfree_skb(skb);
	return v;
}

static void probe_request_is_cut(struct kunit *test)
{
	/* requests as they go: the body, then zeros to the response's length */
	static const u8 req[ER2BC_PROBE_REQ_LEN] = { 0, 1, 0x12, 0x34 };
	static const u8 auth[ER2BC_PROBE_AREQ_LEN] = { 0x80, 1, 0, 7 };
	static const u8 large[1400] = { 0, 1, 0x12, 0x34 };
	static const u8 resp[28] = { 0, 2 };
	struct er2bc_peer none = {};
	u8 key[ER2BC_PROBE_KEY_MAX], key_len = 0, odd[ER2BC_PROBE_REQ_LEN];
	struct sk_buff *skb;

	/* a plain request: the key is its body, without the zeros */
	KUNIT_EXPECT_EQ(test, classify(udp_skb(test, false, "10.0.1.1", "10.0.2.2", PORT,
					       req, sizeof(req), false),
				       &none, true, key, &key_len),
			ER2BC_PKT_PROBE);
	KUNIT_EXPECT_EQ(test, key_len, ER2BC_PROBE_REQ_BODY);
	KUNIT_EXPECT_MEMEQ(test, key, req, ER2BC_PROBE_REQ_BODY);
	/* an authenticated request: its body, tag included */
	KUNIT_EXPECT_EQ(test, classify(udp_skb(test, true, "2001:db8::1", "2001:db8:2::2",
					       PORT, auth, sizeof(auth), false),
				       &none, true, key, &key_len),
			ER2BC_PKT_PROBE);
	KUNIT_EXPECT_EQ(test, key_len, ER2BC_PROBE_AREQ_BODY);
	KUNIT_EXPECT_MEMEQ(test, key, auth, ER2BC_PROBE_AREQ_BODY);
	/*
	 * look-alikes: a plain request's type with an authenticated one's
	 * length, the other way round, a body alone (unpadded, as requests
	 * were), anything but zeros behind the body, 1400 bytes
	 */
	KUNIT_EXPECT_EQ(test, classify(udp_skb(test, false, "10.0.1.1", "10.0.2.2", PORT,
					       large, ER2BC_PROBE_AREQ_LEN, false),
				       &none, true, key, &key_len), ER2BC_PKT_COUNT);
	KUNIT_EXPECT_EQ(test, classify(udp_skb(test, false, "10.0.1.1", "10.0.2.2", PORT,
					       auth, ER2BC_PROBE_REQ_LEN, false),
				       &none, true, key, &key_len), ER2BC_PKT_COUNT);
	KUNIT_EXPECT_EQ(test, classify(udp_skb(test, false, "10.0.1.1", "10.0.2.2", PORT,
					       req, ER2BC_PROBE_REQ_BODY, false),
				       &none, true, key, &key_len), ER2BC_PKT_COUNT);
	memcpy(odd, req, sizeof(odd));
	odd[sizeof(odd) - 1] = 1;
	KUNIT_EXPECT_EQ(test, classify(udp_skb(test, false, "10.0.1.1", "10.0.2.2", PORT,
					       odd, sizeof(odd), false),
				       &none, true, key, &key_len), ER2BC_PKT_COUNT);
	KUNIT_EXPECT_EQ(test, classify(udp_skb(test, false, "10.0.1.1", "10.0.2.2", PORT,
					       large, sizeof(large), false),
				       &none, true, key, &key_len), ER2BC_PKT_COUNT);
	/* link padding after the datagram (the meter sees it): a request */
	skb = udp_skb(test, false, "10.0.1.1", "10.0.2.2", PORT, large,
		      ER2BC_PROBE_REQ_LEN + 14, false);
	((struct iphdr *)skb_network_header(skb))->tot_len =
		htons(sizeof(struct iphdr) + sizeof(struct udphdr) + ER2BC_PROBE_REQ_LEN);
	udp_of(skb)->len = htons(sizeof(struct udphdr) + ER2BC_PROBE_REQ_LEN);
	KUNIT_EXPECT_EQ(test, classify(skb, &none, true, key, &key_len), ER2BC_PKT_PROBE);
	KUNIT_EXPECT_EQ(test, key_len, ER2BC_PROBE_REQ_BODY);
	/* a UDP length that would hide 1372 bytes behind a request's: data */
	skb = udp_skb(test, false, "10.0.1.1", "10.0.2.2", PORT, large, sizeof(large), false);
	udp_of(skb)->len = htons(sizeof(struct udphdr) + ER2BC_PROBE_REQ_LEN);
	KUNIT_EXPECT_EQ(test, classify(skb, &none, true, key, &key_len), ER2BC_PKT_COUNT);
	/*
	 * UDP GSO: segments of a request's size may each be a request at the
	 * other end, so this end counts none of them; larger ones are data
	 */
	skb = udp_skb(test, false, "10.0.1.1", "10.0.2.2", PORT, large, 280, false);
	skb_shinfo(skb)->gso_type = SKB_GSO_UDP_L4;
	skb_shinfo(skb)->gso_size = ER2BC_PROBE_REQ_LEN;
	skb_shinfo(skb)->gso_segs = 10;
	KUNIT_EXPECT_EQ(test, classify(skb, &none, true, key, &key_len), ER2BC_PKT_IGNORE);
	skb = udp_skb(test, false, "10.0.1.1", "10.0.2.2", PORT, large, 1400, false);
	skb_shinfo(skb)->gso_type = SKB_GSO_UDP_L4;
	skb_shinfo(skb)->gso_size = 700;
	skb_shinfo(skb)->gso_segs = 2;
	KUNIT_EXPECT_EQ(test, classify(skb, &none, true, key, &key_len), ER2BC_PKT_COUNT);
	/* a response, another port, a short payload, a fragment: data */
	KUNIT_EXPECT_EQ(test, classify(udp_skb(test, false, "10.0.1.1", "10.0.2.2", PORT,
					       resp, sizeof(resp), false),
				       &none, true, key, &key_len), ER2BC_PKT_COUNT);
	KUNIT_EXPECT_EQ(test, classify(udp_skb(test, false, "10.0.1.1", "10.0.2.2", PORT + 1,
					       req, sizeof(req), false),
				       &none, true, key, &key_len), ER2BC_PKT_COUNT);
	KUNIT_EXPECT_EQ(test, classify(udp_skb(test, false, "10.0.1.1", "10.0.2.2", PORT,
					       req, 3, false), &none, true, key, &key_len),
			ER2BC_PKT_COUNT);
	KUNIT_EXPECT_EQ(test, classify(udp_skb(test, false, "10.0.1.1", "10.0.2.2", PORT,
					       req, sizeof(req), true),
				       &none, true, key, &key_len), ER2BC_PKT_COUNT);
}

static void probe_peer_prefixes(struct kunit *test)
{
	static const u8 data[100];
	struct er2bc_peer peer = {};
	u8 key[ER2BC_PROBE_KEY_MAX], key_len;

	peer_of(test, &peer, AF_INET, "10.0.2.0", 24);
	peer_of(test, &peer, AF_INET6, "2001:db8:2::", 48);
	/* toward the peer: by destination; from it: by source */
	KUNIT_EXPECT_EQ(test, classify(udp_skb(test, false, "10.0.1.1", "10.0.2.200", 53,
					       data, 100, false), &peer, true, key, &key_len),
			ER2BC_PKT_COUNT);
	KUNIT_EXPECT_EQ(test, classify(udp_skb(test, false, "10.0.1.1", "10.0.3.2", 53,
					       data, 100, false), &peer, true, key, &key_len),
			ER2BC_PKT_IGNORE);
	KUNIT_EXPECT_EQ(test, classify(udp_skb(test, false, "10.0.2.9", "10.0.1.1", 53,
					       data, 100, false), &peer, false, key, &key_len),
			ER2BC_PKT_COUNT);
	KUNIT_EXPECT_EQ(test, classify(udp_skb(test, true, "fe80::1", "ff02::1", 53,
					       data, 100, false), &peer, true, key, &key_len),
			ER2BC_PKT_IGNORE);
	KUNIT_EXPECT_EQ(test, classify(udp_skb(test, true, "fe80::1", "2001:db8:2:ffff::1",
					       53, data, 100, false), &peer, true, key, &key_len),
			ER2BC_PKT_COUNT);
}

static void probe_prefix_checks(struct kunit *test)
{
	static const u8 zero[16];
	struct er2bc_prefix p;
	u8 a[16] = { 10, 0, 2, 1 };

	KUNIT_EXPECT_EQ(test, er2bc_prefix_set(&p, AF_INET, 24, a, 16), -EINVAL);
	KUNIT_EXPECT_EQ(test, er2bc_prefix_set(&p, AF_INET, 32, a, 16), 0);
	KUNIT_EXPECT_EQ(test, er2bc_prefix_set(&p, AF_INET, 33, a, 16), -EINVAL);
	KUNIT_EXPECT_EQ(test, er2bc_prefix_set(&p, AF_INET6, 129, a, 16), -EINVAL);
	KUNIT_EXPECT_EQ(test, er2bc_prefix_set(&p, AF_INET6, 32, a, 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, er2bc_prefix_set(&p, 0, 0, a, 16), -EINVAL);
	a[3] = 0;
	KUNIT_EXPECT_EQ(test, er2bc_prefix_set(&p, AF_INET, 24, a, 4), 0);
	/* a zero-length prefix holds every address of its family only */
	KUNIT_EXPECT_EQ(test, er2bc_prefix_set(&p, AF_INET6, 0, zero, 16), 0);
	KUNIT_EXPECT_TRUE(test, er2bc_prefix_match(&p, AF_INET6, &in6addr_loopback));
	KUNIT_EXPECT_FALSE(test, er2bc_prefix_match(&p, AF_INET, &in6addr_loopback));
}

/* snapshots are found by key, the newest first, until the ring wraps past */
static void probe_snapshots(struct kunit *test)
{
	struct er2bc_count *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	const struct er2bc_snap *s;
	u8 key[4] = { 0, 1 };
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_NULL(test, er2bc_count_find(c, key, 4));
	for (i = 0; i < 3 * ER2BC_SNAP_RING; i++) {
		er2bc_count_add(c, 10, 15000);
		key[3] = i;
		er2bc_count_snap(c, key, 4, 1000 + i);
	}
	KUNIT_EXPECT_EQ(test, c->probes, 3 * ER2BC_SNAP_RING);
	key[3] = 3 * ER2BC_SNAP_RING - 1;
	s = er2bc_count_find(c, key, 4);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, s->packets, 10ULL * 3 * ER2BC_SNAP_RING);
	KUNIT_EXPECT_EQ(test, s->time, 1000ULL + 3 * ER2BC_SNAP_RING - 1);
	key[3] = 2 * ER2BC_SNAP_RING;
	s = er2bc_count_find(c, key, 4);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, s->bytes, 15000ULL * (2 * ER2BC_SNAP_RING + 1));
	/* fallen out of the ring; a longer key with the same start */
	key[3] = 2 * ER2BC_SNAP_RING - 1;
	KUNIT_EXPECT_NULL(test, er2bc_count_find(c, key, 4));
	KUNIT_EXPECT_NULL(test, er2bc_count_find(c, key, 3));
	/* the same key twice (a replay): the newest */
	er2bc_count_add(c, 5, 5);
	er2bc_count_snap(c, key, 4, 7);
	er2bc_count_add(c, 5, 5);
	er2bc_count_snap(c, key, 4, 8);
	KUNIT_EXPECT_EQ(test, er2bc_count_find(c, key, 4)->time, 8);
}

/* a received GRO packet of 10 TCP segments: 10 packets, 10 sets of headers */
static void probe_gro_wire_len(struct kunit *test)
{
	unsigned int data = 10 * 1448;
	struct sk_buff *skb = alloc_skb(sizeof(struct iphdr) + 32 + data, GFP_KERNEL);
	struct iphdr *iph;
	struct tcphdr *th;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reset_network_header(skb);
	iph = skb_put_zero(skb, sizeof(*iph));
	iph->version = 4;
	iph->ihl = 5;
	iph->protocol = IPPROTO_TCP;
	skb->protocol = htons(ETH_P_IP);
	skb_set_transport_header(skb, sizeof(*iph));
	th = skb_put_zero(skb, 32);
	th->doff = 8;
	skb_put_zero(skb, data);
	skb->mac_len = ETH_HLEN;
	skb_shinfo(skb)->gso_size = 1448;
	skb_shinfo(skb)->gso_segs = 10;
	skb_shinfo(skb)->gso_type = SKB_GSO_TCPV4;
	KUNIT_EXPECT_EQ(test, er2bc_skb_segs(skb), 10);
	/* each segment: 14 + 20 + 32 bytes of headers, and its data */
	KUNIT_EXPECT_EQ(test, er2bc_rx_wire_len(skb),
			(u64)10 * (ETH_HLEN + 20 + 32) + data);
	kfree_skb(skb);
}

/* the responder's window: newer epoch, or seq 1..32767 ahead in the same */
static void probe_replay_window(struct kunit *test)
{
	struct er2bc_replay w = {};

	KUNIT_EXPECT_TRUE(test, er2bc_replay_newer(&w, 0, 0));
	w = (struct er2bc_replay){ .have = true, .epoch = 10, .seq = 65535 };
	KUNIT_EXPECT_FALSE(test, er2bc_replay_newer(&w, 10, 65535));
	KUNIT_EXPECT_TRUE(test, er2bc_replay_newer(&w, 10, 0));
	KUNIT_EXPECT_TRUE(test, er2bc_replay_newer(&w, 10, 32766));
	KUNIT_EXPECT_FALSE(test, er2bc_replay_newer(&w, 10, 32767));
	KUNIT_EXPECT_FALSE(test, er2bc_replay_newer(&w, 10, 65534));
	KUNIT_EXPECT_FALSE(test, er2bc_replay_newer(&w, 9, 0));
	KUNIT_EXPECT_TRUE(test, er2bc_replay_newer(&w, 11, 65535));
}

/*
 * An authenticated request: HMAC-SHA-256 under "er2bc-kunit-key-0123456789abcdef"
 * of type 0x8001, seq 5, epoch 0x0102030405060708 (Python's hmac module)
 */
static const u8 probe_areq[ER2BC_PROBE_AREQ_BODY] = {
	0x80, 0x01, 0x00, 0x05, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0x0a, 0x60, 0x06, 0x2b, 0xd5, 0x1e, 0xcd, 0xd3, 0x8b, 0x27, 0x78, 0xb4,
	0x5e, 0xd7, 0xb3, 0x4d,
};

/* the tag, then the window, as the meter's tap takes a request */
static enum er2bc_auth probe_take(struct crypto_shash *tfm, struct er2bc_replay *w,
				  const u8 *req, unsigned int len)
{
	if (!er2bc_probe_tag_ok(tfm, req, len))
		return ER2BC_AUTH_BAD;
	return er2bc_replay_take(w, req);
}

static void probe_auth(struct kunit *test)
{
	static const char key[] = "er2bc-kunit-key-0123456789abcdef";
	struct er2bc_replay w = {};
	struct crypto_shash *tfm;
	u8 req[ER2BC_PROBE_AREQ_BODY];

	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm))
		kunit_skip(test, "no hmac(sha256): %ld", PTR_ERR(tfm));
	KUNIT_ASSERT_EQ(test, crypto_shash_setkey(tfm, key, sizeof(key) - 1), 0);

	/* taken once, then a replay */
	KUNIT_EXPECT_EQ(test, probe_take(tfm, &w, probe_areq, sizeof(probe_areq)),
			ER2BC_AUTH_OK);
	KUNIT_EXPECT_EQ(test, w.seq, 5);
	KUNIT_EXPECT_EQ(test, w.epoch, 0x0102030405060708ULL);
	KUNIT_EXPECT_EQ(test, probe_take(tfm, &w, probe_areq, sizeof(probe_areq)),
			ER2BC_AUTH_REPLAYED);

	/* any bit of the body or the tag changed: refused, the window kept */
	w = (struct er2bc_replay){};
	memcpy(req, probe_areq, sizeof(req));
	req[3] ^= 1;
	KUNIT_EXPECT_EQ(test, probe_take(tfm, &w, req, sizeof(req)), ER2BC_AUTH_BAD);
	memcpy(req, probe_areq, sizeof(req));
	req[sizeof(req) - 1] ^= 0x80;
	KUNIT_EXPECT_EQ(test, probe_take(tfm, &w, req, sizeof(req)), ER2BC_AUTH_BAD);
	KUNIT_EXPECT_FALSE(test, w.have);

	/* plain, or the wrong size */
	KUNIT_EXPECT_EQ(test, probe_take(tfm, &w, (const u8 *)"\0\1\0\5", 4),
			ER2BC_AUTH_BAD);
	KUNIT_EXPECT_EQ(test, probe_take(tfm, &w, probe_areq, sizeof(probe_areq) - 1),
			ER2BC_AUTH_BAD);

	/* another key */
	KUNIT_ASSERT_EQ(test, crypto_shash_setkey(tfm, key, sizeof(key) - 2), 0);
	KUNIT_EXPECT_EQ(test, probe_take(tfm, &w, probe_areq, sizeof(probe_areq)),
			ER2BC_AUTH_BAD);
	crypto_free_shash(tfm);
}

static struct kunit_case er2bc_probe_cases[] = {
	KUNIT_CASE(probe_request_is_cut),
	KUNIT_CASE(probe_peer_prefixes),
	KUNIT_CASE(probe_prefix_checks),
	KUNIT_CASE(probe_snapshots),
	KUNIT_CASE(probe_gro_wire_len),
	KUNIT_CASE(probe_replay_window),
	KUNIT_CASE(probe_auth),
	{}
};

static struct kunit_suite er2bc_probe_suite = {
	.name = "er2bc_probe",
	.test_cases = er2bc_probe_cases,
};

kunit_test_suite(er2bc_probe_suite);
