// SPDX-License-Identifier: GPL-2.0
/*
 * The receiving gateway's meter: a tap on the interface the peer's packets
 * arrive on (a packet_type for ETH_P_ALL bound to the device, as a packet
 * socket is), counting them and cutting the count at each of the
 * estimator's requests (probe.h). It sees packets as the device hands them
 * up, before tc's ingress, netfilter and any IP processing
 * (defragmentation included), which is where the sending qdisc's counts
 * end: what one dequeued, the other receives, segment for segment. Nothing
 * on this gateway can drop or move a packet before it is counted (a tc
 * ingress policer or a redirect to an IFB would otherwise turn packets the
 * path delivered into losses), except the driver and XDP.
 *
 * Meters live in their netns, on a list changed under RTNL and read under
 * RCU (meter-get takes no RTNL: a busy RTNL does not hold up the
 * estimator), and go with their device. A meter outlives the responder
 * that set it: a restarted responder finds its counts where they were.
 *
 * The tap sees every frame the device receives, on every CPU that
 * receives: it takes no lock for them, nor for a request it refuses. Its port and peers are one
 * RCU-managed block, its counts per CPU; only a request, one an
 * interval, takes the meter's lock, sums the CPUs' counts and keeps the
 * sum as its snapshot. A packet another CPU counts while a request sums
 * falls on one side of the cut or the other, as it did when every packet
 * took the lock: packets on two CPUs have no order to keep (on one CPU,
 * what came before the request is in its snapshot).
 */
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <crypto/sha2.h>
#include <linux/kernel.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stringify.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>

#include <net/er2bc_compat.h>
#include "auth.h"
#include "meter.h"
#include "nl.h"
#include "nl_gen.h"
#include "probe.h"

/*
 * The peers' key: read by the tap under RCU, so that a request's HMAC is
 * computed without the meter's lock, and freed after a grace period in
 * process context (the crypto API may sleep freeing a tfm).
 */
struct er2bc_meter_key {
	struct crypto_shash *tfm;	/* hmac(sha256) */
	/* the HMAC of a fixed string: the same id, the same key */
	u8 id[ER2BC_PROBE_TAG_LEN];
	struct rcu_work free_work;
};

/* where keys are freed; drained at module exit */
static struct workqueue_struct *er2bc_meter_wq;

/* what the tap matches: replaced whole under RTNL, read under RCU */
struct er2bc_meter_cfg {
	__be16 port;
	struct er2bc_peer peer;
	struct rcu_head rcu;
};

/* one CPU's counts of what the tap saw: written only by the tap there */
struct er2bc_meter_pcpu {
	u64_stats_t packets;
	u64_stats_t bytes;
	u64_stats_t ignored;
	u64_stats_t unauth;		/* requests whose tag failed (ignored too) */
	struct u64_stats_sync syncp;
};

/* the sums of every CPU's counts */
struct er2bc_meter_sums {
	u64 packets;
	u64 bytes;
	u64 ignored;
	u64 unauth;
};

struct er2bc_meter {
	struct list_head list;		/* in the netns's; RTNL, RCU */
	struct net_device *dev;		/* RTNL */
	int ifindex;			/* dev's, for RCU readers */
	netdevice_tracker dev_tracker;
	struct packet_type pt;
	struct rcu_head rcu;

	struct er2bc_meter_cfg __rcu *cfg;	/* RTNL, RCU */
	struct er2bc_meter_pcpu __percpu *pcpu;
	bool dead;			/* freed: the tap counts nothing more */

	spinlock_t lock;		/* requests that verify: what follows */
	struct er2bc_meter_key __rcu *key;	/* NULL: plain mode; lock, RCU */
	struct er2bc_replay replay;
	u64 replayed;
	/*
	 * the snapshots and requests taken; packets and bytes: at the last
	 * (ignored is unused: the CPUs count it)
	 */
	struct er2bc_count count;
};

struct er2bc_meter_net {
	struct list_head meters;
	/* moves with every meter added or freed: a dump resumed across it is marked */
	unsigned int gen;
};

static unsigned int er2bc_meter_net_id __read_mostly;

static struct er2bc_meter_net *er2bc_meter_net(struct net *net)
{
	return net_generic(net, er2bc_meter_net_id);
}

static struct list_head *er2bc_meters(struct net *net)
{
	return &er2bc_meter_net(net)->meters;
}

