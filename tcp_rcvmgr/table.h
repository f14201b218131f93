/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcp_rcvmgr's connection table: per network namespace, an rhashtable of
 * struct rcvmgr_conn keyed by addresses and ports (named from the
 * sender), and the list the control work walks; and what is kept of
 * forgotten connections that may still go on. table.c adds and removes
 * entries and keeps them; hooks.c looks them up (inline, with the
 * parameters below) and fills them; control.c and genl.c walk the list.
 * This file calls no other of the module's.
 */
#ifndef _TCP_RCVMGR_TABLE_H
#define _TCP_RCVMGR_TABLE_H

#include <linux/jhash.h>
#include <linux/rhashtable.h>
#include <net/ipv6.h>
#include <net/netns/generic.h>

#include "rcvmgr.h"

extern unsigned int rcvmgr_net_id;
extern struct kmem_cache *rcvmgr_conn_cache;

static inline struct rcvmgr_net *rcvmgr_pernet(const struct net *net)
{
	return net_generic(net, rcvmgr_net_id);
}

/*
 * An IPv4 key hashed by the three words that hold it, not the ten of an
 * IPv6 one: every ACK's lookup pays for the hash. Keys are built whole by
 * rcvmgr_parse(), every byte set (the words an IPv4 address leaves, the
 * padding: zero), as rcvmgr_key_cmp() and jhash2() rely on.
 */
static inline u32 rcvmgr_key_hash(const void *data, u32 len, u32 seed)
{
	const struct rcvmgr_key *k = data;
	u32 ports = (__force u32)k->sport << 16 | (__force u16)k->dport;

	BUILD_BUG_ON(sizeof(*k) % sizeof(u32));

	if (k->family == AF_INET)
		return jhash_3words((__force u32)k->saddr.s6_addr32[0],
				    (__force u32)k->daddr.s6_addr32[0], ports, seed);
	return jhash2((const u32 *)k, sizeof(*k) / sizeof(u32), seed);
}

static inline bool rcvmgr_key_equal(const struct rcvmgr_key *a, const struct rcvmgr_key *b)
{
	return a->sport == b->sport && a->dport == b->dport && a->family == b->family &&
	       ipv6_addr_equal(&a->saddr, &b->saddr) && ipv6_addr_equal(&a->daddr, &b->daddr);
}

/* rhashtable's compare: 0 if @arg's key is @obj's */
static inline int rcvmgr_key_cmp(struct rhashtable_compare_arg *arg, const void *obj)
{
	const struct rcvmgr_conn *c = obj;

	return !rcvmgr_key_equal(arg->key, &c->key);
}

static const struct rhashtable_params rcvmgr_rht_params __maybe_unused = {
	.key_len		= sizeof(struct rcvmgr_key),
	.key_offset		= offsetof(struct rcvmgr_conn, key),
	.head_offset		= offsetof(struct rcvmgr_conn, node),
	.hashfn			= rcvmgr_key_hash,
	.obj_cmpfn		= rcvmgr_key_cmp,
	.automatic_shrinking	= true,
};

int rcvmgr_conn_insert(struct rcvmgr_net *rn, struct rcvmgr_conn *c, u32 max_conns,
		       u32 max_opening);
void rcvmgr_conn_clear_opening(struct rcvmgr_net *rn, struct rcvmgr_conn *c);
bool rcvmgr_conn_forget(struct rcvmgr_net *rn, struct rcvmgr_conn *c, bool keep, u64 now);
void rcvmgr_conn_put(struct rcvmgr_conn *c);
void rcvmgr_flush(struct rcvmgr_net *rn);

/* @c out of the table, nothing of it kept; false if another CPU took it out first */
static inline bool rcvmgr_conn_unlink(struct rcvmgr_net *rn, struct rcvmgr_conn *c)
{
	return rcvmgr_conn_forget(rn, c, false, 0);
}

/*
 * Forgotten connections kept (struct rcvmgr_kept): sets of
 * RCVMGR_KEPT_WAYS slots, one set per hash of the key; a set for every 16
 * of max-conns when the room is made, a power of two from
 * RCVMGR_KEPT_SETS_MIN to RCVMGR_KEPT_SETS_MAX (64 KiB to 1 MiB; the
 * default max-conns, 65536, takes the most)
 */
#define RCVMGR_KEPT_WAYS	4
#define RCVMGR_KEPT_SETS_MIN	256
#define RCVMGR_KEPT_SETS_MAX	4096

/*
 * the sets for @max_conns: a sixteenth, rounded up to a power of two
 * (fls(): roundup_pow_of_two() is too deep for 6.1's sparse), within the
 * bounds
 */
static inline u32 rcvmgr_kept_sets(u32 max_conns)
{
	u32 sets = clamp_t(u32, max_conns / 16, RCVMGR_KEPT_SETS_MIN, RCVMGR_KEPT_SETS_MAX);

	return 1U << fls(sets - 1);
}

/* what the kept connections' room takes, in bytes (any context) */
static inline size_t rcvmgr_kept_bytes(const struct rcvmgr_net *rn)
{
	/* pairs with rcvmgr_kept_alloc()'s release: its size, then the room */
	return smp_load_acquire(&rn->kept) ?
	       (size_t)READ_ONCE(rn->kept_sets) * RCVMGR_KEPT_WAYS * sizeof(struct rcvmgr_kept) : 0;
}

int rcvmgr_kept_alloc(struct rcvmgr_net *rn, u32 max_conns);
void rcvmgr_kept_flush(struct rcvmgr_net *rn);
void rcvmgr_kept_free(struct rcvmgr_net *rn);
/* what rcvmgr_kept_take() found */
enum rcvmgr_kept_took {
	RCVMGR_KEPT_NONE,
	RCVMGR_KEPT_MISSED,
	RCVMGR_KEPT_TAKEN,
};

enum rcvmgr_kept_took rcvmgr_kept_take(struct rcvmgr_net *rn, const struct rcvmgr_key *key,
				       u32 seq, u32 end, u64 now, struct rcvmgr_kept *out);
void rcvmgr_kept_put(struct rcvmgr_net *rn, const struct rcvmgr_kept *k, u64 now);
void rcvmgr_kept_again(struct rcvmgr_net *rn, const struct rcvmgr_conn *c,
		       const struct rcvmgr_kept *k, u64 now);
bool rcvmgr_conn_keep(const struct rcvmgr_conn *c, u64 now, struct rcvmgr_kept *k);

#endif /* _TCP_RCVMGR_TABLE_H */
