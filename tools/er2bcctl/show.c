// SPDX-License-Identifier: GPL-2.0
/*
 * er2bcctl show: the eR2BC controller's state (ER2BC_CMD_CTRL_GET, a dump):
 * the qdisc's parameters and history, then its classes.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <linux/er2bc_genl.h>

#include "decode.h"
#include "er2bcctl.h"
#include "nl.h"
#include "output.h"
#include "parse.h"

/* times a dump the kernel marks inconsistent (NLM_F_DUMP_INTR) is retried */
#define DUMP_TRIES	3

struct show {
	struct target t;
	struct qdisc_info q;
};

struct ctrl_get {
	uint32_t ifindex, handle;
	struct qdisc_info *q;
};

static int ctrl_msg(const struct nlmsghdr *nlh, void *data)
{
	struct ctrl_get *c = data;

	return qdisc_merge(c->q, nlh, c->ifindex, c->handle) < 0 ?
	       MNL_CB_ERROR : MNL_CB_OK;
}

static int parse_args(struct show *s, int argc, char **argv)
{
	const char *key;
	int ret;

	for (; argc > 0; argc -= 2, argv += 2) {
		key = argv[0];
		if (strcmp(key, "dev") && strcmp(key, "ifindex") && strcmp(key, "handle"))
			return usage_err("unknown argument \"%s\" (try " PROG " -h)", key);
		if (argc < 2)
			return usage_err("\"%s\" needs a value", key);
		ret = target_arg(&s->t, key, argv[1]);
		if (ret)
			return ret;
	}
	return target_check(&s->t) ? EXIT_USAGE : 0;
}

/* one dump into q: 0, or -errno with err saying what the kernel said */
static int dump(struct nl *nl, struct ctrl_get *c, struct nl_err *err)
{
	struct nlmsghdr *nlh;

	qdisc_free(c->q);
	nlh = nl_genl_msg(nl, nl->family, ER2BC_CMD_CTRL_GET, ER2BC_FAMILY_VERSION,
			  NLM_F_DUMP);
	mnl_attr_put_u32(nlh, ER2BC_A_QDISC_IFINDEX, c->ifindex);
	mnl_attr_put_u32(nlh, ER2BC_A_QDISC_HANDLE, c->handle);
	return nl_talk(nl, nlh, ctrl_msg, c, err);
}

int ctrl_get(struct nl *nl, uint32_t ifindex, uint32_t handle, struct qdisc_info *q,
	     struct nl_err *err)
{
	struct ctrl_get c = { .ifindex = ifindex, .handle = handle, .q = q };
	int ret = 0, i;

	for (i = 0; i < DUMP_TRIES; i++) {
		ret = dump(nl, &c, err);
		if (ret != -EINTR || err->error)
			break;
	}
	return ret;
}

int do_show(int argc, char **argv)
{
	struct show s = { 0 };
	struct timespec now;
	struct nl_err err;
	char b[FMT_LEN];
	struct nl own, *nl;
	int ret;

	ret = parse_args(&s, argc, argv);
	if (ret)
		return ret;
	ret = family_get(&fam_er2bc, &own, &nl);
	if (ret)
		return ret;

	ret = ctrl_get(nl, s.t.ifindex, s.t.handle, &s.q, &err);
	if (ret == -EINTR && !err.error) {
		err_msg("%s: the qdisc kept changing during the dump; try again", cmd_name);
		ret = EXIT_FAIL;
	} else if (ret) {
		kernel_error(&fam_er2bc, &err, ret, cmd_name);
		ret = EXIT_FAIL;
	} else if (!s.q.msgs) {
		err_msg("%s: no er2bc qdisc %s on ifindex %u", cmd_name,
			fmt_handle(b, s.t.handle), s.t.ifindex);
		ret = EXIT_FAIL;
	} else {
		/* the request's, if no message said */
		if (!s.q.has[ER2BC_A_QDISC_IFINDEX]) {
			s.q.has[ER2BC_A_QDISC_IFINDEX] = true;
			s.q.v[ER2BC_A_QDISC_IFINDEX] = s.t.ifindex;
		}
		if (!s.q.has[ER2BC_A_QDISC_HANDLE]) {
			s.q.has[ER2BC_A_QDISC_HANDLE] = true;
			s.q.v[ER2BC_A_QDISC_HANDLE] = s.t.handle;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		show_print(stdout, &s.q, (uint64_t)now.tv_sec * 1000000000 + (uint64_t)now.tv_nsec);
	}
	qdisc_free(&s.q);
	family_put(nl);
	return ret;
}
