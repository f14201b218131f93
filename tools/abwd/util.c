// SPDX-License-Identifier: GPL-2.0
/* Logging, clocks and the status file (abwd.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "abwd.h"

#ifndef ABWD_VERSION
#define ABWD_VERSION "unknown"
#endif

const char *abwd_release(void)
{
	return ABWD_VERSION;
}

bool verbose;

/*
 * stderr is the journal's stream (JOURNAL_STREAM names its device and
 * inode, sd-daemon(3)): a line may start with its priority, <3> for an
 * error, which journalctl -p and the console's colours read
 */
static bool to_journal(void)
{
	static int known = -1;
	unsigned long long dev, ino;
	const char *js;
	struct stat st;

	if (known >= 0)
		return known;
	js = getenv("JOURNAL_STREAM");
	known = js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && !fstat(STDERR_FILENO, &st) &&
		(unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
	return known;
}

static void vlog(int pri, const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	if (to_journal())
		fprintf(stderr, "<%d>" PROG ": %s\n", pri, line);
	else
		fprintf(stderr, PROG ": %s\n", line);
}

void log_pri(int pri, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(pri, fmt, ap);
	va_end(ap);
}

bool log_limited(struct ratelimit *rl, const char *fmt, ...)
{
	uint64_t now = mono_ns();
	va_list ap;

	if (now < rl->next) {
		rl->quiet++;
		return false;
	}
	va_start(ap, fmt);
	vlog(LOG_WARNING, fmt, ap);
	va_end(ap);
	if (rl->quiet)
		log_warn("(%llu more like it in the last %llus)",
			(unsigned long long)rl->quiet, RATELIMIT_NS / 1000000000ULL);
	rl->quiet = 0;
	rl->next = now + RATELIMIT_NS;
	return true;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t real_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

uint64_t real_to_mono(uint64_t real)
{
	uint64_t m0, m1, r, best = UINT64_MAX;
	int64_t off = 0;
	int i;

	/*
	 * the clocks' offset now, either way (a step of the real clock since
	 * @real is in it): the real clock read between two monotonic reads,
	 * against their middle, the tightest of three tries (a read
	 * preempted between the two would skew it by the preemption)
	 */
	for (i = 0; i < 3; i++) {
		m0 = mono_ns();
		r = real_ns();
		m1 = mono_ns();
		if (m1 - m0 < best) {
			best = m1 - m0;
			off = (int64_t)(r - (m0 + (m1 - m0) / 2));
		}
	}

	if (off >= 0)
		return real > (uint64_t)off ? real - (uint64_t)off : 0;
	return real + (uint64_t)-off;
}

FILE *status_open(struct status_file *sf, const char *path)
{
	int fd;

	sf->path = path;
	sf->f = NULL;
	if (snprintf(sf->tmp, sizeof(sf->tmp), "%s.tmp", path) >= (int)sizeof(sf->tmp)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = open(sf->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return NULL;
	sf->f = fdopen(fd, "w");
	if (!sf->f) {
		close(fd);
		unlink(sf->tmp);
	}
	return sf->f;
}

int status_commit(struct status_file *sf)
{
	int err = 0;

	if (ferror(sf->f))
		err = EIO;
	if (fclose(sf->f) && !err)
		err = errno;
	sf->f = NULL;
	if (!err && rename(sf->tmp, sf->path))
		err = errno;
	if (err)
		unlink(sf->tmp);
	return -err;
}
