// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_rcvmgr's connection table (table.h): entries in and out, under the
 * namespace's lock, and freed after a grace period once the last
 * reference goes.
 */
#include <linux/export.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <net/tcp.h>
#include <kunit/visibility.h>

#include "table.h"

unsigned int rcvmgr_net_id __read_mostly;
struct kmem_cache *rcvmgr_conn_cache __read_mostly;

static void rcvmgr_conn_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(rcvmgr_conn_cache, container_of(head, struct rcvmgr_conn, rcu));
}

void rcvmgr_conn_put(struct rcvmgr_conn *c)
{
	if (refcount_dec_and_test(&c->ref))
		call_rcu(&c->rcu, rcvmgr_conn_free_rcu);
}

/* @c carried data or went: it no longer counts as opening */
void rcvmgr_conn_clear_opening(struct rcvmgr_net *rn, struct rcvmgr_conn *c)
{
	if (test_and_clear_bit(RCVMGR_CONN_OPENING, &c->atomic_flags))
		atomic_dec(&rn->n_opening);
}

/* @c, still linked, out of the table and the list (rn->lock held) */
static void __rcvmgr_conn_unlink(struct rcvmgr_net *rn, struct rcvmgr_conn *c)
{
	lockdep_assert_held(&rn->lock);
	c->unlinked = true;
	rhashtable_remove_fast(&rn->table, &c->node, rcvmgr_rht_params);
	/* the control walk goes on from the entry before, still linked */
	if (rn->walk_pos == &c->list)
		rn->walk_pos = c->list.prev;
	list_del_rcu(&c->list);
	atomic_dec(&rn->count);
	atomic64_inc(&rn->freed);
	rcvmgr_conn_clear_opening(rn, c);
}

/*
 * How long a kept connection may come back: longer than a sender
 * retransmits unanswered before it gives up (tcp_retries2's default, 15:
 * 924.6 s)
 */
#define RCVMGR_KEPT_NS		(20ULL * 60 * NSEC_PER_SEC)

/*
 * a kept connection's data comes back within a window of where its
 * sender's was (rcvmgr_conn_keep()): a window of at least 64 KiB, at most
 * 512 MiB, so that the range, three of them, is less than half the
 * sequence space (before() and after())
 */
#define RCVMGR_KEPT_SPAN	SZ_64K
#define RCVMGR_KEPT_SPAN_MAX	SZ_512M

static_assert(sizeof(struct rcvmgr_kept) == 64);

/*
 * What to keep of @c, being forgotten (under c->lock), into *@k: a managed
 * connection that carried data (or one managed again from what was kept,
 * RCVMGR_F_RECALLED, before its first byte) whose handshake ended may go on
 * however long it was quiet (idle-timeout, the linger after a reset that
 * did not end it, a SYN of its receiver's after a quiet second). Not one
 * closing (its sender's FIN passed: nothing follows it) or tracked
 * unscaled. Its sender's data, when it comes back, lies from two windows
 * below the highest seen here (the ACKs the sender got may be older than
 * the receiver's last) to one above it (a first segment lost on the way,
 * a window opened again): a window being the larger of the current
 * assignment and the receiver's last offer. The range, and whether it is
 * kept, rest on the sender's data alone, which a LAN host cannot forge
 * with wan devices set, not on the receiver's ACKs, which it can.
 */
