// SPDX-License-Identifier: GPL-2.0
/*
 * sch_er2bc: the module. It registers, in order, the receiving gateway's
 * meter (meter.c), the er2bc generic netlink family (nl.c) with the
 * commands generated from its spec (nl_gen.c, handled in genl.c and
 * meter.c) and the qdisc (qdisc.c), and unwinds in reverse: by the time tc
 * can create an er2bc qdisc, estimates can reach it.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <net/genetlink.h>
#include <net/pkt_sched.h>
#include <linux/er2bc_genl.h>

#include <net/er2bc_compat.h>
#include "meter.h"
#include "nl.h"
#include "nl_gen.h"
#include "qdisc.h"

static int __init er2bc_module_init(void)
{
	int err = er2bc_meter_init();

	if (err)
		return err;
	err = er2bc_nl_register(er2bc_nl_ops, ARRAY_SIZE(er2bc_nl_ops));
	if (err)
		goto meter;
	err = register_qdisc(&er2bc_qdisc_ops);
	if (err)
		goto genl;
	return 0;
genl:
	er2bc_nl_unregister();
meter:
	er2bc_meter_exit();
	return err;
}

static void __exit er2bc_module_exit(void)
{
	unregister_qdisc(&er2bc_qdisc_ops);
	er2bc_nl_unregister();
	er2bc_meter_exit();
}

module_init(er2bc_module_init);
module_exit(er2bc_module_exit);
MODULE_ALIAS_NET_SCH("er2bc");
MODULE_ALIAS_GENL_FAMILY(ER2BC_FAMILY_NAME);
MODULE_AUTHOR("The er2bc authors");
MODULE_DESCRIPTION("eR2BC priority-based bandwidth control for gateways");
MODULE_LICENSE("GPL");
MODULE_VERSION(ER2BC_VERSION);
