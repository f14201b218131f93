// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's configuration (conf.h): a table of keys, each with the roles
 * it belongs to, its default and its parser; then the checks that involve
 * more than one key.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "abwd.h"
#include "conf.h"
#include "parse.h"

#define BOTH	(ROLE_SENDER | ROLE_RESPONDER)

/* what a key's parser gets: the value; what it says when it is bad */
typedef int (*set_fn)(struct config *c, const char *val, const char **why);

struct key_def {
	const char *name;
	const char *arg;	/* what the value is, for --help */
	unsigned int roles;
	const char *def;	/* the default, parsed as a value; NULL: none */
	bool required;
	bool repeat;		/* may be given more than once */
	set_fn set;
	const char *help;
};

static char why_buf[128];

/* a *why with a number in it (static: *why outlives the call) */
static const char *why_fmt(const char *fmt, unsigned long long v)
{
	snprintf(why_buf, sizeof(why_buf), fmt, v);
	return why_buf;
}

static int set_port(struct config *c, const char *val, const char **why)
{
	uint32_t v;

	if (parse_u32(val, &v, why))
		return -1;
	if (!v || v > 65535) {
		*why = "not a port (1-65535)";
		return -1;
	}
	c->port = (uint16_t)v;
	return 0;
}

static int set_dev(struct config *c, const char *val, const char **why)
{
	if (!*val || strlen(val) >= IF_NAMESIZE) {
		*why = "not a device name";
		return -1;
	}
	/* by name: the daemons wait for a device that is not there yet */
	c->ifindex = if_nametoindex(val);
	snprintf(c->dev, sizeof(c->dev), "%s", val);
	return 0;
}

static int set_handle(struct config *c, const char *val, const char **why)
{
	return parse_handle(val, &c->handle, why);
}

/*
 * A time in us, 1ms to 1h. A bare number is us, as tc's get_time() takes
 * it, so that a bare time means the same to tc and to the daemon.
 */
static int parse_period(const char *val, uint64_t *us, const char **why)
{
	size_t len = strlen(val);
	bool bare = len && isdigit((unsigned char)val[len - 1]);

	if (parse_time(val, 1, us, why))
		return -1;
	if (*us < 1000 || *us > 3600000000ULL) {
		/* "interval = 1" meant a second before bare numbers were us */
		*why = bare ? "must be 1ms to 3600s (a bare number is us)" :
			      "must be 1ms to 3600s";
		return -1;
	}
	return 0;
}

static int set_interval(struct config *c, const char *val, const char **why)
{
	return parse_period(val, &c->interval_us, why);
}

static int set_timeout(struct config *c, const char *val, const char **why)
{
	return parse_period(val, &c->timeout_us, why);
}

static int set_theta_h(struct config *c, const char *val, const char **why)
{
	return parse_u64(val, &c->aimd.theta_h, why);
}

static int set_theta_l(struct config *c, const char *val, const char **why)
{
	return parse_u64(val, &c->aimd.theta_l, why);
}

static int set_d_ini(struct config *c, const char *val, const char **why)
{
	if (parse_rate(val, &c->aimd.d_ini, why))
		return -1;
	if (!c->aimd.d_ini) {
		*why = "must be more than 0";
		return -1;
	}
	return 0;
}

static int set_d_max(struct config *c, const char *val, const char **why)
{
	return parse_rate(val, &c->aimd.d_max, why);
}

int parse_millionths(const char *s, uint64_t *v, const char **why)
{
	uint64_t ipart = 0, frac = 0;
	unsigned int digits = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p)) {
		*why = *p ? "not a number" : "empty";
		return -1;
	}
	for (; isdigit((unsigned char)*p); p++) {
		ipart = ipart * 10 + (uint64_t)(*p - '0');
		if (ipart > 1000000) {
			*why = "too large";
			return -1;
		}
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p)) {
			*why = "not a number";
			return -1;
		}
		for (; isdigit((unsigned char)*p); p++, digits++) {
			if (digits == 6) {
				*why = "at most 6 decimals";
				return -1;
			}
			frac = frac * 10 + (uint64_t)(*p - '0');
		}
	}
	if (*p) {
		*why = "not a number";
		return -1;
	}
	for (; digits < 6; digits++)
		frac *= 10;
	*v = ipart * AIMD_ONE + frac;
	return 0;
}

static int set_alpha(struct config *c, const char *val, const char **why)
{
	if (parse_millionths(val, &c->aimd.alpha, why))
		return -1;
	if (c->aimd.alpha < AIMD_ONE) {
		*why = "must be at least 1";
		return -1;
	}
	if (c->aimd.alpha > 1000 * AIMD_ONE) {
		*why = "must be at most 1000";
		return -1;
	}
	return 0;
}

static const char *role_name(enum role role);

/* the role the daemon was started as, said again (it cannot change) */
static int set_role(struct config *c, const char *val, const char **why)
{
	if (strcmp(val, "sender") && strcmp(val, "responder")) {
		*why = "must be sender or responder";
		return -1;
	}
	if (strcmp(val, role_name(c->role))) {
		*why = c->role == ROLE_SENDER ? "this er2bc-abwd runs as the sender" :
						"this er2bc-abwd runs as the responder";
		return -1;
	}
	return 0;
}

