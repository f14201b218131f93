// SPDX-License-Identifier: GPL-2.0
/*
 * er2bcctl status: is er2bc well on this gateway? In one look, each
 * er2bc-abwd's status file (its role, how fresh it is, the peer's
 * answers), the er2bc qdisc each sender feeds (ctrl-get) and, last, what
 * is wrong; exit 1 if anything is.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <glob.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <net/if.h>
#include <linux/er2bc_genl.h>

#include "decode.h"
#include "er2bcctl.h"
#include "json.h"
#include "json_read.h"
#include "nl.h"
#include "output.h"
#include "parse.h"
#include "status.h"

#define STATUS_DIR	"/run/er2bc"
#define STATUS_GLOB	"abwd-*.json"
#define STATUS_MAX	(64 * 1024)	/* a status file is under 2 KiB */
#define FILES_MAX	16

/* a responder without a request for this long: the peer is not asking */
#define RESPONDER_QUIET_US	(30 * 1000000ULL)
/* missed intervals in a row that make the peer unreachable */
#define SENDER_MISSES		3
/*
 * requests and seconds a responder goes without a hello, while requests
 * come, before status says the sender speaks protocol 1 (or its hellos are
 * lost): three of the sender's hello periods, the later of 60 requests and
 * 10 s (sender.c's HELLO_EVERY, HELLO_EVERY_NS)
 */
#define HELLO_QUIET_REQUESTS	180
#define HELLO_QUIET_SECONDS	30

