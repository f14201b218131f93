// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of what tcp_rcvmgr keeps of the connections it forgets
 * (table.c): which are kept, the sequence range their data must come
 * back in, and the sets' eviction. Sequence numbers are worked out by
 * hand in the comments.
 */
#include <kunit/test.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "table.h"

#define KEPT_NS		(20ULL * 60 * NSEC_PER_SEC)
#define TAKEN		RCVMGR_KEPT_TAKEN
#define MISSED		RCVMGR_KEPT_MISSED
#define NONE		RCVMGR_KEPT_NONE

static void kept_net_release(void *data)
{
	struct rcvmgr_net *rn = data;

	rcvmgr_kept_free(rn);
	rhashtable_destroy(&rn->table);
}

/* a namespace's state, an empty table and room for @max_conns */
static struct rcvmgr_net *kept_net(struct kunit *test, u32 max_conns)
{
	struct rcvmgr_net *rn = kunit_kzalloc(test, sizeof(*rn), GFP_KERNEL);
	int err;

	KUNIT_ASSERT_NOT_NULL(test, rn);
	spin_lock_init(&rn->lock);
	mutex_init(&rn->ctl_mutex);
	KUNIT_ASSERT_EQ(test, rhashtable_init(&rn->table, &rcvmgr_rht_params), 0);
	mutex_lock(&rn->ctl_mutex);
	err = rcvmgr_kept_alloc(rn, max_conns);
	mutex_unlock(&rn->ctl_mutex);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kept_net_release, rn), 0);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_NOT_NULL(test, rn->kept);
	KUNIT_ASSERT_EQ(test, rn->kept_sets, rcvmgr_kept_sets(max_conns));
	return rn;
}

/* a managed download at scale 7, its sender at 9: 4 MiB carried */
static void kept_conn(struct rcvmgr_conn *c, u32 snd_nxt, u32 window)
{
	memset(c, 0, sizeof(*c));
	c->key.family = AF_INET;
	c->key.saddr.s6_addr32[0] = htonl(0xc0000201);
	c->key.daddr.s6_addr32[0] = htonl(0x0a030002);
	c->key.sport = htons(443);
	c->key.dport = htons(47021);
	c->state = TCP_RCVMGR_STATE_PERSISTENT;
	c->flags = RCVMGR_F_HANDSHAKE | RCVMGR_F_SND_WS | RCVMGR_F_RCV_WS | RCVMGR_F_TS |
		   RCVMGR_F_ESTABLISHED | RCVMGR_F_SND_NXT | RCVMGR_F_RCV_OPENED;
	c->snd_wscale = 9;
	c->rcv_wscale = 7;
	c->wscale = 7;
	c->snd_nxt = snd_nxt;
	c->window = window;
	c->bytes = 4 * SZ_1M;
}

