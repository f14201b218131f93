/* SPDX-License-Identifier: GPL-2.0 */
/* The two roles' main loops, and what they share with main(). */
#ifndef _ABWD_DAEMON_H
#define _ABWD_DAEMON_H

#include <stdint.h>

#include "abwd.h"
#include "conf.h"
#include "sock.h"

struct json;
struct nl;

struct daemon {
	enum role role;
	const char *config_path;	/* NULL: none */
	struct cli_settings cli;
	uint64_t once;			/* sender: stop after this many estimates */
};

/* what the signal descriptor said */
enum sig_action {
	SIG_NONE,
	SIG_STOP,		/* SIGTERM, SIGINT */
	SIG_RELOAD,		/* SIGHUP */
};

/* a signalfd for SIGTERM, SIGINT and SIGHUP (blocked): the fd, or -errno */
int signals_open(void);
enum sig_action signals_read(int fd);

/* the configuration again, for SIGHUP: 0, or EXIT_USAGE after the message */
int daemon_reload(const struct daemon *d, struct config *c);

/* the er2bc family resolved: 0, or EXIT_FAIL after the message */
int daemon_kern_open(struct nl *nl);

/*
 * A daemon waiting for its device or qdisc looks again after 1, 2, 4 ...
 * 30 s: *@backoff_ms (0 at the first miss) doubled, and when to look,
 * mono ns from @now.
 */
uint64_t daemon_backoff(uint32_t *backoff_ms, uint64_t now);

/* poll()'s timeout from @now until @until (mono ns): ms rounded up, <= 60 s */
int daemon_poll_ms(uint64_t now, uint64_t until);

/*
 * systemd's readiness protocol (sd_notify(3), without libsystemd): @state
 * ("READY=1", "RELOADING=1", "STOPPING=1") to $NOTIFY_SOCKET, if set
 */
void daemon_notify(const char *state);

/* the status files' "dropped" object: WIRE_NVERDICTS counters */
void json_dropped(struct json *j, const uint64_t *dropped);

/* one datagram as read */
struct datagram {
	const uint8_t *buf;
	ssize_t len;		/* more than WIRE_MAX_LEN: it was longer */
	struct sockaddr_storage from;
	socklen_t from_len;
	struct pktinfo pi;
};

/*
 * The datagrams waiting on @fd, at most 64, each to @fn; an error reading
 * goes to @err (and the log, rate-limited by @rl).
 */
void read_datagrams(int fd, void (*fn)(void *ctx, const struct datagram *d),
		    void *ctx, char *err, size_t err_len, struct ratelimit *rl);

/* the main loops: the exit code */
int run_sender(const struct daemon *d, struct config *c);
int run_responder(const struct daemon *d, struct config *c);

#endif /* _ABWD_DAEMON_H */
