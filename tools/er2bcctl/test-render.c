// SPDX-License-Identifier: GPL-2.0
/*
 * The host tests' harness (test-parse.sh): er2bc messages as the kernel
 * would send them, made up here, through the same decoding and printing
 * as er2bcctl's; and refusals (NLMSG_ERROR, NLMSG_DONE) with extended ACKs.
 *
 *   test-render show|show-sparse|monitor [text|json|pretty]
 *   test-render extack
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "decode.h"
#include "er2bcctl.h"
#include "nl.h"
#include "output.h"

#define FAMILY		0x1d
#define LO		1		/* every namespace's loopback */
#define NO_DEV		999999		/* no device has this index */
#define H1		0x10000		/* 1: */
#define H2		0x20000		/* 2: */
#define MS		1000000ULL	/* ns */
#define LAST		(5000 * MS)	/* the last update, CLOCK_MONOTONIC */

static char buf[NL_BUF_LEN];

static struct nlmsghdr *msg(uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = FAMILY;
	nlh->nlmsg_flags = NLM_F_MULTI;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = ER2BC_FAMILY_VERSION;
	return nlh;
}

/* as nla_put_u64_64bit() does where u64s must be aligned: a pad first */
static void put_u64_pad(struct nlmsghdr *nlh, uint16_t pad, uint16_t type, uint64_t v)
{
	if ((nlh->nlmsg_len + MNL_ATTR_HDRLEN) % 8)
		mnl_attr_put(nlh, pad, 0, NULL);
	mnl_attr_put_u64(nlh, type, v);
}

#define QU64(nlh, a, v)	put_u64_pad(nlh, ER2BC_A_QDISC_PAD, ER2BC_A_QDISC_##a, v)
#define QU32(nlh, a, v)	mnl_attr_put_u32(nlh, ER2BC_A_QDISC_##a, v)
#define QU8(nlh, a, v)	mnl_attr_put_u8(nlh, ER2BC_A_QDISC_##a, v)
#define CU64(nlh, a, v)	put_u64_pad(nlh, ER2BC_A_CLASS_PAD, ER2BC_A_CLASS_##a, (uint64_t)(v))
#define CU32(nlh, a, v)	mnl_attr_put_u32(nlh, ER2BC_A_CLASS_##a, v)
#define CU8(nlh, a, v)	mnl_attr_put_u8(nlh, ER2BC_A_CLASS_##a, v)

static void merge(struct qdisc_info *q, const struct nlmsghdr *nlh, uint32_t ifindex,
		  uint32_t handle)
{
	if (qdisc_merge(q, nlh, ifindex, handle) < 0) {
		perror("qdisc_merge");
		exit(1);
	}
}

static void target(struct nlmsghdr *nlh, uint32_t ifindex, uint32_t handle)
{
	QU32(nlh, IFINDEX, ifindex);
	QU32(nlh, HANDLE, handle);
}

static void tcp_class(struct nlmsghdr *nlh, uint32_t classid, uint8_t prio, uint64_t rf,
		      uint64_t g, uint64_t sd, uint64_t re, int64_t delta, int64_t sum)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, ER2BC_A_QDISC_CLASS);

	CU32(nlh, CLASSID, classid);
	CU8(nlh, PRIO, prio);
	CU8(nlh, TYPE, 0);
	CU64(nlh, RATE, rf);
	CU64(nlh, GUARANTEE, g);
	CU64(nlh, DEMAND, sd);
	CU64(nlh, EXPECTED, re);
	CU64(nlh, DELTA, delta);
	CU64(nlh, DELTA_SUM, sum);
	mnl_attr_nest_end(nlh, nest);
}

