// SPDX-License-Identifier: GPL-2.0
/* The tcp_rcvmgr family's messages, decoded (rcvmgr.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/genetlink.h>

#include "decode.h"
#include "parse.h"
#include "rcvmgr.h"

static const char *const config_names[TCP_RCVMGR_A_CONFIG_MAX + 1] = {
	[TCP_RCVMGR_A_CONFIG_PAD]			= "pad",
	[TCP_RCVMGR_A_CONFIG_POLICY]			= "policy",
	[TCP_RCVMGR_A_CONFIG_WAN_DEV]			= "wan-dev",
	[TCP_RCVMGR_A_CONFIG_LAN_PREFIX]		= "lan-prefix",
	[TCP_RCVMGR_A_CONFIG_RULE]			= "rule",
	[TCP_RCVMGR_A_CONFIG_CLEAR]			= "clear",
	[TCP_RCVMGR_A_CONFIG_INTERVAL]			= "interval",
	[TCP_RCVMGR_A_CONFIG_MAX_CONNS]			= "max-conns",
	[TCP_RCVMGR_A_CONFIG_IDLE_TIMEOUT]		= "idle-timeout",
	[TCP_RCVMGR_A_CONFIG_BUDGET_INIT]		= "budget-init",
	[TCP_RCVMGR_A_CONFIG_BUDGET_MIN]		= "budget-min",
	[TCP_RCVMGR_A_CONFIG_BUDGET_MAX]		= "budget-max",
	[TCP_RCVMGR_A_CONFIG_BUDGET_STEP]		= "budget-step",
	[TCP_RCVMGR_A_CONFIG_BUDGET_DECREASE]		= "budget-decrease",
	[TCP_RCVMGR_A_CONFIG_RTT_TOLERANCE]		= "rtt-tolerance",
	[TCP_RCVMGR_A_CONFIG_LINK_RATE]			= "link-rate",
	[TCP_RCVMGR_A_CONFIG_SPRING_QUEUE]		= "spring-queue",
	[TCP_RCVMGR_A_CONFIG_SPRING_INTERACTIVE]	= "spring-interactive",
	[TCP_RCVMGR_A_CONFIG_SPRING_SHORT]		= "spring-short",
	[TCP_RCVMGR_A_CONFIG_INITIAL_WINDOW]		= "initial-window",
};

static const char *const prefix_names[TCP_RCVMGR_A_PREFIX_MAX + 1] = {
	[TCP_RCVMGR_A_PREFIX_ADDR]	= "addr",
	[TCP_RCVMGR_A_PREFIX_PLEN]	= "plen",
};

static const char *const rule_names[TCP_RCVMGR_A_RULE_MAX + 1] = {
	[TCP_RCVMGR_A_RULE_PORT_MIN]	= "port-min",
	[TCP_RCVMGR_A_RULE_PORT_MAX]	= "port-max",
	[TCP_RCVMGR_A_RULE_DSCP]	= "dscp",
	[TCP_RCVMGR_A_RULE_MARK]	= "mark",
	[TCP_RCVMGR_A_RULE_MARK_MASK]	= "mark-mask",
	[TCP_RCVMGR_A_RULE_PRIORITY]	= "priority",
};

static const char *const conn_names[TCP_RCVMGR_A_CONN_MAX + 1] = {
	[TCP_RCVMGR_A_CONN_PAD]		= "pad",
	[TCP_RCVMGR_A_CONN_FAMILY]	= "family",
	[TCP_RCVMGR_A_CONN_SADDR]	= "saddr",
	[TCP_RCVMGR_A_CONN_DADDR]	= "daddr",
	[TCP_RCVMGR_A_CONN_SPORT]	= "sport",
	[TCP_RCVMGR_A_CONN_DPORT]	= "dport",
	[TCP_RCVMGR_A_CONN_STATE]	= "state",
	[TCP_RCVMGR_A_CONN_PRIORITY]	= "priority",
	[TCP_RCVMGR_A_CONN_BYTES]	= "bytes",
	[TCP_RCVMGR_A_CONN_RTT]		= "rtt",
	[TCP_RCVMGR_A_CONN_RTT_MIN]	= "rtt-min",
	[TCP_RCVMGR_A_CONN_RTT_SAMPLES]	= "rtt-samples",
	[TCP_RCVMGR_A_CONN_MSS]		= "mss",
	[TCP_RCVMGR_A_CONN_WSCALE]	= "wscale",
	[TCP_RCVMGR_A_CONN_WINDOW]	= "window",
	[TCP_RCVMGR_A_CONN_THRESHOLD]	= "threshold",
	[TCP_RCVMGR_A_CONN_ADVERTISED]	= "advertised",
	[TCP_RCVMGR_A_CONN_REWRITTEN]	= "rewritten",
	[TCP_RCVMGR_A_CONN_AGE]		= "age",
};

static const char *const stats_names[TCP_RCVMGR_A_STATS_MAX + 1] = {
	[TCP_RCVMGR_A_STATS_PAD]		= "pad",
	[TCP_RCVMGR_A_STATS_CONNS]		= "conns",
	[TCP_RCVMGR_A_STATS_INITIAL]		= "initial",
	[TCP_RCVMGR_A_STATS_PERSISTENT]		= "persistent",
	[TCP_RCVMGR_A_STATS_BUDGET]		= "budget",
	[TCP_RCVMGR_A_STATS_INTERVALS]		= "intervals",
	[TCP_RCVMGR_A_STATS_BUDGET_UP]		= "budget-up",
	[TCP_RCVMGR_A_STATS_BUDGET_DOWN]	= "budget-down",
	[TCP_RCVMGR_A_STATS_CREATED]		= "created",
	[TCP_RCVMGR_A_STATS_FREED]		= "freed",
	[TCP_RCVMGR_A_STATS_FULL]		= "full",
	[TCP_RCVMGR_A_STATS_UNSCALED]		= "unscaled",
	[TCP_RCVMGR_A_STATS_ACKS]		= "acks",
	[TCP_RCVMGR_A_STATS_REWRITTEN]		= "rewritten",
	[TCP_RCVMGR_A_STATS_RTT_SAMPLES]	= "rtt-samples",
	[TCP_RCVMGR_A_STATS_MEMORY]		= "memory",
	[TCP_RCVMGR_A_STATS_OPENING]		= "opening",
	[TCP_RCVMGR_A_STATS_OPENING_FULL]	= "opening-full",
	[TCP_RCVMGR_A_STATS_OFFLOADED]		= "offloaded",
	[TCP_RCVMGR_A_STATS_ASSIGNMENTS]	= "assignments",
	[TCP_RCVMGR_A_STATS_ADOPTED]		= "adopted",
	[TCP_RCVMGR_A_STATS_PROBES]		= "probes",
	[TCP_RCVMGR_A_STATS_UNSEEN]		= "unseen",
	[TCP_RCVMGR_A_STATS_RESETS]		= "resets",
	[TCP_RCVMGR_A_STATS_RESUMED]		= "resumed",
	[TCP_RCVMGR_A_STATS_RECALLED]		= "recalled",
	[TCP_RCVMGR_A_STATS_KEPT_LOST]		= "kept-lost",
};

const char *rcvmgr_config_attr_name(unsigned int type)
{
	return type <= TCP_RCVMGR_A_CONFIG_MAX ? config_names[type] : NULL;
}

const char *rcvmgr_prefix_attr_name(unsigned int type)
{
	return type <= TCP_RCVMGR_A_PREFIX_MAX ? prefix_names[type] : NULL;
}

const char *rcvmgr_rule_attr_name(unsigned int type)
{
	return type <= TCP_RCVMGR_A_RULE_MAX ? rule_names[type] : NULL;
}

const char *rcvmgr_conn_attr_name(unsigned int type)
{
	return type <= TCP_RCVMGR_A_CONN_MAX ? conn_names[type] : NULL;
}

const char *rcvmgr_stats_attr_name(unsigned int type)
{
	return type <= TCP_RCVMGR_A_STATS_MAX ? stats_names[type] : NULL;
}

const char *rcvmgr_policy_name(uint64_t policy, char *buf)
{
	switch (policy) {
	case TCP_RCVMGR_POLICY_OFF:
		return "off";
	case TCP_RCVMGR_POLICY_AZUMA:
		return "azuma";
	case TCP_RCVMGR_POLICY_SPRING:
		return "spring";
	case TCP_RCVMGR_POLICY_EQUAL:
		return "equal";
	}
	snprintf(buf, FMT_LEN, "%" PRIu64, policy);
	return buf;
}

const char *rcvmgr_state_name(uint64_t state, char *buf)
{
	switch (state) {
	case TCP_RCVMGR_STATE_INITIAL:
		return "initial";
	case TCP_RCVMGR_STATE_PERSISTENT:
		return "persistent";
	case TCP_RCVMGR_STATE_CLOSING:
		return "closing";
	case TCP_RCVMGR_STATE_UNSCALED:
		return "unscaled";
	}
	snprintf(buf, FMT_LEN, "%" PRIu64, state);
	return buf;
}

/* an address attribute: 4 or 16 bytes, else it is left out */
static uint8_t get_addr(const struct nlattr *a, uint8_t *addr)
{
	uint16_t len = mnl_attr_get_payload_len(a);

	if (len != 4 && len != 16)
		return 0;
	memcpy(addr, mnl_attr_get_payload(a), len);
	return (uint8_t)len;
}

