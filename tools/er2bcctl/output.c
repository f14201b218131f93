// SPDX-License-Identifier: GPL-2.0
/* What show and monitor print (output.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <net/if.h>
#include <linux/er2bc.h>

#include "er2bcctl.h"
#include "json.h"
#include "output.h"
#include "parse.h"

#define HAS(q, a)	((q)->has[ER2BC_A_QDISC_##a])
#define VAL(q, a)	((q)->v[ER2BC_A_QDISC_##a])
#define CHAS(c, a)	((c)->has[ER2BC_A_CLASS_##a])
#define CVAL(c, a)	((c)->v[ER2BC_A_CLASS_##a])

const char *mode_name(uint64_t mode, char *buf)
{
	switch (mode) {
	case ER2BC_MODE_STATIC:
		return "static";
	case ER2BC_MODE_PQ:
		return "pq";
	case ER2BC_MODE_ER2BC:
		return "er2bc";
	}
	snprintf(buf, FMT_LEN, "%" PRIu64, mode);
	return buf;
}

const char *type_name(uint64_t type, char *buf)
{
	switch (type) {
	case ER2BC_TYPE_TCP:
		return "tcp";
	case ER2BC_TYPE_UDP:
		return "udp";
	case ER2BC_TYPE_SCAVENGER:
		return "scavenger";
	}
	snprintf(buf, FMT_LEN, "%" PRIu64, type);
	return buf;
}

const char *converge_name(uint64_t converge, char *buf)
{
	switch (converge) {
	case 0:
		return "immediate";
	case 1:
		return "gradual";
	}
	snprintf(buf, FMT_LEN, "%" PRIu64, converge);
	return buf;
}

bool dev_lookup(uint64_t ifindex, char *buf)
{
	char name[IF_NAMESIZE];

	if (!ifindex || ifindex > UINT32_MAX || !if_indextoname((unsigned int)ifindex, name))
		return false;
	snprintf(buf, FMT_LEN, "%s", name);
	return true;
}

const char *dev_name(uint64_t ifindex, char *buf)
{
	if (!dev_lookup(ifindex, buf))
		snprintf(buf, FMT_LEN, "if%" PRIu64, ifindex);
	return buf;
}

void line_init(struct line *l, const char *sep)
{
	l->buf[0] = '\0';
	l->len = 0;
	l->sep = sep;
}

void line_add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->len && l->len < sizeof(l->buf))
		l->len += snprintf(l->buf + l->len, sizeof(l->buf) - l->len, "%s", l->sep);
	if (l->len >= sizeof(l->buf))
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n;
}

void line_print(FILE *f, const struct line *l, const char *indent)
{
	if (l->len)
		fprintf(f, "%s%s\n", indent, l->buf);
}

/* monitor's line: which qdisc, the estimate, what came of it */
static void add_target(struct line *l, const struct qdisc_info *q)
{
	char b[FMT_LEN];

	if (HAS(q, IFINDEX))
		line_add(l, "dev %s", dev_name(VAL(q, IFINDEX), b));
	if (HAS(q, HANDLE))
		line_add(l, "handle %s", fmt_handle(b, (uint32_t)VAL(q, HANDLE)));
	if (HAS(q, MODE))
		line_add(l, "mode %s", mode_name(VAL(q, MODE), b));
}

static void add_estimate(struct line *l, const struct qdisc_info *q)
{
	char b[FMT_LEN];

	if (HAS(q, SEQ))
		line_add(l, "seq %" PRIu64, VAL(q, SEQ));
	if (HAS(q, ABW))
		line_add(l, "cap %s", fmt_rate(b, VAL(q, ABW)));
	if (HAS(q, RECV_RATE))
		line_add(l, "recv-rate %s", fmt_rate(b, VAL(q, RECV_RATE)));
}

static void add_ratios(struct line *l, const struct qdisc_info *q)
{
	char b[FMT_LEN];

	if (HAS(q, RATIO))
		line_add(l, "recv-ratio %s", fmt_ratio(b, VAL(q, RATIO)));
	if (HAS(q, RATIO_MIN))
		line_add(l, "recv-ratio-min %s", fmt_ratio(b, VAL(q, RATIO_MIN)));
}

static void add_result(struct line *l, const struct qdisc_info *q)
{
	char b[FMT_LEN];

	if (HAS(q, GUARANTEED))
		line_add(l, "guaranteed %s", fmt_rate(b, VAL(q, GUARANTEED)));
	if (HAS(q, CLASSES))
		line_add(l, "classes %" PRIu64, VAL(q, CLASSES));
	if (HAS(q, COST))
		line_add(l, "cost %s", fmt_ns_us(b, VAL(q, COST)));
}