static int set_mode(struct config *c, const char *val, const char **why)
{
	unsigned int i;

	for (i = 0; i < DELAY_NMODES; i++) {
		if (!strcmp(val, delay_mode_name((enum delay_mode)i))) {
			c->delay.mode = (enum delay_mode)i;
			return 0;
		}
	}
	*why = "must be loss, delay or hybrid";
	return -1;
}

static int set_delay_step(struct config *c, const char *val, const char **why)
{
	if (parse_rate(val, &c->delay.step, why))
		return -1;
	if (!c->delay.step) {
		*why = "must be more than 0";
		return -1;
	}
	if (c->delay.step > 100000000000ULL) {
		*why = "must be at most 100gbit";
		return -1;
	}
	return 0;
}

/* parse_period() in ns */
static int parse_period_ns(const char *val, uint64_t *ns, const char **why)
{
	if (parse_period(val, ns, why))
		return -1;
	*ns *= 1000;
	return 0;
}

static int set_delay_span(struct config *c, const char *val, const char **why)
{
	return parse_period_ns(val, &c->delay.span_ns, why);
}

static int set_delay_span_min(struct config *c, const char *val, const char **why)
{
	return parse_period_ns(val, &c->delay.span_min_ns, why);
}

/* a factor of the delay rule: 1 to 1000, 6 decimals */
static int parse_factor(const char *val, uint64_t *v, const char **why)
{
	if (parse_millionths(val, v, why))
		return -1;
	if (*v < AIMD_ONE) {
		*why = "must be at least 1";
		return -1;
	}
	if (*v > 1000 * AIMD_ONE) {
		*why = "must be at most 1000";
		return -1;
	}
	return 0;
}

static int set_delay_md(struct config *c, const char *val, const char **why)
{
	return parse_factor(val, &c->delay.md, why);
}

static int set_delay_push(struct config *c, const char *val, const char **why)
{
	return parse_factor(val, &c->delay.push, why);
}

static int set_delay_filter(struct config *c, const char *val, const char **why)
{
	uint32_t v;

	if (parse_u32(val, &v, why))
		return -1;
	_Static_assert(DELAY_FILTER_MAX == 16, "the message names the bound");
	if (v < 1 || v > DELAY_FILTER_MAX) {
		*why = "must be 1 to 16 estimates";
		return -1;
	}
	c->delay.filter = v;
	return 0;
}

static int set_beta(struct config *c, const char *val, const char **why)
{
	return parse_rate(val, &c->aimd.beta, why);
}

/* "qdisc": the qdisc's cap in force when the sender starts (sender.c) */
static int set_w_ini(struct config *c, const char *val, const char **why)
{
	c->w_ini_qdisc = !strcmp(val, "qdisc");
	if (c->w_ini_qdisc) {
		c->aimd.w_ini = AIMD_W_INI;
		return 0;
	}
	return parse_rate(val, &c->aimd.w_ini, why);
}

static int set_w_min(struct config *c, const char *val, const char **why)
{
	if (parse_rate(val, &c->aimd.w_min, why))
		return -1;
	if (!c->aimd.w_min) {
		*why = "must be at least 1bit (the qdisc takes no ABW of 0)";
		return -1;
	}
	return 0;
}

/* "qdisc": the qdisc's configured rate, W's ceiling (sender.c) */
static int set_w_max(struct config *c, const char *val, const char **why)
{
	c->w_max_qdisc = !strcmp(val, "qdisc");
	if (c->w_max_qdisc) {
		c->aimd.w_max = 0;
		return 0;
	}
	return parse_rate(val, &c->aimd.w_max, why);
}

static int set_decay_after(struct config *c, const char *val, const char **why)
{
	uint32_t v;

	if (parse_u32(val, &v, why))
		return -1;
	if (v > 1000) {
		*why = "not 0 (never) to 1000 missed intervals";
		return -1;
	}
	c->decay_after = v;
	return 0;
}

static int set_w_floor(struct config *c, const char *val, const char **why)
{
	return parse_rate(val, &c->w_floor, why);
}

int read_key_file(const char *path, struct wire_key *key, const char **why)
{
	uint8_t buf[WIRE_KEY_MAX + 1];
	struct stat st;
	ssize_t n;
	size_t len = 0;
	int fd;

	if (!*path) {
		*why = "empty";
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		goto fail;
	}
	if (st.st_mode & (0006)) {
		*why = "others may read or write it (chmod o-rw, or 600)";
		goto fail;
	}
	do {
		n = read(fd, buf + len, sizeof(buf) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*why = strerror(errno);
			goto fail;
		}
		len += (size_t)n;
	} while (n > 0 && len < sizeof(buf));
	close(fd);
	if (len > WIRE_KEY_MAX) {
		*why = why_fmt("longer than %llu bytes", WIRE_KEY_MAX);
		goto wipe;
	}
	/* what an editor or echo leaves at the end is not part of the key */
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	if (len < WIRE_KEY_MIN) {
		*why = why_fmt("the key is shorter than %llu bytes", WIRE_KEY_MIN);
		goto wipe;
	}
	memcpy(key->data, buf, len);
	key->len = len;
	explicit_bzero(buf, sizeof(buf));
	return 0;
fail:
	close(fd);
wipe:
	explicit_bzero(buf, sizeof(buf));
	return -1;
}

