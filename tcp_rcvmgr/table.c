// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_rcvmgr's connection table (table.h): entries in and out, under the
 * namespace's lock, and freed after a grace period once the last
 * reference goes.
 */
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/slab.h>

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

/* @c out of the table; false if another CPU took it out first */
bool rcvmgr_conn_unlink(struct rcvmgr_net *rn, struct rcvmgr_conn *c)
{
	bool put = false;

	spin_lock_bh(&rn->lock);
	if (!c->unlinked) {
		__rcvmgr_conn_unlink(rn, c);
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
