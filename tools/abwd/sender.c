// SPDX-License-Identifier: GPL-2.0
/*
 * The sending gateway's side: every interval a read request to the
 * responder; for each response, P_s from the qdisc's snapshot of that very
 * request, then L(t), R(t-1) and the new W(t), handed to the qdisc.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/random.h>

#include "abwd.h"
#include "daemon.h"
#include "interval.h"
#include "json.h"
#include "epoch.h"
#include "compete.h"
#include "dense.h"
#include "kern.h"
#include "load.h"
#include "parse.h"
#include "sock.h"

struct sender {
	struct config c;
	struct nl nl;
	int fd;				/* the UDP socket */
	uint32_t mark;			/* its SO_MARK: the qdisc's probe-mark */
	struct sockaddr_storage peer;	/* c.peer with c.port */
	uint64_t epoch;			/* epoch.h: newer at each start */
	uint16_t next_seq;
	uint16_t answered_seq;		/* the last request answered */

	/*
	 * The requests awaiting their responses, oldest first. A request
	 * waits behind the bottleneck's queue, which may hold more than an
	 * interval: its response is as good late as early, until timeout.
	 * Responses come back in order, so one for a request makes those
	 * sent before it lost.
	 */
	struct pending {
		uint16_t seq;
		uint8_t key[WIRE_MAX_LEN];	/* its payload; its body: the qdisc's key */
		size_t len;
		uint64_t sent_ns;		/* mono ns */
		uint64_t deadline;		/* mono ns: a timeout after */
	} pend[ABWD_PENDING_MAX];
	unsigned int npend;
	uint64_t next_tick;		/* mono ns: the next request */

	/*
	 * The delay probes (probe-interval, dense.h): their own socket,
	 * whose datagrams the kernel stamps as they leave the device, so
	 * that the counts of stamps (its keys) and probes stay in step.
	 */
	int pfd;			/* -1: no probes */
	struct dense dense;
	uint32_t probe_seq;		/* the next probe's; probe_key's too */
	uint64_t next_probe;		/* mono ns */
	uint64_t probe_since;		/* the last read's newest probe (dense_read()) */
	struct dense_read dread;	/* the last estimate's read */
	bool levels_warned;		/* qdisc_levels() failed, not yet since succeeded */
	uint64_t probe_send_errors, probe_reads, probe_reopens;
	bool probe_no_stamps_logged;
	bool probe_resync;		/* a send failed: the socket opened again first */
	bool probe_source;		/* the last estimate's delay was the probes' */
	bool have_source;		/* an estimate read a delay (probe_source holds) */

	struct interval iv;
	struct aimd aimd;
	/* the delay rule (mode delay or hybrid): its state, its last sample */
	struct delay_state dly;
	/*
	 * each source's delays all along, whichever W reads: its base for
	 * dly when the source changes (delay_rebase())
	 */
	struct delay_state dly_req, dly_probe;
	/* whether estimates measured the path or the demand (load.h) */
	struct load load;
	/* the loss rule beside elastic cross traffic (compete.h) */
	struct compete cmp;
	/* loss-queue: the link's own loss rate (load.h) */
	struct linkloss linkloss;
	bool no_time_logged;		/* a sample without a dequeue time logged */
	enum delay_cmd last_cmd;
	char rule_buf[48];		/* a rule's name with a qualifier, for the log */
	uint32_t hold_us;		/* the last scavenger-hold handed over */
	bool no_hold;			/* the module refused scavenger-hold */
	bool have_tr;
	uint64_t last_tr;		/* the last accepted response's T_r */
	uint32_t quiet_misses;		/* timeouts in a row not logged */
	uint32_t decayed_at;		/* quiet_misses at the last decay */

	/* what the status file shows */
	uint64_t requests, responses, estimates, timeouts, missed_intervals;
	uint64_t discontinuities, negative_loss, zero_intervals, no_snapshot;
	uint64_t foreign, foreign_packets, uncredited_bytes;
	uint64_t abw_set_failures, decays;
	uint64_t dropped[WIRE_NVERDICTS];
	uint32_t est_seq;		/* the last estimate's number */
	struct iv_estimate last;	/* the last estimate's inputs */
	int64_t last_l;			/* its L before clamping at 0 */
	char last_error[640];
	char abw_error[300];		/* the last abw-set's error; "": it worked */

	uint64_t once;			/* --once: stop after this many; 0: never */

	/*
	 * Hellos (wire.h): the responder's versions, asked with the first
	 * request, then after HELLO_RETRY requests and HELLO_RETRY_NS while
	 * they are not known, after HELLO_EVERY and HELLO_EVERY_NS once
	 * they are (protocol 1 too: it may be upgraded any time). A
	 * responder that answered requests but not HELLO_UNANSWERED hellos
	 * in a row, and never one in this run, speaks protocol 1.
	 */
	uint32_t hello_seq;		/* the hello awaited's; the next is one more */
	bool hello_waiting;		/* one is awaited */
	uint64_t hello_responses;	/* responses when it was sent */
	uint64_t hello_next;		/* requests sent when the next may go; 0: with the next */
	uint64_t hello_next_ns;		/* mono ns, and not before */
	uint32_t hello_unanswered;	/* in a row, responses coming meanwhile */
	bool hello_answered;		/* one was, in this run (with this peer) */
	uint64_t hellos_sent, hellos_answered;
	uint16_t peer_protocol;		/* 0: not known yet */
	char peer_release[WIRE_RELEASE_LEN + 1];	/* "": not known (protocol 1 says none) */

	/*
	 * Not attached: the device or its qdisc is not there (yet), or not
	 * as the configuration says. No request is sent; the sender looks
	 * again at retry, after a back-off that doubles up to 30 s.
	 */
	bool attached;
	bool recheck;			/* the main loop calls refresh_mark() */
	uint64_t retry;			/* mono ns */
	uint32_t backoff_ms;
	char waiting[400];		/* why, as logged; "": not waiting */

	struct ratelimit rl_drop[WIRE_NVERDICTS];
	struct ratelimit rl_snap;	/* probe-get failures */
	struct ratelimit rl_io;		/* socket errors */
	struct ratelimit rl_mark;	/* SO_MARK failures */
	struct ratelimit rl_foreign;	/* foreign estimates (interval.h) */
	struct ratelimit rl_negative;	/* L < 0 within the slack */
	struct ratelimit rl_probe;	/* the probes' socket errors */
};

/*
 * The device, found by its name, and its qdisc: 0, with c->ifindex set and
 * the qdisc's probe-mark in *@mark (if not NULL); 1, what is not there (or
 * not as configured) in @why and what would fix it in @hint: worth waiting
 * for; -1, an error in @why that no wait mends (the er2bc family gone with
 * the module that had it, no CAP_NET_ADMIN).
 */
static int check_qdisc(struct nl *nl, struct config *c, uint32_t *mark, char *why,
		       char *hint, size_t len)
{
	struct probe_state st;
	struct nl_err err;
	char h[FMT_LEN], msg[300];
	int ret;

	fmt_handle(h, c->handle);
	*hint = '\0';
	c->ifindex = if_nametoindex(c->dev);
	if (!c->ifindex) {
		snprintf(why, len, "dev %s: no such device", c->dev);
		return 1;
	}
	ret = kern_probe_get(nl, c->ifindex, c->handle, NULL, 0, &st, &err);
	kern_strerror(msg, sizeof(msg), &err, ret);
	/* the family's own ENOENT has no message: the module went away */
	if (ret == -EPERM || (ret == -ENOENT && !err.msg[0])) {
		snprintf(why, len, "dev %s handle %s: %s", c->dev, h, msg);
		return -1;
	}
	if (ret) {
		snprintf(why, len, "dev %s handle %s %s", c->dev, h, msg);
		snprintf(hint, len, "; see: tc qdisc show dev %s", c->dev);
		return 1;
	}
	if (st.port != c->port) {
		if (!st.port)
			snprintf(why, len, "dev %s handle %s the qdisc does not count for "
				 "the estimator", c->dev, h);
		else
			snprintf(why, len, "dev %s handle %s the qdisc counts for requests "
				 "to port %u, not %u", c->dev, h, st.port, c->port);
		snprintf(hint, len, "; try: tc qdisc change dev %s handle %s er2bc "
			 "probe-port %u", c->dev, h, c->port);
		return 1;
	}
	/* without a probe-mark the qdisc takes requests from root's sockets only */
	if (!st.mark && geteuid()) {
		snprintf(why, len, "dev %s handle %s has no probe-mark, and the sender "
			 "is not root (uid %u): its requests would be shaped as data",
			 c->dev, h, (unsigned int)geteuid());
		snprintf(hint, len, "; try: tc qdisc change dev %s handle %s er2bc "
			 "probe-mark 0x4e43", c->dev, h);
		return 1;
	}
	if (mark)
		*mark = st.mark;
	return 0;
}

/*
 * The requests carry the qdisc's probe-mark: without it they wait in its
 * classes, under the cap, and cut no count (each probe-get then fails, or
 * the request is lost behind the data). 0, or -1 after the message.
 */
