// SPDX-License-Identifier: GPL-2.0
/*
 * The receiving gateway's side: a meter on the device the peer's packets
 * arrive on, and for each request the meter's snapshot of that very
 * request (P_r, B_r, T_r) sent back. The meter stays when the responder
 * exits, so that a responder that restarts resumes the counts.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "abwd.h"
#include "daemon.h"
#include "json.h"
#include "kern.h"
#include "sock.h"

/* the status file is rewritten at most this often, when something changed */
#define STATUS_EVERY_NS		1000000000ULL

/*
 * The responses to one source are limited to rate-limit a second, RL_BURST
 * at once (GCRA: a response is due no earlier than tat - RL_BURST
 * intervals), for the last RL_SOURCES sources: a responder is nobody's
 * reflector. Only in plain mode (in authenticated mode a response goes
 * only to a request with a good tag that is newer than the last, which a
 * spoofer cannot make), and only for requests that passed every check: a
 * spoofer cannot use up the sender's share.
 */
#define RL_SOURCES		16
#define RL_BURST		20

struct rl_source {
	uint8_t addr[16];
	int family;			/* 0: unused */
	uint64_t tat;			/* mono ns: the theoretical arrival time */
	uint64_t used;			/* mono ns: last seen, for eviction */
};

struct responder {
	struct config c;
	struct nl nl;
	int fd;
	struct replay replay;		/* authenticated mode only */
	struct replay32 probe_replay;	/* the delay probes': authenticated mode only */
	/*
	 * the kernel stamps what arrives (sock_rx_stamps()): asked for at
	 * the first probe; a probe it did not stamp is echoed with the time
	 * it was read
	 */
	bool rx_stamps;

	uint64_t requests, responses, no_snapshot, send_errors, rate_limited;
	uint64_t probes, echoes, unstamped, probes_limited;
	/*
	 * The sender's hellos (wire.h): answered with this side's versions,
	 * RL_HELLOS a second from one source; the last one's versions, when
	 * it came (unix seconds; 0: none yet, as from a sender that speaks
	 * protocol 1) and the requests taken by then
	 */
	uint64_t hellos, hellos_limited;
	uint16_t peer_protocol;
	char peer_release[WIRE_RELEASE_LEN + 1];
	uint64_t peer_hello_at, hello_requests;
	uint64_t started_at;		/* unix seconds */
	struct replay32 hello_replay;	/* authenticated mode only */
	struct rl_source rl_hello[RL_SOURCES];
	struct rl_source rl_src[RL_SOURCES];
	/* the probes' own: they do not use up the requests' share */
	struct rl_source rl_probe[RL_SOURCES];
	/* the meter's own refusals, read as the status file is written */
	uint64_t meter_unauth, meter_replayed;
	uint64_t dropped[WIRE_NVERDICTS];
	char last_error[640];
	bool dirty;			/* the status file is behind */
	uint64_t status_at;		/* mono ns: when it was written */

	struct ratelimit rl_drop[WIRE_NVERDICTS];
	struct ratelimit rl_snap;
	struct ratelimit rl_limit;
	struct ratelimit rl_io;

	/*
	 * No meter: the device is not there (yet), or went away. Requests
	 * get no response; the responder looks for the device again, by its
	 * name, at retry, after a back-off that doubles up to 30 s.
	 */
	bool metered;
	uint64_t retry;			/* mono ns */
	uint32_t backoff_ms;
	char waiting[400];		/* why, as logged; "": not waiting */
};

/* the meter on c->dev: 0, or -1 after the message */
static int meter_set(struct nl *nl, const struct config *c)
{
	struct nl_err err;
	char msg[300];
	int ret;

	ret = kern_meter_set(nl, c->ifindex, c->port, c->prefix, c->nprefix,
			     c->key.data, c->key.len, &err);
	if (ret) {
		log_err("meter-set dev %s: %s", c->dev,
			kern_strerror(msg, sizeof(msg), &err, ret));
		return -1;
	}
	return 0;
}

/*
 * The meter on the device called c.dev, whatever its ifindex now (a tunnel
 * recreated has another): set, or, if there is no such device, why logged
 * when it changes and the next try after the back-off. 0, or -1 on an
 * error no wait mends (no CAP_NET_ADMIN, the family gone, a meter the
 * kernel refuses).
 */
