// SPDX-License-Identifier: GPL-2.0
/*
 * er2bcctl: the operator's tool for er2bc qdiscs' eR2BC controllers, over
 * the generic netlink family er2bc: hand them ABW estimates, show their
 * state, follow their updates; and for tcp_rcvmgr, over the family
 * tcp_rcvmgr (the rcvmgr commands): its configuration, connections, counters.
 */
#define _GNU_SOURCE	/* setns */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "er2bcctl.h"
#include "parse.h"

#ifndef ER2BCCTL_VERSION
#define ER2BCCTL_VERSION "unknown"
#endif

/* debug switches for the host tests: no netlink, the parsers only */
enum {
	OPT_PARSE_RATE = 256,
	OPT_PARSE_TIME,
	OPT_PARSE_HANDLE,
	OPT_FORMAT_RATE,
	OPT_FORMAT_TIME,
	OPT_FORMAT_RATIO,
	OPT_FORMAT_NS,
	OPT_PARSE_SIZE,
	OPT_FORMAT_SIZE,
	OPT_FORMAT_SIZE_EXACT,
	/* and the batch's, which take one dash too (tc's -batch, -force) */
	OPT_BATCH,
	OPT_FORCE,
	OPT_STATS,
	OPT_NETNS,
	OPT_UNKNOWN,
};

/* where ip netns keeps its named network namespaces */
#define NETNS_RUN_DIR "/run/netns"

static int debug_switch(int opt, const char *arg)
{
	char buf[FMT_LEN];
	const char *why;
	uint32_t handle;
	uint64_t v;
	int64_t sv;

	cmd_name = "debug";
	switch (opt) {
	case OPT_PARSE_RATE:
		if (parse_rate(arg, &v, &why))
			return usage_bad("rate", arg, why);
		printf("%" PRIu64 "\n", v);
		return 0;
	case OPT_PARSE_TIME:
		if (parse_time(arg, 1, &v, &why))
			return usage_bad("time", arg, why);
		printf("%" PRIu64 "\n", v);
		return 0;
	case OPT_PARSE_HANDLE:
		if (parse_handle(arg, &handle, &why))
			return usage_bad("handle", arg, why);
		printf("0x%" PRIx32 " %s\n", handle, fmt_handle(buf, handle));
		return 0;
	case OPT_PARSE_SIZE:
		if (parse_size(arg, &v, &why))
			return usage_bad("size", arg, why);
		printf("%" PRIu64 "\n", v);
		return 0;
	}
	/* the formatters, from numbers; a leading '-' is for a signed rate */
	if (parse_u64(arg[0] == '-' && opt == OPT_FORMAT_RATE ? arg + 1 : arg, &v, &why))
		return usage_bad("number", arg, why);
	switch (opt) {
	case OPT_FORMAT_RATE:
		if (arg[0] == '-') {
			if (v > (uint64_t)INT64_MAX + 1)
				return usage_bad("number", arg, "too large");
			sv = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
			puts(fmt_srate(buf, sv));
		} else {
			puts(fmt_rate(buf, v));
		}
		break;
	case OPT_FORMAT_TIME:
		puts(fmt_time(buf, v));
		break;
	case OPT_FORMAT_RATIO:
		puts(fmt_ratio(buf, v));
		break;
	case OPT_FORMAT_NS:
		puts(fmt_ns_us(buf, v));
		break;
	case OPT_FORMAT_SIZE:
		puts(fmt_size(buf, v));
		break;
	case OPT_FORMAT_SIZE_EXACT:
		puts(fmt_size_exact(buf, v));
		break;
	}
	return 0;
}

/* getopt's '?': an unknown option, or one without its value */
static int bad_option(int opt, const char *arg)
{
	if (opt && opt < 256)
		err_msg("unknown option \"-%c\" (try " PROG " -h)", opt);
	else if (opt)
		err_msg("option \"%s\" needs a value", arg);
	else
		err_msg("unknown option \"%s\" (try " PROG " -h)", arg);
	return EXIT_USAGE;
}

/*
 * -n NAME: into the network namespace NAME that ip netns made, before any
 * socket is opened, as ip -n and tc -n go: every command then is about
 * that namespace (its devices, qdiscs, tcp_rcvmgr), as under ip netns exec
 * NAME, without another program started. 0, or the exit status after the
 * message.
 */
static int netns_enter(const char *name)
{
	char path[sizeof(NETNS_RUN_DIR) + 256];
	int fd, err;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
	    strlen(name) > 255) {
		err_msg("-n \"%s\": not a network namespace's name (ip netns list names them)",
			name);
		return EXIT_USAGE;
	}
	snprintf(path, sizeof(path), NETNS_RUN_DIR "/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		err_msg("-n \"%s\": cannot open %s: %s%s", name, path, strerror(err),
			err == ENOENT ? " (ip netns list names them)" : "");
		return EXIT_FAIL;
	}
	err = setns(fd, CLONE_NEWNET) ? errno : 0;
	close(fd);
	if (err) {
		err_msg("-n \"%s\": cannot enter the network namespace: %s", name, strerror(err));
		return EXIT_FAIL;
	}
	return 0;
}