/* the table's columns: the header, and each cell as text */
enum {
	COL_CLASSID, COL_PRIO, COL_TYPE, COL_RATE, COL_MARGIN, COL_G, COL_SD,
	COL_RE, COL_DELTA, COL_DELTA_SUM, COLS
};

static const char *const col_head[COLS] = {
	"classid", "prio", "type", "rate", "margin", "guarantee", "demand",
	"expected", "shortfall", "shortfall-sum",
};

static void class_cells(const struct class_info *c, char cell[COLS][FMT_LEN])
{
	int i;

	for (i = 0; i < COLS; i++)
		snprintf(cell[i], FMT_LEN, "-");
	if (CHAS(c, CLASSID))
		fmt_handle(cell[COL_CLASSID], (uint32_t)CVAL(c, CLASSID));
	if (CHAS(c, PRIO))
		snprintf(cell[COL_PRIO], FMT_LEN, "%" PRIu64, CVAL(c, PRIO));
	if (CHAS(c, TYPE)) {
		char b[FMT_LEN];

		snprintf(cell[COL_TYPE], FMT_LEN, "%s", type_name(CVAL(c, TYPE), b));
	}
	if (CHAS(c, RATE))
		fmt_rate(cell[COL_RATE], CVAL(c, RATE));
	if (CHAS(c, MARGIN))
		snprintf(cell[COL_MARGIN], FMT_LEN, "%" PRIu64 "%%", CVAL(c, MARGIN));
	if (CHAS(c, GUARANTEE))
		fmt_rate(cell[COL_G], CVAL(c, GUARANTEE));
	if (CHAS(c, DEMAND))
		fmt_rate(cell[COL_SD], CVAL(c, DEMAND));
	if (CHAS(c, EXPECTED))
		fmt_rate(cell[COL_RE], CVAL(c, EXPECTED));
	if (CHAS(c, DELTA))
		fmt_srate(cell[COL_DELTA], (int64_t)CVAL(c, DELTA));
	if (CHAS(c, DELTA_SUM))
		fmt_srate(cell[COL_DELTA_SUM], (int64_t)CVAL(c, DELTA_SUM));
}

static void print_row(FILE *f, const char *const cell[COLS], const size_t width[COLS])
{
	int i;

	for (i = 0; i < COLS - 1; i++)
		fprintf(f, "%-*s  ", (int)width[i], cell[i]);
	fprintf(f, "%s\n", cell[COLS - 1]);
}

static void show_table(FILE *f, const struct qdisc_info *q)
{
	char (*cells)[COLS][FMT_LEN];
	const char *row[COLS];
	size_t width[COLS], i;
	int k;

	cells = calloc(q->ncls, sizeof(*cells));
	if (!cells)
		return;
	for (k = 0; k < COLS; k++)
		width[k] = strlen(col_head[k]);
	for (i = 0; i < q->ncls; i++) {
		class_cells(&q->cls[i], cells[i]);
		for (k = 0; k < COLS; k++)
			if (strlen(cells[i][k]) > width[k])
				width[k] = strlen(cells[i][k]);
	}
	print_row(f, col_head, width);
	for (i = 0; i < q->ncls; i++) {
		for (k = 0; k < COLS; k++)
			row[k] = cells[i][k];
		print_row(f, row, width);
	}
	free(cells);
}

bool last_update_ago(const struct qdisc_info *q, uint64_t now_ns, uint64_t *ns)
{
	uint64_t last = VAL(q, LAST_UPDATE);

	if (!HAS(q, LAST_UPDATE) || !last || (HAS(q, UPDATES) && !VAL(q, UPDATES)))
		return false;
	*ns = now_ns > last ? now_ns - last : 0;
	return true;
}

