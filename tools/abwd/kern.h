/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's requests to the kernel, over the generic netlink family
 * er2bc (Documentation/netlink/specs/er2bc.yaml): probe-get at the sending
 * gateway, meter-set and meter-get at the receiving one, abw-set.
 */
#ifndef _ABWD_KERN_H
#define _ABWD_KERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/er2bc.h>
#include <linux/er2bc_genl.h>

#include "nl.h"

struct prefix;

/* what probe-get and meter-get answer */
struct probe_state {
	uint64_t packets;
	uint64_t bytes;
	uint64_t time;		/* CLOCK_MONOTONIC ns */
	uint16_t port;		/* 0: not counting (no probe port) */
	uint32_t mark;		/* the qdisc's probe-mark, 0: none */
	uint64_t held;		/* ns the qdisc's cap held a backlog back */
	bool has_packets, has_bytes, has_time, has_held;
	unsigned int npeers;	/* peer prefixes the qdisc or meter counts */
	bool auth;		/* the meter has an auth-key */
	uint64_t unauth;	/* requests the meter refused for their tag */
	uint64_t replayed;	/* requests the meter refused as replays */
};

/* an estimate, as abw-set takes it */
/* the most scavenger-hold may be, us (the spec's check) */
#define SCAVENGER_HOLD_MAX	60000000

struct abw_estimate {
	uint64_t abw;		/* W(t), >= 1 */
	uint64_t recv_rate;	/* R(t-1) */
	uint64_t sent;
	uint64_t lost;
	uint32_t seq;
	uint32_t interval_us;	/* >= 1 */
	uint32_t scavenger_hold_us; /* scavengers lent nothing this long; 0: not sent */
};

/* the family resolved: 0, or -errno (-ENOENT: sch_er2bc is not loaded) */
int kern_open(struct nl *nl, struct nl_err *err);

/*
 * The request functions return 0, or -errno with @err saying what the
 * kernel said (err->error set if it refused; err->msg its extended ACK).
 */

/* the qdisc's snapshot for @key (NULL: its totals now) */
int kern_probe_get(struct nl *nl, uint32_t ifindex, uint32_t handle,
		   const void *key, size_t key_len, struct probe_state *st,
		   struct nl_err *err);

/*
 * The meter on @ifindex, with the peers' secret @auth_key (@auth_len 0:
 * plain mode): its requests are then authenticated by the kernel too. The
 * request buffer is wiped after.
 */
int kern_meter_set(struct nl *nl, uint32_t ifindex, uint16_t port,
		   const struct prefix *peers, unsigned int npeers,
		   const void *auth_key, size_t auth_len, struct nl_err *err);

int kern_meter_del(struct nl *nl, uint32_t ifindex, struct nl_err *err);

/* the meter's snapshot for @key (NULL: its totals now) */
int kern_meter_get(struct nl *nl, uint32_t ifindex, const void *key,
		   size_t key_len, struct probe_state *st, struct nl_err *err);

int kern_abw_set(struct nl *nl, uint32_t ifindex, uint32_t handle,
		 const struct abw_estimate *e, struct nl_err *err);

/* what ctrl-get tells of the qdisc's cap: W in force, and its ceiling */
struct qdisc_cap {
	uint64_t w;		/* 0: no cap */
	uint64_t ceil;		/* tc's rate; 0: no ceiling */
	uint64_t updates;	/* estimates applied */
	/*
	 * the rates R_f its classes are given at each priority (1 the
	 * highest), their margins included, bit/s; scavengers have none
	 */
	uint64_t level[ER2BC_PRIO_MAX + 1];
	/*
	 * what they ask for: the more of the rate and the demand S_d (above
	 * R_f for UDP under loss, eq. 6-7), as the kernel guarantees it; for
	 * the log (sender.c, log_floor())
	 */
	uint64_t asked[ER2BC_PRIO_MAX + 1];
};

int kern_ctrl_get(struct nl *nl, uint32_t ifindex, uint32_t handle,
		  struct qdisc_cap *cap, struct nl_err *err);

/* a probe-get or meter-get reply into @st: 0, or -1 if malformed */
int kern_parse_probe(const struct nlmsghdr *nlh, struct probe_state *st);

/* "MESSAGE: strerror" or "strerror" for a failed request, into @buf */
char *kern_strerror(char *buf, size_t len, const struct nl_err *err, int ret);

#endif /* _ABWD_KERN_H */
