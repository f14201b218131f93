// SPDX-License-Identifier: GPL-2.0
/*
 * What rcvmgr show, conns and stats print (rcvmgr.h): text with sizes,
 * rates and times in units, the configuration in rcvmgr set's words; or
 * JSON, its keys the spec's attribute names with dashes made underscores
 * and, for a quantity, its unit added as show's keys have it: times in us
 * (_us; the spec's ms times times 1000), rates in bytes/s
 * (_bytes_per_second, the spec's bit/s divided by 8), sizes _bytes,
 * _percent, _permille, _segments; counts as they are.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "er2bcctl.h"
#include "json.h"
#include "output.h"
#include "parse.h"
#include "rcvmgr.h"

#define CHAS(c, a)	((c)->has[TCP_RCVMGR_A_CONFIG_##a])
#define CVAL(c, a)	((c)->v[TCP_RCVMGR_A_CONFIG_##a])
#define RHAS(r, a)	((r)->has[TCP_RCVMGR_A_RULE_##a])
#define RVAL(r, a)	((r)->v[TCP_RCVMGR_A_RULE_##a])
#define NHAS(c, a)	((c)->has[TCP_RCVMGR_A_CONN_##a])
#define NVAL(c, a)	((c)->v[TCP_RCVMGR_A_CONN_##a])
#define SHAS(s, a)	((s)->has[TCP_RCVMGR_A_STATS_##a])
#define SVAL(s, a)	((s)->v[TCP_RCVMGR_A_STATS_##a])

/* long enough for an IPv6 address, brackets, a port, a prefix length */
#define ADDR_LEN	(INET6_ADDRSTRLEN + 16)

/* the JSON key of a spec name: "rtt-min" is "rtt_min" */
static const char *json_key(char *buf, size_t size, const char *name)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < size; i++)
		buf[i] = name[i] == '-' ? '_' : name[i];
	buf[i] = '\0';
	return buf;
}

/* an address of @len bytes (4 or 16); "-" if there is none */
static const char *fmt_addr(char *buf, const uint8_t *addr, uint8_t len)
{
	if (!len || !inet_ntop(len == 4 ? AF_INET : AF_INET6, addr, buf, ADDR_LEN))
		snprintf(buf, ADDR_LEN, "-");
	return buf;
}

/* sizes as rcvmgr set takes them back, and times in ms */
static const char *fmt_ms(char *buf, uint64_t ms)
{
	if (ms > UINT64_MAX / 1000) {
		snprintf(buf, FMT_LEN, "%" PRIu64 "ms", ms);
		return buf;
	}
	return fmt_time(buf, ms * 1000);
}

static const char *fmt_prefix(char *buf, const struct rcvmgr_prefix *p)
{
	size_t len;

	fmt_addr(buf, p->addr, p->alen);
	len = strlen(buf);
	if (p->has_plen)
		snprintf(buf + len, ADDR_LEN - len, "/%u", p->plen);
	return buf;
}

/* "port 80-443 dscp 46 mark 0x10/0xf0 priority 10", as rcvmgr set takes it */
static void rule_text(struct line *l, const struct rcvmgr_rule *r)
{
	uint64_t lo = RVAL(r, PORT_MIN), hi = RHAS(r, PORT_MAX) ? RVAL(r, PORT_MAX) : 65535;

	if (RHAS(r, PORT_MIN) || RHAS(r, PORT_MAX)) {
		if (lo == hi)
			line_add(l, "port %" PRIu64, lo);
		else
			line_add(l, "port %" PRIu64 "-%" PRIu64, lo, hi);
	}
	if (RHAS(r, DSCP))
		line_add(l, "dscp %" PRIu64, RVAL(r, DSCP));
	if (RHAS(r, MARK)) {
		if (!RHAS(r, MARK_MASK) || RVAL(r, MARK_MASK) == UINT32_MAX)
			line_add(l, "mark 0x%" PRIx64, RVAL(r, MARK));
		else
			line_add(l, "mark 0x%" PRIx64 "/0x%" PRIx64, RVAL(r, MARK),
				 RVAL(r, MARK_MASK));
	}
	if (RHAS(r, PRIORITY))
		line_add(l, "priority %" PRIu64, RVAL(r, PRIORITY));
}