static int follow_mark(struct sender *s, uint32_t mark)
{
	char h[FMT_LEN];

	if (mark == s->mark)
		return 0;
	if (setsockopt(s->fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark))) {
		log_limited(&s->rl_mark, "cannot give the requests the probe-mark %#x of dev %s handle %s: %s%s",
			    mark, s->c.dev, fmt_handle(h, s->c.handle), strerror(errno),
			    errno == EPERM ? " (SO_MARK takes CAP_NET_ADMIN)" : "");
		return -1;
	}
	s->mark = mark;
	if (mark)
		log_msg("requests carry the probe-mark %#x of dev %s handle %s", mark,
			s->c.dev, fmt_handle(h, s->c.handle));
	else
		log_msg("requests carry no mark: dev %s handle %s has no probe-mark",
			s->c.dev, fmt_handle(h, s->c.handle));
	return 0;
}

static void detach(struct sender *s, const char *why, const char *hint);
static int try_attach(struct sender *s, uint64_t now);

/*
 * The qdisc's probe-mark as it is now, followed; a device or qdisc that is
 * gone detaches the sender, and a new device under the name (a tunnel
 * recreated) is attached to at once. 0, or -1 on an error no wait mends.
 */
static int refresh_mark(struct sender *s)
{
	char why[sizeof(s->waiting)], hint[sizeof(s->waiting)];
	uint32_t mark, was = s->c.ifindex;
	int ret;

	if (!s->attached)
		return 0;
	ret = check_qdisc(&s->nl, &s->c, &mark, why, hint, sizeof(why));
	if (ret < 0) {
		log_err("%s", why);
		return -1;
	}
	if (!ret && s->c.ifindex != was) {
		log_warn("dev %s: a new device under the name (ifindex %u, was %u): "
			 "the estimation starts over", s->c.dev, s->c.ifindex, was);
		s->attached = false;
		return try_attach(s, mono_ns());
	}
	if (ret) {
		detach(s, why, hint);
		return 0;
	}
	(void)follow_mark(s, mark);
	return 0;
}

static void set_peer_port(struct sender *s)
{
	s->peer = s->c.peer;
	sock_set_port(&s->peer, s->c.port);
}

/* an unbound socket of the peer's family: the fd, or -1 after the message */
static int open_socket(const struct config *c)
{
	struct sockaddr_storage any = { .ss_family = c->peer.ss_family };
	socklen_t len = c->peer.ss_family == AF_INET ? sizeof(struct sockaddr_in) :
						       sizeof(struct sockaddr_in6);
	int fd;

	fd = sock_open((struct sockaddr *)&any, len, false);
	if (fd < 0) {
		log_err("cannot open a UDP socket: %s", strerror(-fd));
		return -1;
	}
	return fd;
}

/* the estimation starts over: no baseline, W = W_ini */
/*
 * w-ini and w-max from the qdisc (their default, "qdisc"): W starts from
 * the cap in force, so that a restart goes on where the last run left W,
 * and never goes above the qdisc's rate, which the kernel holds W under
 * anyway. A w-max above that rate is brought down to it.
 */
static void apply_qdisc_cap(struct sender *s)
{
	struct aimd_params *p = &s->c.aimd;
	char a[FMT_LEN], b[FMT_LEN], msg[300];
	struct qdisc_cap cap;
	struct nl_err err;
	int ret;

	ret = kern_ctrl_get(&s->nl, s->c.ifindex, s->c.handle, &cap, &err);
	if (ret) {
		log_warn("ctrl-get dev %s: %s: W starts at %s, with no ceiling but the qdisc's",
			 s->c.dev, kern_strerror(msg, sizeof(msg), &err, ret),
			 fmt_rate(a, p->w_ini));
		return;
	}
	if (cap.ceil && p->w_max > cap.ceil) {
		log_warn("w-max %s is above the qdisc's rate %s, W's ceiling: W stays at most %s",
			 fmt_rate(a, p->w_max), fmt_rate(b, cap.ceil), b);
		p->w_max = cap.ceil;
	}
	/* w-max = qdisc, or 0, is the qdisc's rate (conf.c: both parse as 0) */
	if (cap.ceil && !p->w_max)
		p->w_max = cap.ceil;
	if (s->c.w_ini_qdisc && cap.w)
		p->w_ini = cap.w;
	if (p->w_max && p->w_ini > p->w_max)
		p->w_ini = p->w_max;
	if (p->w_ini < p->w_min)
		p->w_ini = p->w_min;
	if (p->w_max && p->w_max < p->w_min)
		p->w_max = p->w_min;
	log_msg("W starts at %s%s, at most %s", fmt_rate(a, p->w_ini),
		s->c.w_ini_qdisc && cap.w ? " (the qdisc's cap)" : "",
		p->w_max ? fmt_rate(b, p->w_max) : "unlimited");
}

/* the delays start over: the rule's, each source's, and which it reads */
static void delays_init(struct sender *s)
{
	delay_init(&s->dly);
	delay_init(&s->dly_req);
	delay_init(&s->dly_probe);
	s->have_source = false;
}

static void restart(struct sender *s)
{
	interval_init(&s->iv);
	aimd_init(&s->aimd, &s->c.aimd);
	delays_init(s);
	load_init(&s->load);
	compete_init(&s->cmp);
	linkloss_init(&s->linkloss);
	s->have_tr = false;
	s->npend = 0;
	s->quiet_misses = 0;
	s->decayed_at = 0;
	/* (a new peer, perhaps: its versions asked again) */
	s->hello_waiting = false;
	s->hello_next = 0;
	s->hello_next_ns = 0;
	s->hello_unanswered = 0;
	s->hello_answered = false;
	s->peer_protocol = 0;
	s->peer_release[0] = '\0';
}

static void set_error(struct sender *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_error(struct sender *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->last_error, sizeof(s->last_error), fmt, ap);
	va_end(ap);
}

