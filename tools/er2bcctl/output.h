/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What show and monitor print: text for people (rates as tc writes them),
 * or JSON (rates, ratios and times as the kernel sends them, raw integers).
 */
#ifndef _ER2BCCTL_OUTPUT_H
#define _ER2BCCTL_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "decode.h"

/* a line of "key value" items, separated by sep; absent items are left out */
struct line {
	char buf[1024];
	size_t len;
	const char *sep;
};

void line_init(struct line *l, const char *sep);
void line_add(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "<indent><items>\n", if there are any */
void line_print(FILE *f, const struct line *l, const char *indent);

/*
 * The name of device @ifindex into @buf (FMT_LEN bytes); false if there
 * is none (not in this namespace, gone).
 */
bool dev_lookup(uint64_t ifindex, char *buf);
/* the device's name, or "if<N>" */
const char *dev_name(uint64_t ifindex, char *buf);

/* "er2bc", "tcp", "gradual" ..., or the number (in @buf, FMT_LEN bytes) */
const char *mode_name(uint64_t mode, char *buf);
const char *type_name(uint64_t type, char *buf);
const char *converge_name(uint64_t converge, char *buf);

/*
 * The controller's state (ctrl-get) on @f: a header and a table of the
 * classes, or one JSON object. @now_ns is CLOCK_MONOTONIC, for how long
 * ago the last update was.
 */
void show_print(FILE *f, const struct qdisc_info *q, uint64_t now_ns);

/*
 * how long ago @q's last estimate was applied, in ns (as tc -j's
 * estimate_age_ns), at @now_ns (CLOCK_MONOTONIC): false if none was
 */
bool last_update_ago(const struct qdisc_info *q, uint64_t now_ns, uint64_t *ns);

struct json;
/*
 * @q's qdisc-level members into the open object of @j, as show prints them
 * (@now_ns: CLOCK_MONOTONIC, for the age of the last estimate; NULL: as
 * monitor prints them)
 */
void qdisc_json(struct json *j, const struct qdisc_info *q, const uint64_t *now_ns);

/*
 * one abw-ntf event, received at @unix_us (CLOCK_REALTIME): one line after
 * its local time, or one JSON object (one line unless pretty)
 */
void monitor_print(FILE *f, const struct qdisc_info *q, uint64_t unix_us);

#endif /* _ER2BCCTL_OUTPUT_H */