/* the scalars: how each prints as text */
enum fmt { F_NUM, F_SIZE, F_MS, F_RATE, F_PERCENT };

struct scalar {
	unsigned int type;
	enum fmt fmt;
};

static void scalar_text(struct line *l, const char *name, enum fmt fmt, uint64_t v,
			bool exact)
{
	char b[FMT_LEN];

	switch (fmt) {
	case F_NUM:
		line_add(l, "%s %" PRIu64, name, v);
		break;
	case F_SIZE:
		line_add(l, "%s %s", name, exact ? fmt_size_exact(b, v) : fmt_size(b, v));
		break;
	case F_MS:
		line_add(l, "%s %s", name, fmt_ms(b, v));
		break;
	case F_RATE:
		line_add(l, "%s %s", name, fmt_rate(b, v));
		break;
	case F_PERCENT:
		line_add(l, "%s %" PRIu64 "%%", name, v);
		break;
	}
}

/* the configuration's scalars, a line each group, in the spec's order */
static const struct scalar config_lines[][6] = {
	{
		{ TCP_RCVMGR_A_CONFIG_INTERVAL,		F_MS },
		{ TCP_RCVMGR_A_CONFIG_MAX_CONNS,	F_NUM },
		{ TCP_RCVMGR_A_CONFIG_IDLE_TIMEOUT,	F_MS },
	}, {
		{ TCP_RCVMGR_A_CONFIG_BUDGET_INIT,	F_SIZE },
		{ TCP_RCVMGR_A_CONFIG_BUDGET_MIN,	F_SIZE },
		{ TCP_RCVMGR_A_CONFIG_BUDGET_MAX,	F_SIZE },
		{ TCP_RCVMGR_A_CONFIG_BUDGET_STEP,	F_SIZE },
		{ TCP_RCVMGR_A_CONFIG_BUDGET_DECREASE,	F_NUM },
	}, {
		{ TCP_RCVMGR_A_CONFIG_RTT_TOLERANCE,	F_PERCENT },
		{ TCP_RCVMGR_A_CONFIG_LINK_RATE,	F_RATE },
		{ TCP_RCVMGR_A_CONFIG_SPRING_QUEUE,	F_SIZE },
		{ TCP_RCVMGR_A_CONFIG_SPRING_INTERACTIVE, F_SIZE },
		{ TCP_RCVMGR_A_CONFIG_SPRING_SHORT,	F_SIZE },
		{ TCP_RCVMGR_A_CONFIG_INITIAL_WINDOW,	F_NUM },
	},
};

static void config_text(FILE *f, const struct rcvmgr_config *c)
{
	char b[ADDR_LEN];
	struct line l;
	size_t i, k;

	if (CHAS(c, POLICY))
		fprintf(f, "policy %s\n", rcvmgr_policy_name(CVAL(c, POLICY), b));

	line_init(&l, " ");
	line_add(&l, "wan");
	for (i = 0; i < c->nwan; i++)
		line_add(&l, "%s", dev_name(c->wan[i], b));
	if (!c->nwan)
		line_add(&l, "none");
	line_print(f, &l, "");

	line_init(&l, " ");
	line_add(&l, "lan");
	for (i = 0; i < c->nlan; i++)
		line_add(&l, "%s", fmt_prefix(b, &c->lan[i]));
	if (!c->nlan)
		line_add(&l, "none");
	line_print(f, &l, "");

	for (i = 0; i < c->nrules; i++) {
		line_init(&l, " ");
		line_add(&l, "rule");
		rule_text(&l, &c->rules[i]);
		line_print(f, &l, "");
	}
	if (!c->nrules)
		fprintf(f, "rule none\n");

	for (i = 0; i < ARRAY_SIZE(config_lines); i++) {
		line_init(&l, "  ");
		for (k = 0; k < ARRAY_SIZE(config_lines[i]) && config_lines[i][k].type; k++) {
			const struct scalar *sc = &config_lines[i][k];

			if (c->has[sc->type])
				scalar_text(&l, rcvmgr_config_attr_name(sc->type), sc->fmt,
					    c->v[sc->type], true);
		}
		line_print(f, &l, "");
	}
}

