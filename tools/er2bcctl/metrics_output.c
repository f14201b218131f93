// SPDX-License-Identifier: GPL-2.0
/*
 * What er2bcctl metrics prints (metrics.h): the Prometheus text exposition
 * format, version 0.0.4. Each metric is one family: its HELP and TYPE
 * lines, then a sample per qdisc or class that has the value. Names carry
 * their unit in base units (bytes, seconds); counters end in _total.
 * Rates are bytes per second, as tc prints them; the kernel's are bit/s.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/er2bc.h>
#include <linux/er2bc_genl.h>
#include <linux/tcp_rcvmgr.h>

#include "er2bcctl.h"
#include "metrics.h"
#include "output.h"
#include "parse.h"

#define HAS(q, a)	((q)->has[ER2BC_A_QDISC_##a])
#define VAL(q, a)	((q)->v[ER2BC_A_QDISC_##a])
#define CHAS(c, a)	((c)->has[ER2BC_A_CLASS_##a])
#define CVAL(c, a)	((c)->v[ER2BC_A_CLASS_##a])

/* a value, or none (the sample is left out) */
struct val {
	bool ok;
	double v;
};

static struct val some(double v)
{
	return (struct val){ .ok = true, .v = v };
}

static const struct val none;

/* a label value, escaped as the format wants: backslash, quote, newline */
static void put_label(FILE *f, const char *name, const char *value, bool first)
{
	const char *p;

	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	for (p = value; *p; p++) {
		if (*p == '\\' || *p == '"')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void put_value(FILE *f, double v)
{
	/* integers as integers (exact up to 2^53); the rest to a double's digits */
	char b[40];

	if (v > -9e15 && v < 9e15 && v == (double)(int64_t)v) {
		fprintf(f, " %" PRId64 "\n", (int64_t)v);
		return;
	}
	/* the shortest of 15 or 17 digits that reads back as the same double */
	snprintf(b, sizeof(b), "%.15g", v);
	if (strtod(b, NULL) != v)
		snprintf(b, sizeof(b), "%.17g", v);
	fprintf(f, " %s\n", b);
}

/* a metric's HELP and TYPE lines, once: before its first sample (*@done) */
static void family(FILE *f, const char *name, const char *type, const char *help,
		   bool *done)
{
	if (*done)
		return;
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	*done = true;
}

static const char *qdev(const struct metrics_qdisc *q, char *b)
{
	if (q->dev[0])
		return q->dev;
	snprintf(b, FMT_LEN, "if%" PRIu32, q->ifindex);
	return b;
}

/* the qdisc's metrics */
enum qid {
	Q_INFO, Q_ABW, Q_CEIL, Q_RECV, Q_SENT, Q_LOST, Q_INTERVAL, Q_AGE,
	Q_UPDATES, Q_STALE, Q_STALE_TIMEOUT, Q_RATIO, Q_RATIO_MIN, Q_GUARANTEED,
	Q_HOLD, Q_TC_BYTES, Q_TC_PACKETS, Q_TC_DROPS, Q_TC_OVERLIMITS,
	Q_TC_BACKLOG, Q_TC_QLEN, Q_THROTTLED, Q_HELD, Q_WAITS, Q_UNCLASSIFIED, Q_YIELDED,
	Q_CLASSES, Q_ACTIVE, Q_PROBES,
};

static const struct {
	enum qid id;
	const char *name, *type, *help;
} qmetrics[] = {
	{ Q_INFO, "er2bc_info", "gauge",
	  "The qdisc's mode and how guarantees converge, as labels; always 1." },
	{ Q_ABW, "er2bc_cap_bytes_per_second", "gauge",
	  "W, the estimated available bandwidth: the cap in force (0: none)." },
	{ Q_CEIL, "er2bc_cap_ceiling_bytes_per_second", "gauge",
	  "The qdisc's configured rate, W's ceiling (0: none)." },
	{ Q_RECV, "er2bc_recv_rate_bytes_per_second", "gauge",
	  "R, what the far gateway received in the last estimate's interval." },
	{ Q_SENT, "er2bc_estimate_sent_packets", "gauge",
	  "Packets the last estimate's interval sent toward the peer." },
	{ Q_LOST, "er2bc_estimate_lost_packets", "gauge",
	  "Packets the last estimate counted lost." },
	{ Q_INTERVAL, "er2bc_estimate_span_seconds", "gauge",
	  "The length of the interval the last estimate covers (its span)." },
	{ Q_AGE, "er2bc_estimate_age_seconds", "gauge",
	  "Time since the last estimate was applied (absent before the first)." },
	{ Q_UPDATES, "er2bc_updates_total", "counter",
	  "ABW estimates the qdisc applied (tc's updates)." },
	{ Q_STALE, "er2bc_stale", "gauge",
	  "1 while no estimate has come for longer than the stale timeout." },
	{ Q_STALE_TIMEOUT, "er2bc_stale_timeout_seconds", "gauge",
	  "How long without an estimate makes the qdisc stale." },
	{ Q_RATIO, "er2bc_recv_ratio", "gauge",
	  "s, R over the W of the interval before, clamped to 0..1." },
	{ Q_RATIO_MIN, "er2bc_recv_ratio_min", "gauge",
	  "s_p, the least s over the history the controller keeps." },
	{ Q_GUARANTEED, "er2bc_guaranteed_bytes_per_second", "gauge",
	  "The sum of the classes' guarantees in force." },
	{ Q_HOLD, "er2bc_scavenger_hold_seconds", "gauge",
	  "What is left of the hold during which scavenger classes borrow nothing." },
	{ Q_TC_BYTES, "er2bc_sent_bytes_total", "counter",
	  "Bytes the qdisc sent (tc's Sent)." },
	{ Q_TC_PACKETS, "er2bc_sent_packets_total", "counter",
	  "Packets the qdisc sent." },
	{ Q_TC_DROPS, "er2bc_dropped_packets_total", "counter",
	  "Packets the qdisc dropped." },
	{ Q_TC_OVERLIMITS, "er2bc_overlimits_total", "counter",
	  "tc's overlimits: dequeues the shaper deferred." },
	{ Q_TC_BACKLOG, "er2bc_backlog_bytes", "gauge",
	  "Bytes queued in the qdisc." },
	{ Q_TC_QLEN, "er2bc_backlog_packets", "gauge",
	  "Packets queued in the qdisc." },
	{ Q_THROTTLED, "er2bc_throttled_total", "counter",
	  "Dequeues held back by the cap W." },
	{ Q_HELD, "er2bc_held_seconds_total", "counter",
	  "Time the cap W held a backlog back: its rate is the share of time W bound." },
	{ Q_WAITS, "er2bc_waits_total", "counter",
	  "Dequeues with a backlog but no class allowed to send." },
	{ Q_UNCLASSIFIED, "er2bc_unclassified_packets_total", "counter",
	  "Packets in no class, sent in the implicit one." },
	{ Q_YIELDED, "er2bc_yielded_total", "counter",
	  "Dequeues that held scavenger classes back." },
	{ Q_CLASSES, "er2bc_classes", "gauge",
	  "Classes of the qdisc." },
	{ Q_ACTIVE, "er2bc_active_classes", "gauge",
	  "Classes with packets queued." },
	{ Q_PROBES, "er2bc_probe_requests_total", "counter",
	  "The estimator's requests the qdisc sent." },
};

static struct val qval(const struct metrics_qdisc *m, enum qid id, uint64_t now_ns)
{
	const struct qdisc_info *q = &m->ctrl;
	const struct tc_counts *t = &m->tc;
	const struct tc_er2bc_xstats *x = &m->x;

	switch (id) {
	case Q_INFO:
		return some(1);
	case Q_ABW:
		if (HAS(q, ABW))
			return some((double)VAL(q, ABW) / 8);
		return m->xlen ? some((double)x->rate / 8) : none;
	case Q_CEIL:
		return HAS(q, CEIL) ? some((double)VAL(q, CEIL) / 8) : none;
	case Q_RECV:
		return HAS(q, RECV_RATE) ? some((double)VAL(q, RECV_RATE) / 8) : none;
	case Q_SENT:
		return HAS(q, SENT) ? some((double)VAL(q, SENT)) : none;
	case Q_LOST:
		return HAS(q, LOST) ? some((double)VAL(q, LOST)) : none;
	case Q_INTERVAL:
		return HAS(q, INTERVAL) ? some((double)VAL(q, INTERVAL) / 1e6) : none;
	case Q_AGE:
		if (HAS(q, LAST_UPDATE) && HAS(q, UPDATES)) {
			if (!VAL(q, UPDATES) || VAL(q, LAST_UPDATE) > now_ns)
				return none;
			return some((double)(now_ns - VAL(q, LAST_UPDATE)) / 1e9);
		}
		/* tc's view: the age when the dump was taken */
		if (XHAS(m->xlen, struct tc_er2bc_xstats, estimate_age_ns) && x->updates)
			return some((double)x->estimate_age_ns / 1e9);
		return none;
	case Q_UPDATES:
		if (HAS(q, UPDATES))
			return some((double)VAL(q, UPDATES));
		return m->xlen ? some((double)x->updates) : none;
	case Q_STALE:
		if (HAS(q, STALE))
			return some(VAL(q, STALE) ? 1 : 0);
		return m->xlen ? some(x->stale ? 1 : 0) : none;
	case Q_STALE_TIMEOUT:
		return HAS(q, PARAM_STALE) ? some((double)VAL(q, PARAM_STALE) / 1e3) : none;
	case Q_RATIO:
		return HAS(q, RATIO) ? some((double)VAL(q, RATIO) / ER2BC_RATIO_ONE) : none;
	case Q_RATIO_MIN:
		return HAS(q, RATIO_MIN) ? some((double)VAL(q, RATIO_MIN) / ER2BC_RATIO_ONE) : none;
	case Q_GUARANTEED:
		if (HAS(q, GUARANTEED))
			return some((double)VAL(q, GUARANTEED) / 8);
		return m->xlen ? some((double)x->guaranteed / 8) : none;
	case Q_HOLD:
		return HAS(q, SCAVENGER_HOLD) ? some((double)VAL(q, SCAVENGER_HOLD) / 1e6) : none;
	case Q_TC_BYTES:
		return t->has_basic ? some((double)t->bytes) : none;
	case Q_TC_PACKETS:
		return t->has_basic ? some((double)t->packets) : none;
	case Q_TC_DROPS:
		return t->has_queue ? some(t->drops) : none;
	case Q_TC_OVERLIMITS:
		return t->has_queue ? some(t->overlimits) : none;
	case Q_TC_BACKLOG:
		return t->has_queue ? some(t->backlog) : none;
	case Q_TC_QLEN:
		return t->has_queue ? some(t->qlen) : none;
	case Q_THROTTLED:
		return m->xlen ? some((double)x->throttled) : none;
	case Q_HELD:
		return XHAS(m->xlen, struct tc_er2bc_xstats, held_ns) ?
		       some((double)x->held_ns / 1e9) : none;
	case Q_WAITS:
		return m->xlen ? some((double)x->waits) : none;
	case Q_UNCLASSIFIED:
		return m->xlen ? some((double)x->unclassified) : none;
	case Q_YIELDED:
		return XHAS(m->xlen, struct tc_er2bc_xstats, yielded) ?
		       some((double)x->yielded) : none;
	case Q_CLASSES:
		return m->xlen ? some(x->classes) : none;
	case Q_ACTIVE:
		return m->xlen ? some(x->active) : none;
	case Q_PROBES:
		return m->xlen ? some((double)x->probes) : none;
	}
	return none;
}

static void qlabels(FILE *f, const struct metrics_qdisc *m, enum qid id)
{
	char b[FMT_LEN];

	fputc('{', f);
	put_label(f, "dev", qdev(m, b), true);
	put_label(f, "handle", fmt_handle(b, m->handle), false);
	if (id == Q_INFO) {
		if (m->ctrl.has[ER2BC_A_QDISC_MODE])
			put_label(f, "mode", mode_name(VAL(&m->ctrl, MODE), b), false);
		if (m->ctrl.has[ER2BC_A_QDISC_PARAM_CONVERGE])
			put_label(f, "converge", converge_name(VAL(&m->ctrl, PARAM_CONVERGE), b),
				  false);
	}
	fputc('}', f);
}

/* the classes' metrics: those of the controller (ctrl-get), then tc's */
enum cid {
	C_INFO, C_RATE, C_GUARANTEE, C_DEMAND, C_BYTES, C_PACKETS, C_DROPS,
	C_OVERLIMITS, C_BACKLOG, C_QLEN, C_BYTES_GUARANTEED, C_BYTES_BORROWED,
	C_SHORTAGE, C_SERVICE_RATE, C_BACKLOG_LIMIT, C_LATENCY_DROPS,
};

static const struct {
	enum cid id;
	bool tc;	/* from tc's class dump, else from ctrl-get */
	const char *name, *type, *help;
} cmetrics[] = {
	{ C_INFO, false, "er2bc_class_info", "gauge",
	  "A class's priority and traffic type, as labels; always 1." },
	{ C_RATE, false, "er2bc_class_rate_bytes_per_second", "gauge",
	  "R_f, the class's necessary rate (tc's rate)." },
	{ C_GUARANTEE, false, "er2bc_class_guarantee_bytes_per_second", "gauge",
	  "G, the class's guarantee in force." },
	{ C_DEMAND, false, "er2bc_class_demand_bytes_per_second", "gauge",
	  "S_d, what the controller asked for the class at the last estimate." },
	{ C_BYTES, true, "er2bc_class_sent_bytes_total", "counter",
	  "Bytes the class sent." },
	{ C_PACKETS, true, "er2bc_class_sent_packets_total", "counter",
	  "Packets the class sent." },
	{ C_DROPS, true, "er2bc_class_dropped_packets_total", "counter",
	  "Packets the class dropped." },
	{ C_OVERLIMITS, true, "er2bc_class_overlimits_total", "counter",
	  "tc's overlimits of the class." },
	{ C_BACKLOG, true, "er2bc_class_backlog_bytes", "gauge",
	  "Bytes queued in the class." },
	{ C_QLEN, true, "er2bc_class_backlog_packets", "gauge",
	  "Packets queued in the class." },
	{ C_BYTES_GUARANTEED, true, "er2bc_class_guaranteed_bytes_total", "counter",
	  "Bytes the class sent within its guarantee." },
	{ C_BYTES_BORROWED, true, "er2bc_class_borrowed_bytes_total", "counter",
	  "Bytes the class sent on capacity lent to it." },
	{ C_SHORTAGE, true, "er2bc_class_shortage_seconds_total", "counter",
	  "Time the class was backlogged but served below its necessary rate R_f." },
	{ C_SERVICE_RATE, true, "er2bc_class_service_rate_bytes_per_second", "gauge",
	  "The rate the class was served at while backlogged (its latency bound's)." },
	{ C_BACKLOG_LIMIT, true, "er2bc_class_backlog_limit_bytes", "gauge",
	  "Bytes the class may hold: its latency bound in force (absent: unbounded)." },
	{ C_LATENCY_DROPS, true, "er2bc_class_latency_dropped_packets_total", "counter",
	  "Packets dropped because the class held its backlog limit." },
};

static struct val ctrl_cval(const struct class_info *c, enum cid id)
{
	switch (id) {
	case C_INFO:
		return some(1);
	case C_RATE:
		return CHAS(c, RATE) ? some((double)CVAL(c, RATE) / 8) : none;
	case C_GUARANTEE:
		return CHAS(c, GUARANTEE) ? some((double)CVAL(c, GUARANTEE) / 8) : none;
	case C_DEMAND:
		return CHAS(c, DEMAND) ? some((double)CVAL(c, DEMAND) / 8) : none;
	default:
		return none;
	}
}

static struct val tc_cval(const struct metrics_class *c, enum cid id)
{
	const struct tc_counts *t = &c->tc;

	switch (id) {
	case C_BYTES:
		return t->has_basic ? some((double)t->bytes) : none;
	case C_PACKETS:
		return t->has_basic ? some((double)t->packets) : none;
	case C_DROPS:
		return t->has_queue ? some(t->drops) : none;
	case C_OVERLIMITS:
		return t->has_queue ? some(t->overlimits) : none;
	case C_BACKLOG:
		return t->has_queue ? some(t->backlog) : none;
	case C_QLEN:
		return t->has_queue ? some(t->qlen) : none;
	case C_BYTES_GUARANTEED:
		return XHAS(c->xlen, struct tc_er2bc_class_xstats, bytes_guaranteed) ?
		       some((double)c->x.bytes_guaranteed) : none;
	case C_BYTES_BORROWED:
		return XHAS(c->xlen, struct tc_er2bc_class_xstats, bytes_borrowed) ?
		       some((double)c->x.bytes_borrowed) : none;
	case C_SHORTAGE:
		return XHAS(c->xlen, struct tc_er2bc_class_xstats, shortage_ns) ?
		       some((double)c->x.shortage_ns / 1e9) : none;
	case C_SERVICE_RATE:
		return c->bound.has && c->bound.service_rate ?
		       some((double)c->bound.service_rate / 8) : none;
	case C_BACKLOG_LIMIT:
		return c->bound.has && c->bound.backlog_limit ?
		       some(c->bound.backlog_limit) : none;
	case C_LATENCY_DROPS:
		return c->bound.has ? some((double)c->bound.latency_drops) : none;
	default:
		return none;
	}
}

static void clabels(FILE *f, const struct metrics_qdisc *m, uint32_t classid,
		    const struct class_info *c)
{
	char b[FMT_LEN];

	fputc('{', f);
	put_label(f, "dev", qdev(m, b), true);
	put_label(f, "classid", fmt_handle(b, classid), false);
	if (c && CHAS(c, PRIO)) {
		snprintf(b, sizeof(b), "%" PRIu64, CVAL(c, PRIO));
		put_label(f, "prio", b, false);
	}
	if (c && CHAS(c, TYPE))
		put_label(f, "type", type_name(CVAL(c, TYPE), b), false);
	fputc('}', f);
}

static void print_classes(FILE *f, const struct metrics *m, size_t i)
{
	bool fam = false;
	const struct metrics_qdisc *q;
	const struct class_info *ci;
	const struct metrics_class *tc;
	struct val v;
	size_t j, k;

	for (j = 0; j < m->nqd; j++) {
		q = &m->qd[j];
		if (!cmetrics[i].tc) {
			for (k = 0; k < q->ctrl.ncls; k++) {
				ci = &q->ctrl.cls[k];
				v = ctrl_cval(ci, cmetrics[i].id);
				if (!v.ok || !CHAS(ci, CLASSID))
					continue;
				family(f, cmetrics[i].name, cmetrics[i].type, cmetrics[i].help, &fam);
				fputs(cmetrics[i].name, f);
				clabels(f, q, (uint32_t)CVAL(ci, CLASSID),
					cmetrics[i].id == C_INFO ? ci : NULL);
				put_value(f, v.v);
			}
			continue;
		}
		for (k = 0; k < q->ncls; k++) {
			tc = &q->cls[k];
			v = tc_cval(tc, cmetrics[i].id);
			if (!v.ok)
				continue;
			family(f, cmetrics[i].name, cmetrics[i].type, cmetrics[i].help, &fam);
			fputs(cmetrics[i].name, f);
			clabels(f, q, tc->classid, NULL);
			put_value(f, v.v);
		}
	}
}

/* tcp_rcvmgr's counters, by the spec's attribute */
static const struct {
	unsigned int attr;
	const char *name, *type, *help;
} rmetrics[] = {
	{ TCP_RCVMGR_A_STATS_BUDGET, "tcp_rcvmgr_budget_bytes", "gauge",
	  "B, the receive-window budget the managed connections share." },
	{ TCP_RCVMGR_A_STATS_CONNS, "tcp_rcvmgr_connections", "gauge",
	  "Connections tracked now." },
	{ TCP_RCVMGR_A_STATS_MEMORY, "tcp_rcvmgr_memory_bytes", "gauge",
	  "Bytes the connection table holds." },
	{ TCP_RCVMGR_A_STATS_CREATED, "tcp_rcvmgr_connections_created_total", "counter",
	  "Connections tracked since the module loaded." },
	{ TCP_RCVMGR_A_STATS_FREED, "tcp_rcvmgr_connections_freed_total", "counter",
	  "Connections forgotten." },
	{ TCP_RCVMGR_A_STATS_FULL, "tcp_rcvmgr_table_full_total", "counter",
	  "Connections not tracked because the table was full." },
	{ TCP_RCVMGR_A_STATS_ACKS, "tcp_rcvmgr_acks_total", "counter",
	  "ACKs of managed connections seen." },
	{ TCP_RCVMGR_A_STATS_REWRITTEN, "tcp_rcvmgr_windows_rewritten_total", "counter",
	  "ACKs whose advertised window was lowered." },
	{ TCP_RCVMGR_A_STATS_RTT_SAMPLES, "tcp_rcvmgr_rtt_samples_total", "counter",
	  "Round-trip time samples taken." },
	{ TCP_RCVMGR_A_STATS_INTERVALS, "tcp_rcvmgr_intervals_total", "counter",
	  "Budget assignments made (one an interval)." },
	{ TCP_RCVMGR_A_STATS_BUDGET_UP, "tcp_rcvmgr_budget_increases_total", "counter",
	  "Intervals that raised the budget." },
	{ TCP_RCVMGR_A_STATS_BUDGET_DOWN, "tcp_rcvmgr_budget_decreases_total", "counter",
	  "Intervals that lowered the budget." },
	{ TCP_RCVMGR_A_STATS_UNSEEN, "tcp_rcvmgr_unseen_total", "counter",
	  "ACKs passed as written: their data took another path than the gateway." },
};

/*
 * er2bc-abwd's counters, by its status file's key (a sender's, a
 * responder's or both roles'), each sample labelled with the daemon's role
 * and device
 */
static const struct {
	const char *role;		/* NULL: both */
	const char *key;
	const char *name, *type, *help;
	double scale;
} ametrics[] = {
	{ NULL, "requests", "er2bc_abwd_requests_total", "counter",
	  "Requests sent (a sender) or accepted (a responder).", 1 },
	{ NULL, "responses", "er2bc_abwd_responses_total", "counter",
	  "Responses accepted (a sender) or sent (a responder).", 1 },
	{ NULL, "no_snapshot", "er2bc_abwd_no_snapshot_total", "counter",
	  "Requests the kernel had no snapshot of.", 1 },
	{ "sender", "estimates", "er2bc_abwd_estimates_total", "counter",
	  "Estimates made, each handed to the qdisc.", 1 },
	{ "sender", "timeouts", "er2bc_abwd_timeouts_total", "counter",
	  "Requests not answered in time.", 1 },
	{ "sender", "quiet_intervals", "er2bc_abwd_quiet_intervals", "gauge",
	  "Requests in a row not answered now.", 1 },
	{ "sender", "decays", "er2bc_abwd_decays_total", "counter",
	  "Times W was halved because the peer was quiet.", 1 },
	{ "sender", "discontinuities", "er2bc_abwd_discontinuities_total", "counter",
	  "Samples whose counts did not follow on: a new baseline.", 1 },
	{ "sender", "foreign", "er2bc_abwd_foreign_total", "counter",
	  "Estimates whose meter counted more than the qdisc sent.", 1 },
	{ "sender", "abw_set_failures", "er2bc_abwd_abw_set_failures_total", "counter",
	  "Estimates the qdisc refused.", 1 },
	{ "sender", "queue_delay_us", "er2bc_abwd_queue_delay_seconds", "gauge",
	  "The queue the last delay read showed, above the base delay.", 1e-6 },
	{ "responder", "send_errors", "er2bc_abwd_send_errors_total", "counter",
	  "Responses that could not be sent.", 1 },
	{ "responder", "rate_limited", "er2bc_abwd_rate_limited_total", "counter",
	  "Requests not answered for the rate limit (plain mode).", 1 },
	{ "sender", "probes.sent", "er2bc_abwd_probes_sent_total", "counter",
	  "Delay probes sent.", 1 },
	{ "responder", "probes.received", "er2bc_abwd_probes_received_total", "counter",
	  "Delay probes accepted.", 1 },
	{ NULL, "probes.echoed", "er2bc_abwd_probes_echoed_total", "counter",
	  "Delay probes echoed (a responder) or whose echo came back (a sender).", 1 },
	{ NULL, "probes.unstamped", "er2bc_abwd_probes_unstamped_total", "counter",
	  "Echoes without a kernel timestamp.", 1 },
};

/* the status file's counters by reason: the key's prefix, the metric */
static const struct {
	const char *prefix, *name, *help;
} ametrics_by_reason[] = {
	{ "dropped.", "er2bc_abwd_dropped_total",
	  "Datagrams dropped, by reason." },
	{ "meter_refused.", "er2bc_abwd_meter_refused_total",
	  "Requests the receiving meter refused, by reason (a responder)." },
};

/*
 * a daemon's labels: its role and device, and its status file's name (two
 * files of one role and device, a renamed instance's old one, say, are
 * two series, not one repeated)
 */
static void alabels(FILE *f, const struct status_daemon *d, const char *role)
{
	const char *dev = jr_str(&d->doc, "dev"), *base = strrchr(d->file, '/');

	fputc('{', f);
	put_label(f, "role", role, true);
	put_label(f, "dev", dev ? dev : "", false);
	put_label(f, "status_file", base ? base + 1 : d->file, false);
}

/* a daemon's role, NULL if its file could not be read or names none */
static const char *abwd_role(const struct status_daemon *d)
{
	return d->error[0] ? NULL : jr_str(&d->doc, "role");
}

static void print_abwd(FILE *f, const struct metrics *m)
{
	const struct status_daemon *d;
	const char *role, *mode;
	uint64_t u;
	size_t i, j, k;
	bool fam;

	fam = false;
	for (j = 0; j < m->nabwd; j++) {
		d = &m->abwd[j];
		role = abwd_role(d);
		if (!role)
			continue;
		family(f, "er2bc_abwd_info", "gauge",
		       "An er2bc-abwd's status file: its role, device and peer (a sender).", &fam);
		fputs("er2bc_abwd_info", f);
		alabels(f, d, role);
		mode = jr_str(&d->doc, "mode");
		if (mode)
			put_label(f, "mode", mode, false);
		if (jr_str(&d->doc, "peer"))
			put_label(f, "peer", jr_str(&d->doc, "peer"), false);
		fputc('}', f);
		put_value(f, 1);
	}
	fam = false;
	for (j = 0; j < m->nabwd; j++) {
		d = &m->abwd[j];
		role = abwd_role(d);
		if (!role || !jr_u64(&d->doc, "unix_time_seconds", &u))
			continue;
		family(f, "er2bc_abwd_status_age_seconds", "gauge",
		       "How long ago the daemon last wrote its status file.", &fam);
		fputs("er2bc_abwd_status_age_seconds", f);
		alabels(f, d, role);
		fputc('}', f);
		put_value(f, m->now_unix_us / 1000000 > u ? (double)(m->now_unix_us / 1000000 - u) : 0);
	}
	for (i = 0; i < ARRAY_SIZE(ametrics); i++) {
		fam = false;
		for (j = 0; j < m->nabwd; j++) {
			d = &m->abwd[j];
			role = abwd_role(d);
			if (!role || (ametrics[i].role && strcmp(role, ametrics[i].role)) ||
			    !jr_u64(&d->doc, ametrics[i].key, &u))
				continue;
			family(f, ametrics[i].name, ametrics[i].type, ametrics[i].help, &fam);
			fputs(ametrics[i].name, f);
			alabels(f, d, role);
			fputc('}', f);
			put_value(f, (double)u * ametrics[i].scale);
		}
	}
	for (i = 0; i < ARRAY_SIZE(ametrics_by_reason); i++) {
		size_t plen = strlen(ametrics_by_reason[i].prefix);

		fam = false;
		for (j = 0; j < m->nabwd; j++) {
			d = &m->abwd[j];
			role = abwd_role(d);
			if (!role)
				continue;
			for (k = 0; k < d->doc.n; k++) {
				const struct jr_pair *p = &d->doc.pair[k];

				if (p->type != JR_INT || p->neg ||
				    strncmp(p->key, ametrics_by_reason[i].prefix, plen))
					continue;
				family(f, ametrics_by_reason[i].name, "counter",
				       ametrics_by_reason[i].help, &fam);
				fputs(ametrics_by_reason[i].name, f);
				alabels(f, d, role);
				put_label(f, "reason", p->key + plen, false);
				fputc('}', f);
				put_value(f, (double)p->u);
			}
		}
	}
}

void metrics_print(FILE *f, const struct metrics *m, uint64_t now_ns)
{
	const struct rcvmgr_stats *r = &m->rcvmgr;
	struct val v;
	size_t i, j;
	bool fam;

	for (i = 0; i < ARRAY_SIZE(qmetrics); i++) {
		fam = false;
		for (j = 0; j < m->nqd; j++) {
			v = qval(&m->qd[j], qmetrics[i].id, now_ns);
			if (!v.ok)
				continue;
			family(f, qmetrics[i].name, qmetrics[i].type, qmetrics[i].help, &fam);
			fputs(qmetrics[i].name, f);
			qlabels(f, &m->qd[j], qmetrics[i].id);
			put_value(f, v.v);
		}
	}
	for (i = 0; i < ARRAY_SIZE(cmetrics); i++)
		print_classes(f, m, i);
	print_abwd(f, m);
	if (!m->has_rcvmgr)
		return;
	for (i = 0; i < ARRAY_SIZE(rmetrics); i++) {
		if (!r->has[rmetrics[i].attr])
			continue;
		fam = false;
		family(f, rmetrics[i].name, rmetrics[i].type, rmetrics[i].help, &fam);
		fputs(rmetrics[i].name, f);
		put_value(f, (double)r->v[rmetrics[i].attr]);
	}
}

void metrics_free(struct metrics *m)
{
	size_t i;

	for (i = 0; i < m->nqd; i++) {
		qdisc_free(&m->qd[i].ctrl);
		free(m->qd[i].cls);
	}
	free(m->qd);
	memset(m, 0, sizeof(*m));
}