/* a qdisc in er2bc mode, three classes, split as the spec says */
static void show_full(void)
{
	struct qdisc_info q = { 0 };
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	/* the qdisc-level message */
	nlh = msg(ER2BC_CMD_CTRL_GET);
	target(nlh, LO, H1);
	QU8(nlh, MODE, 2);
	QU64(nlh, ABW, 10000000);
	QU64(nlh, RECV_RATE, 9500000);
	QU64(nlh, SENT, 1000);
	QU64(nlh, LOST, 12);
	QU32(nlh, SEQ, 42);
	QU32(nlh, INTERVAL, 100000);
	QU32(nlh, RATIO, 982000);
	QU32(nlh, RATIO_MIN, 950123);
	QU32(nlh, RATIO_HIST, 982000);
	QU32(nlh, RATIO_HIST, 990000);
	QU32(nlh, RATIO_HIST, 950123);
	QU64(nlh, UPDATES, 42);
	QU64(nlh, LAST_UPDATE, LAST);
	QU8(nlh, STALE, 0);
	QU32(nlh, PARAM_C, 10);
	QU32(nlh, PARAM_M, 10);
	QU64(nlh, PARAM_BLIM, 50000);
	QU64(nlh, PARAM_FLOOR, 0);
	QU32(nlh, PARAM_STALE, 3000);
	QU8(nlh, PARAM_CONVERGE, 1);
	QU64(nlh, GUARANTEED, 9000000);
	QU32(nlh, CLASSES, 3);
	QU64(nlh, COST, 12345);
	merge(&q, nlh, LO, H1);

	/* another qdisc's: a kernel that dumps them all must not mix them in */
	nlh = msg(ER2BC_CMD_CTRL_GET);
	target(nlh, LO, H2);
	QU64(nlh, ABW, 1);
	tcp_class(nlh, 0x20010, 1, 1, 1, 1, 1, 1, 1);
	merge(&q, nlh, LO, H1);

	/* the classes: two in one message, one in the next */
	nlh = msg(ER2BC_CMD_CTRL_GET);
	target(nlh, LO, H1);
	tcp_class(nlh, 0x10010, 1, 2000000, 2000000, 2100000, 1900000, 100000, 1000000);
	tcp_class(nlh, 0x10020, 2, 1234567, 1200000, 1200000, 1434567, -200000, -1500000);
	merge(&q, nlh, LO, H1);

	nlh = msg(ER2BC_CMD_CTRL_GET);
	target(nlh, LO, H1);
	nest = mnl_attr_nest_start(nlh, ER2BC_A_QDISC_CLASS);
	CU32(nlh, CLASSID, 0x100ff);
	CU8(nlh, PRIO, 3);
	CU8(nlh, TYPE, 1);
	CU64(nlh, RATE, 400000);
	CU64(nlh, GUARANTEE, 400000);
	CU64(nlh, DEMAND, 400000);
	mnl_attr_nest_end(nlh, nest);
	merge(&q, nlh, LO, H1);

	show_print(stdout, &q, LAST + 120 * MS + MS / 2);
	qdisc_free(&q);
}

/* a kernel that sends little: what is missing is left out */
static void show_sparse(void)
{
	struct qdisc_info q = { 0 };
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	nlh = msg(ER2BC_CMD_CTRL_GET);
	QU32(nlh, IFINDEX, NO_DEV);
	QU64(nlh, ABW, 999999);
	QU64(nlh, UPDATES, 0);
	QU64(nlh, LAST_UPDATE, 0);
	QU8(nlh, STALE, 1);
	QU32(nlh, PARAM_STALE, 0);
	nest = mnl_attr_nest_start(nlh, ER2BC_A_QDISC_CLASS);
	CU32(nlh, CLASSID, 0x10001);
	mnl_attr_nest_end(nlh, nest);
	merge(&q, nlh, NO_DEV, H1);

	/* narrower integers than the spec's are read alike, signed ones too */
	nlh = msg(ER2BC_CMD_CTRL_GET);
	QU32(nlh, RATIO_HIST, 1000000);
	nest = mnl_attr_nest_start(nlh, ER2BC_A_QDISC_CLASS);
	CU32(nlh, CLASSID, 0x10002);
	CU32(nlh, RATE, 64000);
	mnl_attr_put_u32(nlh, ER2BC_A_CLASS_DELTA, (uint32_t)-64000);
	mnl_attr_put_u16(nlh, ER2BC_A_CLASS_DELTA_SUM, (uint16_t)-1);
	/* a broken attribute (3 bytes) is skipped */
	mnl_attr_put(nlh, ER2BC_A_CLASS_GUARANTEE, 3, "abc");
	mnl_attr_nest_end(nlh, nest);
	merge(&q, nlh, NO_DEV, H1);
	show_print(stdout, &q, LAST);
	qdisc_free(&q);
}