static int set_key_file(struct config *c, const char *val, const char **why)
{
	if (strlen(val) >= sizeof(c->key_file)) {
		*why = "too long";
		return -1;
	}
	if (read_key_file(val, &c->key, why))
		return -1;
	snprintf(c->key_file, sizeof(c->key_file), "%s", val);
	return 0;
}

/*
 * A file's name into @dst (@size bytes), leaving room for @room more (the
 * temporary names written beside it)
 */
static int set_path(char *dst, size_t size, size_t room, const char *val, const char **why)
{
	size_t len = strlen(val);

	if (!len || val[len - 1] == '/') {
		*why = "not a file name";
		return -1;
	}
	if (len + room >= size) {
		*why = why_fmt("longer than %llu bytes", (unsigned long long)(size - room - 1));
		return -1;
	}
	memcpy(dst, val, len + 1);
	return 0;
}

static int set_epoch_file(struct config *c, const char *val, const char **why)
{
	if (!strcmp(val, "none")) {
		c->epoch_file[0] = '\0';
		return 0;
	}
	return set_path(c->epoch_file, sizeof(c->epoch_file), 32, val, why);
}

static int parse_yes_no(const char *val, bool *v, const char **why)
{
	if (!strcmp(val, "yes") || !strcmp(val, "no")) {
		*v = !strcmp(val, "yes");
		return 0;
	}
	*why = "yes or no";
	return -1;
}

static int set_plain(struct config *c, const char *val, const char **why)
{
	return parse_yes_no(val, &c->plain, why);
}

static int set_apply(struct config *c, const char *val, const char **why)
{
	return parse_yes_no(val, &c->apply, why);
}

static int set_delay_drain(struct config *c, const char *val, const char **why)
{
	return parse_yes_no(val, &c->delay.drain, why);
}

static int set_compete(struct config *c, const char *val, const char **why)
{
	return parse_yes_no(val, &c->compete, why);
}

static int set_loss_queue(struct config *c, const char *val, const char **why)
{
	return parse_yes_no(val, &c->loss_queue, why);
}

/* the probes' budget: 50 a second at most (dense.h) */
#define PROBE_INTERVAL_MIN_US	20000
#define PROBE_INTERVAL_MAX_US	1000000

static int set_probe_interval(struct config *c, const char *val, const char **why)
{
	uint64_t us;

	if (!strcmp(val, "off")) {
		c->probe_interval_us = 0;
		return 0;
	}
	if (parse_time(val, 1, &us, why))
		return -1;
	if (us < PROBE_INTERVAL_MIN_US || us > PROBE_INTERVAL_MAX_US) {
		*why = "must be off or 20ms to 1s";
		return -1;
	}
	c->probe_interval_us = us;
	return 0;
}

static int set_rate_limit(struct config *c, const char *val, const char **why)
{
	uint32_t v;

	if (parse_u32(val, &v, why))
		return -1;
	if (v > 100000) {
		*why = "not 0 (no limit) to 100000 a second";
		return -1;
	}
	c->rate_limit = v;
	return 0;
}

static int set_status(struct config *c, const char *val, const char **why)
{
	return set_path(c->status, sizeof(c->status), 16, val, why);
}

char *fmt_addr(char *buf, size_t len, const struct sockaddr *sa)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
	char ifname[IF_NAMESIZE];
	size_t n;

	if (sa->sa_family == AF_INET) {
		inet_ntop(AF_INET, &s4->sin_addr, buf, (socklen_t)len);
	} else if (sa->sa_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		inet_ntop(AF_INET, &s6->sin6_addr.s6_addr[12], buf, (socklen_t)len);
	} else if (sa->sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &s6->sin6_addr, buf, (socklen_t)len);
		n = strlen(buf);
		if (s6->sin6_scope_id && n + 2 < len) {
			if (!if_indextoname(s6->sin6_scope_id, ifname))
				snprintf(ifname, sizeof(ifname), "%u", s6->sin6_scope_id);
			snprintf(buf + n, len - n, "%%%s", ifname);
		}
	} else {
		snprintf(buf, len, "?");
	}
	return buf;
}

/* a numeric IPv4 or IPv6 address (IPv6 with an optional %scope) */
static int parse_sockaddr(const char *val, struct sockaddr_storage *ss,
			  socklen_t *len, const char **why)
{
	struct addrinfo hints = {
		.ai_flags = AI_NUMERICHOST,
		.ai_socktype = SOCK_DGRAM,
	}, *ai;

	if (!*val) {
		*why = "empty";
		return -1;
	}
	if (getaddrinfo(val, NULL, &hints, &ai) || !ai) {
		*why = "not an IPv4 or IPv6 address";
		return -1;
	}
	if ((ai->ai_family != AF_INET && ai->ai_family != AF_INET6) ||
	    ai->ai_addrlen > sizeof(*ss)) {
		freeaddrinfo(ai);
		*why = "not an IPv4 or IPv6 address";
		return -1;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static int set_peer(struct config *c, const char *val, const char **why)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&c->peer;
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)&c->peer;
	uint32_t a4;

	if (parse_sockaddr(val, &c->peer, &c->peer_len, why))
		return -1;
	if (c->peer.ss_family == AF_INET) {
		a4 = ntohl(s4->sin_addr.s_addr);
		if (!a4 || IN_MULTICAST(a4) || a4 == INADDR_BROADCAST) {
			*why = "not a unicast address";
			return -1;
		}
	} else if (IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr) ||
		   IN6_IS_ADDR_MULTICAST(&s6->sin6_addr)) {
		*why = "not a unicast address";
		return -1;
	} else if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		*why = "an IPv4-mapped address: give the IPv4 address";
		return -1;
	}
	fmt_addr(c->peer_str, sizeof(c->peer_str), (struct sockaddr *)&c->peer);
	return 0;
}