/* what is kept of a managed connection, and its range */
static void kept_keep(struct kunit *test)
{
	struct rcvmgr_conn *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct rcvmgr_kept k;

	KUNIT_ASSERT_NOT_NULL(test, c);
	/* a window of 256 KiB: from 1000000 - 512 KiB to 1000000 + 256 KiB */
	kept_conn(c, 1000000, 256 * 1024);
	KUNIT_ASSERT_TRUE(test, rcvmgr_conn_keep(c, 5, &k));
	KUNIT_EXPECT_EQ(test, k.seq_lo, 1000000U - 524288);
	KUNIT_EXPECT_EQ(test, k.seq_hi, 1000000U + 262144);
	KUNIT_EXPECT_EQ(test, k.ns, 5ULL);
	KUNIT_EXPECT_EQ(test, k.snd_wscale, 9);
	KUNIT_EXPECT_EQ(test, k.rcv_wscale, 7);
	KUNIT_EXPECT_TRUE(test, k.rcv_opened);
	KUNIT_EXPECT_TRUE(test, k.ts);
	KUNIT_EXPECT_TRUE(test, rcvmgr_key_equal(&k.key, &c->key));
	KUNIT_EXPECT_EQ(test, k.carried_kib, 4096U);
	/* what it carried in KiB, below one rounded down, saturating */
	c->bytes = 1023;
	KUNIT_ASSERT_TRUE(test, rcvmgr_conn_keep(c, 5, &k));
	KUNIT_EXPECT_EQ(test, k.carried_kib, 0U);
	c->bytes = (u64)U32_MAX << 10;
	KUNIT_ASSERT_TRUE(test, rcvmgr_conn_keep(c, 5, &k));
	KUNIT_EXPECT_EQ(test, k.carried_kib, U32_MAX);
	c->bytes = U64_MAX;
	KUNIT_ASSERT_TRUE(test, rcvmgr_conn_keep(c, 5, &k));
	KUNIT_EXPECT_EQ(test, k.carried_kib, U32_MAX);
	c->bytes = 4 * SZ_1M;

	/* the receiver's last offer, if larger, is the window */
	c->advertised = SZ_1M;
	KUNIT_ASSERT_TRUE(test, rcvmgr_conn_keep(c, 5, &k));
	KUNIT_EXPECT_EQ(test, k.seq_hi, 1000000U + SZ_1M);
	/* a window of 4 KiB counts as 64 KiB, from 100: lo wraps */
	kept_conn(c, 100, 4096);
	KUNIT_ASSERT_TRUE(test, rcvmgr_conn_keep(c, 5, &k));
	KUNIT_EXPECT_EQ(test, k.seq_lo, (u32)(100 - 2 * 65536));
	KUNIT_EXPECT_EQ(test, k.seq_hi, 100U + 65536);
	/* 4 GiB offered counts as 512 MiB: the range stays under 2^31 */
	c->advertised = U32_MAX;
	KUNIT_ASSERT_TRUE(test, rcvmgr_conn_keep(c, 5, &k));
	KUNIT_EXPECT_EQ(test, k.seq_hi - k.seq_lo, 3U << 29);
	/* without both scales, none */
	c->flags &= ~RCVMGR_F_SND_WS;
	KUNIT_ASSERT_TRUE(test, rcvmgr_conn_keep(c, 5, &k));
	KUNIT_EXPECT_EQ(test, k.snd_wscale, 0);
	KUNIT_EXPECT_EQ(test, k.rcv_wscale, 0);
}

/*
 * what is not kept: nothing can follow it, nothing to manage it by, or no
 * data; and what is, whatever the receiver's ACKs said
 */
static void kept_not_kept(struct kunit *test)
{
	struct rcvmgr_conn *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct rcvmgr_kept k;

	KUNIT_ASSERT_NOT_NULL(test, c);
	kept_conn(c, 1000, 65536);
	c->state = TCP_RCVMGR_STATE_CLOSING;
	KUNIT_EXPECT_FALSE(test, rcvmgr_conn_keep(c, 5, &k));
	c->state = TCP_RCVMGR_STATE_UNSCALED;
	KUNIT_EXPECT_FALSE(test, rcvmgr_conn_keep(c, 5, &k));
	kept_conn(c, 1000, 65536);
	c->flags &= ~RCVMGR_F_ESTABLISHED;
	KUNIT_EXPECT_FALSE(test, rcvmgr_conn_keep(c, 5, &k));
	kept_conn(c, 1000, 65536);
	c->flags &= ~RCVMGR_F_SND_NXT;
	KUNIT_EXPECT_FALSE(test, rcvmgr_conn_keep(c, 5, &k));
	/* one that carried no data has none to come back; one byte is enough */
	kept_conn(c, 1000, 65536);
	c->bytes = 0;
	KUNIT_EXPECT_FALSE(test, rcvmgr_conn_keep(c, 5, &k));
	c->bytes = 1;
	KUNIT_EXPECT_TRUE(test, rcvmgr_conn_keep(c, 5, &k));
	/* one managed again from what was kept is, from its first byte on */
	c->bytes = 0;
	c->flags |= RCVMGR_F_RECALLED;
	KUNIT_EXPECT_TRUE(test, rcvmgr_conn_keep(c, 5, &k));
	/* the receiver's ACK past the sender's data (unseen) changes nothing */
	kept_conn(c, 1000, 65536);
	c->flags |= RCVMGR_F_UNSEEN;
	KUNIT_EXPECT_TRUE(test, rcvmgr_conn_keep(c, 5, &k));
}