/* a quantity's JSON key, and what turns the wire's value into its unit */
enum conv { AS_IS, MS_TO_US, BITS_TO_BYTES };

struct jkey {
	const char *key;	/* NULL: the spec's name, the value as it is */
	enum conv conv;
};

static const struct jkey config_keys[TCP_RCVMGR_A_CONFIG_MAX + 1] = {
	[TCP_RCVMGR_A_CONFIG_INTERVAL]		= { "interval_us", MS_TO_US },
	[TCP_RCVMGR_A_CONFIG_IDLE_TIMEOUT]	= { "idle_timeout_us", MS_TO_US },
	[TCP_RCVMGR_A_CONFIG_BUDGET_INIT]	= { "budget_init_bytes", AS_IS },
	[TCP_RCVMGR_A_CONFIG_BUDGET_MIN]	= { "budget_min_bytes", AS_IS },
	[TCP_RCVMGR_A_CONFIG_BUDGET_MAX]	= { "budget_max_bytes", AS_IS },
	[TCP_RCVMGR_A_CONFIG_BUDGET_STEP]	= { "budget_step_bytes", AS_IS },
	[TCP_RCVMGR_A_CONFIG_BUDGET_DECREASE]	= { "budget_decrease_permille", AS_IS },
	[TCP_RCVMGR_A_CONFIG_RTT_TOLERANCE]	= { "rtt_tolerance_percent", AS_IS },
	[TCP_RCVMGR_A_CONFIG_LINK_RATE]		= { "link_rate_bytes_per_second", BITS_TO_BYTES },
	[TCP_RCVMGR_A_CONFIG_SPRING_QUEUE]	= { "spring_queue_bytes", AS_IS },
	[TCP_RCVMGR_A_CONFIG_SPRING_INTERACTIVE] = { "spring_interactive_bytes", AS_IS },
	[TCP_RCVMGR_A_CONFIG_SPRING_SHORT]	= { "spring_short_bytes", AS_IS },
	[TCP_RCVMGR_A_CONFIG_INITIAL_WINDOW]	= { "initial_window_segments", AS_IS },
};

static const struct jkey conn_keys[TCP_RCVMGR_A_CONN_MAX + 1] = {
	[TCP_RCVMGR_A_CONN_RTT]			= { "rtt_us", AS_IS },
	[TCP_RCVMGR_A_CONN_RTT_MIN]		= { "rtt_min_us", AS_IS },
	[TCP_RCVMGR_A_CONN_MSS]			= { "mss_bytes", AS_IS },
	[TCP_RCVMGR_A_CONN_WINDOW]		= { "window_bytes", AS_IS },
	[TCP_RCVMGR_A_CONN_THRESHOLD]		= { "threshold_bytes", AS_IS },
	[TCP_RCVMGR_A_CONN_ADVERTISED]		= { "advertised_bytes", AS_IS },
	[TCP_RCVMGR_A_CONN_AGE]			= { "age_us", MS_TO_US },
};

static const struct jkey stats_keys[TCP_RCVMGR_A_STATS_MAX + 1] = {
	[TCP_RCVMGR_A_STATS_BUDGET]		= { "budget_bytes", AS_IS },
	[TCP_RCVMGR_A_STATS_MEMORY]		= { "memory_bytes", AS_IS },
};