static int try_meter(struct responder *r, uint64_t now)
{
	struct nl_err err;
	char msg[300], why[sizeof(r->waiting)];
	int ret = -ENODEV;

	r->c.ifindex = if_nametoindex(r->c.dev);
	if (!r->c.ifindex) {
		snprintf(why, sizeof(why), "dev %s: no such device", r->c.dev);
	} else {
		ret = kern_meter_set(&r->nl, r->c.ifindex, r->c.port, r->c.prefix,
				     r->c.nprefix, r->c.key.data, r->c.key.len, &err);
		if (ret)
			snprintf(why, sizeof(why), "meter-set dev %s: %s", r->c.dev,
				 kern_strerror(msg, sizeof(msg), &err, ret));
	}
	/* only a device that is not there is waited for; anything else the
	 * kernel refuses, no wait mends */
	if (ret && ret != -ENODEV) {
		log_err("%s", why);
		return -1;
	}
	if (ret) {
		if (strcmp(why, r->waiting)) {
			log_warn("%s: waiting for it", why);
			snprintf(r->waiting, sizeof(r->waiting), "%s", why);
			snprintf(r->last_error, sizeof(r->last_error), "%s", why);
			r->dirty = true;
		}
		r->retry = daemon_backoff(&r->backoff_ms, now);
		return 0;
	}
	if (r->waiting[0])
		log_msg("dev %s (ifindex %u): there, the meter set", r->c.dev, r->c.ifindex);
	r->metered = true;
	r->waiting[0] = '\0';
	r->backoff_ms = 0;
	r->dirty = true;
	return 0;
}

static int open_socket(const struct config *c)
{
	struct sockaddr_storage ss = c->listen;
	int fd;

	sock_set_port(&ss, c->port);
	fd = sock_open((struct sockaddr *)&ss, c->listen_len, true);
	if (fd == -EAFNOSUPPORT && ss.ss_family == AF_INET6 &&
	    IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)&ss)->sin6_addr)) {
		/* :: on a host without IPv6: IPv4 only, then */
		struct sockaddr_in any4 = {
			.sin_family = AF_INET,
			.sin_port = htons(c->port),
		};

		log_warn("no IPv6: listening on 0.0.0.0 instead of ::");
		fd = sock_open((struct sockaddr *)&any4, sizeof(any4), true);
	}
	if (fd < 0) {
		log_err("cannot listen on %s port %u: %s", c->listen_str, c->port,
			strerror(-fd));
		return -1;
	}
	return fd;
}

