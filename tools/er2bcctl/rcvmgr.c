// SPDX-License-Identifier: GPL-2.0
/*
 * er2bcctl rcvmgr show|set|conns|stats: tcp_rcvmgr's configuration, its
 * connections and its counters, in the network namespace er2bcctl runs in
 * (ip netns exec), over the generic netlink family tcp_rcvmgr.
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <linux/tcp_rcvmgr.h>

#include "er2bcctl.h"
#include "nl.h"
#include "parse.h"
#include "rcvmgr.h"

#define SHAS(s, a)	((s)->has[TCP_RCVMGR_A_CONFIG_##a])
#define SVAL(s, a)	((s)->v[TCP_RCVMGR_A_CONFIG_##a])
#define RHAS(r, a)	((r)->has[TCP_RCVMGR_A_RULE_##a])
#define RVAL(r, a)	((r)->v[TCP_RCVMGR_A_RULE_##a])

static const char *const policies[] = {
	[TCP_RCVMGR_POLICY_OFF]		= "off",
	[TCP_RCVMGR_POLICY_AZUMA]	= "azuma",
	[TCP_RCVMGR_POLICY_SPRING]	= "spring",
	[TCP_RCVMGR_POLICY_EQUAL]	= "equal",
};

/* how a scalar option's value is written, and its range (the spec's checks) */
enum kind {
	K_NUM,		/* a plain number */
	K_PERCENT,	/* the same, % allowed after it */
	K_MS,		/* TIME, whole milliseconds; bare numbers are ms */
	K_SIZE,		/* SIZE */
	K_RATE,		/* RATE, bits/s */
};

static const struct set_option {
	const char *key;
	unsigned int type;
	enum kind kind;
	uint64_t min, max;
} options[] = {
	{ "interval",		TCP_RCVMGR_A_CONFIG_INTERVAL,	K_MS,	10, 3600000 },
	{ "max-conns",		TCP_RCVMGR_A_CONFIG_MAX_CONNS,	K_NUM,	1, 16777216 },
	{ "idle-timeout",	TCP_RCVMGR_A_CONFIG_IDLE_TIMEOUT, K_MS,	1000, UINT32_MAX },
	{ "budget-init",	TCP_RCVMGR_A_CONFIG_BUDGET_INIT, K_SIZE, 1, UINT32_MAX },
	{ "budget-min",		TCP_RCVMGR_A_CONFIG_BUDGET_MIN,	K_SIZE,	1, UINT32_MAX },
	{ "budget-max",		TCP_RCVMGR_A_CONFIG_BUDGET_MAX,	K_SIZE,	1, UINT32_MAX },
	{ "budget-step",	TCP_RCVMGR_A_CONFIG_BUDGET_STEP, K_SIZE, 1, UINT32_MAX },
	{ "budget-decrease",	TCP_RCVMGR_A_CONFIG_BUDGET_DECREASE, K_NUM, 1, 999 },
	{ "rtt-tolerance",	TCP_RCVMGR_A_CONFIG_RTT_TOLERANCE, K_PERCENT, 0, 1000 },
	{ "link-rate",		TCP_RCVMGR_A_CONFIG_LINK_RATE,	K_RATE,	0, UINT64_MAX },
	{ "spring-queue",	TCP_RCVMGR_A_CONFIG_SPRING_QUEUE, K_SIZE, 0, UINT32_MAX },
	{ "spring-interactive",	TCP_RCVMGR_A_CONFIG_SPRING_INTERACTIVE, K_SIZE, 0, UINT32_MAX },
	{ "spring-short",	TCP_RCVMGR_A_CONFIG_SPRING_SHORT, K_SIZE, 0, UINT32_MAX },
	{ "initial-window",	TCP_RCVMGR_A_CONFIG_INITIAL_WINDOW, K_NUM, 2, 1024 },
};

/* a bound of @o's range, as its values are written */
static const char *fmt_bound(char *buf, const struct set_option *o, uint64_t v)
{
	switch (o->kind) {
	case K_MS:
		return fmt_time(buf, v * 1000);
	case K_SIZE:
		return fmt_size_exact(buf, v);
	case K_RATE:
		return fmt_rate(buf, v);
	case K_PERCENT:
		snprintf(buf, FMT_LEN, "%llu%%", (unsigned long long)v);
		return buf;
	case K_NUM:
		break;
	}
	snprintf(buf, FMT_LEN, "%llu", (unsigned long long)v);
	return buf;
}

