// SPDX-License-Identifier: GPL-2.0
/*
 * ctrl_bench: the client of make bench-ctrl (tools/bench/ctrl-bench.sh).
 * Runs in the VM; not part of er2bc.
 *
 *   ctrl_bench abw -i IFINDEX [-H HANDLE] -n COUNT -w W1,W2 [-W WARMUP]
 *	COUNT abw-set estimates to the er2bc qdisc HANDLE (default 0x10000,
 *	1:) of IFINDEX, one at a time, W alternating between W1 and W2 bit/s
 *	(R, the receive rate, 9/10 of the previous W: s = 0.9), twice over:
 *	 1. no listener on the monitor group: the time from sendto() of each
 *	    request to recv() of its ACK (CLOCK_MONOTONIC). The kernel ACKs
 *	    only once the new cap and all guarantees are in force.
 *	 2. with a second socket in the monitor group: the same time, and the
 *	    kernel's own cost of the recomputation (ER2BC_A_QDISC_COST, ns)
 *	    from the notification that precedes the ACK.
 *	WARMUP estimates (default 10) first, not recorded.
 *
 *   ctrl_bench htb -i IFINDEX [-p PARENT] -N CLASSES -n RUNS -t TA,TB -c CEIL [-W WARMUP]
 *	RUNS times, CLASSES new rates in force on htb classes 1:1..1:CLASSES
 *	under PARENT (default 1:ffff): RTM_NEWTCLASS messages as tc builds
 *	them, one at a time as tc -batch sends them, from one open socket;
 *	each run timed from the first sendto() to the last ACK. Rates TA and
 *	TB bit/s divided among the classes, by turns; ceil CEIL bit/s.
 *	WARMUP runs first (default 2), not recorded.
 *
 *   ctrl_bench exec -n COUNT [-A ARG_A -B ARG_B] -- COMMAND ARGS...
 *	COUNT runs of COMMAND, one after the other, each timed from fork()
 *	to waitpid() (CLOCK_MONOTONIC); an argument "@" is ARG_A on even
 *	runs and ARG_B on odd ones. Every run must exit 0. COMMAND's stdout
 *	goes to stderr.
 *
 * Each prints one JSON object, the raw samples in ns, on stdout.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/er2bc_genl.h>

#include "nl.h"

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "ctrl_bench: ");
	fprintf(stderr, fmt, arg);
	if (errno)
		fprintf(stderr, ": %s", strerror(errno));
	fputc('\n', stderr);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void print_samples(const char *key, const uint64_t *v, unsigned int n)
{
	unsigned int i;

	printf("\"%s\": [", key);
	for (i = 0; i < n; i++)
		printf("%s%llu", i ? ", " : "", (unsigned long long)v[i]);
	printf("]");
}

/* ---- generic netlink ---- */

/* larger than any message the kernel sends here (NLMSG_GOODSIZE) */
static char buf[65536];

struct family {
	uint16_t id;
	uint32_t monitor;	/* the monitor group's id */
};

/* the timed requests' socket */
static struct mnl_socket *bench_socket(int bus)
{
	struct mnl_socket *nl = mnl_socket_open(bus);

	errno = 0;
	if (!nl)
		die("%s", "cannot open a netlink socket");
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		die("%s", "cannot bind the netlink socket");
	return nl;
}

/* the family and its monitor group, resolved once by the project's library */
static struct family resolve(void)
{
	struct family f = { 0 };
	struct nl_err e;
	struct nl lib;
	int err;

	err = nl_open(&lib);
	if (err) {
		errno = -err;
		die("%s", "cannot open a generic netlink socket");
	}
	err = nl_resolve(&lib, ER2BC_FAMILY_NAME, ER2BC_MCGRP_MONITOR, &e);
	f.id = lib.family;
	f.monitor = lib.group;
	nl_close(&lib);
	errno = err < 0 ? -err : 0;
	if (err)
		die("no generic netlink family %s (is sch_er2bc loaded?)", ER2BC_FAMILY_NAME);
	if (!f.monitor)
		die("family %s has no monitor group", ER2BC_FAMILY_NAME);
	return f;
}

