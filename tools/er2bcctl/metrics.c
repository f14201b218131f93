// SPDX-License-Identifier: GPL-2.0
/*
 * er2bcctl metrics (metrics.h): what it gathers. rtnetlink's qdisc dump
 * finds the er2bc qdiscs (and their tc counters), its class dump of each
 * device their classes' counters; generic netlink gives each qdisc's
 * controller state (ctrl-get) and tcp_rcvmgr's counters (stats-get). A
 * module that is not loaded has no metrics; any other failure fails the
 * command (exit 1), printing nothing, so that a scrape never publishes a
 * partial picture.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <net/if.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/tcp_rcvmgr.h>

#include "er2bcctl.h"
#include "metrics.h"
#include "nl.h"
#include "output.h"
#include "parse.h"
#include "xstats.h"

#define KIND	"er2bc"

struct walk {
	struct metrics *m;
	uint32_t ifindex;		/* 0: every device */
	struct metrics_qdisc *q;	/* the class dump's qdisc */
	int error;			/* ENOMEM in a callback */
};

/* a message's or nest's attributes by type, up to max (mnl_attr_parse()) */
struct attrs {
	const struct nlattr **tb;
	unsigned int max;
};

static int attrs_cb(const struct nlattr *a, void *data)
{
	const struct attrs *at = data;
	unsigned int type = mnl_attr_get_type(a);

	if (type <= at->max)
		at->tb[type] = a;
	return MNL_CB_OK;
}

const struct nlattr *tc_counts_parse(const struct nlattr *stats2, struct tc_counts *c)
{
	const struct nlattr *tb[TCA_STATS_MAX + 1] = { 0 };
	struct attrs at = { tb, TCA_STATS_MAX };
	struct gnet_stats_basic b = { 0 };
	struct gnet_stats_queue q = { 0 };
	size_t len;

	memset(c, 0, sizeof(*c));
	if (mnl_attr_parse_nested(stats2, attrs_cb, &at) < 0)
		return NULL;
	if (tb[TCA_STATS_BASIC]) {
		len = mnl_attr_get_payload_len(tb[TCA_STATS_BASIC]);
		memcpy(&b, mnl_attr_get_payload(tb[TCA_STATS_BASIC]),
		       len < sizeof(b) ? len : sizeof(b));
		c->has_basic = true;
		c->bytes = b.bytes;
		c->packets = b.packets;
	}
	/* the packets' 64-bit count, where the kernel sends one */
	if (tb[TCA_STATS_PKT64] && mnl_attr_get_payload_len(tb[TCA_STATS_PKT64]) == 8)
		c->packets = mnl_attr_get_u64(tb[TCA_STATS_PKT64]);
	if (tb[TCA_STATS_QUEUE]) {
		len = mnl_attr_get_payload_len(tb[TCA_STATS_QUEUE]);
		memcpy(&q, mnl_attr_get_payload(tb[TCA_STATS_QUEUE]),
		       len < sizeof(q) ? len : sizeof(q));
		c->has_queue = true;
		c->qlen = q.qlen;
		c->backlog = q.backlog;
		c->drops = q.drops;
		c->overlimits = q.overlimits;
	}
	return tb[TCA_STATS_APP];
}

#define U64(tb, t) er2bc_stat_u64((tb)[TCA_ER2BC_STATS_##t])
#define U32(tb, t) er2bc_stat_u32((tb)[TCA_ER2BC_STATS_##t])
#define U8(tb, t) er2bc_stat_u8((tb)[TCA_ER2BC_STATS_##t])

/* @app's nested attributes (xstats.h), @key among them */
static bool stats_nested(const struct nlattr *app, const struct nlattr **tb, uint16_t key)
{
	return er2bc_stats_nested(mnl_attr_get_payload(app),
				  (int)mnl_attr_get_payload_len(app), tb) && tb[key];
}