bool rcvmgr_conn_keep(const struct rcvmgr_conn *c, u64 now, struct rcvmgr_kept *k)
{
	bool scaled = rcvmgr_scaled(c);
	u32 span;

	BUILD_BUG_ON(3ULL * RCVMGR_KEPT_SPAN_MAX >= BIT_ULL(31));
	if ((c->state != TCP_RCVMGR_STATE_INITIAL && c->state != TCP_RCVMGR_STATE_PERSISTENT) ||
	    !(c->flags & RCVMGR_F_ESTABLISHED) || !(c->flags & RCVMGR_F_SND_NXT) ||
	    (!c->bytes && !(c->flags & RCVMGR_F_RECALLED)))
		return false;
	span = clamp_t(u32, max(READ_ONCE(c->window), c->advertised), RCVMGR_KEPT_SPAN,
		       RCVMGR_KEPT_SPAN_MAX);
	*k = (struct rcvmgr_kept) {
		.key = c->key,
		.ns = now,
		.seq_lo = c->snd_nxt - 2 * span,
		.seq_hi = c->snd_nxt + span,
		.carried_kib = min_t(u64, c->bytes >> 10, U32_MAX),
		.snd_wscale = scaled ? c->snd_wscale : 0,
		.rcv_wscale = scaled ? c->wscale : 0,
		.rcv_opened = !!(c->flags & RCVMGR_F_RCV_OPENED),
		.ts = (c->flags & RCVMGR_F_TS) == RCVMGR_F_TS,
	};
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(rcvmgr_conn_keep);

/* the set of slots that may keep @key's connection (rn->lock, rn->kept) */
static struct rcvmgr_kept *rcvmgr_kept_set(const struct rcvmgr_net *rn,
					   const struct rcvmgr_key *key)
{
	u32 h = rcvmgr_key_hash(key, sizeof(*key), rn->kept_seed);

	return &rn->kept[(h & (rn->kept_sets - 1)) * RCVMGR_KEPT_WAYS];
}

/* whether @k, a slot, keeps a connection as of @now (not too old) */
static bool rcvmgr_kept_live(const struct rcvmgr_kept *k, u64 now)
{
	return k->ns && (now < k->ns || now - k->ns < RCVMGR_KEPT_NS);
}

/*
 * the slot that keeps @key's connection, if one does (rn->lock held); one
 * too old as of @now is freed
 */
static struct rcvmgr_kept *rcvmgr_kept_find(struct rcvmgr_net *rn,
					    const struct rcvmgr_key *key, u64 now)
{
	struct rcvmgr_kept *set, *k;

	lockdep_assert_held(&rn->lock);
	if (!rn->kept)
		return NULL;
	set = rcvmgr_kept_set(rn, key);
	for (k = set; k < set + RCVMGR_KEPT_WAYS; k++) {
		if (!k->ns || !rcvmgr_key_equal(&k->key, key))
			continue;
		if (rcvmgr_kept_live(k, now))
			return k;
		k->ns = 0;
	}
	return NULL;
}

/*
 * whether a full set gives up @a before @b: it carried less, or as much
 * and was kept earlier. A LAN host that would push its own stalled
 * download's record out of its set (and the rest of the download out of
 * the policy) must fill the set with newer connections that each carried
 * at least as much through the gateway, under the window policy.
 */
static bool rcvmgr_kept_before(const struct rcvmgr_kept *a, const struct rcvmgr_kept *b)
{
	if (a->carried_kib != b->carried_kib)
		return a->carried_kib < b->carried_kib;
	return a->ns < b->ns;
}

/*
 * @k kept as of @now (rn->lock held): in the slot of its connection, else
 * in a free one of its set (or one too old), else in place of the one
 * that carried least (rcvmgr_kept_before()), unless @k would go first
 * itself (one put back, or one that carried less): the one left out is
 * lost, and counted. The seed of the sets' hash is random: a host cannot
 * aim connections at another's set. An entry of its connection made while
 * @k was out (data on another CPU) looks here from now on.
 */
static void __rcvmgr_kept_put(struct rcvmgr_net *rn, const struct rcvmgr_kept *k, u64 now)
{
	struct rcvmgr_kept *set, *s, *slot;
	struct rcvmgr_conn *c;

	BUILD_BUG_ON(RCVMGR_KEPT_WAYS < 1);
	if (!rn->kept)
		return;
	slot = rcvmgr_kept_find(rn, &k->key, now);
	if (!slot) {
		set = rcvmgr_kept_set(rn, &k->key);
		for (s = set; s < set + RCVMGR_KEPT_WAYS; s++) {
			if (!rcvmgr_kept_live(s, now)) {
				slot = s;
				break;
			}
			if (!slot || rcvmgr_kept_before(s, slot))
				slot = s;
		}
		if (rcvmgr_kept_live(slot, now)) {
			atomic64_inc(&rn->kept_lost);
			if (rcvmgr_kept_before(k, slot))
				return;
		}
	}
	*slot = *k;
	c = rhashtable_lookup_fast(&rn->table, &k->key, rcvmgr_rht_params);
	if (c)
		set_bit(RCVMGR_CONN_KEPT, &c->atomic_flags);
}

void rcvmgr_kept_put(struct rcvmgr_net *rn, const struct rcvmgr_kept *k, u64 now)
{
	spin_lock_bh(&rn->lock);
	__rcvmgr_kept_put(rn, k, now);
	spin_unlock_bh(&rn->lock);
}
EXPORT_SYMBOL_IF_KUNIT(rcvmgr_kept_put);

/*
 * What was kept of @key's connection, taken into *@out if it is live and
 * data of its sender's from @seq to @end may be that connection's
 * (rcvmgr_conn_keep()): RCVMGR_KEPT_TAKEN. A forger from the WAN must
 * guess that, as for a reset: a miss (RCVMGR_KEPT_MISSED) leaves what was
 * kept, and the entry its data makes looks again at the next
 * (RCVMGR_CONN_KEPT). RCVMGR_KEPT_NONE: nothing is kept of it.
 */
enum rcvmgr_kept_took rcvmgr_kept_take(struct rcvmgr_net *rn, const struct rcvmgr_key *key,
				       u32 seq, u32 end, u64 now, struct rcvmgr_kept *out)
{
	enum rcvmgr_kept_took took = RCVMGR_KEPT_NONE;
	struct rcvmgr_kept *k;

	spin_lock(&rn->lock);
	k = rcvmgr_kept_find(rn, key, now);
	if (k && !before(seq, k->seq_lo) && !after(end, k->seq_hi)) {
		*out = *k;
		k->ns = 0;
		took = RCVMGR_KEPT_TAKEN;
	} else if (k) {
		took = RCVMGR_KEPT_MISSED;
	}
	spin_unlock(&rn->lock);
	return took;
}
EXPORT_SYMBOL_IF_KUNIT(rcvmgr_kept_take);

/*
 * @k, taken for @c's data and applied to it (rcvmgr_data_recall()): kept
 * again if @c went meanwhile (unlinked on another CPU, nothing kept of
 * it then), so that the connection's next data finds it
 */
void rcvmgr_kept_again(struct rcvmgr_net *rn, const struct rcvmgr_conn *c,
		       const struct rcvmgr_kept *k, u64 now)
{
	spin_lock_bh(&rn->lock);
	if (c->unlinked)
		__rcvmgr_kept_put(rn, k, now);
	spin_unlock_bh(&rn->lock);
}

/*
 * Room to keep forgotten connections, once the hooks first go in (under
 * ctl_mutex, the one writer), sized by @max_conns then (table.h), until
 * the namespace goes (a later max-conns does not resize it): the more
 * connections a gateway carries, the more of them end and are kept at
 * once, and the more a LAN host must open to push one of its own out
 */
int rcvmgr_kept_alloc(struct rcvmgr_net *rn, u32 max_conns)
{
	u32 sets = rcvmgr_kept_sets(max_conns);
	struct rcvmgr_kept *kept;

	/* the set mask relies on it */
	BUILD_BUG_ON_NOT_POWER_OF_2(RCVMGR_KEPT_SETS_MIN);
	BUILD_BUG_ON_NOT_POWER_OF_2(RCVMGR_KEPT_SETS_MAX);
	lockdep_assert_held(&rn->ctl_mutex);
	if (rn->kept)
		return 0;
	kept = kvcalloc(sets * RCVMGR_KEPT_WAYS, sizeof(*kept), GFP_KERNEL_ACCOUNT);
	if (!kept)
		return -ENOMEM;
	spin_lock_bh(&rn->lock);
	rn->kept_seed = get_random_u32();
	WRITE_ONCE(rn->kept_sets, sets);
	/* its size first, for rcvmgr_kept_bytes() */
	smp_store_release(&rn->kept, kept);
	spin_unlock_bh(&rn->lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rcvmgr_kept_alloc);

/* nothing kept: what the hooks learnt goes with them */
void rcvmgr_kept_flush(struct rcvmgr_net *rn)
{
	spin_lock_bh(&rn->lock);
	if (rn->kept)
		memset(rn->kept, 0, rcvmgr_kept_bytes(rn));
	spin_unlock_bh(&rn->lock);
}
EXPORT_SYMBOL_IF_KUNIT(rcvmgr_kept_flush);

/*
 * the room gone: the namespace goes (no hook runs, no control work), or
 * the hooks did not go in (under ctl_mutex: no control work)
 */
void rcvmgr_kept_free(struct rcvmgr_net *rn)
{
	struct rcvmgr_kept *kept = rn->kept;

	spin_lock_bh(&rn->lock);
	WRITE_ONCE(rn->kept, NULL);
	spin_unlock_bh(&rn->lock);
	kvfree(kept);
}
EXPORT_SYMBOL_IF_KUNIT(rcvmgr_kept_free);

/*
 * @c out of the table, and, if @keep, what rcvmgr_conn_keep() keeps of it
 * as of @now, at once: its data finds either. Decided here, under the
 * entry's lock inside rn->lock, not before: data on another CPU may have
 * made the entry one that is kept (managed it again) meanwhile. False if
 * another CPU took it out first (nothing kept then).
 */
bool rcvmgr_conn_forget(struct rcvmgr_net *rn, struct rcvmgr_conn *c, bool keep, u64 now)
{
	struct rcvmgr_kept k;
	bool put = false;

	spin_lock_bh(&rn->lock);
	if (!c->unlinked) {
		if (keep) {
			spin_lock(&c->lock);
			keep = rcvmgr_conn_keep(c, now, &k);
			spin_unlock(&c->lock);
		}
		__rcvmgr_conn_unlink(rn, c);
		if (keep)
			__rcvmgr_kept_put(rn, &k, now);
		put = true;
	}
	spin_unlock_bh(&rn->lock);
	if (put)
		rcvmgr_conn_put(c);
	return put;
}

/*
 * @c into the table, if it holds fewer than @max_conns entries and, for
 * one opened by a SYN (@max_opening not 0), fewer than @max_opening
 * without data: -ENOSPC, -EBUSY if not (the bounds checked again, exact:
 * every increment is under the lock), -EEXIST if another CPU added the
 * same connection first. The caller's reference becomes the table's.
 */
int rcvmgr_conn_insert(struct rcvmgr_net *rn, struct rcvmgr_conn *c, u32 max_conns,
		       u32 max_opening)
{
	int err = 0;

	spin_lock(&rn->lock);
	if (atomic_read(&rn->count) >= max_conns)
		err = -ENOSPC;
	else if (max_opening && atomic_read(&rn->n_opening) >= max_opening)
		err = -EBUSY;
	/*
	 * One kept on its addresses and ports (one opened there since by a
	 * SYN the other end did not answer, one tracked unscaled, may be
	 * that one come back): its sender's mid-stream data looks there
	 * (rcvmgr_data_recall()). Set before it is visible, as opening is.
	 */
	if (!err && rcvmgr_kept_find(rn, &c->key, c->created_ns))
		__set_bit(RCVMGR_CONN_KEPT, &c->atomic_flags);
	/* opening before it is visible: its first data may come at once */
	if (!err && max_opening) {
		__set_bit(RCVMGR_CONN_OPENING, &c->atomic_flags);
		atomic_inc(&rn->n_opening);
	}
	if (!err) {
		err = rhashtable_lookup_insert_fast(&rn->table, &c->node, rcvmgr_rht_params);
		if (err && max_opening)
			atomic_dec(&rn->n_opening);
	}
	if (!err) {
		list_add_tail_rcu(&c->list, &rn->conns);
		atomic_inc(&rn->count);
	}
	spin_unlock(&rn->lock);
	return err;
}

/*
 * every connection, gone: no hook runs; the control work may, and its
 * expiry unlinks entries too, so each is taken from the list's head under
 * rn->lock (an entry on the list is linked), never from a cursor another
 * CPU could free
 */
void rcvmgr_flush(struct rcvmgr_net *rn)
{
	struct rcvmgr_conn *c;

	for (;;) {
		spin_lock_bh(&rn->lock);
		c = list_first_entry_or_null(&rn->conns, struct rcvmgr_conn, list);
		if (c)
			__rcvmgr_conn_unlink(rn, c);
		spin_unlock_bh(&rn->lock);
		if (!c)
			return;
		rcvmgr_conn_put(c);
		cond_resched();
	}
}
