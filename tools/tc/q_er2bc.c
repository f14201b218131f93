// SPDX-License-Identifier: GPL-2.0
/*
 * q_er2bc.c	tc plugin of the er2bc qdisc and its classes.
 *
 *   tc qdisc add dev DEV root handle 1: er2bc [ rate RATE | rate unlimited ]
 *	[ burst SIZE ] [ default MINOR ] [ mode static|pq|er2bc ]
 *	[ share prio|weighted ] [ controller options ]
 *	[ probe-port PORT|off ] [ peer PREFIX|none ]... [ probe-mark MARK|none ]
 *   tc class add dev DEV parent 1: classid 1:MINOR er2bc [ prio N ]
 *	[ rate RATE ] [ ceil RATE | ceil none ] [ weight N ]
 *	[ type tcp|udp|scavenger ]
 *	[ burst SIZE ] [ cburst SIZE ]
 *
 * Values are checked here with a message naming the option; the kernel
 * checks them again (its messages reach the user through extack).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <linux/er2bc.h>

#include "tc_abi.h"
#include "xstats.h"

#define OPT_MAXLEN 1024

static const char * const mode_names[] = {
	[ER2BC_MODE_STATIC] = "static",
	[ER2BC_MODE_PQ] = "pq",
	[ER2BC_MODE_ER2BC] = "er2bc",
};

static const char * const share_names[] = {
	[ER2BC_SHARE_PRIO] = "prio",
	[ER2BC_SHARE_WEIGHTED] = "weighted",
};

static const char * const type_names[] = {
	[ER2BC_TYPE_TCP] = "tcp",
	[ER2BC_TYPE_UDP] = "udp",
	[ER2BC_TYPE_SCAVENGER] = "scavenger",
};

static const char * const converge_names[] = {
	[ER2BC_CONVERGE_IMMEDIATE] = "immediate",
	[ER2BC_CONVERGE_GRADUAL] = "gradual",
};

static const char * const state_names[] = {
	[ER2BC_STATE_IDLE] = "idle",
	[ER2BC_STATE_GUARANTEED] = "guaranteed",
	[ER2BC_STATE_BORROWING] = "borrowing",
	[ER2BC_STATE_HELD] = "held",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* a number macro as a string: limits said in messages as the code has them */
#define STR_(x) #x
#define STR(x) STR_(x)
/* (usage() says window and history 1-32) */
_Static_assert(ER2BC_CTRL_HIST_MAX == 32, "usage() names the range of window and history");

/* the names of an enum's values */
struct names {
	const char * const *name;
	unsigned int n;
};

static const struct names modes = { mode_names, ARRAY_SIZE(mode_names) };
static const struct names shares = { share_names, ARRAY_SIZE(share_names) };
static const struct names types = { type_names, ARRAY_SIZE(type_names) };
static const struct names states = { state_names, ARRAY_SIZE(state_names) };
static const struct names converges = { converge_names, ARRAY_SIZE(converge_names) };

/* the name of value i, or "?" for a value this plugin does not know */
static const char *name_of(const struct names *t, unsigned int i)
{
	return i < t->n && t->name[i] ? t->name[i] : "?";
}

static void explain_qdisc(void)
{
	fprintf(stderr,
		"Usage: ... er2bc [ rate RATE | rate unlimited ] [ burst SIZE ]\n"
		"                 [ default MINOR ] [ mode static|pq|er2bc ]\n"
		"                 [ share prio|weighted ] [ window 1-32 ]\n"
		"                 [ history 1-32 ] [ loss-headroom RATE ] [ floor RATE ]\n"
		"                 [ stale TIME|never ] [ latency TIME|unlimited ]\n"
		"                 [ converge immediate|gradual ]\n"
		"                 [ probe-port PORT|off ] [ peer PREFIX|none ]...\n"
		"                 [ probe-mark MARK|none ]\n"
		"  rate     the cap W on everything sent, and its ceiling under the\n"
		"           estimates (default: unlimited)\n"
		"  burst    bytes that may leave back to back (default: 4 ms at\n"
		"           the rate, at least two MTU-sized packets)\n"
		"  default  minor of the class for unclassified packets, in hex as\n"
		"           classids are (default: none, such packets go to an\n"
		"           implicit class at the lowest priority)\n"
		"  mode     how guarantees follow from rates (default: static)\n"
		"  share    how unused capacity is lent (default: prio)\n"
		"  latency  the longest a packet waits in a class's queue, at the\n"
		"           rate the class is served; a packet that finds more\n"
		"           queued is dropped (default: 100ms, at most 60s)\n"
		"  The eR2BC controller (mode er2bc), fed ABW estimates over netlink:\n"
		"  window   updates a class's shortfalls are summed over (C,\n"
		"           default: 10)\n"
		"  history  updates the least receive ratio is taken over (M,\n"
		"           default: 10)\n"
		"  loss-headroom  most a retransmitting class gets above its\n"
		"           rate (B_lim, default: 50kbit)\n"
		"  floor    least guarantee of a class with a rate (default: 0)\n"
		"  stale    time without an estimate until the qdisc says it is\n"
		"           stale, whole ms, at most 1 hour; a bare number is in\n"
		"           microseconds, as tc reads times (default: never)\n"
		"  converge how guarantees move (default: immediate)\n"
		"  Counting for the ABW estimator (er2bc-abwd sender):\n"
		"  probe-port  UDP port of the estimator's requests (default: off)\n"
		"  peer     count only packets to this prefix, up to 4 (default:\n"
		"           every IPv4 and IPv6 packet); \"peer none\" clears\n"
		"  probe-mark  only requests with this socket mark (SO_MARK)\n"
		"           skip the classes and the cap (default: none, the\n"
		"           requests of root's sockets, any mark)\n");
}

static void explain_class(void)
{
	fprintf(stderr,
		"Usage: ... er2bc [ prio 1-%d ] [ rate RATE ] [ ceil RATE | ceil none ]\n"
		"                 [ weight 1-%d ] [ type tcp|udp|scavenger ]\n"
		"                 [ burst SIZE ] [ cburst SIZE ] [ margin 0-%d%% ]\n"
		"                 [ latency TIME|unlimited|qdisc ]\n"
		"  prio    1 is the highest (default: %d, the lowest)\n"
		"  rate    the necessary rate R_f (default: 0, none)\n"
		"  ceil    the most the class may send (default: the cap)\n"
		"  weight  its share of lent capacity (default: 1)\n"
		"  type    tcp retransmits, udp does not (default: tcp); scavenger:\n"
		"          no rate, lent to last, and not while the estimator\n"
		"          sees a queue at the bottleneck\n"
		"  burst   bytes at the guarantee after idling (default: auto)\n"
		"  cburst  bytes at the ceil after idling (default: auto)\n"
		"  margin  guaranteed above its rate or demand, in percent of it,\n"
		"          from what the classes after it would get (default: 0)\n"
		"  latency the class's own bound on its queue (default: the\n"
		"          qdisc's)\n",
		ER2BC_PRIO_MAX, ER2BC_WEIGHT_MAX, ER2BC_MARGIN_MAX, ER2BC_PRIO_MAX);
}

