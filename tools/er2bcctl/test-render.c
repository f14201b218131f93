// SPDX-License-Identifier: GPL-2.0
/*
 * The host tests' harness (test-parse.sh): er2bc and tcp_rcvmgr messages
 * as the kernel would send them, made up here, through the same decoding
 * and printing as er2bcctl's; refusals (NLMSG_ERROR, NLMSG_DONE) with
 * extended ACKs; and the config-set request rcvmgr set would send, its
 * attributes one a line.
 *
 *   test-render show|show-sparse|monitor [text|json|pretty]
 *   test-render rcvmgr-config|rcvmgr-config-sparse [text|json|pretty]
 *   test-render rcvmgr-conns|rcvmgr-conns-none|rcvmgr-stats [text|json|pretty]
 *   test-render rcvmgr-set [ARGS...]
 *   test-render extack
 *   test-render metrics
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/gen_stats.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "decode.h"
#include "er2bcctl.h"
#include "metrics.h"
#include "nl.h"
#include "output.h"
#include "rcvmgr.h"
#include "status.h"
#include "json_read.h"

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
	CU32(nlh, MARGIN, 0);
	CU64(nlh, GUARANTEE, g);
	CU64(nlh, DEMAND, sd);
	CU64(nlh, EXPECTED, re);
	CU64(nlh, DELTA, delta);
	CU64(nlh, DELTA_SUM, sum);
	mnl_attr_nest_end(nlh, nest);
}

/* a qdisc in er2bc mode, three classes, split as the spec says, into q */
static void build_full(struct qdisc_info *qi)
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
	QU32(nlh, SCAVENGER_HOLD, 1500000);
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
	CU32(nlh, MARGIN, 20);
	CU64(nlh, GUARANTEE, 400000);
	CU64(nlh, DEMAND, 400000);
	mnl_attr_nest_end(nlh, nest);
	merge(&q, nlh, LO, H1);
	*qi = q;
}

static void show_full(void)
{
	struct qdisc_info q;

	build_full(&q);
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
	struct nlattr *nest;
	int i;

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
	QU32(nlh, CLASSES, 3);
	QU64(nlh, COST, 800);
	/* the guarantees of the first two classes: the third did not fit */
	for (i = 0; i < 2; i++) {
		nest = mnl_attr_nest_start(nlh, ER2BC_A_QDISC_CLASS);
		CU32(nlh, CLASSID, 0x10010 + 0x10 * i);
		CU64(nlh, GUARANTEE, 4000000 - 500000 * i);
		mnl_attr_nest_end(nlh, nest);
	}
	if (qdisc_merge(&q, nlh, want_ifindex, 0) > 0)
		monitor_print(stdout, &q, 1795740123456789ULL + seq);
	qdisc_free(&q);
}

static void monitor(void)
{
	event(LO, H1, 7, 0, 0);
	event(NO_DEV, 0xffff0000, 8, 1, 0);
	/* filtered out: monitor dev lo */
	event(NO_DEV, H1, 9, 0, LO);
}

/* tcp_rcvmgr's messages */
static struct nlmsghdr *rmsg(uint8_t cmd)
{
	struct nlmsghdr *nlh = msg(cmd);
	struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);

	genl->version = TCP_RCVMGR_FAMILY_VERSION;
	return nlh;
}

#define GU32(nlh, a, v)	mnl_attr_put_u32(nlh, TCP_RCVMGR_A_CONFIG_##a, v)
#define GU64(nlh, a, v)	put_u64_pad(nlh, TCP_RCVMGR_A_CONFIG_PAD, TCP_RCVMGR_A_CONFIG_##a, v)
#define NU8(nlh, a, v)	mnl_attr_put_u8(nlh, TCP_RCVMGR_A_CONN_##a, v)
#define NU16(nlh, a, v)	mnl_attr_put_u16(nlh, TCP_RCVMGR_A_CONN_##a, v)
#define NU32(nlh, a, v)	mnl_attr_put_u32(nlh, TCP_RCVMGR_A_CONN_##a, v)
#define NU64(nlh, a, v)	put_u64_pad(nlh, TCP_RCVMGR_A_CONN_PAD, TCP_RCVMGR_A_CONN_##a, v)
#define SU32(nlh, a, v)	mnl_attr_put_u32(nlh, TCP_RCVMGR_A_STATS_##a, v)
#define SU64(nlh, a, v)	put_u64_pad(nlh, TCP_RCVMGR_A_STATS_PAD, TCP_RCVMGR_A_STATS_##a, v)