static void write_status(struct sender *s)
{
	struct status_file sf;
	struct json j;
	char h[FMT_LEN];
	FILE *f;
	int ret;

	if (!s->c.status[0])
		return;
	f = status_open(&sf, s->c.status);
	if (!f) {
		log_warn("status %s: %s", s->c.status, strerror(errno));
		return;
	}
	json_init(&j, f, true);
	json_obj_open(&j, NULL);
	json_str(&j, "role", "sender");
	json_str(&j, "peer", s->c.peer_str);
	json_u64(&j, "port", s->c.port);
	json_str(&j, "dev", s->c.dev);
	json_u64(&j, "ifindex", s->c.ifindex);
	json_str(&j, "handle", fmt_handle(h, s->c.handle));
	json_bool(&j, "auth", s->c.key.len);
	json_u64(&j, "interval_us", s->c.interval_us);
	json_u64(&j, "unix_time_seconds", real_ns() / 1000000000ULL);
	json_u64(&j, "estimates", s->estimates);
	json_u64(&j, "seq", s->est_seq);
	/* W and D are bit/s; the file has bytes/s, as tc -j does */
	json_u64(&j, "abw_bytes_per_second", s->aimd.w / 8);
	json_u64(&j, "increase_bytes_per_second", s->aimd.d / 8);
	json_str(&j, "mode", delay_mode_name(s->c.delay.mode));
	/* (s->dly.have: a delay read, in any mode; last_cmd holds in the others) */
	if (s->dly.have) {
		if (s->c.delay.mode != DELAY_MODE_LOSS)
			json_str(&j, "command", delay_cmd_name(s->last_cmd));
		json_s64(&j, "queue_delay_us", s->dly.queue_ns / 1000);
		json_s64(&j, "delay_span_us", delay_span(&s->dly, &s->c.delay) / 1000);
		json_u64(&j, "rtt_min_us", s->dly.rtt_min_ns / 1000);
		/* (compete's answer to elastic traffic, or hybrid's push) */
		json_bool(&j, "competing", s->c.delay.mode == DELAY_MODE_LOSS || s->c.compete ?
			  s->cmp.on : s->dly.competing);
		json_u64(&j, "scavenger_hold_us", s->hold_us);
		/* the delay rule's drains (delay.h), and those the queue outlasted */
		if (s->c.delay.mode != DELAY_MODE_LOSS) {
			json_bool(&j, "draining", s->dly.draining);
			json_u64(&j, "drains", s->dly.drains);
			json_u64(&j, "drains_failed", s->dly.drains_failed);
		} else if (s->c.compete) {
			/* the loss rule's drains before and while competing */
			json_bool(&j, "draining", s->cmp.draining);
			json_u64(&j, "drains", s->cmp.drains);
			json_u64(&j, "drains_failed", s->cmp.drains_failed);
		}
		/* the delay rule's own beside compete's (compete.h) */
		if (s->c.delay.mode != DELAY_MODE_LOSS && s->c.compete) {
			json_bool(&j, "compete_draining", s->cmp.draining);
			json_u64(&j, "compete_drains", s->cmp.drains);
			json_u64(&j, "compete_drains_failed", s->cmp.drains_failed);
		}
	}
	json_s64(&j, "loss_packets", s->last_l);
	json_u64(&j, "recv_rate_bytes_per_second", s->last.recv_rate / 8);
	/* what the qdisc sent toward the peer, and whether W bound it (load.h) */
	if (s->last.has_load) {
		json_u64(&j, "sent_rate_bytes_per_second", s->last.sent_rate / 8);
		json_bool(&j, "cap_bound", s->load.bound);
		json_u64(&j, "bw_max_bytes_per_second", load_bw(&s->load) / 8);
	}
	json_u64(&j, "sent_packets", s->last.sent);
	json_u64(&j, "received_packets", s->last.received);
	json_u64(&j, "lost_packets", s->last.lost);
	json_u64(&j, "span_us", s->last.dt_ns / 1000);
	json_bool(&j, "applied", s->c.apply && s->estimates && !s->abw_error[0]);
	json_u64(&j, "requests", s->requests);
	json_u64(&j, "responses", s->responses);
	json_u64(&j, "timeouts", s->timeouts);
	json_u64(&j, "missed_intervals", s->missed_intervals);
	json_u64(&j, "quiet_intervals", s->quiet_misses);
	json_u64(&j, "decays", s->decays);
	json_u64(&j, "discontinuities", s->discontinuities);
	json_u64(&j, "negative_loss", s->negative_loss);
	json_u64(&j, "foreign", s->foreign);
	json_u64(&j, "foreign_packets", s->foreign_packets);
	json_u64(&j, "uncredited_bytes", s->uncredited_bytes);
	json_u64(&j, "zero_intervals", s->zero_intervals);
	json_u64(&j, "no_snapshot", s->no_snapshot);
	json_u64(&j, "abw_set_failures", s->abw_set_failures);
	json_dropped(&j, s->dropped);
	if (s->c.probe_interval_us) {
		json_obj_open(&j, "probes");
		json_u64(&j, "interval_us", s->c.probe_interval_us);
		json_bool(&j, "on", s->pfd >= 0);
		json_u64(&j, "sent", s->dense.sent);
		json_u64(&j, "echoed", s->dense.echoes);
		json_u64(&j, "unstamped", s->dense.unstamped);
		json_u64(&j, "mismatched", s->dense.mismatched);
		json_u64(&j, "unknown", s->dense.unknown);
		json_u64(&j, "duplicate", s->dense.duplicate);
		json_u64(&j, "send_errors", s->probe_send_errors);
		json_u64(&j, "reopens", s->probe_reopens);
		/* the last estimate's delay was the probes' */
		json_bool(&j, "reading", s->have_source && s->probe_source);
		/* estimates whose delay the probes gave, and the last one's */
		json_u64(&j, "reads", s->probe_reads);
		json_u64(&j, "read_samples", s->probe_source ? s->dread.n : 0);
		json_u64(&j, "rtt_min_us", s->dense.rtt_min_ns / 1000);
		/* from the socket to the device: the wait in our own qdisc */
		json_u64(&j, "qdisc_wait_last_us", s->dense.wait_last_ns / 1000);
		json_u64(&j, "qdisc_wait_max_us", s->dense.wait_max_ns / 1000);
		json_u64(&j, "bytes_per_probe", wire_bytes_per_probe(s->c.peer.ss_family == AF_INET6,
								     s->c.key.len));
		json_obj_close(&j);
	}
	json_u64(&j, "protocol", WIRE_PROTOCOL);
	json_str(&j, "release", abwd_release());
	/* the responder's, from its hellos' replies (protocol 0: not known yet) */
	json_obj_open(&j, "peer_versions");
	json_u64(&j, "hellos", s->hellos_sent);
	json_u64(&j, "answered", s->hellos_answered);
	json_u64(&j, "unanswered", s->hello_unanswered);
	json_u64(&j, "protocol", s->peer_protocol);
	json_str(&j, "release", s->peer_release);
	json_obj_close(&j);
	json_u64(&j, "bytes_per_estimate",
		 wire_bytes_per_estimate(s->c.peer.ss_family == AF_INET6, s->c.key.len));
	json_str(&j, "last_error", s->last_error);
	json_obj_close(&j);
	json_end(&j);
	ret = status_commit(&sf);
	if (ret)
		log_warn("status %s: %s", s->c.status, strerror(-ret));
}

/* the oldest awaited request is given up: a missed interval */
static void on_timeout(struct sender *s)
{
	uint16_t seq = s->pend[0].seq;

	memmove(&s->pend[0], &s->pend[1], --s->npend * sizeof(s->pend[0]));
	s->timeouts++;
	interval_miss(&s->iv);
	if (!s->quiet_misses || verbose)
		log_warn("no response to request %u from %s within %llums", seq,
			 s->c.peer_str, (unsigned long long)(s->c.timeout_us / 1000));
	s->quiet_misses++;
	set_error(s, "no response to request %u", seq);
	/* an unmarked request may be what waits behind the data */
	s->recheck = true;
	write_status(s);
}

/*
 * The responder and the meter take a request only if its seq is at most
 * 32767 ahead of the last they took. After a quarter of that unanswered
 * (the peer silent for hours), the sender moves to a newer epoch, or it
 * would be refused as replaying once the gap passed half the space.
 */
static void renew_epoch(struct sender *s)
{
	const char *why;

	if ((uint16_t)(s->next_seq - s->answered_seq) < 0x2000)
		return;
	if (epoch_next(s->c.epoch_file, real_ns() > s->epoch ? real_ns() : s->epoch + 1,
		       &s->epoch, &why))
		log_warn("epoch-file %s: %s", s->c.epoch_file, why);
	log_warn("%u requests unanswered: a new epoch", (uint16_t)(s->next_seq - s->answered_seq));
	s->answered_seq = s->next_seq - 1;
	if (getrandom(&s->probe_seq, sizeof(s->probe_seq), GRND_NONBLOCK) != sizeof(s->probe_seq))
		s->probe_seq = (uint32_t)(mono_ns() ^ ((uint64_t)getpid() << 16));
	s->npend = 0;
}

#define HELLO_EVERY		60
#define HELLO_EVERY_NS		10000000000ULL
#define HELLO_RETRY		10
#define HELLO_RETRY_NS		1000000000ULL
#define HELLO_UNANSWERED	3

/*
 * A hello, the next seq; the one before unanswered while responses came
 * counts toward protocol 1. Not proof: a hello is data in the qdisc's
 * classes, where the requests are not, and a full class can lose it
 * where the requests get through. So the verdict needs three in a row,
 * and a responder that answered one in this run keeps its versions.
 */
static void send_hello(struct sender *s, uint64_t now)
{
	uint8_t buf[WIRE_MAX_LEN];
	struct wire_hello h;
	size_t len;
	int ret;

	if (s->hello_waiting && s->responses > s->hello_responses &&
	    ++s->hello_unanswered >= HELLO_UNANSWERED && !s->hello_answered &&
	    s->peer_protocol != 1) {
		log_warn("%s answers requests but none of %u hellos: it speaks protocol 1, or "
			 "they are lost on the way; this side %u (er2bc %s): upgrade it "
			 "(er2bc-abwd(8), UPGRADES)", s->c.peer_str, s->hello_unanswered,
			 WIRE_PROTOCOL, abwd_release());
		s->peer_protocol = 1;
		s->peer_release[0] = '\0';
	}
	/* (the first from a random start: a new run's are no replay of the last's) */
	if (!s->hellos_sent &&
	    getrandom(&s->hello_seq, sizeof(s->hello_seq), GRND_NONBLOCK) != sizeof(s->hello_seq))
		s->hello_seq = (uint32_t)(mono_ns() ^ ((uint64_t)getpid() << 16));
	h = (struct wire_hello){
		.type = WIRE_HELLO,
		.protocol = WIRE_PROTOCOL,
		.seq = ++s->hello_seq,
		.epoch = s->epoch,
	};
	snprintf(h.release, sizeof(h.release), "%s", abwd_release());
	len = wire_hello_encode(buf, &h, &s->c.key);
	s->hello_waiting = true;
	s->hello_responses = s->responses;
	s->hello_next = s->requests + (s->peer_protocol ? HELLO_EVERY : HELLO_RETRY);
	s->hello_next_ns = now + (s->peer_protocol ? HELLO_EVERY_NS : HELLO_RETRY_NS);
	s->hellos_sent++;
	ret = sock_send(s->fd, buf, len, (struct sockaddr *)&s->peer, s->c.peer_len, NULL);
	if (ret) {
		set_error(s, "sending a hello to %s: %s", s->c.peer_str, strerror(-ret));
		log_limited(&s->rl_io, "%s", s->last_error);
	}
}

/* the reply to the hello awaited: the responder's versions */
static void on_hello_reply(struct sender *s, const struct wire_hello *h)
{
	if (h->protocol != s->peer_protocol || strcmp(h->release, s->peer_release))
		log_msg("%s runs er2bc %s, protocol %u; this side %s, protocol %u%s",
			s->c.peer_str, h->release, h->protocol, abwd_release(), WIRE_PROTOCOL,
			h->protocol != WIRE_PROTOCOL ? ": upgrade the older side "
			"(er2bc-abwd(8), UPGRADES)" : "");
	s->hello_waiting = false;
	s->hello_unanswered = 0;
	s->hello_answered = true;
	s->hellos_answered++;
	s->peer_protocol = h->protocol;
	snprintf(s->peer_release, sizeof(s->peer_release), "%s", h->release);
	s->hello_next = s->requests + HELLO_EVERY;
	s->hello_next_ns = mono_ns() + HELLO_EVERY_NS;
}