static int option_arg(struct rcvmgr_set *s, const struct set_option *o, const char *val)
{
	char num[32], b[FMT_LEN], why_buf[64];
	const char *why;
	uint64_t v;
	size_t len;
	int err;

	if (once(&s->has[o->type], o->key))
		return EXIT_USAGE;
	switch (o->kind) {
	case K_PERCENT:
		len = strlen(val);
		if (len && val[len - 1] == '%' && len < sizeof(num)) {
			memcpy(num, val, len - 1);
			num[len - 1] = '\0';
			err = parse_u64(num, &v, &why);
		} else {
			err = parse_u64(val, &v, &why);
		}
		break;
	case K_NUM:
		err = parse_u64(val, &v, &why);
		break;
	case K_MS:
		/* a bare number in us, as tc reads times */
		err = parse_time(val, 1, &v, &why);
		if (!err && v % 1000) {
			why = "not a whole number of milliseconds";
			err = -1;
		}
		v /= 1000;
		break;
	case K_SIZE:
		err = parse_size(val, &v, &why);
		break;
	case K_RATE:
	default:
		err = parse_rate(val, &v, &why);
		break;
	}
	if (err)
		return usage_bad(o->key, val, why);
	if (v < o->min) {
		if (o->min == 1)
			return usage_bad(o->key, val, "must be more than 0");
		snprintf(why_buf, sizeof(why_buf), "must be at least %s", fmt_bound(b, o, o->min));
		return usage_bad(o->key, val, why_buf);
	}
	if (v > o->max) {
		snprintf(why_buf, sizeof(why_buf), "must be at most %s", fmt_bound(b, o, o->max));
		return usage_bad(o->key, val, why_buf);
	}
	s->v[o->type] = v;
	return 0;
}

static int policy_arg(struct rcvmgr_set *s, const char *key, const char *val)
{
	size_t i;

	if (once(&SHAS(s, POLICY), key))
		return EXIT_USAGE;
	for (i = 0; i < ARRAY_SIZE(policies); i++) {
		if (!strcmp(val, policies[i])) {
			SVAL(s, POLICY) = i;
			return 0;
		}
	}
	return usage_bad(key, val, "not off, azuma, spring or equal");
}

/* "wan none", "lan none", "rule none": the list's clear flag */
static int none_arg(struct rcvmgr_set *s, const char *key, uint32_t flag, unsigned int n)
{
	if (s->clear & flag)
		return usage_err("\"%s none\" given twice", key);
	if (n)
		return usage_err("give \"%s none\" or a list, not both", key);
	s->clear |= flag;
	return 0;
}

static int wan_arg(struct rcvmgr_set *s, const char *key, const char *val)
{
	unsigned int ifindex, i;

	if (!strcmp(val, "none"))
		return none_arg(s, key, TCP_RCVMGR_CLEAR_WAN_DEV, s->nwan);
	if (s->clear & TCP_RCVMGR_CLEAR_WAN_DEV)
		return usage_err("give \"%s none\" or a list, not both", key);
	if (!*val || strlen(val) >= IF_NAMESIZE)
		return usage_bad(key, val, "not a device name");
	ifindex = if_nametoindex(val);
	if (!ifindex)
		return usage_bad(key, val, "no such device");
	for (i = 0; i < s->nwan; i++)
		if (s->wan[i] == ifindex)
			return usage_err("\"%s %s\" given twice", key, val);
	if (s->nwan == TCP_RCVMGR_DEV_MAX)
		return usage_err("at most %d \"%s\" devices", TCP_RCVMGR_DEV_MAX, key);
	s->wan[s->nwan++] = ifindex;
	return 0;
}