/* a meter was added or freed (RTNL); never 0, which means "no dump yet" */
static void er2bc_meter_gen_next(struct net *net)
{
	struct er2bc_meter_net *mn = er2bc_meter_net(net);

	WRITE_ONCE(mn->gen, mn->gen + 1 ?: 1);
}

/* this CPU's counts: the tap runs with BHs off, never nested on a CPU */
static void er2bc_meter_pcpu_add(struct er2bc_meter *m, u32 packets, u64 bytes,
				 u32 ignored, u32 unauth)
{
	struct er2bc_meter_pcpu *p = this_cpu_ptr(m->pcpu);

	u64_stats_update_begin(&p->syncp);
	u64_stats_add(&p->packets, packets);
	u64_stats_add(&p->bytes, bytes);
	u64_stats_add(&p->ignored, ignored);
	u64_stats_add(&p->unauth, unauth);
	u64_stats_update_end(&p->syncp);
}

/* every CPU's counts, summed: at a request, and for meter-get */
static void er2bc_meter_sum(const struct er2bc_meter *m, struct er2bc_meter_sums *sum)
{
	unsigned int start;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct er2bc_meter_pcpu *p = per_cpu_ptr(m->pcpu, cpu);
		u64 pk, by, ig, un;

		do {
			start = u64_stats_fetch_begin(&p->syncp);
			pk = u64_stats_read(&p->packets);
			by = u64_stats_read(&p->bytes);
			ig = u64_stats_read(&p->ignored);
			un = u64_stats_read(&p->unauth);
		} while (u64_stats_fetch_retry(&p->syncp, start));
		sum->packets += pk;
		sum->bytes += by;
		sum->ignored += ig;
		sum->unauth += un;
	}
}

/*
 * Every packet the device receives (ignore_outgoing: no clone of what it
 * sends), under RCU. The skb is shared: read, never changed.
 */
static int er2bc_meter_rcv(struct sk_buff *skb, struct net_device *dev,
			   struct packet_type *pt, struct net_device *orig_dev)
{
	struct er2bc_meter *m = container_of(pt, struct er2bc_meter, pt);
	u8 req[ER2BC_PROBE_KEY_MAX], req_len;
	const struct er2bc_meter_cfg *cfg;
	struct er2bc_meter_sums sum;
	struct er2bc_meter_key *key;
	enum er2bc_auth auth;

	if (unlikely(READ_ONCE(m->dead)))
		goto out;
	cfg = rcu_dereference(m->cfg);
	switch (er2bc_probe_classify(skb, cfg->port, &cfg->peer, false, req, &req_len)) {
	case ER2BC_PKT_COUNT:
		er2bc_meter_pcpu_add(m, er2bc_skb_segs(skb), er2bc_rx_wire_len(skb), 0, 0);
		break;
	case ER2BC_PKT_PROBE:
		/*
		 * With a key, a request that fails its tag or comes again is
		 * counted nowhere, as the sending qdisc counted it nowhere
		 * (it cuts only at its own daemon's requests). The HMAC is
		 * computed without the lock, and one that fails never takes
		 * it (what follows turns no refusal into a request): a flood
		 * of forged requests costs each CPU its own HMACs, not the
		 * others' wait. The cut is where the lock is taken; packets
		 * another CPU counted meanwhile were never in order with
		 * this one.
		 */
		key = rcu_dereference(m->key);
		if (key && !er2bc_probe_tag_ok(key->tfm, req, req_len)) {
			er2bc_meter_pcpu_add(m, 0, 0, er2bc_skb_segs(skb), 1);
			break;
		}
		auth = ER2BC_AUTH_OK;
		spin_lock(&m->lock);
		/* the meter went, or its key changed: not this key's request */
		if (unlikely(m->dead)) {
			spin_unlock(&m->lock);
			goto out;
		}
		if (rcu_access_pointer(m->key) != key)
			auth = ER2BC_AUTH_BAD;
		else if (key)
			auth = er2bc_replay_take(&m->replay, req);
		switch (auth) {
		case ER2BC_AUTH_OK:
			er2bc_meter_sum(m, &sum);
			m->count.packets = sum.packets;
			m->count.bytes = sum.bytes;
			er2bc_count_snap(&m->count, req, req_len, ktime_get_ns());
			spin_unlock(&m->lock);
			goto out;
		case ER2BC_AUTH_BAD:
			spin_unlock(&m->lock);
			er2bc_meter_pcpu_add(m, 0, 0, er2bc_skb_segs(skb), 1);
			goto out;
		case ER2BC_AUTH_REPLAYED:
			m->replayed++;
			break;
		}
		spin_unlock(&m->lock);
		fallthrough;
	case ER2BC_PKT_IGNORE:
		er2bc_meter_pcpu_add(m, 0, 0, er2bc_skb_segs(skb), 0);
		break;
	}
out:
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

/* RTNL, or RCU for a reader */
static struct er2bc_meter *er2bc_meter_find(struct net *net, int ifindex)
{
	struct er2bc_meter *m;

