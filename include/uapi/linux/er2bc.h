/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * er2bc: priority-based bandwidth control for gateways whose uplink crosses
 * a best-effort network of changing available bandwidth (ABW).
 *
 * Options of the "er2bc" qdisc (TCA_OPTIONS of RTM_NEWQDISC).
 */
#ifndef _UAPI_LINUX_ER2BC_H
#define _UAPI_LINUX_ER2BC_H

#include <linux/types.h>

enum {
	TCA_ER2BC_UNSPEC,
	TCA_ER2BC_PAD,
	TCA_ER2BC_RATE,		/* u64: total rate cap W in bits/s, 0 = no cap */
	TCA_ER2BC_BURST,	/* u32: bytes that may leave back to back */
	TCA_ER2BC_LIMIT,	/* u32: queue limit in packets */
	__TCA_ER2BC_MAX
};

#define TCA_ER2BC_MAX	(__TCA_ER2BC_MAX - 1)

#endif /* _UAPI_LINUX_ER2BC_H */
