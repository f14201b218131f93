// SPDX-License-Identifier: GPL-2.0
/*
 * er2bcctl abw-set: one ABW estimate for one er2bc qdisc (ER2BC_CMD_ABW_SET),
 * which recomputes its guarantees and takes the new ABW as its cap.
 */
#include <string.h>
#include <linux/er2bc_genl.h>

#include "er2bcctl.h"
#include "nl.h"
#include "parse.h"

struct estimate {
	struct target t;
	uint64_t abw, recv, sent, lost;
	uint32_t seq, interval, hold;
	bool has_abw, has_recv, has_sent, has_lost, has_seq, has_interval, has_hold;
};

static int rate_arg(const char *key, const char *val, uint64_t *bps, bool *seen)
{
	const char *why;

	if (once(seen, key))
		return EXIT_USAGE;
	if (parse_rate(val, bps, &why))
		return usage_bad(key, val, why);
	return 0;
}

static int count_arg(const char *key, const char *val, uint64_t *v, bool *seen)
{
	const char *why;

	if (once(seen, key))
		return EXIT_USAGE;
	if (parse_u64(val, v, &why))
		return usage_bad(key, val, why);
	return 0;
}

static int parse_args(struct estimate *e, int argc, char **argv)
{
	const char *key, *val, *why;
	uint64_t us;
	int ret;

	for (; argc > 0; argc -= 2, argv += 2) {
		key = argv[0];
		val = argv[1];
		if (strcmp(key, "dev") && strcmp(key, "ifindex") && strcmp(key, "handle") &&
		    strcmp(key, "abw") && strcmp(key, "recv") && strcmp(key, "sent") &&
		    strcmp(key, "lost") && strcmp(key, "seq") && strcmp(key, "span") &&
		    strcmp(key, "interval") && strcmp(key, "scavenger-hold"))
			return usage_err("unknown argument \"%s\" (try " PROG " -h)", key);
		if (argc < 2)
			return usage_err("\"%s\" needs a value", key);

		ret = target_arg(&e->t, key, val);
		if (ret != 1) {
			if (ret)
				return ret;
			continue;
		}
		if (!strcmp(key, "abw")) {
			if (rate_arg(key, val, &e->abw, &e->has_abw))
				return EXIT_USAGE;
			if (!e->abw)
				return usage_bad(key, val, "must be more than 0");
		} else if (!strcmp(key, "recv")) {
			if (rate_arg(key, val, &e->recv, &e->has_recv))
				return EXIT_USAGE;
		} else if (!strcmp(key, "sent")) {
			if (count_arg(key, val, &e->sent, &e->has_sent))
				return EXIT_USAGE;
		} else if (!strcmp(key, "lost")) {
			if (count_arg(key, val, &e->lost, &e->has_lost))
				return EXIT_USAGE;
		} else if (!strcmp(key, "seq")) {
			if (once(&e->has_seq, key))
				return EXIT_USAGE;
			if (parse_u32(val, &e->seq, &why))
				return usage_bad(key, val, why);
		} else if (!strcmp(key, "scavenger-hold")) {
			if (once(&e->has_hold, key))
				return EXIT_USAGE;
			if (parse_time(val, 1, &us, &why))
				return usage_bad(key, val, why);
			if (us > 60000000)
				return usage_bad(key, val, "too long (at most 60s)");
			e->hold = (uint32_t)us;
		} else {
			/* span; interval, its name before, still taken */
			if (once(&e->has_interval, key))
				return EXIT_USAGE;
			if (parse_time(val, 1, &us, &why))
				return usage_bad(key, val, why);
			if (!us)
				return usage_bad(key, val, "must be more than 0us");
			if (us > UINT32_MAX)
				return usage_bad(key, val, "too long (at most 4294s)");
			e->interval = (uint32_t)us;
		}
	}
	if (target_check(&e->t))
		return EXIT_USAGE;
	if (!e->has_abw)
		return usage_err("missing \"abw\"");
	if (!e->has_recv)
		return usage_err("missing \"recv\"");
	return 0;
}

int do_abw_set(int argc, char **argv)
{
	struct estimate e = { 0 };
	struct nlmsghdr *nlh;
	struct nl_err err;
	struct nl own, *nl;
	int ret;

	ret = parse_args(&e, argc, argv);
	if (ret)
		return ret;
	ret = family_get(&fam_er2bc, &own, &nl);
	if (ret)
		return ret;

	nlh = nl_genl_msg(nl, nl->family, ER2BC_CMD_ABW_SET, ER2BC_FAMILY_VERSION, NLM_F_ACK);
	mnl_attr_put_u32(nlh, ER2BC_A_QDISC_IFINDEX, e.t.ifindex);
	mnl_attr_put_u32(nlh, ER2BC_A_QDISC_HANDLE, e.t.handle);
	mnl_attr_put_u64(nlh, ER2BC_A_QDISC_ABW, e.abw);
	mnl_attr_put_u64(nlh, ER2BC_A_QDISC_RECV_RATE, e.recv);
	if (e.has_sent)
		mnl_attr_put_u64(nlh, ER2BC_A_QDISC_SENT, e.sent);
	if (e.has_lost)
		mnl_attr_put_u64(nlh, ER2BC_A_QDISC_LOST, e.lost);
	if (e.has_seq)
		mnl_attr_put_u32(nlh, ER2BC_A_QDISC_SEQ, e.seq);
	if (e.has_interval)
		mnl_attr_put_u32(nlh, ER2BC_A_QDISC_INTERVAL, e.interval);
	if (e.has_hold)
		mnl_attr_put_u32(nlh, ER2BC_A_QDISC_SCAVENGER_HOLD, e.hold);

	ret = nl_talk(nl, nlh, NULL, NULL, &err);
	if (ret) {
		kernel_error(&fam_er2bc, &err, ret, cmd_name);
		ret = EXIT_FAIL;
	} else if (err.msg[0]) {
		err_msg("warning: %s", err.msg);
	}
	family_put(nl);
	return ret;
}
