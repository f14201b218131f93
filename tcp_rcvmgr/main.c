// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_rcvmgr: rewrite the receive window that TCP receivers behind a
 * gateway advertise, so the gateway decides how the access link is shared
 * (seed 004, placed on the gateway of the receiving site).
 *
 * This file holds the module and its per-netns state, set up in order and
 * undone in reverse: the connection table (table.c), the control work
 * (control.c) and its configuration, then the generic netlink family
 * (nl.c), whose config-set (genl.c) registers the netfilter hooks
 * (hooks.c) in a namespace once it is configured. Documentation/design.rst
 * draws the files.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include <net/er2bc_compat.h>
#include "assign.h"
#include "nl_gen.h"
#include "rcvmgr.h"
#include "table.h"

static const struct rcvmgr_cfg rcvmgr_cfg_default = {
	.policy			= TCP_RCVMGR_POLICY_AZUMA,
	.interval_ms		= 5000,		/* the thesis' RTT check */
	.max_conns		= 65536,
	.idle_ms		= 120000,
	.budget_init		= 65536,
	.budget_min		= 4 * RCVMGR_SEG_ETH,
	.budget_max		= 16 << 20,
	.budget_step		= 4 * RCVMGR_SEG_ETH,
	.budget_decrease	= 100,		/* Documentation/tcp_rcvmgr.rst */
	.rtt_tolerance		= 20,
	.spring_queue		= 65536,	/* thesis Table 1 */
	.spring_interactive	= 2048,
	.spring_short		= 8192,
	.initial_window		= 10,		/* RFC 6928, as Linux senders */
};

static int __net_init rcvmgr_net_init(struct net *net)
{
	struct rcvmgr_net *rn = rcvmgr_pernet(net);
	struct rcvmgr_cfg *cfg;
	int err;

	rn->net = net;
	INIT_LIST_HEAD(&rn->conns);
	spin_lock_init(&rn->lock);
	mutex_init(&rn->ctl_mutex);
	mutex_init(&rn->cfg_mutex);
	INIT_DELAYED_WORK(&rn->tick, rcvmgr_tick);
	INIT_DELAYED_WORK(&rn->reassign, rcvmgr_reassign_work);
	INIT_DELAYED_WORK(&rn->probe_done, rcvmgr_probe_done);
	rn->reassign_next = jiffies;
	rn->budget = rcvmgr_cfg_default.budget_init;
	rn->initial_fits = true;
	rn->since_probe = RCVMGR_PROBE_GAP;

	cfg = kmemdup(&rcvmgr_cfg_default, sizeof(*cfg), GFP_KERNEL);
	rn->stats = alloc_percpu(struct rcvmgr_pcpu_stats);
	if (!cfg || !rn->stats) {
		err = -ENOMEM;
		goto err_free;
	}
	RCU_INIT_POINTER(rn->cfg, cfg);
	err = rhashtable_init(&rn->table, &rcvmgr_rht_params);
	if (err)
		goto err_free;
	rcvmgr_control_start(rn);
	return 0;

err_free:
	free_percpu(rn->stats);
	kfree(cfg);
	return err;
}

/*
 * The hooks go before the grace period the netns core waits for between
 * pre_exit and exit: no CPU is still in rcvmgr_hook() (which may queue the
 * control work) when exit cancels the work and frees the table
 */
static void __net_exit rcvmgr_net_pre_exit(struct net *net)
{
	struct rcvmgr_net *rn = rcvmgr_pernet(net);

	rcvmgr_hooks_remove(rn);
}

static void __net_exit rcvmgr_net_exit(struct net *net)
{
	struct rcvmgr_net *rn = rcvmgr_pernet(net);

	WRITE_ONCE(rn->exiting, true);
	/* the tick queues the others; probe_done may queue reassign */
	cancel_delayed_work_sync(&rn->tick);
	cancel_delayed_work_sync(&rn->probe_done);
	cancel_delayed_work_sync(&rn->reassign);
	rcvmgr_flush(rn);
	rcvmgr_kept_free(rn);
	rhashtable_destroy(&rn->table);
	free_percpu(rn->stats);
	kfree(rcu_dereference_protected(rn->cfg, true));
}

static struct pernet_operations rcvmgr_net_ops = {
	.init = rcvmgr_net_init,
	.pre_exit = rcvmgr_net_pre_exit,
	.exit = rcvmgr_net_exit,
	.id = &rcvmgr_net_id,
	.size = sizeof(struct rcvmgr_net),
};

static int __init rcvmgr_module_init(void)
{
	int err;

	rcvmgr_conn_cache = KMEM_CACHE(rcvmgr_conn, 0);
	if (!rcvmgr_conn_cache)
		return -ENOMEM;
	err = register_pernet_subsys(&rcvmgr_net_ops);
	if (err)
		goto err_cache;
	err = rcvmgr_nl_register(tcp_rcvmgr_nl_ops, ARRAY_SIZE(tcp_rcvmgr_nl_ops));
	if (err)
		goto err_pernet;
	return 0;

err_pernet:
	unregister_pernet_subsys(&rcvmgr_net_ops);
err_cache:
	rcu_barrier();
	kmem_cache_destroy(rcvmgr_conn_cache);
	return err;
}

static void __exit rcvmgr_module_exit(void)
{
	rcvmgr_nl_unregister();
	unregister_pernet_subsys(&rcvmgr_net_ops);
	rcu_barrier();		/* connections freed after a grace period */
	kmem_cache_destroy(rcvmgr_conn_cache);
}

module_init(rcvmgr_module_init);
module_exit(rcvmgr_module_exit);
MODULE_ALIAS_GENL_FAMILY(TCP_RCVMGR_FAMILY_NAME);
MODULE_AUTHOR("The er2bc authors");
MODULE_DESCRIPTION("Receive-window management of TCP connections crossing a gateway");
MODULE_LICENSE("GPL");
MODULE_VERSION(ER2BC_VERSION);