/* ADDR[/LEN], IPv4 or IPv6; no /LEN: the address alone */
static int parse_prefix(const char *s, struct rcvmgr_prefix *p, const char **why)
{
	static char why_buf[64];
	const char *slash = strchr(s, '/');
	char addr[INET6_ADDRSTRLEN];
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	unsigned int max;
	uint32_t plen;

	memset(p, 0, sizeof(*p));
	if (!*s) {
		*why = "empty";
		return -1;
	}
	*why = "not an IPv4 or IPv6 address";
	if (!alen || alen >= sizeof(addr))
		return -1;
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET, addr, p->addr) == 1)
		p->alen = 4;
	else if (inet_pton(AF_INET6, addr, p->addr) == 1)
		p->alen = 16;
	else
		return -1;
	max = p->alen * 8u;
	p->plen = (uint8_t)max;
	p->has_plen = true;
	if (!slash)
		return 0;
	if (!slash[1]) {
		*why = "no prefix length after /";
		return -1;
	}
	if (parse_u32(slash + 1, &plen, why)) {
		*why = "prefix length not a number";
		return -1;
	}
	if (plen > max) {
		snprintf(why_buf, sizeof(why_buf), "prefix length above %u", max);
		*why = why_buf;
		return -1;
	}
	p->plen = (uint8_t)plen;
	return 0;
}

static int lan_arg(struct rcvmgr_set *s, const char *key, const char *val)
{
	struct rcvmgr_prefix p;
	const char *why;

	if (!strcmp(val, "none"))
		return none_arg(s, key, TCP_RCVMGR_CLEAR_LAN_PREFIX, s->nlan);
	if (s->clear & TCP_RCVMGR_CLEAR_LAN_PREFIX)
		return usage_err("give \"%s none\" or a list, not both", key);
	if (parse_prefix(val, &p, &why))
		return usage_bad(key, val, why);
	if (s->nlan == TCP_RCVMGR_PREFIX_MAX)
		return usage_err("at most %d \"%s\" prefixes", TCP_RCVMGR_PREFIX_MAX, key);
	s->lan[s->nlan++] = p;
	return 0;
}

/* N or N-M */
static int port_arg(struct rcvmgr_rule *r, const char *key, const char *val)
{
	const char *dash = strchr(val, '-'), *why;
	char lo_s[16];
	uint32_t lo, hi;
	size_t len;

	if (dash == val || (dash && (!dash[1] || strchr(dash + 1, '-'))))
		return usage_bad(key, val, "not a port or a range of ports (N or N-M)");
	len = dash ? (size_t)(dash - val) : strlen(val);
	if (len >= sizeof(lo_s))
		return usage_bad(key, val, "too large");
	memcpy(lo_s, val, len);
	lo_s[len] = '\0';
	if (parse_u32(lo_s, &lo, &why) || (dash && parse_u32(dash + 1, &hi, &why)))
		return usage_bad(key, val, why);
	if (!dash)
		hi = lo;
	if (lo > 65535 || hi > 65535)
		return usage_bad(key, val, "ports are at most 65535");
	if (lo > hi)
		return usage_bad(key, val, "the range is reversed");
	RVAL(r, PORT_MIN) = lo;
	RVAL(r, PORT_MAX) = hi;
	RHAS(r, PORT_MIN) = true;
	RHAS(r, PORT_MAX) = true;
	return 0;
}

/* N or N/MASK, decimal or 0x hex */
static int mark_arg(struct rcvmgr_rule *r, const char *key, const char *val)
{
	const char *slash = strchr(val, '/'), *why;
	uint32_t mark, mask = UINT32_MAX;
	char mark_s[16];
	size_t len;

	if (slash == val || (slash && (!slash[1] || strchr(slash + 1, '/'))))
		return usage_bad(key, val, "not a mark or a mark and mask (N or N/MASK)");
	len = slash ? (size_t)(slash - val) : strlen(val);
	if (len >= sizeof(mark_s))
		return usage_bad(key, val, "too large");
	memcpy(mark_s, val, len);
	mark_s[len] = '\0';
	if (parse_u32_hex(mark_s, &mark, &why) || (slash && parse_u32_hex(slash + 1, &mask, &why)))
		return usage_bad(key, val, why);
	RVAL(r, MARK) = mark;
	RVAL(r, MARK_MASK) = mask;
	RHAS(r, MARK) = true;
	RHAS(r, MARK_MASK) = true;
	return 0;
}

static bool is_rule_key(const char *key)
{
	return !strcmp(key, "port") || !strcmp(key, "dscp") || !strcmp(key, "mark") ||
	       !strcmp(key, "priority");
}

/*
 * rule [ port N[-M] ] [ dscp N ] [ mark N[/MASK] ] priority P, its words in
 * any order, from argv[*i] ("rule"); or rule none. *i moves past it.
 */