void qdisc_xstats_parse(const struct nlattr *app, struct tc_er2bc_xstats *x, size_t *xlen)
{
	const struct nlattr *tb[TCA_ER2BC_STATS_MAX + 1];
	size_t len;

	memset(x, 0, sizeof(*x));
	*xlen = 0;
	if (!app)
		return;
	if (stats_nested(app, tb, TCA_ER2BC_STATS_CAP)) {
		*x = (struct tc_er2bc_xstats){
			.rate = U64(tb, CAP), .guaranteed = U64(tb, GUARANTEED),
			.unclassified = U64(tb, UNCLASSIFIED), .throttled = U64(tb, THROTTLED),
			.waits = U64(tb, WAITS), .classes = U32(tb, CLASSES),
			.active = U32(tb, ACTIVE), .updates = U64(tb, UPDATES),
			.stale = U8(tb, STALE), .seq = U32(tb, SEQ),
			.probe_packets = U64(tb, PROBE_PACKETS),
			.probe_bytes = U64(tb, PROBE_BYTES), .probes = U64(tb, PROBES),
			.probe_ignored = U64(tb, PROBE_IGNORED), .yielded = U64(tb, YIELDED),
			.estimate_age_ns = U64(tb, ESTIMATE_AGE_NS), .held_ns = U64(tb, HELD_NS),
		};
		*xlen = sizeof(*x);
		return;
	}
	/* a module loaded before an upgrade; every version's has the estimator's counts */
	len = mnl_attr_get_payload_len(app);
	if (len < offsetof(struct tc_er2bc_xstats, probe_packets))
		return;
	memcpy(x, mnl_attr_get_payload(app), len < sizeof(*x) ? len : sizeof(*x));
	*xlen = len;
}

void class_xstats_parse(const struct nlattr *app, struct tc_er2bc_class_xstats *x,
			size_t *xlen, struct class_bound *b)
{
	const struct nlattr *tb[TCA_ER2BC_STATS_MAX + 1];
	size_t len;

	memset(x, 0, sizeof(*x));
	memset(b, 0, sizeof(*b));
	*xlen = 0;
	if (!app)
		return;
	if (stats_nested(app, tb, TCA_ER2BC_STATS_GUARANTEE)) {
		*x = (struct tc_er2bc_class_xstats){
			.guarantee = U64(tb, GUARANTEE),
			.bytes_guaranteed = U64(tb, BYTES_GUARANTEED),
			.bytes_borrowed = U64(tb, BYTES_BORROWED),
			.credit = (int32_t)U32(tb, CREDIT), .state = U32(tb, STATE),
			.shortage_ns = U64(tb, SHORTAGE_NS),
		};
		*xlen = sizeof(*x);
		if (tb[TCA_ER2BC_STATS_BACKLOG_LIMIT])
			*b = (struct class_bound){
				.has = true, .service_rate = U64(tb, SERVICE_RATE),
				.backlog_limit = U32(tb, BACKLOG_LIMIT),
				.latency_drops = U64(tb, LATENCY_DROPS),
			};
		return;
	}
	/* a module loaded before an upgrade: shorter than any qdisc's struct */
	len = mnl_attr_get_payload_len(app);
	if (len < offsetof(struct tc_er2bc_class_xstats, credit) ||
	    len >= offsetof(struct tc_er2bc_xstats, probe_packets))
		return;
	memcpy(x, mnl_attr_get_payload(app), len < sizeof(*x) ? len : sizeof(*x));
	*xlen = len;
}

/* the attributes of an er2bc qdisc's or class's message; NULL if another kind */
static const struct tcmsg *tc_parse(const struct nlmsghdr *nlh, const struct nlattr **tb)
{
	const struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	struct attrs at = { tb, TCA_MAX };

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*tcm) ||
	    mnl_attr_parse(nlh, sizeof(*tcm), attrs_cb, &at) < 0)
		return NULL;
	if (!tb[TCA_KIND] || mnl_attr_validate(tb[TCA_KIND], MNL_TYPE_NUL_STRING) < 0 ||
	    strcmp(mnl_attr_get_str(tb[TCA_KIND]), KIND))
		return NULL;
	return tcm;
}