static struct nlmsghdr *genl_header(uint16_t type, uint8_t cmd, uint8_t version,
				    uint16_t flags, uint32_t seq)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

/*
 * send @nlh and read replies until its ACK; 0 or -errno from the kernel.
 * The instrument both sides are timed with (abw-set on generic netlink,
 * htb's class changes on route netlink), so it stays here, the same for
 * both, rather than the library's nl_talk(), which only generic netlink
 * opens and which reads extended ACKs.
 */
static int talk(struct mnl_socket *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	uint32_t seq = nlh->nlmsg_seq, portid = mnl_socket_get_portid(nl);
	ssize_t len;
	int ret;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		die("%s", "sendto");
	do {
		len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (len < 0)
			die("%s", "recvfrom");
		ret = mnl_cb_run(buf, len, seq, portid, cb, data);
	} while (ret > 0);
	return ret < 0 ? -errno : 0;
}

/* ---- abw ---- */

struct ntf {
	uint32_t ifindex, seq, classes;
	uint64_t cost, guaranteed;
	bool have_cost;
};

static int ntf_attr_cb(const struct nlattr *a, void *data)
{
	struct ntf *n = data;

	switch (mnl_attr_get_type(a)) {
	case ER2BC_A_QDISC_IFINDEX:
		if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			n->ifindex = mnl_attr_get_u32(a);
		break;
	case ER2BC_A_QDISC_SEQ:
		if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			n->seq = mnl_attr_get_u32(a);
		break;
	case ER2BC_A_QDISC_CLASSES:
		if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			n->classes = mnl_attr_get_u32(a);
		break;
	case ER2BC_A_QDISC_COST:
		if (mnl_attr_validate(a, MNL_TYPE_U64) == 0) {
			n->cost = mnl_attr_get_u64(a);
			n->have_cost = true;
		}
		break;
	case ER2BC_A_QDISC_GUARANTEED:
		if (mnl_attr_validate(a, MNL_TYPE_U64) == 0)
			n->guaranteed = mnl_attr_get_u64(a);
		break;
	}
	return MNL_CB_OK;
}

static int ntf_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);

	if (g->cmd != ER2BC_CMD_ABW_NTF)
		return MNL_CB_OK;
	return mnl_attr_parse(nlh, sizeof(*g), ntf_attr_cb, data);
}

/*
 * The notification of estimate @seq on @ifindex. The kernel multicasts it
 * before it ACKs, so it is already queued; wait a little all the same.
 */
static struct ntf read_ntf(struct mnl_socket *mon, uint32_t ifindex, uint32_t seq)
{
	struct pollfd p = { .fd = mnl_socket_get_fd(mon), .events = POLLIN };
	struct ntf n;
	ssize_t len;

	for (;;) {
		errno = 0;
		if (poll(&p, 1, 5000) != 1)
			die("%s", "no notification within 5 s");
		len = mnl_socket_recvfrom(mon, buf, sizeof(buf));
		if (len < 0)
			die("%s", "recvfrom (monitor)");
		memset(&n, 0, sizeof(n));
		if (mnl_cb_run(buf, len, 0, 0, ntf_cb, &n) < 0)
			die("%s", "bad notification");
		if (n.ifindex == ifindex && n.seq == seq && n.have_cost)
			return n;
	}
}

static unsigned long long num(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end) {
		errno = 0;
		die("bad number '%s'", s);
	}
	return v;
}

