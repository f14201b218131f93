/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where the project bridges differences between the kernels
 * it supports (Debian's 6.1 and 6.12 and later). Each shim probes for the
 * feature itself, never for a version number: distributions backport.
 */
#ifndef _ER2BC_COMPAT_H
#define _ER2BC_COMPAT_H

#include <linux/module.h>
#include <net/pkt_sched.h>

/*
 * Since 6.9 the qdisc core asks for the alias "net-sch-<kind>"; before, it
 * asked for "sch_<kind>", which is also the module's name.
 */
#ifndef MODULE_ALIAS_NET_SCH
#define MODULE_ALIAS_NET_SCH(id)	MODULE_ALIAS("sch_" id)
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

/* Version of the sources the module was built from (git describe). */
#ifndef ER2BC_VERSION
#define ER2BC_VERSION "unknown"
#endif

#endif /* _ER2BC_COMPAT_H */