static void write_status(struct responder *r)
{
	struct status_file sf;
	struct json j;
	FILE *f;
	int ret;

	struct probe_state st;
	struct nl_err err;
	uint64_t now_s, since;

	r->dirty = false;
	r->status_at = mono_ns();
	if (!r->c.status[0])
		return;
	/* the meter's refusals as they stand, even if it refuses every request */
	if (r->metered && !kern_meter_get(&r->nl, r->c.ifindex, NULL, 0, &st, &err)) {
		r->meter_unauth = st.unauth;
		r->meter_replayed = st.replayed;
	}
	f = status_open(&sf, r->c.status);
	if (!f) {
		log_warn("status %s: %s", r->c.status, strerror(errno));
		return;
	}
	json_init(&j, f, true);
	json_obj_open(&j, NULL);
	json_str(&j, "role", "responder");
	json_str(&j, "listen", r->c.listen_str);
	json_u64(&j, "port", r->c.port);
	json_str(&j, "dev", r->c.dev);
	json_u64(&j, "meter_ifindex", r->c.ifindex);
	json_u64(&j, "peer_prefixes", r->c.nprefix);
	json_bool(&j, "auth", r->c.key.len);
	json_u64(&j, "unix_time_seconds", real_ns() / 1000000000ULL);
	json_u64(&j, "requests", r->requests);
	json_u64(&j, "responses", r->responses);
	json_u64(&j, "no_snapshot", r->no_snapshot);
	json_u64(&j, "send_errors", r->send_errors);
	json_obj_open(&j, "probes");
	json_u64(&j, "received", r->probes);
	json_u64(&j, "echoed", r->echoes);
	json_u64(&j, "unstamped", r->unstamped);
	json_u64(&j, "rate_limited", r->probes_limited);
	json_obj_close(&j);
	json_u64(&j, "protocol", WIRE_PROTOCOL);
	json_str(&j, "release", abwd_release());
	/*
	 * the sender's, from its last hello (none from a sender of protocol
	 * 1), and the requests and seconds since it (since the start, before
	 * one): er2bcctl status judges a sender that stopped saying hello
	 */
	json_obj_open(&j, "peer_versions");
	json_u64(&j, "hellos", r->hellos);
	json_u64(&j, "hellos_rate_limited", r->hellos_limited);
	json_u64(&j, "requests_since", r->requests - r->hello_requests);
	now_s = real_ns() / 1000000000ULL;
	since = r->peer_hello_at ? r->peer_hello_at : r->started_at;
	json_u64(&j, "seconds_since", now_s > since ? now_s - since : 0);
	if (r->peer_hello_at) {
		json_u64(&j, "protocol", r->peer_protocol);
		json_str(&j, "release", r->peer_release);
		json_u64(&j, "unix_time_seconds", r->peer_hello_at);
	}
	json_obj_close(&j);
	json_u64(&j, "rate_limit_per_second", r->c.rate_limit);
	json_u64(&j, "rate_limited", r->rate_limited);
	json_dropped(&j, r->dropped);
	json_obj_open(&j, "meter_refused");
	json_u64(&j, "unauthenticated", r->meter_unauth);
	json_u64(&j, "replayed", r->meter_replayed);
	json_obj_close(&j);
	json_str(&j, "last_error", r->last_error);
	json_obj_close(&j);
	json_end(&j);
	ret = status_commit(&sf);
	if (ret)
		log_warn("status %s: %s", r->c.status, strerror(-ret));
}

/* is the source one of the peer prefixes (any, if there are none) */
static bool from_peer(const struct config *c, const struct sockaddr *from)
{
	uint8_t addr[16];
	unsigned int i;
	int af;

	if (!c->nprefix)
		return true;
	af = sock_ip(from, addr);
	for (i = 0; i < c->nprefix; i++)
		if (prefix_match(&c->prefix[i], af, addr))
			return true;
	return false;
}

/* may @from have one more now, at @rate a second from one source (0: any) */
static bool rate_ok_in(struct rl_source *src, uint32_t rate, const struct sockaddr *from,
		       uint64_t now)
{
	struct rl_source *e = NULL, *oldest = &src[0];
	uint64_t step, burst;
	uint8_t addr[16] = { 0 };
	unsigned int i;
	int af;

	if (!rate)
		return true;
	af = sock_ip(from, addr);
	for (i = 0; i < RL_SOURCES && !e; i++) {
		if (src[i].family == af && !memcmp(src[i].addr, addr, 16))
			e = &src[i];
		else if (src[i].used < oldest->used)
			oldest = &src[i];
	}
	if (!e) {
		e = oldest;
		*e = (struct rl_source){ .family = af, .tat = now };
		memcpy(e->addr, addr, 16);
	}
	e->used = now;
	step = 1000000000ULL / rate;
	burst = RL_BURST * step;
	if (e->tat > now + burst)
		return false;
	e->tat = (e->tat > now ? e->tat : now) + step;
	return true;
}

/* may @from have a response now (rate-limit, per source) */
static bool rate_ok(struct responder *r, const struct sockaddr *from, uint64_t now)
{
	return rate_ok_in(r->rl_src, r->c.rate_limit, from, now);
}

/*
 * may @from have an echo now: the probes have a share of their own, as
 * many a second as the shortest probe-interval sends (and rate-limit, if
 * more), so that probes never use up the requests' share
 */
#define RL_PROBES	50

static bool probe_rate_ok(struct responder *r, const struct sockaddr *from, uint64_t now)
{
	return rate_ok_in(r->rl_probe, !r->c.rate_limit ? 0 : r->c.rate_limit > RL_PROBES ?
			  r->c.rate_limit : RL_PROBES, from, now);
}

