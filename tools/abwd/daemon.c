// SPDX-License-Identifier: GPL-2.0
/* What the two roles' loops share (daemon.h). */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "daemon.h"
#include "json.h"
#include "kern.h"
#include "wire.h"

int signals_open(void)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

enum sig_action signals_read(int fd)
{
	struct signalfd_siginfo si;
	enum sig_action a = SIG_NONE;

	while (read(fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT)
			return SIG_STOP;
		if (si.ssi_signo == SIGHUP)
			a = SIG_RELOAD;
	}
	return a;
}

int daemon_reload(const struct daemon *d, struct config *c)
{
	return conf_load(c, d->role, d->config_path, &d->cli);
}

int daemon_kern_open(struct nl *nl)
{
	struct nl_err err;
	int ret;

	ret = kern_open(nl, &err);
	if (ret == -ENOENT)
		log_err("generic netlink family %s not found (is sch_er2bc loaded?)",
			ER2BC_FAMILY_NAME);
	else if (ret)
		log_err("generic netlink: %s", strerror(-ret));
	return ret ? EXIT_FAIL : 0;
}

void json_dropped(struct json *j, const uint64_t *dropped)
{
	int v;

	json_obj_open(j, "dropped");
	for (v = WIRE_MALFORMED; v < WIRE_NVERDICTS; v++)
		json_u64(j, wire_verdict_name(v), dropped[v]);
	json_obj_close(j);
}

void read_datagrams(int fd, void (*fn)(void *ctx, const struct datagram *d),
		    void *ctx, char *err, size_t err_len, struct ratelimit *rl)
{
	uint8_t buf[WIRE_MAX_LEN + 1];
	struct datagram d = { .buf = buf };
	int i;

	for (i = 0; i < 64; i++) {
		d.len = sock_recv(fd, buf, sizeof(buf), &d.from, &d.from_len, &d.pi);
		if (d.len == -EAGAIN || d.len == -EWOULDBLOCK)
			return;
		if (d.len < 0) {
			/* an ICMP error for an earlier datagram, say */
			snprintf(err, err_len, "receiving: %s", strerror((int)-d.len));
			log_limited(rl, "%s", err);
			continue;
		}
		fn(ctx, &d);
	}
}

uint64_t daemon_backoff(uint32_t *backoff_ms, uint64_t now)
{
	*backoff_ms = !*backoff_ms ? 1000 : *backoff_ms >= 15000 ? 30000 : 2 * *backoff_ms;
	return now + *backoff_ms * 1000000ULL;
}

void daemon_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return;
	len = strlen(path);
	if (len >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';	/* the abstract namespace */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	/* (best effort: systemd's readiness, nothing the daemon needs) */
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   offsetof(struct sockaddr_un, sun_path) + len) < 0 && errno != ECONNREFUSED)
		log_warn("NOTIFY_SOCKET %s: %s", path, strerror(errno));
	close(fd);
}

int daemon_poll_ms(uint64_t now, uint64_t until)
{
	uint64_t ms;

	if (until <= now)
		return 0;
	ms = (until - now + 999999) / 1000000;
	return ms > 60000 ? 60000 : (int)ms;
}