static void send_request(struct sender *s, uint64_t now)
{
	struct wire_req r;
	struct pending *p;
	int ret;

	renew_epoch(s);
	r = (struct wire_req){ .seq = s->next_seq++, .epoch = s->epoch };

	if (s->npend == ABWD_PENDING_MAX)
		on_timeout(s);
	p = &s->pend[s->npend++];
	p->len = wire_req_encode(p->key, &r, &s->c.key);
	p->seq = r.seq;
	p->sent_ns = now;
	p->deadline = now + s->c.timeout_us * 1000;
	s->requests++;
	ret = sock_send(s->fd, p->key, p->len, (struct sockaddr *)&s->peer,
			s->c.peer_len, NULL);
	if (ret) {
		/* as good as lost: its timeout counts it */
		set_error(s, "sending request %u to %s: %s", r.seq, s->c.peer_str,
			  strerror(-ret));
		log_limited(&s->rl_io, "%s", s->last_error);
	}
	/* (behind the request: its snapshot's count holds the hello or not, alike at both ends) */
	if (s->requests >= s->hello_next && now >= s->hello_next_ns)
		send_hello(s, now);
}

static void probes_close(struct sender *s)
{
	if (s->pfd >= 0)
		close(s->pfd);
	s->pfd = -1;
}

/* a socket for the probes, stamped as they leave: the fd, or -1 after the message */
static int probes_socket(struct sender *s)
{
	int fd, ret;

	fd = open_socket(&s->c);
	if (fd < 0)
		return -1;
	ret = sock_tx_stamps(fd);
	if (ret) {
		log_warn("the probes' socket takes no transmit timestamps (%s)", strerror(-ret));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The probes' socket, if probe-interval asks for probes; without it (no
 * socket, no transmit timestamps) the requests' delay serves, as before.
 * The probes' seq goes on from where it was (it is drawn once, at the
 * start): under the same epoch, a seq drawn again would be refused as a
 * replay by an authenticated responder half the time. The samples start
 * over (a new peer, another path).
 */
static void probes_open(struct sender *s)
{
	probes_close(s);
	dense_init(&s->dense, s->probe_seq);
	s->probe_since = 0;
	s->probe_resync = false;
	s->probe_no_stamps_logged = false;
	memset(&s->dread, 0, sizeof(s->dread));
	if (!s->c.probe_interval_us)
		return;
	s->pfd = probes_socket(s);
	if (s->pfd < 0) {
		log_warn("no delay probes: the requests' delay serves");
		return;
	}
	s->next_probe = mono_ns();
}

/*
 * After a send error, the socket's stamp keys and the probes' seqs may be
 * out of step (whether the kernel kept the key or gave it back depends on
 * where the datagram failed, and on the kernel): a new socket, whose key
 * 0 is the next probe's. The stamps of probes still on their way are lost.
 */
static void probes_resync(struct sender *s)
{
	int fd = probes_socket(s);

	if (fd < 0)
		return;		/* tried again at the next probe */
	close(s->pfd);
	s->pfd = fd;
	s->probe_resync = false;
	s->probe_reopens++;
	dense_rekey(&s->dense, s->probe_seq);
}

static void send_probe(struct sender *s, uint64_t now)
{
	struct wire_probe p;
	uint8_t buf[WIRE_MAX_LEN];
	size_t len;
	int ret;

	if (s->probe_resync)
		probes_resync(s);
	if (s->probe_resync)
		return;
	p = (struct wire_probe){ .seq = s->probe_seq, .epoch = s->epoch };
	len = wire_probe_encode(buf, &p, &s->c.key);
	ret = sock_send(s->pfd, buf, len, (struct sockaddr *)&s->peer, s->c.peer_len, NULL);
	if (ret) {
		/* (the seq is not reused: the responder may have it) */
		s->probe_seq++;
		s->probe_resync = true;
		s->probe_send_errors++;
		log_limited(&s->rl_probe, "sending probe %u to %s: %s", p.seq, s->c.peer_str,
			    strerror(-ret));
		return;
	}
	dense_sent(&s->dense, s->probe_seq, now);
	s->probe_seq++;
}

/* the transmit timestamps waiting on the probes' socket */
static void probe_stamps(struct sender *s)
{
	uint64_t real;
	uint32_t key;
	int i, ret;

	for (i = 0; i < 256; i++) {
		ret = sock_read_stamp(s->pfd, &key, &real);
		if (ret < 0)
			break;
		if (ret)
			dense_stamp(&s->dense, key, real_to_mono(real), mono_ns());
	}
}

/* an echo to one of the probes */
static void probe_datagram(void *ctx, const struct datagram *d)
{
	struct sender *s = ctx;
	enum wire_verdict v;
	struct wire_echo e;
	char addr[ADDR_STRLEN];

	if (d->len > WIRE_MAX_LEN)
		v = WIRE_MALFORMED;
	else
		v = wire_echo_decode(d->buf, (size_t)d->len, &s->c.key, &e);
	if (v == WIRE_OK && !sock_same((struct sockaddr *)&d->from, (struct sockaddr *)&s->peer))
		v = WIRE_UNEXPECTED;
	else if (v == WIRE_OK && s->c.key.len && e.epoch != s->epoch)
		v = WIRE_REPLAYED;
	if (v != WIRE_OK) {
		s->dropped[v]++;
		log_limited(&s->rl_drop[v], "dropped a datagram from %s (%s, %zd bytes, to the "
			    "probes' socket)", fmt_addr(addr, sizeof(addr),
							(const struct sockaddr *)&d->from),
			    wire_verdict_name(v), d->len);
		return;
	}
	(void)dense_echo(&s->dense, e.seq, e.time, mono_ns());
	if (s->dense.unstamped_run >= 20 && !s->probe_no_stamps_logged) {
		s->probe_no_stamps_logged = true;
		log_warn("the last %u probes echoed had no transmit timestamp from dev %s: "
			 "their delay is unknown, the requests' serves", s->dense.unstamped_run,
			 s->c.dev);
	} else if (!s->dense.unstamped_run && s->probe_no_stamps_logged) {
		s->probe_no_stamps_logged = false;
		log_msg("the probes have transmit timestamps again");
	}
}

/*
 * The rates the qdisc's classes ask for, by priority (a ctrl-get): false,
 * with a warning once, if it cannot say
 */
static bool qdisc_levels(struct sender *s, struct qdisc_cap *cap)
{
	struct nl_err err;
	char msg[300];
	int ret;

	ret = kern_ctrl_get(&s->nl, s->c.ifindex, s->c.handle, cap, &err);
	if (!ret) {
		s->levels_warned = false;
		return true;
	}
	/* (once a run of failures: a dump the classes changed under is one) */
	if (!s->levels_warned)
		log_warn("ctrl-get dev %s: %s: W's cuts do not keep what the classes ask for",
			 s->c.dev, kern_strerror(msg, sizeof(msg), &err, ret));
	s->levels_warned = true;
	return false;
}

/*
 * The delay an estimate reads: with probes, the least of those sent in the
 * last round trip (dense.h); if none came since the last estimate's read,
 * the last one's window still (one source for minDelay: a request's delay
 * and a probe's are taken at slightly different points, and a base of
 * both reads their difference as a queue), unless its newest probe left
 * PROBE_STALE intervals ago: then the request's own, @owd_ns (if *@have
 * says there is one). A change of source reads on against the base the
 * new source had all along (delay_rebase()): each source's delays are
 * read at every estimate that has one (dly_req, dly_probe), so that a
 * switch over a standing queue (probes lost or held at a full bottleneck)
 * does not take that queue for the base. Sets *@have if there is a delay.
 */
#define PROBE_STALE	4

static int64_t probe_delay(struct sender *s, int64_t owd_ns, bool *have)
{
	uint64_t pi = s->c.probe_interval_us * 1000, iv = s->c.interval_us * 1000;
	bool probes = false, req = *have;
	int64_t d = owd_ns;

	if (s->pfd >= 0) {
		dense_read(&s->dense, s->probe_since, 2 * pi, iv, &s->dread);
		probes = s->dread.any && mono_ns() - s->dread.newest_ns < PROBE_STALE * iv;
	} else {
		memset(&s->dread, 0, sizeof(s->dread));
	}
	if (probes) {
		if (s->dread.fresh) {
			s->probe_since = s->dread.newest_ns;
			s->probe_reads++;
		}
		d = s->dread.owd_ns;
		*have = true;
	}
	if (*have && s->have_source && probes != s->probe_source) {
		log_msg("the delay is now the %s: read against that source's base",
			probes ? "probes'" : "requests' (no probe echoed lately)");
		delay_rebase(&s->dly, probes ? &s->dly_probe : &s->dly_req);
	}
	/* each source's own, after a switch took their last read as it was */
	if (req) {
		struct delay_sample x = { .owd_ns = owd_ns };

		delay_watch(&s->dly_req, &s->c.delay, &x);
	}
	if (probes && s->dread.fresh) {
		struct delay_sample x = { .owd_ns = s->dread.owd_ns };

		delay_watch(&s->dly_probe, &s->c.delay, &x);
	}
	if (*have) {
		s->probe_source = probes;
		s->have_source = true;
	}
	return d;
}