/* a datagram dropped (@v), counted and logged; @what names its kind */
static void drop(struct responder *r, enum wire_verdict v, const struct sockaddr *sa,
		 ssize_t n, const char *what)
{
	char addr[ADDR_STRLEN];

	r->dropped[v]++;
	log_limited(&r->rl_drop[v], "dropped a datagram from %s (%s, %zd bytes%s)",
		    fmt_addr(addr, sizeof(addr), sa), wire_verdict_name(v), n, what);
}

/*
 * The meter is gone: its device deleted (a tunnel brought down; one may
 * come back under the name) or the meter deleted. The main loop sets it
 * again, on the device that has the name then.
 */
static void meter_lost(struct responder *r)
{
	r->metered = false;
	r->backoff_ms = 0;
	r->retry = mono_ns();
	snprintf(r->waiting, sizeof(r->waiting), "dev %s (ifindex %u): the meter is gone",
		 r->c.dev, r->c.ifindex);
	log_msg("%s: setting it again", r->waiting);
}

/*
 * A delay probe (dense.h): its echo, with the time it arrived in
 * CLOCK_MONOTONIC, as a response's T_r. Checked as a request is (the
 * peer prefixes, the tag and its own replay window, plain mode's rate
 * limit, which it shares with the requests), but no meter is asked: the
 * probe counts as data at both gateways.
 */
static void on_probe(struct responder *r, const uint8_t *buf, ssize_t n,
		     const struct sockaddr *sa, socklen_t from_len, const struct pktinfo *pi)
{
	uint8_t out[WIRE_MAX_LEN];
	char addr[ADDR_STRLEN];
	struct wire_probe p;
	struct wire_echo e;
	enum wire_verdict v;
	uint64_t now = mono_ns();
	size_t len;
	int ret;

	v = wire_probe_decode(buf, (size_t)n, &r->c.key, &p);
	if (v == WIRE_OK && !from_peer(&r->c, sa))
		v = WIRE_UNEXPECTED;
	else if (v == WIRE_OK && r->c.key.len && !replay32_newer(&r->probe_replay, p.epoch, p.seq))
		v = WIRE_REPLAYED;
	if (v != WIRE_OK) {
		drop(r, v, sa, n, ", a probe");
		return;
	}
	if (r->c.key.len)
		replay32_accept(&r->probe_replay, p.epoch, p.seq);
	r->probes++;
	if (!r->c.key.len && !probe_rate_ok(r, sa, now)) {
		r->probes_limited++;
		log_limited(&r->rl_limit, "no echo to %s: more than %u probes a second "
			    "(rate-limit, at least %u for the probes)", fmt_addr(addr, sizeof(addr), sa),
			    r->c.rate_limit > RL_PROBES ? r->c.rate_limit : RL_PROBES, RL_PROBES);
		return;
	}
	if (!r->rx_stamps) {
		r->rx_stamps = true;
		ret = sock_rx_stamps(r->fd);
		if (ret)
			log_warn("no receive timestamps (%s): the probes' arrival is the time "
				 "they are read", strerror(-ret));
	}
	e = (struct wire_echo){
		.seq = p.seq,
		.time = pi->stamp_ns ? real_to_mono(pi->stamp_ns) : 0,
		.epoch = p.epoch,
	};
	/* a stamp from the future or over a second old: the clock stepped in between */
	if (e.time > now || now - e.time > 1000000000ULL)
		e.time = 0;
	if (!e.time) {
		r->unstamped++;
		e.time = now;
	}
	len = wire_echo_encode(out, &e, &r->c.key);
	ret = sock_send(r->fd, out, len, sa, from_len, pi);
	if (ret) {
		r->send_errors++;
		snprintf(r->last_error, sizeof(r->last_error), "echo %u to %s: %s",
			 p.seq, fmt_addr(addr, sizeof(addr), sa), strerror(-ret));
		log_limited(&r->rl_io, "%s", r->last_error);
		return;
	}
	r->echoes++;
}