static void show_text(FILE *f, const struct qdisc_info *q, uint64_t now_ns)
{
	char b[FMT_LEN];
	struct line l;
	uint64_t ago;
	size_t i;

	line_init(&l, " ");
	line_add(&l, "er2bc");
	if (HAS(q, HANDLE))
		line_add(&l, "%s", fmt_handle(b, (uint32_t)VAL(q, HANDLE)));
	if (HAS(q, IFINDEX))
		line_add(&l, "dev %s", dev_name(VAL(q, IFINDEX), b));
	if (HAS(q, MODE))
		line_add(&l, "mode %s", mode_name(VAL(q, MODE), b));
	line_print(f, &l, "");

	line_init(&l, "  ");
	if (HAS(q, ABW))
		line_add(&l, "cap %s", fmt_rate(b, VAL(q, ABW)));
	if (HAS(q, CEIL) && VAL(q, CEIL))
		line_add(&l, "cap-ceiling %s", fmt_rate(b, VAL(q, CEIL)));
	if (HAS(q, RECV_RATE))
		line_add(&l, "recv-rate %s", fmt_rate(b, VAL(q, RECV_RATE)));
	if (HAS(q, SEQ))
		line_add(&l, "seq %" PRIu64, VAL(q, SEQ));
	if (HAS(q, SENT))
		line_add(&l, "sent %" PRIu64, VAL(q, SENT));
	if (HAS(q, LOST))
		line_add(&l, "lost %" PRIu64, VAL(q, LOST));
	/* (the estimate's interval: the status file's span, not its T_c) */
	if (HAS(q, INTERVAL))
		line_add(&l, "span %s", fmt_time(b, VAL(q, INTERVAL)));
	if (HAS(q, SCAVENGER_HOLD) && VAL(q, SCAVENGER_HOLD))
		line_add(&l, "scavenger-hold %s", fmt_time(b, VAL(q, SCAVENGER_HOLD)));
	line_print(f, &l, "  ");

	line_init(&l, "  ");
	add_ratios(&l, q);
	if (q->nhist) {
		char hist[sizeof(l.buf) / 2];
		size_t len = 0;

		hist[0] = '\0';
		for (i = 0; i < q->nhist && len + FMT_LEN < sizeof(hist); i++)
			len += snprintf(hist + len, sizeof(hist) - len, "%s%s",
					i ? " " : "", fmt_ratio(b, q->hist[i]));
		line_add(&l, "recv-ratio-history %s", hist);
	}
	line_print(f, &l, "  ");

	line_init(&l, "  ");
	if (HAS(q, UPDATES))
		line_add(&l, "updates %" PRIu64, VAL(q, UPDATES));
	if (last_update_ago(q, now_ns, &ago))
		line_add(&l, "last estimate %s ago", fmt_time(b, ago / 1000000 * 1000));
	else if (HAS(q, LAST_UPDATE))
		line_add(&l, "last estimate never");
	if (HAS(q, STALE))
		line_add(&l, "stale %s", VAL(q, STALE) ? "yes" : "no");
	line_print(f, &l, "  ");

	line_init(&l, "  ");
	/* the parameters as tc sets them: its keywords, its units */
	if (HAS(q, PARAM_C))
		line_add(&l, "window %" PRIu64, VAL(q, PARAM_C));
	if (HAS(q, PARAM_M))
		line_add(&l, "history %" PRIu64, VAL(q, PARAM_M));
	if (HAS(q, PARAM_BLIM))
		line_add(&l, "loss-headroom %s", fmt_rate(b, VAL(q, PARAM_BLIM)));
	if (HAS(q, PARAM_FLOOR))
		line_add(&l, "floor %s", fmt_rate(b, VAL(q, PARAM_FLOOR)));
	if (HAS(q, PARAM_STALE) && VAL(q, PARAM_STALE))
		line_add(&l, "stale %s", fmt_time(b, VAL(q, PARAM_STALE) * 1000));
	else if (HAS(q, PARAM_STALE))
		line_add(&l, "stale never");
	if (HAS(q, PARAM_CONVERGE))
		line_add(&l, "converge %s", converge_name(VAL(q, PARAM_CONVERGE), b));
	line_print(f, &l, "  ");

	line_init(&l, "  ");
	add_result(&l, q);
	line_print(f, &l, "  ");

	if (q->ncls) {
		fputc('\n', f);
		show_table(f, q);
	}
}

/* what JSON has of a value: as the message has it, or in the key's unit */
enum json_conv {
	AS_IS,
	BITS_TO_BYTES,		/* a rate: bits/s to bytes/s */
	MS_TO_US,		/* a time */
};

struct json_member {
	int type;
	const char *key;
	enum json_conv conv;
};

static void json_members(struct json *j, const struct qdisc_info *q,
			 const struct json_member *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t v = q->v[m[i].type];

		if (!q->has[m[i].type])
			continue;
		if (m[i].conv == BITS_TO_BYTES)
			v /= 8;
		else if (m[i].conv == MS_TO_US)
			v *= 1000;
		json_u64(j, m[i].key, v);
	}
}

#define JSON_MEMBERS(j, q, m) json_members(j, q, m, ARRAY_SIZE(m))