/* the awaited request @seq is for; -1: none */
static int pending_find(const struct sender *s, uint16_t seq)
{
	unsigned int i;

	for (i = 0; i < s->npend; i++)
		if (s->pend[i].seq == seq)
			return i;
	return -1;
}

/* a sample that could not be used: the interval goes on */
static void sample_lost(struct sender *s)
{
	interval_miss(&s->iv);
}

static const char *discont_why(char *buf, size_t len, unsigned int why)
{
	snprintf(buf, len, "%s%s%s%s%s",
		 why & IV_BACK_PS ? " P_s" : "",
		 why & IV_BACK_PR ? " P_r" : "",
		 why & IV_BACK_BR ? " B_r" : "",
		 why & IV_BACK_TR ? " T_r" : "",
		 why & IV_CLOCK ? " T_r 10 s or more off T_s: another responder" : "");
	return buf;
}

/* W to the qdisc; a failure logged when it starts, or changes */
static void abw_set(struct sender *s, const struct abw_estimate *a)
{
	struct abw_estimate plain = *a;
	struct nl_err err;
	char msg[300];
	int ret;

	if (!s->c.apply)
		return;
	if (s->no_hold)
		plain.scavenger_hold_us = 0;
	ret = kern_abw_set(&s->nl, s->c.ifindex, s->c.handle, &plain, &err);
	/*
	 * a module older than scavengers refuses the attribute (strict
	 * validation): the estimate goes again without it, and from then on
	 */
	if (ret == -EINVAL && plain.scavenger_hold_us) {
		plain.scavenger_hold_us = 0;
		if (!kern_abw_set(&s->nl, s->c.ifindex, s->c.handle, &plain, &err)) {
			s->no_hold = true;
			log_warn("abw-set dev %s: the module takes no scavenger-hold; estimates "
				 "go without it", s->c.dev);
			ret = 0;
		}
	}
	if (ret) {
		s->abw_set_failures++;
		kern_strerror(msg, sizeof(msg), &err, ret);
		if (strcmp(msg, s->abw_error))
			log_err("abw-set dev %s: %s", s->c.dev, msg);
		snprintf(s->abw_error, sizeof(s->abw_error), "%s", msg);
		set_error(s, "abw-set: %s", msg);
		s->recheck = true;	/* is the qdisc still there? */
	} else if (s->abw_error[0]) {
		log_msg("abw-set dev %s works again", s->c.dev);
		s->abw_error[0] = '\0';
	}
}

/*
 * compete's reading of this estimate: @queue_ns, the queue the delay state
 * read (in the delay mode, above the rule's own: delay_queue_over())
 */
static enum compete_step compete_read(struct sender *s, const struct iv_estimate *e,
				      const struct delay_sample *x, int64_t queue_ns,
				      bool confirm)
{
	struct compete_read cr = {
		.queue_ns = queue_ns,
		.span_min_ns = (int64_t)s->c.delay.span_min_ns,
		.interval_ns = (uint64_t)s->c.interval_us * 1000,
		.rtt_ns = x->rtt_ns,
		.filter = s->c.delay.filter,
	};

	compete_observe(&s->cmp, e->lost, e->sent, x->rtt_ns);
	return confirm ? compete_confirm(&s->cmp, &cr) : compete_update(&s->cmp, &cr);
}

/*
 * compete's @step, read at this estimate, applied to W: the competing
 * rate (a cut stops at what the highest priorities ask for) or a drain's
 * step (its quarter no lower than they ask for, as the classes are now:
 * its first step, three quarters, is above any floor; its third has none),
 * @recv the R it takes. Returns the rule's name for the log.
 */
static const char *compete_apply(struct sender *s, enum compete_step step,
				 uint64_t recv, const struct load_sample *ls)
{
	const uint64_t *level = NULL;
	struct qdisc_cap cap;

	if (step == COMPETE_RATE) {
		if (compete_rate(&s->cmp) < s->aimd.w && qdisc_levels(s, &cap))
			level = cap.level;
		return compete_branch_name(compete_aimd(&s->cmp, &s->load, &s->aimd,
							&s->c.aimd, ls, level,
							ER2BC_PRIO_MAX));
	}
	if (step == COMPETE_DRAIN && s->cmp.halve &&
	    s->cmp.depth == COMPETE_DRAIN_DEPTH && qdisc_levels(s, &cap))
		level = cap.level;
	compete_drain(&s->cmp, step, &s->aimd, &s->c.aimd, recv, level, ER2BC_PRIO_MAX);
	if (s->c.delay.mode == DELAY_MODE_LOSS)
		return compete_step_name(step);
	/* W's own queue: the rule may drain it again at once */
	if (step == COMPETE_DRAIN_END)
		delay_drain_allow(&s->dly);
	/* (the delay rule's own drain has the plain names) */
	return step == COMPETE_DRAIN ? "compete-drain" : step == COMPETE_DRAIN_END ?
	       "compete-drain-end" : "compete-drain-fail";
}

/*
 * -v: what the delay rule's floor read, the estimate's line after it: what
 * the path carried, priorities 1-3's rates (the floor's levels) and what
 * they ask for (with the demand S_d of classes under loss), the floor
 */
static void log_floor(struct sender *s, const struct qdisc_cap *cap, uint64_t top)
{
	char b[FMT_LEN], l[3][FMT_LEN], r[3][FMT_LEN], t[FMT_LEN];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		fmt_rate(r[i], cap->level[i + 1]);
		fmt_rate(l[i], cap->asked[i + 1]);
	}
	log_msg("estimate %u floor: carried %s, priorities 1-3 rates %s/%s/%s (ask %s/%s/%s), floor %s",
		s->est_seq + 1, fmt_rate(b, load_bw(&s->load)), r[0], r[1], r[2], l[0], l[1], l[2],
		top ? fmt_rate(t, top) : "none");
}

/*
 * The delay rule's cut below @w_before stops at the highest priorities'
 * rates (compete_delay_floor(), kern.c's levels): its down-steps, and its own
 * drain and the drain's end, whose W is cut from the R read when the
 * drain began (beside CUBIC, set 11: a third of what the path had
 * carried, after which what it carried followed W down and no priority
 * fitted). Not on a congestion cut (a loss with a queue that rose says W
 * is above the path; floored there on a fixed path, set 10, W stayed above
 * it and Copa's test drained a third of the estimates), and no dump of
 * the classes where no floor can be (nothing carried yet). Returns the
 * rule's name for the log.
 */
static const char *delay_floor(struct sender *s, uint64_t w_before, const char *rule)
{
	struct qdisc_cap cap;
	uint64_t top;

	if (s->aimd.w >= w_before || s->last_cmd == DELAY_MD || !load_bw(&s->load))
		return rule;
	top = qdisc_levels(s, &cap) ?
	      compete_delay_floor(&s->load, w_before, cap.level, ER2BC_PRIO_MAX) : 0;
	if (verbose && cap.level[1])
		log_floor(s, &cap, top);
	if (s->aimd.w >= top)
		return rule;
	s->aimd.w = aimd_clamp(top, &s->c.aimd);
	snprintf(s->rule_buf, sizeof(s->rule_buf), "%s, priorities", rule);
	return s->rule_buf;
}

/*
 * compete beside the delay rule, after the rule's step: Copa's test on the
 * queue above the rule's own; not while the rule drains a queue of its
 * own (the window starts over after it); a drain of compete's at its
 * deeper step when that drain found the queue others' (compete_confirm()).
 * A drain of compete's that begins from the test takes W from before the
 * rule's step; the confirming one from where the rule's failed drain put
 * it back.
 * The rule's other cuts stop at the highest priorities' rates
 * (delay_floor()): beside CUBIC its steps took W to w-min before the test
 * had its window, and priority 1 waited seconds behind it (evaluation.rst,
 * set 9).
 */
static const char *delay_compete(struct sender *s, const struct iv_estimate *e,
				 const struct delay_sample *x, const struct load_sample *ls,
				 uint64_t w_before, const char *rule)
{
	switch (s->last_cmd) {
	case DELAY_DRAIN:
	case DELAY_DRAIN_DONE:
		compete_observe(&s->cmp, e->lost, e->sent, x->rtt_ns);
		compete_forget(&s->cmp);
		return delay_floor(s, w_before, rule);
	case DELAY_DRAIN_FAIL:
		/*
		 * (from the rule's drain rate: the R read during the drain
		 * followed W down)
		 */
		compete_read(s, e, x, delay_queue_over(&s->dly, &s->c.delay), true);
		snprintf(s->rule_buf, sizeof(s->rule_buf), "%s, %s", rule,
			 compete_apply(s, COMPETE_DRAIN, delay_drain_bw(&s->dly), ls));
		return s->rule_buf;
	default:
		break;
	}
	rule = delay_floor(s, w_before, rule);
	if (compete_read(s, e, x, delay_queue_over(&s->dly, &s->c.delay), false) != COMPETE_DRAIN)
		return rule;
	s->aimd.w = w_before;
	return compete_apply(s, COMPETE_DRAIN, e->recv_rate, ls);
}