static uint64_t convert(uint64_t v, enum conv conv)
{
	switch (conv) {
	case MS_TO_US:
		return v > UINT64_MAX / 1000 ? UINT64_MAX : v * 1000;
	case BITS_TO_BYTES:
		return v / 8;
	case AS_IS:
		break;
	}
	return v;
}

/*
 * members of @names's attributes, in the order of their types, from @first;
 * the keys and units of @keys (NULL: the spec's names, the values as sent)
 */
static void json_scalars(struct json *j, const uint64_t *v, const bool *has,
			 unsigned int first, unsigned int max,
			 const char *(*name)(unsigned int type), const struct jkey *keys)
{
	char key[64];
	unsigned int t;

	for (t = first; t <= max; t++) {
		if (!has[t] || !name(t))
			continue;
		if (keys && keys[t].key)
			json_u64(j, keys[t].key, convert(v[t], keys[t].conv));
		else
			json_u64(j, json_key(key, sizeof(key), name(t)), v[t]);
	}
}

static void config_json(FILE *f, const struct rcvmgr_config *c)
{
	char b[ADDR_LEN];
	struct json j;
	size_t i;

	json_init(&j, f, out.pretty);
	json_obj_open(&j, NULL);
	if (CHAS(c, POLICY))
		json_str(&j, "policy", rcvmgr_policy_name(CVAL(c, POLICY), b));

	json_arr_open(&j, "wan_dev");
	for (i = 0; i < c->nwan; i++) {
		json_obj_open(&j, NULL);
		json_u64(&j, "ifindex", c->wan[i]);
		if (dev_lookup(c->wan[i], b))
			json_str(&j, "dev", b);
		json_obj_close(&j);
	}
	json_arr_close(&j);

	json_arr_open(&j, "lan_prefix");
	for (i = 0; i < c->nlan; i++) {
		const struct rcvmgr_prefix *p = &c->lan[i];

		json_obj_open(&j, NULL);
		if (p->alen)
			json_str(&j, "addr", fmt_addr(b, p->addr, p->alen));
		if (p->has_plen)
			json_u64(&j, "plen", p->plen);
		json_obj_close(&j);
	}
	json_arr_close(&j);

	json_arr_open(&j, "rule");
	for (i = 0; i < c->nrules; i++) {
		json_obj_open(&j, NULL);
		json_scalars(&j, c->rules[i].v, c->rules[i].has, 1, TCP_RCVMGR_A_RULE_MAX,
			     rcvmgr_rule_attr_name, NULL);
		json_obj_close(&j);
	}
	json_arr_close(&j);

	/* the scalars after the lists (clear is for requests; replies have none) */
	json_scalars(&j, c->v, c->has, TCP_RCVMGR_A_CONFIG_INTERVAL, TCP_RCVMGR_A_CONFIG_MAX,
		     rcvmgr_config_attr_name, config_keys);
	json_obj_close(&j);
	json_end(&j);
}

void rcvmgr_config_print(FILE *f, const struct rcvmgr_config *c)
{
	if (out.json)
		config_json(f, c);
	else
		config_text(f, c);
}

static const char *family_name(uint64_t family, char *buf)
{
	switch (family) {
	case AF_INET:
		return "inet";
	case AF_INET6:
		return "inet6";
	}
	snprintf(buf, FMT_LEN, "%" PRIu64, family);
	return buf;
}

/* addr:port, [addr]:port for IPv6 */
static const char *fmt_endpoint(char *buf, const uint8_t *addr, uint8_t len, bool has_port,
				uint64_t port)
{
	char a[ADDR_LEN];

	fmt_addr(a, addr, len);
	if (!has_port)
		snprintf(buf, ADDR_LEN + 8, len == 16 ? "[%s]" : "%s", a);
	else if (len == 16)
		snprintf(buf, ADDR_LEN + 8, "[%s]:%" PRIu64, a, port);
	else
		snprintf(buf, ADDR_LEN + 8, "%s:%" PRIu64, a, port);
	return buf;
}