static int bad(const char *what, const char *arg, const char *why)
{
	fprintf(stderr, "er2bc: illegal \"%s\" value \"%s\"%s%s\n", what, arg,
		why ? ": " : "", why ? why : "");
	return -1;
}

/* a size above @max bytes (a whole number of MiB) */
static int too_big(const char *what, const char *arg, unsigned int max)
{
	char why[32];

	snprintf(why, sizeof(why), "at most %umb", max >> 20);
	return bad(what, arg, why);
}

/* the value named arg, or -1 */
static int lookup(const struct names *t, const char *arg)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (t->name[i] && strcmp(t->name[i], arg) == 0)
			return i;
	return -1;
}

#define NS_IN_US	0.001		/* a nanosecond, in us */
#define NS_IN_MS	0.000001	/* and in ms */

/*
 * A time in us, as tc(8)'s get_time() reads times: "500ms", "1.5s",
 * "250000us", a bare number in microseconds, units in any case; at most
 * @max_us (named by @max_text), to the nanosecond a double gives
 */
static int parse_time(double *us, const char *what, const char *arg, double max_us,
		      const char *max_text)
{
	static const struct {
		const char *name;
		double us;
	} units[] = {
		{ "", 1 }, { "us", 1 }, { "usec", 1 }, { "usecs", 1 },
		{ "ms", 1000.0 }, { "msec", 1000.0 }, { "msecs", 1000.0 },
		{ "s", 1000000.0 }, { "sec", 1000000.0 }, { "secs", 1000000.0 },
	};
	unsigned int i;
	char *end;
	double v;

	if ((arg[0] < '0' || arg[0] > '9') && arg[0] != '.')
		return bad(what, arg, "a time (e.g. 500ms, 3s)");
	v = strtod(arg, &end);
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (strcasecmp(end, units[i].name) == 0)
			break;
	if (end == arg || i == ARRAY_SIZE(units))
		return bad(what, arg, "a time (e.g. 500ms, 3s)");
	v *= units[i].us;
	if (!(v <= max_us))
		return bad(what, arg, max_text);
	*us = v;
	return 0;
}

/* a whole number of milliseconds, at most 1 hour */
static int parse_ms(__u32 *ms, const char *what, const char *arg)
{
	double v;

	if (parse_time(&v, what, arg, 3600.0 * 1000000, "at most 1 hour"))
		return -1;
	/* (to a nanosecond: 0.7ms is 700.0000000000001 us in doubles) */
	v /= 1000;
	if (v - (double)(__u32)(v + NS_IN_MS) > NS_IN_MS)
		return bad(what, arg, "a whole number of milliseconds");
	*ms = (__u32)(v + NS_IN_MS);
	return 0;
}

/* (the text below names the most) */
_Static_assert(TC_ER2BC_LATENCY_MAX == 60000000, "latency's range is named in messages");

/* a latency bound: a whole number of microseconds, at most 60 s */
static int parse_latency(__u32 *us, const char *arg)
{
	double v;

	if (parse_time(&v, "latency", arg, TC_ER2BC_LATENCY_MAX, "at most 60s"))
		return -1;
	if (v - (double)(__u32)(v + NS_IN_US) > NS_IN_US)
		return bad("latency", arg, "a whole number of microseconds");
	*us = (__u32)(v + NS_IN_US);
	if (!*us)
		return bad("latency", arg, "use \"latency unlimited\" for no bound");
	return 0;
}

/* the units of a rate, as tc(8) names them, in bits/s */
static const struct {
	const char *name;
	unsigned long long bits;
} rate_units[] = {
	{ "", 1 }, { "bit", 1 }, { "bps", 8 },
	{ "kbit", 1000ULL }, { "mbit", 1000000ULL }, { "gbit", 1000000000ULL },
	{ "tbit", 1000000000000ULL },
	{ "kibit", 1ULL << 10 }, { "mibit", 1ULL << 20 }, { "gibit", 1ULL << 30 },
	{ "tibit", 1ULL << 40 },
	{ "kbps", 8000ULL }, { "mbps", 8000000ULL }, { "gbps", 8000000000ULL },
	{ "tbps", 8000000000000ULL },
	{ "kibps", 8ULL << 10 }, { "mibps", 8ULL << 20 }, { "gibps", 8ULL << 30 },
	{ "tibps", 8ULL << 40 },
};

/*
 * A rate in bits/s, up to 2^64 - 1: tc's own parser (get_rate64()) goes
 * through a double and bytes per second, and wraps above that. A whole
 * number is taken exactly; one with a fraction, to a double's precision.
 */
static int parse_rate(__u64 *bps, const char *what, const char *arg)
{
	const char *p = arg;
	unsigned long long v;
	unsigned int i;
	char *unit;
	double d;

	if (arg[0] == '-')
		return bad(what, arg, "must not be negative");
	if ((arg[0] < '0' || arg[0] > '9') && arg[0] != '.')
		return bad(what, arg, "not a rate (e.g. 400kbit, 5mbit)");
	d = strtod(arg, &unit);
	if (unit == arg)
		return bad(what, arg, "not a rate (e.g. 400kbit, 5mbit)");
	for (i = 0; i < ARRAY_SIZE(rate_units); i++)
		if (strcasecmp(unit, rate_units[i].name) == 0)
			break;
	if (i == ARRAY_SIZE(rate_units))
		return bad(what, arg, "not a rate (e.g. 400kbit, 5mbit)");
	while (*p >= '0' && *p <= '9')
		p++;
	if (p != unit) {
		/* a fraction or an exponent: to a double's precision */
		d *= rate_units[i].bits;
		/* 2^64: the first double beyond the range */
		if (d >= 18446744073709551616.0)
			return bad(what, arg, "at most 18446744073709551615bit");
		if (d > 0 && d < 1)
			return bad(what, arg, "at least 1bit");
		*bps = d + 0.5 < 18446744073709551616.0 ? d + 0.5 : d;
		return 0;
	}
	errno = 0;
	v = strtoull(arg, &unit, 10);
	if (errno == ERANGE ||
	    __builtin_mul_overflow(v, rate_units[i].bits, &v))
		return bad(what, arg, "at most 18446744073709551615bit");
	*bps = v;
	return 0;
}