static void put_prefix(struct nlmsghdr *nlh, int family, const char *addr, uint8_t plen)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, TCP_RCVMGR_A_CONFIG_LAN_PREFIX);
	uint8_t a[16];

	if (inet_pton(family, addr, a) != 1)
		abort();
	mnl_attr_put(nlh, TCP_RCVMGR_A_PREFIX_ADDR, family == AF_INET ? 4 : 16, a);
	mnl_attr_put_u8(nlh, TCP_RCVMGR_A_PREFIX_PLEN, plen);
	mnl_attr_nest_end(nlh, nest);
}

static void config_merge(struct rcvmgr_config *c, const struct nlmsghdr *nlh)
{
	if (rcvmgr_config_merge(c, nlh)) {
		perror("rcvmgr_config_merge");
		exit(1);
	}
}

/* a config-get reply: 2 WAN devices (one gone), 1 prefix, 2 rules */
static void rcvmgr_config(void)
{
	struct rcvmgr_config c = { 0 };
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	nlh = rmsg(TCP_RCVMGR_CMD_CONFIG_GET);
	mnl_attr_put_u8(nlh, TCP_RCVMGR_A_CONFIG_POLICY, TCP_RCVMGR_POLICY_AZUMA);
	GU32(nlh, WAN_DEV, LO);
	GU32(nlh, WAN_DEV, NO_DEV);
	put_prefix(nlh, AF_INET, "192.168.0.0", 16);

	nest = mnl_attr_nest_start(nlh, TCP_RCVMGR_A_CONFIG_RULE);
	mnl_attr_put_u16(nlh, TCP_RCVMGR_A_RULE_PORT_MIN, 80);
	mnl_attr_put_u16(nlh, TCP_RCVMGR_A_RULE_PORT_MAX, 443);
	mnl_attr_put_u8(nlh, TCP_RCVMGR_A_RULE_DSCP, 46);
	mnl_attr_put_u32(nlh, TCP_RCVMGR_A_RULE_PRIORITY, 100);
	mnl_attr_nest_end(nlh, nest);
	nest = mnl_attr_nest_start(nlh, TCP_RCVMGR_A_CONFIG_RULE);
	mnl_attr_put_u16(nlh, TCP_RCVMGR_A_RULE_PORT_MIN, 22);
	mnl_attr_put_u16(nlh, TCP_RCVMGR_A_RULE_PORT_MAX, 22);
	mnl_attr_put_u32(nlh, TCP_RCVMGR_A_RULE_MARK, 0x10);
	mnl_attr_put_u32(nlh, TCP_RCVMGR_A_RULE_MARK_MASK, 0xf0);
	mnl_attr_put_u32(nlh, TCP_RCVMGR_A_RULE_PRIORITY, 1);
	mnl_attr_nest_end(nlh, nest);

	GU32(nlh, INTERVAL, 100);
	GU32(nlh, MAX_CONNS, 65536);
	GU32(nlh, IDLE_TIMEOUT, 120000);
	GU32(nlh, BUDGET_INIT, 65536);
	GU32(nlh, BUDGET_MIN, 16384);
	GU32(nlh, BUDGET_MAX, 16777216);
	GU32(nlh, BUDGET_STEP, 1460);
	GU32(nlh, BUDGET_DECREASE, 100);
	GU32(nlh, RTT_TOLERANCE, 20);
	GU64(nlh, LINK_RATE, 100000000);
	GU32(nlh, SPRING_QUEUE, 65536);
	GU32(nlh, SPRING_INTERACTIVE, 2048);
	GU32(nlh, SPRING_SHORT, 102400);
	GU32(nlh, INITIAL_WINDOW, 10);
	config_merge(&c, nlh);
	rcvmgr_config_print(stdout, &c);
	rcvmgr_config_free(&c);
}

/*
 * Empty lists; then, from a second message, an IPv6 prefix without its
 * length, a rule with a mark and no mask, one without a priority; an
 * unknown policy, narrower and wider integers, an attribute unknown here
 */