/*
 * W(t) from estimate @e: by the paper's rule (mode loss), or by the delay
 * rule (delay.h) from @x, the delay and RTT of the request that closed it
 * (NULL: the qdisc gave no dequeue time; the paper's rule then)
 */
static void apply(struct sender *s, const struct iv_estimate *e, struct delay_sample *x)
{
	char random[48];
	struct load_sample ls = {
		.recv = e->recv_rate,
		.sent = e->sent_rate,
		.dt_ns = e->sent_dt_ns,
		.held_ns = e->held_ns,
		/*
		 * (apply no: W caps another shaper, not this qdisc, whose
		 * held time then says nothing of W; what it sent does)
		 */
		.has_held = e->has_held && s->c.apply,
		.sent_pkts = e->sent,
		.lost_pkts = e->lost,
		.foreign = e->foreign,
	};
	struct abw_estimate a;
	char w[FMT_LEN], r[FMT_LEN], d[FMT_LEN], sr[FMT_LEN], queue[96], load[80];
	const char *rule;
	uint64_t w_before;
	bool delayed;

	if (e->missed) {
		s->missed_intervals += e->missed;
		log_msg("estimate %u spans %u missed interval%s", s->est_seq + 1,
			e->missed, e->missed == 1 ? "" : "s");
	}
	s->uncredited_bytes += e->uncredited;
	if (e->foreign) {
		s->foreign++;
		s->foreign_packets += e->excess;
		log_limited(&s->rl_foreign,
			    "estimate %u: the meter received %llu packets more than the qdisc sent "
			    "(%llu): traffic that did not cross the qdisc reaches it, spoofed with "
			    "this gateway's addresses or on a path around the qdisc; L is unknown: %s",
			    s->est_seq + 1, (unsigned long long)e->excess,
			    (unsigned long long)e->sent, s->c.delay.mode == DELAY_MODE_LOSS || !x ?
			    "W holds" : "the delay rule may cut W, not raise it");
	} else if (e->excess) {
		/* (a spoofer just under the slack could ask for one an estimate) */
		s->negative_loss++;
		log_limited(&s->rl_negative, "estimate %u: %llu packets more received than sent "
			    "(L = -%llu), taken as L = 0", s->est_seq + 1,
			    (unsigned long long)e->excess, (unsigned long long)e->excess);
	}
	s->last = *e;
	s->last_l = e->excess ? -(int64_t)e->excess : (int64_t)e->lost;
	if (s->c.delay.mode != DELAY_MODE_LOSS && !x && !s->no_time_logged) {
		s->no_time_logged = true;
		log_warn("estimate %u: the qdisc gave no dequeue time: W by the loss rule",
			 s->est_seq + 1);
	}
	delayed = s->c.delay.mode != DELAY_MODE_LOSS && x;
	if (x && !delayed)
		delay_watch(&s->dly, &s->c.delay, x);	/* the queue, for scavengers */
	/*
	 * cap-bound or app-limited (load.h); without the qdisc's side of the
	 * counts (one went backwards), cap-bound: the rule as the paper has it
	 */
	if (e->has_load)
		load_update(&s->load, s->aimd.w, &ls);
	else
		load_unknown(&s->load);
	if (delayed) {
		x->lost = e->lost;
		x->sent = e->sent;
		x->recv = e->recv_rate;
		x->span_ns = e->dt_ns;
		x->next_ns = (uint64_t)s->c.interval_us * 1000;
		x->limited = !load_cut_bound(&s->load);
		x->floor = load_floor(&s->load, s->aimd.w, e->recv_rate);
		w_before = s->aimd.w;
		if (s->c.compete && (s->cmp.draining || s->cmp.on)) {
			/*
			 * compete holds W (a drain, or competing): the delay
			 * state reads the queue, its rule waits. Competing
			 * ended (the others gone): W holds this estimate, the
			 * delay rule moves it from the next, its smoothed
			 * step started over. A foreign estimate holds W too
			 * (a drain counts it, as in the loss mode)
			 */
			enum compete_step step;

			delay_watch(&s->dly, &s->c.delay, x);
			delay_resume(&s->dly);
			s->last_cmd = DELAY_HOLD;	/* (the status file's command) */
			if (e->foreign) {
				compete_skip(&s->cmp, &s->aimd, &s->c.aimd);
				rule = "hold, foreign";
			} else {
				step = compete_read(s, e, x,
						    delay_queue_over(&s->dly, &s->c.delay),
						    false);
				rule = step == COMPETE_LOSS ? "compete-end" :
				       compete_apply(s, step, e->recv_rate, &ls);
			}
		} else {
			s->last_cmd = delay_update(&s->dly, &s->c.delay, &s->aimd, &s->c.aimd, x);
			rule = delay_cmd_name(s->last_cmd);
			if (s->c.compete && !e->foreign)
				rule = delay_compete(s, e, x, &ls, w_before, rule);
		}
		/*
		 * L unknown: no queue may mean no congestion or a policer's
		 * losses the foreign packets hid, so the delay rule cuts W
		 * but never raises it
		 */
		if (e->foreign && s->aimd.w > w_before) {
			s->aimd.w = w_before;
			rule = "hold, foreign";
		}
	} else {
		/*
		 * the loss rule; beside elastic traffic, competing, once a
		 * drain has shown the queue is not W's own (compete.h)
		 */
		enum compete_step step = COMPETE_LOSS;

		if (x && s->c.compete && !e->foreign)
			step = compete_read(s, e, x, s->dly.queue_ns, false);
		/*
		 * no loss count to go by: W as it was (a drain under way
		 * counts it, so that a spoofer cannot hold W at its low)
		 */
		if (e->foreign) {
			rule = "hold, foreign";
			if (s->c.compete)
				compete_skip(&s->cmp, &s->aimd, &s->c.aimd);
		} else if (step != COMPETE_LOSS) {
			rule = compete_apply(s, step, e->recv_rate, &ls);
		} else if (s->c.compete && s->cmp.draining) {
			compete_skip(&s->cmp, &s->aimd, &s->c.aimd);
			rule = "drain";		/* no queue read: W holds */
		} else {
			uint64_t lost = e->lost;

			/*
			 * loss-queue: a loss that is not heavy, with no queue at
			 * the bottleneck, is the link's (radio, a lossy WAN), not
			 * congestion, as TCP Veno reads its backlog: W moves as
			 * with no loss
			 */
			if (s->c.loss_queue && x && s->dly.have &&
			    linkloss_random(&s->linkloss, lost, e->sent, s->c.aimd.theta_l,
					    s->dly.queue_ns, (int64_t)s->c.delay.span_min_ns))
				lost = 0;
			rule = load_branch_name(load_aimd(&s->load, &s->aimd, &s->c.aimd,
							  lost, &ls));
			if (lost != e->lost) {
				snprintf(random, sizeof(random), "%s, random loss", rule);
				rule = random;
			}
		}
	}
	s->est_seq++;
	s->estimates++;

	a = (struct abw_estimate){
		.abw = s->aimd.w,
		.recv_rate = e->recv_rate,
		.sent = e->sent,
		.lost = e->lost,
		.seq = s->est_seq,
		.interval_us = e->interval_us,
	};
	/*
	 * a queue at or above the target area: scavenger classes yield until
	 * the next estimate, or the one after if this one's answer is lost
	 */
	if (x && delay_queued(&s->dly))
		a.scavenger_hold_us = (uint32_t)(s->c.interval_us * 2 < SCAVENGER_HOLD_MAX ?
						 s->c.interval_us * 2 : SCAVENGER_HOLD_MAX);
	s->hold_us = a.scavenger_hold_us;
	abw_set(s, &a);
	if (!verbose)
		return;
	/* the queue read, where it moved W (the delay rule, compete, loss-queue) */
	queue[0] = '\0';
	if (delayed || (x && s->dly.have && (s->c.compete || s->c.loss_queue)))
		snprintf(queue, sizeof(queue), " queue %lldus of %lldus%s",
			 (long long)(s->dly.queue_ns / 1000),
			 (long long)(delay_span(&s->dly, &s->c.delay) / 1000),
			 s->pfd < 0 ? "" : s->probe_source ? (s->dread.fresh ? " (probes)" :
			 " (probes, the last read)") : " (the request's)");
	/* what the qdisc sent, and whether W held it back (load.h) */
	load[0] = '\0';
	if (ls.has_held && e->sent_dt_ns)
		snprintf(load, sizeof(load), "; qdisc sent %s, held back %llu%%, %s",
			 fmt_rate(sr, e->sent_rate),
			 (unsigned long long)(e->held_ns >= e->sent_dt_ns ? 100 :
					      e->held_ns * 100 / e->sent_dt_ns),
			 s->load.bound ? "cap-bound" : "app-limited");
	else if (e->has_load)
		snprintf(load, sizeof(load), "; qdisc sent %s, %s", fmt_rate(sr, e->sent_rate),
			 s->load.bound ? "cap-bound" : "app-limited");
	log_msg("estimate %u: sent %llu received %llu L %lld R %s W %s D %s (%s)%s over %uus%s",
		s->est_seq, (unsigned long long)e->sent, (unsigned long long)e->received,
		(long long)s->last_l, fmt_rate(r, e->recv_rate), fmt_rate(w, s->aimd.w),
		fmt_rate(d, s->aimd.d), rule, queue, e->interval_us, load);
}