static int add_wan(struct rcvmgr_config *c, const struct nlattr *a)
{
	uint32_t *wan;
	uint64_t v;

	if (!attr_get_int(a, false, &v))
		return 0;
	wan = array_grow(c->wan, c->nwan, sizeof(*wan));
	if (!wan)
		return -1;
	c->wan = wan;
	c->wan[c->nwan++] = (uint32_t)v;
	return 0;
}

static int add_prefix(struct rcvmgr_config *c, const struct nlattr *nest)
{
	struct rcvmgr_prefix *p, *lan;
	const struct nlattr *a;
	uint64_t v;

	lan = array_grow(c->lan, c->nlan, sizeof(*lan));
	if (!lan)
		return -1;
	c->lan = lan;
	p = &c->lan[c->nlan++];
	memset(p, 0, sizeof(*p));
	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case TCP_RCVMGR_A_PREFIX_ADDR:
			p->alen = get_addr(a, p->addr);
			break;
		case TCP_RCVMGR_A_PREFIX_PLEN:
			if (attr_get_int(a, false, &v)) {
				p->plen = (uint8_t)v;
				p->has_plen = true;
			}
			break;
		}
	}
	return 0;
}

static int add_rule(struct rcvmgr_config *c, const struct nlattr *nest)
{
	struct rcvmgr_rule *r, *rules;
	const struct nlattr *a;
	unsigned int type;
	uint64_t v;

	rules = array_grow(c->rules, c->nrules, sizeof(*rules));
	if (!rules)
		return -1;
	c->rules = rules;
	r = &c->rules[c->nrules++];
	memset(r, 0, sizeof(*r));
	mnl_attr_for_each_nested(a, nest) {
		type = mnl_attr_get_type(a);
		if (!type || type > TCP_RCVMGR_A_RULE_MAX || !attr_get_int(a, false, &v))
			continue;
		r->v[type] = v;
		r->has[type] = true;
	}
	return 0;
}