/* ADDR/LEN, IPv4 or IPv6, without host bits */
static int parse_prefix(struct tc_er2bc_prefix *p, const char *arg)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	unsigned int max, i;
	unsigned long plen;

	memset(p, 0, sizeof(*p));
	if (strlen(arg) >= sizeof(buf))
		return bad("peer", arg, "not a prefix (e.g. 10.2.0.0/16)");
	snprintf(buf, sizeof(buf), "%s", arg);
	slash = strchr(buf, '/');
	if (slash)
		*slash = 0;
	if (inet_pton(AF_INET, buf, p->addr) == 1) {
		p->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, p->addr) == 1) {
		p->family = AF_INET6;
		max = 128;
	} else {
		return bad("peer", arg, "not a prefix (e.g. 10.2.0.0/16)");
	}
	plen = max;
	if (slash) {
		plen = strtoul(slash + 1, &end, 10);
		if (!slash[1] || *end || plen > max)
			return bad("peer", arg, "the prefix length is out of range");
	}
	p->plen = plen;
	for (i = plen; i < max; i++)
		if (p->addr[i / 8] & (0x80 >> (i % 8)))
			return bad("peer", arg, "host bits are set past the prefix length");
	return 0;
}

/* the options each takes, all with a value: what is not here is unknown */
static const char *const qdisc_opts[] = {
	"rate", "burst", "default", "mode", "share", "window", "history",
	"loss-headroom", "floor", "stale", "converge", "probe-port", "probe-mark",
	"peer", "c", "m", "blim", "latency", NULL,
};

static const char *const class_opts[] = {
	"prio", "rate", "ceil", "weight", "type", "burst", "cburst", "margin",
	"latency", NULL,
};

static bool is_opt(const char *const *opts, const char *word)
{
	for (; *opts; opts++)
		if (strcmp(*opts, word) == 0)
			return true;
	return false;
}

/* is word the keyword name, or its older alias */
static bool is_word(const char *word, const char *name, const char *alias)
{
	return strcmp(word, name) == 0 || strcmp(word, alias) == 0;
}

static int er2bc_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			   struct nlmsghdr *n, const char *dev)
{
	bool have_rate = false, have_burst = false, have_def = false;
	bool have_blim = false, have_floor = false, have_stale = false;
	bool have_mark = false, have_latency = false;
	int mode = -1, share = -1, converge = -1;
	__u32 burst = 0, def = 0, c = 0, m = 0, stale = 0, mark = 0, latency = 0;
	__u64 rate = 0, blim = 0, floor = 0;
	struct tc_er2bc_prefix peer[TC_ER2BC_PEER_MAX];
	int port = -1, npeer = -1;
	struct rtattr *tail;

	for (; argc > 0; argc--, argv++) {
		if (strcmp(*argv, "help") == 0) {
			explain_qdisc();
			return -1;
		}
		/* a word out of place is unknown, not a keyword short of a value */
		if (argc < 2 && is_opt(qdisc_opts, *argv)) {
			fprintf(stderr, "er2bc: \"%s\" needs a value\n", *argv);
			explain_qdisc();
			return -1;
		}
		if (argc < 2) {
			fprintf(stderr, "er2bc: unknown option \"%s\"\n", *argv);
			explain_qdisc();
			return -1;
		}
		if (strcmp(*argv, "rate") == 0) {
			argc--, argv++;
			if (strcmp(*argv, "unlimited") == 0)
				rate = 0;
			else if (parse_rate(&rate, "rate", *argv))
				return -1;
			else if (!rate)
				return bad("rate", *argv, "use \"rate unlimited\" for no cap");
			have_rate = true;
		} else if (strcmp(*argv, "burst") == 0) {
			argc--, argv++;
			if (get_size(&burst, *argv))
				return bad("burst", *argv, "not a size");
			if (burst > TC_ER2BC_BURST_MAX)
				return too_big("burst", *argv, TC_ER2BC_BURST_MAX);
			have_burst = true;
		} else if (strcmp(*argv, "default") == 0) {
			argc--, argv++;
			if (get_u32(&def, *argv, 16) || def > 0xffff)
				return bad("default", *argv, "a class minor, 0-ffff in hex");
			have_def = true;
		} else if (strcmp(*argv, "mode") == 0) {
			argc--, argv++;
			mode = lookup(&modes, *argv);
			if (mode < 0)
				return bad("mode", *argv, "static, pq or er2bc");
		} else if (strcmp(*argv, "share") == 0) {
			argc--, argv++;
			share = lookup(&shares, *argv);
			if (share < 0)
				return bad("share", *argv, "prio or weighted");
		} else if (is_word(*argv, "window", "c") || is_word(*argv, "history", "m")) {
			/* (c and m: the paper's C and M, their first names) */
			__u32 *v = is_word(*argv, "window", "c") ? &c : &m;

			argc--, argv++;
			if (get_u32(v, *argv, 10) || *v < 1 || *v > ER2BC_CTRL_HIST_MAX)
				return bad(argv[-1], *argv, "updates, 1-" STR(ER2BC_CTRL_HIST_MAX));
		} else if (is_word(*argv, "loss-headroom", "blim")) {
			argc--, argv++;
			if (parse_rate(&blim, argv[-1], *argv))
				return -1;
			have_blim = true;
		} else if (strcmp(*argv, "floor") == 0) {
			argc--, argv++;
			if (parse_rate(&floor, "floor", *argv))
				return -1;
			have_floor = true;
		} else if (strcmp(*argv, "stale") == 0) {
			argc--, argv++;
			if (strcmp(*argv, "never") == 0)
				stale = 0;
			else if (parse_ms(&stale, "stale", *argv))
				return -1;
			have_stale = true;
		} else if (strcmp(*argv, "latency") == 0) {
			argc--, argv++;
			if (strcmp(*argv, "unlimited") == 0)
				latency = 0;
			else if (parse_latency(&latency, *argv))
				return -1;
			have_latency = true;
		} else if (strcmp(*argv, "converge") == 0) {
			argc--, argv++;
			converge = lookup(&converges, *argv);
			if (converge < 0)
				return bad("converge", *argv, "immediate or gradual");
		} else if (strcmp(*argv, "probe-port") == 0) {
			__u32 v;

			argc--, argv++;
			if (strcmp(*argv, "off") == 0)
				v = 0;
			else if (get_u32(&v, *argv, 10) || !v || v > 65535)
				return bad("probe-port", *argv, "a UDP port, 1-65535, or off");
			port = v;
		} else if (strcmp(*argv, "probe-mark") == 0) {
			argc--, argv++;
			if (strcmp(*argv, "none") == 0)
				mark = 0;
			else if (get_u32(&mark, *argv, 0) || !mark)
				return bad("probe-mark", *argv,
					   "a mark, 0x1-0xffffffff, or none");
			have_mark = true;
		} else if (strcmp(*argv, "peer") == 0) {
			argc--, argv++;
			if (npeer < 0)
				npeer = 0;
			if (strcmp(*argv, "none") == 0)
				continue;
			if (npeer == TC_ER2BC_PEER_MAX)
				return bad("peer", *argv,
					   "at most " STR(TC_ER2BC_PEER_MAX) " peer prefixes");
			if (parse_prefix(&peer[npeer], *argv))
				return -1;
			npeer++;
		} else {
			fprintf(stderr, "er2bc: unknown option \"%s\"\n", *argv);
			explain_qdisc();
			return -1;
		}
	}

	tail = addattr_nest(n, OPT_MAXLEN, TCA_OPTIONS | NLA_F_NESTED);
	if (have_rate)
		addattr_l(n, OPT_MAXLEN, TCA_ER2BC_RATE, &rate, sizeof(rate));
	if (have_burst)
		addattr_l(n, OPT_MAXLEN, TCA_ER2BC_BURST, &burst, sizeof(burst));
	if (have_def)
		addattr_l(n, OPT_MAXLEN, TCA_ER2BC_DEFAULT, &def, sizeof(def));
	if (mode >= 0)
		addattr8(n, OPT_MAXLEN, TCA_ER2BC_MODE, mode);
	if (share >= 0)
		addattr8(n, OPT_MAXLEN, TCA_ER2BC_SHARE, share);
	if (c)
		addattr32(n, OPT_MAXLEN, TCA_ER2BC_CTRL_C, c);
	if (m)
		addattr32(n, OPT_MAXLEN, TCA_ER2BC_CTRL_M, m);
	if (have_blim)
		addattr_l(n, OPT_MAXLEN, TCA_ER2BC_CTRL_BLIM, &blim, sizeof(blim));
	if (have_floor)
		addattr_l(n, OPT_MAXLEN, TCA_ER2BC_CTRL_FLOOR, &floor, sizeof(floor));
	if (have_stale)
		addattr32(n, OPT_MAXLEN, TCA_ER2BC_CTRL_STALE, stale);
	if (converge >= 0)
		addattr8(n, OPT_MAXLEN, TCA_ER2BC_CTRL_CONVERGE, converge);
	if (port >= 0)
		addattr16(n, OPT_MAXLEN, TCA_ER2BC_PROBE_PORT, port);
	if (npeer >= 0)
		addattr_l(n, OPT_MAXLEN, TCA_ER2BC_PEER, peer, npeer * sizeof(peer[0]));
	if (have_mark)
		addattr32(n, OPT_MAXLEN, TCA_ER2BC_PROBE_MARK, mark);
	if (have_latency)
		addattr32(n, OPT_MAXLEN, TCA_ER2BC_LATENCY, latency);
	addattr_nest_end(n, tail);
	return 0;
}

