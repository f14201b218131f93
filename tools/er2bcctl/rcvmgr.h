/* SPDX-License-Identifier: GPL-2.0 */
/*
 * er2bcctl rcvmgr: the generic netlink family tcp_rcvmgr
 * (Documentation/netlink/specs/tcp_rcvmgr.yaml), per network namespace:
 * its configuration (config-get, config-set), its connections (conn-get, a
 * dump) and its counters (stats-get).
 *
 * The messages decoded (rcvmgr_decode.c): every attribute may be missing,
 * has[] says; integers are read whatever their width. Printed
 * (rcvmgr_output.c): text for people, sizes and times in units; JSON with
 * the spec's names, dashes made underscores, each quantity's unit added
 * (interval_us, link_rate_bytes_per_second, budget_bytes) as show's keys.
 */
#ifndef _ER2BCCTL_RCVMGR_H
#define _ER2BCCTL_RCVMGR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <libmnl/libmnl.h>
#include <linux/tcp_rcvmgr.h>

#include "json.h"

/* a LAN prefix: 4 (IPv4) or 16 (IPv6) address bytes, network order */
struct rcvmgr_prefix {
	uint8_t addr[16];
	uint8_t alen;		/* 4 or 16; 0: no (valid) address */
	uint8_t plen;
	bool has_plen;
};

struct rcvmgr_rule {
	uint64_t v[TCP_RCVMGR_A_RULE_MAX + 1];
	bool has[TCP_RCVMGR_A_RULE_MAX + 1];
};

struct rcvmgr_config {
	/* the scalars; the lists below */
	uint64_t v[TCP_RCVMGR_A_CONFIG_MAX + 1];
	bool has[TCP_RCVMGR_A_CONFIG_MAX + 1];
	uint32_t *wan;				/* ifindexes */
	size_t nwan;
	struct rcvmgr_prefix *lan;
	size_t nlan;
	struct rcvmgr_rule *rules;
	size_t nrules;
	unsigned int msgs;			/* messages merged */
};

struct rcvmgr_conn {
	uint64_t v[TCP_RCVMGR_A_CONN_MAX + 1];	/* ports in host order */
	bool has[TCP_RCVMGR_A_CONN_MAX + 1];
	uint8_t saddr[16], daddr[16];		/* has[] and the lengths say */
	uint8_t slen, dlen;
};

struct rcvmgr_stats {
	uint64_t v[TCP_RCVMGR_A_STATS_MAX + 1];
	bool has[TCP_RCVMGR_A_STATS_MAX + 1];
	unsigned int msgs;
};

/*
 * Merges a config-get reply into @c (lists appended): 0, or -1 with errno
 * set if memory ran out.
 */
int rcvmgr_config_merge(struct rcvmgr_config *c, const struct nlmsghdr *nlh);
void rcvmgr_config_free(struct rcvmgr_config *c);
/* one conn-get message */
void rcvmgr_conn_decode(struct rcvmgr_conn *c, const struct nlmsghdr *nlh);
/* merges a stats-get reply into @s */
void rcvmgr_stats_merge(struct rcvmgr_stats *s, const struct nlmsghdr *nlh);

/* the spec's names of the attributes ("wan-dev"), or NULL */
const char *rcvmgr_config_attr_name(unsigned int type);
const char *rcvmgr_prefix_attr_name(unsigned int type);
const char *rcvmgr_rule_attr_name(unsigned int type);
const char *rcvmgr_conn_attr_name(unsigned int type);
const char *rcvmgr_stats_attr_name(unsigned int type);

/* "off", "azuma" ..., or the number (in @buf, FMT_LEN bytes) */
const char *rcvmgr_policy_name(uint64_t policy, char *buf);
/* "initial", "persistent" ..., or the number */
const char *rcvmgr_state_name(uint64_t state, char *buf);

/* the configuration on @f, text or one JSON object */
void rcvmgr_config_print(FILE *f, const struct rcvmgr_config *c);
/* the counters on @f, text or one JSON object */
void rcvmgr_stats_print(FILE *f, const struct rcvmgr_stats *s);

/*
 * The connections, printed as they come: one line each, or the elements
 * of one JSON array, opened at the first (or at the end, if none came).
 */
struct rcvmgr_conns_out {
	FILE *f;
	struct json j;
	bool started;
	unsigned long n;
};

void rcvmgr_conns_begin(struct rcvmgr_conns_out *o, FILE *f);
void rcvmgr_conn_print(struct rcvmgr_conns_out *o, const struct rcvmgr_conn *c);
/* after the last: the JSON array closed */
void rcvmgr_conns_end(struct rcvmgr_conns_out *o);

/* what rcvmgr set sends: a config-set request */
struct rcvmgr_set {
	uint64_t v[TCP_RCVMGR_A_CONFIG_MAX + 1];	/* the scalars */
	bool has[TCP_RCVMGR_A_CONFIG_MAX + 1];
	uint32_t wan[TCP_RCVMGR_DEV_MAX];
	unsigned int nwan;
	struct rcvmgr_prefix lan[TCP_RCVMGR_PREFIX_MAX];
	unsigned int nlan;
	struct rcvmgr_rule rules[TCP_RCVMGR_RULE_MAX];
	unsigned int nrules;
	uint32_t clear;					/* TCP_RCVMGR_CLEAR_* */
};

/*
 * rcvmgr set's arguments (after "set"): 0, or EXIT_USAGE after the
 * message. Nothing is sent; device names are looked up.
 */
int rcvmgr_set_parse(struct rcvmgr_set *s, int argc, char **argv);
/* @s's attributes, appended to the request @nlh */
void rcvmgr_set_put(struct nlmsghdr *nlh, const struct rcvmgr_set *s);

#endif /* _ER2BCCTL_RCVMGR_H */