int rcvmgr_config_merge(struct rcvmgr_config *c, const struct nlmsghdr *nlh)
{
	const struct nlattr *a;
	unsigned int type;
	uint64_t v;
	int ret;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr))
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		type = mnl_attr_get_type(a);
		switch (type) {
		case TCP_RCVMGR_A_CONFIG_WAN_DEV:
			ret = add_wan(c, a);
			break;
		case TCP_RCVMGR_A_CONFIG_LAN_PREFIX:
			ret = add_prefix(c, a);
			break;
		case TCP_RCVMGR_A_CONFIG_RULE:
			ret = add_rule(c, a);
			break;
		default:
			ret = 0;
			if (!type || type == TCP_RCVMGR_A_CONFIG_PAD ||
			    type > TCP_RCVMGR_A_CONFIG_MAX || !attr_get_int(a, false, &v))
				break;
			c->v[type] = v;
			c->has[type] = true;
		}
		if (ret) {
			errno = ENOMEM;
			return -1;
		}
	}
	c->msgs++;
	return 0;
}

void rcvmgr_config_free(struct rcvmgr_config *c)
{
	free(c->wan);
	free(c->lan);
	free(c->rules);
	memset(c, 0, sizeof(*c));
}

/* a port: a big-endian u16 */
static bool get_port(const struct nlattr *a, uint64_t *v)
{
	uint16_t be;

	if (mnl_attr_get_payload_len(a) != sizeof(be))
		return false;
	memcpy(&be, mnl_attr_get_payload(a), sizeof(be));
	*v = ntohs(be);
	return true;
}

void rcvmgr_conn_decode(struct rcvmgr_conn *c, const struct nlmsghdr *nlh)
{
	const struct nlattr *a;
	unsigned int type;
	bool ok;

	memset(c, 0, sizeof(*c));
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr))
		return;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		type = mnl_attr_get_type(a);
		if (!type || type == TCP_RCVMGR_A_CONN_PAD || type > TCP_RCVMGR_A_CONN_MAX)
			continue;
		switch (type) {
		case TCP_RCVMGR_A_CONN_SADDR:
			c->slen = get_addr(a, c->saddr);
			ok = c->slen;
			break;
		case TCP_RCVMGR_A_CONN_DADDR:
			c->dlen = get_addr(a, c->daddr);
			ok = c->dlen;
			break;
		case TCP_RCVMGR_A_CONN_SPORT:
		case TCP_RCVMGR_A_CONN_DPORT:
			ok = get_port(a, &c->v[type]);
			break;
		default:
			ok = attr_get_int(a, false, &c->v[type]);
		}
		c->has[type] = ok;
	}
}

void rcvmgr_stats_merge(struct rcvmgr_stats *s, const struct nlmsghdr *nlh)
{
	const struct nlattr *a;
	unsigned int type;
	uint64_t v;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr))
		return;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		type = mnl_attr_get_type(a);
		if (!type || type == TCP_RCVMGR_A_STATS_PAD || type > TCP_RCVMGR_A_STATS_MAX ||
		    !attr_get_int(a, false, &v))
			continue;
		s->v[type] = v;
		s->has[type] = true;
	}
	s->msgs++;
}