/* taken once, by data in its range only, and not once too old */
static void kept_take(struct kunit *test)
{
	struct rcvmgr_conn *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct rcvmgr_net *rn = kept_net(test, 4096);
	struct rcvmgr_key other;
	struct rcvmgr_kept k, out;

	KUNIT_ASSERT_NOT_NULL(test, c);
	/* from 100 - 131072 (wrapped) to 100 + 65536 */
	kept_conn(c, 100, 4096);
	KUNIT_ASSERT_TRUE(test, rcvmgr_conn_keep(c, 1000, &k));
	rcvmgr_kept_put(rn, &k, 1000);
	/* past the range, and ending past it: missed, still kept */
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k.key, 65637, 67085, 2000, &out), MISSED);
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k.key, 65000, 66448, 2000, &out), MISSED);
	/* below it: 100 - 131073 */
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k.key, (u32)(100 - 131073),
					       (u32)(100 - 131073) + 1448, 2000, &out), MISSED);
	/* another port: none */
	other = k.key;
	other.dport = htons(47022);
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &other, 100, 1548, 2000, &out), NONE);
	/* across the wrap, a retransmission: taken, once */
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k.key, (u32)-1000, 448, 2000, &out), TAKEN);
	KUNIT_EXPECT_EQ(test, out.snd_wscale, 9);
	KUNIT_EXPECT_EQ(test, out.rcv_wscale, 7);
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k.key, (u32)-1000, 448, 2000, &out), NONE);

	/* 20 minutes after it was kept, it is gone */
	rcvmgr_kept_put(rn, &k, 1000);
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k.key, 100, 1548, 999 + KEPT_NS, &out),
			TAKEN);
	rcvmgr_kept_put(rn, &k, 1000);
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k.key, 100, 1548, 1000 + KEPT_NS, &out),
			NONE);
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k.key, 100, 1548, 2000, &out), NONE);

	/* flushed with the hooks */
	rcvmgr_kept_put(rn, &k, 1000);
	rcvmgr_kept_flush(rn);
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k.key, 100, 1548, 2000, &out), NONE);
	KUNIT_EXPECT_EQ(test, atomic64_read(&rn->kept_lost), 0);
}

/*
 * Of records that carried as much, a full set gives up its oldest, counted
 * while younger than 20 minutes; one put back older than all of a full
 * set's is the one lost
 */
static void kept_evict(struct kunit *test)
{
	struct rcvmgr_conn *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct rcvmgr_net *rn = kept_net(test, 4096);
	struct rcvmgr_kept k[RCVMGR_KEPT_WAYS + 2], out;
	unsigned int n = 0, port;
	u32 set = 0, h;

	KUNIT_ASSERT_NOT_NULL(test, c);
	kept_conn(c, 100000, 65536);
	/* client ports whose keys fall in one set (about 1 in 256 do) */
	for (port = 1024; port < 65536 && n < ARRAY_SIZE(k); port++) {
		c->key.dport = htons(port);
		h = rcvmgr_key_hash(&c->key, sizeof(c->key), rn->kept_seed) & (rn->kept_sets - 1);
		if (n && h != set)
			continue;
		set = h;
		KUNIT_ASSERT_TRUE(test, rcvmgr_conn_keep(c, 1000 + n, &k[n]));
		n++;
	}
	KUNIT_ASSERT_EQ(test, n, ARRAY_SIZE(k));

	for (n = 0; n < RCVMGR_KEPT_WAYS; n++)
		rcvmgr_kept_put(rn, &k[n], 2000);
	KUNIT_EXPECT_EQ(test, atomic64_read(&rn->kept_lost), 0);
	/* the same again takes its own slot */
	rcvmgr_kept_put(rn, &k[1], 2000);
	KUNIT_EXPECT_EQ(test, atomic64_read(&rn->kept_lost), 0);
	/* a fifth: the first (the oldest) out, counted */
	rcvmgr_kept_put(rn, &k[RCVMGR_KEPT_WAYS], 2000);
	KUNIT_EXPECT_EQ(test, atomic64_read(&rn->kept_lost), 1);
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k[0].key, 100000, 101448, 2000, &out), NONE);
	/* the first put back, older than every one kept: left out, counted */
	rcvmgr_kept_put(rn, &k[0], 2000);
	KUNIT_EXPECT_EQ(test, atomic64_read(&rn->kept_lost), 2);
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k[0].key, 100000, 101448, 2000, &out), NONE);
	/* 20 minutes after the second was kept, it is given up uncounted */
	k[RCVMGR_KEPT_WAYS + 1].ns = 1001 + KEPT_NS;
	rcvmgr_kept_put(rn, &k[RCVMGR_KEPT_WAYS + 1], 1001 + KEPT_NS);
	KUNIT_EXPECT_EQ(test, atomic64_read(&rn->kept_lost), 2);
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k[1].key, 100000, 101448, 2000, &out), NONE);
	for (n = 2; n < ARRAY_SIZE(k); n++)
		KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k[n].key, 100000, 101448,
						       1001 + KEPT_NS, &out), TAKEN);
}