/*
 * The peer quiet for decay-after intervals in a row: W halves each missed
 * interval from then on, down to w-floor (or w-max, if lower). No estimate:
 * the qdisc gets the new W with R = the W before, so that the controller
 * sees no loss in it (s = 1), and the last estimate's seq. The responses'
 * return goes on from the decayed W by the AIMD rule.
 */
static void decay(struct sender *s)
{
	const struct aimd_params *p = &s->c.aimd;
	uint64_t floor = s->c.w_floor, old = s->aimd.w;
	char w[FMT_LEN], f[FMT_LEN];
	struct abw_estimate a;

	if (!s->attached || !s->c.decay_after || s->quiet_misses < s->c.decay_after ||
	    s->quiet_misses == s->decayed_at)
		return;
	s->decayed_at = s->quiet_misses;
	if (p->w_max && floor > p->w_max)
		floor = p->w_max;
	if (floor < p->w_min)
		floor = p->w_min;
	if (old <= floor)
		return;
	s->aimd.w = old / 2 > floor ? old / 2 : floor;
	/*
	 * (no headroom from before the silence, nor a drain's W: the return
	 * goes on from here)
	 */
	load_forget(&s->load);
	compete_init(&s->cmp);
	s->decays++;
	if (s->aimd.w == floor)
		log_warn("no response for %u interval%s in a row: W at w-floor, %s",
			 s->quiet_misses, s->quiet_misses == 1 ? "" : "s",
			 fmt_rate(w, s->aimd.w));
	else
		log_warn("no response for %u interval%s in a row: W halved to %s (w-floor %s)",
			 s->quiet_misses, s->quiet_misses == 1 ? "" : "s",
			 fmt_rate(w, s->aimd.w), fmt_rate(f, floor));
	a = (struct abw_estimate){
		.abw = s->aimd.w,
		.recv_rate = old,
		.seq = s->est_seq,
		.interval_us = (uint32_t)s->c.interval_us,
	};
	abw_set(s, &a);
	write_status(s);
}

/* an accepted response: its sample, and the estimate if there is one */
static void on_response(struct sender *s, const struct wire_resp *r)
{
	struct probe_state st;
	struct iv_estimate e;
	struct delay_sample x = { 0 };
	struct pending p;
	struct sample smp;
	struct nl_err err;
	unsigned int why;
	char msg[300];
	int ret, i = pending_find(s, r->seq);

	/* those sent before it are lost: their responses would have come first */
	while (i-- > 0)
		on_timeout(s);
	p = s->pend[0];
	memmove(&s->pend[0], &s->pend[1], --s->npend * sizeof(s->pend[0]));
	s->responses++;
	s->answered_seq = p.seq;
	if (s->quiet_misses > 1)
		log_msg("responses again after %u intervals without one", s->quiet_misses);
	s->quiet_misses = 0;
	s->decayed_at = 0;
	/* the qdisc keys its snapshot by the request's body, without the zeros */
	ret = kern_probe_get(&s->nl, s->c.ifindex, s->c.handle, p.key,
			     wire_req_body_len(s->c.key.len), &st, &err);
	if (ret) {
		s->recheck = true;	/* its probe-mark changed? is it still there? */
		s->no_snapshot++;
		sample_lost(s);
		kern_strerror(msg, sizeof(msg), &err, ret);
		set_error(s, "probe-get of request %u: %s", r->seq, msg);
		log_limited(&s->rl_snap, "%s%s", s->last_error, ret == -ENOENT ?
			    " (did the request leave by the qdisc's device?)" : "");
		return;
	}
	(void)follow_mark(s, st.mark);
	smp = (struct sample){
		.ps = st.packets,
		.pr = r->packets,
		.br = r->bytes,
		.tr = r->time,
		.bs = st.bytes,
		.ts = st.time,
		.held = st.held,
		.has_held = st.has_held,
	};
	s->have_tr = true;
	s->last_tr = r->time;
	switch (interval_feed(&s->iv, &smp, &e, &why)) {
	case IV_FIRST:
		if (verbose)
			log_msg("request %u: the first sample", r->seq);
		break;
	case IV_DISCONT:
		s->discontinuities++;
		/* a rebooted responder's clock too: the delays start over */
		delays_init(s);
		load_init(&s->load);	/* and a new qdisc's load */
		compete_abandon(&s->cmp, &s->aimd, &s->c.aimd);
		log_warn("request %u: counts do not follow on (%s): a new baseline",
			 r->seq, discont_why(msg, sizeof(msg), why) + 1);
		break;
	case IV_ZERO_DT:
		s->zero_intervals++;
		sample_lost(s);
		log_warn("request %u: T_r did not move: sample ignored", r->seq);
		break;
	case IV_ESTIMATE:
		/* the request's one-way delay: the clocks' offset cancels in delay.c */
		{
			/* (the probes' delay needs no dequeue time) */
			bool have = st.has_time;

			x.owd_ns = probe_delay(s, (int64_t)(r->time - st.time), &have);
			x.rtt_ns = mono_ns() - p.sent_ns;
			apply(s, &e, have ? &x : NULL);
		}
		break;
	}
}

static void on_datagram(struct sender *s, const uint8_t *buf, ssize_t n,
			const struct sockaddr_storage *from)
{
	enum wire_verdict v;
	struct wire_resp r;
	struct wire_hello h;
	char addr[ADDR_STRLEN];

	if (n <= WIRE_MAX_LEN && wire_type(buf, (size_t)n) == WIRE_HELLO_REPLY) {
		v = wire_hello_decode(buf, (size_t)n, WIRE_HELLO_REPLY, &s->c.key, &h);
		if (v == WIRE_OK && !sock_same((struct sockaddr *)from,
					       (struct sockaddr *)&s->peer))
			v = WIRE_UNEXPECTED;
		else if (v == WIRE_OK && (!s->hello_waiting || h.seq != s->hello_seq))
			v = WIRE_UNEXPECTED;	/* not the hello awaited's */
		else if (v == WIRE_OK && s->c.key.len && h.epoch != s->epoch)
			v = WIRE_REPLAYED;
		if (v == WIRE_OK) {
			on_hello_reply(s, &h);
			return;
		}
		s->dropped[v]++;
		log_limited(&s->rl_drop[v], "dropped a datagram from %s (%s, %zd bytes, a hello "
			    "reply)", fmt_addr(addr, sizeof(addr), (const struct sockaddr *)from),
			    wire_verdict_name(v), n);
		return;
	}
	if (n > WIRE_MAX_LEN)
		v = WIRE_MALFORMED;
	else
		v = wire_resp_decode(buf, (size_t)n, &s->c.key, &r);
	if (v == WIRE_OK && !sock_same((struct sockaddr *)from, (struct sockaddr *)&s->peer))
		v = WIRE_UNEXPECTED;
	else if (v == WIRE_OK && s->c.key.len && r.epoch != s->epoch)
		v = WIRE_REPLAYED;	/* authentic, but for an earlier run */
	else if (v == WIRE_OK && pending_find(s, r.seq) < 0)
		v = WIRE_UNEXPECTED;
	else if (v == WIRE_OK && s->have_tr && r.time == s->last_tr)
		v = WIRE_REPLAYED;	/* the last snapshot again: nothing new */
	if (v != WIRE_OK) {
		s->dropped[v]++;
		log_limited(&s->rl_drop[v], "dropped a datagram from %s (%s, %zd bytes)",
			    fmt_addr(addr, sizeof(addr), (const struct sockaddr *)from),
			    wire_verdict_name(v), n);
		return;
	}
	on_response(s, &r);
	write_status(s);
}

/* the datagrams waiting, at most a batch of them */
static void datagram(void *ctx, const struct datagram *d)
{
	struct sender *s = ctx;

	/* --once: not one estimate more, whatever else the batch holds */
	if (s->once && s->estimates >= s->once)
		return;
	on_datagram(s, d->buf, d->len, &d->from);
}

/*
 * SIGHUP: the new configuration, if it is valid. A new device, handle or
 * port that is not there yet is waited for if the sender waits already;
 * a running sender keeps the configuration in force instead (a typo in a
 * reload should not stop the estimates). A new peer, device or qdisc
 * starts the estimation over. 0, or -1 on an error no wait mends.
 */