static int cmd_abw(int argc, char **argv)
{
	unsigned long long w[2] = { 0, 0 };
	uint32_t ifindex = 0, handle = 0x10000, seq = 0, nseq = 100;
	unsigned int count = 0, warmup = 10, i, phase, changes = 0, classes = 0;
	uint64_t *apply[2], *cost, prev_g = 0, g[2] = { 0, 0 };
	struct mnl_socket *nl, *mon;
	struct family f;
	char *comma;
	int o;

	while ((o = getopt(argc, argv, "i:H:n:w:W:")) != -1) {
		switch (o) {
		case 'i':
			ifindex = num(optarg);
			break;
		case 'H':
			handle = num(optarg);
			break;
		case 'n':
			count = num(optarg);
			break;
		case 'W':
			warmup = num(optarg);
			break;
		case 'w':
			comma = strchr(optarg, ',');
			if (!comma) {
				errno = 0;
				die("-w takes W1,W2, not '%s'", optarg);
			}
			*comma = '\0';
			w[0] = num(optarg);
			w[1] = num(comma + 1);
			break;
		default: return 2;
		}
	}
	if (!ifindex || !count || !w[0] || !w[1]) {
		errno = 0;
		die("%s", "abw needs -i IFINDEX -n COUNT -w W1,W2");
	}

	f = resolve();
	nl = bench_socket(NETLINK_GENERIC);
	apply[0] = calloc(count, sizeof(uint64_t));
	apply[1] = calloc(count, sizeof(uint64_t));
	cost = calloc(count, sizeof(uint64_t));
	if (!apply[0] || !apply[1] || !cost)
		die("%s", "out of memory");
	mon = bench_socket(NETLINK_GENERIC);

	/* phase 0: warm-up; 1: no listener; 2: with the monitor group */
	for (phase = 0; phase < 3; phase++) {
		unsigned int n = phase ? count : warmup;

		if (phase == 2 &&
		    mnl_socket_setsockopt(mon, NETLINK_ADD_MEMBERSHIP, &f.monitor,
					  sizeof(f.monitor)) < 0)
			die("%s", "cannot join the monitor group");
		for (i = 0; i < n; i++) {
			unsigned long long cur = w[seq & 1], prev = w[(seq + 1) & 1];
			struct nlmsghdr *nlh;
			uint64_t t0, t1;
			int err;

			seq++;
			nlh = genl_header(f.id, ER2BC_CMD_ABW_SET, ER2BC_FAMILY_VERSION,
					  NLM_F_ACK, nseq++);
			mnl_attr_put_u32(nlh, ER2BC_A_QDISC_IFINDEX, ifindex);
			mnl_attr_put_u32(nlh, ER2BC_A_QDISC_HANDLE, handle);
			mnl_attr_put_u64(nlh, ER2BC_A_QDISC_ABW, cur);
			mnl_attr_put_u64(nlh, ER2BC_A_QDISC_RECV_RATE, prev / 10 * 9);
			mnl_attr_put_u32(nlh, ER2BC_A_QDISC_SEQ, seq);
			t0 = now_ns();
			err = talk(nl, nlh, NULL, NULL);
			t1 = now_ns();
			if (err) {
				errno = -err;
				die("%s", "abw-set refused");
			}
			if (phase)
				apply[phase - 1][i] = t1 - t0;
			if (phase == 2) {
				struct ntf ntf = read_ntf(mon, ifindex, seq);

				cost[i] = ntf.cost;
				classes = ntf.classes;
				if (i && ntf.guaranteed != prev_g)
					changes++;
				if (i < 2)
					g[i] = ntf.guaranteed;
				prev_g = ntf.guaranteed;
			}
		}
	}

	printf("{\"ifindex\": %u, \"classes\": %u, \"estimates\": %u, ",
	       ifindex, classes, count);
	printf("\"warmup\": %u, \"w\": [%llu, %llu], ", warmup, w[0], w[1]);
	printf("\"guaranteed\": [%llu, %llu], \"guaranteed_changes\": %u, ",
	       (unsigned long long)g[0], (unsigned long long)g[1], changes);
	print_samples("apply_ns", apply[0], count);
	printf(", ");
	print_samples("apply_monitor_ns", apply[1], count);
	printf(", ");
	print_samples("cost_ns", cost, count);
	printf("}\n");
	mnl_socket_close(mon);
	mnl_socket_close(nl);
	free(apply[0]);
	free(apply[1]);
	free(cost);
	return 0;
}