/*
 * A hello (wire.h): this side's versions back, the hello's seq and epoch
 * with them. Checked as a request is (the peer prefixes; authenticated,
 * the tag and a replay window of its own, and no epoch older than the
 * newest request's: a sender since restarted, perhaps on another
 * release). No meter is asked: hello and reply count as data at both
 * gateways. Every source has RL_HELLOS a second (a burst of RL_BURST), in
 * both modes, for the hellos that passed those checks: a reply is as
 * large as its hello, and the sender sends one a second at most. In
 * plain mode, as for everything, anyone who can send from the peer's
 * addresses can say any version.
 */
#define RL_HELLOS	1

static void on_hello(struct responder *r, const uint8_t *buf, ssize_t n,
		     const struct sockaddr *sa, socklen_t from_len, const struct pktinfo *pi)
{
	uint8_t out[WIRE_MAX_LEN];
	char addr[ADDR_STRLEN];
	struct wire_hello h;
	enum wire_verdict v;
	size_t len;
	int ret;

	v = wire_hello_decode(buf, (size_t)n, WIRE_HELLO, &r->c.key, &h);
	if (v == WIRE_OK && !from_peer(&r->c, sa))
		v = WIRE_UNEXPECTED;
	else if (v == WIRE_OK && r->c.key.len && ((r->replay.have && h.epoch < r->replay.epoch) ||
						   !replay32_newer(&r->hello_replay, h.epoch, h.seq)))
		v = WIRE_REPLAYED;
	if (v != WIRE_OK) {
		drop(r, v, sa, n, ", a hello");
		return;
	}
	if (r->c.key.len)
		replay32_accept(&r->hello_replay, h.epoch, h.seq);
	if (!rate_ok_in(r->rl_hello, RL_HELLOS, sa, mono_ns())) {
		r->hellos_limited++;
		return;
	}
	r->hellos++;
	r->hello_requests = r->requests;
	if (!r->peer_hello_at || h.protocol != r->peer_protocol ||
	    strcmp(h.release, r->peer_release))
		log_msg("the sender at %s runs er2bc %s, protocol %u; this side %s, protocol %u",
			fmt_addr(addr, sizeof(addr), sa), h.release, h.protocol, abwd_release(),
			WIRE_PROTOCOL);
	r->peer_protocol = h.protocol;
	snprintf(r->peer_release, sizeof(r->peer_release), "%s", h.release);
	r->peer_hello_at = real_ns() / 1000000000ULL;
	h = (struct wire_hello){
		.type = WIRE_HELLO_REPLY,
		.protocol = WIRE_PROTOCOL,
		.seq = h.seq,
		.epoch = h.epoch,
	};
	snprintf(h.release, sizeof(h.release), "%s", abwd_release());
	len = wire_hello_encode(out, &h, &r->c.key);
	ret = sock_send(r->fd, out, len, sa, from_len, pi);
	if (ret) {
		r->send_errors++;
		snprintf(r->last_error, sizeof(r->last_error), "hello reply to %s: %s",
			 fmt_addr(addr, sizeof(addr), sa), strerror(-ret));
		log_limited(&r->rl_io, "%s", r->last_error);
	}
}