static int set_listen(struct config *c, const char *val, const char **why)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&c->listen;

	if (parse_sockaddr(val, &c->listen, &c->listen_len, why))
		return -1;
	if (c->listen.ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		*why = "an IPv4-mapped address: give the IPv4 address";
		return -1;
	}
	fmt_addr(c->listen_str, sizeof(c->listen_str), (struct sockaddr *)&c->listen);
	return 0;
}

int parse_prefix(const char *s, struct prefix *p, const char **why)
{
	char addr[INET6_ADDRSTRLEN + 1];
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	unsigned int max, i, bits;
	uint32_t plen;

	memset(p, 0, sizeof(*p));
	if (!alen || alen >= sizeof(addr)) {
		*why = "not a prefix (ADDRESS/LENGTH)";
		return -1;
	}
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET, addr, p->addr) == 1) {
		p->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, addr, p->addr) == 1) {
		p->family = AF_INET6;
		max = 128;
	} else {
		*why = "not an IPv4 or IPv6 prefix";
		return -1;
	}
	plen = max;
	if (slash && parse_u32(slash + 1, &plen, why))
		return -1;
	if (plen > max) {
		*why = why_fmt("prefix length above %llu", max);
		return -1;
	}
	p->plen = (uint8_t)plen;
	/* no bits set past the prefix: 10.0.0.1/8 is probably a mistake */
	for (i = 0; i < max / 8; i++) {
		bits = i * 8 >= plen ? 0xff : i * 8 + 8 <= plen ? 0 :
		       0xff >> (plen - i * 8);
		if (p->addr[i] & bits) {
			*why = "bits set past the prefix length";
			return -1;
		}
	}
	return 0;
}

bool prefix_match(const struct prefix *p, int family, const uint8_t *addr)
{
	unsigned int full = p->plen / 8, rest = p->plen % 8;

	if (family != p->family)
		return false;
	if (memcmp(p->addr, addr, full))
		return false;
	return !rest || !((p->addr[full] ^ addr[full]) & (0xff00 >> rest));
}

static int set_peer_prefix(struct config *c, const char *val, const char **why)
{
	if (c->nprefix >= ER2BC_PEER_MAX) {
		*why = why_fmt("more than %llu prefixes", ER2BC_PEER_MAX);
		return -1;
	}
	if (parse_prefix(val, &c->prefix[c->nprefix], why))
		return -1;
	c->nprefix++;
	return 0;
}

#define S ROLE_SENDER
#define R ROLE_RESPONDER