static void rcvmgr_config_sparse(void)
{
	struct rcvmgr_config c = { 0 };
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	uint8_t a[16];

	nlh = rmsg(TCP_RCVMGR_CMD_CONFIG_GET);
	mnl_attr_put_u8(nlh, TCP_RCVMGR_A_CONFIG_POLICY, 9);
	mnl_attr_put_u16(nlh, TCP_RCVMGR_A_CONFIG_INTERVAL, 1500);
	put_u64_pad(nlh, TCP_RCVMGR_A_CONFIG_PAD, TCP_RCVMGR_A_CONFIG_IDLE_TIMEOUT, 90000);
	mnl_attr_put_u32(nlh, TCP_RCVMGR_A_CONFIG_MAX + 1, 7);
	config_merge(&c, nlh);
	rcvmgr_config_print(stdout, &c);

	/* the lists, in a second message: merged, the lists appended */
	nlh = rmsg(TCP_RCVMGR_CMD_CONFIG_GET);
	nest = mnl_attr_nest_start(nlh, TCP_RCVMGR_A_CONFIG_LAN_PREFIX);
	inet_pton(AF_INET6, "2001:db8::1", a);
	mnl_attr_put(nlh, TCP_RCVMGR_A_PREFIX_ADDR, 16, a);
	mnl_attr_nest_end(nlh, nest);
	put_prefix(nlh, AF_INET6, "fd00::", 8);
	nest = mnl_attr_nest_start(nlh, TCP_RCVMGR_A_CONFIG_RULE);
	mnl_attr_put_u32(nlh, TCP_RCVMGR_A_RULE_MARK, 0xcafe);
	mnl_attr_put_u32(nlh, TCP_RCVMGR_A_RULE_PRIORITY, 1000);
	mnl_attr_nest_end(nlh, nest);
	nest = mnl_attr_nest_start(nlh, TCP_RCVMGR_A_CONFIG_RULE);
	mnl_attr_put_u16(nlh, TCP_RCVMGR_A_RULE_PORT_MIN, 1024);
	mnl_attr_put_u32(nlh, TCP_RCVMGR_A_RULE_MARK, 1);
	mnl_attr_put_u32(nlh, TCP_RCVMGR_A_RULE_MARK_MASK, 0xffffffff);
	mnl_attr_nest_end(nlh, nest);
	config_merge(&c, nlh);
	rcvmgr_config_print(stdout, &c);
	rcvmgr_config_free(&c);
}

static void conn_addrs(struct nlmsghdr *nlh, int family, const char *saddr, uint16_t sport,
		       const char *daddr, uint16_t dport)
{
	int len = family == AF_INET ? 4 : 16;
	uint8_t a[16];

	NU8(nlh, FAMILY, (uint8_t)family);
	if (inet_pton(family, saddr, a) != 1)
		abort();
	mnl_attr_put(nlh, TCP_RCVMGR_A_CONN_SADDR, len, a);
	if (inet_pton(family, daddr, a) != 1)
		abort();
	mnl_attr_put(nlh, TCP_RCVMGR_A_CONN_DADDR, len, a);
	NU16(nlh, SPORT, htons(sport));
	NU16(nlh, DPORT, htons(dport));
}

static void conn_print(struct rcvmgr_conns_out *o, const struct nlmsghdr *nlh)
{
	struct rcvmgr_conn c;

	rcvmgr_conn_decode(&c, nlh);
	rcvmgr_conn_print(o, &c);
}

/* an IPv4 and an IPv6 connection, as a dump sends them; and a sparse one */
static void rcvmgr_conns(void)
{
	struct rcvmgr_conns_out o;
	struct nlmsghdr *nlh;

	rcvmgr_conns_begin(&o, stdout);

	nlh = rmsg(TCP_RCVMGR_CMD_CONN_GET);
	conn_addrs(nlh, AF_INET, "198.51.100.7", 443, "192.168.1.20", 51234);
	NU8(nlh, STATE, TCP_RCVMGR_STATE_PERSISTENT);
	NU32(nlh, PRIORITY, 100);
	NU64(nlh, BYTES, 1234567);
	NU32(nlh, RTT, 23456);
	NU32(nlh, RTT_MIN, 20049);
	NU32(nlh, RTT_SAMPLES, 312);
	NU32(nlh, MSS, 1448);
	NU8(nlh, WSCALE, 7);
	NU32(nlh, WINDOW, 65536);
	NU32(nlh, THRESHOLD, 32768);
	NU32(nlh, ADVERTISED, 262144);
	NU64(nlh, REWRITTEN, 1234);
	NU64(nlh, AGE, 12345);
	conn_print(&o, nlh);

	nlh = rmsg(TCP_RCVMGR_CMD_CONN_GET);
	conn_addrs(nlh, AF_INET6, "2001:db8::1", 80, "fd00::20", 40000);
	NU8(nlh, STATE, TCP_RCVMGR_STATE_INITIAL);
	NU32(nlh, PRIORITY, 1);
	NU64(nlh, BYTES, 900);
	NU32(nlh, RTT, 50);
	NU32(nlh, RTT_MIN, 0);
	NU32(nlh, RTT_SAMPLES, 1);
	NU32(nlh, MSS, 1428);
	NU8(nlh, WSCALE, 14);
	NU32(nlh, WINDOW, 14280);
	NU32(nlh, THRESHOLD, 1048576);
	NU32(nlh, ADVERTISED, 4294967295u);
	NU64(nlh, REWRITTEN, 0);
	NU64(nlh, AGE, 3723000);
	conn_print(&o, nlh);

	/*
	 * Little sent: an unknown family and state, no ports, a 5-byte
	 * address and a 4-byte port (skipped), a narrow mss, an attribute
	 * unknown here
	 */
	nlh = rmsg(TCP_RCVMGR_CMD_CONN_GET);
	NU8(nlh, FAMILY, 99);
	mnl_attr_put(nlh, TCP_RCVMGR_A_CONN_SADDR, 5, "abcde");
	NU32(nlh, SPORT, 80);
	NU8(nlh, STATE, 7);
	mnl_attr_put_u16(nlh, TCP_RCVMGR_A_CONN_MSS, 536);
	mnl_attr_put_u32(nlh, TCP_RCVMGR_A_CONN_MAX + 1, 1);
	conn_print(&o, nlh);

	rcvmgr_conns_end(&o);
}