/*
 * A full set gives up the record that carried least, the oldest of
 * those: a LAN host's stalled download, kept with the 1 MiB it carried,
 * is not pushed out by any number of its host's newer connections that
 * carried 64 KiB (the code before gave up the oldest: the download's, at
 * the fourth); one that carried less than every record kept is the one
 * lost; one that carried as much pushes the older out
 */
static void kept_evict_carried(struct kunit *test)
{
	struct rcvmgr_conn *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct rcvmgr_net *rn = kept_net(test, 4096);
	/* (the download's, sixteen more; on the heap: KASAN's frames are large) */
	const unsigned int n_k = RCVMGR_KEPT_WAYS + 16;
	struct rcvmgr_kept *k = kunit_kcalloc(test, n_k, sizeof(*k), GFP_KERNEL);
	struct rcvmgr_kept big, out;
	unsigned int n = 0, port;
	u32 set = 0, h;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, k);
	kept_conn(c, 100000, 65536);
	/* client ports whose keys fall in one set (about 1 in 256 do) */
	for (port = 1024; port < 65536 && n < n_k + 1; port++) {
		c->key.dport = htons(port);
		h = rcvmgr_key_hash(&c->key, sizeof(c->key), rn->kept_seed) & (rn->kept_sets - 1);
		if (n && h != set)
			continue;
		set = h;
		/* the first, the download: 1 MiB; the others 64 KiB */
		c->bytes = n ? SZ_64K : SZ_1M;
		if (n < n_k)
			KUNIT_ASSERT_TRUE(test, rcvmgr_conn_keep(c, 1000 + n, &k[n]));
		else
			KUNIT_ASSERT_TRUE(test, rcvmgr_conn_keep(c, 1000 + n, &big));
		n++;
	}
	KUNIT_ASSERT_EQ(test, n, n_k + 1);

	for (n = 0; n < RCVMGR_KEPT_WAYS; n++)
		rcvmgr_kept_put(rn, &k[n], 2000);
	KUNIT_EXPECT_EQ(test, atomic64_read(&rn->kept_lost), 0);
	/* sixteen more of 64 KiB: each pushes out the oldest of its kind */
	for (n = RCVMGR_KEPT_WAYS; n < n_k; n++)
		rcvmgr_kept_put(rn, &k[n], 2000);
	KUNIT_EXPECT_EQ(test, atomic64_read(&rn->kept_lost), 16);
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k[RCVMGR_KEPT_WAYS].key, 100000, 101448,
					       2000, &out), NONE);
	/* the download's is still there, with what it carried */
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k[0].key, 100000, 101448, 2000, &out), TAKEN);
	KUNIT_EXPECT_EQ(test, out.carried_kib, 1024U);
	rcvmgr_kept_put(rn, &k[0], 2000);
	/* the last three of 64 KiB are too */
	for (n = n_k - 3; n < n_k; n++) {
		KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k[n].key, 100000, 101448, 2000, &out),
				TAKEN);
		rcvmgr_kept_put(rn, &k[n], 2000);
	}
	/* one that carried less than every one kept: itself lost */
	k[1].carried_kib = 63;
	k[1].ns = 3000;
	rcvmgr_kept_put(rn, &k[1], 3000);
	KUNIT_EXPECT_EQ(test, atomic64_read(&rn->kept_lost), 17);
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k[1].key, 100000, 101448, 3000, &out), NONE);
	/*
	 * newer ones that carried 1 MiB: those of 64 KiB go first, the
	 * download last, as the oldest of those that carried as much
	 */
	big.carried_kib = 1024;
	big.ns = 3000;
	rcvmgr_kept_put(rn, &big, 3000);
	for (n = 2; n <= 3; n++) {
		k[n].carried_kib = 1024;
		k[n].ns = 3000 + n;
		rcvmgr_kept_put(rn, &k[n], 3000 + n);
	}
	KUNIT_EXPECT_EQ(test, atomic64_read(&rn->kept_lost), 20);
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k[0].key, 100000, 101448, 3004, &out), TAKEN);
	rcvmgr_kept_put(rn, &k[0], 3004);
	k[5].carried_kib = 1024;
	k[5].ns = 3005;
	rcvmgr_kept_put(rn, &k[5], 3005);
	KUNIT_EXPECT_EQ(test, atomic64_read(&rn->kept_lost), 21);
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k[0].key, 100000, 101448, 3005, &out), NONE);
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k[5].key, 100000, 101448, 3005, &out), TAKEN);
}