/* ---- htb ---- */

/*
 * What tc sends for "class change dev D parent P classid C htb rate R ceil
 * CEIL quantum Q": RTM_NEWTCLASS with the kind, the parameters, and the
 * rate tables (unused by the kernel once the link layer is set, but sent by
 * tc and so copied here too). The bursts, in psched ticks (64 ns), are a
 * millisecond at the rate plus a frame: their values change nothing htb
 * does on a change, only what it stores.
 */
static struct nlmsghdr *htb_change(uint32_t ifindex, uint32_t parent, uint32_t classid,
				   uint32_t rate_Bps, uint32_t ceil_Bps, uint32_t seq)
{
	static const uint32_t table[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tc_htb_opt opt = { 0 };
	struct nlattr *nest;
	struct tcmsg *t;

	nlh->nlmsg_type = RTM_NEWTCLASS;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));
	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = ifindex;
	t->tcm_handle = classid;
	t->tcm_parent = parent;
	opt.rate.rate = rate_Bps;
	opt.rate.linklayer = TC_LINKLAYER_ETHERNET;
	opt.ceil.rate = ceil_Bps;
	opt.ceil.linklayer = TC_LINKLAYER_ETHERNET;
	opt.buffer = (uint32_t)((rate_Bps / 1000 + 1514) * 1000000000ull / rate_Bps / 64);
	opt.cbuffer = (uint32_t)((ceil_Bps / 1000 + 1514) * 1000000000ull / ceil_Bps / 64);
	opt.quantum = 1514;
	mnl_attr_put_strz(nlh, TCA_KIND, "htb");
	nest = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put(nlh, TCA_HTB_PARMS, sizeof(opt), &opt);
	mnl_attr_put(nlh, TCA_HTB_RTAB, sizeof(table), table);
	mnl_attr_put(nlh, TCA_HTB_CTAB, sizeof(table), table);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

/*
 * RUNS times, N new rates in force on htb classes 1:1..1:N under PARENT:
 * one RTM_NEWTCLASS a class, each sent once the last is ACKed (as tc
 * -batch does), from one socket that stays open (no process start-up).
 * Each run timed from the first sendto() to the last ACK. Rates TOTAL_A /
 * N and TOTAL_B / N bit/s by turns.
 */
static int cmd_htb(int argc, char **argv)
{
	unsigned long long total[2] = { 0, 0 }, ceil = 0;
	uint32_t ifindex = 0, parent = 0x1ffff, seq = 1;
	unsigned int n = 0, runs = 0, warmup = 2, i, r;
	struct mnl_socket *nl;
	uint64_t *t;
	char *comma;
	int o;

	while ((o = getopt(argc, argv, "i:p:N:n:t:c:W:")) != -1) {
		switch (o) {
		case 'i':
			ifindex = num(optarg);
			break;
		case 'p':
			parent = num(optarg);
			break;
		case 'N':
			n = num(optarg);
			break;
		case 'n':
			runs = num(optarg);
			break;
		case 'c':
			ceil = num(optarg);
			break;
		case 'W':
			warmup = num(optarg);
			break;
		case 't':
			comma = strchr(optarg, ',');
			if (!comma) {
				errno = 0;
				die("-t takes TOTAL_A,TOTAL_B, not '%s'", optarg);
			}
			*comma = '\0';
			total[0] = num(optarg);
			total[1] = num(comma + 1);
			break;
		default: return 2;
		}
	}
	errno = 0;
	if (!ifindex || !n || !runs || !total[0] || !total[1] || !ceil)
		die("%s", "htb needs -i IFINDEX -N CLASSES -n RUNS -t TOTAL_A,TOTAL_B -c CEIL");
	if (ceil / 8 > UINT32_MAX || total[0] / n / 8 > UINT32_MAX || total[1] / n / 8 > UINT32_MAX)
		die("%s", "rates above 32 bits of bytes/s are not sent (no TCA_HTB_RATE64)");
	if (!(ceil / 8) || !(total[0] / n / 8) || !(total[1] / n / 8))
		die("%s", "a rate below 8 bit/s a class is 0 bytes/s, which htb refuses");
	t = calloc(runs, sizeof(*t));
	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!t || !nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		die("%s", "cannot open a route netlink socket");

	for (r = 0; r < warmup + runs; r++) {
		uint32_t rate = (uint32_t)(total[r & 1] / n / 8);
		uint64_t t0 = now_ns();
		int err;

		for (i = 1; i <= n; i++) {
			err = talk(nl, htb_change(ifindex, parent, (parent & 0xffff0000) | i, rate,
						  (uint32_t)(ceil / 8), seq++), NULL, NULL);
			if (err) {
				errno = -err;
				die("%s", "htb class change refused");
			}
		}
		if (r >= warmup)
			t[r - warmup] = now_ns() - t0;
	}
	printf("{\"classes\": %u, \"runs\": %u, \"warmup\": %u, ", n, runs, warmup);
	print_samples("netlink_ns", t, runs);
	printf("}\n");
	mnl_socket_close(nl);
	free(t);
	return 0;
}