/*
 * The qdisc-level members, in the order of the spec, absent ones left out;
 * show (@now_ns not NULL) adds the history of the ratio and the age of the
 * last estimate. Keys carry their unit; rates are in bytes/s as tc prints
 * them, and the parameters take tc's keywords.
 */
void qdisc_json(struct json *j, const struct qdisc_info *q, const uint64_t *now_ns)
{
	static const struct json_member estimate[] = {
		{ ER2BC_A_QDISC_ABW,		"cap_bytes_per_second", BITS_TO_BYTES },
		{ ER2BC_A_QDISC_CEIL,		"cap_ceiling_bytes_per_second", BITS_TO_BYTES },
		{ ER2BC_A_QDISC_RECV_RATE,	"recv_rate_bytes_per_second", BITS_TO_BYTES },
		{ ER2BC_A_QDISC_SENT,		"sent_packets", AS_IS },
		{ ER2BC_A_QDISC_LOST,		"lost_packets", AS_IS },
		{ ER2BC_A_QDISC_SEQ,		"seq", AS_IS },
		{ ER2BC_A_QDISC_INTERVAL,	"span_us", AS_IS },
		{ ER2BC_A_QDISC_SCAVENGER_HOLD,	"scavenger_hold_us", AS_IS },
		{ ER2BC_A_QDISC_RATIO,		"recv_ratio_ppm", AS_IS },
		{ ER2BC_A_QDISC_RATIO_MIN,	"recv_ratio_min_ppm", AS_IS },
	}, updates[] = {
		{ ER2BC_A_QDISC_UPDATES,	"updates", AS_IS },
		{ ER2BC_A_QDISC_LAST_UPDATE,	"last_update_ns", AS_IS },
	}, params[] = {
		{ ER2BC_A_QDISC_PARAM_C,	"window", AS_IS },
		{ ER2BC_A_QDISC_PARAM_M,	"history", AS_IS },
		{ ER2BC_A_QDISC_PARAM_BLIM,	"loss_headroom_bytes_per_second", BITS_TO_BYTES },
		{ ER2BC_A_QDISC_PARAM_FLOOR,	"floor_bytes_per_second", BITS_TO_BYTES },
		{ ER2BC_A_QDISC_PARAM_STALE,	"stale_us", MS_TO_US },
	}, result[] = {
		{ ER2BC_A_QDISC_GUARANTEED,	"guaranteed_bytes_per_second", BITS_TO_BYTES },
		{ ER2BC_A_QDISC_CLASSES,	"class_count", AS_IS },
		{ ER2BC_A_QDISC_COST,		"cost_ns", AS_IS },
	};
	char b[FMT_LEN];
	uint64_t ago;
	size_t i;

	if (HAS(q, IFINDEX)) {
		json_u64(j, "ifindex", VAL(q, IFINDEX));
		if (dev_lookup(VAL(q, IFINDEX), b))
			json_str(j, "dev", b);
	}
	if (HAS(q, HANDLE))
		json_str(j, "handle", fmt_handle(b, (uint32_t)VAL(q, HANDLE)));
	if (HAS(q, MODE))
		json_str(j, "mode", mode_name(VAL(q, MODE), b));
	JSON_MEMBERS(j, q, estimate);
	if (now_ns) {
		json_arr_open(j, "recv_ratio_history_ppm");
		for (i = 0; i < q->nhist; i++)
			json_u64(j, NULL, q->hist[i]);
		json_arr_close(j);
	}
	JSON_MEMBERS(j, q, updates);
	if (now_ns && last_update_ago(q, *now_ns, &ago))
		json_u64(j, "estimate_age_ns", ago);
	if (HAS(q, STALE))
		json_bool(j, "stale", VAL(q, STALE));
	JSON_MEMBERS(j, q, params);
	if (HAS(q, PARAM_CONVERGE))
		json_str(j, "converge", converge_name(VAL(q, PARAM_CONVERGE), b));
	JSON_MEMBERS(j, q, result);
}

/* a signed rate, bits/s, in bytes/s (rounded towards 0, as the unsigned) */
static void json_srate(struct json *j, const char *key, uint64_t v)
{
	json_s64(j, key, (int64_t)v / 8);
}