static int qdisc_msg(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TCA_MAX + 1] = { 0 };
	struct walk *w = data;
	const struct tcmsg *tcm;
	struct metrics_qdisc *q, *qd;

	if (nlh->nlmsg_type != RTM_NEWQDISC)
		return MNL_CB_OK;
	tcm = tc_parse(nlh, tb);
	if (!tcm || tcm->tcm_ifindex <= 0 ||
	    (w->ifindex && (uint32_t)tcm->tcm_ifindex != w->ifindex))
		return MNL_CB_OK;
	qd = array_grow(w->m->qd, w->m->nqd, sizeof(*qd));
	if (!qd) {
		w->error = ENOMEM;
		return MNL_CB_ERROR;
	}
	w->m->qd = qd;
	q = &qd[w->m->nqd++];
	memset(q, 0, sizeof(*q));
	q->ifindex = (uint32_t)tcm->tcm_ifindex;
	q->handle = tcm->tcm_handle;
	if (!if_indextoname(q->ifindex, q->dev))
		q->dev[0] = '\0';
	if (tb[TCA_STATS2])
		qdisc_xstats_parse(tc_counts_parse(tb[TCA_STATS2], &q->tc), &q->x, &q->xlen);
	return MNL_CB_OK;
}

static int class_msg(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TCA_MAX + 1] = { 0 };
	struct walk *w = data;
	struct metrics_qdisc *q = w->q;
	struct metrics_class *c, *cls;
	const struct tcmsg *tcm;

	if (nlh->nlmsg_type != RTM_NEWTCLASS)
		return MNL_CB_OK;
	tcm = tc_parse(nlh, tb);
	if (!tcm || (uint32_t)tcm->tcm_ifindex != q->ifindex ||
	    TC_H_MAJ(tcm->tcm_handle) != TC_H_MAJ(q->handle))
		return MNL_CB_OK;
	cls = array_grow(q->cls, q->ncls, sizeof(*cls));
	if (!cls) {
		w->error = ENOMEM;
		return MNL_CB_ERROR;
	}
	q->cls = cls;
	c = &cls[q->ncls++];
	memset(c, 0, sizeof(*c));
	c->classid = tcm->tcm_handle;
	if (tb[TCA_STATS2])
		class_xstats_parse(tc_counts_parse(tb[TCA_STATS2], &c->tc), &c->x, &c->xlen,
				   &c->bound);
	return MNL_CB_OK;
}

/* an rtnetlink dump request of @type (RTM_GETQDISC, RTM_GETTCLASS) */
static struct nlmsghdr *tc_dump_msg(struct nl *nl, uint16_t type, uint32_t ifindex)
{
	struct nlmsghdr *nlh = nl_msg(nl, type, NLM_F_DUMP);
	struct tcmsg *tcm;

	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = (int)ifindex;
	return nlh;
}

/* rtnetlink's part: the qdiscs, then each one's classes */
static int walk_tc(struct walk *w)
{
	struct nl_err err;
	struct nl rt;
	size_t i;
	int ret;

	ret = nl_open_proto(&rt, NETLINK_ROUTE);
	if (ret) {
		err_msg("%s: cannot open an rtnetlink socket: %s", cmd_name, strerror(-ret));
		return EXIT_FAIL;
	}
	ret = nl_talk(&rt, tc_dump_msg(&rt, RTM_GETQDISC, w->ifindex), qdisc_msg, w, &err);
	for (i = 0; !ret && i < w->m->nqd; i++) {
		w->q = &w->m->qd[i];
		ret = nl_talk(&rt, tc_dump_msg(&rt, RTM_GETTCLASS, w->q->ifindex),
			      class_msg, w, &err);
	}
	nl_close(&rt);
	if (w->error)
		ret = -w->error;
	if (ret) {
		kernel_error(NULL, &err, ret, w->q ? "dumping the classes" : "dumping the qdiscs");
		return EXIT_FAIL;
	}
	return 0;
}

