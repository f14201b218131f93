// SPDX-License-Identifier: GPL-2.0
/*
 * er2bc-abwd: the ABW estimator daemon, in one of two roles. The sender
 * runs on the gateway whose er2bc qdisc shapes the traffic toward the
 * peer; the responder on the peer, where that traffic arrives.
 */
#include <errno.h>
#include <signal.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abwd.h"
#include "daemon.h"
#include "parse.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " sender --peer ADDR --dev IFNAME [ OPTIONS ]\n"
		"       " PROG " responder --dev IFNAME [ OPTIONS ]\n"
		"       " PROG " --config FILE [ OPTIONS ]     (FILE says role = sender | responder)\n"
		"       " PROG " { sender | responder } --help\n"
		"\n"
		"The ABW estimator of seed 000 (Documentation/er2bc-estimator.rst). The\n"
		"sender asks the responder for the packets it received from it every\n"
		"interval, and hands each estimate W to its er2bc qdisc.\n"
		"\n"
		"Options of both roles:\n"
		"  --config FILE     \"key = value\" lines, the keys of the long options;\n"
		"                    the command line wins; SIGHUP reads it again\n"
		"  --check-config    check the configuration, print it, and exit\n"
		"  -v, --verbose     a line per estimate (sender), per request (responder)\n"
		"  --foreground      the default: " PROG " never detaches\n"
		"  --once N          sender: exit after N estimates\n"
		"  -V, --version\n"
		"  -h, --help\n"
		"\n"
		"Exit status: 0 stopped by SIGTERM or SIGINT (or --once), 1 failed,\n"
		"2 invalid configuration or command line.\n");
}

static void role_usage(FILE *f, enum role role)
{
	fprintf(f, "Usage: " PROG " %s [ OPTIONS ]\n\n",
		role == ROLE_SENDER ? "sender" : "responder");
	conf_help(f, role);
	fprintf(f, "\nRATE: bit, kbit, mbit, gbit (tc's units); TIME: s, ms, us (a bare\n"
		"number is us, as in tc). (" PROG " -h: the other options)\n");
}

static int bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (try " PROG " -h)\n");
	return EXIT_USAGE;
}

/* the value of --config FILE or --config=FILE among @argv, or NULL */
static const char *config_arg(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "--config=", 9))
			return argv[i] + 9;
		if (!strcmp(argv[i], "--config") && i + 1 < argc)
			return argv[i + 1];
	}
	return NULL;
}

/* the role's arguments into @d: 0, -1 (help shown: exit 0), or the exit code */
static int parse_args(struct daemon *d, int argc, char **argv, bool *check)
{
	const char *arg, *val, *eq, *why;
	char key[64];
	size_t len;
	int i;

	for (i = 0; i < argc; i++) {
		arg = argv[i];
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			role_usage(stdout, d->role);
			return -1;
		}
		if (!strcmp(arg, "-v") || !strcmp(arg, "--verbose")) {
			verbose = true;
			continue;
		}
		if (!strcmp(arg, "--foreground"))
			continue;
		if (!strcmp(arg, "--check-config")) {
			*check = true;
			continue;
		}
		if (strncmp(arg, "--", 2) || !arg[2])
			return bad_usage("unexpected argument \"%s\"", arg);
		/* --key value, or --key=value */
		eq = strchr(arg, '=');
		len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
		if (len >= sizeof(key))
			return bad_usage("unknown option \"%s\"", arg);
		memcpy(key, arg + 2, len);
		key[len] = '\0';
		if (strcmp(key, "config") && strcmp(key, "once") && !conf_is_key(key))
			return bad_usage("unknown option \"%s\"", arg);
		if (eq)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			return bad_usage("option \"%s\" needs a value", arg);

		if (!strcmp(key, "config")) {
			if (d->config_path)
				return bad_usage("%s given twice", "--config");
			d->config_path = val;
		} else if (!strcmp(key, "once")) {
			if (d->role != ROLE_SENDER)
				return bad_usage("%s is for the sender", "--once");
			if (parse_u64(val, &d->once, &why)) {
				log_err("--once: invalid \"%s\": %s", val, why);
				return EXIT_USAGE;
			}
			if (!d->once) {
				log_err("--once: invalid \"%s\": must be more than 0", val);
				return EXIT_USAGE;
			}
		} else if (cli_add(&d->cli, key, val)) {
			log_err("out of memory");
			return EXIT_FAIL;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct daemon d = { 0 };
	bool check = false;
	struct config c;
	int ret, skip = 2;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf(PROG " %s\n", abwd_release());
		return 0;
	}
	if (!strcmp(argv[1], "sender")) {
		d.role = ROLE_SENDER;
	} else if (!strcmp(argv[1], "responder")) {
		d.role = ROLE_RESPONDER;
	} else if (argv[1][0] == '-') {
		/* no role first: the configuration file's (an instance per uplink) */
		const char *path = config_arg(argc - 1, argv + 1);

		if (!path)
			return bad_usage("no role: begin with sender or responder, or give "
					 "--config FILE with \"role = ...\" in it%s", "");
		if (conf_file_role(path, &d.role)) {
			if (access(path, R_OK))
				log_err("%s: cannot read the configuration: %s", path,
					strerror(errno));
			else
				log_err("%s: no \"role = sender\" or \"role = responder\", and "
					"the command line does not begin with a role", path);
			return EXIT_USAGE;
		}
		skip = 1;	/* the options begin at once */
	} else {
		return bad_usage("unknown role \"%s\": sender or responder", argv[1]);
	}

	ret = parse_args(&d, argc - skip, argv + skip, &check);
	if (!ret)
		ret = conf_load(&c, d.role, d.config_path, &d.cli);
	if (!ret && check) {
		conf_print(stdout, &c);
		/* no error (a tunnel may come later), but a typo shows here */
		if (!if_nametoindex(c.dev))
			log_msg("dev %s: not there now; the daemon would wait for it", c.dev);
	} else if (!ret) {
		signal(SIGPIPE, SIG_IGN);
		setvbuf(stderr, NULL, _IOLBF, 0);
		ret = d.role == ROLE_SENDER ? run_sender(&d, &c) : run_responder(&d, &c);
	}
	explicit_bzero(&c.key, sizeof(c.key));
	cli_free(&d.cli);
	return ret < 0 ? 0 : ret;
}
