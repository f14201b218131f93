/* SPDX-License-Identifier: GPL-2.0 */
/*
 * er2bcctl: ABW estimates in, the eR2BC controller's state out, over the
 * generic netlink family er2bc (Documentation/netlink/specs/er2bc.yaml).
 *
 * What the files share: exit codes, output options, messages, commands.
 */
#ifndef _ER2BCCTL_H
#define _ER2BCCTL_H

#include <stdbool.h>
#include <stdint.h>

#define PROG "er2bcctl"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* exit codes: 1 the command failed, 2 it was misused (and nothing was sent) */
#define EXIT_FAIL	1
#define EXIT_USAGE	2

struct out_opts {
	bool json;
	bool pretty;		/* pretty JSON; implies json */
};

extern struct out_opts out;
/* the command being run, for messages */
extern const char *cmd_name;

/* "er2bcctl: <fmt>" on stderr */
void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "er2bcctl: <command>: <fmt>" on stderr; returns EXIT_USAGE */
int usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* usage_err() about one argument: invalid KEY "ARG": WHY */
int usage_bad(const char *key, const char *arg, const char *why);

/* which qdisc a command is about: dev IFNAME | ifindex N, handle MAJ: */
struct target {
	uint32_t ifindex;	/* 0: not given */
	uint32_t handle;	/* 0: not given */
	const char *how;	/* "dev" or "ifindex", as given */
};

/*
 * Takes KEY VALUE if KEY is dev, ifindex or handle: returns 0 if it did,
 * 1 if KEY is none of them, EXIT_USAGE (after the message) if it is bad.
 */
int target_arg(struct target *t, const char *key, const char *val);
/* EXIT_USAGE (after the message) unless both the device and handle are given */
int target_check(const struct target *t);

/* EXIT_USAGE (after the message) if KEY was seen already; marks it seen */
int once(bool *seen, const char *key);

struct nl;
struct nl_err;

/*
 * A generic netlink socket with the er2bc family resolved, and its
 * multicast group too if @monitor: 0, or EXIT_FAIL after the message
 * (the family is missing: the module is not loaded).
 */
int er2bc_connect(struct nl *nl, bool monitor);

/* "er2bcctl: <the kernel's message>: <strerror>", or what failed */
void kernel_error(const struct nl_err *err, int ret, const char *what);

int do_abw_set(int argc, char **argv);
int do_show(int argc, char **argv);
int do_monitor(int argc, char **argv);

#endif /* _ER2BCCTL_H */