	list_for_each_entry_rcu(m, er2bc_meters(net), list, lockdep_rtnl_is_held())
		if (m->ifindex == ifindex)
			return m;
	return NULL;
}

static void er2bc_meter_key_free_work(struct work_struct *work)
{
	struct er2bc_meter_key *key = container_of(to_rcu_work(work),
						   struct er2bc_meter_key, free_work);

	crypto_free_shash(key->tfm);
	kfree_sensitive(key);
}

/* @key, once no tap can be computing with it */
static void er2bc_meter_key_put(struct er2bc_meter_key *key)
{
	if (!key)
		return;
	INIT_RCU_WORK(&key->free_work, er2bc_meter_key_free_work);
	queue_rcu_work(er2bc_meter_wq, &key->free_work);
}

/* after the grace period: no tap, no meter-get is in the meter */
static void er2bc_meter_free_rcu(struct rcu_head *head)
{
	struct er2bc_meter *m = container_of(head, struct er2bc_meter, rcu);

	kfree(rcu_dereference_protected(m->cfg, true));
	free_percpu(m->pcpu);
	kfree(m);
}

static void er2bc_meter_free(struct er2bc_meter *m)
{
	struct er2bc_meter_key *key;

	ASSERT_RTNL();
	spin_lock_bh(&m->lock);
	WRITE_ONCE(m->dead, true);
	key = rcu_dereference_protected(m->key, lockdep_is_held(&m->lock));
	RCU_INIT_POINTER(m->key, NULL);
	spin_unlock_bh(&m->lock);
	er2bc_meter_key_put(key);
	list_del_rcu(&m->list);
	er2bc_meter_gen_next(dev_net(m->dev));
	/*
	 * No synchronize_net() (an expedited grace period under RTNL, which a
	 * netns owner could ask for in a loop): the tap may still run on
	 * another CPU, and meter-get read it, under RCU, until the grace
	 * period call_rcu() waits for.
	 */
	__dev_remove_pack(&m->pt);
	netdev_put(m->dev, &m->dev_tracker);
	call_rcu(&m->rcu, er2bc_meter_free_rcu);
}

/* the key of attribute @nla: NULL for none, or an ERR_PTR */
static struct er2bc_meter_key *er2bc_meter_key_new(const struct nlattr *nla,
						   struct netlink_ext_ack *extack)
{
	static const char id_text[] = "er2bc meter key id";
	u8 id[SHA256_DIGEST_SIZE];
	struct er2bc_meter_key *key;
	int err;

	if (!nla)
		return NULL;
	if (nla_len(nla) < ER2BC_AUTH_KEY_MIN || nla_len(nla) > ER2BC_AUTH_KEY_MAX) {
		/* the spec's lengths: no policy can say them */
		NL_SET_ERR_MSG_ATTR(extack, nla, "er2bc: auth-key is "
				    __stringify(ER2BC_AUTH_KEY_MIN) " to "
				    __stringify(ER2BC_AUTH_KEY_MAX) " bytes");
		return ERR_PTR(-EINVAL);
	}
	key = kzalloc(sizeof(*key), GFP_KERNEL_ACCOUNT);
	if (!key)
		return ERR_PTR(-ENOMEM);
	key->tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(key->tfm)) {
		err = PTR_ERR(key->tfm);
		if (err == -ENOENT)
			NL_SET_ERR_MSG_ATTR(extack, nla, "er2bc: this kernel has no hmac(sha256)");
		else
			NL_SET_ERR_MSG_ATTR(extack, nla, "er2bc: cannot set up hmac(sha256)");
		kfree(key);
		return ERR_PTR(err);
	}
	err = crypto_shash_setkey(key->tfm, nla_data(nla), nla_len(nla)) ?:
	      crypto_shash_tfm_digest(key->tfm, id_text, sizeof(id_text) - 1, id);
	if (err) {
		NL_SET_ERR_MSG_ATTR(extack, nla, "er2bc: hmac(sha256) refused the auth-key");
		crypto_free_shash(key->tfm);
		kfree_sensitive(key);
		return ERR_PTR(err);
	}
	memcpy(key->id, id, sizeof(key->id));
	memzero_explicit(id, sizeof(id));
	return key;
}

