/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Receive-window arithmetic of tcp_rcvmgr: window scaling and the rules a
 * rewritten window must obey. Pure integer math, covered by KUnit.
 */
#ifndef _TCP_RCVMGR_WINDOW_H
#define _TCP_RCVMGR_WINDOW_H

#include <linux/types.h>

#define RCVMGR_WSCALE_MAX	14	/* RFC 7323 */

/**
 * struct rcvmgr_edge - the right edge of the window advertised to a sender
 * @seq: ack + window of the highest edge advertised so far
 * @ack: the newest acknowledgment number a window was written for
 * @valid: whether any window has been advertised yet
 */
struct rcvmgr_edge {
	u32 seq;
	u32 ack;
	bool valid;
};

u16 rcvmgr_window_field(u16 adv_field, u8 wscale, u32 ack, u32 assigned,
			u32 mss, struct rcvmgr_edge *edge);

#endif /* _TCP_RCVMGR_WINDOW_H */