static int rule_arg(struct rcvmgr_set *s, int argc, char **argv, int *i)
{
	const char *key = argv[*i], *val, *why;
	struct rcvmgr_rule *r;
	unsigned int n;
	uint32_t v;
	bool dup;

	(*i)++;
	if (*i < argc && !strcmp(argv[*i], "none")) {
		(*i)++;
		return none_arg(s, key, TCP_RCVMGR_CLEAR_RULE, s->nrules);
	}
	if (s->clear & TCP_RCVMGR_CLEAR_RULE)
		return usage_err("give \"%s none\" or a list, not both", key);
	if (s->nrules == TCP_RCVMGR_RULE_MAX)
		return usage_err("at most %d rules", TCP_RCVMGR_RULE_MAX);
	n = s->nrules + 1;
	r = &s->rules[s->nrules];
	memset(r, 0, sizeof(*r));
	while (*i < argc && is_rule_key(argv[*i])) {
		key = argv[*i];
		if (*i + 1 >= argc)
			return usage_err("\"%s\" needs a value", key);
		val = argv[*i + 1];
		*i += 2;
		if (!strcmp(key, "port"))
			dup = RHAS(r, PORT_MIN);
		else if (!strcmp(key, "dscp"))
			dup = RHAS(r, DSCP);
		else if (!strcmp(key, "mark"))
			dup = RHAS(r, MARK);
		else
			dup = RHAS(r, PRIORITY);
		if (dup)
			return usage_err("rule %u: \"%s\" given twice %s", n, key,
					 "(a new rule starts with \"rule\")");
		if (!strcmp(key, "port")) {
			if (port_arg(r, key, val))
				return EXIT_USAGE;
		} else if (!strcmp(key, "mark")) {
			if (mark_arg(r, key, val))
				return EXIT_USAGE;
		} else if (!strcmp(key, "dscp")) {
			if (parse_u32_hex(val, &v, &why))
				return usage_bad(key, val, why);
			if (v > 63)
				return usage_bad(key, val, "must be 0 to 63");
			RVAL(r, DSCP) = v;
			RHAS(r, DSCP) = true;
		} else {
			if (parse_u32(val, &v, &why))
				return usage_bad(key, val, why);
			if (v < 1 || v > TCP_RCVMGR_PRIORITY_MAX)
				return usage_bad(key, val, "must be 1 to 1000");
			RVAL(r, PRIORITY) = v;
			RHAS(r, PRIORITY) = true;
		}
	}
	if (!RHAS(r, PRIORITY))
		return usage_err("rule %u: missing \"priority\"", n);
	s->nrules++;
	return 0;
}

int rcvmgr_set_parse(struct rcvmgr_set *s, int argc, char **argv)
{
	const struct set_option *o;
	const char *key, *val;
	int i = 0, ret;
	size_t k;

	memset(s, 0, sizeof(*s));
	if (!argc)
		return usage_err("nothing to set (try " PROG " -h)");
	while (i < argc) {
		key = argv[i];
		if (!strcmp(key, "rule")) {
			ret = rule_arg(s, argc, argv, &i);
			if (ret)
				return ret;
			continue;
		}
		if (is_rule_key(key))
			return usage_err("\"%s\" outside a rule (a rule starts with \"rule\")",
					 key);
		o = NULL;
		for (k = 0; k < ARRAY_SIZE(options); k++)
			if (!strcmp(key, options[k].key))
				o = &options[k];
		if (!o && strcmp(key, "policy") && strcmp(key, "wan") && strcmp(key, "lan"))
			return usage_err("unknown argument \"%s\" (try " PROG " -h)", key);
		if (i + 1 >= argc)
			return usage_err("\"%s\" needs a value", key);
		val = argv[i + 1];
		i += 2;
		if (o)
			ret = option_arg(s, o, val);
		else if (!strcmp(key, "policy"))
			ret = policy_arg(s, key, val);
		else if (!strcmp(key, "wan"))
			ret = wan_arg(s, key, val);
		else
			ret = lan_arg(s, key, val);
		if (ret)
			return ret;
	}
	return 0;
}