/* a class's margin, "20" or "20%": 0 to ER2BC_MARGIN_MAX, or -1, said */
static int parse_margin(const char *arg)
{
	char buf[8];
	size_t len = strlen(arg);
	__u32 val;

	if (len && len < sizeof(buf) && arg[len - 1] == '%') {
		memcpy(buf, arg, len - 1);
		buf[len - 1] = '\0';
	} else if (len < sizeof(buf)) {
		memcpy(buf, arg, len + 1);
	} else {
		buf[0] = '\0';
	}
	if (!buf[0] || get_u32(&val, buf, 10) || val > ER2BC_MARGIN_MAX) {
		fprintf(stderr, "er2bc: illegal \"margin\" value \"%s\": 0 to %d percent\n",
			arg, ER2BC_MARGIN_MAX);
		return -1;
	}
	return val;
}

static int er2bc_parse_copt(struct qdisc_util *qu, int argc, char **argv,
			    struct nlmsghdr *n, const char *dev)
{
	bool have_rate = false, have_ceil = false, have_burst = false;
	const char *rate_arg = NULL, *margin_arg = NULL;
	bool have_cburst = false, have_weight = false, have_latency = false;
	int prio = -1, type = -1, margin = -1;
	__u32 weight = 0, burst = 0, cburst = 0, latency = 0, val;
	__u64 rate = 0, ceil = 0;
	struct rtattr *tail;

	for (; argc > 0; argc--, argv++) {
		if (strcmp(*argv, "help") == 0) {
			explain_class();
			return -1;
		}
		if (argc < 2 && is_opt(class_opts, *argv)) {
			fprintf(stderr, "er2bc: \"%s\" needs a value\n", *argv);
			explain_class();
			return -1;
		}
		if (argc < 2) {
			fprintf(stderr, "er2bc: unknown class option \"%s\"\n", *argv);
			explain_class();
			return -1;
		}
		if (strcmp(*argv, "prio") == 0) {
			argc--, argv++;
			if (get_u32(&val, *argv, 10) || val < ER2BC_PRIO_MIN ||
			    val > ER2BC_PRIO_MAX) {
				fprintf(stderr,
					"er2bc: illegal \"prio\" value \"%s\": 1 (highest) to %d\n",
					*argv, ER2BC_PRIO_MAX);
				return -1;
			}
			prio = val;
		} else if (strcmp(*argv, "rate") == 0) {
			argc--, argv++;
			if (parse_rate(&rate, "rate", *argv))
				return -1;
			have_rate = true;
			rate_arg = *argv;
		} else if (strcmp(*argv, "ceil") == 0) {
			argc--, argv++;
			if (strcmp(*argv, "none") == 0)
				ceil = 0;
			else if (parse_rate(&ceil, "ceil", *argv))
				return -1;
			else if (!ceil)
				return bad("ceil", *argv, "use \"ceil none\" for no ceil");
			have_ceil = true;
		} else if (strcmp(*argv, "weight") == 0) {
			argc--, argv++;
			if (get_u32(&weight, *argv, 10) || !weight ||
			    weight > ER2BC_WEIGHT_MAX) {
				fprintf(stderr, "er2bc: illegal \"weight\" value \"%s\": 1 to %d\n",
					*argv, ER2BC_WEIGHT_MAX);
				return -1;
			}
			have_weight = true;
		} else if (strcmp(*argv, "type") == 0) {
			argc--, argv++;
			type = lookup(&types, *argv);
			if (type < 0)
				return bad("type", *argv, "tcp, udp or scavenger");
		} else if (strcmp(*argv, "burst") == 0) {
			argc--, argv++;
			if (get_size(&burst, *argv))
				return bad("burst", *argv, "not a size");
			if (burst > TC_ER2BC_BURST_MAX)
				return too_big("burst", *argv, TC_ER2BC_BURST_MAX);
			have_burst = true;
		} else if (strcmp(*argv, "cburst") == 0) {
			argc--, argv++;
			if (get_size(&cburst, *argv))
				return bad("cburst", *argv, "not a size");
			if (cburst > TC_ER2BC_BURST_MAX)
				return too_big("cburst", *argv, TC_ER2BC_BURST_MAX);
			have_cburst = true;
		} else if (strcmp(*argv, "margin") == 0) {
			argc--, argv++;
			margin = parse_margin(*argv);
			if (margin < 0)
				return -1;
			margin_arg = *argv;
		} else if (strcmp(*argv, "latency") == 0) {
			argc--, argv++;
			if (strcmp(*argv, "unlimited") == 0)
				latency = 0;
			else if (strcmp(*argv, "qdisc") == 0)
				latency = TC_ER2BC_LATENCY_QDISC;
			else if (parse_latency(&latency, *argv))
				return -1;
			have_latency = true;
		} else {
			fprintf(stderr, "er2bc: unknown class option \"%s\"\n", *argv);
			explain_class();
			return -1;
		}
	}