static void rcvmgr_conns_none(void)
{
	struct rcvmgr_conns_out o;

	rcvmgr_conns_begin(&o, stdout);
	rcvmgr_conns_end(&o);
}

static void rcvmgr_stats(void)
{
	struct rcvmgr_stats s = { 0 };
	struct nlmsghdr *nlh;

	nlh = rmsg(TCP_RCVMGR_CMD_STATS_GET);
	SU32(nlh, CONNS, 12);
	SU32(nlh, INITIAL, 3);
	SU32(nlh, PERSISTENT, 8);
	SU32(nlh, BUDGET, 1572864);
	SU64(nlh, INTERVALS, 36000);
	SU64(nlh, BUDGET_UP, 20000);
	SU64(nlh, BUDGET_DOWN, 1500);
	SU64(nlh, PROBES, 40);
	SU64(nlh, CREATED, 4000);
	SU64(nlh, FREED, 3988);
	SU64(nlh, FULL, 0);
	SU64(nlh, UNSCALED, 2);
	SU64(nlh, ADOPTED, 5);
	SU64(nlh, RESETS, 9);
	SU64(nlh, RESUMED, 4);
	SU64(nlh, RECALLED, 3);
	SU64(nlh, KEPT_LOST, 1);
	SU64(nlh, ACKS, 9876543210ULL);
	SU64(nlh, REWRITTEN, 123456);
	SU64(nlh, RTT_SAMPLES, 234567);
	SU64(nlh, UNSEEN, 17);
	SU64(nlh, MEMORY, 3072);
	rcvmgr_stats_merge(&s, nlh);
	rcvmgr_stats_print(stdout, &s);
}

/*
 * rtnetlink's message of an er2bc qdisc or class with its tc counters
 * (TCA_STATS2), through the parser metrics uses: @slen bytes of @src as
 * its xstats (the struct of a module loaded before an upgrade), or with
 * @slen NESTED_QDISC or NESTED_CLASS @src's fields as this version's
 * nested attributes, read into @x as a qdisc's (@qdisc) or a class's,
 * their length kept in *@xlen
 */
#define NESTED_QDISC ((size_t)-1)
#define NESTED_CLASS ((size_t)-2)