void rcvmgr_set_put(struct nlmsghdr *nlh, const struct rcvmgr_set *s)
{
	const struct rcvmgr_rule *r;
	struct nlattr *nest;
	unsigned int i;
	size_t k;

	if (SHAS(s, POLICY))
		mnl_attr_put_u8(nlh, TCP_RCVMGR_A_CONFIG_POLICY, (uint8_t)SVAL(s, POLICY));
	for (i = 0; i < s->nwan; i++)
		mnl_attr_put_u32(nlh, TCP_RCVMGR_A_CONFIG_WAN_DEV, s->wan[i]);
	for (i = 0; i < s->nlan; i++) {
		nest = mnl_attr_nest_start(nlh, TCP_RCVMGR_A_CONFIG_LAN_PREFIX);
		mnl_attr_put(nlh, TCP_RCVMGR_A_PREFIX_ADDR, s->lan[i].alen, s->lan[i].addr);
		mnl_attr_put_u8(nlh, TCP_RCVMGR_A_PREFIX_PLEN, s->lan[i].plen);
		mnl_attr_nest_end(nlh, nest);
	}
	for (i = 0; i < s->nrules; i++) {
		r = &s->rules[i];
		nest = mnl_attr_nest_start(nlh, TCP_RCVMGR_A_CONFIG_RULE);
		if (RHAS(r, PORT_MIN))
			mnl_attr_put_u16(nlh, TCP_RCVMGR_A_RULE_PORT_MIN,
					 (uint16_t)RVAL(r, PORT_MIN));
		if (RHAS(r, PORT_MAX))
			mnl_attr_put_u16(nlh, TCP_RCVMGR_A_RULE_PORT_MAX,
					 (uint16_t)RVAL(r, PORT_MAX));
		if (RHAS(r, DSCP))
			mnl_attr_put_u8(nlh, TCP_RCVMGR_A_RULE_DSCP, (uint8_t)RVAL(r, DSCP));
		if (RHAS(r, MARK))
			mnl_attr_put_u32(nlh, TCP_RCVMGR_A_RULE_MARK, (uint32_t)RVAL(r, MARK));
		if (RHAS(r, MARK_MASK))
			mnl_attr_put_u32(nlh, TCP_RCVMGR_A_RULE_MARK_MASK,
					 (uint32_t)RVAL(r, MARK_MASK));
		mnl_attr_put_u32(nlh, TCP_RCVMGR_A_RULE_PRIORITY, (uint32_t)RVAL(r, PRIORITY));
		mnl_attr_nest_end(nlh, nest);
	}
	if (s->clear)
		mnl_attr_put_u32(nlh, TCP_RCVMGR_A_CONFIG_CLEAR, s->clear);
	/* link-rate is a u64, unpadded: the policy has no pad to accept */
	for (k = 0; k < ARRAY_SIZE(options); k++) {
		if (!s->has[options[k].type])
			continue;
		if (options[k].type == TCP_RCVMGR_A_CONFIG_LINK_RATE)
			mnl_attr_put_u64(nlh, options[k].type, s->v[options[k].type]);
		else
			mnl_attr_put_u32(nlh, options[k].type, (uint32_t)s->v[options[k].type]);
	}
}

/* sends @nlh, its replies to @cb: 0, or EXIT_FAIL after the message */
static int talk(struct nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	struct nl_err err;
	int ret;

	ret = nl_talk(nl, nlh, cb, data, &err);
	if (ret == -EINTR && !err.error) {
		err_msg("%s: the connections changed during the dump; try again", cmd_name);
		return EXIT_FAIL;
	}
	if (ret) {
		kernel_error(&fam_rcvmgr, &err, ret, cmd_name);
		return EXIT_FAIL;
	}
	if (err.msg[0])
		err_msg("warning: %s", err.msg);
	return 0;
}

static struct nlmsghdr *request(struct nl *nl, uint8_t cmd, uint16_t flags)
{
	return nl_genl_msg(nl, nl->family, cmd, TCP_RCVMGR_FAMILY_VERSION, flags);
}

static int no_args(int argc, char **argv)
{
	if (argc)
		return usage_err("unknown argument \"%s\" (try " PROG " -h)", argv[0]);
	return 0;
}

static int config_msg(const struct nlmsghdr *nlh, void *data)
{
	return rcvmgr_config_merge(data, nlh) ? MNL_CB_ERROR : MNL_CB_OK;
}

