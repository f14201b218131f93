/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The receiving gateway's meter (meter.c): its counts of what arrives from
 * the peer, cut at the requests (probe.h); its commands' handlers are
 * declared with the others in nl_gen.h.
 */
#ifndef _ER2BC_METER_H
#define _ER2BC_METER_H

int er2bc_meter_init(void);
void er2bc_meter_exit(void);

#endif /* _ER2BC_METER_H */