static void tc_stats(struct tc_counts *c, const void *src, size_t slen, void *x,
		     bool qdisc, size_t *xlen, struct class_bound *bound, uint64_t bytes,
		     uint32_t packets, uint32_t qlen, uint32_t backlog, uint32_t drops,
		     uint32_t overlimits)
{
	struct gnet_stats_basic b = { .bytes = bytes, .packets = packets };
	struct gnet_stats_queue q = { .qlen = qlen, .backlog = backlog, .drops = drops,
				      .overlimits = overlimits };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlattr *nest, *app;
	const struct nlattr *got;

	nlh->nlmsg_type = RTM_NEWQDISC;
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct tcmsg));
	mnl_attr_put_strz(nlh, TCA_KIND, "er2bc");
	nest = mnl_attr_nest_start(nlh, TCA_STATS2);
	mnl_attr_put(nlh, TCA_STATS_BASIC, sizeof(b), &b);
	mnl_attr_put(nlh, TCA_STATS_QUEUE, sizeof(q), &q);
	if (slen == NESTED_QDISC) {
		const struct tc_er2bc_xstats *s = src;

		app = mnl_attr_nest_start(nlh, TCA_STATS_APP);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_CAP, s->rate);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_GUARANTEED, s->guaranteed);
		mnl_attr_put_u32(nlh, TCA_ER2BC_STATS_CLASSES, s->classes);
		mnl_attr_put_u32(nlh, TCA_ER2BC_STATS_ACTIVE, s->active);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_UNCLASSIFIED, s->unclassified);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_THROTTLED, s->throttled);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_WAITS, s->waits);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_YIELDED, s->yielded);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_HELD_NS, s->held_ns);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_LEND_TURNS, 11);
		/* (an attribute of a newer module: skipped) */
		mnl_attr_put_u16(nlh, TCA_ER2BC_STATS_MAX + 1, 7);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_UPDATES, s->updates);
		mnl_attr_put_u32(nlh, TCA_ER2BC_STATS_SEQ, s->seq);
		mnl_attr_put_u8(nlh, TCA_ER2BC_STATS_STALE, (uint8_t)s->stale);
		if (s->estimate_age_ns)
			mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_ESTIMATE_AGE_NS, s->estimate_age_ns);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_PROBE_PACKETS, s->probe_packets);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_PROBE_BYTES, s->probe_bytes);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_PROBES, s->probes);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_PROBE_IGNORED, s->probe_ignored);
		mnl_attr_nest_end(nlh, app);
	} else if (slen == NESTED_CLASS) {
		const struct tc_er2bc_class_xstats *s = src;

		app = mnl_attr_nest_start(nlh, TCA_STATS_APP);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_GUARANTEE, s->guarantee);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_BYTES_GUARANTEED, s->bytes_guaranteed);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_BYTES_BORROWED, s->bytes_borrowed);
		mnl_attr_put_u32(nlh, TCA_ER2BC_STATS_CREDIT, (uint32_t)s->credit);
		mnl_attr_put_u32(nlh, TCA_ER2BC_STATS_STATE, s->state);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_SHORTAGE_NS, s->shortage_ns);
		/* its latency bound: 1 Mbit/s served, 12500 bytes, 6 drops */
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_SERVICE_RATE, 1000000);
		mnl_attr_put_u32(nlh, TCA_ER2BC_STATS_BACKLOG_LIMIT, 12500);
		mnl_attr_put_u64(nlh, TCA_ER2BC_STATS_LATENCY_DROPS, 6);
		mnl_attr_nest_end(nlh, app);
	} else {
		mnl_attr_put(nlh, TCA_STATS_APP, slen, src);
	}
	mnl_attr_nest_end(nlh, nest);
	got = tc_counts_parse(nest, c);
	if (qdisc)
		qdisc_xstats_parse(got, x, xlen);
	else
		class_xstats_parse(got, x, xlen, bound);
}

#define QSTATS(q, src, slen, ...) \
	tc_stats(&(q)->tc, src, slen, &(q)->x, true, &(q)->xlen, NULL, __VA_ARGS__)
#define CSTATS(c, src, slen, ...) \
	tc_stats(&(c)->tc, src, slen, &(c)->x, false, &(c)->xlen, &(c)->bound, __VA_ARGS__)

/*
 * What metrics prints: show's qdisc with its tc counters and classes, one
 * more qdisc on a device whose name needs escaping with only tc's view of
 * it (from an older module), one more with tc's view from this version,
 * and tcp_rcvmgr's counters
 */