static void on_datagram(struct responder *r, const uint8_t *buf, ssize_t n,
			const struct sockaddr_storage *from, socklen_t from_len,
			const struct pktinfo *pi)
{
	const struct sockaddr *sa = (const struct sockaddr *)from;
	uint8_t out[WIRE_MAX_LEN];
	struct probe_state st;
	struct wire_resp resp;
	struct wire_req req;
	enum wire_verdict v;
	char addr[ADDR_STRLEN], msg[300];
	struct nl_err err;
	size_t len;
	int ret;

	r->dirty = true;
	if (n <= WIRE_MAX_LEN && wire_type(buf, (size_t)n) == WIRE_PROBE) {
		on_probe(r, buf, n, sa, from_len, pi);
		return;
	}
	if (n <= WIRE_MAX_LEN && wire_type(buf, (size_t)n) == WIRE_HELLO) {
		on_hello(r, buf, n, sa, from_len, pi);
		return;
	}
	if (n > WIRE_MAX_LEN)
		v = WIRE_MALFORMED;
	else
		v = wire_req_decode(buf, (size_t)n, &r->c.key, &req);
	if (v == WIRE_OK && !from_peer(&r->c, sa))
		v = WIRE_UNEXPECTED;
	else if (v == WIRE_OK && r->c.key.len && !replay_newer(&r->replay, req.epoch, req.seq))
		v = WIRE_REPLAYED;
	if (v != WIRE_OK) {
		drop(r, v, sa, n, "");
		return;
	}
	if (r->c.key.len)
		replay_accept(&r->replay, req.epoch, req.seq);
	r->requests++;
	/* plain mode: in authenticated mode only the sender gets this far */
	if (!r->c.key.len && !rate_ok(r, sa, mono_ns())) {
		r->rate_limited++;
		log_limited(&r->rl_limit, "no response to %s: more than %u a second "
			    "(rate-limit)", fmt_addr(addr, sizeof(addr), sa), r->c.rate_limit);
		return;
	}

	/* the key is the request's body as it arrived, without the zeros */
	ret = r->metered ? kern_meter_get(&r->nl, r->c.ifindex, buf,
					  wire_req_body_len(r->c.key.len), &st, &err) :
			   -ENODEV;
	/* no snapshot for this request, or no meter any more? */
	if (ret && r->metered && kern_meter_get(&r->nl, r->c.ifindex, NULL, 0, &st, &err))
		meter_lost(r);
	if (ret && !r->metered) {
		r->no_snapshot++;
		snprintf(r->last_error, sizeof(r->last_error), "%s", r->waiting);
		return;
	}
	if (ret) {
		r->no_snapshot++;
		kern_strerror(msg, sizeof(msg), &err, ret);
		snprintf(r->last_error, sizeof(r->last_error),
			 "meter-get for request %u from %s: %s", req.seq,
			 fmt_addr(addr, sizeof(addr), sa), msg);
		log_limited(&r->rl_snap, "%s%s", r->last_error,
			    ret == -ENOENT ? " (did it arrive on the meter's device?)" : "");
		return;
	}
	resp = (struct wire_resp){
		.seq = req.seq,
		.packets = st.packets,
		.bytes = st.bytes,
		.time = st.time,
		.epoch = req.epoch,
	};
	len = wire_resp_encode(out, &resp, &r->c.key);
	ret = sock_send(r->fd, out, len, sa, from_len, pi);
	if (ret) {
		r->send_errors++;
		snprintf(r->last_error, sizeof(r->last_error), "response %u to %s: %s",
			 req.seq, fmt_addr(addr, sizeof(addr), sa), strerror(-ret));
		log_limited(&r->rl_io, "%s", r->last_error);
		return;
	}
	r->responses++;
	if (verbose)
		log_msg("request %u from %s: packets %llu bytes %llu time %llu", req.seq,
			fmt_addr(addr, sizeof(addr), sa), (unsigned long long)st.packets,
			(unsigned long long)st.bytes, (unsigned long long)st.time);
}

static void datagram(void *ctx, const struct datagram *d)
{
	on_datagram(ctx, d->buf, d->len, &d->from, d->from_len, &d->pi);
}

static bool same_meter(const struct config *a, const struct config *b)
{
	return !strcmp(a->dev, b->dev) && a->port == b->port &&
	       a->nprefix == b->nprefix &&
	       !memcmp(a->prefix, b->prefix, sizeof(a->prefix[0]) * a->nprefix) &&
	       a->key.len == b->key.len && !memcmp(a->key.data, b->key.data, a->key.len);
}

/*
 * SIGHUP: a new socket if the address or port changed, the meter set anew
 * if it did; anything failing keeps the configuration in force. A device
 * that is not there (yet) is waited for, as at the start. A meter left
 * behind on another device is deleted.
 */