	if (type == ER2BC_TYPE_SCAVENGER && have_rate && rate)
		return bad("rate", rate_arg, "a scavenger class holds no guarantee: 0 only");
	if (type == ER2BC_TYPE_SCAVENGER && margin > 0)
		return bad("margin", margin_arg, "a scavenger class holds no guarantee: 0 only");

	tail = addattr_nest(n, OPT_MAXLEN, TCA_OPTIONS | NLA_F_NESTED);
	if (prio >= 0)
		addattr8(n, OPT_MAXLEN, TCA_ER2BC_CLASS_PRIO, prio);
	if (have_rate)
		addattr_l(n, OPT_MAXLEN, TCA_ER2BC_CLASS_RATE, &rate, sizeof(rate));
	if (have_ceil)
		addattr_l(n, OPT_MAXLEN, TCA_ER2BC_CLASS_CEIL, &ceil, sizeof(ceil));
	if (have_weight)
		addattr32(n, OPT_MAXLEN, TCA_ER2BC_CLASS_WEIGHT, weight);
	if (type >= 0)
		addattr8(n, OPT_MAXLEN, TCA_ER2BC_CLASS_TYPE, type);
	if (have_burst)
		addattr32(n, OPT_MAXLEN, TCA_ER2BC_CLASS_BURST, burst);
	if (have_cburst)
		addattr32(n, OPT_MAXLEN, TCA_ER2BC_CLASS_CBURST, cburst);
	if (margin >= 0)
		addattr32(n, OPT_MAXLEN, TCA_ER2BC_CLASS_MARGIN, margin);
	if (have_latency)
		addattr32(n, OPT_MAXLEN, TCA_ER2BC_CLASS_LATENCY, latency);
	addattr_nest_end(n, tail);
	return 0;
}

/* the attributes nested in opt, by type; a short one is left out */
static void parse_nested(struct rtattr **tb, int max, const int *sizes,
			 struct rtattr *opt)
{
	struct rtattr *rta;
	int len = RTA_PAYLOAD(opt);

	memset(tb, 0, sizeof(*tb) * (max + 1));
	for (rta = RTA_DATA(opt); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		unsigned short type = rta->rta_type & NLA_TYPE_MASK;

		if (type <= max && (int)RTA_PAYLOAD(rta) >= sizes[type])
			tb[type] = rta;
	}
}

static __u64 rta_u64(const struct rtattr *rta)
{
	__u64 v;

	memcpy(&v, RTA_DATA(rta), sizeof(v));
	return v;
}

#define rta_u32(rta) (*(__u32 *)RTA_DATA(rta))
#define rta_u16(rta) (*(__u16 *)RTA_DATA(rta))
#define rta_u8(rta) (*(__u8 *)RTA_DATA(rta))

/*
 * A rate, held in bits/s: in JSON in bytes/s as tc prints htb's and cake's
 * (tc_print_rate()), in text with tc's units
 */
static void print_rate_opt(const char *key, __u64 bps, const char *none)
{
	char jkey[32], fmt[32];
	unsigned int i;

	/* text keywords are hyphenated, JSON keys are not */
	for (i = 0; key[i] && i < sizeof(jkey) - 1; i++)
		jkey[i] = key[i] == '-' ? '_' : key[i];
	jkey[i] = '\0';
	print_color_u64(PRINT_JSON, TC_COLOR_NONE, jkey, NULL, bps / 8);
	if (bps) {
		snprintf(fmt, sizeof(fmt), "%s %%s ", key);
		print_color_rate(false, PRINT_FP, TC_COLOR_NONE, NULL, fmt, bps / 8);
	} else if (none) {
		print_color_string(PRINT_FP, TC_COLOR_NONE, NULL, "%s ", none);
	}
}

/*
 * @bytes as tc prints a size (its sprint_size()): whole Mb or Kb where it
 * is within 1024 or 16 bytes of one, else bytes. Written here rather than
 * called: tc's print_color_size() takes a __u32 up to iproute2 6.17 and a
 * __u64 from 6.18, and the plugin must load in both (tc_abi.h).
 */
static void size_text(char *buf, size_t len, __u32 bytes)
{
	const __u64 kilo = 1024, mega = kilo * kilo;
	__u64 m = (bytes + mega / 2) / mega, k = (bytes + kilo / 2) / kilo;

	if (bytes >= mega && (m * mega > bytes ? m * mega - bytes : bytes - m * mega) < 1024)
		snprintf(buf, len, "%lluMb", (unsigned long long)m);
	else if (bytes >= kilo && (k * kilo > bytes ? k * kilo - bytes : bytes - k * kilo) < 16)
		snprintf(buf, len, "%lluKb", (unsigned long long)k);
	else
		snprintf(buf, len, "%ub", bytes);
}

/* a burst: bytes in JSON (0 = derived), human units in text */
static void print_burst_opt(const char *key, __u32 bytes)
{
	char fmt[32], text[32];

	print_color_uint(PRINT_JSON, TC_COLOR_NONE, key, NULL, bytes);
	snprintf(fmt, sizeof(fmt), "%s %%s ", key);
	if (bytes)
		size_text(text, sizeof(text), bytes);
	else
		snprintf(text, sizeof(text), "auto");
	print_color_string(PRINT_FP, TC_COLOR_NONE, NULL, fmt, text);
}

/* the estimator's counting: its port, the peer's prefixes, the mark */
static void print_probe(const struct rtattr *port, const struct rtattr *peer,
			const struct rtattr *mark)
{
	const struct tc_er2bc_prefix *p;
	char addr[INET6_ADDRSTRLEN], buf[INET6_ADDRSTRLEN + 8];
	int i, n;

	print_nl();
	if (port && rta_u16(port))
		print_color_uint(PRINT_ANY, TC_COLOR_NONE, "probe_port", "probe-port %u ",
				 rta_u16(port));
	else
		print_color_string(PRINT_FP, TC_COLOR_NONE, NULL, "%s ", "probe-port off");
	if (mark && rta_u32(mark))
		print_color_0xhex(PRINT_ANY, TC_COLOR_NONE, "probe_mark", "probe-mark %#llx ",
				  rta_u32(mark));
	if (!peer)
		return;
	p = RTA_DATA(peer);
	n = RTA_PAYLOAD(peer) / sizeof(*p);
	open_json_array(PRINT_JSON, "peer");
	for (i = 0; i < n; i++) {
		if (!inet_ntop(p[i].family, p[i].addr, addr, sizeof(addr)))
			continue;
		snprintf(buf, sizeof(buf), "%s/%u", addr, p[i].plen);
		print_color_string(PRINT_ANY, TC_COLOR_NONE, NULL, "peer %s ", buf);
	}
	close_json_array(PRINT_JSON, NULL);
}

/*
 * A duration in ns: raw under KEY (with its unit in the name) in JSON; in
 * text as tc prints times, whole milliseconds below a second, else seconds
 * to a tenth, "3s" rather than "3.0s" (tc's own sprint_time64() turns an
 * hour into 3.6e+03s)
 */