static void metrics(void)
{
	struct tc_er2bc_xstats qx = {
		.rate = 10000000, .guaranteed = 9000000, .unclassified = 3,
		.throttled = 1234, .waits = 56, .classes = 3, .active = 2,
		.updates = 42, .seq = 42, .probes = 420, .yielded = 7,
		.estimate_age_ns = 2500 * MS, .held_ns = 7250 * MS,
	};
	struct tc_er2bc_class_xstats cx = { .guarantee = 2000000,
		.bytes_guaranteed = 1000000, .bytes_borrowed = 250000,
		.shortage_ns = 12345 * MS };
	static struct status_daemon abwd[3];
	struct metrics_qdisc qd[3] = { 0 };
	struct metrics_class cls[5] = { 0 };
	struct metrics m = { .qd = qd, .nqd = 3 };
	struct nlmsghdr *nlh;

	qd[0].ifindex = LO;
	qd[0].handle = H1;
	snprintf(qd[0].dev, sizeof(qd[0].dev), "lo");
	build_full(&qd[0].ctrl);
	/* a configured rate, W's ceiling */
	nlh = msg(ER2BC_CMD_CTRL_GET);
	target(nlh, LO, H1);
	QU64(nlh, CEIL, 12000000);
	merge(&qd[0].ctrl, nlh, LO, H1);
	QSTATS(&qd[0], &qx, NESTED_QDISC, 9876543210ULL, 123456, 17, 25000, 89, 1234);
	cls[0].classid = 0x10010;
	CSTATS(&cls[0], &cx, NESTED_CLASS, 1250000, 1000, 2, 3000, 4, 5);
	/* a module before the nested statistics and shortage: a shorter struct */
	cls[1].classid = 0x10020;
	CSTATS(&cls[1], &cx, offsetof(struct tc_er2bc_class_xstats, shortage_ns),
	       0, 0, 0, 0, 0, 0);
	/* xstats too short to be a class's: left out */
	cls[2].classid = 0x100ff;
	CSTATS(&cls[2], &cx, offsetof(struct tc_er2bc_class_xstats, credit) - 8,
	       7, 1, 0, 0, 0, 0);
	/* nor a qdisc's, sent where a class's belongs */
	cls[3].classid = 0x100fe;
	CSTATS(&cls[3], &qx, sizeof(qx), 0, 0, 0, 0, 0, 0);
	/* nor a qdisc's nested statistics */
	cls[4].classid = 0x100fd;
	CSTATS(&cls[4], &qx, NESTED_QDISC, 0, 0, 0, 0, 0, 0);
	qd[0].cls = cls;
	qd[0].ncls = 5;

	/* tc's view alone, of a module before scavengers and the estimate's age */
	qd[1].ifindex = NO_DEV;
	qd[1].handle = H2;
	snprintf(qd[1].dev, sizeof(qd[1].dev), "we\"ird\\");
	QSTATS(&qd[1], &qx, offsetof(struct tc_er2bc_xstats, yielded), 100, 1, 0, 0, 0, 0);
	/* and of this version's: the estimate's age from tc */
	qd[2].ifindex = NO_DEV;
	qd[2].handle = 0x30000;
	QSTATS(&qd[2], &qx, NESTED_QDISC, 0, 0, 0, 0, 0, 0);

	nlh = rmsg(TCP_RCVMGR_CMD_STATS_GET);
	SU32(nlh, CONNS, 12);
	SU32(nlh, BUDGET, 1572864);
	SU64(nlh, ACKS, 9876543210ULL);
	SU64(nlh, REWRITTEN, 123456);
	SU64(nlh, MEMORY, 3072);
	rcvmgr_stats_merge(&m.rcvmgr, nlh);
	m.has_rcvmgr = true;

	/* a sender with probes and a responder, as their status files say */
	status_load(&abwd[0], "abwd-sender.json",
		    "{\"role\": \"sender\", \"peer\": \"192.0.2.1\", \"dev\": \"eth1\", "
		    "\"mode\": \"loss\", \"unix_time_seconds\": 1795740120, \"estimates\": 20, "
		    "\"queue_delay_us\": 1500, \"requests\": 21, \"responses\": 20, "
		    "\"timeouts\": 1, \"quiet_intervals\": 0, \"decays\": 2, "
		    "\"dropped\": {\"malformed\": 3, \"unauthenticated\": 0}, "
		    "\"probes\": {\"sent\": 400, \"echoed\": 398, \"unstamped\": 0}}");
	status_load(&abwd[1], "abwd-responder.json",
		    "{\"role\": \"responder\", \"dev\": \"eth0\", "
		    "\"unix_time_seconds\": 1795740123, \"requests\": 1300, \"responses\": 1299, "
		    "\"rate_limited\": 1, \"dropped\": {\"replayed\": 4}, "
		    "\"meter_refused\": {\"unauthenticated\": 2, \"replayed\": 0}}");
	/* a file that is not one: left out */
	status_load(&abwd[2], "abwd-broken.json", "{\"role\": ");
	m.abwd = abwd;
	m.nabwd = 3;
	m.now_unix_us = 1795740123500000ULL;

	metrics_print(stdout, &m, LAST + 1500 * MS);
	qdisc_free(&qd[0].ctrl);
}

/* one attribute of a request: its name, its width and value, or its bytes */
static void print_attr(const struct nlattr *a, const char *(*name)(unsigned int), int depth);

static void print_nest(const struct nlattr *nest, const char *(*name)(unsigned int),
		       int depth)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest)
		print_attr(a, name, depth);
}

