// SPDX-License-Identifier: GPL-2.0
/*
 * Receive-window arithmetic of tcp_rcvmgr.
 */
#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/math.h>
#include <net/tcp.h>
#include <kunit/visibility.h>

#include "window.h"

/**
 * rcvmgr_window_field - the window field to write into an ACK
 * @adv_field: the window field the receiver put in the ACK
 * @wscale: the receiver's window scale (shift), at most 14
 * @ack: the ACK's acknowledgment number
 * @assigned: the window assigned to the connection, in bytes
 * @mss: the connection's MSS, in bytes
 * @edge: the right edge advertised so far to the sender; updated
 *
 * The result never exceeds @adv_field (the gateway never offers more than
 * the receiver can take) and, unless the receiver itself shrank its window,
 * never moves the right edge of the window backwards (RFC 9293 3.8.6: a
 * window must not shrink). Whatever was assigned, the window written is
 * at least two segments, 2 * @mss bytes, or what the receiver offered if
 * that is less: a sender is never stalled by the gateway, and never held
 * below a segment by its silly window syndrome avoidance. A scaled window
 * is rounded up to a multiple of 1 << @wscale, so that no scale makes a
 * small assignment a zero window. An ACK older than one a window was
 * written for (reordered on the way) is one the sender ignores: it gets
 * the assignment and leaves @edge alone; the edge kept from it, rounded up,
 * would be pushed a unit of the scale further, and stay there.
 */
u16 rcvmgr_window_field(u16 adv_field, u8 wscale, u32 ack, u32 assigned,
			u32 mss, struct rcvmgr_edge *edge)
{
	u32 want = max(assigned, 2 * min_t(u32, mss, U16_MAX));
	u32 field;

	/* (want >> wscale) rounded up, without overflow near U32_MAX */
	field = (want >> wscale) + !!(want & ((1U << wscale) - 1));
	field = min_t(u32, field, adv_field);
	if (edge->valid && before(ack, edge->ack))
		return field;
	edge->ack = ack;
	if (edge->valid && after(edge->seq, ack)) {
		u32 keep = DIV_ROUND_UP(edge->seq - ack, 1U << wscale);

		field = max(field, min_t(u32, keep, adv_field));
	}
	if (!edge->valid || after(ack + (field << wscale), edge->seq)) {
		edge->seq = ack + (field << wscale);
		edge->valid = true;
	}
	return field;
}
EXPORT_SYMBOL_IF_KUNIT(rcvmgr_window_field);