/* what the tap is to match */
static struct er2bc_meter_cfg *er2bc_meter_cfg_new(__be16 port, const struct er2bc_peer *peer)
{
	struct er2bc_meter_cfg *cfg = kzalloc(sizeof(*cfg), GFP_KERNEL_ACCOUNT);

	if (cfg) {
		cfg->port = port;
		cfg->peer = *peer;
	}
	return cfg;
}

/* a meter, configured before its hook sees a packet; it takes @cfg */
static struct er2bc_meter *er2bc_meter_new(struct net_device *dev,
					   struct er2bc_meter_cfg *cfg,
					   struct er2bc_meter_key *key)
{
	struct er2bc_meter *m;
	int cpu;

	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->pcpu = alloc_percpu_gfp(struct er2bc_meter_pcpu, GFP_KERNEL_ACCOUNT);
	if (!m->pcpu) {
		kfree(m);
		return ERR_PTR(-ENOMEM);
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(m->pcpu, cpu)->syncp);
	spin_lock_init(&m->lock);
	RCU_INIT_POINTER(m->cfg, cfg);
	RCU_INIT_POINTER(m->key, key);
	m->dev = dev;
	m->ifindex = dev->ifindex;
	netdev_hold(dev, &m->dev_tracker, GFP_KERNEL);
	m->pt.type = htons(ETH_P_ALL);
	m->pt.dev = dev;
	m->pt.func = er2bc_meter_rcv;
	m->pt.ignore_outgoing = true;
	dev_add_pack(&m->pt);
	list_add_tail_rcu(&m->list, er2bc_meters(dev_net(dev)));
	er2bc_meter_gen_next(dev_net(dev));
	return m;
}

int er2bc_nl_meter_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct nlattr **tb = info->attrs;
	struct er2bc_meter_cfg *cfg, *old_cfg;
	struct er2bc_meter_key *key, *old;
	struct er2bc_peer peer;
	struct net_device *dev;
	struct er2bc_meter *m;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, ER2BC_A_PROBE_IFINDEX) ||
	    GENL_REQ_ATTR_CHECK(info, ER2BC_A_PROBE_PORT)) {
		NL_SET_ERR_MSG(info->extack, "er2bc: meter-set needs ifindex and port");
		return -EINVAL;
	}
	err = er2bc_nl_parse_peer(info, &peer);
	if (err)
		return err;
	/* before RTNL: the crypto API may load a module */
	key = er2bc_meter_key_new(tb[ER2BC_A_PROBE_AUTH_KEY], info->extack);
	if (IS_ERR(key))
		return PTR_ERR(key);
	cfg = er2bc_meter_cfg_new(htons(nla_get_u16(tb[ER2BC_A_PROBE_PORT])), &peer);
	if (!cfg) {
		er2bc_meter_key_put(key);
		return -ENOMEM;
	}

	rtnl_lock();
	dev = __dev_get_by_index(net, nla_get_u32(tb[ER2BC_A_PROBE_IFINDEX]));
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[ER2BC_A_PROBE_IFINDEX],
				    "er2bc: no such device");
		err = -ENODEV;
		goto out;
	}
	m = er2bc_meter_find(net, dev->ifindex);
	if (!m) {
		m = er2bc_meter_new(dev, cfg, key);
		if (IS_ERR(m)) {
			err = PTR_ERR(m);
		} else {
			key = NULL;
			cfg = NULL;
		}
		goto out;
	}
	/*
	 * A change keeps the counts: the snapshots stay as they were taken.
	 * The key is replaced, or removed; the window of the newest request
	 * taken stays if the key is the same (a responder that restarts), and
	 * starts anew with another.
	 */
	/*
	 * (the port and peers first, then the key: a request that arrives
	 * between the two is judged by the new match and the old key, and
	 * refused if the key changed, as a responder restarting expects)
	 */
	old_cfg = rcu_replace_pointer(m->cfg, cfg, lockdep_rtnl_is_held());
	kfree_rcu(old_cfg, rcu);
	cfg = NULL;
	spin_lock_bh(&m->lock);
	old = rcu_dereference_protected(m->key, lockdep_is_held(&m->lock));
	if (!old || !key || crypto_memneq(old->id, key->id, sizeof(key->id)))
		m->replay = (struct er2bc_replay){};
	rcu_assign_pointer(m->key, key);
	spin_unlock_bh(&m->lock);
	key = old;
