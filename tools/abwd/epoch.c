// SPDX-License-Identifier: GPL-2.0
/* The sender's epoch, newer at each start whatever the clock (epoch.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "epoch.h"

/* the epoch in @path: 0 with *@v (0: no file), -1 with *@why */
static int epoch_read(const char *path, uint64_t *v, const char **why)
{
	char buf[32], *end;
	ssize_t n;
	int fd;

	*v = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		*why = strerror(errno);
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		*why = strerror(errno);
		return -1;
	}
	buf[n] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || *v == UINT64_MAX) {
		*v = 0;
		*why = "not an epoch (a decimal below 2^64 - 1)";
		return -1;
	}
	return 0;
}

/* the directory of @path synced, so that the rename survives a power loss */
static void epoch_sync_dir(const char *path)
{
	char dir[PATH_MAX], *slash;
	int fd;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return;
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

static int epoch_write(const char *path, uint64_t v, const char **why)
{
	char tmp[PATH_MAX + 32], buf[32];
	int fd, len, ok;

	/* a name of this process's own: two senders never write the same one */
	if (snprintf(tmp, sizeof(tmp), "%s.%ld.new", path, (long)getpid()) >= (int)sizeof(tmp)) {
		*why = "too long a name";
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	len = snprintf(buf, sizeof(buf), "%" PRIu64 "\n", v);
	errno = 0;
	ok = write(fd, buf, (size_t)len) == len && !fsync(fd);
	if (!ok)
		*why = strerror(errno ? errno : EIO);
	if (close(fd) && ok) {
		*why = strerror(errno);
		ok = 0;
	}
	if (ok && rename(tmp, path)) {
		*why = strerror(errno);
		ok = 0;
	}
	if (!ok) {
		unlink(tmp);
		errno = 0;
		return -1;
	}
	epoch_sync_dir(path);
	return 0;
}

/* the file's directory, if it is missing (one level: /var/lib/er2bc) */
static int epoch_mkdir(const char *path)
{
	char dir[PATH_MAX], *slash;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -1;
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return -1;
	*slash = '\0';
	return mkdir(dir, 0755) && errno != EEXIST ? -1 : 0;
}

int epoch_next(const char *path, uint64_t now_ns, uint64_t *epoch, const char **why)
{
	uint64_t last;
	int ret = 0;

	*epoch = now_ns;
	if (!path || !*path)
		return 0;
	/* a file that holds no epoch is written anew: the error is still said */
	if (epoch_read(path, &last, why))
		ret = -1;
	if (last >= *epoch)
		*epoch = last + 1;
	if (epoch_write(path, *epoch, why) &&
	    (errno != ENOENT || epoch_mkdir(path) || epoch_write(path, *epoch, why)))
		ret = -1;
	return ret;
}