static void print_duration(const char *key, const char *fmt, __u64 ns)
{
	char b[32];

	print_color_u64(PRINT_JSON, TC_COLOR_NONE, key, NULL, ns);
	if (ns >= 1000000000ULL && ns % 1000000000ULL < 50000000ULL)
		snprintf(b, sizeof(b), "%llus", ns / 1000000000ULL);
	else if (ns >= 1000000000ULL)
		snprintf(b, sizeof(b), "%.1fs", ns / 1e9);
	else
		snprintf(b, sizeof(b), "%llums", ns / 1000000ULL);
	print_color_string(PRINT_FP, TC_COLOR_NONE, NULL, fmt, b);
}

/*
 * A latency bound in us: raw under "latency_us" in JSON (0: unbounded); in
 * text exact, in the largest of s, ms and us that says it whole, as it is
 * given back to tc
 */
static void print_latency(__u32 us)
{
	char b[32];

	print_color_uint(PRINT_JSON, TC_COLOR_NONE, "latency_us", NULL, us);
	if (!us)
		snprintf(b, sizeof(b), "unlimited");
	else if (us % 1000)
		snprintf(b, sizeof(b), "%uus", us);
	else if (us % 1000000)
		snprintf(b, sizeof(b), "%ums", us / 1000);
	else
		snprintf(b, sizeof(b), "%us", us / 1000000);
	print_color_string(PRINT_FP, TC_COLOR_NONE, NULL, "latency %s ", b);
}

static int er2bc_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	static const int sizes[TCA_ER2BC_MAX + 1] = {
		[TCA_ER2BC_RATE] = 8, [TCA_ER2BC_BURST] = 4,
		[TCA_ER2BC_DEFAULT] = 4, [TCA_ER2BC_MODE] = 1,
		[TCA_ER2BC_SHARE] = 1, [TCA_ER2BC_CTRL_C] = 4,
		[TCA_ER2BC_CTRL_M] = 4, [TCA_ER2BC_CTRL_BLIM] = 8,
		[TCA_ER2BC_CTRL_FLOOR] = 8, [TCA_ER2BC_CTRL_STALE] = 4,
		[TCA_ER2BC_CTRL_CONVERGE] = 1, [TCA_ER2BC_PROBE_PORT] = 2,
		[TCA_ER2BC_PROBE_MARK] = 4, [TCA_ER2BC_LATENCY] = 4,
	};
	struct rtattr *tb[TCA_ER2BC_MAX + 1];

	if (!opt)
		return 0;
	parse_nested(tb, TCA_ER2BC_MAX, sizes, opt);

	if (tb[TCA_ER2BC_RATE])
		print_rate_opt("rate", rta_u64(tb[TCA_ER2BC_RATE]), "rate unlimited");
	if (tb[TCA_ER2BC_BURST])
		print_burst_opt("burst", rta_u32(tb[TCA_ER2BC_BURST]));
	if (tb[TCA_ER2BC_DEFAULT])
		print_color_0xhex(PRINT_ANY, TC_COLOR_NONE, "default", "default %#llx ",
				  rta_u32(tb[TCA_ER2BC_DEFAULT]));
	if (tb[TCA_ER2BC_MODE])
		print_color_string(PRINT_ANY, TC_COLOR_NONE, "mode", "mode %s ",
				   name_of(&modes, rta_u8(tb[TCA_ER2BC_MODE])));
	if (tb[TCA_ER2BC_SHARE])
		print_color_string(PRINT_ANY, TC_COLOR_NONE, "share", "share %s ",
				   name_of(&shares, rta_u8(tb[TCA_ER2BC_SHARE])));
	if (tb[TCA_ER2BC_LATENCY])
		print_latency(rta_u32(tb[TCA_ER2BC_LATENCY]));
	if (!tb[TCA_ER2BC_CTRL_C])
		return 0;
	/* the controller's parameters, on a line of their own */
	print_nl();
	print_color_uint(PRINT_ANY, TC_COLOR_NONE, "window", "window %u ",
			 rta_u32(tb[TCA_ER2BC_CTRL_C]));
	if (tb[TCA_ER2BC_CTRL_M])
		print_color_uint(PRINT_ANY, TC_COLOR_NONE, "history", "history %u ",
				 rta_u32(tb[TCA_ER2BC_CTRL_M]));
	if (tb[TCA_ER2BC_CTRL_BLIM])
		print_rate_opt("loss-headroom", rta_u64(tb[TCA_ER2BC_CTRL_BLIM]),
			       "loss-headroom 0bit");
	if (tb[TCA_ER2BC_CTRL_FLOOR])
		print_rate_opt("floor", rta_u64(tb[TCA_ER2BC_CTRL_FLOOR]), "floor 0bit");
	if (tb[TCA_ER2BC_CTRL_STALE]) {
		__u32 ms = rta_u32(tb[TCA_ER2BC_CTRL_STALE]);
		char b[32];

		/* in JSON in us, tc's unit of time, 0 for never; in text exact */
		print_color_u64(PRINT_JSON, TC_COLOR_NONE, "stale_us", NULL, ms * 1000ULL);
		if (!ms)
			snprintf(b, sizeof(b), "never");
		else if (ms % 1000)
			snprintf(b, sizeof(b), "%ums", ms);
		else
			snprintf(b, sizeof(b), "%us", ms / 1000);
		print_color_string(PRINT_FP, TC_COLOR_NONE, NULL, "stale %s ", b);
	}
	if (tb[TCA_ER2BC_CTRL_CONVERGE])
		print_color_string(PRINT_ANY, TC_COLOR_NONE, "converge", "converge %s ",
				   name_of(&converges, rta_u8(tb[TCA_ER2BC_CTRL_CONVERGE])));
	if ((tb[TCA_ER2BC_PROBE_PORT] && rta_u16(tb[TCA_ER2BC_PROBE_PORT])) ||
	    (tb[TCA_ER2BC_PROBE_MARK] && rta_u32(tb[TCA_ER2BC_PROBE_MARK])))
		print_probe(tb[TCA_ER2BC_PROBE_PORT], tb[TCA_ER2BC_PEER],
			    tb[TCA_ER2BC_PROBE_MARK]);
	return 0;
}

/*
 * A qdisc's statistics, @len bytes of them known (an older module's struct
 * has fewer), and the lending's counts if @lend (none in the struct)
 */