static void print_attr(const struct nlattr *a, const char *(*name)(unsigned int), int depth)
{
	unsigned int type = mnl_attr_get_type(a);
	uint16_t len = mnl_attr_get_payload_len(a);
	const uint8_t *p = mnl_attr_get_payload(a);
	const char *n = name(type);
	uint64_t v;
	uint16_t i;

	printf("%*s%s", depth * 2, "", n ? n : "?");
	if (name == rcvmgr_config_attr_name && type == TCP_RCVMGR_A_CONFIG_LAN_PREFIX) {
		printf("\n");
		print_nest(a, rcvmgr_prefix_attr_name, depth + 1);
		return;
	}
	if (name == rcvmgr_config_attr_name && type == TCP_RCVMGR_A_CONFIG_RULE) {
		printf("\n");
		print_nest(a, rcvmgr_rule_attr_name, depth + 1);
		return;
	}
	if (name == rcvmgr_prefix_attr_name && type == TCP_RCVMGR_A_PREFIX_ADDR) {
		printf(" ");
		for (i = 0; i < len; i++)
			printf("%02x", p[i]);
		printf("\n");
		return;
	}
	if (attr_get_int(a, false, &v))
		printf(" u%u %llu\n", len * 8, (unsigned long long)v);
	else
		printf(" (%u bytes)\n", len);
}

