/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What show and monitor print: text for people (rates as tc writes them),
 * or JSON (rates, ratios and times as the kernel sends them, raw integers).
 */
#ifndef _ER2BCCTL_OUTPUT_H
#define _ER2BCCTL_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "decode.h"

/*
 * The controller's state (ctrl-get) on @f: a header and a table of the
 * classes, or one JSON object. @now_ns is CLOCK_MONOTONIC, for how long
 * ago the last update was.
 */
void show_print(FILE *f, const struct qdisc_info *q, uint64_t now_ns);

/* one abw-ntf event: one line, or one JSON object (one line unless pretty) */
void monitor_print(FILE *f, const struct qdisc_info *q);

#endif /* _ER2BCCTL_OUTPUT_H */