/*
 * Family @name over @nl: 0, 1 if the kernel has no such family (the module
 * is not loaded: nothing to gather), EXIT_FAIL after the message.
 */
static int family_open(struct nl *nl, const char *name)
{
	struct nl_err err;
	int ret;

	ret = nl_open(nl);
	if (ret) {
		err_msg("cannot open a generic netlink socket: %s", strerror(-ret));
		return EXIT_FAIL;
	}
	ret = nl_resolve(nl, name, NULL, &err);
	if (!ret)
		return 0;
	nl_close(nl);
	if (ret == -ENOENT)
		return 1;
	kernel_error(NULL, &err, ret, "resolving a generic netlink family");
	return EXIT_FAIL;
}

static int walk_ctrl(struct metrics *m)
{
	struct nl_err err;
	char b[FMT_LEN];
	struct nl nl;
	size_t i;
	int ret;

	/* (qdiscs of its kind: sch_er2bc is loaded, no module is asked for) */
	if (!m->nqd)
		return 0;
	ret = family_open(&nl, ER2BC_FAMILY_NAME);
	if (ret == 1)
		return 0;	/* unloaded since the dump: tc's counters only */
	if (ret)
		return ret;
	for (i = 0; i < m->nqd; i++) {
		ret = ctrl_get(&nl, m->qd[i].ifindex, m->qd[i].handle, &m->qd[i].ctrl, &err);
		/* gone since the dump: tc's counters only */
		if (ret == -ENOENT || ret == -ENODEV) {
			qdisc_free(&m->qd[i].ctrl);
			ret = 0;
			continue;
		}
		if (ret) {
			char what[64];

			snprintf(what, sizeof(what), "ctrl-get of %s on %s",
				 fmt_handle(b, m->qd[i].handle),
				 m->qd[i].dev[0] ? m->qd[i].dev : "?");
			if (ret == -EINTR && !err.error)
				err_msg("%s: the qdisc kept changing during the dump", what);
			else
				kernel_error(&fam_er2bc, &err, ret, what);
			ret = EXIT_FAIL;
			break;
		}
	}
	nl_close(&nl);
	return ret;
}

static int stats_msg(const struct nlmsghdr *nlh, void *data)
{
	rcvmgr_stats_merge(data, nlh);
	return MNL_CB_OK;
}

static int walk_rcvmgr(struct metrics *m)
{
	struct nlmsghdr *nlh;
	struct nl_err err;
	struct nl nl;
	int ret;

	/*
	 * resolving the family by name would load the module (its alias
	 * net-pf-16-proto-16-family-tcp_rcvmgr): a scrape must not
	 */
	if (access("/sys/module/" TCP_RCVMGR_FAMILY_NAME, F_OK))
		return 0;
	ret = family_open(&nl, TCP_RCVMGR_FAMILY_NAME);
	if (ret == 1)
		return 0;
	if (ret)
		return ret;
	nlh = nl_genl_msg(&nl, nl.family, TCP_RCVMGR_CMD_STATS_GET,
			  TCP_RCVMGR_FAMILY_VERSION, NLM_F_ACK);
	ret = nl_talk(&nl, nlh, stats_msg, &m->rcvmgr, &err);
	nl_close(&nl);
	if (ret) {
		kernel_error(&fam_rcvmgr, &err, ret, "tcp_rcvmgr's stats-get");
		return EXIT_FAIL;
	}
	m->has_rcvmgr = m->rcvmgr.msgs > 0;
	return 0;
}

/* er2bc-abwd's status files read at most */
#define ABWD_FILES_MAX	16