static void reload(const struct daemon *d, struct responder *r)
{
	struct nl_err err;
	struct config nc;
	bool meter;
	char msg[300];
	int fd = -1, ret;

	if (daemon_reload(d, &nc)) {
		log_warn("SIGHUP: keeping the configuration in force");
		return;
	}
	meter = !same_meter(&nc, &r->c) || !r->metered;
	nc.ifindex = if_nametoindex(nc.dev);
	if (memcmp(&nc.listen, &r->c.listen, sizeof(nc.listen)) || nc.port != r->c.port) {
		fd = open_socket(&nc);
		if (fd < 0) {
			log_warn("SIGHUP: keeping the configuration in force");
			goto out;
		}
	}
	if (meter && nc.ifindex && meter_set(&r->nl, &nc)) {
		if (fd >= 0)
			close(fd);
		log_warn("SIGHUP: keeping the configuration in force");
		goto out;
	}
	if (r->metered && nc.ifindex != r->c.ifindex) {
		ret = kern_meter_del(&r->nl, r->c.ifindex, &err);
		if (ret && ret != -ENOENT && ret != -ENODEV)
			log_warn("meter-del dev %s: %s", r->c.dev,
				 kern_strerror(msg, sizeof(msg), &err, ret));
	}
	if (fd >= 0) {
		close(r->fd);
		r->fd = fd;
		r->rx_stamps = false;	/* a new socket: asked for again */
	}
	r->c = nc;
	if (meter) {
		r->metered = nc.ifindex;
		r->waiting[0] = '\0';
		r->backoff_ms = 0;
		r->retry = mono_ns();
	}
	log_msg("reloaded: listening on %s port %u, meter on dev %s%s", r->c.listen_str,
		r->c.port, r->c.dev, r->metered ? "" : " (not there yet)");
	write_status(r);
out:
	explicit_bzero(&nc.key, sizeof(nc.key));
}

int run_responder(const struct daemon *d, struct config *c)
{
	struct responder *r;
	struct pollfd pfd[2];
	uint64_t now;
	int sigfd, ret = EXIT_FAIL, timeout, wait_ms;

	r = calloc(1, sizeof(*r));
	if (!r) {
		log_err("out of memory");
		return EXIT_FAIL;
	}
	r->c = *c;
	r->fd = -1;
	r->started_at = real_ns() / 1000000000ULL;
	if (daemon_kern_open(&r->nl)) {
		free(r);
		return EXIT_FAIL;
	}
	r->fd = open_socket(&r->c);
	if (r->fd < 0 || try_meter(r, mono_ns()))
		goto out;
	sigfd = signals_open();
	if (sigfd < 0) {
		log_err("signalfd: %s", strerror(-sigfd));
		goto out;
	}
	log_msg("responder: listening on %s port %u, meter on dev %s%s", r->c.listen_str,
		r->c.port, r->c.dev, r->c.key.len ? ", authenticated" : "");
	write_status(r);
	daemon_notify("READY=1");

	for (;;) {
		now = mono_ns();
		if (!r->metered && now >= r->retry && try_meter(r, now))
			break;
		timeout = -1;
		if (r->dirty) {
			if (now >= r->status_at + STATUS_EVERY_NS)
				write_status(r);
			else
				timeout = (int)((r->status_at + STATUS_EVERY_NS - now) / 1000000) + 1;
		}
		if (!r->metered) {
			wait_ms = daemon_poll_ms(now, r->retry);
			if (timeout < 0 || wait_ms < timeout)
				timeout = wait_ms;
		}
		pfd[0] = (struct pollfd){ .fd = r->fd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = sigfd, .events = POLLIN };
		if (poll(pfd, 2, timeout) < 0) {
			if (errno == EINTR)
				continue;
			log_err("poll: %s", strerror(errno));
			break;
		}
		if (pfd[1].revents) {
			enum sig_action a = signals_read(sigfd);

			if (a == SIG_STOP) {
				if (r->metered)
					log_msg("stopping (the meter on dev %s stays)", r->c.dev);
				else
					log_msg("stopping");
				daemon_notify("STOPPING=1");
				ret = 0;
				break;
			}
			if (a == SIG_RELOAD) {
				daemon_notify("RELOADING=1");
				reload(d, r);
				daemon_notify("READY=1");
			}
		}
		if (pfd[0].revents)
			read_datagrams(r->fd, datagram, r, r->last_error, sizeof(r->last_error),
				       &r->rl_io);
	}
	write_status(r);
	close(sigfd);
out:
	if (r->fd >= 0)
		close(r->fd);
	nl_close(&r->nl);
	explicit_bzero(&r->c.key, sizeof(r->c.key));
	free(r);
	return ret;
}