static const struct key_def keys[] = {
	{ "role", "sender|responder", BOTH, NULL, false, false, set_role,
	  "the role, where the command line does not begin with it" },
	{ "peer", "ADDR",	 S, NULL, true, false, set_peer,
	  "the responder's address, IPv4 or IPv6" },
	{ "listen", "ADDR",	 R, "::", false, false, set_listen,
	  "the address to take requests on (:: is IPv6 and IPv4)" },
	{ "port", "PORT",	 BOTH, "4950", false, false, set_port,
	  "the responder's UDP port" },
	{ "dev", "IFNAME",	 BOTH, NULL, true, false, set_dev,
	  "the qdisc's device (sender), the meter's (responder)" },
	{ "handle", "MAJ:",	 S, "1:", false, false, set_handle,
	  "the er2bc qdisc's handle" },
	{ "interval", "TIME",	 S, "1s", false, false, set_interval,
	  "T_c, between requests (s, ms, us; bare: us)" },
	{ "timeout", "TIME",	 S, NULL, false, false, set_timeout,
	  "how long to wait for a response (default: 3s, or 16 intervals if less)" },
	{ "mode", "loss|delay|hybrid", S, "loss", false, false, set_mode,
	  "the rule for W: loss (the paper's), delay or hybrid (seed 003)" },
	{ "theta-h", "N",	 S, "1", false, false, set_theta_h,
	  "packets lost above which W = R - beta" },
	{ "theta-l", "N",	 S, "0", false, false, set_theta_l,
	  "packets lost up to which W grows by D" },
	{ "d-ini", "RATE",	 S, "50kbit", false, false, set_d_ini,
	  "D_ini, the first increase" },
	{ "d-max", "RATE",	 S, "1mbit", false, false, set_d_max,
	  "D_max, the largest increase" },
	{ "alpha", "NUM",	 S, "1.2", false, false, set_alpha,
	  "the factor D grows by (>= 1, 6 decimals)" },
	{ "beta", "RATE",	 S, "100kbit", false, false, set_beta,
	  "W = R - beta on loss" },
	{ "w-ini", "RATE|qdisc", S, "qdisc", false, false, set_w_ini,
	  "W_ini, W before the first estimate (qdisc: its cap in force)" },
	{ "w-min", "RATE",	 S, "10kbit", false, false, set_w_min,
	  "W never goes below" },
	{ "w-max", "RATE|qdisc", S, "qdisc", false, false, set_w_max,
	  "W never goes above (qdisc or 0: the qdisc's rate)" },
	{ "delay-step", "RATE",	 S, "200kbit", false, false, set_delay_step,
	  "delay, hybrid: W's step for a factor of 1 (--- and +++)" },
	{ "delay-span", "TIME",	 S, "50ms", false, false, set_delay_span,
	  "maxDelay - minDelay at most, and while no congestion loss in 60 estimates showed it; "
	  "0.2 of it holds scavengers" },
	{ "delay-span-min", "TIME", S, "2ms", false, false, set_delay_span_min,
	  "delay, hybrid: the least queue that makes a loss congestion" },
	{ "delay-md", "NUM",	 S, "1.1", false, false, set_delay_md,
	  "delay, hybrid: W divided by this on congestion (>= 1)" },
	{ "delay-push", "NUM",	 S, "1.05", false, false, set_delay_push,
	  "hybrid: minDelay pushed by this a round trip while competing (>= 1)" },
	{ "delay-filter", "N",	 S, "2", false, false, set_delay_filter,
	  "the delay read is the least of the last N estimates' (1-16)" },
	{ "delay-drain", "yes|no", S, "no", false, false, set_delay_drain,
	  "delay, hybrid: a queue two delay-spans deep is drained, W under the bottleneck's rate" },
	{ "compete", "yes|no",	 S, "no", false, false, set_compete,
	  "loss, delay: beside elastic traffic, W at TCP's rate for 4 flows (compete.h)" },
	{ "loss-queue", "yes|no", S, "yes", false, false, set_loss_queue,
	  "loss: a loss cuts W only with a queue (delay-span-min) or when heavy" },
	{ "probe-interval", "TIME|off", S, "off", false, false, set_probe_interval,
	  "a delay probe this often, the delay rules' signal (20ms to 1s)" },
	{ "apply", "yes|no",	 S, "yes", false, false, set_apply,
	  "hand W to the qdisc; no: only report it (a shaper driven otherwise)" },
	{ "decay-after", "N",	 S, "3", false, false, set_decay_after,
	  "missed intervals in a row after which W halves each interval (0: never)" },
	{ "w-floor", "RATE",	 S, "1mbit", false, false, set_w_floor,
	  "where a decaying W stops (at most w-max)" },
	{ "peer-prefix", "PREFIX", R, NULL, true, true, set_peer_prefix,
	  "the sender's prefix: only its packets count (up to 4)" },
	{ "rate-limit", "N",	 R, "100", false, false, set_rate_limit,
	  "plain mode: responses a second to one source, 20 at once (0: none)" },
	{ "key-file", "FILE",	 BOTH, NULL, false, false, set_key_file,
	  "pre-shared key (>= 16 bytes): authenticated mode" },
	{ "plain", "yes|no",	 BOTH, "no", false, false, set_plain,
	  "no key: only where the path between the gateways is trusted" },
	{ "epoch-file", "FILE",	 S, ABWD_EPOCH_FILE, false, false, set_epoch_file,
	  "the last epoch, so a restart's is newer whatever the clock (none: the clock's)" },
	{ "status", "FILE",	 BOTH, NULL, false, false, set_status,
	  "JSON status file, rewritten each interval" },
};

#undef S
#undef R

static const struct key_def *find_key(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strcmp(keys[i].name, name))
			return &keys[i];
	return NULL;
}

bool conf_is_key(const char *key)
{
	return find_key(key);
}

static const char *role_name(enum role role)
{
	return role == ROLE_SENDER ? "sender" : "responder";
}

int cli_add(struct cli_settings *cli, const char *key, const char *val)
{
	struct setting *v;
	char *k;

	k = strdup(key);
	if (!k)
		return -1;
	v = realloc(cli->v, (cli->n + 1) * sizeof(*v));
	if (!v) {
		free(k);
		return -1;
	}
	cli->v = v;
	v[cli->n++] = (struct setting){ .key = k, .val = val };
	return 0;
}

void cli_free(struct cli_settings *cli)
{
	unsigned int i;

	for (i = 0; i < cli->n; i++)
		free((char *)cli->v[i].key);
	free(cli->v);
	memset(cli, 0, sizeof(*cli));
}

/* where a setting came from, as messages start: "FILE:LINE: " or "--KEY: " */
static const char *origin(char *buf, size_t len, const struct setting *s,
			  const char *key)
{
	if (!s)
		snprintf(buf, len, "%s (default)", key);
	else if (s->file)
		snprintf(buf, len, "%s:%u: %s", s->file, s->line, key);
	else
		snprintf(buf, len, "--%s", key);
	return buf;
}

/* the file's lines, as settings (strings owned by @buf) */
struct file_settings {
	struct setting *v;
	unsigned int n;
	char **lines;
};

