/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where the project bridges differences between the kernels
 * it supports (Debian's 6.1 and 6.12 and later). Each shim probes for the
 * feature itself, never for a version number: distributions backport.
 */
#ifndef _ER2BC_COMPAT_H
#define _ER2BC_COMPAT_H

#include <linux/module.h>
#include <linux/slab.h>
#include <net/pkt_sched.h>

/*
 * Since 6.9 the qdisc core asks for the alias "net-sch-<kind>"; before, it
 * asked for "sch_<kind>", which is also the module's name.
 */
#ifndef MODULE_ALIAS_NET_SCH
#define MODULE_ALIAS_NET_SCH(id)	MODULE_ALIAS("sch_" id)
#endif

/*
 * The KUnit suites import the namespace their subjects are exported to
 * (EXPORT_SYMBOL_IF_KUNIT). Since 6.13 a namespace is a string literal;
 * before, a bare name that MODULE_IMPORT_NS() quoted itself.
 */
#ifdef ER2BC_HAVE_NS_LITERAL
#define ER2BC_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#else
#define ER2BC_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#endif

/*
 * The unbound system workqueue is system_dfl_wq on newer kernels, which
 * warn once that system_unbound_wq is going (7.3: "enqueued on deprecated
 * workqueue"); 6.1 and 6.12 have only system_unbound_wq.
 */
#include <linux/workqueue.h>
#ifndef ER2BC_HAVE_SYSTEM_DFL_WQ
#define system_dfl_wq	system_unbound_wq
#endif

/*
 * A generic netlink multicast group that only CAP_NET_ADMIN in the netns's
 * user namespace may join: since 6.7, and in 6.1.y since 6.1.70. Without
 * it, anyone may listen (Documentation/sch_er2bc.rst says so).
 */
#include <net/genetlink.h>
#ifdef GENL_MCAST_CAP_NET_ADMIN
#define ER2BC_MCGRP_CAP_NET_ADMIN	.flags = GENL_MCAST_CAP_NET_ADMIN,
#else
#define ER2BC_MCGRP_CAP_NET_ADMIN
#endif

/*
 * The operations tables generated from the YNL specs (nl_gen.c) are split:
 * a do and a dump of one command are two entries, each with its own
 * policy (6.2 and later). Older kernels (ER2BC_HAVE_GENL_SPLIT_OPS unset
 * by the Kbuild probe) take one entry per command, one policy for both:
 * er2bc_compat_genl_register() merges each pair into one, with the do's
 * policy, and refuses to where the dump's policy is not the same as the
 * do's for what the dump takes (what only the do takes, the dump's start
 * must refuse itself).
 */
#ifndef ER2BC_HAVE_GENL_SPLIT_OPS
struct genl_split_ops {
	int		(*doit)(struct sk_buff *skb, struct genl_info *info);
	int		(*start)(struct netlink_callback *cb);
	int		(*dumpit)(struct sk_buff *skb, struct netlink_callback *cb);
	int		(*done)(struct netlink_callback *cb);
	const struct nla_policy *policy;
	unsigned int	maxattr;
	u8		cmd;
	u8		internal_flags;
	u8		flags;
	u8		validate;
};

/* the entry of @cmd among the @k first of @ops, or the next free one */
static inline struct genl_ops *er2bc_compat_genl_op(struct genl_ops *ops,
						    unsigned int k, u8 cmd)
{
	unsigned int j;

	for (j = 0; j < k; j++)
		if (ops[j].cmd == cmd)
			return &ops[j];
	return &ops[k];
}

/*
 * @dump's policy is @doit's for every attribute the dump takes (policies
 * are static tables: what their initialisers leave out is zero)
 */
static inline bool er2bc_compat_genl_same_policy(const struct genl_ops *doit,
						 const struct genl_split_ops *dump)
{
	if (!dump->policy)
		return !doit->policy;
	return doit->policy && dump->maxattr <= doit->maxattr &&
	       !memcmp(doit->policy, dump->policy,
		       (dump->maxattr + 1) * sizeof(*dump->policy));
}
#endif

/* register @family with the @n commands of @ops (module init) */
static inline int er2bc_compat_genl_register(struct genl_family *family,
					     const struct genl_split_ops *ops,
					     unsigned int n)
{
#ifdef ER2BC_HAVE_GENL_SPLIT_OPS
	family->split_ops = ops;
	family->n_split_ops = n;
	return genl_register_family(family);
#else
	const u8 caps = GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP | GENL_CMD_CAP_HASPOL;
	struct genl_ops *merged;
	unsigned int i, k = 0;
	int err;

	merged = kcalloc(n, sizeof(*merged), GFP_KERNEL);
	if (!merged)
		return -ENOMEM;
	/* the do of a command first, so that its dump can be checked against it */
	for (i = 0; i < n; i++) {
		const struct genl_split_ops *s = &ops[i];
		struct genl_ops *o;

		if (!s->doit)
			continue;
		o = er2bc_compat_genl_op(merged, k, s->cmd);
		if (o == &merged[k])
			k++;
		o->cmd = s->cmd;
		o->doit = s->doit;
		o->policy = s->policy;
		o->maxattr = s->maxattr;
		o->flags |= s->flags & ~caps;
		o->validate |= s->validate;
		o->internal_flags |= s->internal_flags;
	}
	for (i = 0; i < n; i++) {
		const struct genl_split_ops *s = &ops[i];
		struct genl_ops *o;

		if (s->doit)
			continue;
		o = er2bc_compat_genl_op(merged, k, s->cmd);
		if (o == &merged[k]) {
			k++;
			o->policy = s->policy;
			o->maxattr = s->maxattr;
		} else if (WARN_ON_ONCE(!er2bc_compat_genl_same_policy(o, s))) {
			err = -EINVAL;
			goto free;
		}
		o->cmd = s->cmd;
		o->start = s->start;
		o->dumpit = s->dumpit;
		o->done = s->done;
		o->flags |= s->flags & ~caps;
		o->validate |= s->validate;
		o->internal_flags |= s->internal_flags;
	}
	family->ops = merged;
	family->n_ops = k;
	err = genl_register_family(family);
	if (!err)
		return 0;
	family->ops = NULL;
	family->n_ops = 0;
free:
	kfree(merged);
	return err;
#endif
}

static inline void er2bc_compat_genl_unregister(struct genl_family *family)
{
	genl_unregister_family(family);
#ifndef ER2BC_HAVE_GENL_SPLIT_OPS
	kfree(family->ops);
#endif
}

/*
 * Attribute @type of a dump's request, parsed and checked against the
 * dump's policy by genetlink (in a struct genl_info since 6.4); NULL if
 * absent or beyond that policy (a dump without one has no attributes).
 */
static inline struct nlattr *er2bc_dump_attr(struct netlink_callback *cb,
					     unsigned int type)
{
	const struct genl_dumpit_info *d = genl_dumpit_info(cb);

	if (!type || type > d->op.maxattr)
		return NULL;
#ifdef ER2BC_HAVE_GENL_INFO_DUMP
	return d->info.attrs[type];
#else
	return d->attrs[type];
#endif
}

/*
 * A policy's full range pointed at a constant only since 6.2; the
 * generated policies' ranges are constants, which the older kernels read
 * and never write.
 */
#ifndef ER2BC_HAVE_NLA_RANGE_CONST
#undef NLA_POLICY_FULL_RANGE
#define NLA_POLICY_FULL_RANGE(tp, _range) {				\
	.type = NLA_ENSURE_UINT_OR_BINARY_TYPE(tp),			\
	.validation_type = NLA_VALIDATE_RANGE_PTR,			\
	.range = (struct netlink_range_validation *)(_range),		\
}
#endif

/* Version of the sources the module was built from (git describe). */
#ifndef ER2BC_VERSION
#define ER2BC_VERSION "unknown"
#endif

#endif /* _ER2BC_COMPAT_H */
