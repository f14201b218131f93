// SPDX-License-Identifier: GPL-2.0
/*
 * q_er2bc.c	tc plugin of the er2bc qdisc.
 *
 *   tc qdisc add dev DEV root er2bc [ rate RATE | rate unlimited ]
 *					 [ burst SIZE ] [ limit PACKETS ]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/er2bc.h>

#include "tc_abi.h"

#define OPT_MAXLEN 1024

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... er2bc [ rate RATE | rate unlimited ] [ burst SIZE ]\n"
		"                 [ limit PACKETS ]\n"
		"  rate   cap of the total rate (default: unlimited)\n"
		"  burst  bytes that may leave back to back (default: 1 ms at\n"
		"         the rate, at least two MTU-sized packets)\n"
		"  limit  queue length in packets (default: txqueuelen)\n");
}

static int bad(const char *what, const char *arg)
{
	fprintf(stderr, "er2bc: illegal \"%s\" value \"%s\"\n", what, arg);
	explain();
	return -1;
}

static int er2bc_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			   struct nlmsghdr *n, const char *dev)
{
	struct rtattr *tail;
	__u64 rate = 0;
	__u32 val;
	bool have_rate = false, have_burst = false, have_limit = false;
	__u32 burst = 0, limit = 0;

	for (; argc > 0; argc--, argv++) {
		if (strcmp(*argv, "help") == 0) {
			explain();
			return -1;
		}
		if (argc < 2) {
			fprintf(stderr, "er2bc: \"%s\" needs a value\n", *argv);
			explain();
			return -1;
		}
		if (strcmp(*argv, "rate") == 0) {
			argc--, argv++;
			if (strcmp(*argv, "unlimited") == 0)
				rate = 0;
			else if (get_rate64(&rate, *argv) || !rate)
				return bad("rate", *argv);
			rate *= 8;	/* tc parses bytes per second */
			have_rate = true;
		} else if (strcmp(*argv, "burst") == 0) {
			argc--, argv++;
			if (get_size(&val, *argv))
				return bad("burst", *argv);
			burst = val;
			have_burst = true;
		} else if (strcmp(*argv, "limit") == 0) {
			argc--, argv++;
			if (get_u32(&val, *argv, 0))
				return bad("limit", *argv);
			limit = val;
			have_limit = true;
		} else {
			fprintf(stderr, "er2bc: unknown option \"%s\"\n", *argv);
			explain();
			return -1;
		}
	}

	tail = addattr_nest(n, OPT_MAXLEN, TCA_OPTIONS | NLA_F_NESTED);
	if (have_rate)
		addattr_l(n, OPT_MAXLEN, TCA_ER2BC_RATE, &rate, sizeof(rate));
	if (have_burst)
		addattr_l(n, OPT_MAXLEN, TCA_ER2BC_BURST, &burst, sizeof(burst));
	if (have_limit)
		addattr_l(n, OPT_MAXLEN, TCA_ER2BC_LIMIT, &limit, sizeof(limit));
	addattr_nest_end(n, tail);
	return 0;
}

static int er2bc_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_ER2BC_MAX + 1] = {};
	struct rtattr *rta;
	int len;

	if (!opt)
		return 0;

	len = RTA_PAYLOAD(opt);
	for (rta = RTA_DATA(opt); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		unsigned short type = rta->rta_type & NLA_TYPE_MASK;

		if (type <= TCA_ER2BC_MAX)
			tb[type] = rta;
	}

	if (tb[TCA_ER2BC_RATE] && RTA_PAYLOAD(tb[TCA_ER2BC_RATE]) >= sizeof(__u64)) {
		__u64 rate;

		memcpy(&rate, RTA_DATA(tb[TCA_ER2BC_RATE]), sizeof(rate));
		/* JSON in bits/s, as the kernel has it; text as tc prints rates */
		print_color_u64(PRINT_JSON, TC_COLOR_NONE, "rate", NULL, rate);
		if (rate)
			print_color_rate(false, PRINT_FP, TC_COLOR_NONE, NULL,
					 "rate %s ", rate / 8);
		else
			print_color_string(PRINT_FP, TC_COLOR_NONE, NULL, "%s ",
					   "rate unlimited");
	}
	if (tb[TCA_ER2BC_BURST] && RTA_PAYLOAD(tb[TCA_ER2BC_BURST]) >= sizeof(__u32)) {
		__u32 burst = *(__u32 *)RTA_DATA(tb[TCA_ER2BC_BURST]);

		/* JSON: 0 means derived from rate and MTU */
		print_color_uint(PRINT_JSON, TC_COLOR_NONE, "burst", NULL, burst);
		if (burst)
			print_color_size(PRINT_FP, TC_COLOR_NONE, NULL,
					 "burst %s ", burst);
		else
			print_color_string(PRINT_FP, TC_COLOR_NONE, NULL, "%s ",
					   "burst auto");
	}
	if (tb[TCA_ER2BC_LIMIT] && RTA_PAYLOAD(tb[TCA_ER2BC_LIMIT]) >= sizeof(__u32))
		print_color_uint(PRINT_ANY, TC_COLOR_NONE, "limit", "limit %up ",
				 *(__u32 *)RTA_DATA(tb[TCA_ER2BC_LIMIT]));
	return 0;
}

struct qdisc_util er2bc_qdisc_util = {
	.id		= "er2bc",
	.parse_qopt	= er2bc_parse_opt,
	.print_qopt	= er2bc_print_opt,
};