static void json_class(struct json *j, const struct class_info *c)
{
	char b[FMT_LEN];

	json_obj_open(j, NULL);
	if (CHAS(c, CLASSID))
		json_str(j, "classid", fmt_handle(b, (uint32_t)CVAL(c, CLASSID)));
	if (CHAS(c, PRIO))
		json_u64(j, "prio", CVAL(c, PRIO));
	if (CHAS(c, TYPE))
		json_str(j, "type", type_name(CVAL(c, TYPE), b));
	if (CHAS(c, RATE))
		json_u64(j, "rate_bytes_per_second", CVAL(c, RATE) / 8);
	if (CHAS(c, MARGIN))
		json_u64(j, "margin_percent", CVAL(c, MARGIN));
	if (CHAS(c, GUARANTEE))
		json_u64(j, "guarantee_bytes_per_second", CVAL(c, GUARANTEE) / 8);
	if (CHAS(c, DEMAND))
		json_u64(j, "demand_bytes_per_second", CVAL(c, DEMAND) / 8);
	if (CHAS(c, EXPECTED))
		json_u64(j, "expected_bytes_per_second", CVAL(c, EXPECTED) / 8);
	if (CHAS(c, DELTA))
		json_srate(j, "shortfall_bytes_per_second", CVAL(c, DELTA));
	if (CHAS(c, DELTA_SUM))
		json_srate(j, "shortfall_sum_bytes_per_second", CVAL(c, DELTA_SUM));
	json_obj_close(j);
}

static void show_json(FILE *f, const struct qdisc_info *q, uint64_t now_ns)
{
	struct json j;
	size_t i;

	json_init(&j, f, out.pretty);
	json_obj_open(&j, NULL);
	qdisc_json(&j, q, &now_ns);
	json_arr_open(&j, "classes");
	for (i = 0; i < q->ncls; i++)
		json_class(&j, &q->cls[i]);
	json_arr_close(&j);
	json_obj_close(&j);
	json_end(&j);
}

void show_print(FILE *f, const struct qdisc_info *q, uint64_t now_ns)
{
	if (out.json)
		show_json(f, q, now_ns);
	else
		show_text(f, q, now_ns);
}

/*
 * when: the local time, as tc -ts prints it ("[2026-11-28T01:02:03.456789]"),
 * or "" if the clock cannot be read as one
 */
static const char *fmt_timestamp(char *buf, size_t len, uint64_t unix_us)
{
	time_t t = (time_t)(unix_us / 1000000);
	struct tm tm;
	size_t n;

	if (!localtime_r(&t, &tm))
		return "";
	n = strftime(buf, len, "[%Y-%m-%dT%H:%M:%S", &tm);
	if (!n)
		return "";
	snprintf(buf + n, len - n, ".%06u] ", (unsigned int)(unix_us % 1000000));
	return buf;
}

void monitor_print(FILE *f, const struct qdisc_info *q, uint64_t unix_us)
{
	char ts[64], b[FMT_LEN], cid[FMT_LEN];
	struct line l;
	size_t i;

	if (out.json) {
		struct json j;

		json_init(&j, f, out.pretty);
		json_obj_open(&j, NULL);
		json_u64(&j, "unix_time_us", unix_us);
		qdisc_json(&j, q, NULL);
		/* each class's guarantee, as many as the notification held */
		json_arr_open(&j, "classes");
		for (i = 0; i < q->ncls; i++)
			json_class(&j, &q->cls[i]);
		json_arr_close(&j);
		json_obj_close(&j);
		json_end(&j);
		return;
	}
	line_init(&l, " ");
	add_target(&l, q);
	add_estimate(&l, q);
	add_ratios(&l, q);
	if (HAS(q, UPDATES))
		line_add(&l, "updates %" PRIu64, VAL(q, UPDATES));
	if (HAS(q, STALE))
		line_add(&l, "stale %s", VAL(q, STALE) ? "yes" : "no");
	add_result(&l, q);
	fprintf(f, "%s%s", fmt_timestamp(ts, sizeof(ts), unix_us), l.buf);
	/* each class's guarantee (on the line, however many: not in l) */
	if (q->ncls)
		fputs(" guarantees", f);
	for (i = 0; i < q->ncls; i++) {
		const struct class_info *c = &q->cls[i];

		if (CHAS(c, CLASSID) && CHAS(c, GUARANTEE))
			fprintf(f, " %s=%s", fmt_handle(cid, (uint32_t)CVAL(c, CLASSID)),
				fmt_rate(b, CVAL(c, GUARANTEE)));
	}
	/* (more classes than one notification holds) */
	if (q->ncls && HAS(q, CLASSES) && VAL(q, CLASSES) > q->ncls)
		fprintf(f, " +%" PRIu64 " more", VAL(q, CLASSES) - q->ncls);
	fputc('\n', f);
}