static int er2bc_print_qstats(const struct tc_er2bc_xstats *x, size_t len, const __u64 *lend)
{
	const struct tc_er2bc_xstats st = *x;

	print_nl();
	print_rate_opt("cap", st.rate, "cap unlimited");
	print_rate_opt("guaranteed", st.guaranteed, "guaranteed 0bit");
	print_color_uint(PRINT_ANY, TC_COLOR_NONE, "classes", "classes %u ", st.classes);
	print_color_uint(PRINT_ANY, TC_COLOR_NONE, "active", "active %u", st.active);
	print_nl();
	print_color_u64(PRINT_ANY, TC_COLOR_NONE, "unclassified", "unclassified %llu ",
			st.unclassified);
	print_color_u64(PRINT_ANY, TC_COLOR_NONE, "throttled", "throttled %llu ",
			st.throttled);
	print_color_u64(PRINT_ANY, TC_COLOR_NONE, "waits", "waits %llu", st.waits);
	/* (a module without scavengers has no count of them) */
	if (len >= offsetof(struct tc_er2bc_xstats, yielded) + sizeof(st.yielded))
		print_color_u64(PRINT_ANY, TC_COLOR_NONE, "yielded", " yielded %llu",
				st.yielded);
	/* (the time W held a backlog back: a module before it has no count) */
	if (len >= offsetof(struct tc_er2bc_xstats, held_ns) + sizeof(st.held_ns))
		print_duration("held_ns", " held %s", st.held_ns);
	if (lend) {
		print_nl();
		print_color_u64(PRINT_ANY, TC_COLOR_NONE, "lend_turns", "lending turns %llu ",
				lend[0]);
		print_color_u64(PRINT_ANY, TC_COLOR_NONE, "lend_rounds", "rounds %llu",
				lend[1]);
	}
	print_nl();
	print_color_u64(PRINT_ANY, TC_COLOR_NONE, "updates", "updates %llu ", st.updates);
	print_color_uint(PRINT_ANY, TC_COLOR_NONE, "seq", "seq %u ", st.seq);
	/* (a JSON boolean, as er2bcctl -j has it; yes or no in the text) */
	print_color_bool(PRINT_JSON, TC_COLOR_NONE, "stale", NULL, st.stale);
	print_color_string(PRINT_FP, TC_COLOR_NONE, NULL, "stale %s", st.stale ? "yes" : "no");
	/* (a module before it has a shorter struct; none before the first) */
	if (st.updates &&
	    len >= offsetof(struct tc_er2bc_xstats, estimate_age_ns) + sizeof(st.estimate_age_ns))
		print_duration("estimate_age_ns", " last estimate %s ago", st.estimate_age_ns);
	if (!st.probes && !st.probe_packets)
		return 0;
	print_nl();
	print_color_u64(PRINT_ANY, TC_COLOR_NONE, "probe_packets", "probe packets %llu ",
			st.probe_packets);
	print_color_u64(PRINT_ANY, TC_COLOR_NONE, "probe_bytes", "bytes %llu ",
			st.probe_bytes);
	print_color_u64(PRINT_ANY, TC_COLOR_NONE, "probes", "requests %llu ", st.probes);
	print_color_u64(PRINT_ANY, TC_COLOR_NONE, "probe_ignored", "ignored %llu",
			st.probe_ignored);
	return 0;
}

static int er2bc_print_copt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	static const int sizes[TCA_ER2BC_CLASS_MAX + 1] = {
		[TCA_ER2BC_CLASS_PRIO] = 1, [TCA_ER2BC_CLASS_RATE] = 8,
		[TCA_ER2BC_CLASS_CEIL] = 8, [TCA_ER2BC_CLASS_WEIGHT] = 4,
		[TCA_ER2BC_CLASS_TYPE] = 1, [TCA_ER2BC_CLASS_BURST] = 4,
		[TCA_ER2BC_CLASS_CBURST] = 4, [TCA_ER2BC_CLASS_MARGIN] = 4,
		[TCA_ER2BC_CLASS_LATENCY] = 4,
	};
	struct rtattr *tb[TCA_ER2BC_CLASS_MAX + 1];

	if (!opt)
		return 0;
	parse_nested(tb, TCA_ER2BC_CLASS_MAX, sizes, opt);

	if (tb[TCA_ER2BC_CLASS_PRIO])
		print_color_uint(PRINT_ANY, TC_COLOR_NONE, "prio", "prio %u ",
				 rta_u8(tb[TCA_ER2BC_CLASS_PRIO]));
	if (tb[TCA_ER2BC_CLASS_RATE])
		print_rate_opt("rate", rta_u64(tb[TCA_ER2BC_CLASS_RATE]), "rate 0bit");
	if (tb[TCA_ER2BC_CLASS_CEIL])
		print_rate_opt("ceil", rta_u64(tb[TCA_ER2BC_CLASS_CEIL]), NULL);
	if (tb[TCA_ER2BC_CLASS_WEIGHT])
		print_color_uint(PRINT_ANY, TC_COLOR_NONE, "weight", "weight %u ",
				 rta_u32(tb[TCA_ER2BC_CLASS_WEIGHT]));
	if (tb[TCA_ER2BC_CLASS_TYPE])
		print_color_string(PRINT_ANY, TC_COLOR_NONE, "type", "type %s ",
				   name_of(&types, rta_u8(tb[TCA_ER2BC_CLASS_TYPE])));
	if (tb[TCA_ER2BC_CLASS_BURST])
		print_burst_opt("burst", rta_u32(tb[TCA_ER2BC_CLASS_BURST]));
	if (tb[TCA_ER2BC_CLASS_CBURST])
		print_burst_opt("cburst", rta_u32(tb[TCA_ER2BC_CLASS_CBURST]));
	/* (in the text only where there is one: most classes have none) */
	if (tb[TCA_ER2BC_CLASS_MARGIN])
		print_color_uint(rta_u32(tb[TCA_ER2BC_CLASS_MARGIN]) ? PRINT_ANY : PRINT_JSON,
				 TC_COLOR_NONE, "margin_percent", "margin %u%% ",
				 rta_u32(tb[TCA_ER2BC_CLASS_MARGIN]));
	/* (only a class's own: without one, it has the qdisc's) */
	if (tb[TCA_ER2BC_CLASS_LATENCY])
		print_latency(rta_u32(tb[TCA_ER2BC_CLASS_LATENCY]));
	return 0;
}

/* a class's latency bound in force (a module before it has none) */
struct er2bc_bound_stats {
	__u64 service_rate;		/* bits/s, 0: not measured yet */
	__u32 backlog_limit;		/* bytes, 0: unbounded */
	__u64 drops;
};