static void event(uint32_t ifindex, uint32_t handle, uint32_t seq, uint8_t stale,
		  uint32_t want_ifindex)
{
	struct qdisc_info q = { 0 };
	struct nlmsghdr *nlh;

	nlh = msg(ER2BC_CMD_ABW_NTF);
	target(nlh, ifindex, handle);
	QU8(nlh, MODE, 2);
	QU64(nlh, ABW, 8000000);
	QU64(nlh, RECV_RATE, 7999999);
	QU32(nlh, SEQ, seq);
	QU32(nlh, RATIO, 999999);
	QU32(nlh, RATIO_MIN, 500);
	QU64(nlh, UPDATES, seq);
	QU8(nlh, STALE, stale);
	QU64(nlh, GUARANTEED, 7500000);
	QU32(nlh, CLASSES, 2);
	QU64(nlh, COST, 800);
	if (qdisc_merge(&q, nlh, want_ifindex, 0) > 0)
		monitor_print(stdout, &q);
	qdisc_free(&q);
}

static void monitor(void)
{
	event(LO, H1, 7, 0, 0);
	event(NO_DEV, 0xffff0000, 8, 1, 0);
	/* filtered out: monitor dev lo */
	event(NO_DEV, H1, 9, 0, LO);
}

/* an NLMSG_ERROR for a request of @reqlen bytes of attributes */
static struct nlmsghdr *error_msg(int error, bool capped, size_t reqlen)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlmsgerr *e;

	nlh->nlmsg_type = NLMSG_ERROR;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = -error;
	e->msg.nlmsg_len = (uint32_t)(sizeof(struct nlmsghdr) + sizeof(struct genlmsghdr) + reqlen);
	e->msg.nlmsg_type = FAMILY;
	if (capped) {
		nlh->nlmsg_flags |= NLM_F_CAPPED;
	} else {
		/* the request's payload: garbage TLVs that must not be read */
		size_t len = MNL_ALIGN(sizeof(struct genlmsghdr) + reqlen);

		memset(mnl_nlmsg_put_extra_header(nlh, len), 0x01, len);
	}
	return nlh;
}

static void report(const char *what, const struct nlmsghdr *nlh)
{
	struct nl_err err;
	int ret = nl_parse_err(nlh, &err);

	printf("%s: ret %d error %d msg \"%s\"", what, ret, err.error, err.msg);
	if (err.has_miss)
		printf(" miss %u", err.miss_type);
	printf("\n");
	if (ret > 0) {
		fflush(stdout);
		kernel_error(&err, -ret, "abw-set");
		fflush(stderr);
	}
}

static void extack(void)
{
	struct nlmsghdr *nlh;
	int error;

	nlh = error_msg(EINVAL, true, 24);
	nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "not an er2bc qdisc");
	mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, 20);
	report("capped", nlh);

	nlh = error_msg(ENODEV, false, 22);
	nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "no such qdisc\n");
	report("uncapped", nlh);

	nlh = error_msg(EINVAL, true, 8);
	nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	mnl_attr_put_u32(nlh, NLMSGERR_ATTR_MISS_TYPE, ER2BC_A_QDISC_RECV_RATE);
	report("missing", nlh);

	report("plain", error_msg(EPERM, false, 16));
	report("ack", error_msg(0, true, 16));

	nlh = error_msg(0, true, 16);
	nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "estimate out of order");
	report("warning", nlh);

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI | NLM_F_ACK_TLVS;
	error = -EOPNOTSUPP;
	mnl_nlmsg_put_extra_header(nlh, sizeof(error));
	memcpy(mnl_nlmsg_get_payload(nlh), &error, sizeof(error));
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "qdisc is not in er2bc mode");
	report("done-error", nlh);

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	error = 0;
	mnl_nlmsg_put_extra_header(nlh, sizeof(error));
	report("done", nlh);

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_ERROR;
	mnl_nlmsg_put_extra_header(nlh, 8);
	report("short", nlh);
}

int main(int argc, char **argv)
{
	const char *how = argc > 2 ? argv[2] : "text";

	out.json = strcmp(how, "text") != 0;
	out.pretty = !strcmp(how, "pretty");
	if (argc < 2)
		goto usage;
	if (!strcmp(argv[1], "show"))
		show_full();
	else if (!strcmp(argv[1], "show-sparse"))
		show_sparse();
	else if (!strcmp(argv[1], "monitor"))
		monitor();
	else if (!strcmp(argv[1], "extack"))
		extack();
	else
		goto usage;
	return 0;
usage:
	fprintf(stderr, "usage: test-render show|show-sparse|monitor [text|json|pretty]\n"
		"       test-render extack\n");
	return 2;
}