/* ---- exec ---- */

static int cmd_exec(int argc, char **argv)
{
	const char *alt[2] = { NULL, NULL };
	unsigned int count = 0, i;
	uint64_t *t;
	int o, a;

	while ((o = getopt(argc, argv, "+n:A:B:")) != -1) {
		switch (o) {
		case 'n':
			count = num(optarg);
			break;
		case 'A':
			alt[0] = optarg;
			break;
		case 'B':
			alt[1] = optarg;
			break;
		default: return 2;
		}
	}
	argv += optind;
	argc -= optind;
	errno = 0;
	if (!count || argc < 1)
		die("%s", "exec needs -n COUNT -- COMMAND ...");
	if (!alt[0] != !alt[1])
		die("%s", "exec takes -A and -B together");
	t = calloc(count, sizeof(*t));
	if (!t)
		die("%s", "out of memory");

	for (i = 0; i < count; i++) {
		char **args = calloc(argc + 1, sizeof(*args));
		uint64_t t0, t1;
		int status;
		pid_t pid;

		if (!args)
			die("%s", "out of memory");
		for (a = 0; a < argc; a++)
			args[a] = alt[0] && strcmp(argv[a], "@") == 0 ?
				  (char *)alt[i & 1] : argv[a];
		fflush(stdout);
		t0 = now_ns();
		pid = fork();
		if (pid < 0)
			die("%s", "fork");
		if (pid == 0) {
			dup2(2, 1);
			execvp(args[0], args);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid)
			die("%s", "waitpid");
		t1 = now_ns();
		free(args);
		errno = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			die("%s failed", argv[0]);
		t[i] = t1 - t0;
	}
	printf("{\"runs\": %u, ", count);
	print_samples("exec_ns", t, count);
	printf("}\n");
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "abw") == 0)
		return cmd_abw(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "htb") == 0)
		return cmd_htb(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "exec") == 0)
		return cmd_exec(argc - 1, argv + 1);
	fputs("usage: ctrl_bench abw -i IFINDEX [-H HANDLE] -n COUNT -w W1,W2 [-W WARMUP]\n",
	      stderr);
	fputs("       ctrl_bench htb -i IFINDEX [-p PARENT] -N CLASSES -n RUNS -t TOTAL_A,TOTAL_B -c CEIL [-W WARMUP]\n",
	      stderr);
	fputs("       ctrl_bench exec -n COUNT [-A ARG_A -B ARG_B] -- COMMAND ARGS...\n",
	      stderr);
	return 2;
}