/* the room by max-conns: a sixteenth, up to a power of two, 256 to 4096 sets */
static void kept_sizes(struct kunit *test)
{
	static const u32 want[][2] = {
		{ 1, 256 }, { 4111, 256 }, { 4112, 512 }, { 8192, 512 }, { 20000, 2048 },
		{ 65535, 4096 }, { 65536, 4096 }, { 16777216, 4096 }, { U32_MAX, 4096 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ_MSG(test, rcvmgr_kept_sets(want[i][0]), want[i][1],
				    "max-conns %u", want[i][0]);
}

/* a flush empties the whole room, the last of 4096 sets too */
static void kept_flush_all(struct kunit *test)
{
	struct rcvmgr_conn *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct rcvmgr_net *rn = kept_net(test, 65536);
	struct rcvmgr_kept k, out;
	unsigned int port;

	KUNIT_ASSERT_NOT_NULL(test, c);
	kept_conn(c, 100000, 65536);
	/* a client port whose key falls in the last set */
	for (port = 1024; port < 65536; port++) {
		c->key.dport = htons(port);
		if ((rcvmgr_key_hash(&c->key, sizeof(c->key), rn->kept_seed) &
		     (rn->kept_sets - 1)) == rn->kept_sets - 1)
			break;
	}
	KUNIT_ASSERT_LT(test, port, 65536U);
	KUNIT_ASSERT_TRUE(test, rcvmgr_conn_keep(c, 1000, &k));
	rcvmgr_kept_put(rn, &k, 1000);
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_bytes(rn), (size_t)SZ_1M);
	rcvmgr_kept_flush(rn);
	KUNIT_EXPECT_EQ(test, rcvmgr_kept_take(rn, &k.key, 100000, 101448, 2000, &out), NONE);
}

static struct kunit_case rcvmgr_kept_cases[] = {
	KUNIT_CASE(kept_sizes),
	KUNIT_CASE(kept_flush_all),
	KUNIT_CASE(kept_keep),
	KUNIT_CASE(kept_not_kept),
	KUNIT_CASE(kept_take),
	KUNIT_CASE(kept_evict),
	KUNIT_CASE(kept_evict_carried),
	{}
};

static struct kunit_suite rcvmgr_kept_suite = {
	.name = "tcp_rcvmgr_kept",
	.test_cases = rcvmgr_kept_cases,
};

kunit_test_suite(rcvmgr_kept_suite);