/*
 * The metrics into @path whole or not at all, for node_exporter's textfile
 * collector, which may read the file at any moment: written to a temporary
 * beside it (.NAME.XXXXXX, a name the collector does not read), readable by
 * all (the collector runs as its own user), then renamed over it. On any
 * failure the temporary goes, @path stays as it was, and the message says
 * which file and why.
 */
static int metrics_output(const char *path, const struct metrics *m, uint64_t now_ns)
{
	const char *base = strrchr(path, '/');
	size_t dirlen = base ? (size_t)(base - path) + 1 : 0;
	char tmp[4096];
	FILE *f;
	int fd, e;

	base = base ? base + 1 : path;
	if (!*base)
		return usage_bad("output", path, "a file name, not a directory");
	if (snprintf(tmp, sizeof(tmp), "%.*s.%s.XXXXXX", (int)dirlen, path, base) >=
	    (int)sizeof(tmp))
		return usage_bad("output", path, "too long a path");
	fd = mkstemp(tmp);
	if (fd < 0) {
		err_msg("metrics: cannot write beside %s: %s", path, strerror(errno));
		return EXIT_FAIL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		e = errno;
		close(fd);
		goto fail;
	}
	errno = 0;
	metrics_print(f, m, now_ns);
	if (fchmod(fd, 0644) || fflush(f) || ferror(f)) {
		e = errno ? errno : EIO;
		fclose(f);
		goto fail;
	}
	if (fclose(f)) {
		e = errno;
		goto fail;
	}
	if (rename(tmp, path)) {
		e = errno;
		goto fail;
	}
	return 0;
fail:
	unlink(tmp);
	err_msg("metrics: cannot write %s: %s (it stays as it was)", path, strerror(e));
	return EXIT_FAIL;
}

int do_metrics(int argc, char **argv)
{
	static struct status_daemon abwd[ABWD_FILES_MAX];
	struct walk w = { 0 };
	struct metrics m = { 0 };
	struct timespec now, rt;
	struct target t = { 0 };
	const char *dir = NULL, *output = NULL;
	uint64_t now_ns;
	int ret;

	w.m = &m;
	for (; argc > 0; argc -= 2, argv += 2) {
		if (strcmp(argv[0], "dev") && strcmp(argv[0], "ifindex") &&
		    strcmp(argv[0], "dir") && strcmp(argv[0], "output"))
			return usage_err("unknown argument \"%s\" (try " PROG " -h)", argv[0]);
		if (argc < 2)
			return usage_err("\"%s\" needs a value", argv[0]);
		if (!strcmp(argv[0], "dir")) {
			if (dir)
				return usage_err("\"dir\" given twice");
			dir = argv[1];
			continue;
		}
		if (!strcmp(argv[0], "output")) {
			if (output)
				return usage_err("\"output\" given twice");
			output = argv[1];
			continue;
		}
		ret = target_arg(&t, argv[0], argv[1]);
		if (ret)
			return ret;
	}
	w.ifindex = t.ifindex;

	ret = walk_tc(&w);
	if (!ret)
		ret = walk_ctrl(&m);
	/* (tcp_rcvmgr's counters are the namespace's: not a device's) */
	if (!ret && !w.ifindex)
		ret = walk_rcvmgr(&m);
	/* (the daemons' counters are the host's: not a device's) */
	if (!ret && !w.ifindex) {
		m.abwd = abwd;
		m.nabwd = status_read_dir(abwd, ABWD_FILES_MAX, dir);
	}
	if (!ret) {
		clock_gettime(CLOCK_REALTIME, &rt);
		m.now_unix_us = (uint64_t)rt.tv_sec * 1000000 + (uint64_t)rt.tv_nsec / 1000;
		clock_gettime(CLOCK_MONOTONIC, &now);
		now_ns = (uint64_t)now.tv_sec * 1000000000 + (uint64_t)now.tv_nsec;
		if (output)
			ret = metrics_output(output, &m, now_ns);
		else
			metrics_print(stdout, &m, now_ns);
	}
	metrics_free(&m);
	return ret;
}
