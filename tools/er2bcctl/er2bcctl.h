/* SPDX-License-Identifier: GPL-2.0 */
/*
 * er2bcctl: ABW estimates in, the eR2BC controller's state out, over the
 * generic netlink family er2bc (Documentation/netlink/specs/er2bc.yaml);
 * tcp_rcvmgr's configuration in, its connections and counters out, over
 * the family tcp_rcvmgr (Documentation/netlink/specs/tcp_rcvmgr.yaml).
 *
 * What the files share: exit codes, output options, messages, commands.
 */
#ifndef _ER2BCCTL_H
#define _ER2BCCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

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
/* in a batch, the line being run (messages start "line N: "); 0: none */
extern unsigned long batch_line;

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
 * A generic netlink family the commands talk to: its name, what to say
 * when the kernel has no such family, the names of the attributes of its
 * requests (for a refusal that names one missing). The batch's socket
 * keeps its id once resolved.
 */
struct family {
	const char *name;
	const char *missing;
	const char *(*attr_name)(unsigned int type);
	/* resolved over the batch's socket */
	bool resolved;
	uint16_t id;
	uint32_t version;
};

/* sch_er2bc's family er2bc, tcp_rcvmgr's family tcp_rcvmgr */
extern struct family fam_er2bc, fam_rcvmgr;

/*
 * A generic netlink socket with family @fam resolved, and its multicast
 * group @group too if not NULL: 0, or EXIT_FAIL after the message (the
 * family is missing: its module is not loaded).
 */
int family_connect(struct nl *nl, const struct family *fam, const char *group);

/*
 * The socket a command talks to @fam over: outside a batch, @own,
 * connected as family_connect(@own, @fam, NULL) does; in a batch, the
 * batch's one socket, opened for the first command that needs it, each
 * family resolved for the first command that needs it. 0 with *@nl set
 * (its family and version @fam's), or EXIT_FAIL after the message.
 * family_put() is for when the command is done: it closes @own, not the
 * batch's socket.
 */
int family_get(struct family *fam, struct nl *own, struct nl **nl);
void family_put(struct nl *nl);

/*
 * A batch (batch.c): family_get() hands out one socket until batch_end()
 * closes it. If opening it or resolving a family failed, it is broken
 * (batch_broken()): commands that need the socket fail at once.
 */
void batch_begin(void);
void batch_end(void);
bool batch_broken(void);

/*
 * Runs the commands of FILE ("-": stdin), one a line; see batch.c. Returns
 * the exit code.
 */
int run_batch(const char *file, bool force, bool stats);
/* commands.c: runs one command (argv[0] is its name); returns its exit code */
int run_command(int argc, char **argv);
/* commands.c: the help, on @f */
void print_usage(FILE *f);

/*
 * "er2bcctl: <the kernel's message>: <strerror>", or what failed; a
 * missing attribute is named from @fam's (NULL: by number).
 */
void kernel_error(const struct family *fam, const struct nl_err *err, int ret,
		  const char *what);

struct qdisc_info;

/*
 * The controller's state of the er2bc qdisc @handle on @ifindex (ctrl-get,
 * a dump, retried if the kernel marks it inconsistent) into @q, over @nl
 * (family er2bc resolved): 0, or -errno with @err saying what the kernel
 * said (-EINTR with no error: it kept changing).
 */
int ctrl_get(struct nl *nl, uint32_t ifindex, uint32_t handle, struct qdisc_info *q,
	     struct nl_err *err);

int do_abw_set(int argc, char **argv);
int do_metrics(int argc, char **argv);
int do_show(int argc, char **argv);
int do_monitor(int argc, char **argv);
int do_rcvmgr(int argc, char **argv);

#endif /* _ER2BCCTL_H */