/* -batch, -force, -stats, -netns as words of their own, as tc takes them: OPT_*, or 0 */
static int batch_word(const char *arg)
{
	if (!strcmp(arg, "-netns"))
		return OPT_NETNS;
	/* (-netns=NAME or -netnsNAME: not -n with "etns..." as getopt reads it) */
	if (!strncmp(arg, "-netns", 6))
		return OPT_UNKNOWN;
	if (!strcmp(arg, "-batch"))
		return OPT_BATCH;
	if (!strcmp(arg, "-force"))
		return OPT_FORCE;
	if (!strcmp(arg, "-stats"))
		return OPT_STATS;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json",		no_argument,		NULL, 'j' },
		{ "pretty",		no_argument,		NULL, 'p' },
		{ "version",		no_argument,		NULL, 'V' },
		{ "help",		no_argument,		NULL, 'h' },
		{ "batch",		required_argument,	NULL, OPT_BATCH },
		{ "force",		no_argument,		NULL, OPT_FORCE },
		{ "stats",		no_argument,		NULL, OPT_STATS },
		{ "netns",		required_argument,	NULL, OPT_NETNS },
		{ "parse-rate",		required_argument,	NULL, OPT_PARSE_RATE },
		{ "parse-time",		required_argument,	NULL, OPT_PARSE_TIME },
		{ "parse-handle",	required_argument,	NULL, OPT_PARSE_HANDLE },
		{ "format-rate",	required_argument,	NULL, OPT_FORMAT_RATE },
		{ "format-time",	required_argument,	NULL, OPT_FORMAT_TIME },
		{ "format-ratio",	required_argument,	NULL, OPT_FORMAT_RATIO },
		{ "format-ns",		required_argument,	NULL, OPT_FORMAT_NS },
		{ "parse-size",		required_argument,	NULL, OPT_PARSE_SIZE },
		{ "format-size",	required_argument,	NULL, OPT_FORMAT_SIZE },
		{ "format-size-exact",	required_argument,	NULL, OPT_FORMAT_SIZE_EXACT },
		{ NULL,			0,			NULL, 0 }
	};
	const char *batch = NULL, *netns = NULL;
	bool force = false, stats = false;
	int opt, err;

	opterr = 0;
	for (;;) {
		/*
		 * getopt would read -batch as -b -a -t ...: the single-dash
		 * words are taken here, between the options getopt takes (it
		 * is never in the middle of a word such as -jp then: that
		 * word is argv[optind], and it is none of these).
		 */
		opt = optind < argc ? batch_word(argv[optind]) : 0;
		if (opt == OPT_UNKNOWN)
			return bad_option(0, argv[optind]);
		if (opt) {
			optind++;
			if (opt == OPT_BATCH || opt == OPT_NETNS) {
				if (optind >= argc)
					return bad_option(opt, argv[optind - 1]);
				optarg = argv[optind++];
			}
		} else {
			opt = getopt_long(argc, argv, "+:jpVhn:", opts, NULL);
			if (opt == -1)
				break;
		}
		switch (opt) {
		case 'j':
			out.json = true;
			break;
		case 'p':
			out.json = true;
			out.pretty = true;
			break;
		case 'V':
			printf(PROG " %s\n", ER2BCCTL_VERSION);
			return 0;
		case 'h':
			print_usage(stdout);
			return 0;
		case OPT_BATCH:
			batch = optarg;
			break;
		case OPT_FORCE:
			force = true;
			break;
		case OPT_STATS:
			stats = true;
			break;
		case 'n':
		case OPT_NETNS:
			netns = optarg;
			break;
		case ':':
			/* (one without its value: its name, not an unknown letter) */
			if (optopt && optopt < 256) {
				err_msg("option \"-%c\" needs a value", optopt);
				return EXIT_USAGE;
			}
			return bad_option(optopt, argv[optind - 1]);
		case '?':
			return bad_option(optopt, argv[optind - 1]);
		default:
			return debug_switch(opt, optarg);
		}
	}
	argc -= optind;
	argv += optind;
	if (batch && argc) {
		err_msg("\"%s\" after -batch FILE: the commands are in FILE "
			"(try " PROG " -h)", argv[0]);
		return EXIT_USAGE;
	}
	if (!batch && (force || stats)) {
		err_msg("%s goes with -batch (try " PROG " -h)", force ? "-force" : "-stats");
		return EXIT_USAGE;
	}
	if (!batch && !argc) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	/* (after the misuse above, which stays exit 2 whatever the name) */
	if (netns) {
		err = netns_enter(netns);
		if (err)
			return err;
	}
	if (batch)
		return run_batch(batch, force, stats);
	return run_command(argc, argv);
}