static int reload(const struct daemon *d, struct sender *s)
{
	char why[sizeof(s->waiting)], hint[sizeof(s->waiting)];
	struct config nc;
	bool path, family, qdisc, rule, probes;
	int fd = -1, ret = 0;

	if (daemon_reload(d, &nc)) {
		log_warn("SIGHUP: keeping the configuration in force");
		return 0;
	}
	qdisc = strcmp(nc.dev, s->c.dev) || nc.handle != s->c.handle || nc.port != s->c.port;
	path = qdisc || memcmp(&nc.peer, &s->c.peer, sizeof(nc.peer));
	family = nc.peer.ss_family != s->c.peer.ss_family;
	if (qdisc && s->attached && check_qdisc(&s->nl, &nc, NULL, why, hint, sizeof(why))) {
		log_warn("SIGHUP: %s%s: keeping the configuration in force", why, hint);
		goto out;
	}
	if (family) {
		fd = open_socket(&nc);
		if (fd < 0) {
			log_warn("SIGHUP: keeping the configuration in force");
			goto out;
		}
		close(s->fd);
		s->fd = fd;
		s->mark = 0;
	}
	if (nc.key.len != s->c.key.len || memcmp(nc.key.data, s->c.key.data, nc.key.len))
		s->npend = 0;
	/*
	 * another rule for W, or its parameters: its delays start over, and
	 * the loss rule's test (a drain under way gives W back)
	 */
	rule = memcmp(&nc.delay, &s->c.delay, sizeof(nc.delay));
	if (rule)
		delays_init(s);
	if (rule || nc.compete != s->c.compete || nc.interval_us != s->c.interval_us)
		compete_abandon(&s->cmp, &s->aimd, &nc.aimd);
	probes = path || family || nc.probe_interval_us != s->c.probe_interval_us;
	s->c = nc;
	set_peer_port(s);
	if (probes)
		probes_open(s);
	if (qdisc || !s->attached) {
		log_msg("reloaded: peer %s port %u, dev %s; the estimation starts over",
			s->c.peer_str, s->c.port, s->c.dev);
		s->attached = false;
		s->waiting[0] = '\0';
		s->backoff_ms = 0;
		ret = try_attach(s, mono_ns());
		goto out;
	}
	apply_qdisc_cap(s);
	ret = refresh_mark(s);
	if (path) {
		restart(s);
		log_msg("reloaded: peer %s port %u, dev %s; the estimation starts over",
			s->c.peer_str, s->c.port, s->c.dev);
	} else {
		log_msg("reloaded");
	}
	if (s->next_tick > mono_ns() + s->c.interval_us * 1000)
		s->next_tick = mono_ns() + s->c.interval_us * 1000;
	write_status(s);
out:
	explicit_bzero(&nc.key, sizeof(nc.key));
	return ret;
}

static void wait_log(struct sender *s, const char *why, const char *hint)
{
	log_warn("%s: waiting for it%s", why, hint);
	snprintf(s->waiting, sizeof(s->waiting), "%s", why);
	set_error(s, "waiting: %s", why);
	write_status(s);
}

/* stop sending until the device and the qdisc are back, as try_attach finds */
static void detach(struct sender *s, const char *why, const char *hint)
{
	s->attached = false;
	s->npend = 0;
	s->backoff_ms = 0;
	s->retry = mono_ns() + 1000000000ULL;
	wait_log(s, why, hint);
}

/*
 * Look for the device (by name: a tunnel recreated has another ifindex)
 * and its qdisc: attached, the estimation starts over; if not, the reason
 * is logged when it changes, and the next look is after a back-off of 1,
 * 2, 4 ... 30 s. 0, or -1 on an error no wait mends.
 */
static int try_attach(struct sender *s, uint64_t now)
{
	char why[sizeof(s->waiting)], hint[sizeof(s->waiting)], h[FMT_LEN];
	uint32_t mark;
	int ret;

	ret = check_qdisc(&s->nl, &s->c, &mark, why, hint, sizeof(why));
	if (ret < 0) {
		log_err("%s", why);
		return -1;
	}
	if (ret) {
		if (strcmp(why, s->waiting))
			wait_log(s, why, hint);
		s->retry = daemon_backoff(&s->backoff_ms, now);
		return 0;
	}
	if (follow_mark(s, mark))
		return -1;
	if (s->waiting[0])
		log_msg("dev %s (ifindex %u) handle %s there, counting for port %u",
			s->c.dev, s->c.ifindex, fmt_handle(h, s->c.handle), s->c.port);
	s->attached = true;
	s->waiting[0] = '\0';
	s->backoff_ms = 0;
	apply_qdisc_cap(s);
	restart(s);
	s->next_tick = now;
	write_status(s);
	return 0;
}

int run_sender(const struct daemon *d, struct config *c)
{
	struct sender *s;
	struct pollfd pfd[3];
	uint64_t now, until, step;
	int sigfd, ret = EXIT_FAIL;
	char h[FMT_LEN], t[FMT_LEN];
	const char *why;

	s = calloc(1, sizeof(*s));
	if (!s) {
		log_err("out of memory");
		return EXIT_FAIL;
	}
	s->c = *c;
	s->fd = -1;
	s->pfd = -1;
	set_peer_port(s);
	if (daemon_kern_open(&s->nl)) {
		free(s);
		return EXIT_FAIL;
	}
	s->fd = open_socket(&s->c);
	if (s->fd < 0)
		goto out;
	sigfd = signals_open();
	if (sigfd < 0) {
		log_err("signalfd: %s", strerror(-sigfd));
		goto out;
	}
	s->once = d->once;
	if (epoch_next(s->c.epoch_file, real_ns(), &s->epoch, &why))
		log_warn("epoch-file %s: %s; the epoch is not kept: if the clock is "
			 "set back, the next start's requests are refused as replays",
			 s->c.epoch_file, why);
	if (getrandom(&s->next_seq, sizeof(s->next_seq), GRND_NONBLOCK) != sizeof(s->next_seq))
		s->next_seq = (uint16_t)(mono_ns() ^ (uint64_t)getpid());
	s->answered_seq = s->next_seq - 1;
	log_msg("sender: peer %s port %u, qdisc dev %s handle %s, every %s%s",
		s->c.peer_str, s->c.port, s->c.dev, fmt_handle(h, s->c.handle),
		fmt_time(t, s->c.interval_us), s->c.key.len ? ", authenticated" : "");
	if (try_attach(s, mono_ns())) {
		close(sigfd);
		goto out;
	}
	probes_open(s);
	write_status(s);
	/* up: it waits for its device and qdisc itself, saying so */
	daemon_notify("READY=1");

	for (;;) {
		now = mono_ns();
		if (!s->attached && now >= s->retry && try_attach(s, now))
			break;
		while (s->npend && now >= s->pend[0].deadline)
			on_timeout(s);
		if (s->recheck) {
			s->recheck = false;
			if (refresh_mark(s))
				break;
		}
		decay(s);
		if (s->attached && now >= s->next_tick) {
			send_request(s, now);
			step = s->c.interval_us * 1000;
			s->next_tick += step;
			/* fell behind (suspended, say): the next a whole interval on */
			if (s->next_tick <= now)
				s->next_tick = now + step;
		}
		/* (a probe is data: none while the qdisc is not there to count it) */
		if (s->attached && s->pfd >= 0 && now >= s->next_probe) {
			send_probe(s, now);
			step = s->c.probe_interval_us * 1000;
			s->next_probe += step;
			if (s->next_probe <= now)
				s->next_probe = now + step;
		}
		until = s->attached ? s->next_tick : s->retry;
		if (s->npend && s->pend[0].deadline < until)
			until = s->pend[0].deadline;
		if (s->attached && s->pfd >= 0 && s->next_probe < until)
			until = s->next_probe;
		pfd[0] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = sigfd, .events = POLLIN };
		/* (a socket's error queue, its transmit stamps, shows as POLLERR) */
		pfd[2] = (struct pollfd){ .fd = s->pfd, .events = POLLIN };
		if (poll(pfd, 3, daemon_poll_ms(now, until)) < 0) {
			if (errno == EINTR)
				continue;
			log_err("poll: %s", strerror(errno));
			break;
		}
		if (pfd[1].revents) {
			enum sig_action a = signals_read(sigfd);

			if (a == SIG_STOP) {
				log_msg("stopping");
				daemon_notify("STOPPING=1");
				ret = 0;
				break;
			}
			if (a == SIG_RELOAD) {
				daemon_notify("RELOADING=1");
				if (reload(d, s))
					break;
				daemon_notify("READY=1");
			}
		}
		/* the stamps first: the echoes that follow need them */
		if (s->pfd >= 0 && pfd[2].fd == s->pfd && (pfd[2].revents & POLLERR))
			probe_stamps(s);
		if (s->pfd >= 0 && pfd[2].fd == s->pfd && (pfd[2].revents & POLLIN))
			read_datagrams(s->pfd, probe_datagram, s, s->last_error,
				       sizeof(s->last_error), &s->rl_probe);
		if (pfd[0].revents)
			read_datagrams(s->fd, datagram, s, s->last_error, sizeof(s->last_error),
				       &s->rl_io);
		if (s->recheck) {
			s->recheck = false;
			if (refresh_mark(s))
				break;
		}
		if (d->once && s->estimates >= d->once) {
			ret = 0;
			break;
		}
	}
	write_status(s);
	close(sigfd);
out:
	if (s->fd >= 0)
		close(s->fd);
	probes_close(s);
	nl_close(&s->nl);
	explicit_bzero(&s->c.key, sizeof(s->c.key));
	free(s);
	return ret;
}