/*
 * One request of @cmd answered by messages that @cb merges into @data;
 * @msgs counts them, and none at all is an error naming @what.
 */
static int get_merged(int argc, char **argv, uint8_t cmd, mnl_cb_t cb, void *data,
		      const unsigned int *msgs, const char *what)
{
	struct nl own, *nl;
	int ret;

	ret = no_args(argc, argv);
	if (ret)
		return ret;
	ret = family_get(&fam_rcvmgr, &own, &nl);
	if (ret)
		return ret;
	ret = talk(nl, request(nl, cmd, NLM_F_ACK), cb, data);
	if (!ret && !*msgs) {
		err_msg("%s: the kernel sent no %s", cmd_name, what);
		ret = EXIT_FAIL;
	}
	family_put(nl);
	return ret;
}

static int do_show_config(int argc, char **argv)
{
	struct rcvmgr_config c = { 0 };
	int ret;

	ret = get_merged(argc, argv, TCP_RCVMGR_CMD_CONFIG_GET, config_msg, &c,
			 &c.msgs, "configuration");
	if (!ret)
		rcvmgr_config_print(stdout, &c);
	rcvmgr_config_free(&c);
	return ret;
}

static int do_set(int argc, char **argv)
{
	struct rcvmgr_set s;
	struct nlmsghdr *nlh;
	struct nl own, *nl;
	int ret;

	ret = rcvmgr_set_parse(&s, argc, argv);
	if (ret)
		return ret;
	ret = family_get(&fam_rcvmgr, &own, &nl);
	if (ret)
		return ret;
	nlh = request(nl, TCP_RCVMGR_CMD_CONFIG_SET, NLM_F_ACK);
	rcvmgr_set_put(nlh, &s);
	ret = talk(nl, nlh, NULL, NULL);
	family_put(nl);
	return ret;
}

static int conn_msg(const struct nlmsghdr *nlh, void *data)
{
	struct rcvmgr_conn c;

	rcvmgr_conn_decode(&c, nlh);
	rcvmgr_conn_print(data, &c);
	return MNL_CB_OK;
}

static int do_conns(int argc, char **argv)
{
	struct rcvmgr_conns_out o;
	struct nl own, *nl;
	int ret;

	ret = no_args(argc, argv);
	if (ret)
		return ret;
	ret = family_get(&fam_rcvmgr, &own, &nl);
	if (ret)
		return ret;
	/*
	 * Printed as they come: a table of thousands is not kept. If the dump
	 * fails half way, the JSON array is left open: no consumer takes a
	 * part for the whole.
	 */
	rcvmgr_conns_begin(&o, stdout);
	ret = talk(nl, request(nl, TCP_RCVMGR_CMD_CONN_GET, NLM_F_DUMP), conn_msg, &o);
	if (!ret)
		rcvmgr_conns_end(&o);
	else if (o.started && out.json)
		fputc('\n', stdout);
	family_put(nl);
	return ret;
}

static int stats_msg(const struct nlmsghdr *nlh, void *data)
{
	rcvmgr_stats_merge(data, nlh);
	return MNL_CB_OK;
}

static int do_stats(int argc, char **argv)
{
	struct rcvmgr_stats s = { 0 };
	int ret;

	ret = get_merged(argc, argv, TCP_RCVMGR_CMD_STATS_GET, stats_msg, &s,
			 &s.msgs, "counters");
	if (!ret)
		rcvmgr_stats_print(stdout, &s);
	return ret;
}

int do_rcvmgr(int argc, char **argv)
{
	static const struct {
		const char *name;
		const char *cmd;	/* for messages */
		int (*run)(int argc, char **argv);
	} cmds[] = {
		{ "show",	"rcvmgr show",	do_show_config },
		{ "set",	"rcvmgr set",	do_set },
		{ "conns",	"rcvmgr conns",	do_conns },
		{ "stats",	"rcvmgr stats",	do_stats },
	};
	size_t i;

	if (!argc)
		return usage_err("missing command: show, set, conns or stats (try " PROG " -h)");
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (!strcmp(argv[0], cmds[i].name)) {
			cmd_name = cmds[i].cmd;
			return cmds[i].run(argc - 1, argv + 1);
		}
	}
	return usage_err("unknown command \"%s\" (try " PROG " -h)", argv[0]);
}