static void add_problem(struct status_daemon *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_problem(struct status_daemon *d, const char *fmt, ...)
{
	va_list ap;

	if (d->nproblems >= STATUS_PROBLEMS_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(d->problem[d->nproblems++], sizeof(d->problem[0]), fmt, ap);
	va_end(ap);
}

static uint64_t get(const struct status_daemon *d, const char *key)
{
	uint64_t v = 0;

	jr_u64(&d->doc, key, &v);
	return v;
}

static const char *str(const struct status_daemon *d, const char *key)
{
	const char *s = jr_str(&d->doc, key);

	return s ? s : "?";
}

/* whole seconds, as the files have them: "0s", "100s" */
static const char *fmt_secs(char *buf, uint64_t us)
{
	snprintf(buf, FMT_LEN, "%" PRIu64 "s", us / 1000000);
	return buf;
}

/* how long ago the daemon wrote its file, in us (0 if it says later) */
static uint64_t age_us(const struct status_daemon *d, uint64_t now_unix_us)
{
	uint64_t t = get(d, "unix_time_seconds") * 1000000;

	return now_unix_us > t ? now_unix_us - t : 0;
}

/*
 * The two daemons' protocols (their hellos: er2bc-abwd(8), UPGRADES) as
 * this side's file says them, if it does (a release before hellos says
 * nothing): another protocol at the other end is an upgrade not finished
 */
static void judge_versions(struct status_daemon *d, bool sender)
{
	uint64_t own, peer;
	const char *rel;
	char who[300];

	if (!jr_u64(&d->doc, "protocol", &own))
		return;
	/* a sender that asks and says no hello, or no more */
	if (!sender && get(d, "peer_versions.requests_since") >= HELLO_QUIET_REQUESTS &&
	    get(d, "peer_versions.seconds_since") >= HELLO_QUIET_SECONDS) {
		add_problem(d, "%" PRIu64 " requests and no hello in %" PRIu64 "s: the sender "
			    "speaks protocol 1 (a release without hellos), or its hellos are lost "
			    "on the way; this side %" PRIu64 " (er2bc %s): upgrade it "
			    "(er2bc-abwd(8), UPGRADES)", get(d, "peer_versions.requests_since"),
			    get(d, "peer_versions.seconds_since"), own, str(d, "release"));
		return;
	}
	if (!jr_u64(&d->doc, "peer_versions.protocol", &peer) || !peer)
		return;
	if (peer == own)
		return;
	rel = jr_str(&d->doc, "peer_versions.release");
	if (sender)
		snprintf(who, sizeof(who), "the responder %s", str(d, "peer"));
	else
		snprintf(who, sizeof(who), "the sender");
	if (peer == 1)
		add_problem(d, "%s answers no hello: it speaks protocol 1 (a release without "
			    "hellos), or they are lost on the way; this side %" PRIu64 " (er2bc %s): "
			    "upgrade it (er2bc-abwd(8), UPGRADES)", who, own, str(d, "release"));
	else
		add_problem(d, "%s speaks protocol %" PRIu64 " (er2bc %s), this side %" PRIu64
			    " (er2bc %s): upgrade the older side (er2bc-abwd(8), UPGRADES)", who,
			    peer, rel && *rel ? rel : "?", own, str(d, "release"));
}

void status_judge(struct status_daemon *d, uint64_t now_unix_us, uint64_t now_mono_ns)
{
	uint64_t age = age_us(d, now_unix_us), interval = get(d, "interval_us"), v;
	const char *role = jr_str(&d->doc, "role"), *err = jr_str(&d->doc, "last_error");
	char a[FMT_LEN], b[FMT_LEN];
	bool stale, on;

	d->nproblems = 0;
	if (d->error[0]) {
		add_problem(d, "%s", d->error);
		return;
	}
	if (!role || (strcmp(role, "sender") && strcmp(role, "responder"))) {
		add_problem(d, "not an er2bc-abwd status file (no role)");
		return;
	}
	if (!strcmp(role, "responder")) {
		/* datagrams come, but not one is a request it takes */
		v = get(d, "dropped.unauthenticated") + get(d, "dropped.replayed") +
		    get(d, "dropped.malformed");
		if (!get(d, "requests") && v)
			add_problem(d, "%" PRIu64 " datagrams dropped and no request taken "
				    "(unauthenticated %" PRIu64 ", replayed %" PRIu64 ", malformed %"
				    PRIu64 "): do both ends have the same key?", v,
				    get(d, "dropped.unauthenticated"), get(d, "dropped.replayed"),
				    get(d, "dropped.malformed"));
		/* it writes its file when a datagram came, at most once a second */
		if (age > RESPONDER_QUIET_US)
			add_problem(d,
				    "no request from the peer for %s: is its sender running, and is port %" PRIu64 " open here?",
				    fmt_secs(a, age), get(d, "port"));
		judge_versions(d, false);
		return;
	}
	judge_versions(d, true);

	/* a sender writes its file at each interval */
	if (interval && age > 3 * interval + 2000000)
		add_problem(d, "not written for %s (interval %s): is er2bc-abwd running?",
			    fmt_secs(a, age), fmt_time(b, interval));
	v = get(d, "quiet_intervals");
	if (v >= SENDER_MISSES)
		add_problem(d, "no response from %s for %" PRIu64 " intervals (%s)",
			    str(d, "peer"), v, err && *err ? err : "no error recorded");
	if (!get(d, "estimates") && v < SENDER_MISSES)
		add_problem(d, "no estimate yet");
	/* delay probes (probe-interval) that bring no delay */
	if (jr_bool(&d->doc, "probes.on", &on) && !on)
		add_problem(d, "delay probes configured but not sent (no socket, or no transmit "
			    "timestamps: see its log)");
	else if (get(d, "probes.sent") >= 50 && !get(d, "probes.echoed"))
		add_problem(d, "none of %" PRIu64 " delay probes echoed: does the responder "
			    "take them (a release before probes does not), or is something "
			    "between dropping them?", get(d, "probes.sent"));
	else if (get(d, "probes.sent") >= 50 && jr_bool(&d->doc, "probes.reading", &on) && !on)
		add_problem(d, "the last estimate did not read the delay probes: none echoed "
			    "with a transmit timestamp lately (echoed %" PRIu64 " of %" PRIu64
			    ", unstamped %" PRIu64 "); the requests' delay serves",
			    get(d, "probes.echoed"), get(d, "probes.sent"), get(d, "probes.unstamped"));
	if (get(d, "abw_set_failures") && jr_bool(&d->doc, "applied", &stale) && !stale)
		add_problem(d, "its estimates do not reach the qdisc (%s)",
			    err && *err ? err : "no error recorded");

	if (!d->have_q) {
		add_problem(d, "%s", d->q_error[0] ? d->q_error : "no qdisc read");
		return;
	}
	if (d->q.has[ER2BC_A_QDISC_STALE] && d->q.v[ER2BC_A_QDISC_STALE]) {
		if (last_update_ago(&d->q, now_mono_ns, &v))
			add_problem(d, "qdisc %s on %s is stale: the last estimate came %s ago",
				    str(d, "handle"), str(d, "dev"),
				    fmt_time(a, v / 1000000000 * 1000000));
		else
			add_problem(d, "qdisc %s on %s is stale: no estimate yet",
				    str(d, "handle"), str(d, "dev"));
	}
}

/* the daemon's last error, if it has one */
static void print_last_error(FILE *f, const struct status_daemon *d)
{
	const char *err = jr_str(&d->doc, "last_error");

	if (err && *err)
		fprintf(f, "  last error: %s\n", err);
}

/*
 * this side's release and protocol, and the other side's (@who) as its
 * hellos said them; nothing from a release before hellos
 */
static void text_versions(FILE *f, const struct status_daemon *d, const char *who)
{
	struct line l;
	uint64_t own, peer;
	const char *rel = jr_str(&d->doc, "peer_versions.release");

	if (!jr_u64(&d->doc, "protocol", &own))
		return;
	line_init(&l, "  ");
	line_add(&l, "er2bc %s protocol %" PRIu64, str(d, "release"), own);
	if (!jr_u64(&d->doc, "peer_versions.protocol", &peer) || !peer)
		line_add(&l, "%s versions not known yet", who);
	else if (peer == 1)
		line_add(&l, "%s protocol 1 (no hellos)", who);
	else
		line_add(&l, "%s er2bc %s protocol %" PRIu64, who, rel && *rel ? rel : "?", peer);
	line_print(f, &l, "  ");
}

static void text_sender(FILE *f, const struct status_daemon *d, uint64_t now_mono_ns)
{
	const struct qdisc_info *q = &d->q;
	char b[FMT_LEN], c[FMT_LEN];
	struct line l;
	uint64_t v;

	line_init(&l, "  ");
	line_add(&l, "peer %s port %" PRIu64, str(d, "peer"), get(d, "port"));
	line_add(&l, "dev %s handle %s", str(d, "dev"), str(d, "handle"));
	line_add(&l, "mode %s", str(d, "mode"));
	line_add(&l, "interval %s", fmt_time(b, get(d, "interval_us")));
	line_print(f, &l, "  ");
	line_init(&l, "  ");
	line_add(&l, "estimates %" PRIu64, get(d, "estimates"));
	if (jr_u64(&d->doc, "abw_bytes_per_second", &v))
		line_add(&l, "abw %s", fmt_rate(b, v * 8));
	if (jr_u64(&d->doc, "recv_rate_bytes_per_second", &v))
		line_add(&l, "recv-rate %s", fmt_rate(b, v * 8));
	line_add(&l, "responses %" PRIu64 " of %" PRIu64, get(d, "responses"),
		 get(d, "requests"));
	line_add(&l, "timeouts %" PRIu64, get(d, "timeouts"));
	if (jr_u64(&d->doc, "rtt_min_us", &v))
		line_add(&l, "rtt-min %s", fmt_time(b, v));
	line_print(f, &l, "  ");
	if (jr_u64(&d->doc, "probes.interval_us", &v)) {
		line_init(&l, "  ");
		line_add(&l, "probes every %s", fmt_time(b, v));
		line_add(&l, "echoed %" PRIu64 " of %" PRIu64, get(d, "probes.echoed"),
			 get(d, "probes.sent"));
		line_add(&l, "unstamped %" PRIu64, get(d, "probes.unstamped"));
		line_add(&l, "reads %" PRIu64, get(d, "probes.reads"));
		if (jr_u64(&d->doc, "probes.qdisc_wait_max_us", &v))
			line_add(&l, "qdisc-wait-max %s", fmt_time(b, v));
		line_print(f, &l, "  ");
	}
	text_versions(f, d, "responder");
	print_last_error(f, d);
	if (!d->have_q)
		return;
	line_init(&l, "  ");
	line_add(&l, "qdisc %s dev %s", str(d, "handle"), str(d, "dev"));
	if (q->has[ER2BC_A_QDISC_MODE])
		line_add(&l, "mode %s", mode_name(q->v[ER2BC_A_QDISC_MODE], c));
	if (q->has[ER2BC_A_QDISC_ABW])
		line_add(&l, "cap %s", fmt_rate(b, q->v[ER2BC_A_QDISC_ABW]));
	if (last_update_ago(q, now_mono_ns, &v))
		line_add(&l, "last estimate %s ago", fmt_time(b, v / 1000000 * 1000));
	if (q->has[ER2BC_A_QDISC_STALE])
		line_add(&l, "stale %s", q->v[ER2BC_A_QDISC_STALE] ? "yes" : "no");
	if (q->has[ER2BC_A_QDISC_GUARANTEED])
		line_add(&l, "guaranteed %s", fmt_rate(b, q->v[ER2BC_A_QDISC_GUARANTEED]));
	if (q->has[ER2BC_A_QDISC_CLASSES])
		line_add(&l, "classes %" PRIu64, q->v[ER2BC_A_QDISC_CLASSES]);
	line_print(f, &l, "  ");
}

static void text_responder(FILE *f, const struct status_daemon *d)
{
	struct line l;

	line_init(&l, "  ");
	line_add(&l, "listen %s port %" PRIu64, str(d, "listen"), get(d, "port"));
	line_add(&l, "dev %s", str(d, "dev"));
	line_add(&l, "peer prefixes %" PRIu64, get(d, "peer_prefixes"));
	line_print(f, &l, "  ");
	line_init(&l, "  ");
	line_add(&l, "requests %" PRIu64, get(d, "requests"));
	line_add(&l, "responses %" PRIu64, get(d, "responses"));
	line_add(&l, "rate-limited %" PRIu64, get(d, "rate_limited"));
	if (get(d, "probes.received"))
		line_add(&l, "probes %" PRIu64 " echoed %" PRIu64, get(d, "probes.received"),
			 get(d, "probes.echoed"));
	line_add(&l, "dropped unauthenticated %" PRIu64 " replayed %" PRIu64
		 " malformed %" PRIu64, get(d, "dropped.unauthenticated"),
		 get(d, "dropped.replayed"), get(d, "dropped.malformed"));
	line_add(&l, "meter refused unauthenticated %" PRIu64 " replayed %" PRIu64,
		 get(d, "meter_refused.unauthenticated"), get(d, "meter_refused.replayed"));
	line_print(f, &l, "  ");
	text_versions(f, d, "sender");
	print_last_error(f, d);
}

/* the objects that a key "a.b.c" (as the reader flattens them) is in: "a.b." */
static size_t parent_len(const char *key)
{
	const char *dot = strrchr(key, '.');

	return dot ? (size_t)(dot - key) + 1 : 0;
}

/* how many objects "a.b." names */
static size_t depth_of(const char *path)
{
	size_t n = 0;

	for (; *path; path++)
		n += *path == '.';
	return n;
}

/*
 * The file's members as they are, each object nested as the file nests it
 * (the reader hands them over flattened, "probes.sent", an object's
 * members one after the other); arrays and nulls left out
 */
static void json_file(struct json *j, const struct jr_doc *doc)
{
	char open[JR_KEY_LEN] = "";	/* the objects open now, "a.b." */
	size_t i, k, common, plen;

	for (i = 0; i < doc->n; i++) {
		const struct jr_pair *p = &doc->pair[i];
		const char *leaf;

		if (p->type == JR_NULL)
			continue;
		/* close those this member is not in, open those it is in */
		plen = parent_len(p->key);
		for (k = common = 0; open[k] && k < plen && open[k] == p->key[k]; k++)
			if (open[k] == '.')
				common = k + 1;
		for (k = depth_of(open + common); k > 0; k--)
			json_obj_close(j);
		while (common < plen) {
			const char *name = p->key + common, *dot = strchr(name, '.');
			char obj[JR_KEY_LEN];

			snprintf(obj, sizeof(obj), "%.*s", (int)(dot - name), name);
			json_obj_open(j, obj);
			common = (size_t)(dot - p->key) + 1;
		}
		snprintf(open, sizeof(open), "%.*s", (int)plen, p->key);
		leaf = p->key + plen;
		switch (p->type) {
		case JR_INT:
			if (p->neg)
				json_s64(j, leaf, (int64_t)(0 - p->u));
			else
				json_u64(j, leaf, p->u);
			break;
		case JR_STR:
			json_str(j, leaf, p->str);
			break;
		case JR_BOOL:
			json_bool(j, leaf, p->b);
			break;
		case JR_NULL:
			break;
		}
	}
	for (k = depth_of(open); k > 0; k--)
		json_obj_close(j);
}

static void json_daemon(struct json *j, const struct status_daemon *d, uint64_t now_unix_us,
			uint64_t now_mono_ns)
{
	size_t i;

	json_obj_open(j, NULL);
	json_str(j, "file", d->file);
	if (!d->error[0]) {
		const char *role = jr_str(&d->doc, "role");

		if (role)
			json_str(j, "role", role);
		/* (metrics' er2bc_abwd_status_age_seconds, the text's "written ... ago") */
		json_u64(j, "status_age_us", age_us(d, now_unix_us));
		json_obj_open(j, "status");
		json_file(j, &d->doc);
		json_obj_close(j);
		if (d->have_q) {
			json_obj_open(j, "qdisc");
			qdisc_json(j, &d->q, &now_mono_ns);
			json_obj_close(j);
		}
	}
	json_arr_open(j, "problems");
	for (i = 0; i < d->nproblems; i++)
		json_str(j, NULL, d->problem[i]);
	json_arr_close(j);
	json_obj_close(j);
}

int status_print(FILE *f, const struct status_daemon *d, size_t n, const char *where,
		 uint64_t now_unix_us, uint64_t now_mono_ns)
{
	size_t i, k, problems = 0;
	char b[FMT_LEN];

	for (i = 0; i < n; i++)
		problems += d[i].nproblems;
	if (out.json) {
		struct json j;

		json_init(&j, f, out.pretty);
		json_obj_open(&j, NULL);
		json_bool(&j, "ok", !problems && n);
		json_arr_open(&j, "daemons");
		for (i = 0; i < n; i++)
			json_daemon(&j, &d[i], now_unix_us, now_mono_ns);
		json_arr_close(&j);
		json_obj_close(&j);
		json_end(&j);
		return problems || !n ? EXIT_FAIL : 0;
	}
	for (i = 0; i < n; i++) {
		const char *role = jr_str(&d[i].doc, "role");

		if (d[i].error[0] || !role) {
			fprintf(f, "%s\n", d[i].file);
			continue;
		}
		fprintf(f, "%s %s (written %s ago)\n", role, d[i].file,
			fmt_secs(b, age_us(&d[i], now_unix_us)));
		if (!strcmp(role, "sender"))
			text_sender(f, &d[i], now_mono_ns);
		else
			text_responder(f, &d[i]);
	}
	if (!n) {
		fprintf(f,
			"no er2bc-abwd status file: set \"status\" in the daemon's configuration (%s is read)\n",
			where ? where : STATUS_DIR "/" STATUS_GLOB);
		return EXIT_FAIL;
	}
	if (!problems) {
		fprintf(f, "ok\n");
		return 0;
	}
	fprintf(f, "%zu problem%s:\n", problems, problems > 1 ? "s" : "");
	for (i = 0; i < n; i++)
		for (k = 0; k < d[i].nproblems; k++)
			fprintf(f, "  %s: %s\n", d[i].file, d[i].problem[k]);
	return EXIT_FAIL;
}

int status_load(struct status_daemon *d, const char *path, const char *text)
{
	const char *why;

	memset(d, 0, sizeof(*d));
	snprintf(d->file, sizeof(d->file), "%s", path);
	d->doc.pair = d->pair;
	d->doc.max = ARRAY_SIZE(d->pair);
	if (json_read(text, &d->doc, &why)) {
		snprintf(d->error, sizeof(d->error), "cannot be read: %s", why);
		return -1;
	}
	return 0;
}

/* FILE's text (NUL-terminated, malloc'd), or NULL with d->error set */
static char *slurp(struct status_daemon *d, const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t len;

	if (!f) {
		snprintf(d->error, sizeof(d->error), "cannot be opened: %s", strerror(errno));
		return NULL;
	}
	buf = malloc(STATUS_MAX + 1);
	if (!buf) {
		fclose(f);
		snprintf(d->error, sizeof(d->error), "out of memory");
		return NULL;
	}
	len = fread(buf, 1, STATUS_MAX + 1, f);
	fclose(f);
	if (len > STATUS_MAX) {
		free(buf);
		snprintf(d->error, sizeof(d->error), "larger than %d bytes", STATUS_MAX);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/* a sender's qdisc, by the device name in its file (its ifindex if gone) */
static void read_qdisc(struct nl *nl, struct status_daemon *d)
{
	const char *dev = jr_str(&d->doc, "dev"), *h = jr_str(&d->doc, "handle"), *why;
	uint64_t ifindex = 0;
	struct nl_err err;
	uint32_t handle;
	int ret;

	if (!h || parse_handle(h, &handle, &why)) {
		snprintf(d->q_error, sizeof(d->q_error), "no qdisc handle in the file");
		return;
	}
	if (dev)
		ifindex = if_nametoindex(dev);
	if (!ifindex && !jr_u64(&d->doc, "ifindex", &ifindex)) {
		snprintf(d->q_error, sizeof(d->q_error), "no device %s", dev ? dev : "in the file");
		return;
	}
	if (!nl) {
		snprintf(d->q_error, sizeof(d->q_error),
			 "the er2bc family is missing: is sch_er2bc loaded?");
		return;
	}
	ret = ctrl_get(nl, (uint32_t)ifindex, handle, &d->q, &err);
	if (ret) {
		snprintf(d->q_error, sizeof(d->q_error), "qdisc %s on %s: %s%s%s", h,
			 dev ? dev : "?", err.msg[0] ? err.msg : "",
			 err.msg[0] ? ": " : "", strerror(-ret));
		return;
	}
	if (!d->q.msgs) {
		snprintf(d->q_error, sizeof(d->q_error), "no er2bc qdisc %s on %s", h,
			 dev ? dev : "?");
		return;
	}
	d->have_q = true;
}

#ifndef ER2BCCTL_VERSION
#define ER2BCCTL_VERSION "unknown"
#endif

/* "0.2.0", "1.10": digits and dots, a digit first */
static bool release_version(const char *v)
{
	if (!v || !isdigit((unsigned char)*v) || !strchr(v, '.'))
		return false;
	for (; *v; v++)
		if (!isdigit((unsigned char)*v) && *v != '.')
			return false;
	return true;
}

void status_versions(struct status_daemon *d, size_t n, const char *module,
		     const char *loaded)
{
	/*
	 * (only release versions, N.N...: a version either side cannot tell,
	 * or a build from git, its commit, is no mismatch)
	 */
	if (!n || !release_version(loaded) || !release_version(ER2BCCTL_VERSION) ||
	    !strcmp(loaded, ER2BCCTL_VERSION))
		return;
	add_problem(d, "%s %s is loaded, these tools are %s: after an upgrade the old module "
		    "stays until it is loaded again (its qdiscs hold it: stop er2bc-abwd@* and "
		    "er2bc-tc@*, which leaves the uplink unshaped meanwhile, modprobe -r %s, "
		    "start them again; or reboot)", module, loaded, ER2BCCTL_VERSION, module);
}

/* the version of @module loaded, in @buf; NULL if not loaded or it says none */
static const char *module_version(const char *module, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/%s/version", module);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* the files @path[0..n) into @d */
static void read_files(struct status_daemon *d, char *const *path, size_t n)
{
	size_t i;
	char *text;

	for (i = 0; i < n; i++) {
		memset(&d[i], 0, sizeof(d[i]));
		snprintf(d[i].file, sizeof(d[i].file), "%s", path[i]);
		text = slurp(&d[i], path[i]);
		if (text) {
			status_load(&d[i], path[i], text);
			free(text);
		}
	}
}

size_t status_read_dir(struct status_daemon *d, size_t max, const char *dir)
{
	char pattern[4096];
	glob_t g = { 0 };
	size_t n = 0;

	snprintf(pattern, sizeof(pattern), "%s/" STATUS_GLOB, dir ? dir : STATUS_DIR);
	if (glob(pattern, 0, NULL, &g) == 0) {
		n = g.gl_pathc < max ? g.gl_pathc : max;
		if (g.gl_pathc > max)
			err_msg("%s: %zu files match %s: the first %zu are read", cmd_name,
				(size_t)g.gl_pathc, pattern, max);
		read_files(d, g.gl_pathv, n);
	}
	globfree(&g);
	return n;
}

int do_status(int argc, char **argv)
{
	static struct status_daemon d[FILES_MAX];
	const char *files[FILES_MAX], *dir = NULL;
	bool have_dir = false;
	struct timespec rt, mono;
	struct nl own, *nl = NULL;
	size_t n = 0, i;
	char pattern[4096] = "";
	int ret;

	for (; argc > 0; argc -= 2, argv += 2) {
		if (strcmp(argv[0], "file") && strcmp(argv[0], "dir"))
			return usage_err("unknown argument \"%s\" (try " PROG " -h)", argv[0]);
		if (argc < 2)
			return usage_err("\"%s\" needs a value", argv[0]);
		if (!strcmp(argv[0], "dir")) {
			if (once(&have_dir, "dir"))
				return EXIT_USAGE;
			dir = argv[1];
			continue;
		}
		if (n == FILES_MAX)
			return usage_err("at most %d files", FILES_MAX);
		files[n++] = argv[1];
	}
	if (n && dir)
		return usage_err("give \"dir\" or files, not both");
	if (!n) {
		snprintf(pattern, sizeof(pattern), "%s/" STATUS_GLOB, dir ? dir : STATUS_DIR);
		n = status_read_dir(d, FILES_MAX, dir);
	} else {
		read_files(d, (char *const *)files, n);
	}
	/* the qdiscs: only if a sender names one (no module: said per sender) */
	for (i = 0; i < n; i++) {
		const char *role = jr_str(&d[i].doc, "role");

		if (d[i].error[0] || !role || strcmp(role, "sender"))
			continue;
		if (!nl && family_get(&fam_er2bc, &own, &nl))
			nl = NULL;
		read_qdisc(nl, &d[i]);
	}
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	for (i = 0; i < n; i++)
		status_judge(&d[i], (uint64_t)rt.tv_sec * 1000000 + (uint64_t)rt.tv_nsec / 1000,
			     (uint64_t)mono.tv_sec * 1000000000 + (uint64_t)mono.tv_nsec);
	{
		char v[64];

		status_versions(d, n, "sch_er2bc", module_version("sch_er2bc", v, sizeof(v)));
	}
	ret = status_print(stdout, d, n, n ? NULL : pattern,
			   (uint64_t)rt.tv_sec * 1000000 + (uint64_t)rt.tv_nsec / 1000,
			   (uint64_t)mono.tv_sec * 1000000000 + (uint64_t)mono.tv_nsec);
	for (i = 0; i < n; i++)
		qdisc_free(&d[i].q);
	if (nl)
		family_put(nl);
	return ret;
}