out:
	rtnl_unlock();
	kfree(cfg);
	er2bc_meter_key_put(key);
	return err;
}

int er2bc_nl_meter_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct er2bc_meter *m;
	int err = 0;

	if (GENL_REQ_ATTR_CHECK(info, ER2BC_A_PROBE_IFINDEX)) {
		NL_SET_ERR_MSG(info->extack, "er2bc: meter-del needs ifindex");
		return -EINVAL;
	}
	rtnl_lock();
	m = er2bc_meter_find(genl_info_net(info),
			     nla_get_u32(info->attrs[ER2BC_A_PROBE_IFINDEX]));
	if (m) {
		er2bc_meter_free(m);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[ER2BC_A_PROBE_IFINDEX],
				    "er2bc: no meter on this device");
		err = -ENOENT;
	}
	rtnl_unlock();
	return err;
}

/* a meter's message: its counts now, or at the request @key names (RCU) */
static int er2bc_meter_put(struct sk_buff *skb, struct er2bc_meter *m,
			   const struct nlattr *key, struct netlink_ext_ack *extack)
{
	const struct er2bc_meter_cfg *cfg = rcu_dereference(m->cfg);
	u64 packets, bytes, probes, time, replayed;
	const struct er2bc_snap *s = NULL;
	struct er2bc_meter_sums sum;
	bool auth;

	spin_lock_bh(&m->lock);
	auth = !!rcu_access_pointer(m->key);
	replayed = m->replayed;
	probes = m->count.probes;
	er2bc_meter_sum(m, &sum);
	packets = sum.packets;
	bytes = sum.bytes;
	time = ktime_get_ns();
	if (key)
		s = er2bc_count_find(&m->count, nla_data(key), nla_len(key));
	if (s) {
		packets = s->packets;
		bytes = s->bytes;
		time = s->time;
	}
	spin_unlock_bh(&m->lock);
	if (key && !s) {
		NL_SET_ERR_MSG_ATTR(extack, key,
				    "er2bc: no request with this key arrived lately");
		return -ENOENT;
	}

	if (nla_put_u32(skb, ER2BC_A_PROBE_IFINDEX, m->ifindex) ||
	    nla_put_u16(skb, ER2BC_A_PROBE_PORT, ntohs(cfg->port)) ||
	    er2bc_nl_put_peer(skb, &cfg->peer) ||
	    er2bc_nl_put_count(skb, packets, bytes, time, probes, sum.ignored) ||
	    (auth && nla_put_flag(skb, ER2BC_A_PROBE_AUTH)) ||
	    nla_put_u64_64bit(skb, ER2BC_A_PROBE_UNAUTH, sum.unauth, ER2BC_A_PROBE_PAD) ||
	    nla_put_u64_64bit(skb, ER2BC_A_PROBE_REPLAYED, replayed, ER2BC_A_PROBE_PAD))
		return -EMSGSIZE;
	return 0;
}