static void file_free(struct file_settings *fs)
{
	unsigned int i;

	for (i = 0; i < fs->n; i++)
		free(fs->lines[i]);
	free(fs->lines);
	free(fs->v);
	memset(fs, 0, sizeof(*fs));
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int file_add(struct file_settings *fs, char *line, const char *key,
		    const char *val, const char *path, unsigned int lineno)
{
	struct setting *v;
	char **l;

	v = realloc(fs->v, (fs->n + 1) * sizeof(*v));
	if (!v)
		return -1;
	fs->v = v;
	l = realloc(fs->lines, (fs->n + 1) * sizeof(*l));
	if (!l)
		return -1;
	fs->lines = l;
	l[fs->n] = line;
	v[fs->n++] = (struct setting){ .key = key, .val = val, .file = path,
				       .line = lineno };
	return 0;
}

/*
 * one line of a configuration file: NULL @key for a blank or comment line
 * (# starts a comment at the start of a line or after a blank); -1 for a
 * line that is not "key = value"
 */
static int split_line(char *line, char **key, char **val)
{
	char *p, *eq;

	for (p = line; (p = strchr(p, '#')); p++) {
		if (p == line || isspace((unsigned char)p[-1])) {
			*p = '\0';
			break;
		}
	}
	p = trim(line);
	*key = NULL;
	if (!*p)
		return 0;
	eq = strchr(p, '=');
	if (!eq)
		return -1;
	*eq = '\0';
	*key = trim(p);
	*val = trim(eq + 1);
	return 0;
}

int conf_file_role(const char *path, enum role *role)
{
	char *line = NULL, *key, *val;
	size_t cap = 0;
	int ret = -1;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -1;
	while (ret < 0 && getline(&line, &cap, f) >= 0) {
		if (split_line(line, &key, &val) || !key || strcmp(key, "role"))
			continue;
		if (strcmp(val, "sender") && strcmp(val, "responder"))
			break;
		*role = strcmp(val, "sender") ? ROLE_RESPONDER : ROLE_SENDER;
		ret = 0;
	}
	free(line);
	fclose(f);
	return ret;
}

/*
 * "key = value" lines (split_line()). 0, or EXIT_USAGE after the message.
 */
static int read_file(const char *path, enum role role, struct file_settings *fs)
{
	const struct key_def *k;
	char *line = NULL, *key, *val, *dup;
	unsigned int lineno = 0;
	size_t cap = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		log_err("%s: cannot read the configuration: %s", path, strerror(errno));
		return EXIT_USAGE;
	}
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		if (split_line(line, &key, &val)) {
			log_err("%s:%u: expected \"key = value\"", path, lineno);
			goto fail;
		}
		if (!key)
			continue;
		k = find_key(key);
		if (!k) {
			log_err("%s:%u: unknown key \"%s\"", path, lineno, key);
			goto fail;
		}
		if (!strcmp(key, "role") && strcmp(val, role_name(role))) {
			log_err("%s:%u: role = %s, but this er2bc-abwd runs as the %s", path,
				lineno, val, role_name(role));
			goto fail;
		}
		if (!(k->roles & role)) {
			log_err("%s:%u: %s: not a key of the %s", path, lineno, key,
				role_name(role));
			goto fail;
		}
		dup = strdup(val);
		if (!dup) {
			log_err("out of memory");
			goto fail;
		}
		if (file_add(fs, dup, k->name, dup, path, lineno)) {
			free(dup);
			log_err("out of memory");
			goto fail;
		}
	}
	if (ferror(f)) {
		log_err("%s: cannot read the configuration: %s", path, strerror(errno));
		goto fail;
	}
	free(line);
	fclose(f);
	return 0;
fail:
	free(line);
	fclose(f);
	return EXIT_USAGE;
}

/*
 * The settings of key @k in @v[0..n), into @out (at most @max); twice for
 * a key that is not repeatable is an error. Returns how many, or -1.
 */
static int pick(const struct key_def *k, const struct setting *v, unsigned int n,
		const struct setting **out, unsigned int max)
{
	unsigned int i, found = 0;
	char where[PATH_MAX + 64];

	for (i = 0; i < n; i++) {
		if (strcmp(v[i].key, k->name))
			continue;
		if (found && !k->repeat) {
			log_err("%s: given twice", origin(where, sizeof(where), &v[i], k->name));
			return -1;
		}
		if (found == max) {
			log_err("%s: given more than %u times",
				origin(where, sizeof(where), &v[i], k->name), max);
			return -1;
		}
		out[found++] = &v[i];
	}
	return (int)found;
}

/* where each key's value came from (NULL: its default) */
struct sources {
	const struct setting *of[ARRAY_SIZE(keys)];
};

static const struct setting *src(const struct sources *s, const char *name)
{
	return s->of[find_key(name) - keys];
}

/*
 * A check between keys @a and @b failed: "ORIGIN: MESSAGE", ORIGIN the
 * place @a was set, or @b's if @a has its default. Returns EXIT_USAGE.
 */