/* rcvmgr set's request for ARGS, or its usage error (exit 2) */
static int rcvmgr_set(int argc, char **argv)
{
	const struct genlmsghdr *genl;
	struct rcvmgr_set s;
	struct nlmsghdr *nlh;
	const struct nlattr *a;
	int ret;

	cmd_name = "rcvmgr set";
	ret = rcvmgr_set_parse(&s, argc, argv);
	if (ret)
		return ret;
	nlh = rmsg(TCP_RCVMGR_CMD_CONFIG_SET);
	rcvmgr_set_put(nlh, &s);
	genl = mnl_nlmsg_get_payload(nlh);
	printf("cmd %u version %u\n", genl->cmd, genl->version);
	mnl_attr_for_each(a, nlh, sizeof(*genl))
		print_attr(a, rcvmgr_config_attr_name, 0);
	return 0;
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

/* what the refusal @nlh says, and how @cmd of @fam prints it */
static void report_as(const char *what, const struct nlmsghdr *nlh, const struct family *fam,
		      const char *cmd)
{
	struct nl_err err;
	int ret = nl_parse_err(nlh, &err);

	printf("%s: ret %d error %d msg \"%s\"", what, ret, err.error, err.msg);
	if (err.has_miss)
		printf(" miss %u", err.miss_type);
	printf("\n");
	if (ret > 0) {
		fflush(stdout);
		kernel_error(fam, &err, -ret, cmd);
		fflush(stderr);
	}
}

static void report(const char *what, const struct nlmsghdr *nlh)
{
	report_as(what, nlh, &fam_er2bc, "abw-set");
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

	/* tcp_rcvmgr's: its attributes' names */
	nlh = error_msg(EINVAL, true, 8);
	nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	mnl_attr_put_u32(nlh, NLMSGERR_ATTR_MISS_TYPE, TCP_RCVMGR_A_CONFIG_BUDGET_MIN);
	report_as("missing-rcvmgr", nlh, &fam_rcvmgr, "rcvmgr set");

	nlh = error_msg(ENODEV, true, 8);
	nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "tcp_rcvmgr: no such WAN device");
	report_as("rcvmgr", nlh, &fam_rcvmgr, "rcvmgr set");

	report_as("rcvmgr-plain", error_msg(EPERM, true, 8), &fam_rcvmgr, "rcvmgr set");

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

/* stdin, read as a status file: its pairs, "KEY TYPE VALUE" a line, or why not */
static int json_read_stdin(void)
{
	static char text[70000];
	struct jr_pair pair[8];
	struct jr_doc d = { .pair = pair, .max = ARRAY_SIZE(pair) };
	const char *why;
	size_t len, i;

	len = fread(text, 1, sizeof(text) - 1, stdin);
	text[len] = '\0';
	if (json_read(text, &d, &why)) {
		printf("error: %s (after %zu pairs)\n", why, d.n);
		return 1;
	}
	for (i = 0; i < d.n; i++) {
		const struct jr_pair *p = &pair[i];

		switch (p->type) {
		case JR_INT:
			printf("%s int %s%llu\n", p->key, p->neg ? "-" : "",
			       (unsigned long long)p->u);
			break;
		case JR_STR:
			printf("%s str \"%s\"\n", p->key, p->str);
			break;
		case JR_BOOL:
			printf("%s bool %s\n", p->key, p->b ? "true" : "false");
			break;
		case JR_NULL:
			printf("%s null\n", p->key);
			break;
		}
	}
	return 0;
}

/*
 * er2bcctl status of FILES at NOW (1795740123 s): a sender's qdisc is
 * show's full one if its dev is lo (the last estimate 400 ms before), or
 * that one gone stale if it is "stale" (4.4 s before), else missing
 */
#define STATUS_NOW	1795740123000000ULL	/* us, CLOCK_REALTIME */

static int status(int argc, char **argv)
{
	static struct status_daemon d[4];
	static char text[70000];
	size_t n = 0, len;
	int i;

	for (i = 0; i < argc && n < ARRAY_SIZE(d); i++, n++) {
		FILE *f = fopen(argv[i], "r");
		const char *role, *dev;

		if (!f) {
			perror(argv[i]);
			return 2;
		}
		len = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
		text[len] = '\0';
		status_load(&d[n], argv[i], text);
		role = jr_str(&d[n].doc, "role");
		dev = jr_str(&d[n].doc, "dev");
		if (!role || strcmp(role, "sender"))
			continue;
		if (dev && (!strcmp(dev, "lo") || !strcmp(dev, "stale"))) {
			build_full(&d[n].q);
			d[n].have_q = true;
			/* "stale": the same qdisc, its last estimate 4 s before */
			if (!strcmp(dev, "stale")) {
				d[n].q.v[ER2BC_A_QDISC_STALE] = 1;
				d[n].q.v[ER2BC_A_QDISC_LAST_UPDATE] = LAST - 4000 * MS;
			}
		} else {
			snprintf(d[n].q_error, sizeof(d[n].q_error), "no er2bc qdisc %s on %s",
				 jr_str(&d[n].doc, "handle"), dev);
		}
	}
	for (i = 0; i < (int)n; i++)
		status_judge(&d[i], STATUS_NOW, LAST + 400 * MS);
	/* the module's version as the environment says (none: not loaded) */
	status_versions(d, n, "sch_er2bc", getenv("TEST_MODULE_VERSION"));
	i = status_print(stdout, d, n, NULL, STATUS_NOW, LAST + 400 * MS);
	for (len = 0; len < n; len++)
		qdisc_free(&d[len].q);
	return i;
}

int main(int argc, char **argv)
{
	const char *how = argc > 2 ? argv[2] : "text";

	out.json = strcmp(how, "text") != 0;
	out.pretty = !strcmp(how, "pretty");
	if (argc < 2)
		goto usage;
	if (!strcmp(argv[1], "json-read"))
		return json_read_stdin();
	if (!strcmp(argv[1], "status"))
		return status(argc - 3, argv + 3);
	if (!strcmp(argv[1], "show"))
		show_full();
	else if (!strcmp(argv[1], "show-sparse"))
		show_sparse();
	else if (!strcmp(argv[1], "monitor"))
		monitor();
	else if (!strcmp(argv[1], "extack"))
		extack();
	else if (!strcmp(argv[1], "rcvmgr-config"))
		rcvmgr_config();
	else if (!strcmp(argv[1], "rcvmgr-config-sparse"))
		rcvmgr_config_sparse();
	else if (!strcmp(argv[1], "rcvmgr-conns"))
		rcvmgr_conns();
	else if (!strcmp(argv[1], "rcvmgr-conns-none"))
		rcvmgr_conns_none();
	else if (!strcmp(argv[1], "rcvmgr-stats"))
		rcvmgr_stats();
	else if (!strcmp(argv[1], "metrics"))
		metrics();
	else if (strcmp(argv[1], "rcvmgr-set"))
		goto usage;
	else
		return rcvmgr_set(argc - 2, argv + 2);
	return 0;
usage:
	fprintf(stderr, "usage: test-render show|show-sparse|monitor [text|json|pretty]\n"
		"       test-render rcvmgr-config|rcvmgr-config-sparse [text|json|pretty]\n"
		"       test-render rcvmgr-conns|rcvmgr-conns-none|rcvmgr-stats [text|json|pretty]\n"
		"       test-render rcvmgr-set [ARGS...]\n"
		"       test-render extack\n"
		"       test-render metrics\n"
		"       test-render json-read <FILE\n"
		"       test-render status text|json|pretty FILE...\n");
	return 2;
}