int er2bc_nl_meter_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct er2bc_meter *m;
	struct sk_buff *msg;
	void *hdr;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, ER2BC_A_PROBE_IFINDEX)) {
		NL_SET_ERR_MSG(info->extack, "er2bc: meter-get needs ifindex");
		return -EINVAL;
	}
	err = er2bc_nl_check_key(info->attrs[ER2BC_A_PROBE_KEY], info->extack);
	if (err)
		return err;
	err = er2bc_nl_reply(info, &msg, &hdr);
	if (err)
		return err;
	rcu_read_lock();
	m = er2bc_meter_find(genl_info_net(info),
			     nla_get_u32(info->attrs[ER2BC_A_PROBE_IFINDEX]));
	if (!m) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[ER2BC_A_PROBE_IFINDEX],
				    "er2bc: no meter on this device");
		err = -ENOENT;
	} else {
		err = er2bc_meter_put(msg, m, info->attrs[ER2BC_A_PROBE_KEY],
				      info->extack);
	}
	rcu_read_unlock();
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* the dump: cb->args[0] the ifindex asked for (0: all), [1] meters sent */
int er2bc_nl_meter_get_start(struct netlink_callback *cb)
{
	struct nlattr *ifindex = er2bc_dump_attr(cb, ER2BC_A_PROBE_IFINDEX);
	struct nlattr *key = er2bc_dump_attr(cb, ER2BC_A_PROBE_KEY);

	/* the do's policy serves the dump too where commands are not split */
	if (key) {
		NL_SET_ERR_MSG_ATTR(cb->extack, key, "er2bc: a dump of meters takes no key");
		return -EINVAL;
	}
	cb->args[0] = ifindex ? nla_get_u32(ifindex) : 0;
	cb->args[1] = 0;
	return 0;
}

/*
 * Resumed by position in the list: a meter added or freed between two
 * parts could be skipped or sent twice, so such a dump is marked
 * NLM_F_DUMP_INTR (the generation moved) for the reader to ask again.
 */
int er2bc_nl_meter_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct er2bc_meter *m;
	unsigned long i = 0;
	int err = 0;
	void *hdr;

	rcu_read_lock();
	cb->seq = READ_ONCE(er2bc_meter_net(net)->gen);
	list_for_each_entry_rcu(m, er2bc_meters(net), list) {
		if (cb->args[0] && m->ifindex != cb->args[0])
			continue;
		if (i++ < cb->args[1])
			continue;
		hdr = er2bc_nl_dump_hdr(skb, cb, ER2BC_CMD_METER_GET);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		genl_dump_check_consistent(cb, hdr);
		err = er2bc_meter_put(skb, m, NULL, NULL);
		if (err) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[1]++;
	}
	rcu_read_unlock();
	/* a full message ends this part of the dump; the rest comes next */
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

static int er2bc_meter_netdev_event(struct notifier_block *nb,
				    unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct er2bc_meter *m;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	m = er2bc_meter_find(dev_net(dev), dev->ifindex);
	if (m && m->dev == dev)
		er2bc_meter_free(m);
	return NOTIFY_DONE;
}

static struct notifier_block er2bc_meter_notifier = {
	.notifier_call = er2bc_meter_netdev_event,
};

static int __net_init er2bc_meter_net_init(struct net *net)
{
	INIT_LIST_HEAD(er2bc_meters(net));
	er2bc_meter_net(net)->gen = 1;
	return 0;
}

static void __net_exit er2bc_meter_net_exit(struct net *net)
{
	struct er2bc_meter *m, *next;

	/* the devices went first, and their meters with them; this is the rest */
	rtnl_lock();
	list_for_each_entry_safe(m, next, er2bc_meters(net), list)
		er2bc_meter_free(m);
	rtnl_unlock();
}

static struct pernet_operations er2bc_meter_net_ops = {
	.init	= er2bc_meter_net_init,
	.exit	= er2bc_meter_net_exit,
	.id	= &er2bc_meter_net_id,
	.size	= sizeof(struct er2bc_meter_net),
};

int __init er2bc_meter_init(void)
{
	int err;

	/*
	 * Keys are freed from here after a grace period: no work needs the
	 * CPU that queued it. Unbound, said so: from 7.x a workqueue that
	 * names neither WQ_UNBOUND nor WQ_PERCPU warns at its allocation.
	 */
	er2bc_meter_wq = alloc_workqueue("er2bc_meter", WQ_UNBOUND, 0);
	if (!er2bc_meter_wq)
		return -ENOMEM;
	err = register_pernet_subsys(&er2bc_meter_net_ops);
	if (err)
		goto out_wq;
	err = register_netdevice_notifier(&er2bc_meter_notifier);
	if (err)
		goto out_pernet;
	return 0;
out_pernet:
	unregister_pernet_subsys(&er2bc_meter_net_ops);
out_wq:
	destroy_workqueue(er2bc_meter_wq);
	return err;
}

void er2bc_meter_exit(void)
{
	unregister_netdevice_notifier(&er2bc_meter_notifier);
	unregister_pernet_subsys(&er2bc_meter_net_ops);
	/* the keys' grace periods, then their frees */
	rcu_barrier();
	destroy_workqueue(er2bc_meter_wq);
}