static int cross_err(const struct sources *s, const char *a, const char *b,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int cross_err(const struct sources *s, const char *a, const char *b,
		     const char *fmt, ...)
{
	char where[PATH_MAX + 64], msg[256];
	const char *key = !src(s, a) && src(s, b) ? b : a;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_err("%s: %s", origin(where, sizeof(where), src(s, key), key), msg);
	return EXIT_USAGE;
}

static int cross_check(const struct config *c, const struct sources *s)
{
	const struct aimd_params *p = &c->aimd;
	char a[FMT_LEN], b[FMT_LEN];

	if (c->role != ROLE_SENDER)
		return 0;
	if (p->theta_l > p->theta_h)
		return cross_err(s, "theta-l", "theta-h", "theta-l (%llu) is above theta-h (%llu)",
				 (unsigned long long)p->theta_l,
				 (unsigned long long)p->theta_h);
	if (p->d_ini > p->d_max)
		return cross_err(s, "d-ini", "d-max", "d-ini (%s) is above d-max (%s)",
				 fmt_rate(a, p->d_ini), fmt_rate(b, p->d_max));
	if (p->w_max && p->w_max < p->w_min)
		return cross_err(s, "w-max", "w-min", "w-max (%s) is below w-min (%s)",
				 fmt_rate(a, p->w_max), fmt_rate(b, p->w_min));
	if (!c->w_ini_qdisc && p->w_ini < p->w_min)
		return cross_err(s, "w-ini", "w-min", "w-ini (%s) is below w-min (%s)",
				 fmt_rate(a, p->w_ini), fmt_rate(b, p->w_min));
	if (!c->w_ini_qdisc && p->w_max && p->w_ini > p->w_max)
		return cross_err(s, "w-ini", "w-max", "w-ini (%s) is above w-max (%s)",
				 fmt_rate(a, p->w_ini), fmt_rate(b, p->w_max));
	/* a default w-floor goes with w-min and w-max (sender.c); one given, not */
	if (src(s, "w-floor") && c->w_floor < p->w_min)
		return cross_err(s, "w-floor", "w-min", "w-floor (%s) is below w-min (%s)",
				 fmt_rate(a, c->w_floor), fmt_rate(b, p->w_min));
	if (src(s, "w-floor") && !c->w_max_qdisc && p->w_max && c->w_floor > p->w_max)
		return cross_err(s, "w-floor", "w-max", "w-floor (%s) is above w-max (%s)",
				 fmt_rate(a, c->w_floor), fmt_rate(b, p->w_max));
	if (c->delay.span_min_ns > c->delay.span_ns)
		return cross_err(s, "delay-span-min", "delay-span",
				 "delay-span-min (%s) is above delay-span (%s)",
				 fmt_time(a, c->delay.span_min_ns / 1000),
				 fmt_time(b, c->delay.span_ns / 1000));
	/* (hybrid's own test answers elastic traffic: two would fight over W) */
	if (c->compete && c->delay.mode == DELAY_MODE_HYBRID)
		return cross_err(s, "compete", "mode",
				 "compete (yes) is for mode loss or delay: hybrid has its own "
				 "answer to elastic traffic; set compete no, or mode delay");
	if (c->timeout_us > ABWD_PENDING_MAX * c->interval_us)
		return cross_err(s, "timeout", "interval",
				 "timeout (%s) is longer than %u intervals (%s)",
				 fmt_time(a, c->timeout_us), ABWD_PENDING_MAX,
				 fmt_time(b, c->interval_us));
	return 0;
}

int conf_load(struct config *c, enum role role, const char *path,
	      const struct cli_settings *cli)
{
	const struct setting *got[ER2BC_PEER_MAX];
	struct file_settings fs = { 0 };
	char where[PATH_MAX + 64];
	struct sources s = { 0 };
	const struct key_def *k;
	const char *why;
	unsigned int i, j;
	int n, ret = EXIT_USAGE;

	memset(c, 0, sizeof(*c));
	c->role = role;
	for (i = 0; i < cli->n; i++) {
		k = find_key(cli->v[i].key);
		if (!k || !(k->roles & role)) {
			log_err("--%s: not an option of the %s", cli->v[i].key,
				role_name(role));
			return EXIT_USAGE;
		}
	}
	if (path && read_file(path, role, &fs))
		goto out;

	for (k = keys; k < keys + ARRAY_SIZE(keys); k++) {
		if (!(k->roles & role))
			continue;
		/* the command line's, else the file's, else the default */
		n = pick(k, cli->v, cli->n, got, ARRAY_SIZE(got));
		if (!n)
			n = pick(k, fs.v, fs.n, got, ARRAY_SIZE(got));
		if (n < 0)
			goto out;
		if (!n && k->def) {
			if (k->set(c, k->def, &why)) {
				log_err("%s: bad default \"%s\": %s", k->name, k->def, why);
				goto out;
			}
			continue;
		}
		if (!n && k->required) {
			log_err("missing %s (--%s, or \"%s = ...\" in the configuration file)",
				k->name, k->name, k->name);
			goto out;
		}
		for (j = 0; j < (unsigned int)n; j++) {
			if (k->set(c, got[j]->val, &why)) {
				log_err("%s: invalid \"%s\": %s",
					origin(where, sizeof(where), got[j], k->name),
					got[j]->val, why);
				goto out;
			}
		}
		if (n)
			s.of[k - keys] = got[n - 1];
	}
	/* by default a response may be 3 s late: a deep queue at the bottleneck */
	if (role == ROLE_SENDER && !src(&s, "timeout"))
		c->timeout_us = ABWD_TIMEOUT_US < ABWD_PENDING_MAX * c->interval_us ?
				ABWD_TIMEOUT_US : ABWD_PENDING_MAX * c->interval_us;
	if (!c->key.len && !c->plain) {
		log_err("missing key-file (--key-file, or \"key-file = ...\" in the "
			"configuration file): the same secret at both ends; or plain = yes "
			"where the path between the gateways is trusted");
		goto out;
	}
	if (c->key.len && c->plain) {
		ret = cross_err(&s, "plain", "key-file",
				"plain = yes and a key-file: one or the other");
		goto out;
	}
	ret = cross_check(c, &s);
out:
	file_free(&fs);
	if (ret)
		explicit_bzero(&c->key, sizeof(c->key));
	return ret;
}

void conf_help(FILE *f, enum role role)
{
	const struct key_def *k;
	char name[40];

	for (k = keys; k < keys + ARRAY_SIZE(keys); k++) {
		if (!(k->roles & role))
			continue;
		snprintf(name, sizeof(name), "--%s %s", k->name, k->arg);
		fprintf(f, "  %-22s %s", name, k->help);
		if (k->def)
			fprintf(f, " [%s]", k->def);
		else if (k->required)
			fputs(" (required)", f);
		fputc('\n', f);
	}
}

/* "KEY = N.NNNNNN" for a value kept in millionths */
static void print_millionths(FILE *f, const char *key, uint64_t v)
{
	fprintf(f, "%s = %llu.%06llu\n", key, (unsigned long long)(v / AIMD_ONE),
		(unsigned long long)(v % AIMD_ONE));
}

/*
 * A time as fmt_time() writes it, or in us where that would round it
 * (1234567us, not 1.235s): what conf_print() writes parses back the same.
 */
static const char *fmt_period(char *buf, uint64_t us)
{
	const char *why;
	uint64_t back;

	if (!parse_time(fmt_time(buf, us), 1, &back, &why) && back == us)
		return buf;
	snprintf(buf, FMT_LEN, "%lluus", (unsigned long long)us);
	return buf;
}

void conf_print(FILE *f, const struct config *c)
{
	const struct aimd_params *p = &c->aimd;
	char b[FMT_LEN], addr[INET6_ADDRSTRLEN];
	unsigned int i;

	fprintf(f, "role = %s\n", role_name(c->role));
	if (c->role == ROLE_SENDER)
		fprintf(f, "peer = %s\n", c->peer_str);
	else
		fprintf(f, "listen = %s\n", c->listen_str);
	fprintf(f, "port = %u\n", c->port);
	fprintf(f, "dev = %s\n", c->dev);
	if (c->role == ROLE_SENDER) {
		fprintf(f, "handle = %s\n", fmt_handle(b, c->handle));
		fprintf(f, "interval = %s\n", fmt_period(b, c->interval_us));
		fprintf(f, "timeout = %s\n", fmt_period(b, c->timeout_us));
		fprintf(f, "mode = %s\n", delay_mode_name(c->delay.mode));
		fprintf(f, "theta-h = %llu\n", (unsigned long long)p->theta_h);
		fprintf(f, "theta-l = %llu\n", (unsigned long long)p->theta_l);
		fprintf(f, "d-ini = %llubit\n", (unsigned long long)p->d_ini);
		fprintf(f, "d-max = %llubit\n", (unsigned long long)p->d_max);
		print_millionths(f, "alpha", p->alpha);
		fprintf(f, "beta = %llubit\n", (unsigned long long)p->beta);
		if (c->w_ini_qdisc)
			fprintf(f, "w-ini = qdisc\n");
		else
			fprintf(f, "w-ini = %llubit\n", (unsigned long long)p->w_ini);
		fprintf(f, "w-min = %llubit\n", (unsigned long long)p->w_min);
		if (c->w_max_qdisc)
			fprintf(f, "w-max = qdisc\n");
		else
			fprintf(f, "w-max = %llubit\n", (unsigned long long)p->w_max);
		fprintf(f, "delay-step = %llubit\n", (unsigned long long)c->delay.step);
		fprintf(f, "delay-span = %s\n", fmt_period(b, c->delay.span_ns / 1000));
		fprintf(f, "delay-span-min = %s\n", fmt_period(b, c->delay.span_min_ns / 1000));
		print_millionths(f, "delay-md", c->delay.md);
		print_millionths(f, "delay-push", c->delay.push);
		fprintf(f, "delay-filter = %u\n", c->delay.filter);
		fprintf(f, "delay-drain = %s\n", c->delay.drain ? "yes" : "no");
		fprintf(f, "compete = %s\n", c->compete ? "yes" : "no");
		fprintf(f, "loss-queue = %s\n", c->loss_queue ? "yes" : "no");
		if (c->probe_interval_us)
			fprintf(f, "probe-interval = %s\n", fmt_period(b, c->probe_interval_us));
		else
			fprintf(f, "probe-interval = off\n");
		fprintf(f, "apply = %s\n", c->apply ? "yes" : "no");
		fprintf(f, "decay-after = %u\n", c->decay_after);
		fprintf(f, "w-floor = %llubit\n", (unsigned long long)c->w_floor);
	} else {
		for (i = 0; i < c->nprefix; i++)
			fprintf(f, "peer-prefix = %s/%u\n",
				inet_ntop(c->prefix[i].family, c->prefix[i].addr, addr,
					  sizeof(addr)), c->prefix[i].plen);
	}
	if (c->key_file[0])
		fprintf(f, "key-file = %s\n", c->key_file);
	if (c->role == ROLE_SENDER)
		fprintf(f, "epoch-file = %s\n", c->epoch_file[0] ? c->epoch_file : "none");
	if (c->plain)
		fprintf(f, "plain = yes\n");
	if (c->role == ROLE_RESPONDER)
		fprintf(f, "rate-limit = %u\n", c->rate_limit);
	if (c->status[0])
		fprintf(f, "status = %s\n", c->status);
}