/* a class's statistics, @len bytes of them known, and its bound's if @b */
static int er2bc_print_cstats(const struct tc_er2bc_class_xstats *x, size_t len,
			      const struct er2bc_bound_stats *b)
{
	const struct tc_er2bc_class_xstats st = *x;

	print_nl();
	print_rate_opt("guarantee", st.guarantee, "guarantee 0bit");
	print_color_string(PRINT_ANY, TC_COLOR_NONE, "state", "state %s ",
			   name_of(&states, st.state));
	print_color_int(PRINT_ANY, TC_COLOR_NONE, "credit", "credit %d", st.credit);
	print_nl();
	print_color_u64(PRINT_ANY, TC_COLOR_NONE, "bytes_guaranteed",
			"sent within guarantee %llu bytes ", st.bytes_guaranteed);
	print_color_u64(PRINT_ANY, TC_COLOR_NONE, "bytes_borrowed",
			"borrowed %llu bytes", st.bytes_borrowed);
	/* (a module before shortage has a shorter struct) */
	if (len >= offsetof(struct tc_er2bc_class_xstats, shortage_ns) + sizeof(st.shortage_ns)) {
		print_nl();
		print_duration("shortage_ns", "shortage %s", st.shortage_ns);
	}
	if (!b)
		return 0;
	print_nl();
	print_rate_opt("service-rate", b->service_rate, "service-rate unmeasured");
	print_color_uint(PRINT_JSON, TC_COLOR_NONE, "backlog_limit", NULL, b->backlog_limit);
	if (b->backlog_limit) {
		char text[32];

		size_text(text, sizeof(text), b->backlog_limit);
		print_color_string(PRINT_FP, TC_COLOR_NONE, NULL, "backlog-limit %s ", text);
	} else {
		print_color_string(PRINT_FP, TC_COLOR_NONE, NULL, "%s ", "backlog-limit unlimited");
	}
	print_color_u64(PRINT_ANY, TC_COLOR_NONE, "latency_drops", "latency drops %llu",
			b->drops);
	return 0;
}

static int print_nested_stats(const struct nlattr **tb)
{
	if (tb[TCA_ER2BC_STATS_GUARANTEE]) {
		struct tc_er2bc_class_xstats c = {
			.guarantee = er2bc_stat_u64(tb[TCA_ER2BC_STATS_GUARANTEE]),
			.bytes_guaranteed = er2bc_stat_u64(tb[TCA_ER2BC_STATS_BYTES_GUARANTEED]),
			.bytes_borrowed = er2bc_stat_u64(tb[TCA_ER2BC_STATS_BYTES_BORROWED]),
			.credit = (__s32)er2bc_stat_u32(tb[TCA_ER2BC_STATS_CREDIT]),
			.state = er2bc_stat_u32(tb[TCA_ER2BC_STATS_STATE]),
			.shortage_ns = er2bc_stat_u64(tb[TCA_ER2BC_STATS_SHORTAGE_NS]),
		};
		struct er2bc_bound_stats b = {
			.service_rate = er2bc_stat_u64(tb[TCA_ER2BC_STATS_SERVICE_RATE]),
			.backlog_limit = er2bc_stat_u32(tb[TCA_ER2BC_STATS_BACKLOG_LIMIT]),
			.drops = er2bc_stat_u64(tb[TCA_ER2BC_STATS_LATENCY_DROPS]),
		};

		return er2bc_print_cstats(&c, sizeof(c),
					  tb[TCA_ER2BC_STATS_BACKLOG_LIMIT] ? &b : NULL);
	}
	struct tc_er2bc_xstats q = {
		.rate = er2bc_stat_u64(tb[TCA_ER2BC_STATS_CAP]),
		.guaranteed = er2bc_stat_u64(tb[TCA_ER2BC_STATS_GUARANTEED]),
		.unclassified = er2bc_stat_u64(tb[TCA_ER2BC_STATS_UNCLASSIFIED]),
		.throttled = er2bc_stat_u64(tb[TCA_ER2BC_STATS_THROTTLED]),
		.waits = er2bc_stat_u64(tb[TCA_ER2BC_STATS_WAITS]),
		.classes = er2bc_stat_u32(tb[TCA_ER2BC_STATS_CLASSES]),
		.active = er2bc_stat_u32(tb[TCA_ER2BC_STATS_ACTIVE]),
		.updates = er2bc_stat_u64(tb[TCA_ER2BC_STATS_UPDATES]),
		.stale = er2bc_stat_u8(tb[TCA_ER2BC_STATS_STALE]),
		.seq = er2bc_stat_u32(tb[TCA_ER2BC_STATS_SEQ]),
		.probe_packets = er2bc_stat_u64(tb[TCA_ER2BC_STATS_PROBE_PACKETS]),
		.probe_bytes = er2bc_stat_u64(tb[TCA_ER2BC_STATS_PROBE_BYTES]),
		.probes = er2bc_stat_u64(tb[TCA_ER2BC_STATS_PROBES]),
		.probe_ignored = er2bc_stat_u64(tb[TCA_ER2BC_STATS_PROBE_IGNORED]),
		.yielded = er2bc_stat_u64(tb[TCA_ER2BC_STATS_YIELDED]),
		.estimate_age_ns = er2bc_stat_u64(tb[TCA_ER2BC_STATS_ESTIMATE_AGE_NS]),
		.held_ns = er2bc_stat_u64(tb[TCA_ER2BC_STATS_HELD_NS]),
	};
	__u64 lend[2] = { er2bc_stat_u64(tb[TCA_ER2BC_STATS_LEND_TURNS]),
			  er2bc_stat_u64(tb[TCA_ER2BC_STATS_LEND_ROUNDS]) };

	return er2bc_print_qstats(&q, sizeof(q), lend);
}

/* tc hands a class's statistics to print_xstats as well */
static int er2bc_print_xstats(struct qdisc_util *qu, FILE *f, struct rtattr *xstats)
{
	const struct nlattr *tb[TCA_ER2BC_STATS_MAX + 1];
	size_t len;

	if (!xstats)
		return 0;
	/* (this version's modules; see xstats.h) */
	if (er2bc_stats_nested(RTA_DATA(xstats), RTA_PAYLOAD(xstats), tb) &&
	    (tb[TCA_ER2BC_STATS_CAP] || tb[TCA_ER2BC_STATS_GUARANTEE]))
		return print_nested_stats(tb);
	/*
	 * a module loaded before an upgrade: its structs differ in size,
	 * whichever version sent them (a class's is shorter than the part of
	 * the qdisc's every version has); a module without the estimator's
	 * counts has a shorter struct still
	 */
	len = RTA_PAYLOAD(xstats);
	if (len >= offsetof(struct tc_er2bc_class_xstats, credit) &&
	    len < offsetof(struct tc_er2bc_xstats, probe_packets)) {
		struct tc_er2bc_class_xstats c = {};

		len = len < sizeof(c) ? len : sizeof(c);
		memcpy(&c, RTA_DATA(xstats), len);
		return er2bc_print_cstats(&c, len, NULL);
	}
	if (len >= offsetof(struct tc_er2bc_xstats, probe_packets)) {
		struct tc_er2bc_xstats q = {};

		len = len < sizeof(q) ? len : sizeof(q);
		memcpy(&q, RTA_DATA(xstats), len);
		return er2bc_print_qstats(&q, len, NULL);
	}
	return -1;
}

struct qdisc_util er2bc_qdisc_util = {
	.id		= "er2bc",
	.parse_qopt	= er2bc_parse_opt,
	.print_qopt	= er2bc_print_opt,
	.print_xstats	= er2bc_print_xstats,
	.parse_copt	= er2bc_parse_copt,
	.print_copt	= er2bc_print_copt,
};
