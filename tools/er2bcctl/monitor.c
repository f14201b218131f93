// SPDX-License-Identifier: GPL-2.0
/*
 * er2bcctl monitor: the multicast group "monitor", one line (or JSON
 * object) per ER2BC_CMD_ABW_NTF, until SIGINT or SIGTERM, count events, or
 * the timeout.
 */
#define _GNU_SOURCE	/* ppoll */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <linux/er2bc_genl.h>
#include <linux/genetlink.h>

#include "decode.h"
#include "er2bcctl.h"
#include "nl.h"
#include "output.h"
#include "parse.h"

struct monitor {
	struct target t;	/* 0s: any */
	uint64_t count;		/* 0: no end */
	uint64_t timeout_us;	/* 0: none */
	bool has_count, has_timeout;
	uint16_t family;
	uint64_t seen;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int parse_args(struct monitor *m, int argc, char **argv)
{
	const char *key, *val, *why;
	int ret;

	for (; argc > 0; argc -= 2, argv += 2) {
		key = argv[0];
		val = argv[1];
		if (strcmp(key, "dev") && strcmp(key, "ifindex") && strcmp(key, "handle") &&
		    strcmp(key, "count") && strcmp(key, "timeout"))
			return usage_err("unknown argument \"%s\" (try " PROG " -h)", key);
		if (argc < 2)
			return usage_err("\"%s\" needs a value", key);

		ret = target_arg(&m->t, key, val);
		if (ret != 1) {
			if (ret)
				return ret;
			continue;
		}
		if (!strcmp(key, "count")) {
			if (once(&m->has_count, key))
				return EXIT_USAGE;
			if (parse_u64(val, &m->count, &why))
				return usage_bad(key, val, why);
			if (!m->count)
				return usage_bad(key, val, "must be more than 0");
		} else {
			if (once(&m->has_timeout, key))
				return EXIT_USAGE;
			/* a bare number in us, as tc reads times */
			if (parse_time(val, 1, &m->timeout_us, &why))
				return usage_bad(key, val, why);
			if (!m->timeout_us)
				return usage_bad(key, val, "must be more than 0s");
		}
	}
	return 0;
}

static int event(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	struct monitor *m = data;
	struct qdisc_info q = { 0 };
	int ret;

	if (nlh->nlmsg_type != m->family ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*genl) ||
	    genl->cmd != ER2BC_CMD_ABW_NTF)
		return MNL_CB_OK;
	ret = qdisc_merge(&q, nlh, m->t.ifindex, m->t.handle);
	if (ret < 0)
		return MNL_CB_ERROR;
	if (ret) {
		struct timespec ts;

		/* when the notification was read: close enough, the kernel sends at once */
		clock_gettime(CLOCK_REALTIME, &ts);
		monitor_print(stdout, &q,
			      (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000);
		fflush(stdout);
		m->seen++;
	}
	qdisc_free(&q);
	return m->count && m->seen >= m->count ? MNL_CB_STOP : MNL_CB_OK;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* SIGINT and SIGTERM set stop; blocked but while waiting, so none is missed */
static void catch_signals(sigset_t *waitmask)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, waitmask);
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGTERM);
}

/* 0 at the end (count, signal, timeout without count), or an exit code */
static int listen_loop(struct nl *nl, struct monitor *m)
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(nl->sock), .events = POLLIN };
	uint64_t deadline = m->timeout_us ? now_us() + m->timeout_us : 0;
	struct timespec ts, *tsp;
	sigset_t waitmask;
	uint64_t left, t;
	ssize_t n;
	int ret;

	catch_signals(&waitmask);
	while (!stop) {
		tsp = NULL;
		if (deadline) {
			t = now_us();
			left = deadline > t ? deadline - t : 0;
			if (!left)
				break;
			ts.tv_sec = (time_t)(left / 1000000);
			ts.tv_nsec = (long)(left % 1000000) * 1000;
			tsp = &ts;
		}
		ret = ppoll(&pfd, 1, tsp, &waitmask);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			err_msg("%s: poll: %s", cmd_name, strerror(errno));
			return EXIT_FAIL;
		}
		if (!ret)
			continue;

		n = mnl_socket_recvfrom(nl->sock, nl->buf, NL_BUF_LEN);
		if (n < 0 && errno == ENOBUFS) {
			err_msg("%s: events were lost (the socket's buffer overran)", cmd_name);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err_msg("%s: %s", cmd_name, strerror(errno));
			return EXIT_FAIL;
		}
		ret = mnl_cb_run(nl->buf, (size_t)n, 0, 0, event, m);
		if (ret == MNL_CB_STOP)
			return 0;
		if (ret == MNL_CB_ERROR) {
			err_msg("%s: %s", cmd_name, strerror(errno));
			return EXIT_FAIL;
		}
	}
	if (!stop && m->count && m->seen < m->count) {
		err_msg("%s: timed out after %llu of %llu events", cmd_name,
			(unsigned long long)m->seen, (unsigned long long)m->count);
		return EXIT_FAIL;
	}
	return 0;
}

int do_monitor(int argc, char **argv)
{
	struct monitor m = { 0 };
	struct nl nl;
	int ret;

	ret = parse_args(&m, argc, argv);
	if (ret)
		return ret;
	ret = family_connect(&nl, &fam_er2bc, ER2BC_MCGRP_MONITOR);
	if (ret)
		return ret;
	m.family = nl.family;
	ret = nl_join(&nl, nl.group);
	if (ret) {
		err_msg("%s: joining group %s: %s", cmd_name, ER2BC_MCGRP_MONITOR, strerror(-ret));
		nl_close(&nl);
		return EXIT_FAIL;
	}
	ret = listen_loop(&nl, &m);
	nl_close(&nl);
	return ret;
}