static void conn_text(FILE *f, const struct rcvmgr_conn *c)
{
	char b[ADDR_LEN + 8];
	struct line l;

	line_init(&l, " ");
	line_add(&l, "%s", fmt_endpoint(b, c->saddr, c->slen, NHAS(c, SPORT), NVAL(c, SPORT)));
	line_add(&l, ">");
	line_add(&l, "%s", fmt_endpoint(b, c->daddr, c->dlen, NHAS(c, DPORT), NVAL(c, DPORT)));
	/* the state's name alone, as ss writes it; a number is named */
	if (NHAS(c, STATE) && NVAL(c, STATE) <= TCP_RCVMGR_STATE_UNSCALED)
		line_add(&l, "%s", rcvmgr_state_name(NVAL(c, STATE), b));
	else if (NHAS(c, STATE))
		line_add(&l, "state %" PRIu64, NVAL(c, STATE));
	if (NHAS(c, PRIORITY))
		line_add(&l, "priority %" PRIu64, NVAL(c, PRIORITY));
	if (NHAS(c, BYTES))
		line_add(&l, "bytes %s", fmt_size(b, NVAL(c, BYTES)));
	if (NHAS(c, RTT))
		line_add(&l, "rtt %s", fmt_us_ms(b, NVAL(c, RTT)));
	if (NHAS(c, RTT_MIN))
		line_add(&l, "rtt-min %s", fmt_us_ms(b, NVAL(c, RTT_MIN)));
	if (NHAS(c, WINDOW))
		line_add(&l, "window %s", fmt_size(b, NVAL(c, WINDOW)));
	if (NHAS(c, THRESHOLD))
		line_add(&l, "threshold %s", fmt_size(b, NVAL(c, THRESHOLD)));
	if (NHAS(c, ADVERTISED))
		line_add(&l, "advertised %s", fmt_size(b, NVAL(c, ADVERTISED)));
	if (NHAS(c, WSCALE))
		line_add(&l, "wscale %" PRIu64, NVAL(c, WSCALE));
	if (NHAS(c, MSS))
		line_add(&l, "mss %" PRIu64, NVAL(c, MSS));
	if (NHAS(c, REWRITTEN))
		line_add(&l, "rewritten %" PRIu64, NVAL(c, REWRITTEN));
	if (NHAS(c, AGE))
		line_add(&l, "age %s", fmt_ms(b, NVAL(c, AGE)));
	fprintf(f, "%s\n", l.buf);
}

static void conn_json(struct json *j, const struct rcvmgr_conn *c)
{
	char b[ADDR_LEN];

	json_obj_open(j, NULL);
	if (NHAS(c, FAMILY))
		json_str(j, "family", family_name(NVAL(c, FAMILY), b));
	if (NHAS(c, SADDR))
		json_str(j, "saddr", fmt_addr(b, c->saddr, c->slen));
	if (NHAS(c, DADDR))
		json_str(j, "daddr", fmt_addr(b, c->daddr, c->dlen));
	json_scalars(j, c->v, c->has, TCP_RCVMGR_A_CONN_SPORT, TCP_RCVMGR_A_CONN_DPORT,
		     rcvmgr_conn_attr_name, conn_keys);
	if (NHAS(c, STATE))
		json_str(j, "state", rcvmgr_state_name(NVAL(c, STATE), b));
	json_scalars(j, c->v, c->has, TCP_RCVMGR_A_CONN_PRIORITY, TCP_RCVMGR_A_CONN_MAX,
		     rcvmgr_conn_attr_name, conn_keys);
	json_obj_close(j);
}

void rcvmgr_conns_begin(struct rcvmgr_conns_out *o, FILE *f)
{
	memset(o, 0, sizeof(*o));
	o->f = f;
}

static void conns_start(struct rcvmgr_conns_out *o)
{
	if (o->started)
		return;
	o->started = true;
	if (!out.json)
		return;
	json_init(&o->j, o->f, out.pretty);
	json_arr_open(&o->j, NULL);
}

