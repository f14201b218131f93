/* SPDX-License-Identifier: GPL-2.0 */
/*
 * er2bc-abwd: the ABW estimator of seed 000, section 3.2, between two
 * gateways. The sender asks the responder for the packets it received,
 * compares them with the packets its er2bc qdisc sent, and hands each
 * estimate to the qdisc (abw-set). See Documentation/er2bc-estimator.rst.
 *
 * What the files share: the program's name, exit codes, logging.
 */
#ifndef _ABWD_H
#define _ABWD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <syslog.h>

#define PROG "er2bc-abwd"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* exit codes: 1 failed at run time, 2 invalid configuration or usage */
#define EXIT_FAIL	1
#define EXIT_USAGE	2

/* -v: a line per estimate (and per request, for the responder) */
extern bool verbose;

/*
 * one line on stderr (journald adds the time and the unit), of syslog
 * priority @pri (LOG_ERR: it cannot go on as asked; LOG_WARNING: it goes
 * on, degraded or waiting; LOG_INFO: all is as it should be)
 */
void log_pri(int pri, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define log_err(...)	log_pri(LOG_ERR, __VA_ARGS__)
#define log_warn(...)	log_pri(LOG_WARNING, __VA_ARGS__)
#define log_msg(...)	log_pri(LOG_INFO, __VA_ARGS__)

/* the release this daemon is (VERSION), as --version prints it */
const char *abwd_release(void);

/* CLOCK_MONOTONIC and CLOCK_REALTIME, ns */
uint64_t mono_ns(void);
uint64_t real_ns(void);
/*
 * a CLOCK_REALTIME time (a socket's timestamp) in CLOCK_MONOTONIC, as the
 * two clocks stand now; 0 if before the monotonic clock's start
 */
uint64_t real_to_mono(uint64_t real);

/*
 * At most one message a period for something that may repeat quickly (a
 * flood of bad datagrams): log_limited() logs (a warning) and returns true at most
 * every RATELIMIT_NS, and says how many it kept quiet about in between.
 */
#define RATELIMIT_NS	(10 * 1000000000ULL)

/*
 * The most requests the sender awaits at once: as many snapshots as the
 * kernel keeps (ER2BC_SNAP_RING), so a late response still finds its own.
 * The timeout is at most this many intervals.
 */
#define ABWD_PENDING_MAX	16

/* where the sender keeps its last epoch (the systemd unit's StateDirectory) */
#define ABWD_EPOCH_FILE		"/var/lib/er2bc/abwd-sender.epoch"
/* the default timeout: 3 s, or ABWD_PENDING_MAX intervals if less */
#define ABWD_TIMEOUT_US		3000000ULL

struct ratelimit {
	uint64_t next;		/* mono_ns() from which the next may be logged */
	uint64_t quiet;		/* not logged since the last one */
};

bool log_limited(struct ratelimit *rl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The status file: written to PATH.tmp, then renamed over PATH, so a
 * reader sees the old or the new one, whole. status_open() returns the
 * stream to write to (NULL with errno set); status_commit() closes
 * and renames it: 0 or -errno.
 */
struct status_file {
	FILE *f;
	char tmp[4096 + 8];
	const char *path;
};

FILE *status_open(struct status_file *sf, const char *path);
int status_commit(struct status_file *sf);

#endif /* _ABWD_H */