void rcvmgr_conn_print(struct rcvmgr_conns_out *o, const struct rcvmgr_conn *c)
{
	conns_start(o);
	o->n++;
	if (out.json)
		conn_json(&o->j, c);
	else
		conn_text(o->f, c);
}

void rcvmgr_conns_end(struct rcvmgr_conns_out *o)
{
	conns_start(o);
	if (!out.json)
		return;
	json_arr_close(&o->j);
	json_end(&o->j);
}

/* the counters, a line each group */
static const struct scalar stats_lines[][7] = {
	{
		{ TCP_RCVMGR_A_STATS_CONNS,		F_NUM },
		{ TCP_RCVMGR_A_STATS_OPENING,		F_NUM },
		{ TCP_RCVMGR_A_STATS_INITIAL,		F_NUM },
		{ TCP_RCVMGR_A_STATS_PERSISTENT,	F_NUM },
		{ TCP_RCVMGR_A_STATS_BUDGET,		F_SIZE },
		{ TCP_RCVMGR_A_STATS_MEMORY,		F_SIZE },
	}, {
		{ TCP_RCVMGR_A_STATS_INTERVALS,		F_NUM },
		{ TCP_RCVMGR_A_STATS_ASSIGNMENTS,	F_NUM },
		{ TCP_RCVMGR_A_STATS_BUDGET_UP,		F_NUM },
		{ TCP_RCVMGR_A_STATS_BUDGET_DOWN,	F_NUM },
		{ TCP_RCVMGR_A_STATS_PROBES,		F_NUM },
	}, {
		{ TCP_RCVMGR_A_STATS_CREATED,		F_NUM },
		{ TCP_RCVMGR_A_STATS_FREED,		F_NUM },
		{ TCP_RCVMGR_A_STATS_FULL,		F_NUM },
		{ TCP_RCVMGR_A_STATS_OPENING_FULL,	F_NUM },
		{ TCP_RCVMGR_A_STATS_UNSCALED,		F_NUM },
		{ TCP_RCVMGR_A_STATS_ADOPTED,		F_NUM },
		{ TCP_RCVMGR_A_STATS_OFFLOADED,		F_NUM },
	}, {
		{ TCP_RCVMGR_A_STATS_RESETS,		F_NUM },
		{ TCP_RCVMGR_A_STATS_RESUMED,		F_NUM },
		{ TCP_RCVMGR_A_STATS_RECALLED,		F_NUM },
		{ TCP_RCVMGR_A_STATS_KEPT_LOST,		F_NUM },
	}, {
		{ TCP_RCVMGR_A_STATS_ACKS,		F_NUM },
		{ TCP_RCVMGR_A_STATS_REWRITTEN,		F_NUM },
		{ TCP_RCVMGR_A_STATS_RTT_SAMPLES,	F_NUM },
		{ TCP_RCVMGR_A_STATS_UNSEEN,		F_NUM },
	},
};

void rcvmgr_stats_print(FILE *f, const struct rcvmgr_stats *s)
{
	struct line l;
	struct json j;
	size_t i, k;

	if (out.json) {
		json_init(&j, f, out.pretty);
		json_obj_open(&j, NULL);
		json_scalars(&j, s->v, s->has, 1, TCP_RCVMGR_A_STATS_MAX, rcvmgr_stats_attr_name,
			     stats_keys);
		json_obj_close(&j);
		json_end(&j);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(stats_lines); i++) {
		line_init(&l, "  ");
		for (k = 0; k < ARRAY_SIZE(stats_lines[i]) && stats_lines[i][k].type; k++) {
			const struct scalar *sc = &stats_lines[i][k];

			if (s->has[sc->type])
				scalar_text(&l, rcvmgr_stats_attr_name(sc->type), sc->fmt,
					    s->v[sc->type], false);
		}
		line_print(f, &l, "");
	}
}
